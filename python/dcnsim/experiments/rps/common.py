"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): what the figures share — constants, scenarios, statistics, reading results, verdicts, plotting."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...analysis import ci95
from ...sweep import Point
from ...units import parse_rate
from ..claims import Register
from ..framework import only_read_keys, read_table, table_version

# ---------------------------------------------------------------- constants

K = 4
HOSTS = K ** 3 // 4  # 16
RATE = "1Gbps"
DELAY = "25us"
BUFFER = "1000pkt"  # 1000 × 1500 B = 1.5 MB per port
LONG = "10MB"
SHORT = "200KB"
LONG_BYTES = 10 << 20
SHORT_BYTES = 200 << 10
MSS = 1460  # 1500-byte packets with 40 bytes of TCP/IP header
HEADER = 40
#: ns-3.23 has no window scaling: the advertised window is capped at
#: TcpSocketBase's MaxWindowSize, 65 535 B, whatever RcvBufSize (128 KB) says.
RWND = "65535B"
#: The hosts' NIC (device) queue. The paper sets "1000 packets per switch";
#: ns-3.23's PointToPointHelper gives both ends of a link the same
#: DropTailQueue (SetQueue / Config::SetDefault of MaxPackets), so the hosts'
#: devices get 1000 packets too unless the paper used a second helper for
#: host links, which it does not mention. ns-3's own default, 100 packets,
#: is the alternative shown in the `nic` figure (docs/rps.md).
NIC_BUFFER = "1000pkt"
NIC_BUFFER_ALT = "100pkt"
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
# the quick static points' n (1, 3, 5) among them: Fig. 5 compares the two cases per n
QUICK_RANDOM_NS: Tuple[int, ...] = (1, 3, 5, 8)
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
        # ns-3 since 3.13 (TcpSocketBase, "Always respond to first data
        # packet to speed up the connection"): the first data segment of a
        # connection is ACKed at once, then every 2nd or after 200 ms
        "delayed_ack_quickack": 1,
        # ns-3.23's TcpNewReno (NewAck: m_cWnd += m_segmentSize in slow
        # start; 3.37's SlowStart the same): one SMSS per ACK, RFC 5681's
        # standard rule, not byte counting with L = 2 (issue 31 item 2)
        "abc_limit": 1,
        "sack": False,
        # ns-3.23's TcpNewReno: its LimitedTransmit attribute was false by
        # default (dcnsim's default is on, RFC 5681's SHOULD)
        "limited_transmit": False,
        # ns-3.23's TcpNewReno: SMSS²/cwnd per ACK in congestion avoidance
        "ca_increase": "per_ack",
        # ns-3.23 had no PRR (TcpPrrRecovery came with ns-3.29)
        "reduction": "rfc6675",
        # nor RACK: losses by duplicate ACKs (dcnsim's default with SACK
        # is RACK since issue 24; the RACK-TLP variant sets it)
        "recovery": "dupack",
        "dupack_threshold": 3,
    }
    t.update(over)
    return only_read_keys(t)


def topology(ecn_k: Optional[str] = None, nic_buffer: str = NIC_BUFFER) -> Dict[str, Any]:
    t = {"kind": "fat_tree", "k": K, "rate": RATE, "delay": DELAY, "buffer": BUFFER, "nic_buffer": nic_buffer}
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
             tcp_table: Optional[Dict[str, Any]] = None, ecn_k: Optional[str] = None,
             nic_buffer: str = NIC_BUFFER) -> Dict[str, Any]:
    return {
        "name": name,
        "seed": seed,
        "stop": f"{STOP_S:g}s",
        "topology": topology(ecn_k, nic_buffer),
        "routing": dict(routing),
        "tcp": tcp_table or tcp(),
        "apps": apps,
    }


def _runs(quick: bool) -> range:
    return range(1, (QUICK_RUNS if quick else RUNS) + 1)


def _scheme_points(quick: bool, ns: Sequence[int], case: str, prefix: str, shorts: int, schemes,
                   apps: Callable[[int, int], List[Dict[str, Any]]], tcp_table: Optional[Dict[str, Any]] = None,
                   nic_buffer: str = NIC_BUFFER) -> List[Point]:
    """One run per scheme, number of long flows n and run (the run is the seed); ``apps(n, run)``."""
    pts = []
    for name, key, routing in schemes:
        for n in ns:
            for run in _runs(quick):
                label = f"{prefix}-{key}-n{n}-r{run:02d}"
                doc = scenario(label, apps(n, run), routing, run, tcp_table, nic_buffer=nic_buffer)
                pts.append(Point(label, doc, None,
                                 {"scheme": name, "n_long": n, "run": run, "shorts": shorts, "case": case}))
    return pts


def _static_points(quick: bool, schemes=SCHEMES, prefix: str = "static",
                   tcp_table: Optional[Dict[str, Any]] = None) -> List[Point]:
    return _scheme_points(quick, QUICK_STATIC_NS if quick else STATIC_NS, "static", prefix, 1, schemes,
                          lambda n, run: static_apps(n), tcp_table)


def _random_points(quick: bool, shorts: int = SHORTS, schemes=SCHEMES, nic_buffer: str = NIC_BUFFER,
                   prefix: str = "random") -> List[Point]:
    return _scheme_points(quick, QUICK_RANDOM_NS if quick else RANDOM_NS, "random", f"{prefix}-s{shorts}", shorts,
                          schemes, lambda n, run: random_apps(n, shorts, run), nic_buffer=nic_buffer)


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
    # new flow labels (tcp.plb); absent from results of cores before PLB
    out["rehashes"] = float(f["rehashes"].sum()) if "rehashes" in f else 0.0
    return out


def metrics(row: Any) -> Dict[str, float]:
    d = Path(row["dir"])
    return _metrics(str(d), table_version(d, "flows"))


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
        # the runs the mean and interval are over: ci95 leaves a run without
        # a value (NaN: e.g. no short flow finished) out
        rows.append({**dict(zip(by, keys)), "metric": metric, "mean": m, "ci95": h,
                     "runs": int(g[metric].notna().sum())})
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

#: the paper's claims, judged here; the figures only measure
REGISTER = Register.load(Path(__file__).with_name("claims.toml"))


# ---------------------------------------------------------------- plotting


def tput_and_fct_plots(t, stems: Tuple[str, str], *, title: str, out_dir: Path, order: Sequence[str]) -> List[Path]:
    """A random-pairs figure's two panels: mean long-flow throughput and
    mean short-flow FCT against the number of long flows, one series per
    scheme (``t``: :func:`tidy` rows of both metrics)."""
    figs: List[Path] = []
    for (metric, ylabel, what), stem in zip((("long_tput_mbps", "mean long-flow throughput (Mbps)", "throughput"),
                                             ("short_fct_ms", "mean short-flow FCT (ms)", "FCT")), stems):
        # each plot's title names what it shows: the two shared one
        figs += errorbar_plot(t[t["metric"] == metric], "n_long", "scheme", xlabel="long flows", ylabel=ylabel,
                              title=f"{title}: {what}", path=out_dir / f"{stem}.png", order=order)
    return figs


def scheme_bars(t, order: Sequence[str], panels: Sequence[Tuple[str, str]], *, ticks: Dict[str, str], title: str,
                path: Path, log_last: bool = False) -> List[Path]:
    """A permutation figure's panels side by side: per panel (metric, y
    label) one bar a scheme, in ``order``, its mean over runs with its
    95 % CI (``t``: :func:`tidy` rows by scheme); ``ticks`` shortens
    scheme names under the bars; ``log_last`` puts the last panel's y axis
    on a log scale, its schemes drawn as points with their intervals (a
    bar's length means nothing on a log axis)."""
    import matplotlib.pyplot as plt

    from ...plots import STYLE, save, series_colors

    colors = series_colors(list(order))
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 4.0))
        for k, (ax, (metric, ylabel)) in enumerate(zip(np.atleast_1d(axes), panels)):
            g = t[t["metric"] == metric].set_index("scheme").reindex(order)
            xs = np.arange(len(order))
            if log_last and k == len(panels) - 1:
                # the lower arm stops short of 0, which a log axis cannot show
                err = _err(g)
                mean = np.asarray(g["mean"], dtype=float)
                err[0] = np.minimum(err[0], mean * 0.999)
                for x, n, m, lo, hi in zip(xs, order, mean, err[0], err[1]):
                    ax.errorbar([x], [m], yerr=[[lo], [hi]], fmt="o", color=colors[n], capsize=4, markersize=7)
                ax.set_yscale("log")
                ax.set_xlim(-0.6, len(order) - 0.4)
                if np.any(np.asarray(_err(g)[0]) >= mean * 0.999):
                    ax.set_title("95 % CI; an arm to near 0: the interval reaches 0", fontsize=8)
            else:
                ax.bar(xs, g["mean"], yerr=_err(g, _throughput_bound(t[t["metric"] == metric])),
                       color=[colors[n] for n in order], capsize=4)
            ax.set_xticks(xs, [ticks.get(n, n) for n in order], fontsize=8)
            ax.set_ylabel(ylabel)
        fig.suptitle(title, fontsize=10)
    return save(fig, path)


def _err(g, top: Optional[float] = None) -> Any:
    """Error bars of a quantity that cannot be negative (counts, rates,
    times, shares): the 95 % CI, its lower arm stopped at 0 (a count's CI
    of ±1.4 around 0.6 drew bars to −0.8 flows), and its upper arm at
    ``top``, a bound the quantity cannot pass (a flow's throughput, its
    host's link rate: three runs' Student-t interval reached 1,390 Mbps on
    1 Gbps links); one run: none."""
    mean = np.asarray(g["mean"], dtype=float)
    ci = np.nan_to_num(np.asarray(g["ci95"], dtype=float), nan=0.0)
    up = ci if top is None else np.minimum(ci, np.maximum(top - mean, 0.0))
    return np.vstack([np.minimum(ci, np.maximum(mean, 0.0)), up])


def _throughput_bound(t) -> Optional[float]:
    """The most a flow's throughput can be, in Mbps, when every row of ``t``
    is one (payload bytes over its FCT, which its host's one link bounds):
    the link rate times the payload's share of a full packet, 1460 of
    1500 bytes (the bars had stopped at 1,000 Mbps, 27 above what any flow
    can carry); else None."""
    metrics = set(t["metric"]) if "metric" in t else set()
    if metrics and all(str(m).endswith("tput_mbps") for m in metrics):
        return parse_rate(RATE) / 1e6 * MSS / (MSS + HEADER)
    return None


def errorbar_plot(t, x: str, series: str, *, xlabel: str, ylabel: str, title: str, path: Path,
                  order: Optional[Sequence[str]] = None, logy: bool = False, facet: Optional[str] = None,
                  hline: Optional[Tuple[float, str]] = None) -> List[Path]:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ...plots import MARKERS, STYLE, _say_hidden_series, save, series_colors

    names = list(order or list(dict.fromkeys(t[series])))
    names = [n for n in names if n in set(t[series])]
    colors = series_colors(names)
    facets = [None] if facet is None else list(dict.fromkeys(t[facet]))
    top = _throughput_bound(t)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(facets), figsize=(max(6.4, 4.4 * len(facets)), 4.2), squeeze=False,
                                 sharey=True)
        for ax, fv in zip(axes[0], facets):
            d = t if fv is None else t[t[facet] == fv]
            xs = sorted(set(d[x]))
            # one x (a --quick run): the series side by side around it, on
            # an axis of whole units, not stacked on a 0.4-wide axis
            dodge = 0.12 if len(xs) == 1 else 0.0
            drawn: Dict[Any, Any] = {}
            for i, n in enumerate(names):
                g = d[d[series] == n].sort_values(x)
                if len(g) == 0:
                    continue
                shift = dodge * (i - (len(names) - 1) / 2)
                ax.errorbar(g[x] + shift, g["mean"], yerr=_err(g, top), marker=MARKERS[i % len(MARKERS)], capsize=3,
                            color=colors[n], label=str(n))
                drawn[n] = (tuple(g[x]), tuple(g["mean"]))
            if not dodge:  # (dodged, no series is drawn on another)
                _say_hidden_series(ax, drawn, log=logy)
            if len(xs) == 1:
                ax.set_xticks(xs)
                ax.set_xlim(xs[0] - 1, xs[0] + 1)
            elif all(float(v).is_integer() for v in xs):
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 1.5 flows
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
        # beside the panels, not over their error bars
        handles, labels = axes[0][0].get_legend_handles_labels()
        clipped = (f"arms stop at 0 and at {top:.0f} Mbps, the most a flow carries on the link" if top
                   else "arms stop at 0")
        axes[0][-1].legend(handles, labels, title=f"mean ± 95 % CI over runs\n({clipped})", title_fontsize=8,
                           fontsize=8,
                           loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
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
