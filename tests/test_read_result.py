"""dcnsim.read_result: a written run read back as the Result it was
(tables with their dtypes, empty text cells, NaN and inf, empty tables,
pcaps, CDF copies, warnings), where pandas.read_csv of its files is not."""

from __future__ import annotations

import math
import os

import dcnsim
import pandas as pd
import pytest
from conftest import needs_core
from dcnsim.result import WRITING_MARK


def mixed(tmp_path) -> dict:
    """A run whose tables hold what CSV loses: UDP flows (no cc: empty
    text), unfinished flows (NaN), ssthresh before a loss (inf), empty
    tables (no queries, no blocks), a pcap and a cdf_file."""
    cdf = tmp_path / "sizes.cdf"
    cdf.write_text("1000 0\n20000 0.6\n100000 1\n")
    return {"name": "mixed", "stop": "20ms", "seed": 3,
            "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us", "buffer": "30KB"},
            "tcp": {"cc": "cubic"},
            "trace": {"interval": "1ms", "flows": True, "queues": "switches"},
            "pcap": {"hosts": [0]},
            "apps": [{"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "300Mbps"},
                     {"kind": "bulk", "src": 2, "dst": 0, "start": "15ms", "duration": "5ms"},
                     {"kind": "poisson", "load": 0.3, "cdf_file": str(cdf), "duration": "15ms"}]}


def same_numbers(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) for k in a)


@needs_core
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_written_run_reads_back_as_the_result_it_was(tmp_path, fmt):
    with pytest.warns(dcnsim.DcnsimWarning, match="had not finished"):
        r = dcnsim.run(mixed(tmp_path))
    flows = r.flows
    # what the files must carry
    assert (flows["cc"] == "").any() and flows["fct_s"].isna().any()
    assert (r.flow_ts["ssthresh_bytes"] == math.inf).any()
    assert len(r.queries) == 0 and r.pcaps and r.cdf_files and r.warnings
    out = r.write(tmp_path / "run", format=fmt)
    b = dcnsim.read_result(out)
    assert list(b.tables) == list(r.tables)
    for t in r.tables:
        pd.testing.assert_frame_equal(b.tables[t], r.tables[t], check_exact=True)
    assert same_numbers(b.summary, r.summary) and b.timing == r.timing and b.core == r.core
    assert same_numbers(b.metrics, r.metrics)
    assert b.warnings == r.warnings and b.pcaps == r.pcaps and b.cdf_files == r.cdf_files
    # the scenario reruns from the run's own copy of its CDF, to the same flows
    assert b.scenario["apps"][2]["cdf_file"] == os.path.realpath(out / "apps2.cdf")
    with pytest.warns(dcnsim.DcnsimWarning):
        pd.testing.assert_frame_equal(dcnsim.run(b.scenario).flows, flows)
    # and writes the same files again
    again = b.write(tmp_path / "again", format=fmt)
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in out.iterdir())


@needs_core
def test_pandas_alone_reads_the_same_csv_otherwise(tmp_path):
    # why read_result exists: an empty text cell comes back NaN, an empty
    # table's numbers as text
    with pytest.warns(dcnsim.DcnsimWarning):
        r = dcnsim.run(mixed(tmp_path))
    out = r.write(tmp_path / "run")
    assert pd.read_csv(out / "flows.csv")["cc"].isna().any()
    assert pd.read_csv(out / "queries.csv")["qct_s"].dtype == object
    b = dcnsim.read_result(out)
    assert not b.flows["cc"].isna().any() and b.queries["qct_s"].dtype == "float64"


@needs_core
def test_a_directory_without_a_complete_run_is_refused_saying_why(tmp_path):
    with pytest.raises(FileNotFoundError, match="read_result: .*nowhere: no such directory"):
        dcnsim.read_result(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileNotFoundError, match="not a directory"):
        dcnsim.read_result(tmp_path / "file")
    with pytest.raises(FileNotFoundError, match=r"no dcnsim run here \(no summary.json\)"):
        dcnsim.read_result(tmp_path)
    with pytest.warns(dcnsim.DcnsimWarning):
        out = dcnsim.run(mixed(tmp_path)).write(tmp_path / "cut")
    (out / "summary.json").write_text("{not json")
    with pytest.raises(ValueError, match="summary.json: not the JSON a run writes"):
        dcnsim.read_result(out)
    (out / "summary.json").unlink()
    # scenario.json with no summary.json: a scenario of the user's, unless
    # the mark a write puts beside its files while they go in place is there
    with pytest.raises(FileNotFoundError, match="a scenario.json alone is a scenario, not a run's results"):
        dcnsim.read_result(out)
    (out / WRITING_MARK).touch()  # as a write cut short leaves it
    with pytest.raises(FileNotFoundError, match="its write did not finish"):
        dcnsim.read_result(out)


@needs_core
def test_a_file_of_the_run_gone_since_is_named_not_read_as_an_empty_table(tmp_path):
    """A partial copy (an rsync that left some files out) or a file removed
    by hand: read as an empty table, it gave a run with no flows and NaN
    goodput. summary.json lists the files its write put beside it."""
    with pytest.warns(dcnsim.DcnsimWarning):
        out = dcnsim.run(mixed(tmp_path)).write(tmp_path / "r")
    import json

    listed = json.loads((out / "summary.json").read_text())["files"]
    assert sorted(listed) == sorted(p.name for p in out.iterdir() if p.name != "summary.json")
    r = dcnsim.read_result(out)
    assert "files" not in r.summary and "files" not in r.summary_record()
    for gone in ("flows.csv", "flow_ts.csv", "h0.pcap"):
        (out / gone).rename(tmp_path / gone)
        with pytest.raises(FileNotFoundError, match=f"read_result: .*: the run's {gone} is missing"):
            dcnsim.read_result(out)
        (tmp_path / gone).rename(out / gone)
    assert len(dcnsim.read_result(out).flows) == len(r.flows)


@needs_core
def test_a_table_cut_short_or_another_tools_directory_is_refused_naming_the_file(tmp_path):
    """An interrupted copy cuts a table inside a line or at one's end;
    read as it is, it gave fewer flows, a half row of invented values and
    float counts. Another tool's directory with a summary.json read as a
    run with no flows, or failed on a bare KeyError."""
    import json

    with pytest.warns(dcnsim.DcnsimWarning):
        out = dcnsim.run(mixed(tmp_path)).write(tmp_path / "r")
    whole = (out / "flows.csv").read_bytes()
    lines = whole.splitlines(keepends=True)
    assert len(lines) > 2
    for cut, why in ((whole[: len(whole) * 2 // 3], "ends inside a line"), (b"", "empty"),
                     (b"".join(lines[:-1]), r"rows where the run's summary.json counts \d+ \(rows\.flows\)")):
        (out / "flows.csv").write_bytes(cut)
        with pytest.raises(ValueError, match=f"read_result: .*flows.csv: .*{why}"):
            dcnsim.read_result(out)
    (out / "flows.csv").write_bytes(whole)
    assert len(dcnsim.read_result(out).flows) == len(lines) - 1
    # every table's rows are counted, not only the flows' (the losses and
    # queues of a copy cut at a line's end read as a shorter run)
    rec = json.loads((out / "summary.json").read_text())
    assert set(rec["rows"]) >= {"flows", "queues", "losses"} and rec["rows"]["flows"] == len(lines) - 1
    for name in ("queues", "losses"):
        table = (out / f"{name}.csv").read_bytes()
        rows = table.splitlines(keepends=True)
        assert len(rows) > 2, name
        (out / f"{name}.csv").write_bytes(b"".join(rows[: len(rows) // 2]))
        with pytest.raises(ValueError, match=rf"{name}.csv: {len(rows) // 2 - 1} rows where the run's summary.json "
                                             rf"counts {len(rows) - 1} \(rows\.{name}\)"):
            dcnsim.read_result(out)
        (out / f"{name}.csv").write_bytes(table)
    # a summary.json of before the counts were kept: the flows' own count
    (out / "flows.csv").write_bytes(b"".join(lines[:-1]))
    (out / "summary.json").write_text(json.dumps({k: v for k, v in rec.items() if k != "rows"}))
    with pytest.raises(ValueError, match=r"flows.csv: .*counts \d+ \(n_flows\)"):
        dcnsim.read_result(out)
    (out / "flows.csv").write_bytes(whole)
    (out / "summary.json").write_text(json.dumps(rec))

    other = tmp_path / "other"
    other.mkdir()
    (other / "summary.json").write_text(json.dumps({"accuracy": 0.9}))
    with pytest.raises(ValueError, match="summary.json: not a dcnsim run's summary .*accuracy"):
        dcnsim.read_result(other)
    rec = json.loads((out / "summary.json").read_text())
    del rec["files"]  # as a summary.json of before the list was kept
    (other / "summary.json").write_text(json.dumps(rec))
    (other / "flows.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="flows.csv: not a dcnsim flows table .*columns: a, b"):
        dcnsim.read_result(other)


@needs_core
def test_the_scenario_a_run_keeps_and_writes_names_its_seed_when_none_was_given(tmp_path):
    """Result.scenario is the scenario as run, with its effective seed: a
    rerun of scenario.json is the same run whatever the default becomes.
    A sweep's point written so still counts as done for a document with
    no seed."""
    doc = {k: v for k, v in mixed(tmp_path).items() if k != "seed"}
    with pytest.warns(dcnsim.DcnsimWarning):
        r = dcnsim.run(doc)
    assert r.scenario["seed"] == r.summary["seed"] == 1
    import json

    assert json.loads((r.write(tmp_path / "r") / "scenario.json").read_text())["seed"] == 1
    from dcnsim.sweep import _canonical

    assert _canonical(doc) == _canonical(r.scenario) != _canonical({**doc, "seed": 2})


@needs_core
def test_a_table_a_script_changed_reads_back_as_written(tmp_path):
    # a column added, and a count that is no longer whole (NaN in it)
    with pytest.warns(dcnsim.DcnsimWarning):
        r = dcnsim.run(mixed(tmp_path))
    f = r.flows.assign(fct_ms=r.flows["fct_s"] * 1e3)
    f.loc[0, "timeouts"] = float("nan")
    r.tables["flows"] = f
    b = dcnsim.read_result(r.write(tmp_path / "run"))
    assert b.flows["fct_ms"].dtype == "float64" and b.flows["fct_ms"].isna().sum() == f["fct_ms"].isna().sum()
    assert math.isnan(b.flows["timeouts"].iloc[0]) and b.flows["timeouts"].iloc[1:].tolist() == f["timeouts"].iloc[1:].tolist()


@needs_core
def test_text_in_a_number_column_is_refused_naming_the_cell(tmp_path):
    """A damaged or hand-edited cell (`abc` where the run wrote an FCT)
    made the whole column text without a word; a numeric column's text
    is now refused, naming the file, the column and the row."""
    with pytest.warns(dcnsim.DcnsimWarning):
        out = dcnsim.run(mixed(tmp_path)).write(tmp_path / "run")
    path = os.path.join(out, "flows.csv")
    f = pd.read_csv(path, keep_default_na=False)
    row = 2
    f["fct_s"] = f["fct_s"].astype(str)
    f.loc[row, "fct_s"] = "abc"
    f.to_csv(path, index=False)
    with pytest.raises(ValueError, match=rf"flows.csv: column 'fct_s', row {row + 1}: 'abc' is not a number"):
        dcnsim.read_result(out)


def test_empty_tables_read_back_with_the_dtypes_the_run_gave(tmp_path):
    """A run without a loss has an empty `losses` table; its text columns
    read back from the written file with the dtype `dcnsim.run` gave them
    (pandas 3 reads an empty text column as `str`; the run's was numpy
    `object`), so the two Results compare equal table by table."""
    sc = {"stop": "5ms", "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "1MB"},
          "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "20KB"}]}
    r = dcnsim.run(sc)
    assert len(r.tables["losses"]) == 0
    r.write(tmp_path / "out")
    back = dcnsim.read_result(tmp_path / "out")
    for name in r.tables:
        a, b = r.tables[name], back.tables[name]
        assert dict(a.dtypes) == dict(b.dtypes), name
        pd.testing.assert_frame_equal(a, b, obj=name)


def test_a_flows_fct_is_its_picoseconds_correctly_rounded():
    """Every time in seconds is the core's picoseconds correctly rounded,
    flows' `fct_s` too: it was `end_s - start_s` of two rounded floats, an
    ulp off for most flows of a Poisson run (the analysis audit)."""
    sc = {"stop": "30ms", "seed": 7,
          "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "2us", "buffer": "200KB"},
          "apps": [{"kind": "poisson", "load": 0.4, "cdf": "websearch", "duration": "20ms"}]}
    f = dcnsim.run(sc).flows
    f = f[f["completed"].astype(bool)]
    assert len(f) >= 10
    for start, end, fct in zip(f["start_s"], f["end_s"], f["fct_s"]):
        ps = round(end * 1e12) - round(start * 1e12)  # exact: times here are far below 2^53 ps
        assert fct == ps / 1e12, (start, end, fct)
