"""Result files are written atomically and round-trip."""

from __future__ import annotations

import json
import math
import os
import re

import dcnsim
import pandas as pd
import pytest
from conftest import needs_core, small_incast
from dcnsim._atomic import atomic_open, atomic_write, dir_lock
from dcnsim.result import TABLE_COLUMNS, TABLE_SCHEMA, Result


def fake_result() -> Result:
    raw = {
        "tables": {
            "flows": {c: [] for c in TABLE_COLUMNS["flows"]},
            "blocks": {
                "app": [0, 0], "block": [0, 1], "n_servers": [2, 2], "start_s": [0.0, 0.5],
                "end_s": [0.4, math.nan], "duration_s": [0.4, math.nan], "bytes": [1000, 1000],
                "goodput_bps": [20000.0, math.nan], "timeouts": [0, 1],
            },
        },
        "summary": {"seed": 1.0, "sim_time_s": 1.0, "wall_s": 0.1, "events": 10.0, "packet_hops": 5.0,
                    "packets_created": 5.0},
    }
    return Result(raw, {"name": "fake", "seed": 1})


def leftovers(d):
    return [p.name for p in d.iterdir() if p.name.endswith(".tmp")]


def lock_holder(out):
    """Another process holding ``out``'s lock (a run or sweep writing
    there) until its stdin closes; returns once it holds it."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from dcnsim._atomic import dir_lock\n"
                               f"with dir_lock({str(out)!r}):\n print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_atomic_write_replaces_whole_file(tmp_path):
    p = tmp_path / "x.txt"
    atomic_write(p, lambda fh: fh.write("old\n"))
    atomic_write(p, lambda fh: fh.write("new\n"))
    assert p.read_text() == "new\n"
    assert leftovers(tmp_path) == []


def test_a_failed_write_names_the_file_it_was_for(tmp_path):
    """A full disk fails a write() that names no file; the error names the
    file being written (`run --out` prints it: 'No space left on device
    (.../flows.csv)')."""
    import errno

    p = tmp_path / "flows.csv"

    def full(fh):
        fh.write("a,b\n")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError) as e:
        atomic_write(p, full)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(p)
    assert not p.exists() and leftovers(tmp_path) == []


def test_atomic_write_failure_leaves_nothing_partial(tmp_path):
    p = tmp_path / "x.txt"
    atomic_write(p, lambda fh: fh.write("complete\n"))

    def half(fh):
        fh.write("half a fi")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        atomic_write(p, half)
    assert p.read_text() == "complete\n"  # the old file, intact
    assert leftovers(tmp_path) == []
    q = tmp_path / "never.txt"
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(q) as fh:
            fh.write("partial")
            raise KeyboardInterrupt
    assert not q.exists() and leftovers(tmp_path) == []


def test_result_write_failure_leaves_no_partial_table(tmp_path, monkeypatch):
    r = fake_result()
    real = pd.DataFrame.to_csv

    def exploding(self, fh, *a, **kw):
        if "block" in self.columns:
            fh.write("app,block\n0,")  # half a table...
            raise OSError("no space left on device")
        return real(self, fh, *a, **kw)

    monkeypatch.setattr(pd.DataFrame, "to_csv", exploding)
    # small tables are written without pandas: explode there too
    import dcnsim.result as result_mod

    plain = result_mod._write_csv_plain

    def exploding_plain(cols, bools, fh):
        if "block" in cols:
            fh.write("app,block\n0,")
            raise OSError("no space left on device")
        return plain(cols, bools, fh)

    monkeypatch.setattr(result_mod, "_write_csv_plain", exploding_plain)
    with pytest.raises(OSError):
        r.write(tmp_path / "out")
    out = tmp_path / "out"
    # the directory as it was: none, not an empty one made for the write
    assert not out.exists()
    out.mkdir()
    with pytest.raises(OSError):
        r.write(out)
    assert not (out / "blocks.csv").exists()
    assert not (out / "summary.json").exists()  # never marks a failed write complete
    assert leftovers(out) == []


def test_result_write_csv_and_parquet_roundtrip(tmp_path):
    r = fake_result()
    r.write(tmp_path / "c")
    r.write(tmp_path / "p", format="parquet")
    for name in TABLE_COLUMNS:
        c = pd.read_csv(tmp_path / "c" / f"{name}.csv")
        p = pd.read_parquet(tmp_path / "p" / f"{name}.parquet")
        assert list(c.columns) == list(r.tables[name].columns) == list(p.columns)
        assert len(c) == len(p) == len(r.tables[name])
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "p" / "blocks.parquet"), r.blocks)
    summary = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert summary["seed"] == 1.0 and summary["n_blocks"] == 2
    assert summary["block_goodput_bps"] == pytest.approx(8 * 1000 / 0.4)  # the unfinished block is not counted
    assert summary["jain"] is None  # NaN -> null, valid JSON
    assert json.loads((tmp_path / "c" / "scenario.json").read_text()) == {"name": "fake", "seed": 1}
    with pytest.raises(ValueError):
        r.write(tmp_path / "x", format="xlsx")


def traced_result(seed: int = 1) -> Result:
    """fake_result's tables plus a trace table and a pcap, as a run with
    ``trace`` and ``pcap`` has them."""
    r = fake_result()
    r.tables["flow_ts"] = pd.DataFrame({c: pd.Series([], dtype=d) for c, d in TABLE_SCHEMA["flow_ts"]})
    r.pcaps = {"h0.pcap": b"pcap bytes"}
    r.scenario["seed"] = seed
    return r


def test_a_directory_holds_one_run_and_keeps_the_users_files(tmp_path):
    """A second write into a directory replaces the first run: the files
    of it the second does not write (its traces, its other format) go;
    files dcnsim never writes stay."""
    out = tmp_path / "out"
    traced_result().write(out)
    mine = {"notes.txt": "mine", "h0.pcap.orig": "mine", "flows_by_hand.csv": "mine", "plot.parquet": "mine"}
    for name, text in mine.items():
        (out / name).write_text(text)
    assert {"flow_ts.csv", "h0.pcap"} <= {p.name for p in out.iterdir()}
    fake_result().write(out)
    names = {p.name for p in out.iterdir()}
    assert names == {f"{t}.csv" for t in TABLE_COLUMNS} | {"scenario.json", "summary.json"} | set(mine)
    fake_result().write(out, format="parquet")
    names = {p.name for p in out.iterdir()}
    assert names == {f"{t}.parquet" for t in TABLE_COLUMNS} | {"scenario.json", "summary.json"} | set(mine)
    assert all((out / n).read_text() == t for n, t in mine.items())


def test_a_directory_without_a_run_keeps_files_named_like_results(tmp_path):
    # no scenario.json or summary.json: nothing says dcnsim wrote them
    out = tmp_path / "captures"
    out.mkdir()
    (out / "h3.pcap").write_bytes(b"a testbed's capture")
    (out / "flow_ts.csv").write_text("t,cwnd\n")
    fake_result().write(out)
    assert (out / "h3.pcap").read_bytes() == b"a testbed's capture"
    assert (out / "flow_ts.csv").read_text() == "t,cwnd\n"
    # nor does the next write into it take them for that first run's: its
    # summary.json lists what it wrote (they were removed until 2026-12-07)
    with pytest.warns(dcnsim.DcnsimWarning, match="held an earlier run's results") as caught:
        fake_result().write(out, format="parquet")
    assert not any("h3.pcap" in str(w.message) or "flow_ts" in str(w.message) for w in caught)
    assert (out / "h3.pcap").read_bytes() == b"a testbed's capture"
    assert (out / "flow_ts.csv").read_text() == "t,cwnd\n"
    assert not (out / "flows.csv").exists()  # the first run's own, replaced


def test_a_users_file_beside_a_run_is_kept_and_never_overwritten(tmp_path):
    """A file named like a result's that the run in the directory did not
    write (a flows.parquet converted from its flows.csv, a capture named
    h1.pcap) is the user's: a rewrite keeps it, and one that would write
    that name is refused, naming it, with the earlier run left whole."""
    out = tmp_path / "out"
    fake_result().write(out)
    pd.read_csv(out / "flows.csv").to_parquet(out / "flows.parquet")
    (out / "h1.pcap").write_bytes(b"a testbed's capture")
    mine = {n: (out / n).read_bytes() for n in ("flows.parquet", "h1.pcap")}
    with pytest.warns(dcnsim.DcnsimWarning) as caught:
        fake_result().write(out)
    assert not any("flows.parquet" in str(w.message) or "h1.pcap" in str(w.message) for w in caught)
    assert {n: (out / n).read_bytes() for n in mine} == mine
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    from dcnsim._atomic import OutputDirError

    with pytest.raises(OutputDirError, match=r"holds flows\.parquet beside a dcnsim run that did not write them"):
        fake_result().write(out, format="parquet")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_summary_without_its_list_of_files_replaces_by_name(tmp_path):
    """A run written before summary.json listed its files: every file named
    as a result's is taken for that run's, as it was then."""
    out = tmp_path / "out"
    fake_result().write(out, format="parquet")
    rec = json.loads((out / "summary.json").read_text())
    del rec["files"]
    (out / "summary.json").write_text(json.dumps(rec))
    with pytest.warns(dcnsim.DcnsimWarning, match="removing .*flows.parquet"):
        fake_result().write(out)
    assert not (out / "flows.parquet").exists() and (out / "flows.csv").exists()


def test_an_interrupted_rewrite_leaves_no_earlier_summary_beside_new_tables(tmp_path, monkeypatch):
    out = tmp_path / "out"
    traced_result(seed=1).write(out)
    import os

    import dcnsim._atomic as atomic_mod

    written = []

    def interrupted(self):
        # every file is written; cut while they are put in place, once
        # scenario.json and two tables are in
        while len(written) < 3:
            tmp, target = self._pending.pop(0)
            os.replace(tmp, target)
            written.append(target.name)
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic_mod.StagedFiles, "commit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        traced_result(seed=2).write(out)
    assert written[0] == "scenario.json"
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    assert not (out / "summary.json").exists()  # incomplete, and says so
    assert json.loads((out / "scenario.json").read_text())["seed"] == 2  # never the old run's beside new tables
    monkeypatch.undo()
    # the next write cleans up after the cut one as after a complete run
    fake_result().write(out)
    assert not (out / "flow_ts.csv").exists() and not (out / "h0.pcap").exists()
    assert (out / "summary.json").is_file()


def test_an_empty_out_dir_is_an_error_naming_it(tmp_path, monkeypatch):
    # Path("") is the current directory: an unset $OUT must not write there
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="out_dir is an empty path"):
        fake_result().write("")
    assert list(tmp_path.iterdir()) == []


def test_absent_tables_are_empty_with_columns():
    r = fake_result()
    for name in ("queues", "queries", "flows"):
        assert len(r.tables[name]) == 0
        assert list(r.tables[name].columns) == TABLE_COLUMNS[name]


@needs_core
def test_written_tables_reload_equal(tmp_path):
    r = dcnsim.run(small_incast())
    r.write(tmp_path, format="parquet")
    for name in TABLE_COLUMNS:
        back = pd.read_parquet(tmp_path / f"{name}.parquet")
        if len(r.tables[name]):
            pd.testing.assert_frame_equal(back, r.tables[name])
    # scenario.json is a runnable scenario that reproduces the run
    again = dcnsim.run(tmp_path / "scenario.json")
    pd.testing.assert_frame_equal(again.flows, r.flows)


def _json_values():
    from hypothesis import strategies as st

    leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=3), inner, max_size=4)
        | st.dictionaries(st.integers(0, 3), inner, max_size=2),
        max_leaves=25,
    )


def test_readable_json_writes_what_dumps_writes():
    """scenario.json's and summary.json's text holds the values json.dumps
    writes (NaN and the infinities as it writes them, keys that are not
    text as it turns them into text), on any JSON-like value."""
    from dcnsim._document import readable_json
    from hypothesis import given, settings

    def same(a, b):  # NaN == NaN for the comparison
        return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)

    @settings(max_examples=300, deadline=None)
    @given(_json_values())
    def check(value):
        assert same(json.loads(readable_json(value)), json.loads(json.dumps(value)))

    check()


def test_readable_json_puts_a_table_of_a_list_on_its_own_line():
    from dcnsim._document import readable_json

    doc = {"name": "perm", "topology": {"kind": "fat_tree", "k": 4},
           "apps": [{"kind": "bulk", "src": i, "dst": [i + 1, i + 2]} for i in range(3)], "servers": [1, 2, 3]}
    lines = readable_json(doc).splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert '  "topology": {' in lines and '    "k": 4' in lines
    assert [x.strip().rstrip(",") for x in lines if '"bulk"' in x] == [
        json.dumps(a, separators=(", ", ": ")) for a in doc["apps"]]
    assert '  "servers": [1, 2, 3]' in lines


def test_a_write_killed_outright_leaves_temporaries_the_next_write_removes(tmp_path):
    # SIGKILL or a power cut mid-write: atomic_open's temporary stays; the
    # next run into the directory removes those of result files, never a
    # user's file that merely looks like one
    r = dcnsim.run(small_incast())
    r.write(tmp_path)
    stale = [tmp_path / ".flows.csv.ab12cd34.tmp", tmp_path / ".h1.pcap.zz99yy88.tmp"]
    for f in stale:
        f.write_text("half")
    mine = [tmp_path / ".notes.txt.ab12cd34.tmp", tmp_path / "flows.csv.tmp"]
    for f in mine:
        f.write_text("keep")
    r.write(tmp_path)
    assert not any(f.exists() for f in stale)
    assert all(f.read_text() == "keep" for f in mine)


def test_one_writer_at_a_time_in_a_directory(tmp_path):
    # another process holding the directory (a run or sweep writing there):
    # a second writer is refused at once, naming the directory, and its
    # results mix with nothing; once the first ends, writing works
    from dcnsim.errors import OutputDirError
    from dcnsim.sweep import Point, run_sweep

    out = tmp_path / "busy"
    holder = lock_holder(out)
    try:
        r = dcnsim.run(small_incast())
        with pytest.raises(OutputDirError, match="another dcnsim process is writing results there"):
            r.write(out)
        assert list(out.iterdir()) == []
        with pytest.raises(OutputDirError, match=str(out)):
            run_sweep([Point("a", small_incast())], out, jobs=1, progress=False)
        assert list(out.iterdir()) == []
    finally:
        holder.communicate("")
    r.write(out)
    assert (out / "summary.json").is_file()
    # the same process may take it again (locks are released, not leaked)
    with dir_lock(out):
        pass


def test_a_held_directory_names_its_writer_and_a_killed_writer_leaves_no_lock(tmp_path):
    # the lock is the kernel's flock: a writer killed outright (kill -9)
    # leaves none behind to refuse the next; while it lives it is named
    import signal
    import sys
    import threading

    from dcnsim.errors import OutputDirError

    pytest.importorskip("fcntl")
    out = tmp_path / "busy"
    holder = lock_holder(out)
    try:
        who = f" (pid {holder.pid}: " if sys.platform.startswith("linux") else ""
        with pytest.raises(OutputDirError, match=re.escape(f"{out}: another dcnsim process is writing results "
                                                           f"there{who}")):
            with dir_lock(out):
                pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        holder.stdin.close()
        holder.stdout.close()
    # the holder of a lock takes it again (a run holds its --out, then its
    # write takes it); another thread of the process is refused as another
    # process is
    refused = []

    def other_thread():
        try:
            with dir_lock(out):
                pass
        except OutputDirError as e:
            refused.append(str(e))

    with dir_lock(out):
        with dir_lock(out):
            t = threading.Thread(target=other_thread)
            t.start()
            t.join()
        assert len(refused) == 1 and "another dcnsim process is writing results there" in refused[0]
        # still held after the inner one is left
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        assert len(refused) == 2
    assert list(out.iterdir()) == []


def test_an_interrupt_just_after_the_temporary_file_is_made_leaves_none(tmp_path, monkeypatch):
    """A signal's exception can land in the instant after the temporary
    file exists, before the writer holds it: the file is removed all the
    same (the audit found 0-byte `.NAME.XXXXXXXX.tmp` files after Ctrl-C)."""
    import os

    real_open = os.open

    def open_then_interrupted(path, flags, *a, **kw):
        fd = real_open(path, flags, *a, **kw)
        if str(path).endswith(".tmp"):
            raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(os, "open", open_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(tmp_path / "flows.csv") as fh:
            fh.write("x\n")
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_scenario_json_of_the_users_own_is_never_replaced(tmp_path):
    """A scenario.json alone claimed the directory for a run: `dcnsim run
    other.toml --out DIR` replaced a hand-edited scenario.json in DIR with
    its own. It is a user's file now; only a write cut short (its mark
    beside it) or a run's summary.json makes a directory a run's."""
    from dcnsim._atomic import OutputDirError
    from dcnsim.result import WRITING_MARK

    out = tmp_path / "mine"
    out.mkdir()
    (out / "scenario.json").write_text('{"name": "hand-edited"}\n')
    with pytest.raises(OutputDirError, match="holds scenario.json but no dcnsim run"):
        fake_result().write(out)
    assert (out / "scenario.json").read_text() == '{"name": "hand-edited"}\n'
    assert sorted(p.name for p in out.iterdir()) == ["scenario.json"]
    # a write cut short while its files went in place left its mark: the
    # next write cleans up after it
    (out / WRITING_MARK).touch()
    (out / "flow_ts.csv").write_text("t\n")
    fake_result().write(out)
    assert json.loads((out / "scenario.json").read_text()) == {"name": "fake", "seed": 1}
    assert not (out / "flow_ts.csv").exists() and not (out / WRITING_MARK).exists()


def test_a_mark_that_cannot_be_made_leaves_the_earlier_run_whole(tmp_path):
    """The mark of a write under way is made before anything of the earlier
    run goes: made after its summary.json was removed, a failure between
    the two left that run's files with neither, refused for ever after."""
    from dcnsim.result import WRITING_MARK

    out = tmp_path / "out"
    traced_result(seed=1).write(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / WRITING_MARK).mkdir()  # cannot be opened as a file
    with pytest.raises(OSError):
        traced_result(seed=2).write(out)
    (out / WRITING_MARK).rmdir()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.warns(dcnsim.DcnsimWarning, match="replacing them"):
        traced_result(seed=2).write(out)
    assert json.loads((out / "scenario.json").read_text())["seed"] == 2


def test_ctrl_c_while_the_files_go_in_place_waits_for_them(tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM) while a rewrite removes the earlier run and
    renames the new one's files into place left neither run whole (the
    earlier one gone, the new one half there); it now waits the few
    renames out: the new run is whole, then the interrupt is raised."""
    import os
    import signal

    from dcnsim import result as result_mod

    out = tmp_path / "out"
    traced_result(seed=1).write(out)
    real = result_mod.remove_earlier_files

    def interrupted_first(*a, **kw):
        os.kill(os.getpid(), signal.SIGINT)
        return real(*a, **kw)

    monkeypatch.setattr(result_mod, "remove_earlier_files", interrupted_first)
    with pytest.warns(dcnsim.DcnsimWarning, match="held an earlier run's results"):
        with pytest.raises(KeyboardInterrupt):
            traced_result(seed=2).write(out)
    monkeypatch.setattr(result_mod, "remove_earlier_files", real)
    assert json.loads((out / "scenario.json").read_text())["seed"] == 2
    assert not (out / result_mod.WRITING_MARK).exists()
    listed = json.loads((out / "summary.json").read_text())["files"]
    assert {p.name for p in out.iterdir()} == {*listed, "summary.json"}
    assert (out / "h0.pcap").read_bytes() == b"pcap bytes" and (out / "flow_ts.csv").is_file()
    # and the handler in place before is back
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_file_that_cannot_be_made_is_named_not_its_temporary(tmp_path, monkeypatch):
    """No room for a new file (inodes exhausted, a read-only remount): the
    error named the hidden temporary (`.flows.csv.9aaf85f0.tmp`); it names
    the file the user asked for."""
    import errno

    from dcnsim import _atomic

    real = os.open

    def no_inodes(path, *a, **kw):
        if str(path).endswith(".tmp"):
            raise OSError(errno.ENOSPC, "No space left on device", path)
        return real(path, *a, **kw)

    monkeypatch.setattr(_atomic.os, "open", no_inodes)
    target = tmp_path / "flows.csv"
    with pytest.raises(OSError) as e:
        _atomic.atomic_write(target, lambda fh: fh.write("x"))
    assert e.value.filename == str(target)
    assert not target.exists() and not list(tmp_path.iterdir())


@needs_core
@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX-only")
def test_a_directory_that_takes_no_data_is_refused_before_the_run(tmp_path):
    """A full disk still creates an empty file, so a probe of a name alone
    let `dcnsim run --out` simulate and then fail at its first table.
    RLIMIT_FSIZE makes any write past 32 KiB fail (EFBIG) as a full disk's
    (ENOSPC) would: the run is refused before it starts, nothing is left."""
    import subprocess
    import sys

    from dcnsim._atomic import PROBE_BYTES

    assert len(PROBE_BYTES) > 32768
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (32768, 32768))\n"
            "from dcnsim.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    scenario = os.path.join(os.path.dirname(__file__), "..", "scenarios", "kulkarni_incast.toml")
    r = subprocess.run([sys.executable, "-c", code, "run", scenario, "--out", "out"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "run: --out out: cannot write in .: File too large (a 64 KiB test file failed)" in r.stderr, r.stderr
    assert "flows" not in r.stdout  # no summary: nothing was simulated
    assert sorted(os.listdir(tmp_path)) == []
