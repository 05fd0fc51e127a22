"""dcnsim.plots leaves a user's matplotlib backend alone, and writes the
format a path's suffix names (audit 27, F5, F13)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import pandas as pd
import pytest


def _python(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "DISPLAY", "WAYLAND_DISPLAY")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**clean, **env},
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_importing_plots_keeps_a_chosen_backend():
    # chosen with matplotlib.use, as %matplotlib inline chooses its own
    assert _python("import matplotlib; matplotlib.use('svg'); import dcnsim.plots; "
                   "print(matplotlib.get_backend())") == "svg"
    # chosen through pyplot first
    assert _python("import matplotlib; matplotlib.use('pdf'); import matplotlib.pyplot; import dcnsim.plots; "
                   "print(matplotlib.get_backend())") == "pdf"
    assert _python("import matplotlib; import dcnsim.plots; print(matplotlib.get_backend())",
                   MPLBACKEND="svg") == "svg"


def test_without_a_display_or_a_choice_plots_use_agg_and_save(tmp_path):
    out = _python("import matplotlib; import dcnsim.plots as p; "
                  f"fig, ax = p.new_figure(); ax.plot([0, 1], [0, 1]); ax.set_xlabel('x (s)'); "
                  f"ax.set_ylabel('y (s)'); print(matplotlib.get_backend(), p.save(fig, {str(tmp_path / 'f')!r}))")
    assert out.lower().startswith("agg") and (tmp_path / "f.png").exists()


def test_a_plot_path_suffix_is_the_format_written(tmp_path):
    from dcnsim.plots import line_plot

    df = pd.DataFrame({"x": [1, 2, 3], "y": [1.0, 2.0, 1.5]})
    kw = dict(xlabel="x (s)", ylabel="y (s)")
    assert line_plot(df, "x", "y", path=tmp_path / "a.pdf", **kw) == [tmp_path / "a.pdf"]
    assert (tmp_path / "a.pdf").read_bytes().startswith(b"%PDF") and not (tmp_path / "a.png").exists()
    assert line_plot(df, "x", "y", path=tmp_path / "b.svg", svg=True, **kw) == [tmp_path / "b.svg"]
    assert b"<svg" in (tmp_path / "b.svg").read_bytes()
    assert line_plot(df, "x", "y", path=tmp_path / "c.png", svg=True, **kw) == [tmp_path / "c.png",
                                                                                 tmp_path / "c.svg"]
    assert (tmp_path / "c.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match=r"\.png, \.svg, \.pdf.*'\.jpg'"):
        line_plot(df, "x", "y", path=tmp_path / "d.jpg", **kw)
    assert not list(tmp_path.glob("d.*"))


def test_a_table_with_nothing_to_draw_is_refused_and_writes_nothing(tmp_path):
    # a run's blocks table without synchronized reads has its columns and
    # no rows: line_plot saved an empty figure without a word, facet_plot
    # with a facet raised ZeroDivisionError; all-NaN y drew nothing either
    import matplotlib.pyplot as plt
    from dcnsim.plots import facet_plot, incast_goodput_plot, line_plot

    kw = dict(xlabel="block index", ylabel="goodput (bit/s)")
    empty = pd.DataFrame({"block": pd.Series([], dtype="int64"), "goodput_bps": pd.Series([], dtype="float64"),
                          "app": pd.Series([], dtype="int64")})
    open_before = plt.get_fignums()
    with pytest.raises(ValueError, match=r"line_plot: the table has no rows: nothing to draw"):
        line_plot(empty, "block", "goodput_bps", path=tmp_path / "a.png", **kw)
    with pytest.raises(ValueError, match=r"facet_plot: the table has no rows"):
        facet_plot(empty, "block", "goodput_bps", None, "app", path=tmp_path / "b.png", **kw)
    with pytest.raises(ValueError, match=r"facet_plot: the table has no rows"):
        facet_plot(empty, "block", "goodput_bps", path=tmp_path / "c.png", **kw)
    with pytest.raises(ValueError, match=r"line_plot: the table has no rows"):
        incast_goodput_plot(pd.DataFrame({"servers": [], "goodput_mbps": [], "series": []}), tmp_path / "d.png")
    nan = pd.DataFrame({"block": [0, 1], "goodput_bps": [float("nan")] * 2, "app": [0, 0]})
    with pytest.raises(ValueError, match=r"line_plot: y: column 'goodput_bps' has no value in its 2 rows"):
        line_plot(nan, "block", "goodput_bps", path=tmp_path / "e.png", **kw)
    with pytest.raises(ValueError, match=r"facet_plot: y: column 'goodput_bps' has no value"):
        facet_plot(nan, "block", "goodput_bps", None, "app", path=tmp_path / "f.png", **kw)
    assert not list(tmp_path.iterdir())
    assert plt.get_fignums() == open_before  # refused before a figure was opened
    # the paper's values alone are something to draw
    assert facet_plot(nan, "block", "goodput_bps", path=tmp_path / "g.png", paper=[{"x": 1, "y": 2.0}],
                      **kw) == [tmp_path / "g.png"]


def test_logy_says_which_points_it_cannot_draw(tmp_path):
    # a y at or below 0 on a log y axis was left out without a word (a
    # collapsed incast's zero goodput vanished from its curve)
    import dcnsim
    from dcnsim.plots import facet_plot, line_plot

    df = pd.DataFrame({"servers": [1, 2, 4, 8], "goodput_mbps": [900.0, 600.0, 0.0, 0.0]})
    kw = dict(xlabel="number of servers", ylabel="goodput (Mbps)", logy=True)
    with pytest.warns(dcnsim.DcnsimWarning, match=re.escape(
            "line_plot: logy: 2 of 4 points not drawn: a log axis cannot show y at or below 0 "
            "(first: goodput_mbps = 0.0 at servers = 4)")):
        assert line_plot(df, "servers", "goodput_mbps", path=tmp_path / "a.png", **kw) == [tmp_path / "a.png"]
    with pytest.warns(dcnsim.DcnsimWarning, match="facet_plot: logy: 2 of 4 points not drawn"):
        facet_plot(df, "servers", "goodput_mbps", path=tmp_path / "b.png", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # all positive, or no log axis: nothing to say
        line_plot(df[df.goodput_mbps > 0], "servers", "goodput_mbps", path=tmp_path / "c.png", **kw)
        line_plot(df, "servers", "goodput_mbps", path=tmp_path / "d.png", xlabel="number of servers", ylabel="goodput (Mbps)")


def test_a_png_and_svg_pair_is_written_together_or_not_at_all(tmp_path, monkeypatch):
    # each file was atomic alone: an SVG that failed to render (or Ctrl-C
    # between the two) left the new PNG beside the earlier run's SVG
    from dcnsim.plots import line_plot
    from matplotlib.figure import Figure

    kw = dict(xlabel="number of servers", ylabel="goodput (Mbps)", path=tmp_path / "g.png", svg=True)
    first = pd.DataFrame({"servers": [1, 2, 4], "goodput_mbps": [900.0, 600.0, 300.0]})
    assert line_plot(first, "servers", "goodput_mbps", **kw) == [tmp_path / "g.png", tmp_path / "g.svg"]
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real = Figure.savefig

    def no_svg(self, fname, *a, **k):
        if k.get("format") == "svg":
            raise OSError("disk full")
        return real(self, fname, *a, **k)

    import matplotlib.pyplot as plt

    monkeypatch.setattr(Figure, "savefig", no_svg)
    open_before = plt.get_fignums()
    with pytest.raises(OSError, match="disk full"):
        line_plot(first.assign(goodput_mbps=[100.0, 200.0, 300.0]), "servers", "goodput_mbps", **kw)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # both as they were, no temporaries
    assert plt.get_fignums() == open_before  # and its figure closed


def test_log2x_refuses_an_x_a_log_axis_cannot_show(tmp_path):
    # x = 0 on line_plot's log2 axis was left out of the figure without a
    # word (its segment ran off the left edge, looking like a flat line)
    from dcnsim.plots import line_plot

    kw = dict(xlabel="number of servers", ylabel="goodput (Mbps)", log2x=True)
    df = pd.DataFrame({"servers": [0, 1, 2, 4], "goodput_mbps": [5.0, 2.0, 3.0, 1.0]})
    with pytest.raises(ValueError, match=r"line_plot: log2x: x: column 'servers' holds 0 \(1 of 4 rows"):
        line_plot(df, "servers", "goodput_mbps", path=tmp_path / "a.png", **kw)
    assert not list(tmp_path.iterdir())
    assert line_plot(df[df.servers > 0], "servers", "goodput_mbps", path=tmp_path / "b.png",
                     **kw) == [tmp_path / "b.png"]


def test_logy_leaves_a_gap_where_a_point_cannot_be_drawn():
    """Matplotlib clips a y at or below 0 to the log axis's floor and draws
    the line down to it: a plunge the warning says is not there. The point
    is a gap in the line (its y NaN), in both plots."""
    import numpy as np
    from dcnsim.plots import facet_plot, line_plot

    df = pd.DataFrame({"servers": [1, 2, 4, 8] * 2, "goodput_bps": [9e8, 8e8, 5e8, 0.0, 9e8, 9e8, 8e8, 7e8],
                       "series": ["a"] * 4 + ["b"] * 4})
    kw = dict(xlabel="servers", ylabel="goodput (b/s)", logy=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = line_plot(df, "servers", "goodput_bps", "series", **kw)
        grid = facet_plot(df, "servers", "goodput_bps", "series", **kw)
    for f in (fig, grid):
        ys = [np.asarray(line.get_ydata(), dtype=float) for line in f.axes[0].get_lines() if len(line.get_ydata()) == 4]
        assert len(ys) == 2
        assert np.isnan(ys[0][3]) and not np.isnan(ys[0][:3]).any() and not np.isnan(ys[1]).any()


def test_a_log_axis_warns_on_a_frame_with_a_repeated_index_and_paper_values_get_panels_without_data(tmp_path):
    """Two concatenated series repeat their index: `logy`'s count of the
    points it leaves out failed on it (`.item()` of a Series). A facet plot
    with the paper's values and no data rows divided by zero facets."""
    import warnings

    import pandas as pd
    from dcnsim import plots

    a = pd.DataFrame({"servers": [1, 2, 4], "goodput_mbps": [900, 500, 0], "series": "a"})
    b = pd.DataFrame({"servers": [1, 2, 4], "goodput_mbps": [800, 400, 100], "series": "b"})
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        plots.line_plot(pd.concat([a, b]), "servers", "goodput_mbps", "series", xlabel="servers",
                        ylabel="goodput (Mbps)", path=tmp_path / "p", logy=True)
    assert any("1 of 6 points not drawn" in str(w.message) and "at servers = 4" in str(w.message) for w in said)
    empty = pd.DataFrame({"servers": [1], "goodput_mbps": [1.0], "series": ["a"], "f": ["x"]}).iloc[:0]
    paths = plots.facet_plot(empty, "servers", "goodput_mbps", "series", "f", xlabel="servers (count)",
                             ylabel="goodput (Mbps)",
                             path=tmp_path / "q", paper=[{"x": 1, "y": 850, "series": "a", "facet": "x"}])
    assert paths and all(p.stat().st_size > 0 for p in paths)
