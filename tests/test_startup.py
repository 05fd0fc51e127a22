"""Every command imports only what it uses: `dcnsim --version`, `validate`,
a run printing its summary and the bench child start without pandas,
pyarrow, matplotlib, Optuna or Dask. Checked in a fresh interpreter (this
one has pandas loaded already); which modules got imported, not how long
it took (benchmarks/startup.py measures that)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import DATA, needs_core

HEAVY = ("pandas", "pyarrow", "matplotlib", "optuna", "dask", "distributed")

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
