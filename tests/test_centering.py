"""Tests of lnbook._centering: P and P_a."""

from __future__ import annotations

import numpy as np
import pytest
from common import finite
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnbook

weights = st.integers(1, 8).flatmap(
    lambda n: hnp.arrays(np.float64, n, elements=st.floats(0.0, 1.0)).filter(
        lambda w: w.sum() > 0.1
    )
).map(lambda w: w / w.sum())


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12))
def test_centering_matrix_properties(d):
    """P is symmetric, idempotent, P 1 = 0 and P z = z - mean(z) 1."""
    P = lnbook.centering_matrix(d)
    z = np.random.default_rng(d).normal(size=d)
    assert np.array_equal(P, P.T)
    assert np.allclose(P @ P, P, atol=1e-15)
    assert np.allclose(P @ np.ones(d), 0, atol=1e-15)
    assert np.allclose(P @ z, z - z.mean(), atol=1e-15)


def test_centering_matrix_by_hand():
    """d = 2: P = [[1/2, -1/2], [-1/2, 1/2]]."""
    assert np.array_equal(lnbook.centering_matrix(2), [[0.5, -0.5], [-0.5, 0.5]])


@settings(max_examples=40, deadline=None)
@given(weights, st.integers(0, 2**32 - 1))
def test_weighted_centering_properties(a, seed):
    """P_a^2 = P_a, P_a 1 = 0, a^T P_a x = 0, rank n - 1, and D P_a = P_a^T D = D - a a^T."""
    n = a.size
    Pa = lnbook.weighted_centering_matrix(a)
    x = np.random.default_rng(seed).normal(size=n)
    assert np.allclose(Pa @ Pa, Pa, atol=1e-12)
    assert np.allclose(Pa @ np.ones(n), 0, atol=1e-12)
    assert abs(a @ (Pa @ x)) < 1e-12 * (1 + np.abs(x).max())
    assert np.allclose(Pa @ x, x - (a @ x), atol=1e-12)
    assert np.linalg.matrix_rank(Pa) == n - 1
    D = np.diag(a)
    assert np.allclose(D @ Pa, Pa.T @ D, atol=1e-12)
    assert np.allclose(D @ Pa, D - np.outer(a, a), atol=1e-12)


def test_weighted_example_by_hand():
    """a = (1/4, 3/4), x = (4, 2): a^T x = 2.5, P_a x = (1.5, -0.5), plain mean 0.5."""
    a, x = np.array([0.25, 0.75]), np.array([4.0, 2.0])
    Pax = lnbook.weighted_centering_matrix(a) @ x
    assert a @ x == 2.5
    assert np.array_equal(Pax, [1.5, -0.5])
    assert a @ Pax == 0 and Pax.mean() == 0.5
    P_a = lnbook.weighted_centering_matrix(a)
    assert not np.array_equal(P_a, P_a.T)


def test_weighted_is_least_squares_residual():
    """P_a x is the residual of min_c sum_i a_i (x_i - c)^2, solved by lstsq."""
    rng = np.random.default_rng(4)
    a = rng.uniform(0.1, 1, size=6)
    a /= a.sum()
    x = rng.normal(size=6)
    sqrt_a = np.sqrt(a)
    c = np.linalg.lstsq(sqrt_a[:, None], sqrt_a * x, rcond=None)[0][0]
    assert np.allclose(lnbook.weighted_centering_matrix(a) @ x, x - c, atol=1e-13)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10))
def test_uniform_weights_give_P(n):
    """a = 1/n gives the usual centering matrix."""
    assert np.allclose(lnbook.weighted_centering_matrix(np.full(n, 1 / n)),
                       lnbook.centering_matrix(n), atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, 3, elements=finite))
def test_centering_matches_core_numerator(z):
    """P z is the numerator of the core: core(z, eps) sqrt(q + eps) = P z."""
    q = lnbook.stats(z)[1]
    assert np.allclose(lnbook.core(z, eps=1.0) * np.sqrt(q + 1.0), lnbook.centering_matrix(3) @ z,
                       atol=1e-9)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lnbook.centering_matrix(0), r"d must be at least 1; got d = 0"),
        (lambda: lnbook.centering_matrix(10**6), r"the centering matrix of d = 1000000 features "
                                                 r"would have 1000000000000 entries"),
        (lambda: lnbook.weighted_centering_matrix([1.5, -0.5]),
         r"non-negative; got a\[1\] = -0\.5"),
        (lambda: lnbook.weighted_centering_matrix([0.5, 0.6]), r"sum to 1; got sum\(a\) = 1\.1"),
        (lambda: lnbook.weighted_centering_matrix([[0.5, 0.5]]), r"vector of shape \(d,\)"),
        (lambda: lnbook.weighted_centering_matrix([np.nan, 1]), r"a contains NaN"),
    ],
)
def test_bad_input_raises(call, message):
    """Bad weights and sizes get a ValueError that names the problem."""
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("d", [2.5, 2.0, True, "3", None])
def test_a_count_that_is_not_an_integer_is_a_type_error(d):
    """d = 2.5 (or 2.0, True, '3') is a wrong kind of count, not a wrong value."""
    with pytest.raises(TypeError, match=r"d must be an integer; got"):
        lnbook.centering_matrix(d)


def test_weights_sum_to_one_within_rounding():
    """Weights that sum to 1 only up to rounding (thirds) are accepted."""
    assert lnbook.weighted_centering_matrix([1 / 3] * 3).shape == (3, 3)
