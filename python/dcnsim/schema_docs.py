"""The scenario schema's consumers, generated from it or checked against it.

The core declares the schema once (``crates/dcnsim/src/scenario/schema.rs``) and
exports it as JSON Schema (``_core.schema()``, ``dcnsim schema``). From it:

* the key tables of ``docs/scenario.md`` are generated into marked regions;
* the builders of :mod:`dcnsim.scenario` are checked: the same keys, and
  Python types that match what the schema accepts.

Usage::

    python -m dcnsim.schema_docs           # print the generated tables
    python -m dcnsim.schema_docs --write   # rewrite docs/scenario.md's regions
    python -m dcnsim.schema_docs --check   # exit 1 if docs or builders drifted

``tests/test_schema.py`` runs the check, so CI fails when they drift.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

#: docs/scenario.md regions: region name -> the schema definition it tables.
REGIONS: Dict[str, str] = {
    "document": "",
    "tcp": "TcpSection",
}

#: builder class (in dcnsim.scenario) -> (the schema definition of its
#: table, whether its field types are checked too: the ``Scenario`` builder
#: takes shorthands such as ``routing="rps"``, so only its keys are).
BUILDERS: Dict[str, Tuple[str, bool]] = {
    "Scenario": ("", False),
    "Tcp": ("TcpSection", True),
    "Bulk": ("BulkApp", False),
    "PartitionAggregate": ("PartitionAggregateApp", False),
    "SyncReads": ("SyncReadsApp", False),
    "UdpCbr": ("UdpCbrApp", False),
    "Poisson": ("PoissonApp", False),
    "Star": ("StarTopology", True),
    "TwoTier": ("TwoTierTopology", True),
    "FatTree": ("FatTreeTopology", True),
    "LeafSpine": ("LeafSpineTopology", True),
    "Custom": ("CustomTopology", True),
    "Node": ("NodeSection", True),
    "Link": ("LinkSection", True),
    "Pfc": ("PfcSection", True),
}

#: the docs of the source tree this module is in (an editable install, or
#: PYTHONPATH=python); an installed copy has none beside it
DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenario.md"


def default_docs() -> Path:
    """docs/scenario.md of this module's source tree, else of the current
    directory (``pip install .`` puts the module in site-packages, away from
    the clone it was installed from)."""
    here = Path("docs") / "scenario.md"
    return DOCS if DOCS.is_file() or not here.is_file() else here

_JSON_TO_PY = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict, "array": list}


def begin_marker(name: str) -> str:
    return f"<!-- BEGIN GENERATED {name}: python -m dcnsim.schema_docs --write -->"


def end_marker(name: str) -> str:
    return f"<!-- END GENERATED {name} -->"


def load_schema() -> Dict[str, Any]:
    """The core's JSON Schema, parsed."""
    from . import _core

    return json.loads(_core.schema())


def _resolve(prop: Dict[str, Any], defs: Dict[str, Any]) -> Dict[str, Any]:
    ref = prop.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        return {**defs[ref[len("#/$defs/"):]], **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _definition(schema: Dict[str, Any], definition: str) -> Dict[str, Any]:
    """A ``$defs`` entry, or the root (the document) for ``""``."""
    return schema["$defs"][definition] if definition else schema


def table(schema: Dict[str, Any], definition: str) -> str:
    """The markdown key table of one schema definition, in declaration order:
    key, type (the value kind's ``title``), default (``x-default``), meaning."""
    defs = schema["$defs"]
    props = _definition(schema, definition)["properties"]
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, prop in props.items():
        p = _resolve(prop, defs)
        cells = [f"`{key}`", p.get("title", ""), str(p.get("x-default", "")), p.get("description", "")]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def render(text: str, schema: Dict[str, Any]) -> str:
    """``text`` (docs/scenario.md) with every generated region rewritten."""
    for name, definition in REGIONS.items():
        begin, end = begin_marker(name), end_marker(name)
        i, j = text.find(begin), text.find(end)
        if i < 0 or j < i:
            raise ValueError(f"docs/scenario.md has no region {begin!r} ... {end!r}")
        text = text[: i + len(begin)] + "\n" + table(schema, definition) + "\n" + text[j:]
    return text


def schema_types(prop: Dict[str, Any], defs: Dict[str, Any]) -> Set[type]:
    """The Python types of the JSON values the schema accepts for a key."""
    p = _resolve(prop, defs)
    types = p.get("type", [])
    if isinstance(types, str):
        types = [types]
    return {_JSON_TO_PY[t] for t in types if t in _JSON_TO_PY}


def annotation_types(hint: Any) -> Set[type]:
    """``Optional[Union[str, int]]`` -> ``{str, int}``."""
    if typing.get_origin(hint) is typing.Union:
        out: Set[type] = set()
        for a in typing.get_args(hint):
            out |= annotation_types(a)
        return out
    if hint is type(None):
        return set()
    origin = typing.get_origin(hint)
    return {origin if isinstance(origin, type) else hint}


def builder_problems(schema: Dict[str, Any]) -> List[str]:
    """Every difference between the builders' fields and the schema."""
    from . import scenario

    defs = schema["$defs"]
    out: List[str] = []
    for cls_name, (definition, check_types) in BUILDERS.items():
        cls = getattr(scenario, cls_name)
        # In scenario's namespace: the builders' base (_document._Builder) names
        # ClassVar, which _document imports only for type checkers (so that
        # `dcnsim --version` never loads typing).
        hints = typing.get_type_hints(cls, globalns=vars(scenario))
        fields = [f.name for f in dataclasses.fields(cls) if f.name != "extra"]
        props = dict(_definition(schema, definition)["properties"])
        definition = definition or "the document"
        kind = props.pop("kind") if "const" in props.get("kind", {}) else None
        if kind is not None and kind.get("const") != getattr(cls, "_kind", None):
            out.append(f"{cls_name}: kind {getattr(cls, '_kind', None)!r}, the schema's is {kind.get('const')!r}")
        for key in props:
            if key not in fields:
                out.append(f"{cls_name}: no field for schema key '{key}' ({definition})")
        for f in fields:
            if f not in props:
                out.append(f"{cls_name}.{f}: not a key of {definition}")
                continue
            want, got = schema_types(props[f], defs), annotation_types(hints[f])
            if check_types and want != got:
                names = lambda ts: sorted(t.__name__ for t in ts)  # noqa: E731
                out.append(f"{cls_name}.{f}: annotated {names(got)}, the schema accepts {names(want)}")
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcnsim.schema_docs", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the generated regions of the docs")
    ap.add_argument("--check", action="store_true", help="exit 1 if the docs or the builders drifted")
    ap.add_argument("--docs", type=Path, default=None,
                    help="the scenario docs (default: docs/scenario.md of the source tree, else of the current directory)")
    args = ap.parse_args(argv)
    schema = load_schema()
    if not (args.write or args.check):
        for name, definition in REGIONS.items():
            print(f"{begin_marker(name)}\n{table(schema, definition)}\n{end_marker(name)}\n")
        return 0
    docs = args.docs or default_docs()
    try:
        text = docs.read_text(encoding="utf-8")
    except OSError as e:
        print(f"schema_docs: cannot read {docs} ({e.strerror or e}): run from the clone's root, "
              "or give --docs PATH", file=sys.stderr)
        return 2
    args.docs = docs
    new = render(text, schema)
    if args.write:
        if new != text:
            args.docs.write_text(new, encoding="utf-8")
            print(f"{args.docs}: regions rewritten")
        return 0
    problems = builder_problems(schema)
    if new != text:
        problems.append(f"{args.docs}: generated tables are stale; run python -m dcnsim.schema_docs --write")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
