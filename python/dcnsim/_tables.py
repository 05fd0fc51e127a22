"""A results directory's tables as `dcnsim run --out` and sweeps write them:
``<name>.csv`` or ``<name>.parquet``. A write removes the other format's
tables of the run it replaces (:meth:`dcnsim.Result.write`), so a complete
run holds each table in one format; this is the one place that finds and
reads them (the paper analyses and the incast model beside a run used to
look in opposite orders, one raising and one returning None), and the one
check of the columns a function reads from a table it is given
(:func:`need_columns`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

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


def need_columns(data: Any, where: str, columns: Mapping[str, Union[str, Sequence[str], None]], *,
                 arg: str = "data", fix: Optional[str] = None) -> None:
    """Refuse a table without the columns ``where`` (a function's name)
    reads, naming them and the argument that asked for them: pandas' own
    KeyError names neither. ``columns`` maps each argument (``x``, ``y``; or
    the table's own, ``flows``) to the column it names, or to the several
    columns it needs; ``None`` (an argument not given) asks for nothing.
    The first argument with a column missing is reported, with every
    column of it missing and, for one, the column meant when one is close
    (``did you mean 'goodput_mbps'?``); ``fix`` says what to pass instead,
    else the table's columns are listed. Something that is not a table at
    all (no ``columns``: a dict, a list) is a TypeError naming ``arg``."""
    have = getattr(data, "columns", None)
    if have is None:
        raise TypeError(f"{where}: {arg}: expected a table (a pandas DataFrame), got {type(data).__name__}")
    names = [str(c) for c in have]
    for role, wanted in columns.items():
        if wanted is None:
            continue
        cols = [wanted] if isinstance(wanted, str) else list(wanted)
        missing = [c for c in cols if c not in have]
        if not missing:
            continue
        import difflib

        close = difflib.get_close_matches(str(missing[0]), names, n=1) if len(missing) == 1 else []
        text = f"{where}: {role}: the table has no column {', '.join(map(repr, missing))}"
        if close:
            text += f" (did you mean {close[0]!r}?)"
        if fix is not None:
            text += f": {fix}"
        elif not close:
            text += f" (its columns: {', '.join(names)})"
        raise KeyError(text)
