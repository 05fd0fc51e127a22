"""BBR and the Linux profile as a new user meets them: one BBR flow fills
an idle link with the standing queue tcp_bbr.c keeps (one BDP plus three
TSO bursts, not a full buffer), flows share a bottleneck and deliver what
they send, the profile's delayed ACKs and RTO floor show in the flows
table, and the sender's own NIC queue, which drops under the default
`nic_buffer` where Linux's TCP Small Queues would not, is said where a
BBR or Linux user reads (docs/bbr.md, docs/linux_profile.md). Laws, not
numbers from a run."""

from __future__ import annotations

from pathlib import Path

import dcnsim

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
MSS, WIRE = 1448, 1500  # the profile's mss, and mss + its 52 header bytes
TSO_BURST = 44  # bbr_tso_segs_goal at 1 Gbps and above: 64 KB / mss


def lone(cc: str = "bbr", nic_buffer: str | None = None, host_rate: str = "10Gbps") -> dcnsim.Scenario:
    """One bulk flow s -> r through a switch whose 10 Gbps port to r has 1000 packets."""
    topo = {"kind": "custom", "buffer": "1000pkt",
            "nodes": [{"name": "sw", "kind": "switch"}, {"name": "r", "kind": "host"},
                      {"name": "s", "kind": "host"}],
            "links": [{"a": "r", "b": "sw", "rate": "10Gbps", "delay": "10us"},
                      {"a": "s", "b": "sw", "rate": host_rate, "delay": "10us"}]}
    if nic_buffer is not None:
        topo["nic_buffer"] = nic_buffer
    return dcnsim.Scenario(name="lone", stop="100ms", topology=topo,
                           tcp=dcnsim.Tcp(profile="linux", cc=cc),
                           apps=[{"kind": "bulk", "src": 1, "dst": 0, "duration": "100ms"}])


def queue(r, node: str, to: str):
    q = r.queues
    return q[(q.node == node) & (q.to == to)].iloc[0]


def test_a_lone_bbr_flow_fills_the_link_with_one_bdp_plus_three_tso_bursts_not_the_buffer():
    r = dcnsim.run(lone(host_rate="40Gbps"))
    f = r.flows.iloc[0]
    assert f.cc == "bbr" and f.drops == 0 and not r.conservation_problems()
    # line rate less headers
    assert f.goodput_bps >= 0.97 * 10e9 * MSS / WIRE
    port = queue(r, "sw", "r")
    # PROBE_BW's 0.75 phase drains to bbr_inflight(bw, 1) = BDP + 3 TSO
    # bursts, so that budget stands in the queue; a few packets over it
    # for the 1.25 phase and STARTUP, never the 1000-packet buffer.
    assert port.mean_bytes / WIRE <= 3 * TSO_BURST + 12, port.mean_bytes / WIRE
    assert port.max_pkts < 500


def test_the_senders_own_nic_drops_by_default_and_not_when_unlimited():
    # The sender's link is the bottleneck: the standing queue is in its NIC.
    dflt = dcnsim.run(lone())
    unl = dcnsim.run(lone(nic_buffer="unlimited"))
    nic_d, nic_u = queue(dflt, "s", "sw"), queue(unl, "s", "sw")
    assert nic_d.limit_pkts == 100 and nic_d.dropped > 0
    assert dflt.flows.iloc[0].drops == nic_d.dropped  # every drop is the NIC's
    assert nic_u.dropped == 0 and unl.flows.iloc[0].drops == 0
    # the budget does not fit 100 packets; unlimited it stands there whole
    assert 100 < nic_u.max_pkts <= 3 * TSO_BURST + 100
    assert unl.flows.iloc[0].goodput_bps >= 0.97 * 10e9 * MSS / WIRE


def test_the_docs_say_the_nic_drops_where_a_bbr_or_linux_user_reads():
    for doc in ("bbr.md", "linux_profile.md"):
        text = (ROOT / "docs" / doc).read_text()
        assert "TCP Small Queues" in text and 'nic_buffer = "unlimited"' in text, doc
        assert "nic drops" in text, doc  # the summary line that reports them


def test_bbr_flows_share_a_bottleneck_and_deliver_every_byte_they_send():
    nodes = [{"name": "sw", "kind": "switch"}] + [{"name": f"h{i}", "kind": "host"} for i in range(5)]
    links = [{"a": f"h{i}", "b": "sw", "rate": "1Gbps", "delay": "10us"} for i in range(5)]
    sc = dcnsim.Scenario(
        name="share", stop="3s",
        topology={"kind": "custom", "buffer": "1000pkt", "nic_buffer": "unlimited",
                  "nodes": nodes, "links": links},
        tcp=dcnsim.Tcp(profile="linux", cc="bbr"),
        apps=[{"kind": "bulk", "src": s, "dst": 0, "size": "8MB"} for s in range(1, 5)])
    r = dcnsim.run(sc)
    f = r.flows
    assert f.completed.all() and not r.conservation_problems()
    assert (f.delivered_bytes == f.app_bytes).all() and (f.received_bytes == f.app_bytes).all()
    # what was sent once or more is what was delivered
    assert (f.bytes_sent - f.retx_bytes == f.app_bytes).all()
    # they ran together: each took a fair share of the time
    assert f.fct_s.max() <= 1.25 * f.fct_s.min(), f.fct_s.tolist()
    assert 4 * 8 * 2**20 * 8 / f.fct_s.max() >= 0.85 * 1e9 * MSS / WIRE


def test_the_profiles_delayed_acks_and_rto_floor_show_in_the_flows_table():
    from dcnsim.experiments.linux_profile.sync_reads import scenario

    for rto_min in (0.2, 0.01):
        r = dcnsim.run(scenario(16, {"profile": "linux", "rto_min": f"{rto_min * 1e3:g}ms"}, blocks=3))
        f = r.flows
        servers = f[f.src != 0]
        # delayed ACKs: about one ACK per two segments, not one per segment
        assert servers.acks_sent.sum() < 0.75 * servers.segments_sent.sum()
        hit = f[f.timeouts > 0]
        assert len(hit) > 0
        # timeout_period_s runs from the flow's last send, and the timer
        # from its last arming: a segment sent in recovery while the timer
        # ran (RFC 6298 §5.1 starts it only when it is not running) leaves
        # less than RTOmin between the two. Most expiries follow a flow
        # that went quiet, RTOmin after its last send.
        per = hit.timeout_period_s / hit.timeouts
        assert per.median() >= rto_min, (rto_min, per.median())
        if rto_min < 0.2:
            assert per.min() < 0.2  # the route's RTOmin, not Linux's 200 ms


def test_the_modern_study_says_its_linux_and_bbr_hosts_have_dropping_nic_queues():
    from dcnsim.experiments.modern.workloads import ku_points, oc_points, pa_points

    for points in (ku_points, pa_points, oc_points):
        for p in points(True, schemes=["Linux", "BBR"]):
            # a finite NIC queue (100 packets, the default where unset), not TSQ
            assert p.scenario["topology"].get("nic_buffer", "100pkt") == "100pkt", p.label
    text = (ROOT / "docs" / "modern.md").read_text()
    assert "TCP Small Queues" in text and "nic_buffer" in text


def test_keys_the_linux_stack_or_bbr_never_reads_are_named_not_ignored():
    import pytest

    def sc(**tcp):
        return dcnsim.Scenario(name="k", stop="1ms",
                               topology={"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "10us",
                                         "buffer": "100pkt"},
                               tcp=dcnsim.Tcp(profile="linux", **tcp),
                               apps=[{"kind": "bulk", "src": 1, "dst": 0, "size": "10KB"}])
    # NewReno's recovery keys act only without SACK, which the profile turns on
    with pytest.warns(dcnsim.DcnsimWarning, match="reno_hold changes nothing: it is read only with sack = false"):
        dcnsim.run(sc(reno_hold=False))
    # BBR sets cwnd from its model: the loss-based algorithms' growth keys do nothing
    with pytest.warns(dcnsim.DcnsimWarning, match='abc_limit changes nothing: it is read only with a cc other than "bbr"'):
        dcnsim.run(sc(cc="bbr", abc_limit=2))
