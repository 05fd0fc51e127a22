//! Results across the boundary: every column a numpy array built here
//! (no list of Python objects per value), a typed summary (counts and the
//! seed are integers), the wall time apart from the physics, and the
//! table schema Python gives absent tables.

use std::collections::HashMap;

use dcnsim::stats::results::{Column, Dtype, Results, TABLE_SCHEMA};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// Integer columns become int64 (pandas arithmetic on uint64 wraps below
/// zero: `a - b` of two counters must stay signed); uint64 only if a value
/// does not fit.
fn u64_column(py: Python<'_>, v: Vec<u64>) -> PyObject {
    if v.iter().all(|&x| x <= i64::MAX as u64) {
        let signed: Vec<i64> = v.into_iter().map(|x| x as i64).collect();
        signed.into_pyarray_bound(py).into_any().unbind()
    } else {
        v.into_pyarray_bound(py).into_any().unbind()
    }
}

/// Strings become an object array; equal strings share one Python object
/// (a column of a few kinds and node names repeats them many times).
fn str_column(py: Python<'_>, v: Vec<String>) -> PyObject {
    let mut seen: HashMap<String, PyObject> = HashMap::new();
    let objs: Vec<PyObject> = v
        .into_iter()
        .map(|s| {
            if let Some(o) = seen.get(&s) {
                return o.clone_ref(py);
            }
            let o: PyObject = s.as_str().into_py(py);
            seen.insert(s, o.clone_ref(py));
            o
        })
        .collect();
    PyArray1::from_vec_bound(py, objs).into_any().unbind()
}

fn column_to_numpy(py: Python<'_>, c: Column) -> PyObject {
    match c {
        Column::U64(v) => u64_column(py, v),
        Column::I64(v) => v.into_pyarray_bound(py).into_any().unbind(),
        Column::F64(v) => v.into_pyarray_bound(py).into_any().unbind(),
        Column::Bool(v) => v.into_pyarray_bound(py).into_any().unbind(),
        Column::Str(v) => str_column(py, v),
    }
}

/// Summary keys that are real numbers; every other key counts something
/// (events, packets, flows, bit/s) and crosses as an integer.
fn summary_is_float(key: &str) -> bool {
    key.ends_with("_s") || key.ends_with("_per_s") || key.contains("mean")
}

/// The dict `_core.run` returns (see `_core.pyi`). `seed` is the effective
/// seed, exact (the core's summary holds it as a float).
pub fn results_into_py(py: Python<'_>, r: Results, seed: u64) -> PyResult<PyObject> {
    let out = PyDict::new_bound(py);
    let tables = PyDict::new_bound(py);
    for t in r.tables {
        let d = PyDict::new_bound(py);
        for (name, col) in t.columns {
            d.set_item(name, column_to_numpy(py, col))?;
        }
        tables.set_item(t.name, d)?;
    }
    out.set_item("tables", tables)?;
    let summary = PyDict::new_bound(py);
    let timing = PyDict::new_bound(py);
    for (k, v) in r.summary {
        if k == "wall_s" {
            timing.set_item(k, v)?;
        } else if k == "seed" {
            summary.set_item(k, seed)?;
        } else if !summary_is_float(&k) && v.is_finite() && v.fract() == 0.0 && v >= 0.0 {
            summary.set_item(k, v as u64)?;
        } else {
            summary.set_item(k, v)?;
        }
    }
    out.set_item("summary", summary)?;
    out.set_item("timing", timing)?;
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

fn dtype_name(d: Dtype) -> &'static str {
    match d {
        Dtype::U64 | Dtype::I64 => "int64",
        Dtype::F64 => "float64",
        Dtype::Bool => "bool",
        Dtype::Str => "object",
    }
}

/// Every table a run can return: name -> {"always": bool, "columns":
/// [(column, numpy dtype), ...]} (`always` is false for the tables only a
/// scenario's `trace` brings).
#[pyfunction]
pub fn table_schema(py: Python<'_>) -> PyResult<PyObject> {
    let out = PyDict::new_bound(py);
    for t in TABLE_SCHEMA {
        let d = PyDict::new_bound(py);
        d.set_item("always", t.always)?;
        let cols: Vec<(&str, &str)> = t
            .columns
            .iter()
            .map(|(n, k)| (*n, dtype_name(*k)))
            .collect();
        d.set_item("columns", cols)?;
        out.set_item(t.name, d)?;
    }
    Ok(out.into_py(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_schema, m)?)?;
    Ok(())
}
