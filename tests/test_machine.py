"""dcnsim.machine: the machine a speed figure names (dcnsim bench, the benchmark scripts)."""

import json
import os
import subprocess
import sys

import pytest
from dcnsim import machine

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 26
model\t\t: 2
model name\t: Some Other CPU
"""


def _cache(root, index, level, kind, size, shared):
    d = root / f"index{index}"
    d.mkdir(parents=True)
    for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
        (d / name).write_text(f"{value}\n")


@pytest.fixture
def zen3(tmp_path):
    """/proc and /sys files as a 2-vCPU Zen 3 VM shows them."""
    (tmp_path / "cpuinfo").write_text(CPUINFO)
    (tmp_path / "meminfo").write_text("MemTotal:       24641536 kB\nMemFree:         1000 kB\n")
    caches = tmp_path / "cache"
    _cache(caches, 0, 1, "Data", "32K", "0")
    _cache(caches, 1, 1, "Instruction", "64K", "0")
    _cache(caches, 2, 2, "Unified", "512K", "0")
    _cache(caches, 3, 3, "Unified", "32768K", "0-1")
    return {"cpuinfo": str(tmp_path / "cpuinfo"), "caches": str(caches), "meminfo": str(tmp_path / "meminfo")}


def test_a_vm_is_named_by_its_first_processor_family_model_and_caches(zen3):
    d = machine.describe(**zen3)
    # the first processor's, not the last's (or a mix of both)
    assert d["cpu"] == "AMD EPYC (family 25, model 1)"
    assert (d["l2_kib"], d["l2_shared_by"]) == (512, 1)
    assert (d["l3_kib"], d["l3_shared_by"]) == (32768, 2)
    assert d["memory_gib"] == 23.5
    assert d["logical_cpus"] >= 1
    line = machine.line(d)
    assert line.startswith("AMD EPYC (family 25, model 1), ")
    assert "L2 512 KiB a core, L3 32 MiB shared by 2, 23.5 GiB" in line
    # the instruction cache is not a data cache: no 64 KiB anywhere
    assert "64 KiB" not in line
    assert machine.l3_label(d) == "32 MiB"


def test_what_the_system_does_not_say_is_left_out_not_guessed(tmp_path):
    d = machine.describe(cpuinfo=str(tmp_path / "none"), caches=str(tmp_path / "none"),
                         meminfo=str(tmp_path / "none"))
    assert d["l2_kib"] is None and d["l3_kib"] is None and d["memory_gib"] is None
    assert d["cpu"]  # the platform module's name, or "unknown CPU"
    line = machine.line(d)
    assert "L2" not in line and "L3" not in line and "GiB" not in line
    assert machine.l3_label(d) == "unknown"


def test_a_shared_l2_says_so_and_sizes_read_in_any_unit(tmp_path):
    caches = tmp_path / "cache"
    _cache(caches, 0, 2, "Unified", "2M", "0-1,4-5")
    _cache(caches, 1, 3, "Unified", "1536K", "0-7")
    _cache(caches, 2, 4, "Unified", "bogus", "0")  # unreadable: skipped
    d = machine.describe(cpuinfo=str(tmp_path / "none"), caches=str(caches), meminfo=str(tmp_path / "none"))
    assert (d["l2_kib"], d["l2_shared_by"]) == (2048, 4)
    assert (d["l3_kib"], d["l3_shared_by"]) == (1536, 8)
    line = machine.line(d)
    assert "L2 2 MiB shared by 4" in line and "L3 1536 KiB shared by 8" in line
    assert machine._size_kib("4096") == 4  # bytes, no unit


@pytest.mark.skipif(not os.path.isdir("/sys/devices/system/cpu"), reason="no /sys CPU description (not Linux)")
def test_this_machine_has_a_bigger_l3_than_l2():
    d = machine.describe()
    if d["l2_kib"] and d["l3_kib"]:
        assert d["l3_kib"] > d["l2_kib"]
    assert d["logical_cpus"] >= 1 and d["load_average"] is not None and d["load_average"] >= 0


def test_the_benchmark_scripts_name_the_machine():
    # the scripts print machine.line() before their figures; the cheapest to run whole
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "machine_noise.py")
    p = subprocess.run([sys.executable, script, "--chunks", "4", "--chunk-ms", "0.1"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    first = p.stdout.splitlines()[0]
    assert first.startswith("machine: ") and machine.describe()["cpu"] in first


def test_describe_is_json():
    json.dumps(machine.describe())


def test_a_record_keeps_the_l2_and_its_machine_line_names_it():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "bench_record", Path(__file__).resolve().parent.parent / "benchmarks" / "record.py")
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    m = record.machine()
    assert m["l2_kib"] == machine.describe()["l2_kib"]
    base = {"cpu": "AMD EPYC (family 25, model 1), L3 32 MiB", "logical_cpus": 2, "memory_gb": 23.5,
            "os": "Linux", "python": "3.11.7"}
    assert "L2 512 KiB a core, 23.5 GiB, Linux" in record.render_machine({"machine": {**base, "l2_kib": 512}})
    # an older record, without it: the line as it was
    assert "L2" not in record.render_machine({"machine": base})
    # the key is memory_gib now; the older key's value was GiB too (MemTotal over 2^20 kB)
    assert "memory_gb" not in m and m["memory_gib"] == machine.describe()["memory_gib"]
    base.pop("memory_gb")
    assert "CPUs, 23.5 GiB, Linux" in record.render_machine({"machine": {**base, "memory_gib": 23.5}})
    # a machine whose memory could not be read: no figure, no "None GiB"
    assert "CPUs, Linux" in record.render_machine({"machine": {**base, "memory_gib": None}})


def test_a_process_that_compiles_dcnsim_again_is_named_one_that_reads_its_bytecode_is_not(tmp_path):
    # Python's -B (PYTHONDONTWRITEBYTECODE) with no bytecode cached for the
    # package, as an editable install on such a machine: every process
    # compiles it; once all of it is cached (pip install . compiles it whole), none does
    code = ("import json; from dcnsim import machine; print(json.dumps([machine.compile_note(), "
            "machine.preamble(whole_process=True), machine.preamble()]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")

    def note(*flags):
        p = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        said, timed_whole, timed_in_process = json.loads(p.stdout)
        # a benchmark of whole processes says so under its machine line; one timed in process never does
        assert timed_in_process.startswith("machine: ") and "\n" not in timed_in_process
        lines = timed_whole.split("\n")
        assert lines[0].startswith("machine: ")
        assert lines[1:] == ([] if said is None else [f"note: {said}"])
        return said

    def missing(said):
        return int(said.split(" of ", 1)[0])

    fresh = note("-B")
    assert fresh is not None and "compiles them again" in fresh and "pip install ." in fresh
    assert note() is None  # bytecode allowed: this run writes what it imports, under the prefix
    partly = note("-B")  # and the next reads that, but compiles the modules the first did not import
    assert partly is not None and 0 < missing(partly) < missing(fresh)
    # compiled whole, as pip install . does: nothing left to compile
    package = os.path.dirname(machine.__file__)
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=env, check=True, timeout=300)
    assert note("-B") is None
