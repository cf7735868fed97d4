"""The record audit (does changing one record move any other record's output?) and the
deliberately wrong layer it is built to catch."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["record_audit", "wrong_axis_layer_norm"]


@_checks.public
def record_audit(f: Callable[..., np.ndarray], z: ArrayLike, record: tuple[int, ...], *,
                 seed: int = 0) -> np.ndarray:
    """Change one record and measure how much every record's output moved.

    Parameters
    ----------
    f : callable
        The layer under audit, records ``(..., d)`` to an array of the same shape.
    z : (..., d) array_like
        Records along the last axis, with at least one leading axis.
    record : tuple of int
        Index of the record to change, one integer per leading axis.
    seed : int, optional
        Seed of the replacement record's draw, ``3 xi + 1`` with ``xi`` standard normal.

    Returns
    -------
    (...) ndarray
        ``max_i |f(z')[r, i] - f(z)[r, i]|`` for every record ``r``, where ``z'`` differs from
        ``z`` in ``record`` only: a per-record layer leaves every other entry exactly 0.

    Raises
    ------
    ValueError, TypeError
        If ``f`` is not callable or changes the shape or returns values that are not finite;
        if ``z`` has no leading axis; if ``record`` is not a tuple of integers (a bool would
        select many records) inside it; if ``seed`` is not a non-negative integer.

    Notes
    -----
    A layer that normalizes each record on its own moves the changed record only, bit for
    bit; a wrong axis (:func:`wrong_axis_layer_norm`) keeps the shape but moves others. See
    :ref:`ch-records`.

    Examples
    --------
    >>> from lnbook import layer_norm
    >>> z = np.arange(12.0).reshape(2, 2, 3) ** 2
    >>> record_audit(layer_norm, z, (0, 1)) > 0
    array([[False,  True],
           [False, False]])
    """
    f = _checks.function(f, "f", "f(z) -> array of z's shape")
    seed = _checks.seed(seed)
    z = _checks.records(z)
    if z.ndim < 2:
        raise ValueError(f"z must hold several records, shape (..., d); got shape {z.shape}")
    # one integer per leading axis (a bool or a slice would change many records)
    record = _checks.index(record, z.shape[:-1])
    changed = z.copy()
    changed[record] = np.random.default_rng(seed).normal(size=z.shape[-1]) * 3 + 1
    # real and finite outputs (a NaN would compare as "unchanged" below)
    # f is given a copy: an f that writes into its argument leaves the caller's z alone
    before, after = _checks.real_array(f(z.copy()), "f(z)"), _checks.real_array(f(changed), "f(z)")
    if before.shape != z.shape or after.shape != z.shape:
        raise ValueError(f"f must keep the shape {z.shape}; got {before.shape}")
    return np.abs(after - before).max(axis=-1)


@_checks.public
def wrong_axis_layer_norm(z: ArrayLike, *, axis: int = -2, eps: float = EPS) -> np.ndarray:
    """A deliberately wrong layer: statistics over ``axis`` instead of the features.

    With ``axis=-2`` on ``(B, T, d)`` it normalizes each feature across the T positions, with
    ``axis=0`` across the B batch items; the output keeps the shape, so only an audit such as
    :func:`record_audit` catches it.

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
    ndarray
        The wrongly normalized array, of the shape of ``z``.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`; if ``axis`` is not an axis of ``z`` or its length is 0.

    Notes
    -----
    The kernel's standardization, applied to ``np.moveaxis(z, axis, -1)``. See
    :ref:`ch-records`.

    Examples
    --------
    >>> wrong_axis_layer_norm([[1.0, 5.0], [3.0, 4.0]], axis=0, eps=0)
    array([[-1.,  1.],
           [ 1., -1.]])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    axis = _checks.axis(axis, z.shape)
    if z.shape[axis] == 0:
        raise ValueError(f"z has no entries along axis {axis} (shape {z.shape}): there are no "
                         "statistics to take")
    # the bug: mu and q over `axis`, not over the last axis
    moved = np.ascontiguousarray(np.moveaxis(z, axis, -1))
    y = _kernel.standardize(moved, eps, unit=f"slice along axis {axis}")
    return np.ascontiguousarray(np.moveaxis(y, -1, axis))
