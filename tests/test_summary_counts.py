"""`threads` and `workers` (how many partitions and worker threads ran a
run) are counts: ints in `Result.timing`, `summary.json` and a sweep's
table, as every other count there; a `summary.json` written when they were
floats (`1.0`) reads the same when a sweep resumes it."""

from __future__ import annotations

import json

import dcnsim
import pandas as pd
from conftest import needs_core
from dcnsim.result import int_counts
from dcnsim.sweep import grid, run_sweep

pytestmark = needs_core


def test_int_counts_reads_old_floats_and_leaves_the_rest():
    rec = {"threads": 2.0, "workers": 1.0, "wall_s": 1.0, "events": 5}
    assert int_counts(rec) == {"threads": 2, "workers": 1, "wall_s": 1.0, "events": 5}
    assert type(rec["threads"]) is int and type(rec["wall_s"]) is float
    assert int_counts({"threads": "auto"}) == {"threads": "auto"}  # not a count: as it is


def test_summary_json_writes_threads_and_workers_as_integers(small_incast_path, tmp_path):
    r = dcnsim.run(small_incast_path)
    assert type(r.timing["threads"]) is int and type(r.timing["workers"]) is int
    assert type(r.timing["wall_s"]) is float
    r.write(tmp_path / "r")
    text = (tmp_path / "r" / "summary.json").read_text()
    summary = json.loads(text)
    assert type(summary["threads"]) is int and type(summary["workers"]) is int, text
    assert type(summary["events"]) is int


def test_a_sweep_resuming_an_older_float_summary_keeps_the_columns_integer(small_incast_path, tmp_path):
    out = tmp_path / "sw"
    pts = grid(small_incast_path, {"apps.0.blocks": [1, 2]})
    run_sweep(pts[:1], out, jobs=1, progress=False)
    # as a dcnsim that wrote them as floats left it
    s = out / pts[0].label / "summary.json"
    old = json.loads(s.read_text())
    old.update(threads=float(old["threads"]), workers=float(old["workers"]))
    s.write_text(json.dumps(old, indent=2) + "\n")
    assert '"threads": 1.0' in s.read_text()

    df = run_sweep(pts, out, jobs=1, progress=False)
    assert df.attrs["computed"] == [pts[1].label]  # the old point resumed, the other ran now
    for col in ("threads", "workers"):
        assert pd.api.types.is_integer_dtype(df[col]), df[col]
