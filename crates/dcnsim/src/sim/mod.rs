//! The engine layer: integer simulated time, the event queue and the
//! seeded random streams. It knows nothing about packets or flows; every
//! other layer schedules its events and draws its randomness through it.

pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;
