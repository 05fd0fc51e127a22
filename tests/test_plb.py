"""Protective Load Balancing (`tcp.plb`): DCTCP flows whose rounds stay
congested draw new flow labels, which ECMP hashes, and move off the links
ECMP's collisions overloaded. The laws: a flow never marked never moves,
and PLB that never fires runs the same packets as no PLB (label 0 is the
5-tuple ECMP hashed before); collisions cost less with it; the same bits
on any number of threads; bad combinations are errors or warnings."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
LINE_RATE_10MB_S = 10e6 * 8 / 10e9  # one 10 MB flow alone on 10 Gbps links


def four_flows(seed: int, plb: dict | None = None) -> dict:
    """Hosts 0-3 (pod 0) each send 10 MB to hosts 8-11 (pod 2) of a k = 4
    fat-tree at 10 Gbps: four flows over four disjoint core paths if ECMP
    spreads them, two or three on a link where it does not."""
    tcp = {"cc": "dctcp", "rwnd": "100pkt", "rto_min": "1ms"}
    if plb is not None:
        tcp.update(plb=True, **plb)
    return {"name": "plb-four", "seed": seed, "stop": "1s",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "300pkt", "ecn_k": "20pkt"},
            "routing": {"mode": "ecmp"}, "tcp": tcp,
            "apps": [{"kind": "bulk", "src": i, "dst": 8 + i, "size": "10MB"} for i in range(4)]}


EAGER = {"plb_cong_thresh": 0.1, "plb_rehash_rounds": 3}
SEEDS = range(1, 13)


def test_a_flow_never_marked_never_moves_and_plb_that_never_fires_changes_nothing():
    for seed in SEEDS:
        base = dcnsim.run(four_flows(seed))
        # Enabled, but no round count reachable: label 0 all along.
        idle = dcnsim.run(four_flows(seed, {"plb_rehash_rounds": 10**6, "plb_idle_rehash_rounds": 0}))
        assert idle.flows.rehashes.sum() == base.flows.timeouts.sum() == 0, seed
        for t in ("flows", "queues", "queue_inputs"):
            assert idle.tables[t].equals(base.tables[t]), (seed, t)
        eager = dcnsim.run(four_flows(seed, EAGER))
        if base.flows.ecn_marks.sum() == 0:
            # ECMP spread them: nothing congested, nothing moves
            assert eager.flows.rehashes.sum() == 0, seed
            assert eager.tables["flows"].equals(base.tables["flows"]), seed
        assert (eager.flows.rehashes >= eager.flows.timeouts).all(), seed


def test_plb_shortens_the_collisions_of_ecmp():
    """Where ECMP put two flows on one link (the last finishes at 1.5x or
    more of a flow alone), PLB moves some flow; over the seeds the four
    flows' completion time falls."""
    without, with_plb = [], []
    for seed in SEEDS:
        a = dcnsim.run(four_flows(seed)).flows
        b = dcnsim.run(four_flows(seed, EAGER)).flows
        assert a.completed.all() and b.completed.all(), seed
        if a.fct_s.max() >= 1.5 * LINE_RATE_10MB_S:
            assert b.rehashes.sum() > 0, seed
        without.append(a.fct_s.max())
        with_plb.append(b.fct_s.max())
    assert sum(x >= 1.5 * LINE_RATE_10MB_S for x in without) >= 3, "the seeds must hold collisions"
    assert statistics.mean(with_plb) < 0.9 * statistics.mean(without), (without, with_plb)


def test_plb_gives_one_threads_bits_on_two(monkeypatch):
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = dcnsim.load_scenario(ROOT / "scenarios" / "plb_fattree.toml")
    doc["stop"] = "6ms"
    one = dcnsim.run({**doc, "threads": 1})
    two = dcnsim.run({**doc, "threads": 2})
    assert two.timing["threads"] == 2
    assert one.flows.rehashes.sum() > 0
    for t in ("flows", "queues", "queue_inputs", "losses"):
        assert one.tables[t].equals(two.tables[t]), t
    again = dcnsim.run({**doc, "threads": 1})
    assert again.tables["flows"].equals(one.tables["flows"])


def test_plb_needs_dctcp_over_tcp():
    for tcp, names in (({"cc": "newreno", "plb": True}, "'newreno'"),
                       ({"cc": "dctcp", "plb": True, "transport": "ndp"}, "'ndp'")):
        doc = four_flows(1)
        doc["tcp"] = tcp
        problems = [str(p) for p in dcnsim.validate(doc)]
        assert any(p.startswith("tcp.plb:") and "dctcp" in p and names in p for p in problems), problems
    doc = four_flows(1, {"plb_cong_thresh": 0})
    assert any(str(p).startswith("tcp.plb_cong_thresh") for p in dcnsim.validate(doc))


@pytest.mark.parametrize("mode", ["single", "rps"])
def test_plb_under_routing_that_ignores_the_label_warns(mode):
    doc = four_flows(1, {})
    doc["routing"] = {"mode": mode}
    doc["stop"] = "1ms"
    r = dcnsim.run(doc)
    assert any("plb" in w and mode in w and "flow label" in w for w in r.warnings), r.warnings


def test_the_command_line_says_how_many_labels_were_drawn():
    out = subprocess.run([sys.executable, "-m", "dcnsim", "run", "scenarios/plb_fattree.toml",
                          "--set", "stop=6ms", "--no-progress"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    line = next(ln for ln in out.stdout.splitlines() if ln.strip().startswith("paths"))
    assert "new flow labels drawn (tcp.plb, tcp.txrehash)" in line
    off = subprocess.run([sys.executable, "-m", "dcnsim", "run", "scenarios/plb_fattree.toml",
                          "--set", "stop=6ms", "--set", "tcp.plb=false", "--no-progress"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert "new flow labels" not in off.stdout


def test_the_builders_carry_plb():
    """The Python builders write the same document as the dict above."""
    from dcnsim import Bulk, FatTree, Scenario, Tcp

    s = Scenario(
        FatTree(k=4, rate="10Gbps", delay="1us", buffer="300pkt", ecn_k="20pkt"),
        [Bulk(src=i, dst=8 + i, size="10MB") for i in range(4)],
        tcp=Tcp(cc="dctcp", rwnd="100pkt", rto_min="1ms", plb=True, plb_cong_thresh=0.1,
                plb_rehash_rounds=3),
        routing="ecmp", stop="1s", name="plb-four", seed=4)
    a = dcnsim.run(s)
    b = dcnsim.run(four_flows(4, EAGER))
    assert a.flows.rehashes.sum() > 0
    assert a.tables["flows"].equals(b.tables["flows"])


def test_txrehash_draws_a_new_label_at_every_timeout_and_only_then():
    """`tcp.txrehash` without PLB (the outcast fat-tree's CUBIC flows, which
    time out at its 20-packet ports): the data's new labels are the flow's
    timeouts, one for one, and the receiver draws one for its ACKs only on
    a duplicate that carries a new label, so at most once per timeout:
    timeouts <= rehashes <= 2 x timeouts; without it none."""
    doc = dcnsim.load_scenario(ROOT / "scenarios" / "outcast_fattree.toml")
    doc["stop"] = "100ms"
    doc["tcp"] = {**doc["tcp"], "txrehash": True}
    f = dcnsim.run(doc).flows
    assert f.timeouts.sum() > 0
    assert (f.rehashes >= f.timeouts).all() and (f.rehashes <= 2 * f.timeouts).all(), \
        f[["timeouts", "dup_arrivals", "rehashes"]]
    # some receiver saw its sender's retransmission on a new label
    assert (f.rehashes > f.timeouts).any()
    doc["tcp"]["txrehash"] = False
    assert dcnsim.run(doc).flows.rehashes.sum() == 0
    doc["tcp"] = {**doc["tcp"], "txrehash": True, "transport": "ndp"}
    problems = [str(p) for p in dcnsim.validate(doc)]
    assert any(p.startswith("tcp.txrehash:") and "TCP" in p for p in problems), problems


def swift_perm(plb: bool, flows: int = 16, size: str = "20MB") -> dcnsim.Scenario:
    """htsim's Swift fabric (docs/swift.md): k = 4, 100 Gbps, 800,000-byte
    queues; host i -> i + 8 of `flows` hosts."""
    return dcnsim.Scenario(
        name="swift-plb", seed=1, stop="50ms",
        topology={"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "1us", "buffer": "800000B",
                  "nic_buffer": "unlimited"},
        tcp={"transport": "swift", "mss": 3960, "header": 40, "plb": plb},
        apps=[{"kind": "bulk", "src": i, "dst": (i + 8) % 16, "size": size} for i in range(flows)],
    )


def test_swift_plb_moves_flows_whose_delay_stays_over_target_and_no_other():
    """Swift's PLB (htsim's rule): in a permutation whose ECMP paths collide
    some flows move; a flow alone on its path never sees its delay over the
    base target, so it never moves; without PLB nothing moves. txrehash
    (TCP's) stays off by default."""
    crowded = dcnsim.run(swift_perm(True))
    assert crowded.flows.completed.all()
    assert crowded.flows.rehashes.sum() > 0
    assert crowded.scenario["tcp"]["plb"] is True
    alone = dcnsim.run(swift_perm(True, flows=1))
    assert alone.flows.completed.all() and alone.flows.rehashes.sum() == 0
    assert dcnsim.run(swift_perm(False)).flows.rehashes.sum() == 0


def test_the_swift_plb_file_moves_flows_and_says_so():
    out = subprocess.run([sys.executable, "-m", "dcnsim", "run", "scenarios/swift_plb_fattree.toml", "--no-progress"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "16 (16 completed)" in out, out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("paths"))
    assert "new flow labels drawn" in line
    # txrehash is TCP's: the line credited it under Swift too (audit 36)
    assert "(tcp.plb)" in line and "txrehash" not in line, line


def test_swift_plb_is_the_same_on_one_and_two_threads(monkeypatch):
    """Swift's PLB draws its waits and labels from each flow's own stream,
    so a run cut in two partitions moves the same flows at the same times."""
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = dcnsim.load_scenario(str(ROOT / "scenarios" / "swift_plb_fattree.toml"))
    one, two = dcnsim.run({**doc, "threads": 1}), dcnsim.run({**doc, "threads": 2})
    assert one.flows.rehashes.sum() > 0
    assert one.flows.equals(two.flows) and one.queues.equals(two.queues)
