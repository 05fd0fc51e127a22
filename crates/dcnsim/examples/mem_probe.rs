//! Peak heap of one run against its pre-run estimate (limits.rs).
//!
//! A counting global allocator tracks the bytes the process holds; the run
//! goes in steps so the breakdown of what the engine accounts for itself
//! (`World::heap_bytes`) can be printed beside it.
//! Usage: mem_probe <scenario.json> [steps]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let c = CUR.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(c, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CUR.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new > l.size() {
                let c = CUR.fetch_add(new - l.size(), Relaxed) + new - l.size();
                PEAK.fetch_max(c, Relaxed);
            } else {
                CUR.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: mem_probe <scenario.json> [steps]");
    let steps: u64 = std::env::args().nth(2).map_or(20, |s| s.parse().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    let cfg = dcnsim::scenario::parse_config_str(&text).unwrap_or_else(|e| {
        for x in e {
            eprintln!("{x}");
        }
        std::process::exit(2)
    });
    let est = dcnsim::stats::limits::estimate(&cfg);
    let base = CUR.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut w = dcnsim::guarded_world(&cfg);
    let dt = cfg.stop.0 / steps.max(1);
    let mut t = 0;
    let mut max_acc = 0usize;
    loop {
        t += dt;
        let more = w.run_until(dcnsim::sim::time::SimTime(t));
        let acc = dcnsim::stats::limits::accounted(&w);
        max_acc = max_acc.max(acc.total());
        println!(
            "t={:.6}s flows={} live={} pending_events={} heap={} accounted={} {:?}",
            w.core.q.now().as_secs_f64(),
            w.flows.len(),
            w.flows
                .iter()
                .filter(|f| f.snd_una() < f.app_bytes())
                .count(),
            w.core.q.pending(),
            CUR.load(Relaxed) - base,
            acc.total(),
            acc
        );
        if !more || t >= cfg.stop.0 {
            break;
        }
    }
    if !w.memory_ok() {
        println!(
            "stopped: {}",
            dcnsim::memory_error(&w, &cfg).unwrap_or_default()
        );
        return;
    }
    let r = dcnsim::finish(w, 0.0);
    let peak = PEAK.load(Relaxed) - base;
    println!(
        "peak heap {} B ({}), max accounted {} B, estimate {} B ({}) {:?}, flows {}",
        peak,
        dcnsim::stats::limits::fmt_bytes(peak as u64),
        max_acc,
        est.memory(),
        dcnsim::stats::limits::fmt_bytes(est.memory()),
        est,
        r.table("flows").unwrap().rows()
    );
}
