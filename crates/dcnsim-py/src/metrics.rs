//! Numbers derived from results that Python and the Rust tests share: one
//! definition each, in `dcnsim::stats::results`.

use pyo3::prelude::*;

/// Jain's fairness index (Σx)² / (n·Σx²); NaN for no values or all zeros.
#[pyfunction]
pub fn jain(values: Vec<f64>) -> f64 {
    dcnsim::stats::results::jain(&values)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(jain, m)?)?;
    Ok(())
}
