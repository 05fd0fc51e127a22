//! `limits.memory` against the machine (stats/limits.rs, `warnings`): a
//! memory estimate over the machine's physical memory warns at
//! `limits.memory`, with both figures, when the limit would not stop the
//! run first (the default limit does not follow the machine, and a raised
//! one may pass it); under a lower limit, the warning of the estimate over
//! the limit gives the machine's figure too. It stays a warning: the
//! scenario is valid and runs.

use dcnsim::scenario::{parse_config, warnings};
use dcnsim::stats::limits::{estimate, fmt_bytes, machine_memory};
use serde_json::{json, Value};

/// MemTotal of /proc/meminfo in bytes, read here on its own.
fn mem_total() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// An incast whose windows could grow into 10 GB buffers for 1,000 s:
/// packets and windows the run-time guard watches (not refused), far
/// more than any machine's memory.
fn huge(limit: &str) -> Value {
    json!({"stop": "1000s", "threads": 1, "limits": {"memory": limit, "events": 1e15},
           "topology": {"kind": "star", "hosts": 200, "rate": "100Gbps", "delay": "10us",
                        "buffer": "10GB", "nic_buffer": "10GB"},
           "tcp": {"rwnd": "1TB"},
           "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-199",
                     "response": "1TB", "queries": 1}]})
}

#[track_caller]
fn machine_warning(doc: &Value) -> Option<String> {
    let c = parse_config(doc).expect("a warning, not a refusal");
    let w: Vec<_> = warnings(&c)
        .into_iter()
        .filter(|e| e.path == "limits.memory")
        .collect();
    assert!(w.len() <= 1, "{w:?}");
    w.into_iter().next().map(|e| e.message)
}

#[test]
fn an_estimate_over_the_machine_warns_at_limits_memory() {
    let Some(total) = mem_total() else {
        // Not Linux: nothing to compare with, and nothing is said.
        assert_eq!(machine_memory(), None);
        assert_eq!(machine_warning(&huge("1000TB")), None);
        return;
    };
    assert_eq!(machine_memory(), Some(total));
    // A limit at or above the machine's memory: the guard would not stop
    // the run before the machine runs out.
    let doc = huge("1000TB");
    let est = estimate(&parse_config(&doc).unwrap()).memory();
    assert!(est > total, "the scenario must need more than {total} B");
    let m = machine_warning(&doc).expect("a warning at limits.memory");
    for figure in [fmt_bytes(est), fmt_bytes(total), "1000 TB".to_string()] {
        assert!(m.contains(&figure), "{figure} not in {m}");
    }
    assert!(m.contains("set `limits.memory` under"), "{m}");
    // A limit below it: the guard stops the run there, and the warning of
    // the estimate over that limit says the machine's figure beside.
    let half = format!("{}MB", total / 2 / (1 << 20));
    let doc = huge(&half);
    assert_eq!(machine_warning(&doc), None);
    let w = warnings(&parse_config(&doc).unwrap());
    assert!(
        w.iter().any(|e| e.message.contains("over the")
            && e.message
                .contains(&format!("this machine's {}", fmt_bytes(total)))),
        "{w:?}"
    );
    // A small scenario says nothing of the machine.
    let small = json!({"stop": "10ms", "threads": 1,
        "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "1us",
                     "buffer": "100pkt"},
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}]});
    assert!(estimate(&parse_config(&small).unwrap()).memory() < total);
    assert_eq!(machine_warning(&small), None);
}
