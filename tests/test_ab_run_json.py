"""benchmarks/ab_run_json.py: builds of the core compared in interleaved
rounds, and the seeded order's one-thread price (`--price`). The builds
here are stand-ins that answer as `run_json` does (its `events`/`hops`
line), so the script's own work is what is tested: the files it writes,
the order it runs them in, the checks and the table."""
import json
import stat
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "ab_run_json.py"

# A stand-in for target/release/examples/run_json: reads the scenario, logs
# what it was given, and reports a run whose events depend on the tie order
# (the two orders simulate different packets) and on EXTRA (a build that
# runs another simulation).
FAKE = """#!{python}
import json, sys
doc = json.load(open(sys.argv[1]))
with open({log!r}, "a") as fh:
    fh.write(json.dumps({{"bin": sys.argv[0], "ties": doc.get("ties"), "threads": doc.get("threads"),
                         "seed": doc.get("seed")}}) + "\\n")
events = (1000 if doc.get("ties") == "seeded" else 990) + {extra}
# CPU in user mode the script can time: the kernel splits a process's time
# into user and system by tick samples, and a bare interpreter start can
# read 0 s of user time on a loaded machine (it did in CI)
sum(i * i for i in range(300_000))
print(f"wall 0.001s events {{events}} (1.00 M/s) hops {{events - 5}} (1.00 M/s)")
"""


def _fake(tmp_path, name, extra=0):
    path = tmp_path / name
    path.write_text(FAKE.format(python=sys.executable, log=str(tmp_path / "log.jsonl"), extra=extra))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _scenario(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"seed": 7, "threads": "auto", "ties": "fifo", "stop": "1ms"}))
    return str(path)


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def _log(tmp_path):
    return [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]


def test_the_price_runs_each_build_on_both_orders_on_one_thread(tmp_path):
    a, b = _fake(tmp_path, "before"), _fake(tmp_path, "after")
    p = _run("--price", "--rounds", "3", _scenario(tmp_path), a, b)
    assert p.returncode == 0, p.stderr
    runs = _log(tmp_path)
    # 2 builds x 2 orders x 3 rounds, each on one thread, the rest of the
    # document as written
    assert len(runs) == 12
    assert {(Path(r["bin"]).name, r["ties"]) for r in runs} == {
        ("before", "seeded"), ("before", "fifo"), ("after", "seeded"), ("after", "fifo")}
    assert all(r["threads"] == 1 and r["seed"] == 7 for r in runs)
    # a different build leads each round
    firsts = [Path(runs[4 * r]["bin"]).name + runs[4 * r]["ties"] for r in range(3)]
    assert len(set(firsts)) == 3
    out = p.stdout
    assert "seeded order's price" in out and "| before |" in out and "| after |" in out
    # the table's price column is a signed percentage, the ratio to the first build 1.000 for itself
    row = next(line for line in out.splitlines() if line.startswith("| before |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3].endswith("%") and cells[3][0] in "+-" and cells[5] == "1.000"
    # per event: the run's ratio scaled by the orders' events (990 first-in
    # first-out, 1,000 seeded), whatever the times were
    assert "1,000 seeded, 990 first-in first-out" in out
    run_price, per_event = (float(c.rstrip(" %")) for c in cells[3:5])
    assert abs((1 + run_price / 100) * 990 / 1000 - 1 - per_event / 100) < 0.0011


def test_a_build_that_runs_another_simulation_is_refused(tmp_path):
    a, b = _fake(tmp_path, "before"), _fake(tmp_path, "other", extra=1)
    p = _run("--price", "--rounds", "1", _scenario(tmp_path), a, b)
    assert p.returncode != 0
    assert "differ from" in p.stderr and "before" in p.stderr and "Traceback" not in p.stderr


def test_plain_rounds_rotate_which_build_goes_first(tmp_path):
    builds = [_fake(tmp_path, n) for n in ("x", "y", "z")]
    p = _run("--rounds", "3", _scenario(tmp_path), *builds)
    assert p.returncode == 0, p.stderr
    runs = _log(tmp_path)
    assert [Path(r["bin"]).name for r in runs] == list("xyz" "yzx" "zxy")
    # the document is run as written (no tie order imposed)
    assert {r["ties"] for r in runs} == {"fifo"} and {r["threads"] for r in runs} == {"auto"}


def test_a_price_of_a_file_that_is_not_a_scenario_says_so(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    p = _run("--price", "--rounds", "1", str(bad), _fake(tmp_path, "before"))
    assert p.returncode != 0 and "not a JSON scenario" in p.stderr and "Traceback" not in p.stderr


def test_builds_named_relative_to_the_current_directory_run_from_there(tmp_path):
    """The builds are checked in the current directory; a bare name must
    run from there too, not be looked up on PATH."""
    _fake(tmp_path, "run_json_a")
    _fake(tmp_path, "run_json_b")
    p = subprocess.run([sys.executable, str(SCRIPT), "--rounds", "1", _scenario(tmp_path), "run_json_a", "run_json_b"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [Path(r["bin"]).name for r in _log(tmp_path)] == ["run_json_a", "run_json_b"]
    assert "| run_json_a |" in p.stdout and "| run_json_b |" in p.stdout


def test_a_run_too_short_to_time_is_said_not_divided_by(tmp_path):
    """A stand-in that reads 0 s of user time (a bare interpreter start on
    a loaded machine, where the kernel's tick samples all fell in system
    mode) ended the script with a ZeroDivisionError in CI."""
    a, b = _fake(tmp_path, "before"), _fake(tmp_path, "after")
    p = subprocess.run([sys.executable, "-c", f"""
import runpy, sys
sys.path.insert(0, {str(SCRIPT.parent)!r})
import ab_run_json
ab_run_json.run = lambda binary, scenario, wall=False: (0.0, ("1000", "995"))
sys.argv = ["ab_run_json.py", "--price", "--rounds", "2", {_scenario(tmp_path)!r}, {a!r}, {b!r}]
ab_run_json.main()
"""], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "read 0 s of user time, too short to time" in p.stderr, p.stderr
    assert "ZeroDivisionError" not in p.stderr
