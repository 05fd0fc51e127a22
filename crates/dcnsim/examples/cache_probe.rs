//! How much cache a run gets on this machine: the latency of a dependent
//! load over working sets of growing size, on one core and then on two
//! cores at once (each with its own working set).
//!
//! `lscpu` names the caches a core could use; on a VM the last level is
//! shared with other tenants and with the machine's other vCPU, so what a
//! run of the simulator finds in it is less, and moves. The k = 16 DCTCP
//! permutation holds 12 MB of hot state and k = 8 1.5 MB
//! (`examples/mem_probe`), so whether 12 MB stays in the last level decides
//! how much slower a k = 16 hop is than a k = 8 one (docs/performance.md,
//! issue 42 item 6); whether two 12 MB working sets fit it at once decides
//! what a second thread costs each.
//!
//! Each working set is a random single cycle over its cache lines (Sattolo's
//! shuffle), so every load depends on the one before and the hardware
//! prefetchers cannot guess the next line; the cycle is walked once to warm
//! the caches and then timed.
//!
//! Usage: `cache_probe [MIB ...] [--loads N]` (default sizes 2 4 6 8 12 16
//! 24 32 64 MiB, N = 20,000,000 loads a size)
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Barrier;
use std::time::Instant;

/// One cache line; the first word holds the index of the next line to load.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Line([u64; 8]);

/// A working set of `lines` lines linked into one random cycle (Sattolo's
/// algorithm: a uniformly drawn cyclic permutation, so a walk from any line
/// visits every line before it returns).
fn cycle(lines: usize, seed: u64) -> Vec<Line> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut next: Vec<usize> = (0..lines).collect();
    for i in (1..lines).rev() {
        let j = rng.gen_range(0..i);
        next.swap(i, j);
    }
    next.into_iter()
        .map(|n| {
            let mut l = Line::default();
            l.0[0] = n as u64;
            l
        })
        .collect()
}

/// Nanoseconds per load of a walk of `loads` dependent loads over `set`,
/// after one warming walk around the whole cycle.
fn walk(set: &[Line], loads: usize) -> f64 {
    let mut i = 0usize;
    for _ in 0..set.len() {
        i = set[i].0[0] as usize;
    }
    let t = Instant::now();
    for _ in 0..loads {
        i = set[i].0[0] as usize;
    }
    std::hint::black_box(i);
    t.elapsed().as_secs_f64() * 1e9 / loads as f64
}

fn main() {
    let mut sizes: Vec<usize> = Vec::new();
    let mut loads = 20_000_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--loads" {
            let v = args.next().unwrap_or_default();
            loads = match v.parse() {
                Ok(n) if n > 0 => n,
                _ => usage(&format!("--loads: a positive number of loads, got {v:?}")),
            };
        } else {
            match a.parse::<usize>() {
                Ok(n) if n > 0 => sizes.push(n),
                _ => usage(&format!(
                    "a working-set size is a positive number of MiB, got {a:?}"
                )),
            }
        }
    }
    if sizes.is_empty() {
        sizes = vec![2, 4, 6, 8, 12, 16, 24, 32, 64];
    }
    println!("| working set | one core, ns a load | two cores at once, ns a load (each) | two over one |");
    println!("|---|---|---|---|");
    for mib in sizes {
        let lines = mib * (1 << 20) / 64;
        let one = walk(&cycle(lines, 1), loads);
        let start = Barrier::new(2);
        let two: Vec<f64> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2u64)
                .map(|k| {
                    let start = &start;
                    s.spawn(move || {
                        let set = cycle(lines, 2 + k);
                        start.wait();
                        walk(&set, loads)
                    })
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("a probe thread"))
                .collect()
        });
        let mean = (two[0] + two[1]) / 2.0;
        println!(
            "| {mib} MiB | {one:.1} | {:.1} and {:.1} | {:.2}x |",
            two[0],
            two[1],
            mean / one
        );
    }
}

fn usage(why: &str) -> ! {
    eprintln!("cache_probe: {why}\nusage: cache_probe [MIB ...] [--loads N]");
    std::process::exit(2);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk from line 0 comes back to it after exactly every line: the
    /// working set is the size asked for, whatever the seed.
    #[test]
    fn the_cycle_visits_every_line_once() {
        for (lines, seed) in [(2, 1), (3, 7), (1000, 2), (4096, 3)] {
            let set = cycle(lines, seed);
            let mut seen = vec![false; lines];
            let mut i = 0usize;
            for _ in 0..lines {
                assert!(!seen[i], "line {i} visited twice in {lines} lines");
                seen[i] = true;
                i = set[i].0[0] as usize;
            }
            assert_eq!(i, 0, "the walk returns to its start after {lines} loads");
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn a_line_is_a_cache_line() {
        assert_eq!(std::mem::size_of::<Line>(), 64);
        assert_eq!(std::mem::align_of::<Line>(), 64);
    }

    #[test]
    fn seeds_draw_different_cycles() {
        let a: Vec<u64> = cycle(512, 1).iter().map(|l| l.0[0]).collect();
        let b: Vec<u64> = cycle(512, 2).iter().map(|l| l.0[0]).collect();
        assert_ne!(a, b);
    }
}
