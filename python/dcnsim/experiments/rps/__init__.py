"""Packet spraying vs single-path forwarding (Kaymak & Rojas-Cessa, JCSM 5(1), 2016): Figs. 2–9.

``dcnsim reproduce rps`` runs every figure of the paper's evaluation and
our own (per-path utilization, hash polarisation, reordering-robust TCP,
PLB's host-driven repathing, other endpoints and NIC queues). The setup, every setting the paper leaves open and every difference
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

The paper's claims, each judged once, are its register (``claims.toml``,
:data:`.common.REGISTER`); the figures are reached through ``PAPER``
(``dcnsim.experiments.get_paper("rps")``), the modules for the rest.

Schemes: the paper's "single-path forwarding" is ns-3's global routing
without random ECMP, i.e. every flow on the same first shortest path
(``single``); we also run hash-based ECMP (what the paper's related work and
EXPERIMENTS.md call the flow-based alternative), RPS and flowlet switching.
"""

from __future__ import annotations

from ..framework import Figure, Paper, Setting
from .common import (
    ECMP,
    FLOWLET,
    INIT_CWND,
    NIC_BUFFER,
    NIC_BUFFER_ALT,
    QUICK_RUNS,
    RANDOM_NS,
    REGISTER,
    RPS,
    RTO_INIT,
    RTO_MIN,
    RUNS,
    RWND,
    SINGLE,
    _static_points,
)
from .failure import FAILURE_SETTING, _analyze_failure, _failure_points
from .paths import _analyze_paths, _paths_points
from .plb import (
    PLB_SETTING,
    PLBPERM_SETTING,
    _analyze_plb,
    _analyze_plbperm,
    _plb_points,
    _plbperm_points,
)
from .polarisation import _analyze_polar, _polar_points
from .random_flows import (
    _analyze_fig5,
    _analyze_fig6,
    _analyze_fig7,
    _analyze_fig8,
    _analyze_fig9,
    _fig5_points,
    _fig89_points,
    _fig567_points,
)
from .reordering import TCP_SETTING, _analyze_tcp, _tcp_points
from .settings import (
    LINUX_SETTING,
    NIC_SETTING,
    _analyze_nic,
    _analyze_settings,
    _nic_points,
    _settings_points,
)
from .static_pairs import (
    RPS_NO_FR,
    _analyze_fig2,
    _analyze_fig3,
    _analyze_fig4,
    _fig3_points,
)

__all__ = ["PAPER", "SETTINGS", "SETUP"]

# ---------------------------------------------------------------- the paper

SETTINGS = [
    Setting("routing, \"single-path forwarding\"", "single: every flow on the first shortest path",
            "ns-3's Ipv4GlobalRouting without RandomEcmpRouting picks the first equal-cost route",
            "hash ECMP (per-switch salt) and flowlet switching (500 µs gap) as their own series"),
    Setting("RPS", "uniform random next hop per packet at every switch with > 1 equal-cost next hop",
            "§2.1 (ns-3 RandomEcmpRouting)"),
    Setting("packet and segment", "MSS 1460 B + 40 B header = 1500-byte packets", "Table 1"),
    Setting("10 MB / 200 KB", "10 × 2²⁰ B and 200 × 2¹⁰ B", "dcnsim's KB/MB are binary (docs/scenario.md)"),
    Setting("receive window", RWND, "ns-3.23 has no window scaling: TcpSocketBase caps the advertised window "
            "at MaxWindowSize = 65 535 B, below its 128 KB RcvBufSize"),
    Setting("initial window", f"{INIT_CWND} segment", "ns-3.23 TcpSocket InitialCwnd default",
            "Linux-like endpoints (IW 10, no delayed ACK, SACK, RTOmin 200 ms) in the settings figure"),
    Setting("delayed ACK", "the first data segment of a connection ACKed at once (delayed_ack_quickack = 1), then "
            "every 2nd segment or 200 ms; out-of-order segments ACKed at once",
            "ns-3.23 DelAckCount / DelAckTimeout defaults; TcpSocketBase sets m_delAckCount = m_delAckMaxCount when "
            "a connection is established (\"Always respond to first data packet to speed up the connection\", "
            "since ns-3.13, commit af8ae0191 of 2011-12-01), so a lone first segment does not wait 200 ms",
            "Linux-like endpoints (IW 10, no delayed ACK, SACK, RTOmin 200 ms) in the settings figure"),
    Setting("slow start", "one SMSS per ACK (abc_limit = 1): with delayed ACKs cwnd grows ×1.5 per round",
            "ns-3.23's TcpNewReno adds m_segmentSize per ACK in slow start (RFC 5681 §3.1), not RFC 3465's byte "
            "counting with L = 2 SMSS, dcnsim's default; validation/ns3_rps (issue 31 item 2)"),
    Setting("SACK", "off", "ns-3.23 has no SACK", "SACK variants in the tcp and settings figures"),
    Setting("Limited Transmit (RFC 3042)", "off", "ns-3.23's TcpNewReno had it as the LimitedTransmit attribute, "
            "false by default", "on in the settings figure's Linux-like TCP"),
    Setting("duplicate-ACK threshold", "3", "ns-3.23 ReTxThreshold default",
            "fast retransmit off (RPS) as a series of Fig. 3; adaptive threshold and RACK-TLP in the tcp figure"),
    Setting("RTOmin / initial RTO", f"{RTO_MIN} / {RTO_INIT}", "ns-3.23 MinRto default; 1 s initial RTT + 4 × 0.5 s"),
    Setting("hosts' NIC queue", f"{NIC_BUFFER[:-3]} packets", "the paper's 1000-packet queue: ns-3.23's "
            "PointToPointHelper gives both ends of a link the same DropTailQueue, hosts' devices included",
            f"{NIC_BUFFER_ALT[:-3]} packets (ns-3's DropTailQueue default) in the nic figure"),
    Setting("start times", "every flow at t = 0", "the paper says nothing; all flows \"generated\" together"),
    Setting("random pairs", "source and destination uniform over the 16 servers, distinct; drawn per run, the same "
            "for every scheme", "§2.2"),
    Setting("long flows in the random case", f"N = {', '.join(map(str, RANDOM_NS))}",
            "the figures' x-axis values are not in the text"),
    Setting("runs per point", f"{RUNS} (quick: {QUICK_RUNS}), seeds 1…; 95 % Student-t CIs", "§2.2: 10 runs"),
]

SETUP = (
    "k = 4 fat-tree (16 servers, 20 switches), 1 Gbps links, 25 µs per link (300 µs unloaded RTT between pods), "
    "1000-packet (1.5 MB) drop-tail buffers per switch port and host NIC, 1500-byte packets; long flows 10 MB, short "
    "200 KB, all starting at t = 0; TCP NewReno with ns-3.23's defaults and limits (65 535 B window). Static pairs: n long flows S0…S(n−1) → S15 and one short "
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
    # the paper compares RPS with single-path forwarding only
    series=(SINGLE, RPS),
    variants=(ECMP, FLOWLET, RPS_NO_FR, "Linux-like", "NIC 100"),
    settings=SETTINGS,
    quick_setup=(f"{QUICK_RUNS} runs a point instead of {RUNS}, at fewer numbers of long flows; each point's "
                 "scenario is the full run's."),
    register=REGISTER,
    figures=[
        Figure("2", "static pairs: mean long-flow throughput vs number of long flows",
               lambda q: _static_points(q), _analyze_fig2,
               "RPS slightly higher than single path; each flow bounded by its fair share of E7–S15"),
        Figure("3", "static pairs: FCT of the short flow", _fig3_points, _analyze_fig3,
               "RPS smaller; the advantage grows with the number of long flows"),
        Figure("4", "static pairs: out-of-order packets of the short flow", lambda q: _static_points(q),
               _analyze_fig4, "about the same percentage for ≥ 2 long flows"),
        Figure("5", "random pairs: mean long-flow throughput", _fig5_points, _analyze_fig5,
               "RPS higher than single path, by more than in the static case"),
        Figure("6", "random pairs: mean short-flow FCT", _fig567_points, _analyze_fig6, "RPS smaller"),
        Figure("7", "random pairs: out-of-order packets of short flows", _fig567_points, _analyze_fig7,
               "about 20 % of packets out of order"),
        Figure("8", "RPS, 10 vs 20 short flows: long-flow throughput", _fig89_points, _analyze_fig8,
               "slightly lower with 20 short flows"),
        Figure("9", "RPS, 10 vs 20 short flows: short-flow FCT", _fig89_points, _analyze_fig9,
               "higher with 20 short flows"),
        Figure("paths", "per-path utilization (5 long + 1 short, static pairs)", _paths_points, _analyze_paths,
               "packets of a flow use almost completely disjoint paths", series=(RPS,)),
        Figure("polarisation", "ECMP with and without per-switch hash salt: core utilization", _polar_points,
               _analyze_polar, "", series=(ECMP,), setting="hash ECMP with and without per-switch salt (ours)"),
        Figure("tcp", "RPS with reordering-robust loss detection: NewReno, CUBIC, DCTCP", _tcp_points, _analyze_tcp,
               "", series=(RPS,), setting=TCP_SETTING),
        Figure("plb", "DCTCP on random pairs: ECMP, ECMP with PLB (host-driven repathing) and RPS", _plb_points,
               _analyze_plb, "", series=(ECMP, RPS), setting=PLB_SETTING),
        Figure("plbperm", "DCTCP on a permutation (host i → i + 8): ECMP, ECMP with PLB and RPS", _plbperm_points,
               _analyze_plbperm, "", series=(ECMP, RPS), setting=PLBPERM_SETTING),
        Figure("failure", "a core link down under a permutation: ECMP, ECMP with txrehash, flowlets and RPS",
               _failure_points, _analyze_failure, "", series=(ECMP, RPS), setting=FAILURE_SETTING),
        Figure("settings", "Figs. 5–6 with Linux-like endpoints instead of ns-3.23's defaults", _settings_points,
               _analyze_settings, "as Figs. 5–6", setting=LINUX_SETTING),
        Figure("nic", f"Figs. 5–6 with {NIC_BUFFER_ALT} host NIC queues (ns-3's default) instead of {NIC_BUFFER}",
               _nic_points, _analyze_nic, "as Figs. 5–6", setting=NIC_SETTING),
    ],
)
