"""`abc_limit`: slow start's most SMSS per ACK (issue 31 item 2).

With delayed ACKs (one ACK per 2 segments) a window of w segments returns
w/2 ACKs per round: with abc_limit = 1 (RFC 5681 §3.1, ns-3's TcpNewReno)
each adds one SMSS, w → 1.5 w; with 2 (RFC 3465's L) each adds the 2 SMSS
it acknowledges, w → 2 w. A lossless transfer of N segments from a window
of 1 then takes about log_1.5 N or log_2 N round trips.
"""

from __future__ import annotations

import math

import dcnsim
import pytest

SEGS = 4000
DELAY_S = 100e-6  # star: two links each way, RTT = 4 × delay (serialization negligible at 100 Gbps)


def _rounds(abc_limit: int) -> float:
    doc = {
        "name": f"abc-{abc_limit}", "seed": 1, "stop": "10s",
        "topology": {"kind": "star", "hosts": 2, "rate": "100Gbps", "delay": f"{DELAY_S * 1e6:g}us",
                     "buffer": "100000pkt", "nic_buffer": "100000pkt"},
        "routing": {"mode": "single"},
        "tcp": {"abc_limit": abc_limit, "init_cwnd": 1, "mss": 1460, "rwnd": "100MB", "delayed_ack": True,
                "delayed_ack_segments": 2, "delayed_ack_timeout": "200ms", "delayed_ack_quickack": 1},
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": f"{1460 * SEGS}B"}],
    }
    f = dcnsim.run(doc).flows.iloc[0]
    assert f.drops == 0 and bool(f.completed)
    return float(f.fct_s) / (4 * DELAY_S)


def test_one_smss_per_ack_grows_by_half_per_round():
    # the first segment is ACKed at once and the last round is partial: up to ~2 rounds fewer
    assert math.log(SEGS, 1.5) - 2.5 <= _rounds(1) <= math.log(SEGS, 1.5) + 1


def test_two_smss_per_ack_doubles_per_round():
    assert math.log(SEGS, 2) - 1 <= _rounds(2) <= math.log(SEGS, 2) + 1


def test_abc_limit_below_one_is_refused_naming_the_key():
    with pytest.raises(Exception, match=r"abc_limit.*≥ 1"):
        dcnsim.run({"name": "x", "seed": 1, "stop": "1s",
                    "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"},
                    "routing": {"mode": "single"}, "tcp": {"abc_limit": 0},
                    "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "10KB"}]})
