//! Link failures (`[[failures]]`, net/failure.rs): the laws each kind must
//! keep, the black hole that only a new flow label escapes, and the
//! errors a bad entry gets.

mod common;
use common::*;
use dcnsim::stats::results::Results;
use serde_json::{json, Value};

/// h0 — s0 — h1, 1 Gbps, 10 µs links, and `apps`, `failures`.
fn line(apps: Value, failures: Value, stop: &str) -> Value {
    json!({
        "name": "line", "seed": 5, "stop": stop,
        "topology": {"kind": "custom", "buffer": "200pkt",
            "nodes": [{"name": "h0", "kind": "host"}, {"name": "s0", "kind": "switch"},
                      {"name": "h1", "kind": "host"}],
            "links": [{"a": "h0", "b": "s0", "rate": "1Gbps", "delay": "10us"},
                      {"a": "s0", "b": "h1", "rate": "1Gbps", "delay": "10us"}]},
        "apps": apps, "failures": failures,
    })
}

/// The `failures` table's `lost`, and the summary's total, which agree.
fn lost(r: &Results) -> u64 {
    let total: u64 = col_u64(r, "failures", "lost").iter().sum();
    assert_eq!(
        r.summary_value("packets_dropped_failed"),
        Some(total as f64),
        "the summary counts what the table does"
    );
    total
}

/// Down from `at` to `until`, a constant-rate stream loses exactly the
/// packets whose time on the link overlaps the outage: those offered to
/// it from one transit (serialization plus propagation) before `at` until
/// `until`. Nothing else is lost, and every loss is the failure's.
#[test]
fn a_link_down_loses_the_packets_whose_time_on_it_overlaps_the_outage() {
    // 1000-byte datagrams at 100 Mbps: one every 80 µs (wire bytes / rate)
    let apps = json!([{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "100Mbps",
                       "payload": 1000, "stop": "8ms"}]);
    let fail = json!([{"a": "s0", "b": "h1", "direction": "a_to_b", "at": "2ms", "until": "5ms"}]);
    let r = run_checked(&line(apps.clone(), fail, "10ms"));
    let base = run_checked(&line(apps, json!([]), "10ms"));
    assert!(
        base.table("failures").is_none(),
        "no table without failures"
    );
    assert_eq!(base.summary_value("packets_dropped_failed"), None);
    assert_eq!(base.summary_value("packets_dropped"), Some(0.0));
    let wire = col_u64(&r, "queues", "tx_bytes")[0] / col_u64(&r, "queues", "tx_pkts")[0];
    let interval = wire as f64 * 8.0 / 100e6;
    let transit = wire as f64 * 8.0 / 1e9 + 10e-6;
    let span = 3e-3 + transit;
    let n = lost(&r) as f64;
    assert!(
        n >= (span / interval).floor() && n <= (span / interval).ceil(),
        "{n} lost, {span} s of outage and transit at one every {interval} s"
    );
    assert_eq!(r.summary_value("packets_dropped"), Some(n));
    // the stream's other packets all arrive
    let sent = base.summary_value("packets_delivered").unwrap();
    assert_eq!(r.summary_value("packets_delivered"), Some(sent - n));
    assert_eq!(col_u64(&r, "failures", "queue_id"), &[2]);
}

/// The slowed link s0 → h1 (queue 2) carried no more than its 250 Mbps
/// over the run, and at least nine tenths of it.
fn fills_250_mbps_and_no_more(r: &Results) {
    let tx = col_u64(r, "queues", "tx_bytes")[2] as f64 * 8.0;
    let t = r.summary_value("sim_time_s").unwrap();
    assert!(tx <= 250e6 * t * 1.0001, "{tx} bits in {t} s over 250 Mbps");
    assert!(
        tx >= 250e6 * t * 0.9,
        "{tx} bits in {t} s: the flow does not fill 250 Mbps"
    );
}

/// A link slowed to a quarter of its rate carries a quarter: a bulk flow
/// through it fills the slower rate and no more (line rate on a degraded
/// link), and nothing is lost to the failure itself.
#[test]
fn a_slower_link_carries_its_new_rate() {
    let apps = json!([{"kind": "bulk", "src": 0, "dst": 1, "duration": "20ms",
                       "tcp": {"cc": "cubic", "rto_min": "1ms"}}]);
    let fail = json!([{"a": "s0", "b": "h1", "rate": "250Mbps"}]);
    let r = run_checked(&line(apps, fail, "20ms"));
    assert_eq!(lost(&r), 0);
    assert_eq!(col_f64(&r, "failures", "loss"), &[0.0, 0.0]);
    assert_eq!(
        col_u64(&r, "failures", "rate_bps"),
        &[250_000_000, 250_000_000]
    );
    fills_250_mbps_and_no_more(&r);
}

/// A link slowed from 2 ms to 5 ms is its own again from 5 ms: a
/// 100 Mbps stream into a link slowed to 10 Mbps builds a backlog while
/// the window is open, and once it closes that backlog drains at the
/// link's 1 Gbps, not the slower rate (which would take 27 ms more). By
/// `until` plus one packet finishing at the slow rate plus the largest
/// backlog at 1 Gbps the queue holds no more than one packet, and nothing
/// is lost.
#[test]
fn a_slowed_links_backlog_drains_at_its_own_rate_once_restored() {
    let apps = json!([{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "100Mbps",
                       "payload": 1000, "stop": "8ms"}]);
    let fail = json!([{"a": "s0", "b": "h1", "direction": "a_to_b", "rate": "10Mbps",
                       "at": "2ms", "until": "5ms"}]);
    let mut doc = line(apps, fail, "12ms");
    doc["trace"] = json!({"interval": "20us", "queues": "switches"});
    let r = run_checked(&doc);
    assert_eq!(lost(&r), 0);
    assert_eq!(r.summary_value("packets_dropped"), Some(0.0));
    let wire = col_u64(&r, "queues", "tx_bytes")[2] / col_u64(&r, "queues", "tx_pkts")[2];
    let (t, id, b) = (
        col_f64(&r, "queue_ts", "time_s"),
        col_u64(&r, "queue_ts", "queue_id"),
        col_u64(&r, "queue_ts", "bytes"),
    );
    let at = |from: f64, to: f64| -> Vec<u64> {
        (0..t.len())
            .filter(|&i| id[i] == 2 && t[i] >= from && t[i] < to)
            .map(|i| b[i])
            .collect()
    };
    let backlog = *at(0.0, 5e-3).iter().max().unwrap();
    assert!(
        backlog >= 20 * wire,
        "{backlog} B at most while slow: no backlog, the test means nothing"
    );
    let drained = 5e-3 + wire as f64 * 8.0 / 10e6 + backlog as f64 * 8.0 / 1e9 + 20e-6;
    let after = at(drained, 8e-3);
    assert!(!after.is_empty());
    assert!(
        after.iter().all(|&q| q <= wire),
        "from {drained} s the queue still held {:?} B: the backlog drained at the slow rate",
        after.iter().max()
    );
}

/// The same on a port that drops what it cannot mark
/// (`ecn_non_ect = "drop"`): DCTCP holds its queue about the threshold, and
/// a packet that finds it over K is marked and serialized at the slower
/// rate like any other, so the link still carries no more than 250 Mbps
/// (and the flow still fills it).
#[test]
fn a_slower_gated_link_carries_its_new_rate() {
    let apps = json!([{"kind": "bulk", "src": 0, "dst": 1, "duration": "20ms",
                       "tcp": {"cc": "dctcp", "rto_min": "1ms"}}]);
    let fail = json!([{"a": "s0", "b": "h1", "rate": "250Mbps"}]);
    let mut doc = line(apps, fail, "20ms");
    doc["topology"]["ecn_k"] = json!("10pkt");
    doc["topology"]["ecn_non_ect"] = json!("drop");
    let r = run_checked(&doc);
    assert_eq!(lost(&r), 0);
    assert!(
        col_u64(&r, "queues", "marked")[2] > 0,
        "the queue never passed K: the test means nothing"
    );
    fills_250_mbps_and_no_more(&r);
}

/// A gray failure loses each packet with its probability, independently:
/// the count is within four standard deviations of n·p, and a loss is
/// drawn only while the window is open.
#[test]
fn a_lossy_link_loses_its_fraction() {
    let apps = json!([{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "200Mbps",
                       "payload": 1000, "stop": "200ms"}]);
    let fail = json!([{"a": "h0", "b": "s0", "loss": 0.1, "at": "50ms", "until": "150ms"}]);
    let r = run_checked(&line(apps, fail, "210ms"));
    let sent = col_u64(&r, "queues", "tx_pkts")[0] + col_u64(&r, "queues", "dropped")[0];
    // the window holds half the stream
    let offered = sent as f64 * 0.5;
    let n = lost(&r) as f64;
    let sd = (offered * 0.1 * 0.9).sqrt();
    assert!(
        (n - offered * 0.1).abs() <= 4.0 * sd,
        "{n} lost of about {offered} offered at p = 0.1"
    );
    // the stream's other packets all arrive: the losses are all the failure's
    assert_eq!(r.summary_value("packets_dropped"), Some(n));
}

/// The black hole of a fabric whose routing has not converged: a core
/// link goes down for good (a quarter of the paths between pods 0 and 2), ECMP keeps hashing flows onto it, and those
/// flows stall, timing out again and again. With `tcp.txrehash` each
/// timeout draws a new flow label and the receiver, seeing its data again,
/// draws one for its ACKs, so every flow finds a live path and completes
/// (Protective ReRoute's claim).
#[test]
fn only_a_new_flow_label_escapes_a_black_hole() {
    let run = |txrehash: bool| {
        let apps: Vec<Value> = (0..16)
            .map(|s| json!({"kind": "bulk", "src": s, "dst": (s + 8) % 16, "size": "2MB"}))
            .collect();
        run_checked(&json!({
            "name": "hole", "seed": 2, "stop": "1s",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "300pkt", "ecn_k": "20pkt"},
            "tcp": {"cc": "dctcp", "rto_min": "1ms", "rwnd": "100pkt", "txrehash": txrehash},
            "apps": apps,
            "failures": [{"a": "aggr0_0", "b": "core0", "at": "500us"}],
        }))
    };
    let stuck = run(false);
    let done = col_bool(&stuck, "flows", "completed");
    assert!(lost(&stuck) > 0);
    assert!(
        done.iter().any(|&d| !d),
        "some flow must cross a dead link for the test to mean anything"
    );
    for (i, &d) in done.iter().enumerate() {
        if !d {
            assert!(
                col_u64(&stuck, "flows", "timeouts")[i] > 1,
                "flow {i} stalled without timeouts"
            );
        }
    }
    assert!(col_u64(&stuck, "flows", "rehashes").iter().all(|&n| n == 0));
    let moved = run(true);
    assert!(
        col_bool(&moved, "flows", "completed").iter().all(|&d| d),
        "a flow stayed in the black hole with txrehash"
    );
    let rehashes = col_u64(&moved, "flows", "rehashes");
    for (i, &d) in done.iter().enumerate() {
        if !d {
            assert!(rehashes[i] > 0, "flow {i} escaped without a new label");
        }
    }
}

/// Same scenario, same seed: the same bits, lossy draws included.
#[test]
fn failures_are_deterministic() {
    let apps = json!([{"kind": "bulk", "src": 0, "dst": 1, "duration": "10ms",
                       "tcp": {"cc": "newreno", "rto_min": "1ms"}}]);
    let fail = json!([{"a": "s0", "b": "h1", "loss": 0.02},
                      {"a": "h0", "b": "s0", "at": "3ms", "until": "4ms"}]);
    let a = run_checked(&line(apps.clone(), fail.clone(), "10ms"));
    let b = run_checked(&line(apps, fail, "10ms"));
    assert_same_tables(&a, &b);
    assert!(lost(&a) > 0);
}

#[test]
fn bad_failures_are_named() {
    let apps = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}]);
    let errs = |f: Value| {
        dcnsim::scenario::parse_config(&line(apps.clone(), f, "1s")).expect_err("invalid")
    };
    assert_err(
        &errs(json!([{"a": "s1", "b": "h1"}])),
        "failures[0].a",
        "unknown node 's1' (did you mean 's0'?)",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "h1"}])),
        "failures[0].b",
        "no link joins 'h0' and 'h1'",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "s0", "at": "2ms", "until": "1ms"}])),
        "failures[0].until",
        "must be after at",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "s0", "loss": 0}])),
        "failures[0].loss",
        "change nothing",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "s0", "loss": 1, "rate": "1Mbps"}])),
        "failures[0].rate",
        "with loss = 1 the link carries nothing",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "s0", "loss": 1.5}])),
        "failures[0].loss",
        "",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "s0", "direction": "up"}])),
        "failures[0].direction",
        "",
    );
    assert_err(
        &errs(json!([{"b": "s0"}])),
        "failures[0].a",
        "missing required key",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "s0", "until": "5ms"}, {"a": "s0", "b": "h0", "at": "4ms"}])),
        "failures[1]",
        "overlaps failures[0]",
    );
    // one direction each: no overlap
    dcnsim::scenario::parse_config(&line(
        apps.clone(),
        json!([{"a": "h0", "b": "s0", "direction": "a_to_b"}, {"a": "h0", "b": "s0", "direction": "b_to_a", "rate": "1Mbps"}]),
        "1s",
    ))
    .expect("one failure a direction");
    let mut trim = line(apps.clone(), json!([{"a": "h0", "b": "s0"}]), "1s");
    trim["trimming"] = json!({});
    assert_err(
        &dcnsim::scenario::parse_config(&trim).unwrap_err(),
        "failures",
        "[trimming]",
    );
}

/// A fat-tree whose routing has converged around a dead core link
/// (`withdrawn`): ECMP spreads over the paths left, so no packet enters the
/// link, nothing is lost to it and every flow completes without a timeout
/// it caused; the same failure not withdrawn loses packets and stalls flows.
#[test]
fn a_withdrawn_link_carries_nothing_and_costs_no_packet() {
    let run = |withdrawn: bool| {
        let apps: Vec<Value> = (0..16)
            .map(|s| json!({"kind": "bulk", "src": s, "dst": (s + 8) % 16, "size": "2MB"}))
            .collect();
        run_checked(&json!({
            "name": "converged", "seed": 2, "stop": "1s",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "300pkt", "ecn_k": "20pkt"},
            "tcp": {"cc": "dctcp", "rto_min": "1ms", "rwnd": "100pkt"},
            "apps": apps,
            "failures": [{"a": "aggr0_0", "b": "core0", "withdrawn": withdrawn}],
        }))
    };
    let r = run(true);
    assert_eq!(lost(&r), 0);
    let q = col_u64(&r, "failures", "queue_id");
    let offered: Vec<u64> = q
        .iter()
        .map(|&i| {
            col_u64(&r, "queues", "enqueued")[i as usize]
                + col_u64(&r, "queues", "dropped")[i as usize]
        })
        .collect();
    assert_eq!(offered, vec![0, 0], "a withdrawn link was offered packets");
    assert!(col_bool(&r, "flows", "completed").iter().all(|&d| d));
    // pod 0's traffic up through aggr0_0 all goes to core1
    let names = |c: &str| col_str(&r, "queues", c).to_vec();
    let (from, to) = (names("node"), names("to"));
    let tx = col_u64(&r, "queues", "tx_pkts");
    let up = |a: &str, b: &str| {
        (0..tx.len())
            .find(|&i| from[i] == a && to[i] == b)
            .map(|i| tx[i])
            .unwrap()
    };
    assert_eq!(up("aggr0_0", "core0"), 0);
    assert!(up("aggr0_0", "core1") > 0);
    let stuck = run(false);
    assert!(lost(&stuck) > 0);
}

#[test]
fn a_withdrawn_link_must_be_down_from_the_start_between_switches_and_cut_nothing() {
    let ft = |failures: Value| {
        json!({
            "name": "w", "stop": "1ms",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"},
            "apps": [{"kind": "bulk", "src": 0, "dst": 8, "size": "1MB"}],
            "failures": failures,
        })
    };
    let errs = |f: Value| dcnsim::scenario::parse_config(&ft(f)).expect_err("invalid");
    assert_err(
        &errs(json!([{"a": "aggr0_0", "b": "core0", "at": "1ms", "withdrawn": true}])),
        "failures[0].withdrawn",
        "at says otherwise",
    );
    assert_err(
        &errs(json!([{"a": "aggr0_0", "b": "core0", "loss": 0.5, "withdrawn": true}])),
        "failures[0].withdrawn",
        "loss says otherwise",
    );
    // routing converging during the run is what converge is for
    assert_err(
        &errs(json!([{"a": "aggr0_0", "b": "core0", "until": "5ms", "withdrawn": true}])),
        "failures[0].withdrawn",
        "until says otherwise): for routing that converges during the run, give the failure a converge time instead",
    );
    assert_err(
        &errs(json!([{"a": "aggr0_0", "b": "core0", "direction": "a_to_b", "withdrawn": true}])),
        "failures[0].withdrawn",
        "direction",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "edge0_0", "withdrawn": true}])),
        "failures[0].withdrawn",
        "two switches",
    );
    assert_err(
        &errs(json!([{"a": "h0", "b": "edge0_0", "converge": "1ms"}])),
        "failures[0].converge",
        "two switches",
    );
    assert_err(
        &errs(json!([{"a": "aggr0_0", "b": "core0", "loss": 0.1, "converge": "1ms"}])),
        "failures[0].converge",
        "not with loss",
    );
    assert_err(
        &errs(json!([{"a": "aggr0_0", "b": "core0", "withdrawn": true, "converge": "1ms"}])),
        "failures[0].converge",
        "not with withdrawn",
    );
    // both of edge0_0's uplinks: its hosts are cut off
    assert_err(
        &errs(json!([{"a": "edge0_0", "b": "aggr0_0", "withdrawn": true},
                     {"a": "edge0_0", "b": "aggr0_1", "withdrawn": true}])),
        "failures",
        "no path between 'h0' and 'h2'",
    );
    dcnsim::scenario::parse_config(&ft(
        json!([{"a": "edge0_0", "b": "aggr0_0", "withdrawn": true}]),
    ))
    .expect("one uplink of two withdrawn");
}

/// Routing that converges (`converge`): a core link down for good, no new
/// flow labels, and routing withdraws it 5 ms later: the flows ECMP had
/// hashed onto it time out until then and finish after, with nothing lost
/// once routing has moved them; without `converge` they stall. With an
/// end, routing restores the link as long after it, and ECMP uses it
/// again: it carries more than when it stays withdrawn.
#[test]
fn converged_routing_moves_flows_off_a_dead_link_and_back_when_it_returns() {
    let run = |failure: Value, duration: &str, stop: &str| {
        let apps: Vec<Value> = (0..16)
            .map(|s| json!({"kind": "bulk", "src": s, "dst": (s + 8) % 16, "duration": duration}))
            .collect();
        run_checked(&json!({
            "name": "converge", "seed": 2, "stop": stop,
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "300pkt", "ecn_k": "20pkt"},
            "tcp": {"cc": "dctcp", "rto_min": "1ms", "rwnd": "100pkt"},
            "apps": apps,
            "failures": [failure],
        }))
    };
    let hole = json!({"a": "aggr0_0", "b": "core0", "at": "500us"});
    let stuck = run(hole.clone(), "30ms", "40ms");
    let converged = run(
        json!({"a": "aggr0_0", "b": "core0", "at": "500us", "converge": "5ms"}),
        "30ms",
        "40ms",
    );
    let delivered = |r: &Results| col_u64(r, "flows", "delivered_bytes").iter().sum::<u64>();
    assert!(
        lost(&converged) > 0,
        "nothing lost before routing converged"
    );
    assert!(lost(&converged) <= lost(&stuck));
    assert!(delivered(&converged) > delivered(&stuck));
    // every flow moves data after routing converged: none delivers nothing
    let stalled = |r: &Results| {
        col_u64(r, "flows", "delivered_bytes")
            .iter()
            .filter(|&&b| b < 1 << 20)
            .count()
    };
    assert!(
        stalled(&stuck) > 0,
        "some flow must be stuck for the test to mean anything"
    );
    assert_eq!(stalled(&converged), 0);
    // restored 10 ms after it failed, routing takes it back 5 ms after that
    // (both directions: which of them ECMP's hash gives flows is chance)
    let link = |r: &Results| {
        let (from, to) = (col_str(r, "queues", "node"), col_str(r, "queues", "to"));
        let tx = col_u64(r, "queues", "tx_pkts");
        let way = |a: &str, b: &str| {
            (0..tx.len())
                .find(|&i| from[i] == a && to[i] == b)
                .map(|i| tx[i])
                .unwrap()
        };
        way("aggr0_0", "core0") + way("core0", "aggr0_0")
    };
    let back = run(
        json!({"a": "aggr0_0", "b": "core0", "at": "500us", "until": "10ms", "converge": "5ms"}),
        "30ms",
        "40ms",
    );
    assert!(
        link(&back) > link(&converged),
        "{} packets after the link returned, {} without",
        link(&back),
        link(&converged)
    );
}
