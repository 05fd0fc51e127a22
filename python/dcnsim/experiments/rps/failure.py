"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): a core link that fails (ours).

The paper's fabric never fails. In a real one a link goes down and, until
routing converges, ECMP keeps hashing flows onto it: a black hole that only
moves a flow when something gives it another path. On the permutation of
``plbperm`` (host i → i + 8, 16 flows of 10 MB, DCTCP with SACK at K = 20
packets) the link aggr0_0–core0 fails both ways at 20 ms until the run's
end, and four schemes meet it: ECMP (stuck), ECMP with ``tcp.txrehash`` (a
new flow label at each timeout, and one for the ACKs when a retransmission
arrives on a new label: Linux's Protective ReRoute), flowlet switching (a
pause longer than the gap, as a timeout is, re-picks the next hop) and RPS
(a quarter of the packets of the flows between pods 0 and 2 sprayed into
the hole, until the end); beside them, as the reference, ECMP on the
fabric whose routing converged around the link before the flows started
(``withdrawn``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

from ...sweep import Point
from ..claims import ordering
from ..framework import FigureResult, beyond
from .common import (
    DCTCP_K,
    ECMP,
    FLOWLET,
    FLOWLET_GAP,
    LONG,
    RPS,
    STOP_S,
    _bulk,
    _runs,
    frame,
    paired,
    scenario,
    scheme_bars,
    tcp,
    tidy,
)

#: the figure's variant, as its Beyond-the-paper rows name it
FAILURE_SETTING = ("DCTCP (SACK, K = 20 packets) on a permutation (host i → i + 8), the core link aggr0_0–core0 "
                   "down from 20 ms to the end, routing not converged")
ECMP_TXREHASH = "ECMP + txrehash"
#: (series, label key, [routing] table, extra [tcp] keys)
FAILURE_SCHEMES: List[Tuple[str, str, Dict[str, Any], Dict[str, Any]]] = [
    (ECMP, "ecmp", {"mode": "ecmp"}, {}),
    (ECMP_TXREHASH, "txrehash", {"mode": "ecmp"}, {"txrehash": True}),
    (FLOWLET, "flowlet", {"mode": "flowlet", "flowlet_gap": FLOWLET_GAP}, {}),
    (RPS, "rps", {"mode": "rps"}, {}),
]
#: the reference: the same fabric whose routing converged around the link
#: before the flows started (`withdrawn`), ECMP over the paths left
CONVERGED = "ECMP, routing converged"
PERM_N = 16
#: down from 20 ms to the end of the run (the same run as for good; a
#: failure with an end draws no warning about flows stalled until stop)
FAILED = {"a": "aggr0_0", "b": "core0", "at": "20ms", "until": f"{STOP_S:g}s"}
WITHDRAWN = {"a": "aggr0_0", "b": "core0", "withdrawn": True}
TICKS = {FLOWLET: "flowlet\n500 µs", CONVERGED: "ECMP, routing\nconverged"}


def _failure_points(quick: bool) -> List[Point]:
    apps = [_bulk(i, (i + PERM_N // 2) % PERM_N, LONG) for i in range(PERM_N)]
    pts = []
    for name, key, routing, extra in FAILURE_SCHEMES + [(CONVERGED, "converged", {"mode": "ecmp"}, {})]:
        for run in _runs(quick):
            label = f"failure-{key}-r{run:02d}"
            doc = scenario(label, apps, routing, run, tcp(cc="dctcp", sack=True, **extra), ecn_k=DCTCP_K)
            doc["failures"] = [dict(WITHDRAWN if name == CONVERGED else FAILED)]
            pts.append(Point(label, doc, None, {"scheme": name, "n_long": PERM_N, "run": run, "shorts": 0,
                                                "case": "failure"}))
    return pts


def _analyze_failure(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    df = frame(summary)
    names = [s[0] for s in FAILURE_SCHEMES] + [CONVERGED]
    metrics = ("unfinished", "makespan_ms", "timeouts", "rehashes", "drops")
    t = pd.concat([tidy(df, m, ["scheme"]) for m in metrics], ignore_index=True)
    figs = scheme_bars(t, names, (("unfinished", f"flows unfinished at {STOP_S:g} s (of {PERM_N})"),
                                  ("makespan_ms", "last finished flow's completion (ms)")), ticks=TICKS,
                       title=f"DCTCP, permutation of {PERM_N} flows of 10 MB, core link aggr0_0–core0 down from "
                             "20 ms (means over runs, bars 95 % CI)", path=out_dir / "failure.png", log_last=True)
    cmp = [beyond(ordering(f"failure: flows unfinished at {STOP_S:g} s, {name} − ECMP",
                           paired(df, "unfinished", name, ECMP), None, -1, f"{name} − ECMP", "flows"),
                  setting=FAILURE_SETTING)
           for name in names[1:-1]]
    per_run = df.groupby("scheme")[list(metrics)].mean()
    notes = ["mean per run (flows unfinished at the end, timeouts, new flow labels, drops, last finished flow ms): "
             + "; ".join(f"{s}: {per_run.loc[s, 'unfinished']:.1f}, {per_run.loc[s, 'timeouts']:.1f}, "
                         f"{per_run.loc[s, 'rehashes']:.1f}, {per_run.loc[s, 'drops']:.0f}, "
                         f"{per_run.loc[s, 'makespan_ms']:.0f}" for s in names if s in per_run.index)]
    return FigureResult(t, figs, cmp, notes)
