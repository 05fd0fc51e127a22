//! dcnsim: a fast, deterministic, packet-level simulator of data-center
//! network transport. Pure Rust; the Python front lives in `dcnsim-py`.
#![forbid(unsafe_code)]

// Layers, lowest first (docs/architecture.md): `text`, `sim` (time, event
// queue, rng), `config` and `cdf` (the validated model every layer reads),
// `net` (links, routing, topology, pcap), `tcp`, `app`, `world` (the
// driver), `stats` (tables, accounting), `scenario` (documents → config).
pub mod app;
pub mod cdf;
pub mod config;
pub mod net;
pub mod parallel;
pub mod partition;
#[cfg(test)]
mod proptest_ci;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod text;
pub mod world;

use config::Config;
use stats::{limits, report, results::Results};

/// The core's version (the crate's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// A hash of the core's sources at build time (build.rs): two builds with
/// the same hash simulate identically; caches of results key on it.
pub const BUILD_HASH: &str = env!("DCNSIM_BUILD_HASH");

/// Run a validated scenario to completion and return its tables.
///
/// Panics with the guard's message if the run outgrows `limits.memory`
/// (see [`try_run`], which returns it instead).
pub fn run(cfg: &Config) -> Results {
    try_run(cfg).unwrap_or_else(|e| panic!("limits.memory: {e}"))
}

/// Run a validated scenario; `Err` with the reason (at `limits.memory`)
/// when the run-time memory guard stopped it — no partial tables.
pub fn try_run(cfg: &Config) -> Result<Results, String> {
    run_interruptible(cfg, None).map_err(|s| match s {
        Stopped::Memory(e) => e,
        Stopped::Interrupted => "interrupted".to_string(),
    })
}

/// Why a run ended without tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The run-time memory guard stopped it (the reason, at `limits.memory`).
    Memory(String),
    /// The interrupt check said stop.
    Interrupted,
}

/// [`try_run`] with an interrupt check the loop asks every 2¹⁶ events
/// ([`world::Interrupt`]); a run it stops returns no partial tables. The
/// check only decides when a run stops, never what a finished run reports.
pub fn run_interruptible(
    cfg: &Config,
    interrupt: Option<world::Interrupt>,
) -> Result<Results, Stopped> {
    run_watched(cfg, interrupt, None)
}

/// [`run_interruptible`] that also tells `progress` the simulated time and
/// the events so far, every 2¹⁶ events ([`world::Progress`]); it changes
/// no result.
pub fn run_watched(
    cfg: &Config,
    interrupt: Option<world::Interrupt>,
    progress: Option<world::Progress>,
) -> Result<Results, Stopped> {
    run_measured(cfg, interrupt, progress).map(|(r, _)| r)
}

/// [`run_watched`], with how a partitioned run went (`None` when it ran
/// on one thread): `dcnsim bench` reports it.
pub fn run_measured(
    cfg: &Config,
    interrupt: Option<world::Interrupt>,
    progress: Option<world::Progress>,
) -> Result<(Results, Option<parallel::ParallelStats>), Stopped> {
    let t0 = std::time::Instant::now();
    // Decided once: the engine runs it, the merged world's `threads_used`
    // gives the memory estimate its worlds.
    let plan = parallel::ExecPlan::of(cfg);
    if plan.is_cut() {
        let guard = world::MemoryGuard {
            limit: cfg.limits.memory,
            measure: limits::run_bytes,
            slot_rows: limits::slot_rows(cfg),
            interval: limits::guard_interval,
        };
        let (mut w, stats) = parallel::run(cfg, &plan, interrupt, progress, Some(guard))
            .ok_or(Stopped::Interrupted)?;
        w.threads_used = plan.parts();
        w.workers_used = plan.workers;
        if w.interrupted {
            return Err(Stopped::Interrupted);
        }
        if w.memory_stop.is_some() {
            return Err(Stopped::Memory(memory_error(&w, cfg).unwrap_or_default()));
        }
        install_memory_guard(&mut w, cfg);
        if !w.memory_ok() {
            return Err(Stopped::Memory(memory_error(&w, cfg).unwrap_or_default()));
        }
        let mut r = finish(w, t0.elapsed().as_secs_f64());
        r.timing = stats.timing();
        return Ok((r, Some(stats)));
    }
    // The check is asked during set-up (routes) too, not only by the loop.
    let mut w = match interrupt {
        Some(f) => world::World::new_interruptible(cfg, f).ok_or(Stopped::Interrupted)?,
        None => world::World::new(cfg),
    };
    install_memory_guard(&mut w, cfg);
    if let Some(p) = progress {
        w.set_progress(p);
    }
    w.run();
    if w.interrupted {
        return Err(Stopped::Interrupted);
    }
    // A last look before the tables are built: they are part of the bound.
    if w.memory_ok() {
        Ok((finish(w, t0.elapsed().as_secs_f64()), None))
    } else {
        Err(Stopped::Memory(memory_error(&w, cfg).unwrap_or_default()))
    }
}

/// A world with the run-time memory guard of `limits.memory` installed.
pub fn guarded_world(cfg: &Config) -> world::World {
    let mut w = world::World::new(cfg);
    install_memory_guard(&mut w, cfg);
    w
}

fn install_memory_guard(w: &mut world::World, cfg: &Config) {
    w.set_memory_guard(world::MemoryGuard {
        limit: cfg.limits.memory,
        measure: limits::run_bytes,
        slot_rows: limits::slot_rows(cfg),
        interval: limits::guard_interval,
    });
}

/// The `limits.memory` message of a run the guard stopped, with the
/// estimate for comparison (of as many worlds as the run kept); `None` if
/// it was not stopped.
pub fn memory_error(w: &world::World, cfg: &Config) -> Option<String> {
    w.memory_stop.map(|s| {
        let est = limits::estimate_for(cfg, w.threads_used.max(1) as u64).memory();
        limits::memory_exceeded(s.used, s.limit, est, s.at)
    })
}

/// The result tables of a world that has run as far as it will
/// (`wall_s`: the wall-clock time it took, for the summary).
pub fn finish(mut w: world::World, wall_s: f64) -> Results {
    w.finish();
    report::build(&w, wall_s)
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
    try_run(&cfg).map_err(|e| vec![format!("limits.memory: {e}")])
}
