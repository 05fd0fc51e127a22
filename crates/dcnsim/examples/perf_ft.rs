//! Hot-path measurement: k-ary fat-tree, one long flow per host to a random
//! permutation partner, ECMP.
#[path = "../tests/common.rs"]
mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::net::topology::{fat_tree, FatTreeParams};
use dcnsim::sim::rng::mix64;
use dcnsim::sim::time::SimTime;
fn main() {
    let k: usize = std::env::args().nth(1).map_or(8, |s| s.parse().unwrap());
    let ms: u64 = std::env::args().nth(2).map_or(100, |s| s.parse().unwrap());
    let topo = fat_tree(&FatTreeParams {
        k,
        rate_bps: GBPS,
        delay: SimTime::from_us(1),
        switch_queue: q(Limit::Packets(100)),
        nic_buffer: Limit::Bytes(10 << 20),
    });
    let n = k * k * k / 4;
    // a derangement by sorting on a hash, then shifting by one
    let mut perm: Vec<usize> = (0..n).collect();
    perm.sort_by_key(|&i| mix64(i as u64 ^ 12345));
    let apps = (0..n)
        .map(|i| AppSpec::Bulk {
            src: perm[i],
            dst: perm[(i + 1) % n],
            amount: BulkAmount::Duration(SimTime::from_ms(ms)),
            start: SimTime::ZERO,
            tcp: tcp(1460),
        })
        .collect();
    let t0 = std::time::Instant::now();
    let r = dcnsim::run(&config(topo, apps, SimTime::from_ms(ms)));
    let wall = t0.elapsed().as_secs_f64();
    let ev = r.summary_value("events").unwrap();
    let hops = r.summary_value("packet_hops").unwrap();
    println!(
        "k={k} wall {wall:.3}s events {ev} ({:.2} M/s) hops {hops} ({:.2} M/s) ev/hop {:.2}",
        ev / wall / 1e6,
        hops / wall / 1e6,
        ev / hops
    );
}
