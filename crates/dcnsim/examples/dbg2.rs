#[path = "../tests/common.rs"]
mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::time::SimTime;
fn main() {
    let n: usize = std::env::args().nth(1).map_or(2, |s| s.parse().unwrap());
    let sack = std::env::args().nth(2).is_some();
    let topo = star(n + 1, GBPS, SimTime::from_us(50), Limit::Bytes(32 * 1024));
    let mut t = tcp(1024);
    t.rwnd_bytes = 1000 * 1024;
    t.sack = sack;
    let apps = vec![AppSpec::SyncReads {
        client: 0,
        servers: (1..=n).collect(),
        sru_bytes: 256 * 1024,
        request_bytes: 64,
        blocks: 40,
        jitter: SimTime::from_us(20),
        start: SimTime::ZERO,
        tcp: t,
    }];
    let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(100)));
    for c in [
        "role",
        "segments_sent",
        "retransmits",
        "timeouts",
        "fast_retransmits",
        "drops",
        "drop_runs",
        "max_drop_run",
        "ooo_arrivals",
        "dup_arrivals",
        "final_cwnd_bytes",
    ] {
        let col = r.table("flows").unwrap().column(c).unwrap();
        println!("{c:>18}: {:?}", col);
    }
    println!("blocks timeouts {:?}", col_u64(&r, "blocks", "timeouts"));
    println!("blocks dur {:?}", col_f64(&r, "blocks", "duration_s"));
}
