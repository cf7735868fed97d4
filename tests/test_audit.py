"""Tests of the record audit and the wrong-axis layer it catches (lnbook._audit), and of the
central differences that witness the closed forms (lnbook._derivatives)."""

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
    """Over the batch axis, [[1, 5], [3, 4]] standardizes each column: (-1, 1) and (1, -1)."""
    out = lnbook.wrong_axis_layer_norm([[1.0, 5.0], [3.0, 4.0]], axis=0, eps=0)
    assert np.array_equal(out, [[-1.0, 1.0], [1.0, -1.0]])
    # a constant column with eps = 0 is 0/0, refused like any other
    with pytest.raises(ValueError, match=r"eps = 0 with a constant slice along axis 0 \(1,\)"):
        lnbook.wrong_axis_layer_norm([[1.0, 5.0], [3.0, 5.0]], axis=0, eps=0)
    with pytest.raises(ValueError, match=r"axis = 2 is not an axis of z, shape \(2, 2\)"):
        lnbook.wrong_axis_layer_norm([[1.0, 5.0], [3.0, 4.0]], axis=2)


def test_central_difference_of_quadratic_is_exact():
    """For a quadratic, central differences are exact up to rounding: d(x^2)/dx = 2x."""
    fd = lnbook.central_difference_jacobian(lambda x: x**2, [1.0, -3.0], tau=1e-3)
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
        (lambda: lnbook.central_difference_jacobian(np.sin, [1.0], tau=0),
         r"tau must be positive; got tau = 0\.0"),
        (lambda: lnbook.central_difference_jacobian(np.sin, [1.0], tau=np.inf),
         r"tau must be a finite float64 number; got tau = inf"),
        (lambda: lnbook.record_audit(lambda x: x * np.nan, np.ones((2, 3)), (0,)),
         r"f\(z\) contains NaN or infinite entries"),
    ],
)
def test_bad_input_raises(call, message):
    """Misuse gets a ValueError that names the problem."""
    with pytest.raises(ValueError, match=message):
        call()


def test_wrong_types_raise_type_error():
    """An f that is not callable, a seed that is not an integer: TypeError."""
    with pytest.raises(TypeError, match=r"f must be callable"):
        lnbook.record_audit(np.ones(3), np.ones((2, 3)), (0,))
    with pytest.raises(TypeError, match=r"seed must be an integer; got 0\.5"):
        lnbook.record_audit(lnbook.layer_norm, np.ones((2, 3)), (0,), seed=0.5)
    with pytest.raises(TypeError, match=r"f must be callable"):
        lnbook.central_difference_jacobian("sin", [1.0])
