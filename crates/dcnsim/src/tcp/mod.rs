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
//! unacknowledged timestamp (RFC 7323 §4.3), with Linux's quick-ACK of a
//! connection's first segments (`delayed_ack_quickack`), ECN (RFC 3168; the receiver's
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
//! The flow's state and constructor are here; its behaviour is split by
//! role into `impl TcpFlow` blocks in child modules (which see the private
//! fields): [`sender`] (window, transmission, the ACK path), [`receiver`]
//! (data, delivery, ACKs sent), [`rto`] (RTT, timeouts, probabilistic
//! retransmission). Loss recovery is a machine of its own,
//! [`recovery::Recovery`] (NewReno, SACK or RACK-TLP), which reads a view
//! of the sender and returns actions the flow carries out.
//!
//! Kulkarni's mechanisms (SPEC §2.3): probabilistic retransmission (a
//! per-flow "retransmit thread", [`ProbRetxParams`]), Dynamic Segment
//! Resizing (a segment policy, [`seg::dsr::dsr_resize`]) and the timeout
//! taxonomy: every RTO is classified ABTT or IBTT by where it falls in the
//! application's message (block), and by how many duplicate ACKs preceded it.

pub mod bbr;
pub mod cc;
pub mod cwnd_validation;
pub mod dcqcn;
pub mod echo;
pub mod hpcc;
pub mod hystart;
pub mod info;
pub mod io;
pub mod jiffies;
pub mod ndp;
pub mod plb;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod seg;
pub mod sender;
pub mod swift;
pub mod timely;

use crate::config::{EcnReduction, ProbRetxParams, ProbRetxTarget, TcpConfig, MAX_REORDERING};
use crate::net::{flags, Packet, PktKind};
use crate::sim::queue::{Fire, LazyTimer};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;
use cc::{AckInfo, Cc, CcState, LossKind};
use echo::{EchoAction, EchoMode, EcnEcho};
pub use info::TcpInfo;
pub use io::{TcpIo, TcpOut, TcpTimer};
use rand::Rng as _;
use recovery::rack::Undo;
use recovery::{Episode, Recovery, Shared};
use seg::{SegPolicy, SegView};
use std::collections::VecDeque;
use std::sync::Arc;

/// One transmitted, not yet cumulatively acknowledged segment. Segments are
/// retransmitted with the bounds they were first sent with, as a real stack
/// retransmits its skbs.
///
/// Half a line, aligned to it: an ACK reads the scoreboard's front, the
/// entries it acknowledges, which at a large fabric have left the cache
/// since they were sent; an entry that straddled two lines cost two misses.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Seg {
    start: u64,
    len: u32,
    sacked: bool,
    /// Retransmitted during the current SACK recovery episode.
    rexmit: bool,
    /// snd_max when it was last retransmitted in this episode: data above
    /// it left later, so its SACK means the retransmission was lost too.
    rexmit_hi: u64,
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

/// A field that takes half a cache line whatever its size up to 32 bytes,
/// so the `TcpFlow` layout does not move when the timer's type changes.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
struct HalfLine<T>(T);

impl<T> std::ops::Deref for HalfLine<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for HalfLine<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// Bytes of one scoreboard entry (limits.rs).
pub const SEG_BYTES: usize = std::mem::size_of::<Seg>();
const _: () = assert!(SEG_BYTES == 32, "a scoreboard entry is half a line");

/// Scoreboard / out-of-order capacity kept by an idle connection.
const IDLE_CAPACITY: usize = 16;

/// Linux's CWR state reducing cwnd by PRR (`ecn_reduction = "prr"`;
/// tcp_init_cwnd_reduction's fields, in bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CwrPrr {
    /// cwnd when the echo came (prior_cwnd).
    prior_cwnd: u64,
    /// Bytes delivered since (prr_delivered). What was sent since, past
    /// `ecn_recover` (snd_max at the echo), is prr_out.
    delivered: u64,
}

/// Congestion state names as in Linux / ns-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongState {
    Open,
    /// Fast recovery after duplicate ACKs (NewReno or SACK).
    Recovery,
    /// After a retransmission timeout, until snd_una passes `recover`.
    Loss,
}

impl FlowStats {
    /// Add the counters of `o`, the other end's copy (each end bumps only
    /// its own: a partitioned run merges the two this way). The loss log
    /// is the sender's alone.
    pub fn absorb(&mut self, o: &FlowStats) {
        let FlowStats {
            segments_sent,
            bytes_sent,
            acks_sent,
            ecn_marks,
            loss_log,
            retransmits,
            retx_bytes,
            timeouts,
            timeout_period,
            fast_retransmits,
            ecn_cuts,
            ooo_arrivals,
            dup_arrivals,
            abtt,
            ibtt,
            rto_first_flight,
            rto_whole_window,
            rto_few_dupacks,
            rto_many_dupacks,
            probretx_sent,
            probretx_dupacks,
            spurious_retransmits,
            tlp_probes,
            reorder_events,
            ibtt_whole_window,
            ibtt_few_dupacks,
        } = o;
        debug_assert!(loss_log.is_empty(), "a receiver logged a loss");
        self.segments_sent += segments_sent;
        self.bytes_sent += bytes_sent;
        self.acks_sent += acks_sent;
        self.ecn_marks += ecn_marks;
        self.retransmits += retransmits;
        self.retx_bytes += retx_bytes;
        self.timeouts += timeouts;
        self.timeout_period += *timeout_period;
        self.fast_retransmits += fast_retransmits;
        self.ecn_cuts += ecn_cuts;
        self.ooo_arrivals += ooo_arrivals;
        self.dup_arrivals += dup_arrivals;
        self.abtt += abtt;
        self.ibtt += ibtt;
        self.rto_first_flight += rto_first_flight;
        self.rto_whole_window += rto_whole_window;
        self.rto_few_dupacks += rto_few_dupacks;
        self.rto_many_dupacks += rto_many_dupacks;
        self.probretx_sent += probretx_sent;
        self.probretx_dupacks += probretx_dupacks;
        self.spurious_retransmits += spurious_retransmits;
        self.tlp_probes += tlp_probes;
        self.reorder_events += reorder_events;
        self.ibtt_whole_window += ibtt_whole_window;
        self.ibtt_few_dupacks += ibtt_few_dupacks;
    }
}

/// Per-flow counters reported in the `flows` table. The four a packet
/// bumps come first (`repr(C)`): they share a line with the receiver's
/// state in [`TcpFlow`].
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct FlowStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub acks_sent: u64,
    pub ecn_marks: u64,
    /// Every loss indication, in time order: (time, true for a timeout,
    /// false for a fast retransmit). Kulkarni's model groups these across
    /// flows into loss events of the cumulative flow.
    pub loss_log: Vec<(SimTime, bool)>,
    pub retransmits: u64,
    pub retx_bytes: u64,
    pub timeouts: u64,
    pub timeout_period: SimTime,
    pub fast_retransmits: u64,
    pub ecn_cuts: u64,
    pub ooo_arrivals: u64,
    pub dup_arrivals: u64,
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
    /// The IBTTs among `rto_whole_window` and among `rto_few_dupacks`:
    /// the two kinds crossed, as Kulkarni's finding on IBTTs (2012, p. 68)
    /// needs them (an ABTT's window is whole or thinned at the block's
    /// start, a different loss).
    pub ibtt_whole_window: u64,
    pub ibtt_few_dupacks: u64,
}

/// The receiving end's state on a data segment's path (line 8 and the
/// start of line 9 of [`TcpFlow`]): only the receiver writes it, so a world
/// that runs the receiver alone holds all of it ([`TcpFlow::absorb`]).
#[derive(Clone, Debug)]
#[repr(C)]
struct RxLines {
    rcv_nxt: u64,
    ts_recent: SimTime,
    /// rcv_nxt carried by the last ACK sent (RFC 7323 Last.ACK.sent).
    last_ack_sent: u64,
    /// Time the last byte was delivered.
    last_delivery: SimTime,
    /// Out-of-order ranges above rcv_nxt, sorted, disjoint; with recency stamps for SACK.
    ooo: Vec<(u64, u64, u64)>,
    unacked_segs: u32,
    echo: EcnEcho,
    /// The flow label its ACKs carry (in the padding after `echo`, so an
    /// ACK reads it without a test): with `txrehash` a duplicate segment
    /// on a new label draws another (tcp/plb.rs, `rx_note_label`).
    ack_label: u16,
    /// Message boundaries the application waits for at the receiver.
    msg_ends: VecDeque<(u64, u32)>,
}

/// The receiving end's rarely used state (behind the hot lines).
#[derive(Clone, Copy, Debug)]
struct RxRare {
    dack: LazyTimer,
    /// Data segments still to be ACKed at once (`delayed_ack_quickack`).
    quickacks: u32,
    ooo_stamp: u64,
    /// New ACK labels drawn ([`RxLines::ack_label`]).
    ack_rehashes: u32,
    /// The flow label of the last data segment received (Linux's
    /// `lrcv_flowlabel`), kept with `txrehash` only.
    lrcv_label: u16,
    /// What the receiver knows was written (every write of the flow is
    /// noted at both ends, `note_write`): an NDP receiver pulls until it
    /// has it. Not `app_limit`, which a duration flow's close lowers at the
    /// sender alone: one thread's receiver read that at once, and a
    /// partitioned run's could not (1 and 2 threads differed).
    written: u64,
    /// Where the ACK labels' draws start (from the flow's seed, so either
    /// partition holding the receiver draws the same).
    ack_salt: u64,
}

/// One TCP connection (both ends).
///
/// Laid out for the hot path (`repr(C)`, cache-line aligned): a packet
/// arrival at a large fabric finds the flow's lines evicted, so what a data
/// or ACK arrival touches is gathered at the front, grouped by 64-byte line
/// (see the `// line n` markers; `tests::hot_fields_stay_in_their_lines`
/// guards it), and everything else — configuration shared by all flows of a
/// class, recovery state used only on loss, counters of rare events,
/// timers of mechanisms that are off — lies behind. An ACK touches lines
/// 0–6, 9 and 13–16 (the recovery machine and the scoreboard's running
/// facts), a data segment lines 5, 8 and 9, and the shared class.
#[repr(C, align(64))]
pub struct TcpFlow {
    // ---- line 0: sender, every ACK and every send
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// End of the byte stream the application has written so far.
    app_limit: u64,
    pub st: CcState,
    // ---- line 1
    segs: VecDeque<Seg>,
    rto: HalfLine<LazyTimer>,
    // ---- line 2: RTT and timing
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rto_base: SimTime,
    /// Time of the last transmission or forward progress (for the timeout period).
    last_activity: SimTime,
    /// Time of the last transmission.
    last_send: SimTime,
    /// New data segments sent (retransmissions excluded).
    segs_sent: u64,
    /// ECN: no further window reduction until snd_una passes this point.
    ecn_recover: u64,
    // ---- lines 3–4: congestion control, then the sender's small state
    cc: Cc,
    /// The recovery episode every machine shares (`recover`, duplicate ACKs).
    ep: Episode,
    backoff: u32,
    /// Duplicate ACKs (and SACKed segments) that mean loss: the configured
    /// threshold, raised by reordering when `reordering = "adaptive"`.
    pub dupthresh: u32,
    pub cong: CongState,
    ecn_in_cwr: bool,
    send_cwr: bool,
    /// With `ecn_reduction = "prr"`: a CWR is reducing cwnd (its state is
    /// `cwr`, cold).
    cwr_on: bool,
    /// The thread is suspended (duplicate ACKs reached the threshold).
    prx_suspended: bool,
    /// Whether the pending run of the thread is a success of the coin (or
    /// only the end of a bounded batch of failed tosses).
    prx_hit: bool,
    /// The flow label its data carry ([`Packet::label`]): 0 until PLB or
    /// `txrehash` draws another (tcp/plb.rs). In the line every send reads.
    label: u16,
    // ---- line 5: both ends
    /// The flow's configuration, shared by every flow of its class (the
    /// world interns one per distinct configuration).
    pub cfg: Arc<TcpConfig>,
    pub id: u32,
    pub src_host: u32,
    pub dst_host: u32,
    pub app: u32,
    /// Undo information of the current fast recovery (Eifel detection),
    /// set by every recovery machine's entry, checked on every ACK.
    undo: Option<Undo>,
    // ---- line 6: sender
    /// Start offsets of the application's messages (blocks) not yet
    /// passed by snd_una; the front is the message snd_una is in.
    msg_starts: VecDeque<u64>,
    /// The message whose first ACK has arrived, and snd_max at that
    /// moment: the end of the message's first flight.
    first_flight: Option<(u64, u64)>,
    /// Its tag ends line 6 (`repr(u8)`: the tag comes first); a Fixed
    /// policy reads nothing else, the others line 7.
    seg_policy: SegPolicy,
    // ---- line 8 and the start of line 9: receiver, every data segment
    rx: RxLines,
    // ---- line 9: then the counters both ends bump (the first four
    // fields of `FlowStats`)
    pub stats: FlowStats,
    // ---- lines 13–16: read by every ACK but behind the sender's lines:
    // the loss-recovery machine (NewReno, SACK or RACK-TLP), its tag and a
    // NewReno machine in line 13, then the scoreboard's running facts
    // every machine reads.
    rec: Recovery,
    sh: Shared,
    // ---- cold: mechanisms that are off by default, set-up
    /// Time the first byte was written (read at each application write).
    pub start_time: Option<SimTime>,
    rng: Rng,
    /// Linux's CWR by PRR while `cwr_on`.
    cwr: CwrPrr,
    /// `ecn_recover` and `send_cwr` before the last fast recovery's
    /// reduction ([`Self::ecn_loss_reduced`]): undone, the reduction
    /// withdraws its CWR and its claim on the window's echoes, as Linux's
    /// tcp_undo_cwnd_reduction does (tcp_ecn_withdraw_cwr). Kept out of
    /// `Undo`, whose cache line holds no more.
    ecn_before_loss: (u64, bool),
    /// HyStart (`tcp.hystart`).
    ss_exit: hystart::SlowStartExit,
    /// How much of cwnd the current window used (`tcp.cwnd_validation`).
    cwnd_use: cwnd_validation::CwndUse,
    /// Without timestamps: the segment being timed (its end, when sent).
    rtt_timing: Option<(u64, SimTime)>,
    /// Probabilistic retransmission: the thread's next run that retransmits.
    prx: LazyTimer,
    rx_rare: RxRare,
    /// Messages the application has written (each ends in a tagged byte).
    msgs_written: u64,
    /// NDP's state when `cfg.transport` is NDP (tcp/ndp.rs): the flow then
    /// sends and acknowledges as NDP does.
    ndp: Option<Box<ndp::NdpState>>,
    /// Swift's state when `cfg.transport` is Swift (tcp/swift.rs).
    swift: Option<Box<swift::SwiftState>>,
    /// HPCC's state when `cfg.transport` is HPCC (tcp/hpcc.rs).
    hpcc: Option<Box<hpcc::HpccState>>,
    /// DCQCN's state when `cfg.transport` is DCQCN, or TIMELY on DCQCN's
    /// rate sender (tcp/dcqcn.rs, tcp/timely.rs).
    dcqcn: Option<Box<dcqcn::DcqcnState>>,
    /// The flow label's state when `cfg.plb` or `cfg.txrehash` is on (tcp/plb.rs).
    plb: Option<Box<plb::PlbState>>,
}

impl TcpFlow {
    /// Start fetching the lines an arriving ACK reads and its new data
    /// segments write: the sender's lines, the configuration and ids, the
    /// message starts and the counters (see the layout above).
    #[inline(always)]
    pub fn prefetch_sender(&self) {
        use crate::sim::prefetch::prefetch;
        prefetch(&self.snd_una);
        prefetch(&self.segs);
        prefetch(&self.srtt);
        prefetch(&self.cc);
        prefetch(&self.ep);
        prefetch(&self.cfg);
        prefetch(&self.msg_starts);
        prefetch(&self.stats);
        // Behind those lines, yet read by every ACK: the recovery machine
        // (its tag, and a NewReno machine whole, in one line) and the
        // scoreboard's running facts.
        prefetch(&self.rec);
        prefetch(&self.sh.sb);
        prefetch(&self.sh.seen.fack);
    }

    /// The same for an arriving data segment and the ACK it sends.
    #[inline(always)]
    pub fn prefetch_receiver(&self) {
        use crate::sim::prefetch::prefetch;
        prefetch(&self.cfg);
        prefetch(&self.rx.rcv_nxt);
        prefetch(&self.rx.msg_ends);
    }

    /// A flow of configuration `cfg`: a `TcpConfig`, or one shared with
    /// other flows (normalised with [`Self::class_of`], or each flow that
    /// shares it makes its own copy).
    pub fn new(
        id: u32,
        app: u32,
        src_host: u32,
        dst_host: u32,
        cfg: impl Into<Arc<TcpConfig>>,
        rng: Rng,
    ) -> Self {
        let mut cfg = cfg.into();
        if cfg.cc.needs_ecn() && !cfg.ecn {
            *Arc::make_mut(&mut cfg) = Self::class_of(&cfg);
        }
        let smss = SegPolicy::initial_smss(&cfg);
        let plb = (cfg.plb.enabled || cfg.txrehash).then(|| Box::new(plb::PlbState::new(&rng)));
        let ack_salt = plb::ack_salt(&rng);
        let mut cc = Cc::new(&cfg);
        if let Cc::Bbr(b) = &mut cc {
            b.set_seed(crate::sim::rng::mix64(ack_salt ^ 0x6262_725f_6379_636c));
        }
        let swift = (cfg.transport == crate::config::Transport::Swift)
            .then(|| Box::new(Self::swift_state(&cfg)));
        // Swift's window is its own from the first packet (what
        // `swift_limits` keeps in `st.cwnd` from the first ACK on), not
        // `init_cwnd`, which it does not read: a trace shows what it sends
        let cwnd = swift
            .as_ref()
            .map_or(cfg.init_cwnd_segments as u64 * smss, |s| s.window() as u64);
        TcpFlow {
            id,
            app,
            src_host,
            dst_host,
            cc,
            st: CcState {
                cwnd,
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
            dupthresh: cfg.dupack_threshold,
            undo: None,
            rec: Recovery::new(&cfg),
            sh: Shared::new(&cfg),
            ss_exit: hystart::SlowStartExit::new(cfg.hystart),
            cwnd_use: cwnd_validation::CwndUse::default(),
            ep: Episode::default(),
            srtt: None,
            rttvar: SimTime::ZERO,
            rto_base: cfg.rto_init,
            backoff: 1,
            rto: HalfLine::default(),
            ecn_recover: 0,
            ecn_in_cwr: false,
            send_cwr: false,
            cwr_on: false,
            cwr: CwrPrr::default(),
            ecn_before_loss: (0, false),
            last_activity: SimTime::ZERO,
            last_send: SimTime::ZERO,
            rtt_timing: None,
            segs_sent: 0,
            msg_starts: VecDeque::new(),
            first_flight: None,
            prx: LazyTimer::default(),
            prx_hit: false,
            prx_suspended: false,
            label: 0,
            rx: RxLines {
                rcv_nxt: 0,
                ts_recent: SimTime::ZERO,
                last_ack_sent: 0,
                last_delivery: SimTime::ZERO,
                ooo: Vec::new(),
                unacked_segs: 0,
                echo: EcnEcho::new(EchoMode::for_flow(cfg.cc, cfg.ecn)),
                ack_label: 0,
                msg_ends: VecDeque::new(),
            },
            rx_rare: RxRare {
                dack: LazyTimer::default(),
                quickacks: cfg.delayed_ack_quickack,
                ooo_stamp: 0,
                ack_rehashes: 0,
                lrcv_label: 0,
                written: 0,
                ack_salt,
            },
            msgs_written: 0,
            ndp: (cfg.transport == crate::config::Transport::Ndp).then(Box::default),
            swift,
            hpcc: (cfg.transport == crate::config::Transport::Hpcc).then(Box::default),
            dcqcn: matches!(
                cfg.transport,
                crate::config::Transport::Dcqcn | crate::config::Transport::Timely
            )
            .then(Box::default),
            plb,
            stats: FlowStats::default(),
            start_time: None,
            cfg,
        }
    }

    /// The configuration a flow of `cfg` runs with (what [`Self::cfg`]
    /// holds): DCTCP and FaST are built on ECN, they always negotiate it.
    pub fn class_of(cfg: &TcpConfig) -> TcpConfig {
        let mut c = cfg.clone();
        c.ecn |= c.cc.needs_ecn();
        c
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
    /// What the receiving end knows was written (see `RxRare::written`).
    pub fn written_as_received(&self) -> u64 {
        self.rx_rare.written
    }
    /// Bytes delivered in order to the receiving application.
    pub fn delivered(&self) -> u64 {
        self.rx.rcv_nxt
    }
    /// Messages the application has written.
    pub fn msgs_written(&self) -> u64 {
        self.msgs_written
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    /// SRTT as the flow's tables report it: none before the flow starts
    /// (or if it never does), when it is only the seed its handshake would
    /// draw, not a measurement.
    pub fn reported_srtt(&self) -> Option<SimTime> {
        self.start_time.and(self.srtt)
    }
    /// Loss indications a paced sender has not answered with a resend:
    /// BBR's recovery retransmissions held for their pacing slot or
    /// cancelled there (tcp/bbr.rs), go-back-N's go-backs that ended with
    /// nothing resent (tcp/hpcc.rs, `gbn_on_ack`; one still waiting is
    /// `snd_nxt` behind `snd_max`). Any other sender resends when it
    /// counts the loss: 0.
    pub fn unsent_retx(&self) -> u64 {
        let bbr = match &self.cc {
            Cc::Bbr(b) => b.unsent_retx(),
            _ => 0,
        };
        let gbn = self.hpcc.as_deref().map_or(0, |h| h.unsent_go_backs)
            + self.dcqcn.as_deref().map_or(0, |d| d.unsent_go_backs);
        bbr + gbn
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

    /// Seed SRTT with the handshake's RTT sample (RFC 6298 (2.2)), and the
    /// minimum RTT RACK reads with it: Linux's `tcp_min_rtt` takes the
    /// SYN/SYN-ACK sample (`tcp_ack_update_rtt` → `tcp_update_rtt_min`), so
    /// a resent segment SACKed sooner than any *data* RTT but later than the
    /// handshake's is not ambiguous (`tcp_rack_advance`) and moves RACK's
    /// clock (validation/packetdrill/scripts/tlp-sack-marks-lost-above-handshake-rtt.pkt).
    pub fn handshake_sample(&mut self, rtt: SimTime) {
        if self.cfg.handshake_rtt_sample {
            self.rtt_sample(rtt);
            self.sh.seen.note_min_rtt(rtt);
            if let Cc::Bbr(b) = &mut self.cc {
                b.note_rtt(rtt);
            }
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
        if self.own_transport() {
            self.app_limit += bytes;
            self.rx_rare.written += bytes;
            if let Some(tag) = msg_tag {
                self.rx.msg_ends.push_back((self.app_limit, tag));
                self.msgs_written += 1;
            }
            return if self.ndp.is_some() {
                self.ndp_write(io)
            } else if self.hpcc.is_some() {
                self.hpcc_write(io)
            } else if self.dcqcn.is_some() {
                self.dcqcn_send(io)
            } else {
                self.swift_write(io)
            };
        }
        self.restart_after_idle(io.now());
        if let Cc::Bbr(_) = self.cc {
            self.bbr_app_write();
        }
        self.app_limit += bytes;
        if let Some(tag) = msg_tag {
            self.rx.msg_ends.push_back((self.app_limit, tag));
            self.msgs_written += 1;
        }
        self.try_send(io);
        self.prx_update(io);
        self.tlp_arm(io);
    }

    /// The receiving end's half of [`Self::app_write`], in a world that
    /// runs the receiver but not the sender: the message boundary the
    /// receiver waits for, at the same offset of the byte stream (every
    /// write of the flow is noted, so the offsets agree). Nothing is sent.
    pub fn note_write(&mut self, bytes: u64, msg_tag: Option<u32>) {
        self.app_limit += bytes;
        self.rx_rare.written += bytes;
        if let Some(tag) = msg_tag {
            self.rx.msg_ends.push_back((self.app_limit, tag));
        }
    }

    /// Absorb `rx`, the copy of this flow that ran its receiving end
    /// (this one ran the sender): its receiver state, whole, and its
    /// counters, which add (each end bumps only its own).
    pub fn absorb(&mut self, rx: &TcpFlow) {
        self.rx = rx.rx.clone();
        self.rx_rare = rx.rx_rare;
        self.stats.absorb(&rx.stats);
        if let (Some(d), Some(r)) = (self.dcqcn.as_deref_mut(), rx.dcqcn.as_deref()) {
            d.absorb(r);
        }
        if let (Some(n), Some(r)) = (self.ndp.as_deref_mut(), rx.ndp.as_deref()) {
            n.absorb_receiver(r);
        }
    }

    /// Whether the flow runs a transport of its own (NDP, Swift, HPCC,
    /// DCQCN) instead of TCP's scoreboard, recovery and congestion control.
    fn own_transport(&self) -> bool {
        self.ndp.is_some() || self.swift.is_some() || self.hpcc.is_some() || self.dcqcn.is_some()
    }

    /// Stop offering new data (a duration-limited bulk flow ends).
    pub fn app_close(&mut self) {
        self.app_limit = self.snd_max;
    }

    /// Heap bytes of this flow's buffers: scoreboard, out-of-order ranges
    /// and message boundaries (limits.rs sums them, with `stats.loss_log`,
    /// to guard `limits.memory` during a run).
    pub fn buffer_bytes(&self) -> usize {
        use std::mem::size_of;
        self.segs.capacity() * size_of::<Seg>()
            + self.rx.ooo.capacity() * size_of::<(u64, u64, u64)>()
            + self.msg_starts.capacity() * size_of::<u64>()
            + self.rx.msg_ends.capacity() * size_of::<(u64, u32)>()
            + self.swift.as_deref().map_or(0, |s| s.handed_bytes())
    }

    /// Give back the memory of the transmission and reassembly queues of a
    /// finished flow (a Poisson workload opens thousands of flows; only
    /// their counters need to live on).
    pub fn release_buffers(&mut self) {
        self.segs = VecDeque::new();
        self.sh.sb = Default::default();
        self.rx.ooo = Vec::new();
        self.msg_starts = VecDeque::new();
        self.rx.msg_ends = VecDeque::new();
        if let Some(s) = self.swift.as_deref_mut() {
            s.release_handed();
        }
    }

    /// A message whose last byte has been delivered, if any.
    pub fn pop_delivered_msg(&mut self) -> Option<u32> {
        match self.rx.msg_ends.front() {
            Some(&(end, tag)) if end <= self.rx.rcv_nxt => {
                self.rx.msg_ends.pop_front();
                Some(tag)
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------ invariants

    /// Entries the connection keeps allocated for its scoreboard and its
    /// out-of-order list (capacity, not length): what an idle or finished
    /// flow costs in memory beyond its fixed size.
    pub fn retained_entries(&self) -> usize {
        self.segs.capacity() + self.rx.ooo.capacity()
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
        let sacked = self.segs.iter().filter(|s| s.sacked);
        let (n, bytes) = sacked.fold((0u32, 0u64), |(n, b), s| (n + 1, b + s.len as u64));
        if (n, bytes) != (self.sh.sb.sacked_segs, self.sh.sb.sacked_bytes) && !self.segs.is_empty()
        {
            v.push(format!(
                "flow {id}: SACKed counts {:?} differ from the scoreboard's ({n}, {bytes})",
                (self.sh.sb.sacked_segs, self.sh.sb.sacked_bytes)
            ));
        }
        // NDP keeps its own books of what is in flight (tcp/ndp.rs).
        self.ndp_violations(&mut v);
        self.swift_violations(&mut v);
        self.hpcc_violations(&mut v);
        self.dcqcn_violations(&mut v);
        self.bbr_violations(&mut v);
        if at != self.snd_max && !self.own_transport() {
            v.push(format!(
                "flow {id}: scoreboard ends at {at}, snd_max is {}",
                self.snd_max
            ));
        }
        // The receiver never has more than was sent, and the sender never
        // saw an ACK for more than the receiver has.
        if self.rx.rcv_nxt > self.snd_max {
            v.push(format!(
                "flow {id}: receiver delivered {} > sent {}",
                self.rx.rcv_nxt, self.snd_max
            ));
        }
        if self.snd_una > self.rx.rcv_nxt {
            v.push(format!(
                "flow {id}: snd_una {} ahead of the receiver's rcv_nxt {}",
                self.snd_una, self.rx.rcv_nxt
            ));
        }
        // Out-of-order ranges: sorted, disjoint, non-adjacent, strictly
        // above the delivered prefix and within what was sent.
        let mut prev = self.rx.rcv_nxt;
        for (k, &(l, r, _)) in self.rx.ooo.iter().enumerate() {
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
            .rx
            .msg_ends
            .iter()
            .zip(self.rx.msg_ends.iter().skip(1))
            .any(|(a, b)| b.0 < a.0)
        {
            v.push(format!("flow {id}: message ends out of order"));
        }
        v
    }
}

#[cfg(test)]
mod tests;
