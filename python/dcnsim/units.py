"""Unit strings for command-line numbers, spelled as in scenario files
(docs/scenario.md, "Units"): rates ``1Gbps``, times ``100us``, sizes
``100KB``, packet counts ``20pkt``.

Scenario files read ``KB`` as 1024 B (as the incast papers' SRU sizes);
papers' buffer sizes are sometimes meant in 1000 B. :func:`parse_size`
therefore returns both readings when the text uses a K/M/G/T prefix."""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

__all__ = ["parse_rate", "parse_time", "parse_size", "parse_count", "Size", "UnitError"]


class UnitError(ValueError):
    """A value that is not a number with a unit of the expected kind."""


_NUM = r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*"

_RATE = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12}
#: seconds = value / divisor (dividing keeps 100us exactly 1e-4)
_TIME = {"ps": 1e12, "ns": 1e9, "us": 1e6, "µs": 1e6, "ms": 1e3, "s": 1.0}
_SIZE_BIN = {"b": 1, "kb": 1024, "mb": 1024 ** 2, "gb": 1024 ** 3, "tb": 1024 ** 4,
             "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3, "tib": 1024 ** 4}
_SIZE_DEC = {"kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3, "tb": 1000 ** 4}


def _split(text: str, kind: str, example: str):
    m = re.fullmatch(_NUM + r"([A-Za-zµ]*)\s*", str(text))
    if not m:
        raise UnitError(f"expected a {kind} like '{example}', got {text!r}")
    value = float(m.group(1))
    if value < 0:
        raise UnitError(f"expected a non-negative {kind}, got {text!r}")
    return value, m.group(2).lower()


def parse_rate(text: str) -> float:
    """``"1Gbps"`` -> 1e9 (bit/s, decimal prefixes)."""
    v, u = _split(text, "rate", "1Gbps")
    if u not in _RATE:
        raise UnitError(f"expected a rate like '1Gbps', got {text!r}")
    if v <= 0:
        raise UnitError(f"a rate must be > 0, got {text!r}")
    return v * _RATE[u]


def parse_time(text: str) -> float:
    """``"100us"`` -> 1e-4 (seconds). A bare number is an error (say the unit)."""
    v, u = _split(text, "time", "100us")
    if u not in _TIME:
        raise UnitError(f"expected a time like '100us', got {text!r}")
    return v / _TIME[u]


class Size(NamedTuple):
    """A size in bytes under both readings of K/M/G: ``binary`` (1024, as
    dcnsim's scenario files) and ``decimal`` (1000). ``prefixed`` says
    whether the two can differ."""

    binary: float
    decimal: float
    prefixed: bool
    text: str


def parse_size(text: str) -> Size:
    """``"100KB"`` -> Size(102400, 100000, True); ``"1500"`` or ``"1500B"``
    -> Size(1500, 1500, False). ``KiB`` … are binary in both readings."""
    v, u = _split(text, "size", "100KB")
    if u == "":
        u = "b"
    if u not in _SIZE_BIN:
        raise UnitError(f"expected a size like '100KB' or '1500B', got {text!r}")
    dec = _SIZE_DEC.get(u, _SIZE_BIN[u])
    return Size(v * _SIZE_BIN[u], v * dec, u in _SIZE_DEC, str(text))


def parse_count(text: str, unit: Optional[str] = "pkt") -> float:
    """``"20"`` or ``"20pkt"`` -> 20.0."""
    v, u = _split(text, "count", f"20{unit or ''}")
    if u and u not in ("pkt", "pkts", "packets", "segments", "seg"):
        raise UnitError(f"expected a count like '20' or '20pkt', got {text!r}")
    return v
