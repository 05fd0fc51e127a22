"""Our own study, not a paper's: the seeds' incast workloads run with the
papers' schemes (NewReno, DCTCP, FaST, TCPRand), today's Linux host (its TCP
profile with CUBIC, and with BBR) and the transports that came after (NDP,
Swift, HPCC), side by side on the same fabrics
(docs/modern.md).

``dcnsim reproduce modern [--quick]`` runs it through the reproduction
framework (listed with the papers, no paper tally): one figure per
workload (``sync_reads``, ``partition_aggregate``, ``outcast``), each with
its table (``<workload>.csv``), plot (``<workload>.png``), a row per scheme
and point in ``report.md`` / ``<workload>.report.json`` and a text computed
from the data.
"""

from __future__ import annotations

from ..paper import Figure, Paper, Setting
from .schemes import (
    ECN_SCHEMES,
    SCHEME_NAMES,
    SCHEMES,
    fabric_features,
    scheme_tcp,
    settings_text,
)
from .workloads import (
    KU_NS,
    KU_QUICK_NS,
    KU_RTT_PER_HOP_US,
    OC_QMAXES,
    OC_QUICK_QMAXES,
    OC_QUICK_SECS,
    OC_RTT_PER_HOP_US,
    OC_SECS,
    PA_NS,
    PA_QUERIES,
    PA_QUICK_NS,
    PA_QUICK_QUERIES,
    PA_RTT_PER_HOP_US,
    QUICK_SEEDS,
    SEEDS,
    ku_analyze,
    ku_points,
    oc_analyze,
    oc_points,
    pa_analyze,
    pa_points,
)

__all__ = ["PAPER", "SCHEMES", "SCHEME_NAMES", "ECN_SCHEMES", "scheme_tcp", "ku_points", "pa_points", "oc_points",
           "KU_QUICK_NS", "PA_QUICK_NS", "OC_QUICK_QMAXES"]

_PER_HOP = (f"sync_reads {KU_RTT_PER_HOP_US:.1f} µs, partition_aggregate {PA_RTT_PER_HOP_US:.1f} µs, "
            f"outcast {OC_RTT_PER_HOP_US:.1f} µs")
_SEEDS = f"seeds {', '.join(map(str, SEEDS))} (quick: {', '.join(map(str, QUICK_SEEDS))})"

PAPER = Paper(
    key="modern",
    title="Our own study: the papers' schemes and the transports that came after, on the seeds' incast workloads",
    citation="dcnsim's own study (docs/modern.md): the workloads of Kulkarni 2012 (synchronized reads), Hwang & "
             "Yoo 2014 (FaST's partition/aggregate) and Lee et al. 2017 (TCPRand's outcast fat-tree), each run "
             "with NewReno, DCTCP, FaST, TCPRand (CUBIC + adaptive TCPRand), today's Linux TCP (profile = \"linux\", "
             "CUBIC) and BBR v1 on it, NDP (Handley et al. 2017), Swift (Kumar et al. 2020) and HPCC (Li et al. 2019).",
    figures=[
        Figure("sync_reads", "Kulkarni's synchronized reads: block goodput vs servers", ku_points, ku_analyze,
               stem="sync_reads"),
        Figure("partition_aggregate", "FaST's partition/aggregate: query completion time vs workers", pa_points,
               pa_analyze, stem="partition_aggregate"),
        Figure("outcast", "TCPRand's outcast fat-tree: the 2-hop flow's throughput vs the 6-hop flows'",
               oc_points, oc_analyze, stem="outcast"),
    ],
    settings=[
        *[Setting(f"scheme {s}", settings_text(s, _PER_HOP), f"fabric: {fabric_features(s)}") for s in SCHEME_NAMES],
        Setting("sync_reads", f"Kulkarni's Table 3.1 star and [tcp] table; n in {', '.join(map(str, KU_NS))} "
                f"(quick: {', '.join(map(str, KU_QUICK_NS))}); 512 MB per point, at least 100 blocks (quick: 32 MB, "
                f"20 blocks); {_SEEDS}", "DCTCP and FaST mark at 20 packets (FaST's 1 Gbps K)"),
        Setting("partition_aggregate", f"FaST's tree, [tcp] table and fresh connections per query; n in "
                f"{', '.join(map(str, PA_NS))} (quick: {', '.join(map(str, PA_QUICK_NS))}); {PA_QUERIES} queries "
                f"per point (quick: {PA_QUICK_QUERIES}); {_SEEDS}", "FaST's marking: 20 packets at 1 Gbps, 65 at 10"),
        Setting("outcast", f"TCPRand's Fig. 1 fat-tree and [tcp] table; Qmax {', '.join(map(str, OC_QMAXES))} "
                f"packets (quick: {', '.join(map(str, OC_QUICK_QMAXES))}); {OC_SECS:g} s of long flows (quick: "
                f"{OC_QUICK_SECS:g} s); {_SEEDS}", "DCTCP and FaST mark at 0.2 Qmax (TCPRand's §6.1)"),
    ],
    setup="Three incast workloads, each on its paper's fabric with its paper's [tcp] table, and nine schemes laid "
          "on top: the papers' own (NewReno, DCTCP, FaST, TCPRand), today's Linux host (its TCP profile, with CUBIC "
          "and with BBR) and the data-center transports that came after (NDP, Swift, HPCC), each with the switch "
          "features it needs (the settings below say which). Every row is our value; there is no paper to compare with, so no verdict beyond \"not in paper\".",
    docs="docs/modern.md",
    own_study=True,
)
