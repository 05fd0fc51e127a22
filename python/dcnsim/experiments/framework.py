"""The reproduction framework: figure specs, one sweep for all of a paper's
figures, per-figure analysis, and the report.

A paper is a :class:`Paper`: a key (``"fast"``), its figures and the settings
the paper leaves implicit (with the values we chose). Each :class:`Figure`
says which simulation points it needs (``points(quick)``) and how to turn
their results into a tidy table, a plot and a list of :class:`Comparison`
rows, ours next to the paper's (``analyze(summary, out_dir)``).

:func:`reproduce` collects the points of every selected figure into **one**
sweep (so every core stays busy, and points shared between figures run
once), runs it with :func:`dcnsim.sweep.run_sweep` (parallel, resumable:
finished points are never run again), analyzes each figure and writes::

    <out>/runs/<label>/...     every point's tables (queries.csv, flows.csv, ...)
    <out>/fig<N>.csv           each figure's tidy table
    <out>/fig<N>.png           each figure's plot
    <out>/report.md            settings + one comparison table per figure
    <out>/fig<N>.report.json   each figure's comparisons, so a later run of
                               some figures (``--figure``) merges into
                               report.md instead of replacing it

and prints the same comparisons. Figure ids are strings: ``"4"`` writes
``fig4.*``, ``"§3"`` writes ``sec3.*``, any other id is used as it is
(lower-cased, non-alphanumerics dropped).
"""

from __future__ import annotations

import dataclasses
import glob
import json
import math
import os
import re
import shutil
import time
import traceback
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .. import _tables
from .._atomic import atomic_write, check_out_dir, dir_lock
from ..errors import DcnsimWarning, caller_stacklevel
from ..plots import title_note
from ..sweep import Point, environment_failure, point_dir, run_sweep
from .claims import compare_claim, register_problems
from .paper import (
    COUNTED_IN,
    MODEL_CHECK,
    NOT_MODELLED,
    TALLIED,
    VERDICTS,
    Comparison,
    Figure,
    FigureResult,
    Paper,
    Setting,
)
from .registry import get_paper

__all__ = [
    "Comparison",
    "FigureResult",
    "Figure",
    "Setting",
    "Paper",
    "Report",
    "reproduce",
    "compare_number",
    "compare_claim",
    "read_table",
    "VERDICTS",
    "TALLIED",
    "check_formula",
    "tally_text",
    "NOT_MODELLED",
    "not_modelled",
    "beyond",
    "beyond_text",
    "attribute",
    "source_problems",
    "in_subdir",
]

@dataclass
class Report:
    paper: Paper
    out_dir: Path
    quick: bool
    results: Dict[str, FigureResult]
    errors: Dict[str, str]
    wall_s: float
    n_points: int
    n_computed: int
    jobs: int
    #: the cores (``version+build``) that computed the points (one, since a
    #: point computed by another core is recomputed)
    cores: List[str] = field(default_factory=list)
    #: the Dask scheduler the points ran on (``jobs`` then counts nothing)
    cluster: Optional[str] = None
    #: the order of equal-time events the run set (``reproduce(ties=...)``), if any
    ties: Optional[str] = None

    @property
    def comparisons(self) -> List[Comparison]:
        return [c for r in self.results.values() for c in r.comparisons]

    def counts(self) -> Dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for c in self.comparisons:
            out[c.verdict] += 1
        return out

    def tally_text(self) -> str:
        if self.paper.own_study:
            return "our own study, no paper to tally against"
        text = tally_text(self.comparisons)
        if self.quick:
            # a quick run's verdicts rest on fewer points, seeds and seconds:
            # its tally is not the docs' (a full run's) and reads so
            text = "quick run, judged on its quick data (the docs' tally is a full run's): " + text
        if self.paper.tallied_in:
            text = (f"part of {self.paper.tallied_in}'s tally (`dcnsim reproduce {self.paper.tallied_in}` counts "
                    "these claims; do not add them to it again): " + text)
        reg = self.paper.register
        if reg is None:
            return text
        # the register's tallied claims this run judged no row of (--quick
        # leaves some series out, --figure some figures): said, not dropped.
        # Only claims of this run's figures (the last full run names each
        # claim's): a paper run in part does not miss the others'.
        figure_of = _claim_figures(self.paper)
        # the paper's own rows: a variant's row judged by the same claim
        # (a setting or series of ours) is not the claim's
        judged = {c.claim for c in self.comparisons if c.claim and not c.setting and not c.beyond
                  and c.verdict in TALLIED + ("untestable",)}
        ran = set(self.results) | set(self.errors)
        missing = [c.id for c in reg.claims if c.tally and not c.counted_in and c.id not in judged
                   and (c.id not in figure_of or figure_of[c.id] in ran)]
        if missing:
            if self.errors:
                why = "analysis failed: " + ", ".join(_fig_name_of(self.paper, f) for f in self.errors)
                why += "; or --quick" if self.quick else ""
            else:
                why = "--quick" if self.quick else "this run's figures"
            text += (f"; {len(missing)} of the register's tallied claims not run ({why}): "
                     + ", ".join(missing))
        return text

    def beyond_text(self) -> str:
        return "" if self.paper.own_study else beyond_text(self.comparisons)


# ---------------------------------------------------------------- helpers


#: the orders of equal-time events ``reproduce(ties=...)`` may set (the scenario key ``ties``)
TIES = ("fifo", "seeded")


def _pct(x: float) -> str:
    return f"{x * 100:.3g} %"


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    try:
        return isinstance(v, (int, float)) and math.isnan(float(v))
    except (TypeError, ValueError):
        return False


def compare_number(
    quantity: str,
    ours: float,
    paper: Optional[float],
    *,
    unit: str = "",
    rel_tol: float = 0.2,
    close_tol: Optional[float] = 0.5,
    abs_tol: Optional[float] = None,
    abs_close: Optional[float] = None,
    note: str = "",
    fmt: str = "",
) -> Comparison:
    """A number of ours against the paper's, by a printed criterion.

    Relative (default): ``agrees`` if ``|ours − paper| ≤ rel_tol·|paper|``,
    ``close`` within ``close_tol`` (``None``: no "close" band), else
    ``differs``. Absolute: with ``abs_tol`` the test is
    ``|ours − paper| ≤ abs_tol`` (``close`` within ``abs_close``). A paper
    value of 0 has no relative error, so it *needs* ``abs_tol`` (a
    ``ValueError`` otherwise). ``paper=None``: a reference value of ours,
    ``not in paper``. No measured value (None or NaN): ``untestable``; an
    infinite value is a measurement (e.g. "no onset in the range") and is
    judged."""
    unit_s = f" {unit}" if unit else ""
    if abs_tol is not None:
        crit = f"|ours − paper| ≤ {abs_tol:g}{unit_s}"
        if abs_close is not None:
            crit += f" (close: ≤ {abs_close:g}{unit_s})"
        if paper is not None and float(paper) == 0:
            crit += " (absolute: the paper's value is 0)"
    else:
        crit = f"within {_pct(rel_tol)}"
        if close_tol is not None and close_tol > rel_tol:
            crit += f" (close: {_pct(close_tol)})"
    if paper is None:
        return Comparison(quantity, ours, None, "not in paper", note, unit, fmt, "— (our reference value)")
    if abs_tol is None and float(paper) == 0:
        raise ValueError(f"{quantity!r}: the paper's value is 0, a relative error is undefined; "
                         "pass abs_tol= (and say why in the note)")
    if _is_missing(ours):
        return Comparison(quantity, ours, paper, "untestable", note or "no value measured in our run", unit, fmt,
                          crit)
    err = abs(float(ours) - float(paper))
    if abs_tol is not None:
        verdict = ("agrees" if err <= abs_tol else
                   "close" if abs_close is not None and err <= abs_close else "differs")
    else:
        rel = err / abs(float(paper))
        verdict = ("agrees" if rel <= rel_tol else
                   "close" if close_tol is not None and rel <= close_tol else "differs")
    return Comparison(quantity, ours, paper, verdict, note, unit, fmt, crit)


def check_formula(quantity: str, ours: float, paper: float, *, rel_tol: float, note: str = "",
                  unit: str = "", fmt: str = "") -> Comparison:
    """The paper's own formula evaluated with the paper's own inputs: a check
    of the arithmetic (and of our reading of the formula), not evidence
    about the physics, so it is kept out of the tally. ``matched`` says
    whether it gives the paper's number within ``rel_tol``."""
    ok = abs(float(ours) - float(paper)) <= rel_tol * abs(float(paper))
    why = "matches the paper's number" if ok else "does NOT match the paper's number"
    return Comparison(quantity, ours, paper, "formula check", why + (f"; {note}" if note else ""), unit, fmt,
                      f"paper's formula, paper's inputs; within {_pct(rel_tol)}", ok)


def not_modelled(c: Comparison, reason: str) -> Comparison:
    """``c`` taken out of the tally as "testbed not modelled": the reason
    first, then the verdict our criterion would have given (kept visible,
    never counted)."""
    would = f"; our criterion gives: {c.verdict}" if c.verdict in TALLIED else ""
    note = reason + would + (f"; {c.note}" if c.note else "")
    return Comparison(c.quantity, c.ours, c.paper, NOT_MODELLED, note, c.unit, c.fmt, c.criterion, c.matched)


def beyond(c: Comparison, setting: str = "", series: str = "") -> Comparison:
    """``c`` moved to "Beyond the paper": a row of our own variant (a
    ``setting`` of ours, or a ``series`` the paper does not have), judged by
    the same criterion (kept as ``judged``) and shown beside the paper's
    tally, never added to it."""
    judged = c.verdict if c.verdict in TALLIED + ("untestable",) else c.judged
    return dataclasses.replace(c, verdict="not in paper", judged=judged, paper=c.paper,
                               setting=setting or c.setting, series=series or c.series)


def attribute(paper: Paper, fig: Figure, comparisons: Sequence[Comparison]) -> List[Comparison]:
    """Each row with its source: a claim's row that names no series is about
    the figure's (or, without those, all the paper's); every row of a figure
    that is wholly our variant (``fig.setting``) goes beyond the paper. A
    reference value of ours (:func:`info`) and a formula check name no
    series unless they say one: neither is about the figure's curves, and
    listing them all would say so."""
    default = "; ".join(fig.series or paper.series)
    out = []
    for c in comparisons:
        ours_alone = c.verdict == "formula check" or (c.verdict == "not in paper" and not c.beyond)
        if not c.series and default and not ours_alone:
            c = dataclasses.replace(c, series=default)
        if fig.testbed and c.verdict in TALLIED:
            c = not_modelled(c, fig.testbed)
        elif fig.setting and c.verdict in TALLIED + ("untestable",):
            c = beyond(c, setting=fig.setting)
        elif fig.setting and not c.setting:
            c = dataclasses.replace(c, setting=fig.setting)
        out.append(c)
    return out


def source_problems(paper: Paper, comparisons: Sequence[Comparison], fig: Optional[Figure] = None) -> List[str]:
    """Why a tallied row is not the paper's claim: measured under a setting
    of ours, about a series the paper (or, given ``fig``, that figure) does
    not plot, or naming one of our variants; and why a "Beyond the paper"
    row may be the paper's own claim (it names neither a setting of ours
    nor a foreign series). Empty for a clean figure (and for our own
    studies)."""
    if paper.own_study:
        return []
    known = set(fig.series if fig is not None and fig.series else paper.series)
    out = []
    for c in comparisons:
        if c.beyond and c.verdict == "not in paper":
            # a row moved beyond the paper must say whose it is: a setting
            # of ours or a series the paper (figure) does not plot; without
            # either it is the paper's own claim kept out of its tally
            foreign = [s for s in c.series_names() if known and s not in known]
            if not c.setting and not foreign:
                out.append(f"{c.quantity!r} is shown beyond the paper but names no variant of ours "
                           "(no setting of ours, no series the paper does not plot)")
            continue
        if c.verdict not in TALLIED:
            continue
        if c.setting:
            out.append(f"{c.quantity!r} is measured under our setting {c.setting!r}")
        names = c.series_names()
        if known and not names:
            out.append(f"{c.quantity!r} names no source series")
        foreign = [s for s in names if known and s not in known]
        if foreign:
            out.append(f"{c.quantity!r} comes from {', '.join(foreign)}, not a series the paper plots here "
                       f"({', '.join(sorted(known))})")
        low = c.quantity.lower()
        named = [v for v in paper.variants if v.lower() in low]
        if named:
            out.append(f"{c.quantity!r} names our variant {', '.join(named)}")
    return out


def in_subdir(sub: str, *analyses: Callable[[Any, Path], FigureResult],
              note: str = "") -> Callable[[Any, Path], FigureResult]:
    """One figure's analysis made of several ``analyses`` of a variant's
    runs, their plots written under ``out_dir/sub`` so that they do not
    replace the tallied figures' plots of the same names: the first
    analysis's table, and all their figures, comparisons and notes. Each
    plot's title says ``note`` (the variant, in a few words), so that it
    cannot pass for the tallied figure of the same title."""
    def analyze(summary: Any, out_dir: Path) -> FigureResult:
        from ..plots import title_note

        d = out_dir / sub
        d.mkdir(parents=True, exist_ok=True)
        with title_note(note):
            res = [a(summary, d) for a in analyses]
        notes = list(dict.fromkeys(n for r in res for n in r.notes))
        # the figure's table is the first analysis's; each other's is
        # written beside its plot (its stem), so that every plot has the
        # table it was drawn from
        for r in res[1:]:
            stem = Path(r.figures[0]).stem if r.figures else ""
            if stem and r.table is not None and len(getattr(r.table, "columns", ())):
                _write_csv(d / f"{stem}.csv", r.table)
                notes.append(f"{sub}/{stem}.png's table: {sub}/{stem}.csv")
        return FigureResult(res[0].table, [p for r in res for p in r.figures],
                            [c for r in res for c in r.comparisons], notes)
    return analyze


def beyond_text(comparisons: Sequence[Comparison]) -> str:
    """The "Beyond the paper" line: our variants' rows, judged by the same
    criteria, counted apart (empty when there are none)."""
    rows = [x for x in comparisons if x.verdict == "not in paper" and x.beyond]
    checks = [x for x in comparisons if x.verdict == MODEL_CHECK and x.setting]
    counted = sum(1 for x in comparisons if x.verdict == COUNTED_IN and x.setting)
    if not rows and not checks and not counted:
        return ""
    judged = {v: 0 for v in TALLIED + ("untestable",)}
    for x in rows:
        if x.judged:
            judged[x.judged] += 1
    n = sum(judged[v] for v in TALLIED)
    parts = ", ".join(f"{judged[v]} {v}" for v in TALLIED if judged[v]) or "none judged"
    extra = f"; {judged['untestable']} untestable" if judged["untestable"] else ""
    shown = len(rows) - n - judged["untestable"]
    extra += f"; {shown} shown without a criterion" if shown else ""
    if checks:
        extra += f"; {len(checks)} model check(s) ({sum(1 for x in checks if x.judged == 'agrees')} hold)"
    if counted:
        extra += f"; {counted} point(s) counted in another of their rows"
    rows_ = "row" if n == 1 else "rows"
    return f"{n} {rows_} of our variants judged by the same criteria: {parts}{extra} (not in the paper's tally)"


def tally_text(comparisons: Sequence[Comparison]) -> str:
    """The tally line: ``12 tested claims: 5 agrees, ...; not tallied: 2 untestable, ...``."""
    c = {v: 0 for v in VERDICTS}
    for x in comparisons:
        c[x.verdict] += 1
    n = sum(c[v] for v in TALLIED)
    head = f"{n} tested claim{'' if n == 1 else 's'}: " + (", ".join(f"{c[v]} {v}" for v in TALLIED if c[v]) or "none")
    rest = []
    if c["untestable"]:
        rest.append(f"{c['untestable']} untestable")
    if c["formula check"]:
        ok = sum(1 for x in comparisons if x.verdict == "formula check" and x.matched)
        rest.append(f"{c['formula check']} formula check(s) ({ok} match)")
    n_beyond = sum(1 for x in comparisons if x.verdict == "not in paper" and x.beyond)
    if c["not in paper"] - n_beyond:
        rest.append(f"{c['not in paper'] - n_beyond} reference value(s) not in the paper")
    if n_beyond:
        rest.append(f"{n_beyond} row(s) beyond the paper")
    if c[NOT_MODELLED]:
        rest.append(f"{c[NOT_MODELLED]} {NOT_MODELLED}")
    # the paper's setup only: a variant's model checks and counted points
    # are our rows (the "beyond the paper" line counts them)
    checks = [x for x in comparisons if x.verdict == MODEL_CHECK and not x.setting]
    if checks:
        ok = sum(1 for x in checks if x.judged == "agrees")
        rest.append(f"{len(checks)} model check(s) ({ok} hold)")
    counted = sum(1 for x in comparisons if x.verdict == COUNTED_IN and not x.setting)
    if counted:
        rest.append(f"{counted} point(s) counted in another claim")
    return head + ("; not tallied: " + ", ".join(rest) if rest else "")


def rounds_not_done(row: Any, table: str) -> float:
    """Rounds a point's apps asked for that its ``queries`` (partition/
    aggregate) or ``blocks`` (synchronized reads) table lacks: those tables
    hold finished rounds only, so a round still running at ``stop`` is in no
    row (a count of NaN completion times there is always 0). From the
    point's ``scenario.json``; NaN when it is not there."""
    d = Path(row["dir"] if not isinstance(row, (str, os.PathLike)) else row)
    kind, key = {"queries": ("partition_aggregate", "queries"), "blocks": ("sync_reads", "blocks")}[table]
    try:
        doc = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return math.nan
    # an app without the key runs the core's default, as its schema states it
    default = app_default(kind, key)
    asked = sum(int(a.get(key, default)) for a in doc.get("apps", []) if isinstance(a, dict) and a.get("kind") == kind)
    return float(max(0, asked - len(read_table(d, table))))


@lru_cache(maxsize=None)
def app_default(kind: str, key: str) -> int:
    """The core's default of an integer ``key`` of the app of ``kind``
    (``queries`` of a ``partition_aggregate`` app, ``blocks`` of a
    ``sync_reads`` one): its ``x-default`` in the scenario schema
    (``dcnsim._core.schema()``), the one place the core states it."""
    from .. import _core

    defs = json.loads(_core.schema()).get("$defs", {})
    for d in defs.values():
        props = d.get("properties", {}) if isinstance(d, dict) else {}
        if props.get("kind", {}).get("const") == kind and key in props:
            return int(props[key]["x-default"])
    raise KeyError(f"the scenario schema has no default of {kind}'s {key!r}")


def seed_label(label: str, seed: int) -> str:
    """A point's label on ``seed``: seed 1's is the label itself (the
    points of one-seed runs keep their directories and resume), the others
    add ``-s2``, ``-s3``, ... (:func:`fold_seeds` folds them back)."""
    return label if seed == 1 else f"{label}-s{seed}"


def fold_seeds(df, keys: Sequence[str], agg: Dict[str, str], first: Sequence[str] = ("label",)):
    """Per-run rows (a ``seed`` column) as one row per ``keys`` value, with
    ``seeds`` the number of seeds. A frame of one seed stays as it is. A
    point of several takes ``first``'s columns (its label and parameters)
    from its first seed and each other column by ``agg``: ``"sum"`` (a
    count that is a run's total), ``"max"``, ``"ci:COL"`` (the Student-t
    95 % half-width over the seeds' ``COL``), else the mean over the seeds
    that have a value (NaN where none has) for a number, the first seed's
    for anything else; and no ``seed`` column (the row is no one seed's).
    The papers' figures judge a point on its seeds' mean with this
    interval, not on one seed's run (docs/extending.md)."""
    import numpy as np
    import pandas as pd

    from ..analysis import ci95

    if not len(df) or "seed" not in df.columns or df["seed"].nunique() <= 1:
        return df.assign(seeds=1)
    take = [c for c in first if c in df.columns]
    take += [k for k in keys if k not in take]
    out = []
    # (column, point, values, seeds) of intervals over fewer seeds than the point has
    short: List[Tuple[str, Dict[str, Any], int, int]] = []
    # in the order of the points' first runs (a stable sort keeps it)
    for _, g in df.sort_values("seed", kind="stable").groupby(list(keys), sort=False, dropna=False):
        rec: Dict[str, Any] = {k: g[k].iloc[0] for k in take}
        rec["seeds"] = len(g)
        if len(g) == 1:
            out.append({**rec, **{c: v for c, v in g.iloc[0].items() if c != "seed"}})
            continue
        for c in g.columns:
            if c in rec or c == "seed":
                continue
            how = agg.get(c, "mean")
            if how.startswith("ci:"):
                vals = g[how[3:]].astype(float)
                rec[c] = float(ci95(vals.tolist())[1])
                if 0 < vals.notna().sum() < len(g):
                    short.append((how[3:], {k: rec[k] for k in keys}, int(vals.notna().sum()), len(g)))
            elif how == "sum":
                rec[c] = float(g[c].astype(float).sum())
            elif how == "max":
                rec[c] = float(g[c].astype(float).max())
            elif pd.api.types.is_numeric_dtype(g[c]) and not pd.api.types.is_bool_dtype(g[c]):
                rec[c] = float(np.nanmean(g[c].astype(float))) if g[c].notna().any() else math.nan
            else:
                rec[c] = g[c].iloc[0]
        out.append(rec)
    if short:
        col, point, have, of = short[0]
        more = f" (and at {len(short) - 1} more point(s))" if len(short) > 1 else ""
        warnings.warn(DcnsimWarning("seeds", f"{col} has no value in {of - have} of {of} seeds at "
                                    f"{', '.join(f'{k}={v}' for k, v in point.items())}{more}: its mean and 95 % "
                                    f"interval there are over the other {have} (a run with nothing to measure, "
                                    "such as no completed block, is left out, not counted as 0)"),
                      stacklevel=caller_stacklevel())
    return pd.DataFrame(out)


def table_version(point_dir: Union[str, os.PathLike], table: str) -> float:
    """The modification time of a point's ``table`` (CSV or Parquet, as
    ``read_table`` finds it; 0 when it has none): what an analysis caches
    of a table is keyed by it, so a point written again is read again."""
    p = _tables.table_file(point_dir, table)
    return p.stat().st_mtime if p is not None else 0.0


def read_table(row: Any, table: str, columns: Optional[Sequence[str]] = None):
    """A point's result table (``queries``, ``flows``, ``queues``, ``blocks``)
    as a DataFrame; ``row`` is a summary row (with ``dir``) or a directory.
    ``columns``: only these (the others are not parsed)."""
    d = row["dir"] if not isinstance(row, (str, os.PathLike)) else row
    return _tables.read_table(d, table, columns)


# ---------------------------------------------------------------- the runner


def only_read_keys(tcp: Dict[str, Any]) -> Dict[str, Any]:
    """A builder's [tcp] table without the keys its own settings leave
    unread: the papers' stacks name their recovery rate (``reduction``),
    delayed-ACK timing and DCTCP gain for every series, and the core warns
    about a key nothing reads (docs/scenario.md). Dropping them changes no
    result; a series that turns SACK, delayed ACKs or DCTCP on keeps them."""
    out = dict(tcp)
    if not out.get("sack"):
        out.pop("reduction", None)
    if not out.get("delayed_ack"):
        for k in ("delayed_ack_segments", "delayed_ack_timeout", "delayed_ack_quickack"):
            out.pop(k, None)
    if out.get("cc", "newreno") != "dctcp":
        for k in ("dctcp_g", "dctcp_alpha_init"):
            out.pop(k, None)
    return out


def count_points(figures: Sequence[Figure], quick: bool) -> int:
    """How many simulations ``figures`` run: their points' distinct labels,
    as :func:`_collect` merges them, without canonicalizing every scenario
    (a `--list` of FaST's 11,587 points spent 7 of its 10 s in json)."""
    labels = set()
    for fig in figures:
        for p in fig.points(quick):
            labels.add(p.label if isinstance(p, Point) else p[0])
    return len(labels)


def _collect(figures: Sequence[Figure], quick: bool):
    """Points of every figure, deduplicated by label; per figure, its labels."""
    from ..scenario import as_dict

    def plain(doc):
        # figures build plain dicts; json is much faster than as_dict's deep copy
        if isinstance(doc, dict):
            try:
                text = json.dumps(doc, sort_keys=True, allow_nan=False)
                return json.loads(text), text
            except (TypeError, ValueError):
                pass
        d = as_dict(doc)
        return d, json.dumps(d, sort_keys=True)

    merged: Dict[str, Point] = {}
    canon: Dict[str, str] = {}
    per_fig: Dict[str, List[str]] = {}
    for fig in figures:
        labels = []
        for p in fig.points(quick):
            if not isinstance(p, Point):
                p = Point(*p)
            doc, text = plain(p.scenario)
            if p.seed is not None:
                doc["seed"] = p.seed
                text = json.dumps(doc, sort_keys=True)
            if p.label in merged:
                if canon[p.label] != text:
                    raise ValueError(f"figure {fig.id}: point {p.label!r} is also used by another figure "
                                     "with a different scenario")
                # merge params (a shared point keeps every figure's columns)
                for k, v in p.params.items():
                    merged[p.label].params.setdefault(k, v)
            else:
                merged[p.label] = Point(p.label, doc, p.seed, dict(p.params))
                canon[p.label] = text
            labels.append(p.label)
        per_fig[fig.id] = labels
    return list(merged.values()), per_fig


def _quick_note(p: Paper, fig: Figure) -> str:
    """What a quick run's plots of ``fig`` say of it: each way it falls
    short of the full run (a figure of ours, or of our own study) or the
    paper (a figure of the paper) — fewer points, fewer seeds, the same
    points run shorter (fewer queries, a shorter stop) — so a PNG that
    leaves its directory cannot pass for the full figure, nor its error
    bars for the full run's; a figure whose quick simulations are the full
    run's says that instead of a shortfall it does not have."""
    from ..scenario import as_dict

    paper_fig = not p.own_study and not fig.setting and (fig.id[:1].isdigit() or fig.id.startswith("§"))
    whose = "the paper's" if paper_fig else "the full run's"
    quick, full = fig.points(True), fig.points(False)

    def text(q: Point) -> str:
        return json.dumps(as_dict(q.scenario), sort_keys=True)

    if [q.label for q in quick] == [f.label for f in full] and all(
            text(q) == text(f) and q.seed == f.seed for q, f in zip(quick, full)):
        return "quick run: this figure's simulations are the full run's"
    qs, fs = {q.seed for q in quick}, {f.seed for f in full}
    short = []
    # points apart from their seeds: a point on five seeds is one point
    if len(quick) / max(1, len(qs)) < len(full) / max(1, len(fs)):
        short.append("fewer points")
    if len(qs) < len(fs):
        short.append(f"{len(qs)} seed{'s' if len(qs) != 1 else ''}, not {len(fs)}")
    by_label = {(f.label, f.seed): text(f) for f in full}
    if (any(by_label.get((q.label, q.seed), text(q)) != text(q) for q in quick)
            or _longest(quick) < _longest(full) or not short):
        # a point of the full run's label run otherwise, a shorter stop or
        # fewer queries (a quick point is labelled by its own length), or
        # as many points on as many seeds, each cut short
        short.append("shorter runs")
    return f"quick run, against {whose}: {'; '.join(short)} (report.md says how much)"


def _longest(points: Sequence[Point]) -> Tuple[float, int]:
    """The longest stop among ``points`` and their most queries or blocks of
    an app: how long the figure's runs are."""
    from ..scenario import as_dict
    from ..units import parse_time

    stop, most = 0.0, 0
    for q in points:
        d = as_dict(q.scenario)
        if d.get("stop") is not None:
            stop = max(stop, parse_time(str(d["stop"])))
        for a in d.get("apps") or []:
            most = max(most, *(int(a.get(k) or 0) for k in ("queries", "blocks")))
    return stop, most


def _write_csv(path: Path, df) -> None:
    atomic_write(path, lambda fh: df.to_csv(fh, index=False, lineterminator="\n"))


def reproduce(
    paper: Union[str, Paper],
    figures: Optional[Sequence[str]] = None,
    quick: bool = False,
    out: Optional[Union[str, os.PathLike]] = None,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    echo: Optional[Callable[[str], None]] = print,
    format: str = "csv",
    cluster: Optional[str] = None,
    ties: Optional[str] = None,
) -> Report:
    """Run ``paper``'s figures (all, or the ids in ``figures``) and write
    tables, plots and ``report.md`` to ``out`` (default
    ``dcnsim-repro/<paper>``, or ``dcnsim-repro/<paper>-quick`` with
    ``quick``). All points go into one parallel sweep (``jobs`` worker
    processes, default all cores, or the workers of the Dask cluster at
    ``cluster``) under ``<out>/runs``; rerunning resumes.
    ``echo`` receives the printed report (``None``: silent).

    ``ties`` (``"fifo"`` or ``"seeded"``) sets the order of equal-time
    events in every simulation, as the scenario key ``ties`` does; the
    default is the papers' modules' own (the engine's default, seeded).
    ``"fifo"`` is ns-2's and ns-3's order, the papers' simulators': a
    reviewer compares the two with one command each. Its default
    directory gets the order's name (``dcnsim-repro/<paper>-fifo``, ``<paper>-quick-fifo`` when quick), and
    report.md never merges figures run under another order."""
    import pandas as pd

    if ties is not None and ties not in TIES:
        raise ValueError(f"ties: {ties!r} is not an order of equal-time events (one of {', '.join(TIES)})")
    t0 = time.perf_counter()
    p = get_paper(paper) if isinstance(paper, str) else paper
    figs = p.select(figures)
    default_dir = p.key + ("-quick" if quick else "") + (f"-{ties}" if ties else "")
    out_dir = Path(out) if out is not None else Path("dcnsim-repro") / default_dir
    # a bad path fails now, not after the simulations; ~ is the home directory (it was checked
    # there, and written at ./~)
    out_dir = check_out_dir(out_dir)
    # DIR held from here to its report: a second reproduce into it (the
    # same command in another terminal, another figure) is refused at once,
    # instead of analysing beside this one and writing a report.md without
    # this one's figures; a DIR made here goes again if nothing was written
    # (a cluster that cannot be reached, Ctrl-C before the first point)
    with dir_lock(out_dir):
        points, per_fig = _collect(figs, quick)
        if ties is not None:
            for pt in points:
                pt.scenario["ties"] = ties
        _claim_out(out_dir, p, quick, ties, default_dir, points, figs)
        say = echo or (lambda s: None)

        n_jobs = max(1, jobs or os.cpu_count() or 1)
        where = f"the Dask cluster at {cluster}" if cluster else f"{n_jobs} worker(s)"
        order = f", ties = {ties}" if ties else ""
        say(f"{p.title} — reproducing {', '.join(f.id for f in figs)} "
            f"({'quick' if quick else 'full'} run{order}): {len(points)} simulations on {where}, results in {out_dir}/")
        runs = out_dir / "runs"
        df = run_sweep(points, runs, jobs=n_jobs, progress=progress, format=format, cluster=cluster)
        # Ctrl-C from here on finds every simulation done: said so (the
        # command's line said "pending ones were cancelled" and nothing of
        # the report left unwritten)
        report_written = False
        # The figures are analysed into a staging directory and put in
        # place together, just before their sections and report.md: a
        # reproduce cut off in the analysis (Ctrl-C, SIGKILL) leaves the
        # earlier figures beside the earlier report, never new figures
        # beside a report of others. One killed outright leaves its stage,
        # removed here the next time (the directory is locked: no other
        # reproduce is using one).
        for old in out_dir.glob(".analysis-*.tmp"):
            shutil.rmtree(old, ignore_errors=True)
        stage = out_dir / f".analysis-{os.getpid()}.tmp"
        stage.mkdir()
        try:
            if "label" not in df.columns:  # no figure needed a simulation (a model-only figure)
                df = pd.DataFrame({"label": pd.Series([], dtype=object)})
            computed = list(df.attrs.get("computed", []))
            df["dir"] = [str(point_dir(runs, lab)) for lab in df["label"]]
            by_label = df.set_index("label", drop=False)

            results: Dict[str, FigureResult] = {}
            errors: Dict[str, str] = {}
            # the figure that tallied each claim: a claim is counted once per run
            tallied_by: Dict[str, str] = {}
            for fig in figs:
                sub = by_label.loc[per_fig[fig.id]].reset_index(drop=True)
                sub.attrs["quick"] = quick
                sub.attrs["out_dir"] = str(out_dir)
                # A quick run's figures say so in their titles, wherever they are shown.
                note = _quick_note(p, fig) if quick else ""
                try:
                    with title_note(note):
                        res = fig.analyze(sub, stage)
                    if p.register is not None:
                        res.comparisons = list(res.comparisons) + p.register.statement_rows(res.comparisons)
                    res.comparisons = attribute(p, fig, res.comparisons)
                    if quick:
                        res.comparisons = _owners_left_out(p, fig, res.comparisons)
                    problems = source_problems(p, res.comparisons, fig) + register_problems(p.register, res.comparisons)
                    problems += [f"{c.claim!r} is tallied by {_fig_name_of(p, tallied_by[c.claim])} already: a claim is "
                                 "counted once" for c in res.comparisons
                                 if c.verdict in TALLIED and c.claim in tallied_by and not c.setting]
                    if problems:
                        raise ValueError("tallied claims the paper does not have, or paper claims out of its tally: "
                                         + "; ".join(problems))
                except Exception as e:  # noqa: BLE001 - reported, the other figures go on
                    if environment_failure(e):
                        # a full disk is no verdict on the figure: the earlier
                        # report stays, and the command says what to free
                        # (the file named as it would be placed, not staged)
                        if isinstance(e, OSError) and e.filename and str(stage) in str(e.filename):
                            e.filename = str(out_dir / Path(str(e.filename)).relative_to(stage))
                        raise
                    errors[fig.id] = f"{type(e).__name__}: {e}"
                    say(f"\n{_fig_name(fig)}: analysis FAILED: {errors[fig.id]}")
                    if os.environ.get("DCNSIM_DEBUG"):
                        traceback.print_exc()
                    continue
                _write_csv(stage / f"{fig.slug}.csv", res.table)
                results[fig.id] = res
                tallied_by.update({c.claim: fig.id for c in res.comparisons if c.verdict in TALLIED and c.claim
                                   and not c.setting})
                say("")
                say(format_figure_text(fig, res, stage))  # names relative to the stage: as they will be placed
            _place_staged(stage, out_dir, results.values())

            cores = sorted({f"{v}+{b}" for v, b in zip(df.get("core_version", []), df.get("core_build", []))})
            report = Report(p, out_dir, quick, results, errors, time.perf_counter() - t0,
                            len(points), len(computed), n_jobs, cores, cluster, ties)
            for fig in figs:
                _store_section(out_dir, fig, results.get(fig.id), errors.get(fig.id), cores, ties, quick, p.key)
            # report.md holds every figure reproduced in this directory under the
            # same order of ties: those of this run, and the sections earlier runs
            # stored for the others.
            earlier = _load_sections(out_dir, [f for f in p.figures if f not in figs], ties, quick, p.key)
            merged = dataclasses.replace(
                report,
                results={**{k: v for k, (v, _e) in earlier.items() if v is not None}, **results},
                errors={**{k: e for k, (_v, e) in earlier.items() if e is not None}, **errors},
            )
            shown = [f for f in p.figures if f in figs or f.id in earlier]
            report_md = out_dir / "report.md"
            atomic_write(report_md, lambda fh: fh.write(format_report_md(merged, shown, earlier=list(earlier))))
            report_written = True
            say("")
            say(format_settings_text(p))
            say("")
            say(f"summary: {report.tally_text()}")
            if report.beyond_text():
                say(f"beyond the paper: {report.beyond_text()}")
            say(_computed_by(cores, len(points)))
            say(f"wall time {report.wall_s:.1f} s ({_runs_text(report.n_computed, report.n_points, 'run now', '')}); "
                f"report: {report_md}")
            if errors:
                say(f"analysis failed for: {', '.join(errors)}")
            return report
        except KeyboardInterrupt as e:
            e.simulations_done = True  # type: ignore[attr-defined]
            e.report_written = report_written  # type: ignore[attr-defined]
            raise
        finally:
            shutil.rmtree(stage, ignore_errors=True)


def _place_staged(stage: Path, out_dir: Path, results: Iterable[FigureResult]) -> None:
    """Every file the analyses wrote under ``stage`` moved to the same
    place under ``out_dir`` (replacing the earlier figures'), and the
    results' plots named there."""
    for f in sorted(stage.rglob("*")):
        if f.is_file():
            target = out_dir / f.relative_to(stage)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, target)
    for res in results:
        res.figures = [out_dir / Path(f).relative_to(stage) if Path(f).is_relative_to(stage) else f
                       for f in res.figures]


_REPORT_TITLE = re.compile(r"# (.*) — reproduced with dcnsim")
_REPORT_RUN = re.compile(r"; (quick|full) run(?:, ties = ([a-z]+))?; ")


def _report_owner(out_dir: Path) -> Optional[Tuple[str, bool, Optional[str]]]:
    """Whose reproduction ``out_dir``'s report.md is: (paper title, quick,
    ties), None without a report.md. A report written before its header
    named the order of ties takes it from the sections beside it of its
    run (quick or full). Raises OutputDirError for a report.md dcnsim did
    not write."""
    from ..errors import OutputDirError

    path = out_dir / "report.md"
    try:
        with open(path, encoding="utf-8") as fh:
            head = [fh.readline() for _ in range(6)]
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise OutputDirError(f"{out_dir}: cannot read its report.md ({why}): this reproduce's report would "
                             "replace it; move it away, or give this reproduce another --out") from None
    title = _REPORT_TITLE.fullmatch(head[0].rstrip("\n"))
    run = next((m for m in map(_REPORT_RUN.search, head) if m), None)
    if title is None or run is None:
        raise OutputDirError(f"{out_dir}: holds a report.md that is not a dcnsim reproduction's: this "
                             "reproduce's report would replace it; move it away, or give this reproduce another "
                             "--out")
    quick = run.group(1) == "quick"
    ties = run.group(2)
    if ties is None:
        orders = set()
        for f in out_dir.glob("*.report.json"):
            try:
                rec = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(rec, dict) and bool(rec.get("quick", False)) == quick:
                orders.add(rec.get("ties"))
        ties = orders.pop() if len(orders) == 1 else None
    return title.group(1), quick, ties


def _runs_text(computed: int, total: int, now: str, where: str) -> str:
    """How many of a report's simulations ran for it and how many were
    resumed (``where``: from where), naming only the part there is."""
    noun = "simulation" if total == 1 else "simulations"
    if computed >= total:
        return f"{'all ' if total > 1 else ''}{total:,} {noun} {now}"
    if computed == 0:
        return f"{'all ' if total > 1 else ''}{total:,} {noun} resumed{where}"
    return f"{computed:,} of {total:,} {noun} {now}, the rest resumed{where}"


def _claim_figures(p: Paper) -> Dict[str, str]:
    """The figure of each claim of ``p``'s register, as its last full run
    recorded them (none where no record can be read)."""
    from .tallies import load_results

    try:
        out = {k: str(v.get("figure", "")) for k, v in load_results(p)["rows"].items()}
    except (OSError, ValueError):
        return {}
    # a claim of parts has no row of its own: its parts' figure is its
    # (else a run of other figures counted it as not run)
    reg = p.register
    for c in reg.claims if reg is not None else ():
        if c.id not in out:
            fig = next((out[i] for i in reg.parts(c.id) if i in out), None)
            if fig is not None:
                out[c.id] = fig
    return out


def _owners_left_out(p: Paper, fig: Figure, comparisons: List[Comparison]) -> List[Comparison]:
    """A quick run's rows counted in another claim of their figure that the
    quick run does not judge: their note ("the sentence is counted once, in
    X") says so, or it names a claim that no row of the report shows."""
    reg = p.register
    if reg is None:
        return comparisons
    figure_of = _claim_figures(p)
    judged = {c.claim for c in comparisons if c.verdict in TALLIED + ("untestable",)}
    out = []
    for c in comparisons:
        owners = reg[c.claim].counted_in if c.verdict == COUNTED_IN and c.claim in reg.by_id else ()
        left = [o for o in owners if o not in judged and figure_of.get(o) == fig.id]
        if left and c.note:
            c = dataclasses.replace(c, note=f"{c.note} (not judged in a quick run: {', '.join(left)} needs the full "
                                            "run's points)")
        out.append(c)
    return out


def _run_text(quick: bool, ties: Optional[str]) -> str:
    return f"{'quick' if quick else 'full'} run{f' (ties = {ties})' if ties else ''}"


def _doc_text(doc: Any) -> str:
    """A point's document as its run kind (quick or full, order of ties)
    makes it, CDF file paths left out (a stored ``scenario.json`` names
    its copies of them)."""
    from ..sweep import _canonical

    apps = doc.get("apps")
    if isinstance(apps, list):
        doc = {**doc, "apps": [{**a, "cdf_file": ""} if isinstance(a, dict) and "cdf_file" in a else a
                               for a in apps]}
    return _canonical(doc)


def _runs_owner(out_dir: Path, figs: Sequence[Figure], quick: bool, ties: Optional[str],
                points: Sequence[Point]) -> Optional[Tuple[bool, Optional[str], int]]:
    """Without a report.md (a reproduction interrupted before it wrote
    one): whether ``runs/`` holds complete simulations of this paper's
    other kind of run (quick for a full one or the other way round,
    another order of ties) under labels of ``points``, which this run would
    replace: (its quick, its ties, how many), None when it holds none.
    The other kind's documents are those of the same figures, ``figs``
    (a label two figures share is one scenario)."""
    runs = out_dir / "runs"
    if not runs.is_dir():
        return None
    stored: Dict[str, str] = {}
    for pt in points:
        d = point_dir(runs, pt.label)
        if not (d / "summary.json").is_file():
            continue
        try:
            doc = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict):
            text = _doc_text(doc)
            if text != _doc_text(pt.scenario):
                stored[pt.label] = text
    if not stored:
        return None
    other_ties = {json.loads(t).get("ties") for t in stored.values()}
    kinds = [(q, t) for q in (quick, not quick) for t in [ties] + sorted(other_ties - {ties}, key=str)
             if (q, t) != (quick, ties)]
    by_quick: Dict[bool, Dict[str, Any]] = {quick: {pt.label: pt.scenario for pt in points}}
    for q, t in kinds:
        if q not in by_quick:
            by_quick[q] = {pt.label: pt.scenario for pt in _collect(figs, q)[0] if pt.label in stored}
        n = 0
        for label, text in stored.items():
            doc = by_quick[q].get(label)
            if doc is None:
                continue
            doc = {k: v for k, v in doc.items() if k != "ties"}
            if t is not None:
                doc["ties"] = t
            n += _doc_text(doc) == text
        if n:
            return q, t, n
    return None


def _section_papers(out_dir: Path) -> Dict[str, List[str]]:
    """The papers whose figure sections (``*.report.json``) ``out_dir``
    holds: paper key -> the sections' file names (a section written before
    sections named their paper is left out)."""
    out: Dict[str, List[str]] = {}
    for f in sorted(out_dir.glob("*.report.json")):
        try:
            rec = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict) and isinstance(rec.get("paper"), str) and rec["paper"]:
            out.setdefault(rec["paper"], []).append(f.name)
    return out


def _foreign_runs(out_dir: Path, p: Paper, quick: bool, points: Sequence[Point]) -> List[str]:
    """Complete simulations in ``runs/`` that are none of ``p``'s (its
    figures' points, quick or full as this run): another paper's
    reproduction, interrupted before its report.md and sections. Their
    directory names, sorted; the paper's every figure is collected only
    when ``runs/`` holds some outside this run's ``points``."""
    runs = out_dir / "runs"
    if not runs.is_dir():
        return []
    done = {d.name for d in runs.iterdir() if (d / "summary.json").is_file()}
    strangers = done - {point_dir(runs, pt.label).name for pt in points}
    if not strangers:
        return []
    mine = {point_dir(runs, pt.label).name for q in (quick, not quick) for pt in _collect(p.figures, q)[0]}
    return sorted(strangers - mine)


def _refuse_files_in_the_way(out_dir: Path, figs: Sequence[Figure]) -> None:
    """Refuse a directory that holds no reproduction of ``figs`` (no
    report.md, no section of theirs, none of the run's simulations) but
    files this one writes (``fig4.csv``,
    ``fig4.png``: a user's own, or a paper's figures folder): they would be
    replaced without a word, as ``dcnsim run --out`` refuses to replace a
    ``flows.csv`` of no run."""
    from ..errors import OutputDirError

    names = sorted({f.name for fig in figs for f in out_dir.glob(f"{glob.escape(fig.slug)}.*") if f.is_file()})
    if not names:
        return
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    raise OutputDirError(f"{out_dir}: holds {shown}, which this reproduce writes, but no reproduction of them (no "
                         "report.md, no figure section of this paper's, no simulation of this run's in runs/): they "
                         "would be replaced; move them away, or give this reproduce another --out")


def _claim_out(out_dir: Path, p: Paper, quick: bool, ties: Optional[str], default_dir: str,
               points: Sequence[Point], figs: Sequence[Figure]) -> None:
    """Refuse a reproduce into a directory whose report.md is another's:
    another paper's, or this paper's quick run for a full one (or the
    other way round), or under another order of ties. Its report would be
    replaced, and its simulations in ``runs/`` too where their labels are
    this run's (a quick run's points replaced a full run's). The same
    run, of any of the paper's figures, merges into the report. Without
    a report.md nor figure sections (that run interrupted before it wrote
    them), its complete simulations in ``runs/`` among this run's
    ``points`` (of ``figs``) say whose it is."""
    from ..errors import OutputDirError
    from .registry import paper_keys

    owner = _report_owner(out_dir)
    if owner is None:
        # Another paper's figure sections, or its simulations in runs/ (a
        # reproduction interrupted before its report.md): its figures would
        # be merged into this report (both papers have a Fig. 4), and its
        # printed "resume with" refused once this run wrote a report.md.
        papers = _section_papers(out_dir)
        others = {k: v for k, v in papers.items() if k != p.key}
        if others:
            other, names = next(iter(others.items()))
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            raise OutputDirError(
                f"{out_dir}: holds figure sections of {other}'s reproduction ({shown}) without its report.md; this "
                f"{p.key} {_run_text(quick, ties)} would mix its report and figures with them. Give this one another "
                f"--out (its default is dcnsim-repro/{default_dir}), or rerun {other}'s own command there to finish it")
        foreign = _foreign_runs(out_dir, p, quick, points)
        if foreign:
            raise OutputDirError(
                f"{out_dir}: holds {len(foreign):,} complete simulation(s) in runs/ that are none of {p.key}'s (e.g. "
                f"{foreign[0]}): another reproduction's, interrupted before its report.md. Rerun that reproduction's "
                f"own command to resume it, or give this one another --out (its default is "
                f"dcnsim-repro/{default_dir})")
        # a report.md moved away (as the refusal below says) leaves the
        # figures' sections: its runs are then given up knowingly
        own = set(papers.get(p.key, []))
        sections = any(out_dir.glob("*.report.json"))
        found = None if sections else _runs_owner(out_dir, figs, quick, ties, points)
        if found is None:
            # a figure's files are this paper's beside its own section, or
            # in a directory whose runs/ holds this run's simulations (an
            # analysis cut off between placing figures and their sections);
            # a user's fig4.png is no less theirs for a runs/ beside it
            runs = out_dir / "runs"
            mine = runs.is_dir() and any((point_dir(runs, pt.label) / "summary.json").is_file() for pt in points)
            if not mine:
                _refuse_files_in_the_way(out_dir, [f for f in figs if f"{f.slug}.report.json" not in own])
            return
        o_quick, o_ties, n = found
        raise OutputDirError(
            f"{out_dir}: holds {n:,} complete simulation(s) of {p.key}'s {_run_text(o_quick, o_ties)} in runs/ (a "
            f"reproduction interrupted before its report.md); this {p.key} {_run_text(quick, ties)} would replace "
            f"them, as they share labels with its own. Rerun that reproduction's own command to resume it, give "
            f"this one another --out (its default is dcnsim-repro/{default_dir}), or move {out_dir / 'runs'} away "
            "to start anew there")
    if owner == (p.title, quick, ties):
        return
    title, o_quick, o_ties = owner
    if title == p.title:
        theirs = f"{p.key}'s {_run_text(o_quick, o_ties)}"
        # the same paper's other kind of run: its sections are kept apart by kind
        anew = f", or move {out_dir / 'report.md'} away to start a new report there"
    else:
        key = next((k for k in paper_keys() if get_paper(k).title == title), None)
        theirs = f"{key}'s {_run_text(o_quick, o_ties)}" if key else f"the {_run_text(o_quick, o_ties)} of {title!r}"
        # another paper's figures and sections would stay beside this one's
        anew = ""
    raise OutputDirError(
        f"{out_dir}: holds the reproduction of {theirs} (report.md); this {p.key} {_run_text(quick, ties)} would "
        f"replace its report and figures, and its simulations in runs/ that share a label with this run's. Rerun "
        f"that reproduction's own command to resume it, or give this one another --out (its default is "
        f"dcnsim-repro/{default_dir}){anew}")


# ---------------------------------------------------------------- formatting


def _json_value(v: Any) -> Any:
    if hasattr(v, "item"):  # numpy scalar
        return v.item()
    return str(v)


def _rel(f: Any, out_dir: Optional[Path]) -> str:
    """A plot's path as the report links it: relative to the run's
    directory, so a variant's plots in a subdirectory (``in_subdir``) are
    linked there, not to the tallied plots of the same names."""
    path = Path(f)
    if out_dir is None:
        return path.name
    if not path.is_absolute() and (Path(out_dir) / path).exists():
        return path.as_posix()  # already relative to the run (a stored section's)
    try:
        return path.resolve().relative_to(Path(out_dir).resolve()).as_posix()
    except ValueError:
        return path.name


def _store_section(out_dir: Path, fig: Figure, res: Optional[FigureResult], error: Optional[str],
                   cores: List[str], ties: Optional[str] = None, quick: bool = False, paper: str = "") -> None:
    """What report.md shows of ``fig``, kept beside its table
    (``<slug>.report.json``) for later runs of other figures to merge;
    ``ties``: the order the run set, if it set one; ``paper``: whose figure
    it is (two papers have a Fig. 4: a section is merged into its own
    paper's report only)."""
    rec: Dict[str, Any] = {"id": fig.id, "paper": paper, "cores": cores, "error": error, "quick": quick}
    if ties is not None:
        rec["ties"] = ties
    if res is not None:
        rec.update(figures=[_rel(f, out_dir) for f in res.figures], notes=list(res.notes),
                   comparisons=[dataclasses.asdict(c) for c in res.comparisons])
    text = json.dumps(rec, indent=1, allow_nan=True, default=_json_value)
    atomic_write(out_dir / f"{fig.slug}.report.json", lambda fh: fh.write(text + "\n"))


def _load_sections(out_dir: Path, figs: Sequence[Figure], ties: Optional[str] = None, quick: bool = False,
                   paper: str = ""):
    """The stored sections of ``figs`` (those an earlier run wrote under
    the same ``ties``, quick or full as this one): id -> (FigureResult or
    None, error or None). A section that no longer reads (another
    version's format), that ran under another order of ties, or a quick
    section in a full run's report (or the other way round), is left out,
    as if never run."""
    out: Dict[str, Any] = {}
    for fig in figs:
        path = out_dir / f"{fig.slug}.report.json"
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
            if rec.get("id") != fig.id or rec.get("ties") != ties or bool(rec.get("quick", False)) != quick:
                continue
            if rec.get("paper") and paper and rec["paper"] != paper:
                continue  # another paper's figure of the same number
            if rec.get("error") is not None:
                out[fig.id] = (None, str(rec["error"]))
                continue
            comps = [Comparison(**c) for c in rec.get("comparisons", [])]
            res = FigureResult(None, [out_dir / f for f in rec.get("figures", [])], comps, list(rec.get("notes", [])))
            out[fig.id] = (res, None)
        except (OSError, ValueError, TypeError):
            continue
    return out


def _fig_name_of(p: Paper, fig_id: str) -> str:
    return next((_fig_name(f) for f in p.figures if f.id == fig_id), fig_id)


def _fig_name(fig: Figure) -> str:
    if fig.id.startswith("§"):
        return fig.id
    if fig.id[:1].isdigit():
        return f"Fig. {fig.id}"
    return fig.id


def _table_text(rows: List[List[str]], header: List[str], first_max: int = 56, col_max: int = 40) -> str:
    """Aligned columns; a first cell longer than ``first_max`` gets its own
    line and the values go on the next, indented. No column is padded past
    ``col_max``: a longer cell runs over its own row only (padding every row
    to one long criterion made lines of 1,400 characters)."""
    widths = [min(max([len(h)] + [len(r[i]) for r in rows if i or len(r[i]) <= first_max]), col_max if i else first_max)
              for i, h in enumerate(header)]

    def line(cells):
        return "  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    for r in rows:
        if len(r[0]) > first_max:
            out.append("  " + r[0])
            out.append(line([""] + list(r[1:])))
        else:
            out.append(line(r))
    return "\n".join(out)


def format_figure_text(fig: Figure, res: FigureResult, out_dir: Optional[Path] = None) -> str:
    lines = [f"{_fig_name(fig)} — {fig.title}"]
    if fig.paper_says:
        lines.append(f"  paper: {fig.paper_says}")
    mine = [c for c in res.comparisons if not c.beyond]
    extra = [c for c in res.comparisons if c.beyond]
    rows = [[c.quantity, c.ours_text(), c.paper_text(), c.criterion_text(), c.verdict_text()] for c in mine]
    if rows:
        lines.append(_table_text(rows, ["quantity", "ours", "paper", "criterion", "verdict"]))
    if extra:
        lines.append("  beyond the paper (our variants, judged the same way, not tallied):")
        lines.append(_table_text([[c.quantity, c.ours_text(), c.setting or c.series, c.criterion_text(),
                                   c.judged or "—"] for c in extra],
                                 ["quantity", "ours", "variant", "criterion", "our criterion gives"]))
    notes = [f"{c.quantity}: {c.note}" for c in res.comparisons
             if c.note and c.verdict in ("differs", "close", "trend agrees", "untestable", "formula check",
                                         NOT_MODELLED, MODEL_CHECK, COUNTED_IN)]
    for n in notes + list(res.notes):
        lines.append(f"  * {n}")
    if res.figures:
        lines.append("  files: " + ", ".join(_rel(f, out_dir) for f in res.figures) + f", {fig.slug}.csv")
    return "\n".join(lines)


def format_settings_text(p: Paper) -> str:
    if not p.settings:
        return ""
    lines = ["settings the paper leaves implicit (our values):"]
    w = max(len(s.name) for s in p.settings)
    for s in p.settings:
        extra = f"  [also shown: {s.alternatives}]" if s.alternatives else ""
        lines.append(f"  {s.name.ljust(w)}  {s.value}{extra}")
    return "\n".join(lines)


def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _computed_by(cores: Sequence[str], n_points: int, hash_note: str = "") -> str:
    """Which cores computed a report's points; a report of models alone
    had none to name (not an unknown one)."""
    if not cores and n_points == 0:
        return "no simulation: these figures are models alone"
    return f"computed by dcnsim core {', '.join(cores) or 'unknown'}{hash_note}"


def format_report_md(report: Report, figs: Sequence[Figure], earlier: Sequence[str] = ()) -> str:
    """The report of ``figs``; ``earlier``: ids of figures whose sections
    come from earlier runs in the same directory (said in the header)."""
    from .. import __version__

    p = report.paper
    out: List[str] = [f"# {p.title} — reproduced with dcnsim", ""]
    out.append(f"{p.citation}")
    out.append("")
    computed = _computed_by(report.cores, report.n_points, " (version+build hash of the Rust sources)")
    out.append(f"dcnsim {__version__}, {computed}; "
               f"{'quick' if report.quick else 'full'} run{f', ties = {report.ties}' if report.ties else ''}; "
               f"{_runs_text(report.n_computed, report.n_points, 'run for this report', ' from `runs/`')}; "
               f"{_ran_on(report)}; wall time {report.wall_s:.1f} s.")
    if earlier:
        names = ", ".join(_fig_name(f) for f in figs if f.id in earlier)
        out.append(f"{names}: from earlier runs in this directory (`dcnsim reproduce --figure` merges its "
                   "figures into this report); the simulation counts above are this run's, the tally covers every figure below.")
    if p.docs:
        out.append(f"Why our numbers differ from the paper's: {p.docs}.")
    out.append("")
    if p.own_study:
        out.append("**No tally:** our own study, not a paper's; its rows are our values, to read against the "
                   "study's baseline.")
    else:
        # the qualifier before the list: after it, it read as said of its last item
        out.append(f"**Tally** (the paper's own claims, in its own setup): {report.tally_text()}.")
        out.append("")
        if report.beyond_text():
            out.append(f"**Beyond the paper:** {report.beyond_text()}. These rows come from settings or series "
                       "of ours the paper does not have; each figure lists them in its own table.")
            out.append("")
        out.append("Each claim is judged by the criterion in its row. \"trend agrees\": the claim's stated criterion "
                   "fails but its weaker trend criterion (also printed) holds. \"untestable\" (could not be measured), "
                   "\"formula check\" (the paper's own formula evaluated) and \"not in paper\" (our reference values) "
                   "are not counted.")
    out.append("")
    if p.setup:
        out += ["## Setup", "", p.setup, ""]
        if report.quick and p.quick_setup:
            out += [f"**This quick run:** {p.quick_setup}", ""]
    if p.settings:
        out += ["## Settings the paper leaves implicit", "",
                "| setting | our value | why | also shown |", "|---|---|---|---|"]
        for s in p.settings:
            out.append(f"| {_md_cell(s.name)} | {_md_cell(s.value)} | {_md_cell(s.why)} | {_md_cell(s.alternatives or '—')} |")
        out.append("")
    for fig in figs:
        out.append(f"## {_fig_name(fig)} — {fig.title}")
        out.append("")
        if fig.id in report.errors:
            out += [f"**Analysis failed:** `{report.errors[fig.id]}`", ""]
            continue
        res = report.results[fig.id]
        if fig.paper_says:
            out += [f"*Paper:* {fig.paper_says}", ""]
        mine = [c for c in res.comparisons if not c.beyond]
        extra = [c for c in res.comparisons if c.beyond]
        if mine:
            out += ["| quantity | series | ours | paper | criterion | verdict | note |",
                    "|---|---|---|---|---|---|---|"]
            for cmp in mine:
                out.append(f"| {_md_cell(cmp.quantity)} | {_md_cell(cmp.series or '—')} | {_md_cell(cmp.ours_text())} "
                           f"| {_md_cell(cmp.paper_text())} | {_md_cell(cmp.criterion_text())} | {cmp.verdict_text()} "
                           f"| {_md_cell(cmp.note)} |")
            out.append("")
        if extra:
            out += ["*Beyond the paper* (our variants, judged by the same criteria, not in the tally):", "",
                    "| quantity | variant | ours | paper's value for its own setup | criterion | our criterion gives "
                    "| note |", "|---|---|---|---|---|---|---|"]
            for cmp in extra:
                out.append(f"| {_md_cell(cmp.quantity)} | {_md_cell(cmp.setting or cmp.series)} "
                           f"| {_md_cell(cmp.ours_text())} | {_md_cell(cmp.paper_text())} "
                           f"| {_md_cell(cmp.criterion_text())} | {cmp.judged or '—'} | {_md_cell(cmp.note)} |")
            out.append("")
        for f in res.figures:
            out += [f"![{_fig_name(fig)}]({_rel(f, report.out_dir)})", ""]
        for n in res.notes:
            out.append(f"* {n}")
        if res.notes:
            out.append("")
        out.append(f"Data: `{fig.slug}.csv`.")
        out.append("")
    return "\n".join(out)


def _ran_on(report: Report) -> str:
    """Where the report's simulations ran: a cluster's points ignore ``jobs``."""
    return f"on the Dask cluster at {report.cluster}" if report.cluster else f"{report.jobs} worker process(es)"
