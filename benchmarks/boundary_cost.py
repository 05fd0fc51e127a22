"""What crossing the Rust/Python boundary costs on a run with many flows.

    python benchmarks/boundary_cost.py [--repeat 5] [--duration 50ms]

A Poisson workload of short flows (1 KB to 100 KB) at 60 % load on the
k = 8 fat-tree gives about 20 000 flow rows in 50 ms of arrivals. For each repeat it
times ``_core.run`` (simulation + conversion of the tables to Python
objects) and ``Result(...)`` (the pandas DataFrames); the boundary cost is
``_core.run``'s wall time minus the core's own simulation time (so it also
holds building the report's tables in Rust and freeing the world), plus the
DataFrame construction. Medians are printed.

Measured on the shared 2-core machine, interleaved, 3 repeats each, 15 798
flows / 21 242 rows: lists of Python objects (before) 48-62 ms + 167-182 ms
of DataFrames = 215-244 ms; numpy columns built in Rust (after) 39-56 ms +
14-18 ms = 53-74 ms.
"""

import argparse
import json
import statistics
import time

import dcnsim
from dcnsim import _core
from dcnsim.result import Result

#: short flows (mean ~ 28 KB), so a short run has many rows
SMALL = [[1000, 0.0], [10000, 0.5], [100000, 1.0]]


def scenario(duration: str) -> dict:
    return {
        "name": "boundary-cost",
        "seed": 1,
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "routing": {"mode": "ecmp"},
        "tcp": {"cc": "cubic", "rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": 0.6, "cdf": SMALL, "duration": duration}],
    }


def sim_seconds(raw) -> float:
    timing = raw.get("timing")
    if timing is not None:
        return float(timing["wall_s"])
    return float(raw["summary"]["wall_s"])


def measure(doc: dict, repeat: int) -> tuple:
    """Per repeat, the conversion's seconds (``_core.run``'s wall time less
    the simulation's) and the DataFrames' (``Result`` and every table
    built); the rows of the last repeat's tables, and its Result."""
    text = json.dumps(doc)
    # imported before the clock: the first repeat's tables would pay for it, the others not
    import pandas  # noqa: F401
    conv, frames, rows, r = [], [], 0, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        raw = _core.run(text)
        t1 = time.perf_counter()
        r = Result(raw, doc)
        # Result builds each DataFrame on first access: built here, inside the clock
        rows = sum(len(r.tables[name]) for name in list(r.tables))
        t2 = time.perf_counter()
        conv.append(t1 - t0 - sim_seconds(raw))
        frames.append(t2 - t1)
    return conv, frames, rows, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--duration", default="50ms", help="Poisson arrivals for this long")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    doc = scenario(args.duration)
    problems = dcnsim.validate(doc)
    if problems:
        ap.error("; ".join(map(str, problems)))
    conv, frames, rows, r = measure(doc, args.repeat)
    print(f"dcnsim {dcnsim.__version__}, core {dcnsim.core_id()}")
    print(f"{len(r.flows)} flows, {rows} rows in all tables, {args.repeat} repeats (medians):")
    print(f"  core -> Python objects: {statistics.median(conv) * 1e3:8.2f} ms")
    print(f"  Result (DataFrames):    {statistics.median(frames) * 1e3:8.2f} ms")
    print(f"  boundary total:         {(statistics.median(conv) + statistics.median(frames)) * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
