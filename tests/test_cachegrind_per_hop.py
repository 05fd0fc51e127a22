"""benchmarks/cachegrind_per_hop.py --scenario: the two runs whose difference
is a hop's cost must be the same simulation cut at two lengths, on one
thread each (the bench's ``"auto"`` picks one or two threads by the load
when a run starts, and a half run on one thread against a whole run on two
gave one build 859 instructions a hop on the k = 8 permutation where it
takes 726 on one thread)."""
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_module, needs_core

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "cachegrind_per_hop.py"


def _module():
    return load_module("cachegrind_per_hop", SCRIPT)


@pytest.mark.parametrize("name", ["dctcp_perm_k8", "fattree_k8", "ns3_fast_incast_n100", "longflows_64"])
def test_both_runs_are_one_thread_and_the_half_is_half(name):
    from dcnsim import bench
    from dcnsim.units import parse_time

    cg = _module()
    docs = cg.scenario_docs(name)
    assert set(docs) == {True, False}
    assert all(d["threads"] == 1 for d in docs.values())
    assert "threads" not in bench.SCENARIOS[name](), "the bench's own document is left as it is"
    half, whole = docs[True], docs[False]
    queries = [(h.get("queries", 1), w.get("queries", 1)) for h, w in zip(half["apps"], whole["apps"])
               if w.get("kind") == "partition_aggregate"]
    if queries:
        # half the queries over the same stop
        assert all(h == max(1, w // 2) for h, w in queries) and half["stop"] == whole["stop"]
    else:
        assert parse_time(half["stop"]) == pytest.approx(parse_time(whole["stop"]) / 2)
    for d in docs.values():
        for a in d["apps"]:
            if "duration" in a:
                assert parse_time(a["duration"]) <= parse_time(d["stop"]) * (1 + 1e-9)
    # nothing else differs between the two
    strip = ("stop", "apps")
    assert {k: v for k, v in half.items() if k not in strip} == {k: v for k, v in whole.items() if k not in strip}


@needs_core
def test_the_runs_are_valid_scenarios_that_the_core_runs_on_one_thread():
    import dcnsim

    cg = _module()
    for doc in cg.scenario_docs("ns3_dctcp_bulk_64").values():
        # cut short: the script's runs are long under valgrind, not here
        doc = cg.shortened(doc, False, 0.002)
        assert not list(dcnsim.validate(doc))
        assert dcnsim.run(doc).timing["threads"] == 1


# A stand-in for perf_ft: `perf_ft K MS` prints its hops (and the counts the
# fake valgrind reports), or fails as FAIL says.
PERF_FT = """#!{python}
import sys
if {fail!r}:
    sys.stderr.write("thread 'main' panicked at perf_ft.rs: {fail}\\\\n")
    sys.exit(101)
k, ms = int(sys.argv[1]), int(sys.argv[2])
print(f"instr {{1000 * ms}}\\nd1 {{10 * ms}}\\nll {{ms}}")
{hops}
"""


def _perf_ft(tmp_path, fail="", hops='print(f"wall 0.1s events 5 hops {100 * ms}")'):
    p = tmp_path / "perf_ft"
    p.write_text(PERF_FT.format(python=sys.executable, fail=fail, hops=hops))
    p.chmod(0o755)
    return p


def _script(tmp_path, *args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)


def test_a_binary_named_in_the_current_directory_runs_from_there(tmp_path, fake_valgrind):
    _perf_ft(tmp_path)
    p = _script(tmp_path, "--binary", "perf_ft", "--k", "4")
    assert p.returncode == 0, p.stderr
    # (40 - 20) ms: 2,000 hops for 20,000 instructions
    assert "| 4 | 10 | 0.10 | 0.01 |" in p.stdout, p.stdout


def test_a_failing_run_ends_with_its_reason(tmp_path, fake_valgrind):
    _perf_ft(tmp_path, fail="index out of bounds")
    p = _script(tmp_path, "--binary", "perf_ft", "--k", "4")
    assert p.returncode == 1
    assert "perf_ft 4 20 under valgrind failed (exit 101)" in p.stderr and "index out of bounds" in p.stderr
    assert "Traceback" not in p.stderr


def test_a_run_without_a_hop_count_ends_naming_the_binary(tmp_path, fake_valgrind):
    _perf_ft(tmp_path, hops='print("done")')
    p = _script(tmp_path, "--binary", "perf_ft", "--k", "4")
    assert p.returncode == 1
    assert "perf_ft 4 20 printed no 'hops N'" in p.stderr and "Traceback" not in p.stderr
