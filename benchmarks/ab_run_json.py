"""Two (or more) builds of the core on one scenario, runs interleaved.

For hot-path changes, where a difference of a few per cent hides in the
noise of a shared machine: every round runs each binary once, in turn, so
drift in the host's load falls on all of them alike; the figure to read is
the median of the per-round ratios to the first binary. Times are user CPU
seconds of the child (no Python in it). The binaries are copies of
``target/release/examples/run_json`` built from the commits to compare::

    cargo build --release --example run_json -p dcnsim
    cp target/release/examples/run_json /tmp/run_json_before   # and _after, from the other commit
    python -c "from dcnsim.bench import SCENARIOS; from dcnsim.scenario import to_json; \\
      print(to_json(SCENARIOS['dctcp_perm_k16']()))" > k16.json
    python benchmarks/ab_run_json.py --rounds 9 k16.json /tmp/run_json_before /tmp/run_json_after

Each binary must print the same ``events``/``hops`` line tail as the
others: a change meant to be a pure speed-up must not change the run.
``--wall`` times wall-clock seconds instead, for runs on several threads
(whose user CPU adds the threads' time, waits at the barrier included).
Rounds run the binaries in a rotating order, so none always goes first.

``--price`` measures the seeded order's one-thread price (issue 42): the
scenario is written twice beside a temporary directory, with ``ties =
"seeded"`` and ``ties = "fifo"`` (``threads = 1`` both), and every binary
runs both in each round; the price is the median of the per-round ratios
seeded / first-in first-out, per binary (and per event: that ratio times
first-in first-out's events over the seeded run's, since the two orders
simulate different packets), and with two or more binaries the
seeded runs are also compared with the first binary's. The two orders
simulate different packets, so the event counts are checked per order::

    python benchmarks/ab_run_json.py --price --rounds 6 fattree_k8.json /tmp/run_json_before /tmp/run_json_after
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time

from threads_pairs import rotated  # (this script's directory is on the path)


def run(binary: str, scenario: str, wall: bool = False) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    t0 = time.perf_counter()
    out = subprocess.run([binary, scenario], capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - t0
    user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    m = re.search(r"events (\d+).*hops (\d+)", out)
    return elapsed if wall else user, (m.group(1), m.group(2)) if m else out


def timed_rounds(jobs: list, rounds: int, wall: bool) -> tuple:
    """Each job, a (binary, scenario file) pair, run once per round in a
    rotating order; its times, with events and hops checked equal across
    the binaries that ran the same file, and those counts per file."""
    times = {j: [] for j in jobs}
    counts = {}
    for r in range(rounds):
        for b, f in rotated(jobs, r):
            try:
                t, c = run(b, f, wall)
            except subprocess.CalledProcessError as e:
                raise SystemExit(f"{b} {f}: exit {e.returncode}: {e.stderr.strip()[-500:]}") from None
            times[(b, f)].append(t)
            first = counts.setdefault(f, (b, c))
            if c != first[1]:
                raise SystemExit(f"{b} on {f}: events/hops {c} differ from {first[0]}'s {first[1]}")
    return times, {f: c for f, (_, c) in counts.items()}


def price(a: argparse.Namespace) -> None:
    try:
        with open(a.scenario) as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        raise SystemExit(f"{a.scenario}: not a JSON scenario ({e})") from None
    if not isinstance(doc, dict):
        raise SystemExit(f"{a.scenario}: not a JSON scenario (a {type(doc).__name__}, not an object)")
    with tempfile.TemporaryDirectory(prefix="dcnsim-price-") as tmp:
        files = {}
        for ties in ("seeded", "fifo"):
            files[ties] = os.path.join(tmp, f"{ties}.json")
            with open(files[ties], "w") as fh:
                json.dump({**doc, "ties": ties, "threads": 1}, fh)
        jobs = [(b, files[t]) for b in a.binaries for t in ("seeded", "fifo")]
        times, counts = timed_rounds(jobs, a.rounds, a.wall)
    # The two orders simulate different packets, and so a different number
    # of events: the price per event is the engine's cost apart from that.
    events = {t: int(counts[files[t]][0]) for t in ("seeded", "fifo")}
    unit = "wall" if a.wall else "user"
    first = times[(a.binaries[0], files["seeded"])]
    print(f"events: {events['seeded']:,} seeded, {events['fifo']:,} first-in first-out")
    print(f"| binary | median {unit} s, seeded | first-in first-out | seeded order's price | per event | "
          "seeded, ratio to first |")
    print("|---|---|---|---|---|---|")
    for b in a.binaries:
        s, f = times[(b, files["seeded"])], times[(b, files["fifo"])]
        if not all(f) or not all(first):
            # the kernel splits a process's time by tick samples: a run of a few ms can read 0 s
            raise SystemExit(f"{os.path.basename(b)}: a run read 0 s of {unit} time, too short to time; "
                             "give a longer scenario (or --wall)")
        ratio = statistics.median(x / y for x, y in zip(s, f))
        per_event = ratio * events["fifo"] / events["seeded"]
        r = statistics.median(x / y for x, y in zip(s, first))
        print(f"| {os.path.basename(b)} | {statistics.median(s):.2f} | {statistics.median(f):.2f} | "
              f"{100 * (ratio - 1):+.1f} % | {100 * (per_event - 1):+.1f} % | {r:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("scenario", help="a scenario JSON file")
    ap.add_argument("binaries", nargs="+", help="run_json builds; ratios are to the first")
    ap.add_argument("--wall", action="store_true", help="wall-clock seconds, not user CPU (runs on several threads)")
    ap.add_argument("--price", action="store_true",
                    help="the seeded order's one-thread price: each binary on the scenario with seeded and with fifo ties")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {a.rounds}")
    if not os.path.isfile(a.scenario):
        ap.error(f"{a.scenario}: no such scenario file")
    for b in a.binaries:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            ap.error(f"{b}: not an executable (build it: cargo build --release --example run_json -p dcnsim)")
    # checked in the current directory: run from there too, a bare name not looked up on PATH
    a.binaries = [os.path.abspath(b) for b in a.binaries]
    from dcnsim import machine

    print(machine.preamble())
    if a.price:
        price(a)
        return
    times, _ = timed_rounds([(b, a.scenario) for b in a.binaries], a.rounds, a.wall)
    base = times[(a.binaries[0], a.scenario)]
    unit = "wall" if a.wall else "user"
    if not all(base):
        raise SystemExit(f"{os.path.basename(a.binaries[0])}: a run read 0 s of {unit} time, too short to "
                         "time; give a longer scenario (or --wall)")
    print(f"| binary | median {unit} s | min | median ratio to first | every round |")
    print("|---|---|---|---|---|")
    for b in a.binaries:
        t = times[(b, a.scenario)]
        ratio = statistics.median(x / y for x, y in zip(t, base))
        rounds = " ".join(f"{x:.2f}" for x in t)
        print(f"| {os.path.basename(b)} | {statistics.median(t):.2f} | {min(t):.2f} | {ratio:.3f} | {rounds} |")


if __name__ == "__main__":
    main()
