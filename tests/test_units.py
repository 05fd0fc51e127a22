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
    unit = draw(st.sampled_from(sorted(units)))
    space = draw(st.sampled_from(["", " "]))
    case = draw(st.sampled_from([str, str.lower, str.upper]))
    return unit, space + case(unit)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_values_are_exact_decimals_rounded_half_up(data):
    (num, value) = data.draw(decimals())
    unit, ut = unit_text(data.draw, TIME)
    ps = half_up(value * TIME[unit])
    if ps >= 2**64:
        with pytest.raises(UnitError, match="too large"):
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
    if max(b, d) < 2**64:
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
    st.from_regex(r"[-+]?[0-9]{0,25}(\.[0-9]{0,4})?([eE][-+]?[0-9]{1,3})? ?(ps|ns|us|µs|ms|s|Gbps|Mbps|KB|B|pkt|x)?",
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
