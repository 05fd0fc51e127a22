"""What typing `dcnsim` costs before anything happens: CPU seconds and peak
RSS of `dcnsim --version`, `dcnsim validate` and a tiny `dcnsim run`, each
in a fresh process, plus a `python -X importtime` summary of each (the
modules that took longest to import, cumulative).

    python benchmarks/startup.py [--repeat 5] [--pythonpath DIR] [--top 8]

`--pythonpath python-tree-of-another-checkout` measures another version of
the Python package against the same core (copy the built `_core*.so` into
it), for a before/after. Figures in docs/performance.md ("Startup").
The tiny scenario is tests/data/small_incast.toml (5 hosts, 3 blocks).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "data" / "small_incast.toml"
COMMANDS = {
    "--version": ["--version"],
    "validate": ["validate", str(TINY)],
    "run (tiny)": ["run", str(TINY)],
}
HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "optuna", "dask", "distributed")


def _env(pythonpath: Optional[str]) -> Dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    return env


def measure(argv: List[str], env: Dict[str, str]) -> Tuple[float, float]:
    """CPU seconds (user + system) and peak RSS (MB) of one `python -m dcnsim ARGV`."""
    proc = subprocess.Popen([sys.executable, "-m", "dcnsim", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"dcnsim {' '.join(argv)} failed (exit {proc.returncode}): {err.strip()}")
    rss = ru.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru.ru_maxrss / 1024
    return ru.ru_utime + ru.ru_stime, rss


def importtime(argv: List[str], env: Dict[str, str], top: int) -> Tuple[float, List[Tuple[float, str]], List[str]]:
    """Total import time (s), the `top` packages that took longest (their
    modules' own times summed: `numpy` is every numpy.* module; dcnsim's
    modules are named one by one), and which heavy packages were imported."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "dcnsim", *argv], capture_output=True, text=True,
                       env=env)
    per_pkg: Dict[str, float] = {}
    total = 0.0
    for line in r.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if not m:
            continue
        self_us = int(line.split("|")[0].split(":")[1])
        name = m.group(3)
        total += self_us / 1e6
        root = name if name.startswith("dcnsim") else name.split(".")[0]
        per_pkg[root] = per_pkg.get(root, 0.0) + self_us / 1e6
    heavy = sorted({n.split(".")[0] for n in re.findall(r"\| +(\S+)$", r.stderr, flags=re.M)} & set(HEAVY))
    slow = sorted(((t, n) for n, t in per_pkg.items()), reverse=True)[:top]
    return total, slow, heavy


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per command; medians reported (default 5)")
    ap.add_argument("--pythonpath", default=None, help="put this directory first on PYTHONPATH (another version)")
    ap.add_argument("--top", type=int, default=6, help="slowest imports shown per command (default 6)")
    a = ap.parse_args(argv)
    env = _env(a.pythonpath)
    print(f"{'command':<12} {'cpu_s':>7} {'peak_rss_mb':>11}  (median of {a.repeat} fresh processes)")
    for label, args in COMMANDS.items():
        runs = [measure(args, env) for _ in range(a.repeat)]
        cpu = statistics.median(c for c, _ in runs)
        rss = statistics.median(r for _, r in runs)
        print(f"{label:<12} {cpu:>7.3f} {rss:>11.1f}")
    print("\npython -X importtime: all imports (s; the flag itself slows them), then the packages that took "
          "longest (s)")
    for label, args in COMMANDS.items():
        total, slow, heavy = importtime(args, env, a.top)
        print(f"{label:<12} {total:.3f} s; heavy packages: {', '.join(heavy) or 'none'}")
        print("             " + ", ".join(f"{n} {t:.3f}" for t, n in slow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
