"""Every check of "a seed the core takes" reads one bound, ``dcnsim._SEED_END``
(the core's seed is 64 bits): ``dcnsim.run(seed=)``, ``--seeds`` (sweep,
demo, tune, --confirm-seeds), ``tune``'s seeds and ``model enqueue
--seed``. Moving the bound moves every check, and each message still names
its own field."""

from __future__ import annotations

import argparse

import dcnsim
import pytest
from dcnsim import ScenarioError, _args, cli, tuning


@pytest.fixture
def bound_at_100(monkeypatch):
    monkeypatch.setattr(dcnsim, "_SEED_END", 100)


def test_the_default_bound_is_the_cores_64_bits():
    assert dcnsim._seed_ok(2**64 - 1) and not dcnsim._seed_ok(2**64) and not dcnsim._seed_ok(-1)


def test_run_seed_reads_the_shared_bound(bound_at_100):
    assert dcnsim._seed(99) == 99
    with pytest.raises(ScenarioError) as e:
        dcnsim._seed(100)
    assert e.value.errors[0].path == "seed"


def test_seeds_flag_reads_the_shared_bound(bound_at_100):
    assert _args.parse_seeds("1,99") == [1, 99]
    with pytest.raises(argparse.ArgumentTypeError, match=r"^--confirm-seeds expects integers in .*got 100$"):
        _args.parse_seeds("1,100", "--confirm-seeds")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^--seeds expects integers in .*got -1$"):
        _args.parse_seeds("-1")


def test_tune_seeds_read_the_shared_bound(bound_at_100):
    assert tuning._checked_seeds(1, [1, 99], None) == [1, 99]
    with pytest.raises(tuning.TuneError, match=r"^seeds: expected integers in .*got 100$"):
        tuning._checked_seeds(1, [1, 100], None)


def test_model_enqueue_seed_reads_the_shared_bound(bound_at_100, capsys):
    assert cli.main(["model", "enqueue", "--rmin", "1", "--trials", "2", "--seed", "99", "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["model", "enqueue", "--rmin", "1", "--trials", "2", "--seed", "100"]) == 2
    assert capsys.readouterr().err.startswith("model enqueue: --seed: expected an integer in ")


def test_import_dcnsim_checks_a_seed_without_the_argument_parsers():
    import subprocess
    import sys

    code = ("import sys, dcnsim\n"
            "try:\n    dcnsim._seed(2**64)\nexcept dcnsim.ScenarioError:\n    pass\n"
            "print('dcnsim._args' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "False", (r.stdout, r.stderr)
