"""What the ns-3 harnesses (ns3_incast, ns3_rps) share: building an ns-3
program against Debian's libns3-dev, reading the pcaps both simulators
write, parsing ``KEY=VALUE`` overrides for dcnsim's ``[tcp]``, and
judging dcnsim's times against ns-3's by a stated factor (``--check R``).

The harnesses run as scripts (``python validation/ns3_incast/run.py``) and
import this module by path: ``sys.path`` gets ``validation/`` first.
"""

from __future__ import annotations

import math
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

NS3_LIBS = ["core", "network", "internet", "point-to-point", "traffic-control", "applications", "bridge", "stats"]


def ns3_binary(source: Path, build_dir: Path) -> Path:
    """Compile ``source`` against the installed ns-3 into ``build_dir`` (the
    executable is named after the source's stem), once per change of its
    text or of a shared header's.

    Keyed on the sources' contents (a stamp beside the executable), not
    their times: two checkouts share the build directory (a CI clone and a
    working tree), and an older checkout's build is newer than an edit made
    before it."""
    import hashlib

    exe = build_dir / source.stem
    stamp = build_dir / f"{source.stem}.sources"
    # the program and the headers validation/ shares between them (ns3_*.h)
    deps = [source, *sorted(Path(__file__).resolve().parent.glob("ns3_*.h"))]
    digest = hashlib.sha256(b"".join(d.name.encode() + b"\0" + d.read_bytes() for d in deps)).hexdigest()
    if exe.exists() and stamp.exists() and stamp.read_text(encoding="utf-8").strip() == digest:
        return exe
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        sys.exit("no C++ compiler (g++) found")
    build_dir.mkdir(parents=True, exist_ok=True)
    # Linked beside it and renamed into place: another process (a second
    # harness, a parallel test worker) that finds the executable must find a
    # whole one, not the linker's half-written file (exec: "Text file busy").
    tmp = build_dir / f".{source.stem}.{os.getpid()}.tmp"
    # pkg-config's ns3 files name libgsl.so, which Debian's runtime
    # packages do not ship: link the ns-3 libraries by name instead.
    cmd = [cxx, "-O2", "-std=c++17", "-o", str(tmp), str(source)] + [f"-lns3-{m}" for m in NS3_LIBS]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("compiling the ns-3 program failed (is ns-3 installed? apt-get install libns3-dev g++ "
                     "pkg-config):\n" + r.stderr[-3000:])
        os.replace(tmp, exe)
        stamp_tmp = build_dir / f".{source.stem}.sources.{os.getpid()}.tmp"
        stamp_tmp.write_text(digest + "\n", encoding="utf-8")
        os.replace(stamp_tmp, stamp)
    finally:
        tmp.unlink(missing_ok=True)
    return exe


def within_factor(pairs: List[Tuple[str, float, float]], factor: float) -> Tuple[bool, str]:
    """Each (what, dcnsim's ms, ns-3's ms) within ``factor`` either way: (all
    inside, the verdict's line). A missing or infinite value is outside."""
    parts, ok = [], True
    for what, x, y in pairs:
        r = x / y if y > 0 and math.isfinite(x) and math.isfinite(y) else math.nan
        ok &= math.isfinite(r) and 1 / factor <= r <= factor
        parts.append(f"{what} {x:.2f} / {y:.2f} ms = {r:.2f}x")
    return ok, ("within" if ok else "DIFFERS") + f" (bound {factor:g}x either way): " + ", ".join(parts)


def run_cached(args: List[str], cache_file: Optional[Path]) -> str:
    """``run_program(args)``'s output, kept in ``cache_file`` (``None``: no
    cache) and read back while the file is newer than the program
    (``args[0]``); written whole or not at all, so an interrupted sweep
    resumes from the runs it finished."""
    exe = Path(args[0])
    if cache_file and cache_file.exists() and cache_file.stat().st_mtime >= exe.stat().st_mtime:
        return cache_file.read_text()
    out = run_program(args)
    if cache_file:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(".tmp")
        tmp.write_text(out)
        tmp.replace(cache_file)
    return out


def run_program(args: List[str], hint: str = "") -> str:
    """An ns-3 program's standard output; when it fails, SystemExit with its
    command line and first lines of complaint (ns-3's CommandLine names a
    flag it does not know) instead of a CalledProcessError's traceback.
    ``hint`` names the option the user passes flags through."""
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        said = "\n".join((r.stderr.strip() or r.stdout.strip()).splitlines()[:3])
        raise SystemExit(f"the ns-3 program failed (exit status {r.returncode}): {' '.join(args)}\n{said}"
                         + (f"\n(check {hint})" if hint else ""))
    return r.stdout


def dcnsim_problems(doc: dict) -> str:
    """What dcnsim refuses in a harness's document (empty when it runs), one
    line: a harness's ``p.error`` names the option that put it there
    (``--tcp KEY=VALUE``), where ``dcnsim.run`` would raise mid-table."""
    import dcnsim

    return "; ".join(str(p) for p in dcnsim.validate(doc))


def parse_ranges(text: str, option: str, what: str, least: int) -> List[int]:
    """``"1-10"`` or ``"1,3,5"`` (or a mix) to a list of integers >= ``least``;
    ValueError names ``option`` and the bad part (``what``: the integers' name)."""
    out: List[int] = []
    for part in text.split(","):
        a, sep, b = part.strip().partition("-")
        try:
            lo, hi = int(a), int(b) if sep else int(a)
        except ValueError:
            raise ValueError(f"{option}: expected N, N-M or a comma-separated list of them, got {text!r}") from None
        if lo < least or hi < lo:
            raise ValueError(f"{option}: {part!r} is not a range of {what} >= {least}")
        out.extend(range(lo, hi + 1))
    return out


def parse_value(s: str) -> Any:
    """A ``--tcp KEY=VALUE`` value: bool, int, float, or the string as given
    (times and sizes such as ``200ms`` stay strings for dcnsim to parse)."""
    low = s.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def parse_overrides(pairs: List[str]) -> dict:
    """``["KEY=VALUE", ...]`` to a dict; ValueError names a malformed pair."""
    over = {}
    for kv in pairs:
        key, sep, val = kv.partition("=")
        if not sep:
            raise ValueError(f"expected KEY=VALUE, got {kv!r}")
        over[key] = parse_value(val)
    return over


def pcap_records(data: bytes) -> Iterator[Tuple[float, bytes]]:
    """(time, IP packet) of a pcap: dcnsim's LINKTYPE_RAW with nanosecond
    stamps, ns-3's point-to-point (PPP, 2 bytes of framing) in µs, or
    tcpdump's Ethernet (14 bytes; the Linux lab's veths)."""
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    nano = struct.unpack(end + "I", data[:4])[0] == 0xA1B23C4D
    link = struct.unpack(end + "I", data[20:24])[0]
    skip = {9: 2, 1: 14}.get(link, 0)
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        pkt = data[off + 16 + skip: off + 16 + incl]
        off += 16 + incl
        yield sec + frac * (1e-9 if nano else 1e-6), pkt


def tcp_fields(ip: bytes) -> Optional[Tuple[str, str, int, int, int, int, int, int]]:
    """src, dst, sport, dport, seq, ack, flags, payload length of an IPv4/TCP packet."""
    if len(ip) < 20 or ip[9] != 6:
        return None
    ihl = (ip[0] & 15) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    t = ip[ihl:]
    if len(t) < 20:
        return None
    sport, dport, seq, ack = struct.unpack(">HHII", t[:12])
    doff = (t[12] >> 4) * 4
    return ip[12:16].hex(), ip[16:20].hex(), sport, dport, seq, ack, t[13], total - ihl - doff


def tcp_options(ip: bytes) -> Tuple[Optional[int], List[Tuple[int, int]]]:
    """The TCP timestamp value (TSval; None without the option) and the SACK
    blocks of an IPv4/TCP packet."""
    ihl = (ip[0] & 15) * 4
    t = ip[ihl:]
    opts = t[20:(t[12] >> 4) * 4]
    tsval, sack = None, []
    k = 0
    while k < len(opts):
        kind = opts[k]
        if kind == 0:
            break
        if kind == 1:
            k += 1
            continue
        if k + 1 >= len(opts) or opts[k + 1] < 2:
            break
        length = opts[k + 1]
        if kind == 8 and length >= 10:
            tsval = struct.unpack(">I", opts[k + 2:k + 6])[0]
        elif kind == 5:
            sack = [struct.unpack(">II", opts[k + 2 + 8 * i:k + 10 + 8 * i]) for i in range((length - 2) // 8)]
        k += length
    return tsval, sack
