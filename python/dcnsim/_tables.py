"""A results directory's tables as `dcnsim run --out` and sweeps write them:
``<name>.csv`` or ``<name>.parquet``. A write removes the other format's
tables of the run it replaces (:meth:`dcnsim.Result.write`), so a complete
run holds each table in one format; this is the one place that finds and
reads them (the paper analyses and the incast model beside a run used to
look in opposite orders, one raising and one returning None)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

PathLike = Union[str, "os.PathLike[str]"]


def table_file(d: PathLike, name: str) -> Optional[Path]:
    """The file holding table ``name`` of the run in ``d``: its CSV, else
    its Parquet; None when it has neither."""
    for ext in (".csv", ".parquet"):
        p = Path(d) / f"{name}{ext}"
        if p.is_file():
            return p
    return None


def read_table(d: PathLike, name: str, columns: Optional[Sequence[str]] = None) -> Any:
    """Table ``name`` of the run in ``d`` as a DataFrame; ``columns``: only
    these (the others are not parsed). FileNotFoundError when the run has
    no such table."""
    import pandas as pd

    p = table_file(d, name)
    if p is None:
        raise FileNotFoundError(f"{d}: no {name}.csv or {name}.parquet")
    cols = None if columns is None else list(columns)
    return pd.read_csv(p, usecols=cols) if p.suffix == ".csv" else pd.read_parquet(p, columns=cols)


def read_table_or_none(d: PathLike, name: str) -> Any:
    """:func:`read_table`, or None when the run has no such table (a table
    the core writes only when it records something, as ``losses``)."""
    return None if table_file(d, name) is None else read_table(d, name)
