"""validation/htsim/run.py's own behaviour, with stand-ins for htsim's
binaries (the real ones are built outside the repository and CI has none):
a case htsim cannot run is reported beneath the table, not a traceback that
loses the other cases, and ``--seeds`` runs Swift's mirror under each seed
beside main_swift's one unseeded run."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

from conftest import needs_core

REPO = Path(__file__).resolve().parent.parent
RUN = REPO / "validation" / "htsim" / "run.py"

#: htsim_swift's PLB as it ends on an incast: an assertion, then SIGABRT
ABORTING = """#!/bin/sh
echo "htsim_swift: swift.cpp:564: Assertion '_path_index < _src._paths.size()' failed." >&2
kill -ABRT $$
"""

#: a stand-in for main_swift: every connection of its -tm matrix finishes
#: (one line each, as main_swift prints them), and each start is counted
FINISHING = """#!{python}
import sys
from pathlib import Path
args = sys.argv[1:]
matrix = Path(args[args.index("-tm") + 1])
with open(Path(__file__).with_suffix(".calls"), "a") as f:
    f.write("run\\n")
for i, line in enumerate(l for l in matrix.read_text().splitlines() if "->" in l):
    src, rest = line.split("->")
    dst = rest.split()[0]
    size = int(line.split("size")[1])
    print(f"Flow swift_{{src}}_{{dst}} finished at {{300.0 + i:.1f}} total bytes {{size}}")
"""


def _binary(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, str(RUN), *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


@needs_core
def test_an_htsim_abort_leaves_its_case_out_and_says_why(tmp_path):
    fake = _binary(tmp_path / "htsim_swift", ABORTING)
    p = _run(fake, "--transport", "swift", "--k", "4", "--workloads", "incast", "--pairs", "1",
             "--json", str(tmp_path / "out.json"), cwd=tmp_path)
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    assert "| k | workload |" in p.stdout  # the table still prints, without the case
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("- k = 4 incast"))
    assert "htsim died of SIGABRT" in line and "_path_index < _src._paths.size()" in line, line
    # dcnsim's mirror still ran the case: 15 senders into host 0 at k = 4
    assert re.search(r"dcnsim alone: 15 of 15 flows completed, FCT median [\d.]+ µs", line), line
    assert "htsim_failed" in (tmp_path / "out.json").read_text()


@needs_core
def test_swift_seeds_vary_the_mirror_beside_one_htsim_run(tmp_path):
    fake = _binary(tmp_path / "htsim_swift", FINISHING.format(python=sys.executable))
    p = _run(fake, "--transport", "swift", "--k", "4", "--workloads", "perm", "--seeds", "1", "2", "3",
             cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("| 4 | perm |")]
    assert [r.split("|")[3].strip() for r in rows] == ["1", "2", "3"], p.stdout
    # main_swift takes no seed: run once, its half of every column the same in each row
    assert (tmp_path / "htsim_swift.calls").read_text().count("run") == 1
    theirs = {tuple(c.split("/")[0].strip() for c in r.split("|")[4:7]) for r in rows}
    assert len(theirs) == 1, rows
    # dcnsim's salts change with the seed: the 16 flows' paths, so their completions, differ
    ours = {tuple(c.split("/")[1].strip() for c in r.split("|")[4:7]) for r in rows}
    assert len(ours) > 1, rows


def test_a_bad_size_or_k_is_refused_naming_its_option():
    """A k that is no k-ary fat-tree, or a count below one, stops the
    harness before any run, naming the option (--k 5 was a RuntimeError
    traceback from the first dcnsim run, naming topology.k)."""
    for argv, said in ((["--k", "4", "5"], "--k: each must be even and >= 2"),
                       (["--pairs", "0"], "--pairs: must be >= 1"),
                       (["--perm-size", "0"], "--perm-size: must be >= 1")):
        r = subprocess.run([sys.executable, str(RUN), "/bin/true", *argv], capture_output=True, text=True)
        assert r.returncode == 2 and said in r.stderr, (argv, r.stderr[-500:])
        assert "Traceback" not in r.stderr


@needs_core
def test_check_judges_each_case_and_fails_one_outside_its_bound(tmp_path):
    """``--check R``: the stand-in's flows end at 300–315 µs; dcnsim's
    mirror of 16 flows of 4,000-byte packets on 100 Gbps ends in the same
    decade, so a bound of 100x holds and exits 0, while a bound of 1.0001x
    cannot (the two never agree to 0.01 % on all three), and the case is
    named with the measure that fell outside and exit status 1."""
    fake = _binary(tmp_path / "htsim_swift", FINISHING.format(python=sys.executable))
    args = ("--transport", "swift", "--k", "4", "--workloads", "perm", "--pairs", "1")
    wide = _run(fake, *args, "--check", "100", cwd=tmp_path)
    assert wide.returncode == 0, (wide.stdout[-2000:], wide.stderr[-2000:])
    assert "- k = 4 perm: within: FCT median " in wide.stdout, wide.stdout
    assert "check: 1 of 1 case(s) within 100x" in wide.stdout, wide.stdout
    tight = _run(fake, *args, "--check", "1.0001", cwd=tmp_path)
    assert tight.returncode == 1, (tight.stdout[-2000:], tight.stderr[-2000:])
    assert "- k = 4 perm: DIFFERS: " in tight.stdout and "OUTSIDE" in tight.stdout, tight.stdout
    assert "check: 0 of 1 case(s) within 1.0001x; outside: k = 4 perm" in tight.stdout, tight.stdout
    # without --check the table judges nothing: no verdicts, exit 0
    plain = _run(fake, *args, cwd=tmp_path)
    assert plain.returncode == 0 and "check" not in plain.stdout and "DIFFERS" not in plain.stdout


def test_check_is_refused_below_one_and_with_seeds():
    for argv, said in ((["--check", "0.9"], "--check: a factor above 1"),
                       (["--check", "nan"], "--check: a factor above 1"),
                       (["--check", "1.5", "--seeds", "1", "2"], "--check judges the table's cases")):
        r = subprocess.run([sys.executable, str(RUN), "/bin/true", *argv], capture_output=True, text=True)
        assert r.returncode == 2 and said in r.stderr, (argv, r.stderr[-500:])
