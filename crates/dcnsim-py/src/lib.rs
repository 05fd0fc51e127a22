//! `dcnsim._core`: the thin PyO3 layer. JSON in, columns out; no logic here.
// pyo3 0.22 macros expand to conversions newer clippy flags.
#![allow(clippy::useless_conversion)]

mod csv_out;
mod metrics;
mod problems;
mod tables;
mod units;

use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// The exception a signal handler raised (KeyboardInterrupt, or whatever
/// a custom SIGINT handler raised), carried out of GIL-free core work.
type Raised = Arc<Mutex<Option<PyErr>>>;

/// An interrupt check that runs the interpreter's signal handlers and says
/// stop when one raised (kept in `raised`).
fn signal_check(raised: &Raised) -> dcnsim::world::Interrupt {
    let raised = Arc::clone(raised);
    Box::new(move || {
        Python::with_gil(|py| match py.check_signals() {
            Ok(()) => false,
            Err(e) => {
                *raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        })
    })
}

fn take_raised(raised: &Raised) -> PyResult<()> {
    match raised.lock().unwrap_or_else(|p| p.into_inner()).take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Parse a scenario off the GIL, Ctrl-C stopping it (a big topology takes
/// seconds to build and size): `Err` is the raised exception.
fn parse_interruptible(
    py: Python<'_>,
    scenario_json: &str,
) -> PyResult<Result<dcnsim::config::Config, Vec<dcnsim::scenario::ScenarioError>>> {
    let raised: Raised = Arc::default();
    let mut check = signal_check(&raised);
    let json = scenario_json.to_owned();
    let r = py.allow_threads(move || dcnsim::scenario::parse_config_str_until(&json, &mut *check));
    take_raised(&raised)?;
    Ok(r)
}

/// Every problem with the scenario (JSON text), each as a
/// `(field.path, reason)` pair; `[]` = valid. Ctrl-C stops it
/// (KeyboardInterrupt).
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<Vec<problems::Pair>> {
    Ok(match parse_interruptible(py, scenario_json)? {
        Ok(_) => Vec::new(),
        Err(errs) => problems::pairs(errs),
    })
}

/// Run a scenario (JSON text). Raises ValueError listing every problem if
/// invalid (its `problems` attribute: the `(path, reason)` pairs).
///
/// With `interruptible` (the default) the run polls the interpreter's
/// signal handlers every 2¹⁶ events, so Ctrl-C raises KeyboardInterrupt
/// within milliseconds instead of after the run; only the main thread
/// receives signals, so other threads pass `False` and never wait for
/// the GIL mid-run.
///
/// `progress(sim_seconds, events, stop_seconds)`, if given, is called every 2¹⁶ events
/// (with the interrupt poll, off the per-event path); an exception it
/// raises stops the run and is raised here.
///
/// `on_warnings(pairs)`, if given, is called once the document is read and
/// before anything is built, with what `warnings` would give (when there
/// is any): the caller reports them before a long run starts, without
/// reading the document once more; an exception it raises (a warning
/// filter set to "error") is raised here and nothing runs.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None, interruptible=true, progress=None, on_warnings=None))]
fn run(
    py: Python<'_>,
    scenario_json: &str,
    seed: Option<u64>,
    interruptible: bool,
    progress: Option<PyObject>,
    on_warnings: Option<PyObject>,
) -> PyResult<PyObject> {
    let json = scenario_json.to_owned();
    let raised: Raised = Arc::default();
    // what `on_warnings` raised: kept apart from `raised`, which a signal
    // handler may fill meanwhile
    let warned: Raised = Arc::default();
    let warned_in = Arc::clone(&warned);
    let progress_given = progress.is_some();
    let progress_raised = Arc::clone(&raised);
    let tell = move |stop: dcnsim::sim::time::SimTime| {
        progress.map(|f| {
            let raised = progress_raised;
            Box::new(move |t: dcnsim::sim::time::SimTime, n: u64| {
                Python::with_gil(|py| {
                    if let Err(e) = f.call1(py, (t.as_secs_f64(), n, stop.as_secs_f64())) {
                        raised
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get_or_insert(e);
                    }
                })
            }) as dcnsim::world::Progress
        })
    };
    let watched = progress_given;
    // A failed progress call stops the run at the same periodic look.
    let mut hook: Option<dcnsim::world::Interrupt> = (interruptible || watched).then(|| {
        let mut signals = interruptible.then(|| signal_check(&raised));
        let raised = Arc::clone(&raised);
        Box::new(move || {
            raised.lock().unwrap_or_else(|p| p.into_inner()).is_some()
                || signals.as_mut().is_some_and(|s| s())
        }) as dcnsim::world::Interrupt
    });
    // what the core says of how the run goes (threads) comes back with it,
    // for Python to print on its own stderr (`notes`)
    let (r, notes) = py.allow_threads(move || {
        dcnsim::text::capture_notes(|| {
            // Set-up (validation, then the world's routes) stops on Ctrl-C too.
            let mut cfg = match hook.as_mut() {
                Some(h) => dcnsim::scenario::parse_config_str_until(&json, &mut **h),
                None => dcnsim::scenario::parse_config_str(&json),
            }
            .map_err(problems::pairs)?;
            if let Some(s) = seed {
                cfg.seed = s;
            }
            if let Some(f) = on_warnings.as_ref() {
                let notes = problems::pairs(dcnsim::scenario::warnings(&cfg));
                if !notes.is_empty() {
                    if let Err(e) = Python::with_gil(|py| f.call1(py, (notes,))) {
                        *warned_in.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        return Err(Vec::new());
                    }
                }
            }
            // The run-time memory guard's stop is a problem at `limits.memory`
            // like the pre-run estimate's refusal, not a panic.
            let res = dcnsim::run_watched(&cfg, hook, tell(cfg.stop)).map_err(|e| match e {
                dcnsim::Stopped::Memory(e) => vec![("limits.memory".to_string(), e)],
                dcnsim::Stopped::Interrupted => Vec::new(),
            })?;
            Ok::<_, Vec<problems::Pair>>((res, cfg.seed))
        })
    });
    let said = |notes: Vec<String>| notes.into_iter().for_each(|n| eprintln!("{n}"));
    if let Err(e) = take_raised(&warned).and_then(|()| take_raised(&raised)) {
        said(notes);
        return Err(e);
    }
    match r {
        Ok((res, seed)) => {
            let out = tables::results_into_py(py, res, seed)?;
            out.bind(py).set_item("notes", notes)?;
            Ok(out)
        }
        Err(errs) => {
            said(notes);
            Err(problems::value_error(py, Some("invalid scenario"), errs))
        }
    }
}

/// What is valid but probably not meant (an ECN-based congestion control
/// with no marking queue, …), as `(field.path, reason)` pairs; `[]` for an
/// invalid scenario too (`validate` reports those).
#[pyfunction]
fn warnings(py: Python<'_>, scenario_json: &str) -> PyResult<Vec<problems::Pair>> {
    Ok(match parse_interruptible(py, scenario_json)? {
        Ok(cfg) => problems::pairs(dcnsim::scenario::warnings(&cfg)),
        Err(_) => Vec::new(),
    })
}

/// (memory, unguarded memory, events, memory limit, events limit).
type EstimateTuple = (u64, u64, u64, u64, u64);

/// The run's resource estimate as validation makes it (upper bounds):
/// (memory in bytes, of it what the run-time guard cannot stop in time,
/// events, `limits.memory`, `limits.events`); `None` for an invalid
/// scenario. `dcnsim validate --estimate` prints it.
#[pyfunction]
fn estimate(py: Python<'_>, scenario_json: &str) -> PyResult<Option<EstimateTuple>> {
    Ok(match parse_interruptible(py, scenario_json)? {
        Ok(cfg) => {
            let e = dcnsim::stats::limits::estimate(&cfg);
            Some((
                e.memory(),
                e.unguarded(),
                e.events,
                cfg.limits.memory,
                cfg.limits.events,
            ))
        }
        Err(_) => None,
    })
}

/// The threads a run of the scenario (JSON text) would use with cores to
/// spare: its `threads` as the engine plans it (1 where the topology
/// cannot be cut or a window holds too little work for the cut to pay,
/// unless `DCNSIM_CUT=always`; `"auto"` on this process's cores); `None`
/// for an invalid scenario (its run reports why). A sweep sizes its pool by
/// it.
#[pyfunction]
fn planned_threads(py: Python<'_>, scenario_json: &str) -> PyResult<Option<u32>> {
    Ok(match parse_interruptible(py, scenario_json)? {
        Ok(cfg) => Some(dcnsim::parallel::ExecPlan::with_cores_to_spare(&cfg).parts()),
        Err(_) => None,
    })
}

/// (name, sampling, points, mean bytes) as Python receives it.
type CdfTuple = (String, String, Vec<(f64, f64)>, f64);

/// A flow-size CDF from a JSON table with the Poisson app's keys (`cdf` or
/// `cdf_file`, optional `sampling`): (name, sampling, points, mean bytes).
/// Raises ValueError listing every problem (`problems`: the pairs).
#[pyfunction]
fn flow_size_cdf(py: Python<'_>, table_json: &str) -> PyResult<CdfTuple> {
    let parsed = serde_json::from_str::<serde_json::Value>(table_json)
        .map_err(|e| {
            vec![dcnsim::scenario::ScenarioError {
                path: dcnsim::scenario::DOCUMENT.into(),
                message: format!("invalid JSON: {e}"),
            }]
        })
        .and_then(|v| dcnsim::scenario::parse_cdf_table(&v));
    match parsed {
        Ok((c, name)) => Ok((name, c.sampling().name().to_string(), c.points(), c.mean())),
        Err(errs) => Err(problems::value_error(py, None, problems::pairs(errs))),
    }
}

/// The scenario schema (JSON Schema, draft 2020-12) as JSON text.
#[pyfunction]
fn schema() -> String {
    dcnsim::scenario::schema::json_schema()
}

#[pyfunction]
fn version() -> &'static str {
    dcnsim::VERSION
}

/// A hash of the core's sources at build time.
#[pyfunction]
fn build() -> &'static str {
    dcnsim::BUILD_HASH
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(warnings, m)?)?;
    m.add_function(wrap_pyfunction!(planned_threads, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(flow_size_cdf, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    units::register(m)?;
    metrics::register(m)?;
    tables::register(m)?;
    csv_out::register(m)?;
    Ok(())
}
