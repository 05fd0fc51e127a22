"""Ctrl-C: a real SIGINT to a child `dcnsim` process stops a run or a sweep
within seconds, exits 130 with one line saying what was left behind, and
leaves no result behind that could pass for a finished one. The core polls
the interpreter's signals every 2^16 events (world.rs `periodic`); before
that, a run ignored Ctrl-C until it ended and then panicked in the binding.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import dcnsim
import pytest
from conftest import SIGINT_DEADLINE_S as DEADLINE_S
from conftest import default_sigint, needs_core
from conftest import interrupt as _interrupt
from conftest import spawn_dcnsim as _spawn
from dcnsim import _core

pytestmark = [needs_core, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

#: One 10 Gbps bulk flow for 1000 simulated seconds: minutes of wall time,
#: so a run that ignored SIGINT would blow the deadline by far.
LONG = """\
name = "long"
stop = "1000s"
[topology]
kind = "star"
hosts = 2
rate = "10Gbps"
delay = "10us"
buffer = "100pkt"
[[apps]]
kind = "bulk"
src = 0
dst = 1
duration = "1000s"
"""

def test_sigint_stops_a_run_at_once_and_writes_nothing(tmp_path, started):
    scen = tmp_path / "long.toml"
    scen.write_text(LONG)
    out_dir = tmp_path / "out"
    proc = _spawn("run", str(scen), "--out", str(out_dir), cwd=tmp_path)
    out, err, took = _interrupt(proc, started)
    assert proc.returncode == 130, (out, err)
    assert err.strip().splitlines()[-1] == "interrupted; nothing written", err
    assert "Traceback" not in err and "panicked" not in err, err
    assert took < DEADLINE_S, f"took {took:.1f} s to stop"
    assert not out_dir.exists() or not any(out_dir.iterdir()), list(out_dir.iterdir())


def test_sigint_stops_a_sweep_cancels_pending_points_and_says_how_to_resume(tmp_path, started):
    scen = tmp_path / "long.toml"
    scen.write_text(LONG)
    out_dir = tmp_path / "sw"
    # six points on two workers: four are queued when SIGINT comes
    args = ("sweep", str(scen), "--set", "topology.delay=10us,11us,12us,13us,14us,15us", "--jobs", "2",
            "--no-progress", "--out", str(out_dir))
    proc = _spawn(*args, cwd=tmp_path)
    out, err, took = _interrupt(proc, started)
    assert proc.returncode == 130, (out, err)
    last = err.strip().splitlines()[-1]
    # nothing had finished, and the line says so
    assert last.startswith("interrupted before any point finished: none is kept, pending ones were "
                           "cancelled;") \
        and "resume with: dcnsim sweep" in last, err
    assert "Traceback" not in err, err
    assert took < DEADLINE_S, f"took {took:.1f} s to stop"
    # nothing finished, so nothing may look finished
    assert not list(out_dir.rglob("summary.json"))
    # and no worker goes on with a queued point after the parent is gone
    time.sleep(1.0)
    ps = subprocess.run(["ps", "-o", "pid=", "-g", str(proc.pid)], capture_output=True, text=True)
    assert ps.stdout.strip() == "", f"processes left in the group: {ps.stdout}"


def test_sigint_in_python_raises_keyboardinterrupt_promptly(tmp_path, started):
    scen = tmp_path / "long.toml"
    scen.write_text(LONG)
    code = (
        "import dcnsim, sys\n"
        "try:\n"
        f"    dcnsim.run({str(scen)!r})\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt'); sys.exit(7)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=default_sigint)
    out, err, took = _interrupt(proc, started)
    assert proc.returncode == 7 and out.strip() == "KeyboardInterrupt", (out, err)
    assert took < DEADLINE_S


def test_the_interrupt_poll_changes_no_result(small_incast_path):
    """The hook only decides when a run stops, never what it reports."""
    from dcnsim.scenario import load_scenario, to_json

    text = to_json(load_scenario(small_incast_path))
    a, b = _core.run(text, 3, True), _core.run(text, 3, False)
    assert a["summary"] == b["summary"]
    for name, cols in a["tables"].items():
        for col, values in cols.items():
            assert list(values) == list(b["tables"][name][col]), (name, col)


def test_a_run_off_the_main_thread_is_not_interruptible_and_still_runs(small_incast_path):
    """Only the main thread gets signals; elsewhere the poll is off (it
    would only wait for the GIL), and the run is the same."""
    import threading

    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", dcnsim.run(small_incast_path, seed=3)))
    t.start()
    t.join()
    ref = dcnsim.run(small_incast_path, seed=3)
    assert box["r"].summary == ref.summary


def _group_left(pgid: int, patience: float = 10.0) -> str:
    """The processes of group ``pgid`` still there after up to ``patience``
    seconds (empty once they are all gone)."""
    t_end = time.monotonic() + patience
    while True:
        ps = subprocess.run(["ps", "-o", "pid=,args=", "-g", str(pgid)], capture_output=True, text=True)
        if not ps.stdout.strip() or time.monotonic() > t_end:
            return ps.stdout.strip()
        time.sleep(0.2)


def _wait_started(proc: subprocess.Popen, started, patience: float = 60.0) -> None:
    t_end = time.monotonic() + patience
    while not started.exists():
        assert proc.poll() is None, f"exited early: {proc.communicate()}"
        assert time.monotonic() < t_end, "the run never started"
        time.sleep(0.05)
    time.sleep(1.0)
    assert proc.poll() is None


def test_sigterm_stops_a_sweep_as_ctrl_c_does_with_a_terminated_status(tmp_path, started):
    # `kill PID`, a batch scheduler's time limit: to the parent alone, not
    # its group. Before, the parent died without a word and its workers
    # ran on into the directory, orphaned, holding its output open.
    import signal

    scen = tmp_path / "long.toml"
    scen.write_text(LONG)
    out_dir = tmp_path / "sw"
    proc = _spawn("sweep", str(scen), "--set", "topology.delay=10us,11us,12us,13us", "--jobs", "2",
                  "--no-progress", "--out", str(out_dir), cwd=tmp_path)
    _wait_started(proc, started)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (out, err)
    last = err.strip().splitlines()[-1]
    # nothing had finished, and the line says so
    assert last.startswith("terminated (SIGTERM) before any point finished: none is kept, pending ones were "
                           "cancelled;") \
        and "resume with: dcnsim sweep" in last, err
    assert "Traceback" not in err, err
    assert _group_left(proc.pid) == "", "workers left running"
    assert not list(out_dir.rglob("summary.json")) and not list(out_dir.rglob(".*.tmp"))


def test_a_sweep_killed_outright_takes_its_workers_with_it(tmp_path, started):
    # SIGKILL cannot be caught: the workers learn of it from the kernel
    # (their parent's death signal) and end instead of running on
    import signal

    scen = tmp_path / "long.toml"
    scen.write_text(LONG)
    proc = _spawn("sweep", str(scen), "--set", "topology.delay=10us,11us,12us,13us", "--jobs", "2",
                  "--no-progress", "--out", str(tmp_path / "sw"), cwd=tmp_path)
    _wait_started(proc, started)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)  # returns once the workers, which hold its pipes, are gone too
    assert _group_left(proc.pid) == "", "workers left running"


def test_an_interrupt_among_the_pools_submits_stops_its_workers(tmp_path, monkeypatch):
    """The first submit forks the pool's workers; a Ctrl-C among the
    submits came before the try that stops the pool, so the pool's exit
    ran the points already submitted to their end before the interrupt
    was raised, or, caught at the wrong moment, left workers blocked on
    their queue and the exit joining them for ever (audit 35: a sweep hung
    after "interrupted ... resume with"). Now the pool is stopped at once:
    no point submitted before the interrupt finishes, and no worker
    outlives it."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from dcnsim.sweep import Point, run_sweep

    real = ProcessPoolExecutor.submit
    calls = []

    def submit(self, *a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, *a, **kw)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    # a few seconds a point, so a pool run to its end shows as written points
    slow = os.path.join(os.path.dirname(__file__), "..", "scenarios", "outcast_fattree.toml")
    pts = [Point(f"s{i}", slow, seed=i) for i in range(1, 7)]
    with pytest.raises(KeyboardInterrupt):
        run_sweep(pts, tmp_path / "sw", jobs=2, progress=False)
    time.sleep(0.5)
    assert len(calls) == 3 and not multiprocessing.active_children()
    assert not list((tmp_path / "sw").rglob("summary.json")), "points ran on after the interrupt"


def test_an_interrupted_command_does_not_wait_on_a_thread_that_never_ends(tmp_path):
    """A Ctrl-C inside the pool's wait() can leave its manager thread on a
    future's lock no one releases, and Python's exit joins that thread for
    ever. The process entry leaves at once with the interrupted status when
    such a thread is still alive, and returns as before when none is."""
    code = ("import threading, time\n"
            "from dcnsim._entry import _leave_if_held\n"
            "stuck = threading.Lock(); stuck.acquire()\n"
            "threading.Thread(target=stuck.acquire).start()\n"
            "_leave_if_held(130)\n"
            "print('returned')\n")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 130 and "returned" not in r.stdout, (r.returncode, r.stdout, r.stderr)
    assert time.monotonic() - t0 < 30
    r = subprocess.run([sys.executable, "-c", "from dcnsim._entry import _leave_if_held\n"
                        "_leave_if_held(130)\nprint('returned')\n"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "returned", r.stderr


def test_an_interrupted_sweeps_table_counts_every_point_written(tmp_path, monkeypatch, small_incast_path):
    """A worker can finish a point (its summary written last) while the
    interrupt keeps its result from coming back: the table on the way out
    said "not run" of points complete on disk (audit 35: 10 written, 8 in
    sweep.csv). Every point with its summary on disk is in the table."""
    import dcnsim.sweep as sweep
    from dcnsim.sweep import Point, run_sweep

    def wait(fs, timeout=None, return_when=None):
        # let the workers finish what they hold, then the Ctrl-C: before
        # any of their results is read
        time.sleep(3)
        raise KeyboardInterrupt

    pts = [Point(f"s{i}", str(small_incast_path), seed=i) for i in range(1, 5)]
    # a whole sweep first: its table's columns, and a point whose table is
    # then removed, which its earlier summary must not pass off as done
    whole = run_sweep(pts, tmp_path / "sw", jobs=2, progress=False)
    (tmp_path / "sw" / "s1" / "flows.csv").unlink()
    for p in pts[2:]:
        (tmp_path / "sw" / p.label / "summary.json").unlink()
    monkeypatch.setattr(sweep, "wait", wait)
    with pytest.raises(KeyboardInterrupt) as e:
        run_sweep(pts, tmp_path / "sw", jobs=2, progress=False)
    complete = {p.label for p in pts if (tmp_path / "sw" / p.label / "summary.json").exists()
                and (tmp_path / "sw" / p.label / "flows.csv").exists()}
    assert complete - {"s2"}, "no point finished in 3 s: the test shows nothing"
    assert set(e.value.df["label"]) == complete
    assert list(e.value.df.columns) == list(whole.columns)


def test_a_stopped_run_says_its_out_holds_an_earlier_runs_results(tmp_path, small_incast_path):
    """A run refused or stopped (limits.memory) or interrupted said "nothing
    written" while --out still held an earlier, different run's tables: a
    script that missed the exit status read them as this run's (audit 35).
    It says the directory holds an earlier run's results, as they were."""
    from conftest import cli
    from dcnsim.cli import _interrupted_text

    out = tmp_path / "out"
    assert cli("run", str(small_incast_path), "--out", str(out)).returncode == 0
    r = cli("run", str(small_incast_path), "--out", str(out), "--set", "limits.memory=1KB")
    assert r.returncode == 2
    assert f"nothing written ({out} still holds an earlier run's results, as they were" in r.stderr, r.stderr
    said = _interrupted_text("run", ["run", "x.toml"], str(out))
    assert said.startswith("interrupted; nothing written (") and "earlier run's results" in said
    assert _interrupted_text("run", ["run", "x.toml"], str(tmp_path / "new")) == "interrupted; nothing written"
