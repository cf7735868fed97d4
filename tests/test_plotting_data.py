"""The numbers behind the figures (lnbook.figures), checked against independent computations:
closed forms, tiny examples worked by hand, finite differences, a core in plain numpy; none is
read back from a figure or copied from lnbook's own output."""

import math

import numpy as np
import pytest

import lnbook
from lnbook import figures


def plain_core(z, eps):
    """(z - mean) / sqrt(population variance + eps), along the last axis, in plain numpy."""
    z = np.asarray(z, dtype=float)
    v = z - z.mean(axis=-1, keepdims=True)
    return v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps)


def fd_jacobian(z, eps, tau=1e-6):
    """Central-difference Jacobian of plain_core at one record (column j: along e_j)."""
    return np.array([(plain_core(z + e, eps) - plain_core(z - e, eps)) / (2 * tau)
                     for e in tau * np.eye(len(z))]).T


def records(q, d, seed=0):
    """Records of population variance q: a seeded Gaussian record, centered and scaled. The
    core's Jacobian spectrum depends on q and d alone, not on the record's direction."""
    v = np.random.default_rng(seed).normal(size=d)
    v -= v.mean()
    return np.sqrt(np.asarray(q, float))[:, None] * v / np.sqrt(v @ v / d)


def test_response_data_closed_forms():
    """h_eps(t) = t / sqrt(2 t^2/3 + eps); slope by central differences; peak eps^{-1/2}."""
    eps_values = (0.01, 0.1, 1.0)
    data = figures.response_data(eps_values=eps_values)
    t = data["t"]
    assert t[0] == -3 and t[-1] == 3 and t.size == 601
    for k, eps in enumerate(eps_values):
        assert np.allclose(data["h"][k], t / np.sqrt(2 * t**2 / 3 + eps), rtol=1e-13)
        family = np.stack([-t, 0 * t, t], axis=-1)
        assert np.allclose(data["h"][k], plain_core(family, eps)[:, 2], rtol=1e-12)
        tau = 1e-6
        fd = (plain_core(np.stack([-(t + tau), 0 * t, t + tau], -1), eps)[:, 2]
              - plain_core(np.stack([-(t - tau), 0 * t, t - tau], -1), eps)[:, 2]) / (2 * tau)
        assert np.allclose(data["slope"][k], fd, rtol=1e-6)
    assert np.allclose(data["peak"], [10.0, 10 ** 0.5, 1.0], rtol=1e-15)
    assert data["limit"] == math.sqrt(1.5)
    # by hand: eps = 1, t = 3 gives 3 / sqrt(6 + 1)
    h = figures.response_data(eps_values=(1.0,), t=[3.0])["h"][0, 0]
    assert math.isclose(h, 3 / math.sqrt(7), rel_tol=1e-15)


def test_normalized_variance_data_closed_form():
    """(1/d) sum u_i^2 = q / (q + eps), one half at q = eps."""
    data = figures.normalized_variance_data(eps_values=(0.01, 1.0))
    q = data["q"]
    for k, eps in enumerate((0.01, 1.0)):
        assert np.allclose(data["mean_square"][k], q / (q + eps), rtol=1e-13)
    assert data["half"].tolist() == [0.5, 0.5]


def test_jacobian_eigenvalue_data_against_finite_differences():
    """Closed forms (q+eps)^{-1/2}, eps/(q+eps)^{3/2}, 0; samples match a central-difference J."""
    eps, d = 0.1, 4
    data = figures.jacobian_eigenvalues_data(eps=eps, d=d)
    q = data["q"]
    assert np.allclose(data["tangential"], (q + eps) ** -0.5, rtol=1e-13)
    assert np.allclose(data["radial"], eps / (q + eps) ** 1.5, rtol=1e-12)
    assert not data["zero"].any() and data["bound"] == eps**-0.5
    for z, numeric, qs in zip(records(data["sample_q"], d), data["numeric"], data["sample_q"]):
        fd = np.sort(np.linalg.eigvals(fd_jacobian(z, eps)).real)
        assert np.allclose(numeric, fd, atol=1e-6 * eps**-0.5)
        closed = np.sort([0.0, eps / (qs + eps) ** 1.5] + [(qs + eps) ** -0.5] * (d - 2))
        assert np.allclose(numeric, closed, rtol=1e-9, atol=1e-12)


def test_operator_norm_data_against_finite_differences():
    """d = 2 follows the radial eigenvalue, d = 3 the tangential one; below eps^{-1/2}."""
    eps = 0.1
    data = figures.operator_norm_data(eps=eps, dims=(2, 3))
    q = data["q"]
    assert np.allclose(data["norm"][0], eps / (q + eps) ** 1.5, rtol=1e-12)
    assert np.allclose(data["norm"][1], (q + eps) ** -0.5, rtol=1e-12)
    assert data["bound"] == eps**-0.5 and (data["norm"] <= data["bound"]).all()
    for k in (0, 100, 200):
        for row, d in enumerate((2, 3)):
            z = records(q[k : k + 1], d)[0]
            fd = np.linalg.svd(fd_jacobian(z, eps), compute_uv=False).max()
            assert math.isclose(data["norm"][row, k], fd, rel_tol=1e-6)


def test_amplification_data_by_hand():
    """z = (7,7), delta = (1e-3,-1e-3): u(z) = 0, u(z + delta) = delta / sqrt(1e-6 + eps)."""
    data = figures.amplification_data()
    eps = data["eps"]
    assert np.allclose(data["ratio"], (1e-6 + eps) ** -0.5, rtol=1e-6)
    assert np.allclose(data["bound"], eps**-0.5, rtol=1e-15)
    assert (data["ratio"] <= data["bound"]).all()


def test_shift_geometry_data_by_hand():
    """z = (2, 0.5): P z = (0.75, -0.75), the same for every shift."""
    data = figures.shift_geometry_data(z=(2.0, 0.5), shifts=(-1.0, 0.0, 3.0))
    assert data["Pz"].tolist() == [0.75, -0.75]
    assert data["shifted"].tolist() == [[1.0, -0.5], [2.0, 0.5], [5.0, 3.5]]
    for p in data["shifted"]:
        assert np.allclose(p - p.mean(), data["Pz"])


def test_weighted_projection_data_by_hand():
    """z = (4,2), a = (1/4,3/4): a^T z = 5/2, P_a z = z - 5/2 1 = (1.5,-0.5); orthogonal (3,-1)."""
    data = figures.weighted_projection_data(a=(0.25, 0.75), z=(4.0, 2.0))
    assert np.allclose(data["oblique"], (1.5, -0.5), rtol=0, atol=1e-15)
    assert np.allclose(data["orthogonal"], (3.0, -1.0), rtol=0, atol=1e-15)
    a = np.array([0.25, 0.75])
    assert abs(a @ data["direction"]) < 1e-16 and math.isclose(np.hypot(*data["direction"]), 1)
    # issue 33: z = (1.5e308, -1.5e308) gave +-inf for (w^T z) w, whose exact value is z itself
    # (z lies on the line a^T w = 0 for a = (1/2, 1/2)), as is P_a z = z - (a^T z) 1 = z - 0
    huge = figures.weighted_projection_data(a=(0.5, 0.5), z=(1.5e308, -1.5e308))
    assert np.allclose(huge["orthogonal"], (1.5e308, -1.5e308), rtol=1e-15, atol=0)
    assert huge["oblique"].tolist() == [1.5e308, -1.5e308]


def test_record_audit_data_by_hand():
    """Only the changed record moves under layer_norm; its whole row under the wrong axis."""
    data = figures.record_audit_data(shape=(2, 4, 6), record=(1, 2))
    expected = np.zeros((2, 4), bool)
    expected[1, 2] = True
    assert np.array_equal(data["layer_norm"], expected)
    assert np.array_equal(data["wrong_axis"], np.array([[False] * 4, [True] * 4]))
    assert figures.record_audit_data(record=(-1, -2))["record"] == (1, 2)  # where it is drawn


def test_gain_effect_data_worked_example_and_random():
    """z = (1,1,-2), eps = 2: v = (1,1,-2), q = 2, s = 2, u = (1/2,1/2,-1); gamma u = (1,0,1)."""
    data = figures.gain_effect_data(z=(1.0, 1.0, -2.0), gamma=(2.0, 0.0, -1.0), eps=2.0)
    assert data["u"].tolist() == [0.5, 0.5, -1.0]
    assert data["y"].tolist() == [1.0, 0.0, 1.0]
    rng = np.random.default_rng(7)
    z, gamma = rng.normal(size=5), rng.normal(size=5)
    data = figures.gain_effect_data(z=z, gamma=gamma, eps=0.1)
    assert np.allclose(data["u"], plain_core(z, 0.1), rtol=1e-13)
    assert np.allclose(data["y"], gamma * plain_core(z, 0.1), rtol=1e-13)


def test_bias_shift_data():
    """(3,3,3): u = 0 and y = beta, mean 2/3; (2,3,4): y = gamma u + beta with plain numpy."""
    gamma, beta = np.array([2.0, 0.5, -1.0]), np.array([1.0, -1.0, 2.0])
    data = figures.bias_shift_data(z=((3.0, 3.0, 3.0), (2.0, 3.0, 4.0)), gamma=gamma,
                                   beta=beta, eps=1e-5)
    assert not data["u"][0].any() and not data["scaled"][0].any()
    assert data["y"][0].tolist() == beta.tolist() and math.isclose(data["y_mean"][0], 2 / 3)
    u = plain_core([2.0, 3.0, 4.0], 1e-5)
    assert np.allclose(data["u"][1], u, rtol=1e-14, atol=1e-15)
    assert np.allclose(data["scaled"][1], gamma * u, rtol=1e-14, atol=1e-15)
    assert np.allclose(data["y"][1], gamma * u + beta, rtol=1e-14)
    assert np.allclose(data["y_mean"][1], np.mean(gamma * u + beta), rtol=1e-14)


def test_core_bound_data():
    """The extreme records attain sqrt(d - 1); seeded Cauchy records stay below it."""
    dims = (2, 3, 4, 8, 16)
    data = figures.core_bound_data(dims=dims, n=50, seed=3)
    assert np.allclose(data["extreme"], np.sqrt(np.array(dims) - 1.0), rtol=1e-13)
    assert np.allclose(data["bound"], np.sqrt(data["grid"] - 1), rtol=1e-15)
    assert data["grid"][0] == 2 and data["grid"][-1] == 16
    rng = np.random.default_rng(3)
    for d, largest in zip(dims, data["largest"]):
        z = rng.standard_cauchy(size=(50, d))
        assert np.allclose(largest, np.abs(plain_core(z, 0.0)).max(axis=-1), rtol=1e-10)
        assert (largest <= math.sqrt(d - 1) * (1 + 1e-12)).all()


def test_offset_error_data_and_the_errors_recomputed_by_hand():
    """The drawn errors are the worst ulp error against exact_core; x ticks every k-th decade
    from the first offset's, at most max_ticks; y ticks from 0 up."""
    offsets = 10.0 ** np.arange(13)
    data = figures.offset_error_data(offsets, {"e": np.ones(13)})
    assert data["xticks"].tolist() == [1.0, 1e3, 1e6, 1e9, 1e12]
    assert np.array_equal(data["guide"], offsets) and data["limit"] == 4.0
    data = figures.offset_error_data([1e-3, 1e2], {"e": [0.0, 1.0]})
    assert data["xticks"].tolist() == [1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e2]
    for hi in (1e3, 1e9, 1e17, 1e40):
        yticks = figures.offset_error_data([1.0, 2.0], {"e": [0.0, hi]})["yticks"]
        step = np.log10(yticks[2] / yticks[1])  # decades between labels
        assert yticks[0] == 0 and yticks[1] == 1 and len(yticks) <= 6
        assert step == round(step) and np.log10(hi / yticks[-1]) < step

    x = np.random.default_rng(4).standard_normal((3, 6))
    err = lnbook.fp.offset_errors(np.array([1.0, 1e8]), f=plain_core, sigma=2.0, d=6, n=3, seed=4)
    for r, e in zip((1.0, 1e8), err):
        z = 2.0 * (r + x)
        exact = lnbook.exact_core(z)
        by_hand = (np.abs(plain_core(z, 1e-5) - exact).max(axis=-1)
                   / np.spacing(np.abs(exact).max(axis=-1))).max()
        assert e == by_hand
    assert err[1] > 1e5  # the uncorrected mean loses about |mu|/sigma ulps


@pytest.mark.parametrize("key", ["keras", "pytorch", "flax", "bert", "annotated"])
@pytest.mark.parametrize("z", [(1.0, 2.0, 3.0, 4.0), (1e200, -1e200), (1e-170, -1e-170)])
def test_eps_placement_data_closed_forms(key, z):
    """RMS of the output on alpha z: sqrt(q/(q+eps)) inside; sigma/(sigma sqrt(d/(d-ddof)) + eps)
    outside, with q = sigma^2 the variance of the scaled record. Issue 33: for z = (1e200,
    -1e200) the figure's z.var() overflowed (all RMS 0); for (1e-170, -1e-170) it underflowed
    (refused, with a false message)."""
    data = figures.eps_placement_data(z=z, conventions=(key,))
    c, sigma, rms, d = lnbook.frameworks.CONVENTIONS[key], data["sigma"], data["rms"][0], len(z)
    if c.eps_inside:
        expected = np.sqrt(sigma**2 / (sigma**2 + c.eps))
    else:
        expected = sigma / (sigma * math.sqrt(d / (d - c.ddof)) + c.eps)
    np.testing.assert_allclose(rms, expected, rtol=1e-9, atol=1e-12)
    assert rms[0] < 0.01 and math.isclose(rms[-1], math.sqrt((d - c.ddof) / d), rel_tol=1e-4)
    assert data["d"] == d and data["plateaus"] == (1.0, math.sqrt((d - 1) / d))


def test_placement_gradient_data_against_central_differences():
    """||dl/dW2||_F from the loss l = sum(C ⊙ y) by central differences in each entry of W2,
    with lnbook.transformer's forward pass only (d = 3, one seed, depths 1 and 2; fsum)."""
    d, T, eps, tau = 3, 8, 1e-5, 1e-6
    data = figures.placement_gradients_data(depths=(1, 2), d=d, seeds=(5,), L=2, eps=eps)

    def fd_norms(L, placement):
        blocks = lnbook.transformer.init_blocks(L, d, seed=5)
        x = np.random.default_rng(6).normal(size=(T, d))
        C = np.random.default_rng(7).normal(size=(T, d))
        norms = []
        for p in blocks:
            W2 = p["W2"]
            grad = np.empty_like(W2)
            for idx in np.ndindex(W2.shape):
                old = W2[idx]
                values = []
                for step in (tau, -tau):
                    W2[idx] = old + step
                    y = lnbook.transformer.residual_forward(x, blocks, placement=placement, eps=eps)
                    values.append(math.fsum((C * y).ravel()))
                W2[idx] = old
                grad[idx] = (values[0] - values[1]) / (2 * tau)
            norms.append(math.sqrt(math.fsum((grad**2).ravel())))
        return np.array(norms)

    for k, placement in enumerate(data["placements"]):
        profile = fd_norms(2, placement)
        assert np.allclose(data["profile"][k], profile, rtol=1e-6)
        assert np.allclose(data["last"][k], [fd_norms(1, placement)[-1], profile[-1]], rtol=1e-6)
    assert data["labels"] == ("Pre-LN", "Post-LN") and data["block"].tolist() == [1, 2]


def test_placement_gradient_data_averages_seeds_and_guide_by_hand():
    """The mean over two seeds is the mean of the two one-seed norms; the guide halves from
    L = 1 to L = 4 and starts at Pre-LN's first value."""
    kw = {"depths": (1, 4), "d": 4, "L": 3}
    both = figures.placement_gradients_data(seeds=(0, 1), **kw)
    one = [figures.placement_gradients_data(seeds=(s,), **kw) for s in (0, 1)]
    for key in ("profile", "last"):
        assert np.allclose(both[key], (one[0][key] + one[1][key]) / 2, rtol=1e-14)
    assert both["guide"][0] == both["last"][0, 0]
    assert math.isclose(both["guide"][1], both["last"][0, 0] / 2, rel_tol=1e-15)


def test_geometry_picture_data_by_hand():
    """z = (1, 2, 3): v = (-1, 0, 1), q = 2/3; with f_1 = (1, -1, 0)/sqrt 2 and
    f_2 = (1, 1, -2)/sqrt 6 its plane coordinates are (-1/sqrt 2, -3/sqrt 6); u_0 = v/sqrt(2/3)
    and, with eps = 2/3, u_eps = v/sqrt(4/3)."""
    data = figures.geometry_picture_data(z=[[1.0, 2.0, 3.0]], eps=2 / 3, eps_values=(1.0,))
    v = np.array([-(2**-0.5), -3 * 6**-0.5])
    assert np.allclose(data["v"], [v], rtol=1e-15, atol=0)
    assert np.allclose(data["u_0"], [v * 1.5**0.5], rtol=1e-14, atol=0)
    assert np.allclose(data["u_eps"], [v * 0.75**0.5], rtol=1e-14, atol=0)
    # |v|^2 = 2 < |u_0|^2 = 3: the ray is drawn to u_0
    assert np.array_equal(data["ray_ends"], data["u_0"])
    assert data["radius"] == math.sqrt(3)
    # radial map at |v| = 3 with eps = 1: 3 / sqrt(3 + 1) = 1.5
    k = np.flatnonzero(data["norm_v"] == 3.0)
    assert data["profile"][0, k].tolist() == [1.5]


def test_geometry_picture_data_against_plain_numpy():
    """On the default records: coordinates against a basis rebuilt by hand and plain_core;
    every point on the ray of its v; the radial map's closed form; the view holds them all."""
    data = figures.geometry_picture_data(eps=1.0, eps_values=(0.1, 1.0))
    z = data["z"]
    assert z.shape == (12, 3)
    Q = np.array([[1.0, -1.0, 0.0], [1.0, 1.0, -2.0]]) / np.sqrt([[2.0], [6.0]])
    v = z - z.mean(axis=1, keepdims=True)
    assert np.allclose(data["v"], v @ Q.T, rtol=1e-13, atol=1e-13)
    assert np.allclose(data["u_eps"], plain_core(z, 1.0) @ Q.T, rtol=1e-13, atol=1e-13)
    assert np.allclose(data["u_0"], plain_core(z, 0.0) @ Q.T, rtol=1e-13, atol=1e-13)
    for w in (data["u_eps"], data["u_0"], data["ray_ends"]):
        cross = data["v"][:, 0] * w[:, 1] - data["v"][:, 1] * w[:, 0]
        assert np.allclose(cross, 0, atol=1e-12)
        assert (np.sum(data["v"] * w, axis=1) > 0).all()  # same side of the origin
    rho = data["norm_v"]
    for k, eps in enumerate((0.1, 1.0)):
        assert np.allclose(data["profile"][k], rho / np.sqrt(rho**2 / 3 + eps), rtol=1e-14)
    points = np.concatenate([data["v"], data["u_eps"], data["u_0"]])
    assert np.abs(points).max() < data["lim"]
