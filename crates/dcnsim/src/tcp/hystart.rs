//! Slow-start exit before the first loss (`tcp.hystart`).
//!
//! Both variants only set ssthresh (and, for HyStart++, slow the growth),
//! so the sender applies them in front of any algorithm's slow start:
//!
//! - `linux`: tcp_cubic's HyStart with its module defaults (hystart_detect
//!   = 3, hystart_low_window = 16, hystart_ack_delta_us = 2000). From a
//!   window of 16 segments, per round (a window of data): an ACK train —
//!   ACKs each within 2 ms of the previous one — lasting longer than half
//!   the minimum RTT, or a round's minimum RTT (from its first 8 samples)
//!   above the minimum by clamp(min/8, 4 ms, 16 ms), ends slow start with
//!   ssthresh = cwnd. Without pacing Linux halves the train threshold
//!   (`threshold >>= 1`); its `hystart_ack_delay` allowance for TSO
//!   batching is 0 here (no TSO). Reset by a timeout, as Linux's
//!   `bictcp_state(TCP_CA_Loss)` does.
//! - `rfc9406`: HyStart++ (RFC 9406 §4.2): per round the minimum RTT of at
//!   least N_RTT_SAMPLE = 8 samples; a rise of clamp(last/8, 4 ms, 16 ms)
//!   over the previous round's enters Conservative Slow Start (growth
//!   divided by CSS_GROWTH_DIVISOR = 4), which returns to slow start if the
//!   RTT falls back below its baseline and ends with ssthresh = cwnd after
//!   CSS_ROUNDS = 5 rounds. Only the initial slow start (§4.2: "SHOULD use
//!   HyStart++ only for the initial slow start").

use super::cc::{AckInfo, CcState};
use crate::config::HyStart;
use crate::sim::time::SimTime;

const LOW_WINDOW: u64 = 16;
const ACK_DELTA: SimTime = SimTime::from_us(2000);
const MIN_SAMPLES: u32 = 8;
const DELAY_MIN: SimTime = SimTime::from_ms(4);
const DELAY_MAX: SimTime = SimTime::from_ms(16);
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;

/// clamp(x / 8, 4 ms, 16 ms): Linux's HYSTART_DELAY_THRESH(delay_min >> 3)
/// and RFC 9406's RttThresh alike.
fn delay_thresh(min: SimTime) -> SimTime {
    SimTime(min.0 / 8).max(DELAY_MIN).min(DELAY_MAX)
}

/// The state of one flow's slow-start exit.
#[derive(Clone, Copy, Debug)]
pub struct SlowStartExit {
    kind: HyStart,
    /// Linux's `found`; for HyStart++: done for good (it ended slow start,
    /// or a congestion event did).
    found: bool,
    /// The current round ends when snd_una passes this.
    end_seq: u64,
    started: bool,
    round_start: SimTime,
    last_ack: SimTime,
    /// Minimum RTT of the current round, and its samples.
    curr_rtt: Option<SimTime>,
    samples: u32,
    /// Linux: the minimum RTT seen; RFC 9406: the last round's minimum.
    delay_min: Option<SimTime>,
    /// HyStart++ in CSS: the baseline RTT and the rounds spent there.
    css: Option<(SimTime, u32)>,
}

impl SlowStartExit {
    pub fn new(kind: HyStart) -> Self {
        SlowStartExit {
            kind,
            found: false,
            end_seq: 0,
            started: false,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            curr_rtt: None,
            samples: 0,
            delay_min: None,
            css: None,
        }
    }

    /// A congestion event: HyStart++ is over (initial slow start only);
    /// Linux's HyStart starts afresh after a timeout.
    pub fn on_loss(&mut self, timeout: bool) {
        match self.kind {
            HyStart::Off => {}
            HyStart::Linux => {
                if timeout {
                    let min = self.delay_min;
                    *self = SlowStartExit::new(self.kind);
                    self.delay_min = min; // bictcp_reset keeps delay_min
                }
            }
            HyStart::Rfc9406 => {
                self.found = true;
                self.css = None;
            }
        }
    }

    /// An ACK that advanced snd_una, before the window grows: may end slow
    /// start (ssthresh = cwnd). Returns the bytes slow start may count
    /// (fewer in CSS).
    pub fn on_ack(&mut self, s: &mut CcState, a: &AckInfo) -> u64 {
        match self.kind {
            HyStart::Off => a.acked,
            HyStart::Linux => {
                self.linux(s, a);
                a.acked
            }
            HyStart::Rfc9406 => self.rfc9406(s, a),
        }
    }

    fn new_round(&mut self, a: &AckInfo) -> bool {
        if self.started && a.snd_una <= self.end_seq {
            return false;
        }
        self.started = true;
        self.round_start = a.now;
        self.last_ack = a.now;
        self.end_seq = a.snd_max;
        true
    }

    /// tcp_cubic.c `bictcp_acked` / `hystart_update`.
    fn linux(&mut self, s: &mut CcState, a: &AckInfo) {
        if let Some(r) = a.rtt {
            self.delay_min = Some(self.delay_min.map_or(r, |m| m.min(r)));
        }
        if self.found || s.cwnd >= s.ssthresh || s.cwnd < LOW_WINDOW * s.smss {
            return;
        }
        if self.new_round(a) {
            self.curr_rtt = None;
            self.samples = 0;
        }
        let Some(min) = self.delay_min else { return };
        // ACK train: no pacing, so half the minimum RTT.
        if a.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = a.now;
            if a.now.saturating_sub(self.round_start) > SimTime(min.0 / 2) {
                self.found = true;
            }
        }
        // Delay increase over the round's first samples.
        if let Some(r) = a.rtt {
            let curr = self.curr_rtt.map_or(r, |c| c.min(r));
            self.curr_rtt = Some(curr);
            if self.samples < MIN_SAMPLES {
                self.samples += 1;
            } else if curr > min + delay_thresh(min) {
                self.found = true;
            }
        }
        if self.found {
            s.ssthresh = s.cwnd;
        }
    }

    /// RFC 9406 §4.2.
    fn rfc9406(&mut self, s: &mut CcState, a: &AckInfo) -> u64 {
        if self.found || s.cwnd >= s.ssthresh {
            return a.acked;
        }
        if self.new_round(a) {
            // "lastRoundMinRTT = currentRoundMinRTT; currentRoundMinRTT = infinity;
            // rttSampleCount = 0", and a CSS round ends.
            if self.samples > 0 {
                self.delay_min = self.curr_rtt;
            }
            self.curr_rtt = None;
            self.samples = 0;
            if let Some((base, rounds)) = self.css {
                if rounds + 1 >= CSS_ROUNDS {
                    // "enter congestion avoidance by setting ssthresh to cwnd"
                    self.css = None;
                    self.found = true;
                    s.ssthresh = s.cwnd;
                    return a.acked;
                }
                self.css = Some((base, rounds + 1));
            }
        }
        if let Some(r) = a.rtt {
            self.curr_rtt = Some(self.curr_rtt.map_or(r, |c| c.min(r)));
            self.samples += 1;
        }
        let enough = self.samples >= MIN_SAMPLES;
        match (self.css, self.curr_rtt, self.delay_min) {
            (None, Some(curr), Some(last)) if enough && curr >= last + delay_thresh(last) => {
                // "cssBaselineMinRtt = currentRoundMinRTT; exit slow start and enter CSS"
                self.css = Some((curr, 0));
            }
            (Some((base, _)), Some(curr), _) if enough && curr < base => {
                // "the slow start exit was spurious": back to slow start
                self.css = None;
            }
            _ => {}
        }
        if self.css.is_some() {
            // "cwnd = cwnd + (min(N, L * SMSS) / CSS_GROWTH_DIVISOR)"
            a.acked / CSS_GROWTH_DIVISOR
        } else {
            a.acked
        }
    }
}
