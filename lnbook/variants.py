"""Relatives of the layer that the book compares it with."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .normalize import EPS

__all__ = ["rms_norm", "batch_norm"]


def rms_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """RMSNorm's core: divide by the root mean square, with no centering.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    ndarray, shape of ``z``

    Raises
    ------
    ValueError
        If ``eps == 0`` and a record is all zeros, or as for :func:`lnbook.core`.

    Notes
    -----
    .. math:: \\bar z = \\frac{z}{\\sqrt{\\tfrac1d \\lVert z \\rVert^2 + \\varepsilon}}

    See the chapter *Exercises*.

    Examples
    --------
    >>> rms_norm([2, 4, 6, 8], eps=0).round(4)
    array([0.3651, 0.7303, 1.0954, 1.4606])
    """
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    # r^2 = (1/d) |z|^2 + eps
    r2 = np.einsum("...i,...i->...", z, z)[..., None] / z.shape[-1] + eps
    if (r2 == 0).any():
        raise ValueError("eps = 0 with an all-zero record: its RMS is 0; use eps > 0")
    return z / np.sqrt(r2)


def batch_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """BatchNorm's training-mode core: statistics down each feature, across the batch.

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
    ValueError
        If ``z`` is not 2-d, or ``eps == 0`` and a column is constant (always so when
        ``B = 1``).

    Examples
    --------
    >>> batch_norm([[2, 4, 6, 8]])
    array([[0., 0., 0., 0.]])
    """
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    if z.ndim != 2:
        raise ValueError(f"z must be a batch of shape (B, d); got shape {z.shape}")
    mu = z.mean(axis=0)
    # q_j = (1/B) sum_b (z_bj - mu_j)^2, per feature j
    q = ((z - mu) ** 2).mean(axis=0)
    if (q + eps == 0).any():
        raise ValueError(
            f"eps = 0 with a constant feature column (batch size {z.shape[0]}): 0/0; use eps > 0"
        )
    return (z - mu) / np.sqrt(q + eps)
