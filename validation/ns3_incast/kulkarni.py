"""Kulkarni's storage incast in dcnsim and in ns-3 3.37, side by side:
Chapter 4's (Fig. 4.2: goodput against servers per SRU size), or with
``--chapter 3`` Table 3.1's (Figs. 3.8-3.12: 256 KB SRUs, 50 µs links, a
window of 1000 segments), with the servers' timeouts sorted as Figs.
3.11-3.12 sort them.

Usage (from the repository root, dcnsim importable, Debian's ``libns3-dev``
and ``g++`` installed)::

    python validation/ns3_incast/kulkarni.py --n 4-12 --sru 256 1024 --blocks 40
    python validation/ns3_incast/kulkarni.py --n 6-10 --buffer-pkts 30   # the byte reading of "32 KB"
    python validation/ns3_incast/kulkarni.py --n 4-12 --like-ns3          # dcnsim without ns-3's two departures
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 1-8,16,32,64 --blocks 40   # Figs. 3.11-3.12's timeouts
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 4-8,16 --ns3-jitter --ties fifo      # dcnsim in ns-3's tie order
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 4-8,16 --ns3-jitter --host-jitter 1  # nothing ties in either
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 32,64 --ns3-jitter --ns3-karn        # ns-3 keeps RTO backoffs
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 32,64 --ns3-jitter --ties fifo --ns3-karn --ns3-rfc  # every rule alike
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 2,3 --ns3-jitter --ties fifo --ns3-karn --ns3-rfc --ns3-entry --tcp reno_exit=ssthresh
    python validation/ns3_incast/kulkarni.py --chapter 3 --n 3 --blocks 1 --first-difference --ns3-karn --ns3-rfc --ns3-entry --tcp reno_exit=ssthresh

Each timeout of a server's flow is counted as an ABTT (no byte of its
block acknowledged yet) or not, and by the duplicate ACKs that arrived
since the last new ACK: none (the whole window lost), one or two, or three
or more (dcnsim's ``abtt`` and ``rto_whole_window`` / ``rto_few_dupacks``
/ ``rto_many_dupacks``; ns-3: incast.cc's ``rto_kinds`` lines, from each
worker socket's ``Rx`` and ``Tx`` traces), and the IBTTs (the timeouts that
are not ABTTs) by the same duplicate ACKs (``ibtt_whole_window``,
``ibtt_few_dupacks``: the dissertation's finding on IBTTs, p. 68, counts
them alone).

dcnsim runs the experiment's own documents (``dcnsim.experiments.kulkarni``
Fig. 4.2: a star of 1 Gbps links with 100 µs propagation, a 32-packet
drop-tail port, NewReno with 1 KB segments, IW 2, a 20-segment window,
RTOmin 200 ms, no SACK, timestamps or delayed ACKs, ``sync_reads``: each
server returns one SRU per block and the client asks for the next block
when the whole one has arrived; each request after U[0, 20 µs], the
dissertation's ns-2 request jitter, and no framing bytes), ``--blocks``
blocks on seeds 1–3. ns-3 runs
validation/ns3_incast/incast.cc with the same transport on persistent
connections, the next query at once (``--gap=0``), TcpNewReno with classic
recovery (ns-2's NewReno of the dissertation) and ``--delay=100us``; its port
is a queue disc of Qmax − 2 packets ahead of a 1-packet device queue and
the wire, as dcnsim counts a port's packets; its requests leave together
(no jitter) and its packets carry 2 B of point-to-point framing. ns-3.37 crashes
(TcpRateLinux::SkbSent) when a flow's losses meet a receive window below
its send buffer, so both buffers hold the 20 segments (``--sndbuf``): the
window cap is the same. Printed: goodput (Mbps) per n for each SRU, ns-3's
timeouts per block, and at 7 servers the 1 MB / 256 KB ratio
(``fig4.2-seven``: the dissertation's "orders of magnitude").

``--first-difference`` runs each n once in each simulator with nothing
drawn at random (every request at once, ``--like-ns3``, first-in
first-out ties) and the aggregator's interface traced (incast.cc
``--pcap``, dcnsim's ``pcap``), and prints how many of the data segments
reaching the aggregator arrive alike in both (the same server and segment
in the same place, within 2 µs: ns-3's pcap stamps whole µs) and the first
that do not: where a rule of the two TCPs parts them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import ns3_common as common  # noqa: E402  (validation/: shared with the other harnesses)

SOURCE = HERE / "incast.cc"
MSS = 1024
RWND_BYTES = 20 * MSS
#: Table 3.1's window, 1000 segments: ns-3's send buffer the same (its
#: crash, above, needs it no larger than the receive window)
RWND_BYTES_CH3 = 1000 * MSS
#: ns-3's stop time a block: more than any block takes (a collapsed one at
#: 64 servers, Table 3.1's setup: 1.4 s), as dcnsim's documents run until
#: every block is read
STOP_PER_BLOCK_S = 10.0
#: ``--ns3-jitter``: ns-3's requests after U[0, this] µs, as dcnsim's
#: documents send theirs (``sync_reads`` ``jitter``, the dissertation's)
REQUEST_JITTER_US = 20
#: the timeout counts each simulator reports (see the module's docstring)
RTO_KINDS = ("abtt", "whole_window", "few_dupacks", "many_dupacks")
#: the IBTTs (timeouts that are not ABTTs) among two of those kinds: the
#: dissertation's finding on IBTTs (p. 68) counts them alone
IBTT_KINDS = ("ibtt_whole_window", "ibtt_few_dupacks")


def parse_ns(text: str) -> List[int]:
    """``"4-12"`` or ``"4,7,10"`` (or a mix) to the server counts; ValueError names the bad part."""
    return common.parse_ranges(text, "--n", "server counts", 1)


def ns3_args(exe: Path, n: int, sru_kb: int, blocks: int, buffer_pkts: int, chapter: int = 4,
             seed: int = 0, host_jitter_us: float = 0.0, request_jitter: bool = True,
             karn: bool = False, rfc: bool = False, entry: bool = False) -> List[str]:
    """incast.cc's flags; ``seed`` > 0: ns-3's run ``seed``, and then (unless
    ``request_jitter`` is False) each request after U[0, 20 µs] as dcnsim's
    documents send them (the dissertation's ns-2 jitter; 0: every request
    at once, ns-3 deterministic); ``host_jitter_us`` > 0: each packet a
    server sends reaches the switch U[0, that] later (incast.cc
    ``--host-jitter``), drawn from the same run; ``karn``: the servers keep
    a backed-off RTO until an RTT sample, as ns-2 and dcnsim do (incast.cc
    ``--karn-backoff``; ns-3.37 collapses it on every new ACK); ``rfc``:
    the servers follow RFC 5681 where ns-3.37's TcpSocketBase departs from
    it, as ns-2 and dcnsim do: the ACK that ends loss recovery grows cwnd
    (``--loss-exit-ack``; ns-3 grows nothing on an ACK exactly at the
    recovery point) and ssthresh is half of FlightSize (``--flightsize``;
    ns-3 counts each duplicate ACK's segment out of flight); ``entry``: fast
    recovery counts the three duplicate ACKs that began it as segments that
    left the network (``--reno-entry``; without Limited Transmit ns-3.37
    counts the third alone, two segments short of RFC 5681's ssthresh +
    3·SMSS)."""
    rwnd, delay = (RWND_BYTES_CH3, "50us") if chapter == 3 else (RWND_BYTES, "100us")
    return [str(exe), f"--n={n}", "--cc=newreno", "--persistent=1", "--gap=0", f"--queries={blocks}",
            f"--buffer={buffer_pkts - 2}p", f"--mss={MSS}", "--iw=2", f"--response={sru_kb * 1024}",
            "--rtomin=200", "--sack=0", "--timestamps=0", "--lt=0", f"--rcvbuf={rwnd}",
            f"--sndbuf={rwnd}", "--delack=1", "--recovery=classic", f"--delay={delay}",
            # past any block: at 64 servers Table 3.1's take 1.4 s each
            f"--stop={0.1 + blocks * STOP_PER_BLOCK_S:g}",
            *([f"--RngRun={seed}"] if seed > 0 else []),
            *([f"--request-jitter={REQUEST_JITTER_US}"] if seed > 0 and request_jitter else []),
            *([f"--host-jitter={host_jitter_us:g}"] if host_jitter_us > 0 else []),
            *(["--karn-backoff=1"] if karn else []),
            *(["--loss-exit-ack=1", "--flightsize=1"] if rfc else []),
            *(["--reno-entry=1"] if entry else [])]


def run_ns3(exe: Path, n: int, sru_kb: int, blocks: int, buffer_pkts: int, chapter: int = 4,
            seed: int = 0, host_jitter_us: float = 0.0, request_jitter: bool = True,
            karn: bool = False, rfc: bool = False, entry: bool = False) -> Dict[str, float]:
    out = common.run_program(ns3_args(exe, n, sru_kb, blocks, buffer_pkts, chapter, seed, host_jitter_us,
                                      request_jitter, karn, rfc, entry))
    qct = [float(m[1]) for m in re.finditer(r"qct_us ([\d.]+)", out)]
    timeouts = [int(m[1]) for m in re.finditer(r"^query \d+ .*? timeouts (\d+)", out, re.M)]
    kinds = [tuple(int(x) for x in m.groups()) for m in
             re.finditer(r"^rto_kinds \d+ abtt (\d+) whole_window (\d+) few_dupacks (\d+) many_dupacks (\d+) "
                         r"ibtt_whole_window (\d+) ibtt_few_dupacks (\d+)", out, re.M)]
    if len(qct) != blocks or len(kinds) != blocks:
        raise RuntimeError("unexpected ns-3 output:\n" + out[-2000:])
    # a timeout is one of the three by its duplicate ACKs: a query whose
    # counts do not add up is a bug in incast.cc's counting
    if any(k[1] + k[2] + k[3] != t or k[4] > k[1] or k[5] > k[2] or k[4] + k[5] > t - k[0]
           for k, t in zip(kinds, timeouts)):
        raise RuntimeError("ns-3's rto_kinds do not add up to its timeouts:\n" + out[-2000:])
    return {"goodput_mbps": n * sru_kb * 1024 * 8 / (sum(qct) * 1e-6 / len(qct)) / 1e6,
            "timeouts": sum(timeouts) / len(timeouts), "rtos": float(sum(timeouts)),
            "ibtts": float(sum(timeouts) - sum(k[0] for k in kinds)),
            **{name: float(sum(k[i] for k in kinds)) for i, name in enumerate(RTO_KINDS + IBTT_KINDS)}}


def dcnsim_doc(n: int, sru_kb: int, blocks: int, buffer_pkts: int, seed: int,
               like_ns3: bool = False, chapter: int = 4, ties: Optional[str] = None,
               host_jitter_us: float = 0.0, tcp: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The experiment's Fig. 4.2 document for this SRU (``chapter`` 3:
    Table 3.1's, Figs. 3.8-3.12's, 256 KB only), at n servers;
    ``like_ns3``: as ns-3 runs it (requests together, 2 B of framing);
    ``ties``: the order of equal-time events (None: the engine's default);
    ``host_jitter_us`` > 0: the document's ``host_jitter``; ``tcp``: keys
    over the document's ``[tcp]`` (``--tcp``)."""
    if chapter == 3:
        from dcnsim.experiments.kulkarni.common import BASE, scenario

        if sru_kb != BASE.sru_kb:
            raise ValueError(f"--sru: Figs. 3.8-3.12 read {BASE.sru_kb} KB SRUs (Table 3.1), not {sru_kb} KB")
        doc = scenario(n, BASE, blocks)
    else:
        from dcnsim.experiments.kulkarni.fig4_2 import _fig42_points

        base = [p for p in _fig42_points(False) if f"-sru{sru_kb}k-" in p.label]
        if not base:
            raise ValueError(f"--sru: Fig. 4.2 has no {sru_kb} KB SRU")
        doc = json.loads(json.dumps(base[0].scenario))
    doc.update(seed=seed, name=f"ns3-kulkarni-sru{sru_kb}k-n{n}-s{seed}")
    doc["topology"].update(hosts=n + 1, buffer=f"{buffer_pkts}pkt")
    doc["apps"][0].update(servers=f"1-{n}", blocks=blocks)
    if like_ns3:
        doc["apps"][0]["jitter"] = "0s"
        doc["l2_overhead"] = 2
    if ties is not None:
        doc["ties"] = ties
    if host_jitter_us > 0:
        doc["host_jitter"] = f"{host_jitter_us:g}us"
    if tcp:
        doc["tcp"].update(tcp)
    return doc


def run_dcnsim(n: int, sru_kb: int, blocks: int, buffer_pkts: int, seed: int,
               like_ns3: bool = False, chapter: int = 4, ties: Optional[str] = None,
               host_jitter_us: float = 0.0, tcp: Optional[Dict[str, Any]] = None) -> Dict[str, float]:
    import dcnsim

    r = dcnsim.run(dcnsim_doc(n, sru_kb, blocks, buffer_pkts, seed, like_ns3, chapter, ties, host_jitter_us, tcp))
    b = r.tables["blocks"]
    # the servers' flows (the responses), as ns-3 counts its workers'
    f = r.flows[r.flows.src != 0]
    return {"goodput_mbps": float(b["bytes"].sum()) * 8 / float(b["duration_s"].sum()) / 1e6,
            "timeouts": float(b["timeouts"].mean()), "rtos": float(f.timeouts.sum()),
            "abtt": float(f.abtt.sum()), "ibtts": float(f.ibtt.sum()),
            **{name: float(f[f"rto_{name}"].sum()) for name in RTO_KINDS[1:]},
            **{name: float(f[name].sum()) for name in IBTT_KINDS}}


def aggregator_arrivals(pcap: bytes) -> List[Tuple[float, int, int]]:
    """The data segments a pcap of the aggregator's interface holds, in
    order: (time s, server numbered by its first arrival, segment from that
    server's first byte)."""
    out = []
    servers: Dict[str, Tuple[int, int]] = {}
    for t, ip in common.pcap_records(pcap):
        h = common.tcp_fields(ip)
        if h is None or h[7] <= 100:  # requests and ACKs
            continue
        src, seq = h[0], h[4]
        if src not in servers:
            servers[src] = (len(servers), seq)
        w, base = servers[src]
        out.append((t, w, ((seq - base) % (1 << 32)) // MSS))
    return out


#: --first-difference: arrivals within this are alike (ns-3 stamps whole µs)
ARRIVAL_SLACK_S = 2e-6


def first_difference(exe: Path, n: int, sru_kb: int, blocks: int, buffer_pkts: int, chapter: int,
                     karn: bool, rfc: bool, entry: bool, tcp: Optional[Dict[str, Any]],
                     workdir: Path) -> Dict[str, Any]:
    """One run a side with nothing random (every request at once, ns-3's
    2 B of framing and first-in first-out ties in dcnsim): how many of the
    aggregator's data arrivals agree from the first (the same server and
    segment, within :data:`ARRIVAL_SLACK_S` of the first arrival's time),
    of how many, and the first pair that does not, (µs, server, segment)
    from each side (None past one side's end)."""
    import dcnsim

    prefix = workdir / f"ns3-n{n}"
    common.run_program(ns3_args(exe, n, sru_kb, blocks, buffer_pkts, chapter, karn=karn, rfc=rfc, entry=entry)
                       + [f"--pcap={prefix}"])
    traced = sorted(workdir.glob(f"{prefix.name}-0-*.pcap"))
    if not traced:
        raise SystemExit(f"incast.cc wrote no pcap of the aggregator under {workdir}")
    ns3 = aggregator_arrivals(traced[0].read_bytes())
    doc = dcnsim_doc(n, sru_kb, blocks, buffer_pkts, 1, like_ns3=True, chapter=chapter, ties="fifo", tcp=tcp)
    doc["pcap"] = {"hosts": [0]}
    ours = aggregator_arrivals(dcnsim.run(doc).pcaps["h0.pcap"])
    agree = 0
    if ns3 and ours:
        for (ta, wa, sa), (tb, wb, sb) in zip(ns3, ours):
            if (wa, sa) != (wb, sb) or abs((ta - ns3[0][0]) - (tb - ours[0][0])) > ARRIVAL_SLACK_S:
                break
            agree += 1

    def at(side: List[Tuple[float, int, int]]) -> Optional[Tuple[float, int, int]]:
        if agree >= len(side):
            return None
        t, w, seg = side[agree]
        return (round((t - side[0][0]) * 1e6, 1), w, seg)

    return {"agree": agree, "ns3_arrivals": len(ns3), "dcnsim_arrivals": len(ours),
            "ns3": at(ns3), "dcnsim": at(ours)}


def pooled_share(runs: List[Dict[str, float]], kind: str, of: str = "rtos") -> str:
    """The share of ``runs``' timeouts of one kind (:data:`RTO_KINDS`,
    :data:`IBTT_KINDS`) in their timeouts (``of="rtos"``) or their IBTTs
    (``"ibtts"``), pooled over them, with the count it is a share of."""
    total = sum(r[of] for r in runs)
    what = "RTOs" if of == "rtos" else "IBTTs"
    return f"{sum(r[kind] for r in runs) / total:.3f} of {total:,.0f} {what}" if total else f"no {what[:-1]}"


def _task(job: Tuple) -> Tuple[Tuple, Dict[str, float]]:
    kind, key, args = job
    return (kind, key), (run_ns3(*args) if kind == "ns-3" else run_dcnsim(*args))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", default="4-12", help="server counts: N-M or a comma-separated list (default 4-12)")
    p.add_argument("--chapter", type=int, choices=[3, 4], default=4,
                   help="4: Fig. 4.2's setup (the default); 3: Table 3.1's (Figs. 3.8-3.12: 256 KB SRUs, 50 us "
                        "links, a 1000-segment window)")
    p.add_argument("--sru", type=int, nargs="+", default=None,
                   help="SRU sizes, KB (Fig. 4.2: 64 … 1024; default 256 1024; Chapter 3: 256 only)")
    p.add_argument("--blocks", type=int, default=40, help="blocks per point (a collapsed one takes ≥ 200 ms each)")
    p.add_argument("--buffer-pkts", type=int, default=32,
                   help="the port, packets (32: the experiment's reading of 32 KB; 30: its byte reading)")
    p.add_argument("--seeds", type=int, default=3, help="dcnsim seeds 1..N (ns-3 runs are deterministic)")
    p.add_argument("--only", choices=["dcnsim", "ns3"], help="run one simulator")
    p.add_argument("--like-ns3", action="store_true",
                   help="run dcnsim as ns-3 runs the experiment: every request at once (no U[0, 20 us] jitter) "
                        "and 2 B of point-to-point framing, so the two differ only in their simulators")
    p.add_argument("--ns3-jitter", action="store_true",
                   help="ns-3's requests after U[0, 20 us] as dcnsim's (the dissertation's ns-2 jitter), on ns-3 "
                        "runs 1..--seeds; without it every ns-3 request leaves at once and one run is deterministic")
    p.add_argument("--ties", choices=["seeded", "fifo"],
                   help="dcnsim's order of equal-time events (the scenario key `ties`; default: the engine's, "
                        "seeded); ns-3's is always fifo, the event scheduled first running first")
    p.add_argument("--host-jitter", type=float, default=0.0, metavar="US",
                   help="both simulators: the servers' packets up to this many microseconds late, at random, so "
                        "no two servers' packets arrive at the same instant (dcnsim's `host_jitter`: a packet that "
                        "finds its NIC idle starts that much later; incast.cc --host-jitter: every packet a server "
                        "sends reaches the switch that much later, on ns-3 runs 1..--seeds; default 0)")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE",
                   help="dcnsim [tcp] keys over the experiment's, e.g. rto_ssthresh=hold (RFC 5681's ssthresh on a "
                        "repeated timeout, dcnsim's default; the experiment sets ns-2's and ns-3's recompute)")
    p.add_argument("--ns3-karn", action="store_true",
                   help="ns-3's servers keep a backed-off RTO until an RTT sample, as Karn's algorithm (RFC 6298 "
                        "section 5), ns-2 and dcnsim keep it; ns-3.37 collapses it on every ACK of new data "
                        "(incast.cc --karn-backoff)")
    p.add_argument("--ns3-rfc", action="store_true",
                   help="ns-3's servers follow RFC 5681 where ns-3.37 departs from it, as ns-2 and dcnsim do: the "
                        "ACK that ends loss recovery grows cwnd, and ssthresh is half of FlightSize, not of ns-3's "
                        "bytes in flight (incast.cc --loss-exit-ack=1 --flightsize=1)")
    p.add_argument("--ns3-entry", action="store_true",
                   help="ns-3's fast recovery counts the three duplicate ACKs that began it as segments that left "
                        "the network (RFC 5681 section 3.2: cwnd = ssthresh + 3 SMSS, as ns-2 and dcnsim do); "
                        "without Limited Transmit ns-3.37 counts the third alone, so it sends new data two "
                        "duplicate ACKs later (incast.cc --reno-entry=1; with --ns3-rfc, whose ssthresh it leaves "
                        "alone). At small n only: where a window loses several segments ns-3's emulated SACK, "
                        "counting them, resends segments that arrived (validation/README.md)")
    p.add_argument("--first-difference", action="store_true",
                   help="run each n once a side with nothing random (requests at once, --like-ns3, first-in "
                        "first-out ties) and print how many of the aggregator's data arrivals agree, and the first "
                        "that does not")
    p.add_argument("--jobs", type=int, default=2, help="runs at once")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-incast")
    a = p.parse_args(argv)
    if a.sru is None:
        a.sru = [256] if a.chapter == 3 else [256, 1024]
    try:
        ns = parse_ns(a.n)
    except ValueError as e:
        p.error(str(e))
    if a.blocks < 1:
        p.error(f"--blocks: must be >= 1, got {a.blocks}")
    if a.buffer_pkts < 3:
        p.error(f"--buffer-pkts: must be >= 3 (ns-3's port keeps two packets outside its queue disc), "
                f"got {a.buffer_pkts}")
    if a.seeds < 1:
        p.error(f"--seeds: must be >= 1, got {a.seeds}")
    if a.jobs < 1:
        p.error(f"--jobs: must be >= 1, got {a.jobs}")
    if a.ns3_entry and not a.ns3_rfc:
        # ns-3 takes ssthresh from its pipe after the count unless --flightsize
        p.error("--ns3-entry: needs --ns3-rfc (without it ns-3's ssthresh would fall with the count)")
    try:
        a.tcp = common.parse_overrides(a.tcp)
    except ValueError as e:
        p.error(f"--tcp: {e}")
    if not 0 <= a.host_jitter < (MSS + 42) * 8e-3:
        p.error(f"--host-jitter: must be >= 0 and below a segment's serialization at 1 Gbps "
                f"({(MSS + 42) * 8e-3:.3f} us), got {a.host_jitter:g}")
    if a.only != "ns3":
        import dcnsim

        try:
            for kb in a.sru:
                bad = dcnsim.validate(dcnsim_doc(ns[0], kb, 1, a.buffer_pkts, 1, chapter=a.chapter, ties=a.ties,
                                                 host_jitter_us=a.host_jitter, tcp=a.tcp))
                if bad:
                    # a bad --tcp key or value, named before any run starts
                    p.error("; ".join(str(b) for b in bad))
        except ValueError as e:
            p.error(str(e))
    if a.first_difference:
        if a.only is not None or a.ns3_jitter or a.host_jitter > 0 or a.ties == "seeded":
            p.error("--first-difference: runs both simulators with nothing random; drop --only, "
                    "--ns3-jitter, --host-jitter and --ties seeded")
        import tempfile

        exe = common.ns3_binary(SOURCE, a.build)
        with tempfile.TemporaryDirectory(prefix="kulkarni-first-difference-") as tmp:
            for kb in a.sru:
                for n in ns:
                    d = first_difference(exe, n, kb, a.blocks, a.buffer_pkts, a.chapter, a.ns3_karn, a.ns3_rfc,
                                         a.ns3_entry, a.tcp, Path(tmp))
                    head = (f"{kb} KB n = {n}: {d['agree']:,} of the aggregator's {d['ns3_arrivals']:,} (ns-3) / "
                            f"{d['dcnsim_arrivals']:,} (dcnsim) data arrivals agree")
                    if d["ns3"] is None and d["dcnsim"] is None:
                        print(head + ": all")
                    else:
                        def side(x: Optional[Tuple[float, int, int]]) -> str:
                            return "nothing" if x is None else f"server {x[1]} segment {x[2]} at {x[0]:.1f} us"
                        print(head + f"; then ns-3 {side(d['ns3'])}, dcnsim {side(d['dcnsim'])}")
        return 0
    exe = common.ns3_binary(SOURCE, a.build) if a.only != "dcnsim" else None
    # ns-3 runs several seeds when something in it is drawn at random
    ns3_seeds = list(range(1, a.seeds + 1)) if a.ns3_jitter or a.host_jitter > 0 else [0]
    jobs = []
    for kb in a.sru:
        for n in ns:
            if exe is not None:
                jobs += [("ns-3", (kb, n, s), (exe, n, kb, a.blocks, a.buffer_pkts, a.chapter, s, a.host_jitter,
                                               a.ns3_jitter, a.ns3_karn, a.ns3_rfc, a.ns3_entry))
                         for s in ns3_seeds]
            if a.only != "ns3":
                jobs += [("dcnsim", (kb, n, s), (n, kb, a.blocks, a.buffer_pkts, s, a.like_ns3, a.chapter, a.ties,
                                                 a.host_jitter, a.tcp))
                         for s in range(1, a.seeds + 1)]
    with ProcessPoolExecutor(a.jobs) as ex:
        res = dict(ex.map(_task, jobs))
    print(f"Kulkarni {'Table 3.1 (Figs. 3.8-3.12)' if a.chapter == 3 else 'Fig. 4.2'}: goodput (Mbps) against "
          f"servers, {a.blocks} blocks a point, a {a.buffer_pkts}-packet port; dcnsim the mean of seeds 1-{a.seeds}"
          + (f", ns-3 of runs 1-{a.seeds} with its requests after U[0, {REQUEST_JITTER_US} us]" if a.ns3_jitter
             else f", ns-3 of runs 1-{a.seeds} with its requests all at once" if len(ns3_seeds) > 1
             else ", ns-3's requests all at once (one deterministic run)")
          + (", run as ns-3 runs it (no request jitter, 2 B framing)" if a.like_ns3 else "")
          + (f"; dcnsim's ties {a.ties}" if a.ties else "")
          + ("; dcnsim's [tcp] + " + ", ".join(f"{k} = {v}" for k, v in a.tcp.items()) if a.tcp else "")
          + ("; ns-3's backed-off RTOs kept until an RTT sample (Karn)" if a.ns3_karn else "")
          + ("; ns-3's recovery exit and ssthresh as RFC 5681's (--loss-exit-ack, --flightsize)" if a.ns3_rfc
             else "")
          + ("; ns-3's recovery counting the three duplicate ACKs that began it (--reno-entry)" if a.ns3_entry
             else "")
          + (f"; every server's packets up to {a.host_jitter:g} us late at random, in both" if a.host_jitter > 0
             else ""))

    def runs_of(sim: str, kb: int, n: int) -> List[Dict[str, float]]:
        return ([res[("ns-3", (kb, n, s))] for s in ns3_seeds] if sim == "ns-3"
                else [res[("dcnsim", (kb, n, s))] for s in range(1, a.seeds + 1)])

    def goodput(sim: str, kb: int, n: int) -> float:
        runs = runs_of(sim, kb, n)
        return sum(r["goodput_mbps"] for r in runs) / len(runs)

    sims = ([] if a.only == "dcnsim" else ["ns-3"]) + ([] if a.only == "ns3" else ["dcnsim"])
    for kb in a.sru:
        for sim in sims:
            print(f"{kb:5d} KB {sim:>7}: " + "  ".join(f"{n}:{goodput(sim, kb, n):.0f}" for n in ns))
        if exe is not None:
            print(f"{kb:5d} KB timeouts per block (ns-3): "
                  + "  ".join(f"{n}:{sum(r['timeouts'] for r in runs_of('ns-3', kb, n)) / len(ns3_seeds):.1f}"
                              for n in ns))
    print("the servers' timeouts (every seed's): how many, and the shares of them that were ABTTs (no "
          "byte of the block acknowledged), and that had no duplicate ACK since the last new ACK / one or two / "
          "three or more")
    for kb in a.sru:
        for n in ns:
            for sim in sims:
                runs = runs_of(sim, kb, n)
                total = sum(r["rtos"] for r in runs)
                shares = "  ".join(f"{k} {sum(r[k] for r in runs) / total:.2f}" if total else f"{k} -"
                                   for k in RTO_KINDS)
                print(f"{kb:5d} KB n = {n:3d} {sim:>7}: {total:8.0f} RTOs  {shares}")
    if a.chapter == 3:
        # the claims' own measures (docs/kulkarni.md: fig3.11-dominate,
        # fig3.12-whole-window, fig3.12-few-dupacks), over the n run here
        for sim in sims:
            small = [r for n in ns if n <= 3 for r in runs_of(sim, 256, n)]
            large = [r for n in ns if n > 3 for r in runs_of(sim, 256, n)]
            top = runs_of(sim, 256, max(ns))
            print(f"{sim:>7}: whole-window share of the IBTTs at n <= 3 "
                  f"{pooled_share(small, 'ibtt_whole_window', of='ibtts')} (of all RTOs "
                  f"{pooled_share(small, 'whole_window')}); few-dup-ACK share of the IBTTs at n > 3 "
                  f"{pooled_share(large, 'ibtt_few_dupacks', of='ibtts')} (of all RTOs "
                  f"{pooled_share(large, 'few_dupacks')}); ABTT share at n = {max(ns)} {pooled_share(top, 'abtt')}")
    if 7 in ns and 256 in a.sru and 1024 in a.sru:
        print("at 7 servers, 1 MB / 256 KB: "
              + ", ".join(f"{sim} {goodput(sim, 1024, 7) / goodput(sim, 256, 7):.2f}" for sim in sims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
