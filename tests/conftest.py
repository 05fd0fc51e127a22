"""Shared fixtures. Tests that need the Rust core skip (with a reason) until
`dcnsim._core.run` exists; everything else runs regardless.

Under `CI=true` (what CI sets) a skip is a failure unless it is on
`CI_ALLOWED_SKIPS`: a green CI run has run every test whose tools CI can
have (the Rust core, Optuna, Dask, clippy, rustfmt, ruff, mypy, tshark and
ns-3 via .ci/setup-tools) instead of skipping it and passing."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable, Optional, Tuple

import dcnsim
import pytest
from dcnsim import _core

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SCENARIOS = ROOT / "scenarios"

# Every figure any test makes (the quick reproductions, tune, the demo, in
# this process and in the CLI subprocesses it starts) is checked before it
# is written: nothing cut by the canvas, units on physical axes, error bars
# explained (dcnsim.plots.figure_problems).
os.environ["DCNSIM_CHECK_FIGURES"] = "1"

needs_core = pytest.mark.skipif(
    not (hasattr(_core, "run") and hasattr(_core, "validate")),
    reason="dcnsim._core has no run()/validate() yet (Rust core not built)",
)


@pytest.fixture(autouse=True)
def _conservation_checked(monkeypatch):
    """Every run made in-process by any test is checked against the
    accounting laws (bytes delivered exactly once, packets accounted)."""
    real = dcnsim.run

    def checked(*a, **kw):
        r = real(*a, **kw)
        problems = r.conservation_problems()
        assert not problems, "conservation violated: " + "; ".join(problems)
        return r

    monkeypatch.setattr(dcnsim, "run", checked)
    yield


def cli(*args: str, cwd=None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m dcnsim ARGS` in a fresh interpreter."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "-m", "dcnsim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


def load_module(name: str, path: Path):
    """Import the script at ``path`` as module ``name`` (validation/'s
    harnesses are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    # registered before it runs: dataclasses look their module up
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


#: A stand-in for valgrind's cachegrind (benchmarks' ``--instructions``):
#: runs the program after the tool's options and reports the totals the
#: program names in lines ``instr N``, ``d1 N`` and ``ll N`` (0 where it
#: names none: cachegrind reports what ran, whether or not it succeeded),
#: as cachegrind's summary on stderr after the program's own stderr (both
#: go to valgrind's), with the program's exit status.
FAKE_VALGRIND = r'''#!{python}
import subprocess, sys
args = sys.argv[1:]
while args[0].startswith("--"):
    args.pop(0)
p = subprocess.run(args, capture_output=True, text=True)
sys.stdout.write(p.stdout)
sys.stderr.write(p.stderr)
said = dict(l.split()[:2] for l in p.stdout.splitlines() if l.startswith(("instr ", "d1 ", "ll ")))
sys.stderr.write(f"==1== I   refs:      {{int(said.get('instr', 0)):,}}\n")
sys.stderr.write(f"==1== D1  misses:    {{int(said.get('d1', 0)):,}}  (1 rd + 1 wr)\n")
sys.stderr.write(f"==1== LL misses:     {{int(said.get('ll', 0)):,}}  (1 rd + 1 wr)\n")
sys.exit(p.returncode)
'''


@pytest.fixture
def fake_valgrind(tmp_path, monkeypatch) -> Path:
    """:data:`FAKE_VALGRIND` first on ``PATH`` as ``valgrind``."""
    bin_dir = tmp_path / "valgrind-bin"
    bin_dir.mkdir()
    exe = bin_dir / "valgrind"
    exe.write_text(FAKE_VALGRIND.format(python=sys.executable))
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return exe


def small_incast(**over) -> dcnsim.Scenario:
    """The builder twin of tests/data/small_incast.toml."""
    kw = dict(
        name="small-incast",
        seed=7,
        stop="2s",
        pcap=[0, 1],
        routing=None,
        l2_overhead=None,
        topology=dcnsim.Star(hosts=5, rate="1Gbps", delay="10us", buffer="16KB"),
        tcp=dcnsim.Tcp(mss=1024, rto_min="1ms", rwnd="64pkt"),
        apps=[dcnsim.SyncReads(client=0, servers="1-4", sru="64KB", blocks=3, jitter="20us")],
    )
    kw.update(over)
    return dcnsim.Scenario(**kw)


def small_pa(queries: int = 3, workers: str = "1-6") -> dict:
    return {
        "name": "small-pa",
        "stop": "1s",
        "topology": {"kind": "star", "hosts": 7, "rate": "1Gbps", "delay": "25us", "buffer": "32KB"},
        "tcp": {"rto_min": "1ms"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": workers, "response": "10KB", "queries": queries}],
    }


def small_rps(seed: int = 1) -> dict:
    return {
        "name": "small-rps",
        "seed": seed,
        "stop": "20ms",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "routing": {"mode": "rps"},
        "apps": [
            {"kind": "bulk", "src": 0, "dst": 15, "size": "300KB"},
            {"kind": "bulk", "src": 1, "dst": 14, "size": "300KB"},
            {"kind": "bulk", "src": 4, "dst": 15, "size": "300KB"},
        ],
    }


def pcap_records(data: bytes):
    """Parse a classic pcap file: (linktype, [(time_s, incl_len, orig_len)]).
    Asserts the structure: a known magic and records that exactly fill the file."""
    import struct

    magic = data[:4]
    assert magic in (b"\x4d\x3c\xb2\xa1", b"\xd4\xc3\xb2\xa1"), magic.hex()  # ns / us, little-endian
    scale = 1e-9 if magic == b"\x4d\x3c\xb2\xa1" else 1e-6
    linktype = struct.unpack("<I", data[20:24])[0]
    off, recs = 24, []
    while off < len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[off : off + 16])
        assert incl <= orig
        recs.append((sec + frac * scale, incl, orig))
        off += 16 + incl
    assert off == len(data), "truncated record"
    return linktype, recs


@pytest.fixture
def small_incast_path() -> Path:
    return DATA / "small_incast.toml"


#: How long a process may take to exit after SIGINT. Not a speed claim: the
#: core's poll takes milliseconds, the rest is the interpreter shutting down
#: on a shared machine; a process that ignored Ctrl-C would run for minutes.
SIGINT_DEADLINE_S = 10.0


def default_sigint() -> None:
    """In a child, before it runs Python: SIGINT at its default action. A
    shell starts background jobs with SIGINT ignored and children inherit
    that; Python installs its KeyboardInterrupt handler only when SIGINT is
    not ignored, so a Ctrl-C test run from such a job would fail for the
    runner's sake, not dcnsim's."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn_dcnsim(*args: str, cwd=None, env=None) -> subprocess.Popen:
    """`python -m dcnsim ARGS` in its own session, so a signal can go to the
    whole process group as a terminal's Ctrl-C does (sweep workers too)."""
    return subprocess.Popen([sys.executable, "-m", "dcnsim", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=default_sigint)


def core_start_hook(tmp_path: Path) -> Tuple[Path, str]:
    """(marker, PYTHONPATH): a sitecustomize that creates ``marker`` when the
    child's core run call begins, a deterministic "it is running now"
    instead of a guess at how long imports take."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    marker = tmp_path / "started"
    (site / "sitecustomize.py").write_text(
        "import dcnsim._core as c\n"
        "_run = c.run\n"
        "def run(*a, **k):\n"
        f"    open({str(marker)!r}, 'a').close()\n"
        "    return _run(*a, **k)\n"
        "c.run = run\n"
    )
    return marker, os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)


@pytest.fixture
def started(tmp_path, monkeypatch) -> Path:
    """The marker of `core_start_hook`, installed for every child process
    this test starts."""
    marker, path = core_start_hook(tmp_path)
    monkeypatch.setenv("PYTHONPATH", path)
    return marker


def interrupt(proc: subprocess.Popen, started: Path, patience: float = 60.0, settle: float = 1.0) -> tuple:
    """SIGINT ``proc``'s group ``settle`` seconds after its core run began
    (``started`` appears); return (stdout, stderr, seconds from SIGINT to
    exit). Fails the test if the run never starts, ends first, or ignores
    the signal for a minute."""
    import signal
    import time

    t_end = time.monotonic() + patience
    while not started.exists():
        assert proc.poll() is None, f"exited early: {proc.communicate()}"
        assert time.monotonic() < t_end, "the run never started"
        time.sleep(0.05)
    time.sleep(settle)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"SIGINT did not stop the process within 60 s: {err[-2000:]}")
    return out, err, time.monotonic() - t0


def pytest_configure(config):
    # hypothesis' optional libcst import warns on some installs; not ours
    config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning:libcst.*")


# ---------------------------------------------------------------- skips under CI


def _apt_can_install() -> bool:
    # .ci/setup-tools' own condition for installing tshark and ns-3
    return shutil.which("apt-get") is not None and hasattr(os, "geteuid") and os.geteuid() == 0


#: (pattern the skip reason matches, whether that skip is allowed here):
#: the only skips a CI run may show.
CI_ALLOWED_SKIPS: Tuple[Tuple[str, Callable[[], bool]], ...] = (
    # .ci/setup-tools installs tshark with apt-get as root; elsewhere it cannot
    (r"^tshark not installed", lambda: not _apt_can_install()),
    # and Debian's ns-3 (libns3-dev, g++, pkg-config) likewise
    (r"^ns-3 \(", lambda: not _apt_can_install()),
    # signals, process groups: POSIX only
    (r"^POSIX", lambda: os.name != "posix"),
    # the HPCC authors' ns-3 fork is in no registry (a GitHub checkout built
    # by hand with a python2-era waf: validation/hpcc_ns3/run.py says how), so
    # CI cannot build it; its comparison runs where HPCC_NS3_THIRD names one
    (r"^the HPCC authors' ns-3 fork is not built", lambda: not os.environ.get("HPCC_NS3_THIRD")),
)


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def ci_skip_problem(report) -> Optional[str]:
    """Why this skipped report must fail under CI=true (None: allowed, or
    not a skip). An xfail is not a skip."""
    if not (report.skipped and _in_ci()) or hasattr(report, "wasxfail"):
        return None
    reason = _skip_reason(report)
    if any(re.search(pattern, reason) and allowed() for pattern, allowed in CI_ALLOWED_SKIPS):
        return None
    return (f"skipped under CI=true, and this skip is not on conftest.CI_ALLOWED_SKIPS: {reason} "
            "(install what the test needs; CI must run it)")


def _fail_skip(report) -> None:
    problem = ci_skip_problem(report)
    if problem is not None:
        report.outcome = "failed"
        report.longrepr = problem


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # a whole module skipped at import (pytest.importorskip at module level)
    outcome = yield
    _fail_skip(outcome.get_result())
