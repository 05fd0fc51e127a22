"""TCPRand's offline enqueue-probability experiment (Lee et al. 2017, §3.2,
Fig. 5; SPEC §5).

Two back-to-back packet streams arrive on input ports X and Y of a switch
and compete for one output port Z whose drop-tail queue is full. At t = 0 a
departure from Z frees one slot and Y1 takes it; X1 arrives an instant
later (``lag``) and is dropped. What happens to the next two packets, X2 and
Y2? Every payload (X2, Y2 and the packets queued at Z) is drawn uniformly
from the integers [rMin, MSS]; all links run at ``rate``.

Store-and-forward timing:

* a packet's arrival is its last bit: X2 arrives at
  ``lag + ifg + tx(X2)`` and Y2 at ``ifg + tx(Y2)`` (back to back after X1 / Y1);
* Z sends back to back too: slots free up at ``D1``, ``D2 = D1 + ifg +
  tx(H2)``, …. Where in Z's cycle Y1 arrives the paper does not say. By
  default (``phase="uniform"``) Y1 arrives at a uniformly random point of
  H1's frame time plus gap, so ``D1 = U·(tx(H1) + ifg)``: the slot Y1 took
  was freed just before, at any moment of the previous service. With
  ``phase="aligned"`` H1 starts exactly at t = 0 (``D1 = tx(H1)``). The
  uniform reading gives the paper's numbers at rMin = 1 B (P(X2) ≈ 0.63,
  neither ≈ 0.1); the aligned one far fewer enqueues (≈ 0.41 each, neither
  ≈ 0.33). docs/tcprand.md compares both;
* an arrival finds a free slot if more slots have been freed (departures at
  or before its arrival) than earlier arrivals have taken.

With fixed-size packets (rMin = MSS) Y2 always arrives first after D1, and
X2 never gets in: port blackout. ``tx(p) = 8·(payload + header + l2)/rate``.
Pure numpy, vectorized over trials; seeded, so deterministic.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List

import numpy as np

__all__ = ["EnqueueProbability", "PHASES", "enqueue_probability", "enqueue_sweep"]

#: Where Y1's arrival falls in Z's service of its head packet (see above).
PHASES = ("uniform", "aligned")

#: Trials drawn and compared at once: the arrays of one batch take about
#: 120 B a trial, so memory stays near 30 MB however many trials are asked
#: for (10^11 trials asked for 745 GiB at once and died with a MemoryError).
#: Up to this many trials the draws are those of one batch.
BATCH = 1 << 18


def _whole(name: str, v: Any, low: int) -> int:
    """``v`` as an int ≥ ``low``, or an error naming ``name``: a fraction,
    a string or a bool is refused, not truncated (``enqueue_sweep([1.5])``
    ran rMin = 1); a float with a whole value (``np.linspace``'s) is a count."""
    if isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number (bytes or a count), got {v!r}")
    if v < low:
        raise ValueError(f"{name} must be ≥ {low}, got {v}")
    return int(v)


@dataclass(frozen=True)
class EnqueueProbability:
    """The four outcomes for X2 and Y2 over ``trials`` trials at one rMin."""

    rmin: int
    trials: int
    p_x2: float
    p_y2: float
    p_both: float
    p_neither: float

    def as_dict(self) -> Dict[str, float]:
        return asdict(self)


def enqueue_probability(
    rmin: int,
    trials: int = 1000,
    *,
    mss: int = 1448,
    header: int = 52,
    l2: int = 26,
    ifg_s: float = 96e-9,
    rate_bps: float = 1e9,
    lag_s: float = 1e-12,
    queued: int = 4,
    phase: str = "uniform",
    seed: int = 1,
) -> EnqueueProbability:
    """Estimate P(X2 enqueued), P(Y2 enqueued), both and neither.

    ``header`` is the TCP/IP header with timestamps (52 B), ``l2`` the
    Ethernet header, FCS and preamble (26 B); ``ifg_s`` the inter-frame gap
    (96 ns at 1 Gbps); ``queued`` how many queued packets' departures are
    simulated (only the first one or two can matter: more are harmless)."""
    # each argument checked by name: a str or a fraction here ended as a
    # bare comparison TypeError or as "seed must be integer"

    def positive(name: str, v: Any, zero: bool = False) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number, got {v!r}")
        if not (math.isfinite(v) and (v >= 0 if zero else v > 0)):
            raise ValueError(f"{name} must be {'≥ 0' if zero else '> 0'} and finite, got {v!r}")
        return float(v)

    mss = _whole("mss", mss, 1)
    rmin = _whole("rmin", rmin, 1)
    trials = _whole("trials", trials, 1)
    header, l2, seed = _whole("header", header, 0), _whole("l2", l2, 0), _whole("seed", seed, 0)
    queued = _whole("queued", queued, 2)
    rate_bps = positive("rate_bps", rate_bps)
    ifg_s, lag_s = positive("ifg_s", ifg_s, zero=True), positive("lag_s", lag_s, zero=True)
    if not 1 <= rmin <= mss:
        raise ValueError(f"rmin must be in [1, mss={mss}], got {rmin}")
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
    counts = np.zeros(4, dtype=np.int64)  # X2 in, Y2 in, both, neither
    for b, start in enumerate(range(0, trials, BATCH)):
        # the first batch's stream is the one all trials drew from before batching
        rng = np.random.default_rng([seed, rmin] if b == 0 else [seed, rmin, b])
        x_in, y_in = _trials(rng, min(BATCH, trials - start), rmin, mss, header, l2, ifg_s, rate_bps,
                             lag_s, queued, phase)
        counts += [x_in.sum(), y_in.sum(), (x_in & y_in).sum(), (~x_in & ~y_in).sum()]
    p = counts / trials
    return EnqueueProbability(rmin=int(rmin), trials=int(trials), p_x2=float(p[0]), p_y2=float(p[1]),
                              p_both=float(p[2]), p_neither=float(p[3]))


def _trials(rng: np.random.Generator, trials: int, rmin: int, mss: int, header: int, l2: int, ifg_s: float,
            rate_bps: float, lag_s: float, queued: int, phase: str):
    """Whether X2 and Y2 got in, one boolean each per trial."""

    def tx(n_shape):
        payload = rng.integers(rmin, mss + 1, size=n_shape)
        return (payload + header + l2) * 8.0 / rate_bps

    tx_x2, tx_y2 = tx(trials), tx(trials)
    gaps = tx((trials, queued)) + ifg_s
    if phase == "uniform":
        gaps[:, 0] *= rng.random(trials)
    else:
        gaps[:, 0] -= ifg_s
    departures = np.cumsum(gaps, axis=1)
    a_x = lag_s + ifg_s + tx_x2
    a_y = ifg_s + tx_y2

    def freed(a):
        return (departures <= a[:, None]).sum(axis=1)

    fx, fy = freed(a_x), freed(a_y)
    x_first = a_x < a_y
    # The first arrival gets in if any slot has been freed; the second if
    # more slots have been freed by its arrival than the first one took.
    x_in = np.where(x_first, fx >= 1, fx >= 1 + (fy >= 1))
    y_in = np.where(x_first, fy >= 1 + (fx >= 1), fy >= 1)
    return x_in, y_in


def enqueue_sweep(rmins: Iterable[int], trials: int = 1000, **kw) -> List[EnqueueProbability]:
    """:func:`enqueue_probability` at each rMin (Fig. 5 sweeps 1…1448 B).
    Each rMin is checked as :func:`enqueue_probability` checks it: a
    fraction is an error, not truncated."""
    return [enqueue_probability(r, trials, **kw) for r in rmins]
