"""lnbook.geometry: the plane 1^⊥, the radius of the core, the radial map. Witnesses: hand
examples, the norm of the core itself, central differences."""

from __future__ import annotations

import numpy as np
import pytest

import lnbook
from lnbook.geometry import core_radius, plane_basis, radial_profile


@pytest.mark.parametrize("d", [2, 3, 5, 9])
def test_plane_basis_is_orthonormal_and_spans_the_centered_records(d):
    """Rows are orthonormal, orthogonal to 1, and Q^T Q = P."""
    Q = plane_basis(d)
    np.testing.assert_allclose(Q @ Q.T, np.eye(d - 1), atol=1e-15)
    np.testing.assert_allclose(Q @ np.ones(d), 0, atol=1e-15)
    np.testing.assert_allclose(Q.T @ Q, lnbook.centering_matrix(d), atol=1e-15)


def test_plane_basis_by_hand():
    """d = 3: (1, -1, 0)/sqrt 2 and (1, 1, -2)/sqrt 6."""
    np.testing.assert_allclose(plane_basis(3), [[2**-0.5, -(2**-0.5), 0],
                                                [6**-0.5, 6**-0.5, -2 * 6**-0.5]], rtol=1e-15)


def test_core_radius_matches_the_norm_of_the_core():
    """||u_eps(z)|| = sqrt(d q / (q + eps)) on random records, for several eps."""
    z = np.random.default_rng(0).normal(size=(50, 7)) * np.logspace(-3, 2, 50)[:, None]
    for eps in (0.0, 1e-5, 0.1, 3.0):
        np.testing.assert_allclose(core_radius(z, eps=eps),
                                   np.sqrt(np.sum(lnbook.core(z, eps=eps) ** 2, axis=-1)),
                                   rtol=1e-13)


def test_core_radius_by_hand():
    """z = (1, 2, 3): q = 2/3, so eps = 2/3 gives |u|^2 = 3/2 and eps = 0 gives 3."""
    assert core_radius([1.0, 2.0, 3.0], eps=2 / 3) ** 2 == pytest.approx(1.5, rel=1e-15)
    assert core_radius([1.0, 2.0, 3.0], eps=0) ** 2 == pytest.approx(3.0, rel=1e-15)


def test_radial_profile_slope_is_the_radial_eigenvalue():
    """d/dr of the radial map equals eps / s^3 with s^2 = r^2/d + eps (central differences)."""
    r, d, eps, tau = np.array([0.0, 0.3, 1.0, 4.0]), 5, 0.2, 1e-6
    slope = (radial_profile(r + tau, d, eps=eps) - radial_profile(np.abs(r - tau), d, eps=eps)
             * np.sign(r - tau)) / (2 * tau)
    s = np.sqrt(r**2 / d + eps)
    np.testing.assert_allclose(slope, eps / s**3, rtol=1e-7)


def test_radial_profile_takes_any_count_and_no_negative_length():
    """d = 2**70 (beyond int64) is a count like any: r / sqrt(r^2/d + eps); a negative length
    is refused, naming r."""
    assert radial_profile([1.0, 3.0], 2**70, eps=1.0).tolist() == [
        1.0 / np.sqrt(1.0 / 2**70 + 1.0), 3.0 / np.sqrt(9.0 / 2**70 + 1.0)]
    with pytest.raises(ValueError, match=r"lengths r must be non-negative"):
        radial_profile([-1.0], 3)
