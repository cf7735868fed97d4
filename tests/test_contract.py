"""The contract of every public function, drawn by hypothesis: a correct value, or a
TypeError/ValueError that names a parameter (book/api.md, "Exceptions").

For each public callable of every namespace (lnbook, fp, frameworks, geometry, transformer,
figures; lnbook.plotting's are drawn in tests/test_plotting.py, with the slow tier), a draw is
a valid call (records of every scale from 1e-300 to 1e300, offsets up to 1e8, constant records,
d = 1, empty batches, every stabilizer from 0 to 1e300) in which, two times out of five, one
argument is replaced by a hostile value of its kind (NaN and infinite entries, strings, bools,
complex and object arrays, None, wrong shapes, floats for counts, negative counts, integers
beyond int64, eps = 10**400). The call runs under ``np.errstate(all="raise")``. It must either
return a value that passes the function's check (against exact_core, fractions or mpmath where
a reference exists, otherwise finite and of the right shape and dtype) or raise a TypeError or
ValueError whose message names one of the function's parameters; any other exception fails.
Each function must also return a checked value at least once, so its draws reach the
computation and not only the refusals.
"""

from __future__ import annotations

import inspect
import math
import os
import re
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_api import CALLABLES, VOCABULARY

import lnbook
from lnbook import frameworks, transformer

CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
EXAMPLES = 12  # per function: about 60 functions, within the fast tier's budget
RHO = 2.0**-53


# --- drawing valid arguments ---------------------------------------------------------------

SCALES = [1e-300, 1e-150, 1e-5, 1.0, 1.0, 1.0, 37.0, 1e5, 1e150, 1e300]
EPSILONS = [0.0, 1e-300, 1e-12, 1e-5, 1e-5, 0.1, 1.0, 3.0, 1e300]


def rng_of(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def draw_records(data, *, d=None, lead=None, min_d=1, max_d=6, max_lead=2, allow_empty=True):
    """Records sigma (r 1 + x) of shape lead + (d,), some constant, some with one feature."""
    rng = rng_of(data)
    if d is None:
        d = data.draw(st.integers(min_d, max_d), label="d")
    if lead is None:
        lead = tuple(data.draw(st.lists(st.integers(0 if allow_empty else 1, 3),
                                        max_size=max_lead), label="lead"))
    scale = data.draw(st.sampled_from(SCALES), label="scale")
    offset = data.draw(st.sampled_from([0.0, 0.0, 1.0, 1e3, 1e8]), label="offset")
    kind = data.draw(st.sampled_from(["normal", "normal", "normal", "constant", "ints"]))
    shape = tuple(lead) + (d,)
    if kind == "constant":
        x = np.ones(shape) * rng.normal()
    elif kind == "ints":
        return rng.integers(-5, 6, size=shape).astype(np.float64)
    else:
        x = rng.standard_normal(shape)
    return scale * (offset + x)


def draw_like(data, z, scales=(1e-5, 1.0, 1e3)):
    rng = rng_of(data)
    return rng.standard_normal(np.shape(z)) * data.draw(st.sampled_from(scales))


def draw_eps(data, positive=False):
    values = [e for e in EPSILONS if e > 0] if positive else EPSILONS
    return data.draw(st.sampled_from(values), label="eps")


def draw_vector(data, d, scales=(0.0, 1.0, 3.0, 1e-3)):
    rng = rng_of(data)
    return rng.normal(size=d) * data.draw(st.sampled_from(scales))


def draw_param(data, d):
    """A gain or bias: None or a vector of d entries."""
    return data.draw(st.one_of(st.none(), st.just("v"))) and draw_vector(data, d)


# --- hostile values by the type the API table gives each parameter -------------------------

HOSTILE = {
    "array": [np.array([1.0, np.nan]), np.array([[np.inf, 1.0]]), "abc", None,
              np.array([True, False]),
              np.array([1 + 1j, 2.0]), np.array([object(), 1.0]), np.float64(3.0), np.zeros((2, 0)),
              [[1.0, 2.0], [3.0]], [2**62 + 1, 2**62], np.array([2**62 + 1, 0]),
              np.ma.masked_array([1.0, 2.0], [0, 1]), np.ones((2, 3, 4))],
    "float": [-1e-5, float("nan"), float("inf"), 10**400, "1e-5", True, None, 1j, [1.0],
              -float("inf")],
    "int": [2.5, -1, 0, True, "3", None, 2**70, np.float64(2.0), -(2**70)],
    "bool": ["False", 1, None, 0.5, np.float64(0.0)],
    "str": [None, 1, "unknown", ["pre"]],
    "seq": [[], "abc", [2.5], [-1], None, [np.nan], [True], 3],
    "dict": [[], None, {"x": 1}, "results", {}],
    "callable": [None, 1, "f"],
    "tuple": [(True,), (0.5,), (10**9,), 3, None, (0, 0, 0, 0)],
    "blocks": [[], [1], "x", [{}], [{"W1": "x"}], None],
    "dtype": ["int32", complex, "nope", object, np.bool_],
}


def kind_of(name: str) -> str:
    """The hostile pool of a parameter, from its type in book/api.md's table."""
    type_ = VOCABULARY[name].type
    for key, kind in (("Callable", "callable"), ("list[dict]", "blocks"), ("dict", "dict"),
                      ("DTypeLike", "dtype"), ("Sequence", "seq"), ("tuple[int", "tuple"),
                      ("tuple[ArrayLike", "seq"), ("ArrayLike", "array"), ("float", "float"),
                      ("bool", "bool"), ("int", "int"), ("str", "str")):
        if key in type_:
            return kind
    raise AssertionError(f"no hostile pool for {name}: {type_}")


# --- references and checks ---------------------------------------------------------------


def ulps(computed, exact):
    computed, exact = np.asarray(computed, float), np.asarray(exact, float)
    if exact.size == 0:
        return 0.0
    computed, exact = computed.reshape(-1, exact.shape[-1]), exact.reshape(-1, exact.shape[-1])
    unit = np.spacing(np.maximum(np.abs(exact).max(axis=-1), 2.0**-1074))
    return float((np.abs(computed - exact).max(axis=-1) / unit).max())


def rows(z):
    z = np.asarray(z, dtype=float)
    return z.reshape(-1, z.shape[-1])


def exact_stats(row):
    x = [Fraction(float(t)) for t in row]
    mu = sum(x, Fraction(0)) / len(x)
    return mu, sum(((t - mu) ** 2 for t in x), Fraction(0)) / len(x)


def rel_close(got, exact, tol):
    """|got - exact| <= tol |exact| (+ the smallest subnormal), exact a Fraction or mpf."""
    if isinstance(exact, mpmath.mpf):
        sign, man, exp, _ = exact._mpf_
        exact = (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)
    exact = Fraction(exact) if not isinstance(exact, Fraction) else exact
    return abs(Fraction(float(got)) - exact) <= Fraction(tol) * abs(exact) + Fraction(2**-1074)


def mp_scale(row, eps, center=True, ddof=0, eps_inside=True, dps=50):
    """(v, s) of one record with mpmath at 50 digits: v = z - mu 1, s the denominator."""
    with mpmath.workdps(dps):
        x = [mpmath.mpf(float(t)) for t in row]
        d = len(x)
        mu = sum(x) / d if center else mpmath.mpf(0)
        v = [t - mu for t in x]
        var = sum(t * t for t in v) / (d - ddof)
        e = mpmath.mpf(float(eps))
        s = mpmath.sqrt(var + e) if eps_inside else mpmath.sqrt(var) + e
        return v, s


def mp_core(z, eps, **options):
    out = []
    for row in rows(z):
        v, s = mp_scale(row, eps, **options)
        with mpmath.workdps(50):
            out.append([float(t / s) for t in v])
    return np.array(out).reshape(np.shape(z))


def mp_jacobian(row, eps):
    # 700 digits: for d = 2 the two terms cancel down to eps / s^3, as small as 1e-600 s^-1
    with mpmath.workdps(700):
        v, s = mp_scale(row, eps, dps=700)
        d = len(v)
        return np.array([[float(((i == j) - mpmath.mpf(1) / d) / s - v[i] * v[j] / (d * s**3))
                          for j in range(d)] for i in range(d)])


def finite_arrays(value):
    """Every number in a (nested) result is finite."""
    if isinstance(value, dict):
        return all(finite_arrays(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(finite_arrays(v) for v in value)
    if isinstance(value, (np.ndarray, float, np.floating)):
        return bool(np.isfinite(value).all())
    return True


@dataclass
class Case:
    draw: object  # data -> kwargs (a valid call)
    check: object  # (kwargs, result) -> None, asserting


def check_core(kw, u):
    assert u.shape == np.shape(kw["z"]) and u.dtype == np.float64
    assert ulps(u, lnbook.exact_core(kw["z"], eps=kw.get("eps", lnbook.EPS))) <= 4


def check_layer_norm(kw, y):
    z = kw["z"]
    exact = lnbook.exact_core(z, eps=kw.get("eps", lnbook.EPS))
    gamma = 1.0 if kw.get("gamma") is None else kw["gamma"]
    beta = 0.0 if kw.get("beta") is None else kw["beta"]
    ideal = gamma * exact + beta
    unit = np.spacing(np.abs(exact).max(axis=-1, keepdims=True)) if exact.size else 0
    tol = 4 * unit * np.abs(gamma) + 2 * np.spacing(np.abs(gamma * exact) + np.abs(beta))
    assert y.shape == np.shape(z) and (np.abs(y - ideal) <= tol).all()


def check_stats(kw, result):
    mu, q = result
    z = np.asarray(kw["z"], float)
    assert mu.shape == q.shape == z.shape[:-1]
    for row, m, v in zip(rows(z), mu.ravel(), q.ravel()):
        m_exact, q_exact = exact_stats(row)
        largest = max(abs(Fraction(float(t))) for t in row)
        assert abs(Fraction(float(m)) - m_exact) <= Fraction(4 * RHO) * largest
        assert rel_close(v, q_exact, 16 * RHO)


def check_ratio(kw, ratio):
    z = np.asarray(kw["z"], float)
    eps = Fraction(kw.get("eps", lnbook.EPS))
    assert ratio.shape == z.shape[:-1]
    for row, got in zip(rows(z), ratio.ravel()):
        q = exact_stats(row)[1]
        assert rel_close(got, q / (q + eps) if q + eps else 0, 8 * RHO)


def check_jacobian(kw, J):
    z = np.asarray(kw["z"], float)
    d = z.shape[-1]
    assert J.shape == z.shape + (d,)
    gamma = np.ones(d) if kw.get("gamma") is None else np.asarray(kw["gamma"])
    for row, got in zip(rows(z), J.reshape(-1, d, d)):
        exact = gamma[:, None] * mp_jacobian(row, kw.get("eps", lnbook.EPS))
        # a float64 matrix carries its entries to a few ulps of its largest one (for d = 2,
        # of the radial eigenvalue itself)
        assert ulps(got.ravel(), exact.ravel()) <= 8


def check_eigenvalues(kw, result):
    radial, tangential = result
    z = np.asarray(kw["z"], float)
    eps = kw.get("eps", lnbook.EPS)
    assert radial.shape == tangential.shape == z.shape[:-1]
    for row, rad, tan in zip(rows(z), radial.ravel(), tangential.ravel()):
        if z.shape[-1] == 1:
            assert rad == tan == 0
            continue
        _, s = mp_scale(row, eps)
        with mpmath.workdps(50):
            assert rel_close(rad, mpmath.mpf(float(eps)) / s**3, 8 * RHO)
            assert rel_close(tan, 1 / s, 4 * RHO)


def check_input_grad(kw, grad):
    z, g = np.asarray(kw["z"], float), np.asarray(kw["g"], float)
    d = z.shape[-1]
    gamma = np.ones(d) if kw.get("gamma") is None else np.asarray(kw["gamma"])
    assert grad.shape == z.shape
    for row, gr, got in zip(rows(z), rows(g), grad.reshape(-1, d)):
        J = mp_jacobian(row, kw.get("eps", lnbook.EPS))
        gt = gamma * gr
        exact = J @ gt  # float64 products of exact entries: their own few ulps
        tol = 64 * RHO * np.abs(J).max() * np.abs(gt).sum() + 2.0**-1060
        assert np.abs(got - exact).max() <= tol


def check_param_grads(kw, result):
    dgamma, dbeta = result
    z, g = np.asarray(kw["z"], float), np.asarray(kw["g"], float)
    u = lnbook.exact_core(z, eps=kw.get("eps", lnbook.EPS))
    d = z.shape[-1]
    assert dgamma.shape == dbeta.shape == (d,)
    n = max(1, z.size // d)
    for k in range(d):
        gk, uk = rows(g)[:, k], rows(u)[:, k]
        assert abs(dbeta[k] - math.fsum(gk)) <= 2 * n * RHO * math.fsum(abs(gk)) + 2.0**-1074
        assert abs(dgamma[k] - math.fsum(gk * uk)) <= 8 * n * RHO * math.fsum(abs(gk * uk)) + \
            4 * RHO * math.fsum(abs(gk) * np.abs(uk).max(initial=0)) + 2.0**-1060


def check_shape_finite(shape_of):
    def check(kw, result):
        assert finite_arrays(result)
        if shape_of is not None:
            assert np.shape(result) == shape_of(kw), (np.shape(result), shape_of(kw))
    return check


def check_operator_norm(kw, norm):
    z = np.asarray(kw["z"], float)
    d = z.shape[-1]
    eps = kw.get("eps", lnbook.EPS)
    assert norm.shape == z.shape[:-1]
    for row, got in zip(rows(z), norm.ravel()):
        if d == 1:
            assert got == 0
            continue
        _, s = mp_scale(row, eps)
        with mpmath.workdps(50):
            exact = mpmath.mpf(float(eps)) / s**3 if d == 2 else 1 / s
            assert rel_close(got, exact, 8 * RHO)


def check_response(slope):
    def check(kw, h):
        t = np.atleast_1d(np.asarray(kw["t"], float))
        eps = mpmath.mpf(float(kw.get("eps", lnbook.EPS)))
        assert h.shape == t.shape
        with mpmath.workdps(50):
            for tt, got in zip(t.ravel(), h.ravel()):
                s2 = 2 * mpmath.mpf(float(tt)) ** 2 / 3 + eps
                exact = eps / s2**1.5 if slope else mpmath.mpf(float(tt)) / mpmath.sqrt(s2)
                assert rel_close(got, exact, 8 * RHO)
    return check


def check_batch_norm(kw, y):
    z = np.asarray(kw["z"], float)
    assert ulps(y.T, lnbook.exact_core(z.T.copy(), eps=kw.get("eps", lnbook.EPS))) <= 4


def check_variant(kw, y, **options):
    opts = {"ddof": kw.get("ddof", 0), "eps_inside": kw.get("eps_inside", True),
            "center": kw.get("center", True)}
    opts.update(options)
    fast = kw.get("fast_variance", False) or options.pop("fast", False)
    opts.pop("fast", None)
    z = np.asarray(kw["z"], float)
    assert y.shape == z.shape and np.isfinite(y).all()
    if fast:
        return  # the literal one-pass formula, checked against PyTorch and Flax elsewhere
    u = mp_core(z, kw.get("eps") if kw.get("eps") is not None else opts.pop("eps_default"),
                **{k: v for k, v in opts.items() if k != "eps_default"})
    gamma = 1.0 if kw.get("gamma") is None else np.asarray(kw["gamma"])
    beta = 0.0 if kw.get("beta") is None else np.asarray(kw["beta"])
    ideal = gamma * u + beta
    unit = np.spacing(np.abs(u).max(axis=-1, keepdims=True)) if u.size else 0
    tol = 8 * unit * np.abs(gamma) + 2 * np.spacing(np.abs(gamma * u) + np.abs(beta))
    assert (np.abs(y - ideal) <= tol).all()


def check_convention(kw, y):
    c = frameworks.CONVENTIONS[kw["convention"]]
    check_variant(kw, y, ddof=c.ddof, eps_inside=c.eps_inside, center=c.center,
                  fast=c.fast_variance, eps_default=c.eps)


def check_exact_core(kw, u):
    z = np.asarray(kw["z"], float)
    center = kw.get("center", True)
    exact = mp_core(z, kw.get("eps", lnbook.EPS), center=center)
    # correctly rounded: the 50-digit value rounds to the same float (ties are negligible)
    assert np.array_equal(u, exact)


def check_ulp_error(kw, err):
    c, e = rows(kw["computed"]), rows(kw["exact"])
    dtype = np.dtype(kw.get("dtype", np.float64))
    for cr, er, got in zip(c, e, np.ravel(err)):
        unit = Fraction(float(np.spacing(np.abs(er).max().astype(dtype))))
        exact = max(abs(Fraction(float(a)) - Fraction(float(b))) for a, b in zip(cr, er)) / unit
        assert rel_close(got, exact, 4 * RHO)


def check_float_stats(kw, result):
    mu, q = result
    dtype = np.dtype(kw.get("dtype", np.float64))
    z = np.asarray(kw["z"])
    assert mu.dtype == q.dtype == dtype and mu.shape == q.shape == z.shape[:-1]
    assert np.isfinite(mu).all() and np.isfinite(q).all()


def check_merge(kw, result):
    n, mu, q = result
    (na, mua, qa), (nb, mub, qb) = kw["part_a"], kw["part_b"]
    assert int(n) == int(na) + int(nb)
    ftype = np.result_type(np.asarray(mua), np.asarray(qa), np.asarray(mub), np.asarray(qb))
    ftype = np.dtype(np.float64) if ftype.kind != "f" else ftype
    assert np.asarray(mu).dtype == ftype
    rho = float(np.finfo(ftype).eps)
    fa, fb = Fraction(int(na)), Fraction(int(nb))
    delta = Fraction(float(mub)) - Fraction(float(mua))
    exact_mu = Fraction(float(mua)) + delta * fb / (fa + fb)
    assert abs(Fraction(float(mu)) - exact_mu) <= Fraction(8 * rho) * (
        abs(Fraction(float(mua))) + abs(delta)) + Fraction(2**-1074)
    exact_q = (fa * Fraction(float(qa)) + fb * Fraction(float(qb))
               + delta**2 * fa * fb / (fa + fb)) / (fa + fb)
    assert rel_close(q, exact_q, 16 * rho)


def check_pairwise_sum(kw, s):
    raw = np.asarray(kw["z"])
    arr = np.ascontiguousarray(raw.astype(raw.dtype if raw.dtype in (np.float16, np.float32)
                                          else np.float64))
    assert np.array_equal(s, np.sum(arr, axis=-1)) and s.dtype == arr.dtype


def check_bfloat16(kw, out):
    x = np.asarray(np.asarray(kw["z"], dtype=float), dtype=np.float32)
    assert out.dtype == np.float32 and out.shape == x.shape
    for a, b in zip(x.ravel(), out.ravel()):
        a = float(a)
        if a == 0:
            assert b == 0
            continue
        # the nearest number with 8 significant bits (float32's exponent range), ties to even
        m, e = math.frexp(abs(a))
        e = max(e, -125)  # bfloat16 subnormals keep float32's smallest exponent
        unit = Fraction(2) ** (e - 8)
        k = Fraction(abs(a)) / unit
        lo = math.floor(k)
        k = lo + (1 if k - lo > Fraction(1, 2) or (k - lo == Fraction(1, 2) and lo % 2) else 0)
        assert float(b) == math.copysign(float(k * unit), a)


def check_radial_profile(kw, out):
    r = np.asarray(kw["r"], float)
    assert out.shape == r.shape
    with mpmath.workdps(50):
        for rr, got in zip(r.ravel(), out.ravel()):
            x = mpmath.mpf(float(rr))
            exact = x / mpmath.sqrt(x * x / kw["d"] + mpmath.mpf(float(kw.get("eps", lnbook.EPS))))
            assert rel_close(got, exact, 8 * RHO)


def check_core_radius(kw, radius):
    z = np.asarray(kw["z"], float)
    eps = kw.get("eps", lnbook.EPS)
    for row, got in zip(rows(z), radius.ravel()):
        v, s = mp_scale(row, eps)
        with mpmath.workdps(50):
            # |u| = |v| / s
            exact = mpmath.sqrt(sum(t * t for t in v)) / s
        assert rel_close(got, exact, 8 * RHO)


def check_rms_jacobian(kw, J):
    z = np.asarray(kw["z"], float)
    d = z.shape[-1]
    eps = kw.get("eps", lnbook.EPS)
    for row, got in zip(rows(z), J.reshape(-1, d, d)):
        with mpmath.workdps(50):
            # (I - w w^T) / r + (eps / r^3) w w^T with w = z / |z|: no cancellation
            x = [mpmath.mpf(float(t)) for t in row]
            e = mpmath.mpf(float(eps))
            norm = mpmath.sqrt(sum(t * t for t in x))
            r = mpmath.sqrt(norm**2 / d + e)
            w = [t / norm if norm else mpmath.mpf(0) for t in x]
            exact = np.array([[float(((i == j) - w[i] * w[j]) / r + e / r**3 * w[i] * w[j])
                               for j in range(d)] for i in range(d)])
        assert ulps(got.ravel(), exact.ravel()) <= 8


def check_centering(kw, P):
    d = kw["d"]
    exact = np.eye(d) - 1.0 / d
    assert np.array_equal(P, exact)


def check_weighted(kw, P):
    a = np.asarray(kw["a"], float)
    assert np.array_equal(P, np.eye(a.size) - a[None, :])


def check_plane_basis(kw, Q):
    d = kw["d"]
    assert Q.shape == (d - 1, d)
    assert np.abs(Q @ Q.T - np.eye(d - 1)).max() <= 8 * d * RHO
    assert np.abs(Q.sum(axis=1)).max() <= 8 * d * RHO


def check_audit(kw, moved):
    z = np.asarray(kw["z"], float)
    assert moved.shape == z.shape[:-1] and (moved >= 0).all()
    if kw["f"] is lnbook.layer_norm:
        others = np.ones(z.shape[:-1], bool)
        others[tuple(kw["record"])] = False
        assert not moved[others].any()  # a per-record layer moves only the changed record


def check_wrong_axis(kw, y):
    z = np.asarray(kw["z"], float)
    axis = kw.get("axis", -2) % z.ndim
    moved = np.moveaxis(z, axis, -1)
    exact = np.moveaxis(lnbook.exact_core(np.ascontiguousarray(moved),
                                          eps=kw.get("eps", lnbook.EPS)), -1, axis)
    assert ulps(np.moveaxis(y, axis, -1), np.moveaxis(exact, axis, -1)) <= 4


def check_depth(kw, k):
    from test_hostile import depth_by_definition
    assert k == depth_by_definition(kw["d"])


def check_records_with_variance(kw, z):
    q = np.asarray(kw["q"], float)
    assert z.shape == (q.size, kw["d"])
    for row, qq in zip(z, q):
        assert rel_close(exact_stats(row)[1], Fraction(float(qq)), 8 * RHO)


def check_ticks(kw, ticks):
    lo, hi = kw["lo"], kw["hi"]
    assert len(ticks) <= kw.get("max_ticks", 6)
    powers = ticks[1:] if kw.get("zero") else ticks
    assert ticks.size and (powers > 0).all() and powers[0] <= lo * (1 + 1e-12)
    k = np.log10(powers)
    assert np.allclose(k, np.round(k)) and powers[-1] <= 10 * hi


def check_figure(keys):
    def check(kw, data):
        assert isinstance(data, dict) and keys <= set(data), set(data)
        assert finite_arrays({k: v for k, v in data.items() if k not in ("conventions",)})
    return check


FUNCTIONS = {
    "lnbook.stats": Case(lambda data: {"z": draw_records(data)}, check_stats),
    "lnbook.core": Case(lambda data: {"z": draw_records(data), "eps": draw_eps(data),
                                      "threads": data.draw(st.sampled_from([None, 1, 2]))},
                        check_core),
    "lnbook.layer_norm": Case(lambda data: (lambda z: {
        "z": z, "gamma": draw_param(data, z.shape[-1]), "beta": draw_param(data, z.shape[-1]),
        "eps": draw_eps(data)})(draw_records(data)), check_layer_norm),
    "lnbook.normalized_variance": Case(lambda data: {"z": draw_records(data),
                                                     "eps": draw_eps(data)}, check_ratio),
    "lnbook.jacobian": Case(lambda data: (lambda z: {
        "z": z, "gamma": draw_param(data, z.shape[-1]), "eps": draw_eps(data)})(
        draw_records(data, max_lead=1)), check_jacobian),
    "lnbook.jacobian_eigenvalues": Case(lambda data: {"z": draw_records(data),
                                                      "eps": draw_eps(data)}, check_eigenvalues),
    "lnbook.input_grad": Case(lambda data: (lambda z: {
        "z": z, "g": draw_like(data, z), "gamma": draw_param(data, z.shape[-1]),
        "eps": draw_eps(data)})(draw_records(data, max_lead=1)), check_input_grad),
    "lnbook.param_grads": Case(lambda data: (lambda z: {
        "z": z, "g": draw_like(data, z), "eps": draw_eps(data)})(draw_records(data)),
        check_param_grads),
    "lnbook.central_difference_jacobian": Case(lambda data: {
        "f": data.draw(st.sampled_from([np.sin, np.square, np.cumsum])),
        "z": draw_vector(data, 3, (1.0,)),
        "tau": data.draw(st.sampled_from([1e-6, 1e-4, 1e-3]))},
        lambda kw, J: check_central_difference(kw, J)),
    "lnbook.operator_norm": Case(lambda data: {"z": draw_records(data), "eps": draw_eps(data)},
                                 check_operator_norm),
    "lnbook.lipschitz_bound": Case(lambda data: {
        "gamma": data.draw(st.one_of(st.none(), st.just(1))) and draw_vector(data, 3, (1.0, 1e3)),
        "eps": draw_eps(data, positive=True)},
        lambda kw, L: check_lipschitz(kw, L)),
    "lnbook.amplification": Case(lambda data: (lambda z: {
        "z": z, "delta": draw_like(data, z, (1e-3, 1.0)), "eps": draw_eps(data, positive=True)})(
        draw_records(data, min_d=2,
                     max_lead=1)), check_shape_finite(lambda kw: np.shape(kw["z"])[:-1])),
    "lnbook.response": Case(lambda data: {"t": draw_records(data, max_lead=1),
                                          "eps": draw_eps(data)}, check_response(False)),
    "lnbook.response_slope": Case(lambda data: {"t": draw_records(data, max_lead=1),
                                                "eps": draw_eps(data)}, check_response(True)),
    "lnbook.centering_matrix": Case(lambda data: {"d": data.draw(st.integers(1, 9))},
                                    check_centering),
    "lnbook.weighted_centering_matrix": Case(lambda data: {"a": (lambda w: w / w.sum())(
        np.abs(draw_vector(data, data.draw(st.integers(1, 6)), (1.0,))) + 0.1)}, check_weighted),
    "lnbook.rms_norm": Case(lambda data: {"z": draw_records(data), "eps": draw_eps(data)},
                            lambda kw, u: check_rms(kw, u)),
    "lnbook.batch_norm": Case(lambda data: {"z": draw_records(data, lead=(data.draw(
        st.integers(1, 4)),)), "eps": draw_eps(data)}, check_batch_norm),
    "lnbook.record_audit": Case(lambda data: (lambda z: {
        "f": data.draw(st.sampled_from([lnbook.layer_norm, lnbook.rms_norm,
                                        lnbook.wrong_axis_layer_norm])),
        "z": z, "record": tuple(int(i) for i in rng_of(data).integers(0, z.shape[:-1])),
        "seed": data.draw(st.integers(0, 10))})(
        draw_records(data, lead=(2, 3), min_d=2)), check_audit),
    "lnbook.wrong_axis_layer_norm": Case(lambda data: {
        "z": draw_records(data, lead=(data.draw(st.integers(1, 3)), 2)),
        "axis": data.draw(st.sampled_from([0, 1, -2, -3])), "eps": draw_eps(data)},
        check_wrong_axis),
    "lnbook.exact_core": Case(lambda data: {"z": draw_records(data, max_lead=1, max_d=4),
                                            "eps": draw_eps(data),
                                            "dps": data.draw(st.sampled_from([None, 5, 30])),
                                            "center": data.draw(st.booleans())},
                              check_exact_core),
    "lnbook.ulp_error": Case(lambda data: (lambda e: {
        "computed": e + draw_like(data, e, (0.0, 1e-16)), "exact": e,
        "dtype": data.draw(st.sampled_from([np.float64, np.float32, "float16"]))})(
        draw_vector(data, 4, (1.0, 1e-3))), check_ulp_error),
    "lnbook.fp.welford": Case(lambda data: {
        "z": draw_records(data) % 1e4, "dtype": data.draw(st.sampled_from(
            [np.float16, np.float32, np.float64]))}, check_float_stats),
    "lnbook.fp.merge_stats": Case(lambda data: {
        "part_a": draw_part(data), "part_b": draw_part(data)}, check_merge),
    "lnbook.fp.chan_stats": Case(lambda data: {
        "z": draw_records(data, max_d=20) % 1e4, "block": data.draw(st.integers(1, 8)),
        "dtype": data.draw(st.sampled_from([np.float16, np.float32, np.float64]))},
        check_float_stats),
    "lnbook.fp.one_pass_stats": Case(lambda data: {
        "z": draw_records(data) % 1e4, "dtype": data.draw(st.sampled_from(
            [np.float16, np.float32, np.float64]))}, check_float_stats),
    "lnbook.fp.pairwise_sum": Case(lambda data: {"z": (draw_records(data, max_d=300) % 6e4).astype(
        data.draw(st.sampled_from([np.float16, np.float32, np.float64])))}, check_pairwise_sum),
    "lnbook.fp.pairwise_depth": Case(lambda data: {"d": data.draw(st.one_of(
        st.integers(1, 300), st.integers(1, 2**63 - 1)))}, check_depth),
    "lnbook.fp.round_bfloat16": Case(lambda data: {"z": draw_records(data) % 1e30},
                                     check_bfloat16),
    "lnbook.fp.offset_errors": Case(lambda data: {
        "offsets": 10.0 ** rng_of(data).integers(0, 9, size=data.draw(st.integers(1, 3))),
        "sigma": data.draw(st.sampled_from([1e-3, 1.0, 1e5])), "d": data.draw(st.integers(1, 5)),
        "n": data.draw(st.integers(1, 2)), "eps": draw_eps(data), "seed": data.draw(st.integers(0,
                                                                                                9))},
        check_shape_finite(lambda kw: (np.size(kw["offsets"]),))),
    "lnbook.frameworks.Convention": Case(lambda data: {
        "label": "x", "eps": draw_eps(data), "ddof": data.draw(st.integers(0, 1)),
        "eps_inside": data.draw(st.booleans()), "center": data.draw(st.booleans()),
        "fast_variance": data.draw(st.booleans()), "params": "γ", "source": "s"},
        lambda kw, c: check_convention_record(kw, c)),
    "lnbook.frameworks.Convention.options": Case(lambda data: {
        "self": data.draw(st.sampled_from(list(frameworks.CONVENTIONS.values())))},
        lambda kw, o: check_options(kw, o)),
    "lnbook.frameworks.layer_norm_variant": Case(lambda data: (lambda z: {
        "z": z, "gamma": draw_param(data, z.shape[-1]), "beta": draw_param(data, z.shape[-1]),
        "eps": draw_eps(data), "ddof": data.draw(st.integers(0, 1)),
        "eps_inside": data.draw(st.booleans()), "center": data.draw(st.booleans()),
        "fast_variance": data.draw(st.booleans())})(draw_records(data, min_d=2)), check_variant),
    "lnbook.frameworks.convention_layer_norm": Case(lambda data: (lambda z: {
        "z": z, "gamma": draw_param(data, z.shape[-1]), "beta": draw_param(data, z.shape[-1]),
        "convention": data.draw(st.sampled_from(list(frameworks.CONVENTIONS))),
        "eps": data.draw(st.sampled_from([None, 0.0, 1e-5, 1.0]))})(draw_records(data, min_d=2)),
        check_convention),
    "lnbook.geometry.plane_basis": Case(lambda data: {"d": data.draw(st.integers(2, 9))},
                                        check_plane_basis),
    "lnbook.geometry.core_radius": Case(lambda data: {"z": draw_records(data),
                                                      "eps": draw_eps(data)}, check_core_radius),
    "lnbook.geometry.radial_profile": Case(lambda data: {
        "r": np.abs(draw_records(data, max_lead=1)), "d": data.draw(st.integers(1, 6)),
        "eps": draw_eps(data)}, check_radial_profile),
    "lnbook.transformer.init_blocks": Case(lambda data: {
        "L": data.draw(st.integers(1, 3)), "d": data.draw(st.integers(1, 4)),
        "m": data.draw(st.sampled_from([None, 1, 3])), "seed": data.draw(st.integers(0, 2**70))},
        lambda kw, blocks: check_blocks(kw, blocks)),
    "lnbook.transformer.residual_forward": Case(lambda data: (lambda z: {
        "z": z, "blocks": transformer.init_blocks(data.draw(st.integers(1, 3)), z.shape[-1],
                                                  seed=data.draw(st.integers(0, 9))),
        "placement": data.draw(st.sampled_from(["pre", "post"])),
        "eps": draw_eps(data, positive=True)})(draw_records(data, max_d=4)),
        check_shape_finite(lambda kw: np.shape(kw["z"]))),
    "lnbook.transformer.residual_backward": Case(lambda data: (lambda z: {
        "z": z, "g": draw_like(data, z),
        "blocks": transformer.init_blocks(data.draw(st.integers(1, 3)), z.shape[-1],
                                          seed=data.draw(st.integers(0, 9))),
        "placement": data.draw(st.sampled_from(["pre", "post"])),
        "eps": draw_eps(data, positive=True)})(draw_records(data, max_d=4)),
        lambda kw, out: check_backward(kw, out)),
    "lnbook.transformer.layer_gradient_norms": Case(lambda data: {
        "L": data.draw(st.integers(1, 3)), "d": data.draw(st.integers(1, 4)),
        "m": data.draw(st.sampled_from([None, 2])), "T": data.draw(st.integers(1, 3)),
        "placement": data.draw(st.sampled_from(["pre", "post"])),
        "seed": data.draw(st.integers(0, 9)), "eps": draw_eps(data, positive=True)},
        check_shape_finite(lambda kw: (kw["L"],))),
    "lnbook.transformer.rms_jacobian": Case(lambda data: {"z": draw_records(data, max_lead=1),
                                                          "eps": draw_eps(data)},
                                            check_rms_jacobian),
    "lnbook.figures.records_with_variance": Case(lambda data: {
        "q": np.abs(draw_vector(data, data.draw(st.integers(1, 4)), (1.0, 1e-5, 1e5))),
        "d": data.draw(st.integers(2, 6))}, check_records_with_variance),
    "lnbook.figures.decade_ticks": Case(lambda data: (lambda lo: {
        "lo": lo, "hi": lo * 10.0 ** data.draw(st.integers(0, 300)),
        "max_ticks": data.draw(st.integers(2, 8)), "zero": data.draw(st.booleans())})(
        10.0 ** data.draw(st.integers(-300, 0))), check_ticks),
    "lnbook.figures.response_data": Case(lambda data: {
        "eps_values": data.draw(st.lists(st.sampled_from([1e-3, 0.1, 1.0]), min_size=1,
                                         max_size=3)),
        "t": data.draw(st.one_of(st.none(), st.just(np.array([-1.0, 0.0, 2.0]))))},
        check_figure({"t", "h", "slope", "peak", "limit"})),
    "lnbook.figures.normalized_variance_data": Case(lambda data: {
        "eps_values": [0.1, 1.0], "d": data.draw(st.integers(2, 5))},
        check_figure({"q", "mean_square", "half"})),
    "lnbook.figures.jacobian_eigenvalues_data": Case(lambda data: {
        "eps": draw_eps(data, positive=True) % 10, "d": data.draw(st.integers(2, 5))},
        check_figure({"q", "radial", "tangential", "numeric", "eps", "d"})),
    "lnbook.figures.operator_norm_data": Case(lambda data: {
        "eps": draw_eps(data, positive=True) % 10,
        "dims": data.draw(st.lists(st.integers(2, 5), min_size=1, max_size=3))},
        check_figure({"q", "norm", "bound", "eps"})),
    "lnbook.figures.amplification_data": Case(lambda data: {
        "z": draw_vector(data, 2, (1.0, 7.0)), "delta": draw_vector(data, 2, (1e-3, 1.0))},
        check_figure({"z", "delta", "eps", "ratio", "bound"})),
    "lnbook.figures.shift_geometry_data": Case(lambda data: {
        "z": draw_vector(data, 2, (1.0,)), "shifts": draw_vector(data, 3, (1.0,))},
        check_figure({"z", "shifts", "shifted", "Pz"})),
    "lnbook.figures.weighted_projection_data": Case(lambda data: {
        "a": (lambda w: np.array([w, 1 - w]))(data.draw(st.sampled_from([0.25, 0.5, 0.9]))),
        "z": draw_vector(data, 2, (1.0, 3.0))}, check_figure({"a", "z", "oblique", "orthogonal"})),
    "lnbook.figures.record_audit_data": Case(lambda data: {
        "shape": (2, 3, data.draw(st.integers(2, 4))),
        "record": (data.draw(st.integers(0, 1)), data.draw(st.integers(0, 2)))},
        check_figure({"record", "layer_norm", "wrong_axis"})),
    "lnbook.figures.gain_effect_data": Case(lambda data: {
        "z": draw_vector(data, 3, (1.0,)), "gamma": draw_vector(data, 3, (1.0,)),
        "eps": draw_eps(data, positive=True)}, check_figure({"z", "gamma", "eps", "u", "y"})),
    "lnbook.figures.bias_shift_data": Case(lambda data: {
        "z": draw_records(data, lead=(data.draw(st.integers(1, 2)),), d=3),
        "gamma": draw_vector(data, 3, (1.0,)), "beta": draw_vector(data, 3, (1.0,)),
        "eps": draw_eps(data, positive=True)}, check_figure({"z", "u", "scaled", "y", "y_mean"})),
    "lnbook.figures.core_bound_data": Case(lambda data: {
        "dims": data.draw(st.lists(st.integers(2, 6), min_size=1, max_size=3)),
        "n": data.draw(st.integers(1, 5)), "seed": data.draw(st.integers(0, 9))},
        check_figure({"dims", "largest", "extreme", "grid", "bound"})),
    "lnbook.figures.offset_error_data": Case(lambda data: (lambda offs: {
        "offsets": offs, "errors": {"a": np.abs(draw_like(data, offs)), "b": offs},
        "max_ticks": data.draw(st.integers(2,
                                           7))})(10.0 ** np.arange(data.draw(st.integers(1, 6)))),
        check_figure({"offsets", "errors", "xticks", "yticks"})),
    "lnbook.figures.eps_placement_data": Case(lambda data: {
        "z": draw_vector(data, data.draw(st.integers(2, 5)), (1.0,)),
        "conventions": data.draw(st.lists(st.sampled_from(list(frameworks.CONVENTIONS)),
                                          min_size=1, max_size=3))},
        check_figure({"sigma", "rms", "plateaus", "d"})),
    "lnbook.figures.benchmark_ratios_data": Case(lambda data: {"results": {"results": {
        "r": {"name": "r", "result": {"per round": [1.0, 2.0], "median": 1.5},
              "target": {"comparison": data.draw(st.sampled_from(["<=", ">="])), "bound": 1.0}},
        "acc": {"name": "acc", "worst": {"lnbook": 1.0}}}}},
        check_figure({"names", "rounds", "median", "target", "met"})),
    "lnbook.figures.placement_gradients_data": Case(lambda data: {
        "depths": data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)),
        "d": data.draw(st.integers(1, 3)), "seeds": [data.draw(st.integers(0, 3))],
        "L": data.draw(st.integers(1, 3)), "eps": draw_eps(data, positive=True) % 10},
        check_figure({"profile", "last", "guide", "block", "depths"})),
    "lnbook.figures.geometry_picture_data": Case(lambda data: {
        "z": data.draw(st.one_of(st.none(), st.just("draw"))) and draw_records(
            data, lead=(data.draw(st.integers(1, 3)),), d=3),
        "eps": draw_eps(data, positive=True) % 10, "eps_values": [0.5, 1.0]},
        check_figure({"z", "v", "u_eps", "u_0", "profile", "eps"})),
}


def draw_part(data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64, np.float64]))
    n = data.draw(st.one_of(st.integers(1, 100), st.integers(2**60, 2**62)))
    mu = dtype(data.draw(st.floats(-1e3, 1e3)))
    q = dtype(data.draw(st.floats(0, 1e3)))
    return (n, mu, q)


def check_central_difference(kw, J):
    z, tau, f = np.asarray(kw["z"], float), kw["tau"], kw["f"]
    exact = {np.sin: np.diag(np.cos(z)), np.square: np.diag(2 * z),
             np.cumsum: np.tril(np.ones((z.size, z.size)))}[f]
    # truncation tau^2 |f'''| / 6 plus rounding rho |f| / tau (|f| <= |z|^2 + 3)
    assert np.abs(J - exact).max() <= tau**2 + 8 * RHO * (np.abs(z).max() ** 2 + 3) / tau


def check_lipschitz(kw, L):
    gamma = 1.0 if kw.get("gamma") is None else np.abs(kw["gamma"]).max()
    with mpmath.workdps(50):
        exact = mpmath.mpf(float(gamma)) / mpmath.sqrt(mpmath.mpf(float(kw["eps"])))
    assert isinstance(L, float) and rel_close(L, exact, 4 * RHO)


def check_rms(kw, u):
    assert ulps(u, lnbook.exact_core(kw["z"], eps=kw.get("eps", lnbook.EPS), center=False)) <= 4


def check_convention_record(kw, c):
    for key, value in kw.items():
        assert getattr(c, key) == value
    assert set(c.options()) == {"eps", "ddof", "eps_inside", "center", "fast_variance"}


def check_options(kw, options):
    c = kw["self"]
    assert options == {"eps": c.eps, "ddof": c.ddof, "eps_inside": c.eps_inside,
                       "center": c.center, "fast_variance": c.fast_variance}


def check_blocks(kw, blocks):
    L, d = kw["L"], kw["d"]
    m = 2 * d if kw.get("m") is None else kw["m"]
    assert len(blocks) == L
    for p in blocks:
        assert {k: v.shape for k, v in p.items()} == {
            "W1": (m, d), "b1": (m,), "W2": (d, m), "b2": (d,), "gamma": (d,), "beta": (d,)}
        assert (p["gamma"] == 1).all() and not p["beta"].any() and finite_arrays(p)


def check_backward(kw, out):
    dz, grads = out
    assert dz.shape == np.shape(kw["z"]) and finite_arrays(grads) and np.isfinite(dz).all()
    for gk, p in zip(grads, kw["blocks"]):
        assert {k: v.shape for k, v in gk.items()} == {k: v.shape for k, v in p.items()}


def names_a_parameter(message: str, names) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", message) for n in names)


def test_every_public_function_has_a_contract():
    """The drawn functions are exactly the public callables of every namespace but plotting
    (whose contract runs with the slow tier)."""
    public = {name for name, _ in CALLABLES if not name.startswith("lnbook.plotting.")}
    assert set(FUNCTIONS) == public


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_contract(name):
    """Correct value, or TypeError/ValueError naming a parameter; never anything else."""
    fn = dict(CALLABLES)[name]
    case = FUNCTIONS[name]
    params = [p for p in inspect.signature(fn).parameters if p != "self"]
    outcomes = {"value": 0, "refused": 0}

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=CI, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def run(data):
        kwargs = case.draw(data)
        hostile = None
        if data.draw(st.integers(0, 4), label="hostile?") < 2 and params:
            hostile = data.draw(st.sampled_from(params), label="argument")
            kwargs[hostile] = data.draw(st.sampled_from(HOSTILE[kind_of(hostile)]),
                                        label="hostile value")
        call = dict(kwargs)
        target = call.pop("self") if "self" in call else None
        try:
            with np.errstate(all="raise"):
                result = fn(target, **call) if target is not None else fn(**call)
        except (TypeError, ValueError) as exc:
            outcomes["refused"] += 1
            assert names_a_parameter(str(exc), params), (
                f"{name}: {type(exc).__name__} names no parameter of {params}: {exc}")
            return
        outcomes["value"] += 1
        with np.errstate(all="ignore"):
            case.check(kwargs, result)

    run()
    assert outcomes["value"] > 0, f"{name}: no draw reached the computation ({outcomes})"
