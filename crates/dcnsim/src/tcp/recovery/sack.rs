//! SACK loss recovery (RFC 6675): duplicate ACKs or IsLost() of the head
//! start an episode, cwnd drops to ssthresh and NextSeg picks what leaves
//! while the rate reduction ([`super::reduction`]) allows: lost segments
//! first (rule 1), then new data (2), then unSACKed segments below the
//! highest SACK (3) and, with `sack_rescue`, one rescue retransmission (4).
//! Partial ACKs only update the scoreboard.

use super::reduction::Prr;
use super::scoreboard::{self, LossMarks};
use super::{Action, Actions, View};
use crate::config::{Reduction, TcpConfig};
use crate::tcp::*;

/// RFC 6675's machine with its reduction rule.
#[derive(Clone, Copy, Debug)]
pub(in crate::tcp) struct Sack {
    /// `tcp.reduction`.
    pub reduction: Reduction,
    /// NextSeg rule 4 (`tcp.sack_rescue`).
    pub rescue: bool,
    /// RFC 6675 RescueRxt: the recovery point of the last rescue retransmission.
    pub rescue_rxt: Option<u64>,
    /// Proportional Rate Reduction's state of the current recovery.
    pub prr: Prr,
}

impl Sack {
    pub fn new(cfg: &TcpConfig) -> Self {
        Sack {
            reduction: cfg.reduction,
            rescue: cfg.sack_rescue,
            rescue_rxt: None,
            prr: Prr::default(),
        }
    }

    /// Whether a PRR rule paces recovery (otherwise RFC 6675's cwnd − pipe).
    #[inline]
    pub fn prr_on(&self) -> bool {
        self.reduction != Reduction::Rfc6675
    }

    /// RFC 6675 §5 step (4): cwnd = ssthresh, the first segment presumed
    /// lost (`first`, the head without RACK) goes out now, whatever the
    /// window; PRR starts from the scoreboard as it stands (`marks`).
    pub fn enter_with(&mut self, v: &View, marks: LossMarks, first: Option<usize>) -> Actions {
        if self.prr_on() {
            let b = scoreboard::board(v, marks);
            self.prr = Prr::start(self.reduction, &b, v.snd_max - v.snd_una, v.st.smss);
        }
        let cwnd = Action::SetCwnd(v.st.ssthresh);
        match first {
            Some(i) => Actions::of(&[
                cwnd,
                Action::Retransmit {
                    i,
                    mark: true,
                    rearm: marks == LossMarks::Rack,
                },
            ]),
            None => Actions::of(&[cwnd]),
        }
    }

    /// Entry by duplicate ACKs: the head is what is presumed lost.
    pub fn enter(&mut self, v: &View, marks: LossMarks) -> Actions {
        let head = (!v.segs.is_empty()).then_some(0);
        self.enter_with(v, marks, head)
    }

    /// An ACK of new data in recovery: the full ACK ends the episode with
    /// cwnd = ssthresh (RFC 6937 §3 "on exiting recovery"); partial ACKs
    /// only update the scoreboard.
    pub fn on_ack(&mut self, v: &View) -> Actions {
        if v.snd_una < v.ep.recover {
            return Actions::none();
        }
        Actions::of(&[
            Action::SetCwnd(v.st.ssthresh),
            Action::Exit { clear_marks: true },
        ])
    }

    /// A duplicate ACK outside recovery: fast retransmit when the count
    /// reaches the threshold or IsLost() holds for the head (RFC 6675 §5
    /// steps (1)–(2)), otherwise Limited Transmit (step (3)).
    pub fn on_dupack(&self, v: &View) -> Actions {
        if v.cong == CongState::Recovery {
            return Actions::none();
        }
        if (v.ep.dupacks >= v.dupthresh || v.head_is_lost()) && v.fresh_loss() {
            Actions::of(&[Action::Enter])
        } else {
            Actions::of(&[Action::LimitedTransmit])
        }
    }

    /// RFC 6675 NextSeg (4), with `sack_rescue`: once per recovery (while
    /// HighACK has not passed RescueRxt) the highest unSACKed segment.
    pub fn next_seg_rescue(&self, v: &View) -> Option<usize> {
        if !self.rescue || self.rescue_rxt.is_some_and(|r| v.snd_una <= r) {
            return None;
        }
        v.segs.iter().rposition(|s| !s.sacked)
    }
}

/// RFC 6675 NextSeg (3): the first unSACKed segment above HighRxt (the
/// highest retransmission) and below the highest SACKed byte, lost or
/// not by IsLost().
pub(in crate::tcp) fn next_seg_rule3(segs: &VecDeque<Seg>) -> Option<usize> {
    let high_sacked = segs.iter().rev().find(|s| s.sacked)?.end();
    let from = segs.iter().rposition(|s| s.rexmit).map_or(0, |i| i + 1);
    (from..segs.len()).find(|&i| !segs[i].sacked && segs[i].start < high_sacked)
}

impl TcpFlow {
    /// RFC 6675 §5 step (C): send while cwnd − pipe ≥ 1 segment. One pass
    /// over the scoreboard per call; pipe then follows what is sent.
    /// Returns the pipe it leaves.
    pub(in crate::tcp) fn sack_send(&mut self, io: &mut TcpIo) -> u64 {
        let marks = self.rec.marks();
        let rearm = marks == LossMarks::Rack;
        let mut b = self.board();
        let mut cursor = 0;
        loop {
            if self.paced_out(io) {
                return b.pipe;
            }
            let wnd = self.window();
            // NextSeg (1): the first lost segment not yet retransmitted
            // (RFC 6675 §4), or one whose retransmission is lost as well.
            if let Some(i) = scoreboard::next_lost(&self.view(), marks, &b, cursor) {
                let s = self.segs[i];
                if b.pipe + s.len as u64 > wnd {
                    return b.pipe;
                }
                cursor = i + 1;
                let retx = Action::Retransmit {
                    i,
                    mark: true,
                    rearm,
                };
                self.apply(io, Actions::of(&[retx]));
                b.pipe += s.len as u64;
                continue;
            }
            // NextSeg (2): new data.
            let available = self.app_limit - self.snd_max;
            if available == 0 {
                // No new data: rules (3) and (4) keep a response's tail
                // from waiting for the RTO.
                let (i, rescue) = match next_seg_rule3(&self.segs) {
                    Some(i) => (i, false),
                    None => match self
                        .rec
                        .sack()
                        .and_then(|s| s.next_seg_rescue(&self.view()))
                    {
                        Some(i) => (i, true),
                        None => return b.pipe,
                    },
                };
                let s = self.segs[i];
                if b.pipe + s.len as u64 > wnd {
                    return b.pipe;
                }
                if rescue {
                    // HighRxt is not updated: the rescue stays out of pipe.
                    let recover = self.ep.recover;
                    if let Some(m) = self.rec.sack_mut() {
                        m.rescue_rxt = Some(recover);
                    }
                } else {
                    // Not lost, so already in pipe once; the copy adds one.
                    self.segs[i].rexmit = true;
                    self.segs[i].rexmit_hi = self.snd_max;
                    b.pipe += s.len as u64;
                }
                self.retransmit(io, i);
                continue;
            }
            let len = self.next_len(available);
            // pipe leaves out SACKed bytes, but the receive window is
            // counted from snd_una: new data must also end within it.
            let beyond_rwnd = self.snd_max + len as u64 > self.snd_una + self.cfg.rwnd_bytes;
            if b.pipe + len as u64 > wnd || beyond_rwnd {
                return b.pipe;
            }
            self.send_new(io, len);
            b.pipe += len as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{board, view, MSS};
    use super::*;

    fn sack(reduction: Reduction) -> Sack {
        Sack::new(&TcpConfig {
            sack: true,
            reduction,
            sack_rescue: true,
            ..TcpConfig::default()
        })
    }

    /// IsLost() of the head starts recovery before the third duplicate
    /// ACK: three segments SACKed above it are enough (RFC 6675 §5 (2)).
    #[test]
    fn three_sacked_segments_start_recovery_on_the_first_duplicate_ack() {
        let q = board(8, &[1, 2, 3]);
        let mut v = view(&q, 10, 5, CongState::Open);
        v.ep.dupacks = 1;
        assert_eq!(
            sack(Reduction::Prr).on_dupack(&v).iter().next(),
            Some(Action::Enter)
        );
        let q = board(8, &[1, 2]);
        let mut v = view(&q, 10, 5, CongState::Open);
        v.ep.dupacks = 1;
        assert_eq!(
            sack(Reduction::Prr).on_dupack(&v).iter().next(),
            Some(Action::LimitedTransmit)
        );
    }

    /// Entry sets cwnd = ssthresh and resends the head at once, marked as
    /// this episode's retransmission; PRR starts from the flight.
    #[test]
    fn entry_resends_the_head_and_sets_cwnd_to_ssthresh() {
        let q = board(10, &[1, 2, 3]);
        let v = view(&q, 10, 5, CongState::Recovery);
        let mut m = sack(Reduction::Prr);
        let acts: Vec<_> = m
            .enter(&v, LossMarks::DupAck { lost_rexmit: true })
            .iter()
            .collect();
        assert_eq!(
            acts,
            [
                Action::SetCwnd(5 * MSS),
                Action::Retransmit {
                    i: 0,
                    mark: true,
                    rearm: false
                }
            ]
        );
        assert_eq!(m.prr.recover_fs, 10 * MSS, "RFC 6937: RecoverFS = flight");
        let mut bis = sack(Reduction::PrrBis);
        bis.enter(&v, LossMarks::DupAck { lost_rexmit: true });
        assert_eq!(bis.prr.recover_fs, 6 * MSS, "PRR-bis: RecoverFS = pipe");
    }

    /// Partial ACKs change nothing; the ACK at `recover` ends the episode.
    #[test]
    fn only_the_full_ack_ends_recovery() {
        let q = board(4, &[]);
        let mut v = view(&q, 3, 5, CongState::Recovery);
        v.ep.recover = 2 * MSS;
        let mut m = sack(Reduction::Rfc6675);
        assert_eq!(m.on_ack(&v), Actions::none());
        v.ep.recover = 0;
        let acts: Vec<_> = m.on_ack(&v).iter().collect();
        assert_eq!(
            acts,
            [Action::SetCwnd(5 * MSS), Action::Exit { clear_marks: true }]
        );
    }

    /// NextSeg (3) resends what lies below the highest SACK above the
    /// highest retransmission; rule (4) the highest unSACKed segment, once
    /// per recovery point.
    #[test]
    fn rules_three_and_four_pick_the_tail() {
        let mut q = board(6, &[3, 5]);
        q[0].rexmit = true;
        assert_eq!(next_seg_rule3(&q), Some(1));
        let q = board(6, &[]);
        assert_eq!(next_seg_rule3(&q), None, "nothing SACKed");
        let v = view(&q, 10, 5, CongState::Recovery);
        let mut m = sack(Reduction::Prr);
        assert_eq!(m.next_seg_rescue(&v), Some(5));
        m.rescue_rxt = Some(6 * MSS);
        assert_eq!(m.next_seg_rescue(&v), None, "one rescue per recovery");
        m.rescue = false;
        m.rescue_rxt = None;
        assert_eq!(m.next_seg_rescue(&v), None, "sack_rescue off");
    }
}
