"""`--set` values as `run`, `sweep` and `tune` read them: an empty value is
refused naming the field (the empty string is `""`), a negative list index
is refused naming the field in every command, and a table as the value
replaces the file's table whole, as docs/python.md says where `--set` is
documented."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, needs_core
from dcnsim.cli import main

TUNE = ROOT / "scenarios" / "tune" / "kulkarni_probretx.toml"


def _refused(argv, capsys) -> str:
    """The argparse error ``argv`` gives (exit 2), as one line."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("value", ["", "  "])
def test_run_refuses_an_empty_value_naming_the_field(small_incast_path, capsys, value):
    err = _refused(["run", str(small_incast_path), "--set", f"name={value}"], capsys)
    assert err.startswith("dcnsim run: error: argument --set: name: no value after ="), err
    assert "name='\"\"'" in err, err


def test_sweep_refuses_an_empty_value_among_several(small_incast_path, tmp_path, capsys):
    err = _refused(["sweep", str(small_incast_path), "--set", "name=a,", "--out", str(tmp_path / "sw")], capsys)
    assert err.startswith("dcnsim sweep: error: argument --set: name: value 2 of 2 is empty"), err
    err = _refused(["sweep", str(small_incast_path), "--set", "name=", "--out", str(tmp_path / "sw")], capsys)
    assert err.startswith("dcnsim sweep: error: argument --set: name: no value after ="), err
    assert not (tmp_path / "sw").exists()


@pytest.mark.parametrize("flag", ["--set", "--baseline", "--reference"])
def test_tune_refuses_an_empty_value(tmp_path, capsys, flag):
    err = _refused(["tune", str(TUNE), "--param", "tcp.probretx_p=0:1", flag, "tcp.probretx_p=",
                    "--out", str(tmp_path / "t")], capsys)
    assert err.startswith(f"dcnsim tune: error: argument {flag}: tcp.probretx_p: no value after ="), err


@needs_core
def test_the_empty_string_written_as_toml_is_still_a_value(small_incast_path, tmp_path, capsys):
    assert main(["run", str(small_incast_path), "--set", 'name=""', "--set", "stop=1ms",
                 "--out", str(tmp_path / "r")]) == 0
    assert json.loads((tmp_path / "r" / "scenario.json").read_text())["name"] == ""
    capsys.readouterr()
    assert main(["sweep", str(small_incast_path), "--set", 'name=a,""', "--set", "stop=1ms", "--no-progress",
                 "--jobs", "1", "--out", str(tmp_path / "sw")]) == 0
    names = sorted(json.loads(p.read_text())["name"] for p in (tmp_path / "sw").glob("*/scenario.json"))
    assert names == ["", "a"]


def test_a_negative_index_is_refused_naming_the_field_in_sweep_and_tune(small_incast_path, tmp_path, capsys):
    said = "apps[-1].blocks: [-1]: a list index counts from 0"
    assert main(["sweep", str(small_incast_path), "--set", "apps[-1].blocks=1,2", "--out", str(tmp_path / "s")]) == 2
    assert said in capsys.readouterr().err
    assert main(["tune", str(TUNE), "--set", "apps[-1].blocks=2", "--param", "tcp.probretx_p=0:1",
                 "--out", str(tmp_path / "t")]) == 2
    assert said in capsys.readouterr().err


def test_a_negative_index_in_the_dotted_spelling_is_refused_alike(small_incast_path, tmp_path, capsys):
    """apps.-1 is apps[-1] spelt with a dot: the same refusal, not "no
    element -1"."""
    assert main(["run", str(small_incast_path), "--set", "apps.-1.blocks=2", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "apps.-1.blocks: -1: a list index counts from 0" in err and "no element" not in err


@needs_core
def test_a_table_value_replaces_the_files_table_whole(small_incast_path, tmp_path):
    assert main(["run", str(small_incast_path), "--set", "tcp={sack = true}", "--set", "stop=1ms",
                 "--out", str(tmp_path / "r")]) == 0
    # the file's mss, rto_min and rwnd are gone: replaced, not merged
    assert json.loads((tmp_path / "r" / "scenario.json").read_text())["tcp"] == {"sack": True}


def test_the_run_docs_say_a_table_value_replaces_the_table():
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    run = text.split("### `dcnsim run FILE", 1)[1].split("\n### ", 1)[0]
    flat = re.sub(r"\s+", " ", run)
    assert "`--set 'tcp={}'` puts every `[tcp]` key back to its default" in flat
    assert "`--set name=` (an unset shell variable) is refused" in flat
    sweep = re.sub(r"\s+", " ", text.split("### `dcnsim sweep FILE", 1)[1].split("\n### ", 1)[0])
    assert "a table value replaces the table whole" in sweep
