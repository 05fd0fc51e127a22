"""The summary's `ecn` line counts marks, not packets: a port counts each
CE it sets, so a packet marked at two ports counts twice and DCTCP's
ECN-capable ACKs count too. Where that sum differs from the data packets
the receivers saw marked, the line says both."""

from __future__ import annotations

import re
import warnings

from conftest import needs_core

pytestmark = needs_core


def _ecn_line(result) -> str:
    from dcnsim.cli import format_summary

    return next(line for line in format_summary(result).splitlines() if line.strip().startswith("ecn "))


def _count(text: str) -> int:
    return int(text.replace(",", ""))


def test_marks_on_a_fabric_are_told_apart_from_marked_data():
    import dcnsim

    doc = {"stop": "20ms", "seed": 3,
           "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "100KB",
                        "ecn_k": "10pkt"},
           "tcp": {"cc": "dctcp"},
           # both ways through host 0's port: the ACKs of 0's own flows queue
           # behind the data coming in, and are marked there
           "apps": [{"kind": "bulk", "src": s, "dst": d, "size": "5MB"}
                    for s, d in ((4, 0), (8, 0), (12, 0), (0, 4), (0, 8), (0, 12))]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
    line = _ecn_line(r)
    m = re.search(r"([\d,]+) CE marks at ([\d,]+) ports? \(([\d,]+) data packets arrived marked", line)
    assert m, line
    marks, data = _count(m.group(1)), _count(m.group(3))
    assert marks == int(r.queues["marked"].sum())
    assert data == int(r.flows["ecn_marks"].sum())
    # every marked arrival was marked by some port: never more data than marks
    assert 0 < data < marks


def test_one_hop_of_data_alone_is_one_count():
    """DCQCN's data crosses one marking port and its ACKs carry no ECT:
    each mark is one marked arrival, and the line gives the one number.
    The flows finish before `stop`, so no marked packet is still on its
    way when the counts are taken (at 5 ms four were, once DCQCN's
    increases sent at their new rate)."""
    import dcnsim

    doc = {"stop": "50ms", "topology": {"kind": "star", "hosts": 9, "rate": "10Gbps", "delay": "2us",
                                       "buffer": "1MB", "ecn_k": "20pkt"},
           "tcp": {"transport": "dcqcn"},
           "apps": [{"kind": "bulk", "src": s, "dst": 0, "size": "2MB"} for s in range(1, 9)]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
    line = _ecn_line(r)
    assert r.flows["completed"].all() and r.summary["packets_dropped"] == 0
    assert int(r.queues["marked"].sum()) == int(r.flows["ecn_marks"].sum()) > 0
    assert "data packets arrived marked" not in line and "CE marks at 1 port" in line
