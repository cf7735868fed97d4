"""LayerNorm inside a residual stack, forward and backward (the toolkit of the chapter
:ref:`ch-transformer`): Pre-LN blocks ``y = z + F(LN(z))`` with a final LayerNorm, Post-LN
blocks ``y = LN(z + F(z))``, where ``F(a) = W2 relu(W1 a + b1) + b2`` and ``LN`` is the full
layer ``gamma ⊙ u_eps + beta``. Each LayerNorm keeps the kernel's core ``u`` and scale ``s``,
and the backward pass applies to them the routines of :func:`lnbook.input_grad` and
:func:`lnbook.param_grads`. Also RMSNorm's Jacobian, :func:`rms_jacobian`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["init_blocks", "residual_forward", "residual_backward", "layer_gradient_norms",
           "rms_jacobian"]

_PLACEMENTS = ("pre", "post")
_KEYS = ("W1", "b1", "W2", "b2", "gamma", "beta")


def _block_entries(L: int, d: int, m: int) -> int:
    """How many numbers the parameters of ``L`` blocks hold: W1 (m, d), b1 (m,), W2 (d, m) and
    three vectors of d (b2 and the LayerNorm's gain and bias) per block."""
    return L * (2 * m * d + m + 3 * d)


@_checks.public
def init_blocks(L: int, d: int, *, m: int | None = None, seed: int = 0) -> list[dict]:
    """The parameters of ``L`` residual blocks at a seeded Gaussian initialization.

    Parameters
    ----------
    L : int
        Number of blocks (the depth).
    d : int
        Number of features of a record.
    m : int, optional
        Hidden width of each perceptron ``F`` (default ``2 d``).
    seed : int, optional
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    list of dict
        Per block ``W1 (m, d)``, ``b1 (m,)``, ``W2 (d, m)``, ``b2 (d,)``, ``gamma (d,)``,
        ``beta (d,)``.

    Raises
    ------
    ValueError, TypeError
        If a count or the seed is not a positive (non-negative) integer, or the parameters
        would not fit.

    Notes
    -----
    Weights are drawn with variance ``1 / fan_in`` (``W1 ~ N(0, 1/d)``, ``W2 ~ N(0, 1/m)``);
    biases start at 0, gains at 1, as PyTorch initializes a LayerNorm. See
    :ref:`ch-transformer`.

    Examples
    --------
    >>> blocks = init_blocks(2, 4, m=6, seed=0)
    >>> len(blocks), blocks[0]["W1"].shape, blocks[0]["W2"].shape
    (2, (6, 4), (4, 6))
    """
    L, d = _checks.count(L, "L"), _checks.count(d, "d")
    m = 2 * d if m is None else _checks.count(m, "m")
    seed = _checks.seed(seed)
    _checks.fits(_block_entries(L, d, m), f"the parameters of L = {L} blocks of d = {d} "
                 f"and m = {m}")
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(L):
        blocks.append({
            # W1 ~ N(0, 1/d), W2 ~ N(0, 1/m)
            "W1": rng.normal(scale=d**-0.5, size=(m, d)),
            "b1": np.zeros(m),
            "W2": rng.normal(scale=m**-0.5, size=(d, m)),
            "b2": np.zeros(d),
            "gamma": np.ones(d),
            "beta": np.zeros(d),
        })
    return blocks


def _checked(z: ArrayLike, blocks: list[dict], placement: str) -> tuple[np.ndarray, list[dict]]:
    """The records and the blocks' parameters, as float64 arrays of the right shapes."""
    _checks.choice(placement, "placement", _PLACEMENTS)
    z = _checks.records(z)
    if not isinstance(blocks, (list, tuple)):
        raise TypeError(f"blocks must be a list of parameter dicts (see init_blocks); got "
                        f"{_checks.show(blocks)}")
    if not blocks:
        raise ValueError("blocks must be a non-empty list of parameter dicts (see init_blocks)")
    d = z.shape[-1]
    checked = []
    for k, p in enumerate(blocks):
        if not isinstance(p, Mapping):
            raise TypeError(f"blocks[{k}] must be a dict of parameters; got {_checks.show(p)}")
        missing = [key for key in _KEYS if key not in p]
        if missing:
            raise ValueError(f"blocks[{k}] lacks the parameters {missing}")
        arrays = {key: _checks.real_array(p[key], f"blocks[{k}]['{key}']") for key in _KEYS}
        m = arrays["W1"].shape[0] if arrays["W1"].ndim == 2 and arrays["W1"].size else -1
        shapes = {"W1": (m, d), "b1": (m,), "W2": (d, m), "b2": (d,), "gamma": (d,), "beta": (d,)}
        for key, shape in shapes.items():
            if arrays[key].shape != shape:
                raise ValueError(f"blocks[{k}][{key!r}] must have shape {shape} for d = {d}; "
                                 f"got shape {arrays[key].shape}")
        checked.append(arrays)
    return z, checked


def _mlp(a: np.ndarray, p: dict) -> tuple[np.ndarray, np.ndarray]:
    # h = W1 a + b1,  F(a) = W2 relu(h) + b2
    h = a @ p["W1"].T + p["b1"]
    return np.maximum(h, 0.0) @ p["W2"].T + p["b2"], h


def _mlp_backward(a: np.ndarray, h: np.ndarray, gf: np.ndarray, p: dict, grads: dict) -> np.ndarray:
    """Accumulate ``F``'s parameter gradients into ``grads``; return ``dl/da``."""
    lead = tuple(range(a.ndim - 1))
    r = np.maximum(h, 0.0)
    # dl/dW2 = sum_records gf r^T,  dl/db2 = sum gf
    grads["W2"] = np.tensordot(gf, r, axes=(lead, lead))
    grads["b2"] = gf.sum(axis=lead)
    # dl/dh = (W2^T gf) ⊙ [h > 0]
    gh = (gf @ p["W2"]) * (h > 0)
    grads["W1"] = np.tensordot(gh, a, axes=(lead, lead))
    grads["b1"] = gh.sum(axis=lead)
    # dl/da = W1^T gh
    return gh @ p["W1"]


@_checks.public
def residual_forward(z: ArrayLike, blocks: list[dict], *, placement: str = "pre",
                     eps: float = EPS) -> np.ndarray:
    """Output of a stack of residual blocks with LayerNorm before (Pre-LN) or after (Post-LN).

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Input records.
    blocks : list of dict
        Parameters, as :func:`init_blocks` returns them.
    placement : {"pre", "post"}, optional
        ``"pre"``: ``z <- z + F(LN(z))`` per block, then a final ``u_eps``; ``"post"``:
        ``z <- LN(z + F(z))`` per block.
    eps : float, optional
        Stabilizer of every LayerNorm.

    Returns
    -------
    ndarray
        The stack's output.

    Raises
    ------
    ValueError, TypeError
        For bad records, ``eps`` or ``placement``, a block that is not a dict of finite
        parameters of the right shapes, or a residual stream that overflows.

    Notes
    -----
    Pre-LN (:cite:t:`xiong2020layer`): :math:`z \\leftarrow z + F(\\mathrm{LN}(z))`, then a
    final :math:`u_\\varepsilon`; Post-LN (:cite:t:`vaswani2017attention`):
    :math:`z \\leftarrow \\mathrm{LN}(z + F(z))`. See :ref:`ch-transformer`.

    References
    ----------
    :cite:t:`vaswani2017attention`; :cite:t:`xiong2020layer`.

    Examples
    --------
    >>> blocks = init_blocks(3, 4, seed=1)
    >>> y = residual_forward([[1.0, 2.0, 3.0, 4.0]], blocks, placement="post", eps=1e-5)
    >>> bool(abs(y.mean()) < 1e-12), round(float((y**2).mean()), 4)
    (True, 1.0)
    """
    return _forward(z, blocks, placement, eps)[0]


def _forward(z: ArrayLike, blocks: list[dict], placement: str,
             eps: float) -> tuple[np.ndarray, list, list[dict]]:
    """The stack's output, per LayerNorm what its backward pass needs (the kernel's u and s,
    computed once), and the checked blocks."""
    eps = _checks.eps_value(eps)
    xs, blocks = _checked(z, blocks, placement)
    cache: list = []
    for k, p in enumerate(blocks):
        if placement == "pre":
            # y = x + F(LN(x)), LN(x) = gamma ⊙ u + beta
            u, s = _kernel.core_parts(xs, eps)
            a = u * p["gamma"] + p["beta"]
            f, h = _mlp(a, p)
            cache.append((u, s, a, h))
            xs = xs + f
        else:
            # y = LN(x + F(x))
            f, h = _mlp(xs, p)
            u, s = _kernel.core_parts(xs + f, eps)
            cache.append((u, s, xs, h))
            xs = u * p["gamma"] + p["beta"]
        _checks.finite_result(xs, f"the residual stream of z after block {k} of blocks")
    if placement == "pre":
        # the final LayerNorm (unit gain, zero bias)
        xs, s = _kernel.core_parts(xs, eps)
        cache.append((xs, s))
    return xs, cache, blocks


@_checks.public
def residual_backward(z: ArrayLike, g: ArrayLike, blocks: list[dict], *, placement: str = "pre",
                      eps: float = EPS) -> tuple[np.ndarray, list[dict]]:
    """The gradients of a scalar loss through the stack of :func:`residual_forward`.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Input records.
    g : array_like, shape of ``z``
        Upstream gradient ``dl/dy`` of the stack's output.
    blocks : list of dict
        Parameters, as :func:`init_blocks` returns them.
    placement : {"pre", "post"}, optional
        As for :func:`residual_forward`.
    eps : float, optional
        Stabilizer of every LayerNorm.

    Returns
    -------
    dz : ndarray, shape of ``z``
        ``dl/dz``.
    grads : list of dict
        Per block, the gradient of every parameter, summed over records.

    Raises
    ------
    ValueError, TypeError
        As for :func:`residual_forward`; if ``g`` does not have the shape of ``z``, or a
        gradient overflows float64.

    Notes
    -----
    Each LayerNorm is differentiated by the routines of :func:`lnbook.input_grad` and
    :func:`lnbook.param_grads`, from the ``u`` and ``s`` its forward pass kept; the residual
    connection adds the identity: Pre-LN ``dl/dz = dl/dy + J_LN^T (dl/da)``, Post-LN
    ``dl/dz = (I + DF^T) J_LN^T dl/dy``. See :ref:`ch-transformer`.

    References
    ----------
    :cite:t:`xiong2020layer`

    Examples
    --------
    >>> dz, grads = residual_backward([[1.0, 2.0, 3.0, 4.0]], [[1.0, 0, 0, 0]], init_blocks(2, 4))
    >>> dz.shape, sorted(grads[0])
    ((1, 4), ['W1', 'W2', 'b1', 'b2', 'beta', 'gamma'])
    """
    y, cache, blocks = _forward(z, blocks, placement, eps)
    eps = float(eps)
    gy = _checks.same_shape(g, y)
    grads: list[dict] = [{} for _ in blocks]
    if placement == "pre":
        # the final LayerNorm (unit gain, zero bias): dl/dy <- J^T dl/dy
        u, s = cache[-1]
        gy = _kernel.input_vjp(u, s, gy, None, eps)
    for k in reversed(range(len(blocks))):
        p, gk = blocks[k], grads[k]
        if placement == "pre":
            u, s, a, h = cache[k]
            ga = _mlp_backward(a, h, gy, p, gk)
            gk["gamma"], gk["beta"] = _kernel.param_vjp(u, ga)
            # dl/dz = dl/dy + J_LN^T dl/da
            gy = gy + _kernel.input_vjp(u, s, ga, p["gamma"], eps)
        else:
            u, s, xin, h = cache[k]
            gk["gamma"], gk["beta"] = _kernel.param_vjp(u, gy)
            gp = _kernel.input_vjp(u, s, gy, p["gamma"], eps)
            # dl/dz = dl/dp + DF^T dl/dp, p = z + F(z)
            gy = gp + _mlp_backward(xin, h, gp, p, gk)
    _checks.finite_result(gy, "the gradient dl/dz of the stack at z (with g and blocks)")
    for k, gk in enumerate(grads):
        for key, value in gk.items():
            _checks.finite_result(value, f"the gradient of blocks[{k}][{key!r}] (with z and g)")
    return gy, grads


@_checks.public
def layer_gradient_norms(L: int, *, d: int = 64, m: int | None = None, T: int = 8,
                         placement: str = "pre", seed: int = 0, eps: float = EPS) -> np.ndarray:
    """Norm of ``dl/dW2`` in every block of a freshly initialized stack.

    Parameters
    ----------
    L : int
        Depth (number of blocks).
    d, m : int, optional
        Features of a record and hidden width (default ``2 d``), as for :func:`init_blocks`.
    T : int, optional
        Number of records (tokens) in the input.
    placement : {"pre", "post"}, optional
        As for :func:`residual_forward`.
    seed : int, optional
        Seeds the blocks (``seed``), the input ``z ~ N(0, I)`` (``seed + 1``) and ``C ~ N(0, I)``
        of the loss ``l = sum(C ⊙ y)`` (``seed + 2``).
    eps : float, optional
        Stabilizer of every LayerNorm.

    Returns
    -------
    (L,) ndarray
        ``||dl/dW2||_F`` of block ``1 .. L`` (input side first).

    Raises
    ------
    ValueError, TypeError
        As for :func:`init_blocks` and :func:`residual_forward`.

    Notes
    -----
    At initialization the last block's norm falls with the depth under Pre-LN and not under
    Post-LN (:cite:t:`xiong2020layer`). See :ref:`ch-transformer`.

    References
    ----------
    :cite:t:`xiong2020layer`

    Examples
    --------
    >>> layer_gradient_norms(3, d=8, T=2, placement="post").shape
    (3,)
    """
    T = _checks.count(T, "T")
    _checks.choice(placement, "placement", _PLACEMENTS)
    eps = _checks.eps_value(eps)
    blocks = init_blocks(L, d, m=m, seed=seed)  # checks L, d, m and seed
    _checks.fits(T * d, f"the input of T = {T} records of d = {d}")
    z = np.random.default_rng(seed + 1).normal(size=(T, d))
    # l = sum(C ⊙ y), so dl/dy = C
    C = np.random.default_rng(seed + 2).normal(size=(T, d))
    _, grads = residual_backward(z, C, blocks, placement=placement, eps=eps)
    # ||dl/dW2||_F, summed in a fixed order (no BLAS)
    return np.array([np.sqrt(np.sum(np.square(gk["W2"]).ravel())) for gk in grads])


@_checks.public
def rms_jacobian(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """Input Jacobian of RMSNorm's core ``z / r``, ``r = sqrt((1/d)|z|^2 + eps)``.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    (..., d, d) ndarray
        Symmetric; eigenvalue ``eps / r**3`` on ``z``, ``1 / r`` on every ``w ⊥ z``.

    Raises
    ------
    ValueError, TypeError
        As for :func:`lnbook.rms_norm`, or if the result would not fit.

    Notes
    -----
    .. math:: \\begin{aligned}
              D\\Big(\\frac{z}{r}\\Big) &= \\frac{I}{r} - \\frac{z z^\\top}{d\\, r^3},
              \\\\ r &= \\sqrt{\\tfrac1d \\lVert z\\rVert_2^2 + \\varepsilon} \\end{aligned}

    LayerNorm's core is RMSNorm applied to the centered record, so its Jacobian is
    ``rms_jacobian(P z) @ P``. For ``d = 1`` it is :math:`\\varepsilon / r^3`, computed as
    such. See :ref:`ch-transformer`.

    Examples
    --------
    >>> rms_jacobian([3.0, 4.0], eps=0) * 12.5**1.5  # r^2 = 12.5; J z = 0 when eps = 0
    array([[ 8. , -6. ],
           [-6. ,  4.5]])
    """
    z = _checks.records(z)
    eps = _checks.eps_value(eps)
    d = z.shape[-1]
    n = z.size // d
    _checks.fits(n * d * d, f"the RMSNorm Jacobian of z ({n} records with d = {d})",
                 ": compute it for fewer records at a time")
    # the kernel's statistics about 0, rescaled by 2**k where needed: v' = 2**k z and
    # s' = 2**k r with r = sqrt((1/d) |z|^2 + eps); it refuses eps = 0 with an all-zero record
    _, v, q, k = _kernel.moments(z.reshape(-1, d), eps, center=False)
    s = _kernel.denominator(q, k, eps, lead=z.shape[:-1], center=False)
    u = (v / s).reshape(z.shape)  # z / r
    r = np.ldexp(s, -k).reshape(z.shape[:-1] + (1, 1))
    if d == 1:
        # J = 1/r - z^2/r^3 = eps / r^3, in that form (1 - u^2 would cancel when eps << z^2)
        J = _kernel.radial(r, eps)
    else:
        # J = I / r - z z^T / (d r^3) = (I - u u^T / d) / r
        J = (np.eye(d) - u[..., :, None] * u[..., None, :] / d) / r
    return _checks.finite_result(J, "the RMSNorm Jacobian of z (with eps)")
