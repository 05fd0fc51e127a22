"""Type stubs for the Rust extension ``dcnsim._core`` (crates/dcnsim-py).

The contract: scenarios go in as JSON text (the TOML document of
docs/scenario.md converted to JSON); results come back as plain columns.
"""

from typing import Dict, List, Optional, Tuple, TypedDict, Union

__all__ = ["build", "flow_size_cdf", "run", "schema", "validate", "version"]

# Stub-only names (underscored, so `mypy.stubtest` knows they have no
# runtime counterpart): the shape of what `run` returns.
_Column = Union[List[int], List[float], List[str], List[bool]]
_Table = Dict[str, _Column]

class _RunOutput(TypedDict):
    #: ``flows``, ``queues``, and when the scenario has them ``queries``
    #: (partition_aggregate) and ``blocks`` (sync_reads); column -> values.
    tables: Dict[str, _Table]
    #: seed, events, packet_hops, sim_time_s, wall_s, packets_created,
    #: packets_delivered, packets_dropped, packets_in_flight (+ extras)
    summary: Dict[str, float]
    #: pcap traces asked for by the scenario's ``pcap`` table: file name -> bytes
    pcaps: Dict[str, bytes]
    #: which core produced the tables: ``version`` and ``build`` (source hash)
    core: Dict[str, str]

def validate(scenario_json: str) -> List[str]:
    """Every problem of the scenario, each ``"field.path: reason"``; ``[]`` = valid."""

def run(scenario_json: str, seed: Optional[int] = None) -> _RunOutput:
    """Run the scenario (``seed`` overrides its ``seed``).

    Raises ``ValueError`` (message: the problems, joined) if it is invalid."""

def schema() -> str:
    """The scenario schema (JSON Schema, draft 2020-12) as JSON text."""

def flow_size_cdf(table_json: str) -> Tuple[str, str, List[Tuple[float, float]], float]:
    """A flow-size CDF from a JSON table ``{"cdf": ...}`` or ``{"cdf_file": ...}``
    (plus ``"sampling"``): ``(name, sampling, points, mean_bytes)``.

    Raises ``ValueError`` (message: the problems, one per line) if invalid."""

def version() -> str:
    """The core's version."""

def build() -> str:
    """A hash of the core's Rust sources at build time."""
