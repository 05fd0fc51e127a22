"""Every relative link in the README and docs/ reaches a file of the
repository, and every #anchor a heading of the file it names (as GitHub
makes a heading's anchor): a renamed heading must not leave a reader at
the top of a long page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "validation" / "README.md"]
# [text](target): not images' sources, not code spans
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def _prose(text: str) -> str:
    """The text outside fenced code blocks and inline code."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation
    dropped (not hyphens), each space a hyphen."""
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    s = s.strip().lower().replace("`", "").replace("*", "")
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path: Path) -> set:
    seen: dict = {}
    out = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and not fenced:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    out.update(re.findall(r'<a (?:name|id)="([^"]+)"', path.read_text(encoding="utf-8")))
    return out


def test_the_slug_is_githubs():
    assert slug("Flatness: cost per hop from k = 8 to k = 16 and 32") == \
        "flatness-cost-per-hop-from-k--8-to-k--16-and-32"
    assert slug("`dcnsim run`: the summary") == "dcnsim-run-the-summary"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_reaches_its_file_and_heading(doc):
    bad = []
    for target in LINK.findall(_prose(doc.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            bad.append(f"{target}: no file {dest.relative_to(REPO) if REPO in dest.parents else dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading with anchor #{anchor} in {dest.relative_to(REPO)}")
    assert not bad, "\n".join(bad)


# a source path a page names in code: `crates/dcnsim/tests/pfc.rs`, `tests/test_golden.py`
CODE_PATH = re.compile(r"`((?:crates|python|tests|benchmarks|validation|scenarios)/[A-Za-z0-9_./-]+\.(?:rs|py|toml))`")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_source_file_a_page_names_exists(doc):
    """A path in code (`tests/pfc.rs`) is one a reader copies into a shell
    or an editor: twenty named Rust test files under the top-level
    tests/, which holds pytest files only (they are in
    crates/dcnsim/tests/)."""
    missing = sorted({m for m in CODE_PATH.findall(doc.read_text(encoding="utf-8"))
                      if "*" not in m and not (REPO / m).exists()})
    assert not missing, f"{doc.name} names files that do not exist: {missing}"
