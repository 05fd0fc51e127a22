//! Results across the boundary: every column a typed buffer built here
//! (no list of Python objects per number), a typed summary (counts and the
//! seed are integers), the wall time apart from the physics, and the
//! table schema Python gives absent tables.
//!
//! Numeric columns cross as the standard library's `array.array`, not as
//! numpy arrays: importing numpy costs a process ≈ 0.1 s of CPU and
//! 10 MB, which a run that only prints its summary (`dcnsim run`, a sweep
//! worker) does not need. result.py views them as numpy arrays, without a
//! copy, when a table is first asked for.

use std::borrow::Cow;
use std::collections::HashMap;

use dcnsim::stats::results::{Column, Dtype, Results, TABLE_SCHEMA};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// `array.array(code)` filled with `values`, each written by `put` as
/// native-endian bytes straight into the `bytes` object the array reads
/// (no intermediate byte vector: on an incast's tens of thousands of rows
/// each copy is pages the process faults in).
fn typed_array<T: Copy, const N: usize>(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    code: &str,
    values: &[T],
    put: fn(T) -> [u8; N],
) -> PyResult<PyObject> {
    let bytes = PyBytes::new_bound_with(py, values.len() * N, |buf| {
        for (dst, &x) in buf.chunks_exact_mut(N).zip(values) {
            dst.copy_from_slice(&put(x));
        }
        Ok(())
    })?;
    let a = array.call1((code,))?;
    a.call_method1("frombytes", (bytes,))?;
    Ok(a.unbind())
}

/// Integer columns become int64 (`q`; pandas arithmetic on uint64 wraps
/// below zero: `a - b` of two counters must stay signed); uint64 (`Q`)
/// only if a value does not fit.
fn u64_column(py: Python<'_>, array: &Bound<'_, PyAny>, v: Vec<u64>) -> PyResult<PyObject> {
    let code = if v.iter().all(|&x| x <= i64::MAX as u64) {
        "q"
    } else {
        "Q"
    };
    typed_array(py, array, code, &v, u64::to_ne_bytes)
}

/// Strings become a list; equal strings share one Python object (a column
/// of a few kinds and node names repeats them many times). A string equal
/// to the one before is found without hashing it, the others through a
/// map with hashbrown's fast hasher: the standard map's SipHash on the
/// FaST incast's 35,000 loss kinds was 0.7 % of its whole `dcnsim run`.
fn str_column(py: Python<'_>, v: Vec<Cow<'static, str>>) -> PyObject {
    let mut seen: HashMap<&str, PyObject, foldhash::fast::FixedState> = HashMap::default();
    let mut prev: Option<(&str, PyObject)> = None;
    // the list filled as it is made, not from a vector of its items
    let objs = v.iter().map(|s| {
        let s: &str = s;
        if let Some((p, o)) = &prev {
            if *p == s {
                return o.clone_ref(py);
            }
        }
        let o = seen.entry(s).or_insert_with(|| s.into_py(py)).clone_ref(py);
        prev = Some((s, o.clone_ref(py)));
        o
    });
    PyList::new_bound(py, objs).into_any().unbind()
}

fn column_to_py(py: Python<'_>, array: &Bound<'_, PyAny>, c: Column) -> PyResult<PyObject> {
    match c {
        Column::U64(v) => u64_column(py, array, v),
        Column::I64(v) => typed_array(py, array, "q", &v, i64::to_ne_bytes),
        Column::F64(v) => typed_array(py, array, "d", &v, f64::to_ne_bytes),
        // One byte per value, 0 or 1: numpy's bool layout.
        Column::Bool(v) => typed_array(py, array, "B", &v, |x| [x as u8]),
        Column::Str(v) => Ok(str_column(py, v)),
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
    let array = py.import_bound("array")?.getattr("array")?;
    for t in r.tables {
        let d = PyDict::new_bound(py);
        for (name, col) in t.columns {
            d.set_item(name, column_to_py(py, &array, col)?)?;
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
    for (k, v) in r.timing {
        timing.set_item(k, v)?;
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
