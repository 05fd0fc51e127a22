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

from ._atomic import atomic_write, check_out_dir, dir_lock
from .scenario import Scenario, Star, SyncReads, Tcp, with_overrides
from .sweep import Point, run_sweep

SERVERS: Tuple[int, ...] = (1, 2, 4, 8, 16, 32)
BLOCKS = 100
#: the star's links (its `rate` below), drawn on the figure as the client's limit
LINK_MBPS = 1000.0
QUICK_BLOCKS = 5
SEEDS: Tuple[int, ...] = (1, 2, 3)
#: where the demo writes without ``--out``; a quick run has its own, as
#: ``reproduce --quick`` has: its runs (fewer blocks) would replace the
#: full demo's points, table and plot
OUT, QUICK_OUT = "dcnsim-demo", "dcnsim-demo-quick"

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
        # Kulkarni's TCP had no Limited Transmit (docs/kulkarni.md)
        tcp=Tcp(cc="newreno", mss=1024, rto_min="200ms", rwnd="1000pkt", limited_transmit=False),
        apps=[SyncReads(client=0, servers=f"1-{n}", sru="256KB", blocks=blocks, jitter="20us")],
    ).to_dict()


def points(servers: Sequence[int] = SERVERS, blocks: int = BLOCKS, seeds: Sequence[int] = SEEDS) -> List[Point]:
    pts = []
    for si, (series, over) in enumerate(SERIES):
        for n in servers:
            for seed in seeds:
                scen = with_overrides(kulkarni_incast(n, blocks, seed), over)
                pts.append(Point(f"s{si}_n{n:03d}_seed{seed}", scen, seed, {"series": series, "servers": n}))
    return pts


def run_demo(
    out_dir: Optional[Union[str, os.PathLike]] = None,
    quick: bool = False,
    jobs: Optional[int] = None,
    seeds: Optional[Sequence[int]] = None,
    progress: Optional[bool] = None,
):
    """Run the sweep (resumable: per-point results under ``out_dir/runs``),
    write ``incast_goodput.csv`` and ``incast_goodput.png`` to ``out_dir``
    (default :data:`OUT`, or :data:`QUICK_OUT` when ``quick``) and return
    the table: one row per series × n, goodput averaged over the seeds
    (default 1, 2, 3; ``quick``: 1 seed and fewer blocks)."""
    from .plots import incast_goodput_plot

    out = check_out_dir(out_dir if out_dir is not None else (QUICK_OUT if quick else OUT))
    # DIR held from before the sweep to the plot: a second demo into it (the
    # same command in another terminal) is refused at once, naming this one;
    # a DIR made here goes again if nothing was written (Ctrl-C at once)
    blocks = QUICK_BLOCKS if quick else BLOCKS
    seeds = list(seeds) if seeds else ([1] if quick else list(SEEDS))
    with dir_lock(out):
        _claim_out(out, blocks, seeds, quick)
        df = run_sweep(points(blocks=blocks, seeds=seeds), out / "runs", jobs=jobs, progress=progress)
        df["goodput_mbps"] = df["block_goodput_bps"].astype(float) / 1e6
        g = df.groupby(["series", "servers"], sort=False)
        table = g["goodput_mbps"].mean().reset_index()
        # the sample s.d. (n - 1) the title's "± 1 s.d. of 3 seeds" means; one seed has none (NaN)
        table["goodput_mbps_std"] = g["goodput_mbps"].std(ddof=1).to_numpy()
        table["seeds"] = g.size().to_numpy()
        table["blocks_per_run"] = blocks
        table["block_timeouts_mean"] = g["block_timeouts"].mean().to_numpy()
        table["drops_mean"] = g["drops"].mean().to_numpy()
        table["events"] = g["events"].sum().to_numpy()
        table["wall_s"] = g["wall_s"].sum().to_numpy()
        atomic_write(out / "incast_goodput.csv", lambda fh: table.to_csv(fh, index=False, lineterminator="\n"))
        seed_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"mean ± 1 s.d. of {len(seeds)} seeds"
        title = (f"NewReno incast, Kulkarni setup{' [quick run]' if quick else ''}\n"
                 f"{blocks} blocks of 256 KB SRUs per run, {seed_text}")
        incast_goodput_plot(table, out / "incast_goodput.png", title=title, link_mbps=LINK_MBPS)
        table.attrs["computed"] = df.attrs.get("computed", [])
        return table


def _seeds_text(seeds: Sequence[int]) -> str:
    return ("seed " if len(seeds) == 1 else "seeds ") + ",".join(map(str, seeds))


def _claim_out(out: Path, blocks: int, seeds: Sequence[int], quick: bool) -> None:
    """Refuse a demo into a DIR whose ``incast_goodput.csv`` is another
    demo's: of runs of another length (a quick run into a full one's DIR,
    or the other way round: its runs, of the same labels, would be
    replaced too), or with runs of seeds this demo does not run (its table
    would be replaced by one without them). The same demo resumes, and one
    with more seeds extends it."""
    import csv
    import re

    from .errors import OutputDirError

    table = out / "incast_goodput.csv"
    if not table.is_file():
        return
    try:
        with open(table, newline="", encoding="utf-8") as fh:
            theirs = {int(r["blocks_per_run"]) for r in csv.DictReader(fh)}
        if len(theirs) != 1:
            raise ValueError("no blocks_per_run")
    except (OSError, UnicodeDecodeError, csv.Error, KeyError, ValueError, TypeError):
        raise OutputDirError(f"{out}: holds an incast_goodput.csv that is not a demo's table: this demo's would "
                             "replace it; move it away, or give this demo another --out") from None
    their_blocks = theirs.pop()
    ran = sorted({int(m.group(1)) for d in (out / "runs").glob("s*_n*_seed*")
                  for m in [re.fullmatch(r"s\d+_n\d+_seed(\d+)", d.name)] if m and (d / "summary.json").is_file()})
    other = [s for s in ran if s not in set(seeds)]
    if their_blocks == blocks and not other:
        return
    mine = f"{'a quick run, ' if quick else ''}{blocks} blocks a run, {_seeds_text(seeds)}"
    if their_blocks != blocks:
        what = (f"another demo's table and runs ({their_blocks} blocks a run{', a quick run' if their_blocks == QUICK_BLOCKS else ''}): "
                f"this demo ({mine}) would replace its table and plot, and its runs of the same labels")
        resume = f"rerun that demo's own command{' (with --quick)' if their_blocks == QUICK_BLOCKS else ' (without --quick)'}"
    else:
        what = (f"another demo's table, with runs of {_seeds_text(other)}: this demo ({mine}) would replace it by "
                "one without them")
        resume = f"--seeds {','.join(map(str, sorted(set(ran) | set(seeds))))} resumes it with every seed there"
    default = QUICK_OUT if quick else OUT
    raise OutputDirError(f"{out}: holds {what}. {resume[0].upper() + resume[1:]}, give this demo another --out "
                         f"(its default is ./{default}), or move {table} away to start a new table there")


def pivot(table) -> "Any":
    """Goodput (Mbps) with one row per n and one column per series."""
    order = [s for s, _ in SERIES]
    p = table.pivot(index="servers", columns="series", values="goodput_mbps")
    return p[[c for c in order if c in p.columns]]
