//! Build identity of the simulator: a hash of its own sources, so results
//! (and the sweep caches keyed on them) say exactly which core produced
//! them, with or without git. `DCNSIM_BUILD_HASH` in the environment wins
//! (for reproducible packaging).

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-env-changed=DCNSIM_BUILD_HASH");
    let hash = std::env::var("DCNSIM_BUILD_HASH").unwrap_or_else(|_| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut fs_list = Vec::new();
        files(&root.join("src"), &mut fs_list);
        fs_list.push(root.join("Cargo.toml"));
        fs_list.sort();
        // FNV-1a over (relative path, contents): stable across machines and checkouts.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h ^= b as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        let mut any = false;
        for p in &fs_list {
            if let Ok(data) = fs::read(p) {
                any = true;
                let rel = p.strip_prefix(root).unwrap_or(p);
                eat(rel.to_string_lossy().replace('\\', "/").as_bytes());
                eat(&[0]);
                eat(&data);
                eat(&[0]);
            }
        }
        if any {
            format!("{h:016x}")
        } else {
            "unknown".to_string()
        }
    });
    println!("cargo:rustc-env=DCNSIM_BUILD_HASH={hash}");
}
