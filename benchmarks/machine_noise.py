"""How steady this machine's cores are: the same work, timed in short chunks, on one core and on two at once.

    python benchmarks/machine_noise.py [--chunk-ms 1] [--chunks 2000] [--json FILE]

A run cut into two partitions waits at every window for the slower one
(about a millisecond of work each at k = 32: docs/performance.md,
Threads), so what one core does more slowly than the other, for whatever
reason, is lost to both. This measures the machine alone, with no
simulator in it: a fixed piece of integer work (calibrated to about
--chunk-ms on one core) is timed --chunks times in one process, then in
two processes started together. It prints, for each, the chunks' mean,
standard deviation (as a share of the mean), 99th percentile and slowest;
for the pair, how much slower the slower process was on average (two
vCPUs of a VM need not run at one speed), and what a barrier after every
chunk would cost at equal work: the mean over chunks of the slower of the
two chunk times, over their mean, less one (chunk i of one process
against chunk i of the other; the processes do not wait for each other,
so this estimates the barrier's cost from the noise alone).

On a machine whose cores are steady these are a few per cent; where they
are tens of per cent, a two-thread speed-up close to 2 cannot be shown
there, however little the engine's own hand-over costs.
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its neighbours, however it was loaded
from outpath import check_json_path  # noqa: E402


def _work(iters: int) -> int:
    """A fixed amount of integer work (a linear congruential walk)."""
    x = 12345
    for _ in range(iters):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def chunk_times(chunks: int, iters: int) -> List[float]:
    """Seconds taken by each of `chunks` runs of the same work."""
    out = []
    for _ in range(chunks):
        t0 = time.perf_counter()
        _work(iters)
        out.append(time.perf_counter() - t0)
    return out


def calibrate(chunk_s: float) -> int:
    """Iterations of the work that take about `chunk_s` on this core."""
    iters = 1000
    while True:
        took = min(chunk_times(3, iters))
        if took >= 0.02 or took >= chunk_s:
            return max(1, round(iters * chunk_s / took))
        iters *= 4


def _child(start, chunks: int, iters: int, q) -> None:
    start.wait()
    q.put(chunk_times(chunks, iters))


def pair_times(chunks: int, iters: int) -> List[List[float]]:
    """Chunk times of two processes started together."""
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(2)
    q = ctx.Queue()
    procs = [ctx.Process(target=_child, args=(start, chunks, iters, q)) for _ in range(2)]
    for p in procs:
        p.start()
    got = [q.get(), q.get()]
    for p in procs:
        p.join()
    return got


def describe(xs: List[float]) -> Dict[str, float]:
    """Mean, standard deviation (and its share of the mean), 99th
    percentile and maximum of chunk times, in seconds."""
    v = sorted(xs)
    mean = statistics.fmean(v)
    sd = statistics.pstdev(v)
    return {"mean_s": mean, "sd_s": sd, "sd_share": sd / mean, "p99_s": v[min(len(v) - 1, math.ceil(0.99 * len(v)) - 1)],
            "max_s": v[-1]}


def barrier_cost(a: List[float], b: List[float]) -> float:
    """What waiting for the slower of each pair of chunks costs over their
    mean (zero only when every pair took the same time)."""
    slower = sum(max(x, y) for x, y in zip(a, b))
    mean = sum((x + y) / 2 for x, y in zip(a, b))
    return slower / mean - 1


def measure(chunks: int, chunk_ms: float) -> Dict[str, object]:
    iters = calibrate(chunk_ms / 1000)
    one = chunk_times(chunks, iters)
    a, b = pair_times(chunks, iters)
    da, db = describe(a), describe(b)
    return {
        "chunks": chunks,
        "iterations": iters,
        "one": describe(one),
        "two": [da, db],
        "slower_over_faster": max(da["mean_s"], db["mean_s"]) / min(da["mean_s"], db["mean_s"]),
        "barrier_cost": barrier_cost(a, b),
    }


def _line(name: str, d: Dict[str, float]) -> str:
    return (f"{name}: mean {d['mean_s'] * 1e3:.3f} ms, sd {d['sd_s'] * 1e3:.3f} ms ({100 * d['sd_share']:.1f} %), "
            f"p99 {d['p99_s'] * 1e3:.3f} ms, slowest {d['max_s'] * 1e3:.3f} ms")


def write_json(path: str, rec: Dict[str, object]) -> None:
    """``rec`` at ``path`` whole or not at all: dcnsim's atomic write where
    dcnsim is installed, else the same (a temporary file beside it, renamed
    over it), as this script runs without the simulator."""
    try:
        from dcnsim._atomic import atomic_write
    except ImportError:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                   dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(rec, fh, indent=1)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        return
    atomic_write(path, lambda fh: json.dump(rec, fh, indent=1))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunk-ms", type=float, default=1.0, help="one chunk's work on one core, about (default 1)")
    ap.add_argument("--chunks", type=int, default=2000, help="chunks timed in each process (default 2000)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    a = ap.parse_args(argv)
    if not (a.chunk_ms > 0 and math.isfinite(a.chunk_ms)):
        ap.error(f"--chunk-ms must be a finite number above 0, got {a.chunk_ms}")
    if a.chunks < 2:
        ap.error(f"--chunks must be at least 2, got {a.chunks}")
    check_json_path(ap, a.json)
    try:
        from dcnsim import machine
    except ImportError:  # the machine alone: this script needs no simulator
        pass
    else:
        print(machine.preamble())
    r = measure(a.chunks, a.chunk_ms)
    print(f"{a.chunks} chunks of {r['iterations']:,} iterations")
    print(_line("one process", r["one"]))
    for i, d in enumerate(r["two"]):
        print(_line(f"two processes, {'AB'[i]}", d))
    print(f"the slower of the two: {r['slower_over_faster']:.3f}x the faster's mean")
    print(f"a barrier after every chunk would cost {100 * r['barrier_cost']:.1f} % over the mean")
    if a.json:
        write_json(os.path.expanduser(a.json), r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
