"""`dcnsim model dctcp`, the unit parser behind it, and the N*max law in
simulation: DCTCP's first incast timeouts appear near N*max (FaST eq. 7)."""

from __future__ import annotations

import json
import re

import dcnsim
import pytest
from conftest import cli, needs_core
from dcnsim.models import n_star, n_star_max
from dcnsim.units import UnitError, parse_count, parse_rate, parse_size, parse_time

# ---------------------------------------------------------------- units


def test_units():
    assert parse_rate("1Gbps") == 1e9 and parse_rate("100 Mbps") == 1e8 and parse_rate("1e9bps") == 1e9
    assert parse_time("100us") == 1e-4 and parse_time("1.5ms") == 1.5e-3 and parse_time("2s") == 2.0
    assert parse_time("100µs") == 1e-4
    s = parse_size("100KB")
    assert (s.binary, s.decimal, s.prefixed) == (102_400, 100_000, True)
    assert parse_size("1500") == (1500, 1500, False, "1500") and parse_size("1500B").binary == 1500
    assert parse_size("32KiB").decimal == 32 * 1024  # KiB is binary in both readings
    assert parse_count("20") == 20 and parse_count("20pkt") == 20
    for bad, fn in (("100", parse_time), ("fast", parse_rate), ("1Gbps", parse_size), ("-1KB", parse_size),
                    ("0Gbps", parse_rate), ("20MB", parse_count)):
        with pytest.raises(UnitError):
            fn(bad)


# ---------------------------------------------------------------- the CLI


def _numbers(text: str, label: str):
    return [float(x) for x in re.findall(rf"{re.escape(label)}\s*=\s*([0-9.]+) flows", text)]


def test_model_dctcp_prints_the_papers_numbers():
    r = cli("model", "dctcp", "--capacity", "1Gbps", "--rtt", "100us", "--k", "20", "--buffer", "100KB",
            "--mss", "1500", "--wmin", "2")
    assert r.returncode == 0, r.stderr
    (ns,) = _numbers(r.stdout, "N*")  # N* does not depend on B: one line
    assert ns == pytest.approx(14, abs=0.5)
    nmax = _numbers(r.stdout, "N*max")
    assert len(nmax) == 2  # both readings of "KB"
    assert nmax[0] == pytest.approx(37.5, abs=0.01)  # KB = 1000 B: the paper's 37.5
    assert nmax[1] == pytest.approx(38.3, abs=0.01)  # KB = 1024 B, dcnsim's scenario reading
    assert "KB = 1000 B" in r.stdout and "KB = 1024 B" in r.stdout


def test_a_fractional_minimum_window_is_the_models_not_a_rounded_one():
    """Wmin is in segments; N*max scales as 1/Wmin: 0.5 (rounded to 1
    before) gives four times the paper's 37.5, and 0 or a word is refused."""
    r = cli("model", "dctcp", "--buffer", "100000", "--wmin", "0.5", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["decimal"]["n_star_max"] == pytest.approx(4 * 37.5)
    for bad in ("0", "-1", "two", "nan"):
        r = cli("model", "dctcp", "--buffer", "100000", "--wmin", bad)
        assert r.returncode == 2 and "--wmin" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_fractional_k_is_rounded_with_a_note():
    """K is a whole number of packets (as a scenario's ecn_k): 2.5 was
    taken as 3 with nothing said; now it is said, and 20 says nothing."""
    r = cli("model", "dctcp", "--k", "2.5", "--json")
    assert r.returncode == 0, r.stderr
    assert "--k 2.5 is rounded to 3 packets" in r.stderr, r.stderr
    assert json.loads(r.stdout)["K_pkts"] == 3
    r = cli("model", "dctcp", "--k", "20")
    assert r.returncode == 0 and "rounded" not in r.stderr, r.stderr


def test_model_dctcp_json_and_w_star():
    r = cli("model", "dctcp", "--buffer", "100000", "--n", "40", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["decimal"]["n_star_max"] == pytest.approx(37.5)
    assert d["binary"] == d["decimal"]  # no K/M prefix: one reading, under both keys (a script reads either)
    assert d["decimal"]["w_star"] == pytest.approx(28.333 / 40, rel=1e-3)
    # the defaults are the paper's example
    r = cli("model", "dctcp")
    assert r.returncode == 0 and "37.50" in r.stdout and "14.17" in r.stdout


def test_model_dctcp_labels_each_reading_of_a_kb_mss():
    # with a KB in the MSS eq. 4's budget differs between the readings: a
    # line each, labelled (one unlabelled line read as the 1000 B one)
    r = cli("model", "dctcp", "--mss", "1.5KB", "--n", "10")
    assert r.returncode == 0, r.stderr
    budget = [line for line in r.stdout.splitlines() if "C·RTT/MSS + K" in line]
    assert len(budget) == 2 and "[KB = 1000 B]" in budget[0] and "[KB = 1024 B]" in budget[1], budget
    # C·RTT/MSS + K at 1 Gbps and 100 us (12,500 B) with K = 20: MSS 1,500 B or 1,536 B
    assert f"{12_500 / 1500 + 20:.2f} pkts" in budget[0] and f"{12_500 / 1536 + 20:.2f} pkts" in budget[1], budget
    w = [line for line in r.stdout.splitlines() if "W*(N = 10)" in line]
    assert len(w) == 2 and all("[KB = " in x for x in w), w
    # an MSS in bytes has one budget: one line, no label
    r = cli("model", "dctcp", "--mss", "1500")
    assert sum("C·RTT/MSS + K" in line for line in r.stdout.splitlines()) == 1


def test_model_dctcp_a_bare_buffer_below_one_mss_is_warned_about():
    # "B = 100 packets" typed bare is 100 bytes: N*max falls to ~4 flows
    r = cli("model", "dctcp", "--buffer", "100", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["decimal"]["B_bytes"] == 100  # the value is still what was typed
    assert "--buffer 100 is 100 bytes, below one MSS (1,500 B)" in r.stderr, r.stderr
    assert "did you mean 100 packets, --buffer 100pkt = 150000 B?" in r.stderr, r.stderr
    for fine in ("100KB", "150000"):
        r = cli("model", "dctcp", "--buffer", fine)
        assert r.returncode == 0 and "warning" not in r.stderr, (fine, r.stderr)
    # 100 bytes written with a unit is meant: not read as packets, but below
    # K = 20 packets, which the queue then never reaches
    r = cli("model", "dctcp", "--buffer", "100B")
    assert r.returncode == 0 and "did you mean" not in r.stderr and "is not below --buffer 100B" in r.stderr


def test_model_dctcp_bad_input_exits_2():
    for args in (("--rtt", "100"), ("--capacity", "fast"), ("--buffer", "1Gbps")):
        r = cli("model", "dctcp", *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, args
    r = cli("model")
    assert r.returncode == 2


# ---------------------------------------------------------------- N*max in simulation


def _incast(n: int, buffer: str, k: int, queries: int = 3) -> dict:
    """n DCTCP workers answer 10 KB each to host 0 over a 1 Gbps star with
    25 µs links (base RTT 100 µs, as in FaST §3); ``buffer`` per port, ECN
    threshold k packets, initial window 2 = Wmin; every query opens fresh
    connections (the model's synchronized start)."""
    return {
        "name": f"nstarmax-{buffer}-{k}-{n}",
        "stop": "10s",
        "host_jitter": "1us",
        "topology": {"kind": "star", "hosts": n + 1, "rate": "1Gbps", "delay": "25us", "buffer": buffer,
                     "ecn_k": f"{k}pkt"},
        "tcp": {"cc": "dctcp", "mss": 1460, "init_cwnd": 2, "rto_min": "10ms", "rwnd": "128KB"},
        "apps": [{"kind": "partition_aggregate", "aggregator": 0, "workers": f"1-{n}", "response": "10KB",
                  "queries": 1, "start": f"{0.5 * i:g}s"} for i in range(queries)],
    }


def _onset(buffer: str, k: int, lo: int, hi: int):
    """Fewest workers whose queries see a retransmission timeout."""
    for n in range(lo, hi + 1):
        if dcnsim.run(_incast(n, buffer, k)).metrics["timeouts"] > 0:
            return n
    return None


@needs_core
def test_dctcp_incast_onset_is_near_n_star_max():
    # The model (FaST eq. 6-7): N flows each pinned at Wmin = 2 segments
    # overflow the port when 2·N·MSS > C·RTT + B, so timeouts start at
    # N*max = (C·RTT + B) / (Wmin·MSS). MSS counts the whole 1500 B packet
    # (1460 B payload + 40 B headers): the buffer holds packets, not payload.
    #
    # Why a band of 0.6x-1.5x, not equality. What the model ignores:
    # * the sawtooth / slow start: a window is not pinned at Wmin from the
    #   first RTT; workers whose first ACKs come back unmarked grow to 4
    #   segments before DCTCP's cut (alpha starts at 1, but a cut needs
    #   marks), so the burst is larger than 2·N packets and overflow comes
    #   earlier (we see ~0.85x);
    # * the pipe is more than C·RTT at the bottleneck: packets in
    #   serialization on the senders' links and in their NIC queues are also
    #   "in flight", which delays overflow (up to a few packets per flow);
    # * K: the model assumes N > N* (marking has already pinned every window
    #   at Wmin). With K close to the buffer, DCTCP overflows in slow start
    #   before marking bites and the onset drops far below N*max (K = 65 with
    #   100 KB gives ~0.5x), so the settings keep K at ~1/5 of the buffer.
    settings = [("50KB", 10), ("100KB", 20), ("200KB", 40)]
    onsets = []
    for buffer, k in settings:
        B = int(buffer[:-2]) * 1024
        nmax = float(n_star_max(1e9, 100e-6, B, 1500, 2))
        assert nmax > float(n_star(1e9, 100e-6, k, 1500, 2))  # the regime the model describes
        lo = max(2, int(0.6 * nmax) - 1)
        # below the band: no timeouts at all
        assert dcnsim.run(_incast(lo, buffer, k)).metrics["timeouts"] == 0, (buffer, k, lo)
        onset = _onset(buffer, k, lo, int(1.5 * nmax) + 1)
        assert onset is not None, f"no timeouts up to 1.5 x N*max = {1.5 * nmax:.0f} for {buffer}, K = {k}"
        assert 0.6 * nmax <= onset <= 1.5 * nmax, (buffer, k, onset, nmax)
        onsets.append(onset)
    # and the law's trend: more buffer, more workers before incast
    assert onsets == sorted(onsets) and onsets[0] < onsets[-1]


# ---------------------------------------------------------------- dcnsim model incast

_INCAST_TOML = """
name = "kulkarni-incast-12"
stop = "60s"
[topology]
kind = "star"
hosts = 13
rate = "1Gbps"
delay = "50us"
buffer = "32KB"
[tcp]
mss = 1024
rto_min = "200ms"
rwnd = "1000pkt"
[[apps]]
kind = "sync_reads"
client = 0
servers = "1-12"
sru = "256KB"
blocks = 12
jitter = "20us"
"""


@needs_core
def test_model_incast_from_a_run_written_by_dcnsim_run(tmp_path):
    f = tmp_path / "incast.toml"
    f.write_text(_INCAST_TOML)
    r = cli("run", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    r = cli("model", "incast", "--from-run", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for label in ("simulation", "TD-only model (3.21)", "Full model (3.39)", "Split model (3.40)", "n x Padhye"):
        assert label in out
    assert "n = 12" in out and "L = 3072 pkts" in out  # 12 x 256 KB in 1 KB packets
    mbps = {m.group(1).strip(): float(m.group(2)) for m in
            re.finditer(r"^  (simulation|TD-only model \(3\.21\)|Full model \(3\.39\)|Split model \(3\.40\))\s+"
                         r"([0-9.]+) Mbps", out, re.M)}
    assert len(mbps) == 4
    # the simulated goodput is the blocks' goodput from the run's summary
    summ = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert mbps["simulation"] == pytest.approx(summ["block_goodput_bps"] / 1e6, abs=0.06)
    # timeouts only lengthen a TD period: Full <= Split <= TD-only (docs/models.md)
    assert mbps["Full model (3.39)"] <= mbps["Split model (3.40)"] + 0.05 <= mbps["TD-only model (3.21)"] + 0.1
    j = cli("model", "incast", "--from-run", str(tmp_path / "out"), "--app", "0", "--json")
    assert j.returncode == 0, j.stderr
    doc = json.loads(j.stdout)
    assert doc["inputs"]["n"] == 12 and doc["throughput_bps"]["sim_bps"] == pytest.approx(summ["block_goodput_bps"])


def test_model_incast_errors_are_clear(tmp_path):
    r = cli("model", "incast", "--from-run", str(tmp_path / "missing"))
    assert r.returncode == 2 and "not a results directory (no such directory;" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    (tmp_path / "a_file").write_text("x")
    r = cli("model", "incast", "--from-run", str(tmp_path / "a_file"))
    assert r.returncode == 2 and "not a results directory (a file;" in r.stderr, r.stderr
    (tmp_path / "empty").mkdir()
    r = cli("model", "incast", "--from-run", str(tmp_path / "empty"))
    assert r.returncode == 2 and "flows and blocks" in r.stderr and "Traceback" not in r.stderr
    r = cli("model", "incast")
    assert r.returncode == 2 and "--from-run" in r.stderr


@needs_core
def test_model_incast_unknown_app(tmp_path):
    f = tmp_path / "incast.toml"
    f.write_text(_INCAST_TOML.replace('servers = "1-12"', 'servers = "1-2"').replace("blocks = 12", "blocks = 2"))
    assert cli("run", str(f), "--out", str(tmp_path / "out")).returncode == 0
    r = cli("model", "incast", "--from-run", str(tmp_path / "out"), "--app", "3")
    assert r.returncode == 2 and "app 3" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("argv, says", [
    (["dctcp", "--n", "0"], "model dctcp: --n: must be a whole number of flows ≥ 1"),
    (["enqueue", "--rmin", "0"], "model enqueue: --rmin: each value in [1, --mss = 1448], got 0"),
    (["enqueue", "--seed", "-1"], "model enqueue: --seed: expected an integer in [0, 2^64)"),
    # argparse's own refusals: the same one line, not its usage block
    (["enqueue", "--seed", "abc"], "model enqueue: --seed: invalid int value: 'abc'"),
    (["enqueue", "--phase", "foo"], "model enqueue: --phase: invalid choice: 'foo'"),
    (["dctcp", "--n", "abc"], "model dctcp: --n: invalid float value: 'abc'"),
    (["dctcp", "--rtt", "-1us"], "model dctcp: --rtt: expected one argument (a value starting with '-' goes after "
                                 "'=': --rtt=-VALUE)"),
    (["incast", "--app", "x"], "model incast: --app: invalid int value: 'x'"),
    # a fraction of a byte was rounded without a word (MSS = 1.5 computed as 2 B)
    (["dctcp", "--mss", "1.5"], "model dctcp: --mss: '1.5' is not a whole number of bytes"),
    (["dctcp", "--buffer", "1.5"], "model dctcp: --buffer: '1.5' is not a whole number of bytes"),
    (["incast", "--from-run", ""], "model incast: --from-run: '' is an empty path"),
])
def test_a_model_options_error_names_the_option(argv, says):
    r = cli("model", *argv)
    assert r.returncode == 2 and r.stderr.startswith(says) and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_model_incast_json_is_strict_json_and_t0_is_the_default_rto_min(tmp_path):
    """One server never times out and the scenario leaves rto_min unset: T0
    was NaN (the run's RTOmin is the profiles' 200 ms, known), and the JSON
    carried it as a bare NaN, which JSON.parse refuses; now T0 is 200 ms,
    and any value still unknown is null, as summary.json writes it."""
    from dcnsim.result import _jsonable

    f = tmp_path / "one.toml"
    f.write_text(_INCAST_TOML.replace('servers = "1-12"', 'servers = [1]').replace("blocks = 12", "blocks = 3")
                 .replace('rto_min = "200ms"\n', ""))
    assert "rto_min" not in f.read_text()
    assert cli("run", str(f), "--out", str(tmp_path / "out")).returncode == 0
    j = cli("model", "incast", "--from-run", str(tmp_path / "out"), "--json")
    assert j.returncode == 0, j.stderr

    def refuse(c):
        raise ValueError(f"not JSON: {c}")

    doc = json.loads(j.stdout, parse_constant=refuse)
    assert doc["inputs"]["n"] == 1 and doc["inputs"]["t0_s"] == pytest.approx(0.2)
    assert all(v is not None for v in doc["throughput_bps"].values()), doc["throughput_bps"]
    assert _jsonable({"a": [float("nan"), 1.0], "b": float("inf")}) == {"a": [None, 1.0], "b": None}


def test_fct_bins_leaves_out_a_flow_that_never_started():
    """A 20 MB flow starting after the stop wrote nothing: binned by its 0
    bytes it was an incomplete *short* flow."""
    import dcnsim
    from dcnsim.analysis import fct_bins

    sc = dcnsim.Scenario(topology=dcnsim.Star(hosts=3, rate="1Gbps", delay="10us", buffer="100KB"),
                         apps=[dcnsim.Bulk(src=1, dst=0, size="50KB"),
                               dcnsim.Bulk(src=2, dst=0, size="20MB", start="500ms")], stop="100ms")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = dcnsim.run(sc)
    b = fct_bins(r.flows)
    assert int(b["flows"].sum()) == 1 and int(b.loc["short", "incomplete"]) == 0 and int(b.loc["short", "completed"]) == 1


@needs_core
def test_from_run_names_a_run_cut_short_and_a_sweeps_directory(tmp_path, small_incast_path):
    """A sync_reads run stopped before any block finished was asked
    whether it is a sync_reads scenario; a sweep's directory was said to
    lack tables, with no word of its points."""
    from dcnsim import cli as cli_mod

    assert cli_mod.main(["run", str(small_incast_path), "--set", "stop=10us", "--out", str(tmp_path / "short"),
                         "--no-progress"]) == 0
    r = cli("model", "incast", "--from-run", str(tmp_path / "short"))
    assert r.returncode == 2 and "no block finished before the run's stop: run it with a longer stop" in r.stderr, \
        r.stderr
    assert cli_mod.main(["sweep", str(small_incast_path), "--set", "stop=10us,20us", "--out", str(tmp_path / "sw"),
                         "--no-progress", "--jobs", "1"]) == 0
    r = cli("model", "incast", "--from-run", str(tmp_path / "sw"))
    assert r.returncode == 2 and "a sweep's directory: give one point's directory" in r.stderr, r.stderr
