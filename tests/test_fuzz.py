"""Random and mutated scenario documents never crash the simulator: the only
outcomes are a Result or a ScenarioError, and validate() agrees with run()."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import re
from pathlib import Path

import dcnsim
import pytest
from conftest import needs_core
from dcnsim import ScenarioError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = needs_core

BASE = {
    "name": "fuzz",
    "seed": 1,
    "stop": "5ms",
    "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us", "buffer": "16KB"},
    "tcp": {"mss": 1024, "rto_min": "1ms"},
    "apps": [
        {"kind": "sync_reads", "client": 0, "servers": "1-3", "sru": "16KB", "blocks": 2, "jitter": "5us"},
        {"kind": "bulk", "src": 1, "dst": 2, "size": "20KB"},
        {"kind": "partition_aggregate", "aggregator": 3, "workers": [0, 1], "response": "4KB", "queries": 2},
        {"kind": "udp_cbr", "src": 2, "dst": 3, "rate": "10Mbps"},
        {"kind": "poisson", "load": 0.02, "cdf": [[100, 0], [5000, 1]]},
    ],
}

KEYS = sorted(
    {"name", "seed", "stop", "topology", "tcp", "apps", "routing", "mode", "kind", "hosts", "rate", "delay",
     "buffer", "ecn_k", "k", "racks", "hosts_per_rack", "nodes", "links", "a", "b", "mss", "cc", "rwnd", "rto_min",
     "servers", "workers", "client", "src", "dst", "size", "duration", "blocks", "queries", "sru", "jitter",
     "l2_overhead", "switch_delay", "segment", "sack", "ecn", "nic_buffer", "start", "pcap", "host_jitter",
     "load", "cdf", "sampling", "sources", "destinations", "flows"}
)
UNITS = ["1ms", "10us", "0s", "-5us", "1Gbps", "0bps", "32KB", "0B", "1.5MB", "100pkt", "0pkt", "1-3", "3-1",
         "0-0", "star", "fat_tree", "custom", "two_tier", "leaf_spine", "rps", "single", "ecmp", "newreno", "fixed",
         "bulk", "udp_cbr", "sync_reads", "1e400s", "NaN", "inf", "", "1e9bps", "4294967296pkt", "18446744073709551616B"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 40)
    | st.sampled_from([2**31, 2**32, 2**63, 2**64, -(2**63), 10**30])
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | st.text(max_size=6)
    | st.sampled_from(UNITS)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


# Type-appropriate values per key (valid ones and edge cases), so that a good
# share of mutated documents is still valid and actually runs. Rates and
# times stay small: `stop` is never mutated, so every run ends by 5 ms.
PLAUSIBLE = {
    "hosts": [0, 1, 2, 3, 5], "k": [2, 4, 3], "racks": [1, 2], "hosts_per_rack": [1, 2, 4],
    "rate": ["1Gbps", "10Mbps", "1bps", "1 Gbps"], "delay": ["0s", "1us", "10us", "1ms", "0.5us"],
    "buffer": ["1pkt", "2KB", "16KB", 1500, 1, "1B"], "ecn_k": ["0pkt", "5pkt", "4KB", 0],
    "nic_buffer": ["1pkt", "100pkt", "1B"], "mss": [1, 64, 1024, 9000], "header": [0, 4, 40],
    "init_cwnd": [1, 2, 10], "rwnd": ["1pkt", "4pkt", "64KB", 1], "rto_min": ["0s", "1us", "1ms", "200ms"],
    "rto_init": ["1ms", "1s"], "rto_max": ["1ms", "60s"], "granularity": ["0s", "1ms"],
    "max_backoff": [1, 64], "dupack_threshold": [1, 3, 100], "delayed_ack": [True, False],
    "delayed_ack_timeout": ["1us", "40ms"], "delayed_ack_segments": [1, 2, 5], "sack": [True, False],
    "sack_rescue": [True, False], "limited_transmit": [True, False], "timestamps": [True, False],
    "reduction": ["rfc6675", "prr", "prr_bis", "prr-bis"], "hystart": ["off", "linux", "rfc9406"],
    "ecn": [True, False], "handshake_rtt_sample": [True, False], "cc": ["newreno", "NewReno", "cubic", "dctcp", "fast", "reno"],
    "segment": ["fixed"], "servers": ["1-3", [1], [1, 2, 3], "2-3", [3, 1]], "workers": [[0], [0, 1, 2], "0-2"],
    "sru": ["1B", "1KB", "16KB"], "blocks": [1, 2, 3], "queries": [1, 2, 3], "size": ["1B", "1KB", "100KB"],
    "duration": ["1us", "1ms"], "jitter": ["0s", "1us", "1ms"], "src": [0, 1, 2, 3], "dst": [0, 1, 2, 3],
    "client": [0, 1, 3], "aggregator": [0, 3], "response": ["1B", "4KB"], "request": ["1B", "64B"],
    "start": ["0s", "1ms", "4ms", "10ms"], "stop": ["1ms", "5ms"], "seed": [0, 1, 2**64 - 1],
    "l2_overhead": [0, 38], "switch_delay": ["0s", "1us"], "host_jitter": ["0s", "2us"], "gap": ["0s", "1ms"],
    "payload": [1, 1460, "9000B"], "mode": ["single", "ecmp", "rps"],
    "pcap": [{"hosts": [0]}, {"hosts": "0-3"}, {"hosts": [9]}, {}, [0]],
    "kind": ["star", "bulk", "sync_reads", "partition_aggregate", "udp_cbr", "fat_tree", "custom", "poisson"],
    "load": [0.02, 0.1, 0, 1.5], "cdf": ["websearch", "datamining", [[100, 0], [5000, 1]], [[5, 1]], [[10, 0.5]],
                                           [[10, 0], [5, 1]], "web"],
    "sampling": ["linear", "step", "cubic"], "sources": ["0-3", [1], [9]], "destinations": [[0], [1], "0-3"],
    "flows": [1, 2, 0],
}


def value_for(draw, key):
    if isinstance(key, str) and key in PLAUSIBLE and draw(st.booleans()):
        return copy.deepcopy(draw(st.sampled_from(PLAUSIBLE[key])))  # never mutate the pool
    return draw(values)


def paths(doc, prefix=()):
    """Every (container, key) position in doc, except `stop` (keeps runs short)."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    for k, v in items:
        if prefix == () and k == "stop":
            continue
        out.append(prefix + (k,))
        out.extend(paths(v, prefix + (k,)))
    return out


@st.composite
def mutated(draw):
    doc = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 3))):
        ps = paths(doc)
        if not ps:
            break
        path = draw(st.sampled_from(ps))
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        op = draw(st.sampled_from(["set", "set", "delete", "add"]))
        if op == "delete":
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            key = draw(st.sampled_from(KEYS))
            parent[key] = value_for(draw, key)
        else:
            parent[path[-1]] = value_for(draw, path[-1])
    return doc


def check(doc):
    problems = dcnsim.validate(doc)
    assert isinstance(problems, list) and all(isinstance(p, str) and p for p in problems)
    try:
        result = dcnsim.run(doc)
    except ScenarioError as e:
        assert e.errors, "a ScenarioError must list its problems"
        assert problems, f"run() rejected what validate() accepted: {e.errors}"
        return
    assert not problems, f"run() accepted what validate() rejected: {problems}"
    assert result.summary["events"] >= 0


def test_base_is_valid():
    assert dcnsim.validate(BASE) == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_scenarios_never_crash(doc):
    check(doc)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), values, max_size=6))
def test_random_dicts_never_crash(doc):
    doc.setdefault("stop", "5ms")
    check(doc)


@settings(max_examples=30, deadline=None)
@given(values)
def test_any_value_as_scenario(doc):
    try:
        problems = dcnsim.validate(doc)
    except ScenarioError as e:  # pragma: no cover - validate never raises
        raise AssertionError("validate() must return problems, not raise") from e
    if not isinstance(doc, dict):
        assert problems


# ---------------------------------------------------------------- rejections name field and reason

# "field.path: reason": a non-empty path without spaces (quoted keys may hold
# anything), then ": ", then a reason.
PROBLEM = re.compile(r'^(<document>|[^\s:"]+|[^\s:]*\[".*"\][^\s:]*|file|syntax): \S')


def assert_named(problems):
    for p in problems:
        assert PROBLEM.match(p), f"problem does not name a field and a reason: {p!r}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_every_rejection_names_field_and_reason(doc):
    assert_named(dcnsim.validate(doc))


# ---------------------------------------------------------------- the CLI, on TOML and JSON text


def to_toml(doc) -> str:
    """A TOML rendering of a dict (None values, which TOML cannot express,
    are left out); keys that are not bare keys are quoted."""

    def key(k):
        return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)

    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v) if isinstance(v, int) or math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v if x is not None) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{key(k)} = {val(x)}" for k, x in v.items() if x is not None) + "}"
        raise TypeError(v)

    lines = [f"{key(k)} = {val(v)}" for k, v in doc.items() if v is not None and not isinstance(v, dict)
             and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"[{key(k)}]")
            lines += [f"{key(a)} = {val(b)}" for a, b in v.items() if b is not None]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"[[{key(k)}]]")
                lines += [f"{key(a)} = {val(b)}" for a, b in item.items() if b is not None]
    return "\n".join(lines) + "\n"


def cli_in_process(*argv):
    """(exit code, stdout, stderr) of `dcnsim ARGV`, in this process so that
    a traceback fails the test with its stack."""
    from dcnsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as e:  # argparse
            rc = e.code if isinstance(e.code, int) else 2
    return rc, out.getvalue(), err.getvalue()


def check_cli(path: Path, out: Path):
    """`validate` and `run --out` on one file: no traceback; a rejection
    lists named problems and writes nothing; an acceptance writes tables."""
    rc, stdout, _ = cli_in_process("validate", str(path))
    # 2 for any bad file, as `run` says of it
    assert rc in (0, 2)
    lines = stdout.strip().splitlines()
    assert lines and all(ln.startswith(f"{path}: ") for ln in lines)
    if rc != 0:
        assert_named([ln[len(f"{path}: "):] for ln in lines])
    rc_run, _, stderr = cli_in_process("run", str(path), "--out", str(out))
    if rc != 0:
        assert rc_run == 2, "run accepted what validate rejected"
        problems = stderr.strip().splitlines()
        assert problems and all(p.startswith(f"{path}: ") for p in problems)
        assert_named([p[len(f"{path}: "):] for p in problems])
        assert not out.exists(), "nothing may be written to --out on rejection"
    else:
        assert rc_run == 0, f"run rejected what validate accepted: {stderr}"
        assert (out / "flows.csv").exists()


def mutate_text(draw, text: str) -> str:
    """Line and character mutations that keep `stop` (so runs stay short)."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        if lines[i].startswith("stop"):
            continue
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "char", "insert", "truncate"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "char" and lines[i]:
            c = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:c] + draw(st.sampled_from(list('"[]{}=,.#\\ 0x-') + ["", "\t", "é", "\x00"])) + lines[i][c + 1:]
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(["[topology]", "[[apps]]", "x = 1", "tcp = 3", "[tcp]", '"" = 1', "= 2"])))
        elif op == "truncate":
            lines = lines[: i + 1]
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.data())
def test_cli_on_mutated_toml_text(tmp_path_factory, doc, data):
    d = tmp_path_factory.mktemp("cli")
    text = to_toml(doc)
    if data.draw(st.booleans()):
        text = mutate_text(data.draw, text)
    p = d / "s.toml"
    p.write_text(text, encoding="utf-8")
    check_cli(p, d / "out")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_cli_on_mutated_json(tmp_path_factory, doc):
    d = tmp_path_factory.mktemp("cli")
    p = d / "s.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    check_cli(p, d / "out")


def test_to_toml_round_trips_the_base():
    from dcnsim.scenario import tomllib

    assert tomllib.loads(to_toml(BASE)) == BASE


# ---------------------------------------------------------------- the corpus

CORPUS = sorted(p for p in (Path(__file__).parent / "data" / "fuzz_corpus").iterdir() if p.suffix in (".toml", ".json"))


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_file_is_rejected_cleanly(path, tmp_path):
    check_cli(path, tmp_path / "out")
    problems = dcnsim.validate(str(path))
    assert problems, f"{path.name} must stay invalid"
    assert_named(problems)
    with pytest.raises(ScenarioError):
        dcnsim.run(str(path))


def test_deep_and_huge_python_values_are_scenario_errors():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    for doc in ({"name": deep}, {"seed": 10**5000}, {"name": "\ud800"}, {"\udfff": 1}):
        problems = dcnsim.validate(doc)
        assert problems
        assert_named(problems)
        with pytest.raises(ScenarioError):
            dcnsim.run(doc)
