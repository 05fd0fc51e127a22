"""The warnings `dcnsim run` and `dcnsim validate` print are the library's
too: a run's outcome in Result.warnings, a scenario's in validate()'s
list (audit 27, F4, F7)."""

from __future__ import annotations

import json
import warnings

import dcnsim
import pytest
from conftest import needs_core

PFC_DROPS = "packets dropped at full switch buffers under PFC"
UNFINISHED = "app(s) had not finished at `stop`"


def lossy_pfc() -> dcnsim.Scenario:
    # eight senders into one port whose buffer cannot hold what arrives at xoff
    return dcnsim.Scenario(topology=dcnsim.Star(hosts=9, rate="10Gbps", delay="1us", buffer="200KB"),
                           apps=[dcnsim.Bulk(src=i, dst=0, size="200KB") for i in range(1, 9)], stop="5ms",
                           pfc=dcnsim.Pfc(xoff="30KB", xon="20KB"))


def unfinished() -> dcnsim.Scenario:
    return dcnsim.Scenario(topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="10us", buffer="32KB"),
                           apps=dcnsim.SyncReads(client=0, servers="1-2", sru="64KB", blocks=5), stop="200us")


@needs_core
def test_a_runs_outcome_is_in_result_warnings_and_warned(tmp_path):
    with pytest.warns(dcnsim.DcnsimWarning) as rec:
        r = dcnsim.run(lossy_pfc())
    said = [str(w.message) for w in rec]
    assert any(s.startswith("pfc: ") and PFC_DROPS in s for s in said), said
    assert any(w.startswith("pfc: ") and PFC_DROPS in w for w in r.warnings), r.warnings
    with pytest.warns(dcnsim.DcnsimWarning, match=UNFINISHED.replace("(", r"\(").replace(")", r"\)")):
        u = dcnsim.run(unfinished())
    assert u.summary["apps_unfinished"] >= 1
    assert f"apps: {u.summary['apps_unfinished']} {UNFINISHED}" in u.warnings
    # and in what is written
    record = json.loads((u.write(tmp_path / "u") / "summary.json").read_text())
    assert UNFINISHED in record["warnings"]


@needs_core
def test_a_run_that_went_as_meant_has_no_outcome_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", dcnsim.DcnsimWarning)
        r = dcnsim.run(dcnsim.with_overrides(unfinished(), {"stop": "1s"}))
    assert r.warnings == [] and r.outcome_warnings() == []


@needs_core
def test_the_command_line_prints_them_from_the_result_once(tmp_path, capsys):
    from dcnsim import cli as cli_mod

    path = tmp_path / "pfc.json"
    path.write_text(json.dumps(lossy_pfc().to_dict()))
    assert cli_mod.main(["run", str(path), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    lines = [ln for ln in out.splitlines() if PFC_DROPS in ln or UNFINISHED in ln]
    r = dcnsim.run(lossy_pfc())
    # each in its place in the summary, in the words of Result.warnings, and not again on stderr
    assert lines == [f"               warning: {r.outcome_warnings()[0].message}",
                     f"  warning      {r.outcome_warnings()[1].message}"], lines
    assert PFC_DROPS not in err and UNFINISHED not in err
    # a summary of a result whose warnings hold them says each once
    text = cli_mod.format_summary(r)
    assert text.count(PFC_DROPS) == 1 and text.count(UNFINISHED) == 1


def dctcp_without_ecn() -> dict:
    return dcnsim.Scenario(topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="10us", buffer="32KB"),
                           tcp=dcnsim.Tcp(cc="dctcp"),
                           apps=dcnsim.SyncReads(client=0, servers="1-2", blocks=1)).to_dict()


@needs_core
def test_validate_gives_the_warnings_dcnsim_validate_prints(tmp_path, capsys):
    from dcnsim import cli as cli_mod

    problems = dcnsim.validate(dctcp_without_ecn())
    assert problems == [] and not problems
    assert [w.path for w in problems.warnings] == ["tcp.cc"] and "ecn_k" in problems.warnings[0].message
    path = tmp_path / "dctcp.json"
    path.write_text(json.dumps(dctcp_without_ecn()))
    assert cli_mod.main(["validate", str(path)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"{path}: valid, with 1 warning", f"{path}: warning: {problems.warnings[0]}"]
    # an invalid scenario: its problems, no warnings
    bad = dcnsim.validate({**dctcp_without_ecn(), "stop": "soon"})
    assert [p.path for p in bad] == ["stop"] and bad.warnings == []
    assert dcnsim.validate(dcnsim.with_overrides(dctcp_without_ecn(), {"topology.ecn_k": "20pkt"})).warnings == []


@needs_core
def test_a_sweep_says_an_outcome_once_whatever_its_numbers(tmp_path):
    from dcnsim.sweep import grid, run_sweep

    # two points, each with its own count of unfinished apps
    base = dcnsim.Scenario(topology=dcnsim.Star(hosts=5, rate="1Gbps", delay="10us", buffer="32KB"),
                           apps=[dcnsim.SyncReads(client=0, servers="1-2", sru="64KB", blocks=5),
                                 dcnsim.SyncReads(client=3, servers=[4], sru="8KB", blocks=1)], stop="300us")
    pts = grid(base, {"apps.1.blocks": [1, 50]})
    with pytest.warns(dcnsim.DcnsimWarning) as rec:
        df = run_sweep(pts, tmp_path, jobs=1, progress=False)
    said = [str(w.message) for w in rec if UNFINISHED in str(w.message)]
    assert sorted(df["apps_unfinished"]) == [1, 2]
    assert len(said) == 1 and "[2 of 2 points; the numbers are those of point" in said[0], said


def swift_on_long_links() -> dcnsim.Scenario:
    # Swift's default target (20 µs, htsim's, meant for 1 µs links) under a
    # path of 10 µs links: an idle path reads as congested
    return dcnsim.Scenario(topology=dcnsim.Star(hosts=2, rate="100Gbps", delay="10us", buffer="800000B"),
                           tcp=dcnsim.Tcp(transport="swift", mss=3960, header=40),
                           apps=[dcnsim.Bulk(src=0, dst=1, duration="2ms")], stop="2ms")


@needs_core
def test_every_outcome_warning_is_in_the_command_lines_summary_once(tmp_path, capsys):
    """Audit 29: `dcnsim run` printed only the outcome warnings it had a
    place for (HPCC's, PFC's, unfinished apps), and Swift's target below
    the path's delay, which dcnsim.run warns of, went unsaid."""
    from dcnsim import cli as cli_mod

    with pytest.warns(dcnsim.DcnsimWarning, match="swift_base_target"):
        r = dcnsim.run(swift_on_long_links())
    found = r.outcome_warnings()
    assert [p.path for p in found] == ["tcp.swift_base_target"], found
    path = tmp_path / "swift.json"
    path.write_text(json.dumps(swift_on_long_links().to_dict()))
    assert cli_mod.main(["run", str(path), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert out.count(found[0].message) == 1 and found[0].message not in err, out
    assert cli_mod.format_summary(r).count(found[0].message) == 1


@needs_core
def test_two_outcome_warnings_of_one_path_are_both_said(monkeypatch):
    # a PFC fabric can both drop at full buffers and deadlock: two
    # problems at "pfc", of which the summary once kept the last alone
    from dcnsim import cli as cli_mod
    from dcnsim.errors import Problem

    with pytest.warns(dcnsim.DcnsimWarning):
        r = dcnsim.run(lossy_pfc())
    said = [Problem("pfc", "drops at full buffers"), Problem("pfc", "a deadlock"),
            Problem("tcp.timely_t_low", "a path longer than T_low"), Problem("apps", "1 app(s) unfinished")]
    monkeypatch.setattr(r, "outcome_warnings", lambda: said)
    text = cli_mod.format_summary(r, warnings=False)
    for p in said:
        assert text.count(p.message) == 1, (p, text)
    lines = text.splitlines()
    # PFC's under the pfc row, the one without a place of its own before the totals, the apps' after them
    at = {p.message: next(i for i, ln in enumerate(lines) if p.message in ln) for p in said}
    pfc_row = next(i for i, ln in enumerate(lines) if ln.startswith("  pfc "))
    simulated = next(i for i, ln in enumerate(lines) if ln.startswith("  simulated"))
    assert pfc_row < at["drops at full buffers"] < at["a deadlock"] < simulated
    assert at["a path longer than T_low"] < simulated < at["1 app(s) unfinished"]
    assert "tcp.timely_t_low: a path longer than T_low" in lines[at["a path longer than T_low"]]
