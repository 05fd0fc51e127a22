"""Times a run reports are the seconds a user wrote: `stop = "100ms"` reads
back as 0.1, the value `dcnsim.units.parse_time` gives, not
0.09999999999999999 (ps × 1e-12 rounds twice)."""

from __future__ import annotations

import warnings

import pytest
from conftest import needs_core

pytestmark = needs_core


@pytest.mark.parametrize("stop,start", [("100ms", "30ms"), ("300ms", "100ms"), ("700us", "300us"),
                                        ("1.1ms", "0.3ms")])
def test_the_reported_times_are_the_times_written(stop, start):
    import dcnsim
    from dcnsim.units import parse_time

    doc = {"stop": stop, "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us",
                                      "buffer": "100KB"},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1GB", "start": start}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)  # 1 GB does not finish: unfinished
        r = dcnsim.run(doc)
    assert r.summary["sim_time_s"] == parse_time(stop)
    # a flow's start is reported the same way
    assert r.flows["start_s"].tolist() == [parse_time(start)]
