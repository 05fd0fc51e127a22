"""`tcp.ecn_reduction` from Python and the command line: the Linux
profile reduces the window on an ECN echo by Linux's CWR by PRR ("prr"),
which a run can name or set back to RFC 3168's cut ("cut", the default
elsewhere), and an unknown value is refused with its field. The rule's
steps are checked in crates/dcnsim/src/tcp/tests/linux.rs and, against
Linux 6.18, by validation/packetdrill/scripts/ecn-cwr-prr.pkt."""

from __future__ import annotations

import subprocess
import sys

import dcnsim
import pytest
from conftest import ROOT, needs_core

pytestmark = needs_core
FILE = ROOT / "scenarios" / "bbr_incast.toml"


def incast(**tcp) -> dcnsim.Scenario:
    """Eight DCTCP senders into a 1 Gbps port marking at 10 packets."""
    return dcnsim.Scenario(
        name="ecn-reduction", seed=1, stop="1s",
        topology={"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "20us", "buffer": "64pkt",
                  "ecn_k": "10pkt"},
        tcp=dcnsim.Tcp(profile="linux", cc="dctcp", **tcp),
        apps=[{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-8", "response": "256KB",
               "queries": 5}],
    )


def test_the_linux_profile_reduces_by_prr_and_cut_is_another_run():
    default = dcnsim.run(incast())
    prr = dcnsim.run(incast(ecn_reduction="prr"))
    cut = dcnsim.run(incast(ecn_reduction="cut"))
    assert default.tables["flows"].equals(prr.tables["flows"]), "the profile's default is prr"
    for r in (prr, cut):
        assert r.summary["apps_unfinished"] == 0
        assert r.tables["flows"].ecn_cuts.sum() > 0, "the port marked and the senders answered"
    assert not prr.tables["flows"].equals(cut.tables["flows"]), "the key changes the run"


def test_an_unknown_reduction_is_refused_with_its_field():
    with pytest.raises(dcnsim.ScenarioError, match=r"tcp\.ecn_reduction.*'gentle'.*cut, prr"):
        dcnsim.run(incast(ecn_reduction="gentle"))


def test_the_command_line_sets_it():
    out = [subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "tcp.cc=dctcp",
                           "--set", "topology.ecn_k=10pkt", "--set", f"tcp.ecn_reduction={v}"],
                          capture_output=True, text=True, cwd=ROOT) for v in ("prr", "cut")]
    for o in out:
        assert o.returncode == 0, o.stderr
    # the key reaches the senders: their window cuts (and what follows) differ
    ecn = [next(line for line in o.stdout.splitlines() if line.strip().startswith("ecn")) for o in out]
    assert ecn[0] != ecn[1], ecn
