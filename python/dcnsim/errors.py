"""Exceptions raised by the dcnsim Python front."""

from __future__ import annotations

from typing import Iterable


class ScenarioError(ValueError):
    """A scenario could not be read or is invalid.

    ``errors`` lists every problem, each as ``"field.path: reason"`` (the
    field path is ``file`` or ``syntax`` when the file itself could not be
    read or parsed).
    """

    def __init__(self, errors: Iterable[str]):
        self.errors: list[str] = [str(e) for e in errors] or ["scenario: invalid"]
        super().__init__("\n".join(self.errors))

    def __reduce__(self):  # keep `.errors` across process boundaries (sweeps)
        return (type(self), (self.errors,))
