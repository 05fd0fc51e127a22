//! FaST's segment size (SPEC §2.1 eq. 9, both readings) with its probing
//! stage. vwnd comes from the FaST congestion control through
//! [`SegView::vwnd`] (under any other CC, cwnd stands in for it); the
//! size rule itself, `fast_segment`, lives with that CC, which also sizes
//! its window by it.

use super::{SegView, SegmentPolicy};
use crate::config::FastParams;
use crate::sim::rng::Rng;
use crate::tcp::cc::fast::fast_segment;

#[derive(Clone, Debug)]
pub struct Fast(pub FastParams);

impl Fast {
    /// The size of FaST's segments now, the probes' or eq. (9)'s: what it
    /// sends, and the unit a window counted in packets (`cwnd_counting =
    /// "packets"`) counts, so Wmin segments of that size (or the probes)
    /// stay in flight, as in bytes.
    #[inline]
    pub fn size(&self, v: &SegView) -> u64 {
        let p = &self.0;
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
}

impl SegmentPolicy for Fast {
    #[inline]
    fn want(&mut self, v: &SegView, _rng: &mut Rng) -> u64 {
        self.size(v)
    }
    fn name(&self) -> &'static str {
        "fast"
    }
}
