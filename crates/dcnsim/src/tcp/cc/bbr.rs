//! BBR v1 as Linux runs it (net/ipv4/tcp_bbr.c, mainline 6.x), with the
//! delivery-rate sampler it is driven by (net/ipv4/tcp_rate.c) and the
//! sender's own pacing (Linux paces a BBR socket itself, `tcp_internal_pacing`,
//! when no fq qdisc does: each segment's earliest departure time is the last
//! one's plus its length at the pacing rate).
//!
//! The model, as the kernel's: a windowed-max filter of delivery-rate samples
//! over 10 round trips gives the bottleneck bandwidth (BtlBw), a 10-second
//! min filter of RTT samples the propagation delay (RTprop); the pacing rate
//! is gain × BtlBw (less a 1 % margin), cwnd gain × BtlBw × RTprop plus an
//! allowance for ACK aggregation and three TSO bursts ("quantization"). The
//! state machine: STARTUP (gains 2/ln 2) until the bandwidth grows by less
//! than 25 % in three rounds, DRAIN (pacing 1/2.885) until what is in flight
//! fits one BDP, then PROBE_BW's eight phases (pacing 1.25, 0.75, six of 1;
//! cwnd gain 2), and PROBE_RTT (cwnd 4 packets for 200 ms and a round) when
//! RTprop has not been refreshed for 10 s. Loss does not lower the model:
//! cwnd is held to packet conservation during the first round of a
//! recovery and restored when it ends; after a timeout it grows back from
//! one segment. Long-term ("policer") mode: two sampling intervals of ≥ 4
//! rounds with ≥ 20 % loss and bandwidths within 1/8 of each other make BBR
//! pace at their mean for 48 rounds.
//!
//! Units: Linux counts packets; dcnsim's sender counts bytes. The
//! sampler counts delivered and lost bytes, the model counts packets of
//! `smss` bytes where the kernel does (the cwnd floor of 4, TSO bursts,
//! the PROBE_RTT target), and the sender's cwnd is `packets × smss`.
//! Rates are bytes (payload) per second.

use super::{CcHints, CcState, CongestionControl, LossKind};
use crate::sim::time::SimTime;
use crate::tcp::jiffies::jiffy;
use std::collections::VecDeque;

/// Gains in 1/256 (`BBR_UNIT`), as the kernel's.
const UNIT: u64 = 256;
/// 2/ln 2, the smallest gain that doubles the sending rate per round.
const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1;
const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
const CWND_GAIN: u64 = UNIT * 2;
const PACING_GAIN: [u64; 8] = [
    UNIT * 5 / 4,
    UNIT * 3 / 4,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
];
/// PROBE_BW starts at a random phase other than the draining one.
const CYCLE_RAND: u64 = 7;
const CWND_MIN_TARGET: u64 = 4;
/// The bandwidth filter's window, in rounds (`bbr_bw_rtts`).
const BW_RTTS: u64 = 10;
const MIN_RTT_WIN_SECS: u64 = 10;
const PROBE_RTT_MODE_MS: u64 = 200;
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = UNIT / 8;
/// 4 kbit/s, in bytes per second.
const LT_BW_DIFF: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
const EXTRA_ACKED_MAX: SimTime = SimTime::from_ms(100);
const PACING_MARGIN_PERCENT: f64 = 1.0;
/// Below this pacing rate (bits/s) a TSO burst is one segment.
const MIN_TSO_RATE: f64 = 1_200_000.0;
/// `sk_pacing_shift`: a TSO burst is about 1/1024 s at the pacing rate.
const PACING_SHIFT: f64 = 1024.0;
/// The largest GSO packet's payload a burst is capped at (65536 less headers).
const GSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
/// Linux paces from the tenth data segment on (`data_segs_out >= 10`).
const UNPACED_SEGS: u64 = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The sender's loss state as BBR reads it (Linux's icsk_ca_state: Open,
/// Disorder and CWR are all below Recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// Bytes of one sending record (limits.rs: a BBR flow's window costs this
/// beside each scoreboard entry).
pub const TX_REC_BYTES: usize = std::mem::size_of::<TxRec>();
/// Bytes of a BBR flow's boxed state (limits.rs).
pub const STATE_BYTES: usize = std::mem::size_of::<Bbr>();

/// One segment's sending record (tcp_rate_skb_sent), kept beside the
/// sender's scoreboard entry of the same index.
#[derive(Clone, Copy, Debug)]
pub struct TxRec {
    delivered: u64,
    delivered_mstamp: SimTime,
    first_tx: SimTime,
    app_limited: bool,
    /// Counted as delivered already (SACKed): its cumulative ACK adds
    /// nothing (the kernel zeroes its delivered_mstamp).
    done: bool,
}

/// Kathleen Nichols' windowed max (lib/minmax.c): the best, second-best
/// and third-best samples of the window, each with its round.
#[derive(Clone, Copy, Debug, Default)]
struct WinMax {
    s: [(u64, f64); 3],
}

impl WinMax {
    fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }
    fn get(&self) -> f64 {
        self.s[0].1
    }
    fn running_max(&mut self, win: u64, t: u64, v: f64) {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        let dt = t - self.s[0].0;
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
    }
}

/// The rate sample one ACK builds (struct rate_sample).
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    prior_delivered: Option<u64>,
    prior_mstamp: SimTime,
    is_app_limited: bool,
    last_end: u64,
    /// The send phase, then the sample's interval (None: invalid).
    interval: Option<SimTime>,
    /// Newest RTT among the newly delivered segments sent once.
    rtt: Option<SimTime>,
    acked_sacked: u64,
}

/// What one ACK hands BBR besides its sample.
#[derive(Clone, Copy, Debug)]
pub struct AckView {
    pub now: SimTime,
    /// Bytes in flight after the ACK (tcp_packets_in_flight).
    pub inflight: u64,
    /// Bytes in flight before it (rs->prior_in_flight).
    pub prior_inflight: u64,
    pub state: CaState,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    hz: u32,
    /// The random stream's next draw for the PROBE_BW phase (the flow's
    /// own, seeded at construction).
    rand: u64,
    init_done: bool,
    mode: Mode,
    pacing_gain: u64,
    cwnd_gain: u64,
    bw: WinMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// RTprop, and the jiffy it was taken.
    min_rtt: Option<SimTime>,
    min_rtt_stamp: u64,
    probe_rtt_done_stamp: Option<u64>,
    probe_rtt_round_done: bool,
    idle_restart: bool,
    packet_conservation: bool,
    prev_state: CaState,
    /// Packets.
    prior_cwnd: u64,
    full_bw_reached: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    cycle_idx: usize,
    cycle_mstamp: SimTime,
    has_seen_rtt: bool,
    lt_is_sampling: bool,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_rtt_cnt: u32,
    lt_last_stamp_ms: u64,
    lt_last_delivered: u64,
    lt_last_lost: u64,
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    ack_epoch_mstamp: SimTime,
    ack_epoch_acked: u64,
    /// Bytes per second.
    pacing_rate: f64,
    // ---- the sampler (tcp_rate.c)
    /// Bytes delivered (cumulatively ACKed or SACKed) since the start.
    delivered: u64,
    delivered_mstamp: SimTime,
    first_tx_mstamp: SimTime,
    /// Non-zero while application-limited: the delivered count that ends it.
    app_limited: u64,
    /// Bytes deemed lost since the start (tp->lost).
    lost: u64,
    /// `lost` when the current ACK began (its freshly lost bytes).
    lost_at_ack: u64,
    /// The connection's least RTT sample (tcp_min_rtt).
    tp_min_rtt: Option<SimTime>,
    /// Without SACK: bytes the duplicate ACKs counted delivered ahead of
    /// the cumulative ACK (Linux's sacked_out under Reno emulation).
    reno_sacked: u64,
    tx: VecDeque<TxRec>,
    rs: Sample,
    /// The last rate sample's bytes/s (tcpi_delivery_rate).
    delivery_rate: f64,
    // ---- pacing
    /// Earliest departure time of the next segment (tcp_wstamp_ns).
    wstamp: SimTime,
    segs_out: u64,
    /// Recovery's retransmissions the pacing gate held back, oldest
    /// first: the kernel's retransmit queue stops at tcp_pacing_check and
    /// goes on when the pacing timer fires (tcp_tsq_write).
    held: VecDeque<HeldRetx>,
    /// Held retransmissions never sent: their segment was acknowledged,
    /// SACKed or resent first, their recovery ended, or a timeout's resend
    /// took over. A loss indication (`fast_retransmits`) can so end with
    /// no retransmission behind it, as in the kernel, whose TCPFastRetrans
    /// counts only what left.
    cancelled: u64,
}

/// A retransmission recovery asked for while pacing held the sender back:
/// the segment starting at `seq`, asked at `at`, with its action's marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldRetx {
    pub seq: u64,
    pub at: SimTime,
    pub mark: bool,
    pub rearm: bool,
}

impl Bbr {
    pub fn new(hz: u32, seed: u64) -> Self {
        Bbr {
            hz,
            rand: seed,
            init_done: false,
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw: WinMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            packet_conservation: false,
            prev_state: CaState::Open,
            prior_cwnd: 0,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            cycle_idx: 0,
            cycle_mstamp: SimTime::ZERO,
            has_seen_rtt: false,
            lt_is_sampling: false,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_rtt_cnt: 0,
            lt_last_stamp_ms: 0,
            lt_last_delivered: 0,
            lt_last_lost: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            ack_epoch_mstamp: SimTime::ZERO,
            ack_epoch_acked: 0,
            pacing_rate: 0.0,
            delivered: 0,
            delivered_mstamp: SimTime::ZERO,
            first_tx_mstamp: SimTime::ZERO,
            app_limited: 0,
            lost: 0,
            lost_at_ack: 0,
            tp_min_rtt: None,
            reno_sacked: 0,
            tx: VecDeque::new(),
            rs: Sample::default(),
            delivery_rate: 0.0,
            wstamp: SimTime::ZERO,
            segs_out: 0,
            held: VecDeque::new(),
            cancelled: 0,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// BtlBw, bytes per second (the long-term rate while policed).
    pub fn bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.bw.get()
        }
    }
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }
    pub fn delivery_rate(&self) -> f64 {
        self.delivery_rate
    }
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// Sending records kept (one per scoreboard entry).
    pub fn records(&self) -> usize {
        self.tx.len()
    }
    /// The PROBE_BW phase (0: probing at 1.25, 1: draining at 0.75).
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    fn jiffies(&self, t: SimTime) -> u64 {
        t.ps() / jiffy(self.hz).ps()
    }

    fn next_rand(&mut self) -> u64 {
        // splitmix64: the flow's own stream, so the same seed gives the
        // same phases on any number of threads.
        self.rand = self.rand.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rand;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// bbr_init, at the first transmission: RTprop from the handshake's
    /// RTT when there was one, the first pacing rate from cwnd / SRTT.
    pub fn init(&mut self, now: SimTime, srtt: Option<SimTime>, cwnd_pkts: u64, smss: u64) {
        self.init_done = true;
        self.min_rtt = self.tp_min_rtt;
        self.min_rtt_stamp = self.jiffies(now);
        self.ack_epoch_mstamp = now;
        self.init_pacing_rate_from_rtt(srtt, cwnd_pkts, smss);
    }
    pub fn initialised(&self) -> bool {
        self.init_done
    }

    fn init_pacing_rate_from_rtt(&mut self, srtt: Option<SimTime>, cwnd_pkts: u64, smss: u64) {
        let rtt = match srtt {
            Some(r) => {
                self.has_seen_rtt = true;
                r.max(SimTime::from_us(1))
            }
            None => SimTime::from_ms(1),
        };
        let bw = (cwnd_pkts * smss) as f64 / rtt.secs_scaled();
        self.pacing_rate = Self::rate(bw, HIGH_GAIN);
    }

    /// An RTT sample outside BBR's own (the handshake's): tcp_min_rtt.
    pub fn note_rtt(&mut self, rtt: SimTime) {
        self.tp_min_rtt = Some(self.tp_min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// bbr_rate_bytes_per_sec: gain × bw, less the pacing margin.
    fn rate(bw: f64, gain: u64) -> f64 {
        bw * gain as f64 / UNIT as f64 * (100.0 - PACING_MARGIN_PERCENT) / 100.0
    }

    // ------------------------------------------------------------ sampler

    /// tcp_rate_skb_sent for a segment about to leave (new or resent):
    /// the record its delivery will be measured from. `nothing_out`: no
    /// segment is outstanding (the sample then starts now).
    pub fn skb_sent(&mut self, now: SimTime, nothing_out: bool) -> TxRec {
        if nothing_out {
            self.first_tx_mstamp = now;
            self.delivered_mstamp = now;
        }
        TxRec {
            delivered: self.delivered,
            delivered_mstamp: self.delivered_mstamp,
            first_tx: self.first_tx_mstamp,
            app_limited: self.app_limited != 0,
            done: false,
        }
    }
    /// A retransmission waits for the pacing timer, behind any held before.
    pub fn hold_retx(&mut self, h: HeldRetx) {
        self.held.push_back(h);
    }
    /// The oldest held retransmission, taken.
    pub fn next_held(&mut self) -> Option<HeldRetx> {
        self.held.pop_front()
    }
    /// The oldest held retransmission goes back to the front (pacing held
    /// the sender again before it could leave).
    pub fn unpop_held(&mut self, h: HeldRetx) {
        self.held.push_front(h);
    }
    pub fn holds_retx(&self) -> bool {
        !self.held.is_empty()
    }
    /// A held retransmission that will not be sent.
    pub fn cancel_held(&mut self) {
        self.cancelled += 1;
    }
    /// A timeout takes over: what recovery held is forgotten (the go-back-N
    /// resend covers it).
    pub fn drop_held(&mut self) {
        self.cancelled += self.held.len() as u64;
        self.held.clear();
    }
    /// Retransmissions recovery asked for that have not left: those held
    /// now and those cancelled unsent.
    pub fn unsent_retx(&self) -> u64 {
        self.held.len() as u64 + self.cancelled
    }
    pub fn push_tx(&mut self, rec: TxRec) {
        self.tx.push_back(rec);
    }
    /// The record of scoreboard entry `i` when it is resent (something is
    /// outstanding: the entry itself).
    pub fn resent(&mut self, i: usize, now: SimTime) {
        let rec = self.skb_sent(now, false);
        if let Some(r) = self.tx.get_mut(i) {
            *r = rec;
        }
    }

    /// tcp_rate_skb_delivered for scoreboard entry `i` (sent last at
    /// `xmit`, ending at `end`, `len` bytes, resent or not), newly SACKed
    /// (`sacked`) or cumulatively acknowledged.
    #[allow(clippy::too_many_arguments)]
    pub fn skb_delivered(
        &mut self,
        i: usize,
        xmit: SimTime,
        end: u64,
        len: u64,
        retx_ever: bool,
        sacked: bool,
        now: SimTime,
    ) {
        let Some(rec) = self.tx.get_mut(i) else {
            return;
        };
        if rec.done {
            return;
        }
        if sacked {
            rec.done = true;
        }
        let rec = *rec;
        self.delivered += len;
        self.rs.acked_sacked += len;
        if !retx_ever {
            let rtt = now.saturating_sub(xmit);
            self.rs.rtt = Some(self.rs.rtt.map_or(rtt, |r| r.min(rtt)));
        }
        let after =
            xmit > self.first_tx_mstamp || (xmit == self.first_tx_mstamp && end > self.rs.last_end);
        if self.rs.prior_delivered.is_none() || after {
            self.rs.prior_delivered = Some(rec.delivered);
            self.rs.prior_mstamp = rec.delivered_mstamp;
            self.rs.is_app_limited = rec.app_limited;
            self.rs.last_end = end;
            self.first_tx_mstamp = xmit;
            self.rs.interval = Some(xmit.saturating_sub(rec.first_tx));
        }
    }

    /// The scoreboard's front entry left (cumulatively acknowledged).
    pub fn pop_tx(&mut self) {
        self.tx.pop_front();
    }

    /// The flow's random stream for PROBE_BW's first phase.
    pub fn set_seed(&mut self, seed: u64) {
        self.rand = seed;
    }

    /// A duplicate ACK without SACK: a segment left the network
    /// (tcp_add_reno_sack), at most what is outstanding.
    pub fn reno_dupack(&mut self, smss: u64, outstanding: u64) {
        if self.reno_sacked + smss <= outstanding {
            self.reno_sacked += smss;
            self.delivered += smss;
            self.rs.acked_sacked += smss;
        }
    }

    /// A cumulative ACK of `acked` bytes without SACK, `outstanding` bytes
    /// left after it: the duplicate ACKs before it counted part of it
    /// already; the segment that filled the hole is new (tcp_remove_reno_sacks
    /// counts one packet). Credit beyond what is still outstanding (a
    /// duplicate ACK for a short segment counted a whole one) is taken back,
    /// so nothing is counted delivered twice.
    pub fn reno_cum_ack(&mut self, acked: u64, smss: u64, outstanding: u64) {
        if self.reno_sacked == 0 || acked == 0 {
            return;
        }
        let over = self.reno_sacked.min(acked.saturating_sub(smss));
        let excess = (self.reno_sacked - over).saturating_sub(outstanding);
        let back = over + excess;
        self.delivered -= back;
        self.rs.acked_sacked -= back.min(self.rs.acked_sacked);
        self.reno_sacked -= back;
    }

    /// What the ACK being processed took out of the network so far:
    /// delivered and newly lost bytes (prior_in_flight less in flight).
    pub fn ack_left_network(&self) -> u64 {
        self.rs.acked_sacked + (self.lost - self.lost_at_ack)
    }

    /// Bytes the sender deemed lost (RACK's marks, a recovery's
    /// retransmissions, a timeout's outstanding data).
    pub fn mark_lost(&mut self, bytes: u64) {
        self.lost += bytes;
    }

    /// tcp_rate_check_app_limited, when the application writes: less than
    /// a segment unsent, cwnd not full, nothing lost waiting.
    pub fn check_app_limited(
        &mut self,
        unsent: u64,
        smss: u64,
        inflight: u64,
        cwnd: u64,
        open: bool,
    ) {
        if unsent < smss && inflight < cwnd && open {
            self.app_limited = (self.delivered + inflight).max(1);
        }
    }

    // ------------------------------------------------------------ pacing

    /// Whether the next segment must wait, and until when.
    #[inline]
    pub fn hold_until(&self, now: SimTime) -> Option<SimTime> {
        (self.wstamp > now).then_some(self.wstamp)
    }

    /// A data segment of `len` payload bytes leaves at `now`
    /// (tcp_update_skb_after_send): the next may leave `len` at the pacing
    /// rate later, less up to half of that for time the sender sat idle.
    pub fn on_send(&mut self, now: SimTime, len: u64) {
        let prior = self.wstamp;
        self.wstamp = self.wstamp.max(now);
        self.segs_out += 1;
        if self.segs_out >= UNPACED_SEGS && self.pacing_rate > 0.0 {
            let len_ps = (len as f64 / self.pacing_rate * 1e12) as u64;
            let credit = self.wstamp.ps() - prior.ps();
            let len_ps = len_ps - (len_ps / 2).min(credit);
            self.wstamp = SimTime::from_ps(self.wstamp.ps() + len_ps);
        }
    }

    // ------------------------------------------------------------ the model

    fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// BDP × gain in packets of `smss` (bbr_bdp): 10 packets before any RTT.
    fn bdp(&self, bw: f64, gain: u64, smss: u64) -> u64 {
        let Some(rtt) = self.min_rtt else {
            return 10;
        };
        let bytes = bw * rtt.secs_scaled() * gain as f64 / UNIT as f64;
        (bytes / smss as f64).ceil() as u64
    }

    /// bbr_tso_segs_goal: about 1 ms at the pacing rate, at least 2
    /// segments (1 below 1.2 Mbit/s), at most a 64 KB GSO packet.
    fn tso_segs_goal(&self, smss: u64) -> u64 {
        // (the kernel compares bytes/s with bbr_min_tso_rate >> 3)
        let min = if self.pacing_rate < MIN_TSO_RATE / 8.0 {
            1
        } else {
            2
        };
        let bytes = (self.pacing_rate / PACING_SHIFT).min(GSO_MAX_BYTES);
        ((bytes / smss as f64) as u64).max(min).min(0x7F)
    }

    fn quantization_budget(&self, cwnd: u64, smss: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal(smss);
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    fn inflight(&self, bw: f64, gain: u64, smss: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain, smss), smss)
    }

    /// bbr_packets_in_net_at_edt: what will be in flight when the next
    /// segment leaves at its departure time.
    fn packets_in_net_at_edt(&self, now: SimTime, inflight_now: u64, smss: u64) -> u64 {
        let edt = self.wstamp.max(now);
        let interval = edt.saturating_sub(now).secs_scaled();
        let delivered = (self.bw() * interval / smss as f64) as u64;
        let mut at_edt = inflight_now;
        if self.pacing_gain > UNIT {
            at_edt += self.tso_segs_goal(smss);
        }
        at_edt.saturating_sub(delivered)
    }

    fn set_pacing_rate(
        &mut self,
        bw: f64,
        gain: u64,
        srtt: Option<SimTime>,
        cwnd_pkts: u64,
        smss: u64,
    ) {
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(srtt, cwnd_pkts, smss);
        }
        self.raise_pacing_rate(Self::rate(bw, gain));
    }

    /// Only up until BtlBw is found: STARTUP must not slow down on a low
    /// early sample.
    fn raise_pacing_rate(&mut self, rate: f64) {
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn reset_lt_interval(&mut self) {
        self.lt_last_stamp_ms = self.delivered_mstamp.ps() / 1_000_000_000;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }
    fn reset_lt(&mut self) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval();
    }

    fn lt_interval_done(&mut self, bw: f64) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff * UNIT as f64 <= LT_BW_RATIO as f64 * self.lt_bw
                || Self::rate(diff, UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval();
    }

    fn lt_sampling(&mut self, losses: u64, app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval();
            self.lt_is_sampling = true;
        }
        if app_limited {
            return self.reset_lt();
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            return self.reset_lt();
        }
        if losses == 0 {
            return;
        }
        let lost = self.lost - self.lt_last_lost;
        let delivered = self.delivered - self.lt_last_delivered;
        if delivered == 0 || lost * UNIT < LT_LOSS_THRESH * delivered {
            return;
        }
        let now_ms = self.delivered_mstamp.ps() / 1_000_000_000;
        let t = now_ms.saturating_sub(self.lt_last_stamp_ms);
        if t < 1 {
            return;
        }
        self.lt_interval_done(delivered as f64 / (t as f64 * 1e-3));
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = (8 - 1 - (self.next_rand() % CYCLE_RAND)) as usize;
        self.advance_cycle_phase();
    }
    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) & 7;
        self.cycle_mstamp = self.delivered_mstamp;
    }
    fn reset_mode(&mut self) {
        if !self.full_bw_reached {
            self.mode = Mode::Startup;
        } else {
            self.reset_probe_bw_mode();
        }
    }

    /// A loss or ECN signal (out of line: the dispatch of every
    /// algorithm's `ssthresh` stays small enough to inline).
    #[inline(never)]
    fn on_loss_signal(&mut self, s: &CcState) {
        self.save_cwnd(s.cwnd.div_ceil(s.smss.max(1)));
    }

    /// bbr_save_cwnd, on a loss signal or entering PROBE_RTT.
    fn save_cwnd(&mut self, cwnd_pkts: u64) {
        if self.prev_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd_pkts;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd_pkts);
        }
    }

    /// bbr_set_state(TCP_CA_Loss): a timeout ends a round and the
    /// bandwidth probe, and is a loss for the long-term sampler.
    pub fn on_timeout(&mut self) {
        self.prev_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        self.lt_sampling(1, false);
        self.lost_at_ack = self.lost;
    }

    /// A recovery shown spurious is undone (bbr_undo_cwnd): the window
    /// stays, the bandwidth plateau count and the long-term sampler start
    /// over.
    pub fn undo(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.reset_lt();
    }

    /// The sender starts sending after everything was acknowledged
    /// (CA_EVENT_TX_START). Returns a cwnd (packets) to restore when a
    /// finished PROBE_RTT ends.
    pub fn tx_start(&mut self, now: SimTime, cwnd_pkts: u64) -> Option<u64> {
        if self.app_limited == 0 {
            return None;
        }
        self.idle_restart = true;
        self.ack_epoch_mstamp = now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => {
                self.raise_pacing_rate(Self::rate(self.bw(), UNIT));
                None
            }
            Mode::ProbeRtt => self.check_probe_rtt_done(now, cwnd_pkts),
            _ => None,
        }
    }

    fn check_probe_rtt_done(&mut self, now: SimTime, cwnd_pkts: u64) -> Option<u64> {
        let done = self.probe_rtt_done_stamp?;
        if self.jiffies(now) <= done {
            return None;
        }
        self.min_rtt_stamp = self.jiffies(now);
        self.reset_mode();
        Some(cwnd_pkts.max(self.prior_cwnd))
    }

    /// tcp_rate_gen and bbr_main for one ACK: the rate sample, the model,
    /// then the pacing rate and cwnd (returned, in bytes). `cwnd` is the
    /// sender's before the ACK (bytes); `srtt` the flow's after it.
    pub fn cong_control(&mut self, a: AckView, st: &CcState, srtt: Option<SimTime>) -> u64 {
        let smss = st.smss.max(1);
        let now = a.now;
        // tcp_rate_gen
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let acked_sacked = self.rs.acked_sacked;
        if acked_sacked > 0 {
            self.delivered_mstamp = now;
        }
        let losses = self.lost - self.lost_at_ack;
        let mut rs = self.rs;
        if let Some(rtt) = rs.rtt {
            self.note_rtt(rtt);
        }
        let mut rs_delivered = None;
        if let (Some(prior), Some(snd)) = (rs.prior_delivered, rs.interval) {
            let ack_phase = now.saturating_sub(rs.prior_mstamp);
            let interval = snd.max(ack_phase);
            rs_delivered = Some(self.delivered - prior);
            rs.interval =
                (Some(interval) >= self.tp_min_rtt && interval > SimTime::ZERO).then_some(interval);
        } else {
            rs.interval = None;
        }
        let cwnd_pkts = st.cwnd.div_ceil(smss);
        let inflight = a.inflight.div_ceil(smss);
        let acked = acked_sacked.div_ceil(smss);
        let lost_pkts = losses.div_ceil(smss);

        // bbr_update_model
        self.update_bw(&rs, rs_delivered, lost_pkts);
        self.update_ack_aggregation(&rs, rs_delivered, acked, cwnd_pkts, smss);
        let mut cwnd_override = None;
        if self.mode == Mode::ProbeBw
            && self.is_next_cycle_phase(now, a.prior_inflight, lost_pkts, smss)
        {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(&rs);
        self.check_drain(now, inflight, smss);
        self.update_min_rtt(
            &rs,
            rs_delivered,
            now,
            inflight,
            cwnd_pkts,
            &mut cwnd_override,
        );
        self.update_gains();

        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, srtt, cwnd_pkts, smss);
        let cwnd_now = cwnd_override.unwrap_or(cwnd_pkts);
        let cwnd = self.set_cwnd(a.state, lost_pkts, acked, inflight, bw, cwnd_now, smss);
        if let (Some(d), Some(i)) = (rs_delivered, rs.interval) {
            self.delivery_rate = d as f64 / i.secs_scaled();
        }
        self.rs = Sample::default();
        self.lost_at_ack = self.lost;
        cwnd * smss
    }

    fn update_bw(&mut self, rs: &Sample, delivered: Option<u64>, losses: u64) {
        self.round_start = false;
        let (Some(d), Some(interval)) = (delivered, rs.interval) else {
            return;
        };
        if rs.prior_delivered.unwrap_or(0) >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(losses, rs.is_app_limited);
        let bw = d as f64 / interval.secs_scaled();
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    fn update_ack_aggregation(
        &mut self,
        rs: &Sample,
        delivered: Option<u64>,
        acked: u64,
        cwnd_pkts: u64,
        smss: u64,
    ) {
        if acked == 0 || delivered.is_none() || rs.interval.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = self.delivered_mstamp.saturating_sub(self.ack_epoch_mstamp);
        let mut expected = (self.bw() * epoch.secs_scaled() / smss as f64) as u64;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected).min(cwnd_pkts);
        let w = &mut self.extra_acked[self.extra_acked_win_idx];
        *w = (*w).max(extra);
    }

    fn ack_aggregation_cwnd(&self, smss: u64) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max = (self.bw() * EXTRA_ACKED_MAX.secs_scaled() / smss as f64) as u64;
        self.extra_acked[0].max(self.extra_acked[1]).min(max)
    }

    fn is_next_cycle_phase(
        &self,
        now: SimTime,
        prior_inflight: u64,
        losses: u64,
        smss: u64,
    ) -> bool {
        let full_length = self
            .min_rtt
            .is_some_and(|m| self.delivered_mstamp.saturating_sub(self.cycle_mstamp) > m);
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let inflight = self.packets_in_net_at_edt(now, prior_inflight.div_ceil(smss), smss);
        let bw = self.max_bw();
        if self.pacing_gain > UNIT {
            return full_length
                && (losses > 0 || inflight >= self.inflight(bw, self.pacing_gain, smss));
        }
        full_length || inflight <= self.inflight(bw, UNIT, smss)
    }

    fn check_full_bw_reached(&mut self, rs: &Sample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH as f64 / UNIT as f64 {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    fn check_drain(&mut self, now: SimTime, inflight: u64, smss: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(now, inflight, smss)
                <= self.inflight(self.max_bw(), UNIT, smss)
        {
            self.reset_probe_bw_mode();
        }
    }

    fn update_min_rtt(
        &mut self,
        rs: &Sample,
        delivered: Option<u64>,
        now: SimTime,
        inflight: u64,
        cwnd_pkts: u64,
        cwnd_override: &mut Option<u64>,
    ) {
        let nowj = self.jiffies(now);
        let expired = nowj > self.min_rtt_stamp + MIN_RTT_WIN_SECS * u64::from(self.hz);
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = nowj;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(cwnd_pkts);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.app_limited = (self.delivered + inflight).max(1);
            if self.probe_rtt_done_stamp.is_none() && inflight <= CWND_MIN_TARGET {
                let wait = (PROBE_RTT_MODE_MS * u64::from(self.hz)).div_ceil(1000);
                self.probe_rtt_done_stamp = Some(nowj + wait);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    *cwnd_override = self.check_probe_rtt_done(now, cwnd_pkts);
                }
            }
        }
        if delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt_use_bw => (UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// bbr_set_cwnd with bbr_set_cwnd_to_recover_or_restore; packets.
    #[allow(clippy::too_many_arguments)]
    fn set_cwnd(
        &mut self,
        state: CaState,
        losses: u64,
        acked: u64,
        inflight: u64,
        bw: f64,
        mut cwnd: u64,
        smss: u64,
    ) -> u64 {
        if acked > 0 {
            if losses > 0 {
                cwnd = cwnd.saturating_sub(losses).max(1);
            }
            let mut conserving = false;
            if state == CaState::Recovery && self.prev_state != CaState::Recovery {
                self.packet_conservation = true;
                self.next_rtt_delivered = self.delivered;
                cwnd = inflight + acked;
            } else if self.prev_state >= CaState::Recovery && state < CaState::Recovery {
                cwnd = cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            self.prev_state = state;
            if self.packet_conservation {
                cwnd = cwnd.max(inflight + acked);
                conserving = true;
            }
            if !conserving {
                let target = self.bdp(bw, self.cwnd_gain, smss) + self.ack_aggregation_cwnd(smss);
                let target = self.quantization_budget(target, smss);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.delivered < 10 * smss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        cwnd
    }
}

impl CongestionControl for Bbr {
    /// BBR sets cwnd from its model on every ACK (Linux's `cong_control`
    /// hook, which replaces `cong_avoid`): nothing grows it here.
    fn on_ack(&mut self, _s: &mut CcState, _a: &super::AckInfo) {}
    /// bbr_ssthresh: a loss signal saves cwnd for the end of recovery and
    /// leaves ssthresh as it is.
    fn ssthresh(&mut self, s: &CcState, _flight: u64, _kind: LossKind, _now: SimTime) -> u64 {
        self.on_loss_signal(s);
        // Linux's snd_ssthresh stays TCP_INFINITE_SSTHRESH (0x7fffffff
        // packets): finite, so a recovery machine's ssthresh + 3 SMSS (whose
        // window BBR then ignores) cannot overflow.
        s.ssthresh.min(0x7fff_ffff * s.smss.max(1))
    }
    fn hints(&self, _s: &CcState) -> CcHints {
        CcHints::default()
    }
    fn name(&self) -> &'static str {
        "bbr"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windowed_max_forgets_a_peak_after_its_window() {
        let mut m = WinMax::default();
        m.reset(0, 10.0);
        for t in 1..=10 {
            m.running_max(10, t, 5.0);
        }
        assert_eq!(m.get(), 10.0, "the peak holds for its window");
        m.running_max(10, 11, 5.0);
        assert_eq!(m.get(), 5.0, "and is gone after it");
        m.running_max(10, 12, 7.0);
        assert_eq!(m.get(), 7.0, "a new max replaces everything");
    }

    #[test]
    fn gains_are_the_kernels() {
        assert_eq!(HIGH_GAIN, 739);
        assert_eq!(DRAIN_GAIN, 88);
        // STARTUP doubles the delivery rate per round: 2/ln 2 ≥ 2.885
        assert!(HIGH_GAIN as f64 / UNIT as f64 >= 2.0 / std::f64::consts::LN_2);
        // PROBE_BW's cycle averages to 1: probing is paid back by draining
        let mean = PACING_GAIN.iter().sum::<u64>() as f64 / 8.0 / UNIT as f64;
        assert_eq!(mean, 1.0);
    }

    #[test]
    fn probe_bw_never_starts_in_its_draining_phase() {
        let mut b = Bbr::new(250, 7);
        let mut seen = [0u32; 8];
        for _ in 0..700 {
            b.reset_probe_bw_mode();
            seen[b.cycle_idx] += 1;
        }
        assert_eq!(seen[1], 0, "never at the 0.75 phase");
        assert!(
            seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 0),
            "{seen:?}"
        );
    }

    /// bbr_tso_segs_goal: about 1 ms at the pacing rate in segments, at
    /// least 2 (1 below the kernel's 1.2 Mbit/s), at most a 64 KB GSO
    /// packet's worth.
    #[test]
    fn tso_bursts_are_a_millisecond_at_the_pacing_rate() {
        let mut b = Bbr::new(250, 1);
        let smss = 1000;
        b.pacing_rate = 1.1e6 / 8.0; // 1.1 Mbit/s
        assert_eq!(b.tso_segs_goal(smss), 1);
        b.pacing_rate = 1.3e6 / 8.0;
        assert_eq!(b.tso_segs_goal(smss), 2);
        b.pacing_rate = 100e6 / 8.0; // 12,207 B per 1/1024 s
        assert_eq!(b.tso_segs_goal(smss), 12);
        b.pacing_rate = 10e9 / 8.0;
        assert_eq!(b.tso_segs_goal(smss), (GSO_MAX_BYTES / smss as f64) as u64);
    }

    #[test]
    fn pacing_spaces_segments_at_the_rate_after_the_first_ten() {
        let mut b = Bbr::new(250, 1);
        b.pacing_rate = 1e9; // 1 GB/s: 1000 B per µs
        let t0 = SimTime::from_us(10);
        for _ in 0..9 {
            b.on_send(t0, 1000);
            assert_eq!(b.hold_until(t0), None, "the first nine go unpaced");
        }
        b.on_send(t0, 1000);
        assert_eq!(b.hold_until(t0), Some(t0 + SimTime::from_us(1)));
        // sent late (idle 9 µs): half the spacing is forgiven
        let late = t0 + SimTime::from_us(10);
        b.on_send(late, 1000);
        assert_eq!(b.hold_until(late), Some(late + SimTime::from_ns(500)));
    }

    #[test]
    fn a_sample_is_delivered_over_the_longer_of_its_send_and_ack_phases() {
        let mut b = Bbr::new(250, 1);
        let smss = 1000;
        let st = CcState {
            cwnd: 10 * smss,
            ssthresh: u64::MAX,
            smss,
            ca_acked: 0,
        };
        b.init(SimTime::ZERO, None, 10, smss);
        // ten segments sent 1 µs apart from t = 0; each ACKed 100 µs later
        for k in 0..10u64 {
            let rec = b.skb_sent(SimTime::from_us(k), k == 0);
            b.push_tx(rec);
        }
        let mut rates = vec![];
        for k in 0..10u64 {
            let now = SimTime::from_us(k + 100);
            b.skb_delivered(
                0,
                SimTime::from_us(k),
                (k + 1) * smss,
                smss,
                false,
                false,
                now,
            );
            b.pop_tx();
            let view = AckView {
                now,
                inflight: (9 - k) * smss,
                prior_inflight: (10 - k) * smss,
                state: CaState::Open,
            };
            b.cong_control(view, &st, Some(SimTime::from_us(100)));
            rates.push(b.delivery_rate());
        }
        // segment k's sample: k + 1 segments over max(send k µs, ack 100 + k µs)
        for (k, r) in rates.iter().enumerate() {
            let want = (k as f64 + 1.0) * 1000.0 / ((100.0 + k as f64) * 1e-6);
            assert!((r - want).abs() / want < 1e-9, "k {k}: {r} vs {want}");
        }
        assert_eq!(b.min_rtt(), Some(SimTime::from_us(100)));
        assert_eq!(b.delivered(), 10 * smss);
    }

    /// A flow that sends one 1000-byte segment every `gap` from `from`
    /// (as its ACKs allow: a steady pipe) and has each acknowledged `rtt`
    /// after it left, one ACK per segment; returns the cwnd (packets)
    /// after each ACK. Whatever is still out at the end is acknowledged.
    fn drive(
        b: &mut Bbr,
        from: SimTime,
        n: u64,
        gap: SimTime,
        rtt: SimTime,
        cwnd: &mut u64,
    ) -> Vec<u64> {
        let smss = 1000;
        let mut out = vec![];
        let mut sent: VecDeque<SimTime> = VecDeque::new();
        let mut ack = |b: &mut Bbr, t: SimTime, now: SimTime, left: u64, out: &mut Vec<u64>| {
            b.skb_delivered(0, t, 0, smss, false, false, now);
            b.pop_tx();
            let st = CcState {
                cwnd: *cwnd * smss,
                ssthresh: u64::MAX,
                smss,
                ca_acked: 0,
            };
            let view = AckView {
                now,
                inflight: left * smss,
                prior_inflight: (left + 1) * smss,
                state: CaState::Open,
            };
            *cwnd = b.cong_control(view, &st, Some(rtt)) / smss;
            out.push(*cwnd);
        };
        for k in 0..n {
            let now = SimTime(from.0 + k * gap.0);
            while sent.front().is_some_and(|&t| t + rtt <= now) {
                let t = sent.pop_front().unwrap();
                let left = sent.len() as u64;
                ack(b, t, t + rtt, left, &mut out);
            }
            let rec = b.skb_sent(now, sent.is_empty());
            b.push_tx(rec);
            sent.push_back(now);
        }
        while let Some(t) = sent.pop_front() {
            let left = sent.len() as u64;
            ack(b, t, t + rtt, left, &mut out);
        }
        out
    }

    /// RTprop not refreshed for 10 s: PROBE_RTT holds cwnd at 4 packets
    /// for 200 ms and a round, then restores the window it saved.
    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
        let mut b = Bbr::new(1000, 1);
        let (us, ms) = (SimTime::from_us, SimTime::from_ms);
        b.note_rtt(us(100));
        b.init(SimTime::ZERO, Some(us(100)), 10, 1000);
        let mut cwnd = 10;
        drive(&mut b, SimTime::ZERO, 200, us(10), us(100), &mut cwnd);
        assert_ne!(b.mode(), Mode::ProbeRtt);
        let before = cwnd;
        assert!(before > CWND_MIN_TARGET);
        // 10 s later every sample is slower than RTprop: the filter expires
        let later = SimTime::from_secs(10) + ms(10);
        let w = drive(&mut b, later, 1, us(10), us(150), &mut cwnd);
        assert_eq!(b.mode(), Mode::ProbeRtt);
        assert!(w[0] <= CWND_MIN_TARGET, "cwnd {w:?}");
        assert_eq!(
            b.min_rtt(),
            Some(us(150)),
            "the expired filter takes the new sample"
        );
        // 100 ms on: still probing
        drive(&mut b, later + ms(100), 5, us(10), us(150), &mut cwnd);
        assert_eq!(b.mode(), Mode::ProbeRtt);
        // past 200 ms and a round: back, with the window it had
        let w = drive(&mut b, later + ms(201), 30, us(10), us(150), &mut cwnd);
        assert_ne!(b.mode(), Mode::ProbeRtt);
        assert!(
            w.iter().all(|&c| c > CWND_MIN_TARGET),
            "left the clamp: {w:?}"
        );
    }

    /// STARTUP ends when three rounds in a row raise the bandwidth by
    /// less than 25 %: a flow whose ACKs come at a fixed rate leaves it
    /// (through DRAIN) for PROBE_BW, and its estimate is that rate.
    #[test]
    fn startup_ends_when_the_bandwidth_stops_growing() {
        let mut b = Bbr::new(1000, 1);
        let us = SimTime::from_us;
        b.note_rtt(us(100));
        b.init(SimTime::ZERO, Some(us(100)), 10, 1000);
        let mut cwnd = 10;
        // one segment per 10 µs: 100 MB/s delivered, a round per 10 ACKs
        drive(&mut b, SimTime::ZERO, 100, us(10), us(100), &mut cwnd);
        assert!(b.full_bw_reached());
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!((b.bw() - 1e8).abs() / 1e8 < 0.02, "bw {}", b.bw());
        // pacing at the estimate (1 % margin) times the phase's gain
        let gain = PACING_GAIN[b.cycle_idx()] as f64 / UNIT as f64;
        assert!((b.pacing_rate() - 0.99 * gain * b.bw()).abs() < 1.0);
    }
}
