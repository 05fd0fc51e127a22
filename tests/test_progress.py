"""`dcnsim run` shows its progress (simulated time of `stop`, events/s,
time left) on stderr when stderr is a terminal, and not otherwise or with
--no-progress; `dcnsim.run(progress=True)` shows it anywhere. The core
reports from its periodic work, so the result is the same either way."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import needs_core

pytestmark = [needs_core]

#: Two 10 Gbps flows for 50 ms: a few hundred thousand events, several
#: progress reports (one per 2^16 events), well under a second of run.
SCENARIO = """\
name = "progress"
stop = "50ms"
[topology]
kind = "star"
hosts = 3
rate = "10Gbps"
delay = "5us"
buffer = "100pkt"
[[apps]]
kind = "bulk"
src = 0
dst = 2
duration = "50ms"
[[apps]]
kind = "bulk"
src = 1
dst = 2
duration = "50ms"
"""

BAR = "s simulated"


def _run_with_tty_stderr(args: list) -> tuple:
    """Run `dcnsim ARGS` with stderr on a pseudo-terminal, stdout on a pipe:
    (exit code, stdout, what the terminal received)."""
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    # A new pseudo-terminal is 0 columns wide; a real one is not.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "dcnsim", *args], stdout=subprocess.PIPE, stderr=slave,
                            text=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read()
    proc.wait(timeout=120)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals")
def test_a_terminal_sees_progress(tmp_path):
    scen = tmp_path / "p.toml"
    scen.write_text(SCENARIO)
    code, out, tty = _run_with_tty_stderr(["run", str(scen)])
    assert code == 0, (out, tty)
    assert BAR in tty and "events/s" in tty, tty
    assert "100%" in tty and "/0.05 s simulated" in tty, tty  # ends at `stop`
    assert BAR not in out  # the summary on stdout stays clean
    code, out, tty = _run_with_tty_stderr(["run", str(scen), "--no-progress"])
    assert code == 0 and BAR not in tty, tty


def test_no_terminal_no_progress(tmp_path):
    scen = tmp_path / "p.toml"
    scen.write_text(SCENARIO)
    p = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(scen)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert BAR not in p.stderr and BAR not in p.stdout, p.stderr


def test_progress_in_python_shows_and_changes_no_result(tmp_path, capfd):
    import dcnsim

    scen = tmp_path / "p.toml"
    scen.write_text(SCENARIO)
    with_bar = dcnsim.run(scen, progress=True)
    err = capfd.readouterr().err
    assert BAR in err and "events/s" in err, err
    # the time left is the rate so far's, and says so: a load whose flows
    # pile up took 1.6-2x what was first shown (audit 35)
    assert "left at this rate" in err, err
    without = dcnsim.run(scen)
    assert BAR not in capfd.readouterr().err
    assert with_bar.summary == without.summary


def test_an_exception_in_the_progress_callback_stops_the_run():
    import tomllib
    from dcnsim import _core
    from dcnsim.scenario import to_json

    text = to_json(tomllib.loads(SCENARIO))
    calls = []

    def boom(sim_s, events, stop_s):
        calls.append((sim_s, events, stop_s))
        if len(calls) == 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        _core.run(text, None, False, boom)
    assert len(calls) == 2, calls
    assert calls[1][1] - calls[0][1] == 1 << 16 and calls[0][0] <= calls[1][0] <= calls[1][2] == pytest.approx(0.05)


def test_a_short_runs_bar_ends_at_the_runs_rate(tmp_path, capfd):
    """A run of fewer than 2^16 events reports once, at its start, with one
    event: the bar showed 1 event over tqdm's start-up (201 events/s for a
    run of 740 k/s). It ends with the run's events over the core's wall time."""
    import re

    import dcnsim

    scen = tmp_path / "p.toml"
    scen.write_text(SCENARIO.replace('"50ms"', '"1ms"'))
    r = dcnsim.run(scen, progress=True)
    assert r.summary["events"] < 1 << 16
    rates = re.findall(r"([\d.]+)([kMG]?) events/s", capfd.readouterr().err)
    assert rates, "a bar with a rate"
    value, unit = rates[-1]
    shown = float(value) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[unit]
    true = r.summary["events"] / r.timing["wall_s"]
    assert abs(shown - true) <= 0.01 * true, (shown, true)
