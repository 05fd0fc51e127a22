"""Kulkarni's Chapter 4 storage incast (Fig. 4.2: goodput against servers
per SRU size) in dcnsim and in ns-3 3.37, side by side.

Usage (from the repository root, dcnsim importable, Debian's ``libns3-dev``
and ``g++`` installed)::

    python validation/ns3_incast/kulkarni.py --n 4-12 --sru 256 1024 --blocks 40
    python validation/ns3_incast/kulkarni.py --n 6-10 --buffer-pkts 30   # the byte reading of "32 KB"
    python validation/ns3_incast/kulkarni.py --n 4-12 --like-ns3          # dcnsim without ns-3's two departures

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
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import ns3_common as common  # noqa: E402  (validation/: shared with the other harnesses)

SOURCE = HERE / "incast.cc"
MSS = 1024
RWND_BYTES = 20 * MSS


def parse_ns(text: str) -> List[int]:
    """``"4-12"`` or ``"4,7,10"`` (or a mix) to the server counts; ValueError names the bad part."""
    return common.parse_ranges(text, "--n", "server counts", 1)


def ns3_args(exe: Path, n: int, sru_kb: int, blocks: int, buffer_pkts: int) -> List[str]:
    return [str(exe), f"--n={n}", "--cc=newreno", "--persistent=1", "--gap=0", f"--queries={blocks}",
            f"--buffer={buffer_pkts - 2}p", f"--mss={MSS}", "--iw=2", f"--response={sru_kb * 1024}",
            "--rtomin=200", "--sack=0", "--timestamps=0", "--lt=0", f"--rcvbuf={RWND_BYTES}",
            f"--sndbuf={RWND_BYTES}", "--delack=1", "--recovery=classic", "--delay=100us"]


def run_ns3(exe: Path, n: int, sru_kb: int, blocks: int, buffer_pkts: int) -> Dict[str, float]:
    out = common.run_program(ns3_args(exe, n, sru_kb, blocks, buffer_pkts))
    qct = [float(m[1]) for m in re.finditer(r"qct_us ([\d.]+)", out)]
    timeouts = [int(m[1]) for m in re.finditer(r"^query \d+ .*? timeouts (\d+)", out, re.M)]
    if len(qct) != blocks:
        raise RuntimeError("unexpected ns-3 output:\n" + out[-2000:])
    return {"goodput_mbps": n * sru_kb * 1024 * 8 / (sum(qct) * 1e-6 / len(qct)) / 1e6,
            "timeouts": sum(timeouts) / len(timeouts)}


def dcnsim_doc(n: int, sru_kb: int, blocks: int, buffer_pkts: int, seed: int,
               like_ns3: bool = False) -> Dict[str, Any]:
    """The experiment's Fig. 4.2 document for this SRU, at n servers;
    ``like_ns3``: as ns-3 runs it (requests together, 2 B of framing)."""
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
    return doc


def run_dcnsim(n: int, sru_kb: int, blocks: int, buffer_pkts: int, seed: int,
               like_ns3: bool = False) -> Dict[str, float]:
    import dcnsim

    b = dcnsim.run(dcnsim_doc(n, sru_kb, blocks, buffer_pkts, seed, like_ns3)).tables["blocks"]
    return {"goodput_mbps": float(b["bytes"].sum()) * 8 / float(b["duration_s"].sum()) / 1e6,
            "timeouts": float(b["timeouts"].mean())}


def _task(job: Tuple) -> Tuple[Tuple, Dict[str, float]]:
    kind, key, args = job
    return (kind, key), (run_ns3(*args) if kind == "ns-3" else run_dcnsim(*args))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", default="4-12", help="server counts: N-M or a comma-separated list (default 4-12)")
    p.add_argument("--sru", type=int, nargs="+", default=[256, 1024], help="SRU sizes, KB (Fig. 4.2: 64 … 1024)")
    p.add_argument("--blocks", type=int, default=40, help="blocks per point (a collapsed one takes ≥ 200 ms each)")
    p.add_argument("--buffer-pkts", type=int, default=32,
                   help="the port, packets (32: the experiment's reading of 32 KB; 30: its byte reading)")
    p.add_argument("--seeds", type=int, default=3, help="dcnsim seeds 1..N (ns-3 runs are deterministic)")
    p.add_argument("--only", choices=["dcnsim", "ns3"], help="run one simulator")
    p.add_argument("--like-ns3", action="store_true",
                   help="run dcnsim as ns-3 runs the experiment: every request at once (no U[0, 20 us] jitter) "
                        "and 2 B of point-to-point framing, so the two differ only in their simulators")
    p.add_argument("--jobs", type=int, default=2, help="runs at once")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-incast")
    a = p.parse_args(argv)
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
    if a.only != "ns3":
        try:
            for kb in a.sru:
                dcnsim_doc(ns[0], kb, 1, a.buffer_pkts, 1)
        except ValueError as e:
            p.error(str(e))
    exe = common.ns3_binary(SOURCE, a.build) if a.only != "dcnsim" else None
    jobs = []
    for kb in a.sru:
        for n in ns:
            if exe is not None:
                jobs.append(("ns-3", (kb, n), (exe, n, kb, a.blocks, a.buffer_pkts)))
            if a.only != "ns3":
                jobs += [("dcnsim", (kb, n, s), (n, kb, a.blocks, a.buffer_pkts, s, a.like_ns3))
                         for s in range(1, a.seeds + 1)]
    with ProcessPoolExecutor(a.jobs) as ex:
        res = dict(ex.map(_task, jobs))
    print(f"Kulkarni Fig. 4.2: goodput (Mbps) against servers, {a.blocks} blocks a point, a {a.buffer_pkts}-packet "
          f"port; dcnsim the mean of seeds 1-{a.seeds}"
          + (", run as ns-3 runs it (no request jitter, 2 B framing)" if a.like_ns3 else ""))

    def goodput(sim: str, kb: int, n: int) -> float:
        if sim == "ns-3":
            return res[("ns-3", (kb, n))]["goodput_mbps"]
        return sum(res[("dcnsim", (kb, n, s))]["goodput_mbps"] for s in range(1, a.seeds + 1)) / a.seeds

    sims = ([] if a.only == "dcnsim" else ["ns-3"]) + ([] if a.only == "ns3" else ["dcnsim"])
    for kb in a.sru:
        for sim in sims:
            print(f"{kb:5d} KB {sim:>7}: " + "  ".join(f"{n}:{goodput(sim, kb, n):.0f}" for n in ns))
        if exe is not None:
            print(f"{kb:5d} KB timeouts per block (ns-3): "
                  + "  ".join(f"{n}:{res[('ns-3', (kb, n))]['timeouts']:.1f}" for n in ns))
    if 7 in ns and 256 in a.sru and 1024 in a.sru:
        print("at 7 servers, 1 MB / 256 KB: "
              + ", ".join(f"{sim} {goodput(sim, 1024, 7) / goodput(sim, 256, 7):.2f}" for sim in sims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
