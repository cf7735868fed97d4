"""Derivatives of the layer: the input Jacobian and the gradients backpropagation needs."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .normalize import EPS, _moments, _stabilized

__all__ = ["jacobian", "jacobian_eigenvalues", "input_grad", "param_grads"]


def _state(z: ArrayLike, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(z, v, s)`` with ``s = sqrt(q + eps)`` keeping the feature axis."""
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    _, v, q = _moments(z)
    return z, v, np.sqrt(_stabilized(q, eps, z.shape[:-1]))


def jacobian(z: ArrayLike, *, eps: float = EPS, gamma: ArrayLike | None = None) -> np.ndarray:
    """Input Jacobian of the core (or of the full output when ``gamma`` is given).

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer.
    gamma : (d,) array_like, optional
        Gain. When given, returns ``diag(gamma) @ J``; the bias never enters.

    Returns
    -------
    J : (..., d, d) ndarray
        ``J[..., i, j]`` is the first-order effect of input ``j`` on output ``i``.

    Raises
    ------
    ValueError
        As for :func:`lnbook.core`, or if ``gamma`` is not of shape ``(d,)``.

    Notes
    -----
    .. math:: J = Du_\\varepsilon(z) = \\frac{P}{\\sqrt{q+\\varepsilon}}
              - \\frac{v v^\\top}{d\\,(q+\\varepsilon)^{3/2}}

    ``J`` is symmetric and ``J 1 = 0``. See the chapter *The Jacobian*.

    Examples
    --------
    >>> jacobian([-1, 1], eps=3) * 16
    array([[ 3., -3.],
           [-3.,  3.]])
    >>> jacobian([-1, 1], eps=3, gamma=[0, 2]) * 8 + 0.0  # + 0.0 turns -0. into 0.
    array([[ 0.,  0.],
           [-3.,  3.]])
    """
    z, v, s = _state(z, eps)
    d = z.shape[-1]
    P = np.eye(d) - 1.0 / d
    # J = P / s - v v^T / (d s^3); a non-finite result is refused below
    with np.errstate(all="ignore"):
        J = P / s[..., None] - v[..., :, None] * v[..., None, :] / (d * s[..., None] ** 3)
    gamma = _checks.parameter(gamma, d, "gamma")
    if gamma is not None:
        # D(LN) = diag(gamma) J
        J = gamma[:, None] * J
    return _checks.finite_result(J, "the Jacobian")


def jacobian_eigenvalues(z: ArrayLike, *, eps: float = EPS) -> tuple[np.ndarray, np.ndarray]:
    """The two nonzero eigenvalues of the core's Jacobian, in closed form.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    radial : (...) ndarray
        ``eps / (q + eps)**1.5``, the eigenvalue on ``v`` (when ``v != 0``).
    tangential : (...) ndarray
        ``(q + eps)**-0.5``, the eigenvalue on every ``w`` orthogonal to ``1`` and ``v``.

    Notes
    -----
    The third eigenvalue is 0, on :math:`\\mathbf 1`. For ``d = 2`` and ``v != 0`` the
    tangential eigenspace is empty; at a constant input both formulas give
    :math:`\\varepsilon^{-1/2}`. See the chapter *Epsilon*.

    Examples
    --------
    >>> [float(x) for x in jacobian_eigenvalues([-1, 1], eps=3)]
    [0.375, 0.5]
    """
    eps = _checks.eps_value(eps)
    _, _, s = _state(z, eps)
    s = s[..., 0]
    # lambda_v = eps / (q + eps)^{3/2},  lambda_w = (q + eps)^{-1/2}
    with np.errstate(all="ignore"):
        radial, tangential = eps / s**3, 1.0 / s
    return (_checks.finite_result(radial, "the radial eigenvalue"),
            _checks.finite_result(tangential, "the tangential eigenvalue"))


def input_grad(
    z: ArrayLike, g: ArrayLike, *, eps: float = EPS, gamma: ArrayLike | None = None
) -> np.ndarray:
    """Gradient with respect to the input, ``dl/dz``, without forming the Jacobian.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    g : array_like, shape of ``z``
        Upstream gradient ``dl/dy``.
    eps : float, optional
        Stabilizer.
    gamma : (d,) array_like, optional
        Gain of the full output (omitted: all ones).

    Returns
    -------
    (..., d) ndarray
        ``J^T (gamma ⊙ g)`` for every record.

    Notes
    -----
    With :math:`\\tilde g = \\gamma \\odot g` and :math:`J` symmetric,

    .. math:: \\frac{\\partial \\ell}{\\partial z} = J \\tilde g
              = \\frac{1}{s}\\Big(\\tilde g - \\overline{\\tilde g}\\,\\mathbf 1
              - u\\, \\overline{u \\odot \\tilde g}\\Big), \\quad s = \\sqrt{q+\\varepsilon},

    where a bar is the mean over features. See the chapter *The Jacobian*.

    Examples
    --------
    >>> input_grad([-1, 1], [0, 1], eps=3)
    array([-0.1875,  0.1875])
    """
    z, v, s = _state(z, eps)
    g = _checks.same_shape(g, z)
    gamma = _checks.parameter(gamma, z.shape[-1], "gamma")
    gt = g if gamma is None else gamma * g
    u = v / s
    # dl/dz = (gt - mean(gt) 1 - u mean(u ⊙ gt)) / s
    return (gt - gt.mean(axis=-1, keepdims=True) - u * (u * gt).mean(axis=-1, keepdims=True)) / s


def param_grads(z: ArrayLike, g: ArrayLike, *, eps: float = EPS) -> tuple[np.ndarray, np.ndarray]:
    """Gradients with respect to the gain and the bias, summed over every record.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    g : array_like, shape of ``z``
        Upstream gradient ``dl/dy``.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    dgamma : (d,) ndarray
        ``sum over records of g ⊙ u``.
    dbeta : (d,) ndarray
        ``sum over records of g``: a parameter shared by many records accumulates their
        gradients.

    Notes
    -----
    .. math:: \\frac{\\partial \\ell}{\\partial \\gamma_i} = g_i u_i, \\qquad
              \\frac{\\partial \\ell}{\\partial \\beta_i} = g_i

    Neither depends on ``gamma`` or ``beta``. See the chapters *Gain* and *Bias*.

    Examples
    --------
    >>> dgamma, dbeta = param_grads([1, 1, -2], [1, 0, 1], eps=2)
    >>> dgamma, dbeta
    (array([ 0.5,  0. , -1. ]), array([1., 0., 1.]))
    """
    z, v, s = _state(z, eps)
    g = _checks.same_shape(g, z)
    lead = tuple(range(z.ndim - 1))
    # dl/dgamma = sum g ⊙ u,  dl/dbeta = sum g (an overflow is refused below)
    with np.errstate(over="ignore"):
        dgamma, dbeta = (g * (v / s)).sum(axis=lead), g.sum(axis=lead)
    return (_checks.finite_result(dgamma, "the gain gradient"),
            _checks.finite_result(dbeta, "the bias gradient"))
