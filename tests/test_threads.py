"""`threads` (issue 29): every shipped scenario and every bench scenario,
cut short, writes on 2 threads exactly what it writes on 1 — every table,
every pcap byte, every summary value; only `Result.timing` (wall time,
threads used) differs. A Poisson load is cut like a permutation: every
partition draws the same arrivals from the seed. Scenarios the partitioner
cannot cut (a star's one switch) run on one thread and say so."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest
from dcnsim import _core, bench
from dcnsim.result import PARALLEL_TIMING, TIMING_KEYS
from dcnsim.scenario import load_scenario, to_json

# how a run went, not what it simulated: summary.json carries both
NOT_PHYSICS = TIMING_KEYS + PARALLEL_TIMING


def _physics(summary: dict) -> dict:
    """A run's summary without how long it took or how it was cut."""
    return {k: v for k, v in summary.items() if k not in NOT_PHYSICS}

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "scenarios").glob("*.toml"))
# short enough for the test suite, long enough for traffic to cross the cut
STOP = {"dctcp_perm_k32": "150us", "dctcp_perm_k16": "500us", "dctcp_perm_k12": "500us",
        "websearch_k32": "100us"}
DEFAULT_STOP = "2ms"


@pytest.fixture(autouse=True)
def _cut_as_asked(monkeypatch):
    # these tests are about the cut: make it however busy the machine is
    # (on one free core a run goes on one thread instead)
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    # and however little work a window holds (`threads = n` runs on one
    # thread where the cut would be slower)
    monkeypatch.setenv("DCNSIM_CUT", "always")


def _secs(v) -> float:
    from dcnsim.units import parse_time

    return parse_time(v)


def _short(doc: dict, stop: str) -> dict:
    doc = dict(doc)
    if _secs(doc.get("stop", "10s")) > _secs(stop):
        doc["stop"] = stop
    return doc


def _run(doc: dict, threads: int) -> dict:
    """The core's run; its notes (why fewer threads) on stderr, as
    ``dcnsim.run`` prints them."""
    import sys

    raw = _core.run(to_json({**doc, "threads": threads}), None)
    for note in raw["notes"]:
        print(note, file=sys.stderr)
    return raw


def _same(a: dict, b: dict) -> None:
    assert a["tables"].keys() == b["tables"].keys()
    for name in a["tables"]:
        ta, tb = a["tables"][name], b["tables"][name]
        assert ta.keys() == tb.keys(), name
        for col in ta:
            va, vb = list(ta[col]), list(tb[col])
            same = all(x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)) for x, y in zip(va, vb))
            assert len(va) == len(vb) and same, f"{name}.{col}"
    assert a["pcaps"] == b["pcaps"]
    assert _physics(a["summary"]) == _physics(b["summary"])


def _check(doc: dict) -> int:
    one, two = _run(doc, 1), _run(doc, 2)
    _same(one, two)
    assert one["summary"]["threads"] == 1
    return int(two["summary"]["threads"])


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_scenarios_give_the_same_bits_on_two_threads(path):
    doc = _short(load_scenario(path), STOP.get(path.stem, DEFAULT_STOP))
    used = _check(doc)
    assert used in (1, 2)


@pytest.mark.parametrize("name", sorted(bench.SCENARIOS))
def test_bench_scenarios_give_the_same_bits_on_two_threads(name):
    doc = _short(bench.SCENARIOS[name](), STOP.get(name, DEFAULT_STOP))
    used = _check(doc)
    if name.startswith(("dctcp_perm", "fattree")):
        assert used == 2, "a fat-tree permutation is cut in two"


@pytest.mark.parametrize("threads", [2, 4])
def test_a_poisson_load_gives_the_same_bits_on_two_and_four_threads(threads):
    # arrivals are drawn from the seed in every partition, whatever the cut
    doc = _short(bench.poisson_websearch_k8(), "5ms")
    one, many = _run(doc, 1), _run(doc, threads)
    assert many["summary"]["threads"] == threads
    assert one["summary"]["app0_flows_generated"] > 10
    _same(one, many)


# Every transport over every fabric feature, cut in two: shallow 40 Gbps
# ports under a 14-to-2 incast, so each run drops, marks, pauses, trims or
# returns headers (each checked on the one-thread run, so no combination
# passes by not exercising its feature). (DCQCN and TIMELY over trimming
# switches that return headers once differed here: a returned header
# reached its sender's world as if it were the receiver's.)
TRANSPORTS = {
    "newreno": {"cc": "newreno", "rto_min": "1ms"},
    "cubic_sack": {"cc": "cubic", "sack": True, "rto_min": "1ms"},
    "dctcp": {"cc": "dctcp", "rto_min": "1ms"},
    "bbr": {"cc": "bbr", "rto_min": "1ms"},
    "fast": {"cc": "fast", "rto_min": "1ms"},
    "swift": {"transport": "swift"},
    "ndp": {"transport": "ndp", "mss": 9000},
    "hpcc": {"transport": "hpcc"},
    "dcqcn": {"transport": "dcqcn"},
    "timely": {"transport": "timely"},
}
# the transports whose packets ECN marks, and those whose trimmed headers
# the fabric returns (NDP's framing; a TCP header is dropped instead)
MARKED = {"dctcp", "fast", "dcqcn"}
RETURNED = {"ndp", "dcqcn", "timely"}
FEATURES = {
    "drop_tail": {},
    "ecn": {"topology": {"ecn_k": "10pkt"}},
    # xoff well below the 60 KB ports, so ingress ports pause
    "pfc": {"pfc": {"xoff": "20KB", "xon": "15KB"}},
    "trimming": {"trimming": {"header_buffer": "300B"}},
    # a header queue of one header: it overflows
    "return_to_sender": {"trimming": {"header_buffer": "100B", "return_to_sender": True}},
    "rps": {"routing": {"mode": "rps"}},
}
# (HPCC's telemetry is refused with [trimming]: the scenario check says why)
COMBINATIONS = [(t, f) for t in sorted(TRANSPORTS) for f in sorted(FEATURES)
                if not (t == "hpcc" and "trimming" in FEATURES[f])]


@pytest.mark.parametrize("transport,feature", COMBINATIONS)
def test_every_transport_over_every_fabric_feature_gives_the_same_bits_cut(transport, feature):
    doc = {"name": f"{transport}-{feature}", "seed": 4, "stop": "4ms",
           "topology": {"kind": "fat_tree", "k": 4, "rate": "40Gbps", "delay": "1us", "buffer": "60KB"},
           "tcp": dict(TRANSPORTS[transport]),
           "apps": [{"kind": "bulk", "src": s, "dst": s % 2, "size": "600KB"} for s in range(2, 16)]}
    for key, value in FEATURES[feature].items():
        if key == "topology":
            doc["topology"].update(value)
        else:
            doc[key] = value
    one, two = _run(doc, 1), _run(doc, 2)
    _same(one, two)
    assert two["summary"]["threads"] == 2, "a k = 4 fat-tree is cut in two"
    s = one["summary"]
    if feature in ("drop_tail", "rps"):
        assert s["packets_dropped"] > 0
    elif feature == "ecn" and transport in MARKED:
        assert sum(one["tables"]["queues"]["marked"]) > 0
    elif feature == "pfc":
        assert s["pfc_pauses"] > 0
    elif feature == "trimming":
        assert s["packets_trimmed"] > 0
    elif feature == "return_to_sender":
        assert s["packets_trimmed"] > 0
        if transport in RETURNED:
            assert s["headers_bounced"] > 0
        else:
            assert s["headers_bounced"] == 0 and s["header_drops"] > 0


def test_the_websearch_scenario_on_two_threads_writes_one_threads_tables(tmp_path):
    # the shipped Poisson scenario, from the command line, cut short
    text = (REPO / "scenarios" / "websearch_fattree.toml").read_text()
    assert 'stop = "400ms"' in text
    short = tmp_path / "websearch.toml"
    short.write_text(text.replace('stop = "400ms"', 'stop = "20ms"'))
    out = {}
    for n in (1, 2):
        out[n] = tmp_path / f"t{n}"
        subprocess.run([sys.executable, "-m", "dcnsim", "run", str(short), "--threads", str(n), "--out", str(out[n]),
                        "--no-progress"], check=True, capture_output=True, env={**os.environ, "DCNSIM_FREE_CORES": "8"})
    summary = {n: json.loads((out[n] / "summary.json").read_text()) for n in (1, 2)}
    assert summary[2]["threads"] == 2, "two partitions"
    tables = sorted(p.name for p in out[1].glob("*.csv"))
    assert "flows.csv" in tables and tables == sorted(p.name for p in out[2].glob("*.csv"))
    for name in tables:
        assert (out[1] / name).read_bytes() == (out[2] / name).read_bytes(), name
    assert _physics(summary[1]) == _physics(summary[2])


def test_what_cannot_be_cut_runs_on_one_thread_and_says_why(capfd):
    # a star has one switch: every host is tied to it
    doc = {"name": "star", "stop": "1ms",
           "topology": {"kind": "star", "hosts": 8, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"},
           "apps": [{"kind": "poisson", "load": 0.5, "cdf": "websearch", "duration": "1ms"}]}
    capfd.readouterr()
    assert _run(doc, 2)["summary"]["threads"] == 1
    said = [line for line in capfd.readouterr().err.splitlines() if line.startswith("dcnsim:")]
    assert len(said) == 1 and "threads = 2: one thread" in said[0] and "one switch" in said[0], said


@pytest.mark.parametrize("name", ["outcast_fattree", "outcast_testbed"])
def test_threads_asked_where_a_cut_is_slower_go_on_one_thread_and_say_why(name, monkeypatch, capfd):
    # two threads ran the shipped outcast fat-trees (≈ 24 events a window)
    # at half one thread's speed on two idle cores: `threads = 2` now goes
    # on one thread there, saying why, with the same results; DCNSIM_CUT =
    # always cuts anyway (what the other tests here do)
    doc = _short(load_scenario(str(REPO / "scenarios" / f"{name}.toml")), "1ms")
    monkeypatch.delenv("DCNSIM_CUT")
    capfd.readouterr()
    one = _run(doc, 2)
    assert one["summary"]["threads"] == 1
    said = [line for line in capfd.readouterr().err.splitlines() if line.startswith("dcnsim:")]
    assert len(said) == 1, said
    assert "threads = 2: one thread, as a window holds too little work" in said[0], said
    assert "2 threads run slower than one; the same results (DCNSIM_CUT=always cuts anyway)" in said[0], said
    monkeypatch.setenv("DCNSIM_CUT", "always")
    cut = _run(doc, 2)
    assert cut["summary"]["threads"] == 2
    _same(one, cut)


def test_a_cut_override_other_than_always_is_ignored_and_said(monkeypatch):
    doc = {**_short(load_scenario(str(REPO / "scenarios" / "outcast_fattree.toml")), "1ms"), "threads": 2}
    p = subprocess.run([sys.executable, "-c", "import sys; from dcnsim import _core; "
                        "r = _core.run(sys.stdin.read(), None); print(*r['notes'], sep=chr(10), file=sys.stderr); "
                        "print(dict(r['summary'])['threads'])"],
                       input=to_json(doc), capture_output=True, text=True, check=True,
                       env={**os.environ, "DCNSIM_CUT": "1"})
    assert p.stdout.strip() == "1"
    said = [line for line in p.stderr.splitlines() if line.startswith("dcnsim:")]
    assert 'dcnsim: DCNSIM_CUT="1" ignored: its one value is "always"' in said, said


def test_a_free_cores_override_that_is_not_a_number_is_ignored_and_said():
    doc = {**_short(load_scenario(str(REPO / "scenarios" / "outcast_fattree.toml")), "1ms"), "threads": 2}
    p = subprocess.run([sys.executable, "-c", "import sys; from dcnsim import _core; "
                        "r = _core.run(sys.stdin.read(), None); print(*r['notes'], sep=chr(10), file=sys.stderr); "
                        "print(dict(r['summary'])['threads'])"],
                       input=to_json(doc), capture_output=True, text=True, check=True,
                       env={**os.environ, "DCNSIM_FREE_CORES": "abc"})
    said = [line for line in p.stderr.splitlines() if line.startswith("dcnsim:")]
    assert 'dcnsim: DCNSIM_FREE_CORES="abc" ignored: it takes a whole number of cores; the free cores are ' \
        "counted" in said, said


def test_threads_asked_where_a_window_holds_work_cut_as_asked(monkeypatch):
    monkeypatch.delenv("DCNSIM_CUT")
    doc = _short(load_scenario(str(REPO / "scenarios" / "websearch_fattree.toml")), "1ms")
    assert _run(doc, 2)["summary"]["threads"] == 2


# A child process held to one core; it runs the document (argv[1]) and
# prints its results, every table column as a list of reprs (same bits,
# NaNs included).
ONE_CORE = """
import json, os, sys
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
from dcnsim import _core
from dcnsim.scenario import to_json
r = _core.run(to_json(json.loads(sys.argv[1])), None)
print("\\n".join(r["notes"]), file=sys.stderr)  # the core's notes, as dcnsim.run prints them
tables = {n: {c: [repr(x) for x in v] for c, v in t.items()} for n, t in r["tables"].items()}
print(json.dumps({"tables": tables, "summary": dict(r["summary"])}))
"""


def _on_one_core(doc: dict, env: dict):
    p = subprocess.run([sys.executable, "-c", ONE_CORE, json.dumps(doc)], capture_output=True, text=True,
                       env={**os.environ, **env}, check=True)
    return json.loads(p.stdout), [line for line in p.stderr.splitlines() if line.startswith("dcnsim:")]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_threads_beyond_the_cores_run_on_as_many_workers():
    # 64 threads asked of a k = 4 fat-tree (four pods: four partitions) in
    # a process held to one core: one line says why four partitions, not
    # 64, one that one worker runs all four, and it writes one thread's bits
    doc = _short(bench.dctcp_perm(4, "1ms"), "1ms")
    one, said = _on_one_core({**doc, "threads": 1}, {"DCNSIM_FREE_CORES": "8"})
    assert said == []
    many, said = _on_one_core({**doc, "threads": 64}, {"DCNSIM_FREE_CORES": "8"})
    assert len(said) == 2, said
    assert "threads = 64: 4 partitions, as the fat-tree has 4 pods" in said[0], said
    assert "4 partitions on 1 core: 1 worker thread" in said[1], said
    assert many["summary"]["threads"] == 4
    assert one["tables"] == many["tables"]
    assert _physics(one["summary"]) == _physics(many["summary"])


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_a_run_with_one_core_free_goes_on_one_thread():
    # the machine's own count of free cores (no override): a process held
    # to one core has one, where a cut only adds the hand-over
    doc = {**_short(bench.dctcp_perm(4, "1ms"), "1ms"), "threads": 2}
    r, said = _on_one_core(doc, {"DCNSIM_FREE_CORES": ""})
    assert r["summary"]["threads"] == 1
    assert len(said) == 1 and "running on one thread, not cut into 2 partitions" in said[0], said


@pytest.mark.parametrize("name, cut", [("outcast_fattree", False), ("outcast_testbed", False),
                                       ("fattree_rps", False), ("websearch_fattree", True)])
def test_auto_cuts_a_shipped_scenario_only_where_a_window_holds_work(name, cut):
    # cores to spare (the fixture's DCNSIM_FREE_CORES = 8) and no `threads`
    # key: the outcast scenarios (15 flows into one port, ≈ 24 events a
    # window) ran 0.57-0.61x one thread's speed on two, and go on one;
    # the web-search load (≈ 1,850 a window, 1.57x on two) is cut
    doc = _short(load_scenario(str(REPO / "scenarios" / f"{name}.toml")), "1ms")
    doc.pop("threads", None)
    r = _core.run(to_json(doc), None)
    assert (r["summary"]["threads"] > 1) == cut, r["summary"]["threads"]


def test_a_run_to_stop_gives_the_same_bits_on_two_threads():
    # `until = "stop"`: every partition runs to `stop` after its apps are
    # done, and the merged world counts no app as unfinished
    doc = {"name": "until", "seed": 2, "stop": "8ms", "until": "stop",
           "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "1us", "buffer": "30KB"},
           "tcp": {"rto_min": "1ms"},
           "apps": [{"kind": "bulk", "src": s, "dst": (s + 5) % 16, "size": "30KB"} for s in range(16)]}
    one, two = _run(doc, 1), _run(doc, 2)
    _same(one, two)
    assert two["summary"]["threads"] == 2
    for r in (one, two):
        assert r["summary"]["sim_time_s"] == 0.008 and r["summary"]["apps_unfinished"] == 0
    done = _run({**doc, "until": "apps_done"}, 2)
    assert done["summary"]["sim_time_s"] < 0.008 and done["summary"]["apps_unfinished"] == 0


def test_fifo_takes_threads_auto_as_its_one_thread_and_fewer_partitions_than_asked_are_said(monkeypatch, capfd):
    """`ties = "fifo"` runs on one thread when `threads` is left out, and
    writing that default out (`threads = "auto"`, a sweep's `--threads
    auto`) was refused as if more were asked; a number above one still is.
    A run cut into fewer partitions than asked (but more than one) said
    nothing: it names the count and the cause now, as the one-thread case
    does."""
    perm = {"seed": 1, "stop": "1ms", "ties": "fifo", "threads": "auto",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"},
            "apps": [{"kind": "bulk", "src": i, "dst": (i + 8) % 16, "size": "1MB"} for i in range(16)]}
    assert list(dcnsim.validate(perm)) == []
    assert dcnsim.run(perm).timing["threads"] == 1
    assert [p.path for p in dcnsim.validate({**perm, "threads": 2})] == ["ties"]
    monkeypatch.setenv("DCNSIM_CUT", "always")
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    two_pods = {"seed": 2, "stop": "2ms", "threads": 4,
                "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "40pkt"},
                "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "4-7", "response": "40KB",
                          "queries": 2},
                         {"kind": "partition_aggregate", "aggregator": 8, "workers": "12-15", "response": "40KB",
                          "queries": 2}]}
    capfd.readouterr()
    r = dcnsim.run(two_pods)
    err = capfd.readouterr().err
    assert r.timing["threads"] == 2
    assert "dcnsim: threads = 4: 2 partitions, as app 0 (partition_aggregate) keeps hosts" in err, err


def test_why_a_run_has_fewer_threads_reaches_pythons_stderr_and_the_result(monkeypatch):
    """The core wrote it to the process's stderr, which a notebook does not
    show (and `contextlib.redirect_stderr` did not catch): `dcnsim.run`
    now prints it on `sys.stderr` and keeps it in `Result.notes`."""
    import contextlib
    import io

    import dcnsim

    doc = {**_short(load_scenario(str(REPO / "scenarios" / "outcast_fattree.toml")), "1ms"), "threads": 2}
    monkeypatch.delenv("DCNSIM_CUT")
    buf = io.StringIO()
    with contextlib.redirect_stderr(buf):
        r = dcnsim.run(doc)
    assert r.timing["threads"] == 1
    (note,) = r.notes
    assert note.startswith("dcnsim: threads = 2: one thread, as a window holds too little work"), note
    assert buf.getvalue() == note + "\n"
