"""Differential RPS harness: RPS Fig. 3's static pairs in dcnsim and in
ns-3 3.37, fast retransmits, duplicate ACKs and reordering side by side.

Usage (from the repository root, with dcnsim importable and Debian's
``libns3-dev`` installed)::

    python validation/ns3_rps/run.py                                  # n = 3, 5; single and rps; 30 seeds
    python validation/ns3_rps/run.py --n 3 --routing rps --seeds 10
    python validation/ns3_rps/run.py --only dcnsim --tcp delayed_ack=false
    python validation/ns3_rps/run.py --trace-run 3 rps 1 --out /tmp/rps-trace   # one run's arrivals, both

The scenario is docs/rps.md's Fig. 3 (static pairs): a k = 4 fat-tree,
1 Gbps, 25 µs links, 1000-packet queues everywhere (hosts' NICs too), n long
10 MiB flows S0..S(n-1) -> S15 and one 200 KiB short flow S0 -> S15, all at
t = 0, NewReno with ns-3.23's settings (python/dcnsim/experiments/rps/common.py
``tcp()``). dcnsim's side is built by ``dcnsim.experiments.rps``'s own
scenario builders with the same seeds and ns-3's order of equal-time events
(``ties = "fifo"``; ``--ties seeded``: dcnsim's own default, the experiment's); ns-3's is rps.cc (RandomEcmpRouting
for spraying: a random equal-cost next hop per packet at every node).

Both sides count with the same rules (rps.cc's header comment): ns-3 from
its sockets' Rx/Tx and CongState traces, dcnsim from its flows table and
pcap traces of the hosts. ``--check R`` judges each (n, routing) point: the
long flows' mean FCT and the short flow's mean and median FCT in dcnsim
within a factor R of ns-3's either way (exit 1 if any is outside; the table
alone judges nothing). This is a tool, not a test: nothing in CI runs it.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import ns3_common as common  # noqa: E402  (validation/: shared with ns3_incast)

SOURCE = HERE / "rps.cc"
ROUTING = {"single": {"mode": "single"}, "rps": {"mode": "rps"}}


def ns3_binary(build_dir: Path) -> Path:
    """Compile rps.cc against the installed ns-3 (once per source change)."""
    return common.ns3_binary(SOURCE, build_dir)


FLOW_RE = re.compile(r"flow (\d+) (long|short) src (\d+) fct_us (\S+) fast_recoveries (\d+) rtos (\d+) retx (\d+) "
                     r"dupacks (\d+) duprun3 (\d+) maxrun (\d+) ooo (\d+) segs (\d+)")


def parse_ns3(out: str) -> Dict[str, Any]:
    flows = []
    drops = None
    for line in out.splitlines():
        m = FLOW_RE.match(line)
        if m:
            flows.append({"short": m[2] == "short", "fct_ms": float(m[4]) / 1e3, "fr": int(m[5]), "rtos": int(m[6]),
                          "retx": int(m[7]), "dupacks": int(m[8]), "duprun3": int(m[9]), "maxrun": int(m[10]),
                          "ooo": int(m[11])})
        elif line.startswith("drops "):
            drops = int(line.split()[1])
    if drops is None or not flows:
        raise RuntimeError("unexpected ns-3 output:\n" + out[-2000:])
    return {"flows": flows, "drops": drops}


def run_ns3(exe: Path, n: int, routing: str, seed: int, cache: Optional[Path], cc: str = "newreno") -> Dict[str, Any]:
    """One ns-3 run; single-path ns-3 has no randomness, so every seed is seed 1."""
    if routing == "single":
        seed = 1
    f = cache / f"n{n}-{routing}-{cc}-s{seed}.txt" if cache else None
    args = [str(exe), f"--n={n}", f"--spray={int(routing == 'rps')}", f"--seed={seed}", f"--cc={cc}"]
    return parse_ns3(common.run_cached(args, f))


def dcnsim_scenario(n: int, routing: str, seed: int, tcp_over: Optional[Dict[str, Any]] = None,
                    ties: str = "fifo") -> Dict[str, Any]:
    """RPS Fig. 3's static-pairs run, from the experiment's own builders, with pcaps of the senders.

    ``ties = "fifo"`` (the default here) is ns-3's order of equal-time
    events. dcnsim's own default, and so the experiment's, has been
    ``"seeded"`` since 2026-11-28; under spraying it halves the reordering
    (n = 5, 30 seeds: 47.2 out-of-order arrivals per long flow and 169.9
    duplicate ACKs FIFO, 23.0 and 90.3 seeded; ns-3 44.4 and 158.4), so the
    harness names the order instead of inheriting it."""
    from dcnsim.experiments.rps.common import scenario, static_apps, tcp

    doc = scenario(f"ns3-rps-{routing}-n{n}-s{seed}", static_apps(n), ROUTING[routing], seed, tcp(**(tcp_over or {})))
    doc["pcap"] = {"hosts": sorted(set(range(max(n, 1))))}
    doc["ties"] = ties
    return doc


pcap_records = common.pcap_records
tcp_fields = common.tcp_fields


def dupack_runs(pcaps: Dict[str, bytes], flow_ports: Dict[int, int]) -> Dict[int, Dict[str, int]]:
    """Per flow (by the sender's port): duplicate ACKs arriving at the sender
    while data is outstanding, and runs of >= 3 of them (rps.cc's rule)."""
    st = {f: {"dupacks": 0, "duprun3": 0, "maxrun": 0, "run": 0, "last": -1, "high": -1} for f in flow_ports}
    by_port = {p: f for f, p in flow_ports.items()}
    for data in pcaps.values():
        for _, ip in pcap_records(data):
            h = tcp_fields(ip)
            if h is None:
                continue
            _, _, sport, dport, seq, ack, flags, plen = h
            if plen > 0 and sport in by_port:  # data leaving the sender
                s = st[by_port[sport]]
                s["high"] = max(s["high"], seq + plen)
            elif plen == 0 and dport in by_port and flags & 0x10 and not flags & 0x03:  # a pure ACK arriving
                s = st[by_port[dport]]
                if ack == s["last"] and ack < s["high"]:
                    s["dupacks"] += 1
                    s["run"] += 1
                elif ack > s["last"]:
                    s["duprun3"] += s["run"] >= 3
                    s["maxrun"] = max(s["maxrun"], s["run"])
                    s["run"], s["last"] = 0, ack
    for s in st.values():
        s["duprun3"] += s["run"] >= 3
        s["maxrun"] = max(s["maxrun"], s["run"])
    return st


def run_dcnsim(n: int, routing: str, seed: int, tcp_over: Optional[Dict[str, Any]] = None,
               ties: str = "fifo") -> Dict[str, Any]:
    import dcnsim

    r = dcnsim.run(dcnsim_scenario(n, routing, seed, tcp_over, ties))
    f = r.flows
    f = f[f["transport"] == "tcp"].reset_index(drop=True)
    # docs/scenario.md "pcap traces": flow i's data leaves port 1024 + i
    runs = dupack_runs(r.pcaps, {i: 1024 + int(f.loc[i, "flow_id"]) for i in range(len(f))})
    flows = []
    for i, row in f.iterrows():
        flows.append({"short": int(row["app_bytes"]) < (10 << 20), "fct_ms": float(row["fct_s"]) * 1e3,
                      "fr": int(row["fast_retransmits"]), "rtos": int(row["timeouts"]),
                      "retx": int(row["retransmits"]), "ooo": int(row["ooo_arrivals"]),
                      "dupacks": runs[i]["dupacks"], "duprun3": runs[i]["duprun3"], "maxrun": runs[i]["maxrun"]})
    return {"flows": flows, "drops": int(f["drops"].sum())}


def summarize(runs: List[Dict[str, Any]]) -> Dict[str, float]:
    """Per-run means over the runs of one (n, routing, simulator)."""
    def mean(xs):
        return sum(xs) / len(xs) if xs else float("nan")

    longs = [[fl for fl in r["flows"] if not fl["short"]] for r in runs]
    shorts = [next(fl for fl in r["flows"] if fl["short"]) for r in runs]
    sfct = [s["fct_ms"] for s in shorts]
    return {
        "runs": len(runs),
        "fr_long": mean([sum(fl["fr"] for fl in ls) for ls in longs]),
        "fr_short": mean([s["fr"] for s in shorts]),
        "short_hit": mean([float(s["fr"] > 0) for s in shorts]),
        "short_fct_med": statistics.median(sfct),
        "short_fct_mean": mean(sfct),
        "long_fct_mean": mean([fl["fct_ms"] for ls in longs for fl in ls]),
        "ooo_long": mean([fl["ooo"] for ls in longs for fl in ls]),
        "ooo_short": mean([s["ooo"] for s in shorts]),
        "dupacks": mean([sum(fl["dupacks"] for fl in r["flows"]) for r in runs]),
        "duprun3": mean([sum(fl["duprun3"] for fl in r["flows"]) for r in runs]),
        "maxrun": mean([max(fl["maxrun"] for fl in r["flows"]) for r in runs]),
        "rtos": mean([sum(fl["rtos"] for fl in r["flows"]) for r in runs]),
        "drops": mean([r["drops"] for r in runs]),
    }


COLUMNS = [("fr_long", "FR long", "{:.2f}"), ("fr_short", "FR short", "{:.2f}"),
           ("short_hit", "short hit", "{:.0%}"), ("short_fct_med", "sFCT med", "{:.2f}"),
           ("short_fct_mean", "sFCT mean", "{:.2f}"), ("long_fct_mean", "lFCT", "{:.1f}"),
           ("ooo_long", "ooo/long", "{:.1f}"), ("ooo_short", "ooo short", "{:.1f}"),
           ("dupacks", "dupACKs", "{:.1f}"), ("duprun3", "runs>=3", "{:.2f}"), ("maxrun", "max run", "{:.1f}"),
           ("rtos", "RTOs", "{:.2f}"), ("drops", "drops", "{:.1f}")]


parse_value = common.parse_value

#: what ``--check`` holds dcnsim to: the flows' completion times, the figure's measure
CHECKED = (("long_fct_mean", "long FCT mean"), ("short_fct_mean", "short FCT mean"),
           ("short_fct_med", "short FCT median"))


def check_point(ours: Dict[str, float], theirs: Dict[str, float], factor: float) -> Tuple[bool, str]:
    """dcnsim's completion times at one point over ns-3's (``summarize``'s
    means), each within ``factor`` either way: (inside, the line that says so)."""
    return common.within_factor([(what, ours[key], theirs[key]) for key, what in CHECKED], factor)


def trace_run(exe: Path, n: int, routing: str, seed: int, out: Path, tcp_over: Optional[Dict[str, Any]],
              cc: str = "newreno", ties: str = "fifo") -> None:
    """One run's arrivals in both simulators: ns-3's --trace text and pcaps,
    dcnsim's pcaps of the senders and of S15."""
    import dcnsim

    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(exe), f"--n={n}", f"--spray={int(routing == 'rps')}", f"--seed={seed}", f"--cc={cc}",
                    f"--trace={out / 'ns3-arrivals.txt'}", f"--pcap={out / 'ns3'}"], check=True,
                   stdout=open(out / "ns3-flows.txt", "w"))
    doc = dcnsim_scenario(n, routing, seed, tcp_over, ties)
    doc["pcap"] = {"hosts": list(range(n)) + [15]}
    r = dcnsim.run(doc)
    for name, data in r.pcaps.items():
        (out / f"dcnsim-{name}").write_bytes(data)
    r.flows.to_csv(out / "dcnsim-flows.csv", index=False)
    print(f"wrote {out}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, nargs="+", default=[3, 5], help="long flows (0..15)")
    p.add_argument("--routing", nargs="+", default=["single", "rps"], choices=sorted(ROUTING))
    p.add_argument("--seeds", type=int, default=30, help="runs per point, seeds 1..SEEDS")
    p.add_argument("--tcp", nargs="*", default=[], metavar="KEY=VALUE", help="dcnsim [tcp] overrides")
    p.add_argument("--only", choices=["dcnsim", "ns3"], help="run one simulator")
    p.add_argument("--cc", default="newreno", choices=["newreno", "linuxreno"],
                   help="ns-3's congestion control: TcpNewReno (ns-3.23's; slow start adds one SMSS per ACK) or "
                        "TcpLinuxReno (slow start adds every acknowledged segment, as dcnsim's byte counting "
                        "with L = 2 SMSS does under delayed ACKs)")
    p.add_argument("--ties", default="fifo", choices=["fifo", "seeded"],
                   help="dcnsim's order of equal-time events: fifo (ns-3's, the default here) or seeded "
                        "(dcnsim's own default, which experiments.rps runs with; its rows say so)")
    p.add_argument("--check", type=float, default=None, metavar="R",
                   help="judge each point: dcnsim's long and short flows' FCTs within a factor R of ns-3's either "
                        "way; exit 1 if any is outside")
    p.add_argument("--build", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-ns3-rps")
    p.add_argument("--no-cache", action="store_true", help="rerun ns-3 even where BUILD/cache has the run")
    p.add_argument("--trace-run", nargs=3, metavar=("N", "ROUTING", "SEED"),
                   help="write one run's traces of both simulators to --out, then stop")
    p.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-rps-trace",
                   help="where --trace-run writes (default $TMPDIR/dcnsim-rps-trace)")
    a = p.parse_args(argv)
    for n in a.n:
        if not 0 <= n <= 15:
            p.error(f"--n: each must be in 0..15, got {n}")
    if a.seeds < 1:
        p.error(f"--seeds: must be >= 1, got {a.seeds}")
    if a.check is not None and not (a.check > 1 and math.isfinite(a.check)):
        p.error(f"--check: a factor above 1, got {a.check:g}")
    if a.check is not None and a.only is not None:
        p.error("--check compares the two simulators: leave out --only")
    if a.check is not None and a.trace_run:
        p.error("--check judges the table's points; --trace-run writes one run and prints no table")
    over: Dict[str, Any] = {}
    for kv in a.tcp:
        key, sep, val = kv.partition("=")
        if not sep:
            p.error(f"--tcp: expected KEY=VALUE, got {kv!r}")
        over[key] = parse_value(val)
    # A bad dcnsim key fails here, naming --tcp, not as a traceback mid-table.
    problems = common.dcnsim_problems(dcnsim_scenario(a.n[0], a.routing[0], 1, over, a.ties))
    if problems:
        p.error(f"--tcp: dcnsim refuses the scenario: {problems}")
    exe = ns3_binary(a.build) if a.only != "dcnsim" else None
    if a.trace_run:
        try:
            n, routing, seed = int(a.trace_run[0]), a.trace_run[1], int(a.trace_run[2])
        except ValueError:
            p.error(f"--trace-run: expected N ROUTING SEED with N and SEED whole numbers, got {a.trace_run}")
        if not 0 <= n <= 15:
            p.error(f"--trace-run: N must be in 0..15 (short flows), got {n}")
        if seed < 1:
            p.error(f"--trace-run: SEED must be >= 1, got {seed}")
        if routing not in ROUTING:
            p.error(f"--trace-run: routing must be one of {sorted(ROUTING)}, got {routing!r}")
        trace_run(exe or ns3_binary(a.build), n, routing, seed, a.out, over, a.cc, a.ties)
        return 0
    cache = None if a.no_cache else a.build / "cache"
    print(f"{a.seeds} seeds per point; per-run means; ns-3 {a.cc}"
          + (f"; dcnsim tcp overrides {over}" if over else ""))
    print("FR: fast retransmits (long flows summed / the short flow); short hit: runs whose short flow "
          "fast-retransmits; FCT in ms; ooo: out-of-order arrivals per flow; runs>=3: duplicate-ACK runs of >= 3")
    head = f"{'n':>2} {'routing':7} {'simulator':13} " + " ".join(f"{c[1]:>9}" for c in COLUMNS)
    print(head)
    outside = []
    for n in a.n:
        for routing in a.routing:
            sims = []
            if a.only != "ns3":
                sims.append(("dcnsim" if a.ties == "fifo" else "dcnsim seeded",
                             [run_dcnsim(n, routing, s, over, a.ties) for s in range(1, a.seeds + 1)]))
            if exe is not None:
                sims.append(("ns-3", [run_ns3(exe, n, routing, s, cache, a.cc) for s in range(1, a.seeds + 1)]))
            means = {}
            for name, runs in sims:
                m = means[name] = summarize(runs)
                print(f"{n:2d} {routing:7} {name:13} " + " ".join(f"{fmt.format(m[k]):>9}" for k, _, fmt in COLUMNS),
                      flush=True)
            if a.check is not None:
                ok, line = check_point(means[sims[0][0]], means["ns-3"], a.check)
                print(f"  check n = {n} {routing}: {line}", flush=True)
                if not ok:
                    outside.append(f"n = {n} {routing}")
    if a.check is not None:
        print(f"check: {len(outside)} point(s) outside a factor {a.check:g} of ns-3's FCTs"
              + (": " + "; ".join(outside) if outside else ""))
        return 1 if outside else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
