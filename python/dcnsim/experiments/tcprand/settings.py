"""TCPRand (Lee et al., 2017): implicit settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

from ...sweep import Point
from ..claims import info
from ..framework import FigureResult
from .common import (
    SERIES,
    _fig1_frame,
    fig1_doc,
)
from .fairness import _secs, _seeds, fig1_point
from .testbed import _slug

# ---------------------------------------------------------------- implicit settings

#: (name, tcp overrides, top-level overrides, topology overrides)
VARIANTS: List[Tuple[str, Dict[str, Any], Dict[str, Any], Dict[str, Any]]] = [
    ("baseline", {}, {}, {}),
    ("init_cwnd 10", {"init_cwnd": 10}, {}, {}),
    ("delayed ACK (2 seg, 200 ms: ns-3)", {"delayed_ack": True, "delayed_ack_timeout": "200ms"}, {}, {}),
    ("SACK", {"sack": True}, {}, {}),
    ("Limited Transmit (RFC 3042)", {"limited_transmit": True}, {}, {}),
    ("NIC queue 1000 pkt", {}, {}, {"nic_buffer": "1000pkt"}),
    ("host jitter 1 µs", {}, {"host_jitter": "1us"}, {}),
    ("single-path routing", {}, {"routing": {"mode": "single"}}, {}),
]
SETTINGS_SERIES = ("C", "CT200", "CTD")


def _settings_points(quick: bool) -> List[Point]:
    secs = _secs(quick)
    pts = []
    for name, t, top, topo in VARIANTS:
        for s in SETTINGS_SERIES:
            for seed in _seeds(quick):
                if name == "baseline":
                    pts.append(fig1_point(s, 20, quick, seed))
                    pts[-1].params["variant"] = name
                    continue
                label = f"set-{_slug(name)}-{s}-{secs:g}s-s{seed}"
                doc = fig1_doc(SERIES[s], 20, secs, seed, tcp_over=t, top_over=top, topo_over=topo, name=label)
                pts.append(Point(label, doc, None, {"series": s, "qmax": 20, "bg_mbps": 0.0, "seed_": seed,
                                                    "variant": name}))
    return pts


def _analyze_settings(summary, out_dir: Path) -> FigureResult:
    from ...plots import new_figure, save, series_colors

    df = _fig1_frame(summary)
    df["variant"] = list(summary["variant"])
    m = df.groupby(["variant", "series"], sort=False).mean(numeric_only=True).reset_index()
    variants = [v for v, *_ in VARIANTS]
    colors = series_colors(list(SETTINGS_SERIES), universe=list(SERIES))  # as in Figs. 8a–c
    fig, axes = new_figure(ncols=2, figsize=(12, 4.2))
    w = 0.8 / len(SETTINGS_SERIES)
    for ax, col, yl in ((axes[0], "jain", "Jain's index"), (axes[1], "total_mbps", "total goodput (Mbps)")):
        for i, s in enumerate(SETTINGS_SERIES):
            vals = [float(m[(m.variant == x) & (m.series == s)][col].iloc[0]) for x in variants]
            ax.bar(np.arange(len(variants)) + i * w - 0.4 + w / 2, vals, w, label=s, color=colors[s])
        ax.set_xticks(np.arange(len(variants)))
        ax.set_xticklabels(variants, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel(yl)
    # beside the panels, not over the bars
    axes[-1].legend(*axes[0].get_legend_handles_labels(), fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                    frameon=False)
    fig.suptitle("Implicit settings, one at a time (Fig. 1, Qmax = 20)")
    paths = save(fig, out_dir / "settings.png")
    M = m.set_index(["variant", "series"])
    cmps = []
    for variant in variants:
        j = [float(M.loc[(variant, s), "jain"]) for s in SETTINGS_SERIES]
        g = [float(M.loc[(variant, s), "total_mbps"]) for s in SETTINGS_SERIES]
        outcast = j[0] < 0.95 and all(x > j[0] for x in j[1:])
        cmps.append(info(f"{variant}: Jain C / CT200 / CTD; total Mbps",
                         " / ".join(f"{x:.3f}" for x in j) + "; " + " / ".join(f"{x:.0f}" for x in g),
                         ("outcast with C and both TCPRand series fairer" if outcast else
                          "the outcast picture changes") + " (outcast: Jain(C) < 0.95 and CT200, CTD above C)"))
    return FigureResult(m, paths, cmps, [])
