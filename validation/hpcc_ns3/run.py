"""TIMELY and DCQCN on a star incast beside the HPCC authors' ns-3
(alibaba-edu/High-Precision-Congestion-Control, ``simulation/``: TIMELY is
its ``CC_MODE 7``, DCQCN its ``CC_MODE 1``, both in
``src/point-to-point/model/rdma-hw.cc``).

Usage (from the repository root, with dcnsim importable)::

    python validation/hpcc_ns3/run.py NS3_BINARY [--transport timely dcqcn] [--n 4 8 16] [--json OUT]
    python validation/hpcc_ns3/run.py --build-dir DIR --transport dcqcn --n 16 --qlen
    python validation/hpcc_ns3/run.py NS3_BINARY --only ns3 --keep /tmp/hpcc-incast   # the fork's files and outputs

The incast: N senders and one receiver on one switch, every link 100 Gbps
with 1 µs propagation, each sender writes one 1,000,000-byte flow to the
receiver, all at once (the fork's t = 2.0 s, dcnsim's 0). Per (transport,
N) it prints the flows completed, FCT median / p99 / max in µs on both
sides, the last flow's FCT over the ideal N × size / 100 Gbps (payload
only), and both CPU times (the fork's whole process, ``RUSAGE_CHILDREN``,
set-up included; dcnsim's ``dcnsim.run`` in this process,
``time.process_time``). ``--qlen`` adds the receiver port's largest queue
(the fork: a second, untimed run with its packet trace on the switch,
``ENABLE_TRACE``; dcnsim: ``queues.max_bytes``); ``--ns-rate`` runs
dcnsim's links at the fork's effective data rate (below).

**The peer.** NS3_BINARY is the fork's ``scratch/third`` (its main: one
argument, a ``mix/config.txt``-style file); ``--build-dir DIR`` looks for
``DIR/third`` or ``DIR/build/third``. The fork is ns-3.17-era with a
python2 waf, and Debian 12 has no python2: build it without waf. Extract
``git archive HEAD simulation``; link every header that the ``headers``
lists of the wscripts of core, network, bridge, mpi, stats, config-store,
tools, internet, point-to-point and applications name into ``build/ns3/``
(flat), write ``build/ns3/<module>-module.h`` including each module's
headers, and ``build/ns3/core-config.h`` by hand (``INT64X64_USE_128``,
``HAVE___UINT128_T``, ``HAVE_STDINT_H``, ``HAVE_PTHREAD_H`` and the other
``HAVE_*`` configure would find; ``config-store-config.h`` empty); compile
those modules' ``module.source`` files (not NSC, GTK, libxml2, SQLite, the
tests or the Python bindings) and ``scratch/third.cc`` with ``g++ -O2
-std=gnu++11 -w -pthread -Ibuild`` (waf's optimized profile:
no ``NS3_ASSERT_ENABLE``/``NS3_LOG_ENABLE``) and link them into one
binary with ``-pthread -lrt``. Debian's g++ 12 compiles the unmodified
sources that way (the README's "gcc > 5 fails" is waf's ``-Werror``).

**The fork's side** (:func:`fork_config`): the configuration ``run.py
--cc timely|dcqcn --bw 100`` writes, only the file names and the queue
monitor (off: it samples every port every 100 ns and would dominate the
CPU time) changed: PFC on with the dynamic threshold (``BUFFER_SIZE 32``
MiB shared, α = 1/8, 4 KiB reserved and 3 × BDP of headroom per port),
ACKs first at the hosts, an ACK per packet, go-back-N, ``MIN_RATE
1000Mb/s``; TIMELY: ``RATE_AI 100Mb/s``, ``RATE_HAI 500Mb/s``, no window,
and rdma-hw.cc's defaults (α 0.875, β 0.8, T_low 50 µs, T_high 500 µs,
minRTT 20 µs; the hyper increase after 5 increases); DCQCN (Mellanox's
NIC): ``EWMA_GAIN 1/256``, α updated every 1 µs, a cut at most every 4 µs
(``RATE_DECREASE_INTERVAL``), the increase timer 300 µs, 1 fast-recovery
stage, ``RATE_AI 20Mb/s``, ``RATE_HAI 200Mb/s``, no byte counter, every
marked packet's ACK a CNP; RED marking at dequeue with K_min 400 KB,
K_max 1,600 KB, P_max 0.2 (run.py's maps at 100 Gbps; the fork's KB is
1,000 B).

**dcnsim's side** (:func:`mirror`): ``Star(hosts = N + 1)``, 100 Gbps,
1 µs, the receiver host N as in the fork; ``mss = 1000`` and ``header`` =
the fork's headers (PPP 14 + IPv4 20 + UDP 8 + SeqTs 6, + an 8-byte
timestamp for TIMELY: 1,056 and 1,048 B on the wire); ``buffer`` 32 MiB
per port (the fork's shared buffer: one port takes it all here);
``nic_buffer = "unlimited"`` (the fork's queue pairs never drop);
``[pfc]`` at the fork's dynamic threshold for N equally loaded inputs
(:func:`pfc_thresholds`; neither side pauses with 1 MB flows at N ≤ 16);
TIMELY: ``timely_alpha`` 0.875, ``timely_beta`` 0.8, ``timely_t_low`` 50
µs, ``timely_t_high`` 500 µs, ``timely_min_rtt`` 20 µs, ``timely_rai``
100 Mbps, ``timely_rhai`` 500 Mbps, ``timely_hai_after`` 5,
``timely_min_rate`` 1000 Mbps (the fork's ``MIN_RATE``), no ECN; DCQCN:
``ecn_k`` 400,000 B, ``ecn_kmax`` 1,600,000 B, ``ecn_pmax`` 0.2,
``dcqcn_g`` 1/256, ``dcqcn_timer`` 300 µs, ``dcqcn_f`` 1, ``dcqcn_rai``
20 Mbps, ``dcqcn_rhai`` 200 Mbps, ``dcqcn_min_rate`` 1000 Mbps,
``dcqcn_cnp_interval`` 4 µs (the fork's once-per-4-µs cut), the byte
counter out of reach (1 TB).

**What still differs.** The fork's clock is 1 ns and a packet's
serialization time is truncated to it: 1,056 B take 84 ns (100.57 Gbps)
and 1,048 B 83 ns (101.0 Gbps), so its FCTs run about 0.6 % (1 %) short
of 100 Gbps's. Its FCT ends when the sender gets the last ACK; dcnsim's
when the receiver has the last byte (half an RTT, ~2 µs, earlier). Its
ACKs are 60 B (padded), dcnsim's ``header`` bytes. DCQCN: the fork's α
decays every 1 µs and rises by g once per µs with a CNP, dcnsim's rises
by g per CNP and decays per ``dcqcn_timer``; the fork's increase is
fast recovery, then R_AI once, then R_HAI per timer, dcnsim's (no byte
counter) stays at R_AI after fast recovery; the fork's R_T is set to R_C
only by a cut that follows an increase (``CLAMP_TARGET_RATE 0``), so
through an incast's first run of cuts it stays at line rate and the
first fast recovery, 300 µs after the last cut, takes every sender from
the 1 Gbps floor to half the line rate at once, where dcnsim's R_T
follows R_C on every cut; the fork marks at dequeue on
the queue the packet leaves behind, dcnsim at arrival on the queue it
finds; the fork's CNP is every marked packet's ACK (the sender cuts at
most once per 4 µs), dcnsim's receiver sends one per 4 µs. The fork's
ECN marks draw from ns-3's global random stream, dcnsim's from the
port's seeded stream. A tool, not a test: nothing in CI runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RATE_GBPS = 100
DELAY_US = 1
PAYLOAD = 1000            # the fork's PACKET_PAYLOAD_SIZE
SIZE = 1_000_000          # bytes per sender
START_S = 2.0             # the fork's flows start at absolute seconds (its run.py's convention)
STOP_S = 4.0              # run.py's SIMULATOR_STOP_TIME
#: the fork's data-packet headers: PPP (14, Ethernet-sized) + IPv4 20 + UDP 8
#: + SeqTs 6, and TIMELY's 8-byte send timestamp (IntHeader::TS)
HEADER = {"timely": 14 + 20 + 8 + 6 + 8, "dcqcn": 14 + 20 + 8 + 6}
#: the fork's switch buffer (BUFFER_SIZE 16 * bw / 50 MiB) and its MMU's constants
BUFFER_BYTES = (16 * RATE_GBPS // 50) * 1024 * 1024
RESERVE = 4 * 1024
RESUME_OFFSET = 3 * 1024
HEADROOM = RATE_GBPS * 10**9 * DELAY_US * 1000 // 8 // 10**9 * 3   # rate · delay · 3, as third.cc
PFC_SHIFT = 3                                                        # α = 1/8 (every port at the NIC's rate)

CONFIG_TEMPLATE = """ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1

PACKET_PAYLOAD_SIZE {payload}

TOPOLOGY_FILE topology.txt
FLOW_FILE flow.txt
TRACE_FILE trace.txt
TRACE_OUTPUT_FILE mix.tr
FCT_OUTPUT_FILE fct.txt
PFC_OUTPUT_FILE pfc.txt

SIMULATOR_STOP_TIME {stop}

CC_MODE {mode}
ALPHA_RESUME_INTERVAL {t_alpha}
RATE_DECREASE_INTERVAL {t_dec}
CLAMP_TARGET_RATE 0
RP_TIMER {t_inc}
EWMA_GAIN {g}
FAST_RECOVERY_TIMES 1
RATE_AI {ai}Mb/s
RATE_HAI {hai}Mb/s
MIN_RATE 1000Mb/s
DCTCP_RATE_AI {dctcp_ai}Mb/s

ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0

HAS_WIN {has_win}
GLOBAL_T 1
VAR_WIN {vwin}
FAST_REACT {us}
U_TARGET {u_tgt}
MI_THRESH {mi}
INT_MULTI {int_multi}
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE {pint_log_base}
PINT_PROB {pint_prob}

RATE_BOUND 1

ACK_HIGH_PRIO {ack_prio}

LINK_DOWN {link_down}

ENABLE_TRACE {enable_tr}

KMAX_MAP {kmax_map}
KMIN_MAP {kmin_map}
PMAX_MAP {pmax_map}
BUFFER_SIZE {buffer_size}
QLEN_MON_FILE qlen.txt
QLEN_MON_START {qlen_start}
QLEN_MON_END {qlen_end}
"""


def fork_config(transport: str, trace: bool = False, bw: int = RATE_GBPS) -> str:
    """The config file the fork's ``run.py --cc TRANSPORT --bw BW`` writes
    (python2's integer division), with local file names and the queue
    monitor scheduled past the end (never runs); ``trace``: the packet
    trace (``ENABLE_TRACE 1``) of the nodes trace.txt lists."""
    kmax_map = "2 %d %d %d %d" % (bw * 1000000000, 400 * bw // 25, bw * 4 * 1000000000, 400 * bw * 4 // 25)
    kmin_map = "2 %d %d %d %d" % (bw * 1000000000, 100 * bw // 25, bw * 4 * 1000000000, 100 * bw * 4 // 25)
    pmax_map = "2 %d %.2f %d %.2f" % (bw * 1000000000, 0.2, bw * 4 * 1000000000, 0.2)
    common = dict(payload=PAYLOAD, stop="%.2f" % STOP_S, t_alpha=1, t_dec=4, t_inc=300, g=0.00390625,
                  dctcp_ai=1000, has_win=0, vwin=0, us=0, u_tgt=0.95, mi=0, int_multi=1, pint_log_base=1.01,
                  pint_prob=1.0, ack_prio=1, link_down="0 0 0", enable_tr=int(trace), kmax_map=kmax_map,
                  kmin_map=kmin_map, pmax_map=pmax_map, buffer_size=16 * bw // 50,
                  qlen_start=int((STOP_S + 1) * 1e9), qlen_end=int((STOP_S + 1) * 1e9))
    if transport == "timely":
        return CONFIG_TEMPLATE.format(mode=7, ai=10 * bw // 10, hai=50 * bw // 10, **common)
    if transport == "dcqcn":
        return CONFIG_TEMPLATE.format(mode=1, ai=5 * bw // 25, hai=50 * bw // 25, **common)
    raise ValueError(transport)


def write_fork_files(d: Path, transport: str, n: int, size: int = SIZE, trace: bool = False) -> None:
    """Topology (hosts 0 … n, the receiver n; switch n + 1), flows, trace
    list and config of the incast, in the formats of the fork's mix/*.txt."""
    d.mkdir(parents=True, exist_ok=True)
    sw = n + 1
    links = [f"{sw} {h} {RATE_GBPS}Gbps {DELAY_US / 1000:g}ms 0" for h in range(n + 1)]
    (d / "topology.txt").write_text(f"{n + 2} 1 {n + 1}\n{sw}\n" + "\n".join(links) + "\n")
    # src dst pg dport size start(s)
    flows = [f"{s} {n} 3 100 {size} {START_S}" for s in range(n)]
    (d / "flow.txt").write_text(f"{n}\n" + "\n".join(flows) + "\n")
    (d / "trace.txt").write_text(f"1\n{sw}\n" if trace else "0\n")
    (d / "config.txt").write_text(fork_config(transport, trace))


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_fork(binary: str, d: Path) -> dict:
    """Run the fork in ``d``; its FCTs (fct.txt: sip dip sport dport size
    start_ns fct_ns standalone_fct_ns), PFC events and CPU time."""
    c0, t0 = cpu_children(), time.perf_counter()
    p = subprocess.run([binary, "config.txt"], cwd=d, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, cpu_children() - c0
    (d / "stdout.txt").write_text(p.stdout)
    if p.returncode != 0:
        raise RuntimeError(f"the fork exited with {p.returncode}: {(p.stderr or p.stdout).strip()[-400:]}")
    fct, standalone = [], []
    for line in (d / "fct.txt").read_text().split("\n"):
        f = line.split()
        if len(f) == 8:
            fct.append(int(f[6]) * 1e-9)
            standalone.append(int(f[7]) * 1e-9)
    pfc = [line for line in (d / "pfc.txt").read_text().split("\n") if line.strip()]
    # the fork prints "Drop: ... Headroom full" when its MMU drops
    drops = p.stdout.count("Headroom full")
    return {"cpu": cpu, "wall": wall, "fct": fct, "standalone": standalone,
            "flows": int((d / "flow.txt").read_text().split()[0]),
            "pfc_pauses": sum(1 for x in pfc if x.split()[-1] == "0"), "drops": drops}


#: trace-format.h's TraceFormat (56 bytes, x86-64 alignment) up to its union
_REC = struct.Struct("<QHBBIIIHBBBB")
_REC_SIZE = 56


def fork_max_queue(trace: Path, n: int) -> int:
    """The largest queue (bytes of queue index 3, the data's) the fork's
    packet trace shows at the switch's port to the receiver (interface n + 1:
    the topology lists the switch's links in host order)."""
    raw = trace.read_bytes()
    (count,) = struct.unpack_from("<I", raw, 0)
    off = 4 + count * 11 + 4  # SimSetting: (u16 node, u8 intf, u64 bps) each, then u32 win
    best = 0
    for i in range(off, len(raw) - _REC_SIZE + 1, _REC_SIZE):
        _t, node, intf, qidx, qlen, _s, _d, _sz, _l3, event, _e, ntype = _REC.unpack_from(raw, i)
        if ntype == 1 and intf == n + 1 and qidx == 3 and event in (1, 2):
            best = max(best, qlen)
    return best


def pfc_thresholds(n: int) -> tuple:
    """(xoff, xon) in bytes for dcnsim's static [pfc], at the fork's dynamic
    threshold when ``n`` input ports hold the same: a port pauses once its
    shared bytes s (its bytes past the 4 KiB reserve) reach (B − headroom −
    reserve − n·s) >> 3, i.e. s = (B − H − R) / (8 + n), and resumes 3 KiB
    below."""
    ports = n + 1
    free = BUFFER_BYTES - ports * HEADROOM - ports * RESERVE
    shared = free // ((1 << PFC_SHIFT) + n)
    xoff = shared + RESERVE
    return xoff, xoff - RESUME_OFFSET


def ns_rate_bps(transport: str) -> int:
    """The rate the fork's links carry its data packets at: its clock is
    1 ns and ``Seconds(DataRate::CalculateTxTime(bytes))`` truncates, so
    PAYLOAD + HEADER bytes take floor(bits / 100) ns."""
    bits = (PAYLOAD + HEADER[transport]) * 8
    return bits * 10**9 // (bits * 10**9 // (RATE_GBPS * 10**9))


def mirror(transport: str, n: int, size: int = SIZE, ns_rate: bool = False):
    """dcnsim's scenario for the same incast (module docstring); ``ns_rate``:
    links at the fork's effective data rate (:func:`ns_rate_bps`)."""
    import dcnsim

    xoff, xon = pfc_thresholds(n)
    rate = f"{ns_rate_bps(transport)}bps" if ns_rate else f"{RATE_GBPS}Gbps"
    topo = dict(hosts=n + 1, rate=rate, delay=f"{DELAY_US}us", buffer=f"{BUFFER_BYTES}B",
                nic_buffer="unlimited")
    if transport == "timely":
        tcp = dcnsim.Tcp(transport="timely", mss=PAYLOAD, header=HEADER["timely"],
                         timely_alpha=0.875, timely_beta=0.8, timely_t_low="50us", timely_t_high="500us",
                         timely_min_rtt="20us", timely_rai="100Mbps", timely_rhai="500Mbps",
                         timely_hai_after=5, timely_min_rate="1000Mbps")
    else:
        # run.py's maps at 100 Gbps: K_min 400 KB, K_max 1,600 KB (KB = 1,000 B), P_max 0.2
        topo.update(ecn_k="400000B", ecn_kmax="1600000B", ecn_pmax=0.2)
        tcp = dcnsim.Tcp(transport="dcqcn", mss=PAYLOAD, header=HEADER["dcqcn"],
                         dcqcn_g=0.00390625, dcqcn_timer="300us", dcqcn_f=1, dcqcn_rai="20Mbps",
                         dcqcn_rhai="200Mbps", dcqcn_min_rate="1000Mbps", dcqcn_cnp_interval="4us",
                         dcqcn_byte_counter="1TB")
    return dcnsim.Scenario(
        name=f"hpcc_ns3_{transport}_n{n}", seed=1, stop="100ms",
        topology=dcnsim.Star(**topo), tcp=tcp, pfc=dcnsim.Pfc(xoff=f"{xoff}B", xon=f"{xon}B"),
        apps=[dcnsim.Bulk(src=s, dst=n, size=size) for s in range(n)])


def run_dcnsim(scenario, n: int) -> dict:
    """The mirror through the Python API, in this process."""
    import dcnsim

    c0, t0 = time.process_time(), time.perf_counter()
    r = dcnsim.run(scenario)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    flows = r.flows
    done = flows[flows["completed"]]
    q = r.queues
    port = q[(q["node"] == "sw") & (q["to"] == f"h{n}")]
    return {"cpu": cpu, "wall": wall, "fct": [float(x) for x in done["fct_s"]], "flows": len(flows),
            "pfc_pauses": int(r.summary.get("pfc_pauses") or 0), "drops": int(r.summary["packets_dropped"]),
            "max_queue": int(port["max_bytes"].iloc[0]) if len(port) else None,
            "cuts": int(flows["ecn_cuts"].sum()), "marks": int(flows["ecn_marks"].sum())}


def pct(v: list, q: float) -> float:
    s = sorted(v)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")


def fmt(r: dict, key: str) -> str:
    if r.get("error"):
        return "—"
    f = r["fct"]
    if not f:
        return "—"
    return {"med": f"{pct(f, 0.5) * 1e6:.1f}", "p99": f"{pct(f, 0.99) * 1e6:.1f}",
            "max": f"{max(f) * 1e6:.1f}"}[key]


def print_table(rows: list, size: int, qlen: bool) -> None:
    """One row per (transport, N): ``ns-3 / dcnsim`` in each cell."""

    def ideal(n: int) -> float:
        return n * size * 8 / (RATE_GBPS * 1e9)

    def ok(r: dict) -> bool:
        return not r.get("error")

    def ratio(r: dict, n: int) -> str:
        return f"{max(r['fct']) / ideal(n):.3f}" if ok(r) and r["fct"] else "—"

    def cnt(r: dict, k: str, f: str = "{}") -> str:
        return f.format(r[k]) if ok(r) and r.get(k) is not None else "—"

    def kb(r: dict) -> str:
        return f"{r['max_queue'] / 1000:.0f}" if ok(r) and r.get("max_queue") is not None else "—"

    def done(r: dict) -> str:
        return f"{len(r['fct'])}/{r['flows']}" if ok(r) else "—"

    print("| transport | N | flows completed (ns-3 / dcnsim) | FCT median µs (ns-3 / dcnsim) | FCT p99 µs | "
          "FCT max µs | ideal N·size/100G µs | last / ideal (ns-3 / dcnsim) | PFC pauses (ns-3 / dcnsim) |"
          + (" max queue KB (ns-3 / dcnsim) |" if qlen else "") + " CPU s (ns-3 / dcnsim) |")
    print("|---|---|---|---|---|---|---|---|---|" + ("---|" if qlen else "") + "---|")
    for transport, n, t, o in rows:
        q = f" {kb(t)} / {kb(o)} |" if qlen else ""
        print(f"| {transport} | {n} | {done(t)} / {done(o)} | "
              f"{fmt(t, 'med')} / {fmt(o, 'med')} | {fmt(t, 'p99')} / {fmt(o, 'p99')} | "
              f"{fmt(t, 'max')} / {fmt(o, 'max')} | {ideal(n) * 1e6:.1f} | {ratio(t, n)} / {ratio(o, n)} | "
              f"{cnt(t, 'pfc_pauses')} / {cnt(o, 'pfc_pauses')} |{q} "
              f"{cnt(t, 'cpu', '{:.2f}')} / {cnt(o, 'cpu', '{:.3f}')} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ns3", nargs="?", metavar="NS3_BINARY", help="the fork's scratch/third, built (module docstring)")
    ap.add_argument("--build-dir", help="where the fork was built: DIR/third or DIR/build/third")
    ap.add_argument("--transport", nargs="+", default=["timely", "dcqcn"], choices=["timely", "dcqcn"])
    ap.add_argument("--n", type=int, nargs="+", default=[4, 8, 16], help="senders")
    ap.add_argument("--size", type=int, default=SIZE, help="bytes per sender")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side per case (CPU: the median)")
    ap.add_argument("--only", choices=["ns3", "dcnsim"], help="run one side only")
    ap.add_argument("--qlen", action="store_true",
                    help="also the receiver port's largest queue (the fork: a second, traced run)")
    ap.add_argument("--ns-rate", action="store_true",
                    help="dcnsim's links at the fork's effective data rate (100.57 Gbps for TIMELY's 1,056 B, "
                         "101.0 for DCQCN's 1,048 B: its serialization times truncated to whole ns)")
    ap.add_argument("--keep", help="write the fork's files and outputs under KEEP/<transport>_n<N>/ and keep them")
    ap.add_argument("--json", help="write every run's numbers here")
    a = ap.parse_args()

    binary = None
    if a.only != "dcnsim":
        cands = [a.ns3] if a.ns3 else []
        if a.build_dir:
            cands += [os.path.join(a.build_dir, "third"), os.path.join(a.build_dir, "build", "third")]
        binary = next((c for c in cands if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)
        if binary is None:
            ap.error("give the fork's built scratch/third (NS3_BINARY or --build-dir; see the module docstring)")

    rows, raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(a.keep) if a.keep else Path(tmp)
        for transport in a.transport:
            for n in a.n:
                theirs: dict = {"error": "not run"}
                ours: dict = {"error": "not run"}
                if binary:
                    d = base / f"{transport}_n{n}"
                    write_fork_files(d, transport, n, a.size)
                    runs = [run_fork(binary, d) for _ in range(a.repeat)]
                    theirs = dict(runs[0], cpu=statistics.median(r["cpu"] for r in runs),
                                  cpus=[r["cpu"] for r in runs])
                    if a.qlen:
                        dt = base / f"{transport}_n{n}_trace"
                        write_fork_files(dt, transport, n, a.size, trace=True)
                        run_fork(binary, dt)
                        theirs["max_queue"] = fork_max_queue(dt / "mix.tr", n)
                if a.only != "ns3":
                    try:
                        runs = [run_dcnsim(mirror(transport, n, a.size, a.ns_rate), n) for _ in range(a.repeat)]
                        ours = dict(runs[0], cpu=statistics.median(r["cpu"] for r in runs),
                                    cpus=[r["cpu"] for r in runs])
                    except ValueError as e:  # dcnsim.ScenarioError: e.g. a transport this dcnsim lacks
                        ours = {"error": str(e).replace("\n", "; ")[:300]}
                        print(f"  dcnsim {transport} n={n}: {ours['error']}", file=sys.stderr)
                print(f"  {transport} n={n}: fork cpu {theirs.get('cpu', float('nan')):.2f}s, "
                      f"dcnsim cpu {ours.get('cpu', float('nan')):.3f}s", file=sys.stderr)
                rows.append((transport, n, theirs, ours))
                raw.append({"transport": transport, "n": n, "size": a.size, "ns3": theirs, "dcnsim": ours})

    print_table(rows, a.size, a.qlen)
    errs = [(tr, n, o["error"]) for tr, n, _, o in rows if o.get("error") and o["error"] != "not run"]
    for tr, n, e in errs:
        print(f"dcnsim {tr} n={n}: {e}")
    if a.json:
        from dcnsim._atomic import atomic_write

        atomic_write(a.json, lambda f: f.write(json.dumps(raw, indent=1)))


if __name__ == "__main__":
    main()
