//! Time series: periodic samples of every flow and of chosen queues.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::sim::time::SimTime;
use dcnsim::stats::results::Column;

#[test]
fn samples_are_periodic_monotone_and_within_limits() {
    let topo = star(3, GBPS, SimTime::from_us(25), Limit::Packets(50));
    let bulk = |src| AppSpec::Bulk {
        src,
        dst: 2,
        amount: BulkAmount::Bytes(4 << 20),
        start: SimTime::ZERO,
        tcp: tcp(1460),
    };
    let mut c = config(topo, vec![bulk(0), bulk(1)], SimTime::from_secs(2));
    // queue 3 is the switch port towards host 1... find the one towards host 2: link 2 reversed = 5
    c.trace = Some(TraceConfig {
        interval: SimTime::from_us(500),
        flows: true,
        queues: vec![5],
    });
    let r = dcnsim::run(&c);
    check_conservation(&r);
    let ft = r.table("flow_ts").expect("flow_ts table");
    let qt = r.table("queue_ts").expect("queue_ts table");
    let Column::F64(ftime) = ft.column("time_s").unwrap() else {
        panic!()
    };
    let fid = col_u64(&r, "flow_ts", "flow_id");
    let del = col_u64(&r, "flow_ts", "delivered_bytes");
    let end = r.summary_value("sim_time_s").unwrap();
    // the apps end between two samples: one more, at the end
    let on_grid = (end / 500e-6).floor() as usize + 1;
    assert!((end / 500e-6).fract() > 1e-6, "{end}");
    let expected = on_grid + 1;
    for f in 0..2u64 {
        let rows: Vec<usize> = (0..fid.len()).filter(|&i| fid[i] == f).collect();
        assert_eq!(
            rows.len(),
            expected,
            "one sample per interval from t=0, one at the end"
        );
        for (k, w) in rows.windows(2).enumerate() {
            if k + 2 < rows.len() {
                assert!((ftime[w[1]] - ftime[w[0]] - 500e-6).abs() < 1e-12);
            }
            assert!(del[w[1]] >= del[w[0]], "delivered bytes never decrease");
        }
        let last = *rows.last().unwrap();
        assert_eq!(ftime[last], end, "the last sample is at the end");
        assert_eq!(
            del[last],
            col_u64(&r, "flows", "delivered_bytes")[f as usize]
        );
        assert_eq!(
            col_u64(&r, "flow_ts", "cwnd_bytes")[last],
            col_u64(&r, "flows", "final_cwnd_bytes")[f as usize]
        );
    }
    let qb = col_u64(&r, "queue_ts", "pkts");
    assert!(qb.iter().all(|&p| p <= 50), "occupancy within the buffer");
    assert!(
        qb.iter().any(|&p| p > 0),
        "the bottleneck queue is seen busy"
    );
    assert_eq!(qt.rows(), expected);
    let Column::Str(to) = r.table("queues").unwrap().column("to").unwrap() else {
        panic!()
    };
    assert_eq!(to[5], "h2");
}

#[test]
fn loss_log_lists_every_timeout_and_fast_retransmit_in_time_order() {
    let r = dcnsim::run(&kulkarni_incast(8, 32 * 1024, 10, |_| {}));
    check_conservation(&r);
    let Column::F64(time) = r.table("losses").unwrap().column("time_s").unwrap() else {
        panic!()
    };
    let flow = col_u64(&r, "losses", "flow_id");
    let Column::Str(kind) = r.table("losses").unwrap().column("kind").unwrap() else {
        panic!()
    };
    assert!(time.windows(2).all(|w| w[0] <= w[1]));
    let to = col_u64(&r, "flows", "timeouts");
    let fr = col_u64(&r, "flows", "fast_retransmits");
    assert!(
        to.iter().sum::<u64>() > 0,
        "the scenario must produce timeouts"
    );
    for f in 0..to.len() {
        let n = |k: &str| {
            (0..flow.len())
                .filter(|&i| flow[i] == f as u64 && kind[i] == k)
                .count() as u64
        };
        assert_eq!(n("timeout"), to[f]);
        assert_eq!(n("fast_retransmit"), fr[f]);
    }
}

/// A trace only observes. An incast whose flows all wait on a 10 s RTO
/// when `stop` (5 s) comes: without a trace the last event is at a few
/// milliseconds, with one every sample is an event. Either way the run
/// ends at `stop`, and every table but the trace's, and the summary, are
/// the same: goodput over the run is over 5 s, not over the last event's
/// time (it was 240 times too high). A k = 4 fat-tree run cut short
/// likewise ends at `stop` on one thread and on two.
#[test]
fn a_run_cut_by_stop_ends_at_stop_and_a_trace_changes_no_result() {
    let doc = serde_json::json!({"name": "stalled", "seed": 1, "stop": "5s",
        "topology": {"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "25us", "buffer": "32KB"},
        "tcp": {"cc": "newreno", "rto_min": "10s"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-8", "response": "256KB",
                  "queries": 5}]});
    let plain = run_checked(&doc);
    let mut traced_doc = doc.clone();
    traced_doc["trace"] = serde_json::json!({"interval": "0.7s", "flows": true});
    let traced = run_checked(&traced_doc);
    for r in [&plain, &traced] {
        assert_eq!(r.summary_value("sim_time_s"), Some(5.0));
        assert!(r.summary_value("apps_unfinished").unwrap() > 0.0);
        // an unfinished flow's goodput is over its time to `stop`
        let delivered = col_u64(r, "flows", "delivered_bytes");
        let start = col_f64(r, "flows", "start_s");
        let goodput = col_f64(r, "flows", "goodput_bps");
        for (i, done) in col_bool(r, "flows", "completed").iter().enumerate() {
            if !done {
                let expect = delivered[i] as f64 * 8.0 / (5.0 - start[i]);
                assert!(
                    (goodput[i] - expect).abs() <= 1e-9 * expect.max(1.0),
                    "flow {i}"
                );
            }
        }
    }
    let keep = |r: &dcnsim::stats::results::Results| {
        let mut t: Vec<_> = r
            .tables
            .iter()
            .filter(|t| t.name != "flow_ts" && t.name != "queue_ts")
            .map(|t| format!("{t:?}"))
            .collect();
        t.sort();
        t
    };
    assert_eq!(keep(&plain), keep(&traced));
    let (summary, traced_summary): (Vec<_>, Vec<_>) = (
        plain
            .summary
            .iter()
            .filter(|(k, _)| k != "events" && k != "wall_s")
            .collect(),
        traced
            .summary
            .iter()
            .filter(|(k, _)| k != "events" && k != "wall_s")
            .collect(),
    );
    assert_eq!(format!("{summary:?}"), format!("{traced_summary:?}"));

    let ft = serde_json::json!({"name": "cut-short", "seed": 1, "stop": "3ms", "threads": 1,
        "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100KB"},
        "tcp": {"cc": "newreno", "rto_min": "1s"},
        "apps": [{"kind": "bulk", "src": 0, "dst": 15, "size": "100MB"}]});
    let (one, _) = same_bits_on_one_thread_and_two(&ft);
    assert_eq!(one.summary_value("sim_time_s"), Some(0.003));
}
