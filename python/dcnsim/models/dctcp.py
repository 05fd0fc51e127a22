"""DCTCP scalability model of FaST (Hwang & Yoo, TIIS 2014, §3; SPEC §2.1).

N DCTCP flows with synchronized windows and identical RTT share a
bottleneck of capacity C with ECN marking threshold K (packets) and buffer B
(bytes). Each flow's window is floored at Wmin segments of MSS bytes.

    W*     = (C·RTT/MSS + K) / N          critical window        (eq. 4)
    N*     = (C·RTT/MSS + K) / Wmin       flows that pin W* at Wmin (eq. 5)
    N*max  = (C·RTT + B) / (Wmin·MSS)     DCTCP's flow limit      (eq. 7)

Units: C in bit/s, RTT in seconds, K in packets, MSS and B in bytes. C·RTT is
converted to bytes (divided by 8) before dividing by MSS.

The paper's example (C = 1 Gbps, RTT = 100 µs, K = 20, Wmin = 2,
MSS = 1.5 KB, B = 100 KB) gives N* ≈ 14.2 and N*max = 37.5 exactly when
"KB" is read as 1000 bytes: (12 500 + 100 000) / 3 000 = 37.5. With
KB = 1024 B for both MSS and B it is 114 900 / 3 072 ≈ 37.4, and with
MSS = 1500 B but B = 102 400 B it is ≈ 38.3. Note that dcnsim's scenario
size strings read "100KB" as 102 400 B; pass B_bytes=100_000 to reproduce
the paper's number.

All functions accept numpy arrays and broadcast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

__all__ = [
    "bdp_packets",
    "critical_window",
    "n_star",
    "n_star_max",
    "DctcpScalability",
    "dctcp_scalability",
]


def _numbers(name: str, value) -> np.ndarray:
    """``value`` as floats, or a TypeError naming ``name``: a string with a
    unit ("1Gbps", "200us") is the command line's, not these functions'
    (numbers in SI units: bit/s, s, bytes). A string of digits ("20") and a
    bool are refused too (numpy read them as 20.0 and 1.0), as the incast
    model's functions refuse them."""
    a = None
    if not isinstance(value, (str, bytes, bool, np.bool_)):
        try:
            a = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            a = None
        if a is not None and np.asarray(value).dtype.kind not in "iufc":
            a = None  # strings or bools inside a list or array
    if a is None:
        raise TypeError(f"{name} must be a number in SI units (bit/s, s, bytes) or an array of them, got {value!r}; "
                        "for a string with a unit use dcnsim.units (parse_rate, parse_time, parse_size)")
    return a


def _positive(name: str, value) -> None:
    a = _numbers(name, value)
    if np.any(~np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")


def _non_negative(name: str, value) -> None:
    a = _numbers(name, value)
    if np.any(~np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")


def _out(x, what: str = "the result"):
    """Plain float for scalar inputs, ndarray otherwise; finite inputs whose
    product passes a float's range are an error, not inf."""
    a = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what} passes a float's range (inputs too large)")
    return float(a) if a.ndim == 0 else a


def bdp_packets(C_bps, rtt_s, mss_bytes):
    """Bandwidth-delay product C·RTT/MSS, in packets of MSS bytes."""
    _positive("C_bps", C_bps)
    _positive("rtt_s", rtt_s)
    _positive("mss_bytes", mss_bytes)
    with np.errstate(over="ignore"):
        bdp = np.asarray(C_bps, float) * np.asarray(rtt_s, float) / 8.0 / np.asarray(mss_bytes, float)
    return _out(bdp, "C_bps·rtt_s/mss_bytes")


def critical_window(C_bps, rtt_s, K_pkts, mss_bytes, N):
    """W* (eq. 4): per-flow window (packets) at which the queue reaches K."""
    _non_negative("K_pkts", K_pkts)
    _positive("N", N)
    with np.errstate(over="ignore"):
        w = (bdp_packets(C_bps, rtt_s, mss_bytes) + np.asarray(K_pkts, float)) / np.asarray(N, float)
    return _out(w, "W*")


def n_star(C_bps, rtt_s, K_pkts, mss_bytes, wmin=2):
    """N* (eq. 5): number of flows at which W* falls to Wmin."""
    _non_negative("K_pkts", K_pkts)
    _positive("wmin", wmin)
    with np.errstate(over="ignore"):
        ns = (bdp_packets(C_bps, rtt_s, mss_bytes) + np.asarray(K_pkts, float)) / np.asarray(wmin, float)
    return _out(ns, "N*")


def n_star_max(C_bps, rtt_s, B_bytes, mss_bytes, wmin=2):
    """N*max (eq. 7): most flows whose Wmin windows fit in C·RTT + B bytes."""
    _positive("C_bps", C_bps)
    _positive("rtt_s", rtt_s)
    _non_negative("B_bytes", B_bytes)
    _positive("mss_bytes", mss_bytes)
    _positive("wmin", wmin)
    with np.errstate(over="ignore"):
        c_rtt_bytes = np.asarray(C_bps, float) * np.asarray(rtt_s, float) / 8.0
        nmax = (c_rtt_bytes + np.asarray(B_bytes, float)) / (np.asarray(wmin, float) * np.asarray(mss_bytes, float))
    return _out(nmax, "N*max")


@dataclass(frozen=True)
class DctcpScalability:
    """Result of :func:`dctcp_scalability` (scalar inputs)."""

    C_bps: float
    rtt_s: float
    K_pkts: float
    mss_bytes: float
    B_bytes: float
    wmin: float
    #: C·RTT/MSS + K, packets: W* = window_budget_pkts / N.
    window_budget_pkts: float
    n_star: float
    n_star_max: float
    #: Number of flows W* was evaluated at (None if not given).
    N: Optional[float] = None
    #: W* at ``N`` flows, packets (None if N not given).
    w_star: Optional[float] = None

    def critical_window(self, N: float) -> float:
        """W* (eq. 4) at N flows."""
        _positive("N", N)
        return self.window_budget_pkts / float(N)

    def __str__(self) -> str:
        lines = [
            "DCTCP scalability (FaST §3): "
            f"C = {self.C_bps / 1e9:g} Gbps, RTT = {self.rtt_s * 1e6:g} us, "
            f"K = {self.K_pkts:g} pkts, MSS = {self.mss_bytes:g} B, "
            f"B = {self.B_bytes:g} B, Wmin = {self.wmin:g}",
        ]
        if self.w_star is not None:
            lines.append(
                f"  W*(N={self.N:g})  = {self.w_star:.3f} pkts"
                f"   [(C*RTT/MSS + K)/N = {self.window_budget_pkts:.3f}/N]"
            )
        else:
            lines.append(f"  W*(N)   = {self.window_budget_pkts:.3f}/N pkts")
        lines.append(f"  N*      = {self.n_star:.2f} flows  (W* reaches Wmin)")
        lines.append(f"  N*max   = {self.n_star_max:.2f} flows  (Wmin windows overflow C*RTT + B)")
        return "\n".join(lines)


def dctcp_scalability(
    C_bps: float,
    rtt_s: float,
    K_pkts: float,
    mss_bytes: float,
    B_bytes: float,
    wmin: float = 2,
    N: Optional[float] = None,
) -> DctcpScalability:
    """W* (at ``N`` flows, if given), N* and N*max for scalar inputs.

    >>> print(dctcp_scalability(1e9, 100e-6, 20, 1500, 100_000, wmin=2, N=40))
    DCTCP scalability (FaST §3): C = 1 Gbps, RTT = 100 us, K = 20 pkts, MSS = 1500 B, B = 100000 B, Wmin = 2
      W*(N=40)  = 0.708 pkts   [(C*RTT/MSS + K)/N = 28.333/N]
      N*      = 14.17 flows  (W* reaches Wmin)
      N*max   = 37.50 flows  (Wmin windows overflow C*RTT + B)
    """
    for name, v in (("C_bps", C_bps), ("rtt_s", rtt_s), ("K_pkts", K_pkts),
                    ("mss_bytes", mss_bytes), ("B_bytes", B_bytes), ("wmin", wmin)):
        if np.ndim(v) != 0:
            raise ValueError(f"{name} must be a scalar for dctcp_scalability; use the array functions")
    # every argument checked, by name, before any arithmetic
    ns = n_star(C_bps, rtt_s, K_pkts, mss_bytes, wmin)
    nmax = n_star_max(C_bps, rtt_s, B_bytes, mss_bytes, wmin)
    budget = bdp_packets(C_bps, rtt_s, mss_bytes) + float(K_pkts)
    w = None if N is None else critical_window(C_bps, rtt_s, K_pkts, mss_bytes, N)
    return DctcpScalability(
        C_bps=float(C_bps),
        rtt_s=float(rtt_s),
        K_pkts=float(K_pkts),
        mss_bytes=float(mss_bytes),
        B_bytes=float(B_bytes),
        wmin=float(wmin),
        window_budget_pkts=float(budget),
        n_star=float(ns),
        n_star_max=float(nmax),
        N=None if N is None else float(N),
        w_star=w,
    )
