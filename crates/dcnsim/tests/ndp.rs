//! NDP over trimming switches (tcp/ndp.rs, net/trim.rs): the laws of
//! issue 47 on whole runs, each beside the same run with the mechanism
//! taken away, so that the law is seen to depend on it.

mod common;
use common::*;
use dcnsim::stats::results::Results;

/// htsim's main_ndp fabric at k = `k`: 100 Gbps, 1 µs links, 9,000-byte
/// packets with 64-byte headers, data queues of 135,000 bytes (htsim's
/// 15 packets of 9,000), per-packet spraying.
fn scenario(k: u32, apps: &str, trimming: bool, transport: &str) -> String {
    let trim = if trimming { r#", "trimming": {}"# } else { "" };
    format!(
        r#"{{"name": "ndp", "seed": 7, "stop": "200ms", "routing": {{"mode": "rps"}},
            "topology": {{"kind": "fat_tree", "k": {k}, "rate": "100Gbps", "delay": "1us",
                          "buffer": "135000B", "nic_buffer": "unlimited"}},
            "tcp": {{"transport": "{transport}", "mss": 9000, "header": 64, "rto_min": "10ms",
                     "init_cwnd": 10}},
            "apps": [{apps}]{trim}}}"#
    )
}

fn run(doc: &str) -> Results {
    let cfg = dcnsim::scenario::parse_config_str(doc).expect("a valid scenario");
    dcnsim::run(&cfg)
}

/// A permutation: host i sends `bytes` to host (i + n/2) mod n, every pair
/// across the core.
fn permutation(n: usize, bytes: &str) -> String {
    (0..n)
        .map(|i| {
            format!(
                r#"{{"kind": "bulk", "src": {i}, "dst": {}, "size": "{bytes}"}}"#,
                (i + n / 2) % n
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn goodputs(r: &Results) -> Vec<f64> {
    col_f64(r, "flows", "goodput_bps").to_vec()
}

/// A permutation on a k = 4 fat-tree reaches ≥ 95 % of line rate: the
/// receivers' pacers pull at 99 % of their line rate, sprayed packets
/// share the core, and a queue that overflows trims instead of losing.
/// NDP's rate is min(pull rate, initial window / loaded RTT) × (1 −
/// trimmed fraction): random spraying (`rps`) at full load queues a few
/// packets per hop, so the window must cover more than the unloaded BDP
/// (23 packets here: one BDP reaches 76 %, docs/ndp.md), and a data queue
/// of 30 packets holds its surplus without trimming it away. Without
/// trimming, the same NDP loses packets and waits for its timeout.
#[test]
fn ndp_permutation_reaches_line_rate() {
    let apps = permutation(16, "100MB");
    let doc = scenario(4, &apps, true, "ndp")
        .replace("135000B", "270000B")
        .replace(r#""init_cwnd": 10"#, r#""ndp_initial_window": 60"#);
    let r = run(&doc);
    let g = goodputs(&r);
    assert_eq!(g.len(), 16);
    let total: f64 = g.iter().sum();
    let share = total / (16.0 * 100e9);
    assert!(share >= 0.95, "NDP permutation at {share:.3} of line rate");
    let delivered = col_u64(&r, "flows", "delivered_bytes");
    assert!(delivered.iter().all(|&d| d == 100 << 20), "{delivered:?}");
    let without = run(&doc.replace(r#", "trimming": {}"#, ""));
    let share_without: f64 = goodputs(&without).iter().sum::<f64>() / (16.0 * 100e9);
    assert!(
        share_without < 0.9 * share,
        "without trimming NDP still reached {share_without:.3} of line rate"
    );
}

/// An incast that makes TCP time out (32 senders of 15 packets each into
/// one 14-packet queue, the same initial burst NDP sends): NDP delivers
/// every byte with no timeout, because every overflowing packet is
/// trimmed to a header that reaches the receiver (no header queue
/// overflows: no header is dropped while it has room) and is answered by
/// a NACK and resent on a pull. TCP on the same fabric and burst loses
/// packets and times out; NDP without trimming does too.
#[test]
fn ndp_incast_delivers_everything_without_timeouts() {
    let n = 32;
    let apps: Vec<String> = (1..=n)
        .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "size": "135000B"}}"#))
        .collect();
    let apps = apps.join(",");
    let ndp = run(&scenario(8, &apps, true, "ndp"));
    assert!(col_u64(&ndp, "flows", "delivered_bytes")
        .iter()
        .all(|&d| d == 135_000));
    assert_eq!(col_u64(&ndp, "flows", "timeouts").iter().sum::<u64>(), 0);
    let trimmed = ndp.summary_value("packets_trimmed").unwrap();
    assert!(trimmed > 0.0, "the incast must overflow the queue");
    assert_eq!(ndp.summary_value("header_drops"), Some(0.0));
    assert_eq!(ndp.summary_value("packets_dropped"), Some(0.0));
    let nacks_resent = col_u64(&ndp, "flows", "retransmits").iter().sum::<u64>();
    assert_eq!(
        nacks_resent as f64, trimmed,
        "every trimmed packet is resent once"
    );

    let tcp =
        run(&scenario(8, &apps, false, "tcp").replace(r#""init_cwnd": 10"#, r#""init_cwnd": 15"#));
    assert!(col_u64(&tcp, "flows", "timeouts").iter().sum::<u64>() > 0);
    let no_trim = run(&scenario(8, &apps, false, "ndp"));
    assert!(col_u64(&no_trim, "flows", "timeouts").iter().sum::<u64>() > 0);
}

/// With a header queue of one header the same incast drops headers, and
/// every flow still completes: the timeout (1 ms here) resends what no
/// NACK announced. With return-to-sender the headers come back instead.
/// (That a header is dropped only from a full header queue is checked
/// packet by packet in net/trim.rs's tests.)
#[test]
fn headers_drop_only_from_a_full_header_queue() {
    let apps: Vec<String> = (1..=32)
        .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "size": "135000B"}}"#))
        .collect();
    let doc = scenario(8, &apps.join(","), true, "ndp")
        .replace(
            r#""trimming": {}"#,
            r#""trimming": {"header_buffer": "64B"}"#,
        )
        .replace(r#""init_cwnd": 10"#, r#""ndp_rto": "1ms""#);
    let r = run(&doc);
    assert!(r.summary_value("header_drops").unwrap() > 0.0);
    assert!(col_u64(&r, "flows", "delivered_bytes")
        .iter()
        .all(|&d| d == 135_000));
    // Return-to-sender instead: headers come back, none is dropped
    // beyond those bounced twice, and everything arrives.
    let rts = run(&doc.replace(
        r#""header_buffer": "64B""#,
        r#""header_buffer": "64B", "return_to_sender": true"#,
    ));
    assert!(rts.summary_value("headers_bounced").unwrap() > 0.0);
    assert!(col_u64(&rts, "flows", "delivered_bytes")
        .iter()
        .all(|&d| d == 135_000));
    // on every seed: a flow whose sent packets were all acknowledged while
    // its pulls were lost waited for ever (seed 11 of these, before)
    for seed in 1..=12 {
        let r = run(&doc
            .replace(r#""seed": 7"#, &format!(r#""seed": {seed}"#))
            .replace(
                r#""header_buffer": "64B""#,
                r#""header_buffer": "64B", "return_to_sender": true"#,
            ));
        let d = col_u64(&r, "flows", "delivered_bytes");
        assert!(d.iter().all(|&d| d == 135_000), "seed {seed}: {d:?}");
    }
}

/// Return-to-sender returns a header only to a sender that reads one
/// (NDP's framing): a TCP sender cannot use its own header back, so over
/// the same full header queue a TCP header is dropped, and TCP recovers
/// as from any loss. (TCP's headers came back before, except those of
/// segments with CWR set, whose bit NDP reads as "bounced already".)
#[test]
fn a_tcp_header_is_dropped_not_returned() {
    let apps: Vec<String> = (1..=32)
        .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "size": "135000B"}}"#))
        .collect();
    let doc = scenario(8, &apps.join(","), true, "tcp").replace(
        r#""trimming": {}"#,
        r#""trimming": {"header_buffer": "64B", "return_to_sender": true}"#,
    );
    let r = run(&doc);
    assert!(r.summary_value("header_drops").unwrap() > 0.0);
    assert_eq!(r.summary_value("headers_bounced"), Some(0.0));
    assert!(col_u64(&r, "flows", "delivered_bytes")
        .iter()
        .all(|&d| d == 135_000));
}

/// A trimming port's data queue never holds more than its buffer, the
/// data packet in serialization counted (htsim's rule): on an incast into
/// one 135,000-byte port of 9,064-byte packets, at most 14 data packets
/// (126,896 B), plus one waiting and one serializing 64-byte header. A
/// Serve event for the instant the serializer freed, which an arrival at
/// that instant had already used, once started a second packet behind the
/// first: 15 data packets (135,960 B) in the port.
#[test]
fn a_trimming_ports_data_never_exceeds_its_buffer() {
    let apps: Vec<String> = (1..=32)
        .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "size": "1MB"}}"#))
        .collect();
    let doc = format!(
        r#"{{"name": "ndp-star", "seed": 1, "stop": "50ms",
            "topology": {{"kind": "star", "hosts": 33, "rate": "100Gbps", "delay": "1us",
                          "buffer": "135000B", "nic_buffer": "unlimited"}},
            "tcp": {{"transport": "ndp", "mss": 9000, "header": 64}},
            "trimming": {{"header_buffer": "64B", "return_to_sender": true}},
            "apps": [{}]}}"#,
        apps.join(",")
    );
    let r = run(&doc);
    assert!(
        r.summary_value("packets_trimmed").unwrap_or(0.0) > 0.0,
        "the port must trim"
    );
    let node = col_str(&r, "queues", "node");
    let max = col_u64(&r, "queues", "max_bytes");
    let port = node.iter().position(|n| n == "sw").expect("a switch port");
    let sw_max = node
        .iter()
        .zip(max)
        .filter(|(n, _)| *n == "sw")
        .map(|(_, &m)| m)
        .max()
        .unwrap();
    let _ = port;
    assert!(sw_max <= 135_000 + 2 * 64, "a switch port held {sw_max} B");
}

/// `trimming.header_buffer` is a switch port's limit: a receiver's NIC
/// whose `nic_buffer` is "unlimited" (htsim's host queues) drops none of
/// its own ACKs and pulls, however small the switches' header queues.
/// (The NICs took `header_buffer` too: 1pkt dropped a receiver's pulls.)
#[test]
fn header_buffer_limits_switch_ports_not_nics() {
    let apps: Vec<String> = (1..=16)
        .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "size": "200000B"}}"#))
        .collect();
    let doc = format!(
        r#"{{"name": "ndp-star", "seed": 1, "stop": "50ms",
            "topology": {{"kind": "star", "hosts": 17, "rate": "100Gbps", "delay": "1us",
                          "buffer": "135000B", "nic_buffer": "unlimited"}},
            "tcp": {{"transport": "ndp", "mss": 9000, "header": 64, "ndp_rto": "1ms"}},
            "trimming": {{"header_buffer": "1pkt"}},
            "apps": [{}]}}"#,
        apps.join(",")
    );
    let r = run(&doc);
    assert!(r.summary_value("packets_trimmed").unwrap() > 0.0);
    let host = col_bool(&r, "queues", "from_host");
    let dropped = col_u64(&r, "queues", "dropped");
    let nic: u64 = host
        .iter()
        .zip(dropped)
        .filter(|(&h, _)| h)
        .map(|(_, &d)| d)
        .sum();
    assert_eq!(nic, 0, "NICs with nic_buffer unlimited dropped {nic}");
    assert!(col_u64(&r, "flows", "delivered_bytes")
        .iter()
        .all(|&d| d == 200_000));
}

/// NDP runs are deterministic: the same scenario gives the same tables.
#[test]
fn ndp_runs_are_deterministic() {
    let doc = scenario(4, &permutation(16, "1MB"), true, "ndp");
    assert_eq!(run(&doc).tables, run(&doc).tables);
}

/// A segment shorter than the trimmed header (a flow's last few bytes
/// with TCP's 40-byte header against trimming's 64) is not grown by a
/// trim: cut at the head of the data queue it underflowed the port's byte
/// count (a panic in a debug build, a transmitted-bytes figure of 1.8e19
/// in a release one), and cut on arrival it left the port larger than it
/// came. 120 flows of one full packet and a 10-byte tail burst into one
/// port, so short segments are trimmed both ways: every byte arrives, the
/// port sends no more than its line rate allows, and the run's packet and
/// byte ledgers balance.
#[test]
fn a_segment_shorter_than_the_trimmed_header_keeps_its_size() {
    let apps: Vec<String> = (1..16)
        .flat_map(|s| {
            (0..8).map(move |_| {
                format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "size": "9010B"}}"#)
            })
        })
        .collect();
    let doc =
        scenario(4, &apps.join(","), true, "ndp").replace(r#""header": 64"#, r#""header": 40"#);
    let r = run(&doc);
    assert!(
        r.summary_value("packets_trimmed").unwrap() > 64.0,
        "the burst must trim many packets"
    );
    assert!(col_u64(&r, "flows", "delivered_bytes")
        .iter()
        .all(|&d| d == 9010));
    let sim_s = r.summary_value("sim_time_s").unwrap();
    for (&tx, &util) in
        col_u64(&r, "queues", "tx_bytes")
            .iter()
            .zip(col_f64(&r, "queues", "utilization"))
    {
        assert!(
            tx as f64 * 8.0 <= 100e9 * sim_s * 1.000_001,
            "a port sent {tx} B in {sim_s} s"
        );
        assert!(util <= 1.000_001, "utilization {util}");
    }
    check_conservation(&r);
}
