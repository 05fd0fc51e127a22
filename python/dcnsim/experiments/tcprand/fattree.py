"""TCPRand (Lee et al., 2017): Fig. 10 (8-ary fat-tree)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

from ...result import jain
from ...sweep import Point
from ..claims import info
from ..framework import Comparison, FigureResult
from .common import (
    LINK_DELAY,
    RATE,
    REGISTER,
    SERIES,
    START_JITTER,
    SWITCH_DELAY,
    flows,
    over_seeds,
    tcp_table,
)
from .fairness import _secs, _seeds

# ---------------------------------------------------------------- Fig. 10 (8-ary fat-tree)

FIG10_NS = (1, 2, 4, 8, 16, 32, 64, 112)
QUICK_FIG10_NS = (1, 4, 16, 64)
FIG10_SERIES = ("C", "CTD", "CT200")


def fig10_doc(series: Dict[str, Any], n6: int, secs: float, seed: int = 1, name: str = "tcprand-fig10",
              tcp_over: Optional[Dict[str, Any]] = None):
    """k = 8 fat-tree (128 hosts), Qmax 100: one 2-hop flow (host 1 → 0) and
    ``n6`` 6-hop flows from hosts 16, 17, … (other pods) to host 0, each
    starting within ``START_JITTER``."""
    dur = f"{secs:g}s"
    apps = [{"kind": "bulk", "src": 1, "dst": 0, "duration": dur, "start_jitter": START_JITTER}]
    apps += [{"kind": "bulk", "src": 16 + i, "dst": 0, "duration": dur, "start_jitter": START_JITTER}
             for i in range(n6)]
    topo = {"kind": "fat_tree", "k": 8, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
    return {"name": name, "seed": seed, "stop": f"{secs + 0.5:g}s", "switch_delay": SWITCH_DELAY,
            "topology": topo, "tcp": tcp_table(series, **(tcp_over or {})), "apps": apps}


def _fig10_points(quick: bool) -> List[Point]:
    secs = _secs(quick)
    pts = []
    for s in FIG10_SERIES:
        for n in (QUICK_FIG10_NS if quick else FIG10_NS):
            for seed in _seeds(quick):
                label = f"fig10-{s}-n{n}-{secs:g}s-s{seed}"
                pts.append(Point(label, fig10_doc(SERIES[s], n, secs, seed, label), None,
                                 {"series": s, "n6": n, "seed_": seed}))
    return pts


def _analyze_fig10(summary, out_dir: Path) -> FigureResult:
    import pandas as pd
    from matplotlib.ticker import FuncFormatter, NullLocator

    from ...plots import new_figure, save

    rows = []
    for _, r in summary.iterrows():
        f = flows(r)
        two = float(f[f["src"] == 1]["goodput_bps"].iloc[0]) / 1e6
        six = f[f["src"] != 1]["goodput_bps"] / 1e6
        tot = two + float(six.sum())
        rows.append({"series": r["series"], "n6": int(r["n6"]), "seed": int(r["seed_"]), "two_hop_mbps": two,
                     "six_hop_mean_mbps": float(six.mean()), "fair_share_mbps": tot / (len(six) + 1),
                     "jain": jain([two] + list(six))})
    df = pd.DataFrame(rows)
    m = df.groupby(["series", "n6"]).mean(numeric_only=True).reset_index()
    fig, axes = new_figure(ncols=3, figsize=(14, 4), sharey=True)
    for ax, s, title in ((axes[0], "C", "(a) CUBIC"), (axes[1], "CTD", "(b) TCPRand (adaptive, CTD)"),
                         (axes[2], "CT200", "(extra) static TCPRand, rMin 200 B")):
        g = m[m.series == s]
        ax.plot(g["n6"], g["two_hop_mbps"], "o-", label="2-hop flow")
        ax.plot(g["n6"], g["six_hop_mean_mbps"], "s-", label="6-hop flows (mean)")
        ax.plot(g["n6"], g["fair_share_mbps"], ":", color="0.4", label="fair share")
        ax.set_xscale("log", base=2)
        # ticks at the flow counts run, as plain numbers (not 2^k, some never run)
        ax.set_xticks(sorted(set(float(v) for v in g["n6"])))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_yscale("log")
        ax.set_xlabel("number of 6-hop flows")
        ax.set_title(title)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("goodput (Mbps)")
    fig.suptitle("Fig. 10: TCP outcast on a k = 8 fat-tree (128 hosts), one 2-hop flow against N 6-hop flows into one host",
                 fontsize=11)
    paths = save(fig, out_dir / "fig10.png")
    df["share"] = df["two_hop_mbps"] / df["fair_share_mbps"]
    df["lead_mbps"] = df["two_hop_mbps"] - df["six_hop_mean_mbps"]
    C = df[df.series == "C"]
    cmps: List[Comparison] = []
    small = C[C.n6 <= 2]
    if len(small):
        cmps.append(REGISTER.judge("fig10-ahead", over_seeds(small, "n6", "lead_mbps")))
    nmax = int(C["n6"].max())
    cmps.append(REGISTER.judge("fig10-outcast", over_seeds(C[C.n6 == nmax], "n6", "share")))
    T = df[(df.series == "CTD") & (df.n6 >= 4)]
    cmps.append(REGISTER.judge("fig10-fair", over_seeds(T, "n6", "share")))
    S = m[m.series == "CT200"].set_index("n6")
    if len(S):
        rs = [S.loc[n, "two_hop_mbps"] / S.loc[n, "fair_share_mbps"] for n in S.index if n >= 4]
        cmps.append(info("static CT200: the 2-hop flow's share of its fair share for n ≥ 4",
                         ", ".join(f"{x:.2f}" for x in rs), "static randomization, for comparison with CTD"))
    return FigureResult(df, paths, cmps, ["Qmax = 100 packets; 6-hop senders are hosts 16, 17, … (pods 1–7)"])
