//! The kernel's clock for what Linux counts in jiffies (`tcp.hz`):
//! tcp_cubic's arithmetic and the tail-loss-probe and RACK reordering
//! timers. A kernel timer armed for a wait fires at a tick: the wait is
//! rounded up to whole jiffies (`usecs_to_jiffies`) and counted from the
//! jiffy the arming falls in, so it fires up to a jiffy early or late
//! against the exact wait.

use crate::sim::time::SimTime;

/// One jiffy, 1/`hz` s.
#[inline]
pub fn jiffy(hz: u32) -> SimTime {
    SimTime::from_ps(1_000_000_000_000 / u64::from(hz.max(1)))
}

/// When a timer armed at `now` for `wait` plus `extra` whole jiffies fires
/// (`jiffies + usecs_to_jiffies(wait) + extra`): at that tick, never
/// before `now`.
#[inline]
pub fn timer_deadline(now: SimTime, wait: SimTime, extra: u64, hz: u32) -> SimTime {
    let j = jiffy(hz).ps();
    let ticks = wait.ps().div_ceil(j) + extra;
    SimTime::from_ps((now.ps() / j + ticks) * j).max(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timer_fires_at_the_tick_its_rounded_wait_reaches() {
        let ms = SimTime::from_ms;
        // HZ = 250: 25 ms is 7 jiffies (28 ms), plus 2; armed 1 ms into
        // jiffy 50 (200 ms), it fires at tick 59: 35 ms later.
        assert_eq!(timer_deadline(ms(201), ms(25), 2, 250), ms(236));
        // HZ = 1000: 25 + 2 jiffies from tick 201.
        assert_eq!(timer_deadline(ms(201), ms(25), 2, 1000), ms(228));
        // armed on a tick: exactly the rounded wait
        assert_eq!(timer_deadline(ms(200), ms(8), 0, 250), ms(208));
        assert_eq!(timer_deadline(ms(200), SimTime::ZERO, 0, 250), ms(200));
    }
}
