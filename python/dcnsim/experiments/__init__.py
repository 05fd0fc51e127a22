"""Reproductions of the source papers' experiments (``dcnsim reproduce``).

* :mod:`.framework` — :func:`reproduce` (one parallel, resumable sweep for
  all selected figures, then per-figure tables, plots and a ``report.md``)
  and the comparison helpers.
* :mod:`.paper` — what a reproduction is made of (:class:`Paper`,
  :class:`Figure`, :class:`Comparison`, ...), which both others import.
* :mod:`.registry` — which papers (and our own studies) exist.
* one package per paper (:mod:`.fast`, :mod:`.kulkarni`, :mod:`.tcprand`,
  :mod:`.rps`): ``common`` (constants, scenarios, readers), a module per
  figure family, and ``PAPER`` in its ``__init__``; TCPRand's Fig. 11 is
  :mod:`.tcprand.fct`, also reproducible alone as ``tcprand_fct``.
* one package per study of our own (:mod:`.linux_profile`): the same
  shape, no paper to compare with.
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
