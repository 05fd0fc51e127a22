"""Sweeps: parallel, resumable, deterministic."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import dcnsim
import pandas as pd
import pytest
from conftest import DATA, SCENARIOS, needs_core, small_incast, small_pa
from dcnsim.sweep import Point, SweepError, grid, point_dir, run_sweep


# a rerun over complete points of another scenario or core says so, and which
def replacing(what="(scenario|dcnsim core)"):
    return pytest.warns(dcnsim.DcnsimWarning, match=f"held complete results of another {what}")

pytestmark = needs_core

TABLES = ("flows", "queues", "blocks")


def points():
    base = small_incast().to_dict()
    return grid(base, {"topology.buffer": ["16KB", "64KB"]}, seeds=[1, 2])


def table_bytes(d):
    return {t: (d / f"{t}.csv").read_bytes() for t in TABLES}


def test_grid_labels_and_params():
    pts = points()
    assert [p.label for p in pts] == [
        "topology.buffer=16KB__seed=1", "topology.buffer=16KB__seed=2",
        "topology.buffer=64KB__seed=1", "topology.buffer=64KB__seed=2",
    ]
    assert pts[2].scenario["topology"]["buffer"] == "64KB"
    assert pts[3].params == {"topology.buffer": "64KB", "seed": 2}


def test_sweep_rows_in_point_order_with_params(tmp_path):
    pts = points()
    df = run_sweep(pts, tmp_path, jobs=2, progress=False)
    assert list(df["label"]) == [p.label for p in pts]
    assert list(df["topology.buffer"]) == ["16KB", "16KB", "64KB", "64KB"]
    assert list(df["seed"]) == [1, 2, 1, 2]
    assert sorted(df.attrs["computed"]) == sorted(p.label for p in pts)
    for p in pts:
        d = point_dir(tmp_path, p.label)
        assert (d / "summary.json").is_file() and (d / "flows.csv").is_file()
        # each point is exactly a plain run of its scenario and seed
        r = dcnsim.run(p.scenario, seed=p.seed)
        assert (d / "blocks.csv").read_text() == r.blocks.to_csv(index=False, lineterminator="\n")


def test_results_independent_of_worker_count(tmp_path):
    pts = points()
    a = run_sweep(pts, tmp_path / "one", jobs=1, progress=False)
    b = run_sweep(list(reversed(pts)), tmp_path / "two", jobs=2, progress=False)
    for p in pts:
        assert table_bytes(point_dir(tmp_path / "one", p.label)) == table_bytes(point_dir(tmp_path / "two", p.label))
    drop = ["wall_s"]
    b = b.set_index("label").loc[a["label"]].reset_index()
    pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop), check_like=True)


def test_resume_recomputes_only_missing(tmp_path):
    pts = points()[:2]
    run_sweep(pts, tmp_path, jobs=2, progress=False)
    keep, gone = (point_dir(tmp_path, p.label) for p in pts)
    mtime = (keep / "summary.json").stat().st_mtime_ns
    shutil.rmtree(gone)
    df = run_sweep(pts, tmp_path, jobs=2, progress=False)
    assert df.attrs["computed"] == [pts[1].label]
    assert (keep / "summary.json").stat().st_mtime_ns == mtime  # untouched
    assert (gone / "summary.json").is_file()
    # an interrupted point (tables but no summary.json) is recomputed too
    (gone / "summary.json").unlink()
    df2 = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert df2.attrs["computed"] == [pts[1].label]
    assert list(df2["label"]) == [p.label for p in pts]
    # nothing to do the third time
    assert run_sweep(pts, tmp_path, progress=False).attrs["computed"] == []


def test_a_scenario_json_of_the_users_own_where_a_point_goes_is_refused(tmp_path):
    """A point's directory is OUT/<label>: a scenario.json of the user's
    there (a study's own `base/scenario.json`) was adopted as the point's
    and replaced. Only the point's own document, its summary.json gone, is
    run again; a refused sweep writes nothing (no mark of a write left)."""
    from dcnsim.errors import OutputDirError
    from dcnsim.result import WRITING_MARK

    doc = small_incast().to_dict()
    mine = tmp_path / "base"
    mine.mkdir()
    (mine / "scenario.json").write_text('{"mine": true}\n')
    with pytest.raises(OutputDirError, match="holds scenario.json but no dcnsim run"):
        run_sweep([Point("base", doc, 1)], tmp_path, progress=False)
    assert (mine / "scenario.json").read_text() == '{"mine": true}\n'
    assert sorted(p.name for p in mine.iterdir()) == ["scenario.json"]
    # the point's own, refused for another point's invalid scenario: no mark
    run_sweep([Point("own", doc, 1)], tmp_path / "s", progress=False)
    own = point_dir(tmp_path / "s", "own")
    (own / "summary.json").unlink()
    bad = {**doc, "tcp": {"cc": "nosuch"}}
    with pytest.raises(dcnsim.ScenarioError):
        run_sweep([Point("own", doc, 1), Point("bad", bad, 1)], tmp_path / "s", progress=False)
    assert not (own / WRITING_MARK).exists()
    assert run_sweep([Point("own", doc, 1)], tmp_path / "s", progress=False).attrs["computed"] == ["own"]
    assert (own / "summary.json").is_file() and not (own / WRITING_MARK).exists()


def test_a_point_missing_a_trace_or_pcap_of_its_run_is_recomputed(tmp_path):
    """Only the tables every run writes were checked: a point whose
    flow_ts.csv or pcap was removed since was "resumed" without it, and
    a figure reading it failed on every rerun. summary.json lists every
    file of the run."""
    doc = small_pa(queries=2)
    doc["trace"] = {"interval": "1ms", "flows": True}
    doc["pcap"] = {"hosts": [0]}
    p = Point("x", doc, 1)
    run_sweep([p], tmp_path, progress=False)
    d = point_dir(tmp_path, "x")
    for gone in ("flow_ts.csv", "h0.pcap"):
        (d / gone).unlink()
        df = run_sweep([p], tmp_path, progress=False)
        assert df.attrs["computed"] == ["x"] and (d / gone).is_file(), gone
    assert run_sweep([p], tmp_path, progress=False).attrs["computed"] == []
    # a point stored in the other format is still told apart from one missing a file
    df = run_sweep([p], tmp_path, progress=False, format="parquet")
    assert df.attrs["reformatted"] == ["x"] and (d / "flow_ts.parquet").is_file()


def test_changed_scenario_is_recomputed(tmp_path):
    p = Point("x", small_pa(queries=2), 1)
    run_sweep([p], tmp_path, progress=False)
    q = Point("x", small_pa(queries=3), 1)
    with replacing("scenario: replacing"):
        df = run_sweep([q], tmp_path, progress=False)
    assert df.attrs["computed"] == ["x"]
    assert len(pd.read_csv(point_dir(tmp_path, "x") / "queries.csv")) == 3


def test_summary_names_the_core_and_another_core_invalidates_the_cache(tmp_path, monkeypatch):
    p = Point("x", small_pa(queries=2), 1)
    df = run_sweep([p], tmp_path, progress=False, jobs=1)
    rec = json.loads((point_dir(tmp_path, "x") / "summary.json").read_text())
    assert rec["core_version"] == dcnsim.core_version() and rec["core_build"] == dcnsim.core_build()
    assert len(rec["core_build"]) == 16 and rec["core_build"] != "unknown"  # a real source hash
    assert df["core_build"].iloc[0] == dcnsim.core_build()
    # same core: resumed
    assert run_sweep([p], tmp_path, progress=False, jobs=1).attrs["computed"] == []
    # a new build of the same version (its sources changed): recomputed
    real = dcnsim.core_build()
    monkeypatch.setattr(dcnsim, "core_build", lambda: "0123456789abcdef")
    # the warning tells a changed core from a changed scenario, and names both cores
    with replacing(rf"dcnsim core \({dcnsim.core_version()}\+{real}; this one is "
                   rf"{dcnsim.core_version()}\+0123456789abcdef\): replacing"):
        assert run_sweep([p], tmp_path, progress=False, jobs=1).attrs["computed"] == ["x"]
    monkeypatch.undo()
    # an older core's summary on disk (another version): recomputed, and rewritten by this core
    path = point_dir(tmp_path, "x") / "summary.json"
    old = json.loads(path.read_text())
    old["core_version"] = "0.0.1"
    path.write_text(json.dumps(old))
    with replacing(r"dcnsim core \(0\.0\.1\+"):
        assert run_sweep([p], tmp_path, progress=False, jobs=1).attrs["computed"] == ["x"]
    assert json.loads(path.read_text())["core_version"] == dcnsim.core_version()
    # a summary from before versioning (no core fields) is never trusted
    del old["core_version"], old["core_build"]
    path.write_text(json.dumps(old))
    with replacing(r"dcnsim core \(an unnamed core;"):
        assert run_sweep([p], tmp_path, progress=False, jobs=1).attrs["computed"] == ["x"]


def test_a_record_whose_metrics_other_code_derived_is_recomputed(tmp_path):
    """The record's goodput, Jain index and QCTs are derived in Python
    (result.py), not by the core: a point stored by the same core but
    derived by other code (a dcnsim whose metrics changed) is run again,
    and the warning says why, rather than resumed with the old numbers."""
    from dcnsim.result import metrics_build

    p = Point("x", small_pa(queries=2), 1)
    true = run_sweep([p], tmp_path, progress=False, jobs=1)["goodput_bps"].iloc[0]
    path = point_dir(tmp_path, "x") / "summary.json"
    rec = json.loads(path.read_text())
    assert rec["metrics_build"] == metrics_build() and len(metrics_build()) == 16
    assert run_sweep([p], tmp_path, progress=False, jobs=1).attrs["computed"] == []
    rec["metrics_build"], rec["goodput_bps"] = "0123456789abcdef", 1.0
    path.write_text(json.dumps(rec))
    with pytest.warns(dcnsim.DcnsimWarning, match=r"point 'x' held complete results whose metrics \(goodput, "
                                                  r"Jain, QCTs\) another dcnsim's Python code derived: replacing"):
        df = run_sweep([p], tmp_path, progress=False, jobs=1)
    assert df.attrs["computed"] == ["x"] and df["goodput_bps"].iloc[0] == true


def test_a_label_too_long_for_a_file_name_gets_a_short_directory_and_resumes(tmp_path):
    """Many single-valued --set axes make a label past a filesystem's 255
    bytes: its directory keeps the label's start and a hash of the whole,
    the point runs, and a second sweep resumes it; two long labels that
    differ only at the end get two directories."""
    from dcnsim.sweep import LONGEST_DIR_NAME

    a, b = "x" * 300 + "=1", "x" * 300 + "=2"
    da, db = point_dir(tmp_path, a), point_dir(tmp_path, b)
    assert da != db and len(da.name) == LONGEST_DIR_NAME and da.name.startswith("x" * 100)
    pts = [Point(a, small_pa(queries=2), 1), Point(b, small_pa(queries=2), 1)]
    df = run_sweep(pts, tmp_path, progress=False, jobs=1)
    assert list(df["label"]) == [a, b] and (da / "summary.json").is_file()
    assert run_sweep(pts, tmp_path, progress=False, jobs=1).attrs["computed"] == []


def _dying_run_point(marker):
    """``_run_point`` whose worker process is killed outright (as the OOM
    killer does) on a point of seed 13 while ``marker`` says so: always
    (``marker`` None) or once (the file is made then)."""
    import signal

    from dcnsim import sweep as sw

    real = sw._run_point

    def run(doc, out, format):
        if doc.get("seed") == 13 and (marker is None or not marker.exists()):
            if marker is not None:
                marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(doc, out, format)

    return run


def test_a_dead_worker_costs_no_point_but_its_own(tmp_path, monkeypatch):
    """A worker process killed outright breaks its pool and every point
    in it: the points left run in new workers (said in a warning naming
    the suspects), a point whose worker dies once more fails naming that,
    and the others complete as they would have."""
    from dcnsim import sweep as sw

    pts = [Point(f"s{seed}", small_pa(queries=2), seed) for seed in (1, 2, 13, 4, 5)]
    monkeypatch.setattr(sw, "_run_point", _dying_run_point(tmp_path / "died"))
    with pytest.warns(dcnsim.DcnsimWarning, match="a worker process died running one of .*'s13'"):
        df = run_sweep(pts, tmp_path / "once", progress=False, jobs=2)
    assert sorted(df["label"]) == ["s1", "s13", "s2", "s4", "s5"]
    monkeypatch.setattr(sw, "_run_point", _dying_run_point(None))
    with pytest.raises(SweepError) as e, pytest.warns(dcnsim.DcnsimWarning):
        run_sweep(pts, tmp_path / "always", progress=False, jobs=2)
    assert list(e.value.failures) == ["s13"]
    assert "worker process running it died 2 times" in e.value.failures["s13"]
    assert sorted(e.value.df["label"]) == ["s1", "s2", "s4", "s5"]


def test_invalid_point_fails_before_running(tmp_path):
    bad = small_pa()
    bad["topology"]["rate"] = "fast"
    with pytest.raises(dcnsim.ScenarioError) as e:
        run_sweep([("good", small_pa(), 1), ("bad", bad, 1)], tmp_path, progress=False)
    assert all(err.startswith("bad: ") for err in e.value.errors)
    assert any("topology.rate" in err for err in e.value.errors)
    assert not point_dir(tmp_path, "good").exists()


def test_duplicate_labels_rejected(tmp_path):
    from dcnsim.sweep import SweepLabelError

    with pytest.raises(SweepLabelError) as e:
        run_sweep([("a", small_pa(), 1), ("a", small_pa(), 2)], tmp_path, progress=False)
    assert isinstance(e.value, ValueError) and e.value.labels == ("a", "a")
    assert "label 'a' is given twice" in str(e.value)
    # labels that differ only in what a file name cannot hold share a directory too
    with pytest.raises(SweepLabelError) as e:
        run_sweep([("x=a/b", small_pa(), 1), ("x=a_b", small_pa(), 1)], tmp_path, progress=False)
    assert e.value.labels == ("x=a/b", "x=a_b") and e.value.directory == tmp_path / "x=a_b"
    assert "\n" not in str(e.value) and "'x=a/b' and 'x=a_b'" in str(e.value)
    assert list(tmp_path.iterdir()) == []  # refused before anything ran


def test_axis_clash_finds_values_that_would_share_a_directory():
    from dcnsim.sweep import axis_clash

    assert axis_clash("stop", ["10ms", "20ms"]) is None
    assert axis_clash("stop", ["10ms", "20ms", "10ms"]) == ("10ms", "10ms")
    assert axis_clash("name", ["a/b", "c", "a_b"]) == ("a/b", "a_b")
    assert axis_clash("apps.0.servers", [[1, 2], [1, 3]]) is None


@pytest.mark.parametrize("share, user, want", [(1, None, "1"), (0, None, None), (1, "3", "3")])
def test_workers_with_a_core_each_run_their_points_on_one_thread(share, user, want):
    """threads = "auto" (the default) counts the cores free when a run
    starts: a worker per core tells its runs that their share is one, so
    points starting together do not each cut their run across every core;
    fewer workers than cores leave it to the count of runnable tasks, and a
    user's own DCNSIM_FREE_CORES stands."""
    env = {k: v for k, v in os.environ.items() if k != "DCNSIM_FREE_CORES"}
    if user is not None:
        env["DCNSIM_FREE_CORES"] = user
    code = ("import os; from dcnsim.sweep import _worker_init; "
            f"_worker_init(max(1, (os.cpu_count() or 1) - 1 + {share})); "
            "print(os.environ.get('DCNSIM_FREE_CORES'))")
    cores = os.cpu_count() or 1
    if share == 0 and cores == 1:
        pytest.skip("one core: every worker count is a worker per core")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(want)


def _shipped(name: str, stop: str = "1ms") -> dict:
    from pathlib import Path

    from dcnsim.scenario import load_scenario

    doc = load_scenario(str(Path(__file__).resolve().parent.parent / "scenarios" / f"{name}.toml"))
    doc["stop"] = stop
    return doc


@pytest.mark.parametrize("name, threads, cores, want", [
    ("outcast_fattree", 2, 2, 2),      # ≈ 24 events a window: each point goes on one thread
    ("kulkarni_incast", 2, 8, 8),      # a star cannot be cut
    ("websearch_fattree", 2, 2, 1),    # cut in two: the two cores are one point's
    ("websearch_fattree", 2, 8, 4),
    ("websearch_fattree", 4, 8, 2),    # k = 4: four pods, four partitions
])
def test_a_sweeps_pool_shares_the_cores_with_the_threads_points_really_use(monkeypatch, name, threads, cores,
                                                                           want):
    from dcnsim.sweep import jobs_for_threads

    monkeypatch.delenv("DCNSIM_CUT", raising=False)
    pts = grid(_shipped(name), {"seed": [1, 2, 3]})
    assert jobs_for_threads(pts, threads, cores=cores) == want


def test_a_sweep_cut_as_asked_shares_the_cores_by_the_threads_asked(monkeypatch):
    from dcnsim.sweep import jobs_for_threads

    monkeypatch.setenv("DCNSIM_CUT", "always")
    assert jobs_for_threads(grid(_shipped("outcast_fattree"), {"seed": [1, 2]}), 2, cores=2) == 1


def test_the_most_threads_of_any_point_size_the_pool(monkeypatch):
    # an axis that makes one point cuttable: the pool is sized for it
    from dcnsim.sweep import jobs_for_threads

    monkeypatch.delenv("DCNSIM_CUT", raising=False)
    star = _shipped("kulkarni_incast")
    pts = grid(star, {"seed": [1]}) + grid(_shipped("websearch_fattree"), {"seed": [1]})
    assert jobs_for_threads(pts, 2, cores=4) == 2
    assert jobs_for_threads(pts[:1], 2, cores=4) == 4


def test_a_sweep_whose_points_go_on_one_thread_says_so_once_and_writes_their_tables(tmp_path, monkeypatch):
    from conftest import cli

    monkeypatch.delenv("DCNSIM_CUT", raising=False)
    base = tmp_path / "outcast.json"
    base.write_text(json.dumps(_shipped("outcast_fattree", "20ms")))
    r = cli("sweep", str(base), "--threads", "2", "--seeds", "1,2,3", "--out", str(tmp_path / "two"), "--no-progress")
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stderr.splitlines() if ln.startswith(("sweep:", "dcnsim:"))]
    assert len(said) == 1 and said[0].startswith("sweep: --threads 2: every point runs on one thread"), said
    r = cli("sweep", str(base), "--seeds", "1,2,3", "--out", str(tmp_path / "one"), "--no-progress")
    assert r.returncode == 0, r.stderr
    for seed in (1, 2, 3):
        a, b = tmp_path / "two" / f"seed={seed}", tmp_path / "one" / f"seed={seed}"
        assert table_bytes(a) == table_bytes(b)


def test_an_invalid_point_is_not_rewritten_around(tmp_path, monkeypatch):
    # "fifo" ties cannot run on two threads: the points must fail saying so,
    # not run on one thread because the sweep took them for uncuttable
    from conftest import cli
    from dcnsim.sweep import threads_used

    monkeypatch.delenv("DCNSIM_CUT", raising=False)
    doc = {**_shipped("websearch_fattree", "1ms"), "ties": "fifo"}
    assert threads_used(grid(doc, {"seed": [1]}), 2) == 2
    base = tmp_path / "fifo.json"
    base.write_text(json.dumps(doc))
    r = cli("sweep", str(base), "--seeds", "1", "--threads", "2", "--out", str(tmp_path / "out"), "--no-progress")
    assert r.returncode != 0 and "cannot run on more than one thread" in r.stderr + r.stdout, r.stderr
    assert "every point runs on one thread" not in r.stderr


def test_points_left_unplanned_past_the_budget_count_as_the_threads_asked(monkeypatch):
    from dcnsim.sweep import threads_used

    monkeypatch.delenv("DCNSIM_CUT", raising=False)
    pts = grid(_shipped("outcast_fattree"), {"seed": [1, 2, 3]})
    assert threads_used(pts, 2) == 1
    assert threads_used(pts, 2, budget_s=-1.0) == 2  # nothing planned: no rewrite, the pool as asked


def test_a_cluster_points_files_replace_an_earlier_run_as_a_local_write_does(tmp_path):
    # what a cluster worker sends back is stored as Result.write would write it
    from dcnsim.sweep import _store_files

    out = tmp_path / "p"
    dcnsim.run(small_incast()).write(out)  # pcaps h0, h1
    (out / "notes.txt").write_text("mine")
    fresh = tmp_path / "fresh"
    dcnsim.run(small_incast(pcap=None)).write(fresh, format="parquet")
    files = {f.name: f.read_bytes() for f in fresh.iterdir()}
    _store_files(out, files)
    assert {f.name for f in out.iterdir()} == set(files) | {"notes.txt"}
    assert all((out / n).read_bytes() == b for n, b in files.items())


def test_a_point_stored_in_the_other_format_is_run_again_in_the_one_asked(tmp_path):
    pts = points()[:2]
    run_sweep(pts, tmp_path, jobs=1, progress=False)
    d = point_dir(tmp_path, pts[0].label)
    old = pd.read_csv(d / "blocks.csv")
    df = run_sweep(pts, tmp_path, jobs=1, progress=False, format="parquet")
    assert df.attrs["computed"] == df.attrs["reformatted"] == [p.label for p in pts]
    for p in pts:
        names = {f.name for f in point_dir(tmp_path, p.label).iterdir()}
        assert {f"{t}.parquet" for t in TABLES} <= names and not any(n.endswith(".csv") for n in names), names
    # the same run, in the format asked
    pd.testing.assert_frame_equal(pd.read_parquet(d / "blocks.parquet"), old, check_dtype=False)
    again = run_sweep(pts, tmp_path, jobs=1, progress=False, format="parquet")
    assert again.attrs["computed"] == again.attrs["reformatted"] == []


def test_a_sweep_interrupted_before_it_rewrites_a_point_loses_none_of_it(tmp_path, monkeypatch):
    # complete results in CSV, then the sweep asked in parquet (or over
    # another scenario) and Ctrl-C before the first point is written: every
    # CSV point stays complete, and the CSV sweep resumes them all. (The
    # points' summaries were removed up front before, all of them lost.)
    import dcnsim.sweep as sw

    pts = points()[:2]
    run_sweep(pts, tmp_path, jobs=1, progress=False)

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(sw, "_run_point", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(pts, tmp_path, jobs=1, progress=False, format="parquet")
    other = [Point(p.label, dcnsim.with_overrides(p.scenario, {"topology.buffer": "64KB"}), p.seed) for p in pts]
    with pytest.raises(KeyboardInterrupt), pytest.warns(dcnsim.DcnsimWarning, match="replacing them"):
        run_sweep(other, tmp_path, jobs=1, progress=False)
    monkeypatch.undo()
    assert all((point_dir(tmp_path, p.label) / "summary.json").is_file() for p in pts)
    df = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert df.attrs["computed"] == []


def test_grid_refuses_seeds_given_both_ways():
    with pytest.raises(ValueError, match="seed: given both as an axis and as seeds="):
        grid(small_incast(), {"seed": [1, 2]}, seeds=[3])


@needs_core
def test_a_param_named_like_a_runs_figure_does_not_replace_it(tmp_path):
    """A point's params are labels; the run's own figures (the seed it ran,
    the threads it used) are facts. A param of the same name that differs
    goes beside it as `param_<name>`, with a warning; one that agrees is the
    one column it was."""
    pts = [Point("x", small_incast(), params={"seed": 5, "note": "hello"}),
           Point("y", small_incast(), params={"seed": 7})]
    with pytest.warns(dcnsim.DcnsimWarning, match=r"params.seed: differs from the seed the run reports \[point 'x'\]"):
        df = run_sweep(pts, tmp_path / "o", progress=False).set_index("label")
    ran = json.loads((point_dir(tmp_path / "o", "x") / "summary.json").read_text())["seed"]
    assert ran == small_incast().seed == 7
    assert df.loc["x", "seed"] == ran and df.loc["x", "param_seed"] == 5 and df.loc["x", "note"] == "hello"
    assert df.loc["y", "seed"] == 7 and pd.isna(df.loc["y", "param_seed"])


@needs_core
def test_another_thread_count_keeps_the_points_it_has(tmp_path):
    """Every thread count gives the same bits, so resuming a sweep with
    another `threads` reruns nothing (it reran every point); another
    scenario still reruns."""
    doc = dcnsim.with_overrides(SCENARIOS / "fattree_rps.toml", {"stop": "2ms", "threads": 1})
    first = run_sweep(grid(doc, {"topology.buffer": ["64KB", "128KB"]}), tmp_path, progress=False, jobs=1)
    assert len(first.attrs["computed"]) == 2
    for threads in (2, "auto"):
        again = run_sweep(grid(dcnsim.with_overrides(doc, {"threads": threads}), {"topology.buffer": ["64KB", "128KB"]}),
                          tmp_path, progress=False, jobs=1)
        assert again.attrs["computed"] == []
    with replacing():
        other = run_sweep(grid(dcnsim.with_overrides(doc, {"stop": "3ms"}), {"topology.buffer": ["64KB", "128KB"]}),
                          tmp_path, progress=False, jobs=1)
    assert len(other.attrs["computed"]) == 2


@needs_core
def test_replacing_another_scenarios_results_is_said_before_running(tmp_path):
    """Two sweeps sharing an out_dir by mistake: the second replaces the
    first's complete points (as it must: they are of another scenario), and
    says so before anything runs, as `run --out` does of a directory."""
    pts = [Point("x", small_incast(), 1), Point("y", small_incast(), 2)]
    run_sweep(pts, tmp_path, progress=False, jobs=1)
    other = [Point(p.label, dcnsim.with_overrides(small_incast(), {"topology.buffer": "64KB"}), p.seed) for p in pts]
    with pytest.warns(dcnsim.DcnsimWarning, match="2 of 2 points held complete results of another scenario: replacing"):
        df = run_sweep(other, tmp_path, progress=False, jobs=1)
    assert df.attrs["replaced"] == ["x", "y"] and df.attrs["computed"] == ["x", "y"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)
        assert run_sweep(other, tmp_path, progress=False, jobs=1).attrs["replaced"] == []


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_stopping_the_pool_prints_no_traceback_of_its_manager_thread(capfd):
    """Ctrl-C kills the workers; the pool's manager thread then marks the
    pool broken, and on CPython 3.11 that can raise (seen once in ~45
    interrupts: a traceback after "interrupted"). Forced here: whatever
    that thread raises while the pool is stopped is not printed."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from dcnsim.sweep import _stop_pool

    pool = ProcessPoolExecutor(max_workers=1)
    pool.submit(time.sleep, 30)
    time.sleep(0.5)  # the worker has started and holds the call
    manager = pool._executor_manager_thread

    def broken(cause):
        raise RuntimeError("the manager thread failed while the pool was stopped")

    manager.terminate_broken = broken
    _stop_pool(pool)
    assert not manager.is_alive()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "manager thread failed" not in err, err


def test_a_point_directory_blocked_by_a_file_is_refused_before_anything_runs(tmp_path, monkeypatch):
    import dcnsim.sweep as sw
    from dcnsim.errors import OutputDirError

    pts = points()[:2]
    point_dir(tmp_path, pts[1].label).write_text("a file where the point's directory goes")

    def never(*a, **k):
        raise AssertionError("a point ran")

    monkeypatch.setattr(sw, "_run_point", never)
    with pytest.raises(OutputDirError, match=f"point '{pts[1].label}'"):
        run_sweep(pts, tmp_path, jobs=1, progress=False)


def _failing_at_run_time(monkeypatch, bad):
    """Points whose label is in ``bad`` fail at run time (as a memory limit
    reached mid-run does: validation cannot see it)."""
    import dcnsim.sweep as sweep_mod

    real = sweep_mod._run_point

    def run_point(doc, out, format):
        if os.path.basename(out) in bad:
            raise dcnsim.ScenarioError([dcnsim.errors.Problem("limits.memory", "the run went over the limit")])
        return real(doc, out, format)

    monkeypatch.setattr(sweep_mod, "_run_point", run_point)


def test_a_failed_point_leaves_the_complete_points_table(tmp_path, monkeypatch, capsys):
    from dcnsim.sweep import SweepError

    pts = points()[:3]
    _failing_at_run_time(monkeypatch, {pts[1].label})
    with pytest.raises(SweepError, match="1 sweep point\\(s\\) failed") as e:
        run_sweep(pts, tmp_path, progress=True, jobs=1)
    assert list(e.value.failures) == [pts[1].label]
    df = e.value.df  # the completed points' table is not lost with the failure
    assert list(df["label"]) == [pts[0].label, pts[2].label]
    assert df.attrs["computed"] == [pts[0].label, pts[2].label] and list(df.attrs["failed"]) == [pts[1].label]
    # the bar counts the points complete, and says at once that one failed
    err = capsys.readouterr().err
    assert "2/3" in err and "1 failed" in err and "3/3" not in err


def test_cli_a_failed_point_writes_the_table_of_the_others_and_says_how_to_retry(tmp_path, monkeypatch, capsys):
    from dcnsim import cli

    out = tmp_path / "o"
    base = ["sweep", str(DATA / "small_incast.toml"), "--out", str(out), "--no-progress", "--jobs", "1"]
    # an earlier sweep in the same directory, of a point of this one
    assert cli.main(base + ["--set", "topology.buffer=16KB"]) == 0
    capsys.readouterr()
    _failing_at_run_time(monkeypatch, {"topology.buffer=32KB"})
    assert cli.main(base + ["--set", "topology.buffer=16KB,32KB,64KB"]) == 1
    res = capsys.readouterr()
    table = pd.read_csv(out / "sweep.csv")
    # every point, the failed 32KB without results, its status saying so
    assert list(table["label"]) == ["topology.buffer=16KB", "topology.buffer=32KB", "topology.buffer=64KB"]
    assert list(table["status"]) == ["done", "failed", "done"]
    assert pd.isna(table["events"].iloc[1]) and table["events"].iloc[[0, 2]].gt(0).all()
    # a count stays a count in the file beside the gap (not 9170.0)
    events = (out / "sweep.csv").read_text().splitlines()[1].split(",")[list(table.columns).index("events")]
    assert events.isdigit(), events
    assert "topology.buffer=16KB" in res.out and "topology.buffer=64KB" in res.out
    assert "topology.buffer=32KB: ScenarioError: limits.memory: the run went over the limit" in res.err
    assert res.err.rstrip().endswith("3 points (1 run, 1 failed, 1 resumed); finished points are kept (sweep.csv "
                                     "lists them); rerun the same command to retry the failed points")
    # another sweep, without this one's points, is refused before it runs
    # (it replaced this one's table, or, every point failing, removed it)
    _failing_at_run_time(monkeypatch, {"topology.buffer=128KB"})
    assert cli.main(base + ["--set", "topology.buffer=128KB"]) == 2
    assert "holds another sweep's table" in capsys.readouterr().err
    assert list(pd.read_csv(out / "sweep.csv")["label"]) == [f"topology.buffer={b}" for b in ("16KB", "32KB", "64KB")]


def test_cli_another_sweep_into_the_same_out_is_refused_the_same_one_resumes(tmp_path, capsys):
    # a second, different sweep into one --out replaced sweep.csv: the
    # first sweep's points stayed on disk, their table was gone
    from dcnsim import cli

    out = tmp_path / "o"
    base = ["sweep", str(DATA / "small_incast.toml"), "--out", str(out), "--no-progress", "--jobs", "1"]
    assert cli.main(base + ["--set", "topology.buffer=8KB,16KB"]) == 0
    capsys.readouterr()
    table = (out / "sweep.csv").read_bytes()
    # refused before anything runs, naming --out, what would be lost and how to go on
    assert cli.main(base + ["--set", "topology.buffer=32KB"]) == 2
    res = capsys.readouterr()
    assert res.out == ""
    assert res.err.startswith(f"sweep: --out {out}: holds another sweep's table: sweep.csv lists 2 points this sweep "
                              "does not have (topology.buffer=8KB, topology.buffer=16KB)"), res.err
    assert "Rerun that sweep's own command to resume it, give this sweep another --out, or move " \
           f"{out / 'sweep.csv'} away" in res.err, res.err
    assert (out / "sweep.csv").read_bytes() == table and not (out / "topology.buffer=32KB").exists()
    # the same sweep resumes; one that extends it runs its new points and lists every point
    assert cli.main(base + ["--set", "topology.buffer=8KB,16KB"]) == 0
    assert "2 points (0 run, 2 resumed)" in capsys.readouterr().out
    assert cli.main(base + ["--set", "topology.buffer=8KB,16KB,32KB"]) == 0
    assert "3 points (1 run, 2 resumed)" in capsys.readouterr().out
    assert list(pd.read_csv(out / "sweep.csv")["label"]) == [f"topology.buffer={b}" for b in ("8KB", "16KB", "32KB")]
    # a file of that name that is no sweep's table is not replaced either
    (out / "sweep.csv").rename(tmp_path / "first.csv")
    (out / "sweep.csv").write_text("my notes\n")
    assert cli.main(base + ["--set", "topology.buffer=32KB"]) == 2
    assert "holds a sweep.csv that is not a sweep's table (it has no label column)" in capsys.readouterr().err
    # the table moved away: the other sweep runs there, resuming the point it shares
    (out / "sweep.csv").unlink()
    assert cli.main(base + ["--set", "topology.buffer=32KB"]) == 0
    assert "1 point (0 run, 1 resumed)" in capsys.readouterr().out


def test_cli_sweep_holds_a_new_out_from_its_points_to_its_table(tmp_path, monkeypatch, capsys):
    # run_sweep made a new OUT, locked it for the points and let it go; the
    # table's write locked it again: in between another writer got in
    import threading

    from dcnsim import _atomic, cli, sweep
    from dcnsim.errors import OutputDirError

    out = tmp_path / "new" / "o"
    real = sweep.run_sweep
    got: list = []

    def other_writer() -> None:
        try:
            with _atomic.dir_lock(out):
                got.append("got in")
        except OutputDirError as e:
            got.append(str(e))

    def then_another_writer(*a, **kw):
        df = real(*a, **kw)
        # another thread is refused as another process is (dir_lock)
        t = threading.Thread(target=other_writer)
        t.start()
        t.join()
        return df

    monkeypatch.setattr(sweep, "run_sweep", then_another_writer)
    base = ["sweep", str(DATA / "small_incast.toml"), "--out", str(out), "--no-progress", "--jobs", "1"]
    assert cli.main(base + ["--set", "topology.buffer=8KB"]) == 0
    assert len(got) == 1 and "another dcnsim process is writing results there" in got[0], got
    assert (out / "sweep.csv").is_file()
    # a new OUT refused before any point runs is not left behind (nor its new parent)
    capsys.readouterr()
    bad = tmp_path / "other" / "o"
    assert cli.main(["sweep", str(DATA / "small_incast.toml"), "--out", str(bad), "--no-progress",
                     "--set", "topology.buffer=-8KB"]) == 2
    assert not (tmp_path / "other").exists()


def test_a_tables_label_lists_are_copied_whole_not_label_by_label(tmp_path):
    """pandas deep-copies a frame's attrs into every frame and row made from
    it; the sweep's label lists must not be walked element by element there
    (a paper's table of thousands of points spent half its analysis so),
    and each copy must still be a copy."""
    import copy

    pts = points()
    df = run_sweep(pts, tmp_path, jobs=1, progress=False)
    labels = {p.label for p in pts}
    seen = []

    def watch(frame, event, arg):
        # every object copy.deepcopy is called on, however it recursed
        if event == "call" and frame.f_code.co_name == "deepcopy" and frame.f_code.co_filename == copy.__file__:
            seen.append(frame.f_locals.get("x"))

    sys.setprofile(watch)
    try:
        row = next(df.iterrows())[1]
        sub = df[df["seed"] == 1]
        copied = copy.deepcopy(df.attrs)
    finally:
        sys.setprofile(None)
    assert seen, "the watch saw no deep copy"
    assert not labels & {x for x in seen if isinstance(x, str)}, "a label was deep-copied on its own"
    for attrs in (row.attrs, sub.attrs, copied):
        assert attrs["computed"] == df.attrs["computed"] and sorted(attrs["computed"]) == sorted(labels)
        assert attrs["failed"] == {} and attrs["replaced"] == []
    copied["computed"].append("extra")
    copied["failed"]["x"] = "y"
    assert "extra" not in df.attrs["computed"] and "x" not in df.attrs["failed"]


def test_a_resumed_point_is_not_validated_again_and_an_edited_one_is(tmp_path, monkeypatch):
    """Results the loaded core computed from the very same document stand
    for its validity (it ran): the core's check is skipped for them, a
    tenth of a resumed paper's analysis. A point whose document changed
    is checked, and a bad value in it is refused before anything runs,
    its results there or not."""
    pts = points()
    run_sweep(pts, tmp_path, jobs=1, progress=False)
    checked = []
    real = dcnsim._problems_of
    monkeypatch.setattr(dcnsim, "_problems_of", lambda text, errors: (checked.append(text), real(text, errors))[1])
    again = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert checked == [] and again.attrs["computed"] == []
    edited = [Point(pts[0].label, {**pts[0].scenario, "stop": "-1ms"}, pts[0].seed, pts[0].params), *pts[1:]]
    with pytest.raises(dcnsim.ScenarioError, match=r"stop"):
        run_sweep(edited, tmp_path, jobs=1, progress=False)
    assert len(checked) == 1


def test_cli_out_with_a_quoted_tilde_puts_the_table_beside_the_points(tmp_path, monkeypatch, capsys):
    # `--out '~/x'` (quoted, so the shell left the ~): the points went to
    # $HOME/x (the writers expand ~) and sweep.csv to a literal ./~/x
    from dcnsim import cli

    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    assert cli.main(["sweep", str(DATA / "small_incast.toml"), "--out", "~/x", "--no-progress", "--jobs", "1",
                     "--set", "topology.buffer=8KB"]) == 0
    assert f"results in {home / 'x'}/" in capsys.readouterr().out
    assert (home / "x" / "sweep.csv").is_file() and (home / "x" / "topology.buffer=8KB" / "flows.csv").is_file()
    assert list(cwd.iterdir()) == []


def test_seeds_that_change_nothing_are_said_to(tmp_path):
    """One bulk flow on a star draws nothing random (no ECMP, no ties that
    matter): every seed gives the same run, and a sweep over seeds says its
    zero spread is by construction. With host_jitter the seed draws the
    host's timing, the runs differ, and nothing is said."""
    import warnings

    from dcnsim import sweep

    base = {"stop": "5ms", "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "5us",
                                        "buffer": "20pkt"},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "200KB"}]}
    pts = sweep.grid(base, {"topology.buffer": ["20pkt", "40pkt"]}, seeds=[1, 2])
    with pytest.warns(dcnsim.DcnsimWarning, match=r"the 2 seeds gave the same summary at every setting"):
        df = sweep.run_sweep(pts, tmp_path / "a", jobs=1, progress=False)
    assert df.groupby("topology.buffer")["goodput_bps"].nunique().eq(1).all()
    jittered = {**base, "host_jitter": "2us"}
    pts = sweep.grid(jittered, {"topology.buffer": ["20pkt", "40pkt"]}, seeds=[1, 2])
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        sweep.run_sweep(pts, tmp_path / "b", jobs=1, progress=False)
    assert not [w for w in got if "seeds gave the same" in str(w.message)]


def test_cli_a_sweep_of_nothing_is_refused(tmp_path, capsys):
    """`dcnsim sweep FILE --out DIR` with no --set and no --seeds ran one
    point, labelled "base", as a sweep: a --set forgotten, or `run` meant."""
    from dcnsim import cli

    out = tmp_path / "o"
    assert cli.main(["sweep", str(DATA / "small_incast.toml"), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sweep: nothing to sweep: give one or more --set PATH=V1,V2 (or --seeds 1,2); for one "
                          f"run: dcnsim run {DATA / 'small_incast.toml'} --out {out}"), err
    assert not out.exists()


def test_a_resumed_points_nan_is_nan_not_none(tmp_path):
    """A point's record carries NaN as None (JSON's null, as summary.json
    writes it), so a column where no run has a value (Jain's index of runs
    with no bulk flow) was `object` and `df.jain.round(3)` raised
    TypeError; run now or resumed, it is float NaN."""
    pts = points()[:2]
    fresh = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert fresh["jain"].isna().all(), "the case under test: no bulk flow, no Jain index"
    resumed = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert resumed.attrs["computed"] == []
    assert resumed["jain"].dtype == fresh["jain"].dtype == float
    resumed["jain"].round(3)
    drop = ["wall_s"]
    pd.testing.assert_frame_equal(fresh.drop(columns=drop), resumed.drop(columns=drop), check_like=True)


def test_a_sweep_says_each_of_the_cores_notes_once(tmp_path, capfd, small_incast_path):
    """A hundred points each said "threads = 2: one thread, as the topology
    has one switch" (audit of 2026-12-07): a sweep prints each distinct
    note once, every point's Result still keeps it, and a run after the
    sweep prints its own again."""
    import dcnsim
    from dcnsim.sweep import Point, run_sweep

    doc = dcnsim.with_overrides(dcnsim.load_scenario(small_incast_path), {"threads": 2})
    run_sweep([Point(f"s{i}", doc, seed=i) for i in range(1, 5)], tmp_path / "sw", jobs=1, progress=False)
    err = capfd.readouterr().err
    assert err.count("one thread, as the topology has one switch") == 1, err
    r = dcnsim.run(doc)
    assert r.notes and "one thread, as the topology has one switch" in capfd.readouterr().err
    # on a pool, once per worker process at most
    run_sweep([Point(f"p{i}", doc, seed=i) for i in range(1, 7)], tmp_path / "pool", jobs=2, progress=False)
    assert 1 <= capfd.readouterr().err.count("one thread, as the topology has one switch") <= 2


def test_a_full_disk_stops_the_sweep_at_the_first_point_it_fails(tmp_path, monkeypatch):
    """The machine's failure (ENOSPC) is every later point's too: an
    audit's reproduce on a full disk tried all 77 points left and listed
    each. The sweep now stops there, keeping the points before it, and its
    error carries the machine's failure for the command's one line. A
    full disk met by a worker's probe keeps its errno through the pickle."""
    import errno
    import pickle

    import dcnsim.sweep as sweep_mod
    from dcnsim.errors import OutputDirError

    pts = points()
    assert len(pts) >= 3
    calls = []
    real = sweep_mod._run_point

    def run_point(doc, out, fmt):
        calls.append(out)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(doc, out, fmt)

    monkeypatch.setattr(sweep_mod, "_run_point", run_point)
    with pytest.raises(SweepError) as e:
        run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert len(calls) == 2, calls  # the third point was never tried
    assert len(e.value.failures) == 1 and len(e.value.environment) == 1
    assert e.value.df is not None and len(e.value.df) == 1  # the first point kept
    probe = OutputDirError("x: cannot write in x: No space left on device")
    probe.errno = errno.ENOSPC
    assert sweep_mod.environment_failure(pickle.loads(pickle.dumps(probe)))
