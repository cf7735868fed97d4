"""The numbers behind the book's figures: one pure function per figure, numpy only.

Compute, then draw: ``data = figures.X_data(...)`` returns, in a dict, exactly the arrays
that ``lnbook.plotting.plot_X(data)`` draws. The tests check these arrays against independent
computations (closed forms, finite differences, a tiny example by hand), and the arrays serve
any other drawing of the figure as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, transformer
from ._audit import record_audit, wrong_axis_layer_norm
from ._centering import weighted_centering_matrix
from ._derivatives import jacobian, jacobian_eigenvalues
from ._layer import core, layer_norm, normalized_variance
from ._sensitivity import amplification, lipschitz_bound, operator_norm, response, response_slope
from .frameworks import CONVENTIONS, convention_layer_norm
from .geometry import plane_basis, radial_profile
from .transformer import layer_gradient_norms

__all__ = ["EPS_VALUES", "response_data", "normalized_variance_data",
           "jacobian_eigenvalues_data", "operator_norm_data", "amplification_data",
           "shift_geometry_data", "weighted_projection_data", "record_audit_data",
           "gain_effect_data", "bias_shift_data", "core_bound_data", "offset_error_data",
           "eps_placement_data", "benchmark_ratios_data", "placement_gradients_data",
           "geometry_picture_data"]

#: The stabilizers of the epsilon chapter's figures, one curve each.
EPS_VALUES = (0.01, 0.1, 1.0)


def _records(q: np.ndarray, d: int) -> np.ndarray:
    """Records ``c (-1, 1, 0, ..., 0)`` of ``d`` features, of variances ``q = 2 c**2 / d``."""
    # the records (-c, c, 0, ..., 0) need two features
    d = _checks.count(d, "d", minimum=2)
    _checks.fits(q.size * d, f"{q.size} records of d = {d}")
    base = np.zeros(d)
    base[:2] = (-1.0, 1.0)
    return np.sqrt(q * d / 2)[:, None] * base


def _decade_ticks(lo: float, hi: float, max_ticks: int, zero: bool = False) -> np.ndarray:
    """At most ``max_ticks`` powers of ten around ``[lo, hi]``, preceded by 0 with ``zero``."""
    k0, k1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    # the powers of ten float64 holds: 10**-324 rounds to 0 and 10**309 overflows
    k0, k1 = max(k0, -323), min(k1, 308)
    slots = max_ticks - 1 if zero else max_ticks
    # the smallest step s with (k1 - k0) // s + 1 <= slots
    step = (k1 - k0) // slots + 1
    ticks = 10.0 ** np.arange(k0, k1 + 1, step)
    return np.r_[0.0, ticks] if zero else ticks


@_checks.public
def response_data(*, eps_values: Sequence[float] = EPS_VALUES, t: ArrayLike | None = None) -> dict:
    r"""The response ``h_eps(t)`` of ``u_3`` to the records ``(-t, 0, t)``, its slope and peak.

    Parameters
    ----------
    eps_values : sequence of float, optional
        Stabilizers, one curve each, ``eps > 0``.
    t : (n,) array_like, optional
        Values of the family parameter (default: 601 points from -3 to 3).

    Returns
    -------
    dict
        ``t`` (n,); ``eps`` (k,); ``h`` and ``slope`` (k, n), :func:`lnbook.response` and
        :func:`lnbook.response_slope`; ``peak`` (k,), :math:`h'_\varepsilon(0) =
        \varepsilon^{-1/2}`; ``limit``, :math:`\sqrt{3/2}`.

    Raises
    ------
    ValueError
        If an ``eps`` is not positive and finite, or ``t`` is not a vector of finite numbers.
    TypeError
        If ``eps_values`` or ``t`` are not real numbers.

    Notes
    -----
    .. math:: h_\varepsilon(t) = \frac{t}{\sqrt{2t^2/3 + \varepsilon}},

    .. math:: h'_\varepsilon(0) = \varepsilon^{-1/2},

    and ``h`` tends to ``±sqrt(3/2)`` as ``t`` goes to ``±inf``. See :ref:`ch-epsilon`.

    Examples
    --------
    >>> data = response_data(eps_values=(1.0,), t=[0.0, 3.0])
    >>> data["peak"].tolist(), data["h"].round(6).tolist()  # h(3) = 3 / sqrt(7)
    ([1.0], [[0.0, 1.133893]])
    """
    # the peak eps**-0.5 (and h at t = 0) needs eps > 0
    eps_values = [_checks.positive(e, f"eps_values[{k}]")
                  for k, e in enumerate(_checks.eps_values(eps_values))]
    t = np.linspace(-3, 3, 601) if t is None else _checks.vector(t, "t")
    return {"t": t.copy(), "eps": np.asarray(eps_values, dtype=float),
            "h": np.array([response(t, eps=eps) for eps in eps_values]),
            "slope": np.array([response_slope(t, eps=eps) for eps in eps_values]),
            "peak": np.array([lipschitz_bound(eps=eps) for eps in eps_values]),
            # h_eps(t) = t / sqrt(2 t^2 / 3 + eps) -> sqrt(3/2) as t -> infinity
            "limit": float(np.sqrt(1.5))}


@_checks.public
def normalized_variance_data(*, eps_values: Sequence[float] = EPS_VALUES, d: int = 3) -> dict:
    r"""The mean square of the core, ``q / (q + eps)``, against the variance ``q``.

    Parameters
    ----------
    eps_values : sequence of float, optional
        Stabilizers, one curve each.
    d : int, optional
        Features of the records, ``d >= 2``.

    Returns
    -------
    dict
        ``q`` (n,), 241 variances from ``1e-4`` to ``1e2``; ``eps`` (k,); ``mean_square``
        (k, n), :func:`lnbook.normalized_variance` of records of those variances; ``half``
        (k,), the value 1/2 it takes at ``q = eps``.

    Raises
    ------
    ValueError
        If an ``eps`` is negative or not finite (or 0, where a record is constant), or ``d < 2``.
    TypeError
        If ``d`` is not an integer.

    Notes
    -----
    .. math:: \frac1d \sum_i u_i^2 = \frac{q}{q + \varepsilon}

    See :ref:`ch-epsilon`.

    Examples
    --------
    >>> data = normalized_variance_data(eps_values=(1.0,))
    >>> data["q"].size, float(data["half"][0])
    (241, 0.5)
    """
    eps_values = _checks.eps_values(eps_values)
    q = np.logspace(-4, 2, 241)
    records = _records(q, d)
    return {"q": q, "eps": np.asarray(eps_values, dtype=float),
            "mean_square": np.array([normalized_variance(records, eps=eps) for eps in eps_values]),
            "half": np.full(len(eps_values), 0.5)}


@_checks.public
def jacobian_eigenvalues_data(*, eps: float = 0.1, d: int = 4) -> dict:
    r"""The eigenvalues of the core's Jacobian against ``q``: closed forms and ``eigvalsh`` samples.

    Parameters
    ----------
    eps : float, optional
        Stabilizer, ``eps > 0``.
    d : int, optional
        Features of the records, ``d >= 2``.

    Returns
    -------
    dict
        ``q`` (n,); ``tangential`` and ``radial`` (n,), :func:`lnbook.jacobian_eigenvalues`;
        ``zero`` (n,); ``sample_q`` (m,) with ``numeric`` (m, d), the eigenvalues of the
        matrices :func:`lnbook.jacobian`; ``bound``, :math:`\varepsilon^{-1/2}`; ``eps``, ``d``.

    Raises
    ------
    ValueError
        If ``eps`` is not positive and finite, or ``d < 2``.
    TypeError
        If ``eps`` is not a real number or ``d`` not an integer.

    Notes
    -----
    .. math:: \begin{aligned} \lambda_{\mathrm{tan}} &= (q+\varepsilon)^{-1/2}, \\
              \lambda_{\mathrm{rad}} &= \frac{\varepsilon}{(q+\varepsilon)^{3/2}}, \end{aligned}

    and 0 on the all-ones vector. See :ref:`ch-jacobian`.

    Examples
    --------
    >>> data = jacobian_eigenvalues_data(eps=0.1, d=4)
    >>> data["numeric"].shape, round(float(data["bound"]), 4)
    ((11, 4), 3.1623)
    """
    eps = _checks.eps_value(eps)
    q = np.logspace(-3, 2, 201)
    radial, tangential = jacobian_eigenvalues(_records(q, d), eps=eps)
    sample = np.logspace(-3, 2, 11)
    numeric = np.linalg.eigvalsh(jacobian(_records(sample, d), eps=eps))
    return {"q": q, "tangential": tangential, "radial": radial, "zero": np.zeros_like(q),
            "sample_q": sample, "numeric": numeric, "bound": lipschitz_bound(eps=eps),
            "eps": float(eps), "d": int(d)}


@_checks.public
def operator_norm_data(*, eps: float = 0.1, dims: Sequence[int] = (2, 3)) -> dict:
    r"""The operator norm ``||Du_eps(z)||_2`` against ``q`` for each ``d``, and its bound.

    Parameters
    ----------
    eps : float, optional
        Stabilizer, ``eps > 0``.
    dims : sequence of int, optional
        Numbers of features, one curve each, each ``>= 2``.

    Returns
    -------
    dict
        ``q`` (n,); ``dims``; ``norm`` (len(dims), n), :func:`lnbook.operator_norm`;
        ``bound``, :math:`\varepsilon^{-1/2}`; ``eps``.

    Raises
    ------
    ValueError
        If ``eps`` is not positive and finite, or a ``d`` is below 2.
    TypeError
        If ``dims`` is not a sequence of integers.

    Notes
    -----
    The closed form of :func:`lnbook.operator_norm`: the radial eigenvalue for ``d = 2``, the
    tangential one for ``d >= 3``, never above ``eps**-0.5``. See :ref:`ch-sensitivity`.

    Examples
    --------
    >>> data = operator_norm_data(eps=0.1, dims=(2, 3))
    >>> data["norm"].shape, bool((data["norm"] <= data["bound"]).all())
    ((2, 201), True)
    """
    eps = _checks.eps_value(eps)
    dims = _checks.counts(dims, "dims", minimum=2)
    q = np.logspace(-3, 2, 201)
    _checks.fits(q.size * max(dims), f"{q.size} records of d = max(dims) = {max(dims)}")
    return {"q": q, "dims": list(dims), "eps": float(eps),
            "norm": np.array([operator_norm(_records(q, d), eps=eps) for d in dims]),
            "bound": lipschitz_bound(eps=eps)}


@_checks.public
def amplification_data(*, z: ArrayLike = (7.0, 7.0), delta: ArrayLike = (1e-3, -1e-3)) -> dict:
    r"""The finite ratio ``||u(z + delta) - u(z)|| / ||delta||`` against ``eps``, and ``eps**-1/2``.

    Parameters
    ----------
    z, delta : (d,) array_like, optional
        One record and its perturbation, nonzero.

    Returns
    -------
    dict
        ``z``, ``delta``; ``eps`` (161,), from ``1e-8`` to 1; ``ratio`` (161,),
        :func:`lnbook.amplification`; ``bound`` (161,), :math:`\varepsilon^{-1/2}`.

    Raises
    ------
    ValueError
        If ``z`` is not one finite record, or ``delta`` not of its shape or zero.
    TypeError
        If ``z`` or ``delta`` are not real numbers.

    Notes
    -----
    The ratio, the finite counterpart of :func:`lnbook.operator_norm`, is never above
    ``eps**-0.5`` (:func:`lnbook.lipschitz_bound`). See :ref:`ch-sensitivity`.

    Examples
    --------
    >>> data = amplification_data()
    >>> bool((data["ratio"] <= data["bound"]).all())
    True
    """
    # one record; amplification refuses a delta not of its shape, or zero
    z, eps = _checks.vector(z, "z"), np.logspace(-8, 0, 161)
    ratio = np.array([float(amplification(z, delta, eps=e)) for e in eps])
    return {"z": z.copy(), "delta": np.array(delta, dtype=float), "eps": eps, "ratio": ratio,
            "bound": np.array([lipschitz_bound(eps=e) for e in eps])}


@_checks.public
def shift_geometry_data(*, z: ArrayLike = (2.0, 0.5),
                        shifts: ArrayLike = (-1.5, 0.0, 1.0, 2.0)) -> dict:
    r"""The records ``z + c 1`` for each shift ``c``, and the point ``P z`` they all project to.

    Parameters
    ----------
    z : (2,) array_like, optional
        A record of two features (the figure is the plane of such records).
    shifts : (m,) array_like, optional
        The shifts ``c``.

    Returns
    -------
    dict
        ``z`` (2,), ``shifts`` (m,), ``shifted`` (m, 2) the records ``z + c 1``, and ``Pz``
        (2,), ``z - mean(z) 1``.

    Raises
    ------
    ValueError
        If ``z`` is not a finite record of two features or ``shifts`` not a finite vector.
    TypeError
        If they are not real numbers.

    Notes
    -----
    .. math:: Pz = z - \mu\mathbf 1

    and ``P(z + c 1) = P z`` for every shift ``c``. See :ref:`ch-shift`.

    Examples
    --------
    >>> shift_geometry_data(z=(2.0, 0.5), shifts=(1.0,))["Pz"].tolist()
    [0.75, -0.75]
    """
    # the picture is the plane of records of two features
    z, shifts = _checks.vector(z, "z", size=2), _checks.vector(shifts, "shifts")
    # P z = z - mean(z) 1, of z scaled by a power of two near 1 (where z_1 + z_2 cannot
    # overflow) and scaled back; z + c 1 and P z refused where they pass float64's range
    z1, k = _unit_scale(z)
    Pz = _checks.finite_result(np.ldexp(z1 - z1.mean(), k), "P z, the centered record of z")
    shifted = _checks.finite_result(z + shifts[:, None], "the shifted records z + c 1")
    return {"z": z.copy(), "shifts": shifts.copy(), "shifted": shifted, "Pz": Pz}


@_checks.public
def weighted_projection_data(*, a: ArrayLike = (0.25, 0.75), z: ArrayLike = (4.0, 2.0)) -> dict:
    r"""The oblique projection ``P_a z`` (along ``1``) and the orthogonal one onto ``ker a^T``.

    Parameters
    ----------
    a, z : (2,) array_like, optional
        Centering weights of two features (``a >= 0`` summing to 1), and a record.

    Returns
    -------
    dict
        ``a``, ``z``; ``oblique``, :math:`P_a z = z - (a^\top z)\mathbf 1`; ``orthogonal``,
        the Euclidean projection of ``z`` onto the line ``a^T w = 0``; ``direction``, a
        unit vector of that line.

    Raises
    ------
    ValueError
        If ``a`` are not weights of two features or ``z`` not a finite record of two.
    TypeError
        If they are not real numbers.

    Notes
    -----
    .. math:: P_a = I - \mathbf 1 a^\top

    See :ref:`ch-weighted`.

    Examples
    --------
    >>> weighted_projection_data()["oblique"].tolist()
    [1.5, -0.5]
    """
    # the picture is the plane of records of two features
    a, z = _checks.weights(a), _checks.vector(z, "z", size=2)
    if a.size != 2:
        raise ValueError(f"a must have shape (2,) to match z; got shape {a.shape}")
    direction = np.array([a[1], -a[0]]) / np.hypot(*a)  # a unit vector w with a^T w = 0
    # P_a z = z - (a^T z) 1 and (w^T z) w, of z scaled by a power of two near 1 (where the sums
    # do not overflow) and scaled back: a finite answer stays finite
    z1, k = _unit_scale(z)
    oblique = np.ldexp(weighted_centering_matrix(a) @ z1, k)
    orthogonal = np.ldexp((direction @ z1) * direction, k)
    return {"a": a.copy(), "z": z.copy(), "direction": direction,
            "oblique": _checks.finite_result(oblique, "P_a z for this z"),
            "orthogonal": _checks.finite_result(orthogonal, "the orthogonal projection of z")}


def _unit_scale(z: np.ndarray) -> tuple[np.ndarray, int]:
    """``z / 2**k`` and ``k``, ``2**k`` just above ``max |z|``: exact, so rounding as ``z``."""
    k = int(np.frexp(np.abs(z).max())[1])
    return np.ldexp(z, -k), k


@_checks.public
def record_audit_data(*, shape: tuple[int, int, int] = (2, 4, 6),
                      record: tuple[int, ...] = (1, 2)) -> dict:
    """Which records ``(b, t)`` move when one record changes, for the layer and a wrong axis.

    Parameters
    ----------
    shape : tuple of int, optional
        The shape ``(B, T, d)`` of the seeded Gaussian batch.
    record : tuple of int, optional
        The record ``(b, t)`` that is changed.

    Returns
    -------
    dict
        ``record``; ``layer_norm`` and ``wrong_axis`` (B, T) booleans, whether each record's
        output moved under :func:`lnbook.layer_norm` and under
        :func:`lnbook.wrong_axis_layer_norm` (:func:`lnbook.record_audit`).

    Raises
    ------
    ValueError
        If a size is below 1, the batch would not fit in memory, or ``record`` is outside
        ``(B, T)``.
    TypeError
        If ``shape`` is not three integers or ``record`` not two.

    Notes
    -----
    A per-record layer moves only the changed record; statistics over the wrong axis move its
    whole sequence. See :ref:`ch-records`.

    Examples
    --------
    >>> data = record_audit_data(shape=(2, 3, 4), record=(1, 2))
    >>> int(data["layer_norm"].sum()), int(data["wrong_axis"].sum())
    (1, 3)
    """
    if not isinstance(shape, (tuple, list)) or len(shape) != 3:
        raise TypeError(f"shape must be a tuple (B, T, d); got {_checks.show(shape)}")
    B, T, d = (_checks.count(n, f"shape[{k}]") for k, n in enumerate(shape))
    _checks.fits(B * T * d, f"a batch of shape {(B, T, d)}")
    z = np.random.default_rng(0).normal(size=(B, T, d))
    # record_audit refuses a record outside (B, T); the figure marks it at (b mod B, t mod T)
    moved = record_audit(layer_norm, z, record) > 0
    return {"record": tuple(int(i) % n for i, n in zip(record, (B, T))), "layer_norm": moved,
            "wrong_axis": record_audit(wrong_axis_layer_norm, z, record) > 0}


@_checks.public
def gain_effect_data(*, z: ArrayLike = (1.0, 1.0, -2.0), gamma: ArrayLike = (2.0, 0.0, -1.0),
                     eps: float = 2.0) -> dict:
    r"""The core ``u`` and the scaled core ``gamma ⊙ u`` of one record (bias 0).

    Parameters
    ----------
    z, gamma : (d,) array_like, optional
        One record, and the gain (the figure labels each of its entries: None is refused).
    eps : float, optional
        Stabilizer.

    Returns
    -------
    dict
        ``z``, ``gamma``, ``eps``; ``u`` (d,), :func:`lnbook.core`; ``y`` (d,),
        :func:`lnbook.layer_norm` without bias.

    Raises
    ------
    ValueError
        If ``z`` is not one finite record, ``gamma`` not of its size, or ``eps`` invalid.
    TypeError
        If they are not real numbers (``gamma = None`` included).

    Notes
    -----
    .. math:: \mathrm{LN}_\varepsilon(z) - \beta = \gamma \odot u_\varepsilon(z)

    (here with ``beta = 0``). See :ref:`ch-gain`.

    Examples
    --------
    >>> gain_effect_data()["y"].tolist()  # z = (1, 1, -2), gamma = (2, 0, -1), eps = 2
    [1.0, 0.0, 1.0]
    """
    record, eps = _checks.vector(z, "z"), _checks.eps_value(eps)
    if gamma is None:  # ones, to layer_norm; the figure labels each gain
        raise TypeError("gamma must be a gain, a (d,) array of real numbers; got None")
    # y = gamma ⊙ u (beta = 0); layer_norm refuses a gamma not of shape (d,)
    y = layer_norm(record, gamma=gamma, eps=eps)
    return {"z": record.copy(), "gamma": np.array(gamma, dtype=float), "eps": eps, "y": y,
            "u": core(record, eps=eps)}


@_checks.public
def bias_shift_data(*, z: ArrayLike = ((3.0, 3.0, 3.0), (2.0, 3.0, 4.0)),
                    gamma: ArrayLike = (2.0, 0.5, -1.0), beta: ArrayLike = (1.0, -1.0, 2.0),
                    eps: float = 1e-5) -> dict:
    r"""For each record of ``z``: the core ``u``, ``gamma ⊙ u`` and the output ``gamma ⊙ u + beta``.

    Parameters
    ----------
    z : (n, d) array_like, optional
        Records, one panel each.
    gamma, beta : (d,) array_like, optional
        The gain and the bias.
    eps : float, optional
        Stabilizer.

    Returns
    -------
    dict
        ``z``, ``u``, ``scaled`` (``gamma ⊙ u``) and ``y`` (``gamma ⊙ u + beta``), each
        (n, d); ``y_mean`` (n,), the mean of each output.

    Raises
    ------
    ValueError
        If ``z`` is not a finite (n, d) array, ``gamma`` or ``beta`` not of shape (d,), or
        ``eps`` invalid.
    TypeError
        If they are not real numbers.

    Notes
    -----
    .. math:: y = \gamma \odot u_\varepsilon(z) + \beta

    See :ref:`ch-bias`.

    Examples
    --------
    >>> data = bias_shift_data()
    >>> data["y"][0].tolist()  # a constant record: u = 0, y = beta
    [1.0, -1.0, 2.0]
    """
    z = _checks.records(z)
    if z.ndim != 2:
        raise ValueError(f"z must hold records of shape (n, d), one panel each; got shape "
                         f"{z.shape}")
    # y = gamma ⊙ u + beta
    y = layer_norm(z, gamma=gamma, beta=beta, eps=eps)
    return {"z": z.copy(), "u": core(z, eps=eps), "scaled": layer_norm(z, gamma=gamma, eps=eps),
            "y": y, "y_mean": y.mean(axis=-1)}


@_checks.public
def core_bound_data(*, dims: Sequence[int] = (2, 3, 4, 6, 8, 12, 16), n: int = 200,
                    seed: int = 3) -> dict:
    r"""The largest ``|u_i|`` of seeded Cauchy records per ``d``, the extreme records, the bound.

    Parameters
    ----------
    dims : sequence of int, optional
        Numbers of features, each ``>= 2``.
    n, seed : int, optional
        Records per ``d``, and the seed of their Cauchy draws.

    Returns
    -------
    dict
        ``dims``; ``largest``, one (n,) array per ``d`` of ``max_i |u_i|`` (``eps = 0``);
        ``extreme`` (len(dims),), that of ``(d - 1, -1, ..., -1)``; ``grid`` and ``bound``,
        ``sqrt(d - 1)`` on a grid of ``d``.

    Raises
    ------
    ValueError
        If a ``d`` is below 2, ``n`` below 1, ``seed`` negative, or the records do not fit.
    TypeError
        If a count is not an integer.

    Notes
    -----
    With ``eps = 0``, ``max_i |u_i| <= sqrt(d - 1)``, attained by ``(d - 1, -1, ..., -1)``;
    see :ref:`ch-exercises`.

    Examples
    --------
    >>> data = core_bound_data(dims=(2, 5), n=10)
    >>> data["extreme"].round(12).tolist()  # sqrt(1), sqrt(4)
    [1.0, 2.0]
    """
    # eps = 0: every record needs two different features
    dims_arr = np.asarray(_checks.counts(dims, "dims", minimum=2))
    n = _checks.count(n, "n")
    rng = np.random.default_rng(_checks.count(seed, "seed", minimum=0))
    d_max = int(dims_arr.max())
    _checks.fits(n * d_max, f"n = {n} records of d = {d_max} (the largest of dims)")
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
    r"""The errors of cores against offsets, the guide ``|mu|/sigma``, the 4-ulp line and the ticks.

    Parameters
    ----------
    offsets : (m,) array_like
        Offsets :math:`|\mu|/\sigma`, positive.
    errors : dict of str to (m,) array_like
        Errors in ulps, one per offset, by label (as :func:`lnbook.fp.offset_errors` gives them).
    max_ticks : int, optional
        At most this many ticks per axis, at least 2.

    Returns
    -------
    dict
        ``offsets``; ``errors`` as arrays; ``guide``, the offsets again (the error of an
        uncorrected mean); ``limit``, 4; ``xticks`` and ``yticks``, at most ``max_ticks``
        powers of ten each (``yticks`` from 0).

    Raises
    ------
    ValueError
        If ``offsets`` are not positive and finite, an error series is not of their size,
        negative or not finite, or ``max_ticks < 2``.
    TypeError
        If ``errors`` is not a non-empty dict with string labels.

    Notes
    -----
    An uncorrected mean errs by about :math:`|\mu|/\sigma` ulps. See :ref:`ch-floating-point`.

    Examples
    --------
    >>> data = offset_error_data([1.0, 1e6], {"core": [0.5, 1.0]})
    >>> data["xticks"].tolist(), data["limit"]
    ([1.0, 100.0, 10000.0, 1000000.0], 4.0)
    """
    offsets = _checks.vector(offsets, "offsets")
    if (offsets <= 0).any():
        raise ValueError(f"offsets must be positive ratios; got {_checks.show(offsets.tolist())}")
    if not isinstance(errors, dict) or not errors:
        raise TypeError(f"errors must be a non-empty dict label -> errors per offset; got "
                        f"{_checks.show(errors)}")
    if not all(isinstance(label, str) for label in errors):
        raise TypeError(f"errors' labels must be strings; got {_checks.show(list(errors))}")
    series = {k: _checks.vector(e, f"errors[{k!r}]", size=offsets.size).copy()
              for k, e in errors.items()}
    if any((e < 0).any() for e in series.values()):
        raise ValueError("errors must be errors in ulps, >= 0")
    max_ticks = _checks.count(max_ticks, "max_ticks", minimum=2)
    top = max([offsets.max(), 4.0] + [float(e.max()) for e in series.values()])
    return {"offsets": offsets.copy(), "errors": series, "guide": offsets.copy(), "limit": 4.0,
            "xticks": _decade_ticks(offsets.min(), offsets.max(), max_ticks),
            "yticks": _decade_ticks(1.0, top, max_ticks, zero=True)}


@_checks.public
def eps_placement_data(*, z: ArrayLike = (1.0, 2.0, 3.0, 4.0),
                       conventions: Sequence[str] = ("keras", "pytorch", "flax", "bert",
                                                     "annotated"),
                       ) -> dict:
    r"""The RMS of each convention's output on ``alpha z`` against the standard deviation of it.

    Parameters
    ----------
    z : (d,) array_like, optional
        A record of some spread (not constant), ``d >= 2``.
    conventions : sequence of str, optional
        Keys of :data:`lnbook.frameworks.CONVENTIONS`.

    Returns
    -------
    dict
        ``z``; ``sigma`` (201,), standard deviations from ``1e-9`` to 10; ``keys`` and
        ``conventions`` (each one's entry of ``lnbook.frameworks.CONVENTIONS``); ``rms``
        (k, 201); ``plateaus``, 1 and :math:`\sqrt{(d-1)/d}`; ``d``.

    Raises
    ------
    ValueError
        If ``z`` is constant or not finite, or a key is unknown.
    TypeError
        If ``conventions`` is not a sequence of strings.

    Notes
    -----
    The output's RMS is ``sqrt(q / (q + eps))`` with eps inside the root and
    ``sigma / (sigma_hat + eps)`` outside, ``sigma_hat`` the standard deviation of the
    convention's divisor. See :ref:`ch-frameworks`.

    Examples
    --------
    >>> data = eps_placement_data(conventions=("pytorch",))
    >>> round(float(data["rms"][0, -1]), 6)  # sigma = 10: eps = 1e-5 is negligible
    1.0
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
    # a z has population standard deviation a sqrt(q(z)); q of z scaled by a power of two
    # (exactly) near 1, where it neither overflows nor underflows
    z1 = _unit_scale(z)[0]
    records = (sigma / np.sqrt(z1.var()))[:, None] * z1
    rms = np.array([np.sqrt((convention_layer_norm(records, convention=key) ** 2).mean(axis=-1))
                    for key in conventions])
    return {"z": z.copy(), "sigma": sigma, "keys": list(conventions),
            "conventions": [CONVENTIONS[k] for k in conventions],
            "rms": rms, "plateaus": (1.0, float(np.sqrt((d - 1) / d))), "d": d}


@_checks.public
def benchmark_ratios_data(results: dict) -> dict:
    r"""The per-round ratios of each timed race in a ``benchmarks/results.json`` dict.

    Parameters
    ----------
    results : dict
        The file's contents: ``results["results"]`` maps a benchmark to a race or a list of
        races, each with a ``name``, a ``result`` (``per round``, ``median``) and a ``target``
        (``comparison``, ``bound``); entries without a ``result`` (the accuracy benchmark) and
        races whose ``target`` is None (informational races, such as RMSNorm against
        LayerNorm) are skipped.

    Returns
    -------
    dict
        ``names``, ``rounds`` (one array per race), ``median``, ``target``, ``comparison``
        (``"<="`` or ``">="``) and ``met``, each median's verdict against its target.

    Raises
    ------
    ValueError
        If a race lacks a field, a ratio is not positive and finite, or there is no race.
    TypeError
        If ``results`` or a race is not a dict.

    Notes
    -----
    A race is met when its median ``m`` satisfies ``m <= bound`` (or ``m >= bound``). See
    :ref:`ch-benchmarks`.

    Examples
    --------
    >>> race = {"name": "r", "result": {"per round": [1.0, 3.0, 2.0], "median": 2.0},
    ...         "target": {"comparison": "<=", "bound": 1.0}}
    >>> benchmark_ratios_data({"results": {"r": race}})["met"]
    [False]
    """
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise TypeError("results must be the dict of benchmarks/results.json, with a dict "
                        f"'results'; got {_checks.show(results)}")
    races = []
    for key, value in results["results"].items():
        where = f"results['results'][{key!r}]"
        for race in value if isinstance(value, list) else [value]:
            if not isinstance(race, dict):
                raise TypeError(f"{where} must be a race (a dict) or a list of races; got "
                                f"{_checks.show(race)}")
            # the accuracy benchmark has no result; an informational race no target
            if "result" not in race or ("target" in race and race["target"] is None):
                continue
            try:
                name, result, target = race["name"], race["result"], race["target"]
                rounds, median = result["per round"], result["median"]
                comparison, bound = target["comparison"], target["bound"]
            except (KeyError, TypeError) as exc:
                raise ValueError(f"{where}: a race needs a name, a result (per round, median) "
                                 f"and a target (comparison, bound); missing {exc}") from None
            if not isinstance(name, str):
                raise TypeError(f"{where}: the name must be a string; got {_checks.show(name)}")
            rounds = _checks.vector(rounds, f"{where}: per round")
            if (rounds <= 0).any():
                raise ValueError(f"{where}: the ratios per round must be positive")
            races.append((name, rounds, _checks.positive(median, f"{where}: median"),
                          _checks.positive(bound, f"{where}: bound"),
                          _checks.choice(comparison, f"{where}: comparison", ("<=", ">="))))
    if not races:
        raise ValueError("results holds no timed race (one with a 'result')")
    names, rounds, median, target, comparison = (list(x) for x in zip(*races))
    met = [bool(m <= t) if c == "<=" else bool(m >= t)
           for m, t, c in zip(median, target, comparison)]
    return {"names": names, "rounds": rounds, "median": np.array(median),
            "target": np.array(target), "comparison": comparison, "met": met}


@_checks.public
def placement_gradients_data(*, depths: Sequence[int] = (2, 4, 8, 16, 32), d: int = 32,
                             seeds: Sequence[int] = (0, 1, 2, 3), L: int = 16,
                             eps: float = 1e-5) -> dict:
    """The gradient norms ``||dl/dW2||_F`` at initialization, Pre-LN and Post-LN, seed-averaged.

    Parameters
    ----------
    depths : sequence of int, optional
        Depths of the bottom panel.
    d : int, optional
        Features of a record (hidden width ``2 d``, eight records).
    seeds : sequence of int, optional
        Seeds of the initializations averaged over.
    L : int, optional
        Depth of the top panel's per-block profile.
    eps : float, optional
        Stabilizer of every LayerNorm.

    Returns
    -------
    dict
        ``placements`` (``("pre", "post")``) and ``labels``; ``L``, ``block`` (``1 .. L``)
        and ``profile`` (2, L), the norm in every block of a stack of depth ``L``; ``depths``
        and ``last`` (2, len(depths)), the norm in the last block of a stack of each depth;
        ``guide``, the line :math:`L^{-1/2}` through Pre-LN's first value.

    Raises
    ------
    ValueError
        If a depth, ``d`` or ``L`` is below 1, a seed negative, or ``eps`` invalid.
    TypeError
        If a count or seed is not an integer.

    Notes
    -----
    Each norm is :func:`lnbook.transformer.layer_gradient_norms` averaged over ``seeds``;
    Pre-LN's last block falls like about :math:`L^{-1/2}` (Xiong et al.). See
    :ref:`ch-transformer`.

    References
    ----------
    :cite:t:`xiong2020layer`

    Examples
    --------
    >>> data = placement_gradients_data(depths=(1, 4), d=4, seeds=(0,), L=2)
    >>> data["profile"].shape, data["last"].shape, float(data["guide"][1] / data["guide"][0])
    ((2, 2), (2, 2), 0.5)
    """
    depths_arr = np.asarray(_checks.counts(depths, "depths"))
    seeds = _checks.counts(seeds, "seeds", minimum=0)
    d, L, eps = _checks.count(d, "d"), _checks.count(L, "L"), _checks.eps_value(eps)
    # the deepest stack's parameters (transformer.init_blocks), refused naming the parameter
    deepest = max(L, int(depths_arr.max()))
    _checks.fits(transformer._block_entries(deepest, d, 2 * d),
                 f"the parameters of max(L, max(depths)) = {deepest} blocks of d = {d}")
    placements = ("pre", "post")
    # the mean over seeds of ||dl/dW2||_F in blocks 1 .. depth, once per depth and placement
    norms = {(depth, p): np.mean([layer_gradient_norms(depth, d=d, placement=p, seed=s, eps=eps)
                                  for s in seeds], axis=0)
             for depth in {L, *map(int, depths_arr)} for p in placements}
    profile = np.array([norms[L, p] for p in placements])
    last = np.array([[norms[int(depth), p][-1] for depth in depths_arr] for p in placements])
    # guide: last_pre(L_0) (L / L_0)^{-1/2}
    guide = last[0, 0] * (depths_arr / depths_arr[0]) ** -0.5
    return {"placements": placements, "labels": ("Pre-LN", "Post-LN"), "L": int(L),
            "block": np.arange(1, L + 1), "profile": profile,
            "depths": depths_arr, "last": last, "guide": guide}


@_checks.public
def geometry_picture_data(*, z: ArrayLike | None = None, eps: float = 1.0,
                          eps_values: Sequence[float] = (0.1, 1.0)) -> dict:
    r"""The core for ``d = 3`` in the coordinates of the plane ``1^⊥``, and the radial map.

    Parameters
    ----------
    z : (n, 3) array_like, optional
        Records (default: twelve seeded Gaussian records of varied spread around 4).
    eps : float, optional
        Stabilizer of the cores ``u_eps``.
    eps_values : sequence of float, optional
        Stabilizers of the radial maps, each ``> 0``.

    Returns
    -------
    dict
        ``z`` (n, 3), ``eps``; ``basis``, :func:`lnbook.geometry.plane_basis` ``(3)``;
        ``v``, ``u_eps`` and ``u_0`` (n, 2), the plane coordinates :math:`b_k^\top x` of
        :math:`v = Pz`, :math:`u_\varepsilon(z)` and :math:`u_0(z)`; ``ray_ends`` (n, 2), the
        farther of ``v`` and ``u_0`` on each ray; ``radius``, :math:`\sqrt 3`; ``lim``, the
        half-width of the view; ``norm_v`` and ``profile`` (k, len(norm_v)), the radial map
        :func:`lnbook.geometry.radial_profile` for each of ``eps_values``.

    Raises
    ------
    ValueError
        If ``z`` is not (n, 3) finite records (or too large for the plane coordinates), ``eps``
        invalid (0 with a constant record), or an ``eps_values`` not positive.
    TypeError
        If they are not real numbers.

    Notes
    -----
    .. math:: \lVert u_\varepsilon(z)\rVert_2 = \frac{\lVert v\rVert_2}
              {\sqrt{\lVert v\rVert_2^2/d + \varepsilon}}

    (here ``d = 3``: the radius is below ``sqrt(3)``). See :ref:`ch-geometry`.

    Examples
    --------
    >>> data = geometry_picture_data(z=[[1.0, 2.0, 3.0]], eps=2 / 3)
    >>> round(float((data["u_0"] ** 2).sum()), 12), round(float((data["u_eps"] ** 2).sum()), 12)
    (3.0, 1.5)
    """
    eps = _checks.eps_value(eps)
    # with eps = 0 the radial map is 0/0 at the origin
    eps_values = [_checks.positive(e, f"eps_values[{k}]")
                  for k, e in enumerate(_checks.eps_values(eps_values))]
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
    return {"z": z.copy(), "eps": float(eps), "basis": Q, "v": v, "u_eps": u_eps, "u_0": u_0,
            "ray_ends": np.where(farther[:, None], v, u_0), "radius": float(np.sqrt(3.0)),
            "lim": max(2.2, float(np.abs(v).max()) * 1.05),
            "eps_values": tuple(float(e) for e in eps_values), "norm_v": norm_v,
            "profile": np.array([radial_profile(norm_v, 3, eps=e) for e in eps_values])}
