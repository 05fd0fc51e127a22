"""Where in the receiver's edge port's service each input port's packets
arrive, in both simulators (issue 46; ``run.py --trace SEED``).

The edge port to host 0 serves one 1500 B packet every T = 12 µs (12.016 µs
with ns-3's 2 bytes of framing). When it is full, the slot a departure frees
goes to the first packet that arrives after it, so a packet's *phase* — the
time since the port last began sending a packet — decides the race. In a
steady ACK clock every arrival is a departure of the same port one round
trip earlier plus fixed delays, so each input port's packets arrive at a
fixed phase:

    phase = (round-trip propagation + n_ack * a + n_data * T) mod T

with a the ACK's serialization time and n_ack, n_data the links the ACK and
the data cross (2 and 1 for F1, 6 and 5 for the six-hop flows).
:func:`predicted_phases` evaluates it; ``run.py --trace`` measures it: ns-3
logs every arrival at the port (outcast.cc ``--trace``); dcnsim's F1 is
reconstructed exactly from host 1's and host 0's pcaps (host 1 sends only
F1's data, so its NIC's FIFO is known). It also writes, for the first
``--trace-ms``, the port's queue and every flow's cwnd from both.
"""

from __future__ import annotations

import bisect
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import ns3_common as common

#: Fig. 1's input classes at the receiver's edge port: (links, switch
#: traversals) of a round trip from the port back to it, ACK links, data
#: links before the port.
PATHS = {"F1 (h1)": (4, 2, 2, 1), "F2:3 (4 hops)": (8, 6, 4, 3), "F4:15 (6 hops)": (12, 10, 6, 5)}


def predicted_phases(header: int, l2: int = 0, wire: int = 1500, rate_bps: float = 1e9, link_us: float = 1.0,
                     switch_us: float = 25.0) -> Dict[str, float]:
    """Each input class's arrival phase (µs after the port frees a slot) in
    a steady ACK clock: ACKs of ``header + l2`` bytes, data of ``wire + l2``;
    a round trip's propagation is links × ``link_us`` + switches × ``switch_us``."""
    t = (wire + l2) * 8 / rate_bps * 1e6
    a = (header + l2) * 8 / rate_bps * 1e6
    return {k: (links * link_us + sw * switch_us + n_ack * a + n_data * t) % t
            for k, (links, sw, n_ack, n_data) in PATHS.items()}


def phase_of(times: Sequence[float], grid: Sequence[float]) -> List[Optional[float]]:
    """Each time's distance after the latest grid instant at or before it (None before the first)."""
    out: List[Optional[float]] = []
    for t in times:
        i = bisect.bisect_right(grid, t) - 1
        out.append(t - grid[i] if i >= 0 else None)
    return out


def histogram(phases: Sequence[float], period: float, bins: int = 12) -> List[int]:
    h = [0] * bins
    for p in phases:
        if p is not None and p < period:
            h[min(bins - 1, int(p / period * bins))] += 1
    return h


def parse_ns3_trace(text: str) -> Dict[str, Any]:
    arr: Dict[str, List[float]] = {}
    drop: Dict[str, List[float]] = {}
    tx: List[float] = []
    queue: List[Tuple[float, int]] = []
    cwnd: List[Tuple[float, int, int]] = []
    for line in text.splitlines():
        f = line.split()
        t = int(f[1]) / 1e3  # µs
        if f[0] == "a":
            arr.setdefault(f[2], []).append(t)
        elif f[0] == "d":
            drop.setdefault(f[2], []).append(t)
        elif f[0] == "x":
            tx.append(t)
        elif f[0] == "q":
            queue.append((t, int(f[2])))
        elif f[0] == "c":
            cwnd.append((t, int(f[2]) + 1, int(f[3])))
    return {"arr": arr, "drop": drop, "tx": tx, "queue": queue, "cwnd": cwnd}


def dcnsim_f1_phases(pcaps: Dict[str, bytes], wire_bytes: int, l2: int, link_us: float, switch_us: float
                     ) -> Tuple[List[float], List[float], List[float]]:
    """dcnsim's F1 at the edge port: (arrival times, arrival times of the
    packets dropped there, slot instants) in µs. Host 1 hands its packets
    to its NIC at the pcap's times; the NIC sends them in order at line
    rate; each arrives at the edge switch 1 µs + 25 µs after its last bit.
    A slot frees when the port finishes a packet: host 0 receives it one
    link delay later."""
    t_pkt = (wire_bytes + l2) * 8 / 1e3  # µs at 1 Gbps
    got: Dict[int, List[float]] = {}
    grid = []
    for t, ip in common.pcap_records(pcaps["h0.pcap"]):
        h = common.tcp_fields(ip)
        if h and h[7] > 0:
            grid.append(t * 1e6 - link_us)
            if h[0] == "0a000002":  # from host 1 (10.0.0.2)
                got.setdefault(h[4], []).append(t * 1e6)
    sent: List[Tuple[float, int]] = []
    end = 0.0
    for t, ip in common.pcap_records(pcaps["h1.pcap"]):
        h = common.tcp_fields(ip)
        if h and h[7] > 0 and h[1] == "0a000001":
            end = max(t * 1e6, end) + t_pkt
            sent.append((end + link_us + switch_us, h[4]))
    arrivals, dropped = [], []
    for i, (ta, seq) in enumerate(sent):
        # delivered: host 0 got this sequence number before its next copy reached the switch
        nxt = next((t2 for t2, s2 in sent[i + 1:] if s2 == seq), float("inf"))
        arrivals.append(ta)
        if not any(ta <= r < nxt for r in got.get(seq, [])):
            dropped.append(ta)
    return arrivals, dropped, sorted(grid)


#: Fig. 1's flows by class, as source hosts
CLASSES = (("F1", (1,)), ("F2:3", (2, 3)), ("F4:15", tuple(range(4, 16))))


def step_mean(points: Sequence[Tuple[float, float]], end: float) -> float:
    """Time average over [first point, end] of a value that holds from each (time, value) to the next."""
    if not points:
        return float("nan")
    area = 0.0
    for (t0, v), (t1, _) in zip(points, list(points[1:]) + [(end, 0.0)]):
        area += v * (min(t1, end) - t0) if t0 < end else 0.0
    span = end - points[0][0]
    return area / span if span > 0 else float(points[0][1])


def class_cwnd(series: Dict[int, List[Tuple[float, float]]], end: float, mss: int) -> str:
    """Each class's time-averaged cwnd (segments, mean over its flows) up to ``end``."""
    out = []
    for name, srcs in CLASSES:
        ms = [step_mean(series[s], end) / mss for s in srcs if series.get(s)]
        out.append(f"{name} {sum(ms) / len(ms):.1f}" if ms else f"{name} -")
    return ", ".join(out)


def _fmt_hist(h: List[int]) -> str:
    return " ".join(f"{x:4d}" for x in h)


def trace_both(exe: Path, cc: str, qmax: int, header: int, seed: int, ties: Sequence[str], l2: int,
               tcp_over: Dict[str, Any], trace_ms: float, out: Path, link_us: float = 1.0) -> None:
    """Run ``seed`` for ``trace_ms`` in both simulators, write the traces to
    ``out`` and print each input port's arrival phases at the edge port."""
    import dcnsim
    from run import EDGE, RECEIVER, dcnsim_doc, edge_port_drops, ns3_args

    out.mkdir(parents=True, exist_ok=True)
    secs = trace_ms / 1e3
    t_ns3 = (1500 + 2) * 8 / 1e3
    print(f"seed {seed}, {cc}, Qmax {qmax}, header {header}: the first {trace_ms:g} ms")
    print("predicted phases, µs after a slot frees (steady ACK clock; T = the port's service time):")
    for name, lv in (("dcnsim", l2), ("ns-3", 2)):
        ph = predicted_phases(header, lv, link_us=link_us)
        print(f"  {name:7} l2 {lv}: T = {(1500 + lv) * 8 / 1e3:.3f}; "
              + ", ".join(f"{k} {v:.3f}" for k, v in ph.items()))
    print("arrivals after a slot frees, measured: the total (arrivals outside a slot's T too), then per 1/12 of T "
          "(bins 0..11); drops below them")
    trace_file = out / "ns3-trace.txt"
    args = ns3_args(exe, cc, qmax, header, seed, secs, link_us) + [f"--trace={trace_file}", f"--trace-ms={trace_ms:g}"]
    (out / "ns3-summary.txt").write_text(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    tr = parse_ns3_trace(trace_file.read_text())
    for port in sorted(tr["arr"]):
        a = phase_of(tr["arr"][port], tr["tx"])
        d = phase_of(tr["drop"].get(port, []), tr["tx"])
        print(f"  ns-3   {port:8} arrivals {len(a):6d} {_fmt_hist(histogram(a, t_ns3))}")
        print(f"  ns-3   {port:8} drops    {len(d):6d} {_fmt_hist(histogram(d, t_ns3))}")
    qs = [n for _, n in tr["queue"]]
    end_us = trace_ms * 1e3
    mss = 1460 if header == 40 else 1448
    cw: Dict[int, List[Tuple[float, float]]] = {}
    for t, src, w in tr["cwnd"]:
        cw.setdefault(src, []).append((t, float(w)))
    print(f"  ns-3   edge port queue: max {max(qs) if qs else 0} + 1 on the wire, mean "
          f"{step_mean([(t, float(n)) for t, n in tr['queue']], end_us) + 1:.1f} packets; "
          f"mean cwnd (segments) {class_cwnd(cw, end_us, mss)}")
    for t in ties:
        doc = dcnsim_doc(cc, qmax, header, seed, secs, t, l2, tcp_over, link_us)
        doc["stop"] = f"{secs:g}s"
        doc["pcap"] = {"hosts": "0-15"}
        doc["trace"] = {"interval": "10us", "flows": True, "queues": "switches"}
        r = dcnsim.run(doc)
        sub = out / f"dcnsim-{t}"
        sub.mkdir(exist_ok=True)
        for name, data in r.pcaps.items():
            (sub / name).write_bytes(data)
        qid = r.tables["queues"]
        qid = int(qid[(qid["node"] == EDGE) & (qid["to"] == RECEIVER)]["queue_id"].iloc[0])
        qts = r.tables["queue_ts"]
        qts = qts[qts["queue_id"] == qid]
        qts.to_csv(sub / "edge-port-queue.csv", index=False)
        fts = r.tables["flow_ts"]
        fts.to_csv(sub / "cwnd.csv", index=False)
        src_of = dict(zip(r.flows["flow_id"], r.flows["src"]))
        dcw = {int(src_of[fid]): list(zip(g["time_s"] * 1e6, g["cwnd_bytes"].astype(float)))
               for fid, g in fts.groupby("flow_id")}
        mss = doc["tcp"]["mss"]
        arr, drp, grid = dcnsim_f1_phases(r.pcaps, mss + doc["tcp"]["header"], l2, link_us, 25.0)
        t_d = (mss + doc["tcp"]["header"] + l2) * 8 / 1e3
        a = phase_of(arr, grid)
        d = phase_of(drp, grid)
        print(f"  dcnsim {t:6} h1 arrivals {len(a):6d} {_fmt_hist(histogram(a, t_d))}")
        print(f"  dcnsim {t:6} h1 drops    {len(d):6d} {_fmt_hist(histogram(d, t_d))}")
        print(f"  dcnsim {t:6} edge port drops by input port {edge_port_drops(r.queue_inputs)}; queue mean "
              f"{qts['pkts'].mean():.1f} packets; mean cwnd (segments) {class_cwnd(dcw, end_us, mss)}")
    print(f"wrote {out}")
