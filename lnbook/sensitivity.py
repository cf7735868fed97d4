"""How much the layer can amplify a change of its input: operator norm, Lipschitz bound."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .derivatives import jacobian_eigenvalues
from .normalize import EPS, core

__all__ = [
    "operator_norm",
    "lipschitz_bound",
    "amplification",
    "response",
    "response_slope",
]


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
        ``||Du_eps(z)||_2`` for every record, shape ``z.shape[:-1]``.

    Notes
    -----
    The Jacobian is symmetric, so its norm is its largest eigenvalue: 0 on
    :math:`\\mathbf 1`, :math:`\\varepsilon/(q+\\varepsilon)^{3/2}` on :math:`v`, and
    :math:`(q+\\varepsilon)^{-1/2}` on the :math:`d-2` directions orthogonal to both. Hence

    .. math:: \\lVert J \\rVert_2 = \\begin{cases} 0 & d = 1,\\\\
              \\varepsilon/(q+\\varepsilon)^{3/2} & d = 2,\\\\
              (q+\\varepsilon)^{-1/2} & d \\ge 3, \\end{cases}

    which never exceeds :math:`\\varepsilon^{-1/2}` (for ``d = 2`` the two cases agree
    at ``q = 0``). See the chapter *Sensitivity*.

    Examples
    --------
    >>> float(operator_norm([-1, 1], eps=3))
    0.375
    >>> float(operator_norm([7, 7, 7], eps=1e-4))
    100.0
    """
    radial, tangential = jacobian_eigenvalues(z, eps=eps)
    d = np.shape(z)[-1]
    if d == 1:
        return np.zeros_like(radial)
    # ||J|| = eps / (q+eps)^{3/2} for d = 2, else (q+eps)^{-1/2}
    return radial if d == 2 else tangential


def lipschitz_bound(*, eps: float = EPS, gamma: ArrayLike | None = None) -> float:
    """Global Lipschitz constant of the layer in the Euclidean norm.

    Parameters
    ----------
    eps : float, optional
        Stabilizer; must be positive (with ``eps = 0`` there is no finite bound).
    gamma : (d,) array_like, optional
        Gain; omitted means all ones.

    Returns
    -------
    float
        ``max_i |gamma_i| / sqrt(eps)``.

    Raises
    ------
    ValueError
        If ``eps <= 0`` or ``gamma`` is not a finite vector.

    Notes
    -----
    .. math:: \\lVert \\mathrm{LN}(z) - \\mathrm{LN}(z') \\rVert_2
              \\le \\frac{\\max_i |\\gamma_i|}{\\sqrt\\varepsilon} \\lVert z - z' \\rVert_2

    The bias cancels in differences. See the chapter *Sensitivity*.

    Examples
    --------
    >>> lipschitz_bound(eps=1e-4)
    100.0
    >>> lipschitz_bound(eps=0.25, gamma=[0, -3, 1])
    6.0
    """
    eps = _checks.eps_value(eps)
    if eps == 0:
        raise ValueError("eps must be positive for a finite Lipschitz bound; got eps = 0.0")
    scale = 1.0
    if gamma is not None:
        gamma = _checks.records(gamma, "gamma")
        if gamma.ndim != 1:
            raise ValueError(f"gamma must have shape (d,); got shape {gamma.shape}")
        scale = float(np.abs(gamma).max())
    # L = max|gamma_i| eps^{-1/2} (an overflow is refused below)
    with np.errstate(over="ignore"):
        bound = np.float64(scale) / np.sqrt(eps)
    return float(_checks.finite_result(bound, "the Lipschitz bound"))


def amplification(z: ArrayLike, h: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """Finite amplification ``||u(z + h) - u(z)|| / ||h||`` of the core.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    h : array_like, shape of ``z``
        Perturbation; no record of it may be zero.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (...) ndarray
        The ratio for every record; at most ``eps**-0.5``.

    Examples
    --------
    >>> round(float(amplification([7, 7], [1e-3, -1e-3], eps=1e-4)), 4)
    99.5037
    """
    z = _checks.records(z)
    h = _checks.same_shape(h, z, "h")
    norm_h = np.linalg.norm(h, axis=-1)
    if (norm_h == 0).any():
        raise ValueError("h must be nonzero in every record: the ratio divides by ||h||")
    # ||u(z + h) - u(z)|| / ||h||
    return np.linalg.norm(core(z + h, eps=eps) - core(z, eps=eps), axis=-1) / norm_h


def _family_denominator(t: ArrayLike, eps: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Return ``(t, 2 t^2 / 3 + eps, eps)`` for the family ``(-t, 0, t)``, validated."""
    eps = _checks.eps_value(eps)
    t = _checks.records(np.atleast_1d(t), "t")
    with np.errstate(over="ignore"):
        s2 = _checks.finite_result(2 * t**2 / 3 + eps, "the variance 2 t^2 / 3 of (-t, 0, t)")
    if (s2 == 0).any():
        raise ValueError("eps = 0 at t = 0: the record (0, 0, 0) is constant; use eps > 0")
    return t, s2, eps


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
    h : ndarray, shape of ``t`` (at least 1-d)

    Notes
    -----
    The record :math:`(-t, 0, t)` has mean 0 and variance :math:`2t^2/3`, so

    .. math:: h_\\varepsilon(t) = \\frac{t}{\\sqrt{2t^2/3 + \\varepsilon}}
              \\to \\pm\\sqrt{3/2} \\quad (t \\to \\pm\\infty).

    See the chapter *Epsilon*.

    Examples
    --------
    >>> response([0.0, 1.0], eps=1/3)
    array([0., 1.])
    """
    t, s2, _ = _family_denominator(t, eps)
    # h(t) = t / sqrt(2 t^2 / 3 + eps)
    return t / np.sqrt(s2)


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
    ndarray, shape of ``t`` (at least 1-d)

    Notes
    -----
    .. math:: h'_\\varepsilon(t) = \\frac{\\varepsilon}{(2t^2/3 + \\varepsilon)^{3/2}},
              \\qquad h'_\\varepsilon(0) = \\varepsilon^{-1/2}.

    Examples
    --------
    >>> response_slope([0.0], eps=0.01)
    array([10.])
    """
    _, s2, eps = _family_denominator(t, eps)
    # h'(t) = eps / (2 t^2 / 3 + eps)^{3/2}
    return eps / s2**1.5
