"""The numerical kernel: per-record statistics, the stabilized denominator, the blocked layer.

Every numerical function of lnbook rests on this module; none validates here (the public
functions validate with :mod:`lnbook._checks` first, then call in), and none sets numpy's
floating-point state: the public functions run with every warning off (``_checks.public``),
and over- and underflow are detected by the results' checks. Arrays arrive as C-contiguous
float64 with the records on the last axis. Everything runs on the calling thread.

Symbols as in :mod:`lnbook._layer`; ``s = sqrt(q + eps)`` is the stabilized scale.

Range. A record whose spread is tiny (``q`` below ``2**-1021``, where squares lose bits to
underflow) or huge (``q`` or ``q + eps`` overflows) is first multiplied by ``2**k`` (exact)
so that its largest entry is near 1: ``mu' = 2**k mu``, ``v' = 2**k v``, ``q' = 4**k q``,
``eps' = 4**k eps`` (``2**k eps`` outside the root). ``k`` is capped so that ``eps'`` stays
below ``2**1000``, finite and exact when normal. A subnormal ``eps'`` may be inexact, but then
``k < 0`` and ``q' >= 2**-108 / d`` (two different entries differ by an ulp), so its error,
below ``2**-1074``, is far below an ulp of ``q' + eps'``; when the cap binds, ``eps'``
dominates ``q'`` by ``2**500``. Scaling by ``2**k`` commutes with every rounding between over-
and underflow, so records inside the range get the same bits either way.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-5

# elements per block: 256 Ki float64 (2 MiB). The passes over a block run from the cache,
# and the working copies of a statistic stay that small whatever the size of the input: on
# a 2-core EPYC (1 MiB of L2 per core, 32 MiB of L3) the layer on (4096, 1024) took 15.6 ms
# with 64 Ki blocks and 13.7 ms with these
_BLOCK = 1 << 18

# q below this, squares may have lost bits to underflow (each is exact only above 2**-1022,
# and an absolute error of 2**-1074 must stay below an ulp of q + eps)
_TINY = 2.0**-1021
# eps' = eps 4**k (or eps 2**k) is kept below 2**_EPS_EXP by capping k
_EPS_EXP = 1000
_MAX = float(np.finfo(np.float64).max)

def zero_spread_error(index: tuple[int, ...], unit: str = "record",
                      center: bool | None = True) -> ValueError:
    """THE zero-denominator error: eps = 0 and a record (or column) of zero spread.

    ``center``: True for the variance, False for the mean square about 0 (no centering),
    None for the one-pass variance ``E[z^2] - mu^2`` clipped at 0.
    """
    where = f" {index}" if index else ""
    what, spread = {True: ("a constant", "variance"), False: ("an all-zero", "mean square"),
                    None: ("a", "one-pass variance max(0, E[z^2] - mu^2)")}[center]
    return ValueError(
        f"eps = 0 with {what} {unit}{where}: its {spread} is exactly 0, so the core 0/0 "
        "is undefined; use eps > 0"
    )


def _index(flat: int, lead: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, lead)) if lead else ()


def _sum_squares(x: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``sum_i x_i^2`` along the last axis of ``x`` (n, d), keeping it, with the bits of
    ``np.add.reduce(x * x, axis=-1)``, squaring at most ``scratch.size`` entries at a time.

    A record longer than the scratch is cut where numpy's pairwise summation cuts it (the
    first half rounded down to a multiple of 8, see :func:`lnbook.fp.pairwise_sum`), so the
    pieces' sums add up in numpy's own order.
    """
    n, d = x.shape
    if d > scratch.size:
        def pairwise(row: np.ndarray) -> float:
            if row.size <= scratch.size:
                return float(np.add.reduce(np.square(row, out=scratch[: row.size])))
            half = row.size // 2 - (row.size // 2) % 8
            return pairwise(row[:half]) + pairwise(row[half:])

        return np.array([pairwise(row) for row in x]).reshape(n, 1)
    out = np.empty((n, 1))
    step = scratch.size // d
    for i in range(0, n, step):
        sq = scratch[: min(step, n - i) * d].reshape(-1, d)
        np.square(x[i : i + step], out=sq)
        np.add.reduce(sq, axis=-1, keepdims=True, out=out[i : i + step])
    return out


def _plain(rows: np.ndarray, v: np.ndarray, scratch: np.ndarray, center: bool, ddof: int,
           fast: bool) -> tuple[np.ndarray, np.ndarray]:
    """Statistics of ``rows`` (n, d) without rescaling: returns ``(mu, q)``, writes ``v``
    (which may be ``rows`` itself)."""
    d = rows.shape[-1]
    if fast:
        # the literal one-pass formula: s^2 = max(0, E[z^2] - mu^2) d / (d - ddof)
        if center:
            mu = np.add.reduce(rows, axis=-1, keepdims=True) / d
        else:
            mu = np.zeros((rows.shape[0], 1))
        ez2 = _sum_squares(rows, scratch) / d
        q = np.maximum(0.0, ez2 - mu * mu) * (d / (d - ddof))
        np.subtract(rows, mu, out=v)
        return mu, q
    if center:
        # mu_0 = (1/d) sum_i z_i (pairwise), then w = z - mu_0 (exact when the offset
        # dominates: Sterbenz)
        mu0 = np.add.reduce(rows, axis=-1, keepdims=True) / d
        np.subtract(rows, mu0, out=v)
        # the rounding error of mu_0 is the mean of w; v = w - delta recentres to a few ulps
        delta = np.add.reduce(v, axis=-1, keepdims=True) / d
        v -= delta
        mu = mu0 + delta
    else:
        mu = np.zeros((rows.shape[0], 1))
        np.copyto(v, rows)
    # q = (1/(d - ddof)) sum_i v_i^2, a pairwise sum of the squares
    q = _sum_squares(v, scratch) / (d - ddof)
    return mu, q


def _exponents(rows: np.ndarray, eps: float, eps_inside: bool) -> np.ndarray:
    """The k (n, 1) that bring each record's largest entry near 1, capped by eps."""
    # max_i |z_i| = m 2^e with m in [1/2, 1): k = -e
    top = np.maximum(rows.max(axis=-1, keepdims=True), -rows.min(axis=-1, keepdims=True))
    k = -np.frexp(top)[1].astype(np.int64)
    if eps > 0:
        # keep eps' = eps 4^k (or eps 2^k) below 2^1000: eps < 2^e_eps
        e_eps = int(np.frexp(eps)[1])
        cap = (_EPS_EXP - e_eps) // 2 if eps_inside else _EPS_EXP - e_eps
        k = np.minimum(k, cap)
    return k


def moments(rows: np.ndarray, eps: float, out: np.ndarray | None = None, *, center: bool = True,
            ddof: int = 0, eps_inside: bool = True, fast: bool = False,
            scratch: np.ndarray | None = None,
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(mu', v', q', k)`` of the records ``rows`` (n, d), scaled by ``2**k``.

    ``mu'``, ``q'`` and ``k`` keep the feature axis; ``v'`` is written into ``out`` (a new
    array when None). ``k`` is 0 for every record whose plain statistics are accurate; the
    others (see the module's notes) are rescaled. With ``center=False`` the statistics are
    about 0 (``mu = 0``, ``v = z``); ``ddof`` sets the divisor ``d - ddof``; ``fast`` is the
    literal one-pass variance, never rescaled. ``scratch``: a buffer for the squares (reused
    across blocks: a fresh one costs page faults); by default one block.
    """
    v = np.empty(rows.shape) if out is None else out
    if scratch is None:
        scratch = np.empty(max(1, min(rows.size, _BLOCK)))
    mu, q = _plain(rows, v, scratch, center, ddof, fast)
    k = np.zeros(q.shape, dtype=np.int64)
    if fast or not q.size:
        return mu, v, q, k
    # every record in range (the common case, two reductions): q >= 2^-1021 and q + eps
    # (or sqrt(q) + eps) finite, also False for NaN
    s2 = q + eps if eps_inside else np.sqrt(q) + eps
    if q.min() >= _TINY and s2.max() <= _MAX:
        return mu, v, q, k
    bad = np.flatnonzero(~((q >= _TINY) & (s2 <= _MAX)))
    # (a block of records is small; a record longer than a block is rescaled in place)
    every = bad.size == rows.shape[0]
    sub = rows if every else rows[bad]
    kb = _exponents(sub, eps, eps_inside)
    # z' = 2^k z, exact
    vb = v if every else np.empty(sub.shape)
    np.ldexp(sub, kb, out=vb)
    mub, qb = _plain(vb, vb, scratch, center, ddof, False)
    if not every:
        v[bad] = vb
    mu[bad], q[bad], k[bad] = mub, qb, kb
    return mu, v, q, k


def denominator(q: np.ndarray, k: np.ndarray, eps: float, *, eps_inside: bool = True,
                lead: tuple[int, ...] = (), start: int = 0, unit: str = "record",
                center: bool | None = True) -> np.ndarray:
    """The scaled stabilized scale ``s' = 2**k s``, ``s = sqrt(q + eps)`` (or
    ``sqrt(q) + eps`` with ``eps_inside=False``); THE zero-denominator error, naming the record
    by its index in ``lead`` (``start``: the first row's flat index), when ``eps = 0`` and a
    record has zero spread. A constant record scaled down (``q' = 0`` with ``k < 0``: a record
    scaled down that is not constant has ``q' > 0``) is given ``k = 0`` back, in place, and
    its true ``s = sqrt(eps)``: its ``v' = 0`` needs no scale, while its ``eps' = 4**k eps``
    may be inexact or 0.
    """
    scaled = k.any()  # (most blocks: none is, and eps' = eps)
    if eps_inside:
        # s' = sqrt(q' + 4^k eps)
        s = np.sqrt(q + (np.ldexp(eps, 2 * k) if scaled else eps))
    else:
        # s' = sqrt(q') + 2^k eps
        s = np.sqrt(q) + (np.ldexp(eps, k) if scaled else eps)
    zero = np.flatnonzero(q == 0) if q.size and not q.min() > 0 else np.zeros(0, np.intp)
    if zero.size:
        if eps == 0:
            raise zero_spread_error(_index(start + int(zero[0]), lead), unit, center)
        # a constant record scaled down: v' = 0 at any scale, so s = sqrt(0 + eps), u = 0
        # (where eps >= 2^_EPS_EXP the cap on k may scale down a non-constant record until
        # q' = 0; its eps' is then normal and exact, and s' right as it is)
        scale = k.reshape(s.shape)
        kz = scale.ravel()[zero]
        down = kz < 0
        if eps >= 2.0**_EPS_EXP:
            down &= np.ldexp(eps, 2 * kz if eps_inside else kz) < 2.0**-1022
        rows = zero[down]
        scale[rows] = 0
        s[rows] = np.sqrt(eps) if eps_inside else eps
    return s


def radial(s: np.ndarray, eps: float) -> np.ndarray:
    """lambda_rad = eps / s^3; as ((eps / s) / s) / s where s^3 leaves the normal range."""
    s3 = s**3
    lam = eps / s3
    # s^3 overflows to inf (lambda -> 0) or underflows (lambda -> inf) near the ends
    bad = ~((s3 >= 2.0**-1022) & (s3 <= np.finfo(np.float64).max))
    if bad.any():
        lam = np.where(bad, eps / s / s / s, lam)[()]
    return lam


def _unscale(x: np.ndarray, k: np.ndarray, power: int = 1) -> np.ndarray:
    """``x 2**(-power k)`` (the true statistic from a scaled one); identity when k = 0."""
    if not k.any():
        return x
    return np.ldexp(x, -power * k)


def _blocks(rows: np.ndarray) -> list[slice]:
    """Blocks of about ``_BLOCK`` elements of the records ``rows`` (n, d)."""
    step = max(1, _BLOCK // rows.shape[-1])
    return [slice(i, i + step) for i in range(0, rows.shape[0], step)]


def statistics(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, q)`` of every record of ``z`` (..., d), shapes ``z.shape[:-1]``, unscaled."""
    rows = z.reshape(-1, z.shape[-1])
    mu, q = np.empty(rows.shape[0]), np.empty(rows.shape[0])
    for b in _blocks(rows):
        m, _, s, k = moments(rows[b], 0.0)
        mu[b], q[b] = _unscale(m, k).ravel(), _unscale(s, k, 2).ravel()
    return mu.reshape(z.shape[:-1]), q.reshape(z.shape[:-1])


def core_parts(z: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """``(u, s)`` for the derivatives: the core ``u = v / s`` and ``s`` (..., 1)."""
    d = z.shape[-1]
    rows = z.reshape(-1, d)
    _, v, q, k = moments(rows, eps)
    s = denominator(q, k, eps, lead=z.shape[:-1])
    # u = v' / s' (the scale cancels)
    u = v / s
    # s = 2^-k s' (over- or underflows only at the ends of the range: the callers' results
    # are then checked for finiteness)
    s = _unscale(s, k)
    return u.reshape(z.shape), s.reshape(z.shape[:-1] + (1,))


def _exponent(x: np.ndarray) -> int:
    """e with max|x| = m 2^e, m in [1/2, 1) (0 for an all-zero x)."""
    return int(np.frexp(np.abs(x).max())[1]) if x.size else 0


def input_vjp(u: np.ndarray, s: np.ndarray, g: np.ndarray, gamma: np.ndarray | None,
              eps: float) -> np.ndarray:
    """``dl/dz = J^T (gamma ⊙ g)`` from the forward's ``u`` and ``s``, without forming J.

    ``g`` and ``gamma`` are first scaled by powers of two (exact; J is linear in them), so a
    product beyond float64's range does not overflow unless the gradient does; for ``d = 2``
    it is ``lambda_rad P g~`` (no cancellation when ``g~`` is parallel to ``v``).
    """
    d = u.shape[-1]
    # g~ = gamma ⊙ g, each factor first scaled into [1/2, 1) by a power of two
    e = _exponent(g)
    gt = np.ldexp(g, -e)
    if gamma is not None:
        e_gamma = _exponent(gamma)
        e += e_gamma
        gt *= np.ldexp(gamma, -e_gamma)
    centered = gt - gt.mean(axis=-1, keepdims=True)
    if d == 2:
        # dl/dz = lambda_rad P g~
        grad = radial(s, eps) * centered
    else:
        # dl/dz = (g~ - mean(g~) 1 - u mean(u ⊙ g~)) / s
        grad = (centered - u * (u * gt).mean(axis=-1, keepdims=True)) / s
    return np.ldexp(grad, e)


def param_vjp(u: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dl/dgamma, dl/dbeta) = (sum g ⊙ u, sum g)`` over every record."""
    lead = tuple(range(u.ndim - 1))
    return (g * u).sum(axis=lead), g.sum(axis=lead)


def mean_square_ratio(z: np.ndarray, eps: float, *, root: bool = False) -> np.ndarray:
    """``q / (q + eps)`` of every record, shape ``z.shape[:-1]``; with ``root``, the core's
    length ``sqrt(d q / (q + eps))``."""
    d = z.shape[-1]
    rows = z.reshape(-1, d)
    out = np.empty(rows.shape[0])
    for b in _blocks(rows):
        _, v, q, k = moments(rows[b], eps)
        # refuses eps = 0 with a constant record
        denominator(q, k, eps, lead=z.shape[:-1], start=b.start)
        # q' / (q' + eps') = q / (q + eps) (0 for a constant record)
        s2 = q + np.ldexp(eps, 2 * k)
        ratio = np.divide(q, s2, out=np.zeros_like(q), where=q > 0)
        if root:
            # |u| = sqrt(d q' / (q' + eps')); where the ratio underflows its root need not:
            # ||v'|| / sqrt(q' + eps') (q' itself may be subnormal, even 0, when the cap on k
            # binds)
            ratio = np.sqrt(d * ratio)
            low = np.flatnonzero(ratio < 2.0**-500)
            if low.size:
                ratio[low] = (norm(v[low]) / np.sqrt(s2[low].ravel()))[:, None]
        out[b] = ratio.ravel()
    return out.reshape(z.shape[:-1])


def norm(x: np.ndarray) -> np.ndarray:
    """``||x||`` along the last axis, safe from the squares' over- and underflow: where the
    largest ``|x_i|`` is below ``2**-500`` or the norm overflows, ``2^e ||2^-e x||``."""
    out = np.atleast_1d(np.linalg.norm(x, axis=-1))
    top = np.atleast_1d(np.abs(x).max(axis=-1))
    bad = ~np.isfinite(out) | ((top > 0) & (top < 2.0**-500))
    if bad.any():
        _, e = np.frexp(top[bad])
        xb = np.ldexp(x.reshape(-1, x.shape[-1])[bad.ravel()], -e[:, None])
        out[bad] = np.ldexp(np.sqrt(np.square(xb).sum(axis=-1)), e)
    return out.reshape(x.shape[:-1])


def _bufsize(d: int, bufsize: int) -> int:
    """numpy's buffer size for the layer's passes over records of length ``d``: no longer
    than a record, where numpy's iterator is slow with buffers spanning records and a
    broadcast operand (on (4096, 1024): subtracting the mean 2.4 -> 1.3 ms, dividing by s
    2.7 -> 1.9 ms). The bits do not change (tests/test_normalize.py checks it)."""
    # a multiple of 16 (numpy's rule); short records were as fast with the default
    return min(bufsize, d - d % 16) if d >= 256 else bufsize


def _block(rows: np.ndarray, y: np.ndarray, eps: float, gamma: np.ndarray | None,
           beta: np.ndarray | None, start: int, lead: tuple[int, ...], options: dict,
           unit: str, check: bool, scratch: np.ndarray) -> None:
    """One block of the layer, in place in ``y``: ``gamma ⊙ v / s + beta``. (A twin for the
    common case, without the rescaling's bookkeeping, saved 3 % of the CPU time: not enough
    to keep two copies of the formula.)"""
    _, v, q, k = moments(rows, eps, out=y, center=options["center"], ddof=options["ddof"],
                         eps_inside=options["eps_inside"], fast=options["fast"],
                         scratch=scratch)
    if options["fast"] and not np.isfinite(q).all():
        i = int(np.flatnonzero(~np.isfinite(q))[0])
        raise ValueError(
            f"the one-pass variance of {unit} {_index(start + i, lead)} is not finite in "
            "float64: the literal formula E[z^2] - mu^2 squares z, which overflows"
        )
    # u = v' / s' = v / s
    v /= denominator(q, k, eps, eps_inside=options["eps_inside"], lead=lead, start=start,
                     unit=unit, center=None if options["fast"] else options["center"])
    # y = gamma ⊙ u + beta
    if gamma is not None:
        v *= gamma
    if beta is not None:
        v += beta
    if check:
        bad = np.flatnonzero(~np.isfinite(y).all(axis=-1))
        if bad.size:
            raise ValueError(
                f"the output gamma ⊙ u + beta of {unit} {_index(start + int(bad[0]), lead)} "
                "overflows float64 (a gain or bias too large); rescale gamma or beta"
            )


def standardize(z: np.ndarray, eps: float, gamma: np.ndarray | None = None,
                beta: np.ndarray | None = None, *, center: bool = True, ddof: int = 0,
                eps_inside: bool = True, fast: bool = False, unit: str = "record") -> np.ndarray:
    """``gamma ⊙ (z - mu 1) / s + beta`` for every record, a block of records at a time.

    Blocks of about ``_BLOCK`` elements keep every temporary small and in cache; the first
    error in record order is the one raised.
    """
    d = z.shape[-1]
    lead = z.shape[:-1]
    rows = z.reshape(-1, d)
    y = np.empty(rows.shape)
    options = {"center": center, "ddof": ddof, "eps_inside": eps_inside, "fast": fast}
    # |u_i| <= sqrt(d), so the output can only overflow when max|gamma| sqrt(d) + max|beta|
    # is near the largest float
    bound = np.sqrt(d) * (0.0 if gamma is None else np.abs(gamma).max())
    bound += 0.0 if beta is None else np.abs(beta).max()
    check = not bound < 1e300 or fast
    step = max(1, _BLOCK // d)
    # one scratch buffer for the squares, reused by every block (a fresh one costs page faults)
    scratch = np.empty(max(1, min(step * d, rows.size, _BLOCK)))
    with np.errstate(all="ignore"):  # also restores numpy's buffer size on leaving
        np.setbufsize(_bufsize(d, np.getbufsize()))
        for start in range(0, rows.shape[0], step):
            block = slice(start, start + step)
            _block(rows[block], y[block], eps, gamma, beta, start, lead, options, unit, check,
                   scratch)
    return y.reshape(z.shape)
