"""DCQCN (`tcp.transport = "dcqcn"`) from Python and the command line: the
builder takes the `dcqcn_*` keys, a run reports its flows as `dcqcn` with
their CNP cuts, the shipped scenario runs lossless to the end, a sweep can
move a parameter and the result moves the way DCQCN says it must, and a
bad key is refused with its field. The laws on whole runs are in
crates/dcnsim/tests/dcqcn.rs, the rate machine's in tcp/dcqcn.rs."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import dcnsim
import pytest

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "scenarios" / "dcqcn_incast.toml"


def incast(**tcp) -> dcnsim.Scenario:
    return dcnsim.Scenario(
        name="dcqcn", stop="20ms",
        topology={"kind": "star", "hosts": 9, "rate": "100Gbps", "delay": "1us",
                  "buffer": "4MB", "ecn_k": "50KB"},
        tcp=dcnsim.Tcp(transport="dcqcn", mss=4096, **tcp),
        apps=[{"kind": "bulk", "src": s, "dst": 0, "duration": "1s"} for s in range(1, 9)],
        pfc=dcnsim.Pfc(),
    )


def test_the_builder_takes_dcqcn_keys_and_flows_report_their_cuts():
    sc = incast(dcqcn_g="1/16", dcqcn_timer="100us", dcqcn_rai="1Gbps")
    d = sc.to_dict()["tcp"]
    assert d["transport"] == "dcqcn" and d["dcqcn_g"] == "1/16" and d["dcqcn_rai"] == "1Gbps"
    r = dcnsim.run(sc)
    f = r.flows
    assert set(f.transport) == {"dcqcn"}
    assert (f.ecn_marks > 0).all() and (f.ecn_cuts > 0).all()
    # each flow's CNPs are at most one per 50 µs of the 20 ms run
    assert (f.ecn_cuts <= 20_000 / 50 + 1).all()
    # a cut needs a CNP, and a CNP answers at least one marked packet
    cnps = r.summary["dcqcn_cnps_sent"]
    assert f.ecn_cuts.sum() <= cnps <= f.ecn_marks.sum()
    assert r.summary["packets_dropped"] == 0
    assert not r.conservation_problems()


def test_a_longer_cnp_interval_cuts_less_often():
    """N bounds the CNPs a receiver sends: at 1 ms no flow is cut more than
    21 times in 20 ms, far fewer than at the default 50 µs."""
    fast = dcnsim.run(incast()).flows.ecn_cuts
    slow = dcnsim.run(incast(dcqcn_cnp_interval="1ms")).flows.ecn_cuts
    assert (slow <= 21).all()
    assert fast.sum() > 2 * slow.sum()


def test_the_shipped_scenario_runs_lossless_from_the_cli():
    out = subprocess.run(
        [sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "apps[0].queries=2"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "0 drops" in out and "0 timeouts" in out
    assert "queries      2:" in out
    # the ECN line: the port's marks and the senders' CNP cuts, as the results count them
    ecn = next(line for line in out.splitlines() if line.strip().startswith("ecn "))
    assert "CE marks at 1 port;" in ecn and "CNPs, senders made" in ecn and "rate cuts on them" in ecn


def test_the_ecn_row_counts_dcqcns_rate_cuts_apart_from_a_tcp_senders_window_cuts():
    # audit 29: in a fabric shared with DCTCP the row called every cut a
    # DCQCN rate cut "on" the CNPs (276 cuts on 120 CNPs)
    from dcnsim import cli as cli_mod

    doc = incast().to_dict()
    doc["stop"] = "3ms"
    doc["apps"] = doc["apps"][:3] + [{"kind": "bulk", "src": 4, "dst": 0, "duration": "1s",
                                      "tcp": {"transport": "tcp", "cc": "dctcp"}}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
    f = r.flows
    rate, window = int(f.ecn_cuts[f.transport == "dcqcn"].sum()), int(f.ecn_cuts[f.transport == "tcp"].sum())
    assert rate > 0 and window > 0
    ecn = next(ln for ln in cli_mod.format_summary(r).splitlines() if ln.strip().startswith("ecn "))
    assert f"senders made {rate:,} rate cuts on them; other senders made {window:,} window cuts" in ecn, ecn


@pytest.mark.parametrize(
    "key, value, needle",
    [
        ("dcqcn_g", 0, "dcqcn_g"),
        ("dcqcn_f", 0, "dcqcn_f"),
        ("dcqcn_rai", "fast", "dcqcn_rai"),
        ("dcqcn_timer", "0us", "dcqcn_timer"),
    ],
)
def test_bad_dcqcn_keys_are_refused_with_their_field(key, value, needle):
    sc = incast()
    doc = sc.to_dict()
    doc["tcp"][key] = value
    with pytest.raises(dcnsim.ScenarioError) as e:
        dcnsim.run(doc)
    assert needle in str(e.value)


def test_a_rate_increase_sends_at_the_new_rate():
    """Eight flows into a 1 Gbps port: the queue's marks cut every sender
    to its floor (line rate / 1000, a packet every 12 ms), and a packet
    paced at the floor stayed due at its old slot while the increase
    timer brought the rate back to line rate: the port idled at 47 % of
    its line for 20 ms (the transports' defaults audit). An increase now
    brings the next packet forward, as a NIC's rate limiter and htsim's
    sender do, and the port stays busy."""
    doc = {"stop": "20ms", "pfc": {}, "topology": {"kind": "star", "hosts": 9, "rate": "1Gbps", "delay": "1us",
                                                "buffer": "4MB", "ecn_k": "100KB"},
           "tcp": {"transport": "dcqcn"},
           "apps": [{"kind": "bulk", "src": i, "dst": 0, "duration": "20ms"} for i in range(1, 9)]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
    f = r.flows
    assert f.ecn_cuts.min() > 10  # every sender was cut, many times
    payload_line = 1e9 * 1460 / (1460 + 40)
    assert f.goodput_bps.sum() > 0.9 * payload_line
    assert dcnsim.jain(list(f.goodput_bps)) > 0.95


def test_spraying_a_go_back_n_transport_resends_without_a_drop_and_is_warned_of():
    """RPS over DCQCN: a packet overtaken on another path reads as a gap,
    and go-back-N resends everything after it though nothing was lost, so
    the run is warned about at routing.mode; ECMP keeps each flow on one
    path and resends nothing (a k = 4 permutation, PFC, 2 MB flows)."""
    def perm(mode: str) -> dcnsim.Scenario:
        return dcnsim.Scenario(
            topology=dcnsim.FatTree(k=4, rate="100Gbps", delay="1us", buffer="4MB", nic_buffer="unlimited",
                                    ecn_k="5KB", ecn_kmax="200KB", ecn_pmax=0.01),
            routing={"mode": mode}, pfc=dcnsim.Pfc(), tcp=dcnsim.Tcp(transport="dcqcn", mss=4096),
            apps=[dcnsim.Bulk(src=s, dst=(s + 8) % 16, size="2MB") for s in range(16)], stop="10ms")

    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)
        ecmp = dcnsim.run(perm("ecmp"))
    with pytest.warns(dcnsim.DcnsimWarning, match=r"routing.mode: rps sprays the packets of go-back-N "
                                                 r"transports: dcqcn \(apps 0, 1, 2, 3, 4 and 11 more\)"):
        rps = dcnsim.run(perm("rps"))
    for r in (ecmp, rps):
        assert r.summary["packets_dropped"] == 0 and len(r.flows) == 16 and r.flows.completed.all()
    assert ecmp.flows.retransmits.sum() == 0
    assert rps.flows.retransmits.sum() > 16 * 2_000_000 / 4096, "fewer resends than one flow's packets each"
    assert rps.flows.fct_s.max() > ecmp.flows.fct_s.max()


def test_a_flow_cut_in_one_query_regains_its_rate_in_the_next():
    """Two 500 KB responses into an idle 10 Gbps port, four queries 1 ms
    apart: query 0's marks cut both senders, whose increase timer then
    found them idle and stopped for good, so queries 1 and 2 ran at the cut
    rate, 1.5 Gbps a flow (QCT 2.88 ms each against query 0's 1.33: the
    physics audit). The timer runs on while a flow is idle, as a NIC's
    rate limiter's does, so each later query starts near line rate and is
    no slower than the first, which started from line rate into the same
    idle port."""
    doc = {"stop": "100ms", "pfc": {},
           "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "2us", "buffer": "2MB",
                        "ecn_k": "20pkt"},
           "tcp": {"transport": "dcqcn"},
           "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-2", "response": "500KB",
                     "queries": 4, "gap": "1ms"}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)
        r = dcnsim.run(doc)
    assert r.flows[r.flows.role == "response"].ecn_cuts.min() > 0  # both senders were cut
    qct = list(r.queries.sort_values("query").qct_s)
    assert len(qct) == 4
    assert max(qct[1:]) <= 1.05 * qct[0], qct
