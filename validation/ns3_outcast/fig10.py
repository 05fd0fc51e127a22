"""TCPRand's Fig. 10 in dcnsim and in ns-3 3.37: the 2-hop flow's goodput
against its fair share on the 8-ary fat-tree, seed by seed.

Usage (from the repository root, dcnsim importable, Debian's ``libns3-dev``
and ``g++`` installed)::

    python validation/ns3_outcast/fig10.py --seeds 1-3 --n6 16 64 112 --header 40 52
    python validation/ns3_outcast/fig10.py --seeds 1-3 --n6 16 64 112 --header 40 52 --dcnsim-l2 2   # ns-3's framing

The scenario is ``dcnsim.experiments.tcprand.fattree.fig10_doc`` (CUBIC,
docs/tcprand.md, Fig. 10): a k = 8 fat-tree, 1 Gbps, Qmax 100, host 1's
2-hop flow and ``n6`` 6-hop flows from hosts 16, 17, ... (other pods) into
host 0, TCPRand's TCP settings, per-flow random ECMP and starts within
100 µs from the seed; 1460 + 40 B or 1448 + 52 B segments. ns-3's side is
outcast.cc with ``--k=8 --senders=1,16,...`` (its header comment gives the
mapping, as for Fig. 1). The claim ``fig10-outcast`` calls the 2-hop flow
outcast at the largest n: below half its fair share (total / (n6 + 1)).

Printed per (n6, header) and seed: the 2-hop flow's goodput over its fair
share and its drops at the receiver's edge port, per simulator, then the
means over the seeds and how many seeds left it outcast. A tool, not a
test: tests/test_validation_ns3.py runs one point.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent


def _fig1():
    """validation/ns3_outcast/run.py (Fig. 1's harness: the shared pieces),
    loaded by path under its own name: another harness's run.py may already
    be the module called ``run`` in this process."""
    name = "dcnsim_ns3_outcast_run"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "run.py")
        mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[name] = mod
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return sys.modules[name]


fig1 = _fig1()

#: the experiment's buffer for Fig. 10
QMAX = 100
#: the first 6-hop sender (hosts 16.. sit in other pods of the 8-ary tree)
FIRST_6HOP = 16


def senders(n6: int) -> List[int]:
    return [1] + [FIRST_6HOP + i for i in range(n6)]


def ns3_args(exe: Path, n6: int, header: int, seed: int, secs: float) -> List[str]:
    return [str(exe), "--k=8", "--cc=cubic", f"--qmax={QMAX}", f"--header={header}", f"--seed={seed}",
            f"--secs={secs:g}", "--senders=" + ",".join(map(str, senders(n6)))]


def share(goodputs: Dict[int, float]) -> float:
    """The 2-hop flow's (host 1's) goodput over its fair share."""
    total = sum(goodputs.values())
    return goodputs[1] * len(goodputs) / total if total > 0 else float("nan")


def run_ns3(exe: Path, n6: int, header: int, seed: int, secs: float, cache: Optional[Path]) -> Dict[str, Any]:
    f = cache / f"fig10-n{n6}-h{header}-s{seed}-{secs:g}s.txt" if cache else None
    out = fig1.common.run_cached(ns3_args(exe, n6, header, seed, secs), f)
    good, drops = {}, {}
    for m in fig1.FLOW_RE.finditer(out):
        good[int(m[2])] = float(m[3])
        drops[int(m[2])] = int(m[5])
    if sorted(good) != senders(n6):
        raise RuntimeError("unexpected ns-3 output:\n" + out[-2000:])
    return {"share": share(good), "f1_drops": drops[1]}


def dcnsim_doc(n6: int, header: int, seed: int, secs: float, ties: str, l2: int = 0) -> Dict[str, Any]:
    from dcnsim.experiments.tcprand.common import SERIES
    from dcnsim.experiments.tcprand.fattree import fig10_doc

    mss, hdr = fig1.HEADERS[header]
    doc = fig10_doc(SERIES["C"], n6, secs, seed, f"ns3-fig10-n{n6}-h{header}-s{seed}-{ties}",
                    tcp_over={"mss": mss, "header": hdr})
    doc.update(fig1.TIES[ties])
    if l2:
        doc["l2_overhead"] = l2
    return doc


def run_dcnsim(n6: int, header: int, seed: int, secs: float, ties: str, l2: int = 0) -> Dict[str, Any]:
    import dcnsim

    r = dcnsim.run(dcnsim_doc(n6, header, seed, secs, ties, l2))
    f = r.flows
    good = {int(s): float(b) for s, b in zip(f["src"], f["delivered_bytes"])}
    qi = r.queue_inputs
    at = qi[(qi["node"] == fig1.EDGE) & (qi["to"] == fig1.RECEIVER) & (qi["input_from"] == "h1")]
    return {"share": share(good), "f1_drops": int(at["dropped"].sum())}


def _task(job: Tuple) -> Tuple[Tuple, Dict[str, Any]]:
    kind, key, args = job
    return (kind, key), (run_ns3(*args) if kind == "ns-3" else run_dcnsim(*args))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default="1-3", help="seeds: N-M or a comma-separated list (default 1-3)")
    p.add_argument("--n6", type=int, nargs="+", default=[16, 64, 112], help="6-hop flows (Fig. 10: 1 … 112)")
    p.add_argument("--header", type=int, nargs="+", default=[40, 52], choices=sorted(fig1.HEADERS))
    p.add_argument("--secs", type=float, default=1.0, help="flow duration, s (the experiment runs 10)")
    p.add_argument("--ties", nargs="+", default=["fifo", "seeded"], choices=sorted(fig1.TIES),
                   help="dcnsim's order of equal-time events")
    p.add_argument("--dcnsim-l2", type=int, default=0,
                   help="dcnsim's l2_overhead: 0 (the TCPRand setup) or 2 (ns-3's point-to-point framing)")
    p.add_argument("--only", choices=["dcnsim", "ns3"], help="run one simulator")
    p.add_argument("--jobs", type=int, default=2, help="runs at once")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-outcast")
    p.add_argument("--no-cache", action="store_true", help="rerun ns-3 even where BUILD/cache has the run")
    a = p.parse_args(argv)
    try:
        seeds = fig1.parse_seeds(a.seeds)
    except ValueError as e:
        p.error(str(e))
    for n in a.n6:
        if not 1 <= n <= 112:
            p.error(f"--n6: each must be 1..112 (hosts 16..127 of the 8-ary tree), got {n}")
    if a.secs <= 0:
        p.error(f"--secs: must be > 0, got {a.secs}")
    if a.jobs < 1:
        p.error(f"--jobs: must be >= 1, got {a.jobs}")
    if a.dcnsim_l2 < 0:
        p.error(f"--dcnsim-l2: must be >= 0, got {a.dcnsim_l2}")
    exe = fig1.common.ns3_binary(fig1.SOURCE, a.build) if a.only != "dcnsim" else None
    cache = None if a.no_cache else a.build / "cache"
    sims = ([] if a.only == "dcnsim" else ["ns-3"]) + ([] if a.only == "ns3" else [f"dcnsim {t}" for t in a.ties])
    jobs = []
    for n in a.n6:
        for h in a.header:
            for s in seeds:
                if exe is not None:
                    jobs.append(("ns-3", (n, h, s), (exe, n, h, s, a.secs, cache)))
                if a.only != "ns3":
                    jobs += [(f"dcnsim {t}", (n, h, s), (n, h, s, a.secs, t, a.dcnsim_l2)) for t in a.ties]
    with ProcessPoolExecutor(a.jobs) as ex:
        res = dict(ex.map(_task, jobs))
    print(f"TCPRand Fig. 10, CUBIC, {a.secs:g} s flows, Qmax {QMAX}: the 2-hop flow's goodput over its fair share "
          f"(outcast: below 0.5), and its drops at edge0_0 -> h0; dcnsim l2_overhead = {a.dcnsim_l2}")
    for n in a.n6:
        print(f"\nn6 = {n}")
        print(f"{'header':>6} {'seed':>4} " + " ".join(f"{sim + ' share':>20} {'drops':>6}" for sim in sims))
        for h in a.header:
            for s in seeds:
                print(f"{h:6d} {s:4d} " + " ".join(
                    f"{res[(sim, (n, h, s))]['share']:20.2f} {res[(sim, (n, h, s))]['f1_drops']:6d}" for sim in sims))
            cells = []
            for sim in sims:
                rs = [res[(sim, (n, h, s))]["share"] for s in seeds]
                cells.append(f"{fig1.mean(rs):20.2f} {f'{sum(r < 0.5 for r in rs)}/{len(rs)}':>6}")
            print(f"{h:6d} {'mean':>4} " + " ".join(cells) + "   (mean share, seeds outcast)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
