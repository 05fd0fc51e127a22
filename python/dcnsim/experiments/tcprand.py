"""TCPRand (Lee, Lee, Lee, Jung & Lee, Computer Networks 129, 2017):
randomizing the TCP payload size against the TCP outcast problem.

``dcnsim reproduce tcprand`` runs the TCPRand rows of EXPERIMENTS.md: the
offline enqueue-probability experiment (Fig. 5), fairness and total goodput
on the Fig. 1 fat-tree (Figs. 8a–c), timeouts (Fig. 9), the 8-ary fat-tree
(Fig. 10), the testbed topology (Fig. 12), the microscopic drop-run / timeout /
retransmission analysis (Figs. 13, 14), incast (Fig. 15), convergence and cwnd
traces (Figs. 16–17), plus each implicit setting varied on its own. Fig. 11
(FCT under Poisson web-search / data-mining load) lives in
``tcprand_fct.py`` when that module exists (its ``FIGURES`` list is appended
here). docs/tcprand.md explains the setup, every choice the paper leaves
open and every difference from its results.

Fig. 1 (``fig1_doc``): a k = 4 fat-tree, receiver R = host 0, senders
S1..S15 = hosts 1..15, one long flow each: F1 (host 1, same edge switch as
R) is 2 hops away, F2:3 (hosts 2, 3, same pod) 4 hops, F4:15 (other pods)
6 hops. 1 Gbps, drop-tail queues of Qmax packets, MSS 1460 with 12 B of
timestamp options (1448 B payload, 52 B headers), RTOmin 2 ms, 25 µs per
switch (the paper's "25 ms" is a typo for the 25 µs of its reference), ECMP.

Every comparison carries its criterion (the framework's ``criterion``
column): what our number must satisfy for the verdict it gets.
"""

from __future__ import annotations

import importlib.util
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..result import jain
from ..sweep import Point
from .framework import (
    Comparison,
    Figure,
    FigureResult,
    Paper,
    Setting,
    compare_claim,
    read_table,
)

# ---------------------------------------------------------------- constants (§5.1)

RATE = "1Gbps"
RATE_BPS = 1e9
MSS = 1448  # 1460 minus 12 B of timestamp options
HEADER = 52
RTO_MIN = "2ms"
LINK_DELAY = "1us"
SWITCH_DELAY = "25us"
RECEIVER = 0
DURATION_S = 10.0
QUICK_DURATION_S = 1.0
SEEDS = (1, 2, 3)
QUICK_SEEDS = (1,)
QMAXES = (20, 60, 100)
QUICK_QMAXES = (20, 100)

#: series name -> tcp keys (the paper's notation, Fig. 8's caption)
SERIES: Dict[str, Dict[str, Any]] = {
    "N": {"cc": "newreno"},
    "NT200": {"cc": "newreno", "segment": "tcprand", "tcprand_rmin": 200},
    "NT100": {"cc": "newreno", "segment": "tcprand", "tcprand_rmin": 100},
    "NT50": {"cc": "newreno", "segment": "tcprand", "tcprand_rmin": 50},
    "C": {"cc": "cubic"},
    "CT200": {"cc": "cubic", "segment": "tcprand", "tcprand_rmin": 200},
    "CT100": {"cc": "cubic", "segment": "tcprand", "tcprand_rmin": 100},
    "CT50": {"cc": "cubic", "segment": "tcprand", "tcprand_rmin": 50},
    "CTD": {"cc": "cubic", "segment": "tcprand", "tcprand_mode": "adaptive", "tcprand_preset": "default"},
    "DCTCP": {"cc": "dctcp"},
}
FIG8_SERIES = list(SERIES)
QUICK_FIG8_SERIES = ["N", "NT200", "C", "CT200", "CT50", "CTD", "DCTCP"]
PRESETS = {
    "CTD (1,1,1,1)": {"cc": "cubic", "segment": "tcprand", "tcprand_mode": "adaptive", "tcprand_preset": "default"},
    "CTD (1,1,∞,1)": {"cc": "cubic", "segment": "tcprand", "tcprand_mode": "adaptive",
                      "tcprand_preset": "conservative"},
    "CTD (1,0,1,0)": {"cc": "cubic", "segment": "tcprand", "tcprand_mode": "adaptive",
                      "tcprand_preset": "aggressive"},
}

GROUPS = (("F1", (1,)), ("F2:3", (2, 3)), ("F4:15", tuple(range(4, 16))))


def claim(quantity: str, ours: Any, paper: Any, holds: Optional[bool], rule: str, note: str = "",
          partly: Optional[bool] = None, partly_rule: str = "") -> Comparison:
    """A qualitative claim tested by ``rule``: ``agrees`` when it holds in
    our runs; when it does not, ``trend agrees`` when ``partly`` — the weaker
    rule stated in ``partly_rule`` — holds, else ``differs``; ``holds=None``:
    untestable; with no paper value either, a value of ours ("not in paper")."""
    if holds is None and paper is None:
        return Comparison(quantity, ours, None, "not in paper", "; ".join(x for x in (rule, note) if x))
    return compare_claim(quantity, ours, paper, holds, note, partly, criterion=rule,
                         partly_criterion=partly_rule if partly is not None else None)


def near(quantity: str, ours: float, paper: float, agree: float, close: float, note: str = "",
         fmt: str = ".3f", relative: bool = False) -> Comparison:
    """A number against the paper's: ``agrees`` if within ``agree``, ``close``
    within ``close`` (absolute, or relative with ``relative``), else ``differs``."""
    kind = "relative" if relative else "absolute"
    rule = f"agrees if the {kind} difference ≤ {agree:g}, close if ≤ {close:g}, else differs"
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return Comparison(quantity, ours, paper, "untestable", note or "no value measured", fmt=fmt, criterion=rule)
    d = abs(ours - paper) / abs(paper) if relative else abs(ours - paper)
    verdict = "agrees" if d <= agree else "close" if d <= close else "differs"
    return Comparison(quantity, ours, paper, verdict, note, fmt=fmt, criterion=rule)


def info(quantity: str, ours: Any, note: str = "") -> Comparison:
    return Comparison(quantity, ours, None, "not in paper", note, criterion="— (our reference value)")


# ---------------------------------------------------------------- scenarios


def tcp_table(series: Dict[str, Any], **over: Any) -> Dict[str, Any]:
    t = {"mss": MSS, "header": HEADER, "rto_min": RTO_MIN}
    t.update(series)
    t.update(over)
    return t


def _ecn_k(series: Dict[str, Any], qmax: int) -> Optional[str]:
    """DCTCP marks at 0.2 × Qmax (§6.1, after the DCTCP paper's 1 Gbps setting)."""
    return f"{max(1, round(0.2 * qmax))}pkt" if series.get("cc") == "dctcp" else None


def fig1_doc(series: Dict[str, Any], qmax: int, secs: float, seed: int = 1, bg_mbps: float = 0.0,
             tcp_over: Optional[Dict[str, Any]] = None, top_over: Optional[Dict[str, Any]] = None,
             topo_over: Optional[Dict[str, Any]] = None, name: str = "tcprand-fig1") -> Dict[str, Any]:
    """The paper's Fig. 1: k = 4 fat-tree, 15 long flows to host 0 for
    ``secs``; ``bg_mbps`` adds a UDP CBR flow of that rate from every sender
    to R (Fig. 8c)."""
    topo = {"kind": "fat_tree", "k": 4, "rate": RATE, "delay": LINK_DELAY, "buffer": f"{qmax}pkt"}
    k = _ecn_k(series, qmax)
    if k:
        topo["ecn_k"] = k
    topo.update(topo_over or {})
    dur = f"{secs:g}s"
    apps: List[Dict[str, Any]] = [{"kind": "bulk", "src": s, "dst": RECEIVER, "duration": dur} for s in range(1, 16)]
    if bg_mbps > 0:
        apps += [{"kind": "udp_cbr", "src": s, "dst": RECEIVER, "rate": f"{bg_mbps:g}Mbps", "payload": "1448B",
                  "start": "0s", "stop": dur} for s in range(1, 16)]
    doc = {"name": name, "seed": seed, "stop": f"{secs + 0.5:g}s", "switch_delay": SWITCH_DELAY,
           "topology": topo, "tcp": tcp_table(series, **(tcp_over or {})), "apps": apps}
    doc.update(top_over or {})
    return doc


def testbed_topology(qmax: int, ecn_k: Optional[str] = None) -> Dict[str, Any]:
    """The paper's Fig. 7, read as the path structure of Fig. 1 it abstracts:
    R and S1 on edge switch E1; S2 on E2, which reaches E1 through A1 (4
    hops); S4 on E3, which reaches E1 through A2, C1 and A1 (6 hops). At E1,
    S1's flows arrive alone on their port, S2's and S4's share A1's."""
    hosts = ["R", "S1", "S2", "S4"]
    switches = ["E1", "E2", "E3", "A1", "A2", "C1"]
    nodes = [{"name": h, "kind": "host"} for h in hosts] + [{"name": s, "kind": "switch"} for s in switches]
    pairs = [("R", "E1"), ("S1", "E1"), ("S2", "E2"), ("S4", "E3"), ("E1", "A1"), ("E2", "A1"),
             ("A1", "C1"), ("C1", "A2"), ("A2", "E3")]
    links = []
    for a, b in pairs:
        link = {"a": a, "b": b, "rate": RATE, "delay": LINK_DELAY, "buffer": f"{qmax}pkt"}
        if ecn_k:
            link["ecn_k"] = ecn_k
        links.append(link)
    return {"kind": "custom", "nodes": nodes, "links": links}


#: The testbed's Linux 3.2 TCP (Figs. 12, 14, 16, 17): RTOmin 200 ms, SACK
#: on, initial window 10 — unlike the ns-3 figures' 2 ms RTOmin.
LINUX = {"rto_min": "200ms", "sack": True, "init_cwnd": 10}


def testbed_doc(n1: int, n2: int, n3: int, series: Dict[str, Any], secs: float, qmax: int = 100, seed: int = 1,
                tcp_per_sender: Optional[Dict[int, Dict[str, Any]]] = None) -> Dict[str, Any]:
    """(N1, N2, N3) flows from S1, S2, S4 (hosts 1, 2, 3) to R (host 0) on
    :func:`testbed_topology`; ``tcp_per_sender`` overrides TCP keys per
    sender host (Fig. 14 gives F1 and F2:M+1 different rMin)."""
    dur = f"{secs:g}s"
    apps = []
    for host, n in ((1, n1), (2, n2), (3, n3)):
        for _ in range(n):
            a = {"kind": "bulk", "src": host, "dst": 0, "duration": dur}
            if tcp_per_sender and host in tcp_per_sender:
                a["tcp"] = dict(tcp_per_sender[host])
            apps.append(a)
    return {"name": f"tcprand-testbed-{n1}-{n2}-{n3}", "seed": seed, "stop": f"{secs + 0.5:g}s",
            "switch_delay": SWITCH_DELAY, "topology": testbed_topology(qmax, _ecn_k(series, qmax)),
            "tcp": tcp_table({**LINUX, **series}), "apps": apps}


# ---------------------------------------------------------------- reading results


@lru_cache(maxsize=4096)
def _flows_cached(d: str, mtime: float):
    return read_table(d, "flows")


def flows(row: Any):
    """The point's ``flows`` table (TCP flows only), cached per directory."""
    d = str(row["dir"])
    p = Path(d) / "flows.csv"
    f = _flows_cached(d, p.stat().st_mtime if p.exists() else 0.0)
    return f[f["transport"] == "tcp"]


def fig1_metrics(row: Any) -> Dict[str, float]:
    """Per run on Fig. 1: Jain's index over the 15 flows, total goodput,
    each group's mean goodput, timeouts and timeout period per flow,
    retransmissions, drops and drop runs."""
    f = flows(row).sort_values("src")
    g = f.set_index("src")["goodput_bps"]
    out = {"jain": jain(g.values), "total_mbps": float(g.sum()) / 1e6,
           # 1448 B when nothing was randomized; (rMin + 1448)/2 when everything was
           "mean_payload_b": float(f["bytes_sent"].sum()) / max(1.0, float(f["segments_sent"].sum())),
           "timeouts_per_flow": float(f["timeouts"].mean())}
    for name, hosts in GROUPS:
        sub = f[f["src"].isin(hosts)]
        out[f"{name}_mbps"] = float(sub["goodput_bps"].mean()) / 1e6
        out[f"{name}_timeouts"] = float(sub["timeouts"].mean())
        out[f"{name}_timeout_period_s"] = float(sub["timeout_period_s"].mean())
        out[f"{name}_retransmits"] = float(sub["retransmits"].mean())
        out[f"{name}_drops"] = float(sub["drops"].mean())
    return out


def _fig1_frame(summary):
    import pandas as pd

    rows = []
    for _, r in summary.iterrows():
        m = fig1_metrics(r)
        rows.append({"label": r["label"], "series": r["series"], "qmax": int(r["qmax"]), "bg_mbps": float(r["bg_mbps"]),
                     "seed": int(r["seed_"]), **m})
    return pd.DataFrame(rows)


def _mean(df, by: Sequence[str]):
    cols = [c for c in df.columns if c not in ("label", "seed") and c not in by and df[c].dtype.kind in "fi"]
    return df.groupby(list(by), sort=False)[cols].mean().reset_index()


# ---------------------------------------------------------------- Figs. 8a, 8b, 9


def _secs(quick: bool) -> float:
    return QUICK_DURATION_S if quick else DURATION_S


def _seeds(quick: bool) -> Sequence[int]:
    return QUICK_SEEDS if quick else SEEDS


def fig1_point(series: str, qmax: int, quick: bool, seed: int, bg_mbps: float = 0.0) -> Point:
    secs = _secs(quick)
    label = f"fig1-{series}-q{qmax}-bg{bg_mbps:g}-{secs:g}s-s{seed}"
    doc = fig1_doc(SERIES[series], qmax, secs, seed, bg_mbps, name=label)
    return Point(label, doc, None, {"series": series, "qmax": qmax, "bg_mbps": bg_mbps, "seed_": seed})


def _fig8_points(quick: bool) -> List[Point]:
    series = QUICK_FIG8_SERIES if quick else FIG8_SERIES
    return [fig1_point(s, q, quick, seed) for q in (QUICK_QMAXES if quick else QMAXES) for s in series
            for seed in _seeds(quick)]


PAPER_8A_Q100 = {"CT200": 0.976, "CT100": 0.991, "CT50": 0.996}
PAPER_8B_Q100 = {"CT200": 0.855, "CT100": 0.85, "CT50": 0.835}
PAPER_8B_DCTCP_Q20 = 0.936


def _bars(df, value: str, title: str, ylabel: str, path: Path, ylim=None):
    from ..plots import new_figure, save, series_colors

    qs = sorted(df["qmax"].unique())
    series = list(dict.fromkeys(df["series"]))
    colors = series_colors(series)
    fig, ax = new_figure(figsize=(9, 4.2))
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        vals = [float(df[(df["series"] == s) & (df["qmax"] == q)][value].mean()) for q in qs]
        ax.bar(np.arange(len(qs)) + i * w - 0.4 + w / 2, vals, w, label=s, color=colors[s])
    ax.set_xticks(np.arange(len(qs)))
    ax.set_xticklabels([f"Qmax = {q} pkt" for q in qs])
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(ylim[0], ylim[1] * 1.2)  # room for the legend above the bars
    ax.set_title(title)
    ax.legend(ncol=len(series), fontsize=8, loc="upper center")
    return save(fig, path)


def _analyze_fig8a(summary, out_dir: Path) -> FigureResult:
    df = _fig1_frame(summary)
    m = _mean(df, ["series", "qmax"])
    paths = _bars(m, "jain", "Fig. 8a: Jain's fairness index over the 15 flows of Fig. 1", "Jain's index",
                  out_dir / "fig8a.png", (0, 1.05))
    J = m.set_index(["series", "qmax"])["jain"]
    qs = sorted(m["qmax"].unique())
    cmps: List[Comparison] = []
    for s, p in PAPER_8A_Q100.items():
        if (s, 100) in J.index:
            cmps.append(near(f"Jain index, {s}, Qmax = 100", float(J[(s, 100)]), p, 0.02, 0.05))
    for base, rands in (("C", ["CT200", "CT100", "CT50", "CTD"]), ("N", ["NT200", "NT100", "NT50"])):
        for s in rands:
            ok = [(s, q) in J.index and (base, q) in J.index for q in qs]
            if not all(ok):
                continue
            gains = [float(J[(s, q)] - J[(base, q)]) for q in qs]
            cmps.append(claim(f"{s} fairer than {base} at every Qmax (gain per Qmax {', '.join(f'{g:+.3f}' for g in gains)})",
                              f"{min(gains):+.3f} (smallest gain)", "yes (Fig. 8a)", min(gains) > 0.02,
                              "the mean Jain index over seeds exceeds the baseline's by > 0.02 at every Qmax",
                              partly=sum(g > 0.02 for g in gains) > len(gains) / 2,
                              partly_rule="gain > 0.02 at more than half of the Qmax values"))
    for base in ("C", "N"):
        if all((base, q) in J.index for q in qs):
            worst = min(float(J[(base, q)]) for q in qs)
            cmps.append(claim(f"{base} (fixed-size segments) suffers from outcast",
                              f"{', '.join(f'{float(J[(base, q)]):.3f}' for q in qs)}", "unfair (Fig. 8a)",
                              max(float(J[(base, q)]) for q in qs) < 0.95,
                              "Jain < 0.95 at every Qmax", partly=worst < 0.95,
                              partly_rule="Jain < 0.95 at some Qmax"))
    cts = [s for s in ("CT200", "CT100", "CT50") if all((s, q) in J.index for q in qs)]
    if len(cts) >= 2:
        mono = all(float(J[(cts[i + 1], q)]) >= float(J[(cts[i], q)]) - 0.01 for i in range(len(cts) - 1) for q in qs)
        cmps.append(claim("fairness rises as static rMin falls (CT200 → CT50)", "yes" if mono else "no",
                          "yes", mono, "Jain(CT smaller rMin) ≥ Jain(CT larger rMin) − 0.01 at every Qmax"))
    if all(("DCTCP", q) in J.index for q in qs):
        cmps.append(claim("DCTCP fair at every Qmax", ", ".join(f"{float(J[('DCTCP', q)]):.3f}" for q in qs),
                          "high fairness", min(float(J[("DCTCP", q)]) for q in qs) > 0.9, "Jain > 0.9 at every Qmax"))
    P = m.set_index(["series", "qmax"])
    for s in ("CTD", "CT200"):
        if all((s, q) in P.index for q in qs):
            cmps.append(info(f"{s}: mean payload (B) / timeouts per flow, Qmax {', '.join(map(str, qs))}",
                             "; ".join(f"{P.loc[(s, q), 'mean_payload_b']:.0f} / {P.loc[(s, q), 'timeouts_per_flow']:.0f}"
                                       for q in qs),
                             "1448 B = nothing randomized; adaptive mode is off in an epoch that starts after a "
                             "timeout (W_max = α)"))
    notes = [f"mean over seeds {[int(x) for x in sorted(df['seed'].unique())]}; {df.groupby(['series', 'qmax']).size().max()} run(s) "
             f"per bar, {_secs(bool(summary.attrs.get('quick'))):g} s flows; table fig8a.csv has every run"]
    return FigureResult(df, paths, cmps, notes)


def _ratio_frame(df):
    """Total goodput of each series over its baseline's (N for NTx, C for
    the rest) at the same Qmax and seed."""
    base = df.set_index(["series", "qmax", "seed"])["total_mbps"]
    out = df.copy()
    out["baseline"] = ["N" if s.startswith("N") else "C" for s in out["series"]]
    out["goodput_ratio"] = [float(r.total_mbps) / float(base.get((r.baseline, r.qmax, r.seed), math.nan))
                            for r in out.itertuples()]
    return out


def _analyze_fig8b(summary, out_dir: Path) -> FigureResult:
    df = _ratio_frame(_fig1_frame(summary))
    m = _mean(df, ["series", "qmax"])
    paths = _bars(m, "goodput_ratio", "Fig. 8b: total goodput normalized to N (NTx) or C (the rest)",
                  "total goodput ratio", out_dir / "fig8b.png", (0, 1.1))
    R = m.set_index(["series", "qmax"])["goodput_ratio"]
    T = m.set_index(["series", "qmax"])["total_mbps"]
    qs = sorted(m["qmax"].unique())
    cmps: List[Comparison] = []
    for s, p in PAPER_8B_Q100.items():
        if (s, 100) in R.index:
            cmps.append(near(f"goodput ratio {s}/C, Qmax = 100", float(R[(s, 100)]), p, 0.03, 0.08))
    if ("DCTCP", 20) in R.index:
        cmps.append(near("goodput ratio DCTCP/C, Qmax = 20", float(R[("DCTCP", 20)]), PAPER_8B_DCTCP_Q20, 0.03, 0.08))
    cts = [s for s in ("CT200", "CT100", "CT50") if all((s, q) in R.index for q in qs)]
    if len(cts) >= 2:
        mono = all(float(R[(cts[i + 1], q)]) <= float(R[(cts[i], q)]) + 0.01 for i in range(len(cts) - 1) for q in qs)
        cmps.append(claim("total goodput falls as static rMin falls (CT200 → CT50)", "yes" if mono else "no", "yes",
                          mono, "ratio(smaller rMin) ≤ ratio(larger rMin) + 0.01 at every Qmax"))
    if all(("CTD", q) in R.index and ("CT200", q) in R.index for q in qs):
        d = [float(R[("CTD", q)] - R[("CT200", q)]) for q in qs]
        cmps.append(claim("adaptive TCPRand (CTD) loses less goodput than CT200",
                          ", ".join(f"{x:+.3f}" for x in d), "yes (§4: adaptive avoids needless randomization)",
                          min(d) > 0, "ratio(CTD) > ratio(CT200) at every Qmax", partly=sum(x > 0 for x in d) > len(d) / 2,
                          partly_rule="at more than half of the Qmax values"))
    for q in qs:
        if ("C", q) in T.index:
            cmps.append(info(f"C total goodput, Qmax = {q}", f"{float(T[('C', q)]):.0f} Mbps",
                             "the denominator of the ratios"))
    return FigureResult(df, paths, cmps, ["ratios are per seed (same seed for series and baseline), then averaged"])


def _analyze_fig9(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    df = _fig1_frame(summary)
    m = _mean(df, ["series", "qmax"]).set_index(["series", "qmax"])
    qs = sorted(df["qmax"].unique())
    rows = []
    for q in qs:
        for g, _ in GROUPS:
            c, t = m.loc[("C", q)], m.loc[("CTD", q)]
            rows.append({"qmax": q, "group": g,
                         "timeouts_C": c[f"{g}_timeouts"], "timeouts_CTD": t[f"{g}_timeouts"],
                         "period_C_s": c[f"{g}_timeout_period_s"], "period_CTD_s": t[f"{g}_timeout_period_s"],
                         "freq_ratio": t[f"{g}_timeouts"] / c[f"{g}_timeouts"] if c[f"{g}_timeouts"] > 0 else math.nan,
                         "period_ratio": (t[f"{g}_timeout_period_s"] / c[f"{g}_timeout_period_s"]
                                          if c[f"{g}_timeout_period_s"] > 0 else math.nan)})
    tab = pd.DataFrame(rows)
    fig, axes = new_figure(ncols=2, figsize=(10, 4))
    groups = [g for g, _ in GROUPS]
    w = 0.8 / len(groups)
    for ax, col, title in ((axes[0], "freq_ratio", "(a) timeout frequency, CTD / C"),
                           (axes[1], "period_ratio", "(b) timeout period, CTD / C")):
        for i, g in enumerate(groups):
            v = [float(tab[(tab.qmax == q) & (tab.group == g)][col].iloc[0]) for q in qs]
            ax.bar(np.arange(len(qs)) + i * w - 0.4 + w / 2, v, w, label=g if g != "F2:3" else "avg(F2:3)")
        ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle=":")
        ax.set_xticks(np.arange(len(qs)))
        ax.set_xticklabels([f"Qmax {q}" for q in qs])
        ax.set_ylabel("ratio TCPRand (CTD) / CUBIC")
        ax.set_title(title)
        ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig9.png")
    T = tab.set_index(["qmax", "group"])
    cmps: List[Comparison] = []
    if 20 in qs:
        cmps.append(near("F1 timeout frequency ratio CTD/C, Qmax = 20", float(T.loc[(20, "F1"), "freq_ratio"]), 3.0,
                         0.3, 0.6, relative=True, fmt=".2f", note="paper: '~3'"))
        cmps.append(near("F1 timeout period ratio CTD/C, Qmax = 20", float(T.loc[(20, "F1"), "period_ratio"]), 0.5,
                         0.3, 0.6, relative=True, fmt=".2f", note="paper: 'by half'"))
        allmore = all(float(T.loc[(20, g), "freq_ratio"]) > 1 for g in groups)
        cmps.append(claim("Qmax = 20: every group has more timeouts with TCPRand",
                          ", ".join(f"{float(T.loc[(20, g), 'freq_ratio']):.2f}" for g in groups), "yes",
                          allmore, "frequency ratio > 1 for F1, F2:3 and F4:15"))
    qmax_hi = max(qs)
    if qmax_hi >= 100:
        fewer = [float(T.loc[(qmax_hi, g), "freq_ratio"]) for g in groups]
        cmps.append(claim(f"Qmax = {qmax_hi}: every group has fewer timeouts with TCPRand",
                          ", ".join(f"{x:.2f}" for x in fewer), "yes", all(x < 1 for x in fewer),
                          "frequency ratio < 1 for F1, F2:3 and F4:15", partly=sum(x < 1 for x in fewer) >= 2,
                          partly_rule="ratio < 1 for two of the three groups"))
    f1p = [float(T.loc[(q, "F1"), "period_ratio"]) for q in qs]
    cmps.append(claim("TCPRand shortens F1's timeout period at every Qmax", ", ".join(f"{x:.2f}" for x in f1p),
                      "yes", all(x < 1 for x in f1p), "F1's period ratio < 1 at every Qmax",
                      partly=sum(x < 1 for x in f1p) > len(f1p) / 2,
                      partly_rule="at more than half of the Qmax values"))
    hi = [(q, g) for q in qs if q >= 60 for g in groups]
    if hi:
        vals = [float(T.loc[k, "period_ratio"]) for k in hi]
        cmps.append(claim("Qmax ≥ 60: TCPRand shortens every group's timeout period",
                          ", ".join(f"{x:.2f}" for x in vals), "yes", all(x < 1 for x in vals),
                          "period ratio < 1 for every group at every Qmax ≥ 60",
                          partly=sum(x < 1 for x in vals) > len(vals) / 2,
                          partly_rule="for more than half of the (group, Qmax) cells"))
    return FigureResult(tab, paths, cmps, ["per-flow timeouts and timeout period (time stalled on RTO) averaged "
                                           "within each group and over seeds, then CTD / C"])


# ---------------------------------------------------------------- Fig. 8c


BG_MBPS = (10, 20, 30)
QUICK_BG_MBPS = (10, 30)
FIG8C_SERIES = ["C", "CT200", "CTD", "DCTCP"]
QUICK_FIG8C_SERIES = ["C", "CTD", "DCTCP"]


def _fig8c_points(quick: bool) -> List[Point]:
    series = QUICK_FIG8C_SERIES if quick else FIG8C_SERIES
    bgs = (0,) + (QUICK_BG_MBPS if quick else BG_MBPS)
    return [fig1_point(s, 20, quick, seed, bg) for bg in bgs for s in series for seed in _seeds(quick)]


def _analyze_fig8c(summary, out_dir: Path) -> FigureResult:
    from ..plots import new_figure, save, series_colors

    df = _fig1_frame(summary)
    m = _mean(df, ["series", "bg_mbps"])
    series = list(dict.fromkeys(m["series"]))
    bgs = sorted(m["bg_mbps"].unique())
    colors = series_colors(series)
    fig, ax = new_figure(figsize=(8, 4))
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        v = [float(m[(m.series == s) & (m.bg_mbps == b)]["jain"].iloc[0]) for b in bgs]
        ax.bar(np.arange(len(bgs)) + i * w - 0.4 + w / 2, v, w, label=s, color=colors[s])
    ax.set_xticks(np.arange(len(bgs)))
    ax.set_xticklabels([f"{15 * b:g} Mbps" for b in bgs])
    ax.set_xlabel("aggregate UDP CBR background (15 senders × rate)")
    ax.set_ylabel("Jain's index (15 TCP flows)")
    ax.set_ylim(0, 1.05)
    ax.set_title("Fig. 8c: fairness with background traffic, Qmax = 20")
    ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig8c.png")
    J = m.set_index(["series", "bg_mbps"])["jain"]
    cmps: List[Comparison] = []
    with_bg = [b for b in bgs if b > 0]
    gains = [float(J[("CTD", b)] - J[("C", b)]) for b in bgs]
    cmps.append(claim("TCPRand (CTD) fairer than CUBIC at every background rate",
                      ", ".join(f"{g:+.3f}" for g in gains), "always higher", min(gains) > 0,
                      "Jain(CTD) − Jain(C) > 0 at every rate", partly=sum(g > 0 for g in gains) > len(gains) / 2,
                      partly_rule="at more than half of the rates"))
    if len(with_bg) >= 2:
        g0, g1 = float(J[("CTD", with_bg[0])] - J[("C", with_bg[0])]), float(J[("CTD", with_bg[-1])] - J[("C", with_bg[-1])])
        cmps.append(claim("the gain shrinks as background grows", f"{g0:+.3f} → {g1:+.3f}", "yes", g1 < g0,
                          f"gain at {15 * with_bg[-1]:g} Mbps < gain at {15 * with_bg[0]:g} Mbps"))
    if ("DCTCP", 30) in J.index:
        cmps.append(near("DCTCP Jain index at 450 Mbps background", float(J[("DCTCP", 30)]), 0.887, 0.03, 0.08))
    return FigureResult(df, paths, cmps, ["0 Mbps is Fig. 8a's Qmax = 20 point; UDP payloads are 1448 B, not randomized"])


# ---------------------------------------------------------------- Fig. 10 (8-ary fat-tree)

FIG10_NS = (1, 2, 4, 8, 16, 32, 64, 112)
QUICK_FIG10_NS = (1, 4, 16, 64)
FIG10_SERIES = ("C", "CTD", "CT200")


def fig10_doc(series: Dict[str, Any], n6: int, secs: float, seed: int = 1, name: str = "tcprand-fig10"):
    """k = 8 fat-tree (128 hosts), Qmax 100: one 2-hop flow (host 1 → 0) and
    ``n6`` 6-hop flows from hosts 16, 17, … (other pods) to host 0."""
    dur = f"{secs:g}s"
    apps = [{"kind": "bulk", "src": 1, "dst": 0, "duration": dur}]
    apps += [{"kind": "bulk", "src": 16 + i, "dst": 0, "duration": dur} for i in range(n6)]
    topo = {"kind": "fat_tree", "k": 8, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
    return {"name": name, "seed": seed, "stop": f"{secs + 0.5:g}s", "switch_delay": SWITCH_DELAY,
            "topology": topo, "tcp": tcp_table(series), "apps": apps}


def _fig10_points(quick: bool) -> List[Point]:
    secs = _secs(quick)
    pts = []
    for s in FIG10_SERIES:
        for n in (QUICK_FIG10_NS if quick else FIG10_NS):
            for seed in _seeds(quick):
                label = f"fig10-{s}-n{n}-{secs:g}s-s{seed}"
                pts.append(Point(label, fig10_doc(SERIES[s], n, secs, seed, label), None,
                                 {"series": s, "n6": n, "seed_": seed}))
    return pts


def _analyze_fig10(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    rows = []
    for _, r in summary.iterrows():
        f = flows(r)
        two = float(f[f["src"] == 1]["goodput_bps"].iloc[0]) / 1e6
        six = f[f["src"] != 1]["goodput_bps"] / 1e6
        tot = two + float(six.sum())
        rows.append({"series": r["series"], "n6": int(r["n6"]), "seed": int(r["seed_"]), "two_hop_mbps": two,
                     "six_hop_mean_mbps": float(six.mean()), "fair_share_mbps": tot / (len(six) + 1),
                     "jain": jain([two] + list(six))})
    df = pd.DataFrame(rows)
    m = df.groupby(["series", "n6"]).mean(numeric_only=True).reset_index()
    fig, axes = new_figure(ncols=3, figsize=(14, 4), sharey=True)
    for ax, s, title in ((axes[0], "C", "(a) CUBIC"), (axes[1], "CTD", "(b) TCPRand (adaptive, CTD)"),
                         (axes[2], "CT200", "(extra) static TCPRand, rMin 200 B")):
        g = m[m.series == s]
        ax.plot(g["n6"], g["two_hop_mbps"], "o-", label="2-hop flow")
        ax.plot(g["n6"], g["six_hop_mean_mbps"], "s-", label="6-hop flows (mean)")
        ax.plot(g["n6"], g["fair_share_mbps"], ":", color="0.4", label="fair share")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("number of 6-hop flows")
        ax.set_title(title)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("goodput (Mbps)")
    paths = save(fig, out_dir / "fig10.png")
    C = m[m.series == "C"].set_index("n6")
    T = m[m.series == "CTD"].set_index("n6")
    cmps: List[Comparison] = []
    small = [n for n in C.index if n <= 2]
    if small:
        ok = all(C.loc[n, "two_hop_mbps"] > C.loc[n, "six_hop_mean_mbps"] for n in small)
        cmps.append(claim("CUBIC, ≤ 2 six-hop flows: the 2-hop flow gets more (shorter RTT)",
                          ", ".join(f"{C.loc[n, 'two_hop_mbps']:.0f} vs {C.loc[n, 'six_hop_mean_mbps']:.0f}" for n in small),
                          "yes", ok, "2-hop goodput > mean 6-hop goodput at n ≤ 2"))
    nmax = max(C.index)
    r = C.loc[nmax, "two_hop_mbps"] / C.loc[nmax, "fair_share_mbps"]
    cmps.append(claim(f"CUBIC, {nmax} six-hop flows: the 2-hop flow is outcast", f"{r:.2f} × fair share",
                      "outcast", r < 0.5, "2-hop goodput < 0.5 × fair share at the largest n"))
    big = [n for n in T.index if n >= 4]
    rs = [T.loc[n, "two_hop_mbps"] / T.loc[n, "fair_share_mbps"] for n in big]
    cmps.append(claim("TCPRand: the 2-hop flow near its fair share for n ≥ 4", ", ".join(f"{x:.2f}" for x in rs),
                      "agrees with fair share", all(0.5 <= x <= 2 for x in rs),
                      "2-hop goodput within [0.5, 2] × fair share at every n ≥ 4",
                      partly=sum(0.5 <= x <= 2 for x in rs) > len(rs) / 2,
                      partly_rule="at more than half of the n values"))
    S = m[m.series == "CT200"].set_index("n6")
    if len(S):
        rs = [S.loc[n, "two_hop_mbps"] / S.loc[n, "fair_share_mbps"] for n in S.index if n >= 4]
        cmps.append(info("static CT200: the 2-hop flow's share of its fair share for n ≥ 4",
                         ", ".join(f"{x:.2f}" for x in rs), "static randomization, for comparison with CTD"))
    return FigureResult(df, paths, cmps, ["Qmax = 100 packets; 6-hop senders are hosts 16, 17, … (pods 1–7)"])


# ---------------------------------------------------------------- Fig. 12 (testbed topology)

FIG12_CASES = ((2, 4, 26), (26, 4, 2))
FIG12_SERIES = ["C", *PRESETS, "DCTCP"]


def _series_keys(name: str) -> Dict[str, Any]:
    return PRESETS.get(name) or SERIES[name]


def _fig12_points(quick: bool) -> List[Point]:
    secs = _secs(quick)
    pts = []
    for case in FIG12_CASES:
        for s in FIG12_SERIES:
            for seed in _seeds(quick):
                label = f"fig12-{'-'.join(map(str, case))}-{_slug(s)}-{secs:g}s-s{seed}"
                pts.append(Point(label, testbed_doc(*case, _series_keys(s), secs, 100, seed), None,
                                 {"series": s, "case": "(" + ", ".join(map(str, case)) + ")", "seed_": seed}))
    return pts


def _slug(s: str) -> str:
    return "".join(ch for ch in s.lower().replace("∞", "inf") if ch.isalnum()) or "x"


def _analyze_fig12(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save, series_colors

    rows = []
    for _, r in summary.iterrows():
        f = flows(r)
        per_sender = f.groupby("src")["goodput_bps"].mean()  # g_i: average goodput of S_i's flows (eq. 4)
        rows.append({"case": r["case"], "series": r["series"], "seed": int(r["seed_"]), "jain": jain(per_sender.values),
                     "total_mbps": float(f["goodput_bps"].sum()) / 1e6})
    df = pd.DataFrame(rows)
    m = df.groupby(["case", "series"], sort=False).mean(numeric_only=True).reset_index()
    base = m[m.series == "C"].set_index("case")["total_mbps"]
    m["goodput_ratio"] = [r.total_mbps / base[r.case] for r in m.itertuples()]
    cases = list(dict.fromkeys(m["case"]))
    series = list(dict.fromkeys(m["series"]))
    colors = series_colors(series)
    fig, axes = new_figure(ncols=2, figsize=(11, 4))
    w = 0.8 / len(series)
    for ax, col, yl in ((axes[0], "jain", "Jain's index (per-sender mean goodput)"),
                        (axes[1], "goodput_ratio", "total goodput / CUBIC's")):
        for i, s in enumerate(series):
            v = [float(m[(m.case == c) & (m.series == s)][col].iloc[0]) for c in cases]
            ax.bar(np.arange(len(cases)) + i * w - 0.4 + w / 2, v, w, label=s, color=colors[s])
        ax.set_xticks(np.arange(len(cases)))
        ax.set_xticklabels([f"(N1, N2, N3) = {c}" for c in cases])
        ax.set_ylabel(yl)
        ax.set_ylim(0, 1.1)
    axes[0].legend(fontsize=7, loc="lower right")
    fig.suptitle("Fig. 12: the testbed topology (Fig. 7), Qmax = 100")
    paths = save(fig, out_dir / "fig12.png")
    M = m.set_index(["case", "series"])
    cmps: List[Comparison] = []
    for c in cases:
        jc = float(M.loc[(c, "C"), "jain"])
        js = [float(M.loc[(c, p), "jain"]) for p in PRESETS]
        cmps.append(claim(f"{c}: every TCPRand preset fairer than CUBIC ({jc:.3f})", ", ".join(f"{x:.3f}" for x in js),
                          "always higher", all(x > jc for x in js), "Jain(preset) > Jain(C) for all three presets",
                          partly=any(x > jc for x in js), partly_rule="for at least one preset"))
        cmps.append(claim(f"{c}: TCPRand ≥ 0.9 fairness with every preset", f"min {min(js):.3f}", "≥ 0.9",
                          min(js) >= 0.9, "min over presets ≥ 0.9", partly=max(js) >= 0.9,
                          partly_rule="max over presets ≥ 0.9"))
        loss = [1 - float(M.loc[(c, p), "goodput_ratio"]) for p in PRESETS if "(1,1," in p]
        cmps.append(claim(f"{c}: total goodput loss with μ = 1 presets", ", ".join(f"{x:.1%}" for x in loss),
                          "< 1 % (Cisco), < 4 % (HP)", max(loss) < 0.04, "loss < 4 % for (1,1,1,1) and (1,1,∞,1)",
                          partly=min(loss) < 0.04, partly_rule="loss < 4 % for one of the two"))
    return FigureResult(m, paths, cmps, ["g_i of eq. (4) is the mean goodput of sender S_i's flows, so the index is "
                                         "over the three senders; the testbed's switches are modelled as drop-tail "
                                         "with 100-packet port queues (the paper does not give their buffers)"])


# ---------------------------------------------------------------- Fig. 13 (drop runs)

#: rMin of every flow (F1 and F2:M+1 alike, as in Fig. 13), the paper's static values
FIG13_RMINS = (1448, 1000, 600, 200)
RUN_BINS = ("drop_runs_len1", "drop_runs_len2", "drop_runs_len3", "drop_runs_len4", "drop_runs_len5plus")


def _fig13_points(quick: bool) -> List[Point]:
    secs = 1.0 if quick else 20.0
    pts = []
    for seed in _seeds(quick):
        for r in FIG13_RMINS:
            label = f"fig13-{r}-{secs:g}s-s{seed}"
            doc = testbed_doc(1, FIG14_M, 0, {"cc": "cubic", "sack": True}, secs, 100, seed,
                              tcp_per_sender={1: _rand(r), 2: _rand(r)})
            pts.append(Point(label, doc, None, {"rmin": r, "seed_": seed}))
    return pts


def drop_run_shares(drops: float, counts: Sequence[float]) -> Dict[str, float]:
    """Share of ``drops`` that fell in runs of 1, 2, 3, 4 and ≥ 5 consecutive
    packets, from the run-length histogram ``counts`` (runs of 1..4, ≥ 5).
    The ≥ 5 bin holds what runs of 1..4 do not, so the shares sum to 1."""
    if drops <= 0:
        return {f"share_len{k}": math.nan for k in ("1", "2", "3", "4", "5plus")}
    short = [(k + 1) * float(counts[k]) for k in range(4)]
    out = {f"share_len{k + 1}": short[k] / drops for k in range(4)}
    out["share_len5plus"] = (drops - sum(short)) / drops
    return out


def _analyze_fig13(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    per = []
    for _, r in summary.iterrows():
        f1 = flows(r)
        f1 = f1[f1["src"] == 1].iloc[0]
        per.append({"rmin": int(r["rmin"]), "seed": int(r["seed_"]), "drops": int(f1["drops"]),
                    "segments_sent": int(f1["segments_sent"]), "timeouts": int(f1["timeouts"]),
                    "mbps": float(f1["goodput_bps"]) / 1e6,
                    "drop_runs": int(f1["drop_runs"]), "max_drop_run": int(f1["max_drop_run"]),
                    **{c: int(f1[c]) for c in RUN_BINS}})
    raw = pd.DataFrame(per)
    # Pool the seeds: a share of all F1's drops at that rMin, not a mean of shares.
    g = raw.groupby("rmin", sort=False).agg({"drops": "sum", "drop_runs": "sum", "max_drop_run": "max",
                                             "segments_sent": "sum", "timeouts": "mean", "mbps": "mean",
                                             **{c: "sum" for c in RUN_BINS}})
    g = g.reindex([r for r in FIG13_RMINS if r in g.index])
    rows = []
    for rmin, x in g.iterrows():
        rows.append({"rmin": int(rmin), "seeds": int((raw.rmin == rmin).sum()), "f1_drops": int(x["drops"]),
                     "f1_drop_runs": int(x["drop_runs"]), "f1_max_drop_run": int(x["max_drop_run"]),
                     "f1_loss_rate": float(x["drops"]) / max(1.0, float(x["segments_sent"])),
                     "f1_timeouts_mean": float(x["timeouts"]), "f1_mbps_mean": float(x["mbps"]),
                     **{c: int(x[c]) for c in RUN_BINS},
                     **drop_run_shares(float(x["drops"]), [x[c] for c in RUN_BINS])})
    df = pd.DataFrame(rows)
    df["share_len3plus"] = df["share_len3"] + df["share_len4"] + df["share_len5plus"]
    fig, (a, b) = new_figure(ncols=2, figsize=(11, 4))
    xs = np.arange(len(df))
    labels = [str(r) for r in df["rmin"]]
    a.bar(xs, df["share_len1"], 0.6)
    a.set_xticks(xs)
    a.set_xticklabels(labels)
    a.set_ylim(0, 1)
    a.set_xlabel("rMin of every flow (bytes)")
    a.set_ylabel("single drops / all drops of F1")
    a.set_title("(a) single isolated drops")
    w = 0.2
    for i, k in enumerate(("2", "3", "4", "5plus")):
        a_ = "≥ 5" if k == "5plus" else k
        b.bar(xs + (i - 1.5) * w, df[f"share_len{k}"], w, label=f"runs of {a_}")
    b.set_xticks(xs)
    b.set_xticklabels(labels)
    b.set_xlabel("rMin of every flow (bytes)")
    b.set_ylabel("drops in runs of k / all drops of F1")
    b.set_title("(b) consecutive drops")
    b.legend(fontsize=7)
    paths = save(fig, out_dir / "fig13.png")
    cmps: List[Comparison] = []
    ok = df.dropna(subset=["share_len1"])
    for _, x in ok.iterrows():
        cmps.append(info(f"rMin {int(x['rmin'])}: F1's drops, share single / in runs of 2, 3, 4, ≥ 5",
                         f"{int(x['f1_drops'])}: {x['share_len1']:.2f} / {x['share_len2']:.2f} / "
                         f"{x['share_len3']:.2f} / {x['share_len4']:.2f} / {x['share_len5plus']:.2f}",
                         "drops pooled over seeds"))
        cmps.append(info(f"rMin {int(x['rmin'])}: F1's loss rate, timeouts per run, goodput",
                         f"{x['f1_loss_rate']:.1%}, {x['f1_timeouts_mean']:.0f}, {x['f1_mbps_mean']:.0f} Mbps",
                         "the regime the drops come from (paper: no timeouts with SACK, Fig. 14)"))
    if len(ok) >= 2:
        v = list(ok["share_len1"])
        mono = all(b_ >= a_ for a_, b_ in zip(v, v[1:]))
        cmps.append(claim("(a) single-drop share grows as rMin decreases", " → ".join(f"{x:.2f}" for x in v),
                          "increasing", mono, "monotone non-decreasing over the rMin sweep 1448 → 200",
                          partly=v[-1] > v[0], partly_rule="share at the smallest rMin > at 1448"))
        cmps.append(claim("(a) the largest single-drop share at the smallest rMin (200 B)",
                          f"largest at {int(ok.loc[ok['share_len1'].idxmax(), 'rmin'])}", "200 B",
                          int(ok.loc[ok["share_len1"].idxmax(), "rmin"]) == int(ok["rmin"].min()),
                          "argmax of the single-drop share is the smallest rMin"))
        v3 = list(ok["share_len3plus"])
        mono3 = all(b_ <= a_ for a_, b_ in zip(v3, v3[1:]))
        cmps.append(claim("(b) runs of ≥ 3 drops become rarer as rMin decreases",
                          " → ".join(f"{x:.2f}" for x in v3), "decreasing dramatically", mono3,
                          "share of drops in runs ≥ 3 monotone non-increasing over 1448 → 200",
                          partly=v3[-1] < v3[0], partly_rule="share at the smallest rMin < at 1448"))
        v2 = list(ok["share_len2"] + ok["share_len3plus"])
        cmps.append(claim("(b) consecutive drops (runs ≥ 2) become rarer as rMin decreases",
                          " → ".join(f"{x:.2f}" for x in v2), "decreasing", v2[-1] < v2[0],
                          "share of drops in runs ≥ 2 at the smallest rMin < at 1448"))
    return FigureResult(df, paths, cmps, [f"testbed topology, S1: 1 flow (F1, the outcast), S2: M = {FIG14_M} flows, "
                                          "every flow with the same static rMin, CUBIC, SACK on, Linux TCP "
                                          "(RTOmin 200 ms, IW 10), 100-packet drop-tail queues; a run is a set "
                                          "of drops of consecutively transmitted packets of F1; shares are of "
                                          "F1's drops pooled over the seeds"])


# ---------------------------------------------------------------- Fig. 14 (microscopic)

FIG14_M = 15
#: (rMin of F1, rMin of F2:M+1), the combinations of Fig. 14's x-axis
FIG14_PAIRS = ((1448, 1448), (1000, 1448), (600, 1448), (200, 1448), (1000, 1000), (1000, 600), (1000, 200),
               (200, 200))
QUICK_FIG14_PAIRS = ((1448, 1448), (200, 1448), (1000, 1000), (1000, 200), (200, 200))


def _rand(rmin: int) -> Dict[str, Any]:
    return {"segment": "fixed"} if rmin >= MSS else {"segment": "tcprand", "tcprand_rmin": rmin}


def _fig14_points(quick: bool) -> List[Point]:
    secs = 2.0 if quick else 20.0
    pts = []
    for sack in (True, False):
        for a, b in (QUICK_FIG14_PAIRS if quick else FIG14_PAIRS):
            label = f"fig14-sack{int(sack)}-{a}-{b}-{secs:g}s"
            doc = testbed_doc(1, FIG14_M, 0, {"cc": "cubic", "sack": sack}, secs, 100, 1,
                              tcp_per_sender={1: _rand(a), 2: _rand(b)})
            pts.append(Point(label, doc, None, {"sack": sack, "rmin_f1": a, "rmin_others": b}))
    return pts


def _analyze_fig14(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    rows = []
    for _, r in summary.iterrows():
        f = flows(r)
        f1, rest = f[f["src"] == 1].iloc[0], f[f["src"] == 2]
        rows.append({"sack": bool(r["sack"]), "rmin_f1": int(r["rmin_f1"]), "rmin_others": int(r["rmin_others"]),
                     "f1_timeouts": int(f1["timeouts"]), "f1_retransmits": int(f1["retransmits"]),
                     "others_retransmits_mean": float(rest["retransmits"].mean()),
                     "f1_drops": int(f1["drops"]), "f1_drop_runs": int(f1["drop_runs"]),
                     "f1_max_drop_run": int(f1["max_drop_run"]),
                     "f1_single_share": float(f1["drop_runs_len1"]) / f1["drops"] if f1["drops"] else math.nan,
                     "f1_mbps": float(f1["goodput_bps"]) / 1e6,
                     "jain": jain([float(f1["goodput_bps"]), float(rest["goodput_bps"].mean())])})
    df = pd.DataFrame(rows)
    fig, axes = new_figure(ncols=2, figsize=(11, 4))
    for ax, sack in zip(axes, (True, False)):
        g = df[df.sack == sack]
        x = np.arange(len(g))
        ax.bar(x - 0.2, g["f1_retransmits"], 0.4, label="F1 retransmissions")
        ax.bar(x + 0.2, g["others_retransmits_mean"], 0.4, label=f"F2:{FIG14_M + 1} retransmissions (mean)")
        ax2 = ax.twinx()
        ax2.plot(x, g["f1_timeouts"], "ko-", label="F1 timeouts")
        ax2.set_ylabel("F1 timeouts")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{a}/{b}" for a, b in zip(g["rmin_f1"], g["rmin_others"])], rotation=45, fontsize=7)
        ax.set_xlabel(f"rMin of F1 / of F2:{FIG14_M + 1} (bytes)")
        ax.set_ylabel("retransmissions")
        ax.set_title(f"({'a' if sack else 'b'}) SACK {'on' if sack else 'off'}")
        ax.legend(fontsize=7, loc="upper left")
    paths = save(fig, out_dir / "fig14.png")
    D = df.set_index(["sack", "rmin_f1", "rmin_others"])
    cmps: List[Comparison] = []
    on = df[df.sack]
    cmps.append(claim("SACK on: F1 has (almost) no timeouts with TCPRand",
                      ", ".join(str(x) for x in on[on.rmin_f1 < MSS]["f1_timeouts"]), "0 (≤ 4 in one case)",
                      bool((on[on.rmin_f1 < MSS]["f1_timeouts"] <= 4).all()), "≤ 4 timeouts in every TCPRand case"))
    if (False, MSS, MSS) in D.index and (False, 200, 200) in D.index:
        a, b = int(D.loc[(False, MSS, MSS), "f1_timeouts"]), int(D.loc[(False, 200, 200), "f1_timeouts"])
        cmps.append(claim("SACK off: TCPRand cuts F1's timeouts (1448/1448 → 200/200)", f"{a} → {b}",
                          "204 → 9 (M = 15, 100 s)", b < 0.5 * a, "timeouts at 200/200 < half of 1448/1448"))
    for sack in (True, False):
        seq = [(a, MSS) for a in (MSS, 1000, 600, 200) if (sack, a, MSS) in D.index]
        if len(seq) >= 2:
            v = [int(D.loc[(sack, a, b), "f1_retransmits"]) for a, b in seq]
            cmps.append(claim(f"SACK {'on' if sack else 'off'}: F1's retransmissions grow as its own rMin falls "
                              f"(others 1448)", " → ".join(map(str, v)), "increasing", v[-1] > v[0],
                              "retransmissions at the smallest rMin > at 1448"))
        seq = [(1000, b) for b in (MSS, 1000, 600, 200) if (sack, 1000, b) in D.index]
        if len(seq) >= 2:
            v = [int(D.loc[(sack, a, b), "f1_retransmits"]) for a, b in seq]
            cmps.append(claim(f"SACK {'on' if sack else 'off'}: F1 (rMin 1000) retransmits less as the others' rMin "
                              "falls", " → ".join(map(str, v)), "decreasing", v[-1] < v[0],
                              "retransmissions with others at the smallest rMin < with others at 1448"))
    more = bool((df["f1_retransmits"] > df["others_retransmits_mean"]).mean() >= 0.75)
    cmps.append(claim("the outcast flow retransmits more than each non-outcast flow",
                      f"{(df['f1_retransmits'] > df['others_retransmits_mean']).mean():.0%} of cases", "in all cases",
                      more, "F1's retransmissions > the mean of F2:16's in ≥ 75 % of the cases"))
    return FigureResult(df, paths, cmps, [f"testbed topology, S1: 1 flow (F1), S2: M = {FIG14_M} flows, static rMin, "
                                          "CUBIC; f1_single_share = F1's isolated drops / its drops (Fig. 13(a)'s "
                                          "quantity; Fig. 13 has the whole run-length distribution)"])


# ---------------------------------------------------------------- Fig. 15 (incast)

FIG15_NS = (1, 2, 4, 8, 12, 16, 24, 32, 40)
QUICK_FIG15_NS = (4, 16, 40)
FIG15_SERIES = ("C", "CTD", "DCTCP")


def fig15_doc(series: Dict[str, Any], n: int, blocks: int, seed: int = 1, name: str = "tcprand-fig15"):
    """Incast: a 1 GbE star, one client and n servers, Qmax 100, each server
    sends a 128 KB SRU per block (synchronized reads)."""
    topo = {"kind": "star", "hosts": n + 1, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
    k = _ecn_k(series, 100)
    if k:
        topo["ecn_k"] = k
    return {"name": name, "seed": seed, "stop": "60s", "switch_delay": SWITCH_DELAY, "topology": topo,
            "tcp": tcp_table(series), "apps": [{"kind": "sync_reads", "client": 0, "servers": f"1-{n}",
                                                 "sru": "128KB", "blocks": blocks}]}


def _fig15_points(quick: bool) -> List[Point]:
    blocks = 10 if quick else 100
    pts = []
    for s in FIG15_SERIES:
        for n in (QUICK_FIG15_NS if quick else FIG15_NS):
            label = f"fig15-{s}-n{n}-b{blocks}"
            pts.append(Point(label, fig15_doc(SERIES[s], n, blocks, 1, label), None, {"series": s, "n": n}))
    return pts


def _analyze_fig15(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    rows = []
    for _, r in summary.iterrows():
        b = read_table(r, "blocks")
        rows.append({"series": r["series"], "n": int(r["n"]),
                     "goodput_mbps": 8 * float(b["bytes"].sum()) / float(b["duration_s"].sum()) / 1e6,
                     "timeouts_per_block": float(b["timeouts"].mean())})
    df = pd.DataFrame(rows)
    fig, ax = new_figure(figsize=(7, 4))
    for s in FIG15_SERIES:
        g = df[df.series == s]
        ax.plot(g["n"], g["goodput_mbps"], "o-", label={"C": "CUBIC", "CTD": "TCPRand"}.get(s, s))
    ax.set_xlabel("number of senders")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_title("Fig. 15: incast, Qmax = 100, 128 KB per sender per block")
    ax.legend()
    paths = save(fig, out_dir / "fig15.png")
    P = df.pivot(index="n", columns="series", values="goodput_mbps")
    worse = [(n, P.loc[n, "CTD"] / P.loc[n, "C"]) for n in P.index]
    cmps = [claim("TCPRand not worse than CUBIC under incast", f"min ratio {min(x for _, x in worse):.2f}",
                  "not worse", all(x >= 0.9 for _, x in worse), "goodput(CTD) ≥ 0.9 × goodput(C) at every n",
                  partly=sum(x >= 0.9 for _, x in worse) > len(worse) / 2,
                  partly_rule="at more than half of the n values")]
    best = [(P.loc[n, "DCTCP"] >= max(P.loc[n, "C"], P.loc[n, "CTD"]) * 0.98) for n in P.index]
    cmps.append(claim("DCTCP best", f"best (within 2 %) at {sum(best)} of {len(best)} n", "in general best",
                      sum(best) >= 0.75 * len(best), "DCTCP ≥ 0.98 × max(C, CTD) at ≥ 75 % of the n values",
                      partly=sum(best) >= len(best) / 2, partly_rule="at ≥ 50 % of the n values"))
    return FigureResult(df, paths, cmps, ["'block size 128KB' read as the SRU each sender returns per block"])


# ---------------------------------------------------------------- Figs. 16–17

FIG16_DURATIONS = (270, 210, 150, 90, 30)


def fig16_doc(series: Dict[str, Any], scale: float, name: str) -> Dict[str, Any]:
    """Five senders on a 1 GbE star start one flow each 30 s apart with
    durations 270, 210, 150, 90, 30 s (times × ``scale``)."""
    apps = [{"kind": "bulk", "src": i + 1, "dst": 0, "start": f"{30 * i * scale:g}s", "duration": f"{d * scale:g}s"}
            for i, d in enumerate(FIG16_DURATIONS)]
    topo = {"kind": "star", "hosts": 6, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
    return {"name": name, "seed": 1, "stop": f"{270 * scale + 0.01:g}s", "switch_delay": SWITCH_DELAY,
            "topology": topo, "tcp": tcp_table({**LINUX, **series}),
            "trace": {"interval": f"{max(0.01, 0.5 * scale):g}s", "flows": True}, "apps": apps}


def _fig16_points(quick: bool) -> List[Point]:
    scale = 1 / 30 if quick else 1.0
    return [Point(f"fig16-{s}-x{scale:.4g}", fig16_doc(SERIES[s], scale, f"fig16-{s}"), None,
                  {"series": s, "scale": scale}) for s in ("C", "CTD")]


def _rates(row, bin_s: float):
    fts = read_table(row, "flow_ts").sort_values(["flow_id", "time_s"])
    fts["mbps"] = fts.groupby("flow_id")["delivered_bytes"].diff() * 8 / bin_s / 1e6
    return fts.dropna(subset=["mbps"])


def _analyze_fig16(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    fig, axes = new_figure(ncols=2, figsize=(11, 4), sharey=True)
    rows = []
    for ax, (_, r) in zip(axes, summary.iterrows()):
        scale = float(r["scale"])
        bin_s = max(0.01, 0.5 * scale)
        ts = _rates(r, bin_s)
        for fid, g in ts.groupby("flow_id"):
            ax.plot(g["time_s"], g["mbps"], linewidth=0.9, label=f"flow {fid + 1}")
        ax.set_title(f"({'a' if r['series'] == 'C' else 'b'}) {'CUBIC' if r['series'] == 'C' else 'TCPRand (CTD)'}")
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=7)
        # Jain index among the active flows over the second half of each 30 s phase
        bounds = [30 * i * scale for i in range(10)]
        for k in range(9):
            t0, t1 = bounds[k], bounds[k + 1]
            active = min(k + 1, 9 - k)
            w = ts[(ts.time_s > t0 + (t1 - t0) / 2) & (ts.time_s <= t1)]
            means = w.groupby("flow_id")["mbps"].mean()
            means = means[means > 1.0]
            rows.append({"series": r["series"], "phase": k + 1, "active_flows": active, "start_s": t0, "end_s": t1,
                         "jain": jain(means.values) if len(means) else math.nan, "total_mbps": float(means.sum())})
    axes[0].set_ylabel("throughput (Mbps)")
    fig.suptitle("Fig. 16: flow convergence, five flows starting 30 s apart" + (" (times ÷ 30)" if scale < 1 else ""))
    paths = save(fig, out_dir / "fig16.png")
    df = pd.DataFrame(rows)
    P = df.pivot(index="phase", columns="series", values="jain")
    d = float((P["CTD"] - P["C"]).abs().mean())
    cmps = [claim("TCPRand converges like CUBIC", f"mean |ΔJain| {d:.3f}; min Jain C {P['C'].min():.3f}, "
                  f"CTD {P['CTD'].min():.3f}", "quite similar", d <= 0.05 and P["CTD"].min() >= 0.9,
                  "mean over phases of |Jain(CTD) − Jain(C)| ≤ 0.05 and every CTD phase ≥ 0.9",
                  partly=d <= 0.1, partly_rule="mean |ΔJain| ≤ 0.1")]
    return FigureResult(df, paths, cmps, ["Jain index among active flows over the second half of each phase"])


def _fig17_points(quick: bool) -> List[Point]:
    secs = 2.0 if quick else 10.0
    pts = []
    for s in ("C", "CTD"):
        label = f"fig17-{s}-{secs:g}s"
        topo = {"kind": "star", "hosts": 3, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
        doc = {"name": label, "seed": 1, "stop": f"{secs:g}s", "switch_delay": SWITCH_DELAY, "topology": topo,
               "tcp": tcp_table({**LINUX, **SERIES[s]}), "trace": {"interval": "1ms", "flows": True},
               "apps": [{"kind": "bulk", "src": h, "dst": 0, "duration": f"{secs:g}s"} for h in (1, 2)]}
        pts.append(Point(label, doc, None, {"series": s}))
    return pts


def _analyze_fig17(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..plots import new_figure, save

    fig, axes = new_figure(nrows=2, figsize=(9, 5.5), sharex=True)
    rows = []
    for ax, (_, r) in zip(axes, summary.iterrows()):
        fts = read_table(r, "flow_ts")
        w = fts.pivot(index="time_s", columns="flow_id", values="cwnd_bytes")
        w = w[w.index >= 0.2]  # past slow start
        for fid in w.columns:
            ax.plot(w.index, w[fid] / MSS, linewidth=0.8, label=f"flow {fid + 1}")
        ax.set_ylabel("cwnd (segments of 1448 B)")
        ax.set_title("(a) CUBIC" if r["series"] == "C" else "(b) TCPRand (CTD)")
        ax.legend(fontsize=7)
        corr = float(np.corrcoef(w.iloc[:, 0], w.iloc[:, 1])[0, 1])
        cuts = (w.diff() < 0)
        both = float((cuts.iloc[:, 0] & cuts.iloc[:, 1]).sum()) / max(1.0, float(cuts.any(axis=1).sum()))
        rows.append({"series": r["series"], "cwnd_correlation": corr, "joint_cut_share": both})
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Fig. 17: congestion windows of two flows into one port (Qmax 100)")
    paths = save(fig, out_dir / "fig17.png")
    df = pd.DataFrame(rows).set_index("series")
    cmps = [claim("TCPRand windows less synchronized: cwnd correlation CTD < C",
                  f"{df.loc['CTD', 'cwnd_correlation']:.2f} vs {df.loc['C', 'cwnd_correlation']:.2f}",
                  "more asynchronous", df.loc["CTD", "cwnd_correlation"] < df.loc["C", "cwnd_correlation"],
                  "Pearson correlation of the two cwnd traces (1 ms samples) lower with CTD"),
            claim("TCPRand: fewer window cuts in the same millisecond",
                  f"{df.loc['CTD', 'joint_cut_share']:.1%} vs {df.loc['C', 'joint_cut_share']:.1%}",
                  "more asynchronous", df.loc["CTD", "joint_cut_share"] < df.loc["C", "joint_cut_share"],
                  "share of 1 ms samples with a cut where both flows cut, lower with CTD")]
    return FigureResult(df.reset_index(), paths, cmps, [])


# ---------------------------------------------------------------- Fig. 5 (offline model)


def _no_points(quick: bool) -> List[Point]:
    return []


def _analyze_fig5(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ..models.enqueue import enqueue_sweep
    from ..plots import new_figure, save

    quick = bool(summary.attrs.get("quick"))
    step = 37 if quick else 1
    rmins = sorted(set(list(range(1, MSS + 1, step)) + [1, 200, MSS]))
    rows = []
    for phase in ("uniform", "aligned"):
        for e in enqueue_sweep(rmins, 1000, phase=phase):
            rows.append({"phase": phase, **e.as_dict()})
    df = pd.DataFrame(rows)
    fig, ax = new_figure(figsize=(8, 4.2))
    u = df[df.phase == "uniform"]
    for col, name in (("p_x2", "P(X2)"), ("p_y2", "P(Y2)"), ("p_both", "both"), ("p_neither", "neither")):
        ax.plot(u["rmin"], u[col], linewidth=1.0, label=name)
    a = df[df.phase == "aligned"]
    ax.plot(a["rmin"], a["p_x2"], ":", color="0.3", linewidth=1.0, label="P(X2), aligned reading")
    ax.set_xlabel("rMin (bytes)")
    ax.set_ylabel("enqueue probability")
    ax.set_title("Fig. 5: enqueue probability of X2 and Y2 (1000 trials per rMin)")
    ax.legend(fontsize=8)
    paths = save(fig, out_dir / "fig5.png")
    U = u.set_index("rmin")
    cmps = [
        claim("rMin = 1448: X2 never enqueued", f"{U.loc[MSS, 'p_x2']:.3f}", "0", U.loc[MSS, "p_x2"] == 0.0,
              "P(X2) = 0 exactly"),
        near("P(X2) at rMin = 1 B", float(U.loc[1, "p_x2"]), 0.63, 0.03, 0.08),
        near("P(Y2) at rMin = 1 B", float(U.loc[1, "p_y2"]), 0.58, 0.03, 0.08),
        near("P(neither) at rMin = 1 B", float(U.loc[1, "p_neither"]), 0.11, 0.03, 0.08),
        near("P(both) at rMin = 1 B", float(U.loc[1, "p_both"]), 0.32, 0.03, 0.08,
             note="paper: 0.63 + 0.58 − 1 + 0.11"),
        info("aligned reading at rMin = 1 B: P(X2), neither",
             f"{float(a.set_index('rmin').loc[1, 'p_x2']):.2f}, {float(a.set_index('rmin').loc[1, 'p_neither']):.2f}",
             "the other reading of where Y1 falls in the output port's service (docs/models.md §4)"),
    ]
    return FigureResult(df, paths, cmps, ["a model, not a simulation run: dcnsim.models.enqueue (uniform phase)"])


# ---------------------------------------------------------------- implicit settings

#: (name, tcp overrides, top-level overrides, topology overrides)
VARIANTS: List[Tuple[str, Dict[str, Any], Dict[str, Any], Dict[str, Any]]] = [
    ("baseline", {}, {}, {}),
    ("init_cwnd 10", {"init_cwnd": 10}, {}, {}),
    ("delayed ACK (2 seg, 200 ms: ns-3)", {"delayed_ack": True, "delayed_ack_timeout": "200ms"}, {}, {}),
    ("SACK", {"sack": True}, {}, {}),
    ("NIC queue 1000 pkt", {}, {}, {"nic_buffer": "1000pkt"}),
    ("host jitter 1 µs", {}, {"host_jitter": "1us"}, {}),
    ("single-path routing", {}, {"routing": {"mode": "single"}}, {}),
]
SETTINGS_SERIES = ("C", "CT200", "CTD")


def _settings_points(quick: bool) -> List[Point]:
    secs = _secs(quick)
    pts = []
    for name, t, top, topo in VARIANTS:
        for s in SETTINGS_SERIES:
            for seed in _seeds(quick):
                if name == "baseline":
                    pts.append(fig1_point(s, 20, quick, seed))
                    pts[-1].params["variant"] = name
                    continue
                label = f"set-{_slug(name)}-{s}-{secs:g}s-s{seed}"
                doc = fig1_doc(SERIES[s], 20, secs, seed, tcp_over=t, top_over=top, topo_over=topo, name=label)
                pts.append(Point(label, doc, None, {"series": s, "qmax": 20, "bg_mbps": 0.0, "seed_": seed,
                                                    "variant": name}))
    return pts


def _analyze_settings(summary, out_dir: Path) -> FigureResult:
    from ..plots import new_figure, save, series_colors

    df = _fig1_frame(summary)
    df["variant"] = list(summary["variant"])
    m = df.groupby(["variant", "series"], sort=False).mean(numeric_only=True).reset_index()
    variants = [v for v, *_ in VARIANTS]
    colors = series_colors(list(SETTINGS_SERIES))
    fig, axes = new_figure(ncols=2, figsize=(12, 4.2))
    w = 0.8 / len(SETTINGS_SERIES)
    for ax, col, yl in ((axes[0], "jain", "Jain's index"), (axes[1], "total_mbps", "total goodput (Mbps)")):
        for i, s in enumerate(SETTINGS_SERIES):
            vals = [float(m[(m.variant == x) & (m.series == s)][col].iloc[0]) for x in variants]
            ax.bar(np.arange(len(variants)) + i * w - 0.4 + w / 2, vals, w, label=s, color=colors[s])
        ax.set_xticks(np.arange(len(variants)))
        ax.set_xticklabels(variants, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel(yl)
    axes[0].legend(fontsize=8)
    fig.suptitle("Implicit settings, one at a time (Fig. 1, Qmax = 20)")
    paths = save(fig, out_dir / "settings.png")
    M = m.set_index(["variant", "series"])
    cmps = []
    for variant in variants:
        j = [float(M.loc[(variant, s), "jain"]) for s in SETTINGS_SERIES]
        g = [float(M.loc[(variant, s), "total_mbps"]) for s in SETTINGS_SERIES]
        outcast = j[0] < 0.95 and all(x > j[0] for x in j[1:])
        cmps.append(info(f"{variant}: Jain C / CT200 / CTD; total Mbps",
                         " / ".join(f"{x:.3f}" for x in j) + "; " + " / ".join(f"{x:.0f}" for x in g),
                         ("outcast with C and both TCPRand series fairer" if outcast else
                          "the outcast picture changes") + " (outcast: Jain(C) < 0.95 and CT200, CTD above C)"))
    return FigureResult(m, paths, cmps, [])


# ---------------------------------------------------------------- the paper

SETTINGS = [
    Setting("switch processing delay", f"{SWITCH_DELAY} per switch", "the paper's '25 ms' cites a Cisco latency "
            "guide whose figure is 25 µs; 25 ms would make a 6-hop RTT 250 ms"),
    Setting("link propagation delay", LINK_DELAY, "not given; the switch delay dominates the RTT"),
    Setting("MSS / headers", f"{MSS} B payload + {HEADER} B TCP/IP with timestamps",
            "the paper: MSS 1460 and payloads up to 1448 B"),
    Setting("routing", "ECMP (per-flow hash)", "'routing policy of [2]'; in the fat-tree F2:15 spread over "
            "both aggregation ports of R's edge switch", "single-path routing in the settings figure"),
    Setting("window growth with small segments", "per byte acknowledged (cwnd in bytes, like Linux ABC)",
            "the paper found ABC made no difference in outcast scenarios"),
    Setting("initial window", "2 segments", "irrelevant for 10 s flows", "10 in the settings figure"),
    Setting("delayed ACKs", "off", "ns-3's DelAckCount 2 / 200 ms is a setting the paper does not mention",
            "on (ns-3 values) in the settings figure"),
    Setting("SACK", "off in the ns-3 figures (8–10, 15), on/off in Fig. 14",
            "ns-3 of 2016 had no SACK; the testbed (Linux) had it on", "on in the settings figure"),
    Setting("NIC queue", "100 packets", "ns-3's default", "1000 packets in the settings figure"),
    Setting("host timing noise", "none (deterministic)", "ns-3 has none either", "1 µs in the settings figure"),
    Setting("flow length", f"{DURATION_S:g} s (quick: {QUICK_DURATION_S:g} s); {len(SEEDS)} seeds (quick: 1)",
            "the paper: 10 s, runs per point not given"),
    Setting("adaptive TCPRand outside CUBIC epochs", "full-size segments (rMin = MSS)",
            "Algorithm 1 is undefined without W_max > α (after a timeout W_max = α)"),
    Setting("Fig. 5 phase", "uniform (Y1 at a random point of the output's service)",
            "the paper does not say; docs/models.md §4", "aligned reading plotted dotted"),
    Setting("testbed (Figs. 12, 14)", "the Fig. 7 topology as simulated drop-tail switches, Qmax 100",
            "the Cisco/HP buffers are not given"),
    Setting("testbed TCP (Figs. 12, 14, 16, 17)", "Linux 3.2: RTOmin 200 ms, SACK on (Fig. 14: on and off), "
            "initial window 10", "the testbed ran Linux 3.2.39 with SACK by default"),
    Setting("incast block (Fig. 15)", "128 KB per sender per block (SRU)", "'file size (or block size)'"),
]

SETUP = (
    "Fig. 1: k = 4 fat-tree (16 hosts, 20 switches), receiver R = host 0, senders S1..S15 = hosts 1..15, one long "
    "flow each; F1 is 2 hops from R, F2:3 4 hops, F4:15 6 hops. 1 Gbps links, drop-tail queues of Qmax packets, "
    f"MSS {MSS} B payload + {HEADER} B headers, RTOmin {RTO_MIN}, {SWITCH_DELAY} per switch, ECMP. Series as in "
    "Fig. 8's caption: N = NewReno, NTx = NewReno + static TCPRand (rMin = x), C = CUBIC, CTx = CUBIC + static "
    "TCPRand, CTD = CUBIC + adaptive TCPRand (1, 1, 1, 1), DCTCP with K = 0.2·Qmax. Fig. 10 uses the k = 8 fat-tree, "
    "Figs. 12 and 14 the testbed topology of Fig. 7, Figs. 15–17 a star."
)


def _figures() -> List[Figure]:
    figs = [
        Figure("5", "enqueue probability of X2 and Y2 at congestion (offline model)", _no_points, _analyze_fig5,
               "rMin = 1448: P(X2) = 0; rMin = 1: P(X2) ≈ 0.63, P(Y2) ≈ 0.58, neither ≈ 0.11"),
        Figure("8a", "fairness (Jain) vs Qmax on the Fig. 1 fat-tree", _fig8_points, _analyze_fig8a,
               "N, C unfair; CTx → 1 as rMin falls (Qmax 100: 0.976 / 0.991 / 0.996); CTD and DCTCP fair"),
        Figure("8b", "total goodput ratio vs Qmax", _fig8_points, _analyze_fig8b,
               "Qmax 100: CT200 / 100 / 50 = 0.855 / 0.85 / 0.835 of C; DCTCP 0.936 at Qmax 20"),
        Figure("8c", "fairness with UDP CBR background, Qmax = 20", _fig8c_points, _analyze_fig8c,
               "TCPRand always above CUBIC, gain shrinking with background; DCTCP 0.887 at 450 Mbps"),
        Figure("9", "timeout frequency and period, TCPRand / CUBIC, per flow group", _fig8_points, _analyze_fig9,
               "Qmax 20: F1 ~3× the timeouts but half the period; Qmax 100: fewer timeouts for all"),
        Figure("10", "8-ary fat-tree: a 2-hop flow against n 6-hop flows, Qmax = 100", _fig10_points, _analyze_fig10,
               "CUBIC's 2-hop flow outcast as n grows (ahead for n ≤ 2); TCPRand near the fair share"),
        Figure("12", "testbed topology (Fig. 7): fairness and goodput per preset", _fig12_points, _analyze_fig12,
               "every preset fairer than CUBIC, ≥ 0.9; μ = 1 presets lose < 1–4 % goodput"),
        Figure("13", "outcast flow's drop distribution vs rMin, M = 15, SACK on", _fig13_points, _analyze_fig13,
               "as rMin falls the share of single isolated drops grows (most at 200 B) and runs of 2–5 drops, "
               "especially ≥ 3, become far rarer"),
        Figure("14", "microscopic: F1's timeouts and retransmissions vs rMin, M = 15, SACK on/off", _fig14_points,
               _analyze_fig14, "SACK: no timeouts; no SACK: 204 → 9 timeouts; F1 retransmits more as its rMin "
               "falls, less as the others' falls"),
        Figure("15", "incast: goodput vs senders, star, Qmax = 100", _fig15_points, _analyze_fig15,
               "TCPRand not worse than CUBIC; DCTCP best"),
        Figure("16", "flow convergence: five flows starting 30 s apart", _fig16_points, _analyze_fig16,
               "TCPRand converges like CUBIC"),
        Figure("17", "cwnd traces of two flows", _fig17_points, _analyze_fig17,
               "CUBIC windows rather synchronized; TCPRand's vary asynchronously"),
        Figure("settings", "the implicit settings, one at a time (Fig. 1, Qmax = 20)", _settings_points,
               _analyze_settings, ""),
    ]
    # Fig. 11 (FCT under Poisson load) is built in tcprand_fct.py when present.
    if importlib.util.find_spec(__package__ + ".tcprand_fct") is not None:
        from . import tcprand_fct

        extra = list(getattr(tcprand_fct, "FIGURES", []))
        at = next(i for i, f in enumerate(figs) if f.id == "12")
        figs[at:at] = extra
    return figs


PAPER = Paper(
    key="tcprand",
    title="TCPRand (Lee et al., Computer Networks 2017)",
    citation="S. Lee, D. Lee, M. Lee, H. Jung and B.-S. Lee, \"Randomizing TCP payload size for TCP fairness in "
             "data center networks\", Computer Networks 129:79–92, 2017.",
    docs="docs/tcprand.md",
    setup=SETUP,
    settings=SETTINGS,
    figures=_figures(),
)
