//! TIMELY (tcp/timely.rs, on DCQCN's rate sender) on whole runs: the laws
//! its parts keep (an uncongested flow is never cut and runs at line rate;
//! RTTs above T_high cut the senders, so an incast's queue stays far below
//! what the same flows hold up when their RTTs never reach the
//! thresholds; nothing of TIMELY is ECN-capable; go-back-N delivers every
//! byte through drops; the same bits on one thread and two), each against
//! a run where the law would fail without the mechanism.

mod common;
use common::*;
use dcnsim::stats::results::Results;
use serde_json::{json, Value};

/// `n` long TIMELY flows into host 0 of a 100 Gbps star (1 µs links, 8 MB
/// ports, 4 KB packets, PFC) for `stop`, with `tcp` keys added.
fn incast(n: usize, tcp: Value, stop: &str) -> Value {
    let mut t = json!({"transport": "timely", "mss": 4096});
    for (k, v) in tcp.as_object().into_iter().flatten() {
        t[k] = v.clone();
    }
    json!({
        "name": "timely", "seed": 2, "stop": stop,
        "topology": {"kind": "star", "hosts": n + 1, "rate": "100Gbps", "delay": "1us",
                     "buffer": "8MB"},
        "tcp": t,
        "pfc": {},
        "trace": {"interval": "50us", "queues": "switches"},
        "apps": (1..=n).map(|s| json!({"kind": "bulk", "src": s, "dst": 0, "duration": "1s"}))
            .collect::<Vec<_>>(),
    })
}

fn s(r: &Results, k: &str) -> f64 {
    r.summary_value(k)
        .unwrap_or_else(|| panic!("no {k} in the summary"))
}

/// A flow alone on its path sees its unloaded RTT (a few µs, under T_low)
/// on every ACK, so TIMELY only raises a rate that starts at line rate:
/// no decrease, and the transfer takes its wire bytes' time at line rate
/// plus the path's latency (under 2 % over it). Its packets are not
/// ECN-capable: a low marking threshold marks none.
#[test]
fn an_uncongested_flow_runs_at_line_rate_and_is_never_cut() {
    let r = a_lone_flow_at_line_rate(json!({"transport": "timely", "mss": 4096}), "1KB");
    assert_eq!(col_str(&r, "flows", "transport")[0], "timely");
    assert!(s(&r, "timely_rate_updates") > 0.0, "updates once per RTT");
    assert_eq!(s(&r, "timely_rate_decreases"), 0.0);
    assert_eq!(col_u64(&r, "queues", "marked").iter().sum::<u64>(), 0);
}

/// Eight long flows into one port over PFC. With T_low 20 µs and T_high
/// 200 µs the RTTs that queue brings cut the senders, so in the second half
/// the port's queue stays under 100 µs of line rate (1.25 MB), the line
/// stays busy, nothing is lost, and the flows share it (Jain above 0.9).
/// The same flows with thresholds no RTT reaches (T_low 1 s) are never cut:
/// their queue climbs to what PFC holds back, with many times the pauses.
#[test]
fn rtts_above_the_thresholds_cut_an_incast_to_a_short_queue() {
    let r = run_checked(&incast(
        8,
        json!({"timely_t_low": "20us", "timely_t_high": "200us"}),
        "10ms",
    ));
    assert_eq!(s(&r, "packets_dropped"), 0.0);
    assert!(s(&r, "timely_rate_decreases") > 8.0);
    let q = max_queue_after(&r, 0.005);
    assert!(q < 1_250_000, "queue {q} bytes");
    let per: Vec<f64> = col_u64(&r, "flows", "delivered_bytes")
        .iter()
        .map(|&b| b as f64)
        .collect();
    let total: f64 = per.iter().sum();
    assert!(
        total * 8.0 / 0.01 > 0.8 * 100e9,
        "goodput {} Gbps",
        total * 8.0 / 0.01 / 1e9
    );
    let jain = total.powi(2) / (8.0 * per.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.9, "Jain {jain}: {per:?}");

    let uncut = run_checked(&incast(
        8,
        json!({"timely_t_low": "1s", "timely_t_high": "2s"}),
        "10ms",
    ));
    assert_eq!(s(&uncut, "timely_rate_decreases"), 0.0);
    assert_eq!(s(&uncut, "packets_dropped"), 0.0);
    let q0 = max_queue_after(&uncut, 0.005);
    assert!(q0 > 2 * q, "uncut queue {q0} against {q}");
    assert!(s(&uncut, "pfc_pauses") > 10.0 * s(&r, "pfc_pauses").max(1.0));
}

/// Without PFC a shallow port drops; the receiver NACKs each gap and the
/// sender goes back to it: every byte of every flow is delivered once, in
/// order, and every flow completes. With the paper's thresholds a 200 KB
/// port (16 µs at 100 Gbps) never brings an RTT over T_low, so nothing is
/// cut and go-back-N alone recovers; with T_low 5 µs and T_high 10 µs the
/// same port's RTTs cut the senders through the drops (TIMELY's round ends
/// with the first ACK past where a sender went back), and it recovers too.
#[test]
fn go_back_n_delivers_every_byte_through_drops() {
    let r = go_back_n_delivers_every_byte(json!({"transport": "timely", "mss": 4096}), None);
    assert_eq!(s(&r, "timely_rate_decreases"), 0.0);
    let r = go_back_n_delivers_every_byte(
        json!({"transport": "timely", "mss": 4096,
               "timely_t_low": "5us", "timely_t_high": "10us"}),
        None,
    );
    assert!(s(&r, "timely_rate_decreases") > 8.0);
}

/// Same scenario and seed, same bits; on a fat-tree the run cuts into
/// partitions and gives one thread's bits on two.
#[test]
fn timely_runs_are_deterministic_and_cut_across_threads() {
    let doc = k4_shifted_permutation(
        json!({"transport": "timely", "timely_t_low": "10us", "timely_t_high": "40us"}),
        None,
    );
    let (one, _) = same_bits_on_one_thread_and_two(&doc);
    assert!(s(&one, "timely_rate_decreases") > 0.0);
}

/// Thresholds the wrong way round are refused at the key.
#[test]
fn t_low_at_or_above_t_high_is_refused() {
    let mut doc = incast(
        2,
        json!({"timely_t_low": "500us", "timely_t_high": "500us"}),
        "1ms",
    );
    let errs = dcnsim::scenario::parse_config_str(&doc.to_string()).expect_err("refused");
    assert_err(&errs, "tcp.timely_t_low", "must be below timely_t_high");
    // not TIMELY: its keys are not checked against each other
    doc["tcp"]["transport"] = json!("dcqcn");
    dcnsim::scenario::parse_config_str(&doc.to_string()).expect("valid");
}
