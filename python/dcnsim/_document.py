"""Scenario documents as data: reading a file, converting any accepted form
(path, dict, builder) to a plain dict, checking what JSON cannot carry,
the JSON text the core reads, and dotted-path overrides.

Split from :mod:`dcnsim.scenario` (which re-exports all of it) so that
running a scenario file never builds the builders' dataclasses: this
module needs neither :mod:`dataclasses` nor, for a JSON file, a TOML
reader, and ``dcnsim run FILE`` starts tens of milliseconds sooner.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Mapping

from .errors import Problem, ScenarioError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Union


def _toml():
    """The TOML reader, imported when a TOML file is read."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib
    return tomllib


# --------------------------------------------------------------------------
# what every builder of dcnsim.scenario is


def _numpy(value: Any) -> bool:
    """Whether ``value`` is a numpy array or scalar (told without importing
    numpy, which a builder never needs)."""
    return type(value).__module__ == "numpy" and hasattr(value, "tolist")


def _plain(value: Any) -> Any:
    """Builders -> dicts, tuples/ranges -> lists, numpy arrays and scalars ->
    lists and Python numbers, recursively. Nothing else changes: the docs
    take a CDF as an (n, 2) array and ``pcap.hosts`` as ``np.arange(4)``,
    and ``to_dict()`` is the schema's plain JSON (an array in it made
    ``json.dumps`` fail)."""
    if isinstance(value, _Builder):
        return value.to_dict()
    if _numpy(value):
        return _plain(value.tolist())
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, range)):
        return [_plain(v) for v in value]
    return value


def _denumpy(value: Any) -> Any:
    """``value`` with its numpy arrays and scalars as lists and Python
    numbers, builders and containers kept: a repr that evaluates without
    numpy's names (``array([...])`` did not)."""
    if _numpy(value):
        return value.tolist()
    if isinstance(value, Mapping):
        return {k: _denumpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_denumpy(v) for v in value)
    return value


class _Builder:
    """Base of the builder dataclasses: ``to_dict()`` emits ``kind`` (if any),
    then every non-``None`` field in declaration order, then ``extra``
    (keys the builder does not know yet, passed through verbatim). Their
    ``repr`` (the dataclasses are declared with ``repr=False``) shows the
    required fields and those not at their default: ``Tcp(cc='dctcp',
    mss=1460)``, not its 130 fields, of which a builder sets a few and
    leaves the rest to the core's defaults; it evaluates to an equal
    builder."""

    _kind: ClassVar[Optional[str]] = None

    def __repr__(self) -> str:
        from dataclasses import MISSING, fields

        def given(f: Any) -> bool:
            """Whether field ``f`` is shown: a required one always, any
            other when it is not its default (a ``None`` given for a
            field whose default is not, e.g. ``Scenario(seed=None)``, is
            shown: left out, the repr would build ``seed=1``)."""
            v, d = getattr(self, f.name), f.default
            if d is MISSING:
                return True
            return not (v is d or (type(v) is type(d) and v == d))

        shown = [f"{f.name}={_denumpy(getattr(self, f.name))!r}" for f in fields(self) if given(f)]  # type: ignore[arg-type]
        return f"{type(self).__name__}({', '.join(shown)})"

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        if self._kind is not None:
            out["kind"] = self._kind
        from dataclasses import fields  # every builder is a dataclass (dcnsim.scenario)

        for f in fields(self):  # type: ignore[arg-type]
            if f.name == "extra":
                continue
            v = getattr(self, f.name)
            if v is not None:
                out[f.name] = _plain(v)
        merge_extra(type(self).__name__, out, getattr(self, "extra", None))
        return out


def merge_extra(builder: str, out: Dict[str, Any], extra: Optional[Mapping]) -> None:
    """Add a builder's ``extra`` keys to its document ``out``. A key the
    builder also set to another value is refused, naming both: letting
    either win silently ran ``Star(hosts=3, extra={"hosts": 5})`` with 5
    hosts (a key ``extra`` sets where the builder's field is unset, or to
    the same value, is taken)."""
    if extra is None:
        return
    if not isinstance(extra, Mapping):
        # Star(..., extra=5), or a positional value one place too far
        # (Link's seventh): refused as a scenario's problem, so that
        # dcnsim.validate returns it, not a bare TypeError from dict()
        raise ScenarioError([Problem("extra", f"{builder}'s extra is a table of keys it has no field for "
                                     f"({{'ecn_k': '20pkt'}}), got {extra!r}")])
    for key, value in dict(extra).items():
        value = _plain(value)
        if key in out and out[key] != value:
            raise ScenarioError([Problem(f"extra.{key}", f"{builder} sets {key} = {out[key]!r} and its extra "
                                         f"{value!r}: give it once (extra is for keys the builder has no field for)")])
        out[key] = value


# --------------------------------------------------------------------------
# loading


def _failing_line(text: str, message: str, pattern: str = r"at line (\d+), column \d+"):
    """(the line a TOML error's message names, the ``[table]`` it lies in
    or None), or None when the message names no line of ``text``."""
    import re

    at = re.search(pattern, message)
    lines = text.splitlines()
    if not at or not 1 <= int(at.group(1)) <= len(lines):
        return None
    n = int(at.group(1))
    table = next((t.group(1) for t in (re.match(r"\s*\[+\s*([^\]]+?)\s*\]+", ln) for ln in reversed(lines[:n - 1]))
                  if t), None)
    return lines[n - 1], table


def _unquoted_unit_hint(text: str, message: str) -> str:
    """What a TOML syntax error most often means in a scenario: a value with
    a unit left unquoted (``rate = 10Gbps``), which TOML reads as a number
    followed by junk. Names the key, its table and the quoted spelling;
    empty when the failing line is not of that shape."""
    import re

    found = _failing_line(text, message)
    m = found and re.match(r"\s*([A-Za-z0-9_.\"'-]+)\s*=\s*([-+]?\d[\d_.eE+-]*\s*[A-Za-z%/][^#]*?)\s*(#.*)?$",
                           found[0])
    if not m:
        return ""
    key, value = m.group(1), m.group(2)
    where = f" (in [{found[1]}])" if found[1] else ""
    return f"; a value with a unit is a string in TOML: {key} = \"{value}\"{where}"


def _duplicate_key_hint(text: str, message: str) -> str:
    """tomllib says "Cannot overwrite a value (at line N, …)" for a key
    given twice, naming neither: name the key from line N, and its table."""
    import re

    found = _failing_line(text, message, r"Cannot overwrite a value \(at line (\d+), column \d+")
    m = found and re.match(r"\s*([A-Za-z0-9_.\"'-]+)\s*=", found[0])
    if not m:
        return ""
    where = f" in [{found[1]}]" if found[1] else ""
    return f"; the key {m.group(1)!r} is given twice{where} (a table may name a key once)"


#: The most characters a scenario file may hold (a k = 32 fat-tree's
#: thousands of apps written out are a few MB).
MAX_SCENARIO_CHARS = 256 << 20


def _special_file(path: str) -> str:
    """What ``path`` is in words when it is a device or a socket (never a
    scenario; a named pipe is read, as a shell's ``<(cmd)`` gives one), else
    ``""`` (a missing path is left to ``open`` to say)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return ""


def load_scenario(path: Union[str, os.PathLike]) -> Dict[str, Any]:
    """Read a ``.toml`` or ``.json`` scenario file into a dict.

    ``name`` defaults to the file stem when the file does not set it. Raises
    :class:`ScenarioError` (field path ``file`` or ``syntax``) when the file
    cannot be read or parsed; the message of a syntax error carries the line
    and column."""
    # os.path, not pathlib: every `dcnsim run` reads its file here, and
    # pathlib's import (with urllib.parse and ipaddress) is ≈ 3 ms of a start
    p = os.fspath(path)
    if not p:
        # (an unset $FILE): "no such file: " named nothing
        raise ScenarioError([Problem("file", "'' is an empty path; name a scenario file (.toml or .json)")])
    try:
        special = _special_file(p)
        if special:
            # /dev/zero was read until memory ran out; a pipe (`<(cmd)`) is read
            raise ScenarioError([Problem("file", f"{p} is {special}, not a scenario file")])
        # utf-8-sig: a byte-order mark some editors write is not a key
        with open(p, encoding="utf-8-sig") as fh:
            text = fh.read(MAX_SCENARIO_CHARS + 1)
        if len(text) > MAX_SCENARIO_CHARS:
            raise ScenarioError([Problem("file", f"{p} holds more than {MAX_SCENARIO_CHARS >> 20} Mi characters, "
                                                 "more than any scenario: not a scenario file")])
    except FileNotFoundError:
        # one line of TOML (`stop = "1ms"`) too: a key, " = " or a quoted
        # value; a path holding "=" (a sweep point's directory) does not
        if "\n" in p or ("=" in p and "[" in p) or re.match(r"""\s*[A-Za-z_][\w.-]*(\s+=|\s*=\s*["'])""", p):
            # a scenario's text where its path goes
            raise ScenarioError([Problem("file", "no such file: the argument looks like a scenario's TOML text, "
                                                 "not a path; pass a path, a dict (tomllib.loads(text)) or a "
                                                 "dcnsim.Scenario")]) from None
        raise ScenarioError([Problem("file", f"no such file: {p}")]) from None
    except IsADirectoryError:
        raise ScenarioError([Problem("file", f"is a directory: {p}")]) from None
    except ScenarioError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as e:  # ValueError: a NUL in the path
        raise ScenarioError([Problem("file", f"cannot read {p}: {e}")]) from None
    stem, suffix = os.path.splitext(os.path.basename(p))
    if suffix.lower() == ".json":
        try:
            doc = json.loads(text, object_pairs_hook=_unique_keys, parse_float=_finite_float)
        except json.JSONDecodeError as e:
            raise ScenarioError([Problem("syntax", f"{e.msg} (at line {e.lineno}, column {e.colno})")]) from None
        except _DuplicateKey as e:
            raise ScenarioError([Problem("syntax", f"duplicate key {e.args[0]!r} (a JSON object may name a key once)")]) from None
        except RecursionError:
            raise ScenarioError([Problem("syntax", "nested deeper than Python's JSON reader allows")]) from None
        except ValueError as e:  # e.g. an integer of more than 4300 digits
            raise ScenarioError([Problem("syntax", f"{e}")]) from None
    else:
        tomllib = _toml()
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            # a JSON document under another name reads as broken TOML
            looks_json = text.lstrip().startswith("{") and suffix.lower() != ".json"
            hint = (f"; the file looks like JSON: name it {stem}.json" if looks_json
                    else _unquoted_unit_hint(text, str(e)) or _duplicate_key_hint(text, str(e)))
            if not hint and suffix.lower() != ".toml":
                # a YAML scenario failed as TOML with no word of why TOML
                hint = (" (read as TOML: a scenario is JSON if its name ends in .json, TOML otherwise"
                        + (", and YAML is neither" if suffix.lower() in (".yaml", ".yml") else "") + ")")
            raise ScenarioError([Problem("syntax", f"{e}{hint}")]) from None
        except RecursionError:
            raise ScenarioError([Problem("syntax", "nested deeper than the TOML reader allows")]) from None
        except ValueError as e:  # e.g. an integer of more than 4300 digits
            raise ScenarioError([Problem("syntax", f"{e}")]) from None
    if not isinstance(doc, dict):
        raise ScenarioError([Problem(DOCUMENT, "expected a table/object at the top level")])
    if "name" not in doc:
        doc = {"name": stem, **doc}
    _resolve_cdf_files(doc, os.path.dirname(p))
    return doc


class _DuplicateKey(Exception):
    pass


def _finite_float(text: str) -> float:
    """A JSON number as Python reads it, refused when it overflows: ``1e400``
    became ``inf`` and was reported as "inf is not a finite number", a value
    the file never held."""
    x = float(text)
    if math.isinf(x):
        raise ValueError(f"the number {text} is beyond the largest a scenario can hold (about 1.8e308)")
    return x


def _unique_keys(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    """JSON objects with a repeated key are rejected: the last one would
    silently win."""
    out: Dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def _resolve_cdf_files(doc: Dict[str, Any], base: str) -> None:
    """A relative ``cdf_file`` in a scenario file is relative to that file's
    directory (the core, which reads it, only knows the working directory)."""
    apps = doc.get("apps")
    for app in apps if isinstance(apps, list) else []:
        f = app.get("cdf_file") if isinstance(app, dict) else None
        if isinstance(f, str) and f and not os.path.isabs(f):
            app["cdf_file"] = os.path.realpath(os.path.join(base, f))


def read_cdf_files(doc: Mapping[str, Any]) -> Dict[int, bytes]:
    """The bytes of each app's ``cdf_file`` (app index -> bytes), read as a
    run starts, as the core reads the path (relative to the working
    directory). ``Result.write`` writes them beside ``scenario.json``: a
    path alone cannot reproduce the run once the file is edited or moved,
    or the results are copied elsewhere. A file that cannot be read is left
    out (the core reports it)."""
    import stat

    out: Dict[int, bytes] = {}
    apps = doc.get("apps")
    for i, app in enumerate(apps if isinstance(apps, list) else []):
        f = app.get("cdf_file") if isinstance(app, dict) else None
        if isinstance(f, str) and f:
            try:
                # a regular file of a CDF's size only: a FIFO's open waits for
                # a writer for ever, /dev/zero's read fills memory (the core
                # refuses both, naming the key: crates/dcnsim/src/scenario/apps.rs)
                st = os.stat(f)
                if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_CDF_FILE:
                    continue
                with open(f, "rb") as fh:
                    data = fh.read(MAX_CDF_FILE + 1)
                if len(data) <= MAX_CDF_FILE:
                    out[i] = data
            except (OSError, ValueError):  # ValueError: a NUL in the path
                pass
    return out


#: The most bytes a ``cdf_file`` may hold (the core's ``MAX_CDF_FILE``).
MAX_CDF_FILE = 16 << 20


def as_dict(scenario: Any) -> Dict[str, Any]:
    """Any accepted scenario form (path, dict, builder) -> a fresh dict."""
    if isinstance(scenario, (str, os.PathLike)):
        return load_scenario(scenario)
    if isinstance(scenario, _Builder):
        return scenario.to_dict()
    if isinstance(scenario, Mapping):
        # _plain builds every dict and list anew, so nothing of the caller's
        # is changed by what a run sets (its seed, its threads); a deep copy
        # before it copied the document twice and loaded `copy` with `weakref`
        try:
            return _plain(scenario)
        except RecursionError:
            raise ScenarioError([Problem(DOCUMENT, f"nested more than {MAX_DEPTH} levels deep")]) from None
    raise ScenarioError(
        [Problem(DOCUMENT, f"expected a path, a dict or a dcnsim.Scenario, got {type(scenario).__name__}")]
    )


DOCUMENT = "<document>"  # the path of problems with the document as a whole (as in Rust)
_IDENT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def key_path(parent: str, key: str) -> str:
    """``parent.key``, or ``parent["odd key"]`` for keys that are not
    identifiers -- the same spelling as the Rust validation's paths."""
    if _IDENT.match(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


#: The integers a document may hold: a field's integer is at most 64 bits
#: (an i64 or a u64 in the core).
INT_MIN, INT_MAX = -(2**63), 2**64 - 1

#: No scenario field nests this deep; deeper values are rejected before the
#: core's JSON reader (limit 128) or Python's recursion limit is reached.
MAX_DEPTH = 64


def _clean(value: Any, path: str, errors: List[Problem], depth: int = 0) -> Any:
    """A JSON-safe copy of ``value``: what JSON cannot carry is reported in
    ``errors`` (with its path) and replaced by ``None`` (dropped, for keys)."""
    where = path or DOCUMENT
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            errors.append(Problem(where, "text with an unpaired surrogate is not valid UTF-8"))
            return None
        return value
    if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
        # No field takes one; in JSON text the core would read it as a
        # float, and its message would quote the float, not the number given.
        shown = f"{value}" if value.bit_length() <= 128 else f"of {value.bit_length()} bits"
        errors.append(Problem(where, f"integer {shown} is out of range (no field takes one beyond 64 bits)"))
        return None
    if value is None or isinstance(value, (bool, int)):
        return value
    t = type(value)
    if t.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        # a numpy scalar (an axis from np.arange, a value read from a
        # DataFrame): its Python value (np.int64 -> int, np.bool_ -> bool)
        return _clean(value.item(), path, errors, depth)
    if t.__module__ == "numpy" and isinstance(getattr(value, "ndim", None), int) and hasattr(value, "tolist"):
        # an array (np.arange(4) for pcap hosts, a CDF as an (n, 2) array):
        # the nested lists of Python values it holds
        return _clean(value.tolist(), path, errors, depth)
    if depth >= MAX_DEPTH and isinstance(value, (Mapping, list, tuple)):
        errors.append(Problem(where, f"nested more than {MAX_DEPTH} levels deep"))
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            # JSON has no infinity; the keys that take one read it as text
            hint = ' (a key that takes infinity takes it as the text "inf")' if value > 0 else ""
            errors.append(Problem(where, f"{value!r} is not a finite number{hint}"))
            return None
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                errors.append(Problem(where, f"key {k!r} is not a string"))
                continue
            try:
                k.encode("utf-8")
            except UnicodeEncodeError:
                errors.append(Problem(where, f"key {k!r} has an unpaired surrogate (not valid UTF-8)"))
                continue
            out[k] = _clean(v, key_path(path, k), errors, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_clean(v, f"{path}[{i}]", errors, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, os.PathLike):
        # a pathlib.Path for a file key (an app's cdf_file), as run() and
        # flow_size_cdf take one: its text, which the key reads as a path
        text = os.fspath(value)
        if isinstance(text, str):
            return _clean(text, path, errors, depth)
    if t.__module__ == "datetime" and t.__name__ in ("date", "time", "datetime"):
        # TOML reads 00:00:01 or 2024-05-27 unquoted as a time of day or a
        # date; no field takes one (a duration has a unit)
        what = {"date": "date", "time": "time of day", "datetime": "date and time"}[t.__name__]
        errors.append(Problem(where, f"{value.isoformat()} is a {what}, which no field takes: a duration is "
                                     'written with a unit, like "1s" or "50us", and text in quotes'))
        return None
    name = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    errors.append(Problem(where, f"unsupported value of type {name}"))
    return None


def sanitize(doc: Any) -> Tuple[Any, List[Problem]]:
    """``(json_safe_copy, problems)``: the problems JSON itself cannot
    express (NaN, bytes, dates, non-string keys, ...), each with its path."""
    errors: List[Problem] = []
    return _clean(doc, "", errors), errors


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_json(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is made of plain JSON values only (dicts with text
    keys, lists, tuples, text, small integers, finite floats, booleans,
    None, nested less than MAX_DEPTH deep), so that ``_clean`` would write
    the same JSON text of it and report nothing. Exact types only: a
    subclass, another Mapping or anything odd says no, and ``_clean``
    decides. No field paths are built: a k = 32 fat-tree's document (8,192
    apps) is walked in a third of ``_clean``'s time."""
    t = type(value)
    if t is str:
        return _utf8(value)
    if t is int:
        return INT_MIN <= value <= INT_MAX
    if value is None or t is bool:
        return True
    if t is float:
        return math.isfinite(value)
    if depth >= MAX_DEPTH:
        return False
    if t is dict:
        return all(type(k) is str and _utf8(k) and _plain_json(v, depth + 1) for k, v in value.items())
    if t is list or t is tuple:
        return all(_plain_json(v, depth + 1) for v in value)
    return False


def json_document(doc: Any) -> Tuple[Any, str, List[Problem]]:
    """``(document, text, problems)``: the document as plain JSON values
    (numpy scalars as the Python values they hold; ``doc`` itself when it
    is plain already), the JSON text the core reads, and what JSON cannot
    carry (``sanitize``'s problems)."""
    errors: List[Problem] = []
    if not _plain_json(doc):
        doc, errors = sanitize(doc)
    return doc, json.dumps(doc, allow_nan=False, separators=(",", ":")), errors


def json_text(doc: Any) -> Tuple[str, List[Problem]]:
    """``(text, problems)``: the JSON text the core reads and what JSON
    cannot carry (``sanitize``'s problems; the text is then of its copy).
    A plain document is written as it is, without ``sanitize``'s copy."""
    _, text, errors = json_document(doc)
    return text, errors


def _numpy_json(value: Any) -> Any:
    # a numpy scalar or array left in a document or record (a Result made
    # by hand, a metric): the Python values it holds, as json_document
    # gives them
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_COMPACT = json.JSONEncoder(separators=(", ", ": "), default=_numpy_json).encode


def readable_json(doc: Any) -> str:
    """JSON text for people, of what ``json.dumps`` writes: a table (dict
    with text keys) a key a line, indented two spaces a level; a list on one
    line, or, when it holds tables (apps, links), a table a line. The same
    values as ``json.dumps(doc)`` (NaN and the infinities as it writes them).
    ``json.dumps(doc, indent=2)`` runs Python's pure encoder and gives every
    value its line: a k = 32 permutation's document was 49,182 lines in 31
    ms, and is 8,222 in 17 ms (the C encoder, once a line)."""
    return _readable(doc, 0)


def _readable(value: Any, level: int) -> str:
    t = type(value)
    if t is dict and value and all(type(k) is str for k in value):
        pad = "  " * (level + 1)
        body = ",\n".join(f"{pad}{_COMPACT(k)}: {_readable(v, level + 1)}" for k, v in value.items())
        return "{\n" + body + "\n" + "  " * level + "}"
    if (t is list or t is tuple) and any(type(v) is dict for v in value):
        pad = "  " * (level + 1)
        return "[\n" + ",\n".join(pad + _COMPACT(v) for v in value) + "\n" + "  " * level + "]"
    return _COMPACT(value)


def to_json(doc: Mapping[str, Any]) -> str:
    """The scenario dict as the JSON text the core reads. Values JSON cannot
    carry raise ScenarioError with their field paths."""
    if not isinstance(doc, Mapping):
        raise ScenarioError([Problem(DOCUMENT, f"expected a table/object, got {type(doc).__name__}")])
    text, errors = json_text(doc)
    if errors:
        raise ScenarioError(errors)
    return text


def error_path(problem: Union[Problem, str]) -> str:
    """The field path of a problem (a :class:`Problem` or ``"path: reason"`` text)."""
    return Problem.of(problem).path


# --------------------------------------------------------------------------
# overrides (sweeps)

_INDEX = re.compile(r"\[(\d+)\]")


def parse_path(path: str) -> List[Union[str, int]]:
    """``"apps[0].servers"`` or ``"apps.0.servers"`` -> ``["apps", 0, "servers"]``."""
    parts: List[Union[str, int]] = []
    # "the last app" reads naturally, but a path names one element: apps[-1]
    # and apps.-1 alike
    neg = re.search(r"\[\s*-\s*\d+\s*\]", path) or re.search(r"(?:^|\.)(-\d+)(?=\.|$)", path)
    if neg:
        raise ScenarioError([Problem(path, f"{neg.group(0).lstrip('.')}: a list index counts from 0 (apps[0] is the "
                                           "first); negative indices are not taken")])
    for raw in _INDEX.sub(r".\1", path).split("."):
        if raw == "":
            # named as written, quoted: an empty path was ": empty …"
            raise ScenarioError([Problem(repr(path) if not path.strip() else path,
                                         "empty component in the field path (a path is like tcp.rto_min or "
                                         "apps[0].servers)")])
        parts.append(int(raw) if raw.isdigit() else raw)
    return parts


def without_keys(doc: Any, paths: Sequence[str]) -> Dict[str, Any]:
    """A copy of ``doc`` with the key at each dotted path removed (the
    command line's ``--unset PATH``: TOML has no null to give ``--set``);
    a path the document does not hold is an error naming it, since
    removing nothing is a typo more often than an intent."""
    out = as_dict(doc)
    errors: List[Problem] = []
    for path in paths:
        parts = parse_path(path)
        cur: Any = out
        for part in parts:
            if isinstance(cur, dict) and str(part) in cur:
                cur = cur[str(part)]
            elif isinstance(cur, list) and isinstance(part, int) and part < len(cur):
                cur = cur[part]
            else:
                errors.append(Problem(path, "not in the scenario: nothing to unset"))
                break
    if errors:
        raise ScenarioError(errors)
    return with_overrides(out, {p: None for p in paths})


def with_overrides(doc: Any, overrides: Mapping[str, Any]) -> Dict[str, Any]:
    """A copy of ``doc`` (a dict, a path or a ``dcnsim.Scenario``, as
    ``run`` takes) with each ``dotted.path -> value`` set.

    Paths name dict keys and list indices (``"apps.0.servers"`` or
    ``"apps[0].servers"``); missing tables on the way are created; a value of
    ``None`` deletes the key. Builders are accepted as values."""
    if not isinstance(overrides, Mapping):
        raise TypeError(f"with_overrides: overrides: expected a mapping of dotted path to value "
                        f"({{'topology.buffer': '64KB'}}), got {type(overrides).__name__}")
    out = as_dict(doc)
    errors: List[Problem] = []
    # two paths of one field, or a table and a key inside it: the later
    # would undo the earlier without a word (`dcnsim run --set` refuses
    # them too, _args.nested_fields)
    fields: Dict[str, str] = {}
    for path in overrides:
        if isinstance(path, str):
            try:
                key = ".".join(map(str, parse_path(path)))
            except ScenarioError:
                continue  # said below, where the path is read
            for other, theirs in fields.items():
                if theirs == key:
                    errors.append(Problem(path, f"names the field {other!r} names too: give it once"))
                elif key.startswith(theirs + ".") or theirs.startswith(key + "."):
                    table, inner = (other, path) if key.startswith(theirs + ".") else (path, other)
                    errors.append(Problem(path, f"overlaps {other!r}: {table!r} replaces the whole table "
                                                f"{inner!r} sets a key of; give one or the other"))
            fields[path] = key
    if errors:
        raise ScenarioError(errors)
    for path, value in overrides.items():
        if not isinstance(path, str):
            errors.append(Problem(DOCUMENT, f"override key {path!r} is not a dotted path (a string such as "
                                            "'topology.buffer')"))
            continue
        parts = parse_path(path)
        cur: Any = out
        ok = True
        for i, part in enumerate(parts[:-1]):
            nxt = parts[i + 1]
            if isinstance(cur, list):
                if not isinstance(part, int) or part >= len(cur):
                    errors.append(Problem(path, f"no element {part} (the list has {len(cur)})"))
                    ok = False
                    break
                cur = cur[part]
            elif isinstance(cur, dict):
                key = str(part)
                if key not in cur:
                    if value is None:
                        ok = False  # deleting something that is not there: nothing to do
                        break
                    cur[key] = [] if isinstance(nxt, int) else {}
                cur = cur[key]
            else:
                errors.append(Problem(path, f"{'.'.join(map(str, parts[: i + 1]))} is not a table or list"))
                ok = False
                break
        if not ok:
            continue
        last = parts[-1]
        if isinstance(cur, list):
            if not isinstance(last, int) or last > len(cur) or (last == len(cur) and value is None):
                errors.append(Problem(path, f"no element {last} (the list has {len(cur)})"))
            elif value is None:
                del cur[last]
            elif last == len(cur):
                cur.append(_plain(value))
            else:
                cur[last] = _plain(value)
        elif isinstance(cur, dict):
            if value is None:
                cur.pop(str(last), None)
            else:
                cur[str(last)] = _plain(value)
        else:
            errors.append(Problem(path, "parent is not a table or list"))
    if errors:
        raise ScenarioError(errors)
    return out
