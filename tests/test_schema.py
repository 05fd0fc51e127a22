"""The scenario schema (crates/dcnsim/src/scenario/schema.rs) and what is derived
from it: the docs' key tables and the Python builders must not drift."""

from __future__ import annotations

import json
import subprocess
import sys

import dcnsim
from dcnsim import _core, schema_docs


def test_schema_is_a_json_schema_document():
    s = json.loads(_core.schema())
    assert s["$schema"].startswith("https://json-schema.org/")
    assert s["type"] == "object" and s["additionalProperties"] is False
    assert s["required"] == ["topology", "apps"]
    assert s["properties"]["tcp"]["$ref"] == "#/$defs/TcpSection"
    for name in ("TcpSection", "RoutingSection", "PcapSection", "TraceSection", "LimitsSection",
                 "StarTopology", "CustomTopology", "NodeSection", "LinkSection", "BulkApp", "PoissonApp"):
        d = s["$defs"][name]
        assert d["type"] == "object" and d["additionalProperties"] is False, name
    # Every key documents its type, default and meaning.
    for table in (s, *(d for d in s["$defs"].values() if "properties" in d)):
        for key, prop in table["properties"].items():
            full = {**s["$defs"].get(prop.get("$ref", "#/$defs/").split("/")[-1], {}), **prop}
            assert full.get("title") and full.get("x-default") and full.get("description"), key


def test_every_schema_key_is_accepted_and_no_other():
    # The parser and the schema are the same declaration: each key the
    # schema lists is known to the parser (a bad value is reported as a bad
    # value, not as an unknown key), and a key it does not list is unknown.
    s = schema_docs.load_schema()
    base = {
        "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "10pkt"},
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": 1000}],
    }
    sections = {"tcp": "TcpSection", "routing": "RoutingSection", "limits": "LimitsSection", "trace": "TraceSection"}
    for section, definition in sections.items():
        for key in s["$defs"][definition]["properties"]:
            problems = dcnsim.validate({**base, section: {key: [[]]}})
            assert any(p.startswith((f"{section}.{key}: ", f"{section}.{key}[")) for p in problems), (
                section,
                key,
                problems,
            )
            assert not any("unknown key" in p for p in problems), (section, key, problems)
        assert dcnsim.validate({**base, section: {"no_such_key": 1, **({"interval": "1ms"} if section == "trace" else {})}}) == [
            f"{section}.no_such_key: unknown key"
        ]
    for key in ("name", "seed", "stop", "l2_overhead", "switch_delay", "host_jitter", "pcap", "trace", "routing", "tcp", "limits"):
        problems = dcnsim.validate({**base, key: [[]]})
        assert any(p.startswith(f"{key}: ") or p.startswith(f"{key}.") for p in problems), (key, problems)
        assert not any("unknown key" in p for p in problems), (key, problems)
    assert dcnsim.validate({**base, "stpo": "1s"}) == ["stpo: unknown key (did you mean 'stop'?)"]
    # Topologies: one struct per kind, dispatched on `kind`.
    topologies = [a["$ref"].split("/")[-1] for a in s["$defs"]["Topology"]["anyOf"]]
    assert [s["$defs"][a]["properties"]["kind"]["const"] for a in topologies] == [
        "star", "two_tier", "fat_tree", "leaf_spine", "custom"
    ]
    for definition in topologies:
        props = s["$defs"][definition]["properties"]
        kind = props["kind"]["const"]
        for key in props:
            if key == "kind":
                continue
            # (a custom topology without nodes checks nothing further)
            nodes = {"nodes": []} if kind == "custom" else {}
            problems = dcnsim.validate({**base, "topology": {"kind": kind, **nodes, key: [[]]}})
            assert any(p.startswith((f"topology.{key}: ", f"topology.{key}[")) for p in problems), (kind, key, problems)
            assert not any("unknown key" in p for p in problems), (kind, key, problems)
        problems = dcnsim.validate({**base, "topology": {"kind": kind, "no_such_key": 1}})
        assert f"topology.no_such_key: unknown key for topology kind '{kind}'" in problems, problems
    for item, definition in (("nodes", "NodeSection"), ("links", "LinkSection")):
        for key in s["$defs"][definition]["properties"]:
            topology = {"kind": "custom", "nodes": [], "links": [], item: [{key: [[]]}]}
            problems = dcnsim.validate({**base, "topology": topology})
            assert any(p.startswith(f"topology.{item}[0].{key}: ") for p in problems), (item, key, problems)
            assert not any("unknown key" in p for p in problems), (item, key, problems)
    # Apps: one struct per kind, dispatched on `kind`.
    apps = [a["$ref"].split("/")[-1] for a in s["$defs"]["App"]["anyOf"]]
    assert [s["$defs"][a]["properties"]["kind"]["const"] for a in apps] == [
        "bulk", "partition_aggregate", "sync_reads", "udp_cbr", "poisson"
    ]
    for definition in apps:
        props = s["$defs"][definition]["properties"]
        kind = props["kind"]["const"]
        for key in props:
            if key == "kind":
                continue
            problems = dcnsim.validate({**base, "apps": [{"kind": kind, key: [[]]}]})
            assert any(p.startswith((f"apps[0].{key}: ", f"apps[0].{key}[")) for p in problems), (kind, key, problems)
            assert not any("unknown key" in p for p in problems), (kind, key, problems)
        problems = dcnsim.validate({**base, "apps": [{"kind": kind, "no_such_key": 1}]})
        assert f"apps[0].no_such_key: unknown key for app kind '{kind}'" in problems, problems


def test_docs_key_tables_are_generated_from_the_schema():
    text = schema_docs.DOCS.read_text(encoding="utf-8")
    assert schema_docs.render(text, schema_docs.load_schema()) == text, (
        "docs/scenario.md is stale: run `python -m dcnsim.schema_docs --write`"
    )


def test_builders_match_the_schema():
    assert schema_docs.builder_problems(schema_docs.load_schema()) == []


def test_check_catches_drift(tmp_path):
    doc = tmp_path / "scenario.md"
    text = schema_docs.DOCS.read_text(encoding="utf-8")
    doc.write_text(text.replace("| `mss` |", "| `mss_old` |"), encoding="utf-8")
    assert schema_docs.main(["--check", "--docs", str(doc)]) == 1
    assert schema_docs.main(["--write", "--docs", str(doc)]) == 0
    assert doc.read_text(encoding="utf-8") == text
    assert schema_docs.main(["--check", "--docs", str(doc)]) == 0


def test_cli_prints_the_schema():
    out = subprocess.run(
        [sys.executable, "-m", "dcnsim", "schema"], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == json.loads(_core.schema())
