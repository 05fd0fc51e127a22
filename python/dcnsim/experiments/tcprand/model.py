"""TCPRand (Lee et al., 2017): Fig. 5 (offline model)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from ...sweep import Point
from ..claims import info
from ..framework import FigureResult
from .common import (
    LINUX_MSS as MSS,  # Fig. 5 sweeps rMin up to 1448 B, the testbed's full segment
)
from .common import REGISTER

# ---------------------------------------------------------------- Fig. 5 (offline model)


def _no_points(quick: bool) -> List[Point]:
    return []


def _analyze_fig5(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...models.enqueue import enqueue_sweep
    from ...plots import new_figure, save

    quick = bool(summary.attrs.get("quick"))
    step = 37 if quick else 1
    rmins = sorted(set(list(range(1, MSS + 1, step)) + [1, 200, MSS]))
    rows = []
    for phase in ("uniform", "aligned"):
        for e in enqueue_sweep(rmins, 1000, phase=phase):
            rows.append({"phase": phase, **e.as_dict()})
    df = pd.DataFrame(rows)
    fig, ax = new_figure(figsize=(8, 4.2))
    u = df[df.phase == "uniform"]
    for col, name in (("p_x2", "P(X2)"), ("p_y2", "P(Y2)"), ("p_both", "both"), ("p_neither", "neither")):
        ax.plot(u["rmin"], u[col], linewidth=1.0, label=name)
    a = df[df.phase == "aligned"]
    ax.plot(a["rmin"], a["p_x2"], ":", color="0.3", linewidth=1.0, label="P(X2), aligned reading")
    ax.set_xlabel("rMin (bytes)")
    ax.set_ylabel("enqueue probability")
    ax.set_title("Fig. 5: enqueue probability of X2 and Y2 (1000 trials per rMin)")
    ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig5.png")
    U = u.set_index("rmin")
    cmps = [
        REGISTER.judge("fig5-x2-full", float(U.loc[MSS, "p_x2"])),
        REGISTER.judge("fig5-x2", float(U.loc[1, "p_x2"])),
        REGISTER.judge("fig5-y2", float(U.loc[1, "p_y2"])),
        REGISTER.judge("fig5-neither", float(U.loc[1, "p_neither"])),
        REGISTER.judge("fig5-both", float(U.loc[1, "p_both"])),
        info("aligned reading at rMin = 1 B: P(X2), neither",
             f"{float(a.set_index('rmin').loc[1, 'p_x2']):.2f}, {float(a.set_index('rmin').loc[1, 'p_neither']):.2f}",
             "the other reading of where Y1 falls in the output port's service (docs/models.md §4)"),
    ]
    return FigureResult(df, paths, cmps, ["a model, not a simulation run: dcnsim.models.enqueue (uniform phase)"])
