//! Runs one scenario given as a JSON file (e.g. from `dcnsim bench
//! --dump-scenario`, or `python -c 'from dcnsim.bench import ...'`) with no
//! Python in the process, so profilers (callgrind, cachegrind, perf) see only
//! the simulator. Prints wall time, events and packet-hops; for a run cut
//! into partitions, also where its wall time went (docs/performance.md).
//!
//!     cargo build --release --example run_json -p dcnsim
//!     target/release/examples/run_json scenario.json
#[path = "../tests/common.rs"]
mod common;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_json SCENARIO.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cfg = dcnsim::scenario::parse_config_str(&text).unwrap_or_else(|errs| {
        for e in errs {
            eprintln!("{e}");
        }
        std::process::exit(2);
    });
    let t0 = std::time::Instant::now();
    let (r, stats) = dcnsim::run_measured(&cfg, None, None).unwrap_or_else(|e| {
        match e {
            dcnsim::Stopped::Memory(why) => eprintln!("limits.memory: {why}"),
            dcnsim::Stopped::Interrupted => eprintln!("interrupted"),
        }
        std::process::exit(2);
    });
    println!("{}", common::rate_line(&r, t0.elapsed().as_secs_f64()));
    if let Some(s) = stats {
        // the split the run's results carry (`Results::timing`)
        let t = |k: &str| r.timing_value(k).unwrap_or(f64::NAN);
        let (mean, imbalance, between) = (
            t("partition_work_s"),
            t("imbalance_s"),
            t("between_windows_s"),
        );
        println!(
            "{} partitions on {} workers, {} windows: workers {:.3}s = slowest partition's windows {:.3}s \
             (mean {mean:.3}s + imbalance {imbalance:.3}s) + steps between windows, build and close {between:.3}s",
            s.threads,
            s.workers,
            s.windows,
            mean + imbalance + between,
            mean + imbalance,
        );
    }
}
