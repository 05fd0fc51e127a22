//! The pcap term of the memory estimate (stats/limits.rs, `pcap_bytes`):
//! an upper bound on what the captures of a run really hold (their
//! buffers and the copy returned), and for a capture that runs longer than
//! its flows can be carried, bounded by what the captured hosts' links
//! carry by `stop` — not by the bytes the apps write.

use dcnsim::scenario::parse_config;
use dcnsim::stats::limits::{accounted, estimate};
use serde_json::{json, Value};

fn parse(doc: &Value) -> dcnsim::config::Config {
    parse_config(doc).unwrap_or_else(|e| panic!("{e:?}"))
}

/// What the captures of a run hold at the end (the buffers' capacities,
/// which only grow) plus the copies the result tables take, and the
/// number of records.
fn pcap_held(doc: &Value) -> (u64, u64) {
    let cfg = parse(doc);
    let mut w = dcnsim::guarded_world(&cfg);
    w.run_until(cfg.stop);
    assert!(w.memory_stop.is_none(), "the guard stopped the run");
    let caps = w.captures();
    let copies: usize = caps.iter().map(|c| c.len()).sum();
    let records: u64 = caps.iter().map(|c| c.packets).sum();
    (accounted(&w).pcap as u64 + copies as u64, records)
}

#[track_caller]
fn assert_bounds(name: &str, doc: &Value) {
    let est = estimate(&parse(doc)).pcap;
    let (held, records) = pcap_held(doc);
    eprintln!("{name}: {records} records, {held} B held, estimate {est} B");
    assert!(
        est >= held,
        "{name}: estimate {est} B below the {held} B the captures held"
    );
}

fn star(hosts: u64, nic: &str) -> Value {
    json!({"kind": "star", "hosts": hosts, "rate": "10Gbps", "delay": "2us",
           "buffer": "100pkt", "nic_buffer": nic})
}

/// One flow far larger than its link carries by `stop`, both ends captured.
fn long_bulk(size: &str, stop: &str, rate: &str) -> Value {
    json!({"stop": stop, "threads": 1,
           "topology": {"kind": "star", "hosts": 2, "rate": rate, "delay": "2us", "buffer": "100pkt"},
           "tcp": {"init_cwnd": 10},
           "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": size}],
           "pcap": {"hosts": [0, 1]}})
}

#[test]
fn the_estimate_bounds_what_captures_hold() {
    assert_bounds("long bulk", &long_bulk("1GB", "5ms", "10Gbps"));
    // One host opening 64 flows at once, 10 segments each, into a NIC of
    // 16 packets: most of each first window is recorded and then dropped
    // at the NIC, before the link carries it.
    let apps: Vec<Value> = (1..=64)
        .map(|d| json!({"kind": "bulk", "src": 0, "dst": d % 8 + 1, "size": "2MB"}))
        .collect();
    assert_bounds(
        "outcast into a small NIC",
        &json!({"stop": "3ms", "threads": 1, "topology": star(9, "16pkt"),
                "tcp": {"init_cwnd": 10, "rto_min": "1ms"}, "apps": apps, "pcap": {"hosts": [0]}}),
    );
    assert_bounds(
        "incast at the aggregator",
        &json!({"stop": "20ms", "threads": 1, "topology": star(33, "100pkt"),
                "tcp": {"rto_min": "1ms"},
                "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-32",
                          "response": "64KB", "queries": 5}],
                "pcap": {"hosts": [0, 1]}}),
    );
    for (stop, cc) in [("2ms", "dctcp"), ("20ms", "cubic")] {
        assert_bounds(
            &format!("web-search on a k = 4 fat-tree, {stop}, {cc}, every host"),
            &json!({"stop": stop, "seed": 7, "threads": 1,
                    "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                                 "buffer": "100pkt", "ecn_k": "20pkt"},
                    "tcp": {"cc": cc, "rto_min": "1ms", "init_cwnd": 10},
                    "apps": [{"kind": "poisson", "load": 0.6, "cdf": "websearch"}],
                    "pcap": {"hosts": "0-15"}}),
        );
    }
    // FaST's small segments, and a UDP source faster than its link (its
    // datagrams are recorded before its NIC drops them).
    assert_bounds(
        "FaST segments",
        &json!({"stop": "5ms", "threads": 1,
                "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "2us",
                             "buffer": "100pkt", "ecn_k": "20pkt"},
                "tcp": {"cc": "fast"},
                "apps": [{"kind": "bulk", "src": 0, "dst": 2, "size": "100MB"},
                         {"kind": "bulk", "src": 1, "dst": 2, "size": "100MB"}],
                "pcap": {"hosts": [2]}}),
    );
    // A captured host that sends nothing holds its empty buffer.
    assert_bounds(
        "an idle host",
        &json!({"stop": "1ms", "threads": 1, "topology": star(3, "100pkt"),
                "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "10KB"}],
                "pcap": {"hosts": [0, 2]}}),
    );
    assert_bounds(
        "UDP over its link's rate",
        &json!({"stop": "2ms", "threads": 1, "topology": star(2, "100pkt"),
                "apps": [{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "40Gbps",
                          "payload": 1000}],
                "pcap": {"hosts": [0, 1]}}),
    );
}

/// A capture longer than its flow can be carried is bounded by the link's
/// rate × `stop`: the same for a flow ten times larger, twice as much for
/// twice the time or twice the rate (an estimate that counted the flow's
/// bytes, as before, grew with its size and not with `stop`).
#[test]
fn a_long_capture_is_bounded_by_link_rate_times_time() {
    // the records' part: less the two captures' fixed buffers (the first
    // 64 KiB one and an unfilled chunk each), which no time or rate moves
    let fixed = 2.0 * ((1u64 << 16) as f64 + dcnsim::net::pcap::CHUNK as f64);
    let pcap =
        |size, stop, rate| estimate(&parse(&long_bulk(size, stop, rate))).pcap as f64 - fixed;
    let base = pcap("1GB", "5ms", "10Gbps");
    assert!(base > 0.0);
    assert_eq!(
        base,
        pcap("10GB", "5ms", "10Gbps"),
        "the flow's size past what the link carries"
    );
    for (what, x) in [
        ("twice the time", pcap("1GB", "10ms", "10Gbps")),
        ("twice the rate", pcap("1GB", "5ms", "20Gbps")),
    ] {
        let ratio = x / base;
        assert!(
            (1.9..=2.0).contains(&ratio),
            "{what}: the estimate grew {ratio:.3}x"
        );
    }
    // And it stays a bound on what the longer capture holds.
    let doc = long_bulk("1GB", "10ms", "10Gbps");
    let (held, _) = pcap_held(&doc);
    assert!(estimate(&parse(&doc)).pcap >= held);
    // The apps' bytes still bound a capture shorter than the link could
    // carry: a 100 KB flow's estimate does not grow with `stop`.
    assert_eq!(
        pcap("100KB", "5ms", "10Gbps"),
        pcap("100KB", "50ms", "10Gbps")
    );
}
