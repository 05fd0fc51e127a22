"""Kulkarni's incast dissertation: Fig. 4.2."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

from ...sweep import Point
from ..framework import Comparison, FigureResult, beyond, compare_claim
from .common import (
    CH4,
    ORDER_HALF,
    SRUS_42,
    _finite,
    _fmt,
    _gmean,
    _goodput_facets,
    _join,
    _note_unfinished,
    _ns,
    _series,
    _val,
    frame,
    onset,
    points,
)
from .model_ch3 import _after_collapse

# ---------------------------------------------------------------- Fig. 4.2


def _fig42_points(quick: bool) -> List[Point]:
    return points([CH4.with_(sru_kb=s) for s in SRUS_42], _ns(quick), quick)


def _sru_name(kb: int) -> str:
    return f"{kb // 1024} MB SRU" if kb >= 1024 else f"{kb} KB SRU"


def _analyze_42(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    df["series"] = [_sru_name(int(s)) for s in df["sru_kb"]]
    long = df[["n", "goodput_mbps", "series"]].rename(columns={"goodput_mbps": "value"}).assign(panel="")
    paths = _goodput_facets(long, out_dir / "fig4_2.png",
                            "Fig. 4.2: SRU size (32 KB buffer, 100 µs links, rwnd 20 segments)",
                            [_sru_name(s) for s in SRUS_42], [""], logy=True, linestyles={})
    g7 = {s: _val(df, "goodput_mbps", sru_kb=s, n=7) for s in SRUS_42}
    r7 = g7[1024] / g7[256] if _finite(g7[256]) and g7[256] > 0 else math.nan
    cmps: List[Comparison] = []
    if _finite(r7):
        cmps.append(compare_claim("goodput at 7 servers, 1 MB vs 256 KB SRU (Mbps)",
                                  f"{g7[1024]:.0f} vs {g7[256]:.0f} ({r7:.1f}×)",
                                  "1 MB orders of magnitude above 256 KB", bool(r7 >= 10), partly=bool(r7 >= ORDER_HALF),
                                  criterion="ratio ≥ 10", partly_criterion="ratio ≥ √10 ≈ 3.16",
                                  note="in dcnsim 256 KB has not collapsed yet at 7 servers (onset "
                                       f"{_fmt(onset(*_series(df, sru_kb=256)))}); compare the collapsed region"
                                  if r7 < 10 else ""))
    ns, g256 = _series(df, sru_kb=256)
    on256 = onset(ns, g256)
    if on256 is not None and on256 != 7:
        a, b = _val(df, "goodput_mbps", sru_kb=1024, n=on256), _val(df, "goodput_mbps", sru_kb=256, n=on256)
        r = a / b if b > 0 else math.nan
        # the paper's "orders of magnitude" is one claim, at 7 servers (tallied
        # above); read at our own onset it is our variant, shown beside it
        cmps.append(beyond(compare_claim(f"goodput at our 256 KB onset ({on256} servers), 1 MB vs 256 KB SRU (Mbps)",
                                         f"{a:.0f} vs {b:.0f} ({r:.1f}×)", "1 MB orders of magnitude above 256 KB",
                                         bool(r >= 10) if _finite(r) else None,
                                         partly=bool(_finite(r) and r >= ORDER_HALF),
                                         criterion="ratio ≥ 10", partly_criterion="ratio ≥ √10 ≈ 3.16"),
                           setting=f"the claim read at our 256 KB onset ({on256} servers), not at the paper's 7"))
    _, g1m = _series(df, sru_kb=1024)
    big = ns >= 10
    rb = _gmean(g1m[big] / g256[big])
    cmps.append(compare_claim("goodput ratio 1 MB / 256 KB SRU for n ≥ 10 (geometric mean)", f"{rb:.1f}×",
                              "larger SRU → much higher goodput", bool(rb >= 3), partly=bool(rb >= 1.5),
                              criterion="ratio ≥ 3", partly_criterion="ratio ≥ 1.5"))
    after = [_after_collapse(*_series(df, sru_kb=s)) for s in SRUS_42]
    cmps.append(compare_claim("mean goodput for n ≥ 16 (Mbps), " + "/".join(str(s) for s in SRUS_42) + " KB SRU",
                              _join(after), "grows with the SRU", all(b >= a * 0.95 for a, b in zip(after, after[1:]))
                              and after[-1] > after[0], partly=after[-1] > after[0],
                              criterion="each step ≥ 0.95× the previous, last > first",
                              partly_criterion="last > first"))
    return FigureResult(df.drop(columns=["series"]), paths, cmps, _note_unfinished(df))
