"""tcp.ca_increase end to end: congestion avoidance by byte counting adds one
SMSS per RTT however the receiver ACKs; per ACK (SMSS²/cwnd on each ACK, as
ns-2 and ns-3's TcpNewReno) adds one SMSS per RTT with an ACK per segment
and half of it with an ACK per two segments (delayed ACKs)."""

from __future__ import annotations

import dcnsim
import pytest

MSS = 1000
ONE_WAY = 5e-3  # per link: the star's path is two links each way


def growth_per_rtt(ca_increase: str, delayed_ack: bool) -> float:
    """cwnd growth per RTT, in segments, of one bulk flow in congestion
    avoidance on a path far from full (2.5 MB of bandwidth-delay product
    against a window of tens of KB: no queue, the RTT stays the path's)."""
    sc = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=2, rate="1Gbps", delay=f"{ONE_WAY * 1e3:g}ms", buffer="10MB"),
        apps=dcnsim.Bulk(src=0, dst=1, duration="1s", start="0s"),
        tcp=dcnsim.Tcp(mss=MSS, header=40, init_cwnd=10, init_ssthresh=2, rwnd="100MB",
                       delayed_ack=delayed_ack, delayed_ack_timeout="1ms", ca_increase=ca_increase),
        routing="single", stop="1.1s", trace={"interval": "10ms", "flows": True},
    )
    ts = dcnsim.run(sc).flow_ts
    ts = ts[(ts.time_s >= 0.2) & (ts.time_s <= 0.9)]
    rtt = 4 * ONE_WAY
    span = ts.time_s.iloc[-1] - ts.time_s.iloc[0]
    return float(ts.cwnd_bytes.iloc[-1] - ts.cwnd_bytes.iloc[0]) / MSS / (span / rtt)


@pytest.mark.parametrize("delayed_ack", [False, True])
def test_byte_counting_adds_one_segment_per_rtt(delayed_ack):
    assert growth_per_rtt("bytes", delayed_ack) == pytest.approx(1.0, rel=0.1)


def test_per_ack_adds_smss_squared_over_cwnd_per_ack():
    # An ACK per segment: cwnd/SMSS ACKs per RTT, each SMSS²/cwnd — one
    # segment per RTT (a little less: the window grows under the ACKs).
    assert growth_per_rtt("per_ack", False) == pytest.approx(1.0, rel=0.1)
    # An ACK per two segments: half the ACKs, half the growth.
    ratio = growth_per_rtt("per_ack", True) / growth_per_rtt("bytes", True)
    assert 0.4 < ratio < 0.65, ratio


def test_bad_value_names_the_key():
    sc = {"topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "10pkt"},
          "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": 1000}], "tcp": {"ca_increase": "per_segment"}}
    assert dcnsim.validate(sc) == [
        "tcp.ca_increase: unknown congestion-avoidance increase 'per_segment' (valid: bytes, per_ack)"
    ]


def test_cli_runs_the_key_and_names_a_bad_value(tmp_path):
    from conftest import cli

    doc = tmp_path / "ca.toml"
    base = """
stop = "0.2s"
topology = { kind = "star", hosts = 2, rate = "1Gbps", delay = "5ms", buffer = "10MB" }
apps = [{ kind = "bulk", src = 0, dst = 1, duration = "0.1s" }]
"""
    doc.write_text(base + '[tcp]\ninit_ssthresh = 2\nca_increase = "per_ack"\n', encoding="utf-8")
    r = cli("run", str(doc), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert '"ca_increase": "per_ack"' in (tmp_path / "out" / "scenario.json").read_text(encoding="utf-8")
    doc.write_text(base + '[tcp]\nca_increase = "perack"\n', encoding="utf-8")
    r = cli("validate", str(doc))
    assert r.returncode != 0
    assert "tcp.ca_increase: unknown congestion-avoidance increase 'perack' (did you mean 'per_ack'? valid: bytes, per_ack)" in r.stderr + r.stdout
