"""TCPRand (Lee et al., 2017): Figs. 8a, 8b, 9."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...sweep import Point
from ..claims import info
from ..framework import Comparison, FigureResult
from .common import (
    DURATION_S,
    FIG8_SEEDS,
    FIG8_SERIES,
    GROUPS,
    QMAXES,
    QUICK_DURATION_S,
    QUICK_FIG8_SERIES,
    QUICK_QMAXES,
    QUICK_SEEDS,
    REGISTER,
    SEEDS,
    SERIES,
    _fig1_frame,
    _mean,
    fig1_doc,
    over_seeds,
    paired_seeds,
    seed_range,
)

# ---------------------------------------------------------------- Figs. 8a, 8b, 9


def _secs(quick: bool) -> float:
    return QUICK_DURATION_S if quick else DURATION_S


def _seeds(quick: bool) -> Sequence[int]:
    return QUICK_SEEDS if quick else SEEDS


def fig1_point(series: str, qmax: int, quick: bool, seed: int, bg_mbps: float = 0.0) -> Point:
    secs = _secs(quick)
    label = f"fig1-{series}-q{qmax}-bg{bg_mbps:g}-{secs:g}s-s{seed}"
    doc = fig1_doc(SERIES[series], qmax, secs, seed, bg_mbps, name=label)
    return Point(label, doc, None, {"series": series, "qmax": qmax, "bg_mbps": bg_mbps, "seed_": seed})


def _fig8_seeds(quick: bool) -> Sequence[int]:
    return QUICK_SEEDS if quick else FIG8_SEEDS


def _fig8_points(quick: bool) -> List[Point]:
    series = QUICK_FIG8_SERIES if quick else FIG8_SERIES
    return [fig1_point(s, q, quick, seed) for q in (QUICK_QMAXES if quick else QMAXES) for s in series
            for seed in _fig8_seeds(quick)]


PAPER_8A_Q100 = {"CT200": 0.976, "CT100": 0.991, "CT50": 0.996}
#: what the paper calls DCTCP's "high fairness" (Fig. 8c, 450 Mbps background):
#: the only Jain value it gives for DCTCP on the Fig. 1 fat-tree
PAPER_DCTCP_HIGH = 0.887
PAPER_8B_Q100 = {"CT200": 0.855, "CT100": 0.85, "CT50": 0.835}
PAPER_8B_DCTCP_Q20 = 0.936


def _bars(df, value: str, title: str, ylabel: str, path: Path, ylim=None,
          paper: Optional[Dict[Tuple[str, int], float]] = None):
    """One bar per series and Qmax; ``paper``'s values ((series, Qmax) ->
    value) as hollow stars on their bars, and those whose series or Qmax
    this run has not (a quick run leaves CT100 out) named under the title,
    so no paper value the report quotes is missing from the figure."""
    from matplotlib.lines import Line2D

    from ...plots import new_figure, save, series_colors, series_hatches

    qs = sorted(df["qmax"].unique())
    series = list(dict.fromkeys(df["series"]))
    colors = series_colors(series, universe=list(SERIES))  # one colour per series in every figure
    hatches = series_hatches(series, universe=list(SERIES))  # and a fill that survives greyscale
    fig, ax = new_figure(figsize=(9, 4.2))
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        vals = [float(df[(df["series"] == s) & (df["qmax"] == q)][value].mean()) for q in qs]
        ax.bar(np.arange(len(qs)) + i * w - 0.4 + w / 2, vals, w, label=s, color=colors[s], hatch=hatches[s], edgecolor="white")
    absent = []
    for (s, q), v in (paper or {}).items():
        if s in series and q in qs:
            x = qs.index(q) + series.index(s) * w - 0.4 + w / 2
            ax.plot([x], [v], marker="*", markersize=13, linestyle="none", markerfacecolor="none",
                    markeredgecolor="black", markeredgewidth=1.2, zorder=5)
        else:
            absent.append(f"{s} {v:g} at Qmax {q}")
    ax.set_xticks(np.arange(len(qs)))
    ax.set_xticklabels([f"Qmax = {q} pkt" for q in qs])
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(ylim[0], ylim[1] * 1.2)  # room for the legend above the bars
    ax.set_title(title + (f"\n(the paper's, not run here: {'; '.join(absent)})" if absent else ""))
    handles, labels = ax.get_legend_handles_labels()
    if paper and len(absent) < len(paper):
        handles.append(Line2D([], [], marker="*", markersize=11, linestyle="none", markerfacecolor="none",
                              markeredgecolor="black"))
        labels.append("the paper's")
    ax.legend(handles, labels, ncol=len(labels), fontsize=8, loc="upper center")
    return save(fig, path)


def _analyze_fig8a(summary, out_dir: Path) -> FigureResult:
    df = _fig1_frame(summary)
    m = _mean(df, ["series", "qmax"])
    paths = _bars(m, "jain", "Fig. 8a: Jain's fairness index over the 15 flows of Fig. 1", "Jain's index",
                  out_dir / "fig8a.png", (0, 1.05), paper={(s, 100): v for s, v in PAPER_8A_Q100.items()})
    cmps = _claims_8a(df)
    notes = [f"mean over seeds {[int(x) for x in sorted(df['seed'].unique())]}; {df.groupby(['series', 'qmax']).size().max()} run(s) "
             f"per bar, {_secs(bool(summary.attrs.get('quick'))):g} s flows; table fig8a.csv has every run; "
             "claims about an order or an outcast are judged on the distribution over seeds (mean ± 95 % CI, "
             "paired by seed), the paper's numbers on the mean over seeds"]
    return FigureResult(df, paths, cmps, notes)


#: Fig. 8a's "suffers from outcast": F1, the 2-hop flow alone on its input
#: port, below half its fair share (as Fig. 10 judges it); fair = 1/15
F1_FAIR = 15


def _f1_share(df):
    """F1's goodput over its fair share (total / 15), per run."""
    out = df.copy()
    out["f1_fair"] = out["F1_mbps"] * F1_FAIR / out["total_mbps"]
    return out


def _has(df, *series: str) -> bool:
    return all(s in set(df["series"]) for s in series)


def _claims_8a(df) -> List[Comparison]:
    """Fig. 8a's claims from the per-seed table ``df``: numbers on the mean
    over seeds, orders and the outcast on the distribution over seeds."""
    df = _f1_share(df)
    qs = sorted(df["qmax"].unique())
    cmps: List[Comparison] = []
    for s in PAPER_8A_Q100:
        d = df[(df.series == s) & (df.qmax == 100)]["jain"]
        if len(d):
            cmps.append(REGISTER.judge(f"fig8a-{s.lower()}-q100", float(d.mean()), note=seed_range(d)))
    for base, rands in (("C", ["CT200", "CT100", "CT50", "CTD"]), ("N", ["NT200", "NT100", "NT50"])):
        for s in rands:
            if _has(df, s, base):
                cmps.append(REGISTER.judge(f"fig8a-{s.lower()}-fairer", paired_seeds(df, s, base, "qmax", "jain")))
    for base in ("C", "N"):
        if _has(df, base):
            cmps.append(REGISTER.judge(f"fig8a-{base.lower()}-outcast", over_seeds(df, "qmax", "f1_fair", series=base),
                                       note="Jain per Qmax " + ", ".join(
                                           f"{float(df[(df.series == base) & (df.qmax == q)]['jain'].mean()):.3f}"
                                           for q in qs)))
    cts = [s for s in ("CT200", "CT100", "CT50") if _has(df, s)]
    if len(cts) >= 2:
        cmps.append(REGISTER.judge("fig8a-rmin", _by_rmin(df, cts, "jain")))
    if _has(df, "DCTCP", "C"):
        ratios = _ratio_frame(df)
        top = {q: float(ratios[(ratios.series == "DCTCP") & (ratios.qmax == q)]["goodput_ratio"].mean())
               for q in (60, 100) if q in qs}
        cmps.append(REGISTER.judge("fig8a-dctcp", {"fairness": paired_seeds(df, "DCTCP", "C", "qmax", "jain"),
                                                   "goodput": top or math.nan},
                                   note="F1 gets " + ", ".join(
                                       f"{float(df[(df.series == 'DCTCP') & (df.qmax == q)]['F1_mbps'].mean()):.0f}"
                                       for q in qs) + " Mbps"))
    P = _mean(df, ["series", "qmax"]).set_index(["series", "qmax"])
    for s in ("CTD", "CT200"):
        if all((s, q) in P.index for q in qs):
            cmps.append(info(f"{s}: mean payload (B) / timeouts per flow, Qmax {', '.join(map(str, qs))}",
                             "; ".join(f"{P.loc[(s, q), 'mean_payload_b']:.0f} / {P.loc[(s, q), 'timeouts_per_flow']:.0f}"
                                       for q in qs),
                             "MSS (1460 B) = nothing randomized; adaptive mode is off where W_max ≤ α (an epoch "
                             "that starts at or above the last loss point)"))
    return cmps


def _by_rmin(df, cts: Sequence[str], col: str):
    """Per static rMin: ``col`` averaged over the Qmax values within each
    seed, then mean ± 95 % CI over seeds."""
    d = df[df.series.isin(cts)].groupby(["series", "seed"])[col].mean().reset_index()
    d["rmin"] = [int(s[2:]) for s in d["series"]]
    return over_seeds(d, "rmin", col)


def _ratio_frame(df):
    """Total goodput of each series over its baseline's (N for NTx, C for
    the rest) at the same Qmax and seed."""
    base = df.set_index(["series", "qmax", "seed"])["total_mbps"]
    out = df.copy()
    out["baseline"] = ["N" if s.startswith("N") else "C" for s in out["series"]]
    out["goodput_ratio"] = [float(r.total_mbps) / float(base.get((r.baseline, r.qmax, r.seed), math.nan))
                            for r in out.itertuples()]
    return out


def _analyze_fig8b(summary, out_dir: Path) -> FigureResult:
    df = _ratio_frame(_fig1_frame(summary))
    m = _mean(df, ["series", "qmax"])
    paths = _bars(m, "goodput_ratio", "Fig. 8b: total goodput normalized to N (NTx) or C (the rest)",
                  "total goodput ratio", out_dir / "fig8b.png", (0, 1.1),
                  paper={**{(s, 100): v for s, v in PAPER_8B_Q100.items()}, ("DCTCP", 20): PAPER_8B_DCTCP_Q20})
    cmps = _claims_8b(df)
    return FigureResult(df, paths, cmps, ["ratios are per seed (same seed for series and baseline), then averaged; "
                                          "orders are judged on the distribution over seeds (mean ± 95 % CI)"])


def _claims_8b(df) -> List[Comparison]:
    qs = sorted(df["qmax"].unique())
    cmps: List[Comparison] = []
    for s in PAPER_8B_Q100:
        d = df[(df.series == s) & (df.qmax == 100)]["goodput_ratio"]
        if len(d):
            cmps.append(REGISTER.judge(f"fig8b-{s.lower()}-q100", float(d.mean()), note=seed_range(d)))
    d = df[(df.series == "DCTCP") & (df.qmax == 20)]["goodput_ratio"]
    if len(d):
        cmps.append(REGISTER.judge("fig8b-dctcp-q20", float(d.mean()), note=seed_range(d)))
    cts = [s for s in ("CT200", "CT100", "CT50") if _has(df, s)]
    if len(cts) >= 2:
        cmps.append(REGISTER.judge("fig8b-rmin", _by_rmin(df, cts, "goodput_ratio")))
    if _has(df, "CTD", "CT200"):
        cmps.append(REGISTER.judge("fig8b-ctd", paired_seeds(df, "CTD", "CT200", "qmax", "goodput_ratio")))
    T = _mean(df, ["series", "qmax"]).set_index(["series", "qmax"])["total_mbps"]
    for q in qs:
        if ("C", q) in T.index:
            cmps.append(info(f"C total goodput, Qmax = {q}", f"{float(T[('C', q)]):.0f} Mbps",
                             "the denominator of the ratios"))
    return cmps


def _analyze_fig9(summary, out_dir: Path) -> FigureResult:
    from ...plots import new_figure, save

    df = _fig1_frame(summary)
    tab = _tab9(_mean(df, ["series", "qmax"]))
    qs = sorted(df["qmax"].unique())
    groups = [g for g, _ in GROUPS]
    fig, axes = new_figure(ncols=2, figsize=(10, 4))
    w = 0.8 / len(groups)
    for ax, col, title in ((axes[0], "freq_ratio", "(a) timeout frequency, CTD / C"),
                           (axes[1], "period_ratio", "(b) timeout period, CTD / C")):
        for i, g in enumerate(groups):
            v = [float(tab[(tab.qmax == q) & (tab.group == g)][col].iloc[0]) for q in qs]
            ax.bar(np.arange(len(qs)) + i * w - 0.4 + w / 2, v, w, label=g if g == "F1" else f"avg({g})")  # F2:3 and F4:15 are means of their flows
        ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle=":")
        ax.set_xticks(np.arange(len(qs)))
        ax.set_xticklabels([f"Qmax {q}" for q in qs])
        ax.set_ylabel("ratio TCPRand (CTD) / CUBIC")
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.suptitle("Fig. 9: timeouts per flow, TCPRand (CTD) ÷ CUBIC, per switch buffer", fontsize=11)
    paths = save(fig, out_dir / "fig9.png")
    cmps = _claims_9(tab, df)
    return FigureResult(tab, paths, cmps, ["per-flow timeouts and timeout period (time stalled on RTO) averaged "
                                           "within each group and over seeds, then CTD / C; the orders are judged "
                                           "on CTD − C paired by seed (mean ± 95 % CI over seeds)"])


def _tab9(mean):
    """Per Qmax and flow group: CTD's and C's timeouts and timeout period, and their ratios."""
    import pandas as pd

    m = mean.set_index(["series", "qmax"])
    qs = sorted(mean["qmax"].unique())
    rows = []
    for q in qs:
        for g, _ in GROUPS:
            c, t = m.loc[("C", q)], m.loc[("CTD", q)]
            rows.append({"qmax": q, "group": g,
                         "timeouts_C": c[f"{g}_timeouts"], "timeouts_CTD": t[f"{g}_timeouts"],
                         "period_C_s": c[f"{g}_timeout_period_s"], "period_CTD_s": t[f"{g}_timeout_period_s"],
                         "freq_ratio": t[f"{g}_timeouts"] / c[f"{g}_timeouts"] if c[f"{g}_timeouts"] > 0 else math.nan,
                         "period_ratio": (t[f"{g}_timeout_period_s"] / c[f"{g}_timeout_period_s"]
                                          if c[f"{g}_timeout_period_s"] > 0 else math.nan)})
    return pd.DataFrame(rows)


#: hops of each flow group to R: the x of Fig. 9's per-group claims
HOPS = {"F1": 2, "F2:3": 4, "F4:15": 6}


def _per_group(df, q: int, what: str):
    """Per flow group (x = its hops) at Qmax ``q``: CTD − C of the group's
    mean ``what`` per flow, paired by seed."""
    out = {}
    for g, _ in GROUPS:
        d = paired_seeds(df[df.qmax == q], "CTD", "C", "qmax", f"{g}_{what}")
        if d:
            out[HOPS[g]] = next(iter(d.values()))
    return out


def _claims_9(tab, df) -> List[Comparison]:
    qs = sorted(tab["qmax"].unique())
    groups = [g for g, _ in GROUPS]
    T = tab.set_index(["qmax", "group"])
    cmps: List[Comparison] = []

    def per_seed(col: str, q: int):
        a = df[(df.series == "CTD") & (df.qmax == q)].set_index("seed")[col]
        b = df[(df.series == "C") & (df.qmax == q)].set_index("seed")[col]
        return [float(a[s] / b[s]) for s in a.index.intersection(b.index) if b[s] > 0]

    if 20 in qs:
        cmps.append(REGISTER.judge("fig9-f1-freq", float(T.loc[(20, "F1"), "freq_ratio"]),
                                   note="ratio of the means over seeds; " + seed_range(per_seed("F1_timeouts", 20), ".2f")))
        cmps.append(REGISTER.judge("fig9-f1-period", float(T.loc[(20, "F1"), "period_ratio"]),
                                   note="ratio of the means over seeds; "
                                   + seed_range(per_seed("F1_timeout_period_s", 20), ".2f")))
        cmps.append(REGISTER.judge("fig9-q20-more", _per_group(df, 20, "timeouts"),
                                   note="ratios of the means " + ", ".join(
                                       f"{float(T.loc[(20, g), 'freq_ratio']):.2f}" for g in groups)))
    qmax_hi = max(qs)
    if qmax_hi >= 100:
        cmps.append(REGISTER.judge("fig9-q100-fewer", _per_group(df, qmax_hi, "timeouts"),
                                   note="ratios of the means " + ", ".join(
                                       f"{float(T.loc[(qmax_hi, g), 'freq_ratio']):.2f}" for g in groups)))
    cmps.append(REGISTER.judge("fig9-f1-shorter", paired_seeds(df, "CTD", "C", "qmax", "F1_timeout_period_s"),
                               note="period ratios of the means " + ", ".join(
                                   f"{float(T.loc[(q, 'F1'), 'period_ratio']):.2f}" for q in qs)))
    hi = {}
    for q in qs:
        if q >= 60:
            for hops, v in _per_group(df, q, "timeout_period_s").items():
                hi[round(q + hops / 10, 1)] = v
    if hi:
        cmps.append(REGISTER.judge("fig9-hi-shorter", hi))
    return cmps
