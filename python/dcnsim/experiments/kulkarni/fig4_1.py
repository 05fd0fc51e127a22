"""Kulkarni's incast dissertation: Fig. 4.1."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    BUFFERS_41,
    CH4,
    FINE_NS,
    HEADER,
    MSS,
    NO_ONSET,
    ONSET_FRACTION,
    QUICK_FINE_NS,
    RATE_BPS,
    REGISTER,
    Seeds,
    _at_value,
    _fmt,
    _join,
    _note_unfinished,
    _series,
    buffer_bytes,
    buffer_unit_label,
    onset,
    points,
)

# ---------------------------------------------------------------- Fig. 4.1


def _fig41_points(quick: bool) -> List[Point]:
    return points([CH4.with_(buffer=b) for b in BUFFERS_41], QUICK_FINE_NS if quick else FINE_NS, quick)


def onsets_by(df, col: str, values: Sequence[int], **kw) -> List[Optional[int]]:
    out = []
    for v in values:
        ns, g = _series(df, "goodput_mbps", **_at_value(col, v), **kw)
        out.append(onset(ns, g) if len(ns) else None)
    return out


def _onset_at(b: int):
    """The onset (servers; NO_ONSET: none) of buffer ``b``'s goodput curve, on a frame."""
    def fn(d) -> float:
        o = onsets_by(d, "buffer", [b])[0]
        return float(NO_ONSET if o is None else o)
    return fn


def _analyze_41(summary, out_dir: Path) -> FigureResult:
    from matplotlib.ticker import FuncFormatter, NullLocator

    from ...plots import MARKERS, new_figure, save, series_colors

    sd = Seeds(summary)
    df = sd.df
    ons = onsets_by(df, "buffer", BUFFERS_41)
    unit = buffer_unit_label(df)
    names = [f"{b} {unit}" for b in BUFFERS_41]
    colors = series_colors(names)
    fig, (ax, ax2) = new_figure(ncols=2, figsize=(11, 4.3), gridspec_kw={"width_ratios": [1.6, 1]})
    for i, b in enumerate(BUFFERS_41):
        ns, g = _series(df, buffer=b)
        ax.plot(ns, g, marker=MARKERS[i % len(MARKERS)], markersize=3.5, color=colors[names[i]],
                label=f"{b} {unit} buffer")
        if ons[i] is not None:
            ax.axvline(ons[i], color=colors[names[i]], linestyle=":", linewidth=1)
    ax.set_xlabel("number of servers n")
    ax.set_ylabel("goodput at the client (Mbps)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"goodput (dotted: onset, the first n below {ONSET_FRACTION:.0%} of the best)", fontsize=10)
    ax.legend(fontsize=8)
    xs = np.array([b for b, o in zip(BUFFERS_41, ons) if o is not None], dtype=float)
    ys = np.array([o for o in ons if o is not None], dtype=float)
    ax2.plot(xs, ys, "o-", color="C0", label="dcnsim: onset")
    if len(xs):
        ref = ys[list(xs).index(32.0)] if 32.0 in xs else ys[0]
        x0 = 32.0 if 32.0 in xs else xs[0]
        grid = np.array(BUFFERS_41, dtype=float)
        ax2.plot(grid, ref * grid / x0, "--", color="0.5", label=f"doubling law through 32 {unit}")
        # window budget: n·rwnd ≤ C·RTT + B
        rtt = 4 * 100e-6 + 2 * (MSS + HEADER) * 8 / RATE_BPS
        per_unit = buffer_bytes(df.iloc[0].to_dict() | {"buffer": 1})
        fit = (RATE_BPS * rtt / 8 + grid * per_unit) / (20 * MSS)
        ax2.plot(grid, fit, ":", color="C3", label="n·rwnd = C·RTT + B (no-loss limit)")
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log", base=2)
    ax2.set_xticks(list(BUFFERS_41))
    ax2.set_xticklabels([str(b) for b in BUFFERS_41])
    ax2.xaxis.set_minor_locator(NullLocator())
    # server counts as plain numbers, not 2^k
    ax2.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax2.set_xlabel(f"switch buffer per port ({unit})")
    ax2.set_ylabel("servers at the onset of collapse")
    ax2.set_title("onset vs buffer", fontsize=10)
    ax2.legend(fontsize=8)
    fig.suptitle("Fig. 4.1: buffer size sweep (100 µs links, rwnd 20 segments, SRU 256 KB, RTOmin 200 ms)",
                 fontsize=11)
    paths = save(fig, out_dir / "fig4_1.png")

    cmps: List[Comparison] = []
    ratios = [b / a for a, b in zip(ons, ons[1:]) if a and b]
    doubles = bool(ratios) and all(1.5 <= r <= 2.5 for r in ratios)
    # each seed's onsets beside the onsets of the seeds' mean goodput
    per_seed = "; ".join(x for x in (sd.span(_onset_at(b), "{:.0f}", f"at {b} {unit}") for b in BUFFERS_41) if x)
    cmps.append(REGISTER.judge("fig4.1-doubling", {b: float(NO_ONSET if o is None else o)
                                                   for b, o in zip(BUFFERS_41, ons)},
                               note="; ".join(x for x in (
                                   "" if doubles else "the window budget n·rwnd ≤ C·RTT + B has a constant "
                                   "C·RTT ≈ 50 KB term, so the no-loss limit grows by less than 2× per doubling at "
                                   "small buffers", per_seed) if x)))
    for b, o in zip(BUFFERS_41, ons):
        ns, g = _series(df, buffer=b)
        cmps.append(Comparison(f"{b} {unit}: onset; goodput just before / at it (Mbps)",
                               f"{_fmt(o)}; " + (_join([g[list(ns).index(o) - 1], g[list(ns).index(o)]])
                                                 if o is not None else "—"), None, "not in paper",
                               criterion="— (our reference value)"))
    return FigureResult(df, paths, cmps, _note_unfinished(df) + [
        f"onset: the first n from which goodput stays below {ONSET_FRACTION:.0%} of the best goodput with fewer "
        "servers (a dip that recovers at larger n is not an onset)"])
