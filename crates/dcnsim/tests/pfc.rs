//! Priority flow control (`[pfc]`, net/pfc.rs): the laws a lossless fabric
//! keeps (nothing lost, every byte delivered once, an ingress held near
//! `xoff`), what it costs (head-of-line blocking of a flow that shares a
//! paused link), and the errors a bad table gets.

mod common;
use common::*;
use dcnsim::stats::results::Results;
use serde_json::{json, Value};

/// A star incast: `n` workers answer 256 KB each to host 0 at 10 Gbps over
/// 1 µs links, NewReno with a 1 ms RTOmin; `pfc` as given (Null: none).
fn incast(n: usize, buffer: &str, pfc: Value) -> Value {
    let mut doc = json!({
        "name": "incast", "seed": 3, "stop": "1s",
        "topology": {"kind": "star", "hosts": n + 1, "rate": "10Gbps", "delay": "1us",
                     "buffer": buffer},
        "tcp": {"cc": "newreno", "rto_min": "1ms"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0,
                  "workers": format!("1-{n}"), "response": "256KB", "queries": 10, "gap": "1ms"}],
    });
    if !pfc.is_null() {
        doc["pfc"] = pfc;
    }
    doc
}

fn s(r: &Results, k: &str) -> f64 {
    r.summary_value(k)
        .unwrap_or_else(|| panic!("no {k} in the summary"))
}

/// With each port's buffer above what its inputs hold at `xoff` plus a
/// round trip, PFC loses nothing: no drop, no timeout, no retransmission,
/// every query answered with every byte, and the port runs near line
/// rate. The same incast on the same buffer without PFC drops and times
/// out (what PFC is for).
#[test]
fn an_incast_on_a_paused_fabric_loses_nothing() {
    let pfc = json!({"xoff": "20KB", "xon": "15KB"});
    let r = run_checked(&incast(32, "1MB", pfc));
    assert_eq!(s(&r, "packets_dropped"), 0.0);
    let timeouts: u64 = col_u64(&r, "flows", "timeouts").iter().sum();
    let retx: u64 = col_u64(&r, "flows", "retransmits").iter().sum();
    assert_eq!((timeouts, retx), (0, 0));
    assert!(col_bool(&r, "flows", "completed").iter().all(|&c| c));
    assert!(s(&r, "pfc_pauses") > 0.0, "32 senders into one port pause");
    assert_eq!(
        s(&r, "pfc_ports_paused"),
        32.0,
        "every worker's port paused"
    );
    // 32 × 256 KB (plus headers) through one 10 Gbps port: near the time
    // the bytes take at line rate
    let qct = col_f64(&r, "queries", "qct_s");
    let ideal = 32.0 * 262_144.0 * 8.0 / 10e9;
    for &t in qct {
        assert!(
            t > ideal && t < 1.1 * ideal,
            "QCT {t} s against {ideal} s at line rate"
        );
    }
    let base = run_checked(&incast(32, "1MB", Value::Null));
    assert!(s(&base, "packets_dropped") > 0.0);
    // `enabled = false` is the same as no table
    let off = run_checked(&incast(
        32,
        "1MB",
        json!({"enabled": false, "xoff": "20KB"}),
    ));
    assert_same_tables(&base, &off);
    assert!(base.table("pfc").is_none(), "no table without [pfc]");
    assert_eq!(base.summary_value("pfc_pauses"), None);
}

/// An ingress port never holds much more than `xoff`: past it the switch
/// pauses the sender, which stops within a round trip, so the most held is
/// `xoff` plus the round trip's bytes at line rate and the packets in
/// serialization at either end. The switch's egress holds no more than
/// its inputs do.
#[test]
fn an_ingress_holds_at_most_xoff_and_a_round_trip() {
    let xoff = 20_480u64;
    let r = run_checked(&incast(32, "1MB", json!({"xoff": xoff, "xon": 15_000})));
    let held = col_u64(&r, "pfc", "max_held_bytes");
    // 10 Gbps × 2 µs = 2,500 B in flight, and two packets of 1,500 B
    let bound = xoff + 2_500 + 2 * 1_500;
    assert!(held.iter().all(|&h| h <= bound), "{held:?} > {bound}");
    assert!(held.iter().filter(|&&h| h > xoff).count() >= 32, "{held:?}");
    let to: Vec<_> = col_str(&r, "pfc", "to").to_vec();
    assert!(
        to.iter().all(|t| t == "sw"),
        "rows are the switch's ingress ports"
    );
    let max_q = col_u64(&r, "queues", "max_bytes");
    let total: u64 = held.iter().sum();
    assert!(max_q.iter().all(|&q| q <= total));
    // the time paused: the summary's total is the table's
    let paused: f64 = col_f64(&r, "pfc", "paused_s").iter().sum();
    assert!((paused - s(&r, "pfc_paused_s")).abs() < 1e-9);
}

/// Head-of-line blocking, PFC's known cost: h0 and h1 share the link
/// s0 → s1; h0 sends into a port (s1 → h2) that three local senders also
/// fill, h1 to an idle host h3. Without PFC, h1's flow gets its share of
/// the shared link (drops fall on h2's port only). With PFC, s1 pauses the
/// whole link s0 → s1 when h0's packets pile up at h2's port, and h1's
/// flow, which needs no congested port, is paused with it: it moves less
/// than without PFC, while nothing is dropped.
#[test]
fn a_paused_link_blocks_a_flow_that_crosses_no_congested_port() {
    let fabric = |pfc: bool| {
        let mut nodes = vec![
            json!({"name": "s0", "kind": "switch"}),
            json!({"name": "s1", "kind": "switch"}),
        ];
        let mut links = vec![json!({"a": "s0", "b": "s1", "rate": "10Gbps", "delay": "1us"})];
        for h in 0..7 {
            nodes.push(json!({"name": format!("h{h}"), "kind": "host"}));
            let sw = if h < 2 { "s0" } else { "s1" };
            links.push(json!({"a": format!("h{h}"), "b": sw, "rate": "10Gbps", "delay": "1us"}));
        }
        let bulk = |src: u32, dst: u32| json!({"kind": "bulk", "src": src, "dst": dst, "duration": "20ms"});
        let mut doc = json!({
            "name": "hol", "seed": 1, "stop": "20ms",
            "topology": {"kind": "custom", "buffer": "2MB", "nodes": nodes, "links": links},
            "tcp": {"cc": "cubic", "rto_min": "1ms"},
            // hosts are numbered in the order the nodes list them: h0 is 0
            "apps": [bulk(0, 2), bulk(1, 3), bulk(4, 2), bulk(5, 2), bulk(6, 2)],
        });
        if pfc {
            doc["pfc"] = json!({"xoff": "30KB", "xon": "20KB"});
        }
        doc
    };
    let with = run_checked(&fabric(true));
    let without = run_checked(&fabric(false));
    let victim = |r: &Results| col_u64(r, "flows", "delivered_bytes")[1] as f64;
    assert_eq!(s(&with, "packets_dropped"), 0.0);
    assert!(
        victim(&with) < 0.8 * victim(&without),
        "h1 → h3 moved {} B with PFC and {} B without",
        victim(&with),
        victim(&without)
    );
    // without PFC the victim has at least half the shared link (10 Gbps
    // for 20 ms, less the start)
    assert!(victim(&without) > 0.4 * 10e9 / 8.0 * 0.02);
    let ports = col_str(&with, "pfc", "node").to_vec();
    let pauses = col_u64(&with, "pfc", "pauses");
    let s0 = ports.iter().position(|p| p == "s0").unwrap();
    assert!(pauses[s0] > 0, "s1 paused the link from s0");
}

/// Same scenario and seed, the same bits; and a star, which no cut
/// divides, stays on one thread when two are asked for (a fat-tree's
/// PFC frames cross partitions: tests/parallel.rs).
#[test]
fn pfc_runs_are_deterministic_and_a_star_stays_on_one_thread() {
    let mut doc = incast(16, "1MB", json!({}));
    let a = run_checked(&doc);
    let b = run_checked(&doc);
    assert_same_tables(&a, &b);
    doc["threads"] = json!(2);
    let c = run_checked(&doc);
    assert_eq!(s(&c, "threads"), 1.0);
    assert_same_tables(&a, &c);
}

/// HPCC over a paused fabric (its paper's setting): the INT records are
/// written at dequeue, the flows finish, nothing is lost. Thresholds low
/// enough that the first round trip's burst (a window of line rate from
/// each of 16 senders) pauses them; HPCC then keeps the queue short, so
/// the pauses stop: most of the run unpaused.
#[test]
fn hpcc_runs_over_pfc() {
    let mut doc = incast(16, "10MB", json!({"xoff": "6KB", "xon": "3KB"}));
    doc["tcp"] = json!({"transport": "hpcc"});
    let r = run_checked(&doc);
    assert_eq!(s(&r, "packets_dropped"), 0.0);
    assert!(col_bool(&r, "flows", "completed").iter().all(|&c| c));
    assert!(s(&r, "pfc_pauses") > 0.0);
    let sim = s(&r, "sim_time_s");
    let paused = col_f64(&r, "pfc", "paused_s");
    assert!(
        paused.iter().all(|&p| p < 0.5 * sim),
        "{paused:?} of {sim} s"
    );
}

#[test]
fn bad_pfc_tables_name_the_key() {
    let err = |pfc: Value, extra: &[(&str, Value)]| {
        let mut doc = incast(4, "1MB", pfc);
        for (k, v) in extra {
            doc[*k] = v.clone();
        }
        dcnsim::scenario::parse_config_str(&doc.to_string()).expect_err("refused")
    };
    assert_err(
        &err(json!({"xoff": "10KB", "xon": "20KB"}), &[]),
        "pfc.xon",
        "above xoff",
    );
    assert_err(
        &err(json!({"xof": "10KB"}), &[]),
        "pfc.xof",
        "did you mean 'xoff'",
    );
    assert_err(&err(json!({"xoff": 0}), &[]), "pfc.xoff", "");
    // xon left out follows xoff: the error is at the key written alone
    let e = err(json!({"xoff": 0}), &[]);
    assert!(e.iter().all(|x| x.path != "pfc.xon"), "{e:?}");
    assert_err(
        &err(json!({}), &[("trimming", json!({}))]),
        "trimming",
        "not with [pfc]",
    );
    assert_err(
        &err(json!({}), &[("failures", json!([{"a": "h1", "b": "sw"}]))]),
        "failures",
        "not with [pfc]",
    );
    // an empty list is no failure
    let mut none = incast(4, "1MB", json!({}));
    none["failures"] = json!([]);
    dcnsim::scenario::parse_config_str(&none.to_string()).expect("no failure, no clash");
}

/// A port whose buffer is below what one input brings before its pause
/// acts is named before the run (and the run does drop there); ports
/// with room are not.
#[test]
fn a_buffer_below_xoff_and_a_round_trip_is_warned_about() {
    let warned = |doc: &Value| -> Vec<String> {
        let cfg = dcnsim::scenario::parse_config_str(&doc.to_string()).unwrap();
        dcnsim::scenario::warnings(&cfg)
            .into_iter()
            .filter(|w| w.path == "pfc.xoff")
            .map(|w| w.message)
            .collect()
    };
    let roomy = incast(8, "1MB", json!({"xoff": "20KB", "xon": "15KB"}));
    assert!(warned(&roomy).is_empty(), "{:?}", warned(&roomy));
    // htsim's 135,000-byte xoff over 100 KB ports
    let tight = incast(8, "100KB", json!({}));
    let w = warned(&tight);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("port sw→h") && w[0].contains("raise topology.buffer"),
        "{w:?}"
    );
    // the star's 9 ports share one buffer and one need: one is named and
    // the other 8 counted, so a fabric of short ports reads as one
    assert!(w[0].contains("(and so can 8 more ports"), "{w:?}");
    let r = run_checked(&tight);
    assert!(s(&r, "packets_dropped") > 0.0, "and it drops");
}

/// `switch_delay` lengthens a link into a switch, and a PAUSE comes back
/// over that same delay, so what one input brings before its pause acts
/// grows by twice the switch's delay at line rate: a port sized for the
/// links' propagation alone is named (and drops), one sized for the
/// whole round trip is not (and drops nothing, held within its bound).
#[test]
fn switch_delay_counts_in_the_headroom_a_pause_needs() {
    // h1 -> sw at 10 Gbps, sw -> h0 at 1 Gbps: the switch must pause h1
    let doc = |buffer: u64| {
        json!({
            "name": "sd", "seed": 1, "stop": "1s", "switch_delay": "10us",
            "topology": {"kind": "custom", "buffer": buffer,
                "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                          {"name": "sw", "kind": "switch"}],
                "links": [{"a": "h1", "b": "sw", "rate": "10Gbps", "delay": "1us"},
                          {"a": "sw", "b": "h0", "rate": "1Gbps", "delay": "1us"}]},
            "tcp": {"rto_min": "1ms"},
            "pfc": {"xoff": "30KB", "xon": "20KB"},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "4MB"}],
        })
    };
    let warned = |doc: &Value| {
        let cfg = dcnsim::scenario::parse_config_str(&doc.to_string()).unwrap();
        dcnsim::scenario::warnings(&cfg)
            .into_iter()
            .any(|w| w.path == "pfc.xoff")
    };
    let (xoff, wire, rate) = (30_720u64, 1_500u64, 10e9 / 8.0);
    let links_only = xoff + (rate * 2.0 * 1e-6) as u64 + 2 * wire;
    let round_trip = xoff + (rate * 2.0 * 11e-6) as u64 + 2 * wire;
    assert!(
        warned(&doc(links_only)),
        "a buffer sized without switch_delay"
    );
    let short = run_checked(&doc(links_only));
    assert!(s(&short, "packets_dropped") > 0.0, "and it drops");
    assert!(!warned(&doc(round_trip)));
    let r = run_checked(&doc(round_trip));
    assert_eq!(s(&r, "packets_dropped"), 0.0);
    assert!(s(&r, "pfc_pauses") > 0.0);
}

/// Where nothing pauses, PFC's event-driven serializers are the lazy FIFO:
/// a DCTCP permutation and an incast on a k = 4 fat-tree, thresholds no
/// port reaches, NICs without limit on both sides: the same packet-hops,
/// flows and queues to the bit (only the events differ: a departure is an
/// event of its own under PFC).
#[test]
fn where_nothing_pauses_pfc_is_the_fifo() {
    let doc = |pfc: bool| {
        let mut apps: Vec<Value> = (0..16)
            .map(|i| json!({"kind": "bulk", "src": i, "dst": (i + 8) % 16, "size": "2MB"}))
            .collect();
        apps.push(
            json!({"kind": "partition_aggregate", "aggregator": 0, "workers": "1-15",
                         "response": "64KB", "queries": 3, "gap": "1ms"}),
        );
        let mut d = json!({
            "name": "eq", "seed": 2, "stop": "20ms", "threads": 1,
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "200pkt", "ecn_k": "20pkt", "nic_buffer": "unlimited"},
            "tcp": {"cc": "dctcp", "rto_min": "1ms"},
            "apps": apps,
        });
        if pfc {
            d["pfc"] = json!({"xoff": "1GB", "xon": "1GB"});
        }
        d
    };
    let (fifo, paused) = (run_checked(&doc(false)), run_checked(&doc(true)));
    assert_eq!(s(&paused, "pfc_pauses"), 0.0);
    assert_eq!(s(&fifo, "packet_hops"), s(&paused, "packet_hops"));
    for (table, cols) in [
        (
            "flows",
            &["delivered_bytes", "end_s", "timeouts", "retransmits"][..],
        ),
        (
            "queues",
            &["enqueued", "dropped", "marked", "max_bytes", "tx_bytes"][..],
        ),
    ] {
        for c in cols {
            assert_eq!(
                fifo.table(table).unwrap().column(c),
                paused.table(table).unwrap().column(c),
                "{table}.{c}"
            );
        }
    }
}

/// Thresholds in packets, as htsim writes them (15 and 12 packets): an
/// ingress then holds at most `xoff` packets plus a round trip's and two
/// more; and a byte threshold below one packet, the easy slip (`xoff = 15`
/// meant as packets), is warned about with the packet reading offered.
#[test]
fn thresholds_in_packets_hold_packets_and_a_bytes_slip_is_named() {
    let r = run_checked(&incast(16, "1MB", json!({"xoff": "15pkt", "xon": "12pkt"})));
    assert_eq!(s(&r, "packets_dropped"), 0.0);
    assert!(s(&r, "pfc_pauses") > 0.0);
    // 1,500-byte packets: 15 of them, a round trip (2,500 B) and two more
    let held = col_u64(&r, "pfc", "max_held_bytes");
    assert!(
        held.iter().all(|&h| h <= 15 * 1_500 + 2_500 + 2 * 1_500),
        "{held:?}"
    );
    assert!(held.iter().any(|&h| h > 14 * 1_500), "{held:?}");
    let warned = |pfc: Value| -> Vec<String> {
        let cfg = dcnsim::scenario::parse_config_str(&incast(4, "1MB", pfc).to_string()).unwrap();
        dcnsim::scenario::warnings(&cfg)
            .into_iter()
            .filter(|w| w.path == "pfc.xoff")
            .map(|w| w.message)
            .collect()
    };
    let w = warned(json!({"xoff": 15, "xon": 12}));
    assert!(
        w.iter()
            .any(|m| m.contains("less than one full-size packet") && m.contains("\"15pkt\"")),
        "{w:?}"
    );
    assert!(warned(json!({"xoff": "15pkt", "xon": "12pkt"})).is_empty());
    let errs = dcnsim::scenario::parse_config_str(
        &incast(4, "1MB", json!({"xoff": "10pkt", "xon": "20pkt"})).to_string(),
    )
    .expect_err("refused");
    assert_err(&errs, "pfc.xon", "20 packets is above xoff (10 packets)");
    // packets against bytes: no order holds for every packet size (10
    // full packets are under 100 KB: every pause would resume at once)
    for (xoff, xon) in [("10pkt", "100KB"), ("100KB", "10pkt")] {
        let errs = dcnsim::scenario::parse_config_str(
            &incast(4, "1MB", json!({"xoff": xoff, "xon": xon})).to_string(),
        )
        .expect_err("units mixed");
        let (a, b) = if xon.ends_with("pkt") {
            ("packets", "bytes")
        } else {
            ("bytes", "packets")
        };
        assert_err(&errs, "pfc.xon", &format!("xon is in {a} and xoff in {b}"));
    }
    // xon left out: four fifths of xoff, and at least a packet
    let one =
        dcnsim::scenario::parse_config_str(&incast(4, "1MB", json!({"xoff": "1pkt"})).to_string())
            .expect("xoff alone is enough");
    assert_eq!(
        one.pfc.map(|p| p.xon),
        Some(dcnsim::config::Limit::Packets(1))
    );
}

/// The pause log agrees with the per-port table: per link it alternates
/// PAUSE, RESUME, … from a PAUSE, in time order; its PAUSEs are the
/// table's `pauses`, and the paused intervals it spells (the last one open
/// to the end of the run) add up to the table's `paused_s`.
#[test]
fn the_pause_log_spells_the_table() {
    let r = run_checked(&incast(8, "1MB", json!({"xoff": "20KB", "xon": "15KB"})));
    let (t, q, on) = (
        col_f64(&r, "pfc_log", "time_s"),
        col_u64(&r, "pfc_log", "queue_id"),
        col_bool(&r, "pfc_log", "paused"),
    );
    assert!(!t.is_empty());
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "in time order");
    let end = s(&r, "sim_time_s");
    let ids = col_u64(&r, "pfc", "queue_id");
    let pauses = col_u64(&r, "pfc", "pauses");
    let paused = col_f64(&r, "pfc", "paused_s");
    for (k, &id) in ids.iter().enumerate() {
        let mine: Vec<(f64, bool)> = (0..t.len())
            .filter(|&i| q[i] == id)
            .map(|i| (t[i], on[i]))
            .collect();
        assert!(
            mine.iter()
                .enumerate()
                .all(|(i, &(_, p))| p == (i % 2 == 0)),
            "link {id}: {mine:?}"
        );
        assert_eq!(mine.iter().filter(|x| x.1).count() as u64, pauses[k]);
        let mut sum = 0.0;
        for pair in mine.chunks(2) {
            sum += pair.get(1).map_or(end, |x| x.0) - pair[0].0;
        }
        assert!(
            (sum - paused[k]).abs() < 1e-9,
            "link {id}: {sum} against {}",
            paused[k]
        );
    }
}

/// A run cut by `stop` while a PAUSE is on its way: the log holds only the
/// frames that reached their senders by the end (a PAUSE stamped after
/// the end was listed), and a port's last logged frame says whether its
/// sender was still paused (`paused_at_end`).
#[test]
fn the_pause_log_ends_with_the_run() {
    let doc = json!({"name": "cut", "seed": 1, "stop": "995us", "until": "stop",
        "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us", "buffer": "200KB"},
        "pfc": {"xoff": "30KB", "xon": "20KB"},
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "10MB"},
                 {"kind": "bulk", "src": 2, "dst": 0, "size": "10MB"}]});
    let r = run_checked(&doc);
    let end = s(&r, "sim_time_s");
    let (t, q, on) = (
        col_f64(&r, "pfc_log", "time_s"),
        col_u64(&r, "pfc_log", "queue_id"),
        col_bool(&r, "pfc_log", "paused"),
    );
    assert!(
        !t.is_empty() && t.iter().all(|&x| x <= end),
        "{t:?} past {end}"
    );
    let ids = col_u64(&r, "pfc", "queue_id");
    let at_end = col_bool(&r, "pfc", "paused_at_end");
    for (k, &id) in ids.iter().enumerate() {
        let last = (0..t.len()).rfind(|&i| q[i] == id).map(|i| on[i]);
        assert_eq!(last.unwrap_or(false), at_end[k], "link {id}");
    }
}

/// Open-loop sources behind paused NICs: two UDP streams of 8 Gbps into
/// one 10 Gbps port. PFC keeps the switch lossless and pauses the NICs;
/// the hosts drop what their `nic_buffer` cannot hold (a kernel's full
/// qdisc), so a NIC's queue stays within it instead of growing without
/// end, and the port still carries its line rate.
#[test]
fn udp_behind_a_paused_nic_is_held_to_its_nic_buffer() {
    let udp = |src: u32| {
        json!({"kind": "udp_cbr", "src": src, "dst": 0, "rate": "8Gbps",
                                "payload": 1400, "stop": "5ms"})
    };
    let doc = json!({
        "name": "udp-pfc", "seed": 1, "stop": "6ms",
        "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us",
                     "buffer": "1MB", "nic_buffer": "100pkt"},
        "apps": [udp(1), udp(2)],
        "pfc": {"xoff": "30KB", "xon": "20KB"},
    });
    let r = run_checked(&doc);
    assert!(s(&r, "pfc_pauses") > 0.0);
    let from_host = col_bool(&r, "queues", "from_host");
    let dropped = col_u64(&r, "queues", "dropped");
    let max_pkts = col_u64(&r, "queues", "max_pkts");
    let (mut host_drops, mut switch_drops) = (0, 0);
    for i in 0..dropped.len() {
        if from_host[i] {
            host_drops += dropped[i];
            assert!(
                max_pkts[i] <= 100,
                "a NIC queue past its nic_buffer: {}",
                max_pkts[i]
            );
        } else {
            switch_drops += dropped[i];
        }
    }
    assert_eq!(switch_drops, 0, "the fabric is lossless");
    assert!(
        host_drops > 0,
        "16 Gbps offered to 10: the hosts drop the rest"
    );
    // the port to h0 is busy from the first packet to the streams' end
    let tx = col_u64(&r, "queues", "tx_bytes");
    let to_h0 = (0..tx.len())
        .filter(|&i| !from_host[i])
        .map(|i| tx[i])
        .max()
        .unwrap();
    assert!(
        to_h0 as f64 > 0.95 * 10e9 / 8.0 * 0.005,
        "{to_h0} bytes in 5 ms"
    );
}
