"""An independent check of the pcap traces and of dcnsim's own counters:
Wireshark's TCP analysis (`tshark`) of an incast run with losses, ECN
marks and SACK, compared per flow with the `flows` table.

Each response flow is seen twice: at its sender (h1…h8: every
transmission, before any drop) and at the client h0 (what arrived, and
the ACKs it sent). The laws, and where tshark's heuristics legitimately
differ from dcnsim's counters:

* segments_sent = data packets in the sender's capture; acks_sent = ACKs
  in the receiver's capture (the captures are complete).
* retransmits = segments tshark flags as retransmission, fast
  retransmission, spurious retransmission or out-of-order at the sender
  (every resend has a sequence number below the highest sent; which of
  the four names tshark picks depends on its timing heuristics).
* fast retransmissions: tshark ≥ dcnsim. tshark calls any retransmission
  that follows two duplicate ACKs "fast", including RTO retransmissions
  after too few duplicates for dcnsim's threshold of 3.
* duplicate ACKs (tshark, at either end) = ooo_arrivals + dup_arrivals:
  with delayed ACKs off, each out-of-order or duplicate arrival makes the
  receiver repeat its cumulative ACK, and nothing else does.
* CE-marked data at the receiver = ecn_marks. ecn_cuts − 1 ≤ CWR-flagged
  data at the sender ≤ ecn_cuts + fast_retransmits + timeouts: CWR rides
  on the next new segment after any reduction (RFC 3168 §6.1.2), so a cut
  after the flow's last new segment is never signalled, and reductions
  before one new segment share its CWR.
  ECE-flagged ACKs ≥ ecn_marks (RFC 3168: ECE is latched until CWR, and
  every CE segment gets its own ACK).
* SACK: ACKs carrying SACK blocks ≥ ooo_arrivals (each out-of-order
  arrival is reported at once), and every block lies above the
  cumulative ACK it comes with.
* tshark's "previous segment not captured" is 0 at the sender (nothing
  it sent is missing from its own capture), and at the receiver it is at
  most the flow's data drops (each gap is at least one dropped packet).
"""

from __future__ import annotations

import shutil
import subprocess

import dcnsim
import pytest
from conftest import needs_core

TSHARK = shutil.which("tshark")
pytestmark = [
    needs_core,
    pytest.mark.skipif(
        TSHARK is None,
        reason="tshark not installed (Debian: apt-get install tshark; .ci/setup-tools does it in CI)",
    ),
]

SCENARIO = {
    "name": "tshark-incast",
    "seed": 3,
    "stop": "5s",
    # 8 servers into a 12 KB port that marks above 6 packets: drops, marks,
    # timeouts and SACK recovery in 3 blocks. Duplicate-ACK detection (not
    # the default RACK-TLP), whose fast retransmits tshark recognises.
    "topology": {"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "20us", "buffer": "12KB", "ecn_k": "6pkt"},
    "tcp": {"mss": 1024, "rto_min": "1ms", "sack": True, "recovery": "dupack", "ecn": True, "rwnd": "64pkt"},
    "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "64KB", "blocks": 3, "jitter": "2us"}],
    "pcap": {"hosts": "0-8"},
}

FIELDS = [
    "tcp.srcport", "tcp.dstport", "tcp.ack",
    "tcp.analysis.retransmission", "tcp.analysis.fast_retransmission", "tcp.analysis.out_of_order",
    "tcp.analysis.spurious_retransmission", "tcp.analysis.duplicate_ack", "tcp.analysis.lost_segment",
    "ip.dsfield.ecn", "tcp.flags.cwr", "tcp.flags.ece", "tcp.options.sack_le", "tcp.options.sack_re",
]
BEHIND = ["tcp.analysis.retransmission", "tcp.analysis.fast_retransmission", "tcp.analysis.out_of_order",
          "tcp.analysis.spurious_retransmission"]


def analyse(path):
    out = subprocess.run(
        [TSHARK, "-r", str(path), "-o", "tcp.analyze_sequence_numbers:TRUE", "-T", "fields", "-E", "occurrence=a",
         "-E", "aggregator=,", *[a for f in FIELDS for a in ("-e", f)]],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    return [dict(zip(FIELDS, line.split("\t"))) for line in out.splitlines()]


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    d = tmp_path_factory.mktemp("tshark")
    r = dcnsim.run(SCENARIO)
    r.write(d)
    return r, {name: analyse(d / name) for name in r.pcaps}


def count(rows, field, value=None):
    return sum(1 for x in rows if (x[field] == value if value is not None else x[field] != ""))


def test_the_run_has_what_the_laws_need(traced):
    r, _ = traced
    f = r.flows[r.flows.role == "response"]
    assert f.completed.all()
    for col in ("drops", "timeouts", "ooo_arrivals", "ecn_marks", "ecn_cuts"):
        assert f[col].sum() > 0, f"the incast should produce {col}"


def test_tshark_tcp_analysis_agrees_with_the_flow_counters(traced):
    r, pcaps = traced
    recv = pcaps["h0.pcap"]
    for _, fl in r.flows[r.flows.role == "response"].iterrows():
        port = str(1024 + int(fl.flow_id))  # pcap.rs: data port of flow i
        snd = pcaps[f"h{int(fl.src)}.pcap"]
        data_s = [x for x in snd if x["tcp.srcport"] == port]
        acks_s = [x for x in snd if x["tcp.dstport"] == port]
        data_r = [x for x in recv if x["tcp.srcport"] == port]
        acks_r = [x for x in recv if x["tcp.dstport"] == port]
        where = f"flow {fl.flow_id}"

        assert len(data_s) == fl.segments_sent, where
        assert len(acks_r) == fl.acks_sent, where
        behind = sum(1 for x in data_s if any(x[k] for k in BEHIND))
        assert behind == fl.retransmits, f"{where}: tshark sees {behind} resends, dcnsim counts {fl.retransmits}"
        assert count(data_s, "tcp.analysis.fast_retransmission") >= fl.fast_retransmits, where

        dup = fl.ooo_arrivals + fl.dup_arrivals
        assert count(acks_r, "tcp.analysis.duplicate_ack") == dup, where
        if fl.ack_drops == 0:
            assert count(acks_s, "tcp.analysis.duplicate_ack") == dup, where

        assert count(data_r, "ip.dsfield.ecn", "3") == fl.ecn_marks, where
        # CWR goes on the first new segment after any reduction of the
        # window, an echo's, a fast recovery's or a timeout's (RFC 3168
        # §6.1.2); reductions before the next new segment share one. An
        # echo's cut waits for its CWR before the next can come, so every
        # echo's cut but the last has its own.
        cwr = count(data_s, "tcp.flags.cwr", "1")
        reductions = fl.ecn_cuts + fl.fast_retransmits + fl.timeouts
        assert fl.ecn_cuts - 1 <= cwr <= reductions, f"{where}: {cwr} CWR, {fl.ecn_cuts} cuts, {reductions} in all"
        assert count(acks_r, "tcp.flags.ece", "1") >= fl.ecn_marks, where

        sacked = [x for x in acks_r if x["tcp.options.sack_le"]]
        assert len(sacked) >= fl.ooo_arrivals, where
        for x in sacked:
            ack = int(x["tcp.ack"])
            for le, re_ in zip(x["tcp.options.sack_le"].split(","), x["tcp.options.sack_re"].split(",")):
                assert ack < int(le) < int(re_), f"{where}: SACK block [{le}, {re_}) with ACK {ack}"

        assert count(data_s, "tcp.analysis.lost_segment") == 0, where
        assert count(data_r, "tcp.analysis.lost_segment") <= fl.drops, where
