"""Model inputs measured from a dcnsim run (the dissertation's "analysis programs").

Kulkarni (§3.2) computes, from ns-2 traces of a synchronized-reads run:
p_c = loss indications of the cumulative flow / packets sent by all flows;
p_r = loss indications of a flow / packets sent by that flow (averaged over
flows); ζ = mean number of ABTTs at the start of a block; the round-trip
time; and the mean duration of a single timeout. This module does the same
from dcnsim's result tables.

Tables (pandas DataFrames, or any mapping of column name → sequence):

``flows``  flow_id, role ("request" | "response" | "bulk" | ...),
           segments_sent (every data segment put on the wire, retransmissions
           included), retransmits, timeouts (RTO expiries, each backoff
           counted), timeout_period_s (total time stalled waiting on RTOs),
           fast_retransmits, drops, drop_runs; optional app, rtt_s / srtt_s.
``blocks`` block, n_servers, start_s, end_s, duration_s, bytes (SRU × n),
           timeouts (RTOs of the app's flows during the block); optional app,
           and the future columns abtt, ibtt (RTOs classified per block).

Definitions used here
---------------------
* Loss indication (LI) of a flow = fast_retransmits + timeouts: a triple
  duplicate ACK (TD) or a retransmission timeout (TO), the two loss
  indications of Padhye et al. and of the dissertation.
* The n composite flows are the ``role == "response"`` flows (server →
  client); request flows carry only the tiny requests.
* p_r = mean over response flows (with segments_sent > 0) of
  LI_f / segments_sent_f.
* p_c: with a per-event trace (``events``: time_s, flow_id[, kind]), loss
  indications of different flows less than one RTT apart are merged into
  one loss event of the cumulative flow (the model's "one event per
  round"); p_c = events / Σ segments_sent. Without a trace every flow LI is
  one cumulative LI, p_c = Σ LI / Σ segments_sent (the literal reading of
  the dissertation's sentence). Then j = p_r/p_c is ≈ 1 (it differs from 1
  only through the per-flow averaging of p_r); a note says so.
* RTT: the ``rtt_s`` argument (e.g. the scenario's base RTT), else the mean
  of a per-flow ``rtt_s`` / ``srtt_s`` / ``mean_rtt_s`` column; otherwise an
  error (the listed columns carry no RTT).
* T0 = Σ timeout_period_s / Σ timeouts over response flows: the mean stall
  of one RTO expiry. With no timeouts, ``t0_default_s`` (e.g. RTOmin) is
  used, else NaN; a note says which.
* L = mean(blocks.bytes) / payload_bytes, packets per block.
* ζ, the dissertation's "mean number of timeouts occurring at the
  beginning of a block transfer": per block, the response flows whose
  timer fired in it, at most the block's first-flight RTOs
  (``blocks.rto_first_flight``: the lost segment was in the block's first
  window), when the blocks table has that column and ``events`` is the
  losses table (time_s, flow_id, kind); ``zeta_strict`` keeps the strict
  count beside it. Without them ζ is the strict count:
  mean(blocks.abtt_flows) — flows with no ACK of the block back when their
  timer fired, each counted once — when that column exists; else mean(blocks.abtt) (every
  ABTT expiry, backoff repeats included). Otherwise approximated:
  mean(blocks.timeouts − blocks.ibtt) if ``ibtt`` exists, else
  mean(blocks.timeouts), an upper bound (every RTO of the block, IBTTs,
  request-flow RTOs and backoff repeats included, counted as an ABTT); a
  note says so.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from .incast import (
    IncastModel,
    _check_n,
    _check_pos,
    incast_model,
    line_rate_pps,
    padhye_n,
    pps_to_bps,
    throughput_td,
)

__all__ = [
    "IncastInputs",
    "loss_indications",
    "count_cumulative_loss_events",
    "incast_inputs",
    "model_vs_sim",
]

FLOW_COLUMNS = ("flow_id", "role", "segments_sent", "timeouts",
                "timeout_period_s", "fast_retransmits")
BLOCK_COLUMNS = ("n_servers", "bytes", "timeouts")
RTT_COLUMNS = ("rtt_s", "srtt_s", "mean_rtt_s")
LOSS_KINDS = ("fast_retransmit", "timeout")


@dataclass
class IncastInputs:
    """Inputs of the Kulkarni incast model measured from one run."""

    n: float
    p_c: float
    p_r: float
    rtt_s: float
    t0_s: float
    L_pkts: float
    zeta: float
    notes: List[str] = field(default_factory=list)
    #: ζ by the strict count (flows with no ACK of the block back when their
    #: timer fired: ``blocks.abtt_flows``), a lower bound of ``zeta`` where
    #: the run's tables give the dissertation's reading; the same otherwise
    zeta_strict: float = math.nan

    @property
    def j(self) -> float:
        """j = min(n, p_r/p_c) (NaN when p_c = 0)."""
        if not self.p_c > 0:
            return math.nan
        return min(self.n, self.p_r / self.p_c)

    def model(self, n_hat: float = 3, noninteger: str = "interp",
              capacity_pps: Optional[float] = None) -> IncastModel:
        """Evaluate :func:`dcnsim.models.incast.incast_model` on these inputs."""
        return incast_model(self.n, self.p_c, self.p_r, self.rtt_s, self.t0_s,
                            self.L_pkts, self.zeta, n_hat=n_hat,
                            noninteger=noninteger, capacity_pps=capacity_pps)

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------- tables

def _columns(t) -> List[str]:
    if hasattr(t, "columns"):
        return [str(c) for c in t.columns]
    if hasattr(t, "column_names"):  # pyarrow.Table
        return list(t.column_names)
    return list(t.keys())


def _table(t, name: str, required) -> Dict[str, np.ndarray]:
    """Any DataFrame-like → dict of numpy arrays, checking required columns."""
    cols = _columns(t)
    missing = [c for c in required if c not in cols]
    if missing:
        raise ValueError(f"{name} table lacks column(s) {missing}; has {cols}")
    out = {c: np.asarray(t[c]) for c in cols}
    lens = {len(v) for v in out.values()}
    if len(lens) > 1:
        raise ValueError(f"{name} table has columns of different lengths")
    return out


def _rows(t: Dict[str, np.ndarray], mask: np.ndarray) -> Dict[str, np.ndarray]:
    return {c: v[mask] for c, v in t.items()}


def _nrows(t: Dict[str, np.ndarray]) -> int:
    return len(next(iter(t.values()))) if t else 0


def _f(a) -> np.ndarray:
    return np.asarray(a, dtype=float)


# ------------------------------------------------------------- measurements

def loss_indications(flows) -> np.ndarray:
    """Per-flow loss indications: fast_retransmits + timeouts."""
    t = flows if isinstance(flows, dict) else _table(flows, "flows", ("fast_retransmits", "timeouts"))
    return _f(t["fast_retransmits"]) + _f(t["timeouts"])


def count_cumulative_loss_events(times_s, window_s: float) -> int:
    """Loss events of the cumulative flow from loss-indication times.

    Sorted times are grouped greedily: an event opens at the first
    unassigned time t and takes every indication with time < t + window_s
    (one round: use window_s = RTT).
    """
    t = np.sort(_f(times_s))
    if t.size == 0:
        return 0
    if not window_s > 0:
        raise ValueError(f"window_s must be > 0, got {window_s!r}")
    count, start = 1, t[0]
    for x in t[1:]:
        if x - start >= window_s:
            count += 1
            start = x
    return count


def incast_inputs(flows, blocks, payload_bytes: float, *,
                  rtt_s: Optional[float] = None,
                  t0_default_s: Optional[float] = None,
                  events=None,
                  app: Optional[int] = None,
                  n: Optional[float] = None,
                  role: str = "response") -> IncastInputs:
    """Measure (n, p_c, p_r, RTT, T0, L, ζ) from a synchronized-reads run.

    ``payload_bytes``: data payload per full segment (the MSS), to express
    the block in packets. ``rtt_s``: RTT to use (required unless ``flows``
    has an RTT column). ``t0_default_s``: T0 when the run had no timeout.
    ``events``: optional per-event trace (time_s, flow_id[, kind]) to group
    loss indications into cumulative loss events (else p_c counts every
    flow's LI). ``app``: which app's blocks/flows (required when ``blocks``
    holds several apps). ``n``: override the number of senders.
    See the module docstring for every definition.
    """
    payload_bytes = _check_pos("payload_bytes", payload_bytes)
    notes: List[str] = []
    ft = _table(flows, "flows", FLOW_COLUMNS)
    bt = _table(blocks, "blocks", BLOCK_COLUMNS)

    # ---- which app
    if app is None and "app" in bt and _nrows(bt) > 0:
        apps = np.unique(bt["app"])
        if apps.size > 1:
            raise ValueError(f"blocks holds several apps {apps.tolist()}; pass app=")
        app = apps[0].item()
    if app is not None:
        for name, t in (("blocks", bt), ("flows", ft)):
            if "app" not in t:
                raise ValueError(f"app={app!r} given but the {name} table has no 'app' column")
        bt = _rows(bt, bt["app"] == app)
        ft = _rows(ft, ft["app"] == app)

    # ---- the n composite flows
    resp = _rows(ft, np.asarray(ft["role"]).astype(str) == role)
    if _nrows(resp) == 0:
        raise ValueError(f"flows has no role == {role!r} rows" + (f" for app {app!r}" if app is not None else ""))
    seg = _f(resp["segments_sent"])
    li = loss_indications(resp)
    sent = seg > 0
    if not np.all(sent):
        notes.append(f"{int((~sent).sum())} {role} flow(s) sent nothing; left out of p_r")
    if not np.any(sent):
        raise ValueError(f"no {role} flow sent a segment")
    p_r = float(np.mean(li[sent] / seg[sent]))
    total_sent = float(seg.sum())

    # ---- n
    if n is None:
        if _nrows(bt) > 0:
            vals, counts = np.unique(_f(bt["n_servers"]), return_counts=True)
            n = float(vals[np.argmax(counts)])
            if vals.size > 1:
                notes.append(f"n_servers varies across blocks {vals.tolist()}; using the most common, {n:g}")
        else:
            n = float(_nrows(resp))
            notes.append(f"no completed block; n = number of {role} flows = {n:g}")
    n = _check_n(n)

    # ---- RTT
    if rtt_s is None:
        col = next((c for c in RTT_COLUMNS if c in resp), None)
        if col is None:
            raise ValueError(
                "RTT is not measurable from these tables: pass rtt_s= (e.g. the scenario's "
                f"base RTT) or provide one of the flow columns {list(RTT_COLUMNS)}")
        vals = _f(resp[col])
        if not np.any(np.isfinite(vals)):
            raise ValueError(f"RTT is not measurable: flows.{col} has no value for the {role} flows "
                             "(no RTT sample); pass rtt_s=")
        rtt_s = float(np.nanmean(vals))
        notes.append(f"RTT = mean of flows.{col} over {role} flows")
    rtt_s = _check_pos("rtt_s", rtt_s)

    # ---- p_c
    if events is not None:
        et = _table(events, "events", ("time_s", "flow_id"))
        keep = np.isin(et["flow_id"], resp["flow_id"])
        if "kind" in et:
            keep &= np.isin(np.asarray(et["kind"]).astype(str), LOSS_KINDS)
        n_events = count_cumulative_loss_events(et["time_s"][keep], rtt_s)
        p_c = n_events / total_sent if total_sent > 0 else 0.0
        notes.append(
            f"p_c from the event trace: {int(keep.sum())} flow loss indications merged "
            f"into {n_events} cumulative loss events (window = RTT)")
    else:
        p_c = float(li.sum()) / total_sent if total_sent > 0 else 0.0
        notes.append(
            "p_c = all flows' loss indications / all packets (no event trace to merge "
            "simultaneous losses into one cumulative event), so j = p_r/p_c is ~1")

    # ---- T0
    n_to = float(_f(resp["timeouts"]).sum())
    if n_to > 0:
        t0_s = float(_f(resp["timeout_period_s"]).sum()) / n_to
    elif t0_default_s is not None:
        t0_s = float(t0_default_s)
        notes.append(f"no timeout in the run; T0 = t0_default_s = {t0_s:g} s")
    else:
        t0_s = math.nan
        notes.append("no timeout in the run and no t0_default_s (an RTOmin) to stand in: T0 unknown, and so "
                     "the Full, Split and Padhye models, which need it")

    # ---- L and zeta
    if _nrows(bt) == 0:
        L = math.nan
        zeta = math.nan
        notes.append("no completed block; L and zeta are NaN")
    else:
        L = float(np.mean(_f(bt["bytes"]))) / float(payload_bytes)
        if "abtt_flows" in bt:
            # ζ: flows that timed out at a block's start (each flow once,
            # however often its RTO expired).
            zeta = float(np.mean(_f(bt["abtt_flows"])))
        elif "abtt" in bt:
            zeta = float(np.mean(_f(bt["abtt"])))
            notes.append("zeta = mean(blocks.abtt): counts every ABTT expiry, backoff repeats included "
                         "(no abtt_flows column)")
        elif "ibtt" in bt:
            zeta = float(np.mean(_f(bt["timeouts"]) - _f(bt["ibtt"])))
            notes.append("zeta approximated as mean(blocks.timeouts - blocks.ibtt) (no abtt column)")
        else:
            zeta = float(np.mean(_f(bt["timeouts"])))
            notes.append(
                "zeta approximated by mean(blocks.timeouts), an upper bound: no abtt column, "
                "so every RTO in a block counts as an ABTT")

    # ---- ζ as the dissertation reads it: timeouts at a block's start
    strict = zeta
    first = _zeta_first_flight(bt, resp, events) if _nrows(bt) > 0 else math.nan
    if math.isnan(first) and _nrows(bt) > 0 and "abtt_flows" in bt:
        notes.append(f"zeta = {strict:.3g}, the strict count (flows with no ACK of the block back when their timer "
                     "fired), a lower bound: the dissertation's reading (timeouts at a block's start) needs the "
                     "losses trace as events and blocks.rto_first_flight")
    if not math.isnan(first):
        zeta = first
        notes.append(f"zeta = {first:.3g}: the dissertation's 'timeouts occurring at the beginning of a block "
                     "transfer', per block the response flows whose timer fired in it, at most its first-flight "
                     f"RTOs (blocks.rto_first_flight); the strict count (no ACK of the block back), {strict:.3g}, "
                     "is zeta_strict")
    return IncastInputs(n=n, p_c=float(p_c), p_r=p_r, rtt_s=rtt_s, t0_s=t0_s,
                        L_pkts=L, zeta=zeta, notes=notes, zeta_strict=strict)


def _zeta_first_flight(bt: Dict[str, np.ndarray], resp: Dict[str, np.ndarray], events) -> float:
    """ζ read as the dissertation defines it, "the mean number of timeouts
    occurring at the beginning of a block transfer", counted once per flow:
    per block, the response flows whose timer fired within it (``events``,
    the losses table's timeouts) capped by the block's first-flight RTO
    expiries of the servers (``rto_first_flight`` less ``request_timeouts``:
    the lost segment was in the block's first window); the mean over blocks.
    It bounds the exact count (distinct flows with a first-flight timeout,
    which the tables do not carry) from above, as ``abtt_flows`` (no ACK of
    the block had arrived) bounds it from below. NaN without the columns
    or the trace it needs."""
    if events is None or not all(c in bt for c in ("rto_first_flight", "start_s", "end_s")):
        return math.nan
    et = _table(events, "events", ("time_s", "flow_id"))
    if "kind" not in et:
        return math.nan
    keep = np.isin(et["flow_id"], resp["flow_id"]) & (np.asarray(et["kind"]).astype(str) == "timeout")
    t, f = _f(et["time_s"])[keep], np.asarray(et["flow_id"])[keep]
    ff = _f(bt["rto_first_flight"])
    if "request_timeouts" in bt:
        ff = ff - _f(bt["request_timeouts"])
    per_block = [min(c, float(len(np.unique(f[(t >= s0) & (t <= e0)]))))
                 for s0, e0, c in zip(_f(bt["start_s"]), _f(bt["end_s"]), ff)]
    return float(np.mean(per_block)) if per_block else math.nan


def _finite(*xs) -> bool:
    return all(x is not None and not math.isnan(float(x)) for x in xs)


def model_vs_sim(inputs: IncastInputs, sim_goodput_bps: float, payload_bytes: float, *,
                 n_hat: float = 3, noninteger: str = "interp",
                 capacity_bps: Optional[float] = None,
                 wire_bytes: Optional[float] = None) -> Dict[str, float]:
    """Model throughputs (bit/s of payload) next to the simulated goodput.

    Returns ``{"sim_bps", "td_bps", "full_bps", "split_bps", "padhye_n_bps"}``.
    Models are in packets/s × payload_bytes × 8. With ``capacity_bps`` every
    model is capped at the bottleneck's packet rate
    capacity_bps / (8·wire_bytes) (``wire_bytes`` defaults to payload_bytes).
    A model whose inputs are NaN gives NaN.
    """
    cap = None
    if capacity_bps is not None:
        cap = line_rate_pps(capacity_bps, wire_bytes if wire_bytes is not None else payload_bytes)
    out = {"sim_bps": float(sim_goodput_bps), "td_bps": math.nan, "full_bps": math.nan,
           "split_bps": math.nan, "padhye_n_bps": math.nan}
    i = inputs
    if not _finite(i.n, i.p_c, i.p_r, i.rtt_s):
        return out
    if _finite(i.t0_s, i.L_pkts, i.zeta):
        m = incast_model(i.n, i.p_c, i.p_r, i.rtt_s, i.t0_s, i.L_pkts, i.zeta,
                         n_hat=n_hat, noninteger=noninteger, capacity_pps=cap)
        out["td_bps"] = pps_to_bps(m.B_td, payload_bytes)
        out["full_bps"] = pps_to_bps(m.B_full, payload_bytes)
        out["split_bps"] = pps_to_bps(m.B_split, payload_bytes)
        out["padhye_n_bps"] = pps_to_bps(m.B_padhye_n, payload_bytes)
    else:
        out["td_bps"] = pps_to_bps(throughput_td(i.n, i.p_c, i.p_r, i.rtt_s, capacity_pps=cap),
                                   payload_bytes)
        if _finite(i.t0_s):
            out["padhye_n_bps"] = pps_to_bps(
                padhye_n(i.n, i.p_r, i.rtt_s, i.t0_s, capacity_pps=cap), payload_bytes)
    return out
