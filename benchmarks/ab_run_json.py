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
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import time


def run(binary: str, scenario: str, wall: bool = False) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    t0 = time.perf_counter()
    out = subprocess.run([binary, scenario], capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - t0
    user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    m = re.search(r"events (\d+).*hops (\d+)", out)
    return elapsed if wall else user, (m.group(1), m.group(2)) if m else out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("scenario", help="a scenario JSON file")
    ap.add_argument("binaries", nargs="+", help="run_json builds; ratios are to the first")
    ap.add_argument("--wall", action="store_true", help="wall-clock seconds, not user CPU (runs on several threads)")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {a.rounds}")
    if not os.path.isfile(a.scenario):
        ap.error(f"{a.scenario}: no such scenario file")
    for b in a.binaries:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            ap.error(f"{b}: not an executable (build it: cargo build --release --example run_json -p dcnsim)")
    times = {b: [] for b in a.binaries}
    counts = {}
    for _ in range(a.rounds):
        for b in a.binaries:
            try:
                t, c = run(b, a.scenario, a.wall)
            except subprocess.CalledProcessError as e:
                raise SystemExit(f"{b} {a.scenario}: exit {e.returncode}: {e.stderr.strip()[-500:]}") from None
            times[b].append(t)
            counts.setdefault(b, c)
            if c != counts[a.binaries[0]]:
                raise SystemExit(f"{b}: events/hops {c} differ from {a.binaries[0]}'s {counts[a.binaries[0]]}")
    base = times[a.binaries[0]]
    unit = "wall" if a.wall else "user"
    print(f"| binary | median {unit} s | min | median ratio to first | every round |")
    print("|---|---|---|---|---|")
    for b in a.binaries:
        ratio = statistics.median(x / y for x, y in zip(times[b], base))
        rounds = " ".join(f"{x:.2f}" for x in times[b])
        print(f"| {os.path.basename(b)} | {statistics.median(times[b]):.2f} | {min(times[b]):.2f} | {ratio:.3f} | {rounds} |")


if __name__ == "__main__":
    main()
