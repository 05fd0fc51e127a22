"""Every point a paper's reproduction runs sets only TCP keys its own
settings read: the core warns about a key nothing reads (docs/scenario.md,
`[tcp]`), and a reproduction that printed such warnings would say its
builders' tables mean less than they look."""

from __future__ import annotations

import json

import pytest
from conftest import needs_core
from dcnsim.experiments.registry import paper_keys

pytestmark = needs_core


@pytest.mark.parametrize("paper", paper_keys())
def test_no_point_sets_a_tcp_key_nothing_reads(paper):
    from dcnsim import _core
    from dcnsim.experiments.framework import _collect
    from dcnsim.experiments.registry import get_paper

    points, _ = _collect(get_paper(paper).figures, quick=True)
    idle = {(path, msg) for p in points for path, msg in _core.warnings(json.dumps(p.scenario))
            if "changes nothing" in msg}
    assert not idle, sorted(idle)[:5]


def test_only_read_keys_drops_what_the_table_leaves_unread():
    from dcnsim.experiments.framework import only_read_keys

    base = {"cc": "newreno", "sack": False, "reduction": "rfc6675", "delayed_ack": False,
            "delayed_ack_timeout": "200ms", "dctcp_g": 0.0625, "rto_min": "2ms"}
    assert only_read_keys(base) == {"cc": "newreno", "sack": False, "delayed_ack": False, "rto_min": "2ms"}
    on = {**base, "sack": True, "delayed_ack": True, "cc": "dctcp"}
    assert only_read_keys(on) == on


def test_the_command_line_warns_of_a_key_nothing_reads(small_incast_path):
    from conftest import cli

    r = cli("run", str(small_incast_path), "--set", "tcp.sack=false", "--set", "tcp.sack_rescue=true",
            "--no-progress")
    assert r.returncode == 0, r.stderr
    assert ("warning: tcp.sack_rescue: sack_rescue changes nothing: it is read only with sack = true"
            in r.stderr), r.stderr


def test_a_tcp_key_every_app_overrides_or_no_app_reads_is_warned_of():
    """A top-level `[tcp]` key is read by the apps that take it from
    there: when every TCP app sets its own, or no app runs TCP at all, a
    sweep over it would give flat results, and the core says so; a key
    one app still takes is not warned of."""
    from dcnsim import _core

    star = {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us", "buffer": "100KB"}
    bulk = {"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}
    doc = {"name": "k", "stop": "10ms", "topology": star, "tcp": {"mss": 9000},
           "apps": [{**bulk, "tcp": {"mss": 500}}]}
    (w,) = [(p, m) for p, m in _core.warnings(json.dumps(doc)) if "changes nothing" in m]
    assert w[0] == "tcp.mss" and "every app that runs TCP sets its own (app 0)" in w[1], w
    doc["apps"].append(bulk)
    assert not [m for _, m in _core.warnings(json.dumps(doc)) if "changes nothing" in m]
    udp = {**doc, "apps": [{"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "100Mbps"}]}
    (w,) = [(p, m) for p, m in _core.warnings(json.dumps(udp)) if "changes nothing" in m]
    assert w[0] == "tcp.mss" and "no app runs a TCP flow" in w[1], w
