"""TCPRand (Lee et al., 2017): Fig. 14 (microscopic)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

from ...result import jain
from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import LINUX_MSS as MSS  # the testbed: 1448 B segments (timestamps on)
from .common import (
    REGISTER,
    flows,
    testbed_doc,
    testbed_verdicts,
)

# ---------------------------------------------------------------- Fig. 14 (microscopic)

FIG14_M = 15
#: (rMin of F1, rMin of F2:M+1), the combinations of Fig. 14's x-axis
FIG14_PAIRS = ((1448, 1448), (1000, 1448), (600, 1448), (200, 1448), (1000, 1000), (1000, 600), (1000, 200),
               (200, 200))
QUICK_FIG14_PAIRS = ((1448, 1448), (200, 1448), (1000, 1000), (1000, 200), (200, 200))


def _rand(rmin: int) -> Dict[str, Any]:
    return {"segment": "fixed"} if rmin >= MSS else {"segment": "tcprand", "tcprand_rmin": rmin}


def _fig14_points(quick: bool) -> List[Point]:
    secs = 2.0 if quick else 20.0
    pts = []
    for sack in (True, False):
        for a, b in (QUICK_FIG14_PAIRS if quick else FIG14_PAIRS):
            label = f"fig14-sack{int(sack)}-{a}-{b}-{secs:g}s"
            doc = testbed_doc(1, FIG14_M, 0, {"cc": "cubic", "sack": sack}, secs, 100, 1,
                              tcp_per_sender={1: _rand(a), 2: _rand(b)})
            pts.append(Point(label, doc, None, {"sack": sack, "rmin_f1": a, "rmin_others": b}))
    return pts


def _analyze_fig14(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save

    rows = []
    for _, r in summary.iterrows():
        f = flows(r)
        f1, rest = f[f["src"] == 1].iloc[0], f[f["src"] == 2]
        rows.append({"sack": bool(r["sack"]), "rmin_f1": int(r["rmin_f1"]), "rmin_others": int(r["rmin_others"]),
                     "f1_timeouts": int(f1["timeouts"]), "f1_retransmits": int(f1["retransmits"]),
                     "others_retransmits_mean": float(rest["retransmits"].mean()),
                     "f1_drops": int(f1["drops"]), "f1_drop_runs": int(f1["drop_runs"]),
                     "f1_max_drop_run": int(f1["max_drop_run"]),
                     "f1_single_share": float(f1["drop_runs_len1"]) / f1["drops"] if f1["drops"] else math.nan,
                     "f1_mbps": float(f1["goodput_bps"]) / 1e6,
                     "jain": jain([float(f1["goodput_bps"]), float(rest["goodput_bps"].mean())])})
    df = pd.DataFrame(rows)
    fig, axes = new_figure(ncols=2, figsize=(11, 4))
    for ax, sack in zip(axes, (True, False)):
        g = df[df.sack == sack]
        x = np.arange(len(g))
        b1 = ax.bar(x - 0.2, g["f1_retransmits"], 0.4, label="F1 retransmissions")
        b2 = ax.bar(x + 0.2, g["others_retransmits_mean"], 0.4, label=f"F2:{FIG14_M + 1} retransmissions (mean)")
        # each bar's count written on it: with SACK on they span 27 to 55,000,
        # and on a linear axis the small ones look like none
        for bars in (b1, b2):
            ax.bar_label(bars, fmt="%.0f", fontsize=6, rotation=90, padding=2)
        ax.set_ylim(0, max(1.0, float(max(g["f1_retransmits"].max(), g["others_retransmits_mean"].max()))) * 1.3)
        ax2 = ax.twinx()
        # markers, not a line: the x positions are settings, not a trend;
        # from 0, so one timeout more is not a swing across the panel
        ax2.plot(x, g["f1_timeouts"], "kD", markersize=5, label="F1 timeouts (right axis)")
        ax2.set_ylim(0, max(1.0, float(g["f1_timeouts"].max())) * 1.15)
        ax2.set_ylabel("F1 timeouts")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{a}/{b}" for a, b in zip(g["rmin_f1"], g["rmin_others"])], rotation=45, fontsize=7)
        ax.set_xlabel(f"rMin of F1 / of F2:{FIG14_M + 1} (bytes)")
        ax.set_ylabel("retransmissions")
        ax.set_title(f"({'a' if sack else 'b'}) SACK {'on' if sack else 'off'}")
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
    # one legend for both panels and both axes, under the title: none of it over the data
    fig.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.95), ncol=3, frameon=False)
    fig.suptitle("Fig. 14: the outcast flow F1's timeouts and retransmissions, by rMin (M = 15)", fontsize=11)
    fig.subplots_adjust(top=0.78, bottom=0.28, left=0.07, right=0.94, wspace=0.35)
    paths = save(fig, out_dir / "fig14.png", tight_layout=False)
    D = df.set_index(["sack", "rmin_f1", "rmin_others"])
    on = df[df.sack]
    panel = {True: "SACK on", False: "SACK off"}

    def retx(sack: bool, cells) -> Dict[int, Tuple[float, float]]:
        # one run per configuration: no interval
        return {x: (float(D.loc[(sack, a, b), "f1_retransmits"]), math.nan) for x, (a, b) in cells
                if (sack, a, b) in D.index}

    cmps: List[Comparison] = [REGISTER.judge("fig14-sack", [float(x) for x in on[on.rmin_f1 < MSS]["f1_timeouts"]])]
    if (False, MSS, MSS) in D.index and (False, 200, 200) in D.index:
        a, b = int(D.loc[(False, MSS, MSS), "f1_timeouts"]), int(D.loc[(False, 200, 200), "f1_timeouts"])
        cmps.append(REGISTER.judge("fig14-nosack", b / a if a else math.nan, note=f"{a} → {b} timeouts"))
    cmps.append(REGISTER.judge("fig14-own", {panel[s]: retx(s, [(r, (r, MSS)) for r in (MSS, 1000, 600, 200)])
                                             for s in (True, False)}))
    cmps.append(REGISTER.judge("fig14-others", {panel[s]: retx(s, [(r, (1000, r)) for r in (MSS, 1000, 600, 200)])
                                                for s in (True, False)}))
    more = df["f1_retransmits"] > df["others_retransmits_mean"]
    cmps.append(REGISTER.judge("fig14-f1-more", float(more.mean()), note=f"{int(more.sum())} of {len(more)}"))
    return FigureResult(df, paths, testbed_verdicts(cmps), [f"testbed topology, S1: 1 flow (F1), S2: M = {FIG14_M} flows, static rMin, "
                                          "CUBIC; f1_single_share = F1's isolated drops / its drops (Fig. 13(a)'s "
                                          "quantity; Fig. 13 has the whole run-length distribution)"])
