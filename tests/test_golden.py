"""Golden outputs: a hash of every table of a few small scenarios, so a
change of behaviour — intended or not — shows up in review.

The hashes live in tests/data/golden/hashes.json. When a change of
behaviour is intended, regenerate them with one command and say so in the
commit message:

    python tests/test_golden.py --update

Hashes cover every column of every table and the summary (physics only:
the wall time is in ``Result.timing``), with floats written exactly (repr)
and counts as integers, so any change of any number counts."""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import dcnsim
import pytest

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # run as a script (--update)
    pass

GOLDEN = Path(__file__).parent / "data" / "golden"
HASHES = GOLDEN / "hashes.json"


def _plain(v):
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    if hasattr(v, "item"):  # numpy scalar
        return _plain(v.item())
    return v


def table_hashes(path: Path) -> dict:
    r = dcnsim.run(path)
    out = {}
    for name in sorted(r.tables):
        df = r.tables[name]
        cols = {c: [_plain(x) for x in df[c].tolist()] for c in df.columns}
        out[name] = hashlib.sha256(json.dumps(cols, sort_keys=True).encode()).hexdigest()
    summary = {k: _plain(v) for k, v in r.summary.items()}
    out["summary"] = hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()
    return out


def scenarios():
    return sorted(GOLDEN.glob("*.toml"))


def current() -> dict:
    return {p.stem: table_hashes(p) for p in scenarios()}


@pytest.mark.parametrize("path", scenarios(), ids=lambda p: p.stem)
def test_golden_tables_unchanged(path):
    want = json.loads(HASHES.read_text())[path.stem]
    got = table_hashes(path)
    changed = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    assert not changed, (
        f"{path.name}: tables {changed} changed. If the change of behaviour is intended, run "
        "`python tests/test_golden.py --update` and say so in the commit message.")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_golden.py --update   (rewrites tests/data/golden/hashes.json)")
    HASHES.write_text(json.dumps(current(), indent=2, sort_keys=True) + "\n")
    print(f"wrote {HASHES} for {', '.join(p.stem for p in scenarios())} (core {dcnsim.core_id()})")
