//! The memory law of limits.rs, measured: a run's peak memory stays under
//! its pre-run estimate plus what its loss logs hold (the one part that
//! grows with congestion over time, which the run-time guard counts), and
//! under `limits.memory` always — a run that would pass it is rejected
//! before it starts (what the guard could not stop in time) or stopped by
//! the guard, with nothing returned; an estimate over the limit otherwise
//! only warns.
//!
//! Each scenario runs in a child process (this test binary, re-run with
//! `DCNSIM_MEM_CHILD` naming the scenario's file) so its peak is its own.
//! The peak is the heap's, counted by this binary's allocator from just
//! before the world is built: the estimate bounds what the engine
//! allocates, and a resident set counts only the pages touched so far.

use dcnsim::scenario::parse_config_str;
use dcnsim::stats::limits::estimate;
use dcnsim::stats::report::LOSS_RESULT_BYTES;
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bytes allocated now and at most since the last reset.
static CUR: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let c = CUR.fetch_add(l.size() as u64, Relaxed) + l.size() as u64;
            PEAK.fetch_max(c, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CUR.fetch_sub(l.size() as u64, Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new > l.size() {
                let d = (new - l.size()) as u64;
                PEAK.fetch_max(CUR.fetch_add(d, Relaxed) + d, Relaxed);
            } else {
                CUR.fetch_sub((l.size() - new) as u64, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const CHILD: &str = "DCNSIM_MEM_CHILD";
/// What the process itself may add around a run (buffers of its output,
/// the run's summary), not part of any scenario.
const SLACK: u64 = 2 << 20;

/// VmHWM, the peak resident set, in bytes.
fn hwm() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: u64 = line[6..]
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
    let Ok(path) = std::env::var(CHILD) else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let cfg = match parse_config_str(&text) {
        Ok(c) => c,
        Err(e) => {
            println!("RESULT rejected 0 0 {}", e[0].path);
            return;
        }
    };
    let base = CUR.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = dcnsim::try_run(&cfg);
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    // The guard's promise is about the process: its resident set stays
    // under the limit too (with the binary and the parsed scenario).
    eprintln!("VmHWM {} B", hwm());
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
    // A file, not the environment: a k = 32 fat-tree's 8,192 apps are
    // longer than an environment variable may be.
    let path = std::env::temp_dir().join(format!(
        "dcnsim_mem_child_{}_{:x}.json",
        std::process::id(),
        {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            doc.to_string().hash(&mut h);
            h.finish()
        }
    ));
    std::fs::write(&path, doc.to_string()).unwrap();
    let out = Command::new(exe)
        .args([
            "child_entry_point",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
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
    let est = estimate(&parse_config_str(&doc.to_string()).unwrap());
    let e = est.memory();
    let o = measure(doc);
    assert_eq!(o.kind, "completed", "{name}: {}", o.detail);
    eprintln!("{name}: {est:?}");
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
    json!({"stop": "60s", "seed": 3, "limits": {"memory": limit}, "threads": 1,
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

/// BBR keeps a sending record beside every scoreboard entry and its
/// model in a box per flow: the estimate counts both (limits.rs). 64 BBR
/// flows with large windows (1000-packet ports, Linux's stack) into one
/// port.
#[test]
fn a_bbr_incast_stays_under_the_bound() {
    let d = json!({"stop": "2s", "seed": 1,
        "topology": {"kind": "star", "hosts": 65, "rate": "1Gbps", "delay": "20us", "buffer": "1000pkt"},
        "tcp": {"profile": "linux", "cc": "bbr", "rwnd": "4000pkt"},
        "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-64", "sru": "2MB", "blocks": 2}]});
    assert_bounded("BBR incast 64 x 2 MB", &d);
}

/// Many coexisting tiny flows of each rate-based RoCE transport: a DCQCN
/// or TIMELY flow holds a boxed rate state beside its connection (and
/// TIMELY's controller in it), which the per-flow bound must cover.
#[test]
fn many_tiny_roce_flows_stay_under_the_bound() {
    for transport in ["dcqcn", "timely"] {
        let mut d = tiny_poisson(20_000, "16GB");
        d["tcp"] = json!({"transport": transport, "mss": 1000});
        d["topology"]["ecn_k"] = json!("2pkt");
        assert_bounded(&format!("tiny {transport} poisson, 20000 flows"), &d);
    }
}

/// A k = 8 fat-tree, every host sending 1 MB half-way round, on
/// `threads` threads (`None`: the key unset, one thread as before).
fn perm_k8(threads: Option<u32>) -> Value {
    let n = 128;
    let apps: Vec<Value> = (0..n)
        .map(|i| json!({"kind": "bulk", "src": i, "dst": (i + n / 2 + 1) % n, "size": "1MB"}))
        .collect();
    let mut d = json!({"stop": "1s", "seed": 1, "routing": {"mode": "ecmp"},
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "5us", "buffer": "100pkt"},
        "tcp": {"cc": "dctcp"},
        "apps": apps});
    if let Some(t) = threads {
        d["threads"] = json!(t);
    }
    d
}

#[test]
fn a_fat_tree_permutation_stays_under_the_bound() {
    assert_bounded("fat-tree k=8 permutation", &perm_k8(None));
}

/// On two threads: a world per partition (flows, links, input tallies,
/// samples, and where the routes of the flows that cross into it go on
/// there), one set of routing tables; the estimate counts the copies and
/// still bounds the peak.
#[test]
fn a_fat_tree_permutation_on_two_threads_stays_under_the_bound() {
    let est = |t: u32| estimate(&parse_config_str(&perm_k8(Some(t)).to_string()).unwrap());
    let (one, two) = (est(1), est(2));
    let resume = 2 * 128 * dcnsim::world::RESUME_BYTES_PER_FLOW as u64;
    assert_eq!(
        two.flows,
        2 * one.flows + resume,
        "every partition holds every flow, and its route's twin"
    );
    assert!(
        one.routes < two.routes && two.routes < 2 * one.routes,
        "the routing tables are shared"
    );
    assert_eq!(
        two.packets, one.packets,
        "a packet lives in one partition's arena"
    );
    assert_bounded("fat-tree k=8 permutation, 2 threads", &perm_k8(Some(2)));
}

/// Whatever the run does, it never holds more than `limits.memory`: the
/// whole tiny-flow app (~166 000 flows) is refused up front (its list of
/// flows doubles past the limit between two looks of the guard: with only
/// the guard watching, it peaked at 434 MB under 300 MB), a capped one
/// whose loss logs outgrow a limit just above its estimate is stopped by
/// the guard.
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

// ---------------------------------------------------------------------------
// Tightness: the bench scenarios (python/dcnsim/bench.py), built here the
// same way. The estimate must bound each run's peak from above and stay
// within 10× of it, or `limits.memory` refuses runs that fit.

/// A seeded derangement (Sattolo: a random n-cycle), as bench.py draws
/// its permutations; the generator is a splitmix64, not Python's, so the
/// partners differ from bench.py's but the shape of the run does not.
fn derangement(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = SplitMix(seed);
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (rng.next() % i as u64) as usize;
        perm.swap(i, j);
    }
    perm
}

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn incast_pa() -> Value {
    json!({"stop": "100s", "seed": 1,
        "topology": {"kind": "star", "hosts": 101, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "tcp": {"rto_min": "10ms"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-100",
                  "response": "10KB", "queries": 100}]})
}

fn longflows_64() -> Value {
    let apps: Vec<Value> = (1..65)
        .map(|i| json!({"kind": "bulk", "src": i, "dst": 0, "duration": "1s"}))
        .collect();
    json!({"stop": "1s", "seed": 1,
        "topology": {"kind": "star", "hosts": 65, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "tcp": {"cc": "newreno"}, "apps": apps})
}

fn fattree_k8() -> Value {
    let dst = derangement(128, 8);
    let apps: Vec<Value> = (0..128)
        .map(|i| json!({"kind": "bulk", "src": i, "dst": dst[i], "duration": "100ms"}))
        .collect();
    json!({"stop": "100ms", "seed": 1, "routing": {"mode": "ecmp"},
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "apps": apps})
}

/// bench.py's `dctcp_perm` (the htsim mirror), without its raised limit.
fn dctcp_perm(k: usize, stop: &str, every: usize) -> Value {
    let hosts = k * k * k / 4;
    let dst = derangement(hosts, 8);
    let apps: Vec<Value> = (0..hosts)
        .step_by(every)
        .map(|i| json!({"kind": "bulk", "src": i, "dst": dst[i], "duration": stop}))
        .collect();
    json!({"stop": stop, "seed": 1, "routing": {"mode": "ecmp"},
        "topology": {"kind": "fat_tree", "k": k, "rate": "10Gbps", "delay": "1us",
                     "buffer": "900000B", "ecn_k": "135000B", "nic_buffer": "unlimited"},
        "tcp": {"cc": "dctcp", "mss": 8960, "header": 40, "init_cwnd": 10, "init_ssthresh": 15,
                "dctcp_alpha_init": 0, "rto_init": "10ms", "rto_min": "250ms", "rwnd": "1GB"},
        "apps": apps})
}

fn poisson_websearch_k8() -> Value {
    json!({"stop": "400ms", "seed": 1, "routing": {"mode": "ecmp"},
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "tcp": {"cc": "cubic", "rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": 0.6, "cdf": "websearch", "duration": "200ms"}]})
}

/// bench.py's soak: web-search-sized bulk flows between random pairs of a
/// k = 4 fat-tree's hosts, arriving at 30 % of their capacity for 60 s,
/// cut at `stop_s`.
fn soak(stop_s: u32) -> Value {
    const CDF: [(f64, f64); 12] = [
        (0.0, 0.0),
        (10e3, 0.15),
        (20e3, 0.20),
        (30e3, 0.30),
        (50e3, 0.40),
        (80e3, 0.53),
        (200e3, 0.60),
        (1e6, 0.70),
        (2e6, 0.80),
        (5e6, 0.90),
        (10e6, 0.97),
        (30e6, 1.0),
    ];
    let size = |u: f64| {
        CDF.windows(2)
            .find(|w| u <= w[1].1)
            .map_or(30e6, |w| {
                w[0].0 + (w[1].0 - w[0].0) * (u - w[0].1) / (w[1].1 - w[0].1)
            })
            .max(1.0) as u64
    };
    let mut rng = SplitMix(60);
    let rate = 0.30 * 16.0 * 1e9 / 8.0 / 1_711_250.0;
    let (mut apps, mut t) = (Vec::new(), 0.0);
    loop {
        t += -(1.0 - rng.unit()).ln() / rate;
        if t >= 60.0 {
            break;
        }
        let src = rng.next() % 16;
        let dst = (src + 1 + rng.next() % 15) % 16;
        apps.push(
            json!({"kind": "bulk", "src": src, "dst": dst, "size": size(rng.unit()),
                         "start": format!("{:.0}us", t * 1e6)}),
        );
    }
    json!({"stop": format!("{stop_s}s"), "seed": 1, "routing": {"mode": "ecmp"},
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "200pkt",
                     "ecn_k": "20pkt"},
        "tcp": {"cc": "dctcp", "rto_min": "5ms"}, "apps": apps})
}

/// `doc` on one thread with first-in first-out ties unless it names them:
/// under `threads = "auto"` (the default) the estimate sizes a world per
/// core, whatever this machine's load lets the run use, and the seeded
/// queue's bound adds the worst case of its instant buffers (every pending
/// event in one instant, 48 B each), which a run of separate instants never
/// nears (longflows_64: 11.3× its peak). The tightness measured is the
/// rest's; the seeded bound is checked as a bound by the tests on the
/// default order (tiny flows, the guard).
fn one_world(doc: &Value) -> Value {
    let mut d = doc.clone();
    if d.get("threads").is_none() && d.get("ties").is_none() {
        d["threads"] = json!(1);
        d["ties"] = json!("fifo");
    }
    d
}

/// The estimate bounds the peak and is at most `TIGHT` times it.
const TIGHT: f64 = 10.0;

/// Measure each scenario and check both bounds; every failure is named.
fn assert_tight(cases: &[(&str, Value)]) {
    let mut bad = Vec::new();
    for (name, doc) in cases {
        let doc = &one_world(doc);
        let o = assert_bounded(name, doc);
        let e = estimate(&parse_config_str(&doc.to_string()).unwrap()).memory();
        let ratio = e as f64 / o.peak.max(1) as f64;
        eprintln!(
            "TABLE | {name} | {:.1} MB | {:.1} MB | {ratio:.1}× |",
            e as f64 / 1e6,
            o.peak as f64 / 1e6
        );
        if ratio > TIGHT {
            bad.push(format!(
                "{name}: estimate {e} B is {ratio:.1}× the peak {} B",
                o.peak
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "estimates not within {TIGHT}× of the peak: {bad:#?}"
    );
}

/// The default bench set and the htsim mirror at k = 8 (its full 0.21 s),
/// the larger mirrors shortened so the test stays a few seconds each (the
/// estimate shrinks with `stop` too: it must still bound them), and the
/// soak's first 10 s.
#[test]
fn estimates_bound_the_bench_scenarios_within_10x() {
    assert_tight(&[
        ("incast_pa", incast_pa()),
        ("longflows_64", longflows_64()),
        ("fattree_k8", fattree_k8()),
        ("dctcp_perm_k8", dctcp_perm(8, "210ms", 1)),
        ("poisson_websearch_k8", poisson_websearch_k8()),
        ("dctcp_perm_k12 to 30 ms", dctcp_perm(12, "30ms", 1)),
        ("dctcp_perm_k16 to 10 ms", dctcp_perm(16, "10ms", 1)),
        (
            "dctcp_perm_k16_128flows to 50 ms",
            dctcp_perm(16, "50ms", 8),
        ),
        ("dctcp_perm_k32 to 1 ms", dctcp_perm(32, "1ms", 1)),
        ("soak to 10 s", soak(10)),
    ]);
}

/// The bench scenarios at their full length (`dcnsim bench`'s and the
/// htsim comparison's): minutes of CPU, so run by hand for the table in
/// docs/performance.md:
/// `cargo test -p dcnsim --test memory_bound full_bench -- --ignored --nocapture`
#[test]
#[ignore]
fn full_bench_scenarios_within_10x() {
    assert_tight(&[
        ("dctcp_perm_k12", dctcp_perm(12, "210ms", 1)),
        ("dctcp_perm_k16 (bench, 50 ms)", dctcp_perm(16, "50ms", 1)),
        (
            "dctcp_perm_k16 (htsim's 210 ms)",
            dctcp_perm(16, "210ms", 1),
        ),
        ("dctcp_perm_k16_128flows", dctcp_perm(16, "200ms", 8)),
        ("dctcp_perm_k32", dctcp_perm(32, "10ms", 1)),
        ("soak_30s", soak(30)),
        ("soak_60s", soak(60)),
    ]);
}

/// The k = 16 htsim mirror for htsim's 0.21 s (900,000-byte queues,
/// unlimited NIC queues, a 1 GB rwnd) was refused at "about 46.1 GB":
/// byte-limited queues counted in 40-byte ACKs, windows grown at the
/// fastest link for all of `stop`. It fits the default limit now, and
/// the estimate no longer grows with `stop` once the paths are full.
#[test]
fn the_k16_htsim_mirror_fits_and_its_estimate_does_not_grow_with_stop() {
    let short =
        parse_config_str(&dctcp_perm(16, "210ms", 1).to_string()).expect("k = 16 mirror accepted");
    let long = parse_config_str(&dctcp_perm(16, "30s", 1).to_string()).expect("30 s accepted too");
    let (a, b) = (estimate(&short), estimate(&long));
    assert!(a.memory() < 1 << 30, "{a:?}");
    assert_eq!(
        a.packets, b.packets,
        "live packets grew with stop: {a:?} {b:?}"
    );
    assert_eq!(a.windows, b.windows, "windows grew with stop: {a:?} {b:?}");
}

/// An estimate over the limit warns at the key behind the largest term,
/// with each term's key in its breakdown. With 100 GB buffers nothing is
/// dropped for 10 s: the windows grow as far as they are acknowledged by
/// then, so `stop` drives.
#[test]
fn a_warning_names_the_keys_that_drive_it() {
    let d = json!({"stop": "10s", "seed": 1,
        "topology": {"kind": "star", "hosts": 9, "rate": "10Gbps", "delay": "1us", "buffer": "100GB",
                     "nic_buffer": "100GB"},
        "tcp": {"rwnd": "1TB"},
        "apps": (1..9).map(|i| json!({"kind": "bulk", "src": i, "dst": 0, "duration": "10s"})).collect::<Vec<_>>()});
    let cfg = parse_config_str(&d.to_string()).expect("the run may start: the guard watches it");
    let errs: Vec<_> = dcnsim::scenario::warnings(&cfg);
    assert!(
        estimate(&cfg).memory() > 16 << 30,
        "windows of 10 s at 10 Gbps may not fit 16 GB"
    );
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].path, "stop", "{errs:?}");
    let m = &errs[0].message;
    assert!(
        m.contains("flow windows (per segment)") && m.contains("(stop)"),
        "{m}"
    );
    // The same run cut to 10 ms fits; so does a small receive window,
    // which then bounds the windows and the packets they put in flight.
    let mut short = d.clone();
    short["stop"] = json!("10ms");
    let cfg = parse_config_str(&short.to_string()).unwrap();
    assert!(dcnsim::scenario::warnings(&cfg).is_empty(), "10 ms fits");
    let mut small = d.clone();
    small["tcp"] = json!({"rwnd": "1MB"});
    let e = estimate(&parse_config_str(&small.to_string()).expect("1 MB windows fit"));
    assert_eq!(e.windows_key, "tcp.rwnd", "{e:?}");
    assert_eq!(e.packets_key, "tcp.rwnd", "{e:?}");
}

/// What the warning is for: an estimate over the limit (here the htsim
/// mirror at k = 8, estimated at about 3× its peak) no longer refuses a run
/// that fits. It warns at the key behind the largest term, and the run
/// completes under the limit, the guard watching.
#[test]
fn a_run_estimated_over_the_limit_but_fitting_it_warns_and_completes() {
    let mut d = dctcp_perm(8, "20ms", 1);
    d["limits"] = json!({"memory": "6MB"});
    let cfg = parse_config_str(&d.to_string()).expect("warned about, not refused");
    let e = estimate(&cfg);
    assert!(e.memory() > 6 << 20 && e.unguarded() <= 6 << 20, "{e:?}");
    let w = dcnsim::scenario::warnings(&cfg);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "topology.buffer", "{w:?}");
    assert!(
        w[0].message.contains("may need up to about")
            && w[0].message.contains("over the 6 MB limit")
            && w[0].message.contains("(topology.buffer)")
            && w[0].message.contains("(topology)"),
        "{}",
        w[0].message
    );
    let o = measure(&d);
    assert_eq!(o.kind, "completed", "{}", o.detail);
    assert!(o.peak <= 6 << 20, "peak {} B", o.peak);
}
