"""A new user's first commands: each bad option is refused by name, with
its reason and exit status 2, before anything runs; no command loses what
an earlier one wrote."""

from __future__ import annotations

import contextlib
import os

import pytest
from conftest import DATA, cli, needs_core


@pytest.mark.parametrize("seed", ["-1", "abc", "1.5", str(2**64)])
def test_run_seed_out_of_range_is_the_options_error_not_the_files(seed):
    # the file's own seed is fine: the problem is --seed's, and it says so
    f = str(DATA / "small_incast.toml")
    r = cli("run", f, "--seed", seed)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert "--seed" in last and "[0, 2^64)" in last and repr(seed) in last, r.stderr
    assert not last.startswith(f), r.stderr


@pytest.mark.parametrize("argv, field", [
    (["--seed", "1", "--set", "seed=2"], "seed"),
    (["--set", "seed=2", "--seed", "1"], "seed"),
    (["--threads", "2", "--set", "threads=1"], "threads"),
])
def test_run_option_and_set_of_one_field_with_two_values_is_refused(argv, field, tmp_path):
    # one of the two would be dropped without a word; nothing runs, nothing is written
    out = tmp_path / "out"
    r = cli("run", str(DATA / "small_incast.toml"), *argv, "--out", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"--{field}" in r.stderr and f"--set {field}=" in r.stderr, r.stderr
    assert not out.exists()


def test_run_option_and_set_of_one_field_agreeing_run():
    r = cli("run", str(DATA / "small_incast.toml"), "--seed", "3", "--set", "seed=3", "--set", "stop=10ms")
    assert r.returncode == 0, r.stderr
    assert ", seed 3" in r.stdout.splitlines()[0]


@contextlib.contextmanager
def held(out):
    """``out`` made and its lock held, as a dcnsim process writing there
    holds it (an flock on the directory), for the block's length."""
    fcntl = pytest.importorskip("fcntl")
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


@needs_core
def test_a_sweep_refused_for_a_bad_value_leaves_no_parent_of_its_out(tmp_path):
    # `--out a/b/c` refused for a negative buffer left a/ and a/b/ behind
    r = cli("sweep", str(DATA / "small_incast.toml"), "--set", "topology.buffer=32KB,-1KB",
            "--out", str(tmp_path / "a" / "b" / "c"))
    assert r.returncode == 2 and "topology.buffer" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_sweep_threads_and_a_threads_axis_is_refused(tmp_path):
    out = tmp_path / "out"
    r = cli("sweep", str(DATA / "small_incast.toml"), "--threads", "2", "--set", "threads=1,2", "--out", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--threads" in r.stderr and "--set threads" in r.stderr, r.stderr
    assert not out.exists()


@needs_core
def test_demo_quick_leaves_the_full_demos_results(tmp_path):
    # `dcnsim demo` (minutes on a busy machine), then `dcnsim demo --quick`
    # to try an option: the full table, plot and runs must still be there
    full = tmp_path / "dcnsim-demo"
    (full / "runs").mkdir(parents=True)
    kept = {full / "incast_goodput.csv": b"the full demo's table\n", full / "incast_goodput.png": b"its plot"}
    for path, data in kept.items():
        path.write_bytes(data)
    r = cli("demo", "--quick", "--no-progress", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert all(path.read_bytes() == data for path, data in kept.items())
    assert not any((full / "runs").iterdir())
    quick = tmp_path / "dcnsim-demo-quick"
    assert (quick / "incast_goodput.csv").is_file() and (quick / "incast_goodput.png").is_file()
    assert "wrote dcnsim-demo-quick/incast_goodput.csv" in r.stdout


@needs_core
def test_a_demo_into_a_directory_another_process_writes_is_refused_before_it_runs(tmp_path):
    # only the sweep locked DIR/runs: a second demo (the same command in
    # another terminal) ran beside the first once its sweep was done, each
    # writing the table and plot
    out = tmp_path / "demo"
    with held(out):  # what a demo under way holds
        r = cli("demo", "--quick", "--no-progress", "--out", str(out))
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr.startswith(f"demo: --out {out}: another dcnsim process is writing results there"), r.stderr
    assert list(out.iterdir()) == []


@needs_core
def test_a_demo_into_another_demos_directory_is_refused_before_it_runs(tmp_path):
    # its incast_goodput.csv and .png were replaced: by a table of other
    # seeds, or by a quick run's, whose runs also replaced the full demo's
    out = tmp_path / "d"
    assert cli("demo", "--quick", "--no-progress", "--out", str(out)).returncode == 0
    kept = {f: f.read_bytes() for f in (out / "incast_goodput.csv", out / "incast_goodput.png")}
    scenario = (out / "runs" / "s0_n001_seed1" / "scenario.json").read_bytes()
    for args, words in ((["--quick", "--seeds", "2"], "holds another demo's table, with runs of seed 1: this demo "
                                                       "(a quick run, 5 blocks a run, seed 2) would replace it"),
                        (["--seeds", "1"], "holds another demo's table and runs (5 blocks a run, a quick run): this "
                                           "demo (100 blocks a run, seed 1) would replace its table and plot")):
        r = cli("demo", *args, "--no-progress", "--out", str(out))
        assert r.returncode == 2 and r.stdout == "", (args, r.stdout, r.stderr)
        assert r.stderr.startswith(f"demo: --out {out}: {words}"), r.stderr
        assert f"move {out / 'incast_goodput.csv'} away" in r.stderr, r.stderr
        assert {f: f.read_bytes() for f in kept} == kept
        assert (out / "runs" / "s0_n001_seed1" / "scenario.json").read_bytes() == scenario
    # more seeds extend it; the same demo resumes
    r = cli("demo", "--quick", "--seeds", "1,2", "--no-progress", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert cli("demo", "--quick", "--seeds", "2,1", "--no-progress", "--out", str(out)).returncode == 0


@needs_core
def test_tune_errors_name_the_flag_typed(tmp_path):
    pytest.importorskip("optuna")
    f = str(DATA / "small_incast.toml")
    base = ["tune", f, "--objective", "goodput", "--trials", "1", "--seeds", "1", "--no-progress"]
    r = cli(*base, "--param", "tcp.rto_min=1ms:10ms", "--param", "tcp.rto_min=1ms:20ms", "--out", str(tmp_path / "a"))
    assert r.returncode == 2 and r.stderr.startswith("tune: --param: "), r.stderr
    out = str(tmp_path / "b")
    assert cli(*base, "--param", "tcp.rto_min=1ms:10ms", "--out", out).returncode == 0
    # another range into the same directory: the flag to change is --out
    r = cli(*base, "--param", "tcp.rto_min=1ms:20ms", "--out", out)
    assert r.returncode == 2 and r.stderr.startswith(f"tune: --out: {out} holds a study"), r.stderr


@needs_core
def test_tune_objective_a_scenario_cannot_report_suggests_those_it_can(tmp_path):
    # the default objective (qct_p99) on a sync_reads scenario: the hint must
    # offer block_goodput, the metric such a scenario is tuned for, and no
    # metric it lacks too
    pytest.importorskip("optuna")
    from dcnsim.tuning import OBJECTIVES

    r = cli("tune", str(DATA / "small_incast.toml"), "--param", "tcp.rto_min=1ms:10ms", "--trials", "1",
            "--out", str(tmp_path / "t"))
    assert r.returncode == 2 and "qct_p99 needs queries" in r.stderr, r.stderr
    offered = r.stderr.rsplit("(for these: ", 1)[1].split(")")[0].split(", ")
    assert "block_goodput" in offered and set(offered) <= set(OBJECTIVES)
    assert not [n for n in offered if n.startswith("qct_") or n == "jain"]


def _options(parser, name="dcnsim"):
    """(command, action) of every option of every (sub)command."""
    import argparse

    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sub, p in a.choices.items():
                yield from _options(p, f"{name} {sub}")
        elif not isinstance(a, (argparse._HelpAction, argparse._VersionAction)):
            yield name, a


def test_every_argument_says_what_it_does_and_its_default():
    from dcnsim.cli import build_parser

    missing, no_default = [], []
    for name, a in _options(build_parser()):
        flag = f"{name} {a.option_strings[-1] if a.option_strings else a.metavar or a.dest}"
        if not (a.help or "").strip():
            missing.append(flag)
        # a value used when the option is absent is one the user must be able to read
        if a.default not in (None, False, [], ()) and "default" not in (a.help or ""):
            no_default.append(f"{flag} (default {a.default!r})")
        # --threads absent is not "one thread": the scenario's key, else auto
        if "--threads" in a.option_strings and "default" not in (a.help or ""):
            no_default.append(f"{flag} (the scenario's threads, else auto)")
    assert not missing, f"arguments without help: {missing}"
    assert not no_default, f"options whose help omits their default: {no_default}"


@needs_core
def test_run_into_a_directory_another_process_writes_is_refused_before_it_runs(tmp_path):
    out = tmp_path / "out"
    with held(out):  # what a sweep writing into `out` holds for as long as it runs
        r = cli("run", str(DATA / "small_incast.toml"), "--out", str(out))
    # refused as an unusable --out (2), before the run, not after it (1: the run's results lost)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"--out {out}" in r.stderr and "another dcnsim process" in r.stderr, r.stderr
    assert r.stdout == "" and list(out.iterdir()) == []


@needs_core
def test_a_second_run_into_the_directory_of_a_run_under_way_is_refused_before_it_runs(tmp_path, monkeypatch):
    # two `run --out DIR` started together: each one's check at the start
    # passed (no run held DIR until its write), so both ran, and the second
    # was refused only after its whole run, or replaced the first's results
    import json
    import sys

    import dcnsim
    from dcnsim import cli as cli_module

    pytest.importorskip("fcntl")
    out = tmp_path / "new" / "out"
    real, second = dcnsim.run, []

    def run_and_start_another(*a, **kw):
        r = real(*a, **kw)
        # this run done, its results not yet written: another starts
        second.append(cli("run", str(DATA / "small_incast.toml"), "--seed", "3", "--out", str(out)))
        return r

    monkeypatch.setattr(dcnsim, "run", run_and_start_another)
    assert cli_module.main(["run", str(DATA / "small_incast.toml"), "--out", str(out), "--no-progress"]) == 0
    r = second[0]
    # refused as an unusable --out (2) before it ran (no summary), naming DIR and the writer there
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert f"run: --out {out}: another dcnsim process is writing results there" in r.stderr, r.stderr
    if sys.platform.startswith("linux"):
        assert f"(pid {os.getpid()}: " in r.stderr, r.stderr
    assert json.loads((out / "scenario.json").read_text())["seed"] == 7  # the first's results, whole


def test_bench_scenario_whose_process_dies_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    # a child killed as the kernel's OOM killer kills it: the user reads
    # which scenario and how, the exit status says it failed
    import sys

    from dcnsim import cli as cli_module

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nkill -9 $$\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    assert cli_module.main(["bench", "--scenario", "incast_pa"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "bench: bench incast_pa failed (killed by SIGKILL)", err


def test_a_mistyped_command_or_option_is_named_with_the_one_meant():
    """`dcnsim --verison` said "the following arguments are required:
    COMMAND", and `dcnsim rnu` listed the commands without a guess."""
    from conftest import cli

    for argv, said in ((["rnu", "x.toml"], "dcnsim: no command 'rnu' (did you mean 'run'?)"),
                       (["--verison"], "dcnsim: no option '--verison' (did you mean '--version'?)"),
                       (["--frob"], "dcnsim: no option '--frob'; the commands: run, validate")):
        r = cli(*argv)
        assert r.returncode == 2 and r.stderr.startswith(said) and "(dcnsim --help)" in r.stderr, r.stderr
