"""The run's printed summary says true things about its own tables: a
queue's overflow is not hidden because its link also fails; "N
completed" does not read as a finished run when an app was cut off; the
NIC-drops advice fits a UDP source faster than its link; Jain's index is
not shown for a single flow (audit of every summary line, 2026-12-07)."""

from __future__ import annotations

from pathlib import Path

import dcnsim
from conftest import needs_core
from dcnsim.cli import format_summary

pytestmark = needs_core

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def _line(text: str, label: str) -> str:
    found = [ln for ln in text.splitlines() if ln.strip().startswith(label)]
    return found[0] if found else ""


def test_a_gray_link_at_the_incast_port_keeps_its_overflow_in_the_hot_queue_line():
    sc = dcnsim.load_scenario(SCENARIOS / "kulkarni_incast.toml")
    sc["stop"] = "1s"
    sc["failures"] = [{"a": "sw", "b": "h0", "loss": 0.01, "direction": "a_to_b"}]
    r = dcnsim.run(sc)
    lost = int(r.failures["lost"].sum())
    port = r.queues[(r.queues["node"] == "sw") & (r.queues["to"] == "h0")].iloc[0]
    overflow = int(port["dropped"]) - lost
    assert lost > 0 and overflow > 0, "the case under test: the failing port also overflows"
    hot = _line(format_summary(r), "hot queue")
    assert hot.startswith("  hot queue    sw→h0 (queue"), hot
    assert f"{overflow:,} overflowed, {lost:,} lost to its failure" in hot, hot


def test_flows_all_completed_says_when_an_app_was_cut_off():
    sc = dcnsim.load_scenario(SCENARIOS / "kulkarni_incast.toml")
    sc["stop"] = "300ms"  # between blocks: every flow's transfer so far is done
    r = dcnsim.run(sc)
    assert r.summary["apps_unfinished"] == 1
    flows = _line(format_summary(r), "flows")
    assert "but 1 app had not finished: see its warning" in flows, flows


def test_nic_drops_of_a_udp_source_faster_than_its_link_are_not_blamed_on_the_buffer():
    sc = {
        "name": "udp-over", "stop": "20ms",
        "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "5us", "buffer": "100KB"},
        "apps": [{"kind": "udp_cbr", "src": 2, "dst": 0, "rate": "2Gbps"}],
    }
    nic = _line(format_summary(dcnsim.run(sc)), "nic drops")
    assert "most at h2→sw" in nic and "its UDP sources send 2 Gbps, more than the link's 1 Gbps" in nic, nic
    assert "see topology.nic_buffer" not in nic
    # a TCP sender's NIC overflow keeps the advice
    sc["apps"] = [{"kind": "bulk", "src": 2, "dst": 0, "size": "5MB"}, {"kind": "bulk", "src": 1, "dst": 0, "size": "5MB"}]
    sc["tcp"] = {"init_cwnd": 200}
    text = format_summary(dcnsim.run(sc))
    nic = _line(text, "nic drops")
    assert not nic or "see topology.nic_buffer" in nic, nic


def test_jain_of_one_bulk_flow_is_not_shown():
    sc = {
        "name": "one", "stop": "20ms",
        "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "5us", "buffer": "100KB"},
        "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}],
    }
    assert "Jain" not in _line(format_summary(dcnsim.run(sc)), "goodput")
    sc["apps"].append({"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"})
    assert "Jain" in _line(format_summary(dcnsim.run(sc)), "goodput")


def test_a_slowed_link_is_not_called_failed():
    sc = dcnsim.load_scenario(SCENARIOS / "kulkarni_incast.toml")
    sc["stop"] = "300ms"
    sc["failures"] = [{"a": "sw", "b": "h0", "rate": "500Mbps"}]
    line = _line(format_summary(dcnsim.run(sc)), "failures")
    assert "packets lost on 1 slowed link (2 directions; [[failures]])" in line, line
    sc["failures"] = [{"a": "sw", "b": "h0", "loss": 0.01, "direction": "a_to_b"}]
    line = _line(format_summary(dcnsim.run(sc)), "failures")
    assert "on 1 lossy link (1 direction" in line, line


def test_the_hot_queue_line_gives_drop_rates_and_counts_inputs_that_lost_nothing():
    """Its percentages are each input's drop rate (dropped / offered), not
    its share of the queue's drops; an input that lost nothing is counted
    at the end, not listed at 0.0 % among those that did."""
    sc = {
        "name": "late-bulk", "stop": "400ms",
        "topology": {"kind": "star", "hosts": 10, "rate": "1Gbps", "delay": "25us", "buffer": "32KB"},
        "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-8", "sru": "256KB", "blocks": 1},
                 # one small flow long after the incast, into an empty queue
                 {"kind": "bulk", "src": 9, "dst": 0, "size": "20KB", "start": "300ms"}],
    }
    r = dcnsim.run(sc)
    qi = r.queue_inputs
    part = qi[(qi["node"] == "sw") & (qi["to"] == "h0")]
    quiet = part[(part["dropped"] == 0) & (part["offered"] > 0)]
    assert "h9" in set(quiet["input_from"]), "the case under test: an input that offered packets and lost none"
    hot = _line(format_summary(r), "hot queue")
    assert "drop rate by input: " in hot and "h9 " not in hot, hot
    assert hot.endswith(f", {len(part) - int((part['dropped'] > 0).sum())} without drops"), hot
    named = hot.split("drop rate by input: ")[1].split(", ")
    for item in named:
        if item.endswith("%"):
            src, pct = item.rsplit(" ", 1)
            row = part[part["input_from"] == src].iloc[0]
            assert pct == f"{row['dropped'] / row['offered']:.1%}" and row["dropped"] > 0, (item, hot)


def test_a_run_that_ends_before_its_first_block_counts_zero_blocks():
    """n_blocks is 0, not missing (a KeyError) or NaN in a sweep's table, so
    a mean over seeds does not skip the runs that collapsed; the goodput of
    no block is NaN and the summary says none completed."""
    import math
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = dcnsim.run(dcnsim.with_overrides(SCENARIOS / "kulkarni_incast.toml", {"stop": "5ms"}))
    m = r.metrics
    assert len(r.blocks) == 0 and m["n_blocks"] == 0 and m["block_timeouts"] == 0
    assert math.isnan(m["block_goodput_bps"])
    assert "n_queries" not in m  # no partition/aggregate app: no query keys
    assert _line(format_summary(r), "blocks").split(None, 1)[1] == \
        "none completed: the run ended before the first block did"
    sc = {"name": "pa", "stop": "1ms",
          "topology": {"kind": "star", "hosts": 5, "rate": "1Gbps", "delay": "25us", "buffer": "32KB"},
          "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": "1-4", "response": "64KB",
                    "queries": 3}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = dcnsim.run(sc).metrics
    assert m["n_queries"] == 0 and math.isnan(m["qct_mean_s"]) and math.isnan(m["query_timeouts_mean"])


def test_a_sweep_table_counts_zero_blocks_as_integers(tmp_path):
    import warnings

    from dcnsim.sweep import grid, run_sweep

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = run_sweep(grid(dcnsim.load_scenario(SCENARIOS / "kulkarni_incast.toml"),
                            {"stop": ["5ms", "1s"]}, seeds=[1]), tmp_path / "sw", jobs=1, progress=False)
    short = df[df["stop"] == "5ms"].iloc[0]
    assert short["n_blocks"] == 0 and short["block_timeouts"] == 0, short
    assert df[df["stop"] == "1s"].iloc[0]["n_blocks"] > 0


def test_an_unfinished_poisson_load_is_counted_by_size_in_its_warning():
    """"1 app had not finished: see its warning" led to a warning with no
    more in it, while most of the long flows were the ones left (audit
    35). The warning counts the flows left and the share of each size
    class, as the flows table has them."""
    import re

    from conftest import SCENARIOS

    doc = dcnsim.with_overrides(dcnsim.load_scenario(SCENARIOS / "websearch_fattree.toml"), {"stop": "20ms"})
    r = dcnsim.run(doc)
    (w,) = [x for x in r.warnings if "had not finished" in x]
    f = r.flows
    left = int((~f.completed.astype(bool)).sum())
    m = re.search(r"apps\[0\] left ([\d,]+) of ([\d,]+) flows unfinished \(of each size: (.*?)\)", w)
    assert m and int(m.group(1).replace(",", "")) == left and int(m.group(2).replace(",", "")) == len(f), w
    for name, lo, hi in (("under 100 KB", 0, 100_000), ("100 KB–10 MB", 100_000, 10_000_000),
                         ("10 MB and over", 10_000_000, float("inf"))):
        cls = f[(f.app_bytes >= lo) & (f.app_bytes < hi)]
        if len(cls):
            n_left = int((~cls.completed.astype(bool)).sum())
            assert f"{name} {n_left:,} of {len(cls):,}" in m.group(3), (name, n_left, w)


def test_the_hot_queue_tells_parallel_links_apart():
    """Two links between s0 and s1 are two inputs of s1's queue to h4, both
    "s0": the line read "s0 7.1%, s0 2.7%" (audit of 2026-12-07). Inputs
    that share a name carry their own queue's id, as queue_inputs.csv has
    it."""
    from dcnsim.cli import format_summary

    hosts = [{"name": f"h{i}", "kind": "host"} for i in range(8)]
    links = ([{"a": f"h{i}", "b": "s0" if i < 4 else "s1", "rate": "10Gbps", "delay": "1us"} for i in range(8)]
             + [{"a": "s0", "b": "s1", "rate": "10Gbps", "delay": "5us"},
                {"a": "s1", "b": "s0", "rate": "10Gbps", "delay": "5us"}])
    doc = {"name": "par", "stop": "1s",
           "topology": {"kind": "custom", "buffer": "100pkt", "nic_buffer": "unlimited",
                        "nodes": hosts + [{"name": "s0", "kind": "switch"}, {"name": "s1", "kind": "switch"}],
                        "links": links},
           "apps": [{"kind": "bulk", "src": i, "dst": 4, "size": "1MB"} for i in range(4)]}
    r = dcnsim.run(doc)
    (line,) = [x for x in format_summary(r).splitlines() if "hot queue" in x]
    qi = r.queue_inputs
    hot = qi[qi.dropped > 0]
    ids = sorted(int(x) for x in hot[hot.input_from == "s0"].input_queue_id)
    assert len(ids) == 2, hot
    assert all(f"s0 (queue {q})" in line for q in ids), line
