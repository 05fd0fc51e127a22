"""benchmarks/ns3_side_by_side.py --instructions: each side once under
cachegrind, the ratio of instructions per packet-hop.

Valgrind, ns-3 and a release build of ``run_json`` are not all on every
machine, so stand-ins answer as they do: a ``valgrind`` (conftest.py's) that runs the
program and reports as cachegrind the instruction count the program names,
an ns-3 program that prints its ``packet_hops``, and a ``run_json`` that
prints its summary line and keeps the document it was given.
"""

import json
import stat
import sys
from pathlib import Path

import pytest
from conftest import load_module

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "ns3_side_by_side.py"

NS3 = r'''#!{python}
print("instr 120000000")
print("packet_hops 1000")
'''

RUN_JSON = r'''#!{python}
import shutil, sys
shutil.copy(sys.argv[1], "{kept}")
print("instr 1000000")
print("wall 0.100s events 1200 (0.01 M/s) hops 1005 (0.01 M/s)")
'''


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture()
def stand_ins(tmp_path, fake_valgrind):
    ns3 = _script(tmp_path / "incast", NS3.format(python=sys.executable))
    kept = tmp_path / "kept.json"
    run_json = _script(tmp_path / "run_json", RUN_JSON.format(python=sys.executable, kept=kept))
    return ns3, run_json, kept


def test_instructions_per_hop_and_their_ratio(stand_ins):
    ns3, run_json, kept = stand_ins
    sbs = load_module("ns3_side_by_side", SCRIPT)
    rec = sbs.count_instructions(["ns3_fast_incast_n100"], lambda s: ns3, run_json)
    (row,) = rec["rows"]
    assert (row["ns3_instructions"], row["ns3_hops"]) == (120_000_000, 1000)
    assert (row["dcnsim_instructions"], row["dcnsim_hops"]) == (1_000_000, 1005)
    assert row["ratio_per_hop"] == pytest.approx((120e6 / 1000) / (1e6 / 1005))
    assert row["hops_agree"]  # 0.5 %, within the 1 % both simulators must agree to
    # dcnsim's side is the timed pairs' document (ns-3's order of
    # equal-time events) on one thread
    doc = json.loads(kept.read_text())
    assert doc == {**sbs.SCENARIOS["ns3_fast_incast_n100"].doc(), "threads": 1}
    assert doc["ties"] == "fifo"
    table = sbs.instructions_markdown(rec)
    assert "| 120,000 |" in table and "| 995 |" in table and "120.6×" in table and "DISAGREE" not in table


def test_a_run_that_carries_other_packets_is_flagged(stand_ins, tmp_path):
    ns3, run_json, _ = stand_ins
    _script(ns3, NS3.format(python=sys.executable).replace("packet_hops 1000", "packet_hops 1100"))
    sbs = load_module("ns3_side_by_side", SCRIPT)
    rec = sbs.count_instructions(["ns3_dctcp_bulk_64"], lambda s: ns3, run_json)
    assert not rec["rows"][0]["hops_agree"]
    assert "DISAGREE" in sbs.instructions_markdown(rec)


def test_a_program_that_fails_under_valgrind_names_itself(stand_ins):
    ns3, run_json, _ = stand_ins
    _script(ns3, f"#!{sys.executable}\nimport sys\nsys.exit(3)\n")
    sbs = load_module("ns3_side_by_side", SCRIPT)
    with pytest.raises(RuntimeError, match=r"ns-3 \(ns3_fast_incast_n100\) under valgrind failed \(exit 3\)"):
        sbs.count_instructions(["ns3_fast_incast_n100"], lambda s: ns3, run_json)
