"""NDP and trimming from Python (issue 47): the builders, ``dcnsim.run`` and
the ``dcnsim`` command accept them, results carry their counters, and bad
keys are named. The transport's laws are in crates/dcnsim/tests/ndp.rs."""

from __future__ import annotations

import json

import dcnsim
import pytest
from conftest import cli, needs_core
from dcnsim import ScenarioError

pytestmark = needs_core


def incast(trimming: bool) -> dcnsim.Scenario:
    """Eight senders of 30 packets into one host of a k = 4 fat-tree whose
    ports hold 8 packets: the burst overflows the last hop."""
    return dcnsim.Scenario(
        topology=dcnsim.FatTree(k=4, rate="100Gbps", delay="1us", buffer="72000B", nic_buffer="unlimited"),
        routing="rps",
        tcp=dcnsim.Tcp(transport="ndp", mss=9000, header=64, ndp_initial_window=30, ndp_rto="5ms"),
        apps=[dcnsim.Bulk(src=s, dst=0, size="270000B") for s in range(1, 9)],
        trimming={} if trimming else None,
        stop="1s",
    )


@pytest.mark.parametrize("ties", ["fifo", "seeded"])
def test_ndp_incast_from_python_trims_and_delivers_everything(ties):
    # the seeded order names an instant's events by their ranks: a pacer's
    # or serializer's rank must name it again, not the sample sharing its kind
    r = dcnsim.run({**incast(True).to_dict(), "ties": ties})
    flows = r.flows
    assert set(flows["transport"]) == {"ndp"}
    assert (flows["delivered_bytes"] == 270000).all()
    assert flows["timeouts"].sum() == 0
    trimmed = r.summary["packets_trimmed"]
    assert trimmed > 0 and r.summary["header_drops"] == 0
    # each trimmed packet is answered by a NACK and sent again, once
    assert flows["retransmits"].sum() == trimmed
    # the senders heard each of those NACKs (none dropped: the header
    # queue had room), and one pull per packet the receivers got beyond
    # the unsolicited windows, at most
    assert r.summary["ndp_nacks"] == trimmed and r.summary["ndp_bounces"] == 0
    assert 0 < r.summary["ndp_pulls"] <= r.summary["packets_delivered"]
    # without trimming the same burst is lost and waits for the timeout
    plain = dcnsim.run(incast(False))
    assert plain.flows["timeouts"].sum() > 0
    assert "packets_trimmed" not in plain.summary
    assert plain.summary["ndp_nacks"] == 0
    # `enabled = false` is the table taken away (a sweep's on/off axis)
    off = dcnsim.run({**incast(True).to_dict(), "trimming": {"enabled": False}})
    assert off.flows.equals(plain.flows) and off.summary == plain.summary


def test_ndp_from_the_command_line(tmp_path):
    path = tmp_path / "ndp.json"
    path.write_text(json.dumps(incast(True).to_dict()))
    out = tmp_path / "out"
    p = cli("run", str(path), "--out", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["packets_trimmed"] > 0
    # the printed summary says what the ports trimmed and what NDP heard of it
    lines = {ln.split()[0]: ln for ln in p.stdout.splitlines() if ln.startswith("  ") and ln.split()}
    assert f"{summary['packets_trimmed']:,.0f} packets trimmed to headers" in lines["trimming"]
    assert f"senders heard {summary['ndp_nacks']:,.0f} NACKs" in lines["ndp"]


@pytest.mark.parametrize("change, path", [
    ({"tcp": {"transport": "ndpp"}}, "tcp.transport"),
    ({"tcp": {"ndp_pull_rate": 1.5}}, "tcp.ndp_pull_rate"),
    ({"trimming": {"header_bufer": "1KB"}}, "trimming.header_bufer"),
    ({"trimming": {"return_to_sender": "yes"}}, "trimming.return_to_sender"),
])
def test_bad_ndp_and_trimming_keys_are_named(change, path):
    doc = incast(True).to_dict()
    for k, v in change.items():
        doc[k] = {**doc.get(k, {}), **v}
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(doc)
    assert path in str(e.value)


def test_the_shipped_incast_trims_instead_of_timing_out(tmp_path):
    """scenarios/ndp_incast.toml: with trimming every overflow is resent on
    its NACK (no timeout, every byte delivered, each trimmed packet answered
    once); the same ports drop-tail (`trimming.enabled = false`) leave NDP
    waiting on its timeouts."""
    from conftest import SCENARIOS

    out = tmp_path / "on"
    p = cli("run", str(SCENARIOS / "ndp_incast.toml"), "--out", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["packets_trimmed"] > 0 and s["header_drops"] == 0 and s["packets_dropped"] == 0
    assert s["ndp_nacks"] == s["packets_trimmed"] and s["timeouts"] == 0
    assert s["n_completed"] == s["n_flows"]
    off = tmp_path / "off"
    p = cli("run", str(SCENARIOS / "ndp_incast.toml"), "--set", "trimming.enabled=false", "--out", str(off),
            "--no-progress")
    assert p.returncode == 0, p.stderr
    s = json.loads((off / "summary.json").read_text())
    assert "packets_trimmed" not in s and s["timeouts"] > 0 and s["packets_dropped"] > 0



def test_a_port_buffer_in_packets_gives_the_header_queue_its_bytes():
    """The shipped incast's ports written as 15 packets instead of their
    135,000 B: the default header queue is twice the data queue's bytes
    either way (htsim's), so no header is dropped and no flow times out.
    Counted in headers it held 30 (1.9 KB) and the incast timed out."""
    from conftest import SCENARIOS

    doc = dcnsim.load_scenario(SCENARIOS / "ndp_incast.toml")
    doc["stop"] = "200ms"
    got = {}
    for buffer in ("135000B", "15pkt"):
        doc["topology"]["buffer"] = buffer
        r = dcnsim.run(doc)
        s = {**r.summary, **r.metrics}
        assert s["packets_trimmed"] > 0, buffer
        got[buffer] = (s["header_drops"], s["timeouts"], s["n_completed"] == s["n_flows"])
    assert got["15pkt"] == got["135000B"] == (0, 0, True), got


def test_a_trimming_fat_tree_gives_one_threads_bits_on_two(monkeypatch):
    """NDP senders in three pods into two hosts of the first, over 20 KB
    trimming queues that bounce headers: two threads (the priority links
    handing packets across the cut as they start, bounced headers crossing
    back) write one thread's tables."""
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = {"name": "ndp-k4", "seed": 3, "stop": "5ms",
           "topology": {"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "1us", "buffer": "20000B"},
           "tcp": {"transport": "ndp", "mss": 9000, "header": 64},
           "trimming": {"return_to_sender": True, "header_buffer": "300B"},
           "apps": [{"kind": "bulk", "src": s, "dst": s % 2, "size": "1MB"} for s in range(2, 16)]}
    one = dcnsim.run({**doc, "threads": 1})
    two = dcnsim.run({**doc, "threads": 2})
    assert one.timing["threads"] == 1 and two.timing["threads"] == 2
    assert one.summary["packets_trimmed"] > 0 and one.summary["headers_bounced"] > 0
    for t in ("flows", "queues", "queue_inputs"):
        assert one.tables[t].equals(two.tables[t]), t
    assert {k: v for k, v in one.summary.items() if k not in ("wall_s", "threads", "workers")} == \
        {k: v for k, v in two.summary.items() if k not in ("wall_s", "threads", "workers")}


def test_trimmed_headers_smaller_than_a_framed_ack_keep_two_threads_to_one_threads_bits(monkeypatch):
    """A trimmed packet is cut to `trimming.header` wire bytes (64), framing
    included; with `l2_overhead = 38` an ACK is 78, and the parallel
    engine's lookahead, sized on the smallest packet, took 78: trimmed
    headers crossed a cut link sooner than it allowed, and the run came out
    differently on 1, 2 and 4 threads (an audit's fuzzing: 38,552 / 34,340
    / 37,624 packets trimmed). The lookahead now counts the trimmed size."""
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = {"name": "ndp-l2", "seed": 354681, "stop": "1500us", "l2_overhead": 38,
           "topology": {"kind": "leaf_spine", "leaves": 4, "spines": 3, "hosts_per_leaf": 4, "host_rate": "10Gbps",
                        "fabric_rate": "10Gbps", "delay": "3us", "buffer": "60KB"},
           "trimming": {}, "tcp": {"transport": "ndp", "mss": 1460}, "routing": {"mode": "single"},
           "apps": [{"kind": "poisson", "load": 0.3, "start": "728us", "cdf": "datamining", "sources": [0, 1, 11]},
                    {"kind": "bulk", "src": 5, "dst": 3, "start": "618us", "size": "3MB"},
                    {"kind": "poisson", "load": 0.3, "start": "395us",
                     "cdf": [[1000, 0.0], [10000, 0.5], [200000, 1.0]]}]}
    runs = {t: dcnsim.run({**doc, "threads": t}) for t in (1, 2, 4)}
    assert runs[2].timing["threads"] == 2 and runs[1].summary["packets_trimmed"] > 0
    for t in (2, 4):
        for name in ("flows", "queues", "queue_inputs"):
            assert runs[1].tables[name].equals(runs[t].tables[name]), (t, name)
        same = ("wall_s", "threads", "workers", "windows", "partition_work_s", "imbalance_s", "between_windows_s")
        assert {k: v for k, v in runs[1].summary.items() if k not in same} == \
            {k: v for k, v in runs[t].summary.items() if k not in same}, t


@pytest.mark.parametrize("tcp, key, name", [({"cc": "dctcp"}, "tcp.cc", "dctcp"),
                                            ({"cc": "newreno", "ecn": True}, "tcp.ecn", "classic ECN")])
def test_ecn_under_trimming_is_warned_of_and_marks_nothing(tcp, key, name):
    """A trimming port trims where it would mark and never reads ecn_k:
    DCTCP over [trimming] ran with its queue at 120 packets against K = 20
    and no mark, and validation said "ok" (the ECN audit). It is warned
    of at the key that chose ECN, and the run shows why: no mark, and the
    same file without [trimming] marks."""
    doc = {"name": "ecn-trim", "stop": "5ms",
           "topology": {"kind": "star", "hosts": 5, "rate": "10Gbps", "delay": "2us", "buffer": "200pkt",
                        "ecn_k": "20pkt"},
           "tcp": tcp, "trimming": {},
           "apps": [{"kind": "bulk", "src": s, "dst": 0, "size": "2MB"} for s in (1, 2, 3)]}
    problems = dcnsim.validate(doc)
    assert not problems
    said = [str(p) for p in problems.warnings]
    assert any(p.startswith(f"{key}: {name} (apps 0, 1, 2) runs on ECN marks, but with [trimming] a port trims")
               for p in said), said
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trimmed = dcnsim.run(doc)
        doc.pop("trimming")
        assert not [p for p in dcnsim.validate(doc).warnings if "trimming" in str(p)]
        marked = dcnsim.run(doc)
    assert trimmed.queues.marked.sum() == 0 and trimmed.summary["packets_trimmed"] > 0
    assert marked.queues.marked.sum() > 0
