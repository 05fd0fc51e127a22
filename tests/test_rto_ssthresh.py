"""`tcp.rto_ssthresh` from Python and the command line: a timeout of data
the timer already resent keeps ssthresh (RFC 5681 §3.1, Linux: "hold",
the default) or sets it again from what went out since the last timeout
("recompute", ns-2's and ns-3.37's rule, validation/README.md "The time a
timeout costs"); an unknown value is refused with its field. The rule's
steps are checked in crates/dcnsim/src/tcp/tests.rs
(a_repeated_timeout_holds_or_recomputes_ssthresh)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Dict

import dcnsim
import pytest
from conftest import needs_core

pytestmark = needs_core


def incast(**tcp) -> Dict[str, Any]:
    """Kulkarni's Table 3.1 at 64 servers (a 32-packet port, RTOmin 200 ms,
    NewReno without SACK): whole first windows lost, timeouts in a row."""
    from dcnsim.experiments.kulkarni.common import BASE, scenario

    doc = scenario(64, BASE, 2)
    # the experiment sets ns-2's rule; these tests start from dcnsim's default
    doc["tcp"].pop("rto_ssthresh")
    doc["tcp"].update(tcp)
    return doc


def test_repeated_timeouts_hold_by_default_and_recompute_is_another_run():
    default = dcnsim.run(incast())
    hold = dcnsim.run(incast(rto_ssthresh="hold"))
    again = dcnsim.run(incast(rto_ssthresh="recompute"))
    assert default.tables["flows"].equals(hold.tables["flows"]), "the default holds ssthresh"
    for r in (hold, again):
        assert r.summary["apps_unfinished"] == 0
        servers = r.flows[r.flows.src != 0]
        # every byte of both blocks arrived, whatever the rule
        assert int(r.tables["blocks"]["bytes"].sum()) == 2 * 64 * 256 * 1024
        # timeouts in a row happen here, so the rule has something to act on
        assert servers.timeouts.max() >= 3
    assert not hold.tables["flows"].equals(again.tables["flows"]), "the rule changed the run"


def test_an_unknown_rule_is_refused_with_its_field():
    bad = dcnsim.validate(incast(rto_ssthresh="halve"))
    assert bad and "tcp.rto_ssthresh" in str(bad[0]) and "recompute" in str(bad[0])
    with pytest.raises(dcnsim.ScenarioError, match=r"tcp\.rto_ssthresh"):
        dcnsim.run(incast(rto_ssthresh="halve"))


def test_the_command_line_sets_it(tmp_path):
    """`--set tcp.rto_ssthresh=...` on a scenario file: a bad value is
    refused naming the field, a good one runs the same simulation as the
    key set in Python (same scenario and seed, same flows), not the
    default's."""
    path = tmp_path / "k64.json"
    path.write_text(json.dumps(incast()))
    bad = subprocess.run([sys.executable, "-m", "dcnsim", "validate", str(path), "--set", "tcp.rto_ssthresh=halve"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "tcp.rto_ssthresh" in bad.stdout + bad.stderr
    ok = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(path), "--set", "tcp.rto_ssthresh=recompute",
                         "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    import numpy as np
    import pandas as pd

    cli = pd.read_csv(tmp_path / "out" / "flows.csv")
    again = dcnsim.run(incast(rto_ssthresh="recompute")).tables["flows"]
    hold = dcnsim.run(incast()).tables["flows"]
    assert cli["timeouts"].tolist() == again["timeouts"].tolist()
    assert np.allclose(cli["end_s"], again["end_s"], rtol=1e-9, atol=1e-9)
    assert not np.allclose(cli["end_s"], hold["end_s"], rtol=1e-6, atol=1e-6), "the command line's key took effect"
