"""Random and mutated scenario documents never crash the simulator: the only
outcomes are a Result or a ScenarioError, and validate() agrees with run()."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dcnsim
from dcnsim import ScenarioError

from conftest import needs_core

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
    except ScenarioError:  # pragma: no cover - validate never raises
        raise AssertionError("validate() must return problems, not raise")
    if not isinstance(doc, dict):
        assert problems
