"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): per-path utilization (ours)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from ...sweep import Point
from ..claims import claim
from ..framework import FigureResult, read_table
from .common import REGISTER, RPS, SCHEME_NAMES, SCHEMES, SINGLE, scenario, static_apps

# ---------------------------------------------------------------- per-path utilization (ours)


def _paths_points(quick: bool) -> List[Point]:
    pts = []
    for name, key, routing in SCHEMES:
        label = f"paths-{key}"
        pts.append(Point(label, scenario(label, static_apps(5), routing, 1), None,
                         {"scheme": name, "n_long": 5, "run": 1, "shorts": 1, "case": "static"}))
    return pts


def core_shares(row: Any) -> Dict[str, float]:
    """Share of the data bytes into pod 3 that each core switch carried."""
    q = read_table(row, "queues")
    down = q[q["node"].str.startswith("core") & q["to"].str.startswith("aggr3_")]
    tot = float(down["tx_bytes"].sum())
    return {n: (float(b) / tot if tot else math.nan) for n, b in zip(down["node"], down["tx_bytes"])}


def _analyze_paths(summary, out_dir: Path) -> FigureResult:
    import matplotlib.pyplot as plt
    import pandas as pd

    from ...plots import STYLE, save, series_colors

    rows = []
    for _, r in summary.iterrows():
        for core, share in core_shares(r).items():
            rows.append({"scheme": r["scheme"], "core": core, "share": share})
    t = pd.DataFrame(rows)
    cores = sorted(set(t["core"]))
    colors = series_colors(SCHEME_NAMES)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7.2, 4.0))
        w = 0.8 / len(SCHEME_NAMES)
        for i, s in enumerate(SCHEME_NAMES):
            g = t[t["scheme"] == s].set_index("core").reindex(cores)
            ax.bar(np.arange(len(cores)) + (i - 1.5) * w, 100 * g["share"], w, label=s, color=colors[s])
        ax.axhline(25, linestyle="--", color="0.5", linewidth=1, label="even split")
        ax.set_xticks(np.arange(len(cores)), [f"{c} → pod 3" for c in cores])
        ax.set_ylabel("share of the bytes into pod 3 (%)")
        ax.set_title("static pairs, 5 long + 1 short flow: load per inter-pod path", fontsize=11)
        ax.legend()
    figs = save(fig, out_dir / "paths.png")
    rps = t[t["scheme"] == RPS]["share"]
    dev = float((rps - 0.25).abs().max()) if len(rps) else math.nan
    single = t[t["scheme"] == SINGLE]["share"]
    cmp = [REGISTER.judge("paths-quarter", 100 * dev),
           claim("single path: cores used", int((single > 0).sum()), None, None,
                 "ns-3's global routing puts every flow on the first shortest path: one core")]
    return FigureResult(t, figs, cmp, [])
