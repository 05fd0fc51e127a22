//! `_core.write_csv`: a run's tables as CSV from the columns `_core.run`
//! returned (`dcnsim::stats::csv` writes them: pandas' bytes, no pandas).

use dcnsim::stats::csv::{push_float_repr, write_table};
use dcnsim::stats::results::{Column, Table};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

fn words<const N: usize>(bytes: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
    bytes
        .chunks_exact(N)
        .map(|c| c.try_into().expect("chunks_exact gives N bytes"))
}

/// A column as the core holds it, from an `array.array` of the core's
/// typecodes (0/1 bytes are bools when the schema says so, else numbers)
/// or a list of `str`; `None` for anything else (a hand-made table: the
/// caller writes it another way).
fn read_column(v: &Bound<'_, PyAny>, is_bool: bool) -> PyResult<Option<Column>> {
    if let Ok(list) = v.downcast::<PyList>() {
        let mut out = Vec::with_capacity(list.len());
        for item in list.iter() {
            match item.downcast::<PyString>() {
                Ok(s) => out.push(s.to_cow()?.into_owned().into()),
                Err(_) => return Ok(None),
            }
        }
        return Ok(Some(Column::Str(out)));
    }
    let Ok(code) = v.getattr("typecode") else {
        return Ok(None);
    };
    let code: String = code.extract()?;
    let raw = v.call_method0("tobytes")?;
    let raw = raw.downcast::<PyBytes>()?.as_bytes();
    Ok(Some(match code.as_str() {
        "q" => Column::I64(words::<8>(raw).map(i64::from_ne_bytes).collect()),
        "Q" => Column::U64(words::<8>(raw).map(u64::from_ne_bytes).collect()),
        "d" => Column::F64(words::<8>(raw).map(f64::from_ne_bytes).collect()),
        "B" if is_bool => Column::Bool(raw.iter().map(|&b| b != 0).collect()),
        "B" => Column::U64(raw.iter().map(|&b| b as u64).collect()),
        _ => return Ok(None),
    }))
}

/// Write `columns` (name -> `array.array` or list of `str`, as `_core.run`
/// returns a table) to the text file `fh` as CSV, the header first;
/// `bools` names the columns of 0/1 bytes to write as `True`/`False`.
/// Returns `False`, having written nothing, when a column is of another
/// kind (a numpy array, a list of numbers) or the lengths differ.
#[pyfunction]
fn write_csv(
    fh: &Bound<'_, PyAny>,
    columns: &Bound<'_, PyDict>,
    bools: Vec<String>,
    quote_cr: bool,
) -> PyResult<bool> {
    let mut table = Table::new("");
    for (k, v) in columns.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyValueError::new_err("column names must be str"))?;
        let Some(col) = read_column(&v, bools.contains(&name))? else {
            return Ok(false);
        };
        if table
            .columns
            .first()
            .is_some_and(|(_, c)| c.len() != col.len())
        {
            return Ok(false);
        }
        table.push(&name, col);
    }
    write_table(&table, quote_cr, |s| {
        fh.call_method1("write", (s,)).map(drop)
    })?;
    Ok(true)
}

/// `repr` of each float as the tables are written (for the tests that hold
/// it to Python's own).
#[pyfunction]
fn float_reprs(xs: Vec<f64>) -> Vec<String> {
    xs.into_iter()
        .map(|x| {
            let mut s = String::new();
            if !x.is_nan() {
                push_float_repr(&mut s, x);
            }
            s
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_csv, m)?)?;
    m.add_function(wrap_pyfunction!(float_reprs, m)?)?;
    Ok(())
}
