"""`dcnsim reproduce` cut short before its report.md: the simulations it
finished are its own, and another kind of run (quick for full, another
order of ties) into the same --out does not replace them."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import small_incast
from dcnsim.errors import OutputDirError
from dcnsim.experiments import Figure, FigureResult, Paper, compare_claim, reproduce
from dcnsim.sweep import Point

_CUT = {"on": False}


def _points(quick: bool):
    # one label in both kinds of run, a shorter simulation for --quick
    return [Point("incast", small_incast(stop="1s" if quick else "2s"), 1)]


def _analyze(summary: pd.DataFrame, out_dir):
    if _CUT["on"]:
        raise KeyboardInterrupt  # Ctrl-C after the simulations, before report.md
    return FigureResult(summary[["label"]], [], [compare_claim("it ran", "yes", "yes", True, criterion="it ran")])


def _paper() -> Paper:
    return Paper("toyint", "A toy paper", "Nobody, 2026.", [Figure("a", "figure a", _points, _analyze)])


def _stop(out):
    return json.loads((out / "runs" / "incast" / "scenario.json").read_text(encoding="utf-8"))["stop"]


def _interrupted(out, **kw):
    _CUT["on"] = True
    try:
        with pytest.raises(KeyboardInterrupt):
            reproduce(_paper(), out=out, jobs=1, progress=False, echo=None, **kw)
    finally:
        _CUT["on"] = False
    assert not (out / "report.md").exists() and (out / "runs" / "incast" / "summary.json").is_file()


def test_a_quick_run_does_not_replace_an_interrupted_full_runs_simulations(tmp_path):
    _interrupted(tmp_path)
    # before: no report.md, so nothing said whose runs/ was; the quick
    # run replaced the full run's simulation (a warning, then gone)
    with pytest.raises(OutputDirError, match=r"holds 1 complete simulation\(s\) of toyint's full run in runs/ .*"
                                             r"this toyint quick run would replace them"):
        reproduce(_paper(), quick=True, out=tmp_path, jobs=1, progress=False, echo=None)
    assert _stop(tmp_path) == "2s"
    # the full run's own command resumes it: nothing runs again
    rep = reproduce(_paper(), out=tmp_path, jobs=1, progress=False, echo=None)
    assert rep.n_computed == 0 and not rep.errors


def test_another_order_of_ties_does_not_replace_an_interrupted_runs_simulations(tmp_path):
    _interrupted(tmp_path, ties="fifo")
    with pytest.raises(OutputDirError, match=r"of toyint's full run \(ties = fifo\) in runs/"):
        reproduce(_paper(), out=tmp_path, jobs=1, progress=False, echo=None)
    assert _stop(tmp_path) == "2s"
    # runs/ moved away, as the refusal says: the run starts anew there
    (tmp_path / "runs").rename(tmp_path / "fifo-runs")
    rep = reproduce(_paper(), out=tmp_path, jobs=1, progress=False, echo=None)
    assert rep.n_computed == 1 and (tmp_path / "report.md").is_file()


def test_ctrl_c_in_the_analysis_says_the_simulations_are_done_and_the_report_is_not_written(tmp_path):
    from dcnsim.cli import _interrupted_text

    _CUT["on"] = True
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            reproduce(_paper(), out=tmp_path, jobs=1, progress=False, echo=None)
    finally:
        _CUT["on"] = False
    text = _interrupted_text("reproduce", ["reproduce", "toyint", "--out", str(tmp_path)], None, e.value)
    # before: "finished points are kept, pending ones were cancelled", with
    # no point pending and nothing said of the report left unwritten
    assert "pending" not in text, text
    assert text.startswith("interrupted after the simulations: every one is finished and kept in runs/; "
                           "neither the figures nor report.md were written"), text
    assert text.endswith(f"resume with: dcnsim reproduce toyint --out {tmp_path}"), text
    assert not (tmp_path / "report.md").exists()


def test_the_counts_of_simulations_name_only_what_happened(tmp_path):
    # "1 of 1 simulations run now, the rest resumed" spoke of a rest there was not
    said: list = []
    reproduce(_paper(), out=tmp_path, jobs=1, progress=False, echo=said.append)
    assert any(line.endswith(f"(1 simulation run now); report: {tmp_path / 'report.md'}") for line in said), said
    assert "1 simulation run for this report;" in (tmp_path / "report.md").read_text(encoding="utf-8")
    said.clear()
    reproduce(_paper(), out=tmp_path, jobs=1, progress=False, echo=said.append)
    assert any("(1 simulation resumed); report:" in line for line in said), said
    assert "1 simulation resumed from `runs/`;" in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert not any("the rest" in line for line in said)


_VERSION = {"n": 1, "cut_b": False}


def _plotting(fid: str):
    def analyze(summary: pd.DataFrame, out_dir):
        if fid == "b" and _VERSION["cut_b"]:
            raise KeyboardInterrupt  # Ctrl-C in the second figure's analysis
        plot = out_dir / f"fig{fid}.png"
        plot.write_text(f"plot {_VERSION['n']}")
        table = summary[["label"]].assign(version=_VERSION["n"])
        return FigureResult(table, [plot], [compare_claim("it ran", "yes", "yes", True, criterion="it ran")])
    return analyze


def _two_figures() -> Paper:
    return Paper("toyfigs", "A toy paper", "Nobody, 2026.",
                 [Figure(fid, f"figure {fid}", _points, _plotting(fid)) for fid in ("a", "b")])


def test_a_reproduce_cut_in_its_analysis_leaves_the_earlier_figures_beside_the_earlier_report(tmp_path):
    """Each figure's files were written as it was analysed, and report.md
    at the end: cut off between, the directory held new figures beside a
    report of the earlier ones. They are now put in place together, just
    before their report."""
    import os

    _VERSION.update(n=1, cut_b=False)
    reproduce(_two_figures(), out=tmp_path, jobs=1, progress=False, echo=None)
    before = {f.name: f.read_bytes() for f in tmp_path.iterdir() if f.is_file()}
    assert (tmp_path / "figa.png").read_text() == "plot 1"
    _VERSION.update(n=2, cut_b=True)
    try:
        with pytest.raises(KeyboardInterrupt):
            reproduce(_two_figures(), out=tmp_path, jobs=1, progress=False, echo=None)
    finally:
        _VERSION["cut_b"] = False
    assert {f.name: f.read_bytes() for f in tmp_path.iterdir() if f.is_file()} == before
    assert not list(tmp_path.glob(".analysis-*"))
    # a reproduce killed outright leaves its stage: the next one clears it and places its figures
    stale = tmp_path / f".analysis-{os.getpid() + 1}.tmp"
    stale.mkdir()
    (stale / "figa.png").write_text("half")
    said: list = []
    reproduce(_two_figures(), out=tmp_path, jobs=1, progress=False, echo=said.append)
    assert not list(tmp_path.glob(".analysis-*"))
    assert (tmp_path / "figa.png").read_text() == "plot 2" and (tmp_path / "figb.png").read_text() == "plot 2"
    assert list(pd.read_csv(tmp_path / "a.csv")["version"]) == [2]
    assert "](figa.png)" in (tmp_path / "report.md").read_text(encoding="utf-8")
    # staged when echoed, placed after: "files", not "wrote" (an interrupt between said both)
    assert any("files: figa.png, a.csv" in line for line in said), said
