"""The layer: per-record statistics, the normalized core and the affine output.

Symbols (used in every module): a record ``z`` has ``d`` features on the last axis;
``mu`` is its mean, ``v = z - mu 1`` its centered part, ``q = |v|^2 / d`` its population
variance, ``u`` the core, ``gamma`` the gain, ``beta`` the bias and ``eps`` the stabilizer.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["EPS", "stats", "core", "layer_norm", "normalized_variance"]


@_checks.public
def stats(z: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of every record.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis; leading axes index independent records.

    Returns
    -------
    mu : (...) ndarray
        Per-record mean, shape ``z.shape[:-1]``.
    q : (...) ndarray
        Per-record population variance (divisor ``d``, not ``d - 1``).

    Raises
    ------
    ValueError
        If ``z`` is 0-d, has an empty feature axis, contains NaN or infinite entries or
        integers beyond 2**53, or if a variance exceeds the largest float64.
    TypeError
        If ``z`` is a masked array (``np.ma``): its mask would be dropped.

    Notes
    -----
    .. math:: \\begin{aligned} \\mu &= \\frac1d \\sum_i z_i, \\\\
              q &= \\frac1d \\lVert z - \\mu \\mathbf 1 \\rVert^2 \\end{aligned}

    The variance is computed in two passes, never as :math:`E[z^2] - E[z]^2`, which cancels
    catastrophically when :math:`|\\mu| \\gg \\sqrt q`. The first pass's mean
    :math:`\\mu_0` is corrected by the mean of :math:`z - \\mu_0` (whose entries are exact
    when the offset dominates), so ``v`` is accurate to a few ulps of its own size even for
    :math:`|\\mu|/\\sqrt q` near :math:`10^9`. Every sum, the squares' included, is numpy's
    pairwise summation along the last axis, whose error grows like :math:`\\log d` rather
    than :math:`d`. A record whose squares would underflow (spread below about
    ``1e-154``) or overflow is scaled by a power of two first, which is exact. See
    :ref:`ch-records` and :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`chan1983algorithms` (the corrected two-pass algorithm);
    :cite:t:`higham2002accuracy` (pairwise summation).

    Examples
    --------
    >>> mu, q = stats([1, 2, 3, 4])
    >>> float(mu), float(q)
    (2.5, 1.25)
    >>> stats([[1, 2, 3], [5, 5, 5]])[1].tolist()
    [0.6666666666666666, 0.0]
    """
    mu, q = _kernel.statistics(_checks.records(z))
    if not np.isfinite(q).all():
        raise ValueError("the variance of a record of z exceeds the largest float64 (its "
                         "spread is beyond 1e154); stats cannot return it, but core can "
                         "normalize it")
    return mu, q


@_checks.public
def core(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """The normalized core of every record.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer added to the variance inside the square root; ``eps >= 0``.

    Returns
    -------
    ndarray
        The core :math:`u_\\varepsilon(z)` of every record, of the shape of ``z``, float64.

    Raises
    ------
    ValueError
        If ``eps < 0``, if ``eps == 0`` and a record is constant, or if ``z`` is invalid
        (see :func:`stats`).
    TypeError
        If ``z`` or ``eps`` is not real numbers.

    Notes
    -----
    .. math:: u_\\varepsilon(z) = \\frac{z - \\mu \\mathbf 1}{\\sqrt{q + \\varepsilon}}

    A constant record has ``v = 0`` and, for ``eps > 0``, core 0. A record whose spread
    is below about ``1e-154`` or above ``1e154`` is first scaled by a power of two (exact),
    so that subnormal and overflowing squares never spoil the core. See :ref:`ch-epsilon`
    and :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`ba2016layer`

    Examples
    --------
    >>> core([1, 2, 3], eps=1/3)
    array([-1.,  0.,  1.])
    >>> core([7, 7, 7])
    array([0., 0., 0.])
    >>> core([3e-162, 0, 0], eps=0).round(6)  # its squares would underflow
    array([ 1.414214, -0.707107, -0.707107])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    return _kernel.standardize(z, eps)


@_checks.public
def layer_norm(
    z: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = EPS,
) -> np.ndarray:
    """Layer normalization of every record: gain times core plus bias.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    gamma : (d,) array_like, optional
        Gain; omitted (``None``) means all ones.
    beta : (d,) array_like, optional
        Bias; omitted (``None``) means all zeros.
    eps : float, optional
        Stabilizer inside the square root.

    Returns
    -------
    ndarray
        The output :math:`y = \\gamma \\odot u + \\beta` of every record, of the shape of
        ``z``, float64.

    Raises
    ------
    ValueError
        If ``gamma`` or ``beta`` is not of shape ``(d,)``, if the output overflows float64
        (a gain or bias near the largest float), or as for :func:`core`.
    TypeError
        As for :func:`core`, and if ``gamma`` or ``beta`` is not real numbers.

    Notes
    -----
    .. math:: \\mathrm{LN}_\\varepsilon(z) = \\gamma \\odot u_\\varepsilon(z) + \\beta

    Matches ``torch.nn.functional.layer_norm(z, (d,), gamma, beta, eps)``. See
    :ref:`ch-gain` and :ref:`ch-bias`.

    References
    ----------
    :cite:t:`ba2016layer`

    Examples
    --------
    >>> layer_norm([1, 1, -2], [2, 0, -1], eps=2)
    array([1., 0., 1.])
    >>> layer_norm([3, 3, 3], beta=[1, -1, 2])
    array([ 1., -1.,  2.])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    d = z.shape[-1]
    gamma = _checks.parameter(gamma, d, "gamma")
    beta = _checks.parameter(beta, d, "beta")
    return _kernel.standardize(z, eps, gamma, beta)


@_checks.public
def normalized_variance(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """The mean square of the core, in closed form: ``q / (q + eps)``.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (...) ndarray
        ``(1/d) sum_i u_i^2`` for every record, shape ``z.shape[:-1]``.

    Raises
    ------
    ValueError
        As for :func:`core`.
    TypeError
        As for :func:`core`.

    Notes
    -----
    .. math:: \\frac1d \\sum_i u_i^2 = \\frac{q}{q + \\varepsilon}

    It tends to 1 when ``q / eps`` is large, is 1/2 at ``q = eps``, and tends to 0 as
    ``q / eps`` shrinks. See :ref:`ch-epsilon`.

    Examples
    --------
    >>> float(normalized_variance([-1, 1], eps=1))
    0.5
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    # q / (q + eps)
    return _kernel.mean_square_ratio(z, eps)
