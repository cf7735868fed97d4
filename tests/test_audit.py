"""The record audit and the deliberately wrong layer it is built to catch (lnbook._audit)."""

from __future__ import annotations

import numpy as np
import pytest

import lnbook


def test_the_audit_passes_a_per_record_layer_bit_for_bit():
    """Changing one record of a (B, T, d) tensor moves that record's output only: every other
    entry is identical, and the caller's records are left alone even by an f that writes."""
    z = np.random.default_rng(1).normal(size=(2, 5, 8))
    kept = z.copy()

    def careless(x):
        y = lnbook.layer_norm(x)
        x[...] = 0.0
        return y

    moved = lnbook.record_audit(careless, z, (0, 3))
    assert moved[0, 3] > 0 and np.count_nonzero(moved) == 1 and np.array_equal(z, kept)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_the_audit_catches_the_wrong_axis(axis):
    """Statistics over T or over B keep the shape but couple records: the audit sees it."""
    z = np.random.default_rng(2).normal(size=(3, 4, 6))
    wrong = lambda x: lnbook.wrong_axis_layer_norm(x, axis=axis)  # noqa: E731
    assert wrong(z).shape == z.shape
    assert np.count_nonzero(lnbook.record_audit(wrong, z, (1, 2))) > 1


def test_wrong_axis_by_hand():
    """Over the batch axis, [[1, 5], [3, 4]] standardizes each column: (-1, 1) and (1, -1); on
    (B, T, d) with axis=-2 each feature is standardized across the T positions (numpy)."""
    out = lnbook.wrong_axis_layer_norm([[1.0, 5.0], [3.0, 4.0]], axis=0, eps=0)
    assert np.array_equal(out, [[-1.0, 1.0], [1.0, -1.0]])
    z = np.random.default_rng(4).normal(size=(2, 5, 3))
    expected = (z - z.mean(axis=1, keepdims=True)) / np.sqrt(z.var(axis=1, keepdims=True) + 0.1)
    assert np.allclose(lnbook.wrong_axis_layer_norm(z, eps=0.1), expected, rtol=1e-13)
