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
import functools
import itertools
import json
import numbers
import os
import re
import signal
import sys
import tempfile
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
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

__all__ = ["Point", "SweepError", "SweepLabelError", "ClusterError", "OutputDirError", "run_sweep", "grid",
           "point_dir"]


@dataclass
class Point:
    """One sweep point. ``params`` are extra columns for the summary table."""

    label: str
    scenario: Any
    seed: Optional[int] = None
    params: Dict[str, Any] = field(default_factory=dict)


class SweepError(RuntimeError):
    """Some points failed at run time (the others were written)."""

    def __init__(self, failures: Dict[str, str]):
        self.failures = dict(failures)
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
    """The Dask cluster cannot be used (not installed, or not reachable);
    nothing was run."""


_UNSAFE = re.compile(r"[^A-Za-z0-9._=,+@%-]+")


def safe_label(label: str) -> str:
    """``label`` as the name of a point's directory (every run of other
    characters than letters, digits and ``._=,+@%-`` made one ``_``)."""
    return _UNSAFE.sub("_", label).strip(".") or "_"


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
        return p
    if isinstance(p, Mapping):
        return Point(**p)
    if isinstance(p, (tuple, list)) and 2 <= len(p) <= 4:
        return Point(*p)
    raise TypeError(f"a sweep point is (label, scenario, seed[, params]) or a Point, got {p!r}")


def _canonical(doc: Mapping[str, Any]) -> str:
    """The text two documents of one point share. `threads` is left out:
    every thread count gives the same bits (docs/performance.md), so a
    sweep resumed with another --threads keeps what it has."""
    return json.dumps({k: v for k, v in doc.items() if k != "threads"}, sort_keys=True, separators=(",", ":"))


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


def _pool_point(doc: Dict[str, Any], out: str, format: str) -> Dict[str, Any]:
    """:func:`_run_point` in a pool worker. The pool would catch the
    SystemExit of a SIGTERM as the point's failure and take the next point:
    a worker told to stop leaves once the point has unwound."""
    try:
        return _run_point(doc, out, format)
    finally:
        if _stopping:
            os._exit(143)


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
    from .result import _write_bytes, remove_earlier_files, remove_stale_temporaries

    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    order = {"scenario.json": 0, "summary.json": 2}
    with StagedFiles() as staged:
        for name in sorted(files, key=lambda n: order.get(n, 1)):
            staged.write(out / Path(name).name, functools.partial(_write_bytes, files[name]), mode="wb")
        # all written: the earlier run goes only now (a full disk leaves it whole)
        remove_earlier_files(out, files)
        staged.commit()


def _connect(cluster: str):
    """A ``dask.distributed`` client for ``cluster``, with errors a user can act on."""
    try:
        from dask.distributed import Client
    except ImportError as e:
        raise ClusterError(f"cluster: running on a cluster needs dask.distributed "
                           f"(pip install 'dcnsim[cluster]'): {e}") from None
    try:
        return Client(cluster, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cluster: cannot reach the Dask scheduler at {cluster!r}: {e}") from None


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
    return rec


def _has_tables(out: Path, format: str) -> bool:
    """Whether ``out`` holds every table a run writes, in ``format``."""
    from .result import TABLES

    return all((out / f"{name}.{format}").is_file() for name in TABLES)


def run_sweep(
    points: Iterable[Any],
    out_dir: Union[str, os.PathLike],
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    format: str = "csv",
    cluster: Optional[str] = None,
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
    anything runs (every problem, prefixed by the point's label), and so
    does a directory another sweep or run is writing into (its lock:
    :func:`dcnsim._atomic.dir_lock`)."""
    if format not in ("csv", "parquet"):
        raise ValueError(f"format must be 'csv' or 'parquet', got {format!r}")
    if jobs is not None:
        # any integer type (numpy's too), but not a bool or a float
        if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs < 1:
            raise ValueError(f"jobs must be a positive integer or None, got {jobs!r}")
        jobs = int(jobs)
    if not os.fspath(out_dir):  # Path("") would be the current directory
        from .result import EMPTY_OUT_DIR

        raise ValueError(EMPTY_OUT_DIR)
    pts = [_as_point(p) for p in points]
    out_root = check_out_dir(out_dir)
    # one sweep at a time in a directory: the same command started again in
    # another terminal would run every point twice and mix their files
    with dir_lock(out_root):
        return _sweep_locked(pts, out_root, jobs, progress, format, cluster)


def _sweep_locked(pts: List["Point"], out_root: Path, jobs: Optional[int], progress: Optional[bool], format: str,
                  cluster: Optional[str]):
    """:func:`run_sweep`'s work, with ``out_root`` locked for it."""
    import pandas as pd
    from tqdm.auto import tqdm

    # resolve and validate every point before running any
    docs: List[Dict[str, Any]] = []
    dirs: List[Path] = []
    errors: List[Problem] = []
    seen: Dict[Path, str] = {}
    from . import _problems
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
        if foreign:  # Result.write refuses them: found before anything runs
            raise OutputDirError(foreign_files_error(d, foreign) + f" (point {p.label!r}'s results go there)")
        try:
            doc = as_dict(p.scenario)
            if p.seed is not None:
                doc["seed"] = p.seed
            problems = _problems(doc)
            # numpy values (axes of np.arange, seeds) as the Python values
            # they hold: compared with a stored scenario.json, and sent to
            # the workers, as the document the core reads
            doc = json_document(doc)[0]
        except ScenarioError as e:
            problems, doc = list(e.errors), {}
        # the point's label first: "label: field.path: reason"
        errors.extend(Problem(f"{p.label}: {e.path}", e.message) for e in problems)
        docs.append(doc)
        dirs.append(d)
    if errors:
        raise ScenarioError(errors)

    records: List[Optional[Dict[str, Any]]] = [None] * len(pts)
    todo: List[int] = []
    reformat: List[str] = []
    replaced: List[str] = []
    core = _current_core()
    for i, (doc, d) in enumerate(zip(docs, dirs)):
        cached = _cached(d, doc, core)
        if cached is not None and not _has_tables(d, format):
            # stored in the other format: asked for parquet, a point must
            # not be "resumed" with csv files only (the rerun replaces them)
            reformat.append(pts[i].label)
            cached = None
        if cached is not None:
            records[i] = cached
        else:
            todo.append(i)
            # complete results of another scenario, core or format stay
            # until the point is written again (its write removes the old
            # summary first, clear_earlier_run): a sweep interrupted before
            # it reaches them loses none of them
            if (d / "summary.json").exists() and pts[i].label not in reformat:
                replaced.append(pts[i].label)
    if replaced:
        # complete results of another scenario or core, about to go: said
        # before anything runs, as `run --out` says it of a directory
        warnings.warn(DcnsimWarning(os.fspath(out_root), f"{_who(replaced, len(pts))} held complete results of another scenario or "
                                    "core: replacing them"), stacklevel=caller_stacklevel())

    failures: Dict[str, str] = {}
    show = progress if progress is not None else sys.stderr.isatty()
    bar = tqdm(total=len(pts), initial=len(pts) - len(todo), disable=not show, unit="run", desc="sweep")
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    try:
        if cluster is not None and todo:
            _run_on_cluster(cluster, todo, docs, dirs, pts, format, records, failures, bar)
        elif workers == 1:
            for i in todo:
                try:
                    records[i] = _run_point(docs[i], str(dirs[i]), format)
                except Exception as e:  # noqa: BLE001 - reported per point
                    failures[pts[i].label] = f"{type(e).__name__}: {e}"
                bar.update(1)
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                                     initargs=(workers, os.getpid())) as pool:
                futures = {pool.submit(_pool_point, docs[i], str(dirs[i]), format): i for i in todo}
                pending = set(futures)
                try:
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
                            except Exception as e:  # noqa: BLE001
                                failures[pts[i].label] = f"{type(e).__name__}: {e}"
                            bar.update(1)
                except BaseException:
                    _stop_pool(pool)
                    raise
    finally:
        bar.close()
    if failures:
        raise SweepError(failures)
    _warn_once(pts, records)

    rows = []
    clashes: Dict[str, List[str]] = {}
    for p, rec in zip(pts, records):
        row: Dict[str, Any] = {"label": p.label}
        row.update(p.params)
        for k, v in (rec or {}).items():
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
    df = pd.DataFrame(rows)
    df.attrs["computed"] = [pts[i].label for i in todo]
    df.attrs["reformatted"] = reformat
    df.attrs["replaced"] = replaced
    df.attrs["out_dir"] = str(out_root)
    return df


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


def _warn_once(pts: Sequence[Point], records: Sequence[Optional[Dict[str, Any]]]) -> None:
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
        whose = f"; the numbers are point {labels[0]!r}'s" if len(texts) > 1 else ""
        warnings.warn(DcnsimWarning(field, f"{reason} [{_who(labels, len(pts))}{whose}]"),
                      stacklevel=caller_stacklevel())


_NUMBERS = re.compile(r"\d[\d,.]*")


def _run_on_cluster(cluster, todo, docs, dirs, pts, format, records, failures, bar) -> None:
    from dask.distributed import as_completed as dask_completed

    client = _connect(cluster)
    try:
        # pure=False: a point is run even if an identical one ran before on
        # the cluster (its files are needed here, not a cached future)
        futures = {client.submit(_run_point_files, docs[i], format, pure=False): i for i in todo}
        try:
            for fut in dask_completed(list(futures)):
                i = futures[fut]
                try:
                    records[i], files = fut.result()
                    _store_files(dirs[i], files)
                except Exception as e:  # noqa: BLE001 - reported per point
                    failures[pts[i].label] = f"{type(e).__name__}: {e}"
                bar.update(1)
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        client.close()


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
    # `seeds` may be a numpy array (np.arange), whose truth is ambiguous
    given: List[Optional[int]] = [] if seeds is None else [_grid_seed(s) for s in seeds]
    if given and "seed" in axes:
        # every point would run each of `seeds` whatever its axis value says
        raise ValueError("seed: given both as an axis and as seeds=; give the seeds once")
    doc = as_dict(base)
    keys = list(axes)
    seed_list: List[Optional[int]] = given or [None]
    points = []
    for combo in itertools.product(*(list(axes[k]) for k in keys)):
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
