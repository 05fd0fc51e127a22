//! Unit tests of the scenario reader (public behaviour is tested in
//! crates/dcnsim/tests/scenario_errors.rs).

use super::table::*;
use super::values::*;
use super::*;
use crate::config::*;
use crate::net::topology::DEFAULT_NIC_BUFFER;
use crate::text::suggest;
use proptest::prelude::*;
use schema::TcpSection;
use serde_json::json;

fn example() -> Value {
    // The example of docs/scenario.md, as JSON.
    json!({
        "name": "kulkarni-incast-16",
        "stop": "20s",
        "topology": {"kind": "star", "hosts": 17, "rate": "1Gbps", "delay": "50us", "buffer": "32KB"},
        "tcp": {"mss": 1024, "rto_min": "200ms", "rwnd": "1000pkt"},
        "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-16", "sru": "256KB",
                  "blocks": 50, "jitter": "20us"}]
    })
}

#[test]
fn doc_example_parses() {
    let c = parse_config(&example()).unwrap();
    assert_eq!(c.name, "kulkarni-incast-16");
    assert_eq!(c.stop, SimTime::from_secs(20));
    assert_eq!(c.seed, 1);
    assert_eq!(c.routing, RoutingMode::Ecmp);
    assert_eq!(c.l2_overhead, 0);
    assert_eq!(c.switch_delay, SimTime::ZERO);
    assert_eq!(c.topology.nodes.len(), 18);
    assert_eq!(c.topology.links[0].queue_ba.limit, Limit::Bytes(32768));
    assert_eq!(c.topology.links[0].queue_ab.limit, DEFAULT_NIC_BUFFER);
    let AppSpec::SyncReads {
        client,
        servers,
        sru_bytes,
        request_bytes,
        blocks,
        jitter,
        start,
        tcp,
        ..
    } = &c.apps[0]
    else {
        panic!()
    };
    assert_eq!(*client, 0);
    assert_eq!(servers, &(1..=16).collect::<Vec<_>>());
    assert_eq!(*sru_bytes, 262_144);
    assert_eq!(*request_bytes, 64);
    assert_eq!(*blocks, 50);
    assert_eq!(*jitter, SimTime::from_us(20));
    assert_eq!(*start, SimTime::ZERO);
    assert_eq!(tcp.mss, 1024);
    assert_eq!(tcp.rwnd_bytes, 1000 * 1024);
    let want = TcpConfig {
        mss: 1024,
        rwnd_bytes: 1_024_000,
        ..TcpConfig::default()
    };
    assert_eq!(tcp, &want);
}

#[test]
fn defaults() {
    let c = parse_config(&json!({
        "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"},
        "apps": [
            {"kind": "partition_aggregate", "aggregator": 0, "workers": [1]},
            {"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "10Mbps"},
            {"kind": "bulk", "src": 0, "dst": 1, "duration": "1s", "start": "5ms"}
        ]
    }))
    .unwrap();
    assert_eq!(c.name, "scenario");
    assert_eq!(c.seed, 1);
    assert_eq!(c.stop, SimTime::from_secs(10));
    assert_eq!(
        c.apps[0],
        AppSpec::PartitionAggregate {
            aggregator: 0,
            workers: vec![1],
            response_bytes: 10240,
            request_bytes: 64,
            queries: 100,
            gap: SimTime::ZERO,
            start: SimTime::ZERO,
            tcp: TcpConfig::default(),
        }
    );
    assert_eq!(
        c.apps[1],
        AppSpec::UdpCbr {
            src: 1,
            dst: 0,
            rate_bps: 10_000_000,
            payload_bytes: 1460,
            start: SimTime::ZERO,
            stop: SimTime::from_secs(10),
        }
    );
    assert_eq!(
        c.apps[2],
        AppSpec::Bulk {
            src: 0,
            dst: 1,
            amount: BulkAmount::Duration(SimTime::from_secs(1)),
            start: SimTime::from_ms(5),
            tcp: TcpConfig::default(),
        }
    );
}

#[test]
fn tcp_layers_merge_app_over_top_over_defaults() {
    let mut doc = example();
    doc["tcp"] = json!({"mss": 1000, "rwnd": "10pkt", "sack": true, "cc": "NewReno"});
    doc["apps"] = json!([
        {"kind": "bulk", "src": 0, "dst": 1, "size": "1MB", "tcp": {"mss": 500, "ecn": true}},
        {"kind": "bulk", "src": 0, "dst": 2, "size": "1MB"}
    ]);
    let c = parse_config(&doc).unwrap();
    let tcp = |i: usize| match &c.apps[i] {
        AppSpec::Bulk { tcp, .. } => tcp.clone(),
        _ => unreachable!(),
    };
    let a = tcp(0);
    assert_eq!(
        (a.mss, a.rwnd_bytes, a.sack, a.ecn),
        (500, 5000, true, true)
    );
    let b = tcp(1);
    assert_eq!(
        (b.mss, b.rwnd_bytes, b.sack, b.ecn),
        (1000, 10_000, true, false)
    );
    assert_eq!(b.rto_min, SimTime::from_ms(200));
}

/// `profile = "linux"` sets every key it names (TcpConfig::linux); an
/// explicit key wins over it, at the top level and in an app's
/// override; G follows an overridden rto_min; without SACK, RACK falls
/// back to duplicate ACKs.
#[test]
fn linux_profile_sets_each_key_and_explicit_keys_win() {
    let tcp_of = |top: Value, own: Option<Value>| {
        let mut doc = example();
        doc["tcp"] = top;
        let mut app = json!({"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"});
        if let Some(o) = own {
            app["tcp"] = o;
        }
        doc["apps"] = json!([app]);
        match &parse_config(&doc).unwrap().apps[0] {
            AppSpec::Bulk { tcp, .. } => tcp.clone(),
            _ => unreachable!(),
        }
    };
    let l = tcp_of(json!({"profile": "linux"}), None);
    assert_eq!(l, TcpConfig::linux());
    assert_eq!(l.cc, CcKind::Cubic);
    assert_eq!(
        (l.mss, l.header_bytes, l.init_cwnd_segments),
        (1448, 52, 10)
    );
    assert_eq!(
        (l.rto_min, l.rto_init, l.rto_max, l.granularity),
        (
            SimTime::from_ms(200),
            SimTime::from_secs(1),
            SimTime::from_secs(120),
            SimTime::from_ms(200)
        )
    );
    assert_eq!(l.max_backoff, 1024);
    assert!(l.sack && l.limited_transmit && l.timestamps && l.delayed_ack);
    assert!(!l.ecn && !l.sack_rescue);
    assert_eq!(l.recovery, LossRecovery::Rack);
    assert_eq!(l.reordering, Reordering::Adaptive);
    assert_eq!(
        (
            l.delayed_ack_timeout,
            l.delayed_ack_segments,
            l.delayed_ack_quickack
        ),
        (SimTime::from_ms(40), 2, 16)
    );
    assert_eq!(l.dupack_threshold, 3);
    // Linux's window growth: every segment delivered, only while cwnd-limited.
    assert_eq!(
        (l.abc_limit, l.cwnd_validation, l.ack_counting),
        (ABC_UNLIMITED, CwndValidation::Linux, AckCounting::Delivered)
    );
    let d = TcpConfig::default();
    assert_eq!(
        (d.abc_limit, d.cwnd_validation, d.ack_counting),
        (2, CwndValidation::Off, AckCounting::Acked)
    );
    let o = tcp_of(
        json!({"profile": "linux", "abc_limit": 2, "cwnd_validation": "off", "ack_counting": "acked"}),
        None,
    );
    assert_eq!(
        (o.abc_limit, o.cwnd_validation, o.ack_counting),
        (2, CwndValidation::Off, AckCounting::Acked)
    );
    // tcp_cwnd_test counts packets; the papers' stacks bytes; the key wins.
    assert_eq!(
        (l.cwnd_counting, d.cwnd_counting, o.cwnd_counting),
        (
            CwndCounting::Packets,
            CwndCounting::Bytes,
            CwndCounting::Packets
        )
    );
    let b = tcp_of(json!({"profile": "linux", "cwnd_counting": "bytes"}), None);
    assert_eq!(b.cwnd_counting, CwndCounting::Bytes);
    // Linux rearms the timer on every ACK of new data and on every resend
    // of the head; the key wins.
    assert_eq!(
        (
            l.partial_ack_timer,
            d.partial_ack_timer,
            o.partial_ack_timer
        ),
        (
            PartialAckTimer::Linux,
            PartialAckTimer::Impatient,
            PartialAckTimer::Linux
        )
    );
    for (name, want) in [
        ("impatient", PartialAckTimer::Impatient),
        ("slow_but_steady", PartialAckTimer::SlowButSteady),
        ("linux", PartialAckTimer::Linux),
    ] {
        let i = tcp_of(json!({"profile": "linux", "partial_ack_timer": name}), None);
        assert_eq!(i.partial_ack_timer, want, "{name}");
    }
    // the repeated timeout's ssthresh: RFC 5681 and Linux hold it, ns-2
    // and ns-3 recompute it; every profile defaults to holding it
    use crate::config::RtoSsthresh;
    for prof in [json!({}), json!({"profile": "linux"})] {
        assert_eq!(tcp_of(prof, None).rto_ssthresh, RtoSsthresh::Hold);
    }
    for (name, want) in [
        ("hold", RtoSsthresh::Hold),
        ("recompute", RtoSsthresh::Recompute),
    ] {
        assert_eq!(
            tcp_of(json!({"rto_ssthresh": name}), None).rto_ssthresh,
            want,
            "{name}"
        );
    }
    // the window at the end of Reno recovery: RFC 6582's option 1 by
    // default (the linux profile paces by PRR, which ends at ssthresh)
    use crate::config::RenoExit;
    assert_eq!(tcp_of(json!({}), None).reno_exit, RenoExit::FlightSize);
    for (name, want) in [
        ("flightsize", RenoExit::FlightSize),
        ("ssthresh", RenoExit::Ssthresh),
    ] {
        assert_eq!(
            tcp_of(json!({"reno_exit": name}), None).reno_exit,
            want,
            "{name}"
        );
    }
    // Linux's probe and reordering timers (tcp_schedule_loss_probe,
    // tcp_rack_mark_lost); the key wins.
    assert_eq!(
        (l.rack_timers, d.rack_timers),
        (RackTimers::Linux, RackTimers::Rfc8985)
    );
    let r = tcp_of(json!({"profile": "linux", "rack_timers": "rfc8985"}), None);
    assert_eq!(r.rack_timers, RackTimers::Rfc8985);
    let u = tcp_of(json!({"abc_limit": "unlimited"}), None);
    assert_eq!(u.abc_limit, ABC_UNLIMITED);
    // "papers" and no profile are the same defaults
    assert_eq!(
        tcp_of(json!({"profile": "papers"}), None),
        TcpConfig::default()
    );
    assert_eq!(tcp_of(json!({}), None), TcpConfig::default());

    // explicit keys win, each on its own
    let over = json!({"profile": "linux", "cc": "newreno", "init_cwnd": 2, "mss": 1024,
                      "delayed_ack": false, "limited_transmit": false, "reordering": "fixed",
                      "delayed_ack_quickack": 0, "rto_min": "10ms", "timestamps": false});
    let o = tcp_of(over, None);
    assert_eq!(
        (o.cc, o.init_cwnd_segments, o.mss),
        (CcKind::NewReno, 2, 1024)
    );
    assert!(!o.delayed_ack && !o.limited_transmit && !o.timestamps);
    assert_eq!(
        (o.reordering, o.delayed_ack_quickack),
        (Reordering::Fixed, 0)
    );
    assert_eq!(
        (o.rto_min, o.granularity),
        (SimTime::from_ms(10), SimTime::from_ms(10))
    );
    assert_eq!(o.header_bytes, 52, "unset keys keep the profile's");
    let g = tcp_of(json!({"profile": "linux", "granularity": "1ms"}), None);
    assert_eq!(
        (g.rto_min, g.granularity),
        (SimTime::from_ms(200), SimTime::from_ms(1))
    );
    let ns = tcp_of(json!({"profile": "linux", "sack": false}), None);
    assert_eq!((ns.sack, ns.recovery), (false, LossRecovery::DupAck));

    // an app's override: its profile under its own and the top-level keys
    let a = tcp_of(json!({"mss": 1000}), Some(json!({"profile": "linux"})));
    assert_eq!((a.cc, a.mss, a.sack), (CcKind::Cubic, 1000, true));
    let b = tcp_of(json!({"profile": "linux"}), Some(json!({"cc": "dctcp"})));
    assert_eq!(
        (b.cc, b.ecn, b.sack, b.init_cwnd_segments),
        (CcKind::Dctcp, true, true, 10)
    );

    let mut doc = example();
    doc["tcp"] = json!({"profile": "bsd"});
    let errs = parse_config(&doc).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.path == "tcp.profile" && e.message.contains("linux")),
        "{errs:?}"
    );
    // The growth keys name themselves and the valid values.
    for (key, bad, says) in [
        ("abc_limit", json!("lots"), "unlimited"),
        ("abc_limit", json!(0), "≥ 1"),
        ("cwnd_validation", json!("on"), "linux"),
        ("ack_counting", json!("sacked"), "delivered"),
        ("cwnd_counting", json!("segments"), "packets"),
        ("partial_ack_timer", json!("patient"), "slow_but_steady"),
        ("rack_timers", json!("kernel"), "rfc8985"),
        ("rto_ssthresh", json!("halve"), "recompute"),
        ("reno_exit", json!("cwnd"), "flightsize, ssthresh"),
        ("hz", json!(200), "100, 250, 300 or 1000"),
        ("hz", json!(0), "≥ 1"),
    ] {
        doc["tcp"] = json!({ key: bad });
        let errs = parse_config(&doc).unwrap_err();
        assert!(
            errs.iter()
                .any(|e| e.path == format!("tcp.{key}") && e.message.contains(says)),
            "{key}: {errs:?}"
        );
    }
}

#[test]
fn routing_seed_and_switch_delay() {
    let mut doc = example();
    doc["routing"] = json!({"mode": "rps"});
    doc["seed"] = json!(42);
    doc["switch_delay"] = json!("1us");
    doc["l2_overhead"] = json!(38);
    let c = parse_config(&doc).unwrap();
    assert_eq!(c.routing, RoutingMode::Rps);
    assert_eq!(c.seed, 42);
    assert_eq!(c.switch_delay, SimTime::from_us(1));
    assert_eq!(c.l2_overhead, 38);
    doc["routing"] = json!({});
    assert_eq!(parse_config(&doc).unwrap().routing, RoutingMode::Ecmp);
}

/// A packet's wire size is a u32 sum: framing past an IP packet's largest
/// size is refused at its key (4,294,967,295 bytes wrapped every packet to
/// one byte less than no framing), and the largest allowed runs.
#[test]
fn l2_overhead_past_an_ip_packet_is_refused() {
    let mut doc = example();
    doc["l2_overhead"] = json!(u32::MAX);
    let errs = parse_config(&doc).unwrap_err();
    assert!(
        errs.iter().any(|e| e.path == "l2_overhead"
            && e.message
                .contains("more than an IP packet's largest size (65535)")),
        "{errs:?}"
    );
    doc["l2_overhead"] = json!(65_535);
    assert_eq!(parse_config(&doc).unwrap().l2_overhead, 65_535);
}

/// Under a routing mode that ignores the flow label, new labels move
/// nothing: warned at the key that asks for them (txrehash alone is not
/// plb), naming modes the parser takes.
#[test]
fn labels_under_spraying_are_warned_at_the_key_that_asked() {
    let mut doc = example();
    doc["routing"] = json!({"mode": "rps"});
    doc["tcp"] = json!({"txrehash": true});
    let w = crate::scenario::warnings(&parse_config(&doc).unwrap());
    let w = w
        .iter()
        .find(|w| w.message.contains("does not hash the flow label"))
        .expect("warned");
    assert_eq!(w.path, "tcp.txrehash");
    assert!(!w.message.contains("ecmp_unsalted"), "{}", w.message);
    // what it suggests parses
    doc["routing"] = json!({"mode": "ecmp", "salt": false});
    assert_eq!(
        parse_config(&doc).unwrap().routing,
        RoutingMode::EcmpUnsalted
    );
}

#[test]
fn routing_salt_and_flowlet_keys() {
    let mut doc = example();
    let with = |doc: &mut Value, r: Value| {
        doc["routing"] = r;
        parse_config(doc)
    };
    assert_eq!(
        with(&mut doc, json!({"mode": "ecmp", "salt": false}))
            .unwrap()
            .routing,
        RoutingMode::EcmpUnsalted
    );
    assert_eq!(
        with(&mut doc, json!({"salt": true})).unwrap().routing,
        RoutingMode::Ecmp
    );
    assert_eq!(
        with(&mut doc, json!({"mode": "flowlet"})).unwrap().routing,
        RoutingMode::Flowlet {
            gap: DEFAULT_FLOWLET_GAP
        }
    );
    assert_eq!(
        with(&mut doc, json!({"mode": "Flowlet", "flowlet_gap": "100us"}))
            .unwrap()
            .routing,
        RoutingMode::Flowlet {
            gap: SimTime::from_us(100)
        }
    );
    let err = |doc: &mut Value, r: Value| {
        with(doc, r)
            .unwrap_err()
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let e = err(&mut doc, json!({"mode": "rps", "salt": false}));
    assert!(
        e.contains("routing.salt: only used with mode = \"ecmp\""),
        "{e}"
    );
    let e = err(&mut doc, json!({"mode": "ecmp", "flowlet_gap": "1ms"}));
    assert!(
        e.contains("routing.flowlet_gap: only used with mode"),
        "{e}"
    );
    let e = err(&mut doc, json!({"mode": "flowlet", "flowlet_gap": "0s"}));
    assert!(e.contains("routing.flowlet_gap"), "{e}");
    let e = err(&mut doc, json!({"mode": "ecmp", "salt": "no"}));
    assert!(e.contains("routing.salt"), "{e}");
    let e = err(&mut doc, json!({"mode": "flowlets"}));
    assert!(e.contains("routing.mode"), "{e}");
}

#[test]
fn two_tier_buffer_fallbacks() {
    let mut doc = example();
    doc["topology"] = json!({"kind": "two_tier", "racks": 5, "hosts_per_rack": 20,
        "host_rate": "1Gbps", "core_rate": "10Gbps", "delay": "25us",
        "buffer": "100KB", "agg_buffer": "10MB", "ecn_k": "20pkt", "agg_ecn_k": "100pkt"});
    let c = parse_config(&doc).unwrap();
    let t = &c.topology;
    assert_eq!(t.hosts().len(), 100);
    let up = t.links.iter().find(|l| t.nodes[l.b].name == "agg").unwrap();
    assert_eq!(
        up.queue_ab,
        QueueConfig {
            limit: Limit::Bytes(102_400),
            ecn_k: Some(Limit::Packets(20)),
            non_ect: NonEct::Queue
        }
    );
    assert_eq!(
        up.queue_ba,
        QueueConfig {
            limit: Limit::Bytes(10 << 20),
            ecn_k: Some(Limit::Packets(100)),
            non_ect: NonEct::Queue
        }
    );
}

#[test]
fn a_ramp_ending_above_the_buffer_is_warned() {
    let mut doc = example();
    doc["tcp"]["cc"] = json!("dctcp");
    doc["topology"]["buffer"] = json!("100pkt");
    doc["topology"]["ecn_k"] = json!("20pkt");
    doc["topology"]["ecn_kmax"] = json!("200pkt");
    let said = |doc: &Value| {
        warnings(&parse_config(doc).unwrap())
            .into_iter()
            .filter(|w| w.path == "topology.ecn_kmax")
            .map(|w| w.message)
            .collect::<Vec<_>>()
    };
    let w = said(&doc);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(
            "ecn_kmax (200 packets) is not below the buffer of 17 marking queues (100 packets)"
        ),
        "{w:?}"
    );
    // below the buffer: the whole ramp is used, nothing to say
    doc["topology"]["ecn_kmax"] = json!("80pkt");
    assert!(said(&doc).is_empty());
    // bytes against packets: packets as full-size ones (1,064 B here)
    doc["topology"]["ecn_k"] = json!("20KB");
    doc["topology"]["ecn_kmax"] = json!("120KB");
    assert_eq!(said(&doc).len(), 1);
}

#[test]
fn a_node_name_with_a_line_break_is_refused() {
    let mut doc = example();
    doc["topology"] = json!({"kind": "custom", "buffer": "100KB", "nodes": [
        {"name": "a", "kind": "host"}, {"name": "s\r1", "kind": "switch"}, {"name": "b", "kind": "host"}],
        "links": [
            {"a": "a", "b": "s\r1", "rate": "1Gbps", "delay": "25us"},
            {"a": "s\r1", "b": "b", "rate": "1Gbps", "delay": "25us"}]});
    doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": 1000}]);
    let errs = parse_config(&doc).unwrap_err();
    assert!(
        errs.iter().any(|e| e.path == "topology.nodes[1].name"
            && e.message.contains("control character (U+000D)")),
        "{errs:?}"
    );
}

#[test]
fn custom_topology_with_overrides() {
    let mut doc = example();
    doc["topology"] = json!({"kind": "custom", "buffer": "100KB", "nic_buffer": "1MB", "nodes": [
        {"name": "a", "kind": "host"}, {"name": "s", "kind": "switch"}, {"name": "b", "kind": "host"}],
        "links": [
            {"a": "a", "b": "s", "rate": "1Gbps", "delay": "25us"},
            {"a": "s", "b": "b", "rate": "10Gbps", "delay": "5us", "buffer": "20pkt", "ecn_k": "5pkt"}]});
    doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": 1000}]);
    let c = parse_config(&doc).unwrap();
    let t = &c.topology;
    assert_eq!(t.hosts(), vec![0, 2]);
    assert_eq!(
        t.links[0].queue_ab,
        QueueConfig {
            limit: Limit::Bytes(1 << 20),
            ecn_k: None,
            non_ect: NonEct::Queue
        }
    );
    assert_eq!(
        t.links[0].queue_ba,
        QueueConfig {
            limit: Limit::Bytes(102_400),
            ecn_k: None,
            non_ect: NonEct::Queue
        }
    );
    assert_eq!(
        t.links[1].queue_ab,
        QueueConfig {
            limit: Limit::Packets(20),
            ecn_k: Some(Limit::Packets(5)),
            non_ect: NonEct::Queue
        }
    );
    assert_eq!(t.links[1].rate_bps, 10_000_000_000);
}

#[test]
fn suggestions() {
    let keys = schema::struct_fields::<TcpSection>().iter().copied();
    assert_eq!(suggest("rto_mn", keys.clone()), Some("rto_min"));
    assert_eq!(suggest("RTO_MIN", keys.clone()), Some("rto_min"));
    assert_eq!(suggest("delayed_acks", keys.clone()), Some("delayed_ack"));
    assert_eq!(suggest("banana", keys), None);
    assert_eq!(crate::text::edit_distance("kitten", "sitting"), 3);
    assert_eq!(crate::text::edit_distance("stpo", "stop"), 1);
    assert_eq!(suggest("s1", ["h1", "s0"].into_iter()), Some("s0"));
}

#[test]
fn duplicate_json_keys_are_rejected_not_overridden() {
    let mut text = example().to_string();
    text.insert_str(1, r#""seed": 5, "#);
    text = text.replacen(r#""name""#, r#""seed": 6, "name""#, 1);
    let errs = parse_config_str(&text).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].path, DOCUMENT);
    assert!(
        errs[0].message.contains(r#"duplicate key "seed""#),
        "{}",
        errs[0]
    );
    // Nested objects too, and the same key in sibling objects is fine.
    let nested = r#"{"topology": {"kind": "star", "kind": "star"}, "apps": []}"#;
    assert!(parse_config_str(nested).unwrap_err()[0]
        .message
        .contains("duplicate key"));
    let siblings = example().to_string();
    parse_config_str(&siblings).unwrap();
}

/// `ties` is "seeded" and `threads` "auto" unless asked; "fifo" asked
/// for runs on one thread; a wrong name is refused naming the key and the
/// two it accepts.
#[test]
fn ties_default_to_seeded_on_every_core_and_name_their_choices() {
    use crate::config::{Threads, Ties};
    let c = parse_config(&example()).unwrap();
    assert_eq!((c.ties, c.threads), (Ties::Seeded, Threads::Auto));
    let mut doc = example();
    doc["ties"] = json!("fifo");
    let c = parse_config(&doc).unwrap();
    assert_eq!((c.ties, c.threads), (Ties::Fifo, Threads::N(1)));
    doc["threads"] = json!(4);
    let errs = parse_config(&doc).unwrap_err();
    assert_eq!(errs[0].path, "ties", "{errs:?}");
    doc.as_object_mut().unwrap().remove("threads");
    doc["ties"] = json!("seeded");
    assert_eq!(parse_config(&doc).unwrap().ties, Ties::Seeded);
    doc["ties"] = json!("random");
    let errs = parse_config(&doc).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].path, "ties");
    let m = &errs[0].message;
    assert!(m.contains("fifo") && m.contains("seeded"), "{m}");
}

/// `until` is "apps_done" unless asked; "stop" runs to `stop`; anything
/// else is refused naming the key and both names.
#[test]
fn until_defaults_to_the_apps_end_and_names_its_choices() {
    use crate::config::Until;
    assert_eq!(parse_config(&example()).unwrap().until, Until::AppsDone);
    let mut doc = example();
    doc["until"] = json!("stop");
    assert_eq!(parse_config(&doc).unwrap().until, Until::Stop);
    doc["until"] = json!("apps_done");
    assert_eq!(parse_config(&doc).unwrap().until, Until::AppsDone);
    doc["until"] = json!("never");
    let errs = parse_config(&doc).unwrap_err();
    assert_eq!(
        (errs.len(), errs[0].path.as_str()),
        (1, "until"),
        "{errs:?}"
    );
    let m = &errs[0].message;
    assert!(m.contains("apps_done") && m.contains("stop"), "{m}");
}

#[test]
fn parse_config_str_works() {
    let c = parse_config_str(&example().to_string()).unwrap();
    assert_eq!(c.apps.len(), 1);
}

// ------------------------------------------------------------ fuzzing

const VOCAB: &[&str] = &[
    "name",
    "seed",
    "stop",
    "topology",
    "routing",
    "tcp",
    "apps",
    "kind",
    "hosts",
    "rate",
    "delay",
    "buffer",
    "ecn_k",
    "nic_buffer",
    "k",
    "racks",
    "hosts_per_rack",
    "host_rate",
    "core_rate",
    "leaves",
    "spines",
    "hosts_per_leaf",
    "fabric_rate",
    "nodes",
    "links",
    "a",
    "b",
    "mode",
    "mss",
    "rwnd",
    "rto_min",
    "src",
    "dst",
    "size",
    "duration",
    "workers",
    "servers",
    "client",
    "aggregator",
    "star",
    "fat_tree",
    "custom",
    "two_tier",
    "leaf_spine",
    "bulk",
    "sync_reads",
    "udp_cbr",
    "partition_aggregate",
    "host",
    "switch",
    "1-3",
    "0-0",
    "3-1",
    "1Gbps",
    "0Gbps",
    "50us",
    "-1us",
    "32KB",
    "100pkt",
    "0pkt",
    "1e999s",
    "s0",
    "h0",
    "h1",
    "",
    "é",
    "newreno",
    "ecmp",
    "poisson",
    "load",
    "cdf",
    "cdf_file",
    "sampling",
    "websearch",
    "datamining",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..20).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        proptest::sample::select(VOCAB).prop_map(|s| json!(s)),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        proptest::sample::select(VOCAB).prop_map(str::to_string),
                        ".{0,6}"
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Replace the value at a pseudo-random position of `doc` with `new`.
fn mutate(doc: &mut Value, mut pick: usize, new: Value) {
    let mut cur = doc;
    loop {
        let n = match cur {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if n == 0 || pick.is_multiple_of(4) {
            *cur = new;
            return;
        }
        let i = (pick / 4) % n;
        pick /= 4 * n.max(1);
        pick += 1;
        cur = match cur {
            Value::Object(m) => m.values_mut().nth(i).unwrap(),
            Value::Array(a) => &mut a[i],
            _ => unreachable!(),
        };
    }
}

fn rich_valid() -> Value {
    json!({
        "name": "x", "seed": 3, "stop": "1s", "l2_overhead": 38, "switch_delay": "1us",
        "routing": {"mode": "single"},
        "topology": {"kind": "custom", "buffer": "100KB", "ecn_k": "10pkt", "nodes": [
            {"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
            {"name": "h2", "kind": "host"}, {"name": "s0", "kind": "switch"}],
            "links": [
                {"a": "h0", "b": "s0", "rate": "1Gbps", "delay": "1us"},
                {"a": "h1", "b": "s0", "rate": "1Gbps", "delay": "1us"},
                {"a": "h2", "b": "s0", "rate": "1Gbps", "delay": "1us", "buffer": "5pkt"}]},
        "tcp": {"mss": 1000, "rwnd": "100pkt", "sack": true},
        "apps": [
            {"kind": "bulk", "src": 0, "dst": 1, "size": "1MB", "tcp": {"ecn": true}},
            {"kind": "partition_aggregate", "aggregator": 0, "workers": "1-2", "gap": "1ms"},
            {"kind": "sync_reads", "client": 2, "servers": [0, 1], "jitter": "1us"},
            {"kind": "udp_cbr", "src": 1, "dst": 2, "rate": "1Mbps", "stop": "2s"},
            {"kind": "poisson", "load": 0.5, "cdf": [[100, 0], ["1KB", 1]], "sampling": "step",
             "sources": "0-1", "destinations": [2], "flows": 3, "duration": "1s"}
        ]
    })
}

#[test]
fn rich_valid_parses() {
    parse_config(&rich_valid()).unwrap();
}

fn check_no_panic(doc: &Value) {
    match parse_config(doc) {
        Ok(c) => assert!(!c.apps.is_empty()),
        Err(errs) => {
            assert!(!errs.is_empty());
            for e in &errs {
                assert!(!e.path.is_empty());
                assert!(!e.message.trim().is_empty(), "{}: empty reason", e.path);
                // The path names a field: the document itself, a known
                // top-level key, or a key the document has (an unknown
                // key is reported at its own path).
                let root = e.path.split(['.', '[']).next().unwrap();
                let in_doc = doc.as_object().is_some_and(|m| {
                    m.keys()
                        .any(|k| e.path == key_path("", k) || e.path.starts_with(&key_path("", k)))
                });
                assert!(
                    e.path == DOCUMENT
                        || schema::struct_fields::<schema::Document>().contains(&root)
                        || in_doc,
                    "problem at {:?} names no field of the document: {}",
                    e.path,
                    e.message
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(crate::proptest_ci::config(512))]

    #[test]
    fn random_json_never_panics(doc in arb_json()) {
        check_no_panic(&doc);
    }

    #[test]
    fn mutated_scenarios_never_panic(pick in any::<usize>(), new in arb_json(), base in 0usize..2) {
        let mut doc = if base == 0 { rich_valid() } else { example() };
        mutate(&mut doc, pick, new);
        check_no_panic(&doc);
    }

    #[test]
    fn random_text_never_panics(s in "\\PC{0,64}") {
        let _ = parse_config_str(&s);
    }
}

/// The example scenario's warnings with `tcp` as its `[tcp]` table.
fn warnings_with_tcp(tcp: Value) -> Vec<ScenarioError> {
    let mut doc = example();
    doc["tcp"] = tcp;
    warnings(&parse_config(&doc).unwrap())
}

/// `tcp.hz` away from its default warns where no Linux jiffy arithmetic
/// would read it, naming the key; under the linux profile, `cubic_linux`
/// or `rto_timer = "linux"` it does not.
#[test]
fn an_hz_nothing_counts_in_warns() {
    let hz_warnings = |tcp: Value| {
        warnings_with_tcp(tcp)
            .into_iter()
            .filter(|w| w.path == "tcp.hz")
            .collect::<Vec<_>>()
    };
    let w = hz_warnings(json!({"hz": 1000}));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.contains("changes nothing") && w[0].message.contains("cubic_linux"));
    assert!(hz_warnings(json!({"profile": "linux", "hz": 1000})).is_empty());
    assert!(hz_warnings(json!({"cc": "cubic", "cubic_linux": true, "hz": 100})).is_empty());
    assert!(hz_warnings(json!({"rto_timer": "linux", "hz": 1000})).is_empty());
    assert!(hz_warnings(json!({})).is_empty());
}

/// FaST's and TCPRand's keys warn where nothing reads them, per key:
/// α's `fast_g` and `fast_alpha_init` need FaST's cc (its segment policy
/// under DCTCP reads only the sizing keys); `tcprand_rmin` is the static
/// mode's, θ, μ, σ², the preset and the v_ bounds the adaptive mode's, and
/// the adaptive mode under a cc other than CUBIC has no W_max to read.
/// (The whole families counted as read wherever the policy was.)
#[test]
fn fast_and_tcprand_keys_warn_where_their_mode_or_cc_does_not_read_them() {
    let warned = |tcp: Value| {
        let mut w: Vec<String> = warnings_with_tcp(tcp)
            .into_iter()
            .filter(|w| w.message.contains("changes nothing"))
            .map(|w| w.path)
            .collect();
        w.sort();
        w
    };
    assert_eq!(
        warned(
            json!({"cc": "dctcp", "segment": "fast", "fast_g": 0.1, "fast_alpha_init": 0.5, "fast_wmin": 3})
        ),
        ["tcp.fast_alpha_init", "tcp.fast_g"]
    );
    assert!(warned(json!({"cc": "fast", "fast_g": 0.1, "fast_wmin": 3})).is_empty());
    assert_eq!(
        warned(
            json!({"cc": "cubic", "segment": "tcprand", "tcprand_mode": "adaptive", "tcprand_rmin": 200})
        ),
        ["tcp.tcprand_rmin"]
    );
    assert_eq!(
        warned(
            json!({"cc": "cubic", "segment": "tcprand", "tcprand_mode": "static", "tcprand_rmin": 200,
                      "tcprand_theta": 100, "tcprand_mu": 0.5})
        ),
        ["tcp.tcprand_mu", "tcp.tcprand_theta"]
    );
    assert_eq!(
        warned(json!({"cc": "newreno", "segment": "tcprand", "tcprand_mode": "adaptive"})),
        ["tcp.tcprand_mode"]
    );
    assert!(warned(
        json!({"cc": "cubic", "segment": "tcprand", "tcprand_mode": "adaptive",
                          "tcprand_theta": 100})
    )
    .is_empty());
}

/// `topology.ecn_non_ect`: "queue" (the default) or "drop", on every
/// switch queue that has an `ecn_k` (a two-tier network's per-tier
/// thresholds and a custom link's own too), never on a host's NIC; a bad name is an error
/// naming the key; with [trimming] an error; without any `ecn_k` a
/// warning; and with NewReno alone no "nothing will be marked" warning,
/// since the threshold now drops.
#[test]
fn ecn_non_ect_reaches_every_marking_queue() {
    let mut doc = example();
    doc["topology"] = json!({"kind": "two_tier", "racks": 2, "hosts_per_rack": 8,
        "host_rate": "1Gbps", "core_rate": "10Gbps", "delay": "25us",
        "buffer": "100KB", "ecn_k": "20pkt", "agg_ecn_k": "65pkt", "ecn_non_ect": "drop"});
    doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 15, "size": "1MB"}]);
    let c = parse_config(&doc).unwrap();
    let t = &c.topology;
    let mut switch_queues = 0;
    for l in &t.links {
        for (from, q) in [(l.a, &l.queue_ab), (l.b, &l.queue_ba)] {
            if t.nodes[from].kind == NodeKind::Host {
                assert_eq!(q.ecn_k, None);
            } else {
                assert!(q.ecn_k.is_some());
                assert_eq!(q.non_ect, NonEct::Drop);
                switch_queues += 1;
            }
        }
    }
    assert!(switch_queues > 0);
    let w = warnings(&c);
    assert!(
        w.iter()
            .all(|w| !w.message.contains("nothing will be marked")),
        "{w:?}"
    );
    doc["topology"]["ecn_non_ect"] = json!("queue");
    let c = parse_config(&doc).unwrap();
    assert!(warnings(&c)
        .iter()
        .any(|w| w.message.contains("nothing will be marked")));

    doc["topology"]["ecn_non_ect"] = json!("red");
    let e = format!("{:?}", parse_config(&doc).unwrap_err());
    assert!(
        e.contains("topology.ecn_non_ect") && e.contains("drop"),
        "{e}"
    );

    doc["topology"]["ecn_non_ect"] = json!("drop");
    doc["trimming"] = json!({});
    let e = format!("{:?}", parse_config(&doc).unwrap_err());
    assert!(
        e.contains("topology.ecn_non_ect") && e.contains("trimming"),
        "{e}"
    );
    // a table turned off is no table: no clash, and no trimming or PFC
    doc["trimming"] = json!({"enabled": false});
    let c = parse_config(&doc).unwrap();
    assert!(c.trimming.is_none());
    doc.as_object_mut().unwrap().remove("trimming");
    doc["pfc"] = json!({});
    let e = format!("{:?}", parse_config(&doc).unwrap_err());
    assert!(
        e.contains("topology.ecn_non_ect") && e.contains("pfc"),
        "{e}"
    );
    doc["pfc"] = json!({"enabled": false});
    let c = parse_config(&doc).unwrap();
    assert!(c.pfc.is_none());

    let mut doc = example();
    doc["topology"]["ecn_non_ect"] = json!("drop");
    let c = parse_config(&doc).unwrap();
    let w = warnings(&c);
    assert!(
        w.iter().any(
            |w| w.path == "topology.ecn_non_ect" && w.message.contains("no queue has an ecn_k")
        ),
        "{w:?}"
    );

    let mut doc = example();
    doc["topology"] = json!({"kind": "custom", "buffer": "100KB", "ecn_non_ect": "drop", "nodes": [
        {"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}, {"name": "s", "kind": "switch"}],
        "links": [{"a": "a", "b": "s", "rate": "10Gbps", "delay": "1us", "ecn_k": "5pkt"},
                  {"a": "s", "b": "b", "rate": "10Gbps", "delay": "1us"}]});
    doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}]);
    let c = parse_config(&doc).unwrap();
    let gated: Vec<_> = c
        .topology
        .links
        .iter()
        .flat_map(|l| [&l.queue_ab, &l.queue_ba])
        .filter(|q| q.ecn_k.is_some())
        .collect();
    assert_eq!(gated.len(), 1, "the one link's switch end");
    assert_eq!(gated[0].non_ect, NonEct::Drop);
}

/// An `ecn_k` at or above the buffer (in one unit; a threshold in packets
/// against bytes by full-size packets) is one warning per (K, buffer) pair,
/// only when something sends ECN-capable packets, and such a run marks
/// nothing; a threshold one packet lower says nothing.
#[test]
fn ecn_k_at_the_buffer_warns_and_marks_nothing() {
    // 1,024 B segments + 40 B of headers: 1,064 B on the wire
    let run = |k: Value, buffer: &str, cc: &str| {
        let mut doc = example();
        doc["topology"]["buffer"] = json!(buffer);
        doc["topology"]["ecn_k"] = k;
        doc["tcp"]["cc"] = json!(cc);
        doc["apps"][0]["blocks"] = json!(3);
        let c = parse_config(&doc).unwrap();
        let w: Vec<String> = warnings(&c)
            .into_iter()
            .filter(|w| w.path == "topology.ecn_k")
            .map(|w| w.message)
            .collect();
        (c, w)
    };
    for (k, buffer, which) in [
        (json!("1MB"), "64KB", "nothing will be marked"),
        (json!(65536), "64KB", "nothing will be marked"),
        (
            json!("62pkt"),
            "64KB",
            "no full-size packet (1064 bytes on the wire) will be marked",
        ),
        (json!("99pkt"), "100pkt", "nothing will be marked"),
        (json!(99 * 1064), "100pkt", "nothing will be marked"),
    ] {
        let (c, w) = run(k.clone(), buffer, "dctcp");
        assert_eq!(w.len(), 1, "{k} {buffer}: {w:?}");
        assert!(
            w[0].contains(which) && w[0].contains("on 17 queues"),
            "{}",
            w[0]
        );
        let r = crate::run(&c);
        let marked = match r.table("queues").unwrap().column("marked").unwrap() {
            crate::stats::results::Column::U64(v) => v.iter().sum::<u64>(),
            c => panic!("marked: {c:?}"),
        };
        if which == "nothing will be marked" {
            assert_eq!(marked, 0, "{k}");
        }
        // loss-based flows send no ECT: the other warning speaks for them
        assert!(run(k, buffer, "newreno").1.is_empty());
    }
    // in packets against bytes: only where no queue marks a full-size packet
    let mut doc = example();
    doc["topology"] = json!({"kind": "two_tier", "racks": 2, "hosts_per_rack": 4,
        "host_rate": "1Gbps", "core_rate": "10Gbps", "delay": "25us",
        "buffer": "64KB", "ecn_k": "20pkt", "agg_ecn_k": "62pkt"});
    doc["tcp"]["cc"] = json!("dctcp");
    doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 7, "size": "1MB"}]);
    let ks = |d: &Value| -> Vec<ScenarioError> {
        warnings(&parse_config(d).unwrap())
            .into_iter()
            .filter(|w| w.path == "topology.ecn_k")
            .collect()
    };
    assert!(ks(&doc).is_empty());
    doc["topology"]["ecn_k"] = json!("62pkt");
    let w = ks(&doc);
    assert!(w.len() == 1 && w[0].message.contains("anywhere"), "{w:?}");
    for (k, buffer) in [
        (json!(65535), "64KB"),
        (json!("61pkt"), "64KB"),
        (json!("98pkt"), "100pkt"),
        (json!(99 * 1064 - 1), "100pkt"),
    ] {
        assert!(run(k.clone(), buffer, "dctcp").1.is_empty(), "{k}");
    }
}

/// An app that starts at or after `stop` never sends: a warning naming its
/// `start` (a failure after `stop` had one; this was silent, and its flows
/// read as unfinished).
#[test]
fn an_app_starting_after_stop_is_named() {
    let mut doc = example();
    doc["stop"] = json!("200ms");
    doc["apps"] = json!([
        {"kind": "bulk", "src": 1, "dst": 0, "size": "10KB"},
        {"kind": "bulk", "src": 2, "dst": 0, "size": "10KB", "start": "5s"},
        {"kind": "bulk", "src": 3, "dst": 0, "size": "10KB", "start": "200ms"},
        {"kind": "udp_cbr", "src": 4, "dst": 0, "rate": "1Mbps", "start": "1s", "stop": "2s"}
    ]);
    let w: Vec<(String, String)> = warnings(&parse_config(&doc).unwrap())
        .into_iter()
        .filter(|w| w.path.ends_with(".start"))
        .map(|w| (w.path, w.message))
        .collect();
    let paths: Vec<&str> = w.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        ["apps[1].start", "apps[2].start", "apps[3].start"],
        "{w:?}"
    );
    assert!(
        w[0].1.contains("is not before stop") && w[0].1.contains("never sends"),
        "{}",
        w[0].1
    );
}

/// A generated workload whose arrivals run past `stop` (thousands of
/// apps) gets one warning for them all, not one a line.
#[test]
fn many_apps_starting_after_stop_are_one_warning() {
    let mut doc = example();
    doc["stop"] = json!("1s");
    let mut apps = vec![json!({"kind": "bulk", "src": 1, "dst": 0, "size": "10KB"})];
    // past a thousand, so the count is grouped as the Python side groups one
    for k in 0..1200 {
        apps.push(
            json!({"kind": "bulk", "src": 1 + k % 3, "dst": 0, "size": "10KB",
                         "start": format!("{}ms", 1000 + k)}),
        );
    }
    doc["apps"] = json!(apps);
    let w: Vec<(String, String)> = warnings(&parse_config(&doc).unwrap())
        .into_iter()
        .filter(|w| w.message.contains("stop"))
        .map(|w| (w.path, w.message))
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, "apps[1].start");
    assert!(
        w[0].1.starts_with("1s is not before stop (1s), nor are those of 1,199 more apps (apps[2], apps[3], …, the latest 2.199s): they never send"),
        "{}",
        w[0].1
    );
}

/// The flows table names a transport by `Transport::name`, the scenario
/// reads it by `TRANSPORT_NAMES`: one spelling for both.
#[test]
fn transport_names_are_the_scenarios() {
    for &(name, t) in TRANSPORT_NAMES {
        assert_eq!(t.name(), name);
    }
}

/// A check across [tcp]'s keys that applies only under a transport the
/// app's own table chooses: said at that choice, naming where the values
/// come from (it went unsaid: [tcp] passed on its own, and the app set none
/// of the keys involved); what [tcp] fails alone is said there, once.
#[test]
fn an_apps_own_transport_applies_the_top_level_tcp_checks() {
    let doc = |top: Value, own: Value| {
        json!({
            "stop": "10ms",
            "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "5us", "buffer": "100KB"},
            "tcp": top,
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "100KB", "tcp": own},
                     {"kind": "bulk", "src": 2, "dst": 0, "size": "100KB"}]
        })
    };
    let errs = |d: Value| -> Vec<(String, String)> {
        parse_config(&d)
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.path, e.message))
            .collect()
    };
    let bad = json!({"swift_fs_min_cwnd": 50, "swift_fs_max_cwnd": 10});
    let e = errs(doc(bad.clone(), json!({"transport": "swift"})));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "apps[0].tcp.transport");
    assert!(
        e[0].1
            .starts_with("swift_fs_min_cwnd (50) must be below swift_fs_max_cwnd (10)")
            && e[0]
                .1
                .contains("tcp.swift_fs_min_cwnd, tcp.swift_fs_max_cwnd from the top-level [tcp]"),
        "{}",
        e[0].1
    );
    // [tcp] failing alone: said at [tcp], not again at the app
    let mut top = bad.clone();
    top["transport"] = json!("swift");
    let e = errs(doc(top, json!({"mss": 1400})));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "tcp.swift_fs_min_cwnd");
    // the app's own values: at its own key, as before
    let e = errs(doc(
        json!({}),
        json!({"transport": "swift", "swift_fs_min_cwnd": 50, "swift_fs_max_cwnd": 10}),
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "apps[0].tcp.swift_fs_min_cwnd");
    // and [tcp]'s values under a transport they do not concern: no problem
    assert!(errs(doc(bad, json!({"mss": 1400}))).is_empty());
}

/// The "nothing will be marked" warning's hint applies to what the apps
/// run: following it (`tcp.ecn` for TCP, `transport = "dcqcn"` for a
/// transport that reads no ECN) ends the warning and brings no other
/// about ECN; a hint never offers `tcp.ecn` or a cc to a transport that
/// reads neither.
#[test]
fn the_unmarked_warnings_hint_is_a_fix_that_works() {
    let marked = |tcp: Value| {
        let doc = json!({"name": "hint", "stop": "10ms",
            "topology": {"kind": "star", "hosts": 5, "rate": "10Gbps", "delay": "1us",
                         "buffer": "1MB", "ecn_k": "100KB"},
            "tcp": tcp,
            "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-4",
                      "response": "64KB", "queries": 2, "gap": "1ms"}]});
        warnings(&parse_config(&doc).unwrap())
            .into_iter()
            .map(|w| w.message)
            .filter(|m| m.contains("ecn") || m.contains("ECN"))
            .collect::<Vec<String>>()
    };
    let hint = |w: &[String]| {
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("nothing will be marked"), "{w:?}");
        w[0].rsplit("; ").next().unwrap().to_string()
    };
    // TCP without ECN: tcp.ecn is the fix
    let h = hint(&marked(json!({"cc": "newreno"})));
    assert!(h.starts_with("set tcp.ecn = true"), "{h}");
    assert!(marked(json!({"cc": "newreno", "ecn": true})).is_empty());
    for transport in ["hpcc", "ndp", "swift", "timely"] {
        let h = hint(&marked(json!({"transport": transport})));
        assert!(
            h.starts_with("set tcp.transport = dcqcn"),
            "{transport}: {h}"
        );
    }
    assert!(marked(json!({"transport": "dcqcn"})).is_empty());
}

/// A queue listed twice in `trace.queues` would give each of its samples
/// twice (a mean or a sum over `queue_ts` doubled): refused at the entry.
#[test]
fn a_traced_queue_listed_twice_is_refused() {
    let mut doc = example();
    doc["trace"] = json!({"interval": "1ms", "queues": [0, 1, 0]});
    let errs = parse_config(&doc).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.path == "trace.queues[2]" && e.message == "queue 0 is listed twice"),
        "{errs:?}"
    );
    doc["trace"] = json!({"interval": "1ms", "queues": [0, 1]});
    assert!(parse_config(&doc).is_ok());
}

/// A custom link between two hosts has no switch port: its own `buffer`
/// and `ecn_k` would change nothing (both queues are NICs), so they are
/// refused at the key; without them it builds.
#[test]
fn a_host_to_host_links_switch_keys_are_refused() {
    let link = |extra: Value| {
        let mut l = json!({"a": "h0", "b": "h1", "rate": "1Gbps", "delay": "1us"});
        for (k, v) in extra.as_object().unwrap() {
            l[k] = v.clone();
        }
        let mut doc = example();
        doc["topology"] = json!({"kind": "custom",
            "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}],
            "links": [l]});
        doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": "10KB"}]);
        parse_config(&doc)
    };
    let errs = link(json!({"buffer": "9pkt", "ecn_k": "3pkt"})).unwrap_err();
    for key in ["buffer", "ecn_k"] {
        assert!(
            errs.iter()
                .any(|e| e.path == format!("topology.links[0].{key}")
                    && e.message.contains("no switch port")),
            "{errs:?}"
        );
    }
    assert!(link(json!({})).is_ok());
}

/// A two-tier topology's common `buffer` and `ecn_k` are read by no port
/// when both tiers set their own: warned of, each at its key; with one
/// tier left to it, not.
#[test]
fn a_two_tier_common_key_both_tiers_override_is_warned_of() {
    let mut doc = example();
    doc["topology"] = json!({"kind": "two_tier", "racks": 2, "hosts_per_rack": 2,
        "host_rate": "1Gbps", "core_rate": "10Gbps", "delay": "10us",
        "buffer": "100KB", "tor_buffer": "64KB", "agg_buffer": "128KB",
        "ecn_k": "20pkt", "tor_ecn_k": "10pkt", "agg_ecn_k": "30pkt"});
    doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 3, "size": "10KB"}]);
    let warned = |doc: &Value| -> Vec<String> {
        crate::scenario::warnings(&parse_config(doc).unwrap())
            .into_iter()
            .filter(|w| w.message.contains("are both given"))
            .map(|w| w.path)
            .collect()
    };
    assert_eq!(warned(&doc), ["topology.buffer", "topology.ecn_k"]);
    doc["topology"]
        .as_object_mut()
        .unwrap()
        .remove("agg_buffer");
    assert_eq!(warned(&doc), ["topology.ecn_k"]);
}

/// `limits.events` takes what its message says: a whole number from 1 to
/// 1e19, as a number or as text; 1.5e19 (within u64, past the stated
/// range) is refused.
#[test]
fn limits_events_takes_the_range_it_states() {
    let mut doc = example();
    for ok in [
        json!(1e12),
        json!("1e12"),
        json!(1e19),
        json!(1_000_000_000u64),
    ] {
        doc["limits"] = json!({"events": ok});
        assert!(parse_config(&doc).is_ok(), "{ok}");
    }
    for bad in [
        json!(1.5e19),
        json!("2e19"),
        json!(0),
        json!(2.5),
        json!("x"),
    ] {
        doc["limits"] = json!({"events": bad});
        let errs = parse_config(&doc).unwrap_err();
        assert!(
            errs.iter().any(|e| e.path == "limits.events"
                && e.message
                    .starts_with("expected a whole number from 1 to 1e19")),
            "{bad}: {errs:?}"
        );
    }
}

/// A key of another topology kind says whose it is (tor_buffer on a star
/// is not a misspelt nic_buffer), an app's key at the top level says
/// where it goes, and a misspelling still gets its near key.
#[test]
fn a_key_in_the_wrong_place_says_where_it_goes() {
    let hint = |f: &dyn Fn(&mut Value)| {
        let mut doc = example();
        f(&mut doc);
        let errs = parse_config(&doc).unwrap_err();
        errs.iter()
            .map(|e| format!("{}: {}", e.path, e.message))
            .collect::<Vec<_>>()
    };
    let star = |key: &'static str| move |d: &mut Value| d["topology"][key] = json!("10KB");
    assert!(hint(&star("tor_buffer"))[0].ends_with("(a key of topology kind two_tier)"));
    assert!(hint(&star("bufer"))[0].ends_with("(did you mean 'buffer'?)"));
    let top_src = |d: &mut Value| d["src"] = json!(1);
    assert!(
        hint(&top_src)[0].ends_with("(an app's key: apps[i].src, in an [[apps]] table)"),
        "{:?}",
        hint(&top_src)
    );
}

/// A `[trace]` that samples nothing (`flows = false`, no `queues`) says so;
/// one that samples flows or a queue does not.
#[test]
fn a_trace_that_records_nothing_warns() {
    let trace_warnings = |trace: Value| {
        let mut doc = example();
        doc["trace"] = trace;
        warnings(&parse_config(&doc).unwrap())
            .into_iter()
            .filter(|w| w.path == "trace")
            .collect::<Vec<_>>()
    };
    let w = trace_warnings(json!({"interval": "1ms", "flows": false}));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.starts_with("records nothing"), "{w:?}");
    assert!(trace_warnings(json!({"interval": "1ms"})).is_empty());
    assert!(trace_warnings(json!({"interval": "1ms", "flows": false, "queues": [0]})).is_empty());
}

/// A Poisson flow-size CDF that puts 1 % or more of its flows under 64
/// bytes reads as packets, not bytes (ns-2's pFabric and PIAS CDF files
/// list packets: the data-mining table's first point is 1 packet with
/// probability 0.5), and is warned of at the key that gave it; the
/// built-in tables, in bytes, and a CDF of real byte sizes are not.
#[test]
fn a_cdf_that_reads_as_packets_warns() {
    let cdf_warnings = |app: Value| {
        let mut doc = example();
        doc["apps"] = json!([app]);
        warnings(&parse_config(&doc).unwrap())
            .into_iter()
            .filter(|w| w.path.starts_with("apps[0].cdf"))
            .collect::<Vec<_>>()
    };
    let poisson = |cdf: Value| {
        json!({"kind": "poisson", "load": 0.5, "cdf": cdf, "sources": "1-16",
               "destinations": [0], "flows": 10, "duration": "1s"})
    };
    // the VL2 data-mining table as ns-2's CDF_vl2.tcl writes it, in packets
    let packets = json!([
        [1, 0],
        [1, 0.5],
        [2, 0.6],
        [3, 0.7],
        [7, 0.8],
        [267, 0.9],
        [2107, 0.95],
        [66667, 0.99],
        [666667, 1]
    ]);
    let w = cdf_warnings(poisson(packets.clone()));
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "apps[0].cdf");
    assert!(
        // linear between (7, 0.8) and (267, 0.9): P(size ≤ 63) = 0.8 + 56/260 · 0.1
        w[0].message
            .starts_with("82 % of its flows are under 64 bytes")
            && w[0]
                .message
                .contains("multiply each size by the MSS (1024 B)"),
        "{w:?}"
    );
    // the same table in bytes (× 1460), and the built-ins, say nothing
    let bytes: Vec<Value> = packets
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!([p[0].as_f64().unwrap() * 1460.0, p[1]]))
        .collect();
    assert!(cdf_warnings(poisson(json!(bytes))).is_empty());
    for name in ["websearch", "datamining"] {
        assert!(cdf_warnings(poisson(json!(name))).is_empty(), "{name}");
    }
    // from a file: the warning names `cdf_file`
    let file = std::env::temp_dir().join(format!("dcnsim-vl2-packets-{}.txt", std::process::id()));
    std::fs::write(&file, "1 0\n1 0.5\n7 0.8\n666667 1\n").unwrap();
    let mut app = poisson(json!(null));
    app.as_object_mut().unwrap().remove("cdf");
    app["cdf_file"] = json!(file.to_str().unwrap());
    let w = cdf_warnings(app);
    let _ = std::fs::remove_file(&file);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "apps[0].cdf_file");
}

/// An `init_cwnd` of a thousand segments or more is warned of as a likely
/// window in bytes (htsim's and some papers' unit), at the key that set
/// it; RFC 6928's 10 and a large but plausible 100 are not.
#[test]
fn an_init_cwnd_in_bytes_warns() {
    let cwnd_warnings = |tcp: Value| {
        warnings_with_tcp(tcp)
            .into_iter()
            .filter(|w| w.path.ends_with("init_cwnd"))
            .collect::<Vec<_>>()
    };
    let w = cwnd_warnings(json!({"mss": 1460, "init_cwnd": 14600}));
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "tcp.init_cwnd");
    assert!(
        w[0].message.starts_with(
            "init_cwnd is a count of segments: 14600 segments of 1460 B is 21316000 B"
        ),
        "{w:?}"
    );
    assert!(cwnd_warnings(json!({"init_cwnd": 10})).is_empty());
    assert!(cwnd_warnings(json!({"init_cwnd": 100})).is_empty());
}

/// BBR without SACK is warned of at the key that chose BBR (NewReno's
/// one-hole-a-round-trip recovery under BBR's standing queue); with SACK,
/// or under the linux profile (which turns SACK on), it is not.
#[test]
fn bbr_without_sack_warns() {
    let bbr_warnings = |tcp: Value| {
        warnings_with_tcp(tcp)
            .into_iter()
            .filter(|w| w.message.starts_with("bbr without SACK"))
            .collect::<Vec<_>>()
    };
    let w = bbr_warnings(json!({"cc": "bbr"}));
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "tcp.cc");
    assert!(w[0].message.contains("tcp.sack = true"), "{w:?}");
    assert!(bbr_warnings(json!({"cc": "bbr", "sack": true})).is_empty());
    assert!(bbr_warnings(json!({"cc": "bbr", "profile": "linux"})).is_empty());
    assert!(bbr_warnings(json!({"cc": "bbr"})).len() == 1);
    assert!(bbr_warnings(json!({"cc": "cubic"})).is_empty());
    // sack turned off by hand under the linux profile: not blamed on the
    // papers profile, and the kernel's collapse is not said to be this
    // model's (docs/bbr.md: dcnsim's lone flow keeps 94 Mbit/s)
    let w = bbr_warnings(json!({"cc": "bbr", "profile": "linux", "sack": false}));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        !w[0].message.contains("profile's default") && !w[0].message.contains("the same way"),
        "{w:?}"
    );
    assert!(w[0]
        .message
        .contains("where this model's lone flow does not"));
}

/// A star one host past the node limit: `hosts` alone passes its own
/// bound (≤ MAX_NODES), so the message says how the nodes add up and how
/// many hosts fit, not just "too large: 1000001 nodes".
#[test]
fn a_topology_past_the_node_limit_says_how_many_hosts_fit() {
    let doc = json!({"stop": "1ms",
        "topology": {"kind": "star", "hosts": crate::net::topology::MAX_NODES, "rate": "1Gbps",
                     "delay": "1us", "buffer": "10KB"},
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1KB"}]});
    let e = parse_config(&doc).err().unwrap_or_default();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].path, "topology");
    let max = crate::net::topology::MAX_NODES;
    assert_eq!(
        e[0].message,
        format!(
            "too large: {max} hosts and 1 switch, {} nodes (at most {max}, so at most {} hosts \
             with these switches)",
            max + 1,
            max - 1
        )
    );
}

/// A table written as its mode's name (`routing = "ecmp"`, the Python
/// builder's shorthand) is refused with the table it means.
#[test]
fn a_table_written_as_a_name_says_which_table_is_meant() {
    let mut doc = example();
    doc["routing"] = json!("ecmp");
    let e = parse_config(&doc).err().unwrap_or_default();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(
        (e[0].path.as_str(), e[0].message.as_str()),
        (
            "routing",
            "expected a table, got a string (write {mode = \"ecmp\"})"
        )
    );
    // a custom node written as its name: its name and kind, not `{kind =
    // "h0"}`, which only led to a second error (audit of 2026-12-07)
    let doc = json!({"topology": {"kind": "custom", "nodes": ["h0", {"name": "s0", "kind": "switch"}],
                                  "links": []}, "apps": []});
    let e = parse_config(&doc).err().unwrap_or_default();
    assert!(
        e.iter().any(|e| e.path == "topology.nodes[0]"
            && e.message
                == "expected a table, got a string (write {name = \"h0\", kind = \"host\"}, or kind = \"switch\")"),
        "{e:?}"
    );
}

/// Swift sprayed over a fat-tree's paths warns at `routing.mode` (its
/// recovery reads an overtaken packet as a loss), not on one path (a star),
/// not under ECMP, and not for TCP (the packet-spraying paper's subject).
#[test]
fn swift_sprayed_over_many_paths_warns() {
    let swift_warnings = |topology: Value, mode: &str, transport: &str| {
        let doc = json!({"stop": "1ms", "topology": topology, "routing": {"mode": mode},
            "tcp": {"transport": transport},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "100KB"}]});
        warnings(&parse_config(&doc).unwrap())
            .into_iter()
            .filter(|w| w.message.starts_with("rps sprays the packets of Swift"))
            .collect::<Vec<_>>()
    };
    let tree =
        json!({"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100KB"});
    let w = swift_warnings(tree.clone(), "rps", "swift");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "routing.mode");
    assert!(w[0].message.contains("tcp.dupack_threshold"), "{w:?}");
    assert!(swift_warnings(tree.clone(), "ecmp", "swift").is_empty());
    assert!(swift_warnings(tree, "rps", "tcp").is_empty());
    let star =
        json!({"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us", "buffer": "100KB"});
    assert!(swift_warnings(star, "rps", "swift").is_empty());
}

/// `int = true` with no HPCC flow warns at `int`; with one, or left to
/// its default, it does not.
#[test]
fn telemetry_nothing_reads_warns() {
    let int_warnings = |tcp: Value, int: Option<bool>| {
        let mut doc = example();
        doc["tcp"] = tcp;
        if let Some(on) = int {
            doc["int"] = json!(on);
        }
        warnings(&parse_config(&doc).unwrap())
            .into_iter()
            .filter(|w| w.path == "int")
            .collect::<Vec<_>>()
    };
    let w = int_warnings(json!({}), Some(true));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.contains("no hpcc flow"), "{w:?}");
    assert!(int_warnings(json!({"transport": "hpcc"}), Some(true)).is_empty());
    assert!(int_warnings(json!({"transport": "hpcc"}), None).is_empty());
    assert!(int_warnings(json!({}), None).is_empty());
}

/// An ACK every more segments than the first window holds (no quick
/// ACKs) warns at `tcp.delayed_ack_segments`: the first ACK waits for the
/// timer. Not at RFC 1122's 2 of an initial window of 2, not without
/// delayed ACKs, not with quick ACKs covering the start.
#[test]
fn delayed_acks_past_the_first_window_warn() {
    let found = |tcp: Value| {
        warnings_with_tcp(tcp)
            .into_iter()
            .filter(|w| w.message.starts_with("an ACK every"))
            .collect::<Vec<_>>()
    };
    let w = found(json!({"delayed_ack": true, "delayed_ack_segments": 4, "init_cwnd": 2}));
    assert_eq!(w[0].path, "tcp.delayed_ack_segments");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].message
            .starts_with("an ACK every 4 segments, more than the initial window of 2"),
        "{w:?}"
    );
    assert!(
        found(json!({"delayed_ack": true, "delayed_ack_segments": 2, "init_cwnd": 2})).is_empty()
    );
    assert!(
        found(json!({"delayed_ack": false, "delayed_ack_segments": 4, "init_cwnd": 2})).is_empty()
    );
    assert!(
        found(json!({"delayed_ack": true, "delayed_ack_segments": 4, "init_cwnd": 10})).is_empty()
    );
    assert!(found(
        json!({"delayed_ack": true, "delayed_ack_segments": 4, "init_cwnd": 2,
                          "delayed_ack_quickack": 16})
    )
    .is_empty());
    // ns-3's: the first segment ACKed at once, then every second
    assert!(found(
        json!({"delayed_ack": true, "delayed_ack_segments": 2, "init_cwnd": 1,
                          "delayed_ack_quickack": 1})
    )
    .is_empty());
}

/// A star of one switch whose hosts' access links have the given rates.
fn star_of_rates(rates: &[&str]) -> Value {
    let mut nodes = vec![json!({"name": "s", "kind": "switch"})];
    let mut links = Vec::new();
    for (i, r) in rates.iter().enumerate() {
        nodes.insert(i, json!({"name": format!("h{i}"), "kind": "host"}));
        links.push(json!({"a": format!("h{i}"), "b": "s", "rate": r, "delay": "5us"}));
    }
    json!({"kind": "custom", "buffer": "300KB", "nodes": nodes, "links": links})
}

/// A Poisson app's `load` is a fraction of the sources' total access rate
/// C, and each source is drawn uniformly, so a source slower than the
/// mean is offered more than its share: over its link's rate, the app is
/// warned of at `load`, naming the slowest host. A destination offered
/// more than its link (a few destinations for many sources) is warned of
/// at `destinations`. Equal rates at load 1 load every link exactly to
/// its rate, and say nothing.
#[test]
fn a_poisson_load_past_a_hosts_link_warns() {
    let said = |topology: Value, app: Value| {
        let mut doc = example();
        doc["topology"] = topology;
        doc["apps"] = json!([app]);
        warnings(&parse_config(&doc).unwrap())
            .into_iter()
            .filter(|w| w.path == "apps[0].load" || w.path == "apps[0].destinations")
            .collect::<Vec<_>>()
    };
    let poisson = |load: f64| {
        json!({"kind": "poisson", "load": load, "cdf": [["100KB", 0], ["100KB", 1]],
               "duration": "10ms"})
    };
    // one 1 Gbps host among three of 10 Gbps: C = 31 Gbps, 0.5 × 31 / 4
    // = 3.875 Gbps offered to each source and (sources = destinations)
    // received by each destination: 388 % of host 0's link
    let het = star_of_rates(&["1Gbps", "10Gbps", "10Gbps", "10Gbps"]);
    let w = said(het.clone(), poisson(0.5));
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[0].path, "apps[0].load");
    assert!(
        w[0].message
            .starts_with("each source is offered load × C / n = 3.875Gbps")
            && w[0]
                .message
                .contains("388 % of host 0's access link (1Gbps)"),
        "{w:?}"
    );
    assert_eq!(w[1].path, "apps[0].destinations");
    assert!(
        w[1].message.starts_with("host 0 receives 3.875Gbps"),
        "{w:?}"
    );
    // at a load the slow host can carry, nothing
    assert!(said(het, poisson(0.1)).is_empty());
    // equal rates: load 1 is every link at its rate, not past it
    let equal = star_of_rates(&["10Gbps"; 4]);
    assert!(said(equal.clone(), poisson(1.0)).is_empty());
    // three sources into one destination at load 0.5: 1.5 × its link
    let mut incast = poisson(0.5);
    incast["sources"] = json!("1-3");
    incast["destinations"] = json!([0]);
    let w = said(equal, incast);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "apps[0].destinations");
    assert!(
        w[0].message
            .starts_with("host 0 receives 15Gbps on average, 150 %"),
        "{w:?}"
    );
}

/// A fixed retransmission timer shorter than the fastest host link takes
/// to send one full packet (the example's star at 1 Gbps, the default
/// 1,460 + 40 B: 12 µs), or a retransmit thread faster than the smallest segment, is
/// refused naming the key where it was set: each expiry resends faster
/// than anything can leave, and the run never reaches `stop` (`ndp_rto =
/// "1ps"` ran past a minute and 3 GB). A timer below every path's
/// unloaded RTT (at least 2 × (100 µs + a 40-byte header's 320 ns)) is
/// warned of, not refused: a long path's default timer resends a few
/// times and finishes. Keys of a transport not in use say nothing.
#[test]
fn a_timer_below_every_rtt_is_refused_or_warned_naming_its_key() {
    let with = |tcp: Value, app_tcp: Option<Value>| {
        let mut doc = example();
        doc["tcp"] = tcp;
        if let Some(t) = app_tcp {
            doc["apps"][0]["tcp"] = t;
        }
        parse_config(&doc)
    };
    // each refusal with its own bound: a full packet for the timers, the
    // smallest segment for Kulkarni's thread
    let refused = |r: Result<Config, Vec<ScenarioError>>, path: &str, says: &str| {
        let errs = r.expect_err("a timer below one packet's serialization must be refused");
        assert!(
            errs.iter()
                .any(|e| e.path == path && e.message.contains(says)),
            "{errs:?}"
        );
    };
    let full = "shorter than the fastest host link takes to send one full packet (12us)";
    let warned = |r: Result<Config, Vec<ScenarioError>>, key: &str| -> Vec<ScenarioError> {
        let cfg = r.unwrap_or_else(|e| panic!("{e:?}"));
        warnings(&cfg)
            .into_iter()
            .filter(|w| w.path.ends_with(key) && w.message.contains("below the unloaded RTT"))
            .collect()
    };
    for (transport, key) in [
        ("ndp", "ndp_rto"),
        ("dcqcn", "dcqcn_rto"),
        ("timely", "timely_rto"),
        ("hpcc", "hpcc_rto"),
    ] {
        refused(
            with(json!({"transport": transport, key: "8us"}), None),
            &format!("tcp.{key}"),
            full,
        );
        refused(
            with(json!({}), Some(json!({"transport": transport, key: "1ps"}))),
            &format!("apps[0].tcp.{key}"),
            full,
        );
        let w = warned(
            with(json!({"transport": transport, key: "200us"}), None),
            key,
        );
        assert!(
            w.len() == 1
                && w[0].path == format!("tcp.{key}")
                && w[0].message.contains("(at least 200.64us)"),
            "{transport}: {w:?}"
        );
        assert!(warned(
            with(json!({"transport": transport, key: "201us"}), None),
            key
        )
        .is_empty());
        // the key of a transport not in use reads nothing: neither
        assert!(warned(with(json!({key: "1ps"}), None), key).is_empty());
    }
    refused(
        with(json!({"probretx_p": 1.0, "probretx_period": "100ns"}), None),
        "tcp.probretx_period",
        "shorter than the fastest host link takes to send the smallest segment (328ns)",
    );
    assert!(with(json!({"probretx_p": 1.0, "probretx_period": "20us"}), None).is_ok());
    assert!(with(json!({"probretx_period": "1ps"}), None).is_ok()); // p = 0: no thread
}

/// The RTT bound reads a host-to-host link as one crossing each way: two
/// hosts joined by a 10 µs link have a 20 µs round trip, and an `ndp_rto`
/// of 35 µs ran cleanly (it was refused as below 40 µs, "two host links
/// each way", a review found).
#[test]
fn a_host_to_host_link_bounds_the_rtt_by_its_own_crossings() {
    let doc = json!({"stop": "1ms",
        "topology": {"kind": "custom", "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}],
                     "links": [{"a": "h0", "b": "h1", "rate": "10Gbps", "delay": "10us"}]},
        "tcp": {"transport": "ndp", "ndp_rto": "35us"},
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}]});
    let cfg = parse_config(&doc).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        warnings(&cfg)
            .iter()
            .all(|w| !w.message.contains("below the unloaded RTT")),
        "{:?}",
        warnings(&cfg)
    );
}
