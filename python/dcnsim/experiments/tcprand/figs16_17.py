"""TCPRand (Lee et al., 2017): Figs. 16–17."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from ...result import jain
from ...sweep import Point
from ..claims import info
from ..framework import FigureResult, _write_csv, read_table
from .common import (
    LINK_DELAY,
    LINUX_MSS,
    RATE,
    REGISTER,
    SERIES,
    SWITCH_DELAY,
    WINDOW_SYNC,
    linux_tcp,
    testbed_verdicts,
)

# ---------------------------------------------------------------- Figs. 16–17

FIG16_DURATIONS = (270, 210, 150, 90, 30)


def fig16_doc(series: Dict[str, Any], scale: float, name: str) -> Dict[str, Any]:
    """Five senders on a 1 GbE star start one flow each 30 s apart with
    durations 270, 210, 150, 90, 30 s (times × ``scale``)."""
    apps = [{"kind": "bulk", "src": i + 1, "dst": 0, "start": f"{30 * i * scale:g}s", "duration": f"{d * scale:g}s"}
            for i, d in enumerate(FIG16_DURATIONS)]
    topo = {"kind": "star", "hosts": 6, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
    return {"name": name, "seed": 1, "stop": f"{270 * scale + 0.01:g}s", "switch_delay": SWITCH_DELAY,
            "topology": topo, "tcp": linux_tcp(series),
            "trace": {"interval": f"{max(0.01, 0.5 * scale):g}s", "flows": True}, "apps": apps}


def _fig16_points(quick: bool) -> List[Point]:
    scale = 1 / 30 if quick else 1.0
    return [Point(f"fig16-{s}-x{scale:.4g}", fig16_doc(SERIES[s], scale, f"fig16-{s}"), None,
                  {"series": s, "scale": scale}) for s in ("C", "CTD")]


def _rates(row):
    # each step over its own length (the trace's last sample is where the
    # run ended, off the grid of the trace's interval)
    fts = read_table(row, "flow_ts").sort_values(["flow_id", "time_s"])
    dt = fts.groupby("flow_id")["time_s"].diff()
    fts["mbps"] = fts.groupby("flow_id")["delivered_bytes"].diff() * 8 / dt / 1e6
    return fts[dt > 0].dropna(subset=["mbps"])


def _analyze_fig16(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save

    fig, axes = new_figure(ncols=2, figsize=(11, 4), sharey=True)
    rows = []
    traces = []
    for ax, (_, r) in zip(axes, summary.iterrows()):
        scale = float(r["scale"])
        ts = _rates(r)
        for fid, g in ts.groupby("flow_id"):
            ax.plot(g["time_s"], g["mbps"], linewidth=0.9, label=f"flow {fid + 1}")
            traces.append(pd.DataFrame({"series": r["series"], "flow": int(fid) + 1, "time_s": g["time_s"],
                                        "mbps": g["mbps"]}))
        ax.set_title(f"({'a' if r['series'] == 'C' else 'b'}) {'CUBIC' if r['series'] == 'C' else 'TCPRand (CTD)'}")
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=7)
        # Jain index among the active flows over the second half of each 30 s phase
        bounds = [30 * i * scale for i in range(10)]
        for k in range(9):
            t0, t1 = bounds[k], bounds[k + 1]
            # the flows the schedule has on for the whole phase: a starved
            # one counts at 0 Mbps (it must lower the index, not drop out)
            active = [i for i, d in enumerate(FIG16_DURATIONS) if i <= k and i + d // 30 >= k + 1]
            w = ts[(ts.time_s > t0 + (t1 - t0) / 2) & (ts.time_s <= t1)]
            means = w.groupby("flow_id")["mbps"].mean().reindex(active, fill_value=0.0)
            rows.append({"series": r["series"], "phase": k + 1, "active_flows": len(active), "start_s": t0,
                         "end_s": t1, "jain": jain(means.values) if len(means) else math.nan,
                         "total_mbps": float(means.sum())})
    axes[0].set_ylabel("throughput (Mbps)")
    fig.suptitle("Fig. 16: flow convergence, five flows starting 30 s apart" + (" (times ÷ 30)" if scale < 1 else ""))
    paths = save(fig, out_dir / "fig16.png")
    df = pd.DataFrame(rows)
    P = df.pivot(index="phase", columns="series", values="jain")
    d = float((P["CTD"] - P["C"]).abs().mean())
    cmps = [REGISTER.judge("fig16-converge", d, note=f"min Jain over the phases: C {P['C'].min():.3f}, "
                           f"CTD {P['CTD'].min():.3f}")]
    # the plotted curves, so a reader can check the plot against numbers
    _write_csv(out_dir / "fig16_traces.csv", pd.concat(traces, ignore_index=True))
    return FigureResult(df, paths, cmps, ["Jain index among active flows over the second half of each phase",
                                          "the plotted throughput of each flow: fig16_traces.csv"])


def _fig17_points(quick: bool) -> List[Point]:
    secs = 2.0 if quick else 10.0
    pts = []
    for s in ("C", "CTD"):
        label = f"fig17-{s}-{secs:g}s"
        topo = {"kind": "star", "hosts": 3, "rate": RATE, "delay": LINK_DELAY, "buffer": "100pkt"}
        doc = {"name": label, "seed": 1, "stop": f"{secs:g}s", "switch_delay": SWITCH_DELAY, "topology": topo,
               "tcp": linux_tcp(SERIES[s]), "trace": {"interval": "1ms", "flows": True},
               "apps": [{"kind": "bulk", "src": h, "dst": 0, "duration": f"{secs:g}s"} for h in (1, 2)]}
        pts.append(Point(label, doc, None, {"series": s}))
    return pts


def _analyze_fig17(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ...plots import new_figure, save

    fig, axes = new_figure(nrows=2, figsize=(9, 5.5), sharex=True)
    rows = []
    traces = []
    for ax, (_, r) in zip(axes, summary.iterrows()):
        fts = read_table(r, "flow_ts")
        w = fts.pivot(index="time_s", columns="flow_id", values="cwnd_bytes")
        w = w[w.index >= 0.2]  # past slow start
        for fid in w.columns:
            ax.plot(w.index, w[fid] / LINUX_MSS, linewidth=0.8, label=f"flow {fid + 1}")
            traces.append(pd.DataFrame({"series": r["series"], "flow": int(fid) + 1, "time_s": w.index,
                                        "cwnd_segments": (w[fid] / LINUX_MSS).to_numpy()}))
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
    # Synchronized windows cut together; a negative correlation is windows
    # taking turns, not less synchrony, so the correlation is shown, not judged.
    cmps = [info("cwnd correlation of the two flows, CTD vs C",
                 f"{df.loc['CTD', 'cwnd_correlation']:.2f} vs {df.loc['C', 'cwnd_correlation']:.2f}",
                 "Pearson correlation of the two cwnd traces (1 ms samples): near +1 when they rise and cut "
                 "together, below 0 when they take turns"),
            # one run each: no interval
            REGISTER.judge("fig17-async", {s: (float(df.loc[s, "joint_cut_share"]), math.nan) for s in ("C", "CTD")})]
    _write_csv(out_dir / "fig17_traces.csv", pd.concat(traces, ignore_index=True))
    return FigureResult(df.reset_index(), paths, testbed_verdicts(cmps, WINDOW_SYNC),
                        ["the plotted windows of each flow: fig17_traces.csv"])
