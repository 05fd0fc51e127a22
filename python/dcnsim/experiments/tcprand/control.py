"""TCPRand (Lee et al., 2017): why small random segments without SACK lose
goodput (issue 26 §3; Fig. 8b, docs/tcprand_fct.md's two-flow test).

Controls, everything else as the paper's setup: segments of one fixed
size (1460, 830 — CT200's mean payload — and 200 B, no randomisation)
against payloads drawn from U[rMin, 1460] for rMin = 1400, 1000, 600 and
200 B, each without and with SACK, on two topologies:

* ``star``: two NewReno flows of 20 MB into one host through one switch
  (100-packet ports), the test of docs/tcprand_fct.md;
* ``fig1``: Fig. 8b's setting (the Fig. 1 fat-tree, Qmax = 100, 15 CUBIC
  flows), C and CT200 against CUBIC with every segment 200 B.

If the packet-counted buffer charged a small segment a whole slot, the
fixed 200 B segments would lose as much as CT200; if the loss came from
the sizes being random, it grows with the spread U[rMin, MSS] and the
fixed sizes do not show it. What it shows is in docs/tcprand.md ("Fig. 8b:
the mechanism"). Nothing here is tallied (our controls).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

from ...sweep import Point
from ..claims import info
from ..framework import FigureResult, read_table
from .common import (
    SERIES,
    SWITCH_DELAY,
    fig1_doc,
    flows,
)

#: (name, tcp keys): fixed sizes and the spread of U[rMin, 1460]
STAR_SERIES: Tuple[Tuple[str, Dict[str, Any]], ...] = (
    ("N, 1460 B", {"cc": "newreno"}),
    ("N, every segment 830 B", {"cc": "newreno", "mss": 830}),
    ("N, every segment 200 B", {"cc": "newreno", "mss": 200}),
    ("NT1400", {"cc": "newreno", "segment": "tcprand", "tcprand_rmin": 1400}),
    ("NT1000", {"cc": "newreno", "segment": "tcprand", "tcprand_rmin": 1000}),
    ("NT600", {"cc": "newreno", "segment": "tcprand", "tcprand_rmin": 600}),
    ("NT200", SERIES["NT200"]),
)
FIG1_SERIES: Tuple[Tuple[str, Dict[str, Any]], ...] = (
    ("C", SERIES["C"]),
    ("CT200", SERIES["CT200"]),
    ("C, every segment 200 B", {"cc": "cubic", "mss": 200}),
)
STAR_MB = 20
QUICK_STAR_MB = 4
FIG1_SECS = 3.0
QUICK_FIG1_SECS = 1.0


def star_doc(tcp: Dict[str, Any], mb: float, name: str = "tcprand-star2") -> Dict[str, Any]:
    """Two bulk flows of ``mb`` MB from hosts 1, 2 to host 0 on a star."""
    from .common import tcp_table

    return {"name": name, "seed": 1, "stop": "600s", "switch_delay": SWITCH_DELAY,
            "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"},
            "tcp": tcp_table(tcp), "apps": [{"kind": "bulk", "src": s, "dst": 0, "size": f"{mb:g}MB"} for s in (1, 2)]}


def _points(quick: bool) -> List[Point]:
    pts: List[Point] = []
    mb = QUICK_STAR_MB if quick else STAR_MB
    secs = QUICK_FIG1_SECS if quick else FIG1_SECS
    for sack in (False, True):
        for name, tcp in STAR_SERIES:
            label = f"ctl-star-{len(pts)}-{mb:g}mb" + ("-sack" if sack else "")
            pts.append(Point(label, star_doc({**tcp, "sack": sack}, mb, label), None,
                             {"topology": "star", "series": name, "sack": sack}))
        for name, tcp in FIG1_SERIES:
            label = f"ctl-fig1-{len(pts)}-{secs:g}s" + ("-sack" if sack else "")
            doc = fig1_doc(tcp, 100, secs, 1, tcp_over={"sack": sack}, name=label)
            pts.append(Point(label, doc, None, {"topology": "fig1", "series": name, "sack": sack}))
    return pts


def _row(r) -> Dict[str, float]:
    f = flows(r)
    q = read_table(r, "queues")
    nic = q["from_host"].astype(bool)
    to = float(f["timeouts"].sum())
    # what the flows delivered together over the time any of them ran: the
    # sum of each flow's own bytes over its own time counts the link twice
    # where one finished first (two 4 MB flows: 676 + 462 Mbps summed on a
    # 1 Gbps link, 925 Mbps together)
    span = float(f["end_s"].max() - f["start_s"].min())
    together = 8 * float(f["delivered_bytes"].sum()) / span if span > 0 else float("nan")
    return {"goodput_mbps": together / 1e6, "fct_ms": 1e3 * float(f["fct_s"].max()),
            "drops": float(f["drops"].sum()), "nic_drops": float(q[nic]["dropped"].sum()),
            "timeouts": to, "many_dupack_share": float(f["rto_many_dupacks"].sum()) / to if to else float("nan"),
            "payload_b": float(f["bytes_sent"].sum()) / max(1.0, float(f["segments_sent"].sum()))}


def _analyze(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save

    rows = []
    for _, r in summary.iterrows():
        rows.append({"topology": r["topology"], "series": r["series"], "sack": bool(r["sack"]), **_row(r)})
    df = pd.DataFrame(rows)
    fig, axes = new_figure(ncols=2, figsize=(12, 4.2))
    for ax, topo in zip(axes, ("star", "fig1")):
        d = df[df["topology"] == topo]
        names = list(dict.fromkeys(d["series"]))
        for i, sack in enumerate((False, True)):
            v = [float(d[(d["series"] == n) & (d["sack"] == sack)]["drops"].iloc[0]) for n in names]
            # points, not bars: on a log axis (the drops span decades) a
            # bar's length means nothing
            ax.plot([j + 0.2 * i - 0.1 for j in range(len(names))], v, "os"[i], markersize=7,
                    label="SACK" if sack else "no SACK")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
        ax.set_xlim(-0.6, len(names) - 0.4)
        ax.set_yscale("log")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.set_ylabel("packets dropped")
        ax.set_title("two NewReno flows, star" if topo == "star" else "Fig. 1, Qmax = 100, CUBIC", fontsize=10)
    axes[0].legend(fontsize=8)
    fig.suptitle("Small segments vs random segments: drops (controls for Fig. 8b)")
    paths = save(fig, out_dir / "control.png")
    cmps = []
    for _, r in df.iterrows():
        cmps.append(info(f"{r['topology']}: {r['series']}" + (", SACK" if r["sack"] else ""),
                         f"{r['goodput_mbps']:.0f} Mbps, FCT {r['fct_ms']:.0f} ms, {r['drops']:.0f} drops "
                         f"({r['nic_drops']:.0f} in host NICs), {r['timeouts']:.0f} timeouts",
                         f"mean payload {r['payload_b']:.0f} B; timeouts with ≥ 3 dup ACKs (a retransmission lost in "
                         f"recovery): {r['many_dupack_share']:.0%}" if r["timeouts"] else
                         f"mean payload {r['payload_b']:.0f} B"))
    return FigureResult(df, paths, cmps, [
        "without SACK, RFC 6582 inflates cwnd by one SMSS (1460 B) per duplicate ACK, i.e. per segment that left "
        "the network, whatever that segment carried: with payloads U[rMin, 1460] the sender injects 1460 / mean "
        "payload times what left during recovery (1.76× for rMin = 200 B); fixed sizes, however small, do not"])
