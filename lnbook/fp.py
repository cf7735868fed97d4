"""Floating point: one-pass and merged statistics in any format, numpy's own summation order,
bfloat16, and the error of a core against the correctly rounded one (the toolkit of the
chapter :ref:`ch-floating-point`).

Frameworks often read a record once: Welford's update keeps a running mean and sum of squared
deviations, Chan, Golub and LeVeque's merge combines the statistics of two parts, and the
literal one-pass formula is :math:`E[z^2] - E[z]^2`; the chapter measures each against
:func:`lnbook.exact_core`. ``np.sum``'s order, and the longest chain of roundings in it (which
sets numpy's error bound), are reproduced bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _checks
from ._kernel import EPS
from ._layer import core
from ._reference import exact_core, ulps

__all__ = ["welford", "merge_stats", "chan_stats", "one_pass_stats", "pairwise_sum",
           "pairwise_depth", "round_bfloat16", "offset_errors"]

_FORMATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_INT64_MAX = 2**63 - 1


def _records_in(z: ArrayLike, dtype: DTypeLike) -> np.ndarray:
    fmt = _checks.float_format(dtype)
    arr = _checks.records(z)
    out = arr.astype(fmt)
    _checks.finite(out, f"z rounded to {fmt}")
    return out


def _finite_in(arr: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(arr).all():
        raise ValueError(f"{what} of z is not finite in {arr.dtype} (overflow): rescale z or "
                         "take a wider dtype")
    return arr


@_checks.public
def welford(z: ArrayLike, *, dtype: DTypeLike = np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance in one sweep, by Welford's update.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis, rounded to ``dtype`` first.
    dtype : {float16, float32, float64}, optional
        The format of every operation.

    Returns
    -------
    mu : (...) ndarray of ``dtype``
        Per-record mean.
    q : (...) ndarray of ``dtype``
        Per-record population variance (divisor ``d``).

    Raises
    ------
    ValueError, TypeError
        For records that are not finite in ``dtype`` or a dtype not of the three
        (:ref:`api-rules`); if the variance overflows ``dtype``.

    Notes
    -----
    After the first :math:`k` features, :math:`\\mu_k` is their mean and :math:`M_k` the sum
    of their squared deviations from it:

    .. formula not checked: a recurrence over the first k entries (Welford's), not symbols of the
       table

    .. math:: \\begin{aligned} \\mu_k &= \\mu_{k-1} + \\frac{z_k - \\mu_{k-1}}{k}, \\\\
              M_k &= M_{k-1} \\\\ &\\quad + (z_k - \\mu_{k-1})(z_k - \\mu_k), \\end{aligned}

    .. formula $q = M_d/d$ not checked: the last term of that recurrence

    and :math:`q = M_d/d`. Only differences from the running mean are squared, so unlike
    :math:`E[z^2] - E[z]^2` nothing of size :math:`\\mu^2` is ever subtracted. The count
    :math:`k` is an exact integer, and each quotient by it is rounded once to ``dtype``.
    See :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`welford1962note`

    Examples
    --------
    >>> welford([[1, 2, 3, 4], [7, 7, 7, 7]])
    (array([2.5, 7. ]), array([1.25, 0.  ]))
    """
    z = _records_in(z, dtype)
    mu = np.zeros(z.shape[:-1], dtype=z.dtype)
    m2 = np.zeros(z.shape[:-1], dtype=z.dtype)
    if not z.size:  # an empty batch: no record, nothing to loop over (its d may be huge)
        return mu, m2
    for k in range(1, z.shape[-1] + 1):
        zk = z[..., k - 1]
        delta = zk - mu
        # mu_k = mu_{k-1} + (z_k - mu_{k-1}) / k
        mu = mu + _by_count(delta, k)
        # M_k = M_{k-1} + (z_k - mu_{k-1}) (z_k - mu_k)
        m2 = m2 + delta * (zk - mu)
    # q = M_d / d
    q = _by_count(m2, z.shape[-1])
    return mu, _finite_in(q, "the Welford variance")


def _by_count(x: np.ndarray, k: int) -> np.ndarray:
    """``x / k`` for an exact count ``k``, rounded once to the format of ``x``: float16's own
    ``k`` would round above 2048 and overflow above 65504. (Computed in float64 and rounded
    to float16 or float32, the quotient is the correctly rounded one, as numpy's own.)"""
    return (x.astype(np.float64) / k).astype(x.dtype)


@_checks.public
def merge_stats(part_a: tuple[ArrayLike, ArrayLike, ArrayLike],
                part_b: tuple[ArrayLike, ArrayLike, ArrayLike]
                ) -> tuple[int, np.ndarray, np.ndarray]:
    """The statistics of the union of two parts, from the parts' statistics alone.

    Parameters
    ----------
    part_a, part_b : tuple (n, mu, q), or a list of the same three entries
        Count of features (a positive integer), mean and population variance of each part
        (the statistics may be arrays that broadcast together). The arithmetic is carried
        out in the wider of the parts' floating types.

    Returns
    -------
    n : int
        ``n_a + n_b``.
    mu : ndarray
        Mean of the union.
    q : ndarray
        Population variance of the union.

    Raises
    ------
    ValueError, TypeError
        For a part that is not ``(n, mu, q)`` with counts from 1 to 2**63 - 1 (their sum too),
        finite statistics and non-negative variances that broadcast together; if the merged
        variance overflows the parts' format.

    Notes
    -----
    .. formula $n = n_a + n_b$ not checked: the statistics of two parts a and b of a record

    .. formula $\\delta = \\mu_b - \\mu_a$ not checked: the statistics of two parts a and b of a
       record

    With :math:`\\delta = \\mu_b - \\mu_a` and :math:`n = n_a + n_b`
    (Chan, Golub and LeVeque, 1983):

    .. formula not checked: the statistics of two parts a and b of a record

    .. math:: \\begin{aligned} \\mu &= \\mu_a + \\delta \\frac{n_b}{n}, \\\\
              n q &= n_a q_a + n_b q_b + \\delta^2 \\frac{n_a n_b}{n} . \\end{aligned}

    Merging the parts of a record in a balanced tree is what :func:`chan_stats` does and what
    PyTorch's CPU LayerNorm kernel does. See :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`chan1983algorithms`

    Examples
    --------
    >>> n, mu, q = merge_stats((2, 1.5, 0.25), (2, 3.5, 0.25))  # (1, 2) and (3, 4)
    >>> int(n), float(mu), float(q)
    (4, 2.5, 1.25)
    """
    parts = []
    for name, part in (("part_a", part_a), ("part_b", part_b)):
        if not isinstance(part, (tuple, list)):
            raise TypeError(f"{name} must be a tuple (n, mu, q) (or a list of the three); got "
                            f"{_checks.show(part)}")
        if len(part) != 3:
            raise ValueError(f"{name} must be a tuple (n, mu, q) of three entries; got "
                             f"{_checks.show(part)}")
        n = _checks.count(part[0], f"{name}: n", maximum=_INT64_MAX)
        mu, mu_type = _checks.as_float64(part[1], f"{name}: mu")
        q, q_type = _checks.as_float64(part[2], f"{name}: q")
        if (q < 0).any():
            raise ValueError(f"{name}: the variance q must be non-negative; got "
                             f"{_checks.show(part[2])}")
        parts.append((n, mu, q, mu_type, q_type))
    (n_a, mu_a, q_a, *types_a), (n_b, mu_b, q_b, *types_b) = parts
    try:
        np.broadcast_shapes(*(np.shape(x) for x in (mu_a, q_a, mu_b, q_b)))
    except ValueError:
        raise ValueError(f"the statistics of part_a and part_b must broadcast together; got "
                         f"shapes {[np.shape(x) for x in (mu_a, q_a, mu_b, q_b)]}") from None
    if n_a + n_b > _INT64_MAX:
        raise ValueError(f"the merged count n = n_a + n_b = {n_a + n_b} exceeds 2**63 - 1: no "
                         "array holds that many features")
    # the arithmetic in the parts' own floating type (float64 for integer statistics)
    ftype = np.result_type(*types_a, *types_b).type
    n = n_a + n_b
    fa, fb, f = ftype(n_a), ftype(n_b), ftype(n)
    mu_a, mu_b, q_a, q_b = (x.astype(ftype) for x in (mu_a, mu_b, q_a, q_b))
    delta = mu_b - mu_a
    # mu = mu_a + delta n_b / n
    mu = mu_a + delta * (fb / f)
    # n q = n_a q_a + n_b q_b + delta^2 n_a n_b / n
    q = (fa * q_a + fb * q_b + delta * delta * (fa * fb / f)) / f
    if not np.isfinite(q).all():
        raise ValueError(f"the merged variance of part_a and part_b is not finite in "
                         f"{np.dtype(ftype)} (overflow): rescale them or take a wider dtype")
    return n, ftype(mu) if np.ndim(mu) == 0 else mu, ftype(q) if np.ndim(q) == 0 else q


@_checks.public
def chan_stats(z: ArrayLike, *, block: int = 16,
               dtype: DTypeLike = np.float64) -> tuple[np.ndarray, np.ndarray]:
    """The statistics by Welford's update inside blocks, the blocks' merged pairwise.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis, rounded to ``dtype`` first.
    block : int, optional
        Features per block (the last block may be shorter).
    dtype : {float16, float32, float64}, optional
        The format of every operation.

    Returns
    -------
    mu : (...) ndarray of ``dtype``
        Per-record mean.
    q : (...) ndarray of ``dtype``
        Per-record population variance.

    Raises
    ------
    ValueError, TypeError
        As :func:`welford`, and for a ``block`` that is not a positive integer.

    Notes
    -----
    The blocks' statistics are merged with :func:`merge_stats`, neighbours first, level by
    level, as a balanced tree: a feature passes through about :math:`\\log_2(d/\\text{block})`
    merges instead of :math:`d` updates. The structure is PyTorch's CPU kernel's (Welford within
    chunks, a cascade of merges), whose exact order also depends on its SIMD width. See
    :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`chan1983algorithms`; PyTorch's kernel:
    :cite:t:`chc_torch_layer_norm_kernel`.

    Examples
    --------
    >>> mu, q = chan_stats([1, 2, 3, 4, 5, 6, 7, 8], block=3)
    >>> float(mu), float(q)
    (4.5, 5.25)
    """
    block = _checks.count(block, "block")
    z = _records_in(z, dtype)
    d = z.shape[-1]
    if not z.size:  # an empty batch: no record, nothing to loop over (its d may be huge)
        return np.zeros(z.shape[:-1], dtype=z.dtype), np.zeros(z.shape[:-1], dtype=z.dtype)
    parts = []
    for start in range(0, d, block):
        chunk = z[..., start : start + block]
        mu, q = welford(chunk, dtype=z.dtype)
        parts.append((chunk.shape[-1], mu, q))
    while len(parts) > 1:
        try:
            merged = [merge_stats(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        except ValueError:  # an overflow of the format, named for the caller
            raise ValueError(f"the Chan variance of z is not finite in {z.dtype} (overflow): "
                             "rescale z or take a wider dtype") from None
        if len(parts) % 2:
            merged.append(parts[-1])
        parts = [(int(n), mu, q) for n, mu, q in merged]
    _, mu, q = parts[0]
    return np.asarray(mu, dtype=z.dtype), np.asarray(q, dtype=z.dtype)


@_checks.public
def one_pass_stats(z: ArrayLike, *, dtype: DTypeLike = np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Mean and the variance as :math:`E[z^2] - E[z]^2`, unclipped.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis, rounded to ``dtype`` first.
    dtype : {float16, float32, float64}, optional
        The format of the arithmetic (numpy sums float16 in float32 and rounds the result).

    Returns
    -------
    mu : (...) ndarray of ``dtype``
        Per-record mean.
    q : (...) ndarray of ``dtype``
        Per-record one-pass variance, which rounding can make negative.

    Raises
    ------
    ValueError, TypeError
        As :func:`welford`.

    Notes
    -----
    .. math:: q = \\frac1d \\sum_i z_i^2 - \\mu^2

    Both means are ``np.mean`` along the last axis (pairwise sums, :func:`pairwise_sum`).
    Flax clips the result at zero and Keras's NumPy backend does not. See
    :ref:`ch-floating-point` and :ref:`ch-frameworks`.

    References
    ----------
    :cite:t:`chan1983algorithms` (its instability)

    Examples
    --------
    >>> float(one_pass_stats([1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4])[1])  # not 1.25
    0.0
    """
    z = _records_in(z, dtype)
    mu = z.mean(axis=-1)
    # q = E[z^2] - E[z]^2
    q = (z * z).mean(axis=-1) - mu * mu
    return mu, _finite_in(q, "the one-pass variance")


@_checks.public
def pairwise_sum(z: ArrayLike) -> np.ndarray:
    """The sum along the last axis, added in exactly the order ``np.sum`` uses.

    Parameters
    ----------
    z : (d,) or (..., d) array_like of float16, float32 or float64
        Values to add along the last axis (other real inputs are taken as float64).

    Returns
    -------
    (...) ndarray
        The sums in the dtype of ``z``, bit for bit ``np.sum(z, axis=-1)`` of a contiguous
        ``z`` (float16 accumulated in float32, as numpy does, and rounded once at the end).

    Raises
    ------
    ValueError, TypeError
        For records that are not finite real numbers (:ref:`api-rules`), or a sum that
        overflows.

    Notes
    -----
    numpy's ``pairwise_sum`` (``numpy/_core/src/umath/loops_utils.h.src``) adds fewer than
    8 numbers one by one; a block of 8 to 128 numbers with 8 accumulators (accumulator
    :math:`j` takes entries :math:`j, j+8, \\dots`), joined as
    :math:`((r_0+r_1)+(r_2+r_3))+((r_4+r_5)+(r_6+r_7))`, the last ``n % 8`` entries then
    added one by one; and a longer run as the sum of its two halves, the first half's length
    rounded down to a multiple of 8. See :func:`pairwise_depth` for the error bound, and
    :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`higham2002accuracy`; numpy's source: :cite:t:`chc_numpy_pairwise`.

    Examples
    --------
    >>> z = np.random.default_rng(0).standard_normal(1000) + 1e3
    >>> bool(pairwise_sum(z) == np.sum(z))
    True
    """
    # float64, exact for every float16/32 entry; then back to the input's own format
    checked, dtype = _checks.as_float64(z, "z")
    checked = _checks.records(checked)
    arr = checked.astype(dtype if dtype in _FORMATS else np.float64)
    acc = np.float32 if arr.dtype == np.float16 else arr.dtype.type
    if not arr.size:  # an empty batch: np.sum's zeros, without a loop over its d features
        return np.sum(arr, axis=-1)

    def add(p: np.ndarray, r: np.ndarray) -> np.ndarray:
        return (p + r).astype(acc)

    def rec(a: np.ndarray) -> np.ndarray:
        n = a.shape[-1]
        if n < 8:
            res = np.full(a.shape[:-1], -0.0, dtype=acc)
            for i in range(n):
                res = add(res, a[..., i].astype(acc))
            return res
        if n <= 128:
            r = [a[..., j].astype(acc) for j in range(8)]
            i = 8
            while i < n - n % 8:
                r = [add(r[j], a[..., i + j].astype(acc)) for j in range(8)]
                i += 8
            res = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
            for k in range(i, n):
                res = add(res, a[..., k].astype(acc))
            return res
        n2 = n // 2
        n2 -= n2 % 8
        return add(rec(a[..., :n2]), rec(a[..., n2:]))

    # numpy's reduction starts from add's identity, +0: exact, except that it turns a sum of
    # negative zeros into +0, as np.sum does
    total = (acc(0.0) + rec(arr)).astype(arr.dtype)
    return _checks.finite_result(total, "the sum of z")


@_checks.public
def pairwise_depth(d: int) -> int:
    """The longest chain of rounded additions that one term meets in ``np.sum`` of ``d`` terms.

    Parameters
    ----------
    d : int
        Number of terms, ``d >= 1``.

    Returns
    -------
    int
        .. formula $|\\delta| \\le \\rho$ not checked: a rounding error here (the notation's delta
           is a perturbation)

        :math:`k(d)`: every term is multiplied by at most :math:`k(d)` factors
        :math:`(1 + \\delta)`, :math:`|\\delta| \\le \\rho`, on its way into the sum.

    Raises
    ------
    ValueError, TypeError
        If ``d`` is not an integer from 1 to 2**63 - 1 (no array holds more).

    Notes
    -----
    .. formula $k(d) = 1 + \\max(k(d_1), k(d - d_1))$ not checked: a recursive definition

    .. formula $k(d) = (m/8 - 1) + 3 + (d \\bmod 8)$ not checked: mod is not in the checker's
       subset

    .. formula $m = d - (d \\bmod 8)$ not checked: mod is not in the checker's subset

    .. formula $8 \\le d \\le 128$ not checked: a condition (the case the sentence treats)

    .. formula $d < 8$ not checked: a condition (the case the sentence treats)

    .. formula $k(d) = d - 1$ not checked: one case of a recursive definition (the others are listed
       too)

    Following :func:`pairwise_sum`: :math:`k(d) = d - 1` for :math:`d < 8` (the first
    addition, to :math:`-0`, is exact); for :math:`8 \\le d \\le 128`, with
    :math:`m = d - (d \\bmod 8)`, :math:`k(d) = (m/8 - 1) + 3 + (d \\bmod 8)`; beyond,
    :math:`k(d) = 1 + \\max(k(d_1), k(d - d_1))` with :math:`d_1` the first half. The computed
    sum :math:`\\hat S` then satisfies (:cite:t:`higham2002accuracy`, section 4.2)

    .. formula not checked: a rounding-error bound for a computed sum S-hat (gamma_k is Higham's
       constant here, not the gain)

    .. math:: \\begin{aligned} |\\hat S - S| &\\le \\gamma_{k(d)} \\sum_i |x_i|, \\\\
              \\gamma_k &= \\frac{k\\rho}{1 - k\\rho}, \\end{aligned}

    where :math:`k(d)` is :math:`\\log_2(d/128) + 18` when ``d`` is 128 times a power of two,
    within about 6 of it for other ``d`` up to ``2**16``: not :math:`\\log_2 d`, and not
    :math:`d - 1`. (Along another axis than a contiguous last one numpy adds sequentially.)
    See :ref:`ch-floating-point`.

    References
    ----------
    :cite:t:`higham2002accuracy`; :cite:t:`chc_numpy_pairwise`.

    Examples
    --------
    >>> [pairwise_depth(d) for d in (4, 16, 128, 768, 4096)]
    [3, 4, 18, 17, 23]
    """
    d = _checks.count(d, "d", maximum=_INT64_MAX)
    # k(d) = 1 + max(k(d_1), k(d - d_1)): the halves of one level take a few distinct sizes
    # only, so the tree is walked level by level (about log2(d / 128) levels), not node by
    # node (about d / 64 nodes: 2**32 terms would take hours)
    depth, level, sizes = 0, 0, {d}
    while sizes:
        halves: set[int] = set()
        for n in sizes:
            if n <= 128:
                depth = max(depth, level + _leaf_depth(n))
            else:
                n1 = n // 2 - (n // 2) % 8
                halves.update((n1, n - n1))
        sizes, level = halves, level + 1
    return depth


def _leaf_depth(n: int) -> int:
    """k(n) for 1 <= n <= 128: one by one below 8; eight accumulators joined in a tree of
    depth 3, then the last n mod 8 entries one by one."""
    if n < 8:
        return n - 1
    m = n - n % 8
    return (m // 8 - 1) + 3 + n % 8


@_checks.public
def round_bfloat16(z: ArrayLike) -> np.ndarray:
    """Round to bfloat16 (8 significant bits), returned as float32; numpy has no bfloat16.

    Parameters
    ----------
    z : array_like
        Real values (any shape), first rounded to float32 (as frameworks do when casting).

    Returns
    -------
    ndarray of float32
        Every entry rounded to the nearest number with an 8-bit significand and float32's
        exponents, ties to even: exactly representable in bfloat16.

    Raises
    ------
    ValueError, TypeError
        If an entry is not a finite real number, or rounds beyond bfloat16's largest finite
        number.

    Notes
    -----
    .. formula $\\rho = 2^{-8}$ not checked: the unit roundoff of bfloat16, a format numpy does not
       have

    bfloat16 keeps float32's sign and 8 exponent bits and the top 7 of its 23 fraction bits,
    so rounding a float32 bit pattern :math:`b` to it adds
    :math:`\\mathtt{0x7FFF} + (\\text{bit 16 of } b)` and clears the low 16 bits: the carry
    rounds up exactly when the discarded half exceeds one half, or equals it and the kept
    part is odd. Its unit roundoff is :math:`\\rho = 2^{-8}`. See
    :ref:`ch-floating-point`.

    Examples
    --------
    >>> round_bfloat16([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-7, 300.0]).tolist()
    [1.0, 1.015625, 1.0078125, 300.0]
    """
    arr = _checks.real_array(z, "z")
    f32 = np.asarray(arr, dtype=np.float32)
    _checks.finite(f32.astype(np.float64), "z rounded to float32")
    bits = f32.view(np.uint32).astype(np.uint64)
    # round to nearest, ties to even: add 0x7FFF plus the lowest kept bit, drop 16 bits
    # (uint64 constants: numpy's stubs type uint64-array-op-int as signed; it stays uint64)
    bits = ((bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1)))
            & np.uint64(0xFFFF0000))
    out = bits.astype(np.uint32).view(np.float32)
    if not np.isfinite(out).all():
        raise ValueError("z has an entry beyond bfloat16's largest finite number (about 3.39e38)")
    return out


@_checks.public
def offset_errors(offsets: ArrayLike, *, f: Callable[..., np.ndarray] = core, sigma: float = 1.0,
                  d: int = 32, n: int = 4, eps: float = EPS, seed: int = 0) -> np.ndarray:
    """Worst error of a core, in ulps, on records whose mean is ``offset`` spreads away from 0.

    Parameters
    ----------
    offsets : (m,) array_like
        Ratios :math:`|\\mu|/\\sigma`, each positive.
    f : callable, optional
        ``f(z, eps=eps)``, the core of records ``z`` (default :func:`lnbook.core`).
    sigma : float, optional
        The spread :math:`\\sigma > 0` of the records' features.
    d, n : int, optional
        Features per record and records per offset.
    eps : float, optional
        Stabilizer passed to ``f`` and to :func:`lnbook.exact_core`.
    seed : int, optional
        Seed of the standard normal draw, shared by every offset.

    Returns
    -------
    (m,) ndarray
        For each offset, the largest :func:`lnbook.ulp_error` over the ``n`` records.

    Raises
    ------
    ValueError, TypeError
        If an offset or ``sigma`` is not positive and finite, ``d`` or ``n`` not a positive
        integer (``2.7``, ``'3'`` and ``True`` are refused, not rounded), ``f`` not callable, or
        an error beyond float64.

    Notes
    -----
    .. formula $z = \\sigma\\,(r \\mathbf 1 + x)$ not checked: r and x are the function's parameters

    The records are :math:`z = \\sigma\\,(r \\mathbf 1 + x)` rounded to float64, with
    :math:`x` one fixed standard normal draw of shape ``(n, d)`` and :math:`r` the offset.
    Each computed core is compared with the exact core *of the rounded record*, so the
    rounding of the input is not counted against the layer. See :ref:`ch-floating-point`.

    Examples
    --------
    >>> offset_errors([1.0, 1e6], d=8, n=2).tolist()
    [1.0, 1.0]
    """
    r = _checks.vector(offsets, "offsets")
    if (r <= 0).any():
        raise ValueError(f"offsets must be positive ratios; got {_checks.show(offsets)}")
    f = _checks.function(f, "f", "f(z, eps=eps) -> the core of z")
    sigma = _checks.positive(sigma, "sigma")
    d = _checks.count(d, "d")
    n = _checks.count(n, "n")
    eps = _checks.eps_value(eps)
    seed = _checks.seed(seed)
    _checks.fits(n * d, f"the records of n = {n} and d = {d}")
    x = np.random.default_rng(seed).standard_normal((n, d))
    # the largest record must be finite: sigma (max r + max|x|)
    if not math.isfinite(sigma * (float(r.max()) + float(np.abs(x).max()))):
        raise ValueError(f"sigma * offsets overflows float64 (sigma = {sigma!r}, largest offset "
                         f"{float(r.max())!r}); take smaller ones")
    worst = np.empty(r.size)
    for k, ratio in enumerate(r):
        # z = sigma (r 1 + x), rounded to float64 by the arithmetic
        z = sigma * (ratio + x)
        computed = _checks.real_array(f(z, eps=eps), "f(z)")
        exact = exact_core(z, eps=eps)
        if computed.shape != exact.shape:
            raise ValueError(f"f(z) has shape {computed.shape}; expected {exact.shape}")
        # err = max_i |c_i - u_i| / ulp(max_i |u_i|), refused beyond float64
        worst[k] = ulps(computed, exact, np.dtype(np.float64),
                        "the error of f(z) in ulps").max()
    return worst
