"""Tests of lnbook.audit: the record audit, the wrong-axis layer, central differences."""

from __future__ import annotations

import numpy as np
import pytest

import lnbook


def test_audit_passes_layer_norm_bit_for_bit():
    """Only the changed record moves; every other record's output is identical."""
    z = np.random.default_rng(1).normal(size=(2, 5, 8))
    moved = lnbook.record_audit(lnbook.layer_norm, z, (0, 3))
    assert moved[0, 3] > 0
    assert np.count_nonzero(moved) == 1


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_audit_catches_wrong_axis(axis):
    """Statistics over T or over B keep the shape but couple records: the audit sees it."""
    z = np.random.default_rng(2).normal(size=(3, 4, 6))
    wrong = lambda x: lnbook.wrong_axis_layer_norm(x, axis=axis)  # noqa: E731
    assert wrong(z).shape == z.shape
    moved = lnbook.record_audit(wrong, z, (1, 2))
    assert np.count_nonzero(moved) > 1


def test_wrong_axis_by_hand():
    """Over the batch axis, [[1, 5], [3, 5]] standardizes each column: (-1, 1) and (0, 0)."""
    out = lnbook.wrong_axis_layer_norm([[1.0, 5.0], [3.0, 5.0]], axis=0, eps=0)
    assert np.array_equal(out, [[-1.0, 0.0], [1.0, 0.0]])


def test_central_difference_of_quadratic_is_exact():
    """For a quadratic, central differences are exact up to rounding: d(x^2)/dx = 2x."""
    fd = lnbook.central_difference_jacobian(lambda x: x**2, [1.0, -3.0], h=1e-3)
    assert np.allclose(fd, np.diag([2.0, -6.0]), atol=1e-9)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lnbook.record_audit(lnbook.layer_norm, [1.0, 2.0], (0,)), r"several records"),
        (lambda: lnbook.record_audit(lnbook.layer_norm, np.ones((2, 3)), (5,)),
         r"record must index"),
        (lambda: lnbook.record_audit(lambda x: x[0], np.ones((2, 3)), (0,)),
         r"must keep the shape"),
        (lambda: lnbook.central_difference_jacobian(np.sin, [[1.0]]),
         r"one record of shape \(d,\)"),
        (lambda: lnbook.central_difference_jacobian(np.sin, [1.0], h=0),
         r"h must be a positive, finite step"),
        (lambda: lnbook.central_difference_jacobian(np.sin, [1.0], h=np.inf), r"h = inf"),
        (lambda: lnbook.record_audit(lambda x: x * np.nan, np.ones((2, 3)), (0,)),
         r"output is not finite"),
    ],
)
def test_bad_input_raises(call, message):
    """Misuse gets a ValueError that names the problem."""
    with pytest.raises(ValueError, match=message):
        call()
