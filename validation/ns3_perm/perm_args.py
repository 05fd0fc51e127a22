"""The ns-3 program perm.cc's arguments for a dcnsim DCTCP permutation
document (``dcnsim.bench.dctcp_perm``): the same fat-tree, rates, queues,
transport and flows, and each flow's data and ACKs on the path dcnsim's
ECMP gives them.

Why the paths are handed over: ECMP draws decide which flows share a link,
and so how much the network carries. dcnsim alone, the permutation fixed
and only the seed's ECMP salts changed, moves its packet-hops by about
±15 % at k = 4 and ±4 % at k = 8 (five seeds, 210 ms), far beyond the 1 %
the side-by-side asks of two simulators running the same scenario. So
ns-3 routes each flow where dcnsim does, and what is left to differ is
the simulators' TCP and queues.

dcnsim's ECMP (docs/model.md, Routing; crates/dcnsim/src/world.rs
``pick``): at a node with n equal-cost next hops (the directed links
leaving it, ascending by link: on the fat-tree an edge switch's
aggregation switches and an aggregation switch's cores in index order) it
takes ``mix64(five_tuple ^ salt[node]) % n``, with ``five_tuple =
mix64(src << 32 | dst) ^ (flow << 18 | label << 2 | kind)`` (label 0 here;
kind 0 data, 1 ACK; an ACK's src is the data's receiver), ``salt[node] = mix64(seed ^ mix64(4 + (node << 8)))``
and the fat-tree's nodes numbered hosts first, then per pod its k/2 edge
and k/2 aggregation switches, then the cores. tests/test_ns3_perm.py holds
this mirror to dcnsim's own ``queue_inputs`` table: if the core's hashing
changes, that test fails.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

MASK = (1 << 64) - 1
ECMP_SALT_STREAM = 4  # crates/dcnsim/src/sim/rng.rs Stream::EcmpSalt
DATA, ACK = 0, 1


def mix64(z: int) -> int:
    """SplitMix64's finaliser, as crates/dcnsim/src/sim/rng.rs ``mix64``."""
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _choice(seed: int, node: int, src: int, dst: int, flow: int, kind: int, n: int) -> int:
    salt = mix64(seed ^ mix64(ECMP_SALT_STREAM + (node << 8)))
    five_tuple = mix64(src << 32 | dst) ^ (flow << 18 | kind)
    return mix64(five_tuple ^ salt) % n


def _up_choices(k: int, seed: int, src: int, dst: int, flow: int, kind: int) -> Tuple[int, int]:
    """(aggregation switch within the pod, core among that switch's k/2)
    that a packet from host src to host dst takes up; 0 where its path
    makes no choice (the same edge switch, or the same pod for the core)."""
    half = k // 2
    hosts = k * half * half
    pod, edge = src // (half * half), (src // half) % half
    if src // half == dst // half:
        return 0, 0
    j = _choice(seed, hosts + pod * k + edge, src, dst, flow, kind, half)
    if src // (half * half) == dst // (half * half):
        return j, 0
    return j, _choice(seed, hosts + pod * k + half + j, src, dst, flow, kind, half)


def _need(cond: bool, field: str, reason: str) -> None:
    if not cond:
        raise ValueError(f"{field}: {reason} (validation/ns3_perm/perm.cc runs only dcnsim.bench's DCTCP "
                         "permutation)")


def flows(doc: Dict[str, Any]) -> List[Tuple[int, int, int, int, int, int]]:
    """Per TCP flow (dcnsim numbers them in app order):
    (src, dst, data's aggregation choice, data's core choice, the ACKs' two)."""
    k = int(doc["topology"]["k"])
    seed = int(doc.get("seed", 0))
    out = []
    for f, app in enumerate(doc["apps"]):
        s, d = int(app["src"]), int(app["dst"])
        out.append((s, d, *_up_choices(k, seed, s, d, f, DATA), *_up_choices(k, seed, d, s, f, ACK)))
    return out


def ns3_args(doc: Dict[str, Any]) -> List[str]:
    """perm.cc's command line (without the program) for ``doc``; ValueError
    names the first field it cannot carry over."""
    from dcnsim.units import parse_rate, parse_size, parse_time

    topo, tcp, routing = doc["topology"], doc.get("tcp", {}), doc.get("routing", {})
    _need(topo.get("kind") == "fat_tree", "topology.kind", "a fat_tree")
    _need(routing.get("mode", "ecmp") == "ecmp" and routing.get("salt", True), "routing", "salted ECMP")
    _need(topo.get("nic_buffer") == "unlimited", "topology.nic_buffer", '"unlimited" (hosts never drop)')
    for key in ("switch_delay", "host_jitter", "l2_overhead", "ties"):
        _need(key not in doc and key not in topo, key, "dcnsim's default")
    _need(tcp.get("cc") == "dctcp" and int(tcp.get("header", 40)) == 40, "tcp", "DCTCP with 40 B of headers")
    for key in ("sack", "delayed_ack", "ecn"):
        _need(key not in tcp, f"tcp.{key}", "dcnsim's default")
    _need(parse_size(str(tcp["rwnd"])).binary >= 1 << 30, "tcp.rwnd", "never the limit (>= 1GB)")
    stop = parse_time(str(doc["stop"]))
    for i, app in enumerate(doc["apps"]):
        _need(app.get("kind") == "bulk" and set(app) == {"kind", "src", "dst", "duration"}
              and parse_time(str(app["duration"])) == stop, f"apps[{i}]", "a bulk flow from t = 0 to the stop")
    return [
        f"--k={int(topo['k'])}",
        f"--rate={parse_rate(str(topo['rate'])):.0f}bps",
        f"--delay-us={parse_time(str(topo['delay'])) * 1e6:g}",
        f"--buffer={parse_size(str(topo['buffer'])).binary:.0f}",
        f"--ecn-k={parse_size(str(topo['ecn_k'])).binary:.0f}",
        f"--mss={int(tcp['mss'])}",
        f"--iw={int(tcp['init_cwnd'])}",
        f"--ssthresh={int(tcp['init_ssthresh'])}",
        f"--alpha-init={float(tcp['dctcp_alpha_init']):g}",
        f"--g={float(tcp.get('dctcp_g', 0.0625)):g}",
        f"--rto-min-ms={parse_time(str(tcp['rto_min'])) * 1e3:g}",
        f"--rto-init-ms={parse_time(str(tcp['rto_init'])) * 1e3:g}",
        f"--stop={stop:g}",
        "--flows=" + ",".join(":".join(str(x) for x in f) for f in flows(doc)),
    ]
