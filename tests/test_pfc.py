"""Priority flow control (`[pfc]`) from Python and the command line: the
builder writes the table the core reads, the results carry the `pfc`
table and the summary's counts, `dcnsim run` prints a `pfc` line (and a
warning when a paused fabric still dropped), `enabled = false` turns it
off for a sweep, and a bad table is refused with its field. The physics
(nothing lost, an ingress held near xoff, head-of-line blocking, HPCC over
it) is in crates/dcnsim/tests/pfc.rs and net/pfc.rs, its frames crossing
partitions in crates/dcnsim/tests/parallel.rs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dcnsim

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "scenarios" / "pfc_incast.toml"


def incast(pfc, workers: int = 16, buffer: str = "1MB") -> dcnsim.Scenario:
    return dcnsim.Scenario(
        name="pfc", stop="1s",
        topology={"kind": "star", "hosts": workers + 1, "rate": "10Gbps", "delay": "1us", "buffer": buffer},
        tcp={"cc": "newreno", "rto_min": "1ms"},
        apps=[{"kind": "partition_aggregate", "aggregator": 0, "workers": f"1-{workers}",
               "response": "256KB", "queries": 5, "gap": "1ms"}],
        pfc=pfc,
    )


def test_the_builder_writes_pfc_and_the_results_count_the_pauses():
    sc = incast({"xoff": "20KB", "xon": "15KB"})
    assert sc.to_dict()["pfc"] == {"xoff": "20KB", "xon": "15KB"}
    r = dcnsim.run(sc)
    p = r.pfc
    assert list(p.columns) == ["queue_id", "node", "to", "pauses", "paused_s", "max_held_bytes", "paused_at_end"]
    assert set(p.to) == {"sw"} and len(p) == 17  # every port into the one switch
    workers = p[p.node != "h0"]
    assert (workers.pauses > 0).all() and (workers.paused_s > 0).all()
    assert r.summary["pfc_pauses"] == p.pauses.sum()
    assert r.summary["pfc_ports_paused"] == 16
    assert abs(r.summary["pfc_paused_s"] - p.paused_s.sum()) < 1e-9
    assert r.summary["packets_dropped"] == 0 and r.flows.timeouts.sum() == 0
    assert not r.conservation_problems()
    log = r.pfc_log
    assert list(log.columns) == ["time_s", "queue_id", "node", "to", "paused"]
    assert log.paused.sum() == p.pauses.sum() and log.time_s.is_monotonic_increasing
    off = dcnsim.run(incast(None))
    assert off.pfc is None and off.pfc_log is None and "pfc_pauses" not in off.summary
    assert off.summary["packets_dropped"] > 0


def test_the_pfc_builder_writes_the_table():
    assert dcnsim.Pfc(xoff="15pkt", xon="12pkt").to_dict() == {"xoff": "15pkt", "xon": "12pkt"}
    assert dcnsim.Pfc().to_dict() == {}
    built = dcnsim.run(incast(dcnsim.Pfc(xoff="20KB", xon="15KB")))
    plain = dcnsim.run(incast({"xoff": "20KB", "xon": "15KB"}))
    assert built.pfc.equals(plain.pfc) and built.flows.equals(plain.flows)


def test_enabled_false_is_no_pfc_so_a_sweep_can_compare():
    off = dcnsim.run(incast({"enabled": False, "xoff": "20KB"}))
    none = dcnsim.run(incast(None))
    assert off.pfc is None
    assert off.flows.equals(none.flows) and off.queues.equals(none.queues)


def test_dcnsim_run_prints_the_pauses_and_warns_when_a_paused_fabric_drops():
    out = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE)],
                         capture_output=True, text=True, check=True).stdout
    assert "0 timeouts, 0 retransmits, 0 drops" in out, out
    assert "pauses from 32 ingress ports" in out and "most paused h" in out, out
    # the port's pauses together, as the pfc table's paused_s, not one pause
    line = next(x for x in out.splitlines() if x.strip().startswith("pfc"))
    assert line.endswith(" in all"), line
    assert "warning" not in out, out
    # a buffer smaller than what 32 ports hold at xoff: drops, said
    small = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "topology.buffer=200KB"],
                           capture_output=True, text=True, check=True).stdout
    assert "warning:" in small and "dropped at full switch buffers under PFC" in small, small
    # naming the port that dropped: the star's port to the aggregator
    assert "PFC (sw→h0 " in small, small
    plain = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "pfc.enabled=false"],
                           capture_output=True, text=True, check=True).stdout
    assert " pfc " not in plain and "0 drops" not in plain, plain


def test_bad_pfc_tables_name_their_field():
    problems = [str(p) for p in dcnsim.validate(incast({"xoff": "10KB", "xon": "20KB"}).to_dict())]
    assert any(p.startswith("pfc.xon:") and "above xoff" in p for p in problems), problems
    problems = [str(p) for p in dcnsim.validate(incast({"xof": "10KB"}).to_dict())]
    assert any(p.startswith("pfc.xof: unknown key") for p in problems), problems
    doc = incast({}).to_dict()
    doc["trimming"] = {}
    problems = [str(p) for p in dcnsim.validate(doc)]
    assert any(p.startswith("trimming: not with [pfc]") for p in problems), problems


def test_a_star_asked_for_threads_runs_on_one_and_says_why(capfd):
    sc = incast({})
    one = dcnsim.run(sc)
    sc.threads = 2
    capfd.readouterr()
    two = dcnsim.run(sc)
    said = [line for line in capfd.readouterr().err.splitlines() if line.startswith("dcnsim:")]
    assert said == ["dcnsim: threads = 2: one thread, as the topology has one switch, and every host stays "
                    "with its switch"], said
    assert two.flows.equals(one.flows) and two.pfc.equals(one.pfc)


def test_a_paused_fat_tree_gives_one_threads_bits_on_two(monkeypatch):
    """Hosts of three pods send to two hosts of the first: the first pod's
    switches pause the cores, the cores the other pods' switches, across
    the cut. Two threads write one thread's tables, the pauses' too."""
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = {"name": "pfc-k4", "seed": 7, "stop": "20ms",
           "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us", "buffer": "300KB"},
           "tcp": {"cc": "newreno", "rto_min": "1ms"}, "pfc": {"xoff": "20KB", "xon": "10KB"},
           "apps": [{"kind": "bulk", "src": s, "dst": s % 2, "size": "300KB"} for s in range(4, 16)]}
    one = dcnsim.run({**doc, "threads": 1})
    two = dcnsim.run({**doc, "threads": 2})
    assert two.timing["threads"] == 2 and one.timing["threads"] == 1
    # pauses on the cores' links, both ways: the frames that crossed the cut
    cores = one.pfc[one.pfc.node.str.startswith("core") | one.pfc.to.str.startswith("core")]
    assert (cores.pauses > 0).sum() >= 2, cores
    assert one.summary["packets_dropped"] == 0
    for t in ("flows", "queues", "pfc", "pfc_log"):
        assert one.tables[t].equals(two.tables[t]), t


def test_the_queues_table_gives_the_limit_in_force():
    # a NIC under PFC holds its transports' packets without limit, so its
    # row says no limit (0 and 0), however many packets it held; the
    # switch's ports keep their buffer; without PFC the NIC's limit shows
    for on in (True, False):
        q = dcnsim.run(incast(dcnsim.Pfc() if on else None, buffer="1MB")).tables["queues"]
        nic, sw = q[q["from_host"]], q[~q["from_host"]]
        assert (sw["limit_bytes"] == 1024 * 1024).all() and (sw["limit_pkts"] == 0).all(), sw
        if on:
            assert (nic["limit_bytes"] == 0).all() and (nic["limit_pkts"] == 0).all(), nic
        else:
            assert (nic["limit_pkts"] > 0).all() and (nic["max_pkts"] <= nic["limit_pkts"]).all(), nic


def test_an_unlimited_queue_has_no_limit_in_the_table_not_the_largest_integer():
    s = incast(None)
    d = s.to_dict()
    d["topology"]["nic_buffer"] = "unlimited"
    q = dcnsim.run(d).tables["queues"]
    nic = q[q["from_host"]]
    assert (nic["limit_bytes"] == 0).all() and (nic["limit_pkts"] == 0).all(), nic
    assert q["limit_bytes"].max() < 2**40


def ring(n: int = 5, pfc: bool = True) -> dict:
    """Switches s0..s(n-1) in a ring, a host on each; host i sends to host
    i + 2, so each flow takes two links clockwise and every ring link
    carries two flows: a cyclic buffer dependency under PFC."""
    nodes = [{"name": f"h{i}", "kind": "host"} for i in range(n)]
    nodes += [{"name": f"s{i}", "kind": "switch"} for i in range(n)]
    links = [{"a": f"h{i}", "b": f"s{i}", "rate": "10Gbps", "delay": "1us"} for i in range(n)]
    links += [{"a": f"s{i}", "b": f"s{(i + 1) % n}", "rate": "10Gbps", "delay": "1us"} for i in range(n)]
    doc = {"name": "ring", "stop": "50ms",
           "topology": {"kind": "custom", "buffer": "1MB", "nodes": nodes, "links": links},
           "tcp": {"cc": "cubic", "rto_min": "1ms"},
           "apps": [{"kind": "bulk", "src": i, "dst": (i + 2) % n, "size": "20MB"} for i in range(n)]}
    if pfc:
        doc["pfc"] = {"xoff": "30KB", "xon": "20KB"}
    return doc


def test_a_link_paused_both_ways_is_no_deadlock():
    """Packets never go back the way they came, so a leaf and a spine
    pausing each other (each direction of one link paused at the end) is
    no buffer cycle: each drains onward. It was named a deadlock; a real
    cycle of three links still is, and so is one beside such a pair."""
    from dcnsim.result import _paused_cycle

    both_ways = {"node": ["leaf3", "spine0"], "to": ["spine0", "leaf3"], "paused_at_end": [True, True]}
    assert _paused_cycle(both_ways) == []
    ring3 = {"node": ["a", "b", "c", "b"], "to": ["b", "c", "a", "a"], "paused_at_end": [True] * 4}
    assert _paused_cycle(ring3) == ["a", "b", "c", "a"]


def test_a_pfc_deadlock_on_a_ring_is_named_and_a_tree_has_none():
    """Pauses around a cycle never lift (each link's sender waits on the
    next link to drain): every ring link is still paused at the end, no
    flow finishes, and the run names the cycle. Without PFC the same ring
    drops instead and its flows finish; a paused star (a tree) has pauses
    but no cycle and no such warning."""
    r = dcnsim.run(ring())
    ring_rows = r.pfc[r.pfc.node.str.startswith("s") & r.pfc.to.str.startswith("s")]
    clockwise = ring_rows.to == ring_rows.node.map(lambda s: f"s{(int(s[1:]) + 1) % 5}")
    assert clockwise.sum() == 5 and ring_rows[clockwise].paused_at_end.all()
    assert not r.flows.completed.any()
    (w,) = [w for w in r.warnings if w.startswith("pfc: PFC deadlock")]
    cycle = w.split("deadlock: ")[1].split(" were")[0].split(" → ")
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == [f"s{i}" for i in range(5)], w
    lossy = dcnsim.run({**ring(pfc=False), "stop": "1s"})
    assert lossy.flows.completed.all()
    tree = dcnsim.run(incast({"xoff": "20KB", "xon": "15KB"}))
    assert tree.summary["pfc_pauses"] > 0 and not tree.pfc.paused_at_end.any()
    assert not [w for w in tree.warnings if "deadlock" in w]
