"""Result.write as a library call: numpy values, a failed write, an earlier
run or a user's files in the directory, a bad or ~ path (audit 27, F1,
F3, F11, F12)."""

from __future__ import annotations

import json
import warnings

import dcnsim
import numpy as np
import pytest
from conftest import needs_core
from dcnsim._atomic import OutputDirError
from dcnsim.result import Result
from dcnsim.sweep import Point, grid, run_sweep


def tiny(**over) -> dcnsim.Scenario:
    kw = dict(topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="10us", buffer="32KB"),
              apps=dcnsim.SyncReads(client=0, servers="1-2", sru="8KB", blocks=1), stop="5ms")
    kw.update(over)
    return dcnsim.Scenario(**kw)


def snapshot(d):
    return {p.name: p.read_bytes() for p in d.iterdir()}


@needs_core
def test_a_run_of_numpy_values_is_written_with_the_python_values(tmp_path):
    doc = dcnsim.with_overrides(tiny(), {"apps.0.blocks": np.int64(2), "tcp.sack": np.bool_(True)})
    r = dcnsim.run(doc)
    out = r.write(tmp_path / "one")
    written = json.loads((out / "scenario.json").read_text())
    assert written["apps"][0]["blocks"] == 2 and written["tcp"]["sack"] is True
    assert (out / "summary.json").exists()
    # the written scenario reruns to the same result
    assert dcnsim.run(out / "scenario.json").summary == r.summary


@needs_core
def test_a_sweep_over_a_numpy_axis_runs_and_resumes(tmp_path):
    pts = grid(tiny(), {"apps.0.blocks": np.arange(1, 3)}, seeds=[1])
    df = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert df.attrs["computed"] == [p.label for p in pts]
    again = run_sweep(pts, tmp_path, jobs=1, progress=False)
    assert again.attrs["computed"] == []


@needs_core
def test_a_write_that_fails_leaves_the_earlier_run_whole(tmp_path, monkeypatch):
    r = dcnsim.run(tiny())
    out = r.write(tmp_path / "o")
    before = snapshot(out)
    # a scenario value JSON cannot hold (a Result made by hand)
    bad = Result({"summary": dict(r.summary), "tables": {}}, {**r.scenario, "note": object()})
    with pytest.raises(TypeError):
        bad.write(out)
    assert snapshot(out) == before
    # a full disk while a table is written
    from dcnsim.result import Tables

    real = Tables._write_csv

    def full(self, name, fh):
        if name == "queues":
            raise OSError(28, "No space left on device")
        real(self, name, fh)

    monkeypatch.setattr(Tables, "_write_csv", full)
    with pytest.raises(OSError, match="No space"):
        dcnsim.run(tiny(seed=5)).write(out)
    assert snapshot(out) == before  # no temporaries left either


@needs_core
def test_writing_over_an_earlier_run_warns_and_names_what_goes(tmp_path):
    r = dcnsim.run(tiny())
    out = tmp_path / "exp"
    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)
        r.write(out, format="parquet")  # a new directory: nothing to say
    with pytest.warns(dcnsim.DcnsimWarning, match="held an earlier run's results: replacing them") as rec:
        r.write(out)
    assert "flows.parquet" in str(rec[0].message)
    assert not list(out.glob("*.parquet")) and (out / "flows.csv").exists()
    # as an error, the warning keeps the earlier run: nothing of this one is written
    before = snapshot(out)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)
        with pytest.raises(dcnsim.DcnsimWarning):
            dcnsim.run(tiny(seed=9)).write(out, format="parquet")
    assert snapshot(out) == before


@needs_core
def test_a_users_own_files_are_never_overwritten(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "flows.csv").write_text("my own flow log\n")
    r = dcnsim.run(tiny())
    with pytest.raises(OutputDirError, match="holds flows.csv but no dcnsim run"):
        r.write(mine)
    assert snapshot(mine) == {"flows.csv": b"my own flow log\n"}
    # the sweep finds it before anything runs
    (tmp_path / "sw" / "p").mkdir(parents=True)
    (tmp_path / "sw" / "p" / "queues.csv").write_text("mine\n")
    with pytest.raises(OutputDirError, match="holds queues.csv"):
        run_sweep([Point("p", tiny(), 1)], tmp_path / "sw", jobs=1, progress=False)
    # so does `dcnsim run --out`, before the simulation
    from dcnsim import cli as cli_mod

    path = tmp_path / "s.json"
    path.write_text(json.dumps(tiny().to_dict()))
    assert cli_mod.main(["run", str(path), "--out", str(mine), "--no-progress"]) == 2
    assert "holds flows.csv but no dcnsim run" in capsys.readouterr().err
    assert snapshot(mine) == {"flows.csv": b"my own flow log\n"}


@needs_core
def test_a_bad_out_dir_is_the_output_dir_error_run_sweep_gives(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    r = dcnsim.run(tiny())
    for target in (afile, afile / "sub"):
        with pytest.raises(OutputDirError) as ours:
            r.write(target)
        with pytest.raises(OutputDirError) as sweeps:
            run_sweep([Point("p", tiny(), 1)], target, jobs=1, progress=False)
        assert str(ours.value) == str(sweeps.value)


@needs_core
def test_a_tilde_is_the_home_directory(tmp_path, monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    out = dcnsim.run(tiny()).write("~/x")
    assert out == home / "x" and (home / "x" / "summary.json").exists()
    assert not (cwd / "~").exists()
    df = run_sweep([Point("p", tiny(), 1)], "~/sw", jobs=1, progress=False)
    assert (home / "sw" / "p" / "summary.json").exists() and df.attrs["out_dir"] == str(home / "sw")


@needs_core
def test_a_table_of_your_own_goes_with_its_run_and_a_core_table_keeps_its_columns(tmp_path):
    """A table added to a result is written with it and listed in its
    summary, so a rewrite in the other format replaces it too (its CSV had
    stayed beside its Parquet). A core table replaced by one without the
    core's columns is refused at once, naming them (metrics, the checks and
    write failed later with a bare KeyError); a core table deleted reads
    as None from its property, as the docs say."""
    import os

    import pandas as pd

    r = dcnsim.run({"stop": "100ms", "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us",
                                                   "buffer": "64KB"},
                    "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "100KB"}]})
    r.tables["extra"] = pd.DataFrame({"a": [1.5]})
    d = tmp_path / "r"
    r.write(d)
    with pytest.warns(dcnsim.DcnsimWarning, match="extra.csv"):
        r.write(d, format="parquet")
    assert "extra.csv" not in os.listdir(d) and "extra.parquet" in os.listdir(d)
    with pytest.raises(ValueError, match=r"tables\['flows'\]: lacks the core's column\(s\) app, .*write read"):
        r.tables["flows"] = r.flows[["flow_id", "src"]]
    r.tables["flows"] = r.flows.assign(mine=1)  # the core's columns kept: taken
    del r.tables["losses"]
    assert r.losses is None
