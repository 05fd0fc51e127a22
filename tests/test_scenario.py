"""Scenario builders, loading and overrides."""

from __future__ import annotations

import json
import math

import dcnsim
import pytest
from conftest import SCENARIOS, needs_core, small_incast
from dcnsim import ScenarioError
from dcnsim.scenario import as_dict, load_scenario, parse_path, to_json, with_overrides

TOPOLOGIES = {
    "star": dcnsim.Star(hosts=6, rate="1Gbps", delay="25us", buffer="32KB"),
    "two_tier": dcnsim.TwoTier(
        racks=2, hosts_per_rack=3, host_rate="1Gbps", core_rate="10Gbps", delay="25us",
        tor_buffer="100KB", agg_buffer="1MB",
    ),
    "fat_tree": dcnsim.FatTree(k=4, rate="1Gbps", delay="25us", buffer="100pkt"),
    "leaf_spine": dcnsim.LeafSpine(
        leaves=2, spines=2, hosts_per_leaf=3, host_rate="1Gbps", fabric_rate="10Gbps", delay="10us", buffer="64KB",
    ),
    "custom": dcnsim.Custom(
        nodes=[("h0", "host"), ("h1", "host"), dcnsim.Node("h2"), {"name": "h3", "kind": "host"},
               dcnsim.Node("h4"), dcnsim.Node("h5"), dcnsim.Node("s0", "switch")],
        links=[dcnsim.Link(f"h{i}", "s0", rate="1Gbps", delay="25us") for i in range(6)],
        buffer="32KB",
    ),
}

APPS = {
    "bulk": dcnsim.Bulk(src=1, dst=0, size="100KB"),
    "bulk_duration": dcnsim.Bulk(src=2, dst=0, duration="5ms", start="1ms", tcp=dcnsim.Tcp(cc="newreno")),
    "partition_aggregate": dcnsim.PartitionAggregate(aggregator=0, workers=range(1, 6), response="10KB", queries=2),
    "sync_reads": dcnsim.SyncReads(client=0, servers="1-5", sru="32KB", blocks=2, jitter="5us"),
    "udp_cbr": dcnsim.UdpCbr(src=3, dst=4, rate="100Mbps", payload=1000, stop="5ms"),
}


def build(topology, app) -> dcnsim.Scenario:
    return dcnsim.Scenario(topology=topology, apps=[app], stop="20ms", name="t")


# ---------------------------------------------------------------- to_dict


def test_to_dict_omits_none_and_emits_kind():
    d = dcnsim.Star(hosts=3, rate="1Gbps").to_dict()
    assert d == {"kind": "star", "hosts": 3, "rate": "1Gbps"}
    assert dcnsim.Tcp().to_dict() == {}
    assert dcnsim.Tcp(mss=1024, sack=False).to_dict() == {"mss": 1024, "sack": False}


def test_scenario_to_dict_shape():
    d = build(TOPOLOGIES["star"], APPS["partition_aggregate"]).to_dict()
    assert d["routing"] == {"mode": "ecmp"}
    assert d["apps"][0]["workers"] == [1, 2, 3, 4, 5]  # range -> list
    assert d["apps"][0]["kind"] == "partition_aggregate"
    assert "tcp" not in d and "switch_delay" not in d
    json.dumps(d)  # plain JSON-able data only


@pytest.mark.parametrize("key", [*TOPOLOGIES, *APPS])
def test_a_builders_repr_shows_what_it_sets_and_builds_it_again(key):
    """A builder sets a few of its fields (Tcp has about 130): its repr
    names those, in a notebook or an error, and is Python for the same
    builder."""
    sc = build(TOPOLOGIES.get(key, TOPOLOGIES["star"]), APPS.get(key, APPS["bulk_duration"]))
    sc.tcp = dcnsim.Tcp(mss=1000, sack=False, extra={"future_knob": 3})
    text = repr(sc)
    assert "None" not in text, text
    assert "Tcp(mss=1000, sack=False, extra={'future_knob': 3})" in text
    again = eval(text, {**vars(dcnsim), "range": range})
    assert again == sc and again.to_dict() == sc.to_dict()
    assert repr(dcnsim.Tcp()) == "Tcp()"


def test_a_builders_repr_keeps_a_none_given_for_a_field_with_a_default():
    """`Scenario(seed=None, stop=None)` leaves the seed and stop to the
    core; a repr that left out every None field evaluated to `seed=1,
    stop='10s'`, another scenario. A field is shown when it is not its
    default (a default left as is is not: `routing='ecmp'` was shown in
    every Scenario's repr)."""
    sc = dcnsim.Scenario(topology=TOPOLOGIES["star"], apps=APPS["bulk_duration"], seed=None, stop=None,
                         tcp=dcnsim.Tcp(extra={}))
    text = repr(sc)
    again = eval(text, {**vars(dcnsim), "range": range})
    assert again == sc and again.to_dict() == sc.to_dict(), text
    assert "seed=None" in text and "stop=None" in text and "routing=" not in text and "name=" not in text
    assert repr(dcnsim.Node("h0")) == "Node(name='h0')" and repr(dcnsim.Node("s", "switch")) == "Node(name='s', kind='switch')"


def test_extra_keys_pass_through():
    d = dcnsim.Tcp(mss=1000, extra={"future_knob": 3}).to_dict()
    assert d == {"mss": 1000, "future_knob": 3}


def test_builder_equals_file(small_incast_path):
    assert small_incast().to_dict() == load_scenario(small_incast_path)


@needs_core
@pytest.mark.parametrize("topo", sorted(TOPOLOGIES))
def test_every_topology_builder_validates(topo):
    s = build(TOPOLOGIES[topo], APPS["bulk"])
    assert dcnsim.validate(s) == []
    assert dcnsim.validate(s.to_dict()) == []


@needs_core
@pytest.mark.parametrize("app", sorted(APPS))
def test_every_app_builder_validates(app):
    s = build(TOPOLOGIES["star"], APPS[app])
    assert dcnsim.validate(s) == []


@needs_core
def test_full_tcp_table_validates():
    tcp = dcnsim.Tcp(
        cc="newreno", segment="fixed", mss=1448, header=40, init_cwnd=10, rwnd="1000pkt", rto_min="10ms",
        rto_init="1s", rto_max="60s", granularity="1ms", max_backoff=64, dupack_threshold=3, delayed_ack=True,
        delayed_ack_timeout="40ms", delayed_ack_segments=2, sack=True, ecn=True, handshake_rtt_sample=True,
        sack_rescue=True, limited_transmit=True, timestamps=False,
    )
    s = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="25us", buffer="32KB", ecn_k="20pkt"),
        apps=[dcnsim.Bulk(src=1, dst=0, size=100_000, tcp=dcnsim.Tcp(rto_min="200us"))],
        tcp=tcp, switch_delay="1us", host_jitter="2us", l2_overhead=38, routing="single", stop="10ms",
    )
    assert dcnsim.validate(s) == []


@needs_core
def test_kulkarni_tcp_keys_validate():
    tcp = dcnsim.Tcp(
        segment="dsr", mss=1024, header_compression=True, dsr_mss="50B", dsr_cwnd=50,
        probretx_p=0.001, probretx_period="20us", probretx_target="highest",
    )
    assert tcp.to_dict()["probretx_p"] == 0.001
    s = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="25us", buffer="32KB"),
        apps=[dcnsim.SyncReads(client=0, servers="1-2", blocks=2, tcp=dcnsim.Tcp(probretx_target="lowest"))],
        tcp=tcp, stop="1s",
    )
    assert dcnsim.validate(s) == []
    bad = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="25us", buffer="32KB"),
        apps=[dcnsim.SyncReads(client=0, servers="1-2", blocks=2)],
        tcp=dcnsim.Tcp(probretx_p=2, dsr_cwnd=1), stop="1s",
    )
    errs = dcnsim.validate(bad)
    assert any(e.startswith("tcp.probretx_p:") for e in errs)
    assert any(e.startswith("tcp.dsr_cwnd:") for e in errs)


@needs_core
def test_tcprand_tcp_keys_validate_and_run():
    tcp = dcnsim.Tcp(
        cc="cubic", segment="tcprand", tcprand_mode="adaptive", tcprand_preset="conservative",
        tcprand_theta="100B", tcprand_sigma2=0.2, tcprand_mu=1.0, tcprand_v_tau=math.inf,
        tcprand_v_omega=0,
    )
    d = tcp.to_dict()
    assert d["tcprand_v_tau"] == "inf" and d["tcprand_v_omega"] == 0
    s = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="25us", buffer="20pkt"),
        apps=[dcnsim.Bulk(src=1, dst=0, size="2MB"),
              dcnsim.Bulk(src=2, dst=0, size="2MB", tcp=dcnsim.Tcp(tcprand_mode="static", tcprand_rmin=1))],
        tcp=tcp, stop="1s",
    )
    assert dcnsim.validate(s) == []
    r = dcnsim.run(s)
    assert list(r.flows["segment"]) == ["tcprand", "tcprand"]
    # Static rMin = 1 B: payloads ~ U[1, 1460], mean ≈ 730 B.
    f = r.flows.iloc[1]
    assert 600 < f["bytes_sent"] / f["segments_sent"] < 860
    bad = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="25us", buffer="32KB"),
        apps=[dcnsim.Bulk(src=1, dst=0, size="1MB")],
        tcp=dcnsim.Tcp(segment="tcprand", tcprand_v_tau=0, tcprand_preset="bold"), stop="1s",
    )
    errs = dcnsim.validate(bad)
    assert any(e.startswith("tcp.tcprand_v_tau:") for e in errs)
    assert any(e.startswith("tcp.tcprand_preset:") for e in errs)


@needs_core
@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.name)
def test_shipped_scenarios_validate(path):
    assert dcnsim.validate(path) == []


# ---------------------------------------------------------------- loading


def test_load_sets_name_from_stem(tmp_path):
    p = tmp_path / "my_exp.toml"
    p.write_text('stop = "1s"\n')
    assert load_scenario(p)["name"] == "my_exp"
    p.write_text('name = "x"\n')
    assert load_scenario(p)["name"] == "x"


def test_load_json(tmp_path, small_incast_path):
    doc = load_scenario(small_incast_path)
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    assert load_scenario(p) == doc


def test_load_errors_name_the_problem(tmp_path):
    with pytest.raises(ScenarioError) as e:
        load_scenario(tmp_path / "missing.toml")
    assert e.value.errors[0].startswith("file:")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n\n[topology\nkind = "star"\n')
    with pytest.raises(ScenarioError) as e:
        load_scenario(bad)
    assert e.value.errors[0].startswith("syntax:") and "line 3" in e.value.errors[0]
    badj = tmp_path / "bad.json"
    badj.write_text('{\n "a": 1,\n}')
    with pytest.raises(ScenarioError) as e:
        load_scenario(badj)
    assert "line 3" in e.value.errors[0]


@pytest.mark.parametrize("line, key, quoted, table", [
    ("rate = 10Gbps", "rate", '"10Gbps"', "topology"),
    ("delay = 1.5us  # a comment", "delay", '"1.5us"', "topology"),
    ("buffer = 100 KB", "buffer", '"100 KB"', "topology"),
])
def test_an_unquoted_unit_is_named_with_its_key_and_the_quoted_spelling(tmp_path, line, key, quoted, table):
    # TOML reads `rate = 10Gbps` as a number followed by junk: its own
    # message names neither the key nor the cure
    bad = tmp_path / "bad.toml"
    bad.write_text(f'name = "x"\nstop = "1s"\n[{table}]\nkind = "star"\n{line}\n')
    with pytest.raises(ScenarioError) as e:
        load_scenario(bad)
    msg = e.value.errors[0]
    assert msg.startswith("syntax:") and "line 5" in msg, msg
    assert msg.endswith(f"a value with a unit is a string in TOML: {key} = {quoted} (in [{table}])"), msg
    # top level: no table named; another syntax error gets no such hint
    bad.write_text("stop = 1s\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(bad)
    assert e.value.errors[0].endswith('stop = "1s"'), e.value.errors[0]
    bad.write_text('stop = "1s\n')
    with pytest.raises(ScenarioError) as e:
        load_scenario(bad)
    assert "a value with a unit" not in e.value.errors[0]


def test_python_side_json_problems_have_paths():
    with pytest.raises(ScenarioError) as e:
        to_json({"topology": {"rate": float("nan")}, "apps": [{"x": b"raw"}], 3: 1})
    errs = e.value.errors
    assert any(x.startswith("topology.rate:") for x in errs)
    assert any(x.startswith("apps[0].x:") for x in errs)
    assert any("key 3" in x for x in errs)
    with pytest.raises(ScenarioError):
        as_dict(42)


def test_scenario_error_pickles():
    import pickle

    e = pickle.loads(pickle.dumps(ScenarioError(["a: b", "c: d"])))
    assert e.errors == ["a: b", "c: d"] and isinstance(e, ValueError)


# ---------------------------------------------------------------- overrides


def test_parse_path_forms():
    assert parse_path("apps.0.servers") == ["apps", 0, "servers"]
    assert parse_path("apps[0].servers") == ["apps", 0, "servers"]
    assert parse_path("topology.buffer") == ["topology", "buffer"]
    with pytest.raises(ScenarioError):
        parse_path("a..b")


def test_with_overrides_sets_and_copies():
    doc = small_incast().to_dict()
    new = with_overrides(doc, {"topology.buffer": "64KB", "apps.0.servers": "1-2", "tcp.sack": True, "routing.mode": "rps"})
    assert new["topology"]["buffer"] == "64KB"
    assert new["apps"][0]["servers"] == "1-2"
    assert new["tcp"]["sack"] is True
    assert new["routing"] == {"mode": "rps"}  # created on the way
    assert doc["topology"]["buffer"] == "16KB" and "routing" not in doc  # original untouched
    new["apps"][0]["blocks"] = 99
    assert doc["apps"][0]["blocks"] == 3  # deep copy


def test_with_overrides_none_deletes_and_builders_convert():
    doc = small_incast().to_dict()
    new = with_overrides(doc, {"apps[0].jitter": None, "tcp": dcnsim.Tcp(mss=512)})
    assert "jitter" not in new["apps"][0]
    assert new["tcp"] == {"mss": 512}


@pytest.mark.parametrize("overrides, path, says", [
    ({"tcp.cc": "cubic", "tcp": {}}, "tcp", "overlaps 'tcp.cc': 'tcp' replaces the whole table 'tcp.cc' sets a key of"),
    ({"tcp": {"cc": "dctcp"}, "tcp.cc": "cubic"}, "tcp.cc",
     "overlaps 'tcp': 'tcp' replaces the whole table 'tcp.cc' sets a key of"),
    ({"apps[0].servers": "1-2", "apps.0.servers": "1-3"}, "apps.0.servers",
     "names the field 'apps[0].servers' names too"),
])
def test_with_overrides_refuses_paths_that_undo_each_other(overrides, path, says):
    """Whichever came last undid the other (the key dropped with its table,
    or the table's own value replaced) without a word; `dcnsim run --set`
    refuses the same pairs."""
    doc = small_incast().to_dict()
    with pytest.raises(ScenarioError) as e:
        with_overrides(doc, overrides)
    assert [p.path for p in e.value.errors] == [path] and says in e.value.errors[0].message, e.value.errors
    # a table's keys side by side, and a key beside a table it is not in, are one setting each
    new = with_overrides(doc, {"tcp.cc": "cubic", "tcp.mss": 1000, "topology": {**doc["topology"], "buffer": "1MB"}})
    assert new["tcp"]["cc"] == "cubic" and new["tcp"]["mss"] == 1000 and new["topology"]["buffer"] == "1MB"


def test_with_overrides_reports_bad_paths():
    doc = small_incast().to_dict()
    with pytest.raises(ScenarioError) as e:
        with_overrides(doc, {"apps.5.servers": "1-2", "name.x": 1})
    assert len(e.value.errors) == 2
    assert e.value.errors[0].startswith("apps.5.servers:")


@needs_core
def test_loss_recovery_options_run_end_to_end_and_are_checked():
    """sack_rescue, limited_transmit and timestamps = false run from a
    scenario, obey conservation (checked by conftest), are deterministic,
    and a bad value names the field."""
    def incast(**tcp):
        return {
            "name": "lr", "stop": "1s",
            "topology": {"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "20us", "buffer": "24KB"},
            "tcp": {"mss": 1024, "rto_min": "1ms", "sack": True, **tcp},
            "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "32KB", "blocks": 3}],
        }
    opts = {"sack_rescue": True, "limited_transmit": True, "timestamps": False}
    a, b = dcnsim.run(incast(**opts)), dcnsim.run(incast(**opts))
    assert a.flows.equals(b.flows)
    assert a.flows["completed"].all() and a.flows["drops"].sum() > 0
    base = dcnsim.run(incast())
    assert not a.flows.equals(base.flows)  # the options act
    for key in opts:
        with pytest.raises(dcnsim.ScenarioError, match=f"tcp.{key}"):
            dcnsim.run(incast(**{key: "yes"}))


@needs_core
def test_sync_reads_spacing_sends_request_i_at_i_spacings():
    """`spacing`: request i of a block (in the order of `servers`) leaves i
    spacings after the block starts — the first block starts at 0, so the
    request flows open at 0, s, 2s — and a block lasts at least (n − 1)
    spacings; 0 (the default) sends them at once. A bad value names the
    field."""
    def run(spacing):
        sc = dcnsim.Scenario(
            topology=dcnsim.Star(hosts=4, rate="1Gbps", delay="10us", buffer="100pkt"), stop="1s", name="t",
            apps=[dcnsim.SyncReads(client=0, servers="1-3", sru="10KB", blocks=2, spacing=spacing)])
        return dcnsim.run(sc)
    spaced = run("1ms")
    flows = spaced.tables["flows"]
    req = flows[flows["role"] == "request"].sort_values("dst")
    assert [round(t, 9) for t in req["start_s"]] == [0.0, 0.001, 0.002]
    assert (spaced.tables["blocks"]["duration_s"] >= 0.002).all()
    at_once = run(None)
    flows = at_once.tables["flows"]
    assert (flows[flows["role"] == "request"]["start_s"] == 0.0).all()
    assert (at_once.tables["blocks"]["duration_s"] < 0.002).all()
    with pytest.raises(ScenarioError, match="spacing"):
        run("-1ms")


# ---------------------------------------------------------------- the JSON text of a document

_SCALARS = [0, -3, 2**70, 2**1100, 1.5, float("nan"), float("inf"), True, None, "16KB", "é µs", "\ud800", b"x"]


def _documents():
    from collections import OrderedDict
    from types import MappingProxyType

    from hypothesis import strategies as st

    keys = st.sampled_from(["a", "rate", "é", "\udc00", 3, ("t",)])
    leaves = st.sampled_from(_SCALARS) | st.integers() | st.floats() | st.text(max_size=4)
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=4)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(OrderedDict)
        | st.dictionaries(st.just("m"), inner, max_size=1).map(MappingProxyType),
        max_leaves=20,
    )


def test_json_text_is_sanitize_then_dumps():
    """The fast path (a plain document written as it is) gives the text and
    the problems `sanitize` then `json.dumps` give, for plain documents,
    documents with values JSON cannot carry, subclasses and Mappings."""
    from dcnsim._document import MAX_DEPTH, json_text, sanitize
    from hypothesis import given, settings

    def reference(doc):
        clean, errors = sanitize(doc)
        return json.dumps(clean, allow_nan=False, separators=(",", ":")), errors

    @settings(max_examples=400, deadline=None)
    @given(_documents())
    def check(doc):
        assert json_text(doc) == reference(doc)

    check()
    # nesting at and past the limit, and a document that contains itself
    deep: list = []
    cur = deep
    for _ in range(MAX_DEPTH + 2):
        cur.append([])
        cur = cur[0]
    shallow = {"a": [[[1]]]}
    loop: dict = {"a": 1}
    loop["self"] = loop
    for doc in (deep, shallow, loop, small_incast().to_dict()):
        assert json_text(doc) == reference(doc)
    assert json_text(small_incast().to_dict())[1] == []  # the plain path: nothing to report


def test_with_overrides_takes_what_run_takes(tmp_path):
    """A path and a builder, as `run`, `validate` and `grid` take them (a
    Scenario gave "'Scenario' object is not iterable")."""
    sc = small_incast()
    want = with_overrides(sc.to_dict(), {"topology.buffer": "64KB"})
    assert with_overrides(sc, {"topology.buffer": "64KB"}) == want
    f = tmp_path / "s.json"
    f.write_text(json.dumps(sc.to_dict()))
    assert with_overrides(f, {"topology.buffer": "64KB"}) == want
    assert with_overrides(str(f), {"topology.buffer": "64KB"}) == want
    with pytest.raises(ScenarioError, match="expected a path, a dict or a dcnsim.Scenario, got int"):
        with_overrides(3, {})


@needs_core
def test_numpy_scalars_are_their_python_values():
    """An axis from np.arange, a value read from a DataFrame: np.int64 and
    np.bool_ are the int and bool they hold (they were 'unsupported value
    of type int64' and, for a boolean field, '... of type bool')."""
    np = pytest.importorskip("numpy")
    plain = with_overrides(small_incast(), {"apps.0.blocks": 2, "tcp.sack": True})
    numpy = with_overrides(small_incast(), {"apps.0.blocks": np.int64(2), "tcp.sack": np.bool_(True)})
    assert dcnsim.validate(numpy) == []
    a, b = dcnsim.run(plain), dcnsim.run(numpy)
    assert a.flows.equals(b.flows) and a.summary["events"] == b.summary["events"]
    odd = with_overrides(small_incast(), {"seed": np.datetime64("2020-01-01")})
    [p] = dcnsim.validate(odd)
    assert p.path == "seed" and p.message.startswith("2020-01-01 is a date, which no field takes")


def test_an_integer_beyond_64_bits_is_quoted_as_given():
    """JSON text would hand the core a float, and its message quoted the
    float (1.8446744073709552e+19), not the number the user wrote."""
    for big in (2**64, -(2**63) - 1, 10**30):
        doc = with_overrides(small_incast(), {"seed": big})
        assert [str(p) for p in dcnsim.validate(doc)] == [
            f"seed: integer {big} is out of range (no field takes one beyond 64 bits)"]
    for edge in (2**64 - 1, -(2**63)):
        doc = with_overrides(small_incast(), {"apps.0.blocks": edge})
        assert not any("beyond 64 bits" in str(p) for p in dcnsim.validate(doc))


@needs_core
def test_custom_links_as_tuples_or_lists_carry_rate_and_delay():
    """A custom link has no rate or delay but its own, so the positional
    form names them: (a, b, rate, delay); nodes (name, kind); lists as
    tuples. The dict form runs the same network."""
    from dcnsim.scenario import Custom

    def star(nodes, links):
        topo = Custom(nodes=nodes, links=links, buffer="64KB")
        return dcnsim.Scenario(topology=topo, apps=[dcnsim.Bulk(src=1, dst=0, size="100KB")], stop="1s")

    dicts = star([{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}, {"name": "s", "kind": "switch"}],
                 [{"a": "h0", "b": "s", "rate": "1Gbps", "delay": "10us"},
                  {"a": "h1", "b": "s", "rate": "1Gbps", "delay": "10us"}])
    tuples = star([("h0", "host"), ["h1", "host"], ("s", "switch")],
                  [("h0", "s", "1Gbps", "10us"), ["h1", "s", "1Gbps", "10us"]])
    assert tuples.to_dict() == dicts.to_dict()
    assert dcnsim.run(tuples).flows.equals(dcnsim.run(dicts).flows)
    pairs = star([("h0", "host"), ("h1", "host"), ("s", "switch")], [("h0", "s"), ("h1", "s")])
    assert "topology.links[0].rate: missing required key" in [str(p) for p in dcnsim.validate(pairs)]
