//! The parallel engine (issue 29): a run on 2 threads writes the same
//! tables, pcaps and summary (but how long it took and on how many
//! threads) as the same run on 1, and really ran on two partitions with
//! packets crossing the cut.

mod common;
use common::*;
use dcnsim::config::{Config, Threads, Ties};
use dcnsim::stats::results::Results;

/// Bulk apps from each of 16 hosts to the host 5 along, for `duration`.
fn five_along(duration: &str) -> Vec<String> {
    (0..16)
        .map(|s| {
            format!(
                r#"{{"kind": "bulk", "src": {s}, "dst": {}, "duration": "{duration}"}}"#,
                (s + 5) % 16
            )
        })
        .collect()
}

/// Bulk apps of `size` from each of `senders` into host 0 or 1 (the even
/// senders to 0): on a k = 4 fat-tree, other pods' hosts into the first's.
fn into_first_two(senders: std::ops::Range<usize>, size: &str) -> Vec<String> {
    senders
        .map(|s| {
            format!(
                r#"{{"kind": "bulk", "src": {s}, "dst": {}, "size": "{size}"}}"#,
                s % 2
            )
        })
        .collect()
}

fn perm_k4(extra: &str) -> Config {
    // every host sends to the host 5 along: most flows cross pods
    let apps = five_along("3ms");
    let doc = format!(
        r#"{{"name": "perm", "seed": 3, "stop": "4ms", "threads": 1,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "100KB", "ecn_k": "30KB"}},
            "tcp": {{"cc": "dctcp", "rto_min": "1ms"}}, "apps": [{}]{extra}}}"#,
        apps.join(",")
    );
    dcnsim::scenario::parse_config_str(&doc).expect("valid scenario")
}

/// Everything but how the run was executed. (Tables are compared as
/// printed, so a NaN, a UDP flow's RTT, equals a NaN.)
fn same(a: &Results, b: &Results) {
    assert!(
        format!("{:?}", a.tables) == format!("{:?}", b.tables),
        "the tables differ"
    );
    assert_eq!(a.pcaps, b.pcaps);
    let phys = |r: &Results| -> Vec<(String, f64)> {
        r.summary
            .iter()
            .filter(|(k, _)| k != "wall_s" && k != "threads" && k != "workers")
            .cloned()
            .collect()
    };
    assert_eq!(phys(a), phys(b));
}

/// Cut as asked however busy the machine is now (on one free core a run
/// goes on one thread instead) and however little work a window holds
/// (`threads = n` goes on one thread then): these tests are about the cut.
fn cut_as_asked() {
    std::env::set_var("DCNSIM_FREE_CORES", "8");
    std::env::set_var("DCNSIM_CUT", "always");
}

fn with_threads(mut c: Config, n: u32) -> Results {
    cut_as_asked();
    c.threads = Threads::N(n);
    let (r, stats) = dcnsim::run_measured(&c, None, None).expect("runs");
    if n > 1 {
        let s = stats.expect("a partitioned run");
        assert_eq!(s.parts.len(), n as usize, "{n} partitions");
        assert!(
            s.parts.iter().all(|p| p.events > 0),
            "every partition ran events"
        );
        assert!(
            s.parts.iter().all(|p| p.handed_over > 0),
            "packets crossed the cut both ways"
        );
        assert_eq!(r.summary_value("threads"), Some(n as f64));
        // the workers the plan ran them on, never more than the partitions
        assert_eq!(r.summary_value("workers"), Some(s.workers as f64));
        assert!(s.workers >= 1 && s.workers <= n);
        // each window's slowest partition lies between its mean and its
        // sum, and the windows follow one another inside the workers' time
        assert!(s.busy_ns > 0, "the windows' work is measured");
        assert!(
            s.critical_ns <= s.busy_ns && s.critical_ns * u64::from(s.threads) >= s.busy_ns,
            "slowest {} ns against all {} ns",
            s.critical_ns,
            s.busy_ns
        );
        assert!(s.critical_ns <= s.wall_ns, "{s:?}");
        // the results carry the same accounting: the windows, and the
        // partition's work, the waits and the steps between windows add
        // up to the workers' time, inside the run's own wall time
        let t = |k: &str| {
            r.timing_value(k)
                .unwrap_or_else(|| panic!("timing has no {k}: {:?}", r.timing))
        };
        assert_eq!(t("windows"), s.windows as f64);
        assert!(s.windows > 0);
        let (work, wait, between) = (
            t("partition_work_s"),
            t("imbalance_s"),
            t("between_windows_s"),
        );
        assert!(
            work > 0.0 && wait >= 0.0 && between >= 0.0,
            "{:?}",
            r.timing
        );
        let workers_s = s.wall_ns as f64 / 1e9;
        assert!(
            (work + wait + between - workers_s).abs() < 1e-6,
            "{:?} against {workers_s} s",
            r.timing
        );
        assert!(
            workers_s <= r.summary_value("wall_s").unwrap(),
            "{:?}",
            r.timing
        );
    } else {
        assert!(
            stats.is_none() && r.timing.is_empty(),
            "one thread: {:?}",
            r.timing
        );
    }
    check_conservation(&r);
    r
}

#[test]
fn two_threads_give_one_threads_bits_on_a_fat_tree_permutation() {
    let c = perm_k4("");
    assert_eq!(c.ties, Ties::Seeded, "threads picks the seeded order");
    let one = with_threads(c.clone(), 1);
    assert!(one.summary_value("packets_dropped").unwrap() >= 0.0);
    same(&one, &with_threads(c.clone(), 2));
    same(&one, &with_threads(c, 4));
}

/// An ACK's SACK blocks live beside its packet in the arena, not in its
/// line, and cross the cut with it: a lossy permutation whose ACKs carry
/// them across gives one thread's bits on 2 and 4 (with the blocks zeroed
/// at the cut the tables differ).
#[test]
fn sack_blocks_cross_the_cut_intact() {
    let doc = format!(
        r#"{{"name": "perm_sack", "seed": 5, "stop": "4ms", "threads": 1,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "20KB"}},
            "tcp": {{"cc": "cubic", "rto_min": "1ms", "sack": true}}, "apps": [{}]}}"#,
        five_along("3ms").join(",")
    );
    let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    // SACK recovery ran, so ACKs with blocks were sent (most across pods)
    assert!(
        col_u64(&one, "flows", "fast_retransmits")
            .iter()
            .sum::<u64>()
            > 10
    );
    same(&one, &with_threads(c.clone(), 2));
    same(&one, &with_threads(c, 4));
}

/// Links that fail (down for a while with routing converging around it,
/// lossy, slower, withdrawn from routing, whose tables the partitions
/// share and each recomputes at the convergence): each partition
/// judges the packets it sends on its links, cut links included, with the
/// link's own stream, so 2 and 4 threads give one thread's bits.
#[test]
fn failures_give_one_threads_bits_on_two_and_four_threads() {
    // with txrehash, whose ACK labels the receiver's partition draws
    let c = perm_k4(
        r#", "failures": [{"a": "aggr0_0", "b": "core0", "at": "1ms", "until": "2ms", "converge": "300us"},
                        {"a": "aggr1_1", "b": "core2", "loss": 0.05},
                        {"a": "aggr2_0", "b": "core1", "rate": "2Gbps"},
                        {"a": "aggr3_1", "b": "core3", "withdrawn": true}]"#,
    );
    let mut c = c;
    for a in &mut c.apps {
        if let dcnsim::config::AppSpec::Bulk { tcp, .. } = a {
            tcp.txrehash = true;
        }
    }
    let one = with_threads(c.clone(), 1);
    assert!(one.summary_value("packets_dropped_failed").unwrap() > 0.0);
    assert!(
        common::col_u64(&one, "flows", "rehashes")
            .iter()
            .sum::<u64>()
            > 0
    );
    same(&one, &with_threads(c.clone(), 2));
    same(&one, &with_threads(c, 4));
}

/// Queues that drop packets without ECT over K (`ecn_non_ect = "drop"`,
/// RED with ECN), NewReno and DCTCP flows sharing them: the gate works on
/// the cut links' sinks as on the links, so 2 and 4 threads give one
/// thread's bits, and NewReno's packets and every flow's ACKs (never
/// ECN-capable) are dropped at the threshold.
#[test]
fn gated_queues_give_one_threads_bits_on_two_and_four_threads() {
    let apps: Vec<String> = five_along("3ms")
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            if i % 2 == 0 {
                a.replace(
                    r#""kind": "bulk","#,
                    r#""kind": "bulk", "tcp": {"cc": "newreno"},"#,
                )
            } else {
                a
            }
        })
        .collect();
    let doc = format!(
        r#"{{"name": "gated", "seed": 3, "stop": "4ms", "threads": 1,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "100KB", "ecn_k": "30KB", "ecn_non_ect": "drop"}},
            "tcp": {{"cc": "dctcp", "rto_min": "1ms"}}, "apps": [{}]}}"#,
        apps.join(",")
    );
    let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    let at_k = one.summary_value("packets_dropped_non_ect").unwrap();
    assert!(at_k > 0.0, "nothing dropped at the threshold");
    assert!(one.summary_value("packets_dropped").unwrap() >= at_k);
    same(&one, &with_threads(c.clone(), 2));
    same(&one, &with_threads(c, 4));
    // The same queues with core links slowed to a fifth by failures: the
    // slower class drops at K as the link's own does, on a cut link's sink
    // as on the link (a sink once ignored the slower rate of a gated link).
    let slowed = doc.replace(
        r#""apps":"#,
        r#""failures": [{"a": "aggr0_0", "b": "core0", "rate": "2Gbps"},
                        {"a": "aggr2_1", "b": "core3", "rate": "2Gbps"}], "apps":"#,
    );
    let c = dcnsim::scenario::parse_config_str(&slowed).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    assert_eq!(
        common::col_u64(&one, "failures", "rate_bps"),
        &[2_000_000_000; 4]
    );
    assert!(one.summary_value("packets_dropped_non_ect").unwrap() > 0.0);
    same(&one, &with_threads(c.clone(), 2));
    same(&one, &with_threads(c, 4));
}

/// Priority flow control across the cut: hosts of three pods send to two
/// hosts of the first, so their pod's switches pause the cores and the
/// cores pause the other pods' switches. A PAUSE or RESUME for a link
/// whose sender another partition runs is handed to it (a link's delay
/// ahead, the lookahead under PFC) and a port paused there serves its
/// queue when the RESUME reaches it, as on one thread: 2 and 4 threads
/// give one thread's bits, the `pfc` and `pfc_log` tables too, and
/// nothing is lost.
#[test]
fn pfc_pauses_cross_the_cut_and_give_one_threads_bits() {
    let apps = into_first_two(4..16, "300KB");
    let doc = format!(
        r#"{{"name": "pfc", "seed": 7, "stop": "20ms", "threads": 1,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "300KB"}},
            "tcp": {{"cc": "newreno", "rto_min": "1ms"}},
            "pfc": {{"xoff": "20KB", "xon": "10KB"}}, "apps": [{}]}}"#,
        apps.join(",")
    );
    let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    assert!(one.summary_value("pfc_pauses").unwrap() > 0.0, "no pauses");
    assert_eq!(one.summary_value("packets_dropped"), Some(0.0));
    for n in [2, 4] {
        let mut cn = c.clone();
        cn.threads = Threads::N(n);
        let (r, stats) = dcnsim::run_measured(&cn, None, None).expect("runs");
        let s = stats.expect("a partitioned run");
        assert_eq!(s.parts.len(), n as usize);
        let crossed: u64 = s.parts.iter().map(|p| p.pauses_handed_over).sum();
        assert!(crossed > 0, "{n} threads: no PFC frame crossed the cut");
        same(&one, &r);
        same(&one, &with_threads(c.clone(), n));
    }
}

/// HPCC's in-band telemetry across the cut: a data packet's records (one
/// per switch egress, the cut link's written by the sender's world) leave
/// with it, and its ACK's (its data's, carried back) cross back the same
/// way, so each sender's window follows the same records on 1, 2 and 4
/// threads: the same bits, with PFC (its frames crossing too) and
/// without it, where shallow buffers drop packets (whose records are
/// cleared on either side of the cut).
#[test]
fn int_records_cross_the_cut_and_give_one_threads_bits() {
    for (pfc, buffer) in [(true, "1MB"), (false, "60KB")] {
        let mut apps = into_first_two(4..16, "1MB");
        apps.extend(five_along("2ms").into_iter().take(4));
        let pfc = if pfc { r#""pfc": {}, "# } else { "" };
        let doc = format!(
            r#"{{"name": "hpcc", "seed": 11, "stop": "10ms", "threads": 1, {pfc}
                "topology": {{"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "1us",
                             "buffer": "{buffer}"}},
                "tcp": {{"transport": "hpcc", "mss": 4096}}, "apps": [{}]}}"#,
            apps.join(",")
        );
        let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
        assert!(c.int, "HPCC turns INT on");
        let one = with_threads(c.clone(), 1);
        assert!(one.summary_value("hpcc_window_updates").unwrap() > 0.0);
        if pfc.is_empty() {
            assert!(
                one.summary_value("packets_dropped").unwrap() > 0.0,
                "no drops"
            );
        }
        same(&one, &with_threads(c.clone(), 2));
        same(&one, &with_threads(c, 4));
    }
}

/// An HPCC receiver's ACK dropped at its own full NIC queue: its records
/// (the data's, carried back) were set on its id after the send, so they
/// stayed on the freed id and the next packet given it carried them as
/// its first hops. Each world reuses ids its own way, so 1 and 2 threads
/// differed (a thread audit's random scenario, 2026-12-07: one flow's
/// final cwnd 67,071 B against 67,069 B); the records now go with the ACK
/// before its NIC can drop it.
#[test]
fn an_hpcc_ack_dropped_at_its_nic_takes_its_records_with_it() {
    let doc = r#"{"name": "s30007", "seed": 268210, "stop": "675us", "topology": {"kind": "fat_tree", "k": 4, "rate": "25Gbps", "delay": "2us", "buffer": "20pkt"}, "tcp": {"transport": "hpcc", "mss": 1000}, "routing": {"mode": "single"}, "apps": [{"kind": "poisson", "load": 0.5, "cdf": "datamining"}, {"kind": "sync_reads", "client": 3, "servers": [2, 1], "sru": "32KB", "blocks": 4}, {"kind": "poisson", "load": 0.5, "cdf": "datamining"}, {"kind": "partition_aggregate", "aggregator": 7, "workers": [14, 0, 1], "response": "10KB", "queries": 5, "gap": "0s"}, {"kind": "poisson", "load": 0.5, "cdf": "websearch", "sources": [10, 2, 6, 0, 12], "destinations": [15, 6, 5, 1, 10]}, {"kind": "bulk", "src": 6, "dst": 12, "duration": "1479us"}]}"#;
    let c = dcnsim::scenario::parse_config_str(doc).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    let acks: u64 = match one.table("flows").and_then(|t| t.column("ack_drops")) {
        Some(dcnsim::stats::results::Column::U64(v)) => v.iter().sum(),
        other => panic!("the flows table's ack_drops: {other:?}"),
    };
    assert!(acks > 0, "the case under test: ACKs dropped");
    same(&one, &with_threads(c, 2));
}

/// NDP over trimming switches across the cut: a priority link hands its
/// packet over when its serialization starts (a header overtakes waiting
/// data, so departures are not known at enqueue), a receiver's pull
/// pacer runs where the receiver is, and a trimmed header bounced back
/// to its sender (`return_to_sender`, routed from the tables) crosses
/// like any packet. Shallow queues trim, bounce and drop headers; 2 and 4
/// threads give one thread's bits. The same over DCQCN and TIMELY, whose
/// returned headers their senders discard (they once went to the
/// receiver's state, which another partition holds: 1, 2 and 4 threads
/// differed).
#[test]
fn ndp_and_trimming_cross_the_cut_and_give_one_threads_bits() {
    let apps = into_first_two(2..16, "1MB");
    for transport in ["ndp", "dcqcn", "timely"] {
        let doc = format!(
            r#"{{"name": "ndp", "seed": 3, "stop": "5ms", "threads": 1,
                "topology": {{"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "1us",
                             "buffer": "20000B"}},
                "tcp": {{"transport": "{transport}", "mss": 9000, "header": 64}},
                "trimming": {{"return_to_sender": true, "header_buffer": "300B"}},
                "apps": [{}]}}"#,
            apps.join(",")
        );
        let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
        let one = with_threads(c.clone(), 1);
        let seen: &[&str] = if transport == "ndp" {
            &["packets_trimmed", "headers_bounced", "ndp_pulls"]
        } else {
            &["packets_trimmed", "headers_bounced"]
        };
        for k in seen {
            assert!(one.summary_value(k).unwrap() > 0.0, "{transport}: no {k}");
        }
        same(&one, &with_threads(c.clone(), 2));
        same(&one, &with_threads(c, 4));
    }
}

/// TCP over trimming switches: a trimmed header that reaches a TCP
/// receiver is discarded there and counted (`tcp_headers_discarded`),
/// in whichever partition the receiver is; the count is the sum, as on
/// one thread (it was partition 0's alone: 14 on one thread, 0 on two).
#[test]
fn tcp_headers_discarded_under_trimming_sum_across_partitions() {
    let doc = r#"{"name": "trim-tcp", "seed": 1, "stop": "10ms", "threads": 1,
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                     "host_rate": "10Gbps", "fabric_rate": "10Gbps", "delay": "1us", "buffer": "50KB"},
        "trimming": {},
        "apps": [{"kind": "bulk", "src": 0, "dst": 2, "size": "1MB"},
                 {"kind": "bulk", "src": 1, "dst": 2, "size": "1MB"}]}"#;
    let c = dcnsim::scenario::parse_config_str(doc).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    assert!(one.summary_value("tcp_headers_discarded").unwrap() > 0.0);
    same(&one, &with_threads(c, 2));
}

/// An NDP flow that sends for a duration: its receiver pulls until it has
/// what it knows was written, not what the sender's close leaves (which
/// one thread's receiver read at once and another partition's could not:
/// 2,475 pulls on one thread, 2,468 on two).
#[test]
fn an_ndp_duration_flow_gives_one_threads_bits() {
    let doc = r#"{"name": "ndp-duration", "seed": 1, "stop": "5ms", "until": "stop", "threads": 1,
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 1,
                     "host_rate": "10Gbps", "fabric_rate": "10Gbps", "delay": "1us", "buffer": "50KB"},
        "tcp": {"transport": "ndp"},
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "duration": "3ms"}]}"#;
    let c = dcnsim::scenario::parse_config_str(doc).expect("valid scenario");
    let one = with_threads(c.clone(), 1);
    assert!(one.summary_value("ndp_pulls").unwrap() > 0.0);
    same(&one, &with_threads(c, 2));
}

#[test]
fn time_series_and_pcaps_merge_across_partitions() {
    let c = perm_k4(
        r#", "trace": {"interval": "100us", "flows": true, "queues": "switches"},
            "pcap": {"hosts": [0, 9]}"#,
    );
    same(&with_threads(c.clone(), 1), &with_threads(c, 2));
}

#[test]
fn a_run_that_ends_when_its_apps_end_ends_at_the_same_event() {
    // sized transfers: the run ends at the last one's delivery, in the
    // middle of a window on two threads
    let apps: Vec<String> = (0..16)
        .map(|s| {
            format!(
                r#"{{"kind": "bulk", "src": {s}, "dst": {}, "size": {}}}"#,
                (s + 6) % 16,
                20_000 + 7_919 * s
            )
        })
        .collect();
    let doc = format!(
        r#"{{"seed": 5, "stop": "1s", "threads": 1,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "2us", "buffer": "20pkt"}},
            "tcp": {{"cc": "newreno", "rto_min": "1ms"}}, "apps": [{}]}}"#,
        apps.join(",")
    );
    let c = dcnsim::scenario::parse_config_str(&doc).unwrap();
    let one = with_threads(c.clone(), 1);
    assert_eq!(one.summary_value("apps_unfinished"), Some(0.0));
    assert!(one.summary_value("sim_time_s").unwrap() < 0.5);
    same(&one, &with_threads(c, 2));
}

/// Ctrl-C and progress work on several threads as on one: the check is
/// asked (on the caller's thread) as events go by, progress is told the
/// clock, and a stop returns no tables.
#[test]
fn a_partitioned_run_reports_progress_and_stops_when_asked() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let mut c = perm_k4("");
    c.stop = dcnsim::sim::time::SimTime::from_ms(50);
    if let dcnsim::config::AppSpec::Bulk { amount, .. } = &mut c.apps[0] {
        *amount = dcnsim::config::BulkAmount::Duration(dcnsim::sim::time::SimTime::from_ms(50));
    }
    c.threads = Threads::N(2);
    cut_as_asked();
    let caller = std::thread::current().id();
    let asked = Arc::new(AtomicU64::new(0));
    let told = Arc::new(AtomicU64::new(0));
    let (a, t) = (asked.clone(), told.clone());
    let interrupt: dcnsim::world::Interrupt = Box::new(move || {
        assert_eq!(
            std::thread::current().id(),
            caller,
            "asked on the caller's thread"
        );
        a.fetch_add(1, Ordering::Relaxed) >= 3
    });
    let progress: dcnsim::world::Progress = Box::new(move |now, events| {
        assert!(events > 0 && now.0 > 0);
        t.fetch_add(1, Ordering::Relaxed);
    });
    let r = dcnsim::run_measured(&c, Some(interrupt), Some(progress));
    assert!(matches!(r, Err(dcnsim::Stopped::Interrupted)), "stopped");
    assert!(asked.load(Ordering::Relaxed) >= 4);
    assert!(told.load(Ordering::Relaxed) >= 3);
}

/// `threads = "auto"`: every free core where a window holds enough work
/// (hosts × window length), one thread where it does not or where one
/// core is free; and it picks the seeded order like any `threads`.
#[test]
fn auto_threads_follow_the_work_a_window_holds() {
    let doc = |delay: &str| {
        format!(
            r#"{{"stop": "1ms", "threads": "auto",
                "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "{delay}", "buffer": "100KB"}},
                "apps": [{{"kind": "bulk", "src": 0, "dst": 9, "size": 100000}}]}}"#
        )
    };
    let short = dcnsim::scenario::parse_config_str(&doc("1us")).unwrap();
    assert_eq!(short.threads, Threads::Auto);
    assert_eq!(short.ties, Ties::Seeded);
    // 16 hosts × 1.03 µs windows: too little work per window
    assert_eq!(dcnsim::parallel::auto_threads(&short, 2), 1);
    let long = dcnsim::scenario::parse_config_str(&doc("25us")).unwrap();
    // every free core, up to k = 4's four pods; one when one core is free
    assert_eq!(dcnsim::parallel::auto_threads(&long, 2), 2);
    assert_eq!(dcnsim::parallel::auto_threads(&long, 8), 4);
    assert_eq!(dcnsim::parallel::auto_threads(&long, 1), 1);
    // here and now: never more than the cores free
    let now = dcnsim::parallel::ExecPlan::of(&long).parts();
    assert!((1..=dcnsim::parallel::free_cores().min(4)).contains(&now));
    // `threads = 2` asked: cut where a window holds work, one thread where
    // the hand-overs would cost more (unless cut_always)
    use dcnsim::parallel::ExecPlan;
    assert_eq!(ExecPlan::asked(&long, 2, false).parts(), 2);
    let asked = ExecPlan::asked(&short, 2, false);
    assert!(!asked.is_cut() && asked.partition.parts == 1);
    let why = asked.single.as_deref().unwrap();
    assert!(
        why.contains("too little work") && why.contains("2 threads run slower than one"),
        "{why}"
    );
    assert_eq!(ExecPlan::asked(&short, 2, true).parts(), 2);
    // a plan that does not cut says why
    let one = dcnsim::parallel::ExecPlan::auto(&short, 2);
    assert!(!one.is_cut() && one.single.as_deref().unwrap().contains("too little work"));
    assert_eq!(
        one.partition.parts, 1,
        "and has not kept a cut it will not use"
    );
    let bad =
        dcnsim::scenario::parse_config_str(&doc("1us").replace(r#""auto""#, "0")).unwrap_err();
    assert_eq!(bad[0].path, "threads");
    assert!(bad[0].message.contains("auto"), "{}", bad[0].message);
}

/// The memory guard looks at a partitioned run as at one thread's: every
/// partition's bytes, summed, against the limit; over it the run stops
/// with `memory_stop` set.
#[test]
fn the_memory_guard_stops_a_partitioned_run() {
    let mut c = perm_k4("");
    c.threads = Threads::N(2);
    let plan = dcnsim::parallel::ExecPlan::cut(&c, 2);
    assert_eq!(plan.parts(), 2);
    let guard = |limit: u64| dcnsim::world::MemoryGuard {
        limit,
        measure: dcnsim::stats::limits::run_bytes,
        slot_rows: dcnsim::stats::limits::slot_rows(&c),
        interval: dcnsim::stats::limits::guard_interval,
    };
    let (w, _) = dcnsim::parallel::run(&c, &plan, None, None, Some(guard(1 << 40))).unwrap();
    assert!(w.memory_stop.is_none(), "a terabyte is enough");
    let (w, _) = dcnsim::parallel::run(&c, &plan, None, None, Some(guard(1 << 16))).unwrap();
    let stop = w.memory_stop.expect("stopped by the guard");
    assert!(stop.used > stop.limit && stop.limit == 1 << 16);
    assert!(stop.at < c.stop, "stopped before the end");
}

/// Partitions may outnumber the workers (the machine's cores): eight
/// partitions on two workers, each running four in every window, write
/// one thread's bits.
#[test]
fn eight_partitions_on_two_workers_give_one_threads_bits() {
    // 8 leaves of 2 hosts; every host sends to the host 5 along, on
    // another leaf
    let apps = five_along("2ms");
    let doc = format!(
        r#"{{"seed": 7, "stop": "3ms", "threads": 8,
            "topology": {{"kind": "leaf_spine", "leaves": 8, "spines": 2, "hosts_per_leaf": 2,
                         "host_rate": "10Gbps", "fabric_rate": "10Gbps", "delay": "1us",
                         "buffer": "100KB", "ecn_k": "30KB"}},
            "tcp": {{"cc": "dctcp", "rto_min": "1ms"}}, "apps": [{}]}}"#,
        apps.join(",")
    );
    let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
    let plan = dcnsim::parallel::ExecPlan::cut(&c, 8);
    assert_eq!(plan.parts(), 8, "one partition per leaf");
    assert_eq!(plan.single, None);
    let (w, stats) = dcnsim::parallel::run_on(&c, &plan, 2, false, None, None, None).expect("runs");
    assert_eq!((stats.workers, stats.parts.len()), (2, 8));
    assert!(stats
        .parts
        .iter()
        .all(|p| p.events > 0 && p.handed_over > 0));
    let eight_on_two = dcnsim::finish(w, 0.0);
    check_conservation(&eight_on_two);
    same(&with_threads(c, 1), &eight_on_two);
}

/// A Poisson load on a k = 4 fat-tree (flows of 1–100 KB between random
/// hosts at `load`, arriving for `duration`), cut into pods like any other.
fn poisson_k4(load: f64, duration: &str, stop: &str, extra: &str) -> Config {
    let doc = format!(
        r#"{{"name": "poisson", "seed": 11, "stop": "{stop}", "threads": 1,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "60KB", "ecn_k": "20KB"}},
            "tcp": {{"cc": "dctcp", "rto_min": "1ms"}},
            "apps": [{{"kind": "poisson", "load": {load}, "cdf": [[1000, 0], ["20KB", 0.6], ["100KB", 1]],
                       "duration": "{duration}"}}]{extra}}}"#
    );
    dcnsim::scenario::parse_config_str(&doc).expect("valid scenario")
}

/// Every partition draws the same arrivals from the seed and starts the
/// flows whose sender it holds: 1, 2 and 4 threads write the same bits,
/// the flows' time series (rows added as flows open) included.
#[test]
fn a_poisson_load_gives_one_threads_bits_on_two_and_four_threads() {
    let c = poisson_k4(
        0.5,
        "2ms",
        "3ms",
        r#", "trace": {"interval": "250us", "flows": true, "queues": "switches"}"#,
    );
    assert_eq!(dcnsim::partition::partition(&c, 4).parts, 4);
    let one = with_threads(c.clone(), 1);
    let generated = one.summary_value("app0_flows_generated").unwrap();
    assert!(generated > 100.0, "{generated} flows");
    same(&one, &with_threads(c.clone(), 2));
    same(&one, &with_threads(c, 4));
}

/// A Poisson app ends, on one thread, at the event that completes its last
/// flow; cut, each partition's copy waits for the flows it receives, and
/// the run ends at the latest of them: the same event.
#[test]
fn a_poisson_run_that_ends_with_its_last_flow_ends_at_the_same_event() {
    let c = poisson_k4(0.3, "1ms", "1s", "");
    let one = with_threads(c.clone(), 1);
    assert_eq!(one.summary_value("apps_unfinished"), Some(0.0));
    assert!(one.summary_value("sim_time_s").unwrap() < 0.5);
    let two = with_threads(c.clone(), 2);
    same(&one, &two);
    same(&one, &with_threads(c, 4));
}

/// Poisson loads beside bulk and UDP apps, over seeds and cuts (a
/// leaf-spine's leaves: up to 8 partitions on as many workers as the
/// machine has, and a fat-tree's pods), each the same bits as one thread.
#[test]
fn poisson_with_other_apps_gives_one_threads_bits_over_seeds_and_cuts() {
    let topologies = [
        r#"{"kind": "leaf_spine", "leaves": 8, "spines": 2, "hosts_per_leaf": 2,
            "host_rate": "10Gbps", "fabric_rate": "10Gbps", "delay": "1us",
            "buffer": "30KB", "ecn_k": "10KB"}"#,
        r#"{"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "2us", "buffer": "20pkt"}"#,
    ];
    for (t, topo) in topologies.iter().enumerate() {
        for seed in [1u64, 2, 3] {
            let doc = format!(
                r#"{{"seed": {seed}, "stop": "3ms", "threads": 1, "topology": {topo},
                    "tcp": {{"cc": "dctcp", "rto_min": "1ms"}},
                    "apps": [
                      {{"kind": "poisson", "load": 0.4, "cdf": [[100, 0], ["30KB", 1]], "duration": "2ms",
                        "sources": "0-7", "start": "{}us"}},
                      {{"kind": "bulk", "src": 3, "dst": 12, "size": 200000}},
                      {{"kind": "udp_cbr", "src": 9, "dst": 1, "rate": "100Mbps", "stop": "2ms"}}]}}"#,
                50 * seed
            );
            let c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
            let one = with_threads(c.clone(), 1);
            assert!(one.summary_value("app0_flows_generated").unwrap() > 10.0);
            for n in [2, 4] {
                same(&one, &with_threads(c.clone(), n));
            }
            if t == 0 {
                same(&one, &with_threads(c, 8));
            }
        }
    }
}

/// `threads = "auto"`'s estimate of a window's work is the right size: a
/// run's events per window lie between a quarter of `window_events` and
/// twice it, on a permutation whose every host sends at line rate, and on
/// an outcast (16 hosts, 15 flows into one port, 25 µs links), which the
/// rule it replaced (hosts × window ≥ 100 µs) cut though its hosts mostly
/// wait.
#[test]
fn a_windows_events_are_near_the_auto_estimate() {
    let outcast: Vec<String> = (1..16)
        .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "duration": "20ms"}}"#))
        .collect();
    let outcast = format!(
        r#"{{"stop": "20ms", "threads": "auto",
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "20pkt"}},
            "tcp": {{"cc": "cubic", "rto_min": "2ms"}}, "apps": [{}]}}"#,
        outcast.join(",")
    );
    let outcast = dcnsim::scenario::parse_config_str(&outcast).expect("valid scenario");
    for (name, cfg, cut) in [
        ("permutation", perm_k4(""), true),
        ("outcast", outcast, false),
    ] {
        let window = dcnsim::parallel::ExecPlan::cut(&cfg, 2)
            .window
            .expect("a fat-tree is cut");
        let estimate = dcnsim::parallel::window_events(&cfg, window);
        let mut one = cfg.clone();
        one.threads = Threads::N(1);
        let (r, _) = dcnsim::run_measured(&one, None, None).expect("runs");
        let per_window =
            r.summary_value("events").unwrap() * window.as_secs_f64() / cfg.stop.as_secs_f64();
        assert!(
            per_window <= 2.0 * estimate && per_window >= estimate / 4.0,
            "{name}: {per_window:.1} events a window against an estimate of {estimate:.1}"
        );
        assert_eq!(
            dcnsim::parallel::auto_threads(&cfg, 2) > 1,
            cut,
            "{name}: auto cuts only above {} events a window ({estimate:.1})",
            dcnsim::parallel::AUTO_MIN_WINDOW_EVENTS
        );
    }
}
