//! A new user's first scenarios with NDP, Swift, HPCC, DCQCN and TIMELY:
//! a key the transport never reads is warned about, naming it; a value
//! that makes the scheme meaningless is refused (or warned about), naming
//! the field and the reason.

use dcnsim::scenario::{parse_config, warnings, ScenarioError};
use serde_json::{json, Value};

mod common;
use common::assert_err;

const TRANSPORTS: [&str; 5] = ["ndp", "swift", "hpcc", "dcqcn", "timely"];

/// Eight senders into one host of a 100 Gbps star, over `transport`
/// (NDP's with `[trimming]`, DCQCN's and TIMELY's with an ECN threshold).
fn incast(transport: &str, tcp: Value) -> Value {
    let mut doc = json!({
        "stop": "10ms",
        "topology": {"kind": "star", "hosts": 9, "rate": "100Gbps", "delay": "1us",
                     "buffer": "135000B"},
        "tcp": {"transport": transport, "mss": 9000, "header": 64},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-8",
                  "response": "1MB", "queries": 1}]
    });
    if transport == "ndp" {
        doc["trimming"] = json!({});
    }
    if transport == "dcqcn" {
        doc["topology"]["ecn_k"] = json!("100KB");
    }
    for (k, v) in tcp.as_object().unwrap() {
        doc["tcp"][k] = v.clone();
    }
    doc
}

fn warned(doc: &Value) -> Vec<ScenarioError> {
    match parse_config(doc) {
        Ok(cfg) => warnings(&cfg),
        Err(e) => panic!("expected a valid scenario, got {e:?}"),
    }
}

fn errors(doc: &Value) -> Vec<ScenarioError> {
    match parse_config(doc) {
        Ok(_) => panic!("expected errors for {doc}"),
        Err(e) => e,
    }
}

fn warning_at<'a>(w: &'a [ScenarioError], path: &str) -> Option<&'a ScenarioError> {
    w.iter().find(|e| e.path == path)
}

/// TCP's own keys (its congestion control, windows, recovery, timers and
/// ACKs) are never read by the other transports: setting one there is
/// warned about at its path, naming the transport that reads it; the keys
/// every transport reads (`mss`, `header`) are not.
#[test]
fn tcp_keys_on_another_transport_are_named_as_changing_nothing() {
    for t in TRANSPORTS {
        let doc = incast(
            t,
            json!({"cc": "cubic", "init_cwnd": 50, "sack": true, "rto_min": "1ms",
                   "delayed_ack": true, "ecn": true}),
        );
        let w = warned(&doc);
        for key in ["cc", "init_cwnd", "sack", "rto_min", "delayed_ack", "ecn"] {
            let path = format!("tcp.{key}");
            let e = warning_at(&w, &path)
                .unwrap_or_else(|| panic!("{t}: no warning at {path}; got {w:?}"));
            assert!(
                e.message.contains("changes nothing") && e.message.contains("transport = \"tcp\""),
                "{t}: {e}"
            );
        }
        for key in ["mss", "header"] {
            assert!(
                warning_at(&w, &format!("tcp.{key}")).is_none(),
                "{t}: {w:?}"
            );
        }
    }
    // the same key read by TCP is silent
    let mut tcp = incast("ndp", json!({"init_cwnd": 50}));
    tcp["tcp"]["transport"] = json!("tcp");
    assert!(warning_at(&warned(&tcp), "tcp.init_cwnd").is_none());
}

/// Swift's fast retransmit counts `dupack_threshold` duplicate ACKs (as
/// htsim's): read there, and nowhere else outside TCP.
#[test]
fn dupack_threshold_is_read_by_swift_only_among_the_other_transports() {
    for t in TRANSPORTS {
        let w = warned(&incast(t, json!({"dupack_threshold": 5})));
        let named = warning_at(&w, "tcp.dupack_threshold").is_some();
        assert_eq!(named, t != "swift", "{t}: {w:?}");
    }
}

/// An app's own override names the app.
#[test]
fn an_apps_own_tcp_key_on_another_transport_names_the_app() {
    let mut doc = incast("hpcc", json!({}));
    doc["apps"][0]["tcp"] = json!({"init_cwnd": 10});
    let w = warned(&doc);
    let e = warning_at(&w, "apps[0].tcp.init_cwnd").expect("a warning at the app's key");
    assert!(e.message.contains("app 0") && e.message.contains("transport = \"tcp\""));
}

/// `cc = "dctcp"` on NDP flows runs no DCTCP: the advice to add ECN-marking
/// queues for it would mislead; the inert `cc` is named instead.
#[test]
fn dctcp_named_on_ndp_flows_gets_no_ecn_advice() {
    let w = warned(&incast("ndp", json!({"cc": "dctcp"})));
    let cc: Vec<_> = w.iter().filter(|e| e.path == "tcp.cc").collect();
    assert_eq!(cc.len(), 1, "{w:?}");
    assert!(cc[0].message.contains("changes nothing"), "{}", cc[0]);
    // and an ecn_k there marks nothing: NDP sends no ECN-capable packet
    // whatever its cc says
    let mut doc = incast("ndp", json!({"cc": "dctcp"}));
    doc["topology"]["ecn_k"] = json!("20pkt");
    let w = warned(&doc);
    let e = warning_at(&w, "topology").expect("the unmarked ecn_k warning");
    assert!(e.message.contains("nothing will be marked"), "{e}");
}

/// TIMELY runs on DCQCN's rate sender but reads none of DCQCN's keys (its
/// packets carry no ECT, so no CNP, cut, α or timer; no byte counter).
#[test]
fn dcqcn_keys_on_timely_flows_are_named() {
    let w = warned(&incast(
        "timely",
        json!({"dcqcn_g": 0.5, "dcqcn_rai": "1Gbps"}),
    ));
    for key in ["dcqcn_g", "dcqcn_rai"] {
        let e = warning_at(&w, &format!("tcp.{key}")).expect("named");
        assert!(e.message.contains("transport = \"dcqcn\""), "{e}");
    }
    assert!(warning_at(
        &warned(&incast("dcqcn", json!({"dcqcn_g": 0.5}))),
        "tcp.dcqcn_g"
    )
    .is_none());
}

/// Swift's PLB is htsim's rule; the `plb_*` thresholds are DCTCP's.
#[test]
fn plb_thresholds_on_swift_are_named() {
    let w = warned(&incast(
        "swift",
        json!({"plb": true, "plb_rehash_rounds": 3}),
    ));
    assert!(warning_at(&w, "tcp.plb_rehash_rounds").is_some(), "{w:?}");
    assert!(warning_at(&w, "tcp.plb").is_none(), "{w:?}");
}

/// A trimmed header must be smaller than the packets it is cut from: a
/// "trimmed" 9,064-byte packet would otherwise keep its size or grow (a
/// 100 KB header), and the port's byte counts with it.
#[test]
fn a_trimmed_header_not_smaller_than_a_full_packet_is_refused() {
    for header in [json!("9064B"), json!("100KB")] {
        let mut doc = incast("ndp", json!({}));
        doc["trimming"] = json!({"header": header});
        assert_err(&errors(&doc), "trimming.header", "would not shrink them");
    }
    // TCP flows of 10-byte segments: 50-byte packets, under the 64-byte default
    let mut doc = incast("ndp", json!({"mss": 10, "header": 40}));
    doc["tcp"]["transport"] = json!("tcp");
    assert_err(&errors(&doc), "trimming.header", "50 bytes on the wire");
    // one byte below the packet is still a cut
    let mut doc = incast("ndp", json!({}));
    doc["trimming"] = json!({"header": "9063B"});
    parse_config(&doc).unwrap();
    // a UDP source of 20-byte datagrams (48 bytes) beside NDP's flows is no
    // misconfiguration of trimming: its packets keep their size when trimmed
    let mut doc = incast("ndp", json!({}));
    doc["apps"].as_array_mut().unwrap().push(json!(
        {"kind": "udp_cbr", "src": 1, "dst": 2, "rate": "1Gbps", "payload": 20, "stop": "1ms"}));
    let cfg = parse_config(&doc).expect("a small UDP source beside NDP is valid");
    let r = dcnsim::run(&cfg);
    common::check_conservation(&r);
}

/// A header queue of 0 holds nothing: refused as any queue limit of 0.
#[test]
fn a_header_queue_of_zero_is_refused() {
    for limit in [json!(0), json!("0pkt")] {
        let mut doc = incast("ndp", json!({}));
        doc["trimming"] = json!({"header_buffer": limit});
        assert_err(&errors(&doc), "trimming.header_buffer", "must be above 0");
    }
}

/// A key whose range is (0, 1] says "> 0" to a negative value too, as to 0.
#[test]
fn a_negative_fraction_is_told_the_open_bound() {
    for (t, key) in [
        ("ndp", "ndp_pull_rate"),
        ("hpcc", "hpcc_eta"),
        ("dcqcn", "dcqcn_g"),
        ("timely", "timely_alpha"),
    ] {
        let e = errors(&incast(t, json!({key: -0.5})));
        assert_err(&e, &format!("tcp.{key}"), "must be > 0, got -0.5");
    }
}

/// Swift keeps its window within [min_cwnd, max_cwnd]: an initial window
/// above the cap is refused, naming both.
#[test]
fn swift_initial_window_above_its_max_is_refused() {
    let e = errors(&incast(
        "swift",
        json!({"swift_initial_window": 5000, "swift_max_cwnd": 1000}),
    ));
    assert_err(&e, "tcp.swift_initial_window", "exceeds swift_max_cwnd");
    parse_config(&incast("swift", json!({"swift_initial_window": 1000}))).unwrap();
}

/// A swift_max_cwnd below the default initial window (15 packets) alone is
/// valid: the default first flight is cut to the cap, not refused at a key
/// the user never set; an app's own cap does the same for that app.
#[test]
fn a_small_swift_max_cwnd_alone_caps_the_default_initial_window() {
    let initial = |doc: &Value| -> Vec<u32> {
        let cfg = parse_config(doc).unwrap_or_else(|e| panic!("expected valid, got {e:?}"));
        cfg.apps
            .iter()
            .map(|a| a.tcp().expect("a TCP-family app").swift.initial_window)
            .collect()
    };
    assert_eq!(
        initial(&incast("swift", json!({"swift_max_cwnd": 10}))),
        [10]
    );
    assert_eq!(
        initial(&incast("swift", json!({"swift_max_cwnd": 40}))),
        [15]
    );
    let mut doc = incast("swift", json!({}));
    doc["apps"][0]["tcp"] = json!({"swift_max_cwnd": 4});
    assert_eq!(initial(&doc), [4]);
    // a window given above the cap is still refused, wherever the cap is set
    doc["tcp"]["swift_initial_window"] = json!(8);
    assert_err(
        &errors(&doc),
        "apps[0].tcp.swift_initial_window",
        "exceeds swift_max_cwnd",
    );
}

/// An HPCC W_AI at or above every flow's W_init pins each window at
/// W_init (line rate, whatever INT says; it was accepted): refused where
/// it was set. With `hpcc_base_rtt = 12us` at 100 Gbps W_init is 150,000
/// bytes; with each flow's own RTT (here 5.46 µs: two 1 µs hops each way,
/// 9,064 bytes out and 64 back) 68,256 bytes. Below those it is accepted.
#[test]
fn an_hpcc_w_ai_not_below_w_init_is_refused() {
    let t12 = json!({"hpcc_base_rtt": "12us", "hpcc_w_ai": "150000B"});
    assert_err(
        &errors(&incast("hpcc", t12)),
        "tcp.hpcc_w_ai",
        "150000 bytes is not below W_init",
    );
    let e = errors(&incast("hpcc", json!({"hpcc_w_ai": "68256B"})));
    assert_err(
        &e,
        "tcp.hpcc_w_ai",
        "at most 68256 bytes: 100Gbps × T, a path's",
    );
    let mut doc = incast("hpcc", json!({}));
    doc["apps"][0]["tcp"] = json!({"hpcc_w_ai": "1MB"});
    assert_err(
        &errors(&doc),
        "apps[0].tcp.hpcc_w_ai",
        "never falls below W_init",
    );
    for ok in [
        json!({"hpcc_base_rtt": "12us", "hpcc_w_ai": "149999B"}),
        json!({"hpcc_w_ai": "68000B"}),
        json!({"hpcc_w_ai": "80B"}),
    ] {
        warned(&incast("hpcc", ok));
    }
}

/// `swift_max_mdf = 0` leaves Swift no cut at all (it was accepted):
/// refused where it was set, in `[tcp]` or an app's own table, and where
/// an app makes its flows Swift; on another transport it is only inert.
#[test]
fn a_swift_max_mdf_of_zero_is_refused() {
    let e = errors(&incast("swift", json!({"swift_max_mdf": 0})));
    assert_err(&e, "tcp.swift_max_mdf", "leaves Swift no decrease");
    let mut doc = incast("swift", json!({}));
    doc["apps"][0]["tcp"] = json!({"swift_max_mdf": 0.0});
    assert_err(&errors(&doc), "apps[0].tcp.swift_max_mdf", "no decrease");
    let mut doc = incast("tcp", json!({"swift_max_mdf": 0}));
    doc["apps"][0]["tcp"] = json!({"transport": "swift"});
    assert_err(&errors(&doc), "apps[0].tcp.swift_max_mdf", "no decrease");
    for ok in [json!({"swift_max_mdf": 0.01}), json!({"swift_beta": 0})] {
        warned(&incast("swift", ok));
    }
    let w = warned(&incast("tcp", json!({"swift_max_mdf": 0})));
    let e = warning_at(&w, "tcp.swift_max_mdf").unwrap_or_else(|| panic!("{w:?}"));
    assert!(e.message.contains("changes nothing"), "{e}");
}

/// A DCQCN hyper increase below the additive one (accepted silently) is
/// warned about at the key that was set: `dcqcn_rhai`, or a `dcqcn_rai`
/// raised above the default R_HAI (100 Gbps / 10); the defaults and equal
/// steps are not.
#[test]
fn a_dcqcn_rhai_below_dcqcn_rai_is_named() {
    let w = warned(&incast(
        "dcqcn",
        json!({"dcqcn_rai": "2Gbps", "dcqcn_rhai": "1Gbps"}),
    ));
    let e = warning_at(&w, "tcp.dcqcn_rhai").unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        e.message
            .contains("dcqcn_rhai (1Gbps) of app 0 is below dcqcn_rai (2Gbps)"),
        "{e}"
    );
    let w = warned(&incast("dcqcn", json!({"dcqcn_rai": "20Gbps"})));
    let e = warning_at(&w, "tcp.dcqcn_rai").unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        e.message
            .contains("dcqcn_rhai (10Gbps, the default: the line rate / 10)"),
        "{e}"
    );
    for ok in [
        json!({}),
        json!({"dcqcn_rai": "1Gbps"}),
        json!({"dcqcn_rhai": "5Gbps"}),
        json!({"dcqcn_rai": "10Gbps"}),
        json!({"dcqcn_rai": "20Gbps", "dcqcn_rhai": "20Gbps"}),
    ] {
        let w = warned(&incast("dcqcn", ok.clone()));
        assert!(!w.iter().any(|e| e.path.contains("dcqcn_r")), "{ok}: {w:?}");
    }
}

/// A TIMELY hyper-active increase below the additive one (accepted
/// silently) is warned about where it was set, with the additive step it
/// is below, also the default one (100 Gbps / 1000); equal steps (the
/// hyper-active mode off) and the defaults are not.
#[test]
fn a_timely_rhai_below_timely_rai_is_named() {
    let w = warned(&incast(
        "timely",
        json!({"timely_rai": "200Mbps", "timely_rhai": "100Mbps"}),
    ));
    let e = warning_at(&w, "tcp.timely_rhai").unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        e.message
            .contains("timely_rhai (100Mbps) of app 0 is below timely_rai (200Mbps)"),
        "{e}"
    );
    let mut doc = incast("timely", json!({}));
    doc["apps"][0]["tcp"] = json!({"timely_rhai": "50Mbps"});
    let w = warned(&doc);
    let e = warning_at(&w, "apps[0].tcp.timely_rhai").unwrap_or_else(|| panic!("{w:?}"));
    assert!(e.message.contains("(100Mbps, the default"), "{e}");
    for ok in [
        json!({}),
        json!({"timely_rai": "1Gbps"}),
        json!({"timely_rai": "1Gbps", "timely_rhai": "1Gbps"}),
        json!({"timely_rhai": "100Mbps"}),
    ] {
        let w = warned(&incast("timely", ok.clone()));
        assert!(
            !w.iter().any(|e| e.path.ends_with("timely_rhai")),
            "{ok}: {w:?}"
        );
    }
}

/// The rate defaults are fractions of each flow's own sender's NIC, so the
/// two warnings above judge an app by its senders, not by the fabric's
/// fastest host (audit 29: a 25 Gbps sender beside 100 Gbps hosts was
/// warned of a `timely_rhai` above its own δ and not of a `dcqcn_rai`
/// above its own R_HAI).
#[test]
fn the_rate_steps_are_judged_at_the_senders_own_line_rate() {
    let doc = |transport: &str, tcp: Value| {
        let mut tcp = tcp;
        tcp["transport"] = json!(transport);
        tcp["mss"] = json!(4096);
        let mut d = json!({
            "stop": "3ms", "pfc": {},
            "topology": {"kind": "custom", "buffer": "4MB", "ecn_k": "100KB",
                "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                          {"name": "h2", "kind": "host"}, {"name": "s0", "kind": "switch"}],
                "links": [{"a": "h0", "b": "s0", "rate": "100Gbps", "delay": "1us"},
                          {"a": "h1", "b": "s0", "rate": "25Gbps", "delay": "1us"},
                          {"a": "h2", "b": "s0", "rate": "100Gbps", "delay": "1us"}]},
            "tcp": tcp,
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "duration": "1s"}]
        });
        if transport == "timely" {
            d["topology"].as_object_mut().unwrap().remove("ecn_k");
        }
        d
    };
    // R_HAI of the 25 Gbps sender is 2.5 Gbps: below a given 7 Gbps R_AI
    let w = warned(&doc("dcqcn", json!({"dcqcn_rai": "7Gbps"})));
    let e = warning_at(&w, "tcp.dcqcn_rai").unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        e.message
            .contains("dcqcn_rhai (2.5Gbps, the default: the line rate / 10)"),
        "{e}"
    );
    // its R_AI is 1.25 Gbps, below a given 4 Gbps R_HAI: nothing to say
    let w = warned(&doc("dcqcn", json!({"dcqcn_rhai": "4Gbps"})));
    assert!(!w.iter().any(|e| e.path.contains("dcqcn_r")), "{w:?}");
    // its δ is 25 Mbps, below a given 50 Mbps hyper step: nothing to say
    let w = warned(&doc("timely", json!({"timely_rhai": "50Mbps"})));
    assert!(!w.iter().any(|e| e.path.ends_with("timely_rhai")), "{w:?}");
    let w = warned(&doc("timely", json!({"timely_rhai": "20Mbps"})));
    let e = warning_at(&w, "tcp.timely_rhai").unwrap_or_else(|| panic!("{w:?}"));
    assert!(e.message.contains("(25Mbps, the default"), "{e}");
}

/// A rate floor at or above every host's line rate leaves no cut any room.
#[test]
fn a_rate_floor_at_line_rate_is_named() {
    for (t, key) in [("dcqcn", "dcqcn_min_rate"), ("timely", "timely_min_rate")] {
        let w = warned(&incast(t, json!({key: "100Gbps"})));
        let e = warning_at(&w, &format!("tcp.{key}")).unwrap_or_else(|| panic!("{t}: {w:?}"));
        assert!(e.message.contains("line rate"), "{e}");
        let w = warned(&incast(t, json!({key: "10Gbps"})));
        assert!(!w.iter().any(|e| e.path.ends_with(key)), "{w:?}");
    }
}

/// Two more apps of `doc`'s first one, each with `tcp` as its own table.
fn three_apps(mut doc: Value, tcp: [Value; 3]) -> Value {
    let app = doc["apps"][0].clone();
    doc["apps"] = json!([app.clone(), app.clone(), app]);
    for (i, t) in tcp.into_iter().enumerate() {
        doc["apps"][i]["tcp"] = t;
    }
    doc
}

/// A rate floor is named at the table it was set in, with the apps it
/// holds at line rate, once per value: one set in `[tcp]` at `tcp.KEY`
/// (it was named at `apps[0].tcp.KEY`, a table the user never wrote), the
/// apps' own at the first app's path with every app named (the warning
/// named no app, and the second value was dropped as a repeat of the key).
#[test]
fn a_rate_floor_is_named_where_it_was_set_with_its_apps() {
    for (t, key) in [("dcqcn", "dcqcn_min_rate"), ("timely", "timely_min_rate")] {
        let doc = three_apps(
            incast(t, json!({})),
            [
                json!({key: "100Gbps"}),
                json!({key: "100Gbps"}),
                json!({key: "200Gbps"}),
            ],
        );
        let w = warned(&doc);
        let mine: Vec<_> = w.iter().filter(|e| e.message.starts_with(key)).collect();
        assert_eq!(mine.len(), 2, "{t}: {w:?}");
        let e = warning_at(&w, &format!("apps[0].tcp.{key}")).unwrap_or_else(|| panic!("{w:?}"));
        assert!(e.message.contains("(100Gbps) of apps 0, 1 is"), "{e}");
        let e = warning_at(&w, &format!("apps[2].tcp.{key}")).unwrap_or_else(|| panic!("{w:?}"));
        assert!(e.message.contains("(200Gbps) of app 2 is"), "{e}");
        // from [tcp] for two apps, the third's own floor below the line rate
        let mut doc = three_apps(
            incast(t, json!({key: "100Gbps"})),
            [json!({}), json!({}), json!({key: "1Gbps"})],
        );
        doc["apps"][0].as_object_mut().unwrap().remove("tcp");
        let w = warned(&doc);
        let mine: Vec<_> = w.iter().filter(|e| e.message.starts_with(key)).collect();
        assert_eq!(mine.len(), 1, "{t}: {w:?}");
        assert_eq!(mine[0].path, format!("tcp.{key}"));
        assert!(mine[0].message.contains("of apps 0, 1 is"), "{}", mine[0]);
    }
}

/// An HPCC base RTT below every path's RTT caps each window under the
/// path's bandwidth-delay product: named, with the bound; the default
/// (each flow's own path RTT) and a T above the paths' RTTs are not.
#[test]
fn an_hpcc_base_rtt_below_every_paths_rtt_is_named() {
    for t in ["1ps", "1us", "3us"] {
        let w = warned(&incast("hpcc", json!({"hpcc_base_rtt": t})));
        let e = warning_at(&w, "tcp.hpcc_base_rtt").unwrap_or_else(|| panic!("{t}: {w:?}"));
        assert!(e.message.contains("at least 4us"), "{e}");
    }
    for tcp in [json!({}), json!({"hpcc_base_rtt": "12us"})] {
        let w = warned(&incast("hpcc", tcp));
        assert!(warning_at(&w, "tcp.hpcc_base_rtt").is_none(), "{w:?}");
    }
}

/// An HPCC base RTT more than eight times every path's RTT bound (a star
/// of 1 µs links: 5.46 µs) makes each first window that many
/// bandwidth-delay products: named, with the bound; T up to the factor is
/// not (htsim's 12 µs, and 40 µs).
#[test]
fn an_hpcc_base_rtt_far_above_every_paths_rtt_is_named() {
    for t in ["44us", "1ms", "1s"] {
        let w = warned(&incast("hpcc", json!({"hpcc_base_rtt": t})));
        let e = warning_at(&w, "tcp.hpcc_base_rtt").unwrap_or_else(|| panic!("{t}: {w:?}"));
        assert!(
            e.message.contains(&format!(
                "hpcc_base_rtt ({t}) of app 0 is more than 8 times"
            )),
            "{e}"
        );
        assert!(e.message.contains("(at most 5.46048us)"), "{e}");
    }
    for t in ["12us", "40us", "43.6us"] {
        let w = warned(&incast("hpcc", json!({"hpcc_base_rtt": t})));
        assert!(warning_at(&w, "tcp.hpcc_base_rtt").is_none(), "{t}: {w:?}");
    }
}

/// A base RTT set in an app's own table is named there (it was named at
/// `tcp.hpcc_base_rtt`, a table that did not set it), and each T with its
/// own apps (the first app's T was told for them all).
#[test]
fn an_hpcc_base_rtt_is_named_where_it_was_set_with_its_own_value() {
    let doc = three_apps(
        incast("hpcc", json!({})),
        [
            json!({"hpcc_base_rtt": "1us"}),
            json!({"hpcc_base_rtt": "2us"}),
            json!({"hpcc_base_rtt": "1us"}),
        ],
    );
    let w = warned(&doc);
    assert!(warning_at(&w, "tcp.hpcc_base_rtt").is_none(), "{w:?}");
    let e = warning_at(&w, "apps[0].tcp.hpcc_base_rtt").unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        e.message.contains("hpcc_base_rtt (1us) of apps 0, 2 is"),
        "{e}"
    );
    let e = warning_at(&w, "apps[1].tcp.hpcc_base_rtt").unwrap_or_else(|| panic!("{w:?}"));
    assert!(e.message.contains("hpcc_base_rtt (2us) of app 1 is"), "{e}");
}

/// The flows table names each flow's transport, and TCP's congestion
/// control and duplicate-ACK threshold only where they are read: a row of
/// NDP, HPCC, DCQCN or TIMELY said `cc = newreno` (and Swift too), which
/// none of them runs; Swift alone counts duplicate ACKs.
#[test]
fn the_flows_table_names_a_congestion_control_only_where_tcp_runs_one() {
    for transport in TRANSPORTS.iter().copied().chain(["tcp"]) {
        let mut doc = incast(transport, json!({}));
        if transport == "tcp" {
            doc["tcp"]["cc"] = json!("cubic");
        }
        let cfg = parse_config(&doc).expect("a valid scenario");
        let r = dcnsim::run(&cfg);
        let kinds = common::col_str(&r, "flows", "transport");
        let cc = common::col_str(&r, "flows", "cc");
        let dupthresh = common::col_u64(&r, "flows", "dupthresh");
        assert!(
            kinds.iter().all(|k| k == transport),
            "{transport}: {kinds:?}"
        );
        for (c, &d) in cc.iter().zip(dupthresh) {
            match transport {
                "tcp" => assert!(c == "cubic" && d == 3, "tcp: cc {c}, dupthresh {d}"),
                "swift" => assert!(c.is_empty() && d == 3, "swift: cc {c:?}, dupthresh {d}"),
                _ => assert!(
                    c.is_empty() && d == 0,
                    "{transport}: cc {c:?}, dupthresh {d}"
                ),
            }
        }
    }
}

/// A flow row's transport, cc and dupthresh come from the flow's typed
/// transport (`Transport::name`, `runs_tcp_cc`, `counts_dupacks`, whose
/// matches name every transport), not from matching its name: a new or
/// renamed transport cannot take another's columns.
#[test]
fn the_flows_table_columns_follow_the_typed_transport() {
    for transport in TRANSPORTS.iter().copied().chain(["tcp"]) {
        let cfg = parse_config(&incast(transport, json!({}))).expect("a valid scenario");
        let kind = cfg.apps[0].tcp().expect("a TCP-family app").transport;
        assert_eq!(kind.name(), transport);
        let r = dcnsim::run(&cfg);
        let names = common::col_str(&r, "flows", "transport");
        let cc = common::col_str(&r, "flows", "cc");
        let dupthresh = common::col_u64(&r, "flows", "dupthresh");
        for ((n, c), &d) in names.iter().zip(cc).zip(dupthresh) {
            assert_eq!(n, kind.name());
            assert_eq!(!c.is_empty(), kind.runs_tcp_cc(), "{transport}: cc {c:?}");
            assert_eq!(d > 0, kind.counts_dupacks(), "{transport}: dupthresh {d}");
        }
    }
}

/// NDP assumes switches trim: without trimming, whether the table is
/// missing or says `enabled = false`, the NDP apps are warned once at
/// the key they took the transport from (`tcp.transport`, naming them;
/// an app that set its own, at its own), in words that fit both; with
/// trimming on, nothing is said.
#[test]
fn ndp_without_trimming_is_named_either_way() {
    let mut absent = incast("ndp", json!({}));
    absent.as_object_mut().unwrap().remove("trimming");
    let mut off = incast("ndp", json!({}));
    off["trimming"] = json!({"enabled": false});
    for doc in [absent, off] {
        let w = warned(&doc);
        let e = warning_at(&w, "tcp.transport").expect("NDP without trimming is warned about");
        assert!(
            e.message.contains("without trimming")
                && e.message.contains("enabled = false")
                && e.message.contains("for app 0"),
            "{}",
            e.message
        );
    }
    assert!(warning_at(&warned(&incast("ndp", json!({}))), "tcp.transport").is_none());
    // three apps from [tcp] and one of its own: two warnings, not four
    let mut many = incast("ndp", json!({}));
    many.as_object_mut().unwrap().remove("trimming");
    let pa = many["apps"][0].clone();
    let mut own = pa.clone();
    own["tcp"] = json!({"transport": "ndp"});
    many["apps"] = json!([pa.clone(), pa.clone(), pa, own]);
    let w: Vec<_> = warned(&many)
        .into_iter()
        .filter(|e| e.message.contains("without trimming"))
        .collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w
        .iter()
        .any(|e| e.path == "tcp.transport" && e.message.contains("apps 0, 1, 2")));
    assert!(w.iter().any(|e| e.path == "apps[3].tcp.transport"));
}

/// RPS under a go-back-N transport resends whatever it reorders: named at
/// `routing.mode` with each transport's apps, where paths can differ; not
/// on a star (one path between any two hosts), not under ECMP, not for
/// transports that tolerate reordering.
#[test]
fn spraying_a_go_back_n_transport_is_named_at_the_routing_mode() {
    let fat = |transport: &str, mode: &str| {
        let mut doc = incast(transport, json!({}));
        doc["topology"] = json!({"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "1us",
                                 "buffer": "1MB", "ecn_k": "100KB"});
        doc["apps"][0]["workers"] = json!("1-15");
        doc["routing"] = json!({"mode": mode});
        doc
    };
    for t in ["dcqcn", "timely", "hpcc"] {
        let mut doc = fat(t, "rps");
        if t == "hpcc" {
            doc["topology"].as_object_mut().unwrap().remove("ecn_k");
        }
        let w = warned(&doc);
        let e = warning_at(&w, "routing.mode").unwrap_or_else(|| panic!("{t}: {w:?}"));
        assert!(
            e.message
                .contains(&format!("go-back-N transports: {t} (app 0)")),
            "{e}"
        );
        let mut ecmp = doc.clone();
        ecmp["routing"]["mode"] = json!("ecmp");
        assert!(warning_at(&warned(&ecmp), "routing.mode").is_none(), "{t}");
        let mut star = incast(t, json!({}));
        star["routing"] = json!({"mode": "rps"});
        assert!(
            warning_at(&warned(&star), "routing.mode").is_none(),
            "{t} on a star"
        );
    }
    let mut tcp = fat("tcp", "rps");
    tcp["topology"].as_object_mut().unwrap().remove("ecn_k");
    assert!(warning_at(&warned(&tcp), "routing.mode").is_none());
}
