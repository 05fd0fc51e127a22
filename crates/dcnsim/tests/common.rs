//! Helpers shared by the integration tests: small topologies built directly
//! (independent of the scenario parser) and the conservation checker.
#![allow(dead_code)]

use dcnsim::config::*;
use dcnsim::sim::time::SimTime;
use dcnsim::stats::results::{Column, Results};

pub fn q(limit: Limit) -> QueueConfig {
    QueueConfig {
        limit,
        ecn_k: None,
        non_ect: NonEct::Queue,
    }
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
        start_jitter: Vec::new(),
        pcap_hosts: Vec::new(),
        trace: None,
        limits: Default::default(),
        ties: Default::default(),
        until: Default::default(),
        threads: Default::default(),
        trimming: None,
        pfc: None,
        ecn_ramp: None,
        int: false,
        failures: Vec::new(),
        inert_keys: Vec::new(),
        tcp_written: Vec::new(),
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

pub fn col_str<'a>(r: &'a Results, table: &str, col: &str) -> &'a [std::borrow::Cow<'static, str>] {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::Str(v) => v,
        c => panic!("{col} is not str: {c:?}"),
    }
}

/// Conservation laws every run must satisfy, each comparing two tallies
/// kept by different parts of the simulator (so a lost, invented or
/// doubled packet or byte breaks one): returns what is violated.
///
/// Packets: the arena's live packets equal the packets the links hold;
/// every created packet was offered to a NIC queue; every packet enqueued
/// on a link arrived at its far end or is still on the link; created =
/// delivered + dropped + on links; the core's drops equal the queues'.
/// Bytes: what each receiving application counted equals the transport's
/// in-order bytes (less for a duration flow, whose goodput stops at its
/// deadline) and never exceeds what was written. Completion (the
/// application's own event): every message received, and every written
/// byte delivered and handed up exactly once.
pub fn conservation_problems(r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    let s = |k: &str| r.summary_value(k).unwrap();
    let (created, delivered, dropped) = (
        s("packets_created"),
        s("packets_delivered"),
        s("packets_dropped"),
    );
    let (live, on_links, hops) = (
        s("packets_in_flight"),
        s("packets_on_links"),
        s("packet_hops"),
    );
    let enq = col_u64(r, "queues", "enqueued");
    let qdrop = col_u64(r, "queues", "dropped");
    let qfl = col_u64(r, "queues", "in_flight_pkts");
    let nic = col_bool(r, "queues", "from_host");
    let sum = |v: &[u64]| v.iter().sum::<u64>() as f64;
    if live != on_links {
        out.push(format!(
            "packets: {live} live in the arena but {on_links} on the links"
        ));
    }
    if created != delivered + dropped + on_links {
        out.push(format!(
            "packets: created {created} != delivered {delivered} + dropped {dropped} + on links {on_links}"
        ));
    }
    if dropped != sum(qdrop) {
        out.push(format!(
            "packets: core counted {dropped} drops, the queues {}",
            sum(qdrop)
        ));
    }
    if sum(enq) != hops + sum(qfl) {
        out.push(format!(
            "packets: {} enqueued on links != {hops} arrivals + {} still on links",
            sum(enq),
            sum(qfl)
        ));
    }
    let offered: u64 = (0..enq.len())
        .filter(|&i| nic[i])
        .map(|i| enq[i] + qdrop[i])
        .sum();
    if created != offered as f64 {
        out.push(format!(
            "packets: created {created} != {offered} offered to NIC queues"
        ));
    }
    let app = col_u64(r, "flows", "app_bytes");
    let del = col_u64(r, "flows", "delivered_bytes");
    let rcv = col_u64(r, "flows", "received_bytes");
    let mw = col_u64(r, "flows", "messages_written");
    let mr = col_u64(r, "flows", "messages_received");
    let done = col_bool(r, "flows", "completed");
    let transport = col_str(r, "flows", "transport");
    for i in 0..app.len() {
        if transport[i] != "tcp" {
            continue;
        }
        if rcv[i] > app[i] {
            out.push(format!(
                "flow {i}: the application received {} > written {}",
                rcv[i], app[i]
            ));
        }
        // a sized transfer reports what arrived in order; a duration flow
        // what arrived by its deadline (the application may get more later)
        let sized = mw[i] > 0;
        if (sized && del[i] != rcv[i]) || del[i] > rcv[i] {
            out.push(format!(
                "flow {i}: transport delivered {} in order, the application received {}",
                del[i], rcv[i]
            ));
        }
        if mr[i] > mw[i] {
            out.push(format!(
                "flow {i}: {} messages received > {} written",
                mr[i], mw[i]
            ));
        }
        if done[i] && sized && (mr[i] != mw[i] || rcv[i] != app[i] || del[i] != app[i]) {
            out.push(format!(
                "flow {i}: completed with {}/{} messages, {} delivered, {} received of {} written",
                mr[i], mw[i], del[i], rcv[i], app[i]
            ));
        }
    }
    out
}

/// Asserts [`conservation_problems`] finds nothing.
pub fn check_conservation(r: &Results) {
    let p = conservation_problems(r);
    assert!(p.is_empty(), "conservation violated:\n{}", p.join("\n"));
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
        spacing: SimTime::ZERO,
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

/// Assert one error sits at `path` and its message contains `needle`.
#[track_caller]
pub fn assert_err(errs: &[dcnsim::scenario::ScenarioError], path: &str, needle: &str) {
    assert!(
        errs.iter()
            .any(|e| e.path == path && e.message.contains(needle)),
        "no error at '{path}' containing '{needle}'; got:\n{}",
        errs.iter()
            .map(|e| format!("  {e}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The line the perf examples print: wall time, events and packet-hops,
/// each with its rate.
pub fn rate_line(r: &Results, wall: f64) -> String {
    let ev = r.summary_value("events").unwrap();
    let hops = r.summary_value("packet_hops").unwrap();
    format!(
        "wall {wall:.3}s events {ev} ({:.2} M/s) hops {hops} ({:.2} M/s)",
        ev / wall / 1e6,
        hops / wall / 1e6
    )
}

/// Two runs' tables are the same, cell for cell, compared as printed:
/// unfinished flows' NaNs are equal there, and every other float prints
/// exactly (shortest round-trip form). Names the first column that differs.
#[track_caller]
pub fn assert_same_tables(a: &Results, b: &Results) {
    assert!(!a.tables.is_empty());
    assert_eq!(a.tables.len(), b.tables.len());
    for (x, y) in a.tables.iter().zip(&b.tables) {
        assert_eq!(x.name, y.name);
        for ((n, cx), (_, cy)) in x.columns.iter().zip(&y.columns) {
            assert_eq!(
                format!("{cx:?}"),
                format!("{cy:?}"),
                "table {} column {n}",
                x.name
            );
        }
    }
}

/// TCPRand's Fig. 1 outcast (Lee et al. 2017): k = 4 fat-tree, receiver
/// host 0, senders 1..15 (F1 2 hops, F2:3 4 hops, F4:15 6 hops), one bulk
/// flow each for `secs`, 1 Gbps, 1 us links, 25 us switch delay,
/// 20-packet drop-tail queues, ECMP (the default), CUBIC with RTOmin 2 ms
/// and 1448 + 52 B segments unless `tcp` overrides them; `start_jitter`
/// on every flow when given.
#[allow(dead_code)] // each test binary compiles common.rs; not all use this
pub fn outcast_fig1(
    secs: f64,
    seed: u64,
    tcp: serde_json::Value,
    start_jitter: Option<&str>,
) -> serde_json::Value {
    use serde_json::json;
    let mut t = json!({"cc": "cubic", "mss": 1448, "header": 52, "rto_min": "2ms"});
    for (k, v) in tcp.as_object().expect("tcp overrides are an object") {
        t[k] = v.clone();
    }
    let dur = format!("{secs}s");
    let apps: Vec<serde_json::Value> = (1..16)
        .map(|s| {
            let mut a = json!({"kind": "bulk", "src": s, "dst": 0, "duration": dur});
            if let Some(j) = start_jitter {
                a["start_jitter"] = json!(j);
            }
            a
        })
        .collect();
    json!({
        "name": "fig1", "seed": seed, "stop": dur, "switch_delay": "25us",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "1us", "buffer": "20pkt"},
        "tcp": t,
        "apps": apps,
    })
}

/// Runs a JSON scenario through the public entry point and checks the
/// conservation laws on its results.
#[allow(dead_code)]
pub fn run_checked(doc: &serde_json::Value) -> Results {
    let r = dcnsim::run_json(&doc.to_string(), None).expect("valid scenario");
    check_conservation(&r);
    r
}

/// RoCE's go-back-N through drops (DCQCN's and TIMELY's law): eight 2 MB
/// flows of `tcp` into one 100 Gbps port of 200 KB without PFC (`ecn_k`
/// as given) overflow it, the receiver NACKs each gap and the sender goes
/// back to it, so every byte of every flow is delivered once and every
/// flow completes, under the seeded and the first-in first-out order of
/// ties. Returns the seeded run.
pub fn go_back_n_delivers_every_byte(tcp: serde_json::Value, ecn_k: Option<&str>) -> Results {
    use serde_json::json;
    let mut doc = json!({
        "name": "lossy", "seed": 4, "stop": "1s",
        "topology": {"kind": "star", "hosts": 9, "rate": "100Gbps", "delay": "1us",
                     "buffer": "200KB"},
        "tcp": tcp,
        "apps": (1..=8).map(|s| json!({"kind": "bulk", "src": s, "dst": 0, "size": "2MB"}))
            .collect::<Vec<_>>(),
    });
    if let Some(k) = ecn_k {
        doc["topology"]["ecn_k"] = json!(k);
    }
    let mut runs = Vec::new();
    for ties in ["seeded", "fifo"] {
        doc["ties"] = json!(ties);
        let r = run_checked(&doc);
        assert!(
            r.summary_value("packets_dropped").unwrap() > 0.0,
            "{ties}: the incast overflows 200 KB"
        );
        assert!(col_u64(&r, "flows", "fast_retransmits").iter().sum::<u64>() > 0);
        assert!(col_bool(&r, "flows", "completed").iter().all(|&c| c));
        assert!(col_u64(&r, "flows", "delivered_bytes")
            .iter()
            .all(|&b| b == 2 * 1024 * 1024));
        runs.push(r);
    }
    runs.swap_remove(0)
}

/// `doc` (with `threads = 1`) twice on one thread, then cut into two
/// partitions on two workers: the same tables every time, bytes conserved
/// on two. Returns the one-thread run and the two-thread run's stats.
pub fn same_bits_on_one_thread_and_two(
    doc: &serde_json::Value,
) -> (Results, dcnsim::parallel::ParallelStats) {
    let mut c = dcnsim::scenario::parse_config_str(&doc.to_string()).expect("valid");
    assert_eq!(c.ties, Ties::Seeded);
    let one = dcnsim::run_measured(&c, None, None).expect("runs").0;
    let again = dcnsim::run_measured(&c, None, None).expect("runs").0;
    assert_same_tables(&one, &again);
    std::env::set_var("DCNSIM_FREE_CORES", "8");
    std::env::set_var("DCNSIM_CUT", "always");
    c.threads = Threads::N(2);
    let (two, stats) = dcnsim::run_measured(&c, None, None).expect("runs");
    let st = stats.expect("a partitioned run");
    assert_eq!(st.parts.len(), 2);
    assert_same_tables(&one, &two);
    check_conservation(&two);
    (one, st)
}

/// The switch ports' largest queue (bytes) in the `queue_ts` trace from
/// `from` seconds on.
pub fn max_queue_after(r: &Results, from: f64) -> u64 {
    let t = col_f64(r, "queue_ts", "time_s");
    let b = col_u64(r, "queue_ts", "bytes");
    t.iter()
        .zip(b)
        .filter(|(s, _)| **s >= from)
        .map(|(_, b)| *b)
        .max()
        .unwrap()
}

/// One 4 MiB flow of `tcp` (4,096-byte packets) alone from host 1 to host
/// 0 of a 100 Gbps star (1 µs links, 4 MB ports, `ecn_k`): it completes,
/// and takes the time its wire bytes take at line rate plus the path's
/// latency (under 2 % over it). Returns the run.
pub fn a_lone_flow_at_line_rate(tcp: serde_json::Value, ecn_k: &str) -> Results {
    use serde_json::json;
    let doc = json!({
        "name": "one", "seed": 1, "stop": "10ms",
        "topology": {"kind": "star", "hosts": 2, "rate": "100Gbps", "delay": "1us",
                     "buffer": "4MB", "ecn_k": ecn_k},
        "tcp": tcp,
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "4MB"}],
    });
    let r = run_checked(&doc);
    assert!(col_bool(&r, "flows", "completed")[0]);
    let fct = col_f64(&r, "flows", "fct_s")[0];
    // "4MB" is 4 MiB: 1,024 packets of 4,096 bytes and 40 bytes of header
    // (a star's links add no link-layer bytes)
    let wire = 4_194_304.0 + 1024.0 * 40.0;
    let ideal = wire * 8.0 / 100e9;
    assert!(
        fct > ideal && fct < 1.02 * ideal + 5e-6,
        "FCT {fct} s against {ideal} s at line rate"
    );
    r
}

/// A k = 4 fat-tree (10 Gbps, 1 µs, 400 KB ports, `ecn_k` if given) on one
/// thread, host s sending 1 MB to host s + 5 (mod 16), with `tcp`: the
/// document [`same_bits_on_one_thread_and_two`] cuts.
pub fn k4_shifted_permutation(tcp: serde_json::Value, ecn_k: Option<&str>) -> serde_json::Value {
    use serde_json::json;
    let mut doc = json!({
        "name": "perm", "seed": 3, "stop": "20ms", "threads": 1,
        "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                     "buffer": "400KB"},
        "tcp": tcp,
        "apps": (0..16).map(|s| json!({"kind": "bulk", "src": s, "dst": (s + 5) % 16, "size": "1MB"}))
            .collect::<Vec<_>>(),
    });
    if let Some(k) = ecn_k {
        doc["topology"]["ecn_k"] = json!(k);
    }
    doc
}
