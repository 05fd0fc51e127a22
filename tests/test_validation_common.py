"""validation/ns3_common.py, which the ns-3 harnesses read both simulators'
pcaps with: it must read dcnsim's pcaps as docs/scenario.md describes them
(sequence numbers, TCP timestamps carrying the send time in µs, SACK
blocks), and the incast harness's delayed-ACK keys must be ns-3's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import load_module, needs_core

REPO = Path(__file__).resolve().parents[1]


common = load_module("ns3_common", REPO / "validation" / "ns3_common.py")


def test_overrides_keep_times_as_strings_and_reject_a_missing_value():
    got = common.parse_overrides(["sack=true", "abc_limit=1", "x=0.5", "delayed_ack_timeout=200ms"])
    assert got == {"sack": True, "abc_limit": 1, "x": 0.5, "delayed_ack_timeout": "200ms"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        common.parse_overrides(["sack"])


def _incast_run():
    sys.path.insert(0, str(REPO / "validation"))
    return load_module("ns3_incast_run", REPO / "validation" / "ns3_incast" / "run.py")


@needs_core
def test_dcnsim_pcap_reads_back_as_sent():
    import dcnsim

    # The incast harness's own scenario: 30 workers lose segments at the
    # aggregator's port and recover with SACK.
    doc = _incast_run().dcnsim_scenario(30, "newreno", 3, "persistent", 0.01, {"ca_increase": "per_ack"})
    doc["pcap"] = {"hosts": "1-30"}
    r = dcnsim.run(doc)
    assert r.flows.fast_retransmits.sum() > 0, "no fast recovery: nothing SACKed"
    n_blocks = 0
    for h in range(1, 31):
        me = (10 << 24 | h + 1).to_bytes(4, "big").hex()  # host h is 10.0.0.0 + h + 1
        pkts = [(t, common.tcp_fields(ip), common.tcp_options(ip))
                for t, ip in common.pcap_records(r.pcaps[f"h{h}.pcap"])]
        data = [(t, f, o) for t, f, o in pkts if f[0] == me and f[7] > 0]
        for t, _, (tsval, _) in data:
            # TSval is the send time in µs (docs/scenario.md, "pcap traces").
            assert tsval == int(t * 1e6 + 1e-6), (h, t, tsval)  # whole µs, truncated
        # Three 10,000-byte responses, contiguous from the first byte.
        first = min(f[4] for _, f, _ in data)
        reach = first
        for lo, hi in sorted((f[4], f[4] + f[7]) for _, f, _ in data):
            assert lo <= reach, f"host {h}: a gap in the sent data at {reach - first}"
            reach = max(reach, hi)
        assert reach - first == 30_000, f"host {h}"
        for _, f, (_, sack) in pkts:
            if f[1] == me and f[7] == 0:
                for left, right in sack:
                    assert first < left < right <= reach and right > f[5], (h, f[5], left, right)
                    n_blocks += 1
    assert n_blocks > 0, "losses with SACK must put SACK blocks on the ACKs"


def test_incast_harness_delayed_acks_are_ns3s():
    run = _incast_run()
    assert run.delayed_ack_keys(1) == {"delayed_ack": False}
    keys = run.delayed_ack_keys(2)
    # ns-3's DelAckCount 2 with its 200 ms timer, and no quick ACK: the
    # aggregator's request clears ns-3's first-segment rule.
    assert keys == {"delayed_ack": True, "delayed_ack_segments": 2, "delayed_ack_timeout": "200ms",
                    "delayed_ack_quickack": 0}
    assert run.NS3_ABC_LIMIT["newreno"] == 1


def test_an_ns3_program_appears_whole_or_not_at_all(tmp_path, monkeypatch):
    """Two harnesses (or two test workers) building one program: the one
    that finds the executable must find all of it. The compiler writes
    another name, renamed into place when it has finished; a failed build
    leaves nothing behind."""
    build = tmp_path / "build"
    exe = build / "prog"
    fake = tmp_path / "g++"
    # a compiler that records whether it links straight into the program's
    # name, where a reader would find it half written
    fake.write_text("#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\nout=$2\n"
                    f"[ \"$out\" = \"{exe}\" ] && echo direct >> {tmp_path}/log\n"
                    "printf half > \"$out\"; printf ' whole' >> \"$out\"\n")
    fake.chmod(0o755)
    monkeypatch.setattr(common.shutil, "which", lambda name: str(fake))
    src = tmp_path / "prog.cc"
    src.write_text("int main() {}\n")
    assert common.ns3_binary(src, build) == exe
    assert exe.read_text() == "half whole"
    assert not (tmp_path / "log").exists(), "linked into the program's own name: visible half written"
    # the program and the stamp of the text it was built from, nothing half made
    assert sorted(p.name for p in build.iterdir()) == ["prog", "prog.sources"]
    # a failing build: SystemExit, and no half-made file of it
    fake.write_text("#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\nprintf half > \"$2\"\nexit 1\n")
    src.write_text("int main() { return 1; }\n")
    exe.unlink()
    with pytest.raises(SystemExit, match="compiling the ns-3 program failed"):
        common.ns3_binary(src, build)
    # the earlier build's stamp alone: it names another text, so the next
    # call builds again
    assert [p.name for p in build.iterdir()] == ["prog.sources"]


def test_a_cached_run_is_kept_whole_and_read_back(tmp_path):
    """``run_cached``: the output lands in its file whole (no ``.tmp`` left),
    and a second call reads it back instead of running the program again."""
    f = tmp_path / "cache" / "run.txt"
    assert common.run_cached([sys.executable, "-c", "print('first')"], f) == "first\n"
    assert f.read_text() == "first\n" and not list(f.parent.glob("*.tmp"))
    # a program that would fail is not run: the cache answers
    assert common.run_cached([sys.executable, "-c", "raise SystemExit(3)"], f) == "first\n"
    assert common.run_cached([sys.executable, "-c", "print('none')"], None) == "none\n"


def test_the_range_options_expand_and_name_themselves():
    assert common.parse_ranges("1-3,7", "--seeds", "seeds", 0) == [1, 2, 3, 7]
    for bad, said in (("3-1", "is not a range of seeds >= 0"), ("x", "expected N, N-M")):
        with pytest.raises(ValueError, match="--seeds: .*" + said):
            common.parse_ranges(bad, "--seeds", "seeds", 0)
    with pytest.raises(ValueError, match="server counts >= 1"):
        common.parse_ranges("0", "--n", "server counts", 1)
