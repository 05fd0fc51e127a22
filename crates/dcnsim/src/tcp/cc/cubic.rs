//! CUBIC, RFC 9438, in bytes.
//!
//! W_cubic(t) = C·(t − K)³ + W_max (§4.2, Figure 1) with C = 0.4
//! segments/s³ and t in seconds from the event clock; K = ∛((W_max −
//! cwnd_epoch)/C) (Figure 2). On each ACK in congestion avoidance the
//! target is W_cubic(t + SRTT) clamped to [cwnd, 1.5·cwnd]; cwnd follows
//! the Reno-friendly estimate W_est (§4.3) when W_cubic(t) is below it, and
//! otherwise grows by (target − cwnd)/cwnd per segment acknowledged (§4.4,
//! §4.5). A congestion event sets ssthresh = flight·β with β = 0.7 and a
//! floor of 2·SMSS (§4.6), W_max = cwnd — or cwnd·(1 + β)/2 with fast
//! convergence when cwnd < W_max (§4.7) — and ends the epoch. After a
//! timeout, and when no congestion event has happened yet, the next epoch
//! starts with K = 0 and W_max = cwnd_epoch (§4.8, §4.10). Slow start is
//! RFC 5681's with byte counting. Idle time is shifted out of the epoch
//! (§4.2: t excludes application-limited periods; Linux's CA_EVENT_TX_START).
//! With `linux` (the linux profile) congestion avoidance grows cwnd by
//! tcp_cubic's arithmetic instead ([`Cubic::linux_growth`]), which before
//! the first loss grows at least one segment per 20 acknowledged.
//!
//! Arithmetic is in `f64` with only `+ − × ÷` and a Newton cube root, so
//! results are bit-identical on every IEEE 754 machine (no libm `cbrt`).

use super::{slow_start, AckInfo, CcHints, CcState, CongestionControl, LossKind};
use crate::config::CubicParams;
use crate::sim::time::SimTime;

/// RFC 9438 §4.1.1 / §5: C, in segments per second³.
pub const C: f64 = 0.4;
/// tcp_cubic's C: bic_scale = 41 in units of 1/1024 segments/s³, ×10.
pub const C_LINUX: f64 = 410.0 / 1024.0;
/// RFC 9438 §4.6: multiplicative decrease factor (Linux uses 717/1024).
pub const BETA: f64 = 0.7;
/// RFC 9438 §4.3: α_cubic = 3·(1 − β)/(1 + β), the Reno-friendly AIMD increase.
pub const ALPHA_RENO_FRIENDLY: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

#[derive(Clone, Debug)]
pub struct Cubic {
    fast_convergence: bool,
    /// W_max, bytes (0 until the first epoch or congestion event).
    w_max: u64,
    /// cwnd just before the last reduction (or at the first epoch), bytes.
    cwnd_prior: u64,
    /// Start of the current congestion-avoidance epoch; `None` between a
    /// congestion event (or slow start) and the next ACK in avoidance.
    epoch_start: Option<SimTime>,
    /// cwnd at the start of the current (or last) epoch, bytes.
    cwnd_epoch: u64,
    /// K, seconds.
    k: f64,
    /// Reno-friendly window estimate, bytes.
    w_est: f64,
    /// Fractional bytes of growth not yet added to cwnd.
    frac: f64,
    /// The next epoch is the first after a timeout (§4.8).
    after_rto: bool,
    /// W_max as set at the last congestion event, bytes (0 before any):
    /// TCPRand's "cwnd where losses occurred". CUBIC's own `w_max` is moved
    /// to cwnd_epoch when the epoch after a timeout begins (§4.8); this one
    /// is not, so Algorithm 1 keeps its reference point across timeouts.
    loss_w_max: u64,
    /// tcp_cubic's per-ACK arithmetic ([`CubicParams::linux`]), boxed so
    /// the RFC 9438 flows keep their cache footprint.
    linux: Option<Box<LinuxState>>,
}

/// The state of tcp_cubic's arithmetic ([`Cubic::linux_growth`]).
#[derive(Clone, Debug)]
struct LinuxState {
    /// W_max is unknown: no congestion event yet, or a timeout since the
    /// last (tcp_cubic's `last_max_cwnd == 0`).
    w_max_unknown: bool,
    /// Smallest RTT sample (tcp_cubic's delay_min).
    min_rtt: Option<SimTime>,
    /// Bytes acknowledged toward the next segment of growth
    /// (tcp_cong_avoid_ai's snd_cwnd_cnt, in bytes).
    cwnd_cnt: u64,
    /// tcp_friendliness's ack_cnt (bytes) and tcp_cwnd (segments).
    reno_acked: u64,
    reno_cwnd: u64,
    /// bictcp_update's last `cnt` (segments ACKed per segment of growth),
    /// and the cwnd (segments) and jiffy it was computed at; 0 before the
    /// first in an epoch.
    cnt: u64,
    last_cwnd: u64,
    last_jiffy: u64,
    /// The kernel's jiffy (1/HZ s, [`crate::config::TcpConfig::hz`]), tcp_cubic's clock,
    /// and HZ/32, the jiffies cnt is held while cwnd is unchanged.
    jiffy: SimTime,
    hold_jiffies: u64,
}

impl LinuxState {
    /// The jiffy `t` falls in (tcp_jiffies32, from the run's start).
    #[inline]
    fn jiffies(&self, t: SimTime) -> u64 {
        t.ps() / self.jiffy.ps()
    }
}

impl Cubic {
    /// CUBIC at HZ = 250 (the default `tcp.hz`).
    pub fn new(p: CubicParams) -> Self {
        Self::with_hz(p, 250)
    }

    /// CUBIC whose Linux arithmetic counts jiffies of 1/`hz` s.
    pub fn with_hz(p: CubicParams, hz: u32) -> Self {
        Cubic {
            fast_convergence: p.fast_convergence,
            w_max: 0,
            cwnd_prior: 0,
            epoch_start: None,
            cwnd_epoch: 0,
            k: 0.0,
            w_est: 0.0,
            frac: 0.0,
            after_rto: false,
            loss_w_max: 0,
            linux: p.linux.then(|| {
                Box::new(LinuxState {
                    w_max_unknown: true,
                    min_rtt: None,
                    cwnd_cnt: 0,
                    reno_acked: 0,
                    reno_cwnd: 0,
                    cnt: 0,
                    last_cwnd: 0,
                    last_jiffy: 0,
                    jiffy: crate::tcp::jiffies::jiffy(hz),
                    hold_jiffies: u64::from(hz / 32),
                })
            }),
        }
    }

    /// W_max in bytes (0 before any epoch).
    pub fn w_max(&self) -> u64 {
        self.w_max
    }
    /// W_max as set at the last congestion event (0 before any); unlike
    /// [`Self::w_max`] it survives the §4.8 reset after a timeout.
    pub fn loss_w_max(&self) -> u64 {
        self.loss_w_max
    }
    /// cwnd at the start of the current (or last) epoch, bytes (0 before any).
    pub fn epoch_start_cwnd(&self) -> u64 {
        self.cwnd_epoch
    }
    /// K in seconds for the current epoch.
    pub fn k(&self) -> f64 {
        self.k
    }
    pub fn epoch_start(&self) -> Option<SimTime> {
        self.epoch_start
    }

    /// Figure 1 in bytes: W_max + C·SMSS·(t − K)³, `t` seconds into the epoch.
    #[inline]
    pub fn w_cubic(&self, t: f64, smss: u64) -> f64 {
        let d = t - self.k;
        self.w_max as f64 + C * smss as f64 * d * d * d
    }

    /// Start a congestion-avoidance epoch at `now` with the current cwnd.
    fn begin_epoch(&mut self, s: &CcState, now: SimTime) {
        self.epoch_start = Some(now);
        self.cwnd_epoch = s.cwnd;
        self.w_est = s.cwnd as f64;
        self.frac = 0.0;
        if let Some(l) = self.linux.as_mut() {
            l.cwnd_cnt = 0;
            l.reno_acked = 0;
            l.reno_cwnd = s.cwnd / s.smss.max(1);
            l.cnt = 0;
        }
        if self.cwnd_prior == 0 {
            // §4.10: leaving the first slow start without a congestion event.
            self.cwnd_prior = s.cwnd;
        }
        if self.after_rto || self.w_max <= s.cwnd {
            // §4.8 / §4.10: K = 0 and W_max = cwnd_epoch.
            self.w_max = s.cwnd;
            self.k = 0.0;
        } else {
            // Figure 2, windows in segments.
            let c = if self.linux.is_some() { C_LINUX } else { C };
            self.k = cbrt((self.w_max - s.cwnd) as f64 / (c * s.smss as f64));
        }
        self.after_rto = false;
    }

    /// tcp_cubic's growth on an ACK in congestion avoidance (bictcp_update,
    /// then tcp_cong_avoid_ai), in whole segments: the target is W_max +
    /// ⌊C·(t − K)³⌋ segments (C = 410/1024, its fixed point) at t + the
    /// minimum RTT (delay_min), not SRTT; cwnd grows one segment per `cnt`
    /// acknowledged, cnt = ⌊cwnd/(target − cwnd)⌋ (100·cwnd at or above
    /// it), at most 20 while W_max is unknown (`last_max_cwnd == 0`), at
    /// most what the Reno-friendly window needs (tcp_friendliness, α =
    /// 3·(1 − β)/(1 + β) throughout, no RFC 9438 switch to 1), at least 2.
    fn linux_growth(&mut self, s: &mut CcState, now: SimTime, t: f64, acked: u64) {
        let (w_max, k) = (self.w_max, self.k);
        let Some(l) = self.linux.as_mut() else {
            return;
        };
        let smss = s.smss.max(1);
        let cwnd = (s.cwnd / smss).max(1);
        l.reno_acked += acked;
        let (j, last) = (l.jiffies(now), l.last_jiffy);
        // bictcp_update keeps its cnt while cwnd is unchanged and no more
        // than HZ/32 jiffies have passed since it was computed (28 ms at
        // HZ = 250: the kernel's flat windows in the lab's tcp_probe trace);
        // the ACKs still count toward the Reno-friendly window meanwhile.
        let hold = l.cnt > 0 && l.last_cwnd == cwnd && j - last <= l.hold_jiffies;
        if hold {
            // cnt as computed
        } else if l.cnt > 0 && j == last {
            // The cubic function updates cnt at most once per jiffy: within
            // it only the Reno-friendly bound applies, to the cnt already
            // computed, whose cwnd and jiffy stay (bictcp_update's `goto
            // tcp_friendliness`). A hold ends at a jiffy's start, so the
            // catch-up to the Reno-friendly window that follows goes on at
            // its first cnt for a whole jiffy, past that window: issue 45's
            // CUBIC rows at n = 2 (docs/linux_profile.md, mechanism H).
            l.cnt = Self::reno_friendly(l, cwnd, smss, l.cnt);
        } else {
            l.cnt = Self::linux_cnt(l, cwnd, smss, w_max, t - k);
            l.last_cwnd = cwnd;
            l.last_jiffy = j;
        }
        let cnt = l.cnt;
        let w = cnt * smss;
        // tcp_cong_avoid_ai.
        if l.cwnd_cnt >= w {
            l.cwnd_cnt = 0;
            s.cwnd += smss;
        }
        l.cwnd_cnt += acked;
        if l.cwnd_cnt >= w {
            let n = l.cwnd_cnt / w;
            l.cwnd_cnt -= n * w;
            s.cwnd += n * smss;
        }
    }

    /// bictcp_update's cnt at `d` = t − K seconds into the curve (plus the
    /// minimum RTT), and tcp_friendliness's Reno-friendly window.
    fn linux_cnt(l: &mut LinuxState, cwnd: u64, smss: u64, w_max: u64, d: f64) -> u64 {
        let origin = w_max / smss;
        let delta = (C_LINUX * d.abs() * d * d) as u64;
        let target = if d < 0.0 {
            origin.saturating_sub(delta)
        } else {
            origin + delta
        };
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if l.w_max_unknown {
            cnt = cnt.min(20);
        }
        Self::reno_friendly(l, cwnd, smss, cnt)
    }

    /// tcp_friendliness: one segment of Reno-friendly window per cwnd·15/8
    /// acknowledged (beta_scale = 8·(1024 + 717)/3/(1024 − 717)); `cnt` at
    /// most what catching up with that window needs, and at least 2.
    fn reno_friendly(l: &mut LinuxState, cwnd: u64, smss: u64, mut cnt: u64) -> u64 {
        let per = ((cwnd * 15) >> 3).max(1) * smss;
        while l.reno_acked > per {
            l.reno_acked -= per;
            l.reno_cwnd += 1;
        }
        if l.reno_cwnd > cwnd {
            cnt = cnt.min(cwnd / (l.reno_cwnd - cwnd));
        }
        cnt.max(2)
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, s: &mut CcState, a: &AckInfo) {
        if let Some(r) = a.rtt {
            if let Some(l) = self.linux.as_mut() {
                l.min_rtt = Some(l.min_rtt.map_or(r, |m| m.min(r)));
            }
        }
        let acked = slow_start(s, a.acked, a.abc_limit);
        if acked == 0 {
            return;
        }
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.begin_epoch(s, a.now);
                a.now
            }
        };
        if let Some(l) = &self.linux {
            // bictcp_update's t: whole jiffies since the epoch began, plus
            // the minimum RTT rounded up to whole jiffies (usecs_to_jiffies).
            let rtt = l.min_rtt.map_or(0, |r| r.ps().div_ceil(l.jiffy.ps()));
            let jiffies = l.jiffies(a.now) - l.jiffies(epoch) + rtt;
            let t = (jiffies * l.jiffy.ps()) as f64 * 1e-12;
            self.linux_growth(s, a.now, t, acked);
            return;
        }
        let t = a.now.saturating_sub(epoch).secs_scaled();
        let rtt = a.srtt.or(a.rtt).map_or(0.0, |r| r.secs_scaled());
        let cwnd = s.cwnd as f64;
        let smss = s.smss as f64;
        // §4.3, Figure 4 in bytes; α_cubic becomes 1 once W_est ≥ cwnd_prior.
        let alpha = if self.w_est >= self.cwnd_prior as f64 {
            1.0
        } else {
            ALPHA_RENO_FRIENDLY
        };
        self.w_est += alpha * smss * acked as f64 / cwnd;
        if self.w_cubic(t, s.smss) < self.w_est {
            // Reno-friendly region.
            let w = self.w_est as u64;
            if w > s.cwnd {
                s.cwnd = w;
            }
            return;
        }
        // §4.2 target, §4.4/§4.5 increase: (target − cwnd)/cwnd per segment.
        let target = self.w_cubic(t + rtt, s.smss).clamp(cwnd, 1.5 * cwnd);
        self.frac += (target - cwnd) * acked as f64 / cwnd;
        if self.frac >= 1.0 {
            let inc = self.frac as u64;
            s.cwnd += inc;
            self.frac -= inc as f64;
        }
    }

    fn ssthresh(&mut self, s: &CcState, flight: u64, kind: LossKind, _now: SimTime) -> u64 {
        // §4.7 fast convergence, then §4.6; under `linux`
        // bictcp_recalc_ssthresh's whole segments of the window `flight`
        // reduces (cwnd under Linux's validation): W_max (last_max_cwnd) =
        // ⌊cwnd·(1024 + 717)/2048⌋ below the last one, ssthresh =
        // ⌊cwnd·717/1024⌋. β = 0.7 in bytes kept a fraction of a segment
        // more, which the next reduction carried: a window cycling a
        // segment higher than the kernel's.
        let smss = s.smss.max(1);
        let converge = self.fast_convergence && s.cwnd < self.w_max;
        self.w_max = match (self.linux.is_some(), converge) {
            (false, true) => (s.cwnd as f64 * (1.0 + BETA) / 2.0) as u64,
            (false, false) => s.cwnd,
            (true, true) => s.cwnd / smss * (1024 + 717) / 2048 * smss,
            (true, false) => s.cwnd / smss * smss,
        };
        self.loss_w_max = self.w_max;
        self.cwnd_prior = s.cwnd;
        self.epoch_start = None;
        if kind == LossKind::Rto {
            self.after_rto = true;
        }
        match self.linux.as_mut() {
            None => ((flight as f64 * BETA) as u64).max(2 * s.smss),
            Some(l) => {
                // tcp_cubic sets last_max_cwnd here, and a timeout then
                // clears it again (cubictcp_state's bictcp_reset on
                // TCP_CA_Loss), delay_min too.
                l.w_max_unknown = kind == LossKind::Rto;
                if kind == LossKind::Rto {
                    l.min_rtt = None;
                }
                ((flight / smss * 717) >> 10).max(2) * smss
            }
        }
    }

    fn on_tx_start(&mut self, now: SimTime, idle: SimTime) {
        // §4.2: t must not include idle periods; shift the epoch by the idle time.
        if let Some(e) = self.epoch_start {
            self.epoch_start = Some((e + idle).min(now));
        }
    }

    fn hints(&self, _s: &CcState) -> CcHints {
        // TCPRand's W_max is where the losses were (Lee et al. §4), so the
        // loss point, not the §4.8 restart value an RTO leaves in `w_max`.
        CcHints {
            w_max: (self.loss_w_max > 0).then_some(self.loss_w_max),
            epoch_start_cwnd: (self.cwnd_epoch > 0).then_some(self.cwnd_epoch),
            ..CcHints::default()
        }
    }

    fn name(&self) -> &'static str {
        "cubic"
    }
}

/// Cube root by Newton's method with `+ − × ÷` only, so it is the same on
/// every machine (libm's `cbrt` may differ in the last bit across
/// platforms). Exact to within an ulp or two for x ≥ 0; 0 for x ≤ 0.
pub fn cbrt(x: f64) -> f64 {
    if x <= 0.0 || x.is_nan() {
        return 0.0;
    }
    // Start above the root (for x ≥ 1, x ≥ ∛x; for x < 1, 1 > ∛x): Newton's
    // iterates then decrease monotonically to it.
    let mut g = if x > 1.0 { x } else { 1.0 };
    for _ in 0..2000 {
        let next = (2.0 * g + x / (g * g)) / 3.0;
        if next >= g {
            break;
        }
        g = next;
    }
    g
}

#[cfg(test)]
mod tests {
    use super::super::tests::st;
    use super::*;

    const SEG: u64 = 1000;

    fn ack_at(now: SimTime, acked: u64, srtt: SimTime) -> AckInfo {
        AckInfo {
            now,
            acked,
            ece: false,
            rtt: Some(srtt),
            srtt: Some(srtt),
            snd_una: 0,
            snd_max: 0,
            flight: 0,
            segs_sent: 0,
            abc_limit: 2,
            cwnd_limited: true,
        }
    }

    #[test]
    fn cube_root() {
        for &(x, r) in &[(27.0, 3.0), (1.0, 1.0), (0.001, 0.1), (8e9, 2000.0)] {
            assert!((cbrt(x) - r).abs() <= 1e-12 * r, "cbrt({x}) = {}", cbrt(x));
        }
        assert_eq!(cbrt(0.0), 0.0);
        assert_eq!(cbrt(-5.0), 0.0);
        let y = cbrt(1234.5678);
        assert!((y * y * y - 1234.5678).abs() < 1e-9);
    }

    #[test]
    fn k_and_w_max_after_a_loss() {
        // cwnd 100 segments → W_max = 100, ssthresh = cwnd_epoch = 70:
        // K = ∛((100 − 70)/0.4) = ∛75 s.
        let mut c = Cubic::new(CubicParams {
            fast_convergence: true,
            ..CubicParams::default()
        });
        let mut s = st(100 * SEG, u64::MAX);
        let t0 = SimTime::from_secs(1);
        s.ssthresh = c.ssthresh(&s, 100 * SEG, LossKind::DupAck, t0);
        assert_eq!(s.ssthresh, 70 * SEG);
        assert_eq!(c.w_max(), 100 * SEG);
        s.cwnd = s.ssthresh;
        c.on_ack(&mut s, &ack_at(t0, SEG, SimTime::from_us(100)));
        assert_eq!(c.epoch_start(), Some(t0));
        assert_eq!(c.epoch_start_cwnd(), 70 * SEG);
        let k = 75f64.powf(1.0 / 3.0);
        assert!((c.k() - k).abs() < 1e-9, "K {} vs {k}", c.k());
        // The curve: W(0) = cwnd_epoch, W(K) = W_max, symmetric about K.
        assert!((c.w_cubic(0.0, SEG) - 70_000.0).abs() < 1e-6);
        assert!((c.w_cubic(k, SEG) - 100_000.0).abs() < 1e-9);
        let below = 100_000.0 - c.w_cubic(k - 1.0, SEG);
        let above = c.w_cubic(k + 1.0, SEG) - 100_000.0;
        assert!((below - 400.0).abs() < 1e-6 && (above - 400.0).abs() < 1e-6);
        // W(t) = C·(t − K)³ + W_max at an arbitrary point.
        let t = 2.5;
        let want = 100_000.0 + 0.4 * 1000.0 * (t - k).powi(3);
        assert!((c.w_cubic(t, SEG) - want).abs() < 1e-6);
        // The exposed hints are what TCPRand reads.
        let h = c.hints(&s);
        assert_eq!(h.w_max, Some(100 * SEG));
        assert_eq!(h.epoch_start_cwnd, Some(70 * SEG));
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_below_the_last_one() {
        let mut c = Cubic::new(CubicParams {
            fast_convergence: true,
            ..CubicParams::default()
        });
        let s = st(100 * SEG, u64::MAX);
        c.ssthresh(&s, 100 * SEG, LossKind::DupAck, SimTime::ZERO);
        let s = st(80 * SEG, u64::MAX);
        c.ssthresh(&s, 80 * SEG, LossKind::DupAck, SimTime::ZERO);
        assert_eq!(c.w_max(), 68 * SEG); // 80 · 1.7 / 2
        let mut c = Cubic::new(CubicParams {
            fast_convergence: false,
            ..CubicParams::default()
        });
        c.ssthresh(
            &st(100 * SEG, 0),
            100 * SEG,
            LossKind::DupAck,
            SimTime::ZERO,
        );
        c.ssthresh(&st(80 * SEG, 0), 80 * SEG, LossKind::DupAck, SimTime::ZERO);
        assert_eq!(c.w_max(), 80 * SEG);
    }

    #[test]
    fn ssthresh_floor_is_two_segments() {
        let mut c = Cubic::new(CubicParams::default());
        let s = st(2 * SEG, u64::MAX);
        assert_eq!(
            c.ssthresh(&s, 2 * SEG, LossKind::Ecn, SimTime::ZERO),
            2 * SEG
        );
    }

    /// Drive CUBIC in congestion avoidance with one full-window ACK batch
    /// per RTT (cwnd/SMSS one-segment ACKs), returning (t, cwnd) per RTT.
    fn run(
        c: &mut Cubic,
        s: &mut CcState,
        from: SimTime,
        rtt: SimTime,
        rtts: u32,
    ) -> Vec<(f64, u64)> {
        let mut out = Vec::new();
        let mut now = from;
        let smss = s.smss;
        for _ in 0..rtts {
            let n = s.cwnd / smss;
            for _ in 0..n {
                c.on_ack(s, &ack_at(now, smss, rtt));
            }
            out.push((now.saturating_sub(from).secs_scaled(), s.cwnd));
            now += rtt;
        }
        out
    }

    #[test]
    fn window_follows_the_cubic_curve_with_a_long_rtt() {
        // 100 ms RTT, W_max = 1000 segments: the cubic term dominates the
        // Reno-friendly estimate, so cwnd tracks W(t + RTT) within a few segments.
        let mut c = Cubic::new(CubicParams::default());
        let mut s = st(1000 * SEG, u64::MAX);
        let t0 = SimTime::from_secs(10);
        s.ssthresh = c.ssthresh(&s, 1000 * SEG, LossKind::DupAck, t0);
        s.cwnd = s.ssthresh;
        let rtt = SimTime::from_ms(100);
        let trace = run(&mut c, &mut s, t0, rtt, 200);
        let k = c.k();
        assert!((k - 750f64.powf(1.0 / 3.0)).abs() < 1e-9);
        for &(t, w) in trace.iter().skip(1) {
            // cwnd after the ACKs of the round that began at t ≈ W(t + RTT).
            let want = c.w_cubic(t + 0.1, SEG).min(1.5 * w as f64);
            assert!(
                (w as f64 - want).abs() < 0.03 * want,
                "t={t:.1}: cwnd {w} vs W(t+RTT) {want:.0}"
            );
        }
        // Concave below W_max, plateau near it at t ≈ K, convex beyond.
        let at = |t: f64| trace.iter().find(|x| x.0 >= t).unwrap().1;
        assert!(at(k - 0.3) < 1000 * SEG && at(k + 0.3) < 1010 * SEG);
        assert!(at(19.0) > 1300 * SEG);
    }

    #[test]
    fn reno_friendly_region_dominates_at_datacenter_rtts() {
        // 100 us RTT: W_cubic barely moves in 50 RTTs, W_est grows by
        // α_cubic ≈ 0.53 segments per RTT.
        let mut c = Cubic::new(CubicParams::default());
        let mut s = st(100 * SEG, u64::MAX);
        s.ssthresh = c.ssthresh(&s, 100 * SEG, LossKind::DupAck, SimTime::ZERO);
        s.cwnd = s.ssthresh;
        let trace = run(&mut c, &mut s, SimTime::ZERO, SimTime::from_us(100), 50);
        let grown = (trace[49].1 - 70 * SEG) as f64 / SEG as f64;
        assert!(
            (grown - 50.0 * ALPHA_RENO_FRIENDLY).abs() < 3.0,
            "grew {grown} segments in 50 RTTs"
        );
    }

    #[test]
    fn timeout_restarts_with_k_zero_at_the_current_window() {
        let mut c = Cubic::new(CubicParams::default());
        let mut s = st(100 * SEG, u64::MAX);
        s.ssthresh = c.ssthresh(&s, 100 * SEG, LossKind::Rto, SimTime::ZERO);
        assert_eq!(s.ssthresh, 70 * SEG);
        s.cwnd = s.ssthresh; // as if slow start had reached it
        c.on_ack(
            &mut s,
            &ack_at(SimTime::from_ms(5), SEG, SimTime::from_us(100)),
        );
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), 70 * SEG);
        // The loss point stays what the segment policy sees.
        assert_eq!(c.loss_w_max(), 100 * SEG);
        assert_eq!(c.hints(&s).w_max, Some(100 * SEG));
        assert_eq!(c.hints(&s).epoch_start_cwnd, Some(70 * SEG));
    }

    #[test]
    fn idle_time_is_shifted_out_of_the_epoch() {
        let mut c = Cubic::new(CubicParams::default());
        let mut s = st(100 * SEG, u64::MAX);
        s.ssthresh = c.ssthresh(&s, 100 * SEG, LossKind::DupAck, SimTime::ZERO);
        s.cwnd = s.ssthresh;
        c.on_ack(
            &mut s,
            &ack_at(SimTime::from_ms(1), SEG, SimTime::from_us(100)),
        );
        c.on_tx_start(SimTime::from_ms(501), SimTime::from_ms(500));
        assert_eq!(c.epoch_start(), Some(SimTime::from_ms(501)));
    }

    #[test]
    fn linux_catch_up_keeps_its_cnt_for_the_rest_of_the_jiffy() {
        // tcp_cubic updates cnt at most once per jiffy (bictcp_update's
        // `goto tcp_friendliness`): a catch-up to the Reno-friendly window
        // that begins in a jiffy goes on at that jiffy's cnt, past the
        // window, until the next jiffy. After a loss at 17 segments
        // (W_max 20 before), cwnd 11.9 holds its cnt for HZ/32 jiffies while
        // the Reno-friendly window grows with every ACK (one every 242 us,
        // two flows through a 100 Mbit/s port); then it catches up.
        let smss = 1448;
        let mut c = Cubic::new(CubicParams {
            linux: true,
            ..CubicParams::default()
        });
        let mut s = st(17 * smss, u64::MAX);
        s.smss = smss;
        let mut now = SimTime::from_ms(100);
        s.ssthresh = c.ssthresh(&s, 20 * smss, LossKind::DupAck, now);
        s.cwnd = 17 * smss;
        s.ssthresh = c.ssthresh(&s, 17 * smss, LossKind::DupAck, now);
        s.cwnd = s.ssthresh;
        let jiffy = |t: SimTime| t.ps() / SimTime::from_ms(4).ps();
        let (mut began, mut friendly_then) = (None, 0);
        for _ in 0..200 {
            now += SimTime::from_us(242);
            let before = s.cwnd / smss;
            c.on_ack(&mut s, &ack_at(now, smss, SimTime::from_us(30)));
            let l = c.linux.as_ref().unwrap();
            if began.is_none() && s.cwnd / smss > before && before >= 12 {
                began = Some(jiffy(now));
                friendly_then = l.reno_cwnd;
            }
            if began.is_some_and(|j| jiffy(now) > j) {
                break;
            }
        }
        assert!(began.is_some(), "no catch-up in 200 ACKs");
        // By the end of the jiffy the catch-up began in, cwnd is past the
        // Reno-friendly window it was catching up with: the cnt of the
        // jiffy's first ACK held. Recomputing cnt on every ACK stops there.
        assert!(
            s.cwnd / smss > friendly_then,
            "cwnd {} stopped at the Reno-friendly window {friendly_then}",
            s.cwnd / smss
        );
    }

    #[test]
    fn linux_reductions_are_whole_segments() {
        // bictcp_recalc_ssthresh: ssthresh ⌊cwnd·717/1024⌋ and, below the
        // last W_max, W_max ⌊cwnd·1741/2048⌋: 17 segments give 11 and 14,
        // where β = 0.7 in bytes keeps 11.9 and 14.45.
        let linux = CubicParams {
            linux: true,
            ..CubicParams::default()
        };
        let (s20, s17) = (st(20 * SEG, u64::MAX), st(17 * SEG, u64::MAX));
        let mut c = Cubic::new(linux);
        assert_eq!(
            c.ssthresh(&s20, 20 * SEG, LossKind::DupAck, SimTime::ZERO),
            14 * SEG
        );
        assert_eq!(c.w_max(), 20 * SEG);
        assert_eq!(
            c.ssthresh(&s17, 17 * SEG, LossKind::DupAck, SimTime::ZERO),
            11 * SEG
        );
        assert_eq!(c.w_max(), 14 * SEG);
        let mut rfc = Cubic::new(CubicParams::default());
        rfc.ssthresh(&s20, 20 * SEG, LossKind::DupAck, SimTime::ZERO);
        assert_eq!(
            rfc.ssthresh(&s17, 17 * SEG, LossKind::DupAck, SimTime::ZERO),
            11_900
        );
        assert_eq!(rfc.w_max(), 14_450);
    }

    #[test]
    fn linux_cnt_is_held_hz_over_32_jiffies() {
        // After a timeout W_max is unknown and cnt is 20 at cwnd 7; an ACK
        // 34 ms after cnt was computed finds it held at HZ = 100 (3 jiffies
        // of 10 ms may pass) and recomputed (7) at HZ = 250 (7 jiffies of
        // 4 ms), where the 17 segments acknowledged since then grow cwnd.
        let cwnd_after = |hz| {
            let mut c = Cubic::with_hz(
                CubicParams {
                    linux: true,
                    ..CubicParams::default()
                },
                hz,
            );
            c.ssthresh(&st(10 * SEG, 0), 10 * SEG, LossKind::Rto, SimTime::ZERO);
            let mut s = st(7 * SEG, 7 * SEG);
            for us in (0..16).map(|i| 1_000_000 + i * 2_000).chain([1_034_000]) {
                c.on_ack(
                    &mut s,
                    &ack_at(SimTime::from_us(us), SEG, SimTime::from_ms(100)),
                );
            }
            s.cwnd / SEG
        };
        assert_eq!(cwnd_after(100), 7, "HZ = 100: cnt still held at 20");
        assert_eq!(cwnd_after(250), 8, "HZ = 250: cnt recomputed");
    }
}
