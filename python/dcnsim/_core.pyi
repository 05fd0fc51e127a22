"""Type stubs for the Rust extension ``dcnsim._core`` (crates/dcnsim-py).

The contract: scenarios go in as JSON text (the TOML document of
docs/scenario.md converted to JSON); results come back as plain columns.
"""

from array import array
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypedDict,
    Union,
)

__all__ = [
    "build",
    "estimate",
    "float_reprs",
    "flow_size_cdf",
    "jain",
    "parse_count",
    "parse_limit",
    "parse_rate",
    "parse_size",
    "parse_size_si",
    "parse_time",
    "planned_threads",
    "run",
    "schema",
    "table_schema",
    "validate",
    "version",
    "warnings",
    "write_csv",
]

# Stub-only names (underscored, so `mypy.stubtest` knows they have no
# runtime counterpart): the shape of what `run` returns.

#: a column, built in Rust: an ``array.array`` of int64 (``"q"``; ``"Q"``,
#: uint64, only if a value does not fit), float64 (``"d"``) or bool (``"B"``,
#: 0/1 bytes), or a list of str; result.py views them as numpy arrays
_Column = Union["array[int]", "array[float]", List[str]]
_Table = Dict[str, _Column]

class _RunOutput(TypedDict):
    #: every table of ``table_schema()`` with ``always`` (``flows``, ``queues``,
    #: ``queue_inputs``, ``queries``, ``blocks``, ``losses``), plus ``flow_ts``
    #: and ``queue_ts`` with a ``trace``: table -> column -> array
    tables: Dict[str, _Table]
    #: run-level physics: ``seed`` (exact), ``events``, ``packet_hops``,
    #: ``packets_*`` and other counts as int; ``sim_time_s`` and other times,
    #: rates per second and means as float
    summary: Dict[str, Union[int, float]]
    #: how long the run took: ``wall_s`` (not physics; kept out of ``summary``);
    #: a run cut into partitions adds ``windows``, ``partition_work_s``,
    #: ``imbalance_s`` and ``between_windows_s``
    timing: Dict[str, float]
    #: pcap traces asked for by the scenario's ``pcap`` table: file name -> bytes
    pcaps: Dict[str, bytes]
    #: which core produced the tables: ``version`` and ``build`` (source hash)
    core: Dict[str, str]
    #: what the core said of how the run went, results unchanged (it ran on
    #: fewer threads than asked, and why): lines ``dcnsim.run`` prints on
    #: ``sys.stderr``
    notes: List[str]

class _TableSchema(TypedDict):
    #: false for the tables only a scenario's ``trace`` brings
    always: bool
    #: (column, numpy dtype name), in the core's order
    columns: List[Tuple[str, str]]

def table_schema() -> Dict[str, _TableSchema]:
    """Every table a run can return, with its columns and their dtypes."""

def planned_threads(scenario_json: str) -> Optional[int]:
    """The threads a run of the scenario would use with cores to spare (1
    where it cannot be cut or the cut would not pay; None if invalid)."""

def write_csv(fh: Any, columns: Mapping[str, Any], bools: Sequence[str], quote_cr: bool) -> bool:
    """Write a table of the core's columns (``array.array`` or lists of str)
    to the text file ``fh`` as pandas' ``to_csv(index=False,
    lineterminator="\\n")`` would; False, with nothing written, for columns
    of another kind or of unequal lengths."""

def float_reprs(xs: Sequence[float]) -> List[str]:
    """Each float as ``write_csv`` writes it: Python's ``repr``, NaN empty."""

def validate(scenario_json: str) -> List[Tuple[str, str]]:
    """Every problem of the scenario as a ``(field.path, reason)`` pair; ``[]`` = valid."""

def estimate(scenario_json: str) -> Optional[Tuple[int, int, int, int, int]]:
    """The run's estimate before it starts (upper bounds): memory in bytes,
    of it what the run-time guard cannot stop in time, events, and the
    scenario's ``limits.memory`` and ``limits.events``; ``None`` for an
    invalid scenario."""

def warnings(scenario_json: str) -> List[Tuple[str, str]]:
    """What is valid but probably not meant (e.g. DCTCP with no ECN-marking
    queue), as ``(field.path, reason)`` pairs; ``[]`` for an invalid one too."""

def run(scenario_json: str, seed: Optional[int] = None, interruptible: bool = True,
        progress: Optional[Callable[[float, int, float], None]] = None,
        on_warnings: Optional[Callable[[List[Tuple[str, str]]], None]] = None) -> _RunOutput:
    """Run the scenario (``seed`` overrides its ``seed``).

    ``interruptible``: poll the interpreter's signal handlers every 2**16
    events, so Ctrl-C raises ``KeyboardInterrupt`` mid-run (main thread only).

    ``progress(sim_seconds, events, stop_seconds)``: called every 2**16
    events; an exception it raises stops the run and is raised here.

    ``on_warnings(pairs)``: called once the document is read, before
    anything is built, with what :func:`warnings` gives when that is not
    empty; an exception it raises is raised here and nothing runs.

    Raises ``ValueError`` if it is invalid: its text lists the problems
    (``"path: reason"``, one per line), its ``problems`` attribute holds
    them as ``(path, reason)`` pairs."""

def schema() -> str:
    """The scenario schema (JSON Schema, draft 2020-12) as JSON text."""

def flow_size_cdf(table_json: str) -> Tuple[str, str, List[Tuple[float, float]], float]:
    """A flow-size CDF from a JSON table ``{"cdf": ...}`` or ``{"cdf_file": ...}``
    (plus ``"sampling"``): ``(name, sampling, points, mean_bytes)``.

    Raises ``ValueError`` if invalid (text: the problems, one per line;
    ``problems``: the ``(path, reason)`` pairs)."""

def version() -> str:
    """The core's version."""

def build() -> str:
    """A hash of the core's Rust sources at build time."""

# The scenario loader's unit parsers (crates/dcnsim/src/units.rs): exact
# integers in base units; ``ValueError`` with the loader's reason text.

def parse_time(text: str) -> int:
    """``"50us"`` -> 50_000_000 (picoseconds); a bare number is an error."""

def parse_rate(text: str) -> int:
    """``"1Gbps"`` -> 1_000_000_000 (bit/s, decimal prefixes); must be > 0."""

def parse_size(text: str) -> int:
    """``"32KB"`` -> 32768 (bytes, KB = 1024 B); a bare number is bytes."""

def parse_size_si(text: str) -> int:
    """``"100KB"`` -> 100_000 (bytes, KB = 1000 B; KiB stays 1024 B)."""

def parse_count(text: str) -> int:
    """``"20"``, ``"20pkt"``, ``"20 segments"`` -> 20."""

def parse_limit(text: str) -> Tuple[int, str]:
    """A queue limit: ``"100pkt"`` -> ``(100, "packets")``, ``"32KB"`` -> ``(32768, "bytes")``."""

def jain(values: List[float]) -> float:
    """Jain's fairness index ``(Σx)² / (n·Σx²)``; NaN for no values or all zeros."""
