"""The validation harnesses refuse a bad argument with one line naming it,
before any simulator runs: never a traceback, a hang or exit 0 (the
validation audit, 2026-12-05). None of these needs ns-3, htsim or
packetdrill: each is checked before a peer is built or run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import needs_core

REPO = Path(__file__).resolve().parents[1]
V = REPO / "validation"

pytestmark = needs_core


@pytest.mark.parametrize("script, args, says", [
    # ran ns-3's program for ever (a negative --secs)
    ("ns3_outcast/run.py", ["--qmax", "20", "--header", "40", "--trace", "1", "--trace-ms", "-5"],
     "--trace-ms: must be > 0"),
    ("ns3_rps/run.py", ["--only", "dcnsim", "--trace-run", "99", "rps", "1"], "--trace-run: N must be in 0..15"),
    ("ns3_rps/run.py", ["--only", "dcnsim", "--trace-run", "x", "rps", "1"], "--trace-run: expected N ROUTING SEED"),
    # a table of dashes and exit 0
    ("hpcc_ns3/run.py", ["--only", "dcnsim", "--n", "-3"], "--n: senders must be >= 1"),
    ("hpcc_ns3/run.py", ["--only", "dcnsim", "--size", "0"], "--size: must be >= 1"),
    # an IndexError
    ("hpcc_ns3/run.py", ["--only", "dcnsim", "--repeat", "0"], "--repeat: must be >= 1"),
    ("hpcc_ns3/run.py", ["/nonexistent/third"], "no executable fork build at /nonexistent/third"),
    ("ns3_incast/trace.py", ["--n", "0", "--out", "OUT"], "--n: must be >= 1"),
    ("ns3_incast/trace.py", ["--queries", "1", "--out", "OUT"], "--queries: must be >= 2"),
    ("ns3_incast/trace.py", ["--show", "x", "--outcome", "a,b", "--out", "OUT"], "--outcome: expected FR,TO"),
    ("ns3_incast/kulkarni.py", ["--jobs", "0"], "--jobs: must be >= 1"),
    ("ns3_incast/run.py", ["--check", "0.5"], "--check: a factor above 1, got 0.5"),
    ("ns3_incast/run.py", ["--check", "1.5", "--only", "dcnsim"], "--check compares the two simulators"),
    ("ns3_outcast/run.py", ["--check", "--only", "dcnsim"], "--check compares the two simulators"),
    ("ns3_outcast/run.py", ["--check", "--trace", "1"], "--check judges the table's points"),
    ("ns3_rps/run.py", ["--check", "1"], "--check: a factor above 1, got 1"),
    ("ns3_rps/run.py", ["--check", "inf"], "--check: a factor above 1, got inf"),
    ("ns3_rps/run.py", ["--check", "1.2", "--only", "ns3"], "--check compares the two simulators"),
    ("packetdrill/run.py", [str(V / "packetdrill" / "scripts"), "--tolerance_usecs", "-5", "--no-build"],
     "--tolerance_usecs: must be >= 0"),
    # checked after the kernel's first point, as a traceback
    ("linux_lab/run.py", ["--only", "dcnsim", "--n", "2", "--blocks", "2", "--tcp", "bogus=1"],
     "--tcp: dcnsim refuses the scenario: tcp.bogus: unknown key"),
])
def test_a_bad_argument_is_one_line_before_anything_runs(script, args, says, tmp_path):
    if script == "packetdrill/run.py":
        args = [str(next((V / "packetdrill" / "scripts").glob("*.pkt")))] + args[1:]
    args = [str(tmp_path / "out") if x == "OUT" else x for x in args]
    p = subprocess.run([sys.executable, str(V / script), *args], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert says in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    # nothing written into the working directory (a relative default put trace folders in the checkout)
    assert not list(tmp_path.iterdir())


def test_the_htsim_harness_says_what_dcqcn_needs(tmp_path):
    p = subprocess.run([sys.executable, str(V / "htsim" / "run.py"), str(tmp_path / "no-such-binary"),
                        "--transport", "dcqcn"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "main_roce" in p.stderr and "csg-htsim has no DCQCN" in p.stderr, p.stderr


def test_the_htsim_harness_names_an_htsim_that_prints_nothing_it_reads(tmp_path):
    """A relative path (htsim runs in a temporary directory) is found, and
    a binary that is not the htsim named (here: one that prints nothing)
    is one line, not a RuntimeError traceback."""
    fake = tmp_path / "htsim_ndp"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    p = subprocess.run([sys.executable, str(V / "htsim" / "run.py"), "htsim_ndp", "--k", "4", "--pairs", "1",
                        "--workloads", "incast"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 1 and "htsim printed no" in p.stderr and "Traceback" not in p.stderr, p.stderr


def _harness(name: str):
    """validation/NAME/run.py as a module (it imports ns3_common from validation/)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{name}_run", V / name / "run.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(V))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(V))
    return mod


def test_the_ns3_incast_check_judges_both_qcts_by_the_stated_factor():
    """The harness printed 201.7 ms against ns-3's 11.7 ms and exited 0
    (audit 35): `--check R` judges each point's mean and 99th-percentile
    QCT within a factor R either way."""
    mod = _harness("ns3_incast")
    rows = lambda ms: [{"qct_ms": ms + i * 0.01} for i in range(20)]  # noqa: E731
    assert mod.check_point(rows(11.66), rows(11.70), 1.5).startswith("within (bound 1.5x either way)")
    far = mod.check_point(rows(201.66), rows(11.70), 1.5)
    assert far.startswith("DIFFERS") and "mean QCT 201.76 / 11.79 ms = 17.11x" in far, far
    assert mod.check_point(rows(5.0), rows(11.70), 1.5).startswith("DIFFERS")  # below as well as above


def test_the_outcast_check_asks_whether_f1_is_outcast_in_both(monkeypatch, capsys):
    """The outcast harness printed F1's shares and exited 0 whatever they
    were: `--check` answers the figure's question at each point (is F1
    starved, under half its fair share of 1/15, on most seeds?) for each
    dcnsim order of ties, and exits 1 where dcnsim's answer is not ns-3's.
    Run through main with stand-in simulators (no ns-3 here)."""
    import concurrent.futures

    mod = _harness("ns3_outcast")
    starved, fair = {"f1": 0.01, "jain": 0.9, "drops": {p: 0 for p in mod.PORTS}, "marks": 0, "total": 1e9}, None
    fair = dict(starved, f1=0.2)
    assert mod.outcast_verdict([starved, starved, fair]) == (True, 2)
    assert mod.outcast_verdict([starved, fair]) == (False, 1)  # half is not most
    ok, line = mod.check_point([fair, starved, fair], [starved, starved, fair])
    assert not ok and line.startswith("DIFFERS: dcnsim not outcast (1/3 seeds starved") and "differ on 1 of 3" in line

    # ns-3 starves F1 on every seed; dcnsim's FIFO order on none, its seeded order on two of three
    seeded_starved = {1, 2}
    monkeypatch.setattr(mod, "run_ns3", lambda *a: starved)
    monkeypatch.setattr(mod, "run_dcnsim", lambda cc, q, h, s, secs, ties, *rest:
                        starved if ties == "seeded" and s in seeded_starved else fair)
    monkeypatch.setattr(mod.common, "ns3_binary", lambda *a: Path("/bin/true"))
    monkeypatch.setattr(mod, "ProcessPoolExecutor", concurrent.futures.ThreadPoolExecutor)
    rc = mod.main(["--seeds", "1-3", "--qmax", "20", "--header", "40", "--check", "--no-cache"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "check dcnsim fifo, header 40: DIFFERS: dcnsim not outcast (0/3 seeds starved" in out, out
    assert "check dcnsim seeded, header 40: agrees: dcnsim outcast (2/3 seeds starved" in out, out
    assert "check: 1 point(s) where dcnsim's answer to 'is F1 outcast?' differs from ns-3's: " \
           "cubic Qmax 20 header 40 (dcnsim fifo)" in out, out
    # both orders agreeing: exit 0
    seeded_starved.update({1, 2, 3})
    monkeypatch.setattr(mod, "run_dcnsim", lambda *a: starved)
    assert mod.main(["--seeds", "1-3", "--qmax", "20", "--header", "40", "--check", "--no-cache"]) == 0


def test_the_rps_check_judges_each_fct_by_the_stated_factor():
    """The RPS harness printed both simulators' columns and exited 0: `--check
    R` holds the long flows' mean FCT and the short flow's mean and median
    within a factor R of ns-3's either way."""
    mod = _harness("ns3_rps")
    theirs = {"long_fct_mean": 300.0, "short_fct_mean": 10.0, "short_fct_med": 8.0}
    ok, line = mod.check_point(dict(theirs, long_fct_mean=320.0), theirs, 1.1)
    assert ok and line.startswith("within (bound 1.1x either way): long FCT mean 320.00 / 300.00 ms = 1.07x"), line
    ok, line = mod.check_point(dict(theirs, short_fct_med=5.0), theirs, 1.5)
    assert not ok and "short FCT median 5.00 / 8.00 ms = 0.62x" in line, line  # below as well as above
    ok, _ = mod.check_point(dict(theirs, short_fct_mean=float("nan")), theirs, 1.5)
    assert not ok  # a point without a number is not inside
