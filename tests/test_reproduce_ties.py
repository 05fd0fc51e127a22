"""`dcnsim reproduce --ties`: a paper's figures under the other order of
equal-time events, one command each, never mixed with the default's."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import cli, small_incast
from dcnsim.errors import OutputDirError
from dcnsim.experiments import Figure, FigureResult, Paper, compare_claim, reproduce
from dcnsim.experiments.tallies import record
from dcnsim.sweep import Point


def _points(quick: bool):
    # three synchronized servers on a star: their segments tie at the switch
    return [Point("incast3", small_incast(), 1)]


def _analyze(summary: pd.DataFrame, out_dir):
    return FigureResult(summary[["label", "goodput_bps"]] if "goodput_bps" in summary else summary[["label"]], [],
                        [compare_claim("it ran", "yes", "yes", True, criterion="it ran")])


def _paper() -> Paper:
    figs = [Figure("a", "figure a", _points, _analyze), Figure("b", "figure b", _points, _analyze)]
    return Paper("toyties", "A toy paper", "Nobody, 2026.", figs)


def _scenario(out, label="incast3"):
    return json.loads((out / "runs" / label / "scenario.json").read_text(encoding="utf-8"))


def test_ties_sets_every_simulation_and_report_md_keeps_the_orders_apart(tmp_path):
    p = _paper()
    reproduce(p, figures=["a"], ties="fifo", out=tmp_path, jobs=1, progress=False, echo=None)
    assert _scenario(tmp_path)["ties"] == "fifo"
    assert json.loads((tmp_path / "a.report.json").read_text(encoding="utf-8"))["ties"] == "fifo"
    # the same directory, the default order: refused, the report and the
    # point of the first-in first-out run untouched
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "; full run, ties = fifo; " in report
    with pytest.raises(OutputDirError, match=r"holds the reproduction of toyties's full run \(ties = fifo\)"):
        reproduce(p, figures=["b"], out=tmp_path, jobs=1, progress=False, echo=None)
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == report
    assert _scenario(tmp_path)["ties"] == "fifo"
    # its report moved away, as the refusal says: the point runs again (its
    # scenario changed) and figure a's first-in first-out section is not
    # merged into a report of the default order
    (tmp_path / "report.md").rename(tmp_path / "fifo-report.md")
    rep = reproduce(p, figures=["b"], out=tmp_path, jobs=1, progress=False, echo=None)
    assert rep.n_computed == 1
    assert "ties" not in _scenario(tmp_path)
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "figure b" in md and "figure a" not in md


def test_ties_names_the_field_when_it_is_not_an_order(tmp_path):
    with pytest.raises(ValueError, match="ties: 'sideways'"):
        reproduce(_paper(), ties="sideways", out=tmp_path, echo=None)


def test_a_tally_refuses_a_run_of_another_order(tmp_path):
    (tmp_path / "fig3_8.report.json").write_text(json.dumps({"id": "3.8", "cores": [], "error": None,
                                                             "ties": "fifo", "comparisons": []}))
    with pytest.raises(ValueError, match="ties = 'fifo'"):
        record("kulkarni", tmp_path, commit="c", command="x", date="2026-11-29")


def test_the_cli_takes_the_order_and_refuses_another(tmp_path):
    bad = cli("reproduce", "kulkarni", "--ties", "sideways")
    assert bad.returncode == 2 and "--ties" in bad.stderr
    r = cli("reproduce", "kulkarni", "--quick", "--figure", "3.12", "--ties", "fifo", "--jobs", "2",
            "--no-progress", "--out", str(tmp_path), timeout=600)
    assert r.returncode == 0, r.stderr
    assert "ties = fifo" in r.stdout
    runs = list((tmp_path / "runs").iterdir())
    assert runs and all(_scenario(tmp_path, d.name)["ties"] == "fifo" for d in runs)
