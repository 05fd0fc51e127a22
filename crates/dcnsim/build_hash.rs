//! The core's build identity: FNV-1a over (relative path, contents) of the
//! package's sources (src/**/*.rs and Cargo.toml), stable across machines
//! and checkouts. Shared by build.rs, which compiles it into the core, and
//! tests/build_hash.rs, which checks the compiled id against the sources.

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

/// The id of the sources under package directory `root` ("unknown" when
/// none can be read).
pub fn of(root: &Path) -> String {
    let mut fs_list = Vec::new();
    files(&root.join("src"), &mut fs_list);
    fs_list.push(root.join("Cargo.toml"));
    fs_list.sort();
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
}
