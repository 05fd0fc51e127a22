"""Code hygiene the test command enforces, so CI checks it on every clone:
`cargo fmt --check`, `cargo clippy -D warnings` on every Rust target, and
`ruff check` on the Python (rules in pyproject.toml [tool.ruff.lint])."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1200)


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not on PATH (it ships with rustup's default profile)")


def test_rust_is_rustfmt_clean():
    _need("cargo-fmt")
    r = _run(["cargo", "fmt", "--all", "--check"])
    assert r.returncode == 0, "run `cargo fmt --all`:\n" + r.stdout[-4000:] + r.stderr[-2000:]


def test_rust_has_no_clippy_warnings():
    _need("cargo-clippy")
    r = _run(["cargo", "clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-6000:]


def test_python_passes_ruff():
    pytest.importorskip("ruff", reason="ruff is in the test extras: pip install -e '.[test]'")
    r = _run([sys.executable, "-m", "ruff", "check", "python", "tests", "benchmarks"])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
