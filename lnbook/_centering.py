"""Centering matrices: the plain projection P and its weighted, oblique cousin P_a."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks

__all__ = ["centering_matrix", "weighted_centering_matrix"]


@_checks.public
def centering_matrix(d: int) -> np.ndarray:
    """The centering matrix ``P = I - (1/d) 1 1^T``.

    Parameters
    ----------
    d : int
        Number of features, ``d >= 1``.

    Returns
    -------
    (d, d) ndarray
        The centering matrix :math:`P`: symmetric, idempotent, ``P 1 = 0`` and
        ``P z = z - mu 1``.

    Raises
    ------
    ValueError, TypeError
        If ``d`` is not a positive integer, or the matrix would have more than 2**31 entries.

    Notes
    -----
    .. math:: P = I - \\tfrac1d \\mathbf 1 \\mathbf 1^\\top

    See :ref:`ch-shift`.

    Examples
    --------
    >>> centering_matrix(2)
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    """
    d = _checks.count(d, "d")
    _checks.fits(d * d, f"the centering matrix of d = {d} features")
    # P = I - (1/d) 1 1^T
    return np.eye(d) - 1.0 / d


@_checks.public
def weighted_centering_matrix(a: ArrayLike) -> np.ndarray:
    """The weighted centering matrix ``P_a = I - 1 a^T``.

    Parameters
    ----------
    a : (d,) array_like
        Weights, non-negative and summing to 1 within the rounding of their own format
        (float32 weights are judged in float32 ulps).

    Returns
    -------
    (d, d) ndarray
        The matrix :math:`P_a`, with ``P_a x = x - (a^T x) 1``: idempotent, kernel
        ``span{1}``, range ``ker a^T``; an oblique projection unless all weights are equal.

    Raises
    ------
    ValueError, TypeError
        If a weight is negative or not finite, the weights do not sum to 1, or the matrix would
        have more than 2**31 entries.

    Notes
    -----
    .. math:: \\begin{aligned} P_a &= I - \\mathbf 1 a^\\top, \\\\
              \\operatorname{diag}(a)\\, P_a &= P_a^\\top \\operatorname{diag}(a) \\end{aligned}

    It is the residual map of the weighted least-squares fit of one constant. See
    :ref:`ch-weighted`.

    References
    ----------
    :cite:t:`bjorck1996least` (weighted least squares)

    Examples
    --------
    >>> weighted_centering_matrix([0.25, 0.75]) @ [4, 2]
    array([ 1.5, -0.5])
    """
    a = _checks.weights(a)
    _checks.fits(a.size**2, f"the weighted centering matrix of d = {a.size} features")
    # P_a = I - 1 a^T
    return np.eye(a.size) - a[None, :]
