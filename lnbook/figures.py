"""The numbers behind the book's figures: one pure function per figure, numpy only.

Each ``*_data`` function computes exactly the arrays that the matching ``plot_*`` function of
:mod:`lnbook.plotting` draws, and returns them in a dict; the plot function only draws.
Tests check these arrays against independent computations (closed forms, finite
differences, a tiny example by hand) without reading anything back from matplotlib.

Examples
--------
>>> data = response_data(eps_values=(1.0,), t=[0.0, 3.0])
>>> data["peak"].tolist()  # h'_eps(0) = eps**-0.5
[1.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from ._audit import record_audit, wrong_axis_layer_norm
from ._centering import weighted_centering_matrix
from ._derivatives import jacobian, jacobian_eigenvalues
from ._layer import core, layer_norm, normalized_variance
from ._sensitivity import (
    amplification,
    lipschitz_bound,
    operator_norm,
    response,
    response_slope,
)
from .frameworks import CONVENTIONS, convention_layer_norm
from .geometry import plane_basis, radial_profile
from .transformer import layer_gradient_norms

__all__ = [
    "EPS_VALUES",
    "records_with_variance",
    "decade_ticks",
    "response_data",
    "normalized_variance_data",
    "jacobian_eigenvalues_data",
    "operator_norm_data",
    "amplification_data",
    "shift_geometry_data",
    "weighted_projection_data",
    "record_audit_data",
    "gain_effect_data",
    "bias_shift_data",
    "core_bound_data",
    "offset_error_data",
    "eps_placement_data",
    "benchmark_ratios_data",
    "placement_gradients_data",
    "geometry_picture_data",
]

#: The stabilizers of the epsilon chapter's figures, one curve each.
EPS_VALUES = (0.01, 0.1, 1.0)


@_checks.public
def records_with_variance(q: ArrayLike, d: int) -> np.ndarray:
    """Records ``c (-1, 1, 0, ..., 0)`` of ``d`` features whose population variance is ``q``.

    Examples
    --------
    >>> records_with_variance([2.0], 4).tolist()  # variance (4 + 4) / 4 = 2
    [[-2.0, 2.0, 0.0, 0.0]]
    """
    q = _checks.vector(q, "q")
    if (q < 0).any():
        raise ValueError(f"q must hold variances, q >= 0; got {_checks.show(q.tolist())}")
    # the records (-c, c, 0, ..., 0) need two features
    d = _checks.count(d, "d", minimum=2)
    _checks.fits(q.size * d, f"{q.size} records of d = {d}")
    base = np.zeros(d)
    base[:2] = (-1.0, 1.0)
    # the variance of c (-1, 1, 0, ..., 0) is 2 c^2 / d, so c = sqrt(q d / 2)
    return np.sqrt(q * d / 2)[:, None] * base


@_checks.public
def decade_ticks(lo: float, hi: float, *, max_ticks: int = 6, zero: bool = False) -> np.ndarray:
    """Powers of ten from ``lo`` to ``hi``, every k-th decade so that at most ``max_ticks``.

    Examples
    --------
    >>> decade_ticks(1.0, 1e12).tolist()
    [1.0, 1000.0, 1000000.0, 1000000000.0, 1000000000000.0]
    >>> decade_ticks(1.0, 1e12, zero=True).tolist()[:2]
    [0.0, 1.0]
    """
    lo, hi = _checks.positive(lo, "lo"), _checks.positive(hi, "hi")
    if lo > hi:
        raise ValueError(f"lo must not exceed hi; got lo = {lo!r} > hi = {hi!r}")
    zero = _checks.option(zero, "zero")
    # one tick is 0 with zero=True, and at least one must be a power of ten
    max_ticks = _checks.count(max_ticks, "max_ticks", minimum=2 if zero else 1)
    k0, k1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    slots = max_ticks - 1 if zero else max_ticks
    # the smallest step with (k1 - k0) // step + 1 <= slots
    step = (k1 - k0) // slots + 1
    ticks = 10.0 ** np.arange(k0, k1 + 1, step)
    return np.r_[0.0, ticks] if zero else ticks


@_checks.public
def response_data(*, eps_values: Sequence[float] = EPS_VALUES, t: ArrayLike | None = None) -> dict:
    """Response ``h_eps(t)`` of ``u_3`` to ``(-t, 0, t)``, its slope, the peaks and the limit.

    Returns ``t`` (n,), ``h`` and ``slope`` (k, n) for the k values of ``eps``, ``peak``
    (k,) = ``h'_eps(0) = eps**-0.5`` and ``limit`` = ``sqrt(3/2)``, the response's asymptote.
    """
    eps_values = _checks.eps_values(eps_values)
    t = np.linspace(-3, 3, 601) if t is None else _checks.vector(t, "t")
    return {
        "t": t,
        "eps": np.asarray(eps_values, dtype=float),
        "h": np.array([response(t, eps=eps) for eps in eps_values]),
        "slope": np.array([response_slope(t, eps=eps) for eps in eps_values]),
        "peak": np.array([lipschitz_bound(eps=eps) for eps in eps_values]),
        # h_eps(t) = t / sqrt(2 t^2 / 3 + eps) -> sqrt(3/2) as t -> infinity
        "limit": float(np.sqrt(1.5)),
    }


@_checks.public
def normalized_variance_data(*, eps_values: Sequence[float] = EPS_VALUES, d: int = 3) -> dict:
    """Mean square ``(1/d) sum u_i^2 = q / (q + eps)`` of the core against the variance ``q``.

    Returns ``q`` (n,), ``mean_square`` (k, n) and the half-way points ``(eps, 1/2)``.
    """
    eps_values = _checks.eps_values(eps_values)
    q = np.logspace(-4, 2, 241)
    records = records_with_variance(q, d)
    return {
        "q": q,
        "eps": np.asarray(eps_values, dtype=float),
        "mean_square": np.array([normalized_variance(records, eps=eps) for eps in eps_values]),
        "half": np.full(len(eps_values), 0.5),
    }


@_checks.public
def jacobian_eigenvalues_data(*, eps: float = 0.1, d: int = 4) -> dict:
    """Eigenvalues of the core's Jacobian against ``q``: closed forms, and ``eigvalsh`` samples.

    Returns ``q`` (n,), ``tangential`` and ``radial`` (n,) from the closed forms, and
    ``sample_q`` (m,) with ``numeric`` (m, d), the eigenvalues of the Jacobian matrices; and
    ``eps`` and ``d``.
    """
    eps = _checks.eps_value(eps)
    q = np.logspace(-3, 2, 201)
    radial, tangential = jacobian_eigenvalues(records_with_variance(q, d), eps=eps)
    sample = np.logspace(-3, 2, 11)
    numeric = np.linalg.eigvalsh(jacobian(records_with_variance(sample, d), eps=eps))
    return {"q": q, "tangential": tangential, "radial": radial, "zero": np.zeros_like(q),
            "sample_q": sample, "numeric": numeric, "bound": lipschitz_bound(eps=eps),
            "eps": float(eps), "d": int(d)}


@_checks.public
def operator_norm_data(*, eps: float = 0.1, dims: Sequence[int] = (2, 3)) -> dict:
    """Operator norm ``||Du_eps(z)||_2`` against ``q`` for each ``d``, and the bound."""
    eps = _checks.eps_value(eps)
    dims = _checks.counts(dims, "dims", minimum=2)
    q = np.logspace(-3, 2, 201)
    return {"q": q, "dims": list(dims), "eps": float(eps),
            "norm": np.array([operator_norm(records_with_variance(q, d), eps=eps)
                              for d in dims]),
            "bound": lipschitz_bound(eps=eps)}


@_checks.public
def amplification_data(*, z: ArrayLike = (7.0, 7.0), delta: ArrayLike = (1e-3, -1e-3)) -> dict:
    """Finite ratio ``||u(z + delta) - u(z)||_2 / ||delta||_2`` against ``eps``; ``eps**-0.5``."""
    z = _checks.records(z)
    delta = _checks.same_shape(delta, z, "delta")
    if z.ndim != 1:
        raise ValueError(f"z must be one record of shape (d,); got shape {z.shape}")
    eps = np.logspace(-8, 0, 161)
    return {"z": z, "delta": delta, "eps": eps,
            "ratio": np.array([float(amplification(z, delta, eps=e)) for e in eps]),
            "bound": np.array([lipschitz_bound(eps=e) for e in eps])}


@_checks.public
def shift_geometry_data(*, z: ArrayLike = (2.0, 0.5),
                        shifts: ArrayLike = (-1.5, 0.0, 1.0, 2.0)) -> dict:
    """Records ``z + c 1`` for each shift ``c``, and the point ``P z`` they all project to."""
    # the picture is the plane of records of two features
    z = _checks.vector(z, "z", size=2)
    shifts = _checks.vector(shifts, "shifts")
    # P z = z - mean(z) 1
    return {"z": z, "shifts": shifts, "shifted": z[None, :] + shifts[:, None], "Pz": z - z.mean()}


@_checks.public
def weighted_projection_data(*, a: ArrayLike = (0.25, 0.75), z: ArrayLike = (4.0, 2.0)) -> dict:
    """Oblique projection ``P_a z`` (along 1) and orthogonal projection onto ``ker a^T``.

    Returns the record ``z``, ``oblique`` (``P_a z``), ``orthogonal`` (the Euclidean projection
    of ``z`` onto the line ``a^T w = 0``) and ``direction``, a unit vector ``w`` of that line.
    """
    # the picture is the plane of records of two features
    a, z = _checks.weights(a), _checks.vector(z, "z", size=2)
    if a.size != 2:
        raise ValueError(f"a must have shape (2,) to match z; got shape {a.shape}")
    direction = np.array([a[1], -a[0]]) / np.hypot(*a)  # a unit vector w with a^T w = 0
    # P_a z = z - (a^T z) 1;  orthogonal projection (w^T z) w
    return {"a": a, "z": z, "oblique": weighted_centering_matrix(a) @ z,
            "orthogonal": (direction @ z) * direction, "direction": direction}


@_checks.public
def record_audit_data(*, shape: tuple[int, int, int] = (2, 4, 6),
                      record: tuple[int, ...] = (1, 2)) -> dict:
    """Which records ``(b, t)`` move when record ``record`` changes, for two layers."""
    if not isinstance(shape, (tuple, list)) or len(shape) != 3:
        raise TypeError(f"shape must be a tuple (B, T, d); got {_checks.show(shape)}")
    B, T, d = (_checks.count(n, f"shape[{k}]") for k, n in enumerate(shape))
    record = _checks.index(record, (B, T))
    _checks.fits(B * T * d, f"a batch of shape {(B, T, d)}")
    z = np.random.default_rng(0).normal(size=(B, T, d))
    return {"record": tuple(record),
            "layer_norm": record_audit(layer_norm, z, record) > 0,
            "wrong_axis": record_audit(wrong_axis_layer_norm, z, record) > 0}


@_checks.public
def gain_effect_data(*, z: ArrayLike = (1.0, 1.0, -2.0), gamma: ArrayLike = (2.0, 0.0, -1.0),
                     eps: float = 2.0) -> dict:
    """Core ``u`` and scaled core ``gamma ⊙ u`` of one record (bias 0)."""
    record = _checks.vector(z, "z")
    gain = _checks.parameter(gamma, record.size, "gamma")
    eps = _checks.eps_value(eps)
    # y = gamma ⊙ u (beta = 0)
    return {"z": record, "gamma": gain, "eps": eps,
            "u": core(record, eps=eps), "y": layer_norm(record, gamma=gain, eps=eps)}


@_checks.public
def bias_shift_data(*, z: ArrayLike = ((3.0, 3.0, 3.0), (2.0, 3.0, 4.0)),
                    gamma: ArrayLike = (2.0, 0.5, -1.0), beta: ArrayLike = (1.0, -1.0, 2.0),
                    eps: float = 1e-5) -> dict:
    """For each record of ``z`` (n, d): core ``u``, ``gamma ⊙ u``, ``y = gamma ⊙ u + beta``.

    Returns ``z``, ``u``, ``scaled`` (``gamma ⊙ u``) and ``y``, each (n, d), and ``y_mean``
    (n,), the mean of each output.
    """
    z = _checks.records(z)
    if z.ndim != 2:
        raise ValueError(f"z must hold records of shape (n, d), one panel each; got shape "
                         f"{z.shape}")
    # y = gamma ⊙ u + beta
    y = layer_norm(z, gamma=gamma, beta=beta, eps=eps)
    return {"z": z, "u": core(z, eps=eps), "scaled": layer_norm(z, gamma=gamma, eps=eps),
            "y": y, "y_mean": y.mean(axis=-1)}


@_checks.public
def core_bound_data(*, dims: Sequence[int] = (2, 3, 4, 6, 8, 12, 16), n: int = 200,
                    seed: int = 3) -> dict:
    """Largest ``|u_i|`` of seeded Cauchy records per ``d``, the extreme records, the bound.

    ``largest[k]`` holds ``max_i |u_i|`` (``eps = 0``) of ``n`` records of
    ``dims[k]`` features; ``extreme`` that of ``(d - 1, -1, ..., -1)``, which attains the
    bound ``sqrt(d - 1)`` drawn on ``grid``.
    """
    # eps = 0: every record needs two different features
    dims_arr = np.asarray(_checks.counts(dims, "dims", minimum=2))
    n = _checks.count(n, "n")
    rng = np.random.default_rng(_checks.seed(seed))
    _checks.fits(n * int(dims_arr.max()), f"{n} records of d = {int(dims_arr.max())}")
    largest = [np.abs(core(rng.standard_cauchy(size=(n, d)), eps=0)).max(axis=-1)
               for d in dims_arr]
    extreme = np.array([np.abs(core(np.r_[d - 1.0, -np.ones(d - 1)], eps=0)).max()
                        for d in dims_arr])
    grid = np.linspace(dims_arr.min(), dims_arr.max(), 200)
    return {"dims": dims_arr, "largest": largest, "extreme": extreme, "grid": grid,
            "bound": np.sqrt(grid - 1)}


@_checks.public
def offset_error_data(offsets: ArrayLike, errors: dict[str, ArrayLike], *,
                      max_ticks: int = 6) -> dict:
    """The errors as arrays, the guide ``|mu|/sigma``, the 4-ulp line and sparse decade ticks."""
    offsets = _checks.vector(offsets, "offsets")
    if (offsets <= 0).any():
        raise ValueError(f"offsets must be positive ratios; got {_checks.show(offsets.tolist())}")
    if not isinstance(errors, dict) or not errors:
        raise TypeError(f"errors must be a non-empty dict label -> errors per offset; got "
                        f"{_checks.show(errors)}")
    series = {}
    for label, e in errors.items():
        if not isinstance(label, str):
            raise TypeError(f"errors' labels must be strings; got {_checks.show(label)}")
        series[label] = _checks.vector(e, f"errors[{label!r}]", size=offsets.size)
        if (series[label] < 0).any():
            raise ValueError(f"errors[{label!r}] must be errors in ulps, >= 0")
    max_ticks = _checks.count(max_ticks, "max_ticks", minimum=2)
    top = max([offsets.max(), 4.0] + [float(e.max()) for e in series.values()])
    return {"offsets": offsets, "errors": series, "guide": offsets.copy(), "limit": 4.0,
            "xticks": decade_ticks(offsets.min(), offsets.max(), max_ticks=max_ticks),
            "yticks": decade_ticks(1.0, top, max_ticks=max_ticks, zero=True)}


@_checks.public
def eps_placement_data(*, z: ArrayLike = (1.0, 2.0, 3.0, 4.0),
                       conventions: Sequence[str] = ("keras", "pytorch", "flax", "bert",
                                                     "annotated"),
                       ) -> dict:
    """RMS of each convention's output on ``alpha z`` against the standard deviation of it.

    Returns ``z``, ``sigma`` (n,), ``keys`` (the conventions' names) and ``conventions``
    (their :class:`lnbook.frameworks.Convention`), ``rms`` (k, n) for the k conventions, and
    the two plateaus: 1 (divisor d) and ``sqrt((d - 1)/d)`` (the unbiased divisor d - 1).
    """
    z = _checks.vector(z, "z")
    if not np.ptp(z) > 0:
        raise ValueError(f"z must be a record of some spread (the figure scales it to each "
                         f"sigma); got the constant record {_checks.show(z.tolist())}")
    if isinstance(conventions, str) or not isinstance(conventions, (list, tuple)):
        raise TypeError(f"conventions must be a sequence of keys of CONVENTIONS; got "
                        f"{_checks.show(conventions)}")
    conventions = [_checks.choice(key, f"conventions[{k}]", list(CONVENTIONS))
                   for k, key in enumerate(conventions)]
    if not conventions:
        raise ValueError("conventions must hold at least one key of CONVENTIONS")
    d = z.size
    sigma = np.logspace(-9, 1, 201)
    # a z has population standard deviation a sqrt(q(z))
    records = (sigma / np.sqrt(z.var()))[:, None] * z
    rms = np.array([np.sqrt((convention_layer_norm(records, convention=key) ** 2).mean(axis=-1))
                    for key in conventions])
    return {"z": z, "sigma": sigma, "keys": list(conventions),
            "conventions": [CONVENTIONS[k] for k in conventions],
            "rms": rms, "plateaus": (1.0, float(np.sqrt((d - 1) / d))), "d": d}


@_checks.public
def benchmark_ratios_data(results: dict) -> dict:
    """Per-round ratios of each timed race in a ``benchmarks/results.json`` dict.

    Returns ``names`` (the races, in the file's order), ``rounds`` (one array of per-round
    ratios per race), ``median``, ``target`` and ``comparison`` (``"<="`` or ``">="``)
    per race, and ``met``, the verdict of each median against its target.

    Examples
    --------
    >>> race = {"name": "r", "result": {"per round": [1.0, 3.0, 2.0], "median": 2.0},
    ...         "target": {"comparison": "<=", "bound": 1.0}}
    >>> benchmark_ratios_data({"results": {"r": race}})["met"]
    [False]
    """
    races = _races(results)
    median = np.array([r["result"]["median"] for r in races])
    target = np.array([r["target"]["bound"] for r in races])
    comparison = [r["target"]["comparison"] for r in races]
    met = [bool(m <= t) if c == "<=" else bool(m >= t)
           for m, t, c in zip(median, target, comparison)]
    return {"names": [r["name"] for r in races],
            "rounds": [np.asarray(r["result"]["per round"], dtype=float) for r in races],
            "median": median, "target": target, "comparison": comparison, "met": met}


def _races(results: object) -> list[dict]:
    """The timed races of a results dict, checked for what the figure reads."""
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise TypeError("results must be the dict of benchmarks/results.json, with a dict "
                        f"'results'; got {_checks.show(results)}")
    races = []
    for key, value in results["results"].items():
        for race in value if isinstance(value, list) else [value]:
            if not isinstance(race, dict):
                raise TypeError(f"results['results'][{key!r}] must be a race (a dict) or a "
                                f"list of races; got {_checks.show(race)}")
            if "result" not in race:
                continue  # not a timed race (the accuracy benchmark)
            try:
                name, result, target = race["name"], race["result"], race["target"]
                rounds, median = result["per round"], result["median"]
                comparison, bound = target["comparison"], target["bound"]
            except (KeyError, TypeError) as exc:
                raise ValueError(f"results['results'][{key!r}]: a race needs a name, a result "
                                 f"(per round, median) and a target (comparison, bound); "
                                 f"missing {exc}") from None
            where = f"results['results'][{key!r}]"
            if not isinstance(name, str):
                raise TypeError(f"{where}: the name must be a string; got {_checks.show(name)}")
            rounds = _checks.vector(rounds, f"{where}: per round")
            if (rounds <= 0).any():
                raise ValueError(f"{where}: the ratios per round must be positive")
            _checks.positive(median, f"{where}: median")
            _checks.positive(bound, f"{where}: bound")
            _checks.choice(comparison, f"{where}: comparison", ("<=", ">="))
            races.append(race)
    if not races:
        raise ValueError("results holds no timed race (one with a 'result')")
    return races


@_checks.public
def placement_gradients_data(*, depths: Sequence[int] = (2, 4, 8, 16, 32), d: int = 32,
                             seeds: Sequence[int] = (0, 1, 2, 3), L: int = 16,
                             eps: float = 1e-5) -> dict:
    """Gradient norms ``||dl/dW2||_F`` at initialization, Pre-LN and Post-LN, seed-averaged.

    Returns ``placements`` (``("pre", "post")``) and ``labels``; ``L``, ``block`` (``1 ..
    L``) and ``profile`` (2, L), the norm in every block of a stack
    of depth ``L``; ``depths`` and ``last`` (2, len(depths)), the norm in the
    last block of a stack of each depth; and ``guide``, the line ``L^{-1/2}`` through Pre-LN's
    first value. Each norm is :func:`lnbook.transformer.layer_gradient_norms` averaged over
    ``seeds``.

    Examples
    --------
    >>> data = placement_gradients_data(depths=(1, 4), d=4, seeds=(0,), L=2)
    >>> data["profile"].shape, data["last"].shape, float(data["guide"][1] / data["guide"][0])
    ((2, 2), (2, 2), 0.5)
    """
    depths_arr = np.asarray(_checks.counts(depths, "depths"))
    seeds = _checks.counts(seeds, "seeds", minimum=0)
    d, L, eps = _checks.count(d, "d"), _checks.count(L, "L"), _checks.eps_value(eps)
    placements = ("pre", "post")

    def mean_norms(depth: int, placement: str) -> np.ndarray:
        # mean over seeds of ||dl/dW2||_F in blocks 1 .. depth
        return np.mean([layer_gradient_norms(depth, d=d, placement=placement, seed=s, eps=eps)
                        for s in seeds], axis=0)

    profile = np.array([mean_norms(L, p) for p in placements])
    last = np.array([[mean_norms(int(depth), p)[-1] for depth in depths_arr]
                     for p in placements])
    # guide: last_pre(L_0) (L / L_0)^{-1/2}
    guide = last[0, 0] * (depths_arr / depths_arr[0]) ** -0.5
    return {"placements": placements, "labels": ("Pre-LN", "Post-LN"), "L": int(L),
            "block": np.arange(1, L + 1), "profile": profile,
            "depths": depths_arr, "last": last, "guide": guide}


@_checks.public
def geometry_picture_data(*, z: ArrayLike | None = None, eps: float = 1.0,
                          eps_values: Sequence[float] = (0.1, 1.0)) -> dict:
    """The core for ``d = 3`` in plane coordinates, and the radial map for each ``eps``.

    Returns ``z`` (n, 3), the records (default: twelve seeded Gaussian records of varied
    spread around ``4``); ``eps``; ``basis``, :func:`lnbook.geometry.plane_basis` ``(3)``,
    whose rows ``b_1, b_2``
    give the plane coordinates ``b_k^T z``; ``v``, ``u_eps`` and ``u_0`` (n, 2), the plane
    coordinates of ``v = P z``, ``u_eps(z)`` and ``u_0(z)``; ``ray_ends`` (n, 2), the farther
    of ``v`` and ``u_0`` on each ray from the origin; ``radius`` ``sqrt(3)``; ``lim``, the
    half-width of the plane's view; ``norm_v`` (lengths ``||v||_2``) and ``profile`` (k,
    len(norm_v)), the radial map ``||v|| / sqrt(||v||^2 / 3 + eps)`` for the k values of
    ``eps_values``.

    Examples
    --------
    >>> data = geometry_picture_data(z=[[1.0, 2.0, 3.0]], eps=2 / 3)
    >>> round(float((data["u_0"] ** 2).sum()), 12), round(float((data["u_eps"] ** 2).sum()), 12)
    (3.0, 1.5)
    """
    eps = _checks.eps_value(eps)
    eps_values = _checks.eps_values(eps_values)
    if min(eps_values) == 0:
        raise ValueError(f"eps_values must be positive: with eps = 0 the radial map is 0/0 at "
                         f"the origin; got {eps_values}")
    if z is None:
        rng = np.random.default_rng(3)
        z = rng.normal(size=(12, 3)) * np.linspace(0.3, 2.5, 12)[:, None] + 4.0
    z = _checks.records(z)
    if z.ndim != 2 or z.shape[1] != 3:
        raise ValueError(f"z must hold records of d = 3 features, shape (n, 3); got {z.shape}")
    Q = plane_basis(3)
    # plane coordinates Q v, Q u_eps(z), Q u_0(z); Q P = Q, so Q v = Q z
    v = _checks.finite_result((z - z.mean(axis=-1, keepdims=True)) @ Q.T,
                              "the plane coordinates of z")
    u_eps, u_0 = (core(z, eps=eps) @ Q.T, core(z, eps=0.0) @ Q.T)
    farther = (v * v).sum(axis=-1) > (u_0 * u_0).sum(axis=-1)
    norm_v = np.linspace(0.0, 6.0, 301)
    return {"z": z, "eps": float(eps), "basis": Q, "v": v, "u_eps": u_eps, "u_0": u_0,
            "ray_ends": np.where(farther[:, None], v, u_0), "radius": float(np.sqrt(3.0)),
            "lim": max(2.2, float(np.abs(v).max()) * 1.05),
            "eps_values": tuple(float(e) for e in eps_values), "norm_v": norm_v,
            "profile": np.array([radial_profile(norm_v, 3, eps=e) for e in eps_values])}
