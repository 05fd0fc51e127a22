//! BBR (tcp/cc/bbr.rs) on whole runs: the laws its model keeps, each
//! against a run where it would fail without the mechanism (CUBIC on the
//! same path): a lone flow fills the bottleneck while its queue stays
//! within its window less one BDP; flows of one path share it; an incast
//! over a shallow buffer loses packets and still delivers every byte, the
//! same bits on every run.

mod common;
use common::*;
use dcnsim::stats::results::Results;
use serde_json::{json, Value};

/// `n` servers on 10 Gbps links and a client on a `bottleneck` link into
/// one switch, every link `delay` one way; the client's port holds
/// `buffer`; `profile = "linux"` with `cc`; `apps` as given.
fn path(
    n: usize,
    bottleneck: &str,
    delay: &str,
    buffer: &str,
    cc: &str,
    apps: Value,
    stop: &str,
) -> Value {
    let mut nodes = vec![
        json!({"name": "sw", "kind": "switch"}),
        json!({"name": "c", "kind": "host"}),
    ];
    let mut links =
        vec![json!({"a": "c", "b": "sw", "rate": bottleneck, "delay": delay, "buffer": buffer})];
    for i in 1..=n {
        nodes.push(json!({"name": format!("s{i}"), "kind": "host"}));
        links.push(json!({"a": format!("s{i}"), "b": "sw", "rate": "10Gbps", "delay": delay}));
    }
    json!({
        "name": "bbr", "seed": 3, "stop": stop,
        "topology": {"kind": "custom", "buffer": "2000pkt", "nodes": nodes, "links": links},
        "tcp": {"profile": "linux", "cc": cc},
        "trace": {"interval": "1ms", "queues": "switches"},
        "apps": apps,
    })
}

fn bulk(n: usize) -> Value {
    json!((1..=n)
        .map(|s| json!({"kind": "bulk", "src": s, "dst": 0, "duration": "10s"}))
        .collect::<Vec<_>>())
}

/// The client port's queue samples (packets) after `from` seconds.
fn queue_after(r: &Results, from: f64) -> Vec<u64> {
    // the switch's first queue is its port toward the client (the first
    // link listed)
    let id = col_u64(r, "queues", "queue_id");
    let node = col_str(r, "queues", "node");
    let hot = id
        .iter()
        .zip(node)
        .find(|(_, n)| n.as_ref() == "sw")
        .map(|(i, _)| *i)
        .unwrap();
    let t = col_f64(r, "queue_ts", "time_s");
    let q = col_u64(r, "queue_ts", "queue_id");
    let p = col_u64(r, "queue_ts", "pkts");
    t.iter()
        .zip(q)
        .zip(p)
        .filter(|((t, q), _)| **t >= from && **q == hot)
        .map(|(_, p)| *p)
        .collect()
}

fn goodputs(r: &Results) -> Vec<f64> {
    col_f64(r, "flows", "goodput_bps").to_vec()
}

/// One flow on an idle 100 Mbps path of a 4 ms RTT (BDP ≈ 35 packets)
/// with a 2,000-packet port: BBR fills the link (≥ 90 %) and, once its
/// STARTUP queue is drained, never queues more than its window allows
/// beyond one BDP: cwnd = 2 BDP + three TSO bursts (8 segments each at this
/// rate) + 2 to round up, 2 more while probing, so at most BDP + 28
/// packets wait. CUBIC on the same path
/// fills the link too, but by queueing: its queue passes BBR's bound.
#[test]
fn a_lone_flow_fills_the_link_and_queues_no_more_than_its_window_beyond_one_bdp() {
    let run = |cc: &str| run_checked(&path(1, "100Mbps", "1ms", "2000pkt", cc, bulk(1), "400ms"));
    let (bbr, cubic) = (run("bbr"), run("cubic"));
    // 4 one-way 1 ms links and a 1514-byte frame at 100 Mbps per hop
    let rtt: f64 = 4e-3 + 2.0 * 1514.0 * 8.0 / 100e6;
    let bdp = (100e6 / 8.0 * rtt / 1448.0).ceil();
    let bound = bdp + 3.0 * 8.0 + 4.0;
    let g = goodputs(&bbr)[0];
    assert!(g >= 0.9 * 100e6 * 1448.0 / 1514.0, "BBR goodput {g}");
    assert_eq!(
        col_u64(&bbr, "flows", "retransmits")[0],
        0,
        "nothing was lost"
    );
    let q = queue_after(&bbr, 0.1);
    let max = *q.iter().max().unwrap() as f64;
    assert!(
        max <= bound,
        "BBR queued {max} packets, bound {bound} (BDP {bdp})"
    );
    let cq = *queue_after(&cubic, 0.1).iter().max().unwrap() as f64;
    assert!(
        cq > bound,
        "CUBIC queued only {cq}: the test would not tell them apart"
    );
}

/// Two BBR flows over one bottleneck share it: Jain's index of their
/// goodputs ≥ 0.9 and together ≥ 90 % of the link.
#[test]
fn two_flows_share_the_bottleneck() {
    let r = run_checked(&path(
        2,
        "100Mbps",
        "1ms",
        "2000pkt",
        "bbr",
        bulk(2),
        "600ms",
    ));
    let g = goodputs(&r);
    let sum: f64 = g.iter().sum();
    let jain = sum * sum / (2.0 * g.iter().map(|x| x * x).sum::<f64>());
    assert!(jain >= 0.9, "goodputs {g:?}, Jain {jain}");
    assert!(sum >= 0.9 * 100e6 * 1448.0 / 1514.0, "together {sum}");
}

/// The kernel lab's incast (validation/linux_lab): eight servers answer
/// five 256 KB blocks each through a 32-packet port at 100 Mbps. BBR
/// loses packets there (every PROBE_BW probe and the STARTUP overshoot land
/// in a queue a few packets deep) and recovers them: every block arrives,
/// every byte is accounted for, with and without SACK, and the run is the
/// same bits twice.
#[test]
fn an_incast_over_a_shallow_port_loses_packets_and_delivers_every_block() {
    for sack in [true, false] {
        let apps = json!([{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "256KB",
                           "blocks": 5}]);
        let mut doc = path(8, "100Mbps", "20us", "32pkt", "bbr", apps, "60s");
        doc["tcp"]["sack"] = json!(sack);
        doc["tcp"]["rto_min"] = json!("10ms");
        let r = run_checked(&doc);
        let blocks = col_u64(&r, "blocks", "block");
        assert_eq!(blocks.len(), 5, "sack {sack}: every block completes");
        let drops: u64 = col_u64(&r, "queues", "dropped").iter().sum();
        assert!(drops > 0, "sack {sack}: a 32-packet port must drop here");
        let again = run_checked(&doc);
        assert_same_tables(&r, &again);
    }
}

/// Bad combinations are refused with the key and the reason.
#[test]
fn bbr_refuses_what_it_cannot_run_with() {
    for (key, value, needle) in [
        ("probretx_p", json!(0.1), "paces"),
        ("segment", json!("tcprand"), "segments of mss"),
        ("hystart", json!("rfc9406"), "STARTUP"),
    ] {
        let mut doc = path(1, "100Mbps", "1ms", "100pkt", "bbr", bulk(1), "10ms");
        doc["tcp"][key] = value;
        let errs = dcnsim::run_json(&doc.to_string(), None).expect_err("refused");
        let text = format!("{errs:?}");
        assert!(text.contains(key) && text.contains(needle), "{key}: {text}");
    }
}
