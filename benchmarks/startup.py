"""What typing `dcnsim` costs around the simulation: CPU seconds and peak
RSS of `dcnsim --version`, `dcnsim validate`, a tiny `dcnsim run` and
whole runs of the two incast scenarios of issue 48 (ns-3's TCP settings),
each in a fresh process, with the simulation's own CPU beside the runs;
plus a `python -X importtime` summary of each command (the modules that
took longest to import).

    python benchmarks/startup.py [--repeat 5] [--pythonpath DIR] [--top 6] [--json FILE]

Two interpreters run every command, interleaved:

* ``clean``: a virtual environment made in a temporary directory, with
  dcnsim's package directory and then this interpreter's site-packages on
  PYTHONPATH (importable, but their ``.pth`` start-up hooks do not run)
  and bytecode cached after a first run: what a `pip install` gives a user;
* ``as configured``: this interpreter with this environment as it is
  (its site-packages' ``.pth`` hooks run at start-up, and with
  PYTHONDONTWRITEBYTECODE set every module is compiled on every start).

The table names the machine (``dcnsim.machine``: CPU model, family and
model, L2 and L3) and the load average. `--pythonpath python-tree-of-another-checkout` measures another
version of the Python package against the same core (copy the built
`_core*.so` into it), for a before/after. Figures in docs/performance.md
("Start-up and wrap-up"); benchmarks/record.py stores them in
benchmarks/results.json. The tiny scenario is tests/data/small_incast.toml
(5 hosts, 3 blocks); the incast scenarios are validation/ns3_incast's
(`incast_scenarios`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import site
import statistics
import subprocess
import sys
import tempfile
import venv
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its neighbours, however it was loaded
from outpath import check_json_path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "data" / "small_incast.toml"
HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "optuna", "dask", "distributed", "tqdm")
INCAST = {"fast_n100": "FaST incast, n = 100, 100 queries, NewReno",
          "dctcp_bulk_64": "64 DCTCP bulk flows into one port, 1 s"}


def incast_scenarios() -> Dict[str, Dict[str, Any]]:
    """The issue's two ns-3-matched incasts, as validation/ns3_incast builds
    them: the FaST paper's transport with ns-3 NewReno's slow start and
    congestion avoidance (``run.py --setup fast --n 100 --queries 100 --cc
    newreno``), and 64 DCTCP flows of that harness's star sending to host 0
    for 1 s."""
    spec = importlib.util.spec_from_file_location("ns3_incast_run", ROOT / "validation" / "ns3_incast" / "run.py")
    v = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(v)  # type: ignore[union-attr]
    fast = v.SETUPS["fast"]
    reno = {"ca_increase": v.NS3_CA_INCREASE["newreno"], "abc_limit": v.NS3_ABC_LIMIT["newreno"], **fast["tcp"]}
    out = {"fast_n100": v.dcnsim_scenario(100, "newreno", 100, "persistent", 0.01, reno, fast["buffer"])}
    dctcp = v.dcnsim_scenario(64, "dctcp", 1, "persistent", 0.01)
    dctcp.update(name="dctcp-bulk-64", stop="1s", apps=[{"kind": "bulk", "src": i, "dst": 0, "duration": "1s"}
                                                        for i in range(1, 65)])
    out["dctcp_bulk_64"] = dctcp
    return out


def commands(scenario_dir: Path) -> Dict[str, List[str]]:
    """label -> dcnsim's arguments; the incast scenarios are written to
    ``scenario_dir`` as JSON files."""
    cmds = {"--version": ["--version"], "validate": ["validate", str(TINY)], "run (tiny)": ["run", str(TINY)]}
    for name, doc in incast_scenarios().items():
        path = scenario_dir / f"{name}.json"
        path.write_text(json.dumps(doc, indent=1))
        cmds[f"run {name}"] = ["run", str(path)]
    return cmds


def machine() -> Dict[str, Any]:
    """CPU model with its family and model numbers (a VM may name its CPU
    only "AMD EPYC": family 25, model 17 is Zen 4, which moves the ratios
    to htsim and ns-3 by half), L3, logical CPUs, Python: the stamp
    benchmarks/results.json keeps (``dcnsim.machine``; ``line`` is its
    whole description, L2 and load included)."""
    from dcnsim import machine as m

    d = m.describe()
    return {"cpu": d["cpu"], "l3": m.l3_label(d), "logical_cpus": d["logical_cpus"],
            "python": sys.version.split()[0], "line": m.line(d)}


def _package_dir(pythonpath: Optional[str]) -> str:
    """The directory holding the `dcnsim` package that gets measured."""
    if pythonpath:
        return pythonpath
    spec = importlib.util.find_spec("dcnsim")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("dcnsim is not importable: pip install -e . (or set PYTHONPATH)")
    return str(Path(list(spec.submodule_search_locations)[0]).parent)


def interpreters(tmp: Path, pythonpath: Optional[str]) -> Dict[str, Tuple[str, Dict[str, str]]]:
    """name -> (python executable, environment) of the two set-ups."""
    configured = {**os.environ, "PYTHONHASHSEED": "0"}
    if pythonpath:
        configured["PYTHONPATH"] = pythonpath + os.pathsep + configured.get("PYTHONPATH", "")
    venv.EnvBuilder(with_pip=False, system_site_packages=False, symlinks=os.name != "nt").create(tmp / "venv")
    exe = tmp / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # this interpreter's site-packages after dcnsim's directory: importable
    # (numpy would be found, and be seen imported), but no .pth hook runs
    path = [_package_dir(pythonpath), *site.getsitepackages()]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    clean.update(PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join(path), PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    return {"clean": (str(exe), clean), "as configured": (sys.executable, configured)}


def measure(argv: List[str], python: str, env: Dict[str, str]) -> float:
    """CPU seconds (user + system) of one `python -m dcnsim ARGV`."""
    proc = subprocess.Popen([python, "-m", "dcnsim", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"dcnsim {' '.join(argv)} failed (exit {proc.returncode}): {err.strip()}")
    return ru.ru_utime + ru.ru_stime


# `python -m dcnsim ARGV` that writes its own peak RSS (VmHWM, kB) to the
# file named by its first argument when it exits. The child's `ru_maxrss`
# will not do on Linux: execve carries the spawner's high-water mark into
# the child, so every command lighter than this script read as this
# script's RSS (17.3 MB for all of them in the tables before).
RSS_PROBE = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def hwm():
    with open("/proc/self/status") as f:
        kb = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    with open(out, "w") as f:
        f.write(kb)
atexit.register(hwm)
sys.argv[0] = "dcnsim"
runpy.run_module("dcnsim", run_name="__main__", alter_sys=True)
"""


def peak_rss(argv: List[str], python: str, env: Dict[str, str], tmp: Path) -> Optional[float]:
    """Peak RSS (MB of 2**20 bytes) of `python -m dcnsim ARGV`, from the
    process itself (Linux's /proc; None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    out = tmp / "hwm.txt"
    r = subprocess.run([python, "-c", RSS_PROBE, str(out), *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        raise SystemExit(f"dcnsim {' '.join(argv)} failed (exit {r.returncode}): {r.stderr.decode().strip()}")
    return int(out.read_text()) / 1024


def bare(python: str, env: Dict[str, str]) -> float:
    """CPU seconds of `python -c pass`: the interpreter alone."""
    proc = subprocess.Popen([python, "-c", "pass"], env=env)
    _, _, ru = os.wait4(proc.pid, 0)
    return ru.ru_utime + ru.ru_stime


CORE_CHILD = """
import json, sys, time
import dcnsim
doc = json.loads(open(sys.argv[1]).read())
t0 = time.process_time()
dcnsim.run(doc)
print(time.process_time() - t0)
"""


def core_cpu(path: str, python: str, env: Dict[str, str]) -> float:
    """CPU seconds of `dcnsim.run` in-process (validation, the core, the
    result's tables), the part a whole `dcnsim run` adds start-up and
    wrap-up to."""
    r = subprocess.run([python, "-c", CORE_CHILD, path], capture_output=True, text=True, env=env, check=True)
    return float(r.stdout.strip().splitlines()[-1])


def importtime(argv: List[str], python: str, env: Dict[str, str],
               top: int) -> Tuple[float, List[Tuple[float, str]], List[str]]:
    """Total import time (s), the `top` packages that took longest (their
    modules' own times summed: `numpy` is every numpy.* module; dcnsim's
    modules are named one by one), and which heavy packages were imported."""
    r = subprocess.run([python, "-X", "importtime", "-m", "dcnsim", *argv], capture_output=True, text=True, env=env)
    per_pkg: Dict[str, float] = {}
    total = 0.0
    for line in r.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)", line)
        if not m:
            continue
        self_s = int(m.group(1)) / 1e6
        name = m.group(3)
        total += self_s
        root = name if name.startswith("dcnsim") else name.split(".")[0]
        per_pkg[root] = per_pkg.get(root, 0.0) + self_s
    heavy = sorted({n.split(".")[0] for n in re.findall(r"\| +(\S+)$", r.stderr, flags=re.M)} & set(HEAVY))
    slow = sorted(((t, n) for n, t in per_pkg.items()), reverse=True)[:top]
    return total, slow, heavy


def record(repeat: int, pythonpath: Optional[str] = None, top: int = 6) -> Dict[str, Any]:
    """Every figure of the table: per command and interpreter the median CPU
    and peak RSS of ``repeat`` fresh processes (the two interpreters
    interleaved, run by run), the heavy packages imported, and for the
    incast runs the median CPU of ``dcnsim.run`` in-process."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="dcnsim-startup-") as tmp_name:
        tmp = Path(tmp_name)
        pythons = interpreters(tmp, pythonpath)
        cmds = commands(tmp)
        for python, env in pythons.values():  # compile and cache the bytecode (where it may be written)
            for args in cmds.values():
                measure(args, python, env)
        out: Dict[str, Any] = {"machine": machine(), "repeat": repeat, "interpreters": list(pythons),
                               "bare_cpu_s": {}, "commands": {}}
        runs: Dict[Tuple[str, str], List[float]] = {}
        rss: Dict[Tuple[str, str], List[Optional[float]]] = {}
        bares: Dict[str, List[float]] = {name: [] for name in pythons}
        cores: Dict[str, List[float]] = {}
        for _ in range(repeat):
            for name, (python, env) in pythons.items():
                bares[name].append(bare(python, env))
                for label, args in cmds.items():
                    runs.setdefault((label, name), []).append(measure(args, python, env))
                    rss.setdefault((label, name), []).append(peak_rss(args, python, env, tmp))
            python, env = pythons["clean"]
            for label, args in cmds.items():
                if label.startswith("run ") and label != "run (tiny)":
                    cores.setdefault(label, []).append(core_cpu(args[1], python, env))
        out["bare_cpu_s"] = {name: round(statistics.median(v), 3) for name, v in bares.items()}
        for label, args in cmds.items():
            rec: Dict[str, Any] = {}
            for name in pythons:
                peaks = [r for r in rss[(label, name)] if r is not None]
                rec[name] = {"cpu_s": round(statistics.median(runs[(label, name)]), 3),
                             "peak_rss_mb": round(statistics.median(peaks), 1) if peaks else None}
            python, env = pythons["clean"]
            _total, slow, heavy = importtime(args, python, env, top)
            rec["heavy_imports"] = heavy
            rec["slowest_imports"] = [[n, round(t, 4)] for t, n in slow]
            if label in cores:
                rec["core_cpu_s"] = round(statistics.median(cores[label]), 3)
            out["commands"][label] = rec
    out["load_average"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    return out


def _mb(x: Optional[float]) -> str:
    return "—" if x is None else f"{x:.1f}"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per command and interpreter; medians (default 5)")
    ap.add_argument("--pythonpath", default=None, help="measure the dcnsim package in this directory (another "
                                                       "version)")
    ap.add_argument("--top", type=int, default=6, help="slowest imports shown per command (default 6)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here as JSON")
    a = ap.parse_args(argv)
    if a.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {a.repeat}")
    check_json_path(ap, a.json)
    rec = record(a.repeat, a.pythonpath, a.top)
    m = rec["machine"]
    names = rec["interpreters"]
    print(f"{m['line']}; Python {m['python']}; load average "
          f"{rec['load_average'][0]} before, {rec['load_average'][1]} after; median of {a.repeat} fresh processes")
    from dcnsim import machine

    note = machine.compile_note()
    if note:
        print(f"note (the \"as configured\" column): {note}")
    print(f"{'command':<20} " + " ".join(f"{n + ' cpu_s':>18} {'rss_mb':>7}" for n in names) + f" {'core cpu_s':>11}")
    print(f"{'python -c pass':<20} " + " ".join(f"{rec['bare_cpu_s'][n]:>18.3f} {'':>7}" for n in names))
    for label, c in rec["commands"].items():
        core = f"{c['core_cpu_s']:>11.3f}" if "core_cpu_s" in c else ""
        print(f"{label:<20} " + " ".join(f"{c[n]['cpu_s']:>18.3f} {_mb(c[n]['peak_rss_mb']):>7}" for n in names)
              + f" {core}")
    print("\npython -X importtime (clean interpreter): heavy packages, then the packages that took longest (s; "
          "the flag itself slows them)")
    for label, c in rec["commands"].items():
        print(f"{label:<20} heavy: {', '.join(c['heavy_imports']) or 'none'}; "
              + ", ".join(f"{n} {t:.3f}" for n, t in c["slowest_imports"]))
    if a.json:
        from dcnsim._atomic import atomic_write

        text = json.dumps(rec, indent=2) + "\n"
        atomic_write(a.json.expanduser(), lambda fh: fh.write(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
