"""The `dcnsim` command line (run through `python -m dcnsim`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import dcnsim
import pandas as pd
import pytest
from conftest import SCENARIOS, cli, needs_core, small_incast
from dcnsim._args import parse_value, split_values
from dcnsim.result import TABLE_COLUMNS

# ---------------------------------------------------------------- parsing (no core)


def test_split_and_parse_set_values():
    assert split_values("16KB,32KB, 64KB") == ["16KB", "32KB", "64KB"]
    assert split_values("[1,2],[3,4]") == ["[1,2]", "[3,4]"]
    assert split_values('"a,b",c') == ['"a,b"', "c"]
    assert split_values('["a,b", \'c\'],d') == ['["a,b", \'c\']', "d"]
    # an apostrophe inside a word is a letter, not a string that swallows the commas after it
    assert split_values("it's,b") == ["it's", "b"]
    for bad, why in [("a]b,c", "closes no bracket"), ("'a,b", "never closed"), ("[1,2", "never closed")]:
        with pytest.raises(ValueError, match=why):
            split_values(bad)


def test_a_stray_comma_in_seeds_or_an_open_string_in_set_is_refused():
    import argparse

    from dcnsim._args import parse_seeds, parse_set

    for text in ("1,,2", "1,"):
        with pytest.raises(argparse.ArgumentTypeError, match="empty value"):
            parse_seeds(text)
    with pytest.raises(argparse.ArgumentTypeError, match="--set name: a string opened"):
        parse_set("name='a,b")
    assert parse_set("name=it's,b") == ("name", ["it's", "b"])
    assert [parse_value(v) for v in ["16KB", "1-8", "10", "0.5", "true", "[1, 2]", '"x"', "2024-01-01"]] == [
        "16KB", "1-8", 10, 0.5, True, [1, 2], "x", "2024-01-01",
    ]


def test_set_takes_inf_and_nan_as_the_text_a_key_reads_them_as():
    """TOML reads inf and nan as floats, which JSON cannot carry; the keys
    that take infinity take the text "inf", so `--set` hands them that."""
    assert [parse_value(v) for v in ["inf", "+inf", "-inf", "nan", "1e3"]] == ["inf", "+inf", "-inf", "nan", 1000.0]


@needs_core
def test_set_infinity_where_a_key_takes_it():
    f = str(SCENARIOS / "outcast_testbed.toml")
    r = cli("validate", f, "--set", "tcp.tcprand_v_tau=inf")
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("validate", f, "--set", "tcp.tcprand_v_tau=nan")
    assert r.returncode == 2 and "tcp.tcprand_v_tau:" in r.stdout and "not a finite" not in r.stdout


@needs_core
def test_a_set_value_toml_reads_as_a_number_says_how_to_quote_it(tmp_path):
    """`--set name=1e3` is the number 1000.0 to TOML; the field refuses it,
    and the line says how to give the text instead (which then passes)."""
    f = str(SCENARIOS / "kulkarni_incast.toml")
    for text, kind in (("1e3", "a number"), ("true", "a boolean")):
        r = cli("validate", f, "--set", f"name={text}")
        assert r.returncode == 2
        assert f"so {text} is {kind}; quote it to give the text: \"{text}\"" in r.stdout, r.stdout
        assert cli("validate", f, "--set", f'name="{text}"').returncode == 0
    r = cli("run", f, "--set", "name=123", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and 'quote it to give the text: "123"' in r.stderr, r.stderr
    # a sweep's point names itself before the field
    r = cli("sweep", f, "--set", "name=a,7", "--out", str(tmp_path / "s"))
    assert r.returncode == 2 and 'name=7: name: expected a string, got 7 (' in r.stderr and '"7"' in r.stderr, r.stderr
    # a value the field takes is not explained
    r = cli("validate", f, "--set", "topology.buffer=-5")
    assert r.returncode == 2 and "quote it" not in r.stdout


@needs_core
def test_a_toml_date_or_time_is_refused_at_its_field_by_what_it_is(tmp_path):
    """Unquoted, 00:00:01 is a TOML time of day and 2024-05-27 a date: the
    field says so and how a duration is written (it said 'unsupported value
    of type datetime.time')."""
    base = (SCENARIOS / "kulkarni_incast.toml").read_text()
    assert "\nstop = " in base
    for value, what in (("00:00:01", "a time of day"), ("2024-05-27", "a date"), ("2024-05-27T07:32:00", "a date and time")):
        f = tmp_path / "t.toml"
        f.write_text("\n".join(f"stop = {value}" if line.startswith("stop =") else line for line in base.splitlines()))
        r = cli("validate", str(f))
        assert r.returncode == 2
        assert f"stop: {value} is {what}, which no field takes" in r.stdout and '"1s"' in r.stdout, r.stdout


def test_threads_past_the_cores_limit_echo_what_was_typed():
    import argparse

    from dcnsim._args import MAX_THREADS, parse_threads

    assert parse_threads(str(MAX_THREADS)) == MAX_THREADS and parse_threads("Auto") == "auto"
    with pytest.raises(argparse.ArgumentTypeError) as e:
        parse_threads("99999999999999999999")
    assert str(e.value) == "--threads expects a whole number from 1 to 4,294,967,295 or 'auto', got '99999999999999999999'"
    r = cli("run", "x.toml", "--threads", "99999999999999999999")
    assert r.returncode == 2 and "1e+20" not in r.stderr and "'99999999999999999999'" in r.stderr


def test_bad_arguments_exit_2():
    r = cli("sweep", "x.toml", "--set", "novalue", "--out", "o")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = cli("frobnicate")
    assert r.returncode == 2


# ---------------------------------------------------------------- errors


def test_missing_file_is_a_clean_error(tmp_path):
    r = cli("run", str(tmp_path / "nope.toml"))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "nope.toml" in r.stderr


def test_toml_syntax_error_names_the_line(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text('name = "x"\nstop = "1s"\n[topology\n')
    for args in (("run", str(p)), ("sweep", str(p), "--out", str(tmp_path / "o"))):
        r = cli(*args)
        assert r.returncode == 2
        assert "Traceback" not in r.stderr
        assert "line 3" in r.stderr and str(p) in r.stderr


@needs_core
def test_invalid_scenario_lists_problems(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('[topology]\nkind = "fat_tree"\nk = 3\nrate = "1Gbps"\ndelay = "1us"\n\n[[apps]]\nkind = "bulk"\nsrc = 0\ndst = 1\nsize = "lots"\n')
    r = cli("run", str(p))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) >= 2
    assert all(ln.startswith(f"{p}: ") for ln in lines)
    assert any("topology.k" in ln for ln in lines) and any("apps[0].size" in ln for ln in lines)


@needs_core
def test_validate_command(tmp_path, small_incast_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('stop = "1s"\n')
    r = cli("validate", str(small_incast_path))
    assert r.returncode == 0 and r.stdout.strip() == f"{small_incast_path}: ok"
    r = cli("validate", str(small_incast_path), str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr  # problems in a scenario: bad input, as for `run`
    r = cli("validate", str(small_incast_path), str(bad), str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "Traceback" not in r.stderr  # a file that cannot be read: bad input, 2
    out = r.stdout.strip().splitlines()
    assert out[0] == f"{small_incast_path}: ok"
    assert any(ln.startswith(f"{bad}: ") and "ok" not in ln for ln in out)
    assert any(ln.startswith(f"{tmp_path / 'missing.toml'}: file:") for ln in out)


@needs_core
def test_validate_checks_each_file_with_the_set_fields(tmp_path, small_incast_path):
    # the file is valid; each --set is checked as `run --set` would apply it
    r = cli("validate", str(small_incast_path), "--set", "topology.rate=10")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stdout.strip() == f"{small_incast_path}: topology.rate: expected a rate like '1Gbps', got 10"
    r = cli("validate", str(small_incast_path), "--set", "apps.7.sru=1KB")
    assert r.returncode == 2 and "apps.7.sru: no element 7" in r.stdout
    r = cli("validate", str(small_incast_path), "--set", "topology.buffer=64KB")
    assert r.returncode == 0 and r.stdout.strip() == f"{small_incast_path}: ok"
    # a valid change can still raise a doubt, said as a warning
    r = cli("validate", str(small_incast_path), "--set", "tcp.cc=dctcp")
    assert r.returncode == 0 and "warning: tcp.cc" in r.stdout
    # the file is not changed by it
    assert cli("validate", str(small_incast_path)).stdout.strip() == f"{small_incast_path}: ok"
    r = cli("validate", str(small_incast_path), "--set", "stop=1s", "--set", "stop=2s")
    assert r.returncode == 2 and "validate: --set stop is given twice" in r.stderr and r.stdout == ""
    r = cli("validate", str(tmp_path / "missing.toml"), "--set", "stop=1s")
    assert r.returncode == 2 and r.stdout.startswith(f"{tmp_path / 'missing.toml'}: file:")


# ---------------------------------------------------------------- run


@needs_core
def test_cli_and_python_give_identical_tables(tmp_path, small_incast_path):
    r = cli("run", str(small_incast_path), "--seed", "3", "--out", str(tmp_path / "cli"))
    assert r.returncode == 0, r.stderr
    # the builder twin of the file, through the Python API
    res = dcnsim.run(small_incast(), seed=3)
    res.write(tmp_path / "py")
    for name in [f"{t}.csv" for t in TABLE_COLUMNS] + ["h0.pcap", "h1.pcap"]:
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    cli_summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    py_summary = res.summary_record()
    for k in ("seed", "events", "packet_hops", "packets_created", "packets_delivered", "block_goodput_bps"):
        assert cli_summary[k] == py_summary[k], k
    # the in-memory frames equal what the CLI wrote (parquet keeps dtypes)
    r = cli("run", str(small_incast_path), "--seed", "3", "--out", str(tmp_path / "pq"), "--format", "parquet")
    assert r.returncode == 0, r.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "pq" / "flows.parquet"), res.flows)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "pq" / "blocks.parquet"), res.blocks)


@needs_core
def test_run_prints_a_summary(small_incast_path):
    r = cli("run", str(small_incast_path))
    assert r.returncode == 0, r.stderr
    for word in ("flows", "goodput", "timeouts", "drops", "blocks", "events", "wall", "packet-hops"):
        assert word in r.stdout, word


@needs_core
@pytest.mark.parametrize("timing, cores, said", [
    ({"threads": 8.0}, 2, " on 2 worker threads (8 partitions), "),  # the core's "8 partitions on 2 cores"
    ({"threads": 8.0, "workers": 3.0}, 2, " on 3 worker threads (8 partitions), "),  # the core's own count first
    ({"threads": 4.0}, 8, " on 4 threads, "),
    ({"threads": 1.0}, 8, None),
])
def test_the_wall_row_names_the_worker_threads_the_partitions_ran_on(monkeypatch, timing, cores, said):
    from dcnsim import cli as cli_mod

    r = dcnsim.run(small_incast(stop="10ms"))
    assert r.timing["workers"] == 1  # the core's count; an older core's result has none
    r.timing.pop("workers")
    r.timing.update(timing)
    monkeypatch.setattr(cli_mod, "_cores", lambda: cores)
    wall = next(ln for ln in cli_mod.format_summary(r).splitlines() if ln.strip().startswith("wall"))
    if said is None:
        assert "thread" not in wall and "partition" not in wall, wall
    else:
        assert said in wall, wall


@needs_core
def test_run_set_changes_the_scenario_as_editing_the_file_would(tmp_path, small_incast_path):
    """`dcnsim run FILE --set PATH=VALUE`: the run is the one of the file
    with those fields edited (same tables), scenario.json records them, and
    a bad path, value or spelling is one line naming the field (exit 2)."""
    from dcnsim.scenario import load_scenario

    r = cli("run", str(small_incast_path), "--set", "apps.0.blocks=5", "--set", "topology.buffer=64KB",
            "--set", "tcp.sack=true", "--out", str(tmp_path / "set"))
    assert r.returncode == 0, r.stderr
    edited = load_scenario(small_incast_path)
    edited["apps"][0]["blocks"] = 5
    edited["topology"]["buffer"] = "64KB"
    edited["tcp"]["sack"] = True
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    r2 = cli("run", str(tmp_path / "edited.json"), "--out", str(tmp_path / "edited"))
    assert r2.returncode == 0, r2.stderr
    for name in ("flows", "blocks", "queues"):
        assert (tmp_path / "set" / f"{name}.csv").read_bytes() == (tmp_path / "edited" / f"{name}.csv").read_bytes()
    assert len(pd.read_csv(tmp_path / "set" / "blocks.csv")) == 5  # the law the setting fixes
    assert json.loads((tmp_path / "set" / "scenario.json").read_text()) == edited
    # without --set the file's own 3 blocks: the override really changed the run
    base = cli("run", str(small_incast_path), "--out", str(tmp_path / "base"))
    assert base.returncode == 0 and len(pd.read_csv(tmp_path / "base" / "blocks.csv")) == 3

    for spec, field in (("apps.3.blocks=5", "apps.3.blocks"), ("tcp.cc=cubicc", "tcp.cc"),
                        ("topology.buffer=16KB,32KB", "topology.buffer")):
        bad = cli("run", str(small_incast_path), "--set", spec)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr, (spec, bad.stderr)
        assert f"{small_incast_path}: {field}:" in bad.stderr, (spec, bad.stderr)
    bad = cli("run", str(small_incast_path), "--set", "nonsense")
    assert bad.returncode == 2 and "--set expects PATH=VALUE" in bad.stderr


@needs_core
def test_run_shows_drops_by_input_port(tmp_path):
    """The outcast scenario, shortened: the CLI names the hottest switch
    queue and its drops per input port; --out writes queue_inputs.csv."""
    from dcnsim.scenario import load_scenario, with_overrides

    doc = with_overrides(load_scenario(SCENARIOS / "outcast_fattree.toml"), {"stop": "0.2s"})
    for a in doc["apps"]:
        a["duration"] = "0.2s"
    path = tmp_path / "outcast.json"
    path.write_text(json.dumps(doc))
    r = cli("run", str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if "hot queue" in x)
    assert "edge0_0→h0" in line and "h1" in line and "aggr0_0" in line
    qi = pd.read_csv(tmp_path / "out" / "queue_inputs.csv")
    assert list(qi.columns) == TABLE_COLUMNS["queue_inputs"]
    assert (qi.offered == qi.enqueued + qi.dropped).all()
    res = dcnsim.run(doc)
    assert list(res.queue_inputs.columns) == TABLE_COLUMNS["queue_inputs"]
    # The star's switch has one input per server port.
    assert len(dcnsim.run(small_incast()).queue_inputs) > 0


@needs_core
def test_run_into_an_earlier_runs_directory_replaces_it_and_says_so(tmp_path, small_incast_path, capsys):
    """The common re-run works; the earlier run's files this one does not
    write (its pcaps, its other format) go, named in one stderr line."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "o"
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 0
    assert "earlier run" not in capsys.readouterr().err  # a new directory: nothing to say
    (out / "notes.txt").write_text("mine")
    assert cli_mod.main(["run", str(small_incast_path), "--set", "pcap.hosts=[1]", "--out", str(out),
                         "--format", "parquet", "--no-progress"]) == 0
    err = [ln for ln in capsys.readouterr().err.splitlines() if "earlier run" in ln]
    assert len(err) == 1 and err[0].startswith(f"run: --out {out} held an earlier run's results: replacing them")
    assert "h0.pcap" in err[0] and "flows.csv" in err[0] and "h1.pcap" not in err[0], err
    assert {p.name for p in out.iterdir()} == ({f"{t}.parquet" for t in TABLE_COLUMNS}
                                               | {"h1.pcap", "scenario.json", "summary.json", "notes.txt"})


@needs_core
def test_an_interrupted_rerun_leaves_the_directory_marked_incomplete(tmp_path, small_incast_path, monkeypatch,
                                                                       capsys):
    from dcnsim import _atomic
    from dcnsim import cli as cli_mod

    out = tmp_path / "o"
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real_write = _atomic.StagedFiles.write

    def cut(self, path, write, mode="w"):
        if path.name == "flows.csv":
            raise KeyboardInterrupt
        return real_write(self, path, write, mode)

    # cut while the files are written: the earlier run is as it was
    monkeypatch.setattr(_atomic.StagedFiles, "write", cut)
    capsys.readouterr()
    assert cli_mod.main(["run", str(small_incast_path), "--seed", "9", "--out", str(out), "--no-progress"]) == 130
    assert f"interrupted while writing; {out} is as it was" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    monkeypatch.setattr(_atomic.StagedFiles, "write", real_write)

    def cut_commit(self):
        tmp, target = self._pending.pop(0)  # scenario.json in place, then Ctrl-C
        os.replace(tmp, target)
        raise KeyboardInterrupt

    # cut while they are put in place: marked incomplete
    monkeypatch.setattr(_atomic.StagedFiles, "commit", cut_commit)
    assert cli_mod.main(["run", str(small_incast_path), "--seed", "9", "--out", str(out), "--no-progress"]) == 130
    assert f"interrupted while writing; {out} is incomplete (it has no summary.json)" in capsys.readouterr().err
    assert not (out / "summary.json").exists()
    assert json.loads((out / "scenario.json").read_text())["seed"] == 9
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]

    # cut once every file is in place: the run is there, complete, and said so
    monkeypatch.undo()
    real_commit = _atomic.StagedFiles.commit

    def cut_after(self):
        real_commit(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(_atomic.StagedFiles, "commit", cut_after)
    assert cli_mod.main(["run", str(small_incast_path), "--seed", "11", "--out", str(out), "--no-progress"]) == 130
    said = capsys.readouterr().err
    assert f"interrupted while writing; {out} holds this run's results, complete" in said, said
    assert json.loads((out / "summary.json").read_text())["seed"] == 11

    # SIGTERM while writing: the status a terminated process has, and said as such
    def term(self, path, write, mode="w"):
        raise cli_mod._Terminated()

    monkeypatch.setattr(_atomic.StagedFiles, "commit", real_commit)
    monkeypatch.setattr(_atomic.StagedFiles, "write", term)
    assert cli_mod.main(["run", str(small_incast_path), "--seed", "12", "--out", str(out), "--no-progress"]) == 143
    assert f"terminated while writing; {out} is as it was" in capsys.readouterr().err

    # into a new directory, cut before anything is written: nothing is there to call incomplete
    new = tmp_path / "new"
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(new), "--no-progress"]) == 143
    said = capsys.readouterr().err
    assert f"terminated while writing; nothing of this run was written to {new}" in said, said
    assert "incomplete" not in said


# ---------------------------------------------------------------- sweep


@needs_core
def test_sweep_command_runs_and_resumes(tmp_path, small_incast_path):
    out = tmp_path / "sw"
    args = ["sweep", str(small_incast_path), "--set", "topology.buffer=16KB,64KB", "--set", "apps.0.servers=1-1,1-2",
            "--seeds", "1,2", "--out", str(out), "--jobs", "2", "--no-progress"]
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 2 * 2 * 2
    assert set(df["topology.buffer"]) == {"16KB", "64KB"} and set(df["seed"]) == {1, 2}
    assert "8 run, 0 resumed" in r.stdout
    r = cli(*args)
    assert r.returncode == 0 and "0 run, 8 resumed" in r.stdout
    # points stored as csv are not "resumed" by a run asking for parquet
    r = cli(*args, "--format", "parquet")
    assert r.returncode == 0 and "8 run; 8 of them stored as csv, run again for parquet, 0 resumed" in r.stdout
    assert len(list(out.glob("*/flows.parquet"))) == 8 and not list(out.glob("*/flows.csv"))
    r = cli("sweep", str(small_incast_path), "--set", "stop=10ms", "--out", str(tmp_path / "one"), "--no-progress")
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("1 point (1 run, 0 resumed);"), r.stdout
    r = cli("sweep", str(small_incast_path), "--set", "apps.7.servers=1-2", "--out", str(out))
    assert r.returncode == 2 and "apps.7.servers" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("axes, said", [
    (["--set", "stop=10ms,10ms"], "sweep: --set stop: the value 10ms is given twice"),
    (["--set", "name=a/b,a_b"], "sweep: --set name: the values a/b and a_b would write the same point directory"),
    (["--seeds", "1,2,1"], "argument --seeds: --seeds expects distinct seeds, got '1,2,1' (seed 1 twice)"),
    # a second --set of a path would drop the first one's points
    (["--set", "stop=10ms,20ms", "--set", "tcp.cc=cubic", "--set", "stop=30ms"],
     "sweep: --set stop is given twice (stop=10ms,20ms and stop=30ms): give all its values in one, "
     "--set stop=10ms,20ms,30ms"),
    # two seed axes would run every --seeds seed once per --set seed value
    (["--set", "seed=1,2", "--seeds", "3"], "sweep: --set seed and --seeds both give seeds: give them once, "
     "--seeds 1,2"),
])
def test_sweep_points_that_would_share_a_directory_are_one_line(tmp_path, small_incast_path, axes, said):
    r = cli("sweep", str(small_incast_path), *axes, "--out", str(tmp_path / "o"), "--jobs", "1", "--no-progress")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines()[-1].endswith(said), r.stderr
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------- demo, bench


@needs_core
def test_demo_quick_writes_png_and_csv(tmp_path):
    out = tmp_path / "demo"
    r = cli("demo", "--quick", "--out", str(out), "--no-progress")
    assert r.returncode == 0, r.stderr
    png = (out / "incast_goodput.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    df = pd.read_csv(out / "incast_goodput.csv")
    assert {"series", "servers", "goodput_mbps"} <= set(df.columns)
    assert df["series"].nunique() == 3
    assert sorted(set(df["servers"])) == [1, 2, 4, 8, 16, 32]
    assert (df["goodput_mbps"] > 0).all() and (df["goodput_mbps"] < 1000).all()
    # incast: 32 synchronized servers into a 32 KB buffer do worse than one server
    base = df[df["series"] == df["series"].iloc[0]].set_index("servers")["goodput_mbps"]
    assert base[32] < base[1]
    assert "32" in r.stdout and "Mbps" in r.stdout


@needs_core
def test_bench_json_keys():
    r = cli("bench", "--json", "--scenario", "longflows_64")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert list(rec) == ["scenario", "wall_s", "sim_s", "events", "events_per_s", "packet_hops", "packet_hops_per_s",
                         "peak_rss_mb", "threads", "machine"]
    # the figure names its machine (dcnsim.machine): CPU, caches, load
    assert rec["machine"]["cpu"] and rec["machine"]["logical_cpus"] >= 1 and "l3_kib" in rec["machine"]
    assert rec["scenario"] == "longflows_64"
    # the threads the run used, always (longflows_64 is a star: one)
    assert rec["threads"] == 1
    assert rec["events"] > 0 and rec["packet_hops"] > 0 and rec["peak_rss_mb"] > 0
    assert rec["events_per_s"] == pytest.approx(rec["events"] / rec["wall_s"])
    r = cli("bench", "--scenario", "longflows_64")
    assert r.returncode == 0, r.stderr
    head, columns = r.stdout.splitlines()[:2]
    assert head.startswith("machine: ") and rec["machine"]["cpu"] in head and columns.startswith("scenario ")
    r = cli("bench", "--scenario", "nonsense")
    assert r.returncode == 2


@needs_core
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="execve's inherited high-water mark is Linux's")
def test_bench_peak_rss_is_the_scenarios_not_its_parents():
    # On Linux a child's ru_maxrss starts at its spawner's peak (execve
    # carries the high-water mark over), so a bench run from a process
    # holding 300 MB reported 300 MB for a 20 MB scenario.
    code = ("import json, sys\n"
            "ballast = bytearray(300 * 2**20)\n"
            "for i in range(0, len(ballast), 4096): ballast[i] = 1\n"
            "from dcnsim.bench import run_one\n"
            "print(json.dumps(run_one('longflows_64')))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout.strip().splitlines()[-1])
    assert 0 < rec["peak_rss_mb"] < 150


@needs_core
def test_bench_says_when_a_run_went_on_fewer_threads_than_asked(monkeypatch):
    """`bench --threads 2` with one core free ran on one thread and said
    nothing (the child's stderr was dropped): its `threads 1` had no
    reason beside it. The core's line now comes through, once a scenario."""
    monkeypatch.setenv("DCNSIM_FREE_CORES", "1")
    r = cli("bench", "--json", "--repeat", "2", "--threads", "2", "--scenario", "fattree_k8")
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stderr.splitlines() if ln.startswith("bench: fattree_k8: one core free now")]
    assert len(said) == 1 and "running on one thread, not cut into 2 partitions" in said[0], r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["threads"] == 1


@needs_core
def test_bench_repeat_reports_the_median_of_the_runs():
    r = cli("bench", "--json", "--repeat", "3", "--scenario", "longflows_64", "--scenario", "incast_pa")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in r.stdout.strip().splitlines()]
    assert [x["scenario"] for x in recs] == ["longflows_64", "incast_pa"]
    for rec in recs:
        walls = rec["walls_s"]
        assert len(walls) == 3
        assert rec["wall_s"] == sorted(walls)[1]
        assert rec["packet_hops_per_s"] == pytest.approx(rec["packet_hops"] / rec["wall_s"])
    r = cli("bench", "--repeat", "0", "--scenario", "longflows_64")
    assert r.returncode == 2 and "--repeat" in r.stderr


def test_bench_scenarios_are_well_formed():
    from dcnsim import bench

    perm = bench.derangement(128, seed=8)
    assert sorted(perm) == list(range(128)) and all(i != d for i, d in enumerate(perm))
    assert perm == bench.derangement(128, seed=8)
    ft = bench.fattree_k8()
    assert len(ft["apps"]) == 128 and ft["stop"] == "100ms"
    assert len(bench.longflows_64()["apps"]) == 64
    pa = bench.incast_pa()["apps"][0]
    assert pa["workers"] == "1-100" and pa["queries"] == 100
    # the sparse k = 16 run: every 8th host's flow of the full one, same partners
    full, sparse = bench.SCENARIOS["dctcp_perm_k16"](), bench.SCENARIOS["dctcp_perm_k16_128flows"]()
    assert sparse["topology"] == full["topology"] and len(sparse["apps"]) == 128
    assert [(a["src"], a["dst"]) for a in sparse["apps"]] == [(a["src"], a["dst"]) for a in full["apps"][::8]]


def test_bench_ns3_scenarios_are_the_ones_the_ns3_harness_runs():
    """The two scenarios timed against ns-3 are validation/ns3_incast's
    documents for its FaST setup (n = 100, 100 queries, ns-3 NewReno's
    growth) and its DCTCP star with 64 bulk senders: if the harness's
    matching changes, the bench follows or this fails. The side by side
    (benchmarks/ns3_side_by_side.py) times them in ns-3's order of
    equal-time events, as the harness runs them; the bench keeps the
    engine's seeded order, which any number of threads can run."""
    import importlib.util
    from pathlib import Path

    from dcnsim import bench

    def load(name, rel):
        spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent.parent / rel)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return m

    v = load("ns3_incast_run", "validation/ns3_incast/run.py")
    sbs = load("ns3_side_by_side", "benchmarks/ns3_side_by_side.py")
    fast = v.SETUPS["fast"]
    reno = {"ca_increase": v.NS3_CA_INCREASE["newreno"], "abc_limit": v.NS3_ABC_LIMIT["newreno"], **fast["tcp"]}
    want = v.dcnsim_scenario(100, "newreno", 100, "persistent", 0.01, reno, fast["buffer"])
    timed = [doc for _, doc in sbs.SCENARIOS["ns3_fast_incast_n100"].docs()]
    assert timed and all({**doc, "name": want["name"]} == want for doc in timed)
    assert {**bench.ns3_fast_incast_n100(), "name": want["name"], "ties": want["ties"]} == want
    assert "ties" not in bench.ns3_fast_incast_n100()
    want = v.dcnsim_scenario(64, "dctcp", 1, "persistent", 0.01)
    assert all(doc.get("ties") == want["ties"] for _, doc in sbs.SCENARIOS["ns3_dctcp_bulk_64"].docs())
    got = bench.ns3_dctcp_bulk_64()
    assert [(a["src"], a["dst"], a["duration"]) for a in got["apps"]] == [(i, 0, "1s") for i in range(1, 65)]
    assert {k: got[k] for k in ("seed", "l2_overhead", "host_jitter", "routing", "tcp")} == \
        {k: want[k] for k in ("seed", "l2_overhead", "host_jitter", "routing", "tcp")}
    assert got["topology"] == {**want["topology"], "hosts": 65} and got["stop"] == "1s"


def test_ns3_side_by_side_gives_each_ratio_an_interval_for_its_median():
    """A ratio over pairs moves between records on a shared VM (100x per
    process in one, 87x two minutes later): each ratio comes with the pairs
    that hold the median of such pairs, and the probability they do (order
    statistics: nothing assumed of the distribution). Of nine pairs the
    second smallest and second largest hold it with 96.1 %; a record made
    before intervals renders as it did."""
    from pathlib import Path

    from conftest import load_module

    sbs = load_module("ns3_side_by_side", Path(__file__).resolve().parent.parent / "benchmarks" / "ns3_side_by_side.py")
    ns3 = [{"ns3_cpu_s": x, "ns3_wall_s": x, "ns3_hops": 1000} for x in (6.0, 6.5, 5.8, 7.0, 6.2, 6.1, 5.9, 6.4, 6.6)]
    clean = (0.060, 0.065, 0.059, 0.090, 0.061, 0.058, 0.080, 0.062, 0.063)
    runs = [{"core_cpu_s": c / 2, "core_wall_s": c / 2, "process_cpu_s": c * 1.5, "process_clean_cpu_s": c,
             "dcnsim_hops": 1003, "threads_used": 1} for c in clean]
    r = sbs.row("x", "X", None, ["--a"], ns3, runs)
    per_pair = sorted(n["ns3_cpu_s"] / c for n, c in zip(ns3, clean))
    lo, hi, p = r["interval_process_clean"]
    assert (lo, hi) == (round(per_pair[1], 1), round(per_pair[-2], 1)) and p == round(1 - 2 * 10 / 2 ** 9, 4)
    assert lo <= r["ratio_process_clean"] <= hi
    table = sbs.markdown({"rows": [r]})
    assert f"{r['ratio_process_clean']:.0f}× ({lo:.0f}–{hi:.0f}×)" in table
    assert "96.1 %" in sbs.interval_note({"rows": [r]})
    old = {k: v for k, v in r.items() if not k.startswith("interval_")}
    assert "×)" not in sbs.markdown({"rows": [old]}) and sbs.interval_note({"rows": [old]}) == ""
    # one pair: no interval holds the median, and none is shown ("probability 0.0 %" was)
    one = sbs.row("x", "X", None, ["--a"], ns3[:1], runs[:1])
    assert "×)" not in sbs.markdown({"rows": [one]})
    assert "0.0 %" not in sbs.interval_note({"rows": [one]}) and "too few pairs" in sbs.interval_note({"rows": [one]})


def test_ns3_side_by_side_runs_dctcp_as_the_harness_does():
    """ns-3.37's TcpDctcp cuts below RFC 5681's 2-segment floor, which dcnsim
    keeps: the harness runs every DCTCP comparison with its work-arounds
    (run.py's NS3_WORKAROUNDS), so the side by side's DCTCP bulk flows do
    too (without them 64 flows of one segment fit the port, and the two
    simulators carry different packets); the NewReno incast takes none."""
    from pathlib import Path

    from conftest import load_module

    root = Path(__file__).resolve().parent.parent
    run = load_module("ns3_incast_run", root / "validation" / "ns3_incast" / "run.py")
    sbs = load_module("ns3_side_by_side", root / "benchmarks" / "ns3_side_by_side.py")
    bulk, fast = sbs.SCENARIOS["ns3_dctcp_bulk_64"].ns3_args(), sbs.SCENARIOS["ns3_fast_incast_n100"].ns3_args()
    assert "--cc=dctcp" in bulk and all(a in bulk for a in run.NS3_WORKAROUNDS)
    assert "--cc=newreno" in fast and not any(a in fast for a in run.NS3_WORKAROUNDS)
    # the FaST incast is the harness's `fast` setup on persistent connections,
    # with ns-3 growing cwnd on the ACK that ends loss recovery, as RFC 5681
    # and dcnsim do (else ns-3's later queries start smaller: 2.7 % fewer hops)
    assert all(a in fast for a in run.SETUPS["fast"]["ns3"]) and "--loss-exit-ack=1" in fast
    assert "--persistent=1" in fast and "--loss-exit-ack=1" not in bulk


@needs_core
@pytest.mark.parametrize("name", ["incast_pa", "longflows_64", "ns3_fast_incast_n100", "ns3_dctcp_bulk_64", "fattree_k8", "dctcp_perm_k8", "dctcp_perm_k12",
                                  "dctcp_perm_k16", "dctcp_perm_k16_128flows", "dctcp_perm_k32"])
def test_bench_scenarios_validate(name):
    from dcnsim import bench
    from dcnsim.scenario import to_json

    doc = bench.SCENARIOS[name]()
    assert dcnsim.validate(doc) == []
    # nor is anything in a shipped benchmark "probably not meant" (a key
    # that changes nothing, ...): a user who dumps and runs one sees no warning
    assert dcnsim._core.warnings(to_json(doc)) == []


@needs_core
def test_the_losses_row_adds_up_to_the_packets_dropped():
    """A drop-tail port loses ACKs too: the losses row's data drops plus its
    "(+N of their ACKs)" are the packets row's dropped, so no reader finds
    two counts of drops that disagree without a word."""
    import re

    from dcnsim import cli as cli_mod

    # three senders into host 0's port, whose queue also carries the ACKs
    # of host 0's own transfer to host 1
    r = dcnsim.run({"name": "acks", "seed": 1, "stop": "50ms",
                    "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "10us", "buffer": "20pkt"},
                    "apps": [{"kind": "bulk", "src": s, "dst": d, "size": "2MB"}
                             for s, d in ((1, 0), (2, 0), (3, 0), (0, 1))]})
    acks = int(r.flows["ack_drops"].sum())
    assert acks > 0
    text = cli_mod.format_summary(r)
    losses = next(ln for ln in text.splitlines() if ln.strip().startswith("losses"))
    data = int(re.search(r"([\d,]+) drops", losses).group(1).replace(",", ""))
    assert data == int(r.flows["drops"].sum())
    assert f"(+{acks:,} of their ACKs)" in losses, losses
    assert data + acks == r.summary["packets_dropped"]



@needs_core
def test_run_refuses_one_field_set_twice_to_two_values(small_incast_path):
    """The later --set won without a word (sweep refused it already); the
    same value twice is one value."""
    r = cli("run", str(small_incast_path), "--set", "tcp.rto_min=1ms", "--set", "tcp.rto_min=5ms")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == ("run: --set tcp.rto_min is given twice (tcp.rto_min=1ms and tcp.rto_min=5ms): "
                                "give it once")
    ok = cli("run", str(small_incast_path), "--set", "tcp.rto_min=1ms", "--set", "tcp.rto_min=1ms", "--no-progress")
    assert ok.returncode == 0, ok.stderr


def test_a_failed_write_at_a_sweeps_end_is_one_line_saying_what_is_kept(tmp_path, small_incast_path, monkeypatch,
                                                                         capsys):
    # a disk that fills as the sweep writes its table: one line naming the
    # file and how to resume (every point's files are whole), not a traceback
    import errno
    import os

    import dcnsim._atomic as atomic
    from dcnsim import cli

    real = atomic.atomic_write

    def full(path, write, mode="w"):
        if os.path.basename(path) == "sweep.csv":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return real(path, write, mode)

    monkeypatch.setattr(atomic, "atomic_write", full)
    out = tmp_path / "sw"
    argv = ["sweep", str(small_incast_path), "--set", "topology.buffer=32KB,64KB", "--jobs", "1", "--no-progress",
            "--out", str(out)]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"sweep: No space left on device ({out / 'sweep.csv'}); what finished is kept"), err
    assert err[-1].endswith(f"resume with: dcnsim sweep {small_incast_path} --set topology.buffer=32KB,64KB "
                            f"--jobs 1 --no-progress --out {out}"), err
    assert len(list(out.glob("*/summary.json"))) == 2


def test_rates_read_in_their_unit_up_to_a_fabrics_total():
    from dcnsim.cli import fmt_rate

    assert fmt_rate(3.3e13) == "33 Tbps"  # 8,192 hosts at 40 % of 10 Gbps: was "3.3e+04 Gbps"
    assert fmt_rate(9.5e11) == "950 Gbps" and fmt_rate(1.5e10) == "15 Gbps" and fmt_rate(9.7e8) == "970 Mbps"
    assert fmt_rate(float("nan")) == "n/a"
    # the unit follows the value as printed: not "1000 Mbps" or "1000 ms"
    from dcnsim.cli import fmt_time

    assert fmt_rate(999.96e6) == "1 Gbps" and fmt_time(0.99996) == "1 s" and fmt_time(0.0009999) == "999.9 us"


def test_the_demos_spread_is_the_sample_sd_of_its_seeds(tmp_path, monkeypatch):
    """'± 1 s.d. of 3 seeds' is the sample s.d. (n - 1); the population's
    was 0.816 of it with three seeds."""
    from dcnsim import demo

    rows = [{"series": "a", "servers": 2, "block_goodput_bps": g * 1e6, "block_timeouts": 0.0, "drops": 0.0,
             "events": 1, "wall_s": 0.1} for g in (300.0, 400.0, 800.0)]
    monkeypatch.setattr(demo, "run_sweep", lambda *a, **k: pd.DataFrame(rows))
    monkeypatch.setattr("dcnsim.plots.incast_goodput_plot", lambda *a, **k: None)
    t = demo.run_demo(tmp_path / "d", seeds=[1, 2, 3], progress=False)
    assert t["goodput_mbps_std"].iloc[0] == pytest.approx(pd.Series([300.0, 400.0, 800.0]).std(ddof=1))


@needs_core
def test_a_partitioned_run_says_where_its_wall_time_went(monkeypatch, tmp_path):
    """A run cut into partitions carries its windows, a partition's work,
    the waits for the slower partition and the steps between windows in
    `timing` (not the physics: summaries equal one thread's), keeps them
    through summary.json, and `dcnsim run` prints them as one row; a run
    on one thread has neither."""
    from dcnsim import bench
    from dcnsim import cli as cli_mod
    from dcnsim.result import PARALLEL_TIMING, read_result

    monkeypatch.setenv("DCNSIM_FREE_CORES", "8")
    monkeypatch.setenv("DCNSIM_CUT", "always")
    doc = bench.dctcp_perm(4, "1ms")
    one = dcnsim.run({**doc, "threads": 1})
    two = dcnsim.run({**doc, "threads": 2})
    assert two.timing["threads"] == 2
    assert two.summary == one.summary
    assert not set(PARALLEL_TIMING) & set(one.timing) and not set(PARALLEL_TIMING) & set(two.summary)
    t = two.timing
    assert isinstance(t["windows"], int) and t["windows"] > 0
    assert t["partition_work_s"] > 0 and t["imbalance_s"] >= 0 and t["between_windows_s"] >= 0
    # the workers' time, inside the run's own wall time
    assert t["partition_work_s"] + t["imbalance_s"] + t["between_windows_s"] <= t["wall_s"]
    two.write(tmp_path / "two")
    back = read_result(tmp_path / "two")
    assert back.timing == two.timing and back.summary == two.summary
    rows = {ln.split()[0]: ln for ln in cli_mod.format_summary(two).splitlines() if ln.strip()}
    assert rows["windows"].split()[1] == f"{t['windows']:,}:", rows["windows"]
    assert "waiting for the slower" in rows["windows"] and "between windows" in rows["windows"]
    assert "windows" not in {ln.split()[0] for ln in cli_mod.format_summary(one).splitlines() if ln.strip()}


@needs_core
def test_a_set_readings_hint_is_this_commands_alone(tmp_path, capsys):
    """Two commands in one process (a notebook, a test): the second, with a
    file whose own `name = 123` is refused, is not told about the first's
    --set."""
    from dcnsim import cli as dcnsim_cli

    f = str(SCENARIOS / "kulkarni_incast.toml")
    assert dcnsim_cli.main(["validate", f, "--set", "name=123"]) == 2
    assert "quote it" in capsys.readouterr().out
    bad = tmp_path / "n.toml"
    bad.write_text("\n".join('name = 123' if line.startswith("name =") else line
                             for line in (SCENARIOS / "kulkarni_incast.toml").read_text().splitlines()))
    assert dcnsim_cli.main(["validate", str(bad)]) == 2
    out = capsys.readouterr().out
    assert "name: expected a string, got 123" in out and "--set" not in out, out


@needs_core
def test_a_summary_json_of_the_users_own_does_not_claim_the_directory(tmp_path, small_incast_path, capsys):
    """A summary.json that no run wrote (not the core's counts) made the
    directory an earlier run's, and the user's own flows.csv and summary
    went with it; now they are files dcnsim did not write, refused."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "mine"
    out.mkdir()
    (out / "summary.json").write_text('{"my": "own summary"}\n')
    (out / "flows.csv").write_text("a,b\n")
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "holds flows.csv, summary.json but no dcnsim run" in err and "not overwriting" in err, err
    assert (out / "summary.json").read_text() == '{"my": "own summary"}\n'
    assert (out / "flows.csv").read_text() == "a,b\n"
    # a run's own summary still claims it: rerunning there replaces the run
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    assert "held an earlier run's results: replacing them" in capsys.readouterr().err


@needs_core
def test_a_rerun_keeps_the_users_files_named_like_results(tmp_path, small_incast_path, capsys):
    """A flows.parquet the user made from the run's flows.csv and a
    capture named h3.pcap were removed by the next `dcnsim run --out DIR`
    as "the earlier run's": the run's summary.json lists what it wrote,
    and only that is replaced; a run that would write over one of them is
    refused before it runs, naming it."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "r"
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 0
    pd.read_csv(out / "flows.csv").to_parquet(out / "flows.parquet")
    (out / "h3.pcap").write_bytes(b"a testbed's capture")
    mine = {n: (out / n).read_bytes() for n in ("flows.parquet", "h3.pcap")}
    capsys.readouterr()
    assert cli_mod.main(["run", str(small_incast_path), "--seed", "2", "--out", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "held an earlier run's results: replacing them" in err and "flows.parquet" not in err, err
    assert {n: (out / n).read_bytes() for n in mine} == mine
    assert json.loads((out / "scenario.json").read_text())["seed"] == 2
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--format", "parquet",
                         "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "holds flows.parquet beside a dcnsim run that did not write them" in err, err
    assert {n: (out / n).read_bytes() for n in mine} == mine
    assert json.loads((out / "scenario.json").read_text())["seed"] == 2


@needs_core
def test_a_run_into_a_sweeps_directory_is_refused(tmp_path, small_incast_path, capsys):
    """`dcnsim run --out DIR` where DIR is a sweep's (its sweep.csv beside
    the points' directories) wrote the run among them, part of no point;
    refused before it runs, DIR unchanged, and a subdirectory will do."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "sw"
    assert cli_mod.main(["sweep", str(small_incast_path), "--set", "topology.buffer=16KB,32KB", "--out", str(out),
                         "--no-progress", "--jobs", "1"]) == 0
    before = sorted(p.name for p in out.iterdir())
    capsys.readouterr()
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "a sweep's directory (its sweep.csv and the points' directories)" in err, err
    assert sorted(p.name for p in out.iterdir()) == before
    from dcnsim.errors import OutputDirError

    with pytest.raises(OutputDirError, match="a sweep.s directory"):
        dcnsim.run(str(small_incast_path)).write(out)
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out / "mine"), "--no-progress"]) == 0


@needs_core
def test_a_scenario_json_of_the_users_own_does_not_claim_the_directory(tmp_path, small_incast_path, capsys):
    """A hand-written scenario.json alone in DIR made it an earlier run's:
    `dcnsim run OTHER --out DIR` replaced it with only a "replacing" line.
    Refused before the run now, the file kept."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "mine"
    out.mkdir()
    (out / "scenario.json").write_text('{"name": "mine", "stop": "1s"}\n')
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "holds scenario.json but no dcnsim run" in err and "not overwriting" in err, err
    assert (out / "scenario.json").read_text() == '{"name": "mine", "stop": "1s"}\n'
    assert sorted(p.name for p in out.iterdir()) == ["scenario.json"]


@needs_core
def test_a_run_never_replaces_the_scenario_it_reads(tmp_path, small_incast_path, capsys):
    """`dcnsim run DIR/scenario.json --out DIR --set ...` wrote the changed
    scenario over the one it read: refused before the run, the file kept."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "r"
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(out), "--no-progress"]) == 0
    scen = out / "scenario.json"
    before = scen.read_bytes()
    capsys.readouterr()
    assert cli_mod.main(["run", str(scen), "--set", "stop=5ms", "--out", str(out), "--no-progress"]) == 2
    assert f"run: --out {out}: its scenario.json is the file this run reads ({scen})" in capsys.readouterr().err
    assert scen.read_bytes() == before
    # the same file through another spelling of the path
    alias = tmp_path / "alias"
    alias.symlink_to(out)
    assert cli_mod.main(["run", str(alias / "scenario.json"), "--out", str(out), "--no-progress"]) == 2
    assert scen.read_bytes() == before


@needs_core
def test_a_failed_write_still_shows_the_runs_summary(tmp_path, small_incast_path, monkeypatch, capsys):
    """A full disk at --out lost the whole run: nothing of it was shown.
    The summary a run without --out prints comes first, then why the files
    were not written."""
    import errno

    from dcnsim import _atomic
    from dcnsim import cli as cli_mod

    def full(self, path, write, mode="w"):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(_atomic.StagedFiles, "write", full)
    assert cli_mod.main(["run", str(small_incast_path), "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    res = capsys.readouterr()
    assert res.out.startswith("dcnsim ") and "  flows " in res.out and "  goodput " in res.out, res.out
    assert "run: writing --out" in res.err and "No space left on device" in res.err


@needs_core
@pytest.mark.parametrize("sets", [
    ["tcp.cc=cubic", "tcp={}"],  # the key dropped with its table
    ['tcp={cc="dctcp"}', "tcp.cc=cubic"],  # the table's own value replaced
    ['apps[0]={kind="bulk",src=1,dst=0}', "apps.0.size=1MB"],  # either spelling of a path
])
def test_a_table_and_a_key_inside_it_are_refused_together(tmp_path, small_incast_path, capsys, sets):
    """Whichever came last undid the other without a word (a sweep's axis
    thrown away, its points labelled by it): refused by run, validate,
    sweep and tune, naming both and how to give them."""
    from dcnsim import cli as cli_mod

    args = [a for s in sets for a in ("--set", s)]
    for cmd in (["run", str(small_incast_path), "--no-progress"], ["validate", str(small_incast_path)],
                ["sweep", str(small_incast_path), "--out", str(tmp_path / "sw")],
                ["tune", str(small_incast_path), "--param", "tcp.init_cwnd=1:4", "--out", str(tmp_path / "sw")]):
        assert cli_mod.main(cmd + args) == 2, cmd
        err = capsys.readouterr().err
        assert re.search(rf"{cmd[0]}: --set \S+ and --set \S+ overlap: \S+ replaces the whole table that \S+ "
                         r"sets a key of", err), err
    assert not (tmp_path / "sw").exists()


@needs_core
@pytest.mark.parametrize("value", ["[1979-05-27]", "{a=1979-05-27}", "[12:00:00]"])
def test_a_toml_date_in_a_set_value_is_an_error_not_a_traceback(small_incast_path, capsys, value):
    from dcnsim import cli as cli_mod

    for cmd in (["validate", str(small_incast_path)], ["run", str(small_incast_path), "--no-progress"]):
        assert cli_mod.main(cmd + ["--set", f"name={value}"]) == 2
        res = capsys.readouterr()
        err = res.out + res.err  # validate lists its problems on stdout
        assert "Traceback" not in err and ("is a date" in err or "is a time" in err), err
        assert f"quote it to give the text: \"{value}\"" in err, err


@needs_core
def test_unset_removes_a_key_so_its_default_applies(tmp_path, small_incast_path, capsys):
    """TOML has no null, so `--set` could not take a key away (a file's
    `ecn_k` to run without marking, its `pcap` table): `--unset PATH` does,
    in run, validate and sweep; a key the file does not hold is an error
    (a typo, not an intent), and an --unset beside a --set of the same
    field or table is refused."""
    from dcnsim import cli as cli_mod

    out = tmp_path / "r"
    assert cli_mod.main(["run", str(small_incast_path), "--unset", "pcap", "--unset", "tcp.rwnd",
                         "--out", str(out), "--no-progress"]) == 0
    written = json.loads((out / "scenario.json").read_text())
    assert "pcap" not in written and "rwnd" not in written["tcp"] and written["tcp"]["mss"] == 1024
    assert not list(out.glob("*.pcap"))  # the file's pcap table is gone with the key
    assert cli_mod.main(["validate", str(small_incast_path), "--unset", "tcp.nodelay"]) == 2
    assert "tcp.nodelay: not in the scenario: nothing to unset" in capsys.readouterr().out
    for args in (["--unset", "tcp", "--set", "tcp.mss=512"], ["--unset", "tcp.mss", "--set", "tcp.mss=512"]):
        assert cli_mod.main(["run", str(small_incast_path), "--no-progress", *args]) == 2
        assert "overlap: one would undo the other" in capsys.readouterr().err
    assert cli_mod.main(["sweep", str(small_incast_path), "--unset", "pcap", "--set", "seed=1,2",
                         "--out", str(tmp_path / "sw"), "--no-progress"]) == 0
    points = [json.loads(p.read_text()) for p in (tmp_path / "sw").glob("*/scenario.json")]
    assert len(points) == 2 and all("pcap" not in p for p in points)


@needs_core
def test_a_sweep_over_an_edited_file_keeps_the_earlier_results_unless_asked(tmp_path, small_incast_path, capsys):
    """Editing the base file and re-running the same sweep replaced every
    earlier point with only a warning, where a different axis into the same
    directory is refused: now refused too (exit 2, nothing run or removed),
    and `--replace` runs them again in place."""
    from dcnsim import cli as cli_mod

    base = tmp_path / "b.toml"
    base.write_text(small_incast_path.read_text())
    out = tmp_path / "sw"
    args = ["sweep", str(base), "--set", "stop=1ms,2ms", "--out", str(out), "--no-progress"]
    assert cli_mod.main(args) == 0
    before = {p: p.read_bytes() for p in out.rglob("summary.json")}
    base.write_text(small_incast_path.read_text().replace('buffer = "16KB"', 'buffer = "32KB"'))
    capsys.readouterr()
    assert cli_mod.main(args) == 2
    err = capsys.readouterr().err
    assert "2 of 2 points ('stop=1ms', 'stop=2ms') hold complete results of another scenario" in err, err
    assert "give --replace" in err
    assert {p: p.read_bytes() for p in out.rglob("summary.json")} == before
    assert cli_mod.main(args + ["--replace"]) == 0
    assert "held complete results of another scenario: replacing them" in capsys.readouterr().err
    assert all(json.loads((p.parent / "scenario.json").read_text())["topology"]["buffer"] == "32KB"
               for p in out.rglob("summary.json"))


def test_demo_with_a_failed_run_says_so_in_a_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    """A run of the demo that fails (a full disk above all) ended in a
    traceback through run_sweep: now a full disk is main's one line naming
    the file, and another failure is named with how to resume."""
    import errno

    import dcnsim.demo as demo
    from dcnsim.cli import main
    from dcnsim.sweep import SweepError

    full = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "d" / "runs" / "x" / "flows.csv"))

    def fails(*a, **kw):
        raise SweepError({"x": f"OSError: {full}"}, None, {"x": full})

    monkeypatch.setattr(demo, "run_sweep", fails)
    assert main(["demo", "--quick", "--out", str(tmp_path / "d"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"demo: No space left on device ({full.filename})"], err

    def breaks(*a, **kw):
        raise SweepError({"x": "RuntimeError: boom"}, None)

    monkeypatch.setattr(demo, "run_sweep", breaks)
    assert main(["demo", "--quick", "--out", str(tmp_path / "e"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "demo: 1 sweep point(s) failed" in err and "rerun the same command to resume" in err
    assert "Traceback" not in err
