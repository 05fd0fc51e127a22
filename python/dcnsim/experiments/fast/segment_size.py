"""FaST (Hwang & Yoo, 2014): Fig. 12 (segment size)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from ...sweep import Point
from ..framework import Comparison, FigureResult, compare_claim, compare_number
from .common import BASE, QUERIES, QUICK_QUERIES, _overlap_notes, pa_frame, pa_scenario

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
            label = f"seg-fresh-ic2-dctcp-mss{s:04d}-n{n:03d}"
            doc = pa_scenario(n, {"cc": "dctcp", "mss": s}, BASE, q, name=label)
            pts.append(Point(label, doc, None, {"series": "DCTCP", "n": n, "segment_bytes": s}))
    return pts


def _analyze_fig12(summary, out_dir: Path) -> FigureResult:
    from ...plots import facet_plot

    df = pa_frame(summary)
    df["segment_bytes"] = summary["segment_bytes"].to_numpy()
    df["N"] = [f"N = {n}" for n in df["n"]]
    paths = facet_plot(
        df, "segment_bytes", "qct_mean_ms", "N", None,
        xlabel="segment size (payload bytes, fixed for the whole flow)", ylabel="mean query completion time (ms)",
        title="Fig. 12: DCTCP's mean QCT vs segment size", path=out_dir / "fig12.png",
        paper=[{"x": 1500, "y": 12.5, "series": "N = 40"}],
    )
    cmps: List[Comparison] = []
    piv = df.pivot(index="segment_bytes", columns="n", values="qct_mean_ms")
    smin, smax = piv.index.min(), piv.index.max()
    if 25 in piv:
        cmps.append(compare_claim("N = 25: larger segments better (QCT at 100 B vs 1500 B)",
                                  f"{piv.loc[smin, 25]:.1f} vs {piv.loc[smax, 25]:.1f} ms", "larger is better",
                                  piv.loc[smax, 25] < piv.loc[smin, 25], criterion="QCT(1500 B) < QCT(100 B)"))
    big = [n for n in piv.columns if n >= 40]
    better = {n: float(piv[n].min()) < float(piv.loc[smax, n]) * 0.9 for n in big}
    cmps.append(compare_claim("N ≥ 40: a smaller segment beats 1500 B", ", ".join(
        f"N={n}: best {int(piv[n].idxmin())} B" for n in big), "smaller is better", all(better.values()),
        criterion="at every N ≥ 40 some segment < 1500 B gives a QCT ≥ 10 % below 1500 B's"))
    if 40 in piv:
        cmps.append(compare_number("N = 40: QCT with 1500 B segments", float(piv.loc[smax, 40]), 12.5, unit="ms",
                                   rel_tol=0.2))
        best = int(piv[40].idxmin())
        cmps.append(compare_claim("N = 40: best segment size", f"{best} B", "≈ 1000 B", abs(best - 1000) <= 300,
                                  partly=best < 1500, criterion="700–1300 B",
                                  partly_criterion="below 1500 B",
                                  note="" if abs(best - 1000) <= 300 else
                                  "our DCTCP stays loss-free up to a larger segment at N = 40 than the paper's"))
    return FigureResult(df.drop(columns=["N"]), paths, cmps, _overlap_notes(df))
