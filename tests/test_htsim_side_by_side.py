"""benchmarks/htsim_side_by_side.py end to end, with a stand-in for htsim.

The real htsim binary is built outside the repository (the script's
docstring says how), so CI has none. The stand-in takes htsim's arguments
and writes a log in htsim's binary format for a permutation whose flows
each deliver a known number of bytes; the script must read that log back
to the hops the fat-tree's paths imply, and run dcnsim's side in every
setting asked for, each setting the simulation it names.
"""

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_module, needs_core

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "htsim_side_by_side.py"

#: what every stand-in flow delivers by 0.20 s, and its rate after it
CACK = 90_000
RATE = 0.0

FAKE_HTSIM = r'''#!{python}
import os, struct, sys, time
args = sys.argv[1:]
# htsim draws its permutation from srand(time(NULL)): with FAKE_HTSIM_ABORTS
# set, the first run aborts as its builder's assertion does, and so does
# every run in the same second of the clock (the same draw)
marker = os.environ.get("FAKE_HTSIM_ABORTS")
if marker:
    if not os.path.exists(marker) or open(marker).read() == str(int(time.time())):
        open(marker, "w").write(str(int(time.time())))
        os.abort()
nodes = int(args[args.index("-nodes") + 1])
log = args[args.index("-o") + 1]
rec = struct.Struct("<dIIIddd")
with open(log, "wb") as f:
    # a permutation: host i sends to host (i + nodes // 2) % nodes
    for i in range(nodes):
        f.write(f": dctcp_sink_{{i}}_{{(i + nodes // 2) % nodes}}={{1000 + i}}\n".encode())
    f.write(b"# TRACE\n")
    for i in range(nodes):
        f.write(rec.pack(0.10, 11, 1000 + i, 0, {cack} / 2, 0.0, 0.0))
        f.write(rec.pack(0.20, 11, 1000 + i, 0, {cack}, 0.0, {rate}))
'''


@pytest.fixture()
def fake_htsim(tmp_path):
    p = tmp_path / "htsim_dctcp_permutation"
    p.write_text(FAKE_HTSIM.format(python=sys.executable, cack=CACK, rate=RATE))
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


def test_the_log_is_read_to_the_hops_of_its_flows_paths(fake_htsim, tmp_path):
    """k = 4: host i sends to i + 8, always in the other pod (6 links); each
    of the 16 flows delivered CACK bytes, CACK / 9000 packets, each packet
    and its ACK crossing the path."""
    mod = load_module("htsim_side_by_side", SCRIPT)
    subprocess.run([str(fake_htsim), "-nodes", "16", "-conns", "16", "-o", str(tmp_path / "log")], check=True)
    got = mod.read_htsim_log(tmp_path / "log", 4)
    assert got["flows"] == 16 and got["t_last"] == 0.20
    assert got["packets"] == pytest.approx(16 * CACK / 9000)
    assert got["hops"] == pytest.approx(16 * 2 * (CACK / 9000) * 6)


@needs_core
def test_the_fifo_row_runs_htsims_tie_order_and_the_others_dcnsims_default(fake_htsim, tmp_path):
    out = tmp_path / "side.json"
    r = subprocess.run([sys.executable, str(SCRIPT), str(fake_htsim), "--pairs", "1", "--k", "4",
                        "--threads", "1", "--fifo", "--json", str(out)],
                       capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("machine: "), r.stdout
    doc = json.loads(out.read_text())
    assert doc["fifo"] is True
    rows = {(row["threads"], row["ties"]): row for row in doc["rows"]}
    assert set(rows) == {(1, "default"), (1, "fifo")}
    assert "| 1, fifo ties (1) |" in r.stdout
    # each row is the simulation it names: the same run through the library
    from dcnsim import run
    from dcnsim.bench import dctcp_perm

    for ties in ("default", "fifo"):
        scenario = dctcp_perm(4, "210ms")
        scenario["threads"] = 1
        if ties == "fifo":
            scenario["ties"] = "fifo"
        hops = run(scenario).summary["packet_hops"]
        row = rows[(1, ties)]
        assert row["threads_used"] == [1]
        assert row["dcnsim_hops"] == hops, (ties, row["dcnsim_hops"], hops)
        # htsim's way of counting (each delivered packet and an ACK for it,
        # over the path) against dcnsim's counter: the same traffic
        assert row["dcnsim_hops_from_deliveries"] == pytest.approx(row["dcnsim_hops"], rel=0.02)
        assert row["htsim_hops"] == pytest.approx(16 * 2 * (CACK / 9000) * 6)
        # ratio per CPU second is hops per CPU second, dcnsim's over htsim's
        run0, h0 = row["dcnsim_runs"][0], row["htsim_runs"][0]
        assert row["ratio_cpu"] == pytest.approx((run0["hops_exact"] / run0["cpu"]) / (h0["hops"] / h0["cpu"]))


def test_an_aborted_htsim_run_is_retried_with_another_draw(fake_htsim, tmp_path, monkeypatch):
    """A retry in the same second would draw the same permutation and abort
    again: the script waits for the clock's next second."""
    mod = load_module("htsim_side_by_side", SCRIPT)
    monkeypatch.setenv("FAKE_HTSIM_ABORTS", str(tmp_path / "drawn"))
    got = mod.run_htsim(str(fake_htsim), 4, retries=1)
    assert got["retries"] == 1 and got["flows"] == 16


# ---------------------------------------------------------------- --instructions

RUN_JSON = r'''#!{python}
import json, sys
doc = json.load(open(sys.argv[1]))
with open("{kept}", "a") as f:
    f.write(json.dumps(doc) + "\n")
print("instr 2000000\nd1 30000\nll 100")
print("wall 0.100s events 1200 (0.01 M/s) hops 2000 (0.01 M/s)")
'''


@pytest.fixture()
def cachegrind_stand_ins(fake_htsim, fake_valgrind, tmp_path):
    # htsim's stand-in names its counts too
    fake_htsim.write_text(fake_htsim.read_text() + 'print("instr 30000000\\nd1 900000\\nll 5000")\n')
    kept = tmp_path / "kept.jsonl"
    run_json = tmp_path / "run_json"
    run_json.write_text(RUN_JSON.format(python=sys.executable, kept=kept))
    run_json.chmod(run_json.stat().st_mode | stat.S_IXUSR)
    return fake_htsim, run_json, kept


@needs_core
def test_instructions_per_hop_on_both_sides(cachegrind_stand_ins, tmp_path):
    htsim, run_json, kept = cachegrind_stand_ins
    out = tmp_path / "counts.json"
    r = subprocess.run([sys.executable, str(SCRIPT), str(htsim), "--instructions", "--k", "4", "--fifo",
                        "--run-json", str(run_json), "--LL", "524288,8,64", "--json", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("machine: ")
    doc = json.loads(out.read_text())
    assert doc["ll"] == "524288,8,64"
    rows = {row["ties"]: row for row in doc["rows"]}
    assert set(rows) == {"default", "fifo"}
    htsim_hops = 16 * 2 * (CACK / 9000) * 6
    for row in rows.values():
        assert row["htsim"]["hops"] == pytest.approx(htsim_hops)
        assert row["dcnsim"]["hops"] == 2000
        assert row["ratio_instructions_per_hop"] == pytest.approx((30e6 / htsim_hops) / (2e6 / 2000))
    # dcnsim's side is the mirror on one thread, in each order asked
    docs = [json.loads(line) for line in kept.read_text().splitlines()]
    assert [d["threads"] for d in docs] == [1, 1]
    assert [d.get("ties") for d in docs] == [None, "fifo"]
    assert "| 4 | dcnsim, fifo ties | 1,000 | 15.00 | 0.050 | 2,000 |" in r.stdout


def test_instructions_without_run_json_is_a_usage_error(cachegrind_stand_ins, tmp_path):
    htsim, _run_json, _kept = cachegrind_stand_ins
    r = subprocess.run([sys.executable, str(SCRIPT), str(htsim), "--instructions", "--run-json",
                        str(tmp_path / "missing")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cargo build --release --example run_json" in r.stderr, r.stderr


@needs_core
def test_binaries_named_relative_to_the_current_directory_run_from_there(cachegrind_stand_ins, tmp_path):
    """htsim runs in a temporary directory (its log's): a path checked
    against the current directory must be made absolute first, and a bare
    run_json must not be looked up on PATH."""
    htsim, run_json, _kept = cachegrind_stand_ins
    r = subprocess.run([sys.executable, str(SCRIPT), f"./{htsim.name}", "--instructions", "--k", "4",
                        "--run-json", run_json.name], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "| 4 | htsim | 15,625 |" in r.stdout and "| 4 | dcnsim | 1,000 |" in r.stdout, r.stdout


def test_a_json_path_without_its_directory_is_refused_before_measuring(fake_htsim, tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), str(fake_htsim), "--k", "4", "--json",
                        str(tmp_path / "no-such-dir" / "side.json")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "--json:" in r.stderr and "no-such-dir" in r.stderr and "Traceback" not in r.stderr
    assert "htsim rounds" not in r.stderr
