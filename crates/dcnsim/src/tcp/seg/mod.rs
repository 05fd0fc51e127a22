//! Segment-size policies: *in what sizes* to send (the CC decides *how much*).
//! FaST, TCPRand and DSR plug in here; any policy combines with any CC.
//!
//! * `Fixed`: every segment is SMSS bytes (or what the application has left).
//! * `Fast`: FaST's segment size (SPEC §2.1 eq. 9, both readings) with its
//!   probing stage; vwnd comes from the FaST congestion control through
//!   [`SegView::vwnd`] (under any other CC, cwnd stands in for it).
//! * `Dsr`: Kulkarni's Dynamic Segment Resizing (Algorithm 4). The segment
//!   size is the sender's SMSS itself, which starts at MSS_dsr and grows in
//!   [`SegmentPolicy::resize`] as the window grows, so the window also grows in
//!   units of the current (small) segment.
//! * `TcpRand`: Lee et al.'s payload randomization (SPEC §2.2): every new
//!   segment carries U[rMin, MSS] bytes (integers), rMin fixed (static) or
//!   from Algorithm 1 on CUBIC's W_max and epoch-start window (adaptive).

//!
//! Each policy is a struct in its own file implementing [`SegmentPolicy`];
//! [`SegPolicy`] holds one of them and dispatches with a `match`, so the
//! per-segment path has no virtual call (the same shape as `cc::Cc`).

pub mod dsr;
pub mod fast;
pub mod fixed;
pub mod tcprand;

use super::cc::CcState;
use crate::config::{SegPolicyKind, TcpConfig};
use crate::sim::rng::Rng;

/// What a policy may read about the sender when sizing the next segment.
#[derive(Clone, Copy, Debug)]
pub struct SegView {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
    /// Bytes of new data the application has made available.
    pub available: u64,
    /// New data segments sent so far on this connection.
    pub segs_sent: u64,
    /// FaST's virtual window, bytes (FaST congestion control only).
    pub vwnd: Option<u64>,
    /// CUBIC's W_max, bytes (CUBIC only, once defined).
    pub w_max: Option<u64>,
    /// CUBIC's cwnd at the start of the current epoch, bytes (CUBIC only, once defined).
    pub epoch_start_cwnd: Option<u64>,
}

/// What every segment policy does. The defaults are those of a policy
/// that sends SMSS-sized segments and never changes SMSS.
pub trait SegmentPolicy {
    /// Called after the window grew on an ACK outside loss recovery: a
    /// policy may change the sender's SMSS (DSR). The window in bytes — and
    /// so what may be in flight — is never changed. Returns whether SMSS changed.
    #[inline]
    fn resize(&mut self, _st: &mut CcState) -> bool {
        false
    }
    /// The smallest payload the policy may choose now.
    #[inline]
    fn rmin(&self, v: &SegView) -> u64 {
        v.smss
    }
    /// The segment sized by the last [`Self::want`] was sent.
    #[inline]
    fn consumed(&mut self) {}
    /// The payload the policy wants for the next new segment, before
    /// [`SegPolicy::next_payload`] clamps it to [1, min(SMSS, available)].
    /// Asking again before [`Self::consumed`] gives the same size unless the
    /// sender's state changed.
    fn want(&mut self, v: &SegView, rng: &mut Rng) -> u64;
    /// The policy's name in scenarios and reports.
    fn name(&self) -> &'static str;
}

/// Enum dispatch over the built-in policies. `repr(u8)` puts the tag
/// first, so a Fixed flow's hot line holds all it reads (`TcpFlow` layout).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum SegPolicy {
    Fixed(fixed::Fixed),
    Fast(fast::Fast),
    Dsr(dsr::Dsr),
    TcpRand(tcprand::TcpRand),
}

/// `dispatch!(self, p => expr)` evaluates `expr` with `p` bound to the
/// variant's policy: a `match`, so every call is static.
macro_rules! dispatch {
    ($s:expr, $p:ident => $e:expr) => {
        match $s {
            SegPolicy::Fixed($p) => $e,
            SegPolicy::Fast($p) => $e,
            SegPolicy::Dsr($p) => $e,
            SegPolicy::TcpRand($p) => $e,
        }
    };
}

impl SegPolicy {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.seg {
            SegPolicyKind::Fixed => SegPolicy::Fixed(fixed::Fixed),
            SegPolicyKind::Fast => SegPolicy::Fast(fast::Fast(cfg.fast)),
            SegPolicyKind::Dsr => SegPolicy::Dsr(dsr::Dsr {
                mss: cfg.mss as u64,
                cwnd_dsr: cfg.dsr.cwnd as u64,
            }),
            SegPolicyKind::TcpRand => SegPolicy::TcpRand(tcprand::TcpRand {
                p: cfg.tcprand,
                pending: None,
            }),
        }
    }
    /// The sender's SMSS (the unit of window growth) when the connection
    /// starts: MSS_dsr for DSR, the MSS otherwise.
    pub fn initial_smss(cfg: &TcpConfig) -> u64 {
        match cfg.seg {
            SegPolicyKind::Dsr => cfg.dsr.mss.clamp(1, cfg.mss) as u64,
            _ => cfg.mss as u64,
        }
    }
    /// See [`SegmentPolicy::resize`].
    #[inline]
    pub fn resize(&mut self, st: &mut CcState) -> bool {
        dispatch!(self, p => p.resize(st))
    }
    /// The smallest payload TCPRand may draw now (SMSS for other policies).
    #[inline]
    pub fn rmin(&self, v: &SegView) -> u64 {
        dispatch!(self, p => p.rmin(v))
    }
    /// The segment sized by the last [`Self::next_payload`] was sent.
    #[inline]
    pub fn consumed(&mut self) {
        dispatch!(self, p => p.consumed())
    }
    /// Payload bytes for the next new segment (≥ 1, ≤ SMSS, ≤ available).
    /// Asking again before [`Self::consumed`] gives the same size unless the
    /// sender's state changed.
    #[inline]
    pub fn next_payload(&mut self, v: &SegView, rng: &mut Rng) -> u32 {
        let want = dispatch!(self, p => p.want(v, rng));
        clamp_payload(want, v.smss, v.available)
    }
    /// [`Self::next_payload`] when the policy reads nothing of the view
    /// but SMSS and what is available: `Fixed`, which wants SMSS. The
    /// sender's per-segment path then skips building the view (and asking
    /// the congestion control for its hints). `None` for the other policies.
    #[inline(always)]
    pub fn payload_without_view(&self, smss: u64, available: u64) -> Option<u32> {
        match self {
            SegPolicy::Fixed(_) => Some(clamp_payload(smss, smss, available)),
            _ => None,
        }
    }
    pub fn name(&self) -> &'static str {
        dispatch!(self, p => p.name())
    }
}

/// A policy's wanted payload clamped to [1, min(SMSS, available)].
#[inline(always)]
fn clamp_payload(want: u64, smss: u64, available: u64) -> u32 {
    want.min(smss).min(available).max(1) as u32
}

#[cfg(test)]
mod tests {
    use super::super::cc::fast::{fast_segment, fast_window};
    use super::dsr::dsr_resize;
    use super::tcprand::{normal_cdf, tcprand_rmin};
    use super::*;
    use crate::config::FastSegRule::{Continuous, Literal};
    use crate::config::{TcpRandMode, TcpRandParams};

    const MSS: u64 = 1500;

    #[test]
    fn continuous_segment_size_follows_vwnd_below_wmin() {
        // Wmin = 2, S_min = 100: seg = max(100, MSS·vwnd/2) for vwnd < 2.
        let seg =
            |vwnd_seg: f64| fast_segment(Continuous, (vwnd_seg * MSS as f64) as u64, MSS, 2, 100);
        assert_eq!(seg(10.0), MSS);
        assert_eq!(seg(2.0), MSS);
        assert_eq!(seg(1.9), 1425);
        assert_eq!(seg(1.0), 750);
        assert_eq!(seg(0.5), 375);
        assert_eq!(seg(0.2), 150);
        assert_eq!(seg(0.1), 100); // 75 → S_min
        assert_eq!(seg(0.0), 100);
        // Bytes in flight ≈ vwnd (Wmin segments of vwnd/Wmin) until S_min.
        for v in [2999u64, 2000, 1500, 900, 301] {
            let w = fast_window(Continuous, v, MSS, 2, 100);
            assert!(w <= v && v - w <= 1, "vwnd {v}: window {w}");
        }
        assert_eq!(fast_window(Continuous, 100, MSS, 2, 100), 200);
    }

    #[test]
    fn literal_segment_size_is_mss_times_min_one_vwnd() {
        let seg =
            |vwnd_seg: f64| fast_segment(Literal, (vwnd_seg * MSS as f64) as u64, MSS, 2, 100);
        assert_eq!(seg(3.0), MSS);
        assert_eq!(seg(1.5), MSS);
        assert_eq!(seg(1.0), MSS);
        assert_eq!(seg(0.5), 750);
        assert_eq!(seg(0.05), 100);
        assert_eq!(fast_window(Literal, 1500 + 750, MSS, 2, 100), 2 * MSS);
        assert_eq!(fast_window(Literal, 750, MSS, 2, 100), 1500);
    }

    #[test]
    fn larger_wmin_and_smin_above_mss() {
        // Wmin = 4: vwnd 2 segments → 4 segments of MSS/2.
        assert_eq!(fast_segment(Continuous, 2 * MSS, MSS, 4, 100), 750);
        // S_min is capped at SMSS.
        assert_eq!(fast_segment(Continuous, 10, 500, 2, 800), 500);
    }

    fn view(cwnd: u64, vwnd: Option<u64>, segs_sent: u64, available: u64) -> SegView {
        SegView {
            cwnd,
            ssthresh: u64::MAX,
            smss: MSS,
            available,
            segs_sent,
            vwnd,
            w_max: None,
            epoch_start_cwnd: None,
        }
    }

    /// The sender sizes a fixed-policy segment without a view: it must be
    /// what `next_payload` gives on any view with the same SMSS and
    /// available bytes (SMSS, or what is left, at least one byte); every
    /// other policy reads the view and gets none.
    #[test]
    fn a_payload_without_view_is_the_fixed_policys_next_payload() {
        let mut rng = crate::sim::rng::stream(1, crate::sim::rng::Stream::Flow, 0);
        let mut fixed = SegPolicy::new(&TcpConfig::default());
        for smss in [1, 536, MSS, 9000] {
            for available in [0, 1, smss - 1, smss, smss + 1, 1 << 40] {
                let v = SegView {
                    smss,
                    ..view(7 * smss, Some(smss / 3), 5, available)
                };
                let len = fixed.payload_without_view(smss, available);
                assert_eq!(len, Some(fixed.next_payload(&v, &mut rng)));
                assert_eq!(len, Some(available.clamp(1, smss) as u32));
            }
        }
        for seg in [
            SegPolicyKind::Fast,
            SegPolicyKind::Dsr,
            SegPolicyKind::TcpRand,
        ] {
            let p = SegPolicy::new(&TcpConfig {
                seg,
                ..TcpConfig::default()
            });
            assert_eq!(p.payload_without_view(MSS, 1 << 20), None, "{seg:?}");
        }
    }

    #[test]
    fn fast_policy_probes_then_follows_vwnd() {
        let cfg = TcpConfig {
            mss: MSS as u32,
            seg: SegPolicyKind::Fast,
            ..TcpConfig::default()
        };
        let mut p = SegPolicy::new(&cfg);
        let mut rng = crate::sim::rng::stream(1, crate::sim::rng::Stream::Flow, 0);
        let sizes: Vec<u32> = (0..5)
            .map(|i| p.next_payload(&view(3000, Some(750), i, 1 << 20), &mut rng))
            .collect();
        assert_eq!(sizes, vec![100, 100, 100, 375, 375]);
        // Never more than the application has written.
        assert_eq!(p.next_payload(&view(3000, Some(3000), 9, 64), &mut rng), 64);
        // Without a vwnd (another CC), cwnd stands in for it.
        assert_eq!(p.next_payload(&view(1500, None, 9, 1 << 20), &mut rng), 750);
        assert_eq!(p.name(), "fast");
    }

    #[test]
    fn dsr_resize_follows_algorithm_4() {
        // MSS_dsr = 50, cwnd_dsr = 50, MSS = 1000.
        assert_eq!(dsr_resize(50, 1000, 49 * 50, 50), None, "below cwnd_dsr");
        // cwnd = 50 segments of 50 B: MSS_tmp = 50·50/25 = 100.
        assert_eq!(dsr_resize(50, 1000, 50 * 50, 50), Some(100));
        // cwnd = 60 segments: MSS_tmp = 60·50/25 = 120.
        assert_eq!(dsr_resize(50, 1000, 60 * 50, 50), Some(120));
        // Capped at MSS, and nothing more once there.
        assert_eq!(dsr_resize(800, 1000, 50 * 800, 50), Some(1000));
        assert_eq!(dsr_resize(1000, 1000, 500 * 1000, 50), None);
        // Odd cwnd_dsr: cwnd_dsr/2 is a real number (7/2 = 3.5 segments).
        assert_eq!(dsr_resize(50, 1000, 7 * 50, 7), Some(100));
    }

    /// Algorithm 4 in the dissertation's units (cwnd in segments of
    /// MSS_dsr) and ours (bytes): the bytes the window allows in flight are
    /// the same before and after every resize, and the window returns to
    /// cwnd_dsr/2 segments of the new size unless MSS caps it.
    #[test]
    fn dsr_resize_preserves_bytes_in_flight() {
        let mss = 1024u64;
        let mut p = SegPolicy::Dsr(dsr::Dsr { mss, cwnd_dsr: 50 });
        let mut st = CcState {
            cwnd: 2 * 50,
            ssthresh: u64::MAX,
            smss: 50,
            ca_acked: 0,
        };
        let mut sizes = vec![st.smss];
        // Grow the window one current segment per step (slow start per ACK).
        while st.cwnd < 200 * mss {
            st.cwnd += st.smss;
            let (bytes, segs_before) = (st.cwnd, st.cwnd as f64 / st.smss as f64);
            let old = st.smss;
            if p.resize(&mut st) {
                assert_eq!(st.cwnd, bytes, "resize must not change the byte window");
                assert!(segs_before >= 50.0);
                // The dissertation's arithmetic, in segments.
                let tmp = ((segs_before * old as f64) / 25.0).min(mss as f64);
                assert_eq!(st.smss, tmp.floor() as u64);
                let segs_after = st.cwnd as f64 / st.smss as f64;
                let want = old as f64 * segs_before / tmp;
                assert!(
                    (segs_after - want).abs() / want < 0.02,
                    "{segs_after} vs {want}"
                );
                if st.smss < mss {
                    assert!(
                        (segs_after - 25.0).abs() < 0.5,
                        "back to cwnd_dsr/2: {segs_after}"
                    );
                }
                sizes.push(st.smss);
            }
        }
        assert_eq!(sizes, vec![50, 100, 200, 400, 800, 1024]);
        assert_eq!(p.name(), "dsr");
        let mut rng = crate::sim::rng::stream(1, crate::sim::rng::Stream::Flow, 0);
        let v = SegView {
            smss: 200,
            ..view(10_000, None, 9, 1 << 20)
        };
        assert_eq!(
            p.next_payload(&v, &mut rng),
            200,
            "DSR sends SMSS-sized segments"
        );
    }

    #[test]
    fn dsr_starts_at_mss_dsr() {
        let cfg = TcpConfig {
            mss: 1024,
            seg: SegPolicyKind::Dsr,
            ..TcpConfig::default()
        };
        assert_eq!(SegPolicy::initial_smss(&cfg), 50);
        let fixed = TcpConfig {
            mss: 1024,
            ..TcpConfig::default()
        };
        assert_eq!(SegPolicy::initial_smss(&fixed), 1024);
    }

    // ------------------------------------------------------------ TCPRand

    const M: u64 = 1448;

    fn preset(name: &str) -> TcpRandParams {
        TcpRandParams {
            mode: TcpRandMode::Adaptive,
            ..TcpRandParams::default()
        }
        .with_preset(name)
        .unwrap()
    }

    #[test]
    fn normal_cdf_matches_known_values() {
        assert_eq!(normal_cdf(1.0, 1.0, 1.0), 0.5);
        // Φ(1) = 0.841344746…, Φ(−1) = 0.158655254…, Φ(2) = 0.977249868…
        assert!((normal_cdf(1.0, 0.0, 1.0) - 0.841_344_746_068_543).abs() < 1e-12);
        assert!((normal_cdf(-1.0, 0.0, 1.0) - 0.158_655_253_931_457).abs() < 1e-12);
        assert!((normal_cdf(4.0, 0.0, 4.0) - 0.977_249_868_051_821).abs() < 1e-12);
    }

    /// With W_max = 100 segments and α = 70: τ = 70 (v_τ = 1), ω = 130
    /// (v_ω = 1); outside [τ, ω] TCPRand is off.
    #[test]
    fn rmin_is_mss_outside_the_trigger_and_end_points() {
        let p = preset("default");
        let (w, a) = (Some(100 * M), Some(70 * M));
        assert_eq!(tcprand_rmin(&p, 69 * M, w, a, M), M);
        assert_eq!(tcprand_rmin(&p, 131 * M, w, a, M), M);
        assert!(tcprand_rmin(&p, 70 * M, w, a, M) < M);
        assert!(tcprand_rmin(&p, 130 * M, w, a, M) < M);
        // x = 1 at W_max: Φ = ½ with μ = 1, so rMin = MSS/2.
        assert_eq!(tcprand_rmin(&p, 100 * M, w, a, M), M / 2);
        // x = 0 at α: Φ(0; 1, 1) = 0.1587 → rMin = 0.8413·MSS.
        assert_eq!(
            tcprand_rmin(&p, 70 * M, w, a, M),
            (0.841_344_746 * M as f64).round() as u64
        );
    }

    #[test]
    fn rmin_never_below_theta_and_monotone_in_cwnd() {
        for name in ["default", "conservative", "aggressive"] {
            for theta in [1u32, 200, 700] {
                let p = TcpRandParams {
                    theta,
                    ..preset(name)
                };
                let (w, a) = (Some(100 * M), Some(70 * M));
                let mut last = u64::MAX;
                let mut inside = false;
                for cwnd in (60 * M..200 * M).step_by(97) {
                    let r = tcprand_rmin(&p, cwnd, w, a, M);
                    assert!(r >= theta as u64 && r <= M, "{name} θ {theta}: {r}");
                    if r < M {
                        inside = true;
                        assert!(
                            r <= last,
                            "{name}: rMin rose from {last} to {r} at cwnd {cwnd}"
                        );
                        last = r;
                    } else if inside {
                        // Past ω: off for good (no re-entry as cwnd grows).
                        last = 0;
                    }
                }
                assert!(inside, "{name}: TCPRand must turn on somewhere");
            }
        }
    }

    #[test]
    fn infinite_v_tau_and_zero_v_omega_are_exact() {
        let (w, a) = (Some(100 * M), Some(70 * M));
        // v_τ = ∞: τ = W_max exactly — one byte below is off, at W_max on.
        let c = preset("conservative");
        assert!(c.v_tau.is_infinite());
        assert_eq!(tcprand_rmin(&c, 100 * M - 1, w, a, M), M);
        assert_eq!(tcprand_rmin(&c, 100 * M, w, a, M), M / 2);
        // v_ω = 1 there: ω = 2·W_max − α = 130 segments.
        assert!(tcprand_rmin(&c, 130 * M, w, a, M) < M);
        assert_eq!(tcprand_rmin(&c, 130 * M + 1, w, a, M), M);
        // v_ω = 0: no end point, even at an enormous window; v_τ = 1: τ = α.
        let g = preset("aggressive");
        assert_eq!(g.v_omega, 0.0);
        assert_eq!(tcprand_rmin(&g, u64::MAX / 2, w, a, M), 200);
        assert_eq!(tcprand_rmin(&g, 70 * M - 1, w, a, M), M);
        // μ = 0: at α (x = 0) Φ = ½ already.
        assert_eq!(tcprand_rmin(&g, 70 * M, w, a, M), M / 2);
        // v_ω = ∞: ω = W_max.
        let e = TcpRandParams {
            v_omega: f64::INFINITY,
            ..preset("default")
        };
        assert!(tcprand_rmin(&e, 100 * M, w, a, M) < M);
        assert_eq!(tcprand_rmin(&e, 100 * M + 1, w, a, M), M);
    }

    #[test]
    fn rmin_is_mss_where_algorithm_1_is_undefined() {
        let p = preset("aggressive");
        // No CUBIC state (another CC, or before the first epoch).
        assert_eq!(tcprand_rmin(&p, 50 * M, None, None, M), M);
        assert_eq!(tcprand_rmin(&p, 50 * M, Some(40 * M), None, M), M);
        // W_max = α (after a timeout): no normalized distance.
        assert_eq!(tcprand_rmin(&p, 50 * M, Some(40 * M), Some(40 * M), M), M);
        assert_eq!(tcprand_rmin(&p, 50 * M, Some(30 * M), Some(40 * M), M), M);
    }

    fn rand_view(cwnd: u64, available: u64) -> SegView {
        SegView {
            smss: M,
            ..view(cwnd, None, 0, available)
        }
    }

    #[test]
    fn static_payloads_are_uniform_on_rmin_to_mss() {
        let cfg = TcpConfig {
            mss: M as u32,
            seg: SegPolicyKind::TcpRand,
            ..TcpConfig::default()
        };
        let mut p = SegPolicy::new(&cfg);
        assert_eq!(p.name(), "tcprand");
        let mut rng = crate::sim::rng::stream(7, crate::sim::rng::Stream::Flow, 3);
        let n = 200_000;
        let mut hist = vec![0u32; (M + 1) as usize];
        for _ in 0..n {
            let s = p.next_payload(&rand_view(100 * M, 1 << 30), &mut rng) as u64;
            // Unchanged until consumed: a segment that waits is not redrawn.
            assert_eq!(
                p.next_payload(&rand_view(100 * M, 1 << 30), &mut rng) as u64,
                s
            );
            p.consumed();
            hist[s as usize] += 1;
        }
        assert!(hist[..200].iter().all(|&c| c == 0));
        assert!(
            hist[200] > 0 && hist[M as usize] > 0,
            "both ends are reachable"
        );
        // Mean (200 + 1448)/2 = 824, SD of the mean ≈ 360/√n ≈ 0.8 B.
        let mean = hist
            .iter()
            .enumerate()
            .map(|(i, &c)| i as f64 * c as f64)
            .sum::<f64>()
            / n as f64;
        assert!((mean - 824.0).abs() < 5.0, "mean {mean}");
        // Halves of the range equally likely (binomial SD ≈ 0.0011).
        let low: u32 = hist[200..824].iter().sum();
        assert!(((low as f64 / n as f64) - 0.5).abs() < 0.006);
        // Never more than the application has.
        assert_eq!(p.next_payload(&rand_view(100 * M, 10), &mut rng), 10);
    }

    #[test]
    fn adaptive_payloads_follow_algorithm_1() {
        let cfg = TcpConfig {
            mss: M as u32,
            seg: SegPolicyKind::TcpRand,
            tcprand: preset("default"),
            ..TcpConfig::default()
        };
        let mut p = SegPolicy::new(&cfg);
        let mut rng = crate::sim::rng::stream(1, crate::sim::rng::Stream::Flow, 0);
        let v = |cwnd| SegView {
            w_max: Some(100 * M),
            epoch_start_cwnd: Some(70 * M),
            ..rand_view(cwnd, 1 << 30)
        };
        // Below τ every segment is full-sized.
        for _ in 0..100 {
            assert_eq!(p.next_payload(&v(60 * M), &mut rng) as u64, M);
            p.consumed();
        }
        // At W_max, rMin = MSS/2: sizes in [724, 1448].
        let mut min = M;
        for _ in 0..2000 {
            let s = p.next_payload(&v(100 * M), &mut rng) as u64;
            p.consumed();
            min = min.min(s);
        }
        assert!((724..740).contains(&min), "min {min}");
    }
}
