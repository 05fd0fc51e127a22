//! The default policy: every segment is SMSS bytes (or what the
//! application has left).

use super::{SegView, SegmentPolicy};
use crate::sim::rng::Rng;

#[derive(Clone, Debug)]
pub struct Fixed;

impl SegmentPolicy for Fixed {
    #[inline]
    fn want(&mut self, v: &SegView, _rng: &mut Rng) -> u64 {
        v.smss
    }
    fn name(&self) -> &'static str {
        "fixed"
    }
}
