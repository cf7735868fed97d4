"""The frameworks' conventions (lnbook.frameworks): closed forms and hand examples; the
frameworks themselves are the peers of tests/slow/test_peers.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lnbook
from lnbook.frameworks import CONVENTIONS, convention_layer_norm, layer_norm_variant

RNG_SEED = 20240607


def records(seed: int = RNG_SEED, shape=(3, 5, 16), scale: float = 1.0, offset: float = 0.0):
    return offset + scale * np.random.default_rng(seed).normal(size=shape)


# --- the table ---------------------------------------------------------------------------


def test_table_is_keyed_complete_and_read_only():
    """Each convention names its framework, parameters and source; the defaults themselves are
    witnessed by the framework peers (tests/slow/test_peers.py), not by a hand copy; a caller
    can change neither the table nor an entry."""
    assert set(CONVENTIONS) == {"pytorch", "flax", "keras", "bert", "annotated", "rmsnorm"}
    assert all(c.label and c.params and c.source for c in CONVENTIONS.values())
    with pytest.raises(TypeError):
        CONVENTIONS["mine"] = CONVENTIONS["pytorch"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        CONVENTIONS["pytorch"].eps = 0.1  # type: ignore[misc]


def test_rmsnorm_convention_is_the_uncentered_formula():
    """Without centering the layer is RMSNorm: z / sqrt(mean(z^2) + eps), a numpy formula."""
    z = records(offset=2.0)
    assert np.allclose(layer_norm_variant(z, eps=0.0, center=False),
                       z / np.sqrt((z**2).mean(axis=-1, keepdims=True)), rtol=1e-15, atol=0)
    eps = CONVENTIONS["rmsnorm"].eps
    assert np.allclose(convention_layer_norm(z, convention="rmsnorm"),
                       z / np.sqrt((z**2).mean(axis=-1, keepdims=True) + eps), rtol=1e-15, atol=0)


# --- hand examples -----------------------------------------------------------------------


def test_hand_example_annotated_transformer():
    """(1,2,3,4): unbiased std sqrt(5/3); eps = 0 gives (z - 2.5)/sqrt(5/3)."""
    y = layer_norm_variant([1.0, 2.0, 3.0, 4.0], eps=0, ddof=1, eps_inside=False)
    assert np.allclose(y, np.array([-1.5, -0.5, 0.5, 1.5]) / math.sqrt(5 / 3), rtol=1e-15)
    assert np.allclose(y, [-1.161895, -0.387298, 0.387298, 1.161895], atol=5e-7)


def test_hand_example_eps_outside_vs_inside():
    """(1,2,3), eps = 1/3: inside v / sqrt(2/3 + 1/3) = (-1,0,1); outside v / (sqrt(2/3) + 1/3)."""
    v = np.array([-1.0, 0.0, 1.0])
    assert np.allclose(layer_norm_variant([1, 2, 3], eps=1 / 3), v, rtol=0, atol=1e-15)
    outside = layer_norm_variant([1, 2, 3], eps=1 / 3, eps_inside=False)
    assert np.allclose(outside, v / (math.sqrt(2 / 3) + 1 / 3), rtol=1e-15, atol=0)


def test_hand_example_rmsnorm():
    """RMSNorm of (2,4,6,8): RMS sqrt(30), output ≈ (0.3651, 0.7303, 1.0954, 1.4606)."""
    y = convention_layer_norm([2.0, 4.0, 6.0, 8.0], convention="rmsnorm", eps=0)
    assert np.allclose(y, np.array([2, 4, 6, 8]) / math.sqrt(30), rtol=1e-15)
    assert np.allclose(y, [0.3651, 0.7303, 1.0954, 1.4606], atol=5e-5)


def test_hand_example_keras_eps_is_not_negligible_for_small_records():
    """(1,2,3,4)/100: q = 1.25e-4; Keras's eps = 1e-3 shrinks the core by sqrt(q/(q+eps)) = 1/3."""
    z = np.array([1.0, 2.0, 3.0, 4.0]) / 100
    y = convention_layer_norm(z, convention="keras")
    assert np.allclose(y, lnbook.core(z, eps=0) / 3, rtol=1e-14)


def test_constant_record_maps_to_beta_in_every_convention_with_eps():
    """A constant record has v = 0: every centered convention returns beta; RMSNorm does not."""
    beta = np.array([1.0, -1.0, 2.0])
    for key in ("pytorch", "flax", "keras", "bert", "annotated"):
        assert np.array_equal(convention_layer_norm([5.0, 5.0, 5.0], convention=key, beta=beta),
                              beta), key
    assert np.allclose(convention_layer_norm([5.0, 5.0, 5.0], convention="rmsnorm"), 1.0,
                       rtol=1e-15)


# --- closed forms ------------------------------------------------------------------------


def test_unbiased_divisor_is_a_constant_factor():
    """With eps = 0, dividing by the unbiased std multiplies the core by sqrt((d-1)/d)."""
    rng = np.random.default_rng(3)
    for d in (2, 3, 4, 7, 64, 512):
        z = rng.normal(size=(5, d)) * 3 + 1
        y = layer_norm_variant(z, eps=0, ddof=1)
        assert np.allclose(y, math.sqrt((d - 1) / d) * lnbook.core(z, eps=0), rtol=1e-13)
        # the same with eps outside the root: eps = 0 makes the placement irrelevant
        assert np.allclose(layer_norm_variant(z, eps=0, ddof=1, eps_inside=False), y, rtol=1e-14)


def test_eps_placement_closed_forms_under_scaling():
    """For a z: inside gives a v/sqrt(a^2 q + eps), outside a v/(a sqrt(q) + eps)."""
    z = np.array([1.0, 2.0, 3.0, 4.0])
    v, q = z - 2.5, 1.25
    for a in 10.0 ** np.arange(-8, 3):
        inside = layer_norm_variant(a * z, eps=1e-5)
        outside = layer_norm_variant(a * z, eps=1e-5, eps_inside=False)
        assert np.allclose(inside, a * v / np.sqrt(a * a * q + 1e-5), rtol=1e-12)
        assert np.allclose(outside, a * v / (a * math.sqrt(q) + 1e-5), rtol=1e-12)


def test_eps_outside_slope_at_a_constant_record_is_one_over_eps():
    """Outside the root the Jacobian at a constant record is P/eps, not P/sqrt(eps)."""
    eps = 1e-2
    z = np.full(4, 3.0)
    J_out = lnbook.central_difference_jacobian(
        lambda x: layer_norm_variant(x, eps=eps, eps_inside=False), z, tau=1e-7)
    J_in = lnbook.central_difference_jacobian(lambda x: layer_norm_variant(x, eps=eps), z, tau=1e-7)
    P = lnbook.centering_matrix(4)
    assert np.allclose(J_out, P / eps, rtol=1e-5, atol=1e-6)
    assert np.allclose(J_in, P / math.sqrt(eps), rtol=1e-5, atol=1e-6)


def test_fast_variance_is_the_literal_one_pass_formula():
    """Flax's fast variance is max(0, E[z^2] - E[z]^2), and the output divides by its root."""
    for offset in (0.0, 1e3, 1e6, 1e8):
        z = records(shape=(6, 8), offset=offset)
        mu = z.mean(axis=-1, keepdims=True)
        var = np.maximum(0.0, (z * z).mean(axis=-1, keepdims=True) - mu * mu)
        expected = (z - mu) / np.sqrt(var + 1e-6)
        assert np.array_equal(convention_layer_norm(z, convention="flax"), expected)


def test_fast_variance_agrees_on_centered_data_and_fails_on_offset_data():
    """Near mean 0 the one-pass variance is accurate; at offset 1e8 it is garbage (and clipped).

    lnbook's two-pass core keeps shift invariance; the fast variance loses it.
    """
    z = records(shape=(50, 16))
    assert np.allclose(convention_layer_norm(z, convention="flax"), lnbook.core(z, eps=1e-6),
                       rtol=1e-12)
    shifted = z + 1e8
    fast = convention_layer_norm(shifted, convention="flax")
    two_pass = lnbook.core(shifted, eps=1e-6)
    assert np.allclose(two_pass, lnbook.core(z, eps=1e-6), rtol=1e-6, atol=1e-6)
    assert np.abs(fast - two_pass).max() > 0.1
    # at offset 1e9 some record's one-pass variance goes negative and is clipped to 0:
    # the output is then v / sqrt(eps), a thousand times too large
    huge = z + 1e9
    mu = huge.mean(axis=-1, keepdims=True)
    raw = (huge * huge).mean(axis=-1, keepdims=True) - mu * mu
    assert (raw < 0).any()
    assert np.abs(convention_layer_norm(huge, convention="flax")).max() > 100


# --- bad input ---------------------------------------------------------------------------


def test_bad_input_is_refused_by_name():
    """A ddof that leaves no degree of freedom, a string for an option, an unknown convention,
    eps = 0 at a record of zero spread under each definition of the spread."""
    with pytest.raises(ValueError, match="leaves no degrees of freedom for d = 1"):
        layer_norm_variant([1.0], eps=1e-5, ddof=1)
    with pytest.raises(TypeError, match="eps_inside must be True or False; got 'False'"):
        layer_norm_variant([1.0, 2.0], eps=1e-5, eps_inside="False")
    with pytest.raises(ValueError, match="convention must be one of pytorch, .*; got "
                       "convention = 'jax'"):
        convention_layer_norm([1.0, 2.0], convention="jax")
    with pytest.raises(ValueError, match="eps = 0 with an all-zero record: its mean square"):
        layer_norm_variant([0.0, 0.0], eps=0, center=False)
    with pytest.raises(ValueError, match=r"one-pass variance max\(0, E\[z\^2\] - mu\^2\) "
                       r"is exactly 0"):
        layer_norm_variant([1e9, 1e9 + 1], eps=0, fast_variance=True)
    with pytest.raises(TypeError):
        layer_norm_variant([1.0, 2.0])  # type: ignore[call-arg]  # eps has no default
