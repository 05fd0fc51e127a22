"""Golden outputs: every table of a few small scenarios, so a change of
behaviour — intended or not — shows up in review.

Two records live in tests/data/golden: a hash of every table
(hashes.json) and a CSV snapshot of every table (<scenario>/<table>.csv,
plus summary.csv). The hashes are the compact record; the snapshots are
what a failure reads to say which rows moved, and what a reviewer reads in
the diff of a change that moves them. When a change of behaviour is
intended, regenerate both with one command and say so in the commit
message:

    python tests/test_golden.py --update

Both cover every column of every table and the summary (physics only: the
wall time is in ``Result.timing``), with floats written exactly (repr) and
counts as integers, so any change of any number counts."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import sys
from pathlib import Path

import dcnsim
import pandas as pd
import pytest

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # run as a script (--update)
    pass

GOLDEN = Path(__file__).parent / "data" / "golden"
HASHES = GOLDEN / "hashes.json"

# The columns that name a row in a diff ("flows flow_id=3"). A table not
# listed (losses: one row per event) is named by all its columns, so a
# moved event reads as one row gone and one row new.
ROW_KEYS = {
    "flows": ("flow_id",),
    "queues": ("queue_id",),
    "queue_inputs": ("queue_id", "input_queue_id"),
    "queries": ("app", "query"),
    "blocks": ("app", "block"),
    "summary": ("key",),
}
# A failure lists at most this many rows per table; the rest are counted.
MAX_ROWS_SHOWN = 12


def _plain(v):
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    if hasattr(v, "item"):  # numpy scalar
        return _plain(v.item())
    return v


def table_hashes(r) -> dict:
    out = {}
    for name in sorted(r.tables):
        df = r.tables[name]
        cols = {c: [_plain(x) for x in df[c].tolist()] for c in df.columns}
        out[name] = hashlib.sha256(json.dumps(cols, sort_keys=True).encode()).hexdigest()
    summary = {k: _plain(v) for k, v in r.summary.items()}
    out["summary"] = hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()
    return out


def snapshot(r) -> dict[str, list[list[str]]]:
    """Every table as rows of text (header first), values written as the
    hashes see them; the summary as a two-column key/value table."""
    out = {}
    for name in sorted(r.tables):
        df = r.tables[name]
        rows = zip(*(df[c].tolist() for c in df.columns))
        out[name] = [list(df.columns)] + [[str(_plain(x)) for x in row] for row in rows]
    out["summary"] = [["key", "value"]] + [[k, str(_plain(v))] for k, v in sorted(r.summary.items())]
    return out


def _csv_text(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def write_snapshot(folder: Path, snap: dict[str, list[list[str]]]) -> None:
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.csv"):
        if old.stem not in snap:
            old.unlink()
    for name, rows in snap.items():
        (folder / f"{name}.csv").write_text(_csv_text(rows))


def read_snapshot(folder: Path) -> dict[str, list[list[str]]]:
    return {p.stem: list(csv.reader(io.StringIO(p.read_text()))) for p in sorted(folder.glob("*.csv"))}


def _keyed(table: str, rows: list[list[str]]) -> tuple[list[str], dict[str, dict[str, str]]]:
    """(header, row label -> {column: value}); labels keep the table's order."""
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    key_cols = [c for c in ROW_KEYS.get(table, ()) if c in header] or header
    out: dict[str, dict[str, str]] = {}
    for row in body:
        rec = dict(zip(header, row))
        label = " ".join(f"{c}={rec.get(c, '')}" for c in key_cols)
        n, base = 2, label
        while label in out:  # a repeated row stays a row of its own
            label, n = f"{base} (#{n})", n + 1
        out[label] = rec
    return header, out


def diff_table(table: str, want: list[list[str]], got: list[list[str]]) -> list[str]:
    """Lines saying how one table moved: columns added or gone, rows gone,
    rows new, and for each row present in both the columns that changed
    (old -> new). Empty when the table is the same."""
    want_header, want_rows = _keyed(table, want)
    got_header, got_rows = _keyed(table, got)
    lines = []
    if want_header != got_header:
        gone = [c for c in want_header if c not in got_header]
        new = [c for c in got_header if c not in want_header]
        lines.append(f"  columns: gone {gone}, new {new}" if gone or new else "  columns reordered")
    rows = []
    for label, rec in want_rows.items():
        if label not in got_rows:
            rows.append(f"  - {label}: row gone")
            continue
        other = got_rows[label]
        moved = [f"{c} {rec.get(c)} -> {other.get(c)}"
                 for c in dict.fromkeys([*want_header, *got_header]) if rec.get(c) != other.get(c)]
        if moved:
            rows.append(f"  ~ {label}: " + ", ".join(moved))
    rows += [f"  + {label}: new row" for label in got_rows if label not in want_rows]
    if len(rows) > MAX_ROWS_SHOWN:
        rows = rows[:MAX_ROWS_SHOWN] + [f"  ... and {len(rows) - MAX_ROWS_SHOWN} more rows"]
    if not lines and not rows and want != got:
        rows.append("  rows reordered")
    return lines + rows


def diff_snapshots(want: dict[str, list[list[str]]], got: dict[str, list[list[str]]]) -> str:
    """A readable account of every table that moved; empty when none did."""
    out = []
    for table in sorted(set(want) | set(got)):
        if table not in want:
            out.append(f"{table}: new table ({len(got[table]) - 1} rows)")
        elif table not in got:
            out.append(f"{table}: table gone")
        elif want[table] != got[table]:
            out.append(f"{table}: {len(want[table]) - 1} rows -> {len(got[table]) - 1} rows")
            out += diff_table(table, want[table], got[table])
    return "\n".join(out)


def scenarios():
    return sorted(GOLDEN.glob("*.toml"))


@pytest.mark.parametrize("path", scenarios(), ids=lambda p: p.stem)
def test_golden_tables_unchanged(path):
    r = dcnsim.run(path)
    want_hashes = json.loads(HASHES.read_text())[path.stem]
    got_hashes = table_hashes(r)
    changed = sorted(k for k in set(want_hashes) | set(got_hashes) if want_hashes.get(k) != got_hashes.get(k))
    diff = diff_snapshots(read_snapshot(GOLDEN / path.stem), snapshot(r))
    head = f"tables {changed} changed" if changed else "hashes equal but the snapshot differs (stale snapshot?)"
    assert not changed and not diff, (
        f"{path.name}: {head}; what moved, against tests/data/golden/{path.stem}/*.csv:\n"
        f"{diff or '  (snapshots equal: only the hashes differ)'}\n"
        "If the change of behaviour is intended, run `python tests/test_golden.py --update` and "
        "say so in the commit message.")


def test_a_moved_table_names_its_rows():
    """The failure message of a golden test names the rows that moved and
    the columns in them, not just the table: perturb a real run's tables
    (one flow's retransmits, one loss event gone, one queue new) and read
    the account against the committed snapshot."""
    path = GOLDEN / "star_incast.toml"
    r = dcnsim.run(path)
    want = read_snapshot(GOLDEN / path.stem)
    assert diff_snapshots(want, snapshot(r)) == ""

    flows = r.tables["flows"]
    i = flows.index[flows["flow_id"] == 3][0]
    old = int(flows.at[i, "retransmits"])
    flows.at[i, "retransmits"] = old + 1
    losses = r.tables["losses"]
    lost = {c: losses[c].tolist()[5] for c in losses.columns}
    r.tables["losses"] = losses.drop(index=losses.index[5])
    extra = r.tables["queues"].iloc[[0]].copy()
    extra["queue_id"] = 999
    r.tables["queues"] = pd.concat([r.tables["queues"], extra])
    msg = diff_snapshots(want, snapshot(r))

    assert f"~ flow_id=3: retransmits {old} -> {old + 1}" in msg, msg
    assert "flow_id=4" not in msg, msg  # an untouched row is not named
    gone = f"time_s={_plain(lost['time_s'])} flow_id={lost['flow_id']} kind={lost['kind']}: row gone"
    assert gone in msg, msg
    assert "+ queue_id=999: new row" in msg, msg
    assert f"losses: {len(losses)} rows -> {len(losses) - 1} rows" in msg, msg
    assert "blocks" not in msg and "summary" not in msg, msg


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_golden.py --update   (rewrites tests/data/golden/hashes.json "
                 "and the CSV snapshots beside it)")
    hashes = {}
    for p in scenarios():
        r = dcnsim.run(p)
        hashes[p.stem] = table_hashes(r)
        write_snapshot(GOLDEN / p.stem, snapshot(r))
    HASHES.write_text(json.dumps(hashes, indent=2, sort_keys=True) + "\n")
    print(f"wrote {HASHES} and the CSV snapshots for {', '.join(p.stem for p in scenarios())} "
          f"(core {dcnsim.core_id()})")
