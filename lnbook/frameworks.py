"""The frameworks' conventions for the layer (divisor, stabilizer placement, centering, the
variance's algorithm): the kernel's standardization with their options (the toolkit of the
chapter :ref:`ch-frameworks`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel

__all__ = ["CONVENTIONS", "layer_norm_variant", "convention_layer_norm"]


@dataclass(frozen=True, kw_only=True)
class _Convention:
    """One framework's choices: the fields of each entry of :data:`CONVENTIONS`."""

    label: str  # the framework's name, for tables
    eps: float  # its default stabilizer
    ddof: int  # the variance divides by d - ddof
    eps_inside: bool  # sqrt(var + eps), or sqrt(var) + eps
    center: bool  # subtract the mean, or RMSNorm's mean square about 0
    fast_variance: bool  # the variance as E[z^2] - E[z]^2 clipped at 0
    params: str  # the learned parameters, with the options that drop them
    source: str  # the layer or expression that implements it


#: The conventions the chapter :ref:`ch-frameworks` compares, by key (read-only). Each entry
#: is a frozen record with the fields ``label`` (the framework's name), ``eps`` (its default
#: stabilizer), ``ddof`` (the variance divides by ``d - ddof``), ``eps_inside``
#: (``sqrt(var + eps)`` or ``sqrt(var) + eps``), ``center`` (``False``: RMSNorm's mean square
#: about 0), ``fast_variance`` (the variance as ``E[z^2] - E[z]^2`` clipped at 0),
#: ``params`` (the learned parameters) and ``source`` (the layer that implements it).
CONVENTIONS: Mapping[str, _Convention] = MappingProxyType({
    "pytorch": _Convention(
        label="PyTorch", eps=1e-5, ddof=0, eps_inside=True, center=True, fast_variance=False,
        params="γ, β; bias=False: γ only; elementwise_affine=False: none",
        source="torch.nn.LayerNorm"),
    "flax": _Convention(
        label="Flax", eps=1e-6, ddof=0, eps_inside=True, center=True, fast_variance=True,
        params="γ, β (scale, bias); use_scale, use_bias", source="flax.linen.LayerNorm"),
    "keras": _Convention(
        label="Keras", eps=1e-3, ddof=0, eps_inside=True, center=True, fast_variance=False,
        params="γ, β; scale=False, center=False drop them",
        source="keras.layers.LayerNormalization, TensorFlow or JAX backend"),
    "bert": _Convention(
        label="TF1 / BERT", eps=1e-12, ddof=0, eps_inside=True, center=True,
        fast_variance=False, params="γ, β", source="tf.contrib.layers.layer_norm"),
    "annotated": _Convention(
        label="Annotated Transformer", eps=1e-6, ddof=1, eps_inside=False, center=True,
        fast_variance=False, params="γ, β (a_2, b_2)", source="x.std(-1) + eps"),
    "rmsnorm": _Convention(
        label="RMSNorm", eps=float(np.finfo(np.float64).eps), ddof=0, eps_inside=True,
        center=False, fast_variance=False, params="γ only", source="torch.nn.RMSNorm"),
})


def _checked_ddof(ddof: int, d: int) -> int:
    ddof = _checks.count(ddof, "ddof", minimum=0)
    if ddof >= d:
        raise ValueError(f"ddof = {ddof} leaves no degrees of freedom for d = {d} features")
    return ddof


def _variant(z: ArrayLike, gamma: ArrayLike | None, beta: ArrayLike | None, eps: float, ddof: int,
             eps_inside: bool, center: bool, fast_variance: bool) -> np.ndarray:
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


@_checks.public
def layer_norm_variant(z: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
                       *, eps: float, ddof: int = 0, eps_inside: bool = True, center: bool = True,
                       fast_variance: bool = False) -> np.ndarray:
    """The layer as a framework defines it: divisor, eps placement, centering, variance.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    gamma, beta : (d,) array_like, optional
        Gain and bias; ``None`` means ones and zeros (``beta=None`` alone is PyTorch's
        ``bias=False``).
    eps : float
        Stabilizer (no default: every framework picks its own, see :data:`CONVENTIONS`).
    ddof : int, optional
        The variance divides by ``d - ddof``: 0 for the book's ``q``, 1 for ``torch.std``'s.
    eps_inside : bool, optional
        ``True`` divides by ``sqrt(var + eps)``; ``False`` by ``sqrt(var) + eps``.
    center : bool, optional
        ``False`` skips the mean: the spread is the mean square about 0 (RMSNorm).
    fast_variance : bool, optional
        ``True`` takes the variance as ``E[z^2] - E[z]^2`` clipped at 0, literally, as Flax
        does by default (it cancels catastrophically on offset records).

    Returns
    -------
    ndarray
        The output of every record under these choices.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.layer_norm`; if ``ddof`` is not an integer below ``d``, or an
        option not a bool (the string ``'False'`` would count as true).

    Notes
    -----
    .. formula $s^2 = \\frac{1}{d - \\mathrm{ddof}}\\lVert v \\rVert^2$ not checked: ddof is the
       function's option

    With :math:`s^2 = \\frac{1}{d - \\mathrm{ddof}}\\lVert v \\rVert^2` (or the fast
    :math:`\\max(0, \\overline{z^2} - \\mu^2)\\,\\frac{d}{d-\\mathrm{ddof}}`),

    .. formula not checked: two alternatives, one per option of the function

    .. math:: \\begin{aligned} y &= \\gamma \\odot \\frac{v}{\\sqrt{s^2 + \\varepsilon}} + \\beta
              \\quad\\text{or} \\\\ y &= \\gamma \\odot \\frac{v}{s + \\varepsilon} + \\beta ,
              \\end{aligned}

    .. formula $v = z$ not checked: the option without centering

    where :math:`v = z - \\mu\\mathbf 1` (or :math:`v = z` without centering). The defaults
    with ``eps = 1e-5`` are :func:`lnbook.layer_norm`, whose corrected two-pass statistics
    this function shares (the kernel's, rescaled for tiny and huge records; the fast variance
    is taken literally). See :ref:`ch-frameworks`.

    References
    ----------
    :cite:t:`pytorch_layernorm`; :cite:t:`flax_normalization`; :cite:t:`chc_keras_3151`;
    :cite:t:`zhang2019root` (no centering).

    Examples
    --------
    >>> layer_norm_variant([1.0, 2.0, 3.0, 4.0], eps=0, ddof=1, eps_inside=False).round(4)
    array([-1.1619, -0.3873,  0.3873,  1.1619])
    """
    return _variant(z, gamma, beta, eps, ddof, eps_inside, center, fast_variance)


@_checks.public
def convention_layer_norm(z: ArrayLike, gamma: ArrayLike | None = None,
                          beta: ArrayLike | None = None, *, convention: str,
                          eps: float | None = None) -> np.ndarray:
    """The layer under one named framework convention from :data:`CONVENTIONS`.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    gamma, beta : (d,) array_like, optional
        Gain and bias, as in :func:`layer_norm_variant`.
    convention : str
        A key of :data:`CONVENTIONS` (no default).
    eps : float, optional
        Overrides the convention's stabilizer.

    Returns
    -------
    ndarray
        The output of every record under the convention.

    Raises
    ------
    ValueError, TypeError
        As for :func:`layer_norm_variant`, and if ``convention`` is not a key of
        :data:`CONVENTIONS`.

    Notes
    -----
    :func:`layer_norm_variant` with the choices of ``CONVENTIONS[convention]``.
    See :ref:`ch-frameworks`.

    References
    ----------
    :cite:t:`pytorch_layernorm`; :cite:t:`flax_normalization`; :cite:t:`chc_keras_3151`;
    :cite:t:`devlin2019bert` (TF1 / BERT); :cite:t:`rush2018annotated`;
    :cite:t:`chc_torch_rmsnorm_2130`.

    Examples
    --------
    >>> convention_layer_norm([1, 2, 3, 4], convention="keras").round(4).tolist()
    [-1.3411, -0.447, 0.447, 1.3411]
    """
    c = CONVENTIONS[_checks.choice(convention, "convention", list(CONVENTIONS))]
    return _variant(z, gamma, beta, c.eps if eps is None else eps, c.ddof, c.eps_inside,
                    c.center, c.fast_variance)
