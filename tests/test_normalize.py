"""The layer (lnbook._layer on lnbook._kernel): stats, core, layer_norm, normalized_variance.

Each formula has three witnesses: a hand example, an independent computation (a plain numpy
expression here; exact rationals and mpmath in tests/test_contract.py) and the closed form's
properties (hypothesis). The accuracy at the ends of float64's range is
tests/test_contract.py's, at large offsets tests/test_reference.py's.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnbook
from lnbook import _kernel

finite = st.floats(min_value=-1e3, max_value=1e3)
eps_values = st.floats(min_value=1e-6, max_value=10.0)
# records (..., d) of moderate size and scale
records = hnp.array_shapes(min_dims=1, max_dims=3, max_side=5).flatmap(
    lambda shape: hnp.arrays(np.float64, shape, elements=finite))
PROPERTY = settings(max_examples=25, deadline=None)


def test_stats_by_hand():
    """(1,2,3,4): mean 5/2 and population variance 5/4 (divisor d, not d - 1 = 5/3)."""
    r = [Fraction(x) for x in (1, 2, 3, 4)]
    m = sum(r) / 4
    assert lnbook.stats([1, 2, 3, 4]) == (float(m), float(sum((x - m) ** 2 for x in r) / 4))
    assert lnbook.stats([[1, 2, 3], [5, 5, 5]])[1].tolist() == [2 / 3, 0.0]


def test_core_by_hand():
    """(1,2,3): q = 2/3, so eps = 1/3 gives (-1, 0, 1) and eps = 4/3 gives (-1, 0, 1)/sqrt 2;
    (1,2,3,4) at eps = 0 is (-3, -1, 1, 3)/sqrt 5."""
    assert np.allclose(lnbook.core([1, 2, 3], eps=1 / 3), [-1, 0, 1], rtol=0, atol=1e-15)
    assert np.allclose(lnbook.core([1, 2, 3], eps=4 / 3), np.array([-1, 0, 1]) / math.sqrt(2),
                       rtol=0, atol=1e-15)
    u = lnbook.core([1, 2, 3, 4], eps=0)
    assert np.allclose(u, np.array([-3, -1, 1, 3]) / math.sqrt(5), rtol=1e-15)
    assert u.dtype == np.float64 and lnbook.core(np.arange(3, dtype=np.int32)).dtype == np.float64


def test_layer_by_hand():
    """z = (1,1,-2), eps = 2: q = 2, core (1/2, 1/2, -1); gamma = (2,0,-1) gives (1, 0, 1);
    a constant record has core 0, so its output is beta exactly."""
    assert np.array_equal(lnbook.core([1, 1, -2], eps=2), [0.5, 0.5, -1.0])
    assert np.array_equal(lnbook.layer_norm([1, 1, -2], [2, 0, -1], eps=2), [1.0, 0.0, 1.0])
    assert np.array_equal(lnbook.layer_norm([3, 3, 3], [5, -2, 7], [1, -1, 2]), [1.0, -1.0, 2.0])


@PROPERTY
@given(records, st.floats(min_value=0.1, max_value=10.0))
def test_scaling_factor(z, a):
    """u(a z) = sqrt(q + eps) / sqrt(q + eps / a^2) u(z): no exact scale invariance with
    eps > 0; with eps = 0 and q > 0 the core keeps its value."""
    q = lnbook.stats(z)[1][..., None]
    factor = np.sqrt(q + 0.5) / np.sqrt(q + 0.5 / a**2)
    assert np.allclose(lnbook.core(a * z, eps=0.5), factor * lnbook.core(z, eps=0.5), atol=1e-9)
    assert np.allclose(lnbook.core(50 * np.array([2.0, 4, 7]), eps=0),
                       lnbook.core([2.0, 4, 7], eps=0), rtol=1e-15)


@PROPERTY
@given(records, eps_values)
def test_normalized_variance(z, eps):
    """The core has mean 0 and mean square q / (q + eps), numpy's var as q."""
    u, var = lnbook.core(z, eps=eps), z.var(axis=-1)
    assert np.allclose(u.mean(axis=-1), 0, atol=1e-12)
    assert np.allclose((u**2).mean(axis=-1), lnbook.normalized_variance(z, eps=eps), atol=1e-12)
    assert np.allclose(lnbook.normalized_variance(z, eps=eps), var / (var + eps), atol=1e-12)


def test_normalized_variance_by_hand():
    """q = eps gives exactly 1/2; q >> eps nearly 1; q << eps nearly 0."""
    assert lnbook.normalized_variance([-1, 1], eps=1) == 0.5
    assert lnbook.normalized_variance([-1e3, 1e3], eps=1) > 1 - 1e-6
    assert lnbook.normalized_variance([-1e-3, 1e-3], eps=1) < 1e-5


def test_layouts_give_the_same_bits():
    """A Fortran-ordered, strided or read-only input is summed like its C-contiguous copy
    (numpy's pairwise order along the last axis), and is never written."""
    base = np.random.default_rng(6).normal(size=(6, 300)) + 1e3
    ro = base[:3].copy()
    ro.flags.writeable = False
    for x in (np.asfortranarray(base), base[::2, ::3], ro):
        kept = x.copy()
        c = np.ascontiguousarray(x)
        assert np.array_equal(lnbook.stats(x)[1], lnbook.stats(c)[1])
        assert np.array_equal(lnbook.layer_norm(x, np.arange(x.shape[-1])),
                              lnbook.layer_norm(c, np.arange(x.shape[-1])))
        assert np.array_equal(x, kept)


@pytest.mark.parametrize("d", [16, 300, 1024])
def test_blocks_and_buffers_keep_the_bits(monkeypatch, d):
    """The layer runs over blocks of records with numpy buffers of at most one record; with
    blocks of 4 records (a constant one among them, which takes the rescaling path) and
    numpy's default buffers it gives the same bits, equal to one plain numpy formula over
    the whole array (the corrected two-pass); the kernel's core and scale for the derivatives
    (and a residual stack's LayerNorm) too; the caller's buffer size is left as it was."""
    rng = np.random.default_rng(15)
    z = rng.normal(size=(13, d)) * 3 + 1e4
    z[5] = 7.0
    gamma, beta = rng.normal(size=d), rng.normal(size=d)
    whole = lnbook.layer_norm(z, gamma, beta)
    assert np.getbufsize() == 8192
    monkeypatch.setattr(_kernel, "_BLOCK", 4 * d)
    monkeypatch.setattr(_kernel, "_bufsize", lambda d, bufsize: bufsize)
    assert np.array_equal(lnbook.layer_norm(z, gamma, beta), whole)
    w = z - z.mean(axis=-1, keepdims=True)
    v = w - w.mean(axis=-1, keepdims=True)
    plain = gamma * (v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + lnbook.EPS)) + beta
    assert np.array_equal(whole[5], beta) and np.allclose(whole, plain, rtol=0, atol=1e-12)
    u, s = _kernel.core_parts(z, lnbook.EPS)
    assert np.array_equal(u * gamma + beta, whole) and np.array_equal(u, lnbook.core(z))
    assert np.array_equal(s[..., 0], np.sqrt(lnbook.stats(z)[1] + lnbook.EPS))


def test_the_first_refusal_is_the_first_record(monkeypatch):
    """Two constant records in different blocks with eps = 0: the first is named."""
    monkeypatch.setattr(_kernel, "_BLOCK", 2 * 4)
    z = np.random.default_rng(3).normal(size=(40, 4))
    z[37], z[13] = 5.0, 2.0
    with pytest.raises(ValueError, match=r"eps = 0 with a constant record \(13,\): its "
                       r"variance is exactly 0"):
        lnbook.core(z, eps=0)


@pytest.mark.parametrize(("call", "kind", "message"), [
    (lambda: lnbook.core([1, 2], eps=-1e-3), ValueError, r"eps must be non-negative; got eps "
                                                         r"= -0\.001"),
    (lambda: lnbook.core([1, 2], eps=10**400), ValueError, r"eps must be a finite float64 "
                                                           r"number; got eps = an integer of 401"),
    (lambda: lnbook.stats([[1, 2], [np.inf, 0]]), ValueError, r"z contains NaN or infinite "
                                                              r"entries: z\[1, 0\] = inf"),
    (lambda: lnbook.core(3.0), ValueError, r"got a 0-d value 3\.0"),
    (lambda: lnbook.core(np.zeros((2, 0))), ValueError, r"empty feature axis: shape \(2, 0\)"),
    (lambda: lnbook.layer_norm([1, 2, 3], beta=1.0), ValueError, r"beta must have shape \(3,\)"
                                                                 r" to match d = 3; got shape"),
    (lambda: lnbook.core(np.array([0, 2**62 + 1])), ValueError, r"z\[1\] = 4611686018427387905"),
    (lambda: lnbook.core([2**62 + 1, 0.5]), ValueError, r"beyond 2\*\*53"),
    (lambda: lnbook.core(np.array([1, 2], dtype=np.longdouble) / 3), ValueError,
     r"float64 would round: z\[0\]"),
    (lambda: lnbook.layer_norm([[1, 2], [3, 4]], [2.0]), ValueError, r"gamma must have shape"),
    (lambda: lnbook.input_grad([[1, 2], [3, 4]], [1, 2]), ValueError, r"g must have the shape "
                                                                      r"of z, \(2, 2\)"),
    (lambda: lnbook.amplification([[1, 2]], [[[1, 2]]]), ValueError, r"delta must have the"),
    (lambda: lnbook.core([1, 2], eps=2**53 + 1), ValueError, r"eps = 9007199254740993 would be "
                                                             r"rounded"),
    (lambda: lnbook.core(["1", "2"]), TypeError, r"z must be a real array .*got strings"),
    (lambda: lnbook.core([True, 2.0]), TypeError, r"z must hold numbers, not booleans"),
    (lambda: lnbook.core([1, 2], eps="0.1"), TypeError, r"eps must be a real number"),
    (lambda: lnbook.core(np.ma.array([1.0, 2.0], mask=[0, 1])), TypeError, r"z is a masked "
                                                                           r"array \(np\.ma\)"),
])
def test_bad_input_is_refused_by_name(call, kind, message):
    """Messages name the parameter and show the offending value or shape (rules 5-6)."""
    with pytest.raises(kind, match=message):
        call()
