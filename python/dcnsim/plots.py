"""Plot helpers (matplotlib, Agg backend): one consistent style for the demo
and the paper reproductions. Every figure gets labelled axes with units, a
legend when there is more than one series, and is saved as PNG (and
optionally SVG) atomically."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import math
import os
from pathlib import Path
from typing import IO, Any, Dict, Iterator, List, Optional, Sequence, Union

import matplotlib

matplotlib.use("Agg")  # never needs a display; set before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter  # noqa: E402

from ._atomic import atomic_write  # noqa: E402

__all__ = ["STYLE", "new_figure", "save", "line_plot", "facet_plot", "series_colors", "incast_goodput_plot",
           "title_note"]

STYLE: Dict[Any, Any] = {
    "figure.figsize": (6.4, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linestyle": "-",
    "legend.fontsize": 9,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "dcnsim",  # deterministic SVG ids
}

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _write_bytes(data: bytes, fh: IO[Any]) -> None:
    fh.write(data)


#: A note every figure saved meanwhile carries in its title (see title_note).
_TITLE_NOTE: contextvars.ContextVar[str] = contextvars.ContextVar("dcnsim_title_note", default="")


@contextlib.contextmanager
def title_note(note: str) -> Iterator[None]:
    """Every figure :func:`save` writes inside this block says ``note`` in
    its title (e.g. ``"quick run"``), so a reduced figure cannot pass for
    a full one once it leaves its directory."""
    token = _TITLE_NOTE.set(note)
    try:
        yield
    finally:
        _TITLE_NOTE.reset(token)


def _stamp(fig, note: str) -> None:
    """Add ``note`` to the figure's title: its suptitle, else the title of
    its only titled axes, else a suptitle of its own."""
    sup = fig.get_suptitle()
    if sup:
        fig.suptitle(f"{sup} [{note}]")
        return
    titled = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    if len(titled) == 1:
        titled[0].set_title(f"{titled[0].get_title()} [{note}]")
    else:
        fig.suptitle(f"[{note}]", fontsize=10)


def new_figure(**kw):
    """A figure and axes in the dcnsim style."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(**kw)
    return fig, ax


def save(fig, path: Union[str, os.PathLike], svg: bool = False, tight_layout: bool = True) -> List[Path]:
    """Save ``fig`` as PNG at ``path`` (suffix forced to .png) and, if
    ``svg``, also as SVG beside it. Atomic; closes the figure. With
    ``tight_layout=False`` the caller's layout is kept."""
    png = Path(path).with_suffix(".png")
    png.parent.mkdir(parents=True, exist_ok=True)
    written = []
    note = _TITLE_NOTE.get()
    if note:
        _stamp(fig, note)
    with plt.rc_context(STYLE):
        if tight_layout:
            fig.tight_layout()
        for target, fmt in [(png, "png")] + ([(png.with_suffix(".svg"), "svg")] if svg else []):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, metadata={"Software": "dcnsim"} if fmt == "png" else {"Date": None})
            atomic_write(target, functools.partial(_write_bytes, buf.getvalue()), mode="wb")
            written.append(target)
    plt.close(fig)
    return written


def line_plot(
    data,
    x: str,
    y: str,
    series: Optional[str] = None,
    *,
    xlabel: str,
    ylabel: str,
    title: Optional[str] = None,
    path: Optional[Union[str, os.PathLike]] = None,
    log2x: bool = False,
    logy: bool = False,
    y_scale: float = 1.0,
    svg: bool = False,
    order: Optional[Sequence[Any]] = None,
    hlines: Sequence[tuple] = (),
    yerr: Optional[str] = None,
):
    """One line per value of ``series`` (or a single line), ``y·y_scale``
    against ``x``, with ``±yerr·y_scale`` error bars when ``yerr`` names a
    column. ``xlabel``/``ylabel`` are required: state the units.
    With ``log2x`` the x axis is log2 with ticks at the data's x values.
    ``hlines`` are ``(y, label)`` reference lines (in scaled units).
    Returns the figure (or the written paths if ``path`` is given)."""
    fig, ax = new_figure()
    groups = [(None, data)] if series is None else list(data.groupby(series, sort=False))
    if order is not None and series is not None:
        rank = {v: i for i, v in enumerate(order)}
        groups.sort(key=lambda g: rank.get(g[0], len(rank)))
    with plt.rc_context(STYLE):
        for i, (name, g) in enumerate(groups):
            g = g.sort_values(x)
            err = g[yerr].astype(float) * y_scale if yerr is not None else None
            ax.errorbar(g[x], g[y] * y_scale, yerr=err, marker=MARKERS[i % len(MARKERS)], capsize=3 if yerr else 0,
                        label=None if name is None else str(name))
        for yv, lab in hlines:
            ax.axhline(yv, linestyle="--", linewidth=1.0, color="0.5", label=lab)
        if log2x:
            ax.set_xscale("log", base=2)
            xs = sorted(set(float(v) for v in data[x]))
            ax.xaxis.set_major_locator(FixedLocator(xs))
            ax.xaxis.set_minor_locator(NullLocator())
            fmt = ScalarFormatter()
            fmt.set_scientific(False)
            ax.xaxis.set_major_formatter(fmt)
        if logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        if series is not None or hlines:
            ax.legend(title=None)
    if path is not None:
        return save(fig, path, svg=svg)
    return fig


def incast_goodput_plot(df, path, svg: bool = False, title: Optional[str] = None):
    """Goodput (Mbps) vs number of servers, one line per ``series``
    (columns ``servers``, ``goodput_mbps``, ``series``), with ±1 standard
    deviation over seeds as error bars when ``goodput_mbps_std`` is there."""
    spread = "goodput_mbps_std" in df.columns and bool((df["goodput_mbps_std"].astype(float) > 0).any())
    return line_plot(
        df,
        "servers",
        "goodput_mbps",
        "series",
        xlabel="number of servers (synchronized senders)",
        ylabel="application goodput at the client (Mbps)",
        title=title or "TCP incast: goodput vs number of servers",
        path=path,
        log2x=True,
        svg=svg,
        hlines=[(1000.0, "link rate (1 Gbps)")],
        yerr="goodput_mbps_std" if spread else None,
    )


def series_colors(names: Sequence[Any]) -> Dict[Any, Any]:
    """A fixed colour per series name (matplotlib's default cycle, in order),
    so a series has the same colour in every panel and every figure."""
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0", "C1", "C2", "C3", "C4", "C5"])
    return {n: cycle[i % len(cycle)] for i, n in enumerate(names)}


def facet_plot(
    data,
    x: str,
    y: str,
    series: Optional[str] = None,
    facet: Optional[str] = None,
    *,
    xlabel: str,
    ylabel: str,
    title: Optional[str] = None,
    path: Optional[Union[str, os.PathLike]] = None,
    order: Optional[Sequence[Any]] = None,
    facet_order: Optional[Sequence[Any]] = None,
    ncols: Optional[int] = None,
    sharey: bool = True,
    logy: bool = False,
    y_scale: float = 1.0,
    paper: Sequence[Dict[str, Any]] = (),
    hlines: Sequence[tuple] = (),
    linestyles: Optional[Dict[Any, str]] = None,
    svg: bool = False,
):
    """Small multiples: one panel per value of ``facet`` (or one panel), one
    line per value of ``series`` with the same colour and marker in every
    panel, ``y·y_scale`` against ``x``. ``paper`` adds the paper's values as
    large hollow stars: dicts with ``x``, ``y`` (scaled units), optional
    ``series`` (takes its colour) and ``facet`` (None = every panel).
    ``hlines`` are ``(y, label)`` dashed reference lines. Saves like
    :func:`save` when ``path`` is given (returns the paths), else returns
    the figure."""
    import numpy as np

    facets = [None] if facet is None else list(facet_order or list(dict.fromkeys(data[facet])))
    names = list(order or ([] if series is None else list(dict.fromkeys(data[series]))))
    if series is not None:
        names += [n for n in dict.fromkeys(data[series]) if n not in names]
    colors = series_colors(names)
    nc = ncols or min(len(facets), 2 if len(facets) == 4 else 3)
    nr = int(math.ceil(len(facets) / nc))
    with plt.rc_context(STYLE):
        width = max(6.4, 4.6 * nc + 0.4)
        fig, axes = plt.subplots(nr, nc, figsize=(width, 3.5 * nr + 0.9), sharey=sharey, squeeze=False)
        flat = list(axes.flat)
        for ax, fv in zip(flat, facets):
            d = data if fv is None else data[data[facet] == fv]
            groups = [(None, d)] if series is None else [(n, d[d[series] == n]) for n in names]
            for i, (name, g) in enumerate(groups):
                if len(g) == 0:
                    continue
                g = g.sort_values(x)
                ax.plot(g[x], np.asarray(g[y], dtype=float) * y_scale, marker=MARKERS[i % len(MARKERS)],
                        color=colors.get(name) if name is not None else None,
                        linestyle=(linestyles or {}).get(name, "-"),
                        label=None if name is None else str(name))
            for pt in paper:
                if pt.get("facet", None) is not None and pt.get("facet") != fv:
                    continue
                ax.plot([pt["x"]], [pt["y"]], marker="*", markersize=14, linestyle="none",
                        markerfacecolor="none", markeredgewidth=1.5,
                        color=colors.get(pt.get("series"), "k"))
            for yv, lab in hlines:
                ax.axhline(yv, linestyle="--", linewidth=1.0, color="0.5", label=lab)
            if logy:
                ax.set_yscale("log")
            elif not sharey:
                ax.set_ylim(bottom=0)
            if fv is not None:
                ax.set_title(str(fv), fontsize=10)
            ax.set_xlabel(xlabel)
        for ax in flat[len(facets):]:
            ax.set_visible(False)
        for r in range(nr):
            axes[r][0].set_ylabel(ylabel)
        if sharey and not logy:
            flat[0].set_ylim(bottom=0)
        handles, labels = flat[0].get_legend_handles_labels()
        if paper:
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], marker="*", markersize=12, linestyle="none", markerfacecolor="none",
                                  color="k", markeredgewidth=1.5))
            labels.append("paper's value (text)")
        w, h = fig.get_size_inches()
        # as many legend columns as the widest label lets fit across the
        # figure (≈ 0.075 in per character at 9 pt, plus the marker)
        widest = max((len(str(x)) for x in labels), default=1)
        ncol = max(1, min(len(handles), 5, int(w / (0.075 * widest + 0.6))))
        if len(handles) > 1 or paper:
            fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False,
                       bbox_to_anchor=(0.5, 0.0))
        if title:
            fig.suptitle(title, fontsize=11)
        # fixed margins in inches (tight_layout is slow with many panels)
        legend_h = 0.2 + 0.25 * int(math.ceil(len(handles) / ncol)) if (len(handles) > 1 or paper) else 0.0
        fig.subplots_adjust(left=0.85 / w, right=1 - 0.15 / w, top=1 - (0.75 if title else 0.4) / h,
                            bottom=(0.6 + legend_h) / h, wspace=0.12 if sharey else 0.25, hspace=0.45)
    if path is not None:
        return save(fig, path, svg=svg, tight_layout=False)
    return fig

