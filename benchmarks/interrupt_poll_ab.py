"""The cost of the Ctrl-C poll: the same scenarios run with the core's
interrupt check on and off, alternating in one process.

    python benchmarks/interrupt_poll_ab.py [--rounds 5] [--scenario fattree_k8 --scenario dctcp_perm_k8]

``_core.run(json, seed, interruptible)``: with ``True`` the run asks the
interpreter for pending signals every 2^16 events (docs/performance.md,
"Ctrl-C: the interrupt check"). Prints the median core time of each and
the median per-round ratio (on / off), and checks that every run made the
same events and packet-hops.
"""

import argparse
import statistics

import numpy  # noqa: F401  (imported before timing: the first run would pay for it)
from dcnsim import _core
from dcnsim.bench import SCENARIOS
from dcnsim.scenario import to_json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: fattree_k8, dctcp_perm_k8")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {a.rounds}")
    for name in a.scenario or ["fattree_k8", "dctcp_perm_k8"]:
        text = to_json(SCENARIOS[name]())
        times = {True: [], False: []}
        counts = set()
        for _ in range(a.rounds):
            for poll in (True, False):
                r = _core.run(text, None, poll)
                times[poll].append(r["timing"]["wall_s"])
                counts.add((r["summary"]["events"], r["summary"]["packet_hops"]))
        if len(counts) != 1:
            raise SystemExit(f"{name}: runs differ in events/packet-hops: {sorted(counts)}")
        ratio = statistics.median(x / y for x, y in zip(times[True], times[False]))
        events, hops = counts.pop()
        print(f"{name}: poll on {statistics.median(times[True]):.3f} s, off {statistics.median(times[False]):.3f} s, "
              f"median per-round ratio {ratio:.3f} ({a.rounds} rounds; {events:,} events, {hops:,} packet-hops)")


if __name__ == "__main__":
    main()
