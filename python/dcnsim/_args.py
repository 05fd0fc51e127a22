"""Argument parsing shared by every command (``dcnsim run``, ``sweep``,
``tune``, ``demo``, ``reproduce``, ``model`` and the studies' own ``main``):
value and seed parsers and how a scenario's problems are printed.

One floor below the commands: it imports nothing from them, so any command
module may use it without an import circle through :mod:`dcnsim.cli`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Tuple

    from .errors import Problem


def one_line(problem: object) -> str:
    """A problem (``"path: reason"``) as one output line, so every line starts with its file."""
    return str(problem).replace("\r", "\\r").replace("\n", "\\n")


#: ``--set`` values that TOML read as something other than text (``name=123``
#: is the number 123), by field (:func:`field_key`): a field that takes text
#: then refuses them, and :func:`explained` says how to quote them.
_READ_AS_TOML: Dict[str, List[str]] = {}


def forget_readings() -> None:
    """Start a command's parse afresh (a process may run several: tests,
    a notebook calling ``cli.main``)."""
    _READ_AS_TOML.clear()


def _remember_reading(path: str, text: str, value: Any) -> None:
    if not isinstance(value, str):
        _READ_AS_TOML.setdefault(field_key(path), []).append(text)


def explained(problem: object) -> str:
    """:func:`one_line` of a problem, and, where a field that takes text
    refused a ``--set`` value TOML read as a number, a boolean, an array
    or a table, how to
    give that value as text (``--set 'name="123"'``)."""
    line = one_line(problem)
    message = getattr(problem, "message", "")
    if not _READ_AS_TOML or not message.startswith("expected a string, got "):
        return line
    # a sweep's point names itself before the field ("name=1: name")
    texts = _READ_AS_TOML.get(field_key(str(getattr(problem, "path", "")).rsplit(": ", 1)[-1]))
    if not texts:
        return line
    import json

    got = message[len("expected a string, got "):]
    # a TOML date or time (`[1979-05-27]`) is no JSON: compared as its text
    text = next((t for t in texts if json.dumps(parse_value(t), default=str) == got), texts[0])
    value = parse_value(text)
    kind = ("a boolean" if isinstance(value, bool) else "an array" if isinstance(value, list)
            else "a table" if isinstance(value, dict) else "a number")
    return f"{line} (--set reads its values as TOML, so {text} is {kind}; quote it to give the text: \"{text}\")"


def print_problems(file: str, problems: List[Problem]) -> None:
    """Every problem (a ``ScenarioError``'s ``errors``) on its own line, each
    starting with its file; past ``errors.SHOWN`` the rest as one line by
    field, pointing at ``dcnsim validate``, which prints them all."""
    from .errors import more_problems

    head, more = more_problems(problems)
    for p in head:
        print(f"{file}: {explained(p)}", file=sys.stderr)
    if more:
        print(f"{file}: ... {more}; `dcnsim validate {file}` prints every one", file=sys.stderr)


def split_values(text: str) -> List[str]:
    """Split on commas that are not inside brackets, braces or quotes. A
    quote opens a string only where a value or an array item starts (an
    apostrophe inside a word, ``it's``, is a letter); a string or bracket
    left open is a :class:`ValueError` (it would swallow every comma after
    it)."""
    out: List[str] = []
    cur: List[str] = []
    depth, quote = 0, None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        before = "".join(cur).rstrip()[-1:]
        if ch in "\"'" and before in ("", "[", "{", ",", "=", ":"):
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"a {ch!r} closes no bracket in {text!r}")
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if quote:
        raise ValueError(f"a string opened with {quote} is never closed in {text!r} (quote a comma to keep it)")
    if depth:
        raise ValueError(f"a bracket is never closed in {text!r}")
    out.append("".join(cur).strip())
    return out


def parse_value(text: str) -> Any:
    """A --set value: a TOML literal (10, 0.5, true, "x", [1, 2]) or else the
    raw string (16KB, 200us, 1-8)."""
    import datetime

    from .scenario import tomllib

    try:
        v = tomllib.loads(f"v = {text}")["v"]
    except Exception:
        return text
    if isinstance(v, (datetime.date, datetime.time, datetime.datetime)):
        return text
    if isinstance(v, float) and not math.isfinite(v):
        # a key that takes infinity takes the text "inf" (JSON has no
        # infinity); TOML's inf and nan are floats
        return text
    return v


def _no_value(path: str, why: str = "no value after = (an unset shell variable?)") -> argparse.ArgumentTypeError:
    """An empty ``--set`` value: refused, naming the field (``name=`` with
    an unset shell variable would run a scenario named ""); the empty
    string itself is written as TOML's ``""``."""
    return argparse.ArgumentTypeError(f"{path}: {why}; an empty string is written {path}='\"\"'")


def parse_set(spec: str):
    if "=" not in spec:
        raise argparse.ArgumentTypeError(f"--set expects PATH=V1,V2,..., got {spec!r}")
    path, values = spec.split("=", 1)
    path = path.strip()
    if not path:
        raise argparse.ArgumentTypeError(f"--set expects PATH=V1,V2,..., got {spec!r}")
    try:
        texts = split_values(values)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--set {path}: {e}") from None
    empty = next((i for i, v in enumerate(texts) if not v), None)
    if empty is not None:
        raise _no_value(path) if len(texts) == 1 else _no_value(
            path, f"value {empty + 1} of {len(texts)} is empty (a stray comma, or an unset shell variable?)")
    vals = [parse_value(v) for v in texts]
    for text, v in zip(texts, vals):
        _remember_reading(path, text, v)
    return path, vals


def field_key(path: str) -> str:
    """The field a ``--set`` path names, however written: ``apps[0].size``
    and ``apps.0.size`` are one field (both spellings are accepted): the
    path as ``with_overrides`` reads it (a path it refuses is its own key)."""
    from ._document import parse_path
    from .errors import ScenarioError

    try:
        return ".".join(map(str, parse_path(path.strip())))
    except ScenarioError:
        return path.strip()


def key_settings(values: List[Any]) -> List[str]:
    """The values of one ``--set`` that are another key's setting
    (``--set a=1,b=2`` meant two keys: ``b=2`` is no value of ``a``)."""
    def names_a_key(v: Any) -> bool:
        key = v.split("=", 1)[0].strip() if isinstance(v, str) and "=" in v else ""
        return bool(key) and all(c.isalnum() or c in "._[]" for c in key)

    return [v.strip() for v in values if names_a_key(v)]


def repeated_field(paths: List[str]) -> Optional[Tuple[str, str]]:
    """The first two of ``paths`` that name one field, or None."""
    first: Dict[str, str] = {}
    for p in paths:
        k = field_key(p)
        if k in first:
            return first[k], p
        first[k] = p
    return None


def nested_fields(paths: List[str]) -> Optional[Tuple[str, str]]:
    """The first two of ``paths`` of which one names a table holding the
    other (``tcp`` and ``tcp.cc``, ``apps[0]`` and ``apps.0.size``), the
    table first; or None. Given both, the later replaced the earlier
    without a word: the key dropped with its table, or the table's own
    value of it."""
    keys = [(p, field_key(p)) for p in paths]
    for p, k in keys:
        for q, j in keys:
            if j.startswith(k + "."):
                return p, q
    return None


def nested_fields_text(command: str, flag: str, table: str, key: str) -> str:
    """What ``command`` says of ``{flag} {table}=...`` beside ``{flag} {key}=...``."""
    sub = field_key(key)[len(field_key(table)) + 1:]
    return (f"{command}: {flag} {table} and {flag} {key} overlap: {table} replaces the whole table that {key} sets "
            f"a key of, so one would undo the other whichever comes last; give {table}'s keys one by one "
            f"({flag} {table}.{sub}=...) or all in its table ({flag} '{table}={{{sub} = ..., ...}}')")


def set_pair(spec: str, flag: str = "--set") -> Tuple[str, Any]:
    """One ``PATH=VALUE`` (``run --set``, ``tune --set``/``--baseline``/
    ``--reference``): the value as :func:`parse_value` reads it."""
    if "=" not in spec or not spec.split("=", 1)[0].strip():
        raise argparse.ArgumentTypeError(f"{flag} expects PATH=VALUE, got {spec!r}")
    k, v = spec.split("=", 1)
    if not v.strip():
        raise _no_value(k.strip())
    value = parse_value(v.strip())
    _remember_reading(k.strip(), v.strip(), value)
    return k.strip(), value


def parse_seeds(text: str, flag: str = "--seeds") -> List[int]:
    try:
        seeds = [int(x) for x in text.split(",")]
    except ValueError:
        if any(not x.strip() for x in text.split(",")):
            raise argparse.ArgumentTypeError(
                f"{flag} has an empty value in {text!r} (a stray comma, or an unset shell variable?)") from None
        raise argparse.ArgumentTypeError(f"{flag} expects integers like 1,2,3, got {text!r}") from None
    if not seeds:
        raise argparse.ArgumentTypeError(f"{flag} expects integers >= 0, got {text!r}")
    from . import _SEED_RANGE, _seed_ok

    bad = next((s for s in seeds if not _seed_ok(s)), None)
    if bad is not None:  # the core's seed is 64 bits: said here, once, not by every point
        raise argparse.ArgumentTypeError(f"{flag} expects integers in {_SEED_RANGE}, got {bad}")
    twice = next((s for i, s in enumerate(seeds) if s in seeds[:i]), None)
    if twice is not None:  # the same run twice, into the same directory
        raise argparse.ArgumentTypeError(f"{flag} expects distinct seeds, got {text!r} (seed {twice} twice)")
    return seeds


def parse_seed(text: str, flag: str = "--seed") -> int:
    """``run --seed``, refused here as ``--seeds`` refuses it: past the
    parser, a bad one reads as a problem of the scenario file, whose own
    seed is fine. (``model enqueue --seed`` checks its own, after parsing.)"""
    from . import _SEED_RANGE, _seed_ok

    try:
        seed = int(text)
    except ValueError:
        seed = None
    if seed is None or not _seed_ok(seed):
        raise argparse.ArgumentTypeError(f"{flag} expects an integer in {_SEED_RANGE}, got {text!r}")
    return seed


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def out_dir(text: str) -> str:
    """``--out``: a directory; never the empty path, which the file system
    reads as the current directory (``--out "$OUT"`` with ``OUT`` unset).
    A leading ``~`` is the home directory here, once, for every file the
    command writes: the writers expand it (as a shell does unquoted), and a
    table written beside them by its own path went to a literal ``./~``."""
    if not text:
        raise argparse.ArgumentTypeError("expected a directory, got an empty path (an unset variable?); "
                                         "use . for the current directory")
    return os.path.expanduser(text)


def install_hint(extra: str) -> str:
    """How to add an optional extra (``tune``, ``cluster``) to this install:
    ``pip install '.[tune]'`` when dcnsim was installed from a checkout (as
    the README does), naming the checkout unless it is the current
    directory; ``pip install 'dcnsim[tune]'`` otherwise."""
    import json
    from importlib import metadata
    from pathlib import Path
    from urllib.parse import unquote, urlparse

    try:
        url = json.loads(metadata.distribution("dcnsim").read_text("direct_url.json") or "{}").get("url", "")
    except (metadata.PackageNotFoundError, ValueError, OSError):
        url = ""
    if url.startswith("file:"):
        src = Path(unquote(urlparse(url).path))
        here = Path.cwd().resolve() == src.resolve()
        return f"pip install '.[{extra}]'" + ("" if here else f" in {src}")
    return f"pip install 'dcnsim[{extra}]'"


#: The most ``threads`` the core takes (its scenario key is a u32).
MAX_THREADS = 2**32 - 1


def parse_threads(text: str):
    """``--threads``: a whole number from 1 to :data:`MAX_THREADS` or
    ``auto`` (the scenario key ``threads``)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        n = positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"--threads expects a whole number >= 1 or 'auto', got {text!r}") from None
    if n > MAX_THREADS:
        # past it the core would see a float and echo 1e+20, not what was typed
        raise argparse.ArgumentTypeError(f"--threads expects a whole number from 1 to {MAX_THREADS:,} or 'auto', "
                                         f"got {text!r}")
    return n
