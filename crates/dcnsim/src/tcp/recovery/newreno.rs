//! NewReno fast recovery without SACK (RFC 6582, on RFC 5681's fast
//! retransmit): the third duplicate ACK retransmits the head and inflates
//! cwnd to ssthresh + 3·SMSS, each further duplicate ACK inflates it by one
//! SMSS, a partial ACK retransmits the next hole and deflates by what it
//! acknowledged, and the ACK that covers `recover` deflates and ends the
//! episode.

use super::{Action, Actions, View};
use crate::tcp::CongState;

/// RFC 6582's machine: no state beyond the shared [`super::Episode`].
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct NewReno;

impl NewReno {
    /// RFC 6582 §3.2 step 2–3 (RFC 5681 §3.2 step 3): retransmit the head,
    /// cwnd = ssthresh + 3·SMSS.
    pub fn enter(&self, v: &View) -> Actions {
        let retx = Action::Retransmit {
            i: 0,
            mark: false,
            rearm: false,
        };
        let cwnd = Action::SetCwnd(v.st.ssthresh + 3 * v.st.smss);
        if v.segs.is_empty() {
            Actions::of(&[cwnd])
        } else {
            Actions::of(&[retx, cwnd])
        }
    }

    /// A duplicate ACK: inflate in recovery (§3.2 step 3); otherwise fast
    /// retransmit at the threshold, Limited Transmit below it.
    pub fn on_dupack(&self, v: &View) -> Actions {
        match v.cong {
            CongState::Recovery => Actions::of(&[Action::SetCwnd(v.st.cwnd + v.st.smss)]),
            CongState::Open | CongState::Loss => {
                if v.ep.dupacks >= v.dupthresh && v.fresh_loss() {
                    Actions::of(&[Action::Enter])
                } else {
                    Actions::of(&[Action::LimitedTransmit])
                }
            }
        }
    }

    /// An ACK of new data in recovery, `acked` bytes.
    pub fn on_ack(&self, v: &View, acked: u64) -> Actions {
        let st = v.st;
        if v.snd_una >= v.ep.recover {
            // Full ACK: deflate (§3.2 step 5, option 1).
            let flight = v.snd_max - v.snd_una;
            let cwnd = st.ssthresh.min(flight.max(st.smss) + st.smss);
            return Actions::of(&[Action::SetCwnd(cwnd), Action::Exit { clear_marks: false }]);
        }
        // Partial ACK (§3.2 step 5): retransmit the next hole, deflate by
        // the amount acked, add back one SMSS if it acked that much.
        let mut cwnd = st.cwnd.saturating_sub(acked);
        if acked >= st.smss {
            cwnd += st.smss;
        }
        let deflate = [Action::SetCwnd(cwnd.max(st.smss)), Action::RestartRtoOnce];
        if v.segs.is_empty() {
            return Actions::of(&deflate);
        }
        let retx = Action::Retransmit {
            i: 0,
            mark: false,
            rearm: false,
        };
        Actions::of(&[retx, deflate[0], deflate[1]])
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
            assert_eq!(NewReno.on_dupack(&v).iter().collect::<Vec<_>>(), [want]);
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
            NewReno.on_dupack(&v).iter().next(),
            Some(Action::LimitedTransmit)
        );
        v.ep.recover = 0;
        assert_eq!(NewReno.on_dupack(&v).iter().next(), Some(Action::Enter));
    }

    /// Entry retransmits the head and inflates by the three segments the
    /// duplicate ACKs say left the network; each further duplicate ACK
    /// inflates by one more.
    #[test]
    fn entry_and_duplicates_inflate_the_window() {
        let segs = board(10, &[]);
        let v = view(&segs, 10, 5, CongState::Recovery);
        let acts: Vec<_> = NewReno.enter(&v).iter().collect();
        assert_eq!(acts, [retx_head(), Action::SetCwnd(8 * MSS)]);
        let v = view(&segs, 8, 5, CongState::Recovery);
        let acts: Vec<_> = NewReno.on_dupack(&v).iter().collect();
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
        let acts: Vec<_> = NewReno.on_ack(&v, 4 * MSS).iter().collect();
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
            NewReno.on_ack(&v2, 4 * MSS).iter().nth(1),
            Some(Action::SetCwnd(MSS))
        );
        v.ep.recover = 0;
        let acts: Vec<_> = NewReno.on_ack(&v, 4 * MSS).iter().collect();
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
            NewReno.on_ack(&v, MSS).iter().next(),
            Some(Action::SetCwnd(3 * MSS))
        );
    }

    /// Linux's count without SACK: duplicate ACKs were deliveries, so the
    /// cumulative ACK after them delivers the rest, at least one segment.
    #[test]
    fn duplicate_acks_count_as_delivered_before_the_cumulative_ack() {
        let segs = board(10, &[]);
        let mut v = view(&segs, 10, 5, CongState::Open);
        v.ep.dupacks = 3;
        assert_eq!(NewReno.delivered(5 * MSS, 10 * MSS, &v), 2 * MSS);
        assert_eq!(NewReno.delivered(2 * MSS, 10 * MSS, &v), MSS);
        v.ep.dupacks = 0;
        assert_eq!(NewReno.delivered(5 * MSS, 10 * MSS, &v), 5 * MSS);
    }
}
