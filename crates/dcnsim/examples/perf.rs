//! Hot-path measurement without Python: 64 long flows into one receiver.
#[path = "../tests/common.rs"]
mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::sim::time::SimTime;
fn main() {
    let n = 64;
    let topo = star(n + 1, GBPS, SimTime::from_us(25), Limit::Bytes(100 * 1024));
    let apps = (0..n)
        .map(|i| AppSpec::Bulk {
            src: i + 1,
            dst: 0,
            amount: BulkAmount::Duration(SimTime::from_secs(1)),
            start: SimTime::ZERO,
            tcp: tcp(1460),
        })
        .collect();
    let t0 = std::time::Instant::now();
    let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(1)));
    println!("{}", rate_line(&r, t0.elapsed().as_secs_f64()));
}
