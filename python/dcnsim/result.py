"""The result of one run: tidy tables (pandas) plus run-level scalars.

The core hands over typed columns (``array.array`` and lists of str); a
column becomes a numpy array, and a table a pandas DataFrame, only when it
is first asked for (``Result.tables.columns(name)``, ``Result.flows``,
``Result.tables[name]``). A run whose caller reads only the summary and the
headline metrics (``dcnsim run``, a sweep worker) imports neither numpy nor
pandas, and small tables are written as CSV by the standard library.
"""

from __future__ import annotations

import array
import functools
import math
import os
from collections.abc import MutableMapping

from . import _core
from .errors import Problem

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import (
        IO,
        Any,
        Dict,
        Iterable,
        Iterator,
        List,
        Mapping,
        Optional,
        Sequence,
        Tuple,
        Union,
    )

#: Every table a run can return, from the core (``dcnsim::results::TABLE_SCHEMA``,
#: the one list): name -> [(column, numpy dtype), ...] in the core's order.
TABLE_SCHEMA: Dict[str, List[Tuple[str, str]]] = {
    name: [(str(c), str(d)) for c, d in t["columns"]] for name, t in _core.table_schema().items()
}
#: The tables every run returns (possibly empty) and their columns; the
#: others come with what asks for them: ``flow_ts``, ``queue_ts`` with a
#: scenario ``trace``, ``failures`` with its ``failures``, ``pfc`` and ``pfc_log`` with ``[pfc]``.
TABLE_COLUMNS: Dict[str, List[str]] = {
    name: [c for c, _ in TABLE_SCHEMA[name]] for name, t in _core.table_schema().items() if t["always"]
}
TABLES = tuple(TABLE_COLUMNS)

#: Summary keys every run has (physics only: the wall time is in ``Result.timing``).
SUMMARY_KEYS = (
    "seed", "events", "packet_hops", "sim_time_s", "packets_created",
    "packets_delivered", "packets_dropped", "packets_in_flight", "packets_on_links",
)

#: How long the run took; kept apart from the physics so results compare equal.
#: A run cut into partitions adds where its wall time went (:data:`PARALLEL_TIMING`).
TIMING_KEYS = ("wall_s", "threads", "workers")

#: A run cut into partitions only: its windows, a partition's mean work, what
#: waiting for the slower partition at each window added, and the steps
#: between windows with the build and close (seconds but ``windows``).
PARALLEL_TIMING = ("windows", "partition_work_s", "imbalance_s", "between_windows_s")

#: Of those, the counts (partitions, worker threads, windows): ints, in
#: ``timing`` and in ``summary.json`` (the core hands them over as floats).
TIMING_COUNTS = ("threads", "workers", "windows")


def int_counts(record: Dict[str, Any]) -> Dict[str, Any]:
    """``record`` (a summary record, ``summary.json`` as read back) with
    :data:`TIMING_COUNTS` as ints: a file written before they were (``1.0``)
    reads as one written now (``1``). Other values as they are."""
    for k in TIMING_COUNTS:
        v = record.get(k)
        if isinstance(v, float) and v.is_integer():
            record[k] = int(v)
    return record

FORMATS = ("csv", "parquet")

#: An HPCC run whose smallest W_init (``hpcc_window_min_pkts``) holds fewer
#: packets of mss than this is warned of: below it flows were seen locked at
#: unequal shares for thousands of RTTs (docs/hpcc.md, "Few packets in a window").
HPCC_FEWEST_PACKETS = 10

EMPTY_OUT_DIR = "out_dir is an empty path; name a directory (\".\" for the current one)"


def _write_csv(df: Any, fh: IO[Any]) -> None:
    df.to_csv(fh, index=False, lineterminator="\n")


#: Tables of at most this many cells are written by :func:`_write_csv_plain`;
#: larger ones by pandas, whose writer is faster per cell than importing it
#: (≈ 0.5 s) is slow.
PLAIN_CSV_CELLS = 200_000


def _csv_cell(v: Any) -> Any:
    # pandas' to_csv: floats as repr, NaN as an empty field, the rest as str
    if isinstance(v, float):
        return "" if v != v else repr(v)
    return v


@functools.lru_cache(maxsize=None)
def _csv_quotes_cr() -> bool:
    """Whether this interpreter's ``csv`` quotes a field holding a carriage
    return when the line terminator is ``"\\n"`` (Python 3.11's does not),
    so the core's writer gives its bytes."""
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(["a\rb"])
    return buf.getvalue().startswith('"')


def _write_csv_plain(cols: Mapping[str, Sequence[Any]], bools: Sequence[str], fh: IO[Any]) -> None:
    """The CSV pandas' ``to_csv(index=False, lineterminator="\\n")`` writes
    for these columns (tests/test_write.py compares them byte for byte),
    without importing pandas. ``bools``: columns of 0/1 bytes to write as
    ``True``/``False``."""
    import csv  # here: a run that writes no CSV never loads it

    w = csv.writer(fh, lineterminator="\n")
    w.writerow(list(cols))
    values = []
    for name, v in cols.items():
        v = v.tolist() if hasattr(v, "tolist") else list(v)
        if name in bools:
            v = [bool(x) for x in v]
        elif v and isinstance(v[0], float):
            v = [_csv_cell(x) for x in v]
        values.append(v)
    w.writerows(zip(*values))


def _write_parquet(df: Any, fh: IO[Any]) -> None:
    df.to_parquet(fh, index=False)


def _write_bytes(data: bytes, fh: IO[Any]) -> None:
    fh.write(data)


def _is_result_file(name: str) -> bool:
    """Whether ``name`` is one dcnsim gives a result's file: a table in
    either format, a pcap trace as the core names them (``h<host>.pcap``),
    ``scenario.json``, ``summary.json`` or a run's copy of a CDF file
    (``apps<i>.cdf``, :func:`cdf_file_name`)."""
    if name in ("scenario.json", "summary.json"):
        return True
    stem, dot, ext = name.rpartition(".")
    if not dot:
        return False
    if ext in FORMATS:
        return stem in TABLE_SCHEMA
    if ext == "cdf":
        return stem[:4] == "apps" and stem[4:].isdigit() and stem[4:].isascii()
    return ext == "pcap" and stem[:1] == "h" and stem[1:].isdigit() and stem[1:].isascii()


def cdf_file_name(app: int) -> str:
    """The file beside ``scenario.json`` holding app ``app``'s ``cdf_file``
    as the run read it (the written scenario names it, relative to itself)."""
    return f"apps{app}.cdf"


def with_cdf_copies(scenario: Dict[str, Any], apps: Iterable[int]) -> Dict[str, Any]:
    """``scenario`` with the ``cdf_file`` of each of ``apps`` naming its copy
    (:func:`cdf_file_name`): the ``scenario.json`` a run's directory holds."""
    apps = list(apps)
    if not apps:
        return scenario
    new = list(scenario["apps"])
    for i in apps:
        new[i] = {**new[i], "cdf_file": cdf_file_name(i)}
    return {**scenario, "apps": new}


#: The file a write puts beside the results while it puts them in place
#: (scenario.json first, summary.json last), removed once summary.json is
#: there: left behind, it marks a write cut short as dcnsim's.
WRITING_MARK = ".dcnsim-writing"


def result_files(out_dir: "Union[str, os.PathLike[str]]") -> List[str]:
    """The files of a dcnsim run in ``out_dir``, by name (sorted): none
    unless it holds a ``summary.json`` a run wrote (:func:`is_run_summary`),
    or a ``scenario.json`` beside :data:`WRITING_MARK` (a write cut short
    while its files went in place: scenario.json goes first, summary.json
    last); then every file named as a result's (tables in either format,
    ``h<host>.pcap``, the two JSON files). A user's other files are not,
    and neither is a ``scenario.json`` alone: a user's own (until
    2026-12-07 it claimed the directory, and a run into it replaced it)."""
    try:
        names = [e.name for e in os.scandir(os.fsdecode(out_dir)) if e.is_file(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    summary = _run_summary(out_dir) if "summary.json" in names else None
    cut_short = "scenario.json" in names and WRITING_MARK in names
    if summary is None and not cut_short:
        return []
    files = (summary or {}).get(FILES_KEY)
    if summary is not None and isinstance(files, list) and written_files(files):
        # the files its summary lists, and only those: a file named like a
        # result's that the run did not write is the user's (a
        # flows.parquet converted from its flows.csv, a capture named
        # h3.pcap), and was removed as the earlier run's until 2026-12-07;
        # a table of the user's own written with the run
        # (`r.tables["extra"] = df`) is the run's
        listed = {f for f in files if not f.startswith(".")}
        return sorted(n for n in names if n == "summary.json" or n in listed)
    # a summary from before the list was kept, or a write cut short (the
    # earlier run's summary.json went first): every file named as a result's
    return sorted(n for n in names if _is_result_file(n))


def _run_summary(out_dir: "Union[str, os.PathLike[str]]") -> Optional[Dict[str, Any]]:
    """``out_dir``'s ``summary.json`` if a run wrote it (a JSON object with
    the core's counts, ``events`` and ``packets_created``), else None: a
    ``summary.json`` of the user's own, beside a ``flows.csv`` of theirs,
    claimed the directory for a run, and both were replaced."""
    import json

    try:
        with open(os.path.join(os.fsdecode(out_dir), "summary.json"), "rb") as fh:
            rec = json.loads(fh.read(1 << 20))
    except (OSError, ValueError):
        # unreadable, not JSON, or a summary of more than 1 MiB: a run's is
        # a few KB, so one that size is no run's either
        return None
    return rec if isinstance(rec, dict) and "events" in rec and "packets_created" in rec else None


def is_run_summary(out_dir: "Union[str, os.PathLike[str]]") -> bool:
    """Whether ``out_dir``'s ``summary.json`` is one a run wrote (:func:`_run_summary`)."""
    return _run_summary(out_dir) is not None


def clear_earlier_run(out_dir: "Union[str, os.PathLike[str]]", keep: Iterable[str]) -> None:
    """Before a run is written into ``out_dir``: the earlier run's
    ``summary.json`` first (an interrupted write must never leave it
    vouching for new tables), then its files the new run, writing ``keep``,
    would leave beside its own (its traces, its other format); then the
    temporaries of a write killed outright (:func:`remove_stale_temporaries`)."""
    remove_earlier_files(out_dir, keep)
    remove_stale_temporaries(out_dir)


def remove_earlier_files(out_dir: "Union[str, os.PathLike[str]]", keep: Iterable[str]) -> List[str]:
    """The earlier run's ``summary.json``, then its files not in ``keep``,
    removed from ``out_dir``; returns the names of the latter."""
    names = set(keep)
    gone = []
    for old in sorted(result_files(out_dir), key=lambda n: n != "summary.json"):
        if old == "summary.json" or old not in names:
            try:
                os.unlink(os.path.join(os.fsdecode(out_dir), old))
            except FileNotFoundError:
                pass
            if old not in names:
                gone.append(old)
    return gone


def mark_writing(out_dir: "Union[str, os.PathLike[str]]") -> str:
    """Put :data:`WRITING_MARK` in ``out_dir``: its scenario.json is then
    a write's cut short, which the next write replaces. Returns its path."""
    mark = os.path.join(os.fsdecode(out_dir), WRITING_MARK)
    with open(mark, "wb"):
        pass
    return mark


def commit_replacing(out_dir: "Union[str, os.PathLike[str]]", staged: Any, names: Iterable[str]) -> None:
    """Put a write's staged files (``names``, scenario.json first,
    summary.json last) in place of an earlier run's: :data:`WRITING_MARK`
    goes first, then the earlier run's summary.json and its files not in
    ``names``, then the renames, and the mark last of all. Ctrl-C and
    SIGTERM wait until then (:class:`_signals_deferred`); cut short anywhere
    from the first removal on otherwise (a rename that fails, SIGKILL), the
    directory holds a scenario.json beside the mark, which the next write
    knows as dcnsim's (:func:`result_files`); a mark that cannot be made
    leaves everything as it was."""
    out = os.fsdecode(out_dir)
    mark = mark_writing(out)
    # Ctrl-C or SIGTERM from here waits until the files are in place (a few
    # renames): cut short, the earlier run was gone and this one half
    # there, a directory read_result refuses until the next write. What
    # still cuts it short (a failed rename, SIGKILL) leaves the mark.
    with _signals_deferred():
        try:
            remove_earlier_files(out, names)
            staged.commit()
        except BaseException:
            # the mark stays where it speaks for a scenario.json (the earlier
            # run's or this one's, renamed first); with none it is litter
            if not os.path.isfile(os.path.join(out, "scenario.json")):
                try:
                    os.unlink(mark)
                except FileNotFoundError:
                    pass
            raise
        os.unlink(mark)


class _signals_deferred:
    """A block Ctrl-C (SIGINT) and SIGTERM do not cut short: one that comes
    is noted and delivered to the handler that was in place once the block
    ends (Python's KeyboardInterrupt, the command line's SIGTERM handler;
    with the default action, the signal again). Only the main thread can
    set handlers: elsewhere (a sweep's thread, a worker's) the block runs
    as it is."""

    _SIGNALS = ("SIGINT", "SIGTERM")

    def __enter__(self) -> "_signals_deferred":
        import signal
        import threading

        self.old: Dict[int, Any] = {}
        self.got: List[int] = []
        if threading.current_thread() is not threading.main_thread():
            return self
        for name in self._SIGNALS:
            sig = getattr(signal, name, None)
            if sig is None:
                continue
            try:
                self.old[sig] = signal.signal(sig, lambda signum, frame: self.got.append(signum))
            except (ValueError, OSError):  # not settable here (an embedded interpreter)
                pass
        return self

    def __exit__(self, *exc: Any) -> None:
        import signal

        for sig, handler in self.old.items():
            signal.signal(sig, handler)
        if not self.got:
            return
        sig = self.got[0]
        handler = self.old.get(sig)
        if callable(handler):
            handler(sig, None)
        elif handler == signal.SIG_DFL:
            os.kill(os.getpid(), sig)


def remove_stale_temporaries(out_dir: "Union[str, os.PathLike[str]]") -> None:
    """The temporaries of a write killed outright (SIGKILL, a power cut),
    ``.NAME.XXXXXXXX.tmp`` for a result's NAME (atomic_open), removed: the
    writer holds the directory's lock (dir_lock), so none is another's in
    flight. Called before a write stages its own."""
    try:
        entries = list(os.scandir(os.fsdecode(out_dir)))
    except (FileNotFoundError, NotADirectoryError):
        return
    for e in entries:
        n = e.name
        if n.startswith(".") and n.endswith(".tmp") and e.is_file(follow_symlinks=False):
            stem = n[1:-4].rpartition(".")[0]
            if _is_result_file(stem):
                try:
                    os.unlink(e.path)
                except FileNotFoundError:
                    pass


def replacing_note(earlier: Sequence[str], ours: Iterable[str]) -> str:
    """What a write into a directory holding an earlier run's files
    (``earlier``, :func:`result_files`) says: the one text of
    ``Result.write``'s warning and ``dcnsim run --out``'s line."""
    keep = set(ours)
    gone = [n for n in earlier if n not in keep]
    return ("held an earlier run's results: replacing them"
            + (f" (removing {', '.join(gone)}, which this run does not write)" if gone else ""))


def foreign_files(out_dir: "Union[str, os.PathLike[str]]", names: Optional[Iterable[str]] = None) -> List[str]:
    """The files of ``out_dir`` a write would overwrite although no dcnsim
    run there wrote them (:func:`result_files`): a user's own ``flows.csv``
    in a directory with no run, or a ``flows.parquet`` of theirs beside a
    run written as CSV. ``names``: the files the write makes (default: any
    name a result's file can have)."""
    try:
        present = [e.name for e in os.scandir(os.fsdecode(out_dir)) if e.is_file(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    wanted = None if names is None else set(names)
    candidates = [n for n in present if (n in wanted if wanted is not None else _is_result_file(n))]
    if not candidates:
        return []
    runs = set(result_files(out_dir))
    return sorted(n for n in candidates if n not in runs)


def sweep_root_error(out_dir: "Union[str, os.PathLike[str]]") -> Optional[str]:
    """Why a run is not written into ``out_dir`` when it is a sweep's
    directory (its ``sweep.csv``, a table with a ``label`` column, beside
    the points' directories): the run's files would lie among them, one
    more run that no point and no row of the table is. None otherwise."""
    table = os.path.join(os.fsdecode(out_dir), "sweep.csv")
    try:
        with open(table, encoding="utf-8", errors="replace") as fh:
            header = fh.readline(1 << 16)
    except OSError:
        return None
    if "label" not in header.rstrip("\r\n").split(","):
        return None
    return (f"{os.fspath(out_dir)}: a sweep's directory (its sweep.csv and the points' directories): a run's files "
            "would lie among them, part of no point; give the run a directory of its own (a subdirectory of it "
            "will do)")


def foreign_files_error(out_dir: "Union[str, os.PathLike[str]]", foreign: Sequence[str]) -> str:
    if result_files(out_dir):
        where = "beside a dcnsim run that did not write them (its summary.json lists the files it wrote)"
    else:
        where = "but no dcnsim run (no summary.json a run wrote, nor a run's write cut short)"
    return (f"{os.fspath(out_dir)}: holds {', '.join(foreign)} {where}: not overwriting files dcnsim did not "
            "write; move them or choose another directory")


def jain(values: Iterable[float]) -> float:
    """Jain's fairness index ``(Σx)² / (n·Σx²)``: 1 when all equal, 1/n when
    one value takes everything. NaN for no values or all zeros (0/0: an
    empty selection shows as a gap, never as "fair"); a negative value is
    refused (ValueError). The core's definition
    (``dcnsim::results::jain``), the one the Rust tests use."""
    if isinstance(values, (str, bytes)):
        # iterable, one character at a time: "ab" failed as float('a')
        raise TypeError(f"jain: expected numbers (a list, an array, a Series), got {type(values).__name__} "
                        f"{values!r}")
    out = []
    for i, v in enumerate(values):
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            raise TypeError(f"jain: value {i} is not a number: {v!r}") from None
        if out[-1] < 0:
            # (Σx)²/(n·Σx²) of [-1, -1] is 1, "fair": a share is never negative
            raise ValueError(f"jain: value {i} is negative ({v!r}): the index is of shares (rates, bytes)")
    return _core.jain(out)


def _finite(xs: Iterable[Any]) -> List[float]:
    out = []
    # a numpy array or Series: Python floats at C speed, not one scalar object per element
    tolist = getattr(xs, "tolist", None)
    for x in tolist() if tolist is not None else xs:
        try:
            f = float(x)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return out


def _pct(xs: List[float], q: float) -> float:
    """``numpy.percentile(xs, q)`` (its default, linear interpolation),
    computed as numpy does step by step so the float is the same to the
    last bit (tests/test_startup.py compares them), without importing it."""
    if not xs:
        return math.nan
    v = sorted(xs)
    n = len(v)
    # numpy's virtual index for its default method, "linear": (n - 1)·q
    virtual = (n - 1) * (q / 100)
    if virtual >= n - 1:
        return float(v[-1])
    if virtual < 0:
        return float(v[0])
    lo = math.floor(virtual)
    gamma = virtual - lo
    a, b = v[lo], v[lo + 1]
    d = b - a
    # numpy's _lerp: from the nearer end, so the result stays within [a, b]
    return float(b - d * (1 - gamma) if gamma >= 0.5 else a + d * gamma)


#: ``array.array`` typecode -> numpy dtype of the column
_DTYPES = {"q": "int64", "Q": "uint64", "d": "float64", "B": "bool"}


def _numpy_column(v: Any, dtype: Optional[str]) -> Any:
    """A column from the core as a numpy array: a view of its ``array.array``
    (no copy), or an object array of its strings; other values (numpy arrays,
    hand-made lists) as they are."""
    if isinstance(v, array.array):
        import numpy as np

        return np.frombuffer(v, dtype=_DTYPES[v.typecode]) if len(v) else np.array([], dtype=_DTYPES[v.typecode])
    if isinstance(v, list) and dtype == "object":
        import numpy as np

        out = np.empty(len(v), dtype=object)
        out[:] = v
        return out
    return v


def _read_only(v: Any) -> Any:
    """A numpy array as a read-only view (the result's own columns stay
    as they are); anything else as it is."""
    flags = getattr(v, "flags", None)
    if flags is None or not flags.writeable or not hasattr(v, "view"):
        return v
    out = v.view()
    out.flags.writeable = False
    return out


def _frame(name: str, cols: Optional[Mapping[str, Any]]) -> Any:
    import pandas as pd

    if cols is None:  # absent: empty, with the core's columns and dtypes
        # text is numpy `object`, which pandas 3 makes its `str` dtype when
        # it sees strings; `str` gives an empty column what a full one gets
        # (pandas 3: `str`; before: `object`)
        return pd.DataFrame({c: pd.Series([], dtype=str if d == "object" else d) for c, d in TABLE_SCHEMA[name]})
    # numpy views of the core's columns (plain lists from hand-made raw dicts)
    df = pd.DataFrame(dict(cols), copy=False)
    if not len(df):
        # an empty text column is numpy `object` here, pandas 3's `str` when
        # read back from its file: the same dtype both ways, as above
        for c in df.columns:
            if df[c].dtype == object:
                df[c] = df[c].astype(str)
    return df


#: What makes each table that only some runs return (TABLE_COLUMNS has the others).
_TABLE_NEEDS = {
    "flow_ts": "time series need a `trace` table in the scenario (trace = {interval = \"1ms\", flows = true})",
    "queue_ts": "time series need a `trace` table in the scenario (trace = {interval = \"1ms\", queues = \"switches\"})",
    "failures": "it lists the scenario's [[failures]], and it has none",
    "pfc": "it needs [pfc] in the scenario",
    "pfc_log": "it needs [pfc] in the scenario",
}


class Tables(MutableMapping[str, "Any"]):  # Any: a name for mypy only (no typing at run time)
    """``Result.tables``: table name -> pandas DataFrame, each built on first
    access from the core's columns and kept. :meth:`columns` reads a table
    as numpy arrays without pandas, :meth:`core_columns` as the core's own
    sequences without numpy either. A DataFrame assigned to a name replaces
    the table for everything after (metrics, checks, ``write``)."""

    def __init__(self, raw: Mapping[str, Optional[Mapping[str, Any]]]):
        self._raw: Dict[str, Optional[Mapping[str, Any]]] = dict(raw)
        self._frames: Dict[str, Any] = {}
        self._numpy: Dict[str, Dict[str, Any]] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._frames:
            if name not in self._raw:
                raise self._missing(name)
            raw = self._raw[name]
            self._frames[name] = _frame(name, None if raw is None else self._arrays(name))
        return self._frames[name]

    def __setitem__(self, name: str, df: Any) -> None:
        if not isinstance(name, str):
            raise TypeError(f"tables: a table's name is a string (it names its file), got {name!r}")
        if not name or name[0] == "." or not all(c.isalnum() or c in "_.-" for c in name):
            # write puts it at out_dir/<name>.csv: "../x" would land outside
            raise ValueError(f"tables: {name!r} cannot name a table: it names its file in a result's directory "
                             "(letters, digits, '_', '-', '.'; not a path)")
        if not (hasattr(df, "columns") and hasattr(df, "to_csv")):
            # found now, not as an AttributeError in metrics or write later
            raise TypeError(f"tables[{name!r}]: expected a pandas DataFrame, got {type(df).__name__}")
        lacking = [c for c, _ in TABLE_SCHEMA.get(name, ()) if c not in df.columns]
        if lacking:
            # metrics, the checks and write read the core's columns of the
            # core's tables: a KeyError deep inside them, later, said nothing
            shown = ", ".join(lacking[:6]) + (f" and {len(lacking) - 6} more" if len(lacking) > 6 else "")
            raise ValueError(f"tables[{name!r}]: lacks the core's column(s) {shown}, which metrics, "
                             "conservation_problems and write read; keep them beside your own "
                             f"(r.{name}.assign(...)), or give your table another name")
        self._raw.setdefault(name, None)
        self._frames[name] = df

    def __delitem__(self, name: str) -> None:
        del self._raw[name]
        self._frames.pop(name, None)

    def __contains__(self, name: object) -> bool:  # Mapping's would build the DataFrame
        return name in self._raw

    def get(self, name: str, default: Any = None) -> Any:  # Mapping's would word a KeyError for nothing
        return self[name] if name in self._raw else default

    def _missing(self, name: Any) -> KeyError:
        """The KeyError of a table this result does not hold, saying why: a
        table only some scenarios make names what makes it; a misspelled
        name, the one meant."""
        why = _TABLE_NEEDS.get(name) if isinstance(name, str) else None
        if why is not None:
            text = f"this run has no {name!r} table: {why}"
        else:
            import difflib

            close = difflib.get_close_matches(str(name), list(self._raw), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            text = f"no table {name!r} ({hint}this run's tables: {', '.join(self._raw)})"
        return KeyError(text)

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def columns(self, name: str) -> Dict[str, Sequence[Any]]:
        """Column name -> numpy array (read-only views of the core's
        columns, made on first call and kept), without building a
        DataFrame; once the table is a DataFrame (built on access, or
        assigned), its columns' arrays, so the type, positional indexing
        and read-only-ness never depend on whether ``result.flows`` was read
        first (a writable view let ``cols["fct_s"] *= 1e3`` change the
        result's DataFrame and what ``write`` writes; copy to change one)."""
        if name in self._frames:
            df = self._frames[name]
            return {str(c): _read_only(df[c].to_numpy()) for c in df.columns}
        return {c: _read_only(v) for c, v in self._arrays(name).items()}

    def _arrays(self, name: str) -> Dict[str, Any]:
        """The core's columns of ``name`` as numpy arrays (made once, kept):
        what its DataFrame is built on."""
        if name not in self._raw:
            raise self._missing(name)
        cols = self._raw[name]
        if cols is None:
            return {c: () for c, _ in TABLE_SCHEMA.get(name, [])}
        if name not in self._numpy:
            dtypes = dict(TABLE_SCHEMA.get(name, []))
            self._numpy[name] = {c: _numpy_column(v, dtypes.get(c)) for c, v in cols.items()}
        return dict(self._numpy[name])

    def core_columns(self, name: str) -> Dict[str, Sequence[Any]]:
        """Column name -> the core's values as they came (``array.array`` of
        numbers, 0/1 bytes for bools, lists of str; or the assigned
        DataFrame's columns): for reading a few numbers without numpy."""
        if name in self._frames:
            return self.columns(name)
        if name not in self._raw:
            raise self._missing(name)
        cols = self._raw[name]
        if cols is None:
            return {c: () for c, _ in TABLE_SCHEMA.get(name, [])}
        return dict(cols)

    def rows(self, name: str) -> int:
        cols = self.core_columns(name)
        return len(next(iter(cols.values()))) if cols else 0

    def _write_csv(self, name: str, fh: IO[Any]) -> None:
        """One table as CSV, the bytes pandas writes: the core's columns by
        the core (``_core.write_csv``: a k = 32 fat-tree's 2.5 M cells in
        0.1 s, where pandas took 1 s with its import); assigned DataFrames by
        pandas; hand-made columns the core does not read (lists of numbers,
        numpy arrays) by the standard library when small, else pandas."""
        cols = self.core_columns(name)
        bools = [c for c, d in TABLE_SCHEMA.get(name, []) if d == "bool"]
        if name not in self._frames:
            if _core.write_csv(fh, cols, bools, _csv_quotes_cr()):
                return
            if self.rows(name) * max(len(cols), 1) <= PLAIN_CSV_CELLS:
                _write_csv_plain(cols, bools, fh)
                return
        _write_csv(self[name], fh)


def _jsonable(v: Any) -> Any:
    """``v`` as strict JSON takes it: a non-finite float as None (JSON has
    no NaN), a numpy scalar or array as Python values, inside dicts, lists
    and tuples too."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):  # numpy scalar or array
        return _jsonable(v.tolist())
    return v


class Result:
    """One run's output.

    ``flows``, ``queues``, ``queries``, ``blocks`` are pandas DataFrames (empty,
    with their columns, when the run has none); ``tables`` holds every table
    the core returned by name (:class:`Tables`: each DataFrame is built on
    first access; ``tables.columns(name)`` gives the core's numpy columns); ``summary`` the core's run-level scalars;
    ``timing`` how long it took (``wall_s``; not physics: two runs of one
    scenario and seed have equal ``summary`` and tables, never equal timing);
    ``scenario`` the scenario dict as run (with the effective seed);
    ``metrics`` derived headline numbers (see :meth:`metrics`); ``pcaps``
    the pcap traces the scenario asked for (file name -> bytes);
    ``cdf_files`` the bytes of each app's ``cdf_file`` as the run read them
    (app index -> bytes); ``notes`` what the core said of how the run went
    (why it ran on fewer threads than asked), also printed on stderr."""

    def __init__(self, raw: Mapping[str, Any], scenario: Optional[Dict[str, Any]] = None,
                 warnings: Iterable[str] = (), cdf_files: Optional[Mapping[int, bytes]] = None):
        self.scenario: Dict[str, Any] = dict(scenario or {})
        #: each app's ``cdf_file`` as the run read it (app index -> bytes):
        #: :meth:`write` puts it beside ``scenario.json``, which names the copy
        self.cdf_files: Dict[int, bytes] = {int(k): bytes(v) for k, v in (cdf_files or {}).items()}
        #: what the scenario probably did not mean ("field.path: reason"), e.g.
        #: DCTCP with no ECN-marking queue; the run is valid either way
        self.warnings: List[str] = [str(w) for w in warnings]
        #: what the core said of how the run went, results unchanged (it
        #: ran on fewer threads than asked, and why): printed on stderr as
        #: the run returned; not written with the results
        self.notes: List[str] = []
        #: run-level physics: counts (and the seed) as ints, times and means as floats
        self.summary: Dict[str, Union[int, float]] = dict(raw.get("summary", {}))
        timing = dict(raw.get("timing") or {})
        for k in TIMING_KEYS:  # a raw dict from an older core has them in the summary
            if k in self.summary:
                timing.setdefault(k, float(self.summary.pop(k)))
        #: how long the run took: ``wall_s`` (seconds of the core's own clock),
        #: and on how many partitions (``threads``) and worker threads
        #: (``workers``), ints; a run cut into partitions adds
        #: :data:`PARALLEL_TIMING`
        self.timing: Dict[str, Union[int, float]] = int_counts({str(k): float(v) for k, v in timing.items()})
        #: which core produced this result: ``{"version": ..., "build": ...}``
        self.core: Dict[str, str] = {str(k): str(v) for k, v in (raw.get("core") or {}).items()}
        #: pcap traces requested by the scenario's ``pcap`` table: file name -> bytes
        self.pcaps: Dict[str, bytes] = {str(k): bytes(v) for k, v in (raw.get("pcaps") or {}).items()}
        raw_tables = raw.get("tables", {}) or {}
        self.tables = Tables({name: raw_tables.get(name)
                              for name in list(TABLES) + [t for t in raw_tables if t not in TABLE_COLUMNS]})

    @property
    def flows(self):
        """One row per flow (a TCP connection or UDP source): its endpoints,
        app, bytes, start and end (``_s``: seconds), FCT, goodput (``_bps``:
        bits per second), timeouts, retransmits and drops (docs/python.md,
        `Result`)."""
        return self.tables.get("flows")

    @property
    def queues(self):
        """One row per directed link's egress queue: its limit, packets
        enqueued and dropped, bytes sent, mean and peak occupancy, CE marks
        (docs/python.md, `Result`)."""
        return self.tables.get("queues")

    @property
    def queue_inputs(self):
        """Per-input-port accounting at switch egress queues: one row per
        (egress queue, input link) pair that offered packets, with packets
        offered, enqueued and dropped, and the longest run of consecutive
        drops from that input (port blackout)."""
        return self.tables.get("queue_inputs")

    @property
    def queries(self):
        """One row per completed partition/aggregate query: its start, end and
        QCT (``qct_s``, seconds), bytes and timeouts; empty when none
        completed (docs/python.md, `Result`)."""
        return self.tables.get("queries")

    @property
    def blocks(self):
        """One row per completed synchronized-reads block: its start, end and
        duration (seconds), bytes, goodput (bits per second) and timeouts;
        empty when none completed (docs/python.md, `Result`)."""
        return self.tables.get("blocks")

    @property
    def losses(self):
        """Every loss indication of every TCP flow in time order: ``time_s,
        flow_id, kind`` (``"timeout"`` or ``"fast_retransmit"``)."""
        return self.tables.get("losses")

    @property
    def flow_ts(self):
        """Time series of every TCP flow (only with a ``trace`` table in the scenario)."""
        return self.tables.get("flow_ts")

    @property
    def queue_ts(self):
        """Time series of the traced queues (only with ``trace.queues``)."""
        return self.tables.get("queue_ts")

    @property
    def failures(self):
        """One row per ``[[failures]]`` entry and directed link it strikes,
        with the packets it cost there (``lost``); None without failures."""
        return self.tables.get("failures")

    @property
    def pfc(self):
        """One row per switch ingress port under ``[pfc]``: the PAUSE frames
        it sent (``pauses``), the time its sender spent paused
        (``paused_s``), the most bytes it held in the switch
        (``max_held_bytes``) and whether its sender was still paused at the
        end (``paused_at_end``); None without PFC."""
        return self.tables.get("pfc")

    @property
    def pfc_log(self):
        """Every PAUSE (``paused`` True) and RESUME under ``[pfc]``, at the
        time it reaches the sender of link ``queue_id`` (``node`` → ``to``),
        in time order: how pauses spread upstream; None without PFC."""
        return self.tables.get("pfc_log")

    def __repr__(self) -> str:
        name = self.scenario.get("name", "scenario")
        sizes = ", ".join(f"{k}={self.tables.rows(k)}" for k in self.tables)
        return f"<dcnsim.Result {name!r} seed={self.summary.get('seed')} {sizes}>"

    # ------------------------------------------------------------------ metrics

    @property
    def metrics(self) -> Dict[str, float]:
        """Headline numbers derived from the tables:

        * ``n_flows``, ``n_completed``; ``goodput_bps``: 8·Σ delivered bytes /
          (last flow end − first flow start), unfinished flows counted to the
          end of the simulation, flows that never started not at all;
          ``jain``: Jain's index of bulk flows' goodput;
        * ``timeouts``, ``retransmits``, ``drops`` summed over flows;
        * queries: ``n_queries``, ``qct_mean_s``, ``qct_p50_s``, ``qct_p99_s``,
          ``qct_max_s`` over completed queries, ``query_timeouts_mean``
          (workers' and the aggregator's request flows') and, of it,
          ``query_request_timeouts_mean`` (the request flows' alone: a
          worker's ACK of the query was lost);
        * blocks: ``n_blocks``, ``block_goodput_bps`` = 8·Σ bytes / Σ duration
          of completed blocks, ``block_timeouts`` and, of them,
          ``block_request_timeouts``.

        The query and block keys are there whenever the scenario has such
        an app: a run that ended before the first round completed has
        ``n_queries`` or ``n_blocks`` 0, their timeouts 0 and their times
        and goodput NaN (a missing key, or NaN in a sweep's table, let a
        mean over seeds skip the runs that collapsed).
        """
        # from the core's columns, not DataFrames: `dcnsim run` and sweep
        # workers need these numbers and nothing that would import numpy
        t = self.tables
        f, q, b = t.core_columns("flows"), t.core_columns("queries"), t.core_columns("blocks")
        nf, nq, nb = t.rows("flows"), t.rows("queries"), t.rows("blocks")
        # counts are ints (as in ``summary``), so tables and JSON show 12, not 12.0
        out: Dict[str, float] = {}
        out["n_flows"] = nf
        out["n_completed"] = sum(1 for c in f["completed"] if bool(c)) if nf else 0
        delivered = sum(_finite(f["delivered_bytes"])) if nf else 0.0
        starts = _finite(f["start_s"]) if nf else []
        sim_end = float(self.summary.get("sim_time_s", math.nan))
        # an unfinished flow counts to the end of the simulation; one that
        # never started (start NaN: its app's start lay past `stop`) counts
        # not at all (it stretched the window to the end: a 0.9 ms transfer
        # read as 41 Mbps in a 20 ms run)
        ends = [e if math.isfinite(e) else sim_end
                for s, e in zip((float(x) for x in f["start_s"]), (float(x) for x in f["end_s"]))
                if math.isfinite(s)] if nf else []
        ends = _finite(ends)
        span = (max(ends) - min(starts)) if starts and ends else math.nan
        out["goodput_bps"] = 8.0 * delivered / span if span and span > 0 else math.nan
        bulk = [g for g, role in zip(f["goodput_bps"], f["role"]) if role == "bulk"] if nf else []
        out["jain"] = jain(_finite(bulk)) if bulk else math.nan
        for col in ("timeouts", "retransmits", "drops"):
            out[col] = int(sum(_finite(f[col]))) if nf else 0
        kinds = self._app_kinds()
        if nq or "partition_aggregate" in kinds:
            qct = _finite(q["qct_s"]) if nq else []
            out["n_queries"] = nq
            out["qct_mean_s"] = sum(qct) / len(qct) if qct else math.nan
            out["qct_p50_s"] = _pct(qct, 50)
            out["qct_p99_s"] = _pct(qct, 99)
            out["qct_max_s"] = max(qct) if qct else math.nan
            out["query_timeouts_mean"] = sum(_finite(q["timeouts"])) / nq if nq else math.nan
            if "request_timeouts" in q:  # absent from results of cores before 0.1.0+c1427f6
                out["query_request_timeouts_mean"] = sum(_finite(q["request_timeouts"])) / nq if nq else math.nan
        if nb or "sync_reads" in kinds:
            done = [(float(d), float(n)) for d, n in zip(b["duration_s"], b["bytes"]) if math.isfinite(float(d))] \
                if nb else []
            dur = sum(d for d, _ in done)
            out["n_blocks"] = nb
            out["block_goodput_bps"] = 8.0 * sum(n for _, n in done) / dur if dur > 0 else math.nan
            out["block_timeouts"] = int(sum(_finite(b["timeouts"]))) if nb else 0
            if "request_timeouts" in b:
                out["block_request_timeouts"] = int(sum(_finite(b["request_timeouts"]))) if nb else 0
        return out

    def _app_kinds(self) -> set:
        """The kinds of the scenario's apps (``sync_reads``, …)."""
        apps = self.scenario.get("apps") if isinstance(self.scenario, dict) else None
        return {a.get("kind") for a in apps if isinstance(a, dict)} if isinstance(apps, list) else set()

    # ------------------------------------------------------------------ output

    def file_names(self, format: str = "csv") -> List[str]:
        """The files :meth:`write` writes in ``format``, by name, in the
        order it writes them (``summary.json`` last)."""
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
        return (["scenario.json"] + [cdf_file_name(i) for i in self._copied_cdfs()]
                + [f"{name}.{format}" for name in self.tables]
                + [os.path.basename(f) for f in self.pcaps] + ["summary.json"])

    def _copied_cdfs(self) -> List[int]:
        """The apps whose ``cdf_file`` :meth:`write` copies: those still
        naming one in ``scenario`` (a Result edited by hand may not)."""
        apps = self.scenario.get("apps")
        apps = apps if isinstance(apps, list) else []
        return [i for i in sorted(self.cdf_files)
                if i < len(apps) and isinstance(apps[i], dict) and isinstance(apps[i].get("cdf_file"), str)]

    def written_scenario(self) -> Dict[str, Any]:
        """``scenario`` as :meth:`write` writes it: each ``cdf_file`` the run
        read names its copy beside ``scenario.json`` (``apps<i>.cdf``, a path
        relative to the scenario file), so the directory alone reruns the
        run, whatever became of the original file."""
        return with_cdf_copies(self.scenario, self._copied_cdfs())

    def write(self, out_dir: Union[str, os.PathLike], format: str = "csv") -> Path:
        """Write every table (``<name>.csv`` or ``<name>.parquet``), the pcap
        traces (``h0.pcap``, ...), ``scenario.json`` (runnable: the scenario
        with its effective seed; each ``cdf_file`` copied beside it as
        ``apps<i>.cdf``, :meth:`written_scenario`) and ``summary.json``
        (``summary`` plus ``metrics``, and ``files``: the names of the other
        files written; put in place last, so its presence marks a complete
        result, and :func:`read_result` and a sweep's resume find a file
        missing since). ``~`` in ``out_dir`` is the home directory. Returns
        the directory.

        Every file is first written whole to a temporary beside it; only
        when all are written are they renamed into place, so a write that
        fails (a value that cannot be written, a full disk, Ctrl-C) leaves
        the directory as it was.

        A directory holds one run: where ``out_dir`` holds an earlier run's
        results (a ``summary.json`` a run wrote, :func:`is_run_summary`, or
        a write of one cut short, :func:`result_files`), that run is
        replaced, with a :class:`DcnsimWarning` naming its files this run
        does not write (removed: tables in the other format, pcap traces);
        other files are never touched, even named like a result's when
        the earlier run's ``summary.json`` does not list them. A write
        that would overwrite a file no run there wrote (a ``flows.csv`` or
        a ``scenario.json`` of your own in a directory with no run, a
        ``flows.parquet`` of yours beside a CSV run) is refused with
        :class:`OutputDirError`, as is a path that cannot be a directory."""
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
        # here: pathlib is ≈ 3 ms of a start (see _atomic), the atomic writer
        # brings contextlib; a run that writes nothing loads neither
        if not os.fspath(out_dir):
            # Path("") is the current directory: an unset variable would
            # scatter a run's files wherever the command was started
            raise ValueError(EMPTY_OUT_DIR)
        from pathlib import Path

        from ._atomic import OutputDirError, StagedFiles, check_out_dir, dir_lock
        from ._document import readable_json

        # the message run_sweep and `dcnsim run --out` give a file in the way
        out = check_out_dir(out_dir)
        in_sweep = sweep_root_error(out)
        if in_sweep:
            raise OutputDirError(in_sweep)
        names = self.file_names(format)
        # one writer at a time (another process's run or sweep into the
        # same directory would mix its files with these)
        with dir_lock(out):
            earlier = result_files(out)
            foreign = foreign_files(out, names)
            if foreign:
                raise OutputDirError(foreign_files_error(out, foreign))
            remove_stale_temporaries(out)
            with StagedFiles() as staged:
                scenario = self.written_scenario()
                staged.write(out / "scenario.json", lambda fh: fh.write(readable_json(scenario) + "\n"))
                # after scenario.json: a copy renamed into place without it
                # would be a file no run claims, in the way of the next write
                for i in self._copied_cdfs():
                    staged.write(out / cdf_file_name(i), functools.partial(_write_bytes, self.cdf_files[i]), mode="wb")
                for name in self.tables:
                    if format == "csv":
                        staged.write(out / f"{name}.csv", functools.partial(self.tables._write_csv, name))
                    else:
                        staged.write(out / f"{name}.parquet", functools.partial(_write_parquet, self.tables[name]),
                                     mode="wb")
                for fname, data in self.pcaps.items():
                    safe = Path(fname).name  # a bare file name, never a path out of out_dir
                    staged.write(out / safe, functools.partial(_write_bytes, data), mode="wb")
                # with the names of the files beside it: a file removed or
                # left out of a copy since is missing, not an empty table
                record = dict(self.summary_record(), **{FILES_KEY: [n for n in names if n != "summary.json"],
                                                        ROWS_KEY: {t: self.tables.rows(t) for t in self.tables}})
                staged.write(out / "summary.json", lambda fh: fh.write(readable_json(record) + "\n"))
                if earlier:
                    # said before the earlier run goes: under `-W error` it
                    # stays, and nothing of this one is written
                    import warnings

                    from .errors import DcnsimWarning, caller_stacklevel

                    warnings.warn(DcnsimWarning(os.fspath(out), replacing_note(earlier, names)),
                                  stacklevel=caller_stacklevel())
                # everything is written: only now does the earlier run go,
                # its summary.json first (a rename cut short never leaves it
                # vouching for new tables); scenario.json is put in place
                # first and summary.json last (result_files finds a write
                # cut short, complete once summary.json is there)
                commit_replacing(out, staged, names)
        return out

    def conservation_problems(self) -> List[str]:
        """Accounting laws every run obeys; returns what is violated (empty
        when all hold). Each law sets two tallies kept by different parts of
        the core against each other, so a lost, invented or doubled packet
        or byte breaks one:

        * packets: the arena's live packets (``packets_in_flight``) equal
          what the links hold (``packets_on_links``, the sum of the queues'
          ``in_flight_pkts``); created = delivered + dropped + on links; every
          created packet was offered to a NIC queue; every packet enqueued on
          a link arrived at its far end (``packet_hops``) or is still on it;
          the core's drops equal the queues';
        * bytes: what each TCP flow's receiving application counted
          (``received_bytes``) equals the transport's in-order bytes
          (``delivered_bytes``; for a duration flow, delivered by its deadline,
          at most what was received) and never exceeds what was written;
        * completion, the application's own event: a completed transfer
          received every message written, and every byte exactly once;
        * the trace, when there is one: a flow's ``flow_ts.delivered_bytes``
          never falls and its last sample (taken where the run ended) is the
          flows table's ``delivered_bytes`` (for a duration flow, whose table
          counts what arrived by its deadline, at least that); a queue's ``queue_ts.bytes``
          never exceeds its own high-water mark (``queues.max_bytes``).
        UDP delivers at most what was sent."""
        out: List[str] = []
        s = self.summary
        keys = {"packets_created", "packets_delivered", "packets_dropped", "packets_in_flight",
                "packets_on_links", "packet_hops"}
        q = self.queues
        if keys <= set(s):
            created, delivered, dropped = s["packets_created"], s["packets_delivered"], s["packets_dropped"]
            live, on_links = s["packets_in_flight"], s["packets_on_links"]
            if live != on_links:
                out.append(f"packets: {live:.0f} live in the arena but {on_links:.0f} on the links")
            if created != delivered + dropped + on_links:
                out.append(f"packets: created {created:.0f} != delivered {delivered:.0f} + dropped {dropped:.0f} "
                           f"+ on links {on_links:.0f}")
            if len(q) and {"enqueued", "dropped", "in_flight_pkts", "from_host"} <= set(q.columns):
                if dropped != q["dropped"].sum():
                    out.append(f"packets: core counted {dropped:.0f} drops, the queues {q['dropped'].sum()}")
                if q["enqueued"].sum() != s["packet_hops"] + q["in_flight_pkts"].sum():
                    out.append(f"packets: {q['enqueued'].sum()} enqueued on links != {s['packet_hops']:.0f} "
                               f"arrivals + {q['in_flight_pkts'].sum()} still on links")
                nic = q[q["from_host"].astype(bool)]
                offered = int(nic["enqueued"].sum() + nic["dropped"].sum())
                if created != offered:
                    out.append(f"packets: created {created:.0f} != {offered} offered to NIC queues")
        f = self.flows
        if len(f):
            udp = f[f.transport == "udp"]
            for r in udp[udp.delivered_bytes > udp.app_bytes].itertuples():
                out.append(f"flow {r.flow_id}: delivered {r.delivered_bytes} > sent {r.app_bytes}")
            # every reliable transport, not only TCP's rows (NDP, Swift, HPCC, DCQCN and TIMELY
            # carry their own names and were left out of every law below)
            tcp = f[f.transport != "udp"]
            if {"received_bytes", "messages_written", "messages_received"} <= set(f.columns):
                for r in tcp.itertuples():
                    sized = r.messages_written > 0
                    if r.received_bytes > r.app_bytes:
                        out.append(f"flow {r.flow_id}: the application received {r.received_bytes} > "
                                   f"written {r.app_bytes}")
                    if (sized and r.delivered_bytes != r.received_bytes) or r.delivered_bytes > r.received_bytes:
                        out.append(f"flow {r.flow_id}: transport delivered {r.delivered_bytes} in order, the "
                                   f"application received {r.received_bytes}")
                    if r.messages_received > r.messages_written:
                        out.append(f"flow {r.flow_id}: {r.messages_received} messages received > "
                                   f"{r.messages_written} written")
                    if bool(r.completed) and sized and (r.messages_received != r.messages_written
                                                        or r.received_bytes != r.app_bytes
                                                        or r.delivered_bytes != r.app_bytes):
                        out.append(f"flow {r.flow_id}: completed with {r.messages_received}/{r.messages_written} "
                                   f"messages, {r.delivered_bytes} delivered, {r.received_bytes} received of "
                                   f"{r.app_bytes} written")
            else:
                for r in tcp[tcp.delivered_bytes > tcp.app_bytes].itertuples():
                    out.append(f"flow {r.flow_id}: delivered {r.delivered_bytes} > written {r.app_bytes}")
        out += self._trace_problems()
        return out

    def _trace_problems(self) -> List[str]:
        """The trace's laws (:meth:`conservation_problems`): its own series
        against the tables the core keeps apart from it."""
        out: List[str] = []
        ts = self.tables.get("flow_ts")
        if ts is not None and len(ts):
            ts = ts.sort_values(["flow_id", "time_s"], kind="stable")
            g = ts.groupby("flow_id")["delivered_bytes"]
            for fid, fell in (g.diff() < 0).groupby(ts["flow_id"]).any().items():
                if fell:
                    out.append(f"flow {fid}: flow_ts.delivered_bytes falls between two samples")
            last = g.last()
            f = self.flows.set_index("flow_id")
            total = f["delivered_bytes"]
            # a duration flow's table counts what arrived by its deadline; what
            # was in flight then lands later, in the trace (until = "stop")
            duration = f["messages_written"] == 0 if "messages_written" in f.columns else None
            for fid, v in last.items():
                if fid not in total.index:
                    continue
                by_deadline = duration is not None and bool(duration[fid])
                if int(v) < int(total[fid]) or (int(v) != int(total[fid]) and not by_deadline):
                    out.append(f"flow {fid}: the trace's last delivered_bytes {int(v)} != the flows "
                               f"table's {int(total[fid])}")
        qs = self.tables.get("queue_ts")
        q = self.queues
        if qs is not None and len(qs) and len(q) and "max_bytes" in q.columns:
            peak = qs.groupby("queue_id")["bytes"].max()
            hw = q.set_index("queue_id")["max_bytes"]
            for qid, b in peak.items():
                if qid in hw.index and int(b) > int(hw[qid]):
                    out.append(f"queue {qid}: the trace saw {int(b)} bytes, above its high-water mark "
                               f"{int(hw[qid])}")
        return out

    def outcome_warnings(self) -> List[Problem]:
        """What the run did that its scenario probably did not mean, as
        :class:`Problem` ``(path, reason)`` pairs: packets dropped at full
        switch buffers in a lossless (``[pfc]``) fabric; apps not finished
        at ``stop`` (their unfinished rounds are in no ``blocks`` or
        ``queries`` row). :func:`dcnsim.run` adds them to ``warnings`` and
        emits each as a :class:`DcnsimWarning`; ``dcnsim run`` prints them
        in its summary."""
        out: List[Problem] = []
        s = self.summary
        if s.get("pfc_pauses") is not None and "queues" in self.tables:
            q = self.tables.core_columns("queues")
            ports = sorted(((int(d), f"{a}→{b}") for d, h, a, b in zip(q.get("dropped", ()), q.get("from_host", ()),
                                                                       q.get("node", ()), q.get("to", ()))
                            if not h and d), key=lambda x: (-x[0], x[1]))
            at_switches = sum(d for d, _ in ports)
            if at_switches:
                named = ", ".join(f"{p} {d:,}" for d, p in ports[:3]) + (f" and {len(ports) - 3} more ports"
                                                                         if len(ports) > 3 else "")
                out.append(Problem("pfc", f"{at_switches:,} packets dropped at full switch buffers under PFC ({named}): "
                                          "a port's buffer must hold what all its inputs bring at xoff plus a round "
                                          "trip each (dcnsim validate checks one input's worth)"))
        if s.get("pfc_pauses") is not None and "pfc" in self.tables:
            cycle = _paused_cycle(self.tables.core_columns("pfc"))
            if cycle:
                out.append(Problem("pfc", f"PFC deadlock: {' → '.join(cycle)} were all paused at the end of the "
                                          "run, each link's sender waiting on the next one's (a cyclic buffer "
                                          "dependency, which PFC cannot break); routes whose links form no cycle "
                                          "(a tree, up-down routing) cannot deadlock"))
        fewest = s.get("hpcc_window_min_pkts")
        if fewest is not None and fewest < HPCC_FEWEST_PACKETS:
            # measured: two flows at 10 Gbps lock at 7.7 and 1.1 Gbps with
            # 9.0 packets of mss in W_init, share within 1 % from 10.7 (docs/hpcc.md)
            out.append(Problem("tcp.transport", f"the smallest HPCC window (W_init, line rate × T) holds {fewest:.1f} "
                                                f"packets of mss: HPCC's window moves in whole packets, and with "
                                                f"fewer than {HPCC_FEWEST_PACKETS} packets in it flows can lock at "
                                                "unequal shares below η (docs/hpcc.md, \"Few packets in a "
                                                "window\"); a longer hpcc_base_rtt (the fabric's largest RTT, the "
                                                "paper's T) or a smaller mss puts more in it"))
        ratio = s.get("swift_target_over_path_rtt_min")
        if ratio is not None and ratio < 1:
            # measured, lone flows: at 10 Gbps 1.006 of the delay fills 96 % of the link, 0.96
            # 69 %, 0.84 24 %; at 100 Gbps 0.995 39 % (docs/swift.md)
            short = float(s.get("swift_target_short_s") or 0.0)
            out.append(Problem("tcp.swift_base_target",
                               f"Swift's fabric target, at the window that fills a path, is {ratio:.2f}× that "
                               "path's unloaded delay: an idle path then reads as congested, and a flow's window "
                               "settles short of line rate (a lone flow at 10 Gbps fills 24 % of its link at "
                               "0.84×); raise swift_base_target by "
                               f"{short * 1e6:.3g} µs or more, or swift_hop_scale, so every path's target lies "
                               "above its unloaded RTT (docs/swift.md, \"A target below the path's delay\")"))
        ratio = s.get("timely_path_rtt_over_t_low_max")
        if ratio is not None and ratio > 1:
            rtt_us = float(s.get("timely_path_rtt_at_max_s") or 0.0) * 1e6
            min_rtt_us = float(s.get("timely_min_rtt_at_max_s") or 0.0) * 1e6
            # said only where it holds: a minRTT raised to the path's is not "below" it
            below = (f", and timely_min_rtt ({min_rtt_us:.3g} µs), which normalises its gradient, is below "
                     "the path's own minimum RTT") if min_rtt_us < rtt_us else ""
            # measured, 8 flows into one port: 10 Gbps over 20 µs links 73 % of the port, 95 % with
            # the three keys set so; 25 Gbps over 50 µs 48 % and 98 %; 1 Gbps full either way (docs/timely.md)
            out.append(Problem("tcp.timely_t_low",
                               f"a path's unloaded RTT ({rtt_us:.3g} µs) is {ratio:.2f}× timely_t_low: TIMELY's "
                               f"always-increase branch is out of its reach{below}; at 10 Gbps and more flows "
                               "then leave much of a port unused. Set timely_min_rtt to the path's RTT and "
                               "timely_t_low and timely_t_high above it (docs/timely.md, \"Paths longer than "
                               "T_low\")"))
        over = s.get("swift_bdp_over_max_cwnd_max")
        if over is not None and over > 1:
            out.append(Problem("tcp.swift_max_cwnd",
                               f"a path's bandwidth-delay product is {over:.2f}× Swift's largest window "
                               f"(swift_max_cwnd packets of mss): a flow alone on it reaches at most "
                               f"{100 / over:.0f} % of line rate; raise swift_max_cwnd {over:.2f}-fold or more "
                               "(docs/swift.md, \"A target below the path's delay\")"))
        unfinished = int(s.get("apps_unfinished", 0) or 0)
        if unfinished > 0:
            out.append(Problem("apps", f"{unfinished:,} app(s) had not finished at `stop`"
                               + self._unfinished_flows_text()))
        return out

    def _unfinished_flows_text(self) -> str:
        """For each Poisson app with flows still running at ``stop``, how
        many and of which sizes (analysis.FCT_BINS' classes): the summary's
        "see its warning" led to a line with no detail, and the flows left
        are mostly the long ones, so statistics over completed flows lean
        short. Plain columns, no pandas (a `dcnsim run` imports none)."""
        said = getattr(self, "_unfinished_said", None)
        if said is not None:  # once per result: `dcnsim run` asks twice (warnings, then its summary)
            return said
        self._unfinished_said = self._unfinished_flows_count()
        return self._unfinished_said

    def _unfinished_flows_count(self) -> str:
        if "flows" not in self.tables:
            return ""
        f = self.tables.core_columns("flows")
        kinds, apps = f.get("app_kind", ()), f.get("app", ())
        sizes, done, roles = f.get("app_bytes", ()), f.get("completed", ()), f.get("role", ())
        classes = (("under 100 KB", 0, 100_000), ("100 KB–10 MB", 100_000, 10_000_000),
                   ("10 MB and over", 10_000_000, math.inf))
        per_app: Dict[int, List[List[int]]] = {}
        for kind, app, size, ok, role in zip(kinds, apps, sizes, done, roles):
            if kind != "poisson" or role == "request":
                continue
            c = next((i for i, (_, lo, hi) in enumerate(classes) if lo <= size < hi), None)
            if c is None:  # no size (a table edited by hand): in no class
                continue
            tally = per_app.setdefault(int(app), [[0, 0] for _ in classes])
            tally[c][0] += 1
            tally[c][1] += 0 if ok else 1
        parts = []
        for app, tally in sorted(per_app.items()):
            left = sum(t[1] for t in tally)
            if not left:
                continue
            shares = ", ".join(f"{name} {t[1]:,} of {t[0]:,}" for (name, _, _), t in zip(classes, tally) if t[0])
            parts.append(f"apps[{app}] left {left:,} of {sum(t[0] for t in tally):,} flows unfinished (of each "
                         f"size: {shares})")
        if not parts:
            return ""
        return ": " + "; ".join(parts) + "; statistics over the completed flows alone lean toward the short ones"

    def summary_record(self) -> Dict[str, Any]:
        """``summary``, ``timing`` and ``metrics`` in one flat, JSON-ready dict
        (NaN -> None), with ``core_version`` and ``core_build`` (which core
        produced it). ``wall_s`` stays in the record (sweep tables have had
        it), but is never part of a result's physics."""
        rec = {k: _jsonable(v) for k, v in self.summary.items()}
        for k, v in self.timing.items():
            rec.setdefault(k, _jsonable(v))
        rec["core_version"] = self.core.get("version", "unknown")
        rec["core_build"] = self.core.get("build", "unknown")
        rec["metrics_build"] = metrics_build()
        for k, v in self.metrics.items():
            rec.setdefault(k, _jsonable(v))
        if self.warnings:  # one text column in sweep tables, only when there is one
            # one per line: a warning's text may hold "; " itself
            rec["warnings"] = "\n".join(self.warnings)
        return rec


@functools.lru_cache(maxsize=None)
def metrics_build() -> str:
    """A hash of this module's source, which derives a record's metrics
    and outcome warnings from the core's tables (``core_build`` covers
    the core alone): a sweep does not resume a point whose record other
    code derived, as it does not one another core computed."""
    import hashlib

    try:
        with open(__file__, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()[:16]
    except OSError:  # pragma: no cover - a module loaded from no file
        return "unknown"


#: the key of ``summary.json`` that lists the other files the run's write
#: put beside it (not part of the summary record)
FILES_KEY = "files"
#: the key of ``summary.json`` that gives each written table's rows (not
#: part of the summary record): a table cut at a line's end (a partial
#: copy) reads as a shorter table, and is found by its count
ROWS_KEY = "rows"


def written_files(listed: Any) -> bool:
    """Whether ``listed`` (``summary.json``'s :data:`FILES_KEY`) is a list
    of file names; a summary written before the list was kept has none."""
    return isinstance(listed, list) and all(isinstance(n, str) and n and os.path.basename(n) == n for n in listed)


def read_result(path: "Union[str, os.PathLike[str]]") -> Result:
    """A run as :meth:`Result.write` (``dcnsim run --out``, a sweep's
    points, ``reproduce``'s runs) wrote it, read back as a :class:`Result`:
    the tables with the columns and dtypes the run gave them (a text cell
    that was empty stays ``""``, not NaN; an empty table keeps its columns'
    dtypes; NaN and ``inf`` as written), ``summary``, ``timing``, ``core``,
    ``warnings``, ``scenario`` (as :func:`dcnsim.load_scenario` reads
    ``scenario.json``: a ``cdf_file`` names the run's copy beside it),
    ``cdf_files``, ``pcaps``; ``metrics`` is worked out from the tables as
    for a run. ``pandas.read_csv`` of ``flows.csv`` reads text as NaN where
    a cell is empty and an empty table's numbers as text.

    A directory whose ``summary.json`` is missing holds no complete run (a
    write puts it in place last: an interrupted one never leaves it) and is
    refused, as is one with no run at all; the tables are the ones the core
    makes (a table a script added to ``Result.tables`` is written, but not
    read back: nothing in its file says what it is)."""
    import json

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"read_result: path: expected a run's directory, got {path!r}")
    from ._document import load_scenario
    from ._tables import table_file

    d = os.path.expanduser(os.fspath(path))
    if not os.path.isdir(d):
        raise FileNotFoundError(f"read_result: {d}: no such directory" if not os.path.exists(d)
                                else f"read_result: {d}: not a directory (a run is a directory of tables)")
    summary_path = os.path.join(d, "summary.json")
    if not os.path.isfile(summary_path):
        if os.path.isfile(os.path.join(d, WRITING_MARK)):
            why = ("its write did not finish (scenario.json but no summary.json, which a write puts in place last): "
                   "run it again")
        elif os.path.isfile(os.path.join(d, "scenario.json")):
            why = "no dcnsim run here (no summary.json; a scenario.json alone is a scenario, not a run's results)"
        else:
            why = "no dcnsim run here (no summary.json)"
        raise FileNotFoundError(f"read_result: {d}: {why}")
    try:
        with open(summary_path, encoding="utf-8") as fh:
            record = json.load(fh)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"read_result: {summary_path}: not the JSON a run writes ({e})") from None
    if not isinstance(record, dict):
        raise ValueError(f"read_result: {summary_path}: expected a JSON object, got {type(record).__name__}")
    if "core_version" not in record:
        # every run's summary names the core that computed it; another
        # tool's summary.json is not a run to be read as an empty one
        raise ValueError(f"read_result: {summary_path}: not a dcnsim run's summary (it has no core_version; "
                         f"its keys: {', '.join(map(str, list(record)[:6]))}{', ...' if len(record) > 6 else ''})")
    listed = record.pop(FILES_KEY, None)
    rows = record.pop(ROWS_KEY, None)
    missing = [n for n in listed if not os.path.isfile(os.path.join(d, n))] if written_files(listed) else []
    if missing:
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        raise FileNotFoundError(f"read_result: {d}: the run's {shown} {'is' if len(missing) == 1 else 'are'} missing "
                                "(summary.json lists every file its write put there): a partial copy, or a file "
                                "removed since; copy the whole directory, or run it again")
    record = int_counts(record)
    scenario_path = os.path.join(d, "scenario.json")
    scenario = load_scenario(scenario_path) if os.path.isfile(scenario_path) else {}
    apps = scenario.get("apps")
    cdf_files = {}
    for i, app in enumerate(apps if isinstance(apps, list) else []):
        copy = os.path.join(d, cdf_file_name(i))
        if isinstance(app, dict) and isinstance(app.get("cdf_file"), str) and os.path.isfile(copy):
            with open(copy, "rb") as fh:
                cdf_files[i] = fh.read()
    pcaps = {}
    for name in result_files(d):
        if name.endswith(".pcap"):
            with open(os.path.join(d, name), "rb") as fh:
                pcaps[name] = fh.read()
    core = {"version": str(record.pop("core_version", "unknown")), "build": str(record.pop("core_build", "unknown"))}
    record.pop("metrics_build", None)
    warnings = record.pop("warnings", None)
    timing = {k: record.pop(k) for k in TIMING_KEYS + PARALLEL_TIMING if record.get(k) is not None}
    res = Result({"summary": {}, "timing": timing, "core": core, "pcaps": pcaps}, scenario=scenario,
                 warnings=str(warnings).split("\n") if warnings else (), cdf_files=cdf_files)
    files = {}
    for name, schema in TABLE_SCHEMA.items():
        f = table_file(d, name)
        if f is not None:
            files[name] = str(f)
            res.tables[name] = _read_written_table(str(f), schema, name)
    # summary.json counts the rows its tables had: a copy cut at a line's
    # end reads as a shorter table, not as the run (every table's count
    # since 2026-12-07, `rows`; before, the flows', queries' and blocks')
    counts = [(f"{ROWS_KEY}.{name}", name, n) for name, n in rows.items()] if isinstance(rows, dict) else []
    counts += [(key, name, record.get(key)) for key, name in
               (("n_flows", "flows"), ("n_queries", "queries"), ("n_blocks", "blocks"))]
    for key, name, want in counts:
        if name in files and isinstance(want, int) and len(res.tables[name]) != want:
            raise ValueError(f"read_result: {files[name]}: {len(res.tables[name])} rows where the run's summary.json "
                             f"counts {want} ({key}): cut short or changed since it was written (a partial copy?); "
                             "copy the whole directory again, or run it again")
    # summary.json holds the summary and then the metrics (NaN as null); the
    # metrics are the tables' again, so what is left is the summary
    res.summary = {k: math.nan if v is None else v for k, v in record.items()}
    try:
        metrics = res.metrics
    except KeyError as e:
        name = next((n for n, sch in TABLE_SCHEMA.items() if any(c == e.args[0] for c, _ in sch)), "?")
        raise ValueError(f"read_result: {files.get(name, d)}: no {e.args[0]!r} column, which a run's {name} table "
                         "has: a table from another tool, or changed since the run wrote it") from None
    derived = set(metrics) - set(SUMMARY_KEYS)
    res.summary = {k: v for k, v in res.summary.items() if k not in derived}
    return res


def _read_written_table(path: str, schema: List[Tuple[str, str]], name: str = "") -> Any:
    """One table file of a written run, with ``schema``'s dtypes. A file
    cut short (empty, or ending inside a line: a writer ends every line)
    or of another tool's columns is refused, naming it."""
    import pandas as pd

    dtypes = dict(schema)
    if not path.endswith(".parquet"):
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            if size:
                fh.seek(size - 1)
            last = fh.read(1)
        if not size or last != b"\n":
            raise ValueError(f"read_result: {path}: {'empty' if not size else 'ends inside a line'}: cut short "
                             "(every table a run writes has its header and ends its last line); a partial "
                             "copy: copy it again, or run it again")
    try:
        if path.endswith(".parquet"):
            df = pd.read_parquet(path)
            header = [str(c) for c in df.columns]
        else:
            header = list(pd.read_csv(path, nrows=0).columns)
            text = [c for c in header if dtypes.get(c) == "object"]
            # only a number's empty cell is NaN (the writer's NaN); text keeps "",
            # as the run had it
            df = pd.read_csv(path, dtype={c: str for c in text}, keep_default_na=False,
                             na_values={c: [""] for c in header if c not in text})
    except (OSError, ValueError) as e:  # pandas' and pyarrow's parse errors are ValueErrors
        raise ValueError(f"read_result: {path}: not a table a run writes ({e})") from None
    # a core of another version adds or lacks a column or two; a file
    # sharing under half the table's columns is another tool's
    if 2 * len(set(header) & set(dtypes)) < len(dtypes):
        raise ValueError(f"read_result: {path}: not a dcnsim {name or 'run'} table (its columns: "
                         f"{', '.join(header[:6])}{', ...' if len(header) > 6 else ''})")
    for c in df.columns:
        want = dtypes.get(str(c))
        if want is None or str(df[c].dtype) == want:
            continue
        if want == "object":
            if len(df) == 0:
                df[c] = df[c].astype(str)
            continue
        if want != "bool" and not pd.api.types.is_numeric_dtype(df[c].dtype):
            # text where the run wrote numbers: an edited or damaged cell,
            # which left the whole column text without a word
            num = pd.to_numeric(df[c], errors="coerce")
            bad = num.isna() & df[c].notna()
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                raise ValueError(f"read_result: {path}: column {c!r}, row {i + 1}: {df[c].iloc[i]!r} is not a number "
                                 "(the run wrote numbers there): changed since it was written; run it again")
        try:
            df[c] = df[c].astype(want)
        except (TypeError, ValueError):
            pass  # a table a script replaced (NaN in a count, say): as pandas reads it
    return df


def _paused_cycle(pfc: Dict[str, Any]) -> List[str]:
    """Nodes of a cycle of links whose senders were all paused at the end
    (``node`` → ``to`` rows of the ``pfc`` table with ``paused_at_end``),
    first node repeated last; empty when the paused links form no cycle.
    A paused link waits on the links out of its far end to drain, so a
    cycle of them never drains. A link's packets never go back the way
    they came (shortest paths make no U-turn), so a link paused in both
    directions is no cycle: each direction drains onward, and it was named
    a deadlock (a leaf and a spine pausing each other under a Poisson
    load). The search is over links, each step to a link out of the last
    one's far end other than its reverse."""
    out: Dict[str, List[str]] = {}
    for a, b, p in zip(pfc.get("node", ()), pfc.get("to", ()), pfc.get("paused_at_end", ())):
        if p:
            out.setdefault(str(a), []).append(str(b))
    edges = sorted((a, b) for a, bs in out.items() for b in bs)

    def onward(e: Tuple[str, str]) -> List[Tuple[str, str]]:
        return [(e[1], c) for c in sorted(out.get(e[1], ())) if c != e[0]]

    state: Dict[Tuple[str, str], int] = {}  # 1: on the path, 2: done
    for start in edges:
        if state.get(start):
            continue
        path, its = [start], [iter(onward(start))]
        state[start] = 1
        while path:
            e = next(its[-1], None)
            if e is None:
                state[path.pop()] = 2
                its.pop()
            elif state.get(e) == 1:
                cyc = path[path.index(e):]
                return [a for a, _ in cyc] + [cyc[0][0]]
            elif not state.get(e):
                state[e] = 1
                path.append(e)
                its.append(iter(onward(e)))
    return []

