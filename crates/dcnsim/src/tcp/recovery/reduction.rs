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
//! Without SACK RFC 6582's window inflation paces recovery whatever the key.

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
    /// [`super::scoreboard::Board::lost_hi`] after the previous ACK.
    pub lost_hi: u64,
    /// RACK marked a segment lost since the last ACK was processed.
    pub rack_lost: bool,
    /// Bytes sent while this ACK is processed, before [`TcpFlow::prr_ack`]
    /// (the fast retransmission of the ACK that starts recovery). They are
    /// already in pipe and prr_out, but RFC 6937 sends them out of this
    /// ACK's sndcnt: counting them only in pipe let the ACK send its whole
    /// budget again on top (two segments for one delivered).
    pub ack_out: u64,
}

impl TcpFlow {
    #[inline]
    pub(in crate::tcp) fn prr_on(&self) -> bool {
        self.cfg.sack && self.cfg.reduction != Reduction::Rfc6675
    }

    /// Recovery begins (after the first retransmission's ssthresh is set,
    /// before it is sent).
    pub(in crate::tcp) fn prr_start(&mut self) {
        if !self.prr_on() {
            return;
        }
        let b = self.board();
        self.prr = Prr {
            delivered: 0,
            out: 0,
            // RFC 6937 §3: RecoverFS = snd.nxt − snd.una. RFC 6937bis
            // (draft -08 §6) starts it from pipe, which leaves out what is
            // already SACKed or lost.
            recover_fs: match self.cfg.reduction {
                Reduction::PrrBis => b.pipe,
                _ => self.snd_max - self.snd_una,
            }
            .max(self.st.smss),
            lost_hi: b.lost_hi,
            rack_lost: false,
            ack_out: 0,
        };
    }

    /// Every ACK in SACK recovery, after loss detection and before sending:
    /// set cwnd = pipe + sndcnt. `delivered` is RFC 6937's DeliveredData
    /// (the change in snd_una plus the change in SACKed bytes);
    /// `una_advanced` whether the ACK moved snd_una.
    pub(in crate::tcp) fn prr_ack(&mut self, delivered: u64, una_advanced: bool) {
        if !self.prr_on() || self.cong != CongState::Recovery {
            return;
        }
        let b = self.board();
        let newly_lost = b.lost_hi > self.prr.lost_hi || b.lost_again || self.prr.rack_lost;
        self.prr.lost_hi = self.prr.lost_hi.max(b.lost_hi);
        self.prr.rack_lost = false;
        self.prr.delivered += delivered;
        let (ssthresh, smss) = (self.st.ssthresh, self.st.smss);
        let p = self.prr;
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
            let limit = match self.cfg.reduction {
                // RFC 6937 §3 PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS.
                Reduction::Prr => ssrb,
                // RFC 6937bis: the slow-start bound only on a safe ACK (snd.una
                // advances, no further loss indicated); otherwise, as issue 24
                // specifies, no more than this ACK delivered.
                Reduction::PrrBis if una_advanced && !newly_lost => ssrb,
                Reduction::PrrBis => delivered,
                Reduction::Rfc6675 => unreachable!("prr_on"),
            };
            // RFC 6937 §3: sndcnt = MIN(ssthresh − pipe, limit).
            (ssthresh - pipe).min(limit)
        };
        // What this ACK already sent came out of its sndcnt.
        let sndcnt = sndcnt.saturating_sub(p.ack_out);
        // RFC 6937 §3: cwnd = pipe + sndcnt.
        self.st.cwnd = b.pipe + sndcnt;
    }
}
