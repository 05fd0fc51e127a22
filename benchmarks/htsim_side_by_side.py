"""dcnsim vs stock htsim on htsim's DCTCP permutation example, runs interleaved.

    python benchmarks/htsim_side_by_side.py HTSIM_BINARY [--pairs 3] [--k 8 12 16] [--threads 1 auto] [--json FILE]
    python benchmarks/htsim_side_by_side.py HTSIM_BINARY --instructions --k 8 [--LL 33554432,16,64] [--fifo]

HTSIM_BINARY is csg-htsim's ``htsim_dctcp_permutation``, built stock (tested
at 841d9e7), its sources untouched: ``make libhtsim.a`` in ``sim/`` (the
library, ``-O3``), ``make firstfit.o vl2_topology.o fat_tree_topology.o
fat_tree_switch.o bcube_topology.o connection_matrix.o
oversubscribed_fat_tree_topology.o shortflows.o multihomed_fat_tree_topology.o
star_topology.o`` in ``sim/datacenter`` and ``make htsim_dctcp_permutation``
in ``sim/datacenter/old_tests`` (examples ``-O2``). The example defines
``ntoa``/``itoa`` again, identical to the library's, so it only links with
``-Wl,--allow-multiple-definition`` added to that last make's ``CFLAGS``.
The binary is run as it is: ``-nodes N -conns N -o LOG``; its simulated
time is fixed in its source at 0.21 s, so dcnsim runs its mirror
(``dcnsim.bench.dctcp_perm``) for 0.21 s at every k too.

For each k it alternates one htsim run and one ``dcnsim run`` of the mirror,
``--pairs`` times, and reports medians of:

* whole-process wall and CPU time (user + system, from ``wait4``) on both
  sides: dcnsim's includes starting Python and writing its tables (without
  numpy or pandas: ``dcnsim run`` imports neither), as htsim's includes its
  set-up and log; dcnsim's core
  time (the simulation alone, ``wall_s`` of its summary) beside it;
* packet-hops, each simulator's own: dcnsim counts every link crossing;
  htsim has no such counter, so its count comes from its log (the sink
  logger's cumulative ACK per flow at its last sample, 0.20 s, plus the
  last 10 ms at the flow's last sampled rate: delivered data packets, each
  with its ACK, times the links of the flow's path, 2, 4 or 6 in a
  fat-tree; drops and retransmissions are left out). The same count from
  dcnsim's flows table (delivered bytes over its 8,960-byte segments, the
  exact number of packets; htsim's sequence numbers count 9,000 per
  packet) is printed beside its exact counter, so the two are comparable;
* the ratio of packet-hops per CPU second (and per wall second), taken per
  pair (an htsim run and the dcnsim run after it, under the same load) and
  reported as the median of those ratios.

``--threads`` sets dcnsim's ``threads`` (default ``auto``, what a user who
sets nothing gets); several values give a row each, all measured in the
same pairs (after the pair's htsim run, in an order that rotates from pair
to pair). htsim runs on one core, so the ratio per CPU second compares one
core with one core only with ``--threads 1``: a run cut over two threads
spends its CPU on two cores and its hand-over between them, so its ratio
per CPU second is below one thread's while its ratio per wall second is
above it. The row names the threads each run used (``auto`` chooses by
the machine's load at the start).

htsim's permutation builder fails an assertion (abort) in about one run in
twenty, on its draw from the clock: such a run is retried, up to
``--retries`` times, each in the next second of the clock (htsim seeds
with ``srand(time(NULL))``, so a retry within the same second drew the
same permutation and failed again), and the retries are reported. A missing or broken
binary is an error with a message, not a traceback.

``--fifo`` adds a row: dcnsim on one thread with ``ties = "fifo"``, the
order of equal-time events htsim itself keeps (its event list is a
``std::multimap`` keyed by time, and ``insert`` puts an equal key after
the ones already there: first scheduled, first run), measured in the same
pairs. dcnsim's default is the seeded order, which gives the same bits on
any number of threads and costs one thread a few per cent on a fat-tree
(docs/performance.md, "The seeded order's price"); the ``--fifo`` row is
the comparison on the same tie rule as htsim's, the other rows what a user
who sets nothing gets. (``benchmarks/ns3_side_by_side.py`` runs ns-3's
scenarios with ``ties = "fifo"`` for the same reason.)

``--instructions`` counts instead of timing: for each k, one htsim run and
one dcnsim run (``run_json``, crates/dcnsim/examples/run_json.rs: the core
without Python, on one thread; with ``--fifo`` a first-in first-out run
beside it) under cachegrind, with a 32 KiB L1 and the last-level cache
``--LL`` models (default 32 MiB, 16 ways: issue 42's AMD EPYC L3;
``524288,8,64`` a Zen 3 core's L2), and prints instructions, L1 and
last-level misses per packet-hop (htsim's hops from its log, as above).
Counts are exact and the same on any x86-64 machine; under valgrind htsim's
k = 8 takes about 4 minutes (``--k 8``: the larger k take far longer).
Build ``run_json`` with ``cargo build --release --example run_json -p
dcnsim`` (``--run-json`` names another).

``--json FILE`` also writes the rows and every run as JSON (what
benchmarks/record.py keeps in benchmarks/results.json).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Union

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its neighbours, however it was loaded
from outpath import check_json_path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/: cachegrind_per_hop

#: htsim's example ends at 0.21 s (``setEndtime`` in its source).
STOP_S = 0.21
#: htsim's data packet (TcpPacket::set_packet_size(9000)): its sequence
#: numbers, and so its sink's cumulative ACK, advance by this per packet.
HTSIM_PACKET = 9000
#: dcnsim's segment in the mirror (``tcp.mss`` of ``dcnsim.bench.dctcp_perm``):
#: its ``delivered_bytes`` count payload only.
DCNSIM_SEGMENT = 8960
#: one record of htsim's log after its "# TRACE" line: time, type, id, event, three values
RECORD = struct.Struct("<dIIIddd")
#: Logger::TCP_SINK in htsim's loggertypes.h
TCP_SINK = 11


def path_links(k: int, src: int, dst: int) -> int:
    """Links on a shortest path between two hosts of a k-ary fat-tree
    (hosts numbered by ToR, ToRs by pod, as both simulators do)."""
    per_tor, per_pod = k // 2, k * k // 4
    if src // per_tor == dst // per_tor:
        return 2
    return 4 if src // per_pod == dst // per_pod else 6


def delivered_hops(k: int, flows, packet: int) -> float:
    """Packet-hops implied by ``(src, dst, delivered bytes)`` per flow, with
    ``packet`` bytes counted per data packet: every delivered data packet
    and its ACK cross the path once."""
    return sum(2.0 * (b / packet) * path_links(k, s, d) for s, d, b in flows)


def timed(cmd, **kw) -> tuple:
    """Run ``cmd`` to the end; (wall seconds, its stdout)."""
    t = time.perf_counter()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw) as p:
        out, err = p.communicate()
        # communicate() reaped the child; its CPU time is in RUSAGE_CHILDREN
    wall = time.perf_counter() - t
    if p.returncode < 0:
        raise Aborted(f"{cmd[0]} died on signal {-p.returncode}: {err.strip()[-300:]}")
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited with {p.returncode}: {err.strip()[-500:]}")
    return wall, out


def cpu_of(fn, *a, **kw):
    """(result of fn, CPU seconds its children used)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = fn(*a, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def read_htsim_log(path: Path, k: int) -> dict:
    """Delivered bytes per flow from htsim's log: the preamble names each
    sink (``: dctcp_sink_SRC_DST=ID``), the records after ``# TRACE`` hold
    its cumulative ACK and its rate over the last period, every 10 ms. The
    last sample is at 0.20 s, the run ends at 0.21 s: each flow's last 10 ms
    is taken at its last sampled rate."""
    data = path.read_bytes()
    head, sep, body = data.partition(b"# TRACE\n")
    if not sep:
        raise RuntimeError(f"{path}: no '# TRACE' line: not an htsim log")
    sinks = {int(m.group(3)): (int(m.group(1)), int(m.group(2)))
             for m in re.finditer(rb": dctcp_sink_(\d+)_(\d+)=(\d+)", head)}
    last = {}
    for i in range(len(body) // RECORD.size):
        t, typ, ident, _ev, cack, _v2, rate = RECORD.unpack_from(body, i * RECORD.size)
        if typ == TCP_SINK and ident in sinks and t >= last.get(ident, (-1.0,))[0]:
            last[ident] = (t, cack, rate)
    if not last:
        raise RuntimeError(f"{path}: no sink samples in the log")
    flows = [(*sinks[i], cack + rate * max(0.0, STOP_S - t)) for i, (t, cack, rate) in last.items()]
    return {"flows": len(flows), "t_last": max(t for t, *_x in last.values()),
            "packets": sum(b for *_x, b in flows) / HTSIM_PACKET,
            "hops": delivered_hops(k, flows, HTSIM_PACKET)}


class Aborted(RuntimeError):
    """htsim died on a signal (its permutation builder's assertion)."""


def htsim_attempts(binary: str, k: int, retries: int, run) -> dict:
    """htsim at ``k`` by ``run(cmd, cwd)`` (what it measures, a dict), with
    its log read; a run that aborts is retried, up to ``retries`` times."""
    n = k ** 3 // 4
    for attempt in range(retries + 1):
        with tempfile.TemporaryDirectory() as d:
            log = Path(d) / "log"
            try:
                measured = run([binary, "-nodes", str(n), "-conns", str(n), "-o", str(log)], d)
            except Aborted as e:
                print(f"  htsim k = {k}: {e}; retry {attempt + 1} of {retries}", file=sys.stderr)
                # htsim seeds its draw with srand(time(NULL)): a retry in the
                # same second draws the same permutation and aborts again
                time.sleep(1.05 - time.time() % 1.0)
                continue
            return {**measured, "retries": attempt, **read_htsim_log(log, k)}
    raise RuntimeError(f"htsim aborted {retries + 1} times in a row at k = {k}")


def run_htsim(binary: str, k: int, retries: int) -> dict:
    def run(cmd, cwd):
        (wall, _out), cpu = cpu_of(timed, cmd, cwd=cwd)
        return {"wall": wall, "cpu": cpu}

    return htsim_attempts(binary, k, retries, run)


def mirror(k: int, threads: Union[str, int], ties: Union[str, None]) -> Dict[str, Any]:
    """dcnsim's mirror of htsim's example at ``k`` for htsim's 0.21 s."""
    from dcnsim.bench import dctcp_perm

    scenario = dctcp_perm(k, f"{round(STOP_S * 1000)}ms")
    scenario["threads"] = threads
    if ties is not None:
        scenario["ties"] = ties
    return scenario


def run_dcnsim(k: int, threads: Union[str, int] = "auto", ties: Union[str, None] = None) -> dict:
    import csv

    from dcnsim.scenario import to_json

    scenario = mirror(k, threads, ties)
    if scenario["tcp"]["mss"] != DCNSIM_SEGMENT:
        raise RuntimeError(f"the mirror's tcp.mss is {scenario['tcp']['mss']}, this script counts {DCNSIM_SEGMENT}")
    with tempfile.TemporaryDirectory() as d:
        scen = Path(d) / f"dctcp_perm_k{k}.json"
        scen.write_text(to_json(scenario))
        out = Path(d) / "out"
        (wall, _o), cpu = cpu_of(timed, [sys.executable, "-m", "dcnsim", "run", str(scen), "--out", str(out)])
        s = json.loads((out / "summary.json").read_text())
        with open(out / "flows.csv", newline="") as fh:
            flows = [(int(r["src"]), int(r["dst"]), int(r["delivered_bytes"])) for r in csv.DictReader(fh)]
        return {"wall": wall, "cpu": cpu, "core": float(s["wall_s"]), "threads_used": int(s.get("threads", 1)),
                "hops_exact": float(s["packet_hops"]),
                "packets": sum(b for *_x, b in flows) / DCNSIM_SEGMENT,
                "hops": delivered_hops(k, flows, DCNSIM_SEGMENT)}


def counted(cmd, ll: str, cwd=None) -> tuple:
    """(cachegrind's totals: instructions, L1 and last-level data misses;
    the program's stdout) of ``cmd`` under a last-level cache ``ll``."""
    from cachegrind_per_hop import cachegrind  # benchmarks/: the one valgrind runner

    try:
        return cachegrind(cmd, ll, cwd)
    except subprocess.CalledProcessError as e:
        report = (e.stderr or "").strip()
        if e.returncode < 0 or "SIGABRT" in report:
            raise Aborted(f"{cmd[0]} aborted under valgrind: {report[-300:]}") from None
        raise RuntimeError(f"{cmd[0]} under valgrind exited with {e.returncode}: {report[-500:]}") from None


def htsim_counted(binary: str, k: int, retries: int, ll: str) -> dict:
    """One htsim run under cachegrind: its counts and its log's hops."""
    return htsim_attempts(binary, k, retries, lambda cmd, cwd: counted(cmd, ll, cwd=cwd)[0])


def dcnsim_counted(run_json: str, k: int, ties: Union[str, None], ll: str) -> dict:
    """The mirror on one thread by ``run_json`` under cachegrind."""
    from dcnsim.scenario import to_json

    scenario = mirror(k, 1, ties)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"dctcp_perm_k{k}.json"
        path.write_text(to_json(scenario))
        counts, out = counted([run_json, str(path)], ll)
    m = re.search(r"\bhops (\d+)", out)
    if m is None:
        raise RuntimeError(f"{run_json} printed no hop count (is it crates/dcnsim/examples/run_json?): {out[-300:]}")
    return {**counts, "hops": float(m.group(1))}


def instructions(a) -> int:
    """``--instructions``: the table of counts per packet-hop, per k."""
    print(f"counted by cachegrind, L1 32 KiB, last level {a.LL} (bytes, ways, line); one run a side per k, "
          f"{STOP_S} s simulated; dcnsim by run_json on one thread")
    print("| k | simulator | instructions / hop | L1 data misses / hop | last-level misses / hop | packet-hops "
          "| htsim's instructions / hop over this |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for k in a.k:
        try:
            h = htsim_counted(a.htsim, k, a.retries, a.LL)
            ours = [(None, dcnsim_counted(a.run_json, k, None, a.LL))]
            if a.fifo:
                ours.append(("fifo", dcnsim_counted(a.run_json, k, "fifo", a.LL)))
        except (OSError, RuntimeError) as e:
            print(f"k = {k}: {e}", file=sys.stderr)
            return 1
        def per(r: dict, key: str) -> float:
            return r[key] / r["hops"]

        print(f"| {k} | htsim | {per(h, 'instructions'):,.0f} | {per(h, 'd1_misses'):.2f} "
              f"| {per(h, 'll_misses'):.3f} | {h['hops']:,.0f} (from its log) | |")
        for ties, r in ours:
            print(f"| {k} | dcnsim{', fifo ties' if ties else ''} | {per(r, 'instructions'):,.0f} "
                  f"| {per(r, 'd1_misses'):.2f} | {per(r, 'll_misses'):.3f} | {r['hops']:,.0f} "
                  f"| {per(h, 'instructions') / per(r, 'instructions'):.2f}× |", flush=True)
            rows.append({"k": k, "ties": ties or "default", "ll": a.LL, "dcnsim": r, "htsim": h,
                         "ratio_instructions_per_hop": per(h, "instructions") / per(r, "instructions")})
        if a.json:
            from dcnsim import machine

            _write_json(a.json, {"instructions": True, "ll": a.LL, "stop_s": STOP_S, "htsim": _htsim_id(a.htsim),
                                 "machine": machine.describe(), "rows": rows})
    return 0


def threads_arg(text: str) -> Union[str, int]:
    """One ``--threads`` value, read as ``dcnsim run --threads`` reads it."""
    try:
        from dcnsim._args import parse_threads
    except ImportError as e:
        raise argparse.ArgumentTypeError(f"dcnsim is not importable ({e}): pip install -e .") from None
    return parse_threads(text)


def _write_json(path: str, rec: Dict[str, Any]) -> None:
    # atomic: a run stopped mid-write keeps the previous k's complete record
    from dcnsim._atomic import atomic_write

    text = json.dumps(rec, indent=2) + "\n"
    atomic_write(os.path.expanduser(path), lambda fh: fh.write(text))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="see the module docstring for the build")
    ap.add_argument("htsim", help="path to a stock htsim_dctcp_permutation binary")
    ap.add_argument("--pairs", type=int, default=3, help="interleaved (htsim, dcnsim) pairs per k (default 3)")
    ap.add_argument("--k", type=int, nargs="+", default=[8, 12, 16], help="fat-tree sizes (even; default 8 12 16)")
    ap.add_argument("--retries", type=int, default=5, help="reruns of an htsim run that aborts (default 5)")
    ap.add_argument("--threads", nargs="+", type=threads_arg, default=["auto"], metavar="T",
                    help="dcnsim's threads: 'auto' or a count; several give a row each, measured in the same pairs "
                         "(default auto; 1 compares one core with htsim's one)")
    ap.add_argument("--fifo", action="store_true",
                    help="add a row: dcnsim on one thread with ties = \"fifo\", htsim's own order of equal-time "
                         "events, in the same pairs")
    ap.add_argument("--json", help="also write the rows and every run to this JSON file")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions and cache misses per packet-hop under cachegrind instead of timing")
    ap.add_argument("--LL", default="33554432,16,64",
                    help="with --instructions: the last-level cache cachegrind models, bytes,ways,line "
                         "(default a 32 MiB L3; 524288,8,64 a Zen 3 core's L2)")
    ap.add_argument("--run-json", default=str(Path(__file__).resolve().parent.parent / "target" / "release"
                                              / "examples" / "run_json"),
                    help="with --instructions: dcnsim's core without Python (default: the release build's)")
    a = ap.parse_args(argv)
    if not (os.path.isfile(a.htsim) and os.access(a.htsim, os.X_OK)):
        ap.error(f"{a.htsim}: not an executable file (build csg-htsim's htsim_dctcp_permutation first)")
    # checked against the current directory, but htsim runs in a temporary one (its log's)
    a.htsim = os.path.abspath(a.htsim)
    check_json_path(ap, a.json)
    if a.pairs < 1 or a.retries < 0 or any(k < 2 or k % 2 for k in a.k):
        ap.error("--pairs must be >= 1, --retries >= 0 and every --k an even number >= 2")
    if len(set(a.threads)) < len(a.threads):
        ap.error(f"--threads takes distinct values (got {' '.join(map(str, a.threads))})")
    try:
        import dcnsim  # noqa: F401
    except ImportError as e:
        ap.error(f"dcnsim is not importable here ({e}): run from its venv")

    if a.instructions:
        if shutil.which("valgrind") is None:
            ap.error("--instructions needs valgrind (apt-get install valgrind)")
        if not (os.path.isfile(a.run_json) and os.access(a.run_json, os.X_OK)):
            ap.error(f"--run-json: {a.run_json} is not an executable "
                     "(build it: cargo build --release --example run_json -p dcnsim)")
        # run by this path, not looked up on PATH as a bare name would be
        a.run_json = os.path.abspath(a.run_json)
        if not re.fullmatch(r"\d+,\d+,\d+", a.LL):
            ap.error(f"--LL: bytes,ways,line-bytes (e.g. 33554432,16,64), got {a.LL!r}")
        from dcnsim import machine

        print(f"machine: {machine.line()} (the counts do not depend on it)")
        return instructions(a)

    med = statistics.median
    from dcnsim import machine

    print(machine.preamble(whole_process=True))
    print(f"simulated {STOP_S} s per run (htsim's fixed end time); medians of {a.pairs} interleaved pair(s), "
          "ratios the median of the per-pair ratios")
    print("| k | hosts | dcnsim threads (ties): asked (used) | dcnsim wall (core) | dcnsim CPU "
          "| dcnsim hops (from deliveries) | htsim wall | htsim CPU "
          "| htsim hops (from its log) | htsim / dcnsim delivered packets | ratio, hops per CPU s | ratio, per wall s "
          "| htsim retries |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for k in a.k:
        # a row per dcnsim setting: (threads, ties); None is the default order
        settings = [(t, None) for t in a.threads] + ([(1, "fifo")] if a.fifo else [])
        ours = {st: [] for st in settings}
        theirs = []
        try:
            for i in range(a.pairs):
                theirs.append(run_htsim(a.htsim, k, a.retries))
                # the thread settings in an order that rotates per pair, so
                # none always runs right after htsim
                for st in settings[i % len(settings):] + settings[:i % len(settings)]:
                    ours[st].append(run_dcnsim(k, *st))
        except (OSError, RuntimeError) as e:
            print(f"k = {k}: {e}", file=sys.stderr)
            return 1
        t = {key: med([r[key] for r in theirs]) for key in theirs[0]}
        print("  htsim rounds: " + "; ".join(
            f"wall {r['wall']:.2f} s, CPU {r['cpu']:.2f} s, {r['hops'] / 1e6:.2f} M hops from its log"
            for r in theirs), file=sys.stderr)
        for (threads, ties), runs in ours.items():
            label = f"{threads}, {ties} ties" if ties else str(threads)
            o = {key: med([r[key] for r in runs]) for key in runs[0]}
            used = sorted({r["threads_used"] for r in runs})
            # Per pair: the two runs of a pair ran back to back, under about
            # the same load from the machine's other users.
            r_cpu = med([(u["hops_exact"] / u["cpu"]) / (h["hops"] / h["cpu"]) for u, h in zip(runs, theirs)])
            r_wall = med([(u["hops_exact"] / u["wall"]) / (h["hops"] / h["wall"]) for u, h in zip(runs, theirs)])
            delivered = med([h["packets"] / u["packets"] for u, h in zip(runs, theirs)])
            print(f"| {k} | {k ** 3 // 4} | {label} ({', '.join(map(str, used))}) "
                  f"| {o['wall']:.2f} s ({o['core']:.2f} s) | {o['cpu']:.2f} s "
                  f"| {o['hops_exact'] / 1e6:.1f} M ({o['hops'] / 1e6:.1f} M) | {t['wall']:.2f} s | {t['cpu']:.2f} s "
                  f"| {t['hops'] / 1e6:.1f} M | {delivered:.3f} "
                  f"| {r_cpu:.2f}× | {r_wall:.2f}× | {sum(r['retries'] for r in theirs)} |", flush=True)
            print(f"  dcnsim (threads {label}) rounds: " + "; ".join(
                f"wall {r['wall']:.2f} s, CPU {r['cpu']:.2f} s on {r['threads_used']} thread(s), "
                f"{r['hops'] / 1e6:.2f} M hops from deliveries" for r in runs), file=sys.stderr)
            rows.append({"k": k, "hosts": k ** 3 // 4, "threads": threads, "ties": ties or "default",
                         "threads_used": used,
                         "dcnsim_wall_s": o["wall"], "dcnsim_cpu_s": o["cpu"],
                         "dcnsim_core_s": o["core"], "dcnsim_hops": o["hops_exact"],
                         "dcnsim_hops_from_deliveries": o["hops"], "htsim_wall_s": t["wall"], "htsim_cpu_s": t["cpu"],
                         "htsim_hops": t["hops"], "delivered_ratio": delivered, "ratio_cpu": r_cpu,
                         "ratio_wall": r_wall, "retries": sum(r["retries"] for r in theirs),
                         "dcnsim_runs": runs, "htsim_runs": theirs})
        if a.json:  # after every k: a later k that fails keeps the earlier ones
            _write_json(a.json, {"pairs": a.pairs, "stop_s": STOP_S, "htsim": _htsim_id(a.htsim),
                                 "threads": a.threads, "fifo": a.fifo, "machine": machine.describe(), "rows": rows})
    return 0


def _htsim_id(binary: str) -> str:
    """The htsim build: its source checkout's commit when the binary sits in one."""
    d = Path(binary).resolve().parent
    r = subprocess.run(["git", "-C", str(d), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"stock csg-htsim {r.stdout.strip()}" if r.returncode == 0 and r.stdout.strip() else "stock csg-htsim"


if __name__ == "__main__":
    sys.exit(main())
