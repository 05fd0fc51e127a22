"""The schemes of the modern study and what each needs from the fabric.

Each workload keeps its own paper's ``[tcp]`` table (packet size, RTOmin,
the papers' NewReno recovery); a scheme is laid on top of it:

* NewReno, DCTCP and FaST as FaST's module runs them (its g, wmin, smin and
  probe segments), TCPRand as TCPRand's module runs CTD (CUBIC + adaptive
  TCPRand, its default preset);
* NDP, Swift and HPCC replace the TCP endpoint (``tcp.transport``): only the
  workload's ``mss`` and ``header`` are kept, every transport key keeps its
  default (docs/ndp.md, docs/swift.md, docs/hpcc.md) but for Swift's target,
  below.
* Linux and BBR are today's Linux host (``profile = "linux"``,
  docs/linux_profile.md: CUBIC with HyStart, SACK, RACK-TLP, PRR, delayed
  ACKs, an initial window of 10; BBR is the same stack with ``cc = "bbr"``,
  docs/bbr.md): the profile replaces the papers' stack, and the workload
  keeps its ``mss`` and ``header`` (the same packets as every other scheme)
  and its ``rto_min`` (the operator's per-route setting, ``ip route ...
  rto_min``, as each paper configured its hosts).

Fabric features, per scheme (:func:`fabric_features` says the same in
words, for the report): DCTCP and FaST get ECN marking at the workload's K;
NDP gets trimming switches (``trimming = {}``: header queues of twice each
port's buffer, 64-byte headers) and per-packet spraying (``rps``); HPCC gets
in-band telemetry (on by itself with ``transport = "hpcc"``); the rest run
on the workload's drop-tail FIFOs, without ECN marking (a mark nobody reads
changes nothing, and the scenario check warns about it).

Swift's target: its defaults (htsim's: base 20 µs, h = base / 6.55 =
3.05 µs per hop) are meant for a fabric of 100 Gbps and 1 µs links, whose
unloaded RTT is about 12 µs. The seeds' fabrics have unloaded RTTs of
78–334 µs (1 Gbps, 25–50 µs links and switches), where every delay sample
exceeds the default target and the window sits at its 10-byte minimum (one
packet per ~20 ms: measured 5.7 s per 8 MB block on Kulkarni's star at
n = 32). Swift's topology scaling exists for this: the target grows by h per
hop. So h here is the default 3.05 µs plus the largest share of the
unloaded RTT (propagation and switch delay both ways, one data packet's
serialization) per hop over the workload's paths, so that every path's
target lies above its unloaded RTT; every other key keeps its default.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Tuple

from ..fast import common as fast
from ..tcprand import common as tcprand

#: Swift's default per-hop target, base / 6.55 at the default base of 20 µs (docs/swift.md)
SWIFT_DEFAULT_HOP_NS = 3053

#: the FaST keys of FaST's own module (fast/common.py, tcp())
FAST_KEYS: Dict[str, Any] = {"cc": "fast", "fast_seg_rule": "continuous", "fast_g": 0.0625, "fast_wmin": 2,
                             "fast_smin": "100B", "fast_probe_segments": 3}

#: scheme name -> (kind, keys): kind "tcp" overlays ``keys`` on the
#: workload's [tcp] table; kind "transport" replaces it (keeping mss,
#: header); kind "profile" replaces it with a profile (keeping mss, header
#: and rto_min)
SCHEMES: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "NewReno": ("tcp", {"cc": "newreno"}),
    "DCTCP": ("tcp", {"cc": "dctcp", "dctcp_g": 0.0625}),
    "FaST": ("tcp", dict(FAST_KEYS)),
    "TCPRand": ("tcp", dict(tcprand.SERIES["CTD"])),
    "Linux": ("profile", {"profile": "linux"}),
    "BBR": ("profile", {"profile": "linux", "cc": "bbr"}),
    "NDP": ("transport", {"transport": "ndp"}),
    "Swift": ("transport", {"transport": "swift"}),
    "HPCC": ("transport", {"transport": "hpcc"}),
}
SCHEME_NAMES: List[str] = list(SCHEMES)
#: schemes that read ECN marks
ECN_SCHEMES = ("DCTCP", "FaST")
#: the papers' schemes (drawn solid) and the transports that came after (dashed)
PAPERS_SCHEMES = ("NewReno", "DCTCP", "FaST", "TCPRand")


def slug(scheme: str) -> str:
    return scheme.lower()


def swift_hop_scale(rtt_per_hop_us: float) -> str:
    """Swift's h on a fabric whose paths have at most ``rtt_per_hop_us`` of
    unloaded RTT per hop: the default plus that."""
    return f"{SWIFT_DEFAULT_HOP_NS + round(rtt_per_hop_us * 1000)}ns"


def scheme_tcp(scheme: str, base: Dict[str, Any], rtt_per_hop_us: float) -> Dict[str, Any]:
    """The [tcp] table of ``scheme`` on a workload whose own table is ``base``
    and whose paths have at most ``rtt_per_hop_us`` of unloaded RTT per hop."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r} (known: {', '.join(SCHEMES)})")
    kind, keys = SCHEMES[scheme]
    if kind in ("transport", "profile"):
        kept = ("mss", "header") + (("rto_min",) if kind == "profile" else ())
        t: Dict[str, Any] = {k: base[k] for k in kept if k in base}
        t.update(keys)
        if keys.get("transport") == "swift":
            t["swift_hop_scale"] = swift_hop_scale(rtt_per_hop_us)
        return t
    t = {k: v for k, v in base.items() if not k.startswith(("fast_", "dctcp_", "tcprand_")) and k != "segment"}
    t.update(keys)
    if t["cc"] == "cubic":
        # CUBIC grows by its own curve (tcprand/common.py's tcp_table drops it too)
        t.pop("ca_increase", None)
    return t


def apply_fabric(scheme: str, doc: Dict[str, Any], ecn_k: Optional[str] = None) -> Dict[str, Any]:
    """``doc`` with the switch features ``scheme`` needs: ECN marking for
    DCTCP and FaST (at ``ecn_k`` on every port, or, with None, the marking
    the workload's topology already has), none for the others; trimming and
    spraying for NDP."""
    d = copy.deepcopy(doc)
    topo = d["topology"]
    if scheme not in ECN_SCHEMES:
        _set_ecn(topo, None)
    elif ecn_k is not None:
        _set_ecn(topo, ecn_k)
    if scheme == "NDP":
        d["trimming"] = {}
        d["routing"] = {"mode": "rps"}
    return d


def _set_ecn(topo: Dict[str, Any], ecn_k: Optional[str]) -> None:
    for holder in [topo] + list(topo.get("links", [])):
        holder.pop("ecn_k", None)
    if ecn_k is None:
        return
    if topo.get("kind") == "custom":
        for link in topo["links"]:
            link["ecn_k"] = ecn_k
    else:
        topo["ecn_k"] = ecn_k


def fabric_features(scheme: str) -> str:
    """What the fabric had under ``scheme``, in words."""
    if scheme in ECN_SCHEMES:
        return "drop-tail FIFOs with ECN marking at the workload's K"
    if scheme == "NDP":
        return "trimming switches (header queue 2 × buffer, 64 B headers) and per-packet spraying (rps)"
    if scheme == "HPCC":
        return "drop-tail FIFOs with in-band telemetry (INT)"
    if scheme == "Swift":
        return "drop-tail FIFOs; NIC timestamps at the hosts"
    return "drop-tail FIFOs"


def settings_text(scheme: str, per_hop: str = "") -> str:
    """The scheme's own keys, for the report's settings table; ``per_hop``
    names each workload's unloaded RTT per hop (Swift's h)."""
    kind, keys = SCHEMES[scheme]
    if kind == "profile":
        return (", ".join(f"{k} = {v!r}" for k, v in keys.items())
                + " (docs/linux_profile.md); the workload's mss, header and rto_min")
    if scheme == "Swift":
        return ("transport = \"swift\", every key at its default but swift_hop_scale = 3.05 µs + the workload's "
                f"largest unloaded RTT per hop ({per_hop}); the workload's mss and header")
    if kind == "transport":
        return f"transport = \"{keys['transport']}\", every key at its default; the workload's mss and header"
    return ", ".join(f"{k} = {v!r}" for k, v in keys.items()) + "; the rest of the workload's [tcp] table"


#: K for DCTCP and FaST on Kulkarni's 1 Gbps star: FaST's module marks its
#: 1 Gbps ports at 20 packets (the DCTCP paper's 1 Gbps setting)
STAR_ECN_K = fast.K_1G
