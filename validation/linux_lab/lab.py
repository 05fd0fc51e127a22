"""The Linux lab's testbed: network namespaces for a client, a switch and up
to 32 servers, joined by veth pairs into a bridge in the switch's namespace.

    client ns (dl45-c)  eth0 ──veth── p0 ┐
    server ns (dl45-s1) eth0 ──veth── p1 ├─ br0 in the switch ns (dl45-sw)
    ...                                  │
    server ns (dl45-sN) eth0 ──veth── pN ┘

The bottleneck is the switch's client port: egress of ``p0`` is an htb class
at the client link's rate whose leaf is a pfifo of ``buffer`` packets (the
drop-tail port). Each server's ``eth0`` is shaped the same way at the server
link's rate over a pfifo of ``nic_buffer`` packets (dcnsim's host NIC queue),
and so is the client's. Segmentation and receive offloads are off on every
interface (ethtool), and every interface takes GSO packets of one segment
(``gso_max_segs 1``), so TCP hands the qdiscs MTU frames, one per skb, and a
pfifo of N packets holds N frames. ``rto_min`` and ``quickack`` are route metrics on
the connected route of every namespace; SACK and the metrics cache are
per-namespace sysctls; the congestion control is set per socket
(incast.py).

Everything the lab makes lives in namespaces named ``dl45-*``: deleting them
removes the veths, the bridge and the qdiscs with them. ``down()`` also
ends the processes still running in them (the servers incast.py started).

Needs root, ip(8), tc(8) and ethtool(8). Run through run.py; ``python
lab.py --down`` removes a lab left behind.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

PREFIX = "dl45-"
CLIENT = PREFIX + "c"
SWITCH = PREFIX + "sw"
SUBNET = "10.45.0"
MAX_SERVERS = 32
PORT = 5045


def server_ns(i: int) -> str:
    return f"{PREFIX}s{i}"


def client_ip() -> str:
    return f"{SUBNET}.1"


def server_ip(i: int) -> str:
    return f"{SUBNET}.{10 + i}"


@dataclass
class LabConfig:
    """The testbed's shape and the stack settings that are not per socket."""

    n: int  # servers
    bottleneck: str = "100mbit"  # the switch's client port (tc rate)
    buffer: int = 32  # its pfifo, packets
    server_rate: str = "1gbit"  # each server's link
    client_rate: str = "100mbit"  # the client's own egress (requests, ACKs)
    nic_buffer: int = 1000  # pfifo on the hosts' own egress, packets
    rto_min: str = "200ms"  # route metric
    quickack: bool = True  # route metric: ACK every segment at once (delayed ACKs off)
    sack: bool = True  # net.ipv4.tcp_sack in every namespace
    gso: bool = False  # let TCP build multi-segment GSO packets (the kernel's default; see offloads_off)
    # Further per-namespace sysctls (``--sysctl``), e.g. net.ipv4.tcp_slow_start_after_idle=0: a kernel
    # mechanism switched off to see whether it is what parts the two sides.
    extra_sysctls: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 1 <= self.n <= MAX_SERVERS:
            raise ValueError(f"n: 1 to {MAX_SERVERS} servers, got {self.n}")
        if self.buffer < 1 or self.nic_buffer < 1:
            raise ValueError(f"buffer: at least one packet, got {self.buffer} / {self.nic_buffer}")


def sh(args: Sequence[str], ns: Optional[str] = None, check: bool = True) -> str:
    """Run one command (in namespace ``ns``); its stdout. A failure names
    the command and what it printed."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed ({r.returncode}): {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


def require_down_tools() -> None:
    """What removing a lab needs: `ip` and root (not tc, ethtool or nstat,
    which only building and measuring one need)."""
    if shutil.which("ip") is None:
        raise SystemExit("removing the lab needs ip (apt-get install iproute2)")
    if os.geteuid() != 0:
        raise SystemExit("removing the lab needs root: run it with sudo")


def require_tools() -> None:
    missing = [t for t in ("ip", "tc", "ethtool", "nstat") if shutil.which(t) is None]
    if missing:
        raise SystemExit(f"the lab needs {', '.join(missing)} (apt-get install iproute2 ethtool)")
    if os.geteuid() != 0:
        raise SystemExit("the lab needs root (network namespaces, tc): run it with sudo")
    lacking = missing_capabilities()
    if lacking:
        raise SystemExit(f"the lab needs {' and '.join(lacking)} (network namespaces, tc), which this root "
                         "lacks: a container started without them (docker run --cap-add NET_ADMIN --cap-add "
                         "SYS_ADMIN, or --privileged)?")


#: The capabilities `ip netns add` (a mount and an unshare) and tc need, by bit.
NEEDED_CAPS = {"CAP_NET_ADMIN": 12, "CAP_SYS_ADMIN": 21}


def missing_capabilities(status: str = "/proc/self/status") -> List[str]:
    """The capabilities of :data:`NEEDED_CAPS` the process's effective set
    lacks (none when the set cannot be read: the commands then say)."""
    try:
        line = next(x for x in Path(status).read_text().splitlines() if x.startswith("CapEff:"))
        eff = int(line.split()[1], 16)
    except (OSError, StopIteration, ValueError, IndexError):
        return []
    return [name for name, bit in NEEDED_CAPS.items() if not eff >> bit & 1]


def namespaces() -> List[str]:
    """The lab's namespaces that exist now."""
    out = sh(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


def down() -> List[str]:
    """Remove everything the lab made: end the processes in its namespaces
    (by pid, only those), then delete the namespaces (and with them every
    veth, the bridge and the qdiscs). The namespaces removed."""
    gone = namespaces()
    for ns in gone:
        for pid in sh(["ip", "netns", "pids", ns], check=False).split():
            try:
                os.kill(int(pid), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass
    for ns in gone:
        sh(["ip", "netns", "delete", ns], check=False)
    return gone


def shape(ns: str, dev: str, rate: str, limit: int) -> None:
    """Egress of ``dev``: an htb class at ``rate`` over a pfifo of ``limit``
    packets. A burst of one frame, so the class sends no faster than
    ``rate`` even for a moment (htb's default burst would let several
    frames pass at the veth's speed)."""
    tc = ["tc"]
    sh(tc + ["qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"], ns)
    sh(tc + ["class", "replace", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate,
             "burst", "1514b", "cburst", "1514b", "quantum", "1514"], ns)
    sh(tc + ["qdisc", "replace", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo", "limit", str(limit)], ns)


def offloads_off(ns: str, dev: str, gso: bool = False) -> None:
    # TSO/GSO would hand the qdisc 64 KB super-frames (a pfifo counts each as
    # one packet); GRO would merge them again on the way in.
    sh(["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], ns)
    if not gso:
        # ethtool's "gso off" is not enough: TCP builds GSO packets whatever
        # the device offers (segmented in software after the qdisc), sized by
        # tcp_tso_autosize and held back by tcp_tso_should_defer, so a server
        # sent nothing on half its ACKs and 2-6 back-to-back segments on the
        # others (59 % of its segments within 30 us of the one before, with
        # one ACK every 121 us). One segment per GSO packet keeps the ACK clock.
        sh(["ip", "link", "set", "dev", dev, "gso_max_segs", "1"], ns)


def route(ns: str, ip: str, cfg: LabConfig) -> None:
    """The connected route of ``ns`` with the lab's rto_min and quickack."""
    sh(["ip", "route", "replace", f"{SUBNET}.0/24", "dev", "eth0", "proto", "kernel", "scope", "link", "src", ip,
        "rto_min", cfg.rto_min, "quickack", "1" if cfg.quickack else "0"], ns)


#: The sysctls the lab sets itself (``--sysctl`` may not override them).
LAB_SYSCTLS = ("net.ipv4.tcp_sack", "net.ipv4.tcp_no_metrics_save")


def sysctls(ns: str, cfg: LabConfig) -> None:
    sh(["sysctl", "-q", "-w", f"net.ipv4.tcp_sack={int(cfg.sack)}",
        # No ssthresh or RTT carried from one connection to the next.
        "net.ipv4.tcp_no_metrics_save=1", *(f"{k}={v}" for k, v in cfg.extra_sysctls.items())], ns)


def parse_sysctls(items: Sequence[str]) -> Dict[str, str]:
    """``KEY=VALUE`` arguments as a dict; only net.ipv4.* and net.core.* keys (per network namespace)."""
    out: Dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValueError(f"--sysctl: expected KEY=VALUE, got {item!r}")
        if not key.startswith(("net.ipv4.", "net.core.")):
            raise ValueError(f"--sysctl: {key!r} is not a per-namespace network sysctl (net.ipv4.* or net.core.*)")
        if key in LAB_SYSCTLS:
            raise ValueError(f"--sysctl: {key} is the lab's own (use --sack for SACK)")
        out[key] = value
    return out


def host(ns: str, ip: str, peer: str, rate: str, cfg: LabConfig) -> None:
    """A host namespace ``ns`` with ``eth0`` at ``ip``, its veth peer
    ``peer`` in the bridge."""
    sh(["ip", "netns", "add", ns])
    sh(["ip", "link", "set", "lo", "up"], ns)
    sh(["ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", peer, "netns", SWITCH])
    sh(["ip", "addr", "add", f"{ip}/24", "dev", "eth0"], ns)
    sh(["ip", "link", "set", "eth0", "up"], ns)
    sh(["ip", "link", "set", peer, "master", "br0", "up"], SWITCH)
    offloads_off(ns, "eth0", cfg.gso)
    offloads_off(SWITCH, peer, cfg.gso)
    shape(ns, "eth0", rate, cfg.nic_buffer)
    route(ns, ip, cfg)
    sysctls(ns, cfg)


def up(cfg: LabConfig) -> None:
    """Build the lab for ``cfg`` (after removing any lab left behind)."""
    require_tools()
    down()
    sh(["ip", "netns", "add", SWITCH])
    sh(["ip", "link", "set", "lo", "up"], SWITCH)
    # No STP and no forwarding delay: the ports forward as soon as they are up.
    sh(["ip", "link", "add", "br0", "type", "bridge", "stp_state", "0", "forward_delay", "0"], SWITCH)
    sh(["ip", "link", "set", "br0", "up"], SWITCH)
    host(CLIENT, client_ip(), "p0", cfg.client_rate, cfg)
    for i in range(1, cfg.n + 1):
        host(server_ns(i), server_ip(i), f"p{i}", cfg.server_rate, cfg)
    # The bottleneck: the switch's port towards the client.
    shape(SWITCH, "p0", cfg.bottleneck, cfg.buffer)
    # ARP resolves while incast.py connects, before the first block is timed.


def qdisc_stats(ns: str, dev: str) -> dict:
    """``tc -s`` of the pfifo under ``dev``'s htb class: packets and bytes
    sent, drops, overlimits."""
    import json

    out = json.loads(sh(["tc", "-s", "-j", "qdisc", "show", "dev", dev], ns) or "[]")
    for q in out:
        if q.get("kind") == "pfifo":
            return {"packets": int(q.get("packets", 0)), "bytes": int(q.get("bytes", 0)),
                    "drops": int(q.get("drops", 0)), "backlog": int(q.get("qlen", 0))}
    raise RuntimeError(f"no pfifo on {ns}/{dev}: {out}")


#: nstat counters the lab reads (TCP's own, per namespace).
NSTAT = ("TcpRetransSegs", "TcpOutSegs", "TcpExtTCPTimeouts", "TcpExtTCPLossProbes", "TcpExtTCPSackRecovery",
         "TcpExtTCPRenoRecovery", "TcpExtTCPSpuriousRTOs", "TcpExtTCPLossUndo", "TcpExtTCPFullUndo",
         "TcpExtTCPPartialUndo", "TcpExtTCPRenoRecoveryFail", "TcpExtTCPSackRecoveryFail",
         "TcpExtTCPLostRetransmit", "TcpExtTCPFastRetrans", "TcpExtTCPSlowStartRetrans", "TcpExtTCPHystartTrainDetect",
         "TcpExtTCPHystartDelayDetect", "TcpExtTCPRenoReorder", "TcpExtTCPSACKReorder", "TcpExtTCPTSReorder")


def nstat(ns: str) -> dict:
    """The namespace's TCP counters now (absolute; nstat's history left alone)."""
    import json

    raw = json.loads(sh(["nstat", "--json", "-a", "-s", "-z"], ns))
    counters = raw.get("kernel", raw)
    return {k: int(counters.get(k, 0)) for k in NSTAT}


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--down", action="store_true", help="remove everything the lab made")
    p.add_argument("--up", type=int, metavar="N", help="build a lab of N servers and leave it (for exploring)")
    a = p.parse_args(argv)
    if a.up:
        require_tools()
    else:
        require_down_tools()
    if a.down:
        print("removed:", " ".join(down()) or "nothing")
    if a.up:
        up(LabConfig(a.up))
        print("built:", " ".join(namespaces()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
