"""The figure checks every test's plots pass through (issue 28 item 3):
dcnsim.plots.figure_problems finds a title cut by the canvas, a physical
axis without a unit and unexplained error bars, and save() refuses such a
figure while DCNSIM_CHECK_FIGURES is set (tests/conftest.py sets it, so
every quick reproduction, tune and demo figure made by the suite is
checked)."""

from __future__ import annotations

import pytest
from dcnsim.plots import figure_problems, new_figure, save


def _fig(title="QCT vs workers", xlabel="workers n", ylabel="mean QCT (ms)"):
    fig, ax = new_figure()
    ax.plot([1, 2, 3], [1.0, 2.0, 3.0], label="a")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig, ax


def test_a_clean_figure_has_no_problems():
    fig, _ = _fig()
    assert figure_problems(fig) == []


def test_a_title_wider_than_the_canvas_is_cut():
    fig, _ = _fig(title="a very long title " * 12)
    fig.tight_layout()
    assert any("cut by the canvas edge" in p for p in figure_problems(fig))


def test_a_physical_axis_needs_a_unit_and_a_count_does_not():
    fig, _ = _fig(ylabel="mean query completion time")
    assert any("names no unit" in p for p in figure_problems(fig))
    fig, _ = _fig(ylabel="timeouts per query")
    assert figure_problems(fig) == []


def test_error_bars_must_say_what_they_are():
    fig, ax = _fig()
    ax.errorbar([1, 2, 3], [1.0, 2.0, 3.0], yerr=[0.1, 0.2, 0.1])
    assert any("error bars" in p for p in figure_problems(fig))
    fig, ax = _fig(ylabel="mean QCT (ms, ± 95 % CI)")
    ax.errorbar([1, 2, 3], [1.0, 2.0, 3.0], yerr=[0.1, 0.2, 0.1])
    assert figure_problems(fig) == []
    # an errorbar call without error bars (line_plot's way to draw a line) is no error bar
    fig, ax = _fig()
    ax.errorbar([1, 2, 3], [1.0, 2.0, 3.0])
    assert figure_problems(fig) == []


def test_save_refuses_a_faulty_figure_while_checking(tmp_path, monkeypatch):
    monkeypatch.setenv("DCNSIM_CHECK_FIGURES", "1")
    fig, _ = _fig(ylabel="delay")
    with pytest.raises(ValueError, match="names no unit"):
        save(fig, tmp_path / "bad.png")
    assert not (tmp_path / "bad.png").exists()
    monkeypatch.delenv("DCNSIM_CHECK_FIGURES")
    fig, _ = _fig(ylabel="delay")
    assert save(fig, tmp_path / "ok.png")[0].is_file()
