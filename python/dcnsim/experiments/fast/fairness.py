"""FaST (Hwang & Yoo, 2014): Fig. 11 (fairness)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from ...sweep import Point
from ..claims import judge_spec
from ..framework import FigureResult, compare_number, read_table, seed_label
from .common import (
    DELAY,
    HOST_RATE,
    K_1G,
    QUICK_SEEDS,
    REGISTER,
    SEEDS,
    SERIES,
    SERIES_NAMES,
    TOR_BUFFER,
    _at,
    _doc,
    as_run,
    tcp,
)

# ---------------------------------------------------------------- Fig. 11 (fairness)

FIG11_FLOWS = 45


def _fig11_points(quick: bool) -> List[Point]:
    """Each series on every seed of the run (the seed draws the hosts'
    jitter, so one 10 s run is one sample of the shares, not their law)."""
    dur = 2.0 if quick else 10.0
    pts = []
    topo = {"kind": "star", "hosts": FIG11_FLOWS + 1, "rate": HOST_RATE, "delay": DELAY, "buffer": TOR_BUFFER,
            "ecn_k": K_1G, "nic_buffer": "100pkt"}
    for name, key, keys in SERIES:
        apps = [{"kind": "bulk", "src": h, "dst": 0, "duration": f"{dur:g}s"} for h in range(1, FIG11_FLOWS + 1)]
        for seed in QUICK_SEEDS if quick else SEEDS:
            label = seed_label(f"fair45-{key}-{dur:g}s", seed)
            doc = as_run(_doc(label, topo, tcp(keys), apps, dur + 1.0))
            pts.append(Point(label, {**doc, "seed": seed}, seed, {"series": name, "duration_s": dur, "seed": seed}))
    return pts


def _analyze_fig11(summary, out_dir: Path) -> FigureResult:
    import pandas as pd

    from ... import jain
    from ...plots import new_figure, save, series_colors

    rows = []
    for _, r in summary.iterrows():
        f = read_table(r, "flows")
        f = f[f["role"] == "bulk"].sort_values("src")
        seed = int(r["seed"]) if "seed" in r and r["seed"] == r["seed"] else 1
        for i, (_, fr) in enumerate(f.iterrows()):
            rows.append({"series": r["series"], "seed": seed, "worker": i + 1, "src": int(fr["src"]),
                         "throughput_mbps": float(fr["goodput_bps"]) / 1e6, "timeouts": int(fr["timeouts"])})
    df = pd.DataFrame(rows)
    # Jain's index of each run, then the mean over the seeds (the paper's
    # one number read as the law, each seed one sample of it).
    by_run = df.groupby(["series", "seed"])["throughput_mbps"].apply(jain)
    per_seed = {s: list(by_run[s]) for s in SERIES_NAMES}
    j = {s: sum(v) / len(v) for s, v in per_seed.items()}

    def spread(s: str) -> str:
        v = per_seed[s]
        return f"per seed {min(v):.4f}–{max(v):.4f} ({len(v)} seeds)" if len(v) > 1 else "one seed"

    colors = series_colors(SERIES_NAMES)
    first = int(df["seed"].min())
    fig, ax = new_figure(figsize=(9, 4.2))
    fa = _at(df, series="FaST", seed=first)
    ax.bar(fa["worker"], fa["throughput_mbps"], color=colors["FaST"], alpha=0.8, label=f"FaST (Jain {j['FaST']:.4f})")
    for s, m in (("FaST, eq. 9 literal", "x"), ("DCTCP", "o"), ("NewReno", "^")):
        d = _at(df, series=s, seed=first)
        ax.plot(d["worker"], d["throughput_mbps"], marker=m, linestyle="none", color=colors[s], markersize=4,
                label=f"{s} (Jain {j[s]:.4f})")
    ax.set_xlabel("worker (45 long flows into one 1 Gbps port, one rack)")
    ax.set_ylabel("long-term throughput (Mbps)")
    ax.set_ylim(0, float(df["throughput_mbps"].max()) * 1.45)
    ax.legend(loc="upper center", fontsize=8, ncol=2)
    n_seeds = len(per_seed["FaST"])
    seeds_note = f"seed {first}'s run; Jain: the mean over {n_seeds} seeds" if n_seeds > 1 else f"seed {first}"
    ax.set_title(f"Fig. 11: throughput of 45 long flows over {summary['duration_s'].iloc[0]:g} s ({seeds_note})")
    paths = save(fig, out_dir / "fig11.png")
    crit = REGISTER["fig11-jain"].criterion
    others = ", ".join(f"{s} {j[s]:.4f}: {judge_spec(crit, j[s])[0]}" for s in ("NewReno", "DCTCP"))
    cmps = [REGISTER.judge("fig11-jain", j["FaST"],
                           note=f"{spread('FaST')}; the same criterion on the other protocols: {others}")]
    cmps += [compare_number(f"Jain's fairness index, 45 {s} flows", j[s], None, fmt=".4f", note=spread(s))
             for s in SERIES_NAMES if s != "FaST"]
    return FigureResult(df, paths, cmps, ["a rack of the paper's topology has 20 servers, so the 45 senders and "
                                          "the receiver share one 46-port ToR (1 Gbps, 25 µs, 100 KB, K = 20)",
                                          "Jain's index of each seed's run, then their mean (the bars: the first "
                                          "seed's run)"])
