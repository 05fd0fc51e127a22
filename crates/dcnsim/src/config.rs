//! The resolved, typed model of a scenario: what the simulator consumes.
//!
//! `scenario/` turns a JSON document (TOML is converted by the Python
//! front; unit strings such as `"1Gbps"`, `"50us"`, `"32KB"`) into these
//! structs, collecting every
//! problem with its field path. Everything here is already validated and
//! in base units: times in picoseconds ([`SimTime`]), rates in bit/s,
//! sizes in bytes.

use crate::sim::time::SimTime;

/// A limit that may be given in bytes or in packets (`"32KB"` / `"100pkt"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Bytes(u64),
    Packets(u64),
}

impl Limit {
    /// `nic_buffer = "unlimited"`: a byte limit no queue reaches.
    pub const UNLIMITED: Limit = Limit::Bytes(u64::MAX);

    /// Whether this is no limit at all ([`Self::UNLIMITED`], in either unit).
    pub fn is_unlimited(self) -> bool {
        matches!(self, Limit::Bytes(u64::MAX) | Limit::Packets(u64::MAX))
    }
}

/// `[trimming]`: payload trimming and header queues (net/trim.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrimConfig {
    /// Header queue limit (`None`: twice each queue's data limit).
    pub header_limit: Option<Limit>,
    /// Wire bytes of a trimmed packet.
    pub header_bytes: u32,
    /// A trimmed header that finds the header queue full goes back to
    /// its sender instead of being dropped.
    pub return_to_sender: bool,
}

/// `topology.ecn_kmax` and `ecn_pmax`: RED's marking ramp on every switch
/// port with an `ecn_k` (net/ramp.rs): above K (K_min) an ECN-capable
/// packet is marked with a probability rising linearly to `pmax` at
/// `kmax`, and always past `kmax` (the DCQCN paper's switches; ns-3's
/// RedQueueDisc on the instantaneous queue).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnRamp {
    pub kmax: Limit,
    pub pmax: f64,
}

/// `[pfc]`: priority flow control at every switch ingress (net/pfc.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PfcConfig {
    /// An ingress port holding more than this (bytes, or packets) in its
    /// switch pauses its sender.
    pub xoff: Limit,
    /// ... and resumes it below this.
    pub xon: Limit,
}

/// Per-port egress queue configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueConfig {
    /// Drop-tail limit.
    pub limit: Limit,
    /// ECN marking threshold on the instantaneous queue (on enqueue); `None` = no marking.
    pub ecn_k: Option<Limit>,
    /// What the threshold does to a packet that is not ECN-capable.
    pub non_ect: NonEct,
}

impl QueueConfig {
    /// Whether this queue drops a packet without ECT that finds it over its
    /// ECN threshold (`ecn_non_ect = "drop"` on a queue that has one).
    pub fn drops_non_ect(&self) -> bool {
        self.non_ect == NonEct::Drop && self.ecn_k.is_some()
    }
}

/// `topology.ecn_non_ect`: a packet that is not ECN-capable (no ECT) and
/// finds the queue over `ecn_k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NonEct {
    /// Queued as at any drop-tail port: the threshold only marks (the default).
    #[default]
    Queue,
    /// Dropped where an ECN-capable packet would be marked, as RED/WRED
    /// with ECN does (ns-3's `RedQueueDisc` with `UseEcn`, Linux `red ecn`,
    /// switch ASICs' WRED with ECN at one threshold).
    Drop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// A full-duplex link between nodes `a` and `b` (indices into `TopologySpec::nodes`).
/// `queue_ab` is the egress queue at `a` towards `b`, `queue_ba` the reverse.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue_ab: QueueConfig,
    pub queue_ba: QueueConfig,
}

/// A concrete topology: nodes and full-duplex links. Hosts are numbered in
/// the order they appear in `nodes` (host index = position among hosts).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TopologySpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
}

impl TopologySpec {
    /// Each node's access rate: the sum of the rates of its links (a
    /// host's edge link, or several for a multi-homed one), in bit/s.
    pub fn node_rates(&self) -> Vec<u64> {
        let mut rate = vec![0u64; self.nodes.len()];
        for l in &self.links {
            rate[l.a] = rate[l.a].saturating_add(l.rate_bps);
            if l.b != l.a {
                rate[l.b] = rate[l.b].saturating_add(l.rate_bps);
            }
        }
        rate
    }

    /// Node indices of the hosts, in host-index order.
    pub fn hosts(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == NodeKind::Host)
            .map(|(i, _)| i)
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutingMode {
    /// One deterministic shortest path (the lowest-index equal-cost next hop).
    Single,
    /// Hash of the 5-tuple picks one equal-cost next hop per flow at each switch.
    Ecmp,
    /// ECMP with the same hash function (no per-switch salt) at every
    /// switch: shows hash polarisation (switches of successive tiers make
    /// correlated choices and some paths stay idle).
    EcmpUnsalted,
    /// Random packet spraying: uniform choice among equal-cost next hops per packet, per hop.
    Rps,
    /// Flowlet switching: a switch keeps a flow's next hop while its packets
    /// arrive less than `gap` apart; after a longer pause (a new flowlet) it
    /// picks a next hop uniformly at random (LetFlow-style).
    Flowlet { gap: SimTime },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    /// RFC 5681 / RFC 6582.
    NewReno,
    /// RFC 9438 (C = 0.4, β = 0.7).
    Cubic,
    /// RFC 8257.
    Dctcp,
    /// FaST (Hwang & Yoo, TIIS 2014; SPEC §2.1).
    Fast,
    /// BBR v1 as Linux's tcp_bbr.c (tcp/cc/bbr.rs): model-based, paced.
    Bbr,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::NewReno => "newreno",
            CcKind::Cubic => "cubic",
            CcKind::Dctcp => "dctcp",
            CcKind::Fast => "fast",
            CcKind::Bbr => "bbr",
        }
    }
    /// Algorithms built on ECN: they always negotiate it, and their
    /// receivers echo CE per segment (RFC 8257 §3.2) instead of latching
    /// ECE until CWR (RFC 3168).
    pub fn needs_ecn(self) -> bool {
        matches!(self, CcKind::Dctcp | CcKind::Fast)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegPolicyKind {
    /// Every segment carries `mss` payload bytes (or what is left).
    Fixed,
    /// FaST's segment size (SPEC §2.1 eq. 9) with its probing stage.
    Fast,
    /// Kulkarni's Dynamic Segment Resizing (SPEC §2.3, Algorithm 4).
    Dsr,
    /// TCPRand (SPEC §2.2): payload ~ U[rMin, MSS], rMin static or adaptive.
    TcpRand,
}

/// How TCPRand chooses rMin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpRandMode {
    /// rMin fixed (the paper's CTx / NTx).
    Static,
    /// Algorithm 1 on CUBIC's W_max and epoch-start window (the paper's CTD).
    Adaptive,
}

impl TcpRandMode {
    pub fn name(self) -> &'static str {
        match self {
            TcpRandMode::Static => "static",
            TcpRandMode::Adaptive => "adaptive",
        }
    }
}

/// TCPRand parameters (Lee et al. 2017, §4–5.3; SPEC §2.2).
///
/// `v_tau` is in (0, ∞]; `v_omega` in [0, ∞] with 0 meaning ω = ∞. The
/// infinite and zero cases are taken by explicit branches in the policy,
/// never through float ∞ arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpRandParams {
    pub mode: TcpRandMode,
    /// Static mode: the smallest payload, bytes (1 ≤ rMin ≤ MSS).
    pub rmin: u32,
    /// Adaptive mode: the floor θ of rMin, bytes.
    pub theta: u32,
    /// Variance σ² of Φ (> 0).
    pub sigma2: f64,
    /// Mean μ of Φ.
    pub mu: f64,
    /// Trigger scale v_τ: τ = W_max − (W_max − α)/v_τ; ∞ → τ = W_max.
    pub v_tau: f64,
    /// End scale v_ω: ω = W_max + (W_max − α)/v_ω; 0 → ω = ∞, ∞ → ω = W_max.
    pub v_omega: f64,
}

impl TcpRandParams {
    /// The paper's named (σ², μ, v_τ, v_ω) sets (§5.3).
    pub const PRESETS: [(&'static str, [f64; 4]); 3] = [
        ("default", [1.0, 1.0, 1.0, 1.0]),
        ("conservative", [1.0, 1.0, f64::INFINITY, 1.0]),
        ("aggressive", [1.0, 0.0, 1.0, 0.0]),
    ];

    pub fn with_preset(mut self, name: &str) -> Option<Self> {
        let (_, [s2, mu, vt, vo]) = Self::PRESETS.iter().find(|(n, _)| *n == name)?;
        self.sigma2 = *s2;
        self.mu = *mu;
        self.v_tau = *vt;
        self.v_omega = *vo;
        Some(self)
    }
}

impl Default for TcpRandParams {
    fn default() -> Self {
        TcpRandParams {
            mode: TcpRandMode::Static,
            rmin: 200,
            theta: 200,
            sigma2: 1.0,
            mu: 1.0,
            v_tau: 1.0,
            v_omega: 1.0,
        }
    }
}

/// The two readings of FaST's eq. (9) (SPEC §2.1); `vwnd` in segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastSegRule {
    /// `seg = max(S_min, MSS·vwnd/Wmin)` while `vwnd < Wmin`: bytes in flight ≈ vwnd·MSS.
    Continuous,
    /// `seg = max(S_min, MSS·min(1, vwnd))` while `vwnd < Wmin` ("reduced
    /// below 1 MSS if the vwnd is smaller than 1").
    Literal,
}

impl FastSegRule {
    pub fn name(self) -> &'static str {
        match self {
            FastSegRule::Continuous => "continuous",
            FastSegRule::Literal => "literal",
        }
    }
}

/// DCTCP parameters (RFC 8257 §3.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpParams {
    /// Estimation gain g of α ← (1 − g)·α + g·F.
    pub g: f64,
    /// α before the first window of feedback (RFC 8257: 1).
    pub alpha_init: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
        }
    }
}

/// Protective Load Balancing (PLB, SIGCOMM 2022; Linux's tcp_plb.c, run
/// by tcp_dctcp): a flow whose rounds are congested for long enough
/// changes its flow label, which the fabric's ECMP hash includes, and so
/// its path. Defaults are Linux's sysctls (`net.ipv4.tcp_plb_*`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlbParams {
    /// `tcp_plb_enabled` (Linux's default: off).
    pub enabled: bool,
    /// `tcp_plb_rehash_rounds`: consecutive congested rounds that force a
    /// new path.
    pub rehash_rounds: u32,
    /// `tcp_plb_idle_rehash_rounds`: congested rounds after which a sender
    /// with nothing in flight takes a new path when it sends again (0: never).
    pub idle_rehash_rounds: u32,
    /// `tcp_plb_cong_thresh` (128/256 in Linux): a round is congested when at
    /// least this fraction of what it delivered was CE-marked.
    pub cong_thresh: f64,
    /// `tcp_plb_suspend_rto_sec`: after a timeout PLB keeps the path the
    /// timeout chose for this long plus a random part of it again.
    pub suspend_rto: SimTime,
}

impl Default for PlbParams {
    fn default() -> Self {
        PlbParams {
            enabled: false,
            rehash_rounds: 12,
            idle_rehash_rounds: 3,
            cong_thresh: 0.5,
            suspend_rto: SimTime::from_secs(60),
        }
    }
}

/// CUBIC parameters (RFC 9438; C = 0.4 and β = 0.7 are fixed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubicParams {
    /// RFC 9438 §4.7 fast convergence.
    pub fast_convergence: bool,
    /// Congestion avoidance by Linux's tcp_cubic arithmetic (bictcp_update,
    /// tcp_cong_avoid_ai) instead of RFC 9438's: whole segments, the target
    /// at t + the minimum RTT, cnt = ⌊cwnd/(target − cwnd)⌋ capped at 20
    /// while W_max is unknown (`last_max_cwnd == 0`: before the first
    /// congestion event and after a timeout, which resets it), so at least
    /// one segment of growth per 20 acknowledged. RFC 9438 has no such
    /// floor. Time is the kernel's jiffies ([`TcpConfig::hz`]): cnt is
    /// recomputed at most every HZ/32 jiffies while cwnd is unchanged, and
    /// at most once per jiffy otherwise (within a jiffy only the
    /// Reno-friendly bound applies to it), and t counts whole jiffies plus
    /// the minimum RTT rounded up to one. Reductions in whole segments:
    /// ssthresh = ⌊cwnd·717/1024⌋, W_max after fast convergence
    /// ⌊cwnd·1741/2048⌋ (bictcp_recalc_ssthresh).
    pub linux: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            fast_convergence: true,
            linux: false,
        }
    }
}

/// FaST parameters (SPEC §2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastParams {
    /// Gain g of α (eq. 2).
    pub g: f64,
    /// α before the first window of feedback.
    pub alpha_init: f64,
    /// Wmin in segments: below it the flow keeps Wmin smaller segments in flight.
    pub wmin: u32,
    /// Smallest payload S_min in bytes (eq. 9).
    pub smin: u32,
    /// Probing stage: the first `probe_segments` new segments of a connection …
    pub probe_segments: u32,
    /// … carry `probe_size` payload bytes.
    pub probe_size: u32,
    pub seg_rule: FastSegRule,
}

impl Default for FastParams {
    fn default() -> Self {
        FastParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            wmin: 2,
            smin: 100,
            probe_segments: 3,
            probe_size: 100,
            seg_rule: FastSegRule::Continuous,
        }
    }
}

/// Dynamic Segment Resizing parameters (Kulkarni 2012 §4.3, Algorithm 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsrParams {
    /// MSS_dsr: the segment size a connection starts with, bytes.
    pub mss: u32,
    /// cwnd_dsr: the window, in segments of the current size, at which the
    /// segment size grows (and the window returns to cwnd_dsr/2 segments).
    pub cwnd: u32,
}

impl Default for DsrParams {
    fn default() -> Self {
        DsrParams { mss: 50, cwnd: 50 }
    }
}

/// Which segment the probabilistic-retransmission thread resends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbRetxTarget {
    /// The highest-sequence unacknowledged (not SACKed) segment.
    Highest,
    /// The segment at snd_una.
    Lowest,
}

impl ProbRetxTarget {
    pub fn name(self) -> &'static str {
        match self {
            ProbRetxTarget::Highest => "highest",
            ProbRetxTarget::Lowest => "lowest",
        }
    }
}

/// Probabilistic retransmission (Kulkarni 2012 §4.2, Algorithms 1–3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbRetxParams {
    /// Probability of a marked retransmission per thread run; 0 = off.
    pub p: f64,
    /// The retransmit thread runs once per `period` while data is unacknowledged.
    pub period: SimTime,
    pub target: ProbRetxTarget,
}

impl Default for ProbRetxParams {
    fn default() -> Self {
        ProbRetxParams {
            p: 0.0,
            period: SimTime::from_us(20),
            target: ProbRetxTarget::Highest,
        }
    }
}

/// How the sender treats reordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reordering {
    /// `dupack_threshold` always.
    Fixed,
    /// Linux-like reordering degree: when a fast retransmit turns out to
    /// be spurious (the ACK that covers it echoes the original's
    /// timestamp, RFC 3522 Eifel detection), undo its window reduction and
    /// raise the threshold above the number of duplicate ACKs the late
    /// segment caused (capped at [`MAX_REORDERING`]). With RACK the same
    /// detection widens RACK's reordering window instead.
    Adaptive,
}

/// Linux's `tcp_max_reordering` default: the highest adaptive threshold.
pub const MAX_REORDERING: u32 = 300;

/// Loss detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossRecovery {
    /// Duplicate-ACK counting (RFC 5681 / 6582; RFC 6675 with SACK).
    DupAck,
    /// RACK-TLP (RFC 8985): time-based loss detection from per-segment send
    /// times and SACK, plus tail loss probes. Needs SACK.
    Rack,
}

/// How congestion avoidance grows cwnd (RFC 5681 §3.1 allows both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaIncrease {
    /// One SMSS per cwnd of acknowledged bytes (appropriate byte counting,
    /// RFC 3465; Linux, ns-3's TcpLinuxReno).
    #[default]
    Bytes,
    /// SMSS·SMSS/cwnd per ACK that acknowledges new data, whatever it
    /// acknowledges (RFC 5681 eq. 3; ns-2's TCPs and ns-3's TcpNewReno).
    PerAck,
}

impl CaIncrease {
    pub fn name(self) -> &'static str {
        match self {
            CaIncrease::Bytes => "bytes",
            CaIncrease::PerAck => "per_ack",
        }
    }
}

/// How fast recovery with SACK paces what it sends (docs/model.md,
/// "Rate reduction in recovery").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// RFC 6675 §5 as written: cwnd = ssthresh at once, and every ACK sends
    /// whatever cwnd − pipe allows; a lost retransmission waits for the
    /// RTO. What ns-2's SACK agents and ns-3's classic recovery do.
    Rfc6675,
    /// RFC 6937 Proportional Rate Reduction with the slow-start reduction
    /// bound (PRR-SSRB), plus detection of lost retransmissions.
    Prr,
    /// PRR after the IETF's update (draft-ietf-tcpm-prr-rfc6937bis) and
    /// Linux: below ssthresh the slow-start bound only on an ACK that
    /// advances snd_una and reports no new loss, else no more than that
    /// ACK delivered; plus detection of lost retransmissions.
    PrrBis,
}

/// Whether cwnd grows only while the sender uses it (`tcp.cwnd_validation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndValidation {
    /// cwnd grows on every ACK that acknowledges new data, however little
    /// of the window the sender used: what the papers' simulators did.
    Off,
    /// Linux's `tcp_is_cwnd_limited`: grow only if the flight filled cwnd
    /// in the window being acknowledged, or, in slow start, while cwnd is
    /// below twice the largest flight of that window.
    Linux,
}

/// cwnd after the sender was idle for longer than the RTO (`tcp.idle_restart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleRestart {
    /// cwnd is kept: what the papers' simulators did.
    Off,
    /// RFC 5681 §4.1: cwnd = min(IW, cwnd).
    Rfc5681,
    /// Linux's tcp_cwnd_restart (`net.ipv4.tcp_slow_start_after_idle = 1`):
    /// ssthresh keeps 3/4 of cwnd, then cwnd halves for each RTO of idle
    /// time, not below min(IW, cwnd).
    Linux,
}

/// What the send test counts cwnd in (`tcp.cwnd_counting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndCounting {
    /// Bytes: a segment goes out while the flight plus it fits cwnd, so a
    /// sub-MSS tail leaves beside the segment that filled a fractional
    /// cwnd: what the papers' simulators did.
    Bytes,
    /// Linux's tcp_cwnd_test: a segment goes out while fewer segments
    /// than ⌊cwnd / SMSS⌋ are in flight, whatever their size, so a
    /// block's sub-MSS tail waits for an ACK instead of riding on a full
    /// queue (issue 45, mechanism A).
    Packets,
}

/// When NewReno's fast recovery restarts the retransmission timer on a
/// partial ACK (`tcp.partial_ack_timer`, RFC 6582 §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// The first partial ACK of an episode only ("Impatient"): a recovery
    /// of many holes ends in a timeout: what the papers' simulators did.
    Impatient,
    /// Every partial ACK ("Slow-but-Steady"), as Linux rearms the timer on
    /// every ACK that advances snd_una (tcp_clean_rtx_queue's
    /// FLAG_SET_XMIT_TIMER), so a long recovery goes on one hole per RTT.
    SlowButSteady,
    /// Slow-but-Steady, and the fast retransmission restarts the timer
    /// too: Linux rearms it whenever it resends the head of the
    /// retransmit queue (tcp_xmit_retransmit_queue), so duplicate ACKs
    /// slow to arrive behind a full queue do not leave the recovery's
    /// first retransmission to a timer set when the window went out.
    Linux,
}

/// What a timeout of data the timer already resent does to ssthresh
/// (`tcp.rto_ssthresh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoSsthresh {
    /// RFC 5681 §3.1: "if the segment has already been retransmitted by
    /// the timer, ssthresh is held constant", as Linux holds it
    /// (tcp_enter_loss sets it only outside Loss or on the first timeout).
    Hold,
    /// Every timeout sets it from what was sent since the last one, as
    /// ns-2's TcpAgent (slowdown from the window) and ns-3.37
    /// (TcpSocketBase::ReTxTimeout, from BytesInFlight) do: a timeout in a
    /// row, with one segment resent, leaves 2 segments.
    Recompute,
}

/// The window a full ACK leaves when it ends NewReno's inflated recovery
/// (`tcp.reno_exit`; RFC 6582 §3.2 allows either).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoExit {
    /// Option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS), so a
    /// recovery that leaves little in flight cannot send a burst.
    FlightSize,
    /// Option (2): ssthresh, as ns-2's NewReno (`exit_recovery_fix_` 0)
    /// and ns-3.37's TcpClassicRecovery::ExitRecovery set it.
    Ssthresh,
}

/// How NewReno's fast recovery paces what it sends (`tcp.reno_reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoReduction {
    /// RFC 6582's window inflation and deflation: what the papers'
    /// simulators did.
    Inflation,
    /// Linux's Proportional Rate Reduction, which tcp_cwnd_reduction
    /// applies in every recovery, Reno's too: each ACK sends in proportion
    /// to what it delivered (a duplicate ACK one segment), cwnd = ssthresh
    /// at the end.
    Prr,
}

/// How an ECN echo reduces the window (`tcp.ecn_reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnReduction {
    /// RFC 3168 §6.1.2: cwnd falls to the new ssthresh on the ACK that
    /// echoes the mark (the papers' simulators and ns-3).
    Cut,
    /// Linux since 3.7 ("tcp: use PRR to reduce cwin in CWR state"): the
    /// CWR state reduces cwnd by Proportional Rate Reduction on every ACK
    /// that delivers data (tcp_cwnd_reduction, the window neither cut at
    /// once nor grown), and sets cwnd = ssthresh when it ends
    /// (tcp_end_cwnd_reduction).
    Prr,
}

/// How the retransmission timeout is sized and when it fires (`tcp.rto_timer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoTimer {
    /// RFC 6298: SRTT + max(G, 4·RTTVAR), at least RTOmin, at that time.
    Exact,
    /// Linux's __tcp_set_rto in jiffies of [`TcpConfig::hz`]: RTOmin (the
    /// route's metric) and G counted in whole jiffies, SRTT + max(G,
    /// 4·RTTVAR) rounded up to whole jiffies (usecs_to_jiffies), the timer
    /// firing at a tick: at HZ = 250 RTOmin 10 ms is a 16 ms RTO, 200 ms
    /// one of 204 ms.
    Linux,
}

/// When RACK-TLP's timers fire (`tcp.rack_timers`, with `recovery = "rack"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RackTimers {
    /// RFC 8985 §7.2: the probe 2·SRTT after the last transmission (plus
    /// WCDelAckT when one segment is out and the peer delays ACKs),
    /// whenever the flow is not in recovery; the reordering timer when the
    /// window ends.
    Rfc8985,
    /// Linux's tcp_schedule_loss_probe and tcp_rack_mark_lost, in jiffies
    /// ([`TcpConfig::hz`]) as Linux 6.18 runs them: the probe 2·SRTT
    /// rounded up to whole jiffies plus TCP_TIMEOUT_MIN (2 jiffies), or
    /// plus TCP_RTO_MIN (200 ms) when one segment is out, capped at the
    /// RTO, and only in the Open state: no probe while a segment is SACKed
    /// or a retransmission is outstanding (Disorder); the reordering timer
    /// the window's remaining wait rounded up plus 2 jiffies. Each fires at
    /// a tick.
    Linux,
}

/// What an ACK counts toward window growth (`tcp.ack_counting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckCounting {
    /// RFC 5681: the bytes the ACK newly acknowledges cumulatively,
    /// SACKed ones included when the cumulative ACK reaches them.
    Acked,
    /// Linux (tcp_cong_control's acked_sacked): the bytes the ACK newly
    /// delivers, cumulatively or by SACK; a SACKed segment counts once,
    /// when SACKed, and grows the window only with an ACK that advances
    /// snd_una (tcp_may_raise_cwnd). Without SACK a duplicate ACK counts
    /// as one segment delivered (tcp_add_reno_sack) and the cumulative ACK
    /// after it as the rest, at least one segment (tcp_remove_reno_sacks).
    /// Once reordering has raised the degree above `dupack_threshold`, a
    /// SACK-only ACK grows the window too (tcp_may_raise_cwnd).
    Delivered,
}

/// `abc_limit` meaning no limit: slow start adds every acknowledged byte
/// (Linux's tcp_slow_start, `cwnd += acked`, capped at ssthresh).
pub const ABC_UNLIMITED: u32 = u32::MAX;

/// Slow-start exit before the first loss (`tcp.hystart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStart {
    Off,
    /// Linux tcp_cubic's HyStart with its defaults (`hystart_detect = 3`:
    /// ACK train and delay increase, from a window of 16 segments); CUBIC
    /// only.
    Linux,
    /// RFC 9406 HyStart++: delay increase, then Conservative Slow Start;
    /// any cc.
    Rfc9406,
}

/// TCP endpoint configuration (RFC 5681 / 6582 / 6298 / 6675 / 3168).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub cc: CcKind,
    pub seg: SegPolicyKind,
    /// Sender maximum segment size: payload bytes.
    pub mss: u32,
    /// TCP/IP header bytes on the wire per segment (40; 4 with header compression).
    pub header_bytes: u32,
    /// Initial congestion window in segments.
    pub init_cwnd_segments: u32,
    /// Initial slow-start threshold in segments (`None`: unbounded, RFC 5681).
    pub init_ssthresh_segments: Option<u32>,
    /// Congestion avoidance's growth rule (NewReno, DCTCP and FaST; CUBIC
    /// has its own).
    pub ca_increase: CaIncrease,
    /// Receiver advertised window in bytes.
    pub rwnd_bytes: u64,
    pub rto_min: SimTime,
    pub rto_init: SimTime,
    pub rto_max: SimTime,
    /// Clock granularity G of RFC 6298 (2.4): RTO = SRTT + max(G, 4·RTTVAR).
    pub granularity: SimTime,
    /// Backoff factor cap: RTO doubles per timeout up to `max_backoff` × RTO.
    pub max_backoff: u32,
    pub dupack_threshold: u32,
    /// Whether the duplicate-ACK threshold adapts to reordering it detects.
    pub reordering: Reordering,
    /// Loss detection: duplicate-ACK counting or RACK-TLP.
    pub recovery: LossRecovery,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: SimTime,
    /// Segments per delayed ACK (RFC 1122: 2).
    pub delayed_ack_segments: u32,
    /// Linux's quick-ACK mode at connection start: with delayed ACKs, the
    /// first this many in-order data segments are ACKed at once, so slow
    /// start is not paced by the delayed-ACK timer (0: off).
    pub delayed_ack_quickack: u32,
    /// Slow start adds at most this many SMSS per ACK (RFC 3465's L): 2,
    /// or 1 as RFC 5681 §3.1 (the standard) and ns-3's TcpNewReno have it,
    /// which with delayed ACKs grows cwnd 1.5× per round instead of 2×;
    /// [`ABC_UNLIMITED`]: every acknowledged byte, as Linux counts.
    pub abc_limit: u32,
    pub sack: bool,
    /// RFC 6675 NextSeg rule 4: one rescue retransmission of the highest
    /// unSACKed segment per recovery (rules 1–3 always apply with SACK).
    pub sack_rescue: bool,
    /// RFC 3042 Limited Transmit: a new segment on each of the first two
    /// duplicate ACKs (flight ≤ cwnd + 2·SMSS), cwnd unchanged. On by
    /// default, as RFC 5681 §3.2 says a TCP SHOULD (and Linux and ns-3
    /// do): without it a window of three or fewer segments beyond a loss
    /// cannot produce the third duplicate ACK and waits for the RTO.
    pub limited_transmit: bool,
    // ---- issue 24: loss recovery as real stacks do it
    /// Rate reduction in SACK fast recovery (without SACK, RFC 6582's
    /// window inflation paces recovery whatever this says).
    pub reduction: Reduction,
    /// Slow-start exit heuristic.
    pub hystart: HyStart,
    /// Growth only while cwnd-limited.
    pub cwnd_validation: CwndValidation,
    /// What an ACK of new data counts toward growth.
    pub ack_counting: AckCounting,
    /// What the send test counts cwnd in.
    pub cwnd_counting: CwndCounting,
    /// When NewReno recovery restarts the timer on partial ACKs.
    pub partial_ack_timer: PartialAckTimer,
    /// How NewReno recovery paces what it sends.
    pub reno_reduction: RenoReduction,
    /// The window a full ACK leaves at the end of an inflated recovery.
    pub reno_exit: RenoExit,
    /// How an ECN echo reduces the window.
    pub ecn_reduction: EcnReduction,
    /// When RACK-TLP's probe and reordering timers fire.
    pub rack_timers: RackTimers,
    /// How the retransmission timeout is sized and when it fires.
    pub rto_timer: RtoTimer,
    /// What a repeated timeout of the same data does to ssthresh.
    pub rto_ssthresh: RtoSsthresh,
    /// RACK keeps looking for lost segments after a timeout (Linux's
    /// tcp_fastretrans_alert in TCP_CA_Loss), and a retransmission found
    /// lost moves the flow from Loss to Recovery.
    pub rack_in_loss: bool,
    /// RACK.rtt from every delivered segment (Linux's tcp_rack_advance),
    /// not only the most recently sent one (RFC 8985 §6.2).
    pub rack_rtt_each_segment: bool,
    /// An ACK below snd_una still has its SACK blocks read (Linux's
    /// tcp_ack old_ack path); RFC-minded stacks drop it whole.
    pub sack_on_old_ack: bool,
    /// Without SACK, a recovery or timeout whose ACKs reach exactly its
    /// `recover` point is held there until an ACK covers data above it
    /// (Linux's tcp_is_non_sack_preventing_reopen, RFC 2582 §5's careful
    /// variant): duplicate ACKs at that point start no fast retransmit.
    pub reno_hold: bool,
    /// The kernel's timer tick (CONFIG_HZ) for what Linux counts in
    /// jiffies: `cubic.linux`'s arithmetic and `rack_timers = Linux`. 250
    /// (Debian's and Ubuntu's kernels, and validation/linux_lab's), 100,
    /// 300 or 1000.
    pub hz: u32,
    /// cwnd after an idle period longer than the RTO.
    pub idle_restart: IdleRestart,
    /// RTT samples from echoed timestamps (RFC 7323) on every ACK that
    /// advances snd_una; false: one timed segment per RTT, never a
    /// retransmitted one, and the backed-off RTO kept until a valid sample
    /// (Karn's algorithm, RFC 6298 §3 and (5.7)).
    pub timestamps: bool,
    /// Negotiate ECN (ECT on data, ECE echo, CWR). DCTCP and FaST flows
    /// always use ECN, whatever this says ([`CcKind::needs_ecn`]).
    pub ecn: bool,
    /// Model the three-way handshake's RTT sample (seeds SRTT with the unloaded path RTT).
    pub handshake_rtt_sample: bool,
    pub cubic: CubicParams,
    pub dctcp: DctcpParams,
    /// Protective Load Balancing (DCTCP only).
    pub plb: PlbParams,
    /// A timeout draws a new flow label (Linux's `net.core.txrehash`,
    /// tcp_write_timeout's sk_rethink_txhash): a flow whose switches hash
    /// the label takes another path after every RTO (Protective ReRoute).
    pub txrehash: bool,
    pub fast: FastParams,
    pub dsr: DsrParams,
    pub tcprand: TcpRandParams,
    pub probretx: ProbRetxParams,
    /// `transport`: TCP, or NDP's receiver-driven transport (tcp/ndp.rs).
    pub transport: Transport,
    pub ndp: NdpParams,
    pub swift: SwiftParams,
    pub hpcc: HpccParams,
    pub dcqcn: DcqcnParams,
    pub timely: TimelyParams,
}

/// `tcp.transport`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Transport {
    #[default]
    Tcp,
    Ndp,
    /// Swift's delay-based window (tcp/swift.rs).
    Swift,
    /// HPCC (tcp/hpcc.rs): windows from in-band telemetry.
    Hpcc,
    /// DCQCN (tcp/dcqcn.rs): RoCE's rate control from ECN marks.
    Dcqcn,
    /// TIMELY (tcp/timely.rs): RoCE's rate control from RTT gradients, on
    /// DCQCN's rate sender.
    Timely,
}

// The matches below name every transport, so that a new one cannot take
// the flows table's columns or TCP's keys from another by default.
impl Transport {
    /// `tcp.transport`'s value, as the flows table's `transport` column.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Ndp => "ndp",
            Transport::Swift => "swift",
            Transport::Hpcc => "hpcc",
            Transport::Dcqcn => "dcqcn",
            Transport::Timely => "timely",
        }
    }

    /// Whether its flows run TCP's congestion control (`tcp.cc`): the
    /// others run their own window or rate.
    pub fn runs_tcp_cc(self) -> bool {
        match self {
            Transport::Tcp => true,
            Transport::Ndp
            | Transport::Swift
            | Transport::Hpcc
            | Transport::Dcqcn
            | Transport::Timely => false,
        }
    }

    /// Whether its flows count duplicate ACKs (`tcp.dupack_threshold`):
    /// Swift keeps TCP's fast retransmit; NDP, HPCC, DCQCN and TIMELY
    /// recover by their own NACKs and timers.
    pub fn counts_dupacks(self) -> bool {
        match self {
            Transport::Tcp | Transport::Swift => true,
            Transport::Ndp | Transport::Hpcc | Transport::Dcqcn | Transport::Timely => false,
        }
    }
}

/// NDP's parameters (`ndp_*` keys), defaults those of htsim's `main_ndp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpParams {
    /// Packets sent unsolicited when a transfer starts; 0: one BDP of the
    /// flow's path (the paper's; htsim's main_ndp: 15).
    pub initial_window: u32,
    /// The pull pacer's rate as a fraction of the receiver's line rate
    /// (htsim: 0.99).
    pub pull_rate: f64,
    /// Resend what has been unanswered this long (htsim's main_ndp: 50 ms).
    pub rto: SimTime,
}

impl Default for NdpParams {
    fn default() -> Self {
        NdpParams {
            initial_window: 0,
            pull_rate: 0.99,
            rto: SimTime::from_ms(50),
        }
    }
}

/// Swift's parameters (`swift_*` keys; Kumar et al., SIGCOMM 2020,
/// Algorithm 1). The paper gives the algorithm with symbolic constants;
/// the defaults are those of htsim's Swift (csg-htsim 841d9e7, swift.cpp),
/// the implementation docs/swift.md compares against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwiftParams {
    /// Base fabric target delay (htsim: 20 µs).
    pub base_target: SimTime,
    /// Target added per hop of the path (`h`; htsim: base_target / 6.55).
    pub hop_scale: Option<SimTime>,
    /// Flow scaling's largest addition to the target (htsim: 5 × base).
    pub fs_range: Option<SimTime>,
    /// Flow scaling: windows (packets) at which it adds fs_range and 0.
    pub fs_min_cwnd: f64,
    pub fs_max_cwnd: f64,
    /// Endpoint target delay (receiver's hold of an ACK).
    pub endpoint_target: SimTime,
    /// Additive increase per RTT, packets (htsim: 1).
    pub ai: f64,
    /// Multiplicative-decrease gain β (htsim: 0.8).
    pub beta: f64,
    /// Largest decrease in one step (htsim: 0.5).
    pub max_mdf: f64,
    /// Window bounds in bytes (htsim: 10 bytes and 1000 packets).
    pub min_cwnd: u32,
    pub max_cwnd_packets: u32,
    /// Initial window, packets (htsim's main_swift: 15).
    pub initial_window: u32,
    /// Timeouts in a row after which the window drops to min_cwnd (htsim: 5).
    pub rtx_reset_threshold: u32,
    /// Smallest retransmission timeout (htsim: 100 µs; 1 ms before an RTT sample).
    pub rto_min: SimTime,
}

impl Default for SwiftParams {
    fn default() -> Self {
        SwiftParams {
            base_target: SimTime::from_us(20),
            hop_scale: None,
            fs_range: None,
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            endpoint_target: SimTime::from_us(20),
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            min_cwnd: 10,
            max_cwnd_packets: 1000,
            initial_window: 15,
            rtx_reset_threshold: 5,
            rto_min: SimTime::from_us(100),
        }
    }
}

impl SwiftParams {
    /// `h`: the target added per hop.
    pub fn hop_scale(&self) -> SimTime {
        self.hop_scale
            .unwrap_or(SimTime((self.base_target.0 as f64 / 6.55) as u64))
    }
    /// Flow scaling's range.
    pub fn fs_range(&self) -> SimTime {
        self.fs_range.unwrap_or(SimTime(5 * self.base_target.0))
    }
}

/// HPCC's parameters (`hpcc_*` keys), defaults the paper's (Li et al.,
/// SIGCOMM 2019, §3.3 and Algorithm 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HpccParams {
    /// η, the target utilisation.
    pub eta: f64,
    /// maxStage: additive-increase rounds before a multiplicative step.
    pub max_stage: u32,
    /// W_AI in bytes; 0: W_init·(1 − η)/N (the paper's rule).
    pub w_ai: u64,
    /// N of that rule: the flows expected at once on a link.
    pub n: u32,
    /// T, the base RTT; zero: the flow's unloaded path RTT.
    pub base_rtt: SimTime,
    /// U before the first telemetry (htsim starts at η, the HPCC
    /// authors' ns-3 at 1).
    pub u_init: f64,
    /// Go back to the first unacknowledged byte when nothing was
    /// acknowledged for this long (a lost tail has no NACK).
    pub rto: SimTime,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            w_ai: 0,
            n: 10,
            base_rtt: SimTime::ZERO,
            u_init: 0.0,
            rto: SimTime::from_ms(1),
        }
    }
}

/// DCQCN's parameters (`dcqcn_*` keys; Zhu et al., SIGCOMM 2015, §3),
/// defaults those of htsim's DCQCN (`dcqcn.cpp`). Rates left at 0 are
/// taken from the sender's line rate when the flow starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcqcnParams {
    /// g, the gain of α's moving average.
    pub g: f64,
    /// The period of the rate-increase timer and of α's decay (the
    /// paper's T and K).
    pub timer: SimTime,
    /// B: every B bytes sent count one byte-counter stage.
    pub byte_counter: u64,
    /// F: stages of fast recovery before additive increase.
    pub f: u32,
    /// R_AI, b/s; 0: the line rate / 20 (htsim's).
    pub rai_bps: u64,
    /// R_HAI, b/s; 0: the line rate / 10 (htsim's).
    pub rhai_bps: u64,
    /// The rate never falls below this, b/s; 0: the line rate / 1000.
    pub min_rate_bps: u64,
    /// N: the receiver sends at most one CNP per flow per interval.
    pub cnp_interval: SimTime,
    /// Go back to the first unacknowledged byte when nothing was
    /// acknowledged for this long (a lost tail has no NACK).
    pub rto: SimTime,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            g: 1.0 / 256.0,
            timer: SimTime::from_us(55),
            byte_counter: 10_000_000,
            f: 5,
            rai_bps: 0,
            rhai_bps: 0,
            min_rate_bps: 0,
            cnp_interval: SimTime::from_us(50),
            rto: SimTime::from_ms(1),
        }
    }
}

/// TIMELY's parameters (`timely_*` keys; Mittal et al., SIGCOMM 2015,
/// Algorithm 1). Defaults are those of the HPCC authors' ns-3
/// (rdma-hw.cc's attributes, and run.py's increase steps at 100 Gbps scaled
/// with the line rate), the implementation docs/timely.md compares against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelyParams {
    /// α, the weight of the newest RTT difference in its moving average.
    pub alpha: f64,
    /// β, the multiplicative-decrease factor.
    pub beta: f64,
    /// Below this RTT the rate rises whatever the gradient.
    pub t_low: SimTime,
    /// Above this RTT the rate falls by β·(1 − T_high/RTT).
    pub t_high: SimTime,
    /// The gradient's normaliser (the paper's minRTT).
    pub min_rtt: SimTime,
    /// δ, the additive increase, b/s; 0: the line rate / 1000.
    pub rai_bps: u64,
    /// The hyper-active increase, b/s; 0: 5 δ.
    pub rhai_bps: u64,
    /// Increases in a row after which each is the hyper-active one (N).
    pub hai_after: u32,
    /// The rate never falls below this, b/s; 0: the line rate / 1000.
    pub min_rate_bps: u64,
    /// Go back to the first unacknowledged byte when nothing was
    /// acknowledged for this long (a lost tail has no NACK).
    pub rto: SimTime,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams {
            alpha: 0.875,
            beta: 0.8,
            t_low: SimTime::from_us(50),
            t_high: SimTime::from_us(500),
            min_rtt: SimTime::from_us(20),
            rai_bps: 0,
            rhai_bps: 0,
            hai_after: 5,
            min_rate_bps: 0,
            rto: SimTime::from_ms(1),
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcKind::NewReno,
            seg: SegPolicyKind::Fixed,
            mss: 1460,
            header_bytes: 40,
            init_cwnd_segments: 2,
            init_ssthresh_segments: None,
            ca_increase: CaIncrease::Bytes,
            rwnd_bytes: 1 << 20,
            rto_min: SimTime::from_ms(200),
            rto_init: SimTime::from_ms(1000),
            rto_max: SimTime::from_secs(60),
            granularity: SimTime::ZERO,
            max_backoff: 64,
            dupack_threshold: 3,
            reordering: Reordering::Fixed,
            recovery: LossRecovery::DupAck,
            delayed_ack: false,
            delayed_ack_timeout: SimTime::from_ms(40),
            delayed_ack_segments: 2,
            delayed_ack_quickack: 0,
            abc_limit: 2,
            sack: false,
            sack_rescue: false,
            limited_transmit: true,
            // A default under which SACK recovers worse than no SACK (issue
            // 24: RFC 6675's unpaced sending after a slow-start overshoot)
            // would be a trap; Linux and ns-3.37 pace recovery with PRR.
            reduction: Reduction::PrrBis,
            hystart: HyStart::Off,
            // The papers' simulators grew cwnd on every ACK.
            cwnd_validation: CwndValidation::Off,
            ack_counting: AckCounting::Acked,
            cwnd_counting: CwndCounting::Bytes,
            partial_ack_timer: PartialAckTimer::Impatient,
            reno_reduction: RenoReduction::Inflation,
            // RFC 6582's first option, the one it recommends against bursts
            reno_exit: RenoExit::FlightSize,
            ecn_reduction: EcnReduction::Cut,
            rack_timers: RackTimers::Rfc8985,
            rto_timer: RtoTimer::Exact,
            // RFC 5681 §3.1 and Linux alike
            rto_ssthresh: RtoSsthresh::Hold,
            rack_in_loss: false,
            rack_rtt_each_segment: false,
            sack_on_old_ack: false,
            reno_hold: false,
            hz: 250,
            idle_restart: IdleRestart::Off,
            timestamps: true,
            ecn: false,
            handshake_rtt_sample: true,
            cubic: CubicParams::default(),
            dctcp: DctcpParams::default(),
            plb: PlbParams::default(),
            txrehash: false,
            fast: FastParams::default(),
            dsr: DsrParams::default(),
            tcprand: TcpRandParams::default(),
            probretx: ProbRetxParams::default(),
            transport: Transport::Tcp,
            ndp: NdpParams::default(),
            swift: SwiftParams::default(),
            hpcc: HpccParams::default(),
            dcqcn: DcqcnParams::default(),
            timely: TimelyParams::default(),
        }
    }
}

/// The defaults a `[tcp]` table starts from, before its own keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpProfile {
    /// [`TcpConfig::default`]: the papers' NewReno stack.
    Papers,
    /// [`TcpConfig::linux`]: today's Linux defaults.
    Linux,
}

impl TcpConfig {
    /// Today's Linux defaults (kernel 6.x, Ethernet MTU 1500), each value
    /// the one a stock kernel runs with; docs/linux_profile.md names the
    /// sysctl or kernel constant behind every key. What it leaves at the
    /// papers' defaults has no Linux counterpart here (`rwnd`: Linux
    /// autotunes it) or is a workload's choice.
    pub fn linux() -> Self {
        TcpConfig {
            cc: CcKind::Cubic,
            // 1500 B MTU − 20 B IP − 20 B TCP − 12 B timestamp option.
            mss: 1448,
            header_bytes: 52,
            init_cwnd_segments: 10,
            rto_min: SimTime::from_ms(200),
            rto_init: SimTime::from_secs(1),
            rto_max: SimTime::from_secs(120),
            // Linux's RTO is SRTT + max(4·RTTVAR, rto_min) (its RTTVAR
            // never falls below rto_min, tcp_rtt_estimator): RFC 6298's
            // G = rto_min. scenario::resolve keeps G = rto_min when only
            // rto_min is overridden.
            granularity: SimTime::from_ms(200),
            // Linux doubles the RTO up to TCP_RTO_MAX; rto_max binds first.
            max_backoff: 1024,
            dupack_threshold: 3,
            reordering: Reordering::Adaptive,
            recovery: LossRecovery::Rack,
            delayed_ack: true,
            delayed_ack_timeout: SimTime::from_ms(40),
            delayed_ack_segments: 2,
            delayed_ack_quickack: 16,
            sack: true,
            limited_transmit: true,
            // tcp_cwnd_reduction (PRR, RFC 6937bis rules since 6.0).
            reduction: Reduction::PrrBis,
            // tcp_cubic: hystart = 1, hystart_detect = 3 (scenario keeps it
            // off under the profile for another cc).
            hystart: HyStart::Linux,
            // tcp_slow_start: cwnd += acked (in segments), only up to ssthresh.
            abc_limit: ABC_UNLIMITED,
            // tcp_cong_avoid → tcp_is_cwnd_limited (tcp_cwnd_validate).
            cwnd_validation: CwndValidation::Linux,
            // tcp_cong_control grows by acked_sacked (newly delivered).
            ack_counting: AckCounting::Delivered,
            // tcp_cwnd_test: tcp_packets_in_flight < snd_cwnd.
            cwnd_counting: CwndCounting::Packets,
            // tcp_clean_rtx_queue → tcp_rearm_rto on every ACK of new data,
            // tcp_xmit_retransmit_queue on every resend of the head.
            partial_ack_timer: PartialAckTimer::Linux,
            // tcp_cwnd_reduction in every Recovery, with or without SACK.
            reno_reduction: RenoReduction::Prr,
            // unread under PRR (tcp_end_cwnd_reduction sets ssthresh)
            reno_exit: RenoExit::FlightSize,
            // tcp_enter_cwr → tcp_cwnd_reduction on every ACK in CWR.
            ecn_reduction: EcnReduction::Prr,
            // tcp_schedule_loss_probe (Open/CWR only, + TCP_TIMEOUT_MIN),
            // tcp_rack_mark_lost (+ TCP_TIMEOUT_MIN), in jiffies of `hz`.
            rack_timers: RackTimers::Linux,
            // not __tcp_set_rto's jiffies (`rto_timer = "linux"`): the
            // studies and the lab's tables are of the exact RTO, and the
            // lab's gap under it is the lockstep ACK clock's
            // (docs/linux_profile.md)
            rto_timer: RtoTimer::Exact,
            // tcp_enter_loss: a new ssthresh outside Loss or on the first timeout only
            rto_ssthresh: RtoSsthresh::Hold,
            // tcp_fastretrans_alert's TCP_CA_Loss case: tcp_identify_packet_loss,
            // then FLAG_LOST_RETRANS falls through to tcp_enter_recovery.
            rack_in_loss: true,
            // tcp_rack_advance sets rack.rtt_us for every skb it is
            // called on, and rack.mstamp only for the most recently sent
            rack_rtt_each_segment: true,
            // tcp_ack's old_ack: tcp_sacktag_write_queue, tcp_fastretrans_alert,
            // tcp_xmit_recovery on an ACK below snd_una with SACK blocks
            sack_on_old_ack: true,
            // tcp_try_undo_recovery / tcp_try_undo_loss: "Hold old state
            // until something *above* high_seq is ACKed" (tcp_is_reno).
            reno_hold: true,
            // net.ipv4.tcp_slow_start_after_idle = 1.
            idle_restart: IdleRestart::Linux,
            // tcp_cubic's bictcp_update: cnt ≤ 20 while last_max_cwnd == 0.
            cubic: CubicParams {
                linux: true,
                ..CubicParams::default()
            },
            timestamps: true,
            ..TcpConfig::default()
        }
    }

    /// The defaults of a profile.
    pub fn of_profile(p: TcpProfile) -> Self {
        match p {
            TcpProfile::Papers => TcpConfig::default(),
            TcpProfile::Linux => TcpConfig::linux(),
        }
    }
}

/// What a long (bulk) flow sends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BulkAmount {
    Bytes(u64),
    /// Send as fast as allowed until `start + duration`.
    Duration(SimTime),
}

#[derive(Clone, Debug, PartialEq)]
pub enum AppSpec {
    /// One long TCP flow from host `src` to host `dst`.
    Bulk {
        src: usize,
        dst: usize,
        amount: BulkAmount,
        start: SimTime,
        tcp: TcpConfig,
    },
    /// Partition/aggregate: `aggregator` asks every worker for `response_bytes`,
    /// `queries` times in sequence; QCT is measured per query.
    PartitionAggregate {
        aggregator: usize,
        workers: Vec<usize>,
        response_bytes: u64,
        request_bytes: u64,
        queries: u32,
        /// Idle time between the end of one query and the start of the next.
        gap: SimTime,
        start: SimTime,
        tcp: TcpConfig,
    },
    /// Synchronized reads: `client` requests one SRU from each server; the next
    /// block is requested only when all SRUs of the current block arrived.
    SyncReads {
        client: usize,
        servers: Vec<usize>,
        sru_bytes: u64,
        request_bytes: u64,
        blocks: u32,
        /// Each request leaves the client after a uniform random delay in [0, jitter].
        jitter: SimTime,
        /// Request i (in the order of `servers`) leaves i × spacing after
        /// the block starts (before its jitter): a client that issues its
        /// requests one after another.
        spacing: SimTime,
        start: SimTime,
        tcp: TcpConfig,
    },
    /// UDP constant bit rate source.
    UdpCbr {
        src: usize,
        dst: usize,
        rate_bps: u64,
        payload_bytes: u32,
        start: SimTime,
        stop: SimTime,
    },
    /// Poisson flow arrivals at a target load (boxed: the CDF is large).
    Poisson(Box<PoissonSpec>),
}

impl AppSpec {
    /// The app's full-size packet without `l2_overhead`: TCP's mss and
    /// header, UDP's payload and its 28 header bytes; None for an app that
    /// sends none.
    pub fn full_packet(&self) -> Option<u64> {
        match (self, self.tcp()) {
            (_, Some(t)) => Some(t.mss as u64 + t.header_bytes as u64),
            (AppSpec::UdpCbr { payload_bytes, .. }, None) => Some(*payload_bytes as u64 + 28),
            _ => None,
        }
    }
    /// The app's TCP configuration; none for UDP.
    pub fn tcp(&self) -> Option<&TcpConfig> {
        match self {
            AppSpec::Bulk { tcp, .. }
            | AppSpec::PartitionAggregate { tcp, .. }
            | AppSpec::SyncReads { tcp, .. } => Some(tcp),
            AppSpec::Poisson(p) => Some(&p.tcp),
            AppSpec::UdpCbr { .. } => None,
        }
    }

    /// When the app starts its first flow (or sends its first datagram).
    pub fn start(&self) -> SimTime {
        match self {
            AppSpec::Bulk { start, .. }
            | AppSpec::PartitionAggregate { start, .. }
            | AppSpec::SyncReads { start, .. }
            | AppSpec::UdpCbr { start, .. } => *start,
            AppSpec::Poisson(p) => p.start,
        }
    }
}

/// Open-loop Poisson flow arrivals (pFabric-style workload): each arrival
/// opens a new TCP flow of a size drawn from `cdf` between a random pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonSpec {
    /// Host indices that may send / receive (a source never sends to itself).
    pub sources: Vec<usize>,
    pub destinations: Vec<usize>,
    /// Target load: arrival rate × mean size / Σ edge capacity of the sources.
    pub load: f64,
    pub cdf: crate::cdf::FlowSizeCdf,
    /// Where the CDF came from (a built-in name, a file, or `inline`), for reports.
    pub cdf_name: String,
    /// Σ over sources of their access-link rate (bit/s).
    pub capacity_bps: u64,
    pub start: SimTime,
    /// Arrivals stop at `start + duration` …
    pub duration: SimTime,
    /// … or after this many flows, whichever comes first.
    pub max_flows: Option<u64>,
    pub tcp: TcpConfig,
}

impl PoissonSpec {
    /// Flow arrivals per second.
    pub fn arrival_rate(&self) -> f64 {
        self.load * self.capacity_bps as f64 / 8.0 / self.cdf.mean()
    }
}

/// A whole, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub name: String,
    pub topology: TopologySpec,
    pub routing: RoutingMode,
    /// L2 framing bytes added to every packet on the wire (0 = none, 38 = Ethernet incl. preamble and IFG).
    pub l2_overhead: u32,
    /// Per-switch processing delay added before enqueue at the egress port.
    pub switch_delay: SimTime,
    /// Host timing noise: a packet that finds its host's NIC idle starts
    /// serializing after U[0, host_jitter]. Zero keeps the run free of it,
    /// as ns-2/ns-3/htsim are; a small value breaks drop-tail phase
    /// lock-out (Floyd & Jacobson 1991) without changing the line rate.
    pub host_jitter: SimTime,
    /// Simulation ends at this time at the latest (apps may finish earlier).
    pub stop: SimTime,
    pub seed: u64,
    pub apps: Vec<AppSpec>,
    /// Per app (by index; missing or zero = none), `start_jitter`: the app
    /// starts at its `start` plus U[0, start_jitter], drawn from the seed,
    /// so flows that would all start at once (and phase-lock on a drop-tail
    /// port, Floyd & Jacobson 1992) start as a simulator script's jittered
    /// starts do. Kept beside `apps` so an app built in code needs none.
    pub start_jitter: Vec<SimTime>,
    /// Hosts whose interface is captured into a pcap trace.
    pub pcap_hosts: Vec<usize>,
    /// Periodic time series of flows and queues, if requested.
    pub trace: Option<TraceConfig>,
    /// `limits`: checked before the run (limits.rs) and, for memory, during it.
    pub limits: Limits,
    /// `ties`: the order of equal-time events (sim/queue.rs).
    pub ties: Ties,
    /// `until`: whether the run ends when its apps are done or at `stop`.
    pub until: Until,
    /// `threads`: how many threads (partitions) run the simulation.
    pub threads: Threads,
    /// `[trimming]`: switches trim payloads and serve headers first.
    pub trimming: Option<TrimConfig>,
    /// `[pfc]`: a lossless fabric (net/pfc.rs).
    pub pfc: Option<PfcConfig>,
    /// RED's marking ramp above every switch port's `ecn_k` (net/ramp.rs).
    pub ecn_ramp: Option<EcnRamp>,
    /// In-band telemetry at every switch egress (net/int.rs): on when a
    /// flow runs HPCC, or when `int = true`.
    pub int: bool,
    /// `[[failures]]`: links that go down, lose packets or slow down for
    /// a while (net/failure.rs).
    pub failures: Vec<FailureSpec>,
    /// Warnings of TCP keys set where nothing reads them (path, message),
    /// found while reading the document (scenario::warnings reports them).
    pub inert_keys: Vec<(String, String)>,
    /// Per app (by index), how its TCP was written, so that a warning
    /// names the table the user set a key in (`apps[2].tcp.KEY` or the
    /// top-level `tcp.KEY`); empty for a config built in code, whose
    /// warnings name the apps.
    pub tcp_written: Vec<TcpWritten>,
}

/// How one app's TCP was written in the scenario document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpWritten {
    /// The keys of the app's own `tcp` table; the others it read from the
    /// top-level `[tcp]` (or left at their defaults).
    pub own_keys: Vec<String>,
}

/// One `[[failures]]` entry: what happens to some directed links from
/// `at` until `until` (net/failure.rs).
#[derive(Clone, Debug, PartialEq)]
pub struct FailureSpec {
    /// The directed links it strikes (`2·i` is topology link `i` from `a`
    /// to `b`, `2·i + 1` back: net/routing.rs).
    pub dlinks: Vec<u32>,
    pub at: SimTime,
    /// When the link is restored (`SimTime::MAX`: never).
    pub until: SimTime,
    /// The fraction of packets lost meanwhile: 1 is a link down.
    pub loss: f64,
    /// The rate the link runs at meanwhile (`None`: its own).
    pub rate_bps: Option<u64>,
    /// Routing has converged around it: no path uses the link (down from
    /// the start for good, both ways, between two switches).
    pub withdrawn: bool,
    /// Routing converges this long after `at` (withdraws the link) and as
    /// long after `until` (restores it); `None`: it never reacts.
    pub converge: Option<SimTime>,
}

impl FailureSpec {
    /// Whether routing avoids this failure's link at `t`: withdrawn from
    /// the start, or converged around by then (`converge` after `at`) and
    /// not yet restored (as long after `until`).
    pub fn routed_around_at(&self, t: SimTime) -> bool {
        self.withdrawn
            || self.converge.is_some_and(|c| {
                let restored = self.until != SimTime::MAX && self.until.saturating_add(c) <= t;
                self.at.saturating_add(c) <= t && !restored
            })
    }
}

impl Config {
    /// The largest packet the apps send, on the wire (plus `l2_overhead`);
    /// 0 plus it when no app sends one.
    pub fn full_packet(&self) -> u64 {
        self.apps
            .iter()
            .filter_map(AppSpec::full_packet)
            .max()
            .unwrap_or(0)
            + self.l2_overhead as u64
    }
    /// Per directed link, whether routing avoids it at `t`: the
    /// `withdrawn` failures', and those whose routing has converged by
    /// then (`converge` after `at`) and not yet restored them (as long
    /// after `until`). Empty when it avoids none.
    pub fn routed_around(&self, t: SimTime) -> Vec<bool> {
        let avoided = |f: &&FailureSpec| f.routed_around_at(t);
        if !self.failures.iter().any(|f| avoided(&f)) {
            return Vec::new();
        }
        let mut dead = vec![false; 2 * self.topology.links.len()];
        for f in self.failures.iter().filter(avoided) {
            for &l in &f.dlinks {
                dead[l as usize] = true;
            }
        }
        dead
    }

    /// When routing converges around a failure or restores its link
    /// (`converge`), before `stop`, each with [`Self::routed_around`] from
    /// then on. Empty when no failure converges.
    pub fn reroutes(&self) -> Vec<(SimTime, Vec<bool>)> {
        let mut times: Vec<SimTime> = self
            .failures
            .iter()
            .filter_map(|f| Some((f, f.converge?)))
            .flat_map(|(f, c)| {
                [
                    Some(f.at.saturating_add(c)),
                    (f.until != SimTime::MAX).then(|| f.until.saturating_add(c)),
                ]
            })
            .flatten()
            .filter(|&t| t < self.stop)
            .collect();
        times.sort_unstable();
        times.dedup();
        times
            .into_iter()
            .map(|t| (t, self.routed_around(t)))
            .collect()
    }
}

/// `threads`: a number, or "auto" (see `crate::parallel::auto_threads`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    N(u32),
    Auto,
}

impl Default for Threads {
    fn default() -> Self {
        Threads::N(1)
    }
}

/// The order of events at equal times (sim/queue.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ties {
    /// First-in first-out, as ns-2 and ns-3: the papers' simulators.
    Fifo,
    /// By component, scrambled per instant by the seed: independent of when
    /// events were scheduled, so any number of threads gives the same run
    /// (the default).
    #[default]
    Seeded,
}

/// When a run ends (`until`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Until {
    /// At the event that finishes the last app, or at `stop` if that is
    /// earlier (the default).
    #[default]
    AppsDone,
    /// At `stop` whatever the apps do, as ns-3's `Simulator::Stop` and
    /// htsim's end time: what happens after the apps are done (timers
    /// firing, retransmissions, queues draining) is simulated and counted.
    Stop,
}

/// `trace = { interval = "1ms", flows = true, queues = "all" }`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TraceConfig {
    pub interval: SimTime,
    /// Sample every TCP flow (delivered bytes, cwnd, ssthresh, srtt).
    pub flows: bool,
    /// Directed queue ids (as in the `queues` table) to sample.
    pub queues: Vec<usize>,
}

// The limits live with the rest of the configuration (limits.rs only
// estimates), so config stays a leaf the estimator can depend on.
/// Default `limits.memory`: a run that may need more is rejected.
pub const DEFAULT_MEMORY: u64 = 16 << 30;
/// Default `limits.events`: about a day of wall time at 10⁷ events/s.
pub const DEFAULT_EVENTS: u64 = 1_000_000_000_000;

/// `limits = { memory = "16GB", events = 1e12 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub memory: u64,
    pub events: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: DEFAULT_MEMORY,
            events: DEFAULT_EVENTS,
        }
    }
}
