"""Differential outcast harness (issue 46): TCPRand's Fig. 1 in dcnsim and
in ns-3 3.37, F1's share of the goodput seed by seed.

Usage (from the repository root, dcnsim importable, Debian's ``libns3-dev``
and ``g++`` installed)::

    python validation/ns3_outcast/run.py --seeds 1-10 --qmax 20 --header 40 52   # docs/tcprand.md's table
    python validation/ns3_outcast/run.py --seeds 1-5 --qmax 20 60 100 --cc cubic newreno
    python validation/ns3_outcast/run.py --seeds 1-5 --qmax 20 60 100 --cc dctcp --header 40   # Fig. 8a's DCTCP
    python validation/ns3_outcast/run.py --seeds 1-5 --qmax 20 --cc cubic dctcp                # and Fig. 8b's ratio
    python validation/ns3_outcast/run.py --seeds 1-5 --qmax 20 60 100 --cc dctcp --header 40 --ns3-dctcp-abc \
        --tcp ca_increase=bytes ecn_reduction=prr   # both with RFC 3465's growth and CWR by PRR
    python validation/ns3_outcast/run.py --seeds 1-10 --only dcnsim --dcnsim-l2 2 --ties fifo seeded
    python validation/ns3_outcast/run.py --trace 1 --qmax 20 --header 40 --out /tmp/outcast-trace

The scenario is ``dcnsim.experiments.tcprand.common.fig1_doc`` (docs/tcprand.md,
Fig. 1): a k = 4 fat-tree, 1 Gbps, 1 µs links and 25 µs per switch, hosts
1..15 each send one long flow to host 0, drop-tail switch ports of Qmax
packets, NIC queues of 100, TCPRand's TCP settings (RTOmin 2 ms, initial
window 2, no SACK, no delayed ACKs, no Limited Transmit; CUBIC without
HyStart, NewReno, or DCTCP marking at K = 0.2 × Qmax packets), per-flow random ECMP from the seed and each flow's
start within 100 µs drawn from the seed; 1460 + 40 B (no timestamps) or
1448 + 52 B (timestamps) segments. ns-3's side is outcast.cc (its header
comment gives the mapping). dcnsim runs with both orders of equal-time
events: ``fifo`` (the default up to this round) and ``seeded`` (the order a
scenario with ``threads`` set gets, run here with ``threads = 1``).

Printed per (cc, Qmax, header) and seed: F1's share of the 15 flows'
goodput, Jain's index over the 15 flows, and the drops at the receiver's
edge port by input port (h1 = F1's port, aggr0_0 / aggr0_1 the two
aggregation ports), then the means over the seeds (for DCTCP also the CE
marks at that port; with both CUBIC and DCTCP, Fig. 8b's ratio of their
total goodputs). ``--trace SEED`` writes
one run's first 100 ms from both simulators and prints where in the edge
port's service each input port's packets arrive (phases.py).

``--check`` judges each (cc, Qmax, header) point by the question the figure
asks, is F1 outcast: F1 counts as outcast where it got under half its fair
share on more than half of the seeds, and each dcnsim order of ties must
reach ns-3's answer; the exit status is 1 if any point differs (the table
alone judges nothing, and a share of 0.231 against 0.003 read as a number
says little).

A tool, not a test: nothing in CI runs it (tests/test_validation_common.py
checks the pieces that need no ns-3).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import ns3_common as common  # noqa: E402  (validation/: shared with ns3_incast, ns3_rps)

SOURCE = HERE / "outcast.cc"
#: header -> (mss, header): ns-3's TCP without options, and with timestamps
HEADERS = {40: (1460, 40), 52: (1448, 52)}
#: --cc -> the TCPRand series (dcnsim.experiments.tcprand.common.SERIES) it runs
CCS = {"cubic": "C", "newreno": "N", "dctcp": "DCTCP"}
#: ties -> top-level scenario keys: FIFO, or the seeded order a scenario with threads gets
TIES: Dict[str, Dict[str, Any]] = {"fifo": {"ties": "fifo"}, "seeded": {"threads": 1}}
PORTS = ("h1", "aggr0_0", "aggr0_1")
EDGE, RECEIVER = "edge0_0", "h0"

FLOW_RE = re.compile(r"flow (\d+) src (\d+) bytes (\d+) timeouts (\d+) drops (\d+)")
PORT_RE = re.compile(r"port (\S+) offered (\d+) dropped (\d+)")
MARKS_RE = re.compile(r"^marks (\d+)$", re.M)


def parse_seeds(s: str) -> List[int]:
    """``"1-10"`` or ``"1,3,5"`` (or a mix) to a list of seeds; ValueError names the bad part."""
    return common.parse_ranges(s, "--seeds", "seeds", 0)


def share_and_jain(goodputs: Dict[int, float]) -> Tuple[float, float]:
    """F1's share of the 15 flows' goodput and Jain's index over them (by source host)."""
    from dcnsim.result import jain

    xs = [goodputs[s] for s in sorted(goodputs)]
    total = sum(xs)
    return (goodputs[1] / total if total > 0 else float("nan")), float(jain(xs))


def parse_ns3(out: str) -> Dict[str, Any]:
    good, timeouts, ports = {}, {}, {}
    for line in out.splitlines():
        m = FLOW_RE.match(line)
        if m:
            good[int(m[2])] = float(m[3])
            timeouts[int(m[2])] = int(m[4])
        m = PORT_RE.match(line)
        if m:
            ports[m[1]] = (int(m[2]), int(m[3]))
    if len(good) != 15:
        raise RuntimeError("unexpected ns-3 output:\n" + out[-2000:])
    f1, j = share_and_jain(good)
    m = MARKS_RE.search(out)
    return {"f1": f1, "jain": j, "drops": {p: ports.get(p, (0, 0))[1] for p in PORTS}, "f1_timeouts": timeouts[1],
            "marks": int(m[1]) if m else 0, "total": sum(good.values())}


#: F1 is starved on a seed where it gets under half its fair share of the 15 flows' goodput
STARVED = 0.5 / 15


def outcast_verdict(runs: List[Dict[str, Any]]) -> Tuple[bool, int]:
    """Whether F1 is outcast at a point (starved on more than half of the
    seeds: a mean share would let one seed's large share hide the others'
    starvation) and on how many seeds it was starved."""
    starved = sum(r["f1"] < STARVED for r in runs)
    return 2 * starved > len(runs), starved


def check_point(ours: List[Dict[str, Any]], theirs: List[Dict[str, Any]]) -> Tuple[bool, str]:
    """dcnsim's answer to "is F1 outcast?" at one point against ns-3's, seed
    lists in the same order: (agree, the line that says so), with the seeds
    on which the two differ."""
    o, ko = outcast_verdict(ours)
    t, kt = outcast_verdict(theirs)
    split = sum((a["f1"] < STARVED) != (b["f1"] < STARVED) for a, b in zip(ours, theirs))

    def said(outcast: bool, k: int, runs: List[Dict[str, Any]]) -> str:
        return (f"{'outcast' if outcast else 'not outcast'} ({k}/{len(runs)} seeds starved, "
                f"mean share {mean([r['f1'] for r in runs]):.3f})")

    return o == t, (f"{'agrees' if o == t else 'DIFFERS'}: dcnsim {said(o, ko, ours)}, ns-3 {said(t, kt, theirs)}; "
                    f"the two differ on {split} of {len(ours)} seeds")


def ecn_k(cc: str, qmax: int) -> int:
    """The marking threshold (packets) TCPRand's series for ``cc`` runs at
    Qmax (0 where it does not mark): the experiment's own rule."""
    from dcnsim.experiments.tcprand.common import SERIES, _ecn_k

    k = _ecn_k(SERIES[CCS[cc]], qmax)
    return int(k.removesuffix("pkt")) if k else 0


def ns3_args(exe: Path, cc: str, qmax: int, header: int, seed: int, secs: float, link_us: float = 1.0,
             dctcp_abc: bool = False, dctcp_stock: bool = False) -> List[str]:
    k = ecn_k(cc, qmax)
    return ([str(exe), f"--cc={cc}", f"--qmax={qmax}", f"--header={header}", f"--seed={seed}", f"--secs={secs:g}",
             f"--link-us={link_us:g}"] + ([f"--ecn-k={k}"] if k else [])
            + (["--dctcp-abc=1"] if dctcp_abc and cc == "dctcp" else [])
            + (["--dctcp-floor=0"] if dctcp_stock and cc == "dctcp" else []))


def run_ns3(exe: Path, cc: str, qmax: int, header: int, seed: int, secs: float,
            cache: Optional[Path], link_us: float = 1.0, dctcp_abc: bool = False,
            dctcp_stock: bool = False) -> Dict[str, Any]:
    link = "" if link_us == 1.0 else f"-link{link_us:g}us"
    variant = ("-abc" if dctcp_abc else "") + ("-stock" if dctcp_stock else "") if cc == "dctcp" else ""
    f = cache / f"{cc}{variant}-q{qmax}-h{header}-s{seed}-{secs:g}s{link}.txt" if cache else None
    return parse_ns3(common.run_cached(ns3_args(exe, cc, qmax, header, seed, secs, link_us, dctcp_abc, dctcp_stock), f))


def dcnsim_doc(cc: str, qmax: int, header: int, seed: int, secs: float, ties: str, l2: int,
               tcp_over: Optional[Dict[str, Any]] = None, link_us: float = 1.0) -> Dict[str, Any]:
    """Fig. 1 from the experiment's own builder, with the header variant,
    the order of equal-time events and the framing bytes."""
    from dcnsim.experiments.tcprand.common import SERIES, fig1_doc

    mss, hdr = HEADERS[header]
    top = dict(TIES[ties])
    if l2:
        top["l2_overhead"] = l2
    topo = {} if link_us == 1.0 else {"delay": f"{round(link_us * 1000)}ns"}
    return fig1_doc(SERIES[CCS[cc]], qmax, secs, seed, tcp_over={"mss": mss, "header": hdr, **(tcp_over or {})},
                    top_over=top, topo_over=topo, name=f"ns3-outcast-{cc}-q{qmax}-h{header}-s{seed}-{ties}")


def edge_port_drops(queue_inputs) -> Dict[str, int]:
    """Drops at the receiver's edge port by input port, from dcnsim's ``queue_inputs`` table."""
    q = queue_inputs[(queue_inputs["node"] == EDGE) & (queue_inputs["to"] == RECEIVER)]
    d = {str(r["input_from"]): int(r["dropped"]) for _, r in q.iterrows()}
    return {p: d.get(p, 0) for p in PORTS}


def run_dcnsim(cc: str, qmax: int, header: int, seed: int, secs: float, ties: str, l2: int,
               tcp_over: Optional[Dict[str, Any]] = None, link_us: float = 1.0) -> Dict[str, Any]:
    import dcnsim

    r = dcnsim.run(dcnsim_doc(cc, qmax, header, seed, secs, ties, l2, tcp_over, link_us))
    f = r.flows
    good = {int(s): float(b) for s, b in zip(f["src"], f["delivered_bytes"])}
    f1, j = share_and_jain(good)
    q = r.queues
    return {"f1": f1, "jain": j, "drops": edge_port_drops(r.queue_inputs),
            "f1_timeouts": int(f.loc[f["src"] == 1, "timeouts"].sum()),
            "marks": int(q.loc[(q["node"] == EDGE) & (q["to"] == RECEIVER), "marked"].sum()),
            "total": float(f["delivered_bytes"].sum())}


def _task(job: Tuple) -> Tuple[Tuple, Dict[str, Any]]:
    kind, key, args = job
    return (kind, key), (run_ns3(*args) if kind == "ns-3" else run_dcnsim(*args))


def fmt_drops(d: Dict[str, int]) -> str:
    return "/".join(str(d[p]) for p in PORTS)


def mean(xs: List[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default="1-10", help="seeds: N-M or a comma-separated list (default 1-10)")
    p.add_argument("--qmax", type=int, nargs="+", default=[20], help="switch port buffers, packets (20 60 100)")
    p.add_argument("--header", type=int, nargs="+", default=[40, 52], choices=sorted(HEADERS))
    p.add_argument("--cc", nargs="+", default=["cubic"], choices=sorted(CCS))
    p.add_argument("--secs", type=float, default=1.0,
                   help="flow duration, s (docs/tcprand.md's table: 1 s; the seeds figure runs 3 s)")
    p.add_argument("--ties", nargs="+", default=["fifo", "seeded"], choices=sorted(TIES),
                   help="dcnsim's order of equal-time events: fifo, seeded (threads = 1), or both")
    p.add_argument("--dcnsim-l2", type=int, default=0,
                   help="dcnsim's l2_overhead: 0 (the TCPRand setup) or 2 (ns-3's point-to-point framing)")
    p.add_argument("--link-us", type=float, default=1.0,
                   help="link propagation delay, µs (Fig. 1: 1); 1.05 moves the six-hop flows' arrival phase "
                        "across the port's slot instant with 40 B headers (docs/tcprand.md)")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE", help="dcnsim [tcp] overrides")
    p.add_argument("--ns3-dctcp-abc", action="store_true",
                   help="--cc dctcp: ns-3's congestion avoidance by RFC 3465's byte counting, the count cleared on "
                        "every cut, in place of TcpLinuxReno's (dcnsim's ca_increase = \"bytes\"; an experiment)")
    p.add_argument("--ns3-dctcp-stock", action="store_true",
                   help="--cc dctcp: ns-3.37's TcpDctcp as it is, without the 2-segment floor on its cut that "
                        "Linux and dcnsim keep (an experiment)")
    p.add_argument("--only", choices=["dcnsim", "ns3"], help="run one simulator")
    p.add_argument("--check", action="store_true",
                   help="judge each point: is F1 outcast (starved on most seeds) in ns-3 and in dcnsim alike; "
                        "exit 1 if any point differs")
    p.add_argument("--jobs", type=int, default=2, help="runs at once")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-outcast")
    p.add_argument("--no-cache", action="store_true", help="rerun ns-3 even where BUILD/cache has the run")
    p.add_argument("--trace", type=int, metavar="SEED",
                   help="write SEED's first --trace-ms of both simulators to --out and print the edge port's "
                        "arrival phases (first --qmax, --header, --cc, --ties), then stop")
    p.add_argument("--trace-ms", type=float, default=100.0, help="how much of the run --trace writes, ms (default 100)")
    # under the temporary directory, as --build: run from the repository
    # root, a relative default left an untracked folder in the checkout
    p.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-outcast-trace",
                   help="where --trace writes (default $TMPDIR/dcnsim-outcast-trace)")
    a = p.parse_args(argv)
    try:
        seeds = parse_seeds(a.seeds)
        over = common.parse_overrides(a.tcp)
    except ValueError as e:
        p.error(str(e))
    if (a.ns3_dctcp_abc or a.ns3_dctcp_stock) and "dctcp" not in a.cc:
        p.error("--ns3-dctcp-abc and --ns3-dctcp-stock change ns-3's DCTCP: add --cc dctcp")
    if a.ns3_dctcp_abc and a.ns3_dctcp_stock:
        p.error("--ns3-dctcp-abc: ns-3's stock TcpDctcp (--ns3-dctcp-stock) has no byte counting to switch on")
    for q in a.qmax:
        if q < 2:
            p.error(f"--qmax: each must be >= 2, got {q}")
        # outcast.cc's RED ports mark at K - 1 packets of queue disc (K >= 3) below a limit of Qmax - 2
        if "dctcp" in a.cc and not 3 <= ecn_k("dctcp", q) <= q - 3:
            p.error(f"--qmax: DCTCP's K = 0.2 x Qmax must lie in 3..Qmax - 3 in outcast.cc's ports; {q} gives "
                    f"{ecn_k('dctcp', q)}")
    if a.secs <= 0:
        p.error(f"--secs: must be > 0, got {a.secs}")
    if not 0 < a.trace_ms < float("inf"):
        # ns-3's program ran for ever on a negative --secs
        p.error(f"--trace-ms: must be > 0, got {a.trace_ms:g}")
    if a.dcnsim_l2 < 0:
        p.error(f"--dcnsim-l2: must be >= 0, got {a.dcnsim_l2}")
    if a.link_us <= 0:
        p.error(f"--link-us: must be > 0, got {a.link_us}")
    if a.jobs < 1:
        p.error(f"--jobs: must be >= 1, got {a.jobs}")
    if a.check and a.only is not None:
        p.error("--check compares the two simulators: leave out --only")
    if a.check and a.trace is not None:
        p.error("--check judges the table's points; --trace writes one run and prints no table")
    # A bad dcnsim key fails here, naming --tcp, not as a traceback from a worker.
    problems = common.dcnsim_problems(dcnsim_doc(a.cc[0], a.qmax[0], a.header[0], seeds[0], a.secs, a.ties[0],
                                                 a.dcnsim_l2, over, a.link_us))
    if problems:
        p.error(f"--tcp: dcnsim refuses the scenario: {problems}")
    exe = common.ns3_binary(SOURCE, a.build) if a.only != "dcnsim" or a.trace is not None else None
    if a.trace is not None:
        import phases  # validation/ns3_outcast/phases.py (this script's directory is on sys.path)

        phases.trace_both(exe, a.cc[0], a.qmax[0], a.header[0], a.trace, a.ties, a.dcnsim_l2, over,
                          a.trace_ms, a.out, a.link_us)
        return 0
    cache = None if a.no_cache else a.build / "cache"
    sims = ([] if a.only == "dcnsim" else ["ns-3"]) + ([] if a.only == "ns3" else [f"dcnsim {t}" for t in a.ties])
    jobs = []
    for cc in a.cc:
        for q in a.qmax:
            for h in a.header:
                for s in seeds:
                    if exe is not None and a.only != "dcnsim":
                        jobs.append(("ns-3", (cc, q, h, s), (exe, cc, q, h, s, a.secs, cache, a.link_us,
                                                             a.ns3_dctcp_abc, a.ns3_dctcp_stock)))
                    if a.only != "ns3":
                        for t in a.ties:
                            jobs.append((f"dcnsim {t}", (cc, q, h, s), (cc, q, h, s, a.secs, t, a.dcnsim_l2, over,
                                                                      a.link_us)))
    with ProcessPoolExecutor(a.jobs) as ex:
        res = dict(ex.map(_task, jobs))
    print(f"TCPRand Fig. 1, {a.secs:g} s flows; F1 = host 1's flow, its share of the goodput (fair share 0.067; "
          f"'starved k/n': k of the n seeds gave F1 under half its fair share); drops at {EDGE} -> "
          f"{RECEIVER} by input port {'/'.join(PORTS)}; links {a.link_us:g} µs; dcnsim l2_overhead = {a.dcnsim_l2}"
          + (f"; dcnsim tcp overrides {over}" if over else "")
          + ("; ns-3's DCTCP grows by RFC 3465's byte counting" if a.ns3_dctcp_abc and "dctcp" in a.cc else "")
          + ("; ns-3's DCTCP without the 2-segment floor" if a.ns3_dctcp_stock and "dctcp" in a.cc else ""))
    differ = []
    for cc in a.cc:
        for q in a.qmax:
            means: Dict[Tuple[str, int], float] = {}
            print(f"\n{cc}, Qmax = {q}")
            print(f"{'header':>6} {'seed':>4} " + " ".join(f"{s + ' F1':>16} {'Jain':>5} {'drops':>14}" for s in sims))
            for h in a.header:
                for s in seeds:
                    cells = []
                    for sim in sims:
                        r = res[(sim, (cc, q, h, s))]
                        cells.append(f"{r['f1']:16.3f} {r['jain']:5.3f} {fmt_drops(r['drops']):>14}")
                    print(f"{h:6d} {s:4d} " + " ".join(cells))
                cells = []
                for sim in sims:
                    rs = [res[(sim, (cc, q, h, s))] for s in seeds]
                    means[(sim, h)] = mean([r["f1"] for r in rs])
                    starved = sum(r["f1"] < 0.5 / 15 for r in rs)
                    cells.append(f"{means[(sim, h)]:16.3f} {mean([r['jain'] for r in rs]):5.3f} "
                                 f"{f'starved {starved}/{len(rs)}':>14}")
                print(f"{h:6d} {'mean':>4} " + " ".join(cells))
                if a.check:
                    theirs = [res[("ns-3", (cc, q, h, s))] for s in seeds]
                    for sim in sims[1:]:
                        ok, line = check_point([res[(sim, (cc, q, h, s))] for s in seeds], theirs)
                        print(f"  check {sim}, header {h}: {line}")
                        if not ok:
                            differ.append(f"{cc} Qmax {q} header {h} ({sim})")
            if ecn_k(cc, q):
                print(f"CE marks at {EDGE} -> {RECEIVER} (K = {ecn_k(cc, q)} packets), mean over seeds: "
                      + ", ".join(f"{sim} header {h} {mean([res[(sim, (cc, q, h, s))]['marks'] for s in seeds]):.0f}"
                                  for h in a.header for sim in sims))
            if len(a.header) == 2:
                h0, h1 = a.header
                print(f"mean F1 share, header {h0} minus {h1}: "
                      + ", ".join(f"{sim} {means[(sim, h0)] - means[(sim, h1)]:+.3f}" for sim in sims))
    if "dctcp" in a.cc and "cubic" in a.cc:
        # Fig. 8b's DCTCP bar: total goodput over CUBIC's, seed by seed (the experiment's ratio)
        print("\nDCTCP's total goodput over CUBIC's (Fig. 8b), mean of the seeds' ratios (range):")
        for q in a.qmax:
            for h in a.header:
                cells = []
                for sim in sims:
                    rs = [res[(sim, ("dctcp", q, h, s))]["total"] / res[(sim, ("cubic", q, h, s))]["total"]
                          for s in seeds]
                    cells.append(f"{sim} {mean(rs):.3f} ({min(rs):.3f}-{max(rs):.3f})")
                print(f"Qmax {q}, header {h}: " + ", ".join(cells))
    if a.check:
        print(f"\ncheck: {len(differ)} point(s) where dcnsim's answer to 'is F1 outcast?' differs from ns-3's"
              + (": " + "; ".join(differ) if differ else ""))
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
