//! Fat-tree multipath: ECMP pins a flow to one path, RPS sprays over all.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::results::Column;
use dcnsim::routing::Routes;
use dcnsim::time::SimTime;
use dcnsim::topology::{fat_tree, FatTreeParams};

fn k4() -> TopologySpec {
    fat_tree(&FatTreeParams {
        k: 4,
        rate_bps: GBPS,
        delay: SimTime::from_us(25),
        switch_queue: q(Limit::Packets(1000)),
        nic_buffer: Limit::Bytes(10 << 20),
    })
}

#[test]
fn k4_fat_tree_has_16_hosts_20_switches_and_4_paths_between_pods() {
    let t = k4();
    let hosts = t.nodes.iter().filter(|n| n.kind == NodeKind::Host).count();
    assert_eq!(hosts, 16);
    assert_eq!(t.nodes.len() - hosts, 20);
    let r = Routes::compute(&t);
    assert_eq!(r.path_count(0, 15), 4, "(k/2)^2 paths between pods");
    assert_eq!(r.path_count(0, 2), 2, "same pod, other edge");
    assert_eq!(r.path_count(0, 1), 1, "same edge switch");
}

/// Data packets of flow 0 → 15 that crossed each core switch.
fn core_packets(mode: RoutingMode, seed: u64) -> Vec<u64> {
    let apps = vec![AppSpec::Bulk {
        src: 0,
        dst: 15,
        amount: BulkAmount::Bytes(2 << 20),
        start: SimTime::ZERO,
        tcp: tcp(1460),
    }];
    let mut c = config(k4(), apps, SimTime::from_secs(5));
    c.routing = mode;
    c.seed = seed;
    let r = dcnsim::run(&c);
    check_conservation(&r);
    assert!(col_bool(&r, "flows", "completed")[0]);
    let t = r.table("queues").unwrap();
    let (Column::Str(node), Column::Str(to)) = (t.column("node").unwrap(), t.column("to").unwrap())
    else {
        panic!()
    };
    let tx = col_u64(&r, "queues", "tx_pkts");
    // Data goes up to the cores and down into pod 3: count core → pod-3 links.
    (0..4)
        .map(|c| {
            (0..tx.len())
                .filter(|&i| node[i] == format!("core{c}") && to[i].starts_with("aggr3_"))
                .map(|i| tx[i])
                .sum()
        })
        .collect()
}

#[test]
fn ecmp_keeps_a_flow_on_one_path() {
    for seed in 1..4 {
        let per_core = core_packets(RoutingMode::Ecmp, seed);
        let used = per_core.iter().filter(|&&p| p > 0).count();
        assert_eq!(
            used, 1,
            "seed {seed}: ECMP spread one flow over {per_core:?}"
        );
    }
}

#[test]
fn rps_sprays_a_flow_over_all_paths() {
    let per_core = core_packets(RoutingMode::Rps, 1);
    let total: u64 = per_core.iter().sum();
    for &p in &per_core {
        // uniform spraying: each of 4 cores carries about a quarter
        assert!(
            p as f64 > 0.15 * total as f64,
            "RPS per-core packets {per_core:?}"
        );
    }
}
