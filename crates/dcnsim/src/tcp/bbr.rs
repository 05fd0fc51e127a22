//! Where BBR (tcp/cc/bbr.rs) meets the sender: the delivery-rate sampler's
//! records beside the scoreboard, the pacing gate, and the `cong_control`
//! call that sets cwnd and the pacing rate at the end of every ACK, where
//! Linux calls it (tcp_ack: after loss detection, before the retransmissions
//! and new data the ACK lets go).
//!
//! Every hook is behind a test of the congestion control's tag, which the
//! sender's hot lines hold: a flow of another algorithm pays a
//! well-predicted branch and nothing else. The sampler's records live in
//! the BBR state, one per scoreboard entry and in the same order (entries
//! are only appended when sent and taken from the front when acknowledged).

use super::cc::bbr::{AckView, CaState, HeldRetx};
use super::cc::Cc;
use super::{CongState, TcpFlow, TcpIo, TcpTimer};
use crate::sim::queue::Fire;
use crate::sim::time::SimTime;

impl TcpFlow {
    /// A new segment is about to be recorded at the scoreboard's end
    /// (bbr_init at the first; tcp_rate_skb_sent).
    /// It leaves now: the pacing clock moves on by its length.
    #[inline(never)]
    pub(in crate::tcp) fn bbr_on_new(&mut self, now: SimTime, len: u32) {
        if self.snd_una == self.snd_max && self.segs_sent > 0 {
            // leaving idle (send_new has told the other algorithms)
            self.bbr_tx_start(now);
        }
        let (srtt, smss, cwnd) = (self.srtt, self.st.smss, self.st.cwnd);
        let nothing_out = self.segs.is_empty();
        if let Cc::Bbr(b) = &mut self.cc {
            if !b.initialised() {
                b.init(now, srtt, cwnd.div_ceil(smss.max(1)), smss);
            }
            let rec = b.skb_sent(now, nothing_out);
            b.push_tx(rec);
            b.on_send(now, len as u64);
        }
    }

    /// A cumulative ACK up to `ack` (`acked` bytes new) is about to
    /// release the scoreboard's front entries: each one not SACKed before
    /// is delivered now, and its sending record goes with it (a partly
    /// acknowledged front entry stays, as the kernel leaves a one-segment
    /// skb). Without SACK, what the duplicate ACKs counted already is
    /// taken back.
    #[inline(never)]
    pub(in crate::tcp) fn bbr_cum_acked(&mut self, ack: u64, now: SimTime, acked: u64) {
        let (sack, smss, left) = (self.cfg.sack, self.st.smss, self.snd_max - ack);
        let Cc::Bbr(b) = &mut self.cc else {
            return;
        };
        for s in self.segs.iter() {
            if s.end() > ack {
                break;
            }
            b.skb_delivered(0, s.xmit, s.end(), s.len as u64, s.retx_ever, false, now);
            b.pop_tx();
        }
        if !sack {
            b.reno_cum_ack(acked, smss, left);
        }
    }

    /// Segments the ACK's SACK `blocks` cover that were not SACKed before
    /// (their records not yet counted) are delivered now.
    #[inline(never)]
    pub(in crate::tcp) fn bbr_sacked(&mut self, blocks: &[(u64, u64)], now: SimTime) {
        let Cc::Bbr(b) = &mut self.cc else {
            return;
        };
        let mut sorted = [(0u64, 0u64); 4];
        let k = super::recovery::sort_blocks(&mut sorted, blocks);
        for &(l, r) in &sorted[..k] {
            let i0 = self.segs.partition_point(|s| s.end() <= l);
            for (j, s) in self.segs.iter().enumerate().skip(i0) {
                if s.start >= r {
                    break;
                }
                if s.sacked {
                    b.skb_delivered(j, s.xmit, s.end(), s.len as u64, s.retx_ever, true, now);
                }
            }
        }
    }

    /// Scoreboard entry `i` is resent at `now`: a fresh sending record,
    /// and a loss for the sampler when a recovery without RACK resends it
    /// (RACK counts its own marks; a timeout counted the whole flight).
    #[inline(never)]
    pub(in crate::tcp) fn bbr_resent(&mut self, i: usize, now: SimTime) {
        let s = self.segs[i];
        let counts = self.cong == CongState::Recovery && !self.rec.is_rack() && !s.lost;
        if let Cc::Bbr(b) = &mut self.cc {
            if counts {
                b.mark_lost(s.len as u64);
            }
            b.resent(i, now);
            b.on_send(now, s.len as u64);
        }
    }

    /// The timeout deems every segment neither SACKed nor already deemed
    /// lost lost (tcp_timeout_mark_lost), and BBR enters its Loss state.
    #[inline(never)]
    pub(in crate::tcp) fn bbr_on_timeout(&mut self) {
        let lost: u64 = self
            .segs
            .iter()
            .filter(|s| !s.sacked && !s.lost)
            .map(|s| s.len as u64)
            .sum();
        if let Cc::Bbr(b) = &mut self.cc {
            b.mark_lost(lost);
            b.on_timeout();
            b.drop_held();
        }
    }

    /// The timeout's resend of the head, past the pacing gate: the
    /// kernel's tcp_retransmit_timer sends it itself (tcp_retransmit_skb,
    /// no tcp_pacing_check), and its send moves the pacing clock on, so the
    /// rest of the go-back waits its turn (tcp_xmit_retransmit_queue).
    #[inline(never)]
    pub(in crate::tcp) fn bbr_resend_head(&mut self, io: &mut TcpIo) {
        let Some(i) = self.seg_index(self.snd_una) else {
            return;
        };
        // The head is never SACKed (it would be acknowledged); the test
        // keeps go_back_n's rule.
        if self.segs[i].sacked {
            return;
        }
        self.snd_nxt = self.segs[i].end();
        self.retransmit(io, i);
    }

    /// A duplicate ACK without SACK: one segment has left the network
    /// (Linux's Reno emulation counts it delivered, tcp_add_reno_sack).
    #[inline(never)]
    pub(in crate::tcp) fn bbr_reno_dupack(&mut self) {
        if self.cfg.sack {
            return;
        }
        let smss = self.st.smss;
        let out = self.snd_max - self.snd_una;
        if let Cc::Bbr(b) = &mut self.cc {
            b.reno_dupack(smss, out);
        }
    }

    /// Bytes in flight as Linux's tcp_packets_in_flight counts them: with
    /// SACK the scoreboard's pipe (SACKed and lost segments out, their
    /// resends in), without it what was sent less one segment per
    /// duplicate ACK.
    fn bbr_inflight(&self) -> u64 {
        if self.cfg.sack {
            self.board().pipe
        } else {
            (self.snd_nxt - self.snd_una).saturating_sub(self.ep.dupacks as u64 * self.st.smss)
        }
    }

    /// The end of an ACK's processing: the rate sample, BBR's model, and
    /// the cwnd and pacing rate they give (bbr_main).
    #[inline(never)]
    pub(in crate::tcp) fn bbr_cong_control(&mut self, now: SimTime) {
        let inflight = self.bbr_inflight();
        let state = match self.cong {
            CongState::Open => CaState::Open,
            CongState::Recovery => CaState::Recovery,
            CongState::Loss => CaState::Loss,
        };
        let (st, srtt) = (self.st, self.srtt);
        if let Cc::Bbr(b) = &mut self.cc {
            let view = AckView {
                now,
                inflight,
                prior_inflight: inflight + b.ack_left_network(),
                state,
            };
            self.st.cwnd = b
                .cong_control(view, &st, srtt)
                .min(self.cfg.rwnd_bytes.max(st.smss));
        }
    }

    /// The application writes (tcp_rate_check_app_limited): a sender with
    /// less than a segment unsent, room in cwnd and no loss being repaired
    /// is application-limited until what is in flight now is delivered.
    #[inline(never)]
    pub(in crate::tcp) fn bbr_app_write(&mut self) {
        let inflight = self.bbr_inflight();
        let unsent = self.app_limit - self.snd_max;
        let (smss, cwnd, open) = (self.st.smss, self.st.cwnd, self.cong == CongState::Open);
        if let Cc::Bbr(b) = &mut self.cc {
            b.check_app_limited(unsent, smss, inflight, cwnd, open);
        }
    }

    /// New data leaves with nothing in flight (CA_EVENT_TX_START).
    fn bbr_tx_start(&mut self, now: SimTime) {
        let smss = self.st.smss.max(1);
        let cwnd = self.st.cwnd.div_ceil(smss);
        if let Cc::Bbr(b) = &mut self.cc {
            if let Some(c) = b.tx_start(now, cwnd) {
                self.st.cwnd = c * smss;
            }
        }
    }

    /// Whether pacing holds the next segment back; if so its timer is
    /// armed for the departure time (tcp_pacing_check).
    #[inline(always)]
    pub(in crate::tcp) fn paced_out(&mut self, io: &mut TcpIo) -> bool {
        match &self.cc {
            Cc::Bbr(_) => self.bbr_pace_hold(io),
            _ => false,
        }
    }

    #[inline(never)]
    pub(in crate::tcp) fn bbr_pace_hold(&mut self, io: &mut TcpIo) -> bool {
        let Cc::Bbr(b) = &self.cc else {
            return false;
        };
        match b.hold_until(io.now()) {
            Some(t) => {
                self.prx.arm(io, t, TcpTimer::ProbRetx);
                true
            }
            None => false,
        }
    }

    /// Whether pacing holds back recovery's retransmission of segment `i`
    /// (it then waits for the pacing timer, behind any held before it).
    /// The kernel sends every recovery retransmission, the fast
    /// retransmit included, from its retransmit queue, which stops at
    /// tcp_pacing_check; only the timeout's resend of the head leaves at
    /// once (tcp_retransmit_timer), and that does not come this way.
    #[inline(always)]
    pub(in crate::tcp) fn pacing_holds_retx(
        &mut self,
        io: &mut TcpIo,
        i: usize,
        mark: bool,
        rearm: bool,
    ) -> bool {
        match &self.cc {
            Cc::Bbr(_) => self.bbr_hold_retx(io, i, mark, rearm),
            _ => false,
        }
    }

    #[inline(never)]
    fn bbr_hold_retx(&mut self, io: &mut TcpIo, i: usize, mark: bool, rearm: bool) -> bool {
        // Behind one already held the timer is armed (it drains them all).
        let queued = matches!(&self.cc, Cc::Bbr(b) if b.holds_retx());
        if !queued && !self.bbr_pace_hold(io) {
            return false;
        }
        let h = HeldRetx {
            seq: self.segs[i].start,
            at: io.now(),
            mark,
            rearm,
        };
        if let Cc::Bbr(b) = &mut self.cc {
            b.hold_retx(h);
        }
        true
    }

    /// The pacing timer (BBR flows use the probabilistic-retransmission
    /// slot, which they cannot have): the next segment may go, the held
    /// retransmissions first (tcp_tsq_write: the retransmit queue, then
    /// new data).
    pub(in crate::tcp) fn bbr_on_pace(&mut self, io: &mut TcpIo) {
        if self.prx.fire(io, TcpTimer::ProbRetx) == Fire::Expired {
            self.bbr_send_held(io);
            self.try_send(io);
            self.tlp_arm(io);
        }
    }

    /// Send the held retransmissions while pacing lets them go. One whose
    /// segment was acknowledged, SACKed or resent since, or held in a
    /// recovery that has ended, is dropped.
    fn bbr_send_held(&mut self, io: &mut TcpIo) {
        loop {
            let Cc::Bbr(b) = &mut self.cc else {
                return;
            };
            let Some(h) = b.next_held() else {
                return;
            };
            let Some(i) = self.seg_index(h.seq).filter(|&i| {
                let s = &self.segs[i];
                s.start == h.seq && self.cong == CongState::Recovery && !s.sacked && s.xmit < h.at
            }) else {
                if let Cc::Bbr(b) = &mut self.cc {
                    b.cancel_held();
                }
                continue;
            };
            if self.bbr_pace_hold(io) {
                if let Cc::Bbr(b) = &mut self.cc {
                    b.unpop_held(h);
                }
                return;
            }
            self.resend(io, i, h.mark, h.rearm);
        }
    }

    /// BBR's books against the sender's: a sending record per scoreboard
    /// entry, never more delivered than sent, a window of at least one
    /// segment, a finite pacing rate.
    pub(in crate::tcp) fn bbr_violations(&self, v: &mut Vec<String>) {
        let Cc::Bbr(b) = &self.cc else {
            return;
        };
        let id = self.id;
        if b.records() != self.segs.len() {
            v.push(format!(
                "flow {id}: BBR keeps {} sending records for {} scoreboard entries",
                b.records(),
                self.segs.len()
            ));
        }
        if b.delivered() > self.snd_max {
            v.push(format!(
                "flow {id}: BBR counts {} bytes delivered of {} sent",
                b.delivered(),
                self.snd_max
            ));
        }
        if self.st.cwnd < self.st.smss || !b.pacing_rate().is_finite() || b.pacing_rate() < 0.0 {
            v.push(format!(
                "flow {id}: BBR cwnd {} (smss {}), pacing rate {}",
                self.st.cwnd,
                self.st.smss,
                b.pacing_rate()
            ));
        }
    }
}
