//! Rate reduction in SACK fast recovery: how much may leave on each ACK
//! (`tcp.reduction`, [`Reduction`]).
//!
//! - `rfc6675`: RFC 6675 §5 step (4.2) sets cwnd = ssthresh on entry and
//!   every ACK sends what cwnd − pipe allows. After a slow-start overshoot
//!   that lost every other segment, each ACK SACKs one segment and marks
//!   another lost: pipe falls by two and two segments leave per ACK, twice
//!   the bottleneck's rate, so the retransmissions are lost again.
//! - `prr`: RFC 6937 Proportional Rate Reduction with the slow-start
//!   reduction bound (PRR-SSRB).
//! - `prr_bis`: the rule issue 24 specifies after the IETF's update
//!   (draft-ietf-tcpm-prr-rfc6937bis) and Linux (tcp_cwnd_reduction): the
//!   slow-start bound only on a "safe" ACK (it advances snd_una and reports
//!   no new loss), otherwise no more than this ACK delivered. (The draft's
//!   conservative bound and Linux still allow prr_delivered − prr_out on
//!   other ACKs: docs/model.md.)
//!
//! Without SACK `tcp.reno_reduction` paces recovery: RFC 6582's window
//! inflation, or Linux's PRR in the NewReno machine (`newreno::RenoPrr`).

use super::scoreboard::Board;
use crate::config::Reduction;
use crate::tcp::*;

/// PRR's state for one recovery episode (RFC 6937 §3).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct Prr {
    /// prr_delivered: bytes delivered to the receiver since recovery began.
    pub delivered: u64,
    /// prr_out: bytes sent since recovery began.
    pub out: u64,
    /// RecoverFS: the flight the reduction is proportional to.
    pub recover_fs: u64,
    /// [`Board::lost_hi`] after the previous ACK.
    pub lost_hi: u64,
    /// RACK marked a segment lost since the last ACK was processed.
    pub rack_lost: bool,
    /// Bytes sent while this ACK is processed, before [`Prr::on_ack`]
    /// (the fast retransmission of the ACK that starts recovery). They are
    /// already in pipe and prr_out, but RFC 6937 sends them out of this
    /// ACK's sndcnt: counting them only in pipe let the ACK send its whole
    /// budget again on top (two segments for one delivered).
    pub ack_out: u64,
}

impl Prr {
    /// Recovery begins (after ssthresh is set, before the first
    /// retransmission is sent): `b` is the scoreboard then, `flight`
    /// snd_max − snd_una.
    pub fn start(reduction: Reduction, b: &Board, flight: u64, smss: u64) -> Prr {
        Prr {
            delivered: 0,
            out: 0,
            // RFC 6937 §3: RecoverFS = snd.nxt − snd.una. RFC 6937bis
            // (draft -08 §6) starts it from pipe, which leaves out what is
            // already SACKed or lost.
            recover_fs: match reduction {
                Reduction::PrrBis => b.pipe,
                _ => flight,
            }
            .max(smss),
            lost_hi: b.lost_hi,
            rack_lost: false,
            ack_out: 0,
        }
    }

    /// Every ACK in recovery, after loss detection and before sending: the
    /// new cwnd = pipe + sndcnt. `b` is the scoreboard now, `delivered`
    /// RFC 6937's DeliveredData (the change in snd_una plus the change in
    /// SACKed bytes), `una_advanced` whether the ACK moved snd_una.
    pub fn on_ack(
        &mut self,
        reduction: Reduction,
        b: &Board,
        st: &CcState,
        delivered: u64,
        una_advanced: bool,
    ) -> u64 {
        let newly_lost = b.lost_hi > self.lost_hi || b.lost_again || self.rack_lost;
        self.lost_hi = self.lost_hi.max(b.lost_hi);
        self.rack_lost = false;
        self.delivered += delivered;
        let (ssthresh, smss) = (st.ssthresh, st.smss);
        let p = *self;
        // RFC 6937 computes pipe and prr_out before this ACK sends anything.
        let pipe = b.pipe.saturating_sub(p.ack_out);
        let out_before = p.out - p.ack_out;
        let sndcnt = if pipe > ssthresh {
            // RFC 6937 §3: "if (pipe > ssthresh)": proportional rate
            // reduction, sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let target = (p.delivered as u128 * ssthresh as u128).div_ceil(p.recover_fs as u128);
            (target as u64).saturating_sub(out_before)
        } else {
            let ssrb = p.delivered.saturating_sub(out_before).max(delivered) + smss;
            let limit = match reduction {
                // RFC 6937 §3 PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS.
                Reduction::Prr => ssrb,
                // RFC 6937bis: the slow-start bound only on a safe ACK (snd.una
                // advances, no further loss indicated); otherwise, as issue 24
                // specifies, no more than this ACK delivered.
                Reduction::PrrBis if una_advanced && !newly_lost => ssrb,
                Reduction::PrrBis => delivered,
                Reduction::Rfc6675 => unreachable!("PRR runs only under a PRR rule"),
            };
            // RFC 6937 §3: sndcnt = MIN(ssthresh − pipe, limit).
            (ssthresh - pipe).min(limit)
        };
        // What this ACK already sent came out of its sndcnt.
        let sndcnt = sndcnt.saturating_sub(p.ack_out);
        // RFC 6937 §3: cwnd = pipe + sndcnt.
        b.pipe + sndcnt
    }

    /// A segment of `len` bytes left during recovery (RFC 6937 §3: prr_out
    /// += data sent).
    #[inline]
    pub fn sent(&mut self, len: u64) {
        self.out += len;
        self.ack_out += len;
    }
}

impl TcpFlow {
    /// Every ACK in SACK recovery under a PRR rule, after loss detection
    /// and before sending: set cwnd = pipe + sndcnt ([`Prr::on_ack`]).
    /// Outside recovery (nearly every ACK) nothing is done, seen inline.
    #[inline(always)]
    pub(in crate::tcp) fn prr_ack(&mut self, delivered: u64, una_advanced: bool) {
        if self.cong == CongState::Recovery {
            self.prr_ack_in_recovery(delivered, una_advanced);
        } else if self.cwr_on {
            self.cwr_reduction(delivered, una_advanced);
        }
    }

    /// An ACK in CWR under `ecn_reduction = "prr"` (tcp_cwnd_reduction):
    /// cwnd = what is in flight + sndcnt, sndcnt proportional to what was
    /// delivered while the flight exceeds ssthresh (ssthresh/prior_cwnd of
    /// it, less what was sent), else up to one segment more than delivered
    /// on an ACK that advances snd_una (the slow-start bound), never past
    /// ssthresh; at least one segment while nothing has been sent. An ACK
    /// that delivers nothing changes nothing.
    #[inline(never)]
    fn cwr_reduction(&mut self, delivered: u64, una_advanced: bool) {
        if delivered == 0 {
            return;
        }
        self.cwr.delivered += delivered;
        let c = self.cwr;
        let (ssthresh, smss) = (self.st.ssthresh, self.st.smss);
        let pipe = self.board().pipe;
        let out = self.snd_max - self.ecn_recover;
        let sndcnt = if pipe > ssthresh {
            let target =
                (c.delivered as u128 * ssthresh as u128).div_ceil(c.prior_cwnd.max(1) as u128);
            (target as u64).saturating_sub(out)
        } else {
            // (Linux counts packets: an ACK that delivers part of one
            // still earns a whole one.)
            let bound = c.delivered.saturating_sub(out).max(delivered.max(smss))
                + if una_advanced { smss } else { 0 };
            (ssthresh - pipe).min(bound)
        };
        let sndcnt = if out == 0 { sndcnt.max(smss) } else { sndcnt };
        self.st.cwnd = pipe + sndcnt;
    }

    #[inline(never)]
    fn prr_ack_in_recovery(&mut self, delivered: u64, una_advanced: bool) {
        if !self.rec.sack().is_some_and(|s| s.prr_on()) {
            return;
        }
        let b = self.board();
        let st = self.st;
        let s = self.rec.sack_mut().expect("a SACK machine");
        self.st.cwnd = s.prr.on_ack(s.reduction, &b, &st, delivered, una_advanced);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn board(pipe: u64) -> Board {
        Board {
            pipe,
            lost_end: 0,
            high_sacked: 0,
            lost_hi: 0,
            lost_again: false,
        }
    }

    fn st(ssthresh: u64) -> CcState {
        CcState {
            cwnd: ssthresh,
            ssthresh,
            smss: MSS,
            ca_acked: 0,
        }
    }

    /// RFC 6937's law: while pipe is above ssthresh, what recovery sends
    /// tracks ssthresh/RecoverFS of what was delivered — one segment per
    /// two delivered when ssthresh is half the flight, whatever the rule.
    #[test]
    fn proportional_part_sends_ssthresh_over_recover_fs_of_what_is_delivered() {
        for rule in [Reduction::Prr, Reduction::PrrBis] {
            let flight = 20 * MSS;
            let mut p = Prr::start(rule, &board(flight), flight, MSS);
            let mut pipe = flight;
            for k in 1..=10u64 {
                pipe -= MSS; // one delivered
                let cwnd = p.on_ack(rule, &board(pipe), &st(10 * MSS), MSS, true);
                let sndcnt = cwnd - pipe;
                p.sent(sndcnt);
                p.ack_out = 0;
                pipe += sndcnt;
                assert_eq!(p.out, (k * MSS).div_ceil(2), "{rule:?} after {k} ACKs");
            }
        }
    }

    /// Below ssthresh PRR-SSRB slow-starts back toward it (up to one SMSS
    /// more than delivered); PRR-bis does so only on a safe ACK, otherwise
    /// sends no more than the ACK delivered.
    #[test]
    fn below_ssthresh_the_bound_depends_on_the_rule_and_the_ack() {
        let ss = st(10 * MSS);
        let fresh = |rule| Prr::start(rule, &board(4 * MSS), 20 * MSS, MSS);
        let mut prr = fresh(Reduction::Prr);
        assert_eq!(
            prr.on_ack(Reduction::Prr, &board(4 * MSS), &ss, MSS, false),
            4 * MSS + 2 * MSS
        );
        let mut bis = fresh(Reduction::PrrBis);
        assert_eq!(
            bis.on_ack(Reduction::PrrBis, &board(4 * MSS), &ss, MSS, true),
            4 * MSS + 2 * MSS,
            "a safe ACK"
        );
        let mut bis = fresh(Reduction::PrrBis);
        assert_eq!(
            bis.on_ack(Reduction::PrrBis, &board(4 * MSS), &ss, MSS, false),
            4 * MSS + MSS,
            "snd_una did not move"
        );
        // Never above ssthresh.
        let mut prr = fresh(Reduction::Prr);
        assert_eq!(
            prr.on_ack(Reduction::Prr, &board(9 * MSS), &ss, 5 * MSS, true),
            10 * MSS
        );
    }

    /// What the ACK itself already sent (the fast retransmission) comes out
    /// of its budget, not on top of it.
    #[test]
    fn what_this_ack_sent_counts_against_its_budget() {
        let ss = st(10 * MSS);
        let mut p = Prr::start(Reduction::Prr, &board(4 * MSS), 20 * MSS, MSS);
        p.sent(MSS);
        let cwnd = p.on_ack(Reduction::Prr, &board(5 * MSS), &ss, MSS, false);
        // Budget 2 segments (delivered + 1), one already out: one more.
        assert_eq!(cwnd, 5 * MSS + MSS);
    }
}
