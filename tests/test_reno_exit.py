"""`tcp.reno_exit`: the window the full ACK that ends NewReno's inflated
recovery leaves, RFC 6582 §3.2's option 1 (`flightsize`, the
default: min(ssthresh, FlightSize + SMSS)) or option 2 (`ssthresh`, ns-2's
NewReno and ns-3.37's classic recovery). The rule's steps are checked in
crates/dcnsim/src/tcp/recovery/newreno.rs
(the_ssthresh_exit_leaves_ssthresh_whatever_is_in_flight); here the key
from Python and the command line, and its refusal."""

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
    """Kulkarni's Table 3.1 at 3 servers (NewReno without SACK, a
    32-packet port): fast recoveries every few blocks, some ending with
    little in flight."""
    from dcnsim.experiments.kulkarni.common import BASE, scenario

    doc = scenario(3, BASE, 200)
    # the experiment sets ns-2's option 2; these tests start from dcnsim's default
    assert doc["tcp"].pop("reno_exit") == "ssthresh"
    doc["tcp"].update(tcp)
    return doc


def test_the_default_is_option_1_and_ssthresh_is_another_run():
    default = dcnsim.run(incast())
    one = dcnsim.run(incast(reno_exit="flightsize"))
    two = dcnsim.run(incast(reno_exit="ssthresh"))
    assert default.tables["flows"].equals(one.tables["flows"]), "the default is option 1"
    for r in (one, two):
        assert r.summary["apps_unfinished"] == 0
        # every byte of every block arrived, whatever the rule
        assert int(r.tables["blocks"]["bytes"].sum()) == 200 * 3 * 256 * 1024
        servers = r.flows[r.flows.src != 0]
        assert servers.fast_retransmits.sum() > 0, "recoveries happen, so the rule has something to act on"
    assert not one.tables["flows"].equals(two.tables["flows"]), "the rule changed the run"


def test_an_unknown_rule_is_refused_with_its_field(tmp_path):
    bad = dcnsim.validate(incast(reno_exit="cwnd"))
    assert bad and "tcp.reno_exit" in str(bad[0]) and "ssthresh" in str(bad[0])
    with pytest.raises(dcnsim.ScenarioError, match=r"tcp\.reno_exit"):
        dcnsim.run(incast(reno_exit="cwnd"))
    # with SACK NewReno's machine does not run: the run says the key did nothing
    with pytest.warns(dcnsim.DcnsimWarning, match=r"tcp\.reno_exit.*sack = false"):
        dcnsim.run({**incast(reno_exit="ssthresh", sack=True), "apps": [
            {**incast()["apps"][0], "blocks": 2}]})
    path = tmp_path / "k3.json"
    path.write_text(json.dumps(incast()))
    cli = subprocess.run([sys.executable, "-m", "dcnsim", "validate", str(path), "--set", "tcp.reno_exit=cwnd"],
                         capture_output=True, text=True)
    assert cli.returncode != 0 and "tcp.reno_exit" in cli.stdout + cli.stderr


def test_the_command_line_sets_it(tmp_path):
    path = tmp_path / "k3.json"
    path.write_text(json.dumps(incast()))
    ok = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(path), "--set", "tcp.reno_exit=ssthresh",
                         "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    import pandas as pd

    cli = pd.read_csv(tmp_path / "out" / "flows.csv")
    two = dcnsim.run(incast(reno_exit="ssthresh")).tables["flows"]
    one = dcnsim.run(incast()).tables["flows"]
    assert cli["fast_retransmits"].tolist() == two["fast_retransmits"].tolist()
    assert cli["end_s"].round(9).tolist() == two["end_s"].round(9).tolist()
    assert cli["end_s"].round(9).tolist() != one["end_s"].round(9).tolist(), "the command line's key took effect"
