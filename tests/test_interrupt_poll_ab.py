"""benchmarks/interrupt_poll_ab.py: the poll on and off are timed in
rounds that alternate which goes first, after a first run that is not
timed (a process's first run is slower, and always landed on "on")."""
import types
from pathlib import Path

from conftest import load_module

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "interrupt_poll_ab.py"


def test_an_untimed_first_run_then_rounds_that_alternate(monkeypatch):
    mod = load_module("interrupt_poll_ab", SCRIPT)
    order = []

    def run(text, seed, poll):
        order.append(poll)
        # the first run is the slow one: it must be in no median
        return {"timing": {"wall_s": 9.0 if len(order) == 1 else 1.0 + 0.5 * poll},
                "summary": {"events": 10, "packet_hops": 20}}

    monkeypatch.setattr(mod, "_core", types.SimpleNamespace(run=run))
    times, counts = mod.rounds("{}", 4)
    assert order == [True, True, False, False, True, True, False, False, True]
    assert times == {True: [1.5] * 4, False: [1.0] * 4}
    assert counts == {(10, 20)}
