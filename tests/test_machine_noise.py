"""benchmarks/machine_noise.py: the machine's own noise, the same work timed
in chunks on one core and on two at once. The figures are the machine's;
what is tested is what must hold of any figures (a barrier never gains,
the slower process is never faster, a percentile lies between the mean's
order and the slowest) and the command's errors."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_module

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "machine_noise.py"


def _module():
    return load_module("machine_noise", SCRIPT)


def test_a_barrier_costs_what_the_slower_of_each_pair_adds():
    mn = _module()
    assert mn.barrier_cost([1.0, 2.0], [1.0, 2.0]) == 0.0
    # each pair waits for its 3: 6 against a mean of 4
    assert mn.barrier_cost([1.0, 3.0], [3.0, 1.0]) == pytest.approx(0.5)
    # one process steadily slower: the barrier costs half the gap
    assert mn.barrier_cost([1.0, 1.0], [1.2, 1.2]) == pytest.approx(0.2 / 2.2)


def test_describe_gives_the_spread_of_chunk_times():
    d = _module().describe([1.0, 1.0, 1.0, 5.0])
    assert d["mean_s"] == 2.0
    assert d["sd_s"] == pytest.approx(3 ** 0.5)
    assert d["sd_share"] == pytest.approx(3 ** 0.5 / 2)
    assert d["p99_s"] == 5.0 and d["max_s"] == 5.0


def test_the_command_times_one_and_two_processes(tmp_path):
    out = tmp_path / "noise.json"
    p = subprocess.run([sys.executable, str(SCRIPT), "--chunks", "20", "--chunk-ms", "0.2", "--json", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "one process: mean" in p.stdout and "two processes, B" in p.stdout
    r = json.loads(out.read_text())
    assert r["chunks"] == 20 and r["iterations"] >= 1
    for d in [r["one"], *r["two"]]:
        assert 0 < d["mean_s"] <= d["max_s"] and d["p99_s"] <= d["max_s"] and d["sd_s"] >= 0
    assert r["slower_over_faster"] >= 1.0
    assert r["barrier_cost"] >= 0.0


@pytest.mark.parametrize("args, field", [(["--chunks", "1"], "--chunks"), (["--chunk-ms", "0"], "--chunk-ms"),
                                         (["--chunk-ms", "inf"], "--chunk-ms"), (["--chunk-ms", "nan"], "--chunk-ms"),
                                         (["--json", "/nonexistent-dir/noise.json"], "--json")])
def test_bad_arguments_name_the_option(args, field):
    p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert field in p.stderr and "Traceback" not in p.stderr
