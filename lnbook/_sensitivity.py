"""How much the layer can amplify a change of its input: operator norm, Lipschitz bound."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["operator_norm", "lipschitz_bound", "amplification", "response", "response_slope"]


@_checks.public
def operator_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """Exact spectral norm of the core's Jacobian, from its eigenvalues (no SVD).

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (...) ndarray
        ``||Du_eps(z)||_2`` for every record.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`, or if the norm overflows float64.

    Notes
    -----
    J is symmetric, with the eigenvalues 0 on :math:`\\mathbf 1`,
    :math:`\\varepsilon/(q+\\varepsilon)^{3/2}` on :math:`v` and :math:`(q+\\varepsilon)^{-1/2}`
    on the :math:`d-2` directions orthogonal to both; so

    .. math:: \\lVert J \\rVert_2 = \\begin{cases} 0 & d = 1,\\\\
              \\varepsilon/(q+\\varepsilon)^{3/2} & d = 2,\\\\
              (q+\\varepsilon)^{-1/2} & d \\ge 3, \\end{cases}

    never above :math:`\\varepsilon^{-1/2}`. The ``d = 2`` value is :math:`((\\varepsilon/s)/s)/s`,
    which neither overflows nor vanishes where :math:`s^3` would. See :ref:`ch-sensitivity`.

    Examples
    --------
    >>> float(operator_norm([7, 7, 7], eps=1e-4))
    100.0
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    d = z.shape[-1]
    _, s = _kernel.core_parts(z, eps)
    s = s[..., 0]
    if d == 1:
        return np.zeros(s.shape)
    # ||J|| = eps / (q+eps)^{3/2} = ((eps / s) / s) / s for d = 2, else (q+eps)^{-1/2}
    norm = _kernel.radial(s, eps) if d == 2 else 1.0 / s
    return _checks.finite_result(norm, "the operator norm at z (with eps)")


@_checks.public
def lipschitz_bound(gamma: ArrayLike | None = None, *, eps: float = EPS) -> float:
    """A global Lipschitz bound of the layer in the Euclidean norm.

    Parameters
    ----------
    gamma : (d,) array_like, optional
        Gain; omitted means all ones.
    eps : float, optional
        Stabilizer, positive (with ``eps = 0`` there is no finite bound).

    Returns
    -------
    float
        ``max_i |gamma_i| / sqrt(eps)``.

    Raises
    ------
    ValueError, TypeError
        If ``eps`` is not positive and finite, ``gamma`` not a finite vector, or the bound
        overflows float64.

    Notes
    -----
    .. math:: \\begin{aligned} &\\lVert \\mathrm{LN}(z) - \\mathrm{LN}(z') \\rVert_2 \\\\
              &\\le \\frac{\\max_i |\\gamma_i|}{\\sqrt\\varepsilon} \\lVert z - z' \\rVert_2
              \\end{aligned}

    The bias cancels. For the core (``d >= 2``) this is the exact Lipschitz constant; with a gain,
    only when the largest ``|gamma_i|`` occurs twice (otherwise
    ``||diag(gamma) P||_2 / sqrt(eps)`` is smaller). See :ref:`ch-epsilon` and
    :ref:`ch-sensitivity`.

    Examples
    --------
    >>> lipschitz_bound([0, -3, 1], eps=0.25)
    6.0
    """
    eps = _checks.eps_value(eps)
    if eps == 0:
        raise ValueError("eps must be positive for a finite Lipschitz bound; got eps = 0.0")
    scale = 1.0
    if gamma is not None:
        scale = float(np.abs(_checks.vector(gamma, "gamma")).max())
    # L = max|gamma_i| eps^{-1/2} (an overflow is refused below)
    bound = np.float64(scale) / np.sqrt(eps)
    return float(_checks.finite_result(bound, "the Lipschitz bound of gamma and eps"))


@_checks.public
def amplification(z: ArrayLike, delta: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    r"""Finite amplification ``||u(z + delta) - u(z)|| / ||delta||`` of the core.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    delta : array_like, shape of ``z``
        The perturbation; no record of it may be zero.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (...) ndarray
        The ratio for every record: the finite counterpart of :func:`operator_norm`, never above
        ``eps**-0.5`` (:func:`lipschitz_bound`).

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`; if ``delta`` does not have the shape of ``z``, a record of
        it is zero or rounds away (``z + delta == z``), or ``z + delta`` overflows float64.

    Notes
    -----
    Norms of tiny or huge records are taken of the record scaled by a power of two. See
    :ref:`ch-sensitivity`.

    Examples
    --------
    >>> round(float(amplification([7, 7], [1e-3, -1e-3], eps=1e-4)), 4)
    99.5037
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    delta = _checks.same_shape(delta, z, "delta")
    norm_delta = _kernel.norm(delta)
    moved = z + delta
    if (norm_delta == 0).any():
        i = tuple(int(j) for j in np.argwhere(np.atleast_1d(norm_delta == 0))[0])
        raise ValueError(f"delta must be nonzero in every record: delta{list(i)} is 0, and the "
                         "ratio divides by ||delta||")
    _checks.finite_result(moved, "the perturbed record z + delta")
    # a nonzero delta that rounds away entirely (z + delta == z) would give a ratio of 0
    lost = (moved == z).all(axis=-1)
    if lost.any():
        i = tuple(int(j) for j in np.argwhere(np.atleast_1d(lost))[0])
        raise ValueError(f"delta is below the spacing of z: z + delta rounds to z in record "
                         f"{list(i)}, and the ratio would be 0; take a larger delta")
    # ||u(z + delta) - u(z)|| / ||delta||
    du = _kernel.standardize(moved, eps) - _kernel.standardize(z, eps)
    return _kernel.norm(du) / norm_delta


def _family_scale(t: ArrayLike, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(t, s'^2, k)`` with ``s'^2 = 4^k (2 t^2 / 3 + eps)`` for (-t, 0, t).

    Each ``t`` and ``eps`` are scaled by ``2^k`` and ``4^k`` first (exact in the range that
    matters), so that ``2 t^2 / 3`` neither overflows nor underflows: ``s'^2`` is near 1.
    """
    eps = _checks.eps_value(eps)
    t = np.atleast_1d(_checks.real_array(t, "t"))
    if t.size == 0:
        raise ValueError("t must hold at least one value of the family parameter; got none")
    # 2^-k = the binary exponent of max(|t|, sqrt(eps)), per value
    _, e = np.frexp(np.maximum(np.abs(t), np.sqrt(eps)))
    k = -e
    ts, es = np.ldexp(t, k), np.ldexp(eps, 2 * k)
    # s'^2 = 2 t'^2 / 3 + eps' = 4^k s^2, in [1/6, 2) unless t = eps = 0
    s2 = 2 * ts**2 / 3 + es
    if (s2 == 0).any():
        raise ValueError("eps = 0 at t = 0: the record (0, 0, 0) is constant; use eps > 0")
    return t, s2, k


@_checks.public
def response(t: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """Third coordinate of the core on the input family ``(-t, 0, t)``.

    Parameters
    ----------
    t : array_like
        Values of the family parameter (any shape).
    eps : float, optional
        Stabilizer.

    Returns
    -------
    ndarray
        :math:`h_\\varepsilon(t)`, of the shape of ``t`` (at least 1-d).

    Raises
    ------
    ValueError, TypeError
        If ``t`` is empty or not finite real numbers, ``eps`` is bad, or ``eps = 0`` at
        ``t = 0``.

    Notes
    -----
    The record :math:`(-t, 0, t)` has mean 0 and variance :math:`2t^2/3`, so

    .. math:: h_\\varepsilon(t) = \\frac{t}{\\sqrt{2t^2/3 + \\varepsilon}},

    which tends to ``±sqrt(3/2)`` as ``t`` goes to ``±inf``. See :ref:`ch-epsilon`.

    Examples
    --------
    >>> response([0.0, 1.0], eps=1/3)
    array([0., 1.])
    """
    t, s2, k = _family_scale(t, eps)
    # h(t) = t / sqrt(2 t^2 / 3 + eps) = t / (2^-k sqrt(s'^2)); where 2^-k sqrt(s'^2) would
    # be subnormal (k > 1021: t and sqrt(eps) below 2^-1021), the same quotient as
    # (2^k t) / sqrt(s'^2), whose numerator is exact there (|2^k t| < 1)
    root = np.sqrt(s2)
    return np.where(k > 1021, np.ldexp(t, k) / root, t / np.ldexp(root, -k))


@_checks.public
def response_slope(t: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """Derivative of :func:`response` with respect to ``t``.

    Parameters
    ----------
    t : array_like
        Values of the family parameter.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    ndarray
        :math:`h'_\\varepsilon(t)`, of the shape of ``t`` (at least 1-d).

    Raises
    ------
    ValueError, TypeError
        As for :func:`response`.

    Notes
    -----
    .. math:: \\begin{aligned}
              h'_\\varepsilon(t) &= \\frac{\\varepsilon}{(2t^2/3 + \\varepsilon)^{3/2}},
              \\\\ h'_\\varepsilon(0) &= \\varepsilon^{-1/2}. \\end{aligned}

    ``t`` and ``eps`` are scaled by ``2^k`` and ``4^k`` (exact) so that the power
    neither overflows nor underflows, and a subnormal slope is rounded once. See
    :ref:`ch-epsilon`.

    Examples
    --------
    >>> response_slope([0.0], eps=0.01)
    array([10.])
    >>> response_slope([0.0], eps=1e-250)  # (1e-250)**1.5 would underflow to 0
    array([1.e+125])
    """
    _, s2, k = _family_scale(t, eps)
    # h'(t) = eps / (2 t^2 / 3 + eps)^{3/2} = 2^{3k} eps / s'^3, with eps = m 2^e (exact,
    # also when eps is subnormal): one rounding into the subnormal range, at the end
    m, e = np.frexp(_checks.eps_value(eps))
    slope = np.ldexp(m / s2**1.5, e + 3 * k)
    return _checks.finite_result(slope, "the slope h'(t) at t (with eps)")
