"""Which papers ``dcnsim reproduce`` knows.

A paper lives in a module that defines ``PAPER`` (a :class:`Paper`). To add
one, add its key and module here (or call :func:`register` at run time)."""

from __future__ import annotations

import importlib
from typing import Dict, List, Union

from .paper import Paper

__all__ = ["PAPERS", "get_paper", "register", "paper_keys"]

#: key -> module path (imported lazily) or an already built Paper
PAPERS: Dict[str, Union[str, Paper]] = {
    "fast": "dcnsim.experiments.fast",
    "kulkarni": "dcnsim.experiments.kulkarni",
    "tcprand": "dcnsim.experiments.tcprand",
    "rps": "dcnsim.experiments.rps",
    # our own study: listed with the papers, no paper tally (Paper.own_study)
    "linux": "dcnsim.experiments.linux_profile",
    # our own study: the seeds' incast workloads with NDP, Swift and HPCC beside the papers' schemes
    "modern": "dcnsim.experiments.modern",
    "tcprand_fct": "dcnsim.experiments.tcprand.fct",
}


def register(paper: Paper) -> None:
    """Make ``paper`` available to :func:`reproduce` and the CLI under ``paper.key``."""
    PAPERS[paper.key] = paper


def paper_keys() -> List[str]:
    return sorted(PAPERS)


def get_paper(key: str) -> Paper:
    k = key.strip().lower()
    if k not in PAPERS:
        raise KeyError(f"unknown paper {key!r} (known: {', '.join(paper_keys())})")
    entry = PAPERS[k]
    if isinstance(entry, str):
        entry = importlib.import_module(entry).PAPER
        PAPERS[k] = entry
    return entry
