"""Checks the chapters run on implementations: record independence and finite differences."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .normalize import EPS

__all__ = ["record_audit", "wrong_axis_layer_norm", "central_difference_jacobian"]


def record_audit(
    layer: Callable[[np.ndarray], np.ndarray],
    z: ArrayLike,
    record: tuple[int, ...],
    *,
    seed: int = 0,
) -> np.ndarray:
    """Change one record and measure how much every record's output moved.

    Parameters
    ----------
    layer : callable
        Maps an array of records ``(..., d)`` to an array of the same shape.
    z : (..., d) array_like
        Records along the last axis, with at least one leading axis.
    record : tuple of int
        Index of the record to change (one index per leading axis).
    seed : int, optional
        Seed of the replacement record's random draw.

    Returns
    -------
    (...) ndarray
        ``max_i |layer(z')[r, i] - layer(z)[r, i]|`` for every record ``r``, where ``z'``
        differs from ``z`` in ``record`` only. A per-record layer moves only ``record``,
        and leaves every other entry exactly 0 (bit for bit).

    Raises
    ------
    ValueError
        If ``z`` has no leading axis, ``record`` is not a valid index, or ``layer`` changes
        the shape.

    Examples
    --------
    >>> from lnbook import layer_norm
    >>> z = np.arange(12.0).reshape(2, 2, 3) ** 2
    >>> record_audit(layer_norm, z, (0, 1)) > 0
    array([[False,  True],
           [False, False]])
    """
    z = _checks.records(z)
    if z.ndim < 2:
        raise ValueError(f"z must hold several records, shape (..., d); got shape {z.shape}")
    record = tuple(record)
    if len(record) != z.ndim - 1 or not all(-n <= i < n for i, n in zip(record, z.shape)):
        raise ValueError(f"record must index the leading axes {z.shape[:-1]}; got {record}")
    changed = z.copy()
    changed[record] = np.random.default_rng(seed).normal(size=z.shape[-1]) * 3 + 1
    before, after = np.asarray(layer(z)), np.asarray(layer(changed))
    if before.shape != z.shape or after.shape != z.shape:
        raise ValueError(f"layer must keep the shape {z.shape}; got {before.shape}")
    # a NaN would compare as "unchanged" below
    _checks.finite_result(before, "the layer's output")
    _checks.finite_result(after, "the layer's output")
    return np.abs(after - before).max(axis=-1)


def wrong_axis_layer_norm(z: ArrayLike, *, axis: int = -2, eps: float = EPS) -> np.ndarray:
    """A deliberately wrong layer: statistics over ``axis`` instead of the features.

    With ``axis=-2`` on ``(B, T, d)`` it normalizes each feature across the T positions
    (coupling tokens); with ``axis=0`` across the batch, as BatchNorm does. The output keeps
    the shape, which is why only an audit such as :func:`record_audit` catches it.

    Parameters
    ----------
    z : (..., d) array_like
        Records along the last axis.
    axis : int, optional
        The (wrong) axis the statistics are taken over.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    ndarray, shape of ``z``

    Examples
    --------
    >>> wrong_axis_layer_norm([[1.0, 5.0], [3.0, 5.0]], eps=0)[:, 0]
    array([-1.,  1.])
    """
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    mu = z.mean(axis=axis, keepdims=True)
    q = ((z - mu) ** 2).mean(axis=axis, keepdims=True)
    # the bug: mu and q over `axis`, not over the last axis
    with np.errstate(invalid="ignore"):
        return np.where(q + eps > 0, (z - mu) / np.sqrt(q + eps), 0.0)


def central_difference_jacobian(
    f: Callable[[np.ndarray], np.ndarray], z: ArrayLike, *, h: float = 1e-6
) -> np.ndarray:
    """Jacobian of ``f`` at a record ``z`` by central differences.

    Parameters
    ----------
    f : callable
        Maps a ``(d,)`` record to an ``(m,)`` vector.
    z : (d,) array_like
        The point.
    h : float, optional
        Step; the error is ``O(h^2)`` plus rounding ``O(eps_machine / h)``.

    Returns
    -------
    (m, d) ndarray
        Column ``j`` is ``(f(z + h e_j) - f(z - h e_j)) / (2 h)``.

    Examples
    --------
    >>> central_difference_jacobian(lambda x: x**2, [1.0, 2.0]).round(6)
    array([[2., 0.],
           [0., 4.]])
    """
    z = _checks.records(z)
    if z.ndim != 1:
        raise ValueError(f"z must be one record of shape (d,); got shape {z.shape}")
    if isinstance(h, bool) or not isinstance(h, numbers.Real) or not 0 < h < math.inf:
        raise ValueError(f"h must be a positive, finite step; got h = {h!r}")
    steps = np.eye(z.size) * h
    # column j: (f(z + h e_j) - f(z - h e_j)) / 2h
    columns = [(np.asarray(f(z + e)) - np.asarray(f(z - e))) / (2 * h) for e in steps]
    return np.stack(columns, axis=-1)
