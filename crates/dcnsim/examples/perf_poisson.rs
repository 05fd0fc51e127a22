//! Hot-path measurement for workloads: Poisson web-search arrivals at a
//! load on a k-ary fat-tree (1 Gbps, 25 us links, 100-packet buffers,
//! CUBIC, RTOmin 2 ms), the `poisson_websearch_k8` bench scenario by
//! default. Every arrival opens a new TCP flow, so this also times flow
//! creation. Usage: perf_poisson [k] [arrival ms] [load] [cdf].
fn main() {
    let arg = |i: usize| std::env::args().nth(i);
    let k: u64 = arg(1).map_or(8, |s| s.parse().unwrap());
    let ms: u64 = arg(2).map_or(200, |s| s.parse().unwrap());
    let load: f64 = arg(3).map_or(0.6, |s| s.parse().unwrap());
    let cdf = arg(4).unwrap_or_else(|| "websearch".into());
    let doc = serde_json::json!({
        "stop": format!("{}ms", 2 * ms),
        "topology": {"kind": "fat_tree", "k": k, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "tcp": {"cc": "cubic", "rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": load, "cdf": cdf, "duration": format!("{ms}ms")}]
    });
    let cfg = dcnsim::scenario::parse_config(&doc).expect("valid scenario");
    let t0 = std::time::Instant::now();
    let r = dcnsim::run(&cfg);
    let wall = t0.elapsed().as_secs_f64();
    let ev = r.summary_value("events").unwrap();
    let hops = r.summary_value("packet_hops").unwrap();
    let flows = r.table("flows").unwrap().rows();
    println!(
        "k={k} {cdf} load {load}: {flows} flows, wall {wall:.3}s events {ev} ({:.2} M/s) hops {hops} ({:.2} M/s)",
        ev / wall / 1e6,
        hops / wall / 1e6,
    );
}
