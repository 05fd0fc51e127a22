"""Code hygiene the test command enforces, so CI checks it on every clone:
`cargo fmt --check`, `cargo clippy -D warnings` on every Rust target,
`ruff check` on the Python (rules in pyproject.toml [tool.ruff.lint]), and
no function in stats/ longer than a screenful or two (issue 44)."""

from __future__ import annotations

import re
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


# The report and the limits read as named steps: a function past this many
# lines is a step that wants splitting (issue 44: `build` and `estimate`
# were 467 and 459 lines).
STATS_FN_MAX_LINES = 150
_RUST_FN = re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?fn\s+(\w+)")


def rust_function_lengths(text: str) -> dict[str, int]:
    """Lines of each `fn` of a Rust file that has a body, from its
    signature to its closing brace (braces in strings and comments are rare
    enough in this code to ignore)."""
    lines = text.splitlines()
    out: dict[str, int] = {}
    for i, line in enumerate(lines):
        m = _RUST_FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            opened = opened or "{" in lines[j]
            if not opened and lines[j].rstrip().endswith(";"):
                break  # a declaration without a body
            if opened and depth <= 0:
                out[f"{m.group(1)}:{i + 1}"] = j - i + 1
                break
    return out


def test_no_long_function_in_stats():
    long = {f"{p.name} {name}": n
            for p in sorted((ROOT / "crates" / "dcnsim" / "src" / "stats").glob("*.rs"))
            for name, n in rust_function_lengths(p.read_text()).items() if n > STATS_FN_MAX_LINES}
    assert not long, f"functions in stats/ over {STATS_FN_MAX_LINES} lines (split them into named steps): {long}"
    # and the count sees a long one
    body = "\n".join(f"    let x{k} = {k};" for k in range(STATS_FN_MAX_LINES))
    assert rust_function_lengths(f"pub fn build(w: &World) -> u64 {{\n{body}\n    0\n}}\nfn f();\n") == {
        "build:1": STATS_FN_MAX_LINES + 3}
