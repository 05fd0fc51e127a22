"""benchmarks/ns3_side_by_side.py's checks before it measures: what it
needs and does not find (ns-3, pkg-config, valgrind) and a --json or
--run-json it could not use are usage errors naming the reason, not
tracebacks. No ns-3 is run: the tools are stand-ins on a PATH of their own."""
import os
import stat
import subprocess
import sys
from pathlib import Path

from conftest import load_module

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "ns3_side_by_side.py"


def _tool(bin_dir: Path, name: str, body: str = "exit 0") -> Path:
    bin_dir.mkdir(exist_ok=True)
    p = bin_dir / name
    p.write_text(f"#!/bin/sh\n{body}\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


def _run(tmp_path, *args, tools=()):
    """The script with only ``tools`` (stand-ins that succeed) on its PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for t in tools:
        _tool(bin_dir, t)
    env = {**os.environ, "PATH": str(bin_dir)}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


def test_no_pkg_config_is_ns3_not_installed(tmp_path):
    p = _run(tmp_path, "--pairs", "1")
    assert p.returncode == 2, p.stderr
    assert "ns-3 is not installed (apt-get install libns3-dev ns3 g++ pkg-config)" in p.stderr
    assert "Traceback" not in p.stderr


def test_instructions_without_valgrind_says_so(tmp_path):
    p = _run(tmp_path, "--instructions", tools=["pkg-config"])
    assert p.returncode == 2, p.stderr
    assert "--instructions needs valgrind (apt-get install valgrind)" in p.stderr
    assert "Traceback" not in p.stderr


def test_a_json_path_without_its_directory_is_refused_before_measuring(tmp_path):
    p = _run(tmp_path, "--json", str(tmp_path / "no-such-dir" / "x.json"), tools=["pkg-config"])
    assert p.returncode == 2, p.stderr
    assert "--json:" in p.stderr and "no-such-dir" in p.stderr and "Traceback" not in p.stderr


def test_a_relative_run_json_is_run_by_its_path(tmp_path, monkeypatch):
    """A bare name checked in the current directory must not be looked up
    on PATH when run (valgrind would not find it, or find another)."""
    mod = load_module("ns3_side_by_side", SCRIPT)
    _tool(tmp_path, "run_json")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(mod.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(mod.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 0, "3.37\n", ""))
    given = []

    def count(names, exe_of, run_json):
        given.append(run_json)
        return {"rows": []}

    monkeypatch.setattr(mod, "count_instructions", count)
    assert mod.main(["--instructions", "--run-json", "run_json", "--json", "out.json"]) == 0
    assert given == [tmp_path / "run_json"] and given[0].is_absolute()
    assert (tmp_path / "out.json").is_file()
