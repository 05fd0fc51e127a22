"""A new user's first runs of NDP, Swift, HPCC, DCQCN and TIMELY from Python.

The laws a simple case must obey whatever the scheme (docs/ndp.md,
swift.md, hpcc.md, dcqcn.md, timely.md): one flow alone reaches line rate
less its headers (HPCC: η of it), flows into one port share it, every byte
written is delivered once and nothing is lost where the scheme promises
it; and what a new user gets wrong is named, with the field and the
reason.
"""

import warnings

import dcnsim
import pytest

RATE = 100e9
MSS, HEADER = 4096, 64
SIZE = 8 * 2**20
TRANSPORTS = ["ndp", "swift", "hpcc", "dcqcn", "timely"]


def incast(transport, senders, **tcp):
    """``senders`` flows of SIZE bytes into host 0 of a 100 Gbps star, each
    scheme on its own fabric: NDP's trimming switch, DCQCN's marking port
    and PFC, TIMELY's PFC; NICs without a limit, as htsim's."""
    return dcnsim.Scenario(
        topology=dcnsim.Star(hosts=senders + 1, rate="100Gbps", delay="1us", buffer="4MB",
                             ecn_k="100KB" if transport == "dcqcn" else None,
                             nic_buffer="unlimited"),
        apps=[dcnsim.Bulk(src=i, dst=0, size=SIZE) for i in range(1, senders + 1)],
        tcp=dcnsim.Tcp(transport=transport, mss=MSS, header=HEADER, **tcp),
        trimming={} if transport == "ndp" else None,
        pfc=dcnsim.Pfc() if transport in ("dcqcn", "timely") else None,
        stop="100ms")


def run(sc):
    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)
        return dcnsim.run(sc)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_one_flow_alone_runs_at_line_rate_less_its_headers(transport):
    r = run(incast(transport, 1))
    f = r.flows
    assert list(f.transport) == [transport]
    # payload at the wire's rate less the headers; HPCC paces at η of it
    ceiling = RATE * MSS / (MSS + HEADER)
    floor = (0.95 if transport == "hpcc" else 1.0) * ceiling
    goodput = f.goodput_bps.iloc[0]
    assert goodput <= ceiling * 1.001
    assert goodput >= 0.95 * floor
    assert f.delivered_bytes.iloc[0] == SIZE
    assert f.retransmits.iloc[0] == 0 and f.drops.iloc[0] == 0


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_four_flows_into_one_port_share_it_and_deliver_every_byte_once(transport):
    r = run(incast(transport, 4))
    f = r.flows
    assert f.completed.all()
    assert (f.delivered_bytes == SIZE).all() and (f.received_bytes == SIZE).all()
    # bytes sent: each byte once, plus what was resent
    assert ((f.bytes_sent - f.retx_bytes) == SIZE).all()
    # a fair share: equal sizes finish together
    assert dcnsim.jain(1 / f.fct_s) > 0.98
    # the port is the bottleneck: together they keep it busy
    port = r.queues[r.queues.to == "h0"].iloc[0]
    assert port.utilization > 0.5
    # NDP trims instead of dropping; DCQCN and TIMELY run over PFC: no loss
    if transport in ("ndp", "dcqcn", "timely"):
        assert r.summary["packets_dropped"] == 0


def test_hpcc_keeps_the_port_near_empty_swift_near_its_target():
    sc = incast("hpcc", 4)
    sc.trace = {"interval": "5us", "flows": False, "queues": "switches"}
    hpcc = run(sc)
    port = hpcc.queues[hpcc.queues.to == "h0"].queue_id.iloc[0]
    ts = hpcc.tables["queue_ts"]
    end = hpcc.flows.end_s.min()
    late = ts[(ts.queue_id == port) & (ts.time_s > end / 2) & (ts.time_s < end)]
    assert len(late) > 10
    # the first round trip's windows (a BDP each) queue; once INT has been
    # heard, η < 1 leaves headroom: a few packets, not a standing queue
    assert hpcc.queues[hpcc.queues.to == "h0"].max_pkts.iloc[0] > 4
    assert late.pkts.max() <= 4
    swift = run(incast("swift", 4, swift_base_target="20us"))
    srtt = swift.flows.srtt_s
    # base + 2 hops × h + flow scaling's range: the largest target any window has
    base = 20e-6
    largest = base + 2 * base / 6.55 + 5 * base
    assert (srtt < largest).all()
    # and the queue is not the 4 MB the port could hold
    q = swift.queues[swift.queues.to == "h0"].max_bytes.iloc[0]
    assert q < 4 * 2**20 / 4


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tcps_own_keys_on_another_transport_are_named(transport):
    sc = incast(transport, 1, init_cwnd=50, cc="cubic", sack=True)
    problems = dcnsim.validate(sc)
    assert list(problems) == []
    named = {w.path: w.message for w in problems.warnings}
    for key in ("init_cwnd", "cc", "sack"):
        assert f"tcp.{key}" in named, named
        assert 'transport = "tcp"' in named[f"tcp.{key}"]
    with pytest.warns(dcnsim.DcnsimWarning, match="init_cwnd changes nothing"):
        dcnsim.run(sc)


def test_a_trimmed_header_larger_than_the_packet_is_refused():
    sc = incast("ndp", 1)
    sc.trimming = {"header": "100KB"}
    problems = dcnsim.validate(sc)
    assert [p.path for p in problems] == ["trimming.header"]
    assert "would not shrink" in problems[0].message
    with pytest.raises(dcnsim.ScenarioError, match="trimming.header"):
        dcnsim.run(sc)


@pytest.mark.parametrize("key,value,reason", [
    ("hpcc_eta", 1.5, "must be ≤ 1"),
    ("hpcc_eta", -0.5, "must be > 0"),
    ("hpcc_base_rtt", 12, "expected a time with a unit"),
    ("hpcc_base_rtt", "0us", "must be > 0"),
])
def test_hpcc_out_of_range_values_name_the_key(key, value, reason):
    problems = dcnsim.validate(incast("hpcc", 1, **{key: value}))
    assert [p.path for p in problems] == [f"tcp.{key}"]
    assert reason in problems[0].message


@pytest.mark.parametrize("transport,key,value,reason", [
    ("swift", "swift_base_target", "-20us", "negative"),
    ("swift", "swift_initial_window", 5000, "exceeds swift_max_cwnd"),
    ("ndp", "ndp_pull_rate", 0, "must be > 0"),
    ("dcqcn", "dcqcn_rai", "0Gbps", "must be > 0"),
    ("dcqcn", "dcqcn_rai", "5GBps", "bytes per second"),
    ("timely", "timely_t_low", "600us", "below timely_t_high"),
])
def test_other_out_of_range_values_name_the_key(transport, key, value, reason):
    problems = dcnsim.validate(incast(transport, 1, **{key: value}))
    assert [p.path for p in problems] == [f"tcp.{key}"]
    assert reason in problems[0].message


def test_a_small_swift_max_cwnd_alone_is_valid():
    # the default initial window (15 packets) is cut to the cap, not blamed
    # on swift_initial_window, a key the user never set
    problems = dcnsim.validate(incast("swift", 1, swift_max_cwnd=10))
    assert list(problems) == [] and list(problems.warnings) == []
    problems = dcnsim.validate(incast("swift", 1, swift_max_cwnd=10, swift_initial_window=12))
    assert [p.path for p in problems] == ["tcp.swift_initial_window"]


def test_hpcc_without_int_and_hpcc_over_trimming_are_refused():
    sc = incast("hpcc", 1)
    sc.int = False
    assert [p.path for p in dcnsim.validate(sc)] == ["int"]
    sc = incast("hpcc", 1)
    sc.trimming = {}
    assert [p.path for p in dcnsim.validate(sc)] == ["trimming"]
