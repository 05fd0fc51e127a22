//! A cache prefetch hint.
//!
//! The event loop knows a hop early which link state line and which route
//! entry the next event will read. A plain load of them (what the loop
//! did before) must complete before it retires, so a chain of misses still
//! stalls the loop; a prefetch retires at once and only starts the fill.

/// Start bringing the cache line holding `*r` into every cache level. No
/// effect on any value (`prefetch-index`: `PREFETCHT0` on x86-64, `PRFM`
/// on aarch64, nothing elsewhere).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    prefetch_index::prefetch_index(std::slice::from_ref(r), 0);
}

/// Start bringing the cache line holding `v[i]` into every cache level,
/// without a bounds check: the address is formed by wrapping arithmetic
/// and a prefetch never faults, so an index past the end only wastes the
/// hint. For indices that are in range by construction (a live ring's
/// slot, a packet's route entry): the check and branch of
/// `v.get(i).map(prefetch)` were two of a hop's instructions per hint.
#[inline(always)]
pub fn prefetch_at<T>(v: &[T], i: usize) {
    prefetch_index::prefetch_index(v, i);
}
