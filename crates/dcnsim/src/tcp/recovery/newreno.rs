//! NewReno fast recovery without SACK (RFC 6582, on RFC 5681's fast
//! retransmit): the third duplicate ACK retransmits the head and inflates
//! cwnd to ssthresh + 3·SMSS, each further duplicate ACK inflates it by one
//! SMSS, a partial ACK retransmits the next hole and deflates by what it
//! acknowledged, and the ACK that covers `recover` deflates and ends the
//! episode.
//!
//! Under `reordering = "adaptive"` it also keeps Linux's estimate of
//! reordering without SACK (issue 45, mechanism B): each duplicate ACK
//! counts as one segment SACKed above the hole (tcp_add_reno_sack), and
//! more of them than the segments outstanding can explain are taken for
//! reordering, whose degree becomes the duplicate-ACK threshold
//! (tcp_limit_reno_sacked, tcp_check_reno_reordering in
//! net/ipv4/tcp_input.c).

use super::{Action, Actions, View};
use crate::config::{
    PartialAckTimer, RenoExit, RenoReduction, Reordering, TcpConfig, MAX_REORDERING,
};
use crate::tcp::CongState;

/// RFC 6582's machine, with Linux's duplicate-ACK count when the
/// threshold is adaptive.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct NewReno {
    /// Linux's reordering detection without SACK (`reordering =
    /// "adaptive"`); off, the machine is RFC 6582's alone.
    detect: bool,
    /// `net.ipv4.tcp_reordering` (`dupack_threshold`): what a timeout
    /// after many duplicate ACKs lowers the threshold back to.
    base: u32,
    /// Linux's `sacked_out` without SACK: the duplicate ACKs taken as
    /// segments delivered above the hole, never more than the segments
    /// outstanding less the holes.
    sacked: u32,
    /// RFC 6582 §4.1's Slow-but-Steady timer (`partial_ack_timer`): every
    /// partial ACK restarts it, which the flow does after any ACK of new
    /// data unless the Impatient rule already did once.
    steady: bool,
    /// Linux's timer (`partial_ack_timer = "linux"`): the fast
    /// retransmission of the head restarts it as well
    /// (tcp_xmit_retransmit_queue).
    rearm_on_entry: bool,
    /// Linux's pacing (`reno_reduction = "prr"`): PRR's counts for the
    /// episode instead of RFC 6582's inflation.
    prr: Option<RenoPrr>,
    /// Under PRR: a partial ACK marked the head lost but its count let
    /// nothing go, so the head waits for an ACK that does (Linux resends
    /// only within cwnd, tcp_xmit_retransmit_queue) — or for the timer.
    owed: bool,
    /// `reno_hold`: an episode whose ACKs reach exactly `recover` is held
    /// until one covers more (tcp_is_non_sack_preventing_reopen).
    hold: bool,
    /// `reno_exit = "ssthresh"`: the full ACK leaves cwnd = ssthresh
    /// (RFC 6582's option 2, ns-2's and ns-3's) instead of option 1.
    exit_ssthresh: bool,
}

/// tcp_cwnd_reduction's state for one Reno recovery, in segments (Linux
/// counts packets): what was delivered and sent since it began, and the
/// window it began from (`prior_cwnd`, its RecoverFS).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct RenoPrr {
    delivered: u64,
    out: u64,
    prior_cwnd: u64,
}

impl RenoPrr {
    /// tcp_cwnd_reduction (net/ipv4/tcp_input.c) for an ACK that delivered
    /// `delivered` segments with `pipe` in flight (tcp_packets_in_flight):
    /// the segments it may send. Above ssthresh in proportion to what was
    /// delivered (ssthresh / prior_cwnd of it); below, what was delivered
    /// and not yet answered, or this ACK's delivery, one more on an ACK
    /// that advances snd_una and marks nothing lost, never past ssthresh;
    /// at least one while nothing has gone (the fast retransmission).
    fn sndcnt(&mut self, pipe: u64, ssthresh: u64, delivered: u64, safe: bool) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            (ssthresh * self.delivered)
                .div_ceil(self.prior_cwnd.max(1))
                .saturating_sub(self.out)
        } else {
            let bound = self.delivered.saturating_sub(self.out).max(delivered) + u64::from(safe);
            bound.min(ssthresh - pipe)
        };
        sndcnt.max(u64::from(self.out == 0))
    }
}

impl NewReno {
    /// Where the flag every ACK of new data reads first lies
    /// ([`Self::on_cumulative_ack`]; the layout test's probe).
    #[cfg(test)]
    pub fn detect_at(&self) -> usize {
        std::ptr::addr_of!(self.detect) as usize
    }

    pub fn new(cfg: &TcpConfig) -> Self {
        NewReno {
            detect: cfg.reordering == Reordering::Adaptive,
            base: cfg.dupack_threshold,
            sacked: 0,
            steady: cfg.partial_ack_timer != PartialAckTimer::Impatient,
            rearm_on_entry: cfg.partial_ack_timer == PartialAckTimer::Linux,
            prr: (cfg.reno_reduction == RenoReduction::Prr).then(RenoPrr::default),
            owed: false,
            hold: cfg.reno_hold,
            exit_ssthresh: cfg.reno_exit == RenoExit::Ssthresh,
        }
    }

    /// Linux holds the episode: snd_una sits exactly at `recover` after a
    /// recovery or a timeout (`v.cong` not Open), and nothing above it is
    /// acknowledged yet. Duplicate ACKs there may come from the episode's
    /// own resends of segments the receiver held, so they prove no loss.
    fn held(&self, v: &View) -> bool {
        self.hold && v.cong != CongState::Open && v.snd_una == v.ep.recover
    }

    /// Whether this machine holds its episodes at `recover` (`reno_hold`).
    pub fn holds(&self) -> bool {
        self.hold
    }

    /// Whether Linux counts a duplicate ACK in this state: always in Open
    /// (Disorder) and Recovery; after a timeout only once new data went
    /// beyond the point the timeout marked lost and before the ACKs reach
    /// it (tcp_process_loss: a duplicate ACK there reports new data).
    fn counts(v: &View) -> bool {
        match v.cong {
            CongState::Open | CongState::Recovery => true,
            CongState::Loss => v.snd_max > v.ep.recover && v.snd_una < v.ep.recover,
        }
    }

    /// tcp_limit_reno_sacked and tcp_check_reno_reordering: the count
    /// plus the holes (the segments marked lost, at least one) exceeds the
    /// segments outstanding — reordering, or duplicates the receiver
    /// already held. Clip the count and return the new degree, the
    /// segments outstanding (`addend`: plus those the ACK just covered).
    fn check(&mut self, v: &View, addend: u32) -> Option<Action> {
        let out = v.segs.len() as u32;
        // After a timeout Linux has marked everything sent before it lost
        // (tcp_timeout_mark_lost); otherwise only the head, in Recovery.
        let lost = match v.cong {
            CongState::Loss => v.segs.partition_point(|s| s.end() <= v.ep.recover) as u32,
            CongState::Open | CongState::Recovery => 1,
        };
        let holes = lost.max(1).min(out);
        if self.sacked + holes <= out {
            return None;
        }
        self.sacked = out - holes;
        Some(Action::Reordered(
            out.saturating_add(addend).min(MAX_REORDERING),
        ))
    }

    /// An ACK of `acked_segs` new segments arrived (the scoreboard in `v`
    /// already without them; `v.cong` the state before it): Linux's
    /// tcp_remove_reno_sacks takes the hole it filled and one duplicate
    /// ACK per other segment off the count and checks it again, and
    /// tcp_fastretrans_alert forgets the count outside Recovery, or as
    /// Recovery ends.
    pub fn on_cumulative_ack(&mut self, v: &View, acked_segs: u32) -> Actions {
        if !self.detect {
            return Actions::none();
        }
        if acked_segs > 0 {
            self.sacked = self.sacked.saturating_sub(acked_segs - 1);
        }
        let act = self.check(v, acked_segs);
        let reached = v.snd_una >= v.ep.recover;
        if match v.cong {
            CongState::Open => true,
            CongState::Recovery => reached,
            // At the recovery point Linux leaves Loss before its reset.
            CongState::Loss => !reached,
        } {
            self.sacked = 0;
        }
        act.map_or(Actions::none(), |a| Actions::of(&[a]))
    }

    /// The retransmission timer fired (`v.cong` the state before it):
    /// Linux forgets the count (tcp_timeout_mark_lost), and a timeout in
    /// Open or Disorder after at least `tcp_reordering` duplicate ACKs
    /// says the degree was overestimated (tcp_enter_loss).
    pub fn on_timeout(&mut self, v: &View) -> Actions {
        let lower = self.detect && v.cong == CongState::Open && self.sacked >= self.base;
        self.sacked = 0;
        self.owed = false;
        if lower && v.dupthresh > self.base {
            Actions::of(&[Action::ResetReordering(self.base)])
        } else {
            Actions::none()
        }
    }

    /// RFC 6582 §3.2 step 2–3 (RFC 5681 §3.2 step 3): retransmit the head,
    /// cwnd = ssthresh + 3·SMSS. Under Linux's timer the retransmission
    /// restarts it: three duplicate ACKs slowed by a full queue can take
    /// most of an RTO, and the timer set when the window went out would
    /// otherwise fire before the retransmission's ACK is back.
    pub fn enter(&mut self, v: &View) -> Actions {
        let retx = Action::Retransmit {
            i: 0,
            mark: false,
            rearm: self.rearm_on_entry,
        };
        let dups = self.dup_count(v);
        self.owed = false;
        let cwnd = match self.prr.as_mut() {
            // The duplicate ACK that starts it delivered one segment; the
            // head, now lost, is out of the pipe until resent.
            Some(p) => {
                let smss = v.st.smss.max(1);
                *p = RenoPrr {
                    prior_cwnd: v.st.cwnd / smss,
                    ..RenoPrr::default()
                };
                let out = v.segs.len() as u64;
                let pipe = out.saturating_sub(dups + 1);
                let n = p.sndcnt(pipe, v.st.ssthresh / smss, 1, false);
                Action::SetCwnd(Self::flight_window(v, n, !v.segs.is_empty()))
            }
            None => Action::SetCwnd(v.st.ssthresh + 3 * v.st.smss),
        };
        if v.segs.is_empty() {
            Actions::of(&[cwnd])
        } else {
            Actions::of(&[retx, cwnd])
        }
    }

    /// A duplicate ACK: inflate in recovery (§3.2 step 3); otherwise fast
    /// retransmit at the threshold, Limited Transmit below it. With
    /// detection the threshold is compared with Linux's count, which
    /// reordering may have clipped and raised first (tcp_add_reno_sack
    /// runs before tcp_time_to_recover).
    pub fn on_dupack(&mut self, v: &View) -> Actions {
        if self.held(v) && v.cong == CongState::Recovery {
            // tcp_fastretrans_alert returns at its state-exit check, before
            // tcp_add_reno_sack: the ACK delivered nothing, so PRR
            // (tcp_cwnd_reduction) sends nothing either.
            return Actions::none();
        }
        let (mut dupacks, mut thresh, mut seen) = (v.ep.dupacks, v.dupthresh, None);
        if self.detect {
            if Self::counts(v) {
                self.sacked += 1;
                seen = self.check(v, 0);
                if let Some(Action::Reordered(t)) = seen {
                    thresh = t;
                }
            }
            dupacks = self.sacked;
        }
        let dups = self.dup_count(v);
        let act = match v.cong {
            CongState::Recovery => match self.prr.as_mut() {
                // Linux's pipe leaves out the duplicate ACKs' segments;
                // one clipped as reordering delivered nothing.
                Some(p) => {
                    let smss = v.st.smss.max(1);
                    let delivered = u64::from(!self.detect || seen.is_none());
                    if delivered == 0 {
                        return Actions::of(&[seen.expect("clipped")]);
                    }
                    // An owed head is lost and not resent: out of the pipe.
                    let out = v.segs.len() as u64;
                    let pipe = out.saturating_sub(dups + u64::from(self.owed));
                    let n = p.sndcnt(pipe, v.st.ssthresh / smss, delivered, false);
                    if self.owed && n > 0 && !v.segs.is_empty() {
                        // tcp_xmit_retransmit_queue: the lost head first,
                        // restarting the timer as it goes (`seen` is None
                        // here: a clipped duplicate returned above)
                        self.owed = false;
                        let retx = Action::Retransmit {
                            i: 0,
                            mark: false,
                            rearm: self.rearm_on_entry,
                        };
                        let cwnd = Action::SetCwnd(Self::flight_window(v, n, true));
                        return Actions::of(&[retx, cwnd]);
                    }
                    Action::SetCwnd(Self::flight_window(v, n, false))
                }
                None => Action::SetCwnd(v.st.cwnd + v.st.smss),
            },
            CongState::Open | CongState::Loss => {
                if dupacks >= thresh && v.fresh_loss() && !self.held(v) {
                    Action::Enter
                } else {
                    Action::LimitedTransmit
                }
            }
        };
        match seen {
            Some(r) => Actions::of(&[r, act]),
            None => Actions::of(&[act]),
        }
    }

    /// An ACK of new data in recovery, `acked` bytes.
    pub fn on_ack(&mut self, v: &View, acked: u64) -> Actions {
        let st = v.st;
        if self.held(v) {
            return self.held_ack(v, acked);
        }
        if v.snd_una >= v.ep.recover {
            self.owed = false;
            // Full ACK: deflate (RFC 6582 §3.2, the option `reno_exit`
            // names); under PRR cwnd = ssthresh, as tcp_end_cwnd_reduction
            // sets it.
            let cwnd = match self.prr {
                Some(_) => st.ssthresh,
                None => self.deflated(v),
            };
            return Actions::of(&[Action::SetCwnd(cwnd), Action::Exit { clear_marks: false }]);
        }
        if self.prr.is_some() {
            return self.prr_partial_ack(v, acked);
        }
        // Partial ACK (§3.2 step 5): retransmit the next hole, deflate by
        // the amount acked, add back one SMSS if it acked that much.
        let mut cwnd = st.cwnd.saturating_sub(acked);
        if acked >= st.smss {
            cwnd += st.smss;
        }
        let retx = Action::Retransmit {
            i: 0,
            mark: false,
            rearm: false,
        };
        let acts = [
            retx,
            Action::SetCwnd(cwnd.max(st.smss)),
            Action::RestartRtoOnce,
        ];
        // Nothing left to resend: no retransmission. Slow-but-Steady: no
        // restart of its own, the flow restarts the timer after this ACK
        // as after any other.
        let first = usize::from(v.segs.is_empty());
        let last = if self.steady { 2 } else { 3 };
        Actions::of(&acts[first..last])
    }

    /// The ACK that brings a held recovery to `recover`: the episode goes
    /// on (no exit, no deflation to ssthresh yet) with nothing left to
    /// resend below `recover`. Under PRR tcp_cwnd_reduction still runs on
    /// what it delivered, as an ACK that advanced snd_una and marked
    /// nothing lost; under inflation the window deflates as at the end.
    fn held_ack(&mut self, v: &View, acked: u64) -> Actions {
        self.owed = false;
        if self.prr.is_none() {
            return Actions::of(&[Action::SetCwnd(self.deflated(v))]);
        }
        let smss = v.st.smss.max(1);
        let before = v.snd_max - v.snd_una + acked;
        let delivered = self.delivered(acked, before, v).div_ceil(smss);
        // the held state forgets the duplicate ACKs (tcp_reset_reno_sack)
        // and nothing above `recover` is marked lost: all of it is in the pipe
        let pipe = v.segs.len() as u64;
        let p = self.prr.as_mut().expect("PRR");
        let n = p.sndcnt(pipe, v.st.ssthresh / smss, delivered, true);
        Actions::of(&[Action::SetCwnd(Self::flight_window(v, n, false))])
    }

    /// RFC 6582 §3.2, the window at a recovery's end: option 1,
    /// min(ssthresh, FlightSize + SMSS), or with `reno_exit = "ssthresh"`
    /// option 2, ssthresh.
    fn deflated(&self, v: &View) -> u64 {
        let st = v.st;
        if self.exit_ssthresh {
            return st.ssthresh;
        }
        st.ssthresh
            .min((v.snd_max - v.snd_una).max(st.smss) + st.smss)
    }

    /// A partial ACK under PRR: what it delivered as Linux counts it
    /// ([`Self::delivered`]), the head it uncovered marked lost
    /// (tcp_newreno_mark_lost: a new loss, so no slow-start extra) and
    /// resent if the count lets a segment go. Above ssthresh it may not:
    /// in an incast most of the pipe Linux counts is lost too, no further
    /// ACK comes, and the head waits for the timer (issue 45, mechanism I).
    fn prr_partial_ack(&mut self, v: &View, acked: u64) -> Actions {
        let smss = v.st.smss.max(1);
        let before = v.snd_max - v.snd_una + acked;
        let delivered = self.delivered(acked, before, v).div_ceil(smss);
        let out = v.segs.len() as u64;
        let lost = out > 0;
        let pipe = out.saturating_sub(self.dup_count(v) + u64::from(lost));
        let p = self.prr.as_mut().expect("PRR");
        let n = p.sndcnt(pipe, v.st.ssthresh / smss, delivered, false);
        let resend = lost && n > 0;
        self.owed = lost && !resend;
        let cwnd = Action::SetCwnd(Self::flight_window(v, n, resend));
        let retx = Action::Retransmit {
            i: 0,
            mark: false,
            rearm: false,
        };
        if resend {
            Actions::of(&[retx, cwnd])
        } else {
            Actions::of(&[cwnd])
        }
    }

    /// The duplicate ACKs Linux counts as segments delivered above the
    /// hole (its `sacked_out`): the machine's count with detection, else
    /// the episode's, at most all but one of the segments outstanding.
    fn dup_count(&self, v: &View) -> u64 {
        let out = (v.segs.len() as u64).saturating_sub(1);
        if self.detect {
            u64::from(self.sacked).min(out)
        } else {
            u64::from(v.ep.dupacks).min(out)
        }
    }

    /// The window that lets `sndcnt` segments go, in the flow's terms: it
    /// counts every segment outstanding, where Linux's pipe leaves out
    /// those the duplicate ACKs delivered; a retransmission of the head
    /// sent with it takes one of them.
    fn flight_window(v: &View, sndcnt: u64, resend: bool) -> u64 {
        let segs = v.segs.len() as u64 + sndcnt;
        segs.saturating_sub(u64::from(resend)).max(1) * v.st.smss
    }

    /// A segment left during recovery (prr_out).
    #[inline]
    pub fn sent(&mut self) {
        if let Some(p) = self.prr.as_mut() {
            p.out += 1;
        }
    }

    /// What a cumulative ACK without SACK delivers, as Linux counts it:
    /// each duplicate ACK before it was one segment delivered
    /// (tcp_add_reno_sack, at most all but one of the segments in
    /// flight, tcp_limit_reno_sacked), so the ACK itself delivers the
    /// segments it acknowledges less those, at least one: it filled the
    /// hole (tcp_remove_reno_sacks). `flight` is what was outstanding
    /// before the ACK. Under `ack_counting = "acked"` growth ignores it.
    #[inline]
    pub fn delivered(&self, acked: u64, flight: u64, v: &View) -> u64 {
        let smss = v.st.smss.max(1);
        let dup = (v.ep.dupacks as u64).min(flight.div_ceil(smss).saturating_sub(1));
        acked.saturating_sub(dup * smss).max(acked.min(smss))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{board, view, MSS};
    use super::*;
    use std::collections::VecDeque;

    fn retx_head() -> Action {
        Action::Retransmit {
            i: 0,
            mark: false,
            rearm: false,
        }
    }

    /// Three duplicate ACKs: the third (and not the first two) starts
    /// recovery; the first two ask for Limited Transmit.
    #[test]
    fn the_third_duplicate_ack_starts_recovery() {
        let segs = board(10, &[]);
        let mut v = view(&segs, 10, u64::MAX / MSS, CongState::Open);
        for d in 1..=3 {
            v.ep.dupacks = d;
            let want = if d < 3 {
                Action::LimitedTransmit
            } else {
                Action::Enter
            };
            assert_eq!(
                NewReno::default().on_dupack(&v).iter().collect::<Vec<_>>(),
                [want]
            );
        }
    }

    /// Duplicate ACKs below `recover` (after a timeout or an episode)
    /// start no second fast retransmit.
    #[test]
    fn no_fast_retransmit_below_the_recovery_point() {
        let segs = board(10, &[]);
        let mut v = view(&segs, 10, 5, CongState::Loss);
        v.ep.dupacks = 5;
        v.ep.recover = 5 * MSS;
        assert_eq!(
            NewReno::default().on_dupack(&v).iter().next(),
            Some(Action::LimitedTransmit)
        );
        v.ep.recover = 0;
        assert_eq!(
            NewReno::default().on_dupack(&v).iter().next(),
            Some(Action::Enter)
        );
    }

    /// Entry retransmits the head and inflates by the three segments the
    /// duplicate ACKs say left the network; each further duplicate ACK
    /// inflates by one more.
    #[test]
    fn entry_and_duplicates_inflate_the_window() {
        let segs = board(10, &[]);
        let v = view(&segs, 10, 5, CongState::Recovery);
        let acts: Vec<_> = NewReno::default().enter(&v).iter().collect();
        assert_eq!(acts, [retx_head(), Action::SetCwnd(8 * MSS)]);
        let v = view(&segs, 8, 5, CongState::Recovery);
        let acts: Vec<_> = NewReno::default().on_dupack(&v).iter().collect();
        assert_eq!(acts, [Action::SetCwnd(9 * MSS)]);
    }

    /// A partial ACK resends the next hole at once and deflates by what it
    /// acknowledged (less one SMSS given back); the ACK at `recover` ends
    /// the episode with cwnd at most ssthresh.
    #[test]
    fn partial_acks_resend_and_deflate_the_full_ack_exits() {
        let segs = board(6, &[]);
        let mut v = view(&segs, 12, 5, CongState::Recovery);
        v.ep.recover = 10 * MSS;
        let acts: Vec<_> = NewReno::default().on_ack(&v, 4 * MSS).iter().collect();
        assert_eq!(
            acts,
            [
                retx_head(),
                Action::SetCwnd(9 * MSS),
                Action::RestartRtoOnce
            ]
        );
        // Deflation never leaves less than one SMSS.
        let v2 = view(&segs, 2, 5, CongState::Recovery);
        let v2 = View { ep: v.ep, ..v2 };
        assert_eq!(
            NewReno::default().on_ack(&v2, 4 * MSS).iter().nth(1),
            Some(Action::SetCwnd(MSS))
        );
        v.ep.recover = 0;
        let acts: Vec<_> = NewReno::default().on_ack(&v, 4 * MSS).iter().collect();
        assert_eq!(
            acts,
            [
                Action::SetCwnd(5 * MSS),
                Action::Exit { clear_marks: false }
            ]
        );
        // A small flight left: flight + one SMSS, below ssthresh.
        let short = board(2, &[]);
        let mut v = view(&short, 12, 5, CongState::Recovery);
        v.ep.recover = 0;
        assert_eq!(
            NewReno::default().on_ack(&v, MSS).iter().next(),
            Some(Action::SetCwnd(3 * MSS))
        );
    }

    /// `reno_exit = "ssthresh"` (RFC 6582's option 2, ns-2's and ns-3's):
    /// the full ACK leaves cwnd = ssthresh even where option 1 would leave
    /// the small flight plus one SMSS; partial ACKs deflate alike.
    #[test]
    fn the_ssthresh_exit_leaves_ssthresh_whatever_is_in_flight() {
        let exit = || {
            NewReno::new(&crate::config::TcpConfig {
                reno_exit: crate::config::RenoExit::Ssthresh,
                ..Default::default()
            })
        };
        let short = board(2, &[]);
        let mut v = view(&short, 12, 5, CongState::Recovery);
        v.ep.recover = 0;
        assert_eq!(
            exit().on_ack(&v, MSS).iter().collect::<Vec<_>>(),
            [
                Action::SetCwnd(5 * MSS),
                Action::Exit { clear_marks: false }
            ]
        );
        assert_eq!(
            NewReno::default().on_ack(&v, MSS).iter().next(),
            Some(Action::SetCwnd(3 * MSS))
        );
        let segs = board(6, &[]);
        let mut v = view(&segs, 12, 5, CongState::Recovery);
        v.ep.recover = 10 * MSS;
        assert_eq!(
            exit().on_ack(&v, 4 * MSS).iter().collect::<Vec<_>>(),
            NewReno::default()
                .on_ack(&v, 4 * MSS)
                .iter()
                .collect::<Vec<_>>()
        );
    }

    /// Impatient: only the first partial ACK of an episode asks for a
    /// restart; Slow-but-Steady leaves it to the flow's restart after
    /// every ACK of new data.
    #[test]
    fn the_impatient_timer_restarts_once_the_steady_one_with_every_ack() {
        let segs = board(6, &[]);
        let mut v = view(&segs, 12, 5, CongState::Recovery);
        v.ep.recover = 10 * MSS;
        let restarts = |mut m: NewReno| {
            m.on_ack(&v, MSS)
                .iter()
                .filter(|&a| a == Action::RestartRtoOnce)
                .count()
        };
        assert_eq!(restarts(NewReno::default()), 1);
        assert_eq!(restarts(linux()), 0);
        // Both still resend the next hole and deflate.
        assert_eq!(linux().on_ack(&v, MSS).iter().next(), Some(retx_head()));
    }

    /// Only Linux's timer restarts at the fast retransmission; RFC 6582's
    /// variants leave the timer running from the window's first send.
    #[test]
    fn only_the_linux_timer_restarts_at_the_fast_retransmission() {
        use crate::config::{PartialAckTimer, TcpConfig};
        let segs = board(10, &[]);
        let v = view(&segs, 10, 5, CongState::Recovery);
        for (timer, want) in [
            (PartialAckTimer::Impatient, false),
            (PartialAckTimer::SlowButSteady, false),
            (PartialAckTimer::Linux, true),
        ] {
            let cfg = TcpConfig {
                partial_ack_timer: timer,
                ..TcpConfig::default()
            };
            let retx = NewReno::new(&cfg).enter(&v).iter().next();
            assert_eq!(
                retx,
                Some(Action::Retransmit {
                    i: 0,
                    mark: false,
                    rearm: want
                }),
                "{timer:?}"
            );
        }
    }

    /// Linux's PRR in Reno recovery: a window of 4 with the head lost
    /// and three duplicate ACKs (ssthresh 2) sends the fast
    /// retransmission alone, where RFC 6582's inflation (cwnd 5, ssthresh
    /// plus three, over a flight of 4) lets a new segment go with it; the
    /// full ACK leaves cwnd = ssthresh.
    #[test]
    fn prr_sends_the_fast_retransmission_alone_and_ends_at_ssthresh() {
        let segs = board(4, &[]);
        let mut v = view(&segs, 4, 2, CongState::Open);
        v.ep.dupacks = 3;
        let mut m = linux();
        let mut inflation = NewReno::default();
        for d in 1..=3 {
            v.ep.dupacks = d;
            m.on_dupack(&v);
        }
        v.cong = CongState::Recovery;
        // The flow sends while fewer segments than cwnd are outstanding;
        // the retransmission goes regardless.
        let new_segs = |acts: Actions| match acts.iter().nth(1) {
            Some(Action::SetCwnd(c)) => (c / MSS).saturating_sub(4),
            a => panic!("{a:?}"),
        };
        assert_eq!(new_segs(m.enter(&v)), 0, "PRR");
        assert_eq!(new_segs(inflation.enter(&v)), 1, "RFC 6582");
        m.sent();
        // Full ACK: cwnd = ssthresh, not min(ssthresh, flight + SMSS).
        let none: VecDeque<_> = VecDeque::new();
        let mut end = View {
            segs: &none,
            snd_una: 4 * MSS,
            snd_max: 4 * MSS,
            ..v
        };
        end.ep.recover = 4 * MSS;
        let acts: Vec<_> = m.on_ack(&end, 4 * MSS).iter().collect();
        assert_eq!(acts[0], Action::SetCwnd(2 * MSS));
    }

    /// tcp_cwnd_reduction's law: above ssthresh what leaves is
    /// ssthresh / prior_cwnd of what was delivered (rounded up), below it
    /// no more than what was delivered and not yet answered (plus one on
    /// a safe ACK), never past ssthresh; the first call always sends one.
    #[test]
    fn reno_prr_sends_in_proportion_then_up_to_ssthresh() {
        let mut p = RenoPrr {
            prior_cwnd: 20,
            ..RenoPrr::default()
        };
        let mut sent = 0;
        for k in 1..=10u64 {
            let n = p.sndcnt(20 - k, 10, 1, false);
            p.out += n;
            sent += n;
            assert_eq!(sent, (10 * k).div_ceil(20), "after {k} delivered");
        }
        // Below ssthresh: the backlog delivered − out, at most ssthresh − pipe.
        let mut q = RenoPrr {
            delivered: 6,
            out: 2,
            prior_cwnd: 20,
        };
        assert_eq!(q.sndcnt(8, 10, 1, false), 2);
        let mut q = RenoPrr {
            delivered: 6,
            out: 2,
            prior_cwnd: 20,
        };
        assert_eq!(q.sndcnt(3, 10, 1, true), 6);
    }

    fn linux() -> NewReno {
        NewReno::new(&crate::config::TcpConfig::linux())
    }

    /// The profile's detection with RFC 6582's inflation, whose window
    /// shows each duplicate ACK.
    fn linux_inflation() -> NewReno {
        NewReno::new(&crate::config::TcpConfig {
            reno_reduction: crate::config::RenoReduction::Inflation,
            ..crate::config::TcpConfig::linux()
        })
    }

    /// Linux's count without SACK: one duplicate ACK per segment above the
    /// hole is what a loss explains; one more than the flight can is
    /// reordering, whose degree — the segments outstanding — becomes the
    /// threshold, before the fast-retransmit test of that ACK.
    #[test]
    fn duplicate_acks_beyond_the_flight_raise_the_threshold_to_it() {
        let segs = board(10, &[]);
        let mut m = linux_inflation();
        let mut v = view(&segs, 10, 5, CongState::Recovery);
        for d in 1..=9 {
            v.ep.dupacks = d;
            let acts: Vec<_> = m.on_dupack(&v).iter().collect();
            assert_eq!(acts, [Action::SetCwnd(11 * MSS)], "dupack {d}");
        }
        v.ep.dupacks = 10;
        let acts: Vec<_> = m.on_dupack(&v).iter().collect();
        assert_eq!(acts[0], Action::Reordered(10));
        // The count stays clipped at the flight less the hole: each
        // further duplicate is reordering again.
        v.ep.dupacks = 11;
        assert_eq!(m.on_dupack(&v).iter().next(), Some(Action::Reordered(10)));
        // RFC 6582's machine alone (`reordering = "fixed"`) never does.
        let mut fixed = NewReno::default();
        assert!(fixed
            .on_dupack(&v)
            .iter()
            .all(|a| a == Action::SetCwnd(11 * MSS)));
    }

    /// With the threshold raised, three duplicate ACKs for a 4-segment
    /// flight start no fast retransmit; a timeout after them (in Open)
    /// brings it back to `dupack_threshold`, one after fewer does not.
    #[test]
    fn a_raised_threshold_holds_until_a_timeout_after_many_duplicates() {
        let segs = board(4, &[]);
        let mut m = linux();
        let mut v = view(&segs, 4, 2, CongState::Open);
        v.dupthresh = 10;
        for d in 1..=3 {
            v.ep.dupacks = d;
            assert_eq!(
                m.on_dupack(&v).iter().collect::<Vec<_>>(),
                [Action::LimitedTransmit]
            );
        }
        assert_eq!(
            m.on_timeout(&v).iter().collect::<Vec<_>>(),
            [Action::ResetReordering(3)]
        );
        let mut m = linux();
        v.ep.dupacks = 1;
        m.on_dupack(&v);
        assert_eq!(m.on_timeout(&v).iter().next(), None);
    }

    /// A cumulative ACK takes the hole and one duplicate per other segment
    /// off the count; covering less than the duplicate ACKs claimed is
    /// reordering of the flight before it. Outside Recovery the count is
    /// then forgotten.
    #[test]
    fn a_short_cumulative_ack_after_all_but_one_duplicated_is_reordering() {
        let mut m = linux();
        let ten = board(10, &[]);
        let mut v = view(&ten, 10, 5, CongState::Open);
        v.dupthresh = 20;
        for d in 1..=9 {
            v.ep.dupacks = d;
            m.on_dupack(&v);
        }
        // 9 duplicates for 10 outstanding, then an ACK of one segment.
        let nine: VecDeque<_> = ten.iter().skip(1).copied().collect();
        let after = View {
            segs: &nine,
            snd_una: MSS,
            ..v
        };
        assert_eq!(
            m.on_cumulative_ack(&after, 1).iter().collect::<Vec<_>>(),
            [Action::Reordered(10)]
        );
        // Forgotten: a new duplicate is the first again.
        assert_eq!(m.sacked, 0);
    }

    /// Linux's count without SACK: duplicate ACKs were deliveries, so the
    /// cumulative ACK after them delivers the rest, at least one segment.
    #[test]
    fn duplicate_acks_count_as_delivered_before_the_cumulative_ack() {
        let segs = board(10, &[]);
        let mut v = view(&segs, 10, 5, CongState::Open);
        v.ep.dupacks = 3;
        assert_eq!(NewReno::default().delivered(5 * MSS, 10 * MSS, &v), 2 * MSS);
        assert_eq!(NewReno::default().delivered(2 * MSS, 10 * MSS, &v), MSS);
        v.ep.dupacks = 0;
        assert_eq!(NewReno::default().delivered(5 * MSS, 10 * MSS, &v), 5 * MSS);
    }

    /// Linux resends a hole only within the window PRR leaves
    /// (validation/packetdrill/scripts/reno-prr-partial-ack-waits.pkt,
    /// which Linux 6.18 passes): 10 out, 1 and 2 lost, three duplicate
    /// ACKs send the fast retransmission; the partial ACK for it leaves a
    /// pipe of 9 - 3 - 1 = 5 = ssthresh and earns nothing, so segment 2
    /// is owed, not resent; the next duplicate ACK earns one and resends
    /// it first. RFC 6582's inflation resends at the partial ACK.
    #[test]
    fn a_partial_ack_that_earns_nothing_owes_the_hole_to_the_next_ack() {
        let retransmits = |acts: &Actions| {
            acts.iter()
                .filter(|a| matches!(a, Action::Retransmit { .. }))
                .count()
        };
        for (mut m, prr) in [(linux(), true), (linux_inflation(), false)] {
            let ten = board(10, &[]);
            let mut v = view(&ten, 10, 5, CongState::Open);
            for d in 1..=3 {
                v.ep.dupacks = d;
                m.on_dupack(&v);
            }
            v.cong = CongState::Recovery;
            v.ep.recover = 10 * MSS;
            assert_eq!(retransmits(&m.enter(&v)), 1, "the fast retransmission");
            m.sent();
            let nine: VecDeque<_> = ten.iter().skip(1).copied().collect();
            let mut after = View {
                segs: &nine,
                snd_una: MSS,
                ..v
            };
            m.on_cumulative_ack(&after, 1);
            let partial = m.on_ack(&after, MSS);
            assert_eq!(
                retransmits(&partial),
                usize::from(!prr),
                "partial ACK, PRR {prr}"
            );
            if prr {
                assert!(m.owed);
                // Its window lets nothing new go either.
                assert_eq!(partial.iter().last(), Some(Action::SetCwnd(9 * MSS)));
                after.ep.dupacks = 4;
                let dup = m.on_dupack(&after);
                assert_eq!(retransmits(&dup), 1, "the next duplicate ACK resends it");
                assert!(!m.owed);
            }
        }
    }
}
