"""The JSON Schema (`dcnsim schema`) an editor checks a scenario with
accepts every shipped scenario, and refuses the values it can express that
`dcnsim validate` refuses (a threads word other than "auto", an empty or
repeated host list, a seed of 64 bits or more): it is looser than the core
only where a value's meaning needs the rest of the document."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import dcnsim
import jsonschema
import pytest
from conftest import needs_core

pytestmark = needs_core

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def validator():
    from dcnsim import _core

    schema = json.loads(_core.schema())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", sorted((REPO / "scenarios").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_scenario_meets_the_schema(validator, path):
    errors = [e.message for e in validator.iter_errors(dcnsim.load_scenario(path))]
    assert not errors, errors


BASE = dcnsim.load_scenario(REPO / "scenarios" / "kulkarni_incast.toml")


def _with(path: str, value):
    doc = copy.deepcopy(BASE)
    *head, last = path.split(".")
    node = doc
    for k in head:
        node = node[int(k)] if k.isdigit() else node[k]
    node[last] = value
    return doc


@pytest.mark.parametrize("path, value", [
    ("threads", "abc"),
    ("threads", "autos"),
    ("apps.0.servers", []),
    ("apps.0.servers", [1, 1]),
    ("apps.0.servers", "1..16"),
    ("seed", 2**64),
    ("tcp.abc_limit", "lots"),
    ("l2_overhead", 65_536),  # the schema said at most 2^32 - 1, its text and the core 65,535
])
def test_a_value_the_core_refuses_the_schema_refuses(validator, path, value):
    doc = _with(path, value)
    assert list(validator.iter_errors(doc)), f"the schema took {path} = {value!r}"
    assert dcnsim.validate(doc), f"the core took {path} = {value!r}"


@pytest.mark.parametrize("path, value", [
    ("threads", "AUTO"), ("threads", 2), ("apps.0.servers", "1 - 16"), ("apps.0.servers", [3, 1, 2]),
    ("seed", 2**64 - 1), ("tcp.abc_limit", "Unlimited"), ("l2_overhead", 65_535),
])
def test_a_value_the_core_takes_the_schema_takes(validator, path, value):
    doc = _with(path, value)
    assert not dcnsim.validate(doc), f"the core refused {path} = {value!r}"
    assert not list(validator.iter_errors(doc)), f"the schema refused {path} = {value!r}"
