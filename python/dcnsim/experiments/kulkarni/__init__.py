"""Kulkarni, "Incast-free TCP for data center networks" (PhD dissertation,
Auburn University, 2012): Figs. 3.8–3.21 (the incast model against
simulation) and Figs. 4.1–4.11 (incast countermeasures).

``dcnsim reproduce kulkarni`` runs every Kulkarni row of EXPERIMENTS.md.
The dissertation's claims, each judged once, are its register
(``claims.toml``, :data:`.common.REGISTER`); the figures only measure.
docs/kulkarni.md explains the setup, every choice the dissertation leaves
open and every difference from its results; the choices are also in
:data:`SETTINGS` and printed with the results.

Setup (the dissertation's Fig. 3.7 and Table 3.1): one switch, a client
(host 0) and n servers (hosts 1..n) on a star; 1 Gbps links with 50 µs
propagation delay each (RTT ≈ 200 µs + serialization); a drop-tail buffer
of 32 packets per switch port (Table 3.1's "32 KB" with S = 1 KB, as ns-2's
queue-limit counts packets; the byte reading runs beside, in figures of
ours); the client reads blocks striped over the n servers,
one SRU of 256 KB from each, and requests the next block only when the whole
block has arrived (``sync_reads``); each request leaves after U[0, 20 µs];
NewReno with 1 KB segments (mss 1024 B + 40 B TCP/IP header), receive window
1000 segments, dupthresh 3, slow start, RTOmin 200 ms; no timestamps, as
ns-2's agents (Karn: a backed-off RTO lasts until a fresh sample, so it
carries into the next block).

Chapter 4 says its simulations use Table 3.1 "unless noted"; §4.1.1 notes
100 µs links and a 20-segment receive window, and §§4.1.2–4.2 run "the
cluster based storage system discussed in Subsection 4.1.1", so Figs.
4.1–4.6 use 100 µs links and rwnd 20 segments (Figs. 4.3 and 4.6 also show
the Table 3.1 links and window); Figs. 4.7–4.10 cap the window at 32 KB
and Fig. 4.11 at 1000 segments, as the text says.

Instead of 40 s of simulated time per trial, each point transfers a fixed
amount of data: ``max(MIN_BLOCKS, DATA_BYTES / (n·SRU))`` blocks (512 MiB
and at least 100 blocks; ``--quick``: 32 MiB and at least 20 blocks), so a
single early timeout is diluted the same way at every n and every collapsed
point still averages over ≥ 100 blocks. Each point runs on the five seeds of
:data:`.common.SEEDS` (``--quick``: one), and its value is their mean.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Tuple

from ...sweep import Point
from ..framework import Figure, Paper, Setting, in_subdir
from ..paper import FigureResult
from .common import (
    DATA_BYTES,
    DSR_CWND,
    DSR_MSS,
    HIST_RWND,
    INIT_CWND,
    MIN_BLOCKS,
    MODEL_NAMES,
    NIC_BUFFER,
    ONSET_FRACTION,
    PROBRETX_PERIOD,
    QUICK_DATA_BYTES,
    QUICK_MIN_BLOCKS,
    QUICK_SEEDS,
    REGISTER,
    SEEDS,
    SEG_SIZES,
    KConfig,
    point,
)
from .fig4_1 import _analyze_41, _fig41_points
from .fig4_2 import _analyze_42, _fig42_points
from .fig4_11 import (
    _analyze_411,
    _fig411_points,
)
from .figs4_3_6 import (
    _analyze_43,
    _analyze_44,
    _analyze_45,
    _analyze_46,
    _fig43_points,
    _fig44_points,
    _fig45_points,
    _fig46_points,
)
from .figs4_7_10 import _analyze_hist, _hist_points
from .goodput_ch3 import _ch3_points, _model_fig
from .model_ch3 import _buffers_points, _srus_points, _sweep_fig

__all__ = ["PAPER"]

# ---------------------------------------------------------------- the buffer in bytes, beside

#: the variant shown beside the tallied packet-counted buffer
BYTES_SETTING = ("switch buffer counted in bytes: 32 KB = 32,768 B (30 packets of 1,064 B; buffer sweeps "
                 "likewise in KiB), where the tallied runs hold 32 packets")


def _in_bytes(points_fn):
    """The same points with the buffer counted in bytes (deterministic hosts
    only: the host_jitter panel is our extra already)."""
    def fn(quick: bool) -> List[Point]:
        out = []
        for p in points_fn(quick):
            if p.params.get("host_jitter", "0s") != "0s":
                continue
            cfg = KConfig(**{f.name: p.params[f.name] for f in dataclasses.fields(KConfig)})
            out.append(point(cfg.with_(buffer_unit="KiB"), int(p.params["n"]), quick, p.seed or 1))
        return out
    return fn


def _bytes_analysis(*analyses):
    """The tallied figures' analyses on the byte-counted runs, their plots
    under ``buffer-bytes/``; their rows' buffers are in KB, not packets
    (the quantities named "per buffer (packets…)" beside values in KiB)."""
    inner = in_subdir("buffer-bytes", *analyses, note="buffer counted in bytes")

    def analyze(summary: Any, out_dir: Path) -> FigureResult:
        res = inner(summary, out_dir)
        res.comparisons = [dataclasses.replace(c, quantity=c.quantity.replace("per buffer (packets", "per buffer (KiB"))
                           for c in res.comparisons]
        return res
    return analyze


# ---------------------------------------------------------------- the paper


@dataclass
class KFigure(Figure):
    """A figure (or a group of figures sharing one plot) with extra ids
    (``--figure 3.14`` selects the group 3.13–3.16) and an explicit file stem."""

    aliases: Tuple[str, ...] = ()
    stem: str = ""

    @property
    def slug(self) -> str:  # type: ignore[override]
        return self.stem or Figure.slug.fget(self)  # type: ignore[attr-defined]

    def matches(self, wanted: str) -> bool:
        if Figure.matches(self, wanted):
            return True
        w = re.sub(r"^(fig(ure)?\.?\s*)", "", wanted.strip().lower()).replace("_", ".")
        # "3.8 bytes" as the list writes it, for the alias 3.8-bytes
        return {w, re.sub(r"\s+", "-", w)} & {self.id.lower(), *(a.lower() for a in self.aliases)} != set()


SETTINGS = [
    Setting("trial length", f"{DATA_BYTES // 2**20} MiB of data and at least {MIN_BLOCKS} blocks per point "
            f"(quick: {QUICK_DATA_BYTES // 2**20} MiB, ≥ {QUICK_MIN_BLOCKS} blocks)",
            "the dissertation ran 40 s per trial; a fixed amount of data dilutes start-up (slow start, the first "
            "overflow) equally at every n and gives every collapsed point ≥ 100 blocks to average over"),
    Setting("seeds", f"{len(SEEDS)} per simulated point (quick: {len(QUICK_SEEDS)}); a point's value is the mean "
            "over its seeds, a claim's interval (where its criterion takes one) the Student-t 95 % interval over the "
            "seeds' own values", "a seed draws the request jitter and the order of equal-time events, and at small n "
            "that order can decide a point (two servers below or above half of one): a verdict on one seed's run can "
            "be that seed's chance"),
    Setting("switch buffer unit", "packets: 32 KB = 32 packets (B/S with S = 1 KB); the sweeps 16–256 packets",
            "ns-2's DropTail counts packets (queue-limit; bytes need queue_in_bytes_, which the dissertation never "
            "mentions) and Table 3.1 gives B = 32 KB beside S = 1 KB; for Figs. 4.7–4.10's small segments this "
            "means 32 packets, not 32 KB, and the unit decides the figure, so both are shown",
            "bytes (32,768 B = 30 packets of 1,064 B) for Figs. 3.8–3.12/3.21, 3.13–3.16, 4.1, 4.7–4.10 and 4.11"),
    Setting("TCP timestamps", "off (Karn: one timed segment per RTT; a backed-off RTO is kept until a valid "
            "sample)", "ns-2's default (timestamps_ false); its newack() ends the backoff only when the timed "
            "segment is acked, so a flow that timed out at a block's end starts the next block backed off"),
    Setting("initial window", f"{INIT_CWND} segments", "ns-2's windowInit_ of the time; connections persist "
            "across blocks, so it matters only for the first block"),
    Setting("delayed ACKs / SACK", "off / off", "ns-2's TCPSink and NewReno agent"),
    Setting("slow start", "one segment per new ACK (abc_limit = 1)", "ns-2's TcpAgent::opencwnd adds one packet "
            "per new ACK below ssthresh, whatever the ACK covers; dcnsim's default is RFC 3465's byte counting with "
            "L = 2 SMSS, which grows twice as fast on a cumulative ACK that ends a hole"),
    Setting("Limited Transmit (RFC 3042)", "off", "the dissertation's account of its timeouts (a sender whose window "
            "got through but saw fewer than 3 duplicate ACKs times out, §3; DSR exists to make fast retransmit "
            "possible where 'timeouts are the only option', §4.3) describes a TCP without it, though ns-2's "
            "singledup_ defaults to 1", "on, for default TCP and DSR in Fig. 4.11"),
    Setting("L2 framing overhead", "0 B; 40 B TCP/IP header (1064 B packets)", "ns-2 packets carry no framing"),
    Setting("host NIC queue", NIC_BUFFER, "dcnsim's default; the dissertation gives only the switch buffer"),
    Setting("host timing noise (host_jitter)", "0 (deterministic, like ns-2)",
            "ns-2 is deterministic apart from the 20 µs request jitter",
            "host_jitter 1 µs as a separate panel in Figs. 3.8–3.12 and 3.21"),
    Setting("Chapter 4 system", "100 µs links and rwnd 20 segments for Figs. 4.1–4.6",
            "§4.1.1 sets them for Fig. 4.1 and §§4.1.2–4.2 run 'the cluster based storage system discussed in "
            "Subsection 4.1.1'", "Table 3.1's 50 µs links and 1000-segment window in Figs. 4.3 and 4.6"),
    Setting("Figs. 4.7–4.10 window, segment sizes", f"rwnd {HIST_RWND}; segments "
            + "/".join(map(str, SEG_SIZES)) + " B (40 B headers)", "the text caps the window at 32 KB; the sizes "
            "plotted are not stated"),
    Setting("probabilistic retransmission", f"thread every {PROBRETX_PERIOD}; retransmits the highest "
            "unacknowledged segment (probretx_target = highest)", "the dissertation's wording and its 20 µs "
            "context-switch delay"),
    Setting("DSR (Fig. 4.11)", f"MSS_dsr {DSR_MSS}, cwnd_dsr {DSR_CWND}, MSS 1 KB, rwnd 1000 segments",
            "as the dissertation; header compression is optional there", "DSR with header compression (4 B)"),
    Setting("onset of collapse", f"first n from which goodput stays below {ONSET_FRACTION:.0%} of the best goodput "
            "with fewer servers", "the dissertation gives no definition; a dip that recovers (NewReno's port "
            "blackout at n = 2) is not an onset"),
    Setting("model inputs", "p_c, p_r, ζ, RTT (mean final SRTT), T0 (mean stall per RTO), L from each point's "
            "own tables (dcnsim.models.fromrun)", "the dissertation's 'analysis programs'; see docs/models.md"),
]

SETUP = (
    "Star topology (the dissertation's Fig. 3.7): client host 0 and servers 1..n on one switch; 1 Gbps links, "
    "50 µs each way per link; 32 KB drop-tail buffer per switch port, counted as 32 packets as ns-2's queue-limit; synchronized reads of n × 256 KB blocks "
    "(one SRU per server; the next block is requested when the last byte of this one has arrived), request "
    "jitter U[0, 20 µs]; NewReno, 1 KB segments (mss 1024 B + 40 B headers), rwnd 1000 segments, dupthresh 3, "
    "slow start, RTOmin 200 ms (Table 3.1). Chapter 4: 100 µs links and rwnd 20 segments unless stated. "
    f"Each point on {len(SEEDS)} seeds (quick: {len(QUICK_SEEDS)}), its value the mean over them. "
    "dcnsim reads KB as 1024 B where it counts bytes."
)

_CH3_MODELS = (
    ("3.8", {"full_mbps": MODEL_NAMES["full"]}, "Fig. 3.8: Full model vs simulation", "fig3_8"),
    ("3.9", {"td_mbps": MODEL_NAMES["td"]}, "Fig. 3.9: TD-only model vs simulation", "fig3_9"),
    ("3.10", {"ibtt_mbps": MODEL_NAMES["ibtt"]}, "Fig. 3.10: impact of IBTT", "fig3_10"),
    ("3.11", {"abtt_mbps": MODEL_NAMES["abtt"]}, "Fig. 3.11: impact of ABTT", "fig3_11"),
    ("3.12", {"split_mbps": MODEL_NAMES["split"], "full_mbps": MODEL_NAMES["full"]},
     "Fig. 3.12: Split model vs simulation (Full model for reference)", "fig3_12"),
    ("3.21", {"padhye_mbps": MODEL_NAMES["padhye"]}, "Fig. 3.21: n × Padhye et al. vs simulation", "fig3_21"),
)

PAPER = Paper(
    key="kulkarni",
    title="Kulkarni, Incast-free TCP (dissertation, Auburn 2012)",
    citation="S. Kulkarni, \"Incast-free TCP for Data Center Networks\", PhD dissertation, Auburn University, 2012.",
    docs="docs/kulkarni.md",
    setup=SETUP,
    quick_setup=(f"{QUICK_DATA_BYTES // 2**20} MiB a point (at least {QUICK_MIN_BLOCKS} blocks) on "
                 f"{len(QUICK_SEEDS)} seed instead of {len(SEEDS)}, at fewer n and segment sizes (the smallest "
                 "128 B): the settings table gives each value."),
    settings=SETTINGS,
    series=("simulation", "models", "default TCP", "RTOmin 200 µs", "probabilistic retransmission", "DSR"),
    variants=("Table 3.1 links", "host_jitter", "Limited Transmit", "our 256 KB onset"),
    register=REGISTER,
    figures=[
        KFigure("3.8", "Full model (eq. 3.39) vs simulation", _ch3_points,
                _model_fig("3.8", {"full_mbps": MODEL_NAMES["full"]}, "Fig. 3.8: Full model vs simulation",
                           "fig3_8"),
                "models the tendency; underestimates throughput at large n; predicts the drop near 3 servers "
                "while ns-2 steps near 4 and drops near 7", stem="fig3_8"),
        KFigure("3.9", "TD-only model (eq. 3.21) vs simulation", _ch3_points,
                _model_fig("3.9", {"td_mbps": MODEL_NAMES["td"]}, "Fig. 3.9: TD-only model vs simulation", "fig3_9"),
                "far above simulation: timeouts cause the collapse", stem="fig3_9"),
        KFigure("3.10", "Full model with IBTTs only vs simulation", _ch3_points,
                _model_fig("3.10", {"ibtt_mbps": MODEL_NAMES["ibtt"]}, "Fig. 3.10: impact of IBTT", "fig3_10"),
                "IBTTs matter most at small n; overestimated for 3–8 servers; no match beyond 8", stem="fig3_10"),
        KFigure("3.11", "Full model with ABTTs only vs simulation", _ch3_points,
                _model_fig("3.11", {"abtt_mbps": MODEL_NAMES["abtt"]}, "Fig. 3.11: impact of ABTT", "fig3_11"),
                "ABTTs have little or no impact below 10 servers and dominate at large n", stem="fig3_11"),
        KFigure("3.12", "Split model (eq. 3.40) vs simulation", _ch3_points,
                _model_fig("3.12", {"split_mbps": MODEL_NAMES["split"], "full_mbps": MODEL_NAMES["full"]},
                           "Fig. 3.12: Split model vs simulation (Full model for reference)", "fig3_12"),
                "Split fits best; IBTTs are whole-window losses for n ≤ 3 and too-few-dup-ACK losses above",
                stem="fig3_12"),
        KFigure("3.13–3.16", "model and simulation with 16/32/64/128 KB switch buffers (read as packets)", _buffers_points,
                _sweep_fig("buffer"), "larger buffer → later collapse, higher goodput",
                aliases=("3.13", "3.14", "3.15", "3.16", "3.13-3.16", "3.13-16"), stem="fig3_13-16"),
        KFigure("3.17–3.20", "model and simulation with 64/128/256/512 KB SRUs", _srus_points,
                _sweep_fig("sru"), "larger SRU → higher goodput after collapse, same onset",
                aliases=("3.17", "3.18", "3.19", "3.20", "3.17-3.20", "3.17-20"), stem="fig3_17-20"),
        KFigure("3.21", "n × Padhye et al. vs simulation", _ch3_points,
                _model_fig("3.21", {"padhye_mbps": MODEL_NAMES["padhye"]}, "Fig. 3.21: n × Padhye et al. vs "
                           "simulation", "fig3_21"),
                "fine at small n, orders of magnitude too high at large n", stem="fig3_21"),
        KFigure("4.1", "buffer size sweep (rwnd 20 segments, 100 µs links)", _fig41_points, _analyze_41,
                "doubling the buffer doubles the servers before collapse", stem="fig4_1"),
        KFigure("4.2", "SRU size sweep, 32 KB buffer (read as 32 packets)", _fig42_points, _analyze_42,
                "at 7 servers 1 MB SRUs give orders of magnitude more than 256 KB", stem="fig4_2"),
        KFigure("4.3", "RTOmin 200 ms vs 200 µs", _fig43_points, _analyze_43,
                "200 µs far better, with a drop in peak performance past 40 servers", stem="fig4_3"),
        KFigure("4.4", "probabilistic retransmission: p sweep", _fig44_points, _analyze_44,
                "larger p improves goodput by orders of magnitude for n > 8; p = 0.001 best", stem="fig4_4"),
        KFigure("4.5", "probabilistic retransmission: drop ratio", _fig45_points, _analyze_45,
                "too large p adds congestion; p = 0.001 gives high throughput at a low drop ratio", stem="fig4_5"),
        KFigure("4.6", "probabilistic retransmission (p = 0.001) vs RTOmin 200 ms / 200 µs", _fig46_points,
                _analyze_46, "beats default TCP always, beats RTOmin 200 µs for n > 10", stem="fig4_6"),
        KFigure("4.7–4.10", "timeouts vs segment size, n = 5, 10, 20, 50", _hist_points, _analyze_hist,
                "smaller segments → fewer timeouts; more packets must be lost for a timeout",
                aliases=("4.7", "4.8", "4.9", "4.10", "4.7-4.10", "4.7-10"), stem="fig4_7-10"),
        KFigure("4.11", "Dynamic Segment Resizing vs default TCP", _fig411_points, _analyze_411,
                "small penalty for n < 3, better for n > 3", stem="fig4_11"),
        # the buffer counted in bytes (setup unknown: shown beside, not tallied)
        KFigure("3.8–3.12, 3.21 bytes", "Figs. 3.8–3.12 and 3.21 with a 32,768 B buffer", _in_bytes(_ch3_points),
                _bytes_analysis(*(_model_fig(f, c, t + " (buffer in bytes)", st) for f, c, t, st in _CH3_MODELS)),
                "as Figs. 3.8–3.12, 3.21", aliases=("3.8-bytes", "bytes"), stem="fig3_8-12_21_bytes",
                setting=BYTES_SETTING),
        KFigure("3.13–3.16 bytes", "16/32/64/128 KiB switch buffers", _in_bytes(_buffers_points),
                _bytes_analysis(_sweep_fig("buffer")), "larger buffer → later collapse, higher goodput",
                aliases=("3.13-bytes", "bytes"), stem="fig3_13-16_bytes", setting=BYTES_SETTING),
        KFigure("4.1 bytes", "buffer size sweep in KiB (rwnd 20 segments, 100 µs links)", _in_bytes(_fig41_points),
                _bytes_analysis(_analyze_41), "doubling the buffer doubles the servers before collapse",
                aliases=("4.1-bytes", "bytes"), stem="fig4_1_bytes", setting=BYTES_SETTING),
        KFigure("4.7–4.10 bytes", "timeouts vs segment size with a 32,768 B buffer", _in_bytes(_hist_points),
                _bytes_analysis(_analyze_hist), "smaller segments → fewer timeouts; more packets must be lost for a "
                "timeout", aliases=("4.7-bytes", "bytes"), stem="fig4_7-10_bytes", setting=BYTES_SETTING),
        KFigure("4.11 bytes", "Dynamic Segment Resizing vs default TCP with a 32,768 B buffer",
                _in_bytes(_fig411_points), _bytes_analysis(_analyze_411), "small penalty for n < 3, better for n > 3",
                aliases=("4.11-bytes", "bytes"), stem="fig4_11_bytes", setting=BYTES_SETTING),
    ],
)
