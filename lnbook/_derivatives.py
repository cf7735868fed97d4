"""Derivatives of the layer: the input Jacobian, the gradients backpropagation needs, and the
central-difference witness that checks them."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["jacobian", "jacobian_eigenvalues", "input_grad", "param_grads",
           "central_difference_jacobian"]

# elements of J built per block (512 KiB of float64), as in the layer
_BLOCK = 1 << 16

@_checks.public
def jacobian(z: ArrayLike, gamma: ArrayLike | None = None, *, eps: float = EPS) -> np.ndarray:
    """Input Jacobian of the core (or of the full output when ``gamma`` is given).

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    gamma : (d,) array_like, optional
        Gain: the result is then ``diag(gamma) @ J`` (the bias never enters).
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (..., d, d) ndarray
        ``J[..., i, j]``, the first-order effect of input ``j`` on output ``i``.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.layer_norm`; if the result would have more than 2**31 entries
        (said before allocating), or an entry overflows float64.

    Notes
    -----
    With :math:`s = \\sqrt{q+\\varepsilon}` and :math:`\\hat v = v/\\lVert v\\rVert_2`
    (:math:`\\lVert v\\rVert_2^2 = dq`),

    .. math:: \\begin{aligned} J &= \\frac{P}{s} - \\frac{v v^\\top}{d\\,s^3} \\\\
              &= \\frac{P - \\hat v \\hat v^\\top}{s}
              + \\frac{\\varepsilon}{s^3}\\, \\hat v \\hat v^\\top , \\end{aligned}

    .. formula $P = \\hat v \\hat v^\\top$ not checked: holds for d = 2, the case the sentence names

    symmetric, with ``J 1 = 0``. For ``d = 2``, :math:`P = \\hat v \\hat v^\\top` and
    ``J = (eps/s^3) P`` is computed as such, so the radial eigenvalue keeps a few-ulp accuracy
    where the two terms of the first form would cancel. For ``d >= 3`` the entries are within a
    few ulps of ``1/s``, so a radial eigenvalue below about ``1e-16 / s`` is better taken from
    :func:`jacobian_eigenvalues`. See :ref:`ch-jacobian`.

    Examples
    --------
    >>> jacobian([-1, 1], eps=3) * 16
    array([[ 3., -3.],
           [-3.,  3.]])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    d = z.shape[-1]
    gamma = _checks.parameter(gamma, d, "gamma")
    n = math.prod(z.shape[:-1])
    _checks.fits(n * d * d, f"the Jacobian of z ({n} records with d = {d})",
                 ": compute it for fewer records at a time, or use input_grad for products")
    u, s = _kernel.core_parts(z, eps)
    u, s = u.reshape(n, d), s.reshape(n, 1)
    g = np.ones(d) if gamma is None else gamma
    J = np.zeros((n, d, d))
    if d == 2:
        # J = lambda_rad P, P = [[1, -1], [-1, 1]] / 2, lambda_rad = eps / s^3
        half = _kernel.radial(s, eps) / 2
        np.multiply(half[:, :, None], g[:, None] * np.array([[1.0, -1.0], [-1.0, 1.0]]),
                    out=J)
    elif d > 2:
        # J_ij = delta_ij / s - 1 / (d s) - u_i u_j / (d s) = delta_ij / s - c - a_i a_j,
        # with a = u / sqrt(d s) (so a_i a_j = a_j a_i: J is symmetric bit for bit)
        # and c = 1 / (d s); a block of records at a time
        inv_s = 1.0 / s
        a = u * np.sqrt(inv_s / d)
        ga, gc, gs = -(g * a), g * (inv_s / d), g * inv_s
        step = max(1, _BLOCK // (d * d))
        for start in range(0, n, step):
            b = slice(start, start + step)
            np.multiply(ga[b, :, None], a[b, None, :], out=J[b])
            J[b] -= gc[b, :, None]
            # D(LN) = diag(gamma) J
            J[b].reshape(-1, d * d)[:, :: d + 1] += gs[b]
    # |J_ij| <= 3 max|gamma| / s: check the entries only when that could overflow
    bound = np.abs(g).max() * 3.0 / s.min() if s.size else 0.0
    if not bound < 1e300:
        _checks.finite_result(J, "the Jacobian of z (with gamma)")
    return J.reshape(z.shape + (d,))


@_checks.public
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

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`, or if an eigenvalue overflows float64.

    Notes
    -----
    The third eigenvalue is 0, on :math:`\\mathbf 1`; for ``d = 1`` (``J = [[0]]``) both are
    returned as 0, for ``d = 2`` the tangential eigenspace is empty. The radial eigenvalue is
    accurate to a few ulps: where :math:`s^3` would over- or underflow it is computed as
    :math:`((\\varepsilon/s)/s)/s`. See :ref:`ch-epsilon`.

    Examples
    --------
    >>> [float(x) for x in jacobian_eigenvalues([-1, 1], eps=3)]
    [0.375, 0.5]
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    _, s = _kernel.core_parts(z, eps)
    s = s[..., 0]
    if z.shape[-1] == 1:
        # J = [[0]]: no direction of the record moves the core
        return np.zeros(s.shape), np.zeros(s.shape)
    # lambda_rad = eps / (q + eps)^{3/2},  lambda_tan = (q + eps)^{-1/2}
    radial, tangential = _kernel.radial(s, eps), 1.0 / s
    return (_checks.finite_result(radial, "the radial eigenvalue of z (with eps)"),
            _checks.finite_result(tangential, "the tangential eigenvalue of z (with eps)"))


@_checks.public
def input_grad(z: ArrayLike, g: ArrayLike, gamma: ArrayLike | None = None, *,
               eps: float = EPS) -> np.ndarray:
    """Gradient with respect to the input, ``dl/dz``, without forming the Jacobian.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    g : array_like, shape of ``z``
        Upstream gradient ``dl/dy``.
    gamma : (d,) array_like, optional
        Gain of the full output (omitted: all ones).
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (..., d) ndarray
        ``J^T (gamma ⊙ g)`` for every record.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.layer_norm`; if ``g`` does not have the shape of ``z``, or the
        gradient overflows float64.

    Notes
    -----
    With :math:`\\tilde g = \\gamma \\odot g`, :math:`s = \\sqrt{q+\\varepsilon}` and a bar for the
    mean over features (:math:`J` is symmetric),

    .. math:: \\begin{aligned} \\frac{\\partial \\ell}{\\partial z} &= J \\tilde g \\\\
              &= \\frac{1}{s}\\Big(\\tilde g - \\overline{\\tilde g}\\,\\mathbf 1
              - u\\, \\overline{u \\odot \\tilde g}\\Big). \\end{aligned}

    .. formula $J = (\\varepsilon/s^3) P$ not checked: holds for d = 2, the case the sentence names

    For ``d = 2``, :math:`J = (\\varepsilon/s^3) P`, and the gradient is computed in that form
    (no cancellation when :math:`\\tilde g \\parallel v`). ``g`` and ``gamma`` are first
    scaled by powers of two (exact; ``J`` is linear in them), so :math:`\\gamma \\odot g`
    beyond float64 does not overflow unless the gradient does. See :ref:`ch-jacobian`.

    Examples
    --------
    >>> input_grad([-1, 1], [0, 1], eps=3)
    array([-0.1875,  0.1875])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    g = _checks.same_shape(g, z)
    d = z.shape[-1]
    gamma = _checks.parameter(gamma, d, "gamma")
    u, s = _kernel.core_parts(z, eps)
    return _checks.finite_result(_kernel.input_vjp(u, s, g, gamma, eps),
                                 "the input gradient of g at z (with gamma)")


@_checks.public
def param_grads(z: ArrayLike, g: ArrayLike, *, eps: float = EPS) -> tuple[np.ndarray, np.ndarray]:
    """The gradients with respect to the gain and the bias, summed over every record.

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
        ``sum g ⊙ u`` over the records: a parameter shared by many records accumulates
        their gradients.
    dbeta : (d,) ndarray
        ``sum g`` over the records.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`; if ``g`` does not have the shape of ``z``, or a sum
        overflows float64.

    Notes
    -----
    .. formula not checked: a sum over the records of a batch

    .. math:: \\begin{aligned} \\frac{\\partial \\ell}{\\partial \\gamma_i}
              &= \\sum_{\\text{records}} g_i u_i, \\\\
              \\frac{\\partial \\ell}{\\partial \\beta_i} &= \\sum_{\\text{records}} g_i
              \\end{aligned}

    Neither depends on ``gamma`` or ``beta``. See :ref:`ch-gain` and :ref:`ch-bias`.

    Examples
    --------
    >>> dgamma, dbeta = param_grads([1, 1, -2], [1, 0, 1], eps=2)
    >>> dgamma, dbeta
    (array([ 0.5,  0. , -1. ]), array([1., 0., 1.]))
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    g = _checks.same_shape(g, z)
    u, _ = _kernel.core_parts(z, eps)
    dgamma, dbeta = _kernel.param_vjp(u, g)
    return (_checks.finite_result(dgamma, "the gain gradient of g at z"),
            _checks.finite_result(dbeta, "the bias gradient of g"))


@_checks.public
def central_difference_jacobian(f: Callable[..., np.ndarray], z: ArrayLike, *,
                                tau: float = 1e-6) -> np.ndarray:
    r"""Jacobian of ``f`` at a record ``z`` by central differences: the closed forms' witness.

    Parameters
    ----------
    f : callable
        Maps a ``(d,)`` record to an array (an ``(m,)`` vector, or a scalar).
    z : (d,) array_like
        The point.
    tau : float, optional
        The step.

    Returns
    -------
    ndarray, shape ``f(z).shape + (d,)``
        Column ``j`` is ``(f(z + tau e_j) - f(z - tau e_j)) / (2 tau)``.

    Raises
    ------
    ValueError, TypeError
        If ``f`` is not callable or returns arrays that are not finite real numbers of one
        shape; if ``z`` is not one finite record; if ``tau`` is not positive and finite, moves
        an entry of ``z`` out of float64's range, or cannot move it at all.

    Notes
    -----
    The error is of order ``tau**2`` (truncation) plus ``rho / tau`` (rounding). Every
    chapter that derives a Jacobian checks it with this witness, from :ref:`ch-jacobian` on.

    Examples
    --------
    >>> central_difference_jacobian(lambda x: x**2, [1.0, 2.0]).round(6)
    array([[2., 0.],
           [0., 4.]])
    """
    f = _checks.function(f, "f", "f(z) -> vector")
    z = _checks.records(z)
    if z.ndim != 1:
        raise ValueError(f"z must be one record of shape (d,); got shape {z.shape}")
    tau = _checks.positive(tau, "tau")
    # each step moves one entry: z_j +- tau must be finite and differ from z_j
    plus, minus = z + tau, z - tau
    if not (np.isfinite(plus).all() and np.isfinite(minus).all()):
        raise ValueError(f"z + tau or z - tau overflows float64 (tau = {tau!r}); take a "
                         "smaller step")
    still = np.flatnonzero((plus == z) | (minus == z))
    if still.size:
        j = int(still[0])
        raise ValueError(f"tau = {tau!r} is below the spacing of z[{j}] = {float(z[j])!r}: "
                         "z + tau e_j rounds to z, and the difference would be 0; take a "
                         "larger step")
    # column j: (f(z + tau e_j) - f(z - tau e_j)) / (2 tau); one step at a time (no (d, d)
    # matrix of steps), and 2 tau overflows for tau beyond half the largest float64
    twice = 2 * tau
    columns: list[np.ndarray] = []
    for j in range(z.size):
        e = np.zeros(z.size)
        e[j] = tau
        hi = _checks.real_array(f(z + e), "f(z)")
        lo = _checks.real_array(f(z - e), "f(z)")
        if hi.shape != lo.shape or (columns and hi.shape != columns[0].shape):
            raise ValueError(f"f must return arrays of one shape; got shapes {hi.shape} and "
                             f"{lo.shape if hi.shape != lo.shape else columns[0].shape}")
        if not columns:
            # the Jacobian has f(z).size * d entries: refused before the other columns
            _checks.fits(hi.size * z.size, f"the Jacobian of f at z of d = {z.size}",
                         "; pass a shorter record z")
        diff = hi - lo
        columns.append(_checks.finite_result(
            diff / twice if math.isfinite(twice) else diff / tau / 2,
            "the central difference of f at z with tau"))
    return np.stack(columns, axis=-1)
