"""The machine a speed figure was taken on, as a figure should name it.

A packet-hop rate, a speed-up or a ratio to another simulator holds for the
machine it was measured on: the same build ran the k = 16 permutation at
0.65-0.93 of k = 8's rate from one machine to another (the L2 a core has,
the L3 a run gets), and its ratio to ns-3 moved by half between two AMD
generations (docs/performance.md). A
VM may name its CPU only "AMD EPYC", so the family and model numbers are
kept beside the name (family 25 model 1 is Zen 3, model 17 Zen 4; family
26 is Zen 5).

Read from /proc and /sys (Linux) without starting a program: `dcnsim
bench` and the benchmark scripts print :func:`line` above their figures.
Elsewhere, what cannot be read is left out of the line (and None in
:func:`describe`), never guessed.

    >>> from dcnsim import machine
    >>> machine.line()                                   # doctest: +SKIP
    'AMD EPYC (family 25, model 1), 2 logical CPUs, L2 512 KiB a core, L3 32 MiB shared by 2, 23.5 GiB, load 0.4'
"""

from __future__ import annotations

import os
import platform
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Optional

CPUINFO = "/proc/cpuinfo"
MEMINFO = "/proc/meminfo"
CACHES = "/sys/devices/system/cpu/cpu{}/cache"


def _read(path: str) -> "Optional[str]":
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _cpu(cpuinfo: "Optional[str]") -> str:
    """The first processor's model name, with its family and model when
    /proc/cpuinfo gives them; else what the platform module says."""
    fields: "Dict[str, str]" = {}
    for row in (cpuinfo or "").splitlines():
        if not row.strip():
            if fields:
                break  # the first processor is enough
            continue
        key, _, value = row.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name") or platform.processor() or platform.machine() or "unknown CPU"
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return name


def _size_kib(text: str) -> "Optional[int]":
    """A sysfs cache size ("512K", "32768K", "1M") in KiB."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)\s*", text)
    if m is None:
        return None
    return int(m.group(1)) * {"": 1, "K": 1, "M": 1024, "G": 1024 * 1024}[m.group(2)] // (1 if m.group(2) else 1024)


def _shared_by(cpu_list: str) -> "Optional[int]":
    """How many CPUs a sysfs ``shared_cpu_list`` ("0-1", "0,4", "3") names."""
    n = 0
    for part in cpu_list.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return None
        n += int(hi) - int(lo) + 1 if hi else 1
    return n or None


def _first_cpu() -> int:
    """The lowest CPU this process may run on (CPU 0 may be offline, or
    outside a container's set)."""
    try:
        return min(os.sched_getaffinity(0))
    except (AttributeError, OSError, ValueError):
        return 0


def _caches(root: str) -> "Dict[int, Dict[str, int]]":
    """Unified and data caches of one CPU by level (``root``, with ``{}``
    for the lowest CPU this process may run on): size (KiB) and the CPUs
    sharing one."""
    root = root.format(_first_cpu())
    out: "Dict[int, Dict[str, int]]" = {}
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return out
    for name in names:
        if not name.startswith("index"):
            continue
        base = os.path.join(root, name)
        level, kind, size = (_read(os.path.join(base, f)) for f in ("level", "type", "size"))
        if level is None or kind is None or size is None or kind.strip() == "Instruction":
            continue
        kib = _size_kib(size)
        if not level.strip().isdigit() or kib is None:
            continue
        entry = {"kib": kib}
        shared = _shared_by(_read(os.path.join(base, "shared_cpu_list")) or "")
        if shared is not None:
            entry["shared_by"] = shared
        out[int(level)] = entry
    return out


def _memory_gib(meminfo: "Optional[str]") -> "Optional[float]":
    m = re.search(r"MemTotal:\s+(\d+)\s*kB", meminfo or "")
    return round(int(m.group(1)) / 2**20, 1) if m else None


def describe(cpuinfo: str = CPUINFO, caches: str = CACHES, meminfo: str = MEMINFO) -> "Dict[str, Any]":
    """The machine now: ``cpu`` (name, family and model), ``logical_cpus``
    (those this process may run on), ``l2_kib`` and ``l3_kib`` (one
    cache's size, as the lowest of those CPUs sees it), ``l2_shared_by`` and ``l3_shared_by``
    (the CPUs sharing that cache), ``memory_gib`` and the one-minute
    ``load_average``; None where this system does not say. The paths are
    parameters for tests."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    c = _caches(caches)
    try:
        load: "Optional[float]" = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        load = None
    return {
        "cpu": _cpu(_read(cpuinfo)),
        "logical_cpus": cpus,
        "l2_kib": c.get(2, {}).get("kib"),
        "l2_shared_by": c.get(2, {}).get("shared_by"),
        "l3_kib": c.get(3, {}).get("kib"),
        "l3_shared_by": c.get(3, {}).get("shared_by"),
        "memory_gib": _memory_gib(_read(meminfo)),
        "load_average": load,
    }


def _size(kib: int) -> str:
    return f"{kib // 1024} MiB" if kib % 1024 == 0 else f"{kib} KiB"


def line(d: "Optional[Dict[str, Any]]" = None) -> str:
    """:func:`describe` (or ``d``) as one line: what a figure names its machine by."""
    d = describe() if d is None else d
    parts = [d["cpu"], f"{d['logical_cpus']} logical CPU{'s' if d['logical_cpus'] != 1 else ''}"]
    if d.get("l2_kib"):
        shared = d.get("l2_shared_by")
        parts.append(f"L2 {_size(d['l2_kib'])} " + ("a core" if shared in (None, 1) else f"shared by {shared}"))
    if d.get("l3_kib"):
        shared = d.get("l3_shared_by")
        parts.append(f"L3 {_size(d['l3_kib'])}" + (f" shared by {shared}" if shared not in (None, 1) else ""))
    if d.get("memory_gib") is not None:
        parts.append(f"{d['memory_gib']} GiB")
    if d.get("load_average") is not None:
        parts.append(f"load {d['load_average']}")
    return ", ".join(parts)


def l3_label(d: "Optional[Dict[str, Any]]" = None) -> str:
    """The L3 as benchmarks/results.json's stamps name it ("32 MiB"), or "unknown"."""
    d = describe() if d is None else d
    return _size(d["l3_kib"]) if d.get("l3_kib") else "unknown"


def preamble(whole_process: bool = False) -> str:
    """The lines a benchmark prints above its figures: ``machine:``
    (:func:`line`) and, for one that times whole processes
    (``whole_process``), ``note:`` (:func:`compile_note`) when there is one."""
    note = compile_note() if whole_process else None
    return f"machine: {line()}" + (f"\nnote: {note}" if note else "")


def compile_note() -> "Optional[str]":
    """A sentence when each new process of this interpreter compiles some
    of dcnsim's Python modules again, else None: Python is told not to
    write bytecode (``PYTHONDONTWRITEBYTECODE``, ``-B``) and a module of
    the package has none cached, as in an editable install (``pip install
    -e .``) on such a machine. ``pip install .`` compiles the modules once,
    when it installs them, so a user's process does not pay this; a
    whole-process figure measured here does (about 0.1 s of CPU a process
    on a 2-core AMD EPYC VM: docs/performance.md)."""
    import importlib.util
    import sys

    spec = importlib.util.find_spec("dcnsim")
    if not sys.dont_write_bytecode or spec is None or not spec.origin:
        return None
    package = os.path.dirname(spec.origin)
    # every module of the package, not its __init__ alone: one run with
    # bytecode allowed caches only what that run imported
    sources = [os.path.join(root, f) for root, _, files in os.walk(package) for f in files if f.endswith(".py")]
    try:
        missing = sum(not os.path.exists(importlib.util.cache_from_source(f)) for f in sources)
    except (NotImplementedError, ValueError):
        return None
    if not missing:
        return None
    return (f"{missing} of dcnsim's {len(sources)} Python modules have no bytecode cached and Python writes none "
            f"here (PYTHONDONTWRITEBYTECODE or -B; {package}): every process that imports them compiles them "
            "again, and whole-process figures include that, which `pip install .` (it compiles them once, "
            "at install) does not")
