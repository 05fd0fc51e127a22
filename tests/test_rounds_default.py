"""A reproduction's count of rounds not done (`rounds_not_done`) reads an
app's default number of queries or blocks where the core states it, the
scenario schema's `x-default`, not a copy of its value."""

from __future__ import annotations

import json

import dcnsim
import pytest
from conftest import needs_core, small_pa
from dcnsim import _core
from dcnsim.experiments.framework import app_default, rounds_not_done

REAL_SCHEMA = _core.schema()


@pytest.fixture
def fresh_defaults():
    app_default.cache_clear()
    yield
    app_default.cache_clear()


def _schema_with(kind: str, key: str, value: str) -> str:
    schema = json.loads(REAL_SCHEMA)
    for d in schema["$defs"].values():
        props = d.get("properties", {})
        if props.get("kind", {}).get("const") == kind:
            props[key]["x-default"] = value
    return json.dumps(schema)


def _point(tmp_path, apps, table: str, rows: int):
    d = tmp_path / "p"
    d.mkdir()
    (d / "scenario.json").write_text(json.dumps({"apps": apps}))
    (d / f"{table}.csv").write_text("x\n" + "".join(f"{i}\n" for i in range(rows)))
    return d


@pytest.mark.parametrize("kind, table", [("partition_aggregate", "queries"), ("sync_reads", "blocks")])
def test_an_app_without_the_key_counts_the_schemas_default(tmp_path, monkeypatch, fresh_defaults, kind, table):
    monkeypatch.setattr(_core, "schema", lambda: _schema_with(kind, table, "7"))
    d = _point(tmp_path, [{"kind": kind}, {"kind": kind, table: 3}, {"kind": "bulk"}], table, 4)
    # asked for 7 (the default) + 3, 4 done
    assert rounds_not_done(d, table) == 6.0


@needs_core
def test_the_schemas_default_is_what_the_core_runs(tmp_path):
    sc = small_pa()
    del sc["apps"][0]["queries"]
    sc["stop"] = "10s"
    r = dcnsim.run(sc)
    assert r.summary["apps_unfinished"] == 0
    assert len(r.queries) == app_default("partition_aggregate", "queries")
    r.write(tmp_path / "p")
    assert rounds_not_done(tmp_path / "p", "queries") == 0.0
