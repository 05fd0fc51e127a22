"""`dcnsim reproduce kulkarni` on several seeds per point.

A seed draws the request jitter and the order of equal-time events, and at
small n that order decides a point, so each simulated point of a full run
runs on every seed of SEEDS and is judged on the mean over them (its
interval over the seeds' own values where a criterion takes one); seed 1
keeps the one-seed label, so a one-seed run's points resume. The quick run
keeps one seed."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from conftest import needs_core
from dcnsim.experiments import get_paper


def test_full_run_runs_every_simulated_point_on_each_seed():
    """Every figure's full point list holds each point on every seed of
    SEEDS (seed 1 under its one-seed label, the others with ``-s{seed}``,
    the scenario's own seed set), the quick run one seed."""
    from dcnsim.experiments.kulkarni.common import QUICK_SEEDS, SEEDS, seed_label

    assert SEEDS == (1, 2, 3, 4, 5) and QUICK_SEEDS == (1,)
    p = get_paper("kulkarni")
    tallied = {f.id for f in p.figures if not f.setting}
    assert {"3.8", "3.13–3.16", "3.17–3.20", "4.1", "4.2", "4.3", "4.4", "4.5", "4.6", "4.7–4.10",
            "4.11"} <= tallied
    for f in p.figures:
        pts = f.points(False)
        assert pts, f.id
        by_base: dict = {}
        for pt in pts:
            base = pt.label if pt.seed == 1 else pt.label[: -len(f"-s{pt.seed}")]
            assert pt.label == seed_label(base, pt.seed), (f.id, pt.label)
            assert pt.scenario["seed"] == pt.seed and pt.scenario["name"] == pt.label, (f.id, pt.label)
            by_base.setdefault(base, set()).add(pt.seed)
        assert all(s == set(SEEDS) for s in by_base.values()), f.id
        assert len({pt.label for pt in pts}) == len(pts), f.id
        quick = f.points(True)
        assert {pt.seed for pt in quick} == {1}, f.id
        # seed 1 keeps the label and scenario of a one-seed run (it resumes)
        assert all("-s" not in pt.label[-4:] for pt in quick), f.id


def test_a_point_on_several_seeds_is_folded_into_its_mean():
    """The point's value is its seeds' mean, its ``*_ci95`` the Student-t
    interval over the seeds' values, counts that are a run's totals add
    up; a point of one seed passes through unchanged (no interval), and a
    folded row has no ``seed`` column."""
    from dcnsim.experiments.kulkarni.common import by_point

    base = {"config": "b32p-sru256k", "buffer": 32, "buffer_unit": "pkt", "sru_kb": 256, "n": 6}
    rows = []
    for seed, (g, to, drops) in zip((1, 2, 3), ((100.0, 4.0, 10.0), (120.0, 6.0, 20.0), (140.0, 8.0, 30.0))):
        rows.append({"label": "b32p-sru256k-n006" + ("" if seed == 1 else f"-s{seed}"), **base, "seed": seed,
                     "goodput_mbps": g, "goodput_ci95": math.nan, "timeouts_per_block": to,
                     "timeouts_ci95": math.nan, "switch_drop_ratio": 0.01 * seed, "drop_ratio_ci95": math.nan,
                     "blocks": 100.0, "resp_timeouts": 400.0 * seed, "drops": drops, "unfinished": 0.0,
                     "mean_stall_ms": math.nan if seed == 1 else 200.0 * seed})
    one = {**rows[0], "label": "b32p-sru256k-n001", "n": 1, "goodput_mbps": 800.0}
    out = by_point(pd.DataFrame(rows + [one])).set_index("label")
    assert "seed" not in out.columns  # a row of several seeds is no one seed's
    p = out.loc["b32p-sru256k-n006"]
    # three seeds: t(2) = 4.303, s.d. of (100, 120, 140) = 20, of (4, 6, 8) = 2
    assert p["goodput_mbps"] == pytest.approx(120.0)
    assert p["goodput_ci95"] == pytest.approx(4.303 * 20 / math.sqrt(3), rel=1e-3)
    assert p["timeouts_per_block"] == pytest.approx(6.0)
    assert p["timeouts_ci95"] == pytest.approx(4.303 * 2 / math.sqrt(3), rel=1e-3)
    assert p["drop_ratio_ci95"] == pytest.approx(4.303 * 0.01 / math.sqrt(3), rel=1e-3)
    assert p["blocks"] == 300 and p["resp_timeouts"] == 2400 and p["drops"] == 60 and p["seeds"] == 3
    # a seed without a timeout has no stall to average: the others' mean
    assert p["mean_stall_ms"] == pytest.approx(500.0)
    # parameter columns stay as they were (ints, strings)
    assert p["n"] == 6 and p["buffer"] == 32 and p["buffer_unit"] == "pkt"
    q = out.loc["b32p-sru256k-n001"]
    assert q["goodput_mbps"] == 800.0 and q["seeds"] == 1 and math.isnan(q["goodput_ci95"])
    # a one-seed frame (the quick run) passes through unchanged
    single = by_point(pd.DataFrame(rows[:1]))
    assert single["goodput_mbps"].iloc[0] == 100.0 and single["blocks"].iloc[0] == 100.0
    assert math.isnan(single["goodput_ci95"].iloc[0]) and single["seeds"].iloc[0] == 1


def test_claims_on_several_seeds_take_their_interval_over_the_seeds():
    """A claim's value is computed on the seeds' means and its interval
    over each seed's own value (:class:`Seeds`); its note shows each seed's."""
    from dcnsim.analysis import ci95
    from dcnsim.experiments.kulkarni.common import Seeds, _series
    from dcnsim.experiments.kulkarni.model_ch3 import _after_collapse

    class FakeSeeds(Seeds):
        def __init__(self, rows):  # noqa: D401 - the per-run rows instead of a summary
            from dcnsim.experiments.kulkarni.common import by_point

            self.df = by_point(rows)
            self.seeds = sorted(set(rows["seed"]))
            self._runs = {s: by_point(rows[rows["seed"] == s]) for s in self.seeds}

    rows = pd.DataFrame([{"label": f"x-n{n:03d}" + ("" if s == 1 else f"-s{s}"), "config": "x", "n": n, "seed": s,
                          "goodput_mbps": float(g)}
                         for s, gs in ((1, (900, 100, 50)), (2, (900, 300, 70)), (3, (900, 200, 30)))
                         for n, g in zip((1, 16, 32), gs)])
    sd = FakeSeeds(rows)

    def after(d):
        return _after_collapse(*_series(d))

    mean, ci = sd.with_ci(after)
    per_seed = [75.0, 185.0, 115.0]
    assert sd.each(after) == per_seed
    assert mean == pytest.approx(sum(per_seed) / 3)
    assert ci == pytest.approx(ci95(per_seed)[1])
    assert sd.span(after, "{:.0f}") == "seeds 1–3: 75 / 185 / 115"
    one = FakeSeeds(rows[rows["seed"] == 1])
    assert math.isnan(one.with_ci(after)[1]) and one.span(after) == ""


@needs_core
def test_frame_folds_real_runs_over_seeds(tmp_path):
    """Two seeds of one point through the sweep: frame() gives one row,
    labelled as the one-seed run's point, whose goodput is the seeds'
    mean, its interval over the two, its blocks summed."""
    from dcnsim.analysis import ci95
    from dcnsim.experiments.kulkarni.common import CH4, frame, metrics, point
    from dcnsim.sweep import point_dir, run_sweep

    pts = [point(CH4, 4, True, seed) for seed in (1, 2)]
    assert pts[0].label == "b32p-sru256k-d100us-rw20pkt-n004" and pts[1].label == pts[0].label + "-s2"
    summary = run_sweep(pts, tmp_path, jobs=1, progress=False)
    summary["dir"] = [str(point_dir(tmp_path, lab)) for lab in summary["label"]]
    assert sorted(summary["seed"]) == [1, 2]
    per_seed = [metrics(r) for _, r in summary.iterrows()]
    good = [m["goodput_mbps"] for m in per_seed]
    assert good[0] != good[1], "the two seeds ran the same run"
    df = frame(summary)
    assert len(df) == 1 and df["seeds"].iloc[0] == 2 and df["label"].iloc[0] == pts[0].label
    assert "seed" not in df.columns
    assert df["goodput_mbps"].iloc[0] == pytest.approx(sum(good) / 2)
    assert df["goodput_ci95"].iloc[0] == pytest.approx(ci95(good)[1])
    assert df["blocks"].iloc[0] == sum(m["blocks"] for m in per_seed)


@needs_core
def test_a_figure_on_two_seeds_is_one_row_per_point_with_intervals(tmp_path, monkeypatch):
    """Figs. 4.7–4.10 (quick) on two seeds through ``reproduce``: the table
    has one row per point (two runs each), the claims' values are the
    seeds' means with an interval over them, and each row's note shows
    each seed's value."""
    import dcnsim.experiments.kulkarni.common as common
    from dcnsim.experiments import reproduce

    monkeypatch.setattr(common, "QUICK_SEEDS", (1, 2))
    p = get_paper("kulkarni")
    rep = reproduce(p, figures=["4.7–4.10"], out=tmp_path, jobs=2, quick=True, progress=False, echo=None)
    assert not rep.errors, rep.errors
    runs = list((tmp_path / "runs").iterdir())
    df = pd.read_csv(tmp_path / "fig4_7-10.csv")
    assert len(runs) == 2 * len(df) and (df["seeds"] == 2).all() and "seed" not in df.columns
    assert not df.duplicated(["config", "n"]).any()
    rows = {c.claim: c for c in rep.results["4.7–4.10"].comparisons if c.claim}
    n50 = rows["fig4.10-n50"].measured
    assert all(math.isfinite(v[1]) for v in n50.values()), n50  # an interval over the two seeds
    at = df[df["n"] == 50].set_index("mss")
    assert {int(k): v[0] for k, v in n50.items()} == pytest.approx(at["timeouts_per_block"].to_dict())
    assert "seeds 1–2" in rows["fig4.7-avoid"].note


def test_goodput_figures_draw_the_seeds_interval_as_error_bars(monkeypatch, tmp_path):
    """The simulation's curve carries its interval over the seeds (the
    models' none); a one-seed run (NaN intervals) draws no bars and keeps
    its axis label."""
    import math

    import pandas as pd
    from dcnsim import plots
    from dcnsim.experiments.kulkarni import common

    seen = {}

    def fake(long, *a, **kw):
        seen.update(kw, long=long)
        return []

    monkeypatch.setattr(plots, "facet_plot", fake)
    df = pd.DataFrame({"n": [1, 2], "goodput_mbps": [900.0, 500.0], "full_mbps": [950.0, 200.0],
                       "goodput_ci95": [3.0, 120.0]})
    long = common._long(df, {"goodput_mbps": "simulation", "full_mbps": "Full model"}, lambda r: "")
    common._goodput_facets(long, tmp_path / "f.png", "t", ["simulation", "Full model"], [""])
    assert seen["yerr"] == "err" and "± 95 % over the seeds" in seen["ylabel"]
    sim = seen["long"][seen["long"]["series"] == "simulation"]
    assert list(sim["err"]) == [3.0, 120.0]
    assert seen["long"][seen["long"]["series"] == "Full model"]["err"].isna().all()
    one = common._long(df.assign(goodput_ci95=math.nan), {"goodput_mbps": "simulation"}, lambda r: "")
    common._goodput_facets(one, tmp_path / "g.png", "t", ["simulation"], [""], ylabel="goodput (Mbps)")
    assert seen["yerr"] is None and seen["ylabel"] == "goodput (Mbps)"


@needs_core
def test_a_points_model_metrics_read_each_table_once_and_match_reading_them_apart(tmp_path, monkeypatch):
    """The metrics, ζ and the incast model all read a point's flows and
    blocks, ζ and the model its losses: they share one reading of each
    table, and the values are those of each reading the tables itself."""
    from dcnsim.experiments.kulkarni import common
    from dcnsim.experiments.kulkarni.common import CH4, point
    from dcnsim.sweep import point_dir, run_sweep

    pts = [point(CH4, 4, True, 1)]
    run_sweep(pts, tmp_path, jobs=1, progress=False)
    d = point_dir(tmp_path, pts[0].label)
    apart = common._model_metrics(d)  # every function reads for itself
    read = []
    real = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda path, *a, **k: (read.append(str(path)), real(path, *a, **k))[1])
    together = common._metrics_cached.__wrapped__(str(d), 0.0, True)
    assert sorted(read) == sorted(set(read)), f"a table read twice: {sorted(read)}"
    assert {p.rsplit("/", 1)[1] for p in read} >= {"flows.csv", "blocks.csv", "losses.csv"}
    same = {k: together[k] for k in apart}
    assert same == pytest.approx(apart, nan_ok=True)
    assert math.isfinite(apart["zeta"]) and math.isfinite(apart["full_mbps"])


def test_a_point_whose_interval_lacks_some_seeds_is_said():
    """A seed with nothing to measure (no completed block: NaN goodput) is
    left out of its point's mean and interval, so the mean moves toward
    the seeds that did complete, while `seeds` counts them all. The fold
    now says where and over how many (audit 35); a point whose seeds all
    have a value, or none does, says nothing."""
    import warnings

    import numpy as np
    from dcnsim.errors import DcnsimWarning
    from dcnsim.experiments.framework import fold_seeds

    df = pd.DataFrame({"label": ["a"] * 3 + ["b"] * 3, "n": [4] * 3 + [8] * 3, "seed": [1, 2, 3] * 2,
                       "goodput_mbps": [900.0, np.nan, 300.0, 500.0, 520.0, 510.0]})
    df["goodput_ci95"] = df["goodput_mbps"]
    with pytest.warns(DcnsimWarning, match=r"goodput_mbps has no value in 1 of 3 seeds at n=4: .* over the other 2"):
        out = fold_seeds(df, ["n"], {"goodput_ci95": "ci:goodput_mbps"})
    a = out[out.n == 4].iloc[0]
    assert a.seeds == 3 and a.goodput_mbps == 600.0  # the mean of the two that have a value
    whole = df[df.n == 8]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fold_seeds(whole, ["n"], {"goodput_ci95": "ci:goodput_mbps"})


def test_an_onset_on_a_coarse_grid_says_what_the_grid_skips():
    """Figs. 4.1 and 4.2 share their 256 KB runs, but 4.2 has none at
    n = 8–11, so its onset read 12 where 4.1 said 9 (audit 35). An onset
    whose grid skips the numbers just below it now says so."""
    from dcnsim.experiments.kulkarni.common import onset, onset_gap

    ns, g = [1, 2, 4, 7, 12, 16], [900, 900, 880, 700, 200, 150]
    assert onset(ns, g) == 12
    assert onset_gap(ns, 12) == ", on this figure's grid (no n from 8 to 11)"
    assert onset_gap([1, 2, 4, 7, 9, 12], 9) == ", on this figure's grid (no n = 8)"
    assert onset_gap(list(range(1, 13)), 9) == "" and onset_gap(ns, None) == ""
