"""Centering matrices (lnbook._centering): P and its weighted, oblique cousin P_a.
Witnesses: hand examples, the least-squares fit that P_a's residual solves (numpy's lstsq),
the core's numerator, and the properties of a projection; P and P_a entry by entry in
tests/test_contract.py."""

from __future__ import annotations

import numpy as np
import pytest

import lnbook


def test_centering_matrix_by_hand_and_properties():
    """d = 2: P = [[1/2, -1/2], [-1/2, 1/2]]; for every d, P is symmetric and idempotent,
    P 1 = 0, P z = z - mean(z) 1, and P z is the core's numerator: u(z) sqrt(q + eps)."""
    assert np.array_equal(lnbook.centering_matrix(2), [[0.5, -0.5], [-0.5, 0.5]])
    for d in (1, 3, 7):
        P, z = lnbook.centering_matrix(d), np.random.default_rng(d).normal(size=d)
        assert np.array_equal(P, P.T) and np.allclose(P @ P, P, atol=1e-15)
        assert np.allclose(P @ np.ones(d), 0, atol=1e-15)
        assert np.allclose(P @ z, z - z.mean(), atol=1e-15)
        assert np.allclose(lnbook.core(z, eps=1.0) * np.sqrt(lnbook.stats(z)[1] + 1.0), P @ z,
                           atol=1e-14)


def test_weighted_by_hand_and_by_least_squares():
    """a = (1/4, 3/4), x = (4, 2): a^T x = 2.5, P_a x = (1.5, -0.5), whose plain mean is 0.5 and
    P_a is not symmetric; on random weights P_a x is the residual of min_c sum a_i (x_i - c)^2
    (lstsq); uniform weights give P."""
    a, x = np.array([0.25, 0.75]), np.array([4.0, 2.0])
    Pa = lnbook.weighted_centering_matrix(a)
    assert np.array_equal(Pa @ x, [1.5, -0.5]) and not np.array_equal(Pa, Pa.T)
    rng = np.random.default_rng(4)
    a = rng.uniform(0.1, 1, size=6)
    a /= a.sum()
    x = rng.normal(size=6)
    c = np.linalg.lstsq(np.sqrt(a)[:, None], np.sqrt(a) * x, rcond=None)[0][0]
    assert np.allclose(lnbook.weighted_centering_matrix(a) @ x, x - c, atol=1e-13)
    assert np.allclose(lnbook.weighted_centering_matrix(np.full(7, 1 / 7)),
                       lnbook.centering_matrix(7), atol=1e-15)


def test_weights_sum_to_one_in_their_own_format():
    """Float32 thirds sum to 1 in float32 (not in float64) and are accepted; float32 weights
    1e-6 away from 1 are not; neither are negative ones."""
    a32 = np.full(3, 1 / 3, dtype=np.float32)
    assert np.allclose(lnbook.weighted_centering_matrix(a32) @ np.ones(3), 0, atol=1e-7)
    with pytest.raises(ValueError, match=r"weights must sum to 1"):
        lnbook.weighted_centering_matrix(np.array([0.5, 0.5 + 1e-6], dtype=np.float32))
    with pytest.raises(ValueError, match=r"non-negative; got a\[1\] = -0\.5"):
        lnbook.weighted_centering_matrix([1.5, -0.5])
    with pytest.raises(ValueError, match=r"sum to 1; got sum\(a\) = inf"):  # fsum overflows
        lnbook.weighted_centering_matrix([1e308, 1e308])
