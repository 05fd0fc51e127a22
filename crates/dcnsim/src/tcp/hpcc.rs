//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM
//! 2019) as a mode of the endpoint (`tcp.transport = "hpcc"`): the byte
//! stream, messages, delivery and counters are the flow's; the window, its
//! pacing and the acknowledging are HPCC's. Equations: docs/hpcc.md.
//!
//! * Every data packet collects one in-band telemetry record per switch
//!   egress (net/int.rs); the receiver acknowledges every packet and its
//!   ACK carries the records back.
//! * On each ACK the sender estimates the normalised in-flight bytes of
//!   every link on the path from the record and the previous ACK's
//!   record of the same link (Algorithm 1, MeasureInflight):
//!   u′ = min(qlen, qlen_prev)/(B·T) + txRate/B, takes the most loaded
//!   link's u′, and smooths U over τ/T (τ: the time between the records).
//! * ComputeWind: W = W_c/(U/η) + W_AI when U ≥ η or after `maxStage`
//!   additive rounds, else W = W_c + W_AI; W_c (the reference window) is
//!   updated once per RTT (the first ACK past `lastUpdateSeq`), other ACKs
//!   only set W from it. W starts at, and never exceeds, W_init = line
//!   rate × T.
//! * The sender keeps at most W bytes in flight (always one packet) and
//!   paces packets at R = W/T.
//! * Loss recovery is RoCE's go-back-N, which the paper runs over: the
//!   receiver takes data only in order, answers a gap with one NACK (its
//!   cumulative ACK with `flags::TRIMMED`), and the sender resends from
//!   there; `hpcc_rto` without progress does the same (a lost tail).
//!
//! On the wire: data is `PktKind::Data` and ACKs `PktKind::Ack`, both with
//! `flags::NDP` (the world hands such packets to the flow's transport, not
//! TCP's machinery); an ACK's `seq` is the cumulative ACK and `ts` echoes
//! the data packet's send time. Pacing uses the flow's
//! probabilistic-retransmission timer slot (`TcpTimer::ProbRetx`), which
//! an HPCC flow has no other use for.

use super::*;
use crate::net::int::{IntHop, IntStack};

/// HPCC's state of one flow, both ends (each end touches only its own).
#[derive(Clone, Debug, Default)]
pub struct HpccState {
    /// T, W_init = line rate × T, W_AI and the window's floor, in bytes.
    t: SimTime,
    w_init: f64,
    w_ai: f64,
    w_min: f64,
    /// η and maxStage (copied from the configuration).
    eta: f64,
    max_stage: u32,
    /// The window W and the reference window W_c, bytes.
    pub w: f64,
    wc: f64,
    /// U, the normalised in-flight bytes of the most loaded link.
    pub u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    /// The records of the last ACK (L of Algorithm 1).
    last: IntStack,
    /// Pacing: no new packet before this.
    next_send: SimTime,
    /// Receiver: a NACK was sent for this gap (`rcv_nxt` then).
    nacked_at: Option<u64>,
    /// Counters: NACKs the sender received, window updates from INT.
    pub nacks: u64,
    pub updates: u64,
    /// Go-backs that ended with nothing resent (`gbn_on_ack`).
    pub unsent_go_backs: u64,
}

impl TcpFlow {
    /// Whether this flow runs HPCC.
    #[inline]
    pub fn is_hpcc(&self) -> bool {
        self.hpcc.is_some()
    }

    /// The HPCC state (both ends), for tests and the report.
    pub fn hpcc(&self) -> Option<&HpccState> {
        self.hpcc.as_deref()
    }

    /// Set T (`hpcc_base_rtt`, or the unloaded path RTT `rtt`), W_init =
    /// `rate_bps` × T and W_AI (`hpcc_w_ai`, or W_init·(1 − η)/N).
    pub fn hpcc_setup(&mut self, rtt: SimTime, rate_bps: u64) {
        let p = self.cfg.hpcc;
        let t = if p.base_rtt > SimTime::ZERO {
            p.base_rtt
        } else {
            rtt
        };
        let w_init = rate_bps as f64 * t.0 as f64 / 8e12;
        let w_ai = match p.w_ai {
            0 => w_init * (1.0 - p.eta) / p.n as f64,
            b => b as f64,
        };
        if let Some(h) = self.hpcc.as_deref_mut() {
            h.t = t;
            h.w_init = w_init;
            h.w_ai = w_ai;
            // ns-3's HPCC keeps a rate floor of 1/1000 of the line rate
            // (100 Mb/s at 100 Gb/s); the paper gives none.
            h.w_min = w_init / 1000.0;
            h.eta = p.eta;
            h.max_stage = p.max_stage;
            h.w = w_init;
            h.wc = w_init;
            h.u = p.u_init;
            self.st.cwnd = w_init as u64;
        }
    }

    /// The application wrote: send what window and pacing allow.
    pub(in crate::tcp) fn hpcc_write(&mut self, io: &mut TcpIo) {
        self.hpcc_send(io);
    }

    /// Send while the window has room and pacing allows; otherwise wait
    /// for the pacing timer (or an ACK).
    fn hpcc_send(&mut self, io: &mut TcpIo) {
        let now = io.now();
        let l2 = io.l2_overhead();
        loop {
            if self.snd_nxt >= self.app_limit {
                return;
            }
            let h = self.hpcc.as_deref().expect("an HPCC flow");
            let len = (self.app_limit - self.snd_nxt).min(self.cfg.mss as u64) as u32;
            let inflight = self.snd_nxt - self.snd_una;
            if inflight > 0 && (inflight + len as u64) as f64 > h.w {
                return;
            }
            if now < h.next_send {
                let at = h.next_send;
                self.prx.arm(io, at, TcpTimer::ProbRetx);
                return;
            }
            let wire = len + self.cfg.header_bytes + l2;
            // R = W/T: one packet per wire·T/W.
            let gap = (wire as f64 * h.t.0 as f64 / h.w.min(h.w_init)).round() as u64;
            self.hpcc.as_deref_mut().expect("an HPCC flow").next_send = now + SimTime(gap);
            self.hpcc_send_one(io, len);
        }
    }

    fn hpcc_send_one(&mut self, io: &mut TcpIo, len: u32) {
        let start = self.snd_nxt;
        let retx = start < self.snd_max;
        self.snd_nxt += len as u64;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.send_marked_data(io, start, len, retx);
    }

    /// The pacing timer: the next packet may go.
    pub(in crate::tcp) fn hpcc_on_pace(&mut self, io: &mut TcpIo) {
        if self.prx.fire(io, TcpTimer::ProbRetx) == Fire::Expired {
            self.hpcc_send(io);
        }
    }

    /// Nothing acknowledged for `hpcc_rto`: go back to `snd_una`.
    pub(in crate::tcp) fn hpcc_on_rto(&mut self, io: &mut TcpIo) {
        if self.gbn_on_rto(io, self.cfg.hpcc.rto) {
            self.hpcc_send(io);
        }
    }

    /// RoCE's go-back-N timeout (HPCC's and DCQCN's): nothing acknowledged
    /// for `rto`. Returns whether the sender went back to `snd_una` (the
    /// caller sends again).
    pub(in crate::tcp) fn gbn_on_rto(&mut self, io: &mut TcpIo, rto: SimTime) -> bool {
        if self.rto.fire(io, TcpTimer::Rto) != Fire::Expired {
            return false;
        }
        if self.snd_una >= self.snd_max {
            return false;
        }
        let now = io.now();
        if self.last_activity + rto > now {
            let at = self.last_activity + rto;
            self.rto.arm(io, at, TcpTimer::Rto);
            return false;
        }
        if self.snd_nxt == self.snd_una {
            // Gone back and nothing resent since (a rate-paced sender at
            // a low rate waits longer than `rto` for its next packet):
            // nothing is outstanding to time out.
            self.rto.arm(io, now + rto, TcpTimer::Rto);
            return false;
        }
        // go-back-N: the receiver NACKs a gap, it sends no duplicate ACKs
        self.count_timeout(now, 0);
        self.last_activity = now;
        self.snd_nxt = self.snd_una;
        let at = now + rto;
        self.rto.arm(io, at, TcpTimer::Rto);
        true
    }

    /// An ACK or NACK reaches the sender, carrying `int`: the records of
    /// the data packet it answers.
    pub fn hpcc_on_ack(&mut self, io: &mut TcpIo, p: &Packet, int: &IntStack) {
        if self.gbn_on_ack(io, p) {
            self.hpcc.as_deref_mut().expect("an HPCC flow").nacks += 1;
        } else {
            let snd_nxt = self.snd_nxt;
            let h = self.hpcc.as_deref_mut().expect("an HPCC flow");
            if let Some(u) = h.measure_inflight(int) {
                let update = p.seq > h.last_update_seq;
                h.w = h.compute_wind(u, update);
                if update {
                    h.last_update_seq = snd_nxt;
                }
                h.updates += 1;
                // The window is what traces show as the flow's cwnd.
                self.st.cwnd = h.w as u64;
            }
            h.last = *int;
        }
        self.gbn_arm_rto(io, self.cfg.hpcc.rto);
        self.hpcc_send(io);
    }

    /// RoCE's go-back-N sender on an ACK or NACK (HPCC's and DCQCN's):
    /// the cumulative ACK advances `snd_una` (an RTT sample unless it
    /// answers a resend); a NACK (the receiver has everything below `seq`
    /// and not the packet after it) sends the sender back there. Returns
    /// whether it was a NACK.
    ///
    /// A paced sender's go-back (on a NACK or a timeout) waits for its
    /// slot, `snd_nxt` still at `snd_una` (as `gbn_on_rto` reads it), and
    /// may end with nothing resent: a NACK for a later gap of reordered
    /// packets sends it back again, or an ACK of everything (the
    /// originals were late, not lost) leaves nothing to resend. Those are
    /// counted, so each loss indication is a resend or one of them
    /// (tests/properties.rs).
    pub(in crate::tcp) fn gbn_on_ack(&mut self, io: &TcpIo, p: &Packet) -> bool {
        let now = io.now();
        let waiting = self.snd_nxt == self.snd_una && self.snd_una < self.snd_max;
        if p.seq > self.snd_una {
            self.snd_una = p.seq.min(self.snd_max);
            self.last_activity = now;
            if p.flags & flags::RETX == 0 {
                self.ndp_rtt_sample(now.saturating_sub(p.ts));
            }
        }
        let nack = p.flags & flags::TRIMMED != 0;
        if waiting && (nack || self.snd_una >= self.snd_max) {
            self.gbn_went_back_unsent();
        }
        if nack {
            self.stats.fast_retransmits += 1;
            self.stats.loss_log.push((now, false));
            self.snd_nxt = self.snd_una;
            true
        } else {
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            false
        }
    }

    #[cold]
    fn gbn_went_back_unsent(&mut self) {
        if let Some(h) = self.hpcc.as_deref_mut() {
            h.unsent_go_backs += 1;
        } else if let Some(d) = self.dcqcn.as_deref_mut() {
            d.unsent_go_backs += 1;
        }
    }

    /// Go-back-N's timer after an ACK: off with nothing outstanding, else
    /// `rto` from now.
    pub(in crate::tcp) fn gbn_arm_rto(&mut self, io: &mut TcpIo, rto: SimTime) {
        if self.snd_una >= self.snd_max {
            self.rto.cancel();
        } else {
            let at = io.now() + rto;
            self.rto.arm(io, at, TcpTimer::Rto);
        }
    }

    /// A data packet reaches the receiver: in order, it is taken and
    /// acknowledged; above a gap, it is discarded and the gap NACKed once;
    /// below `rcv_nxt` (a go-back-N resend), acknowledged again. Returns
    /// the bytes in-order delivery advanced by. The ACK must carry the
    /// packet's INT records (the world attaches them).
    pub fn hpcc_on_data(&mut self, io: &mut TcpIo, p: &Packet) -> u64 {
        let h = self.hpcc.as_deref_mut().expect("an HPCC flow");
        let mut nacked = h.nacked_at;
        let (n, _) = self.gbn_receive(io, p, &mut nacked, 0);
        self.hpcc.as_deref_mut().expect("an HPCC flow").nacked_at = nacked;
        n
    }

    /// RoCE's go-back-N receiver (HPCC's and DCQCN's): in order, a packet
    /// is taken and acknowledged; above a gap, discarded and the gap
    /// NACKed once (`nacked_at`: the gap last NACKed); below `rcv_nxt`,
    /// acknowledged again. The ACK carries `extra` flags too. Returns the
    /// bytes in-order delivery advanced by and whether an ACK or NACK went.
    pub(in crate::tcp) fn gbn_receive(
        &mut self,
        io: &mut TcpIo,
        p: &Packet,
        nacked_at: &mut Option<u64>,
        extra: u8,
    ) -> (u64, bool) {
        let before = self.rx.rcv_nxt;
        let trimmed = p.flags & flags::TRIMMED != 0;
        let mut nack = false;
        if !trimmed && p.seq == self.rx.rcv_nxt {
            self.rx.rcv_nxt += p.payload as u64;
            self.rx.last_delivery = io.now();
        } else if !trimmed && p.seq < self.rx.rcv_nxt {
            self.stats.dup_arrivals += 1;
        } else {
            self.stats.ooo_arrivals += 1;
            if *nacked_at == Some(self.rx.rcv_nxt) {
                return (0, false);
            }
            *nacked_at = Some(self.rx.rcv_nxt);
            nack = true;
        }
        // RETX echoed: the sender takes no RTT sample from a resend's ACK.
        let f =
            flags::NDP | extra | if nack { flags::TRIMMED } else { 0 } | (p.flags & flags::RETX);
        self.send_marked_ack(io, f, self.rx.rcv_nxt, p.ts);
        (self.rx.rcv_nxt - before, true)
    }

    /// Every broken HPCC invariant (see [`Self::invariant_violations`]).
    pub(in crate::tcp) fn hpcc_violations(&self, v: &mut Vec<String>) {
        let Some(h) = self.hpcc.as_deref() else {
            return;
        };
        let id = self.id;
        if !(h.w >= h.w_min && h.w <= h.w_init) && h.w_init > 0.0 {
            v.push(format!(
                "flow {id}: HPCC window {} outside [{}, {}]",
                h.w, h.w_min, h.w_init
            ));
        }
        if self.snd_nxt < self.snd_una || self.snd_nxt > self.snd_max {
            v.push(format!(
                "flow {id}: HPCC snd_nxt {} outside [snd_una {}, snd_max {}]",
                self.snd_nxt, self.snd_una, self.snd_max
            ));
        }
    }
}

impl HpccState {
    /// W_init (line rate × T) in bytes: the most this flow's window holds.
    pub fn w_init(&self) -> f64 {
        self.w_init
    }

    /// Algorithm 1's MeasureInflight: U from this ACK's records and the
    /// last ACK's. `None` when the path's records do not match the last
    /// ones (the first ACK, or a changed path): nothing to compare yet.
    fn measure_inflight(&mut self, ack: &IntStack) -> Option<f64> {
        let (now, last) = (ack.hops(), self.last.hops());
        if now.is_empty() || now.len() != last.len() {
            return None;
        }
        let t = self.t.0 as f64;
        let mut u = 0.0;
        let mut tau = t;
        let mut any = false;
        for (a, l) in now.iter().zip(last) {
            if a.link != l.link {
                return None;
            }
            if a.ts <= l.ts {
                continue;
            }
            let u1 = Self::link_u(a, l, t);
            if !any || u1 > u {
                u = u1;
                tau = (a.ts - l.ts).0 as f64;
                any = true;
            }
        }
        if !any {
            return None;
        }
        let tau = tau.min(t);
        self.u = (1.0 - tau / t) * self.u + tau / t * u;
        Some(self.u)
    }

    /// u′ of one link: queue over its BDP plus its throughput over B.
    fn link_u(a: &IntHop, l: &IntHop, t_ps: f64) -> f64 {
        let b = a.rate_bps as f64;
        let tx_rate = (a.tx_bytes - l.tx_bytes) as f64 * 8e12 / (a.ts - l.ts).0 as f64;
        a.qlen.min(l.qlen) as f64 * 8e12 / (b * t_ps) + tx_rate / b
    }

    /// Algorithm 1's ComputeWind, W kept within [W_init/1000, W_init].
    fn compute_wind(&mut self, u: f64, update_wc: bool) -> f64 {
        let eta = self.eta;
        let w = if u >= eta || self.inc_stage >= self.max_stage {
            let w = self.wc / (u / eta) + self.w_ai;
            if update_wc {
                self.inc_stage = 0;
            }
            w
        } else {
            if update_wc {
                self.inc_stage += 1;
            }
            self.wc + self.w_ai
        };
        let w = w.clamp(self.w_min, self.w_init);
        if update_wc {
            self.wc = w;
        }
        w
    }
}
