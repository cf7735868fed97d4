"""The frameworks chapter's figure: the data drawn equals the closed forms.

Images are not compared; the curves are read back from the axes and checked.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lnbook import CONVENTIONS, plotting  # noqa: E402


def test_eps_placement_curves_follow_the_closed_forms():
    """RMS of the output on a z: sqrt(q/(q+eps)) inside; sqrt(q)/(sqrt(q d/(d-1)) + eps) outside.

    Here q = sigma^2 is the variance of the scaled record, sigma the abscissa.
    """
    keys = ("keras", "pytorch", "flax", "bert", "annotated")
    ax = plotting.plot_eps_placement(keys=keys)
    try:
        lines = [line for line in ax.get_lines() if line.get_label() and
                 not line.get_label().startswith("_")]
        assert len(lines) == len(keys)
        d = 4
        for line, key in zip(lines, keys):
            c = CONVENTIONS[key]
            sigma, rms = (np.asarray(a, dtype=float) for a in line.get_data())
            assert c.label in line.get_label()
            assert sigma.min() <= 1e-8 and sigma.max() >= 1.0
            if c.eps_inside:
                expected = np.sqrt(sigma**2 / (sigma**2 + c.eps))
            else:
                expected = sigma / (sigma * math.sqrt(d / (d - c.ddof)) + c.eps)
            # the flax curve uses the one-pass variance; at offset ratio 2.2 it is accurate
            np.testing.assert_allclose(rms, expected, rtol=1e-9, atol=1e-12)
            # every curve starts near 0 and ends at its plateau
            assert rms[0] < 0.01
            assert math.isclose(rms[-1], math.sqrt((d - c.ddof) / d), rel_tol=1e-4)
        # reference lines: 1 and sqrt((d-1)/d)
        levels = sorted(line.get_ydata()[0] for line in ax.get_lines()
                        if line.get_label().startswith("_"))
        np.testing.assert_allclose(levels, [math.sqrt(3 / 4), 1.0], rtol=1e-15)
    finally:
        plt.close(ax.figure)


def test_eps_placement_midpoints():
    """Inside, RMS = 1/sqrt(2) where sigma^2 = eps; outside (divisor d), 1/2 where sigma = eps."""
    ax = plotting.plot_eps_placement(z=(-1.0, 1.0), keys=("bert",))
    try:
        sigma, rms = (np.asarray(a, dtype=float) for a in ax.get_lines()[0].get_data())
        k = int(np.argmin(np.abs(sigma - 1e-6)))
        assert math.isclose(sigma[k], 1e-6, rel_tol=1e-9)
        assert math.isclose(rms[k], 1 / math.sqrt(2), rel_tol=1e-9)
    finally:
        plt.close(ax.figure)
