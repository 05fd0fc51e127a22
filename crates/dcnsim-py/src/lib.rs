//! `dcnsim._core`: the thin PyO3 layer. JSON in, columns out; no logic here.
// pyo3 0.22 macros expand to conversions newer clippy flags.
#![allow(clippy::useless_conversion)]

use dcnsim::results::{Column, Results};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

fn column_to_py(py: Python<'_>, c: &Column) -> PyObject {
    match c {
        Column::U64(v) => PyList::new_bound(py, v).into_py(py),
        Column::I64(v) => PyList::new_bound(py, v).into_py(py),
        Column::F64(v) => PyList::new_bound(py, v).into_py(py),
        Column::Bool(v) => PyList::new_bound(py, v).into_py(py),
        Column::Str(v) => PyList::new_bound(py, v).into_py(py),
    }
}

fn results_to_py(py: Python<'_>, r: &Results) -> PyResult<PyObject> {
    let out = PyDict::new_bound(py);
    let tables = PyDict::new_bound(py);
    for t in &r.tables {
        let d = PyDict::new_bound(py);
        for (name, col) in &t.columns {
            d.set_item(name, column_to_py(py, col))?;
        }
        tables.set_item(&t.name, d)?;
    }
    out.set_item("tables", tables)?;
    let summary = PyDict::new_bound(py);
    for (k, v) in &r.summary {
        summary.set_item(k, *v)?;
    }
    out.set_item("summary", summary)?;
    let pcaps = PyDict::new_bound(py);
    for (name, bytes) in &r.pcaps {
        pcaps.set_item(name, PyBytes::new_bound(py, bytes))?;
    }
    out.set_item("pcaps", pcaps)?;
    // Which core produced these tables (sweep caches compare it).
    let core = PyDict::new_bound(py);
    core.set_item("version", dcnsim::VERSION)?;
    core.set_item("build", dcnsim::BUILD_HASH)?;
    out.set_item("core", core)?;
    Ok(out.into_py(py))
}

/// Every problem with the scenario (JSON text), each as "field.path: reason".
#[pyfunction]
fn validate(scenario_json: &str) -> Vec<String> {
    dcnsim::validate_json(scenario_json)
}

/// Run a scenario (JSON text). Raises ValueError listing every problem if invalid.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None))]
fn run(py: Python<'_>, scenario_json: &str, seed: Option<u64>) -> PyResult<PyObject> {
    let json = scenario_json.to_owned();
    let r = py.allow_threads(move || dcnsim::run_json(&json, seed));
    match r {
        Ok(res) => results_to_py(py, &res),
        Err(errs) => Err(PyValueError::new_err(format!(
            "invalid scenario ({} problem{}):\n  {}",
            errs.len(),
            if errs.len() == 1 { "" } else { "s" },
            errs.join("\n  ")
        ))),
    }
}

/// (name, sampling, points, mean bytes) as Python receives it.
type CdfTuple = (String, String, Vec<(f64, f64)>, f64);

/// A flow-size CDF from a JSON table with the Poisson app's keys (`cdf` or
/// `cdf_file`, optional `sampling`): (name, sampling, points, mean bytes).
/// Raises ValueError listing every problem.
#[pyfunction]
fn flow_size_cdf(table_json: &str) -> PyResult<CdfTuple> {
    match dcnsim::flow_size_cdf_json(table_json) {
        Ok((c, name)) => Ok((name, c.sampling().name().to_string(), c.points(), c.mean())),
        Err(errs) => Err(PyValueError::new_err(errs.join("\n"))),
    }
}

/// The scenario schema (JSON Schema, draft 2020-12) as JSON text.
#[pyfunction]
fn schema() -> String {
    dcnsim::schema::json_schema()
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
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(flow_size_cdf, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    Ok(())
}
