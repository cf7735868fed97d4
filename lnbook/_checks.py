"""The public boundary: where arguments are checked (book/api.md, "Exceptions": a TypeError
for a wrong kind, a ValueError for a wrong value, naming the parameter and showing the value,
never an ``assert``) and where public functions take charge of numpy's floating-point state.
A result of more than ``MAX_ENTRIES`` entries is refused before anything is allocated; the
process's free memory is not probed."""

from __future__ import annotations

import functools
import math
import numbers
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

# the largest float64 array a function builds: 2**31 entries, 16 GiB
MAX_ENTRIES = 2**31
# the longest a message shows a value
SHOWN = 80
# entries checked at a time, so that a check's own temporaries stay small (8 MiB of bools)
_CHUNK = 1 << 23

_P = ParamSpec("_P")
_R = TypeVar("_R")


def public(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` with numpy's warnings off (a caller's ``np.errstate`` changes nothing; the
    over- and underflows that matter are found by :func:`finite_result`)."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return wrapper


def show(value: object) -> str:
    """A value as a message shows it: its repr, cut short (an array by shape and dtype)."""
    if isinstance(value, np.ndarray) and value.size > 8:
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**SHOWN:
        return f"an integer of {len(str(abs(value)))} digits"
    try:
        text = repr(value)
    except Exception:  # a repr that fails is no reason to hide the real message
        text = f"<{type(value).__name__}>"
    return text if len(text) <= SHOWN else text[: SHOWN - 5] + " ...)"


def _where(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{', '.join(map(str, index))}]" if index else name


def _scan(x: object, name: str, depth: int = 0) -> None:
    """Refuse what numpy would convert silently inside a list: a bool among numbers, an
    integer beyond 2**53 among floats (rounded)."""
    if depth > 32 or not isinstance(x, (list, tuple)):
        return
    for item in x:
        if isinstance(item, (bool, np.bool_)):
            raise TypeError(f"{name} must hold numbers, not booleans; got {show(x)}")
        if isinstance(item, int) and abs(item) > 2**53:
            raise ValueError(f"{name} holds an integer beyond 2**53 that float64 would round: "
                             f"{show(item)}")
        _scan(item, name, depth + 1)


def unmasked(x: object, name: str) -> None:
    """Refuse a masked array (np.ma): its mask would be dropped silently."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array (np.ma): lnbook would silently drop its "
                        f"mask; pass {name}.filled(value) or {name}.compressed()")


def _first(bad: Callable[[np.ndarray], np.ndarray], arr: np.ndarray) -> tuple[int, ...] | None:
    """The index of the first entry of ``arr`` where ``bad`` holds, or None; a chunk at a time,
    so that the boolean temporaries stay small whatever the size of ``arr``."""
    flat = arr.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        hit = np.flatnonzero(bad(flat[start : start + _CHUNK]))
        if hit.size:
            return tuple(int(i) for i in np.unravel_index(start + int(hit[0]), arr.shape))
    return None


def as_float64(x: ArrayLike, name: str) -> tuple[np.ndarray, np.dtype]:
    """``x`` as a C-contiguous float64 array of finite numbers (so every sum along the last
    axis is numpy's pairwise one), and the input's float dtype (float64 for integers)."""
    unmasked(x, name)
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a real array of numbers; got {show(x)}")
    _scan(x, name)
    try:
        raw = np.asarray(x)
    except ValueError as exc:  # a ragged nest of lists
        raise ValueError(f"{name} must be an array of numbers of one shape; got {show(x)}"
                         ) from exc
    except (TypeError, OverflowError) as exc:
        raise TypeError(f"{name} must be a real array of numbers; got {show(x)}") from exc
    if raw.dtype.kind not in "iuf":
        what = {"b": "booleans", "c": "complex numbers", "O": "Python objects (convert them "
                "with float() first)", "U": "strings", "S": "bytes"}.get(raw.dtype.kind,
                                                                           f"dtype {raw.dtype}")
        raise TypeError(f"{name} must be a real array of numbers (integer or float); got "
                        f"{what}: {show(x)}")
    # a broadcast view is small in memory, its float64 copy and a result of its shape are not
    fits(raw.size, f"{name} of shape {raw.shape}")
    if raw.dtype.kind in "iu" and raw.dtype.itemsize > 4:
        i = _first(lambda b: (b > 2**53) | (b < -(2**53)), raw)
        if i is not None:
            raise ValueError(f"{name} holds integers beyond 2**53 that float64 would round: "
                             f"{_where(name, i)} = {int(raw[i])}")
    arr = np.asarray(raw, dtype=np.float64, order="C")
    if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:
        i = _first(lambda b: np.isfinite(b) & (b.astype(np.float64) != b), raw)
        if i is not None:
            raise ValueError(f"{name} holds {raw.dtype} values that float64 would round: "
                             f"{_where(name, i)} = {raw[i]!r}")
    finite(arr, name)
    return arr, (raw.dtype if raw.dtype.kind == "f" else np.dtype(np.float64))


def real_array(x: ArrayLike, name: str) -> np.ndarray:
    """:func:`as_float64` without the dtype."""
    return as_float64(x, name)[0]


def records(z: ArrayLike, name: str = "z") -> np.ndarray:
    """``z`` as a float64 array of records, ``(d,)`` or ``(..., d)`` with ``d >= 1``."""
    arr = real_array(z, name)
    if arr.ndim == 0:
        raise ValueError(f"{name} must have shape (d,) or (..., d) with the features on the "
                         f"last axis; got a 0-d value {arr.item()!r}")
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} has an empty feature axis: shape {arr.shape} has d = 0")
    if not arr.size:  # an empty batch: its gain, gradient or a loop over d must still fit
        fits(arr.shape[-1], f"the features of {name} (shape {arr.shape})")
    return arr


def vector(x: ArrayLike, name: str, size: int | None = None) -> np.ndarray:
    """A non-empty 1-d float64 array (of ``size`` entries when given)."""
    arr = real_array(x, name)
    if arr.ndim != 1 or arr.size == 0 or (size is not None and arr.size != size):
        want = f"({size},)" if size is not None else "(n,) with n >= 1"
        raise ValueError(f"{name} must be a vector of shape {want}; got shape {arr.shape}")
    return arr


def finite(arr: np.ndarray, name: str) -> None:
    """Refuse NaN and infinite entries, naming the first one."""
    i = _first(lambda b: ~np.isfinite(b), arr)
    if i is not None:
        raise ValueError(f"{name} contains NaN or infinite entries: {_where(name, i)} = "
                         f"{float(arr[i])!r}")


def real(value: object, name: str) -> float:
    """A finite real number (not a bool, a Fraction or a Decimal) that float64 holds exactly."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number (int or float; convert a Fraction or "
                        f"a Decimal with float() first); got {show(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite float64 number; got {name} = {show(value)}")
    if isinstance(value, numbers.Integral) and int(number) != int(value) or (
            isinstance(value, np.floating) and np.longdouble(number) != value):
        raise ValueError(f"{name} = {show(value)} would be rounded by float64")
    return number


def eps_value(eps: object, name: str = "eps") -> float:
    """The stabilizer as a float: a finite real number, ``eps >= 0``."""
    value = real(eps, name)
    if value < 0:
        raise ValueError(f"{name} must be non-negative; got {name} = {value!r}")
    return value


def positive(value: object, name: str) -> float:
    """A positive, finite real number (a step, a spread) as a float."""
    number = real(value, name)
    if not number > 0:
        raise ValueError(f"{name} must be positive; got {name} = {number!r}")
    return number


def count(value: object, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """A whole number in ``[minimum, maximum]`` (a float, even ``2.0``, is a TypeError)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {show(value)}")
    number = operator.index(value)
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {name} = {number}")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be at most {show(maximum)}; got {name} = {show(number)}")
    return number


def seed(value: object, name: str = "seed") -> int:
    """A seed of ``numpy.random.default_rng``: a non-negative integer."""
    return count(value, name, minimum=0)


def _items(values: object, name: str, what: str, one: str) -> list:
    unmasked(values, name)
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of {what}; got {show(values)}")
    items = list(np.asarray(values).ravel()) if isinstance(values, np.ndarray) else list(values)
    if not items:
        raise ValueError(f"{name} must hold at least one {one}; got {show(values)}")
    return items


def counts(values: object, name: str, minimum: int = 1) -> list[int]:
    """A non-empty sequence of whole numbers, each at least ``minimum``."""
    return [count(v, f"{name}[{k}]", minimum)
            for k, v in enumerate(_items(values, name, "integers", "integer"))]


def eps_values(values: object, name: str = "eps_values") -> list[float]:
    """A non-empty sequence of stabilizers."""
    return [eps_value(v, f"{name}[{k}]")
            for k, v in enumerate(_items(values, name, "real numbers", "value"))]


def option(value: object, name: str) -> bool:
    """A yes/no option: only a bool (the string ``'False'`` would be true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {show(value)}")
    return bool(value)


def choice(value: object, name: str, choices: Sequence[str]) -> str:
    """One of the strings ``choices``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(choices)}; got {show(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {name} = {value!r}")
    return value


def function(f: object, name: str, how: str) -> Callable[..., Any]:
    """A callable, called as ``how`` says."""
    if not callable(f):
        raise TypeError(f"{name} must be callable, {how}; got {show(f)}")
    return f


def float_format(dtype: DTypeLike, name: str = "dtype",
                 allowed: Sequence[type] = (np.float16, np.float32, np.float64)) -> np.dtype:
    """One of the floating formats ``allowed`` (a format, not a value of one)."""
    names = ", ".join(np.dtype(t).name for t in allowed)
    try:
        if isinstance(dtype, (np.generic, np.ndarray)):  # np.dtype() would take its dtype
            raise TypeError
        fmt = np.dtype(dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be one of {names}; got {show(dtype)}") from exc
    if fmt not in [np.dtype(t) for t in allowed]:
        raise TypeError(f"{name} must be one of {names}; got {fmt}")
    return fmt


def index(value: object, shape: tuple[int, ...], name: str = "record") -> tuple[int, ...]:
    """An index of one entry of an array of ``shape``: one integer per axis, in range."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{name} must be a tuple of integers; got {show(value)}")
    items = [count(i, f"{name}[{k}]", minimum=-(2**63)) for k, i in enumerate(value)]
    if len(items) != len(shape) or not all(-n <= i < n for i, n in zip(items, shape)):
        raise ValueError(f"{name} must index the shape {shape}, one integer per axis; got "
                         f"{name} = {show(tuple(value))}")
    return tuple(items)


def axis(value: object, shape: tuple[int, ...], name: str = "axis", of: str = "z") -> int:
    """An axis of the array ``of`` of ``shape``, as a non-negative integer."""
    number = count(value, name, minimum=-(2**63))
    if not -len(shape) <= number < len(shape):
        raise ValueError(f"{name} = {number} is not an axis of {of}, shape {shape}")
    return number % len(shape)


def parameter(p: ArrayLike | None, d: int, name: str) -> np.ndarray | None:
    """A gain or bias as a float64 array of shape ``(d,)`` (or None)."""
    if p is None:
        return None
    arr = real_array(p, name)
    if arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match d = {d}; got shape {arr.shape}")
    return arr


def same_shape(g: ArrayLike, z: np.ndarray, name: str = "g") -> np.ndarray:
    """An upstream gradient (or a perturbation) as float64, of the shape of ``z`` itself: one
    that would only broadcast to it is refused."""
    arr = real_array(g, name)
    if arr.shape != z.shape:
        raise ValueError(f"{name} must have the shape of z, {z.shape}; got shape {arr.shape}")
    return arr


def weights(a: ArrayLike) -> np.ndarray:
    """Centering weights: a non-negative vector summing to 1 in the input's own precision."""
    arr, dtype = as_float64(a, "a")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"a must be a non-empty vector of shape (d,); got shape {arr.shape}")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"weights must be non-negative; got a[{i}] = {float(arr[i])!r}")
    try:  # exact; OverflowError where the exact sum passes float64's range
        total = math.fsum(arr)
    except OverflowError:
        total = math.inf
    if abs(total - 1.0) > arr.size * float(np.finfo(dtype).eps):
        raise ValueError(f"weights must sum to 1; got sum(a) = {total!r}")
    return arr


def fits(entries: int, what: str, hint: str = "") -> None:
    """Refuse, before allocating it, a float64 result of more than ``MAX_ENTRIES`` entries."""
    if entries > MAX_ENTRIES:
        gib = f"{entries / 2**27:.1f} GiB" if entries < 2**1000 else "far more than any memory"
        number = str(entries) if entries < 10**SHOWN else f"more than 10**{SHOWN}"
        # a count of 10**400 in the description is cut short too
        what = re.sub(rf"\d{{{SHOWN},}}", lambda m: f"<an integer of {len(m[0])} digits>", what)
        raise ValueError(f"{what} would have {number} entries ({gib} of float64; the limit "
                         f"is 2**31 entries){hint}")


def finite_result(arr: np.ndarray, what: str) -> np.ndarray:
    """Refuse a result that over- or underflowed its format into inf or NaN."""
    if _first(lambda b: ~np.isfinite(b), np.asarray(arr)) is not None:
        fmt = np.dtype(arr.dtype) if np.issubdtype(arr.dtype, np.floating) else np.dtype(float)
        raise ValueError(f"{what} is not finite in {fmt.name} (overflow or underflow: its "
                         f"largest finite value is {float(np.finfo(fmt.type).max):.6g}); "
                         "rescale the input")
    return arr
