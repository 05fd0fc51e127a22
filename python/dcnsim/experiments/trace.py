"""Time series from dcnsim's pcap traces.

The core reports per-flow totals, not time series; a pcap trace of a host
(``pcap = {hosts = [h]}``) records every packet the host sends or receives
with its timestamp, so the bytes a receiver got from each flow in each time
bin are a measurement, not an estimate. Flow ``f``'s data segments carry
source port ``1024 + f mod 60000`` (see docs/scenario.md, "pcap traces").
"""

from __future__ import annotations

import struct
from typing import Optional, Union

import numpy as np

__all__ = ["tcp_segments", "throughput_series", "host_ip"]

_MAGIC_NS = b"\x4d\x3c\xb2\xa1"
_MAGIC_US = b"\xd4\xc3\xb2\xa1"


def host_ip(h: int) -> int:
    """IPv4 address of host ``h`` as an integer (10.0.0.0 + h + 1)."""
    return 0x0A000000 + h + 1


def _records(data: bytes):
    """(timestamps s, record offsets of the IP header, caplen) of every record."""
    magic = data[:4]
    if magic not in (_MAGIC_NS, _MAGIC_US):
        raise ValueError("not a little-endian pcap file")
    scale = 1e-9 if magic == _MAGIC_NS else 1e-6
    buf = np.frombuffer(data, dtype=np.uint8)
    n_bytes = len(data) - 24
    if n_bytes <= 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first_cap = struct.unpack_from("<I", data, 24 + 8)[0]
    stride = 16 + first_cap
    if n_bytes % stride == 0:
        # fast path: every record the same length (TCP without SACK blocks)
        n = n_bytes // stride
        hdr = np.ndarray((n, 4), dtype="<u4", buffer=buf, offset=24, strides=(stride, 4))
        if np.all(hdr[:, 2] == first_cap):
            offs = 24 + 16 + stride * np.arange(n, dtype=np.int64)
            ts = hdr[:, 0].astype(np.float64) + hdr[:, 1].astype(np.float64) * scale
            return ts, offs, np.full(n, first_cap, dtype=np.int64)
    # general path: walk the records
    ts_l, off_l, cap_l = [], [], []
    off = 24
    end = len(data)
    unpack = struct.unpack_from
    while off + 16 <= end:
        sec, frac, incl, _orig = unpack("<IIII", data, off)
        ts_l.append(sec + frac * scale)
        off_l.append(off + 16)
        cap_l.append(incl)
        off += 16 + incl
    return np.asarray(ts_l), np.asarray(off_l, dtype=np.int64), np.asarray(cap_l, dtype=np.int64)


def tcp_segments(data: bytes, dst: Optional[int] = None, data_only: bool = True):
    """The TCP packets of a pcap trace as a DataFrame with columns
    ``time_s, src, dst, sport, dport, payload, ce`` (addresses as host
    indices, ``payload`` in bytes, ``ce`` the IP CE codepoint). ``dst``: keep
    packets to that host only; ``data_only``: drop pure ACKs."""
    import pandas as pd

    ts, offs, _cap = _records(data)
    buf = np.frombuffer(data, dtype=np.uint8)
    if len(offs) == 0:
        return pd.DataFrame({c: [] for c in ("time_s", "src", "dst", "sport", "dport", "payload", "ce")})

    def be16(at):
        return (buf[at].astype(np.int64) << 8) | buf[at + 1].astype(np.int64)

    def be32(at):
        return (be16(at) << 16) | be16(at + 2)

    proto = buf[offs + 9]
    keep = proto == 6
    offs, ts = offs[keep], ts[keep]
    ihl = (buf[offs] & 0x0F).astype(np.int64) * 4
    ip_len = be16(offs + 2)
    src = be32(offs + 12) - 0x0A000001
    dstv = be32(offs + 16) - 0x0A000001
    l4 = offs + ihl
    doff = (buf[l4 + 12] >> 4).astype(np.int64) * 4
    payload = ip_len - ihl - doff
    sel = np.ones(len(offs), dtype=bool)
    if dst is not None:
        sel &= dstv == dst
    if data_only:
        sel &= payload > 0
    return pd.DataFrame({
        "time_s": ts[sel],
        "src": src[sel],
        "dst": dstv[sel],
        "sport": be16(l4 + 0)[sel],
        "dport": be16(l4 + 2)[sel],
        "payload": payload[sel],
        "ce": (buf[offs + 1] & 0x03)[sel] == 3,
    })


def throughput_series(data: Union[bytes, "object"], receiver: int, bin_s: float, t_end: Optional[float] = None):
    """Bytes each flow delivered to host ``receiver`` per time bin, from the
    receiver's pcap trace: a DataFrame ``time_s`` (bin start), ``flow_id``,
    ``bytes``, ``mbps`` (payload bits per second over the bin), every bin of
    every flow present (zeros included) from 0 to ``t_end``. Retransmitted
    bytes count when they arrive (this is arrival throughput, not goodput)."""
    import pandas as pd

    seg = data if not isinstance(data, (bytes, bytearray, memoryview)) else tcp_segments(bytes(data), dst=receiver)
    flow = (seg["sport"].to_numpy() - 1024) % 60000 + (seg["dport"].to_numpy() - 5001) * 60000
    t_end = float(t_end if t_end is not None else (seg["time_s"].max() if len(seg) else 0.0))
    nb = max(1, int(np.ceil(t_end / bin_s - 1e-9)))
    b = np.minimum((seg["time_s"].to_numpy() / bin_s).astype(np.int64), nb - 1)
    flows = np.unique(flow)
    rows = []
    for f in flows:
        m = flow == f
        counts = np.bincount(b[m], weights=seg["payload"].to_numpy()[m], minlength=nb)[:nb]
        rows.append(pd.DataFrame({"time_s": np.arange(nb) * bin_s, "flow_id": int(f), "bytes": counts}))
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame({"time_s": [], "flow_id": [], "bytes": []})
    out["mbps"] = out["bytes"] * 8 / bin_s / 1e6
    return out
