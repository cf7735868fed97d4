"""Tests of lnbook._layer: stats, core, layer_norm, normalized_variance."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from common import eps_values, finite, record_arrays
from hypothesis import given, settings
from hypothesis import strategies as st

import lnbook


def test_stats_by_hand():
    """(1,2,3,4): mean 5/2 and population variance 5/4 (divisor d, not d-1)."""
    mu, q = lnbook.stats([1, 2, 3, 4])
    r = [Fraction(x) for x in (1, 2, 3, 4)]
    m = sum(r) / 4
    assert mu == float(m) == 2.5
    assert q == float(sum((x - m) ** 2 for x in r) / 4) == 1.25
    assert q != 5 / 3


@settings(max_examples=40, deadline=None)
@given(record_arrays())
def test_stats_match_numpy(z):
    """mu and q agree with numpy's mean and var (ddof=0), per record, shape z.shape[:-1]."""
    mu, q = lnbook.stats(z)
    assert mu.shape == q.shape == z.shape[:-1]
    scale = 1 + np.abs(z).max()
    assert np.allclose(mu, z.mean(axis=-1), rtol=0, atol=1e-12 * scale)
    assert np.allclose(q, z.var(axis=-1), rtol=1e-9, atol=1e-9 * scale**2 * 1e-3)


def test_core_by_hand():
    """(1,2,3): eps = 1/3 gives (-1,0,1); eps = 4/3 gives (-1,0,1)/sqrt 2."""
    assert np.allclose(lnbook.core([1, 2, 3], eps=1 / 3), [-1, 0, 1], rtol=0, atol=1e-15)
    expected = np.array([-1, 0, 1]) / math.sqrt(2)
    assert np.allclose(lnbook.core([1, 2, 3], eps=4 / 3), expected, rtol=0, atol=1e-15)


def test_core_of_worked_row():
    """(1,2,3,4) with eps = 0 is ±3/sqrt5, ±1/sqrt5 ≈ (-1.341641, -0.447214, 0.447214, 1.341641)."""
    u = lnbook.core([1, 2, 3, 4], eps=0)
    assert np.allclose(u, np.array([-3, -1, 1, 3]) / math.sqrt(5), rtol=1e-15)
    assert np.allclose(u.round(6), [-1.341641, -0.447214, 0.447214, 1.341641], rtol=0, atol=0)
    assert abs(u.mean()) < 1e-15 and math.isclose((u**2).mean(), 1.0, rel_tol=1e-15)


def test_constant_record_gives_bias():
    """A constant record has core 0 for eps > 0, so the output is exactly beta."""
    y = lnbook.layer_norm([3, 3, 3], gamma=[5, -2, 7], beta=[1, -1, 2], eps=1e-5)
    assert np.array_equal(y, [1.0, -1.0, 2.0])


def test_gain_example_by_hand():
    """z = (1,1,-2), eps = 2: core (1/2,1/2,-1); gamma = (2,0,-1) gives (1,0,1)."""
    assert np.array_equal(lnbook.core([1, 1, -2], eps=2), [0.5, 0.5, -1.0])
    y = lnbook.layer_norm([1, 1, -2], gamma=[2, 0, -1], eps=2)
    assert np.array_equal(y, [1.0, 0.0, 1.0])
    assert math.isclose(y.mean(), 2 / 3) and math.isclose(y.var(), 2 / 9)


@settings(max_examples=40, deadline=None)
@given(record_arrays(min_d=2), eps_values)
def test_core_closed_form(z, eps):
    """u = (z - mean) / sqrt(var + eps), computed independently with numpy."""
    expected = (z - z.mean(axis=-1, keepdims=True)) / np.sqrt(z.var(axis=-1, keepdims=True) + eps)
    assert np.allclose(lnbook.core(z, eps=eps), expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(record_arrays(), eps_values, st.floats(min_value=-1e3, max_value=1e3))
def test_shift_invariance(z, eps, c):
    """LN(z + c 1) = LN(z) (exact in the reals; here to rounding of z + c)."""
    u, shifted = lnbook.core(z, eps=eps), lnbook.core(z + c, eps=eps)
    # the input z + c is itself rounded: half an ulp of |z| + |c| per entry
    tol = 8 * np.finfo(float).eps * (np.abs(z).max() + abs(c)) / math.sqrt(eps)
    assert np.allclose(shifted, u, rtol=0, atol=tol)


@settings(max_examples=40, deadline=None)
@given(record_arrays(min_d=2), eps_values)
def test_normalized_variance(z, eps):
    """The core has mean 0 and mean square q / (q + eps)."""
    u = lnbook.core(z, eps=eps)
    mu, q = lnbook.stats(z)
    assert np.allclose(u.mean(axis=-1), 0, atol=1e-12)
    assert np.allclose((u**2).mean(axis=-1), lnbook.normalized_variance(z, eps=eps), atol=1e-12)
    var = z.var(axis=-1)  # numpy's variance, independent of lnbook.stats
    assert np.allclose(lnbook.normalized_variance(z, eps=eps), var / (var + eps), atol=1e-12)


def test_normalized_variance_half_at_q_equal_eps():
    """q = eps gives exactly 1/2; q >> eps nearly 1; q << eps nearly 0."""
    assert lnbook.normalized_variance([-1, 1], eps=1) == 0.5
    assert lnbook.normalized_variance([-1e3, 1e3], eps=1) > 1 - 1e-6
    assert lnbook.normalized_variance([-1e-3, 1e-3], eps=1) < 1e-5


@settings(max_examples=40, deadline=None)
@given(record_arrays(min_d=2), st.floats(min_value=0.1, max_value=10.0))
def test_scaling_factor(z, a):
    """u(a z) = sqrt(q + eps) / sqrt(q + eps / a^2) u(z): no exact scale invariance."""
    eps = 0.5
    q = lnbook.stats(z)[1][..., None]
    factor = np.sqrt(q + eps) / np.sqrt(q + eps / a**2)
    assert np.allclose(lnbook.core(a * z, eps=eps), factor * lnbook.core(z, eps=eps), atol=1e-9)


def test_scaling_is_exact_only_without_eps():
    """With eps = 0 and q > 0 the core is invariant under z -> a z; with eps > 0 it is not."""
    z = np.array([2.0, 4, 6, 8])
    assert np.allclose(lnbook.core(50 * z, eps=0), lnbook.core(z, eps=0), rtol=1e-15)
    assert not np.allclose(lnbook.core(0.01 * z, eps=1e-5), lnbook.core(z, eps=1e-5), rtol=1e-6)


def test_records_are_independent():
    """Changing one record of a (B, T, d) tensor leaves every other record bit for bit."""
    z = np.random.default_rng(0).normal(size=(3, 4, 5))
    moved = lnbook.record_audit(lnbook.layer_norm, z, (1, 2))
    assert moved[1, 2] > 0
    moved[1, 2] = 0
    assert np.array_equal(moved, np.zeros((3, 4)))


def test_integer_and_list_input_are_float64():
    """Integer and list input are computed in float64."""
    assert lnbook.core([1, 2, 3]).dtype == np.float64
    assert lnbook.layer_norm(np.arange(4, dtype=np.int32)).dtype == np.float64
    assert lnbook.stats(np.array([[1, 2]], dtype=np.int64))[1].dtype == np.float64


def test_fortran_order_gives_the_same_bits():
    """A non-contiguous view is summed like its C-contiguous copy (pairwise, per record)."""
    z = np.random.default_rng(6).normal(size=(5, 300)) + 1e3
    assert np.array_equal(lnbook.stats(np.asfortranarray(z))[1], lnbook.stats(z)[1])
    assert np.array_equal(lnbook.core(z.T.copy().T), lnbook.core(z))


def test_offset_accuracy():
    """The corrected two-pass mean keeps the core accurate at offset |mu|/sigma = 1e9."""
    z = np.array([-1.0, 0.0, 1.0, 2.0]) + 1e9
    exact = np.array([-1.5, -0.5, 0.5, 1.5]) / math.sqrt(1.25)  # z is exact in float64
    assert np.allclose(lnbook.core(z, eps=0), exact, rtol=0, atol=4 * np.spacing(1.5))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lnbook.core([1, 2], eps=-1e-3), r"eps must be non-negative; got eps = -0\.001"),
        (lambda: lnbook.core([1, 2], eps=float("nan")), r"eps must be a finite float64 number"),
        (lambda: lnbook.core([1, 2], eps=10**400), r"eps must be a finite float64 number; got "
                                                    r"eps = an integer of 401 digits"),
        (lambda: lnbook.core([4, 4, 4], eps=0), r"eps = 0 with a constant record"),
        (lambda: lnbook.core([[1, 2], [4, 4]], eps=0),
         r"constant record \(1,\): its variance is exactly 0"),
        (lambda: lnbook.core([1, np.nan]), r"z contains NaN or infinite entries: z\[1\] = nan"),
        (lambda: lnbook.stats([[1, 2], [np.inf, 0]]), r"z\[1, 0\] = inf"),
        (lambda: lnbook.core(3.0), r"got a 0-d value 3\.0"),
        (lambda: lnbook.core(np.zeros((2, 0))), r"empty feature axis: shape \(2, 0\)"),
        (lambda: lnbook.layer_norm([1, 2, 3], gamma=[1, 2]), r"gamma must have shape \(3,\)"),
        (lambda: lnbook.layer_norm([1, 2, 3], beta=1.0), r"beta must have shape \(3,\).*\(\)"),
        (lambda: lnbook.layer_norm([1, 2], gamma=[1, np.nan]), r"gamma contains NaN"),
        (lambda: lnbook.stats([1e200, -1e200]),
         r"variance of a record of z exceeds the largest float64"),
        (lambda: lnbook.core([2**62 + 1, 2**62, 2**62 - 1]),
         r"an integer beyond 2\*\*53 that float64 would round: 4611686018427387905"),
        (lambda: lnbook.core(np.array([2**62 + 1, 2**62])),
         r"integers beyond 2\*\*53 .*z\[0\] = 4611686018427387905"),
        (lambda: lnbook.layer_norm([1, 2, 3], [1, 1, 1.5e308]),
         r"output gamma ⊙ u \+ beta of record \(\) overflows"),
        (lambda: lnbook.layer_norm([[2, 1], [3, 3]], beta=[1.7e308, 0], gamma=[1e308, 1]),
         r"record \(0,\) overflows"),
        (lambda: lnbook.core([1, 2], threads=0), r"threads must be at least 1"),
    ],
)
def test_bad_input_raises(call, message):
    """Bad input gets a ValueError that names the problem, never a silent NaN."""
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lnbook.core(["a", "b"]), r"z must be a real array of numbers .*got strings"),
        (lambda: lnbook.core(["1", "2"]), r"z must be a real array of numbers .*got strings"),
        (lambda: lnbook.core([True, False]), r"z must hold numbers, not booleans"),
        (lambda: lnbook.core(np.array([True, False])), r"z must be a real array .*got booleans"),
        (lambda: lnbook.core([1 + 2j, 3]), r"got complex numbers"),
        (lambda: lnbook.core(None), r"z must be a real array of numbers; got None"),
        (lambda: lnbook.core([1, 2], eps="0.1"),
         r"eps must be a real number \(int or float\); got '0\.1'"),
        (lambda: lnbook.core([1, 2], eps=True),
         r"eps must be a real number \(int or float\); got True"),
        (lambda: lnbook.core([1, 2], threads=2.0), r"threads must be an integer; got 2\.0"),
        (lambda: lnbook.layer_norm([1, 2], gamma=["a", "b"]), r"gamma must be a real array"),
    ],
)
def test_wrong_kinds_raise_type_error(call, message):
    """A wrong kind of argument (a string, a bool, complex numbers, None) is a TypeError."""
    with pytest.raises(TypeError, match=message):
        call()


@settings(max_examples=40, deadline=None)
@given(record_arrays(), eps_values)
def test_never_nan(z, eps):
    """For valid input with eps > 0, every output is finite."""
    assert np.isfinite(lnbook.layer_norm(z, eps=eps)).all()


def test_peer_pytorch_layer_norm(torch):
    """lnbook.layer_norm equals torch.nn.functional.layer_norm in float64."""
    rng = np.random.default_rng(1)
    for shape, eps in [((7,), 1e-5), ((3, 4, 16), 1e-3), ((2, 5), 0.7), ((4, 3), 1e-12)]:
        z = rng.normal(size=shape) * 3 + 1
        gamma, beta = rng.normal(size=shape[-1]), rng.normal(size=shape[-1])
        ours = lnbook.layer_norm(z, gamma, beta, eps=eps)
        theirs = torch.nn.functional.layer_norm(
            torch.tensor(z), shape[-1:], torch.tensor(gamma), torch.tensor(beta), eps=eps
        ).numpy()
        assert np.allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(finite, min_size=1, max_size=6))
def test_list_and_array_agree(values):
    """A list and the equivalent float64 array give the same stats."""
    a, b = lnbook.stats(values), lnbook.stats(np.array(values))
    assert a[0] == b[0] and a[1] == b[1]
