"""A doc's command line that says how many simulations a quick
reproduction runs says what `dcnsim reproduce --list` counts (a figure's
points changed and `rps --quick` went from 244 to 277 under a stale comment)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINE = re.compile(r"dcnsim reproduce (\w+) --quick[^#\n]*#\s*([\d,]+) simulations")


def quoted():
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for key, n in LINE.findall(doc.read_text(encoding="utf-8")):
            yield doc.name, key, int(n.replace(",", ""))


@pytest.mark.parametrize("doc, key, n", list(quoted()))
def test_a_quoted_quick_count_is_the_papers(doc, key, n):
    from dcnsim.experiments.framework import _collect
    from dcnsim.experiments.registry import get_paper

    p = get_paper(key)
    assert len(_collect(p.figures, True)[0]) == n, f"{doc}: reproduce {key} --quick"


def test_the_pattern_finds_the_quoted_counts():
    assert any(key == "rps" for _, key, _ in quoted())
