//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
//! Deployments", SIGCOMM 2015), RoCEv2's congestion control, as a mode of
//! the endpoint (`tcp.transport = "dcqcn"`): the byte stream, messages,
//! delivery and counters are the flow's; the rate, its pacing and the
//! acknowledging are DCQCN's over RoCE's go-back-N. Equations and the
//! comparison with htsim's: docs/dcqcn.md.
//!
//! * Switches mark ECN as for any ECN-capable packet (`ecn_k`); DCQCN's
//!   data are ECT.
//! * The receiver (the paper's NP) acknowledges every packet; when a
//!   CE-marked packet arrives and it sent its flow no CNP for
//!   `dcqcn_cnp_interval` (N = 50 µs), the ACK carries a CNP (the ACK
//!   with the CNP bit, as the HPCC authors' ns-3 sends it: a separate
//!   64-byte packet on a NIC, at the same instant and on the same path);
//!   a packet marked sooner waits for the interval's end, when one CNP
//!   goes on an ACK of its own (the paper's "at most one CNP every N µs
//!   if any packet in that window was marked", as htsim's sink does).
//! * The sender (RP) sends at its current rate R_C, with no window, and
//!   only while its NIC's queue holds less than two packets (a NIC makes a
//!   queue pair's next packet when its transmit queue has room, so a PFC
//!   pause stops the sender rather than queueing its rate's packets). A CNP
//!   cuts: R_T = R_C, R_C = R_C·(1 − α/2), α = (1 − g)·α + g, and resets
//!   both increase counters. Every `dcqcn_timer` (55 µs) after a cut
//!   without another, α decays to (1 − g)·α and the timer counter T
//!   steps; every B bytes sent the byte counter BC steps. Each step
//!   raises the rate: fast recovery R_C = (R_T + R_C)/2 while
//!   max(T, BC) ≤ F; hyper increase R_T += (min(T, BC) − F)·R_HAI when
//!   both are above F; else additive increase R_T += R_AI, then
//!   R_C = (R_T + R_C)/2. R_C and R_T stay within [min rate, line rate].
//! * Loss recovery is RoCE's go-back-N (HPCC's, tcp/hpcc.rs): the
//!   receiver takes data only in order and NACKs a gap once; the sender
//!   resends from there; `dcqcn_rto` without progress does the same.
//!
//! On the wire: data is `PktKind::Data` with `flags::NDP | flags::ECT`, an
//! ACK `PktKind::Ack` with `flags::NDP` (a NACK with `TRIMMED`, a CNP with
//! [`CNP`]). Pacing uses the flow's probabilistic-retransmission timer
//! slot (`TcpTimer::ProbRetx`) and DCQCN's timer the delayed-ACK slot
//! (`TcpTimer::DelAck`), which a DCQCN flow has no other use for.
//!
//! TIMELY (`tcp.transport = "timely"`, tcp/timely.rs) runs on this rate
//! sender and receiver with its own controller in place of the CNP's cuts
//! and the increase timer: [`DcqcnState::timely`] is set, the data are not
//! ECN-capable, and the rate moves on ACKs' RTTs.

use super::*;

/// On a DCQCN ACK: a CNP rides along (ECE's bit: the ACK echoes no ECN).
pub const CNP: u8 = flags::ECE;

/// α below which it no longer decays: at line rate the increase timer
/// runs on only while α is above it.
const ALPHA_FLOOR: f64 = 1e-6;

/// DCQCN's state of one flow, both ends (each end touches only its own).
#[derive(Clone, Debug, Default)]
pub struct DcqcnState {
    /// The line rate and the rates of the configuration, b/s.
    line: f64,
    rai: f64,
    rhai: f64,
    min_rate: f64,
    /// T of the report: the unloaded path RTT (`cwnd` shows R_C × T).
    base_rtt: SimTime,
    /// R_C, the current rate, and R_T, the target rate, b/s.
    pub rc: f64,
    pub rt: f64,
    /// α, the estimate of the congestion extent.
    pub alpha: f64,
    /// The timer's and the byte counter's stages since the last cut, and
    /// the bytes sent towards the next byte-counter stage.
    t_stage: u32,
    bc_stage: u32,
    bytes: u64,
    /// Pacing: no new packet before this.
    next_send: SimTime,
    /// The wire bytes of the last packet sent: its gap at the old rate is
    /// what a rate change moves `next_send` by (0: none sent yet).
    last_wire: u32,
    /// Looks at a full NIC in a row (the wait doubles, to 8 packet times).
    nic_waits: u32,
    /// Receiver: when it last sent a CNP, whether a packet marked since
    /// waits for the next one (`cnp_timer`, at the interval's end), and
    /// the gap it NACKed.
    last_cnp: Option<SimTime>,
    cnp_pending: bool,
    cnp_timer: LazyTimer,
    nacked_at: Option<u64>,
    /// CNPs the receiver sent (the sender's cuts are the flow's
    /// `ecn_cuts`, its NACKs `fast_retransmits`).
    pub cnps_sent: u64,
    /// TIMELY's controller, which sets the rate instead of DCQCN's (a
    /// flow of `tcp.transport = "timely"`).
    pub timely: Option<super::timely::TimelyState>,
    /// Go-backs that ended with nothing resent (tcp/hpcc.rs, `gbn_on_ack`).
    pub unsent_go_backs: u64,
}

impl TcpFlow {
    /// Whether this flow runs RoCE's rate sender: DCQCN, or TIMELY on it.
    #[inline]
    pub fn is_dcqcn(&self) -> bool {
        self.dcqcn.is_some()
    }

    /// Whether this flow runs TIMELY (on DCQCN's rate sender).
    pub fn is_timely(&self) -> bool {
        self.dcqcn.as_deref().is_some_and(|d| d.timely.is_some())
    }

    /// TIMELY's controller (the sender's), for tests and the report.
    pub fn timely(&self) -> Option<&super::timely::TimelyState> {
        self.dcqcn.as_deref().and_then(|d| d.timely.as_ref())
    }

    /// A TIMELY flow's path's unloaded RTT (a full packet out, its ACK
    /// back) over its `timely_t_low`: above 1 the always-increase branch
    /// is out of reach, and `timely_min_rtt`, the gradient's normaliser,
    /// is below the path's own minimum (docs/timely.md, "Paths longer
    /// than T_low"). None for other flows, and with `timely_t_low = 0`
    /// (the published code's advice under per-packet pacing: the branch
    /// off on purpose).
    pub fn timely_path_rtt_over_t_low(&self) -> Option<(f64, SimTime)> {
        let d = self.dcqcn.as_deref()?;
        d.timely.as_ref()?;
        let t_low = self.cfg.timely.t_low;
        (t_low > SimTime::ZERO).then(|| (d.base_rtt.0 as f64 / t_low.0 as f64, d.base_rtt))
    }

    /// Go-back-N's timeout: DCQCN's or TIMELY's key.
    fn roce_rto(&self) -> SimTime {
        if self.is_timely() {
            self.cfg.timely.rto
        } else {
            self.cfg.dcqcn.rto
        }
    }

    /// The DCQCN state (both ends), for tests and the report.
    pub fn dcqcn(&self) -> Option<&DcqcnState> {
        self.dcqcn.as_deref()
    }

    /// The rates from `rate_bps` (the sender's line rate) where the
    /// configuration leaves them to it; R_C = R_T = line rate, α = 1.
    pub fn dcqcn_setup(&mut self, rtt: SimTime, rate_bps: u64) {
        let p = self.cfg.dcqcn;
        let line = rate_bps as f64;
        let or = |v: u64, d: f64| if v > 0 { v as f64 } else { d };
        let timely = self.cfg.transport == crate::config::Transport::Timely;
        let floor = if timely {
            self.cfg.timely.min_rate_bps
        } else {
            p.min_rate_bps
        };
        if let Some(d) = self.dcqcn.as_deref_mut() {
            d.line = line;
            d.rai = or(p.rai_bps, line / 20.0);
            d.rhai = or(p.rhai_bps, line / 10.0);
            d.min_rate = or(floor, line / 1000.0).min(line);
            d.timely = timely.then(|| super::timely::TimelyState::new(&self.cfg.timely, line));
            d.base_rtt = rtt;
            d.rc = line;
            d.rt = line;
            d.alpha = 1.0;
            self.st.cwnd = d.window();
        }
    }

    /// Send while pacing and the NIC allow (the application wrote, an ACK
    /// came, a timer fired); otherwise wait for the pacing timer.
    pub(in crate::tcp) fn dcqcn_send(&mut self, io: &mut TcpIo) {
        let now = io.now();
        let l2 = io.l2_overhead();
        let full = (self.cfg.mss + self.cfg.header_bytes + l2) as u64;
        let mut backlog = io.nic_backlog();
        let timely = self.is_timely();
        // TIMELY's data are not ECN-capable: no switch marks them
        let ect = if timely { 0 } else { flags::ECT };
        let rto = self.roce_rto();
        while self.snd_nxt < self.app_limit {
            let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
            if now < d.next_send {
                let at = d.next_send;
                self.prx.arm(io, at, TcpTimer::ProbRetx);
                return;
            }
            if backlog >= 2 * full {
                // The NIC holds a packet behind the one it sends (or is
                // paused; an ACK or two besides do not count): look again
                // when that one could have left,
                // backing off to 8 packet times while it stays full.
                let tx = (full as f64 * 8e12 / d.line).round() as u64;
                let at = now + SimTime(tx.max(1) << d.nic_waits.min(3));
                d.nic_waits += 1;
                self.prx.arm(io, at, TcpTimer::ProbRetx);
                return;
            }
            d.nic_waits = 0;
            let len = (self.app_limit - self.snd_nxt).min(self.cfg.mss as u64) as u32;
            let wire = len + self.cfg.header_bytes + l2;
            backlog += wire as u64;
            let gap = (wire as f64 * 8e12 / d.rc).round() as u64;
            let start = self.snd_nxt;
            let retx = start < self.snd_max;
            self.snd_nxt += len as u64;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            let pkt = self.modern_data(io, start, len, retx, flags::NDP | ect);
            io.send(pkt);
            if !self.rto.is_armed() {
                self.rto.arm(io, now + rto, TcpTimer::Rto);
            }
            let b = self.cfg.dcqcn.byte_counter;
            let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
            d.next_send = now + SimTime(gap.max(1));
            d.last_wire = wire;
            if timely {
                continue;
            }
            d.bytes += len as u64;
            if d.bytes >= b {
                d.bytes = 0;
                d.bc_stage += 1;
                d.increase(self.cfg.dcqcn.f);
                self.st.cwnd = d.window();
                // the packet just sent is the last: the next goes a gap at the new rate after it
                let gap = (wire as f64 * 8e12 / d.rc).round() as u64;
                d.next_send = now + SimTime(gap.max(1));
            }
        }
    }

    /// The pacing timer: the next packet may go.
    pub(in crate::tcp) fn dcqcn_on_pace(&mut self, io: &mut TcpIo) {
        if self.prx.fire(io, TcpTimer::ProbRetx) == Fire::Expired {
            self.dcqcn_send(io);
        }
    }

    /// DCQCN's timer: `dcqcn_timer` without a cut. α decays, the timer
    /// stage steps and the rate rises; the timer runs on while the rate
    /// is below line rate or α above its floor, whether the flow has data
    /// or not, as a NIC's rate limiter's timer does (the HPCC authors' ns-3
    /// reschedules `RateIncEventTimerMlx` and α's update unconditionally).
    /// Until 2026-12-08 it stopped on an idle flow and nothing restarted
    /// it: a flow cut in one query sent every later query at the rate the
    /// cut left (two 500 KB responses into an idle 10 Gbps port at 1.5
    /// Gbps each, a 12-worker incast at 60 Mbps a flow; the physics audit).
    pub(in crate::tcp) fn dcqcn_on_timer(&mut self, io: &mut TcpIo) {
        if self.rx_rare.dack.fire(io, TcpTimer::DelAck) != Fire::Expired {
            return;
        }
        let p = self.cfg.dcqcn;
        let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
        d.alpha *= 1.0 - p.g;
        d.t_stage += 1;
        let old_rc = d.rc;
        d.increase(p.f);
        self.st.cwnd = d.window();
        // Once at line rate, α alone changes: it matters to the next cut,
        // so it keeps decaying down to its floor.
        if d.rc < d.line || d.alpha > ALPHA_FLOOR {
            self.rx_rare
                .dack
                .arm(io, io.now() + p.timer, TcpTimer::DelAck);
        }
        self.dcqcn_repace(io, old_rc);
    }

    /// A rate increase brings a packet paced at the old rate forward: the
    /// next goes one gap at the new rate after the last (never before
    /// now), as a NIC's rate limiter applies a new rate at once and
    /// htsim's sender, which sends on each increase event, does. Without
    /// it a flow cut to its floor (line rate / 1000: 12 ms a packet at 1
    /// Gbps) sat idle for the floor's gap with its rate back at line rate.
    fn dcqcn_repace(&mut self, io: &mut TcpIo, old_rc: f64) {
        let now = io.now();
        let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
        if d.rc <= old_rc || d.next_send <= now {
            return; // no faster, or nothing paced (a NIC wait keeps its timer)
        }
        // the last packet's own gap, old and new (a message's short tail has a short one)
        let last = d.last_wire as f64;
        let gap = (last * 8e12 / d.rc).round() as u64;
        let old = (last * 8e12 / old_rc).round() as u64;
        d.next_send = SimTime(d.next_send.0.saturating_sub(old.saturating_sub(gap))).max(now);
        // sends now, or re-arms the pacing timer at the new slot
        self.dcqcn_send(io);
    }

    /// Nothing acknowledged for `dcqcn_rto`: go back to `snd_una`.
    pub(in crate::tcp) fn dcqcn_on_rto(&mut self, io: &mut TcpIo) {
        if self.gbn_on_rto(io, self.roce_rto()) {
            self.timely_went_back();
            self.dcqcn_send(io);
        }
    }

    /// An ACK, NACK or CNP reaches the sender.
    pub fn dcqcn_on_ack(&mut self, io: &mut TcpIo, p: &Packet) {
        let now = io.now();
        let nack = self.gbn_on_ack(io, p);
        if self.is_timely() {
            if nack {
                self.timely_went_back();
            }
            self.timely_on_ack(now.saturating_sub(p.ts), p.seq);
        } else if p.flags & CNP != 0 {
            let g = self.cfg.dcqcn.g;
            let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
            d.cut(g);
            self.st.cwnd = d.window();
            self.stats.ecn_cuts += 1;
            // The increase timer restarts from the cut.
            let at = now + self.cfg.dcqcn.timer;
            self.rx_rare.dack.arm(io, at, TcpTimer::DelAck);
            // A packet paced at the old rate may wait longer: the next
            // one goes one gap at the new rate after the last.
            let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
            if d.next_send > now {
                let last = d.last_wire as f64;
                let gap = (last * 8e12 / d.rc).round() as u64;
                let old = (last * 8e12 / d.rt).round() as u64;
                d.next_send += SimTime(gap.saturating_sub(old));
            }
        }
        self.gbn_arm_rto(io, self.roce_rto());
        self.dcqcn_send(io);
    }

    /// Go-back-N resends from `snd_una`: TIMELY's round ends with the next
    /// ACK past it (tcp/timely.rs, `went_back`).
    fn timely_went_back(&mut self) {
        let snd_nxt = self.snd_nxt;
        if let Some(t) = self.dcqcn.as_deref_mut().and_then(|d| d.timely.as_mut()) {
            t.went_back(snd_nxt);
        }
    }

    /// TIMELY's update from an ACK's (or NACK's) RTT (tcp/timely.rs).
    fn timely_on_ack(&mut self, rtt: SimTime, ack: u64) {
        let p = self.cfg.timely;
        let snd_nxt = self.snd_nxt;
        let d = self.dcqcn.as_deref_mut().expect("a TIMELY flow");
        let lim = (d.min_rate, d.line);
        let t = d.timely.as_mut().expect("a TIMELY flow");
        t.on_rtt(&p, rtt, ack, snd_nxt, &mut d.rc, lim);
        d.rt = d.rc;
        self.st.cwnd = d.window();
    }

    /// A data packet reaches the receiver: go-back-N's answer (an ACK or a
    /// NACK), carrying a CNP when the packet is CE-marked and the flow had
    /// none for `dcqcn_cnp_interval`. Returns the bytes in-order delivery
    /// advanced by.
    pub fn dcqcn_on_data(&mut self, io: &mut TcpIo, p: &Packet) -> u64 {
        let now = io.now();
        let interval = self.cfg.dcqcn.cnp_interval;
        let marked = p.flags & flags::CE != 0;
        if marked {
            self.stats.ecn_marks += 1;
        }
        let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
        let cnp = marked && d.last_cnp.is_none_or(|t| now >= t + interval);
        let mut nacked = d.nacked_at;
        let (n, acked) = self.gbn_receive(io, p, &mut nacked, if cnp { CNP } else { 0 });
        let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
        d.nacked_at = nacked;
        if cnp && acked {
            d.last_cnp = Some(now);
            d.cnps_sent += 1;
            d.cnp_pending = false;
        } else if marked {
            // Marked inside the interval: one CNP when it ends (the
            // paper's "at most one CNP every N µs if any packet that
            // arrives within that window was marked").
            d.cnp_pending = true;
            if !d.cnp_timer.is_armed() {
                let at = d.last_cnp.map_or(now, |t| t + interval).max(now);
                d.cnp_timer.arm(io, at, TcpTimer::Rack);
            }
        }
        n
    }

    /// The receiver's CNP interval ended with a marked packet since the
    /// last CNP: send one now, on an ACK of what it has.
    pub(in crate::tcp) fn dcqcn_on_cnp_timer(&mut self, io: &mut TcpIo) {
        let d = self.dcqcn.as_deref_mut().expect("a DCQCN flow");
        if d.cnp_timer.fire(io, TcpTimer::Rack) != Fire::Expired || !d.cnp_pending {
            return;
        }
        d.cnp_pending = false;
        d.last_cnp = Some(io.now());
        d.cnps_sent += 1;
        let ts = io.now();
        self.send_marked_ack(io, flags::NDP | CNP, self.rx.rcv_nxt, ts);
    }

    /// Every broken DCQCN invariant (see [`Self::invariant_violations`]).
    pub(in crate::tcp) fn dcqcn_violations(&self, v: &mut Vec<String>) {
        let Some(d) = self.dcqcn.as_deref() else {
            return;
        };
        let id = self.id;
        if d.line > 0.0 && !(d.rc >= d.min_rate && d.rc <= d.line && d.rt <= d.line) {
            v.push(format!(
                "flow {id}: DCQCN rate {} (target {}) outside [{}, {}]",
                d.rc, d.rt, d.min_rate, d.line
            ));
        }
        if !(0.0..=1.0).contains(&d.alpha) {
            v.push(format!("flow {id}: DCQCN alpha {} outside [0, 1]", d.alpha));
        }
        if self.snd_nxt < self.snd_una || self.snd_nxt > self.snd_max {
            v.push(format!(
                "flow {id}: DCQCN snd_nxt {} outside [snd_una {}, snd_max {}]",
                self.snd_nxt, self.snd_una, self.snd_max
            ));
        }
    }
}

impl DcqcnState {
    /// A CNP: R_T = R_C, R_C = R_C·(1 − α/2), α = (1 − g)·α + g; the
    /// increase counters start again.
    fn cut(&mut self, g: f64) {
        self.rt = self.rc;
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.min_rate);
        self.alpha = (1.0 - g) * self.alpha + g;
        self.t_stage = 0;
        self.bc_stage = 0;
        self.bytes = 0;
    }

    /// One stage of the timer or the byte counter: fast recovery, then
    /// additive, then hyper increase (htsim's `increaseRate`).
    fn increase(&mut self, f: u32) {
        if self.rc >= self.line {
            return;
        }
        let (hi, lo) = (
            self.t_stage.max(self.bc_stage),
            self.t_stage.min(self.bc_stage),
        );
        if hi > f {
            self.rt += if lo > f {
                (lo - f) as f64 * self.rhai
            } else {
                self.rai
            };
            self.rt = self.rt.min(self.line);
        }
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line);
    }

    /// R_C × T in bytes: what the report and traces show as the window.
    fn window(&self) -> u64 {
        (self.rc * self.base_rtt.0 as f64 / 8e12) as u64
    }

    /// The receiver's half, from the partition that held the receiver.
    pub(in crate::tcp) fn absorb(&mut self, rx: &DcqcnState) {
        self.last_cnp = rx.last_cnp;
        self.cnp_pending = rx.cnp_pending;
        self.cnp_timer = rx.cnp_timer;
        self.nacked_at = rx.nacked_at;
        self.cnps_sent += rx.cnps_sent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Transport;
    use crate::sim::rng::{stream, Stream};

    const MSS: u32 = 4000;

    /// A DCQCN flow from host 0 to host 1 at 100 Gbps (both ends).
    fn flow() -> (TcpFlow, TcpIo) {
        let cfg = TcpConfig {
            mss: MSS,
            transport: Transport::Dcqcn,
            ..TcpConfig::default()
        };
        let mut f = TcpFlow::new(0, 0, 0, 1, cfg, stream(1, Stream::Flow, 0));
        f.dcqcn_setup(SimTime::from_us(10), 100_000_000_000);
        (f, TcpIo::new(0))
    }

    fn data(seq: u64, ce: bool) -> Packet {
        Packet {
            kind: PktKind::Data,
            flags: flags::NDP | flags::ECT | if ce { flags::CE } else { 0 },
            src: 0,
            dst: 1,
            seq,
            payload: MSS,
            ..Packet::EMPTY
        }
    }

    /// (CNP ACKs sent, wake-ups asked) by the last call.
    fn outs(io: &mut TcpIo) -> (usize, Vec<SimTime>) {
        let mut cnps = 0;
        let mut wakes = Vec::new();
        for o in io.drain() {
            match o {
                TcpOut::Send(p) if p.kind == PktKind::Ack && p.flags & CNP != 0 => cnps += 1,
                TcpOut::Wake { at, .. } => wakes.push(at),
                _ => {}
            }
        }
        (cnps, wakes)
    }

    /// The first marked packet is answered by a CNP at once; packets
    /// marked inside the next 50 µs send none, but one CNP goes when the
    /// interval ends; a packet marked after that with none pending waits
    /// for the next interval's end again, and an interval without marks
    /// sends nothing.
    #[test]
    fn marks_inside_an_interval_bring_one_cnp_at_its_end() {
        let (mut f, mut io) = flow();
        let us = SimTime::from_us;
        f.dcqcn_on_data(io.at(us(0)), &data(0, true));
        assert_eq!(outs(&mut io).0, 1, "the first mark: a CNP at once");
        f.dcqcn_on_data(io.at(us(10)), &data(MSS as u64, true));
        let (n, wakes) = outs(&mut io);
        assert_eq!(
            (n, wakes),
            (0, vec![us(50)]),
            "no CNP inside; one asked at 50 µs"
        );
        f.dcqcn_on_data(io.at(us(20)), &data(2 * MSS as u64, true));
        assert_eq!(outs(&mut io), (0, vec![]));
        f.on_timer(io.at(us(50)), TcpTimer::Rack);
        assert_eq!(outs(&mut io).0, 1, "the interval's end: one CNP");
        assert_eq!(f.dcqcn().unwrap().cnps_sent, 2);
        f.dcqcn_on_data(io.at(us(60)), &data(3 * MSS as u64, true));
        assert_eq!(outs(&mut io), (0, vec![us(100)]));
        f.on_timer(io.at(us(100)), TcpTimer::Rack);
        assert_eq!(outs(&mut io).0, 1);
        // unmarked packets ask for nothing; a mark 50 µs after the last
        // CNP goes at once
        f.dcqcn_on_data(io.at(us(120)), &data(4 * MSS as u64, false));
        assert_eq!(outs(&mut io), (0, vec![]));
        f.dcqcn_on_data(io.at(us(150)), &data(5 * MSS as u64, true));
        assert_eq!(outs(&mut io).0, 1);
        assert_eq!(f.dcqcn().unwrap().cnps_sent, 4);
    }

    /// A sender whose NIC holds two packets or more (a PFC pause) sends
    /// nothing and looks again later, backing off; once the NIC has room
    /// it sends at its rate again. Packets are never queued behind a
    /// paused NIC at the sender's rate.
    #[test]
    fn a_full_nic_holds_the_sender() {
        let (mut f, mut io) = flow();
        let us = SimTime::from_us;
        f.app_write(io.at(us(0)), 100 * MSS as u64, None);
        let (n, wakes) = outs_data(&mut io);
        assert_eq!(n, 1, "one packet, then paced");
        let full = (MSS + 40) as u64;
        let mut waits = Vec::new();
        // the pacing wake-up, when the NIC turns out full
        let mut t = *wakes.last().expect("paced");
        for _ in 0..5 {
            f.on_timer(io.at(t).set_nic_backlog(2 * full), TcpTimer::ProbRetx);
            let (n, wakes) = outs_data(&mut io);
            assert_eq!(n, 0, "a full NIC: nothing sent");
            let at = *wakes.last().expect("a look again asked");
            waits.push(at.0 - t.0);
            t = at;
        }
        let tx = (full as f64 * 8e12 / 100e9).round() as u64;
        assert_eq!(waits, vec![tx, 2 * tx, 4 * tx, 8 * tx, 8 * tx]);
        f.on_timer(io.at(t).set_nic_backlog(full), TcpTimer::ProbRetx);
        assert_eq!(outs_data(&mut io).0, 1, "room again: it sends");
    }

    /// (data packets sent, wake-ups asked) by the last call.
    fn outs_data(io: &mut TcpIo) -> (usize, Vec<SimTime>) {
        let mut n = 0;
        let mut wakes = Vec::new();
        for o in io.drain() {
            match o {
                TcpOut::Send(p) if p.kind == PktKind::Data => n += 1,
                TcpOut::Wake { at, .. } => wakes.push(at),
                _ => {}
            }
        }
        (n, wakes)
    }

    fn nack(seq: u64) -> Packet {
        Packet {
            kind: PktKind::Ack,
            flags: flags::NDP | flags::TRIMMED,
            src: 1,
            dst: 0,
            seq,
            ..Packet::EMPTY
        }
    }

    /// Found by `timely_runs_obey_the_laws` (reordered packets, a paced
    /// sender): a second NACK that comes before the first go-back has
    /// resent anything ends that go-back unsent, as does an ACK of
    /// everything; a NACK after a resend ends nothing. Every NACK is a
    /// fast retransmit, and each is a resend or an unsent go-back.
    #[test]
    fn a_go_back_that_resends_nothing_is_counted() {
        let (mut f, mut io) = flow();
        // 1 Gbps: a packet every 32 µs, so the resend waits for its slot
        f.dcqcn_setup(SimTime::from_us(10), 1_000_000_000);
        let us = SimTime::from_us;
        f.app_write(io.at(us(0)), 100 * MSS as u64, None);
        let mut t = us(0);
        for _ in 0..5 {
            let (_, wakes) = outs_data(&mut io);
            t = *wakes.last().expect("paced");
            f.on_timer(io.at(t), TcpTimer::ProbRetx);
        }
        let (_, wakes) = outs_data(&mut io);
        let at = *wakes.last().expect("the next slot");
        assert_eq!(f.snd_max(), 6 * MSS as u64);
        let m = MSS as u64;
        f.dcqcn_on_ack(io.at(t + us(1)), &nack(m));
        assert_eq!((f.snd_nxt(), f.stats.fast_retransmits), (m, 1));
        assert_eq!(outs_data(&mut io).0, 0, "paced: the resend waits");
        f.dcqcn_on_ack(io.at(t + us(2)), &nack(2 * m));
        assert_eq!((f.snd_una(), f.snd_nxt()), (2 * m, 2 * m));
        assert_eq!(f.stats.fast_retransmits, 2);
        assert_eq!(f.unsent_retx(), 1, "the first go-back ended unsent");
        f.on_timer(io.at(at), TcpTimer::ProbRetx);
        assert_eq!(outs_data(&mut io).0, 1);
        assert_eq!((f.stats.retransmits, f.snd_nxt()), (1, 3 * m));
        f.dcqcn_on_ack(io.at(at + us(1)), &nack(3 * m));
        assert_eq!(f.stats.fast_retransmits, 3);
        assert_eq!(f.unsent_retx(), 1, "the second resent");
        // the originals were late: an ACK of everything before the third
        // go-back's slot leaves nothing to resend
        let all = f.snd_max();
        let mut ack = nack(all);
        ack.flags = flags::NDP;
        f.dcqcn_on_ack(io.at(at + us(2)), &ack);
        assert_eq!(f.unsent_retx(), 2);
        assert_eq!(
            f.stats.retransmits + f.unsent_retx(),
            f.stats.fast_retransmits
        );
    }

    /// A rate change moves the next packet by the last packet's own gap,
    /// old and new: after a message's short tail, a cut to half puts the
    /// next one a short packet's gap at the new rate after it, not a full
    /// packet's (the session's review), and an increase brings it forward
    /// by as much.
    #[test]
    fn a_rate_change_moves_the_next_packet_by_the_last_ones_gap() {
        // a 1 µs increase timer, so it fires while the next packet waits
        let mut cfg = TcpConfig {
            mss: MSS,
            transport: Transport::Dcqcn,
            ..TcpConfig::default()
        };
        cfg.dcqcn.timer = SimTime::from_us(1);
        let mut f = TcpFlow::new(0, 0, 0, 1, cfg, stream(1, Stream::Flow, 0));
        let mut io = TcpIo::new(0);
        f.dcqcn_setup(SimTime::from_us(10), 1_000_000_000);
        let ns = SimTime::from_ns;
        f.app_write(io.at(ns(0)), 100, None);
        assert_eq!(outs_data(&mut io).0, 1);
        let wire = (100 + f.cfg.header_bytes + io.l2_overhead()) as f64;
        let gap = |rate: f64| SimTime((wire * 8e12 / rate).round() as u64);
        assert_eq!(f.dcqcn().unwrap().next_send, gap(1e9));
        f.app_write(io.at(ns(100)), 100 * MSS as u64, None);
        assert_eq!(outs_data(&mut io).0, 0, "paced behind the short packet");
        let mut cnp = nack(100);
        cnp.flags = flags::NDP | CNP;
        f.dcqcn_on_ack(io.at(ns(200)), &cnp);
        let rc = f.dcqcn().unwrap().rc;
        assert_eq!(rc, 0.5e9, "alpha = 1 halves the rate");
        assert_eq!(f.dcqcn().unwrap().next_send, gap(0.5e9));
        f.on_timer(io.at(ns(1200)), TcpTimer::DelAck);
        let rc = f.dcqcn().unwrap().rc;
        assert!(rc > 0.5e9, "the timer's increase");
        let next = f.dcqcn().unwrap().next_send;
        assert!(
            next.0.abs_diff(gap(rc).0) <= 1,
            "{next:?} against {:?}",
            gap(rc)
        );
    }

    /// A flow cut by a CNP that then goes idle (everything acknowledged)
    /// keeps its increase timer running, so its rate comes back while it
    /// has nothing to send, as a NIC's rate limiter's does; once at line
    /// rate with α at its floor the timer stops. Before the fix the timer
    /// stopped at the first firing on an idle flow and the rate stayed
    /// cut for every later message.
    #[test]
    fn the_increase_timer_runs_on_while_the_flow_is_idle() {
        let (mut f, mut io) = flow();
        let us = SimTime::from_us;
        let timer = f.cfg.dcqcn.timer;
        f.app_write(io.at(us(0)), MSS as u64, None);
        assert_eq!(outs_data(&mut io).0, 1);
        let cnp = Packet {
            kind: PktKind::Ack,
            flags: flags::NDP | CNP,
            src: 1,
            dst: 0,
            seq: MSS as u64,
            ..Packet::EMPTY
        };
        // the CNP acknowledges everything: the flow is idle from here on
        f.dcqcn_on_ack(io.at(us(10)), &cnp);
        assert_eq!(f.dcqcn().unwrap().rc, 50e9, "alpha = 1 halves the rate");
        let mut at = us(10) + timer;
        let mut fired = 0;
        while f.rx_rare.dack.is_armed() {
            f.on_timer(io.at(at), TcpTimer::DelAck);
            at += timer;
            fired += 1;
            assert!(fired < 100_000, "the timer must stop once recovered");
        }
        let d = f.dcqcn().unwrap();
        assert_eq!(d.rc, 100e9, "back at line rate while idle");
        assert!(d.alpha <= ALPHA_FLOOR);
        assert_eq!(outs_data(&mut io).0, 0, "nothing sent while idle");
        // the next message starts at line rate
        f.app_write(io.at(at), MSS as u64, None);
        assert_eq!(outs_data(&mut io).0, 1);
        assert_eq!(f.dcqcn().unwrap().rc, 100e9);
    }

    fn state() -> DcqcnState {
        DcqcnState {
            line: 100e9,
            rai: 5e9,
            rhai: 10e9,
            min_rate: 100e6,
            base_rtt: SimTime::from_us(10),
            rc: 100e9,
            rt: 100e9,
            alpha: 1.0,
            ..Default::default()
        }
    }

    /// The first CNP halves the rate (α starts at 1) and sets the target
    /// to the rate before; α moves towards 1 by g; a later cut with a
    /// decayed α cuts less.
    #[test]
    fn a_cut_takes_alpha_over_two() {
        let mut d = state();
        d.cut(1.0 / 256.0);
        assert_eq!((d.rc, d.rt), (50e9, 100e9));
        assert_eq!(d.alpha, 1.0, "(1 - g)·1 + g = 1");
        d.alpha = 0.2;
        d.cut(0.5);
        assert_eq!((d.rc, d.rt), (45e9, 50e9));
        assert_eq!(d.alpha, 0.6);
        // never below the floor
        d.alpha = 1.0;
        for _ in 0..20 {
            d.cut(0.0);
        }
        assert_eq!(d.rc, d.min_rate);
    }

    /// After a cut: F stages of fast recovery halve the distance to the
    /// target without moving it; then additive steps raise the target by
    /// R_AI; with both counters past F, hyper steps by (min − F)·R_HAI;
    /// and nothing passes line rate.
    #[test]
    fn increases_recover_then_probe() {
        let mut d = state();
        d.cut(0.0);
        for s in 1..=5 {
            d.t_stage = s;
            d.increase(5);
            assert_eq!(d.rt, 100e9, "fast recovery keeps the target");
        }
        assert!((d.rc - (100e9 - 50e9 / 32.0)).abs() < 1.0, "{}", d.rc);
        let mut d = state();
        d.rc = 20e9;
        d.rt = 20e9;
        d.t_stage = 6;
        d.increase(5);
        assert_eq!((d.rt, d.rc), (25e9, 22.5e9), "additive: R_T + R_AI");
        d.bc_stage = 8;
        d.t_stage = 7;
        d.increase(5);
        assert_eq!(d.rt, 45e9, "hyper: (min(7, 8) − 5)·R_HAI");
        assert_eq!(d.rc, 33.75e9);
        for _ in 0..40 {
            d.increase(5);
        }
        assert!(d.rt <= d.line && d.rc <= d.line);
        assert_eq!(d.rt, d.line);
        assert!(d.line - d.rc < 1.0, "{}", d.rc);
    }
}
