"""TCPRand (Lee et al., 2017): Fig. 13 (drop runs)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

from ...sweep import Point
from ..claims import info
from ..framework import Comparison, FigureResult
from .common import (
    REGISTER,
    flows,
    testbed_doc,
    testbed_verdicts,
)
from .fairness import _seeds
from .microscopic import FIG14_M, _rand

# ---------------------------------------------------------------- Fig. 13 (drop runs)

#: rMin of every flow (F1 and F2:M+1 alike, as in Fig. 13), the paper's static values
FIG13_RMINS = (1448, 1000, 600, 200)
RUN_BINS = ("drop_runs_len1", "drop_runs_len2", "drop_runs_len3", "drop_runs_len4", "drop_runs_len5plus")


def _fig13_points(quick: bool) -> List[Point]:
    secs = 1.0 if quick else 20.0
    pts = []
    for seed in _seeds(quick):
        for r in FIG13_RMINS:
            label = f"fig13-{r}-{secs:g}s-s{seed}"
            doc = testbed_doc(1, FIG14_M, 0, {"cc": "cubic", "sack": True}, secs, 100, seed,
                              tcp_per_sender={1: _rand(r), 2: _rand(r)})
            pts.append(Point(label, doc, None, {"rmin": r, "seed_": seed}))
    return pts


def drop_run_shares(drops: float, counts: Sequence[float]) -> Dict[str, float]:
    """Share of ``drops`` that fell in runs of 1, 2, 3, 4 and ≥ 5 consecutive
    packets, from the run-length histogram ``counts`` (runs of 1..4, ≥ 5).
    The ≥ 5 bin holds what runs of 1..4 do not, so the shares sum to 1."""
    if drops <= 0:
        return {f"share_len{k}": math.nan for k in ("1", "2", "3", "4", "5plus")}
    short = [(k + 1) * float(counts[k]) for k in range(4)]
    out = {f"share_len{k + 1}": short[k] / drops for k in range(4)}
    out["share_len5plus"] = (drops - sum(short)) / drops
    return out


def _analyze_fig13(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save

    per = []
    for _, r in summary.iterrows():
        f1 = flows(r)
        f1 = f1[f1["src"] == 1].iloc[0]
        per.append({"rmin": int(r["rmin"]), "seed": int(r["seed_"]), "drops": int(f1["drops"]),
                    "segments_sent": int(f1["segments_sent"]), "timeouts": int(f1["timeouts"]),
                    "mbps": float(f1["goodput_bps"]) / 1e6,
                    "drop_runs": int(f1["drop_runs"]), "max_drop_run": int(f1["max_drop_run"]),
                    **{c: int(f1[c]) for c in RUN_BINS}})
    raw = pd.DataFrame(per)
    # Pool the seeds: a share of all F1's drops at that rMin, not a mean of shares.
    g = raw.groupby("rmin", sort=False).agg({"drops": "sum", "drop_runs": "sum", "max_drop_run": "max",
                                             "segments_sent": "sum", "timeouts": "mean", "mbps": "mean",
                                             **{c: "sum" for c in RUN_BINS}})
    g = g.reindex([r for r in FIG13_RMINS if r in g.index])
    rows = []
    for rmin, x in g.iterrows():
        rows.append({"rmin": int(rmin), "seeds": int((raw.rmin == rmin).sum()), "f1_drops": int(x["drops"]),
                     "f1_drop_runs": int(x["drop_runs"]), "f1_max_drop_run": int(x["max_drop_run"]),
                     "f1_loss_rate": float(x["drops"]) / max(1.0, float(x["segments_sent"])),
                     "f1_timeouts_mean": float(x["timeouts"]), "f1_mbps_mean": float(x["mbps"]),
                     **{c: int(x[c]) for c in RUN_BINS},
                     **drop_run_shares(float(x["drops"]), [x[c] for c in RUN_BINS])})
    df = pd.DataFrame(rows)
    df["share_len3plus"] = df["share_len3"] + df["share_len4"] + df["share_len5plus"]
    fig, (a, b) = new_figure(ncols=2, figsize=(11, 4))
    xs = np.arange(len(df))
    labels = [str(r) for r in df["rmin"]]
    a.bar(xs, df["share_len1"], 0.6)
    a.set_xticks(xs)
    a.set_xticklabels(labels)
    a.set_ylim(0, 1)
    a.set_xlabel("rMin of every flow (bytes)")
    a.set_ylabel("single drops / all drops of F1")
    a.set_title("(a) single isolated drops")
    w = 0.2
    for i, k in enumerate(("2", "3", "4", "5plus")):
        a_ = "≥ 5" if k == "5plus" else k
        b.bar(xs + (i - 1.5) * w, df[f"share_len{k}"], w, label=f"runs of {a_}")
    b.set_xticks(xs)
    b.set_xticklabels(labels)
    b.set_xlabel("rMin of every flow (bytes)")
    b.set_ylabel("drops in runs of k / all drops of F1")
    b.set_title("(b) consecutive drops")
    b.legend(fontsize=7)
    fig.suptitle("Fig. 13: how the outcast flow F1's drops come, by rMin (M = 15, SACK on)", fontsize=11)
    paths = save(fig, out_dir / "fig13.png")
    cmps: List[Comparison] = []
    ok = df.dropna(subset=["share_len1"])
    for _, x in ok.iterrows():
        cmps.append(info(f"rMin {int(x['rmin'])}: F1's drops, share single / in runs of 2, 3, 4, ≥ 5",
                         f"{int(x['f1_drops'])}: {x['share_len1']:.2f} / {x['share_len2']:.2f} / "
                         f"{x['share_len3']:.2f} / {x['share_len4']:.2f} / {x['share_len5plus']:.2f}",
                         "drops pooled over seeds"))
        cmps.append(info(f"rMin {int(x['rmin'])}: F1's loss rate, timeouts per run, goodput",
                         f"{x['f1_loss_rate']:.1%}, {x['f1_timeouts_mean']:.0f}, {x['f1_mbps_mean']:.0f} Mbps",
                         "the regime the drops come from (paper: no timeouts with SACK, Fig. 14)"))
    # one value per rMin, drops pooled over the seeds: no interval
    by_rmin = {int(x["rmin"]): x for _, x in ok.iterrows()}
    cmps.append(REGISTER.judge("fig13-single", {r: (float(x["share_len1"]), math.nan) for r, x in by_rmin.items()}))
    cmps.append(REGISTER.judge("fig13-consecutive", {
        "runs ≥ 2": {r: (float(x["share_len2"] + x["share_len3plus"]), math.nan) for r, x in by_rmin.items()},
        "runs ≥ 3": {r: (float(x["share_len3plus"]), math.nan) for r, x in by_rmin.items()}}))
    return FigureResult(df, paths, testbed_verdicts(cmps), [f"testbed topology, S1: 1 flow (F1, the outcast), S2: M = {FIG14_M} flows, "
                                          "every flow with the same static rMin, CUBIC, SACK on, Linux TCP "
                                          "(RTOmin 200 ms, IW 10), 100-packet drop-tail queues; a run is a set "
                                          "of drops of consecutively transmitted packets of F1; shares are of "
                                          "F1's drops pooled over the seeds"])
