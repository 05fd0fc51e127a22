"""TCPRand (Lee et al., 2017): Figs. 8a, 8b, 9."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path
from typing import Callable, List, Sequence

import numpy as np

from ...sweep import Point
from ..claims import claim, info, near
from ..framework import TALLIED, Comparison, FigureResult
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
    SEEDS,
    SERIES,
    _fig1_frame,
    _mean,
    fig1_doc,
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


def seed_spread(df, by: Sequence[str], build: Callable[..., List[Comparison]]) -> List[Comparison]:
    """``build(mean table)`` judged on the mean over seeds, with the spread
    over seeds printed: ``build`` is run again on each seed's own table and
    each tallied comparison's ``ours`` gets the per-seed verdicts (and, for
    a number, the per-seed min–max), so a reviewer sees whether the verdict
    holds for every seed. The mean's verdict is the one counted."""
    out = build(_mean(df, by))
    seeds = sorted(df["seed"].unique())
    if len(seeds) < 2:
        return out
    per = [build(_mean(df[df["seed"] == s], by)) for s in seeds]
    if any(len(p) != len(out) for p in per):  # a seed lacks a point: no spread to pair
        return out
    res = []
    for i, c in enumerate(out):
        if c.verdict not in TALLIED:
            res.append(c)
            continue
        got = Counter(p[i].verdict for p in per)
        tag = "seeds: " + ", ".join(f"{n} {v}" for v, n in got.most_common())
        ours = c.ours
        if isinstance(ours, (int, float)) and all(isinstance(p[i].ours, (int, float)) for p in per):
            vals = [float(p[i].ours) for p in per]
            f = c.fmt or ".3g"
            ours = f"{format(float(ours), f)} ({format(min(vals), f)}–{format(max(vals), f)})"
        ours = f"{ours} [{tag}]"
        note = c.note
        if set(got) != {c.verdict}:
            note = (f"the verdict does not hold for every one of the {len(seeds)} seeds ({tag}); "
                    + note).rstrip("; ")
        res.append(dataclasses.replace(c, ours=ours, note=note, fmt=""))
    return res


PAPER_8A_Q100 = {"CT200": 0.976, "CT100": 0.991, "CT50": 0.996}
#: what the paper calls DCTCP's "high fairness" (Fig. 8c, 450 Mbps background):
#: the only Jain value it gives for DCTCP on the Fig. 1 fat-tree
PAPER_DCTCP_HIGH = 0.887
PAPER_8B_Q100 = {"CT200": 0.855, "CT100": 0.85, "CT50": 0.835}
PAPER_8B_DCTCP_Q20 = 0.936


def _bars(df, value: str, title: str, ylabel: str, path: Path, ylim=None):
    from ...plots import new_figure, save, series_colors

    qs = sorted(df["qmax"].unique())
    series = list(dict.fromkeys(df["series"]))
    colors = series_colors(series)
    fig, ax = new_figure(figsize=(9, 4.2))
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        vals = [float(df[(df["series"] == s) & (df["qmax"] == q)][value].mean()) for q in qs]
        ax.bar(np.arange(len(qs)) + i * w - 0.4 + w / 2, vals, w, label=s, color=colors[s])
    ax.set_xticks(np.arange(len(qs)))
    ax.set_xticklabels([f"Qmax = {q} pkt" for q in qs])
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(ylim[0], ylim[1] * 1.2)  # room for the legend above the bars
    ax.set_title(title)
    ax.legend(ncol=len(series), fontsize=8, loc="upper center")
    return save(fig, path)


def _analyze_fig8a(summary, out_dir: Path) -> FigureResult:
    df = _fig1_frame(summary)
    m = _mean(df, ["series", "qmax"])
    paths = _bars(m, "jain", "Fig. 8a: Jain's fairness index over the 15 flows of Fig. 1", "Jain's index",
                  out_dir / "fig8a.png", (0, 1.05))
    cmps = seed_spread(df, ["series", "qmax"], _claims_8a)
    notes = [f"mean over seeds {[int(x) for x in sorted(df['seed'].unique())]}; {df.groupby(['series', 'qmax']).size().max()} run(s) "
             f"per bar, {_secs(bool(summary.attrs.get('quick'))):g} s flows; table fig8a.csv has every run; "
             "verdicts are on the mean over seeds, [seeds: …] counts each seed's own verdict"]
    return FigureResult(df, paths, cmps, notes)


def _claims_8a(m) -> List[Comparison]:
    J = m.set_index(["series", "qmax"])["jain"]
    qs = sorted(m["qmax"].unique())
    cmps: List[Comparison] = []
    for s, p in PAPER_8A_Q100.items():
        if (s, 100) in J.index:
            cmps.append(near(f"Jain index, {s}, Qmax = 100", float(J[(s, 100)]), p, 0.02, 0.05))
    for base, rands in (("C", ["CT200", "CT100", "CT50", "CTD"]), ("N", ["NT200", "NT100", "NT50"])):
        for s in rands:
            ok = [(s, q) in J.index and (base, q) in J.index for q in qs]
            if not all(ok):
                continue
            gains = [float(J[(s, q)] - J[(base, q)]) for q in qs]
            cmps.append(claim(f"{s} fairer than {base} at every Qmax (gain per Qmax {', '.join(f'{g:+.3f}' for g in gains)})",
                              f"{min(gains):+.3f} (smallest gain)", "yes (Fig. 8a)", min(gains) > 0.02,
                              "the mean Jain index over seeds exceeds the baseline's by > 0.02 at every Qmax",
                              partly=sum(g > 0.02 for g in gains) > len(gains) / 2,
                              partly_rule="gain > 0.02 at more than half of the Qmax values"))
    for base in ("C", "N"):
        if all((base, q) in J.index for q in qs):
            worst = min(float(J[(base, q)]) for q in qs)
            cmps.append(claim(f"{base} (fixed-size segments) suffers from outcast",
                              f"{', '.join(f'{float(J[(base, q)]):.3f}' for q in qs)}", "unfair (Fig. 8a)",
                              max(float(J[(base, q)]) for q in qs) < 0.95,
                              "Jain < 0.95 at every Qmax", partly=worst < 0.95,
                              partly_rule="Jain < 0.95 at some Qmax"))
    cts = [s for s in ("CT200", "CT100", "CT50") if all((s, q) in J.index for q in qs)]
    if len(cts) >= 2:
        mono = all(float(J[(cts[i + 1], q)]) >= float(J[(cts[i], q)]) - 0.01 for i in range(len(cts) - 1) for q in qs)
        cmps.append(claim("fairness rises as static rMin falls (CT200 → CT50)", "yes" if mono else "no",
                          "yes", mono, "Jain(CT smaller rMin) ≥ Jain(CT larger rMin) − 0.01 at every Qmax"))
    if all(("DCTCP", q) in J.index for q in qs):
        jd = [float(J[("DCTCP", q)]) for q in qs]
        above = all(("C", q) in J.index and jd[i] > float(J[("C", q)]) for i, q in enumerate(qs))
        cmps.append(claim("DCTCP fair at every Qmax", ", ".join(f"{x:.3f}" for x in jd),
                          "good balance between fairness and goodput", min(jd) >= PAPER_DCTCP_HIGH,
                          f"Jain ≥ {PAPER_DCTCP_HIGH} at every Qmax (the value the paper calls DCTCP's \"high "
                          "fairness\", Fig. 8c; it gives none for Fig. 8a)", partly=above,
                          partly_rule="Jain(DCTCP) > Jain(C) at every Qmax"))
    P = m.set_index(["series", "qmax"])
    for s in ("CTD", "CT200"):
        if all((s, q) in P.index for q in qs):
            cmps.append(info(f"{s}: mean payload (B) / timeouts per flow, Qmax {', '.join(map(str, qs))}",
                             "; ".join(f"{P.loc[(s, q), 'mean_payload_b']:.0f} / {P.loc[(s, q), 'timeouts_per_flow']:.0f}"
                                       for q in qs),
                             "MSS (1460 B) = nothing randomized; adaptive mode is off where W_max ≤ α (an epoch "
                             "that starts at or above the last loss point)"))
    return cmps


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
                  "total goodput ratio", out_dir / "fig8b.png", (0, 1.1))
    cmps = seed_spread(df, ["series", "qmax"], _claims_8b)
    return FigureResult(df, paths, cmps, ["ratios are per seed (same seed for series and baseline), then averaged; "
                                          "[seeds: …] counts each seed's own verdict"])


def _claims_8b(m) -> List[Comparison]:
    R = m.set_index(["series", "qmax"])["goodput_ratio"]
    T = m.set_index(["series", "qmax"])["total_mbps"]
    qs = sorted(m["qmax"].unique())
    cmps: List[Comparison] = []
    for s, p in PAPER_8B_Q100.items():
        if (s, 100) in R.index:
            cmps.append(near(f"goodput ratio {s}/C, Qmax = 100", float(R[(s, 100)]), p, 0.03, 0.08))
    if ("DCTCP", 20) in R.index:
        cmps.append(near("goodput ratio DCTCP/C, Qmax = 20", float(R[("DCTCP", 20)]), PAPER_8B_DCTCP_Q20, 0.03, 0.08))
    cts = [s for s in ("CT200", "CT100", "CT50") if all((s, q) in R.index for q in qs)]
    if len(cts) >= 2:
        mono = all(float(R[(cts[i + 1], q)]) <= float(R[(cts[i], q)]) + 0.01 for i in range(len(cts) - 1) for q in qs)
        cmps.append(claim("total goodput falls as static rMin falls (CT200 → CT50)", "yes" if mono else "no", "yes",
                          mono, "ratio(smaller rMin) ≤ ratio(larger rMin) + 0.01 at every Qmax"))
    if all(("CTD", q) in R.index and ("CT200", q) in R.index for q in qs):
        d = [float(R[("CTD", q)] - R[("CT200", q)]) for q in qs]
        cmps.append(claim("adaptive TCPRand (CTD) loses less goodput than CT200",
                          ", ".join(f"{x:+.3f}" for x in d), "yes (§4: adaptive avoids needless randomization)",
                          min(d) > 0, "ratio(CTD) > ratio(CT200) at every Qmax", partly=sum(x > 0 for x in d) > len(d) / 2,
                          partly_rule="at more than half of the Qmax values"))
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
            ax.bar(np.arange(len(qs)) + i * w - 0.4 + w / 2, v, w, label=g if g != "F2:3" else "avg(F2:3)")
        ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle=":")
        ax.set_xticks(np.arange(len(qs)))
        ax.set_xticklabels([f"Qmax {q}" for q in qs])
        ax.set_ylabel("ratio TCPRand (CTD) / CUBIC")
        ax.set_title(title)
        ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig9.png")
    cmps = seed_spread(df, ["series", "qmax"], lambda m: _claims_9(_tab9(m)))
    return FigureResult(tab, paths, cmps, ["per-flow timeouts and timeout period (time stalled on RTO) averaged "
                                           "within each group and over seeds, then CTD / C; [seeds: …] counts "
                                           "each seed's own verdict"])


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


def _claims_9(tab) -> List[Comparison]:
    qs = sorted(tab["qmax"].unique())
    groups = [g for g, _ in GROUPS]
    T = tab.set_index(["qmax", "group"])
    cmps: List[Comparison] = []
    if 20 in qs:
        cmps.append(near("F1 timeout frequency ratio CTD/C, Qmax = 20", float(T.loc[(20, "F1"), "freq_ratio"]), 3.0,
                         0.3, 0.6, relative=True, fmt=".2f", note="paper: '~3'"))
        cmps.append(near("F1 timeout period ratio CTD/C, Qmax = 20", float(T.loc[(20, "F1"), "period_ratio"]), 0.5,
                         0.3, 0.6, relative=True, fmt=".2f", note="paper: 'by half'"))
        allmore = all(float(T.loc[(20, g), "freq_ratio"]) > 1 for g in groups)
        cmps.append(claim("Qmax = 20: every group has more timeouts with TCPRand",
                          ", ".join(f"{float(T.loc[(20, g), 'freq_ratio']):.2f}" for g in groups), "yes",
                          allmore, "frequency ratio > 1 for F1, F2:3 and F4:15"))
    qmax_hi = max(qs)
    if qmax_hi >= 100:
        fewer = [float(T.loc[(qmax_hi, g), "freq_ratio"]) for g in groups]
        cmps.append(claim(f"Qmax = {qmax_hi}: every group has fewer timeouts with TCPRand",
                          ", ".join(f"{x:.2f}" for x in fewer), "yes", all(x < 1 for x in fewer),
                          "frequency ratio < 1 for F1, F2:3 and F4:15", partly=sum(x < 1 for x in fewer) >= 2,
                          partly_rule="ratio < 1 for two of the three groups"))
    f1p = [float(T.loc[(q, "F1"), "period_ratio"]) for q in qs]
    cmps.append(claim("TCPRand shortens F1's timeout period at every Qmax", ", ".join(f"{x:.2f}" for x in f1p),
                      "yes", all(x < 1 for x in f1p), "F1's period ratio < 1 at every Qmax",
                      partly=sum(x < 1 for x in f1p) > len(f1p) / 2,
                      partly_rule="at more than half of the Qmax values"))
    hi = [(q, g) for q in qs if q >= 60 for g in groups]
    if hi:
        vals = [float(T.loc[k, "period_ratio"]) for k in hi]
        cmps.append(claim("Qmax ≥ 60: TCPRand shortens every group's timeout period",
                          ", ".join(f"{x:.2f}" for x in vals), "yes", all(x < 1 for x in vals),
                          "period ratio < 1 for every group at every Qmax ≥ 60",
                          partly=sum(x < 1 for x in vals) > len(vals) / 2,
                          partly_rule="for more than half of the (group, Qmax) cells"))
    return cmps
