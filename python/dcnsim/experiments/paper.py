"""What a reproduction is made of: a :class:`Paper` (or one of our own
studies) holds :class:`Figure` specs; a figure's analysis returns a
:class:`FigureResult` whose :class:`Comparison` rows put our numbers next
to the paper's; :class:`Setting` records what the paper leaves implicit.

Plain data, no runner: :mod:`.registry` (which papers exist) and
:mod:`.framework` (the sweep, the analysis, the report) both build on it, so
neither needs the other to name a paper.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ..sweep import Point

__all__ = [
    "Comparison",
    "FigureResult",
    "Figure",
    "Setting",
    "Paper",
    "VERDICTS",
    "TALLIED",
    "NOT_MODELLED",
    "MODEL_CHECK",
    "COUNTED_IN",
]

#: Verdicts a comparison may carry. The first four are the tally: a claim of
#: the paper tested against our run by its printed criterion. "untestable":
#: the claim could not be measured in our run (no value, no event to count).
#: "formula check": the paper's own formula evaluated with its own inputs
#: (arithmetic, not a test of the physics). "not in paper": a reference value
#: of ours with nothing to compare it with. "testbed not modelled": a claim
#: measured on the paper's hardware testbed, whose stack and switches we do
#: not model; our number is shown, the reason is its note.
#: "model check": an entry of the paper's claims register that holds by the
#: construction of the model or the setup (a physical bound, a property of
#: uniform spraying): checked and shown, its criterion's verdict kept as
#: ``judged``, never tallied (:mod:`.claims`).
#: "counted in another claim": an entry of the register that the paper
#: states in the same sentence as another (one of several points of one
#: statement) or that restates claims tallied already; judged and shown
#: beside, its verdict kept as ``judged``, and counted once, in the claim
#: that counts the statement (:mod:`.claims`).
NOT_MODELLED = "testbed not modelled"
MODEL_CHECK = "model check"
COUNTED_IN = "counted in another claim"
VERDICTS = ("agrees", "close", "trend agrees", "differs", "untestable", "formula check", "not in paper",
            NOT_MODELLED, MODEL_CHECK, COUNTED_IN)
#: The verdicts counted as tested claims.
TALLIED = ("agrees", "close", "trend agrees", "differs")


@dataclass
class Comparison:
    """One quantity, ours next to the paper's.

    ``ours`` and ``paper`` are numbers or short texts; ``paper`` is ``None``
    for a quantity the paper does not state (a reference value of ours).
    ``verdict`` is one of :data:`VERDICTS`; ``criterion`` is the rule that
    decided it (printed in every table); ``note`` says why it differs or
    how it was measured. ``matched``: for a "formula check", whether our
    evaluation gives the paper's number."""

    quantity: str
    ours: Any
    paper: Any
    verdict: str
    note: str = ""
    unit: str = ""
    #: format spec for numbers (e.g. ".4f"); default: 3 significant digits
    fmt: str = ""
    criterion: str = ""
    matched: Optional[bool] = None
    #: the paper's series (stacks, schemes) the claim is about, e.g.
    #: ``"FaST"`` or ``"NewReno; DCTCP"`` (names joined by "; ", since a
    #: name may hold a comma); empty: the figure's series
    #: (:attr:`Figure.series`), filled in by the framework for a claim's
    #: row (a reference value or a formula check stays without)
    series: str = ""
    #: empty for the paper's own setup; otherwise the variant of ours the
    #: row was measured under (a "Beyond the paper" row, never tallied)
    setting: str = ""
    #: for a "Beyond the paper" row (verdict "not in paper"): the verdict
    #: our criterion gives it, judged as the paper's rows are
    judged: Optional[str] = None
    #: the id of the register's claim that judged this row (empty: a row
    #: the figure judged itself, which a paper with a register never tallies)
    claim: str = ""
    #: what the figure measured for that claim (the register's criterion's
    #: input, JSON-able), kept so that a run's results can be judged again
    measured: Any = None
    #: the unit of ``measured``'s numbers (the criterion's, ``claims.unit_of``:
    #: empty for a count or a ratio, ``{key: unit}`` for a claim of parts in
    #: different units): ``ours`` is text with its unit, and a program
    #: reading ``measured`` from a report.json could not tell 32.2 ms from
    #: 32.2 s
    measured_unit: Any = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict in TALLIED and not self.criterion:
            raise ValueError(f"{self.quantity!r}: a {self.verdict!r} verdict needs the criterion that decided it")
        if self.verdict == NOT_MODELLED and not self.note:
            raise ValueError(f"{self.quantity!r}: a {NOT_MODELLED!r} verdict needs its reason in the note")
        if self.judged is not None:
            if self.verdict not in ("not in paper", MODEL_CHECK, COUNTED_IN, NOT_MODELLED):
                raise ValueError(f"{self.quantity!r}: only a 'not in paper', {MODEL_CHECK!r}, {COUNTED_IN!r} or "
                                 f"{NOT_MODELLED!r} row carries a judged verdict")
            if self.judged not in TALLIED + ("untestable",):
                raise ValueError(f"{self.quantity!r}: judged must be one of {TALLIED + ('untestable',)}, "
                                 f"got {self.judged!r}")

    @property
    def beyond(self) -> bool:
        """A row of our own variant (another setting or a series the paper
        does not have), judged by a criterion but never tallied."""
        return (self.judged is not None and self.verdict == "not in paper") or bool(self.setting)

    def series_names(self) -> List[str]:
        return [s.strip() for s in self.series.split(";") if s.strip()]

    def ours_text(self) -> str:
        return _fmt_value(self.ours, self.unit, self.fmt)

    def paper_text(self) -> str:
        return "—" if self.paper is None else _fmt_value(self.paper, self.unit, self.fmt)

    def criterion_text(self) -> str:
        return self.criterion or "—"

    def verdict_text(self) -> str:
        """The verdict cell: a model check shows what its criterion gives."""
        if self.verdict == MODEL_CHECK and self.judged:
            return f"{MODEL_CHECK} ({self.judged})"
        return self.verdict


@dataclass
class FigureResult:
    """What a figure's analysis returns: a tidy table (written as
    ``fig<N>.csv``), the plots it wrote, the comparisons and free notes."""

    table: Any  # pandas.DataFrame
    figures: List[Path]
    comparisons: List[Comparison]
    notes: List[str] = field(default_factory=list)


@dataclass
class Figure:
    """One figure (or table, or section) of a paper.

    ``points(quick)`` returns the sweep points it needs; two figures may
    share points by giving them the same label (the scenario must then be
    identical). ``analyze(summary, out_dir)`` gets the summary rows of its
    points, in the order ``points`` returned them, with a ``dir`` column
    (the point's result directory, see :func:`read_table`) and
    ``summary.attrs["quick"]``; it writes its plot(s) under ``out_dir`` and
    returns a :class:`FigureResult`."""

    id: str
    title: str
    points: Callable[[bool], List[Point]]
    analyze: Callable[[Any, Path], FigureResult]
    #: what the paper says (shown in the report next to our numbers)
    paper_says: str = ""
    #: file stem of the figure's table and report section, when the id's
    #: (below) is not the name the study's own outputs already have
    stem: str = ""
    #: the paper's series this figure's claims come from (a row about
    #: fewer or other series names its own); empty: all of the paper's
    series: Tuple[str, ...] = ()
    #: non-empty for a figure that is wholly our variant of the paper's
    #: setup (e.g. "host NIC queues that never drop"): its rows are judged
    #: and shown under "Beyond the paper", never tallied
    setting: str = ""
    #: non-empty for a figure measured on the paper's hardware testbed: the
    #: reason it is not modelled; its rows are shown, never tallied
    testbed: str = ""

    @property
    def slug(self) -> str:
        """File stem: ``"4"`` -> ``fig4``, ``"§3"`` -> ``sec3``."""
        if self.stem:
            return self.stem
        if self.id.startswith("§"):
            return "sec" + _slug(self.id[1:])
        if self.id[:1].isdigit():
            return "fig" + _slug(self.id)
        return _slug(self.id)

    def matches(self, wanted: str) -> bool:
        """``--figure`` selector: ``4``, ``fig4``, ``§3``, ``sec3``, ``s3``, ``3``."""
        w = wanted.strip().lower()
        ids = {self.id.lower(), self.slug, _slug(self.id)}
        if self.id.startswith("§"):
            ids |= {"s" + _slug(self.id[1:]), _slug(self.id[1:])}
        return w in ids or _slug(w) in ids


@dataclass
class Setting:
    """A setting the paper leaves implicit: the value we use, why, and
    whether (and where) the alternative is shown."""

    name: str
    value: str
    why: str = ""
    alternatives: str = ""


@dataclass
class Paper:
    key: str
    title: str
    citation: str
    figures: List[Figure]
    settings: List[Setting] = field(default_factory=list)
    #: one paragraph on the setup (topology, placement, ...), for the report
    setup: str = ""
    #: what a quick run does differently from ``setup`` (fewer queries,
    #: seeds, seconds), said in a quick run's report beside it
    quick_setup: str = ""
    #: pointer to the document explaining differences (e.g. docs/fast.md)
    docs: str = ""
    #: a study of our own (``dcnsim reproduce linux``), not a paper's: its
    #: comparisons are with its own baseline, so there is no paper tally
    own_study: bool = False
    #: every series (stack, scheme, configuration name) the paper itself
    #: plots: a tallied claim must come from these, in the paper's setup
    series: Tuple[str, ...] = ()
    #: names of our own variants (series or settings the paper does not
    #: have, e.g. "ECMP"): a tallied claim's quantity must not name one
    variants: Tuple[str, ...] = ()
    #: the paper's claims register (:class:`.claims.Register`): with one,
    #: every tallied row must be judged by it
    register: Any = None
    #: the paper whose tally counts this one's claims (``tcprand_fct`` is
    #: Fig. 11 of TCPRand: its claims are tcprand's, counted there once)
    tallied_in: str = ""

    def figure(self, wanted: str) -> Figure:
        for f in self.figures:
            if f.matches(wanted):
                return f
        raise KeyError(f"{self.key}: no figure {wanted!r} (figures: {', '.join(f.id for f in self.figures)})")

    def select(self, wanted: Optional[Sequence[str]]) -> List[Figure]:
        if not wanted:
            return list(self.figures)
        chosen: List[Figure] = []
        for w in wanted:
            # every figure the selector names: a group's alias (Kulkarni's
            # `bytes`, its five byte-counted figures) took the first alone
            hits = [f for f in self.figures if f.matches(w)] or [self.figure(w)]
            chosen.extend(f for f in hits if f not in chosen)
        # keep the paper's order
        return [f for f in self.figures if f in chosen]



def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", s.lower()) or "x"


def _fmt_value(v: Any, unit: str = "", fmt: str = "") -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if fmt and isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
        s = format(v, fmt)
        return f"{s} {unit}".strip() if unit else s
    if isinstance(v, (int,)) and not isinstance(v, bool):
        s = f"{v:,}"
    elif isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        if math.isinf(v):
            return "∞"
        a = abs(v)
        if a >= 1000:
            s = f"{v:,.0f}"
        elif a >= 100:
            s = f"{v:.0f}"
        elif a >= 10:
            s = f"{v:.1f}"
        elif a >= 1 or a == 0:
            s = f"{v:.2f}"
        else:
            s = f"{v:.3g}"
    else:
        s = str(v)
    return f"{s} {unit}".strip() if unit and not isinstance(v, str) else s
