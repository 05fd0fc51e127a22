"""The DCTCP permutation timed against ns-3 (benchmarks/ns3_side_by_side.py,
validation/ns3_perm/): both sides run the same scenario. The ns-3
program's arguments come from dcnsim's own document, flows and ECMP paths
included, and the paths are the ones dcnsim routes (its ``queue_inputs``
table shows every switch port each flow direction crosses). With ns-3
installed, both simulators carry the same packet-hops within 1 %."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest
from conftest import load_module, needs_core

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "validation"))
perm_args = load_module("perm_args", REPO / "validation" / "ns3_perm" / "perm_args.py")


def _side_by_side():
    return load_module("ns3_side_by_side", REPO / "benchmarks" / "ns3_side_by_side.py")


def _path(k: int, s: int, d: int, agg: int, core: int):
    """Node names from host s to host d with these up choices (fat-tree
    wiring: aggregation switch j of a pod reaches cores j·k/2 ..)."""
    half = k // 2
    ps, pd = s // (half * half), d // (half * half)
    es, ed = f"edge{ps}_{(s // half) % half}", f"edge{pd}_{(d // half) % half}"
    if s // half == d // half:
        return [f"h{s}", es, f"h{d}"]
    if ps == pd:
        return [f"h{s}", es, f"aggr{ps}_{agg}", ed, f"h{d}"]
    return [f"h{s}", es, f"aggr{ps}_{agg}", f"core{agg * half + core}", f"aggr{pd}_{agg}", ed, f"h{d}"]


@needs_core
@pytest.mark.parametrize("k,seed", [(4, 1), (8, 1), (4, 3), (8, 7)])
def test_the_paths_given_to_ns3_are_the_ones_dcnsim_routes(k, seed):
    from dcnsim import bench

    doc = bench.dctcp_perm(k, "2ms")
    doc["seed"] = seed  # another seed salts ECMP otherwise: the mirror must follow
    want = set()
    for s, d, jd, id_, ja, ia in perm_args.flows(doc):
        for path in (_path(k, s, d, jd, id_), _path(k, d, s, ja, ia)):
            # (switch, egress towards, input from) for each switch on the path
            want |= {(path[n], path[n + 1], path[n - 1]) for n in range(1, len(path) - 1)}
    q = dcnsim.run(doc).queue_inputs
    got = {(n, t, f) for n, t, f, o in zip(q["node"], q["to"], q["input_from"], q["offered"]) if o > 0}
    assert got == want


@needs_core
@pytest.mark.parametrize("name,k", [("ns3_dctcp_perm_k4", 4), ("ns3_dctcp_perm_k8", 8)])
def test_ns3_arguments_are_the_bench_document(name, k):
    from dcnsim import bench
    from dcnsim.units import parse_rate, parse_size, parse_time

    s = _side_by_side().SCENARIOS[name]
    doc = s.doc()
    # dcnsim.bench's permutation with the duration of its k = 8 scenario
    assert doc == bench.dctcp_perm(k, doc["stop"]) and doc["stop"] == bench.SCENARIOS["dctcp_perm_k8"]()["stop"]
    # dcnsim on 1 and 2 threads, otherwise the same document
    assert [d.get("threads") for _, d in s.docs()] == [1, 2]
    assert all({**d, "threads": None} == {**doc, "threads": None} for _, d in s.docs())
    args = dict(a[2:].split("=", 1) for a in s.ns3_args())
    topo, tcp = doc["topology"], doc["tcp"]
    assert int(args["k"]) == topo["k"]
    assert float(args["rate"].removesuffix("bps")) == parse_rate(topo["rate"])
    assert float(args["delay-us"]) * 1e-6 == pytest.approx(parse_time(topo["delay"]))
    assert int(args["buffer"]) == parse_size(topo["buffer"]).binary
    assert int(args["ecn-k"]) == parse_size(topo["ecn_k"]).binary
    assert (int(args["mss"]), int(args["iw"]), int(args["ssthresh"])) == \
        (tcp["mss"], tcp["init_cwnd"], tcp["init_ssthresh"])
    assert float(args["alpha-init"]) == tcp["dctcp_alpha_init"]
    assert float(args["rto-min-ms"]) * 1e-3 == pytest.approx(parse_time(tcp["rto_min"]))
    assert float(args["rto-init-ms"]) * 1e-3 == pytest.approx(parse_time(tcp["rto_init"]))
    assert float(args["stop"]) == pytest.approx(parse_time(doc["stop"]))
    flows = [tuple(int(x) for x in f.split(":")) for f in args["flows"].split(",")]
    assert [f[:2] for f in flows] == [(a["src"], a["dst"]) for a in doc["apps"]]
    assert flows == perm_args.flows(doc)
    assert all(0 <= c < k // 2 for f in flows for c in f[2:])


@needs_core
def test_a_document_ns3_cannot_mirror_is_refused_by_field():
    from dcnsim import bench

    doc = bench.dctcp_perm(4, "2ms")
    doc["routing"] = {"mode": "rps"}
    with pytest.raises(ValueError, match="^routing: salted ECMP"):
        perm_args.ns3_args(doc)
    doc = bench.dctcp_perm(4, "2ms")
    doc["apps"][3]["size"] = "1MB"
    with pytest.raises(ValueError, match=r"^apps\[3\]"):
        perm_args.ns3_args(doc)


@needs_core
@pytest.mark.skipif(subprocess.run(["pkg-config", "--exists", "ns3-core"]).returncode != 0
                    or shutil.which("g++") is None, reason="ns-3 (pkg-config ns3-core) or g++ missing")
def test_ns3_and_dcnsim_carry_the_same_packet_hops(tmp_path):
    """10 ms of the k = 4 permutation (a few seconds of ns-3): every
    bottleneck is the same link on both sides, so the packets carried agree
    to within the side-by-side's 1 %."""
    from dcnsim import bench

    common = load_module("ns3_common", REPO / "validation" / "ns3_common.py")
    doc = bench.dctcp_perm(4, "10ms")
    doc["threads"] = 1
    exe = common.ns3_binary(REPO / "validation" / "ns3_perm" / "perm.cc", tmp_path)
    out = subprocess.run([str(exe), *perm_args.ns3_args(doc)], capture_output=True, text=True, check=True).stdout
    ns3 = int(out.split("packet_hops ")[1].split()[0])
    ours = int(dcnsim.run(doc).summary["packet_hops"])
    # the same links at line rate for 10 ms: about 6 hops × 16 flows × 1,380 packets
    assert ns3 > 16 * 1000
    assert abs(ours - ns3) <= 0.01 * ns3, (ours, ns3)
