//! Scenario problems across the boundary as `(path, message)` pairs, built
//! from the core's `ScenarioError { path, message }`: Python never parses
//! "path: reason" strings back apart.

use dcnsim::scenario::ScenarioError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pub type Pair = (String, String);

pub fn pairs(errs: Vec<ScenarioError>) -> Vec<Pair> {
    errs.into_iter().map(|e| (e.path, e.message)).collect()
}

/// A `ValueError` whose text lists every problem ("path: reason", one per
/// line, after `header`) and whose `problems` attribute holds the pairs.
pub fn value_error(py: Python<'_>, header: Option<&str>, problems: Vec<Pair>) -> PyErr {
    let lines: Vec<String> = problems.iter().map(|(p, m)| format!("{p}: {m}")).collect();
    let text = match header {
        Some(h) => format!(
            "{h} ({} problem{}):\n  {}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines.join("\n  ")
        ),
        None => lines.join("\n"),
    };
    let err = PyValueError::new_err(text);
    if let Err(e) = err.value_bound(py).setattr("problems", problems) {
        return e;
    }
    err
}
