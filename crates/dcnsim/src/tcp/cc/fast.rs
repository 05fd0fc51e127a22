//! FaST (Hwang & Yoo, TIIS 2014), as reconstructed in SPEC §2.1.
//!
//! FaST is DCTCP with a *virtual* window: vwnd (kept in `CcState::cwnd`,
//! bytes = vwnd_segments·MSS) grows like cwnd — slow start and additive
//! increase in MSS units — and is cut by eq. (8), vwnd·(1 − α/2), with *no*
//! floor at Wmin (α from eqs. 1–2, [`AlphaEstimator`]). While vwnd < Wmin
//! segments the sender keeps Wmin segments in flight, each of eq. (9)'s
//! size `seg` ([`fast_segment`]), so bytes in flight follow vwnd below the
//! point where DCTCP would stop at Wmin. The segment sizes themselves come
//! from the segment policy (`SegPolicy::Fast`, which reads vwnd from
//! `SegView`); this module only sizes the window the same way.
//!
//! Probing stage (Algorithm 1, lines 1–3): the first `probe_segments` new
//! segments of a connection are `probe_size` bytes and are the whole first
//! flight — the window is `probe_segments·probe_size` until the first ACK
//! that arrives after the last probe left; then vwnd (the initial window,
//! already cut if those ACKs carried ECN-Echo) takes over.
//!
//! Losses and timeouts are handled as in TCP (halve the flight, loss window
//! of one MSS), with RFC 5681's two-segment ssthresh floor counted in
//! S_min-sized segments so that a loss never *raises* a window that FaST
//! has shrunk below two full segments.

use super::dctcp::AlphaEstimator;
use super::{reno_increase, slow_start, AckInfo, CcHints, CcState, CongestionControl, LossKind};
use crate::config::CaIncrease;
use crate::config::{FastParams, FastSegRule};
use crate::sim::time::SimTime;

/// FaST eq. (9): payload bytes of the next segment for a virtual window of
/// `vwnd` bytes (`vwnd/smss` segments). Full segments while vwnd ≥ Wmin;
/// below, `Continuous`: MSS·vwnd/Wmin, `Literal`: MSS·min(1, vwnd) —
/// floored at S_min (itself at most SMSS).
#[inline]
pub fn fast_segment(rule: FastSegRule, vwnd: u64, smss: u64, wmin: u64, smin: u64) -> u64 {
    if vwnd >= wmin.saturating_mul(smss) {
        return smss;
    }
    let seg = match rule {
        FastSegRule::Continuous => vwnd / wmin.max(1),
        FastSegRule::Literal => vwnd.min(smss),
    };
    seg.max(smin.min(smss)).min(smss)
}

/// The bytes a FaST sender keeps in flight: vwnd while vwnd ≥ Wmin,
/// otherwise Wmin segments of [`fast_segment`]'s size.
#[inline]
pub fn fast_window(rule: FastSegRule, vwnd: u64, smss: u64, wmin: u64, smin: u64) -> u64 {
    if vwnd >= wmin.saturating_mul(smss) {
        vwnd
    } else {
        wmin.max(1) * fast_segment(rule, vwnd, smss, wmin, smin)
    }
}

#[derive(Clone, Debug)]
pub struct Fast {
    p: FastParams,
    est: AlphaEstimator,
    probing: bool,
    ca: CaIncrease,
}

impl Fast {
    pub fn new(p: FastParams) -> Self {
        Fast {
            est: AlphaEstimator::new(p.g, p.alpha_init),
            probing: p.probe_segments > 0,
            p,
            ca: CaIncrease::Bytes,
        }
    }
    /// vwnd's congestion-avoidance rule ([`crate::config::TcpConfig::ca_increase`]).
    pub fn with_ca(mut self, ca: CaIncrease) -> Self {
        self.ca = ca;
        self
    }
    pub fn alpha(&self) -> f64 {
        self.est.alpha()
    }
    pub fn probing(&self) -> bool {
        self.probing
    }
    pub fn params(&self) -> &FastParams {
        &self.p
    }
}

impl CongestionControl for Fast {
    /// (PLB is DCTCP's: FaST's rounds are not reported.)
    #[inline]
    fn on_ack_ecn(&mut self, _s: &CcState, a: &AckInfo) -> Option<f64> {
        self.est.on_ack(a);
        if self.probing && a.segs_sent >= self.p.probe_segments as u64 {
            self.probing = false;
        }
        None
    }

    fn on_ack(&mut self, s: &mut CcState, a: &AckInfo) {
        if self.ca != CaIncrease::PerAck {
            return reno_increase(s, a.acked, a.abc_limit, self.ca);
        }
        // RFC 5681 eq. 3, SMSS²/cwnd per ACK, stands for one SMSS a round
        // trip when each ACK covers about an SMSS. FaST's ACKs cover its
        // sub-MSS segments, and its vwnd goes below one SMSS, where eq. 3
        // is many SMSS an ACK (100 B → 21 kB on one ACK at S_min, undoing
        // the shrinking): an ACK adds at most its share of one SMSS,
        // SMSS·acked/vwnd, so a window of ACKs adds one SMSS (SPEC §2.1:
        // additive increase in MSS units). An ACK of a full segment adds
        // eq. 3's SMSS²/vwnd, as before.
        let left = slow_start(s, a.acked, a.abc_limit);
        if left > 0 {
            let w = s.cwnd.max(1);
            s.cwnd += (s.smss * s.smss / w).min(s.smss * left / w).max(1);
        }
    }

    fn ssthresh(&mut self, s: &CcState, flight: u64, kind: LossKind, _now: SimTime) -> u64 {
        let smin = (self.p.smin as u64).min(s.smss);
        match kind {
            // Eq. (8): no floor at Wmin; vwnd only stays positive.
            LossKind::Ecn => self.est.reduce(s.cwnd).max(smin),
            LossKind::DupAck | LossKind::Rto => (flight / 2).max(2 * smin),
        }
    }

    #[inline]
    fn send_window(&self, s: &CcState) -> u64 {
        if self.probing {
            return self.p.probe_segments as u64 * self.p.probe_size as u64;
        }
        fast_window(
            self.p.seg_rule,
            s.cwnd,
            s.smss,
            self.p.wmin as u64,
            self.p.smin as u64,
        )
    }

    fn hints(&self, s: &CcState) -> CcHints {
        CcHints {
            vwnd: Some(s.cwnd),
            alpha: Some(self.est.alpha()),
            ..CcHints::default()
        }
    }

    fn name(&self) -> &'static str {
        "fast"
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ack, st};
    use super::*;
    use crate::config::FastSegRule;

    const MSS: u64 = 1000;

    fn fast(rule: FastSegRule, probes: u32) -> Fast {
        Fast::new(FastParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            wmin: 2,
            smin: 100,
            probe_segments: probes,
            probe_size: 100,
            seg_rule: rule,
        })
    }

    /// Per-ACK congestion avoidance adds one SMSS a window of ACKs
    /// whatever the segments' size: at vwnd = S_min (100 B) an ACK of its
    /// 50-byte segment adds 500 B, not SMSS²/vwnd = 10 kB, and a window of
    /// 1 kB segments at vwnd = 4 kB adds eq. 3's 250 B an ACK, as before.
    #[test]
    fn per_ack_increase_is_one_smss_a_window_below_one_smss_too() {
        let mut f = fast(FastSegRule::Continuous, 0).with_ca(CaIncrease::PerAck);
        let mut s = st(100, 50);
        f.on_ack(&mut s, &ack(0, 50, false, 50, 100));
        assert_eq!(s.cwnd, 100 + MSS * 50 / 100);
        // a whole window of small ACKs: at most one SMSS (and at least half)
        let mut s = st(400, 50);
        let start = s.cwnd;
        let mut acked = 0;
        while acked < start {
            f.on_ack(&mut s, &ack(0, 200, false, 200, 400));
            acked += 200;
        }
        assert!(
            s.cwnd - start <= MSS && s.cwnd - start >= MSS / 2,
            "{}",
            s.cwnd
        );
        let mut s = st(4 * MSS, MSS);
        f.on_ack(&mut s, &ack(0, MSS, false, MSS, 4 * MSS));
        assert_eq!(s.cwnd, 4 * MSS + MSS / 4);
    }

    #[test]
    fn vwnd_keeps_shrinking_below_wmin() {
        // α = 1: every cut halves vwnd; DCTCP would stop at 2 segments.
        let mut f = fast(FastSegRule::Continuous, 0);
        let mut s = st(8 * MSS, u64::MAX);
        let mut seen = Vec::new();
        for _ in 0..6 {
            s.cwnd = s
                .cwnd
                .min(f.ssthresh(&s, s.cwnd, LossKind::Ecn, SimTime::ZERO));
            seen.push(s.cwnd);
        }
        assert_eq!(seen, vec![4000, 2000, 1000, 500, 250, 125]);
        // …down to S_min, never to zero.
        for _ in 0..10 {
            s.cwnd = s
                .cwnd
                .min(f.ssthresh(&s, s.cwnd, LossKind::Ecn, SimTime::ZERO));
        }
        assert_eq!(s.cwnd, 100);
    }

    #[test]
    fn window_is_wmin_segments_of_the_reduced_size() {
        let f = fast(FastSegRule::Continuous, 0);
        // vwnd ≥ Wmin: the window is vwnd.
        assert_eq!(f.send_window(&st(5 * MSS, 0)), 5 * MSS);
        assert_eq!(f.send_window(&st(2 * MSS, 0)), 2 * MSS);
        // vwnd = 1.5 segments: 2 segments of 750 B.
        assert_eq!(f.send_window(&st(1500, 0)), 1500);
        // vwnd = 0.1 segment: 2 segments of S_min = 100 B.
        assert_eq!(f.send_window(&st(100, 0)), 200);
        // Literal reading: 1 ≤ vwnd < Wmin keeps full segments (2 MSS in
        // flight); vwnd < 1 shrinks them to MSS·vwnd.
        let f = fast(FastSegRule::Literal, 0);
        assert_eq!(f.send_window(&st(1500, 0)), 2 * MSS);
        assert_eq!(f.send_window(&st(600, 0)), 1200);
        assert_eq!(f.send_window(&st(50, 0)), 200);
    }

    #[test]
    fn probing_window_until_the_probes_are_out_and_acked() {
        let mut f = fast(FastSegRule::Continuous, 3);
        let s = st(2 * MSS, u64::MAX);
        assert!(f.probing());
        assert_eq!(f.send_window(&s), 300);
        // An ACK while only 2 probes have left does not end probing.
        let mut a = ack(1, 100, false, 100, 200);
        a.segs_sent = 2;
        f.on_ack_ecn(&s, &a);
        assert!(f.probing());
        let mut a = ack(2, 100, false, 200, 300);
        a.segs_sent = 3;
        f.on_ack_ecn(&s, &a);
        assert!(!f.probing());
        assert_eq!(f.send_window(&s), 2 * MSS);
    }

    #[test]
    fn loss_halves_the_flight_with_a_floor_of_two_smallest_segments() {
        let mut f = fast(FastSegRule::Continuous, 0);
        let s = st(600, u64::MAX);
        assert_eq!(f.ssthresh(&s, 600, LossKind::DupAck, SimTime::ZERO), 300);
        assert_eq!(f.ssthresh(&s, 300, LossKind::Rto, SimTime::ZERO), 200);
        assert_eq!(f.ssthresh(&s, 20_000, LossKind::Rto, SimTime::ZERO), 10_000);
    }

    #[test]
    fn vwnd_grows_one_mss_per_window_of_acked_bytes() {
        // In avoidance with vwnd = 0.5 MSS: acknowledging 500 bytes (one
        // round of two 250 B segments) adds one MSS, as cwnd would.
        let mut f = fast(FastSegRule::Continuous, 0);
        let mut s = st(500, 100);
        f.on_ack(&mut s, &ack(1, 250, false, 250, 500));
        assert_eq!(s.cwnd, 500);
        f.on_ack(&mut s, &ack(2, 250, false, 500, 750));
        assert_eq!(s.cwnd, 1500);
    }
}
