"""`until`: a run ends when its apps are done (the default) or at `stop`,
as ns-3's `Simulator::Stop` and htsim's end time end theirs. Run to `stop`,
the run is the apps-done run continued: the same events up to the apps'
end, and what comes after (a timer that fires once the answer is in)
counted too."""

from __future__ import annotations

import json

import dcnsim
import pytest
from conftest import cli, needs_core

pytestmark = needs_core


def _incast(until=None) -> dict:
    """Two queries to host 0, 30 ms apart, each of 10 workers, with
    delayed ACKs every second segment and a 200 ms timer, RTOmin 10 ms. In
    each a worker's last segment waits alone at the receiver for that
    timer, so its sender's RTO fires 10 ms after the answer is in: the
    first query's while the second is still to come, the second's after
    every app is done."""
    doc = {
        "name": "until", "seed": 1, "stop": "1s", "ties": "fifo",
        "topology": {"kind": "star", "hosts": 21, "rate": "1Gbps", "delay": "25us", "buffer": "100KB"},
        "tcp": {"cc": "newreno", "mss": 1460, "init_cwnd": 2, "rto_min": "10ms", "delayed_ack": True,
                "delayed_ack_segments": 2, "delayed_ack_timeout": "200ms", "delayed_ack_quickack": 0},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-10", "response": "10000B",
                  "request": "64B", "queries": 1, "start": "10ms"},
                 {"kind": "partition_aggregate", "aggregator": 0, "workers": "11-20", "response": "4380B",
                  "request": "64B", "queries": 1, "start": "40ms"}],
    }
    if until is not None:
        doc["until"] = until
    return doc


def test_a_run_to_stop_is_the_apps_done_run_continued():
    done, to_stop = dcnsim.run(_incast()), dcnsim.run(_incast("stop"))
    end = done.summary["sim_time_s"]
    qct = list(done.queries.qct_s)
    # the default ends at the event that finishes the query; to stop, at stop
    assert end < 0.1 and to_stop.summary["sim_time_s"] == 1.0
    assert done.summary["apps_unfinished"] == 0 == to_stop.summary["apps_unfinished"]
    assert to_stop.summary["events"] > done.summary["events"]
    # the same query: the events up to its end are the same events
    assert list(to_stop.queries.qct_s) == qct
    before = to_stop.losses[to_stop.losses.time_s <= end]
    assert len(done.losses) > 0
    assert before.to_dict("records") == done.losses.to_dict("records")
    # and past it the timeouts the default never reaches: workers whose
    # last segment the receiver held for its 200 ms timer
    after = to_stop.losses[to_stop.losses.time_s > end]
    assert len(after) > 0 and set(after.kind) == {"timeout"}
    assert (after.time_s < end + 0.2).all()


def test_apps_done_is_the_default():
    a, b = dcnsim.run(_incast()), dcnsim.run(_incast("apps_done"))
    drop = ("wall_s",)
    assert {k: v for k, v in a.summary.items() if k not in drop} == {
        k: v for k, v in b.summary.items() if k not in drop}
    assert a.losses.equals(b.losses)


def test_a_bad_until_names_the_key_and_the_choices():
    problems = [str(p) for p in dcnsim.validate(_incast("stopp"))]
    assert problems == ["until: unknown run end 'stopp' (did you mean 'stop'? valid: apps_done, stop)"], problems
    with pytest.raises(dcnsim.ScenarioError, match="until"):
        dcnsim.run(_incast(3))


def test_until_from_the_command_line(tmp_path):
    path = tmp_path / "until.json"
    path.write_text(json.dumps(_incast()))
    r = cli("run", str(path), "--set", "until=stop", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["sim_time_s"] == 1.0
    assert json.loads((tmp_path / "o" / "scenario.json").read_text())["until"] == "stop"
