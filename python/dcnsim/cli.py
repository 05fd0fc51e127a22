"""The ``dcnsim`` command line: run, validate, schema, sweep, tune, demo, bench, reproduce, model.

Exit codes: 0 success; 1 a run or a write failed (e.g. a results file, or
standard output on a full disk); 2 bad input
(missing file, syntax error, invalid scenario — ``validate`` included —,
bad arguments, an ``--out`` that cannot be written, a cluster that cannot
be reached); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
User errors print their problems, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from ._args import explained as _explained
from ._args import one_line as _one_line
from ._args import out_dir as _out_dir
from ._args import (
    parse_seed,
    parse_seeds,
    parse_set,
    parse_threads,
    positive_int,
    set_pair,
    split_values,
)
from ._args import print_problems as _print_problems
from .errors import OutputDirError, ScenarioError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from typing import Any, Dict, List, NoReturn, Optional, Sequence, Tuple

# ----------------------------------------------------------------------------
# formatting


def fmt_rate(bps: float) -> str:
    if bps is None or not math.isfinite(bps):
        return "n/a"
    # Tbps too: a big fabric's total would print as "3.3e+04 Gbps"; the
    # unit chosen by the value as printed (999.96e6 is "1 Gbps", not "1000 Mbps")
    shown = float(f"{bps:.4g}")
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if abs(shown) >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} bps"


def fmt_time(s: float) -> str:
    if s is None or not math.isfinite(s):
        return "n/a"
    shown = float(f"{s:.4g}")  # 0.99996 s is "1 s", not "1000 ms"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(shown) >= scale:
            return f"{s / scale:.4g} {unit}"
    return f"{s / 1e-9:.4g} ns" if s else "0 s"


def fmt_count(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{int(round(x)):,}"


def fmt_per_s(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x / 1e6:.3g} M/s" if x >= 1e5 else f"{x:,.0f}/s"


#: the summary's widest line (the hot-queue row), and the inputs it names
SUMMARY_WIDTH = 120
HOT_INPUTS = 5


def _cores() -> int:
    """The cores this process may run on, as the core counts them for its
    worker threads (``std::thread::available_parallelism``: the CPU
    affinity; Linux's cgroup quota is not read here)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def _any_tcp_transport(doc: Any) -> bool:
    """Whether an app of scenario ``doc`` runs over the TCP transport (its
    own ``tcp.transport`` or the document's, ``tcp`` by default)."""
    top = (doc.get("tcp") or {}).get("transport", "tcp") if isinstance(doc, dict) else "tcp"
    apps = doc.get("apps") if isinstance(doc, dict) else None
    if not isinstance(apps, list) or not apps:
        return top == "tcp"
    return any(((a.get("tcp") or {}).get("transport", top) if isinstance(a, dict) else top) == "tcp"
               and not (isinstance(a, dict) and a.get("kind") == "udp_cbr") for a in apps)


def format_summary(result, warnings: bool = True) -> str:
    """A readable multi-line summary of a Result. ``warnings=False`` leaves
    out the scenario's warnings (the command line has shown them on stderr)."""
    from . import __version__, core_version

    s, m = result.summary, result.metrics
    # what the run did that was probably not meant: each in its place below
    # (a path can carry several: a PFC fabric's drops and its deadlock), and
    # those with no place of their own (Swift's and TIMELY's targets) before
    # the run's totals, so none is left out
    outcome = result.outcome_warnings()
    shown: List[str] = []

    def said(path: str, label: str = "", prefix: str = "warning: ") -> None:
        for p in outcome:
            if p.path == path and p not in shown:
                shown.append(p)
                row(label, f"{prefix}{p.message}")
    name = result.scenario.get("name", "scenario")
    seed = s.get("seed", result.scenario.get("seed"))
    lines = [f"dcnsim {__version__} (core {core_version()}): {name}, seed {fmt_count(seed) if seed is not None else '?'}"]

    def row(label: str, text: str) -> None:
        lines.append(f"  {label:<12} {text}")

    # an app cut off between its queries or blocks has every flow's transfer
    # done: "all completed" alone would read as a finished run
    unfinished = int(s.get("apps_unfinished", 0) or 0)
    cut = (f", but {fmt_count(unfinished)} app{'s' if unfinished != 1 else ''} had not finished: see "
           f"{'their warnings' if unfinished != 1 else 'its warning'}") if unfinished else ""
    row("flows", f"{fmt_count(m['n_flows'])} ({fmt_count(m['n_completed'])} completed{cut})")
    # Jain's index of one flow is 1 whatever it did: shown from two up
    bulk = sum(1 for k in fc_kinds(result) if k == "bulk")
    jain = f", Jain {m['jain']:.4f} (bulk flows)" if math.isfinite(m["jain"]) and bulk != 1 else ""
    row("goodput", f"{fmt_rate(m['goodput_bps'])} total{jain}")
    non_ect = s.get("packets_dropped_non_ect")
    # (the flows' drops count data; a queue's count every packet, ACKs too)
    at_k = f"; {fmt_count(non_ect)} packets without ECT dropped over ecn_k" if non_ect else ""
    fc = result.tables.core_columns("flows") if "flows" in result.tables else {}
    # the flows' drops are their data; their ACKs lost make up the rest of
    # the packets row's "dropped" (a reader who adds them up finds it)
    acks = sum(int(x) for x in fc.get("ack_drops", ()))
    of_acks = f" (+{fmt_count(acks)} of their ACKs)" if acks else ""
    row("losses", f"{_n(m['timeouts'], 'timeout')}, {_n(m['retransmits'], 'retransmit')}, "
                  f"{_n(m['drops'], 'drop')}{of_acks}{at_k}")
    # PLB's moves and timeouts' (`tcp.plb`, `tcp.txrehash`): absent from results of cores before the column
    rehashes = sum(int(x) for x in fc.get("rehashes", ()))
    if rehashes:
        # txrehash is TCP's: under Swift alone only PLB draws labels
        keys = "tcp.plb, tcp.txrehash" if _any_tcp_transport(result.scenario) else "tcp.plb"
        row("paths", f"{fmt_count(rehashes)} new flow labels drawn ({keys}) by "
                     f"{_n(sum(1 for x in fc['rehashes'] if int(x)), 'flow')}")
    # ECN: the ports' marks and the senders' reactions (DCTCP's window cuts,
    # DCQCN's CNPs); absent where nothing was marked
    qm = result.tables.core_columns("queues") if "queues" in result.tables else {}
    marks = [int(x) for x in qm.get("marked", ())]
    if sum(marks):
        ramp = "RED's ramp" if (result.scenario.get("topology") or {}).get("ecn_kmax") is not None else ""
        cuts = sum(int(x) for x in fc.get("ecn_cuts", ()))
        cnps = s.get("dcqcn_cnps_sent")
        if cnps is not None:
            # DCQCN's cuts answer CNPs; a TCP sender's beside them (DCTCP in
            # the same fabric) cuts its window on echoed marks: said apart
            rate_cuts = sum(int(c) for c, t in zip(fc.get("ecn_cuts", ()), fc.get("transport", ())) if t == "dcqcn")
            by = f"receivers sent {fmt_count(cnps)} CNPs, senders made {fmt_count(rate_cuts)} rate cuts on them"
            if cuts > rate_cuts:
                by += f"; other senders made {fmt_count(cuts - rate_cuts)} window cuts"
        else:
            by = f"senders made {fmt_count(cuts)} window cuts"
        ports = sum(1 for x in marks if x)
        # a port counts each CE it sets: a packet marked at two ports counts
        # twice, and DCTCP's ACKs are ECN-capable (as Linux's), so the ports'
        # sum is marks, not packets; what the receivers saw is the flows'
        seen = ""
        if "ecn_marks" in fc:
            data_ce = sum(int(x) for x in fc["ecn_marks"])
            if data_ce != sum(marks):
                seen = (f"{fmt_count(data_ce)} data packets arrived marked; the rest marked ACKs, "
                        "marked a packet again at a later port, or were on their way at the end")
        # one parenthesis for both asides
        aside = "; ".join(x for x in (ramp, seen) if x)
        row("ecn", f"{fmt_count(sum(marks))} CE marks at {fmt_count(ports)} port{'s' if ports != 1 else ''}"
                   f"{f' ({aside})' if aside else ''}; {by}")
    # TIMELY moves its rates on RTTs, not marks: what its updates did
    updates = s.get("timely_rate_updates")
    if updates is not None:
        row("timely", f"{fmt_count(updates)} rate updates from RTTs, "
                      f"{fmt_count(s.get('timely_rate_decreases', 0))} of them cuts")
    # [trimming]: what the ports cut instead of dropping, and what NDP's senders heard of it
    trimmed = s.get("packets_trimmed")
    if trimmed is not None:
        discarded = s.get("tcp_headers_discarded", 0)
        row("trimming", f"{fmt_count(trimmed)} packets trimmed to headers, {fmt_count(s.get('header_drops', 0))} "
                        f"headers dropped, {fmt_count(s.get('headers_bounced', 0))} returned to their senders"
                        + (f", {fmt_count(discarded)} reached TCP or Swift receivers, which discard them"
                           if discarded else ""))
    if s.get("ndp_pulls") is not None:
        row("ndp", f"senders heard {fmt_count(s['ndp_nacks'])} NACKs, {fmt_count(s['ndp_bounces'])} returned headers "
                   f"and {fmt_count(s['ndp_pulls'])} pulls")
    if s.get("hpcc_window_updates") is not None:
        fewest = s.get("hpcc_window_min_pkts")
        w_init = f"; smallest W_init {fewest:.1f} packets of mss" if fewest is not None else ""
        row("hpcc", f"{fmt_count(s['hpcc_window_updates'])} window updates from INT, "
                    f"{fmt_count(s['hpcc_nacks'])} NACKs (go-back-N){w_init}")
        said("tcp.transport")
    failed = s.get("packets_dropped_failed")
    ft = result.tables.core_columns("failures") if failed is not None and "failures" in result.tables else {}
    if failed is not None:
        ends = set(zip(ft.get("node", ()), ft.get("to", ())))
        cables = len({frozenset(e) for e in ends})
        # what each link's failure does: a link only slowed (`rate`, no
        # `loss`) loses nothing and is no "failed link"
        kind: Dict[frozenset, str] = {}
        for a, b, loss in zip(ft.get("node", ()), ft.get("to", ()), ft.get("loss", ())):
            how = "failed" if float(loss) >= 1 else "lossy" if float(loss) > 0 else "slowed"
            cable = frozenset((a, b))
            order = ("slowed", "lossy", "failed")
            kind[cable] = max(kind.get(cable, "slowed"), how, key=order.index)
        kinds = sorted(set(kind.values()), key=("failed", "lossy", "slowed").index)
        what = (f"{kinds[0]} link{'s' if cables != 1 else ''}" if len(kinds) == 1 else
                f"link{'s' if cables != 1 else ''} ("
                + ", ".join(f"{sum(1 for v in kind.values() if v == w)} {w}" for w in kinds) + ")")
        row("failures", f"{fmt_count(failed)} packets lost on {fmt_count(cables)} {what} "
                        f"({fmt_count(len(ends))} direction{'s' if len(ends) != 1 else ''}; [[failures]])")
    pauses = s.get("pfc_pauses")
    if pauses is not None:
        # `[pfc]`: the pauses, and the ingress port that held its sender longest
        pc = result.tables.core_columns("pfc") if "pfc" in result.tables else {}
        paused = [float(x) for x in pc.get("paused_s", ())]
        most = max(range(len(paused)), key=lambda i: (paused[i], -i)) if paused and max(paused) > 0 else None
        # the port's pauses together (`pfc.paused_s`), not its longest single pause
        longest = (f"; most paused {pc['node'][most]}→{pc['to'][most]}, {fmt_time(paused[most])} in all"
                   if most is not None else "")
        row("pfc", f"{fmt_count(pauses)} pauses from {fmt_count(s.get('pfc_ports_paused', 0))} ingress ports, "
                   f"senders paused {fmt_time(s.get('pfc_paused_s', 0.0))} in all{longest}")
        said("pfc")
    if m.get("n_queries") == 0:
        row("queries", "none completed: the run ended before the first query did")
    elif "n_queries" in m:
        row(
            "queries",
            f"{fmt_count(m['n_queries'])}: QCT mean {fmt_time(m['qct_mean_s'])}, p99 {fmt_time(m['qct_p99_s'])}, "
            f"max {fmt_time(m['qct_max_s'])}; {m['query_timeouts_mean']:.3g} timeouts/query "
            f"({m.get('query_request_timeouts_mean', math.nan):.3g} on the request flows)",
        )
    if m.get("n_blocks") == 0:
        row("blocks", "none completed: the run ended before the first block did")
    elif "n_blocks" in m:
        row("blocks", f"{fmt_count(m['n_blocks'])}: goodput {fmt_rate(m['block_goodput_bps'])}, {fmt_count(m['block_timeouts'])} timeouts "
                             f"({fmt_count(m.get('block_request_timeouts', math.nan))} on the request flows)")
    qi = result.tables.core_columns("queue_inputs") if "queue_inputs" in result.tables else {}
    dropped = [int(d) for d in qi.get("dropped", ())]
    # A failing link's losses are counted in its queue's drops too; they
    # are the failure's (its own line above), not congestion, but the same
    # queue's overflow is (a gray or slowed link at an incast port).
    lost_to_failure: Dict[int, int] = {}
    for qid, lost in zip(ft.get("queue_id", ()), ft.get("lost", ())):
        lost_to_failure[int(qid)] = lost_to_failure.get(int(qid), 0) + int(lost)
    by_queue: Dict[int, int] = {}
    for qid, d in zip(qi.get("queue_id", ()), dropped):
        by_queue[int(qid)] = by_queue.get(int(qid), 0) + d
    by_queue = {q: d - lost_to_failure.get(q, 0) for q, d in by_queue.items()}
    if sum(by_queue.values()) > 0:
        # The switch queue that dropped most, split by input port: port
        # blackout shows as one input losing a far larger share. Read from
        # the core's columns: a summary needs neither numpy nor pandas.
        q = max(sorted(by_queue), key=lambda k: by_queue[k])  # the lowest id among equals
        rows = [i for i, qid in enumerate(qi["queue_id"]) if int(qid) == q]

        def values(c: str) -> List[Any]:  # by position: the core's arrays and lists, or a DataFrame's columns
            v = qi[c]
            return v.tolist() if hasattr(v, "tolist") else list(v)

        col = {c: values(c) for c in ("node", "to", "input_from", "offered")
               + (("input_queue_id",) if "input_queue_id" in qi else ())}
        col = {c: [v[i] for i in rows] for c, v in col.items()}
        # parallel links from one node are two inputs of the same name
        # ("s0 7.1%, s0 2.7%"): told apart by their queues
        names = [str(x) for x in col["input_from"]]
        if "input_queue_id" in col and len(set(names)) < len(names):
            col["input_from"] = [f"{n} (queue {int(iq)})" if names.count(n) > 1 else n
                                 for n, iq in zip(names, col["input_queue_id"])]
        # each input's drop rate: the share of the packets it offered the
        # queue that were dropped (not its share of the queue's drops)
        shares = [(d / off, src) for src, d, off in zip(col["input_from"], (dropped[i] for i in rows), col["offered"])
                  if d > 0]
        spared = len(rows) - len(shares)  # inputs that lost nothing: counted, not listed
        # the inputs that lost most first (input order among equals); one
        # line a reader takes in: at most HOT_INPUTS of them and "N more",
        # fewer when the names are long (queue_inputs.csv has them all)
        shares.sort(key=lambda x: -x[0])
        # the inputs' shares then hold the failure's losses too: said
        lost = lost_to_failure.get(q, 0)
        also = f"; {fmt_count(by_queue[q])} overflowed, {fmt_count(lost)} lost to its failure" if lost else ""
        head = f"{col['node'][0]}→{col['to'][0]} (queue {q}{also}) drop rate by input: "
        tail = [f"{fmt_count(spared)} without drops"] if spared else []
        for k in range(min(HOT_INPUTS, len(shares)), -1, -1):
            more = len(shares) - k
            text = head + ", ".join([f"{src} {share:.1%}" for share, src in shares[:k]]
                                    + ([f"{more} more"] if more else []) + tail)
            if len(f"  {'hot queue':<12} {text}") <= SUMMARY_WIDTH:
                break
        row("hot queue", text)
    # Drops in the hosts' own egress queues: a sender whose own link is its
    # bottleneck overflows its NIC (no TCP Small Queues here; ns-3 since
    # 3.25 and Linux hold such packets back), which a user reading only
    # "drops" would take for the switches' congestion.
    # (a failing host link's losses are the failure's, as above)
    overflow = [int(d) - lost_to_failure.get(int(qid), 0) if h else 0
                for qid, h, d in zip(qm.get("queue_id", ()), qm.get("from_host", ()), qm.get("dropped", ()))]
    nic = [i for i, d in enumerate(overflow) if d > 0]
    if nic:
        worst = max(nic, key=lambda i: (overflow[i], -i))
        pkts, nbytes = int(qm["limit_pkts"][worst]), int(qm["limit_bytes"][worst])
        limit = f"{fmt_count(pkts)} pkt" if pkts else f"{fmt_count(nbytes)} B"
        udp = _udp_rate_from(result.scenario, str(qm["node"][worst]))
        link = float(qm["rate_bps"][worst]) if "rate_bps" in qm else math.inf
        # a larger queue absorbs a window's burst, not a source faster than its link
        advice = (f"its UDP sources send {fmt_rate(udp)}, more than the link's {fmt_rate(link)}, which no "
                  f"nic_buffer holds" if udp > link else "see topology.nic_buffer")
        row("nic drops", f"{fmt_count(sum(overflow[i] for i in nic))} packets at hosts' own NIC queues, "
                         f"most at {qm['node'][worst]}→{qm['to'][worst]} (limit {limit}): {advice}")
    for p in outcome:
        if p not in shown and p.path != "apps":
            shown.append(p)
            row("warning", p)
    if warnings:
        for w in getattr(result, "warnings", ()):
            if w not in outcome:  # (dcnsim.run adds them to Result.warnings)
                row("warning", w)
    row("simulated", f"{fmt_time(s.get('sim_time_s', math.nan))}")
    said("apps", "warning", "")
    row(
        "packets",
        f"{fmt_count(s.get('packets_created', math.nan))} created, {fmt_count(s.get('packets_delivered', math.nan))} delivered, "
        f"{fmt_count(s.get('packets_dropped', math.nan))} dropped, {fmt_count(s.get('packets_in_flight', math.nan))} in flight",
    )
    wall = float(result.timing.get("wall_s", math.nan))
    hops = float(s.get("packet_hops", math.nan))
    events = float(s.get("events", math.nan))
    rate = hops / wall if wall > 0 else math.nan
    row("events", f"{fmt_count(events)} ({fmt_per_s(events / wall if wall > 0 else math.nan)})")
    # the core's `threads` counts partitions; on fewer cores it runs them on
    # fewer worker threads (its stderr line says "8 partitions on 2 cores:
    # 2 worker threads"), and the wall time is theirs
    threads = int(result.timing.get("threads", 1))
    workers = int(result.timing.get("workers", min(threads, _cores())))
    if threads > 1 and workers < threads:
        on = f" on {workers} worker thread{'s' if workers != 1 else ''} ({threads} partitions)"
    else:
        on = f" on {threads} threads" if threads > 1 else ""
    row("wall", f"{fmt_time(wall)}{on}, {fmt_count(hops)} packet-hops ({fmt_per_s(rate)})")
    if "windows" in result.timing:
        row("windows", parallel_note(result.timing))
    return "\n".join(lines)


def parallel_note(timing: Dict[str, Any]) -> str:
    """Where a partitioned run's wall time went (``Result.timing``): a
    partition's mean work, the waits for the slower partition at each
    window, and the steps between windows with the build and close, each
    with its share of the wall time. A wait of several per cent on a
    machine whose cores run unevenly is the machine's
    (``benchmarks/machine_noise.py``, docs/performance.md)."""
    wall = float(timing.get("wall_s", math.nan))

    def part(key: str) -> str:
        v = float(timing.get(key, math.nan))
        share = f" ({100 * v / wall:.0f} %)" if wall > 0 and math.isfinite(v) else ""
        return f"{fmt_time(v)}{share}"

    return (f"{fmt_count(timing['windows'])}: a partition's work {part('partition_work_s')}, "
            f"waiting for the slower {part('imbalance_s')}, "
            f"between windows with build and close {part('between_windows_s')}")


# ----------------------------------------------------------------------------
# commands


def _n(count: Any, noun: str) -> str:
    """``1 timeout``, ``2 timeouts``, ``nan timeouts``."""
    try:
        one = int(count) == 1
    except (TypeError, ValueError):
        one = False
    return f"{fmt_count(count)} {noun}{'' if one else 's'}"


def fc_kinds(result) -> List[str]:
    """Each flow's app kind (``flows.app_kind``), none without the table."""
    fc = result.tables.core_columns("flows") if "flows" in result.tables else {}
    return [str(k) for k in fc.get("app_kind", ())]


def _udp_rate_from(scenario: Dict[str, Any], node: str) -> float:
    """The UDP sources' total rate (bit/s) from the host named ``node``: a
    host's name is ``h<i>``, or a custom topology's i-th node's (hosts come
    first there)."""
    from .units import parse_rate

    nodes = (scenario.get("topology") or {}).get("nodes") or []

    def name(h: Any) -> str:
        if isinstance(h, int) and nodes and h < len(nodes) and isinstance(nodes[h], dict):
            return str(nodes[h].get("name", f"h{h}"))
        return h if isinstance(h, str) else f"h{h}"

    total = 0.0
    for a in scenario.get("apps") or []:
        if isinstance(a, dict) and a.get("kind") == "udp_cbr" and name(a.get("src")) == node:
            try:
                total += parse_rate(str(a.get("rate")))
            except ValueError:
                pass
    return total


def _summary_stamp(out: str) -> Optional[Tuple[int, int, int]]:
    """Which ``summary.json`` ``out`` holds (inode, mtime, size), or None."""
    try:
        st = os.stat(os.path.join(out, "summary.json"))
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _incomplete(out: str, before: Optional[Tuple[int, int, int]]) -> str:
    """What a write cut short left in ``out`` (``before``: the summary.json
    it held, :func:`_summary_stamp`). Result.write removes an earlier
    summary.json only once every new file is written, then puts them in
    place with its own summary.json last: the one there before means
    nothing was changed, another one a write that finished."""
    from .result import _is_result_file

    now = _summary_stamp(out)
    if now is not None and now == before:
        return f"{out} is as it was (nothing of this run written)"
    if now is not None:
        return f"{out} holds this run's results, complete (its summary.json, written last, is there)"
    try:
        names = os.listdir(out)
    except OSError:
        names = []
    if not any(map(_is_result_file, names)):  # (a user's own files of those names were refused before the run)
        return f"nothing of this run was written to {out}"
    return f"{out} is incomplete (it has no summary.json)"


def _sets_once(command: str, sets, unset=()) -> Optional[Dict[str, Tuple[str, Any]]]:
    """``--set``'s pairs by field, or None (said on stderr) when one field
    is given two values, or ``--set``/``--unset`` paths overlap."""
    from ._args import field_key, nested_fields, nested_fields_text, repeated_field

    both = _unset_clash(command, sets, unset)
    if both:
        print(both, file=sys.stderr)
        return None
    rep = repeated_field(list(unset))
    if rep is not None:
        print(f"{command}: --unset {rep[1]} is given twice ({rep[0]} and {rep[1]} name one field): give it once",
              file=sys.stderr)
        return None
    nested = nested_fields([p for p, _ in sets or []])
    if nested is not None:
        print(nested_fields_text(command, "--set", *nested), file=sys.stderr)
        return None
    seen: Dict[str, Tuple[str, Any]] = {}
    for path, value in sets or []:
        # apps[0].size and apps.0.size are one field
        first = seen.get(field_key(path))
        if first is not None and first[1] != value:
            # the later one would win without a word: which did the user mean?
            shown = [json.dumps(v, default=str) if not isinstance(v, str) else v for v in (first[1], value)]
            print(f"{command}: --set {path} is given twice ({first[0]}={shown[0]} and {path}={shown[1]}): "
                  "give it once", file=sys.stderr)
            return None
        seen[field_key(path)] = (path, value)
    return seen


def _unset_clash(command: str, sets, unset) -> str:
    """What ``command`` says of an ``--unset`` path that a ``--set`` path
    names too, or holds or is held by (one would undo the other), or ""."""
    from ._args import field_key, nested_fields

    for u in unset:
        for p, _ in sets or []:
            if field_key(u) == field_key(p) or nested_fields([u, p]) is not None:
                return (f"{command}: --unset {u} and --set {p} overlap: one would undo the other; give one or the "
                        "other")
    nested = nested_fields(list(unset))
    if nested is not None:
        return f"{command}: --unset {nested[0]} removes the table --unset {nested[1]} is in: give the table alone"
    return ""


def _unset_doc(doc, unset):
    """``doc`` without each ``--unset`` path (ScenarioError for one it does not hold)."""
    if not unset:
        return doc
    from ._document import without_keys

    return without_keys(doc, list(unset))


def cmd_run(args) -> int:
    seen = _sets_once("run", args.set, args.unset)
    if seen is None:
        return 2
    for flag, given in (("--seed", args.seed), ("--threads", args.threads)):
        first = seen.get(flag[2:])
        if given is not None and first is not None and first[1] != given:
            # the option would win over the --set without a word, as a later --set would
            print(f"run: {flag} {given} and --set {first[0]}={first[1]} both set {flag[2:]}: give it once",
                  file=sys.stderr)
            return 2
    if not args.out:  # nothing to hold (nor contextlib to load: the writers bring it)
        return _run_and_write(args, None)
    import contextlib

    # DIR is held (dir_lock) from before the run to the end of its write: a
    # second writer started at the same moment is refused before its run,
    # not once its results have nowhere to go
    with contextlib.ExitStack() as held:
        return _run_and_write(args, held)


def _run_and_write(args, held) -> int:
    """``dcnsim run``'s run and its write; ``held`` (an ExitStack, with
    ``--out``) keeps ``--out``'s lock until the command ends."""
    import dcnsim

    from ._document import load_scenario, with_overrides

    try:
        doc = _unset_doc(load_scenario(args.file), args.unset)
        if args.set:
            doc = with_overrides(doc, dict(args.set))
        if args.threads is not None:
            doc["threads"] = args.threads
        if args.out:
            # here: a run without --out never loads the writers (nor contextlib)
            from ._atomic import check_out_dir, dir_lock
            from .result import (
                TABLE_SCHEMA,
                foreign_files,
                foreign_files_error,
                sweep_root_error,
            )

            out_dir = check_out_dir(args.out)
            _not_the_input(args.file, out_dir)
            in_sweep = sweep_root_error(out_dir)
            if in_sweep:
                raise OutputDirError(in_sweep)
            # refused by the write; said now, before the simulation's time is
            # spent: the JSON files and the tables in this format (a pcap
            # or a CDF's copy in the way is found by the write itself)
            foreign = foreign_files(out_dir, ["scenario.json", "summary.json"]
                                    + [f"{t}.{args.format}" for t in TABLE_SCHEMA])
            if foreign:
                raise OutputDirError(foreign_files_error(args.out, foreign))
            # another run or a sweep writing there (a sweep holds it for
            # hours): refused now, not once this run's time is spent; and
            # held from now on, so one started after this is refused too.
            # Made for the lock if new, DIR goes again if nothing is
            # written (an invalid scenario, Ctrl-C)
            held.enter_context(dir_lock(out_dir))
        # A bar only for a person watching (stderr a terminal), as the sweep's.
        result = dcnsim.run(doc, seed=args.seed, progress=not args.no_progress and sys.stderr.isatty())
    except ScenarioError as e:
        _print_problems(args.file, e.errors)
        earlier = _earlier_kept(args.out)
        if earlier:
            # a run stopped (limits.memory) or refused: nothing of it written
            print(f"run: nothing written{earlier}", file=sys.stderr)
        from ._args import field_key, key_settings, split_values

        # `--set stop=2ms,3ms` asks for two runs: that is a sweep's --set
        def n_values(v: str) -> int:
            try:
                return len(split_values(v))
            except ValueError:  # an open quote or bracket: not a list
                return 1

        for path, value in args.set or []:
            wrong = any(field_key(getattr(p, "path", "")).startswith(field_key(path)) for p in e.errors)
            if not (wrong and isinstance(value, str) and n_values(value) > 1):
                continue
            # `--set a=1,b=2` meant two keys, not two values of one: a
            # sweep would fail the same way
            first, *rest = value.split(",")
            if key_settings(rest):
                print(f"run: --set {path}={value} sets one key; give each key its own --set: "
                      f"--set {path}={first} " + " ".join(f"--set {v.strip()}" for v in rest), file=sys.stderr)
            else:
                print(f"run: --set {path}={value} gives {n_values(value)} values: one run takes one; "
                      f"`dcnsim sweep {args.file} --set {path}={value}` runs each", file=sys.stderr)
        return 2
    out = None
    if args.out:
        import warnings

        from .errors import DcnsimWarning

        # the tables before any output: stdout may be a pipe already closed
        # (`| head -1`), and what the user asked for must not hang on it
        before = _summary_stamp(args.out)
        try:
            # Result.write says when it replaces an earlier run (once every
            # file is written, before the earlier one goes): one line here,
            # said however the write ended
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always", DcnsimWarning)
                try:
                    out = result.write(args.out, format=args.format)
                except OutputDirError as e:  # files in the way since the start: nothing of ours was written
                    _summary_anyway(result)
                    print(f"run: --out {e}; this run's results were not written", file=sys.stderr)
                    return 1
                finally:
                    for w in said:
                        if isinstance(w.message, DcnsimWarning):
                            print(f"run: --out {args.out} {w.message.reason}", file=sys.stderr)
                        else:
                            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        except KeyboardInterrupt as e:
            _summary_anyway(result)
            print(f"{'terminated' if isinstance(e, _Terminated) else 'interrupted'} while writing; "
                  f"{_incomplete(args.out, before)}", file=sys.stderr)
            return 143 if isinstance(e, _Terminated) else 130
        except OSError as e:  # a full disk, a read-only mount: one line, not a traceback
            _summary_anyway(result)
            where = f" ({e.filename})" if e.filename else ""
            print(f"run: writing --out {args.out} failed: {e.strerror or e}{where}; {_incomplete(args.out, before)}",
                  file=sys.stderr)
            return 1
    # the scenario's warnings went to stderr before the run: once is enough
    print(format_summary(result, warnings=False))
    if out is not None:
        print(f"  tables       written to {out}/ ({args.format})")
    return 0


def _summary_anyway(result) -> None:
    """The run's summary on stdout when its ``--out`` write failed: the
    simulation's time was spent, and what it found is not lost with the
    files (a stdout closed since, ``| head -1``, changes nothing)."""
    try:
        print(format_summary(result, warnings=False), flush=True)
    except (BrokenPipeError, ValueError):  # a closed pipe, or a closed sys.stdout
        pass


def _not_the_input(file: str, out_dir) -> None:
    """Refuse ``--out DIR`` whose ``scenario.json`` is the file this run
    reads (``dcnsim run DIR/scenario.json --out DIR``): the run writes its
    own scenario there, and with ``--set`` or another seed that is another
    document, so the original would be gone."""
    import os

    target = os.path.join(os.fspath(out_dir), "scenario.json")
    try:
        same = os.path.samefile(file, target)
    except OSError:  # either is not there: nothing to replace
        return
    if same:
        raise OutputDirError(f"{os.fspath(out_dir)}: its scenario.json is the file this run reads ({file}), which "
                             "the run's own scenario.json would replace; give another --out, or copy the scenario "
                             "elsewhere first")


def cmd_validate(args) -> int:
    import dcnsim

    if _sets_once("validate", args.set, args.unset) is None:
        return 2
    status = 0
    for f in args.files:
        if args.set or args.unset:
            from ._document import load_scenario, with_overrides

            # each file as `dcnsim run FILE --set ...` would run it
            try:
                doc = with_overrides(_unset_doc(load_scenario(f), args.unset), dict(args.set))
            except ScenarioError as e:  # an unreadable file, a --set path the file has no room for
                problems = dcnsim.Problems(e.errors)
            else:
                problems = dcnsim.validate(doc)
        else:
            problems = dcnsim.validate(f)
        if problems:
            # bad input, as `run` says of the same file: 2
            status = 2
            for p in problems:
                print(f"{f}: {_explained(p)}")
        else:
            # "ok" only when nothing is to be said: a warning is a doubt
            notes = problems.warnings
            print(f"{f}: valid, with {len(notes)} warning{'s' if len(notes) > 1 else ''}" if notes else f"{f}: ok")
            for note in notes:
                print(f"{f}: warning: {_one_line(note)}")
            if args.estimate:
                print(f"{f}: estimate: {_estimate_text(doc if args.set or args.unset else f)}")
    return status


def fmt_bytes(b: int) -> str:
    """Bytes as the core's messages write them (binary units, KB = 1024 B:
    docs/scenario.md, Units): "289.480 MB"."""
    for unit, size in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if b >= size:
            return f"{b / size:.3f} {unit}".replace(".000 ", " ")
    return f"{b} B"


def _estimate_text(scenario: Any) -> str:
    """A valid scenario's estimate in one line: the most memory and events
    its run may need, against its limits."""
    from . import _core
    from ._document import as_dict, json_text

    text, _ = json_text(as_dict(scenario))
    got = _core.estimate(text)
    if got is None:  # (validated just before)
        return "n/a (invalid)"
    memory, unguarded, events, mem_limit, ev_limit = got
    # the events are a bound only while each packet is sent at most twice: a
    # run of timeouts upon timeouts (tiny flows in 5-packet buffers) went
    # 45 % past it, and limits.events is checked against this figure alone
    return (f"at most about {fmt_bytes(memory)} of memory ({fmt_bytes(unguarded)} of it before the run-time guard "
            f"can stop the run; limits.memory {fmt_bytes(mem_limit)}) and about {events:.3g} events if each packet "
            f"is sent at most twice (limits.events {ev_limit:.3g}, checked against this before the run; at 10⁷ "
            f"events/s {fmt_time(events / 1e7)})")


def cmd_schema(args) -> int:
    from . import _core

    print(_core.schema())
    return 0


def _summary_columns(df, params: List[str]) -> List[str]:
    wanted = ["label"] + params + [
        "n_flows", "n_completed", "goodput_bps", "timeouts", "drops",
        "qct_mean_s", "qct_p99_s", "block_goodput_bps", "events", "wall_s",
    ]
    seen: List[str] = []
    for c in wanted:
        if c in df.columns and c not in seen:
            seen.append(c)
    return seen


def cmd_sweep(args) -> int:
    from .scenario import load_scenario
    from .sweep import (
        _fmt,
        axis_clash,
    )

    both = _unset_clash("sweep", [(p, None) for p, _ in args.set or []], args.unset)
    if both:
        print(both, file=sys.stderr)
        return 2
    try:
        doc = _unset_doc(load_scenario(args.file), args.unset)
    except ScenarioError as e:
        _print_problems(args.file, e.errors)
        return 2
    jobs = args.jobs
    if args.threads is not None:
        doc["threads"] = args.threads
    from ._args import field_key, key_settings, nested_fields, nested_fields_text

    nested = nested_fields([p for p, _ in args.set or []])
    if nested is not None:
        # `--set tcp.cc=cubic,newreno --set 'tcp={mss=1448}'` ran two points
        # of one scenario, labelled by an axis the table had thrown away
        print(nested_fields_text("sweep", "--set", *nested), file=sys.stderr)
        return 2
    axes: Dict[str, List[Any]] = {}
    for path, vals in args.set or []:
        if field_key(path) in {field_key(a) for a in axes}:
            # a later --set replacing the earlier one would drop points the user
            # asked for (apps[0].size and apps.0.size are one field)
            given = [(p, ",".join(_fmt(v) for v in vs)) for p, vs in args.set if field_key(p) == field_key(path)]
            times = "twice" if len(given) == 2 else f"{len(given)} times"
            print(f"sweep: --set {path} is given {times} ({' and '.join(f'{p}={g}' for p, g in given)}): "
                  f"give all its values in one, --set {given[0][0]}={','.join(g for _, g in given)}",
                  file=sys.stderr)
            return 2
        # `--set a=1,b=2` meant two keys: its second "value" names a key
        keyish = key_settings(vals)
        if keyish:
            print(f"sweep: --set {path}: {keyish[0]!r} is not a value but another key: a --set's commas "
                  f"separate values of one key; give each key its own --set ("
                  + " ".join(f"--set {k}" for k in keyish) + ")", file=sys.stderr)
            return 2
        clash = axis_clash(path, vals)
        if clash is not None:
            a, b = clash
            print(f"sweep: --set {path}: " + (f"the value {a} is given twice" if a == b else
                  f"the values {a} and {b} would write the same point directory"), file=sys.stderr)
            return 2
        axes[path] = vals
    threads_axis = next((p for p in axes if field_key(p) == "threads"), None)
    if args.threads is not None and threads_axis is not None:
        # the axis would replace --threads in every point without a word
        print(f"sweep: --threads and --set {threads_axis} both give threads: give them once, "
              f"--set {threads_axis}={','.join(_fmt(v) for v in axes[threads_axis])}", file=sys.stderr)
        return 2
    if not axes and args.seeds is None:
        # one point, named "base", run as a sweep of nothing: a --set
        # forgotten, or `dcnsim run` meant
        print(f"sweep: nothing to sweep: give one or more --set PATH=V1,V2 (or --seeds 1,2); for one run: "
              f"dcnsim run {args.file} --out {args.out}", file=sys.stderr)
        return 2
    if args.seeds is not None and "seed" in axes:
        # two seed axes: every point would run each --seeds seed once per --set seed value
        print(f"sweep: --set seed and --seeds both give seeds: give them once, "
              f"--seeds {','.join(_fmt(v) for v in axes['seed'])}", file=sys.stderr)
        return 2
    import contextlib

    # OUT held from before the sweep runs until its table is written
    with contextlib.ExitStack() as held:
        return _sweep_and_write(args, doc, axes, jobs, held)


def _sweep_and_write(args, doc: Dict[str, Any], axes: Dict[str, List[Any]], jobs: Optional[int], held) -> int:
    """``dcnsim sweep``'s points run and its table written; ``held`` (an
    ExitStack) keeps OUT's lock until the command ends."""
    from .sweep import (
        ClusterError,
        ClusterLostError,
        SweepError,
        SweepLabelError,
        grid,
        jobs_for_threads,
        run_sweep,
        threads_used,
    )

    try:
        pts = grid(doc, axes, seeds=args.seeds)
        if isinstance(args.threads, int) and args.threads > 1:
            cores = os.cpu_count() or 1
            # planned once: whether any point is cut, and the most threads one uses
            used = threads_used(pts, args.threads, enough=max(2, cores))
            if used == 1:
                # one line for the sweep, not one per point from each run
                print(f"sweep: --threads {args.threads}: every point runs on one thread (its topology cannot be "
                      "cut, or a window holds too little work for the cut to pay: `dcnsim run` of a point with "
                      f"--threads {args.threads} says which); the points share the cores instead", file=sys.stderr)
                doc["threads"] = 1
                pts = grid(doc, axes, seeds=args.seeds)
            elif jobs is None:
                # the cores are shared between points and the threads each really runs on
                jobs = jobs_for_threads(pts, args.threads, cores=cores, used=used)
        _claim_sweep_out(args.out, pts, held)
        df = run_sweep(pts, args.out, jobs=jobs, progress=False if args.no_progress else None,
                       format=args.format, cluster=args.cluster, replace=args.replace)
    except ScenarioError as e:
        _print_problems(args.file, e.errors)
        return 2
    except ClusterLostError as e:
        # the cluster went away mid-sweep: what finished is kept, as after Ctrl-C
        _write_sweep_table(args.out, e.df, pts)
        print(f"sweep: {e}{_listed(e.df)}; {_resume(args)}", file=sys.stderr)
        return 2
    except ClusterError as e:
        print(f"sweep: {e}", file=sys.stderr)
        return 2
    except SweepLabelError as e:  # what the axes' own check cannot see: values that clash across axes
        print(str(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        # once points ran: this sweep's complete points, as after a failure
        # (an earlier sweep's table must not pass for this one's); main says
        # what was kept and how to resume
        if hasattr(e, "df"):
            _write_sweep_table(args.out, e.df, pts)
        raise
    except SweepError as e:
        # the complete points' table, as a sweep without failures writes it:
        # not lost with the failed points, and no earlier sweep's left behind
        _write_sweep_table(args.out, e.df, pts, e.failures)
        if e.df is not None and len(e.df):
            _print_sweep_table(e.df, list(axes) + (["seed"] if args.seeds else []))
        print(str(e), file=sys.stderr)
        if e.df is not None:
            print(f"\n{_sweep_counts(e.df, args.format, len(e.df) + len(e.failures), len(e.failures))}; "
                  f"finished points are kept{_listed(e.df)}; rerun the same command to retry the failed points",
                  file=sys.stderr)
        return 1
    _write_sweep_table(args.out, df, pts)
    _print_sweep_table(df, list(axes) + (["seed"] if args.seeds else []))
    print(f"\n{_sweep_counts(df, args.format, len(df), 0)}; results in {args.out}/ (summary: sweep.csv)")
    return 0


def _claim_sweep_out(out: str, pts, held) -> None:
    """Before a sweep runs: OUT locked for the rest of the command
    (``held``), a new OUT too (made for the lock, and removed again if the
    sweep is refused before a point is written): run_sweep takes the lock
    again and the table's write after it, so no other writer gets in
    between the points and their table. The sweep is refused when OUT's
    ``sweep.csv`` is another sweep's table, one listing points this sweep
    does not have: this sweep's table would replace it, and that sweep's
    results, which stay, would be left without theirs. The same sweep
    resumes, and one that extends it (more values, more seeds) lists every
    point of it."""
    from ._atomic import check_out_dir, dir_lock

    root = check_out_dir(out)
    held.enter_context(dir_lock(root))
    table = root / "sweep.csv"
    if not table.is_file():
        return
    import csv

    try:
        with open(table, newline="", encoding="utf-8") as fh:
            rows = csv.reader(fh)
            header = next(rows, [])
            if "label" not in header:
                raise ValueError("it has no label column")
            at = header.index("label")
            earlier = [r[at] for r in rows if len(r) > at]
    except (OSError, UnicodeDecodeError, csv.Error, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise OutputDirError(f"{out}: holds a sweep.csv that is not a sweep's table ({why}): this sweep's table "
                             f"would replace it; move it away, or give this sweep another --out") from None
    ours = {p.label for p in pts}
    other = [label for label in earlier if label not in ours]
    if other:
        shown = ", ".join(other[:3]) + (", …" if len(other) > 3 else "")
        raise OutputDirError(
            f"{out}: holds another sweep's table: sweep.csv lists {len(other)} point{'s' if len(other) != 1 else ''} "
            f"this sweep does not have ({shown}), and this sweep's table would replace it. Rerun that sweep's own "
            f"command to resume it, give this sweep another --out, or move {table} away to start a new table "
            "there (the points' results stay, and resume in any sweep that has them)")


#: ``sweep.csv``'s ``status`` of a point: its results are in the row
#: (done), its run failed (the reason was printed), or it did not run to
#: its end (the sweep was interrupted, or the cluster went)
STATUS_DONE, STATUS_FAILED, STATUS_NOT_RUN = "done", "failed", "not run"


def _write_sweep_table(out: str, df, pts=None, failures=None) -> None:
    """``OUT/sweep.csv``: a row per point of the sweep (``pts``), its
    ``status`` beside its label: the complete points' rows of ``df``
    ("done"), and, for a sweep cut short, the others with their
    parameters alone ("failed", or "not run"), so the table itself says it
    is partial: a script that reads it sees every point, and which lack
    results (until 2026-12-07 they were left out, and a table of 4 of 6
    points looked whole). OUT locked while it is written (the command
    holds it already). With no point complete (every point failed, or the
    cluster went before any finished), an earlier table is removed: the
    results it lists are not this sweep's (its points are being computed
    again, for another scenario or core, and are not complete)."""
    from ._atomic import atomic_write, dir_lock

    path = os.path.join(out, "sweep.csv")
    if df is None or not len(df):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        return
    import pandas as pd

    table = df.copy()
    table.insert(1, "status", STATUS_DONE)
    done = set(table["label"])
    missing = [{"label": p.label, "status": STATUS_FAILED if p.label in (failures or {}) else STATUS_NOT_RUN,
                **p.params} for p in pts or [] if p.label not in done]
    if missing:
        order = {p.label: i for i, p in enumerate(pts)}
        ints = [c for c in table.columns if pd.api.types.is_integer_dtype(table[c])]
        table = pd.concat([table, pd.DataFrame(missing)], ignore_index=True)
        # a count stays a count beside the rows without results (pandas
        # makes an integer column float to hold their gaps: events 9170.0)
        for c in ints:
            table[c] = table[c].astype("Int64")
        table = table.sort_values("label", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)
    with dir_lock(out):
        atomic_write(path, lambda fh: table.to_csv(fh, index=False, lineterminator="\n"))


def _listed(df) -> str:
    """Where the complete points are listed, after a sweep cut short."""
    return " (sweep.csv lists them)" if df is not None and len(df) else ""


def _print_sweep_table(df, params: List[str]) -> None:
    import pandas as pd

    with pd.option_context("display.max_rows", 500, "display.max_columns", 50, "display.width", 200):
        print(df[_summary_columns(df, params)].to_string(index=False))


def _sweep_counts(df, format: str, total: int, n_failed: int) -> str:
    """``N points (x run, y failed, z resumed)`` of a sweep's table."""
    n_new = len(df.attrs.get("computed", []))
    n_re = len(df.attrs.get("reformatted", []))
    other = "csv" if format == "parquet" else "parquet"
    # a point complete in the other format was run again: say why it was not resumed
    why = f"; {n_re} of them stored as {other}, run again for {format}" if n_re else ""
    failed = f", {n_failed} failed" if n_failed else ""
    return (f"{total} point{'s' if total != 1 else ''} ({n_new} run{why}{failed}, "
            f"{len(df) - n_new} resumed)")


def _resume(args) -> str:
    """The command that resumes this one."""
    import shlex

    return f"resume with: {shlex.join(['dcnsim', *getattr(args, 'argv', [args.command])])}"


def cmd_demo(args) -> int:
    import pandas as pd

    from .demo import OUT, QUICK_OUT, pivot, run_demo

    if args.out is None:
        args.out = QUICK_OUT if args.quick else OUT
    from .sweep import SweepError

    try:
        table = run_demo(args.out, quick=args.quick, jobs=args.jobs, seeds=args.seeds,
                         progress=False if args.no_progress else None)
    except SweepError as e:
        first = next(iter(e.environment.values()), None)
        if first is not None:
            raise first from e  # a full disk: main's one line
        print(f"demo: {e}", file=sys.stderr)
        print("rerun the same command to resume: finished runs are kept", file=sys.stderr)
        return 1
    print("NewReno incast (Kulkarni setup: star, 1 Gbps, 50 µs links, mss 1024 B, 256 KB SRU, rwnd 1000 pkt, jitter ≤ 20 µs)")
    n_seeds = int(table["seeds"].iloc[0])
    print(f"application goodput at the client, Mbps ({int(table['blocks_per_run'].iloc[0])} blocks per run, "
          f"{'mean of ' + str(n_seeds) + ' seeds' if n_seeds > 1 else '1 seed'}):\n")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.1f}".format):
        print(pivot(table).to_string())
    print(f"\nwrote {args.out}/incast_goodput.csv and {args.out}/incast_goodput.png")
    return 0


def cmd_bench(args) -> int:
    from . import bench

    names = [n for a in (args.scenario or bench.DEFAULT) for n in bench.GROUPS.get(a, [a])]
    for name in names:
        if name not in bench.SCENARIOS:
            known = [n for n in bench.SCENARIOS if not any(n in g for g in bench.GROUPS.values())] + list(bench.GROUPS)
            print(f"bench: unknown scenario {name!r} (choose from {', '.join(known)})", file=sys.stderr)
            return 2
    if args.repeat < 1:
        print(f"bench: --repeat must be at least 1, got {args.repeat}", file=sys.stderr)
        return 2
    # the threads each run used: under the default (`auto`) that depends on
    # the cores free when it ran, and a speed is read against it
    keys = bench.KEYS + (("walls_s",) if args.repeat > 1 else ()) + ("threads",)
    w = max(len("scenario"), *map(len, names))
    # a speed holds for the machine it was taken on (docs/performance.md):
    # each figure names it, the CPU's generation and its caches above all
    from . import machine

    if not args.json:
        print(machine.preamble())
        if args.repeat > 1:
            print(f"median of {args.repeat} runs of each scenario (one process per scenario)")
        # the --json keys as headers: one name per figure, in the docs too
        print(f"{'scenario':<{w}} {'wall_s':>8} {'sim_s':>7} {'events':>12} {'events_per_s':>12} {'packet_hops':>12}"
              f" {'packet_hops_per_s':>17} {'peak_rss_mb':>11} {'threads':>7}")
    # one child per scenario, running all its repeats: each result as it comes
    for name in names:
        try:
            rec = bench.run_one(name, args.repeat, args.threads)
        except RuntimeError as e:  # its process failed: the scenarios before it are printed, no traceback of ours
            print(f"bench: {e}", file=sys.stderr)
            return 1
        for line in rec.get("said", ()):  # a run on fewer threads than asked says why, as `dcnsim run` does
            print(f"bench: {name}: {line[len('dcnsim: '):]}", file=sys.stderr, flush=True)
        if args.json:
            # the load as this scenario ended, not as the first began
            print(json.dumps({**{k: rec[k] for k in keys}, "machine": machine.describe()}), flush=True)
        else:
            print(
                f"{rec['scenario']:<{w}} {rec['wall_s']:>8.3f} {rec['sim_s']:>7.3f} {rec['events']:>12,} {rec['events_per_s']:>12.3e} "
                f"{rec['packet_hops']:>12,} {rec['packet_hops_per_s']:>17.3e} {rec['peak_rss_mb']:>11.1f}"
                f" {rec['threads']:>7}",
                flush=True,
            )
    return 0


def cmd_reproduce(args) -> int:
    from .experiments import get_paper, paper_keys, reproduce
    from .experiments.framework import _fig_name, count_points
    from .sweep import ClusterError, ClusterLostError, SweepError

    if args.list:
        keys = [args.paper] if args.paper else paper_keys()
        if args.figure and not args.paper:
            print("reproduce: --figure with --list needs a paper (reproduce PAPER --list --figure ID)", file=sys.stderr)
            return 2
        for k in keys:
            try:
                p = get_paper(k)
                # --figure lists those figures, each checked as a run checks it
                figs = p.select([w for spec in args.figure for w in spec.split(",") if w.strip()]) \
                    if args.figure else p.figures
            except KeyError as e:
                print(f"reproduce: {e.args[0]}", file=sys.stderr)
                return 2
            # counted from the figures' own point lists, so docs can point here
            full, quick = (count_points(figs, q) for q in (False, True))
            own = "; our own study, no paper tally" if p.own_study else ""
            print(f"{p.key}: {p.title} ({full:,} simulations; --quick: {quick:,}{own})")
            for f in figs:
                print(f"  {f.id:<9} {_fig_name(f)}: {f.title}")
        return 0
    if not args.paper:
        print("reproduce: name a paper (or --list); known: " + ", ".join(paper_keys()), file=sys.stderr)
        return 2
    try:
        paper = get_paper(args.paper)
        wanted = [w for spec in (args.figure or []) for w in spec.split(",") if w.strip()]
        gap = next((spec for spec in args.figure or [] if "," in spec and any(not w.strip() for w in spec.split(","))),
                   None)
        if gap is not None:
            # `4,,5` (as --seeds and --set refuse): a figure meant there, or a typo
            print(f"reproduce: --figure {gap!r}: an empty figure id between commas", file=sys.stderr)
            return 2
        if args.figure and not wanted:  # `--figure ''` would run every figure
            print(f"reproduce: --figure {args.figure[0]!r} names no figure ({paper.key}'s: "
                  f"{', '.join(f.id for f in paper.figures)})", file=sys.stderr)
            return 2
        paper.select(wanted)  # unknown figure ids fail here, before anything runs
    except KeyError as e:
        print(f"reproduce: {e.args[0]}", file=sys.stderr)
        return 2
    try:
        report = reproduce(paper, figures=wanted or None, quick=args.quick, out=args.out, jobs=args.jobs,
                           progress=False if args.no_progress else None, echo=lambda s: print(s, flush=True),
                           cluster=args.cluster, ties=args.ties, format=args.format)
    except ClusterLostError as e:
        print(f"reproduce: {e}; {_resume(args)}", file=sys.stderr)
        return 2
    except ClusterError as e:
        print(f"reproduce: {e}", file=sys.stderr)
        return 2
    except SweepError as e:
        first = next(iter(e.environment.values()), None)
        if first is not None:
            raise first from e  # a full disk: main's one line, with the command that resumes
        print(str(e), file=sys.stderr)
        print("rerun the same command to resume: finished simulations are kept", file=sys.stderr)
        return 1
    return 1 if report.errors else 0


def _positive_number(text: str) -> float:
    import math

    try:
        v = float(text.strip().removesuffix("pkt").removesuffix("segments").strip())
    except ValueError:
        raise ValueError(f"expected a number of segments like 2 or 0.5, got {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"must be a number > 0, got {text!r}")
    return v


def _option(name: str, parse, text: str):
    """A ``model`` option's value as ``parse`` reads it; its error names
    the option (``--mss: ...``), in every ``model`` subcommand."""
    try:
        return parse(text)
    except ValueError as e:  # UnitError included: say which option
        raise ValueError(f"--{name}: {e}") from None


def _bytes(text: str) -> int:
    """A whole number of bytes written as a scenario size (``1448``,
    ``1460B``, ``9KB``: KB = 1024 B, as scenario files read it), for
    ``model enqueue``'s payloads, as ``model dctcp --mss`` takes them. A
    bare fraction (``1.5``) is refused, as the Python API refuses it: the
    size parser's rounding ran rMin = 2 without a word."""
    from .units import parse_size

    return int(parse_size(_whole(text)).binary)


def _whole(text: str) -> str:
    """``text`` unless it is a bare fraction of a byte (``1.5``), which the
    size parser rounds without a word (`model dctcp --mss 1.5` computed
    with 2 B): refused, as the Python API refuses it."""
    try:
        bare = float(text.strip())
    except ValueError:
        return text
    if not bare.is_integer():
        raise ValueError(f"{text!r} is not a whole number of bytes")
    return text


def _positive_bytes(text: str) -> int:
    n = _bytes(text)
    if n <= 0:
        raise ValueError(f"must be > 0, got {text!r}")
    return n


def _buffer_size(text: str, mss: Any) -> Any:
    """``model dctcp --buffer``: a size, or packets as a scenario's
    ``buffer = "100pkt"`` holds them (full segments: N × MSS bytes, in
    each reading of a KB in the MSS)."""
    import re

    from .units import Size, UnitError, parse_count, parse_size

    try:
        return parse_size(text)
    except UnitError:
        if not re.search(r"(pkts?|packets?)\s*$", text.strip(), re.I):
            raise
    n = parse_count(text)
    return Size(n * mss.binary, n * mss.decimal, mss.prefixed, f"{text} × MSS")


def _model_dctcp_text(args) -> str:
    from .models.dctcp import dctcp_scalability
    from .units import parse_count, parse_rate, parse_size, parse_time

    opt = _option
    C = opt("capacity", parse_rate, args.capacity)
    rtt = opt("rtt", parse_time, args.rtt)
    K = opt("k", parse_count, args.k)
    import re

    given = re.match(r"\s*([0-9.eE+-]+)", args.k)
    try:
        exact = float(given.group(1)) if given else K
    except ValueError:
        exact = K
    if exact != K:
        # a count of packets is whole, as in a scenario's ecn_k: said, not done silently
        print(f"model dctcp: --k {args.k} is rounded to {K:g} packets (K is a whole number of packets)",
              file=sys.stderr)
    mss = opt("mss", lambda t: parse_size(_whole(t)), args.mss)
    B = opt("buffer", lambda t: _buffer_size(_whole(t), mss), args.buffer)
    # a window in segments, fractions included (0.5 was rounded to 1 and
    # halved N*max without a word)
    wmin = opt("wmin", _positive_number, args.wmin)
    for name, v in (("rtt", rtt), ("mss", mss.binary), ("wmin", wmin), ("buffer", B.binary)):
        if v <= 0:
            raise ValueError(f"--{name}: must be > 0, got {getattr(args, name)!r}")
    # in either reading of a KB (the decimal is the paper's)
    k_b, b_b = next(((K * m, b) for m, b in ((mss.binary, B.binary), (mss.decimal, B.decimal)) if K * m >= b),
                    (None, None))
    if k_b is not None:
        # eq. 7's flows fill the buffer; eqs. 4-6 assume marks at K below it
        print(f"model dctcp: warning: --k {args.k} packets ({k_b:,.0f} B) is not below --buffer "
              f"{args.buffer} ({b_b:,.0f} B): the queue overflows before it reaches K, so DCTCP never sees a "
              "mark and N* (eqs. 4-6) does not apply; N*max (eq. 7) still does", file=sys.stderr)
    if 0 < B.binary < mss.binary and args.buffer.strip().isdigit():
        # a paper's "B = 100 packets" typed bare reads as 100 bytes, as in a
        # scenario file, where such a buffer is warned about the same way
        n = int(args.buffer.strip())
        print(f"model dctcp: warning: --buffer {args.buffer} is {n} bytes, below one MSS ({mss.binary:,.0f} B): "
              f"sizes without a unit are bytes (did you mean {n} packets, --buffer {n}pkt = {n * mss.binary:.0f} B?)",
              file=sys.stderr)
    readings = [("KB = 1000 B", B.decimal, mss.decimal), ("KB = 1024 B", B.binary, mss.binary)]
    if not (B.prefixed or mss.prefixed) and not args.json:
        # the text shows the one reading there is; --json keeps both keys
        # (equal then), so a script reading "binary" never meets a KeyError
        readings = readings[:1]
    if args.n is not None and not (math.isfinite(args.n) and args.n >= 1 and float(args.n).is_integer()):
        raise ValueError(f"--n: must be a whole number of flows ≥ 1, got {args.n:g}")
    results = [(name, b, m, dctcp_scalability(C, rtt, K, m, b, wmin, N=args.n)) for name, b, m in readings]
    if args.json:
        out = {}
        for name, b, m, r in results:
            key = "decimal" if name.startswith("KB = 1000") else "binary"
            out[key] = {"B_bytes": b, "mss_bytes": m, "window_budget_pkts": r.window_budget_pkts,
                        "n_star": r.n_star, "n_star_max": r.n_star_max, "w_star": r.w_star}
        from .result import _jsonable

        return json.dumps(_jsonable({"C_bps": C, "rtt_s": rtt, "K_pkts": K, "wmin": wmin, "N": args.n, **out}),
                          allow_nan=False)

    def num(x: float) -> str:
        return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"

    lines = ["DCTCP scalability (FaST §3, eqs. 4–7)",
             f"  C = {args.capacity} ({C:.4g} bit/s), RTT = {args.rtt} ({rtt * 1e6:g} us), K = {K:g} pkts, "
             f"Wmin = {wmin:g}"]
    if len(results) == 2:
        lines.append(f"  B = {args.buffer}, MSS = {args.mss}: {num(B.decimal)} / {num(mss.decimal)} B with "
                     f"KB = 1000 B (the paper's reading: only with it does the paper's own example, 100 KB at 1 Gbps, give its N*max of 37.5), {num(B.binary)} / {num(mss.binary)} B "
                     "with KB = 1024 B (how dcnsim's scenario files read KB)")
    else:
        packets = f" ({args.buffer} of {num(mss.binary)} B)" if B.text.endswith("× MSS") else ""
        lines.append(f"  B = {num(B.binary)} B{packets}, MSS = {num(mss.binary)} B")
    def tagged(attr: str):
        """(tag, result) per reading of KB when ``attr`` differs between
        them, else the one value untagged (a KB in the MSS moves eq. 4's
        budget and N*; one unlabelled line was read as the other)."""
        if len({round(getattr(r, attr), 9) for *_x, r in results}) > 1:
            return [(f"   [{name}]", r) for name, _b, _m, r in results]
        return [("", results[0][3])]

    for tag, r in tagged("window_budget_pkts"):
        lines.append(f"  C·RTT/MSS + K = {r.window_budget_pkts:.2f} pkts, so W*(N) = {r.window_budget_pkts:.2f}/N "
                     f"(eq. 4){tag}")
        if args.n is not None:
            lines.append(f"  W*(N = {args.n:g}) = {r.w_star:.3f} pkts{tag}")
    for tag, r in tagged("n_star"):
        lines.append(f"  N*    = {r.n_star:6.2f} flows  (eq. 5: W* falls to Wmin){tag}")
    for name, _b, _m, r in results:
        tag = f"   [{name}]" if len(results) == 2 else ""
        lines.append(f"  N*max = {r.n_star_max:6.2f} flows  (eq. 7: Wmin-segment windows overflow C·RTT + B){tag}")
    return "\n".join(lines)


def _model_incast(args) -> int:
    """`dcnsim model incast --from-run DIR`: Kulkarni's models beside the run's goodput."""
    from .models.fromrun import AppChoiceError, model_from_run

    if not args.from_run:  # read as the current directory before
        print("model incast: --from-run: '' is an empty path; name a run's directory (dcnsim run --out DIR)",
              file=sys.stderr)
        return 2
    try:
        m = model_from_run(args.from_run, app=args.app)
    except (FileNotFoundError, ValueError, KeyError, OSError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        # which option to change, as every `model` error names it
        flag = "--app" if isinstance(e, AppChoiceError) else "--from-run"
        print(f"model incast: {flag}: {msg}", file=sys.stderr)
        return 2
    if args.json:
        out = {"directory": m.directory, "inputs": m.inputs.as_dict(), "j": m.inputs.j,
               "throughput_bps": m.throughput_bps, "payload_bytes": m.payload_bytes,
               "capacity_bps": m.capacity_bps, "cap_bps": m.cap_bps, "notes": list(m.notes)}
        # NaN (an input the run could not give, T0 without timeouts) as
        # null, as summary.json writes it: bare NaN is not JSON
        from .result import _jsonable

        print(json.dumps(_jsonable(out), default=float, allow_nan=False))
    else:
        print(str(m))
    return 0


def _model_enqueue(args) -> int:
    """`dcnsim model enqueue`: TCPRand's Fig. 5 experiment at the given rMin values."""
    from .models.enqueue import enqueue_sweep

    try:
        # sizes as `model dctcp --mss` and scenario files write them (1460B, 1KB)
        mss = _option("mss", _positive_bytes, args.mss)
        rmins = [_option("rmin", _bytes, v) for v in split_values(args.rmin)]
    except ValueError as e:
        print(f"model enqueue: {e}", file=sys.stderr)
        return 2
    bad = next((r for r in rmins if not 1 <= r <= mss), None)
    if bad is not None:
        print(f"model enqueue: --rmin: each value in [1, --mss = {mss}], got {bad}", file=sys.stderr)
        return 2
    from . import _SEED_RANGE, _seed_ok

    if not _seed_ok(args.seed):
        print(f"model enqueue: --seed: expected an integer in {_SEED_RANGE}, got {args.seed}", file=sys.stderr)
        return 2
    try:
        rows = enqueue_sweep(rmins, args.trials, mss=mss, phase=args.phase, seed=args.seed)
    except ValueError as e:
        print(f"model enqueue: {e}", file=sys.stderr)
        return 2
    if args.json:
        for r in rows:
            from .result import _jsonable

            print(json.dumps(_jsonable(r.as_dict()), allow_nan=False))
        return 0
    print(f"enqueue probability of X2 and Y2 after Y1 in, X1 dropped (MSS {mss} B, "
          f"{args.trials} trials per rMin, phase {args.phase}, seed {args.seed})")
    # the column's unit in its header: a bare "rMin" over 1 … 1448 read as segments as easily as bytes
    print(f"{'rMin (B)':>8} {'P(X2)':>7} {'P(Y2)':>7} {'both':>7} {'neither':>7}")
    for r in rows:
        print(f"{r.rmin:>8} {r.p_x2:>7.3f} {r.p_y2:>7.3f} {r.p_both:>7.3f} {r.p_neither:>7.3f}")
    return 0


def cmd_model(args) -> int:
    from .units import UnitError

    if args.model == "enqueue":
        return _model_enqueue(args)
    if args.model == "dctcp":
        try:
            print(_model_dctcp_text(args))
        except (UnitError, ValueError) as e:
            print(f"model dctcp: {e}", file=sys.stderr)
            return 2
        return 0
    if args.model == "incast":
        return _model_incast(args)
    print(f"model: unknown model {args.model!r}", file=sys.stderr)  # pragma: no cover - argparse checks
    return 2


# ----------------------------------------------------------------------------


def _help_width() -> int:
    """The width argparse's help is wrapped to: the terminal's, less 2, as
    argparse's own formatter reckons it (``shutil.get_terminal_size``:
    ``COLUMNS``, then standard output's terminal, else 80), without
    importing shutil (with bz2, lzma and fnmatch, ≈ 2 ms of every start:
    argparse makes a formatter for each argument it is given)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    out = sys.__stdout__
    if columns <= 0 and out is not None:
        try:
            columns = os.get_terminal_size(out.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class _Help(argparse.HelpFormatter):
    """argparse's help formatter with :func:`_help_width`."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: Optional[int] = None, **kwargs: Any) -> None:
        # **kwargs: what newer argparse versions add (3.14's `color`)
        super().__init__(prog, indent_increment, max_help_position, _help_width() if width is None else width,
                         **kwargs)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose help is :class:`_Help`'s; subcommands'
    parsers are of this class too (``add_subparsers`` makes its own type)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)


class _OneLineParser(_Parser):
    """A `model` subcommand's parser: its argument errors are one line
    starting with the option to change, as the model's own checks print
    them (`model enqueue: --seed: …`), not argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        import re

        req = re.match(r"the following arguments are required: (.*)", message)
        if req is not None:
            # `model incast` without --from-run: one line naming it, as
            # every other argument error of a model says it
            name = self.prog.replace("dcnsim ", "", 1)
            print(f"{name}: {req.group(1)}: required", file=sys.stderr)
            raise SystemExit(2)
        m = re.match(r"argument ([^:]+): (.*)", message, re.S)
        if m is None:
            # no option's value at fault (an option the model does not
            # have): the usage, which lists those it has, as every command
            super().error(message)
        opt, why = m.group(1).split("/")[-1], m.group(2)
        if why == "expected one argument":
            # a value starting with "-" (a negative number) reads as an option
            why += f" (a value starting with '-' goes after '=': {opt}=-VALUE)"
        name = self.prog.replace("dcnsim ", "", 1)
        print(f"{name}: {opt}: {why}", file=sys.stderr)
        raise SystemExit(2)


def _add_run(sub: Any) -> None:
    """`dcnsim run`."""
    from . import _SEED_RANGE

    r = sub.add_parser("run", help="run one scenario file and print a summary")
    r.add_argument("file", help="scenario (.toml or .json)")
    r.add_argument("--seed", type=parse_seed, default=None,
                   help=f"override the scenario's seed, an integer in {_SEED_RANGE} (default: the file's seed)")
    r.add_argument("--set", action="append", type=set_pair, default=[], metavar="PATH=VALUE",
                   help="change one field of the scenario first (repeatable), e.g. topology.buffer=32KB, "
                        "tcp.cc=dctcp or apps.0.servers=1-8; a table (tcp={}) replaces the file's whole table; "
                        "several values of a field are a sweep (dcnsim sweep); a value is read as TOML "
                        "(10, 0.5, true, [1, 2]) or else as text, so text that reads as a number is quoted: "
                        "name='\"123\"'")
    r.add_argument("--unset", action="append", default=[], metavar="PATH",
                   help="remove one key of the scenario first (repeatable), e.g. topology.ecn_k: the key's "
                        "default then applies (TOML has no null for --set to give)")
    r.add_argument("--threads", type=parse_threads, default=None, metavar="N|auto",
                   help="run on N threads (partitions of the topology; the scenario key `threads`): "
                        "same results as 1 thread (docs/performance.md, Threads) (default: the file's `threads`, "
                        "else auto: the free cores, where the cut pays)")
    r.add_argument("--out", type=_out_dir, metavar="DIR",
                   help="write the tables and summary.json here (default: nothing written); rerunning into DIR "
                        "replaces its earlier run's files, never other files")
    r.add_argument("--format", choices=("csv", "parquet"), default="csv", help="table format (default csv)")
    r.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown only when stderr is a terminal)")
    r.set_defaults(func=cmd_run)


def _add_validate(sub: Any) -> None:
    """`dcnsim validate`."""
    v = sub.add_parser("validate", help="check scenario files; print every problem")
    v.add_argument("files", nargs="+", metavar="FILE",
                   help="scenario files (.toml or .json); exit status 2 if any has a problem")
    v.add_argument("--set", action="append", type=set_pair, default=[], metavar="PATH=VALUE",
                   help="check each file with this field changed first, as `dcnsim run FILE --set` "
                        "would run it (repeatable), e.g. topology.buffer=32KB")
    v.add_argument("--unset", action="append", default=[], metavar="PATH",
                   help="check each file with this key removed first, as `dcnsim run FILE --unset` would run it")
    v.add_argument("--estimate", action="store_true",
                   help="also print each valid file's estimate: the most memory and events its run may need "
                        "(upper bounds, the figures `limits` is checked against)")
    v.set_defaults(func=cmd_validate)


def _add_schema(sub: Any) -> None:
    """`dcnsim schema`."""
    sc = sub.add_parser("schema", help="print the scenario schema (JSON Schema, generated by the core)")
    sc.set_defaults(func=cmd_schema)


def _add_sweep(sub: Any) -> None:
    """`dcnsim sweep`."""
    s = sub.add_parser("sweep", help="run a parameter sweep (cartesian product) in parallel; resumable")
    s.add_argument("file", help="base scenario (.toml or .json)")
    s.add_argument("--set", action="append", type=parse_set, metavar="PATH=V1,V2,...",
                   help="a sweep axis, e.g. topology.buffer=16KB,32KB or apps.0.servers=1-1,1-2 (repeatable); "
                        "values as run's --set reads them")
    s.add_argument("--unset", action="append", default=[], metavar="PATH",
                   help="remove one key of the file's scenario from every point (repeatable), as run's --unset")
    s.add_argument("--replace", action="store_true",
                   help="run again, in their place, points whose directories hold complete results of another "
                        "scenario (the file or an axis edited since); without it the sweep is refused, nothing lost")
    s.add_argument("--seeds", type=parse_seeds, default=None, metavar="S1,S2,...",
                   help="seeds (another axis; default: the file's seed)")
    s.add_argument("--out", type=_out_dir, required=True, metavar="DIR", help="results directory (one subdirectory per point)")
    s.add_argument("--jobs", type=positive_int, default=None,
                   help="worker processes (default: CPU count, divided by --threads)")
    s.add_argument("--threads", type=parse_threads, default=None, metavar="N|auto",
                   help="threads per point (the scenario key `threads`); the cores are split between points and "
                        "threads (default: the file's `threads`, else auto)")
    s.add_argument("--format", choices=("csv", "parquet"), default="csv",
                   help="every point's table format (default csv)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="run the simulations on a Dask cluster (scheduler address, e.g. tcp://host:8786) "
                        "instead of local processes; needs dcnsim[cluster]")
    s.set_defaults(func=cmd_sweep)


def _add_tune(sub: Any) -> None:
    """`dcnsim tune` (its parser is tuning.py's)."""
    from .tuning import add_parser

    add_parser(sub)


def _add_demo(sub: Any) -> None:
    """`dcnsim demo`."""
    d = sub.add_parser("demo", help="NewReno incast sweep on the Kulkarni setup: table + plot")
    d.add_argument("--out", type=_out_dir, default=None, metavar="DIR",
                   help="output directory (default ./dcnsim-demo; with --quick ./dcnsim-demo-quick, so a quick run "
                        "never replaces a full one's results)")
    d.add_argument("--quick", action="store_true", help="5 blocks per point and one seed (a few seconds)")
    d.add_argument("--jobs", type=positive_int, default=None, help="worker processes (default: CPU count)")
    d.add_argument("--seeds", type=parse_seeds, default=None, metavar="S1,S2,...",
                   help="seeds to average over (default 1,2,3; --quick: 1)")
    d.add_argument("--no-progress", action="store_true", help="no progress bar")
    d.set_defaults(func=cmd_demo)


def _add_bench(sub: Any) -> None:
    """`dcnsim bench` (its help names bench.py's scenarios)."""
    b = sub.add_parser("bench", help="fixed benchmark scenarios, each in a fresh process",
                       description="Columns (the --json keys): wall_s, the run's wall time in seconds (the median "
                                   "of --repeat); sim_s, the simulated seconds; events and events_per_s (per wall "
                                   "second); packet_hops and packet_hops_per_s; peak_rss_mb, the process's peak "
                                   "resident memory in MB of 2^20 bytes; threads, the partitions the run was cut "
                                   "into (run on at most the free cores). A first line names the machine (CPU, "
                                   "family and model, its L2 and L3, the load: what a speed holds for); with "
                                   "--json each object carries it as machine.")
    b.add_argument("--json", action="store_true", help="one JSON object per line")
    from . import bench

    grouped = {n for g in bench.GROUPS.values() for n in g}
    others = [n for n in bench.SCENARIOS if n not in bench.DEFAULT and n not in grouped]
    b.add_argument("--scenario", action="append", metavar="NAME",
                   help=f"a scenario (repeatable): {', '.join(bench.DEFAULT)} (the default set), "
                        f"{', '.join(others)}, or {', '.join(bench.GROUPS)} (a 60 s churn run: peak RSS at "
                        f"{', '.join(str(s) for s in bench.SOAK_SECONDS)} s)")
    b.add_argument("--repeat", type=positive_int, default=1, metavar="N",
                   help="run each scenario N times (in its one process) and report its median wall time "
                        "(and, with --json and a repeat above 1, every run's as walls_s); for ratios on a shared machine (default 1)")
    b.add_argument("--threads", type=parse_threads, default=None, metavar="N|auto",
                   help="run each scenario on N threads (the scenario key `threads`; default auto: the free "
                        "cores, where the cut pays)")
    b.set_defaults(func=cmd_bench)


def _add_reproduce(sub: Any) -> None:
    """`dcnsim reproduce`."""
    rp = sub.add_parser("reproduce", help="reproduce a paper's figures: tables, plots, ours vs the paper's numbers")
    rp.add_argument("paper", nargs="?", help="paper key (e.g. fast); see --list")
    rp.add_argument("--figure", action="append", metavar="N",
                    help="only these figures (repeatable or comma-separated: 4,5 or §3/s3)")
    rp.add_argument("--quick", action="store_true", help="reduced version (fewer queries and points), for CI and demos")
    rp.add_argument("--out", type=_out_dir, metavar="DIR", default=None,
                    help="output directory (default dcnsim-repro/PAPER, or dcnsim-repro/PAPER-quick)")
    rp.add_argument("--jobs", type=positive_int, default=None, help="worker processes (default: CPU count)")
    rp.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp.add_argument("--list", action="store_true", help="list the papers (or PAPER's figures) and exit")
    rp.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="run the simulations on a Dask cluster (scheduler address, e.g. tcp://host:8786) "
                        "instead of local processes; needs dcnsim[cluster]")
    rp.add_argument("--ties", choices=("fifo", "seeded"), default=None,
                    help="order of equal-time events in every simulation (the scenario key `ties`): fifo is "
                         "ns-2's and ns-3's, the papers' simulators'; default: the engine's (seeded). "
                         "The default --out gets the order's name")
    rp.add_argument("--format", choices=("csv", "parquet"), default="csv",
                    help="format of every simulation's tables under OUT/runs (default csv); parquet takes "
                         "under a third of the disk where the tables are large (a full FaST run: 5.4 GB of "
                         "CSV, about 1.5 GB of Parquet); a rerun in the other format runs the simulations again")
    rp.set_defaults(func=cmd_reproduce)


def _add_model(sub: Any) -> None:
    """`dcnsim model` and its models."""
    mp = sub.add_parser("model", help="evaluate an analytical model")
    msub = mp.add_subparsers(dest="model", metavar="MODEL", parser_class=_OneLineParser)
    msub.required = True
    md = msub.add_parser("dctcp", help="DCTCP scalability (FaST §3): W*, N*, N*max")
    md.add_argument("--capacity", default="1Gbps", help="bottleneck rate (default 1Gbps)")
    md.add_argument("--rtt", default="100us", help="round-trip time (default 100us)")
    md.add_argument("--k", default="20", help="ECN marking threshold, packets (default 20)")
    md.add_argument("--buffer", default="100KB",
                    help="bottleneck buffer: a size or packets of --mss (100pkt) (default 100KB; both KB readings shown)")
    md.add_argument("--mss", default="1500", help="packet size on the wire, as the queue counts it: a scenario's tcp.mss + "
                         "its header (+ l2_overhead), e.g. 1500 for mss 1460; bytes or a size like "
                         "1500B or 9KB (default 1500)")
    md.add_argument("--wmin", default="2", help="DCTCP's minimum window, segments (> 0, fractions too; default 2)")
    md.add_argument("--n", type=float, default=None, help="also give W* at N flows")
    md.add_argument("--json", action="store_true", help="print one JSON object")
    md.set_defaults(func=cmd_model)
    mi = msub.add_parser("incast", help="Kulkarni's incast model (TD-only, Full, Split, n x Padhye) vs a run")
    mi.add_argument("--from-run", required=True, metavar="DIR",
                    help="results directory of a sync_reads run (`dcnsim run FILE --out DIR`, or a sweep point)")
    mi.add_argument("--app", type=int, default=None, metavar="N",
                    help="which app's blocks and flows (needed when the run has several)")
    mi.add_argument("--json", action="store_true", help="print one JSON object (inputs, throughputs, notes)")
    mi.set_defaults(func=cmd_model)
    me = msub.add_parser("enqueue", help="TCPRand's enqueue probability of two streams into a full port (its Fig. 5)")
    me.add_argument("--rmin", default="1,200,1000,1448", metavar="B1,B2,...",
                    help="smallest payloads, bytes or sizes like 1KB (comma-separated; default 1,200,1000,1448)")
    me.add_argument("--trials", type=positive_int, default=1000, help="trials per rMin (default 1000, as the paper)")
    me.add_argument("--mss", default="1448",
                    help="largest payload, bytes or a size like 1460B or 9KB (KB = 1024 B, as scenario files; "
                         "default 1448)")
    me.add_argument("--phase", choices=("uniform", "aligned"), default="uniform",
                    help="where Y1 arrives in the output port's service cycle (default uniform; see docs/models.md)")
    me.add_argument("--seed", type=int, default=1, help="seed of the trials' random draws (default 1)")
    me.add_argument("--json", action="store_true", help="one JSON object per rMin")
    me.set_defaults(func=cmd_model)


#: The subcommands, in the order `dcnsim --help` lists them.
COMMANDS = {
    "run": _add_run,
    "validate": _add_validate,
    "schema": _add_schema,
    "sweep": _add_sweep,
    "tune": _add_tune,
    "demo": _add_demo,
    "bench": _add_bench,
    "reproduce": _add_reproduce,
    "model": _add_model,
}


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The command line; with ``only`` (a name in :data:`COMMANDS`), just
    that subcommand under the top level. `main` builds that for a command
    line that starts with a subcommand, since argparse asks no other one
    then, and every argument costs a help formatter (callgrind: the five
    subcommands `run` built before were 12.5 M instructions, `run`'s alone
    8.0 M, of a `dcnsim run` whose Python beyond the interpreter's start is
    ≈ 70 M). Help, errors and parsing of the subcommand are its own
    parser's either way."""
    from . import __version__

    p = _Parser(prog="dcnsim", description="Deterministic packet-level data-center network simulator.")
    p.add_argument("--version", action="version", version=f"dcnsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, add in COMMANDS.items():
        if only is None or name == only:
            add(sub)
    return p


def _interrupted_text(command: str, argv: Sequence[str], out: Optional[str] = None,
                      e: Optional[BaseException] = None) -> str:
    """What Ctrl-C left behind, and how to go on (``e``: the interrupt, as
    what was cut off marked it)."""
    import shlex

    resume = f"resume with: {shlex.join(['dcnsim', *argv])}"
    if command == "reproduce" and getattr(e, "simulations_done", False):
        # cut off in the figures' analysis or the report: no point was pending
        report = ("report.md was written, the lines after it were not" if getattr(e, "report_written", False)
                  else "neither the figures nor report.md were written (earlier ones there are left as they were)")
        return (f"interrupted after the simulations: every one is finished and kept in runs/; {report}; "
                f"rerunning runs none of them again and writes the report; {resume}")
    if command == "sweep" and getattr(e, "points_done", False):
        # cut off while the table was made: every point had run
        return (f"interrupted after the last point ran: none was cancelled, finished points are kept"
                f"{_listed(getattr(e, 'df', None))}; {resume}")
    if command in ("sweep", "demo", "reproduce") and e is not None and not hasattr(e, "df"):
        # cut off before the points were run (reading, validating, checking
        # which are complete already): no point was under way
        return f"interrupted before any point ran; {resume}"
    cut_df = getattr(e, "df", None)
    if command in ("sweep", "demo", "reproduce") and cut_df is not None and not len(cut_df):
        return f"interrupted before any point finished: none is kept, pending ones were cancelled; {resume}"
    if command in ("sweep", "demo", "reproduce"):
        listed = _listed(getattr(e, "df", None)) if command == "sweep" else ""
        return f"interrupted; finished points are kept{listed}, pending ones were cancelled; {resume}"
    if command == "tune" and out is not None and getattr(e, "trials_done", False):
        # cut off in the confirmation runs or the files: no trial was under way
        return (f"interrupted after the last trial; the study is complete ({os.path.join(out, 'study.log')}, runs "
                f"in {os.path.join(out, 'runs')}): resuming asks no trial again, it finishes the confirmation "
                f"runs and writes the tables and plots; {resume}")
    if command == "tune" and out is not None and os.path.exists(os.path.join(out, "study.log")):
        # the journal holds every finished trial; the one under way is asked again on resume
        runs = os.path.join(out, "runs")
        kept = f"runs in {runs}" if os.path.isdir(runs) and os.listdir(runs) else "no run had finished"
        return (f"interrupted; the study so far is kept ({os.path.join(out, 'study.log')}, {kept}), a trial "
                f"under way, if any, is asked again; {resume}")
    if command == "tune" and out is not None and os.path.isdir(os.path.join(out, "runs")):
        # cut off in the baseline's runs, before the study was opened: they are kept
        return f"interrupted; the runs so far are kept ({os.path.join(out, 'runs')}); {resume}"
    return "interrupted; nothing written" + (_earlier_kept(out) if command == "run" else "")


def _earlier_kept(out: Optional[str]) -> str:
    """A stopped run's word on its --out that holds an earlier run's files:
    "nothing written" alone let a script that missed the exit status read
    that run's tables as this one's."""
    if out and os.path.isfile(os.path.join(os.path.expanduser(out), "summary.json")):
        return f" ({out} still holds an earlier run's results, as they were: not this run's)"
    return ""


class _Terminated(KeyboardInterrupt):
    """SIGTERM (`kill`, a job scheduler's time limit, a closed session): the
    same way out as Ctrl-C -- a sweep's workers stopped, not orphaned to
    run on into the directory, and the line saying how to resume -- with
    the exit status a terminated process has (143)."""


def _on_sigterm(signum, frame) -> None:
    raise _Terminated()


def _write_failed_text(command: str, argv: Sequence[str], e: OSError) -> str:
    """A file that could not be written (a full disk, a read-only mount):
    one line naming it, and what of the work is kept."""
    import shlex

    where = f" ({e.filename})" if e.filename else ""
    line = f"{command}: {e.strerror or e}{where}"
    if command in ("sweep", "reproduce", "tune"):
        # every finished point's (trial's) files were written whole before
        line += f"; what finished is kept; once that is fixed, resume with: {shlex.join(['dcnsim', *argv])}"
    return line


def _warning_printer(fallback):
    """``warnings.showwarning`` for the command line: a scenario warning is
    for the user, one line on stderr with no source location."""
    from .errors import DcnsimWarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, DcnsimWarning):
            # a run's outcome (drops under PFC, apps unfinished): the summary says it in its place
            if not getattr(message, "after_run", False):
                print(f"warning: {_one_line(message)}", file=sys.stderr)
        else:
            fallback(message, category, filename, lineno, file, line)

    return show


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str] = (),
                    extra: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` chose: `dcnsim run`'s for
    `dcnsim run FILE --bogus`, `dcnsim model dctcp`'s for `dcnsim model
    dctcp --bogus`; ``parser`` itself when no subcommand was chosen. An
    ``extra`` argument given before a subcommand's name in ``argv`` is its
    parent's (`dcnsim --bogus run FILE`: `dcnsim`'s, not `dcnsim run`'s)."""
    argv = list(argv)
    first = argv.index(extra) if extra is not None and extra in argv else len(argv)
    at = 0
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name is None or name not in subs[0].choices:
            return parser
        if name in argv[at:]:
            pos = argv.index(name, at)
            if first < pos:
                return parser
            at = pos + 1
        parser = subs[0].choices[name]


def main(argv: Optional[Sequence[str]] = None, *, _process: bool = False) -> int:
    import warnings

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # before building the parser, which loads gettext and locale
        from . import __version__
        from ._streams import GuardedStream, StreamError

        try:  # a reader gone (`| true`) is quiet; a full disk is one line, as for any command
            out = GuardedStream(sys.stdout, "standard output")
            out.write(f"dcnsim {__version__}\n")
            out.flush()
        except StreamError as e:
            print(f"dcnsim: {e}", file=sys.stderr)
            return 1
        return 0
    if argv and argv[0] not in ("-h", "--help") and not any(a in COMMANDS for a in argv):
        # argparse said "the following arguments are required: COMMAND" of
        # `dcnsim --verison`, and listed the commands without a guess for
        # `dcnsim rnu`: the word typed is named, with the one meant
        import difflib

        first = argv[0]
        names = ["--version", "--help"] if first.startswith("-") else list(COMMANDS)
        close = difflib.get_close_matches(first, names, n=1)
        what = "option" if first.startswith("-") else "command"
        print(f"dcnsim: no {what} {first!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
              + f"; the commands: {', '.join(COMMANDS)} (dcnsim --help)", file=sys.stderr)
        return 2
    # one subcommand's parser where the line names it (the `tune` and `bench`
    # parsers import their modules: tuning.py and bench.py, ≈ 20 ms)
    parser = build_parser(only=argv[0] if argv and argv[0] in COMMANDS else None)
    from ._args import forget_readings

    forget_readings()  # this command's --set values only, however many ran in this process before
    from ._streams import GuardedStream, StreamError

    # --help prints while parsing, and argparse swallows an OSError of its
    # writes and exits 0: a help lost to a full disk must not (its text was
    # all the command had to give), so stdout is guarded here already
    plain = sys.stdout
    if plain is not None:
        sys.stdout = GuardedStream(plain, "standard output")  # type: ignore[assignment]
    try:
        # parse_known_args, then the subcommand's own parser refuses what is
        # left: argparse's parse_args would blame the top-level `dcnsim` and
        # show its usage, which names no option of the command mistyped
        args, extras = parser.parse_known_args(argv)
        if extras:
            _command_parser(parser, args, argv, extras[0]).error(f"unrecognized arguments: {' '.join(extras)}")
    except StreamError as e:  # a help the disk refused, raised through argparse's print
        print(f"dcnsim: {e}", file=sys.stderr)
        return 1
    except SystemExit as e:
        if e.code in (0, None) and sys.stdout is not None:
            try:
                sys.stdout.flush()
            except StreamError as err:
                print(f"dcnsim: {err}", file=sys.stderr)
                return 1
        raise
    finally:
        sys.stdout = plain
    args.argv = argv  # a command cut short prints the one that resumes it

    if _process:  # started by dcnsim._entry, the collector off: see there
        import gc
        import signal

        gc.freeze()
        gc.enable()
        # the command shows no figure: its plots need no display (dcnsim.plots
        # picks Agg itself only where none runs), and a backend a user set stays
        os.environ.setdefault("MPLBACKEND", "Agg")
        # only the process's own entry: a test or notebook keeps its handler
        signal.signal(signal.SIGTERM, _on_sigterm)
    shown = warnings.showwarning
    warnings.showwarning = _warning_printer(shown)
    streams = sys.stdout, sys.stderr
    if sys.stdout is not None:
        sys.stdout = GuardedStream(sys.stdout, "standard output")  # type: ignore[assignment]
    if sys.stderr is not None:
        sys.stderr = GuardedStream(sys.stderr, "standard error")  # type: ignore[assignment]
    try:
        status = int(args.func(args) or 0)
        if sys.stdout is not None:
            sys.stdout.flush()  # a failing stdout shows here, while the status can still say so
        return status
    except StreamError as e:  # `dcnsim schema > /dev/full`
        print(f"{args.command}: {e}", file=sys.stderr)
        return 1
    except ScenarioError as e:  # e.g. a bad --set path
        _print_problems(getattr(args, "file", "dcnsim"), e.errors)
        return 2
    except OutputDirError as e:  # checked before anything runs
        from .sweep import SweepError

        if isinstance(e.__cause__, SweepError):
            # met by a point mid-sweep (a full disk), not a bad --out: the
            # points before it are kept, and the same command resumes
            print(_write_failed_text(args.command, argv, e), file=sys.stderr)
            return 1
        print(f"{args.command}: --out {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        text = _interrupted_text(args.command, argv, getattr(args, "out", None), e)
        if isinstance(e, _Terminated) and text.startswith("interrupted"):
            # SIGTERM (`kill`, a scheduler's time limit), not Ctrl-C: said so
            text = "terminated (SIGTERM)" + text[len("interrupted"):]
        print(text, file=sys.stderr)
        return 143 if isinstance(e, _Terminated) else 130
    except OSError as e:  # a results file that could not be written: one line, not a traceback
        if e.errno is None:
            raise
        print(_write_failed_text(args.command, argv, e), file=sys.stderr)
        return 1
    finally:
        warnings.showwarning = shown
        sys.stdout, sys.stderr = streams


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
