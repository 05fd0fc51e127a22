//! Loss recovery of a [`TcpFlow`] as three machines behind one enum,
//! [`Recovery`], dispatched with a `match` as [`super::cc::Cc`] is:
//!
//! - [`newreno::NewReno`]: duplicate-ACK counting, fast retransmit and
//!   NewReno fast recovery (RFC 6582), without SACK;
//! - [`sack::Sack`]: the SACK scoreboard's IsLost() and NextSeg (RFC 6675,
//!   [`scoreboard`]) with the configured rate reduction while recovering
//!   ([`reduction`]: RFC 6675, PRR or PRR-bis);
//! - [`rack::RackTlp`]: RACK-TLP's time-based loss detection and tail loss
//!   probes (RFC 8985) on top of the SACK machine's sending.
//!
//! A machine does no I/O and never touches the flow: its hooks
//! ([`Recovery::enter`], [`Recovery::on_ack`], [`Recovery::on_dupack`],
//! [`Recovery::on_timeout`], and the exit an [`Action::Exit`] asks for)
//! read a [`View`] of the sender — the scoreboard, the window, snd_una and
//! snd_max, the episode — and return [`Actions`] (retransmit this segment,
//! set cwnd, restart the timer, start or end the episode) that the flow
//! carries out in order, as its owner carries out the flow's outbox. What
//! every machine shares lives beside the enum: the episode ([`Episode`])
//! and the Eifel undo ([`Undo`]), in the flow's ACK lines, and the
//! scoreboard's running facts ([`Shared`]).

pub mod newreno;
pub mod rack;
pub mod reduction;
pub mod sack;
pub mod scoreboard;

use crate::config::{LossRecovery, Reordering, TcpConfig};
use crate::tcp::*;
use rack::{Delivery, RackTlp, Undo};
use scoreboard::{Counters, LossMarks};

/// The state of the current recovery episode every machine reads, small
/// enough to sit in the flow's ACK lines.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct Episode {
    /// RFC 6582's `recover`: snd_max at the last fast retransmit or timeout.
    pub recover: u64,
    /// Duplicate ACKs since the last ACK of new data.
    pub dupacks: u32,
    /// A partial ACK has already restarted the timer in this recovery
    /// (RFC 6582 "impatient").
    pub partial_seen: bool,
}

/// The scoreboard's running facts, shared by every machine (the adaptive
/// duplicate-ACK threshold reads the delivery record under any of them).
#[derive(Debug)]
pub(in crate::tcp) struct Shared {
    /// Running totals over the scoreboard.
    pub sb: Counters,
    /// RFC 8985 §6.1's record of what was delivered: RACK's clock, and the
    /// reordering the adaptive threshold measures.
    pub seen: Delivery,
    /// Whether delivered segments feed `seen` (RACK, or the adaptive
    /// threshold's SACK-based reordering detection).
    pub track: bool,
}

impl Shared {
    pub fn new(cfg: &TcpConfig) -> Self {
        Shared {
            sb: Counters::default(),
            seen: Delivery {
                rtt_each: cfg.rack_rtt_each_segment,
                ..Delivery::default()
            },
            track: cfg.recovery == LossRecovery::Rack || cfg.reordering == Reordering::Adaptive,
        }
    }
}

/// The loss-recovery machine of a flow.
#[derive(Debug)]
pub(in crate::tcp) enum Recovery {
    NewReno(newreno::NewReno),
    Sack(sack::Sack),
    Rack(RackTlp),
}

/// What a machine reads of the sender.
#[derive(Clone, Copy)]
pub(in crate::tcp) struct View<'a> {
    /// The scoreboard: every transmitted, not yet cumulatively ACKed segment.
    pub segs: &'a VecDeque<Seg>,
    pub sb: Counters,
    /// Window state (cwnd, ssthresh, smss) as it stands.
    pub st: CcState,
    pub snd_una: u64,
    pub snd_max: u64,
    pub cong: CongState,
    pub ep: Episode,
    pub dupthresh: u32,
}

/// An ACK's SACK blocks (at most four) into `sorted`, in sequence order,
/// as Linux walks them: a receiver lists its most recent block first, and
/// taken in that order a lower block looked reordered against a higher one
/// the same ACK reported. Returns how many of `sorted` are blocks.
#[inline(always)]
pub(in crate::tcp) fn sort_blocks(sorted: &mut [(u64, u64); 4], blocks: &[(u64, u64)]) -> usize {
    let k = blocks.len().min(sorted.len());
    sorted[..k].copy_from_slice(&blocks[..k]);
    sorted[..k].sort_unstable();
    k
}

impl View<'_> {
    /// RFC 6675 IsLost() for the first unacknowledged segment, from the
    /// running counts.
    pub fn head_is_lost(&self) -> bool {
        let thresh = self.dupthresh;
        let byte_thresh = (thresh as u64).saturating_sub(1) * self.st.smss;
        let (mut n, mut bytes) = (self.sb.sacked_segs, self.sb.sacked_bytes);
        if let Some(h) = self.segs.front().filter(|s| s.sacked) {
            n -= 1;
            bytes -= h.len as u64;
        }
        n >= thresh || bytes > byte_thresh
    }
}

/// One thing a machine asks the flow to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::tcp) enum Action {
    /// Retransmit the scoreboard's segment `i` (an index into
    /// [`View::segs`], which no action moves). `mark`: record it as
    /// retransmitted in this episode (RFC 6675's HighRxt), with snd_max as
    /// it leaves; `rearm`: restart the retransmission timer if it is the
    /// head ([`TcpFlow::rearm_rto_on_head`]).
    Retransmit { i: usize, mark: bool, rearm: bool },
    /// Set the congestion window.
    SetCwnd(u64),
    /// Restart the retransmission timer unless a partial ACK of this
    /// episode already did (RFC 6582 §4.1 "impatient").
    RestartRtoOnce,
    /// Start a recovery episode ([`TcpFlow::enter_recovery`]).
    Enter,
    /// Limited Transmit on a duplicate ACK below the threshold.
    LimitedTransmit,
    /// The episode is over: back to Open, the duplicate ACKs forgotten;
    /// `clear_marks` clears the segments' retransmitted-in-this-episode
    /// marks.
    Exit { clear_marks: bool },
    /// Duplicate ACKs showed reordering of this degree (in segments): it
    /// becomes the duplicate-ACK threshold, and counts as an event.
    Reordered(u32),
    /// The reordering degree was overestimated: back to this threshold.
    ResetReordering(u32),
}

/// The actions of one hook, in the order they are carried out (at most
/// three: no hook asks for more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::tcp) struct Actions {
    list: [Option<Action>; 3],
}

impl Actions {
    pub fn none() -> Self {
        Actions::default()
    }
    /// `a`, then `b`, …
    pub fn of(acts: &[Action]) -> Self {
        let mut out = Actions::none();
        for (slot, &a) in out.list.iter_mut().zip(acts) {
            *slot = Some(a);
        }
        debug_assert!(acts.len() <= out.list.len(), "too many actions");
        out
    }
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        self.list.iter().map_while(|a| *a)
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.list[0].is_none()
    }
    /// The first segment these actions retransmit.
    pub fn first_retransmit(&self) -> Option<usize> {
        self.iter().find_map(|a| match a {
            Action::Retransmit { i, .. } => Some(i),
            _ => None,
        })
    }
}

impl Recovery {
    /// The machine `cfg` asks for: RACK-TLP (which needs SACK: the scenario
    /// check rejects it without), SACK's RFC 6675, or NewReno.
    pub fn new(cfg: &TcpConfig) -> Self {
        if cfg.recovery == LossRecovery::Rack {
            Recovery::Rack(RackTlp::new(sack::Sack::new(cfg)))
        } else if cfg.sack {
            Recovery::Sack(sack::Sack::new(cfg))
        } else {
            Recovery::NewReno(newreno::NewReno::new(cfg))
        }
    }

    /// A segment of `len` bytes left during recovery: PRR's prr_out.
    #[inline]
    pub fn sent_in_recovery(&mut self, len: u64) {
        match self {
            Recovery::NewReno(m) => m.sent(),
            Recovery::Sack(m) => m.prr.sent(len),
            Recovery::Rack(r) => r.sack.prr.sent(len),
        }
    }

    /// The SACK machine RACK-TLP sends with, or the SACK machine itself.
    #[inline]
    pub fn sack(&self) -> Option<&sack::Sack> {
        match self {
            Recovery::NewReno(_) => None,
            Recovery::Sack(s) => Some(s),
            Recovery::Rack(r) => Some(&r.sack),
        }
    }
    #[inline]
    pub fn sack_mut(&mut self) -> Option<&mut sack::Sack> {
        match self {
            Recovery::NewReno(_) => None,
            Recovery::Sack(s) => Some(s),
            Recovery::Rack(r) => Some(&mut r.sack),
        }
    }
    #[inline]
    pub fn rack(&self) -> Option<&RackTlp> {
        match self {
            Recovery::Rack(r) => Some(r),
            _ => None,
        }
    }
    #[inline]
    pub fn rack_mut(&mut self) -> Option<&mut RackTlp> {
        match self {
            Recovery::Rack(r) => Some(r),
            _ => None,
        }
    }
    #[inline]
    pub fn is_rack(&self) -> bool {
        matches!(self, Recovery::Rack(_))
    }
    /// Whether recovery sends by pipe (RFC 6675 NextSeg) rather than
    /// in order under an inflated window (RFC 6582).
    #[inline]
    pub fn uses_sack(&self) -> bool {
        !matches!(self, Recovery::NewReno(_))
    }

    /// How the scoreboard decides what is lost.
    #[inline]
    pub fn marks(&self) -> LossMarks {
        match self {
            Recovery::NewReno(_) => LossMarks::DupAck { lost_rexmit: false },
            Recovery::Sack(s) => LossMarks::DupAck {
                lost_rexmit: s.prr_on(),
            },
            Recovery::Rack(_) => LossMarks::Rack,
        }
    }

    /// A recovery episode begins: ssthresh is set, the episode's `recover`
    /// point too. What to retransmit first and the window to recover with.
    pub fn enter(&mut self, v: &View) -> Actions {
        match self {
            Recovery::NewReno(m) => m.enter(v),
            Recovery::Sack(m) => m.enter(
                v,
                LossMarks::DupAck {
                    lost_rexmit: m.prr_on(),
                },
            ),
            Recovery::Rack(m) => m.enter(v),
        }
    }

    /// An ACK of new data arrived in recovery (snd_una has moved): end the
    /// episode on a full ACK, go on on a partial one.
    pub fn on_ack(&mut self, v: &View, acked: u64) -> Actions {
        match self {
            Recovery::NewReno(m) => m.on_ack(v, acked),
            Recovery::Sack(m) => m.on_ack(v),
            Recovery::Rack(m) => m.on_ack(v),
        }
    }

    /// A duplicate ACK (already counted in [`Episode::dupacks`]).
    pub fn on_dupack(&mut self, v: &View) -> Actions {
        match self {
            Recovery::NewReno(m) => m.on_dupack(v),
            Recovery::Sack(m) => m.on_dupack(v),
            Recovery::Rack(_) => Actions::none(),
        }
    }

    /// An ACK of new data took `acked_segs` segments off the scoreboard,
    /// in any state (before the state's own hook).
    pub fn on_cumulative_ack(&mut self, v: &View, acked_segs: u32) -> Actions {
        match self {
            Recovery::NewReno(m) => m.on_cumulative_ack(v, acked_segs),
            Recovery::Sack(_) | Recovery::Rack(_) => Actions::none(),
        }
    }

    /// The retransmission timer fired (`v` as it stood before): the timer
    /// takes over, the episode's own timers stop.
    pub fn on_timeout(&mut self, v: &View) -> Actions {
        match self {
            Recovery::NewReno(m) => m.on_timeout(v),
            Recovery::Sack(_) => Actions::none(),
            Recovery::Rack(m) => {
                m.on_timeout();
                Actions::none()
            }
        }
    }

    /// What an ACK of new data delivered outside recovery, as window growth
    /// counts it: SACK counts what was delivered (RFC 6937 DeliveredData);
    /// NewReno, without SACK, what [`newreno::NewReno::delivered`] says.
    #[inline]
    pub fn delivered_on_open(&self, delivered: u64, acked: u64, flight: u64, v: &View) -> u64 {
        match self {
            Recovery::NewReno(m) => m.delivered(acked, flight, v),
            _ => delivered,
        }
    }
}

/// `view!(flow)`: the flow's [`View`], borrowing only the fields it
/// reads, so the flow's machine can be borrowed mutably beside it.
macro_rules! view {
    ($f:expr) => {
        $crate::tcp::recovery::View {
            segs: &$f.segs,
            sb: $f.sh.sb,
            st: $f.st,
            snd_una: $f.snd_una,
            snd_max: $f.snd_max,
            cong: $f.cong,
            ep: $f.ep,
            dupthresh: $f.dupthresh,
        }
    };
}
pub(in crate::tcp) use view;

impl TcpFlow {
    /// What the recovery machine sees of this flow now.
    #[inline]
    pub(in crate::tcp) fn view(&self) -> View<'_> {
        view!(self)
    }

    /// Carry out what the recovery machine asked for, in order. Nearly
    /// every ACK asks for nothing: that is seen here, inline, before the
    /// call.
    #[inline(always)]
    pub(in crate::tcp) fn apply(&mut self, io: &mut TcpIo, acts: Actions) {
        if !acts.is_empty() {
            self.apply_all(io, acts);
        }
    }

    #[inline(never)]
    fn apply_all(&mut self, io: &mut TcpIo, acts: Actions) {
        for a in acts.iter() {
            match a {
                Action::Retransmit { i, mark, rearm } => {
                    if !self.pacing_holds_retx(io, i, mark, rearm) {
                        self.resend(io, i, mark, rearm);
                    }
                }
                Action::SetCwnd(c) => {
                    // BBR sets its own window on every ACK (Linux skips
                    // the recovery's cwnd reductions for a cong_control
                    // algorithm: tcp_cwnd_reduction, tcp_end_cwnd_reduction).
                    if !matches!(self.cc, super::cc::Cc::Bbr(_)) {
                        self.st.cwnd = c;
                    }
                }
                Action::RestartRtoOnce => {
                    if !self.ep.partial_seen {
                        self.ep.partial_seen = true;
                        self.arm_rto(io);
                    }
                }
                Action::Enter => self.enter_recovery(io, io.now()),
                Action::LimitedTransmit => self.dupack_limited_transmit(io),
                Action::Exit { clear_marks } => {
                    if clear_marks {
                        for s in self.segs.iter_mut() {
                            s.rexmit = false;
                        }
                    }
                    // RFC 6937 §3 "On exiting recovery": cwnd = ssthresh
                    // (set by the machine before).
                    self.cong = CongState::Open;
                    self.ep.dupacks = 0;
                }
                Action::Reordered(degree) => {
                    self.stats.reorder_events += 1;
                    self.dupthresh = degree;
                }
                Action::ResetReordering(t) => self.dupthresh = self.dupthresh.min(t),
            }
        }
    }

    /// Recovery's retransmission of segment `i`, now.
    pub(in crate::tcp) fn resend(&mut self, io: &mut TcpIo, i: usize, mark: bool, rearm: bool) {
        let s = self.segs[i];
        if mark {
            self.segs[i].rexmit = true;
            self.segs[i].rexmit_hi = self.snd_max;
        }
        self.retransmit(io, i);
        if rearm {
            self.rearm_rto_on_head(io, s.start);
        }
    }

    pub(in crate::tcp) fn seg_index(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end() <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    /// With RACK, a new copy of the head (snd_una) restarts the
    /// retransmission timer, as Linux's tcp_xmit_retransmit_queue does
    /// (tcp_rearm_rto): RFC 6298 (5.1) only starts a stopped timer, so the
    /// deadline set by an earlier copy stood, and when RACK found that copy
    /// lost and sent another the timeout still fired about one RTO after
    /// the earlier one, before the new copy's ACK could arrive.
    #[inline]
    pub(in crate::tcp) fn rearm_rto_on_head(&mut self, io: &mut TcpIo, start: u64) {
        if start == self.snd_una {
            self.arm_rto(io);
        }
    }

    /// Limited Transmit on a duplicate ACK, while Open and below dupthresh.
    pub(in crate::tcp) fn dupack_limited_transmit(&mut self, io: &mut TcpIo) {
        if !self.cfg.limited_transmit
            || self.cong != CongState::Open
            || self.ep.dupacks >= self.dupthresh
        {
            return;
        }
        if self.rec.uses_sack() {
            // RFC 6675 §5 step (3): with SACK, bounded by pipe (3.2–3.3),
            // and for every duplicate ACK below DupThresh — also when the
            // adaptive threshold has raised it.
            self.sack_limited_transmit(io);
        } else if self.ep.dupacks <= 2 {
            // RFC 3042 §2: the first two duplicate ACKs.
            self.limited_transmit(io);
        }
    }

    pub(in crate::tcp) fn on_dupack(&mut self, io: &mut TcpIo) {
        self.ep.dupacks += 1;
        if self.ep.dupacks >= self.cfg.dupack_threshold {
            // Algorithm 3: suspend the retransmit thread, fast retransmit.
            self.prx_suspended = true;
        }
        let acts = self.rec.on_dupack(&view!(self));
        self.apply(io, acts);
    }

    /// `reno_hold` in force: without SACK (the NewReno machine) an episode
    /// reaching exactly `recover` stays until an ACK covers more.
    #[inline]
    pub(in crate::tcp) fn holds_at_recover(&self) -> bool {
        matches!(&self.rec, Recovery::NewReno(m) if m.holds())
    }

    /// RFC 6582 §3.2 step 1 (and RFC 6675 §5) before a fast retransmit;
    /// its effects common to every machine, then the machine's own.
    pub(in crate::tcp) fn enter_recovery(&mut self, io: &mut TcpIo, now: SimTime) {
        // RFC 5681 §3.2 step 2: FlightSize for ssthresh MUST NOT count the
        // segments Limited Transmit sent.
        let flight =
            self.reduction_base((self.snd_max - self.snd_una).saturating_sub(self.sh.sb.lt_bytes));
        let (cwnd, ssthresh) = (self.st.cwnd, self.st.ssthresh);
        self.ecn_before_loss = (self.ecn_recover, self.send_cwr);
        if let Some(r) = self.rec.rack_mut() {
            r.tlp_end = None;
        }
        // RFC 3168 §6.1.2: once per window of data. A loss in the window an
        // echo already reduced (ecn_in_cwr: snd_una below the echo's
        // snd_max, Linux's CWR under `ecn_reduction = "prr"` included)
        // keeps the echo's ssthresh: ns-2's dupack_action after an ECN cut,
        // Linux's tcp_enter_recovery (a reduction only outside one);
        // recovery's own machine takes the window there. DCTCP and FaST are
        // the exception: their echo's cut can be a few per cent, and RFC
        // 8257 §3.5 has a loss answered as conventional TCP answers it, as
        // Linux's dctcp_react_to_loss does on entering Recovery from CWR.
        debug_assert!(
            !self.cwr_on || self.ecn_in_cwr,
            "a CWR by PRR outside an echo's window"
        );
        self.cwr_on = false;
        if !self.ecn_in_cwr || self.cfg.cc.needs_ecn() {
            self.st.ssthresh = self.cc.ssthresh(&self.st, flight, LossKind::DupAck, now);
        }
        self.ecn_loss_reduced();
        self.ss_exit.on_loss(false);
        self.ep.recover = self.snd_max;
        self.cong = CongState::Recovery;
        self.ep.partial_seen = false;
        let acts = self.rec.enter(&view!(self));
        // Eifel's undo remembers the first segment this recovery resends,
        // when this is its first retransmission. A segment already resent
        // (in an earlier episode, whose copy may still be in flight) makes
        // the echo ambiguous: an ACK echoing the earlier copy's timestamp,
        // older than this one's, would read as the original's arrival and
        // call a real loss spurious (Linux keeps the first retransmission's
        // stamp, retrans_stamp, for the same reason).
        self.undo = acts
            .first_retransmit()
            .filter(|&i| !self.segs[i].retx_ever)
            .map(|i| Undo {
                seq: self.segs[i].start,
                retx_ts: now,
                cwnd,
                ssthresh,
            });
        self.stats.fast_retransmits += 1;
        self.stats.loss_log.push((now, false));
        self.apply(io, acts);
        self.st.ca_acked = 0;
    }

    /// Mark what `blocks` cover as SACKed; returns the bytes newly SACKed.
    pub(in crate::tcp) fn mark_sacked(&mut self, blocks: &[(u64, u64)], now: SimTime) -> u64 {
        let track = self.sh.track;
        let mut reord: Option<u64> = None;
        let (mut n, mut bytes) = (0u32, 0u64);
        let mut sorted = [(0u64, 0u64); 4];
        let k = sort_blocks(&mut sorted, blocks);
        let fack_before = self.sh.seen.fack;
        for &(l, r) in &sorted[..k] {
            if r <= self.snd_una {
                continue;
            }
            let i0 = self.segs.partition_point(|s| s.end() <= l);
            for s in self.segs.iter_mut().skip(i0) {
                if s.start >= r {
                    break;
                }
                if s.start >= l && s.end() <= r && !s.sacked {
                    if track {
                        let r = self.sh.seen.on_seg(s, now, fack_before);
                        reord = match (reord, r) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                    }
                    s.sacked = true;
                    n += 1;
                    bytes += s.len as u64;
                }
            }
        }
        self.sh.sb.sacked_segs += n;
        self.sh.sb.sacked_bytes += bytes;
        self.on_reordered(reord);
        bytes
    }
}

impl View<'_> {
    /// Whether duplicate ACKs at snd_una may start a new fast retransmit:
    /// the ACK covers the `recover` point (snd_max at the last recovery or
    /// timeout). RFC 6582 §3.2 step 1 (§4.1) wants it to cover *more* than
    /// that without SACK: at exactly `recover` after a timeout, go-back-N's
    /// resends of segments the receiver already holds cause duplicate ACKs
    /// that are no loss (issue 18: on a star they gave a spurious fast
    /// retransmit, which Eifel counted as reordering). The strict rule also
    /// stops the marked duplicates of Kulkarni's probabilistic
    /// retransmission at a block boundary (every block starts at the
    /// previous `recover`), so it is not applied yet: see docs/model.md and
    /// the ignored test `duplicate_acks_from_go_back_n_duplicates_are_not_a_loss`.
    #[inline]
    pub fn fresh_loss(&self) -> bool {
        self.snd_una >= self.ep.recover
    }
}

#[cfg(test)]
pub(in crate::tcp) mod testkit {
    //! A scoreboard and window to drive a machine alone, without a flow.

    use super::*;

    pub const MSS: u64 = 1000;

    /// `n` segments of one MSS from 0, those in `sacked` SACKed.
    pub fn board(n: u64, sacked: &[u64]) -> VecDeque<Seg> {
        (0..n)
            .map(|k| Seg {
                start: k * MSS,
                len: MSS as u32,
                sacked: sacked.contains(&k),
                rexmit: false,
                rexmit_hi: 0,
                xmit: SimTime::from_us(k),
                retx_ever: false,
                lost: false,
            })
            .collect()
    }

    /// The sender's view of `segs` with cwnd, ssthresh in MSS, in `cong`.
    pub fn view(segs: &VecDeque<Seg>, cwnd: u64, ssthresh: u64, cong: CongState) -> View<'_> {
        let sacked: Vec<&Seg> = segs.iter().filter(|s| s.sacked).collect();
        let snd_una = segs.front().map_or(0, |s| s.start);
        let snd_max = segs.back().map_or(snd_una, |s| s.end());
        View {
            segs,
            sb: Counters {
                sacked_segs: sacked.len() as u32,
                sacked_bytes: sacked.iter().map(|s| s.len as u64).sum(),
                lt_bytes: 0,
            },
            st: CcState {
                cwnd: cwnd * MSS,
                ssthresh: ssthresh * MSS,
                smss: MSS,
                ca_acked: 0,
            },
            snd_una,
            snd_max,
            cong,
            // an episode began when all of the board was out
            ep: Episode {
                recover: if cong == CongState::Open { 0 } else { snd_max },
                ..Episode::default()
            },
            dupthresh: 3,
        }
    }
}
