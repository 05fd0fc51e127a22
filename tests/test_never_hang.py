"""Never hang (issue 27 item 3): validating a big fat-tree is linear in
its size (a Poisson app's sources once cost hosts x links: 53 s at
k = 64, k = 128 never returned), and Ctrl-C stops set-up (validation, the
world's routing tables) as it stops the event loop. No timing thresholds:
a validation gets a timeout far above what it needs, an interrupted
set-up must exit 130."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import SIGINT_DEADLINE_S as DEADLINE_S
from conftest import core_start_hook, interrupt, needs_core, spawn_dcnsim

pytestmark = [needs_core]


def fat_tree_with_every_app(k: int) -> dict:
    """A k-ary fat-tree with one app of every kind, the Poisson one over
    all hosts (the hosts x links path), under a memory limit the size
    check does not refuse."""
    return {
        "name": f"k{k}-every-app",
        "stop": "10ms",
        "limits": {"memory": "1TB"},
        "topology": {"kind": "fat_tree", "k": k, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt",
                     "ecn_k": "20pkt"},
        "apps": [
            {"kind": "bulk", "src": 0, "dst": 1, "duration": "1ms"},
            {"kind": "partition_aggregate", "aggregator": 2, "workers": "3-40", "response": "2KB", "queries": 2},
            {"kind": "sync_reads", "client": 41, "servers": "42-60", "sru": "64KB", "blocks": 2},
            {"kind": "poisson", "load": 0.3, "cdf": "websearch", "flows": 1000},
            {"kind": "udp_cbr", "src": 61, "dst": 62, "rate": "1Gbps"},
        ],
    }


def test_the_scenario_has_every_app_kind():
    from dcnsim import _core

    defs = json.loads(_core.schema())["$defs"]
    schema_kinds = {d["properties"]["kind"]["const"] for name, d in defs.items()
                    if name.endswith("App") and "properties" in d}
    assert {a["kind"] for a in fat_tree_with_every_app(4)["apps"]} == schema_kinds


def test_a_k64_fat_tree_with_every_app_kind_validates_promptly(tmp_path):
    """`dcnsim validate` in a fresh process: about a second now (imports
    included); the hosts x links scan took 50 s of CPU. The timeout is
    far above the first and far below the second."""
    path = tmp_path / "k64.json"
    path.write_text(json.dumps(fat_tree_with_every_app(64)))
    try:
        p = subprocess.run([sys.executable, "-m", "dcnsim", "validate", str(path)], capture_output=True,
                           text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("validating a k = 64 fat-tree took over 20 s: set-up is not linear in its size")
    assert p.returncode == 0, p.stderr
    # valid (its ecn_k with NewReno draws the one "nothing will be marked" warning)
    assert p.stdout.splitlines()[0].endswith((": ok", ": valid, with 1 warning")), p.stdout


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_sigint_during_set_up_exits_130(tmp_path):
    """A k = 96 fat-tree's routing tables take a minute to build, before
    any event (k = 64: 12 s): SIGINT one second into the core's run call
    (validation or routes, never the loop) stops it within the deadline
    Ctrl-C has in the loop (tests/test_interrupt.py), where set-up that
    ignored it ran on to the first event."""
    path = tmp_path / "k96.json"
    doc = fat_tree_with_every_app(96)
    doc["limits"] = {"memory": "100TB"}  # sized, never built
    doc["apps"] = doc["apps"][:1]  # set-up is the routes; one flow is enough
    path.write_text(json.dumps(doc))
    marker, pythonpath = core_start_hook(tmp_path)
    proc = spawn_dcnsim("run", str(path), "--out", str(tmp_path / "out"),
                        env=dict(os.environ, PYTHONPATH=pythonpath))
    out, err, took = interrupt(proc, marker)
    assert proc.returncode == 130, (out, err)
    assert took < DEADLINE_S, f"took {took:.1f} s to stop"
    assert err.strip().splitlines()[-1] == "interrupted; nothing written", err
    assert "Traceback" not in err and "panicked" not in err, err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
