"""Shared fixtures. Tests that need the Rust core skip (with a reason) until
`dcnsim._core.run` exists; everything else runs regardless."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest
from dcnsim import _core

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SCENARIOS = ROOT / "scenarios"

# Every figure any test makes (the quick reproductions, tune, the demo, in
# this process and in the CLI subprocesses it starts) is checked before it
# is written: nothing cut by the canvas, units on physical axes, error bars
# explained (dcnsim.plots.figure_problems).
os.environ["DCNSIM_CHECK_FIGURES"] = "1"

needs_core = pytest.mark.skipif(
    not (hasattr(_core, "run") and hasattr(_core, "validate")),
    reason="dcnsim._core has no run()/validate() yet (Rust core not built)",
)


@pytest.fixture(autouse=True)
def _conservation_checked(monkeypatch):
    """Every run made in-process by any test is checked against the
    accounting laws (bytes delivered exactly once, packets accounted)."""
    real = dcnsim.run

    def checked(*a, **kw):
        r = real(*a, **kw)
        problems = r.conservation_problems()
        assert not problems, "conservation violated: " + "; ".join(problems)
        return r

    monkeypatch.setattr(dcnsim, "run", checked)
    yield


def cli(*args: str, cwd=None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m dcnsim ARGS` in a fresh interpreter."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "-m", "dcnsim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


def small_incast(**over) -> dcnsim.Scenario:
    """The builder twin of tests/data/small_incast.toml."""
    kw = dict(
        name="small-incast",
        seed=7,
        stop="2s",
        pcap=[0, 1],
        routing=None,
        l2_overhead=None,
        topology=dcnsim.Star(hosts=5, rate="1Gbps", delay="10us", buffer="16KB"),
        tcp=dcnsim.Tcp(mss=1024, rto_min="1ms", rwnd="64pkt"),
        apps=[dcnsim.SyncReads(client=0, servers="1-4", sru="64KB", blocks=3, jitter="20us")],
    )
    kw.update(over)
    return dcnsim.Scenario(**kw)


def small_pa(queries: int = 3, workers: str = "1-6") -> dict:
    return {
        "name": "small-pa",
        "stop": "1s",
        "topology": {"kind": "star", "hosts": 7, "rate": "1Gbps", "delay": "25us", "buffer": "32KB"},
        "tcp": {"rto_min": "1ms"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": workers, "response": "10KB", "queries": queries}],
    }


def small_rps(seed: int = 1) -> dict:
    return {
        "name": "small-rps",
        "seed": seed,
        "stop": "20ms",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "25us", "buffer": "100pkt"},
        "routing": {"mode": "rps"},
        "apps": [
            {"kind": "bulk", "src": 0, "dst": 15, "size": "300KB"},
            {"kind": "bulk", "src": 1, "dst": 14, "size": "300KB"},
            {"kind": "bulk", "src": 4, "dst": 15, "size": "300KB"},
        ],
    }


def pcap_records(data: bytes):
    """Parse a classic pcap file: (linktype, [(time_s, incl_len, orig_len)]).
    Asserts the structure: a known magic and records that exactly fill the file."""
    import struct

    magic = data[:4]
    assert magic in (b"\x4d\x3c\xb2\xa1", b"\xd4\xc3\xb2\xa1"), magic.hex()  # ns / us, little-endian
    scale = 1e-9 if magic == b"\x4d\x3c\xb2\xa1" else 1e-6
    linktype = struct.unpack("<I", data[20:24])[0]
    off, recs = 24, []
    while off < len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[off : off + 16])
        assert incl <= orig
        recs.append((sec + frac * scale, incl, orig))
        off += 16 + incl
    assert off == len(data), "truncated record"
    return linktype, recs


@pytest.fixture
def small_incast_path() -> Path:
    return DATA / "small_incast.toml"


def pytest_configure(config):
    # hypothesis' optional libcst import warns on some installs; not ours
    config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning:libcst.*")
