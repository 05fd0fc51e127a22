"""dcnsim vs htsim on htsim's DCTCP permutation example, runs interleaved.

htsim is not a dependency: build csg-htsim yourself (``make`` in ``sim/``
and ``sim/datacenter``, then ``make htsim_dctcp_permutation`` in
``sim/datacenter/old_tests``; that file defines ``ntoa``/``itoa`` again,
which today's libhtsim also does — delete its copies to link — and takes its
end time from the source, so add an ``-end SECONDS`` option or edit
``setEndtime``). Then::

    python benchmarks/htsim_side_by_side.py /path/to/htsim_dctcp_permutation [--pairs 3] [--k 8 12 16]

For each k it alternates one htsim run and one ``dcnsim bench --scenario
dctcp_perm_k{k}`` run (same simulated time), ``--pairs`` times, and prints
the medians and the ratio of packet-hops/s. htsim does not report its
packet-hops; both simulate the same traffic, so dcnsim's count is used for
both (htsim's wall time is the only measurement taken from it).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

STOP = {8: 0.21, 12: 0.21, 16: 0.05, 32: 0.01}


def htsim(binary: str, k: int) -> float:
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        subprocess.run([binary, "-nodes", str(k ** 3 // 4), "-conns", str(k ** 3 // 4), "-end", str(STOP[k]),
                        "-o", os.path.join(d, "log")], check=True, capture_output=True, cwd=d)
        return time.perf_counter() - t


def dcnsim(k: int) -> dict:
    out = subprocess.run([sys.executable, "-m", "dcnsim", "bench", "--json", "--scenario", f"dctcp_perm_k{k}"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("htsim")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--k", type=int, nargs="+", default=[8, 12, 16])
    a = ap.parse_args()
    print("| k | hosts | sim s | packet-hops | dcnsim wall | dcnsim pkt-hops/s | dcnsim RSS | htsim wall | htsim pkt-hops/s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in a.k:
        ours, theirs, rss, hops = [], [], [], 0
        for _ in range(a.pairs):
            theirs.append(htsim(a.htsim, k))
            r = dcnsim(k)
            ours.append(r["wall_s"])
            rss.append(r["peak_rss_mb"])
            hops = r["packet_hops"]
        w_us, w_them = statistics.median(ours), statistics.median(theirs)
        print(f"| {k} | {k ** 3 // 4} | {STOP[k]} | {hops / 1e6:.1f} M | {w_us:.2f} s | {hops / w_us / 1e6:.2f} M "
              f"| {max(rss):.0f} MB | {w_them:.2f} s | {hops / w_them / 1e6:.2f} M | {w_them / w_us:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
