"""Synchronized-reads incast with today's Linux TCP beside the papers' NewReno.

The setup the incast papers share (Phanishayee et al. 2008; Kulkarni 2012
ch. 3): one client reads blocks striped over n servers, each sending a
256 KB SRU per block, through one switch port of 100 Mbps with a 32-packet
drop-tail buffer; the next block is requested when every SRU has arrived.
It runs once with the papers' stack (``[tcp]`` defaults: NewReno, IW 2, no
SACK, no delayed ACKs, RTOmin 200 ms) and once with ``profile = "linux"``,
plus ablations of the Linux stack (each one key put back to the papers'
value) that say which mechanism makes a difference.

    dcnsim reproduce linux [--quick] [--out DIR]
    python -m dcnsim.linux_profile --out out/linux [--quick] [--seeds 1,2,3]

write ``sync_reads.csv`` (one row per stack and n: goodput mean and 95 %
CI over seeds, timeouts per block) and ``sync_reads.png``;
docs/linux_profile.md shows and discusses them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ...sweep import Point, run_sweep

RATE = "100Mbps"
DELAY = "25us"
BUFFER = "32pkt"
NIC_BUFFER = "1000pkt"
SRU = "256KB"
BLOCKS = 20
QUICK_BLOCKS = 8
NS = tuple(range(1, 33))
QUICK_NS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
ABLATION_NS = (1, 2, 4, 8, 16, 32)
SEEDS = (1, 2, 3)

#: stack name -> [tcp] table
STACKS: Dict[str, Dict[str, Any]] = {
    # the papers' TCPs had no Limited Transmit (docs/kulkarni.md, fast.md),
    # dcnsim's default since issue 18
    "papers (NewReno)": {"limited_transmit": False},
    "linux": {"profile": "linux"},
}
#: the Linux stack with one mechanism put back to the papers' value
ABLATIONS: Dict[str, Dict[str, Any]] = {
    "linux, recovery = dupack": {"profile": "linux", "recovery": "dupack"},
    "linux, init_cwnd = 2": {"profile": "linux", "init_cwnd": 2},
    "linux, cc = newreno": {"profile": "linux", "cc": "newreno"},
    "linux, hystart = off": {"profile": "linux", "hystart": "off"},
    "linux, reduction = rfc6675": {"profile": "linux", "reduction": "rfc6675"},
    "linux, no delayed ACKs": {"profile": "linux", "delayed_ack": False},
    # SACK alone: loss detection stays the papers' duplicate ACKs
    "papers, sack = true": {"sack": True, "recovery": "dupack"},
}


def scenario(n: int, tcp: Dict[str, Any], blocks: int = BLOCKS) -> Dict[str, Any]:
    """The synchronized-reads incast with ``n`` servers and this ``[tcp]`` table."""
    return {
        "name": f"sync-reads-{n}",
        "stop": "120s",
        # Host NIC queues hold a whole window: a Linux sender's qdisc pushes
        # back on TCP (TSQ) instead of dropping, so only the switch drops.
        "topology": {"kind": "star", "hosts": n + 1, "rate": RATE, "delay": DELAY, "buffer": BUFFER,
                     "nic_buffer": NIC_BUFFER},
        "tcp": dict(tcp),
        "apps": [{"kind": "sync_reads", "client": 0, "servers": f"1-{n}", "sru": SRU, "blocks": blocks,
                  "jitter": "20us"}],
    }


def points(stacks: Dict[str, Dict[str, Any]], ns: Sequence[int], seeds: Sequence[int], blocks: int) -> List[Point]:
    pts = []
    for name, tcp in stacks.items():
        tag = name.replace(" ", "").replace("(", "").replace(")", "").replace(",", "_").replace("=", "-")
        for n in ns:
            for s in seeds:
                pts.append(Point(f"{tag}__n={n}__seed={s}", scenario(n, tcp, blocks), s,
                                 {"stack": name, "n": n, "seed": s}))
    return pts


def summarize(df) -> Any:
    """One row per stack and n: goodput (Mbps) mean and 95 % CI over seeds,
    timeouts per block."""
    import pandas as pd

    from ...analysis import ci95

    rows = []
    for (stack, n), g in df.groupby(["stack", "n"], sort=False):
        m, h = ci95((g["block_goodput_bps"] / 1e6).tolist())
        # the servers' RTOs: a request flow's own (a server's ACK of the
        # request lost at the client's port) stalls nothing
        req = g["block_request_timeouts"] if "block_request_timeouts" in g else 0.0
        to = ((g["block_timeouts"] - req) / g["n_blocks"]).mean()
        rows.append({"stack": stack, "n": int(n), "goodput_mbps": m, "goodput_ci95": h,
                     "timeouts_per_block": float(to), "seeds": len(g)})
    return pd.DataFrame(rows)


def plot(table, path: Path) -> List[Path]:
    from ...plots import new_figure, save

    fig, ax = new_figure(figsize=(8.6, 4.0))
    styles = {"papers (NewReno)": ("k", "-", "o"), "linux": ("C3", "-", "s")}
    line = 100.0  # Mbps: no goodput above the link's rate, none below 0
    for i, (stack, g) in enumerate(table.groupby("stack", sort=False)):
        color, ls, marker = styles.get(stack, (f"C{i}", "--", "."))
        # a t-interval over three seeds can reach past both: its arms stop there
        h = g["goodput_ci95"].fillna(0.0)
        arms = [h.clip(upper=g["goodput_mbps"]), h.clip(upper=line - g["goodput_mbps"]).clip(lower=0)]
        ax.errorbar(g["n"], g["goodput_mbps"], yerr=arms, color=color, ls=ls, marker=marker,
                    ms=4, lw=1.4 if stack in styles else 0.9, capsize=2, label=stack)
    ax.set_xlabel("servers n")
    ax.set_ylabel("block goodput (Mbps; ± 95 % CI over seeds,\nclipped to 0 and the 100 Mbps line)")
    ax.set_ylim(0, 105.0)
    ax.set_title("synchronized reads: 100 Mbps link, 32-packet drop-tail port, 256 KB SRU", fontsize=10)
    ax.grid(alpha=0.3)
    # beside the axes: inside, nine entries covered the points at n = 12-16
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return save(fig, path)


def run(out: Path, quick: bool = False, seeds: Sequence[int] = SEEDS, jobs: Optional[int] = None,
        progress: Optional[bool] = None, cluster: Optional[str] = None, ns: Optional[Sequence[int]] = None,
        ablations: bool = True):
    """Run (resumably) and write ``sync_reads.csv`` and ``.png`` in ``out``;
    returns the table. ``ns`` replaces the fan-ins of the two stacks."""
    from ..._atomic import atomic_write

    blocks = QUICK_BLOCKS if quick else BLOCKS
    ns = ns or (QUICK_NS if quick else NS)
    pts = points(STACKS, ns, seeds, blocks) + (points(ABLATIONS, ABLATION_NS, seeds, blocks) if ablations else [])
    df = run_sweep(pts, out / "runs", jobs=jobs, progress=progress, cluster=cluster)
    table = summarize(df)
    # full precision, as `dcnsim reproduce linux` writes the same table (the two
    # commands' files differed in every value at 4 significant digits)
    atomic_write(out / "sync_reads.csv", lambda fh: table.to_csv(fh, index=False, lineterminator="\n"))
    plot(table, out / "sync_reads.png")
    return table


def build_parser() -> argparse.ArgumentParser:
    """``python -m dcnsim.linux_profile``'s options (each says its default,
    as every ``dcnsim`` option does)."""
    from ..._args import parse_seeds, positive_int

    p = argparse.ArgumentParser(prog="python -m dcnsim.linux_profile", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output directory: the runs, sync_reads.csv and sync_reads.png (default dcnsim-linux, "
                        "with --quick dcnsim-linux-quick, so a quick run never replaces a full one's points); "
                        "an interrupted study resumes there")
    p.add_argument("--quick", action="store_true",
                   help=f"{QUICK_BLOCKS} blocks and n in {QUICK_NS} (default {BLOCKS} blocks, n = 1 to {NS[-1]})")
    p.add_argument("--seeds", type=parse_seeds, default=list(SEEDS), metavar="S1,S2,...",
                   help=f"seeds each point runs with (default {','.join(map(str, SEEDS))})")
    p.add_argument("--jobs", type=positive_int, default=None,
                   help="worker processes (default: the CPU count)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: one in a terminal)")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="run the simulations on a Dask cluster (scheduler address, e.g. tcp://host:8786) instead "
                        "of local processes; needs dcnsim[cluster] (default: local processes)")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    a.out = a.out or ("dcnsim-linux-quick" if a.quick else "dcnsim-linux")
    table = run(Path(a.out), a.quick, a.seeds, a.jobs, False if a.no_progress else None, a.cluster)
    import pandas as pd

    wide = table.pivot(index="n", columns="stack", values="goodput_mbps")[list(dict.fromkeys(table["stack"]))]
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.1f}".format):
        print("block goodput, Mbps (mean over seeds)")
        print(wide.to_string())
    print(f"\nwrote {a.out}/sync_reads.csv and {a.out}/sync_reads.png")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
