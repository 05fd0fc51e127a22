"""Kulkarni's analytical model of TCP incast (dissertation, Auburn 2012, Ch. 3).

We use the clean transcription of SPEC §2.3.1 (the seed text's equations are
garbled by extraction). n synchronized TCP flows ("composite flows") share one
bottleneck; together they form the "cumulative flow".

Symbols
-------
n       number of senders (composite flows)
p_c     probability that a packet of the cumulative flow is a loss *event*
        of the cumulative flow (one event per round, however many flows lose)
p_r     per-packet loss probability of one composite flow
j       flows hit per cumulative loss event, j = min(n, p_r / p_c)
RTT     mean round-trip time, seconds
T0      duration of a single timeout, seconds (E[Z_TO] ≈ T0)
L       block size (SRU × n) in packets
zeta    ζ, mean number of ABTTs at the start of a block

Equations (numbers are the dissertation's)
------------------------------------------
D      = sqrt(n²p_c²j² − 4n·p_c²·j³ + 4j⁴p_c² + 24n²·p_c·j)
       = sqrt(p_c²j²(n − 2j)² + 24n²·p_c·j)            (same thing, ≥ 0)
E[X]   = (2j²p_c − n·p_c·j + D) / (6n²p_c)               rounds per TDP  (3.19)
         the positive root of 1/p_c = 3n²E[X]²/(2j) + n·E[X]/2 − j·E[X]  (3.18)
E[Y]   = 1/p_c                                          packets per TDP (3.10)
E[Wf]  = 2n·E[X]/j                                      one flow's window (3.12 with 3.7)
B_TD   = E[Y] / (RTT·E[X])                              TD-only          (3.21)
A(w,k) = (1−p_r)^k·p_r / (1 − (1−p_r)^w)                                  (3.32)
C(g,m) = (1−p_r)^m·p_r if m < g;  (1−p_r)^g if m = g                      (3.33)
Qhat(w)= 1 if w ≤ 3, else Σ_{k=0..2} A(w,k) + Σ_{k=3..w} A(w,k)·Σ_{m=0..2} C(k,m)  (3.34)
Q_ibtt = Qhat(E[Wf])                                                      (3.36)
Q_abtt = E[ζ] / E[β],  β = L / E[Y]  (TDPs per block)                     (3.37–3.38)
Q      = min(1, Q_ibtt + Q_abtt)                                          (3.31)
B_full = E[Y] / (RTT·E[X] + Q·T0)                        Full model       (3.39)
Split  : Qhat(w) = 1 if w ≤ 3; A(w,0) if n ≤ n̂; Σ_{k=3..w} A(w,k)·Σ_{m=0..2} C(k,m) else  (3.40)
Padhye : B = 1/(RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²)), compared as n·B(p_r)

Throughputs are packets per second of the cumulative flow (every packet
sent, as in the dissertation's eq. 3.1); :func:`pps_to_bps` converts to bit/s.

Resolved points (see docs/models.md)
------------------------------------
* Closed form of Qhat. For k ≥ 3 the inner sum Σ_{m=0..2} C(k,m) equals
  p(1 + q + q²) = 1 − q³ (q = 1 − p_r) whatever k is, so, for integer w > 3,
      Qhat(w)       = (1 − q³)(1 + q³ − q^(w+1)) / (1 − q^w)
      Qhat_split(w) = (1 − q³)(q³ − q^(w+1)) / (1 − q^w)      (n > n̂)
  We evaluate these (O(1) for any w); the tests check them against the
  literal sums. The k-sum runs to w as printed in the dissertation (and in
  Padhye et al.'s eq. 24); Padhye's own closed form stops at w − 1
  (q^w instead of q^(w+1)); the difference is p·q^w·(1−q³)/(1−q^w), tiny.
* Cap at 1. Because the k-sum includes k = w, the raw Qhat can exceed 1 for
  large p_r (e.g. w = 4, p_r = 0.5 gives 1.02). Qhat is a probability, so we
  return min(1, ·), as Padhye's closed form does.
* Non-integer window. E[Wf] is real but the sums need an integer w. By
  default Qhat is linearly interpolated between floor(w) and floor(w) + 1
  (with Qhat(3) = 1 at the left end of (3, 4)). This is exact at integers,
  continuous in the inputs (so a model curve over n has no artificial
  steps), and keeps every pointwise inequality between Qhat variants
  (e.g. Split ≤ Full). ``noninteger="round" | "floor" | "ceil"`` are offered
  for comparison, and ``"continuous"`` evaluates the closed form at real w.
* p_r → 0. A(w,k) → 1/w and Qhat(w) → min(1, 3/w) (Split: → 0 for n > n̂,
  1/w for n ≤ n̂); these limits are used at p_r = 0.
* p_c = 0 (no loss event): every model's throughput is unbounded; we return
  ``math.inf``, or ``capacity_pps`` when given. All models are capped at
  ``capacity_pps`` (the bottleneck's packet rate) when it is given.
* p_c > 0 with p_r = 0 is inconsistent (a cumulative loss event needs a
  flow that lost) and raises ValueError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

__all__ = [
    "j_flows",
    "expected_rounds",
    "expected_packets",
    "expected_flow_window",
    "A",
    "C",
    "q_hat",
    "q_hat_split",
    "q_abtt",
    "IncastModel",
    "incast_model",
    "throughput_td",
    "throughput_full",
    "throughput_split",
    "padhye",
    "padhye_n",
    "pps_to_bps",
    "bps_to_pps",
    "line_rate_pps",
    "NONINTEGER_MODES",
]

NONINTEGER_MODES = ("interp", "round", "floor", "ceil", "continuous")


# --------------------------------------------------------------- validation

def _as_float(name: str, x: Any) -> float:
    """``x`` as a float, or a TypeError naming ``name`` (a string with a
    unit, "200us", is the command line's: these take SI numbers)."""
    if isinstance(x, (str, bytes)) or isinstance(x, bool):
        raise TypeError(f"{name} must be a number in SI units (s, packets, bytes, a probability), got {x!r}; for a "
                        "string with a unit use dcnsim.units (parse_time, parse_size, parse_rate)")
    try:
        return float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {x!r}") from None


def _check_prob(name: str, p: float, allow_zero: bool = True) -> float:
    p = _as_float(name, p)
    if not (0.0 <= p <= 1.0) or (p == 0.0 and not allow_zero):
        lo = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{name} must be in {lo}, got {p!r}")
    return p


def _check_pos(name: str, x: float, allow_inf: bool = False) -> float:
    x = _as_float(name, x)
    if math.isnan(x) or x <= 0 or (math.isinf(x) and not allow_inf):
        raise ValueError(f"{name} must be {'> 0' if allow_inf else 'finite and > 0'}, got {x!r}")
    return x


def _check_nonneg(name: str, x: float) -> float:
    x = _as_float(name, x)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {x!r}")
    return x


def _check_n(n: float) -> float:
    n = _as_float("n", n)
    if not math.isfinite(n) or n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    return n


def _check_whole(name: str, x: float) -> int:
    """A count the equations index by (w, k, g, m): a fraction is refused,
    not truncated (C(2.9, 2) read as C(2, 2) was ten times C(3, 2))."""
    v = _as_float(name, x)
    if not math.isfinite(v) or v != int(v):
        raise ValueError(f"{name} must be a whole number, got {x!r}")
    return int(v)


def _check_n_hat(n_hat: float) -> float:
    v = _as_float("n_hat", n_hat)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"n_hat must be finite and >= 0, got {n_hat!r}")
    return v


def _cap(b: float, capacity_pps: Optional[float]) -> float:
    if capacity_pps is None:
        return b
    cap = _check_pos("capacity_pps", capacity_pps, allow_inf=True)
    return min(b, cap)


# ------------------------------------------------------- TD-only (3.10-3.21)

def j_flows(n: float, p_c: float, p_r: float) -> float:
    """j = min(n, p_r/p_c): composite flows hit per cumulative loss event."""
    n = _check_n(n)
    p_c = _check_prob("p_c", p_c, allow_zero=False)
    p_r = _check_prob("p_r", p_r, allow_zero=False)
    return min(n, p_r / p_c)


def expected_rounds(n: float, p_c: float, j: float) -> float:
    """E[X], rounds per TD period (eq. 3.19), the positive root of eq. 3.18.

    Evaluated as (sqrt(a² + b) − a)/(6n²p_c) with a = p_c·j·(n − 2j) and
    b = 24n²·p_c·j (algebraically identical to 3.19); when a > 0 the
    difference is rewritten as b/(sqrt(a² + b) + a) to avoid cancellation.
    """
    n = _check_n(n)
    p_c = _check_prob("p_c", p_c, allow_zero=False)
    j = _check_pos("j", j)
    if j > n:  # j = min(n, p_r/p_c): no more flows lose than there are
        raise ValueError(f"j must be <= n, got j={j!r}, n={n!r}")
    a = p_c * j * (n - 2.0 * j)
    b = 24.0 * n * n * p_c * j
    d = math.sqrt(a * a + b)
    if not math.isfinite(d):
        raise ValueError(f"n = {n!r} is too large for eq. 3.19's arithmetic (its terms pass a float's range)")
    num = b / (d + a) if a > 0 else d - a
    return num / (6.0 * n * n * p_c)


def expected_packets(p_c: float) -> float:
    """E[Y] = 1/p_c, packets per TD period (eq. 3.10)."""
    p_c = _check_prob("p_c", p_c)
    return math.inf if p_c == 0 else 1.0 / p_c


def expected_flow_window(n: float, p_c: float, j: float) -> float:
    """E[Wf] = 2·E[Xf] = 2n·E[X]/j, mean window of one flow at a loss (3.7, 3.12)."""
    ex = expected_rounds(n, p_c, j)  # checks n, p_c and j, naming the one at fault
    return 2.0 * float(n) * ex / float(j)


# ------------------------------------------------ timeout terms (3.31-3.40)

def _log_q(p_r: float) -> float:
    return math.log1p(-p_r) if p_r < 1.0 else -math.inf


def _one_minus_q_pow(p_r: float, w: float) -> float:
    """1 − (1 − p_r)^w, accurate for small p_r."""
    if p_r == 1.0:
        return 1.0 if w > 0 else 0.0
    return -math.expm1(w * _log_q(p_r))


def _q_pow(p_r: float, k: float) -> float:
    return (1.0 - p_r) ** k


def A(w: int, k: int, p_r: float) -> float:
    """A(w,k) (eq. 3.32): P(first k of w packets ACKed | ≥ 1 loss in the round).

    At p_r = 0 the limit 1/w is returned.
    """
    w, k = _check_whole("w", w), _check_whole("k", k)
    if w < 1 or not 0 <= k <= w:
        raise ValueError(f"A(w, k) needs w >= 1 and 0 <= k <= w, got w={w}, k={k}")
    p_r = _check_prob("p_r", p_r)
    if p_r == 0.0:
        return 1.0 / w
    return _q_pow(p_r, k) * p_r / _one_minus_q_pow(p_r, w)


def C(g: int, m: int, p_r: float) -> float:
    """C(g,m) (eq. 3.33): P(m of the g packets of the loss round are ACKed in
    sequence, the rest (if any) lost): (1−p_r)^m·p_r if m < g, (1−p_r)^g if m = g."""
    g, m = _check_whole("g", g), _check_whole("m", m)
    if g < 0 or not 0 <= m <= g:
        raise ValueError(f"C(g, m) needs 0 <= m <= g, got g={g}, m={m}")
    p_r = _check_prob("p_r", p_r)
    if m < g:
        return _q_pow(p_r, m) * p_r
    return _q_pow(p_r, g)


def _qhat_full_at(w: float, p_r: float) -> float:
    """Closed form of eq. 3.34 at w > 3 (exact at integer w), capped at 1."""
    if w <= 3:
        return 1.0
    if p_r == 0.0:
        return min(1.0, 3.0 / w)
    one_m_q3 = _one_minus_q_pow(p_r, 3)
    val = one_m_q3 * (1.0 + _q_pow(p_r, 3) - _q_pow(p_r, w + 1)) / _one_minus_q_pow(p_r, w)
    return min(1.0, val)


def _qhat_split_at(w: float, p_r: float, whole_window: bool) -> float:
    """Closed form of eq. 3.40 at w > 3 (exact at integer w), capped at 1."""
    if w <= 3:
        return 1.0
    if whole_window:  # n <= n_hat: A(w, 0)
        val = 1.0 / w if p_r == 0.0 else p_r / _one_minus_q_pow(p_r, w)
        return min(1.0, val)
    if p_r == 0.0:
        return 0.0
    one_m_q3 = _one_minus_q_pow(p_r, 3)
    val = one_m_q3 * (_q_pow(p_r, 3) - _q_pow(p_r, w + 1)) / _one_minus_q_pow(p_r, w)
    return min(1.0, val)


def _noninteger(f, w: float, mode: str) -> float:
    if mode not in NONINTEGER_MODES:
        raise ValueError(f"noninteger must be one of {NONINTEGER_MODES}, got {mode!r}")
    if math.isinf(w):
        return f(w)
    if mode == "continuous":
        return f(w)
    if mode == "round":
        return f(math.floor(w + 0.5))
    if mode == "floor":
        return f(math.floor(w))
    if mode == "ceil":
        return f(math.ceil(w))
    lo = math.floor(w)
    frac = w - lo
    if frac == 0.0:
        return f(lo)
    return (1.0 - frac) * f(lo) + frac * f(lo + 1)


def _check_w(w: float) -> float:
    w = _as_float("w", w)
    if math.isnan(w) or w < 0:
        raise ValueError(f"w must be >= 0, got {w!r}")
    return w


def _qhat_inf(p_r: float, split_tail: bool) -> float:
    """Limit of Qhat as w → ∞ (w is infinite only when p_c → 0)."""
    if p_r == 0.0:
        return 0.0
    q3 = _q_pow(p_r, 3)
    return min(1.0, (1.0 - q3) * (q3 if split_tail else 1.0 + q3))


def q_hat(w: float, p_r: float, noninteger: str = "interp") -> float:
    """Qhat(w) of the Full model (eq. 3.34): P(a loss in a window of w is an IBTT).

    1 for w ≤ 3. Non-integer w: see ``noninteger`` and the module notes.
    """
    w = _check_w(w)
    p_r = _check_prob("p_r", p_r)
    if math.isinf(w):
        return _qhat_inf(p_r, split_tail=False)
    return _noninteger(lambda x: _qhat_full_at(x, p_r), w, noninteger)


def q_hat_split(w: float, p_r: float, n: float, n_hat: float = 3,
                noninteger: str = "interp") -> float:
    """Qhat(w) of the Split model (eq. 3.40).

    1 for w ≤ 3; whole-window loss A(w,0) when n ≤ n̂; otherwise only the
    too-few-duplicate-ACKs term Σ_{k=3..w} A(w,k)·Σ_{m=0..2} C(k,m).
    """
    w = _check_w(w)
    p_r = _check_prob("p_r", p_r)
    n = _check_n(n)
    whole = n <= _check_n_hat(n_hat)
    if math.isinf(w):
        # A(w, 0) = p_r / (1 - (1 - p_r)^w) tends to p_r as w grows
        return p_r if whole else _qhat_inf(p_r, split_tail=True)
    return _noninteger(lambda x: _qhat_split_at(x, p_r, whole), w, noninteger)


def q_abtt(zeta: float, L: float, p_c: float) -> float:
    """Q_abtt = E[ζ]/E[β] with β = L/E[Y] TD periods per block (3.37-3.38)."""
    zeta = _check_nonneg("zeta", zeta)
    L = _check_pos("L", L, allow_inf=True)
    p_c = _check_prob("p_c", p_c, allow_zero=False)
    return zeta / (L * p_c)


# ------------------------------------------------------------ whole model

@dataclass(frozen=True)
class IncastModel:
    """All intermediate quantities and throughputs (packets/s) of the model."""

    n: float
    p_c: float
    p_r: float
    rtt_s: float
    t0_s: float
    L_pkts: float
    zeta: float
    n_hat: float
    j: float
    EX: float          # E[X], rounds per TD period
    EY: float          # E[Y], packets per TD period
    EWf: float         # E[Wf], one flow's window
    q_ibtt_full: float
    q_ibtt_split: float
    q_abtt: float
    Q_full: float
    Q_split: float
    B_td: float        # packets/s
    B_full: float
    B_split: float
    B_padhye_n: float

    def bps(self, payload_bytes: float) -> dict:
        """Throughputs in bit/s for packets of ``payload_bytes``."""
        return {
            "td": pps_to_bps(self.B_td, payload_bytes),
            "full": pps_to_bps(self.B_full, payload_bytes),
            "split": pps_to_bps(self.B_split, payload_bytes),
            "padhye_n": pps_to_bps(self.B_padhye_n, payload_bytes),
        }


def incast_model(n: float, p_c: float, p_r: float, rtt: float, T0: float,
                 L: float, zeta: float, n_hat: float = 3,
                 noninteger: str = "interp",
                 capacity_pps: Optional[float] = None) -> IncastModel:
    """Evaluate TD-only (3.21), Full (3.39), Split (3.40) and n×Padhye at once.

    ``capacity_pps`` caps every throughput (e.g. :func:`line_rate_pps`).
    """
    n = _check_n(n)
    p_c = _check_prob("p_c", p_c)
    p_r = _check_prob("p_r", p_r)
    rtt = _check_pos("rtt", rtt)
    T0 = _check_nonneg("T0", T0)
    L = _check_pos("L", L, allow_inf=True)
    zeta = _check_nonneg("zeta", zeta)
    n_hat = _check_n_hat(n_hat)
    if noninteger not in NONINTEGER_MODES:
        raise ValueError(f"noninteger must be one of {NONINTEGER_MODES}, got {noninteger!r}")
    b_pad = padhye_n(n, p_r, rtt, T0, capacity_pps=capacity_pps)
    if p_c == 0.0:
        inf = _cap(math.inf, capacity_pps)
        nan = math.nan
        return IncastModel(
            n=n, p_c=p_c, p_r=p_r, rtt_s=rtt, t0_s=T0, L_pkts=L, zeta=zeta,
            n_hat=float(n_hat), j=nan, EX=math.inf, EY=math.inf, EWf=math.inf,
            q_ibtt_full=nan, q_ibtt_split=nan, q_abtt=0.0, Q_full=nan, Q_split=nan,
            B_td=inf, B_full=inf, B_split=inf, B_padhye_n=b_pad,
        )
    if p_r == 0.0:
        raise ValueError("p_r must be > 0 when p_c > 0 (a cumulative loss event needs a losing flow)")
    j = j_flows(n, p_c, p_r)
    ex = expected_rounds(n, p_c, j)
    ey = 1.0 / p_c
    ewf = 2.0 * n * ex / j
    qi_full = q_hat(ewf, p_r, noninteger)
    qi_split = q_hat_split(ewf, p_r, n, n_hat, noninteger)
    qa = q_abtt(zeta, L, p_c)
    Qf = min(1.0, qi_full + qa)
    Qs = min(1.0, qi_split + qa)
    td_time = rtt * ex
    return IncastModel(
        n=n, p_c=p_c, p_r=p_r, rtt_s=rtt, t0_s=T0, L_pkts=L, zeta=zeta,
        n_hat=float(n_hat), j=j, EX=ex, EY=ey, EWf=ewf,
        q_ibtt_full=qi_full, q_ibtt_split=qi_split, q_abtt=qa,
        Q_full=Qf, Q_split=Qs,
        B_td=_cap(ey / td_time, capacity_pps),
        B_full=_cap(ey / (td_time + Qf * T0), capacity_pps),
        B_split=_cap(ey / (td_time + Qs * T0), capacity_pps),
        B_padhye_n=b_pad,
    )


def throughput_td(n: float, p_c: float, p_r: float, rtt: float,
                  capacity_pps: Optional[float] = None) -> float:
    """TD-only model (eq. 3.21), packets/s: E[Y]/(RTT·E[X])."""
    n = _check_n(n)
    p_c = _check_prob("p_c", p_c)
    p_r = _check_prob("p_r", p_r)
    rtt = _check_pos("rtt", rtt)
    if p_c == 0.0:
        return _cap(math.inf, capacity_pps)
    if p_r == 0.0:
        raise ValueError("p_r must be > 0 when p_c > 0 (a cumulative loss event needs a losing flow)")
    j = j_flows(n, p_c, p_r)
    return _cap((1.0 / p_c) / (rtt * expected_rounds(n, p_c, j)), capacity_pps)


def throughput_full(n: float, p_c: float, p_r: float, rtt: float, T0: float,
                    L: float, zeta: float, noninteger: str = "interp",
                    capacity_pps: Optional[float] = None) -> float:
    """Full model (eq. 3.39), packets/s: E[Y]/(RTT·E[X] + Q·T0)."""
    return incast_model(n, p_c, p_r, rtt, T0, L, zeta, noninteger=noninteger,
                        capacity_pps=capacity_pps).B_full


def throughput_split(n: float, p_c: float, p_r: float, rtt: float, T0: float,
                     L: float, zeta: float, n_hat: float = 3,
                     noninteger: str = "interp",
                     capacity_pps: Optional[float] = None) -> float:
    """Split model (eq. 3.40 in 3.39), packets/s; n̂ = 3 as in the dissertation."""
    return incast_model(n, p_c, p_r, rtt, T0, L, zeta, n_hat=n_hat,
                        noninteger=noninteger, capacity_pps=capacity_pps).B_split


# ------------------------------------------------------------------ Padhye

def padhye(p: float, rtt: float, T0: float, b: float = 1,
           wmax: Optional[float] = None,
           capacity_pps: Optional[float] = None) -> float:
    """Padhye et al. (SIGCOMM '98) approximate single-flow throughput, packets/s.

    B = 1 / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²)),
    b = packets acknowledged per ACK. Optional ``wmax`` (receiver window,
    packets) applies Padhye's min(Wmax/RTT, ·). p = 0 gives inf (or the cap).
    """
    p = _check_prob("p", p)
    rtt = _check_pos("rtt", rtt)
    T0 = _check_nonneg("T0", T0)
    b = _check_pos("b", b)
    if p == 0.0:
        val = math.inf
    else:
        denom = (rtt * math.sqrt(2.0 * b * p / 3.0)
                 + T0 * min(1.0, 3.0 * math.sqrt(3.0 * b * p / 8.0)) * p * (1.0 + 32.0 * p * p))
        val = 1.0 / denom
    if wmax is not None:
        val = min(val, _check_pos("wmax", wmax) / rtt)
    return _cap(val, capacity_pps)


def padhye_n(n: float, p_r: float, rtt: float, T0: float, b: float = 1,
             wmax: Optional[float] = None,
             capacity_pps: Optional[float] = None) -> float:
    """n × Padhye(p = p_r), packets/s (the dissertation's Fig. 3.21 baseline).

    ``capacity_pps`` caps the product (the n flows share one bottleneck).
    """
    n = _check_n(n)
    return _cap(n * padhye(p_r, rtt, T0, b=b, wmax=wmax), capacity_pps)


# ------------------------------------------------------------------ units

def _check_rate(name: str, x: Any) -> float:
    """A throughput: a number >= 0; inf (a model without a loss event,
    p_c = 0) passes through, NaN does not (it is no throughput)."""
    v = _as_float(name, x)
    if math.isnan(v) or v < 0:
        raise ValueError(f"{name} must be >= 0 (inf allowed), got {x!r}")
    return v


def pps_to_bps(pps: float, payload_bytes: float) -> float:
    """Packets/s → bit/s of payload (goodput-like) for ``payload_bytes`` packets."""
    return _check_rate("pps", pps) * 8.0 * _check_pos("payload_bytes", payload_bytes)


def bps_to_pps(bps: float, payload_bytes: float) -> float:
    """Bit/s of payload → packets/s of ``payload_bytes`` packets."""
    return _check_rate("bps", bps) / (8.0 * _check_pos("payload_bytes", payload_bytes))


def line_rate_pps(rate_bps: float, wire_bytes: float) -> float:
    """Packets/s a link of ``rate_bps`` serializes when each packet is
    ``wire_bytes`` on the wire (payload + TCP/IP header + L2 overhead)."""
    return _check_pos("rate_bps", rate_bps) / (8.0 * _check_pos("wire_bytes", wire_bytes))
