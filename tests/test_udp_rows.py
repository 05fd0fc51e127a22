"""A UDP source's flow row: finished at its own `stop` (or at the run's,
with none) or at its last datagram's arrival, whichever is later;
unfinished — no end, as a TCP flow's — when the run stops first; its
goodput is over the time it ran either way."""

from __future__ import annotations

import math
import warnings

import pytest
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
    # its own stop, or its last datagram's arrival a path's latency after it (two 10 us links, store and forward)
    assert f.loc[2, "completed"] and 0.005 <= f.loc[2, "end_s"] < 0.005 + 60e-6
    assert f.loc[2, "fct_s"] == f.loc[2, "end_s"]
    assert not f.loc[3, "completed"]
    assert math.isnan(f.loc[3, "end_s"]) and math.isnan(f.loc[3, "fct_s"])
    # its goodput is still a rate over the 10 ms it ran: about its 100 Mbps on the wire
    assert 0.9e8 < f.loc[3, "goodput_bps"] < 1.0e8


def test_a_source_past_the_link_rate_reads_at_most_the_link_rate():
    """A 2 Gbps source into a 1 Gbps link for 10 ms, with a deep NIC queue
    that drains after the source stops while another app keeps the run
    going: the queued datagrams arrived after the source's stop, and over
    its 10 ms of sending they read 1.10 Gbps of payload on a 1 Gbps link.
    Their bytes are now over the time they took to arrive."""
    import dcnsim

    doc = {"stop": "30ms", "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us",
                                        "buffer": "4MB", "nic_buffer": "1000pkt"},
           "apps": [{"kind": "udp_cbr", "src": 0, "dst": 1, "rate": "2Gbps", "stop": "10ms"},
                    {"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "1Mbps"}]}
    f = dcnsim.run(doc).flows.set_index("src")
    payload_share = 1460 / (1460 + 28)  # at most; l2_overhead on the wire only lowers it
    got = f.loc[0, "goodput_bps"]
    # the 1,000-packet queue drains for about 12 ms after the stop: a rate over the sending time would be ~2.2x
    assert f.loc[0, "delivered_bytes"] * 8 / 0.010 > 1.5e9
    assert 0.9 * 1e9 * payload_share < got <= 1e9 * payload_share, got
    # it ends with its last datagram, as a TCP flow with its last byte: its bytes over its fct are its goodput
    assert f.loc[0, "completed"] and f.loc[0, "end_s"] > 0.0105 and f.loc[0, "fct_s"] == f.loc[0, "end_s"]
    assert f.loc[0, "delivered_bytes"] * 8 / f.loc[0, "fct_s"] == pytest.approx(got, rel=1e-12)


def test_the_runs_goodput_holds_to_the_link_when_datagrams_arrive_after_the_stop():
    """The run's `goodput` (metrics, `dcnsim run`'s line, tune's objective)
    spans the rows' start and end: with the UDP row ending at its source's
    stop, 1 ms of a 2 Gbps source into a 1 Gbps link read 1.97 Gbps."""
    import dcnsim

    doc = {"stop": "5ms", "until": "stop", "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps",
                                                         "delay": "10us", "buffer": "1MB"},
           "apps": [{"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "2Gbps", "stop": "1ms"}]}
    r = dcnsim.run(doc)
    assert r.flows.delivered_bytes.iloc[0] * 8 / 1e-3 > 1.5e9  # more than 1 ms of the link's bytes arrived
    assert 0.9e9 * 1460 / 1488 < r.metrics["goodput_bps"] <= 1e9 * 1460 / 1488


def test_a_source_that_starts_after_the_run_has_no_start_and_no_rate():
    """A UDP source starting past the run's end had `start_s` after
    `sim_time_s` and goodput 0, and stretched the run's goodput window over
    the whole run: a 0.4 ms bulk transfer of 50 KB read 20 Mbps."""
    import dcnsim

    late = {"kind": "udp_cbr", "src": 3, "dst": 0, "rate": "100Mbps", "start": "50ms", "stop": "60ms"}
    doc = {"stop": "20ms", "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us",
                                        "buffer": "64KB"},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "50KB"}, late]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
        alone = dcnsim.run({**doc, "apps": doc["apps"][:1]})
    u = r.flows.set_index("src").loc[3]
    assert math.isnan(u.start_s) and math.isnan(u.goodput_bps) and math.isnan(u.end_s) and not u.completed
    assert u.segments_sent == 0
    # the run's goodput is the bulk flow's alone, as with no UDP app at all
    assert r.metrics["goodput_bps"] == alone.metrics["goodput_bps"] > 5e8


def test_a_source_whose_jittered_start_passes_its_stop_never_ran():
    """`start_jitter` is drawn after `stop > start` is checked: a start
    pushed past the source's own stop sent nothing, yet its row read
    start after end, goodput 0 (starved) and completed (the session's
    review). It has no start and no rate, as a source that never began."""
    import dcnsim

    doc = {"stop": "20ms", "seed": 1, "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us",
                                                   "buffer": "64KB"},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "50KB"},
                    {"kind": "udp_cbr", "src": 2, "dst": 0, "rate": "100Mbps", "stop": "1ms",
                     "start_jitter": "10ms"}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        u = dcnsim.run(doc).flows.set_index("src").loc[2]
    assert u.segments_sent == 0  # the seed puts its start past 1 ms
    assert math.isnan(u.start_s) and math.isnan(u.goodput_bps) and math.isnan(u.end_s) and not u.completed
