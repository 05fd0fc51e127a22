//! Segment-size policies: *in what sizes* to send (the CC decides *how much*).
//! FaST, TCPRand and DSR plug in here; any policy combines with any CC.

use crate::config::SegPolicyKind;
use crate::rng::Rng;

/// What a policy may read about the sender when sizing the next segment.
#[derive(Clone, Copy, Debug)]
pub struct SegView {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
    /// Bytes of new data the application has made available.
    pub available: u64,
}

#[derive(Clone, Debug)]
pub enum SegPolicy {
    Fixed,
}

impl SegPolicy {
    pub fn new(kind: SegPolicyKind) -> Self {
        match kind {
            SegPolicyKind::Fixed => SegPolicy::Fixed,
        }
    }
    /// Payload bytes for the next new segment (≥ 1, ≤ SMSS, ≤ available).
    #[inline]
    pub fn next_payload(&mut self, v: &SegView, _rng: &mut Rng) -> u32 {
        let want = match self {
            SegPolicy::Fixed => v.smss,
        };
        want.min(v.available).max(1) as u32
    }
    pub fn name(&self) -> &'static str {
        match self {
            SegPolicy::Fixed => "fixed",
        }
    }
}
