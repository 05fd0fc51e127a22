//! A cache prefetch hint: the one place the crate needs `unsafe`.
//!
//! The event loop knows a hop early which link state line and which route
//! entry the next event will read. A plain load of them (what the loop
//! did before) must complete before it retires, so a chain of misses still
//! stalls the loop; a prefetch retires at once and only starts the fill.

/// Start bringing the cache line holding `*r` into L1. No effect on any
/// value; a no-op on targets without a prefetch intrinsic.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 reads no value and cannot fault (the address is
    // also that of a live reference); it only hints the cache.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(r as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
