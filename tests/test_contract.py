"""One contract for every public function (book/api.md, "Exceptions"): a right value, or a
TypeError/ValueError whose message names one of the function's parameters; nothing else.

First, hypothesis, generically over signatures: for each public callable of lnbook and its
toolkits (lnbook.figures with its own defaults) a draw is a valid call (records of every scale
from 1e-300 to 1e300, offsets up to 1e8, constant records, d = 1, empty batches, eps from 0 to
1e300) in which, two times out of five, one argument is replaced by a hostile value of the kind
its annotation gives. The call runs under ``np.errstate(all="raise")``; a value must pass the
function's check (exact rationals, mpmath or :func:`lnbook.exact_core` where it computes a
formula, otherwise every number finite). The draws are the same every run, and each function
must return a checked value at least once. Then the numerical edges, case by case: extreme
magnitudes, d = 1, empty batches, eps = 0 with a constant record, overflow, sizes that cannot
fit, working copies, every eps and every count, and the cases of issue 33.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import math
import pathlib
import re
import tracemalloc
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lnbook
from lnbook import fp, frameworks, geometry, transformer

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAMESPACES = ["lnbook", "lnbook.fp", "lnbook.frameworks", "lnbook.geometry",
              "lnbook.transformer", "lnbook.figures"]
EXAMPLES = 6
RHO = 2.0**-53
EPS = lnbook.EPS


def public_callables() -> dict:
    """Qualified name -> object, for every callable in the __all__ of every namespace."""
    found = {}
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj):
                found[f"{module_name}.{name}"] = obj
    return found


CALLABLES = public_callables()


# --- references -----------------------------------------------------------------------------


def rows(x):
    x = np.asarray(x, dtype=float)
    return x.reshape(-1, x.shape[-1])


def exact_stats(row, center=True, ddof=0):
    """(mu, variance with divisor d - ddof) of one record, as exact rationals."""
    x = [Fraction(float(t)) for t in row]
    mu = sum(x, Fraction(0)) / len(x) if center else Fraction(0)
    return mu, sum(((t - mu) ** 2 for t in x), Fraction(0)) / (len(x) - ddof)


def rel_close(got, exact, tol):
    """|got - exact| <= tol |exact| + the smallest subnormal (exact: a rational or an mpf)."""
    if isinstance(exact, mpmath.mpf):
        sign, man, exp, _ = exact._mpf_
        exact = (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)
    exact = Fraction(exact)
    return abs(Fraction(float(got)) - exact) <= Fraction(tol) * abs(exact) + Fraction(2**-1074)


def ulps(computed, exact):
    """Normwise error in ulps of each record's largest exact component (the worst record)."""
    if np.size(exact) == 0:
        return 0.0
    c, e = rows(computed), rows(exact)
    unit = np.spacing(np.maximum(np.abs(e).max(axis=-1), 2.0**-1074))
    return float((np.abs(c - e).max(axis=-1) / unit).max())


def mp_scale(row, eps, center=True, ddof=0, eps_inside=True):
    """(v, s) of one record at 60 digits: v = z - mu 1 and the stabilized scale s."""
    mu, var = exact_stats(row, center, ddof)
    with mpmath.workdps(60):
        v = [mpmath.mpf(float(t)) - mpmath.mpf(mu.numerator) / mu.denominator for t in row]
        var = mpmath.mpf(var.numerator) / var.denominator
        e = mpmath.mpf(float(eps))
        return v, (mpmath.sqrt(var + e) if eps_inside else mpmath.sqrt(var) + e)


def mp_core(z, eps, **options):
    out = []
    for row in rows(z):
        v, s = mp_scale(row, eps, **options)
        with mpmath.workdps(60):
            out.append([float(t / s) for t in v])
    return np.array(out).reshape(np.shape(z))


def mp_jacobian(row, eps):
    """J = (I - 1 1^T / d) / s - v v^T / (d s^3), at enough digits for the cancellation of
    d = 2 (down to eps / s^3)."""
    with mpmath.workdps(700):
        x = [mpmath.mpf(float(t)) for t in row]
        d = len(x)
        mu = sum(x) / d
        v = [t - mu for t in x]
        s = mpmath.sqrt(sum(t * t for t in v) / d + mpmath.mpf(float(eps)))
        return np.array([[float(((i == j) - mpmath.mpf(1) / d) / s - v[i] * v[j] / (d * s**3))
                          for j in range(d)] for i in range(d)])


def finite_numbers(value) -> bool:
    """Every number in a (nested) result is finite."""
    if isinstance(value, dict):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(finite_numbers(v) for v in value)
    if isinstance(value, (np.ndarray, float, np.floating)):
        return bool(np.isfinite(value).all())
    return True


# --- checks: each function's value against its reference ------------------------------------


def check_stats(kw, result):
    mu, q = result
    assert mu.shape == q.shape == np.shape(kw["z"])[:-1]
    for row, m, v in zip(rows(kw["z"]), mu.ravel(), q.ravel()):
        m_x, q_x = exact_stats(row)
        assert abs(Fraction(float(m)) - m_x) <= Fraction(4 * RHO) * max(abs(Fraction(t))
                                                                        for t in row)
        assert rel_close(v, q_x, 16 * RHO)


def check_core(kw, u, **options):
    assert u.shape == np.shape(kw["z"]) and u.dtype == np.float64
    assert ulps(u, mp_core(kw["z"], kw.get("eps", EPS), **options)) <= 4


def check_layer(kw, y, eps=None, **options):
    """y = gamma ⊙ u + beta within 8 ulps of u times |gamma| plus two roundings."""
    u = mp_core(kw["z"], kw.get("eps", eps if eps is not None else EPS), **options)
    gamma = 1.0 if kw.get("gamma") is None else np.asarray(kw["gamma"], float)
    beta = 0.0 if kw.get("beta") is None else np.asarray(kw["beta"], float)
    unit = np.spacing(np.abs(u).max(axis=-1, keepdims=True)) if u.size else 0
    tol = 8 * unit * np.abs(gamma) + 2 * np.spacing(np.abs(gamma * u) + np.abs(beta))
    assert y.shape == u.shape and (np.abs(y - (gamma * u + beta)) <= tol).all()


def check_ratio(kw, ratio):
    eps = Fraction(kw.get("eps", EPS))
    assert ratio.shape == np.shape(kw["z"])[:-1]
    for row, got in zip(rows(kw["z"]), ratio.ravel()):
        q = exact_stats(row)[1]
        assert rel_close(got, q / (q + eps) if q else 0, 8 * RHO)


def check_jacobian(kw, J):
    z = np.asarray(kw["z"], float)
    d = z.shape[-1]
    gamma = np.ones(d) if kw.get("gamma") is None else np.asarray(kw["gamma"], float)
    assert J.shape == z.shape + (d,)
    for row, got in zip(rows(z), J.reshape(-1, d, d)):
        assert ulps(got.ravel(), (gamma[:, None] * mp_jacobian(row, kw.get("eps", EPS))).ravel()
                    ) <= 8


def check_radial_tangential(kw, result):
    radial, tangential = result
    eps = kw.get("eps", EPS)
    for row, rad, tan in zip(rows(kw["z"]), radial.ravel(), tangential.ravel()):
        if len(row) == 1:
            assert rad == tan == 0
            continue
        _, s = mp_scale(row, eps)
        with mpmath.workdps(60):
            assert rel_close(rad, mpmath.mpf(float(eps)) / s**3, 8 * RHO)
            assert rel_close(tan, 1 / s, 4 * RHO)


def check_operator_norm(kw, norm):
    eps = kw.get("eps", EPS)
    for row, got in zip(rows(kw["z"]), norm.ravel()):
        _, s = mp_scale(row, eps)
        with mpmath.workdps(60):
            exact = {1: 0, 2: mpmath.mpf(float(eps)) / s**3}.get(len(row), 1 / s)
            assert rel_close(got, exact, 8 * RHO)


def check_input_grad(kw, grad):
    z, g = np.asarray(kw["z"], float), np.asarray(kw["g"], float)
    d = z.shape[-1]
    gamma = np.ones(d) if kw.get("gamma") is None else np.asarray(kw["gamma"], float)
    for row, gr, got in zip(rows(z), rows(g), rows(grad)):
        J = mp_jacobian(row, kw.get("eps", EPS))
        tol = 64 * RHO * np.abs(J).max() * np.abs(gamma * gr).sum() + 2.0**-1060
        assert np.abs(got - J @ (gamma * gr)).max() <= tol


def check_param_grads(kw, result):
    dgamma, dbeta = result
    z, g = rows(kw["z"]), rows(kw["g"])
    u = rows(mp_core(kw["z"], kw.get("eps", EPS)))
    n = max(1, len(z))
    # a computed core's entry errs by a few rho of (|u_k| + max|z| / s): z - mu cancels
    s = np.array([float(mp_scale(r, kw.get("eps", EPS))[1]) for r in z])
    scale = np.abs(u).max(axis=-1) + np.abs(z).max(axis=-1) / s if len(z) else 0
    for k in range(z.shape[-1]):
        gk, uk = g[:, k], u[:, k]
        assert abs(dbeta[k] - math.fsum(gk)) <= 2 * n * RHO * math.fsum(abs(gk)) + 2.0**-1074
        assert abs(dgamma[k] - math.fsum(gk * uk)) <= 8 * n * RHO * math.fsum(abs(gk * uk)) \
            + 8 * RHO * math.fsum(abs(gk) * scale) + 2.0**-1060


def check_response(slope):
    def check(kw, h):
        eps = mpmath.mpf(float(kw.get("eps", EPS)))
        with mpmath.workdps(60):
            for tt, got in zip(np.ravel(kw["t"]), h.ravel()):
                s2 = 2 * mpmath.mpf(float(tt)) ** 2 / 3 + eps
                exact = eps / s2**1.5 if slope else mpmath.mpf(float(tt)) / mpmath.sqrt(s2)
                assert rel_close(got, exact, 8 * RHO)
    return check


def check_lipschitz(kw, bound):
    gamma = 1.0 if kw.get("gamma") is None else float(np.abs(kw["gamma"]).max())
    with mpmath.workdps(60):
        assert rel_close(bound, mpmath.mpf(gamma) / mpmath.sqrt(mpmath.mpf(kw["eps"])), 4 * RHO)


def check_exact_core(kw, u):
    # correctly rounded: the 60-digit value rounds to the same float (ties are negligible)
    assert np.array_equal(u, mp_core(kw["z"], kw.get("eps", EPS), center=kw.get("center", True)))


def check_ulp_error(kw, err):
    fmt = np.dtype(kw.get("dtype", np.float64))
    for c, e, got in zip(rows(kw["computed"]), rows(kw["exact"]), np.ravel(err)):
        unit = Fraction(*np.spacing(np.abs(e).max().astype(fmt)).as_integer_ratio())
        exact = max(abs(Fraction(float(a)) - Fraction(float(b))) for a, b in zip(c, e)) / unit
        assert rel_close(got, exact, 4 * RHO)


def check_float_stats(kw, result):
    """Statistics in a format: of its dtype, and within its own rounding of the exact ones."""
    mu, q = result
    fmt = np.dtype(kw.get("dtype", np.float64))
    assert mu.dtype == q.dtype == fmt
    z = np.asarray(kw["z"], float).astype(fmt).astype(float)
    for row, m, v in zip(rows(z), mu.ravel(), q.ravel()):
        m_x, q_x = exact_stats(row)
        big = max(abs(Fraction(t)) for t in row)
        tol = Fraction(8 * len(row) * float(np.finfo(fmt).eps))
        assert abs(Fraction(float(m)) - m_x) <= tol * big + Fraction(float(np.finfo(fmt).tiny))
        assert abs(Fraction(float(v)) - q_x) <= tol * big * big * 4 + Fraction(
            float(np.finfo(fmt).tiny))


def check_pairwise_sum(kw, total):
    raw = np.asarray(kw["z"])
    arr = np.ascontiguousarray(raw if raw.dtype in (np.float16, np.float32) else raw.astype(float))
    assert total.dtype == arr.dtype and np.array_equal(total, np.sum(arr, axis=-1))


@functools.cache
def depth_by_definition(d):
    """k(d) by its recursive definition (pairwise_depth's Notes)."""
    if d < 8:
        return d - 1
    if d <= 128:
        return (d // 8 - 1) + 3 + d % 8
    d1 = d // 2 - (d // 2) % 8
    return 1 + max(depth_by_definition(d1), depth_by_definition(d - d1))


def check_bfloat16(kw, out):
    x = np.asarray(np.asarray(kw["z"], dtype=float), dtype=np.float32).astype(float)
    assert out.dtype == np.float32
    for a, b in zip(x.ravel(), out.ravel()):
        # the nearest number with 8 significant bits (float32's exponents), ties to even
        e = max(math.frexp(a)[1], -125) if a else 0
        k = Fraction(abs(a)) / Fraction(2) ** (e - 8)
        lo = math.floor(k)
        k = lo + (k - lo > Fraction(1, 2) or (k - lo == Fraction(1, 2) and lo % 2))
        assert float(b) == math.copysign(float(k * Fraction(2) ** (e - 8)), a)


def check_merge(kw, result):
    n, mu, q = result
    (na, mua, qa), (nb, mub, qb) = kw["part_a"], kw["part_b"]
    rho = float(np.finfo(np.asarray(mu).dtype).eps)
    fa, fb = Fraction(int(na)), Fraction(int(nb))
    delta = Fraction(float(mub)) - Fraction(float(mua))
    assert int(n) == na + nb
    assert abs(Fraction(float(mu)) - Fraction(float(mua)) - delta * fb / (fa + fb)) <= Fraction(
        8 * rho) * (abs(Fraction(float(mua))) + abs(delta)) + Fraction(2**-1074)
    exact_q = (fa * Fraction(float(qa)) + fb * Fraction(float(qb))
               + delta**2 * fa * fb / (fa + fb)) / (fa + fb)
    assert rel_close(q, exact_q, 16 * rho)


def check_rms_jacobian(kw, J):
    d = np.shape(kw["z"])[-1]
    eps = kw.get("eps", EPS)
    for row, got in zip(rows(kw["z"]), J.reshape(-1, d, d)):
        with mpmath.workdps(60):
            # (I - w w^T) / r + (eps / r^3) w w^T with w = z / |z|: no cancellation
            x = [mpmath.mpf(float(t)) for t in row]
            e = mpmath.mpf(float(eps))
            norm = mpmath.sqrt(sum(t * t for t in x))
            r = mpmath.sqrt(norm**2 / d + e)
            w = [t / norm if norm else mpmath.mpf(0) for t in x]
            exact = np.array([[float(((i == j) - w[i] * w[j]) / r + e / r**3 * w[i] * w[j])
                               for j in range(d)] for i in range(d)])
        assert ulps(got.ravel(), exact.ravel()) <= 8


def check_core_radius(kw, radius):
    for row, got in zip(rows(kw["z"]), radius.ravel()):
        v, s = mp_scale(row, kw.get("eps", EPS))
        with mpmath.workdps(60):
            assert rel_close(got, mpmath.sqrt(sum(t * t for t in v)) / s, 8 * RHO)


def check_radial_profile(kw, out):
    with mpmath.workdps(60):
        for r, got in zip(np.ravel(kw["r"]), out.ravel()):
            x = mpmath.mpf(float(r))
            exact = x / mpmath.sqrt(x * x / kw["d"] + mpmath.mpf(float(kw.get("eps", EPS))))
            assert rel_close(got, exact, 8 * RHO)


def check_variant(kw, y, convention=None):
    c = frameworks.CONVENTIONS[convention] if convention else None
    opts = {k: getattr(c, k) if c else kw.get(k, default) for k, default in
            (("ddof", 0), ("eps_inside", True), ("center", True), ("fast_variance", False))}
    if opts.pop("fast_variance"):  # the literal one-pass formula: witnessed by the peers
        assert finite_numbers(y)
        return
    eps = kw["eps"] if kw.get("eps") is not None else c.eps
    check_layer({**kw, "eps": eps}, y, **opts)


def check_wrong_axis(kw, y):
    axis = kw.get("axis", -2) % np.ndim(kw["z"])
    moved = np.ascontiguousarray(np.moveaxis(np.asarray(kw["z"], float), axis, -1))
    assert ulps(np.moveaxis(y, axis, -1), mp_core(moved, kw.get("eps", EPS))) <= 4


def check_audit(kw, moved):
    assert moved.shape == np.shape(kw["z"])[:-1] and (moved >= 0).all()
    if kw["f"] is lnbook.layer_norm:  # a per-record layer moves the changed record only
        others = np.ones(moved.shape, bool)
        others[tuple(kw["record"])] = False
        assert not moved[others].any()


def check_equal(expected):
    def check(kw, value):
        assert np.array_equal(value, expected(kw))
    return check


def check_plane_basis(kw, Q):
    d = kw["d"]
    assert Q.shape == (d - 1, d) and np.abs(Q @ Q.T - np.eye(d - 1)).max() <= 8 * d * RHO
    assert np.abs(Q.sum(axis=1)).max() <= 8 * d * RHO


CHECKS = {
    "lnbook.stats": check_stats,
    "lnbook.core": check_core,
    "lnbook.layer_norm": check_layer,
    "lnbook.normalized_variance": check_ratio,
    "lnbook.jacobian": check_jacobian,
    "lnbook.jacobian_eigenvalues": check_radial_tangential,
    "lnbook.input_grad": check_input_grad,
    "lnbook.param_grads": check_param_grads,
    "lnbook.operator_norm": check_operator_norm,
    "lnbook.lipschitz_bound": check_lipschitz,
    "lnbook.response": check_response(False),
    "lnbook.response_slope": check_response(True),
    "lnbook.centering_matrix": check_equal(lambda kw: np.eye(kw["d"]) - 1.0 / kw["d"]),
    "lnbook.weighted_centering_matrix": check_equal(
        lambda kw: np.eye(np.size(kw["a"])) - np.asarray(kw["a"], float)[None, :]),
    "lnbook.rms_norm": functools.partial(check_core, center=False),
    "lnbook.batch_norm": lambda kw, y: check_core({**kw, "z": np.asarray(kw["z"]).T}, y.T),
    "lnbook.record_audit": check_audit,
    "lnbook.wrong_axis_layer_norm": check_wrong_axis,
    "lnbook.exact_core": check_exact_core,
    "lnbook.ulp_error": check_ulp_error,
    "lnbook.fp.welford": check_float_stats,
    "lnbook.fp.chan_stats": check_float_stats,
    "lnbook.fp.merge_stats": check_merge,
    "lnbook.fp.pairwise_sum": check_pairwise_sum,
    "lnbook.fp.pairwise_depth": lambda kw, k: k == depth_by_definition(kw["d"]),
    "lnbook.fp.round_bfloat16": check_bfloat16,
    "lnbook.frameworks.layer_norm_variant": check_variant,
    "lnbook.frameworks.convention_layer_norm": lambda kw, y: check_variant(
        kw, y, kw["convention"]),
    "lnbook.geometry.plane_basis": check_plane_basis,
    "lnbook.geometry.core_radius": check_core_radius,
    "lnbook.geometry.radial_profile": check_radial_profile,
    "lnbook.transformer.rms_jacobian": check_rms_jacobian,
}


# --- valid arguments, by parameter name ------------------------------------------------------

# the first of each is the simplest draw, that hypothesis tries first: a plain valid call
SCALES = [1.0, 1e-300, 1e-150, 1e-5, 1.0, 37.0, 1e5, 1e150, 1e300]
EPSILONS = [1e-5, 0.0, 1e-300, 1e-12, 0.1, 1.0, 3.0, 1e300]
POSITIVE = [e for e in EPSILONS if e > 0]
FORMATS = [np.float16, np.float32, np.float64]


def rng_of(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def draw_records(data, *, d=None, lead=None, max_d=6, max_lead=2):
    """Records sigma (r 1 + x), some constant, some small integers, some batches empty."""
    rng = rng_of(data)
    d = data.draw(st.integers(1, max_d), label="d") if d is None else d
    if lead is None:
        lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=max_lead), label="lead"))
    scale = data.draw(st.sampled_from(SCALES), label="scale")
    offset = data.draw(st.sampled_from([0.0, 0.0, 1.0, 1e3, 1e8]), label="offset")
    kind = data.draw(st.sampled_from(["normal", "normal", "normal", "constant", "ints"]))
    shape = tuple(lead) + (d,)
    if kind == "ints":
        return rng.integers(-5, 6, size=shape).astype(np.float64)
    x = np.ones(shape) * rng.normal() if kind == "constant" else rng.standard_normal(shape)
    return scale * (offset + x)


def like(data, z, scales=(1e-5, 1.0, 1e3)):
    return rng_of(data).standard_normal(np.shape(z)) * data.draw(st.sampled_from(scales))


def vector(data, d, scales=(0.0, 1.0, 3.0, 1e-3)):
    return rng_of(data).normal(size=d) * data.draw(st.sampled_from(scales))


def features(kw):
    return np.shape(kw["z"])[-1]


def part(data):
    fmt = data.draw(st.sampled_from([np.float32, np.float64]))
    return (data.draw(st.one_of(st.integers(1, 100), st.integers(2**60, 2**62))),
            fmt(data.draw(st.floats(-1e3, 1e3))), fmt(data.draw(st.floats(0, 1e3))))


# generators of a valid value, by parameter name: (data, the arguments drawn so far) -> value
GENERATORS = {
    "f": lambda data, kw: data.draw(st.sampled_from([lnbook.layer_norm, lnbook.rms_norm,
                                                     lnbook.wrong_axis_layer_norm])),
    "z": lambda data, kw: draw_records(data),
    "computed": lambda data, kw: vector(data, 4, (1.0, 1e-3)),
    "exact": lambda data, kw: kw["computed"] + vector(data, 4, (0.0, 1e-16)),
    "g": lambda data, kw: like(data, kw["z"]),
    "delta": lambda data, kw: like(data, kw["z"], (1e-3, 1.0)),
    "record": lambda data, kw: tuple(int(i) for i in rng_of(data).integers(
        0, np.shape(kw["z"])[:-1])),
    "a": lambda data, kw: (lambda w: w / w.sum())(np.abs(vector(data, data.draw(
        st.integers(1, 6)), (1.0,))) + 0.1),
    "t": lambda data, kw: draw_records(data, max_lead=1),
    "q": lambda data, kw: np.abs(vector(data, data.draw(st.integers(1, 4)), (1.0, 1e-5, 1e5))),
    "r": lambda data, kw: np.abs(draw_records(data, max_lead=1)),
    "offsets": lambda data, kw: 10.0 ** rng_of(data).integers(0, 9, data.draw(st.integers(1, 3))),
    "errors": lambda data, kw: {"a": np.abs(like(data, kw["offsets"])), "b": kw["offsets"]},
    "results": lambda data, kw: json.loads((ROOT / "benchmarks" / "results.json").read_text()),
    "part_a": lambda data, kw: part(data),
    "part_b": lambda data, kw: part(data),
    "lo": lambda data, kw: 10.0 ** data.draw(st.integers(-300, 0)),
    "hi": lambda data, kw: kw["lo"] * 10.0 ** data.draw(st.integers(0, 300)),
    "L": lambda data, kw: data.draw(st.integers(1, 3)),
    "d": lambda data, kw: data.draw(st.integers(1, 9)),
    "gamma": lambda data, kw: vector(data, features(kw)) if data.draw(st.booleans()) else None,
    "beta": lambda data, kw: vector(data, features(kw)) if data.draw(st.booleans()) else None,
    "blocks": lambda data, kw: transformer.init_blocks(data.draw(st.integers(1, 3)),
                                                       features(kw), seed=1),
    "eps": lambda data, kw: data.draw(st.sampled_from(EPSILONS), label="eps"),
    "dtype": lambda data, kw: data.draw(st.sampled_from(FORMATS)),
    "convention": lambda data, kw: data.draw(st.sampled_from(list(frameworks.CONVENTIONS))),
    "placement": lambda data, kw: data.draw(st.sampled_from(["pre", "post"])),
    "seed": lambda data, kw: data.draw(st.integers(0, 9)),
    "center": lambda data, kw: data.draw(st.booleans()),
}
# a valid call of these functions needs more than the generic draw (every other parameter
# of every function, the figures' above all, keeps its default unless it has none)
SPECIAL = {
    "lnbook.lipschitz_bound": {"eps": lambda data, kw: data.draw(st.sampled_from(POSITIVE)),
                               "gamma": lambda data, kw: vector(data, 3, (1.0, 1e3))},
    "lnbook.amplification": {"z": lambda data, kw: draw_records(data, max_lead=1)},
    "lnbook.batch_norm": {"z": lambda data, kw: draw_records(data, lead=(
        data.draw(st.integers(1, 4)),))},
    "lnbook.record_audit": {"z": lambda data, kw: draw_records(data, lead=(2, 3))},
    "lnbook.wrong_axis_layer_norm": {
        "z": lambda data, kw: draw_records(data, lead=(data.draw(st.integers(1, 3)), 2)),
        "axis": lambda data, kw: data.draw(st.sampled_from([0, 1, -2, -3]))},
    "lnbook.central_difference_jacobian": {
        "f": lambda data, kw: data.draw(st.sampled_from([np.sin, np.square, np.cumsum])),
        "z": lambda data, kw: vector(data, 3, (1.0,)),
        "tau": lambda data, kw: data.draw(st.sampled_from([1e-6, 1e-4, 1e-3]))},
    "lnbook.exact_core": {"z": lambda data, kw: draw_records(data, max_lead=1, max_d=4),
                          "dps": lambda data, kw: data.draw(st.sampled_from([None, 5, 30]))},
    "lnbook.ulp_error": {"dtype": lambda data, kw: data.draw(st.sampled_from(
        FORMATS + [np.longdouble]))},
    "lnbook.fp.welford": {"z": lambda data, kw: draw_records(data) % 1e4},
    "lnbook.fp.chan_stats": {"z": lambda data, kw: draw_records(data, max_d=20) % 1e4,
                             "block": lambda data, kw: data.draw(st.integers(1, 8))},
    "lnbook.fp.one_pass_stats": {"z": lambda data, kw: draw_records(data) % 1e4},
    "lnbook.fp.pairwise_sum": {"z": lambda data, kw: (draw_records(data, max_d=300) % 6e4
                                                      ).astype(data.draw(st.sampled_from(
                                                          FORMATS)))},
    "lnbook.fp.pairwise_depth": {"d": lambda data, kw: data.draw(st.one_of(
        st.integers(1, 300), st.integers(1, 2**63 - 1)))},
    "lnbook.fp.round_bfloat16": {"z": lambda data, kw: draw_records(data) % 1e30},
    "lnbook.fp.offset_errors": {"d": lambda data, kw: data.draw(st.integers(1, 5)),
                                "n": lambda data, kw: data.draw(st.integers(1, 2)),
                                "sigma": lambda data, kw: data.draw(st.sampled_from(
                                    [1e-3, 1.0, 1e5]))},
    "lnbook.frameworks.layer_norm_variant": {
        "z": lambda data, kw: draw_records(data, d=data.draw(st.integers(2, 6))),
        "ddof": lambda data, kw: data.draw(st.integers(0, 1)),
        **{k: lambda data, kw: data.draw(st.booleans())
           for k in ("eps_inside", "center", "fast_variance")}},
    "lnbook.frameworks.convention_layer_norm": {
        "z": lambda data, kw: draw_records(data, d=data.draw(st.integers(2, 6))),
        "eps": lambda data, kw: data.draw(st.sampled_from([None, 0.0, 1e-5, 1.0]))},
    "lnbook.geometry.plane_basis": {"d": lambda data, kw: data.draw(st.integers(2, 9))},
    "lnbook.transformer.init_blocks": {"d": lambda data, kw: data.draw(st.integers(1, 4)),
                                       "m": lambda data, kw: data.draw(st.sampled_from(
                                           [None, 1, 3]))},
    "lnbook.transformer.residual_forward": {
        "z": lambda data, kw: draw_records(data, max_d=4),
        "eps": lambda data, kw: data.draw(st.sampled_from(POSITIVE))},
    "lnbook.transformer.residual_backward": {
        "z": lambda data, kw: draw_records(data, max_d=4),
        "eps": lambda data, kw: data.draw(st.sampled_from(POSITIVE))},
    "lnbook.transformer.layer_gradient_norms": {
        "d": lambda data, kw: data.draw(st.integers(1, 4)),
        "T": lambda data, kw: data.draw(st.integers(1, 3)),
        "eps": lambda data, kw: data.draw(st.sampled_from(POSITIVE))},
    "lnbook.transformer.rms_jacobian": {"z": lambda data, kw: draw_records(data, max_lead=1)},
}


# the figures' parameters of their sizes, kept small (their defaults draw the book's figures)
SMALL = {"depths": (1, 2), "seeds": (0,), "L": 2, "d": 4, "n": 5, "dims": (2, 3)}


def valid_call(data, name, fn) -> dict:
    """Arguments of a valid call: every parameter without a default, and, outside the
    figures, every parameter that has a generator, drawn; the others keep their defaults
    (the figures' sizes small)."""
    special = SPECIAL.get(name, {})
    kw: dict = {}
    for p in inspect.signature(fn).parameters.values():
        if ".figures." in name and p.name in SMALL and p.default is not p.empty:
            kw[p.name] = SMALL[p.name]
        elif p.name in special:
            kw[p.name] = special[p.name](data, kw)
        elif p.default is p.empty or (p.name in GENERATORS and ".figures." not in name):
            if p.name not in GENERATORS:
                pytest.fail(f"{name}: no generator for its parameter {p.name}: add one to "
                            "GENERATORS in tests/test_contract.py")
            kw[p.name] = GENERATORS[p.name](data, kw)
    return kw


# --- hostile values, by the kind the annotation gives -----------------------------------------

HOSTILE = {
    "array": [np.array([1.0, np.nan]), np.array([[np.inf, 1.0]]), "abc", None,
              np.array([True, False]), np.array([1 + 1j, 2.0]), np.array([object(), 1.0]),
              np.float64(3.0), np.zeros((2, 0)), [[1.0, 2.0], [3.0]], [2**62 + 1, 2**62],
              np.ma.masked_array([1.0, 2.0], [0, 1]), np.ones((2, 3, 4))],
    "float": [-1e-5, math.nan, math.inf, 10**400, "1e-5", True, None, 1j, [1.0], -math.inf],
    "int": [2.5, -1, 0, True, "3", None, 2**70, np.float64(2.0), -(2**70)],
    "bool": ["False", 1, None, 0.5, np.float64(0.0)],
    "str": [None, 1, "unknown", ["pre"]],
    "seq": [[], "abc", [2.5], [-1], None, [math.nan], [True], 3,
            np.ma.masked_array([0.1, 0.2], [0, 1])],
    "dict": [[], None, {"x": 1}, "results", {}],
    "callable": [None, 1, "f"],
    "tuple": [(True,), (0.5,), (10**9,), 3, None, (0, 0, 0, 0)],
    "blocks": [[], [1], "x", [{}], [{"W1": "x"}], None],
    "dtype": ["int32", complex, "nope", object, np.bool_, np.float16(1.0)],
}
KINDS = [("Callable", "callable"), ("list[dict]", "blocks"), ("dict", "dict"),
         ("DTypeLike", "dtype"), ("Sequence", "seq"), ("tuple[int", "tuple"),
         ("tuple[ArrayLike", "seq"), ("ArrayLike", "array"), ("float", "float"),
         ("bool", "bool"), ("int", "int"), ("str", "str")]


def kind_of(name: str) -> str:
    """The hostile pool of a parameter, by its type in book/api.md's table (the plot
    functions' contract, in tests/test_plotting.py, draws from the same pools)."""
    page = (ROOT / "book" / "api.md").read_text().split("### Parameter names")[1]
    type_ = re.search(rf"^\| `{name}` \| \w+ \| `(.+?)` \|", page, re.M)[1]
    return next((kind for key, kind in KINDS if key in type_), None) or pytest.fail(
        f"no hostile pool for {name}: {type_}")


def hostile_pool(annotation: object) -> list:
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    return next((HOSTILE[kind] for key, kind in KINDS if key in text), [None, "x", object()])


def names_a_parameter(message: str, names) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", message) for n in names)


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_contract(name):
    """A right value, or a TypeError/ValueError naming a parameter; never anything else,
    under a caller's np.errstate(all="raise")."""
    fn = CALLABLES[name]
    params = inspect.signature(fn).parameters
    outcomes: dict = {"value": 0, "refused": []}

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def run(data):
        kw = valid_call(data, name, fn)
        if params and data.draw(st.integers(0, 4), label="hostile?") >= 3:
            hostile = data.draw(st.sampled_from(sorted(params)), label="argument")
            kw[hostile] = data.draw(st.sampled_from(hostile_pool(params[hostile].annotation)))
        try:
            with np.errstate(all="raise"):
                result = fn(**kw)
        except (TypeError, ValueError) as exc:
            outcomes["refused"].append(f"{type(exc).__name__}: {exc}")
            assert names_a_parameter(str(exc), params), f"{name}: names no parameter: {exc}"
            return
        outcomes["value"] += 1
        assert finite_numbers(result), f"{name} returned a number that is not finite"
        with np.errstate(all="ignore"):
            assert CHECKS.get(name, lambda kw, r: True)(kw, result) is not False

    run()
    assert outcomes["value"] > 0, f"{name}: no draw reached the computation ({outcomes})"


# --- the numerical edges ----------------------------------------------------------------------


def refused(kind, name, call):
    """``call()`` raises ``kind`` naming ``name`` under np.errstate(all="raise"); the message."""
    with np.errstate(all="raise"), pytest.raises(kind) as info:
        call()
    assert name in str(info.value), f"the message does not name {name}: {info.value}"
    return str(info.value)


EXTREMES = [
    # (z, eps, center): q + eps subnormal, squares underflowing, squares overflowing
    ([3e-162, 0.0, 0.0], 5e-324, True),
    ([3e-162, 0.0, 0.0], 0.0, True),
    ([3e-162, 0.0, 0.0], 1e-5, True),  # eps 4^k would overflow: k is capped
    ([1e-200, -1e-200], 0.0, True),
    ([5e-324, 0.0, 1e-323], 1e-300, True),  # a core of 1e-173 from subnormal entries
    ([1e-300, 2e-300, 4e-300, 8e-300], 1e-310, True),
    ([1e300, -1e300, 0.0], 1e-5, True),  # squares overflow
    ([1.7e308, 1.7e308, 1.6e308], 1e-5, True),  # the sum itself overflows
    ([1e300, -1e300, 3e299], 1e308, True),  # q + eps overflows
    ([1e200, 1.0], 1e-5, True),  # one entry lost below the other's ulp once scaled
    ([1e-160, 3e-160], 1e308, True),  # a deep subnormal core: the cap on k binds
    ([1e150, 1e150], 1e-12, True),  # a huge constant record: s = sqrt(eps)
    ([1.0, 1.0 + 2**-52, 1.0 - 2**-53], 0.0, True),
    ([3e-162, 1e-162, 0.0], 0.0, False),  # RMSNorm's
    ([1e-170, 0.0], 0.0, False),
    ([1e200, -3e200], 1e-5, False),
    ([5e-324, 0.0], 1e-5, True),  # a subnormal spread: the ratio q / (q + eps) underflows
    ([0.0, 1e-310], 1e-5, True),
]


@pytest.mark.parametrize(("z", "eps", "center"), EXTREMES)
def test_extreme_magnitudes_against_exact_core(z, eps, center):
    """At the ends of float64's range the core is within 2 ulps of the correctly rounded
    core (exact_core against a 60-digit mpmath core), and the output, the Jacobian's
    eigenvalues and the core's length within a few rho of mpmath's."""
    exact = lnbook.exact_core(z, eps=eps, center=center)
    # (mpmath's float() of a subnormal may round twice: within one ulp there)
    assert ulps(exact, mp_core(z, eps, center=center)) <= (1 if np.abs(exact).max() < 2.0**-1022
                                                           else 0)
    got = lnbook.core(z, eps=eps) if center else lnbook.rms_norm(z, eps=eps)
    assert ulps(got, exact) <= 2, (got, exact)
    if center:
        check_layer({"z": z, "eps": eps, "beta": np.ones(len(z))},
                    lnbook.layer_norm(z, beta=np.ones(len(z)), eps=eps))
        if eps > 0:
            check_radial_tangential({"z": z, "eps": eps}, lnbook.jacobian_eigenvalues(z, eps=eps))
            check_core_radius({"z": z, "eps": eps}, geometry.core_radius(z, eps=eps))


def test_one_feature():
    """d = 1: mean z, variance 0, core 0 (eps > 0), Jacobian [[0]], gradients 0, every
    eigenvalue 0; with eps = 0 the core is 0/0 and refused. All by hand."""
    z, g = np.array([[3.0], [-2.0]]), np.array([[1.0], [2.0]])
    assert [a.tolist() for a in lnbook.stats(z)] == [[3.0, -2.0], [0.0, 0.0]]
    assert lnbook.core(z).tolist() == lnbook.exact_core(z).tolist() == [[0.0], [0.0]]
    assert lnbook.layer_norm(z, [2.0], [0.5]).tolist() == [[0.5], [0.5]]
    assert lnbook.jacobian(z).tolist() == [[[0.0]], [[0.0]]]
    assert lnbook.input_grad(z, g).tolist() == [[0.0], [0.0]]
    assert [a.tolist() for a in lnbook.param_grads(z, g)] == [[0.0], [3.0]]
    assert [a.tolist() for a in lnbook.jacobian_eigenvalues(z)] == [[0.0, 0.0]] * 2
    assert lnbook.operator_norm(z).tolist() == lnbook.amplification(z, g).tolist() == [0, 0]
    assert lnbook.rms_norm(z, eps=0).tolist() == [[1.0], [-1.0]]  # z / |z|
    assert geometry.core_radius(z).tolist() == lnbook.normalized_variance(z).tolist() == [0, 0]
    assert transformer.rms_jacobian([2.0], eps=0).tolist() == [[0.0]]  # J z = 0 at eps = 0
    assert fp.welford(z)[1].tolist() == fp.one_pass_stats(z)[1].tolist() == [0.0, 0.0]
    assert fp.pairwise_sum(z).tolist() == fp.chan_stats(z)[0].tolist() == [3.0, -2.0]
    assert lnbook.batch_norm([[1.0], [3.0]], eps=0).tolist() == [[-1.0], [1.0]]
    for call in (lambda: lnbook.core(z, eps=0), lambda: lnbook.jacobian(z, eps=0),
                 lambda: lnbook.input_grad(z, z, eps=0), lambda: geometry.core_radius(z, eps=0)):
        refused(ValueError, "eps = 0", call)
    refused(ValueError, "ddof", lambda: frameworks.layer_norm_variant(z, eps=1.0, ddof=1))


def test_empty_batches():
    """A batch of no records has results of no records, of the right shapes (the gradients
    of the shared gain and bias: zeros); statistics over an empty batch are refused; a batch
    of no records whose d is too large for its gain to fit is refused naming z."""
    e = np.zeros((0, 4))
    assert lnbook.core(e).shape == lnbook.layer_norm(e, np.ones(4)).shape == (0, 4)
    assert [a.shape for a in lnbook.stats(e)] == [(0,), (0,)]
    assert lnbook.jacobian(e).shape == transformer.rms_jacobian(e).shape == (0, 4, 4)
    assert [a.tolist() for a in lnbook.param_grads(e, e)] == [[0.0] * 4] * 2
    assert lnbook.operator_norm(e).shape == geometry.core_radius(e).shape == (0,)
    assert lnbook.exact_core(e).shape == lnbook.input_grad(e, e).shape == (0, 4)
    assert fp.welford(e)[0].shape == fp.pairwise_sum(e).shape == lnbook.ulp_error(e, e).shape
    assert frameworks.convention_layer_norm(e, convention="flax").shape == (0, 4)
    assert transformer.residual_forward(e, transformer.init_blocks(1, 4)).shape == (0, 4)
    refused(ValueError, "B >= 1", lambda: lnbook.batch_norm(e))
    refused(ValueError, "axis 0", lambda: lnbook.wrong_axis_layer_norm(e, axis=0))
    for call in (lnbook.jacobian, fp.welford, fp.chan_stats, fp.pairwise_sum):
        refused(ValueError, "the features of z", lambda call=call: call(np.empty((0, 10**10))))


CONSTANT_EPS0 = [n for n, fn in CALLABLES.items() if {"z", "eps"} <= set(
    inspect.signature(fn).parameters) and ".figures." not in n]


@pytest.mark.parametrize("name", CONSTANT_EPS0)
def test_eps_zero_with_a_constant_record_is_refused(name):
    """eps = 0 and a record of zero spread make the core 0/0: every function that takes z
    and eps refuses it, naming eps (and which record: the second)."""
    fn = CALLABLES[name]
    z = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]])
    kw = {"z": z, "eps": 0.0}
    if "g" in inspect.signature(fn).parameters:
        kw["g"] = np.ones_like(z)
    if "delta" in inspect.signature(fn).parameters:
        kw["delta"] = np.full_like(z, 1e-3)
    if "blocks" in inspect.signature(fn).parameters:
        blocks = transformer.init_blocks(1, 3)
        blocks[0]["W2"][:] = 0.0  # F = 0: the constant record reaches the LayerNorm as it is
        kw["blocks"] = blocks
    if name.endswith(("wrong_axis_layer_norm", "batch_norm")):
        kw["z"] = z.T.copy()
        kw.update(axis=0) if "axis" in inspect.signature(fn).parameters else None
    if name.endswith("convention_layer_norm"):
        kw["convention"] = "pytorch"
    if name.endswith("rms_norm") or name.endswith("rms_jacobian"):
        kw["z"] = np.array([[1.0, 2.0, 4.0], [0.0, 0.0, 0.0]])
    assert "(1,)" in refused(ValueError, "eps = 0", lambda: fn(**kw))


@pytest.mark.parametrize("call, what", [
    (lambda: lnbook.stats([1e200, -1e200]), "variance"),  # q beyond float64 (the core is fine)
    (lambda: lnbook.layer_norm([1, 2, 3], [1, 1, 1.5e308]), "output gamma ⊙ u + beta"),
    (lambda: lnbook.jacobian([5e-324, 0.0, 0.0], eps=0), "Jacobian"),
    (lambda: lnbook.jacobian_eigenvalues([5e-324, 0.0, 0.0], eps=0), "eigenvalue"),
    (lambda: lnbook.input_grad([1e-3, 2e-3, 4e-3], [1e308, 0, -1e308], eps=0), "gradient"),
    (lambda: lnbook.param_grads([[0, 1], [1, 0]], [[1e308, 0], [1e308, 0]]), "bias gradient"),
    (lambda: lnbook.lipschitz_bound([1e308], eps=1e-10), "Lipschitz bound"),
    (lambda: lnbook.amplification([1e308, 0], [1e308, 1e300]), "z + delta"),
    (lambda: lnbook.ulp_error([1e308, 0.0], [1e-320, 0.0]), "error"),
    (lambda: fp.pairwise_sum(np.full(10, 6e4, dtype=np.float16)), "not finite in float16"),
    (lambda: fp.welford(np.arange(3000.0) % 256, dtype=np.float16), "not finite in float16"),
    (lambda: fp.merge_stats((2, 0.0, 1e308), (2, 1e308, 1e308)), "merged variance"),
    (lambda: fp.offset_errors([1.0], f=lambda z, eps: z * 1e300, d=1, n=1), "f(z)"),
    (lambda: fp.round_bfloat16([3.4e38]), "bfloat16"),
    (lambda: frameworks.layer_norm_variant([1e300, -1e300], eps=1e-5, fast_variance=True),
     "one-pass variance"),
    (lambda: transformer.residual_forward([[1.0, 2.0]], [dict(transformer.init_blocks(
        1, 2)[0], b2=np.array([1e308, 1e308]))] * 2, placement="pre"), "residual stream"),
])
def test_results_that_overflow_are_refused(call, what):
    """A result beyond float64 (or beyond the format computed in) is a ValueError saying
    what overflowed, never inf or NaN."""
    refused(ValueError, what, call)


@pytest.mark.parametrize("call, name", [
    (lambda: lnbook.jacobian(np.ones(200_000)), "the Jacobian of z (1 records with d = 200000)"),
    (lambda: transformer.rms_jacobian(np.ones(200_000)), "Jacobian of z (1 records"),
    (lambda: lnbook.centering_matrix(100_000), "d = 100000"),
    (lambda: lnbook.centering_matrix(2**63 - 1), "d = 9223372036854775807"),
    (lambda: lnbook.weighted_centering_matrix(np.full(200_000, 1 / 200_000)), "d = 200000"),
    (lambda: geometry.plane_basis(100_000), "d = 100000"),
    (lambda: transformer.init_blocks(10**6, 100), "L = 1000000"),
    (lambda: fp.offset_errors([1.0], d=100_000, n=100_000), "n = 100000"),
    (lambda: lnbook.core(np.broadcast_to(np.arange(3.0), (2**31, 3))), "z of shape"),
    (lambda: lnbook.response(np.broadcast_to(1.0, (2**32,))), "t of shape"),
    (lambda: geometry.radial_profile([1.0], 10**400), "401 digits"),
    (lambda: lnbook.centering_matrix(10**400), "401 digits"),
    (lambda: lnbook.central_difference_jacobian(lambda z: z, np.arange(1e5)), "d = 100000"),
])
def test_sizes_that_cannot_fit_are_refused_before_allocating(call, name):
    """A result of more than 2**31 float64 entries is refused before anything near its size
    is allocated (the free memory of the process is not probed), naming the parameter."""
    tracemalloc.start()
    try:
        message = refused(ValueError, name, call)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "would have" in message or "d must be at most" in message
    assert peak < 64 * 2**20


@pytest.mark.parametrize("shape", [(2**21 + 12,), (64, 2**15)])
def test_the_working_copies_of_the_layer_stay_small(shape):
    """core needs its input and its result and no other copy of their size: a record longer
    than a block of 2 MiB has its squares summed a piece at a time, in numpy's pairwise
    order (so with numpy's bits); stats needs a block. (Issue 33: a core of 1.7e8 entries
    under a 4 GiB address-space limit raised MemoryError.)"""
    z = np.random.default_rng(0).normal(size=shape) * 3 + 1e3
    tracemalloc.start()
    try:
        u = lnbook.core(z, eps=0)
        extra = tracemalloc.get_traced_memory()[1] - u.nbytes
        tracemalloc.reset_peak()
        q = lnbook.stats(z)[1]
        stats_extra = tracemalloc.get_traced_memory()[1] - u.nbytes - (z.nbytes if z.ndim == 1
                                                                       else 0)
    finally:
        tracemalloc.stop()
    assert extra < 8 * 2**20 and stats_extra < 8 * 2**20
    # the bits of the plain formula with every temporary in full (the corrected two-pass)
    d = shape[-1]
    w = z - np.add.reduce(z, axis=-1, keepdims=True) / d
    v = w - np.add.reduce(w, axis=-1, keepdims=True) / d
    assert np.array_equal(q, np.add.reduce(v * v, axis=-1) / d)
    assert np.array_equal(u, v / np.sqrt(q[..., None]))


BAD_EPS = [(-1e-5, ValueError), (math.nan, ValueError), (10**400, ValueError),
           (2**53 + 1, ValueError), ("1e-5", TypeError), (True, TypeError),
           (Fraction(1, 3), TypeError)]
BAD_COUNTS = [2.5, 2.0, True, "3", np.float64(3.0), 3 + 0j]


@pytest.mark.parametrize("name", [n for n, fn in CALLABLES.items() if any(
    p.name == "eps" or str(p.annotation).startswith("int")
    for p in inspect.signature(fn).parameters.values())])
def test_every_eps_and_every_count_is_checked(name):
    """In a valid call, an eps that is no finite non-negative float64 (or one it would round)
    is a ValueError, one that is no real number a TypeError; a count that is a float (even
    2.0), a bool, a string or complex is a TypeError: each naming the parameter."""
    fn = CALLABLES[name]
    params = inspect.signature(fn).parameters
    counts = [p for p in params if str(params[p].annotation).startswith("int")]

    @settings(max_examples=1, deadline=None, database=None)
    @given(st.data())
    def run(data):
        kw = valid_call(data, name, fn)
        for bad, kind in BAD_EPS if "eps" in params else []:
            refused(kind, "eps", lambda bad=bad: fn(**{**kw, "eps": bad}))
        for p in counts:
            for bad in BAD_COUNTS:
                refused(TypeError, p, lambda p=p, bad=bad: fn(**{**kw, p: bad}))

    run()


# --- issue 33, section 5: the hostile inputs the package got wrong -----------------------------


def test_welford_in_float16_counts_beyond_65504():
    """welford(x, dtype=float16) for d > 65519 returned q = 0: the count k, kept in float16,
    overflowed. The count is an exact integer: 69999 zeros and a one have the mean 1/70000
    and the variance (1/70000)(1 - 1/70000), here rounded to float16 (subnormal: 1 %)."""
    z = np.zeros(70_000)
    z[-1] = 1.0
    mu, q = fp.welford(z, dtype=np.float16)
    assert mu.dtype == q.dtype == np.float16
    assert math.isclose(mu, 1 / 70_000, rel_tol=0.01)
    assert math.isclose(q, (1 / 70_000) * (1 - 1 / 70_000), rel_tol=0.01)
    # below 2048 the quotients are numpy's own float16 ones, bit for bit
    small = np.random.default_rng(2).normal(size=300).astype(np.float16)
    m, m2 = np.float16(0), np.float16(0)
    for k, x in enumerate(small, start=1):
        delta = x - m
        m = m + delta / np.float16(k)
        m2 = m2 + delta * (x - m)
    assert fp.welford(small, dtype=np.float16) == (m, m2 / np.float16(300))


def test_ulp_error_of_an_all_zero_record_in_long_double():
    """ulp_error([0.0], [0.0], dtype=np.longdouble) was refused; an exact 0 is measured in
    units of the smallest subnormal of the format, and a long double's ulp below float64's
    range still divides."""
    assert float(lnbook.ulp_error([0.0], [0.0], dtype=np.longdouble)) == 0.0
    assert float(lnbook.ulp_error([2**-1000], [2**-1000], dtype=np.longdouble)) == 0.0
    nmant = np.finfo(np.longdouble).nmant
    assert float(lnbook.ulp_error([1.0 + 2**-52], [1.0], dtype=np.longdouble)) == 2.0 ** (
        nmant - 52)


@pytest.mark.parametrize("t, eps", [(1e-3, 5e-324), (1.0, 5e-324), (0.3, 1e-320),
                                    (1e160, 1e300), (0.0, 5e-324)])
def test_response_slope_of_a_subnormal_eps(t, eps):
    """response_slope([1e-3], eps=5e-324) was 133 ulps off and ([1.0], eps=5e-324) 0: the
    scaled eps' = 4^k eps underflowed. The slope eps / (2t^2/3 + eps)^(3/2) is rounded once."""
    with mpmath.workdps(60):
        exact = mpmath.mpf(eps) / (2 * mpmath.mpf(t) ** 2 / 3 + mpmath.mpf(eps)) ** 1.5
    got = lnbook.response_slope([t], eps=eps)[0]
    assert got > 0 and abs(got - float(exact)) <= 4 * np.spacing(float(exact))


def test_offset_errors_refuses_errors_beyond_float64():
    """offset_errors returned inf when an error in ulps overflowed (a core of 1e300, or one
    off by 1e-300 where the exact core is 0: d = 1); now a ValueError naming f(z)."""
    refused(ValueError, "f(z)", lambda: fp.offset_errors([1.0], f=lambda z, eps: z + 1e300, d=1,
                                                         n=1))
    assert fp.offset_errors([1.0], f=lambda z, eps: 0 * z, d=1, n=1).tolist() == [0.0]
