"""Plot helpers (matplotlib, Agg backend): one consistent style for the demo
and the paper reproductions. Every figure gets labelled axes with units, a
legend when there is more than one series, and is saved as PNG (and
optionally SVG) atomically."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import matplotlib

matplotlib.use("Agg")  # never needs a display; set before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter  # noqa: E402

from ._atomic import atomic_write  # noqa: E402

__all__ = ["STYLE", "new_figure", "save", "line_plot", "incast_goodput_plot"]

STYLE: Dict[str, Any] = {
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


def new_figure(**kw):
    """A figure and axes in the dcnsim style."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(**kw)
    return fig, ax


def save(fig, path: Union[str, os.PathLike], svg: bool = False) -> List[Path]:
    """Save ``fig`` as PNG at ``path`` (suffix forced to .png) and, if
    ``svg``, also as SVG beside it. Atomic; closes the figure."""
    png = Path(path).with_suffix(".png")
    png.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with plt.rc_context(STYLE):
        fig.tight_layout()
        for target, fmt in [(png, "png")] + ([(png.with_suffix(".svg"), "svg")] if svg else []):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, metadata={"Software": "dcnsim"} if fmt == "png" else {"Date": None})
            atomic_write(target, lambda fh, b=buf.getvalue(): fh.write(b), mode="wb")
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
):
    """One line per value of ``series`` (or a single line), ``y·y_scale``
    against ``x``. ``xlabel``/``ylabel`` are required: state the units.
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
            ax.plot(g[x], g[y] * y_scale, marker=MARKERS[i % len(MARKERS)], label=None if name is None else str(name))
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
    (columns ``servers``, ``goodput_mbps``, ``series``)."""
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
    )
