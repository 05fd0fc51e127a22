"""Record the machine-dependent figures the docs quote, in one file:
benchmarks/results.json (machine, date, commit and load with each
section), and the doc tables made from it.

    python benchmarks/record.py [--htsim HTSIM_BINARY] [--ns3] [--only SECTION ...] [--repeat N] [--pairs N]

Sections (each stamped with its own date, commit and load average, so one
can be re-run alone with ``--only``; the others are kept from the file):

* ``startup``: CPU seconds and peak RSS of ``dcnsim --version``,
  ``validate``, a tiny ``run`` and whole runs of issue 48's two incasts,
  in a clean interpreter and as configured, with the heavy packages each
  imported and the incasts' in-process ``dcnsim.run`` CPU
  (benchmarks/startup.py);
* ``bench``: five of ``dcnsim bench``'s default seven (``BENCH``; the two
  ns-3-matched incasts are the ``ns3`` section's, timed beside ns-3) and
  the larger htsim mirrors (``dctcp_perm_k12``, ``dctcp_perm_k16``,
  ``dctcp_perm_k16_128flows``, ``dctcp_perm_k32``):
  events/s, packet-hops/s and peak RSS, the median of ``--repeat`` runs;
* ``soak``: ``dcnsim bench --scenario soak``: peak RSS at 10, 30 and 60 s;
* ``htsim``: benchmarks/htsim_side_by_side.py against stock htsim, only
  with ``--htsim`` (about an hour on a shared 2-core machine); without it
  the file's previous ``htsim`` section is kept as it was;
* ``ns3``: benchmarks/ns3_side_by_side.py against ns-3 (Debian's
  libns3-dev) on the two incasts, only with ``--ns3`` (about 20 s of ns-3
  CPU per run); kept otherwise;
* ``ns3_perm``: the same script on the DCTCP permutation at k = 4 and 8,
  dcnsim on 1 and 2 threads, also only with ``--ns3`` (about 60 s and
  500 s of ns-3 CPU per pair).

Then the tables between ``<!-- results.json: NAME -->`` and
``<!-- /results.json -->`` in docs/performance.md, docs/robustness.md and
README.md are rewritten from the file (``--docs-only`` does only that).
tests/test_docs_drift.py renders them again from the file and fails when a
doc differs: a figure in a doc is the one in the file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results.json"
DOCS = [ROOT / "docs" / "performance.md", ROOT / "docs" / "robustness.md", ROOT / "README.md"]
SECTIONS = ("startup", "bench", "soak", "htsim", "ns3", "ns3_perm")
#: benchmarks/ns3_side_by_side.py's scenarios per section
NS3 = {"ns3": ("ns3_fast_incast_n100", "ns3_dctcp_bulk_64"), "ns3_perm": ("ns3_dctcp_perm_k4", "ns3_dctcp_perm_k8")}
BENCH = ("incast_pa", "longflows_64", "fattree_k8", "dctcp_perm_k8", "poisson_websearch_k8",
         "dctcp_perm_k12", "dctcp_perm_k16", "dctcp_perm_k16_128flows", "dctcp_perm_k32")
SOAK = ("soak_10s", "soak_30s", "soak_60s")


# ---------------------------------------------------------------------------
# measuring


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def _startup_module():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import startup

    return startup


def stamp() -> Dict[str, Any]:
    """When, at which commit, on which CPU and under what load a section was measured."""
    # the file and the docs' tables this script writes are not the code measured
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks/results.json",
                      *(f":!{d.relative_to(ROOT)}" for d in DOCS)))
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else ""),
        "load_average": round(os.getloadavg()[0], 1),
        "cpu": _stamp_cpu(),
    }


def _stamp_cpu(d: Optional[Dict[str, Any]] = None) -> str:
    """The CPU and L3 as every section's stamp names them (``d``: a
    ``dcnsim.machine.describe()`` already read)."""
    from dcnsim import machine as m

    d = m.describe() if d is None else d
    return f"{d['cpu']}, L3 {m.l3_label(d)}"


def machine() -> Dict[str, Any]:
    """The machine of this record: CPU and L3 as the sections' stamps name
    them, its L2 a core, memory, OS, Python, the core's build, and when it
    was read (``dcnsim.machine``)."""
    import dcnsim
    from dcnsim import machine as m

    d = m.describe()
    return {"cpu": _stamp_cpu(d), "logical_cpus": d["logical_cpus"], "l2_kib": d["l2_kib"],
            "memory_gib": d["memory_gib"], "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "dcnsim_core": dcnsim.core_id(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def measure_startup(repeat: int) -> Dict[str, Any]:
    rec = _startup_module().record(repeat)
    rec.pop("machine")  # the stamp names the CPU
    return rec


def measure_bench(names, repeat: int) -> Dict[str, Any]:
    from dcnsim import bench

    out: Dict[str, Any] = {"repeat": repeat, "scenarios": {}}
    for name in names:
        rec = bench.run_one(name, repeat)
        print(f"  {name}: {rec['packet_hops_per_s'] / 1e6:.1f} M hops/s, {rec['peak_rss_mb']:.1f} MB", file=sys.stderr)
        out["scenarios"][name] = {
            "sim_s": rec["sim_s"], "wall_s": round(rec["wall_s"], 3), "walls_s": [round(w, 3) for w in rec["walls_s"]],
            "events": rec["events"], "packet_hops": rec["packet_hops"],
            "events_per_s": round(rec["events_per_s"]), "packet_hops_per_s": round(rec["packet_hops_per_s"]),
            "peak_rss_mb": round(rec["peak_rss_mb"], 1), "threads": rec["threads"],
        }
    return out


def run_side_by_side(cmd: List[str], section: str, accept: Tuple[int, ...] = (0,)) -> Dict[str, Any]:
    """The record a side-by-side script writes with ``--json``: ``cmd`` is
    run with ``--json`` into a new temporary directory, so the file read is
    this run's, never one an earlier run left behind. A return code not in
    ``accept``, or no record written, stops the recording (SystemExit): the
    section in results.json is kept as it was, not replaced by a stale or
    missing one."""
    with tempfile.TemporaryDirectory(prefix=f"dcnsim-record-{section}-") as tmp:
        out = Path(tmp) / f"{section}.json"
        p = subprocess.run([*cmd, "--json", str(out)], check=False)
        script = Path(cmd[1]).name
        if p.returncode not in accept:
            raise SystemExit(f"record.py: {script} exited with {p.returncode} (its output above says why); "
                             f"the {section} section of {RESULTS.name} is kept as it was")
        if not out.is_file():
            raise SystemExit(f"record.py: {script} exited with {p.returncode} but wrote no record; "
                             f"the {section} section of {RESULTS.name} is kept as it was")
        try:
            rec = json.loads(out.read_text(encoding="utf-8"))
        except ValueError as e:
            raise SystemExit(f"record.py: {script} wrote a record that is not JSON ({e}); "
                             f"the {section} section of {RESULTS.name} is kept as it was") from None
    if not isinstance(rec, dict) or "rows" not in rec:
        raise SystemExit(f"record.py: {script}'s record has no rows; the {section} section of {RESULTS.name} "
                         "is kept as it was")
    return rec


def measure_htsim(binary: str, pairs: int) -> Dict[str, Any]:
    # one thread beside `auto`: htsim runs on one core, so only one thread's
    # ratio per CPU second compares a core with a core
    cmd = [sys.executable, str(ROOT / "benchmarks" / "htsim_side_by_side.py"), binary, "--pairs", str(pairs),
           "--threads", "1", "auto"]
    return run_side_by_side(cmd, "htsim")


def measure_ns3(pairs: int, section: str = "ns3") -> Dict[str, Any]:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "ns3_side_by_side.py"), "--pairs", str(pairs),
           "--scenario", *NS3[section]]
    # exit 1: packet-hops differ by more than 1 %, which the record's rows say (DISAGREE)
    return run_side_by_side(cmd, section, accept=(0, 1))


# ---------------------------------------------------------------------------
# the doc tables, made from the file (tests/test_docs_drift.py makes them again)


def _m(x: float) -> str:
    return f"{x / 1e6:.1f} M"


def _stamp_line(sec: Dict[str, Any]) -> str:
    s = sec["stamp"]
    on = f" on {s['cpu']}" if "cpu" in s else ""
    return f"Recorded {s['date']} at {s['commit']}{on}, load average {s['load_average']}"


def render_machine(r: Dict[str, Any]) -> str:
    m = r["machine"]
    # sections are re-recorded alone, on whatever machine a session has:
    # the line names the latest record's machine and what each section ran on
    cpus: Dict[str, List[str]] = {}
    for name in SECTIONS:
        cpu = r.get(name, {}).get("stamp", {}).get("cpu")
        if cpu:
            cpus.setdefault(cpu, []).append(name)
    where = "; ".join(f"{', '.join(names)} on {cpu}" for cpu, names in cpus.items())
    when = f" ({m['date']})" if "date" in m else ""
    # records before dcnsim.machine did not keep the L2
    l2 = f"L2 {m['l2_kib']} KiB a core, " if m.get("l2_kib") else ""
    # older records name it memory_gb, but it was always MemTotal over 2^20 kB: GiB
    gib = m.get("memory_gib", m.get("memory_gb"))
    memory = f"{gib} GiB, " if gib is not None else ""
    return (f"Machine of the latest record{when}: {m['cpu']}, {m['logical_cpus']} logical CPUs, {l2}"
            f"{memory}{m['os']}, Python {m['python']}; shared with other users while measured "
            f"(each section gives its load average). The sections as recorded: {where}.")


def render_bench(r: Dict[str, Any]) -> str:
    b = r["bench"]
    # threads: what `auto` (the default) chose, from the cores free at the time
    rows = ["| scenario | simulated | wall (median) | events/s | packet-hops/s | peak RSS | threads |",
            "|---|---|---|---|---|---|---|"]
    for name, s in b["scenarios"].items():
        rows.append(f"| {name} | {s['sim_s']:.4g} s | {s['wall_s']:.3f} s | {_m(s['events_per_s'])} "
                    f"| {_m(s['packet_hops_per_s'])} | {s['peak_rss_mb']:.1f} MB | {s.get('threads', '—')} |")
    sc = b["scenarios"]
    extra = ""
    if "dctcp_perm_k8" in sc and "dctcp_perm_k16" in sc:
        k8, k16 = sc["dctcp_perm_k8"], sc["dctcp_perm_k16"]
        ratio = k16["packet_hops_per_s"] / k8["packet_hops_per_s"]
        extra = f" k = 16 runs at {ratio:.2f}× of k = 8's packet-hops/s"
        if k8.get("threads") != k16.get("threads"):
            extra += f" (k = 8 on {k8.get('threads')} threads, k = 16 on {k16.get('threads')}: not like for like)"
        extra += "."
    # the scenarios named: without --scenario the bench runs its default set, not this table's
    cmd = f"dcnsim bench --repeat {b['repeat']}" + "".join(f" --scenario {n}" for n in sc)
    return (f"{_stamp_line(b)}; median of {b['repeat']} runs each, one fresh process per scenario "
            f"(`{cmd}`).{extra}\n\n" + "\n".join(rows))


def render_soak(r: Dict[str, Any]) -> str:
    b = r["soak"]
    rows = ["| stop | events | wall | peak RSS |", "|---|---|---|---|"]
    for s in b["scenarios"].values():
        rows.append(f"| {s['sim_s']:.4g} s | {_m(s['events'])} | {s['wall_s']:.1f} s | {s['peak_rss_mb']:.1f} MB |")
    return (f"{_stamp_line(b)} (`dcnsim bench --scenario soak`, a fresh process per stop; the process "
            "holds the interpreter and the core, no numpy or pandas).\n\n" + "\n".join(rows))


def _rss(mb: Any) -> str:
    return "—" if mb is None else f"{mb:.1f} MB"


def render_startup(r: Dict[str, Any]) -> str:
    b = r["startup"]
    rows = ["| command | CPU, clean interpreter | CPU, as configured | peak RSS | `dcnsim.run` in-process CPU "
            "| heavy packages imported |", "|---|---|---|---|---|---|"]
    bare = b["bare_cpu_s"]
    rows.append(f"| `python -c pass` | {bare['clean']:.3f} s | {bare['as configured']:.3f} s | | | |")
    for label, s in b["commands"].items():
        incast = _startup_module().INCAST
        cmd = {"--version": "`dcnsim --version`", "validate": "`dcnsim validate FILE`",
               "run (tiny)": "`dcnsim run FILE` (tiny)",
               **{f"run {k}": f"`dcnsim run FILE`: {v}" for k, v in incast.items()}}.get(label, f"`dcnsim {label}`")
        core = f"{s['core_cpu_s']:.3f} s" if "core_cpu_s" in s else ""
        rows.append(f"| {cmd} | {s['clean']['cpu_s']:.3f} s | {s['as configured']['cpu_s']:.3f} s "
                    f"| {_rss(s['clean']['peak_rss_mb'])} | {core} | {', '.join(s['heavy_imports']) or 'none'} |")
    return (f"{_stamp_line(b)} ({b['load_average'][1]} after); median of {b['repeat']} fresh processes per "
            f"command and interpreter, interleaved (`python benchmarks/startup.py --repeat {b['repeat']}`). "
            "Clean: a virtual environment whose start-up runs no site hook, bytecode cached (a `pip install`); "
            "as configured: this machine's interpreter, whose site-packages hook imports certifi at every "
            "start and whose environment sets PYTHONDONTWRITEBYTECODE.\n\n" + "\n".join(rows))


def render_htsim(r: Dict[str, Any]) -> str:
    b = r.get("htsim")
    if not b:
        return "Not recorded yet: `python benchmarks/record.py --only htsim --htsim HTSIM_BINARY`."
    rows = ["| k | hosts | dcnsim threads: asked (used) | dcnsim process: wall / CPU (core) "
            "| dcnsim packet-hops (from deliveries) "
            "| htsim process: wall / CPU | htsim packet-hops (its log) | htsim / dcnsim delivered packets "
            "| ratio per CPU s (median of pairs) | per wall s | htsim retries |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in b["rows"]:
        # rows recorded before the script took --threads ran `auto`, the threads used unrecorded
        used = ", ".join(map(str, k.get("threads_used", []))) or "not recorded"
        rows.append(f"| {k['k']} | {k['hosts']:,} | {k.get('threads', 'auto')} ({used}) "
                    f"| {k['dcnsim_wall_s']:.2f} s / {k['dcnsim_cpu_s']:.2f} s "
                    f"({k['dcnsim_core_s']:.2f} s) | {_m(k['dcnsim_hops'])} ({_m(k['dcnsim_hops_from_deliveries'])}) "
                    f"| {k['htsim_wall_s']:.2f} s / {k['htsim_cpu_s']:.2f} s | {_m(k['htsim_hops'])} "
                    f"| {k['delivered_ratio']:.3f} | {k['ratio_cpu']:.2f}× | {k['ratio_wall']:.2f}× | {k['retries']} |")
    return (f"{_stamp_line(b)}; {b['pairs']} interleaved pairs per k "
            f"(`python benchmarks/htsim_side_by_side.py HTSIM --pairs {b['pairs']}"
            f"{' --threads ' + ' '.join(map(str, b['threads'])) if 'threads' in b else ''}`), htsim {b['htsim']}.\n\n"
            + "\n".join(rows))


def render_ns3(r: Dict[str, Any], section: str = "ns3") -> str:
    b = r.get(section)
    if not b:
        return f"Not recorded yet: `python benchmarks/record.py --only {section} --ns3`."
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import ns3_side_by_side

    # the scenarios its rows measured, named: the command reproduces the table whatever the default
    which = " --scenario " + " ".join(dict.fromkeys(r.get("scenario") for r in b["rows"] if r.get("scenario"))
                                      or NS3[section])
    return (f"{_stamp_line(b)} ({b['load_average']} after); ns-3 {b['ns3']}, {b['pairs']} interleaved pairs per "
            f"scenario, ratios the median over pairs{ns3_side_by_side.interval_note(b)} (`python "
            f"benchmarks/ns3_side_by_side.py --pairs {b['pairs']}{which}`).\n\n" + ns3_side_by_side.markdown(b))


RENDER: Dict[str, Callable[[Dict[str, Any]], str]] = {
    "machine": render_machine, "bench": render_bench, "soak": render_soak, "startup": render_startup,
    "htsim": render_htsim, "ns3": render_ns3, "ns3_perm": lambda r: render_ns3(r, "ns3_perm"),
}

#: A block: its opening marker, its body (never another block's marker:
#: an empty body must not reach into the next block) and its closing marker.
BLOCK = re.compile(r"(<!-- results\.json: (\w+) -->\n)((?:(?!<!-- /?results\.json).)*?)(<!-- /results\.json -->)", re.S)


def blocks(text: str) -> List[tuple]:
    """(name, body) of every results.json block of a doc."""
    return [(m.group(2), m.group(3).rstrip("\n")) for m in BLOCK.finditer(text)]


def render_doc(text: str, results: Dict[str, Any]) -> str:
    def sub(m: "re.Match[str]") -> str:
        name = m.group(2)
        if name not in RENDER:
            raise KeyError(f"unknown results.json block {name!r}")
        return m.group(1) + RENDER[name](results) + "\n" + m.group(4)

    return BLOCK.sub(sub, text)


def load(path: Path = RESULTS) -> Dict[str, Any]:
    if not path.exists():
        return {}
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        # every later run, --docs-only too, starts here: say which file and what to do
        raise SystemExit(f"{path}: not valid JSON ({e}); restore it (git checkout -- {path}) "
                         "and record the sections again") from None
    if not isinstance(results, dict):
        raise SystemExit(f"{path}: not a results file (a JSON {type(results).__name__}, not an object); "
                         f"restore it (git checkout -- {path})")
    return results


def _write(path: Path, text: str) -> None:
    # atomic: an interrupted or failed write leaves the old file whole,
    # never a truncated results.json that every later run would stop on
    from dcnsim._atomic import atomic_write

    atomic_write(path, lambda fh: fh.write(text))


def save(results: Dict[str, Any], path: Path = RESULTS) -> None:
    _write(path, json.dumps(results, indent=2, ensure_ascii=False) + "\n")


def write_docs(results: Dict[str, Any]) -> List[Path]:
    changed = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        new = render_doc(text, results)
        if new != text:
            _write(doc, new)
            changed.append(doc)
    return changed


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=SECTIONS, help="measure these sections, keep the others")
    ap.add_argument("--htsim", help="stock htsim_dctcp_permutation binary: measure the htsim section too")
    ap.add_argument("--pairs", type=int, default=3, help="htsim pairs per k, ns-3 pairs per scenario (default 3)")
    ap.add_argument("--ns3", action="store_true", help="measure the ns3 section too (needs ns-3 installed)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per bench scenario, processes per startup "
                                                         "command x 2 (default 3)")
    ap.add_argument("--docs-only", action="store_true", help="only rewrite the doc tables from the file")
    a = ap.parse_args(argv)
    for flag, value in (("--repeat", a.repeat), ("--pairs", a.pairs)):
        if value < 1:
            ap.error(f"{flag}: at least 1, got {value}")
    results = load()
    if not a.docs_only:
        wanted = a.only or [s for s in SECTIONS if (s != "htsim" or a.htsim) and (s not in NS3 or a.ns3)]
        if "htsim" in wanted and not a.htsim:
            ap.error("the htsim section needs --htsim HTSIM_BINARY")
        for sec in NS3:
            if sec in wanted and not a.ns3:
                ap.error(f"the {sec} section needs --ns3 (and ns-3 installed)")
        results["machine"] = machine()  # every record's, --only too: an older one would name another CPU
        for sec in wanted:
            print(f"recording {sec} ...", file=sys.stderr)
            st = stamp()
            if sec == "startup":
                data = measure_startup(2 * a.repeat + 1)
            elif sec == "bench":
                data = measure_bench(BENCH, a.repeat)
            elif sec == "soak":
                data = measure_bench(SOAK, 1)
            elif sec in NS3:
                data = measure_ns3(a.pairs, sec)
            else:
                data = measure_htsim(a.htsim, a.pairs)
            results[sec] = {"stamp": st, **data}
            # each section as soon as it is measured: an interrupted run keeps what it has
            save(results)
    for doc in write_docs(results):
        print(f"rewrote the results.json tables of {doc.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
