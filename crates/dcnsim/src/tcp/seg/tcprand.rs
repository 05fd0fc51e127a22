//! TCPRand, Lee et al.'s payload randomization (SPEC §2.2): every new
//! segment carries U[rMin, MSS] bytes (integers), rMin fixed (static) or
//! from Algorithm 1 on CUBIC's W_max and epoch-start window (adaptive).

use super::{SegView, SegmentPolicy};
use crate::config::{TcpRandMode, TcpRandParams};
use crate::sim::rng::Rng;
use rand::RngCore;

/// Φ(x; μ, σ²), the normal CDF, through `libm::erf` (a pure-Rust port of
/// musl's, so the same bits on every machine).
#[inline]
pub fn normal_cdf(x: f64, mu: f64, sigma2: f64) -> f64 {
    0.5 * (1.0 + libm::erf((x - mu) / (2.0 * sigma2).sqrt()))
}

/// TCPRand's Algorithm 1: rMin in bytes for a window of `cwnd` bytes, given
/// CUBIC's W_max and the cwnd α at the start of the current epoch.
///
/// * τ = W_max − (W_max − α)/v_τ, with v_τ = ∞ taken as τ = W_max exactly;
/// * ω = W_max + (W_max − α)/v_ω, with v_ω = 0 taken as "no end point" and
///   v_ω = ∞ as ω = W_max;
/// * inside [τ, ω]: rMin = max(MSS·(1 − Φ(x; μ, σ²)), θ) with
///   x = (cwnd − α)/(W_max − α); outside: rMin = MSS.
///
/// `w_max` is the window at the last congestion event (the paper's "cwnd
/// where losses occurred"): CUBIC hands over that loss point even after a
/// timeout, when its own W_max restarts at α (RFC 9438 §4.8), so the epoch
/// after a timeout is randomized like any other.
///
/// Where Algorithm 1 is undefined, TCPRand stays off (rMin = MSS): without
/// a W_max or α (before CUBIC's first congestion event or epoch, or under
/// another congestion control, which exposes neither), and when W_max ≤ α
/// (an epoch that starts at or above the last loss point, e.g. when the
/// ssthresh floor of 2 segments is reached: the normalized distance x has
/// no denominator). The result is in [min(θ, MSS), MSS], rounded to the
/// nearest byte.
pub fn tcprand_rmin(
    p: &TcpRandParams,
    cwnd: u64,
    w_max: Option<u64>,
    alpha: Option<u64>,
    mss: u64,
) -> u64 {
    let (Some(w_max), Some(alpha)) = (w_max, alpha) else {
        return mss;
    };
    if w_max <= alpha {
        return mss;
    }
    let span = (w_max - alpha) as f64;
    let (w, c) = (w_max as f64, cwnd as f64);
    let above_tau = if p.v_tau.is_infinite() {
        cwnd >= w_max
    } else {
        c >= w - span / p.v_tau
    };
    let below_omega = if p.v_omega == 0.0 {
        true
    } else if p.v_omega.is_infinite() {
        cwnd <= w_max
    } else {
        c <= w + span / p.v_omega
    };
    if !(above_tau && below_omega) {
        return mss;
    }
    let x = (c - alpha as f64) / span;
    let r = (mss as f64 * (1.0 - normal_cdf(x, p.mu, p.sigma2))).round() as u64;
    r.max(p.theta as u64).min(mss)
}

/// TCPRand. `pending` is the uniform draw in [0, 1) for the next new
/// segment, kept until that segment is sent: a segment that does not
/// fit the window yet is not redrawn, which would favour small ones.
#[derive(Clone, Debug)]
pub struct TcpRand {
    pub p: TcpRandParams,
    pub pending: Option<f64>,
}

impl SegmentPolicy for TcpRand {
    #[inline]
    fn rmin(&self, v: &SegView) -> u64 {
        let p = &self.p;
        match p.mode {
            TcpRandMode::Static => p.rmin as u64,
            TcpRandMode::Adaptive => tcprand_rmin(p, v.cwnd, v.w_max, v.epoch_start_cwnd, v.smss),
        }
        .clamp(1, v.smss.max(1))
    }
    #[inline]
    fn consumed(&mut self) {
        self.pending = None;
    }
    #[inline]
    fn want(&mut self, v: &SegView, rng: &mut Rng) -> u64 {
        let rmin = self.rmin(v);
        // 53 random bits → [0, 1); payload = rMin + ⌊u·(MSS − rMin + 1)⌋.
        let u = *self
            .pending
            .get_or_insert_with(|| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
        let span = v.smss - rmin + 1;
        rmin + ((u * span as f64) as u64).min(span - 1)
    }
    fn name(&self) -> &'static str {
        "tcprand"
    }
}
