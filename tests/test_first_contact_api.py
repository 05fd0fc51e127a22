"""A new user's first contact with the Python API: what docs/python.md
promises of bad input (an error naming the field and the reason, before
anything runs) and of sweeps resumed over what an earlier one left."""

from __future__ import annotations

import re
import warnings

import dcnsim
import pytest
from conftest import small_incast
from dcnsim.sweep import Point, grid, point_dir, run_sweep


@pytest.mark.parametrize("axes, seeds, field", [
    # a string is one value: iterated it swept the buffers "1", "6", "K", "B"
    ({"topology.buffer": "16KB"}, None, "axes['topology.buffer']"),
    # a table's keys would have been the values
    ({"tcp": {"cc": "dctcp"}}, None, "axes['tcp']"),
    # "12" ran seeds 1 and 2; 3 was "'int' object is not iterable"
    ({"topology.buffer": ["16KB"]}, "12", "seeds"),
    ({"topology.buffer": ["16KB"]}, 3, "seeds"),
    # a list of pairs is not a mapping of axes
    ([("topology.buffer", ["16KB"])], None, "axes"),
])
def test_grid_refuses_an_axis_that_is_not_a_list_of_values(axes, seeds, field):
    with pytest.raises(TypeError, match=rf"^grid: {re.escape(field)}: "):
        grid(small_incast().to_dict(), axes, seeds=seeds)


@pytest.mark.parametrize("axes, seeds, field", [
    ({"topology.buffer": []}, None, "axes['topology.buffer']"),  # no point at all, silently
    ({"topology.buffer": ["16KB"]}, [], "seeds"),  # the file's own seed, silently
])
def test_grid_refuses_an_empty_axis(axes, seeds, field):
    with pytest.raises(ValueError, match=rf"^grid: {re.escape(field)}: no values"):
        grid(small_incast().to_dict(), axes, seeds=seeds)


def test_grid_takes_any_iterable_of_values():
    np = pytest.importorskip("numpy")
    pts = grid(small_incast().to_dict(), {"apps.0.blocks": np.arange(1, 4)}, seeds=range(2))
    assert [(p.params["apps.0.blocks"], p.seed) for p in pts] == [(b, s) for b in (1, 2, 3) for s in (0, 1)]


@pytest.mark.parametrize("points, error, words", [
    # a regular expression's "expected string or bytes-like object" before
    ([Point(3, small_incast().to_dict(), 1)], TypeError, "sweep point 3: label: expected a string"),
    # "cannot convert dictionary update sequence element #0" while the table was made
    ([Point("a", small_incast().to_dict(), 1, [1, 2])], TypeError, "sweep point 'a': params: expected a mapping"),
    # silently the label column's value
    ([Point("a", small_incast().to_dict(), 1, {"label": "x"})], ValueError, "sweep point 'a': params: 'label'"),
    ([{"label": "a", "scenario": small_incast().to_dict(), "sed": 1}], TypeError, "unknown key(s) 'sed'"),
    # one point, not a list of them
    (Point("a", small_incast().to_dict(), 1), TypeError, "points: expected a list of points"),
    (5, TypeError, "points: expected a list of points"),
])
def test_run_sweep_names_a_malformed_point_before_anything_runs(tmp_path, points, error, words):
    with pytest.raises(error, match=re.escape(words)):
        run_sweep(points, tmp_path / "out", jobs=1, progress=False)
    assert not any((tmp_path / "out").rglob("summary.json"))


@pytest.mark.parametrize("format", ["csv", "parquet"])
def test_a_point_missing_a_table_runs_again_and_is_not_said_to_be_in_the_other_format(tmp_path, format):
    if format == "parquet":
        pytest.importorskip("pyarrow")
    pts = grid(small_incast().to_dict(), {"topology.buffer": ["16KB", "64KB"]})
    run_sweep(pts, tmp_path, jobs=1, progress=False, format=format)
    gone = point_dir(tmp_path, pts[0].label) / f"flows.{format}"
    gone.unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)  # nothing of another scenario or core is replaced
        df = run_sweep(pts, tmp_path, jobs=1, progress=False, format=format)
    assert gone.is_file()
    assert list(df.attrs["computed"]) == [pts[0].label]
    # `dcnsim sweep` said "1 of them stored as parquet, run again for csv" of it
    assert list(df.attrs["reformatted"]) == [] and list(df.attrs["replaced"]) == []


@pytest.fixture(scope="module")
def untraced():
    return dcnsim.run(small_incast(pcap=None))


@pytest.mark.parametrize("name, words", [
    ("flow", "did you mean 'flows'?"),  # was KeyError('flow'), nothing more
    ("queue", "did you mean 'queues'?"),
    ("flow_ts", "a `trace` table in the scenario"),  # a table this scenario does not ask for
    ("pfc", "[pfc]"),
])
@pytest.mark.parametrize("read", ["__getitem__", "columns", "core_columns", "rows"])
def test_a_table_the_result_does_not_hold_is_a_key_error_saying_why(untraced, name, words, read):
    with pytest.raises(KeyError, match=re.escape(words)):
        getattr(untraced.tables, read)(name)
    # the absent tables' properties and `get` stay None, as documented
    assert untraced.tables.get(name) is None
    assert untraced.flow_ts is None and untraced.pfc is None


@pytest.mark.parametrize("overrides", [[("topology.buffer", "64KB")], "topology.buffer=64KB"])
def test_with_overrides_refuses_overrides_that_are_not_a_mapping(overrides):
    # a list was "'list' object has no attribute 'items'"
    with pytest.raises(TypeError, match=r"^with_overrides: overrides: expected a mapping"):
        dcnsim.with_overrides(small_incast(), overrides)


def test_with_overrides_names_a_key_that_is_not_a_dotted_path():
    # a regular expression's "expected string or bytes-like object" before
    with pytest.raises(dcnsim.ScenarioError, match=r"override key \('topology', 'buffer'\) is not a dotted path"):
        dcnsim.with_overrides(small_incast(), {("topology", "buffer"): "64KB"})


def _two_seeds():
    pd = pytest.importorskip("pandas")
    # a sweep's table: two seeds per (buffer, servers) point
    return pd.DataFrame({"buffer": ["16KB"] * 4, "servers": [4, 4, 16, 16], "seed": [1, 2, 1, 2],
                         "goodput_mbps": [120.0, 90.0, 55.0, 57.0]})


def test_line_plot_refuses_several_rows_at_one_x_of_a_line(tmp_path):
    from dcnsim.plots import line_plot

    df = _two_seeds()
    kw = dict(xlabel="servers", ylabel="goodput (Mbps)")
    # drawn, the line zigzagged up and down at servers = 4: a vertical stroke, no error
    with pytest.raises(ValueError, match=r"^line_plot: series buffer = '16KB' has 2 rows at servers = 4 .*"
                                         r"groupby\(\['buffer', 'servers'\]"):
        line_plot(df, "servers", "goodput_mbps", "buffer", path=tmp_path / "a.png", **kw)
    assert not (tmp_path / "a.png").exists()
    mean = df.groupby(["buffer", "servers"], as_index=False)["goodput_mbps"].mean()
    assert line_plot(mean, "servers", "goodput_mbps", "buffer", path=tmp_path / "b.png", **kw) == [tmp_path / "b.png"]
    # one line per seed is a line each
    assert line_plot(df, "servers", "goodput_mbps", "seed", path=tmp_path / "c.png", **kw) == [tmp_path / "c.png"]


def test_facet_plot_refuses_several_rows_at_one_x_of_a_panels_line(tmp_path):
    from dcnsim.plots import facet_plot

    df = _two_seeds()
    kw = dict(xlabel="servers", ylabel="goodput (Mbps)")
    with pytest.raises(ValueError, match=r"^facet_plot: buffer = '16KB' has 2 rows at servers = 4"):
        facet_plot(df, "servers", "goodput_mbps", None, "buffer", path=tmp_path / "a.png", **kw)
    # a panel per seed holds one row per x
    assert facet_plot(df, "servers", "goodput_mbps", "buffer", "seed", path=tmp_path / "b.png", **kw) == [
        tmp_path / "b.png"]


def test_a_sweep_table_of_no_complete_point_still_has_its_columns(tmp_path, monkeypatch):
    import dcnsim.sweep as sweep

    def fails(doc, out, format):
        raise RuntimeError("memory limit reached")

    monkeypatch.setattr(sweep, "_run_point", fails)
    pts = grid(small_incast().to_dict(), {"topology.buffer": ["16KB", "64KB"]}, seeds=[1])
    with pytest.raises(sweep.SweepError) as e:
        run_sweep(pts, tmp_path, jobs=1, progress=False)
    # was a frame without a column: e.df.label an AttributeError (so was
    # KeyboardInterrupt's df before the first point finished)
    assert list(e.value.df.columns) == ["label", "topology.buffer", "seed"] and e.value.df.empty
    assert list(run_sweep([], tmp_path / "none", progress=False).columns) == ["label"]


def test_assigning_a_table_checks_what_is_assigned_and_its_name(untraced, tmp_path):
    flows = untraced.flows
    # was accepted: then an AttributeError from metrics or write
    with pytest.raises(TypeError, match=r"tables\['flows'\]: expected a pandas DataFrame, got int"):
        untraced.tables["flows"] = 5
    # write puts a table at out_dir/<name>.csv: this one went to its parent
    with pytest.raises(ValueError, match=r"'\.\./flows' cannot name a table"):
        untraced.tables["../flows"] = flows
    assert untraced.flows is flows and "../flows" not in untraced.tables
    untraced.write(tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("plot", ["line_plot", "facet_plot"])
@pytest.mark.parametrize("args, words", [
    (("servers", "goodput"), "y: the table has no column 'goodput' (did you mean 'goodput_mbps'?)"),
    (("servers", "goodput_mbps", "buffers"), "series: the table has no column 'buffers' (did you mean 'buffer'?)"),
    (("server", "goodput_mbps"), "x: the table has no column 'server' (did you mean 'servers'?)"),
])
def test_a_plot_names_the_argument_whose_column_is_missing_and_leaves_no_figure_open(tmp_path, plot, args, words):
    import matplotlib.pyplot as plt
    from dcnsim import plots

    plt.close("all")
    mean = _two_seeds().groupby(["buffer", "servers"], as_index=False)["goodput_mbps"].mean()
    # pandas' KeyError('goodput') named neither the argument nor the column meant
    with pytest.raises(KeyError, match=re.escape(f"{plot}: {words}")):
        getattr(plots, plot)(mean, *args, xlabel="servers", ylabel="goodput (Mbps)", path=tmp_path / "a.png")
    with pytest.raises(ValueError, match="rows at servers = 4"):
        getattr(plots, plot)(_two_seeds(), "servers", "goodput_mbps", xlabel="servers", ylabel="goodput (Mbps)")
    assert plt.get_fignums() == []


def test_flow_size_cdf_takes_a_numpy_array_and_names_a_malformed_point():
    np = pytest.importorskip("numpy")
    want = dcnsim.flow_size_cdf([[100, 0], [200, 1]])
    # an integer array was "Object of type int64 is not JSON serializable"
    got = dcnsim.flow_size_cdf(np.array([[100, 0], [200, 1]]))
    assert (got.mean_bytes, got.points.tolist()) == (want.mean_bytes, want.points.tolist())
    # a flat list was "'int' object is not iterable"; now the core's words, with the point's path
    with pytest.raises(dcnsim.ScenarioError, match=r"cdf\[0\]: expected a \[size, probability\] pair"):
        dcnsim.flow_size_cdf([100, 200])


@pytest.mark.parametrize("bins, words", [
    ([("a", 0, 10, 5)], "bins[0]: expected (name, lo_bytes, hi_bytes)"),  # "too many values to unpack"
    ({"a": (0, 10)}, "bins: expected a list of (name, lo_bytes, hi_bytes) triples"),  # its keys were bins
    ([("a", "0", "100KB")], "bins[0]: expected (name, lo_bytes, hi_bytes)"),
])
def test_fct_bins_names_a_malformed_bin(untraced, bins, words):
    from dcnsim.analysis import fct_bins

    with pytest.raises(ValueError, match=re.escape(words)):
        fct_bins(untraced.flows, bins=bins)


def test_fct_bins_names_a_table_that_is_not_a_flows_table(untraced):
    from dcnsim.analysis import fct_bins

    with pytest.raises(KeyError, match=r"fct_bins: flows: the table has no column 'app_bytes'"):
        fct_bins(untraced.blocks)  # was pandas' KeyError('app_bytes')


def test_one_column_check_for_plots_and_analyses_with_both_kinds_of_help(untraced, tmp_path):
    # plots and fct_bins had a _need_columns each: the plots' said the
    # column meant but crashed on a table that was not one, fct_bins' said
    # what to pass but not the column meant
    from dcnsim import analysis, plots
    from dcnsim._tables import need_columns

    assert not hasattr(plots, "_need_columns") and not hasattr(analysis, "_need_columns")
    # a flows table with one column renamed: the column meant, then what to pass
    renamed = untraced.flows.rename(columns={"fct_s": "fct"})
    with pytest.raises(KeyError, match=re.escape("fct_bins: flows: the table has no column 'fct_s' "
                                                 "(did you mean 'fct'?): pass a flows table")):
        analysis.fct_bins(renamed)
    # not a table at all: was "'dict' object has no attribute 'columns'"
    with pytest.raises(TypeError, match=re.escape("line_plot: data: expected a table (a pandas DataFrame), got dict")):
        plots.line_plot({"servers": [1, 2], "goodput_mbps": [3.0, 4.0]}, "servers", "goodput_mbps",
                        xlabel="servers", ylabel="goodput (Mbps)")
    with pytest.raises(TypeError, match=re.escape("fct_bins: flows: expected a table (a pandas DataFrame), got list")):
        analysis.fct_bins([])
    # no column near the one asked for: the table's columns instead
    with pytest.raises(KeyError, match=re.escape("f: x: the table has no column 'zzz' (its columns: servers, seed)")):
        need_columns(_two_seeds()[["servers", "seed"]], "f", {"x": "zzz", "y": None})


def test_offered_load_reads_units_as_scenarios_do_and_names_a_bad_argument(untraced):
    from dcnsim.analysis import offered_load

    f = untraced.flows
    # a rate with its unit is the number of bit/s it names, a time the seconds
    assert offered_load(f, "1Gbps", 0, "2s") == offered_load(f, 1e9, 0, 2.0)
    with pytest.raises(ValueError, match=r"offered_load: capacity_bps: '1GBps' is in bytes per second"):
        offered_load(f, "1GBps", 0, 2.0)  # was "'>' not supported between 'str' and 'int'"
    with pytest.raises(TypeError, match=r"offered_load: capacity_bps: expected a number"):
        offered_load(f, None, 0, 2.0)
    # another table (a run's blocks, say): named, where pandas said KeyError: 'start_s'
    with pytest.raises(KeyError, match=re.escape("offered_load: flows: the table has no column 'start_s'")):
        offered_load(untraced.queues, 1e9, 0, 2.0)


def test_common_completed_names_the_run_whose_table_is_not_a_flows_table(untraced):
    from dcnsim.analysis import common_completed

    f = untraced.flows
    a, b = common_completed(f, f)
    assert len(a) == len(b) == int(f["completed"].astype(bool).sum())
    # was pandas' bare KeyError: 'completed'
    with pytest.raises(KeyError, match=re.escape("common_completed: b: the table has no column 'completed'")):
        common_completed(f, f.drop(columns="completed"))
    with pytest.raises(TypeError, match=re.escape("common_completed: a: expected a table (a pandas DataFrame), got dict")):
        common_completed({}, f)


def test_one_failure_is_a_list_of_one_and_validate_never_raises_on_a_builders_shape():
    f = dcnsim.Failure(a="sw", b="h1", at="1ms")
    one, listed = small_incast(failures=f), small_incast(failures=[f])
    # was "'Failure' object is not iterable", raised by validate and run alike
    assert one.to_dict() == listed.to_dict()
    assert dcnsim.validate(one) == dcnsim.validate(listed)
    custom = small_incast(topology=dcnsim.Custom(nodes=5, links=[]))
    assert [p.path for p in dcnsim.validate(custom)] == ["topology.nodes"]


@pytest.mark.parametrize("plot", ["line_plot", "facet_plot"])
def test_a_plots_y_axis_starts_at_zero_only_when_nothing_lies_below(plot):
    pd = pytest.importorskip("pandas")
    import matplotlib.pyplot as plt
    from dcnsim import plots

    kw = dict(xlabel="servers", ylabel="change in goodput (%)")
    change = pd.DataFrame({"servers": [2, 4, 8], "change": [5.0, -20.0, -60.0]})
    fig = getattr(plots, plot)(change, "servers", "change", **kw)
    # the axis started at 0 whatever the data: -20 and -60 were drawn off the figure
    lo, hi = fig.axes[0].get_ylim()
    assert lo <= -60 and hi >= 5
    plt.close(fig)
    fig = getattr(plots, plot)(change.assign(change=change["change"].abs()), "servers", "change", **kw)
    assert fig.axes[0].get_ylim()[0] == 0
    plt.close(fig)


def test_a_builders_extra_may_not_set_a_field_the_builder_sets_to_another_value():
    from dcnsim.scenario import FatTree, Scenario, Star, SyncReads

    def scen(topology, **kw):
        return Scenario(topology=topology, apps=[SyncReads(client=0, servers="1-2", sru="1KB", blocks=1)], **kw)

    star = dict(rate="1Gbps", delay="10us", buffer="32KB")
    # two values for one key: which one ran was the dict order's choice
    problems = dcnsim.validate(scen(Star(hosts=3, extra={"hosts": 5}, **star)))
    assert [p.path for p in problems] == ["extra.hosts"]
    assert "Star sets hosts = 3" in problems[0].message and "5" in problems[0].message
    with pytest.raises(dcnsim.ScenarioError, match="extra.hosts"):
        dcnsim.run(scen(Star(hosts=3, extra={"hosts": 5}, **star)))
    assert [p.path for p in dcnsim.validate(scen(Star(hosts=3, **star), stop="1s", extra={"stop": "2s"}))] \
        == ["extra.stop"]
    # the same value twice, or a key the builder leaves unset, is one value
    assert not dcnsim.validate(scen(Star(hosts=3, extra={"hosts": 3}, **star)))
    doc = scen(Star(hosts=3, rate="1Gbps", delay="10us", extra={"buffer": "64KB"})).to_dict()
    assert doc["topology"]["buffer"] == "64KB"
    assert FatTree(k=4, extra={"k": 4}).to_dict()["k"] == 4


@pytest.mark.parametrize("refusal", ["scenario", "labels", "cluster"])
def test_a_refused_sweep_leaves_none_of_the_parents_it_would_have_made(tmp_path, refusal):
    # refused for bad input, a sweep into new/a/b left new/ and new/a/
    # behind (only the last directory went again), and a cluster it could
    # not reach all three
    good = small_incast().to_dict()
    pts, kw, error = {
        "scenario": ([Point("a", dict(good, stop="-1s"))], {}, dcnsim.ScenarioError),
        "labels": ([Point("x=a/b", good), Point("x=a_b", good)], {}, ValueError),
        "cluster": ([Point("a", good)], {"cluster": "tcp://127.0.0.1:9"}, RuntimeError),
    }[refusal]
    with pytest.raises(error):
        run_sweep(pts, tmp_path / "new" / "a" / "b", jobs=1, progress=False, **kw)
    assert list(tmp_path.iterdir()) == []
    # a parent the user had stays, with what it holds
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "notes.txt").write_text("mine")
    with pytest.raises(error):
        run_sweep(pts, tmp_path / "new" / "a" / "b", jobs=1, progress=False, **kw)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["new", "notes.txt"]


def test_a_sweep_refused_before_it_runs_leaves_no_directory_it_made(tmp_path):
    bad = dict(small_incast().to_dict(), stop="-1s")
    out = tmp_path / "new" / "sweep"
    with pytest.raises(dcnsim.ScenarioError, match="stop"):
        run_sweep([Point("a", bad)], out, jobs=1, progress=False)
    assert not out.exists()
    # a directory the user had stays, with what it holds
    out.mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(dcnsim.ScenarioError):
        run_sweep([Point("a", bad)], out, jobs=1, progress=False)
    assert (out / "notes.txt").read_text() == "mine"
    (out / "notes.txt").unlink()
    with pytest.raises(dcnsim.ScenarioError):
        run_sweep([Point("a", bad)], out, jobs=1, progress=False)
    assert out.is_dir()


def test_a_scenarios_text_where_its_path_goes_is_named_as_such(tmp_path):
    """`dcnsim.run(text)` with a TOML scenario's text: the error says it
    looks like the text, not a path, and what to pass; a missing path is
    still named as missing."""
    text = 'name = "x"\n[topology]\nkind = "star"\n'
    with pytest.raises(dcnsim.ScenarioError) as e:
        dcnsim.run(text)
    (p,) = e.value.errors
    assert p.path == "file" and "looks like a scenario's TOML text, not a path" in p.message, p
    for wrong in ("no", "false", None):  # truthy text showed the bar it meant to hide
        with pytest.raises(TypeError, match="progress: expected True or False"):
            dcnsim.run(text, progress=wrong)
    for line in ('stop = "1ms"', "stop='1ms'"):  # one line of it too
        with pytest.raises(dcnsim.ScenarioError, match="looks like a scenario's TOML text"):
            dcnsim.run(line)
    for path in (tmp_path / "gone.toml", tmp_path / "topology.buffer=16KB__seed=1" / "scenario.json"):
        with pytest.raises(dcnsim.ScenarioError) as e:
            dcnsim.run(str(path))
        assert e.value.errors[0].message == f"no such file: {path}"


@pytest.mark.parametrize("axes, seeds, field, value", [
    # two points of one label: found at run_sweep as a label clash, blaming the label
    ({"topology.buffer": ["16KB", "32KB", "16KB"]}, None, "axes['topology.buffer']", "'16KB'"),
    ({"topology.buffer": ["16KB"]}, [1, 2, 1], "seeds", "1"),
])
def test_grid_names_a_value_given_twice(axes, seeds, field, value):
    with pytest.raises(ValueError, match=rf"^grid: {re.escape(field)}: {re.escape(value)} is given twice"):
        grid(small_incast().to_dict(), axes, seeds=seeds)


def test_a_directory_argument_that_is_not_a_path_is_named():
    # a bare "expected str, bytes or os.PathLike object, not NoneType" named neither
    with pytest.raises(TypeError, match=r"^read_result: path: expected a run's directory, got None"):
        dcnsim.read_result(None)
    with pytest.raises(TypeError, match=r"^run_sweep: out_dir: expected a directory path, got None"):
        run_sweep([Point("p", small_incast().to_dict())], None)


def test_a_builders_extra_that_is_not_a_table_is_a_problem_validate_returns():
    """Star(..., extra=5) made validate, which returns a scenario's
    problems, raise a bare TypeError from inside the builder."""
    topo = dcnsim.Star(hosts=3, rate="1Gbps", delay="1us", buffer="10KB", extra=5)
    (p,) = dcnsim.validate(dcnsim.Scenario(topology=topo, apps=[dcnsim.Bulk(src=1, dst=0, size="1MB")]))
    assert p.path == "extra" and "Star's extra is a table of keys" in p.message and "got 5" in p.message
    with pytest.raises(dcnsim.ScenarioError, match="Tcp's extra is a table"):
        dcnsim.Tcp(extra="cc=dctcp").to_dict()


def test_a_custom_link_tuple_longer_than_its_short_form_is_named():
    """A 5-tuple link, in Link's own order, reached the core as an array
    ("expected a table, got an array")."""
    from dcnsim.scenario import Custom

    c = Custom(nodes=[("a", "host"), ("b", "host"), ("s", "switch", "x")],
               links=[("a", "s", "1Gbps", "1us", "5KB"), ("b", "s", "1Gbps", "1us")])
    probs = dcnsim.validate(dcnsim.Scenario(topology=c, apps=[dcnsim.Bulk(src=0, dst=1, size="1MB")]))
    assert [(p.path, p.message) for p in probs] == [
        ("topology.nodes[2]", "a tuple here is (name, kind), got 3 values: give the other keys by name "
                              "(a Node or a table)"),
        ("topology.links[0]", "a tuple here is (a, b, rate, delay), got 5 values: give the other keys by name "
                              "(a Link or a table)")]


def test_an_empty_override_path_and_no_apps_are_named():
    # ": empty component …" named nothing; apps=None was "apps[0]: expected a table, got null"
    with pytest.raises(dcnsim.ScenarioError, match=r"^'': empty component in the field path \(a path is like"):
        dcnsim.with_overrides(small_incast().to_dict(), {"": 1})
    topo = dcnsim.Star(hosts=3, rate="1Gbps", delay="1us", buffer="10KB")
    (p,) = dcnsim.validate(dcnsim.Scenario(topology=topo, apps=None))
    assert (p.path, p.message.split(":")[0]) == ("apps", "no apps")


def test_to_dict_of_a_builder_holding_numpy_is_plain_json_and_its_repr_evaluates():
    """The docs take a CDF as an (n, 2) array and ``pcap`` hosts as
    ``np.arange``; ``to_dict()`` is the schema's plain JSON (an array in it
    made ``json.dumps`` fail) and the repr builds an equal scenario without
    numpy's names (it printed ``array([...])``)."""
    import json

    np = pytest.importorskip("numpy")
    s = dcnsim.Scenario(topology=dcnsim.Star(hosts=4, rate="1Gbps", delay="1us", buffer="64KB"),
                        apps=dcnsim.Poisson(load=np.float64(0.3), cdf=np.array([[1000, 0.0], [100000, 1.0]]),
                                            duration="5ms"),
                        pcap=np.arange(2))
    d = s.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["pcap"] == {"hosts": [0, 1]} and d["apps"][0]["cdf"] == [[1000.0, 0.0], [100000.0, 1.0]]
    assert type(d["apps"][0]["load"]) is float
    assert "array" not in repr(s)
    assert eval(repr(s), vars(dcnsim)).to_dict() == d
