"""Kulkarni's incast dissertation: what the figures share — constants (Table 3.1), scenarios, reading results, measures, plotting."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..._tables import read_table_or_none
from ...sweep import Point
from ..claims import Register
from ..framework import fold_seeds, only_read_keys, read_table, seed_label

# ---------------------------------------------------------------- constants (Table 3.1)

RATE = "1Gbps"
RATE_BPS = 1e9
DELAY = "50us"
BUFFER_KB = 32
#: Table 3.1's "32 KB" buffer beside "S = 1 KB": ns-2's DropTail counts
#: packets (queue-limit; bytes only with queue_in_bytes_, which the
#: dissertation never mentions), so its runs most likely had B/S = 32
#: packets. The tallied runs count packets ("pkt": `buffer` packets);
#: "KiB" (`buffer` × 1024 bytes, 30 packets of 1064 B) is shown beside.
BUFFER_UNIT = "pkt"
SRU_KB = 256
MSS = 1024
HEADER = 40
RWND = "1000pkt"
RTO_MIN = "200ms"
DUPTHRESH = 3
INIT_CWND = 2
REQUEST_JITTER = "20us"
REQUEST = "64B"
NIC_BUFFER = "100pkt"

#: Chapter 4's storage system (§4.1.1): 100 µs links, 20-segment window
CH4_DELAY = "100us"
CH4_RWND = "20pkt"
#: Figs. 4.7–4.10: "cap the receive window size to 32 KB"
HIST_RWND = "32KB"

#: the dissertation's probabilistic-retransmission thread period and best p
PROBRETX_PERIOD = "20us"
BEST_P = 0.001
#: DSR (Fig. 4.11)
DSR_MSS = "50B"
DSR_CWND = 50

#: extra, clearly labelled series: host timing noise (not in the dissertation)
EXTRA_JITTER = "1us"

DATA_BYTES = 512 * 1024 * 1024
QUICK_DATA_BYTES = 32 * 1024 * 1024
MIN_BLOCKS = 100
QUICK_MIN_BLOCKS = 20

NS: Tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64)
QUICK_NS: Tuple[int, ...] = (1, 2, 3, 4, 6, 7, 8, 12, 16, 24, 32, 48, 64)
#: Fig. 4.1 needs the onset to one server
FINE_NS: Tuple[int, ...] = tuple(range(1, 25)) + (28, 32, 36, 40, 48, 56, 64)
QUICK_FINE_NS: Tuple[int, ...] = tuple(range(1, 13)) + (14, 16, 20, 24, 32, 48, 64)
HIST_NS: Tuple[int, ...] = (5, 10, 20, 50)
SEG_SIZES: Tuple[int, ...] = (64, 128, 256, 512, 1024)
QUICK_SEG_SIZES: Tuple[int, ...] = (128, 256, 1024)
BUFFERS_CH3: Tuple[int, ...] = (16, 32, 64, 128)
SRUS_CH3: Tuple[int, ...] = (64, 128, 256, 512)
BUFFERS_41: Tuple[int, ...] = (16, 32, 64, 128, 256)
SRUS_42: Tuple[int, ...] = (64, 128, 256, 512, 1024)
PS: Tuple[float, ...] = (0.0001, 0.001, 0.01, 0.1)
#: seeds of each simulated point. A seed draws the request jitter and the
#: order of equal-time events, and at small n that order can decide a point
#: (n = 2, Table 3.1: two servers below or above half of one), so a point's value is
#: the mean over its seeds and a claim's interval, where its criterion
#: takes one, the Student-t 95 % interval over the seeds' own values. The
#: quick run keeps one seed (no interval: the means alone decide).
SEEDS: Tuple[int, ...] = (1, 2, 3, 4, 5)
QUICK_SEEDS: Tuple[int, ...] = (1,)

#: onset of collapse: the first n from which goodput stays below this
#: fraction of the best goodput with fewer servers
ONSET_FRACTION = 0.5

SIM = "simulation"
MODEL_NAMES = {"td": "TD-only model (3.21)", "full": "Full model (3.39)", "split": "Split model (3.40)",
               "ibtt": "Full model, IBTT only", "abtt": "Full model, ABTT only", "padhye": "n × Padhye et al."}
MODEL_STYLE = {v: "--" for v in MODEL_NAMES.values()}
#: one colour per series in every Chapter 3 figure
CH3_ORDER = [SIM, MODEL_NAMES["td"], MODEL_NAMES["full"], MODEL_NAMES["split"], MODEL_NAMES["ibtt"],
             MODEL_NAMES["abtt"], MODEL_NAMES["padhye"]]

#: the dissertation's claims, judged here; the figures only measure
REGISTER = Register.load(Path(__file__).with_name("claims.toml"))

#: an onset "beyond the sweep" (no collapse up to the largest n), as a
#: number the criteria can order: twice the largest n of any sweep
NO_ONSET = 2 * 64

# ---------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class KConfig:
    """One experimental configuration (everything but n)."""

    #: the switch port's buffer, in `buffer_unit` (so is the results' column)
    buffer: int = BUFFER_KB
    #: "pkt": the buffer holds `buffer` packets (B/S with S = 1 KB, as
    #: ns-2's queue-limit); "KiB": `buffer` KiB
    buffer_unit: str = BUFFER_UNIT
    sru_kb: int = SRU_KB
    delay: str = DELAY
    rwnd: str = RWND
    rto_min: str = RTO_MIN
    #: RFC 6298's clock granularity G (RTO = SRTT + max(G, 4·RTTVAR)): a
    #: coarse TCP timer, as in ns-2 (tcpTick_) or a 2012 kernel.
    rto_granularity: str = "0s"
    mss: int = MSS
    host_jitter: str = "0s"
    probretx_p: float = 0.0
    dsr: bool = False
    header_compression: bool = False
    #: RFC 3042 (ns-2's singledup_): off, as the dissertation's own account
    #: of its timeouts implies (docs/kulkarni.md, implicit settings)
    limited_transmit: bool = False

    def key(self) -> str:
        parts = [f"b{self.buffer}{'p' if self.buffer_unit == 'pkt' else 'k'}", f"sru{self.sru_kb}k"]
        if self.delay != DELAY:
            parts.append("d" + self.delay)
        if self.rwnd != RWND:
            parts.append("rw" + self.rwnd)
        if self.rto_min != RTO_MIN:
            parts.append("rto" + self.rto_min)
        if self.rto_granularity != "0s":
            parts.append("g" + self.rto_granularity)
        if self.mss != MSS:
            parts.append(f"mss{self.mss}")
        if self.host_jitter != "0s":
            parts.append("jit" + self.host_jitter)
        if self.probretx_p:
            parts.append(f"p{self.probretx_p:g}")
        if self.dsr:
            parts.append("dsr")
        if self.header_compression:
            parts.append("hc")
        if self.limited_transmit:
            parts.append("lt")
        return "-".join(parts)

    def with_(self, **kw: Any) -> "KConfig":
        d = dict(self.__dict__)
        d.update(kw)
        return KConfig(**d)


BASE = KConfig()
CH4 = BASE.with_(delay=CH4_DELAY, rwnd=CH4_RWND)
JITTER = BASE.with_(host_jitter=EXTRA_JITTER)


def buffer_limit(cfg: KConfig) -> str:
    """The switch port's limit: ``buffer`` packets or KiB."""
    if cfg.buffer_unit not in ("pkt", "KiB"):
        raise ValueError(f"buffer_unit must be 'pkt' or 'KiB', got {cfg.buffer_unit!r}")
    return f"{cfg.buffer}pkt" if cfg.buffer_unit == "pkt" else f"{cfg.buffer}KB"


def buffer_bytes(cfg_or_row: Any) -> float:
    """The buffer in bytes of 1 KB segments (packets of MSS + header)."""
    unit = getattr(cfg_or_row, "buffer_unit", None) or cfg_or_row["buffer_unit"]
    size = getattr(cfg_or_row, "buffer", None) or cfg_or_row["buffer"]
    return float(size) * ((MSS + HEADER) if unit == "pkt" else 1024)


def buffer_unit_label(df) -> str:
    """How a figure names its buffers: "pkt" (packets of 1 KB segments) or
    "KiB" (1024 B, as the report and :func:`buffer_text` say; the plots
    said "KB")."""
    units = set(df["buffer_unit"]) if "buffer_unit" in df else {"KiB"}
    return "pkt" if units == {"pkt"} else "KiB"


def buffer_text(df) -> str:
    """A title's words for the 32 KB buffer of Table 3.1 the runs in ``df``
    had: "32 packets" (the tallied reading, which a title saying "32 KB"
    would misstate) or "32 KiB" (the runs in bytes)."""
    return "32 KB read as 32 packets" if buffer_unit_label(df) == "pkt" else "32 KiB, 32,768 B"


def blocks_for(n: int, sru_kb: int, quick: bool) -> int:
    """Blocks per point: a fixed amount of data, at least a minimum of blocks."""
    data = QUICK_DATA_BYTES if quick else DATA_BYTES
    least = QUICK_MIN_BLOCKS if quick else MIN_BLOCKS
    return int(max(least, math.ceil(data / (n * sru_kb * 1024))))


def tcp_table(cfg: KConfig) -> Dict[str, Any]:
    """The [tcp] table: Table 3.1, every implicit setting explicit."""
    t: Dict[str, Any] = {
        "cc": "newreno",
        "segment": "dsr" if cfg.dsr else "fixed",
        "mss": cfg.mss,
        "init_cwnd": INIT_CWND,
        "rwnd": cfg.rwnd,
        "rto_min": cfg.rto_min,
        "dupack_threshold": DUPTHRESH,
        "delayed_ack": False,
        "sack": False,
        # ns-2's default (timestamps_ false): one timed segment per RTT, no
        # sample from a retransmission, and the backed-off RTO kept until a
        # valid sample, which is how ns-2's newack() ends t_backoff_ (it
        # resets only when the timed segment rtt_seq_ is acked; a timeout
        # clears rtt_active_). dcnsim's default (timestamps) ends the
        # backoff on any ACK that advances snd_una.
        "timestamps": False,
        # ns-2's timeout() halves the window into ssthresh at every expiry
        # (slowdown(CLOSE_SSTHRESH_HALF)), so a timeout in a row sets it to
        # 2 segments; RFC 5681 §3.1 and dcnsim's default hold it
        # (validation/README.md, "The time a timeout costs")
        "rto_ssthresh": "recompute",
        # ns-2's NewReno ends a fast recovery at cwnd = ssthresh (its default
        # exit_recovery_fix_ 0 drops the inflation dupwnd_ and leaves cwnd_),
        # RFC 6582's option 2; dcnsim's default is option 1, min(ssthresh,
        # FlightSize + SMSS) (validation/README.md, "Small n with every
        # rule alike")
        "reno_exit": "ssthresh",
        # RFC 3042: off unless a figure shows it on (see KConfig)
        "limited_transmit": cfg.limited_transmit,
        # ns-2's agents open cwnd by 1/cwnd segments per ACK
        "ca_increase": "per_ack",
        # and by one segment per new ACK in slow start, whatever it acks
        # (TcpAgent::opencwnd: cwnd_ += 1), not RFC 3465's L = 2 SMSS
        "abc_limit": 1,
        # ns-2's SACK agents pace recovery by RFC 6675's pipe, no PRR,
        # and count duplicate ACKs (no RACK)
        "reduction": "rfc6675",
        "recovery": "dupack",
    }
    if not cfg.header_compression:
        t["header"] = HEADER
    else:
        t["header_compression"] = True
    if cfg.rto_granularity != "0s":
        t["granularity"] = cfg.rto_granularity
    if cfg.probretx_p:
        t.update({"probretx_p": cfg.probretx_p, "probretx_period": PROBRETX_PERIOD, "probretx_target": "highest"})
    if cfg.dsr:
        t.update({"dsr_mss": DSR_MSS, "dsr_cwnd": DSR_CWND})
    return only_read_keys(t)


def scenario(n: int, cfg: KConfig = BASE, blocks: int = MIN_BLOCKS, name: str = "kulkarni") -> Dict[str, Any]:
    """Client 0 reads ``blocks`` blocks from servers 1..n (one SRU each)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return {
        "name": name,
        "seed": 1,
        "stop": "20000s",  # never reached: the run ends when the last block is read
        "l2_overhead": 0,
        "host_jitter": cfg.host_jitter,
        "topology": {"kind": "star", "hosts": n + 1, "rate": RATE, "delay": cfg.delay,
                     "buffer": buffer_limit(cfg), "nic_buffer": NIC_BUFFER},
        "routing": {"mode": "single"},
        "tcp": tcp_table(cfg),
        "apps": [{"kind": "sync_reads", "client": 0, "servers": f"1-{n}", "sru": f"{cfg.sru_kb}KB",
                  "request": REQUEST, "blocks": blocks, "jitter": REQUEST_JITTER}],
    }


def point(cfg: KConfig, n: int, quick: bool, seed: int = 1) -> Point:
    label = seed_label(f"{cfg.key()}-n{n:03d}", seed)
    params = {"config": cfg.key(), "n": n, "buffer": cfg.buffer, "buffer_unit": cfg.buffer_unit,
              "sru_kb": cfg.sru_kb, "delay": cfg.delay,
              "rwnd": cfg.rwnd, "rto_min": cfg.rto_min, "rto_granularity": cfg.rto_granularity, "mss": cfg.mss, "host_jitter": cfg.host_jitter,
              "probretx_p": cfg.probretx_p, "dsr": cfg.dsr, "header_compression": cfg.header_compression,
              "limited_transmit": cfg.limited_transmit}
    doc = scenario(n, cfg, blocks_for(n, cfg.sru_kb, quick), name=label)
    return Point(label, {**doc, "seed": seed}, seed, params)


def points(cfgs: Sequence[KConfig], ns: Sequence[int], quick: bool,
           seeds: Optional[Sequence[int]] = None) -> List[Point]:
    """Every (configuration, n) point on each of ``seeds`` (the run's:
    :data:`SEEDS`, or :data:`QUICK_SEEDS` in a quick run)."""
    if seeds is None:
        seeds = QUICK_SEEDS if quick else SEEDS
    return [point(c, n, quick, s) for c in cfgs for n in ns for s in seeds]


def _ns(quick: bool) -> Tuple[int, ...]:
    return QUICK_NS if quick else NS


# ---------------------------------------------------------------- reading results


def _finite(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def servers_only(blocks, col: str) -> float:
    """The mean per block of a timeout count of the blocks table over the
    servers' flows alone (:func:`dcnsim.analysis.servers_timeouts`; at
    n = 64, seed 1, the request flows' were 15 % of the timeouts and 42 % of
    the ABTTs)."""
    from ...analysis import servers_timeouts

    if blocks is None or not len(blocks) or col not in blocks:
        return math.nan
    return float(servers_timeouts(blocks, col).mean())


class _PointTables(dict):
    """A point's tables by name, each read on first use: the metrics, ζ
    and the model read a point's flows and blocks, ζ and the model its
    losses (each read three or two times before: a quarter of the 20,630
    tables a full run's analysis read)."""

    def __init__(self, d: Path, read: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(read or {})
        self.d = d

    @classmethod
    def of(cls, d: Path, tables: Optional[Dict[str, Any]]) -> "_PointTables":
        """``tables`` itself when it reads on demand (what it reads is then
        shared with its other users), else a reader holding them."""
        return tables if isinstance(tables, cls) else cls(d, tables)

    def __missing__(self, name: str) -> Any:
        # None for a table the run does not have (``losses`` is written only
        # when the core records one), as the model's own reader gives it
        self[name] = table = read_table_or_none(self.d, name)
        return table


def _model_metrics(d: Path, tables: Optional[Dict[str, Any]] = None) -> Dict[str, float]:
    """Kulkarni's model on the inputs measured from this run (Mbps). ζ is
    the dissertation's reading (timeouts at a block's start,
    :func:`dcnsim.models.measure.incast_inputs`); the ``*_strict``
    columns feed the model ζ = ``abtt_flows`` instead (our strict ABTT)."""
    from ...models.fromrun import model_from_run
    from ...models.incast import line_rate_pps, pps_to_bps

    out = {k: math.nan for k in ("p_c", "p_r", "j", "rtt_us", "t0_ms", "L_pkts", "zeta", "zeta_strict", "td_mbps",
                                 "full_mbps", "split_mbps", "padhye_mbps", "ibtt_mbps", "abtt_mbps",
                                 "full_strict_mbps", "split_strict_mbps", "abtt_strict_mbps", "q_ibtt_full",
                                 "q_ibtt_split", "q_abtt", "wf_pkts")}
    try:
        t = _PointTables.of(d, tables)
        m = model_from_run(d, tables=t)
    except (ValueError, FileNotFoundError):
        return out
    # the model's ζ is the dissertation's reading (timeouts at a block's
    # start: dcnsim.models.measure), zeta_strict ours; both models are kept
    i = m.inputs
    strict = dataclasses.replace(i, zeta=i.zeta_strict) if _finite(i.zeta_strict) else i
    tp = m.throughput_bps
    out.update({"p_c": i.p_c, "p_r": i.p_r, "j": i.j, "rtt_us": i.rtt_s * 1e6, "t0_ms": i.t0_s * 1e3,
                "L_pkts": i.L_pkts, "zeta": i.zeta, "zeta_strict": strict.zeta, "td_mbps": tp["td_bps"] / 1e6,
                "padhye_mbps": tp["padhye_n_bps"] / 1e6})
    if not all(_finite(v) for v in (i.p_c, i.p_r, i.rtt_s, i.t0_s, i.L_pkts, i.zeta)):
        return out
    # the run's own cap (its header as sent: compressed, a profile's, with
    # l2_overhead), as `dcnsim model incast --from-run` prints it; tcp.header
    # alone missed header_compression's 4 B (Fig. 4.11's DSR + HC points)
    cap = (m.cap_bps / (8.0 * m.payload_bytes) if m.cap_bps
           else line_rate_pps(RATE_BPS, m.payload_bytes + float(HEADER)))
    for suffix, inp in (("", i), ("_strict", strict)):
        mod = inp.model(capacity_pps=cap)
        out[f"full{suffix}_mbps"] = pps_to_bps(mod.B_full, m.payload_bytes) / 1e6
        out[f"split{suffix}_mbps"] = pps_to_bps(mod.B_split, m.payload_bytes) / 1e6
        if suffix == "":
            out.update({"q_ibtt_full": mod.q_ibtt_full, "q_ibtt_split": mod.q_ibtt_split, "q_abtt": mod.q_abtt,
                        "wf_pkts": mod.EWf})
        if mod.p_c > 0:
            # Figs. 3.10 / 3.11: the Full model with one kind of timeout at a time
            td_time = mod.rtt_s * mod.EX
            kinds = (("ibtt", mod.q_ibtt_full), ("abtt", mod.q_abtt)) if suffix == "" else (("abtt", mod.q_abtt),)
            for name, q in kinds:
                pps = min(cap, mod.EY / (td_time + min(1.0, q) * mod.t0_s))
                out[f"{name}{suffix}_mbps"] = pps_to_bps(pps, m.payload_bytes) / 1e6
        else:
            out[f"abtt{suffix}_mbps"] = pps_to_bps(cap, m.payload_bytes) / 1e6
            if suffix == "":
                out["ibtt_mbps"] = out["abtt_mbps"]
    return out


@lru_cache(maxsize=16384)
def _metrics_cached(d: str, mtime: float, with_model: bool) -> Dict[str, float]:
    p = Path(d)
    blocks = read_table(p, "blocks")
    flows = read_table(p, "flows")
    queues = read_table(p, "queues")
    summ = json.loads((p / "summary.json").read_text(encoding="utf-8"))
    nb = len(blocks)
    dur = float(blocks["duration_s"].sum()) if nb else math.nan
    resp = flows[flows["role"] == "response"]
    seg = float(resp["segments_sent"].sum())
    to = float(resp["timeouts"].sum())
    drops = float(resp["drops"].sum())
    sw = queues[queues["node"].astype(str) == "sw"]
    arrived = float(sw["enqueued"].sum() + sw["dropped"].sum())
    out: Dict[str, float] = {
        "goodput_mbps": 8.0 * float(blocks["bytes"].sum()) / dur / 1e6 if nb and dur > 0 else math.nan,
        "blocks": float(nb),
        "unfinished": float(summ.get("apps_unfinished", 0) or 0),
        "sim_time_s": float(summ.get("sim_time_s", math.nan)),
        "wall_s": float(summ.get("wall_s", math.nan)),
        # the servers' timeouts (the dissertation's ABTT and IBTT are theirs),
        # not the request flows' (servers_only)
        "timeouts_per_block": servers_only(blocks, "timeouts"),
        "request_timeouts_per_block": (float(blocks["request_timeouts"].mean())
                                       if nb and "request_timeouts" in blocks else math.nan),
        "abtt_per_block": servers_only(blocks, "abtt"),
        "ibtt_per_block": float(blocks["ibtt"].mean()) if nb and "ibtt" in blocks else math.nan,
        "first_flight_per_block": servers_only(blocks, "rto_first_flight"),
        "resp_timeouts": to,
        "rto_whole_window": float(resp["rto_whole_window"].sum()) if "rto_whole_window" in resp else math.nan,
        "rto_few_dupacks": float(resp["rto_few_dupacks"].sum()) if "rto_few_dupacks" in resp else math.nan,
        "rto_many_dupacks": float(resp["rto_many_dupacks"].sum()) if "rto_many_dupacks" in resp else math.nan,
        # the IBTTs and their kinds (fig3.12-whole-window and -few-dupacks
        # judge the IBTTs alone, as the dissertation's finding reads)
        "resp_ibtt": float(resp["ibtt"].sum()),
        "ibtt_whole_window": float(resp["ibtt_whole_window"].sum()) if "ibtt_whole_window" in resp else math.nan,
        "ibtt_few_dupacks": float(resp["ibtt_few_dupacks"].sum()) if "ibtt_few_dupacks" in resp else math.nan,
        "fast_retransmits": float(resp["fast_retransmits"].sum()),
        "probretx_sent": float(resp["probretx_sent"].sum()) if "probretx_sent" in resp else 0.0,
        "drops": drops,
        "drops_per_timeout": drops / to if to > 0 else math.nan,
        "mean_stall_ms": 1e3 * float(resp["timeout_period_s"].sum()) / to if to > 0 else math.nan,
        "mean_segment_bytes": float(resp["bytes_sent"].sum()) / seg if seg > 0 else math.nan,
        "switch_drop_ratio": float(sw["dropped"].sum()) / arrived if arrived > 0 else math.nan,
    }
    if with_model:
        out.update(_model_metrics(p, {"blocks": blocks, "flows": flows, "queues": queues}))
    return out


def metrics(row: Any, with_model: bool = False) -> Dict[str, float]:
    d = Path(row["dir"])
    s = d / "summary.json"
    return _metrics_cached(str(d), s.stat().st_mtime if s.exists() else 0.0, with_model)


PARAM_COLS = ("label", "config", "n", "buffer", "buffer_unit", "sru_kb", "delay", "rwnd", "rto_min", "rto_granularity", "mss",
              "host_jitter", "probretx_p", "dsr", "header_compression", "limited_transmit")

#: what tells a point from another: its configuration (every KConfig
#: field is in its key) and n; the other parameter columns follow from it
POINT_KEYS = ("config", "n")

#: how a point's per-seed metrics become the point's: a mean over the
#: seeds' values (a metric not listed), a sum (counts that are totals of a
#: run: blocks, timeouts, drops, ...), the largest, or a ``ci:`` column,
#: the Student-t 95 % half-width over the seeds' values of the column named
SEED_AGG: Dict[str, str] = {
    "blocks": "sum", "unfinished": "sum", "wall_s": "sum", "resp_timeouts": "sum", "rto_whole_window": "sum",
    "rto_few_dupacks": "sum", "rto_many_dupacks": "sum", "resp_ibtt": "sum", "ibtt_whole_window": "sum",
    "ibtt_few_dupacks": "sum", "fast_retransmits": "sum", "probretx_sent": "sum",
    "drops": "sum",
    "goodput_ci95": "ci:goodput_mbps", "timeouts_ci95": "ci:timeouts_per_block",
    "drop_ratio_ci95": "ci:switch_drop_ratio",
}


def seed_frame(summary, with_model: bool = False):
    """The figure's summary rows with every metric of each run as columns,
    one row per run (a ``seed`` column: the seed it ran)."""
    import pandas as pd

    rows = []
    for _, r in summary.iterrows():
        rec = {k: r[k] for k in PARAM_COLS if k in r}
        for k in ("n", "buffer", "sru_kb", "mss"):
            rec[k] = int(rec[k])
        rec["probretx_p"] = float(rec["probretx_p"])
        rec["dsr"] = bool(rec["dsr"])
        rec["header_compression"] = bool(rec["header_compression"])
        rec["limited_transmit"] = bool(rec.get("limited_transmit", False))
        rec["seed"] = int(r["seed"]) if "seed" in r and r["seed"] == r["seed"] else 1
        rec.update(metrics(r, with_model))
        # one run has no interval over seeds (by_point gives a point of
        # several seeds its own)
        rec.update({c: math.nan for c, how in SEED_AGG.items() if how.startswith("ci:")})
        rows.append(rec)
    return pd.DataFrame(rows)


def by_point(df, keys: Sequence[str] = POINT_KEYS):
    """Per-run rows (a ``seed`` column) as one row per ``keys`` value, with
    ``seeds`` the number of seeds: a point of one seed stays as it is (its
    ``ci`` columns NaN: no interval); a point of several takes
    :data:`SEED_AGG`'s aggregates, its parameter columns and label (seed
    1's, the point's label in a one-seed run) from its first seed, and no
    ``seed`` column (:func:`..framework.fold_seeds`)."""
    return fold_seeds(df, keys, SEED_AGG, first=PARAM_COLS)


def frame(summary, with_model: bool = False):
    """The figure's summary rows with every per-point metric as columns,
    one row per point: its seeds' runs folded by :func:`by_point` (the
    mean over seeds, counts summed, ``goodput_ci95`` and the other ``ci``
    columns over the seeds)."""
    return by_point(seed_frame(summary, with_model))


class Seeds:
    """A figure's runs, folded (:attr:`df`, :func:`frame`) and seed by seed:
    a claim's quantity is computed on the folded frame (each point's mean
    over its seeds); :meth:`each` computes it on each seed's own runs, for
    its interval (:meth:`with_ci`) or its range (:meth:`span`)."""

    def __init__(self, summary, with_model: bool = False):
        self._fold(seed_frame(summary, with_model))

    @classmethod
    def of_rows(cls, rows) -> "Seeds":
        """From per-run rows as :func:`seed_frame` gives them (a ``seed``
        column; seed 1 where there is none): a claim's input built by hand."""
        sd = cls.__new__(cls)
        sd._fold(rows if "seed" in rows.columns else rows.assign(seed=1))
        return sd

    def _fold(self, rows) -> None:
        self.df = by_point(rows)
        self.seeds: List[int] = sorted(set(int(s) for s in rows["seed"])) if len(rows) else []
        self._runs = {s: by_point(rows[rows["seed"] == s]) for s in self.seeds}

    def each(self, fn: Callable[[Any], Any]) -> List[float]:
        """``fn`` on each seed's runs (a one-seed frame), seed by seed."""
        return [float(fn(self._runs[s])) for s in self.seeds]

    def ci(self, fn: Callable[[Any], Any]) -> float:
        """The Student-t 95 % half-width of ``fn`` over the seeds (NaN for
        one seed: no interval)."""
        from ...analysis import ci95

        return float(ci95(self.each(fn))[1]) if len(self.seeds) > 1 else math.nan

    def with_ci(self, fn: Callable[[Any], Any]) -> Tuple[float, float]:
        """``(fn on the folded frame, its 95 % half-width over the seeds)``."""
        return float(fn(self.df)), self.ci(fn)

    def span(self, fn: Callable[[Any], Any], f: str = "{:.2f}", what: str = "") -> str:
        """``fn`` seed by seed, as a note ("seeds 1–5: 2 / 6 / 2 / 3 / 7");
        empty for one seed."""
        if len(self.seeds) < 2:
            return ""
        head = f"seeds {self.seeds[0]}–{self.seeds[-1]}" if self.seeds == list(
            range(self.seeds[0], self.seeds[-1] + 1)) else "seeds " + ", ".join(map(str, self.seeds))
        return f"{head}{' ' + what if what else ''}: " + _join(self.each(fn), f)


def _at(df, **kw):
    m = np.ones(len(df), dtype=bool)
    for k, v in kw.items():
        m &= (df[k] == v).to_numpy()
    return df[m]


def _series(df, col: str = "goodput_mbps", **kw: Any) -> Tuple[np.ndarray, np.ndarray]:
    d = _at(df, **kw).sort_values("n")
    return d["n"].to_numpy(dtype=int), d[col].to_numpy(dtype=float)


def _val(df, col: str, **kw) -> float:
    d = _at(df, **kw)
    return float(d[col].iloc[0]) if len(d) else math.nan


# ---------------------------------------------------------------- measures


def _at_value(col: str, v: Any) -> Dict[str, Any]:
    """``{col: v}`` as keyword arguments of :func:`_series` (typed, so that
    mypy does not take it for ``_series``'s own ``col``)."""
    return {col: v}


def onset(ns: Union[Sequence[int], np.ndarray], goodput: Union[Sequence[float], np.ndarray],
          frac: float = ONSET_FRACTION) -> Optional[int]:
    """Onset of the goodput collapse: the first n from which the goodput
    stays below ``frac`` × the best goodput with fewer servers (a dip that
    recovers at a larger n is not the onset). None if it never collapses."""
    order = np.argsort(np.asarray(ns))
    n = np.asarray(ns)[order]
    g = np.asarray(goodput, dtype=float)[order]
    for i in range(1, len(n)):
        peak = np.nanmax(g[:i])
        if np.nanmax(g[i:]) < frac * peak:
            return int(n[i])
    return None


def onset_gap(ns: Union[Sequence[int], np.ndarray], on: Optional[int]) -> str:
    """Where an onset found on a coarse grid may really lie: ", on this
    figure's grid (no n from 8 to 11)" when the grid skips the numbers
    just below it, else "". Fig. 4.2 has no runs at n = 8–11, so the same
    runs as Fig. 4.1's gave its 256 KB onset as 12 where Fig. 4.1, with
    them, says 9."""
    if on is None:
        return ""
    below = [int(n) for n in ns if int(n) < on]
    prev = max(below) if below else None
    if prev is None or prev >= on - 1:
        return ""
    skipped = f"n = {prev + 1}" if prev + 1 == on - 1 else f"n from {prev + 1} to {on - 1}"
    return f", on this figure's grid (no {skipped})"


#: |ln(model/sim)| is capped at ln 100: a model 100× off (or worse, or 0, or
#: infinite, or not computable where the simulation has a value) counts as
#: 100× off, so a point is never dropped from a fit metric for being bad.
LOG_CAP = math.log(100.0)


def capped_log_errors(model: Sequence[float], sim: Sequence[float]) -> np.ndarray:
    """Per point |ln(model/sim)|, capped at :data:`LOG_CAP`. Both 0: 0 (they
    agree). One of them 0, infinite or NaN: the cap."""
    m = np.asarray(model, dtype=float)
    s = np.asarray(sim, dtype=float)
    out = np.full(m.shape, LOG_CAP)
    both0 = (m == 0) & (s == 0)
    ok = np.isfinite(m) & np.isfinite(s) & (m > 0) & (s > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[ok] = np.minimum(np.abs(np.log(m[ok] / s[ok])), LOG_CAP)
    out[both0] = 0.0
    return out


def male(model: Sequence[float], sim: Sequence[float]) -> float:
    """Mean absolute log error: mean over every point of |ln(model/sim)|,
    capped at :data:`LOG_CAP` (an error of 2× counts ln 2 either way; a
    zero, infinite or missing value counts as the cap, never dropped)."""
    e = capped_log_errors(model, sim)
    return float(np.mean(e)) if len(e) else math.nan



def _fmt(v: Any, f: str = "{:.0f}") -> str:
    if v is None:
        return "none"
    if isinstance(v, float) and not math.isfinite(v):
        return "n/a"
    return f.format(v)


def _join(vals: Sequence[Any], f: str = "{:.0f}", sep: str = " / ") -> str:
    return sep.join(_fmt(v, f) for v in vals)


def _gmean(x: Union[Sequence[float], np.ndarray]) -> float:
    """Geometric mean of ratios, each clipped to [1/100, 100] (a 0 or an
    infinite ratio counts as 100× off, as in :func:`male`); only a NaN
    (0/0, both sides zero) counts as 1."""
    a = np.asarray(x, dtype=float)
    if not len(a):
        return math.nan
    a = np.where(np.isnan(a), 1.0, a)
    a = np.clip(a, math.exp(-LOG_CAP), math.exp(LOG_CAP))
    return float(np.exp(np.mean(np.log(a))))


def _gmean_values(x: Union[Sequence[float], np.ndarray]) -> float:
    """Geometric mean of goodputs (Mbps) over every point; a zero or missing
    goodput counts as 1 kbps (never dropped)."""
    a = np.asarray(x, dtype=float)
    if not len(a):
        return math.nan
    a = np.where(np.isfinite(a) & (a > 1e-3), a, 1e-3)
    return float(np.exp(np.mean(np.log(a))))


def _note_unfinished(df) -> List[str]:
    bad = df[df["unfinished"] > 0]
    return [f"{r['label']}: {int(r['unfinished'])} app(s) unfinished at the stop time" for _, r in bad.iterrows()]


# ---------------------------------------------------------------- plotting


def _long(df, cols: Dict[str, str], panel: Callable[[Any], str]):
    """Wide (one column per series) → long (series, mbps, panel) for facet_plot."""
    import pandas as pd

    parts = []
    for col, name in cols.items():
        d = df[["n", col]].rename(columns={col: "value"}).copy()
        d["series"] = name
        d["panel"] = [panel(r) for _, r in df.iterrows()]
        # the simulation's interval over its seeds (the models have none)
        parts.append(with_err(d, df) if col == "goodput_mbps" else d.assign(err=np.nan))
    return pd.concat(parts, ignore_index=True)


def with_err(long, df, col: str = "goodput_ci95", scale: float = 1.0):
    """``long`` (rows in ``df``'s order) with ``err``: ``df``'s interval
    over the seeds, drawn as error bars (NaN for a one-seed run)."""
    return long.assign(err=df[col].to_numpy(dtype=float) * scale if col in df else np.nan)


def _with_bars(ylabel: str) -> str:
    """"goodput (Mbps)" → "goodput (Mbps, ± 95 % over the seeds)"."""
    what = "± 95 % over the seeds"
    return ylabel[:-1] + f", {what})" if ylabel.endswith(")") else f"{ylabel} ({what})"


def _goodput_facets(long, path: Path, title: str, order: Sequence[str], facet_order: Sequence[str],
                    logy: bool = True, ylabel: str = "goodput at the client (Mbps)", ncols: Optional[int] = None,
                    linestyles: Optional[Dict[str, str]] = None, universe: Optional[Sequence[str]] = None):
    from ...plots import facet_plot

    bars = "err" in long and bool(long["err"].notna().any())
    # a panel none of these runs has (the byte-counted variant runs no
    # jittered hosts) is left out, not drawn empty on a default axis
    have = set(long["panel"])
    facet_order = [f for f in facet_order if f in have] or list(facet_order)
    if ncols is not None:
        ncols = min(ncols, len(facet_order))
    return facet_plot(long, "n", "value", "series", "panel", xlabel="number of servers n",
                      ylabel=_with_bars(ylabel) if bars else ylabel, title=title, path=path,
                      order=list(order), facet_order=list(facet_order), logy=logy, ncols=ncols,
                      linestyles=linestyles if linestyles is not None else MODEL_STYLE, universe=universe,
                      yerr="err" if bars else None)
