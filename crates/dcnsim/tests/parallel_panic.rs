//! A partition's worker that panics (a bug) ends a partitioned run with
//! that panic, as a run on one thread would, instead of leaving the other
//! workers waiting for it at the window's barrier for ever. A binary of
//! its own: the fault is injected through an environment variable, which
//! every test of a binary shares.

use dcnsim::config::Threads;

#[test]
fn a_partitions_panic_ends_the_run_with_that_panic() {
    std::env::set_var("DCNSIM_FREE_CORES", "8");
    std::env::set_var("DCNSIM_CUT", "always");
    let apps: Vec<String> = (0..16)
        .map(|s| {
            format!(
                r#"{{"kind": "bulk", "src": {s}, "dst": {}, "size": "1MB"}}"#,
                (s + 5) % 16
            )
        })
        .collect();
    let doc = format!(
        r#"{{"name": "perm", "seed": 3, "stop": "4ms",
            "topology": {{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "100KB", "ecn_k": "30KB"}},
            "tcp": {{"cc": "dctcp", "rto_min": "1ms"}}, "apps": [{}]}}"#,
        apps.join(",")
    );
    let mut c = dcnsim::scenario::parse_config_str(&doc).expect("valid scenario");
    for n in [2, 4] {
        c.threads = Threads::N(n);
        // the run goes through without the fault
        let (_, stats) = dcnsim::run_measured(&c, None, None).expect("runs");
        assert_eq!(stats.expect("partitioned").parts.len(), n as usize);
        for p in [0, n - 1] {
            std::env::set_var("DCNSIM_TEST_PANIC_IN_PARTITION", p.to_string());
            let got = std::panic::catch_unwind(|| dcnsim::run_measured(&c, None, None).map(|_| ()));
            std::env::remove_var("DCNSIM_TEST_PANIC_IN_PARTITION");
            let payload = got.expect_err("the partition's panic reaches the caller");
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default();
            assert!(
                msg.contains(&format!("partition {p} panics as asked")),
                "{n} threads, partition {p}: {msg:?}"
            );
        }
    }
}
