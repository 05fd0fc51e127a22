//! Congestion control: how much a sender may have in flight.
//!
//! The sender owns the shared state ([`CcState`]: cwnd, ssthresh, smss — all
//! in bytes, never segments, because FaST, TCPRand and DSR vary segment
//! sizes). Each algorithm keeps its private state and is dispatched through
//! the [`Cc`] enum so the hot path stays monomorphic. Loss *recovery*
//! (NewReno partial ACKs, SACK) lives in the sender, not here.

use crate::config::CcKind;
use crate::time::SimTime;

/// Window state shared by every algorithm, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct CcState {
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
    pub rtt: Option<SimTime>,
    pub snd_una: u64,
    pub snd_max: u64,
    /// Bytes outstanding before this ACK.
    pub flight: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Fast retransmit after duplicate ACKs.
    DupAck,
    /// Retransmission timeout.
    Rto,
    /// ECN echo (RFC 3168: respond as to a loss, once per window).
    Ecn,
}

/// The hooks every algorithm implements; defaults are Reno's.
pub trait CongestionControl {
    /// Grow the window on an ACK that advanced snd_una outside loss recovery.
    fn on_ack(&mut self, s: &mut CcState, a: &AckInfo) {
        reno_increase(s, a.acked);
    }
    /// New ssthresh on a congestion signal (RFC 5681 eq. 4 for Reno).
    fn ssthresh(&mut self, s: &CcState, flight: u64, _kind: LossKind, _now: SimTime) -> u64 {
        half_flight(s, flight)
    }
    fn name(&self) -> &'static str;
}

/// RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS).
#[inline]
pub fn half_flight(s: &CcState, flight: u64) -> u64 {
    (flight / 2).max(2 * s.smss)
}

/// RFC 5681 §3.1 with appropriate byte counting (RFC 3465, L = 2·SMSS):
/// slow start below ssthresh, then one SMSS per window of acknowledged bytes.
#[inline]
pub fn reno_increase(s: &mut CcState, acked: u64) {
    let mut acked = acked;
    if s.cwnd < s.ssthresh {
        let inc = acked.min(2 * s.smss).min(s.ssthresh - s.cwnd);
        s.cwnd += inc;
        acked -= inc.min(acked);
        if acked == 0 || s.cwnd < s.ssthresh {
            return;
        }
    }
    s.ca_acked += acked;
    if s.ca_acked >= s.cwnd {
        s.ca_acked -= s.cwnd;
        s.cwnd += s.smss;
    }
}

#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
}

/// Enum dispatch over the built-in algorithms.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
}

impl Cc {
    pub fn new(kind: CcKind) -> Self {
        match kind {
            CcKind::NewReno => Cc::NewReno(NewReno),
        }
    }
    #[inline]
    pub fn inner(&mut self) -> &mut dyn CongestionControl {
        match self {
            Cc::NewReno(c) => c,
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            Cc::NewReno(c) => c.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            smss: 1000,
            ca_acked: 0,
        }
    }

    #[test]
    fn slow_start_doubles_per_window_of_full_acks() {
        let mut s = st(2000, u64::MAX);
        // one ACK per segment: a window of 2 segments acked → cwnd 4000
        reno_increase(&mut s, 1000);
        reno_increase(&mut s, 1000);
        assert_eq!(s.cwnd, 4000);
    }

    #[test]
    fn abc_limits_stretch_acks_to_two_smss() {
        let mut s = st(10_000, u64::MAX);
        reno_increase(&mut s, 8000);
        assert_eq!(s.cwnd, 12_000);
    }

    #[test]
    fn congestion_avoidance_adds_one_smss_per_window() {
        let mut s = st(10_000, 5_000);
        for _ in 0..10 {
            reno_increase(&mut s, 1000);
        }
        assert_eq!(s.cwnd, 11_000);
        // the next 10 ACKs (less than a window of 11 segments) add nothing more
        for _ in 0..10 {
            reno_increase(&mut s, 1000);
        }
        assert_eq!(s.cwnd, 11_000);
        reno_increase(&mut s, 1000);
        assert_eq!(s.cwnd, 12_000);
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut s = st(3000, 4000);
        reno_increase(&mut s, 2000);
        assert_eq!(s.cwnd, 4000);
    }

    #[test]
    fn ssthresh_floor_is_two_segments() {
        let s = st(1000, 0);
        let mut c = NewReno;
        assert_eq!(c.ssthresh(&s, 1000, LossKind::Rto, SimTime::ZERO), 2000);
        assert_eq!(
            c.ssthresh(&s, 40_000, LossKind::DupAck, SimTime::ZERO),
            20_000
        );
    }
}
