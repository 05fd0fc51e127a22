"""Plot helpers (matplotlib): one consistent style for the demo and the
paper reproductions. Every figure gets labelled axes with units, a legend
when there is more than one series, and is saved as PNG, SVG or PDF (by
the path's suffix; optionally an SVG beside a PNG) atomically.

Importing this module leaves a matplotlib backend the user chose (Jupyter's
inline one, ``matplotlib.use(...)``, ``MPLBACKEND``) as it is: Agg is
selected only when none was chosen and there is no display to choose one
for (a server, a sweep worker), where matplotlib would fall back to it."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import math
import os
from pathlib import Path
from typing import IO, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

import matplotlib


def _agg_if_unchosen() -> None:
    """Agg, where no backend was chosen (no ``matplotlib.use``, rcParams
    or ``MPLBACKEND`` choice, pyplot not imported yet) and no display
    runs: a user's choice is never changed (a notebook's inline figures
    would stop showing), and where there is a display pyplot picks what
    it would for the user's own figures."""
    import sys

    if "matplotlib.pyplot" in sys.modules:
        return
    unchosen = getattr(matplotlib.rcParams, "_get_backend_or_none", None)
    if unchosen is None or unchosen() is not None:
        return
    try:
        from matplotlib import cbook

        headless = cbook._get_running_interactive_framework() == "headless"
    except Exception:  # noqa: BLE001 - a private helper: if it moved, leave the choice to matplotlib
        return
    if headless:
        matplotlib.use("Agg")


_agg_if_unchosen()  # before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter  # noqa: E402

from ._atomic import StagedFiles  # noqa: E402
from ._tables import need_columns  # noqa: E402

__all__ = ["STYLE", "FORMATS", "new_figure", "save", "line_plot", "facet_plot", "series_colors", "series_hatches",
           "incast_goodput_plot", "title_note", "figure_problems", "CHECK_ENV"]

#: With this environment variable set (the test suite sets it), :func:`save`
#: refuses a figure that :func:`figure_problems` finds fault with.
CHECK_ENV = "DCNSIM_CHECK_FIGURES"

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
    a full one once it leaves its directory. Nested, the notes add up
    (``"quick run; 1448 + 52 B segments"``)."""
    outer = _TITLE_NOTE.get()
    token = _TITLE_NOTE.set("; ".join(n for n in (outer, note) if n))
    try:
        yield
    finally:
        _TITLE_NOTE.reset(token)


def _stamp(fig, note: str) -> None:
    """Add ``note`` to the figure's title: its suptitle, else the title of
    its only titled axes, else a suptitle of its own."""
    sup = fig.get_suptitle()
    if sup:
        fig._suptitle.set_text(f"{sup} [{note}]")  # keeps its size and place
        return
    titled = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    if len(titled) == 1:
        titled[0].set_title(f"{titled[0].get_title()} [{note}]")
    else:
        fig.suptitle(f"[{note}]", fontsize=10)


def _fit_titles(fig, keep_layout: bool) -> None:
    """Wrap a title too wide for its room onto more lines: a suptitle to the
    canvas, an axes title to the canvas (one panel) or to its panel. With
    ``keep_layout`` (the caller placed the panels) the panels move down by
    the suptitle's added lines."""
    import textwrap

    titled = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    sup = getattr(fig, "_suptitle", None)
    if not titled and (sup is None or not sup.get_text()):
        return
    # A text's width and a panel's are known without drawing the figure (no
    # layout engine runs at draw: tight_layout comes after this); a draw
    # here, before savefig draws the figure again, took about half of the
    # time a paper's figures spent being saved, and wrapped the same way
    # (every quick reproduction's PNGs byte for byte).
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    rooms = []
    if sup is not None and sup.get_text():
        rooms.append((sup, 0.96 * W, True))
    for ax in titled:
        # a lone panel's title is centred on the panel, not the canvas: keep a margin
        rooms.append((ax.title, 0.85 * W if len(titled) == 1 else 1.05 * ax.get_window_extent(r).width, False))
    for text, room, is_sup in rooms:
        w = text.get_window_extent(renderer=r).width
        if w <= room:
            continue
        s = text.get_text()
        width = max(16, int(max(len(x) for x in s.split("\n")) * room / w * 0.95))
        wrapped = "\n".join(textwrap.fill(x, width) for x in s.split("\n"))
        text.set_text(wrapped)
        added = wrapped.count("\n") - s.count("\n")
        if is_sup and keep_layout and added:
            line = 1.25 * text.get_fontsize() * fig.dpi / 72.0
            top = fig.subplotpars.top - added * line / H
            fig.subplots_adjust(top=max(top, fig.subplotpars.bottom + 0.1))


def new_figure(**kw):
    """A figure and axes in the dcnsim style."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(**kw)
    return fig, ax


#: Axis labels that name a dimensionless quantity need no unit.
_DIMENSIONLESS = ("index", "ratio", "fraction", "share", "number of", "count", "probability", "cdf", "normalized",
                  "÷", "per query", "per run", "per block", "per flow", "per worker", "timeouts", "retransmits",
                  "drops", "flows", "workers", "servers", "senders", "segments", "packets", "hops", "trials",
                  "retransmissions", "/",
                  "rank", "seed", "n", "k", "p", "ρ", "r", "jain", "objective", "relative", "speed-up", "speedup")


def _has_unit(label: str) -> bool:
    import re

    low = label.lower().strip()
    if re.search(r"\([^)]*\)|\[[^]]*\]", label):
        return True
    return any(re.search(rf"(^|[^a-z]){re.escape(w)}([^a-z]|$)", low) for w in _DIMENSIONLESS)


def _err_words(texts: Sequence[str]) -> bool:
    low = " ".join(texts).lower()
    return any(w in low for w in ("95 %", "95%", " ci", "ci)", "confidence", "±", "std", "error bar", "stderr"))


def figure_problems(fig) -> List[str]:
    """What a reader would trip on in ``fig`` as it would be saved: a
    title, label or legend entry cut by the canvas edge; a labelled axis
    whose quantity carries no unit (dimensionless ones excepted); error
    bars whose meaning no title, label or legend text states."""
    out: List[str] = []
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    texts = []
    sup = fig._suptitle if getattr(fig, "_suptitle", None) is not None else None
    if sup is not None and sup.get_text():
        texts.append(("suptitle", sup))
    for leg in fig.legends:
        texts += [("legend entry", t) for t in [*leg.get_texts(), leg.get_title()]]
    all_words = [t.get_text() for _, t in texts]
    has_err = False
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for what, t in (("title", ax.title), ("x label", ax.xaxis.label), ("y label", ax.yaxis.label)):
            if t.get_text():
                texts.append((what, t))
                all_words.append(t.get_text())
        leg = ax.get_legend()
        if leg is not None:
            entries = [*leg.get_texts(), leg.get_title()]
            texts += [("legend entry", t) for t in entries]
            all_words += [t.get_text() for t in entries]
        for lab, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            text = axis.label.get_text()
            if text and not _has_unit(text):
                out.append(f"{lab} label {text!r} names no unit")
        for c in ax.containers:
            lines = getattr(c, "lines", None)
            if lines is not None and len(lines) == 3 and any(len(seg.get_segments()) for seg in lines[2]):
                has_err = True
    for what, t in texts:
        if not t.get_visible() or not t.get_text():
            continue
        bb = t.get_window_extent(renderer=r)
        if bb.x0 < -1 or bb.y0 < -1 or bb.x1 > W + 1 or bb.y1 > H + 1:
            out.append(f"{what} {t.get_text()!r} is cut by the canvas edge")
    if has_err and not _err_words(all_words):
        out.append("error bars whose meaning (e.g. '95 % CI') no title, label or legend states")
    return out


#: The files :func:`save` writes, by the path's suffix.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}

#: What each format is given so that one figure saves to the same bytes every time.
_METADATA: Dict[str, Dict[str, Any]] = {"png": {"Software": "dcnsim"}, "svg": {"Date": None},
                                        "pdf": {"CreationDate": None}}


def _target(path: Union[str, os.PathLike]) -> Path:
    """The file :func:`save` writes for ``path``: as named when its suffix
    is one of :data:`FORMATS`, with ``.png`` added when it has none."""
    target = Path(path)
    if not target.suffix:
        return target.with_suffix(".png")
    if target.suffix.lower() not in FORMATS:
        # written as PNG under another name, a .jpg would be a file its
        # suffix lies about; a figure asked for as .pdf must not become a .png
        raise ValueError(f"{os.fspath(path)}: a figure is saved as {', '.join(FORMATS)}; "
                         f"got the suffix {target.suffix!r}")
    return target


def save(fig, path: Union[str, os.PathLike], svg: bool = False, tight_layout: bool = True) -> List[Path]:
    """Save ``fig`` at ``path`` in the format its suffix names (``.png``,
    ``.svg`` or ``.pdf``; none: ``.png`` is added; another: ValueError) and,
    if ``svg``, also as SVG beside it. Atomic; closes the figure. With
    ``tight_layout=False`` the caller's layout is kept. With
    ``DCNSIM_CHECK_FIGURES`` set, a figure with :func:`figure_problems`
    is refused (ValueError) before anything is written."""
    try:
        png = _target(path)
        png.parent.mkdir(parents=True, exist_ok=True)
    except BaseException:
        plt.close(fig)  # a path refused leaves no figure open either
        raise
    written = []
    note = _TITLE_NOTE.get()
    if note:
        _stamp(fig, note)
    with plt.rc_context(STYLE):
        _fit_titles(fig, keep_layout=not tight_layout)
        if tight_layout:
            fig.tight_layout()
        if os.environ.get(CHECK_ENV):
            problems = figure_problems(fig)
            if problems:
                plt.close(fig)
                raise ValueError(f"figure {png.name}: " + "; ".join(problems))
        targets = [(png, FORMATS[png.suffix.lower()])]
        if svg and targets[0][1] != "svg":
            targets.append((png.with_suffix(".svg"), "svg"))
        # the pair in place together, or neither: a failure rendering the
        # second (or Ctrl-C) left a new PNG beside an earlier run's SVG
        try:
            with StagedFiles() as staged:
                for target, fmt in targets:
                    buf = io.BytesIO()
                    fig.savefig(buf, format=fmt, metadata=_METADATA[fmt])
                    staged.write(target, functools.partial(_write_bytes, buf.getvalue()), mode="wb")
                    written.append(target)
                staged.commit()
        finally:
            plt.close(fig)  # written or not: never left open in pyplot
    return written


def _nonnegative(ys: Any, hlines: Sequence[tuple] = ()) -> bool:
    """Whether the values a plot draws (``ys`` scaled, the ``hlines``) lie
    at or above 0, so its y axis may start at 0: a negative value (a
    difference, a change in %) below a forced 0 would be cut off the figure
    without a sign. Error bars do not count: a mean of 0 with a symmetric
    interval is still a count that cannot be negative."""
    import numpy as np

    vals = np.concatenate([np.asarray(ys, dtype=float).ravel(), np.asarray([h[0] for h in hlines], dtype=float)])
    vals = vals[np.isfinite(vals)]
    return not len(vals) or bool(vals.min() >= 0)


def _something_to_draw(data, y: str, plot: str, paper: Sequence[Dict[str, Any]] = ()) -> None:
    """Refuse a table with nothing to draw: no rows (a result's ``blocks``
    of a run without synchronized reads, a sweep whose points all failed)
    or no finite ``y``. Drawn, it was an empty figure saved without a word
    (``line_plot``) or a ZeroDivisionError (``facet_plot`` with a
    ``facet``); ``paper`` values alone are something to draw."""
    import pandas as pd

    if paper:
        return
    if len(data) == 0:
        raise ValueError(f"{plot}: the table has no rows: nothing to draw (check that the run or sweep "
                         f"produced the rows this figure needs)")
    if not pd.to_numeric(pd.Series(data[y]), errors="coerce").notna().any():
        raise ValueError(f"{plot}: y: column {y!r} has no value in its {len(data)} rows (all NaN): nothing to draw")


def _positive_log_x(data, x: str, plot: str) -> None:
    """Refuse an x at or below 0 on a log x axis: matplotlib leaves the
    point out of the figure without a word (its line runs off the left
    edge), so a sweep's x = 0 (no buffer, no background flow) vanished."""
    import pandas as pd

    xs = pd.to_numeric(pd.Series(data[x]), errors="coerce")
    bad = xs[~(xs > 0)]
    if len(bad):
        at = bad.iloc[0]
        at = at.item() if hasattr(at, "item") else at
        raise ValueError(f"{plot}: log2x: x: column {x!r} holds {at!r} ({len(bad)} of {len(xs)} rows at or below 0, "
                         f"or not a number), which a log axis cannot show: drop those rows or plot without log2x")


def _warn_log_y_leaves_out(data, x: str, y: str, y_scale: float, plot: str) -> None:
    """Say which points a log y axis will not draw: matplotlib leaves a y
    at or below 0 out of the figure without a word (a collapsed incast's
    zero goodput vanished from its curve). A warning, not an error: the
    rest of the figure is what it was meant to be, and a paper figure's
    sweep may hold such a point."""
    import pandas as pd

    ys = pd.to_numeric(pd.Series(data[y]), errors="coerce") * y_scale
    bad = ys[ys <= 0]
    if not len(bad):
        return
    # by position: a frame with a repeated index (two concatenated series)
    # gave a Series per label here, and `.item()` failed on it
    pos = int((ys <= 0).to_numpy().argmax())
    at, v = pd.Series(data[x]).iloc[pos], pd.Series(data[y]).iloc[pos]
    at, v = (a.item() if hasattr(a, "item") else a for a in (at, v))
    import warnings

    from .errors import DcnsimWarning, caller_stacklevel

    warnings.warn(DcnsimWarning(f"{plot}: logy", f"{len(bad)} of {len(ys)} points not drawn: a log axis cannot show "
                                f"y at or below 0 (first: {y} = {v!r} at {x} = {at!r})"),
                  stacklevel=caller_stacklevel())


def _one_y_per_x(g, x: str, y: str, plot: str, series: Optional[str], name: Any, facet: Optional[str] = None,
                 panel: Any = None) -> None:
    """Refuse a line given several rows at one x (a sweep's seeds, say):
    drawn in order, it zigzags up and down at that x, a vertical stroke
    no reader takes for what it is."""
    dup = g[x][g[x].duplicated()]
    if not len(dup):
        return
    at = dup.iloc[0]
    n = int((g[x] == at).sum())
    at = at.item() if hasattr(at, "item") else at  # 4, not np.int64(4)
    where = "".join([f" {facet} = {panel!r}" if facet is not None else "",
                     f" series {series} = {name!r}" if series is not None else ""])
    keys = [k for k in (facet, series, x) if k is not None]
    raise ValueError(f"{plot}:{where or ' the line'} has {n} rows at {x} = {at!r} (a line takes one y per x): "
                     f"aggregate them first, e.g. the mean over seeds: df.groupby({keys!r}, as_index=False)"
                     f"[{y!r}].mean(), or give each row its own series")


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
    # pandas' own KeyError names neither the argument nor the column meant
    need_columns(data, "line_plot", {"x": x, "y": y, "series": series, "yerr": yerr})
    _something_to_draw(data, y, "line_plot")
    if log2x:
        _positive_log_x(data, x, "line_plot")
    if logy:
        _warn_log_y_leaves_out(data, x, y, y_scale, "line_plot")
    groups = [(None, data)] if series is None else list(data.groupby(series, sort=False))
    for name, g in groups:  # before a figure is opened: a refused one would stay open in pyplot
        _one_y_per_x(g, x, y, "line_plot", series, name)
    fig, ax = new_figure()
    if order is not None and series is not None:
        rank = {v: i for i, v in enumerate(order)}
        groups.sort(key=lambda g: rank.get(g[0], len(rank)))
    with plt.rc_context(STYLE):
        for i, (name, g) in enumerate(groups):
            g = g.sort_values(x)
            err = g[yerr].astype(float) * y_scale if yerr is not None else None
            ys = g[y].astype(float) * y_scale
            if logy:
                # a gap where the log axis cannot go: matplotlib would clip
                # such a point to the axis's floor and draw the line down to it
                ys = ys.where(ys > 0)
            ax.errorbar(g[x], ys, yerr=err, marker=MARKERS[i % len(MARKERS)], capsize=3 if yerr else 0,
                        label=None if name is None else str(name))
        for yv, lab in hlines:
            ax.axhline(yv, linestyle="--", linewidth=1.0, color="0.5", label=lab)
        if log2x:
            log2_x(ax, data[x])
        if logy:
            ax.set_yscale("log")
            _readable_log_y(ax)
        elif _nonnegative(data[y].astype(float) * y_scale, hlines):
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


def incast_goodput_plot(df, path, svg: bool = False, title: Optional[str] = None,
                        link_mbps: Optional[float] = None):
    """Goodput (Mbps) vs number of servers, one line per ``series``
    (columns ``servers``, ``goodput_mbps``, ``series``), with ±1 standard
    deviation over seeds as error bars when ``goodput_mbps_std`` is there
    (the default title says so). ``link_mbps``: the client link's rate,
    drawn as a reference line (none when not given: the table does not
    carry it)."""
    spread = "goodput_mbps_std" in df.columns and bool((df["goodput_mbps_std"].astype(float) > 0).any())
    default = "TCP incast: goodput vs number of servers" + (" (error bars: ±1 s.d. over seeds)" if spread else "")
    lines = []
    if link_mbps is not None:
        rate = f"{link_mbps / 1000:g} Gbps" if link_mbps >= 1000 else f"{link_mbps:g} Mbps"
        lines = [(float(link_mbps), f"link rate ({rate})")]
    return line_plot(
        df,
        "servers",
        "goodput_mbps",
        "series",
        xlabel="number of servers (synchronized senders)",
        ylabel="application goodput at the client (Mbps)",
        title=title or default,
        path=path,
        log2x=True,
        svg=svg,
        hlines=lines,
        yerr="goodput_mbps_std" if spread else None,
    )


#: Bar fills that tell series apart without colour (greyscale print)
HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--", "++", "**", "||")


def series_hatches(names: Sequence[Any], universe: Optional[Sequence[Any]] = None) -> Dict[Any, str]:
    """A bar hatch per series, by :func:`series_colors`'s rule (position in
    ``universe`` when given), so bars stay apart in greyscale, where ten
    colours fall into a few greys."""
    colors = series_colors(names, universe)
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0", "C1", "C2", "C3", "C4", "C5"])
    where = {c: i for i, c in enumerate(cycle)}
    return {n: HATCHES[where.get(c, 0) % len(HATCHES)] for n, c in colors.items()}


def series_colors(names: Sequence[Any], universe: Optional[Sequence[Any]] = None) -> Dict[Any, Any]:
    """A colour per series name (matplotlib's default cycle), the same in
    every panel of a figure. By position in ``names``, unless ``universe``
    (every series a paper's figures draw, in a fixed order) is given: then
    by position in it, so a series keeps its colour in every figure that
    draws it, whichever others are beside it; a name outside it, or one
    whose colour another name of ``names`` already has (a universe longer
    than the cycle), takes the first colour still free."""
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0", "C1", "C2", "C3", "C4", "C5"])
    if universe is None:
        return {n: cycle[i % len(cycle)] for i, n in enumerate(names)}
    where = {n: i for i, n in enumerate(universe)}
    out: Dict[Any, Any] = {}
    taken: set = set()
    for n in names:
        i = where.get(n)
        if i is not None and i % len(cycle) not in taken:
            c = i % len(cycle)
        else:
            c = next((j for j in range(len(cycle)) if j not in taken), len(taken) % len(cycle))
        taken.add(c)
        out[n] = cycle[c]
    return out


def _readable_log_y(ax: Any) -> None:
    """A log y axis a reader can read values off: plain numbers ("20",
    "500", not "10²"), and ticks at 1, 2 and 5 of each decade when the data
    span three decades or fewer (13 to 1,000 Mbps showed only 10² and 10³,
    so nothing below 100 could be read)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.relim()
    ax.autoscale_view()
    lo, hi = ax.get_ylim()
    few = lo > 0 and hi / lo <= 1e3
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if few else (1.0,)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def log2_x(ax: Any, xs: Any) -> None:
    """A log₂ x axis ticked at the values ``xs`` takes, written as plain
    numbers (16, not 2⁴), with no minor ticks."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(float(v) for v in xs))))
    ax.xaxis.set_minor_locator(NullLocator())
    fmt = ScalarFormatter()
    fmt.set_scientific(False)
    ax.xaxis.set_major_formatter(fmt)


#: Two lines closer than this share of the panel's range of values, at
#: every point, are drawn one over the other: a marker's width.
HIDDEN_WITHIN = 0.005


def _say_hidden_series(ax: Any, drawn: Mapping[Any, Any], log: bool = False) -> None:
    """Name in ``ax`` each series drawn under a later one, which cannot be
    seen: exactly ("NewReno lies under DCTCP"), or within
    :data:`HIDDEN_WITHIN` of the plotted range at every point ("ECMP lies
    under single path (within 0.5% of the plotted range)": RPS Fig. 2's
    four schemes differ by 0.1 %, and only the last could be seen), the
    range and the distances taken in decades on a ``log`` axis (where a
    decade apart on a linear reading was "within"); ``drawn``: name -> (xs,
    ys), in drawing order."""
    import math

    def scale(y: Any) -> float:
        v = float(y)
        if log:
            return math.log10(v) if v > 0 else math.nan
        return v

    names = [n for n in drawn if n is not None]
    ys = [scale(y) for n in names for y in drawn[n][1]]
    ys = [y for y in ys if math.isfinite(y)]
    tol = HIDDEN_WITHIN * (max(ys) - min(ys)) if ys else 0.0

    def near(a: Any, b: Any) -> bool:
        (xa, ya), (xb, yb) = drawn[a], drawn[b]
        pairs = [(scale(p), scale(q)) for p, q in zip(ya, yb)]
        return tuple(xa) == tuple(xb) and tol > 0 and all(
            math.isfinite(p) and math.isfinite(q) and abs(p - q) <= tol for p, q in pairs)

    hidden = []
    for i, a in enumerate(names):
        over = [b for b in names[i + 1:] if drawn[b] == drawn[a]]
        if over:
            hidden.append(f"{a} lies under {over[-1]}")
            continue
        close = [b for b in names[i + 1:] if near(a, b)]
        if close:
            hidden.append(f"{a} lies under {close[-1]} (within {HIDDEN_WITHIN:.1%} of the plotted range)")
    if hidden:
        ax.text(0.02, 0.98, "; ".join(hidden), transform=ax.transAxes, fontsize=7, va="top", color="0.3")


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
    yerr: Optional[str] = None,
    universe: Optional[Sequence[Any]] = None,
):
    """Small multiples: one panel per value of ``facet`` (or one panel), one
    line per value of ``series`` with the same colour and marker in every
    panel, ``y·y_scale`` against ``x``. ``paper`` adds the paper's values as
    large hollow stars: dicts with ``x``, ``y`` (scaled units), optional
    ``series`` (takes its colour) and ``facet`` (None = every panel); with
    ``bound`` ``"<"`` or ``">"`` a value the paper gives as a bound ("<
    35 ms"), drawn as a labelled triangle pointing the way it lies.
    ``hlines`` are ``(y, label)`` dashed reference lines. ``yerr`` names a
    column of ± half-widths (same units as ``y``) drawn as error bars; say
    what they are in ``ylabel`` or ``title``. Saves like
    :func:`save` when ``path`` is given (returns the paths), else returns
    the figure."""
    import numpy as np

    need_columns(data, "facet_plot", {"x": x, "y": y, "series": series, "facet": facet, "yerr": yerr})
    _something_to_draw(data, y, "facet_plot", paper)
    if logy:
        _warn_log_y_leaves_out(data, x, y, y_scale, "facet_plot")
    facets = [None] if facet is None else list(facet_order or list(dict.fromkeys(data[facet])))
    if not facets and paper:
        # no data rows: the paper's values still have panels to go in (the
        # facets were the data's alone: none, and a division by zero below)
        facets = list(dict.fromkeys(pt.get("facet") for pt in paper)) or [None]
    names = list(order or ([] if series is None else list(dict.fromkeys(data[series]))))
    if series is not None:
        names += [n for n in dict.fromkeys(data[series]) if n not in names]
    for fv in facets:  # before a figure is opened: a refused one would stay open in pyplot
        d = data if fv is None else data[data[facet] == fv]
        for name, g in [(None, d)] if series is None else [(n, d[d[series] == n]) for n in names]:
            _one_y_per_x(g, x, y, "facet_plot", series, name, facet, fv)
    colors = series_colors(names, universe=universe)
    nc = ncols or min(len(facets), 2 if len(facets) == 4 else 3)
    nr = int(math.ceil(len(facets) / nc))
    with plt.rc_context(STYLE):
        width = max(6.4, 4.6 * nc + 0.4)
        fig, axes = plt.subplots(nr, nc, figsize=(width, 3.5 * nr + 0.9), sharey=sharey, squeeze=False)
        flat = list(axes.flat)
        for ax, fv in zip(flat, facets):
            d = data if fv is None else data[data[facet] == fv]
            groups = [(None, d)] if series is None else [(n, d[d[series] == n]) for n in names]
            drawn: Dict[Any, Any] = {}
            for i, (name, g) in enumerate(groups):
                if len(g) == 0:
                    continue
                g = g.sort_values(x)
                style = dict(marker=MARKERS[i % len(MARKERS)], color=colors.get(name) if name is not None else None,
                             linestyle=(linestyles or {}).get(name, "-"), label=None if name is None else str(name))
                ys = np.asarray(g[y], dtype=float) * y_scale
                if logy:  # a gap, not a stroke down to the clipped floor (line_plot)
                    ys = np.where(ys > 0, ys, np.nan)
                if yerr is not None:
                    ax.errorbar(g[x], ys, yerr=np.asarray(g[yerr], dtype=float) * y_scale, capsize=2, **style)
                else:
                    ax.plot(g[x], ys, **style)
                drawn[name] = (tuple(g[x]), tuple(ys))
            _say_hidden_series(ax, drawn, log=logy)
            for pt in paper:
                if pt.get("facet", None) is not None and pt.get("facet") != fv:
                    continue
                bound = str(pt.get("bound") or "")
                # a bound the paper gives ("< 35 ms") is no measured point: a
                # hollow triangle pointing the way the value lies, labelled
                ax.plot([pt["x"]], [pt["y"]], marker={"<": "v", ">": "^"}.get(bound, "*"),
                        markersize=11 if bound else 14, linestyle="none",
                        markerfacecolor="none", markeredgewidth=1.5,
                        color=colors.get(pt.get("series"), "k"))
                if bound:
                    ax.annotate(f"{bound} {pt['y']:g}", (pt["x"], pt["y"]), textcoords="offset points",
                                xytext=(7, 0), va="center", fontsize=7, color=colors.get(pt.get("series"), "k"))
            for yv, lab in hlines:
                ax.axhline(yv, linestyle="--", linewidth=1.0, color="0.5", label=lab)
            if logy:
                ax.set_yscale("log")
            elif not sharey and _nonnegative(d[y].astype(float) * y_scale, hlines):
                ax.set_ylim(bottom=0)
            if fv is not None:
                ax.set_title(str(fv), fontsize=10)
            ax.set_xlabel(xlabel)
        if logy:
            for ax in flat[:len(facets)]:
                _readable_log_y(ax)
        for ax in flat[len(facets):]:
            ax.set_visible(False)
        for r in range(nr):
            axes[r][0].set_ylabel(ylabel)
        if sharey and not logy and _nonnegative(data[y].astype(float) * y_scale, hlines):
            flat[0].set_ylim(bottom=0)
        # every panel's series, each once (a series absent from the first
        # panel was never named, and a first panel of one series hid the
        # legend of all)
        handles, labels = [], []
        for ax in flat[:len(facets)]:
            for hd, lb in zip(*ax.get_legend_handles_labels()):
                if lb not in labels:
                    handles.append(hd)
                    labels.append(lb)
        if paper:
            from matplotlib.lines import Line2D

            if any(not pt.get("bound") for pt in paper):
                handles.append(Line2D([], [], marker="*", markersize=12, linestyle="none", markerfacecolor="none",
                                      color="k", markeredgewidth=1.5))
                labels.append("paper's value (text)")
            if any(pt.get("bound") for pt in paper):
                handles.append(Line2D([], [], marker="v", markersize=9, linestyle="none", markerfacecolor="none",
                                      color="k", markeredgewidth=1.5))
                labels.append("paper's bound (text)")
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
        # fixed margins in inches (tight_layout is slow with many panels);
        # the legend's rows add to the figure's height instead of taking it
        # from the panels (six rows of long labels left them 1.3 in tall)
        legend_h = 0.2 + 0.25 * int(math.ceil(len(handles) / ncol)) if (len(handles) > 1 or paper) else 0.0
        h += legend_h
        fig.set_size_inches(w, h)
        fig.subplots_adjust(left=0.85 / w, right=1 - 0.15 / w, top=1 - (0.75 if title else 0.4) / h,
                            bottom=(0.6 + legend_h) / h, wspace=0.12 if sharey else 0.25, hspace=0.45)
    if path is not None:
        return save(fig, path, svg=svg, tight_layout=False)
    return fig

