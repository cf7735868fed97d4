"""Input validation shared by the public functions (the public boundary).

Every check raises ``ValueError`` for a bad value (and ``TypeError`` for a wrong kind of
argument: a masked array, a non-bool option, a non-integer count) with a message that names
the argument and shows the offending value or shape; none uses ``assert`` (stripped by
``python -O``). The numerical work lives in :mod:`lnbook._kernel`, which checks nothing.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike


def real_array(x: ArrayLike, name: str) -> np.ndarray:
    """Return ``x`` as a C-contiguous float64 array of finite numbers (integers or floats).

    Booleans, strings, complex numbers and objects are refused rather than converted; so are
    masked arrays (their mask would be dropped), integers beyond 2**53 and long doubles that
    float64 cannot hold exactly (they would be rounded). The array is made C-contiguous so
    that every sum along the last axis is numpy's pairwise one.
    """
    return as_float64(x, name)[0]


def as_float64(x: ArrayLike, name: str) -> tuple[np.ndarray, np.dtype]:
    """:func:`real_array`, also returning the input's dtype (float64 for integers)."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array (np.ma): lnbook would silently drop its mask; pass "
            f"{name}.filled(value) or {name}.compressed() to say what the masked entries mean"
        )
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real array of numbers; got {x!r}") from exc
    if raw.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must be a real array of numbers (integer or float); got dtype {raw.dtype}"
        )
    if raw.dtype.kind in "iu" and raw.size and raw.dtype.itemsize > 4:
        # float64 holds every integer up to 2^53 exactly, and rounds some beyond
        big = np.flatnonzero((raw > 2**53).ravel() | (raw < -(2**53)).ravel())
        if big.size:
            i = tuple(int(j) for j in np.unravel_index(big[0], raw.shape))
            raise ValueError(
                f"{name} holds integers beyond 2**53 that float64 would round: "
                f"{name}[{', '.join(map(str, i))}] = {int(raw[i])}; lnbook computes in float64"
            )
    arr = np.asarray(raw, dtype=np.float64, order="C")
    if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:
        # a long double is taken only when float64 holds it exactly
        with np.errstate(invalid="ignore"):
            inexact = (arr.astype(raw.dtype) != raw) & np.isfinite(raw)
        if inexact.any():
            i = tuple(int(j) for j in np.argwhere(inexact)[0])
            raise ValueError(
                f"{name} holds {raw.dtype} values that float64 cannot represent exactly: "
                f"{name}[{', '.join(map(str, i))}] = {raw[i]!r}; lnbook computes in float64"
            )
    finite(arr, name)
    return arr, (raw.dtype if raw.dtype.kind == "f" else np.dtype(np.float64))


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
    """Return centering weights: a 1-d, non-negative float64 vector summing to 1.

    "Sums to 1" is judged in the input's own precision: ``d`` rounding errors of the entries,
    each at most an ulp of 1 in that format (float32 weights that sum to 1 in float32 pass).
    """
    arr, dtype = as_float64(a, "a")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"a must be a non-empty vector of shape (d,); got shape {arr.shape}")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"weights must be non-negative; got a[{i}] = {float(arr[i])!r}")
    total = math.fsum(arr)
    # d rounding errors of the entries, each at most one ulp of 1 in the input's format
    if abs(total - 1.0) > arr.size * float(np.finfo(dtype).eps):
        raise ValueError(f"weights must sum to 1; got sum(a) = {total!r}")
    return arr


def option(value: object, name: str) -> bool:
    """Return a yes/no option, refusing anything but a bool (``'False'`` is truthy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def count(value: object, name: str, minimum: int = 1) -> int:
    """Return a whole number ``>= minimum``, refusing floats, strings and booleans."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {name} = {value}")
    return int(value)


def finite_result(arr: np.ndarray, what: str) -> np.ndarray:
    """Refuse a result that over- or underflowed float64 into inf or NaN, saying what did."""
    if not np.isfinite(arr).all():
        raise ValueError(
            f"{what} is not finite in float64 (overflow or underflow); rescale the input"
        )
    return arr
