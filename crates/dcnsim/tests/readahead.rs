//! The event loop's read-ahead depth (world.rs, `World::run`) is chosen by
//! the size of the run's state, for speed only: forcing any depth (none,
//! one event ahead, three) must leave every table, scalar and pcap byte the
//! same.

mod common;

use common::assert_same_tables;
use dcnsim::scenario::parse_config;
use dcnsim::stats::results::Results;
use dcnsim::world::World;
use serde_json::json;

fn run_with_threshold(doc: &serde_json::Value, shallow: usize, deep: usize) -> Results {
    let cfg = parse_config(doc).unwrap();
    let mut w = World::new(&cfg);
    w.shallow_readahead_above = shallow;
    w.deep_readahead_above = deep;
    w.run();
    dcnsim::finish(w, 0.0)
}

fn assert_same(doc: serde_json::Value) {
    let deep = run_with_threshold(&doc, 0, 0);
    let shallow = run_with_threshold(&doc, 0, usize::MAX);
    let none = run_with_threshold(&doc, usize::MAX, usize::MAX);
    assert_same_tables(&deep, &shallow);
    assert_same_tables(&deep, &none);
    let scalars = |r: &Results| -> Vec<(String, f64)> {
        r.summary
            .iter()
            .filter(|(k, _)| !k.starts_with("wall"))
            .cloned()
            .collect()
    };
    assert_eq!(scalars(&deep), scalars(&shallow));
    assert_eq!(scalars(&deep), scalars(&none));
    assert_eq!(deep.pcaps, shallow.pcaps);
    assert_eq!(deep.pcaps, none.pcaps);
    let events = deep.summary.iter().find(|(k, _)| k == "events").unwrap().1;
    assert!(
        events > 1e5,
        "too small a run to exercise the loop: {events} events"
    );
}

/// Source-routed ECMP with timers, losses and SACK; every host captured
/// on one run so packets' bytes are compared too.
#[test]
fn depth_changes_nothing_with_source_routes() {
    assert_same(json!({
        "stop": "0.3s",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "20pkt"},
        "tcp": {"cc": "cubic", "sack": true, "rto_min": "2ms"},
        "pcap": {"hosts": [0, 5]},
        "apps": [{"kind": "poisson", "load": 0.7, "cdf": "websearch", "flows": 200}]
    }));
}

/// Per-packet spraying: no source routes, so no hints in the FIFO slots.
#[test]
fn depth_changes_nothing_with_packet_spraying() {
    assert_same(json!({
        "stop": "0.2s",
        "routing": {"mode": "rps"},
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "30pkt"},
        "tcp": {"cc": "dctcp", "rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": 0.6, "cdf": "websearch", "flows": 150}]
    }));
}
