"""TIMELY (`tcp.transport = "timely"`) from Python and the command line: the
builder takes the `timely_*` keys, a run reports its flows as `timely` with
its rate updates in the summary, the shipped scenario runs lossless to the
end, moving T_high moves the standing queue the way TIMELY says it must,
and bad keys are refused with their field. The laws on whole runs are in
crates/dcnsim/tests/timely.rs, the update rule's in tcp/timely.rs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest
from dcnsim.scenario import tomllib

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "scenarios" / "timely_incast.toml"


def incast(n: int = 8, **tcp) -> dcnsim.Scenario:
    return dcnsim.Scenario(
        name="timely", stop="10ms",
        topology={"kind": "star", "hosts": n + 1, "rate": "100Gbps", "delay": "1us",
                  "buffer": "8MB"},
        tcp=dcnsim.Tcp(transport="timely", mss=4096, **tcp),
        apps=[{"kind": "bulk", "src": s, "dst": 0, "duration": "1s"} for s in range(1, n + 1)],
        pfc=dcnsim.Pfc(),
        trace={"interval": "50us", "queues": "switches"},
    )


def late_queue(r: dcnsim.Result) -> float:
    """The hot port's mean queue (bytes) over the second half."""
    q = r.tables["queue_ts"]
    q = q[q.time_s >= 0.005]
    return float(q.groupby("queue_id").bytes.mean().max())


def test_the_builder_takes_timely_keys_and_flows_report_their_updates():
    sc = incast(timely_t_low="20us", timely_t_high="200us", timely_rai="200Mbps", timely_beta=0.5)
    d = sc.to_dict()["tcp"]
    assert d["transport"] == "timely" and d["timely_t_high"] == "200us" and d["timely_beta"] == 0.5
    r = dcnsim.run(sc)
    assert set(r.flows.transport) == {"timely"}
    s = r.summary
    # once per RTT at most: eight flows of 10 ms at an RTT of at least the
    # unloaded 4.7 µs
    assert 0 < s["timely_rate_decreases"] < s["timely_rate_updates"] <= 8 * 10_000 / 4.7
    assert s["packets_dropped"] == 0
    # no switch marks (its packets are not ECN-capable) and no CNP
    assert (r.flows.ecn_cuts == 0).all()
    assert not r.conservation_problems()


def test_rtts_that_never_reach_the_thresholds_leave_the_queue_to_pfc():
    """Thresholds no RTT reaches never cut: the queue stands far longer
    than with T_high = 200 µs, which cuts whenever the queue passes 2.5 MB
    of delay and otherwise follows the gradient."""
    cut = dcnsim.run(incast(timely_t_low="20us", timely_t_high="200us"))
    uncut = dcnsim.run(incast(timely_t_low="1s", timely_t_high="2s"))
    assert uncut.summary["timely_rate_decreases"] == 0
    assert late_queue(uncut) > 2 * late_queue(cut)


def test_the_shipped_scenario_runs_lossless_from_the_cli():
    out = subprocess.run(
        [sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "apps[0].queries=2"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "0 drops" in out and "0 timeouts" in out
    assert "queries      2:" in out
    # nothing is marked: no ECN line
    assert not any(line.strip().startswith("ecn ") for line in out.splitlines())
    # the rate updates' own line, with the counts the summary holds
    line = next(x for x in out.splitlines() if x.strip().startswith("timely "))
    doc = tomllib.loads(FILE.read_text())
    doc["apps"][0]["queries"] = 2
    s = dcnsim.run(doc).summary
    assert line.split()[1:] == [f"{int(s['timely_rate_updates']):,}", "rate", "updates", "from", "RTTs,",
                                f"{int(s['timely_rate_decreases']):,}", "of", "them", "cuts"]


@pytest.mark.parametrize(
    "key, value, needle",
    [
        ("timely_alpha", 0, "timely_alpha"),
        ("timely_beta", 1.5, "timely_beta"),
        ("timely_hai_after", 0, "timely_hai_after"),
        ("timely_rai", "fast", "timely_rai"),
        ("timely_t_high", "0us", "timely_t_high"),
        ("timely_t_low", "1ms", "must be below timely_t_high"),
    ],
)
def test_bad_timely_keys_are_refused_with_their_field(key, value, needle):
    doc = incast().to_dict()
    doc["tcp"][key] = value
    with pytest.raises(dcnsim.ScenarioError) as e:
        dcnsim.run(doc)
    assert needle in str(e.value)


def test_a_path_longer_than_t_low_is_warned_of_and_the_keys_it_names_fill_the_port():
    """Eight TIMELY flows into a 10 Gbps port over 20 µs links: the paths'
    unloaded RTT (82.5 µs) is above T_low (50 µs) and minRTT (20 µs), and
    the flows left a quarter of the port unused without a word (the
    transports' defaults audit). The run names T_low; the keys the warning
    names, set from the path's RTT, fill the port."""
    import warnings

    def run(**tcp):
        doc = {"stop": "20ms", "pfc": {}, "topology": {"kind": "star", "hosts": 9, "rate": "10Gbps",
                                                    "delay": "20us", "buffer": "4MB"},
               "tcp": {"transport": "timely", **tcp},
               "apps": [{"kind": "bulk", "src": i, "dst": 0, "duration": "20ms"} for i in range(1, 9)]}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = dcnsim.run(doc)
        said = [str(x.message) for x in w if issubclass(x.category, dcnsim.DcnsimWarning)]
        return r, r.flows.goodput_bps.sum() / (10e9 * 1460 / 1500), said

    # four 20 µs propagations, a full packet and an ACK over two links
    rtt = 4 * 20e-6 + 2 * (1500 + 40) * 8 / 10e9
    r, used, said = run()
    assert r.summary["timely_path_rtt_at_max_s"] == pytest.approx(rtt, rel=1e-9)
    assert r.summary["timely_path_rtt_over_t_low_max"] == pytest.approx(rtt / 50e-6, rel=1e-9)
    assert any(m.startswith("tcp.timely_t_low: a path's unloaded RTT (82.5 µs) is 1.65×") for m in said), said
    assert used < 0.85
    us = rtt * 1e6
    r, used, said = run(timely_min_rtt=f"{us:.2f}us", timely_t_low=f"{us + 50:.2f}us",
                        timely_t_high=f"{us + 500:.2f}us")
    assert not any("timely_t_low" in m for m in said) and used > 0.9


def test_the_t_low_warning_says_only_what_holds():
    """`timely_t_low = 0` (the published code's advice under per-packet
    pacing: the branch off on purpose) was warned of as 6,464,000× the
    path; and a minRTT raised to the path's was still called below it
    (the session's review)."""
    import warnings

    def said(**tcp):
        doc = {"stop": "2ms", "pfc": {}, "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps",
                                                   "delay": "20us", "buffer": "4MB"},
               "tcp": {"transport": "timely", **tcp},
               "apps": [{"kind": "bulk", "src": i, "dst": 0, "duration": "2ms"} for i in (1, 2)]}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            dcnsim.run(doc)
        return [str(x.message) for x in w if str(x.message).startswith("tcp.timely_t_low")]

    assert said(timely_t_low="0us") == []
    (msg,) = said()
    assert "timely_min_rtt (20 µs), which normalises its gradient, is below the path's own minimum RTT" in msg
    (msg,) = said(timely_min_rtt="100us")
    assert "is below the path's own" not in msg and "out of its reach;" in msg
