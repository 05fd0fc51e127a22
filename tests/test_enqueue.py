"""TCPRand's offline enqueue-probability experiment (§3.2, Fig. 5)."""

from __future__ import annotations

import json

import pytest
from conftest import cli
from dcnsim.models import PHASES, enqueue_probability, enqueue_sweep


@pytest.mark.parametrize("phase", PHASES)
def test_fixed_size_packets_never_let_x2_in(phase):
    """rMin = MSS: Y2 always reaches the freed slot first (port blackout)."""
    r = enqueue_probability(1448, 1000, phase=phase)
    assert (r.p_x2, r.p_y2, r.p_both, r.p_neither) == (0.0, 1.0, 0.0, 0.0)


def test_full_randomization_lets_x2_in_more_often_than_not():
    r = enqueue_probability(1, 1000)
    assert r.p_x2 > 0.5 and r.p_y2 > 0.5
    # Randomization also loses both sometimes, and fills two slots sometimes.
    assert 0 < r.p_neither < 0.25 and r.p_both > 0


@pytest.mark.parametrize("phase", PHASES)
def test_outcomes_partition_and_x2_grows_as_rmin_falls(phase):
    rows = enqueue_sweep([1, 500, 1000, 1448], 4000, phase=phase)
    for r in rows:
        # X2 only, Y2 only, both and neither partition the trials.
        assert r.p_x2 + r.p_y2 - r.p_both + r.p_neither == pytest.approx(1.0)
    assert rows[0].p_x2 > rows[-1].p_x2 and rows[0].p_y2 < rows[-1].p_y2


def test_deterministic_and_seeded():
    assert enqueue_probability(100, 500, seed=3) == enqueue_probability(100, 500, seed=3)
    assert enqueue_probability(100, 500, seed=3) != enqueue_probability(100, 500, seed=4)


def test_bad_arguments():
    with pytest.raises(ValueError, match="rmin"):
        enqueue_probability(0)
    with pytest.raises(ValueError, match="rmin"):
        enqueue_probability(1500, mss=1448)
    with pytest.raises(ValueError, match="phase"):
        enqueue_probability(1, phase="late")


def test_cli_model_enqueue():
    r = cli("model", "enqueue", "--rmin", "1,1448", "--trials", "1000", "--json")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["rmin"] for x in rows] == [1, 1448]
    assert rows[0]["p_x2"] > 0.5 and rows[1]["p_x2"] == 0.0
    r = cli("model", "enqueue", "--rmin", "0")
    assert r.returncode == 2 and "rmin" in r.stderr
    r = cli("model", "enqueue")
    assert r.returncode == 0 and "P(X2)" in r.stdout
    # rMin is a payload in bytes (1 … MSS), and its header says so
    header = next(line for line in r.stdout.splitlines() if "P(X2)" in line)
    assert header.split("P(X2)")[0].strip() == "rMin (B)"
