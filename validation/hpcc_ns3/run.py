"""TIMELY, DCQCN and HPCC beside the HPCC authors' ns-3, on a star incast
or a fat-tree permutation (alibaba-edu/High-Precision-Congestion-Control,
``simulation/``: TIMELY is its ``CC_MODE 7``, DCQCN its ``CC_MODE 1``,
HPCC its ``CC_MODE 3``, all in ``src/point-to-point/model/rdma-hw.cc``).

Usage (from the repository root, with dcnsim importable)::

    python validation/hpcc_ns3/run.py NS3_BINARY [--transport timely dcqcn hpcc] [--n 4 8 16] [--json OUT]
    python validation/hpcc_ns3/run.py --build-dir DIR --transport dcqcn --n 16 --qlen
    python validation/hpcc_ns3/run.py NS3_BINARY --transport hpcc --topology fattree --k 4 --seed 1 --size 10000000
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

``--topology fattree --k 4`` (the star stays the default): a k-ary
fat-tree, every link 100 Gbps with 1 µs propagation, and a permutation:
host i writes ``--size`` bytes to host π(i), all at once, π a derangement
of the k³/4 hosts drawn from ``--seed`` (:func:`derangement`, the same on
both sides; ``--seed`` also salts dcnsim's ECMP hash). The fork's topology
file (:func:`fattree_links`, in the format of its ``mix/fat.txt``) numbers
its nodes as dcnsim does (:func:`fattree_nodes`: hosts pod by pod and edge
by edge, then per pod its edges ``edge{pod}_{i}`` and aggregation switches
``aggr{pod}_{i}``, then the cores), lists the links in dcnsim's order and
wires them as dcnsim's ``fat_tree`` does, so host h sits under the same
edge switch on both sides and flow i joins the same physical positions.
The paths do not match: the fork's switches hash (sip, dip, ports) with
their node id as seed (switch-node.cc ``EcmpHash``), dcnsim hashes its own
flow key salted by the scenario's seed, so which flows share a fabric link
differs (k = 4, seed 1: the fork puts two flows on 12 fabric ports,
dcnsim on 14, neither three on any), and a
permutation's FCTs are set by those collisions: compare the distributions
(median / p99 / max), not flows, and with ``--draws N`` over N ECMP draws
per side (the fork: another destination port per flow, :func:`fork_dport`;
dcnsim: another hash salt), the median and last FCT as the median over
the draws and their range. The ideal is one ``--size`` at 100 Gbps
(each host link carries one flow each way); ``--qlen`` there is the
largest queue of any switch port (the fork: every switch traced).

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
Found in a second build (2026-12-06): core's wscript adds some files only
under ``if env[...]`` (``int64x64-128``, the realtime simulator, the wall
clock synchronizer, ``system-thread``, ``unix-fd-reader``, the unix system
mutex and condition): take them with ``INT64X64_USE_128``,
``ENABLE_REAL_TIME`` and ``ENABLE_THREADING`` set, not the literal
``headers.source`` lists alone; the wscripts are Python 2 (read
``internet/wscript`` with tabs expanded); ``HAVE_UINT128_T`` must stay
undefined (``int64x64-128.h`` typedefs ``uint128_t`` only then). waf's own
optimized profile compiles with ``-O3 -march=native``, not ``-O2``: the
tables in docs/ were taken with ``-O2`` (the CPU times may differ).

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
(:func:`pfc_thresholds`; neither side pauses with 1 MB flows at N ≤ 16;
on the fat-tree the threshold with 2 of a switch's 4 ports loaded);
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
port's seeded stream.

**HPCC.** The fork's side is what ``run.py --cc hp --bw 100`` writes (its
defaults ``--utgt 95 --mi 0 --hpai 0``): ``CC_MODE 3``, ``RATE_AI``
10·bw/25 = 40 Mb/s, ``HAS_WIN 1``, ``VAR_WIN 1``, ``FAST_REACT 1``,
``U_TARGET 0.95``, ``MI_THRESH 0``, ``INT_MULTI`` bw/25 = 4, ``ACK_HIGH_PRIO
0``, and as for the others ``GLOBAL_T 1``, ``MULTI_RATE 0``,
``SAMPLE_FEEDBACK 0``, ``MIN_RATE 1000Mb/s``, PFC (ECN marks by the same
maps, which HPCC ignores). The fork works in rates (rdma-hw.cc
``UpdateRateHp``): on the first ACK past ``m_lastUpdateSeq`` (the
``snd_nxt`` of the last update) R_c ← R_c/(U/η) + R_AI, with U the
τ/T-smoothed max over hops of txRate/B + min(qlen, qlen_prev)/(B·T), when
U ≥ η or incStage ≥ MI_THRESH (with MI_THRESH 0 always: its additive
branch is never taken); every other ACK (fast react) sets R = R_c/(U/η) +
R_AI and leaves R_c; packets are paced at R and the window is maxBdp ·
R/R_line (``VAR_WIN``). maxBdp = B·T, so W = R·T exactly, and the rate law
is dcnsim's window law (docs/hpcc.md) times T: ``hpcc_eta`` 0.95,
``hpcc_max_stage`` 0 (the same test, incStage ≥ maxStage), ``hpcc_w_ai`` =
R_AI · T (:func:`hpcc_w_ai_bytes`: 40 Mb/s × 4.16 µs = 20.8 B, 21 B on the
star as dcnsim's sizes are whole bytes, +1 %; 62.4 → 62 B on the fat-tree,
−0.6 %), ``hpcc_base_rtt`` = the fork's T: third.cc's maxRtt, 2 × the
path's propagation plus the payload's serialization per link (1,000 B at
100 Gbps: 80 ns, headers not counted) on the longest host-to-host path
(:func:`fork_max_rtt`: 4,160 ns on the star, 12,480 ns on the k = 4
fat-tree), which ``GLOBAL_T 1`` gives every flow (the fat-tree's
intra-edge flows too, so not dcnsim's per-flow default); ``hpcc_rto``
100 ms, the run's end (the fork has no timeout: lossless, go-back-N on a
NACK only). ``header`` 90: the fork's HPCC packets carry its whole INT
header, 5 hops of 8 B and a 2-byte count, whatever the path (1,090 B,
87 ns on its clock: 100.23 Gbps); no ACK priority on either side (the
fork's switches never set ``AckHighPrio``).

``hpcc_u_init`` 1: the fork's U starts at 1 (rdma-queue-pair.cc;
dcnsim's default 0, htsim's η).

What still differs for HPCC: the fork's first ACK stores the
records and sets ``m_lastUpdateSeq`` to ``snd_nxt``, dcnsim's first ACK
stores them and its second moves W_c (to W_init: U is still small), so
both move the reference a round trip in; the fork's INT fields are
quantized (qlen in 80 × INT_MULTI = 320 B, bytes in 128 × INT_MULTI = 512
B, time in ns, 24 bits), dcnsim's exact; the fork's queue is the port's
total bytes left behind at dequeue, ACKs included, dcnsim's (under PFC)
what the packet leaves behind too; the fork's rate floor is ``MIN_RATE``
1 Gb/s, dcnsim's W_init/1000 (0.1 Gb/s, no key); the fork sends while in
flight < W (a packet past W), dcnsim while in flight + packet ≤ W; the
fork's pacing gaps are truncated to whole ns; its ACKs are 88 B (14 + 20
+ a 12-byte qbb header + the 42-byte INT), dcnsim's ``header`` bytes (90).
``MULTI_RATE`` (a rate per hop, the smallest taken) and
``SAMPLE_FEEDBACK`` (fast react skips hops with an empty queue) are off
in run.py and absent from dcnsim; fast react on every ACK is what dcnsim's
per-ACK ComputeWind(·, false) does. A tool, not a test: nothing in CI
runs it.
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
from typing import Optional

RATE_GBPS = 100
DELAY_US = 1
PAYLOAD = 1000            # the fork's PACKET_PAYLOAD_SIZE
SIZE = 1_000_000          # bytes per sender
START_S = 2.0             # the fork's flows start at absolute seconds (its run.py's convention)
STOP_S = 4.0              # run.py's SIMULATOR_STOP_TIME
#: the fork's data-packet headers: PPP (14, Ethernet-sized) + IPv4 20 + UDP 8
#: + SeqTs 6, and TIMELY's 8-byte send timestamp (IntHeader::TS) or HPCC's
#: INT header (IntHeader::NORMAL: 5 hops of 8 bytes and a 2-byte hop count,
#: whatever the path's length)
HEADER = {"timely": 14 + 20 + 8 + 6 + 8, "dcqcn": 14 + 20 + 8 + 6, "hpcc": 14 + 20 + 8 + 6 + 5 * 8 + 2}
TRANSPORTS = ("timely", "dcqcn", "hpcc")
CC_MODE = {"timely": 7, "dcqcn": 1, "hpcc": 3}
#: run.py --cc hp: RATE_AI 10·bw/25 Mb/s, INT_MULTI bw/25, U_TARGET utgt/100
HPCC_RAI_BPS = 10 * RATE_GBPS // 25 * 10**6
HPCC_ETA = 95 / 100.
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


def fork_config(transport: str, trace: bool = False, bw: int = RATE_GBPS, int_multi: Optional[int] = None) -> str:
    """The config file the fork's ``run.py --cc TRANSPORT --bw BW`` writes
    (python2's integer division), with local file names and the queue
    monitor scheduled past the end (never runs); ``trace``: the packet
    trace (``ENABLE_TRACE 1``) of the nodes trace.txt lists; ``int_multi``:
    HPCC's INT_MULTI instead of run.py's bw/25 (1: INT readings 4× finer
    at 100 Gbps: queue lengths in 80 B steps, bytes in 128 B)."""
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
    if transport == "hpcc":
        # run.py --cc hp --utgt 95 --mi 0 --hpai 0: ai = hai = 10·bw/25, window on
        # and variable, fast react, INT's units × bw/25, no ACK priority
        common.update(has_win=1, vwin=1, us=1, u_tgt=HPCC_ETA, mi=0,
                      int_multi=bw // 25 if int_multi is None else int_multi, ack_prio=0)
        return CONFIG_TEMPLATE.format(mode=3, ai=10 * bw // 25, hai=10 * bw // 25, **common)
    raise ValueError(transport)


def star_links(n: int) -> list:
    """The incast's links: hosts 0 … n (the receiver n), the switch n + 1."""
    return [(n + 1, h) for h in range(n + 1)]


def fattree_nodes(k: int) -> list:
    """dcnsim's names of a k-ary fat-tree's nodes, by node id (its node
    order, net/topology.rs ``fat_tree``): the hosts ``h{i}`` pod by pod and
    edge by edge, then per pod its edge switches ``edge{pod}_{i}`` and
    aggregation switches ``aggr{pod}_{i}``, then the cores ``core{i}``. The
    fork's topology file numbers its nodes the same way."""
    half = k // 2
    names = [f"h{h}" for h in range(k * half * half)]
    for pod in range(k):
        names += [f"edge{pod}_{i}" for i in range(half)] + [f"aggr{pod}_{i}" for i in range(half)]
    return names + [f"core{i}" for i in range(half * half)]


def fattree_links(k: int) -> list:
    """The fat-tree's links (node ids of :func:`fattree_nodes`) in dcnsim's
    order: host h to edge (h // (k/2)) % (k/2) of pod h // (k/2)², each edge
    to every aggregation switch of its pod, aggregation switch i of every
    pod to cores i·k/2 … i·k/2 + k/2 − 1."""
    half = k // 2
    hosts = k * half * half
    edge = [[hosts + pod * k + i for i in range(half)] for pod in range(k)]
    aggr = [[hosts + pod * k + half + i for i in range(half)] for pod in range(k)]
    core = [hosts + k * k + i for i in range(half * half)]
    links = [(h, edge[h // (half * half)][(h // half) % half]) for h in range(hosts)]
    links += [(e, a) for pod in range(k) for e in edge[pod] for a in aggr[pod]]
    links += [(a, c) for pod in range(k) for i, a in enumerate(aggr[pod]) for c in core[i * half:(i + 1) * half]]
    return links


def topology_text(nodes: int, switches: list, links: list) -> str:
    """The fork's topology format (its mix/fat.txt): ``nodes switches
    links``, the switches' ids, then ``a b rate delay error_rate``."""
    lines = [f"{nodes} {len(switches)} {len(links)}", " ".join(str(x) for x in switches)]
    lines += [f"{a} {b} {RATE_GBPS}Gbps {DELAY_US / 1000:g}ms 0" for a, b in links]
    return "\n".join(lines) + "\n"


def fork_max_rtt(nodes: int, switches: list, links: list) -> tuple:
    """third.cc's (maxRtt ns, maxBdp bytes): per host pair, a BFS through
    switches sums the links' delays and the payload's serialization times
    (PACKET_PAYLOAD_SIZE · 8 / bw, headers not counted); RTT = 2 · delay +
    that, BDP = RTT · the path's slowest rate. With ``GLOBAL_T 1`` (run.py's)
    every flow takes the largest as its base RTT and its window."""
    bw = RATE_GBPS * 10**9
    delay_ns = DELAY_US * 1000
    sw = set(switches)
    nbr: dict = {i: [] for i in range(nodes)}
    for a, b in links:
        nbr[a].append(b)
        nbr[b].append(a)
    max_rtt = max_bdp = 0
    for h in (i for i in range(nodes) if i not in sw):
        dis, d, tx, q = {h: 0}, {h: 0}, {h: 0}, [h]
        for now in q:
            for nxt in nbr[now]:
                if nxt not in dis:
                    dis[nxt], d[nxt] = dis[now] + 1, d[now] + delay_ns
                    tx[nxt] = tx[now] + PAYLOAD * 10**9 * 8 // bw
                    if nxt in sw:
                        q.append(nxt)
        for j in (x for x in dis if x not in sw):
            rtt = 2 * d[j] + tx[j]
            max_rtt, max_bdp = max(max_rtt, rtt), max(max_bdp, rtt * bw // 10**9 // 8)
    return max_rtt, max_bdp


def star_rtt_ns(n: int) -> int:
    return fork_max_rtt(n + 2, [n + 1], star_links(n))[0]


def fattree_rtt_ns(k: int) -> int:
    hosts = k ** 3 // 4
    return fork_max_rtt(len(fattree_nodes(k)), list(range(hosts, len(fattree_nodes(k)))), fattree_links(k))[0]


def derangement(n: int, seed: int) -> list:
    """π of 0 … n−1 with no fixed point, drawn from ``seed`` (Python's
    Mersenne Twister, shuffles until none is fixed): host i sends to π[i]."""
    import random

    rng = random.Random(seed)
    p = list(range(n))
    while True:
        rng.shuffle(p)
        if all(i != x for i, x in enumerate(p)):
            return p


def write_fork_files(d: Path, transport: str, n: int, size: int = SIZE, trace: bool = False,
                     topology: str = "star", k: int = 4, seed: int = 1, draw: int = 0,
                     int_multi: Optional[int] = None) -> None:
    """Topology, flows, trace list and config, in the formats of the fork's
    mix/*.txt. ``star``: hosts 0 … n, the receiver n, the switch n + 1,
    senders 0 … n−1. ``fattree``: :func:`fattree_nodes`'s numbering, host i
    to :func:`derangement` (k³/4, seed)[i] (``n`` unused); ``trace`` lists
    every switch. ``draw`` > 0: flow i's destination port is
    :func:`fork_dport` (draw, i), so the fork's ECMP hash draws other paths."""
    d.mkdir(parents=True, exist_ok=True)
    if topology == "star":
        switches, links, nodes = [n + 1], star_links(n), n + 2
        pairs = [(s, n) for s in range(n)]
    else:
        names = fattree_nodes(k)
        hosts = k ** 3 // 4
        switches, links, nodes = list(range(hosts, len(names))), fattree_links(k), len(names)
        pairs = list(enumerate(derangement(hosts, seed)))
    (d / "topology.txt").write_text(topology_text(nodes, switches, links))
    # src dst pg dport size start(s)
    flows = [f"{s} {t} 3 {fork_dport(draw, i)} {size} {START_S}" for i, (s, t) in enumerate(pairs)]
    (d / "flow.txt").write_text(f"{len(flows)}\n" + "\n".join(flows) + "\n")
    traced = switches if trace else []
    (d / "trace.txt").write_text(f"{len(traced)}\n" + "".join(f"{x}\n" for x in traced))
    (d / "config.txt").write_text(fork_config(transport, trace, int_multi=int_multi))


def fork_dport(draw: int, i: int) -> int:
    """Flow i's destination port in ECMP draw ``draw`` (0: run.py's 100 for
    every flow). The fork's switches hash (sip, dip, sport, dport) seeded by
    their node id, and it numbers source ports itself, so the port is the
    one input left to draw another set of paths with."""
    return 100 if draw == 0 else 100 + 17 * draw + i


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


def fork_max_queue(trace: Path, n: Optional[int]) -> int:
    """The largest queue (bytes of queue index 3, the data's) the fork's
    packet trace shows at the switch's port to the receiver (interface n + 1:
    the topology lists the switch's links in host order); ``n`` None: at
    any switch port traced (the fat-tree's)."""
    raw = trace.read_bytes()
    (count,) = struct.unpack_from("<I", raw, 0)
    off = 4 + count * 11 + 4  # SimSetting: (u16 node, u8 intf, u64 bps) each, then u32 win
    best = 0
    for i in range(off, len(raw) - _REC_SIZE + 1, _REC_SIZE):
        _t, node, intf, qidx, qlen, _s, _d, _sz, _l3, event, _e, ntype = _REC.unpack_from(raw, i)
        if ntype == 1 and (n is None or intf == n + 1) and qidx == 3 and event in (1, 2):
            best = max(best, qlen)
    return best


def pfc_thresholds(n: int, ports: Optional[int] = None) -> tuple:
    """(xoff, xon) in bytes for dcnsim's static [pfc], at the fork's dynamic
    threshold when ``n`` input ports of a switch of ``ports`` ports (the
    star's n + 1 by default) hold the same: a port pauses once its shared
    bytes s (its bytes past the 4 KiB reserve) reach (B − headroom −
    reserve − n·s) >> 3, i.e. s = (B − H − R) / (8 + n), and resumes 3 KiB
    below."""
    ports = n + 1 if ports is None else ports
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


def hpcc_w_ai_bytes(rtt_ns: int) -> int:
    """W_AI for dcnsim: the fork adds RATE_AI to the rate once per update,
    and its window is rate × T (VAR_WIN), so W_AI = RATE_AI × T, rounded to
    whole bytes (dcnsim's sizes are integers)."""
    return (HPCC_RAI_BPS * rtt_ns + 4 * 10**9) // (8 * 10**9)


def mirror(transport: str, n: int, size: int = SIZE, ns_rate: bool = False,
           topology: str = "star", k: int = 4, seed: int = 1, draw: int = 0):
    """dcnsim's scenario for the same case (module docstring); ``ns_rate``:
    links at the fork's effective data rate (:func:`ns_rate_bps`); ``draw``
    > 0: the scenario's seed (which salts the ECMP hash) is ``seed`` + 1000 ·
    ``draw``, the permutation still drawn from ``seed``."""
    import dcnsim

    rate = f"{ns_rate_bps(transport)}bps" if ns_rate else f"{RATE_GBPS}Gbps"
    topo = dict(rate=rate, delay=f"{DELAY_US}us", buffer=f"{BUFFER_BYTES}B", nic_buffer="unlimited")
    if topology == "star":
        xoff, xon = pfc_thresholds(n)
        rtt = star_rtt_ns(n)
        hosts = n + 1
        pairs = [(s, n) for s in range(n)]
    else:
        xoff, xon = pfc_thresholds(k // 2, k)
        rtt = fattree_rtt_ns(k)
        hosts = k ** 3 // 4
        pairs = list(enumerate(derangement(hosts, seed)))
    if transport == "timely":
        tcp = dcnsim.Tcp(transport="timely", mss=PAYLOAD, header=HEADER["timely"],
                         timely_alpha=0.875, timely_beta=0.8, timely_t_low="50us", timely_t_high="500us",
                         timely_min_rtt="20us", timely_rai="100Mbps", timely_rhai="500Mbps",
                         timely_hai_after=5, timely_min_rate="1000Mbps")
    elif transport == "dcqcn":
        # run.py's maps at 100 Gbps: K_min 400 KB, K_max 1,600 KB (KB = 1,000 B), P_max 0.2
        topo.update(ecn_k="400000B", ecn_kmax="1600000B", ecn_pmax=0.2)
        tcp = dcnsim.Tcp(transport="dcqcn", mss=PAYLOAD, header=HEADER["dcqcn"],
                         dcqcn_g=0.00390625, dcqcn_timer="300us", dcqcn_f=1, dcqcn_rai="20Mbps",
                         dcqcn_rhai="200Mbps", dcqcn_min_rate="1000Mbps", dcqcn_cnp_interval="4us",
                         dcqcn_byte_counter="1TB")
    elif transport == "hpcc":
        # T: the fork's maxRtt (GLOBAL_T 1), W_AI = RATE_AI × T, MI_THRESH 0 =
        # maxStage 0 (incStage ≥ 0 always: every update multiplicative); no RTO
        # in the fork (lossless), so none before the run's end
        tcp = dcnsim.Tcp(transport="hpcc", mss=PAYLOAD, header=HEADER["hpcc"], hpcc_eta=HPCC_ETA,
                         hpcc_max_stage=0, hpcc_w_ai=f"{hpcc_w_ai_bytes(rtt)}B", hpcc_base_rtt=f"{rtt}ns",
                         hpcc_u_init=1, hpcc_rto="100ms")
    else:
        raise ValueError(transport)
    if topology == "star":
        top = dcnsim.Star(hosts=hosts, **topo)
        name = f"hpcc_ns3_{transport}_n{n}"
    else:
        top = dcnsim.FatTree(k=k, **topo)
        name = f"hpcc_ns3_{transport}_fattree_k{k}"
    return dcnsim.Scenario(
        name=name, seed=seed + 1000 * draw, stop="100ms", routing="ecmp",
        topology=top, tcp=tcp, pfc=dcnsim.Pfc(xoff=f"{xoff}B", xon=f"{xon}B"),
        apps=[dcnsim.Bulk(src=s, dst=t, size=size) for s, t in pairs])


def run_dcnsim(scenario, n: Optional[int]) -> dict:
    """The mirror through the Python API, in this process; ``max_queue``:
    the star's port to the receiver (host ``n``), or with ``n`` None the
    largest of every switch port's."""
    import dcnsim

    c0, t0 = time.process_time(), time.perf_counter()
    r = dcnsim.run(scenario)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    flows = r.flows
    done = flows[flows["completed"]]
    q = r.queues
    port = q[~q["from_host"]] if n is None else q[(q["node"] == "sw") & (q["to"] == f"h{n}")]
    return {"cpu": cpu, "wall": wall, "fct": [float(x) for x in done["fct_s"]], "flows": len(flows),
            "pfc_pauses": int(r.summary.get("pfc_pauses") or 0), "drops": int(r.summary["packets_dropped"]),
            "max_queue": int(port["max_bytes"].max()) if len(port) else None,
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
    """One row per (transport, case): ``ns-3 / dcnsim`` in each cell. A row
    is (transport, case label, ideal last FCT in s, the fork's, dcnsim's):
    the star's ideal is N · size at 100 Gbps, the permutation's one size
    (every host link carries one flow each way)."""

    def ok(r: dict) -> bool:
        return not r.get("error")

    def ratio(r: dict, ideal: float) -> str:
        return f"{max(r['fct']) / ideal:.3f}" if ok(r) and r["fct"] else "—"

    def cnt(r: dict, k: str, f: str = "{}") -> str:
        return f.format(r[k]) if ok(r) and r.get(k) is not None else "—"

    def kb(r: dict) -> str:
        return f"{r['max_queue'] / 1000:.0f}" if ok(r) and r.get("max_queue") is not None else "—"

    def done(r: dict) -> str:
        return f"{len(r['fct'])}/{r['flows']}" if ok(r) else "—"

    print(f"size {size} B per flow")
    print("| transport | case | flows completed (ns-3 / dcnsim) | FCT median µs (ns-3 / dcnsim) | FCT p99 µs | "
          "FCT max µs | ideal last µs | last / ideal (ns-3 / dcnsim) | PFC pauses (ns-3 / dcnsim) |"
          + (" max queue KB (ns-3 / dcnsim) |" if qlen else "") + " CPU s (ns-3 / dcnsim) |")
    print("|---|---|---|---|---|---|---|---|---|" + ("---|" if qlen else "") + "---|")
    for transport, label, ideal, t, o in rows:
        q = f" {kb(t)} / {kb(o)} |" if qlen else ""
        print(f"| {transport} | {label} | {done(t)} / {done(o)} | "
              f"{fmt(t, 'med')} / {fmt(o, 'med')} | {fmt(t, 'p99')} / {fmt(o, 'p99')} | "
              f"{fmt(t, 'max')} / {fmt(o, 'max')} | {ideal * 1e6:.1f} | {ratio(t, ideal)} / {ratio(o, ideal)} | "
              f"{cnt(t, 'pfc_pauses')} / {cnt(o, 'pfc_pauses')} |{q} "
              f"{cnt(t, 'cpu', '{:.2f}')} / {cnt(o, 'cpu', '{:.3f}')} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ns3", nargs="?", metavar="NS3_BINARY", help="the fork's scratch/third, built (module docstring)")
    ap.add_argument("--build-dir", help="where the fork was built: DIR/third or DIR/build/third")
    ap.add_argument("--transport", nargs="+", default=["timely", "dcqcn"], choices=list(TRANSPORTS))
    ap.add_argument("--topology", choices=["star", "fattree"], default="star",
                    help="star: the N-sender incast; fattree: a k-ary fat-tree's permutation (--k, --seed)")
    ap.add_argument("--n", type=int, nargs="+", default=[4, 8, 16], help="senders (star)")
    ap.add_argument("--k", type=int, default=4, help="the fat-tree's k (fattree)")
    ap.add_argument("--seed", type=int, default=1,
                    help="draws the permutation (fattree) and salts dcnsim's ECMP hash")
    ap.add_argument("--size", type=int, default=SIZE, help="bytes per flow")
    ap.add_argument("--int-multi", type=int,
                    help="hpcc: the fork's INT_MULTI instead of run.py's bw/25 (1: its INT readings 4x finer)")
    ap.add_argument("--draws", type=int, default=1,
                    help="fattree: run each side under this many ECMP draws (the fork: other destination "
                         "ports; dcnsim: other hash salts) and print the spread of the median and last FCT")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side per case (CPU: the median)")
    ap.add_argument("--only", choices=["ns3", "dcnsim"], help="run one side only")
    ap.add_argument("--qlen", action="store_true",
                    help="also the largest queue: the star's receiver port, every switch port of the fat-tree "
                         "(the fork: a second, traced run)")
    ap.add_argument("--ns-rate", action="store_true",
                    help="dcnsim's links at the fork's effective data rate (100.57 Gbps for TIMELY's 1,056 B, "
                         "101.0 for DCQCN's 1,048 B, 100.23 for HPCC's 1,090 B: its serialization times "
                         "truncated to whole ns)")
    ap.add_argument("--keep", help="write the fork's files and outputs under KEEP/<transport>_n<N>/ "
                                   "(KEEP/<transport>_fattree_k<K>/) and keep them")
    ap.add_argument("--json", help="write every run's numbers here")
    a = ap.parse_args()
    if a.topology == "fattree" and (a.k < 2 or a.k % 2):
        ap.error(f"--k must be even and at least 2, got {a.k}")
    bad_n = [n for n in a.n if n < 1]
    if bad_n:
        ap.error(f"--n: senders must be >= 1, got {bad_n[0]}")
    for flag, v in (("--size", a.size), ("--repeat", a.repeat)):
        if v < 1:
            ap.error(f"{flag}: must be >= 1, got {v}")
    if a.seed < 0:
        ap.error(f"--seed: must be >= 0, got {a.seed}")
    if a.draws < 1 or (a.draws > 1 and a.topology != "fattree"):
        ap.error("--draws N (N ≥ 1) is for --topology fattree: a star's incast has one path")

    binary = None
    if a.only != "dcnsim":
        cands = [a.ns3] if a.ns3 else []
        if a.build_dir:
            cands += [os.path.join(a.build_dir, "third"), os.path.join(a.build_dir, "build", "third")]
        binary = next((c for c in cands if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)
        if binary is None and cands:
            ap.error(f"no executable fork build at {' or '.join(cands)} (the fork's scratch/third, built as the "
                     "module docstring says; --only dcnsim runs without it)")
        if binary is None:
            ap.error("give the fork's built scratch/third (NS3_BINARY or --build-dir; see the module docstring)")

    if a.draws > 1:
        draws_table(a, binary)
        return

    if a.topology == "star":
        cases = [(n, f"{n}", f"n{n}", n * a.size * 8 / (RATE_GBPS * 1e9)) for n in a.n]
    else:
        cases = [(None, f"k={a.k} perm", f"fattree_k{a.k}", a.size * 8 / (RATE_GBPS * 1e9))]
    topo_kw = dict(topology=a.topology, k=a.k, seed=a.seed)
    rows, raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(a.keep) if a.keep else Path(tmp)
        for transport in a.transport:
            for n, label, tag, ideal in cases:
                theirs: dict = {"error": "not run"}
                ours: dict = {"error": "not run"}
                nn = n if n is not None else 0
                if binary:
                    d = base / f"{transport}_{tag}"
                    write_fork_files(d, transport, nn, a.size, int_multi=a.int_multi, **topo_kw)
                    runs = [run_fork(binary, d) for _ in range(a.repeat)]
                    theirs = dict(runs[0], cpu=statistics.median(r["cpu"] for r in runs),
                                  cpus=[r["cpu"] for r in runs])
                    if a.qlen:
                        dt = base / f"{transport}_{tag}_trace"
                        write_fork_files(dt, transport, nn, a.size, trace=True, int_multi=a.int_multi, **topo_kw)
                        run_fork(binary, dt)
                        theirs["max_queue"] = fork_max_queue(dt / "mix.tr", n)
                if a.only != "ns3":
                    try:
                        runs = [run_dcnsim(mirror(transport, nn, a.size, a.ns_rate, **topo_kw), n)
                                for _ in range(a.repeat)]
                        ours = dict(runs[0], cpu=statistics.median(r["cpu"] for r in runs),
                                    cpus=[r["cpu"] for r in runs])
                    except ValueError as e:  # dcnsim.ScenarioError: e.g. a transport this dcnsim lacks
                        ours = {"error": str(e).replace("\n", "; ")[:300]}
                        print(f"  dcnsim {transport} {label}: {ours['error']}", file=sys.stderr)
                def secs(run, fmt):
                    # a side that did not run (`--only`) has no time to print
                    return f"{run['cpu']:{fmt}}s" if "cpu" in run else "not run"

                print(f"  {transport} {label}: fork cpu {secs(theirs, '.2f')}, "
                      f"dcnsim cpu {secs(ours, '.3f')}", file=sys.stderr)
                rows.append((transport, label, ideal, theirs, ours))
                raw.append({"transport": transport, "topology": a.topology, "n": n,
                            "k": a.k if n is None else None, "seed": a.seed, "size": a.size,
                            "ns3": theirs, "dcnsim": ours})

    print_table(rows, a.size, a.qlen)
    errs = [(tr, lb, o["error"]) for tr, lb, _, _, o in rows if o.get("error") and o["error"] != "not run"]
    for tr, lb, e in errs:
        print(f"dcnsim {tr} {lb}: {e}")
    if a.json:
        from dcnsim._atomic import atomic_write

        atomic_write(a.json, lambda f: f.write(json.dumps(raw, indent=1)))


def draws_table(a, binary: Optional[str]) -> None:
    """``--draws``: per transport, the permutation's median and last FCT on
    each side, as the median over the draws and their range."""
    rows, raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for transport in a.transport:
            med: dict = {"ns3": [], "dcnsim": []}
            last: dict = {"ns3": [], "dcnsim": []}
            for draw in range(a.draws):
                kw = dict(topology="fattree", k=a.k, seed=a.seed, draw=draw)
                if binary:
                    d = Path(tmp) / f"{transport}_{draw}"
                    write_fork_files(d, transport, 0, a.size, int_multi=a.int_multi, **kw)
                    f = run_fork(binary, d)["fct"]
                    med["ns3"].append(statistics.median(f))
                    last["ns3"].append(max(f))
                if a.only != "ns3":
                    f = run_dcnsim(mirror(transport, 0, a.size, a.ns_rate, **kw), None)["fct"]
                    med["dcnsim"].append(statistics.median(f))
                    last["dcnsim"].append(max(f))
                print(f"  {transport} draw {draw} done", file=sys.stderr)
            rows.append((transport, med, last))
            raw.append({"transport": transport, "k": a.k, "seed": a.seed, "size": a.size,
                        "draws": a.draws, "median_fct": med, "last_fct": last})

    def cell(v: list) -> str:
        if not v:
            return "—"
        return f"{statistics.median(v) * 1e6:.0f} ({min(v) * 1e6:.0f}–{max(v) * 1e6:.0f})"

    print(f"k = {a.k} permutation (seed {a.seed}), {a.size} B per flow, {a.draws} ECMP draws per side; "
          "the median over draws (their range)")
    print("| transport | median FCT µs, ns-3 | median FCT µs, dcnsim | last FCT µs, ns-3 | last FCT µs, dcnsim |")
    print("|---|---|---|---|---|")
    for transport, med, last in rows:
        print(f"| {transport} | {cell(med['ns3'])} | {cell(med['dcnsim'])} | {cell(last['ns3'])} | "
              f"{cell(last['dcnsim'])} |")
    if a.json:
        from dcnsim._atomic import atomic_write

        atomic_write(a.json, lambda f: f.write(json.dumps(raw, indent=1)))


if __name__ == "__main__":
    main()
