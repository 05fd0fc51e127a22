"""Packet-level comparison of a few persistent incast queries in dcnsim and
ns-3 (issue 25): which of each response's segments the aggregator's port
drops, and what each worker then does.

Usage (from the repository root)::

    python validation/ns3_incast/trace.py --n 100 --queries 6 --out /tmp/incast-trace
    python validation/ns3_incast/trace.py --n 100 --queries 6 --out /tmp/incast-trace --show 'XXX....' --outcome 0,2

Both simulators write a pcap of every host (dcnsim ``pcap = {hosts = ...}``,
incast.cc ``--pcap-all=1``) into ``--out``. For every query after the first
(whose identical first flights both simulators drop alike) and every
worker, the *loss pattern* marks each of the response's seven segments
``X`` when its first transmission left the worker and never reached the
aggregator (matched per flow by sequence number and TCP timestamp, the
path being FIFO), ``.`` otherwise; its *outcome* is the worker's fast
recoveries and timeouts in that query (run.py's counting). The table
gives, per pattern, how many (query, worker) pairs had it and their
outcomes, in each simulator: the same pattern with different outcomes is
a difference of the TCPs; different patterns are the dynamics (which
segments a window of that size puts where in the port's queue).
``--show PATTERN`` prints, for the first pair with that pattern in each
simulator, the worker's timeline: its segments (dropped or not), the ACKs
and SACK blocks it receives (in segments of the response), and ns-3's
cwnd, ssthresh and state changes. This is a tool, not a test.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import ns3_common as common  # noqa: E402
import run  # noqa: E402

Key = Tuple[int, int]  # (query, worker): workers 0..n-1 are hosts 1..n


def packets(data: bytes) -> List[Tuple[float, str, str, int, int, int, int, List[Tuple[int, int]]]]:
    """(time, src, dst, seq, ack, payload, tsval, sack blocks) of a pcap's TCP packets."""
    out = []
    for t, ip in common.pcap_records(data):
        h = common.tcp_fields(ip)
        if h is None:
            continue
        src, dst, _, _, seq, ack, _, plen = h
        tsval, sack = common.tcp_options(ip)
        out.append((t, src, dst, seq, ack, plen, tsval, sack))
    return out


def analyse(pcaps: Dict[int, bytes], n: int, events: Dict[Key, List[Tuple[float, str]]], mss: int,
            response: int) -> Dict[Key, Dict[str, Any]]:
    """Per (query, worker): loss pattern, fast recoveries, timeouts, timeline."""
    agg = packets(pcaps[0])
    per: Dict[Key, Dict[str, Any]] = {}
    for w in range(n):
        mine = packets(pcaps[w + 1])
        data = [p for p in mine if p[5] > 100]  # the responses (requests are 64 B)
        if not data:
            continue
        src = data[0][1]
        arrived = [p for p in agg if p[1] == src and p[5] > 100]
        base = min(p[3] for p in data)
        j, first, sent = 0, set(), collections.defaultdict(list)
        for p in data:
            ok = j < len(arrived) and (arrived[j][3], arrived[j][6]) == (p[3], p[6])
            j += ok
            rel = p[3] - base
            q, i = rel // response, (rel % response) // mss
            sent[q].append((p[0], "send", i, ok, (q, i) in first))
            first.add((q, i))
        # An ACK belongs to the query whose response was being sent then.
        starts = sorted((v[0][0], q) for q, v in sent.items())
        acks = collections.defaultdict(list)
        for p in mine:
            k = bisect.bisect_right(starts, (p[0], float("inf"))) - 1
            if p[2] == src and p[5] == 0 and k >= 0:
                q = starts[k][1]
                off = base + q * response
                acks[q].append((p[0], "ack", round((p[4] - off) / mss, 2),
                                [(round((x - off) / mss, 2), round((y - off) / mss, 2)) for x, y in p[7]]))
        for q in sent:
            lost = {i for _, _, i, ok, again in sent[q] if not ok and not again}
            ev = events.get((q, w), [])
            per[(q, w)] = {
                "pattern": "".join("X" if i in lost else "." for i in range(-(-response // mss))),
                "fr": sum(e[1] == "recovery" for e in ev), "to": sum(e[1] == "rto" for e in ev),
                "timeline": sorted(sent[q] + acks[q] + [(t, "event", e) for t, e in ev], key=lambda x: x[0]),
            }
    return per


def ns3_side(exe: Path, n: int, queries: int, out: Path, extra: List[str]) -> Tuple[Dict[int, bytes], Dict]:
    out.mkdir(parents=True, exist_ok=True)
    args = [str(exe), f"--n={n}", "--cc=newreno", f"--queries={queries}", "--persistent=1", "--verbose=1",
            f"--pcap={out / 'ns3'}", "--pcap-all=1", *extra]
    text = common.run_program(args, "--ns3-args")
    (out / "ns3-events.txt").write_text(text)
    events = collections.defaultdict(list)
    for line in text.splitlines():
        f = line.split()
        if f[0] == "event":
            kind = "rto" if f[4] == "rto" else "recovery" if f[4] == "recovery" else " ".join(f[4:])
            events[(int(f[1]), int(f[2]))].append((float(f[3]) / 1e6, kind))
    # incast.cc's nodes: hosts 0..n (0 the aggregator), device 1 each.
    pcaps = {h: (out / f"ns3-{h}-1.pcap").read_bytes() for h in range(n + 1)}
    return pcaps, events


def dcnsim_side(n: int, queries: int, out: Path, tcp_over: Dict[str, Any]) -> Tuple[Dict[int, bytes], Dict]:
    import dcnsim

    doc = run.dcnsim_scenario(n, "newreno", queries, "persistent", 0.01, tcp_over)
    doc["pcap"] = {"hosts": f"0-{n}"}
    r = dcnsim.run(doc)
    out.mkdir(parents=True, exist_ok=True)
    for name, data in r.pcaps.items():
        (out / f"dcnsim-{name}").write_bytes(data)
    src = dict(zip(r.flows.flow_id, r.flows.src))
    starts = sorted(r.queries.start_s)
    events = collections.defaultdict(list)
    for t, f, kind in zip(r.losses.time_s, r.losses.flow_id, r.losses.kind):
        if src[f] != 0:
            q = bisect.bisect_right(starts, t) - 1
            events[(q, src[f] - 1)].append((t, "rto" if kind == "timeout" else "recovery"))
    return {h: r.pcaps[f"h{h}.pcap"] for h in range(n + 1)}, events


def show(name: str, key: Key, d: Dict[str, Any]) -> None:
    print(f"{name}: worker {key[1]} query {key[0]}, pattern {d['pattern']}, "
          f"{d['fr']} fast recoveries, {d['to']} timeouts")
    t0 = d["timeline"][0][0]
    for e in d["timeline"]:
        us = (e[0] - t0) * 1e6
        if e[1] == "send":
            print(f"  {us:9.1f}  seg {e[2]}{' (again)' if e[4] else ''}{'' if e[3] else '  DROPPED'}")
        elif e[1] == "ack":
            print(f"  {us:9.1f}  ack {e[2]}" + (f" sack {e[3]}" if e[3] else ""))
        else:
            print(f"  {us:9.1f}      {e[2]}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--queries", type=int, default=6)
    p.add_argument("--out", type=Path, required=True, help="directory for both simulators' pcaps")
    p.add_argument("--ns3-args", default="", help="extra incast.cc flags, space-separated")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE", help="dcnsim [tcp] overrides")
    p.add_argument("--show", metavar="PATTERN", help="print a timeline of the first worker with this pattern")
    p.add_argument("--outcome", metavar="FR,TO", help="with --show: only a worker with this many fast "
                                                       "recoveries and timeouts in the query")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-incast")
    a = p.parse_args(argv)
    try:
        # ns-3 TcpNewReno's rules, as run.py's defaults give them.
        tcp_over = {"ca_increase": run.NS3_CA_INCREASE["newreno"], "abc_limit": run.NS3_ABC_LIMIT["newreno"],
                    **common.parse_overrides(a.tcp)}
    except ValueError as e:
        p.error(f"--tcp: {e}")
    if a.n < 1:
        p.error(f"--n: must be >= 1 worker, got {a.n}")
    if a.queries < 2:
        # query 0 (the connections' first) is left out of the table
        p.error(f"--queries: must be >= 2 (query 0 opens the connections and is not tabled), got {a.queries}")
    if a.outcome is not None:
        parts = a.outcome.split(",")
        if len(parts) != 2 or not all(x.strip().isdigit() for x in parts):
            p.error(f"--outcome: expected FR,TO (two whole numbers: fast recoveries, timeouts), got {a.outcome!r}")
        if not a.show:
            p.error("--outcome picks among the workers --show PATTERN prints: give --show")
    exe = run.ns3_binary(a.build)
    dc_pcaps, dc_events = dcnsim_side(a.n, a.queries, a.out, tcp_over)
    ns_pcaps, ns_events = ns3_side(exe, a.n, a.queries, a.out, a.ns3_args.split())
    sides = {"dcnsim": analyse(dc_pcaps, a.n, dc_events, 1448, 10000),
             "ns-3": analyse(ns_pcaps, a.n, ns_events, 1448, 10000)}
    table: Dict[str, Dict[str, collections.Counter]] = collections.defaultdict(
        lambda: collections.defaultdict(collections.Counter))
    for name, per in sides.items():
        for (q, _), d in per.items():
            if q >= 1:
                table[d["pattern"]][name][(d["fr"], d["to"])] += 1
    print(f"n = {a.n}, queries 1..{a.queries - 1}: per loss pattern, (query, worker) pairs and their outcomes "
          "{(fast recoveries, timeouts): pairs}")
    print(f"{'pattern':9} {'dcnsim':>6} {'ns-3':>6}  dcnsim outcomes | ns-3 outcomes")
    order = sorted(table, key=lambda k: -sum(sum(c.values()) for c in table[k].values()))
    for pat in order:
        c = table[pat]
        print(f"{pat:9} {sum(c['dcnsim'].values()):6d} {sum(c['ns-3'].values()):6d}  "
              f"{dict(sorted(c['dcnsim'].items()))} | {dict(sorted(c['ns-3'].items()))}")
    if a.show:
        for name, per in sides.items():
            want = tuple(int(x) for x in a.outcome.split(",")) if a.outcome else None
            keys = sorted(k for k, d in per.items() if k[0] >= 1 and d["pattern"] == a.show
                          and want in (None, (d["fr"], d["to"])))
            if keys:
                show(name, keys[0], per[keys[0]])
            else:
                print(f"{name}: no worker with pattern {a.show}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
