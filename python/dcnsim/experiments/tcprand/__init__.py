"""TCPRand (Lee, Lee, Lee, Jung & Lee, Computer Networks 129, 2017):
randomizing the TCP payload size against the TCP outcast problem.

``dcnsim reproduce tcprand`` runs the TCPRand rows of EXPERIMENTS.md: the
offline enqueue-probability experiment (Fig. 5), fairness and total goodput
on the Fig. 1 fat-tree (Figs. 8a–c), timeouts (Fig. 9), the 8-ary fat-tree
(Fig. 10), the testbed topology (Fig. 12), the microscopic drop-run / timeout /
retransmission analysis (Figs. 13, 14), incast (Fig. 15), convergence and cwnd
traces (Figs. 16–17), plus each implicit setting varied on its own. Fig. 11
(FCT under Poisson web-search / data-mining load) lives in :mod:`.fct`
(its ``FIGURES`` list is inserted here). docs/tcprand.md explains the setup, every choice the paper leaves
open and every difference from its results.

Fig. 1 (``fig1_doc``): a k = 4 fat-tree, receiver R = host 0, senders
S1..S15 = hosts 1..15, one long flow each: F1 (host 1, same edge switch as
R) is 2 hops away, F2:3 (hosts 2, 3, same pod) 4 hops, F4:15 (other pods)
6 hops. 1 Gbps, drop-tail queues of Qmax packets, MSS 1460 B + 40 B of
headers (ns-3's TCP sends no timestamps; the testbed figures use Linux's
1448 + 52 B), RTOmin 2 ms, 25 µs per switch (the paper's "25 ms" is a typo
for the 25 µs of its reference), ECMP. The testbed figures (12–14, 17) are
simulated and shown but kept out of the tally ("testbed not modelled").

Every comparison carries its criterion (the framework's ``criterion``
column): what our number must satisfy for the verdict it gets.
"""

from __future__ import annotations

import copy
from typing import List

from ...sweep import Point
from ..framework import Figure, Paper, Setting, in_subdir
from .background import (
    _analyze_fig8c,
    _fig8c_points,
)
from .common import (
    DURATION_S,
    FIG8_SEEDS,
    HEADER,
    LINK_DELAY,
    LINUX_HEADER,
    LINUX_MSS,
    MSS,
    PRESETS,
    QUICK_DURATION_S,
    QUICK_SEEDS,
    REGISTER,
    RTO_MIN,
    SEEDS,
    SERIES,
    SWITCH_DELAY,
    TESTBED_NOT_MODELLED,
)
from .control import QUICK_STAR_MB, STAR_MB
from .control import _analyze as _analyze_control
from .control import _points as _control_points
from .drop_runs import (
    _analyze_fig13,
    _fig13_points,
)
from .fairness import (
    _analyze_fig8a,
    _analyze_fig8b,
    _analyze_fig9,
    _fig8_points,
)
from .fattree import (
    _analyze_fig10,
    _fig10_points,
)
from .fct import FIGURES as FCT_FIGURES
from .figs16_17 import (
    _analyze_fig16,
    _analyze_fig17,
    _fig16_points,
    _fig17_points,
)
from .incast import (
    _analyze_fig15,
    _fig15_points,
)
from .microscopic import (
    _analyze_fig14,
    _fig14_points,
)
from .model import _analyze_fig5, _no_points
from .seeds import _analyze as _analyze_seeds
from .seeds import _points as _seeds_points
from .settings import _analyze_settings, _settings_points
from .testbed import _analyze_fig12, _fig12_points

__all__ = ["PAPER"]

# ---------------------------------------------------------------- the other packet sizes, beside

#: The paper states MSS 1460 (§5.1) and ns-3's TCP of its time sent no
#: options: the tally is under 1460 + 40 B. Which input port loses the
#: drop-tail race at R's edge switch hinges on the ACKs' serialization time
#: (docs/tcprand.md, "The outcast in ns-3 3.37"), so every simulated figure
#: the header can touch runs again with 1448 + 52 B (a TCP with
#: timestamps), and the register shows the whole tally under it beside the
#: paper's ([[beside]] in claims.toml) — never a per-row choice.
#: what the 1448 + 52 B variant's plots say in their titles
H52_NOTE = f"{LINUX_MSS} + {LINUX_HEADER} B segments"
HEADERS_52 = (f"{LINUX_MSS} + {LINUX_HEADER} B segments (a TCP with timestamps) instead of {MSS} + {HEADER} B: "
              "the input-port race flips with the packet sizes")


def _with_headers_52(points_fn):
    """The same points with 1448 B of payload and 52 B of headers (UDP
    background unchanged)."""
    def fn(quick: bool) -> List[Point]:
        out = []
        for p in points_fn(quick):
            doc = copy.deepcopy(p.scenario)
            doc["tcp"].update({"mss": LINUX_MSS, "header": LINUX_HEADER})
            label = f"{p.label}-h{LINUX_HEADER}"
            doc["name"] = label
            out.append(Point(label, doc, p.seed, {**p.params, "headers": f"{LINUX_MSS}+{LINUX_HEADER}"}))
        return out
    return fn




# ---------------------------------------------------------------- the paper

SETTINGS = [
    Setting("switch processing delay", f"{SWITCH_DELAY} per switch", "the paper's '25 ms' cites a Cisco latency "
            "guide whose figure is 25 µs; 25 ms would make a 6-hop RTT 250 ms"),
    Setting("link propagation delay", LINK_DELAY, "not given; the switch delay dominates the RTT"),
    Setting("MSS / headers", f"{MSS} B payload + {HEADER} B TCP/IP (ns-3 figures); {LINUX_MSS} + {LINUX_HEADER} B "
            "(testbed figures)", "§5.1: MSS 1460; ns-3's TCP of the time sends no timestamps, the testbed's Linux does "
            "(its full segment is the 1448 B of Figs. 5, 13, 14); the port race of Figs. 8a, 8c, 9 and 10 flips "
            "with the headers, so the whole tally is shown under 1448 + 52 B too", "1448 + 52 B for Figs. 8a–c, 9, "
            "10, 11 and 15 (figures *-h52, Beyond the paper; their tally beside the paper's)"),
    Setting("routing", "ECMP (per-flow hash, salted by the seed: each seed draws other paths)",
            "'routing policy of [2]'; in the fat-tree F2:15 spread over both aggregation ports of R's edge switch, "
            "a different split per seed", "single-path routing in the settings figure"),
    Setting("window growth with small segments", "per byte acknowledged (cwnd in bytes, like Linux ABC)",
            "the paper found ABC made no difference in outcast scenarios"),
    Setting("initial window", "2 segments", "irrelevant for 10 s flows", "10 in the settings figure"),
    Setting("delayed ACKs", "off", "ns-3's DelAckCount 2 / 200 ms is a setting the paper does not mention",
            "on (ns-3 values) in the settings figure"),
    Setting("Limited Transmit (RFC 3042)", "off", "ns-3's TCP before 3.25 (2016) had it off by default and the "
            "paper does not give its version; the testbed figures keep it off too (testbed not modelled)",
            "on, in the settings figure"),
    Setting("SACK", "off in the ns-3 figures (8–10, 15), on/off in Fig. 14",
            "ns-3 of 2016 had no SACK; the testbed (Linux) had it on", "on in the settings figure"),
    Setting("NIC queue", "100 packets", "ns-3's default", "1000 packets in the settings figure"),
    Setting("host timing noise", "none (deterministic)", "ns-3 has none either; with exact hosts which input port "
            "loses the race can hinge on the packet sizes (docs/model.md, 'Phase effects')",
            "1 µs in the settings figure and the seeds figure"),
    Setting("flow start times", "each flow within 100 µs of t = 0, drawn from the seed (`start_jitter`)",
            "not given; ns-3 scripts of the time started applications at random offsets, and flows all started at "
            "t = 0 phase-lock (Floyd & Jacobson 1992)", "ten seeds per header size in the seeds figure"),
    Setting("flow length", f"{DURATION_S:g} s (quick: {QUICK_DURATION_S:g} s); {len(FIG8_SEEDS)} seeds for Figs. "
            f"8a–c and 9, {len(SEEDS)} elsewhere (quick: 1)",
            "the paper: 10 s, runs per point not given; each seed's own verdict is printed beside the mean's"),
    Setting("Algorithm 1's W_max", "CUBIC's W_max at the last congestion event, kept across timeouts",
            "\"the cwnd where losses occurred\"; CUBIC's own W_max restarts at α after a timeout (RFC 9438 §4.8), "
            "which would switch Algorithm 1 off"),
    Setting("adaptive TCPRand where Algorithm 1 is undefined", "full-size segments (rMin = MSS)",
            "before the first loss, under another CC, and in an epoch that starts at or above the loss point "
            "(W_max ≤ α)"),
    Setting("testbed figures (12–14, 17)", "simulated, shown, out of the tally (\"testbed not modelled\")",
            "the Linux 3.2 hosts (delayed ACK, FACK) and the Cisco / HP switches are not modelled"),
    Setting("Fig. 5 phase", "uniform (Y1 at a random point of the output's service)",
            "the paper does not say; docs/models.md §4", "aligned reading plotted dotted"),
    Setting("testbed (Figs. 12, 14)", "the Fig. 7 topology as simulated drop-tail switches, Qmax 100",
            "the Cisco/HP buffers are not given"),
    Setting("testbed TCP (Figs. 12, 14, 16, 17)", "Linux 3.2: RTOmin 200 ms, SACK on (Fig. 14: on and off), "
            "initial window 10, PRR, Limited Transmit, CUBIC's HyStart",
            "the testbed ran Linux 3.2.39: SACK, PRR (new in 3.2), HyStart on by default"),
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


#: The testbed figures of the outcast and of synchrony (12–14, 17), one rule:
#: measured on the paper's Linux hosts and hardware switches, simulated here,
#: shown, never tallied. Fig. 16 ran on the testbed too, and is tallied (issue
#: 43 item 5): flow convergence on one drop-tail port is a property of the
#: congestion control with random segments, not of the hosts' and switches'
#: timing the outcast rests on.
TESTBED_FIGURE = TESTBED_NOT_MODELLED


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
               "every preset fairer than CUBIC, ≥ 0.9; μ = 1 presets lose < 1–4 % goodput", testbed=TESTBED_FIGURE),
        Figure("13", "outcast flow's drop distribution vs rMin, M = 15, SACK on", _fig13_points, _analyze_fig13,
               "as rMin falls the share of single isolated drops grows (most at 200 B) and runs of 2–5 drops, "
               "especially ≥ 3, become far rarer", testbed=TESTBED_FIGURE),
        Figure("14", "microscopic: F1's timeouts and retransmissions vs rMin, M = 15, SACK on/off", _fig14_points,
               _analyze_fig14, "SACK: no timeouts; no SACK: 204 → 9 timeouts; F1 retransmits more as its rMin "
               "falls, less as the others' falls", testbed=TESTBED_FIGURE),
        Figure("15", "incast: goodput vs senders, star, Qmax = 100", _fig15_points, _analyze_fig15,
               "TCPRand not worse than CUBIC; DCTCP best"),
        # a testbed figure whose one claim is a testbed entry of the register
        # (its `out` says why); not TESTBED_FIGURE, which is the outcast's reason
        Figure("16", "flow convergence: five flows starting 30 s apart", _fig16_points, _analyze_fig16,
               "TCPRand converges like CUBIC"),
        Figure("17", "cwnd traces of two flows", _fig17_points, _analyze_fig17,
               "CUBIC windows rather synchronized; TCPRand's vary asynchronously", testbed=TESTBED_FIGURE),
        Figure("settings", "the implicit settings, one at a time (Fig. 1, Qmax = 20)", _settings_points,
               _analyze_settings, "", setting="each implicit setting changed in turn (ours)"),
        Figure("seeds", "the outcast over ten seeds, both header sizes (C baselines of Figs. 8a/9 and 10)",
               _seeds_points, _analyze_seeds, ""),
        Figure("8b-control", "controls for Fig. 8b: fixed small segments vs random ones, without and with SACK",
               _control_points, _analyze_control, "", setting="controls of ours: fixed segment sizes, other rMin, "
               "SACK, a two-flow star"),
        # setup unknown (the headers): the port-race figures with 1448 + 52 B
        Figure("8-h52", "Figs. 8a, 8b and 9 with 1448 + 52 B segments", _with_headers_52(_fig8_points),
               in_subdir("headers-52", _analyze_fig8a, _analyze_fig8b, _analyze_fig9, note=H52_NOTE), "as Figs. 8a, 8b, 9",
               setting=HEADERS_52),
        Figure("8c-h52", "Fig. 8c with 1448 + 52 B segments", _with_headers_52(_fig8c_points),
               in_subdir("headers-52", _analyze_fig8c, note=H52_NOTE), "as Fig. 8c", setting=HEADERS_52),
        Figure("10-h52", "Fig. 10 with 1448 + 52 B segments", _with_headers_52(_fig10_points),
               in_subdir("headers-52", _analyze_fig10, note=H52_NOTE), "as Fig. 10", setting=HEADERS_52),
        Figure("11-h52", "Fig. 11 with 1448 + 52 B segments", _with_headers_52(FCT_FIGURES[0].points),
               in_subdir("headers-52", FCT_FIGURES[0].analyze, note=H52_NOTE), "as Fig. 11", series=FCT_FIGURES[0].series,
               setting=HEADERS_52),
        Figure("15-h52", "Fig. 15 with 1448 + 52 B segments", _with_headers_52(_fig15_points),
               in_subdir("headers-52", _analyze_fig15, note=H52_NOTE), "as Fig. 15", setting=HEADERS_52),
    ]
    # Fig. 11 (FCT under Poisson load) goes in the paper's order, before 12.
    at = next(i for i, f in enumerate(figs) if f.id == "12")
    figs[at:at] = list(FCT_FIGURES)
    return figs


PAPER = Paper(
    key="tcprand",
    title="TCPRand (Lee et al., Computer Networks 2017)",
    citation="S. Lee, D. Lee, M. Lee, H. Jung and B.-S. Lee, \"Randomizing TCP payload size for TCP fairness in "
             "data center networks\", Computer Networks 129:79–92, 2017.",
    docs="docs/tcprand.md",
    setup=SETUP,
    quick_setup=(
        f"flows of {QUICK_DURATION_S:g} s instead of {DURATION_S:g} s on {len(QUICK_SEEDS)} seed instead of "
        f"{len(SEEDS)}, fewer series, buffers, n and background rates; Fig. 8b's control pair sends "
        f"{QUICK_STAR_MB} MB a flow instead of {STAR_MB} MB; Fig. 13's runs last 1 s (20 s), Fig. 14's 2 s (20 s), "
        "Fig. 15 10 blocks (100), Fig. 16 runs at 1/30 of its time scale and Fig. 17 2 s (10 s). The settings "
        "table gives the rest."),
    settings=SETTINGS,
    figures=_figures(),
    # Fig. 8's caption (N, NTx, C, CTx, CTD, DCTCP), the testbed presets and
    # Fig. 11's CUBIC baseline
    series=tuple(SERIES) + tuple(PRESETS) + ("CUBIC", "enqueue model"),
    variants=("settings figure",),
    register=REGISTER,
)
