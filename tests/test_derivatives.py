"""Tests of lnbook._derivatives: jacobian, jacobian_eigenvalues, input_grad, param_grads."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from common import eps_values, finite, record_arrays
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnbook

records = st.integers(2, 8).flatmap(lambda d: hnp.arrays(np.float64, d, elements=finite))


def test_jacobian_by_hand():
    """z = (-1, 1), eps = 3: J = [[3,-3],[-3,3]]/16, worked in exact fractions."""
    z = [Fraction(-1), Fraction(1)]
    d, eps = 2, Fraction(3)
    mu = sum(z) / d
    v = [x - mu for x in z]
    q = sum(x * x for x in v) / d
    s2 = q + eps  # = 4, so sqrt(q + eps) = 2 exactly
    s = Fraction(2)
    assert s * s == s2
    hand = [[((i == j) - Fraction(1, d)) / s - v[i] * v[j] / (d * s**3) for j in range(d)]
            for i in range(d)]
    assert hand == [[Fraction(3, 16), Fraction(-3, 16)], [Fraction(-3, 16), Fraction(3, 16)]]
    assert np.array_equal(lnbook.jacobian([-1, 1], eps=3), np.array(hand, dtype=float))


def test_jacobian_with_gain_by_hand():
    """gamma = (0, 2): diag(gamma) J = [[0, 0], [-3/8, 3/8]]."""
    J = lnbook.jacobian([-1, 1], eps=3, gamma=[0, 2])
    assert np.array_equal(J, [[0, 0], [-0.375, 0.375]])


@settings(max_examples=40, deadline=None)
@given(records, eps_values)
def test_jacobian_matches_central_differences(z, eps):
    """The closed form agrees with central differences of lnbook.core."""
    # a step proportional to the record's scale s = sqrt(q + eps) keeps both the truncation
    # error (h/s)^2 and the rounding error eps_machine * s / h small relative to |J| ~ 1/s
    s = float(np.sqrt(lnbook.stats(z)[1] + eps))
    fd = lnbook.central_difference_jacobian(lambda x: lnbook.core(x, eps=eps), z, tau=1e-5 * s)
    J = lnbook.jacobian(z, eps=eps)
    assert np.allclose(J, fd, rtol=0, atol=1e-6 / s)


@settings(max_examples=40, deadline=None)
@given(records, eps_values)
def test_jacobian_structure(z, eps):
    """J is symmetric, J 1 = 0, J v = eps/(q+eps)^{3/2} v, J w = (q+eps)^{-1/2} w."""
    J = lnbook.jacobian(z, eps=eps)
    mu, q = lnbook.stats(z)
    v, d = z - mu, z.size
    radial, tangential = lnbook.jacobian_eigenvalues(z, eps=eps)
    # J's two terms have entries of size 1/s = tangential; their rounding errors are that big
    scale = tangential
    assert np.array_equal(J, J.T)
    assert np.allclose(J @ np.ones(d), 0, atol=1e-12 * scale * d)
    assert np.allclose(J @ v, radial * v, atol=1e-10 * scale * (1 + np.abs(v).max()))
    w = np.random.default_rng(0).normal(size=d)
    w -= w.mean()
    if v @ v > 0:
        w -= (w @ v) / (v @ v) * v
    assert np.allclose(J @ w, tangential * w, atol=1e-10 * scale)


@settings(max_examples=40, deadline=None)
@given(records, eps_values)
def test_eigenvalues_against_eigvalsh(z, eps):
    """The spectrum of J is {0, radial, tangential (d-2 times)} when v != 0."""
    mu, q = lnbook.stats(z)
    assume(q > 1e-6)
    radial, tangential = lnbook.jacobian_eigenvalues(z, eps=eps)
    expected = np.sort([0.0, radial] + [tangential] * (z.size - 2))
    numeric = np.linalg.eigvalsh(lnbook.jacobian(z, eps=eps))
    assert np.allclose(numeric, expected, rtol=1e-9, atol=1e-12 * tangential)


def test_eigenvalues_by_hand():
    """z = (-1, 1), eps = 3: radial eigenvalue 3/8, and J (-1, 1) = (3/8)(-1, 1)."""
    radial, tangential = lnbook.jacobian_eigenvalues([-1, 1], eps=3)
    assert radial == 0.375 and tangential == 0.5
    assert np.array_equal(lnbook.jacobian([-1, 1], eps=3) @ [-1, 1], [-0.375, 0.375])


def test_constant_input_jacobian_is_P_over_sqrt_eps():
    """At a constant record, J = P / sqrt(eps)."""
    J = lnbook.jacobian([2.0, 2.0, 2.0, 2.0], eps=0.25)
    assert np.allclose(J, lnbook.centering_matrix(4) * 2, rtol=0, atol=1e-15)


def test_batched_jacobian_shape():
    """A (B, T, d) input gives a (B, T, d, d) Jacobian, record by record."""
    z = np.random.default_rng(3).normal(size=(2, 3, 4))
    J = lnbook.jacobian(z, eps=0.1)
    assert J.shape == (2, 3, 4, 4)
    assert np.array_equal(J[1, 2], lnbook.jacobian(z[1, 2], eps=0.1))


@settings(max_examples=40, deadline=None)
@given(record_arrays(min_d=2), eps_values, st.integers(0, 2**32 - 1))
def test_input_grad_is_vector_jacobian_product(z, eps, seed):
    """input_grad equals J^T (gamma ⊙ g) formed explicitly."""
    rng = np.random.default_rng(seed)
    g, gamma = rng.normal(size=z.shape), rng.normal(size=z.shape[-1])
    J = lnbook.jacobian(z, eps=eps, gamma=gamma)
    expected = np.einsum("...ji,...j->...i", J, g)
    got = lnbook.input_grad(z, g, eps=eps, gamma=gamma)
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-9 * (np.abs(expected).max() + 1))


def test_input_grad_by_hand_and_finite_differences():
    """l = y_2 at z = (-1, 1), eps = 3: dl/dz = row 2 of J = (-3/16, 3/16).

    Central differences agree.
    """
    g = np.array([0.0, 1.0])
    assert np.array_equal(lnbook.input_grad([-1, 1], g, eps=3), [-0.1875, 0.1875])
    z = np.array([0.3, -1.2, 2.5])
    g = np.array([1.0, -2.0, 0.5])
    gamma = np.array([2.0, 0.0, -1.0])
    loss = lambda x: g @ lnbook.layer_norm(x, gamma, eps=0.1)  # noqa: E731
    fd = lnbook.central_difference_jacobian(lambda x: np.array([loss(x)]), z)[0]
    assert np.allclose(lnbook.input_grad(z, g, eps=0.1, gamma=gamma), fd, rtol=1e-7, atol=1e-9)


def test_param_grads_by_hand():
    """l = ½||y||² at z = (1,1,-2), eps = 2, gamma = (2,0,-1), beta = 0: dgamma = (1/2, 0, -1)."""
    y = lnbook.layer_norm([1, 1, -2], gamma=[2, 0, -1], eps=2)
    # u = (1, 1, -2) / sqrt(2 + 2) = (1/2, 1/2, -1), so y = gamma ⊙ u = (1, 0, 1)
    assert np.array_equal(y, [1.0, 0.0, 1.0])
    dgamma, _ = lnbook.param_grads([1, 1, -2], y, eps=2)
    # dgamma_i = y_i u_i = (1/2, 0, -1)
    assert np.array_equal(dgamma, [0.5, 0.0, -1.0])


def test_param_grads_accumulate_over_records_by_hand():
    """Two records share gamma and beta, so their gradients add; worked by hand.

    eps = 2. Record 1: z = (1, 1, -2), q = 2, s = 2, u = (1/2, 1/2, -1), g = (2, 4, 1).
    Record 2: z = (2, -1, -1), q = 2, s = 2, u = (1, -1/2, -1/2), g = (3, -1, 5).
    dgamma = (1 + 3, 2 + 1/2, -1 - 5/2) = (4, 5/2, -7/2); dbeta = (5, 3, 6).
    """
    dgamma, dbeta = lnbook.param_grads([[1, 1, -2], [2, -1, -1]], [[2, 4, 1], [3, -1, 5]], eps=2)
    assert np.array_equal(dgamma, [4.0, 2.5, -3.5])
    assert np.array_equal(dbeta, [5.0, 3.0, 6.0])


def test_param_grads_sum_over_records_and_finite_differences():
    """Shared parameters accumulate: gradients sum over every leading axis; FD agrees."""
    rng = np.random.default_rng(5)
    z, g = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    gamma, beta = rng.normal(size=4), rng.normal(size=4)
    dgamma, dbeta = lnbook.param_grads(z, g, eps=0.01)
    parts = [lnbook.param_grads(z[b, t], g[b, t], eps=0.01) for b in range(2) for t in range(3)]
    assert np.allclose(dgamma, sum(p[0] for p in parts))
    assert np.allclose(dbeta, sum(p[1] for p in parts))
    loss_gamma = lambda c: np.array([np.sum(g * lnbook.layer_norm(z, c, beta, eps=0.01))])  # noqa: E731
    loss_beta = lambda c: np.array([np.sum(g * lnbook.layer_norm(z, gamma, c, eps=0.01))])  # noqa: E731
    assert np.allclose(lnbook.central_difference_jacobian(loss_gamma, gamma)[0], dgamma, atol=1e-8)
    assert np.allclose(lnbook.central_difference_jacobian(loss_beta, beta)[0], dbeta, atol=1e-8)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lnbook.jacobian([1, 2], eps=-1), r"eps must be non-negative"),
        (lambda: lnbook.jacobian([5, 5], eps=0), r"eps = 0 with a constant record"),
        (lambda: lnbook.jacobian([1, 2], gamma=[1, 2, 3]), r"gamma must have shape \(2,\)"),
        (lambda: lnbook.input_grad([1, 2], [1, 2, 3]), r"g must have the shape of z, \(2,\)"),
        (lambda: lnbook.input_grad([1, 2], [1, np.nan]), r"g contains NaN"),
        (lambda: lnbook.param_grads([[1, 2]], [1, 2]), r"g must have the shape of z, \(1, 2\)"),
        (lambda: lnbook.jacobian_eigenvalues(np.zeros((0,))), r"empty feature axis"),
        (lambda: lnbook.jacobian([5e-324, 0.0, 0.0], eps=0),
         r"the Jacobian of z \(with gamma\) is not finite"),
        (lambda: lnbook.jacobian_eigenvalues([5e-324, 0.0, 0.0], eps=0),
         r"eigenvalue of z \(with eps\) is not finite"),
        (lambda: lnbook.input_grad([1e-3, 2e-3, 4e-3], [1e308, 0, -1e308], eps=0),
         r"input gradient of g at z \(with gamma\) is not finite"),
        (lambda: lnbook.jacobian(np.broadcast_to(np.arange(256.0), (2**16, 256))),
         r"the Jacobian of z \(65536 records with d = 256\) would have 4294967296 entries "
         r"\(32\.0 GiB"),
        (lambda: lnbook.param_grads([[0, 1], [1, 0]], [[1e308, 0], [1e308, 0]]), r"bias gradient"),
    ],
)
def test_bad_input_raises(call, message):
    """Bad input gets a ValueError that names the problem."""
    with pytest.raises(ValueError, match=message):
        call()


def test_complex_gain_is_a_type_error():
    with pytest.raises(TypeError, match=r"gamma must be a real array .*complex numbers"):
        lnbook.jacobian([1, 2], gamma=[1 + 1j, 2])


def test_peer_pytorch_autograd_jacobian(torch):
    """lnbook.jacobian equals torch.autograd.functional.jacobian of F.layer_norm (float64)."""
    rng = np.random.default_rng(7)
    for d, eps in [(2, 3.0), (5, 1e-5), (8, 0.3)]:
        z, gamma = rng.normal(size=d) * 2, rng.normal(size=d)
        f = lambda x, d=d, gamma=gamma, eps=eps: torch.nn.functional.layer_norm(  # noqa: E731
            x, (d,), torch.tensor(gamma), None, eps=eps
        )
        theirs = torch.autograd.functional.jacobian(f, torch.tensor(z)).numpy()
        assert np.allclose(lnbook.jacobian(z, eps=eps, gamma=gamma), theirs, rtol=1e-12, atol=1e-12)


def test_peer_pytorch_backward(torch):
    """input_grad and param_grads equal PyTorch's backward for input, weight and bias."""
    rng = np.random.default_rng(8)
    z, g = rng.normal(size=(3, 4, 6)) + 2, rng.normal(size=(3, 4, 6))
    gamma, beta = rng.normal(size=6), rng.normal(size=6)
    tz = torch.tensor(z, requires_grad=True)
    tgamma = torch.tensor(gamma, requires_grad=True)
    tbeta = torch.tensor(beta, requires_grad=True)
    y = torch.nn.functional.layer_norm(tz, (6,), tgamma, tbeta, eps=1e-3)
    y.backward(torch.tensor(g))
    dgamma, dbeta = lnbook.param_grads(z, g, eps=1e-3)
    assert np.allclose(lnbook.input_grad(z, g, eps=1e-3, gamma=gamma), tz.grad.numpy(),
                       rtol=1e-11, atol=1e-12)
    assert np.allclose(dgamma, tgamma.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert np.allclose(dbeta, tbeta.grad.numpy(), rtol=1e-12, atol=1e-12)
