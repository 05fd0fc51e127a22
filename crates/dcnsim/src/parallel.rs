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
use crate::net::int::IntStack;
use crate::net::pfc::PauseHandoff;
use crate::net::{Handoff, Hdr, PktHead, PktId, PktKind, NO_ROUTE};
use crate::partition::{DropRec, PartCtx, Partition, EVERY_PART};
use crate::sim::queue::Event;
use crate::sim::time::SimTime;
use crate::world::{Interrupt, MemoryGuard, MemoryStop, Progress, Whole, World};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// How a run is executed: its partition (one part: one world on one
/// thread), the worker threads and the window. Decided once, where the
/// run starts ([`crate::run_measured`]), and handed to the engine
/// ([`run`]); the merged world's `threads_used` hands its worlds to the
/// memory estimate.
#[derive(Clone, Debug)]
pub struct ExecPlan {
    /// The cut; `partition.parts` partitions when [`Self::is_cut`].
    pub partition: Partition,
    /// Worker threads that run the partitions ([`workers_for`]).
    pub workers: u32,
    /// The synchronization window: the cut's smallest lookahead.
    pub window: Option<SimTime>,
    /// Why the run goes on one thread though more were asked (`None`: cut,
    /// or one asked).
    pub single: Option<String>,
}

impl ExecPlan {
    /// The plan for `cfg` here and now: `threads` partitions (or for
    /// `"auto"` as many as the cores free now when the cut leaves each
    /// window enough work: docs/performance.md, Threads), one thread when
    /// one core is free (one stderr line says so). The number never
    /// changes the results (`threads` picks the seeded order of
    /// equal-time events), only the speed.
    pub fn of(cfg: &Config) -> ExecPlan {
        match cfg.threads {
            crate::config::Threads::Auto => {
                // what the scenario allows first: a run that will not be cut
                // (a star, too little work a window) never looks at the
                // machine, whose count may wait a few milliseconds
                if let Some(free) = forced_free_cores() {
                    return Self::auto(cfg, free);
                }
                let cores = machine_cores();
                let plan = Self::auto(cfg, cores);
                if !plan.is_cut() {
                    return plan;
                }
                match free_cores() {
                    free if free >= cores => plan,
                    free => Self::auto(cfg, free),
                }
            }
            crate::config::Threads::N(n) => {
                let plan = Self::asked(cfg, n, cut_always());
                if plan.is_cut() && !worth_cutting(&plan.partition) {
                    return Self::one(cfg, "one core is free now".into());
                }
                if let Some(why) = plan.single.as_deref() {
                    crate::text::say(format!("dcnsim: threads = {n}: one thread, as {why}"));
                } else if plan.is_cut() && plan.partition.parts < n {
                    // fewer than asked but more than one: said too, as the
                    // one-thread case is (`r.timing` alone showed it)
                    let why = plan
                        .partition
                        .reason
                        .as_deref()
                        .unwrap_or("the topology and its apps cut no finer");
                    crate::text::say(format!(
                        "dcnsim: threads = {n}: {} partitions, as {why} (the same results)",
                        plan.partition.parts
                    ));
                }
                plan
            }
        }
    }

    /// `threads = "auto"` on a machine with `free` cores free: every one of
    /// them when the topology can be cut and a window holds enough work,
    /// one thread otherwise (with one free core, a cut only adds the
    /// hand-over).
    pub fn auto(cfg: &Config, free: u32) -> ExecPlan {
        if free < 2 {
            return Self::one(cfg, "one core is free now".into());
        }
        let plan = Self::cut(cfg, free);
        if let Some(why) = too_little_work(cfg, &plan) {
            return Self::one(cfg, why);
        }
        // validation counted one world for "auto": a cut must fit too
        let parts = plan.parts();
        if parts > 1 {
            let need = crate::stats::limits::estimate_for(cfg, parts as u64).unguarded();
            if need > cfg.limits.memory {
                return Self::one(
                    cfg,
                    format!(
                        "{parts} worlds would need about {} of memory, over limits.memory ({}); \
                         one fits",
                        crate::stats::limits::fmt_bytes(need),
                        crate::stats::limits::fmt_bytes(cfg.limits.memory)
                    ),
                );
            }
        }
        plan
    }

    /// `threads = n` as asked: cut into `n` partitions, except where a
    /// window holds too little work, where the hand-overs cost more than a
    /// second core gives (the shipped outcast fat-trees: about 24 events a
    /// window, twice one thread's time on two) and the run goes on one
    /// thread with the same results; `cut_always` (`DCNSIM_CUT=always`, for
    /// tests and benchmarks of the cut itself) cuts anyway.
    pub fn asked(cfg: &Config, n: u32, cut_always: bool) -> ExecPlan {
        let plan = Self::cut(cfg, n);
        if cut_always {
            return plan;
        }
        match too_little_work(cfg, &plan) {
            Some(why) => Self::one(
                cfg,
                format!("{why}, where {n} threads run slower than one; the same results (DCNSIM_CUT=always cuts anyway)"),
            ),
            None => plan,
        }
    }

    /// `cfg` cut into `threads` partitions as far as it can be, however
    /// busy the machine is (tests and benchmarks of the cut).
    pub fn cut(cfg: &Config, threads: u32) -> ExecPlan {
        let partition = crate::partition::partition(cfg, threads);
        let single = if threads > 1 {
            single_reason(cfg, &partition)
        } else {
            None
        };
        ExecPlan {
            workers: if single.is_some() {
                1
            } else {
                workers_for(partition.parts, machine_cores())
            },
            window: partition.lookahead,
            partition,
            single,
        }
    }

    /// One world on one thread, for `why`.
    fn one(cfg: &Config, why: String) -> ExecPlan {
        ExecPlan {
            partition: crate::partition::partition(cfg, 1),
            workers: 1,
            window: None,
            single: Some(why),
        }
    }

    /// Whether the run is cut into partitions.
    pub fn is_cut(&self) -> bool {
        self.single.is_none() && self.partition.parts > 1
    }

    /// The plan of `cfg` with cores to spare (however busy the machine is
    /// now): `threads = n` as [`Self::asked`] plans it, `"auto"` on the
    /// cores this process may run on. What a sweep sizes its pool by.
    pub fn with_cores_to_spare(cfg: &Config) -> ExecPlan {
        match cfg.threads {
            crate::config::Threads::N(n) => Self::asked(cfg, n, cut_always()),
            crate::config::Threads::Auto => Self::auto(cfg, machine_cores()),
        }
    }

    /// The partitions the run has: the worlds it keeps.
    pub fn parts(&self) -> u32 {
        if self.is_cut() {
            self.partition.parts
        } else {
            1
        }
    }
}

/// The partitions [`ExecPlan::auto`] makes of `cfg` with `free` cores free.
pub fn auto_threads(cfg: &Config, free: u32) -> u32 {
    ExecPlan::auto(cfg, free).parts()
}

/// The cores free for this run now: this process's cores less the other
/// work runnable on the machine, at least one; or `DCNSIM_FREE_CORES`
/// when set (for benchmarks and tests that must run a given way).
pub fn free_cores() -> u32 {
    forced_free_cores().unwrap_or_else(|| machine_cores().saturating_sub(settled_others()).max(1))
}

/// Looks at the runnable tasks [`settled_others`] takes at most.
const SETTLE_LOOKS: u32 = 5;
/// The time between them.
const SETTLE_GAP: std::time::Duration = std::time::Duration::from_millis(2);

/// The other tasks runnable on the machine, as a load that stays: the
/// fewest over a few looks some milliseconds apart (at once when the
/// first finds none). One look counts what is runnable for a moment — a
/// pipeline's other commands starting with this one (`run | head`),
/// a shell — and took a quiet machine's `threads = 2` to one thread.
fn settled_others() -> u32 {
    settle(|| others_runnable(1), || std::thread::sleep(SETTLE_GAP))
}

/// [`settled_others`] with its look and its wait given.
fn settle(mut look: impl FnMut() -> u32, mut wait: impl FnMut()) -> u32 {
    let mut others = look();
    for _ in 1..SETTLE_LOOKS {
        if others == 0 {
            break;
        }
        wait();
        others = others.min(look());
    }
    others
}

/// Why a cut `plan` of `cfg` would not pay (a window holds fewer than
/// [`AUTO_MIN_WINDOW_EVENTS`]); `None` when it would, or is not a cut.
fn too_little_work(cfg: &Config, plan: &ExecPlan) -> Option<String> {
    let window = plan.window.filter(|_| plan.is_cut())?;
    let events = window_events(cfg, window);
    (events < AUTO_MIN_WINDOW_EVENTS).then(|| {
        format!(
            "a window holds too little work (about {events:.0} events in {:.2} µs, \
             < {AUTO_MIN_WINDOW_EVENTS})",
            window.secs_scaled() * 1e6
        )
    })
}

/// `DCNSIM_CUT=always`: `threads = n` cuts into `n` partitions however
/// little work a window holds. Any other value is ignored, and one stderr
/// line says so (a `DCNSIM_CUT=1` that did nothing would leave a benchmark
/// of the cut measuring one thread).
pub fn cut_always() -> bool {
    static SAID: std::sync::Once = std::sync::Once::new();
    match std::env::var("DCNSIM_CUT") {
        Ok(v) if v.trim() == "always" => true,
        Ok(v) if !v.trim().is_empty() => {
            SAID.call_once(|| {
                crate::text::say(format!(
                    "dcnsim: DCNSIM_CUT={v:?} ignored: its one value is \"always\""
                ));
            });
            false
        }
        _ => false,
    }
}

/// `DCNSIM_FREE_CORES`, when set to a number. Another value is ignored, and
/// one stderr line says so (a typo would otherwise leave a benchmark of two
/// threads counting the machine's load, as `DCNSIM_CUT` says too).
fn forced_free_cores() -> Option<u32> {
    static SAID: std::sync::Once = std::sync::Once::new();
    let v = std::env::var("DCNSIM_FREE_CORES").ok()?;
    match v.trim().parse::<u32>() {
        Ok(n) => Some(n.max(1)),
        Err(_) if v.trim().is_empty() => None,
        Err(_) => {
            SAID.call_once(|| {
                crate::text::say(format!(
                    "dcnsim: DCNSIM_FREE_CORES={v:?} ignored: it takes a whole number of cores; \
                     the free cores are counted"
                ));
            });
            None
        }
    }
}

/// Whether a run cut into `part` should run partitioned now: not when one
/// core is free, where a cut only adds the hand-over (one line on stderr
/// says so; one thread writes the same results).
fn worth_cutting(part: &Partition) -> bool {
    let why = match forced_free_cores() {
        Some(free) if free >= 2 => return true,
        Some(_) => "DCNSIM_FREE_CORES = 1".to_string(),
        None => {
            let others = settled_others();
            if machine_cores().saturating_sub(others) >= 2 {
                return true;
            }
            format!(
                "{others} other task(s) runnable on {} core(s)",
                machine_cores()
            )
        }
    };
    crate::text::say(format!(
        "dcnsim: one core free now ({why}): running on one thread, not cut into {} partitions \
         (the same results)",
        part.parts
    ));
    false
}

/// Tasks runnable on the machine now that are not among `ours`, from
/// `/proc/loadavg` (none where it cannot be read).
fn others_runnable(ours: u32) -> u32 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| runnable(&s))
        .map_or(0, |r| r.saturating_sub(ours))
}

/// The tasks runnable now (the running ones and those waiting for a
/// core), from `/proc/loadavg`'s fourth field, "runnable/total": the
/// moment's count, not the load averages, which lag a minute behind
/// (after a run on two threads they still count it).
fn runnable(loadavg: &str) -> Option<u32> {
    loadavg
        .split_whitespace()
        .nth(3)?
        .split('/')
        .next()?
        .parse()
        .ok()
}

/// `threads = "auto"` runs on one thread where a window holds fewer events
/// than this ([`window_events`]' estimate). Measured at 2 threads
/// (docs/performance.md, Threads): the DCTCP permutation at k = 4 (≈ 25 a
/// window of 1.03 µs) ran 0.83× one thread's speed, k = 8 (≈ 210) 1.2–1.3×,
/// k = 16 1.5×; outcast_fattree (15 flows into one 1 Gbps port: ≈ 25 a
/// window of 26 µs) 0.5–0.7×. The bound it replaces, hosts × window ≥ 100
/// µs, cut outcast_fattree (16 hosts × 26.3 µs): its hosts mostly wait.
pub const AUTO_MIN_WINDOW_EVENTS: f64 = 100.0;

/// About how many events a window of `window` holds when the apps'
/// bottlenecks are busy: the packets they deliver per second, each with
/// its ACK, times the mean number of links between two hosts (an event a
/// hop). A bulk flow's destination takes at most its access link's rate
/// and its sources' together, and a source sends at most its own; a
/// poisson app offers its load of its sources' capacity; a UDP source its
/// rate; an incast's client at most its link's; packets are full segments.
/// The scale of the work, not a forecast: drops, timers and idle flows move
/// a run's count (tests/parallel.rs holds it to a quarter to twice).
pub fn window_events(cfg: &Config, window: SimTime) -> f64 {
    let topo = &cfg.topology;
    let hosts = topo.hosts();
    let mut host_of = vec![usize::MAX; topo.nodes.len()];
    for (h, &n) in hosts.iter().enumerate() {
        host_of[n] = h;
    }
    // each host's access link: the fastest link it has
    let mut access = vec![0u64; hosts.len()];
    for l in &topo.links {
        for end in [l.a, l.b] {
            if let Some(a) = access.get_mut(host_of[end]) {
                *a = (*a).max(l.rate_bps);
            }
        }
    }
    let rate = |h: usize| access.get(h).copied().unwrap_or(0) as f64;
    let seg = |t: &crate::config::TcpConfig| f64::from(t.mss + t.header_bytes).max(1.0) * 8.0;
    // bulk flows: bits/s into each destination and out of each source, in
    // the smallest of their segments
    let (mut into, mut out) = (vec![0.0f64; hosts.len()], vec![0.0f64; hosts.len()]);
    let mut bulk_seg = f64::MAX;
    let mut pps = 0.0;
    for app in &cfg.apps {
        match app {
            AppSpec::Bulk { src, dst, tcp, .. } => {
                if let (Some(i), Some(o)) = (into.get_mut(*dst), out.get_mut(*src)) {
                    *i += rate(*src);
                    *o += rate(*dst);
                    bulk_seg = bulk_seg.min(seg(tcp));
                }
            }
            AppSpec::PartitionAggregate {
                aggregator: to,
                workers: from,
                tcp,
                ..
            }
            | AppSpec::SyncReads {
                client: to,
                servers: from,
                tcp,
                ..
            } => {
                let offered: f64 = from.iter().map(|&h| rate(h)).sum();
                pps += offered.min(rate(*to)) / seg(tcp);
            }
            AppSpec::UdpCbr {
                src,
                rate_bps,
                payload_bytes,
                ..
            } => {
                pps += (*rate_bps as f64).min(rate(*src)) / (f64::from(*payload_bytes + 28) * 8.0);
            }
            AppSpec::Poisson(p) => pps += p.load * p.capacity_bps as f64 / seg(&p.tcp),
        }
    }
    let capped = |v: &[f64]| -> f64 { v.iter().enumerate().map(|(h, &b)| b.min(rate(h))).sum() };
    if bulk_seg < f64::MAX {
        pps += capped(&into).min(capped(&out)) / bulk_seg;
    }
    pps * 2.0 * mean_host_hops(cfg) * window.secs_scaled()
}

/// The mean number of links between two hosts, from breadth-first walks
/// out of up to eight hosts spread over the host list.
fn mean_host_hops(cfg: &Config) -> f64 {
    let topo = &cfg.topology;
    let hosts = topo.hosts();
    if hosts.len() < 2 {
        return 1.0;
    }
    let mut adj = vec![Vec::new(); topo.nodes.len()];
    for l in &topo.links {
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    let is_host: Vec<bool> = topo
        .nodes
        .iter()
        .map(|n| n.kind == crate::config::NodeKind::Host)
        .collect();
    let (mut sum, mut pairs) = (0.0, 0.0);
    let samples = hosts.len().min(8);
    for i in 0..samples {
        let from = hosts[i * hosts.len() / samples];
        let mut dist = vec![u32::MAX; topo.nodes.len()];
        let mut queue = std::collections::VecDeque::from([from]);
        dist[from] = 0;
        while let Some(n) = queue.pop_front() {
            // a host forwards nothing: paths run through switches
            if is_host[n] && n != from {
                continue;
            }
            for &m in &adj[n] {
                if dist[m] == u32::MAX {
                    dist[m] = dist[n] + 1;
                    queue.push_back(m);
                }
            }
        }
        for &h in &hosts {
            if h != from && dist[h] != u32::MAX {
                sum += f64::from(dist[h]);
                pairs += 1.0;
            }
        }
    }
    if pairs == 0.0 {
        1.0
    } else {
        sum / pairs
    }
}

/// Why a scenario runs on one partition however many threads it was
/// given (`None`: it can be partitioned as the partitioner cuts it).
fn single_reason(cfg: &Config, part: &Partition) -> Option<String> {
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
        if cfg.pfc.is_some() {
            // PFC's frames cross a link in its delay alone
            return Some(
                "a cut link has no delay: PFC's pauses would cross it at once, no lookahead".into(),
            );
        }
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
            // every partition draws its arrivals (app.rs, PoissonApp)
            AppSpec::Poisson(_) => (EVERY_PART, None),
        };
        home.push(h);
        if h == EVERY_PART {
            runs.iter_mut().for_each(|r| r[i] = true);
            continue;
        }
        runs[h as usize][i] = true;
        if let Some(o) = other {
            runs[o as usize][i] = true;
        }
    }
    (home, runs)
}

/// A packet on its way to another partition (the arena is per partition),
/// in as few bytes as carry it: each of them crosses between the cores'
/// caches, written by `post` and read by the far end's `take_in`, and 64
/// bytes more a packet made the k = 32 permutation's two-thread run 4.5 %
/// slower (docs/performance.md, "A handed-over packet in 72 bytes"). The
/// header's words for forwarding (not its arena id: the far end allocates
/// its own) and the arena's fields of the packet; the SACK blocks of the
/// few packets that carry any travel beside them ([`Crossing::sacks`]).
#[derive(Clone, Copy)]
#[repr(C)]
struct Transfer {
    arrive: SimTime,
    seq: u64,
    ts: SimTime,
    link: u32,
    /// The header's route entry, next link and size on the wire.
    route: u32,
    next: u32,
    hdr_wire: u32,
    /// The packet's and its header's (a header copies them).
    flow: u32,
    txn: u32,
    src: u32,
    dst: u32,
    payload: u32,
    wire: u32,
    label: u16,
    kind: PktKind,
    /// The header's flags (ECN marks on the way), then the packet's.
    hdr_flags: u8,
    flags: u8,
    nsack: u8,
}

const _: () = assert!(std::mem::size_of::<Transfer>() == 72);

impl Transfer {
    #[inline(always)]
    fn new(link: u32, arrive: SimTime, h: Hdr, p: &PktHead) -> Transfer {
        debug_assert!(
            h.flow == p.flow && h.kind == p.kind,
            "a header's flow and kind are its packet's"
        );
        Transfer {
            arrive,
            seq: p.seq,
            ts: p.ts,
            link,
            route: h.route,
            next: h.next,
            hdr_wire: h.wire,
            flow: p.flow,
            txn: p.txn,
            src: p.src,
            dst: p.dst,
            payload: p.payload,
            wire: p.wire,
            label: p.label,
            kind: p.kind,
            hdr_flags: h.flags,
            flags: p.flags,
            nsack: p.nsack,
        }
    }

    /// Its header, for the packet `id` of the arena it is taken into.
    #[inline(always)]
    fn hdr(&self, id: PktId) -> Hdr {
        Hdr {
            id,
            wire: self.hdr_wire,
            route: self.route,
            next: self.next,
            flow: self.flow,
            flags: self.hdr_flags,
            kind: self.kind,
        }
    }

    /// The packet's head, as its arena keeps it ([`crate::net::Arena::alloc_head`]).
    #[inline(always)]
    fn head(&self) -> PktHead {
        PktHead {
            flow: self.flow,
            txn: self.txn,
            src: self.src,
            dst: self.dst,
            payload: self.payload,
            wire: self.wire,
            kind: self.kind,
            flags: self.flags,
            nsack: self.nsack,
            label: self.label,
            seq: self.seq,
            ts: self.ts,
        }
    }
}

/// What one partition hands another in a window: its packets in the order
/// they were enqueued, and the SACK blocks of those that carry some
/// (`nsack > 0`), one entry each, in the same order.
#[derive(Default)]
struct Crossing {
    packets: Vec<Transfer>,
    sacks: Vec<[(u64, u64); 3]>,
}

impl Crossing {
    fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// `more` moved in behind what is here (traded when this is empty:
    /// both buffers keep their capacity, and no packet is copied twice).
    fn take_from(&mut self, more: &mut Crossing) {
        if self.is_empty() {
            std::mem::swap(self, more);
        } else {
            self.packets.append(&mut more.packets);
            self.sacks.append(&mut more.sacks);
        }
    }

    fn clear(&mut self) {
        self.packets.clear();
        self.sacks.clear();
    }
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
    /// Nanoseconds of work on this step (taking in, running, posting):
    /// the decider sums them and the slowest per window (the load's
    /// imbalance, [`ParallelStats::critical_ns`]).
    busy_ns: u64,
}

/// Spins a waiting worker makes before it parks. A spin is one
/// `spin_loop` hint and a look at the generation (tens of nanoseconds):
/// on two free cores a worker hands over in well under a microsecond,
/// and this covers a window's usual imbalance; past it the worker sleeps
/// and leaves its core to whatever needs it (another worker of this run,
/// or another program on a busy machine).
pub const SPIN_LIMIT: u32 = 1 << 12;

/// Spins after which a waiting worker runs a partition whose owner has
/// not started it (a worker still spinning claims its own within a
/// fraction of a microsecond, so an owner this late is off its core):
/// the run then goes on at the speed of the workers that have a core.
const STEAL_SPINS: u32 = 1 << 6;

/// Where the workers wait for the next step: a generation number they
/// spin on for at most [`SPIN_LIMIT`] spins, then sleep on a condition
/// variable until it changes.
struct Gate {
    generation: AtomicU64,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// How one worker waited, over a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct WaitStats {
    /// Spins in all.
    pub spins: u64,
    /// Times it slept, and the most spins before one.
    pub parks: u64,
    pub max_spins_before_park: u32,
    /// Partitions it ran for an owner that had not started them.
    pub stolen: u64,
}

impl Gate {
    fn new() -> Self {
        Gate {
            generation: AtomicU64::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Open generation `next`: spinning workers see it, sleeping ones are
    /// woken.
    fn open(&self, next: u64) {
        // SeqCst with the sleeper's count-then-look below: either it sees
        // the new generation or this sees it counted.
        self.generation.store(next, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _held = self.lock.lock().unwrap();
            self.wake.notify_all();
        }
    }

    /// Wait while the generation is `g`. After [`STEAL_SPINS`] spins,
    /// every so often, `steal` may run work left undone (it returns true
    /// if it ran some: the wait starts over); after [`SPIN_LIMIT`] spins,
    /// and a last `steal` that finds nothing, sleep.
    fn wait(&self, g: u64, ws: &mut WaitStats, mut steal: impl FnMut() -> bool) {
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == g {
            if spins < SPIN_LIMIT {
                std::hint::spin_loop();
                spins += 1;
                ws.spins += 1;
                if spins >= STEAL_SPINS && spins.is_multiple_of(32) && steal() {
                    ws.stolen += 1;
                    spins = 0;
                }
                continue;
            }
            if steal() {
                ws.stolen += 1;
                spins = 0;
                continue;
            }
            ws.parks += 1;
            ws.max_spins_before_park = ws.max_spins_before_park.max(spins);
            let mut held = self.lock.lock().unwrap();
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            while self.generation.load(Ordering::SeqCst) == g {
                held = self.wake.wait(held).unwrap();
            }
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            break;
        }
    }
}

/// Window `w`'s slot in the double-buffered inboxes: a partition may take
/// in window `w`'s packets while another, already in window `w + 1`,
/// posts its own.
fn slot(win: u64) -> usize {
    (win & 1) as usize
}

/// A step every partition takes between two of the workers' meetings.
/// Which comes next is decided, from what the partitions published, by
/// the worker that finishes a step's last partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Build the partition's world.
    Build,
    /// Publish the queue's first key.
    Start,
    /// Take in what crossed the cut in the window before (unless this is
    /// the first); run window `win` up to `limit`, those with apps left
    /// stopping right after their last app's end; hand over what crossed
    /// the cut; publish (with the memory held when `measure`).
    Window {
        win: u64,
        limit: u128,
        take_in: bool,
        measure: bool,
    },
    /// An app ended in window `win` somewhere, not everywhere: the
    /// partitions that stopped or had none run the rest of it.
    Rest {
        win: u64,
        limit: u128,
    },
    /// The run ends in window `win` (at `end`, right after the event that
    /// ended the last app, or where the window stopped): run up to it and
    /// hand over what crossed.
    Finish {
        win: u64,
        end: Option<u128>,
    },
    /// Take in what window `win` handed over (in flight on its link at the
    /// end, as on one thread) and publish where this partition stopped.
    Close {
        win: u64,
    },
    Done,
}

/// One partition: its world and what it publishes.
struct Part {
    world: Option<World>,
    ctx: Option<Box<PartCtx>>,
    status: Status,
    stats: PartStats,
    window_start: u64,
    by_part: Vec<Crossing>,
    /// The world's outbox, traded for this one each window (both keep
    /// their capacity: a new buffer a window grew by doubling each time).
    outbox: Vec<Handoff>,
    intake: Intake,
    pauses: PauseBufs,
    ints: IntBufs,
}

/// What a partition takes in with ([`take_in`]): the slot's packets, their
/// headers here, and where their routes go on here ([`ResumeMap`]).
#[derive(Default)]
struct Intake {
    inbox: Crossing,
    headers: Vec<Hdr>,
    resume: ResumeMap,
}

/// Where a handed-over packet's source route goes on in this partition's
/// route store, remembered per flow direction from the last packet of it
/// that crossed here: the partition it came from, the entry that
/// partition's store names for the hop after the cut (`Hdr::route` as it
/// crosses) and that entry's twin here. Both stores intern a route by
/// its hops, once, and never drop one (source routes are off where
/// routing reconverges), so a sender's entry has one twin here: the entry
/// [`crate::world::Core::resume_route`] finds for any packet on that
/// route. Found by that walk once and remembered, it spares the flow's
/// later packets the flow's route slot and the walk, two dependent misses
/// in `take_in`, for one load (indexed by the header's flow, so it is
/// prefetched without reading anything else). A packet on another route
/// (a new flow label) or from another partition walks again and is
/// remembered instead. Per flow direction, as the route slots are, so it
/// grows with the flows a partition sees, not with the partitions
/// ([`crate::net::route::RESUME_BYTES_PER_FLOW`] a flow).
#[derive(Clone, Default)]
struct ResumeMap {
    /// TCP flow `f`'s data (`2f`) and ACKs (`2f + 1`), UDP flow `u`:
    /// [partition, sender's entry, entry here]; `u32::MAX` where none.
    tcp: Vec<[u32; 3]>,
    udp: Vec<[u32; 3]>,
}

impl ResumeMap {
    const NONE: [u32; 3] = [u32::MAX; 3];

    /// Header `h`'s flow direction: whether a UDP flow's, and its place.
    #[inline(always)]
    fn place(h: &Hdr) -> (bool, usize) {
        match h.kind {
            PktKind::Data => (false, 2 * h.flow as usize),
            PktKind::Ack => (false, 2 * h.flow as usize + 1),
            PktKind::Udp => (true, h.flow as usize),
        }
    }

    #[inline(always)]
    fn slot(&self, h: &Hdr) -> Option<&[u32; 3]> {
        match Self::place(h) {
            (false, i) => self.tcp.get(i),
            (true, i) => self.udp.get(i),
        }
    }

    /// The twin of the entry `h.route` of partition `src`'s store, if
    /// remembered.
    #[inline(always)]
    fn get(&self, src: usize, h: &Hdr) -> Option<u32> {
        let &[part, e, here] = self.slot(h)?;
        (part == src as u32 && e == h.route).then_some(here)
    }

    #[inline(always)]
    fn prefetch(&self, h: &Hdr) {
        if let Some(s) = self.slot(h) {
            crate::sim::prefetch::prefetch(s);
        }
    }

    /// Heap bytes held (the memory guard's count).
    fn heap_bytes(&self) -> usize {
        (self.tcp.capacity() + self.udp.capacity()) * std::mem::size_of::<[u32; 3]>()
    }

    #[cold]
    fn learn(&mut self, src: usize, h: &Hdr, here: u32) {
        let (udp, i) = Self::place(h);
        let v = if udp { &mut self.udp } else { &mut self.tcp };
        if v.len() <= i {
            v.resize(i + 1, Self::NONE);
        }
        v[i] = [src as u32, h.route, here];
    }
}

/// With in-band telemetry on, the records of the packets a partition
/// hands over and takes in, one per packet, beside them (empty when off:
/// a packet's records live in its world's side table, net/int.rs).
#[derive(Default)]
struct IntBufs {
    by_part: Vec<Vec<IntStack>>,
    inbox: Vec<IntStack>,
}

/// A partition's buffers for the PFC frames it sends across the cut and
/// takes in (empty without PFC).
#[derive(Default)]
struct PauseBufs {
    out: Vec<PauseHandoff>,
    by_part: Vec<Vec<PauseHandoff>>,
    inbox: Vec<PauseHandoff>,
}

/// The decider's own state (only the worker that closes a step reads it).
struct Decider {
    windows: u64,
    /// Events (all partitions) when the memory guard looks next.
    next_mem_check: u64,
    /// When the machine's other work was last counted, and its running
    /// mean (tasks runnable that are not this run's).
    last_look: std::time::Instant,
    others: f64,
    /// [`ParallelStats::busy_ns`] and [`ParallelStats::critical_ns`].
    busy_ns: u64,
    critical_ns: u64,
}

/// How often a run with adapting workers counts the machine's other work.
const LOOK_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

struct Shared {
    parts: Vec<Mutex<Part>>,
    /// The current generation and its step (workers that were away read
    /// both at once, so they join the current step).
    step: Mutex<(u64, Step)>,
    gate: Gate,
    /// `claimed[p]`: the generations partition `p` was taken for, so each
    /// step runs it exactly once, on whichever worker gets there first.
    claimed: Vec<AtomicU64>,
    done: AtomicUsize,
    plan: Mutex<Decider>,
    /// Workers that run partitions now (the first `active`; the others
    /// sleep on `roster`): the machine's free cores, counted as the run
    /// goes when `adapt` is set, never more than `workers`.
    active: AtomicUsize,
    workers: usize,
    adapt: bool,
    roster: Mutex<()>,
    roster_changed: Condvar,
    finished: AtomicBool,
    /// A partition's step panicked (a bug): its payload, re-raised once
    /// every worker has left, instead of the others waiting for that
    /// partition at the barrier for ever.
    panicked: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// `inbox[slot][dst * n + src]`: what partition `src` handed to `dst`
    /// in a window, in the order it was enqueued (each cut link has one
    /// sender, so a link's packets come in arrival order).
    inbox: [Vec<Mutex<Crossing>>; 2],
    /// `pauses[slot][dst * n + src]`: the PFC frames partition `src`'s
    /// switches sent to senders `dst` runs, as `inbox`.
    pauses: [Vec<Mutex<Vec<PauseHandoff>>>; 2],
    /// `ints[slot][dst * n + src]`: with INT on, the records of the
    /// packets in `inbox[slot][dst * n + src]`, one each, in its order.
    ints: [Vec<Mutex<Vec<IntStack>>>; 2],
    n: usize,
    guard: Option<MemoryGuard>,
    stopped: Mutex<Option<MemoryStop>>,
    /// Set by the coordinator when the interrupt check says stop.
    halt: AtomicBool,
    /// Events so far and the slowest partition's clock, for progress.
    processed: AtomicU64,
    now_min: AtomicU64,
    /// Every partition computes the next window from these.
    lookahead: SimTime,
    stop_key: u128,
    /// The routing tables, built once for every partition's world.
    routes: Arc<crate::net::routing::Routes>,
}

/// Per partition, over the run: for the speed-up model (docs/performance.md).
#[derive(Clone, Debug, Default)]
pub struct PartStats {
    /// Events this partition ran (replicated ones included).
    pub events: u64,
    /// Packets it handed to other partitions.
    pub handed_over: u64,
    /// PFC frames (PAUSE and RESUME) its switches sent to senders that
    /// other partitions run.
    pub pauses_handed_over: u64,
    /// The thread that ran its last window.
    pub thread: Option<std::thread::ThreadId>,
    /// Windows it took part in, and the most events it ran in one.
    pub windows: u64,
    pub max_window_events: u64,
}

/// How a partitioned run went.
#[derive(Clone, Debug, Default)]
pub struct ParallelStats {
    /// Partitions.
    pub threads: u32,
    /// Worker threads that ran them (at most the machine's cores).
    pub workers: u32,
    pub method: &'static str,
    pub windows: u64,
    pub lookahead: SimTime,
    pub cut_links: usize,
    pub parts: Vec<PartStats>,
    /// How each worker waited.
    pub waits: Vec<WaitStats>,
    /// Wall-clock nanoseconds from the workers' start to their end.
    pub wall_ns: u64,
    /// Nanoseconds the partitions worked on their windows (take-in, run,
    /// hand-over), all added up; and per window (and per rest of a window
    /// an app ended in) the slowest partition's, added up: with free cores `wall_ns` is `critical_ns` plus what
    /// the steps between windows and the build and close cost, and
    /// `critical_ns` less `busy_ns` / partitions is the load's imbalance.
    pub busy_ns: u64,
    pub critical_ns: u64,
}

impl ParallelStats {
    /// Where the workers' wall time went, as [`crate::Results::timing`]
    /// carries it: windows; a partition's mean work; what waiting for the
    /// slower partition at each window added (never negative: each
    /// window's slowest is at least the mean); and the steps between
    /// windows with the build and close.
    pub fn timing(&self) -> Vec<(String, f64)> {
        let sec = |ns: u64| ns as f64 / 1e9;
        let mean = sec(self.busy_ns) / f64::from(self.threads.max(1));
        vec![
            ("windows".to_string(), self.windows as f64),
            ("partition_work_s".to_string(), mean),
            (
                "imbalance_s".to_string(),
                (sec(self.critical_ns) - mean).max(0.0),
            ),
            (
                "between_windows_s".to_string(),
                sec(self.wall_ns.saturating_sub(self.critical_ns)),
            ),
        ]
    }
}

/// The cores this process may run on (its CPU affinity and quota).
pub fn machine_cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// Worker threads for `parts` partitions on `cores` cores: one each, but
/// never more than the cores (a worker then runs several partitions in
/// each window; the results do not change).
pub fn workers_for(parts: u32, cores: u32) -> u32 {
    parts.min(cores.max(1))
}

/// Run `cfg` as `plan` cuts it ([`ExecPlan::is_cut`]) and merge the
/// partitions' worlds into one, ready for [`crate::finish`]; `None` if
/// `interrupt` said stop during set-up. The partitions run on
/// `plan.workers` threads (the caller's among them).
pub fn run(
    cfg: &Config,
    plan: &ExecPlan,
    interrupt: Option<Interrupt>,
    progress: Option<Progress>,
    guard: Option<MemoryGuard>,
) -> Option<(World, ParallelStats)> {
    let part = &plan.partition;
    let (cores, workers) = (machine_cores(), plan.workers);
    if workers < part.parts {
        crate::text::say(format!(
            "dcnsim: {} partitions on {cores} core{}: {workers} worker thread{} each run several \
             partitions per window (the same results, no faster than {cores} thread{})",
            part.parts,
            if cores == 1 { "" } else { "s" },
            if workers == 1 { "" } else { "s" },
            if cores == 1 { "" } else { "s" },
        ));
    }
    run_on(
        cfg,
        plan,
        workers as usize,
        true,
        interrupt,
        progress,
        guard,
    )
}

/// [`run`] on `workers` threads (1 ..= partitions); with `adapt`, only as
/// many of them run partitions as the machine has cores free (counted
/// every [`LOOK_EVERY`]: the others sleep), else all of them.
pub fn run_on(
    cfg: &Config,
    plan: &ExecPlan,
    workers: usize,
    adapt: bool,
    mut interrupt: Option<Interrupt>,
    progress: Option<Progress>,
    guard: Option<MemoryGuard>,
) -> Option<(World, ParallelStats)> {
    assert!(plan.is_cut(), "a plan that cuts: {:?}", plan.single);
    let part = &plan.partition;
    let n = part.parts as usize;
    let workers = workers.clamp(1, n);
    let lookahead = plan.window.expect("a cut has a lookahead");
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
        Arc::new(crate::net::routing::Routes::compute_without(
            &cfg.topology,
            &cfg.routed_around(SimTime::ZERO),
            workers,
            stop,
        )?)
    };
    if interrupt.as_mut().is_some_and(|stop| stop()) {
        return None;
    }
    // Each partition's world is built by a worker (the routing tables, the
    // long part, were built above, with the interrupt check on the
    // caller's thread).
    let parts = runs
        .into_iter()
        .enumerate()
        .map(|(me, runs)| {
            Mutex::new(Part {
                world: None,
                ctx: Some(Box::new(PartCtx {
                    me: me as u32,
                    node_part: node_part.clone(),
                    host_part: host_part.clone(),
                    app_home: home.clone(),
                    app_runs: runs,
                    app_finished: vec![false; cfg.apps.len()],
                    cur_app: 0,
                    dup_events: 0,
                    zero_at: None,
                    drops: Vec::new(),
                })),
                status: Status::default(),
                stats: PartStats::default(),
                window_start: 0,
                by_part: (0..n).map(|_| Crossing::default()).collect(),
                outbox: Vec::new(),
                intake: Intake::default(),
                pauses: PauseBufs {
                    by_part: vec![Vec::new(); n],
                    ..PauseBufs::default()
                },
                ints: IntBufs {
                    by_part: vec![Vec::new(); n],
                    ..IntBufs::default()
                },
            })
        })
        .collect();
    let mut sh = Shared {
        parts,
        step: Mutex::new((0, Step::Build)),
        gate: Gate::new(),
        claimed: (0..n).map(|_| AtomicU64::new(0)).collect(),
        done: AtomicUsize::new(0),
        plan: Mutex::new(Decider {
            windows: 0,
            next_mem_check: 0,
            last_look: std::time::Instant::now(),
            others: others_runnable(1) as f64,
            busy_ns: 0,
            critical_ns: 0,
        }),
        active: AtomicUsize::new(workers),
        workers,
        adapt,
        roster: Mutex::new(()),
        roster_changed: Condvar::new(),
        finished: AtomicBool::new(false),
        panicked: Mutex::new(None),
        inbox: [0, 1].map(|_| {
            (0..n * n)
                .map(|_| Mutex::new(Crossing::default()))
                .collect()
        }),
        pauses: [0, 1].map(|_| (0..n * n).map(|_| Mutex::new(Vec::new())).collect()),
        ints: [0, 1].map(|_| (0..n * n).map(|_| Mutex::new(Vec::new())).collect()),
        n,
        guard,
        stopped: Mutex::new(None),
        halt: AtomicBool::new(false),
        processed: AtomicU64::new(0),
        now_min: AtomicU64::new(0),
        lookahead,
        stop_key: (cfg.stop.0 as u128 + 1) << 64,
        routes,
    };
    if let Some(free) = forced_free_cores() {
        sh.adapt = false;
        sh.active
            .store(workers.min(free as usize), Ordering::Relaxed);
    } else if adapt {
        let plan = sh.plan.lock().unwrap();
        sh.active
            .store(active_for(workers, plan.others), Ordering::Relaxed);
    }
    let mut coord = Coordinator {
        interrupt,
        progress,
        next_check: 1 << 16,
    };
    let t0 = std::time::Instant::now();
    let waits = std::thread::scope(|s| {
        let handles: Vec<_> = (1..workers)
            .map(|me| {
                let sh = &sh;
                s.spawn(move || worker(sh, cfg, me, workers, None))
            })
            .collect();
        let mut all = vec![worker(&sh, cfg, 0, workers, Some(&mut coord))];
        all.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("a worker thread panicked")),
        );
        all
    });
    let wall_ns = t0.elapsed().as_nanos() as u64;
    if let Some(payload) = sh.panicked.lock().unwrap().take() {
        std::panic::resume_unwind(payload);
    }
    let mut statuses = Vec::with_capacity(n);
    let mut worlds = Vec::with_capacity(n);
    let mut part_stats = Vec::with_capacity(n);
    for p in sh.parts {
        let p = p.into_inner().unwrap();
        statuses.push(p.status);
        worlds.push(p.world.expect("built"));
        part_stats.push(p.stats);
    }
    let plan = sh.plan.lock().unwrap();
    let stats = ParallelStats {
        threads: part.parts,
        workers: workers as u32,
        method: part.method,
        windows: plan.windows,
        busy_ns: plan.busy_ns,
        critical_ns: plan.critical_ns,
        lookahead,
        cut_links: part.cut_links.len(),
        parts: part_stats,
        waits,
        wall_ns,
    };
    drop(plan);
    let mut w = merge(worlds, &statuses);
    w.memory_stop = *sh.stopped.lock().unwrap();
    w.interrupted = sh.halt.load(Ordering::Relaxed);
    Some((w, stats))
}

/// The key below which a window that starts at `start` runs: no later than
/// one lookahead on, nor past the stop time.
fn window_end(start: u128, lookahead: SimTime, stop_key: u128) -> u128 {
    let t = (start >> 64) as u64;
    (((t + lookahead.0) as u128) << 64).min(stop_key)
}

/// The caller's checks (its thread's: the interrupt check may need to run
/// there, as Python's signal check does): progress and the interrupt,
/// every 2¹⁶ events, between steps.
struct Coordinator {
    interrupt: Option<Interrupt>,
    progress: Option<Progress>,
    next_check: u64,
}

impl Coordinator {
    fn check(&mut self, sh: &Shared) {
        let processed = sh.processed.load(Ordering::Relaxed);
        if processed < self.next_check {
            return;
        }
        self.next_check = processed + (1 << 16);
        if let Some(tell) = self.progress.as_mut() {
            tell(SimTime(sh.now_min.load(Ordering::Relaxed)), processed);
        }
        if let Some(stop) = self.interrupt.as_mut() {
            if stop() {
                // the decider stops the run at the next window's end
                sh.halt.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// One worker: at each generation, its own partitions' step first
/// (partition `p` belongs to worker `p % workers`, so on free cores each
/// keeps its partitions' state in its cache), then, while it waits for
/// the others, any partition whose owner has not started it.
fn worker(
    sh: &Shared,
    cfg: &Config,
    me: usize,
    workers: usize,
    mut coord: Option<&mut Coordinator>,
) -> WaitStats {
    let mut ws = WaitStats::default();
    loop {
        let (g, step) = *sh.step.lock().unwrap();
        if step == Step::Done {
            return ws;
        }
        let active = sh.active.load(Ordering::Relaxed).clamp(1, workers);
        if me >= active {
            // not needed now: sleep until the machine frees a core for
            // this worker, or the run ends
            let mut held = sh.roster.lock().unwrap();
            while sh.active.load(Ordering::Relaxed) <= me && !sh.finished.load(Ordering::Relaxed) {
                held = sh.roster_changed.wait(held).unwrap();
            }
            continue;
        }
        for p in (me..sh.n).step_by(active) {
            take(sh, cfg, p, g, step);
        }
        let order = (me..sh.n).chain(0..me);
        sh.gate.wait(g, &mut ws, || {
            order.clone().any(|p| take(sh, cfg, p, g, step))
        });
        if let Some(c) = coord.as_deref_mut() {
            c.check(sh);
        }
    }
}

/// Run partition `p`'s part of generation `g`'s `step` unless a worker
/// took it already; whoever finishes the step's last partition decides
/// the next step and opens it. True if this worker ran it.
fn take(sh: &Shared, cfg: &Config, p: usize, g: u64, step: Step) -> bool {
    if sh.claimed[p]
        .compare_exchange(g, g + 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_err()
    {
        return false;
    }
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        do_step(sh, cfg, p, &mut sh.parts[p].lock().unwrap(), step);
    }));
    if let Err(payload) = ran {
        // This partition never finishes the step, so no worker would
        // decide the next: end the run here (every worker leaves at
        // `Done`) and let `run_on` re-raise the panic.
        sh.panicked.lock().unwrap().get_or_insert(payload);
        *sh.step.lock().unwrap() = (g + 1, Step::Done);
        sh.finished.store(true, Ordering::Relaxed);
        sh.gate.open(g + 1);
        let _held = sh.roster.lock().unwrap();
        sh.roster_changed.notify_all();
        return true;
    }
    if sh.done.fetch_add(1, Ordering::AcqRel) + 1 == sh.n {
        sh.done.store(0, Ordering::Relaxed);
        let next = decide(sh, step);
        *sh.step.lock().unwrap() = (g + 1, next);
        sh.gate.open(g + 1);
        if next == Step::Done {
            sh.finished.store(true, Ordering::Relaxed);
            let _held = sh.roster.lock().unwrap();
            sh.roster_changed.notify_all();
        }
    }
    true
}

/// Partition `me`'s part of `step`.
fn do_step(sh: &Shared, cfg: &Config, me: usize, part: &mut Part, step: Step) {
    if step == Step::Build {
        // fault injection for the test that a partition's panic ends the
        // run (tests/parallel_panic.rs), not a setting
        if std::env::var("DCNSIM_TEST_PANIC_IN_PARTITION").is_ok_and(|v| v == me.to_string()) {
            panic!("DCNSIM_TEST_PANIC_IN_PARTITION: partition {me} panics as asked");
        }
        let ctx = part.ctx.take().expect("built once");
        let mut w = World::with_seam(cfg, ctx, sh.routes.clone());
        if let Some(g) = sh.guard {
            // each partition measures itself; the decider sums them
            w.set_memory_guard(g);
        }
        part.world = Some(w);
        return;
    }
    let Part {
        world,
        status,
        stats,
        window_start,
        by_part,
        outbox,
        intake,
        pauses,
        ints,
        ..
    } = part;
    let w = world.as_mut().expect("built");
    match step {
        Step::Build | Step::Done => {}
        Step::Start => status.next = w.core.q.next_key(),
        Step::Window {
            win,
            limit,
            take_in: earlier,
            measure,
        } => {
            let t0 = std::time::Instant::now();
            if earlier {
                take_in(w, me, sh, intake, ints, slot(win - 1));
                take_in_pauses(w, me, sh, pauses, slot(win - 1));
            }
            *window_start = w.core.q.processed();
            let ran_full = if w.pending_apps > 0 {
                w.run_window(limit, true);
                w.pending_apps > 0
            } else {
                false
            };
            let sent = post(w, by_part, outbox, ints, sh, stats, slot(win));
            let sent = sent
                .into_iter()
                .chain(post_pauses(w, pauses, sh, stats, slot(win)))
                .min();
            publish(w, status, sent, ran_full, measure);
            if measure {
                status.bytes += intake.resume.heap_bytes() as u64;
            }
            status.busy_ns = t0.elapsed().as_nanos() as u64;
            stats.windows += 1;
            stats.thread = Some(std::thread::current().id());
            let ran = w.core.q.processed() - *window_start;
            stats.max_window_events = stats.max_window_events.max(ran);
        }
        Step::Rest { win, limit } => {
            // a step of its own, after a barrier: its slowest partition
            // adds to the critical path apart from the window's
            status.busy_ns = 0;
            if !status.ran_full {
                let t0 = std::time::Instant::now();
                w.run_window(limit, false);
                let more = post(w, by_part, outbox, ints, sh, stats, slot(win));
                let resumes = post_pauses(w, pauses, sh, stats, slot(win));
                let sent = status.sent_min.into_iter().chain(more).chain(resumes).min();
                publish(w, status, sent, false, false);
                status.busy_ns = t0.elapsed().as_nanos() as u64;
                let ran = w.core.q.processed() - *window_start;
                stats.max_window_events = stats.max_window_events.max(ran);
            }
        }
        Step::Finish { win, end } => {
            if let Some(end) = end {
                w.run_window(end + 1, false);
            }
            post(w, by_part, outbox, ints, sh, stats, slot(win));
            post_pauses(w, pauses, sh, stats, slot(win));
        }
        Step::Close { win } => {
            take_in(w, me, sh, intake, ints, slot(win));
            take_in_pauses(w, me, sh, pauses, slot(win));
            let p = ctx(w);
            status.processed = w.core.q.processed() - p.dup_events;
            status.now = w.core.q.now();
            status.last_key = w.core.q.last_key();
            status.sent = stats.handed_over;
            stats.events = w.core.q.processed();
        }
    }
}

/// The step after `step`, from what every partition published in it (so
/// the same whichever worker decides, and however many there are).
fn decide(sh: &Shared, step: Step) -> Step {
    let st: Vec<Status> = sh.parts.iter().map(|p| p.lock().unwrap().status).collect();
    let (la, stop_key) = (sh.lookahead, sh.stop_key);
    // Where the next window starts: the earliest of every queue's next
    // event and of every arrival just handed over (taking in schedules
    // each at its arrival, or behind an earlier one on its link).
    let next_window = |win: Option<u64>| {
        let next = st
            .iter()
            .filter_map(|s| s.next)
            .chain(
                st.iter()
                    .filter_map(|s| s.sent_min)
                    .map(|t| (t.0 as u128) << 64),
            )
            .min();
        match next {
            Some(k) if k < stop_key => {
                let mut plan = sh.plan.lock().unwrap();
                let processed: u64 = st.iter().map(|s| s.processed).sum();
                let measure = sh.guard.is_some() && processed >= plan.next_mem_check;
                if measure {
                    plan.next_mem_check = u64::MAX;
                }
                Step::Window {
                    win: win.map_or(0, |w| w + 1),
                    limit: window_end(k, la, stop_key),
                    take_in: win.is_some(),
                    measure,
                }
            }
            _ => Step::Finish {
                win: win.unwrap_or(0),
                end: None,
            },
        }
    };
    match step {
        Step::Build => Step::Start,
        Step::Start => next_window(None),
        Step::Window { win, measure, .. } => {
            {
                let mut plan = sh.plan.lock().unwrap();
                plan.windows += 1;
                add_busy(&mut plan, &st);
                // (the clock only every 64 windows: it costs more than a
                // short window's hand-over)
                if sh.adapt
                    && plan.windows.is_multiple_of(64)
                    && plan.last_look.elapsed() >= LOOK_EVERY
                {
                    recount(sh, &mut plan);
                }
            }
            let processed: u64 = st.iter().map(|s| s.processed).sum();
            sh.processed.store(processed, Ordering::Relaxed);
            let now_min = st.iter().map(|s| s.now).min().unwrap_or_default();
            sh.now_min.store(now_min.0, Ordering::Relaxed);
            if measure && over_memory(sh, &st, processed) {
                return Step::Finish { win, end: None };
            }
            if sh.halt.load(Ordering::Relaxed) {
                return Step::Finish { win, end: None };
            }
            if st.iter().all(|s| s.pending == 0) {
                // The last app finished in this window: the run ends at
                // the latest partition's end, every partition up to that
                // event.
                let end = st.iter().filter_map(|s| s.zero_at).max();
                return Step::Finish { win, end };
            }
            if st.iter().any(|s| !s.ran_full) {
                let Step::Window { limit, .. } = step else {
                    unreachable!()
                };
                return Step::Rest { win, limit };
            }
            next_window(Some(win))
        }
        Step::Rest { win, .. } => {
            add_busy(&mut sh.plan.lock().unwrap(), &st);
            next_window(Some(win))
        }
        Step::Finish { win, .. } => Step::Close { win },
        Step::Close { .. } | Step::Done => Step::Done,
    }
}

/// Count the machine's other work again and set the workers that run
/// partitions from its running mean (a moment's count jumps as programs
/// wait and wake; the mean over the last ~40 ms follows what lasts).
fn recount(sh: &Shared, plan: &mut Decider) {
    plan.last_look = std::time::Instant::now();
    let ours = sh.active.load(Ordering::Relaxed) as u32;
    plan.others = 0.75 * plan.others + 0.25 * others_runnable(ours) as f64;
    let want = active_for(sh.workers, plan.others);
    if sh.active.swap(want, Ordering::Relaxed) < want {
        let _held = sh.roster.lock().unwrap();
        sh.roster_changed.notify_all();
    }
}

/// Workers to run partitions with `others` tasks runnable besides this
/// run's: one per free core, at least one, at most `workers`.
fn active_for(workers: usize, others: f64) -> usize {
    let free = (machine_cores() as f64 - others).round().max(1.0) as usize;
    free.min(workers)
}

/// The memory guard's look at a window's end: every partition's bytes,
/// summed, against the limit (true: over it, the run stops); the next
/// look as one thread's guard would take it (far from the limit, rarely:
/// a look walks every flow).
fn over_memory(sh: &Shared, st: &[Status], processed: u64) -> bool {
    let Some(g) = sh.guard else { return false };
    let used: u64 = st.iter().map(|s| s.bytes).sum();
    let interval = {
        let p0 = sh.parts[0].lock().unwrap();
        (g.interval)(p0.world.as_ref().expect("built"), used, g.limit)
    };
    sh.plan.lock().unwrap().next_mem_check = processed + interval;
    if used <= g.limit {
        return false;
    }
    *sh.stopped.lock().unwrap() = Some(MemoryStop {
        used,
        limit: g.limit,
        at: st.iter().map(|s| s.now).max().unwrap_or_default(),
    });
    true
}

/// What a partition tells the others at a window's end; its memory too
/// when the decider asked for it.
fn publish(
    w: &mut World,
    s: &mut Status,
    sent_min: Option<SimTime>,
    ran_full: bool,
    measure: bool,
) {
    let (zero_at, dup_events) = (ctx(w).zero_at, ctx(w).dup_events);
    s.pending = w.pending_apps;
    s.zero_at = zero_at;
    s.next = w.core.q.next_key();
    s.sent_min = sent_min;
    s.processed = w.core.q.processed() - dup_events;
    s.now = w.core.q.now();
    // packets in the inboxes are not counted: a window's worth
    s.bytes = if measure {
        w.memory_guard().map_or(0, |g| (g.measure)(w, g.slot_rows))
    } else {
        0
    };
    s.ran_full = ran_full;
}

/// A step's work (a window, or the rest of one after an app ended):
/// every partition's, and the slowest's.
fn add_busy(plan: &mut Decider, st: &[Status]) {
    plan.busy_ns += st.iter().map(|s| s.busy_ns).sum::<u64>();
    plan.critical_ns += st.iter().map(|s| s.busy_ns).max().unwrap_or(0);
}

/// Hand what left on cut links to the far ends' inboxes (slot `at`);
/// the earliest arrival among them.
fn post(
    w: &mut World,
    by_part: &mut [Crossing],
    out: &mut Vec<Handoff>,
    ints: &mut IntBufs,
    sh: &Shared,
    ps: &mut PartStats,
    at: usize,
) -> Option<SimTime> {
    w.core.links.swap_outbox(out);
    if out.is_empty() {
        return None;
    }
    // borrowed from the seam alone, beside the arena it releases from (a
    // clone was a copy of every node's partition per window: 37 KB at k = 32)
    let (seam, arena, links) = (&w.core.seam, &mut w.core.arena, &mut w.core.links);
    let node_part = &seam_ctx(&**seam).node_part;
    let int = links.int.on();
    let mut first = SimTime(u64::MAX);
    for (i, &Handoff { link, arrive, h }) in out.iter().enumerate() {
        // the packet's line is cold (the switches forwarded its header
        // alone since its host wrote it): fetch it a few packets ahead
        if let Some(ahead) = out.get(i + HANDOVER_AHEAD) {
            crate::sim::prefetch::prefetch(arena.get(ahead.h.id));
        }
        let dest = node_part[links.to(link) as usize];
        let to = &mut by_part[dest as usize];
        let head = arena.get(h.id);
        to.packets.push(Transfer::new(link, arrive, h, head));
        if head.nsack > 0 {
            to.sacks.push(arena.copy_out(h.id).sack);
        }
        if int {
            // its records leave with it (the id is this world's to reuse)
            ints.by_part[dest as usize].push(links.int.take(h.id));
        }
        arena.release(h.id);
        ps.handed_over += 1;
        first = first.min(arrive);
    }
    let me = ctx(w).me as usize;
    for (d, v) in by_part.iter_mut().enumerate() {
        if !v.is_empty() {
            // the far end swapped the slot's last contents out: trade
            // buffers instead of copying every packet a second time
            sh.inbox[at][d * sh.n + me].lock().unwrap().take_from(v);
            if int {
                sh.ints[at][d * sh.n + me]
                    .lock()
                    .unwrap()
                    .append(&mut ints.by_part[d]);
            }
        }
    }
    Some(first)
}

/// Take in what the other partitions handed over, sender by sender (a
/// fixed order: the arena hands out the same ids every run), each packet
/// on its source route again from the hop after the cut.
///
/// In three passes over the packets, not one: the arena's slot, the
/// route's entry here ([`ResumeMap`]) and the far end's link state are
/// each cold here (another thread last wrote the link a window ago; this
/// partition sees the flow only where it crosses), and a short loop keeps
/// the misses of several packets in flight at once where one long body
/// waited on each in turn (k = 32, 10 ms, 2 threads: 0.52 s → 0.36 s per
/// partition). The passes touch disjoint state (arena, route store and
/// map, links and queue), each in the packets' order, so the run is the
/// same.
fn take_in(
    w: &mut World,
    me: usize,
    sh: &Shared,
    intake: &mut Intake,
    ints: &mut IntBufs,
    at: usize,
) {
    let Intake {
        inbox: buf,
        headers: hs,
        resume: map,
    } = intake;
    for src in 0..sh.n {
        if src == me {
            continue;
        }
        std::mem::swap(buf, &mut *sh.inbox[at][me * sh.n + src].lock().unwrap());
        hs.clear();
        let mut sacks = buf.sacks.iter();
        let arena = &mut w.core.arena;
        hs.extend(buf.packets.iter().map(|t| {
            let id = arena.alloc_head(t.head());
            if t.nsack > 0 {
                arena.set_sack(
                    id,
                    sacks
                        .next()
                        .expect("SACK blocks for each packet that has some"),
                );
            }
            t.hdr(id)
        }));
        debug_assert!(
            sacks.next().is_none(),
            "no SACK blocks without their packet"
        );
        if w.core.links.int.on() {
            std::mem::swap(
                &mut ints.inbox,
                &mut *sh.ints[at][me * sh.n + src].lock().unwrap(),
            );
            debug_assert_eq!(ints.inbox.len(), hs.len(), "a record set per packet");
            for (h, s) in hs.iter().zip(ints.inbox.drain(..)) {
                w.core.links.int.set(h.id, s);
            }
        }
        let packets = &buf.packets;
        for (i, (t, h)) in packets.iter().zip(hs.iter_mut()).enumerate() {
            if let Some(ahead) = packets.get(i + HANDOVER_AHEAD) {
                map.prefetch(&ahead.hdr(0));
            }
            // the sender's entry for the hop after the cut names the route
            // and the place on it; the link that hop takes (`next`) is the
            // same link in both stores, so the header keeps it
            // (a header returned to its sender carries no route entry, so
            // it never matches: it is routed from the tables, as the walk says)
            let sent = t.hdr(h.id);
            if let Some(r) = map.get(src, &sent) {
                h.route = r;
                debug_assert_eq!(
                    (r, h.next),
                    w.core.resume_route(&t.head().packet([(0, 0); 3]), t.link),
                    "a remembered twin is the entry the walk finds"
                );
                continue;
            }
            (h.route, h.next) = w.core.resume_route(&t.head().packet([(0, 0); 3]), t.link);
            if sent.route != NO_ROUTE && h.route != NO_ROUTE {
                map.learn(src, &sent, h.route);
            }
        }
        for (i, (t, h)) in packets.iter().zip(hs.iter()).enumerate() {
            // fetch the far end's link state a few packets ahead
            if let Some(ahead) = packets.get(i + HANDOVER_AHEAD) {
                w.core.links.prefetch_state(ahead.link);
            }
            w.core.links.accept(&mut w.core.q, t.link, t.arrive, *h);
        }
        buf.clear();
    }
}

/// Hand the PFC frames this partition's switches sent to senders in other
/// partitions to those partitions (slot `at`); the earliest time a RESUME
/// among them reaches its sender (it serves the sender's link then: an
/// event the next window must start by).
fn post_pauses(
    w: &mut World,
    b: &mut PauseBufs,
    sh: &Shared,
    ps: &mut PartStats,
    at: usize,
) -> Option<SimTime> {
    w.core.links.swap_pause_outbox(&mut b.out);
    if b.out.is_empty() {
        return None;
    }
    ps.pauses_handed_over += b.out.len() as u64;
    let node_part = &ctx(w).node_part;
    let links = &w.core.links;
    let mut first = None;
    for &f in &b.out {
        let dest = node_part[links.info(f.link as usize).from as usize];
        if !f.paused {
            first = Some(first.map_or(f.at, |t: SimTime| t.min(f.at)));
        }
        b.by_part[dest as usize].push(f);
    }
    let me = ctx(w).me as usize;
    for (d, v) in b.by_part.iter_mut().enumerate() {
        if !v.is_empty() {
            sh.pauses[at][d * sh.n + me].lock().unwrap().append(v);
        }
    }
    first
}

/// Apply the PFC frames the other partitions' switches sent to senders
/// this partition runs, sender by sender (a fixed order).
fn take_in_pauses(w: &mut World, me: usize, sh: &Shared, b: &mut PauseBufs, at: usize) {
    for src in (0..sh.n).filter(|&s| s != me) {
        std::mem::swap(
            &mut b.inbox,
            &mut *sh.pauses[at][me * sh.n + src].lock().unwrap(),
        );
        for &f in &b.inbox {
            w.core.links.accept_pause(&mut w.core.q, f);
        }
        b.inbox.clear();
    }
}

/// How many packets ahead [`post`] prefetches a packet's arena line and
/// [`take_in`] the far end's link state and the route's hops (the flow's
/// route slot twice as far: the hops' address is read from it).
const HANDOVER_AHEAD: usize = 8;

/// Partition `w`'s context: the seam its world was built with.
fn ctx(w: &World) -> &PartCtx {
    seam_ctx(&*w.core.seam)
}

/// [`ctx`] from the seam alone, so the world's other fields stay free.
fn seam_ctx(seam: &dyn crate::world::Seam) -> &PartCtx {
    (seam as &dyn std::any::Any)
        .downcast_ref()
        .expect("a partition's world")
}

/// `v[a]` and `v[b]`, `a != b`, both writable.
fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b);
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

/// Into partition 0's list `field`, each item from the partition
/// `owner(i)` that ran it.
fn gather<T>(
    parts: &mut [World],
    field: fn(&mut World) -> &mut Vec<T>,
    owner: impl Fn(usize) -> usize,
) {
    for i in 0..field(&mut parts[0]).len() {
        let p = owner(i);
        if p != 0 {
            let (w, o) = two_mut(parts, 0, p);
            std::mem::swap(&mut field(w)[i], &mut field(o)[i]);
        }
    }
}

/// One world from the partitions' (`parts[p]` ran partition `p`): each
/// component absorbs its other halves from the partitions that ran them
/// (links and input tallies from their sending end's, a flow's receiver
/// from its receiver's, counters from all), and every list takes each
/// item from its owner.
fn merge(mut parts: Vec<World>, st: &[Status]) -> World {
    let end_key = st.iter().map(|s| s.last_key).max().unwrap_or(0);
    let now = st.iter().map(|s| s.now).max().unwrap_or_default();
    // as World::end_at_stop: a run `stop` ended with apps unfinished ends there
    let stop = parts[0].stop;
    let now = if st.iter().any(|s| s.pending > 0) && stop != SimTime::MAX {
        now.max(stop)
    } else {
        now
    };
    let processed: u64 = st.iter().map(|s| s.processed).sum();
    let handed: u64 = st.iter().map(|s| s.sent).sum();
    // Each partition closes its own books first (links up to the run's
    // end, sinks retiring what the far end received, route tallies) and
    // gives back its context: the merged world runs the whole model.
    let ctxs: Vec<Box<PartCtx>> = parts
        .iter_mut()
        .map(|w| {
            w.core.q.set_end(now, end_key, processed);
            // the trace's sample at the end, in every partition alike (its
            // rows line up with the others'; `Trace::absorb` below)
            w.sample_end();
            w.finish_books();
            let q = &w.core.q;
            let key_of = |t: SimTime, l: u32| q.key_of(t, Event::Arrive(l));
            w.core.links.close_sinks(end_key, key_of);
            let seam = std::mem::replace(&mut w.core.seam, Box::new(Whole));
            (seam as Box<dyn std::any::Any>)
                .downcast()
                .expect("a partition's world")
        })
        .collect();
    debug_assert!(ctxs.iter().enumerate().all(|(i, c)| c.me as usize == i));
    let PartCtx {
        node_part,
        host_part,
        app_home,
        ..
    } = &*ctxs[0];
    // each link's sending end's partition and its far end's
    let (from, to): (Vec<usize>, Vec<usize>) = parts[0]
        .core
        .links
        .infos()
        .iter()
        .map(|l| {
            let part = |n: u32| node_part[n as usize] as usize;
            (part(l.from), part(l.to))
        })
        .unzip();
    let host = |h: u32| host_part[h as usize] as usize;
    let ends: Vec<(usize, usize)> = parts[0]
        .flows
        .iter()
        .map(|f| (host(f.src_host), host(f.dst_host)))
        .collect();
    for p in 1..parts.len() {
        let (w, o) = two_mut(&mut parts, 0, p);
        w.core.links.absorb(&o.core.links, |l| from[l] == p);
        w.core
            .links
            .absorb_pfc(&o.core.links, |l| from[l] == p, |l| to[l] == p);
        w.core
            .inputs
            .adopt_egresses(&o.core.inputs, |e| from[e] == p);
        w.core.absorb_counts(&o.core);
        // counted at the receiving host, wherever its partition is
        w.tcp_headers_discarded += o.tcp_headers_discarded;
        if let (Some(t), Some(ot)) = (w.trace.as_mut(), o.trace.as_ref()) {
            t.absorb(ot, |f| ends[f].0 == p, |f| ends[f].1 == p, |q| from[q] == p);
        }
    }
    // a handed-over packet was made and freed in both partitions
    parts[0].core.arena.created -= handed;
    parts[0].core.arena.released -= handed;
    // Flows: the sender's copy absorbs the receiver's.
    for (f, &(ps, pd)) in ends.iter().enumerate() {
        if ps != pd {
            let (tx, rx) = two_mut(&mut parts, ps, pd);
            tx.flows[f].absorb(&rx.flows[f]);
        }
    }
    gather(&mut parts, |w| &mut w.flows, |f| ends[f].0);
    gather(&mut parts, |w| &mut w.app_rx, |f| ends[f].1);
    let udp_ends: Vec<(usize, usize)> = parts[0]
        .udps
        .iter()
        .map(|u| (host(u.src), host(u.dst)))
        .collect();
    for (u, &(ps, pd)) in udp_ends.iter().enumerate() {
        if ps != pd {
            let (tx, rx) = two_mut(&mut parts, ps, pd);
            tx.udps[u].absorb(&rx.udps[u]);
        }
    }
    gather(&mut parts, |w| &mut w.udps, |u| udp_ends[u].0);
    let captured: Vec<usize> = parts[0]
        .core
        .captures
        .iter()
        .map(|c| host(c.host))
        .collect();
    gather(&mut parts, |w| &mut w.core.captures, |c| captured[c]);
    // Apps: their home's copy (partition 0's of an app every partition
    // runs: they drew the same arrivals); unfinished where its home did
    // not see it finish, or any partition, for an app all run.
    let home = |a: usize| match app_home[a] {
        EVERY_PART => 0,
        h => h as usize,
    };
    gather(&mut parts, |w| &mut w.apps, home);
    // (the apps alone: `until = "stop"`'s app that never finishes is not one)
    parts[0].run_to_stop = false;
    parts[0].pending_apps = (0..app_home.len())
        .filter(|&a| match app_home[a] {
            EVERY_PART => !ctxs.iter().all(|c| c.app_finished[a]),
            h => !ctxs[h as usize].app_finished[a],
        })
        .count();
    replay_drops(&mut parts, &ctxs);
    parts.swap_remove(0)
}

/// The flows' drop runs of the merged world (`parts[0]`): every
/// partition's drops replayed in event order, as one thread counted them;
/// dropped ACKs summed. (World::finish closes the runs still open.)
fn replay_drops(parts: &mut [World], ctxs: &[Box<PartCtx>]) {
    let mut log: Vec<&DropRec> = ctxs.iter().flat_map(|c| &c.drops).collect();
    log.sort_by_key(|d| d.key);
    let acks: Vec<u64> = (0..parts[0].core.tcp_drops.len())
        .map(|f| parts.iter().map(|p| p.core.tcp_drops[f].ack_drops).sum())
        .collect();
    let core = &mut parts[0].core;
    for d in core.tcp_drops.iter_mut().chain(core.udp_drops.iter_mut()) {
        *d = Default::default();
    }
    for d in log {
        match d.kind {
            PktKind::Data => core.tcp_drops[d.flow as usize].on_drop(d.txn),
            PktKind::Udp => core.udp_drops[d.flow as usize].on_drop(d.txn),
            PktKind::Ack => {}
        }
    }
    for (f, a) in acks.into_iter().enumerate() {
        core.tcp_drops[f].ack_drops = a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A remembered twin is told only for the same flow direction, the
    /// same sending partition and the same entry of its store (a packet on
    /// another route or from another partition walks again, never takes a
    /// wrong entry), and the last learned replaces the one before.
    #[test]
    fn the_resume_map_answers_only_for_the_route_it_learned() {
        let h = |flow: u32, kind: PktKind, route: u32| Hdr {
            id: 0,
            wire: 0,
            route,
            next: 0,
            flow,
            flags: 0,
            kind,
        };
        let mut m = ResumeMap::default();
        assert_eq!(m.get(1, &h(3, PktKind::Data, 40)), None);
        m.learn(1, &h(3, PktKind::Data, 40), 700);
        m.learn(1, &h(3, PktKind::Ack, 41), 800);
        m.learn(0, &h(3, PktKind::Udp, 40), 900);
        assert_eq!(m.get(1, &h(3, PktKind::Data, 40)), Some(700));
        assert_eq!(m.get(1, &h(3, PktKind::Ack, 41)), Some(800));
        assert_eq!(m.get(0, &h(3, PktKind::Udp, 40)), Some(900));
        // another sending partition, another entry (a new label's route),
        // another flow or direction: not known
        assert_eq!(m.get(0, &h(3, PktKind::Data, 40)), None);
        assert_eq!(m.get(1, &h(3, PktKind::Data, 46)), None);
        assert_eq!(m.get(1, &h(2, PktKind::Data, 40)), None);
        assert_eq!(m.get(1, &h(3, PktKind::Ack, 40)), None);
        assert_eq!(m.get(1, &h(3, PktKind::Data, NO_ROUTE)), None);
        m.learn(1, &h(3, PktKind::Data, 46), 710);
        assert_eq!(m.get(1, &h(3, PktKind::Data, 46)), Some(710));
        assert_eq!(m.get(1, &h(3, PktKind::Data, 40)), None);
        // within the memory estimate's bytes a flow (TCP flows 0..4 and
        // UDP flows 0..4 here)
        let bytes = m.heap_bytes();
        assert!(
            bytes <= 8 * crate::world::RESUME_BYTES_PER_FLOW,
            "{bytes} bytes"
        );
    }

    /// Nothing opens the gate until its waiter sleeps (a deadline only so
    /// that a waiter that never sleeps fails instead of hanging).
    fn until_asleep(gate: &Gate) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while gate.sleepers.load(Ordering::SeqCst) == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the waiter never slept"
            );
            std::thread::yield_now();
        }
    }

    /// A worker whose partners are late spins at most [`SPIN_LIMIT`]
    /// times, looks once more for work left undone, then sleeps until the
    /// next generation opens, and wakes then.
    #[test]
    fn a_waiting_worker_parks_after_a_bounded_spin() {
        let gate = Arc::new(Gate::new());
        let looked = Arc::new(AtomicU64::new(0));
        let (g, l) = (gate.clone(), looked.clone());
        let waiter = std::thread::spawn(move || {
            let mut ws = WaitStats::default();
            g.wait(0, &mut ws, || {
                l.fetch_add(1, Ordering::Relaxed);
                false
            });
            ws
        });
        until_asleep(&gate);
        gate.open(1);
        let ws = waiter.join().unwrap();
        assert_eq!(ws.parks, 1, "slept once");
        assert_eq!(ws.spins, SPIN_LIMIT as u64, "after a bounded spin");
        assert_eq!(ws.max_spins_before_park, SPIN_LIMIT);
        // it looked for a late owner's partition every 32 spins past
        // STEAL_SPINS, and once more before it slept
        let looks = (STEAL_SPINS..=SPIN_LIMIT).filter(|s| s % 32 == 0).count() as u64 + 1;
        assert_eq!(looked.load(Ordering::Relaxed), looks);
        assert_eq!(ws.stolen, 0);
    }

    /// Work found while waiting starts the spin over: a worker that runs a
    /// late owner's partition does not sleep for the time it spent on it.
    #[test]
    fn a_worker_that_steals_starts_its_spin_over() {
        let gate = Gate::new();
        let mut ws = WaitStats::default();
        let mut left = 3;
        std::thread::scope(|s| {
            s.spawn(|| {
                gate.wait(0, &mut ws, || {
                    if left > 0 {
                        left -= 1;
                        true
                    } else {
                        false
                    }
                })
            });
            until_asleep(&gate);
            gate.open(1);
        });
        assert_eq!(ws.stolen, 3);
        assert_eq!(ws.parks, 1);
        // each steal restarted the count, so the spin before the sleep
        // was a whole one
        assert_eq!(ws.max_spins_before_park, SPIN_LIMIT);
        assert_eq!(ws.spins, 3 * STEAL_SPINS as u64 + SPIN_LIMIT as u64);
    }

    #[test]
    fn a_moments_load_does_not_count_a_lasting_one_does() {
        let run = |seen: &[u32]| {
            let (mut looks, mut waits) = (0, 0);
            let others = settle(
                || {
                    looks += 1;
                    seen[looks - 1]
                },
                || waits += 1,
            );
            (others, looks, waits)
        };
        // a quiet machine: one look, no wait
        assert_eq!(run(&[0]), (0, 1, 0));
        // a pipeline's other command starting beside this run
        assert_eq!(run(&[1, 0]), (0, 2, 1));
        // a process that spins: runnable at every look
        assert_eq!(run(&[1; SETTLE_LOOKS as usize]), (1, 5, 4));
        assert_eq!(run(&[3, 2, 2, 1, 2]), (1, 5, 4));
    }

    #[test]
    fn workers_never_outnumber_cores_or_partitions() {
        assert_eq!(workers_for(8, 2), 2);
        assert_eq!(workers_for(64, 2), 2);
        assert_eq!(workers_for(2, 16), 2);
        assert_eq!(workers_for(4, 0), 1);
    }

    #[test]
    fn runnable_tasks_are_read_from_loadavg() {
        assert_eq!(runnable("0.31 0.50 0.60 1/812 4242\n"), Some(1));
        // the moment's count, however high the averages
        assert_eq!(runnable("5.77 1.94 0.75 3/900 4242\n"), Some(3));
        assert_eq!(runnable("garbage"), None);
    }
}
