//! Quick look at NewReno incast on the Kulkarni setup.
#[path = "../tests/common.rs"]
mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::sim::time::SimTime;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let buf: u64 = args.get(1).map_or(32, |s| s.parse().unwrap());
    let rto_us: u64 = args.get(2).map_or(200_000, |s| s.parse().unwrap());
    for n in [1usize, 2, 4, 8, 12, 16, 24, 32, 48, 64] {
        let topo = star(n + 1, GBPS, SimTime::from_us(50), Limit::Bytes(buf * 1024));
        let mut t = tcp(1024);
        t.rto_min = SimTime::from_us(rto_us);
        t.rwnd_bytes = 1000 * 1024;
        let apps = vec![AppSpec::SyncReads {
            client: 0,
            servers: (1..=n).collect(),
            sru_bytes: 256 * 1024,
            request_bytes: 64,
            blocks: 40,
            jitter: SimTime::from_us(20),
            spacing: SimTime::ZERO,
            start: SimTime::ZERO,
            tcp: t,
        }];
        let t0 = std::time::Instant::now();
        let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(100)));
        check_conservation(&r);
        let g = col_f64(&r, "blocks", "goodput_bps");
        let to: u64 = col_u64(&r, "blocks", "timeouts").iter().sum();
        let b = col_u64(&r, "blocks", "bytes");
        let d = col_f64(&r, "blocks", "duration_s");
        let tot: f64 = b.iter().sum::<u64>() as f64 * 8.0 / d.iter().sum::<f64>();
        println!("n={n:3} blocks={} goodput={:7.1} Mbps timeouts={to} mean_block_gp={:.1} wall={:.2}s hops={}", g.len(), tot / 1e6, g.iter().sum::<f64>() / g.len() as f64 / 1e6, t0.elapsed().as_secs_f64(), r.summary_value("packet_hops").unwrap());
    }
}
