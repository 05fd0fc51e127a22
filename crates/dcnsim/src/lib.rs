//! dcnsim: a fast, deterministic, packet-level simulator of data-center
//! network transport. Pure Rust; the Python front lives in `dcnsim-py`.
#![forbid(unsafe_code)]

pub mod app;
pub mod cdf;
pub mod config;
pub mod limits;
pub mod net;
pub mod pcap;
pub mod report;
pub mod results;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod topology;
pub mod units;
pub mod world;

use config::Config;
use results::Results;

/// The core's version (the crate's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// A hash of the core's sources at build time (build.rs): two builds with
/// the same hash simulate identically; caches of results key on it.
pub const BUILD_HASH: &str = env!("DCNSIM_BUILD_HASH");

/// Run a validated scenario to completion and return its tables.
pub fn run(cfg: &Config) -> Results {
    let t0 = std::time::Instant::now();
    let mut w = world::World::new(cfg);
    w.run();
    w.results(t0.elapsed().as_secs_f64())
}

/// Every problem with a scenario document (JSON text), as `"path: reason"`.
pub fn validate_json(json: &str) -> Vec<String> {
    match scenario::parse_config_str(json) {
        Ok(_) => Vec::new(),
        Err(errs) => errs.iter().map(|e| e.to_string()).collect(),
    }
}

/// Parse, validate and run a scenario document; `seed` overrides the file's.
pub fn run_json(json: &str, seed: Option<u64>) -> Result<Results, Vec<String>> {
    let mut cfg = scenario::parse_config_str(json)
        .map_err(|errs| errs.iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    if let Some(s) = seed {
        cfg.seed = s;
    }
    Ok(run(&cfg))
}

/// A flow-size CDF from a JSON table with a Poisson app's keys (`cdf` or
/// `cdf_file`, optional `sampling`), and its name; or every problem.
pub fn flow_size_cdf_json(json: &str) -> Result<(cdf::FlowSizeCdf, String), Vec<String>> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| vec![format!("<document>: invalid JSON: {e}")])?;
    scenario::parse_cdf_table(&v).map_err(|errs| errs.iter().map(|e| e.to_string()).collect())
}
