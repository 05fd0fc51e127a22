"""Every transport's timeouts feed the same counters: the stall before
each (`timeout_period_s`) and its kinds (ABTT or IBTT; whole window, few
or many duplicate ACKs), so `abtt + ibtt = timeouts` and the duplicate-ACK
classes sum to `timeouts` for every flow (docs/model.md, Counters). The
go-back-N transports (DCQCN, TIMELY, HPCC) and NDP counted the timeout
alone, their stall 0 s and their kinds 0; Swift its stall but no kind;
NDP counted one firing twice when it sent an unpulled packet after its
resends."""

from __future__ import annotations

import warnings

import dcnsim
import pytest

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

RTO = {"dcqcn": "dcqcn_rto", "timely": "timely_rto", "hpcc": "hpcc_rto"}


def lossy_incast(transport: str, **tcp) -> dict:
    """Eight 512 KB responses into one 100 KB port, no PFC: drops, and
    timeouts in every transport."""
    doc = {"name": f"lossy-{transport}", "seed": 1, "stop": "20ms",
           "topology": {"kind": "star", "hosts": 9, "rate": "100Gbps", "delay": "1us", "buffer": "100KB"},
           "tcp": {"transport": transport, "mss": 4096, **tcp},
           "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-8", "response": "512KB",
                     "queries": 2, "gap": "100us"}]}
    if transport == "dcqcn":
        doc["topology"]["ecn_k"] = "50KB"
    if transport == "ndp":
        doc["tcp"]["ndp_rto"] = "1ms"  # drop-tail, no trimming: losses wait for it
    if transport == "tcp":
        doc["topology"]["buffer"] = "20KB"  # NewReno's windows fit 100 KB here
        doc["tcp"]["rto_min"] = "1ms"  # 200 ms would fire after the stop
    return doc


def run(doc: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dcnsim.DcnsimWarning)  # NDP without trimming, on purpose
        return dcnsim.run(doc)


@pytest.mark.parametrize("transport", ["dcqcn", "timely", "hpcc", "swift", "ndp", "tcp"])
def test_every_transports_timeouts_have_their_stall_and_their_kinds(transport):
    r = run(lossy_incast(transport))
    f = r.flows
    assert f.timeouts.sum() > 0, f"{transport}: no timeout, so nothing is checked"
    assert (f.abtt + f.ibtt == f.timeouts).all()
    assert (f.rto_whole_window + f.rto_few_dupacks + f.rto_many_dupacks == f.timeouts).all()
    assert ((f.abtt <= f.rto_first_flight) & (f.rto_first_flight <= f.timeouts)).all()
    assert (f.timeout_period_s[f.timeouts > 0] > 0).all()
    assert (f.timeout_period_s[f.timeouts == 0] == 0).all()
    q = r.queries
    assert len(q) and (q.abtt + q.ibtt == q.timeouts).all()
    assert r.conservation_problems() == []


@pytest.mark.parametrize("transport", sorted(RTO))
def test_a_go_back_n_timeout_stalls_at_least_its_timer(transport):
    """Go-back-N fires only when nothing has moved for its whole timer:
    each timeout's stall is at least that long, so their sum is at least
    the timeouts times the timer (it was 0 s)."""
    rto = 0.0005
    r = run(lossy_incast(transport, **{RTO[transport]: f"{rto * 1e6:g}us"}))
    f = r.flows[r.flows.timeouts > 0]
    assert len(f)
    assert (f.timeout_period_s >= f.timeouts * rto * (1 - 1e-9)).all(), f[["timeouts", "timeout_period_s"]]


def test_an_ndp_timer_firing_is_one_timeout():
    """One firing that resends its late packets and then, with nothing
    pulled, sends one unpulled packet was counted twice. In this incast a
    flow's packets go out together and its firings come a timer apart, so
    its timeouts are at most its time over the timer, plus one; counting
    each firing twice is over that bound."""
    doc = lossy_incast("ndp")
    r = run(doc)
    f = r.flows[(r.flows.timeouts > 0) & r.flows.completed]
    assert len(f)
    assert (f.timeouts <= (f.end_s - f.start_s) / 0.001 + 1).all(), f[["timeouts", "start_s", "end_s"]]
