//! Kulkarni's Dynamic Segment Resizing (Algorithm 4): the segment size is
//! the sender's SMSS itself, which starts at MSS_dsr and grows with the
//! window, so the window also grows in units of the current (small) segment.

use super::{SegView, SegmentPolicy};
use crate::sim::rng::Rng;
use crate::tcp::cc::CcState;

/// Dynamic Segment Resizing, Algorithm 4, with the window in bytes.
///
/// The dissertation counts cwnd in segments of the current size MSS_dsr:
/// when `MSS_dsr < MSS` and `cwnd ≥ cwnd_dsr` it sets
/// `MSS_tmp = min(MSS, cwnd·MSS_dsr/(cwnd_dsr/2))`,
/// `cwnd = MSS_dsr·cwnd/MSS_tmp` and `MSS_dsr = MSS_tmp`. The window in
/// bytes, cwnd·MSS_dsr, is the same before and after, so with a byte window
/// the resize only changes the segment size: given the window `cwnd_bytes`
/// and the current segment size `smss`, this returns the new segment size
/// (`min(mss, 2·cwnd_bytes/cwnd_dsr)`), or `None` when no resize is due.
/// The window is then `cwnd_bytes/new ≈ cwnd_dsr/2` segments (exactly,
/// unless capped at `mss` or rounded down).
#[inline]
pub fn dsr_resize(smss: u64, mss: u64, cwnd_bytes: u64, cwnd_dsr: u64) -> Option<u64> {
    if smss >= mss || cwnd_bytes < cwnd_dsr.saturating_mul(smss) {
        return None;
    }
    // cwnd_bytes ≥ cwnd_dsr·smss, so the new size is at least 2·smss (or mss).
    let tmp = (cwnd_bytes.saturating_mul(2) / cwnd_dsr.max(2)).min(mss);
    Some(tmp.max(smss))
}

/// DSR: the connection's MSS and cwnd_dsr (segments).
#[derive(Clone, Debug)]
pub struct Dsr {
    pub mss: u64,
    pub cwnd_dsr: u64,
}

impl SegmentPolicy for Dsr {
    #[inline]
    fn resize(&mut self, st: &mut CcState) -> bool {
        match dsr_resize(st.smss, self.mss, st.cwnd, self.cwnd_dsr) {
            Some(new) if new != st.smss => {
                st.smss = new;
                true
            }
            _ => false,
        }
    }
    #[inline]
    fn want(&mut self, v: &SegView, _rng: &mut Rng) -> u64 {
        v.smss
    }
    fn name(&self) -> &'static str {
        "dsr"
    }
}
