"""Under CI=true a skip that is not on conftest.CI_ALLOWED_SKIPS fails the
run; without CI it stays a skip. Checked on a throwaway suite that uses
this directory's conftest.py, in a pytest subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SUITE = '''
import os
import pytest

def test_runs():
    pass

def test_skips_itself():
    pytest.skip("no frobnicator on this machine")

@pytest.mark.skipif(True, reason="marked away")
def test_marked_skip():
    pass

@pytest.mark.skipif(True, reason="tshark not installed (Debian: apt-get install tshark)")
def test_needs_tshark():
    pass

@pytest.mark.skipif(True, reason="ns-3 (Debian's libns3-dev: pkg-config ns3-core) or g++ missing")
def test_needs_ns3():
    pass

@pytest.mark.skipif(True, reason="POSIX signals")
def test_needs_posix():
    pass

@pytest.mark.skipif(True, reason="the HPCC authors' ns-3 fork is not built (HPCC_NS3_THIRD unset)")
def test_needs_the_hpcc_fork():
    pass

@pytest.mark.xfail(reason="a known bug, not a skip")
def test_expected_failure():
    assert False
'''

MODULE_SKIP = '''
import pytest
pytest.importorskip("a_module_nobody_has")

def test_never_collected():
    pass
'''


def outcomes(tmp_path: Path, ci: bool) -> dict:
    """test name -> passed / failed / skipped / error (collection errors
    under the module's name)."""
    suite = tmp_path / ("ci" if ci else "local")
    suite.mkdir()
    (suite / "conftest.py").write_text((HERE / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    (suite / "test_suite.py").write_text(SUITE)
    (suite / "test_module_skip.py").write_text(MODULE_SKIP)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    report = suite / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", "--continue-on-collection-errors",
                    "--rootdir", str(suite), str(suite)], cwd=suite, env=env, capture_output=True, text=True,
                   timeout=300)
    got = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        name = case.get("name") or ""
        got[name] = {"failure": "failed", "error": "error", "skipped": "skipped"}.get(kinds[0], "?") if kinds else "passed"
        if kinds and kinds[0] in ("failure", "error"):
            got[name + ".message"] = next(iter(case)).get("message", "") + (next(iter(case)).text or "")
    return got


def test_without_ci_skips_stay_skips(tmp_path):
    got = outcomes(tmp_path, ci=False)
    assert got["test_runs"] == "passed"
    for name in ("test_skips_itself", "test_marked_skip", "test_needs_tshark", "test_needs_ns3", "test_needs_posix",
                 "test_needs_the_hpcc_fork"):
        assert got[name] == "skipped", (name, got)
    assert got["test_expected_failure"] == "skipped"  # junit's word for xfail
    assert "test_never_collected" not in got


def test_under_ci_a_skip_off_the_allowlist_fails(tmp_path):
    import conftest

    got = outcomes(tmp_path, ci=True)
    assert got["test_runs"] == "passed"
    # a skip at setup (a skipif mark) fails as an error, one in the test body as a failure: both fail the run
    bad = ("failed", "error")
    for name in ("test_skips_itself", "test_marked_skip"):
        assert got[name] in bad, (name, got)
        assert "not on conftest.CI_ALLOWED_SKIPS" in got[name + ".message"], got[name + ".message"]
    # the allowlist, where it applies here
    assert (got["test_needs_tshark"] in bad) is conftest._apt_can_install(), got
    # ns-3 likewise (.ci/setup-tools installs Debian's libns3-dev where it can)
    assert (got["test_needs_ns3"] in bad) is conftest._apt_can_install(), got
    assert got["test_needs_posix"] in (bad if os.name == "posix" else ("skipped",)), got
    # the fork: allowed while HPCC_NS3_THIRD names none (a run that names one must not skip it)
    assert got["test_needs_the_hpcc_fork"] in (bad if os.environ.get("HPCC_NS3_THIRD") else ("skipped",)), got
    assert got["test_expected_failure"] == "skipped", got  # xfail is not a skip
    # a module skipped at import fails too
    assert any(v == "error" and "test_module_skip" in k for k, v in got.items()), got


@pytest.mark.parametrize("value, ci", [("true", True), ("1", True), ("false", False), ("", False)])
def test_which_ci_values_count(monkeypatch, value, ci):
    import conftest

    monkeypatch.setenv("CI", value)
    assert conftest._in_ci() is ci
