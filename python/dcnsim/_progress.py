"""A run's progress on stderr, in the style of the sweep's tqdm bar: the
simulated time reached of the scenario's ``stop``, events per second and
the time left at the rate so far (simulated seconds per wall second: a
load whose flows pile up slows as it goes, and a web-search load at k =
32 took 1.6-2x the time first shown). The core reports every 2^16 events
from its periodic work
(where the Ctrl-C poll lives), so watching costs the event loop nothing.
tqdm is imported only when a bar is shown."""

from __future__ import annotations

import sys
import time
from typing import Any, Optional


class RunBar:
    """``report`` is the core's progress callback; ``close(done)`` ends the
    bar, at ``stop`` if the run finished (its apps may end before it)."""

    def __init__(self) -> None:
        self._bar: Optional[Any] = None
        self._t0 = 0.0

    def report(self, sim_s: float, events: int, stop_s: float) -> None:
        from tqdm.auto import tqdm

        if self._bar is None:
            self._t0 = time.monotonic()
            self._bar = tqdm(total=stop_s, desc="run", file=sys.stderr, leave=True,
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.4g}/{total:.4g} s simulated "
                                        "[{elapsed}, ~{remaining} left at this rate{postfix}]")
        wall = time.monotonic() - self._t0
        if wall > 0:
            self._bar.set_postfix_str(f"{tqdm.format_sizeof(events / wall)} events/s", refresh=False)
        self._bar.update(min(sim_s, stop_s) - self._bar.n)

    def close(self, done: bool, events: Optional[int] = None, wall_s: Optional[float] = None) -> None:
        """End the bar; ``events`` and ``wall_s``, the run's count and the
        core's wall time, set its last rate as the run's summary gives it (a
        run of fewer than 2^16 events reported once, at its start, with 1)."""
        if self._bar is not None:
            wall = wall_s if wall_s is not None else time.monotonic() - self._t0
            if events is not None and wall > 0:
                from tqdm.auto import tqdm

                self._bar.set_postfix_str(f"{tqdm.format_sizeof(events / wall)} events/s", refresh=False)
            if done:
                self._bar.update(self._bar.total - self._bar.n)
            self._bar.close()
