"""benchmarks/boundary_cost.py: the "Result (DataFrames)" time holds the
DataFrames. Result builds each table on first access, so a clock stopped
after ``Result(...)`` alone timed none of them. The core and Result are
stand-ins that log when they run and when a table is built."""
import types
from pathlib import Path

from conftest import load_module

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "boundary_cost.py"


def test_every_table_is_built_inside_the_dataframes_clock(monkeypatch):
    bc = load_module("boundary_cost", SCRIPT)
    log = []

    class Tables(dict):
        def __getitem__(self, name):
            log.append(f"built {name}")
            return super().__getitem__(name)

    class FakeResult:
        def __init__(self, raw, doc):
            log.append("Result")
            self.tables = Tables(flows=[1, 2, 3], links=[1])

    def run(text):
        log.append("run")
        return {"timing": {"wall_s": 0.0}}

    monkeypatch.setattr(bc, "_core", types.SimpleNamespace(run=run))
    monkeypatch.setattr(bc, "Result", FakeResult)
    monkeypatch.setattr(bc, "time", types.SimpleNamespace(perf_counter=lambda: log.append("clock") or 0.0))
    conv, frames, rows, _ = bc.measure(bc.scenario("1ms"), 2)
    assert rows == 4 and len(conv) == len(frames) == 2
    one = ["clock", "run", "clock", "Result", "built flows", "built links", "clock"]
    assert log == one + one
