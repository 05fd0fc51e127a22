//! The core's build id names the sources it was compiled from: results and
//! the sweep caches key on it, so an id that did not follow the sources
//! would let a changed core reuse an old core's results.

#[path = "../build_hash.rs"]
mod build_hash;

#[test]
fn the_build_id_is_the_hash_of_these_sources() {
    if option_env!("DCNSIM_BUILD_HASH_FROM_ENV").is_some() {
        return; // a packager's fixed id
    }
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        env!("DCNSIM_BUILD_HASH"),
        build_hash::of(here),
        "the compiled build id is not the hash of {} (a stale build script?)",
        here.display()
    );
}
