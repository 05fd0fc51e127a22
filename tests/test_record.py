"""benchmarks/record.py: what it records and refuses to record. The
side-by-side scripts are replaced by stand-ins (their real runs take ns-3
or htsim and minutes), so what is tested is record.py's own handling of
their exit status and record files, its results.json and its arguments."""
import json
import subprocess
from pathlib import Path

import pytest
from conftest import load_module

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "record.py"


def _record():
    return load_module("bench_record", SCRIPT)


def _child(monkeypatch, record, returncode, write=None):
    """record.py's subprocess.run replaced: the child writes ``write`` (a
    record, or None for nothing) to its --json path and exits ``returncode``."""
    seen = []

    def run(cmd, check=False, **kw):
        seen.append(list(cmd))
        out = Path(cmd[cmd.index("--json") + 1])
        assert not out.exists(), "the record's path must be new to this run"
        if write is not None:
            out.write_text(json.dumps(write))
        return subprocess.CompletedProcess(cmd, returncode)

    monkeypatch.setattr(record.subprocess, "run", run)
    return seen


def test_the_ns3_record_is_the_file_this_run_wrote(monkeypatch):
    record = _record()
    rec = {"pairs": 1, "rows": [{"scenario": "ns3_fast_incast_n100", "hops_agree": False}]}
    # exit 1: the packet-hops disagree, which the record's rows say
    seen = _child(monkeypatch, record, 1, rec)
    assert record.measure_ns3(1, "ns3") == rec
    cmd = seen[0]
    assert cmd[cmd.index("--scenario") + 1:cmd.index("--json")] == list(record.NS3["ns3"])
    # outside the repository: a file left there by an earlier run is never read
    assert REPO not in Path(cmd[cmd.index("--json") + 1]).parents


@pytest.mark.parametrize("section", ["ns3", "ns3_perm", "htsim"])
def test_a_child_that_writes_no_record_stops_the_recording(monkeypatch, section):
    record = _record()
    _child(monkeypatch, record, 0, None)
    with pytest.raises(SystemExit, match="wrote no record.*kept as it was"):
        record.measure_htsim("/bin/htsim", 1) if section == "htsim" else record.measure_ns3(1, section)


def test_a_failed_child_stops_the_recording_even_with_a_record(monkeypatch):
    record = _record()
    # htsim_side_by_side.py writes its record after every k: exit 1 after a
    # later k failed leaves a partial one
    _child(monkeypatch, record, 1, {"rows": []})
    with pytest.raises(SystemExit, match="htsim_side_by_side.py exited with 1 .*htsim section"):
        record.measure_htsim("/bin/htsim", 1)
    # ns-3's usage errors (exit 2: ns-3 not installed) are no record either
    _child(monkeypatch, record, 2, None)
    with pytest.raises(SystemExit, match="ns3_side_by_side.py exited with 2"):
        record.measure_ns3(1, "ns3")


def _isolated(monkeypatch, record, tmp_path, text=None):
    """record.py's results file and docs moved into ``tmp_path`` (the file
    holding ``text`` when given), its measuring replaced by constants."""
    results = tmp_path / "results.json"
    if text is not None:
        results.write_text(text, encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- results.json: bench -->\nold\n<!-- /results.json -->\n", encoding="utf-8")
    monkeypatch.setattr(record, "ROOT", tmp_path)
    monkeypatch.setattr(record, "RESULTS", results)
    monkeypatch.setattr(record, "DOCS", [doc])
    monkeypatch.setattr(record.load, "__defaults__", (results,))
    monkeypatch.setattr(record.save, "__defaults__", (results,))
    monkeypatch.setattr(record, "stamp", lambda: {"date": "2026-12-01 00:00 UTC", "commit": "abc", "load_average": 0.1})
    monkeypatch.setattr(record, "machine", lambda: {"cpu": "CPU", "logical_cpus": 2})
    monkeypatch.setattr(record, "measure_bench", lambda names, repeat: {"repeat": repeat, "scenarios": {}})
    monkeypatch.setattr(record, "RENDER", {"bench": lambda r: f"bench repeat {r['bench']['repeat']}"})
    return results, doc


@pytest.mark.parametrize("argv", [["--docs-only"], ["--only", "bench"]])
def test_a_results_file_cut_short_is_named_not_a_traceback(monkeypatch, tmp_path, argv):
    record = _record()
    results, _ = _isolated(monkeypatch, record, tmp_path, '{"bench": {"repeat": 3, "scen')
    with pytest.raises(SystemExit) as e:
        record.main(argv)
    assert str(results) in str(e.value) and "not valid JSON" in str(e.value)


def test_a_failed_write_leaves_the_results_and_the_docs_whole(monkeypatch, tmp_path):
    import errno
    import os

    record = _record()
    before = json.dumps({"bench": {"repeat": 3, "scenarios": {}}})
    results, doc = _isolated(monkeypatch, record, tmp_path, before)
    doc_before = doc.read_text(encoding="utf-8")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    # the disk fills as the new file is flushed: the old one stays as it was
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        record.main(["--only", "bench", "--repeat", "2"])
    assert results.read_text(encoding="utf-8") == before
    assert doc.read_text(encoding="utf-8") == doc_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.md", "results.json"]
    monkeypatch.undo()
    # and with room, both are written
    _isolated(monkeypatch, record, tmp_path)
    assert record.main(["--only", "bench", "--repeat", "2"]) == 0
    assert json.loads(results.read_text(encoding="utf-8"))["bench"]["repeat"] == 2
    assert "bench repeat 2" in doc.read_text(encoding="utf-8")


@pytest.mark.parametrize("flag", ["--repeat", "--pairs"])
@pytest.mark.parametrize("value", ["0", "-1"])
def test_repeat_and_pairs_below_one_are_usage_errors(flag, value, monkeypatch, tmp_path, capsys):
    record = _record()
    # in a scratch directory: a record.py that took the value would measure and write there
    results, _ = _isolated(monkeypatch, record, tmp_path)
    with pytest.raises(SystemExit) as e:
        record.main(["--only", "bench", flag, value])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"{flag}: at least 1, got {value}" in err, err
    assert not results.exists()


def test_the_rendered_commands_name_what_was_measured():
    """A table's command reproduces it: `dcnsim bench` without --scenario
    runs its default set, not the table's, and ns3_side_by_side.py's
    default is not the permutations."""
    record = _record()
    results = record.load()
    bench = record.render_bench(results)
    names = list(results["bench"]["scenarios"])
    want = f"`dcnsim bench --repeat {results['bench']['repeat']}" + "".join(f" --scenario {n}" for n in names) + "`"
    assert want in bench, bench
    for section in ("ns3", "ns3_perm"):
        text = record.render_ns3(results, section)
        ran = dict.fromkeys(r["scenario"] for r in results[section]["rows"])
        assert f"--pairs {results[section]['pairs']} --scenario {' '.join(ran)}`" in text, text
    # the incasts are the records' scenarios, the permutations the other's
    assert list(dict.fromkeys(r["scenario"] for r in results["ns3"]["rows"])) == list(record.NS3["ns3"])


def test_ns3_side_by_side_runs_the_two_incasts_by_default(monkeypatch):
    """docs/performance.md's `ns3_side_by_side.py --pairs 3` is "the two
    incasts"; the permutations take ns-3 minutes a run and are asked for."""
    ns3 = load_module("ns3_side_by_side", REPO / "benchmarks" / "ns3_side_by_side.py")
    asked = []
    monkeypatch.setattr(ns3.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 0, "3.37\n", ""))
    monkeypatch.setattr(ns3.shutil, "which", lambda name: f"/usr/bin/{name}")

    def measure(names, pairs, build):
        asked.append(list(names))
        return {"ns3": "3.37", "machine": "m", "rows": []}

    monkeypatch.setattr(ns3, "measure", measure)
    assert ns3.main(["--pairs", "1"]) == 0
    assert ns3.main(["--pairs", "1", "--scenario", "ns3_dctcp_perm_k4"]) == 0
    assert asked == [["ns3_fast_incast_n100", "ns3_dctcp_bulk_64"], ["ns3_dctcp_perm_k4"]]
