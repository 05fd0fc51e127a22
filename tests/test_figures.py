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


@pytest.fixture
def saved(monkeypatch):
    """The last figure dcnsim.plots saved, kept for the test to read
    (``saved["fig"]``); it is still written."""
    import dcnsim.plots as plots

    seen = {}
    real = plots.save

    def keep(fig, path, **kw):
        seen["fig"] = fig
        return real(fig, path, **kw)

    monkeypatch.setattr(plots, "save", keep)
    return seen


def test_the_demos_figure_says_its_error_bars_and_draws_no_rate_it_was_not_given(tmp_path, monkeypatch, saved):
    import pandas as pd
    from dcnsim.plots import incast_goodput_plot

    monkeypatch.setenv("DCNSIM_CHECK_FIGURES", "1")  # refuses unexplained error bars
    df = pd.DataFrame({"series": ["a", "a", "b", "b"], "servers": [1, 2, 1, 2],
                       "goodput_mbps": [900.0, 800.0, 950.0, 700.0], "goodput_mbps_std": [10.0, 20.0, 5.0, 30.0]})
    seen = saved
    incast_goodput_plot(df, tmp_path / "g.png")
    ax = seen["fig"].axes[0]
    assert "±1 s.d." in ax.get_title()
    assert not any("link rate" in t for t in ax.get_legend_handles_labels()[1])
    incast_goodput_plot(df, tmp_path / "h.png", link_mbps=10_000)
    assert "link rate (10 Gbps)" in seen["fig"].axes[0].get_legend_handles_labels()[1]


def test_a_facet_plots_legend_names_every_panels_series(tmp_path, saved):
    # a series absent from the first panel was never named, and a first
    # panel of one series left the figure without a legend
    import pandas as pd
    from dcnsim.plots import facet_plot

    df = pd.DataFrame({"x": [1, 2, 1, 2, 1, 2], "y": [1.0, 2.0, 1.5, 2.5, 3.0, 1.0],
                       "s": ["only", "only", "late", "late", "only", "only"],
                       "f": ["A", "A", "B", "B", "B", "B"]})
    seen = saved
    facet_plot(df, "x", "y", "s", "f", xlabel="x (s)", ylabel="y (ms)", path=tmp_path / "f.png",
               facet_order=["A", "B"])
    legends = seen["fig"].legends
    assert legends, "no legend"
    assert sorted(t.get_text() for t in legends[0].get_texts()) == ["late", "only"]


def test_a_series_keeps_its_colour_in_every_figure_given_the_papers_series():
    from dcnsim.plots import series_colors

    universe = ["N", "NT200", "C", "CT200", "CTD", "DCTCP"]
    a = series_colors(["N", "C", "CT200", "CTD"], universe=universe)
    b = series_colors(["C", "CTD", "DCTCP"], universe=universe)
    assert a["C"] == b["C"] and a["CTD"] == b["CTD"]  # by position in the paper's list, not in the figure's
    # names outside it, or past the cycle, still get distinct colours in one figure
    c = series_colors(["C", "other", "more"], universe=universe)
    assert len(set(c.values())) == 3 and c["C"] == a["C"]
    long = [f"s{i}" for i in range(12)]
    d = series_colors(["s0", "s10"], universe=long)  # s10 wraps onto s0's colour: moved
    assert d["s0"] != d["s10"]


def test_a_series_keeps_a_fill_that_tells_it_apart_in_greyscale():
    from dcnsim.plots import series_colors, series_hatches

    universe = ["N", "NT200", "C", "CT200", "CTD", "DCTCP"]
    names = ["N", "C", "CTD", "DCTCP"]
    h = series_hatches(names, universe=universe)
    assert len(set(h.values())) == len(names)  # ten colours fall into a few greys; the fills do not
    assert series_hatches(["C", "DCTCP"], universe=universe)["C"] == h["C"]  # the same in every figure
    assert set(series_colors(names, universe=universe)) == set(h)


def test_save_wraps_a_title_too_wide_for_its_room(tmp_path):
    """save() wraps a suptitle to the canvas and a panel's title to its
    panel, so neither is cut; a title that fits is left as it is."""
    fig, axes = new_figure(ncols=2)
    fig.suptitle("a suptitle far too long for any canvas " * 4)
    axes[0].set_title("a panel title much wider than its own panel " * 2)
    axes[1].set_title("fits")
    for ax in axes:
        ax.plot([1, 2], [1.0, 2.0])
        ax.set_xlabel("workers n")
        ax.set_ylabel("mean QCT (ms)")
    save(fig, tmp_path / "wide.png")
    assert "\n" in fig.get_suptitle() and "\n" in axes[0].get_title()
    assert axes[1].get_title() == "fits"
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # save() closed it: a canvas to measure it on again
    assert not [p for p in figure_problems(fig) if "cut by the canvas edge" in p]


def test_a_long_legend_does_not_shrink_the_panels():
    """Six series of long names took six legend rows out of a fixed-height
    figure, leaving Kulkarni's Figs. 4.4 and 4.5 panels 1.3 in tall."""
    import pandas as pd
    from dcnsim.plots import facet_plot

    def panel_height(n_series: int) -> float:
        names = [f"probabilistic retransmission p = 0.000{i}" for i in range(n_series)]
        d = pd.DataFrame({"n": [1, 2] * n_series, "v": [1.0, 2.0] * n_series,
                          "s": [x for x in names for _ in range(2)], "p": ["a"] * 2 * n_series})
        fig = facet_plot(d, "n", "v", "s", "p", xlabel="n", ylabel="v", title="t")
        return fig.axes[0].get_position().height * fig.get_size_inches()[1]

    assert panel_height(6) == pytest.approx(panel_height(2)) and panel_height(6) > 2.5


def test_a_series_drawn_exactly_under_another_is_named_in_its_panel():
    """FaST Fig. 4's fresh-connection panel at init_cwnd 10: NewReno's
    points are DCTCP's, and only DCTCP's line could be seen."""
    import pandas as pd
    from dcnsim.plots import facet_plot

    d = pd.DataFrame({"n": [1, 2] * 3, "v": [1.0, 2.0, 1.0, 2.0, 1.0, 3.0],
                      "s": ["NewReno"] * 2 + ["DCTCP"] * 2 + ["FaST"] * 2, "p": ["a"] * 6})
    fig = facet_plot(d, "n", "v", "s", "p", xlabel="n", ylabel="v", title="t", order=["NewReno", "DCTCP", "FaST"])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["NewReno lies under DCTCP"], texts
    d.loc[0, "v"] = 1.5  # apart: nothing said
    fig = facet_plot(d, "n", "v", "s", "p", xlabel="n", ylabel="v", title="t", order=["NewReno", "DCTCP", "FaST"])
    assert not fig.axes[0].texts
    # within a marker's width of the axis at every point (RPS Fig. 2's four
    # schemes, 0.1 % apart, showed one line and no word): said, as near
    d.loc[0, "v"] = 1.004
    fig = facet_plot(d, "n", "v", "s", "p", xlabel="n", ylabel="v", title="t", order=["NewReno", "DCTCP", "FaST"])
    assert [t.get_text() for t in fig.axes[0].texts] == ["NewReno lies under DCTCP (within 0.5% of the plotted range)"]
    # on a log axis, by decades: 1e-3 against 1e-2 with another series up
    # to 100 was "within" on a linear reading
    lg = pd.DataFrame({"n": [1, 2] * 3, "v": [1e-3, 1e-3, 1e-2, 1e-2, 1.0, 100.0],
                       "s": ["a"] * 2 + ["b"] * 2 + ["c"] * 2, "p": ["x"] * 6})
    fig = facet_plot(lg, "n", "v", "s", "p", xlabel="n", ylabel="v", title="t", logy=True)
    assert not fig.axes[0].texts, [t.get_text() for t in fig.axes[0].texts]


def test_a_log_axis_over_few_decades_labels_values_a_reader_can_read():
    """13 to 1,000 Mbps on a log axis showed 10² and 10³ alone: nothing
    under 100 could be read off."""
    import pandas as pd
    from dcnsim.plots import facet_plot

    d = pd.DataFrame({"n": [1, 8, 64], "v": [850.0, 95.0, 16.0], "s": ["sim"] * 3, "p": ["a"] * 3})
    fig = facet_plot(d, "n", "v", "s", "p", xlabel="n", ylabel="Mbps", title="t", logy=True)
    fig.canvas.draw()
    ax = fig.axes[0]
    shown = {t.get_text() for t in ax.get_yticklabels() if ax.get_ylim()[0] <= t.get_position()[1] <= ax.get_ylim()[1]}
    assert {"20", "50", "100", "200", "500"} <= shown, shown


def test_a_plot_refused_for_its_path_leaves_no_figure_open(tmp_path):
    """A .jpg path was refused with a clear error, but each call left one
    more matplotlib figure open (the docs say none does)."""
    import matplotlib.pyplot as plt
    import pandas as pd
    from dcnsim.plots import line_plot

    before = len(plt.get_fignums())
    data = pd.DataFrame({"x": [1, 2], "y": [1.0, 2.0]})
    for _ in range(3):
        with pytest.raises(ValueError):
            line_plot(data, "x", "y", xlabel="x (1)", ylabel="y (1)", title="t", path=tmp_path / "x.jpg")
    assert len(plt.get_fignums()) == before


def test_a_papers_bound_is_drawn_as_a_bound_not_a_point():
    """FaST Fig. 7's "< 35 ms" was drawn as a star at 35 ms, the mark of a
    value the paper measured (audit 35). A bound is a hollow triangle
    pointing the way the value lies, labelled "< 35", with its own legend
    entry; a value keeps its star."""
    import pandas as pd
    from dcnsim.plots import facet_plot

    d = pd.DataFrame({"n": [10, 100] * 2, "v": [5.0, 20.0, 6.0, 250.0], "s": ["FaST"] * 2 + ["NewReno"] * 2})
    fig = facet_plot(d, "n", "v", "s", xlabel="n", ylabel="QCT (ms)", title="t",
                     paper=[{"x": 100, "y": 281.0, "series": "NewReno"},
                            {"x": 100, "y": 35.0, "series": "FaST", "bound": "<"}])
    ax = fig.axes[0]
    marks = {ln.get_marker(): ln.get_ydata()[0] for ln in ax.lines if len(ln.get_ydata()) == 1}
    assert marks.get("*") == 281.0 and marks.get("v") == 35.0, marks
    assert [t.get_text() for t in ax.texts] == ["< 35"]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "paper's value (text)" in labels and "paper's bound (text)" in labels
