"""Incast on the real kernel beside dcnsim's ``profile = "linux"``.

    sudo python validation/linux_lab/run.py --cc reno cubic --sack 1 0 --rto-min 200ms 10ms --n 1 2 4 8 16 32
    sudo python validation/linux_lab/run.py --cc bbr --n 1 8            # BBR, the kernel's and dcnsim's (docs/bbr.md)
    python validation/linux_lab/run.py --only dcnsim --n 1 2 4          # no root: dcnsim's half
    sudo python validation/linux_lab/run.py --down                      # remove a lab left behind
    python validation/linux_lab/run.py --kernel-from lab.json --blocks 50   # dcnsim again beside a saved kernel half

builds the lab (lab.py: namespaces for a client, a switch and the servers,
veths into a bridge, the bottleneck an htb class over a pfifo of
``--buffer`` packets on the switch's client port), runs the incast program
(incast.py) for every congestion control, SACK setting, RTOmin and n, reads
the counters (nstat in every namespace, ``tc -s`` on the bottleneck), runs
the same scenario through dcnsim (a custom star of the same shape under
``profile = "linux"``) and prints both side by side, per block: goodput,
RTO expiries (and, of them, the client's request flows'), drops at the
bottleneck, retransmitted segments, fast recoveries and tail loss probes. A row is flagged ``*`` where
goodput differs by more than 15 % or drops by more than 1.5×. The lab is
torn down on exit, error or Ctrl-C. Needs root except with ``--only
dcnsim``; never part of CI. validation/linux_lab/README.md says what the
kernel here cannot do and how the dcnsim side is matched.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
try:
    import dcnsim  # noqa: F401
except ImportError:  # sudo drops PYTHONPATH: the worktree's own package
    sys.path.insert(0, str(REPO / "python"))
import lab  # noqa: E402  (validation/linux_lab/)
import ns3_common as common  # noqa: E402  (validation/: KEY=VALUE overrides)

#: the kernel's congestion controls the lab runs, and dcnsim's counterpart
CC = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr"}
#: dcnsim's per-link delay when the kernel side does not run to measure the
#: base RTT: a quarter of the lab's measured 1-byte round trip (README.md)
DEFAULT_DELAY_US = 5
GOODPUT_BOUND = 0.15  # the bounds for a difference that needs a mechanism
DROPS_BOUND = 1.5
RT_PRIORITY = 10  # chrt -f for the servers and the client


def rate_bps(text: str) -> int:
    """A rate as dcnsim reads it ("100Mbps", "1Gbps"), in bit/s."""
    import dcnsim.units

    return int(dcnsim.units.parse_rate(text))


def time_s(text: str) -> float:
    import dcnsim.units

    return float(dcnsim.units.parse_time(text))


def tc_time(text: str) -> str:
    """A time for ip-route's rto_min (whole ms or µs, as iproute2 reads it)."""
    us = round(time_s(text) * 1e6)
    return f"{us // 1000}ms" if us % 1000 == 0 else f"{us}us"


# ------------------------------------------------------------------ dcnsim


def dcnsim_scenario(n: int, cc: str, sack: bool, rto_min: str, blocks: int, size: int, *, bottleneck: str,
                    buffer: int, server_rate: str, nic_buffer: int, delay_us: float, delayed_ack: bool,
                    jitter: str = "0s", spacing: str = "0s", gap: str = "0s", seed: int = 1,
                    tcp_over: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The lab's shape as a dcnsim scenario: a custom star, the client on a
    ``bottleneck`` link whose switch side holds ``buffer`` packets, each
    server on its own ``server_rate`` link; hosts' own queues ``nic_buffer``
    packets; ``profile = "linux"`` with the lab's SACK, RTOmin and ACK
    policy. The kernel's frames are Ethernet: 14 bytes of header on every
    packet (htb counts them, no FCS or preamble on a veth)."""
    dcc = CC[cc]
    delay = f"{delay_us:g}us"
    nodes = [{"name": "sw", "kind": "switch"}, {"name": "c", "kind": "host"}]
    links = [{"a": "c", "b": "sw", "rate": bottleneck, "delay": delay, "buffer": f"{buffer}pkt"}]
    for i in range(1, n + 1):
        nodes.append({"name": f"s{i}", "kind": "host"})
        links.append({"a": f"s{i}", "b": "sw", "rate": server_rate, "delay": delay})
    tcp: Dict[str, Any] = {"profile": "linux", "cc": dcc, "sack": sack, "rto_min": rto_min,
                           "delayed_ack": delayed_ack, **(tcp_over or {})}
    if gap and time_s(gap) > 0:
        app = {"kind": "partition_aggregate", "aggregator": 0, "workers": f"1-{n}", "response": f"{size}B",
               "request": f"{incast_request_bytes()}B", "queries": blocks, "gap": gap, "start": "0s"}
    else:
        app = {"kind": "sync_reads", "client": 0, "servers": f"1-{n}", "sru": f"{size}B",
               "request": f"{incast_request_bytes()}B", "blocks": blocks, "jitter": jitter, "spacing": spacing}
    return {"name": f"linux-lab-{cc}-sack{int(sack)}-{rto_min}-n{n}", "seed": seed, "stop": "3600s",
            "l2_overhead": 14,
            "topology": {"kind": "custom", "buffer": f"{nic_buffer}pkt", "nic_buffer": f"{nic_buffer}pkt",
                         "nodes": nodes, "links": links},
            "tcp": tcp, "apps": [app]}


def kernel_hz(release: Optional[str] = None, boot: Path = Path("/boot")) -> Optional[int]:
    """This kernel's CONFIG_HZ, from /boot/config-RELEASE or /proc/config.gz
    (None when neither says): the tick dcnsim's linux profile counts in
    (`tcp.hz`: tcp_cubic's arithmetic and the probe and reordering timers)."""
    import gzip

    running = os.uname().release
    release = release or running
    sources = [(boot / f"config-{release}", open)]
    if release == running:
        sources.append((Path("/proc/config.gz"), gzip.open))
    for path, opener in sources:
        try:
            with opener(path, "rt") as f:
                for line in f:
                    if line.startswith("CONFIG_HZ="):
                        return int(line.split("=", 1)[1])
        except (OSError, ValueError):
            continue
    return None


def dcnsim_hz(a: argparse.Namespace) -> Optional[int]:
    """The HZ dcnsim's half runs at: `--tcp hz=N` if given, else the saved
    kernel half's (`--kernel-from`), else this kernel's; None leaves dcnsim's
    default (250)."""
    if "hz" in a.tcp_over:
        return int(a.tcp_over["hz"])
    if a.kernel_from is not None:
        meta = json.loads(a.kernel_from.read_text())["meta"]
        return meta.get("hz") or (kernel_hz(meta["kernel"]) if meta.get("kernel") else None)
    return kernel_hz()


def incast_request_bytes() -> int:
    import incast

    return incast.REQ.size


def size_of(doc: Dict[str, Any]) -> int:
    app = doc["apps"][0]
    return int(str(app.get("sru", app.get("response"))).rstrip("B"))


def run_dcnsim(doc: Dict[str, Any]) -> Dict[str, float]:
    """Per-block counters of one dcnsim run, named as the kernel's."""
    import dcnsim

    r = dcnsim.run(doc)
    m = r.metrics
    q = r.queues
    port = q[(q.node == "sw") & (q.to == "c")].iloc[0]
    if "n_blocks" in m:
        blocks, done = m["n_blocks"], int(r.blocks.duration_s.notna().sum())
        busy = float(r.blocks.duration_s.sum())
    else:  # queries: goodput over the queries' completion times, as the kernel's client times them
        blocks, done = m["n_queries"], int(r.queries.qct_s.notna().sum())
        busy = float(r.queries.qct_s.sum())
    n = len(doc["topology"]["nodes"]) - 2
    goodput = 8 * n * size_of(doc) * blocks / busy
    if done != blocks:
        raise RuntimeError(f"dcnsim {doc['name']}: {done} of {blocks} blocks completed")
    f = r.flows
    # The client's flows carry the requests. In dcnsim they are connections
    # of their own, so a server's ACK of a request crosses the congested
    # port alone and nothing else acknowledges it; in the kernel the
    # response's segments acknowledge the request too.
    return {"goodput_mbps": goodput / 1e6, "timeouts": float(f.timeouts.sum()) / blocks,
            "request_timeouts": float(f[f.src == 0].timeouts.sum()) / blocks,
            "drops": float(port.dropped) / blocks, "retrans": float(f.retransmits.sum()) / blocks,
            "recoveries": float(f.fast_retransmits.sum()) / blocks, "tlps": float(f.tlp_probes.sum()) / blocks,
            "request_tlps": float(f[f.src == 0].tlp_probes.sum()) / blocks, "blocks": blocks}


# ------------------------------------------------------------------ kernel


class Lab:
    """A built lab with its servers running; ``close()`` removes it all."""

    def __init__(self, cfg: lab.LabConfig, realtime: bool = True):
        self.cfg = cfg
        # On a loaded machine a server woken by its request, or the client
        # by its data, can wait milliseconds for a core: a block of 256 KB
        # takes 21 ms. SCHED_FIFO puts the lab's processes (which mostly
        # sleep in the kernel) ahead of the others' work.
        self.rt = ["chrt", "-f", str(RT_PRIORITY)] if realtime else []
        self.servers: List[subprocess.Popen] = []
        try:
            lab.up(cfg)
            for i in range(1, cfg.n + 1):
                self.servers.append(subprocess.Popen(
                    ["ip", "netns", "exec", lab.server_ns(i), *self.rt, sys.executable, str(HERE / "incast.py"),
                     "serve", "--port", str(lab.PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        except BaseException:
            # a Ctrl-C or a refused sysctl while the lab is built: the
            # caller never gets a Lab to close, so the half-built lab goes here
            self.close()
            raise

    def configure(self, sack: bool, rto_min: str) -> None:
        """SACK and RTOmin for the connections opened from now on."""
        self.cfg.sack, self.cfg.rto_min = sack, tc_time(rto_min)
        hosts = [(lab.CLIENT, lab.client_ip())] + [(lab.server_ns(i), lab.server_ip(i))
                                                   for i in range(1, self.cfg.n + 1)]
        for ns, ip in hosts:
            lab.sysctls(ns, self.cfg)
            lab.route(ns, ip, self.cfg)

    def counters(self, n: int) -> Dict[str, Any]:
        tcp: Dict[str, int] = {}
        client = lab.nstat(lab.CLIENT)
        for counters in [client] + [lab.nstat(lab.server_ns(i)) for i in range(1, n + 1)]:
            for k, v in counters.items():
                tcp[k] = tcp.get(k, 0) + v
        other = sum(lab.qdisc_stats(lab.server_ns(i), "eth0")["drops"] for i in range(1, n + 1))
        return {"tcp": tcp, "client_timeouts": client["TcpExtTCPTimeouts"],
                "client_tlps": client.get("TcpExtTCPLossProbes", 0), "port": lab.qdisc_stats(lab.SWITCH, "p0"),
                "host_drops": other + lab.qdisc_stats(lab.CLIENT, "eth0")["drops"]}

    def run(self, n: int, cc: str, blocks: int, size: int, gap_s: float, sync_start_s: float = 0.0) -> Dict[str, float]:
        for p in self.servers:
            if p.poll() is not None:
                raise RuntimeError(f"a server exited ({p.returncode}): {p.stderr.read().decode()[-500:]}")
        before = self.counters(n)
        out = lab.sh([*self.rt, sys.executable, str(HERE / "incast.py"), "client", "--port", str(lab.PORT), "--cc", cc,
                      "--blocks", str(blocks), "--size", str(size), "--gap", str(gap_s),
                      "--sync-start", str(sync_start_s),
                      "--servers", *[lab.server_ip(i) for i in range(1, n + 1)]], lab.CLIENT)
        after = self.counters(n)
        res = json.loads(out)
        d = {k: after["tcp"][k] - before["tcp"][k] for k in after["tcp"]}
        port = {k: after["port"][k] - before["port"][k] for k in ("packets", "bytes", "drops")}
        return {"goodput_mbps": 8 * n * size * blocks / sum(res["durations_s"]) / 1e6,
                "timeouts": d["TcpExtTCPTimeouts"] / blocks, "drops": port["drops"] / blocks,
                "request_timeouts": (after["client_timeouts"] - before["client_timeouts"]) / blocks,
                "retrans": d["TcpRetransSegs"] / blocks,
                "recoveries": (d["TcpExtTCPSackRecovery"] + d["TcpExtTCPRenoRecovery"]) / blocks,
                "tlps": d["TcpExtTCPLossProbes"] / blocks,
                "request_tlps": (after["client_tlps"] - before["client_tlps"]) / blocks, "blocks": blocks,
                "base_rtt_us": res["base_rtt_us"],
                "frame_bytes": port["bytes"] / max(port["packets"], 1),
                "host_drops": after["host_drops"] - before["host_drops"],
                "nstat": d, "servers": res["servers"]}

    def close(self) -> None:
        for p in self.servers:
            if p.poll() is None:
                p.terminate()
        for p in self.servers:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        self.servers = []
        lab.down()


# ------------------------------------------------------------------ table

#: (key, label, format): goodput in Mbps, the rest per block
COLS = [("goodput_mbps", "Mbps", "{:.1f}"), ("timeouts", "RTO", "{:.2f}"), ("request_timeouts", "reqRTO", "{:.2f}"),
        ("drops", "drop", "{:.1f}"),
        ("retrans", "retx", "{:.1f}"), ("recoveries", "recov", "{:.2f}"), ("tlps", "TLP", "{:.2f}"),
        ("request_tlps", "reqTLP", "{:.2f}")]
SIDES = (("kernel", "kern"), ("dcnsim", "sim"))
WIDE = 11


#: what the last column says, printed under the table
FLAG_LEGEND = (f"flag: * where a difference asks for a mechanism (goodput more than {GOODPUT_BOUND:.0%} apart, "
               f"or drops, timeouts or request timeouts more than {DROPS_BOUND:g}x apart either way, the larger "
               "at least one a block); ? where one side has no row (not judged)")


def flag(kernel: Optional[Dict[str, float]], sim: Optional[Dict[str, float]]) -> str:
    """``*`` where the issue's bounds ask for a mechanism: goodput more than
    15 % apart (of the kernel's), or drops, timeouts or request timeouts
    more than 1.5× apart either way (a count on one side only counts when
    it is at least one per block: the request flows' timeouts, 0 against
    5 a block, went unflagged); ``?`` where a side is missing (a point
    with half its comparison was flagged as agreeing)."""
    if not kernel or not sim:
        return "?" if kernel or sim else ""
    gk, gs = kernel["goodput_mbps"], sim["goodput_mbps"]
    if abs(gs - gk) > GOODPUT_BOUND * gk:
        return "*"
    for key in ("drops", "timeouts", "request_timeouts"):
        if key not in kernel or key not in sim:
            continue
        lo, hi = sorted((kernel[key], sim[key]))
        if hi >= 1 and (lo == 0 or hi > DROPS_BOUND * lo):
            return "*"
    return ""


def cell(row: Optional[Dict[str, float]], key: str, fmt: str) -> str:
    return fmt.format(row[key]) if row and key in row else "—"


def header(markdown: bool) -> List[str]:
    """Goodput in Mbps, the rest per block; kern(el) and sim (dcnsim)."""
    names = ["cc", "SACK", "RTOmin", "n"] + [f"{label} {side}" for _, label, _ in COLS
                                             for side in (SIDES[0][not markdown], SIDES[1][not markdown])]
    if markdown:
        return ["| " + " | ".join(names + ["flag"]) + " |", "|" + "---|" * (len(names) + 1)]
    return [" ".join(f"{x:>{WIDE}}" if i >= 4 else f"{x:>6}" for i, x in enumerate(names)) + "   flag"]


def format_row(point: Dict[str, Any], kernel: Optional[Dict[str, float]], sim: Optional[Dict[str, float]],
               markdown: bool) -> str:
    cells = [point["cc"], str(int(point["sack"])), point["rto_min"], str(point["n"])]
    for key, _, fmt in COLS:
        cells += [cell(kernel, key, fmt), cell(sim, key, fmt)]
    cells.append(flag(kernel, sim))
    if markdown:
        return "| " + " | ".join(cells) + " |"
    return " ".join(f"{x:>{WIDE}}" if 4 <= i < len(cells) - 1 else f"{x:>6}" for i, x in enumerate(cells))


# ------------------------------------------------------------------ main


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cc", nargs="+", default=["reno", "cubic"], choices=sorted(CC),
                   help="congestion controls")
    p.add_argument("--sack", nargs="+", type=int, default=[1, 0], choices=[0, 1])
    p.add_argument("--rto-min", nargs="+", default=["200ms", "10ms"], metavar="TIME")
    p.add_argument("--n", nargs="+", type=int, default=[1, 2, 4, 8, 16, 32], help=f"servers, 1 to {lab.MAX_SERVERS}")
    p.add_argument("--blocks", type=int, default=20, help="blocks (queries) per point")
    p.add_argument("--size", default="256KB", help="bytes per server per block (KB = 1024 B)")
    p.add_argument("--gap", default="0s",
                   help="time between blocks; > 0 makes them partition/aggregate queries (dcnsim's "
                        "partition_aggregate app), e.g. --size 10000B --gap 10ms")
    p.add_argument("--bottleneck", default="100Mbps", help="the client link's rate")
    p.add_argument("--buffer", type=int, default=32, help="the bottleneck port's pfifo, packets")
    p.add_argument("--server-rate", default="1Gbps")
    p.add_argument("--nic-buffer", type=int, default=1000, help="hosts' own egress queue, packets")
    p.add_argument("--delayed-ack", action="store_true",
                   help="delayed ACKs on (kernel: quickack 0 on the route; default off: quickack 1 / "
                        "dcnsim delayed_ack = false)")
    p.add_argument("--delay", default="auto", metavar="TIME|auto",
                   help="dcnsim's per-link delay; auto: a quarter of the kernel's measured 1-byte RTT "
                        f"({DEFAULT_DELAY_US} us without the kernel side)")
    p.add_argument("--jitter", default="0s", help="dcnsim sync_reads: each request waits U[0, jitter]")
    p.add_argument("--spacing", default="0s",
                   help="dcnsim sync_reads: request i leaves i x spacing into the block, as the lab's client and "
                        "servers start in turn (trace.py prints their median spread; about 130us a server here)")
    p.add_argument("--sync-start", default="0s", metavar="TIME",
                   help="kernel: every server starts its share this long after the block's first request, at "
                        "one instant (incast.py's T request; the block is timed from that instant), as dcnsim's "
                        "servers start together; 0s: each as its request arrives and its process wakes")
    p.add_argument("--seed", type=int, default=1, help="dcnsim's seed")
    p.add_argument("--check", action="store_true",
                   help="exit with status 1 when any row is flagged (see the legend under the table)")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE", help="dcnsim [tcp] overrides")
    p.add_argument("--sysctl", nargs="*", default=[], metavar="KEY=VALUE",
                   help="kernel: further per-namespace sysctls, e.g. net.ipv4.tcp_slow_start_after_idle=0")
    p.add_argument("--gso", action="store_true",
                   help="kernel side: let TCP build multi-segment GSO packets (the kernel's default), which leave "
                        "back to back; without it every skb is one segment (lab.py offloads_off)")
    p.add_argument("--no-realtime", action="store_true",
                   help="run the lab's servers and client at normal priority (default: SCHED_FIFO)")
    p.add_argument("--only", choices=["kernel", "dcnsim"], help="run one side")
    p.add_argument("--kernel-from", type=Path, metavar="FILE",
                   help="the kernel's half from an earlier run's --json (no root): dcnsim's half runs again "
                        "beside it, each point with the base RTT measured there")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--json", type=Path, metavar="FILE", help="write every point's numbers here (after each point)")
    p.add_argument("--down", action="store_true", help="remove everything the lab made, and exit")
    a = p.parse_args(argv)
    if a.down:
        return a
    bad = [n for n in a.n if not 1 <= n <= lab.MAX_SERVERS]
    if bad:
        p.error(f"--n: 1 to {lab.MAX_SERVERS} servers, got {bad}")
    if a.blocks < 1:
        p.error(f"--blocks: at least 1, got {a.blocks}")
    if a.buffer < 1 or a.nic_buffer < 1:
        p.error("--buffer/--nic-buffer: at least one packet")
    try:
        import dcnsim.units as units

        for t in a.rto_min:
            if time_s(t) <= 0:
                raise units.UnitError(f"{t!r} is not positive")
        a.size_bytes = int(units.parse_size(a.size).binary)
        a.gap_s = time_s(a.gap)
        a.sync_start_s = time_s(a.sync_start)
        if a.sync_start_s < 0:
            raise units.UnitError(f"--sync-start: {a.sync_start!r} is negative")
        rate_bps(a.bottleneck), rate_bps(a.server_rate), time_s(a.jitter), time_s(a.spacing)
        a.delay_us = None if a.delay == "auto" else time_s(a.delay) * 1e6
        a.tcp_over = common.parse_overrides(a.tcp)
        a.sysctls = lab.parse_sysctls(a.sysctl)
    except ValueError as e:
        p.error(str(e))
    a.saved = {}
    if a.kernel_from is not None:
        if a.only is not None:
            p.error("--kernel-from: the kernel's half comes from the file; --only has nothing to choose")
        a.saved = saved_kernel(p, a.kernel_from, a.blocks)
        a.unsaved = [pt for pt in points(a) if point_key(pt) not in a.saved]
    return a


def _point_text(k: tuple) -> str:
    cc, sack, rto, n = k
    return f"{cc} sack {int(sack)} {rto} n={n}"


def point_key(pt: Dict[str, Any]) -> tuple:
    return (pt["cc"], bool(pt["sack"]), pt["rto_min"], int(pt["n"]))


def saved_kernel(p: argparse.ArgumentParser, path: Path, blocks: int) -> Dict[tuple, Dict[str, Any]]:
    """The kernel rows of an earlier ``--json`` by point; an error naming
    --kernel-from when the file is not one or ran another number of blocks."""
    try:
        doc = json.loads(path.read_text())
        rows = {point_key(r): r["kernel"] for r in doc["rows"] if r.get("kernel")}
    except (OSError, ValueError, KeyError, TypeError) as e:
        p.error(f"--kernel-from: {path} is not a run.py --json file ({e})")
    if not rows:
        p.error(f"--kernel-from: {path} has no kernel half")
    ran = {k["blocks"] for k in rows.values()}
    if ran != {blocks}:
        p.error(f"--kernel-from: {path} ran {sorted(ran)} blocks per point; pass --blocks {min(ran)}")
    return rows


def points(a: argparse.Namespace) -> List[Dict[str, Any]]:
    return [{"cc": cc, "sack": bool(s), "rto_min": r, "n": n}
            for cc in a.cc for s in a.sack for r in a.rto_min for n in a.n]


def sim_doc(a: argparse.Namespace, pt: Dict[str, Any], delay_us: float) -> Dict[str, Any]:
    hz = {"hz": a.hz} if a.hz is not None else {}
    return dcnsim_scenario(pt["n"], pt["cc"], pt["sack"], pt["rto_min"], a.blocks, a.size_bytes,
                           bottleneck=a.bottleneck, buffer=a.buffer, server_rate=a.server_rate,
                           nic_buffer=a.nic_buffer, delay_us=delay_us, delayed_ack=a.delayed_ack,
                           jitter=a.jitter, spacing=a.spacing, gap=a.gap, seed=a.seed, tcp_over={**hz, **a.tcp_over})


def save(path: Optional[Path], rows: List[Dict[str, Any]], meta: Dict[str, Any]) -> None:
    if path is None:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    os.replace(tmp, path)  # never half written


def git_commit() -> str:
    r = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def main(argv: Optional[Sequence[str]] = None) -> int:
    a = parse_args(argv)
    if a.down:
        lab.require_down_tools()
        print("removed:", " ".join(lab.down()) or "nothing")
        return 0
    if a.only != "kernel":
        # a bad --tcp key named here, before the kernel's first point, not
        # as dcnsim's traceback after it (the delay is the lab's, any will do)
        a.hz = dcnsim_hz(a)
        problems = common.dcnsim_problems(sim_doc(a, points(a)[0], a.delay_us or 100.0))
        if problems:
            print(f"run.py: error: --tcp: dcnsim refuses the scenario: {problems}", file=sys.stderr)
            return 2
    kernel_side = a.only != "dcnsim" and not a.saved
    testbed: Optional[Lab] = None
    # Ctrl-C raises KeyboardInterrupt; a SIGTERM or SIGHUP should tear down the same way.
    # (SIGINT too: a shell starts background jobs with it ignored.)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": git_commit(), "kernel": os.uname().release, "argv": list(argv or sys.argv[1:]),
            "loadavg_start": Path("/proc/loadavg").read_text().split()[:3], "gso": a.gso,
            "sysctl": a.sysctls, "hz": kernel_hz() if kernel_side else None}
    a.hz = dcnsim_hz(a)
    if a.saved:
        meta["kernel_from"] = {"file": str(a.kernel_from), **json.loads(a.kernel_from.read_text())["meta"]}
        if a.unsaved:
            # the grid's defaults (--cc, --sack, --rto-min) reach past what the file holds
            print(f"--kernel-from: {len(a.unsaved)} of the {len(points(a))} points asked are not in "
                  f"{a.kernel_from}; they run dcnsim alone, at the default per-link delay of "
                  f"{DEFAULT_DELAY_US} us (no base RTT was measured for them): "
                  + ", ".join(_point_text(point_key(pt)) for pt in a.unsaved), file=sys.stderr)
    rows: List[Dict[str, Any]] = []
    flagged = unjudged = 0
    try:
        if kernel_side:
            lab.require_tools()
            cfg = lab.LabConfig(max(a.n), bottleneck=f"{rate_bps(a.bottleneck)}bit", buffer=a.buffer,
                                server_rate=f"{rate_bps(a.server_rate)}bit",
                                client_rate=f"{rate_bps(a.bottleneck)}bit", nic_buffer=a.nic_buffer,
                                quickack=not a.delayed_ack, gso=a.gso, extra_sysctls=a.sysctls)
            if not a.no_realtime and shutil.which("chrt") is None:
                # else the first server's exec fails after the lab is built
                raise SystemExit("run.py: the lab's servers run under chrt (apt-get install util-linux), "
                                 "or pass --no-realtime")
            testbed = Lab(cfg, realtime=not a.no_realtime)
        print(f"{a.blocks} blocks of {a.size_bytes} B per server per point; {a.bottleneck} bottleneck, "
              f"{a.buffer}-packet drop-tail port; delayed ACKs {'on' if a.delayed_ack else 'off'}; "
              f"kernel GSO {'on' if a.gso else 'one segment per packet'}; dcnsim at HZ = "
              f"{a.hz if a.hz is not None else '250 (the kernel: unknown)'}; load "
              f"{' '.join(meta['loadavg_start'])}", flush=True)
        if getattr(a, "tcp_over", None) and a.only != "kernel":
            # the SACK and RTOmin columns are the grid's (the kernel's); a row
            # read "RTOmin 10ms" while dcnsim ran with --tcp rto_min=1s
            print(f"dcnsim [tcp] overrides {json.dumps(a.tcp_over)}: dcnsim's half of every row runs with these "
                  "over the row's SACK and RTOmin", flush=True)
        for line in header(a.markdown):
            print(line, flush=True)
        configured = None
        for pt in points(a):
            kernel = sim = None
            if testbed is not None:
                if configured != (pt["sack"], pt["rto_min"]):
                    testbed.configure(pt["sack"], pt["rto_min"])
                    configured = (pt["sack"], pt["rto_min"])
                kernel = testbed.run(pt["n"], pt["cc"], a.blocks, a.size_bytes, a.gap_s, a.sync_start_s)
            elif a.saved:
                kernel = a.saved.get(point_key(pt))
            delay = a.delay_us if a.delay_us is not None else \
                max(1.0, kernel["base_rtt_us"] / 4) if kernel and kernel.get("base_rtt_us") else DEFAULT_DELAY_US
            if a.only != "kernel":
                sim = run_dcnsim(sim_doc(a, pt, delay))
                sim["delay_us"] = delay
            print(format_row(pt, kernel, sim, a.markdown), flush=True)
            flagged += flag(kernel, sim) == "*"
            unjudged += flag(kernel, sim) == "?"
            rows.append({**pt, "kernel": kernel, "dcnsim": sim})
            save(a.json, rows, meta)
    except KeyboardInterrupt:
        print("interrupted: tearing the lab down", file=sys.stderr)
        return 130
    finally:
        if testbed is not None:
            testbed.close()
        meta["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
        save(a.json, rows, meta)
    print(FLAG_LEGEND)
    print(f"{flagged} of {len(rows)} row(s) flagged" + (f", {unjudged} with a side missing (not judged)"
                                                           if unjudged else "")
          + f"; load average at the end: {' '.join(meta['loadavg_end'])}")
    # a row with one side is no comparison: --check does not pass it
    return 1 if a.check and (flagged or unjudged) else 0


if __name__ == "__main__":
    sys.exit(main())
