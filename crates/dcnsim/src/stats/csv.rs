//! A result table as CSV: the bytes pandas' `to_csv(index=False,
//! lineterminator="\n")` writes for the same columns (tests/test_startup.py
//! and tests/test_write_csv.py compare them), so `dcnsim run --out` needs
//! neither pandas nor a Python object per cell.
//!
//! Why not the `csv` crate: the text must be Python's, not RFC 4180's.
//! Floats are Python's `repr` (`1e-05`, `1e+16`, `0.1`, `3.0`), NaN an empty
//! field; bools `True`/`False`; and Python's `csv` quotes a field only for
//! the delimiter, the quote character or a character of the line
//! terminator, so with `"\n"` a carriage return stays bare on Python 3.11
//! (the crate quotes it). The caller says which its interpreter does
//! (`quote_cr`).

use crate::stats::results::{Column, Table};
use std::fmt::Write as _;

/// Python's `repr(x)` of a finite or infinite float (NaN is the caller's):
/// the shortest digits that read back as `x` (what Rust's `{:e}` gives),
/// in positional notation when the decimal point falls within 16 digits
/// to the left and 4 zeros to the right (`0.0001`, `1234567890123456.0`),
/// else as `d.ddde±XX` (`1e-05`, `1.5e+300`).
pub fn push_float_repr(out: &mut String, x: f64) {
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    // `{:e}` into a stack buffer: a run's tables hold tens of thousands of
    // floats, and an allocation each was most of their cost
    let mut buf = Sci { b: [0; 40], n: 0 };
    let _ = write!(buf, "{x:e}");
    let sci = &buf.b[..buf.n];
    let (neg, sci) = match sci.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, sci),
    };
    let e_at = sci
        .iter()
        .position(|&c| c == b'e')
        .expect("{:e} has an exponent");
    let exp: i32 = std::str::from_utf8(&sci[e_at + 1..])
        .ok()
        .and_then(|t| t.parse().ok())
        .expect("{:e}'s exponent is an integer");
    // the digits without the point: "d" or "d.ddd"
    let mut digits = [0u8; 24];
    let mut n = 0;
    for &c in &sci[..e_at] {
        if c != b'.' {
            digits[n] = c;
            n += 1;
        }
    }
    let digits = std::str::from_utf8(&digits[..n]).expect("ASCII digits");
    let tie = python_tie(x, digits, exp);
    let (digits, exp) = match &tie {
        Some((d, e)) => (d.as_str(), *e),
        None => (digits, exp),
    };
    let n = digits.len() as i32;
    // the point's place: the value is 0.DIGITS × 10^point
    let point = exp + 1;
    if neg {
        out.push('-');
    }
    if -4 < point && point <= 16 {
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        } else if point >= n {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', (point - n) as usize));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = point - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
}

/// Where `x` lies exactly halfway between two shortest candidates (both
/// read back as `x`), Python's `repr` (David Gay's dtoa, mode 0) takes the
/// one with an even last digit and Rust's `{:e}` may take the other:
/// 562949953421312.25 is `562949953421312.2` in Python, `...3` in Rust.
/// Returns Python's digits and exponent when they differ from Rust's
/// `digits` and `exp` (`x = d.ddd × 10^exp`). `x`'s exact decimal digits are
/// an integer `m × 5^k` (for `x = m × 2^-k`) or `m × 2^q` less its trailing
/// zeros; a halfway point has one digit more than the shortest, a 5.
fn python_tie(x: f64, digits: &str, exp: i32) -> Option<(String, i32)> {
    let bits = x.abs().to_bits();
    let (field, frac) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    let (m, q) = match field {
        0 => (frac, -1074),
        _ => (frac | 1 << 52, field - 1075),
    };
    if m == 0 {
        return None;
    }
    let (m, q) = (m >> m.trailing_zeros(), q + m.trailing_zeros() as i32);
    let mut exact: u128 = if q >= 0 {
        // an even integer's last significant digit is 5 only if its 2s
        // are all spent on trailing zeros: q ≤ 22, as 5^q divides m < 2^53
        if q > 22 {
            return None;
        }
        (m as u128) << q
    } else {
        // m × 5^k has more than 18 digits past k = 27: no halfway point of
        // ≤ 17 digits
        if -q > 27 {
            return None;
        }
        m as u128 * 5u128.pow((-q) as u32)
    };
    while exact.is_multiple_of(10) {
        exact /= 10;
    }
    if exact % 10 != 5 || exact.ilog10() + 1 != digits.len() as u32 + 1 {
        return None;
    }
    let low = exact / 10;
    let even = if low.is_multiple_of(2) { low } else { low + 1 };
    let ours: u128 = digits.parse().ok()?;
    if even == ours {
        return None;
    }
    let mut text = even.to_string();
    let mut exp = exp;
    if text.len() > digits.len() {
        // 99…9 + 1: one digit more, all zeros after the first
        text.truncate(1);
        exp += 1;
    }
    let back: f64 = format!("{}e{}", text, exp + 1 - text.len() as i32)
        .parse()
        .ok()?;
    (back == x.abs()).then_some((text, exp))
}

/// A float's `{:e}` text: at most 17 digits, a point, a sign and an
/// exponent of 4 characters.
struct Sci {
    b: [u8; 40],
    n: usize,
}

impl std::fmt::Write for Sci {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.n + s.len();
        if end > self.b.len() {
            return Err(std::fmt::Error);
        }
        self.b[self.n..end].copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

/// A text field as Python's `csv` writes it (`QUOTE_MINIMAL`, `"` doubled).
fn push_text(out: &mut String, s: &str, quote_cr: bool, alone: bool) {
    let quote =
        (alone && s.is_empty()) || s.contains([',', '"', '\n']) || (quote_cr && s.contains('\r'));
    if quote {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

fn push_cell(out: &mut String, c: &Column, i: usize, quote_cr: bool, alone: bool) {
    match c {
        Column::I64(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Column::U64(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Column::F64(v) => {
            if !v[i].is_nan() {
                push_float_repr(out, v[i]);
            }
        }
        Column::Bool(v) => out.push_str(if v[i] { "True" } else { "False" }),
        Column::Str(v) => push_text(out, &v[i], quote_cr, alone),
    }
}

/// Text handed to the sink per call: a record is never split.
const CHUNK: usize = 1 << 20;

/// Write `table` as CSV, the header first, handing `sink` pieces of about
/// a mebibyte that each end a record.
pub fn write_table<E>(
    table: &Table,
    quote_cr: bool,
    mut sink: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    let alone = table.columns.len() == 1;
    let mut out = String::with_capacity(CHUNK + 4096);
    for (j, (name, _)) in table.columns.iter().enumerate() {
        if j > 0 {
            out.push(',');
        }
        push_text(&mut out, name, quote_cr, alone);
    }
    out.push('\n');
    for i in 0..table.rows() {
        for (j, (_, c)) in table.columns.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_cell(&mut out, c, i, quote_cr, alone);
        }
        out.push('\n');
        if out.len() >= CHUNK {
            sink(&out)?;
            out.clear();
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        sink(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(x: f64) -> String {
        let mut s = String::new();
        push_float_repr(&mut s, x);
        s
    }

    #[test]
    fn floats_read_as_python_writes_them() {
        // Python 3's repr of each
        for (x, r) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (3.0, "3.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1.5e300, "1.5e+300"),
            (1e-300, "1e-300"),
            (9999999999999998.0, "9999999999999998.0"),
            (1234567890123456.0, "1234567890123456.0"),
            (123456789.12345679, "123456789.12345679"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            // exactly halfway between two shortest candidates: the even one
            (562949953421312.2, "562949953421312.2"),
            (-562949953421312.2, "-562949953421312.2"),
        ] {
            assert_eq!(repr(x), r, "{x:e}");
        }
    }

    #[test]
    fn every_repr_reads_back_as_its_float() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            // xorshift over every bit pattern: normal, subnormal, both signs
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            if f.is_nan() {
                continue;
            }
            assert_eq!(repr(f).parse::<f64>().unwrap().to_bits(), f.to_bits());
        }
    }

    #[test]
    fn a_table_as_pandas_writes_it() {
        let mut t = Table::new("t");
        t.push("n", Column::I64(vec![-1, 2]));
        t.push("x", Column::F64(vec![f64::NAN, 0.5]));
        t.push("b", Column::Bool(vec![true, false]));
        t.push("s", Column::Str(vec!["a,b".into(), "say \"hi\"".into()]));
        let mut text = String::new();
        write_table(&t, false, |s| {
            text.push_str(s);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(
            text,
            "n,x,b,s\n-1,,True,\"a,b\"\n2,0.5,False,\"say \"\"hi\"\"\"\n"
        );
        // a lone empty field is quoted, or it would read back as an empty line
        let mut one = Table::new("one");
        one.push("s", Column::Str(vec!["".into()]));
        let mut text = String::new();
        write_table(&one, false, |s| {
            text.push_str(s);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(text, "s\n\"\"\n");
    }
}
