"""TCPRand (Lee et al., 2017): Fig. 12 (testbed topology)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from ...result import jain
from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    PRESETS,
    REGISTER,
    SERIES,
    flows,
    testbed_doc,
    testbed_verdicts,
)
from .fairness import _secs, _seeds

# ---------------------------------------------------------------- Fig. 12 (testbed topology)

FIG12_CASES = ((2, 4, 26), (26, 4, 2))
FIG12_SERIES = ["C", *PRESETS, "DCTCP"]


def _series_keys(name: str) -> Dict[str, Any]:
    return PRESETS.get(name) or SERIES[name]


def _fig12_points(quick: bool) -> List[Point]:
    secs = _secs(quick)
    pts = []
    for case in FIG12_CASES:
        for s in FIG12_SERIES:
            for seed in _seeds(quick):
                label = f"fig12-{'-'.join(map(str, case))}-{_slug(s)}-{secs:g}s-s{seed}"
                pts.append(Point(label, testbed_doc(*case, _series_keys(s), secs, 100, seed), None,
                                 {"series": s, "case": "(" + ", ".join(map(str, case)) + ")", "seed_": seed}))
    return pts


def _slug(s: str) -> str:
    return "".join(ch for ch in s.lower().replace("∞", "inf") if ch.isalnum()) or "x"


def _analyze_fig12(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save, series_colors, series_hatches

    rows = []
    for _, r in summary.iterrows():
        f = flows(r)
        per_sender = f.groupby("src")["goodput_bps"].mean()  # g_i: average goodput of S_i's flows (eq. 4)
        rows.append({"case": r["case"], "series": r["series"], "seed": int(r["seed_"]), "jain": jain(per_sender.values),
                     "total_mbps": float(f["goodput_bps"].sum()) / 1e6})
    df = pd.DataFrame(rows)
    m = df.groupby(["case", "series"], sort=False).mean(numeric_only=True).reset_index()
    base = m[m.series == "C"].set_index("case")["total_mbps"]
    m["goodput_ratio"] = [r.total_mbps / base[r.case] for r in m.itertuples()]
    cases = list(dict.fromkeys(m["case"]))
    series = list(dict.fromkeys(m["series"]))
    colors = series_colors(series, universe=list(SERIES))  # one colour per series in every figure
    hatches = series_hatches(series, universe=list(SERIES))  # and a fill that survives greyscale
    fig, axes = new_figure(ncols=2, figsize=(11, 4))
    w = 0.8 / len(series)
    for ax, col, yl in ((axes[0], "jain", "Jain's index (per-sender mean goodput)"),
                        (axes[1], "goodput_ratio", "total goodput / CUBIC's")):
        for i, s in enumerate(series):
            v = [float(m[(m.case == c) & (m.series == s)][col].iloc[0]) for c in cases]
            ax.bar(np.arange(len(cases)) + i * w - 0.4 + w / 2, v, w, label=s, color=colors[s], hatch=hatches[s], edgecolor="white")
        ax.set_xticks(np.arange(len(cases)))
        ax.set_xticklabels([f"(N1, N2, N3) = {c}" for c in cases])
        ax.set_ylabel(yl)
        ax.set_ylim(0, 1.1)
    # beside the panels, not over the bars
    axes[-1].legend(*axes[0].get_legend_handles_labels(), fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                    frameon=False)
    fig.suptitle("Fig. 12: the testbed topology (Fig. 7), Qmax = 100")
    paths = save(fig, out_dir / "fig12.png")
    M = m.set_index(["case", "series"])
    # x = case.preset: 1.1-1.3 the first case's three presets, 2.1-2.3 the second's
    fairer = {round(i + 1 + (j + 1) / 10, 1): (float(M.loc[(c, p), "jain"] - M.loc[(c, "C"), "jain"]), math.nan)
              for i, c in enumerate(cases) for j, p in enumerate(PRESETS)}
    jains = [float(M.loc[(c, p), "jain"]) for c in cases for p in PRESETS]
    # our switches are plain drop-tail, as the Cisco 2970 (Fig. 12c: < 1 %);
    # the HP 5900's < 4 % (Fig. 12d) is the weaker bound
    loss = [1 - float(M.loc[(c, p), "goodput_ratio"]) for c in cases for p in PRESETS if "(1,1," in p]
    cmps: List[Comparison] = [
        REGISTER.judge("fig12-fairer", fairer, note="cases " + ", ".join(f"{i + 1} = {c}" for i, c in enumerate(cases))),
        REGISTER.judge("fig12-high", jains),
        REGISTER.judge("fig12-goodput", loss, note="presets (1,1,1,1) and (1,1,∞,1)"),
        REGISTER.judge("fig12-conservative", {str(c): 100 * (float(M.loc[(c, "CTD (1,1,∞,1)"), "jain"])
                                                           / float(M.loc[(c, "C"), "jain"]) - 1) for c in cases}),
        REGISTER.judge("fig12-dctcp", [float(M.loc[(c, p), "jain"] / M.loc[(c, "DCTCP"), "jain"])
                                       for c in cases for p in PRESETS]),
        REGISTER.judge("fig12-worst", [1 - float(M.loc[(c, p), "goodput_ratio"]) for c in cases for p in PRESETS])]
    return FigureResult(m, paths, testbed_verdicts(cmps), ["g_i of eq. (4) is the mean goodput of sender S_i's flows, so the index is "
                                         "over the three senders; the testbed's switches are modelled as drop-tail "
                                         "with 100-packet port queues (the paper does not give their buffers)"])
