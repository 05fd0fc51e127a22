//! Reordering-robust loss detection: RACK-TLP (RFC 8985) and the state
//! behind the adaptive duplicate-ACK threshold.
//!
//! RACK marks a segment lost when a segment *sent after it* has been
//! delivered (cumulatively or selectively acknowledged) and more than
//! RACK.rtt + reo_wnd has passed since it was sent: time, not a count of
//! duplicate ACKs, decides, so reordering shallower than the reordering
//! window never triggers a retransmission. The Tail Loss Probe sends one
//! segment (new data, or the last segment again) when the ACK clock stops
//! for 2·SRTT, so a lost tail is repaired by SACK recovery instead of an
//! RTO.
//!
//! Spurious retransmissions are detected with timestamps (RFC 3522 Eifel
//! detection: the ACK that covers a retransmitted segment echoes the
//! original's send time); in RACK mode this stands in for the DSACK
//! signal of RFC 8985 §6.2 step 4 that widens the reordering window.

use crate::sim::queue::LazyTimer;
use crate::sim::time::SimTime;

/// What the flow's RACK timer is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RackTimer {
    /// A segment that may be lost once its reordering window ends.
    Reorder,
    /// The tail loss probe (PTO).
    Probe,
}

/// RFC 8985 §6.1 per-connection state.
#[derive(Debug)]
pub struct Rack {
    /// Send time and end of the most recently *sent* segment that has been delivered.
    pub xmit_ts: SimTime,
    pub end_seq: u64,
    /// RTT of that segment.
    pub rtt: SimTime,
    pub min_rtt: Option<SimTime>,
    /// Highest end sequence delivered (cumulatively or by SACK).
    pub fack: u64,
    pub reordering_seen: bool,
    pub reo_wnd_mult: u32,
    pub reo_wnd_persist: u32,
    /// snd_max when the pending tail loss probe was sent.
    pub tlp_end: Option<u64>,
    pub timer: LazyTimer,
    pub timer_kind: RackTimer,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: SimTime::ZERO,
            end_seq: 0,
            rtt: SimTime::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            tlp_end: None,
            timer: LazyTimer::default(),
            timer_kind: RackTimer::Reorder,
        }
    }
}

/// RFC 8985 RACK_sent_after: whether (t1, s1) was sent after (t2, s2).
#[inline]
pub fn sent_after(t1: SimTime, s1: u64, t2: SimTime, s2: u64) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

impl Rack {
    /// RFC 8985 §6.2 steps 1–3 for one newly delivered segment
    /// (`start..end`, last sent at `xmit`, `retx` if ever retransmitted).
    /// Returns the reordering degree in bytes (how far below the highest
    /// delivered sequence an original transmission arrived), 0 if none.
    pub fn on_delivered(
        &mut self,
        start: u64,
        end: u64,
        xmit: SimTime,
        retx: bool,
        now: SimTime,
    ) -> u64 {
        let rtt = now.saturating_sub(xmit);
        // A retransmitted segment acknowledged sooner than any RTT seen was
        // delivered by an earlier copy: its send time says nothing.
        let ambiguous = retx && self.min_rtt.is_some_and(|m| rtt < m);
        if !ambiguous {
            if !retx {
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            }
            if sent_after(xmit, end, self.xmit_ts, self.end_seq) {
                self.rtt = rtt;
                self.xmit_ts = xmit;
                self.end_seq = end;
            }
        }
        let mut degree = 0;
        if end < self.fack && !retx {
            self.reordering_seen = true;
            degree = self.fack - start;
        }
        self.fack = self.fack.max(end);
        degree
    }

    /// RFC 8985 §6.2 step 4 (the reordering window), given whether the
    /// flow is in recovery, how many segments are SACKed and SRTT.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_segs: u32,
        dupthresh: u32,
        srtt: SimTime,
    ) -> SimTime {
        if !self.reordering_seen && (in_recovery || sacked_segs >= dupthresh) {
            return SimTime::ZERO;
        }
        let min_rtt = self.min_rtt.unwrap_or(srtt);
        SimTime(min_rtt.0 / 4 * self.reo_wnd_mult as u64).min(srtt)
    }

    /// A retransmission proved spurious (the DSACK signal of step 4).
    pub fn on_spurious(&mut self) {
        self.reo_wnd_mult = self.reo_wnd_mult.saturating_add(1);
        self.reo_wnd_persist = 16;
    }

    /// Leaving recovery: after 16 recoveries without a new spurious
    /// retransmission the window shrinks back.
    pub fn on_recovery_end(&mut self) {
        if self.reo_wnd_persist > 0 {
            self.reo_wnd_persist -= 1;
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_mult = 1;
            }
        }
    }

    /// Time still to wait before a segment sent at `xmit` counts as lost:
    /// `None` if it cannot be judged yet (sent after the most recently
    /// delivered segment), `Some(ZERO)` if lost now.
    #[inline]
    pub fn remaining(
        &self,
        xmit: SimTime,
        end: u64,
        reo_wnd: SimTime,
        now: SimTime,
    ) -> Option<SimTime> {
        if sent_after(xmit, end, self.xmit_ts, self.end_seq) {
            return None;
        }
        let deadline = xmit + self.rtt + reo_wnd;
        Some(deadline.saturating_sub(now))
    }
}

/// The state of the Eifel undo: what the last fast retransmission changed.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    /// Start of the first segment retransmitted in this recovery.
    pub seq: u64,
    /// When it was retransmitted.
    pub retx_ts: SimTime,
    pub cwnd: u64,
    pub ssthresh: u64,
}
