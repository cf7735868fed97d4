"""Each plot_* draws exactly the arrays of its data function, in the book's style, for reading.

The numbers themselves are checked in tests/test_plotting_data.py against independent
computations; here we check only that what is drawn is that data (array equality), that the
function returns its Axes, and the reading rules: the style's palette, sizes and background,
mathtext labels, legends outside the data, few tick labels, panels stacked vertically, and a
PNG at twice the display resolution.
"""

from __future__ import annotations

import base64
import inspect
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from common import ROOT  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

import lnbook  # noqa: E402
from lnbook import figures, plotting  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


OFFSETS = 10.0 ** np.arange(0, 13, 2)
ERRORS = {r"lnbook.core, $\sigma = 1$": np.ones(OFFSETS.size),
          r"naive two-pass, $\sigma = 1$": OFFSETS * 0.7}

def race(name, rounds, comparison="<=", bound=1.0):
    return {"name": name, "result": {"per round": rounds, "median": float(np.median(rounds))},
            "target": {"comparison": comparison, "bound": bound}}


RESULTS = {"results": {"a": [race("a, 1 thread", [0.8, 0.9, 1.3]),
                             race("a, 2 threads", [1.1, 1.2, 1.4])],
                       "b": race("b", [300.0, 450.0, 500.0], ">=", 100.0),
                       "accuracy": {"name": "accuracy", "worst": {"lnbook": 1.0}}}}

# Every figure as a chapter calls it (see book/*.ipynb), returning its list of Axes.
FIGURES = {
    "response": lambda: list(plotting.plot_response()),
    "normalized_variance": lambda: [plotting.plot_normalized_variance()],
    "jacobian_eigenvalues": lambda: [plotting.plot_jacobian_eigenvalues(eps=0.1, d=4)],
    "operator_norm": lambda: [plotting.plot_operator_norm(eps=0.1, dims=(2, 3))],
    "amplification": lambda: [plotting.plot_amplification(z=(7.0, 7.0), delta=(1e-3, -1e-3))],
    "shift_geometry": lambda: [plotting.plot_shift_geometry()],
    "weighted_projection": lambda: [plotting.plot_weighted_projection(a=(0.25, 0.75),
                                                                      z=(4.0, 2.0))],
    "record_audit": lambda: list(plotting.plot_record_audit(shape=(2, 4, 6), record=(1, 2))),
    "gain_effect": lambda: [plotting.plot_gain_effect(z=(1.0, 1.0, -2.0),
                                                      gamma=(2.0, 0.0, -1.0), eps=2.0)],
    "bias_shift": lambda: list(plotting.plot_bias_shift(z=((3.0, 3.0, 3.0), (2.0, 3.0, 4.0)),
                                                        gamma=(2.0, 0.5, -1.0),
                                                        beta=(1.0, -1.0, 2.0))),
    "core_bound": lambda: [plotting.plot_core_bound()],
    "offset_error": lambda: [plotting.plot_offset_error(OFFSETS, ERRORS)],
    "eps_placement": lambda: [plotting.plot_eps_placement()],
    "benchmark_ratios": lambda: [plotting.plot_benchmark_ratios(RESULTS)],
    "placement_gradients": lambda: list(plotting.plot_placement_gradients(
        depths=(2, 4, 8), d=8, seeds=(0, 1), L=4, eps=1e-5)),
    "geometry_picture": lambda: list(plotting.plot_geometry_picture(eps=1.0,
                                                                    eps_values=(0.1, 1.0))),
}


def xy(line):
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def labelled(ax):
    return {line.get_label(): line for line in ax.lines if not line.get_label().startswith("_")}


def inside(x, lo, hi):
    """lo <= x <= hi, up to rounding at either end (relative, for log axes)."""
    return (lo <= x or np.isclose(x, lo, rtol=1e-9, atol=0)) and (
        x <= hi or np.isclose(x, hi, rtol=1e-9, atol=0))


def test_import_lnbook_does_not_need_matplotlib():
    code = "import sys, lnbook; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- drawn data == data function ----------------------------------------------------------


def test_response_draws_its_data():
    top, bottom = plotting.plot_response(eps_values=(0.01, 1.0))
    data = figures.response_data(eps_values=(0.01, 1.0))
    curves = [line for line in top.lines if line.get_linestyle() == "-"]
    for k, line in enumerate(curves):
        assert np.array_equal(line.get_ydata(), data["h"][k])
    slopes = [line for line in bottom.lines if line.get_linestyle() == "-"]
    for k, line in enumerate(slopes):
        assert np.array_equal(line.get_ydata(), data["slope"][k])
    peaks = [line.get_ydata()[0] for line in bottom.lines if line.get_marker() == "o"]
    assert peaks == data["peak"].tolist()
    dashed = sorted(line.get_ydata()[0] for line in top.lines if line.get_linestyle() == "--")
    assert dashed == [-data["limit"], data["limit"]]


def test_normalized_variance_draws_its_data():
    ax = plotting.plot_normalized_variance(eps_values=(0.1,))
    data = figures.normalized_variance_data(eps_values=(0.1,))
    (curve,) = labelled(ax).values()
    assert np.array_equal(curve.get_xdata(), data["q"])
    assert np.array_equal(curve.get_ydata(), data["mean_square"][0])
    (dot,) = [line for line in ax.lines if line.get_marker() == "o"]
    assert xy(dot) == ([0.1], [0.5])


def test_jacobian_eigenvalues_draw_their_data():
    ax = plotting.plot_jacobian_eigenvalues(eps=0.1, d=4)
    data = figures.jacobian_eigenvalues_data(eps=0.1, d=4)
    tan, rad, zero, dots, bound = ax.lines
    assert np.array_equal(tan.get_ydata(), data["tangential"])
    assert np.array_equal(rad.get_ydata(), data["radial"])
    assert np.array_equal(zero.get_ydata(), data["zero"])
    assert np.array_equal(dots.get_ydata(), data["numeric"].ravel())
    assert bound.get_ydata()[0] == data["bound"]


def test_operator_norm_draws_its_data():
    ax = plotting.plot_operator_norm(eps=0.1, dims=(2, 3))
    data = figures.operator_norm_data(eps=0.1, dims=(2, 3))
    two, three, bound = ax.lines
    assert np.array_equal(two.get_ydata(), data["norm"][0])
    assert np.array_equal(three.get_ydata(), data["norm"][1])
    assert bound.get_ydata()[0] == data["bound"]


def test_amplification_draws_its_data():
    ax = plotting.plot_amplification()
    data = figures.amplification_data()
    ratio, bound = ax.lines
    assert np.array_equal(ratio.get_xdata(), data["eps"])
    assert np.array_equal(ratio.get_ydata(), data["ratio"])
    assert np.array_equal(bound.get_ydata(), data["bound"])


def test_shift_geometry_draws_its_data():
    ax = plotting.plot_shift_geometry(z=(2.0, 0.5), shifts=(-1.0, 0.0, 3.0))
    data = figures.shift_geometry_data(z=(2.0, 0.5), shifts=(-1.0, 0.0, 3.0))
    segments = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(segments) == 3
    for seg, p in zip(segments, data["shifted"]):
        assert np.array_equal(seg.get_xydata(), [p, data["Pz"]])
    (target,) = [line for line in ax.lines if line.get_markersize() == 9]
    assert np.array_equal(target.get_xydata()[0], data["Pz"])


def test_weighted_projection_draws_its_data():
    ax = plotting.plot_weighted_projection()
    data = figures.weighted_projection_data()
    points = {line.get_label(): line.get_xydata()[0] for line in ax.lines
              if line.get_marker() in ("o", "s")}
    assert np.array_equal(points["record $z$"], data["z"])
    assert np.array_equal(points[r"$P_a z$ (along $\mathbf{1}$)"], data["oblique"])
    assert np.array_equal(points["orthogonal projection"], data["orthogonal"])


def test_record_audit_draws_its_data():
    top, bottom = plotting.plot_record_audit(shape=(2, 4, 6), record=(1, 2))
    data = figures.record_audit_data(shape=(2, 4, 6), record=(1, 2))
    assert np.array_equal(np.asarray(top.images[0].get_array()), data["layer_norm"])
    assert np.array_equal(np.asarray(bottom.images[0].get_array()), data["wrong_axis"])


def test_gain_effect_draws_its_data():
    ax = plotting.plot_gain_effect()
    data = figures.gain_effect_data()
    u_bars, y_bars = ax.containers
    assert [b.get_height() for b in u_bars] == data["u"].tolist()
    assert [b.get_height() for b in y_bars] == data["y"].tolist()


def test_bias_shift_draws_its_data():
    axes = plotting.plot_bias_shift()
    data = figures.bias_shift_data()
    assert len(axes) == len(data["z"]) == 2
    for k, ax in enumerate(axes):
        for bars, key in zip(ax.containers, ("u", "scaled", "y")):
            assert [b.get_height() for b in bars] == data[key][k].tolist()
        (mean,) = [line for line in ax.lines if line.get_linestyle() == "--"]
        assert mean.get_ydata()[0] == data["y_mean"][k]


def test_core_bound_draws_its_data():
    ax = plotting.plot_core_bound(dims=(2, 4, 8), n=20)
    data = figures.core_bound_data(dims=(2, 4, 8), n=20)
    dots = [line for line in ax.lines if line.get_marker() == "."]
    for line, largest in zip(dots, data["largest"]):
        assert np.array_equal(line.get_ydata(), largest)
    (stars,) = [line for line in ax.lines if line.get_marker() == "*"]
    assert np.array_equal(stars.get_ydata(), data["extreme"])
    (bound,) = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert np.array_equal(bound.get_ydata(), data["bound"])


def test_offset_error_draws_its_data():
    ax = plotting.plot_offset_error(OFFSETS, ERRORS)
    data = figures.offset_error_data(OFFSETS, ERRORS)
    lines = labelled(ax)
    for label, err in data["errors"].items():
        assert np.array_equal(lines[label].get_ydata(), err)
    assert np.array_equal(lines[r"$|\mu|/\sigma$"].get_ydata(), data["guide"])
    assert ax.get_xscale() == "log" and ax.get_yscale() == "symlog"
    assert ax.get_xticks().tolist() == data["xticks"].tolist()


def test_eps_placement_draws_its_data():
    keys = ("keras", "bert")
    ax = plotting.plot_eps_placement(conventions=keys)
    data = figures.eps_placement_data(conventions=keys)
    curves = [line for line in ax.lines if line.get_linestyle() == "-"]
    assert len(curves) == 2
    for line, rms in zip(curves, data["rms"]):
        assert np.array_equal(line.get_ydata(), rms)
    legend = plotting_legend_texts(ax)
    assert all(lnbook.frameworks.CONVENTIONS[k].label in t for k, t in zip(keys, legend))


def test_benchmark_ratios_draw_their_data():
    ax = plotting.plot_benchmark_ratios(RESULTS)
    data = figures.benchmark_ratios_data(RESULTS)
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    for line, rounds in zip(dots, data["rounds"]):
        assert np.array_equal(line.get_xdata(), rounds)
    (median,) = [line for line in ax.lines if line.get_marker() == "|"]
    assert np.array_equal(median.get_xdata(), data["median"])
    names = [t.get_text() for t in ax.texts]
    assert names == ["a, 1 thread: met", "a, 2 threads: not met", "b: met"]


def test_placement_gradients_draw_their_data():
    kw = {"depths": (2, 4, 8), "d": 8, "seeds": (0, 1), "L": 4, "eps": 1e-5}
    top, bottom = plotting.plot_placement_gradients(**kw)
    data = figures.placement_gradients_data(**kw)
    assert top.figure is bottom.figure
    assert len(top.lines) == 2 and len(bottom.lines) == 3
    for k, label in enumerate(data["labels"]):
        assert top.lines[k].get_label() == bottom.lines[k].get_label() == label
        assert np.array_equal(top.lines[k].get_xdata(), data["block"])
        assert np.array_equal(top.lines[k].get_ydata(), data["profile"][k])
        assert np.array_equal(bottom.lines[k].get_xdata(), data["depths"])
        assert np.array_equal(bottom.lines[k].get_ydata(), data["last"][k])
    guide = bottom.lines[2]
    assert guide.get_linestyle() == ":" and np.array_equal(guide.get_ydata(), data["guide"])
    assert bottom.get_xscale() == bottom.get_yscale() == "log"
    assert bottom.get_xticks().tolist() == [2, 4, 8]
    assert plotting_legend_texts(top) == ["Pre-LN", "Post-LN", r"$\propto L^{-1/2}$"]


def test_geometry_picture_draws_its_data():
    top, bottom = plotting.plot_geometry_picture(eps=1.0, eps_values=(0.1, 1.0))
    data = figures.geometry_picture_data(z=None, eps=1.0, eps_values=(0.1, 1.0))
    v, u_eps, u_0 = (np.asarray(c.get_offsets()) for c in top.collections)
    assert np.array_equal(v, data["v"]) and v.shape == (12, 2)  # geometry.ipynb asserts 12
    assert np.array_equal(u_eps, data["u_eps"]) and np.array_equal(u_0, data["u_0"])
    rays = [line for line in top.lines if line.get_linestyle() == "-"]
    assert [line.get_xydata()[1].tolist() for line in rays] == data["ray_ends"].tolist()
    (circle,) = [line for line in top.lines if line.get_linestyle() == "--"]
    assert np.allclose(np.hypot(*circle.get_xydata().T), data["radius"], rtol=1e-15)
    assert top.get_aspect() == 1.0
    curves = [line for line in bottom.lines if line.get_linestyle() == "-"]
    for line, profile in zip(curves, data["profile"], strict=True):
        assert np.array_equal(line.get_xdata(), data["norm_v"])
        assert np.array_equal(line.get_ydata(), profile)
    # eps = 1 has the colour of the u_eps dots in the top panel
    assert to_hex(curves[1].get_color()) == to_hex(top.collections[1].get_facecolor()[0])
    (limit,) = [line for line in bottom.lines if line.get_linestyle() == "--"]
    assert limit.get_ydata()[0] == data["radius"]
    assert len(plotting_legend_texts(top)) == 6


def plotting_legend_texts(ax):
    legends = ax.figure.legends or [ax.get_legend()]
    return [t.get_text() for lg in legends for t in lg.get_texts()]


def test_draws_on_given_axes():
    """With ax (or axes) given, the function draws there and returns them; legend beside."""
    fig, ax = plt.subplots()
    assert plotting.plot_core_bound(dims=(2, 4), n=5, ax=ax) is ax
    assert ax.get_legend() is not None
    fig, (a, b) = plt.subplots(2)
    assert plotting.plot_response(axes=(a, b)) == (a, b)
    _, (a, b) = plt.subplots(2)
    assert plotting.plot_geometry_picture(axes=(a, b)) == (a, b)
    assert a.get_legend() is not None


# --- the reading rules --------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_reading_rules(name):
    axes = FIGURES[name]()
    assert all(isinstance(ax, Axes) for ax in axes)
    fig = axes[0].figure
    assert isinstance(fig, plotting.BookFigure)
    # the layout is settled: two renders give the same image size
    sizes = []
    for _ in range(2):
        png = base64.b64decode(fig._repr_mimebundle_()[0]["image/png"])
        sizes.append(png[16:24])
    assert sizes[0] == sizes[1], name
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # background: opaque white, a light card on a dark page
    assert to_hex(fig.get_facecolor()) == "#ffffff"
    # panels stacked vertically, at the style's width
    assert fig.get_figwidth() == plotting.WIDTH
    centers = [ax.get_position().x0 for ax in axes]
    assert np.allclose(centers, centers[0], atol=0.02)
    # legends outside every axes
    legends = fig.legends or [ax.get_legend() for ax in axes if ax.get_legend()]
    assert legends
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), name
    for ax in axes:
        # few labelled ticks on every axis, in the style's size
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            shown = [t for t in axis.get_major_ticks()
                     if t.label1.get_visible() and t.label1.get_text()
                     and inside(t.get_loc(), lo, hi)]
            assert len(shown) <= plotting.MAX_TICKS, (name, [t.label1.get_text() for t in shown])
            assert all(t.label1.get_fontsize() >= 11 for t in shown)
        # labels: typeset math, no ASCII pseudo-math
        for text in (ax.get_xlabel(), ax.get_ylabel(), ax.get_title(loc="left"),
                     ax.get_title()):
            outside_math = "".join(text.split("$")[0::2])
            for pseudo in ("^", "ε", "σ", "μ", "Σ", "√", "‖", "γ", "⊙", "₂", "²"):
                assert pseudo not in outside_math, (name, text)
            # a one-letter symbol with a subscript (u_i, h_ε) outside math; not layer_norm
            assert not re.search(r"(?<![A-Za-z])[A-Za-z]_\w", outside_math), (name, text)
        assert ax.yaxis.label.get_fontsize() >= 12 or not ax.get_ylabel()
    # colours of data lines from the palette (guides are grey, markers may be black)
    palette = {c.lower() for c in plotting.PALETTE} | {"#555555", "#888888", "#222222",
                                                        "#000000", "#333333"}
    for ax in axes:
        for line in ax.lines:
            assert to_hex(line.get_color()) in palette, (name, line.get_label())


def test_png_is_twice_the_display_size():
    ax = plotting.plot_operator_norm()
    bundle, metadata = ax.figure._repr_mimebundle_()
    png = base64.b64decode(bundle["image/png"])
    width = int.from_bytes(png[16:20], "big")
    assert abs(2 * metadata["image/png"]["width"] - width) <= 1
    assert 400 <= metadata["image/png"]["width"] <= 600
    # IPython's inline backend renders a figure at its own dpi: twice the display's too
    assert ax.figure.dpi == 2 * plotting.DISPLAY_DPI


def test_style_is_one_dict_and_leaves_global_state_alone():
    before = dict(plt.rcParams)
    plotting.plot_normalized_variance()
    assert dict(plt.rcParams) == before
    assert plotting.STYLE["axes.prop_cycle"].by_key()["color"] == list(plotting.PALETTE)
    assert "#F0E442" not in plotting.PALETTE  # Okabe-Ito yellow, too pale on white


# --- drawing given data (rule 4 of book/api.md) --------------------------------------------

# parameters of each figure, small enough to draw twice
SMALL = {
    "response": {"eps_values": (0.1, 1.0), "t": [-1.0, 0.0, 2.0]},
    "normalized_variance": {"eps_values": (0.1,), "d": 4},
    "jacobian_eigenvalues": {"eps": 0.3, "d": 3},
    "operator_norm": {"eps": 0.3, "dims": (2, 4)},
    "amplification": {"z": (1.0, 2.0), "delta": (1e-2, 0.0)},
    "shift_geometry": {"z": (1.0, 0.0), "shifts": (0.0, 1.0)},
    "weighted_projection": {"a": (0.5, 0.5), "z": (1.0, 3.0)},
    "record_audit": {"shape": (2, 3, 4), "record": (0, 1)},
    "gain_effect": {"z": (1.0, 2.0, 4.0), "gamma": (1.0, -1.0, 0.5), "eps": 0.1},
    "bias_shift": {"z": ((1.0, 2.0, 3.0),), "gamma": (1.0, 1.0, 2.0), "beta": (0.0, 1.0, 0.0)},
    "core_bound": {"dims": (2, 3), "n": 4, "seed": 1},
    "offset_error": {"offsets": OFFSETS, "errors": ERRORS, "max_ticks": 4},
    "eps_placement": {"z": (1.0, 3.0, 4.0), "conventions": ("pytorch", "annotated")},
    "benchmark_ratios": {"results": RESULTS},
    "placement_gradients": {"depths": (1, 2), "d": 4, "seeds": (0,), "L": 2},
    "geometry_picture": {"z": [[1.0, 2.0, 4.0], [0.0, 1.0, -1.0]], "eps": 0.5,
                         "eps_values": (0.5,)},
}


def drawn(axes):
    """What a figure shows, artist by artist: lines, points, bars, images, texts."""
    axes = [axes] if isinstance(axes, Axes) else list(axes)
    out = []
    for ax in axes:
        out.append([ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel()])
        out += [np.asarray(line.get_xydata()).tolist() for line in ax.lines]
        out += [np.asarray(c.get_offsets()).tolist() for c in ax.collections]
        out += [[bar.get_height() for bar in c] for c in ax.containers]
        out += [np.asarray(im.get_array()).tolist() for im in ax.images]
        out += [t.get_text() for t in ax.texts]
    return out


def test_small_parameters_cover_every_figure():
    assert set(SMALL) == {n.removeprefix("plot_") for n in plotting.__all__
                          if n.startswith("plot_")}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_plot_draws_the_data_it_is_given(name):
    """plot_X(data=X_data(**p)) draws exactly what plot_X(**p) draws. The parameters p are not
    X_data's defaults (or X_data has required ones), so a plot that recomputed its data from
    its own defaults instead of drawing the given dict would fail."""
    plot, data_fn = getattr(plotting, f"plot_{name}"), getattr(figures, f"{name}_data")
    kwargs = SMALL[name]
    defaults = {k: p.default for k, p in inspect.signature(data_fn).parameters.items()}
    assert any(defaults[k] is inspect.Parameter.empty or repr(defaults[k]) != repr(v)
               for k, v in kwargs.items())
    assert drawn(plot(**kwargs)) == drawn(plot(data=data_fn(**kwargs)))


@pytest.mark.parametrize("name", sorted(SMALL))
def test_data_with_parameters_is_a_type_error(name):
    """Given data, a parameter of X_data besides is refused with a TypeError naming both."""
    plot, data_fn = getattr(plotting, f"plot_{name}"), getattr(figures, f"{name}_data")
    kwargs = SMALL[name]
    first = next(iter(kwargs))
    with pytest.raises(TypeError, match=rf"plot_{name}: pass either data or the parameters of "
                                        rf"figures\.{name}_data, not both; got data and {first}"):
        plot(data=data_fn(**kwargs), **{first: kwargs[first]})


def test_bad_data_and_axes_are_refused():
    """data must be X_data's dict, ax one Axes, axes a sequence of the figure's panels."""
    with pytest.raises(TypeError, match=r"plot_core_bound: data must be the dict"):
        plotting.plot_core_bound(data=[1, 2])
    with pytest.raises(ValueError, match=r"plot_core_bound: data must hold the entries that "
                                         r"figures\.core_bound_data returns; it lacks 'dims'"):
        plotting.plot_core_bound(data={})
    with pytest.raises(TypeError, match=r"plot_core_bound: ax must be a matplotlib Axes; got int"):
        plotting.plot_core_bound(ax=3)
    with pytest.raises(TypeError, match=r"plot_response: axes must be a sequence"):
        plotting.plot_response(axes=plt.subplots()[1])
    with pytest.raises(ValueError, match=r"axes must hold 2 matplotlib Axes for this figure"):
        plotting.plot_response(axes=plt.subplots(3)[1])
    with pytest.raises(TypeError, match=r"plot_response: .*positional"):
        plotting.plot_response((0.1,))


# --- the contract of every plot function (book/api.md, "Exceptions") ------------------------


@pytest.mark.parametrize("name", sorted(SMALL))
def test_contract_of_every_plot_function(name):
    """Under np.errstate(all="raise"), with one argument replaced by a hostile value of its kind
    (the pools of tests/test_contract.py; also for data, ax and axes), plot_X returns its Axes
    or raises a TypeError/ValueError naming one of its parameters."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from test_contract import HOSTILE, kind_of, names_a_parameter

    plot = getattr(plotting, f"plot_{name}")
    params = list(inspect.signature(plot).parameters)
    pools = {p: HOSTILE[kind_of(p)] for p in params if p not in ("data", "ax", "axes")}
    pools["data"] = [[], "data", {"x": 1}, 3]
    pools["ax"] = pools["axes"] = [3, "ax", [None], plt.subplots(3)[1]]

    @settings(max_examples=4, deadline=None, database=None, derandomize=True)
    @given(st.sampled_from([p for p in params if p in pools]), st.data())
    def run(argument, data):
        kwargs = dict(SMALL[name])
        kwargs[argument] = data.draw(st.sampled_from(pools[argument]))
        if argument == "data":
            kwargs = {"data": kwargs["data"]}
        try:
            with np.errstate(all="raise"):
                drawn_on = plot(**kwargs)
        except (TypeError, ValueError) as exc:
            assert names_a_parameter(str(exc), params), exc
            return
        finally:
            plt.close("all")
        panels = drawn_on if isinstance(drawn_on, tuple) else (drawn_on,)
        assert all(isinstance(ax, Axes) for ax in panels)

    run()


# --- what a figure's alt text says of its axes --------------------------------------------

# the words of an alt text about axis scales, and what each says of the drawn axes
SCALE_WORDS = {
    r"\blog-log\b": lambda axes: any(a.get_xscale() != "linear" and a.get_yscale() != "linear"
                                     for a in axes),
    r"\bon a log (?:scale|axis)\b": lambda axes: any("log" in a.get_xscale() + a.get_yscale()
                                                     for a in axes),
    r"\blogarithmic (\w+) axis\b": None,  # checked below: that axis is logarithmic
    r"\blinear (\w+) axis\b": None,  # and this one linear
}


def alt_texts() -> list[tuple[str, str, str, str]]:
    """(chapter, figure name, alt text, the plot function the drawing cell calls) for every
    glued figure with an alt text."""
    import nbformat

    found = []
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for cell in cells:
            if cell.cell_type != "markdown":
                continue
            for m in re.finditer(r"\{glue:figure\}\s+(\S+)[^`]*?^:alt:(.*)$", cell.source,
                                 re.M | re.S):
                name, alt = m.group(1), m.group(2)
                drawing = [c.source for c in cells if c.cell_type == "code"
                           and re.search(rf"glue\(\s*[\"']{re.escape(name)}[\"']", c.source)]
                calls = re.findall(r"plotting\.(plot_\w+)\(", "".join(drawing))
                assert len(calls) == 1, (path.name, name, calls)
                found.append((path.stem, name, alt, calls[0]))
    return found


SAMPLE_ARGS = {"plot_offset_error": (10.0 ** np.arange(5), {"core": np.ones(5)})}


@pytest.mark.slow
def test_alt_text_says_the_axes_scales_the_figure_has():
    """Where a figure's alt text names axis scales ("log-log", "on a log scale", "logarithmic q
    axis", "linear eigenvalue axis"), the Axes its plot function draws have them."""
    texts = alt_texts()
    assert len(texts) >= 16
    checked = 0
    for chapter, name, alt, fn in texts:
        words = [w for w in SCALE_WORDS if re.search(w, alt, re.I)]
        if not words:
            continue
        with plotting.style():
            drawn = getattr(plotting, fn)(*SAMPLE_ARGS.get(fn, ()))
        axes = list(np.ravel(drawn)) if not isinstance(drawn, Axes) else [drawn]
        for word in words:
            rule = SCALE_WORDS[word]
            if rule is not None:
                assert rule(axes), f"{chapter} {name}: alt text says {word!r}"
                continue
            for label in re.findall(word, alt, re.I):
                # the axis the word names: x for x, q or t (the book's abscissas) or a word
                # of the x label, else y
                scales = {a.get_xscale() if label.lower() in ("x", "q", "t")
                          or label.lower() in a.get_xlabel().lower() else a.get_yscale()
                          for a in axes}
                want_log = word.startswith(r"\blogarithmic")
                assert any(("log" in s) == want_log for s in scales), (chapter, name, label)
        checked += 1
        plt.close("all")
    assert checked >= 8


def test_alt_text_scale_rules_can_fail():
    """A log-log claim about linear axes fails the rule."""
    fig, ax = plt.subplots()
    assert not SCALE_WORDS[r"\blog-log\b"]([ax])
    ax.set_xscale("log")
    assert not SCALE_WORDS[r"\blog-log\b"]([ax])
    assert SCALE_WORDS[r"\bon a log (?:scale|axis)\b"]([ax])
    plt.close(fig)
