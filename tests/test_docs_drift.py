"""docs/python.md's command reference against the code it documents: every
option of every command is in its heading, every bench scenario is in the
bench table, every paper is named under `reproduce`. Lists a user reads
cannot fall behind the parser, the bench registry or the paper registry."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from dcnsim import bench
from dcnsim.cli import build_parser
from dcnsim.experiments import paper_keys

DOC = (Path(__file__).resolve().parent.parent / "docs" / "python.md").read_text(encoding="utf-8")


def _sections() -> dict:
    """`### \\`dcnsim CMD ...\\`` heading -> (heading text, body)."""
    out = {}
    parts = re.split(r"^### `(dcnsim [^`]*)`\s*$", DOC, flags=re.M)
    for head, body in zip(parts[1::2], parts[2::2]):
        words = head.split()
        cmd = " ".join(words[1:3]) if words[1] == "model" else words[1]
        out[cmd] = (head, body.split("\n## ")[0])
    return out


def _commands(parser: argparse.ArgumentParser) -> dict:
    """command name ("run", "model dctcp") -> its subparser."""
    found = {}
    for action in parser._actions:  # argparse has no public walk
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = _commands(sub)
                found.update({f"{name} {k}": v for k, v in nested.items()} if nested else {name: sub})
    return found


def test_every_command_and_option_is_documented():
    sections = _sections()
    for cmd, sub in _commands(build_parser()).items():
        if cmd == "schema":
            continue  # no options
        assert cmd in sections, f"docs/python.md has no '### `dcnsim {cmd} ...`' section"
        head = sections[cmd][0]
        for action in sub._actions:
            if action.help == argparse.SUPPRESS or not action.option_strings or "-h" in action.option_strings:
                continue
            assert any(o in head for o in action.option_strings), f"`dcnsim {cmd}` heading lacks {action.option_strings}"


def test_every_bench_scenario_is_in_the_table():
    body = _sections()["bench"][1]
    for name in list(bench.SCENARIOS) + list(bench.GROUPS):
        assert f"`{name}`" in body, f"bench scenario {name} missing from docs/python.md"


def test_every_paper_is_named_under_reproduce():
    body = _sections()["reproduce"][1]
    for key in paper_keys():
        assert f"`{key}`" in body, f"paper {key} missing from docs/python.md"
