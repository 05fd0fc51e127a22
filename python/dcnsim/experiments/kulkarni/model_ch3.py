"""Kulkarni's incast dissertation: Figs. 3.13–3.16, 3.17–3.20."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from ...sweep import Point
from ..framework import Comparison, FigureResult, compare_claim
from .common import (
    BASE,
    BUFFERS_CH3,
    CH3_ORDER,
    MODEL_NAMES,
    ONSET_FRACTION,
    SIM,
    SRUS_CH3,
    _at,
    _at_value,
    _goodput_facets,
    _join,
    _long,
    _note_unfinished,
    _ns,
    _series,
    buffer_unit_label,
    frame,
    male,
    onset,
    points,
)
from .goodput_ch3 import _model_notes

# ---------------------------------------------------------------- Figs. 3.13–3.16, 3.17–3.20


def _buffers_points(quick: bool) -> List[Point]:
    return points([BASE.with_(buffer_kb=b) for b in BUFFERS_CH3], _ns(quick), quick)


def _srus_points(quick: bool) -> List[Point]:
    return points([BASE.with_(sru_kb=s) for s in SRUS_CH3], _ns(quick), quick)


def _after_collapse(ns, g, lo: int = 16) -> float:
    ns = np.asarray(ns)
    g = np.asarray(g, dtype=float)
    return float(np.mean(g[ns >= lo])) if np.any(ns >= lo) else math.nan


def _sweep_fig(kind: str):
    """Figs. 3.13–3.16 (kind = buffer) and 3.17–3.20 (kind = sru)."""
    col = "buffer_kb" if kind == "buffer" else "sru_kb"
    values = BUFFERS_CH3 if kind == "buffer" else SRUS_CH3
    first = 13 if kind == "buffer" else 17
    what = "switch buffer" if kind == "buffer" else "SRU"

    unit = {"u": "KB"}

    def panel(r) -> str:
        return f"Fig. 3.{first + values.index(int(r[col]))}: {int(r[col])} {unit['u']} {what}"

    def analyze(summary, out_dir: Path) -> FigureResult:
        df = frame(summary, with_model=True)
        unit["u"] = buffer_unit_label(df) if kind == "buffer" else "KB"
        cols = {"full_mbps": MODEL_NAMES["full"], "split_mbps": MODEL_NAMES["split"]}
        long = _long(df, {"goodput_mbps": SIM, **cols}, panel)
        stem = "fig3_13-16" if kind == "buffer" else "fig3_17-20"
        paths = _goodput_facets(long, out_dir / f"{stem}.png",
                                f"Figs. 3.{first}–3.{first + 3}: model and simulation vs {what} size",
                                CH3_ORDER, [panel({col: v}) for v in values], ncols=2)
        ons, after, ms, mf = [], [], [], []
        for v in values:
            ns, g = _series(df, "goodput_mbps", **_at_value(col, v))
            ons.append(onset(ns, g))
            after.append(_after_collapse(ns, g))
            d = _at(df, **{col: v})
            ms.append(male(d["split_mbps"], d["goodput_mbps"]))
            mf.append(male(d["full_mbps"], d["goodput_mbps"]))
        labels = "/".join(str(v) for v in values) + f" {unit['u']}"
        on_ok = [o if o is not None else 10**6 for o in ons]
        cmps: List[Comparison] = []
        if kind == "buffer":
            later = all(b >= a for a, b in zip(on_ok, on_ok[1:]))
            cmps.append(compare_claim(f"onset of collapse (servers), {labels}", _join(ons),
                                      "larger buffer → later collapse", later and on_ok[-1] > on_ok[0],
                                      partly=on_ok[-1] > on_ok[0],
                                      criterion="onset never earlier with a larger buffer, and later at the largest",
                                      partly_criterion="later at the largest buffer than at the smallest"))
            higher = all(b >= a * 0.95 for a, b in zip(after, after[1:]))
            cmps.append(compare_claim(f"mean goodput for n ≥ 16 (Mbps), {labels}", _join(after),
                                      "larger buffer → higher goodput", higher and after[-1] > after[0],
                                      partly=after[-1] > after[0],
                                      criterion="each step ≥ 0.95× the previous, last > first",
                                      partly_criterion="last > first"))
        else:
            higher = all(b >= a * 0.95 for a, b in zip(after, after[1:]))
            cmps.append(compare_claim(f"mean goodput for n ≥ 16 (Mbps), {labels}", _join(after),
                                      "larger SRU → higher goodput after collapse", higher and after[-1] > after[0],
                                      partly=after[-1] > after[0],
                                      criterion="each step ≥ 0.95× the previous, last > first",
                                      partly_criterion="last > first"))
            known = [o for o in ons if o is not None]
            same = bool(known) and len(known) == len(ons) and max(known) <= 1.5 * min(known)
            cmps.append(compare_claim(f"onset of collapse (servers), {labels}", _join(ons),
                                      "SRU size has little impact on the onset", same,
                                      criterion="an onset at every SRU, largest ≤ 1.5× smallest",
                                      note="" if same else "the onset moves with the SRU: a larger SRU gives "
                                           "more blocks' worth of congestion-avoidance time between the "
                                           "start-of-block bursts"))
        cmps.append(compare_claim(f"MALE Split vs Full, {labels}", _join(ms, "{:.2f}") + "  vs  " + _join(mf, "{:.2f}"),
                                  "Split closer than Full", all(a < b for a, b in zip(ms, mf)),
                                  partly=sum(a < b for a, b in zip(ms, mf)) > len(ms) / 2,
                                  criterion="Split's MALE < Full's at every setting",
                                  partly_criterion="at more than half the settings"))
        return FigureResult(df, paths, cmps, _note_unfinished(df) + _model_notes()
                            + [f"onset: the first n from which goodput stays below {ONSET_FRACTION:.0%} of the "
                               "best goodput with fewer servers"])
    return analyze
