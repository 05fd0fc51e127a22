"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): Figs. 5–9 (random pairs)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    FEW_SHORTS,
    REGISTER,
    RPS,
    SCHEME_NAMES,
    SCHEMES,
    SHORTS,
    SINGLE,
    _fmt_series,
    _loss_note,
    _random_points,
    _static_points,
    _unfinished_notes,
    ci95,
    errorbar_plot,
    frame,
    paired,
    tidy,
)
from .static_pairs import _rps_vs_others, _scheme_plot

# ---------------------------------------------------------------- Figs. 5–9 (random pairs)


def _fig567_points(quick: bool) -> List[Point]:
    return _random_points(quick, SHORTS)


def _fig5_points(quick: bool) -> List[Point]:
    """Fig. 5's random pairs and, for the text's comparison with the
    incast-like case, Fig. 2's static points (shared, run once)."""
    return _fig567_points(quick) + _static_points(quick)


def _relative_gain(df) -> Dict[int, Tuple[float, float]]:
    """Per n: RPS's long-flow throughput gain over single path, 100 ×
    (RPS − single)/single, paired by run: (mean, 95 % CI)."""
    out = {}
    for n, g in df[df["n_long"] >= 1].groupby("n_long"):
        a = g[g["scheme"] == RPS].set_index("run")["long_tput_mbps"]
        b = g[g["scheme"] == SINGLE].set_index("run")["long_tput_mbps"]
        common = a.index.intersection(b.index)
        if len(common):
            out[int(n)] = ci95((100 * (a[common] - b[common]) / b[common]).tolist())
    return out


def _gain_contrast(random_df, static_df) -> Dict[int, Tuple[float, float]]:
    """Per n of both cases: gain(random) − gain(static), with the CI of a
    difference of two independent means."""
    r, s = _relative_gain(random_df), _relative_gain(static_df)
    return {n: (r[n][0] - s[n][0], math.hypot(r[n][1], s[n][1])) for n in sorted(set(r) & set(s))}


def _analyze_fig5(summary, out_dir: Path) -> FigureResult:
    every = frame(summary)
    df, static = every[every["case"] == "random"], every[every["case"] == "static"]
    t = tidy(df, "long_tput_mbps", ["scheme", "n_long"])
    figs = _scheme_plot(t, 5, "mean long-flow throughput (Mbps)",
                        "random pairs (20 short flows), long-flow throughput", out_dir)
    cmp = _rps_vs_others(df, "long_tput_mbps", "long-flow throughput", "fig5-tput", "RPS higher", +1, "Mbps")
    cmp.append(REGISTER.judge("fig5-apparent", _gain_contrast(df, static)))
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + [_loss_note(df), "means per N: " +
                                                               _fmt_series(t, SCHEME_NAMES, "{:.0f}")])


def _analyze_fig6(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_fct_ms", ["scheme", "n_long"])
    figs = _scheme_plot(t, 6, "mean short-flow FCT (ms)", "random pairs, FCT of the 20 short flows", out_dir)
    cmp = _rps_vs_others(df, "short_fct_ms", "short-flow FCT", "fig6-fct", "RPS smaller", -1, "ms")
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + ["means per N: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _analyze_fig7(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_ooo_pct", ["scheme", "n_long"])
    figs = _scheme_plot(t, 7, "out-of-order packets of short flows (%)", "random pairs, out-of-order share", out_dir,
                        hline=(20.0, "paper: about 20 %"))
    r = df[df["scheme"] == RPS]
    m, h = ci95(r["short_ooo_pct"].tolist())
    cmp = [REGISTER.judge("fig7-ooo", m, note=f"± {h:.2g} (95 % CI)" if h == h else "one run: no interval")]
    return FigureResult(t, figs, cmp, ["means per N: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _fig89_points(quick: bool) -> List[Point]:
    rps = [s for s in SCHEMES if s[0] == RPS]
    return _random_points(quick, FEW_SHORTS, rps) + _random_points(quick, SHORTS, rps)


def _short_count_claim(df, metric: str, claim_id: str) -> Comparison:
    d = df.copy()
    d["series"] = d["shorts"].map(lambda s: f"{s} short flows")
    return REGISTER.judge(claim_id, paired(d, metric, f"{SHORTS} short flows", f"{FEW_SHORTS} short flows",
                                           col="series"))


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
    cmp = [_short_count_claim(df, "long_tput_mbps", "fig8-lower")]
    rel = []
    for _n, g in df.groupby("n_long"):
        a = g[g["shorts"] == FEW_SHORTS]["long_tput_mbps"].mean()
        b = g[g["shorts"] == SHORTS]["long_tput_mbps"].mean()
        rel.append((a - b) / a if a else math.nan)
    worst = float(np.nanmax(np.abs(rel))) if rel else math.nan
    cmp.append(REGISTER.judge("fig8-slightly", 100 * worst))
    return FigureResult(t, figs, cmp, [])


def _analyze_fig9(summary, out_dir: Path) -> FigureResult:
    df, t, figs = _short_count_figure(summary, "short_fct_ms", 9, "mean short-flow FCT (ms)", "short-flow FCT",
                                      out_dir)
    cmp = [_short_count_claim(df, "short_fct_ms", "fig9-fct")]
    return FigureResult(t, figs, cmp, ["the first 10 short flows of the 20-flow runs are the 10-flow runs' pairs "
                                       "(same seed), so the comparison is paired"])
