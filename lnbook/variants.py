"""Relatives of the layer that the book compares it with, and the frameworks' conventions."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .normalize import EPS, _moments

__all__ = [
    "rms_norm",
    "batch_norm",
    "Convention",
    "CONVENTIONS",
    "layer_norm_variant",
    "convention_layer_norm",
]


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

    See the chapter *Exercises*.

    Examples
    --------
    >>> rms_norm([2, 4, 6, 8], eps=0).round(4)
    array([0.3651, 0.7303, 1.0954, 1.4606])
    """
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    # r^2 = (1/d) |z|^2 + eps
    with np.errstate(over="ignore"):
        r2 = _checks.finite_result(np.square(z).mean(axis=-1, keepdims=True) + eps,
                                   "the mean square of a record")
    if (r2 == 0).any():
        raise ValueError("eps = 0 with an all-zero record: its RMS is 0; use eps > 0")
    return z / np.sqrt(r2)


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

    Examples
    --------
    >>> batch_norm([[2, 4, 6, 8]])
    array([[0., 0., 0., 0.]])
    """
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    if z.ndim != 2:
        raise ValueError(f"z must be a batch of shape (B, d); got shape {z.shape}")
    mu = z.mean(axis=0)
    # q_j = (1/B) sum_b (z_bj - mu_j)^2, per feature j
    with np.errstate(over="ignore"):
        q = _checks.finite_result(((z - mu) ** 2).mean(axis=0), "the variance of a feature")
    if (q + eps == 0).any():
        raise ValueError(
            f"eps = 0 with a constant feature column (batch size {z.shape[0]}): 0/0; use eps > 0"
        )
    return (z - mu) / np.sqrt(q + eps)


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


#: The conventions the chapter *The same layer in different frameworks* compares, by key.
CONVENTIONS: dict[str, Convention] = {
    "pytorch": Convention(
        "PyTorch", 1e-5, 0, True, True, False,
        "γ, β; bias=False: γ only; elementwise_affine=False: none",
        "torch.nn.LayerNorm"),
    "flax": Convention(
        "Flax", 1e-6, 0, True, True, True,
        "γ, β (scale, bias); use_scale, use_bias",
        "flax.linen.LayerNorm"),
    "keras": Convention(
        "Keras", 1e-3, 0, True, True, False,
        "γ, β; scale=False, center=False drop them",
        "keras.layers.LayerNormalization, TensorFlow or JAX backend"),
    "bert": Convention(
        "TF1 / BERT", 1e-12, 0, True, True, False,
        "γ, β",
        "tf.contrib.layers.layer_norm"),
    "annotated": Convention(
        "Annotated Transformer", 1e-6, 1, False, True, False,
        "γ, β (a_2, b_2)",
        "x.std(-1) + eps"),
    "rmsnorm": Convention(
        "RMSNorm", float(np.finfo(np.float64).eps), 0, True, False, False,
        "γ only",
        "torch.nn.RMSNorm"),
}


def _checked_ddof(ddof: int, d: int) -> int:
    if isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer)) or ddof < 0:
        raise ValueError(f"ddof must be a non-negative integer; got ddof = {ddof!r}")
    if ddof >= d:
        raise ValueError(f"ddof = {ddof} leaves no degrees of freedom for d = {d} features")
    return int(ddof)


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

    Notes
    -----
    With :math:`s^2 = \\frac{1}{d - \\mathrm{ddof}}\\lVert v \\rVert^2` (or the fast
    :math:`\\max(0, \\overline{z^2} - \\mu^2)\\,\\frac{d}{d-\\mathrm{ddof}}`),

    .. math:: y = \\gamma \\odot \\frac{v}{\\sqrt{s^2 + \\varepsilon}} + \\beta
              \\quad\\text{or}\\quad
              y = \\gamma \\odot \\frac{v}{s + \\varepsilon} + \\beta ,

    where :math:`v = z - \\mu\\mathbf 1` (or :math:`v = z` without centering). The defaults
    with ``eps = 1e-5`` are :func:`lnbook.layer_norm`, whose corrected two-pass statistics
    this function shares. See the chapter *The same layer in different frameworks*.

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
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    d = z.shape[-1]
    ddof = _checked_ddof(ddof, d)
    gamma = _checks.parameter(gamma, d, "gamma")
    beta = _checks.parameter(beta, d, "beta")
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused just below
        if fast_variance:
            mu = z.mean(axis=-1, keepdims=True) if center else np.zeros(z.shape[:-1] + (1,))
            # s^2 = max(0, E[z^2] - mu^2) d/(d - ddof): one pass, cancels when |mu| >> spread
            s2 = np.maximum(0.0, (z * z).mean(axis=-1, keepdims=True) - mu * mu) * (d / (d - ddof))
            v = z - mu
        else:
            v = _moments(z)[1] if center else z.copy()
            # s^2 = |v|^2 / (d - ddof)
            s2 = np.square(v).sum(axis=-1, keepdims=True) / (d - ddof)
    _checks.finite_result(s2, "the variance of a record")
    if eps_inside:
        # denominator sqrt(s^2 + eps)
        denominator = np.sqrt(s2 + eps)
    else:
        # denominator sqrt(s^2) + eps
        denominator = np.sqrt(s2) + eps
    if (denominator == 0).any():
        raise ValueError(
            "eps = 0 with a record of zero spread: the denominator is 0, so the output 0/0 "
            "is undefined; use eps > 0"
        )
    v /= denominator
    # y = gamma ⊙ v / denominator + beta
    if gamma is not None:
        v *= gamma
    if beta is not None:
        v += beta
    return v


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
    See the chapter *The same layer in different frameworks*.

    Examples
    --------
    >>> convention_layer_norm([1, 2, 3, 4], "keras").round(4).tolist()
    [-1.3411, -0.447, 0.447, 1.3411]
    >>> convention_layer_norm([1, 2, 3, 4], "pytorch", eps=0).round(4)
    array([-1.3416, -0.4472,  0.4472,  1.3416])
    """
    if name not in CONVENTIONS:
        raise ValueError(f"unknown convention {name!r}; known: {', '.join(CONVENTIONS)}")
    options = CONVENTIONS[name].options()
    if eps is not None:
        options["eps"] = eps
    return layer_norm_variant(z, gamma, beta, **options)
