"""Unit strings for command-line numbers, spelled as in scenario files
(docs/scenario.md, "Units"): rates ``1Gbps``, times ``100us``, sizes
``100KB``, packet counts ``20pkt``.

There is one parser: the scenario loader's, in the Rust core
(``dcnsim._core.parse_*``). These functions convert its exact integers
(picoseconds, bit/s, bytes) to the floats the models use, and raise
:class:`UnitError` with the loader's reason text (the same words a scenario
file's field would get, without the field path).

``b`` is bits and ``B`` bytes (as iperf and ns-3 read them): a rate is in
bits per second and a size in bytes, so ``"1GBps"`` or ``"32Kb"`` raises
:class:`UnitError` giving both readings rather than a value 8× off.

Scenario files read ``KB`` as 1024 B (as the incast papers' SRU sizes);
papers' buffer sizes are sometimes meant in 1000 B. :func:`parse_size`
therefore returns both readings when the text uses a K/M/G/T prefix."""

from __future__ import annotations

import numbers
from typing import Callable, NamedTuple, Optional, TypeVar

from . import _core

__all__ = ["parse_rate", "parse_time", "parse_size", "parse_count", "Size", "UnitError"]

T = TypeVar("T")


class UnitError(ValueError):
    """A value that is not a number with a unit of the expected kind."""


def _core_parse(fn: Callable[[str], T], text: object) -> T:
    # a number is read as its text (a count may be bare); anything else is
    # the caller's slip, not a bad value: parse_size(None) said "got 'None'"
    if isinstance(text, bool) or not isinstance(text, (str, numbers.Real)):
        raise TypeError(f"expected a value with its unit as a string (e.g. '100us', '10KB', '1Gbps'), "
                        f"got {type(text).__name__} {text!r}")
    try:
        return fn(str(text))
    except ValueError as e:
        raise UnitError(str(e)) from None


def parse_rate(text: str) -> float:
    """``"1Gbps"`` (or ``"1Gbit/s"``) -> 1e9 (bit/s, decimal prefixes;
    must be > 0). Bytes per second (``"1GBps"``) is an error."""
    return float(_core_parse(_core.parse_rate, text))


def parse_time(text: str) -> float:
    """``"100us"`` -> 1e-4 (seconds). A bare number is an error (say the
    unit). Exact to the core's picosecond."""
    return _core_parse(_core.parse_time, text) / 1e12


class Size(NamedTuple):
    """A size in bytes under both readings of K/M/G: ``binary`` (1024, as
    dcnsim's scenario files) and ``decimal`` (1000). ``prefixed`` says
    whether the two readings differ."""

    binary: float
    decimal: float
    prefixed: bool
    text: str


def parse_size(text: str) -> Size:
    """``"100KB"`` -> Size(102400.0, 100000.0, True, "100KB"); ``"1500"`` or
    ``"1500B"`` -> Size(1500.0, 1500.0, False, ...): floats, as every
    parser here gives the models, each a whole number of bytes. ``KiB`` … are binary in both readings.
    Bits (``"100Kb"``) are an error.
    Whole bytes: a fraction of a byte is rounded (halves up), as in
    scenario files."""
    binary = _core_parse(_core.parse_size, text)
    decimal = _core_parse(_core.parse_size_si, text)
    return Size(float(binary), float(decimal), binary != decimal, str(text))


def parse_count(text: str, unit: Optional[str] = "pkt") -> float:
    """``"20"``, ``"20pkt"`` or ``"20 segments"`` -> 20.0 (whole counts:
    a fraction is rounded, halves up). ``unit`` only names the unit in
    error messages' examples."""
    del unit  # the core's message names its own example
    return float(_core_parse(_core.parse_count, text))
