"""Reproductions of the source papers' experiments (``dcnsim reproduce``).

* :mod:`.framework` — :class:`Figure`, :class:`FigureResult`,
  :class:`Comparison`, :class:`Paper` and :func:`reproduce` (one parallel,
  resumable sweep for all selected figures, then per-figure tables, plots
  and a ``report.md``).
* :mod:`.registry` — which papers exist.
* one package per paper (:mod:`.fast`, :mod:`.kulkarni`, :mod:`.tcprand`,
  :mod:`.rps`): ``common`` (constants, scenarios, readers), a module per
  figure family, and ``PAPER`` in its ``__init__``; :mod:`.tcprand_fct`
  (TCPRand's Fig. 11) is one module.
"""

from .framework import (
    TALLIED,
    VERDICTS,
    Comparison,
    Figure,
    FigureResult,
    Paper,
    Report,
    Setting,
    check_formula,
    compare_claim,
    compare_number,
    read_table,
    reproduce,
    tally_text,
)
from .registry import PAPERS, get_paper, paper_keys, register

__all__ = [
    "TALLIED", "VERDICTS", "Comparison", "Figure", "FigureResult", "Paper", "Report", "Setting",
    "check_formula", "compare_claim", "compare_number", "read_table", "reproduce",
    "tally_text",
    "PAPERS", "get_paper", "paper_keys", "register",
]
