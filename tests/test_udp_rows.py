"""A UDP source's flow row: finished at its own `stop` (or at the run's,
with none), unfinished — no end, as a TCP flow's — when the run stops
first; its goodput is over the time it ran either way."""

from __future__ import annotations

import math
import warnings

from conftest import needs_core

pytestmark = needs_core


def test_a_source_cut_off_by_the_run_has_no_end():
    import dcnsim

    doc = {"stop": "10ms", "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us",
                                        "buffer": "100KB"},
           "apps": [{"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "100Mbps"},
                    {"kind": "udp_cbr", "src": 2, "dst": 0, "rate": "100Mbps", "stop": "5ms"},
                    {"kind": "udp_cbr", "src": 3, "dst": 0, "rate": "100Mbps", "stop": "50ms"}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        f = dcnsim.run(doc).flows.set_index("src")
    assert f.loc[1, "completed"] and f.loc[1, "end_s"] == 0.01
    assert f.loc[2, "completed"] and f.loc[2, "end_s"] == 0.005 and f.loc[2, "fct_s"] == 0.005
    assert not f.loc[3, "completed"]
    assert math.isnan(f.loc[3, "end_s"]) and math.isnan(f.loc[3, "fct_s"])
    # its goodput is still a rate over the 10 ms it ran: about its 100 Mbps on the wire
    assert 0.9e8 < f.loc[3, "goodput_bps"] < 1.0e8
