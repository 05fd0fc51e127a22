//! The event engine: a monotone radix heap on integer time, FIFO among
//! equal times.
//!
//! Equal-time events run first-in first-out, so a run is a pure function of
//! the scenario and the seed. Components keep at most one pending event each
//! (a link's head packet, a flow's timer), so the queue stays
//! O(components), not O(packets).

use crate::sim::time::SimTime;

/// What happens at an event. Indices refer to the world's arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of directed link `0` reaches the far end.
    Arrive(u32),
    /// Retransmission timer of TCP flow `0`.
    Rto(u32),
    /// Delayed-ACK timer of TCP flow `0`.
    DelAck(u32),
    /// Probabilistic-retransmission thread of TCP flow `0` (Kulkarni Alg. 1).
    ProbRetx(u32),
    /// RACK reordering timer or tail loss probe of TCP flow `0`.
    Rack(u32),
    /// Application `app` wake-up with an app-defined tag.
    App { app: u32, tag: u32 },
    /// UDP source `0` sends its next packet.
    Udp(u32),
    /// Periodic time-series sample.
    Sample,
}

/// Entries a drained bucket keeps allocated (24 KB): enough that steady
/// traffic reuses its buckets, small enough that 65 of them cost nothing.
pub const KEEP_CAPACITY: usize = 1024;

/// A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) on integer times.
///
/// Simulation time never goes backwards, so the queue is monotone: every
/// key pushed is ≥ the last key popped. Bucket `b` holds the events whose
/// time differs from `last` first in bit `b − 1`; bucket 0 holds the events
/// at exactly `last` and is consumed first-in first-out. A push is an XOR
/// and a leading-zero count; an event moves down at most 64 buckets in its
/// life. Events with equal times always share a bucket and keep their
/// insertion order through redistribution, so equal-time events run FIFO,
/// as with a (time, sequence) heap, and runs stay deterministic.
#[derive(Debug)]
pub struct EventQueue {
    buckets: Vec<Vec<(u64, Event)>>,
    /// Next unread index of bucket 0.
    head: usize,
    last: u64,
    len: usize,
    now: SimTime,
    processed: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            buckets: (0..65).map(|_| Vec::new()).collect(),
            head: 0,
            last: 0,
            len: 0,
            now: SimTime::ZERO,
            processed: 0,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    #[inline(always)]
    fn bucket(last: u64, t: u64) -> usize {
        (64 - (t ^ last).leading_zeros()) as usize
    }
    /// Schedule `ev` at absolute time `t`. Scheduling in the past is a bug.
    #[inline]
    pub fn schedule(&mut self, t: SimTime, ev: Event) {
        debug_assert!(
            t >= self.now,
            "event scheduled in the past: {t} < {}",
            self.now
        );
        let b = Self::bucket(self.last, t.0);
        self.buckets[b].push((t.0, ev));
        self.len += 1;
    }
    /// Make bucket 0 non-empty by redistributing the first non-empty bucket
    /// around its minimum — but only if that minimum is ≤ `limit`: `last`
    /// must never pass the clock, or an event scheduled later at a time
    /// between the clock and `last` would be misplaced.
    #[inline]
    fn refill(&mut self, limit: u64) -> bool {
        if self.head < self.buckets[0].len() {
            return self.last <= limit;
        }
        self.buckets[0].clear();
        if self.buckets[0].capacity() > KEEP_CAPACITY {
            // A burst is over: keep no more than a small bucket's worth, so
            // the buckets' capacities stay within twice what they hold
            // (limits.rs bounds the queue by its pending events).
            self.buckets[0].shrink_to(KEEP_CAPACITY);
        }
        self.head = 0;
        let Some(i) = (1..65).find(|&i| !self.buckets[i].is_empty()) else {
            return false;
        };
        let min = self.buckets[i]
            .iter()
            .map(|e| e.0)
            .min()
            .expect("non-empty");
        if min > limit {
            return false;
        }
        let mut moving = std::mem::take(&mut self.buckets[i]);
        self.last = min;
        for &(t, ev) in &moving {
            self.buckets[Self::bucket(min, t)].push((t, ev));
        }
        moving.clear();
        // A bucket above 0 only grows until it is redistributed, so its
        // capacity is at most twice what it holds, unless kept from before:
        // keep it only when small.
        if moving.capacity() > KEEP_CAPACITY {
            moving = Vec::new();
        }
        self.buckets[i] = moving;
        true
    }
    /// Pop the next event, advancing the clock, unless it lies beyond `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Event> {
        if !self.refill(limit.0) {
            return None;
        }
        let (t, ev) = self.buckets[0][self.head];
        self.head += 1;
        self.len -= 1;
        self.now = SimTime(t);
        self.processed += 1;
        Some(ev)
    }
    pub fn processed(&self) -> u64 {
        self.processed
    }
    pub fn pending(&self) -> usize {
        self.len
    }
    /// Heap bytes of the buckets (their capacities, not just what is queued).
    pub fn heap_bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Vec<(u64, Event)>>()
            + self
                .buckets
                .iter()
                .map(|b| b.capacity() * std::mem::size_of::<(u64, Event)>())
                .sum::<usize>()
    }
}

/// Whatever a [`LazyTimer`] schedules its wake-ups with: the world's
/// [`EventQueue`], or an endpoint's outbox that the world drains later
/// (`tcp::TcpIo`), so a timer's owner needs no access to the queue.
pub trait Schedule<E> {
    fn now(&self) -> SimTime;
    fn schedule(&mut self, t: SimTime, ev: E);
}

impl Schedule<Event> for EventQueue {
    #[inline]
    fn now(&self) -> SimTime {
        self.now
    }
    #[inline]
    fn schedule(&mut self, t: SimTime, ev: Event) {
        EventQueue::schedule(self, t, ev)
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
    pub fn arm<E>(&mut self, q: &mut impl Schedule<E>, at: SimTime, ev: E) {
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
    pub fn fire<E>(&mut self, q: &mut impl Schedule<E>, ev: E) -> Fire {
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

    /// The radix heap pops in (time, insertion) order for any monotone
    /// schedule, compared against a sort of the same events.
    #[test]
    fn radix_heap_matches_a_stable_sort() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut expect: Vec<(u64, u32)> = Vec::new();
        let mut got: Vec<(u64, u32)> = Vec::new();
        let mut id = 0u32;
        for _ in 0..20_000 {
            if rng.gen_bool(0.55) {
                // schedule in the future, with many exact ties
                let dt = match rng.gen_range(0..4) {
                    0 => 0,
                    1 => rng.gen_range(0..4),
                    2 => rng.gen_range(0..1_000_000),
                    _ => rng.gen_range(0..u32::MAX as u64),
                };
                let t = q.now().0 + dt;
                q.schedule(SimTime(t), Event::Udp(id));
                expect.push((t, id));
                id += 1;
            } else if let Some(Event::Udp(i)) = q.pop_until(SimTime::MAX) {
                got.push((q.now().0, i));
            }
        }
        while let Some(Event::Udp(i)) = q.pop_until(SimTime::MAX) {
            got.push((q.now().0, i));
        }
        // Events popped must come out in (time, id) order relative to
        // everything still queued when they were popped: check global
        // properties: time never decreases, equal times keep id order,
        // and every event comes out exactly once.
        assert!(got
            .windows(2)
            .all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
        let mut a = got.clone();
        a.sort();
        expect.sort();
        assert_eq!(a, expect);
    }

    #[test]
    fn pop_until_leaves_later_events_queued() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), Event::Udp(1));
        q.schedule(SimTime(30), Event::Udp(2));
        assert_eq!(q.pop_until(SimTime(20)), Some(Event::Udp(1)));
        assert_eq!(q.pop_until(SimTime(20)), None);
        assert_eq!(q.pending(), 1);
        q.schedule(SimTime(25), Event::Udp(3));
        assert_eq!(q.pop_until(SimTime::MAX), Some(Event::Udp(3)));
        assert_eq!(q.pop_until(SimTime::MAX), Some(Event::Udp(2)));
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
