"""A run whose Poisson app reads its flow sizes from a ``cdf_file`` writes a
directory that reruns it alone: ``scenario.json`` names a copy of the file as
the run read it, not the original's path (which may be edited, moved, or on
another machine, or relative to a working directory the rerun does not share)."""

from __future__ import annotations

import json
import shutil

import dcnsim
import pytest
from conftest import cli, needs_core

pytestmark = needs_core

SCENARIO = """
stop = "3ms"
seed = 5
[topology]
kind = "star"
hosts = 4
rate = "10Gbps"
delay = "2us"
buffer = "100pkt"
[[apps]]
kind = "poisson"
load = 0.5
cdf_file = "data/my.cdf"
flows = 30
"""


def tables(d):
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.suffix == ".csv"}


def test_a_written_run_reruns_after_its_cdf_file_is_edited_and_moved(tmp_path):
    src = tmp_path / "src"
    (src / "data").mkdir(parents=True)
    cdf = src / "data" / "my.cdf"
    cdf.write_text("# size prob\n1460 0.5\n100000 1.0\n")
    (src / "s.toml").write_text(SCENARIO)
    first = dcnsim.run(src / "s.toml")
    assert len(first.flows) > 5
    first.write(tmp_path / "out")
    cdf.write_text("# size prob\n1460 0.5\n200000 1.0\n")  # edited after the run ...
    shutil.move(src, tmp_path / "gone")  # ... and moved away

    # the directory alone, somewhere else (another machine), reruns the run
    shutil.copytree(tmp_path / "out", tmp_path / "copied")
    r = cli("run", str(tmp_path / "copied" / "scenario.json"), "--out", str(tmp_path / "rerun"))
    assert r.returncode == 0, r.stderr
    assert tables(tmp_path / "rerun") == tables(tmp_path / "out")
    written = json.loads((tmp_path / "copied" / "scenario.json").read_text())
    assert written["apps"][0]["cdf_file"] == "apps0.cdf"
    assert (tmp_path / "copied" / "apps0.cdf").read_text() == "# size prob\n1460 0.5\n100000 1.0\n"
    # and the rerun's directory is as self-contained
    assert (tmp_path / "rerun" / "apps0.cdf").read_bytes() == (tmp_path / "out" / "apps0.cdf").read_bytes()


def doc(**app):
    return {"stop": "3ms", "seed": 5,
            "topology": {"kind": "star", "hosts": 4, "rate": "10Gbps", "delay": "2us", "buffer": "100pkt"},
            "apps": [{"kind": "poisson", "load": 0.5, "flows": 30, **app}]}


def test_a_relative_cdf_file_of_a_dict_is_copied_from_the_working_directory(tmp_path, monkeypatch):
    # a dict's relative cdf_file is relative to the working directory; the
    # written scenario.json is read relative to its own directory
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "my.cdf").write_text("1000 0\n50000 1\n")
    monkeypatch.chdir(tmp_path)
    first = dcnsim.run(doc(cdf_file="data/my.cdf"))
    out = first.write("runs/d")
    assert first.scenario["apps"][0]["cdf_file"] == "data/my.cdf"  # the scenario as run is unchanged
    again = dcnsim.run(out / "scenario.json")
    assert again.flows.equals(first.flows) and again.queues.equals(first.queues)


def test_a_later_write_replaces_an_earlier_runs_cdf_copy(tmp_path, monkeypatch):
    (tmp_path / "my.cdf").write_text("1000 0\n50000 1\n")
    monkeypatch.chdir(tmp_path)
    dcnsim.run(doc(cdf_file="my.cdf")).write("out")
    assert (tmp_path / "out" / "apps0.cdf").is_file()
    with pytest.warns(dcnsim.DcnsimWarning, match="removing apps0.cdf"):
        dcnsim.run(doc(cdf=[[1000, 0], [50000, 1]])).write("out")
    assert not (tmp_path / "out" / "apps0.cdf").exists()


def test_a_sweep_resumes_a_cdf_file_point_and_reruns_it_when_the_file_changes(tmp_path, monkeypatch):
    from dcnsim.sweep import Point, run_sweep

    monkeypatch.chdir(tmp_path)
    cdf = tmp_path / "my.cdf"
    cdf.write_text("1000 0\n50000 1\n")
    pts = [Point("p", doc(cdf_file="my.cdf"))]
    first = run_sweep(pts, "sw", jobs=1, progress=False)
    stamp = (tmp_path / "sw" / "p" / "summary.json").stat().st_mtime_ns
    # the same document and the same file: resumed, not run again
    again = run_sweep(pts, "sw", jobs=1, progress=False)
    assert (tmp_path / "sw" / "p" / "summary.json").stat().st_mtime_ns == stamp
    assert again.equals(first)
    # the same path, other sizes: another scenario, run again
    cdf.write_text("1000 0\n90000 1\n")
    with pytest.warns(dcnsim.DcnsimWarning, match="another scenario"):
        third = run_sweep(pts, "sw", jobs=1, progress=False)
    assert (tmp_path / "sw" / "p" / "apps0.cdf").read_text() == "1000 0\n90000 1\n"
    # flows of up to 90 kB, not 50 kB: the new file's sizes were run
    assert third["app0_mean_size_bytes"].iloc[0] > first["app0_mean_size_bytes"].iloc[0]
