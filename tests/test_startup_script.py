"""benchmarks/startup.py's arguments: what it cannot measure or cannot
write is a usage error given at once, not a traceback after minutes of
fresh processes (its measurements are tests/test_startup.py's subject)."""
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "startup.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("value", ["0", "-1"])
def test_repeat_below_one_is_a_usage_error(value):
    p = _run("--repeat", value)
    assert p.returncode == 2, p.stderr
    assert f"--repeat must be at least 1, got {value}" in p.stderr and "Traceback" not in p.stderr


def test_a_json_path_without_its_directory_is_refused_before_measuring(tmp_path):
    p = _run("--json", str(tmp_path / "no-such-dir" / "startup.json"))
    assert p.returncode == 2, p.stderr
    assert "--json:" in p.stderr and "no-such-dir" in p.stderr and "Traceback" not in p.stderr
