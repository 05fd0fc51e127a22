//! HPCC over in-band telemetry (tcp/hpcc.rs, net/int.rs): the laws of
//! issue 47 on whole runs, each beside the same run with the telemetry
//! taken away (`Config::int` off, which the scenario parser refuses for
//! HPCC flows: the senders then never see a record, and their windows stay
//! at W_init = line rate × T), so the law is seen to depend on it.

mod common;
use common::*;
use dcnsim::stats::results::Results;

const STOP_S: f64 = 0.004;

/// Two long HPCC flows from other pods into host 0 of a k = 4 fat-tree
/// (100 Gbps, 1 µs links, 9,000-byte packets with 64-byte headers, 1 MB
/// ports): host 0's ToR port is the bottleneck.
fn config(eta: f64, int: bool) -> dcnsim::config::Config {
    let doc = format!(
        r#"{{"name": "hpcc", "seed": 3, "stop": "4ms",
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "1us",
                          "buffer": "1MB", "nic_buffer": "unlimited"}},
            "tcp": {{"transport": "hpcc", "mss": 9000, "header": 64, "hpcc_eta": {eta}}},
            "trace": {{"interval": "100us", "queues": "switches"}},
            "apps": [{{"kind": "bulk", "src": 4, "dst": 0, "duration": "1s"}},
                     {{"kind": "bulk", "src": 8, "dst": 0, "duration": "1s"}}]}}"#
    );
    let mut cfg = dcnsim::scenario::parse_config_str(&doc).expect("a valid scenario");
    assert!(cfg.int, "HPCC turns telemetry on");
    cfg.int = int;
    cfg
}

/// The bottleneck's utilisation (wire bytes over line rate) and the
/// largest switch queue in packets, over the second half of the run.
fn second_half(r: &Results) -> (f64, u64) {
    let t = col_f64(r, "flow_ts", "time_s");
    let d = col_u64(r, "flow_ts", "delivered_bytes");
    let at = |x: f64| -> u64 {
        t.iter()
            .zip(d)
            .filter(|(s, _)| (**s - x).abs() < 1e-9)
            .map(|(_, b)| *b)
            .sum()
    };
    let bytes = (at(STOP_S) - at(STOP_S / 2.0)) as f64 * 9064.0 / 9000.0;
    let util = bytes * 8.0 / (STOP_S / 2.0) / 100e9;
    let qt = col_f64(r, "queue_ts", "time_s");
    let qp = col_u64(r, "queue_ts", "pkts");
    let q = qt
        .iter()
        .zip(qp)
        .filter(|(s, _)| **s >= STOP_S / 2.0)
        .map(|(_, p)| *p)
        .max()
        .unwrap();
    (util, q)
}

/// Utilisation holds within 5 % of η with a queue of a few packets, at
/// η = 0.95 and at η = 0.8; without telemetry the same flows keep the
/// bottleneck busy all the time and queue a bandwidth-delay product.
#[test]
fn utilisation_tracks_eta_only_with_telemetry() {
    for eta in [0.95, 0.8] {
        let (util, q) = second_half(&dcnsim::run(&config(eta, true)));
        assert!(
            (util - eta).abs() <= 0.05 * eta,
            "η = {eta}: utilisation {util:.4}"
        );
        assert!(q <= 3, "η = {eta}: {q} packets queued");
        let (util, q) = second_half(&dcnsim::run(&config(eta, false)));
        assert!(util > 0.99, "η = {eta} without INT: utilisation {util:.4}");
        assert!(q > 10, "η = {eta} without INT: only {q} packets queued");
    }
}

/// `hpcc_u_init`: U's value before the first telemetry. A flow alone on
/// its path sees u′ near its own utilisation, under η; started at 0 its
/// U stays under η and its window at W_init, so it runs at line rate;
/// started at 1 (the HPCC authors' ns-3) U is above η for its first
/// rounds, every update divides the window by U/η, and the same transfer
/// takes longer. With U at η (htsim's start) the first update leaves the
/// window where it is.
#[test]
fn u_init_sets_where_the_first_rounds_start() {
    let fct = |u: f64| {
        let doc = serde_json::json!({
            "name": "u", "seed": 1, "stop": "10ms",
            "topology": {"kind": "star", "hosts": 2, "rate": "100Gbps", "delay": "1us",
                         "buffer": "4MB"},
            "tcp": {"transport": "hpcc", "mss": 4096, "hpcc_u_init": u},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "4MB"}],
        });
        let r = run_checked(&doc);
        assert!(col_bool(&r, "flows", "completed")[0]);
        col_f64(&r, "flows", "fct_s")[0]
    };
    let (zero, eta, one) = (fct(0.0), fct(0.95), fct(1.0));
    // (a few µs of 360: U meets the flow's own u′ within a few packets)
    assert!(one > zero, "U from 1: {one} s against {zero} s from 0");
    assert!(eta <= one && eta >= zero, "{zero} ≤ {eta} ≤ {one}");
}

/// HPCC flows in pod 2 share no link with an NDP flow under edge0_0, so
/// they run as without it: the same window updates and completion times.
/// NDP's data carry the framing INT records are written on, and ids an
/// NDP packet left its hops on were read by the next HPCC packet (836
/// window updates against 1,430 alone).
#[test]
fn an_ndp_flow_elsewhere_changes_no_hpcc_flow() {
    let doc = |ndp: bool| {
        let mut apps = vec![
            serde_json::json!({"kind": "bulk", "src": 8, "dst": 12, "size": "1MB", "tcp": {"transport": "hpcc"}}),
            serde_json::json!({"kind": "bulk", "src": 9, "dst": 12, "size": "1MB", "tcp": {"transport": "hpcc"}}),
        ];
        if ndp {
            apps.push(
                serde_json::json!({"kind": "bulk", "src": 0, "dst": 1, "size": "2MB",
                                         "tcp": {"transport": "ndp"}}),
            );
        }
        serde_json::json!({"name": "hpcc-beside-ndp", "stop": "20ms", "threads": 1,
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "200KB"},
            "apps": apps})
    };
    let (alone, beside) = (run_checked(&doc(false)), run_checked(&doc(true)));
    assert_eq!(
        alone.summary_value("hpcc_window_updates"),
        beside.summary_value("hpcc_window_updates")
    );
    assert_eq!(
        col_f64(&alone, "flows", "fct_s")[..2],
        col_f64(&beside, "flows", "fct_s")[..2]
    );
}
