"""Swift (Kumar et al., SIGCOMM 2020; tcp.transport = "swift", docs/swift.md):
the delay law, pacing below one packet, determinism, the command line and
bad keys named."""

from __future__ import annotations

import json
import math

import dcnsim
import pytest
from conftest import cli, needs_core
from dcnsim import ScenarioError

pytestmark = needs_core

MSS = 4000
BASE_US = 20.0
#: links from a host to a host in another pod of a fat-tree
HOPS = 6


def long_flows(beta: float = 0.8, senders: int = 4, **tcp) -> dcnsim.Scenario:
    """``senders`` long flows from other pods into host 0 of a k = 4
    fat-tree, each starting with 200 packets in flight: a standing queue of
    several hundred microseconds that only the delay-based decrease drains
    (the buffers are large enough that nothing is lost)."""
    return dcnsim.Scenario(
        topology=dcnsim.FatTree(k=4, rate="100Gbps", delay="1us", buffer="4MB", nic_buffer="unlimited"),
        tcp=dcnsim.Tcp(transport="swift", mss=MSS, header=64, swift_beta=beta,
                       swift_initial_window=200, **tcp),
        apps=[dcnsim.Bulk(src=s, dst=0, duration="10ms") for s in range(4, 4 + senders)],
        trace={"interval": "10us"},
        stop="10ms",
    )


def target_us(cwnd_bytes: float) -> float:
    """Swift's fabric target with the defaults: base + hops × h + flow
    scaling α/√cwnd + β clamped to [0, fs_range] (docs/swift.md)."""
    h = BASE_US / 6.55
    fs_range = 5 * BASE_US
    alpha = fs_range / (1 / math.sqrt(0.1) - 1 / math.sqrt(100))
    beta = -alpha / math.sqrt(100)
    fs = min(max(alpha / math.sqrt(cwnd_bytes / MSS) + beta, 0.0), fs_range)
    return BASE_US + HOPS * h + fs


def second_half(r: dcnsim.Result):
    ts = r.flow_ts
    return ts[ts["time_s"] >= 0.005]


def test_median_rtt_over_the_second_half_is_swifts_target():
    r = dcnsim.run(long_flows())
    half = second_half(r)
    rtt = half["srtt_s"].median() * 1e6
    target = half["cwnd_bytes"].map(target_us).median()
    assert abs(rtt - target) <= 0.1 * target, (rtt, target)
    # delay is held at the target without giving up the line: 4 flows
    # share the receiver's 100 Gbps link
    delivered = r.flows["delivered_bytes"].sum()
    assert delivered * 8 / 0.010 >= 0.9 * 100e9
    assert r.summary["packets_dropped"] == 0
    assert r.summary["swift_window_decreases"] > 0
    # and fairly: each flow within 10 % of an equal share
    share = r.flows["delivered_bytes"] / delivered
    assert (abs(share - 0.25) <= 0.025).all(), list(share)


def test_without_the_delay_based_decrease_the_queue_stays():
    """The same run with β = 0 (no multiplicative decrease on delay): the
    initial queue is never drained, the RTT stays far above the target."""
    r = dcnsim.run(long_flows(beta=0.0))
    half = second_half(r)
    rtt = half["srtt_s"].median() * 1e6
    target = half["cwnd_bytes"].map(target_us).median()
    assert rtt > 2 * target, (rtt, target)
    assert r.summary["swift_window_decreases"] == 0


def incast(senders: int) -> dcnsim.Scenario:
    """``senders`` hosts of a star into one: their fair share of the
    receiver's link is below one packet per target delay."""
    return dcnsim.Scenario(
        topology=dcnsim.Star(hosts=senders + 1, rate="10Gbps", delay="1us", buffer="8MB", nic_buffer="unlimited"),
        tcp=dcnsim.Tcp(transport="swift", mss=MSS, header=64, swift_initial_window=1),
        apps=[dcnsim.Bulk(src=s, dst=0, duration="20ms") for s in range(1, senders + 1)],
        stop="20ms",
    )


def test_below_one_packet_of_window_the_sender_paces():
    """100 senders into one 10 Gbps link of a star: one packet of each per
    RTT would queue 100 packets (about 325 µs), far over even the largest
    target (base + 2 hops × h + fs_range ≈ 126 µs, flow scaling's full range
    at these windows), so windows fall below a packet and the pacer sends.
    The link stays busy, nothing is lost, and the RTT is held at the target
    rather than at the 100-packet queue."""
    r = dcnsim.run(incast(100))
    assert r.summary["swift_paced_packets"] > 0
    assert r.summary["packets_dropped"] == 0
    delivered = r.flows["delivered_bytes"].sum()
    assert delivered * 8 / 0.020 >= 0.85 * 10e9
    assert (r.flows["delivered_bytes"] > 0).all()
    assert (r.flows["final_cwnd_bytes"] < MSS).mean() > 0.5
    largest_target = BASE_US + 2 * BASE_US / 6.55 + 5 * BASE_US
    assert r.flows["srtt_s"].median() * 1e6 <= 1.1 * largest_target, r.flows["srtt_s"].median()


def test_swift_is_deterministic():
    a = dcnsim.run(incast(20))
    b = dcnsim.run(incast(20))
    assert a.flows.drop(columns=[c for c in a.flows.columns if "wall" in c]).equals(
        b.flows.drop(columns=[c for c in b.flows.columns if "wall" in c]))
    keep = {k: v for k, v in a.summary.items() if "wall" not in k}
    assert keep == {k: v for k, v in b.summary.items() if "wall" not in k}


def test_swift_recovers_losses():
    """Small buffers: the initial windows overflow the receiver's port;
    fast retransmit and timeouts deliver every byte."""
    sc = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=9, rate="10Gbps", delay="1us", buffer="40000B", nic_buffer="unlimited"),
        tcp=dcnsim.Tcp(transport="swift", mss=MSS, header=64, swift_initial_window=30),
        apps=[dcnsim.Bulk(src=s, dst=0, size="400000B") for s in range(1, 9)],
        stop="1s",
    )
    r = dcnsim.run(sc)
    assert r.summary["packets_dropped"] > 0
    assert (r.flows["delivered_bytes"] == 400000).all()
    assert r.flows["retransmits"].sum() > 0


def test_swift_from_the_command_line(tmp_path):
    path = tmp_path / "swift.json"
    path.write_text(json.dumps(incast(8).to_dict()))
    out = tmp_path / "out"
    p = cli("run", str(path), "--out", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert "swift_window_decreases" in summary
    assert "swift,".encode() in (out / "flows.csv").read_bytes()


@pytest.mark.parametrize("change, path", [
    ({"transport": "swfit"}, "tcp.transport"),
    ({"swift_beta": 1.5}, "tcp.swift_beta"),
    ({"swift_max_mdf": -0.1}, "tcp.swift_max_mdf"),
    ({"swift_max_mdf": 0}, "tcp.swift_max_mdf"),
    ({"swift_base_target": "0us"}, "tcp.swift_base_target"),
    ({"swift_fs_min_cwnd": 0}, "tcp.swift_fs_min_cwnd"),
    ({"swift_fs_min_cwnd": 200}, "tcp.swift_fs_min_cwnd"),
    ({"swift_initial_window": 0}, "tcp.swift_initial_window"),
    ({"swift_ai": "fast"}, "tcp.swift_ai"),
    ({"swift_targt": "20us"}, "tcp.swift_targt"),
])
def test_bad_swift_keys_are_named(change, path):
    doc = incast(4).to_dict()
    doc["tcp"] = {**doc["tcp"], **change}
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(doc)
    assert path in str(e.value)


def lone_flow(delay: str, **tcp) -> dict:
    """One long Swift flow alone on a 10 Gbps star (default 1,460-byte mss)."""
    return {"stop": "20ms", "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": delay,
                                         "buffer": "4MB"},
            "tcp": {"transport": "swift", **tcp}, "apps": [{"kind": "bulk", "src": 1, "dst": 0, "duration": "20ms"}]}


def test_a_target_below_the_paths_own_delay_is_warned_of_and_starves_a_lone_flow():
    """With the default base target (20 µs, meant for 1 µs links) a lone
    flow on 10 µs links read every ACK as congestion and took 6 % of an
    idle 10 Gbps link, without a word (the rates audit). The run now says
    how far the target falls short, and raising it by that much fills the
    link."""
    import warnings

    def run(doc):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = dcnsim.run(doc)
        return r, [str(x.message) for x in w if issubclass(x.category, dcnsim.DcnsimWarning)]

    r, said = run(lone_flow("10us"))
    # the ratio from the formula, independently: the path's unloaded delay is a full packet out
    # over two links and its ACK back, four propagations; the target is at the window that fills it
    wire, ack = (1460 + 40 + 0) * 8 / 10e9, 40 * 8 / 10e9
    rtt_us = (4 * 10e-6 + 2 * wire + 2 * ack) * 1e6
    h = BASE_US / 6.55
    fs_range = 5 * BASE_US
    alpha = fs_range / (1 / math.sqrt(0.1) - 1 / math.sqrt(100))
    pkts = 10e9 * rtt_us * 1e-6 / 8 / (1460 + 40)  # the window that fills the path, in packets
    target = BASE_US + 2 * h + min(max(alpha / math.sqrt(pkts) - alpha / math.sqrt(100), 0.0), fs_range)
    assert target < rtt_us
    assert r.summary["swift_target_over_path_rtt_min"] == pytest.approx(target / rtt_us, rel=1e-3)
    assert r.flows.goodput_bps.iloc[0] < 0.5e10  # an idle link, mostly unused
    (msg,) = [m for m in said if m.startswith("tcp.swift_base_target:")]
    short_us = r.summary["swift_target_short_s"] * 1e6
    assert short_us == pytest.approx(rtt_us - target, rel=1e-3) and f"raise swift_base_target by {short_us:.3g} µs" in msg
    # the base target raised by what the warning says: no warning, the link filled
    r, said = run(lone_flow("10us", swift_base_target=f"{BASE_US + short_us:.3f}us"))
    assert r.summary["swift_target_over_path_rtt_min"] >= 1 and not any("swift_base_target" in m for m in said)
    assert r.flows.goodput_bps.iloc[0] > 0.9e10
    # the defaults' own fabric (1 µs links): nothing to say
    r, said = run(lone_flow("1us"))
    assert r.summary["swift_target_over_path_rtt_min"] > 1 and not any("swift_base_target" in m for m in said)


def test_a_path_longer_than_the_largest_window_is_warned_of():
    """A 100 Gbps path of 50 µs links holds 1.71 times `swift_max_cwnd`
    (1,000 packets) in flight: a lone flow, its target raised above the
    path's delay and starting at the cap, can only reach 1/1.71 of its
    line, without a word (the transports' defaults audit). The run says
    so, with the factor; raising the cap by it fills the link."""
    import warnings

    def run(**tcp):
        doc = {"stop": "10ms", "topology": {"kind": "star", "hosts": 2, "rate": "100Gbps", "delay": "50us",
                                            "buffer": "16MB", "nic_buffer": "unlimited"},
               "tcp": {"transport": "swift", "swift_base_target": "300us", **tcp},
               "apps": [{"kind": "bulk", "src": 1, "dst": 0, "duration": "10ms"}]}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = dcnsim.run(doc)
        return r, [str(x.message) for x in w if issubclass(x.category, dcnsim.DcnsimWarning)]

    r, said = run(swift_initial_window=1000)
    over = r.summary["swift_bdp_over_max_cwnd_max"]
    # the path's BDP from its parts: four 50 µs propagations, a full packet and an ACK over two links
    rtt = 4 * 50e-6 + 2 * (1500 + 40) * 8 / 100e9
    # the window counts payload: a packet of it is 1,500 bytes on the wire
    assert over == pytest.approx(100e9 * rtt / 8 / (1000 * (1460 + 40)), rel=1e-3) and over > 1
    goodput = r.flows.goodput_bps.iloc[0]
    assert goodput <= 100e9 / over * 1.02  # the window's cap, whatever else
    (msg,) = [m for m in said if m.startswith("tcp.swift_max_cwnd:")]
    assert f"{over:.2f}× Swift's largest window" in msg and f"at most {100 / over:.0f} % of line rate" in msg
    r, said = run(swift_initial_window=1900, swift_max_cwnd=2000)
    assert r.summary["swift_bdp_over_max_cwnd_max"] < 1 and not any("swift_max_cwnd" in m for m in said)
    assert r.flows.goodput_bps.iloc[0] > 0.9 * 100e9


def test_a_path_that_loses_nothing_has_no_timeout():
    """Audit 29: Swift's timer is armed when a packet is handed to the NIC,
    but its estimate came from NIC timestamps, which leave out the wait
    there; on a path whose samples never varied the deviation decayed to
    nothing, the timeout was the smoothed RTT itself, and a block's first
    packet, queued behind its host's ACK of the request, came back after
    it (257 timeouts and no drop in 128 blocks). A timer whose estimate is
    taken on its own clock does not fire where nothing is lost."""
    sc = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=2, rate="1Gbps", delay="50us", buffer="32pkt", nic_buffer="unlimited"),
        # the modern study's hop term (docs/modern.md): the target above
        # this path's delay, so the window fills the path
        tcp=dcnsim.Tcp(transport="swift", mss=1024, header=40, swift_hop_scale="111565ns"),
        apps=dcnsim.SyncReads(client=0, servers="1-1", sru="256KB", blocks=20, request="64B"),
        stop="1s",
    )
    r = dcnsim.run(sc)
    flows = r.tables["flows"]
    assert r.summary["packets_dropped"] == 0
    assert int(flows["timeouts"].sum()) == 0 and int(flows["retransmits"].sum()) == 0
    assert r.metrics["block_goodput_bps"] > 0.8e9
