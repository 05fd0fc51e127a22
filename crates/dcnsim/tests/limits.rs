//! Limits that protect the machine (crates/dcnsim/src/stats/limits.rs): a
//! scenario whose memory the run-time guard could not stop in time
//! (topology, flows, first windows, trace, pcap) would exhaust the limit,
//! or that would run for days, is rejected before it runs, at the field
//! that drives it, with the estimate in the message; a memory estimate
//! over the limit otherwise warns (the guard stops what really outgrows
//! it); and the estimates really are upper bounds on what runs take.

use dcnsim::scenario::{parse_config, ScenarioError};
use dcnsim::stats::limits::{estimate, Limits};
use serde_json::{json, Value};

fn star(hosts: u64) -> Value {
    json!({"kind": "star", "hosts": hosts, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"})
}

fn doc(topology: Value, apps: Value) -> Value {
    json!({"stop": "1s", "topology": topology, "apps": apps})
}

fn errors(d: &Value) -> Vec<ScenarioError> {
    parse_config(d).expect_err("expected the scenario to be rejected")
}

#[track_caller]
fn assert_one(errs: &[ScenarioError], path: &str, needles: &[&str]) {
    assert!(
        errs.iter()
            .any(|e| e.path == path && needles.iter().all(|n| e.message.contains(n))),
        "no error at {path} containing {needles:?}: {errs:?}"
    );
}

#[test]
fn a_billion_hosts_or_a_hundred_million_links_are_refused_before_building() {
    let d = doc(
        star(1_000_000_000),
        json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB"}]),
    );
    assert!(
        errors(&d).iter().any(|e| e.path.starts_with("topology")),
        "{:?}",
        errors(&d)
    );
    let d = doc(
        json!({"kind": "leaf_spine", "leaves": 10000, "spines": 10000, "hosts_per_leaf": 1,
               "host_rate": "1Gbps", "fabric_rate": "1Gbps", "delay": "1us", "buffer": "10pkt"}),
        json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB"}]),
    );
    assert_one(
        &errors(&d),
        "topology",
        &["100010000 links", "before building"],
    );
}

/// A 10,000-host star incast: one switch with 10,000 inputs would need
/// 10⁸ dense input tallies (an estimate of 42 GB); made as traffic takes
/// them, they are bounded by the flows, and the run fits the default limit.
#[test]
fn a_wide_switch_costs_its_traffic_not_the_square_of_its_ports() {
    let mut d = doc(
        star(10_000),
        json!([{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-9999",
                "response": "10KB", "queries": 2}]),
    );
    d["tcp"] = json!({"rto_min": "10ms"});
    let c = parse_config(&d).unwrap();
    let e = estimate(&c);
    assert!(e.routes < 1 << 30, "routes term {} B", e.routes);
    assert!(e.memory() < Limits::default().memory, "{} B", e.memory());
    // Per-packet routing may take any (egress, input) pair: the square,
    // over the limit. Those tallies are made as traffic takes them (the
    // run-time guard sees them grow), so the estimate warns at `topology`.
    d["routing"] = json!({"mode": "rps"});
    let c = parse_config(&d).expect("made as traffic takes them: not refused");
    assert!(estimate(&c).memory() > Limits::default().memory);
    let w = dcnsim::scenario::warnings(&c);
    assert!(
        w.iter()
            .any(|e| e.path == "topology" && e.message.contains("may need up to about")),
        "{w:?}"
    );
}

#[test]
fn the_topology_term_names_the_topology() {
    // A k = 16 fat-tree (1,024 hosts, 3,072 links) against a 1 MB limit.
    let mut d = doc(
        json!({"kind": "fat_tree", "k": 16, "rate": "1Gbps", "delay": "1us", "buffer": "10pkt"}),
        json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB"}]),
    );
    d["limits"] = json!({"memory": "1MB"});
    assert_one(
        &errors(&d),
        "topology",
        &[
            "MB of memory",
            "1 MB limit",
            "nodes, links and routing tables",
        ],
    );
    d["limits"] = json!({"memory": "64MB"});
    parse_config(&d).unwrap();
}

#[test]
fn huge_window_on_a_duration_flow_is_rejected_at_the_window() {
    let mk = |tcp: Value| {
        let mut d = doc(
            star(2),
            json!([{"kind": "bulk", "src": 0, "dst": 1, "duration": "1s"}]),
        );
        d["tcp"] = tcp;
        d
    };
    // rwnd binds: the sender may put rwnd/mss segments on its scoreboard at once.
    assert_one(
        &errors(&mk(
            json!({"init_cwnd": 4_000_000_000u64, "rwnd": "1000GB"}),
        )),
        "tcp.rwnd",
        &[
            "GB of memory that the run-time guard could not stop",
            "first windows",
        ],
    );
    // With an effectively unlimited rwnd, the initial window binds.
    assert_one(
        &errors(&mk(
            json!({"init_cwnd": 4_000_000_000u64, "rwnd": "1000000GB"}),
        )),
        "tcp.init_cwnd",
        &[
            "GB of memory that the run-time guard could not stop",
            "first windows",
        ],
    );
    // The same window is fine when the flow is small: it cannot send more than it writes.
    let mut small = mk(json!({"init_cwnd": 4_000_000_000u64, "rwnd": "1000GB"}));
    small["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}]);
    parse_config(&small).unwrap();
}

/// Trace columns grow by doubling, one step of which can jump past the
/// limit between two looks of the guard: a trace too fine is refused.
#[test]
fn a_trace_too_fine_for_the_run_is_rejected_and_the_limit_can_be_raised() {
    let mut d = doc(
        star(2),
        json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB"}]),
    );
    d["stop"] = json!("100s");
    d["trace"] = json!({"interval": "1ns", "flows": true});
    assert_one(
        &errors(&d),
        "trace.interval",
        &["TB of memory", "trace samples"],
    );
    d["limits"] = json!({"memory": "10000TB"});
    parse_config(&d).unwrap();
}

#[test]
fn days_of_events_are_rejected_at_stop() {
    let mut d = doc(
        star(2),
        json!([{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "10Gbps"}]),
    );
    // 23 simulated days of a 10 Gbps stream: ~2·10¹² packet hops.
    d["stop"] = json!("2000000s");
    assert_one(&errors(&d), "stop", &["events", "hours", "limits.events"]);
    d["limits"] = json!({"events": 1e18});
    parse_config(&d).unwrap();
}

#[test]
fn a_small_events_limit_reads_in_seconds_not_zero_hours() {
    let mut d = doc(
        star(2),
        json!([{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "10Gbps"}]),
    );
    d["stop"] = json!("1s");
    d["limits"] = json!({"events": 1000});
    let errs = errors(&d);
    assert_one(&errs, "stop", &["events", " s)", "limits.events"]);
    assert!(
        !errs.iter().any(|e| e.message.contains("0.0 hours")),
        "{errs:?}"
    );
}

#[test]
fn a_size_beyond_what_stop_leaves_room_for_costs_what_stop_does() {
    // 1,000 TB on a 10 Gbps link in 1 µs: at most a window goes out, so
    // the run is tiny and runs.
    let mut d = doc(
        star(3),
        json!([{"kind": "bulk", "src": 1, "dst": 0, "size": "1000TB"}]),
    );
    d["stop"] = json!("1us");
    parse_config(&d).unwrap();
    // The same bytes at 100 Gbps over 28 hours could all be sent: the
    // app's bytes bound the events, and the error says so at the app.
    d["stop"] = json!("100000s");
    d["topology"]["rate"] = json!("100Gbps");
    let errs = errors(&d);
    assert_one(
        &errs,
        "apps[0]",
        &["events", "apps[0]'s bytes bound it", "limits.events"],
    );
    assert!(!errs.iter().any(|e| e.path == "stop"), "{errs:?}");
}

#[test]
fn rounds_beyond_what_stop_leaves_room_for_cost_no_memory() {
    use dcnsim::stats::limits::warnings;
    let mut d = doc(
        star(9),
        json!([{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "32KB", "blocks": 100_000_000u64}]),
    );
    d["stop"] = json!("1ms");
    d["limits"] = json!({"memory": "1GB"});
    let c = parse_config(&d).unwrap();
    assert!(
        warnings(&c, &c.limits).is_empty(),
        "{:?}",
        warnings(&c, &c.limits)
    );
    // Given the time, a hundred million blocks' rows are the app's cost.
    d["stop"] = json!("100000s");
    let c = parse_config(&d).unwrap();
    let w = warnings(&c, &c.limits);
    assert!(
        w.iter()
            .any(|(path, m)| path == "apps[0]" && m.contains("round tables")),
        "{w:?}"
    );
}

#[test]
fn bad_limits_name_the_field() {
    let mut d = doc(
        star(2),
        json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB"}]),
    );
    d["limits"] = json!({"memory": "lots", "events": -1, "cpu": 1});
    let errs = errors(&d);
    assert_one(&errs, "limits.memory", &["expected a size"]);
    assert_one(&errs, "limits.events", &["whole number"]);
    assert_one(&errs, "limits.cpu", &["unknown key"]);
}

/// The events estimate bounds real runs from above (and not absurdly).
#[test]
fn event_estimates_bound_real_runs() {
    let runs = [
        json!({"stop": "2s", "topology": {"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "20us", "buffer": "16KB"},
               "tcp": {"mss": 1024, "rto_min": "1ms"},
               "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "32KB", "blocks": 5}]}),
        json!({"stop": "50ms", "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "30pkt"},
               "tcp": {"cc": "dctcp"}, "routing": {"mode": "rps"},
               "apps": [{"kind": "bulk", "src": 0, "dst": 15, "duration": "40ms"},
                        {"kind": "bulk", "src": 3, "dst": 9, "size": "200KB"},
                        {"kind": "udp_cbr", "src": 5, "dst": 6, "rate": "100Mbps"}]}),
        json!({"stop": "100ms", "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "50pkt"},
               "tcp": {"rto_min": "2ms"},
               "apps": [{"kind": "poisson", "load": 0.5, "cdf": "websearch", "duration": "50ms"}]}),
        // many rounds of one-byte messages: packets set by round trips, not
        // by line rate in full segments
        json!({"stop": "10ms", "topology": {"kind": "star", "hosts": 6, "rate": "1Gbps", "delay": "100ns", "buffer": "1MB"},
               "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-5", "sru": "1B", "request": "1B",
                         "blocks": 1_000_000_000u64}]}),
        json!({"stop": "20ms", "topology": {"kind": "star", "hosts": 2, "rate": "100Mbps", "delay": "10ns", "buffer": "1MB"},
               "apps": [{"kind": "sync_reads", "client": 0, "servers": [1], "sru": "1B", "request": "1B", "blocks": 2000}]}),
        // sizes far beyond what `stop` leaves room for: bounded by the time
        json!({"stop": "20ms", "topology": {"kind": "star", "hosts": 5, "rate": "1Gbps", "delay": "10us", "buffer": "64KB"},
               "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "100GB"},
                        {"kind": "bulk", "src": 2, "dst": 0, "size": "100GB"},
                        {"kind": "bulk", "src": 3, "dst": 4, "size": "100GB"}]}),
    ];
    for d in &runs {
        let c = parse_config(d).unwrap();
        let e = estimate(&c);
        let r = dcnsim::run(&c);
        let events = r.summary_value("events").unwrap();
        assert!(
            events <= e.events as f64,
            "{events} events > estimate {}",
            e.events
        );
        assert!(e.memory() < Limits::default().memory / 100);
    }
}

/// The pcap estimate bounds what a capture really holds.
#[test]
fn pcap_estimate_bounds_the_capture() {
    let d = json!({"stop": "60ms", "pcap": {"hosts": [0, 3]},
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "50pkt"},
        "tcp": {"rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": 0.5, "cdf": "websearch", "duration": "40ms"},
                 {"kind": "bulk", "src": 0, "dst": 5, "size": "300KB"}]});
    let c = parse_config(&d).unwrap();
    let e = estimate(&c);
    let r = dcnsim::run(&c);
    let bytes: usize = r.pcaps.iter().map(|(_, b)| b.len()).sum();
    assert!(
        bytes > 0 && bytes as u64 <= e.pcap,
        "{bytes} B of pcap > estimate {}",
        e.pcap
    );
}

/// Each term of the memory estimate bounds the structures it stands for,
/// as the world accounts them (capacities) at every step of real runs:
/// routes and tables, packets, flows with their windows and timers, trace
/// and pcap; loss logs are left to the run-time guard.
#[test]
fn each_memory_term_bounds_what_it_stands_for() {
    let runs = [
        // Many coexisting tiny flows.
        json!({"stop": "60s", "topology": {"kind": "fat_tree", "k": 2, "rate": "1Gbps", "delay": "5us", "buffer": "5pkt"},
               "tcp": {"mss": 1000, "rto_min": "1ms", "rto_init": "3ms", "rto_max": "8ms", "rwnd": "32pkt"},
               "trace": {"interval": "100us", "flows": false, "queues": "all"},
               "apps": [{"kind": "poisson", "load": 0.5, "cdf": [[1, 0], [2, 1]], "duration": "2ms", "flows": 5000}]}),
        // A large incast into a deep buffer.
        json!({"stop": "2s", "topology": {"kind": "star", "hosts": 33, "rate": "1Gbps", "delay": "20us", "buffer": "1MB"},
               "tcp": {"rto_min": "1ms", "rwnd": "1000pkt"}, "pcap": {"hosts": [0]},
               "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-32", "sru": "128KB", "blocks": 2}]}),
        // A switch wider than WIDE_SWITCH_INPUTS: its input tallies are
        // made as traffic takes them, bounded by the flows through it.
        json!({"stop": "0.2s", "topology": {"kind": "star", "hosts": 300, "rate": "1Gbps", "delay": "10us", "buffer": "64KB"},
               "tcp": {"rto_min": "2ms"},
               "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-298", "response": "4KB", "queries": 2},
                        {"kind": "udp_cbr", "src": 299, "dst": 1, "rate": "100Mbps"}]}),
        // A fat-tree under web-search load with flowlets.
        json!({"stop": "60ms", "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "50pkt"},
               "routing": {"mode": "flowlet", "flowlet_gap": "50us"},
               "trace": {"interval": "1ms", "flows": true},
               "apps": [{"kind": "poisson", "load": 0.6, "cdf": "websearch", "duration": "30ms"},
                        {"kind": "udp_cbr", "src": 1, "dst": 2, "rate": "200Mbps"}]}),
    ];
    for d in &runs {
        let c = parse_config(d).unwrap();
        let e = estimate(&c);
        let mut w = dcnsim::world::World::new(&c);
        let mut max = dcnsim::stats::limits::Accounted::default();
        let mut t = dcnsim::sim::time::SimTime::ZERO;
        loop {
            t += dcnsim::sim::time::SimTime::from_us(50);
            let more = w.run_until(t);
            let a = dcnsim::stats::limits::accounted(&w);
            max.fixed = max.fixed.max(a.fixed);
            max.packets = max.packets.max(a.packets);
            max.flows = max.flows.max(a.flows + a.flow_buffers + a.events + a.apps);
            max.trace = max.trace.max(a.trace);
            max.pcap = max.pcap.max(a.pcap);
            if !more || t >= c.stop {
                break;
            }
        }
        let terms = [
            ("tables", max.fixed as u64, e.routes),
            ("packets", max.packets as u64, e.packets),
            ("flows", max.flows as u64, e.flows + e.windows),
            ("trace", max.trace as u64, e.trace),
            ("pcap", max.pcap as u64, e.pcap),
        ];
        for (name, got, bound) in terms {
            assert!(got <= bound, "{name}: {got} B > estimate {bound} B\n{d}");
        }
        let r = dcnsim::finish(w, 0.0);
        let flows = r.table("flows").unwrap();
        assert!(flows.columns.len() <= dcnsim::stats::report::FLOW_COLUMNS_MAX);
        let strs = flows
            .columns
            .iter()
            .filter(|(_, c)| matches!(c, dcnsim::stats::results::Column::Str(_)))
            .count();
        assert!(strs <= dcnsim::stats::report::FLOW_STR_COLUMNS_MAX);
        // The other tables' rows as limits.rs counts them: `queues` at most
        // 32 numeric cells and 2 names, `queue_inputs` 16 and 3.
        for (table, numeric, names) in [("queues", 32, 2), ("queue_inputs", 16, 3)] {
            let t = r.table(table).unwrap();
            let strs = t
                .columns
                .iter()
                .filter(|(_, c)| matches!(c, dcnsim::stats::results::Column::Str(_)))
                .count();
            assert!(
                strs <= names && t.columns.len() - strs <= numeric,
                "{table}"
            );
        }
    }
}

/// A Poisson load's arrivals end at the run's `stop` when it comes before
/// the load's `duration`: the estimate counted the whole duration, so a
/// 5 s load cut at 10 ms was refused as 78 GB (audit of 2026-12-07), and
/// cutting `stop` short to fit the limit changed nothing. The estimate of
/// a load cut by `stop` is that of a load of `stop`'s length.
#[test]
fn a_poisson_load_cut_by_stop_costs_what_stop_leaves() {
    let topo =
        json!({"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"});
    let load = |duration: &str| json!([{"kind": "poisson", "load": 0.5, "cdf": "websearch", "duration": duration}]);
    let est = |duration: &str, stop: &str| {
        let mut d = doc(topo.clone(), load(duration));
        d["stop"] = json!(stop);
        estimate(&parse_config(&d).unwrap_or_else(|e| panic!("{e:?}")))
    };
    let (cut, short) = (est("5s", "10ms"), est("10ms", "10ms"));
    assert_eq!((cut.flows, cut.events), (short.flows, short.events));
    assert_eq!(cut.memory(), short.memory());
    // and a longer stop than the load's duration adds no arrival
    assert_eq!(est("10ms", "1s").flows, short.flows);
    assert!(est("5s", "5s").memory() > cut.memory());
    // a refusal names what bounds the arrivals: `stop` when it comes
    // first, the load's duration otherwise (it named the duration, which
    // changed nothing)
    let refused = |duration: &str, stop: &str| {
        let mut d = doc(topo.clone(), load(duration));
        d["stop"] = json!(stop);
        d["limits"] = json!({"memory": "2MB"});
        errors(&d)
    };
    let e = refused("5s", "2s");
    assert!(e.iter().any(|e| e.path == "stop"), "{e:?}");
    assert!(!e.iter().any(|e| e.path == "apps[0].duration"), "{e:?}");
    let e = refused("2s", "5s");
    assert!(e.iter().any(|e| e.path == "apps[0].duration"), "{e:?}");
}
