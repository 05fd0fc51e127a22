"""The core writes a run's tables as CSV (`_core.write_csv`): the bytes
pandas' `to_csv(index=False, lineterminator="\\n")` writes for the same
columns, floats as Python's repr, text quoted as Python's csv quotes it,
and without importing pandas however large the table."""

from __future__ import annotations

import array
import io
import json
import math
import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import needs_core
from dcnsim import _core
from dcnsim.result import PLAIN_CSV_CELLS, _csv_quotes_cr, _write_csv
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = needs_core


def pandas_csv(cols: dict, bools=()) -> str:
    df = pd.DataFrame({k: ([bool(x) for x in v] if k in bools else list(v)) for k, v in cols.items()})
    buf = io.StringIO()
    _write_csv(df, buf)
    return buf.getvalue()


def core_csv(cols: dict, bools=()) -> str:
    buf = io.StringIO()
    assert _core.write_csv(buf, cols, list(bools), _csv_quotes_cr())
    return buf.getvalue()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(width=64), max_size=50))
def test_floats_are_written_as_python_reprs_them(xs):
    assert _core.float_reprs(xs) == ["" if math.isnan(x) else repr(x) for x in xs]


def test_floats_at_the_edges_of_positional_notation():
    xs = [0.0, -0.0, 1e-4, 1e-5, 9.999e-5, 1e15, 1e16, 9999999999999998.0, 1e16 + 2, 5e-324, 1.7976931348623157e308,
          0.1 + 0.2, 123456789.123456789, -math.inf, math.inf, math.nan]
    assert _core.float_reprs(xs) == ["" if math.isnan(x) else repr(x) for x in xs]


def _shortest_digits(x: float) -> str:
    return repr(abs(x)).split("e")[0].replace(".", "").lstrip("0").rstrip("0")


def _halfway(x: float) -> bool:
    # exactly between two shortest candidates: its exact decimal has one
    # digit more than repr's shortest, a 5
    from decimal import Decimal

    d = Decimal(abs(x)).normalize().as_tuple().digits
    return len(d) == len(_shortest_digits(x)) + 1 and d[-1] == 5


def test_floats_exactly_halfway_take_pythons_even_digit():
    # 562949953421312.25 is 562949953421312.2 in Python (round half even,
    # Gay's dtoa); Rust's own shortest text ends in 3. About half of these
    # 201 points differ between the two without the core's correction.
    grid = [math.ldexp(2**52 + k, e) for e in range(-80, 80) for k in range(200)]
    halfway = [x for x in grid if _halfway(x)] + [-562949953421312.2]
    assert len(halfway) > 100 and 562949953421312.2 in halfway
    assert _core.float_reprs(halfway) == [repr(x) for x in halfway]


def test_floats_with_short_exact_expansions():
    import random

    rng = random.Random(7)
    xs = [math.copysign(math.ldexp(rng.getrandbits(rng.randint(1, 53)) | 1, rng.randint(-60, 60)),
                        rng.choice((1.0, -1.0))) for _ in range(50_000)]
    assert _core.float_reprs(xs) == [repr(x) for x in xs]


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)  # no lone surrogates: not UTF-8


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TEXT, st.integers(-2**63, 2**63 - 1), st.floats(width=64), st.booleans()),
                min_size=1, max_size=20))
def test_every_kind_of_column_as_pandas_writes_it(rows):
    s, n, x, b = (list(c) for c in zip(*rows))
    cols = {"s": s, "n": array.array("q", n), "x": array.array("d", x), "b": array.array("B", map(int, b)),
            "count": array.array("B", map(int, b))}  # 0/1 bytes not named bool: numbers
    assert core_csv(cols, ["b"]) == pandas_csv(cols, ["b"])


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=10))
def test_a_one_column_table_quotes_an_empty_field(s):
    # a lone empty field would read back as an empty line: Python's csv quotes it
    assert core_csv({"label": s}) == pandas_csv({"label": s})


def test_unsigned_and_odd_text():
    cols = {"u": array.array("Q", [0, 2**64 - 1, 7]), "s": ["a,b", 'say "hi"', "line\nbreak"],
            "t": ["cr\rhere", "", " pad "]}
    assert core_csv(cols) == pandas_csv(cols)


def test_columns_the_core_does_not_read_are_left_to_the_caller():
    buf = io.StringIO()
    for cols in ({"n": [1, 2, 3]}, {"s": ["a", None]}, {"a": array.array("q", [1, 2]), "b": array.array("q", [1])},
                 {"f": array.array("f", [1.0])}):
        assert not _core.write_csv(buf, cols, [], False)
    assert buf.getvalue() == ""


def many_flows_doc(n: int) -> dict:
    return {"name": "many-flows", "seed": 1, "stop": "50ms",
            "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us", "buffer": "1MB"},
            "apps": [{"kind": "bulk", "src": 1 + i % 2, "dst": 0, "size": "2KB"} for i in range(n)]}


# Writes a run's tables in a fresh interpreter, then reports what got loaded.
PROBE = """
import json, sys
import dcnsim
r = dcnsim.run(sys.argv[1])
r.write(sys.argv[2])
print(json.dumps({"flows": r.tables.rows("flows"), "cols": len(r.tables.core_columns("flows")),
                  "heavy": sorted(m for m in sys.modules if m.split('.')[0] in ("numpy", "pandas", "pyarrow"))}))
"""


def test_a_large_table_is_written_without_pandas_and_as_pandas_writes_it(tmp_path):
    doc = many_flows_doc(4000)
    (tmp_path / "many.json").write_text(json.dumps(doc))
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "many.json"), str(out)], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["flows"] * got["cols"] > PLAIN_CSV_CELLS  # past what the standard library's writer took
    assert got["heavy"] == []
    import dcnsim

    r = dcnsim.run(doc)
    for name in r.tables:
        assert (out / f"{name}.csv").read_text() == pandas_csv_of(r, name), name


def pandas_csv_of(r, name: str) -> str:
    buf = io.StringIO()
    _write_csv(r.tables[name], buf)
    return buf.getvalue()


@pytest.mark.parametrize("threads", [1, 2])
def test_the_tables_of_a_fabric_run_as_pandas_writes_them(tmp_path, threads):
    import dcnsim

    r = dcnsim.run({"seed": 3, "stop": "2ms", "threads": threads,
                    "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100KB",
                                 "ecn_k": "20pkt"},
                    "tcp": {"cc": "dctcp"},
                    "apps": [{"kind": "poisson", "load": 0.5, "cdf": "websearch", "duration": "2ms"}]})
    r.write(tmp_path)
    for name in r.tables:
        assert (tmp_path / f"{name}.csv").read_text() == pandas_csv_of(r, name), name
