"""The soak benchmark's scenario (`dcnsim bench --scenario soak`) is valid
and has churn; the benchmark itself is not a test (it takes minutes)."""

from __future__ import annotations

import dcnsim
from conftest import needs_core
from dcnsim import bench


def test_soak_group_expands_to_the_three_stops():
    assert bench.GROUPS["soak"] == ["soak_10s", "soak_30s", "soak_60s"]
    assert all(n in bench.SCENARIOS for n in bench.GROUPS["soak"])
    assert not set(bench.GROUPS["soak"]) & set(bench.DEFAULT)


@needs_core
def test_soak_scenario_is_valid_and_churns():
    long, short = bench.soak(60), bench.soak(10)
    assert dcnsim.validate(long) == []
    # The same flows whatever the stop: the short run is a prefix of the long one.
    assert long["apps"] == short["apps"] and short["stop"] == "10s"
    starts = sorted(float(a["start"][:-2]) / 1e6 for a in long["apps"])
    assert len(starts) > 10_000 and starts[0] < 0.1 and starts[-1] > 59.9
    # Poisson arrivals: every 10 s has about a sixth of the flows.
    for t in range(0, 60, 10):
        n = sum(t <= s < t + 10 for s in starts)
        assert abs(n - len(starts) / 6) < 0.1 * len(starts) / 6
