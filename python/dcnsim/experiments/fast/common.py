"""FaST (Hwang & Yoo, 2014): what the figures share — constants, scenarios, reading results."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...sweep import Point
from ..claims import Register
from ..framework import (
    fold_seeds,
    only_read_keys,
    read_table,
    rounds_not_done,
    seed_label,
    table_version,
)

# ---------------------------------------------------------------- constants

RACKS = 5
PER_RACK = 20
ROOT = 0
BG_HOST = 1 + RACKS * PER_RACK  # 101
HOST_RATE = "1Gbps"
CORE_RATE = "10Gbps"
DELAY = "25us"


def kb(x: float) -> str:
    """The paper's KB as a dcnsim size: 1 KB = 1000 B. Its eq. (7) gives
    N*max = 37.5 for B = 100 KB only with 1000 B (102 400 B gives 38.3),
    so its buffers, responses and background flow are read the same way."""
    return f"{round(x * 1000)}B"


TOR_BUFFER = kb(100)  # 100 000 B
AGG_BUFFER = kb(10_000)  # "10 MB" = 10^7 B
K_1G = "20pkt"
K_10G = "65pkt"
RTO_MIN = "10ms"
RESPONSE = kb(10)  # 10 000 B: 7 segments of 1460 B, not 8
MSS = 1460
#: ns-3 before 3.25 had no window scaling: TcpSocketBase capped the
#: advertised window at 65 535 B whatever the socket buffer
RWND = "65535B"
INIT_CWND = 2
HOST_JITTER = "1us"
QUERY_SPACING_S = 0.5  # fresh connections: query i starts at i * 0.5 s
PERSISTENT_GAP = "0s"
BG_SIZE = kb(10_000)  # the paper's 10 MB background flow, 10^7 B
BG_LEAD_S = 0.02  # the background flow starts 20 ms before its query

QUERIES = 100
QUICK_QUERIES = 10
NS: Tuple[int, ...] = tuple(range(10, 101, 10))
QUICK_NS: Tuple[int, ...] = (10, 30, 50, 70, 100)
#: seeds of each partition/aggregate point of Figs. 4–9 and 12. A point's
#: value is the mean of its seeds' means and its ± the Student-t 95 %
#: interval over those means: the seed is the unit of replication (it draws
#: the jitter of every query of the point). With fresh connections per
#: query, one seed's queries are independent and the seeds' means scatter
#: as the query intervals say (the five-seed run: seed-to-seed s.d. 0.90–0.98
#: of the within-seed s.e. at the median); with persistent connections a
#: query's state carries into the next and they do not (up to 4.7×; an
#: audit's fast_incast.toml: seeds' means 12.09–13.55 ms against ±0.03 ms
#: within one seed). The quick run keeps one seed (its ± is then over the
#: queries, as it says).
SEEDS: Tuple[int, ...] = (1, 2, 3, 4, 5)
QUICK_SEEDS: Tuple[int, ...] = (1,)

#: (series name, key used in labels, tcp keys)
SERIES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("NewReno", "newreno", {"cc": "newreno"}),
    ("DCTCP", "dctcp", {"cc": "dctcp"}),
    ("FaST", "fast", {"cc": "fast", "fast_seg_rule": "continuous"}),
    ("FaST, eq. 9 literal", "fastlit", {"cc": "fast", "fast_seg_rule": "literal"}),
]
SERIES_NAMES = [s[0] for s in SERIES]
MAIN3 = SERIES_NAMES[:3]
LINESTYLES = {"FaST, eq. 9 literal": "--"}

PAPER_QCT_N100_MS = {"NewReno": 72.0, "DCTCP": 43.0, "FaST": 16.0}

#: the paper's claims, judged here (claims.toml); the figures only measure
REGISTER = Register.load(Path(__file__).with_name("claims.toml"))

# ---------------------------------------------------------------- scenarios


def rack_of(h: int) -> int:
    """Rack of server h (1..100): hosts are numbered round-robin over the racks."""
    return (h - 1) % RACKS


def worker_hosts(n: int) -> str:
    """The n workers, hosts 1..n: host h is in rack (h − 1) mod 5, so any n
    workers are spread evenly over the racks (20 per rack at n = 100)."""
    if not 1 <= n <= RACKS * PER_RACK:
        raise ValueError(f"n must be in 1..{RACKS * PER_RACK}, got {n}")
    return f"1-{n}"


@lru_cache(maxsize=8)
def _topology(bg_rate: str) -> str:
    import json

    nodes = [{"name": "root", "kind": "host"}]
    nodes += [{"name": f"s{h}", "kind": "host"} for h in range(1, RACKS * PER_RACK + 1)]
    nodes.append({"name": "bg", "kind": "host"})
    for r in range(RACKS):
        nodes += [{"name": f"tor{r}", "kind": "switch"}, {"name": f"up{r}", "kind": "switch"}]
    nodes.append({"name": "agg", "kind": "switch"})

    def edge(host: str, rack: int, rate: str = HOST_RATE) -> Dict[str, Any]:
        return {"a": host, "b": f"tor{rack}", "rate": rate, "delay": DELAY, "buffer": TOR_BUFFER, "ecn_k": K_1G}

    links = [edge("root", 0)]
    links += [edge(f"s{h}", rack_of(h)) for h in range(1, RACKS * PER_RACK + 1)]
    links.append(edge("bg", 1, bg_rate))
    for r in range(RACKS):
        links.append({"a": f"tor{r}", "b": f"up{r}", "rate": CORE_RATE, "delay": DELAY,
                      "buffer": TOR_BUFFER, "ecn_k": K_10G})
        links.append({"a": f"up{r}", "b": "agg", "rate": CORE_RATE, "delay": "0s",
                      "buffer": AGG_BUFFER, "ecn_k": K_10G})
    return json.dumps({"kind": "custom", "nodes": nodes, "links": links, "nic_buffer": "100pkt"})


def topology(bg_rate: str = HOST_RATE) -> Dict[str, Any]:
    """The paper's two-tier topology as a ``custom`` topology (see the module
    doc): host 0 the root (ToR 0), hosts 1–100 the servers (host h on ToR
    (h − 1) mod 5), host 101 the background sender (ToR 1, at ``bg_rate``)."""
    import json

    return json.loads(_topology(bg_rate))


def tcp(series: Dict[str, Any], init_cwnd: int = INIT_CWND, **over: Any) -> Dict[str, Any]:
    """The [tcp] table: every setting the paper leaves implicit is explicit."""
    t: Dict[str, Any] = {
        "cc": "newreno",
        "mss": MSS,
        "init_cwnd": init_cwnd,
        "rwnd": RWND,
        "rto_min": RTO_MIN,
        "delayed_ack": False,
        "sack": False,
        # ns-3's TcpNewReno of 2013-14 had RFC 3042 as an attribute,
        # LimitedTransmit, false by default (on by default only since the
        # TCP rewrite of ns-3.25); dcnsim's default is on (RFC 5681's SHOULD)
        "limited_transmit": False,
        # ns-3's TcpNewReno (and the DCTCP and FaST built on it) added
        # SMSS²/cwnd per ACK in congestion avoidance; dcnsim counts bytes
        "ca_increase": "per_ack",
        # and one segment per new ACK in slow start, whatever it acked
        # (validation/ns3_incast's --abc-limit auto, issue 26 §3)
        "abc_limit": 1,
        # ns-3's SACK recovery of 2013-14 had no PRR (TcpPrrRecovery came
        # with ns-3.29): RFC 6675's rate, dcnsim's "rfc6675"
        "reduction": "rfc6675",
        # and found losses by duplicate ACKs only: no RACK (dcnsim's
        # default with SACK since issue 24)
        "recovery": "dupack",
        "dctcp_g": 0.0625,
    }
    t.update(series)
    if t["cc"] == "fast":
        t.update({"fast_g": 0.0625, "fast_wmin": 2, "fast_smin": "100B", "fast_probe_segments": 3})
        t.setdefault("fast_seg_rule", "continuous")
    t.update(over)
    return only_read_keys(t)


#: the congestion controls whose packets are ECN-capable without ``ecn = true``
#: (the core's ``CcKind::needs_ecn``)
ECN_CCS = ("dctcp", "fast")


def _sends_ect(tcp_table: Dict[str, Any]) -> bool:
    return bool(tcp_table.get("ecn")) or tcp_table.get("cc", "newreno") in ECN_CCS


def as_run(doc: Dict[str, Any]) -> Dict[str, Any]:
    """A figure's scenario as it runs: the paper's switches mark at K
    whatever the transport, but a NewReno packet is not ECN-capable and
    dcnsim marks only those, so for a transport that sends none the
    thresholds (the topology's and every custom link's ``ecn_k``, ``agg_ecn_k``,
    ...) change nothing and are left out, which also spares the user the
    scenario's warning that they change nothing (docs/fast.md, Setup).
    For the figures' points only: a document built here and then given
    another transport (the modern schemes reuse :func:`pa_scenario`) keeps
    its thresholds, and so does one whose ports drop what they cannot mark
    (``ecn_non_ect = "drop"``: there the thresholds drop NewReno's packets)."""
    if any(_sends_ect({**doc["tcp"], **app.get("tcp", {})}) for app in doc["apps"]):
        return doc
    if doc["topology"].get("ecn_non_ect") == "drop":
        return doc
    topo = {k: v for k, v in doc["topology"].items() if not k.endswith("ecn_k")}
    if "links" in topo:
        topo["links"] = [{k: v for k, v in link.items() if not k.endswith("ecn_k")} for link in topo["links"]]
    return {**doc, "topology": topo}


def _doc(name: str, topo: Dict[str, Any], tcp_table: Dict[str, Any], apps: List[Dict[str, Any]], stop_s: float,
         l2_overhead: int = 0, host_jitter: str = HOST_JITTER) -> Dict[str, Any]:
    d: Dict[str, Any] = {
        "name": name,
        "seed": 1,
        "stop": f"{stop_s:g}s",
        "l2_overhead": l2_overhead,
        "host_jitter": host_jitter,
        "topology": topo,
        "routing": {"mode": "single"},
        "tcp": tcp_table,
        "apps": apps,
    }
    return d


@dataclass(frozen=True)
class PaConfig:
    """How a partition/aggregate experiment is run (what the paper leaves open)."""

    connections: str = "fresh"  # "fresh": new connections per query; "persistent": one set, reused
    init_cwnd: int = INIT_CWND
    gap: str = PERSISTENT_GAP  # persistent: time from a query's end to the next query
    delayed_ack: bool = False
    sack: bool = False
    limited_transmit: bool = False
    l2_overhead: int = 0
    host_jitter: str = HOST_JITTER
    bg: Optional[str] = None  # background sender's link rate, None = no background flow

    def key(self) -> str:
        parts = ["bg" + self.bg.replace("Gbps", "g").replace("Mbps", "m") if self.bg else "pa",
                 "persist" if self.connections == "persistent" else "fresh", f"ic{self.init_cwnd}"]
        if self.connections == "persistent" and self.gap != PERSISTENT_GAP:
            parts.append("gap" + self.gap)
        if self.delayed_ack:
            parts.append("delack")
        if self.sack:
            parts.append("sack")
        if self.limited_transmit:
            parts.append("lt")
        if self.l2_overhead:
            parts.append(f"l2{self.l2_overhead}")
        if self.host_jitter != HOST_JITTER:
            parts.append("jit" + self.host_jitter)
        return "-".join(parts)


BASE = PaConfig()


def pa_scenario(n: int, series: Dict[str, Any], cfg: PaConfig = BASE, queries: int = QUERIES,
                name: str = "fast-pa") -> Dict[str, Any]:
    """n workers answer ``queries`` queries of the root with 10 KB each.

    ``fresh``: query i is its own partition/aggregate app starting at
    i·0.5 s with its own connections (so the FaST probing stage and the
    initial window apply to every query). ``persistent``: one app, the
    connections (and their cwnd, α, vwnd) carry over; the next query starts
    ``gap`` after the previous one ends. With ``bg``, each query has its own
    10 MB background flow from host 101 to the root that starts 20 ms
    earlier (fresh connections only)."""
    workers = worker_hosts(n)
    t = tcp(series, cfg.init_cwnd, delayed_ack=cfg.delayed_ack, sack=cfg.sack, limited_transmit=cfg.limited_transmit)
    apps: List[Dict[str, Any]] = []
    if cfg.connections == "fresh":
        for i in range(queries):
            t0 = i * QUERY_SPACING_S
            if cfg.bg:
                apps.append({"kind": "bulk", "src": BG_HOST, "dst": ROOT, "size": BG_SIZE, "start": f"{t0:g}s"})
                t0 += BG_LEAD_S
            apps.append({"kind": "partition_aggregate", "aggregator": ROOT, "workers": workers,
                         "response": RESPONSE, "queries": 1, "start": f"{t0:g}s"})
        stop = queries * QUERY_SPACING_S + 30
    elif cfg.connections == "persistent":
        if cfg.bg:
            raise ValueError("a background flow per query needs fresh connections")
        apps.append({"kind": "partition_aggregate", "aggregator": ROOT, "workers": workers,
                     "response": RESPONSE, "queries": queries, "gap": cfg.gap})
        stop = queries * 1.0 + 30
    else:
        raise ValueError(f"connections must be 'fresh' or 'persistent', got {cfg.connections!r}")
    topo = topology(bg_rate=cfg.bg or HOST_RATE)
    return _doc(name, topo, t, apps, stop, l2_overhead=cfg.l2_overhead, host_jitter=cfg.host_jitter)


def _pa_point(cfg: PaConfig, series: Tuple[str, str, Dict[str, Any]], n: int, queries: int,
              seed: int = 1) -> Point:
    name, skey, keys = series
    label = seed_label(f"{cfg.key()}-{skey}-n{n:03d}", seed)
    params = {"config": cfg.key(), "connections": cfg.connections, "init_cwnd": cfg.init_cwnd,
              "background": cfg.bg or "none", "series": name, "n": n}
    doc = as_run(pa_scenario(n, keys, cfg, queries, name=label))
    return Point(label, {**doc, "seed": seed}, seed, params)


def _pa_points(cfgs: Sequence[PaConfig], ns: Sequence[int], quick: bool,
               series: Sequence[Tuple[str, str, Dict[str, Any]]] = tuple(SERIES),
               seeds: Optional[Sequence[int]] = None) -> List[Point]:
    """Every (configuration, series, n) point on each of ``seeds`` (the
    run's: :data:`SEEDS`, or :data:`QUICK_SEEDS` in a quick run)."""
    q = QUICK_QUERIES if quick else QUERIES
    if seeds is None:
        seeds = QUICK_SEEDS if quick else SEEDS
    return [_pa_point(c, s, n, q, seed) for c in cfgs for s in series for n in ns for seed in seeds]


# ---------------------------------------------------------------- reading results


@lru_cache(maxsize=4096)
def _pa_metrics(point_dir: str, mtime: float) -> Dict[str, float]:
    """Per-point metrics of a partition/aggregate run (cached per file version)."""
    from ...analysis import ci95, servers_timeouts

    q = read_table(point_dir, "queries")
    qct = q["qct_s"].astype(float)
    # The workers' timeouts, as the paper counts them (and Fig. 6 per worker;
    # its ns-3 sockets carry the ACK of a query on the response): the query
    # flows' own were up to 16 % of the total per query at n = 100 for
    # NewReno and DCTCP, none for FaST.
    to = servers_timeouts(q)
    done = qct.dropna()
    out = {
        "queries": float(len(q)),
        # the queries table holds finished queries only: the rest are the apps' own count less its rows
        "unfinished": rounds_not_done(point_dir, "queries"),
        "qct_mean_ms": float(done.mean() * 1e3) if len(done) else math.nan,
        # Student-t 95 % half-width of the mean over the point's queries
        "qct_ci95_ms": float(ci95(done.tolist())[1] * 1e3) if len(done) >= 2 else math.nan,
        "qct_p50_ms": float(done.median() * 1e3) if len(done) else math.nan,
        "qct_p99_ms": float(np.percentile(done, 99) * 1e3) if len(done) else math.nan,
        "qct_max_ms": float(done.max() * 1e3) if len(done) else math.nan,
        "timeouts_per_query": float(to.mean()) if len(q) else math.nan,
        # the same half-width for the timeouts, so that a claim over n can weigh each point by its noise
        "timeouts_ci95": float(ci95(to.tolist())[1]) if len(q) >= 2 else math.nan,
        "request_timeouts_per_query": (float(q["request_timeouts"].astype(float).mean())
                                       if len(q) and "request_timeouts" in q else math.nan),
    }
    # fresh connections: every query is its own app, started on a fixed grid;
    # report any query still running when the next one starts
    qs = q.sort_values("start_s")
    ends = qs["end_s"].astype(float).to_numpy()
    starts = qs["start_s"].astype(float).to_numpy()
    out["overlaps"] = float(np.sum(ends[:-1] > starts[1:])) if len(qs) > 1 else 0.0
    return out


def pa_metrics(row: Any) -> Dict[str, float]:
    d = Path(row["dir"])
    return _pa_metrics(str(d), table_version(d, "queries"))


def _flows(row: Any, cols: Sequence[str]):
    return read_table(row, "flows", columns=cols)


#: how a point's per-seed metrics become the point's: a mean over the
#: seeds' values, a sum (counts), the largest, or a ``ci:`` column, the
#: Student-t 95 % half-width over the seeds' values of the column named
#: (replacing one seed's half-width over its queries or flows); a column
#: not listed is a mean
SEED_AGG: Dict[str, str] = {
    "queries": "sum", "unfinished": "sum", "overlaps": "sum", "bg_overruns": "sum",
    "qct_max_ms": "max",
    "qct_ci95_ms": "ci:qct_mean_ms", "timeouts_ci95": "ci:timeouts_per_query",
    "bg_throughput_ci95": "ci:bg_throughput_mbps",
}

PA_KEYS = ("config", "connections", "init_cwnd", "background", "series", "n")


def pa_frame(summary, keys: Sequence[str] = (), extra: Optional[Callable[[Any], Dict[str, float]]] = None) -> Any:
    """The summary rows with the per-point PA metrics as columns (and
    ``extra(row)``'s), one row per point: a point run on several seeds
    is one row of :data:`SEED_AGG`'s aggregates, labelled by its first
    seed's label, with ``seeds`` the number of seeds. ``keys`` are more
    parameter columns of the summary that tell points apart."""
    import pandas as pd

    rows = []
    for _, r in summary.iterrows():
        rec = {k: r[k] for k in ("label", *PA_KEYS, *keys) if k in r}
        for k in ("n", "init_cwnd"):
            if k in rec and rec[k] == rec[k]:  # not NaN
                rec[k] = int(rec[k])
        rec["seed"] = int(r["seed"]) if "seed" in r and r["seed"] == r["seed"] else 1
        rec.update(pa_metrics(r))
        if extra is not None:
            rec.update(extra(r))
        rows.append(rec)
    df = pd.DataFrame(rows)
    return by_point(df, [k for k in (*PA_KEYS, *keys) if k in df.columns])


def by_point(df, keys: Sequence[str]) -> Any:
    """Per-seed rows (a ``seed`` column) as one row per ``keys`` value:
    a point of one seed stays as it is (its intervals over its queries or
    flows); a point of several takes :data:`SEED_AGG`'s aggregates
    (:func:`..framework.fold_seeds`)."""
    return fold_seeds(df, keys, SEED_AGG)


def _at(df, **kw) -> Any:
    m = np.ones(len(df), dtype=bool)
    for k, v in kw.items():
        m &= (df[k] == v).to_numpy()
    return df[m]


def _val(df, col: str, **kw) -> float:
    d = _at(df, **kw)
    return float(d[col].iloc[0]) if len(d) else math.nan


def diff_ci(df, col: str, ci: str, a: Dict[str, Any], b: Dict[str, Any], scale_b: float = 1.0,
            ns: Optional[Sequence[int]] = None) -> Dict[int, Tuple[float, float]]:
    """Per n: ``col`` of the rows selected by ``a`` minus ``scale_b`` × that
    of ``b``, with the 95 % half-width of the difference (``ci`` is each
    point's half-width; the runs are not paired, so they add in
    quadrature)."""
    da = _at(df, **a).set_index("n")
    db = _at(df, **b).set_index("n")
    out = {}
    for n in sorted(set(da.index) & set(db.index)):
        if ns is not None and n not in ns:
            continue
        out[int(n)] = (float(da.loc[n, col] - scale_b * db.loc[n, col]),
                       float(math.hypot(da.loc[n, ci], scale_b * db.loc[n, ci])))
    return out


def _first_n(df, col: str, **kw) -> Optional[int]:
    """Smallest n with col > 0 (None if never)."""
    d = _at(df, **kw).sort_values("n")
    hit = d[d[col] > 0]
    return int(hit["n"].iloc[0]) if len(hit) else None


def _panel_name(cfg_key: str) -> str:
    """Short panel title of a configuration key."""
    c = cfg_key.split("-")
    ic = [x for x in c if x.startswith("ic")][0][2:]
    if c[0].startswith("bg"):
        return f"background sender at {c[0][2:-1]} Gbps · init_cwnd {ic}"
    conn = "fresh connections per query" if "fresh" in c else "persistent connections"
    return f"{conn} · init_cwnd {ic}"


def _overlap_notes(df) -> List[str]:
    notes = []
    bad = df[(df.get("overlaps", 0) > 0) | (df.get("unfinished", 0) > 0)] if len(df) else df
    for _, r in bad.iterrows():
        notes.append(f"{r['label']}: {int(r['overlaps'])} queries still running when the next started, "
                     f"{int(r['unfinished'])} unfinished — its means are biased")
    return notes
