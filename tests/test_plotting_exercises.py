"""The exercises chapter's figure draws the bound |u_i| <= sqrt(d - 1) and records under it.

The drawn data are read back from the axes and compared with a computation that does not call
lnbook: the core ``(z - mean) / std`` written out with numpy.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lnbook import plotting  # noqa: E402

DIMS = (2, 3, 4, 6, 8, 12, 16)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def lines_by_label(ax):
    lines = ax.get_lines()
    labelled = {line.get_label(): line for line in lines if not line.get_label().startswith("_")}
    return lines, labelled


def test_core_bound_curve_is_sqrt_d_minus_1():
    """The dashed curve is sqrt(d - 1) over the plotted range of d."""
    ax = plotting.plot_core_bound(dims=DIMS)
    _, labelled = lines_by_label(ax)
    bound = labelled["bound √(d−1)"]
    d, y = bound.get_xdata(), bound.get_ydata()
    assert d.min() == 2 and d.max() == 16
    np.testing.assert_allclose(y, np.sqrt(d - 1), rtol=1e-15)


def test_extreme_records_attain_the_bound():
    """The record (d-1, -1, ..., -1) has core entry sqrt(d - 1): the bound is attained."""
    ax = plotting.plot_core_bound(dims=DIMS)
    _, labelled = lines_by_label(ax)
    stars = labelled["(d−1, −1, …, −1)"]
    d = np.asarray(stars.get_xdata(), dtype=float)
    np.testing.assert_array_equal(d, DIMS)
    independent = []
    for k in DIMS:
        z = np.r_[k - 1.0, -np.ones(k - 1)]
        independent.append(np.abs((z - z.mean()) / z.std()).max())
    np.testing.assert_allclose(stars.get_ydata(), independent, rtol=1e-13)
    np.testing.assert_allclose(stars.get_ydata(), np.sqrt(d - 1), rtol=1e-13)


def test_random_records_stay_under_the_bound():
    """Every dot is a seeded record's largest |u_i|, and none exceeds sqrt(d - 1)."""
    n = 50
    ax = plotting.plot_core_bound(dims=DIMS, n_records=n, seed=3)
    dots = [line for line in ax.get_lines() if line.get_marker() == "."]
    assert len(dots) == len(DIMS)
    rng = np.random.default_rng(3)
    for line, d in zip(dots, DIMS):
        z = rng.standard_cauchy(size=(n, d))
        u = (z - z.mean(axis=1, keepdims=True)) / z.std(axis=1, keepdims=True)
        np.testing.assert_array_equal(line.get_xdata(), np.full(n, d))
        np.testing.assert_allclose(line.get_ydata(), np.abs(u).max(axis=1), rtol=1e-10)
        assert (line.get_ydata() <= np.sqrt(d - 1) * (1 + 1e-12)).all()


def test_draws_on_given_axes():
    """With ax given, the figure is drawn there and the same axes are returned."""
    _, ax = plt.subplots()
    assert plotting.plot_core_bound(dims=(2, 4), n_records=5, ax=ax) is ax
