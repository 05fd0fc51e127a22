"""Kulkarni's incast dissertation: Fig. 4.2."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

from ...sweep import Point
from ..claims import info
from ..framework import Comparison, FigureResult
from .common import (
    CH4,
    REGISTER,
    SRUS_42,
    Seeds,
    _finite,
    _fmt,
    _gmean,
    _goodput_facets,
    _join,
    _note_unfinished,
    _ns,
    _series,
    _val,
    buffer_text,
    onset,
    onset_gap,
    points,
    with_err,
)
from .model_ch3 import _after_collapse

# ---------------------------------------------------------------- Fig. 4.2


def _fig42_points(quick: bool) -> List[Point]:
    return points([CH4.with_(sru_kb=s) for s in SRUS_42], _ns(quick), quick)


def _sru_name(kb: int) -> str:
    return f"{kb // 1024} MB SRU" if kb >= 1024 else f"{kb} KB SRU"


def _ratio_at_7(d) -> float:
    """Goodput at 7 servers, 1 MB / 256 KB SRU, on a frame."""
    a, b = _val(d, "goodput_mbps", sru_kb=1024, n=7), _val(d, "goodput_mbps", sru_kb=256, n=7)
    return a / b if _finite(b) and b > 0 else math.nan


def _after_at(s: int):
    return lambda d: _after_collapse(*_series(d, sru_kb=s))


def _analyze_42(summary, out_dir: Path) -> FigureResult:
    sd = Seeds(summary)
    df = sd.df
    df["series"] = [_sru_name(int(s)) for s in df["sru_kb"]]
    long = with_err(df[["n", "goodput_mbps", "series"]].rename(columns={"goodput_mbps": "value"}).assign(panel=""), df)
    paths = _goodput_facets(long, out_dir / "fig4_2.png",
                            f"Fig. 4.2: SRU size ({buffer_text(df)} buffer, 100 µs links, rwnd 20 segments)",
                            [_sru_name(s) for s in SRUS_42], [""], logy=True, linestyles={})
    g7 = {s: _val(df, "goodput_mbps", sru_kb=s, n=7) for s in SRUS_42}
    r7 = _ratio_at_7(df)
    ns, g256 = _series(df, sru_kb=256)
    on256 = onset(ns, g256)
    cmps: List[Comparison] = [
        REGISTER.judge("fig4.2-seven", r7, note="; ".join(x for x in (f"{g7[1024]:.0f} vs {g7[256]:.0f} Mbps" + (
            f"; in dcnsim 256 KB has not collapsed yet at 7 servers (onset {_fmt(on256)}{onset_gap(ns, on256)})"
            if r7 < 10 else ""),
            sd.span(_ratio_at_7)) if x))]
    if on256 is not None and on256 != 7:
        a, b = _val(df, "goodput_mbps", sru_kb=1024, n=on256), _val(df, "goodput_mbps", sru_kb=256, n=on256)
        # the paper's "orders of magnitude" is one claim, at 7 servers (tallied
        # above); read at our own onset it is our variant, shown beside it
        cmps.append(REGISTER.variant("fig4.2-seven", a / b if b > 0 else math.nan,
                                     quantity=f"goodput at our 256 KB onset ({on256} servers), 1 MB / 256 KB SRU",
                                     setting=f"the claim read at our 256 KB onset ({on256} servers"
                                             f"{onset_gap(ns, on256)}), not at the paper's 7", note=f"{a:.0f} vs {b:.0f} Mbps"))
    _, g1m = _series(df, sru_kb=1024)
    big = ns >= 10
    # the same claim as the tallied "grows with the SRU", read at 1 MB vs 256 KB
    cmps.append(info("goodput ratio 1 MB / 256 KB SRU for n ≥ 10 (geometric mean)",
                     f"{_gmean(g1m[big] / g256[big]):.1f}×"))
    after = [_after_collapse(*_series(df, sru_kb=s)) for s in SRUS_42]
    # each SRU's mean on the seeds' means, its interval over the seeds' own
    cmps.append(REGISTER.judge("fig4.2-grows", {s: (a, sd.ci(_after_at(s))) for s, a in zip(SRUS_42, after)},
                               note="/".join(str(s) for s in SRUS_42) + f" KB: {_join(after)} Mbps"))
    return FigureResult(df.drop(columns=["series"]), paths, cmps, _note_unfinished(df))
