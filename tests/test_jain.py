"""Jain's fairness index has one definition (the core's, `dcnsim::results::jain`),
used by `dcnsim.jain`, `Result.metrics["jain"]`, the reproductions and the
Rust tests. Its laws: 1/n <= J <= 1, J = 1 iff all shares are equal, J = 1/n
when one takes everything, scale invariance; NaN (never 1, never an error)
for no values or all zeros."""

from __future__ import annotations

import math

import dcnsim
from dcnsim import _core
from hypothesis import given
from hypothesis import strategies as st

#: shares whose squares do not underflow (x² of a subnormal is 0)
shares = st.lists(st.one_of(st.just(0.0), st.floats(1e-100, 1e12)), min_size=1, max_size=50)


@given(shares)
def test_bounds_and_scale_invariance(xs):
    j = dcnsim.jain(xs)
    if not any(xs):
        assert math.isnan(j)
        return
    n = len(xs)
    assert 1 / n - 1e-9 <= j <= 1 + 1e-9
    assert math.isclose(dcnsim.jain([3.5 * x for x in xs]), j, rel_tol=1e-9)
    assert math.isclose(j, sum(xs) ** 2 / (n * sum(x * x for x in xs)), rel_tol=1e-9)


@given(st.floats(1e-6, 1e9), st.integers(1, 40))
def test_equal_shares_and_one_taker(x, n):
    assert math.isclose(dcnsim.jain([x] * n), 1.0, rel_tol=1e-12)
    assert math.isclose(dcnsim.jain([x] + [0.0] * (n - 1)), 1 / n, rel_tol=1e-12)


def test_nothing_to_share_is_nan():
    assert math.isnan(dcnsim.jain([]))
    assert math.isnan(dcnsim.jain([0.0, 0.0]))
    assert math.isnan(_core.jain([]))
    assert dcnsim.jain(iter([1, 1])) == 1.0  # any iterable of numbers
