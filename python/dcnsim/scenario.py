"""Scenario documents: typed builders, file loading, dotted-path overrides.

A scenario is the TOML/JSON document described in ``docs/scenario.md``. In
Python it can be written three ways, all equivalent once converted with
:func:`as_dict`:

* a file (``.toml`` or ``.json``) -- :func:`load_scenario`;
* a plain ``dict`` with exactly the schema's keys;
* the builders below (:class:`Scenario`, :class:`Star`, :class:`SyncReads`, ...),
  whose ``to_dict()`` produces the schema. Fields left as ``None`` are
  omitted, so the Rust defaults apply (and are documented in one place).

Values are passed through untouched: unit strings (``"50us"``, ``"1Gbps"``,
``"32KB"``, ``"100pkt"``) or Python ints where the schema accepts an integer.
The only conversions are structural: builders become dicts, tuples and
``range`` objects become lists. Validation is done once, in Rust.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

# `from dcnsim.scenario import tomllib` (the --set value parser's TOML reader)
if sys.version_info >= (3, 11):
    import tomllib  # noqa: F401
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # noqa: F401

# Reading, converting, checking and overriding documents live in
# _document.py (no dataclasses there: a run of a file never builds these
# classes); they are this module's API as they always were.
from ._document import (  # noqa: F401
    DOCUMENT,
    MAX_DEPTH,
    _Builder,
    _plain,
    as_dict,
    error_path,
    key_path,
    load_scenario,
    merge_extra,
    parse_path,
    sanitize,
    to_json,
    with_overrides,
)

__all__ = [
    "Scenario",
    "Tcp",
    "Star",
    "TwoTier",
    "FatTree",
    "LeafSpine",
    "Custom",
    "Node",
    "Link",
    "Bulk",
    "PartitionAggregate",
    "SyncReads",
    "UdpCbr",
    "Poisson",
    "load_scenario",
    "as_dict",
    "to_json",
    "sanitize",
    "with_overrides",
    "parse_path",
]

Value = Union[str, int, float, bool]
Hosts = Union[str, Sequence[int], range]


# --- [tcp] -------------------------------------------------------------------


@dataclass(repr=False)
class Tcp(_Builder):
    """The ``[tcp]`` table (or an app's ``tcp = {...}`` override).

    Every field defaults to ``None`` = "use the simulator's default"
    (see docs/scenario.md for the values). The fields are the core schema's
    ``TcpSection`` keys: ``python -m dcnsim.schema_docs --check`` (and
    tests/test_schema.py) fail when they drift."""

    # "linux": today's Linux defaults under every other key (docs/linux_profile.md)
    profile: Optional[str] = None
    cc: Optional[str] = None
    segment: Optional[str] = None
    mss: Optional[int] = None
    header: Optional[int] = None
    init_cwnd: Optional[int] = None
    init_ssthresh: Optional[int] = None
    ca_increase: Optional[str] = None
    rwnd: Optional[Union[str, int]] = None
    rto_min: Optional[str] = None
    rto_init: Optional[str] = None
    rto_max: Optional[str] = None
    granularity: Optional[str] = None
    max_backoff: Optional[int] = None
    dupack_threshold: Optional[int] = None
    reordering: Optional[str] = None
    recovery: Optional[str] = None
    delayed_ack: Optional[bool] = None
    delayed_ack_timeout: Optional[str] = None
    delayed_ack_segments: Optional[int] = None
    delayed_ack_quickack: Optional[int] = None
    abc_limit: Optional[Union[int, str]] = None  # or "unlimited"
    sack: Optional[bool] = None
    sack_rescue: Optional[bool] = None
    limited_transmit: Optional[bool] = None
    reduction: Optional[str] = None
    hystart: Optional[str] = None
    cwnd_validation: Optional[str] = None
    ack_counting: Optional[str] = None
    cwnd_counting: Optional[str] = None
    partial_ack_timer: Optional[str] = None
    reno_reduction: Optional[str] = None
    reno_exit: Optional[str] = None
    ecn_reduction: Optional[str] = None
    rack_timers: Optional[str] = None
    rto_timer: Optional[str] = None
    rto_ssthresh: Optional[str] = None
    rack_in_loss: Optional[bool] = None
    rack_rtt_each_segment: Optional[bool] = None
    sack_on_old_ack: Optional[bool] = None
    reno_hold: Optional[bool] = None
    idle_restart: Optional[str] = None
    timestamps: Optional[bool] = None
    ecn: Optional[bool] = None
    handshake_rtt_sample: Optional[bool] = None
    cubic_fast_convergence: Optional[bool] = None
    cubic_linux: Optional[bool] = None
    hz: Optional[int] = None
    dctcp_g: Optional[Union[float, str]] = None
    dctcp_alpha_init: Optional[Union[float, str]] = None
    plb: Optional[bool] = None
    plb_rehash_rounds: Optional[int] = None
    plb_idle_rehash_rounds: Optional[int] = None
    plb_cong_thresh: Optional[Union[float, str]] = None
    plb_suspend_rto: Optional[str] = None
    txrehash: Optional[bool] = None
    fast_g: Optional[Union[float, str]] = None
    fast_alpha_init: Optional[Union[float, str]] = None
    fast_wmin: Optional[int] = None
    fast_smin: Optional[Union[str, int]] = None
    fast_probe_segments: Optional[int] = None
    fast_probe_size: Optional[Union[str, int]] = None
    fast_seg_rule: Optional[str] = None
    # Kulkarni (2012): header compression, Dynamic Segment Resizing
    # (segment="dsr"), probabilistic retransmission.
    header_compression: Optional[bool] = None
    dsr_mss: Optional[Union[str, int]] = None
    dsr_cwnd: Optional[int] = None
    probretx_p: Optional[Union[float, str]] = None
    probretx_period: Optional[str] = None
    probretx_target: Optional[str] = None
    # TCPRand (Lee et al. 2017; segment="tcprand"): payload ~ U[rMin, MSS].
    # v_tau / v_omega accept math.inf (written as "inf"); v_omega = 0 means
    # no end point.
    tcprand_mode: Optional[str] = None
    tcprand_rmin: Optional[Union[str, int]] = None
    tcprand_theta: Optional[Union[str, int]] = None
    tcprand_preset: Optional[str] = None
    tcprand_sigma2: Optional[float] = None
    tcprand_mu: Optional[float] = None
    tcprand_v_tau: Optional[Union[float, str]] = None
    tcprand_v_omega: Optional[Union[float, str]] = None
    #: ``"tcp"``, ``"ndp"`` (receiver-driven; needs ``Scenario(trimming=...)``), ``"swift"`` (delay-based; docs/swift.md), ``"hpcc"`` (INT-based; docs/hpcc.md), ``"dcqcn"`` (RoCE's ECN-based rate control; docs/dcqcn.md) or ``"timely"`` (RoCE's RTT-gradient rate control; docs/timely.md)
    transport: Optional[str] = None
    ndp_initial_window: Optional[int] = None
    ndp_pull_rate: Optional[Union[float, str]] = None
    ndp_rto: Optional[str] = None
    swift_base_target: Optional[str] = None
    swift_hop_scale: Optional[str] = None
    swift_fs_range: Optional[str] = None
    swift_fs_min_cwnd: Optional[float] = None
    swift_fs_max_cwnd: Optional[float] = None
    swift_endpoint_target: Optional[str] = None
    swift_ai: Optional[float] = None
    swift_beta: Optional[Union[float, str]] = None
    swift_max_mdf: Optional[Union[float, str]] = None
    swift_min_cwnd: Optional[Union[str, int]] = None
    swift_max_cwnd: Optional[int] = None
    swift_initial_window: Optional[int] = None
    swift_rtx_reset_threshold: Optional[int] = None
    swift_rto_min: Optional[str] = None
    #: HPCC (``transport="hpcc"``; docs/hpcc.md): η, maxStage, W_AI, N, T, U's start, go-back-N timeout
    hpcc_eta: Optional[Union[float, str]] = None
    hpcc_max_stage: Optional[int] = None
    hpcc_w_ai: Optional[Union[str, int]] = None
    hpcc_n: Optional[int] = None
    hpcc_base_rtt: Optional[str] = None
    hpcc_u_init: Optional[Union[float, str]] = None
    hpcc_rto: Optional[str] = None
    #: DCQCN (``transport="dcqcn"``; docs/dcqcn.md): g, timer, B, F, R_AI, R_HAI, rate floor, CNP interval, go-back-N timeout
    dcqcn_g: Optional[Union[float, str]] = None
    dcqcn_timer: Optional[str] = None
    dcqcn_byte_counter: Optional[Union[str, int]] = None
    dcqcn_f: Optional[int] = None
    dcqcn_rai: Optional[str] = None
    dcqcn_rhai: Optional[str] = None
    dcqcn_min_rate: Optional[str] = None
    dcqcn_cnp_interval: Optional[str] = None
    dcqcn_rto: Optional[str] = None
    #: TIMELY (``transport="timely"``; docs/timely.md): α, β, T_low, T_high, minRTT, δ, δ_HAI, N, rate floor, go-back-N timeout
    timely_alpha: Optional[Union[float, str]] = None
    timely_beta: Optional[Union[float, str]] = None
    timely_t_low: Optional[str] = None
    timely_t_high: Optional[str] = None
    timely_min_rtt: Optional[str] = None
    timely_rai: Optional[str] = None
    timely_rhai: Optional[str] = None
    timely_hai_after: Optional[int] = None
    timely_min_rate: Optional[str] = None
    timely_rto: Optional[str] = None
    extra: Optional[Dict[str, Any]] = None

    def to_dict(self) -> Dict[str, Any]:
        out = super().to_dict()
        # JSON has no infinity; the schema spells it "inf".
        for k in ("tcprand_v_tau", "tcprand_v_omega"):
            v = out.get(k)
            if isinstance(v, float) and math.isinf(v) and v > 0:
                out[k] = "inf"
        return out


# --- topologies --------------------------------------------------------------


@dataclass(repr=False)
class Star(_Builder):
    """``hosts`` hosts on one switch (incast)."""

    _kind: ClassVar[str] = "star"
    hosts: int
    rate: Optional[str] = None
    delay: Optional[str] = None
    buffer: Optional[Union[str, int]] = None
    ecn_k: Optional[Union[str, int]] = None
    ecn_non_ect: Optional[str] = None
    ecn_kmax: Optional[Union[str, int]] = None
    ecn_pmax: Optional[Union[float, str]] = None
    nic_buffer: Optional[Union[str, int]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class TwoTier(_Builder):
    """Racks of hosts under ToR switches, ToRs under one aggregation switch."""

    _kind: ClassVar[str] = "two_tier"
    racks: int
    hosts_per_rack: int
    host_rate: Optional[str] = None
    core_rate: Optional[str] = None
    delay: Optional[str] = None
    tor_buffer: Optional[Union[str, int]] = None
    agg_buffer: Optional[Union[str, int]] = None
    tor_ecn_k: Optional[Union[str, int]] = None
    agg_ecn_k: Optional[Union[str, int]] = None
    uplink_buffer: Optional[Union[str, int]] = None
    uplink_ecn_k: Optional[Union[str, int]] = None
    buffer: Optional[Union[str, int]] = None
    ecn_k: Optional[Union[str, int]] = None
    ecn_non_ect: Optional[str] = None
    ecn_kmax: Optional[Union[str, int]] = None
    ecn_pmax: Optional[Union[float, str]] = None
    nic_buffer: Optional[Union[str, int]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class FatTree(_Builder):
    """Al-Fares k-ary fat-tree (k even): k³/4 hosts."""

    _kind: ClassVar[str] = "fat_tree"
    k: int
    rate: Optional[str] = None
    delay: Optional[str] = None
    buffer: Optional[Union[str, int]] = None
    ecn_k: Optional[Union[str, int]] = None
    ecn_non_ect: Optional[str] = None
    ecn_kmax: Optional[Union[str, int]] = None
    ecn_pmax: Optional[Union[float, str]] = None
    nic_buffer: Optional[Union[str, int]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class LeafSpine(_Builder):
    """Leaves with ``hosts_per_leaf`` hosts each, every leaf linked to every spine."""

    _kind: ClassVar[str] = "leaf_spine"
    leaves: int
    spines: int
    hosts_per_leaf: int
    host_rate: Optional[str] = None
    fabric_rate: Optional[str] = None
    delay: Optional[str] = None
    buffer: Optional[Union[str, int]] = None
    ecn_k: Optional[Union[str, int]] = None
    ecn_non_ect: Optional[str] = None
    ecn_kmax: Optional[Union[str, int]] = None
    ecn_pmax: Optional[Union[float, str]] = None
    nic_buffer: Optional[Union[str, int]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class Node(_Builder):
    """A node of a custom topology; ``kind`` is ``"host"`` or ``"switch"``."""

    name: str
    kind: str = "host"


@dataclass(repr=False)
class Link(_Builder):
    """A full-duplex link of a custom topology (``buffer``/``ecn_k`` override the topology's)."""

    a: str
    b: str
    rate: Optional[str] = None
    delay: Optional[str] = None
    buffer: Optional[Union[str, int]] = None
    ecn_k: Optional[Union[str, int]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class Custom(_Builder):
    """Custom topology: ``nodes`` (``Node``, dicts or ``(name, kind)`` pairs)
    and ``links`` (``Link``, dicts or ``(a, b, rate, delay)`` tuples: a link
    has no rate or delay but its own). Tuples may be lists."""

    _kind: ClassVar[str] = "custom"
    nodes: List[Any]
    links: List[Any]
    buffer: Optional[Union[str, int]] = None
    ecn_k: Optional[Union[str, int]] = None
    ecn_non_ect: Optional[str] = None
    ecn_kmax: Optional[Union[str, int]] = None
    ecn_pmax: Optional[Union[float, str]] = None
    nic_buffer: Optional[Union[str, int]] = None
    extra: Optional[Dict[str, Any]] = None

    def to_dict(self) -> Dict[str, Any]:
        out = super().to_dict()
        # a tuple longer than its short form reached the core as an array,
        # "expected a table, got an array", though Link's order is the same
        too_long = [(f"topology.{key}[{i}]", len(x), form, kind)
                    for key, items, form, kind in (("nodes", self.nodes, "(name, kind)", "Node"),
                                                   ("links", self.links, "(a, b, rate, delay)", "Link"))
                    if isinstance(items, (list, tuple))
                    for i, x in enumerate(items) if isinstance(x, (tuple, list)) and len(x) > form.count(",") + 1]
        if too_long:
            from .errors import Problem, ScenarioError

            raise ScenarioError([Problem(path, f"a tuple here is {form}, got {n} values: give the other keys by "
                                               f"name (a {kind} or a table)")
                                 for path, n, form, kind in too_long])
        # not a list: as it is, for the core to name (validate never raises)
        out["nodes"] = ([_positional(n, ("name", "kind")) for n in self.nodes]
                        if isinstance(self.nodes, (list, tuple)) else _plain(self.nodes))
        out["links"] = ([_positional(lk, ("a", "b", "rate", "delay")) for lk in self.links]
                        if isinstance(self.links, (list, tuple)) else _plain(self.links))
        return out


def _positional(item: Any, names: Tuple[str, ...]) -> Any:
    """A tuple or list of at most ``len(names)`` values -> the table of
    those keys, in order; anything else as it is (a builder, a dict, or
    what the core will name the problem of)."""
    if isinstance(item, (tuple, list)) and 0 < len(item) <= len(names):
        return {k: _plain(v) for k, v in zip(names, item)}
    return _plain(item)


# --- apps --------------------------------------------------------------------


@dataclass(repr=False)
class Bulk(_Builder):
    """One long TCP flow ``src -> dst``: exactly one of ``size`` or ``duration``."""

    _kind: ClassVar[str] = "bulk"
    src: int
    dst: int
    size: Optional[Union[str, int]] = None
    duration: Optional[str] = None
    start: Optional[str] = None
    start_jitter: Optional[str] = None
    tcp: Optional[Union[Tcp, Dict[str, Any]]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class PartitionAggregate(_Builder):
    """``aggregator`` queries ``workers`` (list, ``range`` or ``"1-99"``), ``queries`` times."""

    _kind: ClassVar[str] = "partition_aggregate"
    aggregator: int
    workers: Hosts
    response: Optional[Union[str, int]] = None
    request: Optional[Union[str, int]] = None
    queries: Optional[int] = None
    gap: Optional[str] = None
    start: Optional[str] = None
    start_jitter: Optional[str] = None
    tcp: Optional[Union[Tcp, Dict[str, Any]]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class SyncReads(_Builder):
    """``client`` reads ``blocks`` blocks, one SRU from each of ``servers`` per block."""

    _kind: ClassVar[str] = "sync_reads"
    client: int
    servers: Hosts
    sru: Optional[Union[str, int]] = None
    request: Optional[Union[str, int]] = None
    blocks: Optional[int] = None
    jitter: Optional[str] = None
    spacing: Optional[str] = None
    start: Optional[str] = None
    start_jitter: Optional[str] = None
    tcp: Optional[Union[Tcp, Dict[str, Any]]] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class UdpCbr(_Builder):
    """UDP constant-bit-rate source ``src -> dst``."""

    _kind: ClassVar[str] = "udp_cbr"
    src: int
    dst: int
    rate: str
    payload: Optional[Union[str, int]] = None
    start: Optional[str] = None
    start_jitter: Optional[str] = None
    stop: Optional[str] = None
    extra: Optional[Dict[str, Any]] = None


@dataclass(repr=False)
class Poisson(_Builder):
    """Open-loop Poisson flow arrivals at ``load`` (0 < load <= 1: arrival
    rate × mean size / Σ access-link rate of the sources), sizes from
    ``cdf`` (``"websearch"``, ``"datamining"`` or ``[[size, p], ...]``) or
    ``cdf_file``; random source != destination pairs from ``sources`` /
    ``destinations`` (default: every host). Arrivals stop after
    ``duration`` (default: until the scenario's ``stop``) or ``flows``."""

    _kind: ClassVar[str] = "poisson"
    load: float
    cdf: Optional[Union[str, Sequence[Sequence[Union[int, float, str]]]]] = None
    cdf_file: Optional[str] = None
    sampling: Optional[str] = None
    sources: Optional[Hosts] = None
    destinations: Optional[Hosts] = None
    duration: Optional[str] = None
    flows: Optional[int] = None
    start: Optional[str] = None
    tcp: Optional[Union[Tcp, Dict[str, Any]]] = None
    extra: Optional[Dict[str, Any]] = None


# --- failures ----------------------------------------------------------------


@dataclass(repr=False)
class Failure(_Builder):
    """Every link joining nodes ``a`` and ``b`` (names: ``"h3"``,
    ``"aggr0_1"``) goes down (``loss=1``, the default), loses a fraction
    of its packets (``0 < loss < 1``) or runs at ``rate`` from ``at`` until
    ``until`` (default: for good), in ``direction`` ``"both"``,
    ``"a_to_b"`` or ``"b_to_a"``. Routing does not react (docs/model.md,
    Link failures) unless ``withdrawn=True`` (converged around the link
    from the start) or ``converge`` (routing withdraws it that long after
    ``at``)."""

    a: str
    b: str
    at: Optional[str] = None
    until: Optional[str] = None
    loss: Optional[Union[float, str]] = None
    rate: Optional[str] = None
    direction: Optional[str] = None
    #: routing has converged around it (a link between switches, down from the start for good)
    withdrawn: Optional[bool] = None
    #: routing withdraws the link this long after ``at`` (and restores it as long after ``until``)
    converge: Optional[str] = None
    extra: Optional[Dict[str, Any]] = None


# --- priority flow control ---------------------------------------------------


@dataclass(repr=False)
class Pfc(_Builder):
    """Priority flow control at every switch ingress (``[pfc]``, a lossless
    fabric): a port holding more than ``xoff`` (bytes, or ``"15pkt"``) in
    its switch pauses its sender until it falls below ``xon``; every
    argument left out takes htsim's value (135,000 and 108,000 B);
    ``enabled=False`` turns it off (docs/model.md, Priority flow control)."""

    xoff: Optional[Union[str, int]] = None
    xon: Optional[Union[str, int]] = None
    enabled: Optional[bool] = None
    extra: Optional[Dict[str, Any]] = None


# --- the whole scenario ------------------------------------------------------


@dataclass(repr=False)
class Scenario(_Builder):
    """A whole scenario. ``routing`` is a mode name (``"single"``, ``"ecmp"``,
    ``"rps"``, ``"flowlet"``) or a full table (``{"mode": "ecmp", "salt":
    False}``, ``{"mode": "flowlet", "flowlet_gap": "100us"}``); ``apps`` one app or a list;
    ``pcap`` the hosts to trace (list, ``range``, ``"a-b"``) or a full table.
    Its fields are the document's keys in the core schema (checked by
    tests/test_schema.py)."""

    topology: Any
    apps: Any
    tcp: Optional[Union[Tcp, Dict[str, Any]]] = None
    routing: Optional[Union[str, Dict[str, Any]]] = "ecmp"
    stop: Optional[str] = "10s"
    name: Optional[str] = "scenario"
    seed: Optional[int] = 1
    l2_overhead: Optional[int] = 0
    switch_delay: Optional[str] = None
    host_jitter: Optional[str] = None
    #: equal-time order: ``"seeded"`` (default: any thread count, the same
    #: bits) or ``"fifo"`` (as ns-2/ns-3; one thread)
    ties: Optional[str] = None
    #: when the run ends: ``"apps_done"`` (default: when the last app
    #: finishes, or at ``stop``) or ``"stop"`` (at ``stop`` whatever the
    #: apps do, as ns-3's ``Simulator::Stop``)
    until: Optional[str] = None
    #: threads (partitions) that run this one simulation: a number or
    #: ``"auto"`` (default: the cores free now, where the cut pays)
    threads: Optional[Union[int, str]] = None
    pcap: Optional[Any] = None
    #: time series: ``{"interval": "1ms", "flows": True, "queues": "switches"}``
    trace: Optional[Dict[str, Any]] = None
    #: guards checked before a run: ``{"memory": "64GB", "events": 1e13}``
    limits: Optional[Dict[str, Any]] = None
    #: payload trimming and header queues at every switch port (NDP's
    #: switch): ``{}`` for htsim's defaults, or ``{"header_buffer": "64KB",
    #: "return_to_sender": True}``
    trimming: Optional[Dict[str, Any]] = None
    #: priority flow control at every switch ingress (a lossless fabric):
    #: ``Pfc()`` or ``{}`` for htsim's thresholds, ``Pfc(xoff="30KB", xon="20KB")``
    pfc: Optional[Union[Pfc, Dict[str, Any]]] = None
    #: in-band telemetry at every switch egress (on by itself when a flow runs HPCC)
    int: Optional[bool] = None
    #: links that go down, lose packets or slow down: ``Failure`` or dicts
    failures: Optional[Sequence[Any]] = None
    extra: Optional[Dict[str, Any]] = None

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for key in ("name", "seed", "stop", "l2_overhead", "switch_delay", "host_jitter", "ties", "until", "threads", "int"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v
        if self.pcap is not None:
            # hosts to trace: a list, range or "a-b" string, or the full table
            out["pcap"] = _plain(self.pcap) if isinstance(self.pcap, Mapping) else {"hosts": _plain(self.pcap)}
        if self.trace is not None:
            out["trace"] = _plain(self.trace)
        out["topology"] = _plain(self.topology)
        if self.routing is not None:
            out["routing"] = {"mode": self.routing} if isinstance(self.routing, str) else _plain(self.routing)
        if self.tcp is not None:
            out["tcp"] = _plain(self.tcp)
        if self.apps is None:
            # [None] was reported at apps[0] ("expected a table, got null")
            from .errors import Problem, ScenarioError

            raise ScenarioError([Problem("apps", "no apps: give one app or a list of them "
                                                 "(Bulk, PartitionAggregate, SyncReads, Poisson, …)")])
        apps = self.apps if isinstance(self.apps, (list, tuple)) else [self.apps]
        out["apps"] = [_plain(a) for a in apps]
        if self.limits is not None:
            out["limits"] = _plain(self.limits)
        if self.trimming is not None:
            out["trimming"] = _plain(self.trimming)
        if self.failures is not None:
            # one failure, as one app, is a list of one; anything else but a
            # list goes as it is, for the core to name (validate never raises)
            fs = self.failures
            out["failures"] = ([_plain(f) for f in fs] if isinstance(fs, (list, tuple))
                               else [_plain(fs)] if isinstance(fs, (_Builder, Mapping)) else _plain(fs))
        if self.pfc is not None:
            out["pfc"] = _plain(self.pfc)
        merge_extra("Scenario", out, self.extra)
        return out


