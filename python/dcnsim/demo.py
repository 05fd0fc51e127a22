"""The README's headline job: a NewReno incast sweep on the Kulkarni setup.

Star topology, 1 Gbps, 50 µs links, 32 KB switch buffer, 1 KB segments
(mss 1024 B), 256 KB SRU, RTOmin 200 ms, rwnd 1000 packets, request jitter
≤ 20 µs (Kulkarni, Table 3.1); n = 1, 2, 4, …, 32 synchronized servers.
Three series: that baseline, RTOmin = 200 µs, and a 64 KB buffer.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._atomic import atomic_write
from .scenario import Scenario, Star, SyncReads, Tcp, with_overrides
from .sweep import Point, run_sweep

SERVERS: Tuple[int, ...] = (1, 2, 4, 8, 16, 32)
BLOCKS = 20
QUICK_BLOCKS = 4

#: (series label, overrides applied to the baseline scenario)
SERIES: List[Tuple[str, Dict[str, Any]]] = [
    ("RTOmin 200 ms, 32 KB buffer", {}),
    ("RTOmin 200 µs, 32 KB buffer", {"tcp.rto_min": "200us"}),
    ("RTOmin 200 ms, 64 KB buffer", {"topology.buffer": "64KB"}),
]


def kulkarni_incast(n: int, blocks: int = BLOCKS, seed: int = 1) -> Dict[str, Any]:
    """The Kulkarni incast scenario with ``n`` servers (hosts 1..n, client 0)."""
    return Scenario(
        name=f"kulkarni-incast-{n}",
        seed=seed,
        stop="100s",
        topology=Star(hosts=n + 1, rate="1Gbps", delay="50us", buffer="32KB"),
        tcp=Tcp(cc="newreno", mss=1024, rto_min="200ms", rwnd="1000pkt"),
        apps=[SyncReads(client=0, servers=f"1-{n}", sru="256KB", blocks=blocks, jitter="20us")],
    ).to_dict()


def points(servers: Sequence[int] = SERVERS, blocks: int = BLOCKS, seed: int = 1) -> List[Point]:
    pts = []
    for si, (series, over) in enumerate(SERIES):
        for n in servers:
            scen = with_overrides(kulkarni_incast(n, blocks, seed), over)
            pts.append(Point(f"s{si}_n{n:03d}", scen, seed, {"series": series, "servers": n}))
    return pts


def run_demo(
    out_dir: Union[str, os.PathLike] = "dcnsim-demo",
    quick: bool = False,
    jobs: Optional[int] = None,
    seed: int = 1,
    progress: Optional[bool] = None,
):
    """Run the sweep (resumable: per-point results under ``out_dir/runs``),
    write ``incast_goodput.csv`` and ``incast_goodput.png`` to ``out_dir`` and
    return the table (one row per series × n)."""
    from .plots import incast_goodput_plot

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    blocks = QUICK_BLOCKS if quick else BLOCKS
    df = run_sweep(points(blocks=blocks, seed=seed), out / "runs", jobs=jobs, progress=progress)
    table = df[["series", "servers"]].copy()
    table["goodput_mbps"] = df["block_goodput_bps"].astype(float) / 1e6
    table["blocks"] = df["n_blocks"]
    table["block_timeouts"] = df["block_timeouts"]
    table["drops"] = df["drops"]
    table["events"] = df["events"]
    table["wall_s"] = df["wall_s"]
    table["seed"] = seed
    atomic_write(out / "incast_goodput.csv", lambda fh: table.to_csv(fh, index=False, lineterminator="\n"))
    title = f"NewReno incast, Kulkarni setup ({blocks} blocks of 256 KB SRUs, seed {seed})"
    incast_goodput_plot(table, out / "incast_goodput.png", title=title)
    table.attrs["computed"] = df.attrs.get("computed", [])
    return table


def pivot(table) -> "Any":
    """Goodput (Mbps) with one row per n and one column per series."""
    order = [s for s, _ in SERIES]
    p = table.pivot(index="servers", columns="series", values="goodput_mbps")
    return p[[c for c in order if c in p.columns]]
