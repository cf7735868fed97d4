"""Relatives of the layer that the book compares it with, the frameworks' conventions, and a
deliberately wrong layer. Each is the kernel's standardization with other options."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel

__all__ = [
    "rms_norm",
    "batch_norm",
    "Convention",
    "CONVENTIONS",
    "layer_norm_variant",
    "convention_layer_norm",
    "wrong_axis_layer_norm",
]

EPS = _kernel.EPS


def rms_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """RMSNorm's core: divide by the root mean square, with no centering.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    ndarray, shape of ``z``

    Raises
    ------
    ValueError
        If ``eps == 0`` and a record is all zeros, or as for :func:`lnbook.core`.

    Notes
    -----
    .. math:: \\bar z = \\frac{z}{\\sqrt{\\tfrac1d \\lVert z \\rVert^2 + \\varepsilon}}

    A record of tiny or huge size is scaled by a power of two first, as in
    :func:`lnbook.core`. See :ref:`ch-exercises`.

    Examples
    --------
    >>> rms_norm([2, 4, 6, 8], eps=0).round(4)
    array([0.3651, 0.7303, 1.0954, 1.4606])
    >>> rms_norm([3e-170, 0], eps=0)  # its square underflows; the power of two does not
    array([1.41421356, 0.        ])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    # z / sqrt((1/d) |z|^2 + eps): the kernel without centering
    return _kernel.standardize(z, eps, center=False)


def batch_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """BatchNorm's training-mode core: statistics down each feature, across the batch.

    Parameters
    ----------
    z : (B, d) array_like
        A batch of ``B`` records.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    (B, d) ndarray
        Each column standardized by its own batch mean and variance.

    Raises
    ------
    ValueError
        If ``z`` is not 2-d, or ``eps == 0`` and a column is constant (always so when
        ``B = 1``).

    Notes
    -----
    .. math:: y_{bj} = \\frac{z_{bj} - \\mu_j}{\\sqrt{q_j + \\varepsilon}}, \\qquad
              \\mu_j = \\frac1B \\sum_b z_{bj}, \\quad
              q_j = \\frac1B \\sum_b (z_{bj} - \\mu_j)^2

    The statistics are the kernel's, on the transposed batch. Matches
    ``torch.nn.BatchNorm1d(d, affine=False)`` in training mode. See :ref:`ch-records`.

    Examples
    --------
    >>> batch_norm([[2, 4, 6, 8]])
    array([[0., 0., 0., 0.]])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    if z.ndim != 2:
        raise ValueError(f"z must be a batch of shape (B, d); got shape {z.shape}")
    # the kernel on z^T: each feature column j is a "record" of B values
    columns = np.ascontiguousarray(z.T)
    return _kernel.standardize(columns, eps, unit="feature column").T.copy()


class Convention(NamedTuple):
    """One framework's choices for the layer, as :func:`layer_norm_variant` takes them.

    Attributes
    ----------
    label : str
        The framework's name, for tables.
    eps : float
        The framework's default stabilizer.
    ddof : int
        Delta degrees of freedom: the variance divides by ``d - ddof``.
    eps_inside : bool
        ``True``: ``sqrt(var + eps)``; ``False``: ``sqrt(var) + eps``.
    center : bool
        ``True``: subtract the record's mean; ``False``: RMSNorm's mean square about 0.
    fast_variance : bool
        ``True``: the variance as ``E[z^2] - E[z]^2``, clipped at 0 (one pass).
    params : str
        The learned parameters by default, with the options that drop them.
    source : str
        The layer (or expression) that implements the convention.
    """

    label: str
    eps: float
    ddof: int
    eps_inside: bool
    center: bool
    fast_variance: bool
    params: str
    source: str

    def options(self) -> dict:
        """The keyword arguments of :func:`layer_norm_variant` for this convention."""
        return {"eps": self.eps, "ddof": self.ddof, "eps_inside": self.eps_inside,
                "center": self.center, "fast_variance": self.fast_variance}


#: The conventions the chapter :ref:`ch-frameworks` compares, by key (read-only).
CONVENTIONS: Mapping[str, Convention] = MappingProxyType({
    "pytorch": Convention(
        label="PyTorch", eps=1e-5, ddof=0, eps_inside=True, center=True, fast_variance=False,
        params="γ, β; bias=False: γ only; elementwise_affine=False: none",
        source="torch.nn.LayerNorm"),
    "flax": Convention(
        label="Flax", eps=1e-6, ddof=0, eps_inside=True, center=True, fast_variance=True,
        params="γ, β (scale, bias); use_scale, use_bias",
        source="flax.linen.LayerNorm"),
    "keras": Convention(
        label="Keras", eps=1e-3, ddof=0, eps_inside=True, center=True, fast_variance=False,
        params="γ, β; scale=False, center=False drop them",
        source="keras.layers.LayerNormalization, TensorFlow or JAX backend"),
    "bert": Convention(
        label="TF1 / BERT", eps=1e-12, ddof=0, eps_inside=True, center=True,
        fast_variance=False,
        params="γ, β",
        source="tf.contrib.layers.layer_norm"),
    "annotated": Convention(
        label="Annotated Transformer", eps=1e-6, ddof=1, eps_inside=False, center=True,
        fast_variance=False,
        params="γ, β (a_2, b_2)",
        source="x.std(-1) + eps"),
    "rmsnorm": Convention(
        label="RMSNorm", eps=float(np.finfo(np.float64).eps), ddof=0, eps_inside=True,
        center=False, fast_variance=False,
        params="γ only",
        source="torch.nn.RMSNorm"),
})


def _checked_ddof(ddof: int, d: int) -> int:
    ddof = _checks.count(ddof, "ddof", minimum=0)
    if ddof >= d:
        raise ValueError(f"ddof = {ddof} leaves no degrees of freedom for d = {d} features")
    return ddof


def _variant(z: ArrayLike, gamma: ArrayLike | None, beta: ArrayLike | None, eps: float,
             ddof: int, eps_inside: bool, center: bool, fast_variance: bool) -> np.ndarray:
    """Validate every argument of a variant, then standardize with the kernel."""
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    d = z.shape[-1]
    ddof = _checked_ddof(ddof, d)
    eps_inside = _checks.option(eps_inside, "eps_inside")
    center = _checks.option(center, "center")
    fast_variance = _checks.option(fast_variance, "fast_variance")
    gamma = _checks.parameter(gamma, d, "gamma")
    beta = _checks.parameter(beta, d, "beta")
    return _kernel.standardize(z, eps, gamma, beta, center=center, ddof=ddof,
                               eps_inside=eps_inside, fast=fast_variance)


def layer_norm_variant(
    z: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float,
    ddof: int = 0,
    eps_inside: bool = True,
    center: bool = True,
    fast_variance: bool = False,
) -> np.ndarray:
    """The layer as a framework defines it: divisor, eps placement, centering, variance.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    gamma, beta : (d,) array_like, optional
        Gain and bias; ``None`` means ones and zeros (``elementwise_affine=False``), and
        ``beta=None`` alone is PyTorch's ``bias=False``.
    eps : float
        Stabilizer (keyword, no default: every framework picks its own, see
        :data:`CONVENTIONS`).
    ddof : int, optional
        The variance divides by ``d - ddof``: 0 for the population variance (the book's
        ``q``), 1 for the unbiased estimate behind ``torch.std``.
    eps_inside : bool, optional
        ``True`` divides by ``sqrt(var + eps)``; ``False`` by ``sqrt(var) + eps``.
    center : bool, optional
        ``False`` skips the mean: the spread is the mean square about 0 (RMSNorm).
    fast_variance : bool, optional
        ``True`` computes the variance as ``E[z^2] - E[z]^2`` clipped at 0, literally, as
        Flax does by default; it cancels catastrophically on offset records.

    Returns
    -------
    y : ndarray, shape of ``z``, float64

    Raises
    ------
    ValueError
        If ``ddof`` is negative or not below ``d``, if a denominator is 0 (``eps == 0`` and
        a record of zero spread), or as for :func:`lnbook.layer_norm`.
    TypeError
        If ``ddof`` is not an integer, or ``eps_inside``, ``center`` or ``fast_variance``
        is not a bool (the string ``'False'`` would otherwise count as true).

    Notes
    -----
    With :math:`s^2 = \\frac{1}{d - \\mathrm{ddof}}\\lVert v \\rVert^2` (or the fast
    :math:`\\max(0, \\overline{z^2} - \\mu^2)\\,\\frac{d}{d-\\mathrm{ddof}}`),

    .. math:: y = \\gamma \\odot \\frac{v}{\\sqrt{s^2 + \\varepsilon}} + \\beta
              \\quad\\text{or}\\quad
              y = \\gamma \\odot \\frac{v}{s + \\varepsilon} + \\beta ,

    where :math:`v = z - \\mu\\mathbf 1` (or :math:`v = z` without centering). The defaults
    with ``eps = 1e-5`` are :func:`lnbook.layer_norm`, whose corrected two-pass statistics
    this function shares (the kernel's, rescaled for tiny and huge records; the fast variance
    is taken literally). See :ref:`ch-frameworks`.

    Examples
    --------
    >>> z = [1.0, 2.0, 3.0, 4.0]
    >>> layer_norm_variant(z, eps=0).round(4)
    array([-1.3416, -0.4472,  0.4472,  1.3416])
    >>> layer_norm_variant(z, eps=0, ddof=1, eps_inside=False).round(4)  # sqrt(3/4) smaller
    array([-1.1619, -0.3873,  0.3873,  1.1619])
    >>> layer_norm_variant([2, 4, 6, 8], eps=0, center=False).round(4)  # RMSNorm
    array([0.3651, 0.7303, 1.0954, 1.4606])
    """
    return _variant(z, gamma, beta, eps, ddof, eps_inside, center, fast_variance)


def convention_layer_norm(
    z: ArrayLike,
    name: str,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float | None = None,
) -> np.ndarray:
    """The layer under one named framework convention from :data:`CONVENTIONS`.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    name : str
        A key of :data:`CONVENTIONS`: ``"pytorch"``, ``"flax"``, ``"keras"``, ``"bert"``,
        ``"annotated"`` or ``"rmsnorm"``.
    gamma, beta : (d,) array_like, optional
        Gain and bias, as in :func:`layer_norm_variant`.
    eps : float, optional
        Overrides the convention's default stabilizer.

    Returns
    -------
    y : ndarray, shape of ``z``, float64

    Raises
    ------
    ValueError
        If ``name`` is not a known convention, or as for :func:`layer_norm_variant`.

    Notes
    -----
    Shorthand for ``layer_norm_variant(z, gamma, beta, **CONVENTIONS[name].options())``.
    See :ref:`ch-frameworks`.

    Examples
    --------
    >>> convention_layer_norm([1, 2, 3, 4], "keras").round(4).tolist()
    [-1.3411, -0.447, 0.447, 1.3411]
    >>> convention_layer_norm([1, 2, 3, 4], "pytorch", eps=0).round(4)
    array([-1.3416, -0.4472,  0.4472,  1.3416])
    """
    if not isinstance(name, str) or name not in CONVENTIONS:
        raise ValueError(f"unknown convention {name!r}; known: {', '.join(CONVENTIONS)}")
    c = CONVENTIONS[name]
    return _variant(z, gamma, beta, c.eps if eps is None else eps, c.ddof, c.eps_inside,
                    c.center, c.fast_variance)


def wrong_axis_layer_norm(z: ArrayLike, *, axis: int = -2, eps: float = EPS) -> np.ndarray:
    """A deliberately wrong layer: statistics over ``axis`` instead of the features.

    With ``axis=-2`` on ``(B, T, d)`` it normalizes each feature across the T positions
    (coupling tokens); with ``axis=0`` across the batch, as BatchNorm does. The output keeps
    the shape, which is why only an audit such as :func:`lnbook.record_audit` catches it.

    Parameters
    ----------
    z : (..., d) array_like
        Records along the last axis.
    axis : int, optional
        The (wrong) axis the statistics are taken over.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    ndarray, shape of ``z``

    Raises
    ------
    ValueError
        If ``axis`` is not an axis of ``z``, if ``eps == 0`` and a slice along ``axis`` is
        constant, or as for :func:`lnbook.core`.

    Notes
    -----
    The kernel's standardization, applied to ``np.moveaxis(z, axis, -1)``. See
    :ref:`ch-records`.

    Examples
    --------
    >>> wrong_axis_layer_norm([[1.0, 5.0], [3.0, 4.0]], axis=0, eps=0)
    array([[-1.,  1.],
           [ 1., -1.]])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    try:
        if isinstance(axis, (bool, np.bool_)):
            raise TypeError
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer; got {axis!r}") from None
    if not -z.ndim <= axis < z.ndim:
        raise ValueError(f"axis = {axis} is not an axis of z, shape {z.shape}")
    # the bug: mu and q over `axis`, not over the last axis
    moved = np.ascontiguousarray(np.moveaxis(z, axis, -1))
    y = _kernel.standardize(moved, eps, unit=f"slice along axis {axis}")
    return np.ascontiguousarray(np.moveaxis(y, -1, axis))
