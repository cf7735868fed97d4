"""Input validation shared by the public functions (the public boundary).

Every check raises ``ValueError`` with a message that names the argument and shows the
offending value or shape; none uses ``assert`` (stripped by ``python -O``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike


def real_array(x: ArrayLike, name: str) -> np.ndarray:
    """Return ``x`` as a C-contiguous float64 array of finite numbers (integers or floats).

    Booleans, strings, complex numbers and objects are refused rather than converted. The
    array is made C-contiguous so that every sum along the last axis is numpy's pairwise one.
    """
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real array of numbers; got {x!r}") from exc
    if raw.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must be a real array of numbers (integer or float); got dtype {raw.dtype}"
        )
    arr = np.asarray(raw, dtype=np.float64, order="C")
    finite(arr, name)
    return arr


def records(z: ArrayLike, name: str = "z") -> np.ndarray:
    """Return ``z`` as a float64 array of records along the last axis."""
    arr = real_array(z, name)
    if arr.ndim == 0:
        raise ValueError(
            f"{name} must have shape (d,) or (..., d) with the features on the last axis; "
            f"got a 0-d value {arr.item()!r}"
        )
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} has an empty feature axis: shape {arr.shape} has d = 0")
    return arr


def finite(arr: np.ndarray, name: str) -> None:
    """Refuse NaN and infinite entries, naming the first one."""
    bad = ~np.isfinite(arr)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} contains NaN or infinite entries: {name}[{', '.join(map(str, index))}]"
            f" = {float(arr[index])!r}"
        )


def eps_value(eps: float) -> float:
    """Return ``eps`` as a float, refusing negative, NaN and infinite values."""
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise ValueError(f"eps must be a real number; got {eps!r}")
    value = float(eps)
    if not math.isfinite(value):
        raise ValueError(f"eps must be finite; got eps = {value!r}")
    if value < 0:
        raise ValueError(f"eps must be non-negative; got eps = {value!r}")
    return value


def parameter(p: ArrayLike | None, d: int, name: str) -> np.ndarray | None:
    """Return a gain or bias as a float64 array of shape ``(d,)`` (or None)."""
    if p is None:
        return None
    arr = real_array(p, name)
    if arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match d = {d}; got shape {arr.shape}")
    return arr


def same_shape(g: ArrayLike, z: np.ndarray, name: str = "g") -> np.ndarray:
    """Return an upstream gradient as float64, requiring the shape of ``z``."""
    arr = real_array(g, name)
    if arr.shape != z.shape:
        raise ValueError(f"{name} must have the shape of z, {z.shape}; got shape {arr.shape}")
    return arr


def weights(a: ArrayLike) -> np.ndarray:
    """Return centering weights: a 1-d, non-negative float64 vector summing to 1."""
    arr = records(a, "a")
    if arr.ndim != 1:
        raise ValueError(f"a must be a vector of shape (n,); got shape {arr.shape}")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"weights must be non-negative; got a[{i}] = {float(arr[i])!r}")
    total = math.fsum(arr)
    # n rounding errors of the entries, each at most one half-ulp of 1
    if abs(total - 1.0) > arr.size * np.finfo(np.float64).eps:
        raise ValueError(f"weights must sum to 1; got sum(a) = {total!r}")
    return arr


def finite_result(arr: np.ndarray, what: str) -> np.ndarray:
    """Refuse a result that over- or underflowed float64 into inf or NaN, saying what did."""
    if not np.isfinite(arr).all():
        raise ValueError(
            f"{what} is not finite in float64 (overflow or underflow); rescale the input"
        )
    return arr
