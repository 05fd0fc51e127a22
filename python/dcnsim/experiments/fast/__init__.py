"""FaST (Hwang & Yoo, KSII TIIS 8(3), 2014): §3 and Figs. 4–12.

``dcnsim reproduce fast`` runs every FaST row of EXPERIMENTS.md. The setup,
every choice the paper leaves open and every difference from the paper's
numbers are explained in docs/fast.md; the choices are also listed in
:data:`SETTINGS` and printed with the results.

Topology (the paper's Fig. 3): one aggregation switch, 5 ToRs, 20 servers per
ToR; 1 Gbps server–ToR, 10 Gbps ToR–aggregation; 25 µs per link; 100 KB per
ToR port, a large (10 MB) buffer per aggregation port; ECN threshold K = 20
packets on 1 Gbps ports and 65 packets on 10 Gbps ports. It is a ``custom``
topology because the built-in ``two_tier`` gives a ToR's 10 Gbps uplink the
ToR's K (20) and a link's ``buffer`` applies to both of its ends: each
ToR–aggregation link is split by a pass-through switch ``up<r>`` (10 Gbps,
zero delay) so that the ToR side has 100 KB / K = 65 and the aggregation
side 10 MB / K = 65 (``up<r>`` never queues: it receives and sends at the
same 10 Gbps rate; it adds one 1.2 µs store-and-forward per direction).

Hosts: 0 = the root (aggregator), a 21st server on ToR 0; 1–100 = the
servers, numbered round-robin over the racks (host h on ToR (h − 1) mod 5);
101 = the background sender, a 21st server on ToR 1 (Figs. 7–9). The n
workers of a query are hosts 1..n, so they are spread evenly over the five
racks and the bottleneck is ToR 0's port to the root for every n.

The paper's claims, each judged once, are its register (``claims.toml``,
:data:`.common.REGISTER`); the figures only measure.
"""

from __future__ import annotations

from ..framework import Figure, Paper, Setting
from .background import (
    _analyze_fig7,
    _analyze_fig8,
    _analyze_fig9,
    _bg_and_base_points,
    _fig789_points,
)
from .common import (
    BG_LEAD_S,
    BG_SIZE,
    HOST_JITTER,
    INIT_CWND,
    MAIN3,
    MSS,
    PERSISTENT_GAP,
    QUERIES,
    QUERY_SPACING_S,
    QUICK_QUERIES,
    QUICK_SEEDS,
    REGISTER,
    SEEDS,
)
from .convergence import _analyze_fig10, _fig10_points
from .fairness import _analyze_fig11, _fig11_points
from .figs4_6 import (
    _analyze_fig4,
    _analyze_fig5,
    _analyze_fig6,
    _fig6_points,
    _fig456_points,
)
from .model import _analyze_s3, _s3_points
from .segment_size import (
    _analyze_fig12,
    _fig12_points,
)
from .settings import (
    _analyze_settings,
    _settings_points,
)

__all__ = ["PAPER"]

# ---------------------------------------------------------------- the paper

SETTINGS = [
    Setting("worker placement", "root = a 21st server on ToR 0; n workers round-robin over the 5 racks",
            "the paper does not say; the bottleneck is ToR 0's port to the root either way; a 21st server "
            "lets n reach 100 with 100 workers"),
    Setting("per-port ECN threshold", "K = 20 pkt on every 1 Gbps port, 65 pkt on every 10 Gbps port",
            "as the paper; needs a custom topology (two_tier gives the ToR uplink the ToR's K, and a "
            "link's buffer applies to both ends)"),
    Setting("MSS / headers", f"{MSS} B payload + 40 B TCP/IP = 1500 B packets", "the paper's 1.5 KB segments"),
    Setting("initial window (init_cwnd)", f"{INIT_CWND} segments",
            "ns-3 of 2014 started at 1–2 segments; 10 (today's default) makes the first burst alone "
            "overflow 100 KB", "init_cwnd 10 in Figs. 4–9; 1 in the settings figure"),
    Setting("delayed ACKs", "off", "a 40 ms (Linux) or 200 ms (ns-3) timer is longer than RTOmin = 10 ms "
            "and turns every odd-length response into a timeout", "on, in the settings figure"),
    Setting("slow start", "one segment per new ACK (abc_limit = 1)", "ns-3's TcpNewReno of the paper's time adds "
            "m_segmentSize per new ACK below ssthresh, whatever the ACK covers (validation/ns3_incast traced it: "
            "dcnsim's default L = 2 SMSS grows twice as fast on a cumulative ACK ending a hole)"),
    Setting("SACK", "off", "NewReno of the paper's time", "on, in the settings figure"),
    Setting("Limited Transmit (RFC 3042)", "off", "ns-3's TcpNewReno of the paper's time had it as the "
            "LimitedTransmit attribute, false by default (true only since ns-3.25's TCP rewrite)",
            "on, in the settings figure"),
    Setting("L2 framing overhead", "0 B", "ns-3 point-to-point links of the paper's time",
            "38 B, in the settings figure"),
    Setting("connections", "fresh per query (each query opens new connections)",
            "FaST's probing stage acts on a connection's first segments; the paper's claims "
            "(no loss at n ≤ 50 for FaST) need it", "persistent connections in Figs. 4–5"),
    Setting("time between queries", f"query i starts at i × {QUERY_SPACING_S:g} s (fresh); "
            f"gap {PERSISTENT_GAP} (persistent)", "longer than any query, so queries never overlap "
            "(checked)", "persistent with a 10 ms gap, in the settings figure"),
    Setting("seeds", f"{len(SEEDS)} per point of Figs. 4–9 and 12 (quick: {len(QUICK_SEEDS)}); a point's value is "
            "the mean of its seeds' means, its ± the Student-t 95 % interval over them; Fig. 11's Jain index the "
            "mean of its seeds' indices; Fig. 10 judged on the slowest join and lowest Jain index of all its seeds' "
            "runs",
            "the seed is the unit of replication (it draws the jitter of all of a point's queries): with persistent "
            "connections one seed's queries are not independent, and an interval over them is too narrow",
            "one seed in §3 and the settings figure"),
    Setting("host jitter", f"{HOST_JITTER}", "breaks the lock-step of identical deterministic queries; "
            "without it all 100 queries of a point are the same query", "0, in the settings figure"),
    Setting("receive window", "65 535 B", "ns-3 before 3.25 (the paper is of 2014) had no window scaling: "
            "TcpSocketBase capped the advertised window at 65 535 B whatever its 128 KB socket buffer (as RPS's "
            "ns-3.23, docs/rps.md)"),
    Setting("KB, MB", "1 KB = 1000 B, 1 MB = 10⁶ B: 100 000 B ToR ports, 10⁷ B aggregation ports, 10 000 B "
            "responses (7 segments), a 10⁷ B background flow", "the paper's eq. (7) gives N*max = 37.5 for "
            "B = 100 KB only with 1000 B (102 400 B gives 38.3); its other sizes are read the same way"),
    Setting("NIC queue", "100 packets", "ns-3's point-to-point default"),
    Setting("background flow (Figs. 7–9)", f"{BG_SIZE} from a 21st server on ToR 1 to the root, one per query, "
            f"starting {BG_LEAD_S * 1e3:g} ms before it", "the paper: 'fully utilizes the bottleneck before "
            "the application begins'", "background sender at 10 Gbps (its queue at the ToR, not its NIC)"),
    Setting("FaST eq. (9)", "continuous: seg = max(100 B, MSS·vwnd/Wmin) below Wmin",
            "SPEC §2.1", "literal (seg = MSS·min(1, vwnd)) as its own series everywhere"),
    Setting("FaST probing stage", "first 3 segments of a connection are 100 B", "Algorithm 1, m ≤ 3"),
    Setting("DCTCP/FaST g, Wmin, S_min", "g = 1/16, Wmin = 2, S_min = 100 B", "as the paper"),
]

SETUP = (
    "One aggregation switch, 5 ToRs × 20 servers; 1 Gbps server–ToR, 10 Gbps ToR–aggregation; 25 µs per link "
    "(200 µs cross-rack RTT); 100 KB per ToR port, 10 MB per aggregation port; K = 20 packets at 1 Gbps and "
    "65 at 10 Gbps; RTOmin 10 ms; 10 KB responses; 100 queries per point, each point of Figs. 4–9 and 12 "
    f"on {len(SEEDS)} seeds (± the 95 % interval over the seeds' means); NewReno, DCTCP (g = 1/16) and FaST "
    "(g = 1/16, Wmin = 2, S_min = 100 B, 3 probing segments), FaST in both readings of eq. (9). "
    "Partition/aggregate: the root (host 0, a 21st server on ToR 0) queries n workers spread round-robin "
    "over the racks. The paper's KB is 1000 B (its eq. 7 needs it): 100 KB = 100 000 B."
)

QUICK_SETUP = (
    f"{QUICK_QUERIES} queries per point on {len(QUICK_SEEDS)} seed{'s' if len(QUICK_SEEDS) != 1 else ''} instead of "
    f"{QUERIES} on {len(SEEDS)}: each ± is then the 95 % interval over the queries of one seed, narrower than the "
    "interval over seeds a full run gives, so a verdict that rests on it is weaker than it reads. "
    "Fig. 10's five flows start 0.5 s apart instead of 3 s (throughput in 10 ms bins over 100 ms windows, "
    "not 50 ms over 200 ms), and Fig. 11's 45 flows run 2 s instead of 10 s (its Jain index, fig11-jain, is "
    "judged on those 2 s)."
)

PAPER = Paper(
    key="fast",
    title="FaST (Hwang & Yoo, TIIS 2014)",
    citation="J. Hwang and J. Yoo, \"FaST: Fine-grained and Scalable TCP for Cloud Data Center Networks\", "
             "KSII Transactions on Internet and Information Systems 8(3):762–777, 2014.",
    docs="docs/fast.md",
    setup=SETUP,
    quick_setup=QUICK_SETUP,
    settings=SETTINGS,
    series=tuple(MAIN3),
    variants=("eq. 9 literal", "eq. (9) read literally", "10 Gbps"),
    register=REGISTER,
    figures=[
        Figure("§3", "DCTCP scalability: N*, N*max (eqs. 4–7) and the simulated incast onset", _s3_points,
               _analyze_s3, "N* ≈ 14, N*max ≈ 37.5 (incast onset ≈ 35 workers in the DCTCP paper)"),
        Figure("4", "mean query completion time vs number of workers", _fig456_points, _analyze_fig4,
               "no loss for n ≤ 30 (all); at n = 100 NewReno ≈ 72 ms, DCTCP ≈ 43 ms, FaST ≈ 16 ms; "
               "FaST flat until n ≈ 50"),
        Figure("5", "mean total timeouts per query vs number of workers", _fig456_points, _analyze_fig5,
               "0 for n ≤ 30; grows ~linearly; FaST much better, fewer"),
        Figure("6", "CDF of timeouts per worker, n = 100", _fig6_points, _analyze_fig6,
               "> 50 % of NewReno/DCTCP flows have ≥ 2 timeouts; some NewReno 3; FaST mostly ≤ 1"),
        Figure("7", "mean QCT with one 10 MB background flow to the root", _bg_and_base_points, _analyze_fig7,
               "every protocol's QCT higher than in Fig. 4; NewReno up to 281 ms at n = 100; FaST < 35 ms, "
               "below DCTCP"),
        Figure("8", "timeouts per query with the background flow", _bg_and_base_points, _analyze_fig8,
               "NewReno and DCTCP slightly more than Fig. 5, FaST almost the same; FaST starts at n ≈ 30"),
        Figure("9", "throughput of the background flow", _fig789_points, _analyze_fig9,
               "NewReno highest for n < 50; DCTCP ≈ FaST; FaST ≈ NewReno for n > 50"),
        Figure("10", "convergence: five long FaST flows starting 3 s apart (a quick run: 0.5 s)", _fig10_points, _analyze_fig10,
               "fast convergence to the fair share"),
        Figure("11", "fairness of 45 long FaST flows in one rack", _fig11_points, _analyze_fig11,
               "Jain index 0.999"),
        Figure("12", "DCTCP's QCT vs fixed segment size", _fig12_points, _analyze_fig12,
               "N = 25: larger is better; N ≥ 40: smaller is better; N = 40: ≈ 12.5 ms at 1500 B, best near "
               "1000 B"),
        Figure("settings", "the implicit settings, one at a time (Fig. 4's setup)", _settings_points,
               _analyze_settings, "", setting="each implicit setting changed in turn (ours)"),
    ],
)
