//! DCTCP, RFC 8257.
//!
//! Switches mark CE when the instantaneous queue exceeds K; the receiver
//! echoes CE per segment (RFC 8257 §3.2, implemented in the receiver, see
//! `tcp::EcnEcho`); the sender estimates the fraction of marked bytes per
//! window of data, α ← (1 − g)·α + g·F (§3.3 steps 1–8, [`AlphaEstimator`]),
//! and on ECN-Echo cuts cwnd ← cwnd·(1 − α/2) (§3.3 step 9) at most once
//! per window — the sender's RFC 3168 CWR state provides the "once", and a
//! window without an ECN-Echo is never cut. Losses and timeouts get the
//! standard response (§3.4). ssthresh keeps RFC 5681's floor of 2·SMSS,
//! without which cwnd would sink below one segment under persistent marking.

use super::{half_flight, AckInfo, CcHints, CcState, CongestionControl, LossKind};
use crate::config::{CaIncrease, DctcpParams};
use crate::sim::time::SimTime;

/// RFC 8257 §3.3 steps 1–8: the fraction of marked bytes per observation
/// window, smoothed with gain g. Shared by DCTCP and FaST.
#[derive(Clone, Debug)]
pub struct AlphaEstimator {
    alpha: f64,
    g: f64,
    /// The window ends when snd_una reaches this point (DCTCP.WindowEnd).
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    updates: u64,
}

impl AlphaEstimator {
    pub fn new(g: f64, alpha_init: f64) -> Self {
        AlphaEstimator {
            alpha: alpha_init,
            g,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            updates: 0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// How many observation windows have closed (α updates).
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Account one ACK; returns the fraction of marked bytes F of the
    /// observation window it closed (α was updated), if it closed one.
    #[inline]
    pub fn on_ack(&mut self, a: &AckInfo) -> Option<f64> {
        // Steps 1–3 (SACK ignored: bytes count when cumulatively acknowledged).
        self.bytes_acked += a.acked;
        if a.ece {
            self.bytes_marked += a.acked;
        }
        // Step 4. RFC 8257 stops while SEG.ACK ≤ WindowEnd; like Linux we
        // close the window on the ACK that reaches WindowEnd, since all of
        // the window's data is then acknowledged (otherwise an app-limited
        // flow whose last ACK lands exactly on WindowEnd never updates α).
        if a.snd_una < self.window_end || self.bytes_acked == 0 {
            return None;
        }
        // Steps 5–6.
        let f = self.bytes_marked as f64 / self.bytes_acked as f64;
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        // Steps 7–8: the next window is the data sent so far.
        self.window_end = a.snd_max;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
        self.updates += 1;
        Some(f)
    }

    /// RFC 8257 §3.3 step 9: cwnd·(1 − α/2), in bytes.
    #[inline]
    pub fn reduce(&self, cwnd: u64) -> u64 {
        (cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    est: AlphaEstimator,
    ca: CaIncrease,
}

impl Dctcp {
    pub fn new(p: DctcpParams) -> Self {
        Dctcp {
            est: AlphaEstimator::new(p.g, p.alpha_init),
            ca: CaIncrease::Bytes,
        }
    }
    /// Congestion avoidance's rule ([`crate::config::TcpConfig::ca_increase`]).
    pub fn with_ca(mut self, ca: CaIncrease) -> Self {
        self.ca = ca;
        self
    }
    pub fn alpha(&self) -> f64 {
        self.est.alpha()
    }
    pub fn estimator(&self) -> &AlphaEstimator {
        &self.est
    }
}

impl CongestionControl for Dctcp {
    #[inline]
    fn on_ack_ecn(&mut self, _s: &CcState, a: &AckInfo) -> Option<f64> {
        self.est.on_ack(a)
    }

    fn ca_increase(&self) -> CaIncrease {
        self.ca
    }

    fn ssthresh(&mut self, s: &CcState, flight: u64, kind: LossKind, _now: SimTime) -> u64 {
        match kind {
            // §3.3 step 9, with RFC 5681's floor of 2·SMSS.
            LossKind::Ecn => self.est.reduce(s.cwnd).max(2 * s.smss),
            // §3.4: losses as conventional TCP.
            LossKind::DupAck | LossKind::Rto => half_flight(s, flight),
        }
    }

    fn hints(&self, _s: &CcState) -> CcHints {
        CcHints {
            alpha: Some(self.est.alpha()),
            ..CcHints::default()
        }
    }

    fn name(&self) -> &'static str {
        "dctcp"
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ack, st};
    use super::*;

    const SEG: u64 = 1000;

    /// The connection's first ACK closes the (empty) initial observation
    /// window; after it, windows are `per_window` segments long. The ACK is
    /// unmarked, so α becomes (1 − g)·α.
    fn prime(est: &mut AlphaEstimator, per_window: u64) {
        assert!(est
            .on_ack(&ack(0, SEG, false, SEG, (1 + per_window) * SEG))
            .is_some());
    }

    /// Feed `windows` windows of `per_window` one-segment ACKs (the sender
    /// keeps a window outstanding), marking the ACKs for which
    /// `marked(window, i)` holds. Returns α after each update.
    fn feed(
        est: &mut AlphaEstimator,
        windows: u64,
        per_window: u64,
        marked: impl Fn(u64, u64) -> bool,
    ) -> Vec<f64> {
        let mut alphas = Vec::new();
        let mut una = SEG + est.updates().saturating_sub(1) * per_window * SEG;
        for w in 0..windows {
            for i in 0..per_window {
                una += SEG;
                let a = ack(una / SEG, SEG, marked(w, i), una, una + per_window * SEG);
                if est.on_ack(&a).is_some() {
                    alphas.push(est.alpha());
                }
            }
        }
        alphas
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        // 3 of every 10 segments marked, in a fixed pattern within each window.
        let mut est = AlphaEstimator::new(1.0 / 16.0, 1.0);
        prime(&mut est, 10);
        let a0 = est.alpha();
        assert_eq!(a0, 15.0 / 16.0);
        let alphas = feed(&mut est, 200, 10, |_, i| i % 10 < 3);
        assert!(
            (est.alpha() - 0.3).abs() < 1e-4,
            "alpha {} after 200 windows",
            est.alpha()
        );
        // Exactly one update per window of data (INET #816: not per ACK).
        assert_eq!(alphas.len(), 200);
        assert_eq!(est.updates(), 201);
        // Geometric convergence: α_n − F = (1 − g)^n (α_0 − F).
        let n = 20;
        let want = 0.3 + (15.0f64 / 16.0).powi(n) * (a0 - 0.3);
        assert!((alphas[n as usize - 1] - want).abs() < 1e-12);
    }

    #[test]
    fn alpha_tracks_a_varying_marked_fraction_and_decays_without_marks() {
        // A pseudo-random but fixed pattern: marked fraction 1/4 overall.
        let mut est = AlphaEstimator::new(1.0 / 16.0, 0.0);
        prime(&mut est, 8);
        feed(&mut est, 400, 8, |w, i| (w * 7 + i * 3) % 8 < 2);
        assert!((est.alpha() - 0.25).abs() < 0.01, "alpha {}", est.alpha());
        feed(&mut est, 200, 8, |_, _| false);
        assert!(est.alpha() < 1e-5);
    }

    #[test]
    fn stretch_acks_count_bytes_not_acks() {
        // Two ACKs per window: 1 byte marked, 9 999 unmarked → F ≈ 1e-4.
        let mut est = AlphaEstimator::new(1.0, 1.0);
        prime(&mut est, 10);
        assert!(est.on_ack(&ack(1, 1, true, SEG + 1, 11 * SEG)).is_none());
        assert!(est
            .on_ack(&ack(2, 9_999, false, 11 * SEG, 21 * SEG))
            .is_some());
        assert!((est.alpha() - 1e-4).abs() < 1e-12);
    }

    #[test]
    fn window_closes_on_the_ack_that_reaches_window_end() {
        let mut est = AlphaEstimator::new(0.5, 0.0);
        // The first ACK closes the initial (empty) window, and opens one to 3000.
        assert!(est.on_ack(&ack(1, 1000, false, 1000, 3000)).is_some());
        assert!(est.on_ack(&ack(2, 1000, true, 2000, 3000)).is_none());
        assert!(est.on_ack(&ack(3, 1000, true, 3000, 5000)).is_some());
        assert!((est.alpha() - 0.5 * (2.0 / 2.0)).abs() < 1e-12);
    }

    #[test]
    fn ecn_cut_scales_with_alpha_and_floors_at_two_segments() {
        let mut c = Dctcp::new(DctcpParams {
            g: 1.0 / 16.0,
            alpha_init: 0.5,
        });
        let s = st(100 * SEG, u64::MAX);
        let t = SimTime::ZERO;
        assert_eq!(c.ssthresh(&s, 0, LossKind::Ecn, t), 75 * SEG);
        // Loss: halve the flight, as TCP.
        assert_eq!(c.ssthresh(&s, 80 * SEG, LossKind::DupAck, t), 40 * SEG);
        // Pitfall (SPEC §2): α = 1 on a 3-segment window would give 1.5
        // segments; the floor keeps 2.
        let mut c = Dctcp::new(DctcpParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
        });
        let s = st(3 * SEG, u64::MAX);
        assert_eq!(c.ssthresh(&s, 3 * SEG, LossKind::Ecn, t), 2 * SEG);
        let s = st(2 * SEG, u64::MAX);
        for _ in 0..10 {
            assert_eq!(c.ssthresh(&s, 2 * SEG, LossKind::Ecn, t), 2 * SEG);
        }
    }

    #[test]
    fn alpha_zero_cut_is_no_cut() {
        let mut c = Dctcp::new(DctcpParams {
            g: 1.0 / 16.0,
            alpha_init: 0.0,
        });
        let s = st(50 * SEG, u64::MAX);
        assert_eq!(c.ssthresh(&s, 0, LossKind::Ecn, SimTime::ZERO), 50 * SEG);
    }
}
