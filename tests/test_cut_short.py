"""What Ctrl-C leaves behind, said as it is: a `tune` cut off after its last
trial asks no trial again on resume (and says so), and an interrupted
`sweep` rewrites `sweep.csv` with this sweep's complete points (as a failed
one does), never leaving an earlier sweep's rows to pass for this one's.

In-process: the interrupt is raised where it would land (in the
confirmation runs, in a point's run), so the test does not race a timer."""

from __future__ import annotations

import importlib.util
import json

import dcnsim
import pandas as pd
import pytest
from conftest import needs_core
from dcnsim import sweep, tuning
from dcnsim.cli import main

pytestmark = needs_core

needs_optuna = pytest.mark.skipif(importlib.util.find_spec("optuna") is None,
                                  reason="Optuna is not installed (pip install '.[tune]')")


def _ctrl_c(*a, **kw):
    """Ctrl-C where a stub of it is put: the interrupt lands there."""
    raise KeyboardInterrupt


def _one_flow() -> dict:
    return dcnsim.Scenario(
        topology=dcnsim.Star(hosts=2, rate="1Gbps", delay="50us", buffer="1000pkt"),
        tcp=dcnsim.Tcp(mss=1000, header=40, rto_min="10ms"),
        apps=[dcnsim.Bulk(src=1, dst=0, duration="5ms")],
        stop="1s",
    ).to_dict()


@needs_optuna
def test_ctrl_c_after_the_last_trial_says_no_trial_is_asked_again(tmp_path, capsys, monkeypatch):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    f = tmp_path / "s.json"
    f.write_text(json.dumps(_one_flow()))
    out = tmp_path / "t"
    argv = ["tune", str(f), "--param", "tcp.rwnd=int:2000:60000", "--objective", "goodput", "--trials", "2",
            "--seeds", "1", "--out", str(out), "--no-progress", "--jobs", "1"]
    real = tuning._confirm

    monkeypatch.setattr(tuning, "_confirm", _ctrl_c)
    assert main(argv) == 130
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("interrupted after the last trial; the study is complete"), said
    assert "asked again" not in said and "resuming asks no trial again" in said, said
    assert said.endswith(f"resume with: dcnsim {' '.join(argv)}"), said
    assert not (out / "best.json").exists()

    # what it said is what a resume does: no trial run, the files written
    monkeypatch.setattr(tuning, "_confirm", real)
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "2 trials (0 run now)" in printed, printed
    study = optuna.load_study(study_name="dcnsim-tune",
                              storage=JournalStorage(JournalFileBackend(str(out / "study.log"))))
    assert len(study.trials) == 2
    assert (out / "best.json").is_file()


@needs_optuna
def test_ctrl_c_in_the_search_still_says_a_trial_under_way_is_asked_again(tmp_path, capsys, monkeypatch):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(_one_flow()))
    out = tmp_path / "t"

    def ctrl_c(self, *a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(tuning._Search, "evaluate", ctrl_c)
    assert main(["tune", str(f), "--param", "tcp.rwnd=int:2000:60000", "--objective", "goodput", "--trials", "2",
                 "--seeds", "1", "--out", str(out), "--no-progress", "--jobs", "1"]) == 130
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert "a trial under way, if any, is asked again" in said, said


def _sweep(path, out, values: str, capsys, *more: str) -> int:
    rc = main(["sweep", str(path), "--set", f"apps.0.blocks={values}", "--jobs", "1", "--no-progress",
               "--out", str(out), *more])
    capsys.readouterr()
    return rc



def _interrupt_the_second_point(monkeypatch):
    """Ctrl-C when the sweep starts its second point; returns the real
    point runner (to put back)."""
    real, calls = sweep._run_point, []

    def ctrl_c_on_the_second(*a, **kw):
        calls.append(a)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(sweep, "_run_point", ctrl_c_on_the_second)
    return real

def test_an_interrupted_sweep_rewrites_sweep_csv_with_its_complete_points(small_incast_path, tmp_path, capsys,
                                                                           monkeypatch):
    out = tmp_path / "sw"
    # an earlier sweep into the same directory, of a point of this one (a
    # sweep with other points is refused: test_sweep)
    assert _sweep(small_incast_path, out, "2", capsys) == 0
    assert list(pd.read_csv(out / "sweep.csv")["label"]) == ["apps.0.blocks=2"]

    real = _interrupt_the_second_point(monkeypatch)
    argv = ["sweep", str(small_incast_path), "--set", "apps.0.blocks=2,3,4", "--jobs", "1", "--no-progress",
            "--out", str(out)]
    assert main(argv) == 130
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("interrupted; finished points are kept (sweep.csv lists them)"), said
    assert said.endswith(f"resume with: dcnsim {' '.join(argv)}"), said
    # every point of this sweep, the table saying which are complete: 2
    # (resumed) and 3 (run) with their results; 4 (never run) with its
    # parameter alone, so a script reading the table sees it is partial
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["label"]) == ["apps.0.blocks=2", "apps.0.blocks=3", "apps.0.blocks=4"]
    assert list(table["status"]) == ["done", "done", "not run"]
    assert list(table["apps.0.blocks"]) == [2, 3, 4]
    assert table["events"].iloc[:2].gt(0).all() and pd.isna(table["events"].iloc[2])
    assert not list(out.glob("*.tmp*"))

    monkeypatch.setattr(sweep, "_run_point", real)
    assert main(argv) == 0
    assert "3 points (1 run, 2 resumed)" in capsys.readouterr().out
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["label"]) == ["apps.0.blocks=2", "apps.0.blocks=3", "apps.0.blocks=4"]
    assert (table["status"] == "done").all()


def test_a_sweep_interrupted_before_any_point_finished_leaves_no_earlier_table(small_incast_path, tmp_path,
                                                                               capsys, monkeypatch):
    out = tmp_path / "sw"
    # an earlier table of a point of this sweep, whose scenario has changed
    # since: its results are not this sweep's (a sweep with other points
    # is refused: test_sweep)
    f = tmp_path / "s.toml"
    f.write_text(small_incast_path.read_text())
    assert _sweep(f, out, "5", capsys) == 0
    f.write_text(small_incast_path.read_text().replace("seed = 7", "seed = 8"))

    # (--replace: the file changed since, and its earlier point goes only when asked)
    monkeypatch.setattr(sweep, "_run_point", _ctrl_c)
    assert main(["sweep", str(f), "--set", "apps.0.blocks=5,6", "--jobs", "1", "--no-progress",
                 "--out", str(out), "--replace"]) == 130
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("interrupted before any point finished: none is kept, pending ones were cancelled; "
                           "resume with:"), said
    assert not (out / "sweep.csv").exists()

    # cut off before any point ran (reading or validating the points): nothing is said to be kept or cancelled
    monkeypatch.setattr(sweep, "_sweep_locked", _ctrl_c)
    assert main(["sweep", str(f), "--set", "apps.0.blocks=5,6", "--jobs", "1", "--no-progress",
                 "--out", str(out), "--replace"]) == 130
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("interrupted before any point ran; resume with:"), said


def test_no_table_of_earlier_results_is_left_while_they_are_replaced(small_incast_path, tmp_path, capsys,
                                                                     monkeypatch):
    """A sweep killed outright (SIGKILL, out of memory) writes no table of
    its own; had the earlier `sweep.csv` stayed while its points were being
    replaced, it would have listed numbers no point directory holds any
    more. So it is gone before the first point runs again."""
    out = tmp_path / "sw"
    f = tmp_path / "s.toml"
    f.write_text(small_incast_path.read_text())
    assert _sweep(f, out, "5,6", capsys) == 0
    assert (out / "sweep.csv").is_file()
    f.write_text(small_incast_path.read_text().replace("seed = 7", "seed = 8"))

    real, seen = sweep._run_point, []

    def run_point(*a, **kw):
        seen.append((out / "sweep.csv").exists())
        return real(*a, **kw)

    monkeypatch.setattr(sweep, "_run_point", run_point)
    assert _sweep(f, out, "5,6", capsys, "--replace") == 0  # the file changed since: asked to replace
    assert seen == [False, False]
    # and the sweep's own table lists the new results
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["label"]) == ["apps.0.blocks=5", "apps.0.blocks=6"] and (table["seed"] == 8).all()


def test_run_sweep_gives_the_complete_points_with_the_interrupt(small_incast_path, tmp_path, monkeypatch):
    _interrupt_the_second_point(monkeypatch)
    pts = sweep.grid(small_incast_path, {"apps.0.blocks": [1, 2, 3]})
    with pytest.raises(KeyboardInterrupt) as e:
        sweep.run_sweep(pts, tmp_path / "sw", jobs=1, progress=False)
    assert list(e.value.df["label"]) == ["apps.0.blocks=1"]
    assert e.value.df.attrs["computed"] == ["apps.0.blocks=1"]


def test_ctrl_c_after_the_last_point_keeps_the_table_and_cancels_nothing(small_incast_path, tmp_path, capsys,
                                                                         monkeypatch):
    # Ctrl-C while the table is made, after every point ran: the interrupt
    # lands there (a short sweep's first pandas import takes its last
    # second or more), so the table still goes with it and nothing is
    # said to be cancelled
    out = tmp_path / "sw"
    argv = ["sweep", str(small_incast_path), "--set", "apps.0.blocks=2,3", "--jobs", "1", "--no-progress",
            "--out", str(out)]
    real = sweep._warn_once

    monkeypatch.setattr(sweep, "_warn_once", _ctrl_c)
    assert main(argv) == 130
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("interrupted after the last point ran: none was cancelled, finished points are kept "
                           "(sweep.csv lists them)"), said
    assert "pending" not in said and said.endswith(f"resume with: dcnsim {' '.join(argv)}"), said
    assert list(pd.read_csv(out / "sweep.csv")["label"]) == ["apps.0.blocks=2", "apps.0.blocks=3"]

    # what it said is what a resume does: no point run again
    monkeypatch.setattr(sweep, "_warn_once", real)
    assert main(argv) == 0
    assert "2 points (0 run, 2 resumed)" in capsys.readouterr().out


def test_an_interrupt_that_leaves_the_table_unmakeable_is_still_the_interrupt(small_incast_path, tmp_path,
                                                                              monkeypatch, capsys):
    """Ctrl-C while the table's first `import pandas` ran left pandas
    half-imported, and the handler's second try at the table raised an
    AttributeError: exit 1 and a traceback (the determinism audit). The
    interrupt stays the interrupt: exit 130, every point kept, and rerunning
    writes the table."""
    calls = []

    def table(*a, **kw):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        raise AttributeError("partially initialized module 'pandas'")

    real = sweep._table
    monkeypatch.setattr(sweep, "_table", table)
    out = tmp_path / "sw"
    argv = ["sweep", str(small_incast_path), "--set", "apps.0.blocks=1,2", "--out", str(out), "--no-progress"]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "interrupted after the last point ran" in err and "Traceback" not in err
    monkeypatch.setattr(sweep, "_table", real)
    assert main(argv) == 0
    assert list(pd.read_csv(out / "sweep.csv")["label"]) == ["apps.0.blocks=1", "apps.0.blocks=2"]
    assert "2 resumed" in capsys.readouterr().out
