//! One run on several threads: a conservative parallel engine (issue 29).
//!
//! The topology is cut into partitions ([`crate::partition`]); each
//! runs in its own [`World`] (a full copy of the model, of which it runs
//! the nodes, links and apps it owns) on its own thread, with its own
//! event queue. A packet enqueued on a cut link is handed to the far
//! end's partition at the end of a *window*; windows are no longer than
//! the smallest lookahead on a cut link (its propagation delay plus the
//! serialization of the smallest packet), so a packet handed over always
//! arrives after the window that sent it, and no partition ever receives
//! an event in its past.
//!
//! The same bits for any number of threads: equal-time events run in the
//! seeded order (`ties = "seeded"`, sim/queue.rs), which does not depend
//! on when an event was scheduled; a run ends, as on one thread, right
//! after the event that finishes its last app (a window in which that can
//! happen runs in two phases: partitions with unfinished apps first, each
//! stopping at its last app's end, then everyone up to the latest of
//! those); and the partitions' worlds are merged into one, each part taken
//! from the partition that ran it, before the report is built.

use crate::config::{AppSpec, Config};
use crate::net::{Handoff, Hdr, Packet, PktKind};
use crate::partition::{DropRec, PartCtx, Partition};
use crate::sim::queue::Event;
use crate::sim::time::SimTime;
use crate::world::{Interrupt, MemoryGuard, MemoryStop, Progress, World};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The threads `cfg` asks for: `threads`, or for `"auto"` every core when
/// the cut leaves each window enough work (docs/performance.md, Threads).
pub fn threads_for(cfg: &Config) -> u32 {
    match cfg.threads {
        crate::config::Threads::N(n) => n,
        crate::config::Threads::Auto => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            if cores < 2 {
                return 1;
            }
            let part = crate::partition::partition(cfg, cores);
            let hosts = cfg.topology.hosts().len() as f64;
            let window_us = part.lookahead.map_or(0.0, |l| l.as_secs_f64() * 1e6);
            if single_reason(cfg, &part).is_none() && hosts * window_us >= AUTO_MIN_HOST_MICROS {
                part.parts
            } else {
                1
            }
        }
    }
}

/// `threads = "auto"` runs on one thread below this many hosts times the
/// window's length in microseconds: the work a window holds. Measured at
/// 2 threads (docs/performance.md, Threads): the DCTCP permutation at
/// k = 8 (128 hosts, 1.03 µs windows: 132) gains 1.2–1.3×, at k = 16
/// (1 054) 1.5×, at k = 32 (8 452) 1.9×; the k = 8 fat-tree with 25 µs
/// links (3 200) 1.7–1.8×.
pub const AUTO_MIN_HOST_MICROS: f64 = 100.0;

/// Why a scenario runs on one partition however many threads it was
/// given (`None`: it can be partitioned as the partitioner cuts it).
pub fn single_reason(cfg: &Config, part: &Partition) -> Option<String> {
    let mut inputs = vec![0usize; cfg.topology.nodes.len()];
    for l in &cfg.topology.links {
        inputs[l.a] += 1;
        inputs[l.b] += 1;
    }
    if inputs.iter().any(|&i| i > crate::world::WIDE_SWITCH_INPUTS) {
        return Some(format!(
            "a switch has more than {} ports (its input tallies are numbered as traffic comes)",
            crate::world::WIDE_SWITCH_INPUTS
        ));
    }
    if part.parts <= 1 {
        return Some(
            part.reason
                .clone()
                .unwrap_or_else(|| "one partition".into()),
        );
    }
    if part.lookahead.is_none_or(|l| l.0 == 0) {
        return Some("a cut link has no delay and no serialization time: no lookahead".into());
    }
    if cfg.ties != crate::config::Ties::Seeded {
        return Some("ties = \"fifo\" depends on the partition".into());
    }
    None
}

/// Each app's home partition and the partitions that run its events.
fn app_homes(cfg: &Config, host_part: &[u32], parts: u32) -> (Vec<u32>, Vec<Vec<bool>>) {
    let mut home = Vec::with_capacity(cfg.apps.len());
    let mut runs = vec![vec![false; cfg.apps.len()]; parts as usize];
    for (i, a) in cfg.apps.iter().enumerate() {
        let (h, other) = match a {
            AppSpec::Bulk { src, dst, .. } | AppSpec::UdpCbr { src, dst, .. } => {
                (host_part[*dst], Some(host_part[*src]))
            }
            AppSpec::PartitionAggregate { aggregator, .. } => (host_part[*aggregator], None),
            AppSpec::SyncReads { client, .. } => (host_part[*client], None),
            // the partitioner keeps a Poisson scenario whole
            AppSpec::Poisson(_) => (0, None),
        };
        home.push(h);
        runs[h as usize][i] = true;
        if let Some(o) = other {
            runs[o as usize][i] = true;
        }
    }
    (home, runs)
}

/// A packet on its way to another partition: its header for forwarding
/// and the packet itself (the arena is per partition).
#[derive(Clone, Copy)]
struct Transfer {
    link: u32,
    arrive: SimTime,
    h: Hdr,
    pkt: Packet,
}

/// What one partition publishes at a window's barrier.
#[derive(Clone, Copy, Default)]
struct Status {
    pending: usize,
    zero_at: Option<u128>,
    /// Its queue's next key before it takes in what crosses the cut.
    next: Option<u128>,
    /// The earliest arrival it handed over this window: with every
    /// partition's `next`, the next window's start, without a second
    /// barrier after the hand-over.
    sent_min: Option<SimTime>,
    processed: u64,
    now: SimTime,
    last_key: u128,
    bytes: u64,
    sent: u64,
    ran_full: bool,
}

/// A barrier that spins (two threads on two cores hand over in well
/// under a microsecond; a parking barrier costs tens of microseconds per
/// window), then yields, for a machine with fewer free cores than threads.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    sense: AtomicBool,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            sense: AtomicBool::new(false),
        }
    }
    /// Wait for all `n`; returns the nanoseconds spent waiting.
    fn wait(&self, local: &mut bool) -> u64 {
        let t0 = std::time::Instant::now();
        *local = !*local;
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.sense.store(*local, Ordering::Release);
        } else {
            let mut spins = 0u32;
            while self.sense.load(Ordering::Acquire) != *local {
                if spins < 20_000 {
                    std::hint::spin_loop();
                    spins += 1;
                } else {
                    std::thread::yield_now();
                }
            }
        }
        t0.elapsed().as_nanos() as u64
    }
}

/// Window `w`'s slot in the double-buffered inboxes and statuses: one
/// barrier per window lets a partition start window `w + 1` (and post and
/// publish in it) while another still takes in window `w`'s, but never
/// reach window `w + 2` before every partition has left window `w`.
fn slot(win: u64) -> usize {
    (win & 1) as usize
}

struct Shared {
    barrier: SpinBarrier,
    /// `inbox[slot][dst * n + src]`: what partition `src` handed to `dst`
    /// in a window, in the order it was enqueued (each cut link has one
    /// sender, so a link's packets come in arrival order).
    inbox: [Vec<Mutex<Vec<Transfer>>>; 2],
    n: usize,
    status: [Mutex<Vec<Status>>; 2],
    /// The window in which every partition measures its memory (`NEVER`
    /// when none is asked for).
    measure_at: AtomicU64,
    stopped: Mutex<Option<MemoryStop>>,
    interrupted: AtomicBool,
    /// The window after whose barrier every partition stops (interrupt or
    /// memory guard), `NEVER` until one is asked for.
    halt_at: AtomicU64,
    /// Every partition computes the next window from these.
    lookahead: SimTime,
    stop_key: u128,
}

/// Per partition, over the run: for the speed-up model (docs/performance.md).
#[derive(Clone, Debug, Default)]
pub struct PartStats {
    /// Events this partition ran (replicated ones included).
    pub events: u64,
    /// Packets it handed to other partitions.
    pub handed_over: u64,
    /// Wall-clock nanoseconds it waited at barriers.
    pub wait_ns: u64,
    /// Wall-clock nanoseconds in all.
    pub wall_ns: u64,
    /// The thread that ran it.
    pub thread: Option<std::thread::ThreadId>,
    /// Windows it took part in, and the most events it ran in one.
    pub windows: u64,
    pub max_window_events: u64,
}

/// How a partitioned run went.
#[derive(Clone, Debug, Default)]
pub struct ParallelStats {
    pub threads: u32,
    pub method: &'static str,
    pub windows: u64,
    pub lookahead: SimTime,
    pub cut_links: usize,
    pub parts: Vec<PartStats>,
}

/// Run `cfg` on `part.parts` threads and merge the partitions' worlds into
/// one, ready for [`crate::finish`]; `None` if `interrupt` said stop
/// during set-up. The caller checked [`single_reason`] is `None`.
pub fn run(
    cfg: &Config,
    part: &Partition,
    mut interrupt: Option<Interrupt>,
    mut progress: Option<Progress>,
    guard: Option<MemoryGuard>,
) -> Option<(World, ParallelStats)> {
    let n = part.parts as usize;
    let lookahead = part.lookahead.expect("a cut has a lookahead");
    let node_part = Arc::new(part.node_part.clone());
    let host_part: Arc<Vec<u32>> = Arc::new(
        cfg.topology
            .hosts()
            .iter()
            .map(|&node| part.node_part[node])
            .collect(),
    );
    let (home, runs) = app_homes(cfg, &host_part, part.parts);
    let home = Arc::new(home);
    let mut never = || false;
    let routes = {
        let stop: &mut dyn FnMut() -> bool = match interrupt.as_mut() {
            Some(f) => &mut **f,
            None => &mut never,
        };
        Arc::new(crate::net::routing::Routes::compute_on(
            &cfg.topology,
            n,
            stop,
        )?)
    };
    // Each partition's world is built on its own thread (the routing
    // tables, the long part, were built above, on as many threads, with
    // the interrupt check on the caller's).
    let ctxs: Vec<Box<PartCtx>> = runs
        .into_iter()
        .enumerate()
        .map(|(me, runs)| {
            Box::new(PartCtx {
                me: me as u32,
                node_part: node_part.clone(),
                host_part: host_part.clone(),
                app_home: home.clone(),
                app_runs: runs,
                cur_app: 0,
                dup_events: 0,
                zero_at: None,
                routes: Some(routes.clone()),
            })
        })
        .collect();
    let build = |ctx: Box<PartCtx>| -> World {
        let mut w =
            World::new_partition(cfg, ctx, &mut || false).expect("a check that never stops");
        if let Some(g) = guard {
            // each partition measures itself; the coordinator sums them
            w.set_memory_guard(g);
        }
        w
    };
    if interrupt.as_mut().is_some_and(|stop| stop()) {
        return None;
    }
    let stop_key = (cfg.stop.0 as u128 + 1) << 64;
    let sh = Shared {
        barrier: SpinBarrier::new(n),
        n,
        inbox: [0, 1].map(|_| (0..n * n).map(|_| Mutex::new(Vec::new())).collect()),
        status: [0, 1].map(|_| Mutex::new(vec![Status::default(); n])),
        measure_at: AtomicU64::new(NEVER),
        stopped: Mutex::new(None),
        interrupted: AtomicBool::new(false),
        halt_at: AtomicU64::new(NEVER),
        lookahead,
        stop_key,
    };
    let mut stats = ParallelStats {
        threads: part.parts,
        method: part.method,
        lookahead,
        cut_links: part.cut_links.len(),
        parts: vec![PartStats::default(); n],
        ..ParallelStats::default()
    };
    let mut coord = Coordinator {
        interrupt: interrupt.take(),
        progress: progress.take(),
        guard,
        next_check: 1 << 16,
        next_mem_check: 0,
        windows: 0,
    };
    let mut ctxs = ctxs.into_iter();
    let ctx0 = ctxs.next().expect("partition 0");
    let (w0, rest, part_stats) = std::thread::scope(|s| {
        let handles: Vec<_> = ctxs
            .enumerate()
            .map(|(i, ctx)| {
                let (sh, build) = (&sh, &build);
                s.spawn(move || {
                    let mut w = build(ctx);
                    let ps = worker(&mut w, i + 1, sh, None);
                    (w, ps)
                })
            })
            .collect();
        let mut w0 = build(ctx0);
        let ps0 = worker(&mut w0, 0, &sh, Some(&mut coord));
        let mut all = vec![ps0];
        let mut rest = Vec::with_capacity(n - 1);
        for h in handles {
            let (w, ps) = h.join().expect("a partition's thread panicked");
            rest.push(w);
            all.push(ps);
        }
        (w0, rest, all)
    });
    stats.parts = part_stats;
    stats.windows = coord.windows;
    let mut w = merge(w0, rest, &sh, cfg);
    w.memory_stop = *sh.stopped.lock().unwrap();
    w.interrupted = sh.interrupted.load(Ordering::Relaxed);
    Some((w, stats))
}

/// The key below which a window that starts at `start` runs: no later than
/// one lookahead on, nor past the stop time.
fn window_end(start: u128, lookahead: SimTime, stop_key: u128) -> u128 {
    let t = (start >> 64) as u64;
    (((t + lookahead.0) as u128) << 64).min(stop_key)
}

/// The coordinator's part (partition 0's thread, the caller's: the
/// interrupt check may need to run there, as Python's signal check does).
struct Coordinator {
    interrupt: Option<Interrupt>,
    progress: Option<Progress>,
    guard: Option<MemoryGuard>,
    next_check: u64,
    /// Events (all partitions) when the memory guard looks next.
    next_mem_check: u64,
    windows: u64,
}

/// No window: `halt_at` and `measure_at` when nothing is asked for.
const NEVER: u64 = u64::MAX;

impl Coordinator {
    /// The periodic work one thread's loop does every 2¹⁶ events:
    /// progress, the interrupt check, the memory guard, after window
    /// `win`'s barrier. A stop (`halt_at`) takes effect at the next
    /// window's barrier; a measure is asked for two windows on (`win + 1`
    /// may already be running on another thread, `win + 2` cannot).
    fn check(&mut self, st: &[Status], sh: &Shared, w0: &World, win: u64) {
        self.windows += 1;
        let processed: u64 = st.iter().map(|s| s.processed).sum();
        if sh.measure_at.load(Ordering::Relaxed) == win {
            sh.measure_at.store(NEVER, Ordering::Relaxed);
            if let Some(g) = self.guard {
                let used: u64 = st.iter().map(|s| s.bytes).sum();
                // the next look as one thread's guard would take it (far
                // from the limit, rarely: a look walks every flow)
                self.next_mem_check = processed + (g.interval)(w0, used, g.limit);
                if used > g.limit {
                    *sh.stopped.lock().unwrap() = Some(MemoryStop {
                        used,
                        limit: g.limit,
                        at: st.iter().map(|s| s.now).max().unwrap_or_default(),
                    });
                    sh.halt_at.store(win + 1, Ordering::Relaxed);
                    return;
                }
            }
        }
        if processed >= self.next_check {
            self.next_check = processed + (1 << 16);
            if let Some(tell) = self.progress.as_mut() {
                tell(
                    st.iter().map(|s| s.now).min().unwrap_or_default(),
                    processed,
                );
            }
            if let Some(stop) = self.interrupt.as_mut() {
                if stop() {
                    sh.interrupted.store(true, Ordering::Relaxed);
                    sh.halt_at.store(win + 1, Ordering::Relaxed);
                    return;
                }
            }
        }
        if self.guard.is_some() && processed >= self.next_mem_check {
            self.next_mem_check = u64::MAX;
            sh.measure_at.store(win + 2, Ordering::Relaxed);
        }
    }
}

/// One partition's thread: windows until the run ends. Every partition
/// takes the same decisions from the same published statuses, so a
/// window costs one barrier, after running it and posting what crossed
/// the cut: what each partition publishes there (its next event, the
/// earliest arrival it handed over) is enough for all to know where the
/// next window starts before anyone takes in. Only the coordinator's
/// checks (interrupt, progress, memory) are its own; they take effect a
/// window or two later.
fn worker(w: &mut World, me: usize, sh: &Shared, mut coord: Option<&mut Coordinator>) -> PartStats {
    let t0 = std::time::Instant::now();
    let mut ps = PartStats::default();
    let mut sense = false;
    let n = sh.n;
    let mut by_part: Vec<Vec<Transfer>> = vec![Vec::new(); n];
    let mut inbox: Vec<Transfer> = Vec::new();
    let mut headers: Vec<Hdr> = Vec::new();
    let (la, stop_key) = (sh.lookahead, sh.stop_key);
    // The first window starts at the earliest event anywhere (published
    // in the slot of the window before the first, which nobody writes
    // again until all have passed the first window's barrier).
    let mut win: u64 = 0;
    sh.status[slot(win + 1)].lock().unwrap()[me].next = w.core.q.next_key();
    ps.wait_ns += sh.barrier.wait(&mut sense);
    let first = sh.status[slot(win + 1)]
        .lock()
        .unwrap()
        .iter()
        .filter_map(|s| s.next)
        .min();
    let mut limit = match first {
        Some(k) if k < stop_key => window_end(k, la, stop_key),
        _ => return finish_worker(w, me, sh, &mut ps, &mut sense, t0, win),
    };
    loop {
        let before = w.core.q.processed();
        let at = slot(win);
        // Phase 1: partitions with apps left run the window, each stopping
        // right after its last app ends; the others wait for phase 2.
        let ran_full = if w.pending_apps > 0 {
            w.run_window(limit, true);
            w.pending_apps > 0
        } else {
            false
        };
        let sent_min = post(w, &mut by_part, sh, &mut ps, at);
        publish(w, me, sh, at, sent_min, ran_full, win);
        ps.wait_ns += sh.barrier.wait(&mut sense);
        let mut st = sh.status[at].lock().unwrap().clone();
        if sh.halt_at.load(Ordering::Relaxed) <= win {
            break;
        }
        if st.iter().all(|s| s.pending == 0) {
            // The last app finished in this window: the run ends at the
            // latest partition's end, every partition up to that event.
            let end = st
                .iter()
                .filter_map(|s| s.zero_at)
                .max()
                .expect("an app ended");
            w.run_window(end + 1, false);
            break;
        }
        if st.iter().any(|s| !s.ran_full) {
            if !ran_full {
                w.run_window(limit, false);
                let more = post(w, &mut by_part, sh, &mut ps, at);
                let sent = sent_min.into_iter().chain(more).min();
                publish(w, me, sh, at, sent, false, win);
            }
            ps.wait_ns += sh.barrier.wait(&mut sense);
            st = sh.status[at].lock().unwrap().clone();
        }
        ps.windows += 1;
        ps.max_window_events = ps.max_window_events.max(w.core.q.processed() - before);
        // Take in what crossed the cut towards this partition.
        take_in(w, me, sh, &mut inbox, &mut headers, at);
        if let Some(c) = coord.as_deref_mut() {
            c.check(&st, sh, w, win);
        }
        // Where the next window starts: the earliest of every queue's
        // next event and of every arrival just handed over (taking in
        // schedules each at its arrival, or behind an earlier one on its
        // link), so the same for every partition.
        let next = st
            .iter()
            .filter_map(|s| s.next)
            .chain(
                st.iter()
                    .filter_map(|s| s.sent_min)
                    .map(|t| (t.0 as u128) << 64),
            )
            .min();
        win += 1;
        match next {
            Some(k) if k < stop_key => limit = window_end(k, la, stop_key),
            _ => break,
        }
    }
    finish_worker(w, me, sh, &mut ps, &mut sense, t0, win)
}

/// What this partition tells the others at window `win`'s barrier (in
/// slot `at`); its memory too when the coordinator asked for it there.
fn publish(
    w: &mut World,
    me: usize,
    sh: &Shared,
    at: usize,
    sent_min: Option<SimTime>,
    ran_full: bool,
    win: u64,
) {
    let bytes = if sh.measure_at.load(Ordering::Relaxed) == win {
        // packets in the inboxes are not counted: a window's worth
        w.memory_guard().map_or(0, |g| (g.measure)(w))
    } else {
        0
    };
    let p = w.part.as_deref().expect("a partition");
    let mut st = sh.status[at].lock().unwrap();
    let s = &mut st[me];
    s.pending = w.pending_apps;
    s.zero_at = p.zero_at;
    s.next = w.core.q.next_key();
    s.sent_min = sent_min;
    s.processed = w.core.q.processed() - p.dup_events;
    s.now = w.core.q.now();
    s.bytes = bytes;
    s.ran_full = ran_full;
}

/// Hand what left on cut links to the far ends' inboxes (slot `at`);
/// the earliest arrival among them.
fn post(
    w: &mut World,
    by_part: &mut [Vec<Transfer>],
    sh: &Shared,
    ps: &mut PartStats,
    at: usize,
) -> Option<SimTime> {
    let out = w.core.links.take_handoffs();
    if out.is_empty() {
        return None;
    }
    let node_part = w.part.as_deref().expect("a partition").node_part.clone();
    let mut first = SimTime(u64::MAX);
    for (i, &Handoff { link, arrive, h }) in out.iter().enumerate() {
        // the packet's line is cold (the switches forwarded its header
        // alone since its host wrote it): fetch it a few packets ahead
        if let Some(ahead) = out.get(i + HANDOVER_AHEAD) {
            crate::sim::prefetch::prefetch(w.core.arena.get(ahead.h.id));
        }
        let dest = node_part[w.core.links.to(link) as usize];
        let pkt = w.core.arena.copy_out(h.id);
        w.core.arena.release(h.id);
        ps.handed_over += 1;
        first = first.min(arrive);
        by_part[dest as usize].push(Transfer {
            link,
            arrive,
            h,
            pkt,
        });
    }
    let me = w.part.as_deref().expect("a partition").me as usize;
    for (d, v) in by_part.iter_mut().enumerate() {
        if !v.is_empty() {
            sh.inbox[at][d * sh.n + me].lock().unwrap().append(v);
        }
    }
    Some(first)
}

/// Take in what the other partitions handed over, sender by sender (a
/// fixed order: the arena hands out the same ids every run), each packet
/// on its source route again from the hop after the cut.
///
/// In three passes over the packets, not one: the arena's slot, the
/// flow's source route and the far end's link state are each cold here
/// (another thread last wrote the link a window ago; this partition sees
/// the flow only where it crosses), and a short loop keeps the misses of
/// several packets in flight at once where one long body waited on each
/// in turn (k = 32, 10 ms, 2 threads: 0.52 s → 0.36 s per partition).
/// The passes touch disjoint state (arena, route store, links and
/// queue), each in the packets' order, so the run is the same.
fn take_in(
    w: &mut World,
    me: usize,
    sh: &Shared,
    buf: &mut Vec<Transfer>,
    hs: &mut Vec<Hdr>,
    at: usize,
) {
    for src in 0..sh.n {
        if src == me {
            continue;
        }
        std::mem::swap(buf, &mut *sh.inbox[at][me * sh.n + src].lock().unwrap());
        hs.clear();
        hs.extend(buf.iter().map(|t| Hdr {
            id: w.core.arena.alloc(t.pkt),
            ..t.h
        }));
        for (t, h) in buf.iter().zip(hs.iter_mut()) {
            (h.route, h.next) = w.core.resume_route(&t.pkt, t.link);
        }
        for (i, (t, h)) in buf.iter().zip(hs.iter()).enumerate() {
            // fetch the far end's link state a few packets ahead
            if let Some(ahead) = buf.get(i + HANDOVER_AHEAD) {
                w.core.links.prefetch_state(ahead.link);
            }
            w.core.links.accept(&mut w.core.q, t.link, t.arrive, *h);
        }
        buf.clear();
    }
}

/// How many packets ahead [`post`] prefetches a packet's arena line and
/// [`take_in`] the far end's link state.
const HANDOVER_AHEAD: usize = 4;

/// The run's end, the same for every partition: publish where this one
/// stopped, once all have.
fn finish_worker(
    w: &mut World,
    me: usize,
    sh: &Shared,
    ps: &mut PartStats,
    sense: &mut bool,
    t0: std::time::Instant,
    win: u64,
) -> PartStats {
    // Packets still crossing a cut at the end are in flight on their link,
    // as on one thread: the far end holds them (and counts them live).
    // Every partition left the loop at the same window `win`, whose
    // inboxes may still hold what it posted.
    let mut by_part = vec![Vec::new(); sh.n];
    post(w, &mut by_part, sh, ps, slot(win));
    ps.wait_ns += sh.barrier.wait(sense);
    take_in(w, me, sh, &mut Vec::new(), &mut Vec::new(), slot(win));
    {
        // past the barrier nobody reads a window's status again: the
        // run's end goes in slot 0, where `merge` reads it
        let p = w.part.as_deref().expect("a partition");
        let mut st = sh.status[0].lock().unwrap();
        st[me].processed = w.core.q.processed() - p.dup_events;
        st[me].now = w.core.q.now();
        st[me].last_key = w.core.q.last_key();
        st[me].sent = ps.handed_over;
    }
    ps.wait_ns += sh.barrier.wait(sense);
    ps.events = w.core.q.processed();
    ps.wall_ns = t0.elapsed().as_nanos() as u64;
    ps.thread = Some(std::thread::current().id());
    ps.clone()
}

/// One world from the partitions': each link, input tally, flow end, app,
/// capture and sample from the partition that ran it.
fn merge(mut w: World, rest: Vec<World>, sh: &Shared, cfg: &Config) -> World {
    let st = sh.status[0].lock().unwrap().clone();
    let end_key = st.iter().map(|s| s.last_key).max().unwrap_or(0);
    let now = st.iter().map(|s| s.now).max().unwrap_or_default();
    let processed: u64 = st.iter().map(|s| s.processed).sum();
    let handed: u64 = st.iter().map(|s| s.sent).sum();
    let mut parts: Vec<World> = Vec::with_capacity(rest.len() + 1);
    // Each partition closes its own books first: links up to the run's
    // end (cut links retire what the far end received), route tallies.
    let close = |w: &mut World| {
        w.core.q.set_end(now, end_key, processed);
        w.finish_books();
        let q = &w.core.q;
        let key_of = |t: SimTime, l: u32| q.key_of(t, Event::Arrive(l));
        w.core.links.retire_cut(end_key, key_of);
    };
    close(&mut w);
    parts.push(w);
    for mut x in rest {
        close(&mut x);
        parts.push(x);
    }
    let me = |p: &World| p.part.as_deref().expect("a partition").me as usize;
    debug_assert!(parts.iter().enumerate().all(|(i, p)| me(p) == i));
    let node_part = parts[0].part.as_deref().unwrap().node_part.clone();
    let host_part = parts[0].part.as_deref().unwrap().host_part.clone();
    let app_home = parts[0].part.as_deref().unwrap().app_home.clone();
    let (first, others) = parts.split_first_mut().expect("partition 0");
    let w = first;
    // Links and their input tallies: the sending end's partition.
    for (i, info) in w.core.links.infos().to_vec().iter().enumerate() {
        let p = node_part[info.from as usize] as usize;
        if p != 0 {
            w.core.links.adopt(i, &others[p - 1].core.links);
        }
    }
    for (k, o) in others.iter().enumerate() {
        let p = (k + 1) as u32;
        let infos = w.core.links.infos().to_vec();
        w.core
            .inputs
            .adopt_egresses(&o.core.inputs, |e| node_part[infos[e].from as usize] == p);
    }
    // Flows: the sender's copy, with the receiver's half.
    for f in 0..w.flows.len() {
        let (src, dst) = (w.flows[f].src_host, w.flows[f].dst_host);
        let (ps, pd) = (
            host_part[src as usize] as usize,
            host_part[dst as usize] as usize,
        );
        if ps != pd {
            match (ps, pd) {
                (0, d) => w.flows[f].take_receiver(&others[d - 1].flows[f]),
                (s, 0) => others[s - 1].flows[f].take_receiver(&w.flows[f]),
                (s, d) => {
                    let (lo, hi) = others.split_at_mut(s.max(d) - 1);
                    let (tx, rx) = if s < d {
                        (&mut lo[s - 1], &hi[0])
                    } else {
                        (&mut hi[0], &lo[d - 1])
                    };
                    tx.flows[f].take_receiver(&rx.flows[f]);
                }
            }
        }
        if ps != 0 {
            std::mem::swap(&mut w.flows[f], &mut others[ps - 1].flows[f]);
        }
        if pd != 0 {
            w.app_rx[f] = others[pd - 1].app_rx[f];
        }
    }
    for u in 0..w.udps.len() {
        let (src, dst) = (w.udps[u].src, w.udps[u].dst);
        let (ps, pd) = (
            host_part[src as usize] as usize,
            host_part[dst as usize] as usize,
        );
        let tx = if ps == 0 {
            w.udps[u].clone()
        } else {
            others[ps - 1].udps[u].clone()
        };
        let rx = if pd == 0 {
            w.udps[u].clone()
        } else {
            others[pd - 1].udps[u].clone()
        };
        let mut m = tx;
        m.rx_pkts = rx.rx_pkts;
        m.rx_bytes = rx.rx_bytes;
        m.last_rx = rx.last_rx;
        w.udps[u] = m;
    }
    // Apps: their home's copy.
    for a in 0..w.apps.len() {
        let h = app_home[a] as usize;
        if h != 0 {
            std::mem::swap(&mut w.apps[a], &mut others[h - 1].apps[a]);
        }
    }
    w.pending_apps = std::iter::once(&*w)
        .chain(others.iter())
        .map(|p| p.pending_apps)
        .sum();
    // Captures: the host's partition.
    for c in 0..w.core.captures.len() {
        let h = w.core.captures[c].host;
        let p = host_part[h as usize] as usize;
        if p != 0 {
            std::mem::swap(&mut w.core.captures[c], &mut others[p - 1].core.captures[c]);
        }
    }
    // Time series: each row's fields from the partitions that own them.
    if let Some(queues) = w.trace.as_ref().map(|t| t.cfg.queues.clone()) {
        let flows_src: Vec<usize> = w
            .flows
            .iter()
            .map(|f| host_part[f.src_host as usize] as usize)
            .collect();
        let flows_dst: Vec<usize> = w
            .flows
            .iter()
            .map(|f| host_part[f.dst_host as usize] as usize)
            .collect();
        let qowner: Vec<usize> = queues
            .iter()
            .map(|&q| node_part[w.core.links.info(q).from as usize] as usize)
            .collect();
        let traces: Vec<crate::world::Trace> = others
            .iter_mut()
            .map(|o| o.trace.take().unwrap_or_default())
            .collect();
        let t = w.trace.as_mut().expect("traced");
        let get = |p: usize| if p == 0 { None } else { Some(&traces[p - 1]) };
        let nf = flows_src.len().max(1);
        for i in 0..t.f_flow.len() {
            let f = t.f_flow[i] as usize;
            debug_assert_eq!(i % nf, f);
            if let Some(o) = get(flows_src[f]) {
                t.f_cwnd[i] = o.f_cwnd[i];
                t.f_ssthresh[i] = o.f_ssthresh[i];
                t.f_srtt[i] = o.f_srtt[i];
            }
            if let Some(o) = get(flows_dst[f]) {
                t.f_delivered[i] = o.f_delivered[i];
            }
        }
        let nq = qowner.len().max(1);
        for i in 0..t.q_id.len() {
            if let Some(o) = get(qowner[i % nq]) {
                t.q_bytes[i] = o.q_bytes[i];
                t.q_pkts[i] = o.q_pkts[i];
            }
        }
    }
    // Counters: sums; a handed-over packet was made and freed twice.
    let sum = |f: &dyn Fn(&World) -> u64| -> u64 { others.iter().map(f).sum() };
    w.core.packet_hops += sum(&|o| o.core.packet_hops);
    w.core.delivered += sum(&|o| o.core.delivered);
    w.core.dropped += sum(&|o| o.core.dropped);
    w.core.flowlets_started += sum(&|o| o.core.flowlets_started);
    w.core.arena.created += sum(&|o| o.core.arena.created);
    w.core.arena.released += sum(&|o| o.core.arena.released);
    w.core.arena.created -= handed;
    w.core.arena.released -= handed;
    // Drop runs: every partition's drops, replayed in event order.
    let mut log: Vec<DropRec> = w.core.drop_log.take().unwrap_or_default();
    for o in others.iter_mut() {
        log.extend(o.core.drop_log.take().unwrap_or_default());
    }
    log.sort_by_key(|d| d.key);
    let acks: Vec<u64> = (0..w.core.tcp_drops.len())
        .map(|f| {
            std::iter::once(&*w)
                .chain(others.iter())
                .map(|p| p.core.tcp_drops[f].ack_drops)
                .sum()
        })
        .collect();
    for d in w
        .core
        .tcp_drops
        .iter_mut()
        .chain(w.core.udp_drops.iter_mut())
    {
        *d = Default::default();
    }
    for d in &log {
        match d.kind {
            PktKind::Data => w.core.tcp_drops[d.flow as usize].on_drop(d.txn),
            PktKind::Udp => w.core.udp_drops[d.flow as usize].on_drop(d.txn),
            PktKind::Ack => {}
        }
    }
    // (World::finish closes the runs still open, as on one thread)
    for (f, a) in acks.into_iter().enumerate() {
        w.core.tcp_drops[f].ack_drops = a;
    }
    let _ = cfg;
    let mut merged = parts.swap_remove(0);
    merged.part = None;
    merged
}
