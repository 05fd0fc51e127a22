"""`ties`: the order of equal-time events, from Python and the CLI."""
from __future__ import annotations

import json
import subprocess
import sys

import dcnsim
import pytest

# 8 servers answer one client at once over a star with a small buffer:
# their bursts reach the switch in the same picosecond.
INCAST = {
    "stop": "2s",
    "topology": {"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "10us", "buffer": "16KB"},
    "tcp": {"mss": 1024, "rto_min": "10ms"},
    "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "64KB", "blocks": 5}],
}


def test_seeded_ties_run_deterministically_and_by_seed():
    doc = {**INCAST, "ties": "seeded"}
    a, b = dcnsim.run(doc, seed=1), dcnsim.run(doc, seed=1)
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)
    drops = [int(dcnsim.run(doc, seed=s).flows["drops"].sum()) for s in (1, 2, 3, 4)]
    assert min(drops) > 0, drops
    per_flow = {tuple(dcnsim.run(doc, seed=s).flows["drops"]) for s in (1, 2, 3, 4)}
    assert len(per_flow) > 1, "the seed never moved a tie's loser"
    # the whole block was delivered every time
    for s in (1, 2):
        r = dcnsim.run(doc, seed=s)
        assert r.summary["apps_unfinished"] == 0


def test_a_wrong_tie_order_names_the_key_and_its_choices():
    problems = [str(p) for p in dcnsim.validate({**INCAST, "ties": "random"})]
    assert len(problems) == 1 and problems[0].startswith("ties:"), problems
    assert "fifo" in problems[0] and "seeded" in problems[0]


def test_the_scenario_builder_passes_ties_on():
    s = dcnsim.Scenario(topology=INCAST["topology"], apps=INCAST["apps"], ties="seeded")
    assert s.to_dict()["ties"] == "seeded"


def test_cli_validate_reports_a_bad_tie_order(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**INCAST, "ties": 3}))
    p = subprocess.run([sys.executable, "-m", "dcnsim", "validate", str(path)], capture_output=True, text=True)
    assert p.returncode != 0
    assert "ties" in p.stderr + p.stdout


@pytest.fixture
def cut_as_asked(monkeypatch):
    """Cut as asked however busy the machine is now (on one free core a run
    goes on one thread instead: tests/test_threads.py checks that rule) and
    however little work a window holds."""
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")


def test_threads_from_python_and_the_cli_give_the_same_tables(tmp_path, cut_as_asked):
    """`threads` / `--threads`: a fat-tree permutation on 2 threads writes
    what 1 thread writes (the physics; how long it took and on how many
    threads are timing)."""
    doc = {
        "seed": 2, "stop": "2ms",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100KB", "ecn_k": "30KB"},
        "tcp": {"cc": "dctcp", "rto_min": "1ms"},
        "apps": [{"kind": "bulk", "src": s, "dst": (s + 5) % 16, "duration": "2ms"} for s in range(16)],
    }
    one, two = dcnsim.run({**doc, "threads": 1}), dcnsim.run({**doc, "threads": 2})
    assert one.timing["threads"] == 1 and two.timing["threads"] == 2
    assert one.flows.equals(two.flows) and one.queues.equals(two.queues)
    assert one.summary == two.summary
    path = tmp_path / "perm.json"
    path.write_text(json.dumps(doc))
    outs = []
    for n in ("1", "2"):
        out = tmp_path / f"t{n}"
        p = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(path), "--threads", n, "--out", str(out)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        outs.append(out)
    for name in ("flows.csv", "queues.csv", "queue_inputs.csv"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    shown = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(path), "--threads", "2"],
                           capture_output=True, text=True)
    assert "on 2 threads" in shown.stdout, shown.stdout
    bad = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(path), "--threads", "0"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--threads" in bad.stderr
    fifo = [str(p) for p in dcnsim.validate({**doc, "threads": 2, "ties": "fifo"})]
    assert len(fifo) == 1 and fifo[0].startswith("ties:"), fifo


def test_sweep_and_bench_take_threads(tmp_path, cut_as_asked):
    """`dcnsim sweep --threads 2`: every point on 2 threads, the same
    physics as on 1; `dcnsim bench --threads 2` reports the threads used."""
    import pandas as pd

    doc = {
        "stop": "1ms",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100KB"},
        "tcp": {"cc": "dctcp", "rto_min": "1ms"},
        "apps": [{"kind": "bulk", "src": s, "dst": (s + 5) % 16, "duration": "1ms"} for s in range(16)],
    }
    path = tmp_path / "perm.json"
    path.write_text(json.dumps(doc))
    tables = []
    for n in ("1", "2"):
        out = tmp_path / f"sweep{n}"
        p = subprocess.run([sys.executable, "-m", "dcnsim", "sweep", str(path), "--set", "topology.buffer=50KB,100KB",
                            "--threads", n, "--out", str(out), "--no-progress"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        tables.append(pd.read_csv(out / "sweep.csv"))
    physics = [c for c in tables[0].columns if c not in ("wall_s", "threads", "workers", "events_per_s")]
    assert tables[0][physics].equals(tables[1][physics])
    p = subprocess.run([sys.executable, "-m", "dcnsim", "bench", "--json", "--scenario", "fattree_k8", "--threads", "2"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout.strip().splitlines()[-1])
    assert rec["scenario"] == "fattree_k8" and rec["threads"] == 2
