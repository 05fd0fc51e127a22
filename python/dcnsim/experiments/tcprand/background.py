"""TCPRand (Lee et al., 2017): Fig. 8c."""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np

from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    REGISTER,
    SERIES,
    _fig1_frame,
    _mean,
    paired_seeds,
    seed_range,
)
from .fairness import _fig8_seeds, fig1_point

# ---------------------------------------------------------------- Fig. 8c


BG_MBPS = (10, 20, 30)
QUICK_BG_MBPS = (10, 30)
FIG8C_SERIES = ["C", "CT200", "CTD", "DCTCP"]
QUICK_FIG8C_SERIES = ["C", "CTD", "DCTCP"]


def _fig8c_points(quick: bool) -> List[Point]:
    series = QUICK_FIG8C_SERIES if quick else FIG8C_SERIES
    bgs = (0,) + (QUICK_BG_MBPS if quick else BG_MBPS)
    return [fig1_point(s, 20, quick, seed, bg) for bg in bgs for s in series for seed in _fig8_seeds(quick)]


def _analyze_fig8c(summary, out_dir: Path) -> FigureResult:
    from ...plots import new_figure, save, series_colors, series_hatches

    df = _fig1_frame(summary)
    m = _mean(df, ["series", "bg_mbps"])
    series = list(dict.fromkeys(m["series"]))
    bgs = sorted(m["bg_mbps"].unique())
    colors = series_colors(series, universe=list(SERIES))  # one colour per series in every figure
    hatches = series_hatches(series, universe=list(SERIES))  # and a fill that survives greyscale
    fig, ax = new_figure(figsize=(8, 4))
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        v = [float(m[(m.series == s) & (m.bg_mbps == b)]["jain"].iloc[0]) for b in bgs]
        ax.bar(np.arange(len(bgs)) + i * w - 0.4 + w / 2, v, w, label=s, color=colors[s], hatch=hatches[s], edgecolor="white")
    ax.set_xticks(np.arange(len(bgs)))
    ax.set_xticklabels([f"{15 * b:g} Mbps" for b in bgs])
    ax.set_xlabel("aggregate UDP CBR background (15 senders × rate)")
    ax.set_ylabel("Jain's index (15 TCP flows)")
    ax.set_ylim(0, 1.05)
    ax.set_title("Fig. 8c: fairness with background traffic, Qmax = 20")
    ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig8c.png")
    cmps = _claims_8c(df)
    return FigureResult(df, paths, cmps, ["0 Mbps is Fig. 8a's Qmax = 20 point; UDP payloads are MSS-sized, not "
                                          "randomized; x in the criteria is the aggregate background in Mbps; "
                                          "orders are judged on CTD − C paired by seed (mean ± 95 % CI)"])


def _claims_8c(df) -> List[Comparison]:
    d = df.copy()
    d["bg_total_mbps"] = 15 * d["bg_mbps"]  # the figure's x: 15 senders × rate
    gains = paired_seeds(d, "CTD", "C", "bg_total_mbps", "jain")
    cmps: List[Comparison] = [REGISTER.judge("fig8c-fairer", gains)]
    with_bg = {x: v for x, v in gains.items() if x > 0}
    if len(with_bg) >= 2:
        cmps.append(REGISTER.judge("fig8c-shrinks", with_bg))
    j = d[(d.series == "DCTCP") & (d.bg_mbps == 30)]["jain"]
    if len(j):
        cmps.append(REGISTER.judge("fig8c-dctcp", float(j.mean()), note=seed_range(j)))
    return cmps
