"""One unit parser: `dcnsim.units` (the command line, the models) reads
numbers exactly as the scenario loader does, and says why it rejects one in
the loader's words.

Two laws, checked on generated inputs:

* values: a decimal number with a unit is its exact rational value times the
  unit, rounded to the nearest base unit (picosecond, bit/s, byte), halves up;
* agreement: a text the scenario loader rejects in a field is rejected by
  `dcnsim.units` with the same reason, and a text it accepts is accepted.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from dcnsim import _core
from dcnsim.units import UnitError, parse_count, parse_rate, parse_size, parse_time
from hypothesis import given, settings
from hypothesis import strategies as st

TIME = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "ms": 10**9, "s": 10**12}
RATE = {"bps": 1, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "tbps": 10**12}
SIZE = {"": 1, "B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "KiB": 2**10, "MiB": 2**20}
SIZE_SI = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20}


def half_up(x: Fraction) -> int:
    return int((x * 2 + 1) // 2)


@st.composite
def decimals(draw):
    """(text, exact value): ``12``, ``1.5``, ``.25``, ``3e-2``, ``007.50E+1`` …"""
    whole = draw(st.integers(0, 10**7))
    frac = draw(st.one_of(st.just(""), st.from_regex(r"[0-9]{1,6}", fullmatch=True)))
    exp = draw(st.one_of(st.just(None), st.integers(-6, 4)))
    lead = draw(st.sampled_from(["", "0", "00"]))
    text = lead + str(whole) + ("." + frac if frac else "")
    if whole == 0 and frac and draw(st.booleans()):
        text = "." + frac
    value = Fraction(whole) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
    if exp is not None:
        text += draw(st.sampled_from(["e", "E"])) + (f"{exp:+d}" if draw(st.booleans()) else str(exp))
        value *= Fraction(10) ** exp
    return text, value


def unit_text(draw, units):
    """A unit of ``units`` as a user may write it: prefixes and times in any
    case, but a rate's ``bps`` and a size's ``B`` as they are (b is bits,
    B bytes: the one letter whose case means something)."""
    unit = draw(st.sampled_from(sorted(units)))
    space = draw(st.sampled_from(["", " "]))
    case = draw(st.sampled_from([str, str.lower, str.upper]))
    keep = next((end for end in ("bps", "B") if unit.endswith(end)), "")
    return unit, space + case(unit[: len(unit) - len(keep)]) + keep


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_values_are_exact_decimals_rounded_half_up(data):
    (num, value) = data.draw(decimals())
    unit, ut = unit_text(data.draw, TIME)
    ps = half_up(value * TIME[unit])
    if ps >= 2**64:
        with pytest.raises(UnitError, match="too large"):
            parse_time(num + ut)
    elif ps == 0 and value > 0:
        # a nonzero value that rounds to nothing is refused, never a silent 0
        with pytest.raises(UnitError, match="rounds to 0"):
            parse_time(num + ut)
    else:
        assert _core.parse_time(num + ut) == ps
        assert parse_time(num + ut) == ps / 1e12
    unit, ut = unit_text(data.draw, RATE)
    bps = half_up(value * RATE[unit])
    if 0 < bps < 2**64:
        assert parse_rate(num + ut) == float(bps)
    else:
        with pytest.raises(UnitError):
            parse_rate(num + ut)
    unit, ut = unit_text(data.draw, SIZE)
    b, d = half_up(value * SIZE[unit]), half_up(value * SIZE_SI[unit])
    if value > 0 and min(b, d) == 0 and max(b, d) < 2**64:
        with pytest.raises(UnitError, match="rounds to 0"):
            parse_size(num + ut)
    elif max(b, d) < 2**64:
        s = parse_size(num + ut)
        assert (s.binary, s.decimal, s.prefixed) == (float(b), float(d), b != d)


BASE = {"topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"},
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "10KB"}]}


def loader_reason(path: str, text: str):
    """The scenario loader's reason for rejecting ``text`` at ``path``
    (``topology.delay``, ``apps[0].size``), or None."""
    doc = json.loads(json.dumps(BASE))
    table, key = path.split(".")
    (doc["apps"][0] if table == "apps[0]" else doc[table])[key] = text
    problems = [m for p, m in _core.validate(json.dumps(doc)) if p == path]
    return problems[0] if problems else None


def reason(fn, text: str):
    try:
        fn(text)
    except ValueError as e:  # UnitError, or the core's ValueError
        return str(e)
    return None


#: texts near the grammar: numbers, units, signs, spaces, junk, huge values
near_units = st.one_of(
    st.from_regex(r"[-+]?[0-9]{0,25}(\.[0-9]{0,4})?([eE][-+]?[0-9]{1,3})? ?(ps|ns|us|µs|ms|s|Gbps|Mbps|KB|B|pkt|x|Kb|b|GBps|kbit|MB/s|Gbit/s|bytes)?",
                  fullmatch=True),
    st.text(max_size=12),
)


@settings(max_examples=200, deadline=None)
@given(near_units)
def test_units_and_the_scenario_loader_agree(text):
    assert reason(parse_time, text) == loader_reason("topology.delay", text)
    assert reason(parse_rate, text) == loader_reason("topology.rate", text)
    # sizes and queue limits: the loader adds its own rule (> 0) to the parser's
    for fn, path in ((parse_size, "apps[0].size"), (_core.parse_limit, "topology.buffer")):
        why = reason(fn, text)
        if why is not None:
            assert loader_reason(path, text) == why
        elif loader_reason(path, text) is not None:
            assert loader_reason(path, text).startswith("must be > 0")


def test_errors_name_the_reason():
    assert str(pytest.raises(UnitError, parse_time, "100").value) == \
        "expected a time with a unit like '50us', got '100'"
    assert str(pytest.raises(UnitError, parse_rate, "0Gbps").value) == "must be > 0, got '0Gbps'"
    assert str(pytest.raises(UnitError, parse_size, "-1KB").value) == "must not be negative, got '-1KB'"
    assert str(pytest.raises(UnitError, parse_size, "1e30KB").value) == "'1e30KB' is too large"
    assert "expected a count" in str(pytest.raises(UnitError, parse_count, "20MB").value)
    # the core's own exceptions are plain ValueErrors with the same text
    with pytest.raises(ValueError, match="expected a rate like '1Gbps', got '10MB'"):
        _core.parse_rate("10MB")
    assert _core.parse_limit("100pkt") == (100, "packets") and _core.parse_limit("1KB") == (1024, "bytes")


# ---------------------------------------------------------------- b is bits, B is bytes

PREFIX = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**6), st.sampled_from(sorted(PREFIX)), st.sampled_from(["b", "bit", "bits", "ib"]),
       st.sampled_from([str, str.lower]), st.sampled_from(["", " "]))
def test_a_size_in_bits_is_refused_with_both_readings(n, prefix, bits, case, space):
    """`32Kb` is never silently 32 KB (or 4 KB): the error gives the bits
    reading and the bytes reading, each in bytes, and they differ by the 8
    bits of a byte, for a size field and a queue limit alike."""
    text = f"{n}{space}{case(prefix)}{bits}"
    why = reason(parse_size, text)
    assert why is not None and why.startswith(f"'{text}' is in bits (b)"), why
    as_bits, as_bytes = why.split(": as bits it is ")[1].split("'")[1::2][:2]
    assert parse_size(as_bytes).binary == n * PREFIX[prefix]
    assert parse_size(as_bits).binary * 8 == n * PREFIX[prefix]
    assert loader_reason("topology.buffer", text) == why == loader_reason("apps[0].size", text)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**6), st.sampled_from(["", "k", "K", "M", "G"]), st.sampled_from(["Bps", "B/s", "bytes/s", "BPS"]))
def test_a_rate_in_bytes_is_refused_with_both_readings(n, prefix, body):
    """`1GBps` is never silently 1 Gbps: bytes per second is 8× the bits
    reading, and the error says both, each as a rate in bits."""
    text = f"{n}{prefix}{body}"
    why = reason(parse_rate, text)
    assert why is not None and why.startswith(f"'{text}' is in bytes per second (B)"), why
    as_bytes, as_bits = why.split(": as bytes it is ")[1].split("'")[1::2][:2]
    assert parse_rate(as_bytes) == 8 * parse_rate(as_bits) == 8 * n * 1000 ** " KMG".index(prefix.upper() or " ")
    assert loader_reason("topology.rate", text) == why


def test_bits_and_bytes_spelled_every_accepted_way():
    # rates: bps, b/s, bit/s and tc's bit, any prefix case
    for text in ("10Gbps", "10gbps", "10 Gb/s", "10Gbit/s", "10gbit", "10e9 bps", "10000 Mbps"):
        assert parse_rate(text) == 1e10, text
    # sizes: B and the word byte; k and K are both kilo
    for text in ("32KB", "32kB", "32 KiB", "32768", "32768B", "32768 bytes", "32 Kbytes"):
        assert parse_size(text).binary == 32768, text
    assert parse_size("32kB").decimal == 32000


def test_a_value_of_the_wrong_type_is_a_type_error_naming_it():
    """parse_size(None) raised UnitError "got 'None'", as if None were a
    badly written size; a wrong type is the caller's TypeError, naming the
    type. Numbers (numpy's too) are still read as their text."""
    import numpy as np

    for fn, bad in ((parse_size, None), (parse_time, True), (parse_rate, [1]), (parse_count, {"n": 1})):
        with pytest.raises(TypeError, match=f"got {type(bad).__name__} "):
            fn(bad)
    assert parse_count(np.int64(20)) == 20.0 and parse_size(1500).binary == 1500.0
    with pytest.raises(UnitError):
        parse_time(100)  # a bare number is still a time without its unit
