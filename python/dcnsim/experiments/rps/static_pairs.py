"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, 2016): Figs. 2–4 (static pairs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

from ...sweep import Point
from ..framework import Comparison, FigureResult, beyond
from .common import (
    ECMP,
    RPS,
    SCHEME_NAMES,
    SINGLE,
    _fmt_series,
    _loss_note,
    _static_points,
    _unfinished_notes,
    claim,
    errorbar_plot,
    frame,
    ordering_claim,
    paired,
    tcp,
    tidy,
)

#: Fig. 3's extra series: RPS with fast retransmit switched off (a
#: duplicate-ACK threshold no window reaches). With 64 KB windows the static
#: case loses no packet, so every fast retransmit RPS makes is spurious
#: (reordering, not loss); this series shows what RPS gives without them.
#: The verdicts stay with plain 3-dupACK NewReno, the paper's TCP.
RPS_NO_FR = "RPS, fast retransmit off"
NO_FR_THRESHOLD = 1_000_000

# ---------------------------------------------------------------- Figs. 2–4 (static pairs)


def _scheme_plot(t, fig: int, ylabel: str, title: str, out_dir: Path, order=SCHEME_NAMES, **kw: Any) -> List[Path]:
    """Figs. 2–7: one errorbar series per scheme against the number of long flows."""
    return errorbar_plot(t, "n_long", "scheme", xlabel="long flows", ylabel=ylabel, title=f"Fig. {fig}: {title}",
                         path=out_dir / f"fig{fig}.png", order=order, **kw)


def _fig3_points(quick: bool) -> List[Point]:
    """The static points of Figs. 2–4 and RPS with fast retransmit off."""
    return _static_points(quick) + _static_points(quick, [(RPS_NO_FR, "rpsnofr", {"mode": "rps"})],
                                                  tcp_table=tcp(dupack_threshold=NO_FR_THRESHOLD))


def _growth_claim(diffs, quantity: str, paper) -> Comparison:
    """"The advantage grows with n": the gain at the largest n exceeds the one at the smallest."""
    lo, hi = min(diffs), max(diffs)
    grow = diffs[hi][0] - diffs[lo][0]
    spread = diffs[hi][1] + diffs[lo][1]
    return claim(f"{quantity} at n = {lo} vs n = {hi}", f"{diffs[lo][0]:.3g} → {diffs[hi][0]:.3g} ms", paper,
                 grow > spread, f"the gain at n = {hi} exceeds the one at n = {lo} by more than the "
                 "sum of their 95 % CIs", partly=grow > 0, partly_rule="larger, within the CIs")


def _rps_vs_others(d, metric: str, what: str, paper: str, ecmp: str, sign: int, unit: str) -> List[Comparison]:
    """RPS against single-path routing (the paper's comparison) and, beyond
    the paper (it never compares with ECMP), against ECMP, paired by run."""
    return [
        ordering_claim(f"RPS vs single path: {what}", paired(d, metric, RPS, SINGLE), paper, sign,
                       "RPS − single path", unit),
        beyond(ordering_claim(f"RPS vs ECMP: {what}", paired(d, metric, RPS, ECMP), ecmp, sign,
                              "RPS − ECMP", unit), series=f"{RPS}; {ECMP}"),
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
    names = SCHEME_NAMES + [RPS_NO_FR]
    figs = _scheme_plot(t, 3, "short-flow FCT (ms)", "static pairs, FCT of the 200 KB flow", out_dir, order=names)
    d1 = df[df["n_long"] >= 1]
    diffs = paired(d1, "short_fct_ms", SINGLE, RPS)
    cmp = _rps_vs_others(d1, "short_fct_ms", "short-flow FCT", "RPS smaller", "RPS smaller", -1, "ms")
    grows = "advantage grows with the number of long flows"
    if len(diffs) >= 2:
        cmp.append(_growth_claim(diffs, "FCT advantage of RPS (single − RPS)", grows))
    # the variant is ours: its verdicts are shown, not tallied
    ours: List[Comparison] = []
    if RPS_NO_FR in set(d1["scheme"]):
        ours.append(ordering_claim(f"{RPS_NO_FR} vs single path: short-flow FCT",
                                   paired(d1, "short_fct_ms", RPS_NO_FR, SINGLE), "RPS smaller", -1,
                                   f"{RPS_NO_FR} − single path", "ms"))
        nofr = paired(d1, "short_fct_ms", SINGLE, RPS_NO_FR)
        if len(nofr) >= 2:
            ours.append(_growth_claim(nofr, f"FCT advantage of {RPS_NO_FR} (single − it)", grows))
    cmp += [beyond(c, series=RPS_NO_FR) for c in ours]
    by = d1.groupby("scheme")[["drops", "fast_retransmits", "timeouts"]].sum()
    losses = "; ".join(f"{s}: {int(r.fast_retransmits)} fast retransmits, {int(r.drops)} drops, {int(r.timeouts)} "
                       "timeouts" for s, r in by.iterrows())
    notes = _unfinished_notes(df) + ["means per n: " + _fmt_series(t, names, "{:.1f}"),
                                     f"all runs with n ≥ 1, summed — {losses} (with no drop, every fast retransmit "
                                     "is spurious)"]
    return FigureResult(t, figs, cmp, notes)


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
    one_path = df[df["scheme"] == SINGLE]
    n_ooo = int(one_path["ooo_lossfree"].sum())
    cmp.append(claim("single path: out-of-order arrivals in flows that lost no packet", n_ooo,
                     "single-path forwarding prevents out-of-order delivery", n_ooo == 0,
                     "agrees if 0 in every run (one FIFO path per flow: only a loss leaves a hole), differs otherwise",
                     note="the out-of-order % counts every arrival above a hole, so losses (at S0's 100-packet NIC "
                          "queue when two flows start there) count too, as a receiver-side count in ns-3 would"))
    ecmp_ooo = int(df[df["scheme"] == ECMP]["ooo_lossfree"].sum())
    cmp.append(beyond(claim("ECMP: out-of-order arrivals in flows that lost no packet", ecmp_ooo,
                            "one hashed path per flow prevents out-of-order delivery", ecmp_ooo == 0,
                            "agrees if 0 in every run, differs otherwise"), series=ECMP))
    return FigureResult(t, figs, cmp, ["means per n: " + _fmt_series(t, SCHEME_NAMES, "{:.1f}")])
