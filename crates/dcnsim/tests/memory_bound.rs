//! The memory law of limits.rs, measured: a run's peak memory stays under
//! its pre-run estimate plus what its loss logs hold (the one part that
//! grows with congestion over time, which the run-time guard counts), and
//! under `limits.memory` always — a run that would pass it is rejected
//! before it starts or stopped by the guard, with nothing returned.
//!
//! Each scenario runs in a child process (this test binary, re-run with
//! `DCNSIM_MEM_CHILD` set to the scenario) so its peak resident set
//! (`VmHWM`) is its own; the child reports it above its resident set
//! before the world is built.

use dcnsim::scenario::parse_config_str;
use dcnsim::stats::limits::estimate;
use dcnsim::stats::report::LOSS_RESULT_BYTES;
use serde_json::{json, Value};
use std::process::Command;

const CHILD: &str = "DCNSIM_MEM_CHILD";
/// What the process itself may add around a run (code paged in, stack,
/// allocator bookkeeping), not part of any scenario.
const SLACK: u64 = 8 << 20;

fn status(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with(key)).unwrap();
    let kb: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kb * 1024
}

/// The child: run the scenario and print `outcome peak losses`.
#[test]
fn child_entry_point() {
    let Ok(text) = std::env::var(CHILD) else {
        return;
    };
    let cfg = match parse_config_str(&text) {
        Ok(c) => c,
        Err(e) => {
            println!("RESULT rejected 0 0 {}", e[0].path);
            return;
        }
    };
    let base = status("VmRSS:");
    let out = dcnsim::try_run(&cfg);
    let peak = status("VmHWM:").saturating_sub(base);
    match out {
        Ok(r) => {
            let losses = r.table("losses").unwrap().rows();
            println!("RESULT completed {peak} {losses} -");
        }
        Err(e) => println!("RESULT stopped {peak} 0 {e}"),
    }
}

struct Outcome {
    kind: String,
    peak: u64,
    losses: u64,
    detail: String,
}

fn measure(doc: &Value) -> Outcome {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "child_entry_point",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, doc.to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.split_once("RESULT ").map(|x| x.1))
        .unwrap_or_else(|| {
            panic!(
                "child gave no result: {text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let mut it = line.splitn(4, ' ');
    Outcome {
        kind: it.next().unwrap().to_string(),
        peak: it.next().unwrap().parse().unwrap(),
        losses: it.next().unwrap().parse().unwrap(),
        detail: it.next().unwrap_or("").to_string(),
    }
}

/// Completed runs stay under the estimate plus their loss logs.
#[track_caller]
fn assert_bounded(name: &str, doc: &Value) -> Outcome {
    let e = estimate(&parse_config_str(&doc.to_string()).unwrap()).memory();
    let o = measure(doc);
    assert_eq!(o.kind, "completed", "{name}: {}", o.detail);
    // The loss log's entry (16 bytes, twice for growth) and its table row.
    let losses = o.losses * (32 + LOSS_RESULT_BYTES as u64);
    eprintln!(
        "{name}: peak {:.1} MB, estimate {:.1} MB, loss logs {:.1} MB",
        o.peak as f64 / 1e6,
        e as f64 / 1e6,
        losses as f64 / 1e6
    );
    assert!(
        o.peak <= e + losses + SLACK,
        "{name}: peak {} B > estimate {e} B + loss logs {losses} B",
        o.peak
    );
    o
}

/// Flows of the run the guard must stop. Their loss logs grow faster than
/// the flow count (each tiny flow times out more often the more share the
/// buffers), so at 40 000 they outgrow the estimate's slack with a wide
/// margin; at 20 000 the margin was a few MB, and a tighter (more honest)
/// bound on routes or the event queue used it up.
const FLOWS: u64 = 40_000;

/// Many coexisting tiny flows: 1–2-byte Poisson flows at half load on a
/// k = 2 fat-tree, nearly all alive at once, fighting over 5-packet buffers.
fn tiny_poisson(flows: u64, limit: &str) -> Value {
    json!({"stop": "60s", "seed": 3, "limits": {"memory": limit},
        "topology": {"kind": "fat_tree", "k": 2, "rate": "1Gbps", "delay": "5us", "buffer": "5pkt"},
        "tcp": {"mss": 1000, "rto_min": "1ms", "rto_init": "3ms", "rto_max": "8ms", "rwnd": "32pkt"},
        "apps": [{"kind": "poisson", "load": 0.5, "cdf": [[1, 0], [2, 1]], "duration": "2ms",
                  "flows": flows}]})
}

#[test]
fn many_coexisting_tiny_flows_stay_under_the_bound() {
    assert_bounded("tiny poisson, 20000 flows", &tiny_poisson(20_000, "16GB"));
}

#[test]
fn a_large_incast_stays_under_the_bound() {
    let d = json!({"stop": "2s", "seed": 1,
        "topology": {"kind": "star", "hosts": 65, "rate": "1Gbps", "delay": "20us", "buffer": "64KB"},
        "tcp": {"mss": 1460, "rto_min": "1ms", "rwnd": "1000pkt"},
        "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-64", "sru": "256KB", "blocks": 2}]});
    assert_bounded("incast 64 x 256 KB", &d);
}

#[test]
fn a_fat_tree_permutation_stays_under_the_bound() {
    let n = 128; // k = 8
    let apps: Vec<Value> = (0..n)
        .map(|i| json!({"kind": "bulk", "src": i, "dst": (i + n / 2 + 1) % n, "size": "1MB"}))
        .collect();
    let d = json!({"stop": "1s", "seed": 1, "routing": {"mode": "ecmp"},
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "5us", "buffer": "100pkt"},
        "tcp": {"cc": "dctcp"},
        "apps": apps});
    assert_bounded("fat-tree k=8 permutation", &d);
}

/// Whatever the run does, it never holds more than `limits.memory`: the
/// whole tiny-flow app (~166 000 flows) is refused up front, a capped one
/// whose loss logs outgrow a tight limit is stopped by the guard, and the
/// same run completes under a limit that fits it.
#[test]
fn limits_memory_holds_whatever_the_estimate_misses() {
    let o = measure(&tiny_poisson(1_000_000, "300MB"));
    assert_eq!(o.kind, "rejected");
    assert!(o.detail.starts_with("apps[0]"), "{}", o.detail);

    // A limit just above the estimate: the run may start, and its loss
    // logs (which the estimate leaves to the guard) outgrow it.
    let e = estimate(&parse_config_str(&tiny_poisson(FLOWS, "16GB").to_string()).unwrap()).memory();
    let limit_mb = (e >> 20) + 2;
    let d = tiny_poisson(FLOWS, &format!("{limit_mb}MB"));
    let o = measure(&d);
    assert_eq!(o.kind, "stopped", "the guard should stop it");
    assert!(
        o.detail.contains(&format!("over the {limit_mb} MB limit"))
            && o.detail.contains("estimate"),
        "{}",
        o.detail
    );
    assert!(o.peak <= (limit_mb << 20) + SLACK, "peak {} B", o.peak);
}
