"""TCPRand (Lee et al., 2017): Fig. 8c."""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np

from ...sweep import Point
from ..claims import claim, near
from ..framework import Comparison, FigureResult
from .common import (
    _fig1_frame,
    _mean,
)
from .fairness import _fig8_seeds, fig1_point, seed_spread

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
    from ...plots import new_figure, save, series_colors

    df = _fig1_frame(summary)
    m = _mean(df, ["series", "bg_mbps"])
    series = list(dict.fromkeys(m["series"]))
    bgs = sorted(m["bg_mbps"].unique())
    colors = series_colors(series)
    fig, ax = new_figure(figsize=(8, 4))
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        v = [float(m[(m.series == s) & (m.bg_mbps == b)]["jain"].iloc[0]) for b in bgs]
        ax.bar(np.arange(len(bgs)) + i * w - 0.4 + w / 2, v, w, label=s, color=colors[s])
    ax.set_xticks(np.arange(len(bgs)))
    ax.set_xticklabels([f"{15 * b:g} Mbps" for b in bgs])
    ax.set_xlabel("aggregate UDP CBR background (15 senders × rate)")
    ax.set_ylabel("Jain's index (15 TCP flows)")
    ax.set_ylim(0, 1.05)
    ax.set_title("Fig. 8c: fairness with background traffic, Qmax = 20")
    ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig8c.png")
    cmps = seed_spread(df, ["series", "bg_mbps"], _claims_8c)
    return FigureResult(df, paths, cmps, ["0 Mbps is Fig. 8a's Qmax = 20 point; UDP payloads are MSS-sized, not "
                                          "randomized; [seeds: …] counts each seed's own verdict"])


def _claims_8c(m) -> List[Comparison]:
    bgs = sorted(m["bg_mbps"].unique())
    J = m.set_index(["series", "bg_mbps"])["jain"]
    cmps: List[Comparison] = []
    with_bg = [b for b in bgs if b > 0]
    gains = [float(J[("CTD", b)] - J[("C", b)]) for b in bgs]
    cmps.append(claim("TCPRand (CTD) fairer than CUBIC at every background rate",
                      ", ".join(f"{g:+.3f}" for g in gains), "always higher", min(gains) > 0,
                      "Jain(CTD) − Jain(C) > 0 at every rate", partly=sum(g > 0 for g in gains) > len(gains) / 2,
                      partly_rule="at more than half of the rates"))
    if len(with_bg) >= 2:
        g0, g1 = float(J[("CTD", with_bg[0])] - J[("C", with_bg[0])]), float(J[("CTD", with_bg[-1])] - J[("C", with_bg[-1])])
        cmps.append(claim("the gain shrinks as background grows", f"{g0:+.3f} → {g1:+.3f}", "yes", g1 < g0,
                          f"gain at {15 * with_bg[-1]:g} Mbps < gain at {15 * with_bg[0]:g} Mbps"))
    if ("DCTCP", 30) in J.index:
        cmps.append(near("DCTCP Jain index at 450 Mbps background", float(J[("DCTCP", 30)]), 0.887, 0.03, 0.08))
    return cmps
