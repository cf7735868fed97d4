"""The record audit: does changing one record move any other record's output?"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .variants import wrong_axis_layer_norm  # noqa: F401  (lnbook.plotting imports it here)

__all__ = ["record_audit"]


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
    if not callable(layer):
        raise TypeError(f"layer must be callable, layer(z) -> array of z's shape; got {layer!r}")
    seed = _checks.count(seed, "seed", minimum=0)
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
