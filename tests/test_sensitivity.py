"""Tests of lnbook._sensitivity: operator norm, Lipschitz bound, amplification, response."""

from __future__ import annotations

import math

import numpy as np
import pytest
from common import eps_values, finite, record_arrays
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnbook

records = st.integers(1, 8).flatmap(lambda d: hnp.arrays(np.float64, d, elements=finite))


@settings(max_examples=40, deadline=None)
@given(records, eps_values)
def test_operator_norm_equals_svd(z, eps):
    """The closed form equals the largest singular value of the Jacobian."""
    svd = np.linalg.norm(lnbook.jacobian(z, eps=eps), 2)
    # J's entries are about (q+eps)^{-1/2}; forming J loses rounding errors of that size
    scale = float(lnbook.jacobian_eigenvalues(z, eps=eps)[1])
    assert math.isclose(float(lnbook.operator_norm(z, eps=eps)), svd, rel_tol=1e-9,
                        abs_tol=1e-13 * scale)


@settings(max_examples=40, deadline=None)
@given(record_arrays(), eps_values)
def test_operator_norm_bounded(z, eps):
    """||Du_eps(z)||_2 <= eps^{-1/2} for every record."""
    assert (lnbook.operator_norm(z, eps=eps) <= lnbook.lipschitz_bound(eps=eps) * (1 + 1e-12)).all()


def test_operator_norm_by_hand():
    """z = (-1,1), eps = 3: only the radial eigenvalue 3/8 remains (< 1/sqrt 3)."""
    assert lnbook.operator_norm([-1, 1], eps=3) == 0.375 < 1 / math.sqrt(3)
    assert lnbook.operator_norm([0.0, 0.0, 0.0], eps=0.01) == pytest.approx(10.0, rel=1e-15)
    assert lnbook.operator_norm([5.0], eps=0.01) == 0.0


def test_bound_attained_at_constant_input_in_centered_direction():
    """At a constant record, J w = w / sqrt(eps) for every centered w (d >= 2)."""
    for d in (2, 3, 6):
        w = np.random.default_rng(d).normal(size=d)
        w -= w.mean()
        J = lnbook.jacobian(np.full(d, 4.0), eps=1e-4)
        assert np.allclose(J @ w, 100 * w, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(records, records, eps_values)
def test_lipschitz(z1, z2, eps):
    """||u(z) - u(z')|| <= eps^{-1/2} ||z - z'|| (same d)."""
    d = min(z1.size, z2.size)
    z1, z2 = z1[:d], z2[:d]
    lhs = np.linalg.norm(lnbook.core(z1, eps=eps) - lnbook.core(z2, eps=eps))
    assert lhs <= lnbook.lipschitz_bound(eps=eps) * np.linalg.norm(z1 - z2) * (1 + 1e-9) + 1e-12


def test_finite_ratio_examples():
    """z = (7,7), h = (1e-3,-1e-3): ratio ≈ 99.5037 (eps 1e-4) and ≈ 9.9995 (eps 1e-2).

    Closed form: z + h has v = h, q = 1e-6, so the ratio is (q + eps)^{-1/2}.
    """
    for eps, shown, bound in [(1e-4, 99.5037, 100.0), (1e-2, 9.9995, 10.0)]:
        ratio = float(lnbook.amplification([7, 7], [1e-3, -1e-3], eps=eps))
        assert math.isclose(ratio, (1e-6 + eps) ** -0.5, rel_tol=1e-9)
        assert round(ratio, 4) == shown and ratio < bound == lnbook.lipschitz_bound(eps=eps)


def test_lipschitz_bound_with_gain():
    """The full output's bound is max|gamma| / sqrt(eps); the bias never enters."""
    assert lnbook.lipschitz_bound(eps=0.25, gamma=[0.5, -3.0]) == 6.0
    z1, z2 = np.array([0.0, 0.0]), np.array([1e-4, -1e-4])
    gamma = np.array([0.5, -3.0])
    beta = np.array([9.0, -9.0])
    y1 = lnbook.layer_norm(z1, gamma, beta, eps=0.25)
    diff = lnbook.layer_norm(z2, gamma, beta, eps=0.25) - y1
    assert np.linalg.norm(diff) <= 6.0 * np.linalg.norm(z2 - z1)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=-1e3, max_value=1e3), eps_values)
def test_response_is_third_coordinate(t, eps):
    """h_eps(t) is the third coordinate of the core of (-t, 0, t)."""
    assert math.isclose(float(lnbook.response(t, eps=eps)[0]),
                        float(lnbook.core([-t, 0.0, t], eps=eps)[2]), rel_tol=1e-12, abs_tol=1e-300)


def test_response_limits_and_slope():
    """h -> ±sqrt(3/2); h' matches central differences and peaks at h'(0) = eps^{-1/2}."""
    assert math.isclose(float(lnbook.response(1e8, eps=1e-5)[0]), math.sqrt(1.5), rel_tol=1e-12)
    assert math.isclose(float(lnbook.response(-1e8, eps=1e-5)[0]), -math.sqrt(1.5), rel_tol=1e-12)
    t = np.linspace(-2, 2, 41)
    for eps in (0.01, 0.1, 1.0):
        fd = (lnbook.response(t + 1e-6, eps=eps) - lnbook.response(t - 1e-6, eps=eps)) / 2e-6
        slope = lnbook.response_slope(t, eps=eps)
        assert np.allclose(slope, fd, rtol=1e-6)
        assert slope.max() == slope[20] == lnbook.response_slope(0.0, eps=eps)[0] == eps**-0.5


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lnbook.lipschitz_bound(eps=0), r"eps must be positive for a finite Lipschitz"),
        (lambda: lnbook.lipschitz_bound(eps=-1), r"eps must be non-negative"),
        (lambda: lnbook.lipschitz_bound(gamma=[[1.0]]), r"gamma must be a vector of shape \(n,\)"),
        (lambda: lnbook.amplification([7, 7], [0, 0]), r"delta must be nonzero in every record"),
        (lambda: lnbook.amplification([7, 7], [1, 2, 3]), r"delta must have the shape of z"),
        (lambda: lnbook.response([0.0, 1.0], eps=0), r"eps = 0 at t = 0"),
        (lambda: lnbook.response_slope([np.nan]), r"t contains NaN"),
        (lambda: lnbook.operator_norm([1, 1], eps=0), r"constant record"),
        (lambda: lnbook.response(np.zeros((2, 0))), r"t must hold at least one value"),
        (lambda: lnbook.amplification([1e308, 0], [1e308, 1e300]),
         r"the perturbed record z \+ delta is not finite"),
        (lambda: lnbook.lipschitz_bound(eps=1e-10, gamma=[1e308]),
         r"Lipschitz bound of gamma and eps is not finite"),
    ],
)
def test_bad_input_raises(call, message):
    """Bad input gets a ValueError that names the problem."""
    with pytest.raises(ValueError, match=message):
        call()
