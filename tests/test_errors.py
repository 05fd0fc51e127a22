"""Scenario problems are structured end to end: the core's
`ScenarioError { path, message }` crosses as (path, message) pairs, and
`dcnsim.ScenarioError.errors` / `dcnsim.validate` give each as a `Problem`
with `.path` and `.message` (and the text "path: reason" it always was)."""

from __future__ import annotations

import json
import pickle

import dcnsim
import pytest
from conftest import cli
from dcnsim import Problem, ScenarioError, _core


def odd_key_doc() -> dict:
    # a key with ": " in it: splitting "path: reason" text would cut the path
    return {"topology": {"kind": "star", "hosts": 2, "rate": "0Gbps", "delay": "1us", "buffer": "10pkt",
                         "odd: key": 1},
            "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB"}]}


def test_core_problems_are_pairs():
    pairs = _core.validate(json.dumps(odd_key_doc()))
    assert ('topology["odd: key"]', "unknown key for topology kind 'star'") in pairs
    assert ("topology.rate", "must be > 0, got '0Gbps'") in pairs
    with pytest.raises(ValueError) as e:
        _core.run(json.dumps(odd_key_doc()))
    assert e.value.problems == pairs  # type: ignore[attr-defined]
    assert all(f"{p}: {m}" in str(e.value) for p, m in pairs)


def test_validate_and_scenario_error_keep_the_structure():
    problems = dcnsim.validate(odd_key_doc())
    assert [p.pair for p in problems] == _core.validate(json.dumps(odd_key_doc()))
    odd = next(p for p in problems if "odd" in p.path)
    assert odd.path == 'topology["odd: key"]' and odd.message == "unknown key for topology kind 'star'"
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(odd_key_doc())
    assert e.value.errors == problems and e.value.pairs == [p.pair for p in problems]
    # still the text it was: "path: reason", one per line in str(error)
    assert str(odd) == 'topology["odd: key"]: unknown key for topology kind \'star\''
    assert str(e.value).splitlines() == [str(p) for p in problems]


def test_python_side_problems_are_structured_too():
    doc = odd_key_doc()
    doc["topology"]["rate"] = float("nan")  # JSON cannot carry it: found before the core
    rate = next(p for p in dcnsim.validate(doc) if p.path == "topology.rate")
    assert rate.message == "nan is not a finite number"
    with pytest.raises(ScenarioError) as e:
        dcnsim.load_scenario("no/such/file.toml")
    assert e.value.errors[0].path == "file"


def test_problems_survive_pickling_and_accept_old_forms():
    e = ScenarioError([Problem("a.b", "c: d"), ("x", "y"), "p: q"])
    assert e.pairs == [("a.b", "c: d"), ("x", "y"), ("p", "q")]
    back = pickle.loads(pickle.dumps(e))
    assert back.pairs == e.pairs and [p.path for p in back.errors] == ["a.b", "x", "p"]


def test_cli_prints_path_and_reason(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(odd_key_doc()))
    r = cli("validate", str(f))
    assert r.returncode == 2
    assert f"{f}: topology.rate: must be > 0, got '0Gbps'" in r.stdout
    assert f"{f}: topology[\"odd: key\"]: unknown key for topology kind 'star'" in r.stdout
