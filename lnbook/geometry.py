"""The geometric picture (the toolkit of the chapter :ref:`ch-geometry`): ``u_eps(z) = v / s``
projects ``z`` onto the plane 1^⊥ of centered records (``v = P z``), then maps the plane into
itself along every direction, a length ``r`` to ``r / sqrt(r**2 / d + eps)``."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["plane_basis", "core_radius", "radial_profile"]


@_checks.public
def plane_basis(d: int) -> np.ndarray:
    """An orthonormal basis of the hyperplane ``1^⊥`` of centered records (Helmert's).

    Parameters
    ----------
    d : int
        Number of features, ``d >= 2``.

    Returns
    -------
    (d - 1, d) ndarray
        Row ``k`` is ``(1, ..., 1, -k, 0, ..., 0) / sqrt(k (k + 1))`` with ``k`` ones.

    Raises
    ------
    ValueError, TypeError
        If ``d`` is not an integer of at least 2, or the basis would not fit.

    Notes
    -----
    The rows ``f_k`` satisfy ``f_k · 1 = 0`` and ``f_j · f_k = δ_jk``, so ``Q = basis`` gives
    ``Q^T Q = P`` and ``Q P z`` are the plane coordinates of a record. See :ref:`ch-geometry`.

    Examples
    --------
    >>> (plane_basis(3) * np.array([[2 ** 0.5], [6 ** 0.5]])).round(12) + 0.0
    array([[ 1., -1.,  0.],
           [ 1.,  1., -2.]])
    """
    # the plane 1^⊥ is nonzero from d = 2 on
    d = _checks.count(d, "d", minimum=2)
    _checks.fits((d - 1) * d, f"the basis of the plane of d = {d} features")
    basis = np.zeros((d - 1, d))
    for k in range(1, d):
        # f_k = (1, ..., 1, -k, 0, ..., 0) / sqrt(k (k + 1))
        basis[k - 1, :k] = 1.0
        basis[k - 1, k] = -k
        basis[k - 1] /= np.sqrt(k * (k + 1))
    return basis


@_checks.public
def core_radius(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """Length of the core, ``||u_eps(z)||_2 = sqrt(d q / (q + eps))``, in closed form.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    (...) ndarray
        The radius of the sphere in ``1^⊥`` on which the core of each record lies.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.core`.

    Notes
    -----
    .. math:: \\lVert u_\\varepsilon(z)\\rVert_2
              = \\frac{\\lVert v\\rVert_2}{\\sqrt{q+\\varepsilon}}
              = \\sqrt{\\frac{d\\,q}{q+\\varepsilon}}

    since :math:`\\lVert v\\rVert_2^2 = d q`. It is :math:`\\sqrt d` for ``eps = 0``, below it
    for ``eps > 0``, and depends on ``z`` only through ``q / eps``. Where the ratio
    underflows, the length is ``sqrt(d q') / sqrt(q' + eps')`` of the record scaled by a power
    of two, ``2**k z``, with ``q' = 4**k q`` and ``eps' = 4**k eps``: about
    ``3e-298 sqrt(d)`` for a record of spread ``sqrt(q) = 1e-300`` at the default
    ``eps = 1e-5``. See :ref:`ch-geometry`.

    Examples
    --------
    >>> round(float(core_radius([1.0, 2.0, 3.0], eps=2 / 3) ** 2), 12)  # q = eps: half of d
    1.5
    >>> f"{float(core_radius([1e-300, -1e-300])):.3g}"  # sqrt(2) 1e-300 / sqrt(1e-5)
    '4.47e-298'
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    # |u| = sqrt(d q / (q + eps)); the kernel's ratio refuses eps = 0 with a constant record
    return _kernel.mean_square_ratio(z, eps, root=True)


@_checks.public
def radial_profile(r: ArrayLike, d: int, *, eps: float = EPS) -> np.ndarray:
    """The radial map of the plane: a centered vector of length ``r`` goes to this length.

    Parameters
    ----------
    r : array_like
        Lengths ``||v||_2 >= 0`` of centered records.
    d : int
        Number of features.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    ndarray, shape of ``r``
        ``r / sqrt(r**2 / d + eps)``; increasing, with limit ``sqrt(d)``; slope at
        ``r`` equal to the radial eigenvalue ``eps / s**3``, ``s**2 = r**2 / d + eps``.

    Raises
    ------
    ValueError, TypeError
        If a length is negative or not finite, ``d`` not a positive integer, ``eps`` bad, or
        ``eps == 0`` with ``r == 0``.

    Notes
    -----
    A length ``r`` goes to ``r / sqrt(r**2 / d + eps) = sqrt(d) r / hypot(r, sqrt(d eps))``;
    the second form is used where ``r**2`` would over- or underflow.
    See :ref:`ch-geometry`.

    Examples
    --------
    >>> radial_profile([0.0, 3.0], 3, eps=1.0)  # s = 2 at r = 3
    array([0. , 1.5])
    """
    r = _checks.real_array(r, "r")
    eps = _checks.eps_value(eps)
    # as a float: numpy takes no integer beyond int64 (d = 10**400 would overflow a float)
    features = float(_checks.count(d, "d", maximum=int(np.finfo(np.float64).max)))
    if (r < 0).any():
        raise ValueError(f"lengths r must be non-negative; got min(r) = {float(r.min())!r}")
    if eps == 0 and (r == 0).any():
        raise ValueError("eps = 0 with r = 0: the radial map is 0/0 there; use eps > 0")
    # r -> r / sqrt(r^2 / d + eps)
    s2 = r**2 / features + eps
    out = r / np.sqrt(s2)
    # where r^2 / d over- or underflows: sqrt(d) r / hypot(r, sqrt(d) sqrt(eps)), no squares
    bad = ~(np.isfinite(s2) & ((s2 >= 2.0**-1021) | (r == 0)))
    root_d = np.sqrt(features)
    return np.where(bad, root_d * (r / np.hypot(r, root_d * np.sqrt(eps))), out)
