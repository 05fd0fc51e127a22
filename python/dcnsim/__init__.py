"""dcnsim: a deterministic packet-level data-center network simulator.

>>> import dcnsim
>>> r = dcnsim.run("scenarios/kulkarni_incast.toml", seed=2)   # doctest: +SKIP
>>> r.blocks.goodput_bps.mean()                                 # doctest: +SKIP

The simulator itself is the Rust extension ``dcnsim._core``; this package
adds scenario builders, result tables (pandas), parallel sweeps, plots and
the ``dcnsim`` command line.
"""

from __future__ import annotations

from . import _core
from .errors import DcnsimWarning, Problem, ScenarioError

# typing is not imported at run time here nor in the other modules `dcnsim
# --version` and `dcnsim run` load (errors, cli, _args, _atomic, _document,
# result): about 15 % of --version's own cost. Annotations are strings
# (PEP 563), and mypy reads a block under any constant named TYPE_CHECKING as
# under typing.TYPE_CHECKING.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, List, Optional, SupportsIndex, Tuple

    from .result import Result, jain, read_result
    from .scenario import (
        Bulk,
        Custom,
        Failure,
        FatTree,
        LeafSpine,
        Link,
        Node,
        PartitionAggregate,
        Pfc,
        Poisson,
        Scenario,
        Star,
        SyncReads,
        Tcp,
        TwoTier,
        UdpCbr,
        load_scenario,
        with_overrides,
    )

    # not in __all__, but importable from dcnsim as before
    from .scenario import as_dict as as_dict
    from .scenario import sanitize as sanitize
    from .scenario import to_json as to_json

# Public names imported on first use (PEP 562's module __getattr__): the
# builders' 15 dataclasses and the result tables cost tens of milliseconds
# to import, which `dcnsim --version` and `dcnsim run FILE` need not pay.
_LAZY = {
    "Result": "result",
    "jain": "result",
    "read_result": "result",
    **{
        name: "scenario"
        for name in ("Bulk", "Custom", "Failure", "FatTree", "LeafSpine", "Link", "Node", "PartitionAggregate", "Pfc",
                     "Poisson", "Scenario", "Star", "SyncReads", "Tcp", "TwoTier", "UdpCbr")
    },
    # the same objects as dcnsim.scenario's, from the module without the builders
    **{name: "_document" for name in ("as_dict", "load_scenario", "sanitize", "to_json", "with_overrides")},
}


#: The public submodules, imported on first use as attributes of the
#: package (the docs name `dcnsim.models.…`, `dcnsim.units.…`); `result`
#: and `scenario` are the two `import dcnsim` loaded before it turned lazy.
_SUBMODULES = ("result", "scenario", "analysis", "bench", "errors", "experiments", "machine", "models", "plots",
               "sweep", "tuning", "units")


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name in _SUBMODULES:  # `dcnsim.models.enqueue_probability(...)` after a plain `import dcnsim`
        return import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    # what a tab completes: the package's names, lazy ones included, not
    # the `from __future__` feature or the TYPE_CHECKING flag of this file
    return sorted((set(globals()) | set(_LAZY) | set(_SUBMODULES)) - {"annotations", "TYPE_CHECKING"})


__all__ = [
    "run",
    "validate",
    "Problems",
    "Result",
    "read_result",
    "ScenarioError",
    "DcnsimWarning",
    "Problem",
    "jain",
    "core_version",
    "core_build",
    "core_id",
    "Scenario",
    "Tcp",
    "Star",
    "TwoTier",
    "FatTree",
    "LeafSpine",
    "Custom",
    "Node",
    "Link",
    "Failure",
    "Pfc",
    "Bulk",
    "PartitionAggregate",
    "SyncReads",
    "UdpCbr",
    "Poisson",
    "flow_size_cdf",
    "load_scenario",
    "with_overrides",
    "tune",
    "__version__",
]


def tune(scenario: Any, params: Any, objective: Any = "qct_p99", **kw: Any):
    """Search a scenario's parameters for an objective with Optuna (every
    trial an ordinary cached run; resumable): :func:`dcnsim.tuning.tune`,
    docs/tune.md."""
    from .tuning import tune as _tune

    return _tune(scenario, params, objective, **kw)


def flow_size_cdf(cdf=None, *, file=None, sampling=None):
    """A validated flow-size CDF (see :func:`dcnsim.analysis.flow_size_cdf`).
    Imported lazily: ``import dcnsim`` stays free of pandas."""
    from .analysis import flow_size_cdf as _f

    return _f(cdf, file=file, sampling=sampling)


def core_version() -> str:
    """Version string of the Rust core (``_core.version()``)."""
    fn = getattr(_core, "version", None)
    return fn() if fn is not None else "unknown"


def core_build() -> str:
    """Hash of the Rust core's sources at build time (``_core.build()``):
    results of two cores with the same version but another build may differ."""
    fn = getattr(_core, "build", None)
    return fn() if fn is not None else "unknown"


def core_id() -> str:
    """``<core version>+<build hash>``: what produced a result, and what the
    sweep and reproduction caches key on besides scenario and seed."""
    return f"{core_version()}+{core_build()}"


#: The package's version: the Cargo workspace's, which maturin writes into
#: the wheel's metadata and the build compiles into the core (pyproject.toml
#: declares it dynamic), so reading it costs no importlib.metadata.
__version__: str = core_version()


def _require(name: str):
    fn = getattr(_core, name, None)
    if fn is None:
        raise RuntimeError(
            f"dcnsim._core has no {name}(): the Rust extension is missing or too old; "
            "rebuild it with `pip install -e .` (or `maturin develop`)"
        )
    return fn


def _problems(doc: Any) -> List[Problem]:
    """Python-side problems (values JSON cannot carry) plus the core's, for
    the rest of the document; one report per field path."""
    from ._document import json_text

    return _problems_of(*json_text(doc))


def _problems_of(text: str, errors: List[Problem]) -> List[Problem]:
    """:func:`_problems` of a document already written as ``text``, with
    what JSON could not carry of it (``errors``)."""
    core = [Problem(path, message) for path, message in _require("validate")(text)]
    seen = {e.path for e in errors}
    return errors + [e for e in core if e.path not in seen]


class Problems(list):  # list[Problem]: typing is not imported at run time here
    """What :func:`validate` returns: the scenario's problems (a list of
    :class:`Problem`, empty when it is valid), and in ``warnings`` what a
    valid scenario probably does not mean (the warnings ``dcnsim.run``
    emits and ``dcnsim validate`` prints; empty for an invalid one)."""

    warnings: List[Problem]

    def __init__(self, problems: Any = (), warnings: Any = ()) -> None:
        super().__init__(problems)
        self.warnings = list(warnings)


def validate(scenario: Any) -> "Problems":
    """Every problem of a scenario (path, dict or builder), each a
    :class:`Problem` ``(path, message)`` pair whose ``str()`` is
    ``"field.path: reason"``; an empty list means it is valid. Never raises
    for a bad scenario. The list's ``warnings`` holds the scenario's
    warnings (DCTCP with no ECN-marking queue, ...) when it is valid, as
    ``dcnsim validate`` prints them."""
    from ._document import as_dict, json_text

    try:
        doc = as_dict(scenario)
    except ScenarioError as e:
        return Problems(e.errors)
    problems = _problems(doc)
    if problems:
        return Problems(problems)
    text, _ = json_text(doc)
    return Problems((), [Problem(path, reason) for path, reason in _require("warnings")(text)])


#: Every seed is an integer in ``[0, _SEED_END)``: the core's seed is 64
#: bits. The one bound of every seed check (``run(seed=)``, ``--seeds``,
#: ``tune``'s seeds, ``model enqueue --seed``), each naming its own field;
#: here, so that ``import dcnsim`` checks a seed without loading ``_args``.
_SEED_END = 2**64
#: The range as the messages write it.
_SEED_RANGE = "[0, 2^64)"


def _seed_ok(value: int) -> bool:
    """Whether the integer ``value`` is a seed the core takes."""
    return 0 <= value < _SEED_END


def _seed(seed: Any) -> int:
    """``seed`` as an int: any integer type (numpy's too), not a bool."""
    import operator

    try:
        boolean = isinstance(seed, bool) or type(seed).__name__ in ("bool", "bool_")  # numpy's is "bool" since 2.0
        value = None if boolean else operator.index(seed)
    except TypeError:
        value = None
    if value is None or not _seed_ok(value):
        raise ScenarioError([Problem("seed", f"must be an integer in {_SEED_RANGE}, got {seed!r}")])
    return value


def _add_outcome_warnings(result: "Result") -> List[Problem]:
    """What the run did that its scenario probably did not mean
    (:meth:`Result.outcome_warnings`), added to ``result.warnings``."""
    found = result.outcome_warnings()
    result.warnings.extend(str(p) for p in found)
    return found


#: The core's notes this process has printed, while a sweep runs here (its
#: points say each once); None outside one: every run prints its own.
_notes_said: Optional[set] = None


def run(scenario: Any, seed: Optional[SupportsIndex] = None, progress: bool = False) -> "Result":
    """Run a scenario (path to ``.toml``/``.json``, dict, or :class:`Scenario`)
    and return its :class:`Result`. ``seed`` overrides the scenario's ``seed``
    (any integer type, numpy's too).
    ``progress=True`` shows a bar on stderr: simulated time of ``stop``,
    events/s, time left (it changes no result).

    Raises :class:`ScenarioError` listing every problem if the scenario is
    invalid. A valid scenario that is probably not meant (DCTCP with no
    ECN-marking queue, …) runs, with a :class:`DcnsimWarning` per problem
    before it starts; so does, after it, a run whose outcome was probably
    not meant (packets dropped in a lossless PFC fabric, apps not finished
    at ``stop``). Both are in ``Result.warnings``. Ctrl-C (SIGINT) stops the run within milliseconds and raises
    ``KeyboardInterrupt``: no result, nothing written."""
    import sys
    import warnings

    from ._document import as_dict, json_document, read_cdf_files
    from .errors import caller_stacklevel
    from .result import Result

    if not isinstance(progress, (bool, int)) or progress not in (0, 1):
        # progress="no" is truthy: it would show the bar it meant to hide
        raise TypeError(f"progress: expected True or False, got {progress!r}")
    doc = as_dict(scenario)
    if seed is not None:
        seed = doc["seed"] = _seed(seed)
    # the document as plain JSON values (numpy scalars as the Python values
    # they hold): what the core reads is what Result.scenario keeps and
    # Result.write writes
    plain, text, errors = json_document(doc)
    if errors:  # with the core's problems of the rest, one report per field
        raise ScenarioError(_problems(doc))
    doc = plain
    notes: List[Problem] = []

    def warn(pairs: List[Tuple[str, str]]) -> None:
        # the core calls this once it has read the document, before it
        # builds anything: warnings show before a long run starts, and the
        # document is read once (a k = 32 fat-tree's, 8,192 apps, takes
        # tens of milliseconds a reading, none of it on more than one core)
        for path, reason in pairs:
            notes.append(Problem(path, reason))
            # 3: this function, run, then run's caller (the core's frames are not Python's)
            warnings.warn(DcnsimWarning(path, reason), stacklevel=3)
    # Only the main thread sees signals; elsewhere the poll would only
    # wait for the GIL. No threading module loaded, no other thread made
    # (every pool starts its threads through it), so this is the main one:
    # a `dcnsim run` need not import it (≈ 1 ms of its start).
    threading = sys.modules.get("threading")
    main = threading is None or threading.current_thread() is threading.main_thread()
    bar = None
    if progress:
        from ._progress import RunBar

        bar = RunBar()
    # just before the core reads them: what Result.write copies is what ran
    cdf_files = read_cdf_files(doc)
    done = False
    try:
        raw = _require("run")(text, seed, main, bar.report if bar else None, warn)
        done = True
    except ValueError as e:  # the core's `problems`: (path, reason) pairs
        raise ScenarioError(getattr(e, "problems", None) or [Problem("<document>", str(e))]) from None
    finally:
        if bar is not None:
            if done:  # the run's own rate: a short run reported only at its start
                bar.close(True, raw["summary"]["events"], (raw.get("timing") or {}).get("wall_s"))
            else:
                bar.close(False)
    # the effective seed, default or not: Result.scenario and the
    # scenario.json it writes say which seed ran
    doc.setdefault("seed", raw["summary"]["seed"])
    said = list(raw.pop("notes", None) or ())
    # in a sweep each distinct note once (a hundred points said "one
    # thread, as the topology has one switch" a hundred times); alone,
    # every run's (Result.notes keeps them either way)
    new = said if _notes_said is None else [x for x in said if x not in _notes_said]
    if _notes_said is not None:
        _notes_said.update(new)
    if new and sys.stderr is not None:
        # how the run went (fewer threads than asked, and why): on Python's
        # stderr, which a notebook shows (the core's own went to the
        # process's, which it does not)
        print("\n".join(new), file=sys.stderr)
    result = Result(raw, doc, warnings=notes, cdf_files=cdf_files)
    result.notes[:] = said
    for p in _add_outcome_warnings(result):
        w = DcnsimWarning(p.path, p.message)
        # `dcnsim run` prints these in its summary, not again on stderr
        w.after_run = True  # type: ignore[attr-defined]
        warnings.warn(w, stacklevel=caller_stacklevel())
    return result
