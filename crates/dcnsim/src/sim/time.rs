//! Simulated time: an integer count of picoseconds. No floating-point clock:
//! a 64-byte ACK at 100 Gbps serializes in 5.12 ns, so nanoseconds are too
//! coarse, and u64 picoseconds still cover 213 days.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);
    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000_000)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds, correctly rounded: what a user reads (100 ms is 0.1, as
    /// Python's `units.parse_time("100ms")` gives; ps × 1e-12 rounds twice
    /// and put a tenth of times one ulp off, 0.09999999999999999).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    /// ps × 1e-12, within one ulp of [`SimTime::as_secs_f64`]. The
    /// dynamics that read time in seconds (CUBIC's curve, BBR's rates,
    /// Poisson arrival counts, the partition planner) were built on it and
    /// every recorded result with them: they keep it, so no packet moves.
    pub fn secs_scaled(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
    pub fn saturating_add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
    pub fn saturating_mul(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, o: SimTime) -> SimTime {
        debug_assert!(self.0 >= o.0, "negative duration");
        SimTime(self.0 - o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps >= 1_000_000_000_000 {
            write!(f, "{}s", ps as f64 / 1e12)
        } else if ps >= 1_000_000_000 {
            write!(f, "{}ms", ps as f64 / 1e9)
        } else if ps >= 1_000_000 {
            write!(f, "{}us", ps as f64 / 1e6)
        } else if ps >= 1_000 {
            write!(f, "{}ns", ps as f64 / 1e3)
        } else {
            write!(f, "{}ps", ps)
        }
    }
}

/// Serialization time of `bytes` at `rate_bps`, in integer picoseconds
/// (rounded up so a link is never faster than its rate).
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> SimTime {
    let bits = bytes as u128 * 8 * 1_000_000_000_000u128;
    SimTime(bits.div_ceil(rate_bps as u128) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn seconds_are_correctly_rounded() {
        // ms / 1e3 and ps / 1e12 are one rational number; each division
        // rounds it once, so the two must agree bit for bit
        for ms in 0..5000u64 {
            assert_eq!(
                SimTime::from_ms(ms).as_secs_f64(),
                ms as f64 / 1e3,
                "{ms} ms"
            );
        }
        assert_eq!(SimTime::from_ms(100).as_secs_f64(), 0.1);
        // the dynamics' conversion stays what their recorded results used
        assert_eq!(SimTime::from_ms(100).secs_scaled(), 100e9 * 1e-12);
    }
    #[test]
    fn serialization_of_1500_bytes_at_1gbps_is_12us() {
        assert_eq!(tx_time(1500, 1_000_000_000), SimTime::from_us(12));
        assert_eq!(tx_time(64, 100_000_000_000), SimTime::from_ps(5120));
    }
    #[test]
    fn display_uses_units() {
        assert_eq!(SimTime::from_us(50).to_string(), "50us");
        assert_eq!(SimTime::from_ms(200).to_string(), "200ms");
    }
}
