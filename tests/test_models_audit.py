"""Audit of the analytical models (`dcnsim model ...`, `dcnsim.models`).

Laws the papers' formulas imply, each derived in the test from the
equation it cites (FaST eqs. 4-7, SPEC §2.1; Kulkarni eqs. 3.10-3.39,
SPEC §2.3.1; Padhye et al.), and the mistakes a user meets: every one an
error naming the argument or option, never a traceback or a NaN / inf
printed as a result."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import cli
from dcnsim.models import dctcp, enqueue, incast, measure
from hypothesis import given, settings
from hypothesis import strategies as st

settings.register_profile("models_audit", deadline=None, max_examples=150)
settings.load_profile("models_audit")

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------- Kulkarni: reductions

@pytest.mark.parametrize("p", [1e-2, 1e-3, 1e-4, 1e-6])
def test_one_flow_is_padhyes_single_reno_flow(p):
    """n = 1, p_c = p_r = p: j = min(1, p_r/p_c) = 1 and eq. 3.18 reads
    1/p = 3X²/2 + X/2 − X, i.e. 3X² − X − 2/p = 0, so
    E[X] = (1 + sqrt(1 + 24/p))/6 and B_TD = (1/p)/(RTT·E[X]) (3.21).
    For small p, E[X] ≈ sqrt(2/(3p)) + 1/6, so B_TD tends to Padhye's
    TD-only rate 1/(RTT·sqrt(2p/3)) (his formula with T0 = 0), with a
    relative gap of about sqrt(3p/2)/6 < 0.25·sqrt(p)."""
    rtt = 200e-6
    ex = (1 + math.sqrt(1 + 24 / p)) / 6
    assert incast.expected_rounds(1, p, 1.0) == pytest.approx(ex, rel=1e-12)
    b = incast.throughput_td(1, p, p, rtt)
    assert b == pytest.approx((1 / p) / (rtt * ex), rel=1e-12)
    padhye_td = 1 / (rtt * math.sqrt(2 * p / 3))
    assert incast.padhye(p, rtt, 0.0) == pytest.approx(padhye_td, rel=1e-12)
    assert abs(b / padhye_td - 1) < 0.25 * math.sqrt(p)


@pytest.mark.parametrize("n", [2, 8, 64])
@pytest.mark.parametrize("p_c", [1e-4, 1e-6])
def test_fully_synchronized_flows_are_n_reno_flows(n, p_c):
    """Every flow loses at every event: p_r = n·p_c, so j = n, and eq. 3.18
    reads 1/p_c = 3nX²/2 + nX/2 − nX, i.e. 3nX² − nX − 2/p_c = 0:
    E[X] = (n + sqrt(n² + 24n/p_c))/(6n). Each flow then sends 1/(n·p_c)
    packets between its losses, a single Reno flow at loss rate p_r, and
    B_TD tends to n × Padhye's TD-only rate at p = p_r (gap ≈ sqrt(3p_r/2)/6)."""
    rtt = 100e-6
    p_r = n * p_c
    m = incast.incast_model(n, p_c, p_r, rtt, T0=0.2, L=1e4, zeta=0.0)
    assert m.j == pytest.approx(n, rel=1e-12)
    ex = (n + math.sqrt(n * n + 24 * n / p_c)) / (6 * n)
    assert m.EX == pytest.approx(ex, rel=1e-12)
    assert m.B_td == pytest.approx((1 / p_c) / (rtt * ex), rel=1e-12)
    n_padhye_td = n * incast.padhye(p_r, rtt, 0.0)
    assert abs(m.B_td / n_padhye_td - 1) < 0.25 * math.sqrt(p_r)
    # E[Wf] = 2n·E[X]/j (3.12 with 3.7) is then 2·E[X]: one Reno sawtooth
    assert m.EWf == pytest.approx(2 * ex, rel=1e-12)


def test_q_abtt_and_q_by_hand():
    """Q_abtt = E[ζ]/E[β], β = L/E[Y] = L·p_c (3.37-3.38); Q = min(1, Q_ibtt +
    Q_abtt) (3.31). n = 8, p_c = 0.002, L = 2048, ζ = 0.5: β = 4.096 TD
    periods per block, Q_abtt = 0.5/4.096 = 0.1220703125."""
    m = incast.incast_model(8, 0.002, 0.01, 200e-6, 0.2, 2048, 0.5)
    assert m.q_abtt == pytest.approx(0.5 / 4.096, rel=1e-12)
    assert m.Q_full == pytest.approx(min(1.0, m.q_ibtt_full + 0.5 / 4.096), rel=1e-12)
    # a block shorter than a TD period's worth of ABTTs: Q is capped at 1
    m = incast.incast_model(8, 0.002, 0.01, 200e-6, 0.2, 10, 5)
    assert m.Q_full == 1.0 and m.Q_split == 1.0


inputs = dict(n=st.integers(1, 500), p_c=st.floats(1e-6, 0.5), ratio=st.floats(0.05, 500.0),
              rtt=st.floats(1e-6, 1e-2), T0=st.floats(0.0, 1.0), L=st.floats(1.0, 1e6), zeta=st.floats(0.0, 20.0))


@given(**inputs, f=st.floats(1.01, 100.0))
def test_timeouts_only_cost_throughput(n, p_c, ratio, rtt, T0, L, zeta, f):
    """B = E[Y]/(RTT·E[X] + Q·T0) (3.39), Q = min(1, Q_ibtt + ζ/(L·p_c)):
    a longer timeout or more ABTTs can only lower Full and Split, a longer
    block only raise them; TD-only (3.21) has none of T0, L, ζ in it."""
    p_r = min(1.0, p_c * ratio)
    m = incast.incast_model(n, p_c, p_r, rtt, T0, L, zeta)
    assert 0 < m.j <= n
    assert 0 <= m.Q_split <= m.Q_full <= 1
    for other in (incast.incast_model(n, p_c, p_r, rtt, T0 * f, L, zeta),
                  incast.incast_model(n, p_c, p_r, rtt, T0, L, zeta * f + 0.01)):
        assert other.B_full <= m.B_full * (1 + 1e-12) and other.B_split <= m.B_split * (1 + 1e-12)
        assert other.B_td == m.B_td
    longer = incast.incast_model(n, p_c, p_r, rtt, T0, L * f, zeta)
    assert longer.B_full >= m.B_full * (1 - 1e-12) and longer.B_split >= m.B_split * (1 - 1e-12)
    assert longer.B_td == m.B_td


# ----------------------------------------------------------- FaST §3 laws

@given(C=st.floats(1e6, 1e12), rtt=st.floats(1e-6, 1e-1), K=st.floats(0, 1000), mss=st.floats(64, 9000),
       B=st.floats(0, 1e8), wmin=st.floats(0.1, 10))
def test_n_star_max_exceeds_n_star_exactly_when_the_buffer_holds_k_packets(C, rtt, K, mss, B, wmin):
    """Eq. 7 minus eq. 5: (C·RTT + B)/(Wmin·MSS) − (C·RTT/MSS + K)/Wmin
    = (B − K·MSS)/(Wmin·MSS). So N*max > N* iff B > K·MSS: the queue can
    reach K before it overflows (the CLI's warning is the other case)."""
    ns = dctcp.n_star(C, rtt, K, mss, wmin)
    nmax = dctcp.n_star_max(C, rtt, B, mss, wmin)
    assert nmax - ns == pytest.approx((B - K * mss) / (wmin * mss), rel=1e-9, abs=1e-9 * max(1.0, nmax))
    # eq. 4 is the window at which N synchronized windows fill the pipe and
    # put K packets in the queue: N·W* − C·RTT/MSS = K, for any N
    for n in (1, 7.5, 1000):
        queue = n * dctcp.critical_window(C, rtt, K, mss, n) - dctcp.bdp_packets(C, rtt, mss)
        assert queue == pytest.approx(K, abs=1e-9 * max(1.0, n * dctcp.critical_window(C, rtt, K, mss, n)))
    # W*(N*) = Wmin (eqs. 4, 5), and W* falls as N grows
    assert dctcp.critical_window(C, rtt, K, mss, ns) == pytest.approx(wmin, rel=1e-12)
    assert dctcp.critical_window(C, rtt, K, mss, 2 * ns) < dctcp.critical_window(C, rtt, K, mss, ns)
    # more buffer, more flows before overflow; N* does not see B at all
    assert dctcp.n_star_max(C, rtt, B + mss, mss, wmin) == pytest.approx(nmax + 1 / wmin, rel=1e-9)


@pytest.mark.parametrize("buffer, warned", [("30000", True), ("29999", True), ("30001", False)])
def test_cli_warns_exactly_when_n_star_max_is_not_above_n_star(buffer, warned):
    """K = 20 packets of 1500 B is 30,000 B: with B at or below it N*max ≤
    N* (law above) and the CLI says N* does not apply; above it, no word."""
    r = cli("model", "dctcp", "--k", "20", "--mss", "1500", "--buffer", buffer, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)["decimal"]
    assert (d["n_star_max"] <= d["n_star"]) == warned
    assert ("is not below --buffer" in r.stderr) == warned, r.stderr


def test_dctcp_functions_refuse_strings_bools_and_overflow():
    """`n_star(..., K_pkts="20")` and `critical_window(..., N=True)` were read
    as 20 and 1 (the incast functions refuse both); 1e308 bit/s × 1e308 s
    returned inf with a numpy RuntimeWarning."""
    with pytest.raises(TypeError, match="^K_pkts must be a number"):
        dctcp.n_star(1e9, 1e-4, "20", 1500)
    with pytest.raises(TypeError, match="^N must be a number"):
        dctcp.critical_window(1e9, 1e-4, 20, 1500, True)
    with pytest.raises(TypeError, match="^wmin must be a number"):
        dctcp.dctcp_scalability(1e9, 1e-4, 20, 1500, 1e5, wmin="2")
    with pytest.raises(TypeError, match="^K_pkts must be a number"):
        dctcp.dctcp_scalability(1e9, 1e-4, "abc", 1500, 1e5)
    with pytest.raises(ValueError, match="passes a float's range"):
        dctcp.bdp_packets(1e308, 1e308, 1)
    # arrays (numbers) still broadcast
    assert dctcp.n_star_max(1e9, 1e-4, np.array([100_000, 0]), 1500).tolist() == pytest.approx([37.5, 12_500 / 3000])


# ------------------------------------------------------- incast API input

def test_incast_helpers_name_the_argument():
    """q_hat("4") computed with w = 4 where every other function refuses a
    string; pps_to_bps("x") was float()'s message naming nothing, NaN or a
    negative rate went through as a throughput."""
    with pytest.raises(TypeError, match="^w must be a number"):
        incast.q_hat("4", 0.1)
    with pytest.raises(TypeError, match="^n must be a number"):
        incast.expected_flow_window("x", 0.1, 1)
    with pytest.raises(TypeError, match="^pps must be a number"):
        incast.pps_to_bps("x", 1000)
    with pytest.raises(ValueError, match="^pps must be >= 0"):
        incast.pps_to_bps(math.nan, 1000)
    with pytest.raises(ValueError, match="^bps must be >= 0"):
        incast.bps_to_pps(-1, 1000)
    # a model without a loss event is unbounded: inf stays inf
    assert incast.pps_to_bps(math.inf, 1000) == math.inf
    # 1000 packets/s of 1460 B payload: 1000·1460·8 bit/s
    assert incast.pps_to_bps(1000, 1460) == 1000 * 1460 * 8


def _tables():
    import pandas as pd

    flows = pd.DataFrame({"flow_id": [0, 1, 2], "role": ["request", "response", "response"],
                          "segments_sent": [10, 1000, 1000], "timeouts": [0, 1, 0],
                          "timeout_period_s": [0.0, 0.2, 0.0], "fast_retransmits": [0, 4, 5]})
    blocks = pd.DataFrame({"n_servers": [2, 2], "bytes": [2 * 65536] * 2, "timeouts": [1, 0]})
    return flows, blocks


def test_incast_inputs_name_payload_and_rtt():
    flows, blocks = _tables()
    with pytest.raises(TypeError, match="^payload_bytes must be a number"):
        measure.incast_inputs(flows, blocks, "1KB", rtt_s=1e-4)
    # a column of RTTs no flow ever sampled: said so, not "rtt_s must be > 0, got nan"
    with pytest.raises(ValueError, match="flows.srtt_s has no value"):
        measure.incast_inputs(flows.assign(srtt_s=math.nan), blocks, 1024)
    with pytest.raises(ValueError, match="^rtt_s must be finite and > 0"):
        measure.incast_inputs(flows, blocks, 1024, rtt_s=0.0)


# ---------------------------------------------------------------- enqueue

def test_enqueue_draws_in_batches_of_bounded_size(monkeypatch):
    """`dcnsim model enqueue --trials 100000000000` died with a MemoryError
    traceback (745 GiB asked for at once): trials are now drawn in batches
    of BATCH. Here BATCH = 1000: 2500 trials are three batches, the
    outcomes still partition the trials, and at rMin = MSS (all packets of
    one size) X2 never gets in whatever the batch."""
    sizes = []
    real = enqueue._trials

    def spy(rng, trials, *args):
        sizes.append(trials)
        return real(rng, trials, *args)

    single = enqueue.enqueue_probability(100, 1000, seed=5)
    monkeypatch.setattr(enqueue, "BATCH", 1000)
    monkeypatch.setattr(enqueue, "_trials", spy)
    # up to one batch, the numbers are those drawn before batching
    assert enqueue.enqueue_probability(100, 1000, seed=5) == single
    sizes.clear()
    r = enqueue.enqueue_probability(100, 2500, seed=5)
    assert sizes == [1000, 1000, 500]
    assert r.trials == 2500
    assert r.p_x2 + r.p_y2 - r.p_both + r.p_neither == pytest.approx(1.0)
    assert r == enqueue.enqueue_probability(100, 2500, seed=5)  # deterministic
    blackout = enqueue.enqueue_probability(1448, 2500)
    assert (blackout.p_x2, blackout.p_y2) == (0.0, 1.0)


def test_enqueue_sweep_refuses_a_fraction_instead_of_truncating_it():
    """enqueue_sweep([1.5]) ran rMin = 1 (int() truncated it) and
    enqueue_sweep(["abc"]) failed in int(), naming nothing; queued="x" was a
    bare comparison TypeError."""
    with pytest.raises(TypeError, match="^rmin must be a whole number.*1.5"):
        enqueue.enqueue_sweep([1.5], 10)
    with pytest.raises(TypeError, match="^rmin must be a whole number.*'abc'"):
        enqueue.enqueue_sweep(["abc"], 10)
    with pytest.raises(TypeError, match="^queued must be a whole number"):
        enqueue.enqueue_probability(1, 10, queued="x")
    with pytest.raises(ValueError, match="^queued must be ≥ 2"):
        enqueue.enqueue_probability(1, 10, queued=1)
    # a whole float (np.linspace's) or a numpy integer is a count
    (a,) = enqueue.enqueue_sweep([200.0], 50)
    (b,) = enqueue.enqueue_sweep([np.int64(200)], 50)
    assert a == b == enqueue.enqueue_probability(200, 50)


# --------------------------------------------- model incast on a results dir

def _results_dir(d: Path, *, losses: bool, timeouts: bool = True, topology=None, tcp=None) -> Path:
    """A results directory as `dcnsim run --out` writes one, by hand: two
    servers, two 64 KB blocks, 1 KB segments."""
    import pandas as pd

    d.mkdir()
    fr = [0, 3, 2] if losses else [0, 0, 0]
    to = [0, 1, 1] if losses and timeouts else [0, 0, 0]
    pd.DataFrame({"flow_id": [0, 1, 2], "app": [0, 0, 0], "role": ["request", "response", "response"],
                  "segments_sent": [2, 140, 130], "timeouts": to,
                  "timeout_period_s": [0.0, 0.2 * to[1], 0.2 * to[2]], "fast_retransmits": fr,
                  "srtt_s": [1e-4, 2e-4, 2e-4]}).to_csv(d / "flows.csv", index=False)
    pd.DataFrame({"app": [0, 0], "block": [0, 1], "n_servers": [2, 2], "duration_s": [0.01, 0.01],
                  "bytes": [131072, 131072], "timeouts": [sum(to), 0], "abtt_flows": [0, 0]}
                 ).to_csv(d / "blocks.csv", index=False)
    scen = {"name": "hand", "topology": topology or {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "50us",
                                                    "buffer": "32KB"},
            "tcp": tcp or {"mss": 1024, "rto_min": "200ms"},
            "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-2", "sru": "64KB", "blocks": 2}]}
    (d / "scenario.json").write_text(json.dumps(scen))
    (d / "summary.json").write_text("{}")
    return d


def _no_nan_or_inf(text: str) -> None:
    assert not re.search(r"\b(nan|inf)\b", text, re.I), text


def test_a_lossless_run_prints_no_nan_or_inf(tmp_path):
    """No loss event: p_c = 0, so j = min(n, p_r/p_c) has no value and no
    model has a loss to pace it. The text said "j = nan" and, without a
    link rate, "inf Mbps (inf x simulation)"; now "n/a" and "unbounded",
    and with a link rate the cap: 1 Gbps × 1024/(1024 + 40) = 962.4 Mbps."""
    custom = {"kind": "custom", "nodes": [], "links": []}  # no single link rate to cap at
    d = _results_dir(tmp_path / "free", losses=False, topology=custom)
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0, r.stderr
    _no_nan_or_inf(r.stdout)
    assert "j = n/a (no loss event)" in r.stdout
    for label in ("TD-only model (3.21)", "Full model (3.39)", "Split model (3.40)", "n x Padhye et al."):
        line = next(x for x in r.stdout.splitlines() if label in x)
        assert "unbounded" in line and "p_c = 0" in line, line
    j = cli("model", "incast", "--from-run", str(d), "--json")
    doc = json.loads(j.stdout, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
    assert doc["j"] is None and all(doc["throughput_bps"][k] is None for k in ("td_bps", "full_bps"))

    d = _results_dir(tmp_path / "capped", losses=False)
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0, r.stderr
    _no_nan_or_inf(r.stdout)
    cap_mbps = 1e9 * 1024 / (1024 + 40) / 1e6
    td = next(x for x in r.stdout.splitlines() if "TD-only" in x)
    assert f"{cap_mbps:.1f} Mbps" in td and "[at the line-rate cap]" in td, td


def test_an_unknown_input_prints_na_and_another_transport_is_noted(tmp_path):
    """NDP has no RTOmin to stand in for T0 when no timeout happened: T0 is
    unknown, and Full, Split and n × Padhye (which need it) printed
    "nan Mbps"; TD-only (3.21) needs only n, p_c, p_r, RTT and is printed.
    The model is TCP's: a run of another transport, or a cc other than
    Reno's, now says so in a note."""
    d = _results_dir(tmp_path / "ndp", losses=True, timeouts=False, tcp={"mss": 1024, "transport": "ndp"})
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0, r.stderr
    _no_nan_or_inf(r.stdout)
    assert "T0 = n/a" in r.stdout
    for label in ("Full model (3.39)", "Split model (3.40)", "n x Padhye et al."):
        line = next(x for x in r.stdout.splitlines() if label in x)
        assert "n/a" in line, line
    assert re.search(r"TD-only model \(3\.21\)\s+[0-9.]+ Mbps", r.stdout), r.stdout
    assert "note: transport ndp is not TCP" in r.stdout
    d = _results_dir(tmp_path / "bbr", losses=True, tcp={"mss": 1024, "cc": "bbr"})
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0 and "note: cc bbr: the model assumes Reno's window" in r.stdout, r.stdout
    d = _results_dir(tmp_path / "reno", losses=True)
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0 and "the model assumes" not in r.stdout and "not TCP" not in r.stdout, r.stdout


def test_model_help_lists_every_model_and_option():
    r = cli("model", "--help")
    assert r.returncode == 0
    for name in ("dctcp", "incast", "enqueue"):
        assert name in r.stdout
    for name, options in (("dctcp", ("--capacity", "--rtt", "--k", "--buffer", "--mss", "--wmin", "--n", "--json")),
                          ("incast", ("--from-run", "--app", "--json")),
                          ("enqueue", ("--rmin", "--trials", "--mss", "--phase", "--seed", "--json"))):
        r = cli("model", name, "--help")
        assert r.returncode == 0 and all(o in r.stdout for o in options), (name, r.stdout)


# -------------------------------------------------------- docs/models.md

def _blocks(lang: str):
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_docs_python_blocks_run(monkeypatch):
    """Every example (```python block with an import) of docs/models.md runs
    as written, from the repository root where its scenario paths point;
    §3's began with `r.flows` and no `r`."""
    monkeypatch.chdir(ROOT)
    blocks = [b for b in _blocks("python") if "import " in b]
    assert len(blocks) >= 3
    for code in blocks:
        exec(compile(code, "docs/models.md", "exec"), {})


def test_docs_example_table_is_the_formulas():
    """docs/models.md §2's example (n = 8, p_c = 0.002, p_r = 0.01, T0 =
    0.2 s, L = 2048, ζ = 0.5, RTT = 200 µs, 1 KB payloads, capped at
    1e9/(8·1064) packets/s) recomputed from eqs. 3.10, 3.19, 3.21, 3.39."""
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    n, p_c, p_r, rtt, t0, L, zeta = 8, 0.002, 0.01, 200e-6, 0.2, 2048, 0.5
    j = min(n, p_r / p_c)                                                       # 5
    d = math.sqrt(n**2 * p_c**2 * j**2 - 4 * n * p_c**2 * j**3 + 4 * j**4 * p_c**2 + 24 * n**2 * p_c * j)
    ex = (2 * j**2 * p_c - n * p_c * j + d) / (6 * n**2 * p_c)                   # 3.19
    ey = 1 / p_c                                                                # 3.10
    q_abtt = zeta / (L / ey)                                                    # 3.37-3.38
    m = incast.incast_model(n, p_c, p_r, rtt, t0, L, zeta)
    full = ey / (rtt * ex + min(1, m.q_ibtt_full + q_abtt) * t0) * 1024 * 8     # 3.39, bit/s
    td = ey / (rtt * ex) * 1024 * 8                                             # 3.21, bit/s
    assert f"| E[X], E[Y], E[Wf] | {ex:.2f} rounds, {ey:.0f} packets, {2 * n * ex / j:.1f} packets |" in text
    assert f"| Full | {full / 1e6:.1f} Mbit/s |" in text
    assert f"{td / 1e9:.2f} Gbit/s uncapped" in text
    assert f", {q_abtt:.3f} |" in text


def test_docs_enqueue_command_prints_what_the_doc_shows():
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ (dcnsim model enqueue [^\n]*)\n(.*?)```", text, re.S)
    assert block is not None
    argv = block.group(1).split()[1:]
    r = cli(*argv)
    assert r.returncode == 0, r.stderr
    assert r.stdout == block.group(2)


def test_a_t0_below_rto_min_is_noted(tmp_path):
    """Every RTO expiry follows at least RTOmin without ACK progress, but
    `timeout_period_s` counts a stall from the flow's last transmission, so
    a flow that kept sending on duplicate ACKs shows a few microseconds
    (audit 35: the small incast's T0 came out 0.5 ms with rto_min 1 ms).
    Noted exactly when the measured T0 is below the scenario's rto_min."""
    d = _results_dir(tmp_path / "whole", losses=True)  # stalls of 0.2 s, rto_min 200 ms
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0 and "is below the RTOmin" not in r.stdout, r.stdout
    d = _results_dir(tmp_path / "short", losses=True, tcp={"mss": 1024, "rto_min": "300ms"})
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0, r.stderr
    assert "note: T0 = 200 ms is below the RTOmin of the run's TCP (300 ms)" in r.stdout, r.stdout
    # rto_min left unset: the profiles' 200 ms is the floor the note reads
    d = _results_dir(tmp_path / "unset", losses=True, tcp={"mss": 1024})
    r = cli("model", "incast", "--from-run", str(d))
    assert r.returncode == 0 and "is below the RTOmin" not in r.stdout, r.stdout
