"""1 thread against N on the DCTCP permutation, whole process, interleaved.

    python benchmarks/threads_pairs.py [--k 16 32] [--stop 10ms 1ms] [--pairs 3] [--threads 2] [--today]
        [--fifo] [--baseline PYTHON] [--scenario FILE ...] [--spin N]

Each run is a fresh interpreter (start-up and set-up included, as a user
waits for them); a pair runs 1 thread and N threads; the two must agree
on events and packet-hops. Each round starts with the next run of the
last round's order (1 thread, N threads, today's, FIFO, baseline), so no
run always comes first. With --today each round also runs the scenario
without a `threads` key: what a user gets by default (`threads =
"auto"`, seeded ties; before 1693f22 this was one thread with first-in
first-out ties). With --fifo each round also runs it on one thread with
`ties = "fifo"` (ns-2's and ns-3's order of equal-time events), whose
results differ (another order), so it is compared by wall time and by
wall time per event: one thread's price for the seeded order, which lets
any number of threads give the same bits (docs/performance.md, "The
seeded order's price"). With --baseline, each round also runs the scenario
without `threads` under another interpreter, whose environment holds
another build of dcnsim (e.g. the engine as it was before the parallel
one: ``git worktree add ../pre d5d67ff; python -m venv ../pre-venv;
../pre-venv/bin/pip install ../pre``). Prints each round and the median
ratios per k (docs/performance.md, Threads).

With --scenario the pairs run those scenario files (their own stop, or
--stop's values one per file) instead of the permutations. With --spin N,
N other processes spin on the machine's cores for the whole measurement
(a busy machine, docs/performance.md "Threads on a busy machine"); each
round prints the one-minute load average before it.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, Optional, Tuple

CHILD = """
import json, sys
from dcnsim import bench, _core
from dcnsim.scenario import load_scenario, to_json
what, stop, threads = sys.argv[1:4]
if what.isdigit():
    doc = bench.dctcp_perm(int(what), stop)
else:
    doc = load_scenario(what)
    if stop != "-":
        doc["stop"] = stop
if threads == "fifo":
    doc["threads"], doc["ties"] = 1, "fifo"
elif threads != "today":
    doc["threads"] = int(threads)
out = _core.run(to_json(doc), None)
print(json.dumps({**dict(out["summary"]), "timing": dict(out.get("timing") or {})}))
"""

SPIN = "while 1: pass"


def one(what: Any, stop: str, threads: Any, python: str = sys.executable) -> Tuple[float, Dict[str, Any]]:
    """One fresh interpreter's run of the DCTCP permutation at k = `what`
    (an int) or of scenario file `what`; its wall time and summary. A run
    that fails ends the script with the child's reason."""
    t0 = time.perf_counter()
    p = subprocess.run([python, "-c", CHILD, str(what), stop, str(threads)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        label = f"k = {what}" if isinstance(what, int) else what
        under = "" if python == sys.executable else f" under {python}"
        raise SystemExit(f"{label} {stop}, threads {threads}{under}: the run failed (exit {p.returncode}): "
                         f"{child_reason(p.stderr)}")
    return wall, json.loads(p.stdout.strip().splitlines()[-1])


def child_reason(stderr: str, most: int = 12) -> str:
    """What a failed child said: a traceback's exception (from its last
    unindented line: the message's own lines may be indented), else its
    last lines; at most ``most`` lines."""
    lines = stderr.rstrip().splitlines()
    if lines and lines[0].startswith("Traceback"):
        heads = [i for i, line in enumerate(lines) if line[:1] and not line[0].isspace()]
        lines = lines[heads[-1]:]
        if len(lines) > most:
            lines = lines[:most - 1] + [f"... ({len(lines) - most + 1} more lines)"]
    return "\n".join(lines[-most:]) or "no output"


def median_interval(xs: list, level: float = 0.95) -> Tuple[float, float, float]:
    """A distribution-free interval for the median of the population the
    pairs' ratios come from: the j-th smallest and j-th largest of n,
    which hold it with probability P(j <= B <= n - j), B ~ Binomial(n, 1/2)
    (it holds for any continuous distribution, assuming only independent
    pairs). The narrowest such interval whose probability reaches `level`,
    and that probability; with too few pairs for `level` (95 %: fewer
    than 6), the smallest and largest and what they reach."""
    v = sorted(xs)
    n = len(v)
    if n == 0:
        raise ValueError("no values")

    def coverage(j: int) -> float:
        return sum(math.comb(n, i) for i in range(j, n - j + 1)) / 2 ** n

    j = 1
    while j + 1 <= n - j and coverage(j + 1) >= level:
        j += 1
    return v[j - 1], v[n - j], coverage(j)


def _interval_text(xs: list) -> str:
    lo, hi, p = median_interval(xs)
    return f"{lo:.2f}x to {hi:.2f}x holds the median with probability {100 * p:.1f} %"


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
    ap.add_argument("--stop", nargs="+", help="one per --k (default 10ms 1ms) or --scenario (default its own)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--today", action="store_true",
                    help="also run without `threads` (the default: \"auto\", seeded ties)")
    ap.add_argument("--fifo", action="store_true",
                    help="also run on one thread with first-in first-out ties (the seeded order's price)")
    ap.add_argument("--baseline", metavar="PYTHON",
                    help="also run without `threads` under this interpreter (another dcnsim build)")
    ap.add_argument("--scenario", nargs="+", metavar="FILE",
                    help="run these scenario files instead of the permutations")
    ap.add_argument("--spin", type=int, default=0, metavar="N",
                    help="keep N other processes spinning during the runs (a busy machine)")
    a = ap.parse_args(argv)
    targets = list(a.scenario) if a.scenario else list(a.k)
    if a.stop is None:
        a.stop = ["-"] * len(targets) if a.scenario else ["10ms", "1ms"]
    if len(a.stop) != len(targets):
        ap.error("--stop needs one value per --k" + (" (per --scenario)" if a.scenario else ""))
    if a.spin < 0:
        ap.error(f"--spin must be 0 or more, got {a.spin}")
    if a.pairs < 1:
        ap.error(f"--pairs must be at least 1, got {a.pairs}")
    if a.threads < 1:
        ap.error(f"--threads must be at least 1, got {a.threads}")
    if not a.scenario:
        odd = [k for k in a.k if k < 2 or k % 2]
        if odd:
            ap.error(f"--k: a fat-tree's k is even and at least 2, got {' '.join(map(str, odd))}")
    missing = [f for f in a.scenario or [] if not os.path.isfile(f)]
    if missing:
        ap.error(f"--scenario: no such file {', '.join(missing)}")
    if a.baseline:
        try:
            probe = subprocess.run([a.baseline, "-c", "import dcnsim._core"], capture_output=True, text=True)
            why = (probe.stderr.strip().splitlines() or ["no output"])[-1] if probe.returncode else ""
        except OSError as e:
            why = e.strerror or str(e)
        if why:
            ap.error(f"--baseline {a.baseline}: cannot import dcnsim there ({why})")
    from dcnsim import machine

    # before the spinners start: the load the machine had of its own
    print(machine.preamble(whole_process=True), flush=True)
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(a.spin)]
    try:
        return measure(a, targets)
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def split_note(timing: Dict[str, Any], one: Optional[Dict[str, Any]] = None) -> str:
    """Where a partitioned run's core time went, from its ``timing``:
    the waits for the slower partition at each window and the steps
    between windows, as shares of the core's wall time (the machine's
    uneven cores show in the first: benchmarks/machine_noise.py); with
    the one-thread run's ``timing`` (``one``), also a partition's work
    over half of that run's core time (above 1: each core ran slower
    with the other busy, or the cut added work). Empty for a run on one
    thread, or from a core that does not report them."""
    wall = timing.get("wall_s")
    if not wall or "imbalance_s" not in timing:
        return ""
    work = ""
    if one and one.get("wall_s") and timing.get("partition_work_s"):
        work = f", a partition's work {2 * timing['partition_work_s'] / one['wall_s']:.2f}x half of 1 thread's"
    return (f" [{int(timing.get('windows', 0)):,} windows: waits {100 * timing['imbalance_s'] / wall:.1f} %, "
            f"between windows {100 * timing.get('between_windows_s', 0.0) / wall:.1f} %{work}]")


def measure(a: argparse.Namespace, targets: list) -> int:
    for k, stop in zip(targets, a.stop):
        label = f"k = {k}" if isinstance(k, int) else os.path.basename(k)
        ratios, over_today, one_vs_today, one_vs_base, fewer = [], [], [], [], 0
        price, price_per_event = [], []
        runs = [("one", 1, sys.executable), ("n", a.threads, sys.executable)]
        if a.today:
            runs.append(("today", "today", sys.executable))
        if a.fifo:
            runs.append(("fifo", "fifo", sys.executable))
        if a.baseline:
            runs.append(("base", "today", a.baseline))
        for r in range(a.pairs):
            walls = {}
            load = os.getloadavg()[0]
            for name, threads, python in rotated(runs, r):
                walls[name] = one(k, stop, threads, python)
            (w1, s1), (wn, sn) = walls["one"], walls["n"]
            if (s1["events"], s1["packet_hops"]) != (sn["events"], sn["packet_hops"]):
                print(f"{label}: 1 and {a.threads} threads disagree", file=sys.stderr)
                return 1
            ratios.append(w1 / wn)
            # asked (used): dcnsim runs fewer where the cut does not pay or no core is free
            used = int(sn.get("threads", a.threads))
            fewer += used < a.threads
            line = (f"{label} {stop}: 1 thread {w1:.2f} s, {a.threads} threads ({used} used) {wn:.2f} s, "
                    f"{w1 / wn:.2f}x (load {load:.1f})")
            line += split_note(sn.get("timing") or {}, s1.get("timing") or {})
            if a.today:
                wt, _ = walls["today"]
                over_today.append(wt / wn)
                one_vs_today.append(w1 / wt)
                line += f"; today's engine {wt:.2f} s: {wt / wn:.2f}x, 1 thread {100 * (w1 / wt - 1):+.1f} %"
            if a.fifo:
                wf, sf = walls["fifo"]
                price.append(w1 / wf)
                price_per_event.append((w1 / s1["events"]) / (wf / sf["events"]))
                line += (f"; FIFO ties {wf:.2f} s: 1 thread seeded {100 * (w1 / wf - 1):+.1f} % "
                         f"({100 * (price_per_event[-1] - 1):+.1f} % per event)")
            if a.baseline:
                wb, _ = walls["base"]
                one_vs_base.append(w1 / wb)
                line += f"; baseline {wb:.2f} s: 1 thread {100 * (w1 / wb - 1):+.1f} %"
            print(line, flush=True)
        print(f"{label}: median speed-up {statistics.median(ratios):.2f}x over {a.pairs} pairs"
              f" ({a.threads} threads' wall time {100 * (1 / statistics.median(ratios) - 1):+.1f} % against 1's;"
              f" {_interval_text(ratios)})"
              + (f"; the {a.threads}-thread run used fewer threads in {fewer} of {a.pairs} pairs" if fewer else ""),
              flush=True)
        if a.today:
            print(f"{label}: against today's engine, {a.threads} threads median "
                  f"{statistics.median(over_today):.2f}x, 1 thread median "
                  f"{100 * (statistics.median(one_vs_today) - 1):+.1f} %", flush=True)
        if a.fifo:
            print(f"{label}: the seeded order's price on 1 thread, median "
                  f"{100 * (statistics.median(price) - 1):+.1f} % "
                  f"({100 * (statistics.median(price_per_event) - 1):+.1f} % per event)", flush=True)
        if a.baseline:
            print(f"{label}: against the baseline, 1 thread median "
                  f"{100 * (statistics.median(one_vs_base) - 1):+.1f} %", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
