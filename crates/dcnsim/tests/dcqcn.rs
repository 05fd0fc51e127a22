//! DCQCN (tcp/dcqcn.rs) on whole runs: the laws its parts keep (an
//! uncongested flow is never cut and runs at line rate; CNPs no closer
//! than their interval; an incast's queue held near the marking threshold
//! where the same flows without marks fill the PFC headroom; go-back-N
//! delivering every byte through drops), each against a run where the law
//! would fail without the mechanism.

mod common;
use common::*;
use dcnsim::config::Threads;
use dcnsim::stats::results::Results;
use serde_json::{json, Value};

/// `n` long DCQCN flows into host 0 of a 100 Gbps star (1 µs links, 4 MB
/// ports, 4 KB packets) for `stop`; `ecn_k` and `[pfc]` as given.
fn incast(n: usize, ecn_k: Option<&str>, pfc: bool, tcp: Value, stop: &str) -> Value {
    let mut t = json!({"transport": "dcqcn", "mss": 4096});
    for (k, v) in tcp.as_object().into_iter().flatten() {
        t[k] = v.clone();
    }
    let mut doc = json!({
        "name": "dcqcn", "seed": 2, "stop": stop,
        "topology": {"kind": "star", "hosts": n + 1, "rate": "100Gbps", "delay": "1us",
                     "buffer": "4MB"},
        "tcp": t,
        "trace": {"interval": "50us", "queues": "switches"},
        "apps": (1..=n).map(|s| json!({"kind": "bulk", "src": s, "dst": 0, "duration": "1s"}))
            .collect::<Vec<_>>(),
    });
    if let Some(k) = ecn_k {
        doc["topology"]["ecn_k"] = json!(k);
    }
    if pfc {
        doc["pfc"] = json!({});
    }
    doc
}

fn s(r: &Results, k: &str) -> f64 {
    r.summary_value(k)
        .unwrap_or_else(|| panic!("no {k} in the summary"))
}

/// The bytes the flows delivered after `from` seconds (the flow time
/// series' last sample less its sample at `from`).
fn delivered_after(r: &Results, from: f64) -> f64 {
    let t = col_f64(r, "flow_ts", "time_s");
    let d = col_u64(r, "flow_ts", "delivered_bytes");
    let last = t.iter().cloned().fold(0.0, f64::max);
    let at = |x: f64| -> f64 {
        t.iter()
            .zip(d)
            .filter(|(s, _)| (**s - x).abs() < 1e-9)
            .map(|(_, b)| *b as f64)
            .sum()
    };
    at(last) - at(from)
}

/// A flow alone on its path: its queue never passes one packet, so no
/// packet is marked, no CNP sent, no cut made; the transfer takes the time
/// its wire bytes take at line rate plus the path's latency (under 2 %
/// over it).
#[test]
fn an_uncongested_flow_runs_at_line_rate_and_is_never_cut() {
    let r = a_lone_flow_at_line_rate(json!({"transport": "dcqcn", "mss": 4096}), "20KB");
    assert_eq!(col_str(&r, "flows", "transport")[0], "dcqcn");
    assert_eq!(col_u64(&r, "flows", "ecn_marks")[0], 0);
    assert_eq!(col_u64(&r, "flows", "ecn_cuts")[0], 0);
}

/// Eight long flows into one port over PFC: marks come back as CNPs and
/// cut the senders, so the port's queue stays within a few times the
/// marking threshold in the second half, its line stays busy (above half),
/// the flows share it fairly (Jain above 0.9), nothing is lost, and a
/// paused sender stops instead of queueing at its NIC. The
/// same flows without marks are never cut: the queue climbs to what PFC
/// holds back (far above the threshold), and the fabric pauses far more.
#[test]
fn an_incast_is_cut_to_the_marking_threshold_and_loses_nothing() {
    let r = run_checked(&incast(8, Some("100KB"), true, json!({}), "10ms"));
    assert_eq!(s(&r, "packets_dropped"), 0.0);
    let cuts = col_u64(&r, "flows", "ecn_cuts");
    assert!(cuts.iter().all(|&c| c > 0), "every sender cut: {cuts:?}");
    // the increases bring the cut senders back: without them (timer or
    // byte counter broken) eight senders halved a few times stay at a few
    // per cent of the line; DCQCN's own cost, its cuts, leaves it below
    // full (htsim's parameters: about 3/4)
    let util = delivered_after(&r, 0.005) * 8.0 / 0.005 / 100e9;
    assert!(util > 0.5, "utilisation {util}");
    let per: Vec<f64> = col_u64(&r, "flows", "delivered_bytes")
        .iter()
        .map(|&b| b as f64)
        .collect();
    let jain = per.iter().sum::<f64>().powi(2) / (8.0 * per.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.9, "Jain {jain}: {per:?}");
    let q = max_queue_after(&r, 0.005);
    assert!(q < 400_000, "queue {q} bytes against ecn_k 100 KB");
    // a paused sender stops: its NIC never holds more than the packet it
    // sends and one behind it (4,096 + 40 bytes each)
    let nodes = col_str(&r, "queues", "node");
    let max = col_u64(&r, "queues", "max_bytes");
    let nics: Vec<u64> = (0..nodes.len())
        .filter(|&i| nodes[i].starts_with('h') && nodes[i] != "h0")
        .map(|i| max[i])
        .collect();
    assert_eq!(nics.len(), 8);
    assert!(
        nics.iter().all(|&b| b <= 2 * 4136),
        "senders' NICs: {nics:?}"
    );

    let unmarked = run_checked(&incast(8, None, true, json!({}), "10ms"));
    assert_eq!(s(&unmarked, "packets_dropped"), 0.0);
    assert!(col_u64(&unmarked, "flows", "ecn_cuts")
        .iter()
        .all(|&c| c == 0));
    let q0 = max_queue_after(&unmarked, 0.005);
    assert!(q0 > 2 * q, "unmarked queue {q0} against {q}");
    assert!(s(&unmarked, "pfc_pauses") > 4.0 * s(&r, "pfc_pauses"));
}

/// A receiver sends its flow at most one CNP per `dcqcn_cnp_interval`, so
/// a sender's cuts over a run are at most its length over the interval
/// (plus the first); with a longer interval the senders are cut less
/// often, and the bound moves with it.
#[test]
fn cnps_are_no_closer_than_their_interval() {
    for (interval, us) in [("50us", 50.0), ("400us", 400.0)] {
        let r = run_checked(&incast(
            4,
            Some("20KB"),
            true,
            json!({"dcqcn_cnp_interval": interval}),
            "4ms",
        ));
        let bound = (4000.0 / us) as u64 + 1;
        let cuts = col_u64(&r, "flows", "ecn_cuts");
        assert!(
            cuts.iter().all(|&c| c > 0 && c <= bound),
            "{interval}: cuts {cuts:?} against at most {bound}"
        );
        if us == 50.0 {
            assert!(
                cuts.iter().any(|&c| c > 4000 / 400 + 1),
                "at 50 µs some flow is cut more often than 400 µs allows: {cuts:?}"
            );
        }
    }
}

/// Without PFC a shallow port drops; the receiver NACKs each gap and the
/// sender goes back to it (go-back-N), so every byte of every flow is
/// delivered once, in order, and every flow completes.
#[test]
fn go_back_n_delivers_every_byte_through_drops() {
    go_back_n_delivers_every_byte(json!({"transport": "dcqcn", "mss": 4096}), Some("50KB"));
}

/// Same scenario and seed, same bits; and on a fat-tree without PFC the
/// run cuts into partitions and gives one thread's bits on two (the
/// receiver's CNP state merged back with the rest of the receiver).
#[test]
fn dcqcn_runs_are_deterministic_and_cut_across_threads() {
    let doc = k4_shifted_permutation(json!({"transport": "dcqcn"}), Some("30KB"));
    let (one, st) = same_bits_on_one_thread_and_two(&doc);
    assert!(col_u64(&one, "flows", "ecn_cuts").iter().sum::<u64>() > 0);
    assert!(st.parts.iter().all(|p| p.handed_over > 0));
}

/// A DCQCN scenario where no queue marks is run but said to be pointless
/// (no CNP can come), once for all its apps.
#[test]
fn dcqcn_without_marking_is_warned_once() {
    let doc = incast(3, None, false, json!({}), "1ms");
    let cfg = dcnsim::scenario::parse_config_str(&doc.to_string()).expect("valid");
    let w = dcnsim::scenario::warnings(&cfg);
    let hits: Vec<_> = w.iter().filter(|e| e.message.contains("dcqcn")).collect();
    assert_eq!(hits.len(), 1, "{w:?}");
    // at the key the apps took it from: the top-level [tcp]
    assert_eq!(hits[0].path, "tcp.transport");
    assert!(
        hits[0].message.contains("2 more apps"),
        "{}",
        hits[0].message
    );
    assert!(!w
        .iter()
        .any(|e| e.message.contains("no app sends ECN-capable")));
    let marked = incast(3, Some("20KB"), false, json!({}), "1ms");
    let cfg = dcnsim::scenario::parse_config_str(&marked.to_string()).expect("valid");
    let w = dcnsim::scenario::warnings(&cfg);
    assert!(
        !w.iter()
            .any(|e| e.message.contains("dcqcn") || e.message.contains("ECN-capable")),
        "{w:?}"
    );
    // trimming ports trim where they would mark: no CNP either
    let mut trimmed = marked.clone();
    trimmed["trimming"] = json!({});
    trimmed.as_object_mut().unwrap().remove("pfc");
    let cfg = dcnsim::scenario::parse_config_str(&trimmed.to_string()).expect("valid");
    let w = dcnsim::scenario::warnings(&cfg);
    let hits: Vec<_> = w.iter().filter(|e| e.message.contains("dcqcn")).collect();
    assert_eq!(hits.len(), 1, "{w:?}");
    assert!(
        hits[0].message.contains("[trimming]"),
        "{}",
        hits[0].message
    );
}

/// With an HPCC flow in the same fabric, INT is on and every data packet
/// of a go-back-N transport collects records, DCQCN's too; DCQCN reads
/// none, and must leave none behind for the packet that reuses its id. So
/// an HPCC flow beside a DCQCN flow on other ports runs exactly as it
/// does alone.
#[test]
fn a_dcqcn_flow_beside_hpcc_leaves_its_telemetry_alone() {
    let doc = |with_dcqcn: bool| {
        let mut apps = vec![json!({"kind": "bulk", "src": 1, "dst": 0, "size": "2MB",
                                   "tcp": {"transport": "hpcc", "mss": 4096}})];
        if with_dcqcn {
            apps.push(json!({"kind": "bulk", "src": 2, "dst": 3, "size": "2MB",
                             "tcp": {"transport": "dcqcn", "mss": 4096}}));
            apps.push(json!({"kind": "bulk", "src": 4, "dst": 3, "size": "2MB",
                             "tcp": {"transport": "dcqcn", "mss": 4096}}));
        }
        json!({
            "name": "mixed", "seed": 1, "stop": "10ms",
            "topology": {"kind": "star", "hosts": 5, "rate": "100Gbps", "delay": "1us",
                         "buffer": "4MB", "ecn_k": "50KB"},
            "apps": apps,
        })
    };
    let alone = run_checked(&doc(false));
    let mixed = run_checked(&doc(true));
    assert_eq!(col_str(&mixed, "flows", "transport")[1], "dcqcn");
    assert!(col_u64(&mixed, "flows", "ecn_cuts")[1..]
        .iter()
        .any(|&c| c > 0));
    for col in ["fct_s", "srtt_s"] {
        assert_eq!(
            col_f64(&alone, "flows", col)[0],
            col_f64(&mixed, "flows", col)[0],
            "{col} of the HPCC flow"
        );
    }
    assert_eq!(
        col_u64(&alone, "flows", "final_cwnd_bytes")[0],
        col_u64(&mixed, "flows", "final_cwnd_bytes")[0]
    );
}

/// RED's ramp (`ecn_kmax`, `ecn_pmax`; net/ramp.rs) with the DCQCN paper's
/// switch (K_min 5 KB, K_max 200 KB, P_max 1 %) against DCTCP's step at the
/// same 5 KB, which marks every packet over it: between the thresholds only
/// a few packets in a hundred are marked, so the senders are told later
/// and the queue runs longer (the paper's reason for the ramp: a step at a
/// few KB keeps the link idle after every cut), and the line is busier.
#[test]
fn reds_ramp_runs_a_longer_queue_and_a_busier_line_than_the_step() {
    let mut step = incast(8, Some("5KB"), true, json!({}), "10ms");
    step["trace"] = json!({"interval": "50us", "queues": "switches"});
    let mut ramp = step.clone();
    ramp["topology"]["ecn_kmax"] = json!("200KB");
    ramp["topology"]["ecn_pmax"] = json!(0.01);
    let (a, b) = (run_checked(&step), run_checked(&ramp));
    let mean_queue = |r: &Results| {
        let t = col_f64(r, "queue_ts", "time_s");
        let q = col_u64(r, "queue_ts", "bytes");
        let v: Vec<f64> = t
            .iter()
            .zip(q)
            .filter(|(t, _)| **t >= 0.002)
            .map(|(_, q)| *q as f64)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (qa, qb) = (mean_queue(&a), mean_queue(&b));
    assert!(qb > 2.0 * qa, "ramp queue {qb} against step {qa}");
    let (ua, ub) = (delivered_after(&a, 0.002), delivered_after(&b, 0.002));
    assert!(ub > ua, "ramp delivered {ub} against step {ua}");
    assert!(col_u64(&b, "flows", "ecn_cuts").iter().all(|&c| c > 0));
    assert_eq!(s(&b, "packets_dropped"), 0.0);
}

/// The ramp's draws are each link's own: two threads mark the packets
/// one thread does (a fat-tree DCTCP permutation under RED).
#[test]
fn reds_ramp_gives_one_threads_bits_on_two() {
    let apps: Vec<Value> = (0..16)
        .map(|s| json!({"kind": "bulk", "src": s, "dst": (s + 5) % 16, "duration": "3ms"}))
        .collect();
    let doc = json!({
        "name": "red", "seed": 3, "stop": "4ms", "threads": 1,
        "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                     "buffer": "200KB", "ecn_k": "10KB", "ecn_kmax": "60KB", "ecn_pmax": 0.2},
        "tcp": {"cc": "dctcp", "rto_min": "1ms"},
        "apps": apps,
    });
    let mut c = dcnsim::scenario::parse_config_str(&doc.to_string()).expect("valid");
    assert!(c.ecn_ramp.is_some());
    let one = dcnsim::run_measured(&c, None, None).expect("runs").0;
    let marked: u64 = col_u64(&one, "queues", "marked").iter().sum();
    assert!(marked > 0);
    std::env::set_var("DCNSIM_FREE_CORES", "8");
    std::env::set_var("DCNSIM_CUT", "always");
    c.threads = Threads::N(2);
    let (two, stats) = dcnsim::run_measured(&c, None, None).expect("runs");
    assert_eq!(stats.expect("partitioned").parts.len(), 2);
    assert_same_tables(&one, &two);
}

/// A ramp that cannot be: each mistake named at its key.
#[test]
fn a_bad_ramp_is_refused_at_its_key() {
    let errs = |topo: Value| {
        let doc = json!({
            "name": "bad", "stop": "1ms",
            "topology": topo,
            "tcp": {"cc": "dctcp"},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}],
        });
        dcnsim::scenario::parse_config_str(&doc.to_string()).expect_err("refused")
    };
    let star = |extra: Value| {
        let mut t = json!({"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us",
                           "buffer": "1MB"});
        for (k, v) in extra.as_object().unwrap() {
            t[k] = v.clone();
        }
        t
    };
    assert_err(
        &errs(star(json!({"ecn_k": "10KB", "ecn_pmax": 0.1}))),
        "topology.ecn_pmax",
        "set ecn_kmax too",
    );
    assert_err(
        &errs(star(json!({"ecn_kmax": "100KB"}))),
        "topology.ecn_kmax",
        "no port has one",
    );
    assert_err(
        &errs(star(json!({"ecn_k": "100KB", "ecn_kmax": "50KB"}))),
        "topology.ecn_kmax",
        "must be above every port's ecn_k",
    );
    assert_err(
        &errs(star(json!({"ecn_k": "10pkt", "ecn_kmax": "50KB"}))),
        "topology.ecn_kmax",
        "give both in one unit",
    );
    assert_err(
        &errs(star(
            json!({"ecn_k": "10KB", "ecn_kmax": "50KB", "ecn_non_ect": "drop"}),
        )),
        "topology.ecn_kmax",
        "not modelled",
    );
    assert_err(
        &errs(star(
            json!({"ecn_k": "10KB", "ecn_kmax": "50KB", "ecn_pmax": 0}),
        )),
        "topology.ecn_pmax",
        "",
    );
    let with = |key: &str, v: Value| {
        let mut doc = json!({
            "name": "bad", "stop": "1ms",
            "topology": star(json!({"ecn_k": "10KB", "ecn_kmax": "50KB"})),
            "tcp": {"cc": "dctcp"},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}],
        });
        doc[key] = v;
        dcnsim::scenario::parse_config_str(&doc.to_string()).expect_err("refused")
    };
    assert_err(
        &with("trimming", json!({})),
        "topology.ecn_kmax",
        "[trimming]",
    );
    assert_err(
        &with("int", json!(true)),
        "topology.ecn_kmax",
        "in-band telemetry",
    );
    assert_err(
        &with(
            "failures",
            json!([{"link": ["sw", "h1"], "at": "0s", "loss": 0.1}]),
        ),
        "topology.ecn_kmax",
        "[[failures]]",
    );
}

/// A marking threshold where only HPCC flows run: HPCC sends nothing
/// ECN-capable whatever `tcp.cc` says, and the warning says so by its
/// transport, not by a congestion control that does not run.
#[test]
fn marks_nobody_reads_are_named_by_transport() {
    let doc = json!({
        "name": "unread", "stop": "1ms",
        "topology": {"kind": "star", "hosts": 3, "rate": "100Gbps", "delay": "1us",
                     "buffer": "1MB", "ecn_k": "20KB"},
        "tcp": {"transport": "hpcc", "mss": 4096},
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}],
    });
    let cfg = dcnsim::scenario::parse_config_str(&doc.to_string()).expect("valid");
    let w = dcnsim::scenario::warnings(&cfg);
    let m = &w
        .iter()
        .find(|e| e.message.contains("nothing will be marked"))
        .expect("warned")
        .message;
    assert!(m.contains("tcp.transport = hpcc"), "{m}");
    assert!(!m.contains("tcp.cc ="), "{m}");
}
