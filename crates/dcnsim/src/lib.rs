//! dcnsim: a fast, deterministic, packet-level simulator of data-center
//! network transport. Pure Rust; the Python front lives in `dcnsim-py`.
#![forbid(unsafe_code)]

pub mod config;
pub mod results;
pub mod routing;
pub mod scenario;
pub mod time;
pub mod topology;
pub mod units;
