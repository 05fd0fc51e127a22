"""Differential incast harness: the same partition/aggregate incast in dcnsim
and in ns-3 3.37, fast recoveries and timeouts per query side by side.

Usage (from the repository root, with dcnsim importable and Debian's
``libns3-dev`` installed)::

    python validation/ns3_incast/run.py                      # n = 30, 50, 70; NewReno and DCTCP
    python validation/ns3_incast/run.py --n 30 50 70 100 --queries 100 --ns3-workarounds --markdown
    python validation/ns3_incast/run.py --n 50 --cc newreno --queries 40 --ca-increase bytes
    python validation/ns3_incast/run.py --tcp limited_transmit=false   # dcnsim before issue 18
    python validation/ns3_incast/run.py --connections fresh  # a new connection per query
    python validation/ns3_incast/run.py --only dcnsim        # without ns-3
    python validation/ns3_incast/run.py --cc linuxreno       # ns-3's byte-counting Reno
    python validation/ns3_incast/run.py --setup fast --connections fresh --n 30   # FaST's transport
    python validation/ns3_incast/run.py --setup fast --connections fresh --n 30 100 --delayed-ack 2
    python validation/ns3_incast/run.py --red --cc newreno   # RED-with-ECN ports for every transport
    python validation/ns3_incast/run.py --setup fast --topology two-tier --connections fresh --n 30 100
    python validation/ns3_incast/run.py --setup fast --topology two-tier --bg --connections fresh --n 100
    python validation/ns3_incast/run.py --setup fast --connections fresh --ns3-queues   # ns-3's queue counting

The scenario (issue 18): a star of n workers and one aggregator, 1 Gbps,
25 µs links, 100,000 B per switch port, ECN threshold K = 20 packets (DCTCP:
RED with ECN, which marks its packets, ACKs included, and would drop any
other at K; NewReno's ports are plain drop-tail queues), RTOmin
10 ms, initial window 10, MSS 1448 with timestamps (1500-byte IP packets,
2 bytes of point-to-point framing), SACK, no delayed ACKs, 64-byte
requests and 10,000-byte responses, no host jitter, equal-time events in
ns-3's order (dcnsim ``ties = "fifo"``; ``--ties seeded``: dcnsim's own
default). ``persistent``
(default): one connection per worker carries every query, the next query
starting ``--gap`` after the previous one ends; ``fresh``: each query opens
new connections (ns-3: handshake 20 ms before the query), queries 0.2 s
apart. Per query: the workers' fast recoveries and timeouts, the drops and
ECN marks at the aggregator's switch port, the mean and 99th-percentile
query completion time; per worker and query (the FaST paper's Fig. 6),
the fraction of workers × queries with two or more timeouts and the most
one worker took (each query's per-worker counts must add up to its
timeouts, on both sides). ``--rto-timeline``: after each row, its first
query's timeouts worker by worker on that side (when each RTO fired after
the query's start, each worker's course of RTOs and how many workers took
it; ns-3 runs with incast.cc's ``--verbose=1`` for it). ``--red``: every transport's ports are RED with ECN
at K (ns-3's RedQueueDisc with UseEcn, MinTh = MaxTh = K; dcnsim's
``ecn_k`` with ``ecn_non_ect = "drop"``), so a packet that is not
ECN-capable (NewReno's, any pure ACK) is dropped at K. A query that does not complete (a stalled flow)
fails the run loudly; ns-3.37's TcpDctcp needs ``--ns3-workarounds`` for
that (validation/README.md). ``--check R`` judges each point: dcnsim's mean
and 99th-percentile QCT within a factor R of ns-3's, DIFFERS otherwise, and
the exit status 1 if any point differs. This is a tool, not a test: nothing
in CI runs it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import ns3_common as common  # noqa: E402  (validation/: shared with ns3_rps)

SOURCE = HERE / "incast.cc"
SPACING_S = 0.2  # fresh connections: query starts this far apart
#: ``--bg``: the FaST paper's background flow (experiments/fast: 10^7 B from
#: its own host on ToR 1, starting 20 ms before each query), and queries
#: 0.5 s apart, as the reproduction's, so that a slow query ends first
BG_BYTES = 10_000_000
BG_LEAD_S = 0.02
#: query q's background flow starts BG_LEAD_S + q·BG_LEAD_STEP_S before it:
#: without jitter every query would meet the flow at the same point of its
#: sawtooth (one phase, one outcome in both simulators); stepping the lead
#: by 1 ms samples the phases (20 queries: leads 20-39 ms)
BG_LEAD_STEP_S = 0.001
BG_SPACING_S = 0.5
#: ``--bg``'s send buffer in ns-3, the FaST setup's 65,535 B receive window:
#: ns-3.37 crashes (TcpRateLinux::SkbSent on a null item) once a long flow's
#: losses meet a receive window below its send buffer (128 KiB by default),
#: so the background flow runs the reproduction's window only with its send
#: buffer no larger (the responses, 10 kB, never reach either)
BG_SNDBUF = 65535

#: Named setups: ns-3 program flags and the matching dcnsim overrides.
#: ``issue18``: the scenario above. ``fast``: the FaST paper's transport on
#: the same star (its ns-3 of 2013-14: initial window 2, MSS 1460 without
#: timestamps, no SACK, no Limited Transmit, no window scaling, so at most
#: 65,535 B advertised: a 65,535 B receive buffer here; the paper's KB is
#: 1000 B, so 100,000 B ports, as experiments/fast since issue 26; its
#: two-tier topology: ``--topology two-tier``). ``ns3_loss_based``: flags
#: for NewReno and TcpLinuxReno alone: that ns-3 had no PRR (TcpPrrRecovery
#: came with ns-3.29), so their loss recovery is ns-3.37's classic one, as
#: experiments/fast's ``reduction = "rfc6675"``; DCTCP keeps ns-3.37's PRR,
#: which its work-arounds (--cwr-exit) need.
SETUPS: Dict[str, Dict[str, Any]] = {
    "issue18": {"ns3": [], "tcp": {}, "buffer": "100000B"},
    "fast": {"ns3": ["--iw=2", "--mss=1460", "--sack=0", "--timestamps=0", "--lt=0", "--rcvbuf=65535",
                     "--buffer=100000B"],
             "ns3_loss_based": ["--recovery=classic"],
             "tcp": {"init_cwnd": 2, "mss": 1460, "header": 40, "sack": False, "limited_transmit": False,
                     "rwnd": "65535B"},
             "buffer": "100000B"},
}


def setup_ns3_flags(setup: Dict[str, Any], cc: str) -> List[str]:
    """A setup's incast.cc flags for ``cc``: its own, and for the loss-based
    algorithms its ``ns3_loss_based`` ones."""
    return list(setup["ns3"]) + (list(setup.get("ns3_loss_based", [])) if cc != "dctcp" else [])


def ns3_binary(build_dir: Path) -> Path:
    """Compile incast.cc against the installed ns-3 (once per source change)."""
    return common.ns3_binary(SOURCE, build_dir)


#: ns-3 flags of the opt-in work-arounds for ns-3.37 TcpDctcp's stall
#: (validation/README.md): DCTCP's cut floored at 2 segments, and CWR left on
#: the ACK of the recovery point. Only the DCTCP runs take them.
NS3_WORKAROUNDS = ["--dctcp-floor=1", "--cwr-exit=1"]


class Unfinished(RuntimeError):
    """A query whose responses did not all arrive: its row would be wrong."""


def run_ns3(exe: Path, n: int, cc: str, queries: int, connections: str, gap_s: float,
            extra: Optional[List[str]] = None, spacing_s: float = SPACING_S) -> List[Dict[str, float]]:
    args = [str(exe), f"--n={n}", f"--cc={cc}", f"--queries={queries}", f"--spacing={spacing_s}",
            f"--persistent={int(connections == 'persistent')}", f"--gap={gap_s}", *(extra or [])]
    out = common.run_program(args, "--ns3-args")
    unfinished = [line for line in out.splitlines() if " unfinished " in line]
    if unfinished:
        # A stalled flow never completes its query (and with persistent
        # connections no later query starts): means over the rest would
        # describe another experiment, so there is no row at all.
        raise Unfinished(f"ns-3 {cc} n = {n}: {len(unfinished)} of {queries} queries did not complete "
                         f"(first: {unfinished[0]!r}); {' '.join(args)}")
    rows = []
    per_worker: Dict[int, List[int]] = {}
    # with incast.cc's --verbose=1: each query's start and each RTO (µs)
    starts: Dict[int, float] = {}
    rtos: Dict[int, List[Tuple[int, float]]] = {}
    # with --bg=1: flow i's (query i's) background throughput, Mbps, and
    # the kB it sent again
    bg: Dict[int, Tuple[float, float]] = {}
    for line in out.splitlines():
        m = re.match(r"query (\d+) fast_recoveries (\d+) timeouts (\d+) qct_us (\S+) drops (\d+) marks (\d+)", line)
        if m:
            rows.append({"query": int(m[1]), "fast_recoveries": float(m[2]), "timeouts": float(m[3]),
                         "qct_ms": float(m[4]) / 1e3, "drops": float(m[5]), "marks": float(m[6])})
        elif line.startswith("worker_timeouts "):
            q, *counts = (int(x) for x in line.split()[1:])
            per_worker[q] = counts
        elif line.startswith("query_start "):
            _, q_text, t_us = line.split()
            starts[int(q_text)] = float(t_us)
        elif line.startswith("background "):
            m = re.match(r"background (\d+) bytes (\d+) connected_us (\S+) done_us (\S+) resent_bytes (\d+)",
                         line)
            if not m:
                raise Unfinished(f"ns-3 {cc} n = {n}: a background flow did not finish ({line!r}); "
                                 f"{' '.join(args)}")
            # bits per µs: Mbps
            bg[int(m[1])] = (int(m[2]) * 8 / (float(m[4]) - float(m[3])), int(m[5]) / 1e3)
        elif line.startswith("event ") and line.endswith(" rto"):
            _, q_text, w_text, t_us, _ = line.split()
            rtos.setdefault(int(q_text), []).append((int(w_text), float(t_us)))
    if len(rows) != queries:
        raise Unfinished(f"ns-3 {cc} n = {n}: {len(rows)} of {queries} query lines; {' '.join(args)}")
    for r in rows:
        q = int(r.pop("query"))
        if q in starts:
            r["rto_ms"] = [[] for _ in range(n)]
            for w, t_us in rtos.get(q, []):
                r["rto_ms"][w].append((t_us - starts[q]) / 1e3)
        counts = per_worker.get(q)
        # each worker's share of the query's timeouts (incast.cc counts both
        # from the same RTO trace): a line that does not add up is a bug
        if counts is None or len(counts) != n or sum(counts) != r["timeouts"]:
            raise RuntimeError(f"ns-3 {cc} n = {n}: per-worker timeouts {counts} do not add up to the "
                               f"query's {r['timeouts']:g}; {' '.join(args)}")
        r["worker_timeouts"] = counts
        if q in bg:
            r["bg_mbps"], r["bg_resent_kb"] = bg[q]
    return rows


#: ``--topology two-tier``'s ns-3 flags: experiments/fast's two-tier
#: topology (incast.cc builds it; dcnsim runs the reproduction's own
#: ``custom`` topology, :func:`two_tier_topology`).
TWO_TIER_NS3 = ["--two-tier=1"]


def two_tier_topology() -> Dict[str, Any]:
    """The FaST paper's two-tier topology as the reproduction builds it
    (dcnsim.experiments.fast: 5 ToRs, worker h on ToR (h − 1) mod 5, the
    aggregator, host 0, on ToR 0; 100,000 B ports with K = 20 packets at
    1 Gbps, 65 at 10 Gbps; 10^7 B at the aggregation switch; hosts' own
    queues 100 packets), whose incast.cc twin is ``--two-tier=1``."""
    from dcnsim.experiments.fast.common import topology

    return topology()


def dcnsim_scenario(n: int, cc: str, queries: int, connections: str, gap_s: float,
                    tcp_over: Optional[Dict[str, Any]] = None, buffer: str = "100000B",
                    red: bool = False, ties: str = "fifo", two_tier: bool = False,
                    bg: bool = False) -> Dict[str, Any]:
    """The same incast as incast.cc, as a dcnsim scenario document.

    ``bg`` (two-tier, fresh connections): incast.cc's ``--bg=1``, a
    background flow of :data:`BG_BYTES` from the topology's background host
    to the aggregator :data:`BG_LEAD_S` before each query, queries
    :data:`BG_SPACING_S` apart.

    ``ties = "fifo"`` (the default here) is ns-3's order of equal-time
    events; dcnsim's own default has been ``"seeded"`` since 2026-11-28, and
    on this star, where 100 workers' packets meet at one port at the same
    instants, it moves the rows (NewReno n = 70, 100 queries: 38.6 timeouts
    per query FIFO, 34.6 seeded; the FaST setup's fresh queries stop being
    identical), so the harness names the order instead of inheriting it."""
    tcp: Dict[str, Any] = {"cc": "newreno" if cc == "linuxreno" else cc, "mss": 1448, "header": 52, "init_cwnd": 10, "rto_min": "10ms",
                           "sack": True, "delayed_ack": False, "rwnd": "1MB",
                           # ns-3 3.37 detects loss by duplicate ACKs and SACK (RFC 6675), not RACK.
                           "recovery": "dupack"}
    tcp.update(tcp_over or {})
    pa = {"kind": "partition_aggregate", "aggregator": 0, "workers": f"1-{n}", "response": "10000B",
          "request": "64B"}
    if bg and (connections != "fresh" or not two_tier):
        raise ValueError("a background flow needs the two-tier topology and fresh connections")
    if connections == "persistent":
        apps = [dict(pa, queries=queries, gap=f"{gap_s:g}s", start="0.1s")]
        stop = 0.1 + queries * 1.0 + 5
    else:
        spacing = BG_SPACING_S if bg else SPACING_S
        apps = [dict(pa, queries=1, start=f"{0.1 + q * spacing:g}s") for q in range(queries)]
        if bg:
            from dcnsim.experiments.fast.common import BG_HOST

            apps += [{"kind": "bulk", "src": BG_HOST, "dst": 0, "size": f"{BG_BYTES}B",
                      "start": f"{0.1 + q * spacing - BG_LEAD_S - q * BG_LEAD_STEP_S:g}s"} for q in range(queries)]
        stop = 0.1 + queries * spacing + 5
    topology: Dict[str, Any] = {"kind": "star", "hosts": n + 1, "rate": "1Gbps", "delay": "25us", "buffer": buffer}
    if two_tier:
        if red:
            raise ValueError("--red is for the star: the two-tier's ports are the reproduction's")
        topology = two_tier_topology()
        if cc == "dctcp":
            # incast.cc's ports are RED with ECN at each K: what is not
            # ECN-capable is dropped there (the reproduction queues it)
            topology["ecn_non_ect"] = "drop"
        else:
            # and drop-tail FIFOs for NewReno, whose packets nothing marks
            # (the same run as with the reproduction's ecn_k, which warns so)
            for link in topology["links"]:
                link.pop("ecn_k", None)
    elif cc == "dctcp" or red:
        # incast.cc's RED queue disc at K (for DCTCP, or any cc with --red)
        # marks what is ECN-capable and drops the rest there; without it
        # the ports are drop-tail FIFOs, as without ecn_k here
        topology["ecn_k"] = "20pkt"
        topology["ecn_non_ect"] = "drop"
    return {
        "name": f"ns3-incast-{cc}-{n}", "seed": 1, "stop": f"{stop:g}s", "l2_overhead": 2, "host_jitter": "0s",
        # to the same stop as incast.cc's Simulator::Stop, not the last
        # query's end: the timers that fire after it count as in ns-3
        "ties": ties, "until": "stop",
        "topology": topology, "routing": {"mode": "single"}, "tcp": tcp, "apps": apps,
    }


def as_ns3_queues(doc: Dict[str, Any]) -> Dict[str, Any]:
    """``doc`` with every switch port counting as incast.cc's queue discs
    do (``--ns3-queues``). dcnsim's port holds the packet on the wire in its
    buffer and marks when its occupancy before a packet exceeds K packets;
    ns-3 keeps two full packets outside the queue disc (the one on the wire
    and the device queue's one), and RED compares the queue disc's bytes
    with K full IP packets, K·(MSS + header) B. So each buffer grows by two
    full packets and each K in packets becomes K·(MSS + header) B plus the
    same two packets. An
    approximation (ns-3 counts IP bytes, dcnsim wire bytes; the two outside
    packets are full only while the port is busy), for seeing how much of a
    difference the counting makes."""
    from dcnsim.units import parse_count, parse_size

    tcp = doc["tcp"]
    outside = 2 * (tcp["mss"] + tcp["header"] + doc["l2_overhead"])

    def port(table: Dict[str, Any]) -> None:
        if "buffer" in table:
            table["buffer"] = f"{int(parse_size(table['buffer']).binary) + outside}B"
        k = table.get("ecn_k")
        if isinstance(k, str) and k.endswith("pkt"):
            table["ecn_k"] = f"{int(parse_count(k)) * (tcp['mss'] + tcp['header']) + outside}B"

    doc = json.loads(json.dumps(doc))
    topo = doc["topology"]
    for table in topo.get("links", [topo]):
        port(table)
    return doc


def run_dcnsim(n: int, cc: str, queries: int, connections: str, gap_s: float,
               tcp_over: Optional[Dict[str, Any]], buffer: str = "100000B",
               red: bool = False, ties: str = "fifo", two_tier: bool = False,
               ns3_queues: bool = False, bg: bool = False) -> List[Dict[str, float]]:
    import dcnsim
    import numpy as np

    doc = dcnsim_scenario(n, cc, queries, connections, gap_s, tcp_over, buffer, red, ties, two_tier, bg)
    r = dcnsim.run(as_ns3_queues(doc) if ns3_queues else doc)
    flows, qs = r.flows, r.queries
    if len(qs) != queries or qs.qct_s.isna().any():
        raise Unfinished(f"dcnsim {cc} n = {n}: {len(qs)} of {queries} queries completed")
    # Fast recoveries and timeouts are the workers' (response senders'), as
    # incast.cc counts them: the aggregator's request flows time out too
    # when a worker's ACK of the request is dropped. Each loss indication
    # belongs to the query running when it happened (a query's window runs
    # to the next one's start).
    workers = set(flows.flow_id[(flows.src >= 1) & (flows.src <= n)])  # not the background host's
    losses = r.losses[r.losses.flow_id.isin(workers)]
    qs = qs.sort_values("start_s")
    edges = np.append(qs.start_s.to_numpy(), np.inf)
    which = np.searchsorted(edges, losses.time_s.to_numpy(), side="right") - 1
    # Drops and marks at the aggregator's switch port (incast.cc's queue-disc
    # traces count the same), in total over the run: a mean per query.
    port = r.queues[(r.queues.node == ("tor0" if two_tier else "sw"))
                    & (r.queues.to == ("root" if two_tier else "h0"))].iloc[0]
    # worker w (0-based, as incast.cc numbers them) is host w + 1
    src_of = dict(zip(flows.flow_id, flows.src))
    worker = np.array([src_of[f] - 1 for f in losses.flow_id], dtype=int)
    kinds, times = losses.kind.to_numpy(), losses.time_s.to_numpy()
    # the background flows (--bg), one per query, in the queries' order:
    # goodput as experiments/fast's Fig. 9 reads it (bytes over the flow's
    # time from its first send to its last byte's delivery)
    bulk = flows[flows.app_kind == "bulk"].sort_values("start_s")
    if bg and (len(bulk) != queries or bulk.fct_s.isna().any()):
        raise Unfinished(f"dcnsim {cc} n = {n}: {int(bulk.fct_s.notna().sum())} of {queries} background flows "
                         "completed")
    bg_mbps = (bulk.goodput_bps / 1e6).tolist() if bg else []
    bg_resent_kb = (bulk.retx_bytes / 1e3).tolist() if bg else []
    rows = []
    for i, (_, q) in enumerate(qs.iterrows()):
        mine = kinds[which == i]
        rto = mine == "timeout"
        rto_ms: List[List[float]] = [[] for _ in range(n)]
        for w, t_s in zip(worker[which == i][rto], times[which == i][rto]):
            rto_ms[w].append((t_s - q.start_s) * 1e3)
        rows.append({"fast_recoveries": float((mine == "fast_retransmit").sum()),
                     "timeouts": float(rto.sum()), "qct_ms": q.qct_s * 1e3,
                     "drops": float(port.dropped) / queries, "marks": float(port.marked) / queries,
                     "worker_timeouts": [len(ts) for ts in rto_ms], "rto_ms": rto_ms,
                     **({"bg_mbps": bg_mbps[i], "bg_resent_kb": bg_resent_kb[i]} if bg else {})})
    return rows


def mean(rows: List[Dict[str, float]], key: str) -> float:
    return sum(r[key] for r in rows) / len(rows) if rows else float("nan")


def bg_throughput(rows: List[Dict[str, Any]]) -> str:
    """The background flows' mean throughput over the queries, with the
    95 % half-width of that mean (Student's t over the flows, as
    experiments/fast's Fig. 9 gives it), e.g. ``"912.3 ± 4.1"`` (Mbps)."""
    from dcnsim.analysis import ci95

    vals = [r["bg_mbps"] for r in rows if "bg_mbps" in r]
    if not vals:
        return "-"
    m, h = ci95(vals)
    return f"{m:.1f} ± {h:.1f}" if len(vals) >= 2 else f"{m:.1f}"


def worker_shares(rows: List[Dict[str, Any]]) -> Dict[str, float]:
    """Over every worker of every query (the FaST paper's Fig. 6 is their
    CDF): the fraction with at least two timeouts (``ge2``), with at most
    one (``le1``), and the most any one worker took (``max``)."""
    counts = [c for r in rows for c in r["worker_timeouts"]]
    if not counts:
        return {"ge2": float("nan"), "le1": float("nan"), "max": float("nan")}
    return {"ge2": sum(c >= 2 for c in counts) / len(counts), "le1": sum(c <= 1 for c in counts) / len(counts),
            "max": float(max(counts))}


def rto_timeline(rto_ms: List[List[float]], top: int = 8) -> List[str]:
    """One query's retransmission timeouts, worker by worker, as the lines
    ``--rto-timeline`` prints: how many workers time out; the RTOs by whole
    milliseconds after the query's start (10 holds 10.0 to 10.999 ms);
    each worker's *course* (its RTO times in the same whole milliseconds)
    and how many workers took it, the
    ``top`` commonest; and how many workers took 1, 2, … timeouts.
    ``rto_ms[w]`` is worker w's RTO times (ms after the query's start).
    Which round a timeout belongs to (the first RTO, a first backoff, a
    fresh RTO after an acknowledged retransmission) reads off the course."""
    import collections

    timed = [sorted(ts) for ts in rto_ms if ts]
    by_ms = collections.Counter(int(t) for ts in timed for t in ts)
    courses = collections.Counter(tuple(int(t) for t in ts) for ts in timed)
    per = collections.Counter(len(ts) for ts in timed)
    lines = [f"{len(timed)} of {len(rto_ms)} workers time out, {sum(per[k] * k for k in per)} RTOs"]
    if timed:
        lines.append("RTOs by ms after the query's start: " + " ".join(f"{ms}:{c}" for ms, c in sorted(by_ms.items())))
        lines.append("courses (ms): " + ", ".join(f"{c} × ({', '.join(str(x) for x in course)})"
                                                 for course, c in sorted(courses.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
                     + (f", {len(courses) - top} more" if len(courses) > top else ""))
        lines.append("workers by timeouts: " + ", ".join(f"{k}: {per[k]}" for k in sorted(per)))
    return lines


def p99(rows: List[Dict[str, float]], key: str) -> float:
    import numpy as np

    return float(np.percentile([r[key] for r in rows], 99)) if rows else float("nan")


#: What ns-3's congestion control grows cwnd by in congestion avoidance:
#: TcpNewReno SMSS²/cwnd per ACK; TcpLinuxReno and TcpDctcp (a TcpLinuxReno)
#: count acknowledged bytes. ``--ca-increase auto`` gives dcnsim the same.
NS3_CA_INCREASE = {"newreno": "per_ack", "linuxreno": "bytes", "dctcp": "bytes"}

#: Slow start's most SMSS per ACK: ns-3's TcpNewReno adds one per ACK
#: (RFC 5681 §3.1, dcnsim ``abc_limit = 1``); TcpLinuxReno and TcpDctcp add
#: every acknowledged segment, which dcnsim's default L = 2 matches when an
#: ACK covers one or two segments (ACK per segment, or delayed ACKs of 2).
#: ``--abc-limit auto`` gives dcnsim the same.
NS3_ABC_LIMIT = {"newreno": 1, "linuxreno": None, "dctcp": None}

#: ns-3's delayed-ACK timer (TcpSocket::DelAckTimeout's default).
NS3_DELACK_TIMEOUT = "200ms"


def delayed_ack_keys(count: int) -> Dict[str, Any]:
    """dcnsim's delayed-ACK keys for ns-3's ``DelAckCount = count`` (0: off).

    No quick ACKs: ns-3 ACKs a connection's first data segment at once only
    until the socket sends anything with an ACK, and the aggregator's
    request does that before the response arrives (incast.cc's trace), so
    the response's first segment waits for its pair or the timer like any
    other (validation/README.md, "The FaST paper's transport")."""
    if count <= 1:
        return {"delayed_ack": False}
    return {"delayed_ack": True, "delayed_ack_segments": count, "delayed_ack_timeout": NS3_DELACK_TIMEOUT,
            "delayed_ack_quickack": 0}


parse_value = common.parse_value


def ns3_flags(setup: Dict[str, Any], cc: str, delack: List[str], red: bool, two_tier: bool, bg: bool,
              workarounds: bool, user: List[str]) -> Tuple[List[str], str]:
    """incast.cc's flags for one point and the row's name. The user's
    ``--ns3-args`` come last: ns-3's CommandLine keeps a flag's last value,
    so they override the harness's own (``--bg``'s ``--sndbuf`` too)."""
    extra = (setup_ns3_flags(setup, cc) + delack + (["--red=1"] if red else [])
             + (TWO_TIER_NS3 if two_tier else [])
             + (["--bg=1", f"--sndbuf={BG_SNDBUF}", f"--bg-bytes={BG_BYTES}",
                 f"--bg-lead={BG_LEAD_S}", f"--bg-lead-step={BG_LEAD_STEP_S}"] if bg else []))
    name = "ns-3" + "".join(f" {f.lstrip('-')}" for f in user)
    if workarounds and cc == "dctcp":
        extra += NS3_WORKAROUNDS
        name += " work-arounds"
    return extra + list(user), name


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[30, 50, 70])
    p.add_argument("--cc", nargs="+", default=["newreno", "dctcp"], choices=["newreno", "linuxreno", "dctcp"],
                   help="linuxreno: dcnsim's NewReno against ns-3's TcpLinuxReno, whose congestion "
                        "avoidance counts acknowledged bytes (ns-3's TcpNewReno adds SMSS²/cwnd per ACK)")
    p.add_argument("--ca-increase", default="auto", choices=["auto", "bytes", "per_ack"],
                   help="dcnsim's tcp.ca_increase; auto: as ns-3's algorithm (newreno: per_ack; "
                        "linuxreno, dctcp: bytes)")
    p.add_argument("--abc-limit", default="auto",
                   help="dcnsim's tcp.abc_limit; auto: as ns-3's slow start (newreno: 1 SMSS per ACK; "
                        "linuxreno, dctcp: dcnsim's default 2)")
    p.add_argument("--delayed-ack", type=int, default=0, metavar="N",
                   help="delayed ACKs in both simulators: ns-3 DelAckCount = N with its 200 ms timer, dcnsim "
                        "the same keys without quick ACKs (0 or 1: off, the default)")
    p.add_argument("--queries", type=int, default=20, help="queries per point (≥ 100 for stable means)")
    p.add_argument("--connections", default="persistent", choices=["persistent", "fresh"])
    p.add_argument("--gap", type=float, default=0.01, help="persistent: seconds from a query's end to the next")
    p.add_argument("--topology", default="star", choices=["star", "two-tier"],
                   help="two-tier: the FaST paper's (experiments/fast's: 5 ToRs under one aggregation switch, "
                        "the aggregator on ToR 0; with --setup fast, n <= 100)")
    p.add_argument("--setup", default="issue18", choices=sorted(SETUPS),
                   help="fast: the FaST paper's transport (IW 2, no SACK, no Limited Transmit, ...) on the star")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE", help="dcnsim [tcp] overrides")
    p.add_argument("--only", choices=["dcnsim", "ns3"], help="run one simulator")
    p.add_argument("--ns3-workarounds", action="store_true",
                   help="ns-3 DCTCP runs: floor DCTCP's cut at 2 segments and leave CWR on the ACK of the "
                        "recovery point (without them ns-3.37 TcpDctcp stalls in incast; validation/README.md)")
    p.add_argument("--ns3-args", default="", metavar="FLAGS",
                   help="extra incast.cc flags for every ns-3 run, space-separated, e.g. "
                        "--ns3-args='--loss-exit-ack=1 --flightsize=1' (the rows then say so)")
    p.add_argument("--markdown", action="store_true", help="print the rows as a Markdown table")
    p.add_argument("--red", action="store_true",
                   help="RED with ECN at K on the switch ports for every transport: packets that are not "
                        "ECN-capable are dropped at K (dcnsim: ecn_non_ect = \"drop\")")
    p.add_argument("--bg", action="store_true",
                   help="with --topology two-tier and --connections fresh: the FaST paper's background flow, 10 MB "
                        "from a host on ToR 1 to the aggregator starting 20 ms before each query (queries 0.5 s "
                        "apart)")
    p.add_argument("--ns3-queues", action="store_true",
                   help="dcnsim's switch ports count as ns-3's queue discs: K in bytes, K*(MSS+header), and each "
                        "buffer and K past the two packets ns-3 holds outside the queue disc (an approximation; its "
                        "rows say so)")
    p.add_argument("--ties", default="fifo", choices=["fifo", "seeded"],
                   help="dcnsim's order of equal-time events: fifo (ns-3's, the default here) or seeded "
                        "(dcnsim's own default; its rows say so)")
    p.add_argument("--rto-timeline", action="store_true",
                   help="after each row, the first query's timeouts worker by worker: when each RTO fired, "
                        "each worker's course and how many took it (ns-3 runs with --verbose=1 for it)")
    p.add_argument("--check", type=float, default=None, metavar="R",
                   help="judge each point: dcnsim's mean and 99th-percentile QCT within a factor R of ns-3's "
                        "(e.g. 1.5); a point outside is marked DIFFERS and the exit status is 1")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-incast")
    a = p.parse_args(argv)
    setup = SETUPS[a.setup]
    if min(a.n) < 1:
        p.error(f"--n: each must be >= 1, got {min(a.n)}")
    for opt, bad, want in (("--queries", a.queries < 1, ">= 1"), ("--gap", a.gap < 0, ">= 0"),
                           ("--delayed-ack", a.delayed_ack < 0, ">= 0")):
        if bad:
            p.error(f"{opt}: must be {want}, got {getattr(a, opt[2:].replace('-', '_'))}")
    two_tier = a.topology == "two-tier"
    if two_tier and a.setup != "fast":
        p.error("--topology two-tier is the FaST paper's: use it with --setup fast")
    if two_tier and max(a.n) > 100:
        p.error(f"--topology two-tier: at most 100 workers (5 ToRs of 20), got --n {max(a.n)}")
    if a.bg and not (two_tier and a.connections == "fresh"):
        p.error("--bg: with --topology two-tier and --connections fresh (the FaST paper's Figs. 7-9)")
    if two_tier and a.red:
        p.error("--red: the two-tier's ports are the reproduction's (every port marks at its K)")
    if a.abc_limit != "auto" and not (a.abc_limit.isdigit() and int(a.abc_limit) >= 1):
        p.error(f"--abc-limit: auto or an integer >= 1, got {a.abc_limit!r}")
    # before ns-3 is built (a usage error, not the compiler's)
    if a.check is not None and not (a.check > 1 and math.isfinite(a.check)):
        p.error(f"--check: a factor above 1, got {a.check:g}")
    if a.check is not None and a.only is not None:
        p.error("--check compares the two simulators: leave out --only")
    over = {**setup["tcp"], **(delayed_ack_keys(a.delayed_ack) if a.delayed_ack > 1 else {}),
            }
    try:
        over.update(common.parse_overrides(a.tcp))
    except ValueError as e:
        p.error(f"--tcp: {e}")
    # A bad dcnsim key fails here, naming --tcp, not as a traceback mid-table.
    cc0 = a.cc[0]
    probe = {**({"ca_increase": NS3_CA_INCREASE[cc0]} if a.ca_increase == "auto" else {"ca_increase": a.ca_increase}),
             **over}
    problems = common.dcnsim_problems(dcnsim_scenario(a.n[0], cc0, a.queries, a.connections, a.gap, probe,
                                                      setup["buffer"], a.red, a.ties, two_tier, a.bg))
    if problems:
        p.error(f"--tcp: dcnsim refuses the scenario: {problems}")
    ns3_delack = [f"--delack={a.delayed_ack}"] if a.delayed_ack > 1 else []
    exe = ns3_binary(a.build) if a.only != "dcnsim" else None
    print(("the FaST paper's two-tier topology; " if two_tier else "")
          + ("a 10 MB background flow 20 ms (+1 ms a query) before each query, the setup's 65,535 B "
             "windows (ns-3's send buffers too); " if a.bg else "")
          + f"{a.connections} connections, {a.queries} queries per point; per query means (p99: QCT's 99th "
          f"percentile)" + ("; RED with ECN at K on every port (not ECN-capable: dropped at K)" if a.red else "")
          + (f"; ns-3 DelAckCount {a.delayed_ack}" if ns3_delack else "")
          + (f"; dcnsim tcp overrides {over}" if over else ""))
    cols = ["fast_recoveries", "timeouts", "drops", "marks", "qct_ms"]
    print("per worker (Fig. 6 of the FaST paper): the fraction of workers × queries with >= 2 timeouts, "
          "and the most timeouts one worker took in a query")
    if a.bg:
        print("bg_mbps: the background flows' mean throughput (Fig. 9 of the FaST paper), ± its 95 % CI over "
              "the queries' flows; bg_resent_kb: the kB a background flow sent again, a mean over them")
    if a.markdown:
        print("| cc | n | simulator | fast recoveries | timeouts | drops | marks | QCT ms | p99 QCT ms "
              "| workers ≥ 2 timeouts | most of one worker |" + (" background Mbps | background kB resent |"
                                                                  if a.bg else ""))
        print("|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if a.bg else ""))
    else:
        print(f"{'cc':8} {'n':>4} {'simulator':22} {'fast_rec':>9} {'timeouts':>9} {'drops':>8} {'marks':>8} "
              f"{'qct_ms':>8} {'p99_ms':>8} {'w_ge2':>6} {'w_max':>5}"
              + (f" {'bg_mbps':>15} {'bg_resent_kb':>12}" if a.bg else ""))
    failed = []
    outside: List[str] = []
    for cc in a.cc:
        ca = NS3_CA_INCREASE[cc] if a.ca_increase == "auto" else a.ca_increase
        # bytes is dcnsim's default: left out, the scenario is the one
        # without the key.
        abc = NS3_ABC_LIMIT[cc] if a.abc_limit == "auto" else int(a.abc_limit)
        tcp_over = {**({"ca_increase": ca} if ca != "bytes" else {}),
                    **({"abc_limit": abc} if abc is not None else {}), **over}
        for n in a.n:
            sims = []
            try:
                if a.only != "ns3":
                    sims.append((f"dcnsim {tcp_over.get('ca_increase', 'bytes')}"
                                 + (" seeded" if a.ties == "seeded" else "")
                                 + (" ns-3 queues" if a.ns3_queues else ""),
                                 run_dcnsim(n, cc, a.queries, a.connections, a.gap, tcp_over, setup["buffer"],
                                            a.red, a.ties, two_tier, a.ns3_queues, a.bg)))
                if exe is not None:
                    flags = a.ns3_args.split()
                    extra, name = ns3_flags(setup, cc, ns3_delack, a.red, two_tier, a.bg,
                                            a.ns3_workarounds, flags)
                    if a.rto_timeline and "--verbose=1" not in extra:
                        extra += ["--verbose=1"]
                    sims.append((name, run_ns3(exe, n, cc, a.queries, a.connections, a.gap, extra,
                                               BG_SPACING_S if a.bg else SPACING_S)))
            except Unfinished as e:
                print(f"FAILED: {e}", file=sys.stderr, flush=True)
                failed.append(str(e))
            for name, rows in sims:
                m = [mean(rows, c) for c in cols] + [p99(rows, "qct_ms")]
                w = worker_shares(rows)
                bgm = bg_throughput(rows) if a.bg else ""
                resent = mean(rows, "bg_resent_kb") if a.bg else math.nan
                if a.markdown:
                    print(f"| {'DCTCP' if cc == 'dctcp' else cc} | {n} | {name} | {m[0]:.2f} | {m[1]:.2f} | "
                          f"{m[2]:.1f} | {m[3]:.1f} | {m[4]:.1f} | {m[5]:.1f} | {w['ge2']:.2f} | {w['max']:.0f} |"
                          + (f" {bgm} | {resent:,.1f} |" if a.bg else ""), flush=True)
                else:
                    print(f"{cc:8} {n:4d} {name:22} {m[0]:9.2f} {m[1]:9.2f} {m[2]:8.1f} {m[3]:8.1f} "
                          f"{m[4]:8.2f} {m[5]:8.2f} {w['ge2']:6.2f} {w['max']:5.0f}"
                          + (f" {bgm:>15} {resent:12.1f}" if a.bg else ""), flush=True)
                if a.rto_timeline and rows and "rto_ms" in rows[0]:
                    print(f"  {name}, query 0:")
                    for line in rto_timeline(rows[0]["rto_ms"]):
                        print(f"    {line}", flush=True)
            if a.check is not None and len(sims) == 2:
                verdict = check_point(sims[0][1], sims[1][1], a.check)
                print(f"  check {cc} n = {n}: {verdict}", flush=True)
                if verdict.startswith("DIFFERS"):
                    outside.append(f"{cc} n = {n}")
    if a.check is not None:
        print(f"check: {len(outside)} point(s) outside a factor {a.check:g} of ns-3's QCT"
              + (f": {', '.join(outside)}" if outside else ""))
    if failed:
        # Loudly: a stalled query leaves no row, and the exit status says so.
        print(f"{len(failed)} point(s) did not complete every query (see FAILED above); for ns-3 DCTCP "
              "see --ns3-workarounds", file=sys.stderr)
        return 1
    return 1 if outside else 0


def check_point(ours: List[Dict[str, Any]], theirs: List[Dict[str, Any]], factor: float) -> str:
    """dcnsim's mean and 99th-percentile query completion time over ns-3's,
    each within ``factor`` either way, or DIFFERS: the two simulators'
    headline of an incast, judged by a bound the user states (the table
    alone printed 201.7 ms against 11.7 ms and exited 0)."""
    return common.within_factor([("mean QCT", mean(ours, "qct_ms"), mean(theirs, "qct_ms")),
                                 ("p99 QCT", p99(ours, "qct_ms"), p99(theirs, "qct_ms"))], factor)[1]


if __name__ == "__main__":
    sys.exit(main())
