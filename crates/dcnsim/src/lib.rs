//! dcnsim: a fast, deterministic, packet-level simulator of data-center
//! network transport. Pure Rust; the Python front lives in `dcnsim-py`.
#![forbid(unsafe_code)]

pub mod app;
pub mod config;
pub mod net;
pub mod report;
pub mod results;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod topology;
pub mod units;
pub mod world;

use config::Config;
use results::Results;

/// Run a validated scenario to completion and return its tables.
pub fn run(cfg: &Config) -> Results {
    let t0 = std::time::Instant::now();
    let mut w = world::World::new(cfg);
    w.run();
    w.results(t0.elapsed().as_secs_f64())
}
