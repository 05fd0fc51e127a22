"""FaST (Hwang & Yoo, 2014): Fig. 12 (segment size)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

from ...analysis import strict_max
from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    BASE,
    QUERIES,
    QUICK_QUERIES,
    QUICK_SEEDS,
    REGISTER,
    SEEDS,
    _overlap_notes,
    pa_frame,
    pa_scenario,
    seed_label,
)

# ---------------------------------------------------------------- Fig. 12 (segment size)

FIG12_NS = (25, 40, 55, 70, 85, 100)
FIG12_SIZES = tuple(range(100, 1501, 100))
QUICK_FIG12_NS = (25, 40, 70)
QUICK_FIG12_SIZES = (100, 400, 700, 1000, 1500)


def _fig12_points(quick: bool) -> List[Point]:
    q = QUICK_QUERIES if quick else QUERIES
    ns, sizes = (QUICK_FIG12_NS, QUICK_FIG12_SIZES) if quick else (FIG12_NS, FIG12_SIZES)
    pts = []
    for n in ns:
        for s in sizes:
            for seed in QUICK_SEEDS if quick else SEEDS:
                label = seed_label(f"seg-fresh-ic2-dctcp-mss{s:04d}-n{n:03d}", seed)
                doc = {**pa_scenario(n, {"cc": "dctcp", "mss": s}, BASE, q, name=label), "seed": seed}
                pts.append(Point(label, doc, seed, {"series": "DCTCP", "n": n, "segment_bytes": s}))
    return pts


def _analyze_fig12(summary, out_dir: Path) -> FigureResult:
    from ...plots import facet_plot

    df = pa_frame(summary, keys=("segment_bytes",))
    df["N"] = [f"N = {n}" for n in df["n"]]
    paths = facet_plot(
        df, "segment_bytes", "qct_mean_ms", "N", None,
        xlabel="segment size (payload bytes, fixed for the whole flow)",
        ylabel="mean query completion time (ms, ± 95 % CI)", yerr="qct_ci95_ms",
        title="Fig. 12: DCTCP's mean QCT vs segment size", path=out_dir / "fig12.png",
        paper=[{"x": 1500, "y": 12.5, "series": "N = 40"}],
    )
    cmps: List[Comparison] = []
    piv = df.pivot(index="segment_bytes", columns="n", values="qct_mean_ms")
    ci = df.pivot(index="segment_bytes", columns="n", values="qct_ci95_ms")
    smin, smax = piv.index.min(), piv.index.max()
    if 25 in piv:
        cmps.append(REGISTER.judge("fig12-n25", {25: (float(piv.loc[smax, 25] - piv.loc[smin, 25]),
                                                      float(math.hypot(ci.loc[smax, 25], ci.loc[smin, 25])))},
                                   note=f"{piv.loc[smin, 25]:.1f} ms at {int(smin)} B, {piv.loc[smax, 25]:.1f} ms at {int(smax)} B"))
    big = [n for n in piv.columns if n >= 40]
    smaller = piv[piv.index < smax]
    ratio = {n: float(smaller[n].min() / piv.loc[smax, n]) for n in big}
    cmps.append(REGISTER.judge("fig12-smaller", strict_max(ratio.values()),
                               note=", ".join(f"N={n}: best {int(smaller[n].idxmin())} B, {r:.2f} × 1500 B's"
                                              for n, r in ratio.items())))
    if 40 in piv:
        cmps.append(REGISTER.judge("fig12-n40", float(piv.loc[smax, 40])))
        best = int(piv[40].idxmin())
        cmps.append(REGISTER.judge("fig12-best", best, note="" if abs(best - 1000) <= 300 else
                                   "our DCTCP stays loss-free up to a larger segment at N = 40 than the paper's"))
    return FigureResult(df.drop(columns=["N"]), paths, cmps, _overlap_notes(df))
