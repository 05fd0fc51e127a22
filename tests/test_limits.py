"""Limits that protect the machine, from Python and the CLI: a scenario
whose memory the run-time guard could not stop in time (topology, flows,
first windows, trace) would pass `limits.memory` is a ScenarioError
naming the field; one whose whole estimate is over the limit only warns,
naming the keys, runs, and is stopped by the guard if it really outgrows
the limit. Nothing is written to --out."""

from __future__ import annotations

import json
import math

import dcnsim
import pytest
from conftest import ROOT, cli, needs_core
from dcnsim import DcnsimWarning, ScenarioError

pytestmark = needs_core

HUGE_WINDOW = {
    "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"},
    "tcp": {"init_cwnd": 4_000_000_000, "rwnd": "1000GB"},
    "apps": [{"kind": "bulk", "src": 0, "dst": 1, "duration": "1s"}],
}


def test_huge_window_is_rejected_with_the_estimate():
    # the first window is sent in one event, before the guard can look
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(HUGE_WINDOW)
    (msg,) = e.value.errors
    assert msg.startswith("tcp.rwnd: the run needs about ") and "GB of memory that the run-time guard" in msg
    assert "limits.memory" in msg


def test_cli_writes_nothing_for_a_too_big_scenario(tmp_path):
    p = tmp_path / "big.toml"
    p.write_text('[limits]\nmemory = "1MB"\n[topology]\nkind = "fat_tree"\nk = 16\nrate = "1Gbps"\ndelay = "1us"\n'
                 'buffer = "10pkt"\n[[apps]]\nkind = "bulk"\nsrc = 0\ndst = 1\nsize = "1KB"\n')
    r = cli("run", str(p), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{p}: topology: the run needs about" in r.stderr and "nodes, links and routing tables" in r.stderr
    assert not (tmp_path / "out").exists()


def _tiny_flows(limit: str) -> dict:
    """40 000 one-or-two-byte flows on a k = 2 fat-tree with 5-packet
    buffers: they time out again and again, and the loss log that grows with
    it is what the pre-run estimate leaves to the run-time guard (faster
    than the flow count: at 20 000 flows it outgrew the estimate's slack by
    only a few MB, as tests/memory_bound.rs notes)."""
    return {
        # one world: "auto" threads would size the pre-run estimate for a
        # world per core, past what this run on one grows to
        "stop": "60s", "seed": 3, "limits": {"memory": limit}, "threads": 1,
        "topology": {"kind": "fat_tree", "k": 2, "rate": "1Gbps", "delay": "5us", "buffer": "5pkt"},
        "tcp": {"mss": 1000, "rto_min": "1ms", "rto_init": "3ms", "rto_max": "8ms", "rwnd": "32pkt"},
        "apps": [{"kind": "poisson", "load": 0.5, "cdf": [[1, 0], [2, 1]], "duration": "2ms", "flows": 40000}],
    }


def _mb(message: str, before: str) -> float:
    number, unit = message.split(before)[1].split(" of memory")[0].split()
    assert unit == "MB", message  # the scenario is sized for hundreds of MB
    return float(number)


def _limit_just_above_the_estimate() -> str:
    # The refusal under 1 MB states what the guard could not stop in time;
    # just above that the run may start, with a warning stating the whole
    # estimate; a limit 2 MB above the estimate runs without one.
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(_tiny_flows("1MB"))
    (p,) = e.value.errors
    assert p.path == "apps[0].flows", p
    unguarded = _mb(p.message, "needs about ")
    # in KB: the whole estimate lies less than a MB above the unguarded part
    # (0.45 MB here), so a whole-MB limit may already cover both
    just_above = f"{math.ceil(unguarded * 1024) + 2}KB"
    # (the flows of one or two bytes are also said to read as packets: apps[0].cdf)
    def memory_warnings(limit: str) -> list:
        return [w for w in dcnsim._core.warnings(json.dumps(_tiny_flows(limit))) if w[0] != "apps[0].cdf"]

    (w,) = memory_warnings(just_above)
    limit = f"{int(_mb(w[1], 'may need up to about ')) + 2}MB"
    assert memory_warnings(limit) == []
    return limit


def _mirror(limit: str) -> dict:
    from dcnsim.bench import dctcp_perm

    return {**dctcp_perm(8, "20ms"), "limits": {"memory": limit}}


def test_an_estimate_over_the_limit_warns_with_its_keys_and_the_run_completes(tmp_path):
    # htsim's k = 8 mirror is estimated at about 7.9 MB (one world: `auto`
    # cuts only what fits) and holds about 6 MB (6.2 on two threads, whose
    # partitions each hold every flow): under a limit between the two, on
    # any thread count, it runs, with a warning naming the keys (6 MB
    # failed the CLI run on a quiet machine, where `auto` took two threads)
    with pytest.warns(DcnsimWarning) as caught:
        r = dcnsim.run(_mirror("7MB"))
    (w,) = [str(c.message) for c in caught if "memory" in str(c.message)]
    assert w.startswith("topology.buffer: the run may need up to about ") and "over the 7 MB limit" in w
    assert "(topology.buffer)" in w and "(topology)" in w and "limits.memory" in w
    assert r.summary["packet_hops"] > 0 and r.warnings == [w]
    # the CLI prints it as a warning, runs and writes
    f = tmp_path / "mirror.json"
    f.write_text(json.dumps(_mirror("7MB")))
    out = cli("run", str(f), "--out", str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "warning: topology.buffer: the run may need up to about" in out.stderr
    assert (out.stdout + out.stderr).count("may need up to about") == 1, out.stdout  # once (issue 41)
    assert (tmp_path / "out" / "summary.json").exists()


def test_the_guard_stops_a_run_that_outgrows_its_limit(tmp_path):
    limit = _limit_just_above_the_estimate()
    with pytest.raises(ScenarioError) as e:
        dcnsim.run(_tiny_flows(limit))
    (p,) = e.value.errors
    assert p.path == "limits.memory"
    assert p.message.startswith("the run stopped at ") and f"over the {limit[:-2]} MB limit" in p.message
    # The CLI: an error naming the field, exit status 2, nothing written.
    f = tmp_path / "tiny.json"
    f.write_text(json.dumps(_tiny_flows(limit)))
    r = cli("run", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr[-2000:]
    assert "limits.memory: the run stopped at" in r.stderr
    assert not (tmp_path / "out").exists()


@needs_core
def test_the_guard_counts_the_input_rows_a_run_can_have_not_every_slot():
    """At k = 32 the switches hold 1.27 M (egress, input) slots and the
    queue_inputs table has a row per pair that offered packets (110 k in the
    full run): a guard counting every slot said a 0.1 ms run 'held 483 MB'
    at t = 0 (the process held 50 MB) and stopped it under a 300 MB limit."""
    doc = dcnsim.load_scenario(ROOT / "scenarios" / "websearch_k32.toml")
    doc.update(stop="0.1ms", threads=1, limits={"memory": "300MB"})
    doc["apps"][0]["duration"] = "0.1ms"
    r = dcnsim.run(doc)
    assert r.summary["sim_time_s"] == pytest.approx(1e-4)


def _unguarded_mb(doc: dict) -> float:
    """The memory the run-time guard could not stop in time, as the
    refusal under 1 KB states it (in MB; KB and GB converted)."""
    (p,) = dcnsim.validate({**doc, "limits": {"memory": "1KB"}})
    number, unit = p.message.split("needs about ")[1].split(" of memory")[0].split()
    return float(number) * {"KB": 1e-3, "MB": 1.0, "GB": 1e3}[unit]


def test_threads_auto_is_never_refused_for_the_cores_and_cuts_only_what_fits(monkeypatch):
    """Under `threads = "auto"` (the default) the estimate counts one
    world, so a run that fits one thread is not refused on a machine with
    many cores; the plan then cuts it only into as many worlds as fit
    `limits.memory`, and says why when it keeps one. `threads = 2`, asked
    for, is refused with its worlds named and what one thread would need."""
    from dcnsim.bench import dctcp_perm

    doc = {**dctcp_perm(16, "2ms"), "threads": 1}
    one = _unguarded_mb(doc)
    two = _unguarded_mb({**doc, "threads": 2})
    assert two > one * 1.2, (one, two)
    limit = f"{math.ceil((one + two) / 2 * 1000)}KB"  # between one world's need and two's
    monkeypatch.setenv("DCNSIM_FREE_CORES", "2")
    auto = {**doc, "threads": "auto", "limits": {"memory": limit}}
    assert not dcnsim.validate(auto)
    assert dcnsim._core.planned_threads(json.dumps(auto)) == 1
    roomy = {**auto, "limits": {"memory": f"{math.ceil(two * 2)}MB"}}
    assert dcnsim._core.planned_threads(json.dumps(roomy)) == 2
    (p,) = dcnsim.validate({**doc, "threads": 2, "limits": {"memory": limit}})
    assert p.path == "threads" and "for its 2 worlds (threads = 2; on one thread about" in p.message, p


def _events_estimate(doc: dict) -> float:
    (p,) = [p for p in dcnsim.validate({**doc, "limits": {"events": 1}}) if "events" in p.message]
    return float(p.message.split("need about ")[1].split(" events")[0])


def test_the_events_estimate_bounds_a_long_chain_and_names_the_limit_exactly():
    """A packet crosses every link of a 30-switch chain: the events estimate
    counts the path's length (it counted 8 hops at most, and a chain ran
    twice its estimate), and a refusal prints the limit as set, not
    rounded to one digit (1500000 read as 2e6)."""
    n = 30
    nodes = [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}]
    nodes += [{"name": f"s{i}", "kind": "switch"} for i in range(n)]
    link = {"rate": "1Gbps", "delay": "1us"}
    links = [{"a": "a", "b": "s0", **link}, {"a": f"s{n - 1}", "b": "b", **link}]
    links += [{"a": f"s{i}", "b": f"s{i + 1}", **link} for i in range(n - 1)]
    doc = {"name": "chain", "stop": "1s", "topology": {"kind": "custom", "buffer": "100pkt", "nodes": nodes,
                                                      "links": links},
           "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "2MB"}]}
    r = dcnsim.run(doc)
    assert r.summary["events"] <= _events_estimate(doc), (r.summary["events"], _events_estimate(doc))
    big = {**doc, "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "200MB"}], "limits": {"events": 1_500_000}}
    (p,) = dcnsim.validate(big)
    assert "over the limit of 1.5e6;" in p.message, p.message


def test_a_refusal_for_many_small_apps_names_the_apps_not_the_last_one():
    """5,000 one-flow apps: their flows' state is the term over the limit,
    and no one app opens half of the flows, so the refusal names `apps`
    (it named apps[4999], whose change would change nothing)."""
    star = {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"}
    apps = [{"kind": "bulk", "src": 1, "dst": 0, "size": "1KB", "start": f"{i}us"} for i in range(5000)]
    doc = {"name": "m", "stop": "1s", "topology": star, "apps": apps, "limits": {"memory": "100KB"}}
    (p,) = dcnsim.validate(doc)
    assert p.path == "apps" and "flows' state" in p.message, p
    # (one Poisson app opening them all is named: _limit_just_above_the_estimate)


def test_a_capture_is_watched_by_the_guard_not_refused_on_its_estimate():
    """A capture's buffers never double (fixed chunks), so the run-time
    guard can stop one in time, and its estimate (a bound: every captured
    link at line rate, in the smallest packets) only warns. Before, the
    estimate refused it: an audit's 4-host, 20 s capture needed "about
    16.453 GB" under the default limit and ran in 937 MB."""
    import warnings

    doc = {"stop": "10ms", "threads": 1,
           "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "2us", "buffer": "100pkt"},
           "tcp": {"init_cwnd": 10}, "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1GB"}],
           "pcap": {"hosts": [0, 1]}, "limits": {"memory": "8MB"}}
    # its estimate is over 8 MB (a warning, not a refusal), and it runs: what it holds fits
    assert dcnsim.validate(doc) == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = dcnsim.run(doc)
    assert any("pcap.hosts: the run may need up to about" in str(w.message) for w in caught)
    held = sum(len(b) for b in r.pcaps.values())
    assert 0 < held < 8 * 2**20 / 2
    # a limit it really goes over: the guard stops it, naming the limit
    doc["limits"] = {"memory": "2MB"}
    with pytest.raises(dcnsim.ScenarioError, match=r"limits.memory: the run stopped at .* over the 2 MB limit"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dcnsim.run(doc)


@needs_core
def test_validate_estimate_prints_the_bounds_the_limits_are_checked_against(tmp_path):
    """`dcnsim validate --estimate` prints the estimate a refusal is made
    from: a limit just under its memory term refuses the same file, one at
    it does not; its events bound the run's events."""
    import re

    from conftest import SCENARIOS
    from dcnsim import _core
    from dcnsim._document import json_text, load_scenario

    path = SCENARIOS / "kulkarni_incast.toml"
    r = cli("validate", "--estimate", str(path))
    assert r.returncode == 0, r.stderr
    ok, line = r.stdout.splitlines()
    assert ok == f"{path}: ok" and line.startswith(f"{path}: estimate: at most about "), line
    memory, unguarded, events, mem_limit, ev_limit = _core.estimate(json_text(load_scenario(path))[0])
    assert 0 < unguarded <= memory < mem_limit and events < ev_limit
    assert re.search(r"and about ([0-9.e+]+) events if each packet is sent at most twice", line).group(1) == f"{events:.3g}"
    # the bound holds: the run's events stay under it
    assert dcnsim.run(path).summary["events"] <= events
    # the refusal is made from the same figure: a limit one KB under what
    # the guard cannot stop refuses the file, one at it does not
    for limit, refused in ((unguarded - 1024, True), (unguarded, False)):
        v = cli("validate", str(path), "--set", f"limits.memory={limit}B")
        assert (v.returncode == 2) == refused, v.stdout
