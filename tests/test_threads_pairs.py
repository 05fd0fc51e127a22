"""benchmarks/threads_pairs.py: the 1-against-N timing pairs run end to end,
with today's engine and a baseline interpreter beside them, rounds in a
rotating order, and a bad baseline is a usage error naming the option."""
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_module

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "threads_pairs.py"
OUTCAST = str(SCRIPT.parents[1] / "scenarios" / "outcast_fattree.toml")


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_pairs_with_today_and_a_baseline():
    p = _run("--k", "4", "--stop", "200us", "--pairs", "1", "--today", "--baseline", sys.executable)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    # one round line with every run's time, then the medians
    assert "1 thread" in out and "2 threads" in out and "today's engine" in out and "baseline" in out
    assert "k = 4: median speed-up" in out and "holds the median with probability" in out
    assert "k = 4: against the baseline, 1 thread median" in out


def test_the_seeded_orders_price_against_fifo_ties():
    # one thread with ties = "fifo" beside the seeded runs: a price per run
    # and per event (the two orders run different simulations)
    p = _run("--k", "4", "--stop", "200us", "--pairs", "1", "--fifo")
    assert p.returncode == 0, p.stderr
    assert "FIFO ties" in p.stdout and "per event)" in p.stdout
    assert "k = 4: the seeded order's price on 1 thread, median" in p.stdout


def test_a_baseline_without_dcnsim_is_a_usage_error(tmp_path):
    p = _run("--k", "4", "--stop", "200us", "--baseline", str(tmp_path / "no-python"))
    assert p.returncode == 2
    assert "--baseline" in p.stderr and "cannot import dcnsim" in p.stderr
    assert "Traceback" not in p.stderr


def test_pairs_must_be_positive():
    p = _run("--k", "4", "--stop", "200us", "--pairs", "0")
    assert p.returncode == 2 and "--pairs" in p.stderr


def test_every_run_comes_first_once_per_cycle_of_rounds():
    mod = _module()
    for runs in (["one", "n"], ["one", "n", "today"], ["one", "n", "today", "fifo", "base"]):
        orders = [mod.rotated(runs, r) for r in range(len(runs))]
        # each round runs every run once, and each run leads one round
        assert all(sorted(o) == sorted(runs) for o in orders)
        assert sorted(o[0] for o in orders) == sorted(runs)
        # and the cycle repeats
        assert mod.rotated(runs, len(runs)) == orders[0]


def test_pairs_of_a_scenario_file_on_a_busy_machine():
    # a shipped scenario cut short, with one other process spinning
    p = _run("--scenario", OUTCAST, "--stop", "2ms", "--pairs", "1", "--spin", "1")
    assert p.returncode == 0, p.stderr
    assert "outcast_fattree.toml 2ms: 1 thread" in p.stdout and "(load " in p.stdout
    assert "outcast_fattree.toml: median speed-up" in p.stdout and "against 1's" in p.stdout


def test_stop_needs_one_value_per_scenario():
    p = _run("--scenario", OUTCAST, "--stop", "1ms", "2ms")
    assert p.returncode == 2 and "per --scenario" in p.stderr


def _module():
    return load_module("threads_pairs", SCRIPT)


def test_the_medians_interval_holds_it_as_often_as_it_says():
    import math
    import random

    mod = _module()
    # twelve pairs: the 3rd smallest to the 3rd largest, (4096 - 2(1 + 12 + 66)) / 4096
    xs = [1.62, 2.21, 1.70, 1.78, 1.80, 1.75, 1.90, 1.66, 1.85, 1.79, 1.72, 1.83]
    lo, hi, p = mod.median_interval(xs)
    assert (lo, hi) == (sorted(xs)[2], sorted(xs)[9])
    assert math.isclose(p, 3938 / 4096)
    # five pairs cannot reach 95 %: all of them, 1 - 2/32
    lo, hi, p = mod.median_interval([3.0, 1.0, 2.0, 5.0, 4.0])
    assert (lo, hi, p) == (1.0, 5.0, 30 / 32)
    # and the law itself: over many samples of a skewed distribution, the
    # interval holds the true median about as often as it says
    rng = random.Random(7)
    true_median = math.log(2)  # of the exponential distribution, rate 1
    held, trials = 0, 4000
    for _ in range(trials):
        lo, hi, p = mod.median_interval([rng.expovariate(1.0) for _ in range(12)])
        held += lo <= true_median <= hi
    assert abs(held / trials - 3938 / 4096) < 0.015


def test_a_partitioned_runs_round_says_where_its_time_went():
    import os

    # cut as asked however busy the machine is (the children inherit it)
    env = {**os.environ, "DCNSIM_CUT": "always", "DCNSIM_FREE_CORES": "8"}
    p = subprocess.run([sys.executable, str(SCRIPT), "--k", "4", "--stop", "200us", "--pairs", "1"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    round_line = next(ln for ln in p.stdout.splitlines() if ln.startswith("k = 4 200us:"))
    assert " windows: waits " in round_line and "between windows" in round_line, round_line
    assert "a partition's work" in round_line and "x half of 1 thread's" in round_line, round_line


def test_the_split_is_a_share_of_the_cores_wall_time():
    mod = _module()
    assert mod.split_note({}) == "" and mod.split_note({"wall_s": 1.0}) == ""
    note = mod.split_note({"wall_s": 2.0, "windows": 1234, "imbalance_s": 0.1, "between_windows_s": 0.04})
    assert note == " [1,234 windows: waits 5.0 %, between windows 2.0 %]"
    # a partition's work against half of the one-thread run's core time
    note = mod.split_note({"wall_s": 2.0, "windows": 9, "imbalance_s": 0.1, "between_windows_s": 0.04,
                           "partition_work_s": 1.8}, {"wall_s": 3.0})
    assert note.endswith(", a partition's work 1.20x half of 1 thread's]"), note


def test_the_round_line_says_how_many_threads_ran():
    import os

    # k = 4's windows hold too little work to cut: two threads asked, one used
    env = {k: v for k, v in os.environ.items() if k not in ("DCNSIM_CUT", "DCNSIM_FREE_CORES")}
    p = subprocess.run([sys.executable, str(SCRIPT), "--k", "4", "--stop", "200us", "--pairs", "1"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert ", 2 threads (1 used) " in p.stdout, p.stdout
    assert "the 2-thread run used fewer threads in 1 of 1 pairs" in p.stdout, p.stdout


@pytest.mark.parametrize("args, says", [
    (["--threads", "0"], "--threads must be at least 1, got 0"),
    (["--k", "5", "--stop", "1ms"], "--k: a fat-tree's k is even and at least 2, got 5"),
    (["--scenario", "no-such.toml"], "--scenario: no such file no-such.toml"),
])
def test_bad_arguments_are_usage_errors(args, says):
    p = _run(*args, "--pairs", "1")
    assert p.returncode == 2, p.stderr
    assert says in p.stderr and "Traceback" not in p.stderr


def test_a_failed_run_ends_with_the_childs_reason():
    p = _run("--k", "4", "--stop", "soon", "--pairs", "1")
    assert p.returncode == 1
    assert "k = 4 soon, threads" in p.stderr and "the run failed" in p.stderr, p.stderr
    # the child's exception, not the parent's CalledProcessError over it
    assert "ValueError: invalid scenario" in p.stderr and "stop: expected a time with a unit" in p.stderr, p.stderr
    assert "more lines)" in p.stderr.splitlines()[-1], p.stderr
    assert "CalledProcessError" not in p.stderr and "Traceback" not in p.stderr
