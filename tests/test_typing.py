"""Package hygiene: the typed public API passes mypy, the Rust extension
matches its stub (`mypy.stubtest`), and `dcnsim --version` answers. Part of
the single test command, so CI checks them."""

from __future__ import annotations

import subprocess
import sys

import dcnsim
import pytest
from conftest import ROOT, cli, needs_core

mypy = pytest.importorskip("mypy", reason="mypy is in the test extras: pip install -e '.[test]'")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_mypy_passes_on_the_package():
    r = run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert r.returncode == 0, r.stdout + r.stderr


@needs_core
def test_core_stub_matches_the_extension():
    r = run("mypy.stubtest", "dcnsim._core")
    assert r.returncode == 0, r.stdout + r.stderr


def test_version_flag():
    r = cli("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == f"dcnsim {dcnsim.__version__}"


def test_a_users_typed_call_with_a_numpy_seed_passes_mypy(tmp_path):
    """`dcnsim.run` takes any integer type as its seed (numpy's too, as
    its docstring says): a user's script that passes one passes mypy
    --strict (the hint said `int`, and mypy refused np.int64)."""
    script = tmp_path / "user.py"
    script.write_text("import numpy as np\nimport dcnsim\n\n"
                      "r = dcnsim.run('scenarios/kulkarni_incast.toml', seed=np.int64(3))\n"
                      "n: int = len(r.flows)\n")
    r = run("mypy", "--strict", str(script))
    assert r.returncode == 0, r.stdout + r.stderr
