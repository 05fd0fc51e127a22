"""validation/hpcc_ns3/run.py without the fork: the config it writes is the
one the HPCC authors' run.py writes for TIMELY and HPCC at 100 Gbps,
dcnsim's mirror sets every TIMELY and HPCC key to the fork's value and runs
the incast to the end no faster than the line allows, the fork's timing,
base RTT and PFC arithmetic come out as its sources say, and the fat-tree
file and permutation put every host, link and flow where dcnsim does.
With the fork built (``HPCC_NS3_THIRD`` names its scratch/third) the two
simulators' FCTs on a 4-sender incast agree."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import dcnsim
import pytest
from conftest import load_module, needs_core

pytestmark = needs_core

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "validation"))
hn = load_module("hpcc_ns3_run", REPO / "validation" / "hpcc_ns3" / "run.py")


def keys(text: str) -> dict:
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


def test_the_fork_config_is_run_pys_timely_at_100g():
    c = keys(hn.fork_config("timely"))
    assert c["CC_MODE"] == "7" and c["HAS_WIN"] == "0" and c["ACK_HIGH_PRIO"] == "1"
    assert c["RATE_AI"] == "100Mb/s" and c["RATE_HAI"] == "500Mb/s" and c["MIN_RATE"] == "1000Mb/s"
    assert c["L2_ACK_INTERVAL"] == "1" and c["PACKET_PAYLOAD_SIZE"] == "1000"
    d = keys(hn.fork_config("dcqcn"))
    assert d["CC_MODE"] == "1" and d["RP_TIMER"] == "300" and d["EWMA_GAIN"] == "0.00390625"


def test_the_mirror_sets_the_forks_timely_and_runs_no_faster_than_the_line():
    sc = hn.mirror("timely", 4)
    t = sc.to_dict()["tcp"]
    assert t["transport"] == "timely" and t["mss"] == hn.PAYLOAD and t["header"] == 56
    assert (t["timely_alpha"], t["timely_beta"], t["timely_t_low"], t["timely_t_high"],
            t["timely_min_rtt"], t["timely_rai"], t["timely_rhai"], t["timely_hai_after"],
            t["timely_min_rate"]) == (0.875, 0.8, "50us", "500us", "20us", "100Mbps", "500Mbps", 5, "1000Mbps")
    r = hn.run_dcnsim(sc, 4)
    assert len(r["fct"]) == r["flows"] == 4 and r["drops"] == 0
    # four 1 MB flows of 1,000 B payloads with 56 B of headers share one
    # 100 Gbps port: the last cannot end before their wire bytes pass it
    wire = 4 * hn.SIZE / hn.PAYLOAD * (hn.PAYLOAD + 56) * 8 / 100e9
    assert wire < max(r["fct"]) < 1.2 * wire


def test_the_forks_clock_and_pfc_threshold():
    # 1,056 B take floor(8,448 / 100) = 84 ns on the fork's 1 ns clock
    assert hn.ns_rate_bps("timely") == 8448 * 10**9 // 84
    xs = [hn.pfc_thresholds(n) for n in (2, 4, 8, 16)]
    assert all(xon < xoff for xoff, xon in xs)
    assert [x for x, _ in xs] == sorted((x for x, _ in xs), reverse=True), "more inputs pause sooner"


def test_the_fork_config_is_run_pys_hp_at_100g():
    # run.py --cc hp --bw 100 (--utgt 95 --mi 0 --hpai 0), python2 division
    c = keys(hn.fork_config("hpcc"))
    assert c["CC_MODE"] == "3" and c["RATE_AI"] == "40Mb/s" and c["RATE_HAI"] == "40Mb/s"
    assert (c["HAS_WIN"], c["VAR_WIN"], c["FAST_REACT"], c["GLOBAL_T"]) == ("1", "1", "1", "1")
    assert (c["U_TARGET"], c["MI_THRESH"], c["INT_MULTI"], c["ACK_HIGH_PRIO"]) == ("0.95", "0", "4", "0")
    assert (c["MULTI_RATE"], c["SAMPLE_FEEDBACK"], c["MIN_RATE"]) == ("0", "0", "1000Mb/s")
    assert c["BUFFER_SIZE"] == "32" and c["L2_ACK_INTERVAL"] == "1" and c["PACKET_PAYLOAD_SIZE"] == "1000"
    # the other transports' configs are untouched by HPCC's
    assert keys(hn.fork_config("timely"))["HAS_WIN"] == "0" and keys(hn.fork_config("dcqcn"))["INT_MULTI"] == "1"


def test_the_forks_base_rtt_is_third_ccs_max_rtt():
    # 2 × propagation + 80 ns of payload serialization per link, longest host pair
    assert hn.star_rtt_ns(4) == hn.star_rtt_ns(16) == 2 * 2000 + 2 * 80
    names = hn.fattree_nodes(4)
    rtt, bdp = hn.fork_max_rtt(len(names), list(range(16, len(names))), hn.fattree_links(4))
    assert (rtt, bdp) == (2 * 6000 + 6 * 80, 156_000)
    assert hn.hpcc_w_ai_bytes(4160) == 21 and hn.hpcc_w_ai_bytes(12480) == 62  # 20.8 B, 62.4 B


def test_the_hpcc_mirror_matches_the_forks_hp_and_keeps_the_incasts_queue_short():
    t = hn.mirror("hpcc", 4).to_dict()["tcp"]
    assert (t["transport"], t["mss"], t["header"]) == ("hpcc", 1000, 14 + 20 + 8 + 6 + 42)
    assert (t["hpcc_eta"], t["hpcc_max_stage"], t["hpcc_w_ai"], t["hpcc_base_rtt"]) == (0.95, 0, "21B", "4160ns")
    assert t["hpcc_u_init"] == 1, "the fork's U starts at 1 (rdma-queue-pair.cc)"
    f = hn.mirror("hpcc", 0, topology="fattree").to_dict()["tcp"]
    assert (f["hpcc_w_ai"], f["hpcc_base_rtt"]) == ("62B", "12480ns")
    r = hn.run_dcnsim(hn.mirror("hpcc", 4), 4)
    assert len(r["fct"]) == r["flows"] == 4 and r["drops"] == 0 and r["pfc_pauses"] == 0
    wire = 4 * hn.SIZE / hn.PAYLOAD * (hn.PAYLOAD + 90) * 8 / 100e9
    assert wire < max(r["fct"]) < 1.25 * wire
    # the first round trip's burst (3 senders' BDP of 52 KB over the line), then η
    assert r["max_queue"] < 250_000


def test_the_fattree_file_puts_every_host_and_link_where_dcnsim_does(tmp_path):
    hn.write_fork_files(tmp_path, "hpcc", 0, 10_000, topology="fattree", k=4, seed=1)
    lines = (tmp_path / "topology.txt").read_text().splitlines()
    nodes, nsw, nlinks = map(int, lines[0].split())
    switches = set(map(int, lines[1].split()))
    links = [tuple(map(int, x.split()[:2])) for x in lines[2:]]
    assert (nodes, nsw, nlinks, len(switches), len(links)) == (36, 20, 48, 20, 48)
    hosts = [i for i in range(nodes) if i not in switches]
    assert hosts == list(range(16))
    assert all(x.split()[2:] == ["100Gbps", "0.001ms", "0"] for x in lines[2:])
    names = hn.fattree_nodes(4)
    fork_edge = {a: names[b] for a, b in links if a in hosts}
    r = dcnsim.run(hn.mirror("hpcc", 0, 10_000, topology="fattree", seed=1))
    q = r.queues
    ours_edge = {int(n[1:]): to for n, to in zip(q["node"], q["to"]) if n.startswith("h")}
    assert fork_edge == ours_edge and ours_edge[0] == ours_edge[1] == "edge0_0" and ours_edge[15] == "edge3_1"
    # every link of the file is a link of dcnsim's fat-tree (both directions), and no other
    fork_pairs = {frozenset((names[a], names[b])) for a, b in links}
    ours_pairs = {frozenset((n, to)) for n, to in zip(q["node"], q["to"])}
    assert fork_pairs == ours_pairs


def test_the_permutation_is_a_derangement_and_the_same_on_both_sides(tmp_path):
    perms = []
    for seed in (1, 2, 3):
        p = hn.derangement(16, seed)
        assert sorted(p) == list(range(16)) and all(i != x for i, x in enumerate(p))
        assert p == hn.derangement(16, seed)
        hn.write_fork_files(tmp_path / str(seed), "timely", 0, 10_000, topology="fattree", seed=seed)
        rows = (tmp_path / str(seed) / "flow.txt").read_text().splitlines()
        assert int(rows[0]) == 16
        fork = [tuple(map(int, x.split()[:2])) for x in rows[1:]]
        sc = hn.mirror("timely", 0, 10_000, topology="fattree", seed=seed).to_dict()
        ours = [(a["src"], a["dst"]) for a in sc["apps"]]
        assert fork == ours == list(enumerate(p)) and sc["seed"] == seed
        perms.append(p)
    assert perms[0] != perms[1] != perms[2]


@pytest.mark.skipif(not os.environ.get("HPCC_NS3_THIRD"), reason="the HPCC authors' ns-3 fork is not built "
                    "(HPCC_NS3_THIRD unset; no registry carries it, validation/hpcc_ns3/run.py says how to build it)")
def test_timely_agrees_with_the_fork_on_an_incast():
    d = Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-hpcc-ns3-test"
    hn.write_fork_files(d, "timely", 4, 10_000_000)
    theirs = hn.run_fork(os.environ["HPCC_NS3_THIRD"], d)
    ours = hn.run_dcnsim(hn.mirror("timely", 4, 10_000_000), 4)
    for a, b in ((sorted(theirs["fct"])[1], sorted(ours["fct"])[1]), (max(theirs["fct"]), max(ours["fct"]))):
        assert abs(a - b) < 0.05 * a, (theirs["fct"], ours["fct"])


def test_ecmp_draws_move_only_the_hash_inputs(tmp_path):
    """``--draws``: draw 0 is run.py's files and the plain mirror; a later
    draw changes the fork's destination ports (all distinct from draw 0's)
    and dcnsim's seed, never the permutation or anything else."""
    a, b = tmp_path / "a", tmp_path / "b"
    hn.write_fork_files(a, "hpcc", 0, topology="fattree", k=4, seed=3)
    hn.write_fork_files(b, "hpcc", 0, topology="fattree", k=4, seed=3, draw=2)
    fa = [x.split() for x in (a / "flow.txt").read_text().splitlines()[1:]]
    fb = [x.split() for x in (b / "flow.txt").read_text().splitlines()[1:]]
    assert {x[3] for x in fa} == {"100"}
    assert all(x[:3] + x[4:] == y[:3] + y[4:] for x, y in zip(fa, fb))
    assert len({y[3] for y in fb}) == len(fb) and "100" not in {y[3] for y in fb}
    assert (a / "topology.txt").read_text() == (b / "topology.txt").read_text()
    m0, m2 = (hn.mirror("hpcc", 0, topology="fattree", k=4, seed=3, draw=d).to_dict() for d in (0, 2))
    assert m0["seed"] == 3 and m2["seed"] == 2003
    assert m0["apps"] == m2["apps"] and m0["tcp"] == m2["tcp"] and m0["topology"] == m2["topology"]
