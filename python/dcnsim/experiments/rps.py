"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, JCSM 5(1), 2016): Figs. 2–9.

``dcnsim reproduce rps`` runs every figure of the paper's evaluation and
three of our own (per-path utilization, hash polarisation, reordering-robust
TCP). The setup, every setting the paper leaves open and every difference
from the paper are explained in docs/rps.md; the settings are also listed
in :data:`SETTINGS` and printed with the results.

Setup (the paper's Table 1 and §2.2): a k = 4 fat-tree (16 servers, 4 pods
of 2 edge + 2 aggregation switches, 4 cores), 1 Gbps links with 25 µs each,
1000-packet (1.5 MB) drop-tail buffers per switch port, 1500-byte packets,
long flows of 10 MB and short flows of 200 KB, all flows starting at once,
10 runs per point. Host h is the paper's server S<h> (S0, S1 under E0; S15
under E7).

* Static pairs (Figs. 2–4): n = 0…5 long flows S0…S(n−1) → S15 plus one
  short flow S0 → S15.
* Random pairs (Figs. 5–9): N long flows and 20 (or 10) short flows between
  random distinct source/destination servers, drawn per run; every scheme of
  a run sees the same pairs, so schemes are compared run by run (paired).

Schemes: the paper's "single-path forwarding" is ns-3's global routing
without random ECMP, i.e. every flow on the same first shortest path
(``single``); we also run hash-based ECMP (what the paper's related work and
EXPERIMENTS.md call the flow-based alternative), RPS and flowlet switching.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..sweep import Point
from .framework import (
    Comparison,
    Figure,
    FigureResult,
    Paper,
    Setting,
    compare_claim,
    compare_number,
    read_table,
)

# ---------------------------------------------------------------- constants

K = 4
HOSTS = K ** 3 // 4  # 16
RATE = "1Gbps"
DELAY = "25us"
BUFFER = "1000pkt"  # 1000 × 1500 B = 1.5 MB per port
LONG = "10MB"
SHORT = "200KB"
LONG_BYTES = 10 << 20
MSS = 1460  # 1500-byte packets with 40 bytes of TCP/IP header
RWND = "128KB"  # ns-3.23's TcpSocket RcvBufSize default (131 072 B)
INIT_CWND = 1  # ns-3.23's TcpSocket InitialCwnd default
RTO_MIN = "1s"  # ns-3.23's TcpSocketBase MinRto default
RTO_INIT = "3s"  # ns-3.23: 1 s initial RTT estimate + 4 × 0.5 s variance
DST = 15  # S15, under E7
STOP_S = 30.0

RUNS = 10
QUICK_RUNS = 3
STATIC_NS: Tuple[int, ...] = (0, 1, 2, 3, 4, 5)
QUICK_STATIC_NS: Tuple[int, ...] = (0, 1, 3, 5)
RANDOM_NS: Tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
QUICK_RANDOM_NS: Tuple[int, ...] = (1, 4, 8)
SHORTS = 20
FEW_SHORTS = 10
FLOWLET_GAP = "500us"

#: (series name, key used in labels, [routing] table)
SCHEMES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("single path", "single", {"mode": "single"}),
    ("ECMP", "ecmp", {"mode": "ecmp"}),
    ("RPS", "rps", {"mode": "rps"}),
    ("flowlet 500 µs", "flowlet", {"mode": "flowlet", "flowlet_gap": FLOWLET_GAP}),
]
SCHEME_NAMES = [s[0] for s in SCHEMES]
SINGLE, ECMP, RPS, FLOWLET = SCHEME_NAMES

#: TCP variants of the reordering figure: (name, key, tcp keys)
TCP_CCS: List[Tuple[str, str, Dict[str, Any]]] = [
    ("NewReno", "newreno", {"cc": "newreno"}),
    ("CUBIC", "cubic", {"cc": "cubic"}),
    ("DCTCP", "dctcp", {"cc": "dctcp"}),
]
TCP_RECOVERY: List[Tuple[str, str, Dict[str, Any]]] = [
    ("dupthresh 3", "fixed", {}),
    ("SACK, dupthresh 3", "sack", {"sack": True}),
    ("SACK, adaptive dupthresh", "adaptive", {"sack": True, "reordering": "adaptive"}),
    ("SACK, RACK-TLP", "rack", {"sack": True, "recovery": "rack"}),
]
#: the variant the reordering-robust ones are compared with (same SACK)
TCP_BASE = "SACK, dupthresh 3"
DCTCP_K = "20pkt"  # DCTCP's marking threshold at 1 Gbps (Alizadeh et al. 2010)

# ---------------------------------------------------------------- scenarios


def tcp(**over: Any) -> Dict[str, Any]:
    """The [tcp] table: ns-3.23's defaults for everything the paper leaves open."""
    t: Dict[str, Any] = {
        "cc": "newreno",
        "mss": MSS,
        "init_cwnd": INIT_CWND,
        "rwnd": RWND,
        "rto_min": RTO_MIN,
        "rto_init": RTO_INIT,
        "delayed_ack": True,
        "delayed_ack_segments": 2,
        "delayed_ack_timeout": "200ms",
        "sack": False,
        "dupack_threshold": 3,
    }
    t.update(over)
    return t


def topology(ecn_k: Optional[str] = None) -> Dict[str, Any]:
    t = {"kind": "fat_tree", "k": K, "rate": RATE, "delay": DELAY, "buffer": BUFFER}
    if ecn_k:
        t["ecn_k"] = ecn_k
    return t


def _bulk(src: int, dst: int, size: str) -> Dict[str, Any]:
    return {"kind": "bulk", "src": src, "dst": dst, "size": size}


def static_apps(n_long: int) -> List[Dict[str, Any]]:
    """n long flows S0…S(n−1) → S15 and one short flow S0 → S15 (the last app)."""
    if not 0 <= n_long <= 15:
        raise ValueError(f"n_long must be in 0..15, got {n_long}")
    return [_bulk(s, DST, LONG) for s in range(n_long)] + [_bulk(0, DST, SHORT)]


def random_pairs(n: int, seed: int, salt: int) -> List[Tuple[int, int]]:
    """n (src, dst) pairs of distinct servers, uniformly at random; the same
    for every scheme of a run (``salt`` separates long from short flows).
    The first m < n pairs are the m pairs: runs with fewer flows are nested
    in runs with more (the 10 short flows of Figs. 8–9 are the first 10 of
    the 20)."""
    rng = np.random.default_rng([seed, salt])
    out = []
    for _ in range(n):
        s = int(rng.integers(HOSTS))
        d = int(rng.integers(HOSTS - 1))
        out.append((s, d + (d >= s)))
    return out


def random_apps(n_long: int, n_short: int, seed: int) -> List[Dict[str, Any]]:
    longs = random_pairs(n_long, seed, 1)
    shorts = random_pairs(n_short, seed, 2)
    return [_bulk(s, d, LONG) for s, d in longs] + [_bulk(s, d, SHORT) for s, d in shorts]


def scenario(name: str, apps: List[Dict[str, Any]], routing: Dict[str, Any], seed: int,
             tcp_table: Optional[Dict[str, Any]] = None, ecn_k: Optional[str] = None) -> Dict[str, Any]:
    return {
        "name": name,
        "seed": seed,
        "stop": f"{STOP_S:g}s",
        "topology": topology(ecn_k),
        "routing": dict(routing),
        "tcp": tcp_table or tcp(),
        "apps": apps,
    }


def _runs(quick: bool) -> range:
    return range(1, (QUICK_RUNS if quick else RUNS) + 1)


def _scheme_points(quick: bool, ns: Sequence[int], case: str, prefix: str, shorts: int, schemes,
                   apps: Callable[[int, int], List[Dict[str, Any]]]) -> List[Point]:
    """One run per scheme, number of long flows n and run (the run is the seed); ``apps(n, run)``."""
    pts = []
    for name, key, routing in schemes:
        for n in ns:
            for run in _runs(quick):
                label = f"{prefix}-{key}-n{n}-r{run:02d}"
                pts.append(Point(label, scenario(label, apps(n, run), routing, run), None,
                                 {"scheme": name, "n_long": n, "run": run, "shorts": shorts, "case": case}))
    return pts


def _static_points(quick: bool, schemes=SCHEMES) -> List[Point]:
    return _scheme_points(quick, QUICK_STATIC_NS if quick else STATIC_NS, "static", "static", 1, schemes,
                          lambda n, run: static_apps(n))


def _random_points(quick: bool, shorts: int = SHORTS, schemes=SCHEMES) -> List[Point]:
    return _scheme_points(quick, QUICK_RANDOM_NS if quick else RANDOM_NS, "random", f"random-s{shorts}", shorts,
                          schemes, lambda n, run: random_apps(n, shorts, run))


# ---------------------------------------------------------------- statistics

# two-sided 95 % Student t quantiles, df = 1..30 (beyond: normal)
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def ci95(values: Sequence[float]) -> Tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (Student t);
    half-width 0 for a single value or identical values."""
    v = np.asarray([x for x in values if x == x], dtype=float)
    if len(v) == 0:
        return math.nan, math.nan
    m = float(v.mean())
    if len(v) < 2:
        return m, 0.0
    t = _T95[len(v) - 2] if len(v) - 1 <= len(_T95) else 1.96
    return m, float(t * v.std(ddof=1) / math.sqrt(len(v)))


# ---------------------------------------------------------------- reading results


@lru_cache(maxsize=8192)
def _metrics(point_dir: str, mtime: float) -> Dict[str, float]:
    f = read_table(point_dir, "flows")
    f = f[f["transport"] == "tcp"]
    long = f[f["app_bytes"] >= LONG_BYTES]
    short = f[f["app_bytes"] < LONG_BYTES]
    fct = f["fct_s"].astype(float)

    def tput(g):
        t = g["fct_s"].astype(float)
        return g["app_bytes"].astype(float) * 8 / t / 1e6

    received = (short["segments_sent"] - short["drops"]).clip(lower=1)
    out = {
        "long_tput_mbps": float(tput(long).mean()) if len(long) else math.nan,
        "short_fct_ms": float(short["fct_s"].astype(float).mean() * 1e3) if len(short) else math.nan,
        "short_ooo_pct": float(100 * short["ooo_arrivals"].sum() / received.sum()) if len(short) else math.nan,
        "long_ooo_pct": float(100 * long["ooo_arrivals"].sum() / (long["segments_sent"] - long["drops"]).clip(lower=1).sum())
        if len(long) else math.nan,
        "unfinished": float((~f["completed"].astype(bool)).sum()),
        "drops": float(f["drops"].sum()),
        "retransmits": float(f["retransmits"].sum()),
        "fast_retransmits": float(f["fast_retransmits"].sum()),
        "timeouts": float(f["timeouts"].sum()),
        "dup_arrivals": float(f["dup_arrivals"].sum()),
        # arrivals above a hole in flows that lost nothing: reordering proper
        "ooo_lossfree": float(f[f["drops"] == 0]["ooo_arrivals"].sum()),
        "makespan_ms": float(fct.max() * 1e3) if len(f) else math.nan,
    }
    if "spurious_retransmits" in f:
        out["spurious_retransmits"] = float(f["spurious_retransmits"].sum())
    return out


def metrics(row: Any) -> Dict[str, float]:
    d = Path(row["dir"])
    p = d / "flows.csv"
    return _metrics(str(d), p.stat().st_mtime if p.exists() else 0.0)


PARAMS = ("label", "scheme", "n_long", "run", "shorts", "case", "cc", "recovery")


def frame(summary):
    """One row per run: its parameters and metrics."""
    import pandas as pd

    rows = []
    for _, r in summary.iterrows():
        rec = {k: r[k] for k in PARAMS if k in r and r[k] == r[k]}
        for k in ("n_long", "run", "shorts"):
            if k in rec:
                rec[k] = int(rec[k])
        rec.update(metrics(r))
        rows.append(rec)
    return pd.DataFrame(rows)


def tidy(df, metric: str, by: Sequence[str]):
    """Mean and 95 % CI half-width of ``metric`` over runs, per ``by``."""
    import pandas as pd

    rows = []
    for keys, g in df.groupby(list(by), sort=True):
        keys = keys if isinstance(keys, tuple) else (keys,)
        m, h = ci95(g[metric].tolist())
        rows.append({**dict(zip(by, keys)), "metric": metric, "mean": m, "ci95": h, "runs": len(g)})
    return pd.DataFrame(rows)


def paired(df, metric: str, a: str, b: str, col: str = "scheme", x: str = "n_long") -> Dict[int, Tuple[float, float]]:
    """Per x: mean and 95 % CI half-width of (a − b), paired by run."""
    out = {}
    for xv, g in df.groupby(x):
        pa = g[g[col] == a].set_index("run")[metric]
        pb = g[g[col] == b].set_index("run")[metric]
        common = pa.index.intersection(pb.index)
        if len(common):
            out[int(xv)] = ci95((pa[common] - pb[common]).tolist())
    return out


# ---------------------------------------------------------------- verdicts


def claim(quantity: str, ours: Any, paper: Any, holds: Optional[bool], criterion: str, *,
          partly: Optional[bool] = None, partly_rule: str = "", note: str = "") -> Comparison:
    """A qualitative claim whose verdict follows the stated ``criterion``;
    ``partly`` (the weaker rule ``partly_rule``) gives "trend agrees".
    Nothing to test against (``holds`` and ``paper`` None): a value of ours,
    "not in paper", with the criterion as its note."""
    if holds is None and paper is None:
        return Comparison(quantity, ours, None, "not in paper", "; ".join(x for x in (criterion, note) if x))
    return compare_claim(quantity, ours, paper, holds, note, partly, criterion=criterion,
                         partly_criterion=partly_rule if partly is not None else None)


def ordering_claim(quantity: str, diffs: Dict[int, Tuple[float, float]], paper: Optional[str], sign: int, what: str,
                   unit: str) -> Comparison:
    """Claim "A is higher (sign = +1) / lower (sign = −1) than B" from paired
    per-x differences A − B with their 95 % CIs.

    agrees: the CI excludes 0 in the claimed direction at ≥ half of the x
    values and lies on the wrong side at none; trend agrees: the mean is on
    the claimed side at a majority of x and the CI is on the wrong side at
    none; differs otherwise (or when the CI is on the wrong side anywhere)."""
    xs = sorted(diffs)
    if not xs:
        return claim(quantity, "no data", paper, False, "needs paired runs")
    sig = sum(1 for x in xs if sign * diffs[x][0] - diffs[x][1] > 0)
    wrong = sum(1 for x in xs if -sign * diffs[x][0] - diffs[x][1] > 0)
    side = sum(1 for x in xs if sign * diffs[x][0] > 0)
    holds = wrong == 0 and sig * 2 >= len(xs)
    partly = wrong == 0 and side * 2 > len(xs)
    ours = "; ".join(f"{x}: {diffs[x][0]:+.3g} ± {diffs[x][1]:.2g}" for x in xs)
    crit = (f"paired difference {what} per x (± 95 % CI, {unit}): the CI on the claimed side at ≥ half "
            f"of the x and on the wrong side at none ({sig}/{len(xs)} significant, {wrong} wrong)")
    return claim(quantity, ours, paper, holds, crit, partly=partly,
                 partly_rule=f"the mean on the claimed side at a majority ({side}/{len(xs)}) and the CI wrong nowhere")


# ---------------------------------------------------------------- plotting


def errorbar_plot(t, x: str, series: str, *, xlabel: str, ylabel: str, title: str, path: Path,
                  order: Optional[Sequence[str]] = None, logy: bool = False, facet: Optional[str] = None,
                  hline: Optional[Tuple[float, str]] = None) -> List[Path]:
    import matplotlib.pyplot as plt

    from ..plots import MARKERS, STYLE, save, series_colors

    names = list(order or list(dict.fromkeys(t[series])))
    names = [n for n in names if n in set(t[series])]
    colors = series_colors(names)
    facets = [None] if facet is None else list(dict.fromkeys(t[facet]))
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(facets), figsize=(max(6.4, 4.4 * len(facets)), 4.2), squeeze=False,
                                 sharey=True)
        for ax, fv in zip(axes[0], facets):
            d = t if fv is None else t[t[facet] == fv]
            for i, n in enumerate(names):
                g = d[d[series] == n].sort_values(x)
                if len(g) == 0:
                    continue
                ax.errorbar(g[x], g["mean"], yerr=g["ci95"], marker=MARKERS[i % len(MARKERS)], capsize=3,
                            color=colors[n], label=str(n))
            if hline:
                ax.axhline(hline[0], linestyle="--", linewidth=1.0, color="0.5", label=hline[1])
            if logy:
                ax.set_yscale("log")
            else:
                ax.set_ylim(bottom=0)
            ax.set_xlabel(xlabel)
            if fv is not None:
                ax.set_title(str(fv), fontsize=10)
        axes[0][0].set_ylabel(ylabel)
        axes[0][0].legend()
        fig.suptitle(title, fontsize=11)
    return save(fig, path)


def _fmt_series(t, names: Sequence[str], fmt: str = "{:.3g}") -> str:
    parts = []
    for n in names:
        g = t[t["scheme"] == n].sort_values("n_long")
        if len(g):
            parts.append(f"{n}: " + ", ".join(fmt.format(v) for v in g["mean"]))
    return "; ".join(parts)


def _unfinished_notes(df) -> List[str]:
    bad = df[df["unfinished"] > 0]
    if len(bad):
        return [f"{len(bad)} run(s) had flows unfinished at {STOP_S:g} s: {', '.join(bad['label'][:5])}"]
    return []


def _loss_note(df) -> str:
    by = df.groupby("scheme")[["drops", "retransmits", "fast_retransmits", "timeouts"]].sum()
    parts = [f"{s}: {int(r.drops)} drops, {int(r.retransmits)} retransmissions ({int(r.fast_retransmits)} fast "
             f"retransmits, {int(r.timeouts)} timeouts)" for s, r in by.iterrows()]
    return "all runs of the figure, summed — " + "; ".join(parts)


# ---------------------------------------------------------------- Figs. 2–4 (static pairs)


def _scheme_plot(t, fig: int, ylabel: str, title: str, out_dir: Path, **kw: Any) -> List[Path]:
    """Figs. 2–7: one errorbar series per scheme against the number of long flows."""
    return errorbar_plot(t, "n_long", "scheme", xlabel="long flows", ylabel=ylabel, title=f"Fig. {fig}: {title}",
                         path=out_dir / f"fig{fig}.png", order=SCHEME_NAMES, **kw)


def _rps_vs_others(d, metric: str, what: str, paper: str, ecmp: str, sign: int, unit: str) -> List[Comparison]:
    """RPS against single-path routing (the paper's comparison) and ECMP (ours), paired by run."""
    return [
        ordering_claim(f"RPS vs single path: {what}", paired(d, metric, RPS, SINGLE), paper, sign,
                       "RPS − single path", unit),
        ordering_claim(f"RPS vs ECMP: {what}", paired(d, metric, RPS, ECMP), f"(ECMP not in paper) {ecmp}", sign,
                       "RPS − ECMP", unit),
    ]


def _analyze_fig2(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    d = df[df["n_long"] >= 1]
    t = tidy(d, "long_tput_mbps", ["scheme", "n_long"])
    figs = _scheme_plot(t, 2, "mean long-flow throughput (Mbps)", "static pairs, long-flow throughput", out_dir,
                        hline=None)
    cmp = _rps_vs_others(d, "long_tput_mbps", "long-flow throughput", "RPS slightly higher", "RPS higher", +1, "Mbps")
    # every flow is bounded by its fair share of E7→S15 (the n long flows and the short one share it)
    worst = 0.0
    for (_s, n), g in d.groupby(["scheme", "n_long"]):
        worst = max(worst, float(g["long_tput_mbps"].mean()) * n / 1000.0)
    cmp.append(claim("n × mean long-flow throughput / 1 Gbps (fair-share bound at E7–S15)", round(worst, 3),
                     "each flow bounded by its fair share of E7–S15", worst <= 1.0 + 1e-9,
                     "agrees if ≤ 1 for every scheme and n (the n long flows share one 1 Gbps port), differs above"))
    notes = _unfinished_notes(df) + [_loss_note(d), "means per n: " + _fmt_series(t, SCHEME_NAMES, "{:.0f}")]
    return FigureResult(t, figs, cmp, notes)


def _analyze_fig3(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_fct_ms", ["scheme", "n_long"])
    figs = _scheme_plot(t, 3, "short-flow FCT (ms)", "static pairs, FCT of the 200 KB flow", out_dir)
    d1 = df[df["n_long"] >= 1]
    diffs = paired(d1, "short_fct_ms", SINGLE, RPS)
    cmp = _rps_vs_others(d1, "short_fct_ms", "short-flow FCT", "RPS smaller", "RPS smaller", -1, "ms")
    if len(diffs) >= 2:
        lo, hi = min(diffs), max(diffs)
        grow = diffs[hi][0] - diffs[lo][0]
        spread = diffs[hi][1] + diffs[lo][1]
        cmp.append(claim(f"FCT advantage of RPS (single − RPS) at n = {lo} vs n = {hi}",
                         f"{diffs[lo][0]:.3g} → {diffs[hi][0]:.3g} ms", "advantage grows with the number of long flows",
                         grow > spread, f"the gain at n = {hi} exceeds the one at n = {lo} by more than the "
                         "sum of their 95 % CIs", partly=grow > 0, partly_rule="larger, within the CIs"))
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + ["means per n: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _analyze_fig4(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_ooo_pct", ["scheme", "n_long"])
    figs = _scheme_plot(t, 4, "out-of-order packets of the short flow (%)", "static pairs, out-of-order share", out_dir)
    r = t[(t["scheme"] == RPS) & (t["n_long"] >= 2)]
    cmp = []
    if len(r):
        lo, hi = float(r["mean"].min()), float(r["mean"].max())
        ci = float(r["ci95"].max())
        cmp.append(claim("RPS: short-flow out-of-order % for n ≥ 2 (min–max of the means)", f"{lo:.1f}–{hi:.1f} %",
                         "about the same for ≥ 2 long flows", hi - lo <= max(5.0, 2 * ci),
                         "agrees if the means at n ≥ 2 lie within 5 percentage points (or within twice the largest "
                         "95 % CI) of each other; differs otherwise"))
    one_path = df[df["scheme"].isin([SINGLE, ECMP])]
    n_ooo = int(one_path["ooo_lossfree"].sum())
    cmp.append(claim("single path and ECMP: out-of-order arrivals in flows that lost no packet", n_ooo,
                     "single-path forwarding prevents out-of-order delivery", n_ooo == 0,
                     "agrees if 0 in every run (one FIFO path per flow: only a loss leaves a hole), differs otherwise",
                     note="the out-of-order % counts every arrival above a hole, so losses (at S0's 100-packet NIC "
                          "queue when two flows start there) count too, as a receiver-side count in ns-3 would"))
    return FigureResult(t, figs, cmp, ["means per n: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


# ---------------------------------------------------------------- Figs. 5–9 (random pairs)


def _fig567_points(quick: bool) -> List[Point]:
    return _random_points(quick, SHORTS)


def _analyze_fig5(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "long_tput_mbps", ["scheme", "n_long"])
    figs = _scheme_plot(t, 5, "mean long-flow throughput (Mbps)",
                        "random pairs (20 short flows), long-flow throughput", out_dir)
    cmp = _rps_vs_others(df, "long_tput_mbps", "long-flow throughput", "RPS higher", "RPS higher", +1, "Mbps")
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + [_loss_note(df), "means per N: " +
                                                               _fmt_series(t, SCHEME_NAMES, "{:.0f}")])


def _analyze_fig6(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_fct_ms", ["scheme", "n_long"])
    figs = _scheme_plot(t, 6, "mean short-flow FCT (ms)", "random pairs, FCT of the 20 short flows", out_dir)
    cmp = _rps_vs_others(df, "short_fct_ms", "short-flow FCT", "RPS smaller", "RPS smaller", -1, "ms")
    return FigureResult(t, figs, cmp, _unfinished_notes(df) + ["means per N: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _analyze_fig7(summary, out_dir: Path) -> FigureResult:
    df = frame(summary)
    t = tidy(df, "short_ooo_pct", ["scheme", "n_long"])
    figs = _scheme_plot(t, 7, "out-of-order packets of short flows (%)", "random pairs, out-of-order share", out_dir,
                        hline=(20.0, "paper: about 20 %"))
    r = df[df["scheme"] == RPS]
    m, h = ci95(r["short_ooo_pct"].tolist())
    cmp = [compare_number("RPS: out-of-order share of short-flow packets (all N, all runs)", m, 20.0, unit="%",
                          note=f"± {h:.2g} (95 % CI); criterion: agrees within 20 % of the paper's ≈ 20 % "
                               "(16–24 %), close within 50 % (10–30 %), else differs")]
    return FigureResult(t, figs, cmp, ["means per N: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])


def _fig89_points(quick: bool) -> List[Point]:
    rps = [s for s in SCHEMES if s[0] == RPS]
    return _random_points(quick, FEW_SHORTS, rps) + _random_points(quick, SHORTS, rps)


def _short_count_claim(df, metric: str, sign: int, paper: str, unit: str) -> Comparison:
    d = df.copy()
    d["series"] = d["shorts"].map(lambda s: f"{s} short flows")
    diffs = paired(d, metric, f"{SHORTS} short flows", f"{FEW_SHORTS} short flows", col="series")
    return ordering_claim(f"RPS: {metric} with {SHORTS} vs {FEW_SHORTS} short flows", diffs, paper, sign,
                          f"{SHORTS} − {FEW_SHORTS} short flows (same long-flow pairs)", unit)


def _short_count_figure(summary, metric: str, fig: int, ylabel: str, title: str, out_dir: Path):
    """Figs. 8–9: RPS runs with 10 and with 20 short flows, one series each: (frame, table, plots)."""
    df = frame(summary)
    df["series"] = df["shorts"].map(lambda s: f"{s} short flows")
    t = tidy(df, metric, ["series", "n_long"]).rename(columns={"series": "scheme"})
    figs = errorbar_plot(t, "n_long", "scheme", xlabel="long flows", ylabel=ylabel,
                         title=f"Fig. {fig}: RPS, 10 vs 20 short flows: {title}", path=out_dir / f"fig{fig}.png")
    return df, t, figs


def _analyze_fig8(summary, out_dir: Path) -> FigureResult:
    df, t, figs = _short_count_figure(summary, "long_tput_mbps", 8, "mean long-flow throughput (Mbps)",
                                      "long-flow throughput", out_dir)
    cmp = [_short_count_claim(df, "long_tput_mbps", -1, "slightly lower with 20 short flows", "Mbps")]
    rel = []
    for _n, g in df.groupby("n_long"):
        a = g[g["shorts"] == FEW_SHORTS]["long_tput_mbps"].mean()
        b = g[g["shorts"] == SHORTS]["long_tput_mbps"].mean()
        rel.append((a - b) / a if a else math.nan)
    worst = float(np.nanmax(np.abs(rel))) if rel else math.nan
    cmp.append(claim("largest relative throughput change, 10 → 20 short flows", f"{100 * worst:.1f} %",
                     "slightly lower", worst <= 0.10,
                     "agrees if |change| ≤ 10 % at every N (\"slightly\"), differs above"))
    return FigureResult(t, figs, cmp, [])


def _analyze_fig9(summary, out_dir: Path) -> FigureResult:
    df, t, figs = _short_count_figure(summary, "short_fct_ms", 9, "mean short-flow FCT (ms)", "short-flow FCT",
                                      out_dir)
    cmp = [_short_count_claim(df, "short_fct_ms", +1, "higher with 20 short flows", "ms")]
    return FigureResult(t, figs, cmp, ["the first 10 short flows of the 20-flow runs are the 10-flow runs' pairs "
                                       "(same seed), so the comparison is paired"])


# ---------------------------------------------------------------- per-path utilization (ours)


def _paths_points(quick: bool) -> List[Point]:
    pts = []
    for name, key, routing in SCHEMES:
        label = f"paths-{key}"
        pts.append(Point(label, scenario(label, static_apps(5), routing, 1), None,
                         {"scheme": name, "n_long": 5, "run": 1, "shorts": 1, "case": "static"}))
    return pts


def core_shares(row: Any) -> Dict[str, float]:
    """Share of the data bytes into pod 3 that each core switch carried."""
    q = read_table(row, "queues")
    down = q[q["node"].str.startswith("core") & q["to"].str.startswith("aggr3_")]
    tot = float(down["tx_bytes"].sum())
    return {n: (float(b) / tot if tot else math.nan) for n, b in zip(down["node"], down["tx_bytes"])}


def _analyze_paths(summary, out_dir: Path) -> FigureResult:
    import matplotlib.pyplot as plt
    import pandas as pd

    from ..plots import STYLE, save, series_colors

    rows = []
    for _, r in summary.iterrows():
        for core, share in core_shares(r).items():
            rows.append({"scheme": r["scheme"], "core": core, "share": share})
    t = pd.DataFrame(rows)
    cores = sorted(set(t["core"]))
    colors = series_colors(SCHEME_NAMES)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7.2, 4.0))
        w = 0.8 / len(SCHEME_NAMES)
        for i, s in enumerate(SCHEME_NAMES):
            g = t[t["scheme"] == s].set_index("core").reindex(cores)
            ax.bar(np.arange(len(cores)) + (i - 1.5) * w, 100 * g["share"], w, label=s, color=colors[s])
        ax.axhline(25, linestyle="--", color="0.5", linewidth=1, label="even split")
        ax.set_xticks(np.arange(len(cores)), [f"{c} → pod 3" for c in cores])
        ax.set_ylabel("share of the bytes into pod 3 (%)")
        ax.set_title("static pairs, 5 long + 1 short flow: load per inter-pod path", fontsize=11)
        ax.legend()
    figs = save(fig, out_dir / "paths.png")
    rps = t[t["scheme"] == RPS]["share"]
    dev = float((rps - 0.25).abs().max()) if len(rps) else math.nan
    single = t[t["scheme"] == SINGLE]["share"]
    cmp = [claim("RPS: largest deviation of a core's share from 1/4", f"{100 * dev:.2f} points",
                 "packets use almost completely disjoint paths (all four)", dev <= 0.03,
                 "agrees if every core carries 25 % ± 3 points of the bytes into pod 3, differs otherwise"),
           claim("single path: cores used", int((single > 0).sum()), None, None,
                 "ns-3's global routing puts every flow on the first shortest path: one core")]
    return FigureResult(t, figs, cmp, [])


# ---------------------------------------------------------------- hash polarisation (ours)

POLAR_SCHEMES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("ECMP, per-switch salt", "ecmp", {"mode": "ecmp"}),
    ("ECMP, no salt", "ecmpnosalt", {"mode": "ecmp", "salt": False}),
]


def _polar_points(quick: bool) -> List[Point]:
    n = 8
    pts = []
    for name, key, routing in POLAR_SCHEMES:
        for run in _runs(quick):
            label = f"polar-{key}-n{n}-r{run:02d}"
            pts.append(Point(label, scenario(label, random_apps(n, SHORTS, run), routing, run), None,
                             {"scheme": name, "n_long": n, "run": run, "shorts": SHORTS, "case": "random"}))
    return pts


def _analyze_polar(summary, out_dir: Path) -> FigureResult:
    import matplotlib.pyplot as plt
    import pandas as pd

    from ..plots import STYLE, save, series_colors

    rows = []
    for _, r in summary.iterrows():
        q = read_table(r, "queues")
        core = q[q["node"].str.startswith("core")]
        for c, g in core.groupby("node"):
            rows.append({"scheme": r["scheme"], "run": int(r["run"]), "core": c,
                         "utilization": float(g["utilization"].mean())})
    t = pd.DataFrame(rows)
    agg = t.groupby(["scheme", "core"])["utilization"].agg(["mean", "min"]).reset_index()
    names = [s[0] for s in POLAR_SCHEMES]
    cores = sorted(set(t["core"]))
    colors = series_colors(names)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        w = 0.38
        for i, s in enumerate(names):
            g = agg[agg["scheme"] == s].set_index("core").reindex(cores)
            ax.bar(np.arange(len(cores)) + (i - 0.5) * w, 100 * g["mean"], w, label=s, color=colors[s])
        ax.set_xticks(np.arange(len(cores)), cores)
        ax.set_ylabel("mean utilization of the core's ports (%)")
        ax.set_title("random pairs (8 long + 20 short): hash polarisation", fontsize=11)
        ax.legend()
    figs = save(fig, out_dir / "polarisation.png")
    un = t[t["scheme"] == names[1]]
    sa = t[t["scheme"] == names[0]]
    idle_un = sorted(set(un.groupby("core")["utilization"].max().loc[lambda s: s == 0].index))
    idle_sa = sorted(set(sa.groupby("core")["utilization"].max().loc[lambda s: s == 0].index))
    cmp = [claim("no salt: cores idle in every run", ", ".join(idle_un) or "none", None, None,
                 "law (tests/multipath.rs): the same hash digit picks the aggregation switch and its core, so "
                 "only the k/2 diagonal cores carry traffic"),
           claim("per-switch salt: cores idle in every run", ", ".join(idle_sa) or "none", None, None,
                 "independent choices per tier")]
    return FigureResult(t, figs, cmp, [])


# ---------------------------------------------------------------- reordering-robust TCP (ours)


def _tcp_points(quick: bool) -> List[Point]:
    ns = (4,) if quick else (2, 4, 8)
    pts = []
    for cname, ckey, cc in TCP_CCS:
        for rname, rkey, rec in TCP_RECOVERY:
            for run in _runs(quick):
                for n in ns:
                    label = f"tcp-{ckey}-{rkey}-n{n}-r{run:02d}"
                    ecn = DCTCP_K if cc["cc"] == "dctcp" else None
                    doc = scenario(label, random_apps(n, SHORTS, run), {"mode": "rps"}, run,
                                   tcp(**cc, **rec), ecn_k=ecn)
                    pts.append(Point(label, doc, None, {"scheme": RPS, "cc": cname, "recovery": rname, "n_long": n,
                                                        "run": run, "shorts": SHORTS, "case": "random"}))
    return pts


def _analyze_tcp(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    df = frame(summary)
    rec_names = [r[0] for r in TCP_RECOVERY]
    t = pd.concat([tidy(df, m, ["cc", "recovery", "n_long"])
                   for m in ("long_tput_mbps", "short_fct_ms", "fast_retransmits", "spurious_retransmits")],
                  ignore_index=True)
    figs = []
    for metric, ylabel, stem in (("long_tput_mbps", "mean long-flow throughput (Mbps)", "tcp"),
                                 ("fast_retransmits", "fast retransmits per run", "tcp_retransmits"),
                                 ("short_fct_ms", "mean short-flow FCT (ms)", "tcp_fct")):
        tp = t[t["metric"] == metric].rename(columns={"recovery": "scheme"})
        figs += errorbar_plot(tp, "n_long", "scheme", xlabel="long flows", ylabel=ylabel,
                              title="RPS, random pairs (20 short flows): reordering-robust loss detection",
                              path=out_dir / f"{stem}.png", order=rec_names, facet="cc")
    cmp = []
    for cname, _, _ in TCP_CCS:
        d = df[df["cc"] == cname]
        for rname in rec_names[2:]:
            fr = paired(d, "fast_retransmits", rname, TCP_BASE, col="recovery")
            cmp.append(ordering_claim(f"{cname}: fast retransmits, {rname} − {TCP_BASE}", fr, None, -1,
                                      f"{rname} − {TCP_BASE}", "per run"))
            tp_d = paired(d, "long_tput_mbps", rname, TCP_BASE, col="recovery")
            cmp.append(ordering_claim(f"{cname}: long-flow throughput, {rname} − {TCP_BASE}", tp_d, None, +1,
                                      f"{rname} − {TCP_BASE}", "Mbps"))
            fct = paired(d, "short_fct_ms", rname, TCP_BASE, col="recovery")
            cmp.append(ordering_claim(f"{cname}: short-flow FCT, {rname} − {TCP_BASE}", fct, None, -1,
                                      f"{rname} − {TCP_BASE}", "ms"))
    # the paper has no such figure: the verdict our criterion gives is in the note
    cmp = [Comparison(c.quantity, c.ours, None, "not in paper", f"our expectation {c.verdict}: " + c.note)
           for c in cmp]
    spur = df.groupby(["cc", "recovery"])[["fast_retransmits", "spurious_retransmits", "drops"]].sum()
    notes = ["fast retransmits / detected spurious / drops, all runs: " + "; ".join(
        f"{c}, {r}: {int(v.fast_retransmits)} / {int(v.spurious_retransmits)} / {int(v.drops)}"
        for (c, r), v in spur.iterrows())]
    return FigureResult(t, figs, cmp, notes)


# ---------------------------------------------------------------- the implicit TCP settings (ours)

#: Linux-like endpoints instead of ns-3.23's defaults: 10-segment initial
#: window, no delayed ACK (Linux quick-ACKs a connection's start), SACK,
#: RTOmin 200 ms. Receive window, buffers and everything else unchanged.
LINUX_TCP = {"init_cwnd": 10, "delayed_ack": False, "sack": True, "rto_min": "200ms", "rto_init": "1s"}


def _settings_points(quick: bool) -> List[Point]:
    ns = QUICK_RANDOM_NS if quick else RANDOM_NS
    pts = []
    for name, key, routing in SCHEMES[:3]:
        for n in ns:
            for run in _runs(quick):
                label = f"linux-{key}-n{n}-r{run:02d}"
                pts.append(Point(label, scenario(label, random_apps(n, SHORTS, run), routing, run, tcp(**LINUX_TCP)),
                                 None, {"scheme": name, "n_long": n, "run": run, "shorts": SHORTS, "case": "random"}))
    return pts


def _analyze_settings(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    df = frame(summary)
    t = pd.concat([tidy(df, m, ["scheme", "n_long"]) for m in ("long_tput_mbps", "short_fct_ms", "short_ooo_pct")],
                  ignore_index=True)
    figs = []
    for metric, ylabel, stem in (("long_tput_mbps", "mean long-flow throughput (Mbps)", "settings_tput"),
                                 ("short_fct_ms", "mean short-flow FCT (ms)", "settings_fct")):
        figs += errorbar_plot(t[t["metric"] == metric], "n_long", "scheme", xlabel="long flows", ylabel=ylabel,
                              title="Figs. 5–6 with Linux-like endpoints (IW 10, no delayed ACK, SACK, RTOmin 200 ms)",
                              path=out_dir / f"{stem}.png", order=SCHEME_NAMES)
    cmp = [
        ordering_claim("Linux-like TCP — RPS vs single path: long-flow throughput",
                       paired(df, "long_tput_mbps", RPS, SINGLE), "RPS higher (Fig. 5)", +1, "RPS − single path", "Mbps"),
        ordering_claim("Linux-like TCP — RPS vs single path: short-flow FCT",
                       paired(df, "short_fct_ms", RPS, SINGLE), "RPS smaller (Fig. 6)", -1, "RPS − single path", "ms"),
        ordering_claim("Linux-like TCP — RPS vs ECMP: short-flow FCT",
                       paired(df, "short_fct_ms", RPS, ECMP), "(ECMP not in paper) RPS smaller", -1, "RPS − ECMP", "ms"),
    ]
    r = df[df["scheme"] == RPS]
    m, h = ci95(r["short_ooo_pct"].tolist())
    cmp.append(compare_number("Linux-like TCP — RPS: out-of-order share of short-flow packets", m, 20.0, unit="%",
                              note=f"± {h:.2g} (95 % CI); criterion: agrees within 20 % of the paper's ≈ 20 %, "
                                   "close within 50 %, else differs"))
    fct = t[t["metric"] == "short_fct_ms"]
    return FigureResult(t, figs, cmp, ["mean short-flow FCT per N: " + _fmt_series(fct, SCHEME_NAMES[:3], "{:.2f}"),
                                       _loss_note(df)])


# ---------------------------------------------------------------- the paper

SETTINGS = [
    Setting("routing, \"single-path forwarding\"", "single: every flow on the first shortest path",
            "ns-3's Ipv4GlobalRouting without RandomEcmpRouting picks the first equal-cost route",
            "hash ECMP (per-switch salt) and flowlet switching (500 µs gap) as their own series"),
    Setting("RPS", "uniform random next hop per packet at every switch with > 1 equal-cost next hop",
            "§2.1 (ns-3 RandomEcmpRouting)"),
    Setting("packet and segment", "MSS 1460 B + 40 B header = 1500-byte packets", "Table 1"),
    Setting("10 MB / 200 KB", "10 × 2²⁰ B and 200 × 2¹⁰ B", "dcnsim's KB/MB are binary (docs/scenario.md)"),
    Setting("receive window", RWND, "ns-3.23 TcpSocket RcvBufSize default (131 072 B)"),
    Setting("initial window", f"{INIT_CWND} segment", "ns-3.23 TcpSocket InitialCwnd default; with delayed ACKs the "
            "first segment waits 200 ms for its ACK", "Linux-like endpoints (IW 10, no delayed ACK, SACK, RTOmin 200 ms) in the settings figure"),
    Setting("delayed ACK", "every 2nd segment or 200 ms; out-of-order segments ACKed at once",
            "ns-3.23 DelAckCount / DelAckTimeout defaults", "Linux-like endpoints (IW 10, no delayed ACK, SACK, RTOmin 200 ms) in the settings figure"),
    Setting("SACK", "off", "ns-3.23 has no SACK", "SACK variants in the tcp and settings figures"),
    Setting("duplicate-ACK threshold", "3", "ns-3.23 ReTxThreshold default",
            "adaptive threshold and RACK-TLP in the tcp figure"),
    Setting("RTOmin / initial RTO", f"{RTO_MIN} / {RTO_INIT}", "ns-3.23 MinRto default; 1 s initial RTT + 4 × 0.5 s"),
    Setting("NIC queue", "100 packets", "ns-3 PointToPointNetDevice DropTailQueue default"),
    Setting("start times", "every flow at t = 0", "the paper says nothing; all flows \"generated\" together"),
    Setting("random pairs", "source and destination uniform over the 16 servers, distinct; drawn per run, the same "
            "for every scheme", "§2.2"),
    Setting("long flows in the random case", f"N = {', '.join(map(str, RANDOM_NS))}",
            "the figures' x-axis values are not in the text"),
    Setting("runs per point", f"{RUNS} (quick: {QUICK_RUNS}), seeds 1…; 95 % Student-t CIs", "§2.2: 10 runs"),
]

SETUP = (
    "k = 4 fat-tree (16 servers, 20 switches), 1 Gbps links, 25 µs per link (300 µs unloaded RTT between pods), "
    "1000-packet (1.5 MB) drop-tail buffers per switch port, 1500-byte packets; long flows 10 MB, short 200 KB, all "
    "starting at t = 0; TCP NewReno with ns-3.23's defaults. Static pairs: n long flows S0…S(n−1) → S15 and one short "
    "S0 → S15. Random pairs: N long and 20 (or 10) short flows between random distinct servers. Schemes: single "
    "path (the paper's baseline), hash ECMP, RPS (the paper's scheme) and flowlet switching (ours). Every point "
    f"is {RUNS} runs (seeds 1…{RUNS}); error bars are 95 % CIs; schemes are compared run by run (paired)."
)

PAPER = Paper(
    key="rps",
    title="Packet-based load balancing (Kaymak & Rojas-Cessa, JCSM 2016)",
    citation="Y. Kaymak and R. Rojas-Cessa, \"Packet-Based Load Balancing in Data Center Networks\", Journal of "
             "Cyber Security and Mobility 5(1):1–18, 2016, doi:10.13052/jcsm2245-1439.511.",
    docs="docs/rps.md",
    setup=SETUP,
    settings=SETTINGS,
    figures=[
        Figure("2", "static pairs: mean long-flow throughput vs number of long flows",
               lambda q: _static_points(q), _analyze_fig2,
               "RPS slightly higher than single path; each flow bounded by its fair share of E7–S15"),
        Figure("3", "static pairs: FCT of the short flow", lambda q: _static_points(q), _analyze_fig3,
               "RPS smaller; the advantage grows with the number of long flows"),
        Figure("4", "static pairs: out-of-order packets of the short flow", lambda q: _static_points(q),
               _analyze_fig4, "about the same percentage for ≥ 2 long flows"),
        Figure("5", "random pairs: mean long-flow throughput", _fig567_points, _analyze_fig5,
               "RPS higher than single path, by more than in the static case"),
        Figure("6", "random pairs: mean short-flow FCT", _fig567_points, _analyze_fig6, "RPS smaller"),
        Figure("7", "random pairs: out-of-order packets of short flows", _fig567_points, _analyze_fig7,
               "about 20 % of packets out of order"),
        Figure("8", "RPS, 10 vs 20 short flows: long-flow throughput", _fig89_points, _analyze_fig8,
               "slightly lower with 20 short flows"),
        Figure("9", "RPS, 10 vs 20 short flows: short-flow FCT", _fig89_points, _analyze_fig9,
               "higher with 20 short flows"),
        Figure("paths", "per-path utilization (5 long + 1 short, static pairs)", _paths_points, _analyze_paths,
               "packets of a flow use almost completely disjoint paths"),
        Figure("polarisation", "ECMP with and without per-switch hash salt: core utilization", _polar_points,
               _analyze_polar, ""),
        Figure("tcp", "RPS with reordering-robust loss detection: NewReno, CUBIC, DCTCP", _tcp_points, _analyze_tcp,
               ""),
        Figure("settings", "Figs. 5–6 with Linux-like endpoints instead of ns-3.23's defaults", _settings_points,
               _analyze_settings, "as Figs. 5–6"),
    ],
)
