"""Which byte columns count payload and which count wire bytes (header and
``l2_overhead`` included): docs/python.md says it per column, and a one-flow
run holds it to that."""

from __future__ import annotations

import re
from pathlib import Path

import dcnsim
from conftest import needs_core
from dcnsim.result import TABLE_SCHEMA

DOC = Path(__file__).resolve().parent.parent / "docs" / "python.md"


def _paragraph() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("**Byte columns count payload or wire bytes.**")
    return text[start:text.index("\n\n", start)]


def test_the_docs_say_payload_or_wire_of_every_byte_column():
    said = set(re.findall(r"`(?:\w+\.)?(\w+)`", _paragraph()))
    byte_columns = {c for cols in TABLE_SCHEMA.values() for c, _ in cols
                    if "bytes" in c or (c.endswith("_bps") and c != "rate_bps")}
    assert byte_columns - said == set()


@needs_core
def test_queues_count_header_and_l2_overhead_flows_count_payload():
    r = dcnsim.run({"stop": "5ms", "seed": 1, "l2_overhead": 38,
                    "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "5us", "buffer": "20pkt"},
                    "trace": {"interval": "50us", "queues": "all"},
                    "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "100KB"}]})
    f = r.flows.iloc[0]
    q = r.queues.set_index(["node", "to"])
    assert f.completed and f.retx_bytes == 0
    assert f.bytes_sent == f.app_bytes == f.delivered_bytes == 102400  # payload
    wire = 40 + 38
    nic = q.loc[("h1", "sw")]
    assert nic.tx_pkts == f.segments_sent == 71
    assert nic.tx_bytes == f.bytes_sent + f.segments_sent * wire == 107938  # the docs' example
    acks = q.loc[("h0", "sw")]
    assert acks.tx_bytes == acks.tx_pkts * wire  # a pure ACK is header + l2_overhead
    # a queue holds its segments at their wire sizes: full ones and the
    # flow's last (102,400 - 70 × 1,460 = 200 bytes of payload)
    ts = r.queue_ts.merge(r.queues[["queue_id", "node", "to"]], on="queue_id")
    data = ts[((ts.node == "h1") & (ts.to == "sw")) | ((ts.node == "sw") & (ts.to == "h0"))]
    assert set(data.bytes - data.pkts * (1460 + wire)) <= {0, 200 - 1460}
    assert (data.bytes > 40000).any()
