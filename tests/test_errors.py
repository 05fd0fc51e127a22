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
from dcnsim import Problem, ScenarioError, _core, errors


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
    # infinity where a key takes "inf" as text: said how to write it
    doc["topology"]["rate"] = float("inf")
    rate = next(p for p in dcnsim.validate(doc) if p.path == "topology.rate")
    assert rate.message == 'inf is not a finite number (a key that takes infinity takes it as the text "inf")'
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


def many_bad_apps_doc(n: int) -> dict:
    # one mistake repeated by every app, as a generated scenario makes it, and one elsewhere
    return {"topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "10pkt"},
            "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1KB", "start": "-1ms"} for _ in range(n)]
            + [{"kind": "bulk", "src": 0, "dst": 7, "size": "1KB"}]}


def test_many_problems_are_summed_up_by_field_and_validate_prints_every_one(tmp_path):
    n = 3 * errors.SHOWN
    f = tmp_path / "many.json"
    f.write_text(json.dumps(many_bad_apps_doc(n)))
    problems = dcnsim.validate(f)
    assert len(problems) == n + 1  # every app's start, and the last app's dst
    r = cli("run", str(f))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(lines) == errors.SHOWN and all(ln.startswith(f"{f}: ") for ln in lines)
    assert lines[:-1] == [f"{f}: {p}" for p in problems[: errors.SHOWN - 1]]
    rest = len(problems) - (errors.SHOWN - 1)
    assert lines[-1] == (f"{f}: ... {rest} more problems: apps[*].start ({rest - 1}), apps[*].dst (1); "
                         f"`dcnsim validate {f}` prints every one")
    r = cli("validate", str(f))
    assert r.returncode == 2 and r.stdout.strip().splitlines() == [f"{f}: {p}" for p in problems]
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(many_bad_apps_doc(n))
    assert len(e.value.errors) == n + 1  # the exception keeps every one; its text sums up
    assert len(str(e.value).splitlines()) == errors.SHOWN and str(e.value).endswith("(every one in .errors)")


def test_a_few_problems_are_all_shown(tmp_path):
    f = tmp_path / "few.json"
    f.write_text(json.dumps(many_bad_apps_doc(errors.SHOWN - 1)))
    r = cli("run", str(f))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"{f}: {p}" for p in dcnsim.validate(f)]


def test_fields_fold_list_indices_in_order_of_first_appearance():
    ps = [Problem("apps[3].size", "x"), Problem("topology.k", "y"), Problem("apps[12].size", "z"),
          Problem("apps[0].flows[2].cc", "w")]
    assert errors.fields_of(ps) == [("apps[*].size", 2), ("topology.k", 1), ("apps[*].flows[*].cc", 1)]
    head, more = errors.more_problems(ps * 10, shown=5)
    assert head == (ps * 10)[:4]
    assert more == "36 more problems: apps[*].size (18), topology.k (9), apps[*].flows[*].cc (9)"
