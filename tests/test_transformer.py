"""Tests of lnbook.transformer: the Pre-LN/Post-LN stack and RMSNorm's Jacobian."""

from __future__ import annotations

import numpy as np
import pytest

import lnbook
from lnbook.transformer import (
    init_blocks,
    layer_gradient_norms,
    residual_backward,
    residual_forward,
    rms_jacobian,
)


def perturbed_blocks(L=2, d=4, m=5, seed=3):
    """Blocks with nonzero biases and non-unit gains, so every gradient path is exercised."""
    rng = np.random.default_rng(seed + 100)
    blocks = init_blocks(L, d, m=m, seed=seed)
    for p in blocks:
        p["b1"] = 0.3 * rng.normal(size=m)
        p["b2"] = 0.3 * rng.normal(size=d)
        p["gamma"] = 1 + 0.3 * rng.normal(size=d)
        p["beta"] = 0.3 * rng.normal(size=d)
    return blocks


@pytest.mark.parametrize("placement", ["pre", "post"])
def test_backward_matches_central_differences(placement):
    """Every parameter gradient and dl/dx agree with central differences of l = sum(C ⊙ y)."""
    rng = np.random.default_rng(7)
    blocks = perturbed_blocks()
    x, C, eps, tau = rng.normal(size=(2, 4)), rng.normal(size=(2, 4)), 0.1, 1e-6

    def loss():
        return float(np.sum(C * residual_forward(x, blocks, placement=placement, eps=eps)))

    def central(value):
        """d loss / d value, entry by entry, moving ``value`` in place and back."""
        fd = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            old = value[idx]
            value[idx] = old + tau
            plus = loss()
            value[idx] = old - tau
            minus = loss()
            value[idx] = old
            fd[idx] = (plus - minus) / (2 * tau)
        return fd

    dx, grads = residual_backward(x, C, blocks, placement=placement, eps=eps)
    for k, p in enumerate(blocks):
        for key, value in p.items():
            np.testing.assert_allclose(grads[k][key], central(value), rtol=0, atol=1e-7,
                                       err_msg=key)
    np.testing.assert_allclose(dx, central(x), rtol=0, atol=1e-7)


def test_forward_by_hand_one_block():
    """One block by hand: with W2 = 0 and b2 = 0, F = 0, so Pre-LN gives u(x) and Post-LN u(x)."""
    blocks = init_blocks(1, 3, m=2, seed=0)
    blocks[0]["W2"][:] = 0.0
    x = np.array([1.0, 2.0, 6.0])
    # mean 3, variance (4 + 1 + 9)/3 = 14/3, eps = 0: u = (x - 3) / sqrt(14/3)
    expected = (x - 3) / np.sqrt(14 / 3)
    for placement in ("pre", "post"):
        np.testing.assert_allclose(residual_forward(x, blocks, placement=placement, eps=0),
                                   expected, rtol=1e-15)


def test_post_ln_output_is_normalized_and_pre_ln_residual_grows():
    """Post-LN output rows have mean 0 and mean square q/(q+eps); Pre-LN's stream grows with L."""
    x = np.random.default_rng(1).normal(size=(8, 16))
    y = residual_forward(x, init_blocks(6, 16, seed=2), placement="post", eps=0)
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-14)
    np.testing.assert_allclose((y**2).mean(axis=-1), 1, rtol=1e-13)


def test_gradient_norm_depth_trends():
    """At the last block, Pre-LN's dl/dW2 shrinks with depth, Post-LN's does not (4 seeds)."""
    def last(L, placement):
        return np.mean([layer_gradient_norms(L, d=32, placement=placement, seed=s)[-1]
                        for s in range(4)])
    pre = [last(L, "pre") for L in (2, 32)]
    post = [last(L, "post") for L in (2, 32)]
    assert pre[1] < 0.5 * pre[0]
    assert 0.7 < post[1] / post[0] < 1.3


def test_malformed_blocks_are_refused_by_name():
    """A block of the wrong shapes, a missing parameter, a block that is not a dict."""
    with pytest.raises(ValueError, match=r"blocks\[0\]\['W1'\] must have shape"):
        residual_forward([1.0, 2.0, 3.0], init_blocks(1, 2))
    with pytest.raises(ValueError, match="lacks the parameters"):
        residual_forward([1.0, 2.0], [{"W1": np.ones((2, 2))}])
    with pytest.raises(TypeError, match=r"blocks\[0\] must be a dict"):
        residual_forward([1.0, 2.0], [[1.0]])


def test_rms_jacobian_finite_differences_and_eigenpairs():
    """J_rms matches central differences of rms_norm; eigenvalue eps/r^3 on z, 1/r on z-perp."""
    rng = np.random.default_rng(5)
    z, eps, tau = rng.normal(size=6), 0.3, 1e-6
    J = rms_jacobian(z, eps=eps)
    fd = np.stack([(lnbook.rms_norm(z + tau * e, eps=eps) - lnbook.rms_norm(z - tau * e, eps=eps))
                   / (2 * tau) for e in np.eye(6)], axis=1)
    np.testing.assert_allclose(J, fd, rtol=0, atol=1e-9)
    r = np.sqrt(np.mean(z**2) + eps)
    np.testing.assert_allclose(J @ z, eps / r**3 * z, rtol=1e-13)
    w = rng.normal(size=6)
    w -= (w @ z) / (z @ z) * z
    np.testing.assert_allclose(J @ w, w / r, rtol=1e-12, atol=1e-15)


def test_rms_jacobian_of_one_feature_is_its_radial_eigenvalue():
    """With d = 1 the Jacobian is eps / r^3 (1/r - z^2/r^3 would cancel to 7 digits), mpmath's."""
    import mpmath

    for z, eps in ((0.7, 1e-12), (1e-5, 1e-300), (3.0, 1.0)):
        with mpmath.workdps(60):
            exact = float(mpmath.mpf(eps) / (mpmath.mpf(z) ** 2 + mpmath.mpf(eps)) ** 1.5)
        assert abs(rms_jacobian([z], eps=eps)[0, 0] - exact) <= 4 * np.spacing(exact)


def test_rms_jacobian_by_hand_and_layer_norm_link():
    """z = (3, 4), eps = 0: r^2 = 12.5, r^3 J = 12.5 I - z z^T / 2; and J_LN(z) = J_rms(Pz) P."""
    np.testing.assert_allclose(rms_jacobian([3.0, 4.0], eps=0) * 12.5**1.5,
                               [[8.0, -6.0], [-6.0, 4.5]], rtol=1e-14)
    z = np.array([[1.0, -2.0, 0.5, 4.0], [3.0, 3.0, 1.0, 0.0]])
    P = lnbook.centering_matrix(4)
    v = z - z.mean(axis=-1, keepdims=True)
    np.testing.assert_allclose(rms_jacobian(v, eps=0.2) @ P, lnbook.jacobian(z, eps=0.2),
                               rtol=1e-13, atol=1e-15)
