//! Unit strings → base units.
//!
//! * time  (`"50us"`, `"1.5ms"`, `"2s"`, `"200ns"`, `"10ps"`) → [`SimTime`] (integer ps)
//! * rate  (`"1Gbps"`, `"100Mbps"`, `"500Kbps"`, `"1e9bps"`, `"10Gbit/s"`; decimal prefixes) → bit/s
//! * size  (`"32KB"` = 32768, `"1.5MB"`, `"1448B"`, `"32KiB"`, or a JSON integer) → bytes
//! * limit (a size, or `"100pkt"`) → [`Limit`]
//!
//! Numbers are parsed exactly as decimals (no floating point), so `"1.5ms"`
//! is exactly 1 500 000 000 ps. A value that is not a whole number of base
//! units (`"0.1KB"` = 102.4 B) is rounded to the nearest unit (halves up).
//! Prefixes (`k`/`K`, `m`/`M`, …) and the words `bit`/`byte` are read in any
//! case, but the letter `b` is bits and `B` bytes (as iperf and ns-3 read
//! them): a size in bits (`"32Kb"`) or a rate in bytes (`"1GBps"`) is an
//! error that gives both readings, never a value 8× off. Whitespace between
//! number and unit is allowed. Every error is a complete sentence fragment
//! that names what was expected and what was given, ready to be prefixed
//! with a field path.

use crate::config::Limit;
use crate::sim::time::SimTime;
use crate::text::excerpt;
use serde_json::Value;

const TIME_HINT: &str = "a time with a unit like '50us'";
const RATE_HINT: &str = "a rate like '1Gbps'";
const SIZE_HINT: &str = "a size like '32KB' or an integer number of bytes";
const LIMIT_HINT: &str = "a size like '32KB' or a packet count like '100pkt'";

/// (suffix in lower case, multiplier numerator) — the value is multiplied by it.
const TIME_UNITS: &[(&str, u128)] = &[
    ("ps", 1),
    ("ns", 1_000),
    ("us", 1_000_000),
    ("µs", 1_000_000),
    ("μs", 1_000_000),
    ("ms", 1_000_000_000),
    ("s", 1_000_000_000_000),
];

const PKT_UNITS: &[(&str, u128)] = &[("pkt", 1), ("pkts", 1), ("packets", 1)];

const COUNT_HINT: &str = "a count like '20' or '20pkt'";
const COUNT_UNITS: &[(&str, u128)] = &[
    ("pkt", 1),
    ("pkts", 1),
    ("packets", 1),
    ("seg", 1),
    ("segments", 1),
];

/// A parsed non-negative decimal: `mantissa × 10^exp10`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Decimal {
    mantissa: u128,
    exp10: i64,
}

/// Most significant digits kept; further digits cannot change a u64 result
/// by more than rounding.
const MAX_DIGITS: u32 = 20;

/// Split `s` into a decimal number and the unit text after it.
/// Returns `Err(NumErr)` when there is no number at the start.
enum NumErr {
    NoNumber,
    Negative,
}

fn split_number(s: &str) -> Result<(Decimal, &str), NumErr> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    let mut mantissa: u128 = 0;
    let mut exp10: i64 = 0;
    let mut digits = 0u32; // significant digits kept
    let mut any_digit = false;
    while i < b.len() && b[i].is_ascii_digit() {
        any_digit = true;
        let d = (b[i] - b'0') as u128;
        if digits < MAX_DIGITS {
            if mantissa != 0 || d != 0 {
                digits += 1;
            }
            mantissa = mantissa * 10 + d;
        } else {
            exp10 += 1;
        }
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            any_digit = true;
            let d = (b[i] - b'0') as u128;
            if digits < MAX_DIGITS {
                if mantissa != 0 || d != 0 {
                    digits += 1;
                }
                mantissa = mantissa * 10 + d;
                exp10 -= 1;
            }
            i += 1;
        }
    }
    if !any_digit {
        return Err(NumErr::NoNumber);
    }
    // Exponent: only if 'e' is followed by an optional sign and a digit.
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        let mut eneg = false;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            eneg = b[j] == b'-';
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            let mut e: i64 = 0;
            while j < b.len() && b[j].is_ascii_digit() {
                e = (e * 10 + (b[j] - b'0') as i64).min(1_000_000);
                j += 1;
            }
            exp10 += if eneg { -e } else { e };
            i = j;
        }
    }
    if negative && mantissa != 0 {
        return Err(NumErr::Negative);
    }
    Ok((Decimal { mantissa, exp10 }, &s[i..]))
}

fn pow10(e: u32) -> Option<u128> {
    10u128.checked_pow(e)
}

/// `d × mult`, rounded to the nearest integer (halves up); `None` if it does not fit a u64.
fn scale(d: Decimal, mult: u128) -> Option<u64> {
    if d.mantissa == 0 {
        return Some(0);
    }
    let m = d.mantissa.checked_mul(mult)?;
    let v = if d.exp10 >= 0 {
        let p = pow10(u32::try_from(d.exp10).ok()?)?;
        m.checked_mul(p)?
    } else {
        let neg = d.exp10.unsigned_abs();
        if neg > 38 {
            0
        } else {
            let p = pow10(neg as u32)?;
            let q = m / p;
            let r = m % p;
            if r * 2 >= p {
                q + 1
            } else {
                q
            }
        }
    };
    u64::try_from(v).ok()
}

fn lookup(units: &[(&str, u128)], unit: &str) -> Option<u128> {
    let u = unit.to_lowercase();
    units.iter().find(|(s, _)| *s == u).map(|(_, m)| *m)
}

/// What a unit's letters measure.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Measure {
    Bits,
    Bytes,
}

/// How a unit reads for the field's kind.
enum Unit {
    /// The value is the number × this.
    Mult(u128),
    /// The right kind of quantity in the other measure: bits for a size, or
    /// bytes per second for a rate. `right` is the same unit spelled in the
    /// field's measure (`"KB"`, `"Gbps"`).
    Mismatch {
        given: Measure,
        right: String,
    },
    Unknown,
}

/// Split a decimal or binary prefix off a unit: `"KiB"` → `(1, true, "B")`,
/// `"Gbps"` → `(3, false, "bps")`, `"B"` → `(0, false, "B")`. Prefix letters
/// are read in any case (`k` and `K` are both kilo; `m` is mega, as no size
/// or rate is a thousandth).
fn split_prefix(unit: &str) -> (u32, bool, &str) {
    let power = match unit.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('k') => 1,
        Some('m') => 2,
        Some('g') => 3,
        Some('t') => 4,
        _ => return (0, false, unit),
    };
    let rest = &unit[1..];
    match rest.strip_prefix(['i', 'I']) {
        Some(body) if !body.is_empty() => (power, true, body),
        _ if !rest.is_empty() => (power, false, rest),
        _ => (0, false, unit),
    }
}

/// The prefix as written in a suggestion: `K`, `Mi`, ….
fn prefix_text(power: u32, binary: bool) -> String {
    let p = ["", "K", "M", "G", "T"][power as usize];
    if binary && power > 0 {
        format!("{p}i")
    } else {
        p.to_string()
    }
}

/// `b`/`bit`/`bits` are bits, `B`/`byte`/`bytes` bytes; the single letter's
/// case decides, the words' case does not.
fn size_measure(body: &str) -> Option<Measure> {
    match body {
        "b" => return Some(Measure::Bits),
        "B" => return Some(Measure::Bytes),
        _ => {}
    }
    match body.to_lowercase().as_str() {
        "bit" | "bits" => Some(Measure::Bits),
        "byte" | "bytes" => Some(Measure::Bytes),
        _ => None,
    }
}

/// `bps`, `b/s`, `bit/s`, `bits/s` and tc's `bit` are bits per second;
/// `Bps`, `B/s`, `byte/s`, `bytes/s` bytes per second.
fn rate_measure(body: &str) -> Option<Measure> {
    let lower = body.to_lowercase();
    match lower.as_str() {
        "bps" | "b/s" => Some(if body.starts_with('B') {
            Measure::Bytes
        } else {
            Measure::Bits
        }),
        "bit" | "bit/s" | "bits/s" => Some(Measure::Bits),
        "byte/s" | "bytes/s" => Some(Measure::Bytes),
        _ => None,
    }
}

/// A size unit; `kilo` is 1024 (scenario files) or 1000 (`parse_size_si`);
/// `Ki` … are 1024 either way.
fn size_unit(unit: &str, kilo: u128) -> Unit {
    let (power, binary, body) = split_prefix(unit);
    match size_measure(body) {
        Some(Measure::Bytes) => Unit::Mult(if binary { 1024 } else { kilo }.pow(power)),
        Some(Measure::Bits) => Unit::Mismatch {
            given: Measure::Bits,
            right: format!("{}B", prefix_text(power, binary)),
        },
        None => Unit::Unknown,
    }
}

/// A rate unit, decimal prefixes only (`Kibps` is unknown).
fn rate_unit(unit: &str) -> Unit {
    let (power, binary, body) = split_prefix(unit);
    if binary {
        return Unit::Unknown;
    }
    match rate_measure(body) {
        Some(Measure::Bits) => Unit::Mult(1000u128.pow(power)),
        Some(Measure::Bytes) => Unit::Mismatch {
            given: Measure::Bytes,
            right: format!("{}bps", prefix_text(power, false)),
        },
        None => Unit::Unknown,
    }
}

fn table(units: &'static [(&'static str, u128)]) -> impl Fn(&str) -> Unit {
    move |u| lookup(units, u).map_or(Unit::Unknown, Unit::Mult)
}

/// A decimal written out exactly (`4`, `0.1875`, `1.2e30` for extremes).
fn decimal_text(d: Decimal) -> String {
    let (mut m, mut e) = (d.mantissa, d.exp10);
    while m != 0 && m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    let digits = m.to_string();
    if m == 0 || e == 0 {
        return digits;
    }
    if !(-30..=20).contains(&e) {
        return format!("{digits}e{e}");
    }
    if e > 0 {
        return format!("{digits}{}", "0".repeat(e as usize));
    }
    let point = digits.len() as i64 + e;
    if point > 0 {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    } else {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    }
}

/// The error for a size given in bits or a rate given in bytes: both readings,
/// spelled in the field's measure.
fn mismatch(s: &str, num: Decimal, given: Measure, right: &str) -> String {
    let as_typed = format!("{}{right}", decimal_text(num));
    let Some(m) = num
        .mantissa
        .checked_mul(if given == Measure::Bits { 125 } else { 8 })
    else {
        return format!("'{}' is too large", excerpt(s));
    };
    let exp10 = num.exp10 - if given == Measure::Bits { 3 } else { 0 };
    let converted = format!("{}{right}", decimal_text(Decimal { mantissa: m, exp10 }));
    match given {
        Measure::Bits => format!(
            "'{}' is in bits (b), but a size is read in bytes (B): as bits it is \
             '{converted}', as bytes '{as_typed}'; write the one you mean",
            excerpt(s)
        ),
        Measure::Bytes => format!(
            "'{}' is in bytes per second (B), but a rate is read in bits per second \
             (b): as bytes it is '{converted}', as bits '{as_typed}'; write the one you mean",
            excerpt(s)
        ),
    }
}

/// Parse `s` as number + a unit `unit` knows. `hint` names the expected kind.
fn parse_with(
    s: &str,
    unit: impl Fn(&str) -> Unit,
    hint: &str,
    allow_bare: bool,
) -> Result<u64, String> {
    let t = s.trim();
    let bad = || format!("expected {hint}, got '{}'", excerpt(s));
    let (num, rest) = match split_number(t) {
        Ok(x) => x,
        Err(NumErr::NoNumber) => return Err(bad()),
        Err(NumErr::Negative) => {
            return Err(format!("must not be negative, got '{}'", excerpt(s)));
        }
    };
    let text = rest.trim();
    let mult = if text.is_empty() {
        if allow_bare {
            1
        } else {
            return Err(bad());
        }
    } else {
        match unit(text) {
            Unit::Mult(m) => m,
            Unit::Mismatch { given, right } => return Err(mismatch(s, num, given, &right)),
            Unit::Unknown => return Err(bad()),
        }
    };
    let v = scale(num, mult).ok_or_else(|| format!("'{}' is too large", excerpt(s)))?;
    // rounding to the unit is documented; rounding something to nothing is
    // a different value (an `ecn_k` of 0.4pkt would mark every packet)
    if v == 0 && num.mantissa != 0 {
        return Err(format!(
            "'{}' rounds to 0 (values are whole {}): give a larger value (or 0, where the field takes 0 for none)",
            excerpt(s),
            if text.is_empty() {
                "units"
            } else {
                "steps of the smallest unit"
            }
        ));
    }
    Ok(v)
}

/// A time such as `"50us"`; a bare number is an error.
pub fn parse_time(s: &str) -> Result<SimTime, String> {
    parse_with(s, table(TIME_UNITS), TIME_HINT, false).map(SimTime::from_ps)
}

/// A rate such as `"1Gbps"` (decimal prefixes), in bit/s; must be > 0.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let v = parse_with(s, rate_unit, RATE_HINT, false)?;
    if v == 0 {
        return Err(format!("must be > 0, got '{}'", excerpt(s)));
    }
    Ok(v)
}

/// A size such as `"32KB"` (KB = 1024 B); a string without unit is bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    parse_with(s, |u| size_unit(u, 1024), SIZE_HINT, true)
}

/// A size with decimal prefixes (`"100KB"` = 100 000 B; `KiB` is 1024 B):
/// the other reading of a paper's buffer size (the models' command line).
pub fn parse_size_si(s: &str) -> Result<u64, String> {
    parse_with(s, |u| size_unit(u, 1000), SIZE_HINT, true)
}

/// A count: a bare number or one with `pkt`/`pkts`/`packets`/`seg`/`segments`.
pub fn parse_count(s: &str) -> Result<u64, String> {
    parse_with(s, table(COUNT_UNITS), COUNT_HINT, true)
}

/// A size, or a packet count such as `"100pkt"`.
pub fn parse_limit(s: &str) -> Result<Limit, String> {
    let t = s.trim();
    if let Ok((_, rest)) = split_number(t) {
        if lookup(PKT_UNITS, rest.trim()).is_some() {
            return parse_with(s, table(PKT_UNITS), LIMIT_HINT, false).map(Limit::Packets);
        }
    }
    parse_with(s, |u| size_unit(u, 1024), LIMIT_HINT, true).map(Limit::Bytes)
}

/// Describe a JSON value's type for error messages ("a string", "an integer", …).
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a float",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

/// Short rendering of a JSON value for error messages.
pub fn json_excerpt(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", excerpt(s)),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "a table".to_string(),
        other => excerpt(&other.to_string()),
    }
}

/// A JSON non-negative integer, for sizes/limits given as plain numbers.
fn json_bytes(v: &Value, hint: &str) -> Result<u64, String> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(u)
            } else if n.as_i64().is_some_and(|i| i < 0) {
                Err(format!("must not be negative, got {n}"))
            } else {
                Err(format!("expected {hint}, got {}", excerpt(&n.to_string())))
            }
        }
        other => Err(format!("expected {hint}, got {}", json_excerpt(other))),
    }
}

/// A time from JSON: only strings with a unit are accepted.
pub fn time_from_json(v: &Value) -> Result<SimTime, String> {
    match v {
        Value::String(s) => parse_time(s),
        other => Err(format!("expected {TIME_HINT}, got {}", json_excerpt(other))),
    }
}

/// A rate from JSON: only strings with a unit are accepted.
pub fn rate_from_json(v: &Value) -> Result<u64, String> {
    match v {
        Value::String(s) => parse_rate(s),
        other => Err(format!("expected {RATE_HINT}, got {}", json_excerpt(other))),
    }
}

/// A size from JSON: a unit string or an integer number of bytes.
pub fn size_from_json(v: &Value) -> Result<u64, String> {
    match v {
        Value::String(s) => parse_size(s),
        other => json_bytes(other, SIZE_HINT),
    }
}

/// A limit from JSON: a size (string or integer bytes) or `"Npkt"`.
pub fn limit_from_json(v: &Value) -> Result<Limit, String> {
    match v {
        Value::String(s) => parse_limit(s),
        other => json_bytes(other, LIMIT_HINT).map(Limit::Bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times() {
        assert_eq!(parse_time("50us"), Ok(SimTime::from_us(50)));
        assert_eq!(parse_time("1.5ms"), Ok(SimTime::from_us(1500)));
        assert_eq!(parse_time("2s"), Ok(SimTime::from_secs(2)));
        assert_eq!(parse_time("200ns"), Ok(SimTime::from_ns(200)));
        assert_eq!(parse_time("10ps"), Ok(SimTime::from_ps(10)));
        assert_eq!(parse_time("0s"), Ok(SimTime::ZERO));
        assert_eq!(parse_time(" 25 us "), Ok(SimTime::from_us(25)));
        assert_eq!(parse_time("25µs"), Ok(SimTime::from_us(25)));
        assert_eq!(parse_time("1e-3s"), Ok(SimTime::from_ms(1)));
        assert_eq!(parse_time("0.000001us"), Ok(SimTime::from_ps(1)));
        assert_eq!(parse_time(".5ms"), Ok(SimTime::from_us(500)));
        assert_eq!(parse_time("5MS"), Ok(SimTime::from_ms(5)));
    }

    #[test]
    fn time_errors() {
        let e = parse_time("50").unwrap_err();
        assert!(e.contains("expected a time with a unit like '50us'"), "{e}");
        assert!(parse_time("-5us").unwrap_err().contains("negative"));
        assert!(parse_time("NaN").unwrap_err().contains("expected a time"));
        assert!(parse_time("nanus").is_err());
        assert!(parse_time("inf s").is_err());
        assert!(parse_time("5 parsecs").is_err());
        assert!(parse_time("").is_err());
        assert!(parse_time("1e30s").unwrap_err().contains("too large"));
        assert!(parse_time("1e999999999999s")
            .unwrap_err()
            .contains("too large"));
        let e = time_from_json(&json!(50)).unwrap_err();
        assert_eq!(e, "expected a time with a unit like '50us', got 50");
        let e = parse_time("10MB").unwrap_err();
        assert_eq!(e, "expected a time with a unit like '50us', got '10MB'");
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("10Gbps"), Ok(10_000_000_000));
        assert_eq!(parse_rate("100Mbps"), Ok(100_000_000));
        assert_eq!(parse_rate("500Kbps"), Ok(500_000));
        assert_eq!(parse_rate("1e9bps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("2.5Gbps"), Ok(2_500_000_000));
        assert_eq!(parse_rate("100gbps"), Ok(100_000_000_000));
    }

    #[test]
    fn rate_errors() {
        assert_eq!(
            parse_rate("10MB").unwrap_err(),
            "expected a rate like '1Gbps', got '10MB'"
        );
        assert!(parse_rate("0Gbps").unwrap_err().contains("must be > 0"));
        assert!(parse_rate("-1Gbps").unwrap_err().contains("negative"));
        assert!(parse_rate("1000000000")
            .unwrap_err()
            .contains("expected a rate"));
        assert!(rate_from_json(&json!(1e9)).is_err());
    }

    #[test]
    fn excerpts_are_one_line() {
        assert_eq!(super::excerpt("a\nb\t\u{0}"), "a\\nb\\t\\0");
        assert_eq!(
            super::excerpt(&"x".repeat(50)),
            format!("{}…", "x".repeat(40))
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("32KB"), Ok(32768));
        assert_eq!(parse_size("1.5MB"), Ok(1_572_864));
        assert_eq!(parse_size("1448B"), Ok(1448));
        assert_eq!(parse_size("32KiB"), Ok(32768));
        assert_eq!(parse_size("1GB"), Ok(1 << 30));
        assert_eq!(parse_size("256KB"), Ok(262_144));
        assert_eq!(parse_size("64B"), Ok(64));
        assert_eq!(parse_size("1460"), Ok(1460));
        assert_eq!(parse_size("0.1KB"), Ok(102)); // 102.4 rounds to 102
        assert_eq!(size_from_json(&json!(1460)), Ok(1460));
        assert!(size_from_json(&json!(-1)).unwrap_err().contains("negative"));
        assert!(size_from_json(&json!(1.5)).is_err());
        assert!(size_from_json(&json!(true)).is_err());
        assert_eq!(
            parse_size("10Gbps").unwrap_err(),
            "expected a size like '32KB' or an integer number of bytes, got '10Gbps'"
        );
    }

    /// The suggestion strings of a bits/bytes mismatch error, in order.
    fn suggestions(e: &str) -> Vec<&str> {
        let tail = e.split(": as ").nth(1).expect(e);
        tail.split('\'').skip(1).step_by(2).take(2).collect()
    }

    #[test]
    fn b_is_bits_and_capital_b_bytes() {
        // Rates: b (any word case) is bits; B is bytes and refused.
        assert_eq!(parse_rate("10Gbit/s"), Ok(10_000_000_000));
        assert_eq!(parse_rate("1gbit"), Ok(1_000_000_000)); // tc's spelling
        assert_eq!(parse_rate("100 Mb/s"), Ok(100_000_000));
        assert_eq!(parse_rate("5kbps"), Ok(5_000));
        let e = parse_rate("1GBps").unwrap_err();
        assert_eq!(
            e,
            "'1GBps' is in bytes per second (B), but a rate is read in bits per second (b): \
             as bytes it is '8Gbps', as bits '1Gbps'; write the one you mean"
        );
        for bytes in ["1GB/s", "2 MBps", "3 bytes/s", "1BPS"] {
            assert!(
                parse_rate(bytes)
                    .unwrap_err()
                    .contains("bytes per second (B)"),
                "{bytes}"
            );
        }
        assert!(parse_rate("1Gibps")
            .unwrap_err()
            .contains("expected a rate"));
        // Sizes: B (and the word byte) is bytes; b and bit are refused.
        assert_eq!(parse_size("100 bytes"), Ok(100));
        assert_eq!(parse_size("32kB"), Ok(32768));
        assert_eq!(parse_size_si("32kB"), Ok(32000));
        let e = parse_size("32Kb").unwrap_err();
        assert_eq!(
            e,
            "'32Kb' is in bits (b), but a size is read in bytes (B): \
             as bits it is '4KB', as bytes '32KB'; write the one you mean"
        );
        assert_eq!(
            suggestions(&parse_size("1.5 mb").unwrap_err()),
            ["0.1875MB", "1.5MB"]
        );
        assert_eq!(
            suggestions(&parse_size("32Kib").unwrap_err()),
            ["4KiB", "32KiB"]
        );
        assert_eq!(
            suggestions(&parse_size("1448b").unwrap_err()),
            ["181B", "1448B"]
        );
        assert!(parse_limit("32Kb").unwrap_err().contains("in bits (b)"));
        assert!(size_from_json(&json!("8 bits"))
            .unwrap_err()
            .contains("'1B'"));
    }

    /// Either reading a mismatch error offers parses, and the two differ by
    /// exactly the 8 bits of a byte.
    #[test]
    fn the_two_readings_parse_and_differ_by_eight() {
        for s in [
            "32Kb",
            "1.5 mb",
            "3Gbit",
            "800b",
            "0.5 Tbits",
            "12 kib",
            "7e3b",
        ] {
            let e = parse_size(s).unwrap_err();
            let [bits, bytes] = suggestions(&e)[..] else {
                panic!("{e}")
            };
            let (bits, bytes) = (parse_size(bits).unwrap(), parse_size(bytes).unwrap());
            assert_eq!(bits * 8, bytes, "{s}: {e}");
        }
        for s in ["1GBps", "2.5 MB/s", "100 bytes/s", "0.125TBps"] {
            let e = parse_rate(s).unwrap_err();
            let [bytes, bits] = suggestions(&e)[..] else {
                panic!("{e}")
            };
            assert_eq!(
                parse_rate(bytes).unwrap(),
                8 * parse_rate(bits).unwrap(),
                "{s}: {e}"
            );
        }
    }

    #[test]
    fn decimals_are_written_exactly() {
        let d = |mantissa, exp10| decimal_text(Decimal { mantissa, exp10 });
        assert_eq!(d(4000, -3), "4");
        assert_eq!(d(1875, -4), "0.1875");
        assert_eq!(d(15, -3), "0.015");
        assert_eq!(d(12, 2), "1200");
        assert_eq!(d(0, 5), "0");
        assert_eq!(d(12, 40), "12e40");
    }

    #[test]
    fn si_sizes_and_counts() {
        assert_eq!(parse_size_si("100KB"), Ok(100_000));
        assert_eq!(parse_size_si("32KiB"), Ok(32768));
        assert_eq!(parse_size_si("1500"), Ok(1500));
        assert_eq!(parse_count("20"), Ok(20));
        assert_eq!(parse_count("20 segments"), Ok(20));
        assert_eq!(
            parse_count("20MB").unwrap_err(),
            "expected a count like '20' or '20pkt', got '20MB'"
        );
    }

    #[test]
    fn limits() {
        assert_eq!(parse_limit("100pkt"), Ok(Limit::Packets(100)));
        assert_eq!(parse_limit("20 pkts"), Ok(Limit::Packets(20)));
        assert_eq!(parse_limit("32KB"), Ok(Limit::Bytes(32768)));
        assert_eq!(limit_from_json(&json!(1000)), Ok(Limit::Bytes(1000)));
        assert!(parse_limit("1.5pkt").is_ok()); // rounds to 2 packets
                                                // but a nonzero value that rounds to nothing is refused
        for s in ["0.4pkt", "0.4B", "0.4"] {
            let e = parse_limit(s).unwrap_err();
            assert!(e.contains("rounds to 0"), "{s}: {e}");
        }
        assert_eq!(parse_limit("0pkt"), Ok(Limit::Packets(0)));
        assert!(parse_time("0.1ps").unwrap_err().contains("rounds to 0"));
        assert!(parse_limit("5us").unwrap_err().contains("packet count"));
    }

    #[test]
    fn rounding_is_half_up() {
        assert_eq!(parse_time("0.5ps"), Ok(SimTime::from_ps(1)));
        // a nonzero value rounding to nothing is refused, not made 0
        assert!(parse_time("0.4ps").unwrap_err().contains("rounds to 0"));
        assert_eq!(parse_time("1.49999ps"), Ok(SimTime::from_ps(1)));
    }

    #[test]
    fn long_and_unicode_input_does_not_panic() {
        let long = "9".repeat(500) + "s";
        assert!(parse_time(&long).is_err());
        let tiny = format!("0.{}1s", "0".repeat(500));
        assert!(parse_time(&tiny).unwrap_err().contains("rounds to 0"));
        assert!(parse_time("é".repeat(100).as_str()).is_err());
        assert!(parse_size("1€").is_err());
        assert_eq!(parse_size("00000000000000000000000000001KB"), Ok(1024));
    }
}
