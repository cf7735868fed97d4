"""The kernel's edges: tiny and huge records, the blocked and threaded path, refusals, and a fuzz
against the independent exact reference (lnbook.exact_core: exact rationals, certified rounding).

The fuzz is derandomized (tests/conftest.py's hypothesis profile): every run draws the same.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import lnbook
from lnbook import _kernel

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def ulps(computed, exact) -> float:
    """Normwise error in ulps of the exact result's largest component (as lnbook.ulp_error)."""
    return float(lnbook.ulp_error(computed, exact).max())


# --- tiny and huge records: rescaled by a power of two, checked against the exact core ------

TINY_AND_HUGE = [
    # (z, eps, center): q + eps subnormal, squares underflowing, squares overflowing
    ([3e-162, 0.0, 0.0], 5e-324, True),  # was 18.5 % off
    ([3e-162, 0.0, 0.0], 0.0, True),
    ([3e-162, 0.0, 0.0], 1e-5, True),  # eps 4^k would overflow: k is capped
    ([3e-162, 0.0, 0.0], 1e-320, True),  # eps 4^k exact
    ([1e-200, -1e-200], 0.0, True),
    ([5e-324, 0.0, 1e-323], 0.0, True),  # subnormal entries
    ([5e-324, 0.0, 1e-323], 1e-300, True),  # core ~ 1e-173, from subnormal entries
    ([1e-300, 2e-300, 4e-300, 8e-300], 1e-310, True),
    ([1e300, -1e300, 0.0], 1e-5, True),  # squares overflow
    ([1.7e308, -1.7e308], 0.0, True),  # the sum of squares overflows
    ([1.7e308, 1.7e308, 1.6e308], 1e-5, True),  # the sum itself overflows
    ([1e300, -1e300, 3e299], 1e308, True),  # q + eps overflows
    ([1e200, 1.0], 1e-5, True),  # one entry lost below the other's ulp once scaled
    ([3e-162, 1e-162, 0.0], 0.0, False),  # was 18 % off (RMSNorm)
    ([1e-170, 0.0], 0.0, False),  # was "an all-zero record"
    ([1e200, -3e200], 1e-5, False),
]


@pytest.mark.parametrize(("z", "eps", "center"), TINY_AND_HUGE)
def test_tiny_and_huge_records_match_the_exact_core(z, eps, center):
    """Rescaled records are within 2 ulps of the correctly rounded core (was: 18 % off)."""
    exact = lnbook.exact_core(z, eps=eps, center=center)
    got = lnbook.core(z, eps=eps) if center else lnbook.rms_norm(z, eps=eps)
    assert np.isfinite(got).all()
    assert ulps(got, exact) <= 2, (got, exact)


def test_tiny_rms_against_fractions_by_hand():
    """rms_norm((3e-162, 1e-162, 0), eps=0) = z / sqrt(|z|^2 / 3), checked with exact rationals."""
    z = np.array([3e-162, 1e-162, 0.0])
    # exact: z_i / sqrt(|z|^2 / 3) with the float64 entries as rationals, via mpmath
    x = [Fraction(t) for t in z]
    r2 = sum(t * t for t in x) / 3
    with mpmath.workdps(40):
        expected = [float(mpmath.mpf(t.numerator) / t.denominator
                          / mpmath.sqrt(mpmath.mpf(r2.numerator) / r2.denominator)) for t in x]
    got = lnbook.rms_norm(z, eps=0)
    assert np.allclose(got, expected, rtol=4 * np.finfo(float).eps, atol=0)
    # (3, 1, 0) 2^-537 is exactly (3, 1, 0) scaled: the same bits as the unscaled record
    assert np.array_equal(lnbook.rms_norm(np.ldexp([3.0, 1.0, 0.0], -537), eps=0),
                          lnbook.rms_norm([3.0, 1.0, 0.0], eps=0))


@given(st.integers(0, 2**32 - 1), st.sampled_from([-900, -600, 600, 900]))
@settings(max_examples=20, deadline=None, )
def test_rescaling_keeps_the_bits(seed, k):
    """Scaling z by 2^k is exact, so the core keeps its bits across the rescaled path.

    With k = ±600 or ±900 the plain path would overflow or underflow and the record is
    rescaled; the bits equal the ordinary record's, which takes the plain path.
    """
    z = np.random.default_rng(seed).normal(size=(3, 7)) + [[0.0], [5.0], [1e6]]
    assert np.array_equal(lnbook.core(np.ldexp(z, k), eps=0), lnbook.core(z, eps=0))
    assert np.array_equal(lnbook.rms_norm(np.ldexp(z, k), eps=0), lnbook.rms_norm(z, eps=0))


@pytest.mark.parametrize("k", [-520, 510])
def test_rescaling_keeps_the_bits_with_eps(k):
    """With eps > 0, z 2^k and eps 4^k (both exact here) give the bits of z and eps."""
    z = np.random.default_rng(5).normal(size=(3, 7)) + [[0.0], [5.0], [1e6]]
    assert np.array_equal(lnbook.core(np.ldexp(z, k), eps=math.ldexp(0.25, 2 * k)),
                          lnbook.core(z, eps=0.25))


def test_huge_constant_record_with_eps_gives_zero():
    """A constant record of 1e300s: eps 4^k underflows to 0, and the core is still 0, not NaN."""
    assert np.array_equal(lnbook.core([1e300, 1e300, 1e300]), [0.0, 0.0, 0.0])
    assert np.array_equal(lnbook.layer_norm([1e300] * 3, beta=[1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])


def test_stats_of_tiny_and_huge_records():
    """stats rescales too: q of a 1e-161 record is its true (subnormal) value, not 0."""
    mu, q = lnbook.stats([3e-161, 0.0, 0.0])
    assert math.isclose(mu, 1e-161, rel_tol=1e-15)
    assert math.isclose(q, 2e-322, rel_tol=0.02)  # subnormal: q = 41 * 2^-1074, rounded once
    mu, q = lnbook.stats([1e150, -1e150])
    assert mu == 0.0 and math.isclose(q, 1e300, rel_tol=1e-15)
    # q = (3e-162)^2 is below the smallest subnormal; q / (q + eps) at eps = 1e-323 is not 0
    q = Fraction(3e-162) ** 2
    expected = float(q / (q + Fraction(1e-323)))
    got = float(lnbook.normalized_variance([3e-162, -3e-162], eps=1e-323)[()])
    assert math.isclose(got, expected, rel_tol=4e-16) and 0.4 < got < 0.5


# --- the derivatives at the edges ---------------------------------------------------------


def test_radial_jacobian_for_d_2_is_accurate():
    """jacobian([3, -1], eps=1e-14) = (eps / s^3) P to a few ulps (was 11 % off)."""
    # v = (2, -2), q = 4, s^2 = 4 + 1e-14: lambda = eps / s^3, computed with mpmath
    eps = 1e-14
    with mpmath.workdps(40):
        lam = float(mpmath.mpf(eps) / (4 + mpmath.mpf(eps)) ** 1.5)
    J = lnbook.jacobian([3, -1], eps=eps)
    P = np.array([[0.5, -0.5], [-0.5, 0.5]])
    assert np.allclose(J, lam * P, rtol=4 * np.finfo(float).eps, atol=0)
    # input_grad with g parallel to v: J v = lambda v
    grad = lnbook.input_grad([3, -1], [2, -2], eps=eps)
    assert np.allclose(grad, [2 * lam, -2 * lam], rtol=4 * np.finfo(float).eps, atol=0)
    radial, _ = lnbook.jacobian_eigenvalues([3, -1], eps=eps)
    assert math.isclose(radial, lam, rel_tol=4 * np.finfo(float).eps)


def test_radial_input_grad_for_d_3_is_limited_by_its_condition():
    """For d >= 3, J g with g = v: the answer eps/s^3 v is accurate to rho ||g|| / s, not
    relatively: a relative change rho of g already moves J g by rho ||g|| / s (1/s is the
    tangential eigenvalue), so no float64 algorithm given g can do better."""
    z, eps = [3.0, -1.0, 1.0], 1e-14
    v = np.array([2.0, -2.0, 0.0])
    with mpmath.workdps(40):
        s = mpmath.sqrt(mpmath.mpf(8) / 3 + mpmath.mpf(eps))
        lam = float(mpmath.mpf(eps) / s**3)
        s = float(s)
    got = lnbook.input_grad(z, v, eps=eps)
    rho = np.finfo(float).eps / 2
    assert np.abs(got - lam * v).max() <= 8 * rho * np.linalg.norm(v) / s


def exact_jacobian(z, eps, dps=40):
    """J_ij = (delta_ij - 1/d) / s - v_i v_j / (d s^3), with mpmath at 40 digits."""
    with mpmath.workdps(dps):
        x = [mpmath.mpf(float(t)) for t in z]
        d = len(x)
        mu = sum(x) / d
        v = [t - mu for t in x]
        s = mpmath.sqrt(sum(t * t for t in v) / d + mpmath.mpf(eps))
        return np.array([[float(((i == j) - mpmath.mpf(1) / d) / s - v[i] * v[j] / (d * s**3))
                          for j in range(d)] for i in range(d)])


@pytest.mark.parametrize(("z", "eps"), [([0.3, -1.2, 2.5], 0.1), ([1e-3, 0.0, 2e-3, 5e-3], 1e-14),
                                        ([1e9 + 1, 1e9, 1e9 - 3], 1e-5), ([7.0, 7.0, 7.0], 0.25)])
def test_jacobian_entries_against_mpmath(z, eps):
    """For d >= 3 every entry is within a few ulps of max|J| (= about 1/s)."""
    J, exact = lnbook.jacobian(z, eps=eps), exact_jacobian(z, eps)
    assert ulps(J.ravel(), exact.ravel()) <= 4


def test_huge_eps_radial_eigenvalue_is_not_zero():
    """At eps = 1e300 s^3 overflows; the radial eigenvalue ~ eps^(-1/2) is still right."""
    eps = 1e300
    with mpmath.workdps(40):
        s = mpmath.sqrt(mpmath.mpf(0.25) + eps)
        lam = float(eps / s**3)
    radial, tangential = lnbook.jacobian_eigenvalues([1.0, 2.0], eps=eps)
    assert radial > 0 and math.isclose(radial, lam, rel_tol=4e-16)
    assert math.isclose(float(lnbook.operator_norm([1.0, 2.0], eps=eps)), lam, rel_tol=4e-16)
    assert math.isclose(float(lnbook.operator_norm([1.0, 2.0, 0.0], eps=1.7e308)),
                        1.7e308**-0.5, rel_tol=4e-16)


def test_response_slope_at_tiny_eps():
    """h'(0) = eps^(-1/2): 1e125 at eps = 1e-250 (eps / eps^1.5 was inf)."""
    assert math.isclose(float(lnbook.response_slope([0.0], eps=1e-250)[0]), 1e125,
                        rel_tol=4e-16)
    # and h(t) far out: sqrt(3/2), where 2 t^2 / 3 overflows
    assert math.isclose(float(lnbook.response([1e200], eps=1e-5)[0]), math.sqrt(1.5),
                        rel_tol=4e-16)
    # t = 1e160, eps = 1e300: 2 t^2 / 3 overflows, the slope is eps / (2 t^2 / 3)^1.5
    with mpmath.workdps(40):
        slope = float(mpmath.mpf(1e300) / (2 * mpmath.mpf(1e160) ** 2 / 3 + 1e300) ** 1.5)
    assert math.isclose(float(lnbook.response_slope([1e160], eps=1e300)[0]), slope,
                        rel_tol=4e-16)


def test_input_grad_with_huge_gain_and_gradient():
    """gamma ⊙ g ~ 1e318 overflows, but J (gamma ⊙ g) ~ 1e318 / s with s ~ 8e299 does not.

    J is linear in g, so the gradient equals 1e308 times that of g / 1e308.
    """
    z = np.array([1e300, -1e300, 0.0])
    g, gamma = np.array([1e308, 0.0, -1e308]), np.array([1e10, 1.0, 1e10])
    got = lnbook.input_grad(z, g, gamma, eps=0)
    # J is linear in g: J (gamma ⊙ g) = 1e308 J (1e-308 gamma ⊙ g)
    expected = 1e308 * lnbook.input_grad(z, g * 1e-308, gamma, eps=0)
    assert np.isfinite(got).all()
    assert np.allclose(got, expected, rtol=1e-14, atol=0)


# --- the blocked and threaded path --------------------------------------------------------


def unblocked(z, gamma, beta, eps):
    """The layer as one plain numpy expression over the whole array (corrected two pass)."""
    mu0 = z.mean(axis=-1, keepdims=True)
    w = z - mu0
    v = w - w.mean(axis=-1, keepdims=True)
    q = (v * v).mean(axis=-1, keepdims=True)
    return gamma * (v / np.sqrt(q + eps)) + beta


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_many_blocks_match_one_formula(monkeypatch, threads):
    """With a block of 4 records (so 13 blocks) the result equals the unblocked formula.

    Every block's statistics are per record, so the bits do not depend on the block size or
    on the number of threads.
    """
    rng = np.random.default_rng(11)
    z = rng.normal(size=(5, 10, 16)) * 3 + 100
    z[2, 3] = 7.0  # a constant record sends its block down the general (rescaling) path
    gamma, beta = rng.normal(size=16), rng.normal(size=16)
    whole = lnbook.layer_norm(z, gamma, beta, threads=1)
    assert np.array_equal(whole[2, 3], beta)
    monkeypatch.setattr(_kernel, "_BLOCK", 4 * 16)
    blocked = lnbook.layer_norm(z, gamma, beta, threads=threads)
    assert np.array_equal(blocked, whole)
    assert np.allclose(blocked, unblocked(z, gamma, beta, lnbook.EPS), rtol=0, atol=1e-13)


def test_sums_do_not_depend_on_numpys_buffer_size():
    """The layer's premise for its smaller buffers: numpy sums contiguous float64 rows the
    same way whatever the buffer size (d = 300 with 288, d = 20000 across several)."""
    rng = np.random.default_rng(16)
    for d, small in ((300, 288), (20000, 4096)):
        x = rng.normal(size=(30, d)) + 1e3
        default = np.add.reduce(x, axis=-1)
        old = np.setbufsize(small)
        try:
            assert np.array_equal(np.add.reduce(x, axis=-1), default)
        finally:
            np.setbufsize(old)


@pytest.mark.parametrize("d", [300, 1024])
def test_short_buffers_and_the_forward_keep_the_bits(monkeypatch, d):
    """Numpy buffers of at most one record (288 elements for d = 300) give the bits of
    numpy's default buffers, on 1 or 2 threads, and leave the caller's buffer size as it
    was; the kernel's forward (the residual stack's LayerNorm, one statistics pass that
    keeps u and s) gives the same bits too."""
    rng = np.random.default_rng(15)
    z = rng.normal(size=(40, d)) * 3 + 1e4
    gamma, beta = rng.normal(size=d), rng.normal(size=d)
    monkeypatch.setattr(_kernel, "_BLOCK", 8 * d)  # five blocks
    assert _kernel._bufsize(d, 8192) == d - d % 16
    short = [lnbook.layer_norm(z, gamma, beta, threads=t) for t in (1, 2)]
    assert np.getbufsize() == 8192
    monkeypatch.setattr(_kernel, "_bufsize", lambda d, bufsize: bufsize)
    default = lnbook.layer_norm(z, gamma, beta, threads=1)
    assert np.array_equal(short[0], default) and np.array_equal(short[1], default)
    y, u, s = _kernel.forward(z, lnbook.EPS, gamma, beta)
    assert np.array_equal(y, default) and np.array_equal(u, lnbook.core(z))
    assert np.array_equal(s[..., 0], np.sqrt(lnbook.stats(z)[1] + lnbook.EPS))


def test_jacobian_blocks_and_threads_keep_the_bits(monkeypatch):
    """The (..., d, d) Jacobian built in blocks of 2 records on 1 to 3 threads: same bits."""
    import lnbook._derivatives

    z = np.random.default_rng(12).normal(size=(3, 5, 6))
    gamma = np.random.default_rng(13).normal(size=6)
    whole = lnbook.jacobian(z, gamma, eps=0.1, threads=1)
    monkeypatch.setattr(lnbook._derivatives, "_BLOCK", 2 * 36)
    for threads in (1, 2, 3):
        assert np.array_equal(lnbook.jacobian(z, gamma, eps=0.1, threads=threads), whole)
    # and each record's block is that record's own Jacobian
    assert np.array_equal(whole[2, 4], lnbook.jacobian(z[2, 4], gamma, eps=0.1))


def test_callers_on_several_threads_share_the_pool(monkeypatch):
    """Six user threads asking for 2 to 5 worker threads at once all get the same bits."""
    import threading

    monkeypatch.setattr(_kernel, "_BLOCK", 8 * 50)
    z = np.random.default_rng(14).normal(size=(300, 50))
    reference, same = lnbook.core(z, threads=1), []
    callers = [threading.Thread(target=lambda t=t: same.append(
        np.array_equal(lnbook.core(z, threads=t), reference))) for t in (2, 3, 4, 2, 5, 3)]
    for c in callers:
        c.start()
    for c in callers:
        c.join()
    assert same == [True] * 6


def test_first_error_in_record_order_with_threads(monkeypatch):
    """Two constant records in different blocks on different threads: the first is named."""
    monkeypatch.setattr(_kernel, "_BLOCK", 2 * 4)
    z = np.random.default_rng(3).normal(size=(40, 4))
    z[37] = 5.0
    z[13] = 2.0
    with pytest.raises(ValueError, match=r"constant record \(13,\)"):
        lnbook.core(z, eps=0, threads=4)
    # the first run, which the calling thread works on itself
    z[3] = 1.0
    with pytest.raises(ValueError, match=r"constant record \(3,\)"):
        lnbook.core(z, eps=0, threads=4)


# --- inputs that would be silently changed ------------------------------------------------


def test_refused_inputs():
    """Masked arrays, integers beyond 2**53 and inexact long doubles are refused by name."""
    with pytest.raises(TypeError, match=r"z is a masked array \(np\.ma\)"):
        lnbook.core(np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]))
    with pytest.raises(TypeError, match=r"gamma is a masked array \(np\.ma\)"):
        lnbook.layer_norm([1, 2, 3], np.ma.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"integers beyond 2\*\*53 .* z\[1\] = 9007199254740993"):
        lnbook.stats(np.array([0, 2**53 + 1], dtype=np.uint64))
    if np.finfo(np.longdouble).nmant > 52:
        third = np.longdouble(1) / 3
        with pytest.raises(ValueError, match=r"cannot represent exactly: z\[0\]"):
            lnbook.core(np.array([third, 1, 2], dtype=np.longdouble))
    # integers up to 2**53 and exact long doubles are taken as they are
    assert np.array_equal(lnbook.core([2**53, 2**53 - 2], eps=0), [1.0, -1.0])
    assert np.array_equal(lnbook.core(np.array([1, 2, 3], dtype=np.longdouble), eps=1 / 3),
                          [-1.0, 0.0, 1.0])


def test_float32_input_is_taken_exactly():
    """float32 records are widened exactly: the core is the float64 core of the same numbers."""
    z32 = (np.random.default_rng(4).normal(size=(6, 9)) * 5 + 3).astype(np.float32)
    got = lnbook.layer_norm(z32, np.float32([2.0] * 9), eps=1e-3)
    assert got.dtype == np.float64
    assert np.array_equal(got, lnbook.layer_norm(z32.astype(np.float64), [2.0] * 9, eps=1e-3))
    assert ulps(lnbook.core(z32, eps=1e-3), lnbook.exact_core(z32, eps=1e-3)) <= 2


def test_other_refusals_name_the_problem():
    """Options, ranges and messages that used to blame the wrong thing."""
    with pytest.raises(ValueError, match=r"beyond float16's largest finite number 65504"):
        lnbook.ulp_error([70000.0], [70000.0], dtype="float16")
    assert float(lnbook.ulp_error([65504.0], [65504.0], dtype="float16")[()]) == 0.0
    a32 = np.full(3, 1 / 3, dtype=np.float32)  # sums to 1 in float32, not in float64
    assert abs(math.fsum(a32.astype(float)) - 1) > 3 * np.finfo(float).eps
    P = lnbook.weighted_centering_matrix(a32)
    assert np.allclose(P @ np.ones(3), 0, atol=1e-7)
    with pytest.raises(ValueError, match=r"weights must sum to 1"):
        lnbook.weighted_centering_matrix(np.array([0.5, 0.5 + 1e-6], dtype=np.float32))
    with pytest.raises(ValueError, match=r"eps = 0 with an all-zero record \(1,\)"):
        lnbook.rms_norm([[1e-170, 0.0], [0.0, 0.0]], eps=0)
    with pytest.raises(ValueError, match=r"t must hold at least one value"):
        lnbook.response_slope([])
    with pytest.raises(TypeError, match=r"center must be True or False"):
        lnbook.exact_core([1.0, 2.0], center="no")


def test_no_records_gives_empty_results():
    """A batch of zero records, shape (0, 3): empty results of the right shapes, no error."""
    z = np.zeros((0, 3))
    assert lnbook.layer_norm(z, [1.0, 2.0, 3.0]).shape == (0, 3)
    assert lnbook.jacobian(z).shape == (0, 3, 3)
    assert lnbook.stats(z)[1].shape == (0,)
    assert np.array_equal(lnbook.param_grads(z, z)[1], [0.0, 0.0, 0.0])


def test_conventions_table_is_read_only():
    """CONVENTIONS cannot be changed by a caller; its entries are immutable tuples."""
    with pytest.raises(TypeError):
        lnbook.frameworks.CONVENTIONS["mine"] = lnbook.frameworks.CONVENTIONS["pytorch"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        lnbook.frameworks.CONVENTIONS["pytorch"].eps = 0.1  # type: ignore[misc]


# --- peers --------------------------------------------------------------------------------


def test_batch_norm_against_torch_batchnorm1d_training_mode(torch):
    """batch_norm equals torch.nn.BatchNorm1d(affine=False) in training mode (float64).

    The last column has offset / spread 1e7: there torch 2.13 is about 1e6 ulps off the
    exact result, lnbook within 4 (each column checked against exact_core of that column).
    """
    z = np.random.default_rng(9).normal(size=(32, 6)) * [1, 2, 3, 4, 5, 1e-3] + [0, 1, 2, 3, 4, 1e4]
    for eps in (1e-5, 0.1):
        layer = torch.nn.BatchNorm1d(6, eps=eps, affine=False, dtype=torch.float64)
        layer.train()
        theirs = layer(torch.from_numpy(z)).detach().numpy()
        ours = lnbook.batch_norm(z, eps=eps)
        assert np.allclose(ours[:, :5], theirs[:, :5], rtol=1e-12, atol=1e-12)
        assert np.allclose(ours[:, 5], theirs[:, 5], rtol=1e-8, atol=1e-8)
        exact = lnbook.exact_core(z.T.copy(), eps=eps).T
        assert ulps(ours.T, exact.T) <= 4


# --- the fuzz against the independent reference ---------------------------------------------


@st.composite
def hostile_records(draw):
    """Records z = sigma (r 1 + x): shapes up to (2, 3, 12), offsets |mu|/sigma up to 1e12."""
    lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    d = draw(st.integers(2, 12))
    seed = draw(st.integers(0, 2**32 - 1))
    ratio = draw(st.sampled_from([0.0, 1.0, 1e3, 1e6, 1e9, 1e12]))
    sign = draw(st.sampled_from([-1.0, 1.0]))
    sigma = draw(st.sampled_from([1e-3, 1.0, 37.0, 1e5]))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    eps = draw(st.sampled_from([0.0, 1e-12, 1e-5, 1.0]))
    x = np.random.default_rng(seed).standard_normal(tuple(lead) + (d,))
    z = (sigma * (sign * ratio + x)).astype(dtype)
    rng = np.random.default_rng(seed + 1)
    gamma = rng.normal(size=d) * draw(st.sampled_from([0.0, 1.0, 1e3]))
    beta = rng.normal(size=d) * draw(st.sampled_from([0.0, 1.0, 1e6]))
    return z, eps, gamma, beta


@given(hostile_records())
@FUZZ
def test_fuzz_against_exact_core(case):
    """core within 4 ulps of the correctly rounded core; layer_norm within rounding of it."""
    z, eps, gamma, beta = case
    q = lnbook.stats(z)[1]
    assume(eps > 0 or (q > 0).all())  # eps = 0 with a constant record is refused, tested apart
    exact = lnbook.exact_core(z, eps=eps)
    assert ulps(lnbook.core(z, eps=eps), exact) <= 4
    # y = gamma ⊙ u + beta: the core's 4 ulps times |gamma|, plus two roundings of y
    y = lnbook.layer_norm(z, gamma, beta, eps=eps)
    ideal = gamma * exact + beta
    unit = np.spacing(np.abs(exact).max(axis=-1, keepdims=True))
    tol = 4 * unit * np.abs(gamma) + 2 * np.spacing(np.abs(gamma * exact) + np.abs(beta))
    assert (np.abs(y - ideal) <= tol).all()
