//! Congestion control: how much a sender may have in flight.
//!
//! The sender owns the shared state ([`CcState`]: cwnd, ssthresh, smss — all
//! in bytes, never segments, because FaST, TCPRand and DSR vary segment
//! sizes). Each algorithm keeps its private state (DCTCP's α, CUBIC's W_max
//! and K, FaST's probing stage) and is dispatched through the [`Cc`] enum,
//! so the hot path is a `match`, never a heap object. Loss *recovery*
//! (NewReno partial ACKs, SACK, RACK-TLP) lives in [`super::recovery`], the
//! RTO in the sender, not here; an
//! algorithm only chooses ssthresh on each congestion signal
//! ([`CongestionControl::ssthresh`], which is also how DCTCP and FaST
//! replace RFC 3168's halving on ECN-Echo) and grows the window on ACKs.
//!
//! Algorithms: [`NewReno`] (RFC 5681/6582), [`cubic::Cubic`] (RFC 9438),
//! [`dctcp::Dctcp`] (RFC 8257), [`fast::Fast`] (SPEC §2.1), [`bbr::Bbr`]
//! (Linux's tcp_bbr.c: sets cwnd and a pacing rate from its own model).

pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod fast;
#[cfg(test)]
mod tests_dctcp;

use crate::config::{CaIncrease, CcKind, TcpConfig};
use crate::sim::time::SimTime;

/// Window state shared by every algorithm, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct CcState {
    /// Congestion window. For FaST this is the virtual window vwnd (bytes =
    /// vwnd_segments·MSS); [`Cc::send_window`] turns it into bytes in flight.
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Sender maximum segment size (payload bytes): the unit of window growth.
    pub smss: u64,
    /// Bytes acknowledged since the last congestion-avoidance increment (RFC 5681 §3.1).
    pub ca_acked: u64,
}

/// What the sender learned from one ACK that advanced snd_una.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: SimTime,
    /// Newly acknowledged bytes.
    pub acked: u64,
    pub ece: bool,
    /// This ACK's RTT sample.
    pub rtt: Option<SimTime>,
    /// Smoothed RTT after this ACK (RFC 6298).
    pub srtt: Option<SimTime>,
    pub snd_una: u64,
    pub snd_max: u64,
    /// Bytes outstanding before this ACK.
    pub flight: u64,
    /// New data segments the connection has sent so far (not retransmissions).
    pub segs_sent: u64,
    /// Slow start's most SMSS per ACK (`abc_limit`; carried here, not in
    /// [`CcState`], which fills the flow's first cache line).
    pub abc_limit: u64,
    /// Whether the sender has been using its window (Linux's
    /// tcp_is_cwnd_limited under `tcp.cwnd_validation`): [`Cc::on_ack`]
    /// grows it only then, so a sender held back by its application or
    /// the receiver does not inflate cwnd untested.
    pub cwnd_limited: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Fast retransmit after duplicate ACKs.
    DupAck,
    /// Retransmission timeout.
    Rto,
    /// ECN echo (RFC 3168: respond as to a loss, once per window; DCTCP and
    /// FaST scale the cut by α instead).
    Ecn,
}

/// Read-only algorithm state that segment policies may use (TCPRand reads
/// CUBIC's W_max and epoch window; FaST's policy reads vwnd).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcHints {
    /// FaST's virtual window, bytes.
    pub vwnd: Option<u64>,
    /// CUBIC's W_max at the last congestion event, bytes (once there was
    /// one): the window where losses occurred, kept across timeouts.
    pub w_max: Option<u64>,
    /// CUBIC's cwnd at the start of the current (or last) epoch, bytes.
    pub epoch_start_cwnd: Option<u64>,
    /// DCTCP's / FaST's congestion estimate α.
    pub alpha: Option<f64>,
}

/// The hooks every algorithm implements; defaults are Reno's.
pub trait CongestionControl {
    /// Every ACK that acknowledges new data, in every congestion state (open,
    /// fast recovery, after an RTO), before any window change: per-window
    /// accounting such as DCTCP's marked/acked bytes. Returns the fraction
    /// of marked bytes of the round (DCTCP's observation window) the ACK
    /// closed, where PLB reads it (tcp/plb.rs); `None` otherwise.
    fn on_ack_ecn(&mut self, _s: &CcState, _a: &AckInfo) -> Option<f64> {
        None
    }
    /// Grow the window on an ACK that advanced snd_una outside loss recovery
    /// (not called on the ACK that triggered an ECN cut).
    fn on_ack(&mut self, s: &mut CcState, a: &AckInfo) {
        reno_increase(s, a.acked, a.abc_limit, self.ca_increase());
    }
    /// Congestion avoidance's rule for [`reno_increase`]
    /// ([`TcpConfig::ca_increase`]; kept by the algorithm, not in the
    /// shared [`CcState`], whose size the sender's cache-line layout pins).
    fn ca_increase(&self) -> CaIncrease {
        CaIncrease::Bytes
    }
    /// New ssthresh on a congestion signal (RFC 5681 eq. 4 for Reno); the
    /// sender calls it once per congestion event and then sets cwnd (to
    /// `min(cwnd, ssthresh)` for ECN, per its recovery rules for losses).
    fn ssthresh(&mut self, s: &CcState, flight: u64, _kind: LossKind, _now: SimTime) -> u64 {
        half_flight(s, flight)
    }
    /// Bytes the sender may have in flight (before the receiver window).
    fn send_window(&self, s: &CcState) -> u64 {
        s.cwnd
    }
    /// New data is about to leave after `idle` with nothing outstanding.
    fn on_tx_start(&mut self, _now: SimTime, _idle: SimTime) {}
    /// State exposed to segment policies.
    fn hints(&self, _s: &CcState) -> CcHints {
        CcHints::default()
    }
    fn name(&self) -> &'static str;
}

/// RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS).
#[inline]
pub fn half_flight(s: &CcState, flight: u64) -> u64 {
    (flight / 2).max(2 * s.smss)
}

/// Slow start with appropriate byte counting (RFC 3465, L = `abc_limit`·SMSS;
/// unlimited, every acknowledged byte, as Linux), up to ssthresh. Returns the acknowledged bytes left over for congestion
/// avoidance (non-zero only when this ACK crossed ssthresh, or cwnd was
/// already at or above it).
#[inline]
pub fn slow_start(s: &mut CcState, acked: u64, abc_limit: u64) -> u64 {
    if s.cwnd >= s.ssthresh {
        return acked;
    }
    // `abc_limit` = ABC_UNLIMITED (Linux) must not overflow.
    let inc = acked
        .min(abc_limit.saturating_mul(s.smss))
        .min(s.ssthresh - s.cwnd);
    s.cwnd += inc;
    if s.cwnd < s.ssthresh {
        0
    } else {
        acked - inc
    }
}

/// RFC 5681 §3.1: slow start below ssthresh (appropriate byte counting,
/// RFC 3465, L = 2·SMSS), then congestion avoidance by `rule`: one SMSS per
/// window of acknowledged bytes, or SMSS²/cwnd per ACK.
#[inline]
pub fn reno_increase(s: &mut CcState, acked: u64, abc_limit: u64, rule: CaIncrease) {
    let acked = slow_start(s, acked, abc_limit);
    if acked == 0 {
        return;
    }
    match rule {
        CaIncrease::Bytes => {
            s.ca_acked += acked;
            if s.ca_acked >= s.cwnd {
                s.ca_acked -= s.cwnd;
                s.cwnd += s.smss;
            }
        }
        // RFC 5681 eq. 3, once per ACK however much it acknowledges (a
        // stretch ACK grows the window as much as a one-segment ACK, as in
        // ns-2 and ns-3's TcpNewReno); at least one byte, as RFC 5681
        // requires when SMSS²/cwnd rounds to 0.
        CaIncrease::PerAck => s.cwnd += (s.smss * s.smss / s.cwnd.max(1)).max(1),
    }
}

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    pub ca: CaIncrease,
}

impl CongestionControl for NewReno {
    fn ca_increase(&self) -> CaIncrease {
        self.ca
    }
    fn name(&self) -> &'static str {
        "newreno"
    }
}

/// Enum dispatch over the built-in algorithms.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
    Cubic(cubic::Cubic),
    Dctcp(dctcp::Dctcp),
    Fast(fast::Fast),
    /// Boxed: BBR's model and its delivery-rate sampler are large, and
    /// `Cc` sits in the sender's hot lines.
    Bbr(Box<bbr::Bbr>),
}

/// `dispatch!(self, c => expr)` evaluates `expr` with `c` bound to the
/// variant's algorithm: a `match`, so every call is static.
macro_rules! dispatch {
    ($s:expr, $c:ident => $e:expr) => {
        match $s {
            Cc::NewReno($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Fast($c) => $e,
            Cc::Bbr($c) => $e,
        }
    };
}

impl Cc {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.cc {
            CcKind::NewReno => Cc::NewReno(NewReno {
                ca: cfg.ca_increase,
            }),
            CcKind::Cubic => Cc::Cubic(cubic::Cubic::with_hz(cfg.cubic, cfg.hz)),
            CcKind::Dctcp => Cc::Dctcp(dctcp::Dctcp::new(cfg.dctcp).with_ca(cfg.ca_increase)),
            CcKind::Fast => Cc::Fast(fast::Fast::new(cfg.fast).with_ca(cfg.ca_increase)),
            // (the flow gives it its random stream: TcpFlow::new)
            CcKind::Bbr => Cc::Bbr(Box::new(bbr::Bbr::new(cfg.hz, 0))),
        }
    }
    #[inline]
    pub fn on_ack_ecn(&mut self, s: &CcState, a: &AckInfo) -> Option<f64> {
        dispatch!(self, c => c.on_ack_ecn(s, a))
    }
    #[inline]
    pub fn on_ack(&mut self, s: &mut CcState, a: &AckInfo) {
        if a.cwnd_limited {
            dispatch!(self, c => c.on_ack(s, a))
        }
    }
    #[inline]
    pub fn ssthresh(&mut self, s: &CcState, flight: u64, kind: LossKind, now: SimTime) -> u64 {
        dispatch!(self, c => c.ssthresh(s, flight, kind, now))
    }
    #[inline]
    pub fn send_window(&self, s: &CcState) -> u64 {
        dispatch!(self, c => c.send_window(s))
    }
    #[inline]
    pub fn on_tx_start(&mut self, now: SimTime, idle: SimTime) {
        dispatch!(self, c => c.on_tx_start(now, idle))
    }
    #[inline]
    pub fn hints(&self, s: &CcState) -> CcHints {
        dispatch!(self, c => c.hints(s))
    }
    pub fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            smss: 1000,
            ca_acked: 0,
        }
    }

    /// An ACK template: `acked` new bytes, up to `snd_una`, at time `now_us`.
    pub(crate) fn ack(now_us: u64, acked: u64, ece: bool, snd_una: u64, snd_max: u64) -> AckInfo {
        AckInfo {
            now: SimTime::from_us(now_us),
            acked,
            ece,
            rtt: Some(SimTime::from_us(100)),
            srtt: Some(SimTime::from_us(100)),
            snd_una,
            snd_max,
            flight: snd_max - (snd_una - acked),
            segs_sent: 1000,
            abc_limit: 2,
            cwnd_limited: true,
        }
    }

    #[test]
    fn slow_start_doubles_per_window_of_full_acks() {
        let mut s = st(2000, u64::MAX);
        // one ACK per segment: a window of 2 segments acked → cwnd 4000
        reno_increase(&mut s, 1000, 2, CaIncrease::Bytes);
        reno_increase(&mut s, 1000, 2, CaIncrease::Bytes);
        assert_eq!(s.cwnd, 4000);
    }

    #[test]
    fn abc_limits_stretch_acks_to_two_smss() {
        let mut s = st(10_000, u64::MAX);
        reno_increase(&mut s, 8000, 2, CaIncrease::Bytes);
        assert_eq!(s.cwnd, 12_000);
    }

    #[test]
    fn delayed_acks_grow_slow_start_by_half_the_acked_window_with_abc_limit_one() {
        // A round of delayed ACKs, each covering 2 segments, acknowledges
        // the whole window W: with L = 1 SMSS each adds one SMSS (W/2 per
        // round, ×1.5), with L = 2 each adds what it acks (×2).
        for (limit, grown) in [(1, 15_000), (2, 20_000)] {
            let mut s = st(10_000, u64::MAX);
            for _ in 0..5 {
                reno_increase(&mut s, 2000, limit, CaIncrease::Bytes);
            }
            assert_eq!(s.cwnd, grown, "abc_limit {limit}");
        }
    }

    #[test]
    fn congestion_avoidance_adds_one_smss_per_window() {
        let mut s = st(10_000, 5_000);
        for _ in 0..10 {
            reno_increase(&mut s, 1000, 2, CaIncrease::Bytes);
        }
        assert_eq!(s.cwnd, 11_000);
        // the next 10 ACKs (less than a window of 11 segments) add nothing more
        for _ in 0..10 {
            reno_increase(&mut s, 1000, 2, CaIncrease::Bytes);
        }
        assert_eq!(s.cwnd, 11_000);
        reno_increase(&mut s, 1000, 2, CaIncrease::Bytes);
        assert_eq!(s.cwnd, 12_000);
    }

    /// RFC 5681 eq. 3 per ACK: each ACK in congestion avoidance adds
    /// SMSS²/cwnd of the window it arrives at, whatever it acknowledges, so
    /// a window's worth of one-segment ACKs adds a little less than one SMSS
    /// (the window grows under them), where byte counting adds exactly one.
    #[test]
    fn per_ack_avoidance_adds_smss_squared_over_cwnd_per_ack() {
        let per_ack = CaIncrease::PerAck;
        let mut s = st(10_000, 5_000);
        for acked in [1000, 1000, 1, 4000, 1000, 1000, 1000, 1000, 1000, 1000] {
            let before = s.cwnd;
            reno_increase(&mut s, acked, 2, per_ack);
            assert_eq!(s.cwnd - before, s.smss * s.smss / before, "acked {acked}");
        }
        assert!(s.cwnd > 10_900 && s.cwnd < 11_000, "cwnd {}", s.cwnd);
        // The increment shrinks as 1/cwnd but never reaches zero.
        let mut big = st(2_000_000, 5_000);
        reno_increase(&mut big, 1000, 2, per_ack);
        assert_eq!(big.cwnd, 2_000_001);
        // Below ssthresh it is slow start as before; only the bytes left
        // over when an ACK crosses ssthresh count as one avoidance ACK.
        let mut ss = st(3000, 4000);
        reno_increase(&mut ss, 1500, 2, per_ack);
        assert_eq!(ss.cwnd, 4000 + 1000 * 1000 / 4000);
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut s = st(3000, 4000);
        reno_increase(&mut s, 2000, 2, CaIncrease::Bytes);
        assert_eq!(s.cwnd, 4000);
    }

    #[test]
    fn slow_start_leftover_goes_to_avoidance() {
        let mut s = st(3000, 4000);
        assert_eq!(slow_start(&mut s, 1500, 2), 500);
        assert_eq!(s.cwnd, 4000);
        let mut s = st(3000, 4000);
        assert_eq!(slow_start(&mut s, 500, 2), 0);
        assert_eq!(s.cwnd, 3500);
        let mut s = st(5000, 4000);
        assert_eq!(slow_start(&mut s, 700, 2), 700);
        assert_eq!(s.cwnd, 5000);
    }

    #[test]
    fn ssthresh_floor_is_two_segments() {
        let s = st(1000, 0);
        let mut c = NewReno::default();
        assert_eq!(c.ssthresh(&s, 1000, LossKind::Rto, SimTime::ZERO), 2000);
        assert_eq!(
            c.ssthresh(&s, 40_000, LossKind::DupAck, SimTime::ZERO),
            20_000
        );
    }

    #[test]
    fn every_kind_builds_and_names_itself() {
        for kind in [
            CcKind::NewReno,
            CcKind::Cubic,
            CcKind::Dctcp,
            CcKind::Fast,
            CcKind::Bbr,
        ] {
            let cfg = TcpConfig {
                cc: kind,
                ..TcpConfig::default()
            };
            assert_eq!(Cc::new(&cfg).name(), kind.name());
        }
    }
}
