"""Our own study, not a paper's: synchronized-reads incast with today's Linux
TCP (``[tcp] profile = "linux"``) beside the papers' NewReno, plus ablations
of the Linux stack (docs/linux_profile.md).

``dcnsim reproduce linux [--quick]`` runs it through the reproduction
framework (listed with the papers, no paper tally: its baseline is the
papers' stack, run here); ``python -m dcnsim.linux_profile --out DIR`` is
the same study's own command line (:func:`.sync_reads.main`). Both write
``sync_reads.csv`` and ``sync_reads.png`` and keep the simulations under
``DIR/runs``, so either resumes the other's points.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

from ...sweep import Point
from ..paper import Comparison, Figure, FigureResult, Paper, Setting
from .sync_reads import (
    ABLATION_NS,
    ABLATIONS,
    BLOCKS,
    BUFFER,
    DELAY,
    NIC_BUFFER,
    NS,
    QUICK_BLOCKS,
    QUICK_NS,
    RATE,
    SEEDS,
    SRU,
    STACKS,
    main,
    plot,
    points,
    run,
    scenario,
    summarize,
)

__all__ = [
    "PAPER", "ABLATION_NS", "ABLATIONS", "BLOCKS", "BUFFER", "DELAY", "NIC_BUFFER", "NS", "QUICK_BLOCKS",
    "QUICK_NS", "RATE", "SEEDS", "SRU", "STACKS", "main", "plot", "points", "run", "scenario", "summarize",
]


def _points(quick: bool) -> List[Point]:
    # the same points (and labels) as run(): the two entry points share runs/
    blocks = QUICK_BLOCKS if quick else BLOCKS
    return (points(STACKS, QUICK_NS if quick else NS, SEEDS, blocks)
            + points(ABLATIONS, ABLATION_NS, SEEDS, blocks))


def _analyze(summary: Any, out_dir: Path) -> FigureResult:
    table = summarize(summary)
    figures = plot(table, Path(out_dir) / "sync_reads.png")
    at = table[table["n"] == table["n"].max()].set_index("stack")
    n = int(table["n"].max())
    rows = [Comparison(f"block goodput, n = {n}: {stack}", float(at.loc[stack, "goodput_mbps"]), None,
                       "not in paper", unit="Mbps", fmt=".1f")
            for stack in STACKS if stack in at.index]
    papers, linux = list(STACKS)
    notes = []
    if papers in at.index and linux in at.index:
        notes.append(f"at n = {n}, the Linux stack carries {at.loc[linux, 'goodput_mbps'] / at.loc[papers, 'goodput_mbps']:.2f}× "
                     f"the papers' NewReno goodput, with {at.loc[linux, 'timeouts_per_block']:.3g} vs "
                     f"{at.loc[papers, 'timeouts_per_block']:.3g} RTOs per block")
    return FigureResult(table, figures, rows, notes)


PAPER = Paper(
    key="linux",
    title="Linux TCP vs the papers' NewReno: synchronized-reads incast",
    citation="dcnsim's own study (docs/linux_profile.md): the incast setup of Phanishayee et al. 2008 and "
             "Kulkarni 2012 ch. 3, run with the papers' stack and with profile = \"linux\".",
    figures=[Figure("sync_reads", f"block goodput vs servers: {RATE}, {BUFFER} drop-tail, {SRU} SRU",
                    _points, _analyze, stem="sync_reads")],
    settings=[
        Setting("stacks", "papers' NewReno (limited_transmit = false, as their TCPs) and profile = \"linux\"; "
                "ablations put one Linux key back to the papers' value", "docs/linux_profile.md"),
        Setting("host NIC queues", f"{NIC_BUFFER}", "a Linux sender's qdisc pushes back instead of dropping, "
                "so only the switch drops"),
        Setting("run length", f"{BLOCKS} blocks per run (quick: {QUICK_BLOCKS}), seeds "
                f"{', '.join(map(str, SEEDS))}", ""),
    ],
    setup=f"one client reads blocks striped over n servers ({SRU} per server per block) through a star of "
          f"{RATE} links ({DELAY} each) whose switch port holds {BUFFER}; the next block is requested when "
          "every SRU has arrived.",
    docs="docs/linux_profile.md",
    own_study=True,
)
