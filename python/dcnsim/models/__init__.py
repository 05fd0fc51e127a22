"""Analytical models shipped with dcnsim (SPEC §5).

* :mod:`.dctcp`   — DCTCP scalability of FaST §3: W*, N*, N*max.
* :mod:`.incast`  — Kulkarni's incast model (TD-only, Full, Split) and
  Padhye et al.'s single-flow formula × n.
* :mod:`.enqueue` — TCPRand's offline enqueue-probability experiment
  (§3.2, Fig. 5): two back-to-back streams into one full output port.
* :mod:`.measure` — the model inputs (p_c, p_r, ζ, RTT, T0, L) measured from
  dcnsim's ``flows`` / ``blocks`` tables, and model-vs-simulation tables.

Pure Python + numpy. This subpackage imports nothing from the parent
``dcnsim`` package (only relative imports among its own modules), so it works
without the compiled ``dcnsim._core`` — except :mod:`.fromrun` (not imported
here), which reads a results directory's ``scenario.json`` with the scenario
loader's unit parser (``dcnsim.units``, in the core). Formulas and our reading of the
ambiguous points: ``docs/models.md``.
"""

from .dctcp import (
    DctcpScalability,
    bdp_packets,
    critical_window,
    dctcp_scalability,
    n_star,
    n_star_max,
)
from .enqueue import PHASES, EnqueueProbability, enqueue_probability, enqueue_sweep
from .incast import (
    A,
    C,
    IncastModel,
    bps_to_pps,
    expected_flow_window,
    expected_packets,
    expected_rounds,
    incast_model,
    j_flows,
    line_rate_pps,
    padhye,
    padhye_n,
    pps_to_bps,
    q_abtt,
    q_hat,
    q_hat_split,
    throughput_full,
    throughput_split,
    throughput_td,
)
from .measure import (
    IncastInputs,
    count_cumulative_loss_events,
    incast_inputs,
    loss_indications,
    model_vs_sim,
)

__all__ = [
    "DctcpScalability", "bdp_packets", "critical_window", "dctcp_scalability",
    "n_star", "n_star_max",
    "PHASES", "EnqueueProbability", "enqueue_probability", "enqueue_sweep",
    "A", "C", "IncastModel", "bps_to_pps", "expected_flow_window",
    "expected_packets", "expected_rounds", "incast_model", "j_flows",
    "line_rate_pps", "padhye", "padhye_n", "pps_to_bps", "q_abtt", "q_hat",
    "q_hat_split", "throughput_full", "throughput_split", "throughput_td",
    "IncastInputs", "count_cumulative_loss_events", "incast_inputs",
    "loss_indications", "model_vs_sim",
]
