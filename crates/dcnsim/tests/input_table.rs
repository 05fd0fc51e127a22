//! Per-input-port tallies (`queue_inputs`) kept two ways: a dense slot per
//! (egress, input) pair, or, at a switch wider than
//! `world::WIDE_SWITCH_INPUTS`, a slot made when a packet first takes the
//! pair. Forcing every switch to either kind must give the same run.

mod common;

use common::assert_same_tables;
use dcnsim::scenario::parse_config;
use dcnsim::stats::results::Results;
use dcnsim::world::World;
use serde_json::{json, Value};

fn run(doc: &Value, wide_inputs: usize) -> Results {
    let cfg = parse_config(doc).unwrap();
    let mut w = World::with_wide_switch_inputs(&cfg, wide_inputs);
    w.run();
    dcnsim::finish(w, 0.0)
}

fn assert_same(doc: Value) {
    let wide = run(&doc, 0);
    let dense = run(&doc, usize::MAX);
    assert_same_tables(&wide, &dense);
    let inputs = wide.table("queue_inputs").unwrap();
    let dropped = inputs.columns.iter().find(|(n, _)| n == "dropped").unwrap();
    match &dropped.1 {
        dcnsim::stats::results::Column::U64(v) => {
            assert!(
                v.len() > 10 && v.iter().any(|&d| d > 0),
                "no input saw drops: {v:?}"
            )
        }
        c => panic!("dropped is not u64: {c:?}"),
    }
}

/// An incast through one switch, with drops, plus a UDP flow: source
/// routes intern their slots, and the drops fold route tallies into slots.
#[test]
fn incast_on_a_star() {
    assert_same(json!({
        "stop": "0.5s",
        "topology": {"kind": "star", "hosts": 40, "rate": "1Gbps", "delay": "10us", "buffer": "32KB"},
        "tcp": {"rto_min": "2ms"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-38",
                  "response": "20KB", "queries": 5},
                 {"kind": "udp_cbr", "src": 39, "dst": 0, "rate": "100Mbps"}]
    }));
}

/// Per-packet spraying routes from the tables at every hop: slots are
/// looked up (and made) per packet.
#[test]
fn packet_spraying_on_a_fat_tree() {
    assert_same(json!({
        "stop": "0.2s",
        "routing": {"mode": "rps"},
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "20pkt"},
        "tcp": {"rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": 0.7, "cdf": "websearch", "flows": 150}]
    }));
}
