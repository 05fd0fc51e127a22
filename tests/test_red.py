"""RED's marking ramp (`topology.ecn_kmax`, `ecn_pmax`) from Python and the
command line: the keys reach the core through the builder and `--set`, a
ramp marks fewer of the packets a step at the same K marks, the same
seed gives the same marks, and a bad ramp is refused at its key. The
share marked per queue length is checked in crates/dcnsim/src/net/ramp.rs,
the ramp against the step on DCQCN and on two threads in
crates/dcnsim/tests/dcqcn.rs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest
from dcnsim.scenario import to_json

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent


def dumbbell(**topo) -> dcnsim.Scenario:
    """Four DCTCP flows into one 10 Gbps port with K = 20 packets."""
    return dcnsim.Scenario(
        name="red", stop="20ms", seed=3,
        topology={"kind": "star", "hosts": 5, "rate": "10Gbps", "delay": "5us",
                  "buffer": "400pkt", "ecn_k": "20pkt", **topo},
        tcp={"cc": "dctcp", "rto_min": "1ms"},
        apps=[{"kind": "bulk", "src": s, "dst": 0, "duration": "1s"} for s in range(1, 5)],
    )


def marked_share(r) -> float:
    q = r.queues[r.queues.to == "h0"]
    return float(q.marked.sum() / q.enqueued.sum())


def test_a_ramp_marks_a_share_of_what_the_step_marks_and_repeats_with_its_seed():
    step = dcnsim.run(dumbbell())
    ramp = dcnsim.run(dumbbell(ecn_kmax="200pkt", ecn_pmax=0.1))
    assert marked_share(ramp) < marked_share(step)
    assert marked_share(ramp) > 0
    # a ramp's queue runs past K, where the step holds it near K
    q = lambda r: float(r.queues[r.queues.to == "h0"].mean_bytes.iloc[0])  # noqa: E731
    assert q(ramp) > q(step)
    again = dcnsim.run(dumbbell(ecn_kmax="200pkt", ecn_pmax=0.1))
    assert again.queues.marked.tolist() == ramp.queues.marked.tolist()
    assert not ramp.conservation_problems()


def test_the_cli_sets_the_ramp(tmp_path):
    doc = tmp_path / "red.json"
    doc.write_text(to_json(dumbbell().to_dict()))
    out = subprocess.run(
        [sys.executable, "-m", "dcnsim", "run", str(doc), "--set", "topology.ecn_kmax=200pkt",
         "--set", "topology.ecn_pmax=0.1", "--out", str(tmp_path / "out"), "--no-progress"],
        capture_output=True, text=True, check=True,
    )
    assert "ecn_kmax" in (tmp_path / "out" / "scenario.json").read_text()
    assert out.returncode == 0
    ecn = next(line for line in out.stdout.splitlines() if line.strip().startswith("ecn "))
    # one parenthesis holds the ramp and, when they differ, the marked arrivals
    assert ("(RED's ramp)" in ecn or "(RED's ramp; " in ecn) and "window cuts" in ecn
    plain = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(doc), "--no-progress"],
                           capture_output=True, text=True, check=True).stdout
    assert "RED's ramp" not in plain and "window cuts" in plain


@pytest.mark.parametrize(
    "topo, needle",
    [
        ({"ecn_kmax": "10pkt"}, "must be above every port's ecn_k"),
        ({"ecn_kmax": "100KB"}, "give both in one unit"),
        ({"ecn_pmax": 0.1}, "set ecn_kmax too"),
        ({"ecn_kmax": "200pkt", "ecn_non_ect": "drop"}, "not modelled"),
    ],
)
def test_a_bad_ramp_is_refused_at_its_key(topo, needle):
    with pytest.raises(dcnsim.ScenarioError) as e:
        dcnsim.run(dumbbell(**topo))
    assert needle in str(e.value)
    assert "topology.ecn_" in str(e.value)
