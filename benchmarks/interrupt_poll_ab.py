"""The cost of the Ctrl-C poll: the same scenarios run with the core's
interrupt check on and off, alternating in one process.

    python benchmarks/interrupt_poll_ab.py [--rounds 5] [--scenario fattree_k8 --scenario dctcp_perm_k8]

``_core.run(json, seed, interruptible)``: with ``True`` the run asks the
interpreter for pending signals every 2^16 events (docs/performance.md,
"Ctrl-C: the interrupt check"). A first run is not timed; then each round
runs both, the one that goes first alternating. Prints the median core
time of each and the median per-round ratio (on / off), and checks that
every run made the same events and packet-hops.
"""

import argparse
import statistics
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/: threads_pairs

from dcnsim import _core  # noqa: E402
from dcnsim.bench import SCENARIOS  # noqa: E402
from dcnsim.scenario import to_json  # noqa: E402
from threads_pairs import rotated  # noqa: E402


def rounds(text: str, n: int) -> Tuple[Dict[bool, List[float]], Set[Tuple[int, int]]]:
    """The core's times with the poll on (True) and off, ``n`` each, and
    every run's (events, packet-hops). A process's first run is slower
    than the later ones: it is run untimed, so that it counts against
    neither setting (it fell on the poll on in every round-robin before),
    and the rounds alternate which setting goes first."""
    counts = set()

    def run(poll: bool) -> float:
        r = _core.run(text, None, poll)
        counts.add((r["summary"]["events"], r["summary"]["packet_hops"]))
        return r["timing"]["wall_s"]

    run(True)
    times: Dict[bool, List[float]] = {True: [], False: []}
    for i in range(n):
        for poll in rotated([True, False], i):
            times[poll].append(run(poll))
    return times, counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: fattree_k8, dctcp_perm_k8")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {a.rounds}")
    for name in a.scenario or ["fattree_k8", "dctcp_perm_k8"]:
        times, counts = rounds(to_json(SCENARIOS[name]()), a.rounds)
        if len(counts) != 1:
            raise SystemExit(f"{name}: runs differ in events/packet-hops: {sorted(counts)}")
        ratio = statistics.median(x / y for x, y in zip(times[True], times[False]))
        events, hops = counts.pop()
        print(f"{name}: poll on {statistics.median(times[True]):.3f} s, off {statistics.median(times[False]):.3f} s, "
              f"median per-round ratio {ratio:.3f} ({a.rounds} rounds, after an untimed first run; {events:,} events, "
              f"{hops:,} packet-hops)")


if __name__ == "__main__":
    main()
