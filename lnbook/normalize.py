"""The layer: per-record statistics, the normalized core and the affine output.

Symbols (used in every module): a record ``z`` has ``d`` features on the last axis;
``mu`` is its mean, ``v = z - mu 1`` its centered part, ``q = |v|^2 / d`` its population
variance, ``u`` the core, ``gamma`` the gain, ``beta`` the bias and ``eps`` the stabilizer.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks

__all__ = ["stats", "core", "layer_norm", "normalized_variance"]

EPS = 1e-5


# records per block in core and layer_norm: about 512 KiB of float64, so that the passes
# over a block (two means, centring, squares, division, gain, bias) read from cache
_BLOCK = 1 << 16


def _moments(
    z: np.ndarray, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(mu, v, q)``, ``mu`` and ``q`` keeping the feature axis; ``v`` goes in ``out``.

    The corrected two-pass algorithm: every sum is numpy's pairwise sum along the last axis,
    so a record's statistics never depend on the other records.
    """
    # mu_0 = (1/d) sum_i z_i, then w = z - mu_0 (exact when the offset dominates: Sterbenz)
    mu0 = z.mean(axis=-1, keepdims=True)
    v = np.subtract(z, mu0, out=out)
    # the rounding error of mu_0 is the mean of w; removing it recentres to a few ulps of v
    delta = v.mean(axis=-1, keepdims=True)
    v -= delta
    # q = (1/d) sum_i v_i^2 (an overflow is refused just below)
    with np.errstate(over="ignore"):
        q = np.square(v).mean(axis=-1, keepdims=True)
    _checks.finite_result(q, "the variance of a record")
    return mu0 + delta, v, q


def _stabilized(q: np.ndarray, eps: float, lead: tuple[int, ...], start: int = 0) -> np.ndarray:
    """Return ``q + eps``, refusing records where it is zero (``start``: first row's index)."""
    s2 = q + eps
    zero = np.flatnonzero(s2 == 0)
    if zero.size:
        index = tuple(int(i) for i in np.unravel_index(start + zero[0], lead)) if lead else ()
        where = f" (record {index})" if index else ""
        raise ValueError(
            f"eps = 0 with a constant record{where}: its variance is 0 (or underflows float64), "
            "so the core 0/0 is undefined; use eps > 0"
        )
    return s2


def _normalized(
    z: np.ndarray, eps: float, gamma: np.ndarray | None = None, beta: np.ndarray | None = None
) -> np.ndarray:
    """``gamma ⊙ u_eps(z) + beta`` computed a block of records at a time, in place."""
    d = z.shape[-1]
    rows = z.reshape(-1, d)
    y = np.empty(rows.shape)
    step = max(1, _BLOCK // d)
    for start in range(0, rows.shape[0], step):
        block = slice(start, start + step)
        _, v, q = _moments(rows[block], out=y[block])
        # u = v / sqrt(q + eps)
        v /= np.sqrt(_stabilized(q, eps, z.shape[:-1], start))
        # y = gamma ⊙ u + beta
        if gamma is not None:
            v *= gamma
        if beta is not None:
            v += beta
    return y.reshape(z.shape)


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
        If ``z`` is 0-d, has an empty feature axis, or contains NaN or infinite entries.

    Notes
    -----
    .. math:: \\mu = \\frac1d \\sum_i z_i, \\qquad q = \\frac1d \\lVert z - \\mu \\mathbf 1 \\rVert^2

    The variance is computed in two passes, never as :math:`E[z^2] - E[z]^2`, which cancels
    catastrophically when :math:`|\\mu| \\gg \\sqrt q`. The first pass's mean
    :math:`\\mu_0` is corrected by the mean of :math:`z - \\mu_0` (whose entries are exact
    when the offset dominates), so ``v`` is accurate to a few ulps of its own size even for
    :math:`|\\mu|/\\sqrt q` near :math:`10^9`. Every sum, the squares' included, is numpy's
    pairwise summation along the last axis, whose error grows like :math:`\\log d` rather
    than :math:`d`. See the chapters *Records and conventions* and *LayerNorm in floating
    point*.

    Examples
    --------
    >>> mu, q = stats([1, 2, 3, 4])
    >>> float(mu), float(q)
    (2.5, 1.25)
    >>> stats([[1, 2, 3], [5, 5, 5]])[1].tolist()
    [0.6666666666666666, 0.0]
    """
    mu, _, q = _moments(_checks.records(z))
    return mu[..., 0], q[..., 0]


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
    u : ndarray, shape of ``z``, float64

    Raises
    ------
    ValueError
        If ``eps < 0``, if ``eps == 0`` and a record is constant, or if ``z`` is invalid
        (see :func:`stats`).

    Notes
    -----
    .. math:: u_\\varepsilon(z) = \\frac{z - \\mu \\mathbf 1}{\\sqrt{q + \\varepsilon}}

    A constant record has ``v = 0`` and, for ``eps > 0``, core 0. See the chapter *Epsilon*.

    Examples
    --------
    >>> core([1, 2, 3], eps=1/3)
    array([-1.,  0.,  1.])
    >>> core([7, 7, 7])
    array([0., 0., 0.])
    """
    return _normalized(_checks.records(z), _checks.eps_value(eps))


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
    y : ndarray, shape of ``z``, float64

    Raises
    ------
    ValueError
        If ``gamma`` or ``beta`` is not of shape ``(d,)``, or as for :func:`core`.

    Notes
    -----
    .. math:: \\mathrm{LN}_\\varepsilon(z) = \\gamma \\odot u_\\varepsilon(z) + \\beta

    Matches ``torch.nn.functional.layer_norm(z, (d,), gamma, beta, eps)``. See the chapters
    *Gain* and *Bias*.

    Examples
    --------
    >>> layer_norm([1, 1, -2], gamma=[2, 0, -1], eps=2)
    array([1., 0., 1.])
    >>> layer_norm([3, 3, 3], beta=[1, -1, 2])
    array([ 1., -1.,  2.])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    d = z.shape[-1]
    gamma = _checks.parameter(gamma, d, "gamma")
    beta = _checks.parameter(beta, d, "beta")
    return _normalized(z, eps, gamma, beta)


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

    Notes
    -----
    .. math:: \\frac1d \\sum_i u_i^2 = \\frac{q}{q + \\varepsilon}

    It tends to 1 when ``q / eps`` is large, is 1/2 at ``q = eps``, and tends to 0 as
    ``q / eps`` shrinks. See the chapter *Epsilon*.

    Examples
    --------
    >>> float(normalized_variance([-1, 1], eps=1))
    0.5
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    _, _, q = _moments(z)
    # q / (q + eps)
    return (q / _stabilized(q, eps, z.shape[:-1]))[..., 0]
