"""Instructions and cache misses per packet-hop, from cachegrind (exact and
repeatable, unlike wall time on a shared machine).

Runs ``perf_ft`` (crates/dcnsim/examples/perf_ft.rs: k-ary fat-tree, one
long flow per host, ECMP, 1 Gbps) for two simulated durations under
``valgrind --tool=cachegrind`` with a 32 KiB L1 and a 1 MiB last-level cache
(one core's L2 on the project machine), and divides the difference of the
totals by the difference in packet-hops, so set-up and report cost cancel::

    cargo build --release --example perf_ft -p dcnsim
    python benchmarks/cachegrind_per_hop.py [--binary target/release/examples/perf_ft] [--k 8 16]

``--scenario NAME ...`` does the same for ``dcnsim bench`` scenarios, run by
``run_json`` (crates/dcnsim/examples/run_json.rs: the core without Python)
whole and shortened to half (half the queries of a partition/aggregate
app, else half the simulated time): the table gives the marginal cost per
hop (set-up and report cancel) and the whole run's per hop (what
``dcnsim bench`` times), each on one thread (``"threads": 1``: the
bench's ``"auto"`` could cut the two runs differently). ``--LL
33554432,16,64`` models a 32 MiB L3 (the AMD EPYC machines), ``--LL
524288,8,64`` a Zen 3 core's 512 KiB L2::

    cargo build --release --example run_json -p dcnsim
    python benchmarks/cachegrind_per_hop.py --scenario ns3_fast_incast_n100 ns3_dctcp_bulk_64 dctcp_perm_k8 \\
        --LL 33554432,16,64
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

#: Two run lengths (ms of simulated time) per k.
LENGTHS = {4: (20, 40), 8: (10, 20), 16: (6, 9), 32: (1, 2)}


#: ``--scenario``: the bench's permutations run 20 ms (half: 10 ms), not their bench length.
SCENARIO_STOP = {"dctcp_perm_k8": 0.02, "dctcp_perm_k12": 0.004, "dctcp_perm_k16": 0.002, "fattree_k8": 0.02}


def cachegrind(cmd: List[str], ll: Optional[str] = None, cwd: Optional[str] = None) -> Tuple[Dict[str, int], str]:
    """Run ``cmd`` to the end under cachegrind: its totals and its stdout.
    The totals are ``instructions`` and, with a last-level cache ``ll``
    ("bytes,ways,line") modelled beside a 32 KiB L1, ``d1_misses`` and
    ``ll_misses``; without ``ll`` no cache is modelled (about twice as
    fast). A program that fails raises ``subprocess.CalledProcessError``
    (its ``returncode`` negative when a signal ended it), with valgrind's
    report as its ``stderr``. benchmarks/htsim_side_by_side.py and
    ns3_side_by_side.py count their ``--instructions`` with it."""
    sim = ["--cache-sim=no"] if ll is None else ["--cache-sim=yes", "--D1=32768,8,64", f"--LL={ll}"]
    p = subprocess.run(["valgrind", "--tool=cachegrind", *sim, "--cachegrind-out-file=/dev/null", *cmd],
                       capture_output=True, text=True, cwd=cwd)
    if p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, cmd, p.stdout, p.stderr)

    def total(key: str) -> int:
        m = re.search(key + r":\s+([\d,]+)", p.stderr)
        if m is None:
            raise RuntimeError(f"{cmd[0]}: cachegrind printed no '{key}' total: {p.stderr.strip()[-500:]}")
        return int(m.group(1).replace(",", ""))

    counts = {"instructions": total(r"I\s+refs")}
    if ll is not None:
        counts.update(d1_misses=total(r"D1\s+misses"), ll_misses=total(r"LL\s+misses"))
    return counts, p.stdout


def run(binary: str, *args: str, ll: str = "1048576,8,64") -> dict:
    """One run's hops and cachegrind's totals; a run that fails, or says
    no hop count, ends the script with its reason (valgrind's report)."""
    what = " ".join([os.path.basename(binary), *args])
    try:
        counts, out = cachegrind([binary, *args], ll)
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"{what} under valgrind failed (exit {e.returncode}):\n{(e.stderr or '').strip()[-1500:]}") \
            from None
    except RuntimeError as e:
        raise SystemExit(str(e)) from None
    m = re.search(r"hops (\d+)", out)
    if m is None:
        raise SystemExit(f"{what} printed no 'hops N' (is {binary} perf_ft, or run_json with --scenario?):\n"
                         f"{out.strip()[-500:]}")
    return {"hops": float(m.group(1)), "instr": float(counts["instructions"]),
            "d1": float(counts["d1_misses"]), "ll": float(counts["ll_misses"])}


def _seconds(text: str) -> float:
    from dcnsim.units import parse_time  # noqa: PLC0415  (only --scenario needs dcnsim)

    return parse_time(text)


def shortened(doc: Dict[str, Any], half: bool, stop: float = 0.0) -> Dict[str, Any]:
    """``doc`` to ``stop`` seconds (when given), and halved: half the
    queries of its partition/aggregate apps if it has any, else half the
    simulated time (apps' durations cut to it)."""
    doc = json.loads(json.dumps(doc))
    end = stop or _seconds(doc["stop"])
    if half and any(a.get("kind") == "partition_aggregate" for a in doc["apps"]):
        for a in doc["apps"]:
            if a.get("kind") == "partition_aggregate":
                a["queries"] = max(1, a.get("queries", 1) // 2)
    elif half:
        end /= 2
    if stop or half and end < _seconds(doc["stop"]):
        doc["stop"] = f"{end:.9g}s"
        for a in doc["apps"]:
            if "duration" in a:
                a["duration"] = f"{min(end, _seconds(a['duration'])):.9g}s"
    return doc


def scenario_docs(name: str) -> Dict[bool, Dict[str, Any]]:
    """The bench scenario ``name`` shortened to half (``True``) and whole
    (``False``), each on one thread: without a ``threads`` key a bench
    scenario runs ``"auto"``, which picks one or two threads by the
    machine's load when each run starts, so the half and the whole run
    could be cut differently and their difference would not be a hop's
    cost (valgrind runs a process's threads one at a time in any case)."""
    from dcnsim import bench  # noqa: PLC0415

    doc = {**bench.SCENARIOS[name](), "threads": 1}
    return {half: shortened(doc, half, SCENARIO_STOP.get(name, 0.0)) for half in (True, False)}


def per_hop_scenarios(binary: str, names: list, ll: str) -> None:
    print("| scenario | instructions / hop (marginal) | D1 misses / hop | LL misses / hop "
          "| instructions / hop (whole run) | packet-hops |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            res = []
            for half, doc in scenario_docs(name).items():
                path = Path(tmp) / f"{name}_{half}.json"
                path.write_text(json.dumps(doc))
                res.append(run(binary, str(path), ll=ll))
            short, long = res
            dh = long["hops"] - short["hops"]
            per = {key: (long[key] - short[key]) / dh for key in ("instr", "d1", "ll")}
            print(f"| {name} | {per['instr']:.0f} | {per['d1']:.2f} | {per['ll']:.3f} "
                  f"| {long['instr'] / long['hops']:.0f} | {long['hops']:,.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", help="perf_ft, or run_json with --scenario (default: target/release/examples/...)")
    ap.add_argument("--k", type=int, nargs="+", default=[8, 16], choices=sorted(LENGTHS))
    ap.add_argument("--scenario", nargs="+", metavar="NAME", help="dcnsim bench scenarios instead of perf_ft")
    ap.add_argument("--LL", dest="ll", default="1048576,8,64",
                    help="last-level cache model, bytes,ways,line (default one 1 MiB L2; 33554432,16,64: a 32 MiB L3)")
    a = ap.parse_args()
    example = "run_json" if a.scenario else "perf_ft"
    # the repository's build, wherever this is run from (a path relative to
    # the working directory said "not an executable" outside the repository)
    binary = a.binary or str(Path(__file__).resolve().parent.parent / "target" / "release" / "examples" / example)
    if shutil.which("valgrind") is None:
        ap.error("valgrind is not installed (apt-get install valgrind)")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        ap.error(f"{binary}: not an executable (build it: cargo build --release --example {example} -p dcnsim)")
    # checked in the current directory: run from there, not looked up on PATH (valgrind does so for a bare name)
    binary = os.path.abspath(binary)
    if not re.fullmatch(r"\d+,\d+,\d+", a.ll):
        ap.error(f"--LL: bytes,ways,line-bytes (e.g. 33554432,16,64), got {a.ll!r}")
    if a.scenario:
        from dcnsim import bench  # noqa: PLC0415

        unknown = [n for n in a.scenario if n not in bench.SCENARIOS]
        if unknown:
            ap.error(f"--scenario: unknown {', '.join(unknown)} (one of {', '.join(bench.SCENARIOS)})")
        per_hop_scenarios(binary, a.scenario, a.ll)
        return
    print("| k | instructions / hop | D1 misses / hop | LL misses / hop |")
    print("|---|---|---|---|")
    for k in a.k:
        short, long = (run(binary, str(k), str(ms), ll=a.ll) for ms in LENGTHS[k])
        dh = long["hops"] - short["hops"]
        per = {key: (long[key] - short[key]) / dh for key in ("instr", "d1", "ll")}
        print(f"| {k} | {per['instr']:.0f} | {per['d1']:.2f} | {per['ll']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
