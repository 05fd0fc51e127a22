"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): Figs. 5–9 (random pairs)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from ...sweep import Point
from ..framework import Comparison, FigureResult, compare_number
from .common import (
    FEW_SHORTS,
    RPS,
    SCHEME_NAMES,
    SCHEMES,
    SHORTS,
    _fmt_series,
    _loss_note,
    _random_points,
    _unfinished_notes,
    ci95,
    claim,
    errorbar_plot,
    frame,
    ordering_claim,
    paired,
    tidy,
)
from .static_pairs import _rps_vs_others, _scheme_plot

# ---------------------------------------------------------------- Figs. 5–9 (random pairs)


def _fig567_points(quick: bool) -> List[Point]:
    return _random_points(quick, SHORTS)


def _analyze_fig5(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "long_tput_mbps", ["scheme", "n_long"])
    figs = _scheme_plot(t, 5, "mean long-flow throughput (Mbps)",
                        "random pairs (20 short flows), long-flow throughput", out_dir)
    cmp = _rps_vs_others(df, "long_tput_mbps", "long-flow throughput", "RPS higher", "RPS higher", +1, "Mbps")
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + [_loss_note(df), "means per N: " +
                                                               _fmt_series(t, SCHEME_NAMES, "{:.0f}")])


def _analyze_fig6(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_fct_ms", ["scheme", "n_long"])
    figs = _scheme_plot(t, 6, "mean short-flow FCT (ms)", "random pairs, FCT of the 20 short flows", out_dir)
    cmp = _rps_vs_others(df, "short_fct_ms", "short-flow FCT", "RPS smaller", "RPS smaller", -1, "ms")
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + ["means per N: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _analyze_fig7(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_ooo_pct", ["scheme", "n_long"])
    figs = _scheme_plot(t, 7, "out-of-order packets of short flows (%)", "random pairs, out-of-order share", out_dir,
                        hline=(20.0, "paper: about 20 %"))
    r = df[df["scheme"] == RPS]
    m, h = ci95(r["short_ooo_pct"].tolist())
    cmp = [compare_number("RPS: out-of-order share of short-flow packets (all N, all runs)", m, 20.0, unit="%",
                          note=f"± {h:.2g} (95 % CI); criterion: agrees within 20 % of the paper's ≈ 20 % "
                               "(16–24 %), close within 50 % (10–30 %), else differs")]
    return FigureResult(t, figs, cmp, ["means per N: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _fig89_points(quick: bool) -> List[Point]:
    rps = [s for s in SCHEMES if s[0] == RPS]
    return _random_points(quick, FEW_SHORTS, rps) + _random_points(quick, SHORTS, rps)


def _short_count_claim(df, metric: str, sign: int, paper: str, unit: str) -> Comparison:
    d = df.copy()
    d["series"] = d["shorts"].map(lambda s: f"{s} short flows")
    diffs = paired(d, metric, f"{SHORTS} short flows", f"{FEW_SHORTS} short flows", col="series")
    return ordering_claim(f"RPS: {metric} with {SHORTS} vs {FEW_SHORTS} short flows", diffs, paper, sign,
                          f"{SHORTS} − {FEW_SHORTS} short flows (same long-flow pairs)", unit)


def _short_count_figure(summary, metric: str, fig: int, ylabel: str, title: str, out_dir: Path):
    """Figs. 8–9: RPS runs with 10 and with 20 short flows, one series each: (frame, table, plots)."""
    df = frame(summary)
    df["series"] = df["shorts"].map(lambda s: f"{s} short flows")
    t = tidy(df, metric, ["series", "n_long"]).rename(columns={"series": "scheme"})
    figs = errorbar_plot(t, "n_long", "scheme", xlabel="long flows", ylabel=ylabel,
                         title=f"Fig. {fig}: RPS, 10 vs 20 short flows: {title}", path=out_dir / f"fig{fig}.png")
    return df, t, figs


def _analyze_fig8(summary, out_dir: Path) -> FigureResult:
    df, t, figs = _short_count_figure(summary, "long_tput_mbps", 8, "mean long-flow throughput (Mbps)",
                                      "long-flow throughput", out_dir)
    cmp = [_short_count_claim(df, "long_tput_mbps", -1, "slightly lower with 20 short flows", "Mbps")]
    rel = []
    for _n, g in df.groupby("n_long"):
        a = g[g["shorts"] == FEW_SHORTS]["long_tput_mbps"].mean()
        b = g[g["shorts"] == SHORTS]["long_tput_mbps"].mean()
        rel.append((a - b) / a if a else math.nan)
    worst = float(np.nanmax(np.abs(rel))) if rel else math.nan
    cmp.append(claim("largest relative throughput change, 10 → 20 short flows", f"{100 * worst:.1f} %",
                     "slightly lower", worst <= 0.10,
                     "agrees if |change| ≤ 10 % at every N (\"slightly\"), differs above"))
    return FigureResult(t, figs, cmp, [])


def _analyze_fig9(summary, out_dir: Path) -> FigureResult:
    df, t, figs = _short_count_figure(summary, "short_fct_ms", 9, "mean short-flow FCT (ms)", "short-flow FCT",
                                      out_dir)
    cmp = [_short_count_claim(df, "short_fct_ms", +1, "higher with 20 short flows", "ms")]
    return FigureResult(t, figs, cmp, ["the first 10 short flows of the 20-flow runs are the 10-flow runs' pairs "
                                       "(same seed), so the comparison is paired"])
