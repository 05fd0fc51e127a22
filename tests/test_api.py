"""dcnsim.run / validate / Result: the contract with the core, determinism,
and the laws every result must obey."""

from __future__ import annotations

import math

import dcnsim
import numpy as np
import pandas as pd
import pytest
from conftest import needs_core, pcap_records, small_incast, small_pa, small_rps
from dcnsim import ScenarioError
from dcnsim.result import SUMMARY_KEYS, TABLE_COLUMNS, TABLE_SCHEMA

pytestmark = needs_core


@pytest.fixture(scope="module")
def incast():
    return dcnsim.run(small_incast())


@pytest.fixture(scope="module")
def pa():
    return dcnsim.run(small_pa())


def test_tables_have_contract_columns(incast, pa):
    for r in (incast, pa):
        for name, cols in TABLE_COLUMNS.items():
            df = getattr(r, name)
            assert isinstance(df, pd.DataFrame)
            # the core's schema: its columns, in order, with its dtypes
            assert list(df.columns) == cols, name
            for c, dtype in TABLE_SCHEMA[name]:
                if dtype == "object":
                    assert df[c].dtype == object or pd.api.types.is_string_dtype(df[c]), (name, c)
                else:
                    assert df[c].dtype == np.dtype(dtype), (name, c, df[c].dtype)
        assert set(SUMMARY_KEYS) <= set(r.summary)
        # counts (and the seed) are integers; the wall time is not physics
        for k in ("seed", "events", "packet_hops", "packets_created", "packets_dropped"):
            assert type(r.summary[k]) is int, k
        assert isinstance(r.summary["sim_time_s"], float)
        assert "wall_s" not in r.summary and r.timing["wall_s"] > 0
    assert len(incast.blocks) > 0 and len(incast.queries) == 0
    assert len(pa.queries) > 0 and len(pa.blocks) == 0


def test_an_empty_table_has_a_full_ones_dtypes(incast):
    """A table a run did not make (no `[[failures]]`) has the columns and
    dtypes the same table has when made: text as pandas makes text (pandas
    3: `str`, not the empty `object` column it was)."""
    from dcnsim.result import _frame

    full = incast.queues
    empty = _frame("queues", None)
    assert len(empty) == 0 and list(empty.columns) == list(full.columns)
    assert [str(t) for t in empty.dtypes] == [str(t) for t in full.dtypes]


def test_result_records_scenario_and_seed(incast):
    assert incast.scenario == small_incast().to_dict()
    assert incast.summary["seed"] == 7
    r = dcnsim.run(small_incast(), seed=11)
    assert r.summary["seed"] == 11 and r.scenario["seed"] == 11
    big = 2**63 + 1  # not a float: the seed crosses the boundary exactly
    assert dcnsim.run(small_incast(), seed=big).summary["seed"] == big


def test_a_run_leaves_the_callers_document_as_it_was():
    # a dict with nested tables, lists and a tuple: the run sets its seed
    # and reads every part, the result keeps its own copy
    import copy

    doc = small_incast().to_dict()
    doc["apps"][0]["servers"] = (1, 2, 3, 4)  # a tuple: the run's copy has a list
    before = copy.deepcopy(doc)
    r = dcnsim.run(doc, seed=11)
    assert doc == before and doc["seed"] != 11
    r.scenario["topology"]["hosts"] = 10**6
    r.scenario["apps"].append({"kind": "bulk"})
    assert doc == before
    assert dcnsim.validate(doc) == [] and doc == before


def test_flow_laws(incast, pa):
    for r in (incast, pa):
        f = r.flows
        done = f[f["completed"].astype(bool)]
        assert len(done) > 0
        # a completed flow delivered exactly its application bytes, once
        assert (done["delivered_bytes"] == done["app_bytes"]).all()
        assert (done["received_bytes"] == done["app_bytes"]).all()
        # physics, not the formula that made the column: no transfer beats
        # serializing its bytes at the line rate plus one trip over two links
        rate = float(r.queues["rate_bps"].max())
        delay = float(r.scenario["topology"]["delay"].removesuffix("us")) * 1e-6
        assert (done["fct_s"] >= done["app_bytes"] * 8 / rate + 2 * delay).all()
        assert (done["end_s"] <= r.summary["sim_time_s"] + 1e-12).all()
        # unfinished flows have NaN end/fct
        assert f.loc[~f["completed"].astype(bool), "fct_s"].isna().all()
        # retransmitted bytes are part of what was sent; never more delivered than sent
        assert (f["bytes_sent"] >= f["delivered_bytes"]).all()
        assert (f["retransmits"] >= f["fast_retransmits"]).all()
        assert set(f["transport"]) <= {"tcp", "udp"}
        assert set(f["role"]) <= {"bulk", "request", "response", "cbr"}


def test_packet_conservation(incast, pa):
    for r in (incast, pa):
        s = r.summary
        # the arena's live packets against what the links themselves hold
        assert s["packets_in_flight"] == s["packets_on_links"] == r.queues["in_flight_pkts"].sum()
        assert s["packets_created"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_on_links"]
        assert s["packets_dropped"] == r.queues["dropped"].sum()
        assert r.queues["enqueued"].sum() == s["packet_hops"] + r.queues["in_flight_pkts"].sum()
        assert s["events"] > 0 and s["packet_hops"] > 0 and s["sim_time_s"] > 0


def test_blocks_and_queries_laws(incast, pa):
    b = incast.blocks
    assert list(b["block"]) == list(range(len(b)))
    assert (b["n_servers"] == 4).all()
    assert (b["bytes"] == 4 * 64 * 1024).all()
    # a block is done when the client's last response arrives: the last
    # block ends with the latest response flow (flows table, another path)
    resp = incast.flows[incast.flows["role"] == "response"]
    assert b["end_s"].iloc[-1] == pytest.approx(resp["end_s"].max(), abs=1e-12)
    # and no block beats its bytes at the client's 1 Gbps downlink
    assert (b["duration_s"] >= b["bytes"] * 8 / 1e9).all()
    # blocks are sequential: the next starts after the previous ended
    assert (b["start_s"].iloc[1:].to_numpy() >= b["end_s"].iloc[:-1].to_numpy()).all()
    # goodput below the 1 Gbps link rate
    assert (b["goodput_bps"] < 1e9).all()
    q = pa.queries
    assert (q["n_workers"] == 6).all()
    presp = pa.flows[pa.flows["role"] == "response"]
    assert q["end_s"].iloc[-1] == pytest.approx(presp["end_s"].max(), abs=1e-12)
    # six 10 KB responses share the aggregator's 1 Gbps downlink
    assert (q["qct_s"] >= 6 * 10 * 1024 * 8 / 1e9).all()
    assert (q["start_s"].iloc[1:].to_numpy() >= q["end_s"].iloc[:-1].to_numpy()).all()


def test_metrics_follow_tables(incast, pa):
    m = incast.metrics
    b = incast.blocks
    assert m["n_blocks"] == len(b)
    assert math.isclose(m["block_goodput_bps"], 8 * b["bytes"].sum() / b["duration_s"].sum())
    assert m["timeouts"] == incast.flows["timeouts"].sum()
    mp = pa.metrics
    assert math.isclose(mp["qct_mean_s"], pa.queries["qct_s"].mean())
    assert mp["qct_p50_s"] <= mp["qct_p99_s"] <= mp["qct_max_s"]


def test_same_seed_identical_tables():
    a, b = dcnsim.run(small_incast()), dcnsim.run(small_incast())
    for name in TABLE_COLUMNS:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))
    assert a.summary == b.summary  # physics only: nothing to leave out
    a, b = dcnsim.run(small_rps(3)), dcnsim.run(small_rps(3))
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.queues, b.queues)


def test_seed_argument_equals_seed_in_scenario():
    a = dcnsim.run(small_incast(seed=5))
    b = dcnsim.run(small_incast(seed=1), seed=5)
    pd.testing.assert_frame_equal(a.blocks, b.blocks)
    pd.testing.assert_frame_equal(a.flows, b.flows)


def test_different_seed_changes_jittered_run():
    a, b = dcnsim.run(small_incast(), seed=1), dcnsim.run(small_incast(), seed=2)
    assert not a.blocks[["start_s", "end_s"]].equals(b.blocks[["start_s", "end_s"]])


def test_different_seed_changes_rps_run():
    a, b = dcnsim.run(small_rps(1)), dcnsim.run(small_rps(2))
    assert not a.flows.equals(b.flows) or not a.queues.equals(b.queues)


def test_input_forms_agree(tmp_path, small_incast_path):
    import json

    from_file = dcnsim.run(small_incast_path)
    from_builder = dcnsim.run(small_incast())
    j = tmp_path / "s.json"
    j.write_text(json.dumps(small_incast().to_dict()))
    from_json = dcnsim.run(str(j))
    for r in (from_builder, from_json):
        pd.testing.assert_frame_equal(from_file.flows, r.flows)
        pd.testing.assert_frame_equal(from_file.blocks, r.blocks)


# ------------------------------------------------------------------ errors


FAT_TREE_K3 = {"kind": "fat_tree", "k": 3, "rate": "1Gbps", "delay": "10us", "buffer": "16KB"}


@pytest.mark.parametrize(
    "overrides, path",
    [
        ({"topology": FAT_TREE_K3}, "topology.k"),
        ({"topology.rate": "-1Gbps"}, "topology.rate"),
        ({"topology.delay": 50}, "topology.delay"),
        ({"topology.buffer": "32 furlongs"}, "topology.buffer"),
        ({"apps.0.servers": [1, 2, 99]}, "apps[0].servers"),
        ({"tcp.mss": -5}, "tcp.mss"),
        ({"stop": "soon"}, "stop"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_validate_names_the_field(overrides, path):
    doc = dcnsim.with_overrides(small_incast().to_dict(), overrides)
    errs = dcnsim.validate(doc)
    assert errs, f"{overrides} should be invalid"
    assert all(isinstance(e, str) and ": " in e for e in errs)
    assert any(e.startswith(path) for e in errs), errs


def test_unknown_keys_are_errors():
    doc = small_incast().to_dict()
    doc["bogus_top"] = 1
    doc["topology"]["bogus_topo"] = 2
    errs = dcnsim.validate(doc)
    assert any("bogus_top" in e for e in errs)
    assert any("bogus_topo" in e and e.startswith("topology") for e in errs)


def test_every_problem_reported_at_once():
    doc = small_incast().to_dict()
    del doc["topology"]
    doc["apps"][0]["sru"] = "lots"
    doc["tcp"]["rto_min"] = "-3ms"
    errs = dcnsim.validate(doc)
    assert len(errs) >= 3, errs
    for p in ("topology", "apps[0].sru", "tcp.rto_min"):
        assert any(e.startswith(p) for e in errs), (p, errs)


def test_run_raises_scenario_error_with_all_problems():
    doc = small_incast().to_dict()
    doc["apps"][0]["sru"] = "lots"
    doc["tcp"]["rto_min"] = "-3ms"
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(doc)
    assert isinstance(e.value, ValueError)
    assert e.value.errors == dcnsim.validate(doc)
    with pytest.raises(ScenarioError):
        dcnsim.run(small_incast(), seed=-1)


def test_core_raises_valueerror_on_invalid_json():
    from dcnsim import _core

    with pytest.raises(ValueError):
        _core.run('{"apps": []}')
    assert _core.validate("not json at all")
    assert isinstance(_core.version(), str) and _core.version()


def test_jain():
    assert dcnsim.jain([5, 5, 5, 5]) == 1.0
    assert math.isclose(dcnsim.jain([1, 0, 0, 0]), 0.25)
    assert math.isnan(dcnsim.jain([]))
    vals = [1.0, 2.0, 3.0]
    assert 1 / 3 <= dcnsim.jain(vals) <= 1
    assert math.isclose(dcnsim.jain(vals), dcnsim.jain([10 * v for v in vals]))  # scale-free
    # not numbers: said by the function, naming what it got (a string was
    # read a character at a time: "could not convert string to float: 'a'")
    with pytest.raises(TypeError, match=r"^jain: expected numbers \(a list, an array, a Series\), got str 'ab'$"):
        dcnsim.jain("ab")
    with pytest.raises(TypeError, match=r"^jain: value 1 is not a number: 'x'$"):
        dcnsim.jain([1.0, "x"])
    # a negative share: [-1, -1] came out 1.0, "fair", and [-1, 1] 0.0
    with pytest.raises(ValueError, match=r"^jain: value 0 is negative \(-1\)"):
        dcnsim.jain([-1, -1])


def test_normalize_names_the_columns_it_lacks():
    from dcnsim.analysis import normalize

    t = pd.DataFrame({"x": [1]})
    with pytest.raises(KeyError, match=r"normalize: stats: the table has no column 'mean_s'") as e:
        normalize(t, t)
    assert "fct_bins()" in str(e.value)


def test_python_and_core_problems_reported_together():
    import datetime

    doc = small_incast().to_dict()
    doc["apps"][0]["when"] = datetime.date(2024, 1, 1)  # TOML can produce dates; JSON cannot
    doc["topology"]["rate"] = float("nan")
    doc["tcp"]["rto_mn"] = "1ms"
    errs = dcnsim.validate(doc)
    assert any(e.startswith("apps[0].when:") for e in errs)
    assert any(e.startswith("tcp.rto_mn:") for e in errs)  # from the core, same pass
    assert [e for e in errs if e.startswith("topology.rate:")].__len__() == 1  # one report per path
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(doc)
    assert e.value.errors == errs


def test_pcaps_traces_are_whole_and_ordered(incast, tmp_path):
    assert sorted(incast.pcaps) == ["h0.pcap", "h1.pcap"]
    f = incast.flows
    for _host, data in incast.pcaps.items():
        _, recs = pcap_records(data)
        times = [t for t, _, _ in recs]
        assert times == sorted(times)
        assert times[-1] <= incast.summary["sim_time_s"] + 1e-9
    # h1 is a server: its trace holds every data segment it handed to its NIC
    _, recs = pcap_records(incast.pcaps["h1.pcap"])
    sent = f.loc[(f["src"] == 1) & (f["role"] == "response"), "segments_sent"].sum()
    assert sum(1 for _, _, orig in recs if orig > 200) == sent > 0  # data: 1 KB payloads; requests and ACKs are small
    incast.write(tmp_path)
    for name, data in incast.pcaps.items():
        assert (tmp_path / name).read_bytes() == data
    again = dcnsim.run(small_incast())
    assert again.pcaps == incast.pcaps  # deterministic to the byte


@needs_core
def test_conservation_checker_catches_violations():
    r = dcnsim.run(small_pa())
    assert r.conservation_problems() == []
    good = r.flows.copy()
    # the application handed a segment twice
    bad = good.copy()
    bad.loc[bad.index[0], "received_bytes"] += 1000
    r.tables["flows"] = bad
    assert any("application received" in p for p in r.conservation_problems())
    # a flow reported complete that its application never finished receiving
    bad = good.copy()
    bad.loc[bad.index[0], "messages_received"] -= 1
    r.tables["flows"] = bad
    assert any("completed with" in p for p in r.conservation_problems())
    r.tables["flows"] = good
    # a packet the links no longer hold but the arena still does
    q = r.queues.copy()
    r.tables["queues"] = q.assign(in_flight_pkts=q["in_flight_pkts"])
    r.summary["packets_on_links"] -= 1
    assert any("live in the arena" in p for p in r.conservation_problems())
    r.summary["packets_on_links"] += 1
    r.summary["packets_dropped"] += 1
    assert any(p.startswith("packets") for p in r.conservation_problems())


@needs_core
def test_conservation_checker_holds_the_trace_to_the_tables():
    """The trace is its own series: a delivered count that falls, a last
    sample that is not the flow's total, or a queue above its own
    high-water mark is named."""
    doc = small_pa()
    doc["trace"] = {"interval": "100us", "flows": True, "queues": "all"}
    r = dcnsim.run(doc)
    assert r.conservation_problems() == []
    good_ts, good_qs = r.flow_ts.copy(), r.queue_ts.copy()
    fid = int(good_ts["flow_id"].iloc[0])
    rows = good_ts.index[good_ts["flow_id"] == fid]
    bad = good_ts.copy()
    bad.loc[rows[-2], "delivered_bytes"] = bad.loc[rows[-1], "delivered_bytes"] + 1
    r.tables["flow_ts"] = bad
    assert any("falls between two samples" in p for p in r.conservation_problems())
    bad = good_ts.copy()
    bad.loc[rows[-1], "delivered_bytes"] += 1
    r.tables["flow_ts"] = bad
    assert any("the trace's last delivered_bytes" in p for p in r.conservation_problems())
    r.tables["flow_ts"] = good_ts
    qid = int(r.queues["queue_id"].iloc[0])
    bad = good_qs.copy()
    bad.loc[bad.index[bad["queue_id"] == qid][0], "bytes"] = int(r.queues["max_bytes"].iloc[0]) + 1
    r.tables["queue_ts"] = bad
    assert any("above its high-water mark" in p for p in r.conservation_problems())


@needs_core
@pytest.mark.parametrize("transport", ["ndp", "swift", "hpcc", "dcqcn", "timely"])
def test_conservation_checker_reads_every_reliable_transport(transport):
    """The byte laws read only rows whose transport was "tcp": an NDP,
    Swift, HPCC, DCQCN or TIMELY flow that received three times what it
    wrote passed (the rates audit of the nineteenth session)."""
    import warnings

    doc = {"stop": "20ms", "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us",
                                        "buffer": "1MB", "ecn_k": "100KB"},
           "tcp": {"transport": transport}, "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "100KB"}]}
    if transport == "dcqcn":
        doc["pfc"] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
    assert r.flows.transport.tolist() == [transport] and r.conservation_problems() == []
    bad = r.flows.copy()
    bad.loc[bad.index[0], "received_bytes"] *= 3
    r.tables["flows"] = bad
    assert any("application received" in p for p in r.conservation_problems()), transport


def test_request_timeouts_reported_apart():
    # A bulk flow keeps the aggregator's port full, so some workers' ACKs
    # of the query are dropped and the aggregator's request flows time out.
    sc = small_pa(queries=20, workers="1-40")
    sc["topology"]["hosts"] = 42
    sc["apps"].append({"kind": "bulk", "src": 41, "dst": 0, "size": "50MB"})
    r = dcnsim.run(sc)
    q, f = r.queries, r.flows
    by_role = f.groupby("role")["timeouts"].sum()
    assert q["request_timeouts"].sum() > 0
    assert (q["request_timeouts"] <= q["timeouts"]).all()
    # each share is bounded by its own flows' timeouts (an RTO that fires
    # after the last query ended belongs to no query), never the other's
    assert q["request_timeouts"].sum() <= by_role["request"]
    assert (q["timeouts"] - q["request_timeouts"]).sum() <= by_role["response"]
    assert r.metrics["query_request_timeouts_mean"] == pytest.approx(q["request_timeouts"].mean())


@needs_core
@pytest.mark.parametrize("persistent", [False, True])
def test_a_delayed_ack_of_a_request_leaves_with_the_answer(persistent):
    """A real stack's response carries the ACK of its request; a dcnsim
    worker answers on a flow of its own, and its delayed ACK held the
    one-segment request's ACK for the timer (200 ms here), so with a 1 ms
    RTO every request of a query longer than that was sent twice. On an
    idle path (two workers, nothing dropped) no request may time out, and
    each request flow sends one ACK per query."""
    sc = small_pa(queries=4, workers="1-2")
    # nothing dropped, at a switch or a NIC: no ACK is lost
    sc["topology"].update(buffer="10MB", nic_buffer="unlimited")
    pa = dict(sc["apps"][0], response="2MB")  # a query lasts ≈ 33 ms, 33 RTOs
    # one app's connections carry every query; or a new app, with new
    # connections, for each
    sc["apps"] = [pa] if persistent else [dict(pa, queries=1, start=f"{0.1 * i:g}s") for i in range(4)]
    sc["tcp"].update(delayed_ack=True, delayed_ack_timeout="200ms", delayed_ack_quickack=0)
    r = dcnsim.run(sc)
    q, f = r.queries, r.flows
    assert len(q) == 4 and (q["qct_s"] > 10e-3).all()
    assert r.queues["dropped"].sum() == 0
    assert q["request_timeouts"].sum() == 0
    req = f[f["role"] == "request"]
    assert req["timeouts"].sum() == 0 and req["retransmits"].sum() == 0
    # the request flows' receivers ACK each query's request once
    assert req["acks_sent"].sum() == 4 * 2


@needs_core
def test_a_flow_that_never_started_has_no_rate_and_no_place_in_jain():
    """A bulk flow scheduled after the stop had goodput 0 and counted as a
    starved flow in Jain's index (0.339 where the two that ran gave 0.509
    in the audit's run)."""
    doc = {"stop": "3ms", "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us",
                                       "buffer": "100pkt"},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "duration": "3ms"},
                    {"kind": "bulk", "src": 2, "dst": 0, "duration": "3ms"},
                    {"kind": "bulk", "src": 3, "dst": 0, "start": "5ms", "duration": "1ms"}]}
    with pytest.warns(dcnsim.DcnsimWarning):
        r = dcnsim.run(doc)
    late = r.flows[(r.flows["src"] == 3) & (r.flows["role"] != "ack")]
    assert len(late) == 1 and math.isnan(late["goodput_bps"].iloc[0]) and math.isnan(late["start_s"].iloc[0])
    # nor an RTT: it had no handshake (its SRTT was the seed one would draw,
    # reported as if measured), where the flows that ran measured theirs
    assert math.isnan(late["srtt_s"].iloc[0])
    assert (r.flows[r.flows["src"].isin([1, 2])]["srtt_s"] > 0).all()


def test_a_flow_that_never_started_leaves_the_runs_goodput_alone():
    """metrics' goodput divides the bytes by the span from the first start
    to the last end, an unfinished flow counting to the end of the run; a
    flow that never started counted so too, stretching a 0.9 ms transfer
    over a 20 ms run (41 Mbps on a 1 Gbps link that carried it at ≈ 880)."""
    doc = {"stop": "20ms", "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us",
                                        "buffer": "100KB"},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "100KB"},
                    {"kind": "bulk", "src": 2, "dst": 0, "start": "30ms", "size": "100KB"}]}
    with pytest.warns(dcnsim.DcnsimWarning):
        r = dcnsim.run(doc)
    ran = r.flows[r.flows["src"] == 1]
    assert ran["completed"].all() and r.flows["start_s"].isna().sum() == 1
    span = ran["end_s"].max() - ran["start_s"].min()
    assert r.metrics["goodput_bps"] == pytest.approx(8 * ran["delivered_bytes"].sum() / span, rel=1e-12)
    assert 0.5e9 < r.metrics["goodput_bps"] < 1e9  # most of the link, never above it


def test_a_flows_trace_has_no_rtt_before_the_flow_starts():
    """flow_ts sampled a flow before its start with the SRTT seed of a
    handshake it had not had yet, as if measured."""
    doc = {"stop": "4ms", "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us",
                                       "buffer": "100pkt"},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "duration": "4ms"},
                    {"kind": "bulk", "src": 2, "dst": 0, "start": "2.2ms", "duration": "1ms"}],
           "trace": {"interval": "500us"}}
    r = dcnsim.run(doc)
    ts = r.tables["flow_ts"]
    start = r.flows.set_index("flow_id")["start_s"]
    before = ts[ts["time_s"] < ts["flow_id"].map(start)]
    after = ts[ts["time_s"] > ts["flow_id"].map(start)]
    assert len(before) and before["srtt_s"].isna().all(), before
    assert len(after) and (after["srtt_s"] > 0).all(), after
    ran = r.flows[r.flows["src"].isin([1, 2])]["goodput_bps"]
    assert r.metrics["jain"] == pytest.approx(dcnsim.jain(ran))


def test_the_public_submodules_are_attributes_after_a_plain_import():
    """The docs call `dcnsim.models.enqueue_probability(...)`,
    `dcnsim.units.parse_time(...)`, `dcnsim.sweep.SweepLabelError`: after a
    plain `import dcnsim` each is there (imported on first use, so
    `import dcnsim` itself stays light), and a misspelt one is still an
    AttributeError."""
    import subprocess
    import sys

    code = ("import sys, dcnsim\n"
            "assert 'dcnsim.models' not in sys.modules and 'dcnsim.tuning' not in sys.modules\n"
            "assert dcnsim.models.enqueue_probability(1448, 10).p_x2 == 0.0\n"
            "assert dcnsim.units.parse_time('100ms') == 0.1\n"
            "assert dcnsim.sweep.SweepLabelError and dcnsim.tuning.Objective and dcnsim.analysis.fct_bins\n"
            "assert {'models', 'units', 'sweep', 'plots'} <= set(dir(dcnsim))\n"
            "try:\n    dcnsim.modles\nexcept AttributeError as e:\n    assert 'modles' in str(e)\n"
            "else:\n    raise SystemExit('a misspelt name resolved')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
