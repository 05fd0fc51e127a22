"""Limits that protect the machine, from Python and the CLI: a scenario that
would exhaust memory is a ScenarioError naming the field, with the
estimate; nothing is written to --out."""

from __future__ import annotations

import json

import dcnsim
import pytest
from conftest import cli, needs_core
from dcnsim import ScenarioError

pytestmark = needs_core

HUGE_WINDOW = {
    "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"},
    "tcp": {"init_cwnd": 4_000_000_000, "rwnd": "1000GB"},
    "apps": [{"kind": "bulk", "src": 0, "dst": 1, "duration": "1s"}],
}


def test_huge_window_is_rejected_with_the_estimate():
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(HUGE_WINDOW)
    (msg,) = e.value.errors
    assert msg.startswith("tcp.rwnd: the run may need about ") and "GB of memory" in msg and "limits.memory" in msg


def test_cli_writes_nothing_for_a_too_big_scenario(tmp_path):
    p = tmp_path / "big.toml"
    p.write_text('[limits]\nmemory = "1MB"\n[topology]\nkind = "fat_tree"\nk = 16\nrate = "1Gbps"\ndelay = "1us"\n'
                 'buffer = "10pkt"\n[[apps]]\nkind = "bulk"\nsrc = 0\ndst = 1\nsize = "1KB"\n')
    r = cli("run", str(p), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{p}: topology: the run may need about" in r.stderr and "nodes, links and routing tables" in r.stderr
    assert not (tmp_path / "out").exists()


def _tiny_flows(limit: str) -> dict:
    """40 000 one-or-two-byte flows on a k = 2 fat-tree with 5-packet
    buffers: they time out again and again, and the loss log that grows with
    it is what the pre-run estimate leaves to the run-time guard (faster
    than the flow count: at 20 000 flows it outgrew the estimate's slack by
    only a few MB, as tests/memory_bound.rs notes)."""
    return {
        "stop": "60s", "seed": 3, "limits": {"memory": limit},
        "topology": {"kind": "fat_tree", "k": 2, "rate": "1Gbps", "delay": "5us", "buffer": "5pkt"},
        "tcp": {"mss": 1000, "rto_min": "1ms", "rto_init": "3ms", "rto_max": "8ms", "rwnd": "32pkt"},
        "apps": [{"kind": "poisson", "load": 0.5, "cdf": [[1, 0], [2, 1]], "duration": "2ms", "flows": 40000}],
    }


def _limit_just_above_the_estimate() -> str:
    # The refusal states the estimate; a limit 2 MB above it lets the run start.
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(_tiny_flows("1MB"))
    (p,) = e.value.errors
    number, unit = p.message.split("may need about ")[1].split(" of memory")[0].split()
    assert unit == "MB", p.message  # the scenario is sized for tens of MB
    mb = float(number)
    return f"{int(mb) + 2}MB"


def test_the_guard_stops_a_run_that_outgrows_its_limit(tmp_path):
    limit = _limit_just_above_the_estimate()
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(_tiny_flows(limit))
    (p,) = e.value.errors
    assert p.path == "limits.memory"
    assert p.message.startswith("the run stopped at ") and f"over the {limit[:-2]} MB limit" in p.message
    # The CLI: an error naming the field, exit status 2, nothing written.
    f = tmp_path / "tiny.json"
    f.write_text(json.dumps(_tiny_flows(limit)))
    r = cli("run", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr[-2000:]
    assert "limits.memory: the run stopped at" in r.stderr
    assert not (tmp_path / "out").exists()
