"""Tests of lnbook.fp: Welford's update, Chan's merge, the one-pass formula, numpy's sum.

Each formula has three witnesses: the closed form (exact rational statistics), an independent
computation (``np.sum``/``np.mean``, ``math.fsum``, lnbook.stats, lnbook.exact_core) and a hand
example.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import lnbook
from lnbook.fp import (
    chan_stats,
    merge_stats,
    one_pass_stats,
    pairwise_depth,
    pairwise_sum,
    round_bfloat16,
    welford,
)

RHO64 = 2.0**-53


def exact_mean_var(z):
    """Mean and population variance of the float64 values, as exact fractions."""
    x = [Fraction(t) for t in np.asarray(z, dtype=np.float64).tolist()]
    mu = sum(x, Fraction(0)) / len(x)
    return mu, sum(((t - mu) ** 2 for t in x), Fraction(0)) / len(x)


def rel_err(computed, exact):
    return float(abs(Fraction(float(computed)) - exact) / exact)


# --- hand examples -------------------------------------------------------------------------


def test_welford_hand_example_step_by_step():
    """(1,2,3,4): running means 1, 1.5, 2, 2.5 and sums of squares M = 0, 0.5, 2, 5."""
    z = np.array([1.0, 2.0, 3.0, 4.0])
    by_hand = [(1.0, 0.0), (1.5, 0.5), (2.0, 2.0), (2.5, 5.0)]
    for k, (mu_k, m_k) in enumerate(by_hand, start=1):
        mu, q = welford(z[:k])
        assert float(mu) == mu_k and float(q) * k == m_k


def test_merge_hand_example():
    """(1,2) has (n, mu, q) = (2, 1.5, 0.25) and (3,4) has (2, 3.5, 0.25); the union is
    (4, 2.5, 1.25): delta = 2 and n q = 0.5 + 0.5 + 4 * 4 / 4 = 5."""
    n, mu, q = merge_stats((2, 1.5, 0.25), (2, 3.5, 0.25))
    assert (int(n), float(mu), float(q)) == (4, 2.5, 1.25)


def test_one_pass_hand_example_at_offset():
    """(c+1, ..., c+4) at c = 1e9: the squares are about 1e18, where float64's spacing is 128,
    so E[z^2] - E[z]^2 cannot return the true 1.25; the two-pass variance does."""
    z = 1e9 + np.array([1.0, 2.0, 3.0, 4.0])
    assert np.spacing((z * z).mean()) == 128.0
    assert float(one_pass_stats(z)[1]) != 1.25
    assert float(lnbook.stats(z)[1]) == 1.25 == float(welford(z)[1])


def test_pairwise_depth_hand_values():
    """k(d) by hand: d - 1 below 8; 16 numbers in 8 accumulators of 2: 1 + 3; 128: 15 + 3;
    127: 14 + 3 + 7 (a tail of 7); 256 = 128 + 128: 1 + 18."""
    assert [pairwise_depth(d) for d in (1, 2, 7)] == [0, 1, 6]
    assert pairwise_depth(16) == 4 and pairwise_depth(128) == 18
    assert pairwise_depth(127) == 24 and pairwise_depth(256) == 19
    assert pairwise_depth(2**32) == 43 == math.log2(2**32 / 128) + 18  # at once, not by blocks


# --- closed forms and exact references -----------------------------------------------------


def test_chan_block_sizes():
    """One block is Welford bit for bit; blocks of one feature are pure merges; both agree
    with the two-pass statistics."""
    rng = np.random.default_rng(4)
    z = rng.standard_normal((3, 37)) + 5
    assert all(np.array_equal(x, y) for x, y in zip(chan_stats(z, block=37), welford(z)))
    for block in (1, 4, 16):
        mu, q = chan_stats(z, block=block)
        assert np.allclose(mu, lnbook.stats(z)[0], rtol=1e-14)
        assert np.allclose(q, lnbook.stats(z)[1], rtol=1e-12)


def test_formats_are_respected():
    """float32 in, float32 arithmetic out; float16 likewise; merge_stats computes in the
    wider of its parts' floating types."""
    z = np.arange(1.0, 9.0)
    for dt in (np.float16, np.float32):
        for f in (welford, chan_stats, one_pass_stats):
            mu, q = f(z, dtype=dt)
            assert mu.dtype == dt and q.dtype == dt and float(mu) == 4.5 and float(q) == 5.25
    f = np.float32
    assert merge_stats((3, f(1.1), f(0.3)), (5, f(2.7), f(0.9)))[2].dtype == np.float32
    assert merge_stats((3, f(1.1), f(0.3)), (5, f(2.7), 0.9))[2].dtype == np.float64


def test_one_pass_is_the_literal_formula():
    """one_pass_stats is mean(z*z) - mean(z)**2 computed by numpy, unclipped (may be < 0)."""
    rng = np.random.default_rng(5)
    z = (np.float32(0.01) * rng.standard_normal((40, 512), dtype=np.float32)) + np.float32(100)
    mu, q = one_pass_stats(z, dtype=np.float32)
    assert np.array_equal(q, (z * z).mean(-1) - z.mean(-1) ** 2)
    assert (q < 0).any()


def test_core_from_streaming_stats_against_exact_core():
    """Unshifted records: a core built on Welford's or Chan's statistics is within a few ulps
    of the correctly rounded core (lnbook.exact_core)."""
    rng = np.random.default_rng(6)
    z = rng.standard_normal((4, 64))
    exact = lnbook.exact_core(z, eps=1e-5)
    for f in (welford, chan_stats):
        mu, q = f(z)
        u = (z - mu[:, None]) / np.sqrt(q[:, None] + 1e-5)
        assert float(lnbook.ulp_error(u, exact).max()) <= 4


def test_welford_beats_one_pass_on_offset_data():
    """At |mu|/sigma = 1e6 the one-pass error is of order 1e12 rho, Welford's of order 1e6 rho."""
    rng = np.random.default_rng(7)
    z = rng.standard_normal(256) + 1e6
    _, q_x = exact_mean_var(z)
    assert rel_err(welford(z)[1], q_x) < 1e-9 < 1e-6 < rel_err(one_pass_stats(z)[1], q_x)


# --- numpy's summation order --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_pairwise_sum_is_np_sum_bit_for_bit(dtype):
    """The emulated order reproduces np.sum and np.mean (times d) along the last axis exactly."""
    rng = np.random.default_rng(8)
    # every length below 8 (one by one), 8 to 128 (eight accumulators), beyond (halves)
    for d in [*range(1, 18), 63, 64, 65, 127, 128, 129, 136, 255, 256, 257, 768, 1000, 4096]:
        x = (rng.standard_normal((2, d)) * 10 ** rng.uniform(-2, 2, (2, d))).astype(dtype)
        x = x + dtype(100)
        if dtype is np.float16:  # keep the sums of 4096 terms below float16's maximum 65504
            x = x / dtype(100)
        assert np.array_equal(pairwise_sum(x), np.sum(x, axis=-1)), d
        if dtype is np.float64:
            assert np.array_equal(pairwise_sum(x) / d, np.mean(x, axis=-1)), d


def test_pairwise_sum_of_negative_zeros_is_numpys_plus_zero():
    """numpy's reduction starts from add's identity, +0: a sum of negative zeros is +0."""
    for dtype in (np.float16, np.float32, np.float64):
        z = np.full((2, 9), -0.0, dtype=dtype)
        assert pairwise_sum(z).tobytes() == np.sum(z, axis=-1).tobytes()
        assert not np.signbit(pairwise_sum(z)).any()


def _count_depth(d):
    """Independent count: add sets of term indices along numpy's order, track roundings."""
    depth = np.zeros(d, dtype=int)

    def rec(lo, n):
        if n < 8:
            members = []
            for i in range(lo, lo + n):
                if members:  # -0.0 + x is exact; later additions round
                    depth[members + [i]] += 1
                members.append(i)
            return members
        if n <= 128:
            r = [[lo + j] for j in range(8)]
            i = 8
            while i < n - n % 8:
                for j in range(8):
                    r[j] = r[j] + [lo + i + j]
                    depth[r[j]] += 1
                i += 8
            pairs = [r[0] + r[1], r[2] + r[3], r[4] + r[5], r[6] + r[7]]
            quads = [pairs[0] + pairs[1], pairs[2] + pairs[3]]
            for group in pairs + quads + [quads[0] + quads[1]]:
                depth[group] += 1
            res = quads[0] + quads[1]
            for k in range(i, n):
                res = res + [lo + k]
                depth[res] += 1
            return res
        n2 = n // 2 - (n // 2) % 8
        both = rec(lo, n2) + rec(lo + n2, n - n2)
        depth[both] += 1
        return both

    rec(0, d)
    return int(depth.max())


def test_pairwise_depth_by_counting():
    """k(d) equals the longest chain counted term by term along numpy's order."""
    for d in list(range(1, 300, 7)) + [768, 1000, 4096, 5000]:
        assert pairwise_depth(d) == _count_depth(d), d


def test_pairwise_bound_holds_and_is_not_log2_d():
    """|sum - exact| <= gamma_k sum |x| with k = pairwise_depth(d) (math.fsum is exact-rounded);
    for d = 768 the depth is 17, above log2(768) = 9.6."""
    rng = np.random.default_rng(9)
    for d in (8, 100, 768, 4096):
        k = pairwise_depth(d)
        gamma = k * RHO64 / (1 - k * RHO64)
        for _ in range(5):
            x = rng.standard_normal(d) * 10 ** rng.uniform(-5, 5, d)
            exact = Fraction(0)
            for t in x.tolist():
                exact += Fraction(t)
            err = abs(Fraction(float(np.sum(x))) - exact)
            assert err <= Fraction(gamma) * Fraction(math.fsum(np.abs(x)))
    assert pairwise_depth(768) == 17 > math.log2(768)


# --- bfloat16 ------------------------------------------------------------------------------


def test_round_bfloat16_hand_examples():
    """Near 1 the bfloat16 spacing is 2^-7: 1 + 2^-8 is a tie and goes to the even 1;
    1 + 3*2^-8 is a tie between 1 + 2^-7 (odd) and 1 + 2^-6 (even); 300 = 256 + 32 + 8 + 4 has
    8 significant bits and stays."""
    got = round_bfloat16([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-12, 300.0, -300.0])
    assert got.dtype == np.float32
    assert got.tolist() == [1.0, 1 + 2**-6, 1 + 2**-7, 300.0, -300.0]


# --- bad input ----------------------------------------------------------------------------


def test_bad_input_is_refused_by_name():
    """A part that is not (n, mu, q), a count of zero or of the wrong kind, a negative
    variance: each refused naming it."""
    with pytest.raises(ValueError, match=r"part_a: n must be at least 1; got part_a: n = 0"):
        merge_stats((0, 1.0, 0.0), (1, 2.0, 0.0))
    with pytest.raises(TypeError, match=r"part_b: n must be an integer; got 1\.5"):
        merge_stats((1, 1.0, 0.0), (1.5, 2.0, 0.0))
    with pytest.raises(ValueError, match="part_a: the variance q must be non-negative"):
        merge_stats((1, 1.0, -1.0), (1, 2.0, 0.0))
    with pytest.raises(ValueError, match=r"must be a tuple \(n, mu, q\)"):
        merge_stats((1, 1.0), (1, 2.0, 0.0))
    with pytest.raises(ValueError, match=r"n_a \+ n_b = 9223372036854775808 exceeds 2\*\*63"):
        merge_stats((2**62, 0.0, 1.0), (2**62, 1.0, 1.0))
