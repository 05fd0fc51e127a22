"""numpy integers as seeds: run's seed=, grid's seeds=, a Point's seed
(audit 27, F2)."""

from __future__ import annotations

import dcnsim
import numpy as np
import pytest
from conftest import needs_core
from dcnsim.sweep import Point, grid, run_sweep


def tiny() -> dcnsim.Scenario:
    return dcnsim.Scenario(topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="10us", buffer="32KB"),
                           apps=dcnsim.SyncReads(client=0, servers="1-2", sru="8KB", blocks=1), stop="5ms")


@needs_core
def test_run_takes_a_numpy_integer_seed():
    r = dcnsim.run(tiny(), seed=np.int64(3))
    assert r.summary["seed"] == 3 and type(r.scenario["seed"]) is int
    assert r.summary == dcnsim.run(tiny(), seed=3).summary
    for bad in (np.True_, True, 1.5, "3", -1):
        with pytest.raises(dcnsim.ScenarioError, match="seed: must be an integer"):
            dcnsim.run(tiny(), seed=bad)


def test_grid_takes_seeds_as_a_numpy_array():
    pts = grid(tiny(), {"stop": ["1ms"]}, seeds=np.arange(1, 3))
    assert [p.seed for p in pts] == [1, 2] and all(type(p.seed) is int for p in pts)
    assert [p.label for p in pts] == ["stop=1ms__seed=1", "stop=1ms__seed=2"]
    # an empty array is read without its ambiguous truth, and refused as an
    # empty list is (it ran the file's own seed, unlabelled)
    with pytest.raises(ValueError, match="grid: seeds: no values"):
        grid(tiny(), {"stop": ["1ms"]}, seeds=np.array([], dtype=int))
    with pytest.raises(ValueError, match="seed: given both"):
        grid(tiny(), {"seed": [1]}, seeds=np.arange(1, 3))


@needs_core
def test_numpy_seeds_run_in_a_sweep(tmp_path):
    pts = grid(tiny(), {"stop": ["5ms"]}, seeds=list(np.arange(1, 3))) + [Point("p", tiny(), np.int64(4))]
    df = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert list(df["seed"]) == [1, 2, 4]


@needs_core
def test_numpy_arrays_in_a_scenario_are_the_lists_they_hold():
    # were "unsupported value of type numpy.ndarray" at pcap.hosts and apps[0].cdf
    cdf = [[1000, 0], [20000, 0.6], [100000, 1]]
    listed = {"stop": "3ms", "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us",
                                          "buffer": "100KB"},
              "pcap": {"hosts": [0, 1]},
              "apps": [{"kind": "poisson", "load": 0.3, "cdf": cdf, "duration": "2ms"}]}
    arrays = dcnsim.with_overrides(listed, {"pcap.hosts": np.arange(2), "apps.0.cdf": np.array(cdf)})
    a, b = dcnsim.run(arrays), dcnsim.run(listed)
    assert a.scenario == b.scenario and type(a.scenario["pcap"]["hosts"][0]) is int
    assert a.summary == b.summary and a.pcaps == b.pcaps
    # a NaN inside an array is refused where it sits, as in a list
    bad = dcnsim.with_overrides(listed, {"apps.0.cdf": np.array([[1000, 0], [np.nan, 1.0]])})
    with pytest.raises(dcnsim.ScenarioError, match=r"apps\[0\]\.cdf\[1\]\[0\]: nan is not a finite number"):
        dcnsim.run(bad)
