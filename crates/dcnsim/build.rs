//! Build identity of the simulator: a hash of its own sources, so results
//! (and the sweep caches keyed on them) say exactly which core produced
//! them, with or without git. `DCNSIM_BUILD_HASH` in the environment wins
//! (for reproducible packaging).

#[path = "build_hash.rs"]
mod build_hash;

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=build_hash.rs");
    println!("cargo:rerun-if-env-changed=DCNSIM_BUILD_HASH");
    if std::env::var_os("DCNSIM_BUILD_HASH").is_some() {
        // tests/build_hash.rs: a packager's fixed id names no sources
        println!("cargo:rustc-env=DCNSIM_BUILD_HASH_FROM_ENV=1");
    }
    let hash = std::env::var("DCNSIM_BUILD_HASH").unwrap_or_else(|_| {
        // The package's directory as cargo names it now, not as it was when
        // this script was compiled (`env!`): a target directory copied from
        // another checkout keeps its compiled build script, which then
        // hashed the other checkout's sources, and every core built here
        // carried that one unchanging id.
        let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        build_hash::of(std::path::Path::new(&root))
    });
    println!("cargo:rustc-env=DCNSIM_BUILD_HASH={hash}");
}
