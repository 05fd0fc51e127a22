"""`topology.ecn_non_ect`: what a switch port over its marking threshold
K does with a packet that is not ECN-capable. "queue" (the default) queues
it as drop-tail does; "drop" drops it where an ECN-capable packet would be
marked, as RED/WRED with ECN does (ns-3's RedQueueDisc with UseEcn, Linux
`red ecn`). Checked by the laws each policy implies, not by numbers."""

from __future__ import annotations

import copy

import dcnsim
import pytest
from conftest import cli, needs_core

pytestmark = needs_core

K = 20


def two_long_flows(cc: str, non_ect: str | None) -> dict:
    """Two long flows into one 1 Gbps port of a 100 KB buffer (about 68
    full packets: far above K) for 200 ms."""
    topo = {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "25us",
            "buffer": "100KB", "ecn_k": f"{K}pkt"}
    if non_ect is not None:
        topo["ecn_non_ect"] = non_ect
    return {
        "name": f"two-long-{cc}-{non_ect}", "seed": 1, "stop": "200ms",
        "topology": topo, "tcp": {"cc": cc},
        "apps": [{"kind": "bulk", "src": s, "dst": 0, "duration": "200ms"} for s in (1, 2)],
    }


def bottleneck(r):
    q = r.tables["queues"]
    return q[(q["node"] == "sw") & (q["to"] == "h0")].iloc[0]


def test_dropping_non_ect_holds_newreno_at_the_threshold():
    """NewReno sends no ECN-capable packet: with "drop" its queue never
    holds more than K + 1 packets (one is admitted at exactly K), every
    drop at the port is one at the threshold, and the link still runs
    at line rate (K is above the bandwidth-delay product); with "queue"
    the same flows fill the buffer far past K and nothing is dropped at
    the threshold."""
    drop = dcnsim.run(two_long_flows("newreno", "drop"))
    q = bottleneck(drop)
    assert q["max_pkts"] <= K + 1
    assert q["marked"] == 0
    assert q["dropped"] > 0
    at_k = drop.summary["packets_dropped_non_ect"]
    assert at_k >= q["dropped"] > 0
    assert q["utilization"] > 0.95

    with pytest.warns(dcnsim.DcnsimWarning, match="nothing will be marked"):
        queue = dcnsim.run(two_long_flows("newreno", "queue"))
    assert bottleneck(queue)["max_pkts"] > 2 * K
    assert "packets_dropped_non_ect" not in queue.summary


def test_the_default_is_queue():
    with pytest.warns(dcnsim.DcnsimWarning, match="nothing will be marked"):
        a = dcnsim.run(two_long_flows("newreno", None))
    with pytest.warns(dcnsim.DcnsimWarning, match="nothing will be marked"):
        b = dcnsim.run(two_long_flows("newreno", "queue"))
    assert a.tables["queues"].equals(b.tables["queues"])
    assert a.tables["flows"].equals(b.tables["flows"])


def test_dropping_changes_nothing_when_every_packet_over_k_can_be_marked():
    """DCTCP's data is ECN-capable and its ACKs meet no queue over K (the
    reverse path is idle): "drop" has nothing to drop, and the run is the
    same packet for packet."""
    drop = dcnsim.run(two_long_flows("dctcp", "drop"))
    queue = dcnsim.run(two_long_flows("dctcp", "queue"))
    assert drop.summary["packets_dropped_non_ect"] == 0
    assert bottleneck(drop)["marked"] > 0
    for t in ("flows", "queues", "queue_inputs"):
        assert drop.tables[t].equals(queue.tables[t]), t


@pytest.mark.parametrize("cc", ["dctcp", "fast"])
def test_an_ecn_transports_incast_loses_nothing_at_k(cc):
    """A DCTCP (or FaST) incast: its data, its retransmissions and its
    pure ACKs are all ECN-capable (Linux's tcp_ca_needs_ecn), so the
    workers' ACKs of the requests, which cross the hot port, are marked
    there and not dropped: "drop" drops nothing, and the run is the same
    packet for packet as with "queue" (ns-3's RED port likewise drops only
    for lack of room: validation/README.md)."""
    doc = {"name": "pa", "seed": 1, "stop": "2s",
           "topology": {"kind": "star", "hosts": 41, "rate": "1Gbps", "delay": "25us",
                        "buffer": "100KB", "ecn_k": f"{K}pkt", "ecn_non_ect": "drop"},
           "tcp": {"cc": cc, "rto_min": "10ms"},
           "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-40",
                     "response": "20KB", "queries": 10}]}
    drop = dcnsim.run(doc)
    queued = copy.deepcopy(doc)
    queued["topology"]["ecn_non_ect"] = "queue"
    queue = dcnsim.run(queued)
    assert drop.summary["packets_dropped_non_ect"] == 0
    assert bottleneck(drop)["marked"] > 0
    for t in ("flows", "queues", "queue_inputs", "queries", "losses"):
        assert drop.tables[t].equals(queue.tables[t]), t


def test_mixed_transports_newreno_loses_at_k_dctcp_is_marked():
    """DCTCP and NewReno into one gated port: the NewReno flow's data is
    dropped at K, the DCTCP flow's marked (every drop at the port is a
    packet without ECT at the threshold), so DCTCP keeps most of the link,
    where with "queue" NewReno fills the buffer past K and takes the
    larger share (the flows' NICs may drop a few of their own at the
    start: not the port's)."""
    doc = two_long_flows("dctcp", "drop")
    doc["apps"][1]["tcp"] = {"cc": "newreno"}
    drop = dcnsim.run(doc)
    f = drop.tables["flows"].set_index("src")
    q = bottleneck(drop)
    assert q["dropped"] == drop.summary["packets_dropped_non_ect"] > 0
    assert f.loc[2, "drops"] >= q["dropped"]
    assert f.loc[1, "ecn_marks"] > 0
    assert f.loc[1, "goodput_bps"] > f.loc[2, "goodput_bps"]
    queued = copy.deepcopy(doc)
    queued["topology"]["ecn_non_ect"] = "queue"
    g = dcnsim.run(queued).tables["flows"].set_index("src")
    assert g.loc[2, "goodput_bps"] > g.loc[1, "goodput_bps"]


def test_the_command_line_names_the_policy_and_its_drops(tmp_path):
    ok = cli("run", "scenarios/longflows.toml", "--set", "topology.ecn_k=20pkt",
             "--set", "topology.ecn_non_ect=drop", "--set", "stop=50ms", "--no-progress")
    assert ok.returncode == 0, ok.stderr
    assert "packets without ECT dropped over ecn_k" in ok.stdout
    # no "nothing will be marked" warning: the threshold now drops
    assert "nothing will be marked" not in ok.stderr
    bad = cli("run", "scenarios/longflows.toml", "--set", "topology.ecn_k=20pkt",
              "--set", "topology.ecn_non_ect=red", "--no-progress")
    assert bad.returncode != 0
    assert "topology.ecn_non_ect" in bad.stderr and "drop" in bad.stderr


def test_gated_fabric_gives_one_threads_bits(monkeypatch):
    """A fat-tree whose ports drop non-ECT packets at K, NewReno and DCTCP
    flows across pods: the same tables on one thread and on two."""
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    apps = []
    for s in range(16):
        app = {"kind": "bulk", "src": s, "dst": (s + 5) % 16, "duration": "2ms"}
        if s % 2:
            app["tcp"] = {"cc": "newreno"}
        apps.append(app)
    doc = {"name": "gated-k4", "seed": 2, "stop": "3ms",
           "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                        "buffer": "100KB", "ecn_k": "30KB", "ecn_non_ect": "drop"},
           "tcp": {"cc": "dctcp", "rto_min": "1ms"}, "apps": apps}
    one = dcnsim.run({**doc, "threads": 1})
    many = dcnsim.run({**doc, "threads": 2})
    assert many.timing["threads"] == 2
    assert one.summary["packets_dropped_non_ect"] > 0
    for t in ("flows", "queues", "queue_inputs", "losses"):
        assert one.tables[t].equals(many.tables[t]), t
