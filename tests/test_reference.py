"""The correctly rounded reference (lnbook._reference): exact_core and ulp_error.
Witnesses: hand examples (the midpoint test of correct rounding written out), an independent
route (exact fractions and an 80-digit decimal root), and exact invariances."""

from __future__ import annotations

import subprocess
import sys
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest

import lnbook


def decimal_core(z, eps, digits=80):
    """The core by another route: exact fractions, then an 80-digit decimal root."""
    x = [Fraction(float(t)) for t in z]
    mu = sum(x, Fraction(0)) / len(x)
    s2 = sum(((t - mu) ** 2 for t in x), Fraction(0)) / len(x) + Fraction(float(eps))
    ctx = Context(prec=digits)
    root = ctx.sqrt(ctx.divide(Decimal(s2.numerator), Decimal(s2.denominator)))
    return [float(ctx.divide(ctx.divide(Decimal(t.numerator), Decimal(t.denominator)), root))
            for t in (t - mu for t in x)]


def test_exact_core_by_hand():
    """(1,2,3) with eps = 1/3: q + eps is 1 up to the rounding of 1/3, so u = (-1, 0, 1);
    (2,4,6,8) with eps = 0: u = (-3,-1,1,3)/sqrt 5, each entry the float64 whose midpoints
    to its neighbours, squared, bracket k^2/5."""
    assert lnbook.exact_core([1.0, 2.0, 3.0], eps=1 / 3).tolist() == [-1.0, 0.0, 1.0]
    u = lnbook.exact_core([2.0, 4.0, 6.0, 8.0], eps=0)
    for k, c in zip((3, 1), (u[3], u[2])):
        lo = (Fraction(c) + Fraction(np.nextafter(c, 0))) / 2
        hi = (Fraction(c) + Fraction(np.nextafter(c, 2))) / 2
        assert lo * lo < Fraction(k * k, 5) < hi * hi
    assert np.array_equal(u[:2], -u[:1:-1])


def test_exact_core_matches_the_decimal_route():
    """On seeded records of mixed scales and offsets (and RMSNorm's uncentered core of (3, 4),
    (3, 4)/sqrt(25/2)), the certified mpmath route equals the decimal route bit for bit; too
    few digits only cost retries."""
    rng = np.random.default_rng(0)
    for _ in range(30):
        d = int(rng.integers(2, 9))
        z = (rng.normal(size=d) + 10 ** rng.uniform(0, 12)) * 10 ** rng.uniform(-8, 8)
        eps = float(rng.choice([0.0, 1e-12, 1e-5, 1.0]))
        assert lnbook.exact_core(z, eps=eps).tolist() == decimal_core(z, eps)
        assert np.array_equal(lnbook.exact_core(z, eps=eps, dps=1),
                              lnbook.exact_core(z, eps=eps))
    assert lnbook.exact_core([3, 4], eps=0, center=False).tolist() == [
        float(Decimal(k) / Decimal(12.5).sqrt(Context(prec=60))) for k in (3, 4)]


def test_exact_invariances():
    """Shifting by c and scaling by 2^k (z -> 2^k z, eps -> 4^k eps) are exact in float64
    here, so the exact core keeps every bit; a batch is its records, one by one."""
    z = np.array([0.5, -3.25, 7.0, 1.125])
    assert np.array_equal(lnbook.exact_core(z + 2.0**20), lnbook.exact_core(z))
    assert np.array_equal(lnbook.exact_core(z * 2.0**-40, eps=1e-5 * 4.0**-40),
                          lnbook.exact_core(z, eps=1e-5))
    batch = np.random.default_rng(2).normal(size=(2, 3, 5)) * 100
    assert np.array_equal(lnbook.exact_core(batch)[1, 2], lnbook.exact_core(batch[1, 2]))


def test_import_needs_neither_mpmath_nor_matplotlib():
    """`import lnbook` (its toolkits and lnbook.figures included) leaves mpmath and matplotlib
    unimported: only exact_core imports mpmath, only lnbook.plotting matplotlib."""
    code = ("import sys, lnbook, lnbook.figures; "
            "print('mpmath' in sys.modules, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_ulp_error_by_hand():
    """Normwise, in ulps of the largest exact component: 2^-60 on a zero component of
    (-1, 0, 1) is far below ulp(1) = 2^-52, 2^-52 on 1 is 1 ulp; 2^-54 on 0.25 next to 0.5 is
    half an ulp of 0.5; 3 * 2^-51 on 3 is 3 ulps; in float32 and float16 ulp(1) is 2^-23 and
    2^-10; at the largest float64 the ulp is its binade's, and c - u beyond float64 is
    measured from halves (2^54 - 2 ulps)."""
    assert float(lnbook.ulp_error([-1.0, 2**-60, 1.0 + 2**-52], [-1.0, 0.0, 1.0])) == 1.0
    assert lnbook.ulp_error([[0.5, 0.25 + 2**-54], [3.0, -2.0]],
                            [[0.5, 0.25], [3.0, -2.0]]).tolist() == [0.5, 0.0]
    assert float(lnbook.ulp_error([1.0, 3.0 - 3 * 2**-51], [1.0, 3.0])) == 3.0
    assert float(lnbook.ulp_error([1.0 + 2**-23], [1.0], dtype=np.float32)) == 1.0
    assert float(lnbook.ulp_error([1.0 + 2**-10], [1.0], dtype=np.float16)) == 1.0
    top = float(np.finfo(np.float64).max)
    assert float(lnbook.ulp_error([np.nextafter(top, 0)], [top])) == 1.0
    assert float(lnbook.ulp_error([65472.0], [65504.0], dtype=np.float16)) == 1.0
    assert float(lnbook.ulp_error([top, 1.0], [-top, 1.0])) == 2.0**54 - 2
    with pytest.raises(ValueError, match=r"beyond float16's largest finite number 65504"):
        lnbook.ulp_error([70000.0], [70000.0], dtype="float16")


def test_offset_errors_tells_the_corrected_mean_from_the_naive_one():
    """lnbook.core stays within 4 ulps for offsets |mu|/sigma up to 1e12; the two-pass core
    without the correction errs by about |mu|/sigma ulps (between 1 % and 4 times it)."""
    offsets = np.array([1.0, 1e6, 1e9, 1e12])
    assert lnbook.fp.offset_errors(offsets, d=16, n=3).max() <= 4

    def naive(z, eps):
        v = z - z.mean(axis=-1, keepdims=True)
        return v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps)

    err = lnbook.fp.offset_errors(offsets[1:], f=naive, d=16, n=3)
    assert np.all(err >= 0.01 * offsets[1:]) and np.all(err <= 4 * offsets[1:])
