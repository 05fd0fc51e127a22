"""What README.md and docs/python.md show of dcnsim's output is what it
prints: the example error messages, the result tables, `dcnsim bench`'s
columns, and the warnings of the README's suggested `--set` variants."""

from __future__ import annotations

import re
from pathlib import Path

import dcnsim
from conftest import needs_core
from dcnsim import bench, cli
from dcnsim.result import TABLE_SCHEMA
from dcnsim.scenario import with_overrides

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_MD = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")


@needs_core
def test_python_md_quotes_real_error_messages():
    star = {"kind": "fat_tree", "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"}
    odd = dcnsim.validate({"topology": {**star, "k": 5}, "apps": []})
    far = dcnsim.validate({"topology": {**star, "k": 4}, "apps": [
        {"kind": "sync_reads", "client": 0, "servers": [1, 2, 3, 99], "sru": "1KB", "blocks": 1}]})
    flat = " ".join(PYTHON_MD.split())  # the docs wrap lines
    for p in (odd[0], far[0]):
        assert f"`{p}`" in flat


def test_readme_names_every_result_table():
    start = README.index("Results: `flows`")
    listed = set(re.findall(r"`(\w+)`", README[start:README.index("\n\n", start)]))
    assert set(TABLE_SCHEMA) - listed == set()


def test_bench_headers_are_the_json_keys(monkeypatch, capsys):
    def fake(name, repeat=1, threads=None):
        rec = {k: 1 for k in bench.KEYS}
        return {**rec, "scenario": name, "wall_s": 1.0, "sim_s": 1.0, "events_per_s": 1.0,
                "packet_hops_per_s": 1.0, "peak_rss_mb": 1.0, "threads": 1}

    monkeypatch.setattr(bench, "run_one", fake)
    assert cli.main(["bench", "--scenario", "longflows_64"]) == 0
    # the table's header under the line naming the machine (dcnsim.machine)
    machine_line, header = capsys.readouterr().out.splitlines()[:2]
    assert machine_line.startswith("machine: ")
    assert header.split() == list(bench.KEYS) + ["threads"]


@needs_core
def test_readme_says_when_a_suggested_variant_warns():
    # each `--set` a README run line suggests (in its comment) is a variant
    # of that line's command; one that warns must say so, or the reader
    # takes the warning for a mistake of theirs
    for line in README.splitlines():
        m = re.match(r"dcnsim run (scenarios/\S+\.toml)([^#]*)#(.*)$", line)
        if not m:
            continue
        base = dict(cli.set_pair(s) for s in re.findall(r"--set (\S+)", m.group(2)))
        for variant in re.findall(r"--set (\S+?)[,:;)]?(?:\s|$)", m.group(3)):
            doc = with_overrides(ROOT / m.group(1), {**base, **dict([cli.set_pair(variant)])})
            problems = dcnsim.validate(doc)
            assert not list(problems), (line, problems)
            if problems.warnings:
                assert "warn" in m.group(3), (line, [str(w) for w in problems.warnings])
