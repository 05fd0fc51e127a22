"""The incast model evaluated on a run written to disk."""


import dcnsim
import pytest
from conftest import needs_core
from dcnsim.models.fromrun import model_from_run


def _incast(n, blocks=12):
    return {
        "name": f"incast{n}",
        "stop": "30s",
        "topology": {"kind": "star", "hosts": n + 1, "rate": "1Gbps", "delay": "50us", "buffer": "32KB"},
        "tcp": {"mss": 1024, "rto_min": "200ms", "rwnd": "1000pkt"},
        "apps": [{"kind": "sync_reads", "client": 0, "servers": f"1-{n}", "sru": "256KB", "blocks": blocks, "jitter": "20us"}],
    }


@needs_core
def test_model_from_run_reads_inputs_and_orders_models(tmp_path):
    dcnsim.run(_incast(16)).write(tmp_path / "r")
    m = model_from_run(tmp_path / "r")
    i = m.inputs
    assert i.n == 16
    assert 0 < i.p_r < 1 and 0 < i.p_c < 1
    # L = SRU x n in packets
    assert i.L_pkts == pytest.approx(256 * 1024 * 16 / 1024)
    # RTT from the flows' smoothed RTT: at least the unloaded 4 x 50 us
    assert i.rtt_s >= 200e-6
    # timeouts happened at 16 servers and each stalls about RTOmin or more
    assert i.t0_s >= 0.1
    tp = m.throughput_bps
    # timeouts only lower throughput: Full <= TD-only; Split >= Full (docs/models.md)
    assert tp["full_bps"] <= tp["td_bps"] + 1e-6
    assert tp["split_bps"] >= tp["full_bps"] - 1e-6
    # every model is capped at the 1 Gbps bottleneck
    for k in ("td_bps", "full_bps", "split_bps", "padhye_n_bps"):
        assert tp[k] <= 1e9 * 1024 / 1064 + 1
    assert "simulation" in str(m) and "Split" in str(m)


def test_model_from_run_rejects_a_non_results_dir(tmp_path):
    with pytest.raises(FileNotFoundError):
        model_from_run(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="flows and blocks"):
        model_from_run(tmp_path / "empty")


@needs_core
def test_an_interrupted_write_is_refused_not_read(tmp_path):
    """Without summary.json (written last) a directory is an interrupted
    write: its tables may be of two runs (the new small ones beside the old
    large ones), so the model refuses it, naming why."""
    dcnsim.run(_incast(4, blocks=3)).write(tmp_path / "r")
    (tmp_path / "r" / "summary.json").unlink()
    with pytest.raises(ValueError, match="incomplete .it has no summary.json"):
        model_from_run(tmp_path / "r")


@needs_core
def test_the_cap_and_the_block_follow_the_runs_profile_and_framing(tmp_path):
    """The line-rate cap is the payload a link carries: with the Linux
    profile (MSS 1448, 52 B of headers) and 38 B of Ethernet framing, 1 Gbps
    carries 1448/1538 of it; a block is counted in the profile's segments."""
    doc = _incast(4, blocks=6)
    doc["tcp"] = {"profile": "linux", "rwnd": "1000pkt"}
    doc["l2_overhead"] = 38
    dcnsim.run(doc).write(tmp_path / "r")
    m = model_from_run(tmp_path / "r")
    assert m.payload_bytes == 1448
    assert m.inputs.L_pkts == pytest.approx(256 * 1024 * 4 / 1448)
    # four servers barely lose: TD-only's window-limited rate meets the cap,
    # which is this one (40 B headers and no framing gave 962.4 Mbps)
    assert m.throughput_bps["td_bps"] == pytest.approx(1e9 * 1448 / (1448 + 52 + 38), rel=1e-6)
    assert m.cap_bps == pytest.approx(1e9 * 1448 / (1448 + 52 + 38))
    # a value printed at the cap says it is the cap, not the model's own
    td = next(line for line in str(m).splitlines() if "TD-only" in line)
    assert "[at the line-rate cap]" in td
    assert not any("cap]" in line for line in str(m).splitlines() if "simulation " in line)


@needs_core
def test_a_custom_topology_is_capped_at_the_port_toward_the_client(tmp_path):
    """A custom topology sets each link's rate and names no common one: the
    incast's bottleneck is the switch port that feeds the client, read from
    the queues table (the same cap as the built-in star at that rate)."""
    n = 8
    doc = _incast(n, blocks=4)
    # the built-in star written as a custom topology: hosts first, one switch;
    # the client's link at 500 Mbps, the servers' at 1 Gbps
    hosts = [{"name": f"c{i}", "kind": "host"} for i in range(n + 1)]
    links = [{"a": f"c{i}", "b": "sw", "rate": "500Mbps" if i == 0 else "1Gbps", "delay": "50us"}
             for i in range(n + 1)]
    doc["topology"] = {"kind": "custom", "buffer": "32KB", "nodes": hosts + [{"name": "sw", "kind": "switch"}],
                       "links": links}
    dcnsim.run(doc).write(tmp_path / "r")
    m = model_from_run(tmp_path / "r")
    assert m.capacity_bps == 500e6
    assert any("the switch port toward the client" in x for x in m.notes)
    # every model at or below the client port's payload rate (1024 B of 1064 on the wire)
    for k in ("td_bps", "full_bps", "split_bps", "padhye_n_bps"):
        assert m.throughput_bps[k] <= 500e6 * 1024 / 1064 + 1


@needs_core
def test_zeta_is_the_dissertations_timeouts_at_a_blocks_start_with_the_strict_count_beside(tmp_path):
    """ζ is "the mean number of timeouts occurring at the beginning of a
    block transfer": per block, the servers whose timer fired in it, at most
    its first-flight RTOs. `dcnsim model incast` gave the strict count (no
    ACK of the block back) as ζ while `reproduce kulkarni` fed the model
    this reading; now both do, and the strict count, its lower bound, is
    kept as zeta_strict."""
    r = dcnsim.run(_incast(16))
    r.write(tmp_path / "r")
    i = model_from_run(tmp_path / "r").inputs
    b = r.blocks
    ff = (b.rto_first_flight - b.request_timeouts).mean()
    assert i.zeta_strict == pytest.approx(b.abtt_flows.mean())
    assert i.zeta_strict <= i.zeta <= ff and 0 < i.zeta <= 16
    # without the losses trace the reading cannot be made: ζ falls back to the strict count, said in a note
    from dcnsim.models import incast_inputs

    bare = incast_inputs(r.flows, r.blocks, payload_bytes=1024, t0_default_s=0.2)
    assert bare.zeta == bare.zeta_strict == i.zeta_strict
    assert any("the strict count" in n and "a lower bound" in n for n in bare.notes), bare.notes
