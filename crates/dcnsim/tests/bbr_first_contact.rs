//! BBR and the Linux profile as a new user meets them: a key the run
//! never reads is named with what would read it, not silently ignored.
//! NewReno's recovery keys (`partial_ack_timer`, `reno_reduction`,
//! `reno_hold`) act only without SACK, which `profile = "linux"` turns
//! on; BBR sets cwnd from its model, so the window-growth and
//! restart-after-idle keys of the loss-based algorithms do nothing under
//! `cc = "bbr"`. The laws on whole BBR runs are in tests/bbr.rs.

use dcnsim::scenario::{parse_config, warnings};
use serde_json::{json, Value};

fn doc(tcp: Value) -> Value {
    json!({
        "name": "t",
        "stop": "10ms",
        "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "10us", "buffer": "100pkt"},
        "tcp": tcp,
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}]
    })
}

/// The "changes nothing" warnings of a scenario: (path, message).
fn idle(tcp: Value) -> Vec<(String, String)> {
    warnings(&parse_config(&doc(tcp)).unwrap())
        .into_iter()
        .filter(|e| e.message.contains("changes nothing"))
        .map(|e| (e.path, e.message))
        .collect()
}

fn named(w: &[(String, String)], key: &str, needs: &str) -> bool {
    w.iter()
        .any(|(p, m)| p == &format!("tcp.{key}") && m.contains(needs))
}

#[test]
fn newreno_recovery_keys_under_sack_are_named_with_what_reads_them() {
    let keys = json!({"partial_ack_timer": "impatient", "reno_reduction": "inflation", "reno_hold": false});
    for cc in ["cubic", "bbr"] {
        let mut tcp = json!({"profile": "linux", "cc": cc});
        tcp.as_object_mut()
            .unwrap()
            .extend(keys.as_object().unwrap().clone());
        let w = idle(tcp.clone());
        for key in ["partial_ack_timer", "reno_reduction", "reno_hold"] {
            assert!(named(&w, key, "sack = false"), "{cc} {key}: {w:?}");
        }
        // without SACK the NewReno machine reads them: silent
        tcp["sack"] = json!(false);
        let w = idle(tcp);
        assert!(w.is_empty(), "{cc}: {w:?}");
    }
}

#[test]
fn window_growth_and_idle_restart_keys_under_bbr_are_named() {
    let keys = json!({"idle_restart": "off", "abc_limit": 2, "ack_counting": "acked",
        "ca_increase": "per_ack"});
    let mut bbr = json!({"profile": "linux", "cc": "bbr"});
    bbr.as_object_mut()
        .unwrap()
        .extend(keys.as_object().unwrap().clone());
    let w = idle(bbr.clone());
    for key in ["idle_restart", "abc_limit", "ack_counting", "ca_increase"] {
        assert!(named(&w, key, "a cc other than \"bbr\""), "{key}: {w:?}");
    }
    // CUBIC reads every one of them
    bbr["cc"] = json!("cubic");
    let w = idle(bbr);
    assert!(w.is_empty(), "{w:?}");
}
