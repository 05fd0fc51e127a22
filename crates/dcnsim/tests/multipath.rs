//! Fat-tree multipath: ECMP pins a flow to one path, RPS sprays over all.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::net::routing::Routes;
use dcnsim::net::topology::{fat_tree, FatTreeParams};
use dcnsim::sim::time::SimTime;
use dcnsim::stats::results::Column;

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
    core_packets_of(mode, seed, 2 << 20)
}

fn core_packets_of(mode: RoutingMode, seed: u64, bytes: u64) -> Vec<u64> {
    let apps = vec![AppSpec::Bulk {
        src: 0,
        dst: 15,
        amount: BulkAmount::Bytes(bytes),
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

#[test]
fn rps_splits_a_long_flow_evenly_over_the_four_inter_pod_paths() {
    // 10 MB = 7 182 segments: a uniform choice puts 25 % ± 0.5 % (one
    // standard deviation) on each core, so 3 points is six sigmas.
    let per_core = core_packets_of(RoutingMode::Rps, 7, 10 << 20);
    let total: u64 = per_core.iter().sum();
    for &p in &per_core {
        let share = p as f64 / total as f64;
        assert!(
            (share - 0.25).abs() < 0.03,
            "RPS per-core packets {per_core:?}"
        );
    }
}

#[test]
fn flowlet_gap_spans_ecmp_to_rps() {
    // A gap longer than the run never opens a second flowlet: one path per
    // flow, as ECMP. A gap below the packet spacing (12 us at 1 Gbps)
    // makes every packet a flowlet: spraying, as RPS.
    let long = RoutingMode::Flowlet {
        gap: SimTime::from_secs(10),
    };
    let per_core = core_packets(long, 3);
    assert_eq!(
        per_core.iter().filter(|&&p| p > 0).count(),
        1,
        "{per_core:?}"
    );
    let tiny = RoutingMode::Flowlet {
        gap: SimTime::from_ns(1),
    };
    let per_core = core_packets(tiny, 3);
    let total: u64 = per_core.iter().sum();
    assert!(
        per_core.iter().all(|&p| p as f64 > 0.15 * total as f64),
        "{per_core:?}"
    );
}

/// Four long flows pod 0 → pod 3 that share the edge and aggregation
/// uplinks: under spraying their packets meet different queues on
/// different paths and arrive out of order.
fn crossing(mode: RoutingMode, tcp_cfg: TcpConfig) -> dcnsim::stats::results::Results {
    let apps = (0..4)
        .map(|i| AppSpec::Bulk {
            src: i,
            dst: 15 - i,
            amount: BulkAmount::Bytes(4 << 20),
            start: SimTime::ZERO,
            tcp: tcp_cfg.clone(),
        })
        .collect();
    let mut c = config(k4(), apps, SimTime::from_secs(5));
    c.routing = mode;
    let r = dcnsim::run(&c);
    check_conservation(&r);
    r
}

#[test]
fn rps_without_loss_delivers_every_byte_once_and_counts_reordering() {
    // Four 128 KB windows fit in any one 1000-packet buffer: no loss.
    let small = TcpConfig {
        rwnd_bytes: 128 << 10,
        ..tcp(1460)
    };
    let r = crossing(RoutingMode::Rps, small.clone());
    assert_eq!(r.summary_value("packets_dropped"), Some(0.0), "no loss");
    let del = col_u64(&r, "flows", "delivered_bytes");
    assert!(col_bool(&r, "flows", "completed").iter().all(|&d| d));
    assert!(del.iter().all(|&d| d == 4 << 20), "{del:?}");
    let ooo: u64 = col_u64(&r, "flows", "ooo_arrivals").iter().sum();
    assert!(ooo > 0, "RPS over loaded paths must reorder");
    // One path per flow and FIFO queues: ECMP never reorders.
    let r = crossing(RoutingMode::Ecmp, small);
    assert_eq!(r.summary_value("packets_dropped"), Some(0.0));
    assert!(col_u64(&r, "flows", "ooo_arrivals").iter().all(|&o| o == 0));
}

/// Data packets sent by every core switch, for all-to-all inter-pod
/// traffic (every host to every host of the next pod).
fn core_load(k: usize, mode: RoutingMode) -> Vec<u64> {
    let t = fat_tree(&FatTreeParams {
        k,
        rate_bps: GBPS,
        delay: SimTime::from_us(5),
        switch_queue: q(Limit::Packets(1000)),
        nic_buffer: Limit::Bytes(10 << 20),
    });
    let hosts = k * k * k / 4;
    let per_pod = k * k / 4;
    let mut apps = Vec::new();
    for s in 0..hosts {
        for j in 0..per_pod {
            let d = ((s / per_pod + 1) % k) * per_pod + j;
            apps.push(AppSpec::Bulk {
                src: s,
                dst: d,
                amount: BulkAmount::Bytes(3000),
                start: SimTime::ZERO,
                tcp: tcp(1460),
            });
        }
    }
    let mut c = config(t, apps, SimTime::from_secs(5));
    c.routing = mode;
    let r = dcnsim::run(&c);
    check_conservation(&r);
    let tb = r.table("queues").unwrap();
    let Column::Str(node) = tb.column("node").unwrap() else {
        panic!()
    };
    let tx = col_u64(&r, "queues", "tx_pkts");
    (0..k * k / 4)
        .map(|c| {
            (0..tx.len())
                .filter(|&i| node[i] == format!("core{c}"))
                .map(|i| tx[i])
                .sum()
        })
        .collect()
}

#[test]
fn unsalted_ecmp_polarises_salted_ecmp_uses_every_core() {
    // Without a per-switch salt an edge switch sends a tuple to aggregation
    // switch h mod k/2 and that switch sends it to its core h mod k/2: the
    // same digit twice, so only the k/2 "diagonal" cores of the (k/2)²
    // carry traffic. With a salt the two choices are independent.
    for k in [4, 8] {
        let unsalted = core_load(k, RoutingMode::EcmpUnsalted);
        let idle = unsalted.iter().filter(|&&p| p == 0).count();
        assert_eq!(idle, k * k / 4 - k / 2, "k = {k}: {unsalted:?}");
        let salted = core_load(k, RoutingMode::Ecmp);
        assert!(salted.iter().all(|&p| p > 0), "k = {k}: {salted:?}");
    }
}

#[test]
fn reordering_robust_tcp_under_rps_without_loss() {
    // The crossing flows of the test above, no loss: every fast retransmit
    // is spurious. The adaptive threshold learns the reordering depth and
    // makes fewer; RACK's reordering window absorbs it too.
    let base = TcpConfig {
        rwnd_bytes: 128 << 10,
        ..tcp(1460)
    };
    let run = |t: TcpConfig| {
        let r = crossing(RoutingMode::Rps, t);
        assert_eq!(r.summary_value("packets_dropped"), Some(0.0), "no loss");
        let del = col_u64(&r, "flows", "delivered_bytes");
        assert!(del.iter().all(|&d| d == 4 << 20), "{del:?}");
        let fr: u64 = col_u64(&r, "flows", "fast_retransmits").iter().sum();
        let sp: u64 = col_u64(&r, "flows", "spurious_retransmits").iter().sum();
        let th: Vec<u64> = col_u64(&r, "flows", "dupthresh").to_vec();
        (fr, sp, th)
    };
    let fixed = run(base.clone());
    let adaptive = run(TcpConfig {
        reordering: Reordering::Adaptive,
        ..base.clone()
    });
    let rack = run(TcpConfig {
        sack: true,
        recovery: LossRecovery::Rack,
        ..base.clone()
    });
    assert!(fixed.0 > 0, "RPS reordering triggers fast retransmits");
    // No loss: every fast retransmit is spurious; Eifel detection sees it
    // unless the copy overtook the original.
    assert!(fixed.1 > 0 && fixed.1 <= fixed.0, "{fixed:?}");
    assert!(
        adaptive.0 < fixed.0,
        "fixed {fixed:?} adaptive {adaptive:?}"
    );
    assert!(adaptive.2.iter().all(|&t| t > 3), "{adaptive:?}");
    assert!(rack.0 < fixed.0, "fixed {fixed:?} rack {rack:?}");
}
