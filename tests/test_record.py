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
