"""The book's figures, one function each. The only module that imports matplotlib.

Each ``plot_*`` computes its data with lnbook's numerical functions, draws it on the axes it
is given (or on new ones), and returns the axes, so tests can read back what was drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from .audit import record_audit, wrong_axis_layer_norm
from .centering import weighted_centering_matrix
from .derivatives import jacobian, jacobian_eigenvalues
from .normalize import layer_norm, normalized_variance
from .sensitivity import amplification, lipschitz_bound, operator_norm, response, response_slope

__all__ = [
    "plot_response",
    "plot_normalized_variance",
    "plot_jacobian_eigenvalues",
    "plot_operator_norm",
    "plot_amplification",
    "plot_shift_geometry",
    "plot_weighted_projection",
    "plot_record_audit",
]

EPS_VALUES = (0.01, 0.1, 1.0)


def _axes(ax, n: int = 1, width: float = 6.4):
    if ax is not None:
        return ax
    _, ax = plt.subplots(1, n, figsize=(width, 3.6), layout="constrained")
    return ax


def _records_with_variance(q: np.ndarray, d: int) -> np.ndarray:
    """Records ``(-r, r, 0, ..., 0) * c`` whose population variance is ``q``."""
    base = np.zeros(d)
    base[:2] = (-1.0, 1.0)
    # q(base) = 2/d, so scale by sqrt(q d / 2)
    return np.sqrt(q * d / 2)[:, None] * base


def plot_response(eps_values: Sequence[float] = EPS_VALUES, t: ArrayLike | None = None, axes=None):
    """Response ``h_eps(t)`` and sensitivity ``h'_eps(t)`` on the family ``(-t, 0, t)``.

    Left: the response with dashed asymptotes at ``±sqrt(3/2)``. Right: the slope, with
    each peak ``h'(0) = eps**-0.5`` (the Lipschitz bound) marked. Returns the two axes.
    """
    t = np.linspace(-3, 3, 601) if t is None else np.asarray(t, dtype=float)
    left, right = _axes(axes, 2, width=9.6)
    for eps in eps_values:
        (line,) = left.plot(t, response(t, eps=eps), label=f"ε = {eps:g}")
        right.plot(t, response_slope(t, eps=eps), color=line.get_color(), label=f"ε = {eps:g}")
        right.plot([0.0], [lipschitz_bound(eps=eps)], "o", color=line.get_color())
    for sign in (1, -1):
        left.axhline(sign * np.sqrt(1.5), linestyle="--", color="0.4", linewidth=1)
    left.set(xlabel="t", ylabel="h_ε(t)", title="response of u₃ to (−t, 0, t)")
    right.set(xlabel="t", ylabel="h′_ε(t)", yscale="log", title="sensitivity; peak ε^(−1/2)")
    left.legend(loc="lower right")
    right.legend(loc="upper right")
    return left, right


def plot_normalized_variance(eps_values: Sequence[float] = EPS_VALUES, ax=None):
    """Mean square of the core, ``q / (q + eps)``, against the variance ``q``."""
    ax = _axes(ax)
    q = np.logspace(-4, 2, 241)
    for eps in eps_values:
        (line,) = ax.plot(q, normalized_variance(_records_with_variance(q, 3), eps=eps),
                          label=f"ε = {eps:g}")
        ax.plot([eps], [0.5], "o", color=line.get_color())
    ax.axhline(1.0, linestyle="--", color="0.4", linewidth=1)
    ax.set(xscale="log", xlabel="variance q", ylabel="(1/d) Σ u_i²", ylim=(0, 1.05),
           title="normalized variance q/(q+ε); ½ at q = ε")
    ax.legend(loc="upper left")
    return ax


def plot_jacobian_eigenvalues(eps: float = 0.1, d: int = 4, ax=None):
    """Eigenvalues of the core's Jacobian against ``q``: closed form (lines), eigvalsh (dots)."""
    ax = _axes(ax)
    q = np.logspace(-3, 2, 201)
    radial, tangential = jacobian_eigenvalues(_records_with_variance(q, d), eps=eps)
    ax.plot(q, tangential, label="(q+ε)^(−1/2)  on w ⟂ 1, v")
    ax.plot(q, radial, label="ε/(q+ε)^(3/2)  on v")
    ax.plot(q, np.zeros_like(q), label="0  on 1")
    sample = np.logspace(-3, 2, 11)
    numeric = np.linalg.eigvalsh(jacobian(_records_with_variance(sample, d), eps=eps))
    ax.plot(np.repeat(sample, d), numeric.ravel(), "k.", label="eigvalsh of J")
    ax.axhline(eps**-0.5, linestyle="--", color="0.4", linewidth=1)
    ax.set(xscale="log", xlabel="variance q", ylabel="eigenvalue",
           title=f"eigenvalues of Du_ε (d = {d}, ε = {eps:g}); dashed ε^(−1/2)")
    ax.legend(loc="upper right")
    return ax


def plot_operator_norm(eps: float = 0.1, dims: Sequence[int] = (2, 3), ax=None):
    """Operator norm of the core's Jacobian against ``q``, with the bound ``eps**-0.5``."""
    ax = _axes(ax)
    q = np.logspace(-3, 2, 201)
    for d in dims:
        ax.plot(q, operator_norm(_records_with_variance(q, d), eps=eps), label=f"d = {d}")
    ax.axhline(lipschitz_bound(eps=eps), linestyle="--", color="0.4", label="bound ε^(−1/2)")
    ax.set(xscale="log", yscale="log", xlabel="variance q", ylabel="‖Du_ε(z)‖₂",
           title=f"local amplification (ε = {eps:g})")
    ax.legend(loc="lower left")
    return ax


def plot_amplification(z: ArrayLike = (7.0, 7.0), h: ArrayLike = (1e-3, -1e-3), ax=None):
    """Finite ratio ``||u(z+h) - u(z)|| / ||h||`` against ``eps``, beside ``eps**-0.5``."""
    ax = _axes(ax)
    eps = np.logspace(-8, 0, 161)
    ratio = [float(amplification(z, h, eps=e)) for e in eps]
    ax.plot(eps, ratio, label="finite ratio")
    ax.plot(eps, eps**-0.5, "--", color="0.4", label="bound ε^(−1/2)")
    ax.set(xscale="log", yscale="log", xlabel="ε", ylabel="amplification",
           title=f"z = {tuple(np.asarray(z).tolist())}, h = {tuple(np.asarray(h).tolist())}")
    ax.legend(loc="upper right")
    return ax


def plot_shift_geometry(z: ArrayLike = (2.0, 0.5), shifts: ArrayLike = (-1.5, 0.0, 1.0, 2.0),
                        ax=None):
    """Records ``z + c 1`` all project, along ``1``, to the same point ``P z`` of the line ⟂ 1."""
    ax = _axes(ax, width=4.8)
    z = np.asarray(z, dtype=float)
    Pz = z - z.mean()
    s = np.linspace(-4, 4, 2)
    ax.plot(s, -s, color="0.3", label="plane ⟂ 1 (Σ z_i = 0)")
    ax.plot(s, s, ":", color="0.6", label="span{1}")
    for c in np.asarray(shifts, dtype=float):
        p = z + c
        ax.plot([p[0], Pz[0]], [p[1], Pz[1]], "--", color="C0", linewidth=1)
        ax.plot(*p, "o", color="C0")
    ax.plot(*Pz, "o", color="C3", markersize=8, label="P z, shared by all")
    ax.set(aspect="equal", xlim=(-3, 5), ylim=(-3, 5), xlabel="z₁", ylabel="z₂",
           title="z + c1 for several c")
    ax.legend(loc="lower left", fontsize="small")
    return ax


def plot_weighted_projection(a: ArrayLike = (0.25, 0.75), x: ArrayLike = (4.0, 2.0), ax=None):
    """Oblique projection ``P_a x`` (along 1) and orthogonal projection onto ``ker a^T``."""
    ax = _axes(ax, width=4.8)
    a, x = np.asarray(a, dtype=float), np.asarray(x, dtype=float)
    oblique = weighted_centering_matrix(a) @ x
    direction = np.array([a[1], -a[0]]) / np.hypot(*a)
    orthogonal = (direction @ x) * direction
    s = np.linspace(-5, 5, 2)
    ax.plot(s * direction[0], s * direction[1], color="0.3", label="line aᵀy = 0")
    ax.plot(*x, "ko", label="x")
    ax.plot([x[0], oblique[0]], [x[1], oblique[1]], "--", color="C0")
    ax.plot(*oblique, "o", color="C0", label="P_a x (along 1)")
    ax.plot([x[0], orthogonal[0]], [x[1], orthogonal[1]], "--", color="C3")
    ax.plot(*orthogonal, "s", color="C3", label="orthogonal projection")
    ax.set(aspect="equal", xlim=(-1, 5), ylim=(-2, 3), xlabel="x₁", ylabel="x₂",
           title=f"a = {tuple(a.tolist())}")
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_record_audit(shape: tuple[int, int, int] = (2, 4, 6), record: tuple[int, int] = (1, 2),
                      axes=None):
    """Which records move when one record changes: the layer vs a wrong-axis implementation."""
    left, right = _axes(axes, 2, width=8.0)
    z = np.random.default_rng(0).normal(size=shape)
    for ax, (name, layer) in zip(
        (left, right),
        (("layer_norm (last axis)", layer_norm),
         ("statistics over T (wrong axis)", wrong_axis_layer_norm)),
    ):
        moved = record_audit(layer, z, record)
        ax.imshow(moved > 0, cmap="Reds", vmin=0, vmax=1)
        ax.plot(record[1], record[0], "kx", markersize=10)
        ax.set(title=name, xlabel="position t", ylabel="batch item b",
               xticks=range(shape[1]), yticks=range(shape[0]))
    return left, right
