//! Runs one scenario given as a JSON file (e.g. from `dcnsim bench
//! --dump-scenario`, or `python -c 'from dcnsim.bench import ...'`) with no
//! Python in the process, so profilers (callgrind, cachegrind, perf) see only
//! the simulator. Prints wall time, events and packet-hops.
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
    let t0 = std::time::Instant::now();
    let r = match dcnsim::run_json(&text, None) {
        Ok(r) => r,
        Err(errs) => {
            for e in errs {
                eprintln!("{e}");
            }
            std::process::exit(2);
        }
    };
    println!("{}", common::rate_line(&r, t0.elapsed().as_secs_f64()));
}
