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
use crate::tcp::*;

/// RFC 8985 §7.2's WCDelAckT, the worst-case delayed-ACK time a probe of
/// a single segment allows for.
const WC_DEL_ACK_T: SimTime = SimTime::from_ms(200);

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
    /// `fack_before` is the highest delivered sequence before the ACK that
    /// delivers it: an original transmission below it arrived out of order,
    /// and its start is returned (Linux's `reord`). Within one ACK nothing
    /// counts as reordered against what the same ACK delivers (Linux walks
    /// the SACK blocks in sequence order, and compares cumulatively
    /// acknowledged data with the highest SACK before the ACK).
    pub fn on_delivered(
        &mut self,
        start: u64,
        end: u64,
        xmit: SimTime,
        retx: bool,
        now: SimTime,
        fack_before: u64,
    ) -> Option<u64> {
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
        let reordered = (end <= fack_before && !retx).then_some(start);
        if reordered.is_some() {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(end);
        reordered
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

impl TcpFlow {
    /// Whether delivered segments feed RACK's state (RACK, or the adaptive
    /// threshold's SACK-based reordering detection).
    #[inline]
    pub(in crate::tcp) fn tracks_delivery(&self) -> bool {
        self.cfg.recovery == LossRecovery::Rack || self.cfg.reordering == Reordering::Adaptive
    }

    #[inline]
    pub(in crate::tcp) fn rack_on(&self) -> bool {
        self.cfg.recovery == LossRecovery::Rack
    }

    /// An ACK delivered original transmissions out of order, the lowest
    /// starting at `low` (None: no reordering). As Linux's
    /// tcp_check_sack_reordering the degree is measured up to the end of
    /// the highest SACKed segment (its `highest_sack` is the segment after
    /// it; snd_una when none is SACKed), and the
    /// adaptive threshold becomes the degree in segments when it exceeds
    /// the threshold, so it covers that reordering next time.
    pub(in crate::tcp) fn on_reordered(&mut self, low: Option<u64>) {
        let Some(low) = low else {
            return;
        };
        let fack = self
            .segs
            .iter()
            .rev()
            .find(|s| s.sacked)
            .map_or(self.snd_una, |s| s.end());
        if low >= fack {
            return;
        }
        self.stats.reorder_events += 1;
        let smss = self.st.smss.max(1);
        let metric = fack - low;
        if self.cfg.reordering == Reordering::Adaptive && metric > self.dupthresh as u64 * smss {
            let segs = metric.div_ceil(smss).min(MAX_REORDERING as u64) as u32;
            self.dupthresh = self.dupthresh.max(segs);
        }
    }

    /// The ACK covering a fast-retransmitted segment echoed the original's
    /// timestamp: the retransmission was spurious (RFC 3522).
    pub(in crate::tcp) fn on_spurious_retransmit(&mut self, u: Undo) {
        self.stats.spurious_retransmits += 1;
        self.stats.reorder_events += 1;
        if self.rack_on() {
            self.rack.on_spurious();
        }
        if self.cfg.reordering != Reordering::Adaptive {
            return;
        }
        // Every duplicate ACK since the last new ACK was a later segment
        // overtaking the original.
        self.dupthresh = self
            .dupthresh
            .max(self.dupacks.saturating_add(1))
            .min(MAX_REORDERING);
        if self.cong == CongState::Recovery {
            // Undo the reduction (RFC 4015 style: restore the window).
            self.st.cwnd = u.cwnd;
            self.st.ssthresh = u.ssthresh;
            self.st.ca_acked = 0;
            self.cong = CongState::Open;
            self.recover = self.snd_una;
            self.dupacks = 0;
            for s in self.segs.iter_mut() {
                s.rexmit = false;
            }
        }
    }

    /// RFC 8985 §6.2 step 5: mark lost every segment sent before the most
    /// recently delivered one whose reordering window has passed; arm the
    /// reordering timer for the others; start recovery on a loss.
    pub(in crate::tcp) fn rack_detect(&mut self, io: &mut TcpIo) {
        let now = io.now();
        let srtt = self.srtt.unwrap_or(self.cfg.rto_init);
        let sacked = self.sb.sacked_segs;
        let reo = self.rack.reo_wnd(
            self.cong == CongState::Recovery,
            sacked,
            self.cfg.dupack_threshold,
            srtt,
        );
        let (mut any, mut wait) = (false, None::<SimTime>);
        for s in self.segs.iter_mut() {
            if s.sacked || s.lost {
                continue;
            }
            match self.rack.remaining(s.xmit, s.end(), reo, now) {
                None => {}
                Some(SimTime::ZERO) => {
                    s.lost = true;
                    any = true;
                }
                Some(r) => wait = Some(wait.map_or(r, |w| w.max(r))),
            }
        }
        if let Some(w) = wait {
            self.rack.timer.arm(io, now + w, TcpTimer::Rack);
            self.rack.timer_kind = RackTimer::Reorder;
        }
        self.prr.rack_lost |= any;
        if any && self.cong == CongState::Open {
            self.enter_recovery(io, now);
        }
    }

    /// RFC 8985 §7.2: arm the probe timeout while the flow is open with
    /// data in flight and no probe or reordering wait pending.
    pub(in crate::tcp) fn tlp_arm(&mut self, io: &mut TcpIo) {
        if !self.rack_on()
            || self.cong != CongState::Open
            || self.snd_una >= self.snd_max
            || self.rack.tlp_end.is_some()
            || (self.rack.timer.is_armed() && self.rack.timer_kind == RackTimer::Reorder)
        {
            return;
        }
        let now = io.now();
        let mut pto = self
            .srtt
            .map_or(SimTime::from_secs(1), |s| SimTime(2 * s.0));
        if self.snd_max - self.snd_una <= self.st.smss && self.cfg.delayed_ack {
            // One segment out: its ACK may be delayed by up to the peer's
            // worst case, WCDelAckT (RFC 8985 §7.2 recommends 200 ms, the
            // TCP_RTO_MIN Linux adds), not the receiver's usual timer: a
            // Linux receiver's delayed-ACK timer adapts up to 200 ms.
            pto += WC_DEL_ACK_T.max(self.cfg.delayed_ack_timeout);
        }
        if let Some(d) = self.rto.deadline() {
            // Linux arms the probe in the retransmission timer's place,
            // capped at the RTO: at a tie the probe goes first (one
            // nanosecond early) and the RTO restarts after it; the RTO
            // firing first instead meant no probe at all.
            pto = pto.min(d.saturating_sub(now).saturating_sub(SimTime(1)));
        }
        self.rack.timer.arm(io, now + pto, TcpTimer::Rack);
        self.rack.timer_kind = RackTimer::Probe;
    }

    /// The RACK timer: a reordering window ended, or the probe timeout.
    pub(in crate::tcp) fn on_rack_event(&mut self, io: &mut TcpIo) {
        if self.rack.timer.fire(io, TcpTimer::Rack) != Fire::Expired {
            return;
        }
        self.rack.timer.cancel();
        match self.rack.timer_kind {
            RackTimer::Reorder => {
                if self.cong != CongState::Loss {
                    let entering = self.cong == CongState::Open;
                    self.rack_detect(io);
                    if entering && self.cong == CongState::Recovery {
                        // No ACK paces this entry: Linux's tcp_rack_reo_timeout
                        // runs the reduction as for an ACK that delivered one
                        // segment and did not advance snd_una
                        // (tcp_cwnd_reduction(sk, 1, 0, 0)), so the fast
                        // retransmission leaves alone. Without it cwnd =
                        // ssthresh let every segment the timer found lost
                        // go at once, up to ssthresh − pipe.
                        self.prr_ack(self.st.smss, false);
                    }
                }
            }
            RackTimer::Probe => self.send_probe(io),
        }
        self.try_send(io);
        self.tlp_arm(io);
    }

    /// RFC 8985 §7.3: one new segment if the receive window allows it,
    /// else the last segment again; then the RTO runs afresh.
    pub(in crate::tcp) fn send_probe(&mut self, io: &mut TcpIo) {
        if self.cong != CongState::Open || self.snd_una >= self.snd_max {
            return;
        }
        let available = self.app_limit - self.snd_max;
        let inflight = self.snd_max - self.snd_una;
        let view = self.seg_view(available);
        let new_len = if available > 0 {
            self.seg_policy.next_payload(&view, &mut self.rng)
        } else {
            0
        };
        if new_len > 0 && inflight + new_len as u64 <= self.cfg.rwnd_bytes {
            self.send_new(io, new_len);
        } else if let Some(s) = self.segs.iter().rev().find(|s| !s.sacked).copied() {
            self.transmit(io, s.start, s.len, true);
        } else {
            return;
        }
        self.stats.tlp_probes += 1;
        self.rack.tlp_end = Some(self.snd_max);
        self.arm_rto(io);
    }
}
