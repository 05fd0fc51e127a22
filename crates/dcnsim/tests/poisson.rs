//! Poisson flow arrivals: the load law, the size law (Kolmogorov–Smirnov),
//! pair choice, determinism, conservation, every topology, bad CDFs.

mod common;

use common::*;
use dcnsim::app::Arrivals;
use dcnsim::cdf::{FlowSizeCdf, Sampling};
use dcnsim::config::{AppSpec, PoissonSpec};
use dcnsim::scenario::{parse_config, ScenarioError};
use dcnsim::sim::rng::{stream, Stream};
use dcnsim::stats::results::{Column, Results};
use serde_json::{json, Value};

fn fat_tree_doc(app: Value) -> Value {
    json!({
        "stop": "1s",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "tcp": {"rto_min": "2ms"},
        "apps": [app]
    })
}

fn poisson_spec(doc: &Value) -> PoissonSpec {
    let c = parse_config(doc).unwrap();
    match &c.apps[0] {
        AppSpec::Poisson(p) => (**p).clone(),
        a => panic!("not a poisson app: {a:?}"),
    }
}

fn arrivals(spec: &PoissonSpec, seed: u64) -> Arrivals {
    Arrivals::new(spec, stream(seed, Stream::App, 0))
}

/// The Kolmogorov–Smirnov statistic of integer `sizes` against `cdf`,
/// exact for the rounded-up draws: at an integer x, P(drawn ≤ x) = F(x)
/// and P(drawn < x) = F(x − 1).
fn ks(sizes: &mut [u64], cdf: &FlowSizeCdf) -> f64 {
    sizes.sort_unstable();
    let n = sizes.len() as f64;
    let mut d: f64 = 0.0;
    let mut i = 0;
    while i < sizes.len() {
        let x = sizes[i];
        let mut j = i;
        while j < sizes.len() && sizes[j] == x {
            j += 1;
        }
        let below = i as f64 / n; // empirical P(< x)
        let upto = j as f64 / n; // empirical P(≤ x)
        d = d
            .max((upto - cdf.prob_le(x as f64)).abs())
            .max((below - cdf.prob_le(x as f64 - 1.0)).abs());
        i = j;
    }
    d
}

/// The offered load of a long arrival sequence: Σ sizes / (elapsed × capacity).
#[test]
fn arrivals_offer_the_target_load() {
    for (cdf, load) in [("websearch", 0.6), ("datamining", 0.2), ("datamining", 0.8)] {
        let spec = poisson_spec(&fat_tree_doc(
            json!({"kind": "poisson", "load": load, "cdf": cdf}),
        ));
        assert_eq!(spec.capacity_bps, 16 * GBPS);
        let mut a = arrivals(&spec, 7);
        // The data-mining tail (sizes to 973 MB) has a coefficient of
        // variation ≈ 8: a million flows put the load within ~1 % (1σ).
        let (mut t_ps, mut bytes) = (0u128, 0u128);
        for _ in 0..1_000_000 {
            let x = a.next_arrival();
            t_ps += x.gap.0 as u128;
            bytes += x.bytes as u128;
        }
        let secs = t_ps as f64 * 1e-12;
        let measured = bytes as f64 * 8.0 / (secs * spec.capacity_bps as f64);
        assert!(
            (measured / load - 1.0).abs() < 0.05,
            "{cdf} load {load}: measured {measured:.4}"
        );
    }
}

/// Sizes drawn match the CDF (KS at the 1 % level), and the same test
/// tells the two workloads apart.
#[test]
fn sizes_follow_the_cdf() {
    let n = 20_000;
    let crit = 1.63 / (n as f64).sqrt(); // 1 % level; conservative for atoms
    for (name, sampling) in [
        ("websearch", "linear"),
        ("datamining", "linear"),
        ("websearch", "step"),
    ] {
        let spec = poisson_spec(&fat_tree_doc(
            json!({"kind": "poisson", "load": 0.5, "cdf": name, "sampling": sampling}),
        ));
        let mut a = arrivals(&spec, 3);
        let mut sizes: Vec<u64> = (0..n).map(|_| a.next_arrival().bytes).collect();
        let d = ks(&mut sizes, &spec.cdf);
        assert!(d < crit, "{name}/{sampling}: KS D = {d:.4} ≥ {crit:.4}");
        let other = if name == "websearch" {
            "datamining"
        } else {
            "websearch"
        };
        let wrong = FlowSizeCdf::builtin(other, Sampling::Linear).unwrap();
        assert!(
            ks(&mut sizes, &wrong) > 10.0 * crit,
            "KS cannot tell {name} from {other}"
        );
    }
    // Step sampling draws only the listed sizes.
    let spec = poisson_spec(&fat_tree_doc(
        json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "sampling": "step"}),
    ));
    let listed: Vec<u64> = spec.cdf.points().iter().map(|p| p.0 as u64).collect();
    let mut a = arrivals(&spec, 3);
    assert!((0..5000).all(|_| listed.contains(&a.next_arrival().bytes)));
}

/// Sources and destinations stay in their ranges, never equal, and every
/// allowed ordered pair occurs.
#[test]
fn pairs_are_random_distinct_and_in_range() {
    let spec = poisson_spec(&fat_tree_doc(json!({"kind": "poisson", "load": 0.5,
        "cdf": "websearch", "sources": "0-5", "destinations": [4, 5, 6, 7]})));
    let mut a = arrivals(&spec, 1);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20_000 {
        let x = a.next_arrival();
        assert!(x.src <= 5 && (4..=7).contains(&x.dst) && x.src != x.dst);
        seen.insert((x.src, x.dst));
    }
    // 6 sources × 4 destinations, minus (4,4) and (5,5).
    assert_eq!(seen.len(), 22);
}

fn str_col(r: &Results, col: &str) -> Vec<String> {
    match r.table("flows").unwrap().column(col).unwrap() {
        Column::Str(v) => v.iter().map(|s| s.to_string()).collect(),
        _ => unreachable!(),
    }
}

/// End to end on a star: the flows table shows the target offered load,
/// sizes from the CDF, every flow complete with every byte delivered once,
/// and no flow faster than its bytes at the edge rate.
#[test]
fn end_to_end_load_sizes_and_conservation() {
    // A light-tailed CDF (10–100 KB) so one simulated second holds enough
    // flows (~9 000) for the load law to be tight.
    let doc = json!({
        "stop": "5s",
        "topology": {"kind": "star", "hosts": 8, "rate": "1Gbps", "delay": "10us", "buffer": "200pkt"},
        "tcp": {"rto_min": "2ms", "cc": "cubic"},
        "apps": [{"kind": "poisson", "load": 0.5, "duration": "1s",
                  "cdf": [[10000, 0], [100000, 1]]}]
    });
    let cfg = parse_config(&doc).unwrap();
    let r = dcnsim::run(&cfg);
    check_conservation(&r);
    let bytes = col_u64(&r, "flows", "app_bytes");
    let del = col_u64(&r, "flows", "delivered_bytes");
    let done = col_bool(&r, "flows", "completed");
    let fct = col_f64(&r, "flows", "fct_s");
    let start = col_f64(&r, "flows", "start_s");
    assert!(bytes.len() > 5000, "{} flows", bytes.len());
    assert!(str_col(&r, "app_kind").iter().all(|k| k == "poisson"));
    assert!(str_col(&r, "role").iter().all(|k| k == "flow"));
    assert_eq!(r.summary_value("apps_unfinished"), Some(0.0));
    for i in 0..bytes.len() {
        assert!(done[i] && del[i] == bytes[i], "flow {i} incomplete");
        assert!(start[i] < 1.0);
        assert!(
            fct[i] >= bytes[i] as f64 * 8.0 / 1e9,
            "flow {i} beat the line rate"
        );
    }
    assert_eq!(r.summary_value("app0_capacity_bps"), Some(8e9));
    assert_eq!(r.summary_value("app0_mean_size_bytes"), Some(55_000.0));
    assert_eq!(
        r.summary_value("app0_flows_generated"),
        Some(bytes.len() as f64)
    );
    let rate = r.summary_value("app0_arrival_rate_per_s").unwrap();
    assert!((rate - 0.5 * 8e9 / 8.0 / 55_000.0).abs() < 1e-6);
    let offered = bytes.iter().sum::<u64>() as f64 * 8.0 / (1.0 * 8.0 * 1e9);
    assert!(
        (offered / 0.5 - 1.0).abs() < 0.05,
        "offered load {offered:.4}"
    );
    let AppSpec::Poisson(spec) = &cfg.apps[0] else {
        unreachable!()
    };
    let mut sizes = bytes.to_vec();
    let d = ks(&mut sizes, &spec.cdf);
    assert!(d < 1.63 / (bytes.len() as f64).sqrt(), "KS D = {d}");
}

#[test]
fn deterministic_and_seed_dependent() {
    let doc = fat_tree_doc(json!({"kind": "poisson", "load": 0.6, "cdf": "websearch",
        "flows": 150, "tcp": {"cc": "cubic"}}));
    let cfg = parse_config(&doc).unwrap();
    let a = dcnsim::run(&cfg);
    let b = dcnsim::run(&cfg);
    let flows = |r: &Results| r.table("flows").unwrap().clone();
    assert_eq!(flows(&a), flows(&b));
    assert_eq!(col_u64(&a, "flows", "app_bytes").len(), 150);
    let mut cfg2 = cfg.clone();
    cfg2.seed = 2;
    let c = dcnsim::run(&cfg2);
    assert_ne!(
        col_u64(&a, "flows", "app_bytes"),
        col_u64(&c, "flows", "app_bytes")
    );
}

/// The workload does not depend on the transport: the same seed gives the
/// same arrivals (time, pair, size) under any congestion control.
#[test]
fn arrivals_are_independent_of_the_transport() {
    let run = |cc: &str| {
        let doc = fat_tree_doc(json!({"kind": "poisson", "load": 0.8, "cdf": "datamining",
            "flows": 100, "tcp": {"cc": cc}}));
        dcnsim::run(&parse_config(&doc).unwrap())
    };
    let (a, b) = (run("cubic"), run("dctcp"));
    for col in ["src", "dst", "app_bytes"] {
        assert_eq!(col_u64(&a, "flows", col), col_u64(&b, "flows", col));
    }
    assert_eq!(
        col_f64(&a, "flows", "start_s"),
        col_f64(&b, "flows", "start_s")
    );
}

#[test]
fn runs_on_every_topology() {
    let topos = [
        json!({"kind": "star", "hosts": 6, "rate": "1Gbps", "delay": "5us", "buffer": "100pkt"}),
        json!({"kind": "two_tier", "racks": 2, "hosts_per_rack": 3, "host_rate": "1Gbps",
               "core_rate": "10Gbps", "delay": "5us", "buffer": "100KB"}),
        json!({"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "100pkt"}),
        json!({"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 3,
               "host_rate": "1Gbps", "fabric_rate": "10Gbps", "delay": "5us", "buffer": "100pkt"}),
        json!({"kind": "custom", "buffer": "100pkt", "nodes": [
                {"name": "a", "kind": "host"}, {"name": "s", "kind": "switch"},
                {"name": "b", "kind": "host"}, {"name": "c", "kind": "host"}],
               "links": [{"a": "a", "b": "s", "rate": "1Gbps", "delay": "5us"},
                         {"a": "b", "b": "s", "rate": "1Gbps", "delay": "5us"},
                         {"a": "c", "b": "s", "rate": "10Gbps", "delay": "5us"}]}),
    ];
    for topo in topos {
        let doc = json!({"stop": "10s", "topology": topo, "tcp": {"rto_min": "2ms"},
            "apps": [{"kind": "poisson", "load": 0.5, "cdf": "websearch", "flows": 40}]});
        let cfg = parse_config(&doc).unwrap();
        let r = dcnsim::run(&cfg);
        check_conservation(&r);
        assert_eq!(col_u64(&r, "flows", "app_bytes").len(), 40, "{topo}");
        assert!(
            col_bool(&r, "flows", "completed").iter().all(|&d| d),
            "{topo}"
        );
    }
    // Capacity is the sources' own access links: 2 × 1 Gbps + 10 Gbps.
    let doc = json!({"topology": {"kind": "custom", "buffer": "100pkt", "nodes": [
                {"name": "a", "kind": "host"}, {"name": "s", "kind": "switch"},
                {"name": "b", "kind": "host"}, {"name": "c", "kind": "host"}],
               "links": [{"a": "a", "b": "s", "rate": "1Gbps", "delay": "5us"},
                         {"a": "b", "b": "s", "rate": "1Gbps", "delay": "5us"},
                         {"a": "c", "b": "s", "rate": "10Gbps", "delay": "5us"}]},
        "apps": [{"kind": "poisson", "load": 0.5, "cdf": "websearch"}]});
    assert_eq!(poisson_spec(&doc).capacity_bps, 12 * GBPS);
}

// ----------------------------------------------------------------- errors

fn errors(app: Value) -> Vec<ScenarioError> {
    match parse_config(&fat_tree_doc(app)) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e,
    }
}

#[test]
fn bad_cdfs_are_rejected_with_the_field_named() {
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[10, 0], [20, 0.5], [30, 0.9]]}));
    assert_err(&e, "apps[0].cdf[2]", "must end at probability 1");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[10, 0], [5, 0.5], [30, 1]]}));
    assert_err(&e, "apps[0].cdf[1]", "sizes must not decrease");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[10, 0.6], [20, 0.5], [30, 1]]}));
    assert_err(&e, "apps[0].cdf[1]", "probabilities must not decrease");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[0, 0.2], [30, 1]]}));
    assert_err(&e, "apps[0].cdf[0]", "at least one byte");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[-5, 0], [30, 1]]}));
    assert_err(&e, "apps[0].cdf[0]", "size must be ≥ 0");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[10, 0], [30, 1.5]]}));
    assert_err(&e, "apps[0].cdf[1]", "probability must be in [0, 1]");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [[10, "x"]]}));
    assert_err(&e, "apps[0].cdf[0][1]", "expected a probability");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": [10, 20]}));
    assert_err(&e, "apps[0].cdf[0]", "[size, probability] pair");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearh"}));
    assert_err(&e, "apps[0].cdf", "did you mean 'websearch'");
    let e = errors(json!({"kind": "poisson", "load": 0.5}));
    assert_err(&e, "apps[0].cdf", "missing required key");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "cdf_file": "x"}));
    assert_err(&e, "apps[0]", "exactly one of 'cdf' or 'cdf_file'");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf_file": "/nonexistent/cdf.txt"}));
    assert_err(&e, "apps[0].cdf_file", "cannot read");
    let e =
        errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "sampling": "cubic"}));
    assert_err(&e, "apps[0].sampling", "unknown CDF sampling");
}

#[test]
fn cdf_files_are_read_and_checked_by_line() {
    let dir = std::env::temp_dir().join(format!("dcnsim-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, "# sizes in bytes\n1000 0\n5000 0.5\n9000 1\n").unwrap();
    let spec = poisson_spec(&fat_tree_doc(json!({"kind": "poisson", "load": 0.5,
        "cdf_file": good.to_str().unwrap()})));
    assert!((spec.cdf.mean() - 5000.0).abs() < 1e-9);
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "# c\n1000 0\n\n5000 0.5\n9000 0.9\n").unwrap();
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf_file": bad.to_str().unwrap()}));
    assert_err(
        &e,
        "apps[0].cdf_file",
        "line 5: the CDF must end at probability 1",
    );
    let syntax = dir.join("syntax.txt");
    std::fs::write(&syntax, "1000 0\n5000 half\n").unwrap();
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf_file": syntax.to_str().unwrap()}));
    assert_err(
        &e,
        "apps[0].cdf_file",
        "line 2: expected 'size probability'",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_loads_hosts_and_limits() {
    let e = errors(json!({"kind": "poisson", "load": 1.5, "cdf": "websearch"}));
    assert_err(&e, "apps[0].load", "must be ≤ 1");
    let e = errors(json!({"kind": "poisson", "load": 0, "cdf": "websearch"}));
    assert_err(&e, "apps[0].load", "must be > 0");
    let e = errors(json!({"kind": "poisson", "cdf": "websearch"}));
    assert_err(&e, "apps[0].load", "missing required key");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch",
        "sources": [3], "destinations": [3]}));
    assert_err(&e, "apps[0].sources", "nowhere to send");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "sources": "0-99"}));
    assert_err(&e, "apps[0].sources", "out of range");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "flows": 0}));
    assert_err(&e, "apps[0].flows", "must be ≥ 1");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "duration": "0s"}));
    assert_err(&e, "apps[0].duration", "must be > 0");
    let e = errors(json!({"kind": "poisson", "load": 0.5, "cdf": "websearch", "rate": "1Gbps"}));
    assert_err(&e, "apps[0].rate", "unknown key for app kind 'poisson'");
}
