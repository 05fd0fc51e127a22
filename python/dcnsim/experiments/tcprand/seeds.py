"""TCPRand (Lee et al., 2017): the outcast over seeds (issue 30).

Which input port of R's edge port loses the drop-tail race is a phase
effect (Floyd & Jacobson, 1992): with every host's timing exact, a fixed
packet-size ratio can lock one port out, and 12 bytes of header (ns-3's
1460 + 40 B against Linux's 1448 + 52 B) decided it on almost every seed.
This figure runs the CUBIC baselines of Figs. 8a / 9 (Fig. 1, Qmax 20) and
10 (k = 8, one 2-hop flow against 16 6-hop flows) over ten seeds for both
header sizes, as the paper setups run them (flow starts jittered, ECMP
paths from the seed, hosts exact like ns-3's), and once more with a
per-packet host jitter (ns-2's ``overhead_``, ``host_jitter = 1 µs``),
and reports the distribution: F1's share per seed, how often F1 starves,
its timeouts. Nothing here is tallied: the claims of Figs. 8a, 9 and 10
are judged in their own figures, which print each seed's verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

from ...sweep import Point
from ..claims import info
from ..framework import Comparison, FigureResult
from .common import (
    LINUX_HEADER,
    LINUX_MSS,
    SERIES,
    fig1_doc,
    flows,
)
from .fattree import fig10_doc

#: Ten seeds: enough to see how often each outcome happens.
SEEDS10 = tuple(range(1, 11))
QUICK_SEEDS10 = (1, 2, 3)
SECS = 3.0
QUICK_SECS = 1.0
#: (name, tcp overrides): the ns-3 figures' segments and the testbed's Linux ones
HEADERS: Tuple[Tuple[str, Dict[str, Any]], ...] = (("1460 + 40 B", {}), (f"{LINUX_MSS} + {LINUX_HEADER} B", {"mss": LINUX_MSS, "header": LINUX_HEADER}))
#: (name, top-level overrides)
TIMING: Tuple[Tuple[str, Dict[str, Any]], ...] = (("paper setup (exact hosts)", {}), ("host_jitter 1 µs", {"host_jitter": "1us"}))
FIG10_N6 = 16
#: F1 "starves" below half its fair share.
STARVE = 0.5


def _points(quick: bool) -> List[Point]:
    secs = QUICK_SECS if quick else SECS
    pts: List[Point] = []
    for timing, top in TIMING:
        for hdr, tcp in HEADERS:
            for seed in (QUICK_SEEDS10 if quick else SEEDS10):
                meta = {"timing": timing, "header": hdr, "seed_": seed}
                label = f"seeds-fig8a-{len(pts)}-s{seed}"
                d = fig1_doc(SERIES["C"], 20, secs, seed, tcp_over=tcp, top_over=top, name=label)
                pts.append(Point(label, d, None, {**meta, "fig": "8a/9 (Fig. 1, Qmax 20)", "fair": 1 / 15}))
                label = f"seeds-fig10-{len(pts)}-s{seed}"
                d = fig10_doc(SERIES["C"], FIG10_N6, secs, seed, label, tcp_over=tcp)
                d.update(top)
                pts.append(Point(label, d, None, {**meta, "fig": f"10 (k = 8, n = {FIG10_N6})",
                                                  "fair": 1 / (FIG10_N6 + 1)}))
    return pts


def _analyze(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save

    rows: List[Dict[str, Any]] = []
    for _, r in summary.iterrows():
        f = flows(r)
        total = float(f["delivered_bytes"].sum())
        f1 = f[f["src"] == 1]
        rows.append({"fig": r["fig"], "timing": r["timing"], "header": r["header"], "seed": int(r["seed_"]),
                     "fair": float(r["fair"]), "f1_share": float(f1["delivered_bytes"].sum()) / max(1.0, total),
                     "f1_timeouts": int(f1["timeouts"].sum())})
    df = pd.DataFrame(rows)
    cmps: List[Comparison] = []
    keys = list(dict.fromkeys(zip(df["fig"], df["timing"])))
    fig, axes = new_figure(ncols=len(keys), figsize=(3.2 * len(keys), 3.6))
    axes = list(axes) if len(keys) > 1 else [axes]
    for ax, (fg, timing) in zip(axes, keys):
        means = {}
        for i, (hdr, _t) in enumerate(HEADERS):
            sub = df[(df["fig"] == fg) & (df["timing"] == timing) & (df["header"] == hdr)].sort_values("seed")
            if sub.empty:
                continue
            fair = float(sub["fair"].iloc[0])
            shares = list(sub["f1_share"])
            means[hdr] = sum(shares) / len(shares)
            starved = sum(s < STARVE * fair for s in shares)
            ax.scatter([i] * len(shares), shares, s=14)
            cmps.append(info(f"Fig. {fg}, {timing}, {hdr}: F1's share per seed (fair {fair:.3f})",
                             " ".join(f"{s:.3f}" for s in shares),
                             f"mean {means[hdr]:.3f}; F1 below half its fair share on {starved} of {len(shares)} "
                             f"seeds; F1's timeouts per seed {list(sub['f1_timeouts'])}"))
            ax.axhline(fair, color="grey", lw=0.8, ls=":")
        if len(means) == 2:
            a, b = means.values()
            cmps.append(info(f"Fig. {fg}, {timing}: mean F1 share, 1460 + 40 B minus {LINUX_MSS} + {LINUX_HEADER} B",
                             f"{a - b:+.3f}", "the header size decides the outcome when this is far from 0"))
        ax.set_xticks(range(len(HEADERS)))
        ax.set_xticklabels([h for h, _t in HEADERS], fontsize=7)
        ax.set_title(f"Fig. {fg}\n{timing}", fontsize=8)
        ax.set_ylabel("F1's share of the goodput")
        ax.set_ylim(0, None)  # every panel from 0, so their heights compare
    fig.suptitle("CUBIC outcast across seeds: the 2-hop flow F1's share, one dot per seed "
                 "(dotted: its fair share)", fontsize=10)
    paths = save(fig, out_dir / "seeds.png")
    return FigureResult(df, paths, cmps, [f"C baselines, {len(set(df['seed']))} seeds, {SECS:g} s flows "
                                          f"(quick: {QUICK_SECS:g} s); F1 = the 2-hop flow from host 1"])
