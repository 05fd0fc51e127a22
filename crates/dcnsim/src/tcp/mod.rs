//! Byte-sequence TCP with variable segment sizes.
//!
//! One [`TcpFlow`] is one direction of data: a sender at `src` and a receiver
//! at `dst` exchanging data segments and pure ACKs. Connection setup is
//! instantaneous (no SYN packets), but when `handshake_rtt_sample` is on its
//! RTT sample — the unloaded path RTT — seeds SRTT as a real three-way
//! handshake would. Mechanisms: slow start and congestion avoidance with
//! byte counting (RFC 5681, RFC 3465), fast retransmit and NewReno fast
//! recovery (RFC 6582), optional SACK loss recovery (RFC 6675: NextSeg
//! rules 1–3, rule 4 with `sack_rescue`), optional Limited Transmit (RFC
//! 3042), RTO per RFC 6298 with RTOmin, initial RTO, granularity and backoff
//! capped at `max_backoff`×, RTT from timestamps (RFC 7323) or, without
//! them, Karn's algorithm, delayed ACKs (RFC 1122) echoing the earliest
//! unacknowledged timestamp (RFC 7323 §4.3), ECN (RFC 3168; the receiver's
//! echo per RFC 8257 §3.2 for DCTCP and FaST, see [`echo`]). ACKs below
//! snd_una are ignored.
//!
//! The endpoint does no I/O ([`io`]): every entry point — [`TcpFlow::app_write`],
//! [`TcpFlow::on_data`], [`TcpFlow::on_ack`], [`TcpFlow::on_timer`] — takes
//! a [`TcpIo`] that carries the current time and collects, in order, the
//! packets to send and the timer wake-ups wanted; its owner moves them on.
//! Its random stream is its own, given at construction.
//!
//! Congestion control ([`cc`]) decides how many bytes may be in flight, the
//! segment policy ([`seg`]) in what sizes they go; any pair combines.
//!
//! Kulkarni's mechanisms (SPEC §2.3): probabilistic retransmission (a
//! per-flow "retransmit thread", [`ProbRetxParams`]), Dynamic Segment
//! Resizing (a segment policy, [`seg::dsr::dsr_resize`]) and the timeout
//! taxonomy: every RTO is classified ABTT or IBTT by where it falls in the
//! application's message (block), and by how many duplicate ACKs preceded it.

pub mod cc;
pub mod echo;
pub mod io;
pub mod rack;
pub mod seg;

use crate::config::{
    LossRecovery, ProbRetxParams, ProbRetxTarget, Reordering, TcpConfig, MAX_REORDERING,
};
use crate::net::{flags, Packet, PktKind};
use crate::sim::queue::{Fire, LazyTimer};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;
use cc::{AckInfo, Cc, CcState, LossKind};
use echo::{EchoAction, EchoMode, EcnEcho};
pub use io::{TcpIo, TcpOut, TcpTimer};
use rack::{Rack, RackTimer, Undo};
use rand::Rng as _;
use seg::{SegPolicy, SegView};
use std::collections::VecDeque;

/// One transmitted, not yet cumulatively acknowledged segment. Segments are
/// retransmitted with the bounds they were first sent with, as a real stack
/// retransmits its skbs.
#[derive(Clone, Copy, Debug)]
struct Seg {
    start: u64,
    len: u32,
    sacked: bool,
    /// Retransmitted during the current SACK recovery episode.
    rexmit: bool,
    /// Last (re)transmission time (RACK).
    xmit: SimTime,
    /// Ever retransmitted.
    retx_ever: bool,
    /// Marked lost by RACK and not yet retransmitted.
    lost: bool,
}

impl Seg {
    #[inline]
    fn end(&self) -> u64 {
        self.start + self.len as u64
    }
}

/// Bytes of one scoreboard entry (limits.rs).
pub const SEG_BYTES: usize = std::mem::size_of::<Seg>();

/// Scoreboard / out-of-order capacity kept by an idle connection.
const IDLE_CAPACITY: usize = 16;

/// Congestion state names as in Linux / ns-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongState {
    Open,
    /// Fast recovery after duplicate ACKs (NewReno or SACK).
    Recovery,
    /// After a retransmission timeout, until snd_una passes `recover`.
    Loss,
}

/// Per-flow counters reported in the `flows` table.
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    /// Every loss indication, in time order: (time, true for a timeout,
    /// false for a fast retransmit). Kulkarni's model groups these across
    /// flows into loss events of the cumulative flow.
    pub loss_log: Vec<(SimTime, bool)>,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub retx_bytes: u64,
    pub timeouts: u64,
    pub timeout_period: SimTime,
    pub fast_retransmits: u64,
    pub ecn_marks: u64,
    pub ecn_cuts: u64,
    pub ooo_arrivals: u64,
    pub dup_arrivals: u64,
    pub acks_sent: u64,
    /// Anterior block-transfer timeouts: RTOs before any ACK advanced
    /// snd_una into the current message (block), i.e. the window sent at
    /// the message's start was lost (Kulkarni 2012 §3.1).
    pub abtt: u64,
    /// Intermediate block-transfer timeouts: RTOs after some of the
    /// current message was acknowledged.
    pub ibtt: u64,
    /// RTOs whose hole (the segment at snd_una) was sent in the current
    /// message's first flight, before any ACK of the message arrived: the
    /// ABTTs, plus the IBTTs of a first window lost all but its first
    /// few segments.
    pub rto_first_flight: u64,
    /// RTOs with no duplicate ACK since the last new ACK (every segment
    /// after the hole was lost too: a whole-window loss).
    pub rto_whole_window: u64,
    /// RTOs after 1 … dupack_threshold − 1 duplicate ACKs (too few for
    /// fast retransmit).
    pub rto_few_dupacks: u64,
    /// RTOs after ≥ dupack_threshold duplicate ACKs (a retransmission lost
    /// in fast recovery, or duplicate ACKs below `recover`).
    pub rto_many_dupacks: u64,
    /// Marked retransmissions sent by the probabilistic-retransmission thread.
    pub probretx_sent: u64,
    /// Extra duplicate ACKs the receiver sent for marked, new segments.
    pub probretx_dupacks: u64,
    /// Fast retransmissions whose original was delivered after all: the
    /// ACK covering the retransmitted segment echoed the original's
    /// timestamp (RFC 3522 Eifel detection).
    pub spurious_retransmits: u64,
    /// RACK-TLP tail loss probes sent.
    pub tlp_probes: u64,
    /// Reordering the sender detected (an original delivered below the
    /// highest delivered sequence, or a spurious fast retransmit).
    pub reorder_events: u64,
}

pub struct TcpFlow {
    pub id: u32,
    pub app: u32,
    pub src_host: u32,
    pub dst_host: u32,
    pub cfg: TcpConfig,
    // ---- sender ----
    cc: Cc,
    pub st: CcState,
    seg_policy: SegPolicy,
    rng: Rng,
    /// End of the byte stream the application has written so far.
    app_limit: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    segs: VecDeque<Seg>,
    pub cong: CongState,
    dupacks: u32,
    /// Duplicate ACKs (and SACKed segments) that mean loss: the configured
    /// threshold, raised by reordering when `reordering = "adaptive"`.
    pub dupthresh: u32,
    /// Undo information of the current fast recovery (Eifel detection).
    undo: Option<Undo>,
    rack: Rack,
    recover: u64,
    /// A partial ACK has already restarted the timer in this recovery (RFC 6582 "impatient").
    partial_seen: bool,
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rto_base: SimTime,
    backoff: u32,
    rto: LazyTimer,
    /// ECN: no further window reduction until snd_una passes this point.
    ecn_recover: u64,
    ecn_in_cwr: bool,
    send_cwr: bool,
    /// Time of the last transmission or forward progress (for the timeout period).
    last_activity: SimTime,
    /// Time of the last transmission.
    last_send: SimTime,
    /// RFC 6675 RescueRxt: the recovery point of the last rescue retransmission.
    rescue_rxt: Option<u64>,
    /// Without timestamps: the segment being timed (its end, when sent).
    rtt_timing: Option<(u64, SimTime)>,
    /// New data segments sent (retransmissions excluded).
    segs_sent: u64,
    /// Start offsets of the application's messages (blocks) not yet
    /// passed by snd_una; the front is the message snd_una is in.
    msg_starts: VecDeque<u64>,
    /// The message whose first ACK has arrived, and snd_max at that
    /// moment: the end of the message's first flight.
    first_flight: Option<(u64, u64)>,
    /// Probabilistic retransmission: the thread's next run that retransmits.
    prx: LazyTimer,
    /// Whether the pending run of the thread is a success of the coin (or
    /// only the end of a bounded batch of failed tosses).
    prx_hit: bool,
    /// The thread is suspended (duplicate ACKs reached the threshold).
    prx_suspended: bool,
    // ---- receiver ----
    rcv_nxt: u64,
    /// Out-of-order ranges above rcv_nxt, sorted, disjoint; with recency stamps for SACK.
    ooo: Vec<(u64, u64, u64)>,
    ooo_stamp: u64,
    unacked_segs: u32,
    dack: LazyTimer,
    ts_recent: SimTime,
    /// rcv_nxt carried by the last ACK sent (RFC 7323 Last.ACK.sent).
    last_ack_sent: u64,
    echo: EcnEcho,
    /// Message boundaries the application waits for at the receiver.
    msg_ends: VecDeque<(u64, u32)>,
    /// Messages the application has written (each ends in a tagged byte).
    msgs_written: u64,
    pub stats: FlowStats,
    /// Time the first byte was written / the last byte delivered.
    pub start_time: Option<SimTime>,
    pub last_delivery: SimTime,
}

impl TcpFlow {
    pub fn new(id: u32, app: u32, src_host: u32, dst_host: u32, cfg: TcpConfig, rng: Rng) -> Self {
        let mut cfg = cfg;
        // DCTCP and FaST are built on ECN: they always negotiate it.
        cfg.ecn |= cfg.cc.needs_ecn();
        let smss = SegPolicy::initial_smss(&cfg);
        TcpFlow {
            id,
            app,
            src_host,
            dst_host,
            cc: Cc::new(&cfg),
            st: CcState {
                cwnd: cfg.init_cwnd_segments as u64 * smss,
                ssthresh: cfg
                    .init_ssthresh_segments
                    .map_or(u64::MAX, |s| s as u64 * smss),
                smss,
                ca_acked: 0,
            },
            seg_policy: SegPolicy::new(&cfg),
            rng,
            app_limit: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            segs: VecDeque::new(),
            cong: CongState::Open,
            dupacks: 0,
            dupthresh: cfg.dupack_threshold,
            undo: None,
            rack: Rack::default(),
            recover: 0,
            partial_seen: false,
            srtt: None,
            rttvar: SimTime::ZERO,
            rto_base: cfg.rto_init,
            backoff: 1,
            rto: LazyTimer::default(),
            ecn_recover: 0,
            ecn_in_cwr: false,
            send_cwr: false,
            last_activity: SimTime::ZERO,
            last_send: SimTime::ZERO,
            rescue_rxt: None,
            rtt_timing: None,
            segs_sent: 0,
            msg_starts: VecDeque::new(),
            first_flight: None,
            prx: LazyTimer::default(),
            prx_hit: false,
            prx_suspended: false,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_stamp: 0,
            unacked_segs: 0,
            dack: LazyTimer::default(),
            ts_recent: SimTime::ZERO,
            last_ack_sent: 0,
            echo: EcnEcho::new(EchoMode::for_flow(cfg.cc, cfg.ecn)),
            msg_ends: VecDeque::new(),
            msgs_written: 0,
            stats: FlowStats::default(),
            start_time: None,
            last_delivery: SimTime::ZERO,
            cfg,
        }
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
    pub fn seg_name(&self) -> &'static str {
        self.seg_policy.name()
    }
    /// Bytes the application has written.
    pub fn app_bytes(&self) -> u64 {
        self.app_limit
    }
    /// Bytes delivered in order to the receiving application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }
    /// Messages the application has written.
    pub fn msgs_written(&self) -> u64 {
        self.msgs_written
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    /// The congestion control (its private state: α, W_max, …).
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// Bytes the sender may have in flight now (congestion and receiver window).
    pub fn send_window(&self) -> u64 {
        self.window()
    }
    /// New data segments sent so far (retransmissions excluded).
    pub fn segs_sent(&self) -> u64 {
        self.segs_sent
    }

    /// Seed SRTT with the handshake's RTT sample (RFC 6298 (2.2)).
    pub fn handshake_sample(&mut self, rtt: SimTime) {
        if self.cfg.handshake_rtt_sample {
            self.rtt_sample(rtt);
        }
    }

    // ------------------------------------------------------------ application

    /// The application writes `bytes` more; when `msg_tag` is given the
    /// receiver reports the message's last byte via [`Self::pop_delivered_msg`].
    pub fn app_write(&mut self, io: &mut TcpIo, bytes: u64, msg_tag: Option<u32>) {
        if self.start_time.is_none() {
            self.start_time = Some(io.now());
        }
        if msg_tag.is_some() {
            // A message (block) starts here: the timeout taxonomy's reference point.
            self.msg_starts.push_back(self.app_limit);
        }
        self.app_limit += bytes;
        if let Some(tag) = msg_tag {
            self.msg_ends.push_back((self.app_limit, tag));
            self.msgs_written += 1;
        }
        self.try_send(io);
        self.prx_update(io);
        self.tlp_arm(io);
    }

    /// Stop offering new data (a duration-limited bulk flow ends).
    pub fn app_close(&mut self) {
        self.app_limit = self.snd_max;
    }

    /// Give back the memory of the transmission and reassembly queues of a
    /// finished flow (a Poisson workload opens thousands of flows; only
    /// their counters need to live on).
    /// Heap bytes of this flow's buffers: scoreboard, out-of-order ranges
    /// and message boundaries (limits.rs sums them, with `stats.loss_log`,
    /// to guard `limits.memory` during a run).
    pub fn buffer_bytes(&self) -> usize {
        use std::mem::size_of;
        self.segs.capacity() * size_of::<Seg>()
            + self.ooo.capacity() * size_of::<(u64, u64, u64)>()
            + self.msg_starts.capacity() * size_of::<u64>()
            + self.msg_ends.capacity() * size_of::<(u64, u32)>()
    }

    pub fn release_buffers(&mut self) {
        self.segs = VecDeque::new();
        self.ooo = Vec::new();
        self.msg_starts = VecDeque::new();
        self.msg_ends = VecDeque::new();
    }

    /// A message whose last byte has been delivered, if any.
    pub fn pop_delivered_msg(&mut self) -> Option<u32> {
        match self.msg_ends.front() {
            Some(&(end, tag)) if end <= self.rcv_nxt => {
                self.msg_ends.pop_front();
                Some(tag)
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------- sending

    #[inline]
    fn window(&self) -> u64 {
        self.cc.send_window(&self.st).min(self.cfg.rwnd_bytes)
    }

    /// What the segment policy sees when sizing the next new segment.
    #[inline]
    fn seg_view(&self, available: u64) -> SegView {
        let h = self.cc.hints(&self.st);
        SegView {
            cwnd: self.st.cwnd,
            ssthresh: self.st.ssthresh,
            smss: self.st.smss,
            available,
            segs_sent: self.segs_sent,
            vwnd: h.vwnd,
            w_max: h.w_max,
            epoch_start_cwnd: h.epoch_start_cwnd,
        }
    }

    /// Record and transmit a new segment of `len` bytes at snd_max.
    fn send_new(&mut self, io: &mut TcpIo, len: u32) {
        if self.snd_una == self.snd_max && self.segs_sent > 0 {
            // Leaving idle: let the CC discount the idle time (CUBIC).
            let now = io.now();
            let idle = now.saturating_sub(self.last_send);
            self.cc.on_tx_start(now, idle);
        }
        let start = self.snd_max;
        self.segs.push_back(Seg {
            start,
            len,
            sacked: false,
            rexmit: false,
            xmit: io.now(),
            retx_ever: false,
            lost: false,
        });
        self.snd_max += len as u64;
        self.snd_nxt = self.snd_max;
        self.segs_sent += 1;
        self.seg_policy.consumed();
        if !self.cfg.timestamps && self.rtt_timing.is_none() {
            self.rtt_timing = Some((self.snd_max, io.now()));
        }
        self.transmit(io, start, len, false);
    }

    /// One reverse pass over the scoreboard (RFC 6675 §4): returns "pipe"
    /// and the index of the first segment that IsLost() and was not yet
    /// retransmitted (NextSeg rule 1). Outside SACK recovery pipe is simply
    /// the bytes between snd_una and snd_nxt.
    fn scoreboard(&self) -> (u64, Option<usize>) {
        if !self.cfg.sack || self.cong != CongState::Recovery {
            return (self.snd_nxt.max(self.snd_una) - self.snd_una, None);
        }
        let thresh = self.dupthresh;
        let byte_thresh = (thresh as u64).saturating_sub(1) * self.st.smss;
        let rack = self.cfg.recovery == LossRecovery::Rack;
        let (mut n_above, mut bytes_above, mut pipe) = (0u32, 0u64, 0u64);
        let mut first_lost = None;
        for (i, s) in self.segs.iter().enumerate().rev() {
            if s.sacked {
                n_above += 1;
                bytes_above += s.len as u64;
                continue;
            }
            if rack {
                // RACK: lost is what RACK marked (time-based); a
                // retransmission clears the mark, so a segment in flight
                // (original or copy) counts once, and one whose copy RACK
                // also judged lost counts nothing and goes out again.
                if s.lost {
                    first_lost = Some(i);
                } else {
                    pipe += s.len as u64;
                }
                continue;
            }
            let lost = n_above >= thresh || bytes_above > byte_thresh;
            if !lost {
                pipe += s.len as u64;
            } else if !s.rexmit {
                first_lost = Some(i);
            }
            if s.rexmit {
                pipe += s.len as u64;
            }
        }
        (pipe, first_lost)
    }

    /// RFC 6675 IsLost() for the first unacknowledged segment.
    fn head_is_lost(&self) -> bool {
        let thresh = self.dupthresh;
        let byte_thresh = (thresh as u64).saturating_sub(1) * self.st.smss;
        let (mut n, mut bytes) = (0u32, 0u64);
        for s in self.segs.iter().skip(1).filter(|s| s.sacked) {
            n += 1;
            bytes += s.len as u64;
        }
        n >= thresh || bytes > byte_thresh
    }

    fn seg_index(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end() <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    /// Send whatever the window allows.
    pub fn try_send(&mut self, io: &mut TcpIo) {
        if self.cfg.sack && self.cong == CongState::Recovery {
            self.sack_send(io);
            return;
        }
        loop {
            let wnd = self.window();
            let inflight = self.snd_nxt - self.snd_una;
            if self.snd_nxt < self.snd_max {
                // Go-back-N after a timeout: resend the recorded segments in order.
                let i = self.seg_index(self.snd_nxt).expect("segment at snd_nxt");
                let s = self.segs[i];
                if s.sacked {
                    // SACKed before the timeout: the receiver holds it.
                    self.snd_nxt = s.end();
                    continue;
                }
                if inflight > 0 && inflight + s.len as u64 > wnd {
                    return;
                }
                self.snd_nxt = s.end();
                self.transmit(io, s.start, s.len, true);
                continue;
            }
            let available = self.app_limit - self.snd_max;
            if available == 0 {
                return;
            }
            let view = self.seg_view(available);
            let len = self.seg_policy.next_payload(&view, &mut self.rng);
            // A segment goes out only when it fits (no SWS), but an empty
            // pipe always sends one so a window below one segment cannot stall.
            if inflight > 0 && inflight + len as u64 > wnd {
                return;
            }
            self.send_new(io, len);
        }
    }

    /// RFC 6675 §5 step (C): send while cwnd − pipe ≥ 1 segment.
    fn sack_send(&mut self, io: &mut TcpIo) {
        loop {
            let (pipe, lost) = self.scoreboard();
            let wnd = self.window();
            // NextSeg (1): the first lost segment not yet retransmitted.
            if let Some(i) = lost {
                let s = self.segs[i];
                if pipe + s.len as u64 > wnd {
                    return;
                }
                self.segs[i].rexmit = true;
                self.transmit(io, s.start, s.len, true);
                continue;
            }
            // NextSeg (2): new data.
            let available = self.app_limit - self.snd_max;
            if available == 0 {
                // No new data: rules (3) and (4) keep a response's tail
                // from waiting for the RTO.
                let (i, rescue) = match self.next_seg_rule3() {
                    Some(i) => (i, false),
                    None => match self.next_seg_rescue() {
                        Some(i) => (i, true),
                        None => return,
                    },
                };
                let s = self.segs[i];
                if pipe + s.len as u64 > wnd {
                    return;
                }
                if rescue {
                    // HighRxt is not updated: the rescue stays out of pipe.
                    self.rescue_rxt = Some(self.recover);
                } else {
                    self.segs[i].rexmit = true;
                }
                self.transmit(io, s.start, s.len, true);
                continue;
            }
            let view = self.seg_view(available);
            let len = self.seg_policy.next_payload(&view, &mut self.rng);
            // pipe leaves out SACKed bytes, but the receive window is
            // counted from snd_una: new data must also end within it.
            let beyond_rwnd = self.snd_max + len as u64 > self.snd_una + self.cfg.rwnd_bytes;
            if pipe + len as u64 > wnd || beyond_rwnd {
                return;
            }
            self.send_new(io, len);
        }
    }

    /// RFC 6675 NextSeg (3): the first unSACKed segment above HighRxt (the
    /// highest retransmission) and below the highest SACKed byte, lost or
    /// not by IsLost().
    fn next_seg_rule3(&self) -> Option<usize> {
        let high_sacked = self.segs.iter().rev().find(|s| s.sacked)?.end();
        let from = self
            .segs
            .iter()
            .rposition(|s| s.rexmit)
            .map_or(0, |i| i + 1);
        (from..self.segs.len()).find(|&i| !self.segs[i].sacked && self.segs[i].start < high_sacked)
    }

    /// RFC 6675 NextSeg (4), with `sack_rescue`: once per recovery (while
    /// HighACK has not passed RescueRxt) the highest unSACKed segment.
    fn next_seg_rescue(&self) -> Option<usize> {
        if !self.cfg.sack_rescue || self.rescue_rxt.is_some_and(|r| self.snd_una <= r) {
            return None;
        }
        self.segs.iter().rposition(|s| !s.sacked)
    }

    /// RFC 3042 Limited Transmit, on the first and second duplicate ACK:
    /// one new segment if the flight stays within cwnd + 2·SMSS and the
    /// receiver's window; cwnd itself does not change.
    fn limited_transmit(&mut self, io: &mut TcpIo) {
        let available = self.app_limit - self.snd_max;
        if available == 0 || self.snd_nxt < self.snd_max {
            return;
        }
        let view = self.seg_view(available);
        let len = self.seg_policy.next_payload(&view, &mut self.rng) as u64;
        let after = self.snd_max - self.snd_una + len;
        if after <= self.st.cwnd + 2 * self.st.smss && after <= self.cfg.rwnd_bytes {
            self.send_new(io, len as u32);
        }
    }

    /// The RTT sample an ACK advancing snd_una to `ack` gives: with
    /// timestamps, from the echo (valid for retransmissions too, RFC 7323);
    /// without, only when it covers the timed segment (Karn: a
    /// retransmission below its end has cancelled the timing).
    fn ack_rtt_sample(&mut self, ack: u64, echoed: SimTime, now: SimTime) -> Option<SimTime> {
        if self.cfg.timestamps {
            return Some(now.saturating_sub(echoed));
        }
        match self.rtt_timing {
            Some((end, sent)) if ack >= end => {
                self.rtt_timing = None;
                Some(now.saturating_sub(sent))
            }
            _ => None,
        }
    }

    fn transmit(&mut self, io: &mut TcpIo, start: u64, len: u32, retx: bool) {
        self.transmit_flags(io, start, len, retx, 0);
    }

    /// Transmit with extra header flags (`flags::MARKED` for the
    /// probabilistic-retransmission thread).
    fn transmit_flags(&mut self, io: &mut TcpIo, start: u64, len: u32, retx: bool, extra: u8) {
        let now = io.now();
        let mut f = extra;
        if self.cfg.ecn {
            f |= flags::ECT;
            if self.send_cwr && !retx {
                f |= flags::CWR;
                self.send_cwr = false;
            }
        }
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
            self.stats.retx_bytes += len as u64;
            if let Some(i) = self.seg_index(start) {
                let s = &mut self.segs[i];
                s.xmit = now;
                s.retx_ever = true;
                s.lost = false;
            }
            if self.rtt_timing.is_some_and(|(end, _)| start < end) {
                self.rtt_timing = None; // Karn: its ACK would be ambiguous
            }
        }
        if extra & flags::MARKED == 0 {
            // A marked copy does not restart the timer: the flow still
            // waits on it, so the timeout period runs on.
            self.last_activity = now;
        }
        self.last_send = now;
        let pkt = Packet {
            kind: PktKind::Data,
            flags: f,
            nsack: 0,
            flow: self.id,
            txn: self.stats.segments_sent as u32,
            src: self.src_host,
            dst: self.dst_host,
            payload: len,
            wire: len + self.cfg.header_bytes + io.l2_overhead(),
            seq: start,
            ts: now,
            sack: [(0, 0); 3],
        };
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        io.send(pkt);
        // RFC 6298 (5.1): start the timer if it is not running.
        if !self.rto.is_armed() {
            self.arm_rto(io);
        }
    }

    fn retransmit_head(&mut self, io: &mut TcpIo) {
        if let Some(&s) = self.segs.front() {
            self.transmit(io, s.start, s.len, true);
        }
    }

    // ------------------------------------------------------------------ RTO

    fn current_rto(&self) -> SimTime {
        let r = self.rto_base.saturating_mul(self.backoff as u64);
        r.min(self.cfg.rto_max.max(self.rto_base))
    }

    fn arm_rto(&mut self, io: &mut TcpIo) {
        let at = io.now() + self.current_rto();
        self.rto.arm(io, at, TcpTimer::Rto);
    }

    /// RFC 6298 (2.2)/(2.3).
    fn rtt_sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap();
        let var = self.cfg.granularity.max(SimTime(4 * self.rttvar.0));
        // (2.4): RTOmin applies; (2.5): an upper bound applies.
        self.rto_base = (srtt + var).max(self.cfg.rto_min).min(self.cfg.rto_max);
    }

    /// A wake-up the owner was asked for ([`TcpOut::Wake`]) is due: `io`'s
    /// clock must read its time. Stale wake-ups (the timer was re-armed
    /// later or cancelled) are recognised and ignored or rescheduled.
    pub fn on_timer(&mut self, io: &mut TcpIo, timer: TcpTimer) {
        match timer {
            TcpTimer::Rto => self.on_rto_event(io),
            TcpTimer::DelAck => self.on_delack_event(io),
            TcpTimer::ProbRetx => self.on_prx_event(io),
            TcpTimer::Rack => self.on_rack_event(io),
        }
    }

    /// The retransmission timer's event.
    fn on_rto_event(&mut self, io: &mut TcpIo) {
        match self.rto.fire(io, TcpTimer::Rto) {
            Fire::Expired => self.on_timeout(io),
            Fire::Ignore | Fire::Rescheduled => {}
        }
    }

    fn on_timeout(&mut self, io: &mut TcpIo) {
        if self.snd_una >= self.snd_max {
            return;
        }
        let now = io.now();
        self.stats.timeouts += 1;
        self.stats.loss_log.push((now, true));
        self.stats.timeout_period += now.saturating_sub(self.last_activity);
        self.classify_timeout();
        let flight = self.snd_max - self.snd_una;
        // RFC 5681 §3.1: ssthresh is held when the same data times out again.
        if self.cong != CongState::Loss || self.backoff == 1 {
            self.st.ssthresh = self.cc.ssthresh(&self.st, flight, LossKind::Rto, now);
        }
        self.st.cwnd = self.st.smss; // loss window, RFC 5681 eq. (5)
        self.st.ca_acked = 0;
        self.cong = CongState::Loss;
        self.recover = self.snd_max; // RFC 6582 §3.2 step 1 after a timeout
        self.dupacks = 0;
        self.snd_nxt = self.snd_una;
        // SACKed marks stay (our receivers never renege, RFC 2018 §8's
        // reason to clear them); the go-back-N resend skips those segments.
        for s in self.segs.iter_mut() {
            s.rexmit = false;
            s.lost = false;
        }
        self.undo = None;
        self.rack.tlp_end = None;
        self.rack.timer.cancel();
        // RFC 6298 (5.5): back off, capped.
        self.backoff = (self.backoff * 2).min(self.cfg.max_backoff.max(1));
        self.arm_rto(io);
        // The timer has taken over loss recovery: the thread runs again.
        self.prx_suspended = false;
        self.try_send(io);
        self.prx_update(io);
    }

    /// Start of the application message (block) snd_una is in: the
    /// largest message start ≤ snd_una (0 for a flow without messages).
    fn block_start(&self) -> u64 {
        let mut start = 0;
        for &s in &self.msg_starts {
            if s > self.snd_una {
                break;
            }
            start = s;
        }
        start
    }

    /// Timeout taxonomy (SPEC §2.3, Kulkarni 2012 §3.1): ABTT when no ACK
    /// has advanced snd_una into the current block (the window sent at the
    /// block's start was lost), IBTT otherwise; and whether any duplicate
    /// ACKs arrived since the last new ACK.
    fn classify_timeout(&mut self) {
        let bs = self.block_start();
        if self.snd_una == bs {
            self.stats.abtt += 1;
            self.stats.rto_first_flight += 1;
        } else {
            self.stats.ibtt += 1;
            if matches!(self.first_flight, Some((b, end)) if b == bs && self.snd_una < end) {
                self.stats.rto_first_flight += 1;
            }
        }
        match self.dupacks {
            0 => self.stats.rto_whole_window += 1,
            d if d < self.cfg.dupack_threshold => self.stats.rto_few_dupacks += 1,
            _ => self.stats.rto_many_dupacks += 1,
        }
    }

    // ------------------------------------------------ probabilistic retransmission

    /// Keep the retransmit thread (Kulkarni 2012 Algorithm 1) running
    /// exactly while it is enabled, not suspended and data is outstanding.
    ///
    /// The thread tosses a coin of probability p once per period. The
    /// tosses are independent, so instead of an event per period the
    /// sender tosses ahead (from the flow's own random stream) and
    /// schedules only the run that succeeds — at most 2¹⁶ periods ahead;
    /// a batch without success ends in a run that only tosses again.
    /// Stopping and restarting the thread starts a fresh sequence of
    /// tosses, which by memorylessness is the same process.
    #[inline]
    fn prx_update(&mut self, io: &mut TcpIo) {
        if self.cfg.probretx.p <= 0.0 {
            return;
        }
        let run = !self.prx_suspended && self.snd_una < self.snd_max;
        if run && !self.prx.is_armed() {
            self.prx_schedule(io);
        } else if !run && self.prx.is_armed() {
            self.prx.cancel();
        }
    }

    fn prx_schedule(&mut self, io: &mut TcpIo) {
        const BATCH: u64 = 1 << 16;
        let ProbRetxParams { p, period, .. } = self.cfg.probretx;
        let mut k = 1;
        self.prx_hit = true;
        while !self.rng.gen_bool(p) {
            if k == BATCH {
                self.prx_hit = false;
                break;
            }
            k += 1;
        }
        let at = io.now() + period.saturating_mul(k);
        self.prx.arm(io, at, TcpTimer::ProbRetx);
    }

    /// The retransmit thread's run (Algorithm 1): retransmit the target
    /// segment with the mark set, then schedule the next successful run.
    fn on_prx_event(&mut self, io: &mut TcpIo) {
        if self.prx.fire(io, TcpTimer::ProbRetx) != Fire::Expired {
            return;
        }
        if self.prx_hit && !self.prx_suspended && self.snd_una < self.snd_max {
            let seg = match self.cfg.probretx.target {
                ProbRetxTarget::Highest => self.segs.iter().rev().find(|s| !s.sacked),
                ProbRetxTarget::Lowest => self.segs.front(),
            };
            if let Some(&s) = seg {
                self.stats.probretx_sent += 1;
                self.transmit_flags(io, s.start, s.len, true, flags::MARKED);
            }
        }
        self.prx_update(io);
    }

    // ---------------------------------------------------------- ACK arrival

    pub fn on_ack(&mut self, io: &mut TcpIo, p: &Packet) {
        let now = io.now();
        let ack = p.seq;
        let prior_una = self.snd_una;
        // Beyond what was sent, or below snd_una (an old, reordered ACK: its
        // ECE and SACK blocks are stale and must not cut the window again).
        if ack > self.snd_max || ack < self.snd_una {
            return;
        }
        let ece = p.flags & flags::ECE != 0;
        if self.cfg.sack && p.nsack > 0 {
            let blocks = p.sack;
            self.mark_sacked(&blocks[..p.nsack as usize], now);
        }
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            let flight = self.snd_max - self.snd_una;
            // RFC 7323: RTT from the echoed timestamp of an ACK that advances
            // snd_una; without timestamps Karn's algorithm, which also keeps
            // the backed-off RTO until a valid sample (RFC 6298 (5.7)).
            let rtt = self.ack_rtt_sample(ack, p.ts, now);
            if let Some(r) = rtt {
                self.rtt_sample(r);
                self.backoff = 1;
            }
            self.snd_una = ack;
            while self.msg_starts.len() >= 2 && self.msg_starts[1] <= ack {
                self.msg_starts.pop_front();
            }
            let bs = self.block_start();
            if ack > bs && self.first_flight.is_none_or(|(b, _)| b != bs) {
                // The first ACK into this message: its first flight ends at snd_max.
                self.first_flight = Some((bs, self.snd_max));
            }
            let track = self.tracks_delivery();
            let mut degree = 0;
            while let Some(s) = self.segs.front() {
                if s.end() <= ack {
                    if track && !s.sacked {
                        let d = self
                            .rack
                            .on_delivered(s.start, s.end(), s.xmit, s.retx_ever, now);
                        degree = degree.max(d);
                    }
                    self.segs.pop_front();
                } else {
                    if s.start < ack {
                        let s = self.segs.front_mut().unwrap();
                        s.len -= (ack - s.start) as u32;
                        s.start = ack;
                    }
                    break;
                }
            }
            self.on_reorder_degree(degree);
            if self.rack.tlp_end.is_some_and(|e| ack >= e) {
                self.rack.tlp_end = None;
            }
            if let Some(u) = self.undo {
                if ack > u.seq {
                    self.undo = None;
                    // Eifel needs the timestamp option on the wire.
                    if self.cfg.timestamps && p.ts < u.retx_ts {
                        self.on_spurious_retransmit(u);
                    }
                }
            }
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            self.last_activity = now;
            let info = AckInfo {
                now,
                acked,
                ece,
                rtt,
                srtt: self.srtt,
                snd_una: ack,
                snd_max: self.snd_max,
                flight,
                segs_sent: self.segs_sent,
            };
            // Every ACK, in every state: per-window accounting (DCTCP's α).
            self.cc.on_ack_ecn(&self.st, &info);
            // The ECN response comes first; the ACK that triggers a cut
            // does not also grow the window (RFC 3168 §6.1.2).
            let cut = self.ecn_response(&info);
            match self.cong {
                CongState::Recovery => self.recovery_ack(io, &info),
                CongState::Loss => {
                    if ack >= self.recover {
                        self.cong = CongState::Open;
                    }
                    self.dupacks = 0;
                    self.cc.on_ack(&mut self.st, &info);
                }
                CongState::Open => {
                    self.dupacks = 0;
                    if !cut {
                        self.cc.on_ack(&mut self.st, &info);
                    }
                }
            }
            if self.cong != CongState::Recovery {
                // DSR (or another policy) may grow the segment size; the
                // byte window stays as it is.
                self.seg_policy.resize(&mut self.st);
                // Out of fast recovery (or none began): the retransmit thread resumes.
                self.prx_suspended = false;
            }
            // RFC 6298 (5.2)/(5.3).
            if self.snd_una >= self.snd_max {
                self.rto.cancel();
                // Everything is acknowledged: give back a large scoreboard.
                // A finished flow would otherwise hold its peak window's
                // worth of entries to the end of the run, and memory would
                // grow with every flow ever started instead of with the
                // flows active at once (the soak benchmark's churn).
                if self.segs.capacity() > IDLE_CAPACITY {
                    self.segs.shrink_to(IDLE_CAPACITY);
                }
            } else if self.cong != CongState::Recovery || !self.partial_seen {
                self.arm_rto(io);
            }
        } else if ack == self.snd_una && self.snd_una < self.snd_max && p.payload == 0 {
            self.on_dupack(io, now);
        } else if ece {
            let info = AckInfo {
                now,
                acked: 0,
                ece,
                rtt: None,
                srtt: self.srtt,
                snd_una: self.snd_una,
                snd_max: self.snd_max,
                flight: self.snd_max - self.snd_una,
                segs_sent: self.segs_sent,
            };
            self.ecn_response(&info);
        }
        if self.rack_on() && self.cong != CongState::Loss {
            self.rack_detect(io);
        }
        self.try_send(io);
        self.prx_update(io);
        if ack > prior_una {
            self.tlp_arm(io);
        }
    }

    /// RFC 3168 §6.1.2: reduce once per window on ECE; tell the receiver
    /// with CWR. The CC chooses the new window (half the flight for Reno,
    /// flight·β for CUBIC, cwnd·(1 − α/2) for DCTCP and FaST); it never
    /// grows on a congestion signal. Returns whether the window was cut.
    fn ecn_response(&mut self, a: &AckInfo) -> bool {
        if !self.cfg.ecn {
            return false;
        }
        // Leave CWR on an ACK at or beyond the recovery point (SPEC §2
        // pitfall: not only beyond it).
        if self.ecn_in_cwr && a.snd_una >= self.ecn_recover {
            self.ecn_in_cwr = false;
        }
        // With classic ECN the receiver latches ECE until it sees CWR: while
        // our CWR has not gone out yet (no new data since the cut), an ECE
        // still echoes the event we already answered. DCTCP's echo is per
        // segment, so every ECE there is fresh.
        let stale_echo = self.send_cwr && !self.cfg.cc.needs_ecn();
        if a.ece && !self.ecn_in_cwr && !stale_echo && self.cong == CongState::Open {
            self.st.ssthresh = self.cc.ssthresh(&self.st, a.flight, LossKind::Ecn, a.now);
            self.st.cwnd = self.st.cwnd.min(self.st.ssthresh);
            self.st.ca_acked = 0;
            self.ecn_in_cwr = true;
            self.ecn_recover = self.snd_max;
            self.send_cwr = true;
            self.stats.ecn_cuts += 1;
            return true;
        }
        false
    }

    fn on_dupack(&mut self, io: &mut TcpIo, now: SimTime) {
        self.dupacks += 1;
        if self.dupacks >= self.cfg.dupack_threshold {
            // Algorithm 3: suspend the retransmit thread, fast retransmit.
            self.prx_suspended = true;
        }
        match self.cong {
            CongState::Recovery => {
                if !self.cfg.sack {
                    self.st.cwnd += self.st.smss; // RFC 6582 §3.2 step 3: inflate
                }
            }
            CongState::Open | CongState::Loss => {
                if self.cfg.limited_transmit
                    && self.cong == CongState::Open
                    && self.dupacks < self.dupthresh
                    && self.dupacks <= 2
                {
                    self.limited_transmit(io);
                }
                if self.rack_on() {
                    return; // RACK decides by time (rack_detect), not by count
                }
                let sack_says_lost = self.cfg.sack && self.head_is_lost();
                // RFC 6582 §3.2 step 2: only when the ACK covers more than `recover`.
                let fresh = self.snd_una >= self.recover;
                if (self.dupacks >= self.dupthresh || sack_says_lost) && fresh {
                    self.enter_recovery(io, now);
                }
            }
        }
    }

    fn enter_recovery(&mut self, io: &mut TcpIo, now: SimTime) {
        let flight = self.snd_max - self.snd_una;
        let first = if self.rack_on() {
            self.segs.iter().find(|s| s.lost).map(|s| s.start)
        } else {
            self.segs.front().map(|s| s.start)
        };
        self.undo = first.map(|seq| Undo {
            seq,
            retx_ts: now,
            cwnd: self.st.cwnd,
            ssthresh: self.st.ssthresh,
        });
        self.rack.tlp_end = None;
        self.st.ssthresh = self.cc.ssthresh(&self.st, flight, LossKind::DupAck, now);
        self.recover = self.snd_max;
        self.cong = CongState::Recovery;
        self.partial_seen = false;
        self.stats.fast_retransmits += 1;
        self.stats.loss_log.push((io.now(), false));
        if self.rack_on() {
            self.st.cwnd = self.st.ssthresh;
            // RFC 6675 §5 (4.3): the first segment presumed lost goes out
            // now, whatever the window; the rest via NextSeg (sack_send).
            // Leaving it to NextSeg sent nothing when pipe exceeded the new
            // cwnd, so an episode could end (the "lost" segment was only
            // late) having counted a fast retransmit that never happened
            // (found by tests/properties.rs: retransmits < fast retransmits).
            if let Some(i) = self.segs.iter().position(|s| s.lost) {
                let (start, len) = (self.segs[i].start, self.segs[i].len);
                self.segs[i].rexmit = true;
                self.transmit(io, start, len, true);
            }
        } else if self.cfg.sack {
            // RFC 6675 §5 step (4): cwnd = ssthresh, retransmit via NextSeg.
            self.st.cwnd = self.st.ssthresh;
            if let Some(s) = self.segs.front_mut() {
                s.rexmit = true;
                let (start, len) = (s.start, s.len);
                self.transmit(io, start, len, true);
            }
        } else {
            self.retransmit_head(io);
            self.st.cwnd = self.st.ssthresh + 3 * self.st.smss;
        }
        self.st.ca_acked = 0;
    }

    fn recovery_ack(&mut self, io: &mut TcpIo, a: &AckInfo) {
        if a.snd_una >= self.recover {
            // Full ACK: deflate (RFC 6582 §3.2 step 5, option 1).
            let flight = self.snd_max - self.snd_una;
            self.st.cwnd = self
                .st
                .ssthresh
                .min(flight.max(self.st.smss) + self.st.smss);
            if self.cfg.sack {
                self.st.cwnd = self.st.ssthresh;
                for s in self.segs.iter_mut() {
                    s.rexmit = false;
                }
            }
            self.cong = CongState::Open;
            self.dupacks = 0;
            self.rack.on_recovery_end();
            return;
        }
        if self.cfg.sack {
            return; // RFC 6675: partial ACKs only update the scoreboard
        }
        // Partial ACK: retransmit the next hole, deflate by the amount acked.
        self.retransmit_head(io);
        self.st.cwnd = self.st.cwnd.saturating_sub(a.acked);
        if a.acked >= self.st.smss {
            self.st.cwnd += self.st.smss;
        }
        self.st.cwnd = self.st.cwnd.max(self.st.smss);
        if !self.partial_seen {
            self.partial_seen = true;
            self.arm_rto(io);
        }
    }

    fn mark_sacked(&mut self, blocks: &[(u64, u64)], now: SimTime) {
        let track = self.tracks_delivery();
        let mut degree = 0;
        for &(l, r) in blocks {
            if r <= self.snd_una {
                continue;
            }
            let i0 = self.segs.partition_point(|s| s.end() <= l);
            for s in self.segs.iter_mut().skip(i0) {
                if s.start >= r {
                    break;
                }
                if s.start >= l && s.end() <= r {
                    if track && !s.sacked {
                        let d = self
                            .rack
                            .on_delivered(s.start, s.end(), s.xmit, s.retx_ever, now);
                        degree = degree.max(d);
                    }
                    s.sacked = true;
                }
            }
        }
        self.on_reorder_degree(degree);
    }

    // ------------------------------------------------- reordering and RACK-TLP

    /// Whether delivered segments feed RACK's state (RACK, or the adaptive
    /// threshold's SACK-based reordering detection).
    #[inline]
    fn tracks_delivery(&self) -> bool {
        self.cfg.recovery == LossRecovery::Rack || self.cfg.reordering == Reordering::Adaptive
    }

    #[inline]
    fn rack_on(&self) -> bool {
        self.cfg.recovery == LossRecovery::Rack
    }

    /// An original transmission was delivered `degree` bytes below the
    /// highest delivered sequence: Linux's reordering degree. The adaptive
    /// threshold rises to cover it before it causes a spurious retransmit.
    fn on_reorder_degree(&mut self, degree: u64) {
        if degree == 0 {
            return;
        }
        self.stats.reorder_events += 1;
        if self.cfg.reordering == Reordering::Adaptive {
            let segs = degree.div_ceil(self.st.smss.max(1)) as u32;
            self.dupthresh = self
                .dupthresh
                .max(segs.saturating_add(1))
                .min(MAX_REORDERING);
        }
    }

    /// The ACK covering a fast-retransmitted segment echoed the original's
    /// timestamp: the retransmission was spurious (RFC 3522).
    fn on_spurious_retransmit(&mut self, u: Undo) {
        self.stats.spurious_retransmits += 1;
        self.stats.reorder_events += 1;
        if self.rack_on() {
            self.rack.on_spurious();
        }
        if self.cfg.reordering != Reordering::Adaptive {
            return;
        }
        // Every duplicate ACK since the last new ACK was a later segment
        // overtaking the original.
        self.dupthresh = self
            .dupthresh
            .max(self.dupacks.saturating_add(1))
            .min(MAX_REORDERING);
        if self.cong == CongState::Recovery {
            // Undo the reduction (RFC 4015 style: restore the window).
            self.st.cwnd = u.cwnd;
            self.st.ssthresh = u.ssthresh;
            self.st.ca_acked = 0;
            self.cong = CongState::Open;
            self.recover = self.snd_una;
            self.dupacks = 0;
            for s in self.segs.iter_mut() {
                s.rexmit = false;
            }
        }
    }

    /// RFC 8985 §6.2 step 5: mark lost every segment sent before the most
    /// recently delivered one whose reordering window has passed; arm the
    /// reordering timer for the others; start recovery on a loss.
    fn rack_detect(&mut self, io: &mut TcpIo) {
        let now = io.now();
        let srtt = self.srtt.unwrap_or(self.cfg.rto_init);
        let sacked = self.segs.iter().filter(|s| s.sacked).count() as u32;
        let reo = self.rack.reo_wnd(
            self.cong == CongState::Recovery,
            sacked,
            self.cfg.dupack_threshold,
            srtt,
        );
        let (mut any, mut wait) = (false, None::<SimTime>);
        for s in self.segs.iter_mut() {
            if s.sacked || s.lost {
                continue;
            }
            match self.rack.remaining(s.xmit, s.end(), reo, now) {
                None => {}
                Some(SimTime::ZERO) => {
                    s.lost = true;
                    any = true;
                }
                Some(r) => wait = Some(wait.map_or(r, |w| w.max(r))),
            }
        }
        if let Some(w) = wait {
            self.rack.timer.arm(io, now + w, TcpTimer::Rack);
            self.rack.timer_kind = RackTimer::Reorder;
        }
        if any && self.cong == CongState::Open {
            self.enter_recovery(io, now);
        }
    }

    /// RFC 8985 §7.2: arm the probe timeout while the flow is open with
    /// data in flight and no probe or reordering wait pending.
    fn tlp_arm(&mut self, io: &mut TcpIo) {
        if !self.rack_on()
            || self.cong != CongState::Open
            || self.snd_una >= self.snd_max
            || self.rack.tlp_end.is_some()
            || (self.rack.timer.is_armed() && self.rack.timer_kind == RackTimer::Reorder)
        {
            return;
        }
        let now = io.now();
        let mut pto = self
            .srtt
            .map_or(SimTime::from_secs(1), |s| SimTime(2 * s.0));
        if self.snd_max - self.snd_una <= self.st.smss && self.cfg.delayed_ack {
            // One segment out: its ACK may be delayed (WCDelAckT).
            pto += self.cfg.delayed_ack_timeout;
        }
        if let Some(d) = self.rto.deadline() {
            pto = pto.min(d.saturating_sub(now));
        }
        self.rack.timer.arm(io, now + pto, TcpTimer::Rack);
        self.rack.timer_kind = RackTimer::Probe;
    }

    /// The RACK timer: a reordering window ended, or the probe timeout.
    fn on_rack_event(&mut self, io: &mut TcpIo) {
        if self.rack.timer.fire(io, TcpTimer::Rack) != Fire::Expired {
            return;
        }
        self.rack.timer.cancel();
        match self.rack.timer_kind {
            RackTimer::Reorder => {
                if self.cong != CongState::Loss {
                    self.rack_detect(io);
                }
            }
            RackTimer::Probe => self.send_probe(io),
        }
        self.try_send(io);
        self.tlp_arm(io);
    }

    /// RFC 8985 §7.3: one new segment if the receive window allows it,
    /// else the last segment again; then the RTO runs afresh.
    fn send_probe(&mut self, io: &mut TcpIo) {
        if self.cong != CongState::Open || self.snd_una >= self.snd_max {
            return;
        }
        let available = self.app_limit - self.snd_max;
        let inflight = self.snd_max - self.snd_una;
        let view = self.seg_view(available);
        let new_len = if available > 0 {
            self.seg_policy.next_payload(&view, &mut self.rng)
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
        self.rack.tlp_end = Some(self.snd_max);
        self.arm_rto(io);
    }

    // ------------------------------------------------------------- receiver

    /// A data segment arrives at the receiver. Returns how many bytes
    /// in-order delivery advanced by: what the receiving application is
    /// handed now (and, when > 0, it may have messages to collect).
    pub fn on_data(&mut self, io: &mut TcpIo, p: &Packet) -> u64 {
        let start = p.seq;
        let end = p.seq + p.payload as u64;
        let ce = p.flags & flags::CE != 0;
        if ce {
            self.stats.ecn_marks += 1;
        }
        let mut ack_now = false;
        if let EchoAction::StateChanged { prior_ece } =
            self.echo.on_segment(ce, p.flags & flags::CWR != 0)
        {
            // RFC 8257 §3.2: a delayed ACK must not merge segments with
            // different CE; flush it with the prior state, ACK this one now.
            if self.unacked_segs > 0 {
                let ts = self.ts_recent;
                self.send_ack_ece(io, ts, prior_ece);
            }
            ack_now = true;
        }
        let marked = p.flags & flags::MARKED != 0;
        if end <= self.rcv_nxt {
            // A duplicate: a marked one gets the normal ACK only (Algorithm 2).
            self.stats.dup_arrivals += 1;
            self.send_ack(io, p.ts);
            return 0;
        }
        if start > self.rcv_nxt {
            self.stats.ooo_arrivals += 1;
            let marked_new = marked && !self.ooo.iter().any(|&(l, r, _)| l <= start && end <= r);
            self.insert_ooo(start, end);
            self.send_ack(io, self.ts_recent);
            if marked_new {
                self.probretx_extra_acks(io, self.ts_recent);
            }
            return 0;
        }
        let had_hole = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        // RFC 7323 §4.3: TS.Recent only from a segment at or below the last
        // ACK sent, so a delayed ACK echoes its earliest segment's timestamp.
        if start <= self.last_ack_sent {
            self.ts_recent = p.ts;
        }
        let ts = self.ts_recent;
        // Pull in any out-of-order ranges that are now contiguous.
        let mut i = 0;
        while i < self.ooo.len() {
            let (l, r, _) = self.ooo[i];
            if l <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(r);
                self.ooo.remove(i);
            } else {
                i += 1;
            }
        }
        if self.ooo.is_empty() && self.ooo.capacity() > IDLE_CAPACITY {
            self.ooo.shrink_to(IDLE_CAPACITY); // the holes are filled: as above
        }
        self.last_delivery = io.now();
        if marked {
            // Algorithm 2: the normal ACK (at once), then three duplicates of it.
            self.send_ack(io, ts);
            self.probretx_extra_acks(io, ts);
        } else if had_hole || !self.cfg.delayed_ack || ack_now {
            self.send_ack(io, ts);
        } else {
            self.unacked_segs += 1;
            if self.unacked_segs >= self.cfg.delayed_ack_segments {
                self.send_ack(io, ts);
            } else if !self.dack.is_armed() {
                let at = io.now() + self.cfg.delayed_ack_timeout;
                self.dack.arm(io, at, TcpTimer::DelAck);
            }
        }
        self.rcv_nxt - before
    }

    /// Kulkarni's Algorithm 2: after the ACK of a marked segment not seen
    /// before, three more ACKs — duplicates the sender counts towards fast
    /// retransmit.
    fn probretx_extra_acks(&mut self, io: &mut TcpIo, ts: SimTime) {
        for _ in 0..3 {
            self.send_ack(io, ts);
        }
        self.stats.probretx_dupacks += 3;
    }

    fn insert_ooo(&mut self, l: u64, r: u64) {
        self.ooo_stamp += 1;
        let stamp = self.ooo_stamp;
        let i = self.ooo.partition_point(|&(_, rr, _)| rr < l);
        let mut nl = l;
        let mut nr = r;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= nr {
            nl = nl.min(self.ooo[j].0);
            nr = nr.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((nl, nr, stamp)));
    }

    fn on_delack_event(&mut self, io: &mut TcpIo) {
        if self.dack.fire(io, TcpTimer::DelAck) == Fire::Expired && self.unacked_segs > 0 {
            let ts = self.ts_recent;
            self.send_ack(io, ts);
        }
    }

    fn send_ack(&mut self, io: &mut TcpIo, ts: SimTime) {
        let ece = self.echo.ece();
        self.send_ack_ece(io, ts, ece);
    }

    fn send_ack_ece(&mut self, io: &mut TcpIo, ts: SimTime, ece: bool) {
        self.unacked_segs = 0;
        self.last_ack_sent = self.rcv_nxt;
        self.dack.cancel();
        let mut f = 0;
        if ece {
            f |= flags::ECE;
        }
        let mut pkt = Packet {
            kind: PktKind::Ack,
            flags: f,
            nsack: 0,
            flow: self.id,
            txn: 0,
            src: self.dst_host,
            dst: self.src_host,
            payload: 0,
            wire: self.cfg.header_bytes + io.l2_overhead(),
            seq: self.rcv_nxt,
            ts,
            sack: [(0, 0); 3],
        };
        if self.cfg.sack && !self.ooo.is_empty() {
            // RFC 2018: the most recently changed block first, then others.
            // Stamps are distinct, so picking the three newest in turn gives
            // the order a sort would, without copying the list per ACK.
            let mut below = u64::MAX;
            for k in 0..3 {
                let Some(b) = self.ooo.iter().filter(|b| b.2 < below).max_by_key(|b| b.2) else {
                    break;
                };
                pkt.sack[k] = (b.0, b.1);
                pkt.nsack += 1;
                below = b.2;
            }
        }
        self.stats.acks_sent += 1;
        io.send(pkt);
    }

    // ------------------------------------------------------------ invariants

    /// Entries the connection keeps allocated for its scoreboard and its
    /// out-of-order list (capacity, not length): what an idle or finished
    /// flow costs in memory beyond its fixed size.
    pub fn retained_entries(&self) -> usize {
        self.segs.capacity() + self.ooo.capacity()
    }

    /// Every broken internal invariant of the connection, as text (empty
    /// when sound). The property tests call this between events: together
    /// these say the receiver holds each byte at most once and hands the
    /// application a gap-free prefix, and the sender's scoreboard tiles
    /// exactly the unacknowledged bytes.
    pub fn invariant_violations(&self) -> Vec<String> {
        let mut v = Vec::new();
        let id = self.id;
        if !(self.snd_una <= self.snd_nxt && self.snd_nxt <= self.snd_max) {
            v.push(format!(
                "flow {id}: snd_una {} ≤ snd_nxt {} ≤ snd_max {} broken",
                self.snd_una, self.snd_nxt, self.snd_max
            ));
        }
        if self.snd_max > self.app_limit {
            v.push(format!(
                "flow {id}: sent up to {} beyond what the app wrote ({})",
                self.snd_max, self.app_limit
            ));
        }
        // The scoreboard tiles [snd_una, snd_max) with no gap or overlap.
        let mut at = self.snd_una;
        for s in &self.segs {
            if s.start != at || s.len == 0 {
                v.push(format!(
                    "flow {id}: scoreboard segment [{}, {}) does not continue at {at}",
                    s.start,
                    s.end()
                ));
                break;
            }
            at = s.end();
        }
        if at != self.snd_max {
            v.push(format!(
                "flow {id}: scoreboard ends at {at}, snd_max is {}",
                self.snd_max
            ));
        }
        // The receiver never has more than was sent, and the sender never
        // saw an ACK for more than the receiver has.
        if self.rcv_nxt > self.snd_max {
            v.push(format!(
                "flow {id}: receiver delivered {} > sent {}",
                self.rcv_nxt, self.snd_max
            ));
        }
        if self.snd_una > self.rcv_nxt {
            v.push(format!(
                "flow {id}: snd_una {} ahead of the receiver's rcv_nxt {}",
                self.snd_una, self.rcv_nxt
            ));
        }
        // Out-of-order ranges: sorted, disjoint, non-adjacent, strictly
        // above the delivered prefix and within what was sent.
        let mut prev = self.rcv_nxt;
        for (k, &(l, r, _)) in self.ooo.iter().enumerate() {
            if l <= prev || r <= l || r > self.snd_max {
                v.push(format!(
                    "flow {id}: out-of-order range {k} [{l}, {r}) after {prev} (snd_max {})",
                    self.snd_max
                ));
                break;
            }
            prev = r;
        }
        if self
            .msg_ends
            .iter()
            .zip(self.msg_ends.iter().skip(1))
            .any(|(a, b)| b.0 < a.0)
        {
            v.push(format!("flow {id}: message ends out of order"));
        }
        v
    }
}

#[cfg(test)]
mod tests;
