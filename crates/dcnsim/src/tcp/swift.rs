//! Swift (Kumar et al., "Swift: Delay is Simple and Effective for
//! Congestion Control in the Datacenter", SIGCOMM 2020) as a mode of the
//! endpoint (`tcp.transport = "swift"`): the byte stream, messages,
//! delivery and counters are the flow's, the window and the sending are
//! Swift's (Algorithm 1), with htsim's loss recovery (csg-htsim's
//! swift.cpp: fast retransmit on the third duplicate ACK, inflation in
//! recovery, go-back-N after a timeout).
//!
//! * Timestamps as a NIC takes them: a data packet's `ts` is the time it
//!   starts to leave the sender's NIC (the world stamps it,
//!   [`TcpOut::SendNicStamped`]); the receiver acknowledges every packet,
//!   echoing that `ts` and carrying in `txn` the nanoseconds it held the
//!   packet before its ACK left (t3 − t2). So per ACK, at the sender,
//!   endpoint delay = t3 − t2 and fabric delay = now − ts − endpoint.
//!   The retransmission timer, armed at hand-off, estimates the RTT from
//!   the hand-off instead (the world tells the flow each stamp), as
//!   htsim's and Linux's samples run.
//! * Two windows, fabric and endpoint, each additive increase below its
//!   target and multiplicative decrease above it, at most one decrease
//!   per RTT; the window used is the smaller. The fabric target grows
//!   with the path's hops and, for small windows, with 1/√cwnd (flow
//!   scaling).
//! * Below one packet of window the sender paces: one packet per
//!   RTT × mss / cwnd, on the delayed-ACK timer's slot (a Swift receiver
//!   acknowledges every packet at once and never uses it).

use super::*;

/// Swift's state of one flow (the sender's; the receiver keeps only the
/// flow's own `rcv_nxt` and out-of-order ranges).
#[derive(Clone, Debug, Default)]
pub struct SwiftState {
    /// Fabric and endpoint windows, bytes.
    fcwnd: f64,
    ecwnd: f64,
    /// The window at the start of the current event (for "did it fall").
    prev: f64,
    /// Recovery: window inflation, duplicate ACKs, in fast recovery, and
    /// the ACK that ends it.
    inflate: u64,
    dupacks: u32,
    in_fr: bool,
    recover: u64,
    /// When the window last fell, and whether an RTT has passed since.
    last_decrease: SimTime,
    can_decrease: bool,
    /// Timeouts since the last ACK.
    retransmit_cnt: u32,
    /// Smoothed RTT from the NIC timestamps (0: no sample yet): the
    /// congestion signal's clock, read by the pacer, PLB and the
    /// once-per-RTT decrease.
    rtt: SimTime,
    /// The retransmission timer's estimate, on the clock the timer runs
    /// on: from a packet's hand-off to the NIC to its ACK, the sender's
    /// NIC queue included (htsim's and Linux's samples), smoothed as
    /// htsim's update_rtt; its deviation; and the timeout.
    ///
    /// Not from the NIC timestamps: the timer is armed at hand-off, so a
    /// packet that waited at its NIC (behind an ACK of the flow's own
    /// host, or the window's burst) came back later than any sample said,
    /// and on a path whose samples never varied the deviation had decayed
    /// to nothing: the timeout was the smoothed RTT itself, and it fired
    /// before the first ACK of every block (audit 29: 257 timeouts and no
    /// drop, one 1 Gbps flow).
    tmr_rtt: SimTime,
    mdev: SimTime,
    rto: SimTime,
    /// Each packet's NIC timestamp and when it was handed to the NIC,
    /// oldest first, until an ACK echoes it or a later one
    /// ([`TcpFlow::swift_stamped`]).
    handed: VecDeque<(SimTime, SimTime)>,
    /// Gap between paced packets (0: the window is at least a packet).
    pacing_delay: SimTime,
    /// Links from the sender to the receiver (the target's hop term).
    pub hops: u32,
    /// The path's unloaded fabric delay (a full packet out, its ACK back)
    /// and the sender's line rate: what the report weighs the target
    /// against (a target below the path's own delay starves a lone flow).
    pub path_rtt: SimTime,
    pub path_rate_bps: u64,
    /// Counters: window decreases, packets sent by the pacer, and the
    /// last fabric and endpoint delays measured.
    pub decreases: u64,
    pub paced: u64,
    pub last_fabric: SimTime,
    pub last_endpoint: SimTime,
}

impl SwiftState {
    /// The window in force: the smaller of the fabric and endpoint ones.
    pub(in crate::tcp) fn window(&self) -> f64 {
        self.fcwnd.min(self.ecwnd)
    }
    /// Heap bytes of the hand-off record ([`Self::handed`]).
    pub(in crate::tcp) fn handed_bytes(&self) -> usize {
        self.handed.capacity() * std::mem::size_of::<(SimTime, SimTime)>()
    }
    /// Give back the hand-off record's memory (a finished flow's).
    pub(in crate::tcp) fn release_handed(&mut self) {
        self.handed = VecDeque::new();
    }
}

impl TcpFlow {
    /// Whether this flow runs Swift.
    #[inline]
    pub fn is_swift(&self) -> bool {
        self.swift.is_some()
    }

    /// The Swift state, for the report and tests.
    pub fn swift(&self) -> Option<&SwiftState> {
        self.swift.as_deref()
    }

    pub(in crate::tcp) fn swift_state(cfg: &TcpConfig) -> SwiftState {
        let w = cfg.swift.initial_window as f64 * cfg.mss as f64;
        SwiftState {
            fcwnd: w,
            ecwnd: w,
            prev: w,
            can_decrease: true,
            rto: SimTime::from_ms(1),
            ..SwiftState::default()
        }
    }

    /// The world tells the flow its path's length in links.
    pub fn swift_set_hops(&mut self, hops: u32) {
        if let Some(s) = self.swift.as_deref_mut() {
            s.hops = hops;
        }
    }

    /// The world tells the flow its path's unloaded fabric delay and the
    /// sender's line rate (read only by the report).
    pub fn swift_set_path(&mut self, rtt: SimTime, rate_bps: u64) {
        if let Some(s) = self.swift.as_deref_mut() {
            s.path_rtt = rtt;
            s.path_rate_bps = rate_bps;
        }
    }

    /// The fabric target at the window that fills the path at line rate,
    /// over the path's unloaded fabric delay. Below 1 even an idle path
    /// reads as congested: a lone flow's window settles where flow
    /// scaling lifts the target to the path's delay, short of line rate
    /// (docs/swift.md, "A target below the path's delay"). None before
    /// the world set the path.
    pub fn swift_target_over_path_rtt(&self) -> Option<f64> {
        let s = self.swift.as_deref()?;
        let bdp = self.swift_path_bdp()?;
        Some(self.swift_target(bdp).0 as f64 / s.path_rtt.0 as f64)
    }

    /// The window that fills the path at line rate, in the window's own
    /// bytes (payload: a window of W puts W·(mss + header)/mss on the
    /// wire); None before the world set the path.
    fn swift_path_bdp(&self) -> Option<f64> {
        let s = self.swift.as_deref()?;
        if s.path_rtt == SimTime::ZERO || s.path_rate_bps == 0 {
            return None;
        }
        let wire = s.path_rate_bps as f64 * s.path_rtt.as_secs_f64() / 8.0;
        let mss = self.cfg.mss as f64;
        Some(wire * mss / (mss + self.cfg.header_bytes as f64))
    }

    /// The path's bandwidth-delay product over `swift_max_cwnd`: above 1
    /// no window this flow may take fills its path.
    pub fn swift_bdp_over_max_cwnd(&self) -> Option<f64> {
        let cap = self.cfg.swift.max_cwnd_packets as f64 * self.cfg.mss as f64;
        Some(self.swift_path_bdp()? / cap)
    }

    /// Swift's fabric target for a window of `cwnd` bytes: base + hops × h
    /// + flow scaling, α/√(cwnd in packets) + β clamped to [0, fs_range],
    ///   with α = fs_range / (1/√fs_min_cwnd − 1/√fs_max_cwnd) and
    ///   β = −α/√fs_max_cwnd.
    pub fn swift_target(&self, cwnd: f64) -> SimTime {
        let p = &self.cfg.swift;
        let hops = self.swift.as_deref().map_or(0, |s| s.hops);
        let range = p.fs_range().0 as f64;
        let alpha = range / (1.0 / p.fs_min_cwnd.sqrt() - 1.0 / p.fs_max_cwnd.sqrt());
        let beta = -alpha / p.fs_max_cwnd.sqrt();
        let pkts = cwnd / self.cfg.mss as f64;
        let fs = if pkts > 0.0 {
            (alpha / pkts.sqrt() + beta).clamp(0.0, range)
        } else {
            0.0
        };
        p.base_target + SimTime(p.hop_scale().0 * hops as u64) + SimTime(fs.round() as u64)
    }

    /// The window in force, bytes.
    fn swift_cwnd(&self) -> f64 {
        let s = self.swift.as_deref().expect("a Swift flow");
        s.window()
    }

    /// The application wrote: send what the window allows.
    pub(in crate::tcp) fn swift_write(&mut self, io: &mut TcpIo) {
        self.swift_send_packets(io);
    }

    /// Send packet `[start, start + len)`: new data when `start` is at
    /// snd_max, else a retransmission.
    fn swift_send_at(&mut self, io: &mut TcpIo, start: u64) {
        let now = io.now();
        let len = (self.app_limit - start).min(self.cfg.mss as u64) as u32;
        let retx = start < self.snd_max;
        self.snd_max = self.snd_max.max(start + len as u64);
        let pkt = self.modern_data(io, start, len, retx, 0);
        io.send_nic_stamped(pkt);
        if !self.rto.is_armed() {
            let at = now + self.swift.as_deref().expect("a Swift flow").rto;
            self.rto.arm(io, at, TcpTimer::Rto);
        }
    }

    /// The next new packet (at snd_nxt), if the application has written one.
    fn swift_send_next(&mut self, io: &mut TcpIo) -> bool {
        if self.snd_nxt >= self.app_limit {
            return false;
        }
        let start = self.snd_nxt;
        self.swift_send_at(io, start);
        self.snd_nxt = (start + self.cfg.mss as u64).min(self.app_limit);
        true
    }

    /// htsim's send_packets: with a window of a packet or more, send while
    /// it has room; below one packet, start the pacer.
    fn swift_send_packets(&mut self, io: &mut TcpIo) {
        let s = self.swift.as_deref().expect("a Swift flow");
        let c = self.swift_cwnd() + s.inflate as f64;
        let mss = self.cfg.mss as u64;
        if c < mss as f64 {
            if !self.rx_rare.dack.is_armed() && self.snd_nxt < self.app_limit {
                let at = (self.last_send + s.pacing_delay).max(io.now());
                self.rx_rare.dack.arm(io, at, TcpTimer::DelAck);
            }
            return;
        }
        while self.snd_nxt < self.app_limit {
            let len = (self.app_limit - self.snd_nxt).min(mss);
            if (self.snd_una as f64 + c) < (self.snd_nxt + len) as f64 {
                break;
            }
            self.rx_rare.dack.cancel();
            self.swift_send_next(io);
        }
    }

    /// The pacer's wake-up: one packet, then the next wake-up if still
    /// below a packet of window.
    pub(in crate::tcp) fn swift_on_pace(&mut self, io: &mut TcpIo) {
        if self.rx_rare.dack.fire(io, TcpTimer::DelAck) != Fire::Expired {
            return;
        }
        if self.swift_send_next(io) {
            self.swift.as_deref_mut().expect("a Swift flow").paced += 1;
        }
        let d = self.swift.as_deref().expect("a Swift flow").pacing_delay;
        if d > SimTime::ZERO && self.snd_nxt < self.app_limit {
            self.rx_rare.dack.arm(io, io.now() + d, TcpTimer::DelAck);
        }
    }

    /// The world stamped a packet this flow handed to its NIC at `now`
    /// with `ts`, the time it starts to leave ([`TcpOut::SendNicStamped`]).
    pub fn swift_stamped(&mut self, now: SimTime, ts: SimTime) {
        if let Some(s) = self.swift.as_deref_mut() {
            s.handed.push_back((ts, now));
        }
    }

    /// When the packet whose NIC timestamp an ACK echoes was handed to
    /// the NIC, if the world said ([`Self::swift_stamped`]). A NIC sends in
    /// the order it is handed packets, so the stamps rise: the ones before
    /// `ts` belong to packets whose ACKs were lost or never sent.
    fn swift_handed_at(&mut self, ts: SimTime) -> Option<SimTime> {
        let s = self.swift.as_deref_mut().expect("a Swift flow");
        while let Some(&(t, at)) = s.handed.front() {
            if t > ts {
                return None;
            }
            s.handed.pop_front();
            if t == ts {
                return Some(at);
            }
        }
        None
    }

    /// The smoothed RTT from one NIC-stamped sample `delay`, and the
    /// timer's estimate and timeout from the same packet's `handed` delay
    /// (since its hand-off): htsim's update_rtt, each on its own clock.
    fn swift_rtt(&mut self, delay: SimTime, handed: SimTime) {
        let rto_min = self.cfg.swift.rto_min;
        let s = self.swift.as_deref_mut().expect("a Swift flow");
        let smooth = |avg: SimTime, x: SimTime| SimTime(7 * avg.0 / 8 + x.0 / 8);
        if delay > SimTime::ZERO {
            s.rtt = if s.rtt > SimTime::ZERO {
                smooth(s.rtt, delay)
            } else {
                delay
            };
        }
        if handed > SimTime::ZERO {
            if s.tmr_rtt > SimTime::ZERO {
                let d = handed.0.abs_diff(s.tmr_rtt.0);
                s.mdev = SimTime(3 * s.mdev.0 / 4 + d / 4);
                s.tmr_rtt = smooth(s.tmr_rtt, handed);
            } else {
                s.tmr_rtt = handed;
                s.mdev = SimTime(handed.0 / 2);
            }
            s.rto = SimTime(s.tmr_rtt.0 + 4 * s.mdev.0);
        }
        s.rto = s.rto.max(rto_min);
        self.srtt = Some(s.rtt);
    }

    /// Algorithm 1 on one ACK: both windows grow below their targets and
    /// fall (at most once per RTT) above them.
    fn swift_adjust(&mut self, now: SimTime, fabric: SimTime, endpoint: SimTime, acked: u64) {
        let target = self.swift_target(self.swift_cwnd());
        let p = self.cfg.swift;
        let mss = self.cfg.mss as f64;
        let (lo, hi) = self.swift_bounds();
        let s = self.swift.as_deref_mut().expect("a Swift flow");
        s.prev = s.window();
        s.can_decrease = now.saturating_sub(s.last_decrease) >= s.rtt;
        s.retransmit_cnt = 0;
        s.last_fabric = fabric;
        s.last_endpoint = endpoint;
        let step = |w: &mut f64, delay: SimTime, target: SimTime, can: bool| {
            if delay < target {
                *w += if *w >= mss {
                    mss * p.ai * acked as f64 / *w
                } else {
                    p.ai * acked as f64
                };
            } else if can {
                let over = (delay.0 - target.0) as f64 / delay.0 as f64;
                *w *= (1.0 - p.beta * over).max(1.0 - p.max_mdf);
            }
        };
        let can = s.can_decrease;
        step(&mut s.fcwnd, fabric, target, can);
        step(&mut s.ecwnd, endpoint, p.endpoint_target, can);
        // Algorithm 1 ends with the clamp. htsim clamps in applySwiftLimits,
        // which two of its paths skip (a duplicate ACK in fast recovery, a
        // third one before the last recovery point): there a cut below
        // min_cwnd stood until the next ACK, and fast recovery capped its
        // inflation with it.
        s.fcwnd = s.fcwnd.clamp(lo, hi);
        s.ecwnd = s.ecwnd.clamp(lo, hi);
    }

    /// The windows' bounds in bytes: min_cwnd, max_cwnd_packets segments.
    fn swift_bounds(&self) -> (f64, f64) {
        let p = &self.cfg.swift;
        (
            p.min_cwnd as f64,
            p.max_cwnd_packets as f64 * self.cfg.mss as f64,
        )
    }

    /// Bounds, the time of a decrease, the pacing gap (the end of every
    /// event that may move the window).
    fn swift_limits(&mut self, now: SimTime) {
        let (lo, hi) = self.swift_bounds();
        let mss = self.cfg.mss as f64;
        let s = self.swift.as_deref_mut().expect("a Swift flow");
        s.fcwnd = s.fcwnd.clamp(lo, hi);
        s.ecwnd = s.ecwnd.clamp(lo, hi);
        let w = s.window();
        if w < s.prev {
            s.last_decrease = now;
            s.decreases += 1;
        }
        s.prev = w;
        s.pacing_delay = if w < mss {
            SimTime((s.rtt.0 as f64 * mss / w) as u64)
        } else {
            SimTime::ZERO
        };
        self.st.cwnd = w as u64;
    }

    /// An ACK reaches the sender.
    pub(in crate::tcp) fn swift_on_ack(&mut self, io: &mut TcpIo, p: &Packet) {
        let now = io.now();
        let ack = p.seq;
        if ack < self.snd_una || ack > self.snd_max {
            return;
        }
        let total = now.saturating_sub(p.ts);
        let endpoint = SimTime(p.txn as u64 * 1000).min(total);
        let fabric = total - endpoint;
        // (a packet the world did not stamp, as in a unit test: handed to a NIC that sent it at once)
        let handed = self
            .swift_handed_at(p.ts)
            .map_or(total, |at| now.saturating_sub(at));
        self.swift_rtt(total, handed);
        let acked = ack - self.snd_una;
        self.swift_adjust(now, fabric, endpoint, acked);
        if self.cfg.plb.enabled {
            let base = self.swift_target(0.0);
            let srtt = self.swift.as_deref().map_or(SimTime::ZERO, |s| s.rtt);
            self.swift_plb(now, fabric, base, srtt);
        }
        self.last_activity = now;
        self.swift_handle_ack(io, ack);
    }

    /// htsim's handle_ack: new data, fast recovery, duplicate ACKs.
    fn swift_handle_ack(&mut self, io: &mut TcpIo, ack: u64) {
        let now = io.now();
        let mss = self.cfg.mss as u64;
        let max_mdf = self.cfg.swift.max_mdf;
        let una = self.snd_una;
        if ack == una && una >= self.snd_max {
            // Nothing in flight: an ACK the receiver sent for a duplicate
            // (reordered or resent) is no sign of a loss.
            self.swift_limits(now);
            self.swift_send_packets(io);
            return;
        }
        let s = self.swift.as_deref_mut().expect("a Swift flow");
        if ack > una {
            let rto = s.rto;
            // A partial ACK in fast recovery: the next hole goes out at once.
            let partial = s.in_fr && ack < s.recover;
            if !s.in_fr {
                s.dupacks = 0;
            } else if !partial {
                // The whole recovery window is acknowledged: one decrease.
                s.inflate = 0;
                s.dupacks = 0;
                s.in_fr = false;
                s.retransmit_cnt = 0;
                if s.can_decrease {
                    s.fcwnd *= 1.0 - max_mdf;
                }
            } else {
                s.inflate = s.inflate.saturating_sub(ack - una) + mss;
            }
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            if ack >= self.snd_max {
                self.rto.cancel();
            } else {
                self.rto.arm(io, now + rto, TcpTimer::Rto);
            }
            if partial {
                self.swift_send_at(io, ack);
            }
            self.swift_limits(now);
            self.swift_send_packets(io);
            return;
        }
        if s.in_fr {
            let cap = s.window() as u64;
            s.inflate = (s.inflate + mss).min(cap);
            self.swift_send_packets(io);
            return;
        }
        s.dupacks += 1;
        if s.dupacks != self.cfg.dupack_threshold {
            self.swift_limits(now);
            self.swift_send_packets(io);
            return;
        }
        if una < s.recover {
            // RFC 3782: not after a timeout until it has been recovered.
            return;
        }
        s.in_fr = true;
        s.recover = self.snd_nxt;
        self.stats.fast_retransmits += 1;
        self.stats.loss_log.push((now, false));
        self.swift_limits(now);
        self.swift_send_at(io, una);
    }

    /// The retransmission timer: go back to snd_una, cut the window.
    pub(in crate::tcp) fn swift_on_rto(&mut self, io: &mut TcpIo) {
        if self.rto.fire(io, TcpTimer::Rto) != Fire::Expired || self.snd_una >= self.snd_max {
            return;
        }
        let now = io.now();
        let dupacks = self.swift.as_deref().expect("a Swift flow").dupacks;
        self.count_timeout(now, dupacks);
        let p = self.cfg.swift;
        let s = self.swift.as_deref_mut().expect("a Swift flow");
        s.prev = s.window();
        s.rto = SimTime(2 * s.rto.0);
        s.in_fr = false;
        s.inflate = 0;
        s.recover = self.snd_max;
        s.dupacks = 0;
        s.retransmit_cnt += 1;
        if s.retransmit_cnt >= p.rtx_reset_threshold {
            s.fcwnd = p.min_cwnd as f64;
            s.ecwnd = p.min_cwnd as f64;
        } else if now.saturating_sub(s.last_decrease) >= s.rtt {
            s.fcwnd *= 1.0 - p.max_mdf;
        }
        self.swift_limits(now);
        let una = self.snd_una;
        self.snd_nxt = (una + self.cfg.mss as u64).min(self.app_limit);
        self.swift_send_at(io, una);
        let rto = self.swift.as_deref().expect("a Swift flow").rto;
        self.rto.arm(io, now + rto, TcpTimer::Rto);
    }

    /// A data packet reaches the receiver: a cumulative ACK goes back at
    /// once, echoing the packet's NIC timestamp. Returns the bytes
    /// in-order delivery advanced by.
    pub(in crate::tcp) fn swift_on_data(&mut self, io: &mut TcpIo, p: &Packet) -> u64 {
        // t2: the packet reaches the receiver's NIC.
        let arrived = io.now();
        let n = self.take_payload(io, p);
        self.stats.acks_sent += 1;
        // t3 − t2: this receiver answers at once; the field carries
        // whatever it held the packet for.
        let held = (io.now().0 - arrived.0) / 1000;
        io.send(Packet {
            kind: PktKind::Ack,
            flags: 0,
            nsack: 0,
            label: 0,
            flow: self.id,
            txn: held.min(u32::MAX as u64) as u32,
            src: self.dst_host,
            dst: self.src_host,
            payload: 0,
            wire: self.cfg.header_bytes + io.l2_overhead(),
            seq: self.rx.rcv_nxt,
            ts: p.ts,
            sack: [(0, 0); 3],
        });
        n
    }

    /// Every broken Swift invariant (see [`Self::invariant_violations`]).
    pub(in crate::tcp) fn swift_violations(&self, v: &mut Vec<String>) {
        let Some(s) = self.swift.as_deref() else {
            return;
        };
        let id = self.id;
        let (lo, hi) = self.swift_bounds();
        if !(lo <= s.fcwnd && s.fcwnd <= hi && lo <= s.ecwnd && s.ecwnd <= hi) {
            v.push(format!(
                "flow {id}: Swift windows {} and {} outside [{lo}, {hi}]",
                s.fcwnd, s.ecwnd
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Transport;
    use crate::sim::rng::{stream, Stream};

    const MSS: u32 = 4000;

    /// A Swift flow from host 0 to host 1 over `hops` links, with 100
    /// packets written.
    fn flow(hops: u32) -> (TcpFlow, TcpIo) {
        let cfg = TcpConfig {
            mss: MSS,
            transport: Transport::Swift,
            ..TcpConfig::default()
        };
        let mut f = TcpFlow::new(0, 0, 0, 1, cfg, stream(1, Stream::Flow, 0));
        f.swift_set_hops(hops);
        let mut io = TcpIo::new(0);
        f.app_write(&mut io, 100 * MSS as u64, None);
        (f, io)
    }

    /// Audit 29: a trace showed `init_cwnd` × mss as a Swift flow's
    /// window until its first ACK, while it sent its initial window.
    #[test]
    fn the_window_reported_before_the_first_ack_is_the_one_sent() {
        let cfg = TcpConfig {
            mss: MSS,
            transport: Transport::Swift,
            ..TcpConfig::default()
        };
        let init = cfg.swift.initial_window as u64 * MSS as u64;
        assert_ne!(init, cfg.init_cwnd_segments as u64 * MSS as u64);
        let mut f = TcpFlow::new(0, 0, 0, 1, cfg, stream(1, Stream::Flow, 0));
        assert_eq!(f.st.cwnd, init);
        let mut io = TcpIo::new(0);
        f.app_write(&mut io, 100 * MSS as u64, None);
        assert_eq!(f.snd_nxt, init, "the window sent");
        assert_eq!(f.st.cwnd, f.snd_nxt);
    }

    /// Audit 29: the timer runs from a packet's hand-off to the NIC, so
    /// its estimate counts the wait there, which the NIC timestamps (the
    /// congestion signal's clock) leave out.
    #[test]
    fn the_timer_is_estimated_from_hand_off_to_ack() {
        let (mut f, mut io) = flow(2);
        io.clear();
        let sent = f.snd_nxt / MSS as u64;
        assert!(sent >= 4);
        // all handed over at 0; the k-th starts to leave the NIC k·10 µs later
        let ser = SimTime::from_us(10);
        let path = SimTime::from_us(100);
        for k in 0..sent {
            f.swift_stamped(SimTime::ZERO, SimTime(k * ser.0));
        }
        let mut handed = Vec::new();
        for k in 0..sent {
            let ts = SimTime(k * ser.0);
            let now = ts + path;
            f.on_ack(io.at(now), &ack((k + 1) * MSS as u64, ts, SimTime::ZERO));
            io.clear();
            handed.push(now);
        }
        let s = f.swift().unwrap();
        assert_eq!(
            s.rtt, path,
            "the congestion signal's RTT, from the NIC timestamps"
        );
        let (lo, hi) = (handed[0], *handed.last().unwrap());
        assert!(
            lo < s.tmr_rtt && s.tmr_rtt < hi,
            "{:?} in ({lo:?}, {hi:?})",
            s.tmr_rtt
        );
        assert!(s.rto > s.tmr_rtt && s.rto > path + ser, "{:?}", s.rto);
        assert!(
            s.handed.is_empty(),
            "each stamp taken by the ACK echoing it"
        );
    }

    #[test]
    fn an_echo_takes_its_own_stamp_and_drops_the_older_ones() {
        let (mut f, _) = flow(2);
        let t = |us| SimTime::from_us(us);
        for k in 1..=3 {
            f.swift_stamped(t(k), t(10 + k));
        }
        // the packet stamped 11 µs lost its ACK: the echo of 12 µs passes it by
        assert_eq!(f.swift_handed_at(t(12)), Some(t(2)));
        assert_eq!(f.swift_handed_at(t(11)), None, "gone with the later echo");
        assert_eq!(f.swift_handed_at(t(13)), Some(t(3)));
        assert_eq!(f.swift_handed_at(t(13)), None, "each stamp echoed once");
    }

    /// An ACK of everything up to `ack`, of a packet sent at `sent`, that
    /// the receiver held for `held`.
    fn ack(ack: u64, sent: SimTime, held: SimTime) -> Packet {
        Packet {
            kind: PktKind::Ack,
            src: 1,
            dst: 0,
            seq: ack,
            ts: sent,
            txn: (held.0 / 1000) as u32,
            ..Packet::EMPTY
        }
    }

    fn windows(f: &TcpFlow) -> (f64, f64) {
        let s = f.swift().unwrap();
        (s.fcwnd, s.ecwnd)
    }

    #[test]
    fn the_target_grows_with_hops_and_falls_with_the_window() {
        let (f, _) = flow(6);
        let p = f.cfg.swift;
        let base = p.base_target + SimTime(6 * p.hop_scale().0);
        let pkt = MSS as f64;
        // flow scaling adds its whole range at fs_min_cwnd, nothing from fs_max_cwnd up
        let at_min = f.swift_target(p.fs_min_cwnd * pkt);
        assert!(
            at_min.0.abs_diff((base + p.fs_range()).0) <= 1,
            "{at_min} vs {base}"
        );
        assert_eq!(f.swift_target(p.fs_max_cwnd * pkt), base);
        assert_eq!(f.swift_target(1000.0 * pkt), base);
        assert!(f.swift_target(4.0 * pkt) > f.swift_target(16.0 * pkt));
        let (g, _) = flow(2);
        assert_eq!(
            f.swift_target(1000.0 * pkt).0 - g.swift_target(1000.0 * pkt).0,
            4 * p.hop_scale().0
        );
    }

    #[test]
    fn delay_under_the_target_grows_the_window_by_ai_per_window() {
        let (mut f, mut io) = flow(2);
        let w0 = f.swift_cwnd();
        // one window of ACKs, each of one packet, RTT 10 µs: + ai packets
        let n = (w0 / MSS as f64) as u64;
        for i in 1..=n {
            let now = SimTime::from_us(10 + i);
            f.on_ack(
                io.at(now),
                &ack(i * MSS as u64, SimTime::from_us(i), SimTime::ZERO),
            );
        }
        let grown = (f.swift_cwnd() - w0) / MSS as f64;
        assert!((grown - f.cfg.swift.ai).abs() < 0.1, "{grown}");
    }

    /// Swift's PLB (htsim's rule): after an ACK whose fabric delay is
    /// within the base target (base plus hops, no flow scaling), the flow
    /// moves to a new label at the first ACK more than 5–7 smoothed RTTs
    /// later without another such; a good ACK in between starts the wait
    /// again. Before any good ACK it waits a second.
    #[test]
    fn plb_moves_a_swift_flow_after_five_to_seven_rtts_over_its_base_target() {
        let mut cfg = TcpConfig {
            mss: MSS,
            transport: Transport::Swift,
            ..TcpConfig::default()
        };
        cfg.plb.enabled = true;
        let mut f = TcpFlow::new(0, 0, 0, 1, cfg, stream(1, Stream::Flow, 0));
        f.swift_set_hops(2);
        let mut io = TcpIo::new(0);
        f.app_write(&mut io, 100_000 * MSS as u64, None);
        let base = f.swift_target(0.0);
        let (good, bad) = (SimTime(base.0 / 2), SimTime(3 * base.0));
        let mut acked = 0u64;
        // (an ACK past what was sent is ignored; a paced flow sends slowly)
        let mut at = |f: &mut TcpFlow, io: &mut TcpIo, t: SimTime, delay: SimTime| {
            acked = (acked + MSS as u64).min(f.snd_max());
            f.on_ack(io.at(t), &ack(acked, t - delay, SimTime::ZERO));
        };
        // bad delays from the start: nothing moves within a second
        let mut t = SimTime::from_us(100);
        for _ in 0..50 {
            at(&mut f, &mut io, t, bad);
            t += SimTime::from_us(5);
        }
        assert_eq!(f.rehashes(), 0);
        // one good ACK, then bad ones every µs
        at(&mut f, &mut io, t, good);
        let (last_good, srtt) = (t, f.swift().unwrap().rtt);
        let mut moved = None;
        for _ in 0..10_000 {
            t += SimTime::from_us(1);
            at(&mut f, &mut io, t, bad);
            if f.rehashes() > 0 {
                moved = Some(t);
                break;
            }
        }
        let wait = moved.expect("the flow moved") - last_good;
        assert!(
            wait.0 > 5 * srtt.0 && wait.0 <= 7 * srtt.0 + SimTime::from_us(1).0,
            "{wait:?} at srtt {srtt:?}"
        );
        assert_ne!(f.label(), 0, "a new label");
        // good ACKs keep it where it is
        for _ in 0..1_000 {
            t += SimTime::from_us(1);
            at(&mut f, &mut io, t, good);
        }
        assert_eq!(f.rehashes(), 1);
    }

    #[test]
    fn delay_over_the_target_cuts_once_per_rtt_by_beta_up_to_max_mdf() {
        let (mut f, mut io) = flow(2);
        let p = f.cfg.swift;
        let w0 = f.swift_cwnd();
        let target = f.swift_target(w0);
        // an RTT of twice the target: cut by β/2
        let delay = SimTime(2 * target.0);
        f.on_ack(io.at(delay), &ack(MSS as u64, SimTime::ZERO, SimTime::ZERO));
        let w1 = f.swift_cwnd();
        assert!((w1 / w0 - (1.0 - p.beta / 2.0)).abs() < 1e-9, "{}", w1 / w0);
        // the next ACK within the same RTT does not cut again
        let t = delay + SimTime::from_us(1);
        f.on_ack(
            io.at(t),
            &ack(2 * MSS as u64, SimTime::from_us(1), SimTime::ZERO),
        );
        assert_eq!(f.swift_cwnd(), w1);
        assert_eq!(f.swift().unwrap().decreases, 1);
        // an RTT later, ten times the target: the cut stops at max_mdf
        let t = t + SimTime(10 * target.0);
        f.on_ack(
            io.at(t),
            &ack(3 * MSS as u64, t - SimTime(10 * target.0), SimTime::ZERO),
        );
        assert!((f.swift_cwnd() / w1 - (1.0 - p.max_mdf)).abs() < 1e-9);
    }

    #[test]
    fn endpoint_delay_cuts_the_endpoint_window_not_the_fabric_one() {
        let (mut f, mut io) = flow(2);
        let (fw, ew) = windows(&f);
        let held = SimTime(3 * f.cfg.swift.endpoint_target.0);
        // 10 µs of fabric, 60 µs held at the receiver
        let now = SimTime::from_us(10) + held;
        f.on_ack(io.at(now), &ack(MSS as u64, SimTime::ZERO, held));
        let (fw1, ew1) = windows(&f);
        assert!(fw1 > fw, "the fabric delay is under its target");
        assert!(ew1 < ew, "the endpoint delay is over its target");
        assert_eq!(f.swift_cwnd(), ew1);
        let s = f.swift().unwrap();
        assert_eq!((s.last_fabric, s.last_endpoint), (now - held, held));
    }

    #[test]
    fn below_one_packet_the_pacer_sends_one_per_rtt_times_mss_over_cwnd() {
        let (mut f, mut io) = flow(2);
        io.clear();
        let rtt = SimTime::from_us(100);
        {
            let s = f.swift.as_deref_mut().unwrap();
            s.rtt = rtt;
            s.fcwnd = MSS as f64 / 4.0;
        }
        // everything sent so far is acknowledged: only the pacer may send
        f.snd_una = f.snd_max;
        f.snd_nxt = f.snd_max;
        let now = SimTime::from_ms(1);
        f.swift_limits(now);
        let gap = SimTime(4 * rtt.0);
        assert_eq!(f.swift().unwrap().pacing_delay, gap);
        f.swift_send_packets(io.at(now));
        let mut t = now;
        for k in 0..5u64 {
            let wake: Vec<_> = io
                .drain()
                .filter_map(|o| match o {
                    TcpOut::Wake {
                        at,
                        timer: TcpTimer::DelAck,
                    } => Some(at),
                    _ => None,
                })
                .collect();
            assert_eq!(wake.len(), 1, "one pacer wake-up at a time");
            if k > 0 {
                assert_eq!(wake[0], t + gap);
            }
            t = wake[0];
            let before = f.stats.segments_sent;
            f.on_timer(io.at(t), TcpTimer::DelAck);
            assert_eq!(f.stats.segments_sent, before + 1, "one packet per wake-up");
        }
        assert_eq!(f.swift().unwrap().paced, 5);
    }

    /// Found by `swift_runs_obey_the_laws`: a duplicate ACK in fast
    /// recovery runs Algorithm 1 but not htsim's applySwiftLimits, so a cut
    /// at min_cwnd left the window below it until the next new ACK.
    #[test]
    fn a_cut_in_fast_recovery_stops_at_min_cwnd() {
        let (mut f, mut io) = flow(2);
        let lo = f.cfg.swift.min_cwnd as f64;
        let now = SimTime::from_ms(1);
        {
            let s = f.swift.as_deref_mut().unwrap();
            s.rtt = SimTime::from_us(10);
            s.fcwnd = lo;
            s.in_fr = true;
            s.recover = f.snd_max;
        }
        // a duplicate ACK (snd_una not moved) whose packet took 1 ms: far
        // over the fabric target, and no decrease for longer than an RTT
        let una = f.snd_una;
        f.on_ack(io.at(now), &ack(una, SimTime::ZERO, SimTime::ZERO));
        let (fw, ew) = windows(&f);
        assert_eq!(fw, lo, "cut to the floor, not under it");
        assert!(ew >= lo);
        let mut v = Vec::new();
        f.swift_violations(&mut v);
        assert!(v.is_empty(), "{v:?}");
    }
}
