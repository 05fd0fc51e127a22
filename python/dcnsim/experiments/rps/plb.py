"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): host-driven repathing (ours).

The paper's alternative to a fixed path is spraying every packet. PLB
(Qureshi et al., SIGCOMM 2022; Linux's tcp_plb for DCTCP) keeps ECMP's one
path per flow but lets a sender whose rounds stay ECN-congested draw a new
flow label, and so another path. On the random pairs of Figs. 5–6, with
DCTCP marking at K, this figure runs ECMP, ECMP with PLB at Linux's
defaults, ECMP with PLB eager (20 % of a round marked, 3 rounds) and RPS;
``plbperm`` runs the same schemes on a permutation (host i → i + 8, every
host one 10 MB flow out and one in), where flows meet only in the fabric.
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
    LONG,
    RPS,
    SHORTS,
    _bulk,
    _runs,
    frame,
    paired,
    random_apps,
    scenario,
    scheme_bars,
    tcp,
    tidy,
    tput_and_fct_plots,
)

#: the plb figure's variant, as its Beyond-the-paper rows name it
PLB_SETTING = "DCTCP (SACK, K = 20 packets) on the random pairs: ECMP with and without PLB, and RPS"

PLB_LINUX = "ECMP + PLB (Linux: 50 %, 12 rounds)"
PLB_EAGER = "ECMP + PLB (20 %, 3 rounds)"
#: (series, label key, [routing] table, extra [tcp] keys)
PLB_SCHEMES: List[Tuple[str, str, Dict[str, Any], Dict[str, Any]]] = [
    (ECMP, "ecmp", {"mode": "ecmp"}, {}),
    (PLB_LINUX, "plb", {"mode": "ecmp"}, {"plb": True}),
    (PLB_EAGER, "plbeager", {"mode": "ecmp"}, {"plb": True, "plb_cong_thresh": 0.2, "plb_rehash_rounds": 3}),
    (RPS, "rps", {"mode": "rps"}, {}),
]


def _plb_points(quick: bool) -> List[Point]:
    ns = (4,) if quick else (2, 4, 8)
    pts = []
    for name, key, routing, extra in PLB_SCHEMES:
        for n in ns:
            for run in _runs(quick):
                label = f"plb-{key}-n{n}-r{run:02d}"
                doc = scenario(label, random_apps(n, SHORTS, run), routing, run,
                               tcp(cc="dctcp", sack=True, **extra), ecn_k=DCTCP_K)
                pts.append(Point(label, doc, None, {"scheme": name, "n_long": n, "run": run, "shorts": SHORTS,
                                                    "case": "random"}))
    return pts


def _against_ecmp(df, setting: str, quantities) -> list:
    """Each scheme against ECMP, run by run, on each (name, metric, the
    side PLB is meant to move it to, unit): rows beyond the paper (it has
    no such figure), judged by our expectation, never tallied."""
    cmp = []
    for name in (PLB_LINUX, PLB_EAGER, RPS):
        for quantity, metric, sign, unit in quantities:
            cmp.append(ordering(f"{quantity}, {name} − ECMP", paired(df, metric, name, ECMP), None, sign,
                                f"{name} − ECMP", unit))
    return [beyond(c, setting=setting) for c in cmp]


def _analyze_plb(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    df = frame(summary)
    names = [s[0] for s in PLB_SCHEMES]
    t = pd.concat([tidy(df, m, ["scheme", "n_long"]) for m in ("long_tput_mbps", "short_fct_ms", "rehashes")],
                  ignore_index=True)
    figs = tput_and_fct_plots(t, ("plb", "plb_fct"), out_dir=out_dir, order=names,
                              title="DCTCP, random pairs (20 short flows): ECMP, PLB, RPS")
    cmp = _against_ecmp(df, PLB_SETTING, (("long-flow throughput", "long_tput_mbps", +1, "Mbps"),
                                          ("short-flow FCT", "short_fct_ms", -1, "ms")))
    moved = df.groupby("scheme")[["rehashes", "timeouts"]].sum()
    notes = ["new flow labels / timeouts, all runs: " + "; ".join(
        f"{s}: {int(moved.loc[s, 'rehashes'])} / {int(moved.loc[s, 'timeouts'])}" for s in names if s in moved.index)]
    return FigureResult(t, figs, cmp, notes)


# ---------------------------------------------------------------- the same schemes on a permutation

#: the plbperm figure's variant
PLBPERM_SETTING = "DCTCP (SACK, K = 20 packets) on a permutation (host i → i + 8): ECMP with and without PLB, and RPS"
PERM_N = 16
#: the bar chart's short names for the schemes
TICKS = {PLB_LINUX: "PLB, Linux's\n50 %, 12 rounds", PLB_EAGER: "PLB\n20 %, 3 rounds"}


def _plbperm_points(quick: bool) -> List[Point]:
    apps = [_bulk(i, (i + PERM_N // 2) % PERM_N, LONG) for i in range(PERM_N)]
    pts = []
    for name, key, routing, extra in PLB_SCHEMES:
        for run in _runs(quick):
            label = f"plbperm-{key}-r{run:02d}"
            doc = scenario(label, apps, routing, run, tcp(cc="dctcp", sack=True, **extra), ecn_k=DCTCP_K)
            pts.append(Point(label, doc, None, {"scheme": name, "n_long": PERM_N, "run": run, "shorts": 0,
                                                "case": "permutation"}))
    return pts


def _analyze_plbperm(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    df = frame(summary)
    names = [s[0] for s in PLB_SCHEMES]
    t = pd.concat([tidy(df, m, ["scheme"]) for m in ("long_tput_mbps", "makespan_ms", "rehashes")],
                  ignore_index=True)
    figs = scheme_bars(t, names, (("long_tput_mbps", "mean flow throughput (Mbps)"),
                                  ("makespan_ms", "last flow's completion (ms)")), ticks=TICKS,
                       title=f"DCTCP, permutation of {PERM_N} flows of 10 MB: ECMP, PLB, RPS (means over runs, "
                             "bars 95 % CI)", path=out_dir / "plbperm.png")
    cmp = _against_ecmp(df, PLBPERM_SETTING, (("permutation: flow throughput", "long_tput_mbps", +1, "Mbps"),
                                              ("permutation: last completion", "makespan_ms", -1, "ms")))
    moved = df.groupby("scheme")[["rehashes", "timeouts", "long_tput_mbps", "makespan_ms"]].mean()
    notes = ["mean per run (new flow labels, timeouts, flow throughput Mbps, last completion ms): " + "; ".join(
        f"{s}: {moved.loc[s, 'rehashes']:.1f}, {moved.loc[s, 'timeouts']:.1f}, {moved.loc[s, 'long_tput_mbps']:.0f}, "
        f"{moved.loc[s, 'makespan_ms']:.0f}" for s in names if s in moved.index)]
    return FigureResult(t, figs, cmp, notes)
