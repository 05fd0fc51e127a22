"""Tests of the analytical models (python/dcnsim/models): FaST's DCTCP
scalability, Kulkarni's incast model, Padhye, and the measurement of model
inputs from result tables. Pure Python + numpy; no compiled _core needed."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / "python"
MODELS_DIR = PY / "dcnsim" / "models"


def _load_standalone(name: str):
    """Load python/dcnsim/models as a top-level package, without running
    python/dcnsim/__init__.py (which may need the compiled _core)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, MODELS_DIR / "__init__.py", submodule_search_locations=[str(MODELS_DIR)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _load():
    if str(PY) not in sys.path:
        sys.path.insert(0, str(PY))
    try:
        import dcnsim.models as m  # normal import path
        return m
    except ImportError:
        # The parent package failed (e.g. dcnsim._core not built): the models
        # do not need it.
        return _load_standalone("_dcnsim_models_standalone")


models = _load()
dctcp = models.dctcp
incast = models.incast
measure = models.measure

settings.register_profile("models", deadline=None, max_examples=200)
settings.load_profile("models")

probs = st.floats(min_value=1e-6, max_value=1.0, allow_nan=False)


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


# ------------------------------------------------------------------ imports

def test_models_import_nothing_from_the_parent_package():
    import ast

    files = sorted(MODELS_DIR.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "dctcp.py", "incast.py", "measure.py"}
    for f in files:
        if f.name == "fromrun.py":
            # the bridge from a results directory to the models: it reads
            # scenario.json's units with the scenario loader's parser
            # (dcnsim.units -> the core), the one parser there is
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.level <= 1, (f.name, node.module)      # no "from .." imports
                if node.level == 0:
                    assert not (node.module or "").startswith("dcnsim"), (f.name, node.module)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    assert not a.name.startswith("dcnsim"), (f.name, a.name)


def test_standalone_load_works():
    m = _load_standalone("_dcnsim_models_standalone_check")
    assert m.n_star_max(1e9, 100e-6, 100_000, 1500, 2) == pytest.approx(37.5)
    assert m.q_hat(3, 0.5) == 1.0


# -------------------------------------------------------------------- FaST

def test_fast_example_numbers():
    # C = 1 Gbps, RTT = 100 us, K = 20, Wmin = 2, MSS = 1500 B, B = 100 KB.
    # C*RTT = 12 500 B = 8.333 pkts; N* = (8.333 + 20)/2 = 14.17;
    # N*max = (12 500 + 100 000)/(2*1500) = 37.5 with KB = 1000 B.
    assert dctcp.bdp_packets(1e9, 100e-6, 1500) == pytest.approx(12500 / 1500)
    ns = dctcp.n_star(1e9, 100e-6, 20, 1500, 2)
    assert ns == pytest.approx((12500 / 1500 + 20) / 2)
    assert round(ns, 1) == 14.2
    assert dctcp.n_star_max(1e9, 100e-6, 100_000, 1500, 2) == pytest.approx(37.5, abs=1e-12)
    # With KB = 1024 B for B (MSS 1500) it is 38.3, not the paper's 37.5.
    assert dctcp.n_star_max(1e9, 100e-6, 102_400, 1500, 2) == pytest.approx(38.3)
    # W* at N* is Wmin.
    assert dctcp.critical_window(1e9, 100e-6, 20, 1500, ns) == pytest.approx(2.0)


def test_dctcp_scalability_dataclass_and_str():
    r = dctcp.dctcp_scalability(1e9, 100e-6, 20, 1500, 100_000, wmin=2, N=40)
    assert r.n_star == pytest.approx(14.1667, abs=1e-4)
    assert r.n_star_max == pytest.approx(37.5)
    assert r.w_star == pytest.approx((12500 / 1500 + 20) / 40)
    assert r.critical_window(20) == pytest.approx((12500 / 1500 + 20) / 20)
    s = str(r)
    assert "14.17" in s and "37.50" in s and "W*(N=40)" in s
    assert dctcp.dctcp_scalability(1e9, 100e-6, 20, 1500, 100_000).w_star is None
    assert "/N" in str(dctcp.dctcp_scalability(1e9, 100e-6, 20, 1500, 100_000))


def test_dctcp_arrays_and_errors():
    n = dctcp.n_star_max(1e9, 100e-6, np.array([0, 100_000]), 1500)
    assert n.shape == (2,) and n[1] == pytest.approx(37.5)
    with pytest.raises(ValueError, match="mss_bytes"):
        dctcp.n_star(1e9, 100e-6, 20, 0)
    with pytest.raises(ValueError, match="N"):
        dctcp.critical_window(1e9, 100e-6, 20, 1500, 0)


# ---------------------------------------------------------- E[X] (3.18/19)

def _ex_literal(n, p, j):
    d = math.sqrt(n * n * p * p * j * j - 4 * n * p * p * j ** 3 + 4 * j ** 4 * p * p
                  + 24 * n * n * p * j)
    return (2 * j * j * p - n * p * j + d) / (6 * n * n * p)


@given(n=st.integers(1, 2000), p_c=probs, frac=st.floats(1e-3, 1.0))
def test_ex_solves_318(n, p_c, frac):
    j = max(frac * n, 1e-3)
    x = incast.expected_rounds(n, p_c, j)
    assert x > 0
    rhs = 3 * n * n * x * x / (2 * j) + n * x / 2 - j * x   # eq. 3.18
    assert rel(rhs, 1 / p_c) < 1e-9


@pytest.mark.parametrize("n", [1, 2, 3, 8, 16, 64])
@pytest.mark.parametrize("p_c", [1e-4, 1e-3, 0.01, 0.1, 0.5])
@pytest.mark.parametrize("jf", [0.1, 0.5, 1.0])
def test_ex_grid_matches_literal_319(n, p_c, jf):
    j = jf * n
    x = incast.expected_rounds(n, p_c, j)
    assert rel(x, _ex_literal(n, p_c, j)) < 1e-9
    rhs = 3 * n * n * x * x / (2 * j) + n * x / 2 - j * x
    assert rel(rhs, 1 / p_c) < 1e-9


def test_j_and_window():
    assert incast.j_flows(8, 0.002, 0.01) == pytest.approx(5.0)
    assert incast.j_flows(4, 0.001, 0.01) == 4.0          # capped at n
    ex = incast.expected_rounds(8, 0.002, 5.0)
    assert incast.expected_flow_window(8, 0.002, 5.0) == pytest.approx(2 * 8 * ex / 5)
    assert incast.expected_packets(0.002) == pytest.approx(500.0)


# ---------------------------------------------------------- A, C, Qhat

def test_A_C_qhat_hand_computed_w4_p01():
    # p_r = 0.1, q = 0.9, w = 4: 1 - q^4 = 1 - 0.6561 = 0.3439.
    p = 0.1
    den = 0.3439
    assert incast.A(4, 0, p) == pytest.approx(0.1 / den)
    assert incast.A(4, 1, p) == pytest.approx(0.09 / den)
    assert incast.A(4, 2, p) == pytest.approx(0.081 / den)
    assert incast.A(4, 3, p) == pytest.approx(0.0729 / den)
    assert incast.A(4, 4, p) == pytest.approx(0.06561 / den)
    # C(g, m) = q^m p for m < g; q^g for m = g.
    assert incast.C(3, 0, p) == pytest.approx(0.1)
    assert incast.C(3, 1, p) == pytest.approx(0.09)
    assert incast.C(3, 2, p) == pytest.approx(0.081)
    assert incast.C(3, 3, p) == pytest.approx(0.729)
    assert incast.C(2, 2, p) == pytest.approx(0.81)
    # Qhat(4) = A0 + A1 + A2 + (A3 + A4) * (C(k,0) + C(k,1) + C(k,2)),
    #         = 0.271/0.3439 + (0.13851/0.3439) * 0.271 = 0.897168...
    expected = 0.271 / den + (0.0729 + 0.06561) / den * 0.271
    assert expected == pytest.approx(0.8971684, abs=1e-7)
    assert incast.q_hat(4, p) == pytest.approx(expected, rel=1e-12)
    # Split: n <= n_hat -> A(4,0) = 0.2908; n > n_hat -> (A3 + A4)*0.271 = 0.1091.
    assert incast.q_hat_split(4, p, n=3) == pytest.approx(0.1 / den, rel=1e-12)
    assert incast.q_hat_split(4, p, n=4) == pytest.approx(0.13851 * 0.271 / den, rel=1e-12)


def _qhat_literal(w, p, split_tail=False):
    head = 0.0 if split_tail else sum(incast.A(w, k, p) for k in range(3))
    tail = sum(incast.A(w, k, p) * sum(incast.C(k, m, p) for m in range(3))
               for k in range(3, w + 1))
    return min(1.0, head + tail)


@given(w=st.integers(4, 80), p=probs)
def test_qhat_closed_form_equals_literal_sums(w, p):
    assert incast.q_hat(w, p) == pytest.approx(_qhat_literal(w, p), rel=1e-9, abs=1e-15)
    assert incast.q_hat_split(w, p, n=10) == pytest.approx(
        _qhat_literal(w, p, split_tail=True), rel=1e-9, abs=1e-15)
    assert incast.q_hat_split(w, p, n=2) == pytest.approx(min(1.0, incast.A(w, 0, p)), rel=1e-12)


@given(w=st.floats(0.0, 3.0), p=st.floats(0.0, 1.0), n=st.integers(1, 100))
def test_qhat_is_one_for_small_windows(w, p, n):
    assert incast.q_hat(w, p) == 1.0
    assert incast.q_hat_split(w, p, n) == 1.0
    for mode in incast.NONINTEGER_MODES:
        assert incast.q_hat(w, p, noninteger=mode) == 1.0
        assert incast.q_hat_split(w, p, n, noninteger=mode) == 1.0


@given(w=st.floats(0.0, 500.0), p=st.floats(0.0, 1.0))
def test_qhat_is_a_probability(w, p):
    for mode in incast.NONINTEGER_MODES:
        assert 0.0 <= incast.q_hat(w, p, mode) <= 1.0
        assert 0.0 <= incast.q_hat_split(w, p, 10, noninteger=mode) <= 1.0


def test_qhat_noninteger_modes():
    p = 0.05
    q4, q5 = incast.q_hat(4, p), incast.q_hat(5, p)
    assert incast.q_hat(4.25, p) == pytest.approx(0.75 * q4 + 0.25 * q5)
    assert incast.q_hat(3.5, p) == pytest.approx(0.5 * 1.0 + 0.5 * q4)
    assert incast.q_hat(4.6, p, "round") == q5
    assert incast.q_hat(4.6, p, "floor") == q4
    assert incast.q_hat(4.2, p, "ceil") == q5
    assert q5 < incast.q_hat(4.5, p, "continuous") < q4
    with pytest.raises(ValueError, match="noninteger"):
        incast.q_hat(4.5, p, "nearest")


def test_qhat_limits():
    # p_r -> 0: Qhat -> min(1, 3/w); Split -> 0 (n > n_hat) and 1/w (n <= n_hat).
    assert incast.q_hat(30, 0.0) == pytest.approx(0.1)
    assert incast.q_hat(30, 1e-12) == pytest.approx(0.1, rel=1e-6)
    assert incast.q_hat_split(30, 0.0, n=10) == 0.0
    assert incast.q_hat_split(30, 0.0, n=2) == pytest.approx(1 / 30)
    assert incast.A(10, 3, 0.0) == pytest.approx(0.1)
    # Raw Qhat exceeds 1 for large p_r (sum runs to k = w); it is capped.
    raw = (1 - 0.5 ** 3) * (1 + 0.5 ** 3 - 0.5 ** 5) / (1 - 0.5 ** 4)
    assert raw > 1 and incast.q_hat(4, 0.5) == 1.0


def test_A_C_errors():
    with pytest.raises(ValueError):
        incast.A(4, 5, 0.1)
    with pytest.raises(ValueError):
        incast.C(3, 4, 0.1)
    with pytest.raises(ValueError, match="p_r"):
        incast.A(4, 1, 1.5)


# ------------------------------------------------------- throughput models

model_inputs = dict(
    n=st.integers(1, 200),
    p_c=st.floats(1e-6, 0.5),
    ratio=st.floats(0.2, 300.0),
    rtt=st.floats(1e-6, 1e-2),
    T0=st.floats(0.0, 1.0),
    L=st.floats(1.0, 1e6),
    zeta=st.floats(0.0, 20.0),
    n_hat=st.integers(1, 10),
)


def _p_r(p_c, ratio):
    return min(1.0, p_c * ratio)


@given(**model_inputs)
def test_full_le_td_and_split_ge_full(n, p_c, ratio, rtt, T0, L, zeta, n_hat):
    p_r = _p_r(p_c, ratio)
    m = incast.incast_model(n, p_c, p_r, rtt, T0, L, zeta, n_hat=n_hat)
    td = incast.throughput_td(n, p_c, p_r, rtt)
    assert m.B_td == pytest.approx(td, rel=1e-12)
    # Timeouts only add time to a TD period: Full <= TD-only.
    assert m.B_full <= td * (1 + 1e-12)
    # Split's Qhat is Full's with terms dropped (n > n_hat: the k < 3 terms;
    # n <= n_hat: A(w,0) is one of them), so Q_split <= Q_full: Split >= Full.
    assert m.q_ibtt_split <= m.q_ibtt_full + 1e-15
    assert m.B_split >= m.B_full * (1 - 1e-12)
    assert m.B_split <= td * (1 + 1e-12)
    assert 0 <= m.Q_full <= 1 and 0 <= m.Q_split <= 1
    assert m.B_full == pytest.approx(
        incast.throughput_full(n, p_c, p_r, rtt, T0, L, zeta), rel=1e-12)
    assert m.B_split == pytest.approx(
        incast.throughput_split(n, p_c, p_r, rtt, T0, L, zeta, n_hat=n_hat), rel=1e-12)


@given(**model_inputs)
def test_full_equals_td_without_timeout_cost(n, p_c, ratio, rtt, T0, L, zeta, n_hat):
    p_r = _p_r(p_c, ratio)
    assert incast.throughput_full(n, p_c, p_r, rtt, 0.0, L, zeta) == pytest.approx(
        incast.throughput_td(n, p_c, p_r, rtt), rel=1e-12)


def test_full_model_hand_assembly():
    # n = 8, p_c = 0.002, p_r = 0.01 -> j = 5; L = 2048 pkts, zeta = 0.5.
    m = incast.incast_model(8, 0.002, 0.01, 250e-6, 0.2, 2048, 0.5)
    ex = _ex_literal(8, 0.002, 5.0)
    assert m.j == pytest.approx(5.0)
    assert m.EX == pytest.approx(ex)
    assert m.EY == pytest.approx(500.0)
    assert m.EWf == pytest.approx(2 * 8 * ex / 5)
    assert m.q_abtt == pytest.approx(0.5 / (2048 / 500))
    assert m.Q_full == pytest.approx(min(1, incast.q_hat(m.EWf, 0.01) + m.q_abtt))
    assert m.B_td == pytest.approx(500 / (250e-6 * ex))
    assert m.B_full == pytest.approx(500 / (250e-6 * ex + m.Q_full * 0.2))
    assert m.B_split == pytest.approx(500 / (250e-6 * ex + m.Q_split * 0.2))
    assert m.B_padhye_n == pytest.approx(8 * incast.padhye(0.01, 250e-6, 0.2))


def test_edge_cases_and_capacity():
    cap = incast.line_rate_pps(1e9, 1500)
    assert incast.throughput_td(8, 0.0, 0.0, 1e-4) == math.inf
    assert incast.throughput_td(8, 0.0, 0.0, 1e-4, capacity_pps=cap) == cap
    m = incast.incast_model(8, 0.0, 0.0, 1e-4, 0.2, 100, 1.0, capacity_pps=cap)
    assert m.B_full == m.B_split == m.B_td == cap == m.B_padhye_n
    assert incast.throughput_td(8, 1e-3, 1e-2, 1e-4, capacity_pps=cap) <= cap
    with pytest.raises(ValueError, match="p_r"):
        incast.throughput_td(8, 0.01, 0.0, 1e-4)
    with pytest.raises(ValueError, match="rtt"):
        incast.throughput_td(8, 0.01, 0.01, 0.0)
    with pytest.raises(ValueError, match="n"):
        incast.throughput_td(0, 0.01, 0.01, 1e-4)
    assert incast.pps_to_bps(1000, 1460) == 1000 * 1460 * 8
    assert incast.bps_to_pps(incast.pps_to_bps(1234.0, 1460), 1460) == pytest.approx(1234.0)


# ------------------------------------------------------------------ Padhye

@given(p1=st.floats(1e-9, 1.0), p2=st.floats(1e-9, 1.0),
       rtt=st.floats(1e-6, 1.0), T0=st.floats(0.0, 10.0))
def test_padhye_decreasing_in_p(p1, p2, rtt, T0):
    assume(p1 < p2)
    assert incast.padhye(p1, rtt, T0) >= incast.padhye(p2, rtt, T0)


def test_padhye_values():
    # p = 0.01, RTT = 1 ms, T0 = 0.2 s, b = 1:
    # 1 / (1e-3 * sqrt(0.02/3) + 0.2 * min(1, 3*sqrt(0.03/8)) * 0.01 * 1.0032)
    p, rtt, t0 = 0.01, 1e-3, 0.2
    hand = 1 / (rtt * math.sqrt(2 * p / 3) + t0 * 3 * math.sqrt(3 * p / 8) * p * (1 + 32 * p * p))
    assert incast.padhye(p, rtt, t0) == pytest.approx(hand)
    assert incast.padhye_n(5, p, rtt, t0) == pytest.approx(5 * hand)
    assert incast.padhye(0.0, rtt, t0) == math.inf
    assert incast.padhye(0.0, rtt, t0, wmax=10) == pytest.approx(10 / rtt)
    assert incast.padhye_n(5, p, rtt, t0, capacity_pps=100.0) == 100.0
    # min(1, ...) branch: large p.
    assert incast.padhye(0.5, rtt, t0) == pytest.approx(
        1 / (rtt * math.sqrt(1 / 3) + t0 * 1.0 * 0.5 * (1 + 8)))


# ------------------------------------------------------------------ measure

pd = pytest.importorskip("pandas")


def _synthetic():
    flows = pd.DataFrame({
        "flow_id": [0, 1, 2, 3, 4, 5, 6],
        "app": [0, 0, 0, 0, 0, 0, 1],
        "role": ["request"] * 3 + ["response"] * 3 + ["bulk"],
        "segments_sent": [50, 50, 50, 1000, 2000, 500, 9999],
        "retransmits": [1, 0, 0, 6, 9, 1, 50],
        "timeouts": [1, 0, 0, 1, 2, 1, 7],
        "timeout_period_s": [0.2, 0.0, 0.0, 0.2, 0.5, 0.25, 1.0],
        "fast_retransmits": [0, 0, 0, 4, 6, 0, 40],
        "drops": [1, 0, 0, 9, 15, 2, 60],
        "drop_runs": [1, 0, 0, 5, 8, 1, 40],
    })
    blocks = pd.DataFrame({
        "app": [0, 0, 0, 0],
        "block": [0, 1, 2, 3],
        "n_servers": [3, 3, 3, 3],
        "start_s": [0.0, 0.1, 0.2, 0.3],
        "end_s": [0.1, 0.2, 0.3, 0.4],
        "duration_s": [0.1] * 4,
        "bytes": [3 * 262144] * 4,
        "timeouts": [2, 0, 1, 1],
    })
    return flows, blocks


def test_measure_hand_computed():
    flows, blocks = _synthetic()
    inp = measure.incast_inputs(flows, blocks, payload_bytes=1024, rtt_s=200e-6)
    # Response flows: LI = fr + to = [5, 8, 1] over [1000, 2000, 500] segments.
    assert inp.p_r == pytest.approx((5 / 1000 + 8 / 2000 + 1 / 500) / 3)
    assert inp.p_c == pytest.approx(14 / 3500)
    assert inp.n == 3
    assert inp.rtt_s == 200e-6
    assert inp.t0_s == pytest.approx((0.2 + 0.5 + 0.25) / 4)
    assert inp.L_pkts == pytest.approx(768.0)
    assert inp.zeta == pytest.approx(1.0)          # mean(blocks.timeouts)
    assert any("zeta approximated" in s for s in inp.notes)
    assert any("j = p_r/p_c" in s for s in inp.notes)
    assert inp.j == pytest.approx(min(3, inp.p_r / inp.p_c))
    assert list(measure.loss_indications(flows)) == [1, 0, 0, 5, 8, 1, 47]


def test_measure_uses_abtt_ibtt_and_rtt_columns():
    flows, blocks = _synthetic()
    b2 = blocks.assign(abtt=[1, 0, 0, 1])
    inp = measure.incast_inputs(flows, b2, 1024, rtt_s=1e-4)
    assert inp.zeta == pytest.approx(0.5)
    assert not any("approximated" in s for s in inp.notes)
    b3 = blocks.assign(ibtt=[1, 0, 1, 0])
    assert measure.incast_inputs(flows, b3, 1024, rtt_s=1e-4).zeta == pytest.approx(0.5)
    f2 = flows.assign(srtt_s=[1.0, 1.0, 1.0, 1e-4, 3e-4, 2e-4, 1.0])
    assert measure.incast_inputs(f2, blocks, 1024).rtt_s == pytest.approx(2e-4)


def test_measure_event_trace_groups_simultaneous_losses():
    flows, blocks = _synthetic()
    events = pd.DataFrame({
        "time_s": [0.1000, 0.10005, 0.10010, 0.5, 0.30, 0.7],
        "flow_id": [3, 4, 5, 4, 0, 6],        # flow 0 is a request, 6 bulk
        "kind": ["timeout", "fast_retransmit", "fast_retransmit", "timeout",
                 "timeout", "timeout"],
    })
    inp = measure.incast_inputs(flows, blocks, 1024, rtt_s=200e-6, events=events)
    assert inp.p_c == pytest.approx(2 / 3500)      # {0.1, 0.10005, 0.1001}, {0.5}
    ev2 = pd.concat([events, pd.DataFrame({"time_s": [0.9], "flow_id": [3], "kind": ["ecn"]})])
    assert measure.incast_inputs(flows, blocks, 1024, rtt_s=200e-6, events=ev2).p_c == inp.p_c
    assert measure.count_cumulative_loss_events([0.0, 0.5, 1.0, 1.4, 3.0], 1.0) == 3
    assert measure.count_cumulative_loss_events([], 1.0) == 0


def test_measure_dict_tables_and_defaults():
    flows, blocks = _synthetic()
    f = {c: list(flows[c]) for c in flows.columns}
    b = {c: list(blocks[c]) for c in blocks.columns}
    inp = measure.incast_inputs(f, b, 1024, rtt_s=200e-6)
    assert inp.p_c == pytest.approx(14 / 3500)
    no_to = flows.assign(timeouts=0, timeout_period_s=0.0)
    i2 = measure.incast_inputs(no_to, blocks, 1024, rtt_s=1e-4, t0_default_s=0.2)
    assert i2.t0_s == 0.2 and any("t0_default_s" in s for s in i2.notes)
    assert math.isnan(measure.incast_inputs(no_to, blocks, 1024, rtt_s=1e-4).t0_s)


def test_measure_errors():
    flows, blocks = _synthetic()
    with pytest.raises(ValueError, match="rtt_s"):
        measure.incast_inputs(flows, blocks, 1024)
    with pytest.raises(ValueError, match="fast_retransmits"):
        measure.incast_inputs(flows.drop(columns=["fast_retransmits"]), blocks, 1024, rtt_s=1e-4)
    two = pd.concat([blocks, blocks.assign(app=2)])
    with pytest.raises(ValueError, match="app="):
        measure.incast_inputs(flows, two, 1024, rtt_s=1e-4)
    assert measure.incast_inputs(flows, two, 1024, rtt_s=1e-4, app=0).n == 3


def test_model_vs_sim():
    flows, blocks = _synthetic()
    inp = measure.incast_inputs(flows, blocks, 1024, rtt_s=200e-6)
    out = measure.model_vs_sim(inp, 123e6, 1024)
    assert set(out) == {"sim_bps", "td_bps", "full_bps", "split_bps", "padhye_n_bps"}
    assert out["sim_bps"] == 123e6
    m = inp.model()
    assert out["full_bps"] == pytest.approx(m.B_full * 1024 * 8)
    assert out["td_bps"] == pytest.approx(m.B_td * 1024 * 8)
    assert out["split_bps"] >= out["full_bps"]
    capped = measure.model_vs_sim(inp, 123e6, 1024, capacity_bps=1e9, wire_bytes=1102)
    assert all(v <= 1e9 * 1024 / 1102 * (1 + 1e-12) for k, v in capped.items() if k != "sim_bps")
    nan_t0 = measure.IncastInputs(3, 0.004, 0.004, 2e-4, math.nan, 768, 1.0)
    o2 = measure.model_vs_sim(nan_t0, 1e8, 1024)
    assert math.isnan(o2["full_bps"]) and math.isnan(o2["padhye_n_bps"]) and o2["td_bps"] > 0


def test_enqueue_probability_names_the_argument_a_wrong_value_is_in():
    """A fraction for rmin said "seed must be integer"; a string gave a bare
    comparison TypeError; rate_bps=0 gave probabilities of 1.0."""
    import pytest
    from dcnsim.models import enqueue_probability

    for kw, exc, words in [({"rmin": 1.5}, TypeError, "rmin must be a whole number"),
                           ({"trials": "10"}, TypeError, "trials must be a whole number"),
                           ({"mss": "1448B"}, TypeError, "mss must be a whole number"),
                           ({"rate_bps": 0}, ValueError, "rate_bps must be > 0"),
                           ({"header": -1}, ValueError, "header must be ≥ 0"),
                           ({"ifg_s": float("nan")}, ValueError, "ifg_s must be ≥ 0 and finite")]:
        args = {"rmin": 1, "trials": 10, **kw}
        with pytest.raises(exc, match=words):
            enqueue_probability(args.pop("rmin"), **args)


def test_the_model_functions_name_an_argument_given_as_a_string_with_a_unit():
    """`dctcp_scalability(C_bps="1Gbps", …)` and `incast_model(rtt="200us", …)`
    failed with "could not convert string to float", naming no argument."""
    import pytest
    from dcnsim.models import dctcp_scalability, incast_model

    with pytest.raises(TypeError, match=r"^C_bps must be a number in SI units .*got '1Gbps'.*parse_rate"):
        dctcp_scalability("1Gbps", 100e-6, 20, 1500, 100_000, 2)
    with pytest.raises(TypeError, match=r"^rtt must be a number in SI units .*got '200us'.*parse_time"):
        incast_model(4, 0.1, 0.1, "200us", 0.2, 100, 0.5)
    # numbers, and arrays of them, as before
    assert dctcp_scalability(1e9, 100e-6, 20, 1500, 100_000, 2).n_star_max == pytest.approx(37.5)
    assert incast_model(4, 0.1, 0.1, 200e-6, 0.2, 100, 0.5).B_td > 0


def test_split_at_an_infinite_window_is_the_limit_of_whole_window_loss():
    """Eq. 3.40 for n <= n_hat is A(w, 0) = p_r / (1 - (1 - p_r)^w), which
    tends to p_r as w grows; at w = inf it returned 0 (the models audit)."""
    from dcnsim.models.incast import q_hat_split

    assert q_hat_split(math.inf, 0.01, 2) == 0.01
    assert q_hat_split(1e6, 0.01, 2) == pytest.approx(q_hat_split(math.inf, 0.01, 2), rel=1e-9)


def test_the_equations_counts_are_whole_and_their_inputs_in_range():
    """A(w, k) and C(g, m) truncated a fraction (C(2.9, 2) was read as
    C(2, 2), ten times C(3, 2)); n_hat took NaN or -1 as "n > n_hat"; j
    above n and an n past a float's range gave NaN without a word."""
    from dcnsim.models.incast import (
        A,
        C,
        expected_rounds,
        incast_model,
        q_hat_split,
        throughput_td,
    )

    assert C(3, 2, 0.1) == pytest.approx(0.9**2 * 0.1) and C(2, 2, 0.1) == pytest.approx(0.81)
    for call, words in [(lambda: C(2.9, 2, 0.1), "g must be a whole number, got 2.9"),
                        (lambda: A(3.7, 0, 0.1), "w must be a whole number, got 3.7"),
                        (lambda: A(4, 0.5, 0.1), "k must be a whole number"),
                        (lambda: q_hat_split(10, 0.01, 2, n_hat=math.nan), "n_hat must be finite and >= 0"),
                        (lambda: q_hat_split(10, 0.01, 2, n_hat=-1), "n_hat must be finite and >= 0"),
                        (lambda: incast_model(8, 0.01, 0.02, 1e-4, 0.2, 100, 1, n_hat=math.inf), "n_hat"),
                        (lambda: expected_rounds(8, 0.01, 100), "j must be <= n"),
                        (lambda: throughput_td(1e300, 0.5, 0.5, 1e-4), "too large for eq. 3.19")]:
        with pytest.raises(ValueError, match=words):
            call()
    assert A(4.0, 0.0, 0.1) == A(4, 0, 0.1)  # a whole float is a count
