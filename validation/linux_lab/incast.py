"""The lab's incast program: servers that answer reads, and a client that
issues them to n servers at once.

    python incast.py serve [--port P]               # in each server namespace
    python incast.py client --servers IP... --cc cubic --blocks 20 --size 262144 [--gap 0]

A request is 9 bytes, an op and a 64-bit big-endian argument:

* ``D`` n: the server sends n bytes (one block's share, or a query's response);
* ``C`` n: the next n bytes name the congestion control the server sets on
  this connection (TCP_CONGESTION), before any data;
* ``I`` 0: the server answers with a 4-byte length and a JSON object of its
  socket's TCP_INFO (min_rtt, total_retrans, cwnd, ...);
* ``T`` t: the next ``D`` starts at CLOCK_REALTIME t ns, not at once
  (``--sync-start``: every server of a block starts at one instant, where
  requests written one after another and servers woken in turn start them
  ≈ 70–130 µs apart; every namespace reads the same clock).

The client first measures the path's base RTT on a connection of its own
to the first server: 1-byte answers, whose ACKs the client's quickack route
returns at once, so the server's ``tcpi_min_rtt`` is the stack's own round
trip (its CUBIC and HyStart never see it: that connection closes before the
measured ones open). Then it opens one connection per server, kept for the
whole run as dcnsim's sync_reads app keeps its flows, and for each block
sends every server its request back to back and reads until every share has
arrived; the block's duration runs from the first request (with
``--sync-start``, from the instant the servers were told to start) to the
last byte.
``--gap`` waits between blocks (partition/aggregate queries: small
responses, a gap; synchronized reads: 256 KB and no gap). It prints one
JSON object: the durations, the base RTT and each server's TCP_INFO at the
end.
"""

from __future__ import annotations

import argparse
import json
import selectors
import signal
import socket
import struct
import sys
import time
from typing import Dict, List, Optional, Sequence

REQ = struct.Struct("!cQ")
#: struct tcp_info (include/uapi/linux/tcp.h) up to reord_seen: field, offset, format
TCP_INFO_FIELDS = (("ca_state", 1, "B"), ("retransmits", 2, "B"), ("backoff", 4, "B"), ("rto_us", 8, "I"),
                   ("snd_mss", 16, "I"), ("lost", 32, "I"), ("retrans", 36, "I"), ("rtt_us", 68, "I"),
                   ("rttvar_us", 72, "I"), ("snd_ssthresh", 76, "I"), ("snd_cwnd", 80, "I"),
                   ("reordering", 88, "I"), ("total_retrans", 100, "I"), ("segs_out", 136, "I"),
                   ("min_rtt_us", 148, "I"), ("data_segs_out", 156, "I"), ("bytes_retrans", 208, "Q"),
                   ("dsack_dups", 216, "I"), ("reord_seen", 220, "I"))
TCP_INFO_LEN = 224


def tcp_info(sock: socket.socket) -> Dict[str, int]:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    return {name: struct.unpack_from(fmt, raw, off)[0] for name, off, fmt in TCP_INFO_FIELDS if off < len(raw)}


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def serve(port: int) -> None:
    """Answer requests, one connection at a time, until terminated."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    zeros = memoryview(bytes(1 << 20))
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(4)
    while True:
        conn, _ = ls.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start_at = 0
        try:
            while True:
                op, arg = REQ.unpack(recv_exact(conn, REQ.size))
                if op == b"T":
                    start_at = arg
                elif op == b"D":
                    if start_at:
                        # a real-time process sleeps to the instant (no timer slack)
                        time.sleep(max(0, start_at - time.time_ns()) / 1e9)
                        start_at = 0
                    while arg > 0:
                        k = min(arg, len(zeros))
                        conn.sendall(zeros[:k])
                        arg -= k
                elif op == b"C":
                    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, recv_exact(conn, arg))
                elif op == b"I":
                    body = json.dumps(tcp_info(conn)).encode()
                    conn.sendall(struct.pack("!I", len(body)) + body)
                else:
                    break
        except (EOFError, ConnectionError):
            pass
        finally:
            conn.close()


#: the client's receive buffer: its window never limits a server (dcnsim's
#: rwnd is 1 MB), whenever the client process gets to read
RCVBUF = 4 << 20
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
TS = struct.Struct("@qq")  # struct timespec


def connect(ip: str, port: int, cc: str, timeout: float) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    # Each read carries the kernel's receive time of its last segment: a
    # block ends when its last byte arrived, not when this process woke.
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.connect((ip, port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.sendall(REQ.pack(b"C", len(cc)) + cc.encode())
    return s


def server_info(s: socket.socket) -> Dict[str, int]:
    s.sendall(REQ.pack(b"I", 0))
    (n,) = struct.unpack("!I", recv_exact(s, 4))
    return json.loads(recv_exact(s, n))


def base_rtt_us(ip: str, port: int, cc: str, rounds: int, timeout: float) -> int:
    """The server's minimum RTT over ``rounds`` 1-byte answers."""
    s = connect(ip, port, cc, timeout)
    try:
        for _ in range(rounds):
            s.sendall(REQ.pack(b"D", 1))
            recv_exact(s, 1)
        return int(server_info(s)["min_rtt_us"])
    finally:
        s.close()


def run_client(servers: Sequence[str], port: int, cc: str, blocks: int, size: int, gap: float,
               probes: int = 20, timeout: float = 120.0, sync_start: float = 0.0) -> dict:
    rtt = base_rtt_us(servers[0], port, cc, probes, timeout) if probes else None
    socks = [connect(ip, port, cc, timeout) for ip in servers]
    sel = selectors.DefaultSelector()
    for i, s in enumerate(socks):
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
    buf = bytearray(1 << 18)
    durations: List[float] = []
    request = REQ.pack(b"D", size)
    for _ in range(blocks):
        left = [size] * len(socks)
        pending = len(socks)
        last = 0.0
        t0 = time.time()  # CLOCK_REALTIME, as SO_TIMESTAMPNS
        req = request
        if sync_start > 0:
            start_at = time.time_ns() + int(sync_start * 1e9)
            req = REQ.pack(b"T", start_at) + request
            t0 = start_at / 1e9
        for s in socks:
            s.send(req)  # 9 or 18 bytes into an empty send buffer: never partial
        while pending:
            events = sel.select(timeout)
            if not events:
                raise TimeoutError(f"no data for {timeout} s; shares left {left}")
            for key, _ in events:
                i = key.data
                got, anc, _, _ = key.fileobj.recvmsg_into([buf], 64)  # type: ignore[union-attr]
                for level, kind, data in anc:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                        sec, ns = TS.unpack(data[:TS.size])
                        last = max(last, sec + ns * 1e-9)
                if got == 0:
                    raise ConnectionError(f"server {servers[i]} closed the connection")
                left[i] -= got
                if left[i] == 0:
                    pending -= 1
                elif left[i] < 0:
                    raise RuntimeError(f"server {servers[i]} sent more than its share")
        durations.append((last or time.time()) - t0)
        if gap > 0:
            time.sleep(gap)
    for s in socks:
        sel.unregister(s)
        s.setblocking(True)
    info = [server_info(s) for s in socks]
    for s in socks:
        s.close()
    return {"durations_s": durations, "base_rtt_us": rtt, "servers": info, "size": size, "n": len(socks)}


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=5045)
    c = sub.add_parser("client")
    c.add_argument("--servers", nargs="+", required=True, metavar="IP")
    c.add_argument("--port", type=int, default=5045)
    c.add_argument("--cc", default="cubic")
    c.add_argument("--blocks", type=int, default=20)
    c.add_argument("--size", type=int, default=256 * 1024, help="bytes per server per block (query response)")
    c.add_argument("--gap", type=float, default=0.0, help="seconds between blocks")
    c.add_argument("--probes", type=int, default=20, help="1-byte round trips that measure the base RTT (0: none)")
    c.add_argument("--sync-start", type=float, default=0.0, metavar="SECONDS",
                   help="every server starts its share this long after the block's first request, at one "
                        "instant (0: as each request arrives)")
    a = p.parse_args(argv)
    if a.mode == "serve":
        serve(a.port)
        return 0
    json.dump(run_client(a.servers, a.port, a.cc, a.blocks, a.size, a.gap, a.probes, sync_start=a.sync_start),
              sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
