"""A paper's tally counts only the paper's claims (issue 26 §1).

Every row carries its source series (and, for our variants, the setting of
ours it was measured under). The framework refuses a tallied row that comes
from a series the paper does not plot, from a setting of ours, or that names
one of our variants; our variants go to "Beyond the paper", judged by the
same criteria and never added in; every testbed figure is shown and not
tallied. These run without simulations (figures with no points)."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest
from dcnsim.errors import OutputDirError
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


def test_a_reference_value_and_a_formula_check_name_only_the_series_they_say(tmp_path):
    """A value of ours and the paper's arithmetic are not about the figure's
    curves: given every series of the figure, the report said they were."""
    from dcnsim.experiments.claims import info
    from dcnsim.experiments.framework import check_formula

    p = _paper(_fig("1", lambda: [_claim("A beats B"), info("paths used", 4), check_formula("1 KB", 1024, 1024, rel_tol=0.01),
                                  dataclasses.replace(info("A's paths", 2), series="A")], series=("A", "B")))
    rep = reproduce(p, out=tmp_path, jobs=1, progress=False, echo=None)
    assert not rep.errors
    assert [c.series for c in rep.results["1"].comparisons] == ["A; B", "", "", "A"]
    table = (tmp_path / "report.md").read_text()
    assert "| paths used | — |" in table and "| 1 KB | — |" in table and "| A beats B | A; B |" in table


def test_a_users_figure_files_beside_a_runs_dir_or_another_section_are_not_replaced(tmp_path):
    """The refusal of a user's fig1.csv was skipped as soon as the
    directory held a runs/ (of anything) or any *.report.json: the files
    were replaced without a word. A runs/ without this run's simulations,
    or another figure's section, no longer makes them the reproduction's."""
    p = _paper(_fig("1", lambda: [_claim("A beats B")], series=("A", "B")))
    for extra in ("runs/my_experiment.log", "config.report.json"):
        out = tmp_path / extra.split("/")[0].replace(".", "_")
        (out / extra).parent.mkdir(parents=True, exist_ok=True)
        (out / extra).write_text("mine\n")
        (out / "fig1.csv").write_text("my precious data\n")
        with pytest.raises(OutputDirError, match=r"holds fig1.csv, which this reproduce writes"):
            reproduce(p, out=out, jobs=1, progress=False, echo=None)
        assert (out / "fig1.csv").read_text() == "my precious data\n"


def test_another_papers_simulations_interrupted_in_runs_are_not_taken_over(tmp_path):
    """A reproduction interrupted before its report.md left its simulations
    in runs/; another paper's run there went ahead without a word, and the
    first one's "resume with" then failed on the second's report.md."""
    from dcnsim.sweep import point_dir

    rows = lambda: [_claim("A beats B")]  # noqa: E731
    runs = tmp_path / "runs"
    d = point_dir(runs, "someone-elses-point")
    d.mkdir(parents=True)
    (d / "summary.json").write_text("{}")
    (d / "scenario.json").write_text("{}")
    with pytest.raises(OutputDirError, match=r"holds 1 complete simulation\(s\) in runs/ that are none of toy's "
                                             r"\(e.g. someone-elses-point\): another reproduction's"):
        reproduce(_paper(_fig("1", rows)), out=tmp_path, jobs=1, progress=False, echo=None)
    assert not (tmp_path / "report.md").exists()


def test_a_users_own_figure_files_are_never_replaced_by_a_first_reproduction(tmp_path):
    """A directory with no reproduction in it but a fig1.csv of the user's
    (or a paper's figures folder): refused, naming the file, before
    anything runs; the file is as it was."""
    p = _paper(_fig("1", lambda: [_claim("A beats B")], series=("A", "B")))
    out = tmp_path / "mine"
    out.mkdir()
    (out / "fig1.csv").write_text("my precious data\n")
    with pytest.raises(OutputDirError, match=r"holds fig1.csv, which this reproduce writes, but no reproduction"):
        reproduce(p, out=out, jobs=1, progress=False, echo=None)
    assert (out / "fig1.csv").read_text() == "my precious data\n"
    assert sorted(x.name for x in out.iterdir() if not x.name.startswith(".")) == ["fig1.csv"]
    # a reproduction's own directory is its to rewrite
    (out / "fig1.csv").unlink()
    reproduce(p, out=out, jobs=1, progress=False, echo=None)
    reproduce(p, out=out, jobs=1, progress=False, echo=None)
    assert (out / "report.md").is_file()


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
    assert tally_text(cmps).startswith("1 tested claim: 1 agrees")
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
    # Fig. 16 (flow convergence on a star) is tallied: a property of the
    # congestion control, not of the testbed's outcast regime (issue 43 item 5)
    testbed = {"12", "13", "14", "17"}
    for f in get_paper("tcprand").figures:
        assert bool(f.testbed) == (f.id in testbed), f"tcprand Fig. {f.id}"
    assert "ECMP" in get_paper("rps").variants and "ECMP" not in get_paper("rps").series
    assert "CT200" not in get_paper("tcprand_fct").figure("11").series


def test_a_paper_claim_moved_beyond_without_a_variant_fails_the_figure(tmp_path):
    # a row of the paper's own series and setup, hidden from the tally
    rep = reproduce(_paper(_fig("1", lambda: [beyond(_claim("A beats B", holds=False))])), out=tmp_path, jobs=1,
                    progress=False, echo=None)
    assert "1" in rep.errors and "names no variant of ours" in rep.errors["1"], rep.errors


#: per paper, figures that run in seconds with --quick: tallied rows, a
#: testbed figure and a figure of ours whose rows all go beyond the paper
CHEAP = {
    "fast": ("10", "11"),
    "kulkarni": ("4.7–4.10", "4.7–4.10 bytes"),
    "rps": ("7", "paths", "polarisation"),
    "tcprand": ("5", "16", "8b-control"),
}


def test_every_registered_paper_has_cheap_figures_to_run_end_to_end():
    from dcnsim.experiments.tallies import registered_papers

    assert set(registered_papers()) <= set(CHEAP), "add the new paper's cheapest figures to CHEAP"


@pytest.mark.parametrize("key", sorted(CHEAP))
def test_every_papers_rows_name_their_source_end_to_end(tmp_path, key):
    """Real figures of each paper through ``reproduce``: every tallied row
    comes from the paper's (figure's) series under no setting of ours, and
    every Beyond row names its variant (a setting of ours or a foreign
    series). The framework refuses anything else, so a clean run is the
    check; the rows are inspected too, so that a framework that stopped
    checking would fail here."""
    p = get_paper(key)
    figs = [p.figure(f) for f in CHEAP[key]]
    rep = reproduce(p, figures=list(CHEAP[key]), out=tmp_path, jobs=2, quick=True, progress=False, echo=None)
    assert not rep.errors, rep.errors
    tallied = beyond_rows = 0
    for f in figs:
        known = set(f.series or p.series)
        for c in rep.results[f.id].comparisons:
            names = c.series_names()
            if c.verdict in TALLIED:
                tallied += 1
                assert names and set(names) <= known and not c.setting, (key, f.id, c.quantity, c.series)
                if p.register is not None:  # judged by the register, one of its tallied claims
                    assert p.register[c.claim].tally, (key, f.id, c.quantity)
                assert not f.setting and not f.testbed, (key, f.id, c.quantity)
            elif c.beyond:
                beyond_rows += 1
                assert c.setting or set(names) - known, (key, f.id, c.quantity, c.series)
        if f.setting:
            assert all(c.verdict not in TALLIED for c in rep.results[f.id].comparisons), (key, f.id)
    # FaST's only Beyond rows (the 10 Gbps sender, the settings figure) take
    # minutes; the other three papers run one of theirs here
    assert tallied and (beyond_rows or key == "fast"), (key, tallied, beyond_rows)


def test_setup_unknown_variants_run_the_same_points_with_the_other_setting():
    """Issue 26: where the paper leaves a setting open and the verdict hangs
    on it, the other value runs beside, as a figure of ours."""
    t = get_paper("tcprand")
    for fid, base in (("8-h52", "8a"), ("8c-h52", "8c"), ("10-h52", "10"), ("11-h52", "11"), ("15-h52", "15")):
        f, b = t.figure(fid), t.figure(base)
        assert f.setting and not b.setting
        pts, ref = f.points(True), b.points(True)
        assert len(pts) == len(ref) and not {p.label for p in pts} & {p.label for p in ref}
        assert {(p.scenario["tcp"]["mss"], p.scenario["tcp"]["header"]) for p in pts} == {(1448, 52)}
        assert {(p.scenario["tcp"]["mss"], p.scenario["tcp"]["header"]) for p in ref} == {(1460, 40)}
    k = get_paper("kulkarni")
    for fid, base in (("3.8–3.12, 3.21 bytes", "3.8"), ("3.13–3.16 bytes", "3.13–3.16"), ("4.1 bytes", "4.1"),
                      ("4.7–4.10 bytes", "4.7–4.10")):
        f, b = k.figure(fid), k.figure(base)
        assert f.setting and not b.setting
        assert all(p.scenario["topology"]["buffer"].endswith("KB") for p in f.points(True))
        assert all(p.scenario["topology"]["buffer"].endswith("pkt") for p in b.points(True))


# ---------------------------------------------------------------- the claims registers (issue 43)

from dcnsim.experiments import claims as claims_mod  # noqa: E402
from dcnsim.experiments.claims import (  # noqa: E402
    KINDS,
    MODEL_CHECK,
    Register,
    judge_spec,
    register_problems,
)
from dcnsim.experiments.tallies import registered_papers  # noqa: E402

#: the papers whose tallies come from a claims register: every one, a new
#: paper's too, without a list to keep
REGISTERED = tuple(registered_papers())
ON_SIDE = ("agrees", "close", "trend agrees")


def _ordering_inputs(p):
    s = int(p["sign"])
    return {x: (s * 5.0, 1.0) for x in (1, 2, 3)}, {x: (-s * 5.0, 1.0) for x in (1, 2, 3)}


def _rises_inputs(p):
    s = int(p["sign"])
    up = {x: (s * float(x), 0.1) for x in (1, 2, 3, 4)}
    return up, {x: (-s * float(x), 0.1) for x in (1, 2, 3, 4)}


def _number_inputs(p):
    v = float(p["value"])
    far = 3 * p["abs_close"] if "abs_close" in p else 3 * p.get("abs_tol", 0) if "abs_tol" in p else \
        3 * abs(v) * max(p.get("close_tol", 0), p["rel_tol"])
    other = [v + far, v - far]
    if p.get("side"):
        # just on the wrong side of the paper's direction, inside every band
        # a symmetric criterion would draw: "close" must not cover it
        eps = 1e-3 * max(1.0, abs(p["ref"]))
        other.append(p["ref"] + eps if p["side"] == "below" else p["ref"] - eps)
    return v, other


def _bound_inputs(p):
    # the paper's side clear of the bound (a bound of 0 too: a strict one's tie differs)
    if "at_most" in p:
        b = float(p["at_most"])
        return b - max(0.5, 0.5 * abs(b)), b + max(1.0, abs(b))
    b = float(p["at_least"])
    return b + max(0.5, 0.5 * abs(b)), b - max(1.0, abs(b))


def _flat_inputs(p):
    w = float(p["within"])
    # with CIs: a real spread of 1.5 w and 3 w whatever the CIs (the old
    # "twice the largest CI" let noisier data pass), and a plausible
    # spread just beyond the band with CIs a third of it
    return ({x: (10.0, 0.3 * w) for x in (2, 3, 4)},
            [{2: (10.0, 0.0), 3: (10.0 + 1.5 * w, 0.0), 4: (10.0 + 3 * w, 0.0)},
             {2: (10.0, w), 3: (10.0 + 1.5 * w, w), 4: (10.0 + 3 * w, w)},
             {2: (10.0, w / 3), 3: (10.0 + 0.6 * w, w / 3), 4: (10.0 + 1.2 * w, w / 3)}])


def test_flat_does_not_reward_noise():
    spec = {"kind": "flat", "within": 5.0, "what": "share"}
    assert judge_spec(spec, {2: (8.9, 1.2), 3: (11.0, 2.5), 4: (11.4, 1.8)})[0] == "agrees"
    # a spread of 8 with CIs of ± 6: passed before (twice the largest CI), now differs
    assert judge_spec(spec, {2: (8.0, 6.0), 3: (16.0, 6.0)})[0] == "differs"
    # means close, CIs wider than the band: not resolved
    assert judge_spec(spec, {2: (8.0, 9.0), 3: (9.0, 9.0)})[0] == "untestable"
    # a missing mean is not a flat curve (NaN first made min and max NaN: agrees)
    nan = math.nan
    for means in ((nan, 1.0, 9.0), (nan, nan, nan), (math.inf, 10.0, 10.0)):
        assert judge_spec(spec, {x: (m, nan) for x, m in zip((2, 3, 4), means)})[0] == "untestable", means


def test_a_step_ratio_from_zero_to_zero_is_no_growth():
    """"Doubling x doubles Q": 0 → 0 read as an infinite ratio, so a
    quantity that never grew was "trend agrees"."""
    spec = {"kind": "step_ratio", "lo": 1.5, "hi": 2.5, "what": "onset"}
    assert judge_spec(spec, {64: 0, 128: 0, 256: 0})[0] == "differs"
    assert judge_spec(spec, {64: 0, 128: 3, 256: 6})[0] == "trend agrees"
    assert judge_spec(spec, {64: 2, 128: 4, 256: 8})[0] == "agrees"
    assert judge_spec(spec, {64: -1, 128: 4, 256: 8})[0] == "untestable"


def test_a_quick_runs_tally_says_it_is_a_quick_runs(tmp_path):
    """A quick run's summary line and report read "quick run, judged on its
    quick data": without it a quick kulkarni tally (36 claims) read as the
    docs' full-run one."""
    p = _paper(_fig("1", lambda: [_claim("A beats B")], series=("A", "B")))
    reproduce(p, out=tmp_path / "q", quick=True, jobs=1, progress=False, echo=None)
    reproduce(p, out=tmp_path / "f", jobs=1, progress=False, echo=None)
    assert "**Tally** (the paper's own claims, in its own setup): quick run, judged on its quick data" in (
        tmp_path / "q" / "report.md").read_text()
    assert "quick run, judged" not in (tmp_path / "f" / "report.md").read_text()
    for key in ("fast", "kulkarni", "rps", "tcprand"):
        assert PAPERS[key].quick_setup, key


def test_a_quick_runs_report_says_what_it_does_differently(tmp_path):
    """FaST's quick report gave the full run's "100 queries per point on 5
    seeds" as its setup, over CIs taken from one seed's 10 queries."""
    p = _paper(_fig("1", lambda: [_claim("A beats B")], series=("A", "B")))
    p.setup, p.quick_setup = "100 queries per point on 5 seeds.", "10 queries per point on 1 seed."
    reproduce(p, out=tmp_path / "q", quick=True, jobs=1, progress=False, echo=None)
    reproduce(p, out=tmp_path / "f", jobs=1, progress=False, echo=None)
    assert "**This quick run:** 10 queries per point on 1 seed." in (tmp_path / "q" / "report.md").read_text()
    assert "This quick run" not in (tmp_path / "f" / "report.md").read_text()
    from dcnsim.experiments.fast import PAPER

    assert "10 queries per point on 1 seed instead of 100 on" in PAPER.quick_setup


def test_a_value_is_shown_without_a_sign_and_a_difference_with_one():
    """"16: +2 ± n/a" for an onset of 2 servers read as a difference."""
    values = {16: (2.0, 0.0), 32: (4.0, 1.1)}
    rises = {"kind": "rises", "sign": 1, "what": "onset"}
    assert judge_spec(rises, values)[1] == "16: 2 ± 0; 32: 4 ± 1.1"
    near = {"kind": "near", "lo": -10, "hi": 10, "what": "FaST − DCTCP"}
    assert judge_spec(near, {10: (-3.0, 0.5), 20: (15.7, 0.2)})[1] == "10: -3 ± 0.5; 20: +15.7 ± 0.2"
    below = {"kind": "ordering", "sign": -1, "what": "FaST − DCTCP"}
    assert judge_spec(below, {10: (2.0, 0.5)})[1] == "10: +2 ± 0.5"


def _level_inputs(p):
    s, ref = int(p["sign"]), float(p["ref"])
    d = max(1.0, abs(ref))
    return ({x: (ref + s * d, 0.1 * d) for x in (20, 60, 100)},
            # the mean just on the wrong side, the CI clear of the reference
            [{x: (ref - s * d, 0.1 * d) for x in (20, 60, 100)},
             {x: (ref - s * 0.05 * d, 0.01 * d) for x in (20, 60, 100)}])


def _near_inputs(p):
    lo, hi = float(p["lo"]), float(p["hi"])
    w = hi - lo
    return {x: ((lo + hi) / 2, 0.0) for x in (4, 8, 16)}, [{x: (hi + 2 * w, 0.0) for x in (4, 8, 16)},
                                                           {x: (lo - w / 2, 0.0) for x in (4, 8, 16)}]


#: per criterion kind: params -> (an input on the paper's side, one or more
#: on the other side of the claim). Written here, apart from the criteria,
#: so that a criterion cannot pass by generating its own examples.
SYNTHETIC = {"ordering": _ordering_inputs, "rises": _rises_inputs, "number": _number_inputs,
             "bound": _bound_inputs, "flat": _flat_inputs, "level": _level_inputs, "near": _near_inputs}


def _ranked_inputs(p):
    order, r = list(p["order"]), float(p["min_ratio"])
    k = len(order)
    spread = {name: (10.0 * (2 * r) ** (k - 1 - i), 0.1) for i, name in enumerate(order)}
    reversed_ = {name: (10.0 * (2 * r) ** i, 0.1) for i, name in enumerate(order)}
    # a tie is no order, whichever way the means fall and however tight the CIs
    tie = {name: (30.0 + 0.01 * (k - i), 0.001) for i, name in enumerate(order)}
    return spread, [reversed_, tie]


def _band_inputs(p):
    lo, hi = float(p["lo"]), float(p["hi"])
    w = max(hi - lo, 1e-3)
    mid = (lo + hi) / 2
    if p.get("outside"):
        return hi + w, [mid, [hi + w, mid]]
    # every value counts: a list and a mapping with one value out differ
    other = [lo - w, hi + w, {"a": mid, "b": hi + w}, [mid, lo - w]]
    if p.get("lo_open"):
        other.append(lo)
    return [mid, mid], other


def _all_inputs(p):
    subs = {sub["key"]: SYNTHETIC[sub["kind"]](sub) for sub in p["of"]}
    on = {key: s[0] for key, s in subs.items()}
    # each criterion failing alone fails the claim
    other = [{**on, key: o} for key, (_on, others) in subs.items()
             for o in (others if isinstance(others, list) else [others])]
    return on, other


SYNTHETIC.update({"ranked": _ranked_inputs, "band": _band_inputs, "all": _all_inputs})


def both_ways_problems(register: Register) -> list:
    """Every tallied claim's criterion fed its two sides: the paper's side
    must give agrees, close or trend agrees; the other side must give
    differs (never close or trend agrees against the paper's direction)."""
    out = []
    for c in register.tallied:
        kind = c.criterion["kind"]
        if kind not in SYNTHETIC:
            out.append(f"{c.id}: no synthetic inputs for criterion kind {kind!r}")
            continue
        on, other = SYNTHETIC[kind](c.criterion)
        v = judge_spec(c.criterion, on)[0]
        if v not in ON_SIDE:
            out.append(f"{c.id}: the paper's side gives {v!r}")
        for o in (other if isinstance(other, list) else [other]):
            v = judge_spec(c.criterion, o)[0]
            if v != "differs":
                out.append(f"{c.id}: the other side ({o!r}) gives {v!r}, not 'differs'")
    return out


def _judged_by(reg: Register, kind: str) -> set:
    """The tallied claims a criterion ``kind`` judges, directly or as the
    criterion of one of their points (a claim of ``parts``)."""
    return {c.id for c in reg.tallied
            if c.criterion["kind"] == kind or any(s["kind"] == kind for s in c.criterion.get("of", [])
                                                  if isinstance(s, dict))}


@pytest.mark.parametrize("key", REGISTERED)
def test_every_tallied_criterion_can_fail_both_ways(key):
    reg = get_paper(key).register
    assert reg is not None and reg.tallied, f"{key}: no tallied claims in its register"
    assert both_ways_problems(reg) == []


def test_a_criterion_made_constant_fails_the_both_ways_test(monkeypatch):
    reg = get_paper("rps").register
    monkeypatch.setitem(KINDS, "ordering", lambda p, m: ("agrees", "x", "always agrees"))
    problems = both_ways_problems(reg)
    assert problems and all("other side" in p for p in problems), problems
    assert {p.split(":")[0] for p in problems} == _judged_by(reg, "ordering")


def test_close_never_covers_the_wrong_side_of_the_papers_direction():
    spec = {"kind": "number", "value": 0.936, "abs_tol": 0.03, "abs_close": 0.1, "side": "below", "ref": 1.0}
    assert judge_spec(spec, 0.95)[0] == "agrees"
    assert judge_spec(spec, 0.99)[0] == "close"
    assert judge_spec(spec, 1.014)[0] == "differs"  # within the close band, but a gain, not a loss
    no_side = dict(spec, side=None)
    assert judge_spec(no_side, 1.014)[0] == "close"  # what the symmetric band alone would say


def test_a_tie_and_two_end_points_are_not_a_trend():
    # a pure tie: every CI ±1 around means that happen to fall the claimed
    # way at two of three x (with no effect, half of all draws do)
    tie = {1: (0.3, 1.0), 2: (-0.2, 1.0), 3: (0.1, 1.0)}
    assert judge_spec({"kind": "ordering", "sign": 1, "what": "a − b"}, tie)[0] == "differs"
    assert judge_spec({"kind": "ordering", "sign": 1, "what": "a − b"}, {x: (0.3, 1.0) for x in (1, 2, 3)})[0] == \
        "differs"
    # no x significant alone, the mean over the x clear of its CI: a trend
    assert judge_spec({"kind": "ordering", "sign": 1, "what": "a − b"}, {x: (0.8, 1.0) for x in (1, 2, 3, 4)})[0] == \
        "trend agrees"
    # one x significant among noise does not carry the others
    assert judge_spec({"kind": "ordering", "sign": 1, "what": "a − b"},
                      {1: (1.1, 1.0), 2: (0.1, 1.5), 3: (-0.2, 1.5), 4: (0.1, 1.5), 5: (0.05, 1.5)})[0] == "differs"
    # means drifting the claimed way step by step, the ends within their CIs
    drift = {1: (1.0, 0.5), 2: (1.2, 0.5), 3: (1.1, 0.5), 4: (1.3, 0.5)}
    assert judge_spec({"kind": "rises", "sign": 1, "what": "q"}, drift)[0] == "differs"
    assert judge_spec({"kind": "rises", "sign": 1, "what": "q"}, {1: (1.0, 0.1), 2: (1.6, 0.1), 3: (1.5, 0.1),
                                                                  4: (2.0, 0.1)})[0] == "trend agrees"
    assert judge_spec({"kind": "ordering", "sign": 1, "what": "a − b"}, {1: (0.0, 1.0), 2: (-0.1, 1.0)})[0] == \
        "differs"
    # the static case's FCT gain: significant only at the last n, never rising step by step
    gain = {1: (0.0, 0.0), 2: (-0.21, 0.3), 3: (0.04, 0.67), 4: (-3.1, 8.9), 5: (1.18, 0.66)}
    assert judge_spec({"kind": "rises", "sign": 1, "what": "gain"}, gain)[0] == "differs"


def _toy_register(tmp_path, extra: str = "") -> Register:
    f = tmp_path / "claims.toml"
    f.write_text('paper = "toy"\n[[claim]]\nid = "a"\nwhere = "Fig. 1"\npage = "p. 1"\nsays = "A beats B"\n'
                 'series = "A; B"\nmetric = "A − B"\ncriterion = { kind = "ordering", sign = 1, what = "A − B" }\n'
                 'why = "measured"\n' + extra, encoding="utf-8")
    return Register.load(f)


def test_a_tallied_row_not_in_the_register_fails_the_reproduction(tmp_path):
    reg = _toy_register(tmp_path, '[[claim]]\nid = "m"\nwhere = "Fig. 1"\npage = "p. 1"\nsays = "A ≤ 1"\n'
                                  'series = "A"\nmetric = "A"\ncriterion = { kind = "bound", at_most = 1.0, '
                                  'what = "A" }\ntally = false\nout = "a bound of the model"\n')
    good = lambda: [reg.judge("a", {1: (3.0, 1.0)}), reg.judge("m", 0.5)]  # noqa: E731
    p = _paper(_fig("1", good))
    p.register = reg
    rep = reproduce(p, out=tmp_path / "ok", jobs=1, progress=False, echo=None)
    assert not rep.errors, rep.errors
    by = {c.claim: c for c in rep.comparisons}
    assert by["a"].verdict == "agrees" and by["m"].verdict == MODEL_CHECK and by["m"].judged == "agrees"
    assert rep.counts()["agrees"] == 1 and "1 model check(s) (1 hold)" in rep.tally_text()
    # the figure judging a claim itself, and a claim the register lacks
    for rows, why in ((lambda: [_claim("A beats B")], "no claim of the register judged it"),
                      (lambda: [Comparison("A", 1, 2, "agrees", criterion="c", claim="zz")], "not in the register"),
                      (lambda: [Comparison("A", 1, 2, "agrees", criterion="c", claim="m")], "is a model check")):
        p = _paper(_fig("1", rows))
        p.register = reg
        rep = reproduce(p, out=tmp_path / "bad", jobs=1, progress=False, echo=None)
        assert "1" in rep.errors and why in rep.errors["1"], rep.errors


@pytest.mark.parametrize("field, text, why", [
    ("why", 'why = "measured"\n', "field 'why' is missing"),
    ("page", 'page = "p. 1"\n', "field 'page' is missing"),
])
def test_a_register_entry_without_its_fields_is_refused(tmp_path, field, text, why):
    with pytest.raises(ValueError, match=why):
        f = tmp_path / "claims.toml"
        _toy_register(tmp_path)  # the whole entry loads
        f.write_text(f.read_text(encoding="utf-8").replace(text, ""), encoding="utf-8")
        Register.load(f)


@pytest.mark.parametrize("key", REGISTERED)
def test_every_register_claim_is_about_the_papers_series(key):
    p = get_paper(key)
    assert p.register is not None and p.register.paper == key
    for c in p.register.claims:
        assert set(c.series.split("; ")) <= set(p.series), c.id
        assert c.criterion["kind"] in SYNTHETIC, f"{c.id}: no synthetic inputs for {c.criterion['kind']!r}"


def test_the_papers_share_one_claim_helper():
    # rps and tcprand each defined their own `claim`; one module serves both now
    from dcnsim.experiments.rps import paths
    assert paths.claim is claims_mod.claim


def test_a_constant_band_fails_the_both_ways_test_on_fasts_register(monkeypatch):
    reg = get_paper("fast").register
    monkeypatch.setitem(KINDS, "band", lambda p, m: ("agrees", "x", "always agrees"))
    problems = both_ways_problems(reg)
    assert {p.split(":")[0] for p in problems} == _judged_by(reg, "band")


def test_fasts_contrasts_are_judged_as_contrasts():
    """Issue 43 item 6: Fig. 4's order is not a tie; Fig. 8's "slightly
    more" and "almost the same" take bands that do not overlap; Fig. 11's
    index passes FaST's 0.999 and not NewReno's or DCTCP's (the last full
    run's 0.9886 and 0.9920)."""
    reg = get_paper("fast").register
    tie = {"NewReno": (32.2, 0.06), "DCTCP": (31.9, 0.08), "FaST": (16.1, 1.0)}
    assert judge_spec(reg["fig4-order"].criterion, tie)[0] == "differs"
    assert judge_spec(reg["fig4-order"].criterion, {"NewReno": (72, 2), "DCTCP": (43, 2), "FaST": (16, 1)})[0] == \
        "agrees"
    more, same = reg["fig8-more"].criterion, reg["fig8-fast-same"].criterion
    assert more["lo"] >= same["hi"] and more.get("lo_open")
    for r in (0.95, 1.0, 1.1, 1.12, 1.6, 2.0, 2.5):
        assert not (judge_spec(more, r)[0] == "agrees" and judge_spec(same, r)[0] == "agrees"), r
    assert judge_spec(same, 1.60)[0] == "differs"  # the old band 0.5–2 passed it
    jain = reg["fig11-jain"].criterion
    assert judge_spec(jain, 0.999)[0] == "agrees"
    # the printed 0.999 to its last digit, from the paper's text: 0.9985 rounds to it, 0.9984 does not
    assert judge_spec(jain, 0.9985)[0] == "agrees" and judge_spec(jain, 0.9984)[0] == "differs"
    assert [judge_spec(jain, j)[0] for j in (0.9886, 0.9920)] == ["differs", "differs"]


def test_fasts_register_keeps_the_issues_rows_out_and_one_row_per_claim():
    reg = get_paper("fast").register
    out = {c.id for c in reg.claims if not c.tally}
    # §2.2's 35 workers is the DCTCP paper's testbed, cited: not FaST's claim
    assert {"s3-onset", "s3-onset-ratio", "s3-onset-topology"} <= out
    assert len([c for c in reg.claims if c.where.startswith("Fig. 10")]) == 1
    assert "fig7-raises" in reg.by_id and reg["fig7-raises"].tally


def test_the_new_kinds_can_fail_both_ways():
    """ranked, band and all, each fed the synthetic inputs of its two sides."""
    specs = [{"kind": "ranked", "order": ["A", "B", "C"], "min_ratio": 1.1},
             {"kind": "band", "lo": 1.1, "hi": 2.0, "lo_open": True, "what": "r"},
             {"kind": "all", "of": [{"key": "x", "kind": "ordering", "sign": 1, "what": "d"},
                                    {"key": "y", "kind": "bound", "at_least": 0.95, "what": "j"}]}]
    for spec in specs:
        on, other = SYNTHETIC[spec["kind"]](spec)
        assert judge_spec(spec, on)[0] in ON_SIDE, spec
        assert [judge_spec(spec, o)[0] for o in other] == ["differs"] * len(other), spec


# ---------------------------------------------------------------- Kulkarni's register (issue 43)


def _threshold_inputs(p):
    if "at_least" in p:
        strong, weak = float(p["at_least"]), float(p.get("trend_at_least", p["at_least"]))
        return strong + abs(strong) + 1.0, [weak - abs(weak) - 1.0, [strong + 1.0, weak - 1.0]]
    strong, weak = float(p["at_most"]), float(p.get("trend_at_most", p["at_most"]))
    return strong - abs(strong) - 1.0, [weak + abs(weak) + 1.0, [strong - 1.0, weak + 1.0]]


def _step_ratio_inputs(p):
    r = (float(p["lo"]) + float(p["hi"])) / 2
    return {1: 4.0, 2: 4.0 * r, 4: 4.0 * r * r}, [{1: 8.0, 2: 6.0, 4: 4.0}, {1: 4.0, 2: 4.0 * r, 4: 4.0 * r}]


def _slope_ratio_inputs(p):
    ns = range(40, 101, 10)
    # a line; against it, plausible counts that saturate (√n, log n) or accelerate (n²)
    return ({n: 1.5 * n - 50 for n in ns},
            [{n: 20 * math.sqrt(n) for n in ns}, {n: 30 * math.log(n) for n in ns}, {n: n * n / 50 for n in ns}])


SYNTHETIC.update({"threshold": _threshold_inputs, "step_ratio": _step_ratio_inputs, "slope_ratio": _slope_ratio_inputs})


def test_kulkarnis_tallied_criteria_can_fail_both_ways():
    reg = get_paper("kulkarni").register
    assert reg is not None and len(reg.tallied) >= 30
    assert both_ways_problems(reg) == []
    # every claim is about the dissertation's series, with inputs to test it
    for c in reg.claims:
        assert set(c.series.split("; ")) <= set(get_paper("kulkarni").series), c.id
        assert c.criterion["kind"] in SYNTHETIC, c.id


@pytest.mark.parametrize("kind", ["threshold", "band", "bound", "rises"])
def test_a_kulkarni_criterion_made_constant_fails_the_both_ways_test(monkeypatch, kind):
    reg = get_paper("kulkarni").register
    monkeypatch.setitem(KINDS, kind, lambda p, m: ("agrees", "x", "always agrees"))
    problems = both_ways_problems(reg)
    assert {p.split(":")[0] for p in problems} == _judged_by(reg, kind)


def test_kulkarnis_trace_findings_are_tallied_and_compression_is_not_the_papers():
    """Fig. 3.12's whole-window (n ≤ 3) and too-few-dupACK (n > 3) shares
    are what the dissertation found in its ns-2 traces (p. 68) before it
    built eq. 3.40 on them: findings that can fail, tallied (issue 43 had
    kept them out as the model's premises; a model check must hold by
    construction, and these differ). Fig. 4.11's header-compression rows
    are not the paper's."""
    reg = get_paper("kulkarni").register
    assert reg["fig3.12-whole-window"].tally and reg["fig3.12-few-dupacks"].tally
    assert not [c.id for c in reg.claims if not c.tally and not c.counted_in]
    assert not any("compression" in c.says or "compression" in c.metric for c in reg.tallied)
    assert {c.id for c in reg.tallied if c.where == "Fig. 4.11"} == {"fig4.11-penalty", "fig4.11-better"}


def test_the_new_criteria_judge_each_value_and_their_trend():
    thr = {"kind": "threshold", "at_least": 10.0, "trend_at_least": 3.1623, "what": "r"}
    assert [judge_spec(thr, v)[0] for v in (12.0, 5.6, 2.0)] == ["agrees", "trend agrees", "differs"]
    assert judge_spec(thr, [12.0, 5.6])[0] == "trend agrees"  # every value, not the best one
    assert judge_spec(thr, float("nan"))[0] == "untestable"
    band = {"kind": "band", "lo": 0.7, "hi": 0.995, "what": "DSR / TCP"}
    assert [judge_spec(band, v)[0] for v in ([0.9, 0.8], [0.9997, 1.05], [0.9, 1.0], 0.5)] == \
        ["agrees", "differs", "differs", "differs"]
    assert judge_spec(dict(band, outside=True), 0.25)[0] == "agrees"
    steps = {"kind": "step_ratio", "lo": 1.5, "hi": 2.5, "what": "onset"}
    assert judge_spec(steps, {16: 4, 32: 8, 64: 16})[0] == "agrees"
    assert judge_spec(steps, {16: 6, 32: 8, 64: 11, 128: 16, 256: 32})[0] == "trend agrees"
    assert judge_spec(steps, {16: 6, 32: 6, 64: 11})[0] == "differs"


# ---------------------------------------------------------------- TCPRand's register (issues 43, 46)


@pytest.mark.parametrize("kind", ["level", "near"])
def test_a_criterion_kind_made_constant_fails_the_both_ways_test(monkeypatch, kind):
    """The kinds TCPRand added: each made constant, the both-ways test
    names exactly the claims judged by it."""
    reg = get_paper("tcprand").register
    monkeypatch.setitem(KINDS, kind, lambda p, m: ("agrees", "x", "always agrees"))
    problems = both_ways_problems(reg)
    assert problems and all("other side" in p for p in problems), problems
    assert {p.split(":")[0] for p in problems} == _judged_by(reg, kind)


def test_level_is_judged_on_the_distribution_over_seeds():
    """Issue 46 item 3: F1 starved on some seeds and not others is not an
    outcast the paper can count: the CI over seeds must clear the level."""
    spec = {"kind": "level", "sign": -1, "ref": 0.5, "what": "F1 ÷ fair share"}
    # the C baseline at Qmax 20 over five seeds (1460 + 40 B): 3 seeds ahead, 2 starved
    shares = [2.3, 2.9, 2.95, 0.6, 2.8]
    from dcnsim.analysis import ci95
    assert judge_spec(spec, {20: ci95(shares)})[0] == "differs"
    assert judge_spec(spec, {20: ci95([0.05, 0.06, 0.04, 0.05, 0.06])})[0] == "agrees"
    # the mean below, the CI reaching over the level: not even a trend alone
    assert judge_spec(spec, {20: (0.3, 0.4)})[0] == "differs"
    # each CI reaching over, the mean over the x clear of it: a trend, not agreement
    assert judge_spec(spec, {x: (0.3, 0.25) for x in (20, 60, 100)})[0] == "trend agrees"


def test_near_counts_the_mean_not_a_ci_that_reaches_in():
    spec = {"kind": "near", "lo": 0.75, "hi": 1.33, "what": "share"}
    assert judge_spec(spec, {4: (1.0, 0.1), 8: (0.9, 0.1)})[0] == "agrees"
    assert judge_spec(spec, {4: (1.0, 0.1), 8: (0.52, 0.3), 16: (0.9, 0.0)})[0] == "trend agrees"
    assert judge_spec(spec, {4: (1.3, 0.1), 8: (0.97, 0.1), 16: (0.6, 0.5), 32: (0.52, 0.5), 64: (0.53, 0.5)})[0] \
        == "differs"


def test_tcprands_register_tallies_the_issues_rows():
    """Issue 43 items 3, 5 and 6 as data: Fig. 5's two constructions are
    model checks, Fig. 16 is registered (a testbed entry since the register's
    second audit: §8.2 ran it on the testbed), the outcast is F1's share over
    seeds, DCTCP's goodput loss has its direction, and a tie is not shorter."""
    reg = get_paper("tcprand").register
    assert not reg["fig5-x2-full"].tally and not reg["fig5-both"].tally
    assert reg["fig16-converge"].testbed and not reg["fig16-converge"].tally
    for cid in ("fig8a-c-outcast", "fig8a-n-outcast", "fig10-outcast"):
        assert reg[cid].criterion["kind"] == "level" and ("F1" in reg[cid].metric or "2-hop" in reg[cid].metric)
    assert judge_spec(reg["fig8b-dctcp-q20"].criterion, 1.014)[0] == "differs"
    assert judge_spec(reg["fig11-long"].criterion, 1.0)[0] == "differs"
    assert judge_spec(reg["fig10-fair"].criterion, {n: (0.53, 0.05) for n in (16, 32, 64, 112)})[0] == "differs"
    # the seeds decide Fig. 9's "every group more timeouts", not one seed
    assert reg["fig9-q20-more"].criterion["kind"] == "ordering"
    # the whole tally under the other header, beside: every tallied claim is
    # re-run under it or listed as one it cannot change
    (b,) = reg.beside
    from dcnsim.experiments.tcprand import HEADERS_52
    assert HEADERS_52.startswith(b["match"])


def test_a_partial_run_is_recorded_with_its_missing_claims_not_run(tmp_path, monkeypatch):
    """A run that did not finish every figure is refused unless recorded
    as partial; then its missing claims are named and render "not run"."""
    import json

    from dcnsim.experiments import tallies

    p = get_paper("rps")
    run = tmp_path / "run"
    run.mkdir()
    c = p.register.judge("fig7-ooo", 16.0)
    rec = {"id": "7", "comparisons": [{"quantity": c.quantity, "ours": c.ours, "verdict": c.verdict, "note": "",
                                       "claim": c.claim, "measured": c.measured, "series": c.series}]}
    (run / "fig7.report.json").write_text(json.dumps(rec), encoding="utf-8")
    monkeypatch.setattr(tallies, "results_path", lambda paper: tmp_path / "results.json")
    with pytest.raises(ValueError, match="record a full run of every figure"):
        tallies.record("rps", run, commit="abc", command="x", date="2026-01-01")
    tallies.record("rps", run, commit="abc", command="x", date="2026-01-01", partial=True)
    res = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert res["source"] == "partial run" and list(res["rows"]) == ["fig7-ooo"]
    assert set(res["not_run"]) == {x.id for x in p.register.claims} - {"fig7-ooo"}
    text = tallies.render("rps")
    others = len(p.register.tallied) - 1
    assert f"**1 tested claim of the paper: 1 agrees** (not run {others})" in text and "partial run at abc" in text


# ---------------------------------------------------------------- one statement, one count


@pytest.mark.parametrize("key", ("rps", "fast", "tcprand", "kulkarni"))
def test_every_point_of_a_statement_is_counted_in_one_tallied_claim(key):
    reg = get_paper(key).register
    for c in reg.claims:
        if c.counted_in:
            assert not c.tally and c.out, c.id
            assert all(reg[o].tally for o in c.counted_in), c.id
        parts = reg.parts(c.id)
        if parts:
            assert c.tally and c.criterion["kind"] == "all", c.id
            assert [s["key"] for s in c.criterion["of"]] == parts
            assert all(reg[i].counted_in == (c.id,) for i in parts), c.id
    # a point is in one statement only
    pts = [i for c in reg.claims for i in reg.parts(c.id)]
    assert len(pts) == len(set(pts)), key


def test_the_reviews_repeated_statements_are_counted_once():
    t, k, f = (get_paper(x).register for x in ("tcprand", "kulkarni", "fast"))
    static = {f"fig8a-{s}-fairer" for s in ("ct200", "ct100", "ct50", "nt200", "nt100", "nt50")} | {"fig8a-rmin"}
    assert set(t.parts("fig8a-static-fairer")) == static
    assert t["fig8a-ctd-fairer"].tally  # §10's adaptive TCPRand: a statement of its own
    assert set(k.parts("fig4.7-4.10-fewer")) == {"fig4.7-n5", "fig4.8-n10", "fig4.9-n20", "fig4.10-n50"}
    assert not f["fig4-order"].tally and set(f["fig4-order"].counted_in) == {"fig4-newreno", "fig4-dctcp", "fig4-fast"}
    # Fig. 9: F1's points are judged by F1's claims only
    assert judge_spec(t["fig9-hi-shorter"].criterion, {60.2: (5.0, 0.1), 60.4: (-1.0, 0.1)})[0] == "agrees"
    assert judge_spec(t["fig9-q20-more"].criterion, {2: (-9.0, 0.1), 4: (1.0, 0.1), 6: (1.0, 0.1)})[0] == "agrees"


def test_a_statement_is_judged_on_all_its_points_in_a_live_run(tmp_path):
    f = tmp_path / "claims.toml"
    f.write_text('paper = "toy"\n'
                 '[[claim]]\nid = "s"\nwhere = "Fig. 1"\npage = "p. 1"\nsays = "A and C beat B"\nseries = "A; B; C"\n'
                 'metric = "both"\ncriterion = { kind = "parts", of = ["a", "c"] }\nwhy = "one sentence"\n'
                 + "".join(f'[[claim]]\nid = "{x}"\nwhere = "Fig. 1"\npage = "p. 1"\nsays = "{x.upper()} beats B"\n'
                           f'series = "{x.upper()}; B"\nmetric = "{x.upper()} − B"\n'
                           f'criterion = {{ kind = "ordering", sign = 1, what = "d" }}\ncounted_in = "s"\n'
                           f'out = "a point of s"\n' for x in "ac"), encoding="utf-8")
    reg = Register.load(f)
    assert [c.id for c in reg.tallied] == ["s"]
    rows = lambda: [reg.judge("a", {1: (3.0, 1.0)}), reg.judge("c", {1: (-3.0, 1.0)})]  # noqa: E731
    p = Paper("toy", "A toy paper", "Nobody, 2026.", [_fig("1", rows)], series=("A", "B", "C"))
    p.register = reg
    rep = reproduce(p, out=tmp_path / "run", jobs=1, progress=False, echo=None)
    assert not rep.errors, rep.errors
    by = {c.claim: c for c in rep.comparisons}
    assert by["a"].verdict == by["c"].verdict == "counted in another claim"
    assert (by["a"].judged, by["c"].judged) == ("agrees", "differs")
    assert by["s"].verdict == "differs" and rep.counts()["differs"] == 1 and sum(rep.counts()[v] for v in TALLIED) == 1
    # an entry counted elsewhere and tallied as well is refused
    f.write_text(f.read_text(encoding="utf-8").replace('counted_in = "s"\n', 'counted_in = "s"\ntally = true\n', 1),
                 encoding="utf-8")
    with pytest.raises(ValueError, match="is not tallied"):
        Register.load(f)


def test_one_run_per_x_is_no_interval_and_says_so():
    """One run per x (Kulkarni's deterministic trials, a --quick run's one
    seed) has no confidence interval: the rule said "4/4 significant" of
    intervals of ±0. Now the means alone decide, and the rule and the
    numbers say so; the verdicts are what the means give, both ways."""
    import math

    from dcnsim.analysis import ci95
    from dcnsim.experiments.claims import judge_spec

    spec = {"kind": "ordering", "sign": 1, "what": "A − B"}
    one = {16: ci95([0.5]), 32: ci95([0.7])}
    assert all(math.isnan(h) for _, h in one.values())
    verdict, ours, rule = judge_spec(spec, one)
    assert verdict == "agrees" and "significant" not in rule and "one run per x: no interval" in rule
    assert ours == "16: +0.5 ± n/a; 32: +0.7 ± n/a"
    assert judge_spec(spec, {16: ci95([-0.5]), 32: ci95([-0.7])})[0] == "differs"
    rises = {"kind": "rises", "sign": 1, "what": "goodput"}
    v, _, rule = judge_spec(rises, {1: ci95([1.0]), 2: ci95([2.0]), 3: ci95([3.0])})
    assert v == "agrees" and "one run per x" in rule
    assert judge_spec(rises, {1: ci95([3.0]), 2: ci95([2.0]), 3: ci95([1.0])})[0] == "differs"
    # several runs: intervals as before
    _, _, rule = judge_spec(spec, {16: ci95([0.4, 0.6, 0.5]), 32: ci95([0.6, 0.8, 0.7])})
    assert "2/2 significant" in rule and "one run" not in rule


def test_a_run_names_the_registers_claims_it_did_not_judge():
    """A --quick run leaves series out, so some of a figure's claims have no
    row: the tally line names them (tcprand's quick tally said "33 tested
    claims" of 36 and nothing of the 3); claims of figures the run did not
    include are not missing. Fig. 11's own study says its claims are
    TCPRand's, counted in that tally."""
    import json
    from pathlib import Path

    from dcnsim.experiments.framework import Report
    from dcnsim.experiments.paper import FigureResult
    from dcnsim.experiments.registry import get_paper

    paper = get_paper("tcprand")
    from dcnsim.experiments import tallies

    rows = json.loads(Path(paper.register.source).with_name("results.json").read_text())["rows"]
    rows.update(tallies._statements(paper, rows))  # a claim of parts recorded as its points
    fig8a = [c.id for c in paper.register.claims  # the register's order
             if c.tally and not c.counted_in and rows.get(c.id, {}).get("figure") == "8a"]
    assert fig8a
    report = Report(paper, Path("."), True, {"8a": FigureResult(None, [], [])}, {}, 0.0, 0, 0, 1)
    text = report.tally_text()
    assert f"{len(fig8a)} of the register's tallied claims not run (--quick): {', '.join(fig8a)}" in text, text
    assert "fig11" not in text  # Fig. 11 was not in this run
    fct = Report(get_paper("tcprand_fct"), Path("."), True, {}, {}, 0.0, 0, 0, 1)
    assert fct.tally_text().startswith("part of tcprand's tally")


def test_a_variants_model_checks_are_counted_with_the_variants():
    """Kulkarni's "4 model check(s)" in the paper's line held 2 of its
    bytes variant's: a check under a setting of ours is counted on the
    "beyond the paper" line, as that variant's other rows are."""
    from dcnsim.experiments.framework import beyond_text

    rows = [Comparison("A", 1, 2, "agrees", criterion="c", claim="a"),
            Comparison("m", 1, 1, MODEL_CHECK, criterion="c", judged="agrees", claim="m"),
            Comparison("m, bytes", 1, 1, MODEL_CHECK, criterion="c", judged="agrees", claim="m", setting="bytes"),
            Comparison("m, bytes", 1, 1, MODEL_CHECK, criterion="c", judged="differs", claim="m", setting="bytes")]
    assert "1 model check(s) (1 hold)" in tally_text(rows)
    assert "2 model check(s) (1 hold)" in beyond_text(rows)


def test_one_sentence_is_one_claim_and_no_claim_is_invented():
    """A reviewer's audit as data: a clause naming two series is one claim
    (TCPRand's "the regular TCP (i.e., N and C) suffers from ... the TCP
    outcast"; RPS's "slightly decreases": direction and size), and Figs.
    3.13-3.20's "Split fits better than Full" is not the dissertation's (its
    text says so of Fig. 3.12 alone): checked beside fig3.12-split, not
    tallied. A point two claims would judge is judged by one."""
    tcprand, rps, kul = (get_paper(k).register for k in ("tcprand", "rps", "kulkarni"))
    assert tcprand.parts("fig8a-outcast") == ["fig8a-c-outcast", "fig8a-n-outcast"]
    assert rps.parts("fig8-slight-decrease") == ["fig8-lower", "fig8-slightly"]
    for cid in ("fig3.13-split", "fig3.17-split"):
        assert not kul[cid].tally and kul[cid].counted_in == ("fig3.12-split",)
    # a slight *increase* is not "slightly decreases", however small
    both = {"fig8-lower": {2: (3.0, 1.0), 4: (2.0, 0.5)}, "fig8-slightly": 1.0}
    assert judge_spec(rps["fig8-slight-decrease"].criterion, both)[0] == "differs"
    # Qmax 20 is fig9-f1-period's point; 0 Mbps of background is Fig. 8a's run
    assert 20 in tcprand["fig9-f1-shorter"].criterion["exclude"]
    assert 0 in tcprand["fig8c-fairer"].criterion["exclude"]


def test_a_testbed_claim_is_in_the_register_judged_and_never_tallied(tmp_path):
    """A claim the paper measured on hardware we do not model is still one
    entry of its register (a reviewer finds every claim there): judged by
    its criterion, shown "testbed not modelled" with our criterion's
    verdict kept, never counted."""
    from dcnsim.experiments.paper import NOT_MODELLED

    tb = ('[[claim]]\nid = "t"\nwhere = "Fig. 2"\npage = "p. 2"\nsays = "A ≤ 1 on the testbed"\nseries = "A"\n'
          'metric = "A"\ncriterion = { kind = "bound", at_most = 1.0, what = "A" }\ntestbed = true\n'
          'out = "testbed not modelled: its switches"\n')
    reg = _toy_register(tmp_path, tb)
    assert [c.id for c in reg.tallied] == ["a"]
    row = reg.judge("t", 3.0)
    assert row.verdict == NOT_MODELLED and row.judged == "differs" and "our criterion gives: differs" in row.note
    assert register_problems(reg, [row]) == []
    p = _paper(_fig("1", lambda: [reg.judge("a", {1: (3.0, 1.0)}), reg.judge("t", 0.5)]))
    p.register = reg
    rep = reproduce(p, out=tmp_path / "ok", jobs=1, progress=False, echo=None)
    assert not rep.errors, rep.errors
    assert rep.counts()["agrees"] == 1 and "1 testbed not modelled" in rep.tally_text()
    for bad, why in (("testbed = true\n", "testbed = true\ntally = true\n"), ("testbed = true\n", "testbed = 1\n"),
                     ('out = "testbed not modelled: its switches"\n', "")):
        with pytest.raises(ValueError, match="testbed"):
            _toy_register(tmp_path, tb.replace(bad, why))


def test_tcprands_testbed_figures_are_in_its_register():
    """Figs. 12-14 and 17 ran on the paper's testbed: their claims are the
    register's (Fig. 17's "TCPRand's windows vary more asynchronously" was
    judged in figure code and missing), out of the tally."""
    reg = get_paper("tcprand").register
    testbed = {c.id for c in reg.claims if c.testbed}
    assert {"fig12-fairer", "fig13-single", "fig14-sack", "fig17-async"} <= testbed
    assert not testbed & {c.id for c in reg.tallied}
    # synchrony is cutting together: the joint-cut share, not a correlation
    # (a negative one is windows taking turns)
    assert judge_spec(reg["fig17-async"].criterion, {"C": (0.23, math.nan), "CTD": (0.52, math.nan)})[0] == "differs"
    assert judge_spec(reg["fig17-async"].criterion, {"C": (0.52, math.nan), "CTD": (0.23, math.nan)})[0] == "agrees"


# ---------------------------------------------------------------- a claim counted once, by the register


def test_a_claim_judged_twice_fails_its_figure_and_the_second_figure(tmp_path):
    """Two rows of one claim were two tallied claims (and `tallies record`
    kept the last): a figure judging a claim twice fails, and so does a
    second figure judging a claim another figure of the run tallied."""
    reg = _toy_register(tmp_path)
    twice = _paper(_fig("1", lambda: [reg.judge("a", {1: (3.0, 1.0)}), reg.judge("a", {1: (-3.0, 1.0)})]))
    twice.register = reg
    rep = reproduce(twice, out=tmp_path / "twice", jobs=1, progress=False, echo=None)
    assert "judged twice" in rep.errors.get("1", ""), rep.errors
    two = _paper(_fig("1", lambda: [reg.judge("a", {1: (3.0, 1.0)})]), _fig("2", lambda: [reg.judge("a", {1: (-3.0, 1.0)})]))
    two.register = reg
    rep = reproduce(two, out=tmp_path / "two", jobs=1, progress=False, echo=None)
    assert "1" not in rep.errors and "tallied by Fig. 1 already" in rep.errors.get("2", ""), rep.errors
    assert rep.counts()["agrees"] == 1 and rep.counts()["differs"] == 0


def test_a_verdict_the_register_did_not_give_fails_the_figure(tmp_path):
    """A row judged by the figure's own code and tagged with a claim of the
    register was tallied: the register's criterion judges the row's
    measurement again, and another verdict is refused."""
    import dataclasses

    reg = _toy_register(tmp_path)
    own = dataclasses.replace(reg.judge("a", {1: (3.0, 1.0)}), verdict="differs")
    p = _paper(_fig("1", lambda: [own]))
    p.register = reg
    rep = reproduce(p, out=tmp_path / "forged", jobs=1, progress=False, echo=None)
    assert "is not what the register's criterion gives" in rep.errors.get("1", ""), rep.errors


def test_a_quick_run_is_not_recorded_as_the_papers_tally(tmp_path, monkeypatch):
    import json

    from dcnsim.experiments import tallies

    p = get_paper("rps")
    run = tmp_path / "run"
    run.mkdir()
    c = p.register.judge("fig7-ooo", 16.0)
    rec = {"id": "7", "quick": True, "comparisons": [{"quantity": c.quantity, "ours": c.ours, "verdict": c.verdict,
                                                      "note": "", "claim": c.claim, "measured": c.measured,
                                                      "series": c.series}]}
    (run / "fig7.report.json").write_text(json.dumps(rec), encoding="utf-8")
    monkeypatch.setattr(tallies, "results_path", lambda paper: tmp_path / "results.json")
    with pytest.raises(ValueError, match="--quick"):
        tallies.record("rps", run, commit="abc", command="x", date="2026-01-01", partial=True)
    assert not (tmp_path / "results.json").exists()


def test_a_quick_and_a_full_figure_are_not_merged_into_one_report(tmp_path):
    rows = lambda: [_claim("A beats B")]  # noqa: E731
    p = _paper(_fig("1", rows), _fig("2", rows))
    reproduce(p, figures=["1"], quick=True, out=tmp_path, jobs=1, progress=False, echo=None)
    # a full run into the quick run's directory is refused (its report, and
    # the simulations the two share labels with, would be replaced) ...
    quick_md = (tmp_path / "report.md").read_text()
    with pytest.raises(OutputDirError, match="holds the reproduction of toy's quick run .* this toy full run"):
        reproduce(p, figures=["2"], quick=False, out=tmp_path, jobs=1, progress=False, echo=None)
    assert (tmp_path / "report.md").read_text() == quick_md
    # ... and with that report moved away, the quick section is not merged
    (tmp_path / "report.md").rename(tmp_path / "quick-report.md")
    reproduce(p, figures=["2"], quick=False, out=tmp_path, jobs=1, progress=False, echo=None)
    md = (tmp_path / "report.md").read_text()
    assert "figure 2" in md and "figure 1" not in md


def test_another_papers_reproduction_in_the_directory_is_refused_before_it_runs(tmp_path):
    # its report.md was replaced by this paper's, and a figure id both have
    # (fig10.csv, fig10.report.json) merged the other paper's section in
    rows = lambda: [_claim("A beats B")]  # noqa: E731
    reproduce(_paper(_fig("1", rows)), out=tmp_path, jobs=1, progress=False, echo=None)
    before = {f.name: f.read_bytes() for f in tmp_path.iterdir() if f.is_file()}
    other = Paper("other", "Another paper", "Somebody, 2026.", [_fig("1", rows)])
    with pytest.raises(OutputDirError) as e:
        reproduce(other, out=tmp_path, jobs=1, progress=False, echo=None)
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path}: holds the reproduction of the full run of 'A toy paper' (report.md); "
                          "this other full run would replace its report"), msg
    # moving report.md away would leave the toy's fig1 section to merge into
    # the other's report (an audit did as the message said): not suggested
    assert "dcnsim-repro/other" in msg and "away" not in msg, msg
    assert {f.name: f.read_bytes() for f in tmp_path.iterdir() if f.is_file()} == before
    # done anyway, the toy's sections refuse it: its Fig. 1 is not the other's
    (tmp_path / "report.md").rename(tmp_path / "toy-report.md")
    with pytest.raises(OutputDirError, match=r"holds figure sections of toy's reproduction \(fig1.report.json\) "
                                             r"without its report.md; this other full run would mix"):
        reproduce(other, out=tmp_path, jobs=1, progress=False, echo=None)
    (tmp_path / "toy-report.md").rename(tmp_path / "report.md")
    # a report.md of someone else's is not replaced either
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "report.md").write_text("# my notes\n")
    with pytest.raises(OutputDirError, match="not a dcnsim reproduction's"):
        reproduce(other, out=tmp_path / "elsewhere", jobs=1, progress=False, echo=None)
    assert (tmp_path / "elsewhere" / "report.md").read_text() == "# my notes\n"


def test_the_not_run_line_names_a_failed_analysis(tmp_path):
    reg = _toy_register(tmp_path)

    def broken():
        raise RuntimeError("the analysis broke")

    # Fig. 2's variant row judged by claim a is ours, not the claim's row
    p = _paper(_fig("1", broken), _fig("2", lambda: [reg.variant("a", {1: (3.0, 1.0)}, quantity="A at 10G",
                                                                 setting="10 Gbps (ours)")]))
    p.register = reg
    rep = reproduce(p, out=tmp_path, jobs=1, progress=False, echo=None)
    assert "1" in rep.errors
    assert "1 of the register's tallied claims not run (analysis failed: Fig. 1): a" in rep.tally_text()


def test_a_register_named_for_another_paper_is_refused(monkeypatch):
    """A copied claims.toml that kept `paper = "rps"` left the new paper out
    of every render and drift check without a word."""
    import dataclasses

    from dcnsim.experiments import registry, tallies

    p = get_paper("fast")
    copy = dataclasses.replace(p, key="toy2")
    monkeypatch.setitem(registry.PAPERS, "toy2", copy)
    with pytest.raises(ValueError, match="paper = 'fast', but it is paper 'toy2'"):
        tallies.registered_papers()


def test_a_strict_bound_or_threshold_never_passes_no_effect():
    """A bound that is the claim's null (a lead of 0 for "much better", a
    ratio of 1 for "underestimates") differs at the tie when ``strict``, and
    a strict trend level of 0 for a correlation is no trend at 0: the
    register's strict claims fed exactly their bound differ (they agreed)."""
    lead = {"kind": "bound", "strict": True, "at_least": 0.0, "what": "lead"}
    assert [judge_spec(lead, v)[0] for v in (0.3, 0.0, -0.1)] == ["agrees", "differs", "differs"]
    assert judge_spec(dict(lead, strict=False), 0.0)[0] == "agrees"  # what it said before
    rho = {"kind": "threshold", "strict": True, "at_most": -0.7, "trend_at_most": 0.0, "what": "ρ"}
    assert [judge_spec(rho, v)[0] for v in ([-0.8, -0.9], [-0.8, -0.2], [-0.8, 0.0])] == \
        ["agrees", "trend agrees", "differs"]
    reg = get_paper("kulkarni").register
    strict = [c for c in reg.tallied if c.criterion.get("strict")]
    assert {c.id for c in strict} >= {"fig3.12-split", "fig3.8-under", "fig3.10-mid", "fig3.10-small",
                                      "fig4.7-drops"}
    for c in strict:
        p = c.criterion
        null = float(p.get("trend_at_most", p.get("trend_at_least", p.get("at_most", p.get("at_least")))))
        assert judge_spec(p, null)[0] == "differs", c.id


def test_a_claim_of_always_agrees_only_with_every_mean_on_its_side():
    """``every`` (a claim of "always", "every group"): a mean on the wrong
    side at one x, however wide its CI, is a trend at best (it agreed: the
    rule asks only that no CI be on the wrong side)."""
    spec = {"kind": "ordering", "sign": 1, "what": "a − b"}
    one_back = {1: (0.3, 0.1), 2: (0.3, 0.1), 3: (-0.05, 0.1)}
    assert judge_spec(spec, one_back)[0] == "agrees"
    assert judge_spec(dict(spec, every=True), one_back)[0] == "trend agrees"
    assert judge_spec(dict(spec, every=True), {x: (0.3, 0.1) for x in (1, 2, 3)})[0] == "agrees"
    assert judge_spec(dict(spec, sign=-1, every=True), {1: (-5.0, 1.0), 2: (0.5, 1.0)})[0] == "differs"
    # the registers' claims of "always" / "every" / "whatever Qmax" carry it
    for key, ids in (("tcprand", {"fig8c-fairer", "fig9-q20-more", "fig9-q100-fewer", "fig9-f1-shorter",
                                  "fig9-hi-shorter", "fig12-fairer", "fig8a-ctd-fairer"}),
                     ("kulkarni", {"fig3.13-split", "fig3.17-split"})):
        reg = get_paper(key).register
        assert all(reg[i].criterion.get("every") for i in ids), key
