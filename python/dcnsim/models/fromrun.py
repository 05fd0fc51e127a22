"""The incast model next to a simulated run, read from a results directory.

``dcnsim run SCENARIO --out DIR`` (or a sweep point) writes ``flows``,
``blocks`` (and ``losses`` when the core records them), ``scenario.json`` and
``summary.json``. :func:`model_from_run` measures the model's inputs from
those tables exactly as :mod:`dcnsim.models.measure` defines them and
evaluates the TD-only, Full, Split and n × Padhye models beside the
simulated goodput. scenario.json's units are read by the scenario loader's
own parser (:mod:`dcnsim.units`, in the core) — the one module of
:mod:`dcnsim.models` that needs the compiled core. It works on results
copied from another machine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from .._tables import read_table_or_none
from ..units import parse_rate, parse_size, parse_time
from .measure import IncastInputs, incast_inputs, model_vs_sim

__all__ = ["AppChoiceError", "RunModel", "model_from_run", "read_table"]


class AppChoiceError(ValueError):
    """The app asked for (``app=``, ``--app``) has no completed blocks in
    the run or is not in its scenario, or the run's blocks are of several
    apps and none was named; any other problem with the directory is a
    plain ``ValueError`` (or ``FileNotFoundError``)."""


def read_table(d: Path, name: str):
    """``name`` from a results directory (CSV or Parquet), or None if absent."""
    return read_table_or_none(d, name)


#: the segment a TCP profile sets (payload, TCP/IP headers in bytes)
PROFILE_SEGMENT = {"papers": (1460.0, 40.0), "linux": (1448.0, 52.0)}
#: `tcp.rto_min` left unset: both TCP profiles' 200 ms (scenario/schema.rs)
DEFAULT_RTO_MIN_S = 0.2


def _size_bytes(v: Any, default: float) -> float:
    """A size from scenario.json: an int (bytes) or a unit string (the core's parser)."""
    if v is None:
        return default
    if isinstance(v, (int, float)):
        return float(v)
    return parse_size(str(v)).binary


def _rate_bps(v: Any) -> Optional[float]:
    return None if v is None else parse_rate(str(v))


@dataclass
class RunModel:
    """Model inputs measured from one run, and every model's throughput."""

    directory: str
    inputs: IncastInputs
    throughput_bps: Dict[str, float]
    payload_bytes: float
    capacity_bps: Optional[float]
    notes: List[str] = field(default_factory=list)
    #: the payload the bottleneck carries at line rate (every model's cap)
    cap_bps: Optional[float] = None

    def __str__(self) -> str:
        i = self.inputs

        def val(x: float, fmt: str, scale: float = 1.0, unit: str = "") -> str:
            # an input the run could not give is said to be missing, not printed as "nan"
            return "n/a" if not math.isfinite(x) else f"{x * scale:{fmt}}{unit}"

        lines = [
            f"incast model vs simulation: {self.directory}",
            f"  measured inputs: n = {i.n:g}, p_c = {i.p_c:.3g}, p_r = {i.p_r:.3g}, "
            f"j = {val(i.j, '.3g')}{' (no loss event)' if not i.p_c > 0 else ''}, "
            f"RTT = {val(i.rtt_s, '.1f', 1e6, ' us')}, T0 = {val(i.t0_s, '.1f', 1e3, ' ms')}, "
            f"L = {val(i.L_pkts, '.0f', 1.0, ' pkts')}, zeta = {val(i.zeta, '.3g')}"
            + (f" (strict count {val(i.zeta_strict, '.3g')})"
               if math.isfinite(i.zeta_strict) and i.zeta_strict != i.zeta else ""),
        ]
        sim = self.throughput_bps["sim_bps"]
        names = [("sim_bps", "simulation"), ("td_bps", "TD-only model (3.21)"), ("full_bps", "Full model (3.39)"),
                 ("split_bps", "Split model (3.40)"), ("padhye_n_bps", "n x Padhye et al.")]
        for key, label in names:
            v = self.throughput_bps[key]
            if math.isnan(v):
                # T0 unknown (no timeout and no RTOmin to fall back on): no number to print
                lines.append(f"  {label:<22} {'n/a':>10}       (an input is unknown: see the notes)")
                continue
            if math.isinf(v):
                # p_c = 0 without a link rate to cap it: the model has no loss to pace it
                lines.append(f"  {label:<22} {'unbounded':>10}       (no loss event in the run, p_c = 0; "
                             "no link rate to cap it)")
                continue
            ratio = "" if key == "sim_bps" or not sim > 0 else f"  ({v / sim:.2f} x simulation)"
            # a model above the line rate is printed at it: say so, or the
            # cap reads as the model's own value
            capped = key != "sim_bps" and self.cap_bps is not None and v >= self.cap_bps * (1 - 1e-9)
            lines.append(f"  {label:<22} {v / 1e6:10.1f} Mbps{ratio}" + ("  [at the line-rate cap]" if capped else ""))
        for n in self.inputs.notes + self.notes:
            lines.append(f"  note: {n}")
        return "\n".join(lines)


def _client_port_rate(topo: Mapping[str, Any], flows: Any, app: Optional[int], table: Any) -> Optional[float]:
    """The rate of the switch port that feeds the blocks' client, from the
    ``queues`` table: where a topology names no common rate (a custom one
    sets each link's), the incast's bottleneck is that port. ``None`` when
    the client or its port cannot be found (no queues table, hosts not
    listed by name, several clients)."""
    nodes = topo.get("nodes")
    if not isinstance(nodes, list) or "dst" not in flows.columns:
        return None
    names = [n.get("name") for n in nodes if isinstance(n, Mapping) and n.get("kind") == "host"]
    resp = flows
    if "role" in resp.columns:
        resp = resp[resp.role == "response"]
    if app is not None and "app" in resp.columns:
        resp = resp[resp.app == app]
    clients = set(int(c) for c in resp.dst.unique())
    if len(clients) != 1:
        return None
    client = clients.pop()
    try:
        q = table("queues")
    except (FileNotFoundError, ValueError):
        return None
    if q is None or not 0 <= client < len(names) or not {"to", "rate_bps", "from_host"} <= set(q.columns):
        return None
    port = q[(q["to"] == names[client]) & ~q["from_host"].astype(bool)]
    return float(port["rate_bps"].iloc[0]) if len(port) == 1 else None


def model_from_run(directory: Union[str, Path], app: Optional[int] = None, *,
                   tables: Optional[Mapping[str, Any]] = None) -> RunModel:
    """Measure the incast model's inputs from the synchronized-reads run
    stored in ``directory`` and evaluate the models next to its goodput.
    ``tables``: the run's tables a caller has read already, by name
    (``flows``, ``blocks``, ``losses``; read from the directory when
    absent), so an analysis that reads them does not read them twice."""
    d = Path(directory)
    if not d.is_dir():
        why = "a file" if d.exists() else "no such directory"
        raise FileNotFoundError(f"{d}: not a results directory ({why}; `dcnsim run FILE --out DIR` writes one)")
    if not (d / "summary.json").is_file() and (d / "scenario.json").is_file():
        # a run's writer puts summary.json last: without it the directory is
        # an interrupted write (its mark beside it), its tables possibly of
        # two runs, or a scenario of the user's
        from ..result import WRITING_MARK

        why = "a write was interrupted" if (d / WRITING_MARK).is_file() else "a scenario.json alone is no run"
        raise ValueError(f"{d}: incomplete (it has no summary.json: {why}); run it again with --out")
    def table(name: str) -> Any:
        if tables is not None:
            try:
                return tables[name]  # a mapping that reads on demand may add it
            except KeyError:
                pass
        return read_table(d, name)

    flows, blocks = table("flows"), table("blocks")
    if flows is None or blocks is None:
        if (d / "sweep.csv").is_file():
            # a sweep's directory: its runs are its points' directories
            raise FileNotFoundError(f"{d}: a sweep's directory: give one point's directory (DIR/LABEL), which "
                                    "holds that run's flows and blocks tables")
        raise FileNotFoundError(f"{d}: needs flows and blocks tables (write them with `dcnsim run FILE --out DIR`)")
    scen: Dict[str, Any] = {}
    if (d / "scenario.json").is_file():
        scen = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
    if len(blocks) == 0:
        sync = any(isinstance(a, dict) and a.get("kind") == "sync_reads" for a in scen.get("apps") or [])
        why = ("no block finished before the run's stop: run it with a longer stop" if sync
               else "is it a sync_reads scenario? the model is of its blocks")
        raise ValueError(f"{d}: the run has no completed blocks ({why})")
    notes: List[str] = []
    tcp = dict(scen.get("tcp") or {})
    have = ", ".join(str(int(a)) for a in sorted(blocks.app.unique())) if "app" in blocks.columns else ""
    if app is None and "app" in blocks.columns:
        if blocks.app.nunique() > 1:
            raise AppChoiceError(f"{d}: the run has blocks of apps {have}: name one")
        app = int(blocks.app.iloc[0])
    if app is not None and "app" in blocks.columns and app not in set(int(a) for a in blocks.app.unique()):
        raise AppChoiceError(f"{d}: no completed block of app {app} (apps with blocks: {have})")
    if app is not None and scen.get("apps"):
        if not 0 <= app < len(scen["apps"]):
            raise AppChoiceError(f"{d}: app {app} out of range (the scenario has {len(scen['apps'])} apps)")
        tcp.update((scen["apps"][app] or {}).get("tcp") or {})
    # a profile's segment when the document sets none (scenario/schema.rs,
    # `profile`: Linux's MSS 1448 with 52 B of headers, timestamps on)
    mss0, header0 = PROFILE_SEGMENT.get(str(tcp.get("profile", "papers")), PROFILE_SEGMENT["papers"])
    payload = _size_bytes(tcp.get("mss"), mss0)
    header = float(tcp.get("header", 4 if tcp.get("header_compression") else header0))
    # every packet's framing on the wire (Ethernet's 38 B): the link's
    # capacity in payload is smaller by it too
    header += _size_bytes(scen.get("l2_overhead"), 0.0)
    topo = scen.get("topology") or {}
    capacity = _rate_bps(topo.get("rate") or topo.get("host_rate"))
    if capacity is None:
        capacity = _client_port_rate(topo, flows, app, table)
        if capacity is not None:
            notes.append(f"link rate {capacity / 1e6:g} Mbps: the switch port toward the client (queues table), "
                         "the topology naming no common rate")
    rto_min = tcp.get("rto_min")
    # the RTOmin the run's TCP had: its own, or, left unset, the TCP
    # profiles' 200 ms (scenario/schema.rs), known as well as a set one
    floor = parse_time(str(rto_min)) if rto_min is not None else (
        DEFAULT_RTO_MIN_S if str(tcp.get("transport", "tcp")) == "tcp" else None)
    losses = table("losses")
    rtt = None
    if "srtt_s" not in flows.columns:
        notes.append("flows has no srtt_s column; RTT unknown")
    inputs = incast_inputs(
        flows,
        blocks,
        payload,
        rtt_s=rtt,
        t0_default_s=floor,
        events=losses,
        app=app,
    )
    if floor is not None and math.isfinite(inputs.t0_s) and inputs.t0_s < floor:
        # the counter's stall starts at the flow's last transmission: a flow
        # that kept sending on duplicate ACKs until its timer fired waited
        # at least RTOmin without progress, most of it not counted
        notes.append(f"T0 = {inputs.t0_s * 1e3:.3g} ms is below the RTOmin of the run's TCP ({floor * 1e3:g} ms): "
                     "timeout_period_s counts each stall from the flow's last transmission, and flows that "
                     "kept sending (on duplicate ACKs) until their timer fired had no ACK progress for at "
                     "least RTOmin, so the model's cost of a timeout is understated here")
    b = blocks if app is None or "app" not in blocks.columns else blocks[blocks.app == app]
    sim_bps = 8.0 * float(b.bytes.sum()) / float(b.duration_s.sum())
    tp = model_vs_sim(inputs, sim_bps, payload, capacity_bps=capacity, wire_bytes=payload + header)
    if capacity is None:
        notes.append("no link rate in scenario.json: models are not capped at the bottleneck")
    transport = str(tcp.get("transport", "tcp"))
    cc = str(tcp.get("cc", "cubic" if str(tcp.get("profile", "papers")) == "linux" else "newreno"))
    if transport != "tcp":
        # NDP's or RoCE's "timeouts" are not TCP's RTOs (NDP records no stall: T0 came out 0)
        notes.append(f"transport {transport} is not TCP: the model describes TCP's windows, triple duplicate ACKs "
                     "and RTOs, so its inputs here are that transport's counters and its numbers no prediction")
    elif cc not in ("newreno", "reno"):
        notes.append(f"cc {cc}: the model assumes Reno's window (+1 segment a round, halved at a loss); "
                     "other congestion controls grow and cut it otherwise")
    cap = None if capacity is None else capacity * payload / (payload + header)
    return RunModel(str(d), inputs, tp, payload, capacity, notes, cap)

