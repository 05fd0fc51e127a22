//! The event engine: a binary heap ordered by (time, insertion sequence).
//!
//! The sequence number makes equal-time events run first-in first-out, so a
//! run is a pure function of the scenario and the seed. Components keep at
//! most one pending event each (a link's head packet, a flow's timer), so the heap stays O(components), not O(packets).

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an event. Indices refer to the world's arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of directed link `0` reaches the far end.
    Arrive(u32),
    /// Retransmission timer of TCP flow `0`.
    Rto(u32),
    /// Delayed-ACK timer of TCP flow `0`.
    DelAck(u32),
    /// Application `app` wake-up with an app-defined tag.
    App { app: u32, tag: u32 },
    /// UDP source `0` sends its next packet.
    Udp(u32),
}

#[derive(Debug)]
struct Entry {
    time: u64,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: SimTime,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Schedule `ev` at absolute time `t`. Scheduling in the past is a bug.
    #[inline]
    pub fn schedule(&mut self, t: SimTime, ev: Event) {
        debug_assert!(
            t >= self.now,
            "event scheduled in the past: {t} < {}",
            self.now
        );
        self.seq += 1;
        self.heap.push(Entry {
            time: t.0,
            seq: self.seq,
            ev,
        });
    }
    /// Pop the next event, advancing the clock, unless it lies beyond `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Event> {
        let top = self.heap.peek()?;
        if top.time > limit.0 {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        self.now = SimTime(e.time);
        self.processed += 1;
        Some(e.ev)
    }
    pub fn processed(&self) -> u64 {
        self.processed
    }
    pub fn pending(&self) -> usize {
        self.heap.len()
    }
}

/// A timer with lazy cancellation: re-arming never touches the heap unless
/// the new deadline is earlier than the pending wake-up. A stale wake-up
/// finds a later deadline and re-schedules itself; this keeps at most one
/// live heap entry per timer even though TCP re-arms its RTO on every ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<SimTime>,
    pending: Option<SimTime>,
}

/// What a timer wake-up means.
#[derive(Debug, PartialEq, Eq)]
pub enum Fire {
    /// Not this timer's live wake-up, or the timer was cancelled.
    Ignore,
    /// The deadline moved later; a new wake-up was scheduled.
    Rescheduled,
    /// The deadline is reached: act.
    Expired,
}

impl LazyTimer {
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }
    #[inline]
    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }
    /// Arm (or re-arm) for `at`; schedules `ev` only when needed.
    #[inline]
    pub fn arm(&mut self, q: &mut EventQueue, at: SimTime, ev: Event) {
        self.deadline = Some(at);
        match self.pending {
            Some(p) if p <= at => {}
            _ => {
                self.pending = Some(at);
                q.schedule(at, ev);
            }
        }
    }
    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = None;
    }
    /// Handle a wake-up at the current time.
    #[inline]
    pub fn fire(&mut self, q: &mut EventQueue, ev: Event) -> Fire {
        let now = q.now();
        if self.pending != Some(now) {
            return Fire::Ignore;
        }
        self.pending = None;
        match self.deadline {
            None => Fire::Ignore,
            Some(d) if d > now => {
                self.pending = Some(d);
                q.schedule(d, ev);
                Fire::Rescheduled
            }
            Some(_) => {
                self.deadline = None;
                Fire::Expired
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_run_fifo() {
        let mut q = EventQueue::new();
        for i in 0..5 {
            q.schedule(SimTime(10), Event::Udp(i));
        }
        q.schedule(SimTime(5), Event::Udp(99));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect();
        assert_eq!(order[0], Event::Udp(99));
        assert_eq!(
            &order[1..],
            &[
                Event::Udp(0),
                Event::Udp(1),
                Event::Udp(2),
                Event::Udp(3),
                Event::Udp(4)
            ]
        );
    }

    #[test]
    fn lazy_timer_fires_once_at_final_deadline() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::default();
        let ev = Event::Rto(0);
        t.arm(&mut q, SimTime(100), ev);
        t.arm(&mut q, SimTime(150), ev); // later: no new heap entry
        assert_eq!(q.pending(), 1);
        t.arm(&mut q, SimTime(50), ev); // earlier: one more entry
        assert_eq!(q.pending(), 2);
        t.arm(&mut q, SimTime(120), ev);
        let mut expired_at = vec![];
        while let Some(e) = q.pop_until(SimTime::MAX) {
            if t.fire(&mut q, e) == Fire::Expired {
                expired_at.push(q.now());
            }
        }
        assert_eq!(expired_at, vec![SimTime(120)]);
    }

    #[test]
    fn cancelled_timer_never_expires() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::default();
        t.arm(&mut q, SimTime(10), Event::Rto(1));
        t.cancel();
        while let Some(e) = q.pop_until(SimTime::MAX) {
            assert_ne!(t.fire(&mut q, e), Fire::Expired);
        }
    }
}
