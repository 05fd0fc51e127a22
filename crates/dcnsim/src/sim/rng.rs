//! Seeded random streams. Every component draws from its own stream derived
//! from the master seed and a component label, so adding a flow does not
//! change the random numbers any other component sees.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub type Rng = Xoshiro256PlusPlus;

/// SplitMix64 finalizer: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stream kinds, so that e.g. switch 3 and flow 3 get different streams.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Switch = 1,
    Flow = 2,
    App = 3,
    EcmpSalt = 4,
    Host = 5,
    /// Apps' start offsets (`start_jitter`).
    Start = 6,
    /// The event queue's tie order at equal times (`Event::rank`).
    Ties = 7,
    /// Trimming queues' choice of which data packet to cut (net/trim.rs).
    Trim = 8,
    /// Lossy links' draws (`[[failures]]`, net/failure.rs).
    Failure = 9,
    /// RED marking ramps' draws (`topology.ecn_kmax`, net/ramp.rs).
    EcnRamp = 10,
}

pub fn stream(seed: u64, kind: Stream, id: u64) -> Rng {
    let s = mix64(mix64(seed ^ mix64(kind as u64)) ^ id);
    Rng::seed_from_u64(s)
}
