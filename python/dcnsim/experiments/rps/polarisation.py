"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): hash polarisation (ours)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

from ...sweep import Point
from ..claims import claim
from ..framework import FigureResult, read_table
from .common import SHORTS, _runs, random_apps, scenario

# ---------------------------------------------------------------- hash polarisation (ours)

POLAR_SCHEMES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("ECMP, per-switch salt", "ecmp", {"mode": "ecmp"}),
    ("ECMP, no salt", "ecmpnosalt", {"mode": "ecmp", "salt": False}),
]


def _polar_points(quick: bool) -> List[Point]:
    n = 8
    pts = []
    for name, key, routing in POLAR_SCHEMES:
        for run in _runs(quick):
            label = f"polar-{key}-n{n}-r{run:02d}"
            pts.append(Point(label, scenario(label, random_apps(n, SHORTS, run), routing, run), None,
                             {"scheme": name, "n_long": n, "run": run, "shorts": SHORTS, "case": "random"}))
    return pts


def _analyze_polar(summary, out_dir: Path) -> FigureResult:
    import matplotlib.pyplot as plt
    import pandas as pd

    from ...plots import STYLE, save, series_colors

    rows = []
    for _, r in summary.iterrows():
        q = read_table(r, "queues")
        core = q[q["node"].str.startswith("core")]
        for c, g in core.groupby("node"):
            rows.append({"scheme": r["scheme"], "run": int(r["run"]), "core": c,
                         "utilization": float(g["utilization"].mean())})
    t = pd.DataFrame(rows)
    agg = t.groupby(["scheme", "core"])["utilization"].agg(["mean", "min"]).reset_index()
    names = [s[0] for s in POLAR_SCHEMES]
    cores = sorted(set(t["core"]))
    colors = series_colors(names)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        w = 0.38
        for i, s in enumerate(names):
            g = agg[agg["scheme"] == s].set_index("core").reindex(cores)
            ax.bar(np.arange(len(cores)) + (i - 0.5) * w, 100 * g["mean"], w, label=s, color=colors[s])
        ax.set_xticks(np.arange(len(cores)), cores)
        ax.set_ylabel("mean utilization of the core's ports (%)")
        ax.set_title("random pairs (8 long + 20 short): hash polarisation", fontsize=11)
        ax.legend()
    figs = save(fig, out_dir / "polarisation.png")
    un = t[t["scheme"] == names[1]]
    sa = t[t["scheme"] == names[0]]
    idle_un = sorted(set(un.groupby("core")["utilization"].max().loc[lambda s: s == 0].index))
    idle_sa = sorted(set(sa.groupby("core")["utilization"].max().loc[lambda s: s == 0].index))
    cmp = [claim("no salt: cores idle in every run", ", ".join(idle_un) or "none", None, None,
                 "law (tests/multipath.rs): the same hash digit picks the aggregation switch and its core, so "
                 "only the k/2 diagonal cores carry traffic"),
           claim("per-switch salt: cores idle in every run", ", ".join(idle_sa) or "none", None, None,
                 "independent choices per tier")]
    return FigureResult(t, figs, cmp, [])
