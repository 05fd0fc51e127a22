"""Link failures (`[[failures]]`) from Python and the command line: the
builder writes the document the core reads, the results carry the
`failures` table and the summary's count, `dcnsim run` names them, and a
bad entry is refused with its field. The physics (the outage rule, a lossy
link's fraction, a slower link's rate, the black hole only a new flow label
escapes, the same bits on any number of threads) is in
crates/dcnsim/tests/failures.rs and tests/parallel.rs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dcnsim

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "scenarios" / "link_failure_fattree.toml"


def line_scenario(failures: list) -> dcnsim.Scenario:
    """h0 - s0 - h1 at 1 Gbps, a 100 Mbps UDP stream h0 -> h1 for 8 ms."""
    return dcnsim.Scenario(
        name="line", stop="10ms",
        topology=dcnsim.Custom(
            nodes=[("h0", "host"), ("s0", "switch"), ("h1", "host")],
            links=[dcnsim.Link("h0", "s0", rate="1Gbps", delay="10us"),
                   dcnsim.Link("s0", "h1", rate="1Gbps", delay="10us")],
            buffer="100pkt"),
        apps=dcnsim.UdpCbr(0, 1, rate="100Mbps", payload=1000, stop="8ms"),
        failures=failures,
    )


def test_the_builder_writes_failures_and_the_results_count_them():
    sc = line_scenario([dcnsim.Failure("s0", "h1", at="2ms", until="5ms", direction="a_to_b"),
                        {"a": "h0", "b": "s0", "loss": 0.5, "at": "6ms"}])
    doc = sc.to_dict()
    assert doc["failures"][0] == {"a": "s0", "b": "h1", "at": "2ms", "until": "5ms", "direction": "a_to_b"}
    r = dcnsim.run(sc)
    f = r.failures
    assert list(f.columns) == ["failure", "queue_id", "node", "to", "at_s", "until_s", "loss", "rate_bps", "lost"]
    assert list(f.failure) == [0, 1, 1]
    assert list(zip(f.node, f.to)) == [("s0", "h1"), ("h0", "s0"), ("s0", "h0")]
    assert f.until_s.iloc[1] == float("inf")
    assert (f.lost.iloc[:2] > 0).all()
    # the reverse direction carries nothing while the stream is UDP
    assert f.lost.iloc[2] == 0
    assert r.summary["packets_dropped_failed"] == f.lost.sum()
    assert r.summary["packets_dropped"] == f.lost.sum()
    assert not r.conservation_problems()
    # without failures: no table, no summary key
    clean = dcnsim.run(line_scenario([]))
    assert clean.failures is None and "packets_dropped_failed" not in clean.summary
    # the same stream: what the failures lost is all that did not arrive
    assert clean.summary["packets_created"] == r.summary["packets_created"]
    arrived = [x.summary["packets_delivered"] + x.summary["packets_in_flight"] for x in (clean, r)]
    assert arrived[0] == arrived[1] + f.lost.sum()


def test_dcnsim_run_names_the_failures_and_txrehash_escapes_the_black_hole():
    out = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE)],
                         capture_output=True, text=True, check=True).stdout
    assert "failures" in out and "on 1 failed link (2 directions" in out, out
    assert "16 (16 completed)" in out, out
    # the failed link's drops are the failure's, not a hot queue's
    assert "aggr0_0→core0" not in out and "core0→aggr0_0" not in out, out
    stuck = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "tcp.txrehash=false"],
                           capture_output=True, text=True, check=True).stdout
    assert "16 (16 completed)" not in stuck and "had not finished" in stuck, stuck


def test_bad_failures_name_their_field():
    problems = [str(p) for p in dcnsim.validate(line_scenario([{"a": "s0", "b": "h9"}]).to_dict())]
    assert any(p.startswith("failures[0].b: unknown node 'h9'") for p in problems), problems
    problems = [str(p) for p in dcnsim.validate(line_scenario([{"a": "h0", "b": "s0", "rate": "fast"}]).to_dict())]
    assert any(p.startswith("failures[0].rate:") for p in problems), problems
    problems = [str(p) for p in dcnsim.validate(line_scenario([{"a": "h0", "b": "h1"}]).to_dict())]
    assert any(p.startswith("failures[0].b: no link joins 'h0' and 'h1'") for p in problems), problems
    # one node twice: the mistake is the repeat, not a link that is missing
    problems = [str(p) for p in dcnsim.validate(line_scenario([{"a": "s0", "b": "s0"}]).to_dict())]
    assert "failures[0].b: 's0' is also `a`: a failure names a link's two ends, two nodes" in problems, problems
    # a failure slows a link: at or above the link's own rate it would not
    for rate in ("1Gbps", "10Gbps"):
        problems = [str(p) for p in dcnsim.validate(line_scenario([{"a": "s0", "b": "h1", "rate": rate}]).to_dict())]
        assert any(p.startswith(f"failures[0].rate: {rate} is not below the link's own 1Gbps") for p in problems), \
            problems
    assert not dcnsim.validate(line_scenario([{"a": "s0", "b": "h1", "rate": "999Mbps"}]).to_dict())


def test_a_link_down_for_good_under_ecmp_warns_unless_flows_can_move():
    """Routing does not react: a permanent outage under ECMP with flows that
    never draw a new label is a trap, said before the run; with txrehash,
    with an end to the outage, or under spraying it is not."""
    doc = dcnsim.load_scenario(FILE)
    doc["stop"] = "3ms"  # past the failure's start (2 ms)

    def warned(d: dict) -> list:
        return [w for w in dcnsim.run(d).warnings if w.startswith("failures[0]: down")]

    assert warned(doc) == []  # the file sets txrehash
    doc["tcp"]["txrehash"] = False
    (w,) = warned(doc)
    assert "routing does not react" in w and "tcp.txrehash" in w, w
    assert warned({**doc, "failures": [{**doc["failures"][0], "until": "50ms"}]}) == []
    assert warned({**doc, "routing": {"mode": "rps"}}) == []
    # under `single` a new label moves nothing: txrehash is no way out, so
    # the warning stays with it and does not offer it (it offered it, then
    # went quiet once it was set, while the flow stalled)
    single = {**doc, "routing": {"mode": "single"}, "tcp": {**doc["tcp"], "txrehash": True}}
    (w,) = warned(single)
    assert "takes one path whatever the flow label" in w and "set tcp.txrehash" not in w, w


def test_a_host_cut_off_is_warned_of_whatever_the_routing():
    """A host's only link down until stop: no routing mode and no new flow
    label finds another path, so the warning says the host is cut off and
    offers no rerouting remedy, under ECMP with or without txrehash and
    under spraying alike; restored before stop, no warning."""
    doc = dcnsim.load_scenario(FILE)
    doc["stop"] = "5ms"
    doc["failures"] = [{"a": "h8", "b": "edge2_0", "at": "2ms"}]

    def warned(d: dict) -> list:
        return [str(w) for w in dcnsim.validate(d).warnings if str(w).startswith("failures[0]")]

    for tcp, routing in [({"txrehash": True}, {}), ({"txrehash": False}, {}),
                         ({"txrehash": False}, {"routing": {"mode": "rps"}})]:
        d = {**doc, "tcp": {**doc["tcp"], **tcp}, **routing}
        (w,) = warned(d)
        assert "cuts host h8 off" in w and "only" in w, w
        assert "withdrawn" not in w and "set tcp.txrehash" not in w, w
        r = dcnsim.run({**d, "stop": "5ms"})
        stalled = r.flows[(r.flows.src == 8) | (r.flows.dst == 8)]
        assert len(stalled) and not stalled.completed.any()
    restored = {**doc, "failures": [{**doc["failures"][0], "until": "3ms"}]}
    assert warned(restored) == []


def test_a_withdrawn_link_is_routed_around_from_python():
    """`withdrawn = true`: routing has converged around the dead core link,
    so the file's flows complete without a new label and lose nothing."""
    doc = dcnsim.load_scenario(FILE)
    doc["tcp"]["txrehash"] = False
    doc["failures"] = [dcnsim.Failure("aggr0_0", "core0", withdrawn=True).to_dict()]
    assert doc["failures"] == [{"a": "aggr0_0", "b": "core0", "withdrawn": True}]
    r = dcnsim.run(doc)
    assert r.flows.completed.all() and r.flows.rehashes.sum() == 0
    assert r.summary["packets_dropped_failed"] == 0
    assert not [w for w in r.warnings if w.startswith("failures")]


def test_a_failure_after_stop_is_warned_about():
    doc = dcnsim.load_scenario(FILE)
    doc["stop"] = "1ms"
    doc["failures"][0]["at"] = "2ms"
    r = dcnsim.run(doc)
    assert any(w.startswith("failures[0].at:") and "never happens" in w for w in r.warnings), r.warnings
    assert r.summary["packets_dropped_failed"] == 0


def test_routing_that_converges_moves_the_stuck_flows_from_python():
    """`converge`: routing withdraws the dead core link 5 ms after it
    failed, so the file's flows all finish without new flow labels, where
    without it some never do; no warning about a link down for good."""
    doc = dcnsim.load_scenario(FILE)
    doc["tcp"]["txrehash"] = False
    doc["failures"] = [dcnsim.Failure("aggr0_0", "core0", at="2ms", converge="5ms").to_dict()]
    r = dcnsim.run(doc)
    assert r.flows.completed.all() and r.flows.rehashes.sum() == 0
    assert r.summary["packets_dropped_failed"] > 0
    assert not [w for w in r.warnings if w.startswith("failures[0]: down")]


def _pcap_records(data: bytes) -> list:
    """(time in ns, IP length) of each record of a nanosecond pcap."""
    import struct
    out, off = [], 24
    while off < len(data):
        sec, nsec, incl, orig = struct.unpack_from("<IIII", data, off)
        out.append((sec * 10**9 + nsec, orig))
        off += 16 + incl
    return out


def test_a_packet_behind_one_lost_to_a_link_going_down_is_lost_too():
    """A FIFO serializes in order: once a packet is lost to a link going
    down (it would still be on the link at `at`), every packet offered
    after it queued behind it and is lost too, however short. Two UDP
    streams, 9,000-byte and 64-byte datagrams, share s0 -> s1 (10 Gbps,
    1 µs), which goes down for good at 1 ms. The survivors of each are
    those a FIFO fed the same offers (each datagram's send at its host,
    from the pcap, plus its NIC's serialization and the link's delay)
    delivers before `at`; a short datagram must not take a lost one's slot
    on the serializer and arrive before `at`."""
    hosts = [("h0", "host"), ("h1", "host"), ("h2", "host")]
    sc = dcnsim.Scenario(
        name="fifo", stop="4ms", until="stop",
        topology=dcnsim.Custom(
            nodes=hosts + [("s0", "switch"), ("s1", "switch")],
            links=[dcnsim.Link("h0", "s0", rate="10Gbps", delay="1us"),
                   dcnsim.Link("h2", "s0", rate="10Gbps", delay="1us"),
                   dcnsim.Link("s0", "s1", rate="10Gbps", delay="1us"),
                   dcnsim.Link("s1", "h1", rate="10Gbps", delay="1us")],
            buffer="10MB"),
        apps=[dcnsim.UdpCbr(0, 1, rate="9Gbps", payload=8972, stop="3ms"),
              dcnsim.UdpCbr(2, 1, rate="0.9Gbps", payload=36, stop="3ms")],
        failures=[{"a": "s0", "b": "s1", "at": "1ms"}],
        pcap={"hosts": [0, 2]},
    )
    r = dcnsim.run(sc)
    q = r.queues.set_index(["node", "to"])
    at_ns, link_ns = 1_000_000, 1_000
    offers = []
    for host in ("h0", "h2"):
        wire = q.loc[(host, "s0"), "tx_bytes"] / q.loc[(host, "s0"), "tx_pkts"]
        for t, _ in _pcap_records(r.pcaps[f"{host}.pcap"]):
            offers.append((t + wire * 8 / 10 + link_ns, wire * 8 / 10, host))
    offers.sort()
    free, expect = 0.0, {"h0": 0, "h2": 0}
    for t, tx, host in offers:
        free = max(free, t) + tx
        if free + link_ns <= at_ns:
            expect[host] += 1
    got = {}
    for host, payload in (("h0", 8972), ("h2", 36)):
        row = r.flows[r.flows.src == int(host[1])].iloc[0]
        got[host] = int(row.delivered_bytes) // payload
    assert expect["h0"] > 50 and expect["h2"] > 1000, expect
    for host in ("h0", "h2"):
        assert abs(got[host] - expect[host]) <= 1, (got, expect)


def test_failures_that_converge_one_after_the_other_keep_the_fabric_joined():
    """Both uplinks of leaf0 fail, each with routing converging around it,
    one in [1, 2) ms and the other in [10, 11) ms: at no instant are both
    withdrawn, so every pair of hosts keeps a path, and the run is valid
    (until 2026-12-08 every `converge` link counted as withdrawn for the
    whole run, and the scenario was refused as leaving no path between
    h0 and h2: the routing audit). Overlapping, they do cut leaf0 off, and
    that is refused, unless the second's convergence falls after stop."""
    def fabric(second_at: str, second_until: str) -> dict:
        return dcnsim.Scenario(
            name="converge-in-turn", stop="20ms",
            topology={"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                      "host_rate": "10Gbps", "fabric_rate": "10Gbps", "delay": "1us", "buffer": "300pkt"},
            routing={"mode": "ecmp"},
            apps=[{"kind": "bulk", "src": 0, "dst": 2, "size": "10MB"}],
            failures=[dcnsim.Failure("leaf0", "spine0", at="1ms", until="2ms", converge="100us"),
                      dcnsim.Failure("leaf0", "spine1", at=second_at, until=second_until, converge="100us")],
        ).to_dict()

    in_turn = fabric("10ms", "11ms")
    assert not [p for p in dcnsim.validate(in_turn) if "leave no path" in str(p)]
    r = dcnsim.run(in_turn)
    assert r.flows.delivered_bytes.sum() > 0
    # the second while the first is still routed around (restored only at 2.1 ms)
    overlapping = [str(p) for p in dcnsim.validate(fabric("1.5ms", "3ms"))]
    assert any(p.startswith("failures: the links routed around (withdrawn, converge) leave no path between")
               for p in overlapping), overlapping
    # routing converges only before stop: a second failure whose convergence
    # would come at 20.05 ms, past the 20 ms stop, withdraws nothing
    late = fabric("19.95ms", "30ms")
    late["failures"][0].pop("until")
    assert not [p for p in dcnsim.validate(late) if "leave no path" in str(p)]
