"""Where the losses fall, block by block, in the kernel and in dcnsim.

    sudo python validation/linux_lab/trace.py --cc reno --sack 0 --n 1 --blocks 100 --out /tmp/lab-trace
    sudo python validation/linux_lab/trace.py --cc cubic --sack 1 --n 2 --blocks 20 --show 20

runs one point of run.py on both sides with a pcap of every server's
interface (tcpdump in each server namespace; dcnsim's ``pcap`` table) and
reads both the same way: per server and block, the segments sent, the
largest flight (highest sequence sent less the highest ACK: the window the
sender used), each retransmission (its place in the block, counted from
the block's end, and whether the timer sent it: nothing sent for at least
half of RTOmin before it) and the flight when the first copy of a lost
segment went. It prints the blocks that retransmitted (``--show`` of them)
and a summary per side: timeouts whose segment was one of the block's last
three (a tail loss: too few segments behind it for three duplicate ACKs),
other timeouts, fast retransmissions, the mean largest flight, the
time per block that no server sent anything (every one waiting on a timer),
and what each timeout's segment had been through: its retransmission lost,
no duplicate ACK of it, one or two, three or more that started nothing,
and whether the timeout ended a fast recovery (docs/linux_profile.md,
mechanism I). In ``--show``'s lines ``d3`` is the duplicate ACKs a
retransmitted segment had drawn, ``again`` a second retransmission.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as lab_run  # noqa: E402  (validation/linux_lab/run.py; puts validation/ on the path)

common = lab_run.common
lab = lab_run.lab
REQUEST = lab_run.incast_request_bytes()
#: a block's request alone, or after a start time (run.py --sync-start)
REQUESTS = (REQUEST, 2 * REQUEST)
TAIL = 3  # fewer segments than this behind a loss: no third duplicate ACK


#: A gap in every server's sending longer than this is a stall.
STALL = 0.01


def blocks_of(pcap: bytes, mss: int, rto_min_s: float) -> List[Dict[str, Any]]:
    """One server's pcap read as the sender sees it: per block, the segments
    sent, the largest flight and its retransmissions."""
    out: List[Dict[str, Any]] = []
    cur: Optional[Dict[str, Any]] = None
    base = None
    snd_max = ack = 0
    last_send = None
    sent_flight: Dict[int, int] = {}
    copies: Dict[int, int] = defaultdict(int)  # sends of each segment (by its start) so far
    dup_at = -1  # the cumulative ACK the duplicates below repeat
    dups = 0  # duplicate ACKs of it received so far
    recs = [(t, f) for t, f in ((t, common.tcp_fields(ip)) for t, ip in common.pcap_records(pcap)) if f]
    # The measured connection: the one whose server sent the most (the lab's
    # client also opens one for its RTT probe). Its server is the side that
    # answered the SYN.
    sent: Dict[tuple, int] = defaultdict(int)
    for _, f in recs:
        sent[(f[0], f[2], f[1], f[3])] += f[7]
    if not sent:
        return out
    server, sport, client, cport = max(sent, key=sent.get)  # type: ignore[arg-type]
    conn = {(server, sport), (client, cport)}
    first = next(t for t, f in recs if {(f[0], f[2]), (f[1], f[3])} == conn)
    # dcnsim carries the requests on a flow of their own (other ports).
    recs = [(t, f) for t, f in recs if {(f[0], f[2]), (f[1], f[3])} == conn
            or (t >= first and f[1] == server and f[7] in REQUESTS)]
    requests = set()
    for t, f in recs:
        seq, a, flags, length = f[4], f[5], f[6], f[7]
        if f[0] != server:  # the client's: a request opens a block; ACKs of the data
            # a request resent by its flow's timer (E) is not a new block:
            # opening one there cut a block in two and counted the losses
            # before the cut as the end of a block
            if length in REQUESTS and (f[2], seq) not in requests:
                requests.add((f[2], seq))
                cur = {"t": t, "segs": 0, "max_flight": 0, "retx": [], "start": None, "gaps": []}
                out.append(cur)
            if flags & 0x10 and base is not None:
                if cur is not None and a - base > ack:
                    # an ACK of new data: count the segments it releases
                    cur.setdefault("released", []).append(0)
                if a - base > ack:
                    dup_at, dups = a - base, 0
                elif a - base == ack == dup_at and length == 0 and snd_max > ack:
                    dups += 1
                ack = max(ack, a - base)
            continue
        if length <= 0 or cur is None:
            continue
        if base is None:
            base = seq
        s, e = seq - base, seq - base + length
        if cur["start"] is None:
            cur["start"] = s
        cur["end"] = max(cur.get("end", e), e)
        cur["segs"] += 1
        cur.setdefault("sends", []).append(t)
        if cur.get("released"):
            cur["released"][-1] += 1
        if last_send is not None and cur["segs"] > 1:
            cur["gaps"].append(t - last_send)
        if e <= snd_max:
            timer = last_send is not None and t - last_send >= rto_min_s / 2
            prev = cur["retx"][-1] if cur["retx"] else None
            cur["retx"].append({"pos": (s - cur["start"]) // mss, "t": t, "timer": timer,
                                "flight_at_send": sent_flight.get(s, 0),
                                # what the sender had seen of this hole when it resent it
                                "copies": copies[s], "dupacks": dups if s == ack == dup_at else 0,
                                # a fast recovery was under way: the timer ended it
                                "in_recovery": bool(timer and prev is not None and not prev["timer"]
                                                    and t - prev["t"] < 2 * rto_min_s)})
        else:
            sent_flight[s] = (max(snd_max, e) - ack) // mss
        copies[s] += 1
        snd_max = max(snd_max, e)
        cur["max_flight"] = max(cur["max_flight"], (snd_max - ack + mss - 1) // mss)
        last_send = t
    for b in out:
        for r in b["retx"]:
            r["from_end"] = (b.get("end", 0) - b["start"]) // mss - r["pos"] if b["start"] is not None else 0
    return out


def summary(flows: List[List[Dict[str, Any]]]) -> Dict[str, float]:
    blocks = [b for f in flows for b in f if b["segs"]]
    retx = [r for b in blocks for r in b["retx"]]
    tail = sum(1 for r in retx if r["timer"] and r["from_end"] < TAIL)
    timers = sum(1 for r in retx if r["timer"])
    # After its first flight a sender clocked by ACKs 121 µs apart sends one
    # segment per ACK (two on an increment); a segment leaving within 30 µs
    # of the previous one (the server's link takes 12 µs per frame) is part
    # of a burst.
    gaps = [g for b in blocks for g in b["gaps"][40:]]
    # What each ACK of new data released, after a block's first 40: one
    # segment (two on an increment) when each ACK clocks the sender; none on
    # some and several on others when the sender batches (GSO, mechanism C).
    released = [k for b in blocks for k in b.get("released", [])[40:]]
    lost = sorted((id(b), r["pos"]) for b in blocks for r in b["retx"] if not r["timer"])
    runs = sum(1 for k, x in enumerate(lost) if k == 0 or x != (lost[k - 1][0], lost[k - 1][1] + 1))
    # Time no server sent anything for more than STALL (every unfinished one
    # waiting on its timer; a segment takes 121 µs at 100 Mbit/s): timeouts
    # that overlap idle the bottleneck, timeouts spread out do not.
    sends = sorted(t for b in blocks for t in b.get("sends", []))
    stalled = sum(g for g in (y - x for x, y in zip(sends, sends[1:])) if g > STALL)
    per_server = max(max((sum(1 for b in f if b["segs"]) for f in flows), default=1), 1)
    # How far apart the servers start a block: the spread of their first data
    # segments (one clock: every namespace is on this machine). dcnsim's
    # servers answer the instant a request lands, so only the client's own
    # serialization of the n requests spreads them.
    spreads = []
    for k in range(min((len(f) for f in flows), default=0)):
        firsts = [f[k]["sends"][0] for f in flows if f[k].get("sends")]
        if len(firsts) == len(flows) > 1:
            spreads.append(max(firsts) - min(firsts))
    # Why each timeout's segment waited for the timer, from what its sender
    # had seen: its retransmission was lost too (it had gone twice); no
    # duplicate ACK of it came (everything behind it lost, or nothing
    # behind it); one or two came (too few for fast retransmit); three or
    # more came and the sender still did not resend it (a raised
    # duplicate-ACK threshold, or a later hole of a Reno recovery waiting
    # for its partial ACK).
    why = {"retx_lost": 0, "no_dupack": 0, "few_dupacks": 0, "dupacks_unused": 0, "in_recovery": 0}
    for r in retx:
        if not r["timer"]:
            continue
        why["in_recovery"] += r["in_recovery"]
        if r["copies"] >= 2:
            why["retx_lost"] += 1
        elif r["dupacks"] == 0:
            why["no_dupack"] += 1
        elif r["dupacks"] < TAIL:
            why["few_dupacks"] += 1
        else:
            why["dupacks_unused"] += 1
    return {"blocks": len(blocks), "tail_timeouts": tail, "other_timeouts": timers - tail, "why": why,
            "stalled_per_block": stalled / per_server,
            # the median: a request resent by its flow's timer (E) starts one server a timeout late
            "start_spread_us": 1e6 * statistics.median(spreads) if spreads else 0.0,
            "burst_share": sum(1 for g in gaps if g < 30e-6) / max(len(gaps), 1),
            "acks_released_none": sum(1 for k in released if k == 0) / max(len(released), 1),
            "acks_released_several": sum(1 for k in released if k >= 3) / max(len(released), 1),
            "loss_run": len(lost) / max(runs, 1),
            "fast": len(retx) - timers, "mean_max_flight": sum(b["max_flight"] for b in blocks) / max(len(blocks), 1)}


def show(name: str, flows: List[List[Dict[str, Any]]], limit: int) -> None:
    shown = 0
    for i, f in enumerate(flows, 1):
        for k, b in enumerate(f):
            if not b["retx"] or shown >= limit:
                continue
            shown += 1
            rs = " ".join(f"{'T' if r['timer'] else 'F'}@{r['pos']}(-{r['from_end']},w{r['flight_at_send']}"
                          f",d{r['dupacks']}{',again' if r['copies'] >= 2 else ''})"
                          for r in b["retx"])
            print(f"  {name} server {i} block {k}: {b['segs']} segs, max flight {b['max_flight']}: {rs}")


def kernel_pcaps(a: argparse.Namespace, out: Path) -> List[bytes]:
    cfg = lab.LabConfig(a.n, quickack=True, gso=a.gso, extra_sysctls=a.sysctls)
    testbed = lab_run.Lab(cfg)
    dumps: List[subprocess.Popen] = []
    try:
        testbed.configure(bool(a.sack), a.rto_min)
        for i in range(1, a.n + 1):
            dumps.append(subprocess.Popen(
                # --immediate-mode: libpcap hands each packet over at once; its
                # buffering held up to a second's, which the SIGINT below lost
                ["ip", "netns", "exec", lab.server_ns(i), "tcpdump", "--immediate-mode", "-i", "eth0", "-s", "128",
                 "-U", "-w",
                 str(out / f"kernel-s{i}.pcap"), "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1)  # tcpdump opens its socket
        res = testbed.run(a.n, a.cc, a.blocks, a.size_bytes, 0.0, lab_run.time_s(a.sync_start))
        print(f"kernel: {res['goodput_mbps']:.1f} Mbps, RTOs/blk {res['timeouts']:.2f}, drops/blk "
              f"{res['drops']:.1f}, base RTT {res['base_rtt_us']} us")
        time.sleep(0.5)
    finally:
        for d in dumps:
            d.send_signal(signal.SIGINT)
            d.wait(timeout=10)
        testbed.close()
    return [(out / f"kernel-s{i}.pcap").read_bytes() for i in range(1, a.n + 1)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cc", default="reno", choices=[c for c, m in lab_run.CC.items() if m])
    p.add_argument("--sack", type=int, default=0, choices=[0, 1])
    p.add_argument("--rto-min", default="200ms")
    p.add_argument("--n", type=int, default=1)
    p.add_argument("--blocks", type=int, default=100)
    p.add_argument("--size", default="256KB")
    p.add_argument("--delay", default="4us", help="dcnsim's per-link delay")
    p.add_argument("--jitter", default="0s", help="dcnsim: each request waits U[0, jitter] (run.py --jitter)")
    p.add_argument("--spacing", default="0s", help="dcnsim: request i leaves i x spacing into a block (run.py --spacing)")
    p.add_argument("--gso", action="store_true", help="kernel: multi-segment GSO packets (run.py --gso)")
    p.add_argument("--sync-start", default="0s", help="kernel: the servers start a block at one instant (run.py --sync-start)")
    p.add_argument("--sysctl", nargs="*", default=[], metavar="KEY=VALUE",
                   help="kernel: further per-namespace sysctls (run.py --sysctl)")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE", help="dcnsim: [tcp] overrides (run.py --tcp)")
    p.add_argument("--seed", type=int, default=1, help="dcnsim's seed (its jitter's draws)")
    p.add_argument("--only", choices=["kernel", "dcnsim"])
    p.add_argument("--show", type=int, default=10, help="blocks with retransmissions to print per side")
    p.add_argument("--out", type=Path, default=Path("/tmp/linux-lab-trace"))
    a = p.parse_args(argv)
    # a SIGTERM or SIGHUP tears the lab down as Ctrl-C does (run.py's rule)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        a.sysctls = lab.parse_sysctls(a.sysctl)
    except ValueError as e:
        p.error(str(e))
    a.size_bytes = int(__import__("dcnsim.units").units.parse_size(a.size).binary)
    a.out.mkdir(parents=True, exist_ok=True)
    rto_min_s = lab_run.time_s(a.rto_min)
    sides = []
    if a.only != "dcnsim":
        lab.require_tools()
        if shutil.which("tcpdump") is None:
            raise SystemExit("trace.py's kernel side needs tcpdump (apt-get install tcpdump)")
        sides.append(("kernel", kernel_pcaps(a, a.out)))
    if a.only != "kernel":
        import dcnsim

        # dcnsim's linux profile ticks at this kernel's CONFIG_HZ, as run.py's
        hz = lab_run.kernel_hz()
        doc = lab_run.dcnsim_scenario(a.n, a.cc, bool(a.sack), a.rto_min, a.blocks, a.size_bytes,
                                      bottleneck="100Mbps", buffer=32, server_rate="1Gbps", nic_buffer=1000,
                                      delay_us=lab_run.time_s(a.delay) * 1e6, delayed_ack=False, jitter=a.jitter, spacing=a.spacing,
                                      seed=a.seed,
                                      tcp_over={**({"hz": hz} if hz else {}), **common.parse_overrides(a.tcp)})
        doc["pcap"] = {"hosts": f"1-{a.n}"}
        r = dcnsim.run(doc)
        print(f"dcnsim: {r.metrics['block_goodput_bps'] / 1e6:.1f} Mbps, RTOs/blk "
              f"{r.metrics['block_timeouts'] / a.blocks:.2f}")
        sides.append(("dcnsim", [r.pcaps[f"h{i}.pcap"] for i in range(1, a.n + 1)]))
    totals: Dict[str, Dict[str, float]] = defaultdict(dict)
    for name, pcaps in sides:
        flows = [blocks_of(pc, 1448, rto_min_s) for pc in pcaps]
        if name == "kernel":
            # the client's last request on each connection asks for the
            # server's TCP_INFO (incast.py's "I"), as long as a block's and
            # answered with data: not a block (n × blocks + 1 counted before)
            flows = [f[:a.blocks] for f in flows]
        show(name, flows, a.show)
        totals[name] = summary(flows)
    for name, s in totals.items():
        print(f"{name}: {s['blocks']} flow-blocks; timeouts: {s['tail_timeouts']} on one of a block's last "
              f"{TAIL} segments, {s['other_timeouts']} elsewhere; fast retransmissions {s['fast']}; mean "
              f"largest flight {s['mean_max_flight']:.1f} segments; {100 * s['burst_share']:.0f} % of the segments "
              f"after a block's first 40 left in a burst (< 30 us after the previous), "
              f"{100 * s['acks_released_none']:.0f} % of the ACKs of new data released no segment and "
              f"{100 * s['acks_released_several']:.0f} % three or more; fast-retransmitted "
              f"segments in runs of {s['loss_run']:.2f}; no server sending for over {STALL * 1e3:.0f} ms: "
              f"{s['stalled_per_block'] * 1e3:.0f} ms per block; servers' first segments of a block "
              f"{s['start_spread_us']:.0f} us apart (median spread); the timeouts' segments had: "
              f"their retransmission lost {s['why']['retx_lost']}, no duplicate ACK {s['why']['no_dupack']}, "
              f"one or two {s['why']['few_dupacks']}, three or more unused {s['why']['dupacks_unused']}; "
              f"{s['why']['in_recovery']} of them ended a fast recovery")
    return 0


if __name__ == "__main__":
    sys.exit(main())
