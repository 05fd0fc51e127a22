"""A pcap records what the wire carried: a header trimmed by a switch is
recorded without the payload it lost, so a receiver's trace never holds
more bytes than its link delivered, and NDP's PULLs are not read as ECN
echoes."""

from __future__ import annotations

import struct
from pathlib import Path

import dcnsim
import pytest
from conftest import needs_core, pcap_records

pytestmark = needs_core

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
H0 = bytes([10, 0, 0, 1])


def _tcp_packets(data: bytes):
    """(source IP, destination IP, IP total length, TCP reserved bits, TCP
    flags) of each TCP record of a trace."""
    pcap_records(data)  # the file's structure
    off, out = 24, []
    while off < len(data):
        _, _, incl, _ = struct.unpack("<IIII", data[off : off + 16])
        pkt = data[off + 16 : off + 16 + incl]
        if pkt[9] == 6:
            out.append((pkt[12:16], pkt[16:20], struct.unpack(">H", pkt[2:4])[0], pkt[32] & 0x0E, pkt[33]))
        off += 16 + incl
    return out


def _run(transport: str):
    sc = dcnsim.load_scenario(SCENARIOS / "ndp_incast.toml")
    sc["stop"] = "3ms"
    sc["tcp"]["transport"] = transport
    sc["pcap"] = {"hosts": [0]}
    with pytest.warns(dcnsim.DcnsimWarning):  # cut short: the query is not done
        return dcnsim.run(sc)


@pytest.mark.parametrize("transport", ["ndp", "tcp"])
def test_a_receivers_trace_never_holds_more_than_its_link_carried(transport):
    r = _run(transport)
    got = [(ip_len, res, f) for _, dst, ip_len, res, f in _tcp_packets(r.pcaps["h0.pcap"]) if dst == H0]
    trimmed = [ip_len for ip_len, res, _ in got if res & 0x04]
    assert trimmed, "the port to h0 trims (the case under test)"
    # a header of 64 B on the wire: IP and TCP headers, nothing of the 9,000 B
    assert max(trimmed) < 100
    port = r.queues[(r.queues["node"] == "sw") & (r.queues["to"] == "h0")]
    carried = int(port["tx_bytes"].iloc[0])  # wire bytes: each packet's IP length or more
    assert sum(ip_len for ip_len, _, _ in got) <= carried


def test_an_ndp_pull_is_recorded_as_a_pull_not_an_ecn_echo():
    r = _run("ndp")
    # what h0 sent: ACKs, NACKs, pulls
    sent = [(res, f) for src, _, _, res, f in _tcp_packets(r.pcaps["h0.pcap"]) if src == H0]
    assert any(res & 0x02 for res, _ in sent), "the receiver pulls"
    assert not any(f & 0xC0 for _, f in sent), "NDP echoes no ECN and sends no CWR"


def test_a_packet_dropped_at_its_own_nic_is_not_in_the_senders_trace():
    """A sender's trace holds what its NIC queue accepted, as tcpdump (which
    taps after the qdisc) and ns-3's device trace do: with drops at the
    sender's own 100-packet NIC queue and none in the fabric, every data
    packet in the sender's trace reaches the receiver, and the trace counts
    exactly the NIC queue's accepted packets."""
    sc = {
        "name": "nic-drops",
        "seed": 1,
        "stop": "20ms",
        "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "5us", "buffer": "4MB"},
        # BBR's startup overruns a 100-packet NIC queue at 10 Gbps
        "tcp": {"cc": "bbr", "sack": True},
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "20MB"}],
        "pcap": {"hosts": [0, 1]},
    }
    r = dcnsim.run(sc)
    nic = r.queues[(r.queues["node"] == "h1") & (r.queues["to"] == "sw")].iloc[0]
    switch = r.queues[r.queues["node"] == "sw"]
    assert int(nic["dropped"]) > 0, "the case under test: drops at the sender's own NIC"
    assert int(switch["dropped"].sum()) == 0
    h1, h0 = bytes([10, 0, 0, 2]), H0
    sent = [p for p in _tcp_packets(r.pcaps["h1.pcap"]) if p[0] == h1 and p[1] == h0]
    arrived = [p for p in _tcp_packets(r.pcaps["h0.pcap"]) if p[0] == h1 and p[1] == h0]
    assert len(sent) == int(nic["enqueued"])
    # what left h1 and did not arrive is still on its way at the end
    assert 0 <= len(sent) - len(arrived) <= int(r.summary["packets_in_flight"])
