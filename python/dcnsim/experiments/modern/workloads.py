"""The three workloads of the modern study, as the seeds' modules build them,
run with each scheme of :mod:`.schemes`; per point, the metrics the report
tables; per workload, a table, a plot and a text computed from the data.

* ``sync_reads``: Kulkarni's synchronized reads on his star (Table 3.1:
  1 Gbps, 50 µs links, 32-packet port, 256 KB SRU, 1 KB segments):
  block goodput vs servers n.
* ``partition_aggregate``: FaST's partition/aggregate on its two-tier tree
  (n workers answer 10 KB each, fresh connections per query): query
  completion time vs n = 10 … 100.
* ``outcast``: TCPRand's outcast fat-tree (k = 4, 1 Gbps, 15 long flows into
  host 0, Qmax-packet ports): the 2-hop flow's throughput beside the 6-hop
  flows'.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...sweep import Point
from ..fast import common as fast
from ..framework import read_table, rounds_not_done
from ..kulkarni import common as kulkarni
from ..paper import Comparison, FigureResult
from ..tcprand import common as tcprand
from .schemes import (
    PAPERS_SCHEMES,
    SCHEME_NAMES,
    SCHEMES,
    STAR_ECN_K,
    apply_fabric,
    scheme_tcp,
    slug,
)

SEEDS = (1, 2, 3)
QUICK_SEEDS = (1,)

# ---------------------------------------------------------------- Kulkarni's synchronized reads

KU_NS: Tuple[int, ...] = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64)
KU_QUICK_NS: Tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
#: Swift's per-hop share of the unloaded RTT (schemes.py): on Kulkarni's star
#: each link adds 50 µs each way and 1064 B of serialization at 1 Gbps
KU_RTT_PER_HOP_US = 2 * 50.0 + 1064 * 8 / 1e3
SRU_BYTES = kulkarni.SRU_KB * 1024

# ---------------------------------------------------------------- FaST's partition/aggregate

PA_NS: Tuple[int, ...] = fast.NS
PA_QUICK_NS: Tuple[int, ...] = (10, 20, 40, 70, 100)
PA_QUERIES = fast.QUERIES
PA_QUICK_QUERIES = fast.QUICK_QUERIES
#: the largest per hop is a worker in the root's rack: 2 links of 25 µs each
#: way and 1500 B at 1 Gbps (another rack's 6 links add 2 × 100 µs + 4 × 12
#: + 2 × 1.2 µs, less per hop)
PA_RTT_PER_HOP_US = 2 * 25.0 + 1500 * 8 / 1e3
RESPONSE_BYTES = 10_000

# ---------------------------------------------------------------- TCPRand's outcast fat-tree

OC_QMAXES: Tuple[int, ...] = tcprand.QMAXES
OC_QUICK_QMAXES: Tuple[int, ...] = tcprand.QUICK_QMAXES
OC_SECS = 5.0
OC_QUICK_SECS = tcprand.QUICK_DURATION_S
#: the largest per hop is a 6-hop path: 6 links of 1 µs and 5 switches of
#: 25 µs each way, 6 × 1500 B at 1 Gbps (2 hops: 39 µs per hop)
OC_RTT_PER_HOP_US = (2 * (6 * 1.0 + 5 * 25.0) + 6 * 12.0) / 6


def _label(workload: str, scheme: str, x: str, seed: int) -> str:
    return f"modern-{workload}-{slug(scheme)}-{x}-s{seed}"


def ku_points(quick: bool, schemes: Sequence[str] = SCHEME_NAMES, ns: Optional[Sequence[int]] = None,
              seeds: Optional[Sequence[int]] = None) -> List[Point]:
    pts = []
    for scheme in schemes:
        for n in ns or (KU_QUICK_NS if quick else KU_NS):
            for s in seeds or (QUICK_SEEDS if quick else SEEDS):
                label = _label("sync", scheme, f"n{n:03d}", s)
                doc = kulkarni.scenario(n, kulkarni.BASE, kulkarni.blocks_for(n, kulkarni.SRU_KB, quick), name=label)
                doc["tcp"] = scheme_tcp(scheme, doc["tcp"], KU_RTT_PER_HOP_US)
                pts.append(Point(label, apply_fabric(scheme, doc, STAR_ECN_K), s,
                                 {"workload": "sync_reads", "scheme": scheme, "n": n, "seed": s}))
    return pts


def pa_points(quick: bool, schemes: Sequence[str] = SCHEME_NAMES, ns: Optional[Sequence[int]] = None,
              seeds: Optional[Sequence[int]] = None) -> List[Point]:
    pts = []
    queries = PA_QUICK_QUERIES if quick else PA_QUERIES
    for scheme in schemes:
        for n in ns or (PA_QUICK_NS if quick else PA_NS):
            for s in seeds or (QUICK_SEEDS if quick else SEEDS):
                label = _label("pa", scheme, f"n{n:03d}", s)
                doc = fast.pa_scenario(n, {"cc": "newreno"}, fast.BASE, queries, name=label)
                doc["tcp"] = scheme_tcp(scheme, doc["tcp"], PA_RTT_PER_HOP_US)
                # the tree's own marking (20 packets at 1 Gbps, 65 at 10 Gbps)
                pts.append(Point(label, apply_fabric(scheme, doc), s,
                                 {"workload": "partition_aggregate", "scheme": scheme, "n": n, "seed": s}))
    return pts


def oc_points(quick: bool, schemes: Sequence[str] = SCHEME_NAMES, qmaxes: Optional[Sequence[int]] = None,
              seeds: Optional[Sequence[int]] = None, secs: Optional[float] = None) -> List[Point]:
    pts = []
    secs = secs or (OC_QUICK_SECS if quick else OC_SECS)
    for scheme in schemes:
        for q in qmaxes or (OC_QUICK_QMAXES if quick else OC_QMAXES):
            for s in seeds or (QUICK_SEEDS if quick else SEEDS):
                label = _label("outcast", scheme, f"q{q:03d}", s)
                doc = tcprand.fig1_doc({"cc": "newreno"}, q, secs, seed=s, name=label)
                doc["tcp"] = scheme_tcp(scheme, doc["tcp"], OC_RTT_PER_HOP_US)
                # DCTCP's K at 0.2 Qmax, as TCPRand's module sets it (§6.1)
                k = f"{max(1, round(0.2 * q))}pkt"
                pts.append(Point(label, apply_fabric(scheme, doc, k), s,
                                 {"workload": "outcast", "scheme": scheme, "qmax": q, "seed": s}))
    return pts


# ---------------------------------------------------------------- per point


def _count(row: Any, key: str) -> float:
    v = row.get(key, 0.0) if hasattr(row, "get") else 0.0
    return 0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _losses(row: Any, per: float) -> Dict[str, float]:
    """Drops (data and header), trims and header drops per ``per`` units."""
    per = max(per, 1.0)
    return {"drops": _count(row, "packets_dropped") / per, "trims": _count(row, "packets_trimmed") / per,
            "header_drops": _count(row, "header_drops") / per}


def ku_metrics(row: Any) -> Dict[str, float]:
    b = read_table(row, "blocks")
    f = read_table(row, "flows")
    n = int(row["n"])
    done = b["duration_s"].dropna()
    resp = f[f["role"] == "response"]
    return {
        "goodput_mbps": float(b.loc[done.index, "bytes"].sum()) * 8 / float(done.sum()) / 1e6 if len(done) else math.nan,
        "timeouts": float(b["timeouts"].mean()),
        **_losses(row, len(b)),
        "blocks": float(len(b)),
        # the blocks table holds finished blocks only: the rest are the apps' own count less its rows
        "unfinished": rounds_not_done(row, "blocks"),
        # every finished block carried n SRUs, every response flow its SRU
        "bytes_ok": float(bool((b.loc[done.index, "bytes"] == n * SRU_BYTES).all())
                          and bool((resp["delivered_bytes"] == resp["app_bytes"]).all())),
    }


def pa_metrics(row: Any) -> Dict[str, float]:
    q = read_table(row, "queries")
    n = int(row["n"])
    qct = q["qct_s"].astype(float)
    done = q[qct.notna()]
    ms = done["qct_s"].astype(float) * 1e3
    return {
        "qct_mean_ms": float(ms.mean()) if len(ms) else math.nan,
        "qct_p99_ms": float(np.percentile(ms, 99)) if len(ms) else math.nan,
        "goodput_mbps": float(n * RESPONSE_BYTES * 8 / (ms.mean() / 1e3) / 1e6) if len(ms) else math.nan,
        "timeouts": float(q["timeouts"].mean()),
        **_losses(row, len(q)),
        "queries": float(len(q)),
        "unfinished": rounds_not_done(row, "queries"),
        "bytes_ok": float(bool((done["bytes"] == n * RESPONSE_BYTES).all())),
    }


#: TCPRand's groups: F1 shares R's edge switch (2 hops), F2:3 R's pod (4), F4:15 other pods (6)
GROUPS = tcprand.GROUPS


def oc_metrics(row: Any) -> Dict[str, float]:
    from ...result import jain

    f = read_table(row, "flows")
    f = f[f["dst"] == tcprand.RECEIVER].sort_values("src")
    g = f.set_index("src")["goodput_bps"] / 1e6
    out = {"total_mbps": float(g.sum()), "jain": float(jain(g.values)),
           "timeouts": float(f["timeouts"].mean()), **_losses(row, len(f)), "flows": float(len(f))}
    for name, hosts in GROUPS:
        out[f"{name}_mbps"] = float(g[g.index.isin(hosts)].mean())
    many = out["F4:15_mbps"]
    out["f1_share"] = out["F1_mbps"] / many if many > 0 else math.inf
    return out


# ---------------------------------------------------------------- per workload


def _frame(summary: Any, x: str, metrics: Callable[[Any], Dict[str, float]]):
    """Per scheme and x: the metrics' mean over seeds (and how many seeds)."""
    import pandas as pd

    rows = [{"scheme": r["scheme"], x: int(r[x]), "seed": int(r["seed"]), **metrics(r)} for _, r in summary.iterrows()]
    df = pd.DataFrame(rows)
    cols = [c for c in df.columns if c not in ("scheme", x, "seed")]
    g = df.groupby(["scheme", x], sort=False)
    table = g[cols].mean().reset_index()
    if "bytes_ok" in df:
        # a point conserves bytes only if every seed did
        table["bytes_ok"] = g["bytes_ok"].min().values
    table["seeds"] = g["seed"].count().values
    order = {s: i for i, s in enumerate(SCHEME_NAMES)}
    return table.sort_values([x, "scheme"], key=lambda c: c.map(order) if c.name == "scheme" else c,
                             kind="stable").reset_index(drop=True)


def _loss_note(r: Any, per: str) -> str:
    parts = [f"timeouts {r['timeouts']:.3g}/{per}", f"drops {r['drops']:.3g}/{per}"]
    if r["trims"] > 0 or r["scheme"] == "NDP":
        parts.append(f"trims {r['trims']:.3g}/{per} (header drops {r['header_drops']:.3g})")
    return ", ".join(parts)


def _rows(table: Any, x: str, xname: str, col: str, what: str, unit: str, per: str) -> List[Comparison]:
    return [Comparison(f"{what}, {xname} = {int(r[x])}: {r['scheme']}", float(r[col]), None, "not in paper", unit=unit, fmt=".3g",
                       note=_loss_note(r, per), series=r["scheme"])
            for _, r in table.iterrows()]


def _style(scheme: str) -> str:
    """The papers' schemes solid, today's Linux hosts dash-dotted, the
    transports that came after dashed."""
    if scheme in PAPERS_SCHEMES:
        return "-"
    return "-." if SCHEMES[scheme][0] == "profile" else "--"


def _plot(table: Any, x: str, cols: Sequence[Tuple[str, str]], xlabel: str, title: str, path: Path,
          logy: bool = False, log2x: bool = False) -> List[Path]:
    from ...plots import log2_x, new_figure, save

    fig, axes = new_figure(ncols=len(cols), figsize=(5.2 * len(cols) + 1.6, 3.8))
    axes = np.atleast_1d(axes)
    for ax, (col, ylabel) in zip(axes, cols):
        for i, scheme in enumerate(SCHEME_NAMES):
            g = table[table["scheme"] == scheme]
            if not len(g):
                continue
            # hollow markers, each scheme's smaller than the one before: where
            # schemes give the same value (NewReno and TCPRand at small n)
            # every marker stays visible around the ones drawn over it
            ax.plot(g[x], g[col], marker="os^vDP*Xh"[i % 9], ms=9 - 0.6 * i, mfc="none", mew=1.1,
                    color=f"C{i % 10}", ls=_style(scheme), label=scheme)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if logy:
            ax.set_yscale("log")
        if log2x:
            # fan-ins double: a linear axis put n = 1, 2, 4 in a twentieth of its width
            log2_x(ax, table[x])
        ax.grid(alpha=0.3)
    # beside the panels: inside, the legend covered points (NDP at n = 64)
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.suptitle(f"{title} (dcnsim's own study)", fontsize=10)
    return save(fig, path)


def _names(schemes: Sequence[str]) -> str:
    s = list(schemes)
    return ", ".join(s[:-1]) + f" and {s[-1]}" if len(s) > 1 else (s[0] if s else "none")


def ku_text(table: Any) -> List[str]:
    notes = []
    top = int(table["n"].max())
    at = table[table["n"] == top].set_index("scheme")
    onsets = {s: kulkarni.onset(g["n"], g["goodput_mbps"]) for s, g in table.groupby("scheme", sort=False)}
    fell = {s: o for s, o in onsets.items() if o is not None}
    held = [s for s, o in onsets.items() if o is None]
    if fell:
        notes.append("collapse (goodput stays below half its best at fewer servers, Kulkarni's onset): "
                     + "; ".join(f"{s} from n = {o}" for s, o in sorted(fell.items(), key=lambda kv: kv[1])) + ".")
    if held:
        notes.append(f"no collapse up to n = {top}: {_names(held)}.")
    best, worst = at["goodput_mbps"].idxmax(), at["goodput_mbps"].idxmin()
    notes.append(f"at n = {top}: highest goodput {best} ({at.loc[best, 'goodput_mbps']:.0f} Mbps), lowest {worst} "
                 f"({at.loc[worst, 'goodput_mbps']:.0f} Mbps); retransmission timeouts per block: "
                 + ", ".join(f"{s} {at.loc[s, 'timeouts']:.3g}" for s in at.index) + ".")
    return notes


def pa_text(table: Any) -> List[str]:
    lo, hi = int(table["n"].min()), int(table["n"].max())
    at = table[table["n"] == hi].set_index("scheme")
    # the line-rate bound: n responses through the root's 1 Gbps port
    bound_ms = hi * RESPONSE_BYTES * 8 / 1e9 * 1e3
    order = at["qct_mean_ms"].sort_values()
    notes = [f"at n = {hi} (line-rate bound {bound_ms:.1f} ms for the {hi} × 10 KB): mean QCT "
             + ", ".join(f"{s} {v:.3g} ms ({v / bound_ms:.1f}×)" for s, v in order.items()) + "."]
    growth = []
    for s, g in table.groupby("scheme", sort=False):
        g = g.set_index("n")
        if lo in g.index and hi in g.index:
            growth.append((s, float(g.loc[hi, "qct_mean_ms"] / g.loc[lo, "qct_mean_ms"])))
    growth.sort(key=lambda kv: kv[1])
    notes.append(f"QCT from n = {lo} to {hi} grows {hi // lo}× with the data (bound); measured: "
                 + ", ".join(f"{s} {r:.1f}×" for s, r in growth) + ".")
    to = [s for s in at.index if at.loc[s, "timeouts"] > 0]
    notes.append(f"schemes with retransmission timeouts at n = {hi}: {_names(to)}"
                 + (f"; {_names([s for s in at.index if s not in to])} none." if to else "."))
    return notes


def _share(share: float, many_mbps: float) -> str:
    """F1 over the mean 6-hop flow; when those get under 1 Mbps the ratio
    says only that they starved, so the text says that."""
    if many_mbps < 1.0:
        return f"{share:,.0f}× (the 6-hop flows starved: {many_mbps:.2g} Mbps each)"
    return f"{share:.2f}×"


def oc_text(table: Any) -> List[str]:
    notes = []
    for q, g in table.groupby("qmax", sort=False):
        g = g.set_index("scheme")
        out = [s for s in g.index if g.loc[s, "f1_share"] < 1]
        notes.append(f"Qmax = {int(q)} packets: the 2-hop flow F1 gets "
                     + ", ".join(f"{s} {_share(g.loc[s, 'f1_share'], g.loc[s, 'F4:15_mbps'])}" for s in g.index)
                     + " the mean 6-hop flow's throughput; outcast (below 1×): " + _names(out)
                     + f". Most even (Jain's index): {g['jain'].idxmax()} ({g['jain'].max():.3f}), least: "
                     f"{g['jain'].idxmin()} ({g['jain'].min():.3f}).")
    return notes


def ku_analyze(summary: Any, out_dir: Path) -> FigureResult:
    table = _frame(summary, "n", ku_metrics)
    figs = _plot(table, "n", [("goodput_mbps", "block goodput (Mbps)"), ("timeouts", "RTOs per block")],
                 "servers n", "synchronized reads (Kulkarni's star): 1 Gbps, 32-packet port, 256 KB SRU",
                 Path(out_dir) / "sync_reads.png", log2x=True)
    return FigureResult(table, figs, _rows(table, "n", "n", "goodput_mbps", "block goodput", "Mbps", "block"),
                        ku_text(table))


def pa_analyze(summary: Any, out_dir: Path) -> FigureResult:
    table = _frame(summary, "n", pa_metrics)
    figs = _plot(table, "n", [("qct_mean_ms", "mean query completion time (ms)"), ("goodput_mbps", "query goodput (Mbps)")],
                 "workers n", "partition/aggregate (FaST's tree): 10 KB per worker", Path(out_dir) / "partition_aggregate.png",
                 logy=False)
    return FigureResult(table, figs, _rows(table, "n", "n", "qct_mean_ms", "mean QCT", "ms", "query"), pa_text(table))


def oc_analyze(summary: Any, out_dir: Path) -> FigureResult:
    table = _frame(summary, "qmax", oc_metrics)
    long = table.melt(id_vars=["scheme", "qmax"], value_vars=[f"{g}_mbps" for g, _ in GROUPS], var_name="group",
                      value_name="mbps")
    figs = _plot_groups(long, Path(out_dir) / "outcast.png")
    rows = _rows(table, "qmax", "Qmax (pkt)", "f1_share", "F1 / mean F4:15 throughput", "", "flow")
    return FigureResult(table, figs, rows, oc_text(table))


def _plot_groups(long: Any, path: Path) -> List[Path]:
    from ...plots import new_figure, save

    qs = sorted(set(long["qmax"]))
    fig, axes = new_figure(ncols=len(qs), figsize=(6.0 * len(qs), 3.8))
    axes = np.atleast_1d(axes)
    w = 0.8 / len(GROUPS)
    for ax, q in zip(axes, qs):
        sub = long[long["qmax"] == q]
        top = float(sub["mbps"].max()) if len(sub) else 1.0
        schemes = [s for s in SCHEME_NAMES if s in set(sub["scheme"])]
        for j, (gname, _) in enumerate(GROUPS):
            vals = [float(sub[(sub["scheme"] == s) & (sub["group"] == f"{gname}_mbps")]["mbps"].iloc[0]) for s in schemes]
            xs = np.arange(len(schemes)) + (j - 1) * w
            ax.bar(xs, vals, w, color=f"C{j}", label=f"{gname} ({(2, 4, 6)[j]} hops)")
            # a bar under 1 % of the axis reads as no bar at all: a starved
            # group (BBR's 6-hop flows at 0.008 Mbps) gets its value written
            for x, v in zip(xs, vals):
                if 0 <= v < 0.01 * top:
                    ax.text(x, 0.01 * top, f"{v:.2g}", rotation=90, ha="center", va="bottom", fontsize=6,
                            color=f"C{j}")
        ax.set_xticks(np.arange(len(schemes)))
        ax.set_xticklabels(schemes, rotation=30, fontsize=8)
        ax.set_ylabel("mean per-flow throughput (Mbps)")
        ax.set_title(f"Qmax = {q} packets", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=7)
    fig.suptitle("outcast (TCPRand's k = 4 fat-tree): 15 long flows into host 0, 1 Gbps (dcnsim's own study)",
                 fontsize=10)
    return save(fig, path)
