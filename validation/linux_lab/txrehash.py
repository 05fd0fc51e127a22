"""`tcp.txrehash` held to the kernel: the flow labels a Linux sender and
receiver draw when the receiver's ACKs are lost for a while, beside the
same blackout in dcnsim.

Two namespaces (``dl45-ta``, the sender; ``dl45-tb``, the receiver) joined
by a veth pair, IPv6 (the flow label is IPv6's), ``net.core.txrehash = 1``
and RTOmin ``--rto-min`` on the routes. One TCP connection sends
``--bytes`` in ``--chunk`` writes ``--gap`` apart; ``--at`` seconds in, the
receiver's egress drops everything for ``--blackout`` seconds (a pfifo of
length 0: this kernel has no netem and no gact). The sender times out,
retransmits on a new flow label each time (``TcpTimeoutRehash``), and the
receiver, getting data it already has on a new label, draws a new label
for its ACKs (``TcpDuplicateDataRehash``, Linux 6.7's rule). The capture on
the receiver's veth gives every packet's label; nstat gives the counters.

dcnsim's half: h0 — s0 — h1 at 1 Gbps, 5 µs links, a bulk flow through
the window, the same RTOmin, the Linux profile with ``txrehash``, and the
link s0 → h0 (the ACKs' last hop) down for the same window
(``[[failures]]``). Its flows
table gives the timeouts and the labels drawn (data: one per timeout; the
rest the ACKs').

    sudo python validation/linux_lab/txrehash.py              # both halves
    python validation/linux_lab/txrehash.py --only dcnsim     # no root

A tool, not a test: it needs root for the kernel half, and nothing in CI
runs it. docs/model.md (Protective Load Balancing, txrehash) quotes it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab import PREFIX, down, sh  # noqa: E402

SND, RCV = PREFIX + "ta", PREFIX + "tb"
SND_IP, RCV_IP = "fd45::1", "fd45::2"
COUNTERS = ("TcpExtTCPTimeouts", "TcpExtTcpTimeoutRehash", "TcpExtTcpDuplicateDataRehash", "TcpExtTCPDSACKOldSent")


def nstat_all(ns: str) -> Dict[str, int]:
    import json

    raw = json.loads(sh(["nstat", "--json", "-a", "-s", "-z"], ns))
    counters = raw.get("kernel", raw)
    return {k: int(counters.get(k, 0)) for k in COUNTERS}


def pcap_labels(path: Path) -> List[Tuple[float, str, int, int]]:
    """(time, source address, flow label, TCP payload bytes) of every IPv6
    TCP packet in an Ethernet pcap."""
    data = path.read_bytes()
    out = []
    off = 24
    while off + 16 <= len(data):
        sec, usec, caplen, _ = struct.unpack_from("<IIII", data, off)
        pkt = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if len(pkt) < 14 + 40 or pkt[12:14] != b"\x86\xdd" or pkt[14 + 6] != 6:
            continue
        ip = pkt[14:]
        label = int.from_bytes(ip[1:4], "big") & 0xFFFFF
        plen = int.from_bytes(ip[4:6], "big")
        src = ip[8:24]
        thl = (ip[40 + 12] >> 4) * 4 if len(ip) > 52 else 20
        out.append((sec + usec / 1e6, src.hex(), label, plen - thl))
    return out


def kernel(args: argparse.Namespace) -> Dict[str, float]:
    down()
    for ns in (SND, RCV):
        sh(["ip", "netns", "add", ns])
    sh(["ip", "link", "add", "va", "netns", SND, "type", "veth", "peer", "name", "vb", "netns", RCV])
    for ns, dev, ip in ((SND, "va", SND_IP), (RCV, "vb", RCV_IP)):
        sh(["ip", "link", "set", "lo", "up"], ns)
        sh(["ip", "addr", "add", f"{ip}/64", "dev", dev, "nodad"], ns)
        sh(["ip", "link", "set", dev, "up"], ns)
        sh(["sysctl", "-q", "-w", "net.core.txrehash=1"], ns)
        # the connected route itself (proto kernel, metric 256), not a second one below it
        sh(["ip", "-6", "route", "replace", "fd45::/64", "dev", dev, "proto", "kernel", "metric", "256",
            "rto_min", args.rto_min], ns)
    tmp = tempfile.TemporaryDirectory()  # removed with the pcap once it is read
    pcap = Path(tmp.name) / "rcv.pcap"
    cap = subprocess.Popen(["ip", "netns", "exec", RCV, "tcpdump", "-i", "vb", "-s", "128", "-w", str(pcap), "ip6"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    server = subprocess.Popen(["ip", "netns", "exec", RCV, sys.executable, "-c", f"""
import socket
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('{RCV_IP}', 5001)); s.listen(1); c, _ = s.accept()
while c.recv(1 << 16): pass
"""])
    time.sleep(0.3)
    client = subprocess.Popen(["ip", "netns", "exec", SND, sys.executable, "-c", f"""
import socket, time
s = socket.create_connection(('{RCV_IP}', 5001)); t0 = time.time()
for i in range({args.bytes // args.chunk}):
    s.sendall(b'x' * {args.chunk}); time.sleep({args.gap})
s.close()
"""])
    before = {ns: nstat_all(ns) for ns in (SND, RCV)}
    time.sleep(args.at)
    sh(["tc", "qdisc", "replace", "dev", "vb", "root", "pfifo", "limit", "0"], RCV)
    time.sleep(args.blackout)
    sh(["tc", "qdisc", "del", "dev", "vb", "root"], RCV)
    client.wait(timeout=60)
    server.wait(timeout=60)
    after = {ns: nstat_all(ns) for ns in (SND, RCV)}
    time.sleep(0.3)
    cap.terminate()
    cap.wait()
    pkts = pcap_labels(pcap)
    tmp.cleanup()
    down()
    d = {ns: {k: after[ns][k] - before[ns][k] for k in COUNTERS} for ns in (SND, RCV)}
    import ipaddress

    snd_hex = ipaddress.IPv6Address(SND_IP).packed.hex()
    data = [p for p in pkts if p[1] == snd_hex and p[3] > 0]
    acks = [p for p in pkts if p[1] != snd_hex]
    return {
        "timeouts": d[SND]["TcpExtTCPTimeouts"],
        "data labels drawn": d[SND]["TcpExtTcpTimeoutRehash"],
        "ACK labels drawn": d[RCV]["TcpExtTcpDuplicateDataRehash"],
        "duplicate segments received": d[RCV]["TcpExtTCPDSACKOldSent"],
        "distinct data labels seen": len({p[2] for p in data}),
        "distinct ACK labels seen": len({p[2] for p in acks}),
    }


def dcnsim_half(args: argparse.Namespace) -> Dict[str, float]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import dcnsim

    at, end = f"{args.at:g}s", f"{args.at + args.blackout:g}s"
    doc = {
        "name": "txrehash-lab", "stop": "30s",
        "topology": {"kind": "custom", "buffer": "1000pkt", "nic_buffer": "1000pkt",
                     "nodes": [{"name": "h0", "kind": "host"}, {"name": "s0", "kind": "switch"},
                               {"name": "h1", "kind": "host"}],
                     "links": [{"a": "h0", "b": "s0", "rate": "1Gbps", "delay": "5us"},
                               {"a": "s0", "b": "h1", "rate": "1Gbps", "delay": "5us"}]},
        "tcp": {"profile": "linux", "rto_min": args.rto_min, "txrehash": True},
        # a bulk flow over 1 Gbps links through the blackout and after it
        # (the kernel's writes are app-limited; what matters is data in
        # flight when the ACKs stop, and the timer's backoff)
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "duration": f"{args.at + args.blackout + 0.3:g}s"}],
        "failures": [{"a": "s0", "b": "h0", "direction": "a_to_b", "at": at, "until": end}],
    }
    r = dcnsim.run(doc)
    f = r.flows
    timeouts = int(f.timeouts.sum())
    rehashes = int(f.rehashes.sum())
    return {
        "timeouts": timeouts,
        "data labels drawn": timeouts,
        "ACK labels drawn": rehashes - timeouts,
        "duplicate segments received": int(f.dup_arrivals.sum()),
        "distinct data labels seen": float("nan"),
        "distinct ACK labels seen": float("nan"),
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=("kernel", "dcnsim"))
    ap.add_argument("--rto-min", default="10ms", help="RTOmin on both sides (route metric; dcnsim's tcp.rto_min)")
    ap.add_argument("--at", type=float, default=0.3, help="seconds into the transfer the ACKs start being lost")
    ap.add_argument("--blackout", type=float, default=0.3, help="seconds the receiver's egress drops everything")
    ap.add_argument("--bytes", type=int, default=1_200_000)
    ap.add_argument("--chunk", type=int, default=20_000)
    ap.add_argument("--gap", type=float, default=0.01, help="seconds between writes")
    args = ap.parse_args(argv)
    # a SIGTERM or SIGHUP reaches the `finally` below as Ctrl-C does
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    halves = {}
    if args.only != "dcnsim":
        if os.geteuid() != 0:
            raise SystemExit("the kernel half needs root (namespaces, tc): sudo, or --only dcnsim")
        missing = [t for t in ("ip", "tc", "tcpdump", "nstat") if shutil.which(t) is None]
        if missing:
            raise SystemExit(f"the kernel half needs {', '.join(missing)} (apt-get install iproute2 tcpdump), "
                             "or --only dcnsim")
        try:
            halves["kernel"] = kernel(args)
        finally:
            down()  # the namespaces go whatever happened in them
    if args.only != "kernel":
        halves["dcnsim"] = dcnsim_half(args)
    keys = list(next(iter(halves.values())))
    print(f"{'':30}" + "".join(f"{h:>10}" for h in halves))
    for k in keys:
        print(f"{k:30}" + "".join(f"{halves[h][k]:>10.4g}" for h in halves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
