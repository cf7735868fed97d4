"""The gain and bias figures draw the numbers the chapters state.

Each test reads the bar heights back from the axes and compares them with a computation that
does not call lnbook: the core ``(z - mean) / sqrt(var + eps)`` written out with numpy.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lnbook import plotting  # noqa: E402


def independent_core(z, eps):
    z = np.asarray(z, dtype=float)
    return (z - z.mean()) / np.sqrt(((z - z.mean()) ** 2).mean() + eps)


def heights(container):
    return np.array([bar.get_height() for bar in container])


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_gain_effect_worked_example():
    """z = (1,1,-2), eps = 2: core (1/2, 1/2, -1); gamma = (2,0,-1) gives (1, 0, 1)."""
    ax = plotting.plot_gain_effect()
    core_bars, scaled_bars = ax.containers
    np.testing.assert_allclose(heights(core_bars), [0.5, 0.5, -1.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(heights(scaled_bars), [1.0, 0.0, 1.0], rtol=0, atol=1e-15)


def test_gain_effect_random_record():
    """The scaled bars are gamma_i times the core bars, for any record and gain."""
    rng = np.random.default_rng(7)
    z, gamma = rng.normal(size=5), rng.normal(size=5)
    ax = plotting.plot_gain_effect(z, gamma, eps=0.1)
    u = independent_core(z, 0.1)
    np.testing.assert_allclose(heights(ax.containers[0]), u, rtol=1e-13)
    np.testing.assert_allclose(heights(ax.containers[1]), gamma * u, rtol=1e-13)


def test_bias_shift_constant_record_shows_the_bias():
    """z = (3,3,3): core and gamma ⊙ core are 0, the output is beta, its mean 2/3."""
    beta = np.array([1.0, -1.0, 2.0])
    left, right = plotting.plot_bias_shift(beta=beta)
    u_bars, scaled_bars, y_bars = left.containers
    assert np.array_equal(heights(u_bars), np.zeros(3))
    assert np.array_equal(heights(scaled_bars), np.zeros(3))
    assert np.array_equal(heights(y_bars), beta)
    (mean_line,) = [line for line in left.lines if line.get_linestyle() == "--"]
    np.testing.assert_allclose(mean_line.get_ydata(), 2 / 3, rtol=1e-15)


def test_bias_shift_nonconstant_record():
    """For z = (2,3,4) the three groups are u, gamma ⊙ u and gamma ⊙ u + beta."""
    gamma, beta, eps = np.array([2.0, 0.5, -1.0]), np.array([1.0, -1.0, 2.0]), 1e-5
    _, right = plotting.plot_bias_shift(gamma=gamma, beta=beta, eps=eps)
    u = independent_core([2.0, 3.0, 4.0], eps)
    u_bars, scaled_bars, y_bars = right.containers
    np.testing.assert_allclose(heights(u_bars), u, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(heights(scaled_bars), gamma * u, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(heights(y_bars), gamma * u + beta, rtol=1e-14)
