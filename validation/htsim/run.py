"""NDP, HPCC, Swift and DCQCN side by side: htsim's own ``main_ndp`` (its authors'
NDP), ``main_hpcc``, ``main_swift`` or ``main_roce -dcqcn`` and dcnsim's mirror, on a permutation and an
incast of a k-ary fat-tree, runs interleaved.

Usage (from the repository root, with dcnsim importable)::

    python validation/htsim/run.py HTSIM_NDP [--k 4 8] [--pairs 3] [--json FILE]
    python validation/htsim/run.py HTSIM_HPCC --transport hpcc [--k 4 8] [--pairs 3] [--seeds 1 2 3]
    python validation/htsim/run.py HTSIM_SWIFT --transport swift [--queue-pkts 200] [--k 4 8] [--pairs 3] [--plb] [--seeds 1 2 3]
    python validation/htsim/run.py HTSIM_ROCE --transport dcqcn [--k 4] [--pairs 3] [--seeds 1 2 3]

DCQCN (``--transport dcqcn``, docs/dcqcn.md): csg-htsim has no DCQCN; the
Ultra Ethernet Consortium's htsim (ultraethernet/uet-htsim and its forks,
``sim/dcqcn.cpp``) does, run by its ``main_roce`` with ``-dcqcn K``
(ECN at K packets, marked at dequeue, lossless input queues with PFC at
12/15 packets, 4,000-byte MTU with 64-byte headers, 1 µs links, 100 Gbps).
As shipped it cannot run these workloads (its scheduled events multiply
past ~750 µs: its timer reschedules start extra pacing chains and α, one
value shared by every sender, decays on every event once 55 µs passed);
HTSIM_ROCE is main_roce built with three changes, in words: α per sender,
α's last-update time set when it decays, and the timer/pacing event doing
nothing once the flow is done (the byte counter counting bytes, not
packets, a fourth, changes nothing at these sizes). It runs with ``-strat
ecmp_host -paths 256 -q 1000 -dcqcn 10``; CNP counts are read from a
``FLOW … cnps N`` line per flow when the build prints one. The mirror
(:func:`mirror` with ``transport = "dcqcn"``): ``ecn_k = "40000B"``,
``[pfc]`` at 60,000 / 48,000 B, ``buffer = "100MB"``, ``routing.mode =
"ecmp"``, ``tcp.transport = "dcqcn"`` with ``mss = 4000``, ``header = 64``
and the DCQCN defaults (htsim's).

With ``--transport swift`` the binary is csg-htsim's ``htsim_swift`` (``make
htsim_swift`` in ``sim/datacenter``) and the mirror is :func:`swift_mirror`
(docs/swift.md says what is mirrored and why).

HPCC (``--transport hpcc``, docs/hpcc.md): ``htsim_hpcc`` (``make
htsim_hpcc`` in ``sim/datacenter``) runs with its defaults (lossless
input queues with PFC at 12/15 packets of 9,000 B, 1 µs links, 100 Gbps,
T = 12 µs, η = 0.95, maxStage 5, W_AI = one MTU) and ``-strat ecmp_host
-paths 1`` (per-flow ECMP, the only strategy its main accepts); the
mirror (:func:`mirror` with ``transport = "hpcc"``) is ``routing.mode = "ecmp"``, ``buffer =
"100MB"`` (no drop, as htsim's lossless queues) with ``[pfc]`` at htsim's
thresholds (its defaults; ``--no-pfc``: without, the queue then stays at
the congested port instead of spreading upstream), ``tcp.transport = "hpcc"`` with
``hpcc_base_rtt = "12us"`` and ``hpcc_w_ai = 9000``. The NDP-specific
columns read as: retransmissions in bytes for htsim (its ``Rtx``
counter), packets for dcnsim; trims none.

HTSIM_NDP is csg-htsim's ``htsim_ndp`` (tested at 841d9e7), built stock
outside this repository: ``make libhtsim.a`` in ``sim/`` and ``make
htsim_ndp`` in ``sim/datacenter``. It runs as its authors ship it, with
its defaults (composite queues of 15 packets of 9,000 B, headers queued
first up to twice that, 1 µs links, 100 Gbps, 9,000-byte MTU with 64-byte
headers, initial window 15, pull pacer at 0.99 of line rate, minimum RTO
50 ms, no return-to-sender) and ``-strat rand`` (a random path per
packet: what dcnsim's ``rps`` gives on a fat-tree) on a connection matrix
written here.

The mirror (:func:`mirror`): the same fat-tree, ``routing.mode = "rps"``,
``buffer = "135000B"`` (htsim's ``memFromPkt(15)``), ``nic_buffer =
"unlimited"`` (htsim's host queues), ``[trimming]`` with its defaults,
``tcp.transport = "ndp"`` with ``mss = 9000``, ``header = 64`` and the
NDP defaults, which are htsim's.

Workloads: ``perm``: host i sends ``--perm-size`` bytes to host
(i + n/2) mod n (every flow crosses the core); ``incast``: hosts 1 … m
(m = min(n − 1, 31)) each send ``--incast-size`` bytes to host 0. All flows
start at 0.

Per run: median and p99 flow completion time, total goodput (bytes
delivered over the last completion), retransmissions (htsim's ``Rtx``;
with trimming and no timeouts, one per trimmed packet) and bounces, and
the whole process's CPU seconds (``RUSAGE_CHILDREN``: htsim's set-up and
log included, as dcnsim's interpreter start, scenario check and tables).
Packet-hops per CPU second are compared on dcnsim's count of hops for
both (the two run the same packets up to the differences reported), so
the speed ratio is htsim's CPU over dcnsim's. The machine is shared:
runs alternate (htsim, dcnsim) ``--pairs`` times and medians are
reported. ``--check R`` judges each case: the same flows completed, and
dcnsim's FCT median, FCT p99 and goodput each within a factor R of htsim's
either way; the verdicts follow the table, with the exit status 1 if any
case is outside (or htsim failed on one). A tool, not a test: nothing in
CI runs it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: htsim's main_ndp defaults, mirrored.
RATE = "100Gbps"
MTU = 9000
HEADER = 64
QUEUE_BYTES = 15 * MTU

#: main_roce's packet and its -dcqcn threshold (packets of the MTU)
DCQCN_MTU = 4000
DCQCN_K_PKTS = 10


def hosts(k: int) -> int:
    return k * k * k // 4


def connections(k: int, workload: str, perm_size: int, incast_size: int) -> list:
    n = hosts(k)
    if workload == "perm":
        return [(i, (i + n // 2) % n, perm_size) for i in range(n)]
    m = min(n - 1, 31)
    return [(s, 0, incast_size) for s in range(1, m + 1)]


def write_matrix(path: Path, n: int, conns: list) -> None:
    lines = [f"Nodes {n}", f"Connections {len(conns)}"]
    lines += [f"{s}->{d} start 0 size {b}" for s, d, b in conns]
    path.write_text("\n".join(lines) + "\n")


def mirror(k: int, conns: list, end_us: int, transport: str = "ndp", pfc: bool = True) -> dict:
    """dcnsim's scenario for the same fabric and connections: htsim's
    main_ndp (``rps``, trimming) or main_hpcc (per-flow ECMP, its lossless
    fabric: ``[pfc]`` at htsim's thresholds and egress queues too large to
    drop; ``pfc = False``: the queues alone, the mirror before dcnsim had PFC)."""
    topo_extra: dict = {}
    if transport == "ndp":
        extra: dict = {"routing": {"mode": "rps"}, "trimming": {}}
        buffer = f"{QUEUE_BYTES}B"
        tcp = {"transport": "ndp", "mss": MTU, "header": HEADER, "ndp_initial_window": 15}
    elif transport == "dcqcn":
        # main_roce: lossless input queues pausing at 15 packets and
        # resuming at 12, ECN at -dcqcn packets, per-flow ECMP
        extra = {"routing": {"mode": "ecmp"},
                 "pfc": {"xoff": f"{15 * DCQCN_MTU}B", "xon": f"{12 * DCQCN_MTU}B"} if pfc else {"enabled": False}}
        buffer = "100MB"
        topo_extra = {"ecn_k": f"{DCQCN_K_PKTS * DCQCN_MTU}B"}
        tcp = {"transport": "dcqcn", "mss": DCQCN_MTU, "header": HEADER}
    else:
        # htsim's lossless fabric: PFC at its thresholds (the [pfc] defaults:
        # 15 and 12 packets of 9,000 B), egress queues that never drop
        extra = {"routing": {"mode": "ecmp"}, "pfc": {} if pfc else {"enabled": False}}
        buffer = "100MB"
        tcp = {"transport": "hpcc", "mss": MTU, "header": HEADER, "hpcc_base_rtt": "12us", "hpcc_w_ai": MTU}
    return {
        "name": f"{transport}_k{k}",
        "seed": 1,
        "stop": f"{end_us}us",
        **extra,
        "topology": {"kind": "fat_tree", "k": k, "rate": RATE, "delay": "1us",
                     "buffer": buffer, "nic_buffer": "unlimited", **topo_extra},
        "tcp": tcp,
        "apps": [{"kind": "bulk", "src": s, "dst": d, "size": f"{b}B"} for s, d, b in conns],
    }


class HtsimFailed(RuntimeError):
    """htsim ended without its results (an assertion's abort, a crash): the
    case gets no row, and the table says so beneath it."""


def htsim_failed(p: subprocess.CompletedProcess) -> HtsimFailed:
    how = f"exited with {p.returncode}"
    if p.returncode < 0:
        try:
            how = f"died of {signal.Signals(-p.returncode).name}"
        except ValueError:
            how = f"died of signal {-p.returncode}"
    last = [ln.strip() for ln in (p.stderr or "").strip().splitlines() if ln.strip()]
    return HtsimFailed(f"htsim {how}" + (f": {last[-1][-300:]}" if last else ""))


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_htsim(binary: str, k: int, matrix: Path, end_us: int, log: Path, transport: str = "ndp",
              seed: int = 0) -> dict:
    strat = {"ndp": ["-strat", "rand"],
             "dcqcn": ["-strat", "ecmp_host", "-paths", "256", "-q", "1000", "-dcqcn", str(DCQCN_K_PKTS)]}.get(
        transport, ["-strat", "ecmp_host", "-paths", "1"])
    cmd = [binary, "-nodes", str(hosts(k)), "-tm", str(matrix), *strat,
           "-end", str(end_us), "-o", str(log)] + (["-seed", str(seed)] if seed else [])
    c0, t0 = cpu_children(), time.perf_counter()
    # htsim writes idmap.txt into its working directory: keep it in ours
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=log.parent)
    wall, cpu = time.perf_counter() - t0, cpu_children() - c0
    if p.returncode != 0:
        raise htsim_failed(p)
    fct, total = [], 0
    if transport == "dcqcn":
        # main_roce's "total bytes" is a packet count
        for m in re.finditer(r"Flow Roce_\d+_\d+ \d+ finished at ([\d.e+-]+) total bytes (\d+)", p.stdout):
            fct.append(float(m.group(1)) * 1e-6)
            total += int(m.group(2)) * DCQCN_MTU
        cnps = [int(c) for c in re.findall(r"^FLOW .* cnps (\d+)$", p.stdout, re.M)]
        m = re.search(r"New: (\d+) Rtx: (\d+)", p.stdout)
        return {"wall": wall, "cpu": cpu, "fct": fct, "bytes": total, "new": int(m.group(1)) if m else 0,
                "retx": int(m.group(2)) if m else 0, "bounced": 0, "cnps": sum(cnps) if cnps else None}
    flow = r"Flow ndp_(\d+)_(\d+) flow_id \d+" if transport == "ndp" else r"Flow HPCC_(\d+)_(\d+)"
    for m in re.finditer(flow + r" finished at ([\d.e+-]+) total bytes (\d+)", p.stdout):
        fct.append(float(m.group(3)) * 1e-6)
        total += int(m.group(4))
    if transport == "hpcc":
        m = re.search(r"New: (\d+) Rtx: (\d+)", p.stdout)
        if not m:
            raise RuntimeError("htsim printed no 'New: … Rtx: …' line")
        return {"wall": wall, "cpu": cpu, "fct": fct, "bytes": total, "new": int(m.group(1)),
                "retx": int(m.group(2)), "bounced": 0}
    m = re.search(r"New: (\d+) Rtx: (\d+) Bounced: (\d+)", p.stdout)
    if not m:
        raise RuntimeError("htsim printed no 'New: … Rtx: … Bounced: …' line")
    return {"wall": wall, "cpu": cpu, "fct": fct, "bytes": total, "new": int(m.group(1)),
            "retx": int(m.group(2)), "bounced": int(m.group(3))}


def run_dcnsim(scenario: dict, workdir: Path) -> dict:
    """The mirror through the ``dcnsim`` command (a whole process, as htsim)."""
    path = workdir / "scenario.json"
    path.write_text(json.dumps(scenario))
    out = workdir / "out"
    cmd = [sys.executable, "-m", "dcnsim", "run", str(path), "--out", str(out), "--no-progress"]
    c0, t0 = cpu_children(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, cpu_children() - c0
    if p.returncode != 0:
        raise RuntimeError(f"dcnsim run failed: {p.stderr.strip()[-400:]}")
    import pandas as pd

    flows = pd.read_csv(out / "flows.csv")
    summary = json.loads((out / "summary.json").read_text())
    done = flows[flows["completed"]]
    return {"wall": wall, "cpu": cpu, "fct": list(done["end_s"] - done["start_s"]),
            "bytes": int(flows["delivered_bytes"].sum()), "new": int(flows["segments_sent"].sum() - flows["retransmits"].sum()),
            "retx": int(flows["retransmits"].sum()), "bounced": int(summary.get("headers_bounced", 0)),
            "trimmed": int(summary.get("packets_trimmed", 0)), "timeouts": int(flows["timeouts"].sum()),
            "drops": int(summary["packets_dropped"]), "pauses": int(summary.get("pfc_pauses", 0)),
            "rehashes": int(flows["rehashes"].sum()) if "rehashes" in flows else 0,
            "ports_paused": int(summary.get("pfc_ports_paused", 0)),
            "cuts": int(flows["ecn_cuts"].sum()),
            "hops": float(summary["packet_hops"]), "flows": len(flows), "completed": len(done)}


def pct(v: list, q: float) -> float:
    s = sorted(v)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")


def stats(r: dict) -> dict:
    fct = r["fct"]
    span = max(fct) if fct else float("nan")
    return {"fct_med_us": pct(fct, 0.5) * 1e6, "fct_p99_us": pct(fct, 0.99) * 1e6,
            "goodput_gbps": r["bytes"] * 8 / span / 1e9, "retx": r["retx"], "bounced": r["bounced"],
            "completed": len(fct), "cnps": r.get("cnps")}


def interleave(a: argparse.Namespace, k: int, wl: str, matrix: Path, theirs_of, ours_of) -> tuple:
    """Run ``theirs_of(matrix)`` and ``ours_of()`` alternately ``a.pairs``
    times; both lists of runs."""
    theirs, ours = [], []
    for i in range(a.pairs):
        theirs.append(theirs_of(matrix))
        ours.append(ours_of())
        print(f"  k={k} {wl} pair {i + 1}: htsim cpu {theirs[-1]['cpu']:.2f}s, "
              f"dcnsim cpu {ours[-1]['cpu']:.2f}s", file=sys.stderr)
    return theirs, ours


def failure(k: int, wl: str, n: int, e: HtsimFailed, ours: dict) -> str:
    """The line that stands for a case htsim could not run: why, and what
    dcnsim alone gave on it."""
    d = stats(ours)
    return (f"k = {k} {wl}: no row, {e}; dcnsim alone: {d['completed']} of {n} flows completed, "
            f"FCT median {d['fct_med_us']:.1f} µs, p99 {d['fct_p99_us']:.1f} µs, goodput {d['goodput_gbps']:.1f} Gbps")


def report_failures(failed: list) -> None:
    """Beneath the table: the cases htsim could not run (the others' rows
    stand); the exit status says some are missing."""
    if failed:
        print("\nhtsim failed on these cases (their rows are missing):")
        for line in failed:
            print(f"- {line}")


#: what ``--check`` compares, each side's (key, name, unit)
JUDGED = (("fct_med_us", "FCT median", "µs"), ("fct_p99_us", "FCT p99", "µs"), ("goodput_gbps", "goodput", "Gbps"))


def judge(h: dict, d: dict, factor: float) -> tuple[bool, str]:
    """One case under ``--check``: the same number of flows completed on
    both sides, and dcnsim's FCT median, FCT p99 and goodput each within
    ``factor`` of htsim's either way. The verdict and what it read, so a
    reader sees how close "within" was."""
    parts, ok = [], True
    if h["completed"] != d["completed"]:
        ok = False
        parts.append(f"completed {h['completed']} / {d['completed']} (not the same flows)")
    for key, name, unit in JUDGED:
        x, y = d[key], h[key]
        r = x / y if y > 0 and math.isfinite(x) and math.isfinite(y) else math.nan
        inside = math.isfinite(r) and 1 / factor <= r <= factor
        ok &= inside
        parts.append(f"{name} {y:.1f} / {x:.1f} {unit} = {r:.3f}x" + ("" if inside else " OUTSIDE"))
    return ok, ("within" if ok else "DIFFERS") + ": " + ", ".join(parts)


def report_check(rows: list, factor: float | None) -> int:
    """Beneath the table under ``--check``: each case's verdict (htsim /
    dcnsim, and dcnsim over htsim), then how many are outside. Without
    ``--check`` nothing, as the table alone judges nothing. The number of
    cases outside (the exit status is 1 if any)."""
    if factor is None:
        return 0
    print(f"\ncheck (dcnsim within {factor:g}x of htsim either way on FCT median, FCT p99 and goodput, "
          "the same flows completed; htsim / dcnsim):")
    outside = []
    for k, wl, _n, h, d, *_ in rows:
        ok, text = judge(h, d, factor)
        print(f"- k = {k} {wl}: {text}")
        if not ok:
            outside.append(f"k = {k} {wl}")
    print(f"check: {len(rows) - len(outside)} of {len(rows)} case(s) within {factor:g}x"
          + (f"; outside: {', '.join(outside)}" if outside else ""))
    return len(outside)


def cases(a: argparse.Namespace, tmpd: Path, resize=None):
    """Each (k, workload) asked for: its connections (sizes passed through
    ``resize`` if given), and htsim's matrix of them written in `tmpd`."""
    for k in a.k:
        for wl in a.workloads:
            conns = connections(k, wl, a.perm_size, a.incast_size)
            if resize is not None:
                conns = resize(conns)
            matrix = tmpd / f"{wl}_k{k}.cm"
            write_matrix(matrix, hosts(k), conns)
            yield k, wl, conns, matrix


# --- Swift (``--transport swift``): htsim's main_swift beside dcnsim's -------

#: main_swift's packet (4,000 B on the wire, ACKs 40 B) and queues: -q
#: packets of RandomQueue, which drops at random (10 %) in its top 3
#: packets; with 200 packets Swift's targets keep well below that.
SWIFT_MTU = 4000
SWIFT_HEADER = 40
SWIFT_QUEUE_PKTS = 200


def swift_mirror(k: int, conns: list, end_us: int, queue_pkts: int = SWIFT_QUEUE_PKTS, plb: bool = False,
                 htsim_hops: bool = True) -> dict:
    """dcnsim's scenario for main_swift's fabric: per-flow paths (``ecmp``;
    main_swift picks one of the paths at random per flow), 800,000-byte
    queues, unlimited NIC queues, the Swift defaults (htsim's); ``plb``:
    Swift's PLB (``tcp.plb``, htsim's ``-plb on``)."""
    # htsim's target has no hop term in main_swift: SwiftSrc::set_paths
    # reroutes every flow through Route::clone, which leaves the clone's
    # hop count at 0 (route.cpp: clone() passes the count to Route(int
    # size), a capacity), so `targetDelay` adds 0 × h
    tcp = {"transport": "swift", "mss": SWIFT_MTU - SWIFT_HEADER, "header": SWIFT_HEADER,
           "swift_hop_scale": "0us" if htsim_hops else None}
    tcp = {k: v for k, v in tcp.items() if v is not None}
    if plb:
        tcp["plb"] = True
    return {
        "name": f"swift_k{k}",
        "seed": 1,
        "stop": f"{end_us}us",
        "topology": {"kind": "fat_tree", "k": k, "rate": RATE, "delay": "1us",
                     "buffer": f"{queue_pkts * SWIFT_MTU}B", "nic_buffer": "unlimited"},
        "tcp": tcp,
        "apps": [{"kind": "bulk", "src": s, "dst": d, "size": f"{b}B"} for s, d, b in conns],
    }


def swift_packets(size: int) -> int:
    """main_swift's ``-flowsize`` for flows of ``size`` bytes: it sends one
    packet more than it is told (its flow size is flowsize + 1 packets)."""
    return max(1, round(size / (SWIFT_MTU - SWIFT_HEADER)) - 1)


def run_htsim_swift(binary: str, k: int, matrix: Path, end_us: int, log: Path, pkts: int,
                    queue_pkts: int = SWIFT_QUEUE_PKTS, plb: bool = False) -> dict:
    cmd = [binary, "-nodes", str(hosts(k)), "-tm", str(matrix), "-end", str(end_us), "-o", str(log),
           "-q", str(queue_pkts), "-mtu", str(SWIFT_MTU), "-flowsize", str(pkts)] + (["-plb", "on"] if plb else [])
    c0, t0 = cpu_children(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=log.parent)
    wall, cpu = time.perf_counter() - t0, cpu_children() - c0
    if p.returncode != 0:
        raise htsim_failed(p)
    done: dict = {}
    # a finished flow prints again on every later ACK: its first line counts
    for m in re.finditer(r"Flow (swift_\d+_\d+) finished at ([\d.e+-]+) total bytes (\d+)", p.stdout):
        done.setdefault(m.group(1), (float(m.group(2)) * 1e-6, int(m.group(3))))
    return {"wall": wall, "cpu": cpu, "fct": [t for t, _ in done.values()],
            "bytes": sum(b for _, b in done.values()), "retx": p.stdout.count("retransmit_packet"),
            "timeouts": len(re.findall(r" RTO .* FAST RECOVERY", p.stdout)), "bounced": 0,
            # PLB's moves: one "td move_path" line each
            "moves": p.stdout.count(" td move_path")}


def swift_sizes(conns: list) -> list:
    """The connections resized so both simulators send flowsize + 1 packets
    of SWIFT_MTU - SWIFT_HEADER bytes."""
    pkts = swift_packets(conns[0][2])
    return [(s, d, (pkts + 1) * (SWIFT_MTU - SWIFT_HEADER)) for s, d, _ in conns]


def swift_main(a: argparse.Namespace) -> int:
    rows, raw, failed = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        for k, wl, conns, matrix in cases(a, tmpd, swift_sizes):
            pkts = swift_packets(conns[0][2])

            def ours_of(k=k, c=conns):
                return run_dcnsim(swift_mirror(k, c, a.end_us, a.queue_pkts, a.plb), tmpd)

            try:
                theirs, ours = interleave(
                    a, k, wl, matrix,
                    lambda m, k=k, n=pkts: run_htsim_swift(a.htsim, k, m, a.end_us, tmpd / "htsim.log", n,
                                                           a.queue_pkts, a.plb),
                    ours_of)
            except HtsimFailed as e:  # e.g. its PLB's assertion: the other cases still run
                mine = ours_of()
                failed.append(failure(k, wl, len(conns), e, mine))
                raw.append({"k": k, "workload": wl, "transport": "swift", "htsim_failed": str(e), "dcnsim": [mine]})
                continue
            h, d = stats(theirs[0]), stats(ours[0])
            hc = statistics.median(r["cpu"] for r in theirs)
            dc = statistics.median(r["cpu"] for r in ours)
            rows.append((k, wl, len(conns), h, d, theirs[0], ours[0], hc, dc, ours[0]["hops"]))
            raw.append({"k": k, "workload": wl, "transport": "swift", "htsim": theirs, "dcnsim": ours})
    print("| k | workload | flows | completed (htsim / dcnsim) | FCT median µs (htsim / dcnsim) | FCT p99 µs | "
          "goodput Gbps | retransmissions (htsim / dcnsim) | timeouts | dcnsim drops | PLB moves (htsim / dcnsim) | "
          "CPU s (htsim / dcnsim) | packet-hops | M hops per CPU s (htsim / dcnsim) | ratio dcnsim/htsim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, wl, n, h, d, t, o, hc, dc, hops in rows:
        print(f"| {k} | {wl} | {n} | {h['completed']} / {d['completed']} | "
              f"{h['fct_med_us']:.1f} / {d['fct_med_us']:.1f} | "
              f"{h['fct_p99_us']:.1f} / {d['fct_p99_us']:.1f} | {h['goodput_gbps']:.1f} / {d['goodput_gbps']:.1f} | "
              f"{h['retx']} / {d['retx']} | {t['timeouts']} / {o['timeouts']} | {o['drops']} | "
              f"{t['moves']} / {o['rehashes']} | {hc:.2f} / {dc:.2f} | {hops:.0f} | {hops / hc / 1e6:.2f} / {hops / dc / 1e6:.2f} | {hc / dc:.2f} |")
    report_failures(failed)
    outside = report_check(rows, a.check)
    if a.json:
        Path(a.json).write_text(json.dumps(raw, indent=1))
    return 1 if failed or outside else 0


def main(argv: list[str] | None = None) -> int:
    # the docstring's first paragraph, whole (its first line stops mid-sentence)
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("htsim", help="path to a stock htsim_ndp (or, with --transport hpcc or swift, htsim_hpcc "
                                  "or htsim_swift) binary")
    ap.add_argument("--transport", default="ndp", choices=["ndp", "hpcc", "swift", "dcqcn"],
                    help="which of htsim's mains HTSIM is (htsim_ndp, htsim_hpcc, htsim_swift, or uet-htsim's "
                         "htsim_roce with the changes above)")
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--workloads", nargs="+", default=["perm", "incast"], choices=["perm", "incast"])
    ap.add_argument("--pairs", type=int, default=3, help="interleaved (htsim, dcnsim) pairs per case")
    ap.add_argument("--perm-size", type=int, default=2_000_000, help="bytes per permutation flow")
    ap.add_argument("--incast-size", type=int, default=450_000, help="bytes per incast sender")
    ap.add_argument("--end-us", type=int, default=20_000, help="simulated time of both runs (µs)")
    ap.add_argument("--json", help="write every run's numbers here")
    ap.add_argument("--seeds", type=int, nargs="+",
                    help="instead of the table: each simulator's behaviour under these seeds (htsim -seed, "
                         "dcnsim seed), one row per seed: how much the draw of paths moves the numbers")
    ap.add_argument("--queue-pkts", type=int, default=SWIFT_QUEUE_PKTS,
                    help="swift: switch queues in packets of 4,000 B (main_swift's -q)")
    ap.add_argument("--plb", action="store_true",
                    help="swift: Swift's PLB on both sides (htsim's -plb on, dcnsim's tcp.plb)")
    ap.add_argument("--no-pfc", action="store_true",
                    help="hpcc, dcqcn: the mirror without [pfc] (egress queues too large to drop, no pauses)")
    ap.add_argument("--check", type=float, default=None, metavar="R",
                    help="judge each case: the same flows completed, and dcnsim's FCT median, FCT p99 and "
                         "goodput each within a factor R of htsim's either way (e.g. 1.1); the verdicts "
                         "follow the table, and the exit status is 1 if any case is outside")
    a = ap.parse_args(argv)
    if a.check is not None and not (a.check > 1 and math.isfinite(a.check)):
        ap.error(f"--check: a factor above 1, got {a.check:g}")
    if a.check is not None and a.seeds:
        ap.error("--check judges the table's cases: leave out --seeds (its rows are one seed's each, "
                 "a spread to read, not a verdict)")
    # Checked here, naming the option: otherwise the first dcnsim run of the
    # table fails with the mirror's field (topology.k) as a traceback.
    for k in a.k:
        if k < 2 or k % 2:
            ap.error(f"--k: each must be even and >= 2 (a k-ary fat-tree), got {k}")
    for opt in ("pairs", "perm_size", "incast_size", "end_us", "queue_pkts"):
        if getattr(a, opt) < 1:
            ap.error(f"--{opt.replace('_', '-')}: must be >= 1, got {getattr(a, opt)}")
    if a.no_pfc and a.transport not in ("hpcc", "dcqcn"):
        ap.error("--no-pfc: with --transport hpcc or dcqcn only")
    if a.plb and a.transport != "swift":
        ap.error("--plb: with --transport swift only")
    # htsim runs in a temporary directory: a path relative to here would not be found there
    a.htsim = os.path.abspath(a.htsim)
    if not (os.path.isfile(a.htsim) and os.access(a.htsim, os.X_OK)):
        build = ("the Ultra Ethernet Consortium's htsim main_roce with the three changes this script's docstring "
                 "lists (csg-htsim has no DCQCN)" if a.transport == "dcqcn"
                 else f"csg-htsim's htsim_{a.transport} (make htsim_{a.transport} in sim/datacenter)")
        ap.error(f"{a.htsim}: not an executable file (build {build} first)")
    if a.transport == "swift":
        return swift_seed_spread(a) if a.seeds else swift_main(a)

    def scenario(k: int, conns: list, end_us: int) -> dict:
        return mirror(k, conns, end_us, a.transport, pfc=not a.no_pfc)

    if a.seeds:
        return seed_spread(a, scenario)
    rows, raw, failed = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        for k, wl, conns, matrix in cases(a, tmpd):
            def ours_of(k=k, c=conns):
                return run_dcnsim(scenario(k, c, a.end_us), tmpd)

            try:
                theirs, ours = interleave(
                    a, k, wl, matrix,
                    lambda m, k=k: run_htsim(a.htsim, k, m, a.end_us, tmpd / "htsim.log", a.transport),
                    ours_of)
            except HtsimFailed as e:
                mine = ours_of()
                failed.append(failure(k, wl, len(conns), e, mine))
                raw.append({"k": k, "workload": wl, "transport": a.transport, "htsim_failed": str(e),
                            "dcnsim": [mine]})
                continue
            h, d = stats(theirs[0]), stats(ours[0])  # dcnsim's are deterministic; htsim's HPCC is not: its first
            hc = statistics.median(r["cpu"] for r in theirs)
            dc = statistics.median(r["cpu"] for r in ours)
            hops = ours[0]["hops"]
            rows.append((k, wl, len(conns), h, d, ours[0], hc, dc, hops))
            raw.append({"k": k, "workload": wl, "transport": a.transport, "htsim": theirs, "dcnsim": ours})
    if a.transport == "hpcc":
        print_hpcc(rows)
    elif a.transport == "dcqcn":
        print_dcqcn(rows)
    else:
        print_ndp(rows)
    report_failures(failed)
    outside = report_check(rows, a.check)
    if a.json:
        Path(a.json).write_text(json.dumps(raw, indent=1))
    return 1 if failed or outside else 0


def seed_spread(a: argparse.Namespace, scenario) -> int:
    """One row per (k, workload, seed): FCT median, p99 and goodput of each
    simulator with that seed."""
    print("| k | workload | seed | FCT median µs (htsim / dcnsim) | FCT p99 µs | goodput Gbps |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        for k, wl, conns, matrix in cases(a, tmpd):
            for seed in a.seeds:
                h = stats(run_htsim(a.htsim, k, matrix, a.end_us, tmpd / "htsim.log", a.transport, seed))
                doc = scenario(k, conns, a.end_us)
                doc["seed"] = seed
                d = stats(run_dcnsim(doc, tmpd))
                print(f"| {k} | {wl} | {seed} | {h['fct_med_us']:.1f} / {d['fct_med_us']:.1f} | "
                      f"{h['fct_p99_us']:.1f} / {d['fct_p99_us']:.1f} | "
                      f"{h['goodput_gbps']:.1f} / {d['goodput_gbps']:.1f} |", flush=True)
    return 0


def swift_seed_spread(a: argparse.Namespace) -> int:
    """``--seeds`` with Swift: dcnsim's mirror under each seed (only its ECMP
    salts change) beside htsim's one run per case: main_swift seeds itself
    (``srand(13)``) and takes no seed, so its column is the same in every row."""
    print("| k | workload | seed | FCT median µs (htsim, unseeded / dcnsim) | FCT p99 µs | goodput Gbps |")
    print("|---|---|---|---|---|---|")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        for k, wl, conns, matrix in cases(a, tmpd, swift_sizes):
            try:
                h = stats(run_htsim_swift(a.htsim, k, matrix, a.end_us, tmpd / "htsim.log",
                                          swift_packets(conns[0][2]), a.queue_pkts, a.plb))
            except HtsimFailed as e:
                h = None
                failed.append(f"k = {k} {wl}: {e} (its columns are empty)")
            for seed in a.seeds:
                doc = swift_mirror(k, conns, a.end_us, a.queue_pkts, a.plb)
                doc["seed"] = seed
                d = stats(run_dcnsim(doc, tmpd))

                def pair(key: str, d=d, h=h) -> str:
                    return f"{h[key]:.1f} / {d[key]:.1f}" if h else f"— / {d[key]:.1f}"

                print(f"| {k} | {wl} | {seed} | {pair('fct_med_us')} | {pair('fct_p99_us')} | "
                      f"{pair('goodput_gbps')} |", flush=True)
    report_failures(failed)
    return 1 if failed else 0


def print_hpcc(rows: list) -> None:
    print("| k | workload | flows | completed (htsim / dcnsim) | FCT median µs (htsim / dcnsim) | FCT p99 µs | "
          "goodput Gbps | drops (htsim: lossless / dcnsim) | dcnsim PFC pauses (ports) | "
          "go-back-N (htsim Rtx bytes / dcnsim resent packets) | "
          "CPU s (htsim / dcnsim) | packet-hops | M hops per CPU s (htsim / dcnsim) | ratio dcnsim/htsim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, wl, n, h, d, o, hc, dc, hops in rows:
        print(f"| {k} | {wl} | {n} | {h['completed']} / {d['completed']} | {h['fct_med_us']:.1f} / {d['fct_med_us']:.1f} | "
              f"{h['fct_p99_us']:.1f} / {d['fct_p99_us']:.1f} | {h['goodput_gbps']:.1f} / {d['goodput_gbps']:.1f} | "
              f"0 / {o['drops']} | {o['pauses']} ({o['ports_paused']}) | {h['retx']} / {d['retx']} | "
              f"{hc:.2f} / {dc:.2f} | {hops:.0f} | {hops / hc / 1e6:.2f} / {hops / dc / 1e6:.2f} | {hc / dc:.2f} |")


def print_dcqcn(rows: list) -> None:
    print("| k | workload | flows | completed (htsim / dcnsim) | FCT median µs (htsim / dcnsim) | FCT p99 µs | "
          "goodput Gbps | CNPs (htsim / dcnsim cuts) | dcnsim PFC pauses (ports) | "
          "CPU s (htsim / dcnsim) | packet-hops | M hops per CPU s (htsim / dcnsim) | ratio dcnsim/htsim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, wl, n, h, d, o, hc, dc, hops in rows:
        cnps = "—" if h.get("cnps") is None else h["cnps"]
        print(f"| {k} | {wl} | {n} | {h['completed']} / {d['completed']} | {h['fct_med_us']:.1f} / {d['fct_med_us']:.1f} | "
              f"{h['fct_p99_us']:.1f} / {d['fct_p99_us']:.1f} | {h['goodput_gbps']:.1f} / {d['goodput_gbps']:.1f} | "
              f"{cnps} / {o['cuts']} | {o['pauses']} ({o['ports_paused']}) | "
              f"{hc:.2f} / {dc:.2f} | {hops:.0f} | {hops / hc / 1e6:.2f} / {hops / dc / 1e6:.2f} | {hc / dc:.2f} |")


def print_ndp(rows: list) -> None:
    print("| k | workload | flows | FCT median µs (htsim / dcnsim) | FCT p99 µs | goodput Gbps | "
          "retransmissions (htsim Rtx / dcnsim) | dcnsim trims / timeouts | bounces | "
          "CPU s (htsim / dcnsim) | packet-hops | M hops per CPU s (htsim / dcnsim) | ratio dcnsim/htsim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, wl, n, h, d, o, hc, dc, hops in rows:
        print(f"| {k} | {wl} | {n} | {h['fct_med_us']:.1f} / {d['fct_med_us']:.1f} | "
              f"{h['fct_p99_us']:.1f} / {d['fct_p99_us']:.1f} | {h['goodput_gbps']:.1f} / {d['goodput_gbps']:.1f} | "
              f"{h['retx']} / {d['retx']} | {o['trimmed']} / {o['timeouts']} | {h['bounced']} / {d['bounced']} | "
              f"{hc:.2f} / {dc:.2f} | {hops:.0f} | {hops / hc / 1e6:.2f} / {hops / dc / 1e6:.2f} | {hc / dc:.2f} |")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        # htsim's output without the lines read here: another htsim main, or a build that failed at run time
        sys.exit(f"run.py: error: {e} (is HTSIM the build --transport names? see the module docstring)")
