"""A correctly rounded reference for the core, and the error of a computed core in ulps.

Float64 inputs are exact rationals, and so are their mean, centered parts and variance:
:func:`exact_core` computes those with ``fractions.Fraction``, takes the root with mpmath
(imported inside, so ``import lnbook`` never needs it) and certifies the rounding with exact
rational comparisons. Slow (pure Python): meant for tests and :ref:`ch-floating-point`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["exact_core", "ulp_error"]

DEFAULT_DPS = 30
MAX_DPS = 10_000


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def _rounds_to(c: float, r: Fraction) -> bool:
    """Whether the float ``c >= 0`` is sqrt(r) rounded to nearest, ties to even."""
    below = float(np.nextafter(c, 0.0)) if c > 0 else 0.0
    above = float(np.nextafter(c, np.inf))
    # c is the rounding of sqrt(r) iff lo <= sqrt(r) <= hi, where lo and hi are the midpoints
    # to the neighbours; compare squares, which are exact rationals
    lo = (Fraction(c) + Fraction(below)) / 2
    hi = (Fraction(c) + Fraction(above)) / 2
    if lo * lo < r < hi * hi:
        return True
    if r == lo * lo or r == hi * hi:
        return _bits(c) % 2 == 0
    return False


def _rounded_sqrt(r: Fraction, prec: int) -> float:
    """sqrt(r) correctly rounded to float64, for a rational ``r > 0``."""
    import mpmath

    while True:
        with mpmath.workprec(prec):
            x = float(mpmath.sqrt(mpmath.mpf(r.numerator) / r.denominator))
        # the approximation is within an ulp; one of x and its neighbours is the rounding
        for c in (x, float(np.nextafter(x, 0.0)), float(np.nextafter(x, np.inf))):
            if c >= 0 and _rounds_to(c, r):
                return c
        prec *= 2


def _exact_record(z: np.ndarray, eps: Fraction, prec: int, center: bool) -> np.ndarray:
    x = [Fraction(float(t)) for t in z]
    d = len(x)
    # mu = (1/d) sum_i z_i, exactly (0 without centering)
    mu = sum(x, Fraction(0)) / d if center else Fraction(0)
    # v = z - mu 1, exactly
    v = [t - mu for t in x]
    # q + eps = (1/d) |v|^2 + eps, exactly
    s2 = sum((t * t for t in v), Fraction(0)) / d + eps
    if s2 == 0:
        raise _kernel.zero_spread_error((), "record", center)
    u = np.zeros(d)
    for i, t in enumerate(v):
        if t != 0:
            # u_i = sign(v_i) sqrt(v_i^2 / (q + eps)), rounded once
            root = _rounded_sqrt(t * t / s2, prec)
            u[i] = root if t > 0 else -root
    return u


@_checks.public
def exact_core(z: ArrayLike, *, eps: float = EPS, dps: int | None = None,
               center: bool = True) -> np.ndarray:
    """The core of every record, correctly rounded from the exact value.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis; each float64 entry is taken as the exact number it is.
    eps : float, optional
        Stabilizer, the exact value of the float64 ``eps`` (``1e-5`` is
        ``0.0000100000000000000008180305...``, the value lnbook adds).
    dps : int, optional
        Decimal digits of mpmath's working precision (default 30); the rounding is certified
        whatever ``dps`` is, too few digits only cost retries.
    center : bool, optional
        ``False`` gives RMSNorm's exact core (``mu = 0``), the reference of
        :func:`lnbook.rms_norm`.

    Returns
    -------
    ndarray
        Each component of each record's exact core rounded to the nearest float64 (ties to
        even).

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core` (``eps = 0`` at a constant record is 0/0); if ``dps`` is not
        an integer from 1 to 10000 or ``center`` not a bool.

    Notes
    -----
    .. math:: \\begin{aligned} u_i &= \\frac{z_i - \\mu}{\\sqrt{q + \\varepsilon}} \\\\
        &= \\operatorname{sign}(v_i) \\sqrt{\\frac{v_i^2}{q + \\varepsilon}} \\end{aligned}

    The only irrational step is the root of the rational :math:`v_i^2/(q+\\varepsilon)`: mpmath
    approximates it, and a float64 ``c`` is accepted only when the exact squares of the
    midpoints between ``c`` and its neighbours bracket that rational. See
    :ref:`ch-floating-point`.

    Examples
    --------
    >>> u = exact_core([2, 4, 6, 8], eps=0)
    >>> float(u[3]) == float.fromhex("0x1.5775c544ff263p+0")  # 3/sqrt(5), rounded once
    True
    >>> exact_core([3, 4], eps=0, center=False)  # (3, 4) / sqrt(25 / 2)
    array([0.84852814, 1.13137085])
    """
    arr = _checks.records(z)
    eps = _checks.eps_value(eps)
    center = _checks.option(center, "center")
    # more digits cost time without changing the (certified) answer
    dps = DEFAULT_DPS if dps is None else _checks.count(dps, "dps", maximum=MAX_DPS)
    # bits = digits log2(10), with a margin
    prec = int(dps * 3.33) + 8
    rows = arr.reshape(-1, arr.shape[-1])
    out = np.empty_like(rows)
    for k, row in enumerate(rows):
        try:
            out[k] = _exact_record(row, Fraction(eps), prec, center)
        except ValueError as exc:
            where = np.unravel_index(k, arr.shape[:-1]) if arr.ndim > 1 else ()
            suffix = f" (record {tuple(int(i) for i in where)})" if where else ""
            raise ValueError(f"{exc}{suffix}") from None
    return out.reshape(arr.shape)


@_checks.public
def ulp_error(computed: ArrayLike, exact: ArrayLike, *,
              dtype: DTypeLike = np.float64) -> np.ndarray:
    """Normwise error of every record, in ulps of the exact result's largest component.

    Parameters
    ----------
    computed : (d,) or (..., d) array_like
        A computed core (or any result), records along the last axis.
    exact : (d,) or (..., d) array_like
        The correctly rounded result (from :func:`exact_core`), same shape.
    dtype : floating dtype, optional
        The format whose ulp is the unit: float64 (default), float32, float16 (a low-precision
        computation in its own ulps) or ``np.longdouble``.

    Returns
    -------
    (...) ndarray
        ``max_i |computed_i - exact_i| / ulp(max_i |exact_i|)`` for every record.

    Raises
    ------
    ValueError, TypeError
        For records that are not finite real numbers or not of one shape, a ``dtype`` not of
        the four, or an exact entry beyond ``dtype``'s range (above 65504 in float16); if an
        error overflows float64.

    Notes
    -----
    .. formula not checked: the error of a computed core u-hat, which the text does not bind

    .. math:: \\mathrm{err} = \\frac{\\max_i \\lvert \\hat u_i - u_i \\rvert}
        {\\operatorname{ulp}(\\max_i \\lvert u_i \\rvert)}

    ``ulp(x)`` is ``np.spacing`` of ``x`` rounded to ``dtype`` (at the largest finite number, the
    gap below it; for 0, the smallest subnormal). Normwise, a tiny component is not judged by its
    own ulp; rounding each component of the real-valued result once scores at most 1/2 (0
    against its correctly rounded value). See :ref:`ch-floating-point`.

    Examples
    --------
    >>> float(ulp_error([-1.0, 2**-60, 1.0 + 2**-52], [-1.0, 0.0, 1.0]))
    1.0
    >>> float(ulp_error([1.0 + 2**-23], [1.0], dtype=np.float32))
    1.0
    """
    c = _checks.records(computed, "computed")
    e = _checks.records(exact, "exact")
    if c.shape != e.shape:
        raise ValueError(f"computed has shape {c.shape} but exact has shape {e.shape}")
    fmt = _checks.float_format(dtype, allowed=(np.float16, np.float32, np.float64,
                                               np.longdouble))
    top = float(np.finfo(fmt).max)
    largest = float(np.abs(e).max()) if e.size else 0.0
    if largest > top:
        raise ValueError(f"exact has entries of magnitude up to {largest!r}, beyond {fmt}'s "
                         f"largest finite number {top!r}: it has no ulp there")
    return ulps(c, e, fmt, "the error |computed - exact| in ulps")


def ulps(c: np.ndarray, e: np.ndarray, fmt: np.dtype, what: str) -> np.ndarray:
    """``max_i |c_i - e_i| / ulp(max_i |e_i|)`` per record, validated arrays (for
    :func:`ulp_error` and :func:`lnbook.fp.offset_errors`); refuses an error beyond float64."""
    largest = np.abs(e).max(axis=-1).astype(fmt)
    # ulp(x) = np.spacing(x) in the format; at its largest finite number (where np.spacing is
    # inf, the gap to overflow) the gap below it
    unit = np.spacing(largest)
    unit = np.where(np.isinf(unit), np.spacing(np.nextafter(largest, fmt.type(0))), unit)
    # |c - u|, from halves where it overflows (c and u huge, of opposite signs)
    diff = np.abs(c - e).max(axis=-1)
    over = np.isinf(diff)
    diff = np.where(over, np.abs(c / 2 - e / 2).max(axis=-1), diff)
    # divided in the wider of the format and float64: a long double's ulp may be below
    # float64's range (that of 0 always is)
    wide = np.promote_types(fmt, np.float64)
    err = (diff.astype(wide) / unit.astype(wide) * np.where(over, 2, 1)).astype(np.float64)
    return _checks.finite_result(err, what)
