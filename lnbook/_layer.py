"""The layer: per-record statistics, the normalized core and the affine output; and its
relatives RMSNorm and BatchNorm, the kernel's standardization with other options.

Symbols (used in every module): a record ``z`` has ``d`` features on the last axis;
``mu`` is its mean, ``v = z - mu 1`` its centered part, ``q = |v|^2 / d`` its population
variance, ``u`` the core, ``gamma`` the gain, ``beta`` the bias and ``eps`` the stabilizer.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["EPS", "stats", "core", "layer_norm", "normalized_variance", "rms_norm", "batch_norm"]


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
        Per-record mean.
    q : (...) ndarray
        Per-record population variance (divisor ``d``, not ``d - 1``).

    Raises
    ------
    ValueError, TypeError
        For records that are not finite real numbers (:ref:`api-rules`), or a variance beyond
        float64 (a spread beyond about 1e154: :func:`core` normalizes such a record).

    Notes
    -----
    .. math:: \\begin{aligned} \\mu &= \\frac1d \\sum_i z_i, \\\\
              q &= \\frac1d \\lVert z - \\mu \\mathbf 1 \\rVert^2 \\end{aligned}

    Two passes, never :math:`E[z^2] - E[z]^2`, which cancels when :math:`|\\mu| \\gg \\sqrt q`:
    the first pass's mean :math:`\\mu_0` is corrected by the mean of :math:`z - \\mu_0` (exact
    entries when the offset dominates), so ``v`` is accurate to a few ulps even for
    :math:`|\\mu|/\\sqrt q` near :math:`10^9`. Every sum is numpy's pairwise one along the last
    axis (error growing like :math:`\\log d`). A record whose squares would under- or overflow
    (spread below about ``1e-154`` or above ``1e154``) is scaled by a power of two first
    (exact). See :ref:`ch-records` and :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`chan1983algorithms` (the corrected two-pass algorithm);
    :cite:t:`higham2002accuracy` (pairwise summation).

    Examples
    --------
    >>> stats([[1, 2, 3, 4], [5, 5, 5, 5]])
    (array([2.5, 5. ]), array([1.25, 0.  ]))
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
        The core :math:`u_\\varepsilon(z)` of every record.

    Raises
    ------
    ValueError, TypeError
        For bad records or ``eps`` (:ref:`api-rules`); if ``eps == 0`` and a record is
        constant (0/0).

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
    >>> core([3e-162, 0, 0], eps=0).round(6)  # its squares would underflow
    array([ 1.414214, -0.707107, -0.707107])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    return _kernel.standardize(z, eps)


@_checks.public
def layer_norm(z: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None, *,
               eps: float = EPS) -> np.ndarray:
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
        The output :math:`y = \\gamma \\odot u + \\beta` of every record.

    Raises
    ------
    ValueError, TypeError
        As for :func:`core`; if ``gamma`` or ``beta`` is not of shape ``(d,)``, or the output
        overflows float64 (a gain or bias near the largest float).

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
    ValueError, TypeError
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


@_checks.public
def rms_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """The core of RMSNorm: divide by the root mean square, with no centering.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    ndarray
        :math:`z / \\sqrt{\\lVert z\\rVert^2/d + \\varepsilon}` for every record.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`; ``eps == 0`` at an all-zero record is 0/0.

    Notes
    -----
    .. formula not checked: names RMSNorm's output for the reader; no other formula of the docstring
       uses it

    .. math:: \\bar z = \\frac{z}{\\sqrt{\\tfrac1d \\lVert z \\rVert^2 + \\varepsilon}}

    A record of tiny or huge size is scaled by a power of two first. See :ref:`ch-exercises`.

    References
    ----------
    :cite:t:`zhang2019root`

    Examples
    --------
    >>> rms_norm([3e-170, 0], eps=0)  # its square underflows; the power of two does not
    array([1.41421356, 0.        ])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    # z / sqrt((1/d) |z|^2 + eps): the kernel without centering
    return _kernel.standardize(z, eps, center=False)


@_checks.public
def batch_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """The training-mode core of BatchNorm: statistics down each feature, across the batch.

    Parameters
    ----------
    z : (B, d) array_like
        A batch of ``B`` records.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    (B, d) ndarray
        Each column standardized by its own batch mean and variance.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`; if ``z`` is not a non-empty 2-d batch, or ``eps == 0`` and
        a column is constant (always so when ``B = 1``).

    Notes
    -----
    .. formula not checked: statistics over the batch axis b (BatchNorm), not over a record

    .. math:: \\begin{aligned} y_{bj} &= \\frac{z_{bj} - \\mu_j}{\\sqrt{q_j + \\varepsilon}}, \\\\
              \\mu_j &= \\frac1B \\sum_b z_{bj}, \\\\
              q_j &= \\frac1B \\sum_b (z_{bj} - \\mu_j)^2 \\end{aligned}

    The kernel's statistics on the transposed batch, as ``torch.nn.BatchNorm1d(d,
    affine=False)`` in training mode. See :ref:`ch-records`.

    References
    ----------
    :cite:t:`ioffe2015batch`

    Examples
    --------
    >>> batch_norm([[2, 4, 6, 8]])
    array([[0., 0., 0., 0.]])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    if z.ndim != 2 or z.shape[0] == 0:
        raise ValueError(f"z must be a batch of shape (B, d) with B >= 1 records (a batch's "
                         f"statistics need one); got shape {z.shape}")
    # the kernel on z^T: each feature column j is a "record" of B values
    columns = np.ascontiguousarray(z.T)
    return _kernel.standardize(columns, eps, unit="feature column").T.copy()
