"""The `trace` time series (`flow_ts`, `queue_ts`) against the laws they must
keep whatever the scenario: samples on the grid of `interval` from t = 0 and
one where the run ends, so a flow's last row holds its totals of the flows
table; `delivered_bytes` never decreasing; windows and ssthresh in bytes for
every cc and transport (BBR's ssthresh `inf`, as Linux's
TCP_INFINITE_SSTHRESH, not 2³¹ − 1 segments written as bytes); queues within
their port's buffer; the same bits on 1, 2 and 4 threads; the tables written
and read back whole."""

from __future__ import annotations

import copy
import math

import dcnsim
import numpy as np
import pytest
from conftest import needs_core
from dcnsim.units import parse_time

# warnings about the scenarios (ecn_k with a cc that sends no ECT packets,
# apps unfinished at a short stop) are beside the point here
pytestmark = [needs_core, pytest.mark.filterwarnings("ignore::dcnsim.DcnsimWarning")]


def incast(tcp=None, **top):
    doc = {
        "name": "trace-audit", "seed": 1, "stop": "100ms",
        "topology": {"kind": "star", "hosts": 9, "rate": "10Gbps", "delay": "2us", "buffer": "200KB",
                     "ecn_k": "60KB"},
        "tcp": tcp or {"cc": "newreno"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-8", "response": "256KB",
                  "queries": 3, "gap": "200us"}],
        "trace": {"interval": "300us", "queues": "all"},
    }
    doc.update(top)
    return doc


def on_grid(t: float, interval: str = "300us") -> bool:
    """Whether `t` (seconds, as the tables hold it) is a whole multiple of
    `interval`, to the picosecond."""
    ps = round(t * 1e12)
    return ps % round(parse_time(interval) * 1e12) == 0 and parse_time(f"{ps}ps") == t


def check_flow_laws(r):
    ft, flows = r.flow_ts, r.flows.set_index("flow_id")
    end = r.summary["sim_time_s"]
    interval = r.scenario["trace"]["interval"]
    times = np.unique(ft["time_s"])
    assert times[0] == 0.0 and times[-1] == end, "samples from t = 0 to the run's end"
    assert all(on_grid(t, interval) for t in times[:-1]), times
    gaps = np.diff(times[:-1])
    assert np.allclose(gaps, parse_time(interval), rtol=0, atol=1e-15), "no sample on the grid skipped"
    for fid, g in ft.groupby("flow_id"):
        d = g["delivered_bytes"].to_numpy()
        assert (np.diff(d) >= 0).all(), f"flow {fid}: delivered_bytes decreased"
        assert g["time_s"].iloc[-1] == end
        assert d[-1] == flows.at[fid, "delivered_bytes"], f"flow {fid}"
        assert g["cwnd_bytes"].iloc[-1] == flows.at[fid, "final_cwnd_bytes"], f"flow {fid}"


CASES = {
    "newreno": ({"cc": "newreno"}, {}),
    "cubic": ({"cc": "cubic"}, {}),
    "dctcp": ({"cc": "dctcp"}, {}),
    "fast": ({"cc": "fast"}, {}),
    "bbr": ({"cc": "bbr"}, {}),
    "ndp": ({"transport": "ndp", "mss": 9000}, {"trimming": {}}),
    "swift": ({"transport": "swift"}, {}),
    "hpcc": ({"transport": "hpcc"}, {"pfc": {}}),
    "dcqcn": ({"transport": "dcqcn", "mss": 4096}, {"pfc": {}}),
    "timely": ({"transport": "timely", "mss": 4096}, {"pfc": {}}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_every_cc_keeps_the_laws_in_bytes(name):
    tcp, extra = CASES[name]
    r = dcnsim.run(incast(tcp, **extra))
    check_flow_laws(r)
    ft = r.flow_ts
    started = ft[ft["srtt_s"].notna()]
    # windows in bytes: at least a few hundred bytes once started (rate-based
    # transports' rate × RTT can dip lower, never to segment counts of 1–10
    # for all samples), at most what the run could send
    assert started["cwnd_bytes"].max() >= 1000, name
    assert (ft["cwnd_bytes"] <= 64 << 20).all(), name
    ss = ft["ssthresh_bytes"]
    finite = ss[np.isfinite(ss)]
    if name in ("newreno", "cubic", "dctcp", "fast"):
        assert len(finite) and finite.min() >= 1000 and finite.max() < 64 << 20, name
    else:
        # BBR keeps Linux's TCP_INFINITE_SSTHRESH; the others have none
        assert np.isinf(ss).all(), (name, finite.unique()[:5])


@pytest.mark.parametrize("until", ["apps_done", "stop"])
@pytest.mark.parametrize("ties", ["seeded", "fifo"])
def test_the_last_sample_is_where_the_run_ends(until, ties):
    """Samples on the grid up to the end, and one at the end: at `stop`
    (on the grid here: 30 ms is 100 intervals) under `until = "stop"` or
    when the apps are unfinished, at the event that finished the last app
    otherwise; under fifo ties too, where events at the last sample's
    instant may follow it."""
    for stop in ("30ms", "1s"):
        r = dcnsim.run(incast(stop=stop, until=until, ties=ties))
        check_flow_laws(r)
        end = r.summary["sim_time_s"]
        if until == "stop":
            assert end == parse_time(stop)
        else:
            assert end < 0.03 and not on_grid(end)
        q = r.queue_ts
        assert np.unique(q["time_s"])[-1] == end
        assert q.groupby("time_s").size().eq(len(r.queues)).all(), "every queue at every sample"


def test_an_interval_longer_than_the_run_samples_its_start_and_end():
    for until in ("apps_done", "stop"):
        doc = incast(stop="50ms", until=until)
        doc["trace"]["interval"] = "1s"
        r = dcnsim.run(doc)
        assert sorted(r.flow_ts["time_s"].unique()) == [0.0, r.summary["sim_time_s"]]
        last = r.flow_ts.groupby("flow_id").tail(1).set_index("flow_id")["delivered_bytes"]
        assert (last == r.flows.set_index("flow_id")["delivered_bytes"][last.index]).all()


def test_bbr_ssthresh_is_infinite_not_two_to_the_31_segments():
    """BBR leaves Linux's snd_ssthresh at TCP_INFINITE_SSTHRESH (0x7fffffff
    segments) through its losses; the trace showed that as 3.1e12 bytes."""
    doc = incast({"cc": "bbr"})
    doc["topology"]["buffer"] = "20KB"
    r = dcnsim.run(doc)
    assert r.flows["drops"].sum() > 0, "BBR saw losses"
    assert np.isinf(r.flow_ts["ssthresh_bytes"]).all()


def test_queues_stay_within_their_buffers():
    for buffer in ("30KB", "20pkt"):
        doc = incast({"cc": "cubic"})
        doc["topology"]["buffer"] = buffer
        doc["trace"]["interval"] = "10us"
        r = dcnsim.run(doc)
        j = r.queue_ts.join(r.queues.set_index("queue_id"), on="queue_id")
        assert (j["bytes"] > 0).any()
        assert not ((j["limit_bytes"] > 0) & (j["bytes"] > j["limit_bytes"])).any()
        assert not ((j["limit_pkts"] > 0) & (j["pkts"] > j["limit_pkts"])).any()
        assert (j["bytes"] <= j["max_bytes"]).all() and (j["pkts"] <= j["max_pkts"]).all()
        # every packet at least a header (40 B: a pure ACK) on the wire
        assert (j["pkts"] * 40 <= j["bytes"]).all()
        assert ((j["pkts"] == 0) == (j["bytes"] == 0)).all()


def test_switches_are_the_switch_egress_queues_and_all_is_every_queue():
    doc = incast()
    doc["trace"]["queues"] = "switches"
    r = dcnsim.run(doc)
    switch_q = set(r.queues.loc[~r.queues["from_host"], "queue_id"])
    assert set(r.queue_ts["queue_id"]) == switch_q and switch_q
    doc["trace"]["queues"] = [3, 0]
    r = dcnsim.run(doc)
    assert list(r.queue_ts["queue_id"].iloc[:2]) == [3, 0]
    doc["trace"] = {"interval": "1ms", "flows": False}
    r = dcnsim.run(doc)
    assert len(r.flow_ts) == 0 and len(r.queue_ts) == 0
    assert list(r.flow_ts.columns) == [c for c, _ in dcnsim.result.TABLE_SCHEMA["flow_ts"]]


@pytest.mark.parametrize("trace, path, says", [
    ({"interval": "0s"}, "trace.interval", "must be > 0"),
    ({"interval": "-1ms"}, "trace.interval", "negative"),
    ({"interval": "1"}, "trace.interval", "unit"),
    ({"interval": 0.001}, "trace.interval", "unit"),
    ({"flows": True}, "trace.interval", "missing required key"),
    ({"interval": "1ms", "queues": [0, 99]}, "trace.queues[1]", "0 to 17"),
    ({"interval": "1ms", "queues": "hosts"}, "trace.queues", '"switches"'),
    ({"interval": "1ms", "queues": [1, 1]}, "trace.queues[1]", "listed twice"),
])
def test_bad_trace_tables_are_refused_at_their_key(trace, path, says):
    doc = incast()
    doc["trace"] = trace
    problems = dcnsim.validate(doc)
    assert any(p.path == path and says in p.message for p in problems), [str(p) for p in problems]


def test_a_tiny_interval_on_a_big_fabric_is_refused_by_the_estimate():
    doc = {"name": "big", "stop": "10ms",
           "topology": {"kind": "fat_tree", "k": 16, "rate": "10Gbps", "delay": "1us", "buffer": "100KB"},
           "apps": [{"kind": "bulk", "src": 0, "dst": 1000, "size": "1MB"}],
           "trace": {"interval": "1ns", "queues": "all"}}
    problems = dcnsim.validate(doc)
    assert any(p.path == "trace.interval" and "trace samples" in p.message for p in problems), \
        [str(p) for p in problems]
    doc["trace"]["interval"] = "1ms"
    assert not dcnsim.validate(doc)


def fat_tree():
    return {"name": "trace-threads", "seed": 3, "stop": "1s",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
            "tcp": {"cc": "cubic"},
            "apps": [{"kind": "bulk", "src": s, "dst": 15 - s, "size": f"{200 + 37 * s}KB"} for s in range(6)],
            "trace": {"interval": "330us", "queues": "all"}}


@pytest.mark.parametrize("until", ["apps_done", "stop"])
def test_the_same_bits_on_one_two_and_four_threads(monkeypatch, until):
    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = fat_tree()
    doc["until"] = until
    if until == "stop":
        doc["stop"] = "5ms"
    runs = []
    for threads in (1, 2, 4, 1):
        d = copy.deepcopy(doc)
        d["threads"] = threads
        runs.append(dcnsim.run(d))
    assert [r.timing["threads"] for r in runs] == [1, 2, 4, 1]
    check_flow_laws(runs[0])
    for r in runs[1:]:
        for t in ("flow_ts", "queue_ts", "flows"):
            a, b = runs[0].tables.columns(t), r.tables.columns(t)
            for c in a:
                assert np.array_equal(a[c], b[c], equal_nan=a[c].dtype.kind == "f"), (t, c)


def test_written_tables_read_back_whole(tmp_path):
    r = dcnsim.run(incast({"cc": "cubic"}))
    for fmt in ("csv", "parquet"):
        out = r.write(tmp_path / fmt, format=fmt)
        back = dcnsim.read_result(out)
        for t in ("flow_ts", "queue_ts"):
            assert back.tables[t].equals(r.tables[t]), (fmt, t)
        assert math.isinf(back.flow_ts["ssthresh_bytes"].iloc[0])
