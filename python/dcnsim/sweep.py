"""Parallel, resumable parameter sweeps.

A sweep is a list of points, each ``(label, scenario, seed)`` (optionally with
a ``params`` dict recorded beside the results). Every point runs in a worker
process and writes its tables plus ``summary.json`` to ``out_dir/<label>/``,
each file atomically and ``summary.json`` last. A point whose directory
already holds a ``summary.json`` for the *same* scenario and seed, written
by the *same* core (version and build hash, see :func:`dcnsim.core_id`), is
not run again, so an interrupted sweep resumes where it stopped; a point
whose scenario changed, or that an older (or newer) core computed, is
recomputed.

Results do not depend on the number of workers or on completion order: each
point is a pure function of its scenario and seed.

Points run in local worker processes (all cores by default) or, given a
Dask scheduler address (``cluster="tcp://host:8786"``), on the workers of a
``dask.distributed`` cluster. Cluster workers need dcnsim installed but no
shared file system: each runs its point into a private temporary directory
and returns the files, which this process writes atomically into ``out_dir``
as they arrive (``summary.json`` last), so resuming works the same way.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import json
import math
import numbers
import os
import re
import signal
import sys
import tempfile
import warnings
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    ProcessPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from ._atomic import OutputDirError, check_out_dir, dir_lock
from .errors import DcnsimWarning, Problem, ScenarioError, caller_stacklevel
from .scenario import as_dict, with_overrides

__all__ = ["Point", "SweepError", "SweepLabelError", "ClusterError", "ClusterLostError", "OutputDirError", "run_sweep", "grid",
           "point_dir"]


@dataclass
class Point:
    """One sweep point. ``params`` are extra columns for the summary table."""

    label: str
    scenario: Any
    seed: Optional[int] = None
    params: Dict[str, Any] = field(default_factory=dict)


#: What a failed write says of the machine, not of the point: a full disk
#: or quota, a read-only file system, an I/O error, no file descriptors.
#: A point that failed so is no result (``dcnsim tune`` asks its trial
#: again rather than record it as failed).
ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EMFILE, errno.ENFILE})


def environment_failure(e: BaseException) -> bool:
    """Whether ``e`` is the machine's failure (:data:`ENVIRONMENT_ERRNOS`)."""
    return isinstance(e, OSError) and e.errno in ENVIRONMENT_ERRNOS


class SweepError(RuntimeError):
    """Some points failed at run time (the others were written).
    ``failures``: label -> reason; ``df``: the table :func:`run_sweep`
    would have returned, of the points that are complete (resumed or run
    now; ``None`` only when built by hand), so their results are not lost
    with the failed ones; ``environment``: label -> the OSError of each
    point that failed for the machine (a full disk, a read-only file
    system: :data:`ENVIRONMENT_ERRNOS`), not for its scenario."""

    def __init__(self, failures: Dict[str, str], df: Any = None,
                 environment: Optional[Dict[str, OSError]] = None):
        self.failures = dict(failures)
        self.df = df
        self.environment = dict(environment or {})
        lines = [f"{label}: {msg}" for label, msg in self.failures.items()]
        super().__init__(f"{len(lines)} sweep point(s) failed:\n" + "\n".join(lines))


class SweepLabelError(ValueError):
    """Two points of a sweep would write the same directory (equal labels,
    or labels equal once made safe for a file system, ``a/b`` and ``a_b``);
    raised before anything runs. ``labels``: the two; ``directory``: the
    directory they share."""

    def __init__(self, first: str, second: str, directory: Union[str, os.PathLike]):
        self.labels = (first, second)
        self.directory = Path(directory)
        same = f"label {first!r} is given twice" if first == second else f"labels {first!r} and {second!r}"
        super().__init__(f"sweep: {same}: the points would write the same directory {self.directory}; "
                         "give each point its own label")


class ClusterError(RuntimeError):
    """The Dask cluster cannot be used (not installed, not reachable, not a
    Dask scheduler, no workers, or workers with another dcnsim core);
    nothing was run."""


class ClusterLostError(ClusterError):
    """The cluster became unusable mid-sweep (the scheduler lost, every
    worker gone for :data:`WORKER_WAIT_S`, or a worker with another dcnsim
    core joined): the points finished before are kept and the same call
    resumes. ``df``: the table of the complete points, as
    :class:`SweepError`'s."""

    def __init__(self, message: str, df: Any = None):
        super().__init__(message)
        self.df = df


#: Seconds the whole connection to a scheduler may take (TCP connect and
#: Dask's handshake): a port where something else listens (a web server
#: that never answers Dask's first message) must not hang the sweep.
CONNECT_TIMEOUT_S = 10.0

#: Seconds a sweep waits for a worker when the scheduler has none, at the
#: start or after every worker left mid-sweep, before giving up.
WORKER_WAIT_S = 30.0


_UNSAFE = re.compile(r"[^A-Za-z0-9._=,+@%-]+")


#: the longest directory name a point gets whole (filesystems allow 255 bytes)
LONGEST_DIR_NAME = 200


def safe_label(label: str) -> str:
    """``label`` as the name of a point's directory (every run of other
    characters than letters, digits and ``._=,+@%-`` made one ``_``). A
    name longer than :data:`LONGEST_DIR_NAME` (a sweep of many ``--set``
    axes) keeps its start and ends in ``~`` and a hash of the whole label,
    so it fits a filesystem's 255 bytes and stays the same on a resume
    (``~`` is in no other name, so it meets no short one)."""
    name = _UNSAFE.sub("_", label).strip(".") or "_"
    if len(name) <= LONGEST_DIR_NAME:
        return name
    import hashlib

    digest = hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]
    return f"{name[:LONGEST_DIR_NAME - 17]}~{digest}"


def point_dir(out_dir: Union[str, os.PathLike], label: str) -> Path:
    """The directory a point's results go to (label made filesystem-safe)."""
    return Path(out_dir) / safe_label(label)


def axis_clash(path: str, values: Sequence[Any]) -> Optional[Tuple[str, str]]:
    """The first two of an axis's ``values`` (as a label shows them) whose
    points would share a directory (the same value twice, or values equal
    once made safe, ``a/b`` and ``a_b``); ``None`` when each has its own."""
    seen: Dict[str, str] = {}
    for v in values:
        text = _fmt(v)
        key = safe_label(f"{path}={text}")
        if key in seen:
            return seen[key], text
        seen[key] = text
    return None


def _as_point(p: Any) -> Point:
    if isinstance(p, Point):
        point = p
    elif isinstance(p, Mapping):
        unknown = [k for k in p if k not in ("label", "scenario", "seed", "params")]
        if unknown:
            raise TypeError(f"a sweep point given as a dict has the unknown key(s) {', '.join(map(repr, unknown))} "
                            "(a Point's are label, scenario, seed, params)")
        point = Point(**p)
    elif isinstance(p, (tuple, list)) and 2 <= len(p) <= 4:
        point = Point(*p)
    else:
        raise TypeError(f"a sweep point is (label, scenario, seed[, params]) or a Point, got {p!r}")
    # found here, before anything runs, not as a regular expression's or a
    # dict update's error halfway through, or a table whose label column
    # holds a param's values
    if not isinstance(point.label, str):
        raise TypeError(f"sweep point {point.label!r}: label: expected a string (it names the point's "
                        f"directory), got {type(point.label).__name__}")
    if not isinstance(point.params, Mapping):
        raise TypeError(f"sweep point {point.label!r}: params: expected a mapping of column name to value, "
                        f"got {point.params!r}")
    if "label" in point.params:
        raise ValueError(f"sweep point {point.label!r}: params: 'label' is the table's column of the points' "
                         "labels; give the parameter another name")
    return point


def _points(points: Any) -> List[Point]:
    """``run_sweep``'s points as :class:`Point` s, each checked."""
    if isinstance(points, (Point, str, bytes, Mapping)):
        # one point, or one of its parts: iterated, its characters or fields would be points
        raise TypeError(f"points: expected a list of points (Point or (label, scenario, seed[, params])), "
                        f"got {type(points).__name__}{'; write [point]' if isinstance(points, Point) else ''}")
    try:
        given = list(points)
    except TypeError:
        raise TypeError("points: expected a list of points (Point or (label, scenario, seed[, params])), "
                        f"got {type(points).__name__}") from None
    return [_as_point(p) for p in given]


def _canonical(doc: Mapping[str, Any]) -> str:
    """The text two documents of one point share. `threads` is left out:
    every thread count gives the same bits (docs/performance.md), so a
    sweep resumed with another --threads keeps what it has. A missing
    `seed` is the core's default, 1, which a written scenario.json names
    (Result.scenario holds the effective seed): the two are one point."""
    return json.dumps({"seed": 1, **{k: v for k, v in doc.items() if k != "threads"}},
                      sort_keys=True, separators=(",", ":"))


def _run_point(doc: Dict[str, Any], out: str, format: str) -> Dict[str, Any]:
    """Worker: run one point and write it. Returns the summary record
    (its ``warnings`` reach the user once per sweep, from :func:`run_sweep`)."""
    from . import run

    with warnings.catch_warnings():
        # the sweep says each once, for every point it concerns (its
        # warnings, the points it replaces), not each worker on its own
        warnings.simplefilter("ignore", DcnsimWarning)
        result = run(doc)
        result.write(out, format=format)
    return result.summary_record()


#: set in a pool worker when it is told to stop (SIGTERM): the point under
#: way unwinds, removing its temporary files, and the worker exits
_stopping = False


def _on_worker_term(signum: int, frame: Any) -> None:
    global _stopping
    _stopping = True
    # once: a second SIGTERM (a worker can get two, its parent's death and
    # the pool's stop) raised again inside the unwinding would cut short
    # the removal of the point's temporary files
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(128 + signum)


#: in a pool worker: per point of the sweep, 1 while a worker runs it and
#: 2 once it has (shared with the parent, which learns from it which
#: point a dead worker held)
_point_state: Any = None


def _pool_point(doc: Dict[str, Any], out: str, format: str, i: int = -1) -> Dict[str, Any]:
    """:func:`_run_point` in a pool worker. The pool would catch the
    SystemExit of a SIGTERM as the point's failure and take the next point:
    a worker told to stop leaves once the point has unwound."""
    if _point_state is not None and i >= 0:
        _point_state[i] = 1
    try:
        return _run_point(doc, out, format)
    finally:
        if _point_state is not None and i >= 0:
            _point_state[i] = 2
        if _stopping:
            os._exit(143)


def _pool_init(workers: int, parent: int, state: Any) -> None:
    """:func:`_worker_init`, and the points' shared state."""
    global _point_state
    _point_state = state
    _worker_init(workers, parent)


def _die_with_parent(parent: int) -> None:
    """A worker of a sweep whose process is killed outright (SIGKILL, or a
    SIGTERM that found it without its handler) would otherwise run on into
    the directory, orphaned, and hold the parent's output open: on Linux
    the kernel sends it SIGTERM when its parent dies."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(143)


def _worker_init(workers: int = 1, parent: Optional[int] = None) -> None:
    """Workers leave Ctrl-C to the parent, which stops them all at once
    (:func:`_stop_pool`): a worker that took it itself would print a
    traceback, and move on to the next point it had already queued.

    A run's ``threads = "auto"`` (the default) counts the cores free when
    it starts; points starting together would each see the others' cores
    free and cut their runs into more threads than the machine has. With
    a worker per core or more, each worker's share is one core, and its
    runs are told so (``DCNSIM_FREE_CORES``, unless the user set it);
    with fewer, the count of runnable tasks sees the other workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # (a fork carries the parent's SIGTERM handler, the command line's)
    signal.signal(signal.SIGTERM, _on_worker_term)
    if parent is not None:
        _die_with_parent(parent)
    if workers >= (os.cpu_count() or 1):
        os.environ.setdefault("DCNSIM_FREE_CORES", "1")
    import dcnsim

    dcnsim._notes_said = set()  # each of the core's notes once per worker


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the points not started and end the running ones now. A point
    killed mid-write has no ``summary.json`` (written last), so resuming
    runs it again."""
    # No public way to stop running calls before Python 3.14
    # (terminate_workers); _processes has been there since 3.2, and
    # shutdown() drops it, so it is read first.
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        import threading

        # Workers killed on purpose can make the manager thread fail as it
        # marks the pool broken (CPython 3.11 sets an exception on futures
        # it has just cancelled): a traceback after "interrupted", as if
        # the sweep had crashed. What that thread raises now is ours.
        earlier = threading.excepthook

        def quiet(args: Any) -> None:
            if args.thread is not manager:
                earlier(args)

        threading.excepthook = quiet
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    # Let the pool's manager thread see its workers gone and close its
    # wake-up pipe now: left running, it can close that pipe while the
    # interpreter's exit hook writes to it, and Python prints "Exception
    # ignored ... Bad file descriptor" after our last line.
    if manager is not None:
        manager.join(timeout=5)
        if not manager.is_alive():
            threading.excepthook = earlier


def _run_point_files(doc: Dict[str, Any], format: str) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    """Cluster worker: run one point into a private directory and return its
    summary record and files, so the workers need no file system in common
    with the client."""
    with tempfile.TemporaryDirectory(prefix="dcnsim-point-") as tmp:
        record = _run_point(doc, tmp, format)
        files = {f.name: f.read_bytes() for f in Path(tmp).iterdir() if f.is_file()}
    return record, files


def _store_files(out: Path, files: Mapping[str, bytes]) -> None:
    """Write a point's files atomically, ``summary.json`` last: a point
    directory holding a summary is complete. As ``Result.write``: an
    earlier run's summary goes first, and its files these do not replace."""
    from ._atomic import StagedFiles
    from .result import _write_bytes, commit_replacing, remove_stale_temporaries

    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    order = {"scenario.json": 0, "summary.json": 2}
    with StagedFiles() as staged:
        for name in sorted(files, key=lambda n: order.get(n, 1)):
            staged.write(out / Path(name).name, functools.partial(_write_bytes, files[name]), mode="wb")
        # all written: the earlier run goes only now (a full disk leaves it
        # whole), as Result.write's, the mark of a write under way first
        commit_replacing(out, staged, files)


def _connect(cluster: str):
    """A ``dask.distributed`` client for ``cluster``, with errors a user can act on."""
    import time

    try:
        from dask.distributed import Client
    except ImportError as e:
        raise ClusterError(f"cluster: running on a cluster needs dask.distributed "
                           f"(pip install 'dcnsim[cluster]'): {e}") from None
    # Client(timeout=) bounds the TCP connect but not Dask's handshake
    # read: on a port where something else listens (a web server) it waits
    # forever, and a service that speaks first (sshd) makes it read a
    # garbage frame length (a MemoryError). A probe whose every step is
    # bounded tells a scheduler from anything else first.
    start = time.monotonic()
    try:
        if not cluster.startswith("inproc://"):  # in this process (LocalCluster(processes=False)): no foreign service
            _probe_scheduler(cluster, CONNECT_TIMEOUT_S)
        left = max(1.0, CONNECT_TIMEOUT_S - (time.monotonic() - start))
        return Client(cluster, timeout=f"{left}s")
    except ClusterError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure to connect is this one error
        raise ClusterError(f"cluster: cannot reach the Dask scheduler at {cluster!r}: "
                           f"{_connect_reason(e)}") from None


def _connect_reason(e: BaseException) -> str:
    """Why a connection failed, in words (a timeout's own text is empty)."""
    if isinstance(e, TimeoutError) and not str(e):
        return f"no Dask scheduler answered within {CONNECT_TIMEOUT_S:g} s (not a Dask scheduler?)"
    if isinstance(e, MemoryError):  # a frame length read from another protocol's bytes
        return "the service there does not speak Dask's protocol (not a Dask scheduler?)"
    return f"{type(e).__name__}: {e}" if not isinstance(e, (OSError, ValueError)) or not str(e) else str(e)


def _probe_scheduler(cluster: str, timeout: float) -> None:
    """Connect to ``cluster`` and ask who it is, all within ``timeout``
    seconds; raises unless a Dask scheduler answers."""
    import asyncio
    import threading

    from distributed.comm import connect

    _tcp_reachable(cluster, timeout)

    async def ask() -> Any:
        # a little inside the bound: a closed port's own reason ("Timed out
        # trying to connect ...: ConnectionRefusedError") comes first
        comm = await connect(cluster, timeout=max(0.5, timeout - 0.5))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    outcome: Dict[str, Any] = {}

    def probe() -> None:
        try:
            outcome["identity"] = asyncio.run(asyncio.wait_for(ask(), timeout))
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            outcome["error"] = e

    # its own thread and event loop: the caller's thread may run a loop
    # already (a notebook's), where asyncio.run cannot; a daemon, so a
    # Ctrl-C during the probe ends the command at once
    t = threading.Thread(target=probe, name="dcnsim-cluster-probe", daemon=True)
    t.start()
    t.join(timeout + 5)
    if t.is_alive():
        raise TimeoutError()
    if "error" in outcome:
        raise outcome["error"]
    ident = outcome.get("identity")
    kind = ident.get("type") if isinstance(ident, dict) else None
    if kind != "Scheduler":
        raise ClusterError(f"cluster: {cluster!r} is not a Dask scheduler "
                           f"(it answered as {kind or 'something else'}){_worker_hint(kind)}")


def _tcp_reachable(cluster: str, timeout: float) -> None:
    """For a ``tcp://HOST:PORT`` address: raise at once, with the reason,
    when nothing listens there or the host is unknown. Dask's own connect
    retries either until its timeout and (2026.11) names no cause: a
    closed port and a misspelt host both took 12 s to read "Timed out
    trying to connect"."""
    import socket
    from urllib.parse import urlsplit

    try:
        u = urlsplit(cluster)
        host, port = u.hostname, u.port
    except ValueError:
        return  # Dask's parser says what is wrong with it
    if u.scheme != "tcp" or not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise ClusterError(f"cluster: cannot reach the Dask scheduler at {cluster!r}: connection refused "
                           f"(nothing listens on {host} port {port}; dask scheduler prints its address)") from None
    except socket.gaierror as e:
        raise ClusterError(f"cluster: cannot reach the Dask scheduler at {cluster!r}: unknown host {host!r} "
                           f"({e.strerror or e})") from None
    except OSError:
        return  # a timeout or an unreachable network: Dask's connect, bounded, says it


def _worker_hint(kind: Any) -> str:
    """A worker's or nanny's address given for the scheduler's: which to give."""
    return "; give the scheduler's address (dask scheduler prints it)" if kind in ("Worker", "Nanny") else ""


def _current_core() -> Tuple[str, str]:
    from . import core_build, core_version

    return core_version(), core_build()


def _cached(out: Path, doc: Mapping[str, Any], core: Optional[Tuple[str, str]] = None) -> Optional[Dict[str, Any]]:
    """The point's summary if its results are valid for ``doc`` and were
    computed by ``core`` (version, build hash; default: the loaded core)."""
    from ._document import read_cdf_files
    from .result import cdf_file_name, with_cdf_copies

    summary, scen = out / "summary.json", out / "scenario.json"
    if not (summary.is_file() and scen.is_file()):
        return None
    # a written run names its copies of the CDF files it read (Result.write):
    # the point is the same when its document is, and each file's bytes too
    # (a CDF edited since is another scenario, though its path is the same)
    cdfs = read_cdf_files(doc)
    try:
        if _canonical(json.loads(scen.read_text(encoding="utf-8"))) != _canonical(with_cdf_copies(dict(doc), cdfs)):
            return None
        if any((out / cdf_file_name(i)).read_bytes() != data for i, data in cdfs.items()):
            return None
        rec = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version, build = core or _current_core()
    if rec.get("core_version") != version or rec.get("core_build") != build:
        return None  # another core: its numbers may differ
    from .result import int_counts, metrics_build

    if rec.get("metrics_build") != metrics_build():
        return None  # its metrics (goodput, Jain, QCTs) derived by other code

    # threads and workers as ints, however an earlier dcnsim wrote them:
    # the table's column is one type whether its points resumed or ran now
    return int_counts(rec)


def _cached_or_none(out: Path, doc: Mapping[str, Any], core: Tuple[str, str]) -> Optional[Dict[str, Any]]:
    """:func:`_cached` of a document not yet validated: one it cannot read
    (a CDF file that is not there) has no stored results, and the
    validation that follows says what is wrong with it."""
    try:
        return _cached(out, doc, core)
    except (OSError, ValueError):
        return None


def _stored_metrics_build(out: Path) -> Any:
    """The ``metrics_build`` of ``out``'s summary (None: unreadable or
    from before it was kept)."""
    try:
        rec = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return rec.get("metrics_build") if isinstance(rec, dict) else None


def _stored_core(out: Path) -> Optional[Tuple[Any, Any]]:
    """The core (version, build) that wrote ``out``'s summary; ``None``
    when it does not say (a summary from before versioning, unreadable)."""
    try:
        rec = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or "core_version" not in rec or "core_build" not in rec:
        return None
    return rec["core_version"], rec["core_build"]


def _replacing_text(replaced: Sequence[str], other_core: Mapping[Optional[Tuple[Any, Any]], Sequence[str]],
                    core: Tuple[str, str], total: int, other_metrics: Sequence[str] = ()) -> str:
    """The warning before a sweep replaces complete points: how many are of
    another scenario, how many of another core (which) and how many had
    their metrics derived by other dcnsim Python code."""
    by_core = [label for labels in other_core.values() for label in labels]
    scen = [label for label in replaced if label not in set(by_core) | set(other_metrics)]
    cores = ", ".join("an unnamed core" if c is None else f"{c[0]}+{c[1]}" for c in other_core)
    parts = []
    if scen:
        parts.append(f"{_who(scen, total)} held complete results of another scenario")
    if by_core:
        whose = f"{len(by_core)} of {total} points" if scen else f"{_who(by_core, total)} held complete results"
        parts.append(f"{whose} of another dcnsim core ({cores}; this one is {core[0]}+{core[1]})")
    if other_metrics:
        whose = (f"{len(other_metrics)} of {total} points" if parts
                 else f"{_who(other_metrics, total)} held complete results")
        parts.append(f"{whose} whose metrics (goodput, Jain, QCTs) another dcnsim's Python code derived")
    return " and ".join(parts) + ": replacing them"


def _stored(rec: Optional[Dict[str, Any]]) -> Any:
    """A point's stored summary as its sweep row: the lists of its files
    and table rows (``summary.json``'s own bookkeeping) taken out of it and
    the files returned, for :func:`_has_tables`."""
    from .result import FILES_KEY, ROWS_KEY

    if rec is None:
        return None
    rec.pop(ROWS_KEY, None)
    return rec.pop(FILES_KEY, None)


def _has_tables(out: Path, format: str, files: Any = None) -> bool:
    """Whether ``out`` holds every file its run wrote (``files``, the list
    its ``summary.json`` keeps: traces, pcaps and the tables only some runs
    have too), with the tables in ``format``; for a summary written before
    that list was kept, every table each run writes."""
    from .result import TABLES, written_files

    if not written_files(files):
        return all((out / f"{name}.{format}").is_file() for name in TABLES)
    other = ".parquet" if format == "csv" else ".csv"
    return all((out / n).is_file() for n in files) and not any(n.endswith(other) for n in files)


def run_sweep(
    points: Iterable[Any],
    out_dir: Union[str, os.PathLike],
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    format: str = "csv",
    cluster: Optional[str] = None,
    replace: bool = True,
):
    """Run every point (in parallel) and return a DataFrame with one row per
    point, in the order given: ``label``, the point's ``params``, then its
    summary record (core summary + derived metrics, see ``Result.metrics``).

    ``jobs`` defaults to ``os.cpu_count()``; ``cluster`` (a Dask scheduler
    address such as ``"tcp://10.0.0.5:8786"``) runs the points on that
    cluster's workers instead, and ``jobs`` is then ignored. ``progress`` shows a tqdm bar
    (default: only when stderr is a terminal). Points already complete in
    ``out_dir`` are skipped; ``df.attrs["computed"]`` lists the labels run
    this time, and ``df.attrs["reformatted"]`` those of them that were
    complete but in the other ``format`` (run again to write it; the
    old format's tables are replaced), ``df.attrs["replaced"]`` those that
    held complete results of another scenario or core (replaced, with a
    :class:`DcnsimWarning` before anything runs). Invalid scenarios raise :class:`ScenarioError`, and an
    ``out_dir`` that cannot be written :class:`OutputDirError`, before
    anything runs (every problem, prefixed by the point's label) and
    before a new ``out_dir`` or a parent of it is made, and so does a
    directory another sweep or run is writing into (its lock:
    :func:`dcnsim._atomic.dir_lock`, which removes the directories it made
    again when the sweep ends in an error before a point is written). Ctrl-C while the points run stops
    them (a point without its ``summary.json`` is recomputed on resume) and
    raises ``KeyboardInterrupt`` whose ``df`` is the table of the points
    complete by then, as :class:`SweepError`'s. ``replace=False`` refuses
    (:class:`OutputDirError`, before anything runs) a sweep whose points
    hold complete results of another scenario (the file or an axis edited
    since), where the default replaces them with the warning; results of
    another core are replaced either way (the same scenario, computed
    again)."""
    if format not in ("csv", "parquet"):
        raise ValueError(f"format must be 'csv' or 'parquet', got {format!r}")
    if jobs is not None:
        # any integer type (numpy's too), but not a bool or a float
        if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs < 1:
            raise ValueError(f"jobs must be a positive integer or None, got {jobs!r}")
        jobs = int(jobs)
    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"run_sweep: out_dir: expected a directory path, got {out_dir!r}")
    if not os.fspath(out_dir):  # Path("") would be the current directory
        from .result import EMPTY_OUT_DIR

        raise ValueError(EMPTY_OUT_DIR)
    pts = _points(points)
    out_root = check_out_dir(out_dir)
    core = _current_core()
    # a new directory holds nothing to resume: every point is checked before
    # it (or a parent) is made, so a sweep refused leaves none behind
    plan = None if out_root.exists() else _plan(pts, out_root, core)
    # one sweep at a time in a directory: the same command started again in
    # another terminal would run every point twice and mix their files. A
    # refusal or Ctrl-C before a point is written removes the directories
    # the lock made (dir_lock)
    with dir_lock(out_root):
        if plan is None or any(d.exists() for d in plan[1]):
            # made since by another process, with points in it: planned
            # again, with the directory locked
            plan = _plan(pts, out_root, core)
        return _sweep_locked(pts, out_root, plan, core, jobs, progress, format, cluster, replace)


_Plan = Tuple[List[Dict[str, Any]], List[Path], List[Optional[Dict[str, Any]]]]


def _own_lone_scenario(d: Path, doc: Mapping[str, Any]) -> bool:
    """Whether ``d``'s ``scenario.json`` is the point's own document
    (:func:`_canonical`): a point of this sweep whose ``summary.json`` is
    gone since (removed by hand, a partial copy), not a user's file."""
    try:
        stored = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(stored, dict) and _canonical(stored) == _canonical(doc)


def _adopt_own_points(dirs: Sequence[Path], docs: Sequence[Mapping[str, Any]], todo: Sequence[int]) -> None:
    """The points to run whose directory holds their own scenario.json and
    no run (:func:`_own_lone_scenario`) get the mark of a write cut short
    (``result.WRITING_MARK``), so their write replaces what is there: done
    once every refusal is past, just before the points run."""
    from .result import foreign_files, mark_writing

    for i in todo:
        d = dirs[i]
        if "scenario.json" in foreign_files(d) and _own_lone_scenario(d, docs[i]):
            mark_writing(d)


def _plan(pts: List["Point"], out_root: Path, core: Tuple[str, str]) -> _Plan:
    """Every point resolved and validated before any runs: its document,
    its directory, and its stored summary when its results there stand for
    its document (None to run it). Raises what refuses the sweep
    (:class:`ScenarioError` with every problem, :class:`SweepLabelError`,
    :class:`OutputDirError`); reads ``out_root``, writes nothing."""
    docs: List[Dict[str, Any]] = []
    dirs: List[Path] = []
    errors: List[Problem] = []
    seen: Dict[Path, str] = {}
    # each point's stored summary when its results stand for its document
    hits: List[Optional[Dict[str, Any]]] = []
    from . import _problems_of
    from ._document import json_document
    from .result import foreign_files, foreign_files_error
    for p in pts:
        d = point_dir(out_root, p.label)
        if d in seen:
            raise SweepLabelError(seen[d], p.label, d)
        seen[d] = p.label
        if d.exists() and not d.is_dir():
            # found now, not after the point's simulation has run
            raise OutputDirError(f"{d}: exists and is not a directory (point {p.label!r}'s results go there)")
        foreign = foreign_files(d)
        try:
            doc = as_dict(p.scenario)
            if p.seed is not None:
                doc["seed"] = p.seed
            # numpy values (axes of np.arange, seeds) as the Python values
            # they hold: compared with a stored scenario.json, and sent to
            # the workers, as the document the core reads; its text is the
            # one validated (written once: a paper's thousands of points
            # were walked and written twice)
            doc, text, json_errors = json_document(doc)
            hit = None if json_errors else _cached_or_none(d, doc, core)
            # results this core computed from this very document: it was
            # valid when it ran, and the core's check (about 2 ms a point,
            # a tenth of a paper's resumed analysis) would find nothing
            problems = [] if hit is not None else _problems_of(text, json_errors)
        except ScenarioError as e:
            problems, doc, hit = list(e.errors), {}, None
        if foreign and not ("scenario.json" in foreign and doc and _own_lone_scenario(d, doc)):
            # Result.write refuses them: found before anything runs. Files
            # with no run beside them are a user's, a scenario.json too,
            # unless it is this very point's (its summary.json gone: run
            # again, _adopt_own_points)
            raise OutputDirError(foreign_files_error(d, foreign) + f" (point {p.label!r}'s results go there)")
        # the point's label first: "label: field.path: reason"
        errors.extend(Problem(f"{p.label}: {e.path}", e.message) for e in problems)
        docs.append(doc)
        dirs.append(d)
        hits.append(hit)
    if errors:
        raise ScenarioError(errors)
    return docs, dirs, hits


def _sweep_locked(pts: List["Point"], out_root: Path, plan: _Plan, core: Tuple[str, str], jobs: Optional[int],
                  progress: Optional[bool], format: str, cluster: Optional[str], replace: bool = True):
    """:func:`run_sweep`'s work, with ``out_root`` locked for it."""
    # The table needs pandas (≈ 0.3 s to import): imported before any point
    # runs, an interrupt during its import is one before anything ran, not
    # one the table's handler below meets half-imported.
    import pandas  # noqa: F401
    from tqdm.auto import tqdm

    docs, dirs, hits = plan
    records: List[Optional[Dict[str, Any]]] = [None] * len(pts)
    todo: List[int] = []
    reformat: List[str] = []
    replaced: List[str] = []
    # of those, the ones another core computed, by that core
    other_core: Dict[Optional[Tuple[Any, Any]], List[str]] = {}
    # and the ones this core computed whose metrics other Python code derived
    other_metrics: List[str] = []
    from .result import metrics_build

    for i, d in enumerate(dirs):
        cached = hits[i]
        incomplete = False
        files = _stored(cached)
        if cached is not None and not _has_tables(d, format, files):
            if _has_tables(d, "parquet" if format == "csv" else "csv", files):
                # stored in the other format: asked for parquet, a point must
                # not be "resumed" with csv files only (the rerun replaces them)
                reformat.append(pts[i].label)
            else:
                # a table of it is gone (removed by hand, a disk cleaned
                # up): run again, as a point interrupted before its summary
                # is, and not said to be in the other format
                incomplete = True
            cached = None
        if cached is not None:
            records[i] = cached
        else:
            todo.append(i)
            # complete results of another scenario, core or format stay
            # until the point is written again (its write removes the old
            # summary first, clear_earlier_run): a sweep interrupted before
            # it reaches them loses none of them
            if (d / "summary.json").exists() and pts[i].label not in reformat and not incomplete:
                replaced.append(pts[i].label)
                other = _stored_core(d)
                if other != core:
                    other_core.setdefault(other, []).append(pts[i].label)
                elif _stored_metrics_build(d) != metrics_build():
                    other_metrics.append(pts[i].label)
    scen = [lab for lab in replaced
            if lab not in {x for xs in other_core.values() for x in xs} and lab not in other_metrics]
    if scen and not replace:
        # a file edited since its sweep ran: its results go only when asked
        # (`dcnsim sweep --replace`), as a different axis into the same
        # directory is refused; nothing has run or been removed
        shown = ", ".join(repr(x) for x in scen[:3]) + (f" and {len(scen) - 3} more" if len(scen) > 3 else "")
        raise OutputDirError(f"{out_root}: {len(scen)} of {len(pts)} points ({shown}) hold complete results of "
                             "another scenario (the file or an axis changed since they ran): not replacing them; "
                             "give --replace to run them again in their place, or another --out to keep both")
    if replaced:
        # complete results of another scenario or core, about to go: said
        # before anything runs, as `run --out` says it of a directory, and
        # which of the two (a core upgraded, or a file edited), so a user
        # who edited nothing knows why
        warnings.warn(DcnsimWarning(os.fspath(out_root), _replacing_text(replaced, other_core, core, len(pts),
                                                                         other_metrics)),
                      stacklevel=caller_stacklevel())
    if replaced or reformat:
        # `sweep.csv` (the CLI's table) lists those points' earlier results:
        # gone before the first of them is, so that a sweep killed outright
        # (SIGKILL, out of memory), which writes no table of its own, leaves
        # none that contradicts the points beside it; the points that stay
        # are listed again by the next sweep's table
        with contextlib.suppress(FileNotFoundError):
            (out_root / "sweep.csv").unlink()

    _adopt_own_points(dirs, docs, todo)
    failures: Dict[str, str] = {}
    environment: Dict[str, OSError] = {}
    show = progress if progress is not None else sys.stderr.isatty()
    bar = tqdm(total=len(pts), initial=len(pts) - len(todo), disable=not show, unit="run", desc="sweep")
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))

    def failed(i: int, e: BaseException) -> None:
        failures[pts[i].label] = f"{type(e).__name__}: {e}"
        # a failed point is not done: the bar counts the points complete
        # and says at once how many failed (the reasons come at the end)
        bar.set_postfix_str(f"{len(failures)} failed")
        if environment_failure(e):
            environment[pts[i].label] = e  # type: ignore[assignment]
            # the machine's (a full disk): every point after it would fail
            # the same way (an audit's reproduce listed 77 such lines); stop,
            # keeping what is written, and say what to free
            raise _MachineFailed()

    def partial(warn: bool = True) -> Any:
        """The table of the points complete so far (``warn``: with the
        scenario warnings of those points; none on an interrupt's way out)."""
        done = [i for i, r in enumerate(records) if r is not None]
        if warn:
            _warn_once([pts[i] for i in done], [records[i] for i in done], len(pts))
        return _table(pts, records, done, todo, reformat, replaced, out_root, failures)

    def partial_on_interrupt() -> Any:
        """:func:`partial` on an interrupt's way out, or None when the table
        cannot be made there (the interrupt cut what it needs short): the
        interrupt stays what is raised, and the points stay on disk."""
        try:
            # a worker may have written a point whose result the interrupt
            # kept from coming back: on disk it is complete (its summary is
            # written last), and the table says so (it said "not run")
            for i in todo:
                if records[i] is not None or pts[i].label in failures:
                    continue
                rec = _cached(dirs[i], docs[i])
                files = _stored(rec)
                # as the plan judges a point complete: its tables there, in
                # the format asked (an earlier run's summary beside a table
                # since removed, or in the other format, is not this sweep's)
                if rec is not None and _has_tables(dirs[i], format, files):
                    records[i] = rec
            return partial(warn=False)
        except Exception:  # noqa: BLE001
            return None

    try:
        if cluster is not None and todo:
            _run_on_cluster(cluster, todo, docs, dirs, format, records, failed, bar)
        elif workers == 1:
            import dcnsim

            # the core's notes once for the sweep, not once per point; the
            # caller's own runs after it print theirs again
            outer, dcnsim._notes_said = dcnsim._notes_said, set()
            try:
                for i in todo:
                    try:
                        records[i] = _run_point(docs[i], str(dirs[i]), format)
                        bar.update(1)
                    except Exception as e:  # noqa: BLE001 - reported per point
                        failed(i, e)
            finally:
                dcnsim._notes_said = outer
        else:
            left: List[int] = list(todo)
            deaths: Dict[int, int] = {}
            while left:
                left = _run_pool(left, workers, docs, dirs, format, records, failed, bar, deaths, pts)
    except _MachineFailed:
        pass  # the error below names the point and the machine's failure
    except ClusterLostError as e:
        bar.close()
        e.df = partial()
        raise
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM as the command line raises it
        bar.close()
        # the complete points' table with the interrupt, as a failure gives
        # it (the CLI's sweep.csv); no scenario warnings on the way out
        e.df = partial_on_interrupt()  # type: ignore[attr-defined]
        raise
    finally:
        bar.close()
    try:
        if failures:
            # the complete points' table goes with the error: their results
            # are written, and a caller (the CLI's sweep.csv) needs them
            raise SweepError(failures, partial(), environment)
        _warn_once(pts, records, len(pts))
        _warn_seed_blind(pts, records)
        return _table(pts, records, range(len(pts)), todo, reformat, replaced, out_root, failures)
    except KeyboardInterrupt as e:
        # Ctrl-C after the last point, while the table was made (its first
        # import of pandas takes a short sweep's last second or more):
        # nothing was cancelled, and the table still goes with the interrupt
        e.points_done = True  # type: ignore[attr-defined]
        e.df = partial_on_interrupt()  # type: ignore[attr-defined]
        raise


class _MachineFailed(Exception):
    """Raised by a sweep's ``failed`` on the machine's failure (a full
    disk): the points left are not tried, and the sweep's error says why."""


#: a point whose worker process died this many times is failed, not run again
WORKER_DEATHS = 2


def _run_pool(todo: Sequence[int], workers: int, docs: Sequence[Any], dirs: Sequence[Path], format: str,
              records: List[Optional[Dict[str, Any]]], failed: Any, bar: Any, deaths: Dict[int, int],
              pts: Sequence[Point]) -> List[int]:
    """Run the points ``todo`` on a pool of ``workers`` processes; what
    is left to run when a worker process died (killed, out of memory),
    which breaks the pool and every point in it. Each point that was
    running then counts a death (``deaths``); one at :data:`WORKER_DEATHS`
    is failed, naming that, the others go to a new pool: one dead worker
    costs no point but its own."""
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    state = multiprocessing.Array("b", len(docs), lock=False)
    with ProcessPoolExecutor(max_workers=workers, initializer=_pool_init,
                             initargs=(workers, os.getpid(), state)) as pool:
        futures: Dict[Any, int] = {}
        broken: List[int] = []
        try:
            # the submits inside the try: the first forks the workers, and a
            # Ctrl-C among them left the pool unstopped, its workers blocked
            # on their queue and the exit waiting on them for ever (audit 35)
            for i in todo:
                futures[pool.submit(_pool_point, docs[i], str(dirs[i]), format, i)] = i
            pending = set(futures)
            while pending:
                # A bounded wait: Ctrl-C may be delivered to the pool's
                # manager thread, and Python runs the handler only when
                # the main thread wakes; unbounded, that is when the
                # next point finishes.
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = futures[fut]
                    try:
                        records[i] = fut.result()
                        bar.update(1)
                    except BrokenProcessPool:
                        broken.append(i)
                    except Exception as e:  # noqa: BLE001
                        failed(i, e)
        except BaseException:
            _stop_pool(pool)
            raise
    if not broken:
        return []
    # started and never finished: what the dead worker held (a worker
    # killed between points holds none, and then every point left is one)
    suspects = [i for i in broken if state[i] == 1] or broken
    for i in suspects:
        deaths[i] = deaths.get(i, 0) + 1
    dead = [i for i in suspects if deaths[i] >= WORKER_DEATHS]
    for i in dead:
        failed(i, RuntimeError(f"the worker process running it died {deaths[i]} times (killed by a signal, "
                               "or out of memory: see limits.memory)"))
    again = [i for i in broken if i not in dead]
    if again:
        labels = ", ".join(repr(pts[i].label) for i in suspects if i not in dead)
        warnings.warn(DcnsimWarning("sweep", f"a worker process died running one of {labels or 'the points'}: "
                                             f"running the {len(again)} point(s) left in new workers"),
                      stacklevel=2)
    return again


def _table(pts: Sequence[Point], records: Sequence[Optional[Dict[str, Any]]], rows_of: Iterable[int],
           todo: Sequence[int], reformat: List[str], replaced: List[str], out_root: Path,
           failures: Mapping[str, str]) -> Any:
    """The sweep's DataFrame: a row for each point of ``rows_of``, in the
    order given (every point, or those complete when some failed)."""
    import pandas as pd

    rows = []
    clashes: Dict[str, List[str]] = {}
    for i in rows_of:
        p, rec = pts[i], records[i]
        row: Dict[str, Any] = {"label": p.label}
        row.update(p.params)
        for k, v in (rec or {}).items():
            # a record's NaN is None (JSON's null, written or sent): NaN
            # again, or a column of them is `object`, where
            # `df.jain.round(3)` raised TypeError
            v = math.nan if v is None else v
            if k in p.params and not _same(p.params[k], v):
                # the run's own figure (the seed it ran, the threads it
                # used) is the column; the point's value goes beside it
                row[f"param_{k}"] = p.params[k]
                row[k] = v
                clashes.setdefault(k, []).append(p.label)
            else:
                row.setdefault(k, v)
        rows.append(row)
    for k, labels in clashes.items():
        warnings.warn(DcnsimWarning(f"params.{k}", f"differs from the {k} the run reports [{_who(labels, len(pts))}]: "
                                    "the table's "
                                    f"{k!r} column is the run's, the point's value is in 'param_{k}'"
                                    + (" (a point's seed is Point.seed, grid's seeds=)" if k == "seed" else "")),
                      stacklevel=caller_stacklevel())
    if rows:
        df = pd.DataFrame(rows)
    else:
        # no point complete (interrupted before the first, every one
        # failed, no points): still the columns a caller selects, so
        # `e.df.label` or `df[["label", axis]]` is empty, not an error
        names = ["label", *dict.fromkeys(k for p in pts for k in p.params)]
        df = pd.DataFrame({c: pd.Series([], dtype=object) for c in names})
    df.attrs["computed"] = Labels(pts[i].label for i in todo if pts[i].label not in failures and records[i] is not None)
    df.attrs["reformatted"] = Labels(reformat)
    df.attrs["replaced"] = Labels(replaced)
    df.attrs["failed"] = LabelMap(failures)
    df.attrs["out_dir"] = str(out_root)
    return df


class Labels(list):  # list[str]
    """A list of point labels in a sweep table's ``attrs``. pandas copies a
    frame's ``attrs`` with ``copy.deepcopy`` into every frame and Series
    made from it (a selection, each row of ``iterrows``): element by
    element, a table of a full paper's 2,367 points copied its label lists
    25 million times in one ``dcnsim reproduce fast``, about half of its
    analysis. Labels are strings, which a deep copy never copies, so a copy
    of the list is a deep copy; it is made in one step."""

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Labels":
        return Labels(self)


class LabelMap(dict):  # dict[str, str]
    """:class:`Labels`' mapping: point label to its error message."""

    def __deepcopy__(self, memo: Dict[int, Any]) -> "LabelMap":
        return LabelMap(self)


def _who(labels: Sequence[str], total: int) -> str:
    """Which points a warning concerns: the one by name, or how many."""
    return f"point {labels[0]!r}" if len(labels) == 1 else f"{len(labels)} of {total} points"


def _same(a: Any, b: Any) -> bool:
    """A point's param and the run's figure of the same name agree (1 and
    1.0 do: the run's numbers come back as floats)."""
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - e.g. an array's ambiguous truth
        return False


def _warn_once(pts: Sequence[Point], records: Sequence[Optional[Dict[str, Any]]], total: int) -> None:
    """One :class:`DcnsimWarning` per distinct warning of the points (run
    now or resumed), with how many points it concerns."""
    # texts that differ only in their numbers (a run's outcome: "143
    # packets dropped ...", "2 app(s) had not finished ...") are one
    # warning, with the first point's numbers: not one line per point
    seen: Dict[str, Tuple[str, List[str], set]] = {}
    for p, rec in zip(pts, records):
        for w in str((rec or {}).get("warnings") or "").splitlines():
            if w:
                first, labels, texts = seen.setdefault(_NUMBERS.sub("#", w), (w, [], set()))
                labels.append(p.label)
                texts.add(w)
    for first, labels, texts in seen.values():
        field, _, reason = first.partition(": ")
        whose = f"; the numbers are those of point {labels[0]!r}" if len(texts) > 1 else ""
        warnings.warn(DcnsimWarning(field, f"{reason} [{_who(labels, total)}{whose}]"),
                      stacklevel=caller_stacklevel())


_NUMBERS = re.compile(r"\d[\d,.]*")


def _warn_seed_blind(pts: Sequence[Point], records: Sequence[Optional[Dict[str, Any]]]) -> None:
    """One :class:`DcnsimWarning` when a sweep over seeds got the same
    results from every seed of every setting: its scenario draws nothing
    random, so its spread over seeds is zero by construction, not a
    finding (docs/model.md, "What a seed changes")."""
    from .result import PARALLEL_TIMING, TIMING_KEYS

    skip = {"seed", "warnings", *TIMING_KEYS, *PARALLEL_TIMING}
    runs: Dict[Tuple[Any, ...], List[Tuple[Any, ...]]] = {}
    for p, rec in zip(pts, records):
        if rec is None or "seed" not in p.params:
            return
        setting = tuple(sorted((k, repr(v)) for k, v in p.params.items() if k != "seed"))
        runs.setdefault(setting, []).append(tuple(sorted((k, repr(v)) for k, v in rec.items() if k not in skip)))
    if runs and all(len(r) > 1 for r in runs.values()) and all(len(set(r)) == 1 for r in runs.values()):
        n = len(next(iter(runs.values())))
        warnings.warn(DcnsimWarning("--seeds", f"the {n} seeds gave the same summary at every setting (every count "
                                    "and metric of sweep.csv): what the seed draws here (ECMP choices, Poisson "
                                    "arrivals, TCPRand sizes, jitter, ties of equal-time events) moved none of "
                                    "them, so their spread over seeds is zero by construction, though the runs' "
                                    "tables may differ (packets on other equal paths); `host_jitter` or an app's "
                                    "`start_jitter` adds timing noise the seed draws (docs/model.md, \"What a "
                                    "seed changes\")"),
                      stacklevel=caller_stacklevel())


def _cluster_point(doc: Dict[str, Any], format: str,
                   cdfs: Optional[Mapping[int, bytes]] = None) -> Tuple[Dict[str, Any], Dict[str, bytes], str]:
    """:func:`_run_point_files` on a Dask worker, with the worker's address
    (named when its core is not the client's). ``cdfs``: the bytes of the
    apps' ``cdf_file``s as the client read them (app index -> bytes),
    written into the point's private directory and read from there: the
    path is the client's, which a worker without the client's file system
    cannot open (every such point failed, and no rerun could help), and
    which on another machine may hold another file."""
    if cdfs:
        from .result import cdf_file_name

        with tempfile.TemporaryDirectory(prefix="dcnsim-cdf-") as tmp:
            apps = list(doc["apps"])
            for i, data in cdfs.items():
                path = Path(tmp) / cdf_file_name(i)
                path.write_bytes(data)
                apps[i] = {**apps[i], "cdf_file": str(path)}
            record, files = _run_point_files({**doc, "apps": apps}, format)
    else:
        record, files = _run_point_files(doc, format)
    try:
        from distributed import get_worker

        where = str(get_worker().address)
    except Exception:  # noqa: BLE001 - the address only names it
        where = "?"
    return record, files, where


def _worker_core() -> str:
    """On a Dask worker: the dcnsim core it would run points with, and the
    hash of the Python code that derives a point's metrics
    (:func:`dcnsim.result.metrics_build`), which a resume keys on too."""
    from . import core_id
    from .result import metrics_build

    return f"{core_id()} (metrics {metrics_build()})"


def _gone(answer: Any) -> bool:
    """Whether a worker's answer to the core check is its connection's
    loss (the worker died or left meanwhile), not its own error."""
    if not isinstance(answer, BaseException):
        return False
    try:
        from distributed.comm.core import CommClosedError
    except ImportError:  # pragma: no cover - dask.distributed is there when a cluster is
        return isinstance(answer, (OSError, TimeoutError))
    return isinstance(answer, (CommClosedError, OSError, TimeoutError))


def _worker_names(client: Any) -> Dict[str, str]:
    """Worker address -> ``address (name)`` for the messages."""
    try:
        info = client.scheduler_info(n_workers=-1)["workers"]
    except Exception:  # noqa: BLE001 - the addresses alone do
        return {}
    return {a: f"{a} ({w['name']})" if w.get("name") not in (None, "", a) else a for a, w in info.items()}


def _wait_for_a_worker(client: Any, cluster: str) -> None:
    """Return once the scheduler has a worker: says so before waiting (a
    sweep on a scheduler without workers would wait in silence), and gives
    up after WORKER_WAIT_S."""
    import time

    if client.nthreads():
        return
    warnings.warn(DcnsimWarning(f"cluster {cluster}", f"the Dask scheduler has no workers; waiting up to "
                                f"{WORKER_WAIT_S:g} s for one (start one with: dask worker {cluster})"),
                  stacklevel=caller_stacklevel())
    end = time.monotonic() + WORKER_WAIT_S
    while not client.nthreads():
        if time.monotonic() > end:
            raise ClusterError(f"cluster: the Dask scheduler at {cluster!r} has no workers (waited "
                               f"{WORKER_WAIT_S:g} s): start one with: dask worker {cluster}")
        time.sleep(0.2)


def _check_cores(client: Any, cluster: str, core: str, workers: Optional[List[str]] = None) -> Optional[str]:
    """Why the cluster's workers (all, or ``workers``) cannot run the
    sweep's points, or ``None``: a worker with another core than this
    process's computes other numbers, and resuming would keep replacing
    them."""
    found = client.run(_worker_core, workers=workers, on_error="return")
    # a worker that went away while asked (its nanny restarting it after a
    # point killed it) is no wrong install: it is checked again when it
    # comes back, as any joiner ("no usable dcnsim (CommClosedError …)"
    # had sent the user to reinstall dcnsim)
    found = {a: c for a, c in found.items() if not _gone(c)}
    names = _worker_names(client)
    wrong = {a: (c if isinstance(c, str) else f"no usable dcnsim ({type(c).__name__}: {c})")
             for a, c in found.items() if c != core}
    if wrong:
        listed = "; ".join(f"{names.get(a, a)}: {c}" for a, c in sorted(wrong.items()))
        return (f"cluster: {len(wrong)} of {len(found)} worker(s) of the Dask scheduler at {cluster!r} "
                f"run another dcnsim core or Python code than this process ({core}): {listed}; install the same "
                "dcnsim build on every worker (their results would not be this core's)")
    return None


def _run_on_cluster(cluster: str, todo: Sequence[int], docs: Sequence[Dict[str, Any]], dirs: Sequence[Path],
                    format: str, records: List[Optional[Dict[str, Any]]], failed: Any, bar: Any) -> None:
    import logging
    import time

    from dask.distributed import wait as dask_wait

    from .result import metrics_build

    version, build = _current_core()
    core = f"{version}+{build}"
    mine = metrics_build()
    # what each worker must answer the check with: this process's own
    want = _worker_core()
    client = _connect(cluster)
    # Dask's client logs a lost scheduler with its own tracebacks; the
    # sweep reports it itself, in one line
    log = logging.getLogger("distributed.client")
    level = log.level
    log.setLevel(logging.CRITICAL)
    total, done_before = len(records), sum(r is not None for r in records)

    def lost(what: str) -> ClusterLostError:
        done = sum(r is not None for r in records)
        return ClusterLostError(f"cluster: {what} after {done - done_before} of {len(todo)} point(s) run "
                                f"({done} of {total} complete); finished points are kept")

    try:
        try:
            _wait_for_a_worker(client, cluster)
            wrong = _check_cores(client, cluster, want)
            if wrong:
                raise ClusterError(wrong)
            # pure=False: a point is run even if an identical one ran before on
            # the cluster (its files are needed here, not a cached future)
            from ._document import read_cdf_files

            futures = {client.submit(_cluster_point, docs[i], format, read_cdf_files(docs[i]), pure=False): i
                       for i in todo}
            if client.status != "running":
                raise lost(f"lost the Dask scheduler at {cluster!r}")
            seen = set(client.nthreads())
        except (OSError, TimeoutError):  # the scheduler went away while we asked it
            raise lost(f"lost the Dask scheduler at {cluster!r}") from None
        pending = set(futures)
        alone_since: Optional[float] = None
        try:
            while pending:
                try:
                    done, pending = dask_wait(pending, timeout=0.5, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                except Exception:  # noqa: BLE001 - futures cancelled by a lost scheduler (FuturesCancelledError)
                    raise lost(f"lost the Dask scheduler at {cluster!r}") from None
                for fut in done:
                    i = futures[fut]
                    try:
                        rec, files, where = fut.result()
                    except Exception as e:  # noqa: BLE001 - reported per point, unless the cluster is gone
                        if client.status != "running" or isinstance(e, (CancelledError, OSError)):
                            raise lost(f"lost the Dask scheduler at {cluster!r}") from None
                        failed(i, e)
                        continue
                    got = f"{rec.get('core_version')}+{rec.get('core_build')}"
                    if got != core or rec.get("metrics_build") != mine:
                        # a worker that joined after the check: its point is
                        # not stored (the rerun's check names the worker);
                        # metrics another Python code derived would be
                        # replaced by every resume
                        theirs = (f"dcnsim core {got}" if got != core
                                  else f"dcnsim Python code {rec.get('metrics_build')} (metrics)")
                        ours = core if got != core else mine
                        failed(i, ClusterError(f"computed by worker {where} with {theirs}, not this "
                                               f"process's {ours}: not stored"))
                        continue
                    try:
                        _store_files(dirs[i], files)
                    except Exception as e:  # noqa: BLE001 - reported per point
                        failed(i, e)
                        continue
                    records[i] = rec
                    bar.update(1)
                if not pending:
                    break
                if client.status != "running":
                    raise lost(f"lost the Dask scheduler at {cluster!r}")
                try:
                    now = set(client.nthreads())
                except Exception:  # noqa: BLE001 - the scheduler is gone
                    raise lost(f"lost the Dask scheduler at {cluster!r}") from None
                if now - seen:
                    # a worker that joined since is checked as those at the
                    # start were: the sweep stops rather than mix cores (and a
                    # point it returns first is refused above)
                    wrong = _check_cores(client, cluster, want, sorted(now - seen))
                    if wrong:
                        raise ClusterLostError(f"{wrong}; it joined after {sum(r is not None for r in records)} "
                                               f"of {total} points were complete, which are kept")
                seen = now
                if now:
                    alone_since = None
                elif alone_since is None:
                    alone_since = time.monotonic()
                    warnings.warn(DcnsimWarning(f"cluster {cluster}", "every worker of the Dask scheduler left; "
                                                f"waiting up to {WORKER_WAIT_S:g} s for one (start one with: "
                                                f"dask worker {cluster})"), stacklevel=caller_stacklevel())
                elif time.monotonic() - alone_since > WORKER_WAIT_S:
                    raise lost(f"every worker of the Dask scheduler at {cluster!r} left (none for "
                               f"{WORKER_WAIT_S:g} s)")
        except BaseException:
            with contextlib.suppress(Exception):
                client.cancel(list(futures))
            raise
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=2)
        log.setLevel(level)


#: Seconds a sweep spends planning its points' threads before it takes the
#: rest to use every thread asked (a k = 32 fat-tree takes ≈ 0.1 s to plan).
PLAN_BUDGET_S = 1.0


def threads_used(points: Sequence[Point], threads: int, enough: Optional[int] = None,
                 budget_s: float = PLAN_BUDGET_S) -> int:
    """The most threads any of ``points`` really runs on when asked for
    ``threads``: 1 for a point that goes on one thread (a star's one
    switch; a fabric whose windows hold too little work for the cut to
    pay); an invalid point counts as ``threads`` (its run reports why, and
    nothing is rewritten around it), and so do the points left when
    planning has taken ``budget_s`` (a grid of large fabrics). Stops
    looking once ``enough`` is reached."""
    import time

    from . import _core
    from ._document import to_json

    used, seen, start = 1, set(), time.monotonic()
    for p in points:
        if id(p.scenario) in seen:  # a grid's seeds share their scenario
            continue
        if time.monotonic() - start > budget_s:
            return threads
        seen.add(id(p.scenario))
        planned = _core.planned_threads(to_json({**as_dict(p.scenario), "threads": threads}))
        used = max(used, threads if planned is None else planned)
        if enough is not None and used >= enough:
            break
    return used


def jobs_for_threads(points: Sequence[Point], threads: int, cores: Optional[int] = None,
                     used: Optional[int] = None) -> int:
    """Worker processes for a sweep whose points run on ``threads`` threads
    each: the cores shared between the points and the threads a point really
    uses (:func:`threads_used`, or ``used`` when the caller has it):
    ``--threads 2`` must not halve a sweep that runs each point on one."""
    cores = max(1, cores or os.cpu_count() or 1)
    if used is None:
        used = threads_used(points, threads, enough=cores)
    return max(1, cores // min(used, cores))


def grid(
    base: Any,
    axes: Mapping[str, Sequence[Any]],
    seeds: Optional[Iterable[Any]] = None,
) -> List[Point]:
    """Cartesian product of ``axes`` (``{"topology.buffer": ["16KB", "32KB"], ...}``)
    and ``seeds`` over the ``base`` scenario. Labels read
    ``topology.buffer=16KB__seed=1``; ``params`` hold the axis values."""
    if not isinstance(axes, Mapping):
        raise TypeError(f"grid: axes: expected a mapping of a dotted path to its values ({{'topology.buffer': ['16KB', "
                        f"'32KB']}}), got {type(axes).__name__}")
    values = {k: _axis_values(f"axes[{k!r}]", v) for k, v in axes.items()}
    # `seeds` may be a numpy array (np.arange), whose truth is ambiguous
    given: List[Optional[int]] = [] if seeds is None else [_grid_seed(s) for s in _axis_values("seeds", seeds)]
    if given and "seed" in axes:
        # every point would run each of `seeds` whatever its axis value says
        raise ValueError("seed: given both as an axis and as seeds=; give the seeds once")
    doc = as_dict(base)
    keys = list(values)
    seed_list: List[Optional[int]] = given or [None]
    points = []
    for combo in itertools.product(*(values[k] for k in keys)):
        over = dict(zip(keys, combo))
        scen = with_overrides(doc, over)
        for s in seed_list:
            params: Dict[str, Any] = dict(over)
            parts = [f"{k}={_fmt(v)}" for k, v in over.items()]
            if s is not None:
                params["seed"] = s
                parts.append(f"seed={s}")
            label = "__".join(parts) or "base"
            points.append(Point(label, scen, s, params))
    return points


def _axis_values(name: str, values: Any) -> List[Any]:
    """The values of one of ``grid``'s axes (or its ``seeds``) as a list.
    A string is one value, not a sequence of them: iterated, ``"16KB"``
    would sweep the buffers "1", "6", "K" and "B", and ``seeds="12"``
    the seeds 1 and 2. An empty axis would leave the grid without a point
    (and empty ``seeds`` the file's own seed): both are refused."""
    hint = "e.g. seeds=[1, 2]" if name == "seeds" else f"write [{values!r}] for that one value"
    if isinstance(values, (str, bytes)):
        raise TypeError(f"grid: {name}: expected a list of values, got the string {values!r} (a string would be "
                        f"swept character by character); {hint}")
    if isinstance(values, Mapping):  # its keys would be the values
        raise TypeError(f"grid: {name}: expected a list of values, got a table {values!r}; {hint}")
    try:
        out = list(values)
    except TypeError:
        raise TypeError(f"grid: {name}: expected a list of values, got {values!r}; {hint}") from None
    if not out:
        why = ("the grid would have no point" if name != "seeds"
               else "leave it out (None) to run the scenario's own seed")
        raise ValueError(f"grid: {name}: no values: {why}")
    seen: List[Any] = []
    for v in out:
        try:
            again = v in seen
        except Exception:  # noqa: BLE001 - a value == cannot compare (an array) is no repeat to name
            again = False
        if again:
            # two points of one label, found at run_sweep as a label clash
            raise ValueError(f"grid: {name}: {v!r} is given twice; give each value once")
        seen.append(v)
    return out


def _grid_seed(s: Any) -> Any:
    """A seed of ``grid``'s ``seeds=``: any integer type (numpy's) as an
    int; anything else as it is, for the validation to name."""
    if isinstance(s, numbers.Integral) and not isinstance(s, bool):
        return int(s)
    return s


def _fmt(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "+".join(_fmt(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
