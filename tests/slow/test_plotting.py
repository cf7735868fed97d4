"""Each plot_X draws exactly what figures.X_data returns (series in order, with their labels;
the numbers are tests/test_plotting_data.py's), with the book's axis labels, the scales its alt
texts name, and the reading rules of the book's style; bad data and axes are refused."""

import base64
import pathlib
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402

from lnbook import figures, plotting  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def race(name, rounds, comparison="<=", bound=1.0):
    return {"name": name, "result": {"per round": rounds, "median": float(np.median(rounds))},
            "target": {"comparison": comparison, "bound": bound}}


OFFSETS = 10.0 ** np.arange(0, 13, 2)
# The parameters of each figure's data, none of them X_data's defaults: a plot that drew
# figures.X_data()'s numbers instead of the data it is given fails the checks below.
SMALL = {
    "response": {"eps_values": (0.1, 1.0), "t": [-1.0, 0.0, 2.0]},
    "normalized_variance": {"eps_values": (0.1, 2.0), "d": 4},
    "jacobian_eigenvalues": {"eps": 0.3, "d": 3},
    "operator_norm": {"eps": 0.3, "dims": (2, 4)},
    "amplification": {"z": (1.0, 2.0), "delta": (1e-2, 0.0)},
    "shift_geometry": {"z": (1.0, 0.0), "shifts": (0.0, 1.0)},
    "weighted_projection": {"a": (0.5, 0.5), "z": (1.0, 3.0)},
    "record_audit": {"shape": (2, 3, 4), "record": (0, 1)},
    "gain_effect": {"z": (1.0, 2.0, 4.0), "gamma": (1.0, -1.0, 0.5), "eps": 0.1},
    "bias_shift": {"z": ((1.0, 2.0, 3.0), (0.0, 5.0, 1.0)), "gamma": (1.0, 1.0, 2.0),
                   "beta": (0.0, 1.0, 0.0)},
    "core_bound": {"dims": (2, 3, 5), "n": 4, "seed": 1},
    "offset_error": {"offsets": OFFSETS, "max_ticks": 4, "errors": {
        r"lnbook.core, $\sigma = 1$": np.ones(7), r"naive, $\sigma = 1$": OFFSETS * 0.7}},
    "eps_placement": {"z": (1.0, 3.0, 4.0), "conventions": ("annotated", "keras", "pytorch")},
    "benchmark_ratios": {"results": {"results": {
        "a": [race("a, 1 thread", [0.8, 0.9, 1.3]), race("a, 2 threads", [1.1, 1.2, 1.4])],
        "b": race("b", [300.0, 450.0, 500.0], ">=", 100.0), "accuracy": {"name": "accuracy"},
        "rms": [{**race("rms", [0.9]), "target": None}]}}},
    "placement_gradients": {"depths": (1, 2, 4), "d": 4, "seeds": (0,), "L": 3},
    "geometry_picture": {"z": [[1.0, 2.0, 4.0], [0.0, 1.0, -1.0]], "eps": 0.5,
                         "eps_values": (2.0, 0.5)},
}
# the axis labels of each panel, (x, y), top first: the book's symbols
NORM_W2, Q = r"$\Vert\partial\ell/\partial W_2\Vert_F$", r"variance $q$"
LABELS = {
    "response": [("", r"$h_\varepsilon(t)$"), (r"$t$", r"$h'_\varepsilon(t)$")],
    "normalized_variance": [(Q, r"$\dfrac{1}{d}\sum_i u_i^2$")],
    "jacobian_eigenvalues": [(Q, r"eigenvalue $\lambda$")], "operator_norm": [
        (Q, r"$\Vert Du_\varepsilon(z)\Vert_2$")],
    "amplification": [(r"$\varepsilon$", r"$\Vert u_\varepsilon(z+\delta) - u_\varepsilon(z)"
                                          r"\Vert_2 / \Vert\delta\Vert_2$")],
    "shift_geometry": [(r"$z_1$", r"$z_2$")], "weighted_projection": [(r"$z_1$", r"$z_2$")],
    "record_audit": [("position", "batch item")] * 2,
    "gain_effect": [("", "value")], "bias_shift": [("", "value")] * 2,
    "core_bound": [(r"number of features $d$", r"largest $|u_i|$")],
    "offset_error": [(r"offset $|\mu|/\sigma$", r"worst error, ulps of largest $|u_i|$")],
    "eps_placement": [(r"standard deviation $\sigma$ of the record $\alpha z$",
                       "RMS of the output")],
    "benchmark_ratios": [("ratio", "")],
    "placement_gradients": [(r"block $l$ (input side first)", NORM_W2), (r"depth $L$", NORM_W2)],
    "geometry_picture": [(r"$f_1^\top z$", r"$f_2^\top z$"),
                         (r"$\Vert v\Vert_2 = \sqrt{3q}$", r"$\Vert u_\varepsilon(z)\Vert_2$")],
}


def styled(ax, linestyle=None, marker=None):
    return [line for line in ax.lines if (linestyle is None or line.get_linestyle() == linestyle)
            and (marker is None or line.get_marker() == marker)]


def ys(lines):
    return [np.asarray(line.get_ydata(), float).tolist() for line in lines]


def xys(lines):
    return [np.asarray(line.get_xydata(), float).tolist() for line in lines]


def labels(lines):
    return [line.get_label() for line in lines]


def eps_label(eps):
    return rf"$\varepsilon = {eps:g}$"


def check_response(d, top, bottom):
    curves, slopes = styled(top, "-"), styled(bottom, "-")
    assert xys(curves) == [np.c_[d["t"], h].tolist() for h in d["h"]]
    assert ys(slopes) == d["slope"].tolist()
    assert labels(curves) == labels(slopes) == [eps_label(e) for e in d["eps"]]
    assert xys(styled(bottom, marker="o")) == [[[0.0, p]] for p in d["peak"]]
    assert sorted(y[0] for y in ys(styled(top, "--"))) == [-d["limit"], d["limit"]]


def check_normalized_variance(d, ax):
    curves = styled(ax, "-")
    assert xys(curves) == [np.c_[d["q"], m].tolist() for m in d["mean_square"]]
    assert labels(curves) == [eps_label(e) for e in d["eps"]]
    assert xys(styled(ax, marker="o")) == [[[e, h]] for e, h in zip(d["eps"], d["half"])]


def check_jacobian_eigenvalues(d, ax):
    tan, rad, zero, dots, bound = ax.lines
    assert ys([tan, rad, zero]) == [d[k].tolist() for k in ("tangential", "radial", "zero")]
    assert "tan" in tan.get_label() and "rad" in rad.get_label() and ys([bound])[0][0] == d["bound"]
    assert xys([dots])[0] == np.c_[np.repeat(d["sample_q"], d["d"]), d["numeric"].ravel()].tolist()


def check_operator_norm(d, ax):
    *curves, bound = ax.lines
    assert ys(curves) == d["norm"].tolist() and labels(curves) == [f"$d = {n}$" for n in d["dims"]]
    assert bound.get_ydata()[0] == d["bound"]


def check_amplification(d, ax):
    assert xys(ax.lines) == [np.c_[d["eps"], d[k]].tolist() for k in ("ratio", "bound")]


def check_shift_geometry(d, ax):
    assert xys(styled(ax, "--")) == [[p, d["Pz"].tolist()] for p in d["shifted"].tolist()]
    assert xys(styled(ax, marker="o")) == [[p] for p in d["shifted"].tolist() + [d["Pz"].tolist()]]


def check_weighted_projection(d, ax):
    line, to_oblique, to_orthogonal, *points = ax.lines
    (x0, y0), (x1, y1) = line.get_xydata()
    assert abs((x1 - x0) * d["direction"][1] - (y1 - y0) * d["direction"][0]) < 1e-12
    z, oblique, orthogonal = d["z"].tolist(), d["oblique"].tolist(), d["orthogonal"].tolist()
    assert xys(points) == [[z], [oblique], [orthogonal]] and "P_a z" in points[1].get_label()
    assert xys([to_oblique, to_orthogonal]) == [[z, oblique], [z, orthogonal]]


def check_record_audit(d, top, bottom):
    for ax, key in ((top, "layer_norm"), (bottom, "wrong_axis")):
        assert np.array_equal(np.asarray(ax.images[0].get_array()), d[key])
        assert xys(ax.lines) == [[[d["record"][1], d["record"][0]]]]


def check_gain_effect(d, ax):
    assert [[b.get_height() for b in c] for c in ax.containers] == [d["u"].tolist(),
                                                                     d["y"].tolist()]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        rf"$i = {k + 1}$" + "\n" + rf"$\gamma_{k + 1} = {g:g}$" for k, g in enumerate(d["gamma"])]


def check_bias_shift(d, *axes):
    assert len(axes) == len(d["z"])
    for k, ax in enumerate(axes):
        assert [[b.get_height() for b in c] for c in ax.containers] == [
            d[key][k].tolist() for key in ("u", "scaled", "y")]
        assert ys(styled(ax, "--")) == [[d["y_mean"][k]] * 2]


def check_core_bound(d, ax):
    assert xys(styled(ax, marker=".")) == [np.c_[np.full(v.size, n), v].tolist()
                                           for n, v in zip(d["dims"], d["largest"])]
    assert xys(styled(ax, marker="*")) == [np.c_[d["dims"], d["extreme"]].tolist()]
    assert xys(styled(ax, "--")) == [np.c_[d["grid"], d["bound"]].tolist()]


def check_offset_error(d, ax):
    *series, guide, limit = ax.lines
    assert labels(series) == list(d["errors"]) and ys(series) == [
        e.tolist() for e in d["errors"].values()]
    assert xys([guide]) == [np.c_[d["offsets"], d["guide"]].tolist()]
    assert limit.get_ydata()[0] == d["limit"] and ax.get_yscale() == "symlog"
    assert ax.get_xticks().tolist() == d["xticks"].tolist() == [1.0, 1e4, 1e8, 1e12]
    assert ax.get_yticks().tolist() == d["yticks"].tolist()


def check_eps_placement(d, ax):
    curves = styled(ax, "-")
    assert ys(curves) == d["rms"].tolist()
    assert all(c.label in line.get_label() for c, line in zip(d["conventions"], curves))
    assert [y[0] for y in ys(styled(ax, "--") + styled(ax, ":"))] == list(d["plateaus"])


def check_benchmark_ratios(d, ax):
    # by hand: races in file order, medians against targets; accuracy (no result) and a race
    # without a target left out
    assert d["names"] == ["a, 1 thread", "a, 2 threads", "b"] and d["met"] == [True, False, True]
    assert d["median"].tolist() == [0.9, 1.2, 450.0] and d["comparison"] == ["<=", "<=", ">="]
    assert [line.get_xdata().tolist() for line in styled(ax, marker="o")] == [
        r.tolist() for r in d["rounds"]]
    assert [styled(ax, marker=m)[0].get_xdata().tolist() for m in "|v"] == [
        d["median"].tolist(), d["target"].tolist()]
    assert [t.get_text() for t in ax.texts] == [
        f"{n}: {'met' if ok else 'not met'}" for n, ok in zip(d["names"], d["met"])]


def check_placement_gradients(d, top, bottom):
    assert xys(top.lines) == [np.c_[d["block"], p].tolist() for p in d["profile"]]
    assert ys(bottom.lines) == d["last"].tolist() + [d["guide"].tolist()]
    assert labels(top.lines) == labels(bottom.lines[:2]) == list(d["labels"])
    assert bottom.get_xticks().tolist() == d["depths"].tolist()


def check_geometry_picture(d, top, bottom):
    assert [np.asarray(c.get_offsets()).tolist() for c in top.collections] == [
        d[k].tolist() for k in ("v", "u_eps", "u_0")]
    assert [line[1] for line in xys(styled(top, "-"))] == d["ray_ends"].tolist()
    (circle,) = styled(top, "--")
    assert np.allclose(np.hypot(*circle.get_xydata().T), d["radius"], rtol=1e-15)
    curves = styled(bottom, "-")
    assert ys(curves) == d["profile"].tolist() and ys(styled(bottom, "--")) == [[d["radius"]] * 2]
    assert labels(curves) == [f"radial map, {eps_label(e)}" for e in d["eps_values"]]
    # the curve of the cores' eps has the colour of their dots
    (same,) = [line for e, line in zip(d["eps_values"], curves) if e == d["eps"]]
    assert to_hex(same.get_color()) == to_hex(top.collections[1].get_facecolor()[0])


# Okabe & Ito's palette without its yellow, and the greys of guides and markers
COLOURS = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
           "#555555", "#888888", "#222222", "#333333"}
PSEUDO_MATH = ("^", "ε", "σ", "μ", "Σ", "√", "‖", "γ", "⊙", "₂", "²")


def shown_ticks(axis):
    lo, hi = sorted(axis.get_view_interval())
    lo, hi = lo - 1e-9 * abs(lo) - 1e-12, hi + 1e-9 * abs(hi) + 1e-12  # rounding at the ends
    return [t for t in axis.get_major_ticks() if t.label1.get_visible() and t.label1.get_text()
            and lo <= t.get_loc() <= hi]


def check_reading_rules(name, axes):
    fig = axes[0].figure
    # a PNG at twice the display width, 500 CSS pixels (a legend may widen it); the layout
    # settled (constrained layout would move an equal-aspect panel at every render)
    bundle, metadata = fig._repr_mimebundle_()
    width = metadata["image/png"]["width"]
    assert abs(int.from_bytes(base64.b64decode(bundle["image/png"])[16:20], "big") - 2 * width) <= 1
    assert 440 <= width <= 560 and fig.get_figwidth() == 5 and isinstance(fig, plotting.BookFigure)
    assert not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    assert to_hex(fig.get_facecolor(), keep_alpha=True) == "#ffffffff"  # a card on a dark page
    # panels stacked vertically; one legend, outside every panel, in a legible size
    assert np.allclose([ax.get_position().x0 for ax in axes], axes[0].get_position().x0)
    (legend,) = fig.legends
    assert all(t.get_fontsize() >= 11 for t in legend.get_texts())
    for ax in axes:
        assert not legend.get_window_extent().overlaps(ax.get_window_extent())
        for axis in (ax.xaxis, ax.yaxis):
            shown = shown_ticks(axis)
            assert len(shown) <= 6 and all(t.label1.get_fontsize() >= 11 for t in shown), name
            assert axis.label.get_fontsize() >= 12 or not axis.label.get_text()
        for text in (ax.get_xlabel(), ax.get_ylabel(), ax.get_title(loc="left")):
            outside_math = "".join(text.split("$")[0::2])
            assert not any(p in outside_math for p in PSEUDO_MATH), (name, text)
            # a one-letter symbol with a subscript (u_i, h_e) outside math; not layer_norm
            assert not re.search(r"(?<![A-Za-z])[A-Za-z]_\w", outside_math), (name, text)
        assert {to_hex(line.get_color()) for line in ax.lines} <= COLOURS, name
        assert {to_hex(c.get_facecolor()[0]) for c in ax.collections} <= COLOURS, name


@pytest.mark.parametrize("name", sorted(SMALL))
def test_figure_draws_its_data_in_the_book_style(name):
    data, before = getattr(figures, f"{name}_data")(**SMALL[name]), dict(plt.rcParams)
    drawn = getattr(plotting, f"plot_{name}")(data)
    assert dict(plt.rcParams) == before  # the style applies while drawing, and only then
    axes = list(drawn) if isinstance(drawn, tuple) else [drawn]
    globals()[f"check_{name}"](data, *axes)
    assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in axes] == LABELS[name]
    check_reading_rules(name, axes)
    check_alt_texts(name, axes)


def test_every_figure_is_checked():
    assert set(SMALL) == {n.removeprefix("plot_") for n in plotting.__all__ if "plot_" in n}


def test_draws_on_given_axes_with_the_legend_beside():
    ax, (a, b) = plt.subplots()[1], plt.subplots(2)[1]
    assert plotting.plot_core_bound(figures.core_bound_data(dims=(2, 4), n=5), ax=ax) is ax
    assert plotting.plot_geometry_picture(figures.geometry_picture_data(), axes=(a, b)) == (a, b)
    for axes in (ax, a):  # at the right, outside the data
        assert axes.get_legend().get_window_extent().x0 > axes.get_window_extent().x1


@pytest.mark.parametrize("name", sorted(SMALL))
def test_bad_data_and_axes_are_refused_naming_them(name):
    """A TypeError or ValueError naming data or ax/axes (book/api.md, "Exceptions")."""
    plot, good = getattr(plotting, f"plot_{name}"), getattr(figures, f"{name}_data")(**SMALL[name])
    key, array = next((k, v) for k, v in good.items() if isinstance(v, np.ndarray))
    first = sorted(good)[0]
    for data, kind, words in (
            ([1, 2], TypeError, "data must be a dict"),
            ({k: v for k, v in good.items() if k != first}, ValueError, f"lacks '{first}'"),
            ({**good, "extra": 1.0}, ValueError, "'extra', which figures"),
            ({**good, key: array.astype(str)}, TypeError, f"data['{key}'] must be"),
            ({**good, key: array[..., :0]}, ValueError, f"data['{key}'] is empty"),
            # NaN: a ValueError for numbers, a TypeError for booleans
            ({**good, key: np.full(array.shape, np.nan)}, (ValueError, TypeError), f"['{key}']")):
        with pytest.raises(kind, match=re.escape(words)):
            plot(data)
    where = "axes" if "axes : " in plot.__doc__ else "ax"
    polar = plt.figure().add_subplot(projection="polar")
    for bad in (3, polar, [polar], "ax"):
        with pytest.raises(TypeError, match=rf"plot_{name}: {where} must be"):
            plot(good, **{where: bad})
    if where == "axes":
        with pytest.raises(ValueError, match=r"axes must hold \d matplotlib Axes"):
            plot(good, axes=plt.subplots(5)[1])


def test_an_entry_matplotlib_refuses_is_said_as_data():
    data = figures.shift_geometry_data()
    with pytest.raises(ValueError, match=r"plot_shift_geometry: data does not hold the entries"):
        plotting.plot_shift_geometry({**data, "Pz": data["Pz"][:1]})


def test_response_of_a_tiny_eps_is_drawn():
    """Issue 33: plot_response(eps_values=(1e-300,)) let matplotlib's OverflowError escape
    (log ticks beyond float64, 1e-400 and 1e400, on a slope axis from 7e-302 to 1e150)."""
    data = figures.response_data(eps_values=(1e-300,))
    top, bottom = plotting.plot_response(data)
    png = base64.b64decode(top.figure._repr_mimebundle_()[0]["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and data["peak"][0] == 1e150
    assert ys(styled(bottom, "-")) == data["slope"].tolist() and shown_ticks(bottom.yaxis)


def test_import_lnbook_does_not_need_matplotlib():
    code = "import sys, lnbook; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# the words of an alt text about axis scales, and what each says of the drawn axes
SCALE_WORDS = {
    r"\blog-log\b": lambda axes: any(a.get_xscale() != "linear" and a.get_yscale() != "linear"
                                     for a in axes),
    r"\bon a log (?:scale|axis)\b": lambda axes: any("log" in a.get_xscale() + a.get_yscale()
                                                     for a in axes),
    r"\blogarithmic (\w+) axis\b": None,  # checked below: that axis is logarithmic
    r"\blinear (\w+) axis\b": None,  # and this one linear
}


def alt_texts() -> dict[str, list[tuple[str, str]]]:
    """X of the plotting.plot_X each glued figure's cell calls -> (chapter, its alt text)."""
    import nbformat

    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for cell in (c for c in cells if c.cell_type == "markdown"):
            for m in re.finditer(r"\{glue:figure\}\s+(\S+)[^`]*?^:alt:(.*)$", cell.source,
                                 re.M | re.S):
                calls = re.findall(r"plotting\.plot_(\w+)\(", "".join(
                    c.source for c in cells if c.cell_type == "code" and re.search(
                        rf"glue\(\s*[\"']{re.escape(m.group(1))}[\"']", c.source)))
                assert len(calls) == 1, (path.name, m.group(1), calls)
                found.setdefault(calls[0], []).append((path.stem, m.group(2)))
    return found


ALT_TEXTS = alt_texts()


def test_alt_texts_name_scales_of_many_figures():
    texts = [t for ts in ALT_TEXTS.values() for t in ts]
    assert len(texts) >= 16
    assert sum(any(re.search(w, alt, re.I) for w in SCALE_WORDS) for _, alt in texts) >= 8


def check_alt_texts(name, axes):
    """The scales an alt text of this figure names ("log-log", "logarithmic q axis") are drawn."""
    for chapter, alt in ALT_TEXTS.get(name, []):
        for word, rule in SCALE_WORDS.items():
            if rule is not None:
                assert not re.search(word, alt, re.I) or rule(axes), (chapter, word)
            for label in re.findall(word, alt, re.I) if rule is None else ():
                # the axis the word names: x for x, q or t (the book's abscissas) or a word
                # of the x label, else y
                scales = {a.get_xscale() if label.lower() in ("x", "q", "t")
                          or label.lower() in a.get_xlabel().lower() else a.get_yscale()
                          for a in axes}
                assert any(("log" in s) == word.startswith(r"\blogarithmic") for s in scales), (
                    chapter, label)
