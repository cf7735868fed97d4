"""Figures are guarded by their data: nbval never compares PNGs, so these tests read back
what each plot function drew and compare it with an independent computation."""

from __future__ import annotations

import math

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


def curves(ax):
    """The solid curves of an axes, as (x, y) arrays."""
    return [(np.asarray(l.get_xdata(), float), np.asarray(l.get_ydata(), float))
            for l in ax.lines if l.get_linestyle() == "-" and len(l.get_xdata()) > 2]


def test_import_lnbook_does_not_need_matplotlib():
    """Only lnbook.plotting imports matplotlib."""
    import subprocess
    import sys

    code = "import sys, lnbook; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_response_figure_data():
    """Left: third coordinate of core(-t, 0, t) and dashed ±sqrt(3/2); right: its slope and
    the peaks eps^{-1/2}."""
    left, right = plotting.plot_response(eps_values=(0.01, 1.0))
    for (t, h), eps in zip(curves(left), (0.01, 1.0)):
        family = np.stack([-t, np.zeros_like(t), t], axis=-1)
        assert np.allclose(h, lnbook.core(family, eps=eps)[:, 2], rtol=1e-12)
    dashed = sorted(l.get_ydata()[0] for l in left.lines if l.get_linestyle() == "--")
    assert np.allclose(dashed, [-math.sqrt(1.5), math.sqrt(1.5)])
    for (t, slope), eps in zip(curves(right), (0.01, 1.0)):
        fd = np.gradient(lnbook.core(np.stack([-t, 0 * t, t], -1), eps=eps)[:, 2], t)
        assert np.allclose(slope[5:-5], fd[5:-5], rtol=0.02, atol=0.02 * eps**-0.5)
    peaks = [l.get_ydata()[0] for l in right.lines if l.get_marker() == "o"]
    assert np.allclose(peaks, [10.0, 1.0])


def test_normalized_variance_figure_data():
    """Each curve is the mean square of the core at variance q; dots at (eps, 1/2)."""
    ax = plotting.plot_normalized_variance(eps_values=(0.1,))
    (q, y), = curves(ax)
    records = np.sqrt(q)[:, None] * np.array([-1.0, 1.0])  # variance q
    assert np.allclose(y, (lnbook.core(records, eps=0.1) ** 2).mean(axis=-1), rtol=1e-12)
    (dot,) = [l for l in ax.lines if l.get_marker() == "o"]
    assert (dot.get_xdata()[0], dot.get_ydata()[0]) == (0.1, 0.5)


def test_jacobian_eigenvalue_figure_data():
    """Curves are (q+eps)^{-1/2}, eps/(q+eps)^{3/2} and 0; dots are eigvalsh of J."""
    eps = 0.1
    ax = plotting.plot_jacobian_eigenvalues(eps=eps, d=4)
    (q, tang), (_, rad), (_, zero) = curves(ax)
    assert np.allclose(tang, (q + eps) ** -0.5) and np.allclose(rad, eps / (q + eps) ** 1.5)
    assert not zero.any()
    (dots,) = [l for l in ax.lines if l.get_marker() == "."]
    xs, ys = np.asarray(dots.get_xdata()), np.asarray(dots.get_ydata())
    closed = np.array([[0.0, eps / (x + eps) ** 1.5, (x + eps) ** -0.5] for x in xs])
    assert all(np.isclose(closed[i], ys[i], rtol=1e-8, atol=1e-12).any() for i in range(len(xs)))


def test_operator_norm_figure_data():
    """d = 2 follows the radial eigenvalue, d = 3 the tangential one; all below the bound."""
    eps = 0.1
    ax = plotting.plot_operator_norm(eps=eps, dims=(2, 3))
    (q, two), (_, three) = curves(ax)
    assert np.allclose(two, eps / (q + eps) ** 1.5) and np.allclose(three, (q + eps) ** -0.5)
    bound = [l for l in ax.lines if l.get_linestyle() == "--"][0].get_ydata()[0]
    assert bound == eps**-0.5 and two.max() <= bound and three.max() <= bound


def test_amplification_figure_data():
    """The finite ratio for z = (7,7), h = (1e-3,-1e-3) is (1e-6 + eps)^{-1/2}."""
    ax = plotting.plot_amplification()
    (eps, ratio), = curves(ax)
    assert np.allclose(ratio, (1e-6 + eps) ** -0.5, rtol=1e-6)
    (eps_b, bound), = [(line.get_xdata(), line.get_ydata()) for line in ax.lines
                       if line.get_linestyle() == "--"]
    assert np.allclose(bound, np.asarray(eps_b) ** -0.5) and (ratio <= bound).all()


def test_shift_geometry_figure_data():
    """Every shifted record z + c1 is joined to the same point P z, which sums to 0."""
    z = np.array([2.0, 0.5])
    ax = plotting.plot_shift_geometry(z=z, shifts=(-1.0, 0.0, 3.0))
    (target,) = [l for l in ax.lines if l.get_marker() == "o" and l.get_markersize() == 8]
    Pz = np.array([target.get_xdata()[0], target.get_ydata()[0]])
    assert np.allclose(Pz, lnbook.centering_matrix(2) @ z) and Pz.sum() == 0
    segments = [l for l in ax.lines if l.get_linestyle() == "--"]
    assert len(segments) == 3
    for seg, c in zip(segments, (-1.0, 0.0, 3.0)):
        assert np.allclose(seg.get_xydata(), [z + c, Pz])


def test_weighted_projection_figure_data():
    """x = (4,2), a = (1/4,3/4): oblique projection (1.5,-0.5), orthogonal (3,-1)."""
    ax = plotting.plot_weighted_projection()
    points = {l.get_label(): (l.get_xdata()[0], l.get_ydata()[0]) for l in ax.lines
              if l.get_marker() in ("o", "s")}
    assert points["x"] == (4.0, 2.0)
    assert np.allclose(points["P_a x (along 1)"], (1.5, -0.5))
    assert np.allclose(points["orthogonal projection"], (3.0, -1.0))


def test_record_audit_figure_data():
    """Left (layer_norm): only the changed record moves; right (wrong axis): a whole column."""
    left, right = plotting.plot_record_audit(shape=(2, 4, 6), record=(1, 2))
    good, bad = left.images[0].get_array(), right.images[0].get_array()
    expected = np.zeros((2, 4), bool)
    expected[1, 2] = True
    assert np.array_equal(np.asarray(good), expected)
    assert np.asarray(bad)[1].all() and not np.asarray(bad)[0].any()
