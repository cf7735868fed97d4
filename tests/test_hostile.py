"""A seeded battery of hostile inputs: every public function is right or refuses clearly.

"Right" is judged against references computed here without lnbook's arithmetic: exact
rationals (``fractions``), mpmath, hand-worked values, and the correctly rounded core
:func:`lnbook.exact_core` (Fraction + certified mpmath rounding, the book's reference).
"Refuses clearly" is book/api.md's policy: a TypeError for a wrong kind, a ValueError for a
wrong value, the parameter named in the message, before anything large is allocated; no
other exception (numpy's, Python's, FloatingPointError) escapes, and a caller's
``np.errstate(all="raise")`` neither raises nor changes a result. The cases of issue 17 are
marked in their docstrings.
"""

from __future__ import annotations

import functools
import math
import pathlib
import subprocess
import sys
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import lnbook
from lnbook import figures, fp, frameworks, geometry, transformer

RNG = np.random.default_rng(20261201)
Z = RNG.normal(size=(3, 5))  # a batch of records, d = 5
G = RNG.normal(size=(3, 5))  # an upstream gradient of its shape


def refused(kind, name, call):
    """``call()`` raises ``kind`` (TypeError or ValueError) whose message names ``name``,
    under a caller's np.errstate(all="raise"); the message is returned."""
    with np.errstate(all="raise"), pytest.raises(kind) as info:
        call()
    message = str(info.value)
    assert name in message, f"the message does not name {name}: {message}"
    return message


PACKAGE = pathlib.Path(lnbook.__file__).resolve().parent  # lnbook's files, not numpy's


def lines_run(call, limit: int = 10**6) -> int:
    """How many lines of lnbook ``call()`` executes: counted with sys.settrace, not timed, so
    that a busy machine cannot fail a test and a fast one cannot pass it. Past ``limit`` the
    call is stopped with an AssertionError (a loop that would not end fails instead of hanging)."""
    count = 0

    def trace(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            assert count <= limit, f"more than {limit} lines of lnbook executed"
        return trace if pathlib.Path(frame.f_code.co_filename).is_relative_to(PACKAGE) else None

    before = sys.gettrace()  # a debugger's or coverage's tracer, put back afterwards
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(before)
    return count


def calm(call):
    """The result of ``call()`` under np.errstate(all="raise"), which must equal (bit for
    bit) its result under numpy's default state: lnbook owns its floating-point state."""
    with np.errstate(all="raise"):
        strict = call()
    plain = call()
    assert same(strict, plain), (strict, plain)
    return strict


def same(a, b):
    """Equal bit for bit: arrays (NaN-free) entry by entry, containers item by item."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, type(a)) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, (np.ndarray, np.generic, float, int)):
        return np.array_equal(a, b)
    return a == b


def exact_stats(z):
    """Mean and population variance of one record in exact rationals."""
    x = [Fraction(float(t)) for t in z]
    mu = sum(x, Fraction(0)) / len(x)
    return mu, sum(((t - mu) ** 2 for t in x), Fraction(0)) / len(x)


def ulps(computed, exact):
    """Normwise error in ulps of the largest exact component of each record."""
    computed, exact = np.atleast_2d(computed), np.atleast_2d(exact)
    unit = np.spacing(np.maximum(np.abs(exact).max(axis=-1), 2.0**-1074))
    return float((np.abs(computed - exact).max(axis=-1) / unit).max())


def mp_jacobian(z, eps, dps=40):
    """J_ij = (delta_ij - 1/d) / s - v_i v_j / (d s^3) with mpmath (0 for d = 1)."""
    with mpmath.workdps(dps):
        x = [mpmath.mpf(float(t)) for t in z]
        d = len(x)
        mu = sum(x) / d
        v = [t - mu for t in x]
        s = mpmath.sqrt(sum(t * t for t in v) / d + mpmath.mpf(eps))
        return np.array([[float(((i == j) - mpmath.mpf(1) / d) / s - v[i] * v[j] / (d * s**3))
                          for j in range(d)] for i in range(d)])


# --- the cases of issue 17 -----------------------------------------------------------------


@functools.cache
def depth_by_definition(d):
    """k(d) by its recursive definition (pairwise_depth's Notes), memoized."""
    if d < 8:
        return d - 1
    if d <= 128:
        m = d - d % 8
        return (m // 8 - 1) + 3 + d % 8
    d1 = d // 2 - (d // 2) % 8
    return 1 + max(depth_by_definition(d1), depth_by_definition(d - d1))


def test_pairwise_depth_of_two_to_the_32_is_43_at_once():
    """Issue 17: pairwise_depth(2**32) never returned; the answer is 43 = log2(2**32/128) + 18.
    Now a level-by-level walk: every depth up to 2**63 - 1 in at most 10**4 lines of lnbook
    (a walk over the blocks of 2**32 would be millions)."""
    assert lines_run(lambda: fp.pairwise_depth(2**63 - 1), limit=10**4) > 0
    assert fp.pairwise_depth(2**32) == depth_by_definition(2**32) == 43
    assert fp.pairwise_depth(2**63 - 1) == depth_by_definition(2**63 - 1)
    rng = np.random.default_rng(1)
    for d in [1, 7, 8, 127, 128, 129, 136, 256, 1000, 2**20 + 3] + rng.integers(1, 2**62,
                                                                                20).tolist():
        assert fp.pairwise_depth(int(d)) == depth_by_definition(int(d)), d
    refused(ValueError, "d", lambda: fp.pairwise_depth(2**63))


def test_decade_ticks_refuses_zero_ticks_at_once():
    """Issue 17: decade_ticks(1, 1e12, max_ticks=0) looped forever."""
    refused(ValueError, "max_ticks", lambda: figures.decade_ticks(1, 1e12, max_ticks=0))
    refused(ValueError, "max_ticks", lambda: figures.decade_ticks(1, 1e12, max_ticks=1,
                                                                   zero=True))
    refused(ValueError, "lo", lambda: figures.decade_ticks(-1.0, 1e12))
    refused(ValueError, "lo", lambda: figures.decade_ticks(1e6, 1.0))
    # the closed-form step: at most max_ticks powers of ten, every k-th decade
    assert figures.decade_ticks(1.0, 1e12, max_ticks=1).tolist() == [1.0]
    assert figures.decade_ticks(1e-300, 1e300, max_ticks=3).tolist() == [1e-300, 1e-99, 1e102]


def test_merge_stats_counts_never_wrap():
    """Issue 17: 2**62 + 2**62 records gave n = -2**63. Now the count is exact up to 2**63 - 1
    (Python's integers are the reference) and refused beyond."""
    n, mu, q = fp.merge_stats((2**62, 0.0, 1.0), (2**62 - 1, 0.0, 1.0))
    assert int(n) == 2**63 - 1 and float(mu) == 0.0 and float(q) == 1.0
    refused(ValueError, "n_a + n_b", lambda: fp.merge_stats((2**62, 0.0, 1.0), (2**62, 1.0, 1.0)))
    refused(ValueError, "part_a: n", lambda: fp.merge_stats((2**64, 0.0, 1.0), (1, 1.0, 1.0)))
    counts = np.array([2**62, 5])
    refused(ValueError, "n_a + n_b", lambda: fp.merge_stats((counts, 0.0, 1.0),
                                                            (counts, 1.0, 1.0)))
    refused(TypeError, "part_b: n", lambda: fp.merge_stats((1, 0.0, 1.0), (True, 1.0, 1.0)))
    refused(TypeError, "part_a", lambda: fp.merge_stats([1, 0.0, 1.0][0], (1, 1.0, 1.0)))
    refused(ValueError, "part_a and part_b",
            lambda: fp.merge_stats((1, np.zeros(2), 0.0), (1, np.zeros(3), 0.0)))


def test_merge_stats_takes_a_list_part_as_documented():
    """A part may be a tuple or a list of (n, mu, q) (the second battery: accepted a list,
    documented only the tuple); anything else is a TypeError naming the part."""
    assert fp.merge_stats([2, 1.5, 0.25], (2, 3.5, 0.25)) == fp.merge_stats(
        (2, 1.5, 0.25), (2, 3.5, 0.25)) == (4, 2.5, 1.25)
    refused(TypeError, "part_b must be a tuple (n, mu, q) (or a list of the three)",
            lambda: fp.merge_stats((2, 1.5, 0.25), np.array([2, 3.5, 0.25])))


def test_merge_stats_in_float32_stays_in_float32():
    """Merging float32 statistics is float32 arithmetic (chan_stats' dtype says "every
    operation"): the result equals the same formula evaluated with numpy float32 scalars."""
    f = np.float32
    n, mu, q = fp.merge_stats((3, f(1.1), f(0.3)), (5, f(2.7), f(0.9)))
    delta = f(2.7) - f(1.1)
    expected_mu = f(1.1) + delta * (f(5) / f(8))
    expected_q = (f(3) * f(0.3) + f(5) * f(0.9) + delta * delta * (f(3) * f(5) / f(8))) / f(8)
    assert mu.dtype == np.float32 and mu == expected_mu and q == expected_q
    # chan_stats in float32 therefore differs from the float64 merge rounded at the end
    z = np.random.default_rng(3).normal(size=64).astype(np.float32) + 1000
    mu32, q32 = fp.chan_stats(z, block=4, dtype=np.float32)
    assert mu32.dtype == q32.dtype == np.float32
    exact_mu, exact_q = exact_stats(z)
    assert abs(Fraction(float(q32)) - exact_q) / exact_q < 2**-10  # float32-sized error


@pytest.mark.parametrize("call", [
    lambda: lnbook.param_grads([[1e-160, 0.0, 3e-160]], [[1e-160, 2e-160, 1.0]], eps=1e-310),
    lambda: fp.welford([1e-170, 3e-170, 2e-170]),
    lambda: fp.chan_stats([1e-170, 3e-170, 2e-170, 5e-170], block=2),
    lambda: fp.one_pass_stats([1e-170, 3e-170]),
    lambda: lnbook.core([1e-200, 0.0, 5e-324], eps=1e-320),
    lambda: lnbook.layer_norm([1e300, -1e300, 0.0], [1e-300, 1.0, 1.0], [0.0, 0.0, 1e-320]),
    lambda: lnbook.jacobian([1e-160, 2e-160, 0.0], eps=1e-300),
    lambda: lnbook.input_grad([1e-160, 2e-160, 0.0], [1e-300, 1.0, 0.0], eps=1e-300),
    lambda: lnbook.jacobian_eigenvalues([1e-160, 2e-160], eps=1e-300),
    lambda: lnbook.operator_norm([1e200, -1e200], eps=1e-300),
    lambda: lnbook.amplification([1e-160, 0.0], [1e-170, 1e-171], eps=1e-300),
    lambda: lnbook.response([1e-200, 1e200], eps=1e-300),
    lambda: lnbook.response_slope([1e-200, 1e200], eps=1e-300),
    lambda: lnbook.normalized_variance([1e-200, 0.0], eps=1e-300),
    lambda: lnbook.rms_norm([1e-200, 5e-324], eps=0),
    lambda: lnbook.batch_norm([[1e-200, 1.0], [2e-200, 3.0]], eps=1e-300),
    lambda: lnbook.ulp_error([1e-300, 1.0], [0.0, 1.0]),
    lambda: lnbook.exact_core([1e-200, 0.0, 5e-324], eps=1e-320),
    lambda: lnbook.centering_matrix(3),
    lambda: fp.pairwise_sum([1e-300, 1e-310, 5e-324]),
    lambda: fp.round_bfloat16([1e-40, 1e-45, 3e38]),
    lambda: fp.offset_errors([1e3], sigma=1e-150, d=4, n=1),
    lambda: frameworks.layer_norm_variant([1e-200, 2e-200], eps=0, ddof=1, eps_inside=False),
    lambda: geometry.core_radius([1e-200, 0.0], eps=1e-300),
    lambda: geometry.radial_profile([1e-200, 1e200], 3, eps=1e-300),
    lambda: transformer.rms_jacobian([1e-200, 0.0], eps=1e-300),
    lambda: transformer.residual_backward([[1e-150, 0.0, 1.0]], [[1e-160, 1.0, 0.0]],
                                          transformer.init_blocks(2, 3, seed=4), eps=1e-300),
    lambda: figures.geometry_picture_data(z=[[1e-150, 0.0, 1e-160]], eps=1e-300),
])
def test_a_callers_errstate_never_raises_nor_changes_a_result(call):
    """Issue 17: param_grads, welford and chan_stats raised FloatingPointError under
    np.errstate(all="raise") from an intermediate underflow whose result is fine. Each public
    function owns its floating-point state (one decorator in lnbook._checks)."""
    calm(call)


def test_record_audit_refuses_a_bool_record():
    """Issue 17: record=(True,) overwrote every record (a boolean mask) and reported layer_norm
    as coupling all of them; record=(0.5,) raised IndexError."""
    z = np.arange(12.0).reshape(3, 4) ** 2
    refused(TypeError, "record", lambda: lnbook.record_audit(lnbook.layer_norm, z, (True,)))
    refused(TypeError, "record", lambda: lnbook.record_audit(lnbook.layer_norm, z, (0.5,)))
    refused(TypeError, "record", lambda: lnbook.record_audit(lnbook.layer_norm, z, 1))
    refused(ValueError, "record", lambda: lnbook.record_audit(lnbook.layer_norm, z, (3,)))
    refused(ValueError, "record", lambda: lnbook.record_audit(lnbook.layer_norm, z, (0, 1)))
    moved = lnbook.record_audit(lnbook.layer_norm, z, (-1,))
    assert moved.tolist()[:2] == [0.0, 0.0] and moved[2] > 0


def test_jacobian_eigenvalues_of_one_feature_are_zero():
    """Issue 17: jacobian_eigenvalues([5.0]) returned eps**-1/2 twice; with d = 1 the core is
    0 for every record, so its Jacobian is [[0]] (by hand) and both eigenvalues are 0."""
    radial, tangential = lnbook.jacobian_eigenvalues([5.0])
    assert float(radial) == float(tangential) == 0.0
    assert lnbook.jacobian([5.0]).tolist() == [[0.0]]
    assert lnbook.jacobian_eigenvalues([[1.0], [-3.0]])[0].tolist() == [0.0, 0.0]
    assert lnbook.operator_norm([5.0]) == 0.0
    refused(ValueError, "eps", lambda: lnbook.jacobian_eigenvalues([5.0], eps=0))


EPS_FUNCTIONS = [
    lambda eps: lnbook.core(Z, eps=eps),
    lambda eps: lnbook.layer_norm(Z, eps=eps),
    lambda eps: lnbook.normalized_variance(Z, eps=eps),
    lambda eps: lnbook.jacobian(Z, eps=eps),
    lambda eps: lnbook.jacobian_eigenvalues(Z, eps=eps),
    lambda eps: lnbook.input_grad(Z, G, eps=eps),
    lambda eps: lnbook.param_grads(Z, G, eps=eps),
    lambda eps: lnbook.operator_norm(Z, eps=eps),
    lambda eps: lnbook.lipschitz_bound(eps=eps),
    lambda eps: lnbook.amplification(Z, G, eps=eps),
    lambda eps: lnbook.response([1.0], eps=eps),
    lambda eps: lnbook.response_slope([1.0], eps=eps),
    lambda eps: lnbook.rms_norm(Z, eps=eps),
    lambda eps: lnbook.batch_norm(Z, eps=eps),
    lambda eps: lnbook.wrong_axis_layer_norm(Z, axis=0, eps=eps),
    lambda eps: lnbook.exact_core(Z[0], eps=eps),
    lambda eps: fp.offset_errors([1.0], d=4, n=1, eps=eps),
    lambda eps: frameworks.layer_norm_variant(Z, eps=eps),
    lambda eps: frameworks.convention_layer_norm(Z, convention="keras", eps=eps),
    lambda eps: frameworks.Convention(label="x", eps=eps, ddof=0, eps_inside=True, center=True,
                                      fast_variance=False, params="", source=""),
    lambda eps: geometry.core_radius(Z, eps=eps),
    lambda eps: geometry.radial_profile([1.0], 3, eps=eps),
    lambda eps: transformer.residual_forward(Z, transformer.init_blocks(1, 5), eps=eps),
    lambda eps: transformer.residual_backward(Z, G, transformer.init_blocks(1, 5), eps=eps),
    lambda eps: transformer.layer_gradient_norms(1, d=4, T=2, eps=eps),
    lambda eps: transformer.rms_jacobian(Z, eps=eps),
    lambda eps: figures.jacobian_eigenvalues_data(eps=eps),
    lambda eps: figures.operator_norm_data(eps=eps),
    lambda eps: figures.gain_effect_data(eps=eps),
    lambda eps: figures.bias_shift_data(eps=eps),
    lambda eps: figures.placement_gradients_data(depths=(1,), d=3, seeds=(0,), L=1, eps=eps),
    lambda eps: figures.geometry_picture_data(eps=eps),
    lambda eps: figures.response_data(eps_values=(eps,)),
    lambda eps: figures.normalized_variance_data(eps_values=(eps,)),
]


@pytest.mark.parametrize("eps, kind", [
    (10**400, ValueError), (-1e-5, ValueError), (float("nan"), ValueError),
    (float("inf"), ValueError), (-0.0 - 1e-300, ValueError), (np.longdouble("1e400"), ValueError),
    ("1e-5", TypeError), (True, TypeError), (1e-5 + 0j, TypeError), (None, TypeError),
    (Decimal("1e-5"), TypeError), ([1e-5], TypeError),
])
def test_every_eps_is_checked(eps, kind):
    """Issue 17: eps=10**400 raised OverflowError. Every function that takes eps refuses an
    eps that is no finite non-negative float64 (ValueError) or no real number (TypeError),
    naming eps (None is convention_layer_norm's default: the convention's own eps)."""
    for k, call in enumerate(EPS_FUNCTIONS):
        if eps is None and k == 18:
            assert np.array_equal(call(None), call(1e-3))
            continue
        refused(kind, "eps", functools.partial(call, eps))


COUNTS = [
    ("d", lambda v: lnbook.centering_matrix(v)),
    ("d", lambda v: fp.pairwise_depth(v)),
    ("d", lambda v: geometry.plane_basis(v)),
    ("d", lambda v: geometry.radial_profile([1.0], v)),
    ("d", lambda v: fp.offset_errors([1.0], d=v, n=1)),
    ("n", lambda v: fp.offset_errors([1.0], d=2, n=v)),
    ("seed", lambda v: fp.offset_errors([1.0], d=2, n=1, seed=v)),
    ("block", lambda v: fp.chan_stats([1.0, 2.0], block=v)),
    ("dps", lambda v: lnbook.exact_core([1.0, 2.0], dps=v)),
    ("threads", lambda v: lnbook.core(Z, threads=v)),
    ("threads", lambda v: lnbook.jacobian(Z, threads=v)),
    ("seed", lambda v: lnbook.record_audit(lnbook.layer_norm, Z, (0,), seed=v)),
    ("axis", lambda v: lnbook.wrong_axis_layer_norm(Z, axis=v)),
    ("ddof", lambda v: frameworks.layer_norm_variant(Z, eps=0.1, ddof=v)),
    ("L", lambda v: transformer.init_blocks(v, 3)),
    ("d", lambda v: transformer.init_blocks(1, v)),
    ("m", lambda v: transformer.init_blocks(1, 3, m=v)),
    ("seed", lambda v: transformer.init_blocks(1, 3, seed=v)),
    ("T", lambda v: transformer.layer_gradient_norms(1, d=3, T=v)),
    ("d", lambda v: figures.records_with_variance([1.0], v)),
    ("d", lambda v: figures.normalized_variance_data(d=v)),
    ("d", lambda v: figures.jacobian_eigenvalues_data(d=v)),
    ("dims", lambda v: figures.operator_norm_data(dims=(v,))),
    ("dims", lambda v: figures.core_bound_data(dims=(v,), n=2)),
    ("n", lambda v: figures.core_bound_data(dims=(2,), n=v)),
    ("seed", lambda v: figures.core_bound_data(dims=(2,), n=2, seed=v)),
    ("shape", lambda v: figures.record_audit_data(shape=(2, v, 3), record=(0, 0))),
    ("record", lambda v: figures.record_audit_data(shape=(2, 3, 3), record=(0, v))),
    ("max_ticks", lambda v: figures.decade_ticks(1.0, 10.0, max_ticks=v)),
    ("max_ticks", lambda v: figures.offset_error_data([1.0], {"e": [1.0]}, max_ticks=v)),
    ("depths", lambda v: figures.placement_gradients_data(depths=(v,), d=3, seeds=(0,), L=1)),
    ("seeds", lambda v: figures.placement_gradients_data(depths=(1,), d=3, seeds=(v,), L=1)),
    ("L", lambda v: figures.placement_gradients_data(depths=(1,), d=3, seeds=(0,), L=v)),
]


@pytest.mark.parametrize("value", [2.5, 2.0, True, "3", None, np.float64(3.0), 3 + 0j])
def test_a_count_of_the_wrong_kind_is_a_type_error(value):
    """Issue 17: a count of 2.5 raised ValueError in 8 functions and TypeError in 3. Every
    integer parameter refuses a float (2.0 too), a bool, a string or None with a TypeError
    (None is the default of dps, threads and m, and means 30 digits, one thread per CPU, 2 d)."""
    for name, call in COUNTS:
        if value is None and name in ("dps", "threads", "m"):
            call(value)
            continue
        refused(TypeError, name, functools.partial(call, value))


def test_a_count_out_of_range_is_a_value_error():
    """A negative count (and for most a zero one) is a ValueError naming the parameter; for
    the seeds, numpy's SeedSequence message no longer leaks."""
    for name, call in COUNTS:
        refused(ValueError, name, functools.partial(call, -1 if name not in ("axis", "record")
                                                    else 7))


def test_sizes_that_cannot_fit_are_refused_before_allocating():
    """Issue 17: rms_jacobian at d = 2e5 tried to allocate 298 GiB. Every d x d result (and
    every other large allocation) is refused up front: nothing near its size is allocated."""
    big = np.ones(200_000)
    calls = [
        ("d = 200000", lambda: transformer.rms_jacobian(big)),
        ("d = 200000", lambda: lnbook.jacobian(big)),
        ("d = 100000", lambda: lnbook.centering_matrix(100_000)),
        ("d = 200000", lambda: lnbook.weighted_centering_matrix(big / big.size)),
        ("d = 100000", lambda: geometry.plane_basis(100_000)),
        ("L = 1000000", lambda: transformer.init_blocks(10**6, 100)),
        ("n = 100000", lambda: fp.offset_errors([1.0], d=100_000, n=100_000)),
        ("d = 2000000000", lambda: figures.records_with_variance([1.0, 2.0], 2 * 10**9)),
        ("shape (1000, 1000, 10000)",
         lambda: figures.record_audit_data(shape=(1000, 1000, 10_000), record=(0, 0))),
        ("d = 2000000000", lambda: figures.core_bound_data(dims=(2 * 10**9,), n=2)),
        ("d = 9223372036854775807", lambda: lnbook.centering_matrix(2**63 - 1)),
    ]
    tracemalloc.start()
    try:
        for what, call in calls:
            message = refused(ValueError, "would have", call)
            assert what in message, message
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20  # the inputs above are at most 1.6 MB; no result was allocated


def test_nan_coordinates_are_refused_in_the_figures():
    """Issue 17: figures.shift_geometry_data([nan, 1.0]) returned NaN coordinates silently.
    Every figure's data refuses NaN and infinities in each of its arrays."""
    nan, inf = float("nan"), float("inf")
    refused(ValueError, "z", lambda: figures.shift_geometry_data(z=[nan, 1.0]))
    refused(ValueError, "shifts", lambda: figures.shift_geometry_data(shifts=[0.0, inf]))
    refused(ValueError, "z", lambda: figures.weighted_projection_data(z=[1.0, nan]))
    refused(ValueError, "a", lambda: figures.weighted_projection_data(a=[nan, 1.0]))
    refused(ValueError, "delta", lambda: figures.amplification_data(delta=[nan, 0.0]))
    refused(ValueError, "z", lambda: figures.amplification_data(z=[inf, 0.0]))
    refused(ValueError, "gamma", lambda: figures.gain_effect_data(gamma=[1.0, nan, 1.0]))
    refused(ValueError, "beta", lambda: figures.bias_shift_data(beta=[1.0, nan, 1.0]))
    refused(ValueError, "z", lambda: figures.bias_shift_data(z=[[1.0, nan, 1.0]]))
    refused(ValueError, "t", lambda: figures.response_data(t=[0.0, nan]))
    refused(ValueError, "eps_values", lambda: figures.response_data(eps_values=(nan,)))
    refused(ValueError, "q", lambda: figures.records_with_variance([inf], 3))
    refused(ValueError, "offsets", lambda: figures.offset_error_data([1.0, nan], {"e": [0, 1]}))
    refused(ValueError, "errors", lambda: figures.offset_error_data([1.0], {"e": [nan]}))
    refused(ValueError, "z", lambda: figures.eps_placement_data(z=[1.0, inf]))
    refused(ValueError, "z", lambda: figures.geometry_picture_data(z=[[1.0, nan, 0.0]]))
    refused(ValueError, "per round", lambda: figures.benchmark_ratios_data(
        {"results": {"r": {"name": "r", "result": {"per round": [nan], "median": 1.0},
                           "target": {"comparison": "<=", "bound": 1.0}}}}))


def test_wrong_shapes_and_kinds_in_the_figures():
    """A figure of the plane takes records of two features; a malformed results dict is a
    ValueError naming it, not a KeyError; a constant record has no spread to scale."""
    refused(ValueError, "z", lambda: figures.shift_geometry_data(z=[1.0, 2.0, 3.0]))
    refused(ValueError, "a", lambda: figures.weighted_projection_data(a=[0.5, 0.25, 0.25]))
    refused(ValueError, "z", lambda: figures.eps_placement_data(z=[2.0, 2.0]))
    refused(ValueError, "conventions", lambda: figures.eps_placement_data(conventions=("jax",)))
    refused(TypeError, "conventions", lambda: figures.eps_placement_data(conventions="keras"))
    refused(ValueError, "results", lambda: figures.benchmark_ratios_data({"results": {
        "r": {"name": "r", "result": {"median": 1.0}}}}))
    refused(TypeError, "results", lambda: figures.benchmark_ratios_data([]))
    refused(ValueError, "results", lambda: figures.benchmark_ratios_data({"results": {}}))
    refused(TypeError, "errors", lambda: figures.offset_error_data([1.0], [1.0]))
    refused(ValueError, "errors", lambda: figures.offset_error_data([1.0, 2.0], {"e": [1.0]}))
    refused(ValueError, "eps_values", lambda: figures.geometry_picture_data(eps_values=(0.0,)))
    refused(ValueError, "dims", lambda: figures.core_bound_data(dims=(1, 2)))
    refused(TypeError, "shape", lambda: figures.record_audit_data(shape=(2, 3)))
    refused(TypeError, "zero", lambda: figures.decade_ticks(1.0, 10.0, zero="no"))


# --- d = 1, empty batches ------------------------------------------------------------------


def test_one_feature():
    """d = 1: mean z, variance 0, core 0 (eps > 0), Jacobian [[0]], gradients 0; with
    eps = 0 the core is 0/0 and refused. All by hand."""
    z = np.array([[3.0], [-2.0]])
    mu, q = lnbook.stats(z)
    assert mu.tolist() == [3.0, -2.0] and q.tolist() == [0.0, 0.0]
    assert lnbook.core(z).tolist() == [[0.0], [0.0]]
    assert lnbook.layer_norm(z, [2.0], [0.5]).tolist() == [[0.5], [0.5]]
    assert lnbook.normalized_variance(z).tolist() == [0.0, 0.0]
    assert lnbook.jacobian(z).tolist() == [[[0.0]], [[0.0]]]
    assert lnbook.input_grad(z, [[1.0], [2.0]]).tolist() == [[0.0], [0.0]]
    dgamma, dbeta = lnbook.param_grads(z, [[1.0], [2.0]])
    assert dgamma.tolist() == [0.0] and dbeta.tolist() == [3.0]
    assert lnbook.operator_norm(z).tolist() == [0.0, 0.0]
    assert lnbook.amplification(z, [[1.0], [1.0]]).tolist() == [0.0, 0.0]
    assert lnbook.exact_core(z).tolist() == [[0.0], [0.0]]
    assert lnbook.rms_norm(z, eps=0).tolist() == [[1.0], [-1.0]]  # z / |z|
    assert geometry.core_radius(z).tolist() == [0.0, 0.0]
    assert transformer.rms_jacobian([2.0], eps=0).tolist() == [[0.0]]  # J z = 0, d = 1
    assert fp.welford(z)[1].tolist() == [0.0, 0.0] and fp.pairwise_sum(z).tolist() == [3.0, -2.0]
    assert fp.chan_stats(z)[0].tolist() == [3.0, -2.0] and fp.one_pass_stats(z)[1].tolist() == [0,
                                                                                                0]
    assert lnbook.batch_norm([[1.0], [3.0]], eps=0).tolist() == [[-1.0], [1.0]]
    for call in (lambda: lnbook.core(z, eps=0), lambda: lnbook.jacobian(z, eps=0),
                 lambda: lnbook.input_grad(z, z, eps=0), lambda: lnbook.stats(z) and
                 lnbook.normalized_variance(z, eps=0)):
        refused(ValueError, "eps = 0", call)
    refused(ValueError, "ddof", lambda: frameworks.layer_norm_variant(z, eps=1.0, ddof=1))


def test_empty_batches():
    """A batch of no records has results of no records, of the right shape; statistics over
    an empty batch (BatchNorm's, a wrong axis of length 0) are refused."""
    e = np.zeros((0, 4))
    assert lnbook.core(e).shape == (0, 4) and lnbook.layer_norm(e, np.ones(4)).shape == (0, 4)
    assert [a.shape for a in lnbook.stats(e)] == [(0,), (0,)]
    assert lnbook.jacobian(e).shape == (0, 4, 4)
    assert lnbook.input_grad(e, e).shape == (0, 4)
    assert [a.tolist() for a in lnbook.param_grads(e, e)] == [[0.0] * 4] * 2
    assert lnbook.operator_norm(e).shape == (0,) and lnbook.normalized_variance(e).shape == (0,)
    assert lnbook.exact_core(e).shape == (0, 4) and lnbook.rms_norm(e).shape == (0, 4)
    assert fp.welford(e)[0].shape == (0,) and fp.pairwise_sum(e).shape == (0,)
    assert geometry.core_radius(e).shape == (0,) and transformer.rms_jacobian(e).shape == (0, 4, 4)
    assert lnbook.ulp_error(e, e).shape == (0,)
    assert frameworks.convention_layer_norm(e, convention="flax").shape == (0, 4)
    assert transformer.residual_forward(e, transformer.init_blocks(1, 4)).shape == (0, 4)
    refused(ValueError, "B >= 1", lambda: lnbook.batch_norm(e))
    refused(ValueError, "axis 0", lambda: lnbook.wrong_axis_layer_norm(e, axis=0))
    refused(ValueError, "z", lambda: lnbook.core(np.zeros((3, 0))))
    refused(ValueError, "record", lambda: lnbook.record_audit(lnbook.layer_norm, e, (0,)))


# --- entries: NaN, infinities, huge and tiny ----------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_nan_and_infinities_in_every_array_argument(bad):
    """Every array argument refuses NaN and infinite entries, naming itself."""
    z = Z.copy()
    z[1, 2] = bad
    g = G.copy()
    g[0, 0] = bad
    gamma = np.ones(5)
    gamma[3] = bad
    cases = [
        ("z", lambda: lnbook.core(z)), ("z", lambda: lnbook.stats(z)),
        ("gamma", lambda: lnbook.layer_norm(Z, gamma)), ("beta",
                                                         lambda: lnbook.layer_norm(Z, None, gamma)),
        ("g", lambda: lnbook.input_grad(Z, g)), ("g", lambda: lnbook.param_grads(Z, g)),
        ("gamma", lambda: lnbook.jacobian(Z, gamma)), ("delta", lambda: lnbook.amplification(Z, g)),
        ("gamma", lambda: lnbook.lipschitz_bound(gamma)), ("t", lambda: lnbook.response([bad])),
        ("a", lambda: lnbook.weighted_centering_matrix([0.5, bad])),
        ("computed", lambda: lnbook.ulp_error(z, Z)), ("exact", lambda: lnbook.ulp_error(Z, z)),
        ("z", lambda: fp.welford(z)), ("z", lambda: fp.pairwise_sum(z)),
        ("z", lambda: fp.round_bfloat16(z)), ("part_b: mu",
                                              lambda: fp.merge_stats((1, 0.0, 0.0), (1, bad, 0.0))),
        ("part_a: q", lambda: fp.merge_stats((1, 0.0, bad), (1, 0.0, 0.0))),
        ("offsets", lambda: fp.offset_errors([bad])), ("r",
                                                       lambda: geometry.radial_profile([bad], 3)),
        ("f(z)", lambda: lnbook.record_audit(lambda x: x * bad, Z, (0,))),
        ("f(z)", lambda: lnbook.central_difference_jacobian(lambda x: x * bad, Z[0])),
        ("f(z)", lambda: fp.offset_errors([1.0], f=lambda x, eps: x * bad, d=2, n=1)),
        ("blocks[0]['W2']", lambda: transformer.residual_forward(Z, [
            dict(transformer.init_blocks(1, 5)[0], W2=np.full((5, 10), bad))])),
        ("z", lambda: transformer.residual_forward(z, transformer.init_blocks(1, 5))),
    ]
    for name, call in cases:
        refused(ValueError, name, call)


def test_huge_and_tiny_records_are_right():
    """Records at the ends of float64's range (spread 1e-300, 1e300, subnormal entries) get
    the correctly rounded core within 4 ulps (exact_core is the reference), and statistics
    equal to the exact rational ones."""
    cases = [np.array([1e300, -1e300, 3e299]), np.array([1e-300, 0.0, 3e-301]),
             np.array([5e-324, 0.0, 0.0, 1e-323]), np.array([1e154, 1e154 + 2**500, -1e154]),
             np.array([1.0, 1.0 + 2**-52, 1.0 - 2**-53])]
    for z in cases:
        for eps in (0.0, 1e-5, 1e-320, 1e300):
            assert ulps(lnbook.core(z, eps=eps), lnbook.exact_core(z, eps=eps)) <= 4, (z, eps)
        mu, q = exact_stats(z)
        if q < Fraction(1e308):
            got_mu, got_q = lnbook.stats(z)
            assert abs(Fraction(float(got_mu)) - mu) <= abs(mu) * Fraction(2**-50) + Fraction(
                2**-1074)
            assert abs(Fraction(float(got_q)) - q) <= q * Fraction(2**-48) + Fraction(2**-1074)
    refused(ValueError, "z", lambda: lnbook.stats([1e200, -1e200]))  # q beyond float64
    assert np.isfinite(lnbook.core([1e200, -1e200])).all()  # the core is fine


def test_jacobian_and_gradients_against_mpmath_at_the_ends():
    """The Jacobian of tiny and huge records (scaled by a power of two inside) against an
    mpmath evaluation of the closed form, entry by entry within a few ulps of max|J|."""
    for z, eps in (([1e-150, 3e-150, -2e-150], 1e-300), ([1e150, 3e150, -2e150], 1e299),
                   ([0.3, -1.2, 2.5, 7.0], 0.1), ([4.0, 4.0 + 2**-40, 4.0], 1e-30)):
        J, exact = lnbook.jacobian(z, eps=eps), mp_jacobian(z, eps)
        assert ulps(J.ravel(), exact.ravel()) <= 8, (z, eps)
        g = np.array([1.0, -2.0, 0.5, 3.0][: len(z)])
        assert ulps(lnbook.input_grad(z, g, eps=eps), exact @ g) <= 16


# --- dtypes -------------------------------------------------------------------------------


def test_every_dtype():
    """float16/32 records are taken exactly (so their core is the exact core of the same
    numbers); integers up to 2**53 are exact, beyond are refused; bool, complex, object,
    Fraction and Decimal are wrong kinds (TypeError), never rounded silently."""
    z = np.array([1.5, -2.25, 0.125, 7.0])
    for dtype in (np.float16, np.float32, np.float64, np.int8, np.int32, np.uint16):
        x = (z * 4).astype(dtype)
        # the same numbers as float64 (exact conversions), then their correctly rounded core
        same = np.array([float(t) for t in x])
        assert lnbook.core(x, eps=0).tolist() == lnbook.core(same, eps=0).tolist()
        for eps in (0.0, 1e-5):
            assert ulps(lnbook.core(x, eps=eps), lnbook.exact_core(same, eps=eps)) <= 4
    big = np.array([2**53, 2**53 + 1, 0], dtype=np.int64)
    refused(ValueError, "2**53", lambda: lnbook.core(big))
    refused(ValueError, "2**53", lambda: lnbook.core([2**53 + 1, 0.5]))  # in a list of floats
    assert lnbook.core(np.array([2**53, 0, 1], dtype=np.int64)).shape == (3,)
    refused(ValueError, "float64 cannot represent",
            lambda: lnbook.core(np.array([1, 2], dtype=np.longdouble) / 3))
    for value in ([True, False, True], np.array([True, False]), [1 + 0j, 2], [Fraction(1, 3), 1],
                  [Decimal("0.1"), 1], ["1", "2"], [None, 1.0], np.array([2**70, 1])):
        refused(TypeError, "z", functools.partial(lnbook.core, value))
    refused(ValueError, "2**53", lambda: lnbook.core([2**70, 1]))
    refused(ValueError, "one shape", lambda: lnbook.core([[1.0, 2.0], [3.0]]))
    refused(TypeError, "masked", lambda: lnbook.core(np.ma.masked_array([1.0, 2.0], [0, 1])))
    refused(TypeError, "gamma", lambda: lnbook.layer_norm(Z, [True] * 5))
    refused(TypeError, "dtype", lambda: fp.welford(Z, dtype="int32"))
    refused(TypeError, "dtype", lambda: fp.welford(Z, dtype="not a dtype"))
    refused(TypeError, "dtype", lambda: lnbook.ulp_error(Z, Z, dtype=complex))


@pytest.mark.parametrize("eps", [Fraction(1, 3), Fraction(1, 2), Decimal("0.5")])
def test_eps_as_fraction_or_decimal_is_refused_as_in_arrays(eps):
    """One policy for one number and for arrays: a Fraction or a Decimal, which float64 would
    round, is a TypeError naming the parameter and saying how to convert it (the second
    battery: Fraction was rounded silently, Decimal refused)."""
    for call in (lambda: lnbook.core(Z, eps=eps), lambda: lnbook.core([eps, 1.0])):
        with pytest.raises(TypeError, match=r"convert them with float\(\) first") as info:
            call()
        assert "eps" in str(info.value) or "z" in str(info.value)
    with pytest.raises(TypeError, match=r"^eps must be a real number \(int or float\)"):
        lnbook.core(Z, eps=eps)


# --- shapes -------------------------------------------------------------------------------


def test_broadcastable_but_wrong_shapes_are_refused():
    """A gain of shape (1,), a gradient of one record for a batch, a perturbation of shape
    (1, d): numpy would broadcast them, lnbook refuses them (a silent broadcast hides bugs)."""
    refused(ValueError, "gamma", lambda: lnbook.layer_norm(Z, [2.0]))
    refused(ValueError, "beta", lambda: lnbook.layer_norm(Z, None, np.ones((1, 5))))
    refused(ValueError, "g", lambda: lnbook.input_grad(Z, G[0]))
    refused(ValueError, "g", lambda: lnbook.param_grads(Z, G[:1]))
    refused(ValueError, "delta", lambda: lnbook.amplification(Z, G[:1]))
    refused(ValueError, "g",
            lambda: transformer.residual_backward(Z, G[0], transformer.init_blocks(1, 5)))
    refused(ValueError, "computed", lambda: lnbook.ulp_error(Z[0], Z))
    refused(ValueError, "a", lambda: lnbook.weighted_centering_matrix([[0.5, 0.5]]))
    refused(ValueError, "gamma", lambda: lnbook.lipschitz_bound(np.ones((2, 2))))
    refused(ValueError, "z", lambda: lnbook.central_difference_jacobian(np.sin, Z))
    refused(ValueError, "z", lambda: lnbook.batch_norm(Z[0]))
    refused(ValueError, "blocks[0]['W1']",
            lambda: transformer.residual_forward(Z, transformer.init_blocks(1, 4)))
    refused(ValueError, "f must keep the shape",
            lambda: lnbook.record_audit(lambda x: x[:, :2], Z, (0,)))
    refused(ValueError, "f must return arrays of one shape",
            lambda: lnbook.central_difference_jacobian(
        lambda x: x[: int(x[0] > 0.5) + 1], np.array([0.5, 1.0]), tau=0.25))


def test_steps_that_cannot_move_the_record_are_refused():
    """A finite-difference step below the spacing of z gives a zero column silently; a step
    that leaves float64's range gives infinities. Both are refused, naming tau."""
    refused(ValueError, "tau", lambda: lnbook.central_difference_jacobian(np.sin, [1.0], tau=1e-20))
    refused(ValueError, "tau",
            lambda: lnbook.central_difference_jacobian(np.sin, [1e308], tau=1e308))
    refused(TypeError, "tau", lambda: lnbook.central_difference_jacobian(np.sin, [1.0], tau="1"))
    refused(TypeError, "f", lambda: lnbook.central_difference_jacobian("sin", [1.0]))
    # a scalar f gives its gradient: d/dz (z1^2 + 3 z2) = (2 z1, 3)
    grad = lnbook.central_difference_jacobian(lambda x: x[0] ** 2 + 3 * x[1], [2.0, 5.0], tau=0.5)
    assert grad.tolist() == [4.0, 3.0]


# --- memory layout, threads ---------------------------------------------------------------


def test_non_contiguous_and_read_only_inputs():
    """Strided, Fortran-ordered and read-only arrays give the bits of their contiguous
    copies, and no input is ever written."""
    base = RNG.normal(size=(6, 10))
    strided, fortran = base[::2, ::2], np.asfortranarray(base[:3, :5])
    ro = base[:3, :5].copy()
    ro.flags.writeable = False
    g = G.copy()
    g.flags.writeable = False
    for x in (strided, fortran, ro):
        c = np.ascontiguousarray(x)
        before = x.copy()
        for fn in (lnbook.core, lnbook.stats, lnbook.jacobian, fp.welford, fp.pairwise_sum,
                   lnbook.operator_norm, lnbook.rms_norm, geometry.core_radius):
            a, b = fn(x), fn(c)
            for u, v in zip(a if isinstance(a, tuple) else (a,),
                            b if isinstance(b, tuple) else (b,)):
                assert np.array_equal(u, v), fn
        assert lnbook.input_grad(x, g).tolist() == lnbook.input_grad(c, G).tolist()
        assert np.array_equal(lnbook.record_audit(lnbook.layer_norm, x, (1,)),
                              lnbook.record_audit(lnbook.layer_norm, c, (1,)))
        assert np.array_equal(x, before)
    assert np.array_equal(g, G)


def test_concurrent_calls_are_bit_identical_to_serial():
    """Sixteen calls from eight threads at once (each also splitting its own work over two
    threads) give the bits of the same calls made one after another."""
    rng = np.random.default_rng(7)
    inputs = [rng.normal(size=(300, 64)) * 10.0 ** rng.integers(-5, 5) for _ in range(16)]
    calls = [lambda z: lnbook.layer_norm(z, np.arange(64.0), threads=2),
             lambda z: lnbook.core(z, eps=1e-3, threads=2),
             lambda z: lnbook.jacobian(z[:20], threads=2),
             lambda z: lnbook.input_grad(z, z[::-1]),
             lambda z: np.stack(lnbook.stats(z)),
             lambda z: fp.welford(z)[1]]
    serial = [[call(z) for call in calls] for z in inputs]
    barrier = threading.Barrier(8)

    def run(z):
        barrier.wait(timeout=30)  # all eight threads start their calls together
        with np.errstate(all="raise"):
            return [call(z) for call in calls]

    with ThreadPoolExecutor(8) as pool:
        parallel = list(pool.map(run, inputs))
    for a, b in zip(serial, parallel):
        for u, v in zip(a, b):
            assert np.array_equal(u, v)


def test_the_exception_classes_never_leak():
    """A sample of misuse that used to raise numpy's, Python's or ctypes' own exceptions
    (IndexError, OverflowError, AttributeError, numpy's broadcast error) now raises a
    TypeError or ValueError naming the parameter."""
    refused(ValueError, "seed", lambda: transformer.init_blocks(1, 2, seed=-1))
    refused(ValueError, "seed", lambda: transformer.layer_gradient_norms(1, d=2, seed=-1))
    refused(TypeError, "blocks", lambda: transformer.residual_forward(Z, "blocks"))
    refused(TypeError, "blocks[0]['W1']", lambda: transformer.residual_forward(Z, [
        dict(transformer.init_blocks(1, 5)[0], W1="x")]))
    refused(ValueError, "q", lambda: figures.records_with_variance(2.0, 3))
    refused(ValueError, "q", lambda: figures.records_with_variance([-1.0], 3))
    refused(TypeError, "f", lambda: lnbook.record_audit(None, Z, (0,)))
    refused(TypeError, "convention", lambda: frameworks.convention_layer_norm(Z, convention=3))
    refused(TypeError, "label", lambda: frameworks.Convention(
        label=1, eps=0.1, ddof=0, eps_inside=True, center=True, fast_variance=False,
        params="", source=""))
    refused(TypeError, "center", lambda: lnbook.exact_core(Z, center=1))
    refused(ValueError, "sigma", lambda: fp.offset_errors([1.0], sigma=0.0, d=2, n=1))
    refused(ValueError, "ddof", lambda: frameworks.layer_norm_variant(Z, eps=1.0, ddof=5))
    refused(ValueError, "r", lambda: geometry.radial_profile([-1.0], 3))
    refused(ValueError, "sum of z", lambda: fp.pairwise_sum([1e308, 1e308]))
    refused(ValueError, "z", lambda: fp.round_bfloat16([3.5e38]))
    refused(ValueError, "L", lambda: transformer.init_blocks(0, 3))
    refused(ValueError, "residual stream", lambda: transformer.residual_forward(
        [[1.0, 2.0]], [dict(transformer.init_blocks(1, 2)[0], b2=np.array([1e308, 1e308]))] * 2,
        placement="pre"))


def test_the_radial_map_at_the_ends_of_the_range():
    """r -> r / sqrt(r^2/d + eps) where r^2 over- or underflows: sqrt(d) at r = 1e200 (the
    limit), r / sqrt(eps) at tiny r; mpmath is the reference."""
    for r, d, eps in ((1e200, 3, 1.0), (1e-200, 3, 0.0), (1e160, 5, 1e300), (5e-324, 2, 1.0),
                      (3.0, 3, 1.0)):
        with mpmath.workdps(40):
            exact = float(mpmath.mpf(r) / mpmath.sqrt(mpmath.mpf(r) ** 2 / d + mpmath.mpf(eps)))
        got = float(geometry.radial_profile(r, d, eps=eps))
        assert abs(got - exact) <= 2 * np.spacing(exact), (r, d, eps, got, exact)


def test_sums_of_fp_against_math_fsum():
    """pairwise_sum is np.sum's order; on a sum whose terms cancel exactly it returns what
    math.fsum says up to its bound, and it refuses an overflow rather than returning inf."""
    x = np.array([1e16, 1.0, -1e16, 3.0, 2**-30])
    assert fp.pairwise_sum(x) == np.sum(x)
    assert abs(fp.pairwise_sum(x) - math.fsum(x)) <= 4 * 2**-53 * math.fsum(abs(x))


# --- found by the contract test (tests/test_contract.py), kept here as seeded cases ----------


def test_a_huge_constant_record_with_a_tiny_eps_has_s_equal_to_sqrt_eps():
    """A constant record scaled down by 2**k had s computed from eps' = 4**k eps, subnormal
    and inexact: J was 1286 ulps off P / sqrt(eps). A constant record's s is sqrt(eps), and
    its eigenvalues both eps**-1/2 (mpmath), whatever its size."""
    for z, eps in (([1e150, 1e150], 1e-12), ([3e300, 3e300, 3e300], 1e-300),
                   ([-7e200, -7e200], 1e-5)):
        with mpmath.workdps(40):
            exact = float(1 / mpmath.sqrt(mpmath.mpf(eps)))
        radial, tangential = lnbook.jacobian_eigenvalues(z, eps=eps)
        assert abs(float(radial) - exact) <= 2 * np.spacing(exact)
        assert abs(float(tangential) - exact) <= np.spacing(exact)
        d = len(z)
        P = np.eye(d) - 1.0 / d
        assert ulps(lnbook.jacobian(z, eps=eps).ravel(), (P * exact).ravel()) <= 4
        assert not lnbook.core(z, eps=eps).any()


def test_the_core_length_of_a_tiny_record_does_not_underflow():
    """core_radius took sqrt(d q/(q+eps)) from the ratio, which underflows to 0 for a record
    of spread 1e-300 and eps = 1e-12 although the length, about 1e-294, is a float64."""
    z = np.array([1e-300, -1e-300])
    with mpmath.workdps(40):
        exact = float(mpmath.sqrt(2) * mpmath.mpf(1e-300) / mpmath.sqrt(mpmath.mpf(1e-300)**2
                                                                        + mpmath.mpf(1e-12)))
    got = float(geometry.core_radius(z, eps=1e-12))
    assert abs(got - exact) <= 4 * np.spacing(exact)


def test_rms_jacobian_of_one_feature_is_its_radial_eigenvalue():
    """With d = 1 RMSNorm's Jacobian is eps / r**3; 1/r - z^2/r^3 cancelled to 7 digits."""
    for z, eps in ((0.7, 1e-12), (1e-5, 1e-300), (3.0, 1.0)):
        with mpmath.workdps(60):
            r = mpmath.sqrt(mpmath.mpf(z) ** 2 + mpmath.mpf(eps))
            exact = float(mpmath.mpf(eps) / r**3)
        got = float(transformer.rms_jacobian([z], eps=eps)[0, 0])
        assert abs(got - exact) <= 4 * np.spacing(exact), (z, eps, got, exact)


def test_ragged_and_scalar_arguments_name_themselves():
    """numpy's own ValueErrors (a ragged list) and TypeErrors (iterating an int) leaked from
    pairwise_sum, response and eps_placement_data."""
    refused(ValueError, "z", lambda: fp.pairwise_sum([[1.0, 2.0], [3.0]]))
    refused(ValueError, "t", lambda: lnbook.response([[1.0, 2.0], [3.0]]))
    refused(TypeError, "conventions", lambda: figures.eps_placement_data(conventions=3))
    refused(ValueError, "blocks[0]", lambda: transformer.residual_backward(
        Z, G, [{"W1": np.ones((2, 5))}]))
    refused(ValueError, "blocks[0]['W1']", lambda: transformer.residual_forward(
        Z[:, :1], transformer.init_blocks(1, 4)))


def test_an_integer_beyond_int64_is_a_count_like_any():
    """radial_profile(d=2**70) raised numpy's TypeError (np.sqrt of a Python integer beyond
    int64); a count is any integer, and the radial map is r / sqrt(r^2/d + eps)."""
    out = geometry.radial_profile([1.0, 3.0], 2**70, eps=1.0)
    assert out.tolist() == [1.0 / math.sqrt(1.0 / 2**70 + 1.0), 3.0 / math.sqrt(9.0 / 2**70 + 1.0)]


# --- a second battery, written without reading the first (helper "hostile") ----------------


@pytest.mark.parametrize("call, name", [
    (lambda d: fp.offset_errors([1.0], d=d, n=2), "d"),
    (lambda n: fp.offset_errors([1.0], d=4, n=n), "n"),
    (lambda L: transformer.init_blocks(L, 4), "L"),
    (lambda d: transformer.init_blocks(1, d), "d"),
    (lambda m: transformer.init_blocks(1, 4, m=m), "m"),
    (lambda T: transformer.layer_gradient_norms(2, d=4, T=T), "T"),
    (lambda d: geometry.plane_basis(d), "d"),
    (lambda d: geometry.radial_profile([1.0], d), "d"),
    (lambda d: figures.records_with_variance([1.0], d), "d"),
    (lambda d: figures.normalized_variance_data(d=d), "d"),
    (lambda n: figures.core_bound_data(n=n, dims=(2,)), "n"),
    (lambda L: figures.placement_gradients_data(depths=(2,), d=4, seeds=(0,), L=L), "L"),
])
def test_a_count_beyond_float64_is_refused_not_an_overflow(call, name):
    """A count of 10**400 raised OverflowError ("integer division result too large for a
    float") from the size check itself, in a dozen functions; the refusal shows the count cut
    short."""
    message = refused(ValueError, name, lambda: call(10**400))
    assert "401 digits" in message and len(message) < 400


def test_response_is_right_at_subnormal_t_with_eps_zero():
    """response([5e-324], eps=0) returned 1.0: the divisor 2^-k sqrt(s'^2) was rounded to a
    subnormal. h(t) = t / sqrt(2 t^2 / 3) = sqrt(3/2) for every t != 0."""
    t = [5e-324, 1e-310, 2.0**-1022, 1e-300, -5e-324]
    expected = [math.sqrt(1.5)] * 4 + [-math.sqrt(1.5)]
    out = calm(lambda: lnbook.response(t, eps=0.0))
    assert np.allclose(out, expected, rtol=1e-15, atol=0)
    # and where nothing is subnormal, the bits of the expression before the fix
    t, eps = np.array([1e-200, 0.5, 3.0, 1e200, 0.0]), 1e-5
    k = -np.frexp(np.maximum(np.abs(t), np.sqrt(eps)))[1]
    s2 = 2 * np.ldexp(t, k) ** 2 / 3 + np.ldexp(eps, 2 * k)
    assert same(lnbook.response(t, eps=eps), t / np.ldexp(np.sqrt(s2), -k))


def test_central_difference_jacobian_refuses_a_jacobian_that_cannot_fit():
    """central_difference_jacobian(f, ones(10**5)) built a (d, d) matrix of steps and raised
    MemoryError; the Jacobian's size is now checked from the first column."""
    tracemalloc.start()
    try:
        refused(ValueError, "z", lambda: lnbook.central_difference_jacobian(
            lambda z: z, np.arange(10.0**5)))
        assert tracemalloc.get_traced_memory()[1] < 2**26
    finally:
        tracemalloc.stop()


def test_central_difference_jacobian_with_a_step_beyond_half_of_float64():
    """tau = 1e308 passes the range checks, but 2 tau overflowed and every column was 0."""
    z = np.array([1.0, 2.0, 4.0])
    f = functools.partial(lnbook.core, eps=1.0)
    out = calm(lambda: lnbook.central_difference_jacobian(f, z, tau=1e308))
    hi = [lnbook.core(z + 1e308 * e, eps=1.0) for e in np.eye(3)]
    lo = [lnbook.core(z - 1e308 * e, eps=1.0) for e in np.eye(3)]
    assert np.allclose(out, np.stack([(h - l) / 1e308 / 2 for h, l in zip(hi, lo)], -1),
                       rtol=1e-15, atol=0)
    assert np.abs(out).max() > 1e-309


def test_amplification_refuses_a_delta_that_rounds_away():
    """amplification(z, delta) returned 0 when z + delta == z (delta below the spacing of z):
    a ratio of 0 is not the amplification, whose value there is about 1."""
    refused(ValueError, "delta", lambda: lnbook.amplification([1.0, 2.0, 3.0],
                                                              [5e-324, 0.0, 0.0]))
    refused(ValueError, "delta", lambda: lnbook.amplification(
        [[1.0, 2.0, 3.0], [1e16, 2.0, 3.0]], [[1e-3, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    # a delta that moves z is measured as before
    assert calm(lambda: lnbook.amplification([7.0, 7.0], [1e-3, -1e-3], eps=1e-4)) \
        == pytest.approx(math.sqrt(10**6 / 101), rel=1e-9)


def test_record_audit_leaves_the_callers_records_alone():
    """An f that writes into its argument (z[...] = 0) zeroed the caller's z."""
    z = RNG.normal(size=(2, 3, 4))
    kept = z.copy()

    def careless(x):
        y = lnbook.layer_norm(x)
        x[...] = 0.0
        return y

    out = calm(lambda: lnbook.record_audit(careless, z, (1, 2)))
    assert np.array_equal(z, kept)
    assert out[1, 2] > 0 and np.count_nonzero(out) == 1


def test_records_with_variance_does_not_overflow_q_times_d():
    """records_with_variance([1e308], 4) returned (-inf, inf, 0, 0): q d overflowed, though
    c = sqrt(q d / 2) = 1.4e154 is finite."""
    out = calm(lambda: figures.records_with_variance([1e308, 2.0], 4))
    assert np.isfinite(out).all()
    assert out[0, 1] == pytest.approx(math.sqrt(2) * 1e154, rel=1e-15)
    assert out[1].tolist() == [-2.0, 2.0, 0.0, 0.0]


def test_response_data_names_eps_values():
    """response_data(eps_values=(0.0,)) refused with a message naming eps alone."""
    refused(ValueError, "eps_values[1]", lambda: figures.response_data(eps_values=(0.1, 0.0)))


def test_radial_profile_d_beyond_float64():
    """radial_profile([1.0], 10**400) raised OverflowError (float(d))."""
    refused(ValueError, "d", lambda: geometry.radial_profile([1.0], 10**400))


@pytest.fixture(scope="module")
def plotting():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    from lnbook import plotting

    yield plotting
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("X, key, bad, kind", [
    ("shift_geometry", "shifted", "nan", ValueError),
    ("shift_geometry", "Pz", "str", TypeError),
    ("shift_geometry", "Pz", "short", ValueError),
    ("weighted_projection", "oblique", "short", ValueError),
    ("geometry_picture", "u_eps", "short", ValueError),
    ("geometry_picture", "profile", "nan", ValueError),
    ("bias_shift", "y_mean", "short", ValueError),
    ("normalized_variance", "half", "short", ValueError),
    ("eps_placement", "rms", "inf", ValueError),
    ("eps_placement", "sigma", "str", TypeError),
])
def test_plot_refuses_bad_entries_of_the_callers_data(plotting, X, key, bad, kind):
    """plot_X(data=...) drew NaN entries and string arrays silently and raised IndexError (or
    matplotlib's ValueError, not naming data) for an entry of the wrong shape."""
    import matplotlib.pyplot as plt

    data = dict(getattr(figures, X + "_data")())
    value = np.asarray(data[key], dtype=float).copy()
    if bad == "nan":
        value.flat[0] = np.nan
    elif bad == "inf":
        value.flat[-1] = np.inf
    elif bad == "str":
        value = value.astype(str)
    else:
        value = value.ravel()[:1]
    data[key] = value
    try:
        refused(kind, "data", lambda: getattr(plotting, "plot_" + X)(data=data))
    finally:
        plt.close("all")


# every figure with a data function whose parameters all have defaults
DEFAULT_FIGURES = sorted(
    name[:-5] for name in figures.__all__ if name.endswith("_data")
    and name not in ("offset_error_data", "benchmark_ratios_data"))


@pytest.mark.parametrize("X", DEFAULT_FIGURES)
def test_plot_data_must_have_the_form_its_data_function_returns(plotting, X):
    """The second battery: plot_X(data=...) took an entry of another kind that the figure only
    iterates over (a string for a list, a dict missing nothing the drawing reached). Now the
    caller's dict must hold exactly the data function's entries, each of the same kind."""
    import matplotlib.pyplot as plt

    good = getattr(figures, X + "_data")()
    draw = getattr(plotting, "plot_" + X)
    try:
        # (that the data function's own dict is drawn: tests/test_plotting.py, slow tier)
        key = sorted(good)[0]
        refused(ValueError, f"lacks '{key}'",
                lambda: draw(data={k: v for k, v in good.items() if k != key}))
        refused(ValueError, "'extra', which figures",
                lambda: draw(data={**good, "extra": 1.0}))
        for key, value in good.items():
            wrong = object() if not isinstance(value, str) else 1.0
            refused(TypeError, f"data[{key!r}] must be",
                    lambda key=key, wrong=wrong: draw(data={**good, key: wrong}))
    finally:
        plt.close("all")


def test_plot_data_entries_of_a_list_or_label_dict_are_checked(plotting):
    """Entries inside lists and label dicts are compared with the data function's own."""
    import matplotlib.pyplot as plt

    data = figures.offset_error_data([1.0, 10.0], {"core": [0.5, 1.0]})
    try:
        refused(TypeError, "data['errors']['core'] must be a 1-d array",
                lambda: plotting.plot_offset_error(data={**data, "errors": {"core": "ab"}}))
        refused(TypeError, "labels of data['errors'] must be strings",
                lambda: plotting.plot_offset_error(data={**data, "errors": {1: data["offsets"]}}))
        refused(ValueError, "data['xticks'] must be a 1-d array",
                lambda: plotting.plot_offset_error(data={**data, "xticks": np.ones((2, 2))}))
    finally:
        plt.close("all")


def test_plot_with_good_data_and_wrong_axes_still_says_axes(plotting):
    import matplotlib.pyplot as plt

    data = figures.geometry_picture_data()
    fig, ax = plt.subplots()
    try:
        refused(ValueError, "axes", lambda: plotting.plot_geometry_picture(data=data, axes=[ax]))
    finally:
        plt.close("all")


# a representative sample of the cases that passed
HOSTILE_ARRAYS = [
    (TypeError, np.array([1 + 1j, 2, 3])),
    (TypeError, [Fraction(1, 3), Fraction(1, 2), Fraction(2)]),
    (TypeError, [Decimal("1.1"), Decimal(2), Decimal(3)]),
    (TypeError, [1.0, True, 2.0]),
    (TypeError, np.array(["1", "2"])),
    (ValueError, [1.0, np.inf]),
    (ValueError, np.array([2**53 + 1, 0], dtype=np.int64)),
    (ValueError, [[1.0, 2.0], [3.0]]),
    (ValueError, np.zeros((3, 0))),
]


@pytest.mark.parametrize("kind, z", HOSTILE_ARRAYS)
@pytest.mark.parametrize("call", [
    lnbook.layer_norm, lnbook.jacobian, lnbook.operator_norm, lnbook.rms_norm,
    geometry.core_radius, transformer.rms_jacobian, fp.welford, fp.pairwise_sum,
    functools.partial(frameworks.convention_layer_norm, convention="pytorch"),
])
def test_hostile_records_are_refused_naming_z(call, kind, z):
    refused(kind, "z", lambda: call(z))


@pytest.mark.parametrize("eps, kind", [(10**400, ValueError), (-0.5, ValueError),
                                       (math.nan, ValueError), (True, TypeError),
                                       ("1e-5", TypeError), (1e-5 + 0j, TypeError)])
@pytest.mark.parametrize("call", [
    lambda e: lnbook.param_grads(Z, G, eps=e), lambda e: lnbook.batch_norm(Z, eps=e),
    lambda e: geometry.radial_profile([1.0], 3, eps=e),
    lambda e: transformer.layer_gradient_norms(2, d=4, T=2, eps=e),
    lambda e: figures.gain_effect_data(eps=e), lambda e: figures.geometry_picture_data(eps=e),
])
def test_hostile_eps_is_refused_naming_eps(call, eps, kind):
    refused(kind, "eps", lambda: call(eps))


def test_the_core_of_extreme_records_is_correctly_rounded():
    """exact_core bit for bit against a 120-digit mpmath core; core within a few ulps."""
    for z, eps in [([1e308, 5e-324, -1e308, 1.0], 1e-5), ([1.0, np.nextafter(1.0, 2)], 0.0),
                   (1e12 + RNG.normal(size=5), 1e-5), (RNG.normal(size=4) * 1e-160, 5e-324),
                   (RNG.normal(size=4), 1e300)]:
        with mpmath.workdps(120):
            x = [mpmath.mpf(float(t)) for t in z]
            mu = mpmath.fsum(x) / len(x)
            s = mpmath.sqrt(mpmath.fsum([(t - mu) ** 2 for t in x]) / len(x) + mpmath.mpf(eps))
            ref = np.array([float((t - mu) / s) for t in x])
        assert same(calm(functools.partial(lnbook.exact_core, z, eps=eps)), ref), z
        assert ulps(lnbook.core(z, eps=eps), ref) <= 4, z


def test_decade_ticks_at_the_ends_of_float64():
    """decade_ticks(1e300, 1.7e308) ended with inf (10.0**309), and decade_ticks(5e-324, ...)
    began with 0.0 (10.0**-324), twice 0 with zero=True."""
    top = calm(lambda: figures.decade_ticks(1e300, 1.7e308, max_ticks=12))
    assert np.isfinite(top).all() and top[-1] == 1e308
    bottom = calm(lambda: figures.decade_ticks(5e-324, 5e-324, max_ticks=2, zero=True))
    assert bottom.tolist() == [0.0, 1e-323]
    assert np.all(np.diff(figures.decade_ticks(5e-324, 1e-320, max_ticks=12)) > 0)


@pytest.mark.parametrize("call, given", [
    (lambda x: figures.amplification_data(z=x[0], delta=x[1] * 1e-3), ("z", "delta")),
    (lambda x: figures.gain_effect_data(z=x[0][:3], gamma=x[1][:3]), ("z", "gamma")),
    (lambda x: figures.shift_geometry_data(z=x[0][:2], shifts=x[1]), ("z", "shifts")),
    (lambda x: figures.response_data(t=x[0]), ("t",)),
    (lambda x: figures.eps_placement_data(z=x[0]), ("z",)),
    (lambda x: figures.offset_error_data(np.abs(x[0]) + 1, {"a": np.abs(x[1])}),
     ("offsets", "errors")),
])
def test_figure_data_does_not_alias_the_callers_arrays(call, given):
    """The dicts echoed the caller's arrays (data["z"] is z): writing into the figure's data
    changed the caller's input."""
    x = (RNG.normal(size=4), RNG.normal(size=4))
    kept = [a.copy() for a in x]
    data = call(x)
    for key in given:
        for leaf in (data[key].values() if isinstance(data[key], dict) else [data[key]]):
            leaf[...] = 0.0
    assert all(np.array_equal(a, b) for a, b in zip(x, kept))


@pytest.mark.parametrize("value", [np.float16(1.0), np.zeros(2, dtype=np.float32)])
def test_a_value_is_not_a_dtype(value):
    """dtype=np.float16(1.0) was taken as float16 (np.dtype reads a value's dtype)."""
    refused(TypeError, "dtype", lambda: lnbook.ulp_error([1.0], [1.0], dtype=value))
    refused(TypeError, "dtype", lambda: fp.welford([1.0, 2.0], dtype=value))
    assert fp.welford([1.0, 2.0], dtype=np.dtype(value.dtype))[1] == 0.25


def test_ulp_error_at_the_largest_finite_numbers():
    """np.spacing of the largest finite number is inf, so ulp_error([nextafter(M, 0)], [M])
    was 0 (1 ulp / inf), in float16 at 65504 too; and c - u overflowing (c = M, u = -M) was
    refused though the error, 2**54 - 2 ulps, is finite."""
    top = float(np.finfo(np.float64).max)
    assert calm(lambda: lnbook.ulp_error([np.nextafter(top, 0)], [top])) == 1.0
    assert calm(lambda: lnbook.ulp_error([65472.0], [65504.0], dtype=np.float16)) == 1.0
    out = calm(lambda: lnbook.ulp_error([[top, 1.0], [3.0, 1.0]], [[-top, 1.0], [3.0, 1.0]]))
    assert out.tolist() == [2.0**54 - 2, 0.0]


# --- the cases of the second hostile battery (reviews/hostile2.md) --------------------------


@pytest.mark.parametrize("name, call", [
    ("z", lambda z, t: lnbook.core(z)),
    ("z", lambda z, t: lnbook.layer_norm(z)),
    ("z", lambda z, t: lnbook.batch_norm(z)),
    ("z", lambda z, t: fp.welford(z)),
    ("z", lambda z, t: frameworks.convention_layer_norm(z, convention="pytorch")),
    ("z", lambda z, t: lnbook.wrong_axis_layer_norm(z)),
    ("z", lambda z, t: lnbook.record_audit(lnbook.core, z, (1, 1))),
    ("z", lambda z, t: figures.eps_placement_data(z=z)),
    ("records of d = 8", lambda z, t: figures.records_with_variance(t[: 2**30], 8)),
    ("t", lambda z, t: lnbook.response(t)),
    ("r", lambda z, t: geometry.radial_profile(t, 3)),
    ("t", lambda z, t: figures.response_data(t=t)),
])
def test_a_broadcast_input_whose_result_cannot_fit_is_refused(name, call):
    """A broadcast view of 2**31 records (a few bytes in memory) raised MemoryError: its
    float64 copy and its result, 48 GiB, were allocated. The size is refused first."""
    z = np.broadcast_to(np.arange(3.0), (2**31, 3))
    t = np.broadcast_to(1.0, (2**32,))
    tracemalloc.start()
    try:
        message = refused(ValueError, name, lambda: call(z, t))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "would have" in message
    assert peak < 64 * 2**20


def test_gain_effect_with_gamma_none_is_a_type_error_in_data_and_plot():
    """gain_effect_data(gamma=None) returned gamma None, and plot_gain_effect(gamma=None)
    then failed with a TypeError naming nothing. The default is a gain, not None (rule 3):
    both refuse None, naming gamma."""
    refused(TypeError, "gamma", lambda: figures.gain_effect_data(gamma=None))
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lnbook import plotting

    fig, ax = plt.subplots()
    try:
        refused(TypeError, "gamma", lambda: plotting.plot_gain_effect(gamma=None, ax=ax))
    finally:
        plt.close(fig)


def mp_amplification(z, delta, eps):
    """||u(z + delta) - u(z)|| / ||delta|| at 3000 bits, z + delta rounded as lnbook does."""
    with mpmath.workprec(3000):
        def u(x):
            x = [mpmath.mpf(float(t)) for t in x]
            mu = mpmath.fsum(x) / len(x)
            s = mpmath.sqrt(mpmath.fsum((t - mu) ** 2 for t in x) / len(x) + mpmath.mpf(eps))
            return [(t - mu) / s for t in x]
        moved = np.asarray(z, dtype=float) + np.asarray(delta, dtype=float)
        du = [a - b for a, b in zip(u(moved), u(z))]
        norm = mpmath.sqrt(mpmath.fsum(mpmath.mpf(float(t)) ** 2 for t in delta))
        return float(mpmath.sqrt(mpmath.fsum(t * t for t in du)) / norm)


@pytest.mark.parametrize("scale", [1e-300, 1e-250, 1e-200, 1e-170, 1e-160, 1e-155, 1.0, 1e300])
@pytest.mark.parametrize("eps", [1.0, 1e-5])
def test_amplification_of_tiny_records_is_right(scale, eps):
    """amplification([1e-200, 0, 2e-200], [1e-201, 0, 0], eps=1) was 0.0 (the squares of
    u(z + delta) - u(z) underflowed), 1.3 % off at 1e-160; the mpmath value is 0.8165."""
    z, delta = [scale, 0.0, 2 * scale], [scale / 10, 0.0, 0.0]
    got = float(calm(lambda: lnbook.amplification(z, delta, eps=eps)))
    assert got == pytest.approx(mp_amplification(z, delta, eps), rel=1e-13)


@pytest.mark.parametrize("z, eps", [
    ([0.0, 1e-310], 1e-5), ([0.0, 1e-160], 1e300), ([5e-324, 0.0], 1e-5),
    ([3e-320, 1e-321, 0.0, 7e-322], 1e-8), ([1e-150, 2e-150], 1e308),
])
def test_core_radius_of_a_subnormal_spread_is_right(z, eps):
    """core_radius([0, 1e-310], eps=1e-5) was 3e6 ulps off, ([5e-324, 0], eps=1e-5) 0.0:
    the capped scaling left q' subnormal. The length is ||v'|| / s', as the core's norm."""
    with mpmath.workprec(3000):
        x = [mpmath.mpf(t) for t in z]
        mu = mpmath.fsum(x) / len(x)
        q = mpmath.fsum((t - mu) ** 2 for t in x) / len(x)
        exact = float(mpmath.sqrt(len(x) * q / (q + mpmath.mpf(eps))))
    got = float(calm(lambda: geometry.core_radius(z, eps=eps)))
    assert abs(got - exact) <= 2 * np.spacing(exact)


@pytest.mark.parametrize("eps", [1e300, 1e305, 1e307, 1e308])
def test_deep_subnormal_outputs_at_a_huge_eps_are_right(eps):
    """core([1e-160, 3e-160], eps=1e308) was 2**-12 of the exact +-1e-314: the cap on the
    scaling (eps' = 4^k eps below 2^1000) scaled the record down until q' underflowed to 0,
    and it was then taken for a constant record and given k = 0 back, with v' still scaled."""
    z = np.array([[1e-160, 3e-160], [5.0, 5.0], [-2e-170, 7e-171]])
    exact = lnbook.exact_core(z, eps=eps)
    assert same(calm(lambda: lnbook.core(z, eps=eps)), exact)
    assert same(calm(lambda: lnbook.layer_norm(z, eps=eps)), exact)
    column = np.array([[1e-160], [3e-160]])  # batch_norm normalizes each feature
    assert same(calm(lambda: lnbook.batch_norm(column, eps=eps)).ravel(),
                lnbook.exact_core(column.ravel(), eps=eps))
    g = RNG.normal(size=z.shape)
    dgamma, dbeta = calm(lambda: lnbook.param_grads(z, g, eps=eps))
    with mpmath.workprec(3000):
        want = [float(mpmath.fsum(mpmath.mpf(float(g[i, j])) * mpmath.mpf(float(exact[i, j]))
                                  for i in range(3))) for j in range(2)]
    assert np.abs(dgamma - want).max() <= 4 * 2.0**-1074
    with mpmath.workprec(3000):
        rms = [[float(mpmath.mpf(t) / mpmath.sqrt(mpmath.fsum(mpmath.mpf(x) ** 2 for x in r)
                                                  / 2 + mpmath.mpf(eps))) for t in r] for r in z]
    got = calm(lambda: lnbook.rms_norm(z, eps=eps))
    assert (np.abs(got - rms) <= 2 * np.spacing(np.abs(np.array(rms)))).all()


def test_a_masked_sequence_of_the_figures_is_refused():
    """response_data(eps_values=np.ma.array([0.1, 0.2], mask=[0, 1])) used the masked 0.2:
    a masked sequence is a TypeError, as a masked z is (rule 5)."""
    masked = np.ma.array([0.1, 0.2], mask=[0, 1])
    refused(TypeError, "eps_values", lambda: figures.response_data(eps_values=masked))
    refused(TypeError, "eps_values", lambda: figures.normalized_variance_data(eps_values=masked))
    refused(TypeError, "depths", lambda: figures.placement_gradients_data(
        depths=np.ma.array([2, 3], mask=[0, 1]), seeds=(0,), d=4, L=2))


def test_an_integer_eps_that_float64_would_round_is_refused():
    """core(z, eps=2**53 + 1) and eps_values=(2**53 + 1,) were rounded (rule 6); an integer
    that float64 holds exactly, 2**60 included, is its float."""
    refused(ValueError, "eps", lambda: lnbook.core(Z, eps=2**53 + 1))
    refused(ValueError, "eps", lambda: lnbook.core(Z, eps=np.int64(2**62 + 1)))
    refused(ValueError, "eps_values[0]",
            lambda: figures.normalized_variance_data(eps_values=(2**53 + 1,)))
    refused(ValueError, "eps_values[0]", lambda: figures.response_data(eps_values=(2**53 + 1,)))
    assert same(lnbook.core(Z, eps=2**60), lnbook.core(Z, eps=2.0**60))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 128, 129, 300])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_pairwise_sum_of_negative_zeros_is_numpys_plus_zero(n, dtype):
    """The second battery: pairwise_sum of negative zeros gave -0.0 where np.sum gives +0.0
    (numpy's reduction starts from add's identity, +0)."""
    z = np.full((3, n), -0.0, dtype=dtype)
    got, want = fp.pairwise_sum(z), np.sum(z, axis=-1)
    assert got.dtype == want.dtype and not np.signbit(want).any()
    assert got.tobytes() == want.tobytes()


def test_pairwise_sum_overflow_names_the_format_that_overflowed():
    """The second battery: a float16 sum beyond 65504 was said to be not finite "in float64"."""
    refused(ValueError, "the sum of z is not finite in float16 (overflow or underflow: its "
            "largest finite value is 65504)",
            lambda: fp.pairwise_sum(np.full(10, 6e4, dtype=np.float16)))
    refused(ValueError, "not finite in float64",
            lambda: fp.pairwise_sum(np.array([1e308, 1e308])))


# --- the third battery (a helper who had not read these tests) ------------------------------


def test_weights_beyond_float64_in_sum_are_a_value_error():
    """weighted_centering_matrix([1e308, 1e308]) raised fsum's OverflowError."""
    for call in (lambda: lnbook.weighted_centering_matrix([1e308, 1e308]),
                 lambda: figures.weighted_projection_data(a=[1e308, 1e308])):
        refused(ValueError, "sum(a) = inf", call)


def test_shift_geometry_of_huge_records_is_right_or_refused():
    """shift_geometry_data(z=[1e308, 1e308]) returned P z = (-inf, -inf) silently."""
    assert calm(lambda: figures.shift_geometry_data(z=[1e308, 1e308]))["Pz"].tolist() == [0, 0]
    tiny = figures.shift_geometry_data(z=[5e-324, 5e-324])
    assert tiny["Pz"].tolist() == [0, 0]
    big = figures.shift_geometry_data(z=[1.7e308, -1.7e308], shifts=[1.0])
    assert big["Pz"].tolist() == [1.7e308, -1.7e308]
    refused(ValueError, "the shifted records z + c 1",
            lambda: figures.shift_geometry_data(z=[1.7e308, 1.0], shifts=[1e308]))


@pytest.mark.parametrize("call, name", [
    (lambda: lnbook.jacobian(np.ones(200_000)), "the Jacobian of z (1 records with d = 200000)"),
    (lambda: transformer.rms_jacobian(np.ones(200_000)), "Jacobian of z (1 records"),
    (lambda: figures.operator_norm_data(dims=[10**30]), "max(dims)"),
    (lambda: figures.placement_gradients_data(depths=[10**30]), "max(L, max(depths))"),
])
def test_size_refusals_name_the_parameter(call, name):
    """The size refusals named d or L, parameters of an inner function, not the caller's."""
    refused(ValueError, name, call)


def test_an_address_space_limit_counts_as_memory():
    """Under `ulimit -v` (RLIMIT_AS 8 GiB) centering_matrix(35000) (9.1 GiB) raised numpy's
    MemoryError: the size check now takes what is left of the limit as the free memory."""
    code = ("import resource, lnbook\n"
            "resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.RLIM_INFINITY))\n"
            "try:\n"
            "    lnbook.centering_matrix(35000)\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "the centering matrix of d = 35000 features would have" in out, out


@pytest.mark.parametrize("call", [
    lambda z: lnbook.jacobian(z), lambda z: lnbook.param_grads(z, z), lambda z: fp.welford(z),
    lambda z: fp.chan_stats(z), lambda z: fp.pairwise_sum(z)])
def test_an_empty_batch_of_huge_records(call):
    """An empty batch of shape (0, 10**10) raised MemoryError (a gain of d ones) or never
    returned (a loop over d, in the statistics of lnbook.fp); (0, 10**7) fits and returns, and
    no Python loop runs over its features (one took seconds per million): lnbook executes as
    many lines for d = 10**5 as for d = 10 (counted, not timed, so a busy machine cannot fail
    it)."""
    refused(ValueError, "the features of z (shape (0, 10000000000))",
            lambda: call(np.empty((0, 10**10))))
    assert lines_run(lambda: call(np.empty((0, 10**5)))) \
        == lines_run(lambda: call(np.empty((0, 10)))) > 0
    call(np.empty((0, 10**7)))


def test_plots_refuse_polar_axes(plotting):
    """plot_X(ax=<polar axes>) raised matplotlib's NotImplementedError (log scale)."""
    import matplotlib.pyplot as plt

    try:
        polar = plt.figure().add_subplot(projection="polar")
        refused(TypeError, "ax must be rectilinear (x-y) matplotlib Axes; got 'polar'",
                lambda: plotting.plot_normalized_variance(ax=polar))
        refused(TypeError, "axes must be rectilinear",
                lambda: plotting.plot_response(axes=[polar, polar]))
    finally:
        plt.close("all")
