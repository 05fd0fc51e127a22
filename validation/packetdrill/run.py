#!/usr/bin/env python3
"""Run packetdrill scripts against dcnsim's TCP endpoint under `profile = "linux"`.

    python validation/packetdrill/run.py FILE.pkt...  [-v] [--tolerance_usecs N] [--tcp KEY=VALUE]...

Each script is read into a list of timed events (the handshake, writes,
inbound segments, `%{ }%` asserts), handed to the Rust example binary
`packetdrill_endpoint` (crates/dcnsim/examples/packetdrill_endpoint.rs,
built here with cargo), and what the endpoint sent is matched against the
script's outbound (`>`) lines in order: sequence range, ACK number and time
within a fixed tolerance (--tolerance_usecs, default 4000, packetdrill's
default; packetdrill itself also allows 12.5 % of the time since the
previous event, so this runner is the stricter of the two). Back-to-back
segments the endpoint sent at one time are coalesced as TSO would send them,
so `> P. 1:10001(10000)` matches ten 1000-byte segments. As in packetdrill,
a packet the script did not expect fails it at the next `>` line it
takes the place of; packets after the script's last line are not judged.

What the endpoint does not model is stated per line by the failure reason:
the SYN, SYN-ACK and FIN are the runner's (the endpoint has no handshake or
FIN), so they are read for their options and sequence numbers, not judged;
CWR (W) and ECE (E) of outbound segments are compared, their PSH flag,
window and options not; a RST the script expects fails as not modelled.
Backtick shell lines are read for the sysctls they set; those without a
counterpart here are listed as ignored.

`--tcp KEY=VALUE` sets a `[tcp]` key over the profile and the script's
sysctls (the value read as JSON, else as a string): what a script shows
can be checked to fail with the mechanism turned off.

One line per script, then `N passed, M failed`; exit status 1 if any failed.

Linux's own scripts (google/packetdrill, fetched outside this repository)
and how to run them, and packetdrill itself against this machine's kernel
in a network namespace: docs/linux_profile.md, "Linux's own packetdrill scripts as the judge".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import textwrap
import traceback
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "target" / "release" / "examples" / "packetdrill_endpoint"

# Linux's tcp_info constants the scripts' Python blocks use.
PY_CONSTANTS = {
    "TCP_CA_Open": 0,
    "TCP_CA_Disorder": 1,
    "TCP_CA_CWR": 2,
    "TCP_CA_Recovery": 3,
    "TCP_CA_Loss": 4,
}

# sysctl → [tcp] key, and the value mapping (None: the value is ignored).
SYSCTL_KEYS = {
    "tcp_congestion_control": (
        "cc",
        lambda v: {"cubic": "cubic", "reno": "newreno"}.get(v),
    ),
    "tcp_ecn": ("ecn", lambda v: v in ("1", "3") or None),
    "tcp_sack": ("sack", lambda v: v != "0"),
    "tcp_timestamps": ("timestamps", lambda v: v != "0"),
    # tcp_cubic's hystart_detect: 0 turns both of its detectors off.
    "hystart_detect": ("hystart", lambda v: "off" if v == "0" else "linux"),
    "hystart": ("hystart", lambda v: "off" if v == "0" else "linux"),
    "tcp_slow_start_after_idle": ("idle_restart", lambda v: "off" if v == "0" else "linux"),
}

# What packetdrill's gtests/net/common/defaults.sh sets that the endpoint
# models and the linux profile has otherwise (a stock kernel's 1).
DEFAULTS_SH = [("tcp_slow_start_after_idle", "0")]

# packetdrill's scripts are written against kernels ticking at HZ = 1000:
# the sack-shift scripts expect RACK's reordering retransmission 27 ms
# after a SACK that leaves 25 ms to wait (25 jiffies + TCP_TIMEOUT_MIN's
# 2), where the profile's default HZ = 250 (this VM's kernel) waits 36.
# `--tcp hz=250` runs them as that kernel would.
PACKETDRILL_HZ = 1000


class ScriptError(Exception):
    """The script uses syntax the runner does not read."""


class Fail(Exception):
    """The endpoint did not do what the script expects."""


@dataclass
class Seg:
    direction: str  # "<" or ">"
    flags: str
    start: int
    end: int
    ack: int | None
    win: int | None
    options: str
    ecn: str | None
    line: int


@dataclass
class Event:
    t: float  # script time, seconds
    t_hi: float | None  # end of a `a...b` window
    any_time: bool
    kind: str  # seg, call, py, shell
    line: int
    seg: Seg | None = None
    call: str = ""
    args: str = ""
    text: str = ""
    # When the endpoint's packet matched a `>` line with a time window: the
    # time the next relative line counts from (packetdrill's "now").
    actual: float | None = None


@dataclass
class Result:
    name: str
    ok: bool
    reason: str
    ignored: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- parsing

# A time, or a window `a...b` / `a~b` (packetdrill's two spellings).
TIME_RE = re.compile(
    r"^\s*(\*|\+?[0-9]*\.?[0-9]+(?:\s*(?:\.\.\.|~)\s*\+?[0-9]*\.?[0-9]+)?)\s+(.*)$",
    re.S,
)
SEG_RE = re.compile(
    r"^([<>])\s*(?:\[(\w+)\]\s*)?([SFPRWE.]+)\s+(\d+):(\d+)\((\d+)\)"
    r"(?:\s+ack\s+(\d+))?(?:\s+win\s+(\d+))?\s*(?:<(.*)>)?\s*$"
)
CALL_RE = re.compile(r"^(\w+)\((.*)\)\s*(?:=\s*(-?\w+).*)?$", re.S)


def strip_comments(text: str) -> str:
    text = re.sub(
        r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S
    )
    return re.sub(r"//[^\n]*", "", text)


def parse(
    text: str, options: dict | None = None, anchors: dict[int, float] | None = None
) -> list[Event]:
    """The script's events with absolute script times (a `+x` time is
    relative to the previous event's, as packetdrill reads it)."""
    text = strip_comments(text)
    options = {} if options is None else options
    events: list[Event] = []
    prev = 0.0
    i, n, line = 0, len(text), 1
    while i < n:
        if text[i] == "\n":
            line += 1
            i += 1
            continue
        if text[i].isspace():
            i += 1
            continue
        start_line = line
        if text[i] == "`":
            j = text.index("`", i + 1)
            body = text[i + 1 : j]
            events.append(Event(prev, None, False, "shell", start_line, text=body))
            line += body.count("\n")
            i = j + 1
            continue
        # One event: up to the end of the line, or of a %{ }% block.
        j = text.find("\n", i)
        j = n if j < 0 else j
        chunk = text[i:j]
        if chunk.startswith("--"):
            # A command-line option given in the script.
            k, _, v = chunk[2:].strip().partition("=")
            options[k] = v
            i = j
            continue
        if "%{" in chunk and "}%" not in chunk:
            k = text.index("}%", i) + 2
            chunk = text[i:k]
            j = k
        line += chunk.count("\n")
        i = j
        m = TIME_RE.match(chunk)
        if not m:
            raise ScriptError(f"line {start_line}: no time in {chunk.strip()!r}")
        ts, rest = m.group(1), m.group(2).strip()
        any_time = ts == "*"
        t_hi = None
        if any_time:
            t = prev
        else:
            rel = ts.startswith("+")
            lo, _, hi = re.sub(r"\s", "", ts).replace("~", "...").partition("...")
            t = float(lo.lstrip("+")) + (prev if rel else 0.0)
            if hi:
                t_hi = float(hi.lstrip("+")) + (
                    prev if rel or hi.startswith("+") else 0.0
                )
        ev = Event(t, t_hi, any_time, "", start_line)
        if rest.startswith("`"):
            ev.kind, ev.text = "shell", rest.strip("`")
        elif rest.startswith("%{"):
            ev.kind, ev.text = "py", rest[2:].rsplit("}%", 1)[0]
        elif rest[0] in "<>":
            sm = SEG_RE.match(rest)
            if not sm:
                raise ScriptError(f"line {start_line}: cannot read segment {rest!r}")
            d, ecn, fl, a, b, ln, ack, win, opts = sm.groups()
            if int(b) - int(a) != int(ln):
                raise ScriptError(f"line {start_line}: {a}:{b} is not {ln} bytes")
            ev.kind = "seg"
            ev.seg = Seg(
                d,
                fl,
                int(a),
                int(b),
                None if ack is None else int(ack),
                None if win is None else int(win),
                opts or "",
                ecn,
                start_line,
            )
        else:
            cm = CALL_RE.match(rest)
            if not cm:
                raise ScriptError(f"line {start_line}: cannot read {rest!r}")
            ev.kind, ev.call, ev.args = "call", cm.group(1), cm.group(2)
        events.append(ev)
        # After a window packetdrill counts on from the time the packet
        # actually went (`anchors`, from a previous run), else its end.
        prev = (anchors or {}).get(start_line, t_hi) if t_hi is not None else t
    return events


def read_shell(body: str, tcp: dict, ignored: list[str]) -> None:
    """The sysctls a backtick block sets: those with a [tcp] key go into
    `tcp`, the rest into `ignored`."""
    for raw in body.replace("\\\n", " ").splitlines():
        cmd = raw.split("#", 1)[0].strip()
        if not cmd:
            continue
        sets = []
        m = re.match(r"sysctl\s+(?:-\w+\s+)*(\S+)=(\S+)", cmd)
        if m:
            sets.append((m.group(1), m.group(2)))
        m = re.match(r"echo\s+(\S+)\s*>\s*/sys/module/tcp_cubic/parameters/(\w+)", cmd)
        if m:
            sets.append((m.group(2), m.group(1)))
        if "sysctls.py" in cmd:
            sets += re.findall(r"/proc/sys/net/ipv4/(\w+)=(\S+)", cmd)
        if cmd.endswith("defaults.sh"):
            sets += DEFAULTS_SH
        if not sets:
            ignored.append(cmd)
            continue
        for name, value in sets:
            key = re.split(r"[./]", name)[-1]
            if key in SYSCTL_KEYS:
                k, f = SYSCTL_KEYS[key]
                v = f(value)
                if v is not None:
                    tcp[k] = v
                    continue
            ignored.append(f"{key}={value}")


def syn_options(opts: str) -> dict:
    o = {"sack": "sackOK" in opts, "ts": "TS val" in opts}
    m = re.search(r"mss (\d+)", opts)
    o["mss"] = int(m.group(1)) if m else 536
    m = re.search(r"wscale (\d+)", opts)
    o["wscale"] = int(m.group(1)) if m else None
    return o


# ---------------------------------------------------------------- running


def build() -> None:
    if shutil.which("cargo") is None:
        sys.exit("building packetdrill_endpoint needs Rust's cargo (https://rustup.rs), or --no-build with "
                 f"{BIN.relative_to(REPO)} built")
    r = subprocess.run(
        [
            "cargo",
            "build",
            "--release",
            "--quiet",
            "--example",
            "packetdrill_endpoint",
            "-p",
            "dcnsim",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        sys.exit(f"building packetdrill_endpoint failed:\n{r.stderr}")


def run_script(path: Path, tol: float, verbose: bool = False, overrides: dict | None = None) -> Result:
    name = path.name
    ignored: list[str] = []
    options: dict = {}
    anchors: dict[int, float] = {}
    # Relative times after a `>` line with a window count from when its
    # packet went: run again with those times until they are stable.
    for _ in range(8):
        try:
            events = parse(path.read_text(), options, anchors)
            if "tolerance_usecs" in options:
                tol = int(options["tolerance_usecs"])
        except (ScriptError, ValueError) as e:
            return Result(name, False, f"script not read: {e}")
        tcp: dict = {"hz": PACKETDRILL_HZ}
        ignored = []
        for ev in events:
            if ev.kind == "shell":
                read_shell(ev.text, tcp, ignored)
        tcp.update(overrides or {})
        try:
            result = drive(name, events, tcp, tol, ignored, verbose)
        except Fail as e:
            result = Result(name, False, str(e), ignored)
        seen = {ev.line: ev.actual for ev in events if ev.actual is not None}
        if all(anchors.get(k) == v for k, v in seen.items()):
            return result
        anchors.update(seen)
    return result


def drive(name, events, tcp, tol, ignored, verbose) -> Result:
    # ---- the handshake: options from the peer's SYN (or SYN-ACK), the
    # RTT sample between our SYN-ACK (or SYN) and its answer.
    peer = None
    t_sent = None
    rtt = None
    window = None
    established = None  # index of the first event after the handshake
    for k, ev in enumerate(events):
        s = ev.seg
        if ev.kind != "seg":
            continue
        if "S" in s.flags and s.direction == ">":
            t_sent = ev.t
            continue
        if "S" in s.flags:
            peer = syn_options(s.options)
            peer["ecn"] = "E" in s.flags
            if "." not in s.flags:
                continue
            # The SYN-ACK to our connect(); our ACK of it is the runner's.
            rtt, window, established = ev.t - t_sent, s.win, k + 1
            nxt = events[k + 1] if k + 1 < len(events) else None
            if (
                nxt
                and nxt.kind == "seg"
                and nxt.seg.direction == ">"
                and nxt.seg.end == nxt.seg.start
            ):
                established = k + 2
            break
        if s.direction == "<" and peer is not None and t_sent is not None:
            rtt, window, established = ev.t - t_sent, s.win, k + 1
            break
    if peer is None:
        raise Fail("no SYN: the runner needs a handshake")
    ts = peer["ts"] and tcp.get("timestamps", True)
    tcp.setdefault("sack", peer["sack"])
    tcp["sack"] = tcp["sack"] and peer["sack"]
    tcp["timestamps"] = ts
    # Linux's MSS: the peer's, capped by its own 1460 (1500 B MTU), less
    # the timestamp option when both sides use it.
    tcp["mss"] = min(peer["mss"], 1460) - (12 if ts else 0)
    tcp["header"] = 40 + (12 if ts else 0)
    if established is None:
        raise Fail("the handshake does not complete")
    # RFC 3168 negotiation: Linux's default tcp_ecn = 2 accepts ECN from a
    # peer's ECN-setup SYN; tcp_ecn = 1 also asks for it on connect().
    passive = (
        "." not in events[established - 1].seg.flags
        or events[established - 1].seg.direction == "<"
        and "S" not in events[established - 1].seg.flags
    )
    tcp["ecn"] = bool(peer.get("ecn") and (tcp.get("ecn", False) or passive))
    shift = peer["wscale"] if peer["wscale"] is not None else 0

    # ---- the endpoint's events
    # RFC 7323: a SYN's window is never scaled.
    syn_ack_in = (
        "S" in events[established - 1].seg.flags
        if events[established - 1].kind == "seg"
        else False
    )
    inputs = [
        {
            "t_us": events[established - 1].t * 1e6,
            "op": "window",
            "win": (window or 0) << (0 if syn_ack_in else shift),
            "ev": established - 1,
        }
    ]
    written = 0
    peer_fin = None  # script seq after the peer's FIN
    for k, ev in enumerate(events):
        if ev.kind == "call" and ev.call in ("write", "send"):
            m = re.search(r",\s*(\d+)\s*(?:,[^,]*)?$", ev.args)
            if not m:
                raise Fail(f"line {ev.line}: cannot read the length of {ev.call}()")
            n = int(m.group(1))
            written += n
            inputs.append({"t_us": ev.t * 1e6, "op": "write", "bytes": n, "ev": k})
        elif ev.kind == "call" and ev.call not in (
            "socket",
            "setsockopt",
            "bind",
            "listen",
            "accept",
            "connect",
            "getsockopt",
            "fcntl",
            "close",
        ):
            ignored.append(f"{ev.call}()")
        elif ev.kind == "py":
            inputs.append({"t_us": ev.t * 1e6, "op": "info", "id": k, "ev": k})
        elif ev.kind == "seg" and ev.seg.direction == "<" and "S" not in ev.seg.flags:
            s = ev.seg
            if k < established:
                continue
            if "F" in s.flags:
                peer_fin = s.end + 1
            if s.end > s.start:
                inputs.append(
                    {
                        "t_us": ev.t * 1e6,
                        "op": "data",
                        "seq": s.start - 1,
                        "len": s.end - s.start,
                        "ce": s.ecn == "ce",
                        "ev": k,
                    }
                )
            if s.ack is not None:
                # Our FIN takes one sequence number the endpoint does not have.
                ack = min(s.ack - 1, written)
                sack = (
                    [
                        [int(a) - 1, int(b) - 1]
                        for a, b in re.findall(
                            r"(\d+):(\d+)", s.options.split("sack", 1)[1]
                        )
                    ]
                    if "sack" in s.options
                    else []
                )
                inputs.append(
                    {
                        "t_us": ev.t * 1e6,
                        "op": "ack",
                        "ack": ack,
                        "sack": sack,
                        "win": (s.win or 0) << shift,
                        "ece": "E" in s.flags,
                        "ev": k,
                    }
                )
    end = max(ev.t_hi or ev.t for ev in events) + 0.001
    req = {
        "tcp": tcp,
        "handshake_rtt_us": rtt * 1e6 if rtt else None,
        "end_us": end * 1e6,
        "events": inputs,
    }
    r = subprocess.run(
        [str(BIN)], input=json.dumps(req), capture_output=True, text=True
    )
    if r.returncode != 0:
        raise Fail(f"endpoint: {r.stderr.strip()}")
    out = [json.loads(line) for line in r.stdout.splitlines()]
    return judge(
        name, events, established, out, tol, ignored, written, peer_fin, verbose
    )


def judge(
    name, events, established, out, tol, ignored, written, peer_fin, verbose
) -> Result:
    ns = dict(PY_CONSTANTS)
    sent = []  # packets in order, with the index of the input they follow
    infos = {}
    for o in out:
        if o["kind"] == "info":
            infos[o["id"]] = o
        else:
            sent.append(o)
    ptr = 0
    tol_s = tol / 1e6
    for k, ev in enumerate(events):
        if ev.kind == "py":
            info = infos.get(k)
            if info is None:
                raise Fail(f"line {ev.line}: no state reported")
            for f in (
                "ca_state",
                "snd_cwnd",
                "snd_ssthresh",
                "unacked",
                "sacked",
                "lost",
                "retrans",
                "reordering",
                "reord_seen",
                "rtt",
            ):
                ns["tcpi_" + f] = info[f]
            code = textwrap.dedent(ev.text).strip()
            try:
                compile(code, "<script>", "exec")
            except SyntaxError:
                # A block opened on the `%{` line: its lines are flat asserts.
                code = "\n".join(x.strip() for x in ev.text.splitlines())
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # the scripts' print()s
                    exec(code, ns)  # noqa: S102 - the scripts' own asserts
            except AssertionError as e:
                n = traceback.extract_tb(e.__traceback__)[-1].lineno
                stmt = code.splitlines()[n - 1].strip().split("#")[0].strip()
                raise Fail(f"line {ev.line}: {stmt} failed (got {e})") from None
            except NameError as e:
                raise Fail(
                    f"line {ev.line}: tcp_info field not modelled ({e})"
                ) from None
            except Exception as e:  # noqa: BLE001 - the script's code, reported
                raise Fail(
                    f"line {ev.line}: python block failed: {type(e).__name__}: {e}"
                ) from None
            continue
        if ev.kind != "seg" or k < established:
            continue
        s = ev.seg
        if s.direction == "<":
            # As packetdrill: what the endpoint sends is compared, in order,
            # with the `>` lines only; an extra packet shows at the next one.
            continue
        # ---- an outbound segment
        if "R" in s.flags:
            raise Fail(f"line {ev.line}: expects a RST, which the endpoint does not model")
        if "F" in s.flags:
            if s.start - 1 != written:
                raise Fail(
                    f"line {ev.line}: FIN at {s.start}, the endpoint wrote {written} bytes"
                )
            continue
        if s.end == s.start:
            if peer_fin is not None and s.ack == peer_fin:
                continue  # the runner's ACK of the peer's FIN
            if ptr >= len(sent):
                raise Fail(
                    f"line {ev.line}: expected ACK {s.ack}, the endpoint sent nothing"
                )
            p = sent[ptr]
            if p["kind"] != "ack" or p["ack"] + 1 != s.ack:
                raise Fail(f"line {ev.line}: expected ACK {s.ack}, got {describe(p)}")
            if ("E" in s.flags) != bool(p.get("ece")):
                raise Fail(f"line {ev.line}: expected ACK {s.ack} {'with' if 'E' in s.flags else 'without'} "
                           f"ECE, got {describe(p)}")
            check_time(ev, p, tol_s)
            if ev.t_hi is not None:
                ev.actual = p["t_us"] / 1e6
            ptr += 1
            continue
        want_a, want_b = s.start - 1, s.end - 1
        at = want_a
        while at < want_b:
            if ptr >= len(sent):
                raise Fail(
                    f"line {ev.line}: expected {s.start}:{s.end}, the endpoint sent "
                    + ("nothing" if at == want_a else f"only up to {at + 1}")
                )
            p = sent[ptr]
            if p["kind"] != "data" or p["seq"] != at or p["seq"] + p["len"] > want_b:
                raise Fail(
                    f"line {ev.line}: expected {s.start}:{s.end}, got {describe(p)}"
                    f" at {p['t_us'] / 1e6:.4f}s"
                )
            check_time(ev, p, tol_s)
            if ev.t_hi is not None and ev.actual is None:
                ev.actual = p["t_us"] / 1e6
            # CWR on the line's first segment only (a TSO burst's first)
            if ("W" in s.flags and at == want_a) != bool(p.get("cwr")):
                raise Fail(f"line {ev.line}: expected {s.start}:{s.end} "
                           f"{'with' if 'W' in s.flags else 'without'} CWR, got {describe(p)}")
            if s.ecn == "ect0" and not p["ect"]:
                raise Fail(f"line {ev.line}: expected ECT(0), sent Not-ECT")
            at += p["len"]
            ptr += 1
    if verbose:
        for p in sent[ptr:]:
            print(f"  after the script: {describe(p)} at {p['t_us'] / 1e6:.4f}s")
    return Result(name, True, "", ignored)


def check_time(ev: Event, p: dict, tol_s: float) -> None:
    if ev.any_time:
        return
    t = p["t_us"] / 1e6
    lo, hi = ev.t - tol_s, (ev.t_hi if ev.t_hi is not None else ev.t) + tol_s
    if not lo <= t <= hi:
        raise Fail(
            f"line {ev.line}: {describe(p)} sent at {t:.6f}s, script expects {ev.t:.6f}s"
            + (f"..{ev.t_hi:.6f}s" if ev.t_hi is not None else "")
            # off by the distance to the nearer end of the expected range
            + f" ({(t - (ev.t if t < ev.t else (ev.t_hi if ev.t_hi is not None else ev.t))) * 1e6:+.0f} us; "
            f"tolerance {tol_s * 1e6:.0f} us)"
        )


def describe(p: dict) -> str:
    if p["kind"] == "data":
        return (f"{'retransmission ' if p['retx'] else ''}{p['seq'] + 1}:{p['seq'] + 1 + p['len']}({p['len']})"
                + (" CWR" if p.get("cwr") else ""))
    sack = " ".join(f"{a + 1}:{b + 1}" for a, b in p["sack"])
    return f"ACK {p['ack'] + 1}" + (" ECE" if p.get("ece") else "") + (f" <sack {sack}>" if sack else "")


def refused_overrides(overrides: dict) -> list[str]:
    """What dcnsim says of the `--tcp` keys over the linux profile, as
    "tcp.KEY: reason" (empty when it takes them, or when the dcnsim package
    is not importable here: the endpoint then says it per script)."""
    if not overrides:
        return []
    try:
        import dcnsim
    except ImportError:
        return []
    doc = {"name": "packetdrill", "stop": "1s",
           "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "10us", "buffer": "100KB"},
           "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}],
           "tcp": {"profile": "linux", **overrides}}
    return [f"{p.path}: {p.message}" for p in dcnsim.validate(doc) if p.path.startswith("tcp")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scripts", nargs="+", type=Path)
    ap.add_argument("--tolerance_usecs", type=int, default=4000)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--tcp", action="append", default=[], metavar="KEY=VALUE",
                    help="a [tcp] key over the profile and the script's sysctls")
    ap.add_argument(
        "--no-build", action="store_true", help="use the built binary as it is"
    )
    a = ap.parse_args(argv)
    overrides = {}
    for kv in a.tcp:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            ap.error(f"--tcp {kv!r}: expected KEY=VALUE")
        try:
            overrides[key] = json.loads(value)
        except ValueError:
            overrides[key] = value
    # Before the build: a path to scripts that were never fetched (Linux's
    # come from google/packetdrill, outside this repository) is named here,
    # not as a FileNotFoundError traceback after building.
    missing = [str(p) for p in a.scripts if not p.is_file()]
    if missing:
        ap.error(f"scripts: no such file: {', '.join(missing)} (Linux's own scripts are fetched outside the "
                 "repository: docs/linux_profile.md, \"Linux's own packetdrill scripts as the judge\")")
    if a.tolerance_usecs < 0:
        ap.error(f"--tolerance_usecs: must be >= 0, got {a.tolerance_usecs}")
    bad = refused_overrides(overrides)
    if bad:
        # before anything runs: a mistyped key failed every script, as if
        # the model had (audit 35: --tcp prr=false gave "0 passed, 14 failed")
        ap.error("--tcp: dcnsim refuses " + "; ".join(bad))
    if not a.no_build:
        build()
    elif not BIN.is_file():
        ap.error(f"--no-build: {BIN.relative_to(REPO)} is not built (cargo build --release --example "
                 "packetdrill_endpoint -p dcnsim, or leave out --no-build)")
    passed = failed = 0
    for path in a.scripts:
        r = run_script(path, a.tolerance_usecs, a.verbose, overrides)
        status = "PASS" if r.ok else "FAIL"
        line = f"{status} {path.parent.name}/{r.name}"
        if r.reason:
            line += f": {r.reason}"
        if r.ignored and a.verbose:
            line += f" [ignored: {', '.join(sorted(set(r.ignored)))}]"
        elif r.ignored and r.ok:
            # a pass on a script whose setup was partly not modelled is a
            # weaker pass: said without -v (the list with it)
            line += f" (passed with {len(set(r.ignored))} setup line(s) ignored; -v lists them)"
        print(line, flush=True)
        passed += r.ok
        failed += not r.ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
