"""docs/python.md says what the code does: its examples run, the names it
gives exist, its tables are complete (audit 27, F6, F8-F10, F14-F16)."""

from __future__ import annotations

import dataclasses
import importlib
import re

import dcnsim
from conftest import ROOT, needs_core

DOC = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = DOC.index(title)
    nxt = DOC.find("\n## ", start + len(title))
    return DOC[start:nxt if nxt >= 0 else len(DOC)]


def test_the_builder_example_runs_as_written(monkeypatch):
    code = re.search(r"```python\n(.*?)```", section("## Building scenarios in Python"), re.S).group(1)
    ran = []
    monkeypatch.setattr(dcnsim, "run", lambda *a, **kw: ran.append((a, kw)))
    exec(compile(code, "docs/python.md", "exec"), {})
    assert ran and ran[0][1] == {"seed": 3}


def test_every_experiments_name_the_docs_give_exists():
    names = set(re.findall(r"dcnsim\.experiments(?:\.[A-Za-z_][A-Za-z0-9_]*)+", DOC))
    assert names
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts), 1, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            break


def test_the_core_contract_names_every_function_with_its_signature():
    from dcnsim import _core

    contract = section("## The `_core` contract")
    stub = (ROOT / "python" / "dcnsim" / "_core.pyi").read_text()
    for fn in re.findall(r"^def (\w+)\(", stub, re.M):
        if fn.startswith("parse_"):
            assert fn.removeprefix("parse_") in contract, fn
        else:
            assert f"`{fn}(" in contract, fn
        assert hasattr(_core, fn)
    assert "validate(scenario_json) -> list[tuple[str, str]]" in contract
    assert "numpy array}}" not in contract and '"timing": {"wall_s": float}' in contract
    raw = _core.validate('{"topology": {}}')
    assert raw and all(isinstance(p, tuple) and len(p) == 2 for p in raw)


def test_units_are_documented_as_the_floats_they_are():
    from dcnsim.units import parse_size

    s = parse_size("100KB")
    assert (s.binary, s.decimal) == (102400.0, 100000.0) and type(s.binary) is float
    assert "Size(binary=102400.0, decimal=100000.0" in DOC
    assert parse_size("0.1KB").binary == 102.0 and '`parse_size("0.1KB").binary` is 102.0' in DOC


def test_the_builder_table_names_every_argument():
    from dcnsim import scenario as sc

    rows = re.findall(r"^\| `(\w+)\(([^)]*)\)", section("## Building scenarios in Python"), re.M)
    table = {name: [a.strip().split("=")[0] for a in args.split(",")] for name, args in rows}
    # Custom's row names Node and Link too
    custom = re.search(r"`Node\(([^)]*)\)`, `Link\(([^)]*)\)`", DOC)
    table["Node"] = [a.strip().split("=")[0] for a in custom.group(1).split(",")]
    table["Link"] = [a.strip().split("=")[0] for a in custom.group(2).split(",")]
    builders = [getattr(sc, n) for n in sc.__all__ if dataclasses.is_dataclass(getattr(sc, n))]
    builders += [sc.Failure, sc.Pfc]
    for b in builders:
        fields = [f.name for f in dataclasses.fields(b) if f.name != "extra"]
        if b is sc.Tcp:
            assert "limited_transmit" in table["Tcp"] and "dataclasses.fields(dcnsim.Tcp)" in DOC
            continue
        assert table[b.__name__] == fields, b.__name__
    assert '"flowlet"' in section("## Building scenarios in Python")


def test_every_verdict_is_documented():
    from dcnsim.experiments.paper import VERDICTS

    for v in VERDICTS:
        assert f"`{v}`" in re.sub(r"\s+", " ", DOC), v


def test_unfinished_rounds_are_in_no_table_row_and_the_docs_say_where_they_are():
    r = dcnsim.run(dcnsim.Scenario(topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="10us", buffer="32KB"),
                                   apps=dcnsim.SyncReads(client=0, servers="1-2", sru="64KB", blocks=5),
                                   stop="300us"))
    assert r.summary["apps_unfinished"] == 1 and len(r.blocks) < 5
    assert any(w.startswith("apps: 1 app(s) had not finished") for w in r.warnings)
    text = re.sub(r"\s+", " ", DOC)
    assert "hold **completed rounds only**" in text and 'summary["apps_unfinished"]' in text
    model = re.sub(r"\s+", " ", (ROOT / "docs" / "model.md").read_text(encoding="utf-8"))
    assert "one row per *completed* round" in model


@needs_core
def test_the_tables_accessors_return_what_the_docs_say():
    """`tables.rows(name)` was listed beside `columns` and `core_columns`
    with nothing said of it, so it read as the rows themselves; it is the
    table's number of rows. Each accessor's words in the Result table
    match what it returns."""
    import numpy as np

    row = next(ln for ln in DOC.splitlines() if ln.startswith("| `tables` |"))
    assert "`tables.rows(name)`: its number of rows, an `int`" in row
    assert "`tables.columns(name)`: read-only numpy arrays" in row and "`tables.core_columns(name)`: the core's own" in row
    r = dcnsim.run({"topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us", "buffer": "100KB"},
                    "apps": [{"kind": "bulk", "src": s, "dst": 0, "size": "10KB"} for s in (1, 2)], "stop": "10ms"})
    n = r.tables.rows("flows")
    assert isinstance(n, int) and n == 2
    assert all(len(c) == n for c in r.tables.core_columns("flows").values())
    # numpy arrays also once the DataFrame exists (reading `r.flows` made
    # `columns` hand out pandas Series, label-indexed, instead)
    assert len(r.flows) == n == r.tables.rows("flows")
    assert all(isinstance(c, np.ndarray) and len(c) == n for c in r.tables.columns("flows").values())


@needs_core
def test_the_tables_columns_are_read_only_before_and_after_the_dataframe():
    """`tables.columns(name)` handed out writable views of the core's
    columns until `result.flows` was read, read-only arrays after: an
    in-place `cols["fct_s"] *= 1e3` changed the result's DataFrame and the
    flows.csv `write` wrote, or raised, by the order of reads. Both are
    read-only, and the result's tables are unchanged."""
    import numpy as np
    import pytest

    doc = {"topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us", "buffer": "100KB"},
           "apps": [{"kind": "bulk", "src": s, "dst": 0, "size": "10KB"} for s in (1, 2)], "stop": "10ms"}
    for flows_first in (False, True):
        r = dcnsim.run(doc)
        if flows_first:
            assert len(r.flows) == 2  # builds the DataFrame
        cols = r.tables.columns("flows")
        before = np.array(cols["fct_s"])
        with pytest.raises(ValueError, match="read-only"):
            cols["fct_s"] *= 1e3
        assert all(not c.flags.writeable for c in cols.values())
        assert list(r.flows["fct_s"]) == list(before) == list(r.tables.columns("flows")["fct_s"])
        r.flows.loc[0, "fct_s"] = 9.0  # the DataFrame itself stays editable
        assert r.flows["fct_s"].iloc[0] == 9.0
