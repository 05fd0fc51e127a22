"""Exceptions raised by the dcnsim Python front."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from types import FrameType
    from typing import Iterable, List, Optional, Tuple, Union



class Problem(str):
    """One problem of a scenario, built from the core's structured error
    (``ScenarioError { path, message }``): ``path`` is the field
    (``topology.k``, ``apps[0].servers[3]``; ``file``, ``syntax`` or
    ``<document>`` for the file or the document as a whole), ``message`` the
    reason, ``pair`` both.

    It is also the text ``"path: message"`` (a ``str``), the form the command
    line prints and the form problems had before they were structured, so
    code that compares, searches or joins them keeps working."""

    path: str
    message: str

    def __new__(cls, path: str, message: str) -> "Problem":
        self = super().__new__(cls, f"{path}: {message}")
        self.path, self.message = str(path), str(message)
        return self

    @property
    def pair(self) -> Tuple[str, str]:
        return (self.path, self.message)

    @classmethod
    def of(cls, p: Union["Problem", Tuple[str, str], str]) -> "Problem":
        """A Problem from a Problem, a ``(path, message)`` pair, or a
        ``"path: message"`` text (for code that builds them as text)."""
        if isinstance(p, Problem):
            return p
        if isinstance(p, tuple) and len(p) == 2:
            return cls(str(p[0]), str(p[1]))
        path, sep, message = str(p).partition(": ")
        return cls(path, message) if sep else cls("scenario", path)

    def __repr__(self) -> str:
        return f"Problem({self.path!r}, {self.message!r})"

    def __reduce__(self):  # type: ignore[override]  # pickles as its pair
        return (Problem, (self.path, self.message))


# Problems shown before the rest are summed up, in an exception's text and on
# `dcnsim run`'s standard error: a scenario of 8,192 apps with one bad key
# shared by all has 8,192 problems, and a screen of them hides the first.
SHOWN = 20


def fields_of(problems: "Iterable[Problem]") -> "List[Tuple[str, int]]":
    """How many of ``problems`` fall on each field, list indices folded
    (``apps[3].duration`` and ``apps[7].duration`` are ``apps[*].duration``),
    in order of first appearance."""
    import re

    counts: "dict[str, int]" = {}
    for p in problems:
        key = re.sub(r"\[[0-9]+\]", "[*]", p.path)
        counts[key] = counts.get(key, 0) + 1
    return list(counts.items())


def more_problems(problems: "List[Problem]", shown: int = SHOWN) -> "Tuple[List[Problem], str]":
    """The first problems to show in full and a line for the rest (``""`` when
    every one is shown): ``"8,172 more problems: apps[*].duration (8,172)"``,
    the three commonest fields of the rest by first appearance."""
    if len(problems) <= shown:
        return problems, ""
    head, rest = problems[: shown - 1], problems[shown - 1:]
    fields = fields_of(rest)
    named = ", ".join(f"{k} ({n:,})" for k, n in fields[:3])
    more = f", and {len(fields) - 3:,} other field{'s' if len(fields) > 4 else ''}" if len(fields) > 3 else ""
    return head, f"{len(rest):,} more problems: {named}{more}"


class ScenarioError(ValueError):
    """A scenario could not be read or is invalid.

    ``errors`` lists every problem as a :class:`Problem` (``.path``,
    ``.message``; ``str()`` is ``"field.path: reason"``); ``pairs`` the same
    as ``(path, message)`` tuples. The field path is ``file`` or ``syntax``
    when the file itself could not be read or parsed.
    """

    def __init__(self, errors: Iterable[Union[Problem, Tuple[str, str], str]]):
        self.errors: List[Problem] = [Problem.of(e) for e in errors] or [Problem("scenario", "invalid")]
        # the text sums up past SHOWN problems (`.errors` keeps every one)
        head, more = more_problems(self.errors)
        super().__init__("\n".join(head + ([f"... {more} (every one in .errors)"] if more else [])))

    @property
    def pairs(self) -> List[Tuple[str, str]]:
        """Every problem as a ``(path, message)`` pair."""
        return [e.pair for e in self.errors]

    def __reduce__(self):  # keep `.errors` across process boundaries (sweeps)
        return (type(self), (self.pairs,))


class OutputDirError(OSError):
    """An output directory that cannot be created or written to; raised
    before anything runs, so no simulation time is lost on it. ``errno``
    is the cause's where there was one (a full disk's ``ENOSPC``)."""

    def __reduce__(self):  # type: ignore[override]
        # the errno set after construction survives a worker process's
        # pickle (OSError's keeps only args): a full disk met by a sweep's
        # worker is the machine's failure to the sweep too
        return (output_dir_error, (str(self), self.errno))


def output_dir_error(message: str, errno: "int | None") -> OutputDirError:
    """An :class:`OutputDirError` saying ``message``, with the errno of its
    cause (which OSError's constructor takes only with a strerror, and
    then prints as "[Errno N]")."""
    e = OutputDirError(message)
    e.errno = errno  # type: ignore[assignment]
    return e


class DcnsimWarning(UserWarning):
    """A scenario that is valid but probably not what was meant (e.g. DCTCP
    on a network with no ECN-marking queue). ``field`` names the key."""

    def __init__(self, field: str, reason: str):
        self.field, self.reason = field, reason
        super().__init__(f"{field}: {reason}")


def caller_stacklevel() -> int:
    """The ``stacklevel`` for a warning raised here that names the first
    frame outside the dcnsim package: the user's line, however deep the
    library's own calls (``tune`` -> its runner -> ``run_sweep``) went."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level = 1
    frame: Optional[FrameType] = sys._getframe(1)  # the function that calls warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        level += 1
        frame = frame.f_back
    return level
