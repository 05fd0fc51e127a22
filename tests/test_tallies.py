"""A paper's tally counts only the paper's claims (issue 26 §1).

Every row carries its source series (and, for our variants, the setting of
ours it was measured under). The framework refuses a tallied row that comes
from a series the paper does not plot, from a setting of ours, or that names
one of our variants; our variants go to "Beyond the paper", judged by the
same criteria and never added in; every testbed figure is shown and not
tallied. These run without simulations (figures with no points)."""

from __future__ import annotations

import pandas as pd
import pytest
from dcnsim.experiments import (
    Comparison,
    Figure,
    FigureResult,
    Paper,
    compare_claim,
    compare_number,
    get_paper,
    reproduce,
)
from dcnsim.experiments.framework import (
    NOT_MODELLED,
    TALLIED,
    beyond,
    beyond_text,
    source_problems,
    tally_text,
)
from dcnsim.experiments.registry import PAPERS


def _no_points(quick: bool):
    return []


def _fig(fid: str, rows, **kw) -> Figure:
    return Figure(fid, f"figure {fid}", _no_points, lambda s, o: FigureResult(pd.DataFrame({"x": [1]}), [], rows()),
                  **kw)


def _claim(q: str, holds: bool = True, series: str = ""):
    return compare_claim(q, "ours", "paper's", holds, criterion="it holds", series=series)


def _paper(*figs: Figure) -> Paper:
    return Paper("toy", "A toy paper", "Nobody, 2026.", list(figs), series=("A", "B"), variants=("ECMP",))


def test_rows_without_a_series_take_the_figures_and_are_tallied(tmp_path):
    p = _paper(_fig("1", lambda: [_claim("A beats B"), _claim("A alone", series="A")], series=("A", "B")))
    rep = reproduce(p, out=tmp_path, jobs=1, progress=False, echo=None)
    assert not rep.errors
    rows = rep.results["1"].comparisons
    assert [c.series for c in rows] == ["A; B", "A"]
    assert rep.counts()["agrees"] == 2


@pytest.mark.parametrize("row, why", [
    (lambda: _claim("C beats A", series="C; A"), "not a series the paper plots"),
    (lambda: _claim("A vs ECMP"), "names our variant ECMP"),
    (lambda: Comparison(
        "A at 10 Gbps", "x", "y", "agrees", criterion="c", series="A", setting="10 Gbps links (ours)"),
     "measured under our setting"),
])
def test_a_tallied_row_from_outside_the_paper_fails_the_figure(tmp_path, row, why):
    rep = reproduce(_paper(_fig("1", lambda: [row()])), out=tmp_path, jobs=1, progress=False, echo=None)
    assert "1" in rep.errors and why in rep.errors["1"], rep.errors
    assert "tallied claims the paper does not have" in rep.errors["1"]


def test_beyond_rows_are_judged_the_same_way_and_never_tallied(tmp_path):
    rows = lambda: [_claim("A beats B"),  # noqa: E731
                    beyond(_claim("A beats ECMP", holds=False), series="A; ECMP"),
                    beyond(compare_number("A's rate at 10 Gbps", 9.0, 5.0, rel_tol=0.1), setting="10 Gbps (ours)")]
    rep = reproduce(_paper(_fig("1", rows)), out=tmp_path, jobs=1, progress=False, echo=None)
    assert not rep.errors, rep.errors
    cmps = rep.comparisons
    assert sum(c.verdict in TALLIED for c in cmps) == 1
    extra = [c for c in cmps if c.beyond]
    assert [c.verdict for c in extra] == ["not in paper", "not in paper"]
    # the criterion's verdict is kept: both differ
    assert [c.judged for c in extra] == ["differs", "differs"]
    assert tally_text(cmps).startswith("1 tested claims: 1 agrees")
    assert "2 rows of our variants judged by the same criteria: 2 differs" in beyond_text(cmps)
    md = (tmp_path / "report.md").read_text()
    assert "**Beyond the paper:**" in md and "*Beyond the paper*" in md
    # the beyond table sits after the paper's table and names each variant
    assert md.index("| A beats B |") < md.index("| A beats ECMP | A; ECMP |")
    assert "| A's rate at 10 Gbps | 10 Gbps (ours) |" in md


def test_a_figure_of_ours_and_a_testbed_figure_tally_nothing(tmp_path):
    p = _paper(_fig("1", lambda: [_claim("A beats B")]),
               _fig("nic", lambda: [_claim("A beats B, big NIC")], setting="big NIC queues (ours)"),
               _fig("12", lambda: [_claim("A beats B on the testbed")], testbed="testbed not modelled: real switches"))
    rep = reproduce(p, out=tmp_path, jobs=1, progress=False, echo=None)
    assert not rep.errors, rep.errors
    by = {c.quantity: c for c in rep.comparisons}
    assert by["A beats B"].verdict == "agrees"
    assert by["A beats B, big NIC"].verdict == "not in paper" and by["A beats B, big NIC"].judged == "agrees"
    assert by["A beats B, big NIC"].setting == "big NIC queues (ours)"
    assert by["A beats B on the testbed"].verdict == NOT_MODELLED
    assert "our criterion gives: agrees" in by["A beats B on the testbed"].note
    assert rep.counts()["agrees"] == 1


def test_source_problems_names_each_reason():
    p = _paper()
    ok = _claim("A beats B", series="A; B")
    assert source_problems(p, [ok]) == []
    assert source_problems(p, [beyond(_claim("A vs ECMP", series="A; ECMP"))]) == []
    bad = _claim("A beats B", series="")
    assert "names no source series" in source_problems(p, [bad])[0]


@pytest.mark.parametrize("key", sorted(PAPERS))
def test_every_paper_names_its_series_and_its_figures_stay_inside_them(key):
    p = get_paper(key)
    if p.own_study:
        return
    assert p.series, f"{key}: a paper must list the series it plots"
    for f in p.figures:
        extra = set(f.series) - set(p.series)
        assert f.setting or not extra, f"{key} Fig. {f.id}: series {extra} are not the paper's"
        assert not (f.setting and f.testbed), f"{key} Fig. {f.id}: a variant of ours or a testbed figure, not both"


def test_the_reviewers_rows_are_out_of_the_tallies():
    # the figures of ours the reviewer named: whole figures beyond the paper
    variants = {("rps", "settings"), ("rps", "nic"), ("rps", "tcp"), ("rps", "polarisation"),
                ("tcprand_fct", "11-nic"), ("tcprand_fct", "11-sack"), ("fast", "settings"), ("tcprand", "settings")}
    for key, fid in variants:
        assert get_paper(key).figure(fid).setting, f"{key} {fid} should be a figure of ours"
    testbed = {"12", "13", "14", "16", "17"}
    for f in get_paper("tcprand").figures:
        assert bool(f.testbed) == (f.id in testbed), f"tcprand Fig. {f.id}"
    assert "ECMP" in get_paper("rps").variants and "ECMP" not in get_paper("rps").series
    assert "CT200" not in get_paper("tcprand_fct").figure("11").series
