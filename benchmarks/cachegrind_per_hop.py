"""Instructions and cache misses per packet-hop, from cachegrind (exact and
repeatable, unlike wall time on a shared machine).

Runs ``perf_ft`` (crates/dcnsim/examples/perf_ft.rs: k-ary fat-tree, one
long flow per host, ECMP, 1 Gbps) for two simulated durations under
``valgrind --tool=cachegrind`` with a 32 KiB L1 and a 1 MiB last-level cache
(one core's L2 on the project machine), and divides the difference of the
totals by the difference in packet-hops, so set-up and report cost cancel::

    cargo build --release --example perf_ft -p dcnsim
    python benchmarks/cachegrind_per_hop.py [--binary target/release/examples/perf_ft] [--k 8 16]
"""

import argparse
import os
import re
import shutil
import subprocess

#: Two run lengths (ms of simulated time) per k.
LENGTHS = {4: (20, 40), 8: (10, 20), 16: (6, 9), 32: (1, 2)}


def run(binary: str, k: int, ms: int) -> dict:
    p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--D1=32768,8,64", "--LL=1048576,8,64",
                        "--cachegrind-out-file=/dev/null", binary, str(k), str(ms)],
                       capture_output=True, text=True, check=True)

    def total(key: str) -> float:
        return float(re.search(key + r":\s+([\d,]+)", p.stderr).group(1).replace(",", ""))

    return {"hops": float(re.search(r"hops (\d+)", p.stdout).group(1)), "instr": total(r"I\s+refs"),
            "d1": total(r"D1\s+misses"), "ll": total("LL misses")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="target/release/examples/perf_ft")
    ap.add_argument("--k", type=int, nargs="+", default=[8, 16], choices=sorted(LENGTHS))
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        ap.error("valgrind is not installed (apt-get install valgrind)")
    if not (os.path.isfile(a.binary) and os.access(a.binary, os.X_OK)):
        ap.error(f"{a.binary}: not an executable (build it: cargo build --release --example perf_ft -p dcnsim)")
    print("| k | instructions / hop | D1 misses / hop | LL misses / hop |")
    print("|---|---|---|---|")
    for k in a.k:
        short, long = (run(a.binary, k, ms) for ms in LENGTHS[k])
        dh = long["hops"] - short["hops"]
        per = {key: (long[key] - short[key]) / dh for key in ("instr", "d1", "ll")}
        print(f"| {k} | {per['instr']:.0f} | {per['d1']:.2f} | {per['ll']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
