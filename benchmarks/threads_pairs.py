"""1 thread against N on the DCTCP permutation, whole process, interleaved.

    python benchmarks/threads_pairs.py [--k 16 32] [--stop 10ms 1ms] [--pairs 3] [--threads 2] [--today]
        [--baseline PYTHON]

Each run is a fresh interpreter (start-up and set-up included, as a user
waits for them); a pair runs 1 thread and N threads; the two must agree
on events and packet-hops. Each round starts with the next run of the
last round's order (1 thread, N threads, today's, baseline), so no run
always comes first. With --today each round also runs the scenario
without a `threads` key: today's one-thread engine, first-in first-out
ties, whose results differ (another equal-time order), so only its wall
time is compared. With --baseline, each round also runs the scenario
without `threads` under another interpreter, whose environment holds
another build of dcnsim (e.g. the engine as it was before the parallel
one: ``git worktree add ../pre d5d67ff; python -m venv ../pre-venv;
../pre-venv/bin/pip install ../pre``). Prints each round and the median
ratios per k (docs/performance.md, Threads).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, Tuple

CHILD = """
import json, sys
from dcnsim import bench, _core
from dcnsim.scenario import to_json
doc = bench.dctcp_perm(int(sys.argv[1]), sys.argv[2])
if sys.argv[3] != "today":
    doc["threads"] = int(sys.argv[3])
print(json.dumps(dict(_core.run(to_json(doc), None)["summary"])))
"""


def one(k: int, stop: str, threads: Any, python: str = sys.executable) -> Tuple[float, Dict[str, Any]]:
    t0 = time.perf_counter()
    p = subprocess.run([python, "-c", CHILD, str(k), stop, str(threads)],
                       capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(p.stdout.strip().splitlines()[-1])


def rotated(runs: list, r: int) -> list:
    """Round `r`'s order of `runs`: each round starts with the next run, so
    over len(runs) rounds every run comes first once. With a fixed order
    the 1-thread run, first in every round, came out 5-9 % slower against
    the others than in a rotating order (k = 32, 10 ms, six rounds each;
    docs/performance.md, Threads)."""
    i = r % len(runs)
    return runs[i:] + runs[:i]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, nargs="+", default=[16, 32])
    ap.add_argument("--stop", nargs="+", default=["10ms", "1ms"], help="one per --k")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--today", action="store_true",
                    help="also run without `threads` (first-in first-out ties, one thread)")
    ap.add_argument("--baseline", metavar="PYTHON",
                    help="also run without `threads` under this interpreter (another dcnsim build)")
    a = ap.parse_args(argv)
    if len(a.stop) != len(a.k):
        ap.error("--stop needs one value per --k")
    if a.pairs < 1:
        ap.error(f"--pairs must be at least 1, got {a.pairs}")
    if a.baseline:
        try:
            probe = subprocess.run([a.baseline, "-c", "import dcnsim._core"], capture_output=True, text=True)
            why = (probe.stderr.strip().splitlines() or ["no output"])[-1] if probe.returncode else ""
        except OSError as e:
            why = e.strerror or str(e)
        if why:
            ap.error(f"--baseline {a.baseline}: cannot import dcnsim there ({why})")
    for k, stop in zip(a.k, a.stop):
        ratios, over_today, one_vs_today, one_vs_base = [], [], [], []
        runs = [("one", 1, sys.executable), ("n", a.threads, sys.executable)]
        if a.today:
            runs.append(("today", "today", sys.executable))
        if a.baseline:
            runs.append(("base", "today", a.baseline))
        for r in range(a.pairs):
            walls = {}
            for name, threads, python in rotated(runs, r):
                walls[name] = one(k, stop, threads, python)
            (w1, s1), (wn, sn) = walls["one"], walls["n"]
            if (s1["events"], s1["packet_hops"]) != (sn["events"], sn["packet_hops"]):
                print(f"k = {k}: 1 and {a.threads} threads disagree", file=sys.stderr)
                return 1
            ratios.append(w1 / wn)
            line = f"k = {k} {stop}: 1 thread {w1:.2f} s, {a.threads} threads {wn:.2f} s, {w1 / wn:.2f}x"
            if a.today:
                wt, _ = walls["today"]
                over_today.append(wt / wn)
                one_vs_today.append(w1 / wt)
                line += f"; today's engine {wt:.2f} s: {wt / wn:.2f}x, 1 thread {100 * (w1 / wt - 1):+.1f} %"
            if a.baseline:
                wb, _ = walls["base"]
                one_vs_base.append(w1 / wb)
                line += f"; baseline {wb:.2f} s: 1 thread {100 * (w1 / wb - 1):+.1f} %"
            print(line, flush=True)
        print(f"k = {k}: median speed-up {statistics.median(ratios):.2f}x over {a.pairs} pairs", flush=True)
        if a.today:
            print(f"k = {k}: against today's engine, {a.threads} threads median "
                  f"{statistics.median(over_today):.2f}x, 1 thread median "
                  f"{100 * (statistics.median(one_vs_today) - 1):+.1f} %", flush=True)
        if a.baseline:
            print(f"k = {k}: against the baseline, 1 thread median "
                  f"{100 * (statistics.median(one_vs_base) - 1):+.1f} %", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
