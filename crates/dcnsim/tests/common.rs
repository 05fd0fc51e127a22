//! Helpers shared by the integration tests: small topologies built directly
//! (independent of the scenario parser) and the conservation checker.
#![allow(dead_code)]

use dcnsim::config::*;
use dcnsim::results::{Column, Results};
use dcnsim::time::SimTime;

pub fn q(limit: Limit) -> QueueConfig {
    QueueConfig { limit, ecn_k: None }
}

/// `n` hosts on one switch; switch ports get `buffer`, NICs 10 MB.
pub fn star(n: usize, rate_bps: u64, delay: SimTime, buffer: Limit) -> TopologySpec {
    let mut t = TopologySpec::default();
    for i in 0..n {
        t.nodes.push(NodeSpec {
            name: format!("h{i}"),
            kind: NodeKind::Host,
        });
    }
    t.nodes.push(NodeSpec {
        name: "sw".into(),
        kind: NodeKind::Switch,
    });
    for i in 0..n {
        t.links.push(LinkSpec {
            a: i,
            b: n,
            rate_bps,
            delay,
            queue_ab: q(Limit::Packets(NIC_PKTS)),
            queue_ba: q(buffer),
        });
    }
    t
}

pub fn config(topology: TopologySpec, apps: Vec<AppSpec>, stop: SimTime) -> Config {
    Config {
        name: "test".into(),
        topology,
        routing: RoutingMode::Ecmp,
        l2_overhead: 0,
        switch_delay: SimTime::ZERO,
        host_jitter: SimTime::ZERO,
        stop,
        seed: 1,
        apps,
        pcap_hosts: Vec::new(),
        trace: None,
    }
}

pub fn col_u64<'a>(r: &'a Results, table: &str, col: &str) -> &'a [u64] {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::U64(v) => v,
        c => panic!("{col} is not u64: {c:?}"),
    }
}
pub fn col_f64<'a>(r: &'a Results, table: &str, col: &str) -> &'a [f64] {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::F64(v) => v,
        c => panic!("{col} is not f64: {c:?}"),
    }
}
pub fn col_bool<'a>(r: &'a Results, table: &str, col: &str) -> &'a [bool] {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::Bool(v) => v,
        c => panic!("{col} is not bool: {c:?}"),
    }
}

/// Conservation laws every run must satisfy: every packet is delivered,
/// dropped or still in flight; no flow delivers more than was written; a
/// completed TCP flow delivered exactly what was written.
pub fn check_conservation(r: &Results) {
    let s = |k: &str| r.summary_value(k).unwrap();
    assert_eq!(
        s("packets_created"),
        s("packets_delivered") + s("packets_dropped") + s("packets_in_flight"),
        "packet accounting"
    );
    let app = col_u64(r, "flows", "app_bytes");
    let del = col_u64(r, "flows", "delivered_bytes");
    let done = col_bool(r, "flows", "completed");
    let transport = match r.table("flows").unwrap().column("transport").unwrap() {
        Column::Str(v) => v.clone(),
        _ => unreachable!(),
    };
    for i in 0..app.len() {
        if transport[i] == "tcp" {
            assert!(
                del[i] <= app[i],
                "flow {i} delivered {} > written {}",
                del[i],
                app[i]
            );
            if done[i] {
                assert_eq!(
                    del[i], app[i],
                    "completed flow {i} must deliver every byte exactly once"
                );
            }
        }
    }
}

pub fn tcp(mss: u32) -> TcpConfig {
    TcpConfig {
        mss,
        ..TcpConfig::default()
    }
}

pub const GBPS: u64 = 1_000_000_000;
pub const NIC_PKTS: u64 = 100;

/// Kulkarni's synchronized-reads setup (dissertation Table 3.1): `n`
/// servers on a 1 Gbps star with 50 us links and a `buffer_bytes` switch
/// buffer, 256 KB SRUs, 1 KB segments, RTOmin 200 ms, rwnd 1000 segments,
/// request jitter up to 20 us. `f` adjusts the TCP settings.
pub fn kulkarni_incast(
    n: usize,
    buffer_bytes: u64,
    blocks: u32,
    f: impl Fn(&mut TcpConfig),
) -> Config {
    let mut tcp = TcpConfig {
        mss: 1024,
        rto_min: SimTime::from_ms(200),
        rwnd_bytes: 1000 * 1024,
        ..TcpConfig::default()
    };
    f(&mut tcp);
    let app = AppSpec::SyncReads {
        client: 0,
        servers: (1..=n).collect(),
        sru_bytes: 256 * 1024,
        request_bytes: 64,
        blocks,
        jitter: SimTime::from_us(20),
        start: SimTime::ZERO,
        tcp,
    };
    config(
        star(
            n + 1,
            GBPS,
            SimTime::from_us(50),
            Limit::Bytes(buffer_bytes),
        ),
        vec![app],
        SimTime::from_secs(1000),
    )
}
