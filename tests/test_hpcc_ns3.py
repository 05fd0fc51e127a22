"""validation/hpcc_ns3/run.py without the fork: the config it writes is the
one the HPCC authors' run.py writes for TIMELY at 100 Gbps, dcnsim's mirror
sets every TIMELY key to the fork's value and runs the incast to the end
no faster than the line allows, and the fork's timing and PFC arithmetic
come out as its sources say. With the fork built (``HPCC_NS3_THIRD`` names
its scratch/third) the two simulators' FCTs on a 4-sender incast agree."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import load_module, needs_core

pytestmark = needs_core

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "validation"))
hn = load_module("hpcc_ns3_run", REPO / "validation" / "hpcc_ns3" / "run.py")


def keys(text: str) -> dict:
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


def test_the_fork_config_is_run_pys_timely_at_100g():
    c = keys(hn.fork_config("timely"))
    assert c["CC_MODE"] == "7" and c["HAS_WIN"] == "0" and c["ACK_HIGH_PRIO"] == "1"
    assert c["RATE_AI"] == "100Mb/s" and c["RATE_HAI"] == "500Mb/s" and c["MIN_RATE"] == "1000Mb/s"
    assert c["L2_ACK_INTERVAL"] == "1" and c["PACKET_PAYLOAD_SIZE"] == "1000"
    d = keys(hn.fork_config("dcqcn"))
    assert d["CC_MODE"] == "1" and d["RP_TIMER"] == "300" and d["EWMA_GAIN"] == "0.00390625"


def test_the_mirror_sets_the_forks_timely_and_runs_no_faster_than_the_line():
    sc = hn.mirror("timely", 4)
    t = sc.to_dict()["tcp"]
    assert t["transport"] == "timely" and t["mss"] == hn.PAYLOAD and t["header"] == 56
    assert (t["timely_alpha"], t["timely_beta"], t["timely_t_low"], t["timely_t_high"],
            t["timely_min_rtt"], t["timely_rai"], t["timely_rhai"], t["timely_hai_after"],
            t["timely_min_rate"]) == (0.875, 0.8, "50us", "500us", "20us", "100Mbps", "500Mbps", 5, "1000Mbps")
    r = hn.run_dcnsim(sc, 4)
    assert len(r["fct"]) == r["flows"] == 4 and r["drops"] == 0
    # four 1 MB flows of 1,000 B payloads with 56 B of headers share one
    # 100 Gbps port: the last cannot end before their wire bytes pass it
    wire = 4 * hn.SIZE / hn.PAYLOAD * (hn.PAYLOAD + 56) * 8 / 100e9
    assert wire < max(r["fct"]) < 1.2 * wire


def test_the_forks_clock_and_pfc_threshold():
    # 1,056 B take floor(8,448 / 100) = 84 ns on the fork's 1 ns clock
    assert hn.ns_rate_bps("timely") == 8448 * 10**9 // 84
    xs = [hn.pfc_thresholds(n) for n in (2, 4, 8, 16)]
    assert all(xon < xoff for xoff, xon in xs)
    assert [x for x, _ in xs] == sorted((x for x, _ in xs), reverse=True), "more inputs pause sooner"


@pytest.mark.skipif(not os.environ.get("HPCC_NS3_THIRD"), reason="the HPCC authors' ns-3 is not built")
def test_timely_agrees_with_the_fork_on_an_incast():
    d = Path(os.environ.get("TMPDIR", "/tmp")) / "dcnsim-hpcc-ns3-test"
    hn.write_fork_files(d, "timely", 4, 10_000_000)
    theirs = hn.run_fork(os.environ["HPCC_NS3_THIRD"], d)
    ours = hn.run_dcnsim(hn.mirror("timely", 4, 10_000_000), 4)
    for a, b in ((sorted(theirs["fct"])[1], sorted(ours["fct"])[1]), (max(theirs["fct"]), max(ours["fct"]))):
        assert abs(a - b) < 0.05 * a, (theirs["fct"], ours["fct"])
