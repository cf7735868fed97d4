"""Derivatives of the layer (lnbook._derivatives): the Jacobian, its eigenvalues, the input
and parameter gradients. Witnesses: hand examples in exact fractions, central differences
(lnbook.central_difference_jacobian), mpmath; each function against its closed form in
tests/test_contract.py; PyTorch's autograd in tests/slow/test_peers.py."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnbook

finite = st.floats(min_value=-1e3, max_value=1e3)
eps_values = st.floats(min_value=1e-6, max_value=10.0)
records = st.integers(2, 8).flatmap(lambda d: hnp.arrays(np.float64, d, elements=finite))
PROPERTY = settings(max_examples=25, deadline=None)
RHO = 2.0**-53


def test_jacobian_by_hand():
    """z = (-1, 1), eps = 3: v = (-1, 1), q = 1, s = 2, so J = P/s - v v^T/(d s^3) =
    [[3, -3], [-3, 3]] / 16, worked in exact fractions; with gamma = (0, 2), diag(gamma) J."""
    v, d, s = [Fraction(-1), Fraction(1)], 2, Fraction(2)
    hand = [[((i == j) - Fraction(1, d)) / s - v[i] * v[j] / (d * s**3) for j in range(d)]
            for i in range(d)]
    assert hand == [[Fraction(3, 16), Fraction(-3, 16)], [Fraction(-3, 16), Fraction(3, 16)]]
    assert np.array_equal(lnbook.jacobian([-1, 1], eps=3), np.array(hand, dtype=float))
    assert np.array_equal(lnbook.jacobian([-1, 1], [0, 2], eps=3), [[0, 0], [-0.375, 0.375]])
    assert [float(x) for x in lnbook.jacobian_eigenvalues([-1, 1], eps=3)] == [0.375, 0.5]


@PROPERTY
@given(records, eps_values)
def test_jacobian_matches_central_differences(z, eps):
    """The closed form agrees with central differences of lnbook.core (a step of 1e-5 of the
    record's scale s keeps truncation and rounding both below 1e-6 / s); J is symmetric bit
    for bit."""
    s = float(np.sqrt(lnbook.stats(z)[1] + eps))
    fd = lnbook.central_difference_jacobian(lambda x: lnbook.core(x, eps=eps), z, tau=1e-5 * s)
    J = lnbook.jacobian(z, eps=eps)
    assert np.array_equal(J, J.T) and np.allclose(J, fd, rtol=0, atol=1e-6 / s)


def mp_radial(z, eps):
    """eps / s^3 with mpmath: the radial eigenvalue."""
    with mpmath.workdps(40):
        x = [mpmath.mpf(t) for t in z]
        mu = sum(x) / len(x)
        s = mpmath.sqrt(sum((t - mu) ** 2 for t in x) / len(x) + mpmath.mpf(eps))
        return float(mpmath.mpf(eps) / s**3), float(s)


def test_d_2_is_computed_radially():
    """For d = 2, J = (eps/s^3) P: at z = (3, -1), eps = 1e-14 the two terms of the general
    form cancel to 11 % error; J, J v and the eigenvalue are within a few rho of mpmath's.
    For d = 3, J v is as accurate as its condition allows: rho ||v|| / s."""
    lam, _ = mp_radial([3.0, -1.0], 1e-14)
    P = np.array([[0.5, -0.5], [-0.5, 0.5]])
    assert np.allclose(lnbook.jacobian([3, -1], eps=1e-14), lam * P, rtol=4 * RHO * 2, atol=0)
    assert np.allclose(lnbook.input_grad([3, -1], [2, -2], eps=1e-14), [2 * lam, -2 * lam],
                       rtol=8 * RHO, atol=0)
    assert math.isclose(lnbook.jacobian_eigenvalues([3, -1], eps=1e-14)[0], lam, rel_tol=8 * RHO)
    lam, s = mp_radial([3.0, -1.0, 1.0], 1e-14)
    v = np.array([2.0, -2.0, 0.0])
    assert np.abs(lnbook.input_grad([3.0, -1.0, 1.0], v, eps=1e-14) - lam * v).max() \
        <= 8 * RHO * np.linalg.norm(v) / s


def test_input_grad_by_hand_and_by_central_differences():
    """l = y_2 at z = (-1, 1), eps = 3: dl/dz is row 2 of J, (-3/16, 3/16); for
    l = g . LN(z) with a gain, central differences of the loss agree; a product
    gamma ⊙ g beyond float64 (1e318) does not overflow a gradient that fits."""
    assert np.array_equal(lnbook.input_grad([-1, 1], [0.0, 1.0], eps=3), [-0.1875, 0.1875])
    z, g, gamma = np.array([0.3, -1.2, 2.5]), np.array([1.0, -2.0, 0.5]), np.array([2.0, 0, -1])
    fd = lnbook.central_difference_jacobian(lambda x: g @ lnbook.layer_norm(x, gamma, eps=0.1), z)
    assert np.allclose(lnbook.input_grad(z, g, gamma, eps=0.1), fd, rtol=1e-7, atol=1e-9)
    z, g, gamma = np.array([1e300, -1e300, 0.0]), np.array([1e308, 0, -1e308]), np.array(
        [1e10, 1.0, 1e10])
    assert np.allclose(lnbook.input_grad(z, g, gamma, eps=0),
                       1e308 * lnbook.input_grad(z, g * 1e-308, gamma, eps=0), rtol=1e-14, atol=0)


def test_param_grads_by_hand():
    """Two records share gamma and beta, so their gradients add. eps = 2. Record 1:
    z = (1, 1, -2), q = 2, s = 2, u = (1/2, 1/2, -1), g = (2, 4, 1). Record 2: z = (2, -1, -1),
    u = (1, -1/2, -1/2), g = (3, -1, 5). dgamma = sum g ⊙ u = (4, 5/2, -7/2);
    dbeta = sum g = (5, 3, 6)."""
    dgamma, dbeta = lnbook.param_grads([[1, 1, -2], [2, -1, -1]], [[2, 4, 1], [3, -1, 5]], eps=2)
    assert np.array_equal(dgamma, [4.0, 2.5, -3.5]) and np.array_equal(dbeta, [5.0, 3.0, 6.0])


def test_param_grads_by_central_differences():
    """The gradients of l = sum(g ⊙ LN(z; gamma, beta)) over a (2, 3, 4) batch agree with
    central differences in gamma and in beta."""
    rng = np.random.default_rng(5)
    z, g = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    gamma, beta = rng.normal(size=4), rng.normal(size=4)
    dgamma, dbeta = lnbook.param_grads(z, g, eps=0.01)
    fd_gamma = lnbook.central_difference_jacobian(
        lambda c: np.sum(g * lnbook.layer_norm(z, c, beta, eps=0.01)), gamma)
    fd_beta = lnbook.central_difference_jacobian(
        lambda c: np.sum(g * lnbook.layer_norm(z, gamma, c, eps=0.01)), beta)
    assert np.allclose(fd_gamma, dgamma, atol=1e-8) and np.allclose(fd_beta, dbeta, atol=1e-8)


def test_central_differences():
    """For a quadratic, central differences are exact up to rounding: d(x^2)/dx = 2x; a scalar
    f gives its gradient; a step that cannot move z, or leaves float64, is refused."""
    fd = lnbook.central_difference_jacobian(lambda x: x**2, [1.0, -3.0], tau=1e-3)
    assert np.allclose(fd, np.diag([2.0, -6.0]), atol=1e-9)
    grad = lnbook.central_difference_jacobian(lambda x: x[0] ** 2 + 3 * x[1], [2.0, 5.0], tau=0.5)
    assert grad.tolist() == [4.0, 3.0]
    with pytest.raises(ValueError, match=r"tau = 1e-20 is below the spacing of z\[0\]"):
        lnbook.central_difference_jacobian(np.sin, [1.0], tau=1e-20)
    with pytest.raises(ValueError, match=r"z \+ tau or z - tau overflows"):
        lnbook.central_difference_jacobian(np.sin, [1e308], tau=1e308)
    # tau = 1e308 moves z and stays in range, but 2 tau overflows: (f+ - f-) / tau / 2
    z, f = np.array([1.0, 2.0, 4.0]), lambda x: lnbook.core(x, eps=1.0)
    got = lnbook.central_difference_jacobian(f, z, tau=1e308)
    want = np.stack([(f(z + 1e308 * e) - f(z - 1e308 * e)) / 1e308 / 2 for e in np.eye(3)], -1)
    assert np.array_equal(got, want) and np.abs(got).max() > 1e-309
