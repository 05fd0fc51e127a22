"""Kulkarni's incast dissertation: Figs. 4.7–4.10."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from ...analysis import strict_max
from ...sweep import Point
from ..framework import Comparison, FigureResult
from .common import (
    CH4,
    HIST_NS,
    HIST_RWND,
    QUICK_SEG_SIZES,
    REGISTER,
    SEG_SIZES,
    Seeds,
    _at,
    _finite,
    _join,
    _note_unfinished,
    buffer_unit_label,
    points,
)

# ---------------------------------------------------------------- Figs. 4.7–4.10


def _hist_points(quick: bool) -> List[Point]:
    sizes = QUICK_SEG_SIZES if quick else SEG_SIZES
    cfgs = [CH4.with_(rwnd=HIST_RWND, mss=s) for s in sizes]
    return points(cfgs, HIST_NS, quick)


def _analyze_hist(summary, out_dir: Path) -> FigureResult:
    from ...plots import _readable_log_y, new_figure, save

    sd = Seeds(summary)
    df = sd.df
    sizes = sorted(df["mss"].unique())
    fig, axes = new_figure(nrows=2, ncols=len(HIST_NS), figsize=(3.3 * len(HIST_NS) + 0.6, 6.4), squeeze=False)
    xs = np.arange(len(sizes))
    for j, n in enumerate(HIST_NS):
        d = _at(df, n=n).set_index("mss").reindex(sizes)
        ax = axes[0][j]
        ab = d["abtt_per_block"].to_numpy(dtype=float)
        ib = d["ibtt_per_block"].to_numpy(dtype=float)
        ax.bar(xs, ab, color="C3", label="ABTT (window lost at the block's start)")
        ax.bar(xs, ib, bottom=ab, color="C0", label="IBTT (mid-block)")
        ax.set_title(f"Fig. 4.{7 + j}: n = {n}", fontsize=10)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(s) for s in sizes])
        ax.set_xlabel("segment size (payload bytes)")
        ax2 = axes[1][j]
        # points on the log axis below (a bar's length means nothing there)
        per_to = d["drops_per_timeout"].to_numpy(dtype=float)
        ax2.plot(xs, per_to, "o", color="C2", markersize=7, label="packets dropped per timeout (bottom row)")
        shown = per_to[np.isfinite(per_to) & (per_to > 0)]
        if len(shown):
            ax2.set_yscale("log")
            # plain numbers, and room about the points: autoscaled, a lone
            # point sat on the frame of a decade's axis, and the panels mixed
            # "2×10²" with "10²" (audit 35)
            _readable_log_y(ax2)
            ax2.set_ylim(shown.min() / 1.6, shown.max() * 1.6)
        else:
            # no timeout at this n (a short run): nothing a log axis could hold
            ax2.text(0.5, 0.5, "no packet dropped per timeout", transform=ax2.transAxes, ha="center",
                     va="center", fontsize=9, color="0.4")
        ax2.set_xticks(xs)
        ax2.set_xticklabels([str(s) for s in sizes])
        ax2.set_xlabel("segment size (payload bytes)")
    axes[0][0].set_ylabel("timeouts per block (all servers)")
    axes[1][0].set_ylabel("packets dropped per timeout")
    for ax2 in axes[1]:
        ax2.set_xlim(-0.6, len(sizes) - 0.4)
        ax2.grid(True, axis="y", which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax2 in axes[1]:
        h2, l2 = ax2.get_legend_handles_labels()
        if h2:
            handles, labels = handles + h2[:1], labels + l2[:1]
            break
    fig.legend(handles, labels, loc="lower center", ncol=len(handles), frameon=False)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.16, top=0.9, hspace=0.45, wspace=0.3)
    buf = "32 packets" if buffer_unit_label(df) == "pkt" else "32,768 B"
    fig.suptitle(f"Figs. 4.7–4.10: timeouts vs segment size ({buf} buffer, 32 KB window, SRU 256 KB, RTOmin 200 ms)",
                 fontsize=11)
    paths = save(fig, out_dir / "fig4_7-10.png", tight_layout=False)

    cmps: List[Comparison] = []
    for j, n in enumerate(HIST_NS):
        d = _at(df, n=n).sort_values("mss")
        to = d["timeouts_per_block"].to_numpy(dtype=float)
        # the interval over the seeds' own counts (NaN for one seed)
        ci = d["timeouts_ci95"].to_numpy(dtype=float)
        ss = d["mss"].to_numpy()
        cmps.append(REGISTER.judge(f"fig4.{7 + j}-n{n}", {int(s_): (t, h) for s_, t, h in zip(ss, to, ci)},
                                   note="/".join(str(s_) for s_ in ss) + " B: " + _join(to, "{:.2f}")
                                   + f" (Spearman ρ {_spearman(ss, to):+.2f})"))
    dpt = {n: _rho_at(n)(df) for n in HIST_NS}
    defined = {n: r for n, r in dpt.items() if _finite(r)}
    rho_seeds = "; ".join(x for x in (sd.span(_rho_at(n), "{:+.2f}", f"at n = {n}") for n in HIST_NS) if x)
    cmps.append(REGISTER.judge("fig4.7-drops", defined or None,
                               note="ρ per n (" + "/".join(map(str, HIST_NS)) + "): " + _join(list(dpt.values()),
                                                                                             "{:+.2f}")
                               + ("" if len(defined) == len(dpt) else "; n/a: too few timeouts for a ρ")
                               + (f"; {rho_seeds}" if rho_seeds else "")))
    smallest = min(sizes)
    at_small = {int(n): float(_at(df, n=n, mss=smallest)["timeouts_per_block"].iloc[0]) for n in HIST_NS}

    def most_at_smallest(d) -> float:
        return max(float(_at(d, n=n, mss=smallest)["timeouts_per_block"].iloc[0]) for n in HIST_NS)

    span = sd.span(most_at_smallest)
    cmps.append(REGISTER.judge("fig4.7-avoid", strict_max(at_small.values()),
                               note=f"{smallest} B, n = " + "/".join(map(str, at_small)) + ": "
                               + _join(list(at_small.values()), "{:.2f}") + " timeouts per block"
                               + (f"; {span}" if span else "")))
    return FigureResult(df, paths, cmps, _note_unfinished(df) + [
        "the dissertation's histograms are lost with its images; we plot timeouts per block split into ABTT and "
        "IBTT (top) and the packets dropped per timeout (bottom, the 'peak moves right' claim)"])


def _rho_at(n: int):
    """Spearman ρ(segment size, drops per timeout) at ``n``, on a frame."""
    def fn(d) -> float:
        e = _at(d, n=n).sort_values("mss")
        return _spearman(e["mss"].to_numpy(dtype=float), e["drops_per_timeout"].to_numpy(dtype=float))
    return fn


def _spearman(x, y) -> float:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return math.nan
    rx = _rank(x[ok])
    ry = _rank(y[ok])
    if np.std(rx) == 0 or np.std(ry) == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def _rank(a: np.ndarray) -> np.ndarray:
    order = np.argsort(a, kind="mergesort")
    r = np.empty(len(a))
    r[order] = np.arange(len(a), dtype=float)
    for v in np.unique(a):  # ties share their mean rank
        m = a == v
        r[m] = r[m].mean()
    return r
