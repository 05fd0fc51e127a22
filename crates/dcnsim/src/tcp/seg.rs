//! Segment-size policies: *in what sizes* to send (the CC decides *how much*).
//! FaST, TCPRand and DSR plug in here; any policy combines with any CC.
//!
//! * `Fixed`: every segment is SMSS bytes (or what the application has left).
//! * `Fast`: FaST's segment size (SPEC §2.1 eq. 9, both readings) with its
//!   probing stage; vwnd comes from the FaST congestion control through
//!   [`SegView::vwnd`] (under any other CC, cwnd stands in for it).

use crate::config::{FastParams, FastSegRule, SegPolicyKind, TcpConfig};
use crate::rng::Rng;

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
pub enum SegPolicy {
    Fixed,
    Fast(FastParams),
}

impl SegPolicy {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.seg {
            SegPolicyKind::Fixed => SegPolicy::Fixed,
            SegPolicyKind::Fast => SegPolicy::Fast(cfg.fast),
        }
    }
    /// Payload bytes for the next new segment (≥ 1, ≤ SMSS, ≤ available).
    #[inline]
    pub fn next_payload(&mut self, v: &SegView, _rng: &mut Rng) -> u32 {
        let want = match self {
            SegPolicy::Fixed => v.smss,
            SegPolicy::Fast(p) => {
                if v.segs_sent < p.probe_segments as u64 {
                    // Probing stage (Algorithm 1, lines 1–3).
                    p.probe_size as u64
                } else {
                    fast_segment(
                        p.seg_rule,
                        v.vwnd.unwrap_or(v.cwnd),
                        v.smss,
                        p.wmin as u64,
                        p.smin as u64,
                    )
                }
            }
        };
        want.min(v.smss).min(v.available).max(1) as u32
    }
    pub fn name(&self) -> &'static str {
        match self {
            SegPolicy::Fixed => "fixed",
            SegPolicy::Fast(_) => "fast",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FastSegRule::{Continuous, Literal};

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

    #[test]
    fn fast_policy_probes_then_follows_vwnd() {
        let cfg = TcpConfig {
            mss: MSS as u32,
            seg: SegPolicyKind::Fast,
            ..TcpConfig::default()
        };
        let mut p = SegPolicy::new(&cfg);
        let mut rng = crate::rng::stream(1, crate::rng::Stream::Flow, 0);
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
}
