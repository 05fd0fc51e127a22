"""Reproductions of the source papers' experiments (``dcnsim reproduce``).

* :mod:`.framework` — :class:`Figure`, :class:`FigureResult`,
  :class:`Comparison`, :class:`Paper` and :func:`reproduce` (one parallel,
  resumable sweep for all selected figures, then per-figure tables, plots
  and a ``report.md``).
* :mod:`.registry` — which papers exist (``fast`` so far).
* :mod:`.fast` — FaST (Hwang & Yoo, TIIS 2014): §3 and Figs. 4–12.
"""

from .framework import (
    VERDICTS,
    Comparison,
    Figure,
    FigureResult,
    Paper,
    Report,
    Setting,
    compare_claim,
    compare_number,
    read_table,
    reproduce,
)
from .registry import PAPERS, get_paper, paper_keys, register

__all__ = [
    "VERDICTS", "Comparison", "Figure", "FigureResult", "Paper", "Report", "Setting",
    "compare_claim", "compare_number", "read_table", "reproduce",
    "PAPERS", "get_paper", "paper_keys", "register",
]
