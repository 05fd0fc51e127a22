//! The scenario loader's unit parsers (`dcnsim::scenario::units`), for Python: one
//! parser for scenario files, the command line and `dcnsim.units`. Errors
//! are `ValueError` with the loader's reason text (without a field path).

use dcnsim::config::Limit;
use dcnsim::scenario::units;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn reason<T>(r: Result<T, String>) -> PyResult<T> {
    r.map_err(PyValueError::new_err)
}

/// A time such as `"50us"`, in integer picoseconds (a bare number is an error).
#[pyfunction]
pub fn parse_time(text: &str) -> PyResult<u64> {
    reason(units::parse_time(text)).map(|t| t.ps())
}

/// A rate such as `"1Gbps"` (decimal prefixes), in bit/s; must be > 0.
#[pyfunction]
pub fn parse_rate(text: &str) -> PyResult<u64> {
    reason(units::parse_rate(text))
}

/// A size such as `"32KB"` (KB = 1024 B) in bytes; a bare number is bytes.
#[pyfunction]
pub fn parse_size(text: &str) -> PyResult<u64> {
    reason(units::parse_size(text))
}

/// A size read with decimal prefixes (KB = 1000 B; KiB = 1024 B), in bytes.
#[pyfunction]
pub fn parse_size_si(text: &str) -> PyResult<u64> {
    reason(units::parse_size_si(text))
}

/// A count: `"20"`, `"20pkt"`, `"20 segments"`.
#[pyfunction]
pub fn parse_count(text: &str) -> PyResult<u64> {
    reason(units::parse_count(text))
}

/// A queue limit: a size or `"100pkt"`, as `(value, "bytes" | "packets")`.
#[pyfunction]
pub fn parse_limit(text: &str) -> PyResult<(u64, &'static str)> {
    reason(units::parse_limit(text)).map(|l| match l {
        Limit::Bytes(b) => (b, "bytes"),
        Limit::Packets(p) => (p, "packets"),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_time, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_si, m)?)?;
    m.add_function(wrap_pyfunction!(parse_count, m)?)?;
    m.add_function(wrap_pyfunction!(parse_limit, m)?)?;
    Ok(())
}
