"""FaST (Hwang & Yoo, 2014): implicit settings."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import List, Tuple

from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    BASE,
    LINESTYLES,
    MAIN3,
    SERIES_NAMES,
    PaConfig,
    _at,
    _overlap_notes,
    _pa_points,
    pa_frame,
)
from .figs4_6 import _fmt3

# ---------------------------------------------------------------- implicit settings

#: (name, config): every implicit setting flipped on its own from the baseline
VARIANTS: List[Tuple[str, PaConfig]] = [
    ("baseline", BASE),
    ("init_cwnd 1", replace(BASE, init_cwnd=1)),
    ("init_cwnd 10", replace(BASE, init_cwnd=10)),
    ("delayed ACKs (every 2nd segment, 40 ms timer)", replace(BASE, delayed_ack=True)),
    ("SACK", replace(BASE, sack=True)),
    ("Limited Transmit (RFC 3042)", replace(BASE, limited_transmit=True)),
    ("L2 overhead 38 B (Ethernet)", replace(BASE, l2_overhead=38)),
    ("no host jitter", replace(BASE, host_jitter="0s")),
    ("persistent connections, next query at once", replace(BASE, connections="persistent")),
    ("persistent connections, 10 ms between queries", replace(BASE, connections="persistent", gap="10ms")),
]
SETTINGS_NS = (10, 30, 50, 70, 100)
QUICK_SETTINGS_NS = (30, 100)


def _settings_points(quick: bool) -> List[Point]:
    pts = []
    for _name, cfg in VARIANTS:
        # one seed: each setting against the baseline on the same seed (not a tallied figure)
        pts += _pa_points([cfg], QUICK_SETTINGS_NS if quick else SETTINGS_NS, quick, seeds=(1,))
    return pts


def _analyze_settings(summary, out_dir: Path) -> FigureResult:
    from ...plots import facet_plot

    df = pa_frame(summary)
    names = {cfg.key(): name for name, cfg in VARIANTS}
    df["variant"] = df["config"].map(names)
    paths = facet_plot(
        df, "n", "qct_mean_ms", "series", "variant",
        xlabel="number of workers n", ylabel="mean QCT (ms)",
        title="Fig. 4 under each implicit setting (one changed at a time from the baseline)",
        path=out_dir / "settings.png", order=SERIES_NAMES, facet_order=[v for v, _ in VARIANTS], ncols=3,
        linestyles=LINESTYLES,
    )
    base = _at(df, variant="baseline").set_index(["series", "n"])
    cmps: List[Comparison] = []
    for name, _cfg in VARIANTS[1:]:
        d = _at(df, variant=name).set_index(["series", "n"])
        j = d.join(base, rsuffix="_base", how="inner")
        dq = (j["qct_mean_ms"] - j["qct_mean_ms_base"]).abs() / j["qct_mean_ms_base"]
        dt = (j["timeouts_per_query"] - j["timeouts_per_query_base"]).abs()
        big = float(dq.max()) if len(dq) else math.nan
        changes = bool(big > 0.2 or (dt > 0.5 * j["timeouts_per_query_base"].clip(lower=1)).any())
        at100 = [float(d.loc[(s, 100), "qct_mean_ms"]) if (s, 100) in d.index else math.nan for s in MAIN3]
        cmps.append(Comparison(f"{name}: QCT at n = 100, NewReno / DCTCP / FaST (ms); changes Fig. 4?",
                               _fmt3(at100) + f"; {'yes' if changes else 'no'} (max QCT change {big:.0%})",
                               None, "not in paper", criterion="— (our reference value)"))
    b100 = [float(base.loc[(s, 100), "qct_mean_ms"]) if (s, 100) in base.index else math.nan for s in MAIN3]
    cmps.insert(0, Comparison("baseline: QCT at n = 100, NewReno / DCTCP / FaST (ms)", _fmt3(b100), None,
                              "not in paper", criterion="— (our reference value)"))
    return FigureResult(df, paths, cmps, _overlap_notes(df))
