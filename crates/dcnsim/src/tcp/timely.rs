//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the
//! Datacenter", SIGCOMM 2015), as a mode of the endpoint
//! (`tcp.transport = "timely"`): RoCE's rate sender and go-back-N of
//! DCQCN (tcp/dcqcn.rs: pacing at the current rate, no window, a NIC that
//! holds the sender while it is full), with the rate set from RTTs instead
//! of CNPs. Equations and the comparison with the HPCC authors' ns-3:
//! docs/timely.md.
//!
//! Every ACK (and NACK) echoes its data packet's send time, so each is an
//! RTT sample. Once per RTT (the first ACK past `snd_nxt` at the last
//! update, as the HPCC authors' ns-3 does it) the rate is updated from that
//! RTT and the last update's (Algorithm 1):
//!
//! ```text
//! rtt_diff  = (1 − α)·rtt_diff + α·(rtt − last_rtt)
//! gradient  = rtt_diff / minRTT
//! rtt < T_low:      rate += δ         (N increases in a row: δ_HAI)
//! rtt > T_high:     rate ·= 1 − β·(1 − T_high/rtt)
//! gradient ≤ 0:     rate += δ         (N increases in a row: δ_HAI)
//! otherwise:        rate ·= 1 − β·gradient   (not below 0)
//! rate within [min rate, line rate]
//! ```
//!
//! The first update only records its RTT. TIMELY's data are not
//! ECN-capable: no switch marks them, no CNP is sent.

use super::*;
use crate::config::TimelyParams;

/// TIMELY's controller state of one flow (the sender's; the receiver is
/// go-back-N's, kept in [`super::dcqcn::DcqcnState`]).
#[derive(Clone, Debug, Default)]
pub struct TimelyState {
    /// δ and δ_HAI resolved against the line rate, b/s.
    rai: f64,
    rhai: f64,
    /// The moving average of RTT differences, ps.
    pub rtt_diff: f64,
    /// The RTT of the last update.
    last_rtt: SimTime,
    /// `snd_nxt` at the last update (0: none yet): the next waits for an
    /// ACK past it.
    last_update_seq: u64,
    /// Increases since the last decrease.
    inc_stage: u32,
    /// Updates after the first (an increase at line rate counts too),
    /// and of those the decreases.
    pub updates: u64,
    pub decreases: u64,
}

/// What one update did to the rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::tcp) enum Step {
    /// The first RTT sample, or an ACK inside the round: no change.
    None,
    Increase,
    Decrease,
}

impl TimelyState {
    /// A controller for a sender of line rate `line` (b/s).
    pub(in crate::tcp) fn new(p: &TimelyParams, line: f64) -> Self {
        let rai = if p.rai_bps > 0 {
            p.rai_bps as f64
        } else {
            line / 1000.0
        };
        let rhai = if p.rhai_bps > 0 {
            p.rhai_bps as f64
        } else {
            5.0 * rai
        };
        TimelyState {
            rai,
            rhai,
            ..Default::default()
        }
    }

    /// Go-back-N went back to `snd_nxt` (a NACK or a timeout): the round
    /// ends with the next ACK past it. (The HPCC authors' ns-3, which runs
    /// TIMELY over PFC only, keeps waiting for an ACK past `snd_nxt` at the
    /// last update; on a lossy port that ACK may never come while every
    /// sender goes back at its uncut rate: 32 flows into one 100 Gbps port
    /// made one update each in 10 ms and lost 0.57 M packets.)
    pub(in crate::tcp) fn went_back(&mut self, snd_nxt: u64) {
        if self.last_update_seq > 0 {
            self.last_update_seq = self.last_update_seq.min(snd_nxt);
        }
    }

    /// An ACK with RTT `rtt` reached a sender whose `snd_nxt` is
    /// `snd_nxt`: Algorithm 1 once per RTT. `rate` is the current rate,
    /// kept within [`min_rate`, `line`].
    pub(in crate::tcp) fn on_rtt(
        &mut self,
        p: &TimelyParams,
        rtt: SimTime,
        ack: u64,
        snd_nxt: u64,
        rate: &mut f64,
        (min_rate, line): (f64, f64),
    ) -> Step {
        if ack <= self.last_update_seq {
            return Step::None;
        }
        let first = self.last_update_seq == 0;
        self.last_update_seq = snd_nxt;
        let last = std::mem::replace(&mut self.last_rtt, rtt);
        if first {
            return Step::None;
        }
        let new_diff = rtt.0 as f64 - last.0 as f64;
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * new_diff;
        let gradient = self.rtt_diff / p.min_rtt.0 as f64;
        let factor = if rtt < p.t_low {
            None
        } else if rtt > p.t_high {
            Some(1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt.0 as f64))
        } else if gradient <= 0.0 {
            None
        } else {
            Some((1.0 - p.beta * gradient).max(0.0))
        };
        self.updates += 1;
        match factor {
            None => {
                // The HPCC authors' ns-3 counts every increase towards the
                // hyper-active mode (the paper: negative gradients only).
                let step = if self.inc_stage < p.hai_after {
                    self.rai
                } else {
                    self.rhai
                };
                *rate = (*rate + step).min(line);
                self.inc_stage += 1;
                Step::Increase
            }
            Some(c) => {
                *rate = (*rate * c).max(min_rate);
                self.inc_stage = 0;
                self.decreases += 1;
                Step::Decrease
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 100e9;
    const FLOOR: f64 = 100e6;

    fn us(x: u64) -> SimTime {
        SimTime::from_us(x)
    }

    /// Feeds RTTs, each ACK past the last update: returns the rates.
    fn run(p: &TimelyParams, rtts: &[u64], rate0: f64) -> (TimelyState, Vec<f64>) {
        let mut s = TimelyState::new(p, LINE);
        let mut rate = rate0;
        let mut out = Vec::new();
        for (i, &r) in rtts.iter().enumerate() {
            let seq = 1000 * (i as u64 + 1);
            s.on_rtt(p, us(r), seq, seq, &mut rate, (FLOOR, LINE));
            out.push(rate);
        }
        (s, out)
    }

    /// Below T_low the rate rises by δ, and by δ_HAI from the N-th
    /// increase in a row on; the first sample only records its RTT.
    #[test]
    fn low_rtts_raise_the_rate_then_hyper_actively() {
        let p = TimelyParams::default();
        let (_, rates) = run(&p, &[30; 8], 50e9);
        let d = LINE / 1000.0;
        let want: Vec<f64> = [0, 1, 2, 3, 4, 5, 10, 15]
            .iter()
            .map(|&k| 50e9 + k as f64 * d)
            .collect();
        for (a, b) in rates.iter().zip(&want) {
            assert!((a - b).abs() < 1.0, "{rates:?} against {want:?}");
        }
    }

    /// Above T_high: rate·(1 − β·(1 − T_high/rtt)), whatever the
    /// gradient; the increase count starts again.
    #[test]
    fn high_rtts_cut_by_how_far_above_t_high() {
        let p = TimelyParams::default();
        let (s, rates) = run(&p, &[600, 1000], 50e9);
        let c = 1.0 - 0.8 * (1.0 - 500.0 / 1000.0);
        assert_eq!(rates[0], 50e9);
        assert!((rates[1] - 50e9 * c).abs() < 1.0, "{rates:?}");
        assert_eq!((s.inc_stage, s.decreases), (0, 1));
    }

    /// Between the thresholds the gradient decides: a rising RTT cuts by
    /// β × the smoothed gradient, a falling or flat one raises.
    #[test]
    fn the_gradient_decides_between_the_thresholds() {
        let p = TimelyParams::default();
        let (s, rates) = run(&p, &[100, 110], 50e9);
        // rtt_diff = 0.875 × 10 µs, gradient = 8.75 / 20
        let c = 1.0 - 0.8 * (0.875 * 10.0 / 20.0);
        assert!((rates[1] - 50e9 * c).abs() < 1.0, "{rates:?}");
        assert!((s.rtt_diff - 0.875 * 10e6).abs() < 1e-6);
        let (_, rates) = run(&p, &[100, 100], 50e9);
        assert_eq!(rates[1], 50e9 + LINE / 1000.0, "flat: an increase");
        // a gradient past 1/β would take the rate below 0: the floor
        let (_, rates) = run(&p, &[100, 200], 50e9);
        assert_eq!(rates[1], FLOOR);
    }

    /// One update per RTT: ACKs up to `snd_nxt` at the last update change
    /// nothing; the first past it updates. Nothing passes line rate.
    #[test]
    fn one_update_per_round_within_line_rate() {
        let p = TimelyParams::default();
        let mut s = TimelyState::new(&p, LINE);
        let mut rate = LINE - 1e6;
        let lim = (FLOOR, LINE);
        assert_eq!(s.on_rtt(&p, us(30), 10, 100, &mut rate, lim), Step::None);
        for ack in [20, 50, 100] {
            assert_eq!(s.on_rtt(&p, us(30), ack, 200, &mut rate, lim), Step::None);
        }
        assert_eq!(
            s.on_rtt(&p, us(30), 101, 300, &mut rate, lim),
            Step::Increase
        );
        assert_eq!(rate, LINE);
        assert_eq!(s.on_rtt(&p, us(30), 250, 400, &mut rate, lim), Step::None);
        assert_eq!(
            s.on_rtt(&p, us(30), 301, 500, &mut rate, lim),
            Step::Increase
        );
        assert_eq!(s.updates, 2);
    }

    /// After going back, the round ends with the first ACK past where the
    /// sender went back, not past the old `snd_nxt` (which a lossy port
    /// may never let an ACK reach while the rate stays uncut).
    #[test]
    fn a_go_back_ends_the_round_at_the_resend() {
        let p = TimelyParams::default();
        let mut s = TimelyState::new(&p, LINE);
        let mut rate = 50e9;
        let lim = (FLOOR, LINE);
        s.on_rtt(&p, us(600), 10, 1000, &mut rate, lim);
        // an ACK at 400 is inside the round that ends past 1000 …
        let mut kept = s.clone();
        assert_eq!(
            kept.on_rtt(&p, us(900), 400, 1000, &mut rate, lim),
            Step::None
        );
        // … unless the sender went back to 300 first
        s.went_back(300);
        assert_eq!(
            s.on_rtt(&p, us(900), 400, 700, &mut rate, lim),
            Step::Decrease
        );
        assert!(rate < 50e9);
        // before the first update there is no round to end
        let mut fresh = TimelyState::new(&p, LINE);
        fresh.went_back(0);
        assert_eq!(
            fresh.on_rtt(&p, us(30), 10, 100, &mut rate, lim),
            Step::None
        );
    }
}
