"""Fixed benchmark scenarios for ``dcnsim bench``.

Each scenario runs in one fresh subprocess (``python -m dcnsim.bench NAME
REPEAT``) so its peak RSS is its own; the child times ``_core.run`` for
each of its repeats and reports one JSON line. The child starts from this
module, not the command line, and this module imports nothing heavy (no
numpy, no pandas: the core's tables are ``array.array`` columns), so the
child's RSS is the interpreter plus the core and what the run holds.
"""

from __future__ import annotations

import functools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List

KEYS = ("scenario", "wall_s", "sim_s", "events", "events_per_s", "packet_hops", "packet_hops_per_s", "peak_rss_mb")


def incast_pa() -> Dict[str, Any]:
    """Partition/aggregate incast: 100 workers × 100 queries of 10 KB, star of 101 hosts."""
    return {
        "name": "incast_pa",
        "seed": 1,
        "stop": "100s",
        "topology": {"kind": "star", "hosts": 101, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "tcp": {"rto_min": "10ms"},
        "apps": [
            {
                "kind": "partition_aggregate",
                "aggregator": 0,
                "workers": "1-100",
                "response": "10KB",
                "queries": 100,
            }
        ],
    }


def longflows_64() -> Dict[str, Any]:
    """64 long NewReno flows into one receiver for 1 s (star, 65 hosts, 1 Gbps)."""
    return {
        "name": "longflows_64",
        "seed": 1,
        "stop": "1s",
        "topology": {"kind": "star", "hosts": 65, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "tcp": {"cc": "newreno"},
        "apps": [{"kind": "bulk", "src": i, "dst": 0, "duration": "1s"} for i in range(1, 65)],
    }


def _ns3_star(name: str, hosts: int, tcp: Dict[str, Any], stop: str, apps: List[Dict[str, Any]]) -> Dict[str, Any]:
    """validation/ns3_incast's star (incast.cc): 1 Gbps, 25 us links,
    100,000-byte ports, for DCTCP only RED with ECN at 20 packets (as
    incast.cc: the other transports' ports are drop-tail FIFOs, and their
    packets are not ECN-capable; RED drops what it cannot mark, which no
    DCTCP packet is), ns-3's 2 bytes of point-to-point framing, no host
    jitter, one path."""
    topology = {"kind": "star", "hosts": hosts, "rate": "1Gbps", "delay": "25us", "buffer": "100000B"}
    if tcp["cc"] == "dctcp":
        topology["ecn_k"] = "20pkt"
        topology["ecn_non_ect"] = "drop"
    return {
        "name": name, "seed": 1, "stop": stop, "l2_overhead": 2, "host_jitter": "0s",
        # to incast.cc's stop time, as validation/ns3_incast runs it
        "until": "stop",
        "topology": topology, "routing": {"mode": "single"}, "tcp": tcp, "apps": apps,
    }


def ns3_fast_incast_n100() -> Dict[str, Any]:
    """The FaST paper's incast as ns-3 runs it (``python
    validation/ns3_incast/run.py --setup fast --n 100 --queries 100 --cc
    newreno``): 100 workers answer 100 queries of 10,000 B over persistent
    connections, 10 ms apart; NewReno as ns-3's TcpNewReno (one SMSS per
    ACK in slow start, SMSS²/cwnd in congestion avoidance), initial window
    2, MSS 1460 without timestamps, SACK or Limited Transmit, RTOmin 10 ms,
    no delayed ACKs, a 65,535 B receive window. benchmarks/ns3_side_by_side.py
    times it against ns-3 3.37."""
    tcp = {"cc": "newreno", "mss": 1460, "header": 40, "init_cwnd": 2, "rto_min": "10ms", "sack": False,
           "delayed_ack": False, "rwnd": "65535B", "recovery": "dupack", "ca_increase": "per_ack", "abc_limit": 1,
           "limited_transmit": False}
    pa = {"kind": "partition_aggregate", "aggregator": 0, "workers": "1-100", "response": "10000B",
          "request": "64B", "queries": 100, "gap": "0.01s", "start": "0.1s"}
    return _ns3_star("ns3_fast_incast_n100", 101, tcp, "105.1s", [pa])


def ns3_dctcp_bulk_64() -> Dict[str, Any]:
    """64 DCTCP bulk flows into host 0 for 1 s on validation/ns3_incast's
    star (its ``issue18`` transport: initial window 10, MSS 1448 with
    timestamps, SACK, RTOmin 10 ms, no delayed ACKs). benchmarks/ns3_side_by_side.py
    times it against ns-3 3.37."""
    tcp = {"cc": "dctcp", "mss": 1448, "header": 52, "init_cwnd": 10, "rto_min": "10ms", "sack": True,
           "delayed_ack": False, "rwnd": "1MB", "recovery": "dupack"}
    return _ns3_star("ns3_dctcp_bulk_64", 65, tcp, "1s",
                     [{"kind": "bulk", "src": i, "dst": 0, "duration": "1s"} for i in range(1, 65)])


def derangement(n: int, seed: int) -> List[int]:
    """A seeded random permutation with no fixed point (Sattolo's algorithm:
    a uniformly random n-cycle), so no host sends to itself."""
    perm = list(range(n))
    rng = random.Random(seed)
    for i in range(n - 1, 0, -1):
        j = rng.randrange(i)  # j < i: Sattolo
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def fattree_k8() -> Dict[str, Any]:
    """k=8 fat-tree (128 hosts), ECMP, 1 Gbps: a random permutation of 128 bulk flows for 100 ms."""
    dst = derangement(128, seed=8)
    return {
        "name": "fattree_k8",
        "seed": 1,
        "stop": "100ms",
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "routing": {"mode": "ecmp"},
        "apps": [{"kind": "bulk", "src": i, "dst": dst[i], "duration": "100ms"} for i in range(128)],
    }


def dctcp_perm(k: int, stop: str, every: int = 1) -> Dict[str, Any]:
    """Mirror of htsim's DCTCP permutation example (csg-htsim 841d9e7
    ``datacenter/old_tests/main_dctcp_permutation.cpp``), so the two can be
    timed side by side: k-ary fat-tree, every link 10 Gbps with 1 us delay,
    9000-byte packets and 40-byte ACKs, 900,000-byte drop-tail queues
    marking ECN above 135,000 bytes (15 packets; htsim's ECNQueue counts
    bytes), one long DCTCP flow from every host to a random permutation
    partner on a per-flow random (ECMP) path. Set like htsim: initial window
    10 packets, initial ssthresh 15 packets, DCTCP's α starting at 0,
    initial RTO 10 ms (DCTCPSrc's) and RTO floor 250 ms, hosts that never
    drop their own packets (htsim has no NIC queue), no receive-window
    limit. What still differs (docs/performance.md): htsim marks on
    dequeue, ours on enqueue; htsim's DCTCP cuts every window while α > 0,
    ours only a window with marks; its RTO is a 10 ms scanner; its
    permutation and paths are drawn from the clock, ours from a fixed seed.

    ``every`` > 1 keeps only every ``every``-th host's flow (same partners):
    the same network carrying fewer flows, to tell a cost that grows with
    the network from one that grows with the traffic."""
    hosts = k ** 3 // 4
    dst = derangement(hosts, seed=8)
    return {
        "name": f"dctcp_perm_k{k}" + (f"_{hosts // every}flows" if every > 1 else ""),
        "seed": 1,
        "stop": stop,
        "topology": {
            "kind": "fat_tree",
            "k": k,
            "rate": "10Gbps",
            "delay": "1us",
            "buffer": "900000B",
            "ecn_k": "135000B",
            "nic_buffer": "unlimited",
        },
        "routing": {"mode": "ecmp"},
        "tcp": {
            "cc": "dctcp",
            "mss": 8960,
            "header": 40,
            "init_cwnd": 10,
            "init_ssthresh": 15,
            "dctcp_alpha_init": 0,
            "rto_init": "10ms",
            "rto_min": "250ms",
            "rwnd": "1GB",
        },
        "apps": [{"kind": "bulk", "src": i, "dst": dst[i], "duration": stop} for i in range(0, hosts, every)],
    }


def poisson_websearch_k8() -> Dict[str, Any]:
    """Web-search workload at 60 % load on the k=8 fat-tree (1 Gbps, 100-packet
    buffers, CUBIC, RTOmin 2 ms): Poisson arrivals for 200 ms (about 1 100
    flows, each a new TCP connection), run to 400 ms
    (scenarios/websearch_fattree.toml)."""
    return {
        "name": "poisson_websearch_k8",
        "seed": 1,
        "stop": "400ms",
        "topology": {"kind": "fat_tree", "k": 8, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "routing": {"mode": "ecmp"},
        "tcp": {"cc": "cubic", "rto_min": "2ms"},
        "apps": [{"kind": "poisson", "load": 0.6, "cdf": "websearch", "duration": "200ms"}],
    }


# The DCTCP paper's web-search flow sizes (Alizadeh et al., SIGCOMM 2010),
# as (bytes, cumulative probability); linear interpolation between points.
WEBSEARCH_CDF = [(0, 0.0), (10_000, 0.15), (20_000, 0.20), (30_000, 0.30), (50_000, 0.40), (80_000, 0.53),
                 (200_000, 0.60), (1_000_000, 0.70), (2_000_000, 0.80), (5_000_000, 0.90), (10_000_000, 0.97),
                 (30_000_000, 1.0)]
SOAK_SECONDS = (10, 30, 60)


def _websearch_size(u: float) -> int:
    for (x0, p0), (x1, p1) in zip(WEBSEARCH_CDF, WEBSEARCH_CDF[1:]):
        if u <= p1:
            return max(1, int(x0 + (x1 - x0) * (u - p0) / (p1 - p0)))
    return WEBSEARCH_CDF[-1][0]


def soak(stop_s: int = 60) -> Dict[str, Any]:
    """Churn on a k=4 fat-tree (16 hosts, 1 Gbps, ECMP, DCTCP): web-search
    flows between random host pairs arriving as a Poisson process at 30 %
    of the hosts' capacity for 60 s, so flows start and finish throughout.
    ``stop_s`` cuts the same run short: the run to 10 s is the first 10 s
    of the run to 60 s, so its peak RSS is the 60 s run's peak up to 10 s."""
    rng = random.Random(60)
    mean = 1_711_250  # bytes, the CDF's mean
    rate = 0.30 * 16 * 1e9 / 8 / mean  # flows per second
    apps, t = [], 0.0
    while True:
        t += rng.expovariate(rate)
        if t >= 60:
            break
        src = rng.randrange(16)
        dst = (src + 1 + rng.randrange(15)) % 16
        apps.append({"kind": "bulk", "src": src, "dst": dst, "size": _websearch_size(rng.random()),
                     "start": f"{t * 1e6:.0f}us"})
    return {
        "name": f"soak_{stop_s}s",
        "seed": 1,
        "stop": f"{stop_s}s",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "5us", "buffer": "200pkt",
                     "ecn_k": "20pkt"},
        "routing": {"mode": "ecmp"},
        "tcp": {"cc": "dctcp", "rto_min": "5ms"},
        "apps": apps,
    }


#: `dcnsim bench --scenario soak` runs these (not part of a plain `dcnsim bench`).
GROUPS: Dict[str, List[str]] = {"soak": [f"soak_{s}s" for s in SOAK_SECONDS]}

SCENARIOS: Dict[str, Callable[[], Dict[str, Any]]] = {
    "incast_pa": incast_pa,
    "longflows_64": longflows_64,
    # the two incasts timed against ns-3 (issue 48)
    "ns3_fast_incast_n100": ns3_fast_incast_n100,
    "ns3_dctcp_bulk_64": ns3_dctcp_bulk_64,
    "fattree_k8": fattree_k8,
    # htsim's example runs 0.21 s; the larger trees run shorter so a bench
    # stays minutes, not hours (benchmarks/htsim_side_by_side.py runs the
    # mirror for 0.21 s at every k, as stock htsim cannot be told otherwise)
    "dctcp_perm_k8": lambda: dctcp_perm(8, "210ms"),
    "poisson_websearch_k8": poisson_websearch_k8,
    "dctcp_perm_k12": lambda: dctcp_perm(12, "210ms"),
    "dctcp_perm_k16": lambda: dctcp_perm(16, "50ms"),
    # k = 16's network with k = 8's number of flows (128)
    "dctcp_perm_k16_128flows": lambda: dctcp_perm(16, "200ms", every=8),
    "dctcp_perm_k32": lambda: dctcp_perm(32, "10ms"),
    **{f"soak_{s}s": functools.partial(soak, s) for s in SOAK_SECONDS},
}

#: What ``dcnsim bench`` runs without ``--scenario`` (k = 12 and up are
#: opt-in: they take from tens of seconds to minutes).
DEFAULT = ("incast_pa", "longflows_64", "ns3_fast_incast_n100", "ns3_dctcp_bulk_64", "fattree_k8", "dctcp_perm_k8",
           "poisson_websearch_k8")


def _peak_rss_mb() -> float:
    """This process's peak resident set, in MB of 2**20 bytes.

    On Linux `ru_maxrss` is no good for a child: `execve` carries the
    spawning process's high-water mark into it, so a scenario smaller than
    the `dcnsim bench` parent would report the parent's RSS. `VmHWM` is the
    peak of this process's own address space, which starts empty at exec."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def child(name: str, repeat: int = 1, threads: Any = None) -> Dict[str, Any]:
    """Run one scenario ``repeat`` times in this process (on ``threads``
    threads: the scenario key, if given); report each wall time and the
    peak RSS over all of them."""
    if repeat < 1:
        raise ValueError(f"repeat: must be at least 1, got {repeat}")
    # The first run's tables import the standard library's `array` (a
    # built-in module, microseconds): nothing else to load before the clock.
    from . import _core
    from .scenario import to_json

    doc = SCENARIOS[name]()
    if threads is not None:
        doc["threads"] = threads
    text = to_json(doc)
    walls, counts = [], set()
    for _ in range(repeat):
        t0 = time.perf_counter()
        raw = _core.run(text, None)
        walls.append(time.perf_counter() - t0)
        for note in raw.get("notes", ()):  # the core's lines (one thread, and why): the parent reads stderr
            print(note, file=sys.stderr)
        s = raw["summary"]
        counts.add((int(s["events"]), int(s["packet_hops"])))
        del raw  # the next repeat's tables replace these, not sit beside them
    if len(counts) > 1:
        raise RuntimeError(f"bench {name}: repeats differ in events or packet-hops (the run is not deterministic)")
    return {
        "scenario": name,
        "walls_s": walls,
        "sim_s": float(s["sim_time_s"]),
        "events": float(s["events"]),
        "packet_hops": float(s["packet_hops"]),
        "peak_rss_mb": _peak_rss_mb(),
        "threads": int(s.get("threads", 1)),
    }


def run_one(name: str, repeat: int = 1, threads: Any = None) -> Dict[str, Any]:
    """Run ``name`` ``repeat`` times in one fresh interpreter (on
    ``threads`` threads if given); the record's ``wall_s`` is the median of
    its repeats (``walls_s``: each one)."""
    if name not in SCENARIOS:
        raise KeyError(name)
    if repeat < 1:
        raise ValueError(f"repeat: must be at least 1, got {repeat}")
    proc = subprocess.run(
        [sys.executable, "-m", "dcnsim.bench", name, str(repeat)] + ([str(threads)] if threads is not None else []),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    if proc.returncode != 0:
        how = f"exit {proc.returncode}"
        if proc.returncode < 0:  # a signal: the kernel's OOM killer sends SIGKILL
            import signal

            try:
                how = f"killed by {signal.Signals(-proc.returncode).name}"
            except ValueError:
                how = f"killed by signal {-proc.returncode}"
        said = proc.stderr.strip()
        raise RuntimeError(f"bench {name} failed ({how})" + (f":\n{said}" if said else ""))
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    # what the core said of how it ran (`--threads 2` on one thread, and
    # why): once each, though each repeat says it
    notes = list(dict.fromkeys(ln for ln in proc.stderr.splitlines() if ln.startswith("dcnsim: ")))
    walls = [float(w) for w in rec["walls_s"]]
    wall = statistics.median(walls)
    return {
        "scenario": name,
        "wall_s": wall,
        "sim_s": rec["sim_s"],
        "events": int(rec["events"]),
        "events_per_s": rec["events"] / wall if wall > 0 else float("nan"),
        "packet_hops": int(rec["packet_hops"]),
        "packet_hops_per_s": rec["packet_hops"] / wall if wall > 0 else float("nan"),
        "peak_rss_mb": rec["peak_rss_mb"],
        "walls_s": walls,
        "threads": rec.get("threads", 1),
        "said": notes,
    }


def _main(argv: List[str]) -> int:
    """The child: ``python -m dcnsim.bench NAME [REPEAT [THREADS]]`` prints one JSON line."""
    if not 1 <= len(argv) <= 3 or argv[0] not in SCENARIOS:
        print(f"usage: python -m dcnsim.bench NAME [REPEAT [THREADS]] (NAME one of {', '.join(SCENARIOS)})",
              file=sys.stderr)
        return 2
    threads: Any = None
    if len(argv) == 3:
        threads = argv[2] if argv[2] == "auto" else int(argv[2])
    print(json.dumps(child(argv[0], int(argv[1]) if len(argv) >= 2 else 1, threads)))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
