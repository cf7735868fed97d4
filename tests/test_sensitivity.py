"""Sensitivity (lnbook._sensitivity): the operator norm, the Lipschitz bound, the finite
amplification, the response h_eps(t) and its slope. Witnesses: hand examples, central
differences, mpmath; the SVD of a central-difference Jacobian and the core itself in
tests/test_plotting_data.py."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import lnbook


def test_operator_norm_by_hand():
    """z = (-1,1), eps = 3: only the radial eigenvalue 3/8 (< 1/sqrt 3); a constant record:
    eps^{-1/2}, attained by every centered w; d = 1: 0; at eps = 1e300, s^3 overflows but
    eps/s^3 is right (mpmath)."""
    assert lnbook.operator_norm([-1, 1], eps=3) == 0.375
    assert lnbook.operator_norm([0.0, 0.0, 0.0], eps=0.01) == pytest.approx(10.0, rel=1e-15)
    assert lnbook.operator_norm([5.0], eps=0.01) == 0.0
    w = np.array([1.0, -3.0, 2.0])
    assert np.allclose(lnbook.jacobian(np.full(3, 4.0), eps=1e-4) @ w, 100 * w, rtol=1e-12)
    with mpmath.workdps(40):
        lam = float(mpmath.mpf(1e300) / (mpmath.mpf(0.25) + mpmath.mpf(1e300)) ** 1.5)
    assert math.isclose(float(lnbook.operator_norm([1.0, 2.0], eps=1e300)), lam, rel_tol=4e-16)


def test_lipschitz_bound_with_gain_by_hand():
    """max|gamma| / sqrt(eps): 3 / 0.5 = 6; the bias cancels in differences."""
    assert lnbook.lipschitz_bound([0.5, -3.0], eps=0.25) == 6.0
    gamma, beta = np.array([0.5, -3.0]), np.array([9.0, -9.0])
    diff = lnbook.layer_norm([1e-4, -1e-4], gamma, beta, eps=0.25) - lnbook.layer_norm(
        [0.0, 0.0], gamma, beta, eps=0.25)
    assert np.linalg.norm(diff) <= 6.0 * np.linalg.norm([1e-4, -1e-4])


def test_amplification_by_hand_and_by_mpmath():
    """z = (7,7), delta = (1e-3,-1e-3): z + delta has v = delta, q = 1e-6, so the ratio is
    (q + eps)^{-1/2}: 99.5037 at eps 1e-4, 9.9995 at 1e-2, below the bounds 100 and 10; on a
    record of spread 1e-200 (whose squares underflow) the ratio is mpmath's."""
    for eps, shown, bound in [(1e-4, 99.5037, 100.0), (1e-2, 9.9995, 10.0)]:
        ratio = float(lnbook.amplification([7, 7], [1e-3, -1e-3], eps=eps))
        assert math.isclose(ratio, (1e-6 + eps) ** -0.5, rel_tol=1e-9)
        assert round(ratio, 4) == shown and ratio < bound == lnbook.lipschitz_bound(eps=eps)
    z, delta = [1e-200, 0.0, 2e-200], [1e-201, 0.0, 0.0]
    with mpmath.workprec(3000):
        def u(x):
            x = [mpmath.mpf(float(t)) for t in x]
            mu = mpmath.fsum(x) / 3
            s = mpmath.sqrt(mpmath.fsum((t - mu) ** 2 for t in x) / 3 + 1)
            return [(t - mu) / s for t in x]
        du = [a - b for a, b in zip(u(np.add(z, delta)), u(z))]
        exact = float(mpmath.sqrt(mpmath.fsum(t * t for t in du)) / mpmath.mpf(1e-201))
    assert float(lnbook.amplification(z, delta, eps=1.0)) == pytest.approx(exact, rel=1e-13)


def test_response_limits_and_slope():
    """h -> ±sqrt(3/2) (also where 2t^2/3 overflows); h' matches central differences of h and
    peaks at h'(0) = eps^{-1/2}, 1e125 at eps = 1e-250 (where eps^1.5 underflows)."""
    assert math.isclose(float(lnbook.response(1e8, eps=1e-5)[0]), math.sqrt(1.5), rel_tol=1e-12)
    assert math.isclose(float(lnbook.response(-1e200, eps=1e-5)[0]), -math.sqrt(1.5),
                        rel_tol=4e-16)
    t = np.linspace(-2, 2, 41)
    for eps in (0.01, 0.1, 1.0):
        fd = (lnbook.response(t + 1e-6, eps=eps) - lnbook.response(t - 1e-6, eps=eps)) / 2e-6
        slope = lnbook.response_slope(t, eps=eps)
        assert np.allclose(slope, fd, rtol=1e-6)
        assert slope.max() == slope[20] == eps**-0.5
    assert lnbook.response_slope([0.0], eps=1e-250)[0] == pytest.approx(1e125, rel=4e-16)
    # at eps = 0, h(t) = sqrt(3/2) sign(t) for every t != 0, subnormal ones too
    assert np.allclose(lnbook.response([5e-324, -1e-310], eps=0), [1.5**0.5, -(1.5**0.5)],
                       rtol=1e-15, atol=0)


def test_a_delta_that_rounds_away_is_refused():
    """z + delta == z would give a ratio of 0, not the amplification (about 1 there)."""
    with pytest.raises(ValueError, match=r"delta is below the spacing of z"):
        lnbook.amplification([1.0, 2.0, 3.0], [5e-324, 0.0, 0.0])
