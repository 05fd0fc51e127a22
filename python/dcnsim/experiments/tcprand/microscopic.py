"""TCPRand (Lee et al., 2017): Fig. 14 (microscopic)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from ...result import jain
from ...sweep import Point
from ..claims import claim
from ..framework import Comparison, FigureResult
from .common import LINUX_MSS as MSS  # the testbed: 1448 B segments (timestamps on)
from .common import (
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
        ax.bar(x - 0.2, g["f1_retransmits"], 0.4, label="F1 retransmissions")
        ax.bar(x + 0.2, g["others_retransmits_mean"], 0.4, label=f"F2:{FIG14_M + 1} retransmissions (mean)")
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
    cmps: List[Comparison] = []
    on = df[df.sack]
    cmps.append(claim("SACK on: F1 has (almost) no timeouts with TCPRand",
                      ", ".join(str(x) for x in on[on.rmin_f1 < MSS]["f1_timeouts"]), "0 (≤ 4 in one case)",
                      bool((on[on.rmin_f1 < MSS]["f1_timeouts"] <= 4).all()), "≤ 4 timeouts in every TCPRand case"))
    if (False, MSS, MSS) in D.index and (False, 200, 200) in D.index:
        a, b = int(D.loc[(False, MSS, MSS), "f1_timeouts"]), int(D.loc[(False, 200, 200), "f1_timeouts"])
        cmps.append(claim("SACK off: TCPRand cuts F1's timeouts (1448/1448 → 200/200)", f"{a} → {b}",
                          "204 → 9 (M = 15, 100 s)", b < 0.5 * a, "timeouts at 200/200 < half of 1448/1448"))
    for sack in (True, False):
        seq = [(a, MSS) for a in (MSS, 1000, 600, 200) if (sack, a, MSS) in D.index]
        if len(seq) >= 2:
            v = [int(D.loc[(sack, a, b), "f1_retransmits"]) for a, b in seq]
            cmps.append(claim(f"SACK {'on' if sack else 'off'}: F1's retransmissions grow as its own rMin falls "
                              f"(others 1448)", " → ".join(map(str, v)), "increasing", v[-1] > v[0],
                              "retransmissions at the smallest rMin > at 1448"))
        seq = [(1000, b) for b in (MSS, 1000, 600, 200) if (sack, 1000, b) in D.index]
        if len(seq) >= 2:
            v = [int(D.loc[(sack, a, b), "f1_retransmits"]) for a, b in seq]
            cmps.append(claim(f"SACK {'on' if sack else 'off'}: F1 (rMin 1000) retransmits less as the others' rMin "
                              "falls", " → ".join(map(str, v)), "decreasing", v[-1] < v[0],
                              "retransmissions with others at the smallest rMin < with others at 1448"))
    more = bool((df["f1_retransmits"] > df["others_retransmits_mean"]).mean() >= 0.75)
    cmps.append(claim("the outcast flow retransmits more than each non-outcast flow",
                      f"{(df['f1_retransmits'] > df['others_retransmits_mean']).mean():.0%} of cases", "in all cases",
                      more, "F1's retransmissions > the mean of F2:16's in ≥ 75 % of the cases"))
    return FigureResult(df, paths, testbed_verdicts(cmps), [f"testbed topology, S1: 1 flow (F1), S2: M = {FIG14_M} flows, static rMin, "
                                          "CUBIC; f1_single_share = F1's isolated drops / its drops (Fig. 13(a)'s "
                                          "quantity; Fig. 13 has the whole run-length distribution)"])
