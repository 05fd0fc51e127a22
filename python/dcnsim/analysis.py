"""Flow-completion-time analysis of workload runs (Poisson arrivals).

>>> import dcnsim
>>> from dcnsim.analysis import fct_bins, normalize, common_completed
>>> base = dcnsim.run("scenarios/websearch_fattree.toml").flows           # doctest: +SKIP
>>> other = dcnsim.run(dcnsim.with_overrides(dcnsim.load_scenario(        # doctest: +SKIP
...     "scenarios/websearch_fattree.toml"), {"tcp.cc": "dctcp"})).flows
>>> a, b = common_completed(other, base)                                  # doctest: +SKIP
>>> normalize(fct_bins(a), fct_bins(b))                                   # doctest: +SKIP

Size bins are half-open ``[lo, hi)`` in bytes. :data:`FCT_BINS` are SPEC §4's
(and the TCPRand paper's Fig. 11): short < 100 KB ≤ mid < 10 MB ≤ long,
with KB and MB decimal (10⁵ and 10⁷ bytes) as in the workload tables.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from . import _core
from ._tables import need_columns
from .errors import ScenarioError

__all__ = [
    "FCT_BINS",
    "FlowSizeCdf",
    "flow_size_cdf",
    "fct_bins",
    "normalize",
    "common_completed",
    "offered_load",
]

#: (name, lo, hi) in bytes, half-open [lo, hi).
FCT_BINS: Tuple[Tuple[str, float, float], ...] = (
    ("short", 0, 100_000),
    ("mid", 100_000, 10_000_000),
    ("long", 10_000_000, math.inf),
)

Bins = Sequence[Tuple[str, float, float]]

# What identifies one arrival of a workload across runs of the same
# scenario and seed: the arrival process does not depend on the transport.
_ARRIVAL_KEY = ["app", "start_s", "src", "dst", "app_bytes"]


@dataclass(frozen=True)
class FlowSizeCdf:
    """A validated flow-size CDF, as the core reads it (see docs/scenario.md)."""

    name: str
    sampling: str
    #: (size in bytes, P(size <= it)), shape (n, 2)
    points: np.ndarray
    #: mean flow size in bytes
    mean_bytes: float

    def prob_le(self, x) -> np.ndarray:
        """``P(size <= x)``; at integer ``x >= 1`` also the probability that a
        drawn (rounded-up) size is ``<= x``."""
        x = np.asarray(x, dtype=float)
        sizes, probs = self.points[:, 0], self.points[:, 1]
        n = np.searchsorted(sizes, x, side="right")
        i = np.clip(n - 1, 0, len(sizes) - 1)
        out = probs[i].astype(float)
        if self.sampling == "linear" and len(sizes) > 1:
            j = np.clip(i + 1, 0, len(sizes) - 1)
            inner = (n > 0) & (j > i)
            span = np.where(inner, sizes[j] - sizes[i], 1.0)
            out = np.where(inner, probs[i] + (x - sizes[i]) / span * (probs[j] - probs[i]), out)
        return np.where(n == 0, 0.0, out)


def flow_size_cdf(
    cdf: Union[str, Sequence[Sequence[float]], None] = None,
    *,
    file: Optional[str] = None,
    sampling: Optional[str] = None,
) -> FlowSizeCdf:
    """A built-in workload (``"websearch"``, ``"datamining"``), inline points
    ``[[size, p], ...]`` or a ``file``, validated by the core exactly as a
    Poisson app's ``cdf`` / ``cdf_file`` / ``sampling`` keys are.

    Raises :class:`ScenarioError` naming each problem."""
    from ._document import json_text

    table: dict = {}
    if cdf is not None:
        # points as lists (a numpy array's rows too, its numbers as Python's);
        # anything else as given, for the core to name what is wrong with it
        table["cdf"] = cdf if isinstance(cdf, str) else [
            p.tolist() if hasattr(p, "tolist") else list(p) if isinstance(p, (list, tuple)) else p for p in cdf]
    if file is not None:
        table["cdf_file"] = os.fspath(file)
    if sampling is not None:
        table["sampling"] = sampling
    text, errors = json_text(table)
    if errors:
        raise ScenarioError(errors)
    try:
        name, samp, points, mean = _core.flow_size_cdf(text)
    except ValueError as e:
        raise ScenarioError(getattr(e, "problems", None) or [str(e)]) from None
    return FlowSizeCdf(name, samp, np.asarray(points, dtype=float).reshape(-1, 2), float(mean))


def _tcp(flows: pd.DataFrame) -> pd.DataFrame:
    """The flows of a transport with completion times: every TCP-like
    endpoint (``tcp``, ``ndp``, ``swift``, ``hpcc``, ``dcqcn``, ``timely``), not UDP's
    open-loop sources."""
    if "transport" in flows.columns:
        return flows[flows["transport"] != "udp"]
    return flows


def fct_bins(flows: pd.DataFrame, bins: Bins = FCT_BINS) -> pd.DataFrame:
    """FCT statistics per flow-size bin, one row per bin (index: bin name).

    A flow is binned by the bytes its application wrote (``app_bytes``); one
    that wrote none by the end (its start lies after the run's stop) has no
    size to bin by and is in no bin: counted as "short" it had been an
    incomplete short flow whatever its size.

    Columns: ``lo_bytes``, ``hi_bytes``, ``flows`` (flows in the bin, of any
    transport but UDP),
    ``completed``, ``incomplete`` (still running when the run stopped: they
    are left out of the statistics, so say how many), ``mean_s``, ``p50_s``,
    ``p99_s``, ``max_s`` (the paper's "100th percentile") of ``fct_s`` over
    the completed flows; NaN for a bin without completed flows."""
    # a table without them (a blocks table, say): refused naming them, not as pandas' bare KeyError
    need_columns(flows, "fct_bins", {"flows": ("app_bytes", "completed", "fct_s")}, arg="flows",
                 fix="pass a flows table (Result.flows, or flows.csv of a written run)")
    bins = _checked_bins(bins)
    f = _tcp(flows)
    f = f[(f["app_bytes"] > 0) | f["completed"].astype(bool)]
    rows = []
    for name, lo, hi in bins:
        if not lo < hi:
            raise ValueError(f"bins: '{name}' is empty (lo {lo} >= hi {hi})")
        inb = f[(f["app_bytes"] >= lo) & (f["app_bytes"] < hi)]
        done = inb[inb["completed"].astype(bool)]["fct_s"].to_numpy(dtype=float)
        def q(p: float, done: np.ndarray = done) -> float:
            return float(np.percentile(done, p)) if len(done) else math.nan

        rows.append(
            {
                "bin": name,
                "lo_bytes": lo,
                "hi_bytes": hi,
                "flows": int(len(inb)),
                "completed": int(len(done)),
                "incomplete": int(len(inb) - len(done)),
                "mean_s": float(done.mean()) if len(done) else math.nan,
                "p50_s": q(50),
                "p99_s": q(99),
                "max_s": float(done.max()) if len(done) else math.nan,
            }
        )
    return pd.DataFrame(rows).set_index("bin")


def _checked_bins(bins: Bins) -> Bins:
    """``bins`` as ``(name, lo, hi)`` triples of numbers, or a ValueError naming the bin."""
    if isinstance(bins, (str, bytes)) or not isinstance(bins, Sequence):
        raise ValueError(f"bins: expected a list of (name, lo_bytes, hi_bytes) triples like FCT_BINS, got {bins!r}")
    for i, b in enumerate(bins):
        ok = isinstance(b, (tuple, list)) and len(b) == 3 and all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in b[1:])
        if not ok:
            raise ValueError(f"bins[{i}]: expected (name, lo_bytes, hi_bytes), got {b!r}")
    return bins


def normalize(
    stats: pd.DataFrame,
    baseline: pd.DataFrame,
    columns: Sequence[str] = ("mean_s", "p50_s", "p99_s", "max_s"),
) -> pd.DataFrame:
    """``stats / baseline`` per bin for the FCT columns (both from
    :func:`fct_bins` with the same bins), plus each side's completed count
    (``completed``, ``baseline_completed``). A ratio is NaN where either side
    has no completed flow."""
    for arg, t in (("stats", stats), ("baseline", baseline)):
        need_columns(t, "normalize", {arg: (*columns, "completed")}, arg=arg,
                     fix="pass two fct_bins() tables (of a run and of its baseline)")
    if list(stats.index) != list(baseline.index):
        raise ValueError(
            f"normalize: bins differ ({list(stats.index)} vs {list(baseline.index)})"
        )
    out = pd.DataFrame(index=stats.index)
    for c in columns:
        out[c] = stats[c] / baseline[c]
    out["completed"] = stats["completed"]
    out["baseline_completed"] = baseline["completed"]
    return out


def common_completed(a: pd.DataFrame, b: pd.DataFrame) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """The flows of two runs of the same workload (same scenario and seed,
    different transport) restricted to the arrivals completed in both.

    An arrival is identified by (app, start time, source, destination,
    size); the arrival process draws from its own random stream, so the
    same arrivals happen whatever the transport. Comparing only flows that
    finished in both runs keeps a slow scheme's unfinished long flows from
    flattering its averages."""
    # tables without them refused by name, not as pandas' bare KeyError
    for arg, t in (("a", a), ("b", b)):
        need_columns(t, "common_completed", {arg: (*_ARRIVAL_KEY, "completed")}, arg=arg,
                     fix="pass the flows tables of two runs (Result.flows, or flows.csv of a written run)")
    ka = _tcp(a)
    kb = _tcp(b)
    ka = ka[ka["completed"].astype(bool)]
    kb = kb[kb["completed"].astype(bool)]
    keys = ka[_ARRIVAL_KEY].merge(kb[_ARRIVAL_KEY], on=_ARRIVAL_KEY)
    def pick(d: pd.DataFrame) -> pd.DataFrame:
        return d.merge(keys, on=_ARRIVAL_KEY).sort_values(_ARRIVAL_KEY).reset_index(drop=True)

    return pick(ka), pick(kb)


def offered_load(flows: pd.DataFrame, capacity_bps: float, start_s: float, end_s: float) -> float:
    """Offered load of the flows arriving in ``[start_s, end_s)``: their bytes
    over ``(end_s - start_s) × capacity_bps`` -- the quantity the Poisson
    app's ``load`` sets (capacity = Σ access-link rate of its sources)."""
    capacity_bps = _number("capacity_bps", capacity_bps, "parse_rate", "'10Gbps'")
    start_s = _number("start_s", start_s, "parse_time", "'100ms'")
    end_s = _number("end_s", end_s, "parse_time", "'100ms'")
    if not end_s > start_s:
        raise ValueError(f"offered_load: the window [{start_s}, {end_s}) s is empty")
    if not capacity_bps > 0:
        raise ValueError(f"offered_load: capacity_bps must be > 0, got {capacity_bps}")
    need_columns(flows, "offered_load", {"flows": ("start_s", "app_bytes")}, arg="flows",
                 fix="pass a flows table (Result.flows, or flows.csv of a written run)")
    f = _tcp(flows)
    inwin = f[(f["start_s"] >= start_s) & (f["start_s"] < end_s)]
    return float(inwin["app_bytes"].sum()) * 8.0 / ((end_s - start_s) * capacity_bps)


def _number(name: str, value: object, parser: str, example: str) -> float:
    """``value`` as a float: a number as it is (in the argument's unit,
    bit/s or seconds), a unit string as the scenario files read it
    (``"10Gbps"``, ``"200ms"``); anything else a TypeError naming it."""
    if isinstance(value, str):
        from . import units

        try:
            return float(getattr(units, parser)(value))
        except units.UnitError as e:
            raise ValueError(f"offered_load: {name}: {e}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"offered_load: {name}: expected a number or a value with a unit like {example}, "
                        f"got {value!r}")
    return float(value)


# two-sided 95 % Student t quantiles, df = 1..30 (beyond: t95's expansion)
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def servers_timeouts(table: pd.DataFrame, col: str = "timeouts") -> pd.Series:
    """Per row of a ``blocks`` or ``queries`` table, the timeout count
    ``col`` (``timeouts``, ``abtt``, ``rto_first_flight``) of the servers'
    (workers') flows alone. The tables sum the client's request flows too,
    whose timer fires when a server's ACK of the request is lost at the
    client's port although the server has the request: a timeout that
    stalls nothing, and not one the papers count. A request flow sends one
    segment per round, so each of its timeouts is also an ABTT and a
    first-flight timeout, and ``request_timeouts`` is subtracted from each."""
    x = table[col].astype(float)
    if "request_timeouts" in table:
        x = x - table["request_timeouts"].astype(float)
    return x


def strict_max(values: Iterable[float]) -> float:
    """The largest of ``values``; NaN when any is NaN or there are none. A
    claim that every value stays below a bound is not met by the values
    that could be measured alone, and Python's ``max`` skips a NaN or
    returns it depending on where it sits (``max([0, nan, 0])`` is 0)."""
    v = [float(x) for x in values]
    return math.nan if not v or any(x != x for x in v) else max(v)


def strict_min(values: Iterable[float]) -> float:
    """The smallest of ``values``; NaN when any is NaN or there are none
    (:func:`strict_max`'s reasons)."""
    v = [float(x) for x in values]
    return math.nan if not v or any(x != x for x in v) else min(v)


def ci95(values: Sequence[float]) -> Tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (Student t)
    over the values that exist: NaN and None are left out (n counts the
    rest), so a caller that reports a number of runs must count them the
    same way. NaN for a single value (one run gives no interval, which is
    not an interval of 0), 0 for identical values."""
    v = np.asarray([x for x in values if x is not None and x == x], dtype=float)
    if len(v) == 0:
        return math.nan, math.nan
    m = float(v.mean())
    if len(v) < 2:
        return m, math.nan
    return m, float(t95(len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v)))


def t95(df: int) -> float:
    """The two-sided 95 % Student t quantile at ``df`` degrees of freedom:
    the table to 30, then the Cornish-Fisher expansion about the normal's
    1.96 (to 4 decimals of the exact value at 31: 2.0395; the normal's 1.96
    made a hundred queries' interval 1.2 % narrow)."""
    if df < 1:
        raise ValueError(f"t95: degrees of freedom must be >= 1, got {df}")
    if df <= len(_T95):
        return _T95[df - 1]
    z, n = 1.959963984540054, float(df)
    return (z + (z**3 + z) / (4 * n) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * n**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * n**3))
