"""Sweep throughput vs workers: the same 16-point Kulkarni incast sweep run
with 1..N local processes and on a local Dask cluster of 1..N workers.

    python benchmarks/sweep_scaling.py [N]      (N defaults to the core count)
"""

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import distributed
from dcnsim.scenario import load_scenario
from dcnsim.sweep import grid, run_sweep

BASE = load_scenario(str(Path(__file__).resolve().parent.parent / "scenarios" / "kulkarni_incast.toml"))
POINTS = grid(BASE, {"apps.0.servers": ["1-2", "1-4", "1-8", "1-16"], "apps.0.blocks": [400]}, seeds=[1, 2, 3, 4])


def timed(**kw) -> float:
    d = tempfile.mkdtemp()
    try:
        t = time.perf_counter()
        run_sweep(POINTS, d, progress=False, **kw)
        return time.perf_counter() - t
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=os.cpu_count() or 1,
                    help="up to this many workers (default: the core count)")
    top = ap.parse_args().n
    if top < 1:
        ap.error(f"N must be at least 1, got {top}")
    for j in range(1, top + 1):
        print(f"local processes={j}: {len(POINTS)} points in {timed(jobs=j):.1f} s", flush=True)
    for n in range(1, top + 1):
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                      dashboard_address=None, silence_logs=50) as c:
            print(f"dask workers={n}: {len(POINTS)} points in {timed(cluster=c.scheduler_address):.1f} s", flush=True)
