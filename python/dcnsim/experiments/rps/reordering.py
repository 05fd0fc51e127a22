"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): reordering-robust TCP (ours)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from ...sweep import Point
from ..claims import ordering
from ..framework import FigureResult, beyond
from .common import (
    DCTCP_K,
    RPS,
    SHORTS,
    TCP_BASE,
    TCP_CCS,
    TCP_RECOVERY,
    _runs,
    errorbar_plot,
    frame,
    paired,
    random_apps,
    scenario,
    tcp,
    tidy,
)

# ---------------------------------------------------------------- reordering-robust TCP (ours)

#: the tcp figure's variant, as its Beyond-the-paper rows name it
TCP_SETTING = "reordering-robust loss detection (SACK, adaptive dupthresh, RACK-TLP) with NewReno, CUBIC, DCTCP"


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
    stem_what = {"tcp": "throughput", "tcp_retransmits": "fast retransmits", "tcp_fct": "FCT"}
    for metric, ylabel, stem in (("long_tput_mbps", "mean long-flow throughput (Mbps)", "tcp"),
                                 ("fast_retransmits", "fast retransmits per run", "tcp_retransmits"),
                                 ("short_fct_ms", "mean short-flow FCT (ms)", "tcp_fct")):
        tp = t[t["metric"] == metric].rename(columns={"recovery": "scheme"})
        figs += errorbar_plot(tp, "n_long", "scheme", xlabel="long flows", ylabel=ylabel,
                              title=f"RPS, random pairs (20 short flows), reordering-robust loss detection: {stem_what[stem]}",
                              path=out_dir / f"{stem}.png", order=rec_names, facet="cc")
    cmp = []
    for cname, _, _ in TCP_CCS:
        d = df[df["cc"] == cname]
        for rname in rec_names[2:]:
            fr = paired(d, "fast_retransmits", rname, TCP_BASE, col="recovery")
            cmp.append(ordering(f"{cname}: fast retransmits, {rname} − {TCP_BASE}", fr, None, -1,
                                      f"{rname} − {TCP_BASE}", "per run"))
            tp_d = paired(d, "long_tput_mbps", rname, TCP_BASE, col="recovery")
            cmp.append(ordering(f"{cname}: long-flow throughput, {rname} − {TCP_BASE}", tp_d, None, +1,
                                      f"{rname} − {TCP_BASE}", "Mbps"))
            fct = paired(d, "short_fct_ms", rname, TCP_BASE, col="recovery")
            cmp.append(ordering(f"{cname}: short-flow FCT, {rname} − {TCP_BASE}", fct, None, -1,
                                      f"{rname} − {TCP_BASE}", "ms"))
    # the paper has no such figure: judged by our expectation, never tallied
    cmp = [beyond(c, setting=TCP_SETTING) for c in cmp]
    spur = df.groupby(["cc", "recovery"])[["fast_retransmits", "spurious_retransmits", "drops"]].sum()
    notes = ["fast retransmits / detected spurious / drops, all runs: " + "; ".join(
        f"{c}, {r}: {int(v.fast_retransmits)} / {int(v.spurious_retransmits)} / {int(v.drops)}"
        for (c, r), v in spur.iterrows())]
    return FigureResult(t, figs, cmp, notes)
