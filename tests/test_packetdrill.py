"""The project's own packetdrill scripts (validation/packetdrill/scripts)
through the runner, and the runner's own judgement: a script whose
expectation contradicts the endpoint must fail."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "validation" / "packetdrill" / "scripts").glob("*.pkt"))

pytestmark = pytest.mark.skipif(
    shutil.which("cargo") is None, reason="needs cargo to build the endpoint"
)


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location(
        "pd_run", REPO / "validation" / "packetdrill" / "run.py"
    )
    mod = importlib.util.module_from_spec(spec)
    # dataclasses look their module up while the class is made.
    sys.modules["pd_run"] = mod
    spec.loader.exec_module(mod)
    mod.build()
    return mod


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_project_script_passes(run, script):
    r = run.run_script(script, 4000)
    assert r.ok, r.reason


def test_scripts_exist():
    assert len(SCRIPTS) >= 2


def _mutated(tmp_path, old, new):
    src = (
        REPO
        / "validation"
        / "packetdrill"
        / "scripts"
        / "limited-transmit-sack-ssthresh.pkt"
    ).read_text()
    assert old in src
    p = tmp_path / "mutated.pkt"
    p.write_text(src.replace(old, new, 1))
    return p


def test_wrong_ssthresh_fails(run, tmp_path):
    # ssthresh counting Limited Transmit's two segments (0.7 x 12 = 8).
    p = _mutated(
        tmp_path, "assert tcpi_snd_ssthresh == 7", "assert tcpi_snd_ssthresh == 8"
    )
    r = run.run_script(p, 4000)
    assert not r.ok and "tcpi_snd_ssthresh == 8" in r.reason and "(got 7)" in r.reason


def test_missing_outbound_segment_fails(run, tmp_path):
    # Drop the first Limited Transmit segment from the script: the endpoint
    # sends it anyway, in the place of the next expected one.
    p = _mutated(tmp_path, "   +0 > . 10001:11001(1000) ack 1\n", "")
    r = run.run_script(p, 4000)
    assert not r.ok and "expected 11001:12001, got 10001:11001" in r.reason


def test_late_segment_fails_outside_tolerance(run, tmp_path):
    p = _mutated(
        tmp_path, "   +0 > . 1:1001(1000) ack 1", "+.01 > . 1:1001(1000) ack 1"
    )
    r = run.run_script(p, 4000)
    assert not r.ok and "tolerance" in r.reason
    # in microseconds, with the error: "0.8120s, expects 0.8120s" at a
    # tolerance of 0 us hid what was off (audit 35)
    assert "s (-10000 us; tolerance 4000 us)" in r.reason, r.reason
    # ... and is judged on time no more once the tolerance covers the 10 ms.
    assert "tolerance" not in run.run_script(p, 20000).reason


def test_cli_summary_line():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "validation" / "packetdrill" / "run.py"),
            *map(str, SCRIPTS),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == f"{len(SCRIPTS)} passed, 0 failed", out.stdout + out.stderr
    assert len(lines) == len(SCRIPTS) + 1
    assert out.returncode == 0


def test_relative_time_after_a_window_counts_from_the_packet(run):
    # packetdrill counts a relative time from when the previous packet
    # actually went (its "now"), not from the end of that packet's window.
    text = (
        "0 write(4, ..., 1000) = 1000\n"
        "+.1~+.2 > P. 1:1001(1000) ack 1\n"
        "+.3 > P. 1:1001(1000) ack 1\n"
    )
    assert [e.t for e in run.parse(text, {})] == [0.0, 0.1, 0.5]
    assert run.parse(text, {}, {2: 0.12})[2].t == pytest.approx(0.42)


def test_hystart_delay_exit_without_timestamps(run, tmp_path):
    # Without the timestamp option HyStart still sees every ACK's delay:
    # the sender times its own segments (tcp_cubic's per-ACK samples),
    # not only Karn's one timed segment per round trip.
    src = (REPO / "validation" / "packetdrill" / "scripts" / "hystart-delay-exit.pkt").read_text()
    for old, new in (
        ("<mss 1012,sackOK,TS val 100 ecr 0,nop,wscale 7>", "<mss 1000,sackOK,nop,nop,nop,wscale 7>"),
        ("<mss 1460,sackOK,TS val 100 ecr 100,nop,wscale 8>", "<mss 1460,nop,nop,sackOK,nop,wscale 8>"),
    ):
        assert old in src
        src = src.replace(old, new)
    p = tmp_path / "hystart-no-ts.pkt"
    p.write_text(src)
    r = run.run_script(p, 4000)
    assert r.ok, r.reason


@pytest.mark.parametrize("timer", ["slow_but_steady", "impatient"])
def test_fast_retransmit_rto_restart_script_fails_without_linux_timer(run, timer):
    # The script shows Linux's restart of the RTO at the fast
    # retransmission: with RFC 6582's timers the one set when the window
    # went out fires in the middle of the recovery, and the script fails.
    script = REPO / "validation" / "packetdrill" / "scripts" / "reno-fast-retransmit-restarts-rto.pkt"
    r = run.run_script(script, 4000, overrides={"partial_ack_timer": timer})
    assert not r.ok
    assert "1:1001" in r.reason or "ca_state" in r.reason, r.reason


def test_rto_lost_retransmission_script_fails_without_rack_in_loss(run):
    # After a timeout the resend of 1001:2001 is lost and the SACK of the
    # segment resent after it shows it: Linux (rack_in_loss) sends it again
    # at once, in Recovery; a sender that leaves it to the next timeout
    # sends the next segment of its go-back-N, 3001:4001, and fails.
    script = REPO / "validation" / "packetdrill" / "scripts" / "rto-lost-retransmission-enters-recovery.pkt"
    assert run.run_script(script, 4000).ok
    r = run.run_script(script, 4000, overrides={"rack_in_loss": False})
    assert not r.ok
    assert "3001:4001" in r.reason, r.reason


def test_ecn_cwr_script_fails_under_rfc3168s_cut(run):
    # Linux's CWR reduces cwnd by PRR ACK by ACK (5 after the echo, with 3
    # in flight and ssthresh 7); RFC 3168's cut sets it to 7 at once.
    script = REPO / "validation" / "packetdrill" / "scripts" / "ecn-cwr-prr.pkt"
    r = run.run_script(script, 4000, overrides={"ecn_reduction": "cut"})
    assert not r.ok
    assert "tcpi_snd_cwnd == 5" in r.reason and "(got 7)" in r.reason, r.reason


def test_reno_hold_script_fails_without_the_hold(run, tmp_path):
    # Without SACK Linux holds a recovery whose ACKs reach exactly its
    # recovery point (tcp_is_non_sack_preventing_reopen): duplicate ACKs
    # there start no fast retransmit, and the lost segment waits for the
    # timer at 0.6 s. Without `reno_hold` the flow is Open at that point;
    # with the state checks taken out, what is left to fail on is the
    # packet itself: 10001:11001 resent on the third duplicate ACK, 0.4 s.
    script = REPO / "validation" / "packetdrill" / "scripts" / "reno-hold-at-recovery-point.pkt"
    assert run.run_script(script, 4000).ok
    r = run.run_script(script, 4000, overrides={"reno_hold": False})
    assert not r.ok
    src = script.read_text()
    held = "   +0 %{ assert tcpi_ca_state == TCP_CA_Recovery, tcpi_ca_state }%\n"
    assert src.count(held) == 3
    p = tmp_path / "no-state-checks.pkt"
    p.write_text(src.replace(held, ""))
    assert run.run_script(p, 4000).ok
    r = run.run_script(p, 4000, overrides={"reno_hold": False})
    assert not r.ok
    assert "10001:11001" in r.reason, r.reason


@pytest.mark.parametrize("sack_after", ["+.012", "+.008"])
def test_a_probe_sacked_above_the_handshake_rtt_marks_the_earlier_segments_lost(run, tmp_path, sack_after):
    # RACK's minimum RTT includes the handshake's (10 ms): the tail loss
    # probe SACKed 12 ms after it left is not ambiguous, so 4001:6001 are
    # lost at once; with the minimum taken from data segments alone (15 ms),
    # or with the SACK 8 ms after the probe (below every RTT seen, as Linux
    # too judges it), the sender waits for its retransmission timer.
    script = REPO / "validation" / "packetdrill" / "scripts" / "tlp-sack-marks-lost-above-handshake-rtt.pkt"
    src = script.read_text()
    assert "+.012 < . 1:1(0) ack 4001 win 320 <sack 6001:7001" in src
    p = tmp_path / "probe.pkt"
    p.write_text(src.replace("+.012 < . 1:1(0) ack 4001 win 320 <sack", f"{sack_after} < . 1:1(0) ack 4001 win 320 <sack"))
    if sack_after == "+.012":
        assert run.run_script(p, 4000).ok
        r = run.run_script(p, 4000, overrides={"handshake_rtt_sample": False})
    else:
        r = run.run_script(p, 4000)
    assert not r.ok
    assert "retransmission 4001:5001" in r.reason and "sent at 0.2" in r.reason, r.reason


def test_a_script_that_is_not_there_is_named_before_building(tmp_path):
    """Linux's scripts are fetched outside the repository; a path to one
    that was never fetched is refused by name (it was a FileNotFoundError
    traceback, after building the endpoint)."""
    missing = tmp_path / "packetdrill" / "gtests" / "net" / "tcp" / "nope.pkt"
    out = subprocess.run(
        [sys.executable, str(REPO / "validation" / "packetdrill" / "run.py"), str(SCRIPTS[0]), str(missing)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert out.returncode == 2, out.stderr
    assert f"scripts: no such file: {missing}" in out.stderr and "Traceback" not in out.stderr


def _script(tmp_path, name, old, new):
    src = (REPO / "validation" / "packetdrill" / "scripts" / name).read_text()
    assert old in src
    p = tmp_path / f"mutated-{name}"
    p.write_text(src.replace(old, new, 1))
    return p


def test_an_outbound_segments_cwr_and_ece_and_a_rst_are_judged(run, tmp_path):
    """packetdrill compares an outbound segment's flags: the CWR the
    sender sets after an ECN echo (W) must be on the line that expects it
    and on no other, and a RST the endpoint cannot send is said to be
    unmodelled at its line, not read as a pure ACK."""
    no_w = _script(tmp_path, "ecn-cwr-prr.pkt", "> PW. 4001:8001(4000)", "> P. 4001:8001(4000)")
    r = run.run_script(no_w, 4000)
    assert not r.ok and "without CWR, got 4001:5001(1000) CWR" in r.reason, r.reason
    rst = _mutated(tmp_path, "   +0 > . 1:1001(1000) ack 1", "   +0 > R. 1:1(0) ack 1")
    r = run.run_script(rst, 4000)
    assert not r.ok and "expects a RST, which the endpoint does not model" in r.reason, r.reason


def test_a_script_whose_handshake_never_completes_fails_cleanly(run, tmp_path):
    # the peer's SYN with no ACK of the SYN-ACK: a failure, not a crash
    p = tmp_path / "no-ack.pkt"
    p.write_text("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"
                 "+0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0\n"
                 "+0 bind(3, ..., ...) = 0\n+0 listen(3, 1) = 0\n"
                 "+0 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n"
                 "+0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>\n")
    r = run.run_script(p, 4000)
    assert not r.ok and "handshake" in r.reason, r.reason


def test_rack_rtt_script_fails_under_rfc8985s_rule(run):
    # Linux takes RACK.rtt from the last segment an ACK delivers (the
    # original's 45 ms); RFC 8985 from the most recently sent (the
    # retransmission's 25 ms), which marks 9001:10001 lost at once.
    script = REPO / "validation" / "packetdrill" / "scripts" / "rack-rtt-from-the-last-segment-delivered.pkt"
    assert run.run_script(script, 4000).ok
    r = run.run_script(script, 4000, overrides={"rack_rtt_each_segment": False})
    assert not r.ok and "expected 4001:7001, the endpoint sent only up to 6001" in r.reason, r.reason


def test_old_ack_script_fails_when_an_old_ack_is_dropped_whole(run):
    # Linux reads an old ACK's SACK blocks wholly above snd_una and sends
    # what they free (7001:8001, then new data); dropped whole, nothing
    # goes out until the retransmission timer.
    script = REPO / "validation" / "packetdrill" / "scripts" / "old-ack-sack-blocks-are-read.pkt"
    assert run.run_script(script, 4000).ok
    r = run.run_script(script, 4000, overrides={"sack_on_old_ack": False})
    assert not r.ok and "expected 7001:8001, the endpoint sent nothing" in r.reason, r.reason


def test_a_key_dcnsim_refuses_is_a_usage_error_before_any_script(run):
    """`--tcp prr=false` (no such key) or `rto_min=banana` failed every
    script, "0 passed, 14 failed", as if the model had (audit 35): refused
    at once, naming the key, exit 2, nothing run."""
    out = subprocess.run([sys.executable, str(REPO / "validation" / "packetdrill" / "run.py"), "--no-build",
                          "--tcp", "prr=false", "--tcp", "rto_min=banana", *map(str, SCRIPTS[:2])],
                         capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 2 and not out.stdout, out.stdout
    assert "--tcp: dcnsim refuses tcp.prr: unknown key; tcp.rto_min:" in out.stderr, out.stderr
    assert run.refused_overrides({"rto_min": "10ms"}) == []


def test_a_pass_with_setup_ignored_says_so():
    """A script whose sysctls were partly not modelled passed with a plain
    PASS; the list came only with -v (audit 35)."""
    out = subprocess.run([sys.executable, str(REPO / "validation" / "packetdrill" / "run.py"), "--no-build",
                          *map(str, SCRIPTS)], capture_output=True, text=True, cwd=REPO)
    lines = [x for x in out.stdout.splitlines() if x.startswith("PASS")]
    said = [x for x in lines if "setup line(s) ignored; -v lists them" in x]
    assert said and all("rto-lost-retransmission" in x or "ignored" in x for x in said), out.stdout
