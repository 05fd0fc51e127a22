"""dcnsim against ns-3 on the same scenarios: CPU seconds per run, side by
side, with both sides' packet-hops checked to agree.

    python benchmarks/ns3_side_by_side.py [--pairs 3] [--scenario NAME ...] [--json OUT]
    python benchmarks/ns3_side_by_side.py --instructions [--scenario NAME ...] [--json OUT]

Needs Debian's ns-3 (``apt-get install libns3-dev ns3 g++ pkg-config``;
``pkg-config ns3-core`` names the version) and dcnsim importable. The ns-3
programs (validation/ns3_incast/incast.cc for the incasts,
validation/ns3_perm/perm.cc for the DCTCP permutations) are compiled once
per change of their source into ``--build`` (default
``$TMPDIR/dcnsim-ns3-side-by-side``), outside the repository. Per pair, in
alternating order, fresh processes run the same scenario:

* ns-3's program (its CPU: user + system of the child, from ``wait4``);
* dcnsim's core: a child that times ``dcnsim.run(doc)`` in-process by its
  own CPU clock (``resource.getrusage`` around the call): the simulator's
  cost without the interpreter's start-up or the summary (the modules
  ``run`` imports on its first call are imported before the clock);
* the whole ``dcnsim run FILE`` process (its CPU from ``wait4``), twice:
  in this interpreter as configured, and in a clean one (benchmarks/startup.py's:
  a fresh virtual environment, no ``.pth`` start-up hooks, bytecode cached,
  as a ``pip install`` gives a user; this machine's site hook and
  ``PYTHONDONTWRITEBYTECODE`` cost the configured one ≈ 0.08 s a process);

the two dcnsim processes once per entry of the scenario's ``threads`` (the
permutations: 1 and 2, the document's ``threads`` key; each its own row,
beside the pair's one ns-3 run).

Each side counts its packet-hops (a packet sent onto a link: ns-3's
PhyTxBegin on every point-to-point device, dcnsim's ``packet_hops``); they
must agree within 1 % or the scenario's row says ``DISAGREE`` and the exit
status is 1. A ratio is ns-3's CPU over dcnsim's, the median over pairs
(CPU time is what a shared machine disturbs least; wall time is printed
too), with the pairs that hold the median of such pairs with 95 % or more
(order statistics; nine pairs: the second smallest and second largest,
96.1 %), since a shared VM moves a record's median by more than its
goals' margins. ``--json`` writes the record benchmarks/record.py keeps as the
``ns3`` section of benchmarks/results.json (``python benchmarks/record.py
--only ns3 --ns3``).

``--instructions`` counts instead of timing: each scenario once on each
side under cachegrind (``valgrind --tool=cachegrind --cache-sim=no``),
ns-3's program and dcnsim's core without Python (``run_json``,
crates/dcnsim/examples/run_json.rs, on one thread; build it with ``cargo
build --release --example run_json -p dcnsim``), whole runs with their
set-up, and the ratio of instructions per packet-hop, ns-3's over
dcnsim's. An instruction count is exact and the same on any x86-64 machine,
so this ratio says how much less work dcnsim does per hop wherever it is
taken; the CPU-time ratio of the pairs is that times the ratio of the two
programs' instructions per second on the machine at hand. Under valgrind
ns-3 runs about 30 times slower than natively (the two incasts take 4–7
minutes each; the permutations' ns-3 runs take hours so).

Both modes run the two incasts unless ``--scenario`` names others
(``--scenario ns3_dctcp_perm_k4 ns3_dctcp_perm_k8``: the permutations,
benchmarks/record.py's ``ns3_perm`` section).

Adding a scenario: a :class:`Scenario` in :data:`SCENARIOS` naming its
ns-3 source (compiled the same way, against the libraries of
validation/ns3_common.py), the program's arguments (a list, or a function
of the dcnsim document: the permutations' are validation/ns3_perm/perm_args.py's,
flows and paths included), the dcnsim document (a function of no
arguments, e.g. one of ``dcnsim.bench.SCENARIOS``) and the thread counts
to run it on. The program must print ``packet_hops N``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its neighbours, however it was loaded
from outpath import check_json_path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "validation" / "ns3_perm"))
import ns3_common  # noqa: E402  (validation/: compiles ns-3 programs)
import perm_args  # noqa: E402  (validation/ns3_perm/: perm.cc's arguments from the dcnsim document)
from threads_pairs import median_interval  # noqa: E402  (benchmarks/: order-statistic interval)

INCAST_CC = ROOT / "validation" / "ns3_incast" / "incast.cc"
PERM_CC = ROOT / "validation" / "ns3_perm" / "perm.cc"
TOLERANCE = 0.01


class Scenario(NamedTuple):
    """The ns-3 program and its arguments (or the function of dcnsim's
    document that gives them), dcnsim's document, and the ``threads`` it
    runs on (None: the document's own; a row each)."""

    label: str
    source: Path
    args: Union[List[str], Callable[[Dict[str, Any]], List[str]]]
    doc: Callable[[], Dict[str, Any]]
    threads: Tuple[Optional[int], ...] = (None,)

    def ns3_args(self) -> List[str]:
        return self.args(self.doc()) if callable(self.args) else list(self.args)

    def docs(self) -> List[Tuple[str, Dict[str, Any]]]:
        """(row label, document) per thread count."""
        out = []
        for t in self.threads:
            doc = self.doc()
            if t is not None:
                doc["threads"] = t
            out.append((self.label + ("" if t is None else f", dcnsim on {t} thread{'s' if t > 1 else ''}"), doc))
        return out


def bench_perm(k: int) -> Dict[str, Any]:
    """``dcnsim bench``'s DCTCP permutation at k (its k = 8 scenario's 210 ms)."""
    from dcnsim import bench

    return bench.dctcp_perm(k, "210ms")


def _bench(name: str) -> Callable[[], Dict[str, Any]]:
    """``dcnsim bench``'s scenario ``name`` in ns-3's order of equal-time
    events (first scheduled first), as validation/ns3_incast runs it, so
    both sides send the same packets. The bench itself keeps the engine's
    seeded default: its scenarios run on any number of threads (``--threads``),
    which first-in first-out cannot."""
    def doc() -> Dict[str, Any]:
        from dcnsim import bench

        return {**bench.SCENARIOS[name](), "ties": "fifo"}

    return doc


#: name -> scenario; the ns-3 arguments are validation/ns3_incast/run.py's
#: for the same setups (tests/test_cli.py checks the dcnsim documents are
#: that harness's).
SCENARIOS: Dict[str, Scenario] = {
    # with incast.cc's --loss-exit-ack=1: ns-3.37's TcpSocketBase grows no
    # cwnd on the ACK that ends loss recovery when it is exactly the
    # recovery point (RFC 5681 grows it, as dcnsim does; validation/README.md),
    # so on persistent connections ns-3 starts each later query with a
    # smaller window: 278 drops a query against dcnsim's 350 and 356,451
    # packet-hops against 366,135 (+2.7 %); with the flag 363,518 against
    # 366,135 under seeded ties (+0.7 %), 363,378 under ns-3's (−0.04 %)
    "ns3_fast_incast_n100": Scenario(
        "FaST incast, n = 100, 100 queries, NewReno", INCAST_CC,
        ["--n=100", "--cc=newreno", "--queries=100", "--persistent=1", "--gap=0.01", "--iw=2", "--mss=1460",
         "--sack=0", "--timestamps=0", "--lt=0", "--rcvbuf=65535", "--buffer=100000B", "--loss-exit-ack=1"],
        _bench("ns3_fast_incast_n100")),
    # with run.py's DCTCP work-arounds (NS3_WORKAROUNDS), as its DCTCP runs
    # have: ns-3.37's TcpDctcp cuts below RFC 5681's 2-segment floor, which
    # dcnsim keeps; 64 flows at 2 segments overflow the port where ns-3's
    # 1-segment flows fit (1,043 drops, 334,316 packet-hops, against 8,012
    # and 341,298 with the floor; dcnsim 5,516 and 338,444)
    "ns3_dctcp_bulk_64": Scenario(
        "64 DCTCP bulk flows into one port, 1 s", INCAST_CC,
        ["--n=64", "--cc=dctcp", "--bulk=1", "--dctcp-floor=1", "--cwr-exit=1"],
        _bench("ns3_dctcp_bulk_64")),
    # issue 42 item 5: dcnsim.bench's DCTCP permutation (htsim's example) at
    # k = 4 and 8, 210 ms, each flow on dcnsim's ECMP path in ns-3 too
    "ns3_dctcp_perm_k4": Scenario(
        "DCTCP permutation, k = 4 (16 flows), 210 ms", PERM_CC, perm_args.ns3_args,
        lambda: bench_perm(4), (1, 2)),
    "ns3_dctcp_perm_k8": Scenario(
        "DCTCP permutation, k = 8 (128 flows), 210 ms", PERM_CC, perm_args.ns3_args,
        lambda: bench_perm(8), (1, 2)),
}

# A child that runs one document in-process and reports the run's own CPU
# (the interpreter's start-up and the import are outside the clock).
CORE = """
import json, resource, sys, time
import dcnsim
# what dcnsim.run imports on its first call is start-up (the process
# columns count it): where bytecode is not cached, compiling it took
# 8-11 ms of a 0.04 s run
import dcnsim._document, dcnsim.result
doc = json.load(open(sys.argv[1]))
cpu = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_SELF))
c0, t0 = cpu(), time.perf_counter()
r = dcnsim.run(doc)
c1, t1 = cpu(), time.perf_counter()
print(json.dumps({"cpu_s": c1 - c0, "wall_s": t1 - t0, "packet_hops": int(r.summary["packet_hops"]),
                  "threads": int(r.timing.get("threads", 1))}))
"""


def timed(cmd: List[str], env: Optional[Dict[str, str]] = None) -> Tuple[str, float, float]:
    """Run ``cmd`` to the end; its stdout, wall seconds and CPU seconds
    (user + system: what the children's rusage gained, one child at a time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{p.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, wall, cpu


def hops_of(out: str, what: str) -> int:
    m = re.search(r"packet_hops (\d+)", out) or re.search(r"([\d,]+) packet-hops", out)
    if m is None:
        raise RuntimeError(f"{what} printed no packet-hop count:\n{out[-1000:]}")
    return int(m.group(1).replace(",", ""))


def run_pair(s: Scenario, exe: Path, doc_paths: List[Path], ns3_first: bool,
             clean: Tuple[str, Dict[str, str]]) -> Tuple[Dict[str, float], List[Dict[str, float]]]:
    """One pair: ns-3's run and dcnsim's (core and process) on each of
    ``doc_paths`` (one per entry of ``s.threads``), ns-3 first or last,
    dcnsim's in the same alternation."""
    # dcnsim runs a cut on one thread when the machine has one core free
    # now (issue 42 item 0), or when a window holds too little work for the
    # cut to pay (k = 4: about 25 events); the rows measure the threads
    # they name, so they say how many cores to take as free and to cut
    # anyway (docs/performance.md)
    def forced(t: int) -> Dict[str, str]:
        return {"DCNSIM_FREE_CORES": str(t), "DCNSIM_CUT": "always"} if t else {}

    envs = {p: {**os.environ, "PYTHONHASHSEED": "0", **forced(t)} for p, t in zip(doc_paths, s.threads)}
    clean_python, clean_env = clean
    clean_envs = {p: {**clean_env, **forced(t)} for p, t in zip(doc_paths, s.threads)}

    def ns3() -> Dict[str, float]:
        out, wall, cpu = timed([str(exe), *s.ns3_args()])
        return {"ns3_wall_s": wall, "ns3_cpu_s": cpu, "ns3_hops": hops_of(out, "ns-3")}

    def dcnsim(doc_path: Path) -> Dict[str, float]:
        out, _, _ = timed([sys.executable, "-c", CORE, str(doc_path)], envs[doc_path])
        core = json.loads(out.strip().splitlines()[-1])
        out, wall, cpu = timed([sys.executable, "-m", "dcnsim", "run", str(doc_path)], envs[doc_path])
        _, _, clean_cpu = timed([clean_python, "-m", "dcnsim", "run", str(doc_path)], clean_envs[doc_path])
        return {"core_cpu_s": core["cpu_s"], "core_wall_s": core["wall_s"], "dcnsim_hops": core["packet_hops"],
                "threads_used": core["threads"], "process_wall_s": wall, "process_cpu_s": cpu,
                "process_clean_cpu_s": clean_cpu, "process_hops": hops_of(out, "dcnsim run")}

    order = doc_paths if ns3_first else doc_paths[::-1]
    ns = ns3() if ns3_first else None
    ds = {p: dcnsim(p) for p in order}
    if ns is None:
        ns = ns3()
    return ns, [ds[p] for p in doc_paths]


def measure(names: List[str], pairs: int, build: Path) -> Dict[str, Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import startup  # the machine's CPU model and L3

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = startup.interpreters(Path(tmp), None)["clean"]
        # the clean interpreter's first start compiles and caches the bytecode
        timed([clean[0], "-m", "dcnsim", "--version"], clean[1])
        for name in names:
            s = SCENARIOS[name]
            exe = ns3_common.ns3_binary(s.source, build)
            labelled = s.docs()
            doc_paths = []
            for i, (_, doc) in enumerate(labelled):
                doc_paths.append(Path(tmp) / f"{name}-{i}.json")
                doc_paths[-1].write_text(json.dumps(doc))
            ns3_runs: List[Dict[str, float]] = []
            runs: List[List[Dict[str, float]]] = [[] for _ in labelled]
            timed([clean[0], "-m", "dcnsim", "run", str(doc_paths[0])], clean[1])  # its run path's bytecode
            for i in range(pairs):
                ns, ds = run_pair(s, exe, doc_paths, ns3_first=i % 2 == 0, clean=clean)
                ns3_runs.append(ns)
                for acc, d in zip(runs, ds):
                    acc.append(d)
                print(f"  {name} pair {i + 1}: ns-3 {ns['ns3_cpu_s']:.2f} s CPU, dcnsim core "
                      + ", ".join(f"{d['core_cpu_s']:.3f} s ({d['threads_used']} thr)" for d in ds)
                      + ", process " + ", ".join(f"{d['process_cpu_s']:.3f} s" for d in ds)
                      + ", clean " + ", ".join(f"{d['process_clean_cpu_s']:.3f} s" for d in ds),
                      file=sys.stderr, flush=True)
            for (label, _), t, rs in zip(labelled, s.threads, runs):
                rows.append(row(name, label, t, s.ns3_args(), ns3_runs, rs))
    version = subprocess.run(["pkg-config", "--modversion", "ns3-core"], capture_output=True, text=True).stdout.strip()
    m = startup.machine()
    return {"pairs": pairs, "ns3": version or "unknown", "cpu": m["cpu"], "l3": m["l3"],
            "load_average": round(os.getloadavg()[0], 1), "python": m["python"], "machine": m["line"], "rows": rows}


#: what runs unless ``--scenario`` says otherwise, timed or counted: the
#: two incasts (the permutations take ns-3 minutes a run, hours under valgrind)
DEFAULT_SCENARIOS = ("ns3_fast_incast_n100", "ns3_dctcp_bulk_64")


def instructions_of(cmd: List[str], what: str) -> Tuple[int, str]:
    """(instructions cachegrind counted, stdout) of ``cmd`` run to the end."""
    from cachegrind_per_hop import cachegrind  # benchmarks/: the one valgrind runner

    try:
        counts, out = cachegrind(cmd)
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"{what} under valgrind failed (exit {e.returncode}):\n{(e.stderr or '')[-2000:]}") from None
    return counts["instructions"], out


def count_instructions(names: List[str], exe_of: Callable[[Scenario], Path], run_json: Path) -> Dict[str, Any]:
    """Each scenario once on each side under cachegrind: ns-3's program (as
    ``exe_of`` builds it) and dcnsim's document on one thread by
    ``run_json``; instructions per packet-hop and their ratio."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            s = SCENARIOS[name]
            ns3_instr, out = instructions_of([str(exe_of(s)), *s.ns3_args()], f"ns-3 ({name})")
            ns3_hops = hops_of(out, "ns-3")
            doc = {**s.doc(), "threads": 1}
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(doc))
            instr, out = instructions_of([str(run_json), str(path)], f"run_json ({name})")
            m = re.search(r"\bhops (\d+)", out)
            if m is None:
                raise RuntimeError(f"{run_json} printed no hop count (is it crates/dcnsim/examples/run_json?):\n{out[-500:]}")
            hops = int(m.group(1))
            rows.append({"scenario": name, "label": s.label, "ns3_instructions": ns3_instr, "ns3_hops": ns3_hops,
                         "dcnsim_instructions": instr, "dcnsim_hops": hops,
                         "ns3_per_hop": ns3_instr / ns3_hops, "dcnsim_per_hop": instr / hops,
                         "ratio_per_hop": (ns3_instr / ns3_hops) / (instr / hops),
                         "hops_agree": abs(hops / ns3_hops - 1) <= TOLERANCE})
            print(f"  {name}: ns-3 {ns3_instr:,} instructions, dcnsim {instr:,}", file=sys.stderr, flush=True)
    return {"rows": rows}


def instructions_markdown(rec: Dict[str, Any]) -> str:
    lines = ["| scenario | ns-3 instructions | per packet-hop | dcnsim instructions (`run_json`, one thread) "
             "| per packet-hop | ns-3 / dcnsim per hop | packet-hops ns-3 / dcnsim |",
             "|---|---|---|---|---|---|---|"]
    for r in rec["rows"]:
        agree = f"{r['ns3_hops']:,} / {r['dcnsim_hops']:,} ({r['dcnsim_hops'] / r['ns3_hops'] - 1:+.1%})"
        lines.append(f"| {r['label']} | {r['ns3_instructions'] / 1e9:.2f} G | {r['ns3_per_hop']:,.0f} "
                     f"| {r['dcnsim_instructions'] / 1e6:.1f} M | {r['dcnsim_per_hop']:,.0f} "
                     f"| {r['ratio_per_hop']:.1f}× | {agree}{'' if r['hops_agree'] else ' DISAGREE'} |")
    return "\n".join(lines)


def row(name: str, label: str, threads: Optional[int], ns3_args: List[str], ns3_runs: List[Dict[str, float]],
        runs: List[Dict[str, float]]) -> Dict[str, Any]:
    """One scenario's (and thread count's) record over the pairs: each
    ratio is ns-3's run over dcnsim's of the same pair, then the median."""
    ns3_hops, hops = ns3_runs[0]["ns3_hops"], runs[0]["dcnsim_hops"]
    med = {k: statistics.median(r[k] for r in runs) for k in ("core_cpu_s", "core_wall_s")}
    ratios = {k: [n["ns3_cpu_s"] / r[k] for n, r in zip(ns3_runs, runs)]
              for k in ("core_cpu_s", "process_cpu_s", "process_clean_cpu_s")}

    def interval(k: str) -> List[float]:
        # where the median of such pairs' ratios lies: the j-th smallest
        # and largest pair, and the probability they hold it (any
        # distribution; threads_pairs.median_interval). Of 9 pairs, the
        # second smallest and second largest (96.1 %).
        lo, hi, p = median_interval(ratios[k])
        return [round(lo, 1), round(hi, 1), round(p, 4)]

    # the permutations' flow list is long: the record keeps the rest of the command line
    args = [a for a in ns3_args if not a.startswith("--flows=")]
    return {
        "scenario": name, "label": label, "threads": threads,
        "threads_used": [int(r["threads_used"]) for r in runs],
        "ns3_args": " ".join(args) + (" --flows=(one per flow, from the dcnsim document)" if len(args) < len(ns3_args)
                                      else ""),
        "ns3_cpu_s": [round(r["ns3_cpu_s"], 2) for r in ns3_runs],
        "ns3_wall_s": [round(r["ns3_wall_s"], 2) for r in ns3_runs],
        "core_cpu_s": [round(r["core_cpu_s"], 4) for r in runs],
        "core_wall_s": [round(r["core_wall_s"], 4) for r in runs],
        "process_cpu_s": [round(r["process_cpu_s"], 3) for r in runs],
        "process_clean_cpu_s": [round(r["process_clean_cpu_s"], 3) for r in runs],
        "ns3_hops": int(ns3_hops), "dcnsim_hops": int(hops),
        "hops_diff": round((hops - ns3_hops) / ns3_hops, 4),
        "hops_agree": abs(hops - ns3_hops) <= TOLERANCE * ns3_hops,
        "core_hops_per_cpu_s": round(hops / med["core_cpu_s"]),
        "core_hops_per_wall_s": round(hops / med["core_wall_s"]),
        "ratio_core": round(statistics.median(ratios["core_cpu_s"]), 1),
        "ratio_process": round(statistics.median(ratios["process_cpu_s"]), 1),
        "ratio_process_clean": round(statistics.median(ratios["process_clean_cpu_s"]), 1),
        "interval_core": interval("core_cpu_s"),
        "interval_process": interval("process_cpu_s"),
        "interval_process_clean": interval("process_clean_cpu_s"),
    }


def _ratio(r: Dict[str, Any], key: str) -> str:
    """A ratio cell: the median over pairs, and where a record has it the
    interval that holds the median of such pairs (its probability in the
    table's heading line)."""
    iv = r.get(f"interval_{key}")
    text = f"{r[f'ratio_{key}']:.0f}×"
    # with one or two pairs the "interval" holds the median with probability 0
    return f"{text} ({iv[0]:.0f}–{iv[1]:.0f}×)" if iv and iv[2] > 0 else text


def interval_note(rec: Dict[str, Any]) -> str:
    """What a record's ratio intervals are, for its heading ("" without)."""
    ps = {r["interval_core"][2] for r in rec["rows"] if r.get("interval_core")}
    if not ps:
        return ""
    p = min(ps)
    if p <= 0:
        # one or two pairs: no pair of order statistics holds the median
        return "; too few pairs for an interval around the median ratio (--pairs 3 or more gives one)"
    return (f"; in parentheses the pairs' ratios that hold the median of such pairs with probability "
            f"{100 * p:.1f} % or more (order statistics, any distribution)")


def markdown(rec: Dict[str, Any]) -> str:
    lines = ["| scenario | ns-3 CPU | dcnsim core CPU (`dcnsim.run`) | core wall | core packet-hops per CPU s "
             "| ns-3 / core | dcnsim process CPU (`dcnsim run FILE`) | ns-3 / process "
             "| process CPU, clean interpreter | ns-3 / clean process | packet-hops ns-3 / dcnsim |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rec["rows"]:
        span = lambda xs, f: f"{f.format(min(xs))}–{f.format(max(xs))} s" if xs else "—"  # noqa: E731
        agree = (f"{r['ns3_hops']:,} / {r['dcnsim_hops']:,} ({100 * r['hops_diff']:+.1f} %"
                 + (")" if r["hops_agree"] else ", beyond 1 %)"))
        label = r["label"]
        fewer = sum(u < r["threads"] for u in r.get("threads_used", [])) if r.get("threads") else 0
        if fewer:
            # dcnsim runs fewer threads than asked when the machine has no core free for them
            label += f" (ran on fewer threads, the machine busy: {fewer} of {len(r['threads_used'])} pairs)"
        lines.append(f"| {label} | {span(r['ns3_cpu_s'], '{:.1f}')} | {span(r['core_cpu_s'], '{:.3f}')} "
                     f"| {span(r.get('core_wall_s', []), '{:.3f}')} "
                     f"| {r['core_hops_per_cpu_s'] / 1e6:.1f} M | {_ratio(r, 'core')} "
                     f"| {span(r['process_cpu_s'], '{:.3f}')} | {_ratio(r, 'process')} "
                     + (f"| {span(r['process_clean_cpu_s'], '{:.3f}')} | {_ratio(r, 'process_clean')} "
                        if "process_clean_cpu_s" in r else "| — | — ")
                     + f"| {agree} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=3, help="interleaved pairs per scenario (default 3)")
    ap.add_argument("--scenario", nargs="+", choices=sorted(SCENARIOS), default=None,
                    help="default: the two incasts, ns3_fast_incast_n100 and ns3_dctcp_bulk_64")
    ap.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-side-by-side",
                    help="where the ns-3 program is compiled (outside the repository)")
    ap.add_argument("--json", type=Path, help="write the record here")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions per packet-hop under cachegrind instead of timing pairs")
    ap.add_argument("--run-json", type=Path, default=ROOT / "target" / "release" / "examples" / "run_json",
                    help="with --instructions: dcnsim's core without Python (default: the release build's)")
    a = ap.parse_args(argv)
    if a.pairs < 1:
        ap.error(f"--pairs: at least 1, got {a.pairs}")
    check_json_path(ap, a.json)
    # pkg-config missing is ns-3 not installed too (Debian's ns-3 names its version there)
    if shutil.which("pkg-config") is None or subprocess.run(["pkg-config", "--exists", "ns3-core"]).returncode != 0:
        ap.error("ns-3 is not installed (apt-get install libns3-dev ns3 g++ pkg-config)")
    from dcnsim import machine

    if a.instructions:
        if shutil.which("valgrind") is None:
            ap.error("--instructions needs valgrind (apt-get install valgrind)")
        if not (a.run_json.is_file() and os.access(a.run_json, os.X_OK)):
            ap.error(f"--run-json: {a.run_json} is not an executable "
                     "(build it: cargo build --release --example run_json -p dcnsim)")
        # checked against the current directory: run by that path, not looked up on PATH as a bare name is
        a.run_json = a.run_json.resolve()
        names = a.scenario or list(DEFAULT_SCENARIOS)
        print(f"machine: {machine.line()} (instruction counts do not depend on it)", flush=True)
        rec = count_instructions(names, lambda s: ns3_common.ns3_binary(s.source, a.build), a.run_json)
        version = subprocess.run(["pkg-config", "--modversion", "ns3-core"], capture_output=True, text=True).stdout
        rec.update(ns3=version.strip() or "unknown", machine=machine.describe())
        return _report(rec, f"ns-3 {rec['ns3']} vs dcnsim, instructions counted by cachegrind (the same on any "
                            "x86-64 machine); whole runs, set-up included", instructions_markdown(rec), a.json)
    a.scenario = a.scenario or list(DEFAULT_SCENARIOS)
    note = machine.compile_note()
    if note:  # the "as configured" process columns pay it
        print(f"note: {note}", flush=True)
    rec = measure(a.scenario, a.pairs, a.build)
    return _report(rec, f"ns-3 {rec['ns3']} vs dcnsim on {rec['machine']} (its load as the pairs ended); "
                        f"{a.pairs} interleaved pairs, medians{interval_note(rec)}", markdown(rec), a.json)


def _report(rec: Dict[str, Any], heading: str, table: str, json_path: Optional[Path]) -> int:
    """Print the heading and table, write the record; 1 if any row's two
    simulators carried packet-hops more than 1 % apart."""
    print(heading)
    print(table)
    if json_path:
        from dcnsim._atomic import atomic_write

        text = json.dumps(rec, indent=2) + "\n"
        atomic_write(json_path.expanduser(), lambda fh: fh.write(text))
    return 0 if all(r["hops_agree"] for r in rec["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
