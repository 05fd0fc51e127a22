"""Limits that protect the machine, from Python and the CLI: a scenario that
would exhaust memory is a ScenarioError naming the field, with the
estimate; nothing is written to --out."""

from __future__ import annotations

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
