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
from .normalize import core, layer_norm, normalized_variance
from .sensitivity import amplification, lipschitz_bound, operator_norm, response, response_slope
from .variants import CONVENTIONS, convention_layer_norm

__all__ = [
    "plot_response",
    "plot_normalized_variance",
    "plot_jacobian_eigenvalues",
    "plot_operator_norm",
    "plot_amplification",
    "plot_shift_geometry",
    "plot_weighted_projection",
    "plot_record_audit",
    "plot_gain_effect",
    "plot_bias_shift",
    "plot_core_bound",
    "plot_offset_error",
    "plot_eps_placement",
    # H-new
    "plot_placement_gradients",
    "plot_geometry_picture",
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
    ax.plot(q, tangential, label="(q+ε)^(−1/2)  on w ⊥ 1, v")
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
    ax.plot(s, -s, color="0.3", label="plane ⊥ 1 (Σ z_i = 0)")
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


def _grouped_bars(ax, series: Sequence[tuple[str, np.ndarray]], width: float = 0.8):
    """Draw each ``(label, values)`` as one bar group member per coordinate; return positions."""
    i = np.arange(len(series[0][1]))
    w = width / len(series)
    for k, (label, values) in enumerate(series):
        ax.bar(i + (k - (len(series) - 1) / 2) * w, values, w, label=label)
    ax.axhline(0.0, color="0.3", linewidth=0.8)
    return i


def plot_gain_effect(z: ArrayLike = (1.0, 1.0, -2.0), gamma: ArrayLike = (2.0, 0.0, -1.0),
                     eps: float = 2.0, ax=None):
    """Core ``u_eps(z)`` beside ``gamma ⊙ u_eps(z)``, coordinate by coordinate (bias 0).

    Parameters
    ----------
    z : (d,) array_like
        One record.
    gamma : (d,) array_like
        Gain.
    eps : float, optional
        Stabilizer.
    ax : matplotlib Axes, optional
        Where to draw; new axes if omitted.

    Returns
    -------
    ax : matplotlib Axes
        ``ax.containers[0]`` holds the core's bars, ``ax.containers[1]`` the scaled core's:
        a zero gain flattens its bar and a negative gain flips it. See the chapter *Gain*.

    Examples
    --------
    >>> ax = plot_gain_effect((1, 1, -2), (2, 0, -1), eps=2)
    >>> [float(bar.get_height()) for bar in ax.containers[1]]
    [1.0, 0.0, 1.0]
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    gamma = np.asarray(gamma, dtype=float)
    u = core(z, eps=eps)
    # y = gamma ⊙ u (beta = 0)
    y = layer_norm(z, gamma=gamma, eps=eps)
    i = _grouped_bars(ax, [("core u", u), ("γ ⊙ u", y)])
    ax.set(xticks=i, xticklabels=[f"i = {k + 1}\nγ = {g:g}" for k, g in enumerate(gamma)],
           ylabel="value", title=f"z = {tuple(np.asarray(z, dtype=float).tolist())}, ε = {eps:g}")
    ax.legend(loc="lower left")
    return ax


def plot_bias_shift(records: Sequence[ArrayLike] = ((3.0, 3.0, 3.0), (2.0, 3.0, 4.0)),
                    gamma: ArrayLike = (2.0, 0.5, -1.0), beta: ArrayLike = (1.0, -1.0, 2.0),
                    eps: float = 1e-5, axes=None):
    """Core, ``gamma ⊙ u`` and output ``gamma ⊙ u + beta`` for each record, one panel each.

    Parameters
    ----------
    records : sequence of (d,) array_like
        The records, one panel each.
    gamma, beta : (d,) array_like
        Gain and bias.
    eps : float, optional
        Stabilizer.
    axes : sequence of matplotlib Axes, optional
        One per record; new axes if omitted.

    Returns
    -------
    tuple of matplotlib Axes
        In each, ``ax.containers`` holds the bars of the core, the scaled core and the output,
        in that order; the dashed line is the output's mean. See the chapter *Bias*.

    Examples
    --------
    >>> axes = plot_bias_shift([(3, 3, 3)], gamma=(2, 0.5, -1), beta=(1, -1, 2))
    >>> [float(bar.get_height()) for bar in axes[0].containers[2]]
    [1.0, -1.0, 2.0]
    >>> plt.close(axes[0].figure)
    """
    axes = _axes(axes, len(records), width=4.8 * len(records))
    axes = np.atleast_1d(axes)
    for ax, z in zip(axes, records):
        u = core(z, eps=eps)
        scaled = layer_norm(z, gamma=gamma, eps=eps)
        # y = gamma ⊙ u + beta
        y = layer_norm(z, gamma=gamma, beta=beta, eps=eps)
        i = _grouped_bars(ax, [("core u", u), ("γ ⊙ u", scaled), ("output y", y)])
        ax.axhline(y.mean(), linestyle="--", color="0.4", linewidth=1,
                   label=f"mean of y = {y.mean():.3f}")
        ax.set(xticks=i, xticklabels=[f"i = {k + 1}" for k in i], ylabel="value",
               title=f"z = {tuple(np.asarray(z, dtype=float).tolist())}")
        ax.legend(loc="upper left", fontsize="small")
    return tuple(axes)


def plot_core_bound(dims: Sequence[int] = (2, 3, 4, 6, 8, 12, 16), n_records: int = 200,
                    seed: int = 3, ax=None):
    """Largest ``|u_i|`` of seeded random records against ``d``, under the bound ``sqrt(d - 1)``.

    Grey dots: ``max_i |u_i|`` (``eps = 0``) for ``n_records`` heavy-tailed (Cauchy) records per
    ``d``. Stars: the records ``(d - 1, -1, ..., -1)``, which attain the bound (dashed line).
    """
    ax = _axes(ax)
    rng = np.random.default_rng(seed)
    dims = np.asarray(dims, dtype=int)
    for k, d in enumerate(dims):
        largest = np.abs(core(rng.standard_cauchy(size=(n_records, d)), eps=0)).max(axis=-1)
        ax.plot(np.full(n_records, d), largest, ".", color="0.5", alpha=0.4,
                label="random records" if k == 0 else None)
    extreme = [float(np.abs(core(np.r_[d - 1.0, -np.ones(d - 1)], eps=0)).max()) for d in dims]
    ax.plot(dims, extreme, "*", color="C3", markersize=10, label="(d−1, −1, …, −1)")
    grid = np.linspace(dims.min(), dims.max(), 200)
    ax.plot(grid, np.sqrt(grid - 1), "--", color="0.2", label="bound √(d−1)")
    ax.set(xlabel="number of features d", ylabel="max_i |u_i|",
           title="largest entry of the core (ε = 0)")
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_offset_error(offsets: ArrayLike, errors: dict[str, ArrayLike], ax=None):
    """Error of computed cores, in ulps, against the offset ``|mu|/sigma`` of the records.

    ``errors`` maps a label to one error per offset, as returned by
    :func:`lnbook.offset_errors` (computed first, drawn here). The y axis is linear
    below 1 ulp and logarithmic above; the dashed line is ``|mu|/sigma`` itself, the growth
    of an uncorrected mean's error, and the dotted line marks 4 ulp.
    """
    ax = _axes(ax)
    offsets = np.asarray(offsets, dtype=float)
    for label, err in errors.items():
        ax.plot(offsets, np.asarray(err, dtype=float), "o-", markersize=4, label=label)
    ax.plot(offsets, offsets, "--", color="0.4", linewidth=1, label="|μ|/σ")
    ax.axhline(4.0, linestyle=":", color="0.4", linewidth=1, label="4 ulp")
    ax.set(xscale="log", xlabel="offset |μ|/σ", ylabel="worst error (ulp of max |u_i|)",
           title="float64 core against the correctly rounded core")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(0, None)
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_eps_placement(z: ArrayLike = (1.0, 2.0, 3.0, 4.0),
                       keys: Sequence[str] = ("keras", "pytorch", "flax", "bert", "annotated"),
                       ax=None):
    """Root mean square of each convention's output on ``a z`` against the spread of ``a z``.

    The exact standardization has RMS 1 (dashed); eps inside the root shrinks the output once
    the variance nears eps, eps outside once the standard deviation nears eps, and the
    unbiased divisor lowers the plateau to ``sqrt((d-1)/d)`` (dotted).
    """
    ax = _axes(ax, width=9.6)
    z = np.asarray(z, dtype=float)
    d = z.size
    sigma = np.logspace(-9, 1, 201)
    # a z has population standard deviation a sqrt(q)
    records = (sigma / np.sqrt(z.var()))[:, None] * z
    for key in keys:
        c = CONVENTIONS[key]
        rms = np.sqrt((convention_layer_norm(records, key) ** 2).mean(axis=-1))
        where = "inside" if c.eps_inside else "outside"
        divisor = f"d−{c.ddof}" if c.ddof else "d"
        ax.plot(sigma, rms, label=f"{c.label}: ε = {c.eps:g} {where}, divisor {divisor}")
    ax.axhline(1.0, linestyle="--", color="0.4", linewidth=1)
    ax.axhline(np.sqrt((d - 1) / d), linestyle=":", color="0.4", linewidth=1)
    ax.set(xscale="log", xlabel="standard deviation of the record a z",
           ylabel="RMS of the output", ylim=(0, 1.1),
           title=f"z = {tuple(z.tolist())} scaled down")
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize="small")
    return ax


# --- geometry and transformer figures (H-new) ---


def _mean_gradient_norms(L: int, d: int, seeds: Sequence[int], placement: str, eps: float):
    from .residual import layer_gradient_norms

    return np.mean([layer_gradient_norms(L, d, placement=placement, seed=s, eps=eps)
                    for s in seeds], axis=0)


def plot_placement_gradients(depths: Sequence[int] = (2, 4, 8, 16, 32), d: int = 32,
                             seeds: Sequence[int] = (0, 1, 2, 3), profile_depth: int = 16,
                             eps: float = 1e-5, axes=None):
    """Gradient norms ``||dl/dW2||_F`` at initialization, Pre-LN against Post-LN.

    Parameters
    ----------
    depths : sequence of int
        Depths ``L`` of the right panel.
    d : int
        Features of a record (hidden width ``2 d``, eight records).
    seeds : sequence of int
        Each seed is one initialization; the norms are averaged over them.
    profile_depth : int
        Depth of the left panel's per-block profile.
    eps : float
        Stabilizer of every LayerNorm.
    axes : two matplotlib Axes, optional
        Where to draw; new axes if omitted.

    Returns
    -------
    (left, right) : matplotlib Axes
        Left: norm in block ``l = 1 .. profile_depth``, one line per placement. Right: norm in
        the last block against ``L`` (log-log), one line per placement, with a dotted
        ``L^(-1/2)`` guide. Data from :func:`lnbook.layer_gradient_norms`. See the chapter
        *LayerNorm inside a Transformer*.

    Examples
    --------
    >>> left, right = plot_placement_gradients(depths=(2, 4), d=8, seeds=(0,), profile_depth=3)
    >>> [len(line.get_xdata()) for line in left.lines]
    [3, 3]
    >>> plt.close(left.figure)
    """
    left, right = _axes(axes, 2, width=9.6)
    depths = np.asarray(depths)
    for placement, label in (("pre", "Pre-LN"), ("post", "Post-LN")):
        profile = _mean_gradient_norms(profile_depth, d, seeds, placement, eps)
        left.plot(np.arange(1, profile_depth + 1), profile, "o-", label=label)
        last = [_mean_gradient_norms(int(L), d, seeds, placement, eps)[-1] for L in depths]
        right.plot(depths, last, "o-", label=label)
    first = right.lines[0].get_ydata()[0]
    right.plot(depths, first * (depths / depths[0]) ** -0.5, ":", color="0.4", label="∝ L^(−1/2)")
    left.set(xlabel="block l (input side first)", ylabel="‖∂ℓ/∂W2‖_F",
             title=f"per block, L = {profile_depth}", ylim=(0, None))
    right.set(xscale="log", yscale="log", xlabel="depth L", ylabel="‖∂ℓ/∂W2‖_F of block L",
              title="last block against depth")
    right.set_xticks(depths, [str(L) for L in depths])
    left.legend(loc="lower left")
    right.legend(loc="lower left")
    return left, right


def plot_geometry_picture(z: ArrayLike | None = None, eps: float = 1.0,
                          eps_values: Sequence[float] = (0.1, 1.0), axes=None):
    """The core for ``d = 3`` as projection onto ``1^⊥`` followed by a radial map.

    Parameters
    ----------
    z : (n, 3) array_like, optional
        Records to draw (default: twelve seeded Gaussian records of varied size).
    eps : float
        Stabilizer of the left panel's cores.
    eps_values : sequence of float
        Stabilizers of the right panel's radial profiles.
    axes : two matplotlib Axes, optional
        Where to draw; new axes if omitted.

    Returns
    -------
    (left, right) : matplotlib Axes
        Left, in orthonormal coordinates of the plane ``1^⊥`` (:func:`lnbook.plane_basis`):
        the projections ``v = P z`` (grey), the cores ``u_eps(z)`` (blue) and ``u_0(z)`` (red,
        on the dashed circle of radius ``sqrt(3)``), each on the ray through its ``v``.
        Right: the radial map ``rho -> rho / sqrt(rho**2/3 + eps)`` (:func:`lnbook.radial_profile`)
        for each ``eps``, with the limit ``sqrt(3)`` dashed. See the chapter *The geometric
        picture*.

    Examples
    --------
    >>> left, right = plot_geometry_picture()
    >>> len(left.collections), len(right.lines)
    (3, 3)
    >>> plt.close(left.figure)
    """
    from .geometry import plane_basis, radial_profile

    left, right = _axes(axes, 2, width=9.6)
    if z is None:
        rng = np.random.default_rng(3)
        z = rng.normal(size=(12, 3)) * np.linspace(0.3, 2.5, 12)[:, None] + 4.0
    z = np.asarray(z, dtype=float)
    Q = plane_basis(3)
    # plane coordinates Q v, Q u_eps(z), Q u_0(z)
    v, u_eps, u_0 = (w @ Q.T for w in (z - z.mean(axis=-1, keepdims=True), core(z, eps=eps),
                                        core(z, eps=0.0)))
    for a, b in zip(v, u_0):
        far = a if a @ a > b @ b else b
        left.plot([0, far[0]], [0, far[1]], color="0.85", linewidth=0.8, zorder=0)
    angle = np.linspace(0, 2 * np.pi, 241)
    left.plot(np.sqrt(3) * np.cos(angle), np.sqrt(3) * np.sin(angle), "--", color="0.4",
              linewidth=1)
    left.scatter(*v.T, color="0.5", s=14, label="v = Pz")
    left.scatter(*u_eps.T, color="C0", s=18, label=f"u_ε(z), ε = {eps:g}")
    left.scatter(*u_0.T, color="C3", s=18, label="u₀(z), on radius √3")
    lim = max(2.2, float(np.abs(v).max()) * 1.05)
    left.set(aspect="equal", xlim=(-lim, lim), ylim=(-lim, lim), xlabel="coordinate b₁·z",
             ylabel="coordinate b₂·z", title="the plane ⊥ 1 of centered records (d = 3)")
    left.legend(loc="upper left", fontsize="small")
    rho = np.linspace(0, 6, 301)
    for e in eps_values:
        right.plot(rho, radial_profile(rho, 3, eps=e), label=f"ε = {e:g}")
    right.axhline(np.sqrt(3), linestyle="--", color="0.4", linewidth=1, label="√3 (ε = 0)")
    right.set(xlabel="‖v‖₂ = √(3q)", ylabel="‖u_ε‖₂", ylim=(0, 1.9),
              title="the radial map: ρ ↦ ρ/√(ρ²/3 + ε)")
    right.legend(loc="lower right")
    return left, right
