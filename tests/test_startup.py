"""Every command imports only what it uses: `dcnsim --version`, `validate`,
a run printing its summary (and writing small CSV tables) and the bench
child start without numpy, pandas, pyarrow, matplotlib, Optuna or Dask.
Checked in a fresh interpreter (this one has pandas loaded already); which
modules got imported, not how long it took (benchmarks/startup.py measures
that, and benchmarks/results.json records it). Since issue 48 also: the
version comes from the build (no importlib.metadata), and `--version` and a
run load neither the scenario builders' dataclasses nor typing."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, needs_core

HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "optuna", "dask", "distributed")

# Runs the command line in-process, then reports what is loaded; SystemExit
# (argparse's --version and --help) counts as having run.
PROBE = """
import json, sys
argv = json.loads(sys.argv[1])
from dcnsim.cli import main
try:
    rc = main(argv)
except SystemExit as e:
    rc = e.code or 0
sys.stdout.flush()
print("\\nLOADED " + json.dumps({"rc": rc, "heavy": sorted(m for m in sys.modules if m.split('.')[0] in %r)}))
""" % (HEAVY,)


def loaded_by(*argv: str, code: str = PROBE) -> dict:
    r = subprocess.run([sys.executable, "-c", code, json.dumps(list(argv))], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONHASHSEED": "0"})
    last = [line for line in r.stdout.splitlines() if line.startswith("LOADED ")]
    assert last, f"probe failed: {r.stderr}"
    return json.loads(last[-1][len("LOADED "):])


@pytest.mark.parametrize("argv", [
    ("--version",),
    ("--help",),
    ("tune", "--help"),
    ("schema",),
])
def test_light_commands_import_nothing_heavy(argv):
    got = loaded_by(*argv)
    assert got["rc"] == 0 and got["heavy"] == [], got


@needs_core
def test_validate_and_a_run_with_its_summary_import_nothing_heavy():
    got = loaded_by("validate", str(DATA / "small_incast.toml"))
    assert got["rc"] == 0 and got["heavy"] == [], got
    # the summary has a hot-queue line (this incast drops): it too reads the core's columns
    got = loaded_by("run", str(DATA / "small_incast.toml"))
    assert got["rc"] == 0 and got["heavy"] == [], got


# The same probe, reporting which of these modules got loaded.
LIGHT_PROBE = PROBE.replace("m.split('.')[0] in %r" % (HEAVY,), "m in ('dcnsim.tuning', 'dcnsim.bench')")
assert LIGHT_PROBE != PROBE


@needs_core
def test_run_and_validate_skip_the_tune_and_bench_parsers():
    # argparse never asks a `run` about `tune` or `bench`: their modules stay
    # unloaded; `--help` still has them
    for argv in (("run", str(DATA / "small_incast.toml")), ("validate", str(DATA / "small_incast.toml")),
                 ("--version",)):
        got = loaded_by(*argv, code=LIGHT_PROBE)
        assert got["rc"] == 0 and got["heavy"] == [], (argv, got)
    from dcnsim.cli import build_parser

    helptext = build_parser().format_help()
    assert "tune" in helptext and "bench" in helptext


def test_a_subcommand_built_alone_parses_and_helps_as_in_the_whole_parser():
    # `main` builds only the subcommand a command line names: what argparse
    # makes of that line, and the subcommand's help and usage, are the same
    # as with every subcommand built
    from dcnsim.cli import COMMANDS, build_parser

    whole = build_parser()

    def subparsers(p):
        return next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction").choices

    assert list(subparsers(whole)) == list(COMMANDS)
    lines = {
        "run": ["run", "x.toml", "--seed", "7", "--set", "tcp.cc=dctcp", "--threads", "2", "--format", "parquet"],
        "validate": ["validate", "a.toml", "b.toml", "--set", "topology.buffer=32KB"],
        "schema": ["schema"],
        "demo": ["demo", "--quick", "--seeds", "1,2"],
        "model": ["model", "dctcp", "--k", "30"],
    }
    for name in COMMANDS:
        alone = build_parser(only=name)
        assert list(subparsers(alone)) == [name]
        assert subparsers(alone)[name].format_help() == subparsers(whole)[name].format_help()
        if name in lines:
            got, want = alone.parse_known_args(lines[name]), whole.parse_known_args(lines[name])
            assert vars(got[0]) == vars(want[0]) and got[1] == want[1], name


@needs_core
def test_a_run_writing_small_csv_tables_imports_nothing_heavy(tmp_path):
    got = loaded_by("run", str(DATA / "small_incast.toml"), "--out", str(tmp_path / "out"))
    assert got["rc"] == 0 and got["heavy"] == [], got
    assert (tmp_path / "out" / "flows.csv").exists() and (tmp_path / "out" / "summary.json").exists()


@needs_core
def test_small_tables_written_without_pandas_equal_pandas_csv(tmp_path):
    # Every table of a run with queries (NaN QCTs are possible), blocks and
    # losses, written by the standard library and by pandas: the same bytes.
    import io

    import dcnsim
    from dcnsim.result import _write_csv

    paths = [DATA / "small_incast.toml", *sorted((DATA / "golden").glob("*.toml"))]
    assert len(paths) > 2
    for path in paths:
        r = dcnsim.run(path)
        for name in r.tables:
            plain = io.StringIO()
            r.tables._write_csv(name, plain)
            ref = io.StringIO()
            _write_csv(r.tables[name], ref)
            assert plain.getvalue() == ref.getvalue(), (path.name, name)
    # floats pandas writes its own way: NaN (empty), inf, -0.0, tiny and huge
    import array

    import pandas as pd
    from dcnsim.result import _write_csv_plain

    odd = array.array("d", [math.nan, math.inf, -math.inf, -0.0, 1e-300, 1.5e300, 0.1, 3.0, 123456789.123456789])
    cols = {"x": odd, "n": array.array("q", range(len(odd))), "b": array.array("B", [0, 1] * 4 + [1]),
            "s": ["a", "b,c", 'd"e', "", "f\ng", "h", "i", "j", "k"]}
    plain = io.StringIO()
    _write_csv_plain(cols, ["b"], plain)
    df = pd.DataFrame({"x": list(odd), "n": list(cols["n"]), "b": [bool(v) for v in cols["b"]], "s": cols["s"]})
    ref = io.StringIO()
    _write_csv(df, ref)
    assert plain.getvalue() == ref.getvalue()


def test_percentile_without_numpy_is_numpys_to_the_bit():
    import random

    import numpy as np
    from dcnsim.result import _pct

    rng = random.Random(5)
    for n in (1, 2, 3, 7, 100, 1001):
        xs = [rng.lognormvariate(-6, 2) for _ in range(n)]
        for q in (0, 1, 25, 50, 90, 99, 99.9, 100):
            assert _pct(xs, q) == float(np.percentile(np.asarray(xs), q)), (n, q)


@needs_core
def test_result_builds_a_dataframe_on_first_access_only():
    code = """
import json, sys
import dcnsim
r = dcnsim.run(%r)
m = r.metrics, r.summary_record(), repr(r), "flows" in r.tables, r.tables.rows("flows")
before = "pandas" in sys.modules
flows = r.flows
cols = r.tables.columns("flows")
same = list(flows.columns) == list(cols) and all((flows[c].to_numpy() == cols[c]).all() for c in cols)
print("LOADED " + json.dumps({"before": before, "after": "pandas" in sys.modules, "same": bool(same),
                              "rows": len(flows), "n_flows": m[0]["n_flows"]}))
""" % str(DATA / "small_incast.toml")
    got = loaded_by("x", code=code)
    assert got == {"before": False, "after": True, "same": True, "rows": got["n_flows"], "n_flows": got["n_flows"]}
    assert got["rows"] > 0


@needs_core
def test_the_bench_child_imports_only_the_core():
    code = """
import contextlib, io, json, sys, runpy
sys.argv = ["dcnsim.bench", "longflows_64", "2"]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        runpy.run_module("dcnsim.bench", run_name="__main__")
    except SystemExit as e:
        assert not e.code, e.code
print("LOADED " + json.dumps({"heavy": sorted(m for m in sys.modules if m.split('.')[0] in %r),
                              "cli": "dcnsim.cli" in sys.modules, "record": json.loads(out.getvalue())}))
""" % (HEAVY,)
    got = loaded_by("x", code=code)
    assert got["heavy"] == [] and not got["cli"], got
    # the one child ran both repeats
    rec = got["record"]
    assert rec["scenario"] == "longflows_64" and len(rec["walls_s"]) == 2 and rec["events"] > 0


@needs_core
def test_the_summary_read_from_columns_agrees_with_the_tables():
    # the hot-queue line, now computed without pandas, against the DataFrame
    import dcnsim
    from dcnsim.cli import format_summary

    r = dcnsim.run(DATA / "small_incast.toml")
    text = format_summary(r)
    qi = r.queue_inputs
    q = qi.groupby("queue_id")["dropped"].sum().idxmax()
    part = qi[qi["queue_id"] == q]
    line = next(x for x in text.splitlines() if "hot queue" in x)
    dropping = part[part["dropped"] > 0]
    assert f"(queue {q})" in line and line.count("%") == len(dropping)  # four inputs: all that dropped named
    spared = len(part) - len(dropping)
    assert line.endswith(f", {spared} without drops") if spared else "without drops" not in line, line
    for row in dropping.itertuples():
        assert f"{row.input_from} {row.dropped / row.offered:.1%}" in line, (row, line)
    m = r.metrics
    assert m["n_flows"] == len(r.flows) and m["drops"] == int(r.flows["drops"].sum())
    assert m["n_completed"] == int(r.flows["completed"].sum())


# What a command loads beyond what the interpreter had before it started
# (this machine's site hooks may preload modules dcnsim itself never needs).
NEW_PROBE = PROBE.replace("argv = json.loads", "before = set(sys.modules)\nargv = json.loads").replace(
    "sorted(m for m in sys.modules if m.split('.')[0] in %r)" % (HEAVY,), "sorted(set(sys.modules) - before)")
assert "before = set" in NEW_PROBE and "sys.modules) - before" in NEW_PROBE

# The start-up of issue 48: the version from the core, the builders'
# dataclasses, the TOML reader and the atomic writer's tempfile where used.
NEVER_AT_START = ("importlib.metadata", "dcnsim.scenario", "dataclasses")


@needs_core
def test_version_and_a_run_load_neither_metadata_nor_the_builders(tmp_path):
    from dcnsim._document import load_scenario

    got = loaded_by("--version", code=NEW_PROBE)
    assert got["rc"] == 0
    assert not {*NEVER_AT_START, "dcnsim.result", "tomllib", "tempfile", "typing"} & set(got["heavy"]), got
    # a run of a JSON file: no TOML reader; without --out, no tempfile
    doc = tmp_path / "tiny.json"
    doc.write_text(json.dumps(load_scenario(DATA / "small_incast.toml")))
    got = loaded_by("run", str(doc), code=NEW_PROBE)
    assert got["rc"] == 0 and "dcnsim.result" in got["heavy"], got
    assert not {*NEVER_AT_START, "tomllib", "tempfile", "typing"} & set(got["heavy"]), got
    got = loaded_by("run", str(DATA / "small_incast.toml"), code=NEW_PROBE)
    assert got["rc"] == 0 and "tomllib" in got["heavy"] and not set(NEVER_AT_START) & set(got["heavy"]), got


def test_lazy_names_are_the_modules_objects():
    # `dcnsim.Star`, `dcnsim.load_scenario`, `dcnsim.result` load on first
    # use and are the very objects of their modules
    code = """
import json, sys
import dcnsim
loaded = "dcnsim.scenario" in sys.modules
from dcnsim import scenario, _document
same = (dcnsim.Star is scenario.Star and dcnsim.load_scenario is scenario.load_scenario is _document.load_scenario
        and dcnsim.Result is dcnsim.result.Result and set(dcnsim.__all__) <= set(dir(dcnsim))
        and not {"annotations", "TYPE_CHECKING"} & set(dir(dcnsim))
        and all(getattr(dcnsim, n) is getattr(scenario, n) for n in scenario.__all__ if n[0].isupper()))
try:
    dcnsim.no_such_name
    missing = False
except AttributeError as e:
    missing = "no_such_name" in str(e)
print("LOADED " + json.dumps({"before": loaded, "same": same, "missing": missing}))
"""
    assert loaded_by("x", code=code) == {"before": False, "same": True, "missing": True}


REPO = DATA.parent.parent


@needs_core
def test_the_version_is_the_one_the_build_writes(tmp_path):
    # One source: the Cargo workspace's version. pyproject.toml declares the
    # version dynamic, so maturin writes Cargo's into the wheel's metadata;
    # the build compiles the same into the core, where __version__ reads it.
    import dcnsim
    from dcnsim.scenario import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project.get("dynamic", []), project
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    assert dcnsim.__version__ == dcnsim.core_version() == cargo
    # what `pip install .` or `pip install -e .` would record (maturin's PEP 517 metadata hook)
    maturin = shutil.which("maturin")
    if maturin is None:
        pytest.skip("maturin is not installed: the wheel's metadata is not checked")
    r = subprocess.run([maturin, "pep517", "write-dist-info", "--metadata-directory", str(tmp_path)], cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    (meta,) = tmp_path.glob("dcnsim-*.dist-info/METADATA")
    version = next(line.split(":", 1)[1].strip() for line in meta.read_text().splitlines()
                   if line.startswith("Version:"))
    assert version == dcnsim.__version__


# A run without --out loads none of these (issue 48, the process's start):
# pathlib (which brings urllib.parse and ipaddress; a scenario file is read
# with os.path), shutil (argparse asked it for the terminal's width for each
# argument it was given), threading and csv (used only where they are).
NOT_FOR_A_RUN = ("pathlib", "urllib.parse", "ipaddress", "shutil", "threading", "csv", "tempfile")

# NEW_PROBE without the site hooks (-S: no .pth file preloads anything, so
# "not loaded" means dcnsim did not load it), dcnsim found on PYTHONPATH.
BARE_PROBE = NEW_PROBE.replace('print("\\nLOADED " + json.dumps({',
                               'print("\\nLOADED " + json.dumps({"at_start": sorted(before), ')
assert BARE_PROBE != NEW_PROBE


@needs_core
def test_a_run_without_out_loads_no_path_terminal_or_thread_module(tmp_path):
    import dcnsim

    env = {**os.environ, "PYTHONHASHSEED": "0",
           "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(dcnsim.__file__)))}
    for argv in (("run", str(DATA / "small_incast.toml")), ("validate", str(DATA / "small_incast.toml")),
                 ("--version",)):
        r = subprocess.run([sys.executable, "-S", "-c", BARE_PROBE, json.dumps(list(argv))], capture_output=True,
                           text=True, timeout=120, env=env)
        last = [line for line in r.stdout.splitlines() if line.startswith("LOADED ")]
        assert last, f"probe failed: {r.stderr}"
        got = json.loads(last[-1][len("LOADED "):])
        assert got["rc"] == 0, (argv, got)
        assert not set(NOT_FOR_A_RUN) & set(got["at_start"]), got["at_start"]  # the check can fail
        assert not set(NOT_FOR_A_RUN) & set(got["heavy"]), (argv, sorted(set(NOT_FOR_A_RUN) & set(got["heavy"])))
    # a run of a JSON file (no TOML reader, so no typing) without --out loads
    # neither the atomic writer (with contextlib) nor `copy` (with weakref):
    # the document is read fresh, and every command's stream guard is apart
    from dcnsim._document import load_scenario

    doc = tmp_path / "tiny.json"
    doc.write_text(json.dumps(load_scenario(DATA / "small_incast.toml")))
    r = subprocess.run([sys.executable, "-S", "-c", BARE_PROBE, json.dumps(["run", str(doc)])], capture_output=True,
                       text=True, timeout=120, env=env)
    got = json.loads([line for line in r.stdout.splitlines() if line.startswith("LOADED ")][-1][len("LOADED "):])
    not_for_json = {"dcnsim._atomic", "contextlib", "copy", "weakref"}
    assert got["rc"] == 0 and "dcnsim._streams" in got["heavy"], got  # the check can fail
    assert not not_for_json & set(got["at_start"]), got["at_start"]
    assert not not_for_json & set(got["heavy"]), sorted(not_for_json & set(got["heavy"]))
    # where a run writes its tables it loads what writing takes
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-S", "-c", BARE_PROBE,
                        json.dumps(["run", str(DATA / "small_incast.toml"), "--out", str(out)])],
                       capture_output=True, text=True, timeout=120, env=env)
    got = json.loads([line for line in r.stdout.splitlines() if line.startswith("LOADED ")][-1][len("LOADED "):])
    assert got["rc"] == 0 and {"pathlib", "csv", "tempfile"} <= set(got["heavy"]), got
    assert (out / "flows.csv").exists()


GC_PROBE = """
import gc, json, sys
import dcnsim.cli as cli
scenario = json.loads(sys.argv[1])[0]
seen = {}
run = cli.cmd_run
def spy(args):
    seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count())
    return run(args)
cli.cmd_run = spy
rc = cli.main(["run", scenario])
direct = dict(seen, after=gc.get_freeze_count())
sys.argv = ["dcnsim", "run", scenario]
from dcnsim._entry import entry
rc2 = entry()
sys.stdout.flush()
print("\\nLOADED " + json.dumps({"rc": [rc, rc2], "direct": direct, "entry": seen,
                                 "after": gc.get_freeze_count()}))
"""


@needs_core
def test_the_process_entry_runs_the_command_with_its_start_up_frozen():
    # `dcnsim` (console script, python -m) starts through dcnsim._entry: the
    # collector off while the command starts, what the start made frozen
    # (no collection walks it again, nor the one at exit), the command itself
    # with the collector on; main() called from Python leaves the collector alone
    got = loaded_by(str(DATA / "small_incast.toml"), code=GC_PROBE)
    assert got["rc"] == [0, 0], got
    assert got["direct"] == {"enabled": True, "frozen": 0, "after": 0}, got
    assert got["entry"]["enabled"] and got["entry"]["frozen"] > 1000, got
    assert got["after"] > 1000, got  # frozen again at the end: the collection at exit walks nothing
    # both ways a user starts the command go through it
    import importlib

    import dcnsim._entry
    from dcnsim.scenario import tomllib

    target = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]["dcnsim"]
    module, func = target.split(":")
    assert getattr(importlib.import_module(module), func) is dcnsim._entry.entry
    assert "from ._entry import entry" in (REPO / "python" / "dcnsim" / "__main__.py").read_text()


def test_the_help_is_as_wide_as_argparse_makes_it(monkeypatch):
    # dcnsim's formatter reckons the width without importing shutil; it must
    # be the one argparse's own formatter takes from shutil.get_terminal_size
    from dcnsim.cli import _help_width, build_parser

    for columns in ("50", "133", "0", "x", None):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert _help_width() == shutil.get_terminal_size().columns - 2, columns
    monkeypatch.setenv("COLUMNS", "60")
    lines = build_parser().format_help().splitlines()
    assert max(len(line) for line in lines) <= 58 < max(len(line) for line in lines) + 10, lines


@needs_core
def test_a_string_column_holds_one_object_per_distinct_string():
    # equal strings cross as one Python object (tables.rs: a run of equal
    # ones without hashing, the rest through a map): columns of a few kinds
    # repeated thousands of times cost neither memory nor time per row
    from dcnsim import _core
    from dcnsim._document import load_scenario, to_json

    raw = _core.run(to_json(load_scenario(DATA / "small_incast.toml")), None)
    seen = 0
    for name, table in raw["tables"].items():
        for col, values in table.items():
            if isinstance(values, list) and values and isinstance(values[0], str):
                seen += 1
                assert len({id(v) for v in values}) == len(set(values)), (name, col)
    assert seen >= 3  # node names, queue names, loss kinds
    kinds = raw["tables"]["losses"]["kind"]
    assert set(kinds) <= {"timeout", "fast_retransmit"} and len(kinds) > 2
