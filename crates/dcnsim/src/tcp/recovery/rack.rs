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

use super::sack::Sack;
use super::{Action, Actions, View};
use crate::config::{RackTimers, Reordering};
use crate::sim::queue::LazyTimer;
use crate::sim::time::SimTime;
use crate::tcp::jiffies::{jiffy, timer_deadline};
use crate::tcp::*;

/// RFC 8985 §7.2's WCDelAckT, the worst-case delayed-ACK time a probe of
/// a single segment allows for.
const WC_DEL_ACK_T: SimTime = SimTime::from_ms(200);

/// Linux's TCP_TIMEOUT_MIN, in jiffies: the slack tcp_schedule_loss_probe
/// adds to 2·SRTT and tcp_rack_mark_lost to the reordering wait
/// (`rack_timers = "linux"`), so neither timer fires within a jiffy or two
/// of its cause. (Measured on Linux 6.18 at HZ = 250 with packetdrill: a
/// probe 207 ms after a send with SRTT 100 ms, a reordering retransmission
/// 32 ms after a SACK that left 25 ms to wait; the microsecond version,
/// `TCP_TIMEOUT_MIN_US` = 2 ms, would give 200–204 and 24–28.)
pub const TCP_TIMEOUT_MIN_JIFFIES: u64 = 2;

/// Linux's TCP_RTO_MIN (200 ms, HZ/5 jiffies), which tcp_schedule_loss_probe
/// adds for the peer's delayed ACK when one segment is out, whatever the
/// route's RTOmin (measured: with `rto_min 10ms` on the route the probe
/// still waits for the RTO).
pub const TCP_RTO_MIN: SimTime = SimTime::from_ms(200);

/// What the flow's RACK timer is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RackTimer {
    /// A segment that may be lost once its reordering window ends.
    Reorder,
    /// The tail loss probe (PTO).
    Probe,
}

/// RFC 8985 §6.1's record of delivered segments: the most recently *sent*
/// one delivered and its RTT, the minimum RTT, the highest delivered
/// sequence, whether reordering was seen. RACK detects loss from it; the
/// adaptive threshold measures reordering with it under every machine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delivery {
    /// Send time and end of the most recently *sent* segment that has been delivered.
    pub xmit_ts: SimTime,
    pub end_seq: u64,
    /// RTT of that segment.
    pub rtt: SimTime,
    pub min_rtt: Option<SimTime>,
    /// Highest end sequence delivered (cumulatively or by SACK).
    pub fack: u64,
    pub reordering_seen: bool,
    /// `rtt` from every segment delivered, the last an ACK walks (Linux's
    /// tcp_rack_advance), not only from the most recently sent (RFC 8985).
    pub rtt_each: bool,
}

/// RFC 8985 RACK_sent_after: whether (t1, s1) was sent after (t2, s2).
#[inline]
pub fn sent_after(t1: SimTime, s1: u64, t2: SimTime, s2: u64) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

impl Delivery {
    /// An RTT sample for the minimum RTT (a data segment's, or the
    /// handshake's: Linux's `tcp_min_rtt` takes both).
    #[inline]
    pub fn note_min_rtt(&mut self, rtt: SimTime) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

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
                self.note_min_rtt(rtt);
            }
            if self.rtt_each {
                // Linux: rack.rtt_us is every unambiguous sample's, the
                // send time only the most recently sent's
                self.rtt = rtt;
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

    /// [`Self::on_delivered`] for the scoreboard's segment `s`.
    #[inline]
    pub(in crate::tcp) fn on_seg(
        &mut self,
        s: &Seg,
        now: SimTime,
        fack_before: u64,
    ) -> Option<u64> {
        self.on_delivered(s.start, s.end(), s.xmit, s.retx_ever, now, fack_before)
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

/// RACK-TLP's machine: time-based loss detection and tail loss probes on
/// top of the SACK machine's sending and reduction.
#[derive(Debug)]
pub(in crate::tcp) struct RackTlp {
    pub sack: Sack,
    pub reo_wnd_mult: u32,
    pub reo_wnd_persist: u32,
    /// snd_max when the pending tail loss probe was sent.
    pub tlp_end: Option<u64>,
    pub timer: LazyTimer,
    pub timer_kind: RackTimer,
}

impl RackTlp {
    pub fn new(sack: Sack) -> Self {
        RackTlp {
            sack,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            tlp_end: None,
            timer: LazyTimer::default(),
            timer_kind: RackTimer::Reorder,
        }
    }

    /// RFC 8985 §6.2 step 4 (the reordering window), given whether the
    /// flow is in recovery, how many segments are SACKed and SRTT.
    pub fn reo_wnd(
        &self,
        d: &Delivery,
        in_recovery: bool,
        sacked_segs: u32,
        dupthresh: u32,
        srtt: SimTime,
    ) -> SimTime {
        if !d.reordering_seen && (in_recovery || sacked_segs >= dupthresh) {
            return SimTime::ZERO;
        }
        let min_rtt = d.min_rtt.unwrap_or(srtt);
        SimTime(min_rtt.0 / 4 * self.reo_wnd_mult as u64).min(srtt)
    }

    /// RFC 8985 §6.2 step 5 over the first `upto` segments of the
    /// scoreboard: mark lost every segment sent before the most recently
    /// delivered one whose reordering window `reo` has passed. Returns the
    /// bytes marked lost and the longest wait for the others (the
    /// reordering timer).
    pub fn detect(
        &self,
        d: &Delivery,
        segs: &mut VecDeque<Seg>,
        upto: usize,
        reo: SimTime,
        now: SimTime,
    ) -> (u64, Option<SimTime>) {
        let (mut lost, mut wait) = (0, None::<SimTime>);
        for s in segs.iter_mut().take(upto) {
            if s.sacked || s.lost {
                continue;
            }
            match d.remaining(s.xmit, s.end(), reo, now) {
                None => {}
                Some(SimTime::ZERO) => {
                    s.lost = true;
                    lost += s.len as u64;
                }
                Some(r) => wait = Some(wait.map_or(r, |w| w.max(r))),
            }
        }
        (lost, wait)
    }

    /// Arm the reordering timer for the longest wait `w` [`Self::detect`]
    /// left: `w` on (RFC 8985), or as Linux's tcp_rack_mark_lost arms it,
    /// in whole jiffies of `hz` plus TCP_TIMEOUT_MIN, firing at a tick.
    pub fn arm_reorder(&mut self, io: &mut TcpIo, w: SimTime, timers: RackTimers, hz: u32) {
        let now = io.now();
        let due = if timers == RackTimers::Linux {
            timer_deadline(now, w, TCP_TIMEOUT_MIN_JIFFIES, hz)
        } else {
            now + w
        };
        self.timer.arm(io, due, TcpTimer::Rack);
        self.timer_kind = RackTimer::Reorder;
    }

    /// RACK's entry: the first segment it marked lost goes out now
    /// (RFC 6675 §5 (4.3), whatever the window); the rest via NextSeg.
    /// Leaving it to NextSeg sent nothing when pipe exceeded the new cwnd,
    /// so an episode could end (the "lost" segment was only late) having
    /// counted a fast retransmit that never happened (found by
    /// tests/properties.rs: retransmits < fast retransmits).
    pub fn enter(&mut self, v: &View) -> Actions {
        let first = v.segs.iter().position(|s| s.lost);
        self.sack
            .enter_with(v, super::scoreboard::LossMarks::Rack, first)
    }

    /// An ACK of new data in recovery: as SACK's; leaving recovery also
    /// ages the widened reordering window.
    pub fn on_ack(&mut self, v: &View) -> Actions {
        let acts = self.sack.on_ack(v);
        if acts.iter().any(|a| matches!(a, Action::Exit { .. })) {
            self.on_recovery_end();
        }
        acts
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

    /// The retransmission timer took over: no probe is pending.
    pub fn on_timeout(&mut self) {
        self.tlp_end = None;
        self.timer.cancel();
    }

    /// RFC 8985 §7.2's probe timeout: 2·SRTT (1 s before a sample), plus
    /// the worst-case delayed ACK when one segment is out
    /// (`one_segment_delack`: the peer's delayed-ACK timer), capped just
    /// below the retransmission timer's remaining time `rto_left`.
    pub fn pto(
        srtt: Option<SimTime>,
        one_segment_delack: Option<SimTime>,
        rto_left: Option<SimTime>,
    ) -> SimTime {
        let mut pto = srtt.map_or(SimTime::from_secs(1), |s| SimTime(2 * s.0));
        if let Some(dack) = one_segment_delack {
            // One segment out: its ACK may be delayed by up to the peer's
            // worst case, WCDelAckT (RFC 8985 §7.2 recommends 200 ms, the
            // TCP_RTO_MIN Linux adds), not the receiver's usual timer: a
            // Linux receiver's delayed-ACK timer adapts up to 200 ms.
            pto += WC_DEL_ACK_T.max(dack);
        }
        cap_at_rto(pto, rto_left)
    }

    /// When Linux's probe fires if armed at `now` (tcp_schedule_loss_probe
    /// as Linux 6.18 runs it, in jiffies of 1/`hz` s): 2·SRTT rounded up to
    /// whole jiffies plus TCP_RTO_MIN when one segment is out (the
    /// worst-case delayed ACK, whatever the peer does) or TCP_TIMEOUT_MIN
    /// otherwise; 1 s before a sample; at a tick; capped as [`Self::pto`]
    /// at the retransmission timer's remaining time.
    pub fn pto_linux(
        now: SimTime,
        srtt: Option<SimTime>,
        one_segment_out: bool,
        hz: u32,
        rto_left: Option<SimTime>,
    ) -> SimTime {
        let deadline = match srtt {
            Some(s) if one_segment_out => {
                let extra = TCP_RTO_MIN.ps().div_ceil(jiffy(hz).ps());
                timer_deadline(now, SimTime(2 * s.0), extra, hz)
            }
            Some(s) => timer_deadline(now, SimTime(2 * s.0), TCP_TIMEOUT_MIN_JIFFIES, hz),
            None => timer_deadline(now, SimTime::from_secs(1), 0, hz),
        };
        cap_at_rto(deadline - now, rto_left)
    }
}

/// A probe timeout capped just below the retransmission timer's remaining
/// time `rto_left`: Linux arms the probe in the retransmission timer's
/// place, capped at the RTO, so at a tie the probe goes first (one
/// nanosecond early) and the RTO restarts after it; the RTO firing first
/// instead meant no probe at all.
fn cap_at_rto(pto: SimTime, rto_left: Option<SimTime>) -> SimTime {
    rto_left.map_or(pto, |left| pto.min(left.saturating_sub(SimTime(1))))
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
        if let Some(r) = self.rec.rack_mut() {
            r.on_spurious();
        }
        if self.cfg.reordering != Reordering::Adaptive {
            return;
        }
        // Every duplicate ACK since the last new ACK was a later segment
        // overtaking the original.
        self.dupthresh = self
            .dupthresh
            .max(self.ep.dupacks.saturating_add(1))
            .min(MAX_REORDERING);
        if self.cong == CongState::Recovery {
            // Undo the reduction (RFC 4015 style: restore the window).
            // BBR keeps its window and forgets its bandwidth plateau and
            // policer sampling instead (bbr_undo_cwnd).
            if let super::super::cc::Cc::Bbr(b) = &mut self.cc {
                b.undo();
            } else {
                self.st.cwnd = u.cwnd;
            }
            self.st.ssthresh = u.ssthresh;
            self.st.ca_acked = 0;
            // a CE mark in the window is answered after all: an undone
            // loss neither sends CWR nor stands for the window's echo
            (self.ecn_recover, self.send_cwr) = self.ecn_before_loss;
            self.cong = CongState::Open;
            self.ep.recover = self.snd_una;
            self.ep.dupacks = 0;
            for s in self.segs.iter_mut() {
                s.rexmit = false;
            }
        }
    }

    /// RFC 8985 §6.2 step 5: mark lost every segment sent before the most
    /// recently delivered one whose reordering window has passed; arm the
    /// reordering timer for the others; start recovery on a loss.
    pub(in crate::tcp) fn rack_detect(&mut self, io: &mut TcpIo) {
        let in_recovery = self.cong == CongState::Recovery;
        let all = self.segs.len();
        if self.rack_mark(io, all, in_recovery) && self.cong == CongState::Open {
            self.enter_recovery(io, io.now());
        }
    }

    /// RFC 8985 §6.2 step 5 over the first `upto` segments, with the
    /// reordering window of a flow `in_recovery` or not; arms the
    /// reordering timer for the segments still to judge. Returns whether
    /// any segment was marked lost.
    fn rack_mark(&mut self, io: &mut TcpIo, upto: usize, in_recovery: bool) -> bool {
        let now = io.now();
        let srtt = self.srtt.unwrap_or(self.cfg.rto_init);
        let (sacked, thresh) = (self.sh.sb.sacked_segs, self.cfg.dupack_threshold);
        let Some(r) = self.rec.rack_mut() else {
            return false;
        };
        let reo = r.reo_wnd(&self.sh.seen, in_recovery, sacked, thresh, srtt);
        let (lost, wait) = r.detect(&self.sh.seen, &mut self.segs, upto, reo, now);
        if let Some(w) = wait {
            r.arm_reorder(io, w, self.cfg.rack_timers, self.cfg.hz);
        }
        let any = lost > 0;
        r.sack.prr.rack_lost |= any;
        if let super::super::cc::Cc::Bbr(b) = &mut self.cc {
            b.mark_lost(lost);
        }
        any
    }

    /// Loss detection after a timeout (`rack_in_loss`, Linux's
    /// tcp_fastretrans_alert in TCP_CA_Loss). The timeout deemed every
    /// segment lost and the flow resends them in order (go-back-N, below
    /// snd_nxt); RACK judges those resends as it judges any segment, with
    /// no reordering window until reordering is seen (tcp_rack_reo_wnd at
    /// CA_Loss and above). A resend found lost ends the Loss state as
    /// Linux's FLAG_LOST_RETRANS does: the flow enters Recovery (a second
    /// reduction, from the window the timeout left), what the timeout left
    /// unsent counts as lost there too (tcp_timeout_mark_lost marked it),
    /// and PRR resends the first lost segment now. Without this the
    /// flow kept sending new data past the hole, one segment per SACK, until
    /// the next, backed-off, timeout (docs/linux_profile.md, mechanism J).
    /// Returns whether the flow entered Recovery.
    pub(in crate::tcp) fn rack_loss_detect(&mut self, io: &mut TcpIo) -> bool {
        let nxt = self.snd_nxt;
        let resent = self.segs.partition_point(|s| s.start < nxt);
        // CA_Loss is above CA_Recovery: RACK's reordering window is the one
        // a flow in recovery gets (tcp_rack_reo_wnd)
        if !self.rack_mark(io, resent, true) {
            return false;
        }
        for s in self.segs.iter_mut().skip(resent) {
            s.lost |= !s.sacked;
        }
        self.snd_nxt = self.snd_max;
        self.enter_recovery(io, io.now());
        true
    }

    /// RFC 8985 §7.2: arm the probe timeout while the flow is open with
    /// data in flight and no probe or reordering wait pending. Only RACK
    /// probes: for the other machines nothing is done, seen inline.
    #[inline(always)]
    pub(in crate::tcp) fn tlp_arm(&mut self, io: &mut TcpIo) {
        if self.rec.is_rack() {
            self.tlp_arm_rack(io);
        }
    }

    #[inline(never)]
    fn tlp_arm_rack(&mut self, io: &mut TcpIo) {
        let open = self.cong == CongState::Open && self.snd_una < self.snd_max;
        let Some(r) = self.rec.rack() else {
            return;
        };
        if !open
            || r.tlp_end.is_some()
            || (r.timer.is_armed() && r.timer_kind == RackTimer::Reorder)
        {
            return;
        }
        let now = io.now();
        let rto_left = self.rto.deadline().map(|d| d.saturating_sub(now));
        let pto = if self.cfg.rack_timers == RackTimers::Linux {
            // tcp_schedule_loss_probe arms nothing outside Open and CWR:
            // in Disorder (a segment SACKed, or a retransmission out, or
            // the head ever retransmitted: tcp_try_to_open) the SACKs
            // to come will tell, and the RTO covers the rest.
            // A probe armed before is replaced by the RTO there, as
            // tcp_set_xmit_timer's tcp_rearm_rto replaces it.
            // A flow that never retransmitted has no such segment: the
            // scoreboard is walked only after its first retransmission.
            let retx_out = self.stats.retransmits > 0 && self.segs.iter().any(|s| s.retx_ever);
            if self.sh.sb.sacked_segs > 0 || retx_out {
                let r = self.rec.rack_mut().expect("RACK");
                if r.timer_kind == RackTimer::Probe && r.timer.is_armed() {
                    r.timer.cancel();
                }
                return;
            }
            RackTlp::pto_linux(now, self.srtt, self.segs.len() == 1, self.cfg.hz, rto_left)
        } else {
            let one_out = self.snd_max - self.snd_una <= self.st.smss && self.cfg.delayed_ack;
            RackTlp::pto(
                self.srtt,
                one_out.then_some(self.cfg.delayed_ack_timeout),
                rto_left,
            )
        };
        let r = self.rec.rack_mut().expect("RACK");
        r.timer.arm(io, now + pto, TcpTimer::Rack);
        r.timer_kind = RackTimer::Probe;
    }

    /// The RACK timer: a reordering window ended, or the probe timeout.
    pub(in crate::tcp) fn on_rack_event(&mut self, io: &mut TcpIo) {
        let Some(r) = self.rec.rack_mut() else {
            return;
        };
        if r.timer.fire(io, TcpTimer::Rack) != Fire::Expired {
            return;
        }
        r.timer.cancel();
        let kind = r.timer_kind;
        match kind {
            RackTimer::Reorder => {
                if self.cong == CongState::Loss {
                    if self.cfg.rack_in_loss {
                        self.rack_loss_detect(io);
                    }
                } else {
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
        let new_len = if available > 0 {
            self.next_len(available)
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
        let snd_max = self.snd_max;
        if let Some(r) = self.rec.rack_mut() {
            r.tlp_end = Some(snd_max);
        }
        self.arm_rto(io);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{board, view, MSS};
    use super::*;
    use crate::config::TcpConfig;

    fn rack() -> RackTlp {
        RackTlp::new(Sack::new(&TcpConfig {
            sack: true,
            ..TcpConfig::default()
        }))
    }

    const RTT: SimTime = SimTime::from_us(100);

    /// Segments 0–9 sent 1 µs apart; segment 5 delivered (SACKed) one RTT
    /// after it left: the record is its send time and RTT.
    fn delivered_fifth() -> Delivery {
        let mut d = Delivery::default();
        let sent = SimTime::from_us(5);
        assert_eq!(
            d.on_delivered(5 * MSS, 6 * MSS, sent, false, sent + RTT, 0),
            None
        );
        d
    }

    /// RFC 8985's law: a segment is lost once a segment sent after it was
    /// delivered and RTT + reo_wnd has passed since it left; segments sent
    /// after the delivered one cannot be judged yet.
    #[test]
    fn segments_sent_before_a_delivered_one_are_lost_after_rtt_plus_reo_wnd() {
        let d = delivered_fifth();
        let m = rack();
        let mut q = board(10, &[5]);
        let reo = SimTime::from_us(20);
        // At the ACK (5 µs + RTT): segment k < 5 waits 20 µs less the
        // 5 − k µs it was sent before segment 5.
        let now = SimTime::from_us(5) + RTT;
        let (lost, wait) = m.detect(&d, &mut q, 10, reo, now);
        assert_eq!(lost, 0);
        assert_eq!(wait, Some(SimTime::from_us(19)), "segment 4 waits longest");
        // 20 µs later all of 0–4 are lost; 6–9 are not judged.
        let (lost, wait) = m.detect(&d, &mut q, 10, reo, now + reo);
        assert_eq!(lost, 5 * MSS, "segments 0-4");
        assert_eq!(wait, None);
        let lost: Vec<bool> = q.iter().map(|s| s.lost).collect();
        assert_eq!(
            lost,
            [true, true, true, true, true, false, false, false, false, false]
        );
    }

    /// The reordering window: zero in recovery (or with dupthresh SACKed)
    /// until reordering was seen, then min_rtt/4 widened by each spurious
    /// retransmission, never above SRTT; 16 recoveries without one narrow
    /// it back.
    #[test]
    fn the_reordering_window_widens_on_spurious_retransmits_and_decays() {
        let mut d = delivered_fifth();
        let mut m = rack();
        let srtt = RTT;
        assert_eq!(m.reo_wnd(&d, true, 0, 3, srtt), SimTime::ZERO);
        assert_eq!(m.reo_wnd(&d, false, 0, 3, srtt), SimTime::from_us(25));
        assert_eq!(m.reo_wnd(&d, false, 3, 3, srtt), SimTime::ZERO);
        // An original delivered below the highest delivered sequence.
        let low = d.on_delivered(0, MSS, SimTime::ZERO, false, RTT, d.fack);
        assert_eq!(low, Some(0));
        assert!(d.reordering_seen);
        assert_eq!(m.reo_wnd(&d, true, 0, 3, srtt), SimTime::from_us(25));
        m.on_spurious();
        m.on_spurious();
        assert_eq!(m.reo_wnd(&d, true, 0, 3, srtt), SimTime::from_us(75));
        for _ in 0..5 {
            m.on_spurious();
        }
        assert_eq!(m.reo_wnd(&d, true, 0, 3, srtt), srtt, "capped at SRTT");
        for _ in 0..16 {
            m.on_recovery_end();
        }
        assert_eq!(m.reo_wnd(&d, true, 0, 3, srtt), SimTime::from_us(25));
    }

    /// Entry resends the first segment RACK marked lost (restarting the
    /// timer if it is the head), not the head by default.
    #[test]
    fn entry_resends_the_first_marked_segment() {
        let mut q = board(10, &[5]);
        q[2].lost = true;
        q[3].lost = true;
        let v = view(&q, 10, 5, CongState::Recovery);
        let acts: Vec<_> = rack().enter(&v).iter().collect();
        assert_eq!(
            acts,
            [
                Action::SetCwnd(5 * MSS),
                Action::Retransmit {
                    i: 2,
                    mark: true,
                    rearm: true
                }
            ]
        );
    }

    /// The probe timeout: 2·SRTT, plus the worst-case delayed ACK for a
    /// single segment, and always just before the RTO would fire.
    #[test]
    fn the_probe_fires_after_two_srtt_and_before_the_rto() {
        assert_eq!(RackTlp::pto(Some(RTT), None, None), SimTime::from_us(200));
        assert_eq!(
            RackTlp::pto(Some(RTT), Some(SimTime::from_ms(40)), None),
            SimTime::from_us(200) + SimTime::from_ms(200)
        );
        assert_eq!(
            RackTlp::pto(Some(RTT), None, Some(SimTime::from_us(150))),
            SimTime(SimTime::from_us(150).0 - 1)
        );
        assert_eq!(RackTlp::pto(None, None, None), SimTime::from_secs(1));
    }
}
