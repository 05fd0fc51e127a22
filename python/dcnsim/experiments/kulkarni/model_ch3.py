"""Kulkarni's incast dissertation: Figs. 3.13–3.16, 3.17–3.20."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    BASE,
    BUFFERS_CH3,
    CH3_ORDER,
    MODEL_NAMES,
    NO_ONSET,
    ONSET_FRACTION,
    REGISTER,
    SIM,
    SRUS_CH3,
    Seeds,
    _at,
    _at_value,
    _goodput_facets,
    _join,
    _long,
    _note_unfinished,
    _ns,
    _series,
    buffer_unit_label,
    male,
    onset,
    points,
)
from .goodput_ch3 import _model_notes

# ---------------------------------------------------------------- Figs. 3.13–3.16, 3.17–3.20


def _buffers_points(quick: bool) -> List[Point]:
    return points([BASE.with_(buffer=b) for b in BUFFERS_CH3], _ns(quick), quick)


def _srus_points(quick: bool) -> List[Point]:
    return points([BASE.with_(sru_kb=s) for s in SRUS_CH3], _ns(quick), quick)


def _after_collapse(ns, g, lo: int = 16) -> float:
    ns = np.asarray(ns)
    g = np.asarray(g, dtype=float)
    return float(np.mean(g[ns >= lo])) if np.any(ns >= lo) else math.nan


def _sweep_fig(kind: str):
    """Figs. 3.13–3.16 (kind = buffer) and 3.17–3.20 (kind = sru)."""
    col = "buffer" if kind == "buffer" else "sru_kb"
    values = BUFFERS_CH3 if kind == "buffer" else SRUS_CH3
    first = 13 if kind == "buffer" else 17
    what = "switch buffer" if kind == "buffer" else "SRU"

    unit = {"u": "KB"}

    def panel(r) -> str:
        return f"Fig. 3.{first + values.index(int(r[col]))}: {int(r[col])} {unit['u']} {what}"

    def onset_at(v):
        def fn(d) -> float:
            o = onset(*_series(d, "goodput_mbps", **_at_value(col, v)))
            return float(NO_ONSET if o is None else o)
        return fn

    def after_at(v):
        return lambda d: _after_collapse(*_series(d, "goodput_mbps", **_at_value(col, v)))

    def split_lead_at(v):
        def fn(d) -> float:
            e = _at(d, **{col: v})
            return male(e["full_mbps"], e["goodput_mbps"]) - male(e["split_mbps"], e["goodput_mbps"])
        return fn

    def analyze(summary, out_dir: Path) -> FigureResult:
        sd = Seeds(summary, with_model=True)
        df = sd.df
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
        # each x's value on the seeds' means, its interval over the seeds' own
        # values (NaN for one seed: the means alone decide)
        on_x = {v: (float(NO_ONSET if o is None else o), sd.ci(onset_at(v))) for v, o in zip(values, ons)}
        after_x = {v: (a, sd.ci(after_at(v))) for v, a in zip(values, after)}
        split_x = {v: (f - s_, sd.ci(split_lead_at(v))) for v, s_, f in zip(values, ms, mf)}
        male_note = f"{labels}: MALE Split " + _join(ms, "{:.2f}") + " vs Full " + _join(mf, "{:.2f}")
        on_seeds = "; ".join(x for x in (sd.span(onset_at(v), "{:.0f}", f"at {v} {unit['u']}") for v in values) if x)
        tag = "fig3.13" if kind == "buffer" else "fig3.17"
        cmps: List[Comparison] = []
        if kind == "buffer":
            cmps.append(REGISTER.judge("fig3.13-onset", on_x, note="; ".join(
                x for x in (f"{labels}: {_join(ons)}", on_seeds) if x)))
            cmps.append(REGISTER.judge("fig3.13-goodput", after_x, note=f"{labels}: {_join(after)} Mbps"))
        else:
            cmps.append(REGISTER.judge("fig3.17-goodput", after_x, note=f"{labels}: {_join(after)} Mbps"))
            cmps.append(REGISTER.judge("fig3.17-onset", on_x, note="; ".join(
                x for x in (f"{labels}: {_join(ons)}", on_seeds) if x)))
        cmps.append(REGISTER.judge(f"{tag}-split", split_x, note=male_note))
        return FigureResult(df, paths, cmps, _note_unfinished(df) + _model_notes()
                            + [f"onset: the first n from which goodput stays below {ONSET_FRACTION:.0%} of the "
                               "best goodput with fewer servers"])
    return analyze
