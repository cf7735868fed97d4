"""Tests of lnbook._reference: the correctly rounded core and the error in ulps."""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest
from common import record_arrays
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnbook


def decimal_core(z, eps, digits=80):
    """The core by an independent route: exact fractions, then an 80-digit decimal root."""
    x = [Fraction(float(t)) for t in z]
    mu = sum(x, Fraction(0)) / len(x)
    v = [t - mu for t in x]
    s2 = sum((t * t for t in v), Fraction(0)) / len(x) + Fraction(float(eps))
    ctx = Context(prec=digits)
    root = ctx.sqrt(ctx.divide(Decimal(s2.numerator), Decimal(s2.denominator)))
    return np.array(
        [float(ctx.divide(ctx.divide(Decimal(t.numerator), Decimal(t.denominator)), root))
         for t in v]
    )


def test_one_two_three_by_hand():
    """(1,2,3) with eps = 1/3: q + eps is 1 up to the rounding of 1/3, so u = (-1, 0, 1) exactly."""
    u = lnbook.exact_core([1.0, 2.0, 3.0], eps=1 / 3)
    assert u.dtype == np.float64
    assert u.tolist() == [-1.0, 0.0, 1.0]


def test_two_four_six_eight_by_hand():
    """(2,4,6,8) with eps = 0: u = (-3,-1,1,3)/sqrt 5, each the float64 nearest the exact value."""
    u = lnbook.exact_core([2.0, 4.0, 6.0, 8.0], eps=0)
    root5 = Decimal(5).sqrt(Context(prec=60))
    assert u.tolist() == [float(Decimal(k) / root5) for k in (-3, -1, 1, 3)]
    # nearest: (k/sqrt5)^2 = k^2/5 lies between the squared midpoints to both neighbours
    for k, c in zip((3, 1), (u[3], u[2])):
        lo = (Fraction(c) + Fraction(np.nextafter(c, 0))) / 2
        hi = (Fraction(c) + Fraction(np.nextafter(c, 2))) / 2
        assert lo * lo < Fraction(k * k, 5) < hi * hi
    assert np.array_equal(u[:2], -u[:1:-1])


def test_matches_decimal_route():
    """On seeded records of mixed scales and offsets, the mpmath route equals the decimal route."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        d = int(rng.integers(1, 9))
        z = (rng.normal(size=d) + 10 ** rng.uniform(0, 12)) * 10 ** rng.uniform(-8, 8)
        eps = float(rng.choice([0.0, 1e-12, 1e-5, 1.0])) if d > 1 else 1e-5
        if eps == 0 and np.all(z == z[0]):
            continue
        assert lnbook.exact_core(z, eps=eps).tolist() == decimal_core(z, eps).tolist()


def test_precision_is_only_a_cost():
    """dps = 1 (far too few digits) still returns the certified, correctly rounded core."""
    z = np.random.default_rng(1).normal(size=(3, 7)) + 1e6
    assert np.array_equal(lnbook.exact_core(z, dps=1), lnbook.exact_core(z))
    assert np.array_equal(lnbook.exact_core(z, dps=100), lnbook.exact_core(z))


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(2, 8),
               elements=st.integers(-2**20, 2**20).map(lambda k: k / 1024)),
    st.integers(-2**30, 2**30),
)
def test_shift_invariance_is_exact(z, c):
    """When z + c1 is exact in float64, its exact core is bitwise the exact core of z."""
    assert np.array_equal(z + c - c, z)  # the shift loses nothing here
    assert np.array_equal(lnbook.exact_core(z + c), lnbook.exact_core(z))


@settings(max_examples=40, deadline=None)
@given(record_arrays(max_d=6, max_lead=1), st.integers(-20, 20))
def test_power_of_two_scaling_is_exact(z, k):
    """u_{4^k eps}(2^k z) = u_eps(z) exactly when scaling by 2^k commits no rounding (it does
    for subnormal entries scaled down, and for 4^k eps when that is subnormal)."""
    eps = 1e-5
    assume(np.array_equal((2.0**k * z) / 2.0**k, z) and (4.0**k * eps) / 4.0**k == eps)
    assert np.array_equal(lnbook.exact_core(2.0**k * z, eps=4.0**k * eps),
                          lnbook.exact_core(z, eps=eps))


def test_records_along_last_axis():
    """A (2, 3, d) batch gives, record by record, the core of each (d,) record."""
    z = np.random.default_rng(2).normal(size=(2, 3, 5)) * 100
    u = lnbook.exact_core(z, eps=1e-3)
    assert u.shape == z.shape
    for i in range(2):
        for j in range(3):
            assert np.array_equal(u[i, j], lnbook.exact_core(z[i, j], eps=1e-3))


def test_mean_zero_and_mean_square():
    """The exact core has mean 0 and mean square q/(q+eps), up to its one rounding per entry."""
    z = np.random.default_rng(3).normal(size=(4, 16)) * 3 + 7
    u = lnbook.exact_core(z, eps=2.0)
    assert np.allclose(u.mean(axis=-1), 0, atol=1e-15)
    assert np.allclose((u**2).mean(axis=-1), lnbook.normalized_variance(z, eps=2.0), rtol=1e-14)


def test_constant_records():
    """A constant record has core 0 for eps > 0 and is refused (0/0) for eps = 0."""
    assert lnbook.exact_core([5.0, 5.0, 5.0]).tolist() == [0.0, 0.0, 0.0]
    assert lnbook.exact_core([2.5]).tolist() == [0.0]
    with pytest.raises(ValueError, match=r"eps = 0 with a constant record"):
        lnbook.exact_core([5.0, 5.0, 5.0], eps=0)
    with pytest.raises(ValueError, match=r"\(record \(1, 0\)\)"):
        lnbook.exact_core([[[1.0, 2.0]], [[3.0, 3.0]]], eps=0)


def test_exact_core_refuses_bad_input():
    """NaN, empty or 0-d records, negative eps and a non-integer dps raise ValueError."""
    with pytest.raises(ValueError, match=r"z contains NaN"):
        lnbook.exact_core([1.0, float("nan")])
    with pytest.raises(ValueError, match=r"empty feature axis"):
        lnbook.exact_core(np.zeros((2, 0)))
    with pytest.raises(ValueError, match=r"0-d"):
        lnbook.exact_core(3.0)
    with pytest.raises(ValueError, match=r"eps must be non-negative; got eps = -1"):
        lnbook.exact_core([1.0, 2.0], eps=-1e-5)
    for dps in (0, -3, 10**6):
        with pytest.raises(ValueError, match=r"dps must be at (least 1|most 10000); got dps"):
            lnbook.exact_core([1.0, 2.0], dps=dps)
    for dps in (2.5, True, "30"):
        with pytest.raises(TypeError, match=r"dps must be an integer; got"):
            lnbook.exact_core([1.0, 2.0], dps=dps)


def test_import_does_not_need_mpmath_nor_matplotlib():
    """`import lnbook` (its toolkits and lnbook.figures included) leaves mpmath and matplotlib
    unimported; only exact_core imports mpmath, only lnbook.plotting matplotlib."""
    import subprocess
    import sys

    code = ("import sys, lnbook, lnbook.figures; "
            "print('mpmath' in sys.modules, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_ulp_error_by_hand():
    """Normwise: every error is counted in ulps of the largest exact component."""
    # a 2^-60 error on the zero component is far below ulp(1) = 2^-52; the 2^-52 one is 1 ulp
    assert float(lnbook.ulp_error([-1.0, 2**-60, 1.0 + 2**-52], [-1.0, 0.0, 1.0])) == 1.0
    # an error of 2^-54 on 0.25 is half an ulp of 0.5 (ulp(0.5) = 2^-53), not 1 ulp of 0.25
    err = lnbook.ulp_error([[0.5, 0.25 + 2**-54], [3.0, -2.0]], [[0.5, 0.25], [3.0, -2.0]])
    assert err.tolist() == [0.5, 0.0]
    # ulp(3) = 2^-51: an error of 3 * 2^-51 is 3 ulps
    assert float(lnbook.ulp_error([1.0, 3.0 - 3 * 2**-51], [1.0, 3.0])) == 3.0


def test_ulp_error_in_lower_formats():
    """dtype=float32 / float16 counts in that format's ulps: ulp(1) = 2^-23, 2^-10."""
    assert float(lnbook.ulp_error([1.0 + 2**-23], [1.0], dtype=np.float32)) == 1.0
    assert float(lnbook.ulp_error([1.0 + 2**-10], [1.0], dtype=np.float16)) == 1.0
    exact = lnbook.exact_core(np.random.default_rng(4).normal(size=(5, 9)))
    rounded = exact.astype(np.float32)
    err = lnbook.ulp_error(rounded, exact, dtype=np.float32)
    assert err.shape == (5,)
    assert np.all(err <= 0.5 + 1e-6)  # rounding each entry once is at most half an ulp


def test_ulp_error_shapes_and_refusals():
    """The result has shape exact.shape[:-1]; mismatched shapes, NaN, int dtype are refused."""
    assert lnbook.ulp_error(np.ones((2, 3, 4)), np.ones((2, 3, 4))).shape == (2, 3)
    assert lnbook.ulp_error([0.0, 0.0], [0.0, 0.0]).shape == ()
    with pytest.raises(ValueError, match=r"computed has shape \(3,\) but exact has shape \(2,\)"):
        lnbook.ulp_error([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"computed contains NaN"):
        lnbook.ulp_error([float("nan"), 1.0], [0.0, 1.0])
    with pytest.raises(TypeError, match=r"dtype must be one of float16, float32, float64"):
        lnbook.ulp_error([1.0], [1.0], dtype=np.int32)
    with pytest.raises(TypeError, match=r"dtype must be one of .*; got 'f99'"):
        lnbook.ulp_error([1.0], [1.0], dtype="f99")


def test_lnbook_core_is_within_a_few_ulps():
    """lnbook.core (float64, corrected two-pass) stays within 4 ulp for offsets up to 1e12."""
    offsets = 10.0 ** np.arange(0, 13, 3)
    for spread in (1e-6, 1.0, 1e3):
        assert lnbook.fp.offset_errors(offsets, sigma=spread, d=16, n=3).max() <= 4


def test_offset_errors_sees_the_naive_mean():
    """Without the correction the error grows like |mu|/sigma ulps (between 1% and 4x of it)."""

    def naive(z, eps):
        v = z - z.mean(axis=-1, keepdims=True)
        return v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps)

    offsets = np.array([1e6, 1e9, 1e12])
    err = lnbook.fp.offset_errors(offsets, f=naive, d=16, n=3)
    assert np.all(err >= 0.01 * offsets) and np.all(err <= 4 * offsets)


def test_offset_errors_refuses_bad_input():
    """Offsets must be positive, the spread positive and finite, d and n at least 1."""
    with pytest.raises(ValueError, match=r"offsets must be positive ratios; got \[1\.0, 0\.0\]"):
        lnbook.fp.offset_errors([1.0, 0.0])
    with pytest.raises(ValueError, match=r"offsets must be a vector"):
        lnbook.fp.offset_errors([])
    with pytest.raises(ValueError, match=r"sigma \* offsets overflows float64"):
        lnbook.fp.offset_errors([1e300], sigma=1e10)
    with pytest.raises(TypeError, match=r"f must be callable"):
        lnbook.fp.offset_errors([1.0], f="core")
    with pytest.raises(ValueError, match=r"sigma must be positive"):
        lnbook.fp.offset_errors([1.0], sigma=-1.0)
    with pytest.raises(ValueError, match=r"d must be at least 1; got d = 0"):
        lnbook.fp.offset_errors([1.0], d=0)
    with pytest.raises(TypeError, match=r"d must be an integer; got 2\.7"):
        lnbook.fp.offset_errors([1.0], d=2.7)
    with pytest.raises(TypeError, match=r"d must be an integer; got '3'"):
        lnbook.fp.offset_errors([1.0], d="3")
    with pytest.raises(TypeError, match=r"n must be an integer; got True"):
        lnbook.fp.offset_errors([1.0], n=True)
    assert math.isfinite(float(lnbook.fp.offset_errors([1.0], d=1, n=1)[0]))
