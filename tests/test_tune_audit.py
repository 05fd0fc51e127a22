"""`dcnsim tune`, what an audit found a user would hit: a Ctrl-C in the
confirmation runs left a new trials.csv beside the previous call's best;
a changed constraint or baseline was refused as "another scenario, range,
objective, seed list or sampler"; trials that all stalled ended in "no
feasible trial" with "not a number" as their reason; the FaST example's
reference warned that the very parameter tuned "changes nothing"; a
reference outside the ranges was silently not the first trial; and a
resumed study's trials were only checked as a set, not in order."""

from __future__ import annotations

import importlib.util
import json
import re
import warnings

import dcnsim
import pandas as pd
import pytest
from conftest import needs_core
from dcnsim.cli import main
from dcnsim.tuning import Objective, TuneError, parse_param, tune
from test_tune import one_flow

pytestmark = [needs_core, pytest.mark.skipif(importlib.util.find_spec("optuna") is None,
                                             reason="Optuna is not installed (pip install '.[tune]')")]

KW = dict(objective="goodput", seeds=[1], progress=False, jobs=1, plots=False)
RWND = {"tcp.rwnd": "int:2000:60000"}


def _dcnsim_warnings(caught) -> list:
    return [str(w.message) for w in caught if issubclass(w.category, dcnsim.DcnsimWarning)]


def test_ctrl_c_in_the_confirmation_runs_leaves_the_files_of_the_call_before(tmp_path, monkeypatch):
    import dcnsim.tuning as tuning

    out = tmp_path / "t"
    tune(one_flow("5ms"), RWND, trials=2, out=out, **KW)
    before = {f: (out / f).read_bytes() for f in ("trials.csv", "confirm.csv", "best.json")}
    assert json.loads(before["best.json"])["trials"] == 2

    def cut(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(tuning, "_confirm", cut)
    with pytest.raises(KeyboardInterrupt) as e:
        tune(one_flow("5ms"), RWND, trials=3, out=out, **KW)
    assert getattr(e.value, "trials_done", False), "the command line says the study is complete"
    # the three files are still one set, the call before's: trials.csv
    # was written first, before these runs, and stood beside an older best
    assert {f: (out / f).read_bytes() for f in before} == before
    monkeypatch.undo()
    res = tune(one_flow("5ms"), RWND, trials=3, out=out, **KW)
    assert res.computed == 0, "every trial had finished: none is asked again"
    assert len(pd.read_csv(out / "trials.csv")) == 3 == json.loads((out / "best.json").read_text())["trials"]


@pytest.mark.parametrize("change, words", [
    ({"constraint": "goodput>=0.5*baseline"}, "another constraint (the study's: none; now: goodput >= 0.5 × baseline)"),
    ({"baseline": {"tcp.rwnd": 9000}}, "another baseline (the study's: none; now: tcp.rwnd=9000)"),
    ({"seeds": [1, 2]}, "another seed list (the study's: 1; now: 1,2)"),
    ({"sampler_seed": 3}, "another sampler or sampler seed (the study's: tpe, seed 0; now: tpe, seed 3)"),
    ({"direction": "minimize"}, "another objective or direction (the study's: maximize goodput; now: minimize goodput)"),
    ({"params": {"tcp.rwnd": "int:2000:50000"}},
     "another parameter list or range (the study's: tcp.rwnd int 2000..60000; now: tcp.rwnd int 2000..50000)"),
])
def test_a_study_refused_for_another_setting_names_the_setting(tmp_path, change, words):
    out = tmp_path / "s"
    tune(one_flow("5ms"), RWND, trials=1, out=out, **KW)
    journal = (out / "study.log").read_bytes()
    kw = {**KW, "trials": 1, "out": out, "params": RWND, **change}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)  # goodput minimized: warned of, not the point here
        with pytest.raises(TuneError) as e:
            tune(one_flow("5ms"), **kw)
    assert str(e.value).startswith(f"out: {out} holds a study of {words}; use another out directory"), str(e.value)
    # (Optuna's journal notes each opening of the study: only appended to)
    assert (out / "study.log").read_bytes().startswith(journal)
    assert len(pd.read_csv(out / "trials.csv")) == 1


def test_the_command_names_the_scenario_paths_that_differ(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(one_flow("5ms").to_dict()))
    args = ["tune", str(f), "--param", "tcp.rwnd=int:2000:60000", "--objective", "goodput", "--trials", "1",
            "--seeds", "1", "--out", str(tmp_path / "o"), "--no-progress", "--jobs", "1"]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args + ["--set", "stop=2s", "--set", "tcp.mss=1200"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tune: --out: {tmp_path / 'o'} holds a study of another scenario (the file with its "
                          "--set overrides): stop, tcp.mss differ; use another --out"), err
    # what may change between calls is not refused
    assert main(args + ["--confirm-seeds", "4", "--reference", "tcp.rwnd=30000", "--trials", "2"]) == 0


def test_trials_that_all_stalled_say_so_and_the_stall_is_their_reason(tmp_path, capsys):
    # a 100 MB flow in a 5 ms run: every trial stalls at `stop`, and fct_mean has no completed flow.
    # It said "no feasible trial" (without a constraint), each trial "objective fct_mean is not a
    # number on some seed", and the sweep warned of each trial's unfinished app besides
    doc = one_flow().to_dict()
    doc["stop"] = "5ms"
    doc["apps"] = [{"kind": "bulk", "src": 1, "dst": 0, "size": "100MB"}]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    out = tmp_path / "o"
    rc = main(["tune", str(f), "--param", "tcp.rwnd=int:2000:60000", "--objective", "fct_mean", "--trials", "2",
               "--seeds", "1", "--out", str(out), "--no-progress", "--jobs", "1"])
    res = capsys.readouterr()
    assert rc == 1, res
    assert "no trial completed: see the error column of trials.csv" in res.out and "feasible" not in res.out
    assert "None" not in res.out and "n/a" in res.out.splitlines()[1], res.out
    assert "2 trials (2 run now), every one failed" in res.err and "had not finished" not in res.err, res.err
    t = pd.read_csv(out / "trials.csv")
    assert (t["state"] == "fail").all()
    assert t["error"].str.startswith("apps unfinished at stop on seed 1: ").all(), list(t["error"])
    # confirm.csv is a table a reader can open, with no row
    conf = pd.read_csv(out / "confirm.csv")
    assert list(conf.columns) == ["point", "overrides", "seeds", "mean", "ci95"] and conf.empty
    assert "params" not in json.loads((out / "best.json").read_text())


def test_an_objective_not_a_number_names_the_seeds(tmp_path):
    def odd_seed_nan(rec, _d):
        return float("nan") if rec["seed"] == 2 else 1.0

    r = tune(one_flow("5ms"), RWND, Objective("f", "minimize", odd_seed_nan), trials=1, seeds=[1, 2, 3],
             out=tmp_path / "n", progress=False, jobs=1, plots=False)
    assert list(r.trials["error"]) == ["objective f is not a number on seed 2"]


def _dctcp_star() -> dict:
    doc = one_flow("5ms").to_dict()
    doc["topology"]["ecn_k"] = "20pkt"
    doc["tcp"].update(cc="dctcp", dctcp_g=0.0625)
    return doc


def test_a_reference_switching_the_scheme_is_not_warned_of_for_the_keys_it_leaves_inert(tmp_path):
    # docs/tune/examples.sh's FaST example printed "tcp.dctcp_g: dctcp_g changes
    # nothing" for its `--reference tcp.cc=fast`: the parameter it tunes
    kw = dict(trials=1, seeds=[1], confirm_seeds=[2], progress=False, jobs=1, plots=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = tune(_dctcp_star(), {"tcp.dctcp_g": "log:0.01:0.5"}, "goodput", reference={"tcp.cc": "fast"},
                 out=tmp_path / "a", **kw)
    assert list(r.confirm["point"]) == ["best", "baseline", "reference"]
    assert _dcnsim_warnings(caught) == [], _dcnsim_warnings(caught)
    # a key the reference sets itself, inert under the scheme it names, is its own slip: still said
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tune(_dctcp_star(), {"tcp.dctcp_g": "log:0.01:0.5"}, "goodput",
             reference={"tcp.cc": "fast", "tcp.dctcp_g": 0.1}, out=tmp_path / "b", **kw)
    said = _dcnsim_warnings(caught)
    assert any(m.startswith("tcp.dctcp_g: dctcp_g changes nothing") for m in said), said
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, dcnsim.DcnsimWarning))


def test_a_reference_outside_the_ranges_is_said_and_only_compared_with(tmp_path, capsys):
    with pytest.warns(dcnsim.DcnsimWarning, match=r"^reference: tcp.rwnd=100000 is outside the range searched"):
        r = tune(one_flow("5ms"), RWND, trials=1, reference={"tcp.rwnd": 100000}, out=tmp_path / "o", **KW)
    assert r.trials["tcp.rwnd"].iloc[0] != 100000 and list(r.confirm["point"])[-1] == "reference"
    # in range: the first trial, and not a word
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = tune(one_flow("5ms"), RWND, trials=1, reference={"tcp.rwnd": 40000}, out=tmp_path / "in", **KW)
    assert _dcnsim_warnings(caught) == [] and r.trials["tcp.rwnd"].iloc[0] == 40000


def test_a_study_cut_off_in_a_trial_resumes_to_one_runs_trials_in_order(tmp_path, monkeypatch):
    # test_tune's version compares the points as sets; the docs promise
    # "exactly the trials of one run in one go": the same rows, in order,
    # with a constraint and past TPE's 8 random start-up trials
    import dcnsim.tuning as tuning

    kw = dict(params={"tcp.rwnd": "int:2000:60000", "tcp.init_cwnd": "int:1:10"}, trials=11,
              constraint="goodput>=0.5*baseline", **KW)
    whole = tune(one_flow("5ms"), out=tmp_path / "whole", **kw)
    real = tuning._Search.evaluate
    calls = {"n": 0}

    def cut(self, trial, over):
        calls["n"] += 1
        if calls["n"] == 10:  # trial 9, a TPE one
            raise KeyboardInterrupt
        return real(self, trial, over)

    monkeypatch.setattr(tuning._Search, "evaluate", cut)
    with pytest.raises(KeyboardInterrupt):
        tune(one_flow("5ms"), out=tmp_path / "cut", **kw)
    monkeypatch.undo()
    resumed = tune(one_flow("5ms"), out=tmp_path / "cut", **kw)
    assert resumed.computed == 2
    pd.testing.assert_frame_equal(resumed.trials, whole.trials)
    assert resumed.best == whole.best


def test_a_list_without_choice_is_pointed_to_choice():
    with pytest.raises(TuneError, match=r"LOW:HIGH, got 'fixed,adaptive' \(a list of values is a choice: "
                                        r"tcp.reordering=choice:fixed,adaptive\)"):
        parse_param("tcp.reordering=fixed,adaptive")
    with pytest.raises(TuneError) as e:
        parse_param("tcp.x=0:1:2")
    assert "choice" not in str(e.value)


def test_the_plots_legend_lists_only_the_groups_drawn(tmp_path, monkeypatch):
    # every trial met the constraint: the legend listed "trial (breaks the constraint)" all the same
    import dcnsim.plots as plots

    legends = []
    real = plots.save

    def keep(fig, path, *a, **k):
        legends.append([t.get_text() for t in fig.axes[0].get_legend().get_texts()])
        return real(fig, path, *a, **k)

    monkeypatch.setattr(plots, "save", keep)
    r = tune(one_flow("5ms"), RWND, trials=2, constraint="goodput>=1e5", out=tmp_path / "p",
             **{**KW, "plots": True})
    assert r.trials["feasible"].all() and len(r.figures) == 1
    assert legends == [["best", "baseline (confirm seeds)", "trial (feasible)"]], legends


@pytest.mark.parametrize("metric, kind", [("query_timeouts_mean", "partition_aggregate"),
                                          ("n_queries", "partition_aggregate"), ("n_blocks", "sync_reads")])
def test_a_metric_of_an_app_the_scenario_lacks_is_refused_before_any_run(tmp_path, metric, kind):
    # each of these ran every trial and failed it "not a number" on a scenario of bulk flows only
    with pytest.raises(TuneError, match=f"^objective: {metric} needs .* only a {kind} app makes"):
        tune(one_flow("5ms"), RWND, metric, direction="minimize", trials=1, out=tmp_path / "o", progress=False)
    assert not (tmp_path / "o").exists()


def test_a_timing_metric_is_warned_of_as_not_deterministic(tmp_path, capsys):
    def said(**kw):
        with warnings.catch_warnings(record=True) as w, pytest.raises(TuneError, match="^jobs"):
            warnings.simplefilter("always")
            tune(one_flow("5ms"), RWND, out=tmp_path / "v", progress=False, jobs=0, **kw)
        return _dcnsim_warnings(w)

    (msg,) = said(objective="wall_s", direction="minimize")
    assert msg.startswith("objective: wall_s is how the runs were computed, not what they simulated"), msg
    (msg,) = said(objective="goodput", constraint="wall_s<=0.5")
    assert msg.startswith("constraint: wall_s is how"), msg
    assert said(objective="goodput") == [] and said(objective="drops", direction="minimize") == []


def _sized() -> dict:
    doc = one_flow().to_dict()
    doc["apps"] = [{"kind": "bulk", "src": 1, "dst": 0, "size": "20KB"}]
    return doc


def test_one_field_in_two_spellings_is_one_parameter(tmp_path, capsys):
    # `--param apps[0].size=… --param apps.0.size=…` searched both, the later
    # written over the earlier in every trial; `--set` refuses the same
    with pytest.raises(TuneError, match=r"^params: apps\[0\].size and apps.0.size name one field: give it once"):
        tune(_sized(), ["apps[0].size=int:10000:20000", "apps.0.size=int:10000:30000"], "fct_mean",
             out=tmp_path / "o", progress=False)
    assert not (tmp_path / "o").exists()
    # a reference spelled the other way is still the first trial
    r = tune(_sized(), {"apps.0.size": "int:10000:20000"}, "fct_mean", trials=1, seeds=[1],
             reference={"apps[0].size": 15000}, out=tmp_path / "r", progress=False, jobs=1, plots=False)
    assert r.trials["apps.0.size"].iloc[0] == 15000


def test_a_range_of_plain_numbers_over_a_field_with_a_unit_gets_the_spelling(tmp_path):
    # 1:200 over a time is refused by the scenario at both ends; the error
    # says how to write the range (the numbers kept, the field's own unit)
    with pytest.raises(TuneError) as e:
        tune(one_flow("5ms"), {"tcp.rto_min": "1:200"}, trials=2, out=tmp_path / "u", **KW)
    msg = str(e.value)
    assert "expected a time with a unit" in msg
    assert msg.count("hint:") == 1 and "tcp.rto_min=1us:200us" in msg, msg
    # a range with its units is accepted (nothing to hint at)
    tune(one_flow("5ms"), {"tcp.rto_min": "1ms:2ms"}, trials=1, out=tmp_path / "ok", **KW)


def test_a_study_resumed_with_another_function_of_the_same_name_is_refused(tmp_path):
    # its trials were scored by the first function: the second, under the
    # same name, would mix two objectives in one table
    def goodput(rec, _d):
        return float(rec["goodput_bps"])

    def doubled(rec, _d):
        return 2.0 * float(rec["goodput_bps"])

    kw = {k: v for k, v in KW.items() if k != "objective"}
    tune(one_flow("5ms"), RWND, Objective("g", "maximize", goodput), trials=1, out=tmp_path / "s", **kw)
    # the same function again resumes
    tune(one_flow("5ms"), RWND, Objective("g", "maximize", goodput), trials=2, out=tmp_path / "s", **kw)
    with pytest.raises(TuneError, match=r"another objective .*a function of your own"):
        tune(one_flow("5ms"), RWND, Objective("g", "maximize", doubled), trials=3, out=tmp_path / "s", **kw)
    # a named objective carries no code: its name fixes it
    tune(one_flow("5ms"), RWND, trials=1, out=tmp_path / "n", **KW)
    tune(one_flow("5ms"), RWND, trials=2, out=tmp_path / "n", **KW)


@pytest.mark.parametrize("kwargs, words", [
    ({"params": None}, "params: expected a mapping of field paths to ranges"),
    ({"params": {"tcp.rto_min": ("1ms", "5ms")}}, "(low, high) takes numbers; a range with units is a string, "
                                                  "'1ms:5ms'"),
    ({"objective": None}, "objective: expected a metric's name"),
    ({"constraint": 5}, "constraint: expected a string like 'goodput>=0.95*baseline' or a Constraint, got 5"),
    ({"baseline": ["x"]}, "baseline: expected a mapping of field paths to values"),
    ({"out": None}, "out: expected a directory path, got None"),
])
def test_tune_names_an_argument_of_the_wrong_type(tmp_path, kwargs, words):
    """Each was a bare AttributeError, TypeError or ValueError from inside
    (`'int' object has no attribute 'metric'`), naming no argument."""
    args = {"params": {"tcp.rto_min": "1ms:5ms"}, "out": tmp_path / "t", **kwargs}
    with pytest.raises(TuneError, match=re.escape(words)):
        tune(one_flow("5ms"), trials=2, seeds=[1], progress=False, plots=False, **args)
    assert not (tmp_path / "t").exists()


def test_a_choice_with_an_empty_value_is_refused():
    # `choice:1ms,,2ms` searched 1ms and 2ms without a word
    with pytest.raises(TuneError, match="an empty value between commas"):
        parse_param("tcp.rto_min=choice:1ms,,2ms")
    assert parse_param("tcp.rto_min=choice:1ms,2ms").choices == ("1ms", "2ms")


def test_a_seed_set_anywhere_but_seeds_is_refused_not_dropped(tmp_path, capsys):
    """`--set seed=4` ran every trial on --seeds' 1 and 2 without a word;
    `--param seed=int:1:5` wrote seed=3 in trials.csv over runs of seeds
    1 and 2; `--baseline seed=5` named its run seed=5 and ran seed 2.
    Each is refused, saying where seeds come from, and nothing is written."""
    with pytest.raises(TuneError, match=r"^params: seed: a trial runs each of `seeds`"):
        tune(_sized(), ["seed=int:1:5"], out=tmp_path / "p", **{**KW, "seeds": [1, 2]})
    with pytest.raises(TuneError, match=r"^baseline: seed: the baseline runs each of `seeds`"):
        tune(_sized(), RWND, out=tmp_path / "b", baseline={"seed": 5}, **KW)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(_sized()))
    for flag in ("--set", "--baseline", "--reference"):
        code = main(["tune", str(f), "--param", "tcp.rwnd=int:2000:60000", flag, "seed=4", "--seeds", "1,2",
                     "--out", str(tmp_path / "c"), "--trials", "2", "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith(f"tune: {flag} seed=4: every trial, the baseline and the reference run "
                                            "each seed of --seeds (now 1,2): give --seeds 4 instead"), err
    assert not any((tmp_path / d).exists() for d in ("p", "b", "c"))
