"""What a reviewer reads off a reproduction's outputs: a quick run's plots
say what is short in them (points, run length) and of whose (the paper's
figure or our own), and a figure made of several analyses writes each
plot's table beside it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from dcnsim.experiments import get_paper
from dcnsim.experiments.framework import _quick_note, in_subdir
from dcnsim.experiments.paper import FigureResult


def _fig(paper: str, fid: str):
    p = get_paper(paper)
    return p, next(f for f in p.figures if f.id == fid)


def test_a_quick_note_says_what_is_short_and_of_whose():
    """The banner a quick run's PNG carries names each way it falls short:
    it had said only "fewer points" where FaST's Fig. 11 also ran 2 s of its
    10 and one seed of five, so its error bars passed for the full run's
    (audit 35)."""
    # the same simulations quick and full (RPS's path loads): no shortfall claimed
    assert _quick_note(*_fig("rps", "paths")) == "quick run: this figure's simulations are the full run's"
    tail = " (report.md says how much)"
    # a figure of the paper with fewer points quick, each run shorter (1 s of flows, not 10)
    assert _quick_note(*_fig("tcprand", "8a")) == "quick run, against the paper's: fewer points; shorter runs" + tail
    # as many points quick as full, each run shorter (TCPRand's Fig. 16)
    p, fig = _fig("tcprand", "16")
    assert len(fig.points(True)) == len(fig.points(False))
    assert _quick_note(p, fig) == "quick run, against the paper's: shorter runs" + tail
    # one seed where the full run has five, and 2 s of the paper's 10, though
    # the quick point is labelled by its own length
    p, fig = _fig("fast", "11")
    assert _quick_note(p, fig) == "quick run, against the paper's: 1 seed, not 5; shorter runs" + tail
    p, fig = _fig("fast", "4")
    assert _quick_note(p, fig) == "quick run, against the paper's: fewer points; 1 seed, not 5; shorter runs" + tail
    # a figure of ours: short of the full run, not of a paper that has no such figure
    p, fig = _fig("tcprand", "seeds")
    assert "against the full run's" in _quick_note(p, fig), _quick_note(p, fig)


def test_each_analysis_of_a_subdirectory_figure_writes_its_table(tmp_path):
    """Fig. 8-h52's three plots had one table between them (the first's):
    fig8b.png and fig9.png were drawn from columns no written table held."""
    def analysis(stem: str, col: str):
        def analyze(summary, out_dir: Path) -> FigureResult:
            png = out_dir / f"{stem}.png"
            png.write_bytes(b"")
            return FigureResult(pd.DataFrame({col: [1.0, 2.0]}), [png], [], [])
        return analyze

    res = in_subdir("variant", analysis("fig8a", "jain"), analysis("fig8b", "goodput_ratio"),
                    analysis("fig9", "freq_ratio"), note="a variant")(pd.DataFrame(), tmp_path)
    assert list(res.table.columns) == ["jain"]  # the figure's own table, written by the framework
    assert list(pd.read_csv(tmp_path / "variant" / "fig8b.csv").columns) == ["goodput_ratio"]
    assert list(pd.read_csv(tmp_path / "variant" / "fig9.csv").columns) == ["freq_ratio"]
    assert "variant/fig9.png's table: variant/fig9.csv" in res.notes


def test_an_empty_figure_id_between_commas_is_refused(capsys):
    # `--figure 4,,5` ran figures 4 and 5 without a word (as --seeds 1,,2 is refused)
    from dcnsim.cli import main

    assert main(["reproduce", "fast", "--quick", "--figure", "4,,5", "--out", "/nonexistent/never-written"]) == 2
    assert "reproduce: --figure '4,,5': an empty figure id between commas" in capsys.readouterr().err


def test_list_counts_the_simulations_a_run_would_merge():
    """`reproduce PAPER --list` counts the points' distinct labels without
    canonicalizing each scenario (FaST's took 10 s, 7 in json): the same
    count as the run's merge of the figures' points."""
    from dcnsim.experiments.framework import _collect, count_points

    p = get_paper("tcprand")
    for quick in (True, False):
        assert count_points(p.figures, quick) == len(_collect(p.figures, quick)[0])
