"""The floating-point chapter's figure draws the errors the chapter tabulates.

nbval never compares images, so the test reads the lines back from the axes and compares them
with the errors computed by lnbook.offset_errors and, independently, by exact_core itself.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import lnbook  # noqa: E402
from lnbook import plotting  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def naive_core(z, eps):
    """Two passes without lnbook's correction of the mean."""
    v = z - z.mean(axis=-1, keepdims=True)
    return v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps)


def test_offset_error_figure_data():
    """One marked line per series with the computed errors, the guide |mu|/sigma, 4 ulp."""
    offsets = 10.0 ** np.arange(0, 13, 2)
    errors = {"lnbook.core, σ = 1": lnbook.offset_errors(offsets, d=8, n=2),
              "naive two-pass, σ = 1": lnbook.offset_errors(offsets, naive_core, d=8, n=2)}
    ax = plotting.plot_offset_error(offsets, errors)
    drawn = {l.get_label(): (np.asarray(l.get_xdata()), np.asarray(l.get_ydata()))
             for l in ax.lines}
    for label, err in errors.items():
        x, y = drawn[label]
        assert np.array_equal(x, offsets) and np.array_equal(y, err)
    x, y = drawn["|μ|/σ"]
    assert np.array_equal(x, offsets) and np.array_equal(y, offsets)
    assert np.allclose(drawn["4 ulp"][1], 4.0)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "symlog"
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == list(errors)


def test_offset_errors_recomputed_by_hand():
    """The drawn numbers are the worst ulp error of the core against exact_core, per offset."""
    offsets = np.array([1.0, 1e8])
    err = lnbook.offset_errors(offsets, naive_core, spread=2.0, d=6, n=3, seed=4)
    x = np.random.default_rng(4).standard_normal((3, 6))
    for r, e in zip(offsets, err):
        z = 2.0 * (r + x)
        exact = lnbook.exact_core(z)
        by_hand = (np.abs(naive_core(z, 1e-5) - exact).max(axis=-1)
                   / np.spacing(np.abs(exact).max(axis=-1))).max()
        assert e == by_hand
    assert err[1] > 1e5  # the naive mean loses about |mu|/sigma ulps


def test_offset_error_draws_on_given_axes():
    """With ax given, the function draws there and returns it."""
    _, ax = plt.subplots()
    assert plotting.plot_offset_error([1.0, 10.0], {"a": [0.0, 1.0]}, ax=ax) is ax
