"""The book's figures, drawn. The only module that imports matplotlib.

Compute, then draw: ``data = figures.X_data(...)`` computes a figure's numbers with numpy
alone; ``plotting.plot_X(data)`` draws exactly them, on ``ax`` (``axes``, top first, for a
figure of several panels) or else on a new :class:`BookFigure`, and returns the Axes.

Every ``plot_*`` draws in the style of :func:`style`: 5 inches (500 CSS pixels) wide, fonts
legible when a phone shrinks the figure, the Okabe–Ito colour-blind-safe palette, an opaque
white background (a light card on a dark page), mathtext labels with the book's symbols,
legends outside the data, at most six labelled ticks per axis, panels stacked vertically, and
a PNG at twice its display resolution. The examples assume ``import matplotlib.pyplot as
plt`` and ``from lnbook import figures``.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import inspect
import io
import json
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib import ticker
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from numpy.typing import ArrayLike

from . import _checks, figures

__all__ = ["BookFigure", "Movable", "style", "plot_response", "plot_normalized_variance",
           "plot_jacobian_eigenvalues", "plot_operator_norm", "plot_amplification",
           "plot_shift_geometry", "plot_weighted_projection", "plot_record_audit",
           "plot_gain_effect", "plot_bias_shift", "plot_core_bound", "plot_offset_error",
           "plot_eps_placement", "plot_benchmark_ratios", "plot_placement_gradients",
           "plot_geometry_picture"]

# Okabe & Ito's colour-blind-safe palette (blue, vermillion, bluish green, reddish purple,
# orange, sky blue, black); yellow is left out, too pale on white
_PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
_GUIDE = "#555555"  # reference lines: bounds, asymptotes, plateaus
_WIDTH = 5.0  # inches: about 500 px on a desktop, shrunk on a phone
_DISPLAY_DPI = 100  # CSS pixels per inch of figure on the page; the PNG has twice as many
_PANEL_HEIGHT = 2.9
_MAX_TICKS = 6  # labelled ticks on an axis, at most

# every plot_* draws in this style; nothing else sets rcParams
_STYLE: dict[str, Any] = {
    # every PNG of a figure, inline or saved, at twice the display's dots per inch
    "figure.figsize": (_WIDTH, 3.6), "figure.dpi": 2 * _DISPLAY_DPI, "savefig.dpi": 200,
    "figure.constrained_layout.use": True, "savefig.bbox": "tight",
    # opaque white: a light card on a dark page
    "figure.facecolor": "white", "figure.edgecolor": "white", "savefig.facecolor": "white",
    "axes.facecolor": "white",
    # reproducible element ids in the benchmarks page's SVG
    "svg.hashsalt": "lnbook", "svg.fonttype": "path",
    "axes.edgecolor": "#333333", "axes.prop_cycle": cycler(color=_PALETTE),
    "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "axes.axisbelow": True, "grid.color": "#dddddd", "grid.linewidth": 0.6,
    # legible when a phone shrinks the figure to about 320 px
    "font.size": 13, "axes.titlesize": 13, "axes.labelsize": 13, "xtick.labelsize": 12,
    "ytick.labelsize": 12, "legend.fontsize": 12, "axes.titlelocation": "left",
    "legend.frameon": False, "mathtext.fontset": "cm",
    "lines.linewidth": 2.0, "lines.markersize": 6,
}


class BookFigure(Figure):
    """A figure that displays in a notebook as a PNG at twice its resolution, sized to fit.

    The PNG has 200 dots per inch and ``width`` metadata (100 CSS pixels per inch): sharp on
    dense screens, as wide as designed on a desktop, shrunk with its height on a phone.
    """

    def _repr_mimebundle_(self, include: object = None, exclude: object = None
                          ) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi, bbox_inches="tight",
                     facecolor=_STYLE["figure.facecolor"])
        png = buf.getvalue()
        # PNG header: the width is big-endian at bytes 16-20
        w = int.from_bytes(png[16:20], "big")
        return ({"image/png": base64.b64encode(png).decode("ascii")},
                {"image/png": {"width": round(w * _DISPLAY_DPI / self.dpi)}})


class Movable:
    r"""A figure the reader moves on the website: one frame per value of a parameter.

    The chapter computes every frame with lnbook; a Movable only keeps them, each number
    rounded to four significant digits (what the page shows, the same on every CPU), as JSON
    in a ``<script>`` that the site's ``lnbook-movable.js`` draws as SVG under a slider. Glue
    it and show the glue inside ``{only} html``: the static figure stays for print and PDF.

    Parameters
    ----------
    data : dict
        The frames, under the keys ``param``, the parameter as the reader sees it (``"ε"``);
        ``values`` (n,), its values, one frame each; ``start``, the frame the page opens at,
        the one the prose discusses; ``readouts``, n strings, the key numbers of each frame as
        the prose writes them; ``marks``, what is drawn, in order, each ``{"kind": "line" |
        "dots" | "bars", "style": str, "xy": array}`` with ``xy`` of shape (n, m, 2) to move
        with the slider or (m, 2) to stay (a line joins its m points, bars rise from 0 to each
        point; ``style`` holds classes of lnbook-site.css: ``s0`` blue, ``s1`` vermillion,
        ``s2`` grey, ``dash``, ``dot``, ``thin``, ``big`` dots); ``box``, the view ``((x0, x1),
        (y0, y1))`` in the units of ``xy``; ``xticks`` and ``yticks``, (position, label) pairs;
        ``xlabel``, ``ylabel`` and ``alt``, the drawing's text alternative.

    Raises
    ------
    ValueError
        If a key is missing or unknown, ``values``, ``readouts`` and the moving marks do not
        have one frame each, ``start`` is not a frame, a mark is not points of two finite
        coordinates, ``box`` is empty, or a text is not a string.
    TypeError
        If ``data`` is not a dict.

    Notes
    -----
    The six chapters that show one: :ref:`ch-epsilon`, :ref:`ch-gain`, :ref:`ch-shift`,
    :ref:`ch-jacobian`, :ref:`ch-weighted` and :ref:`ch-geometry`.

    Examples
    --------
    >>> Movable(dict(param="c", values=[0, 1], start=0, readouts=["c = 0", "c = 1"],
    ...              marks=[{"kind": "dots", "style": "s0", "xy": [[[0, 0]], [[1, 1]]]}],
    ...              box=((0, 1), (0, 1)), xticks=[(0, "0")], yticks=[(1, "1")], xlabel="x",
    ...              ylabel="y", alt="A dot on the diagonal."))
    Movable(c: 2 frames, start c = 0)
    """

    KEYS = ("param", "values", "start", "readouts", "marks", "box", "xticks", "yticks",
            "xlabel", "ylabel", "alt")

    def __init__(self, data: dict):
        if not isinstance(data, dict):
            raise TypeError(f"data must be a dict; got {type(data).__name__}")
        if sorted(data) != sorted(self.KEYS):
            raise ValueError(f"data must have the keys {', '.join(self.KEYS)}; got {sorted(data)}")
        try:  # a malformed entry (a box of three numbers, a mark without "xy") names data too
            self.spec = _frames(data)
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise ValueError(f"data is not the frames of a movable figure: {exc}") from None

    def _repr_html_(self) -> str:
        # "</" inside a script would end it early
        text = json.dumps(self.spec, ensure_ascii=False, separators=(",", ":"))
        text = text.replace("</", "<\\/")
        return f'<script type="application/json" class="lnbook-movable">{text}</script>'

    def __repr__(self) -> str:
        spec = self.spec
        return (f"Movable({spec['param']}: {len(spec['values'])} frames, start "
                f"{spec['labels'][spec['start']]})")


def _frames(data: dict) -> dict:
    """The JSON of :class:`Movable`: ``data`` checked, its numbers rounded, the labels added."""
    values, start, readouts = _checks.vector(data["values"], "values"), data["start"], \
        data["readouts"]
    n = values.size
    if len(readouts) != n or operator.index(start) not in range(n):
        raise ValueError(f"readouts must have one entry per value ({n}) and start be one of "
                         f"them; got {len(readouts)} and {start}")
    texts = [data["param"], data["xlabel"], data["ylabel"], data["alt"], *readouts]
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("param, readouts, xlabel, ylabel and alt must be strings")
    (x0, x1), (y0, y1) = data["box"]
    if not (x0 < x1 and y0 < y1):
        raise ValueError(f"box must be ((x0, x1), (y0, y1)), x0 < x1, y0 < y1; got {data['box']}")
    marks = []
    for k, mark in enumerate(data["marks"]):
        xy = _checks.real_array(mark["xy"], f"marks[{k}]['xy']")
        _checks.finite(xy, f"marks[{k}]['xy']")
        if xy.shape[-1:] != (2,) or xy.ndim not in (2, 3) or xy.ndim == 3 and len(xy) != n or \
                mark["kind"] not in ("line", "dots", "bars"):
            raise ValueError(f"marks[{k}] must be a line, dots or bars of shape ({n}, m, 2) or "
                             f"(m, 2); got {mark['kind']!r} of shape {xy.shape}")
        marks.append({"kind": mark["kind"], "style": str(mark["style"]), "moves": xy.ndim == 3,
                      "xy": _rounded(xy)})
    return {**data, "values": _rounded(values), "start": int(start),
            "labels": [f"{data['param']} = {v:.4g}" for v in values], "readouts": list(readouts),
            "marks": marks, "box": _rounded(data["box"]),
            "xticks": [(_rounded(v), str(t)) for v, t in data["xticks"]],
            "yticks": [(_rounded(v), str(t)) for v, t in data["yticks"]]}


def _rounded(x: ArrayLike) -> Any:
    """Nested lists of ``x``'s numbers, each to four significant digits."""
    return np.vectorize(lambda v: float(f"{v:.4g}"), otypes=[float])(np.asarray(x, float)).tolist()


@contextlib.contextmanager
def style() -> Iterator[None]:
    """The book's figure style, as a context: ``with style(): ...``.

    Yields
    ------
    None
        Inside the block, matplotlib's ``rcParams`` are the book's (every ``plot_*`` draws in
        them; nothing else sets them); on leaving, the caller's.

    Examples
    --------
    >>> with style():
    ...     plt.rcParams["axes.titlelocation"]
    'left'
    """
    with plt.rc_context(_STYLE):
        yield


def _form(value: object) -> str:
    """The kind of a data entry, as :func:`_check_data` compares it."""
    if isinstance(value, np.ndarray):
        kind = {"b": "booleans", "i": "numbers", "u": "numbers", "f": "numbers"}.get(
            value.dtype.kind)
        return f"a {value.ndim}-d array of {kind}" if kind else f"an array of {value.dtype}"
    kinds = ((dict, "a dict"), ((list, tuple), "a list or tuple"), ((bool, np.bool_), "a bool"),
             ((int, float, np.number), "a number"), (str, "a string"))
    return next((text for k, text in kinds if isinstance(value, k)), type(value).__name__)


def _check_data(value: object, like: object, where: str, name: str, source: str,
                top: bool = True) -> None:
    """``value`` has the form of ``like`` (``source``'s sample): the same entries, each of the
    same kind and finite; the items of a nested dict or a list are compared with its first."""
    form, want = _form(value), _form(like)
    if (value.size if isinstance(value, np.ndarray) else len(value) if isinstance(
            value, (dict, list, tuple)) else 1) == 0:  # every figure draws something of each
        raise ValueError(f"{name}: {where} is empty; {source} returns {want}")
    if form != want:
        # an array of numbers with another number of axes is a wrong shape, not a wrong kind
        shape = " array of " in form and " array of " in want and form[-7:] == want[-7:]
        raise (ValueError if shape else TypeError)(
            f"{name}: {where} must be {want}, as {source} returns it; got {form}: "
            f"{_checks.show(value)}")
    if isinstance(value, np.ndarray) and not np.isfinite(value).all() or \
            isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise ValueError(f"{name}: {where} contains NaN or infinite entries")
    if isinstance(value, dict) and isinstance(like, dict):
        if top and value.keys() != like.keys():
            missing, unknown = like.keys() - value.keys(), value.keys() - like.keys()
            raise ValueError(f"{name}: data must hold the entries that {source} returns; " + (
                f"it lacks {', '.join(map(repr, sorted(missing)))}; " if missing else "") + (
                f"it has {', '.join(map(repr, sorted(unknown)))}, which {source} does not "
                "return" if unknown else ""))
        for key, item in value.items():
            if not top and not isinstance(key, str):
                raise TypeError(f"{name}: the labels of {where} must be strings; got "
                                f"{_checks.show(key)}")
            if top or like:
                _check_data(item, like[key] if top else next(iter(like.values())),
                            f"{where}[{key!r}]", name, source, top=False)
    elif isinstance(value, (list, tuple)) and isinstance(like, (list, tuple)) and like:
        for k, item in enumerate(value):
            _check_data(item, like[0], f"{where}[{k}]", name, source, top=False)


def _check_axes(value: object, key: str, n: int, name: str) -> Any:
    """``ax``: one rectilinear Axes; ``axes``: a sequence of ``n`` of them."""
    many = value if key == "axes" else [value]
    if isinstance(many, Axes) or not isinstance(many, (Sequence, np.ndarray)) or not all(
            isinstance(a, Axes) and a.name == "rectilinear" for a in many):
        what = "a sequence of" if key == "axes" else "one"
        raise TypeError(f"{name}: {key} must be {what} rectilinear (x-y) matplotlib Axes; got "
                        f"{_checks.show(value)}")
    if len(many) != n:
        raise ValueError(f"{name}: axes must hold {n} matplotlib Axes for this figure; got "
                         f"{len(many)}")
    return list(many) if key == "axes" else value


_DOC = """
    Parameters
    ----------
    data : dict
        What :func:`lnbook.figures.{source}` returns, drawn as it is.
    {key} : {kind}, optional
        Where to draw{panels}, in a new :class:`BookFigure` if omitted.

    Returns
    -------
    {returns}
        The Axes drawn on{top}.

    Raises
    ------
    TypeError
        If ``data`` is not a dict of the entries, each of its kind, that
        :func:`lnbook.figures.{source}` returns, or ``{key}`` is not {refused}.
    ValueError
        If an entry of ``data`` is missing, unknown, not finite or of the wrong shape{count}.
"""


def _plot(data_fn: Callable[..., dict], panels: int | Callable[[dict], int] = 1,
          **sample: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make ``draw(data, *, ax=None)`` (``axes=None``) the plot function of ``data_fn``: it
    checks ``data`` against the form of ``data_fn(**sample)``, and ``ax``, draws in the style,
    and adds the docstring's Parameters, Returns and Raises after its summary."""
    like = functools.cache(lambda: data_fn(**sample))
    key = "ax" if panels == 1 else "axes"
    source = data_fn.__name__

    def decorate(draw: Callable[..., Any]) -> Callable[..., Any]:
        name, signature = draw.__name__, inspect.signature(draw)

        @functools.wraps(draw)
        def plot(*args: Any, **kwargs: Any) -> Any:
            try:
                given = signature.bind(*args, **kwargs).arguments
            except TypeError as exc:
                raise TypeError(f"{name}: {exc}") from None
            data, where = given["data"], given.get(key)
            _check_data(data, like(), "data", name, f"figures.{source}")
            n = panels(data) if callable(panels) else panels
            where = where if where is None else _check_axes(where, key, n, name)
            with style():
                try:
                    return draw(data, **{key: where})
                except (KeyError, IndexError, TypeError, ValueError) as exc:
                    kind = TypeError if isinstance(exc, TypeError) else ValueError
                    raise kind(f"{name}: data does not hold the entries, of the shapes, that "
                               f"figures.{source} returns ({exc})") from exc

        summary, _, rest = (draw.__doc__ or "").partition("\n\n")
        one = key == "ax"
        plot.__doc__ = summary + "\n" + _DOC.format(
            source=source, key=key, kind="matplotlib Axes" if one else
            "sequence of matplotlib Axes", panels="" if one else ", one per panel, top first",
            refused=f"{'one' if one else 'a sequence of'} rectilinear matplotlib Axes",
            returns="matplotlib Axes" if one else "tuple of matplotlib Axes",
            top="" if one else ", top first",
            count="" if one else ",\n        or ``axes`` does not hold the figure's panels"
        ) + "\n" + rest
        # the floating-point state of the drawing, as of every public function
        return _checks.public(plot)

    return decorate


def _new(rows: int = 1, height: float | None = None, **kwargs: Any) -> Any:
    """New axes in a ``BookFigure``, stacked vertically: an array of them, or one Axes."""
    height = height or (_STYLE["figure.figsize"][1] if rows == 1 else _PANEL_HEIGHT * rows + 0.6)
    _, axes = plt.subplots(rows, 1, figsize=(_WIDTH, height), FigureClass=BookFigure, **kwargs)
    return axes


class _LogTicks(ticker.LogLocator):
    """matplotlib's log ticks without those beyond float64 (0, inf): its labels overflow."""

    def tick_values(self, vmin: float, vmax: float) -> Sequence[float]:
        with np.errstate(over="ignore"):  # the overflow to inf is dropped here
            ticks = np.asarray(super().tick_values(vmin, vmax))
        return ticks[(ticks > 0) & np.isfinite(ticks)]


def _finish(*axes: Axes) -> None:
    """Tick labels in the style's sizes (ticks are made at draw time), few per axis, where the
    figure did not fix them."""
    for ax in axes:
        ax.tick_params(which="both", labelsize=_STYLE["xtick.labelsize"], color="#333333")
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            fixed = isinstance(axis.get_major_locator(), ticker.FixedLocator)
            if scale == "log":
                if not fixed:
                    axis.set_major_locator(_LogTicks(base=10, numticks=_MAX_TICKS))
                if not isinstance(axis.get_minor_locator(), ticker.FixedLocator):
                    axis.set_minor_locator(_LogTicks(base=10, subs="auto", numticks=99))
                    axis.set_minor_formatter(ticker.NullFormatter())
            elif scale == "linear" and isinstance(axis.get_major_locator(), ticker.AutoLocator):
                axis.set_major_locator(ticker.MaxNLocator(nbins=_MAX_TICKS - 1))


def _legend(axes: Any, ncols: int = 1, handles: Sequence[Artist] | None = None,
            labels: Sequence[str] | None = None) -> Any:
    """Finish the axes, then one legend outside the data: below the panels of a figure made
    here, else beside the first axes, at the right; return the axes. Every plot_* ends here."""
    panels = [axes] if isinstance(axes, Axes) else list(axes)
    _finish(*panels)
    if handles is None or labels is None:
        handles, labels = panels[0].get_legend_handles_labels()
    fig = panels[0].figure
    if isinstance(fig, BookFigure):
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols)
        # Lay the figure out once, in the style, and keep that layout: with an equal-aspect
        # axes, constrained layout would otherwise move things at every later render, and
        # the PNG that a notebook stores would differ from the one measured for its width.
        fig.canvas.draw()
        fig.set_layout_engine("none")
    else:
        panels[0].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                         borderaxespad=0.0)
    return axes


def _eps_text(eps: float) -> str:
    """``eps`` for a mathtext label: 10^{-5} for powers of ten, else 0.01 style."""
    k = np.log10(eps) if eps > 0 else 0.5
    return f"10^{{{int(k)}}}" if k == round(k) and abs(k) >= 3 else f"{eps:g}"


def _vector(v: ArrayLike) -> str:
    return "(" + ", ".join(f"{x:g}" for x in np.asarray(v, dtype=float)) + ")"


@_plot(figures.response_data, panels=2)
def plot_response(data: dict, *, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    r"""Draw the response ``h_eps(t)`` (top) and its slope ``h'_eps(t)`` (bottom) on ``(-t, 0, t)``.

    Notes
    -----
    Top: the response, with dashed asymptotes at :math:`\pm\sqrt{3/2}`. Bottom: the slope on a
    log scale, each peak :math:`h'_\varepsilon(0) = \varepsilon^{-1/2}` marked with a dot. See
    :ref:`ch-epsilon`.

    Examples
    --------
    >>> fig, axes = plt.subplots(2)
    >>> top, bottom = plot_response(figures.response_data(eps_values=(0.1, 1.0)), axes=axes)
    >>> len(top.lines), len(bottom.lines)  # two curves and two asymptotes; two slopes, two peaks
    (4, 4)
    >>> plt.close(fig)
    """
    top, bottom = _new(2, sharex=True) if axes is None else axes
    for k, eps in enumerate(data["eps"]):
        label = rf"$\varepsilon = {_eps_text(eps)}$"
        (line,) = top.plot(data["t"], data["h"][k], label=label)
        bottom.plot(data["t"], data["slope"][k], color=line.get_color(), label=label)
        bottom.plot([0.0], [data["peak"][k]], "o", color=line.get_color())
    for sign in (1, -1):
        top.axhline(sign * data["limit"], linestyle="--", color=_GUIDE, linewidth=1)
    top.set(ylabel=r"$h_\varepsilon(t)$",
            title=r"response of $u_3$ to $(-t, 0, t)$; dashed $\pm\sqrt{3/2}$")
    bottom.set(xlabel=r"$t$", ylabel=r"$h'_\varepsilon(t)$", yscale="log",
               title=r"its slope; peak $h'_\varepsilon(0) = \varepsilon^{-1/2}$")
    return _legend((top, bottom), ncols=len(data["eps"]))


@_plot(figures.normalized_variance_data)
def plot_normalized_variance(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the mean square of the core, ``q / (q + eps)``, against the variance ``q``.

    Notes
    -----
    One curve per stabilizer, a dot at one half (where ``q = eps``), a dashed line at 1. See
    :ref:`ch-epsilon`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> len(plot_normalized_variance(figures.normalized_variance_data(), ax=ax).lines)
    7
    >>> plt.close(fig)
    """
    ax = _new() if ax is None else ax
    for k, eps in enumerate(data["eps"]):
        (line,) = ax.plot(data["q"], data["mean_square"][k],
                          label=rf"$\varepsilon = {_eps_text(eps)}$")
        ax.plot([eps], [data["half"][k]], "o", color=line.get_color())
    ax.axhline(1.0, linestyle="--", color=_GUIDE, linewidth=1)
    ax.set(xscale="log", xlabel=r"variance $q$", ylabel=r"$\dfrac{1}{d}\sum_i u_i^2$",
           ylim=(0, 1.05), title=r"$q/(q+\varepsilon)$, one half at $q = \varepsilon$")
    return _legend(ax, ncols=len(data["eps"]))


@_plot(figures.jacobian_eigenvalues_data)
def plot_jacobian_eigenvalues(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the eigenvalues of the core's Jacobian against ``q``.

    Notes
    -----
    Lines: the closed forms (tangential, radial, 0); dots: the eigenvalues ``eigvalsh`` finds in
    the matrices; dashed: the bound :math:`\varepsilon^{-1/2}`. See :ref:`ch-jacobian`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> len(plot_jacobian_eigenvalues(figures.jacobian_eigenvalues_data(), ax=ax).lines)
    5
    >>> plt.close(fig)
    """
    eps, d = data["eps"], data["d"]
    ax = _new(height=4.0) if ax is None else ax
    q = data["q"]
    ax.plot(q, data["tangential"],
            label=r"$\lambda_{\mathrm{tan}} = (q+\varepsilon)^{-1/2}$, on $w \perp \mathbf{1}, v$")
    ax.plot(q, data["radial"],
            label=r"$\lambda_{\mathrm{rad}} = \varepsilon/(q+\varepsilon)^{3/2}$, on $v$")
    ax.plot(q, data["zero"], label=r"$0$, on $\mathbf{1}$")
    ax.plot(np.repeat(data["sample_q"], d), data["numeric"].ravel(), "k.",
            label=r"eigenvalues of $J$ (numerical)")
    ax.axhline(data["bound"], linestyle="--", color=_GUIDE, linewidth=1,
               label=r"$\varepsilon^{-1/2}$")
    ax.set(xscale="log", xlabel=r"variance $q$", ylabel=r"eigenvalue $\lambda$",
           title=rf"eigenvalues of $Du_\varepsilon(z)$, $d = {d}$, "
                 rf"$\varepsilon = {_eps_text(eps)}$")
    return _legend(ax)


@_plot(figures.operator_norm_data)
def plot_operator_norm(data: dict, *, ax: Axes | None = None) -> Axes:
    """Draw the operator norm of the core's Jacobian against ``q``, under ``eps**-1/2``.

    Notes
    -----
    One curve per number of features, log-log, and the dashed bound. See :ref:`ch-sensitivity`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> len(plot_operator_norm(figures.operator_norm_data(dims=(2, 3)), ax=ax).lines)
    3
    >>> plt.close(fig)
    """
    eps = data["eps"]
    ax = _new() if ax is None else ax
    for d, norm in zip(data["dims"], data["norm"]):
        ax.plot(data["q"], norm, label=rf"$d = {d}$")
    ax.axhline(data["bound"], linestyle="--", color=_GUIDE, linewidth=1,
               label=r"bound $\varepsilon^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel=r"variance $q$",
           ylabel=r"$\Vert Du_\varepsilon(z)\Vert_2$",
           title=rf"local amplification, $\varepsilon = {_eps_text(eps)}$")
    return _legend(ax, ncols=len(data["dims"]) + 1)


@_plot(figures.amplification_data)
def plot_amplification(data: dict, *, ax: Axes | None = None) -> Axes:
    """Draw the finite ratio ``||u(z+δ) - u(z)|| / ||δ||`` against ``eps``, beside ``eps**-1/2``.

    Notes
    -----
    The ratio of one record and its perturbation, log-log, under the dashed bound. See
    :ref:`ch-sensitivity`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> len(plot_amplification(figures.amplification_data(), ax=ax).lines)
    2
    >>> plt.close(fig)
    """
    ax = _new() if ax is None else ax
    ax.plot(data["eps"], data["ratio"], label="finite ratio")
    ax.plot(data["eps"], data["bound"], "--", color=_GUIDE, linewidth=1.5,
            label=r"bound $\varepsilon^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel=r"$\varepsilon$",
           ylabel=r"$\Vert u_\varepsilon(z+\delta) - u_\varepsilon(z)\Vert_2 / \Vert\delta\Vert_2$",
           title=rf"$z = {_vector(data['z'])}$, $\delta = {_vector(data['delta'])}$")
    return _legend(ax, ncols=2)


@_plot(figures.shift_geometry_data)
def plot_shift_geometry(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the records ``z + c 1``, which all project along ``1`` to the same point ``P z``.

    Notes
    -----
    The plane of records of two features: the line ``z_1 + z_2 = 0``, the span of
    :math:`\mathbf 1`, each shifted record joined to :math:`Pz`. See :ref:`ch-shift`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> ax = plot_shift_geometry(figures.shift_geometry_data(shifts=(0.0, 1.0)), ax=ax)
    >>> [round(float(x), 2) for x in ax.lines[-1].get_xydata()[0]]  # P z
    [0.75, -0.75]
    >>> plt.close(fig)
    """
    ax = _new(height=5.4) if ax is None else ax
    ends = np.array([-4.0, 6.0])
    ax.plot(ends, -ends, color=_GUIDE, linewidth=1.5,
            label=r"line $\perp \mathbf{1}$: $z_1 + z_2 = 0$")
    ax.plot(ends, ends, ":", color=_GUIDE, linewidth=1.5, label=r"span$\{\mathbf{1}\}$")
    Pz = data["Pz"]
    for k, p in enumerate(data["shifted"]):
        ax.plot([p[0], Pz[0]], [p[1], Pz[1]], "--", color=_PALETTE[0], linewidth=1)
        ax.plot(*p, "o", color=_PALETTE[0],
                label=r"$z + c\mathbf{1}$ for several $c$" if k == 0 else None)
    ax.plot(*Pz, "o", color=_PALETTE[1], markersize=9, label=r"$Pz$, shared by all")
    ax.set(aspect="equal", xlim=(-3, 5), ylim=(-3, 5), xlabel=r"$z_1$", ylabel=r"$z_2$",
           title=rf"$z = {_vector(data['z'])}$")
    return _legend(ax, ncols=2)


@_plot(figures.weighted_projection_data)
def plot_weighted_projection(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the oblique projection ``P_a z`` (along 1) and the orthogonal one onto ``ker a^T``.

    Notes
    -----
    The line ``a^T w = 0``, the record, the oblique projection ``P_a z`` (circle) and the
    Euclidean one (square), each joined to the record. See :ref:`ch-weighted`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> ax = plot_weighted_projection(figures.weighted_projection_data(), ax=ax)
    >>> ax.lines[4].get_xydata().tolist()  # P_a z
    [[1.5, -0.5]]
    >>> plt.close(fig)
    """
    ax = _new(height=4.6) if ax is None else ax
    zz, oblique, orthogonal, w = data["z"], data["oblique"], data["orthogonal"], data["direction"]
    ends = np.array([-6.0, 6.0])
    ax.plot(ends * w[0], ends * w[1], color=_GUIDE, linewidth=1.5, label=r"line $a^\top w = 0$")
    ax.plot([zz[0], oblique[0]], [zz[1], oblique[1]], "--", color=_PALETTE[0], linewidth=1.2)
    ax.plot([zz[0], orthogonal[0]], [zz[1], orthogonal[1]], "--", color=_PALETTE[1],
            linewidth=1.2)
    ax.plot(*zz, "o", color="black", label=r"record $z$")
    ax.plot(*oblique, "o", color=_PALETTE[0], markersize=8,
            label=r"$P_a z$ (along $\mathbf{1}$)")
    ax.plot(*orthogonal, "s", color=_PALETTE[1], markersize=8, label="orthogonal projection")
    ax.set(aspect="equal", xlim=(-1, 5), ylim=(-2, 3), xlabel=r"$z_1$", ylabel=r"$z_2$",
           title=rf"$a = {_vector(data['a'])}$")
    return _legend(ax, ncols=2)


@_plot(figures.record_audit_data, panels=2)
def plot_record_audit(data: dict, *, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    """Draw which records move when one record changes: the layer (top) and a wrong axis (bottom).

    Notes
    -----
    One square per record ``(b, t)``, vermillion where its output moved; the cross marks the
    changed record. See :ref:`ch-records`.

    Examples
    --------
    >>> fig, axes = plt.subplots(2)
    >>> data = figures.record_audit_data(shape=(2, 3, 4), record=(1, 2))
    >>> top, bottom = plot_record_audit(data, axes=axes)
    >>> int(top.images[0].get_array().sum()), int(bottom.images[0].get_array().sum())
    (1, 3)
    >>> plt.close(fig)
    """
    B, T = data["layer_norm"].shape
    record = data["record"]
    top, bottom = _new(2, height=1.0 + 2 * (0.7 * B + 1.3)) if axes is None else axes
    cmap = ListedColormap(["#f2f2f2", _PALETTE[1]])
    for ax, key, title in ((top, "layer_norm", "layer_norm (statistics over the last axis)"),
                           (bottom, "wrong_axis", "statistics over $T$ (the wrong axis)")):
        ax.imshow(data[key], cmap=cmap, vmin=0, vmax=1)
        ax.plot(record[1], record[0], "x", color="black", markersize=11, markeredgewidth=2.5)
        ax.set(title=title, xlabel="position", ylabel="batch item",
               xticks=range(T), yticks=range(B))
        ax.grid(False)
    handles = [Patch(color=_PALETTE[1]), Patch(color="#f2f2f2", ec="#999999"),
               Line2D([], [], color="black", marker="x", linestyle="None", markersize=9,
                      markeredgewidth=2.5)]
    return _legend((top, bottom), ncols=3, handles=handles,
                   labels=["moved", "unchanged", "changed record"])


def _grouped_bars(ax: Axes, series: Sequence[tuple[str, np.ndarray]], width: float = 0.8
                  ) -> np.ndarray:
    """Draw each ``(label, values)`` as one member of a bar group per coordinate."""
    i = np.arange(len(series[0][1]))
    w = width / len(series)
    for k, (label, values) in enumerate(series):
        ax.bar(i + (k - (len(series) - 1) / 2) * w, values, w, label=label, color=_PALETTE[k])
    ax.axhline(0.0, color="#333333", linewidth=0.8)
    return i


@_plot(figures.gain_effect_data)
def plot_gain_effect(data: dict, *, ax: Axes | None = None) -> Axes:
    """Draw the core ``u_eps(z)`` beside ``gamma ⊙ u_eps(z)``, coordinate by coordinate (bias 0).

    Notes
    -----
    ``ax.containers[0]`` holds the core's bars, ``ax.containers[1]`` the scaled core's: a zero
    gain flattens its bar and a negative gain flips it. See :ref:`ch-gain`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> ax = plot_gain_effect(figures.gain_effect_data(), ax=ax)
    >>> [float(bar.get_height()) for bar in ax.containers[1]]
    [1.0, 0.0, 1.0]
    >>> plt.close(fig)
    """
    ax = _new() if ax is None else ax
    i = _grouped_bars(ax, [(r"core $u$", data["u"]), (r"$\gamma \odot u$", data["y"])])
    ax.set(xticks=i, xticklabels=[rf"$i = {k + 1}$" + "\n" + rf"$\gamma_{k + 1} = {g:g}$"
                                  for k, g in enumerate(data["gamma"])],
           ylabel="value",
           title=rf"$z = {_vector(data['z'])}$, $\varepsilon = {_eps_text(data['eps'])}$")
    return _legend(ax, ncols=2)


@_plot(figures.bias_shift_data, panels=lambda data: len(data["z"]))
def plot_bias_shift(data: dict, *, axes: Sequence[Axes] | None = None) -> tuple[Axes, ...]:
    """Draw the core, ``gamma ⊙ u`` and the output ``gamma ⊙ u + beta`` of each record.

    Notes
    -----
    One panel per record. In each, ``ax.containers`` holds the bars of the core, the scaled core
    and the output, in that order; the dashed line is the output's mean. See :ref:`ch-bias`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> data = figures.bias_shift_data(z=[(3, 3, 3)], gamma=(2, 0.5, -1), beta=(1, -1, 2))
    >>> (ax,) = plot_bias_shift(data, axes=[ax])
    >>> [float(bar.get_height()) for bar in ax.containers[2]]
    [1.0, -1.0, 2.0]
    >>> plt.close(fig)
    """
    n = len(data["z"])
    given = _new(n, sharey=True) if axes is None else axes
    panels: list[Axes] = [given] if isinstance(given, Axes) else list(given)
    for k, ax in enumerate(panels):
        i = _grouped_bars(ax, [(r"core $u$", data["u"][k]),
                               (r"$\gamma \odot u$", data["scaled"][k]),
                               (r"output $y = \gamma \odot u + \beta$", data["y"][k])])
        ax.axhline(data["y_mean"][k], linestyle="--", color=_GUIDE, linewidth=1.2)
        ax.set(xticks=i, xticklabels=[rf"$i = {j + 1}$" for j in i], ylabel="value",
               title=rf"$z = {_vector(data['z'][k])}$; dashed: mean of $y$, "
                     rf"${data['y_mean'][k]:.3f}$")
    return _legend(tuple(panels), ncols=2)


@_plot(figures.core_bound_data)
def plot_core_bound(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the largest ``|u_i|`` of seeded random records against ``d``, under ``sqrt(d - 1)``.

    Notes
    -----
    Grey dots: :math:`\max_i |u_i|` (``eps = 0``) of heavy-tailed (Cauchy) records per ``d``;
    stars: the records :math:`(d - 1, -1, \dots, -1)`, which attain the bound (dashed). See
    :ref:`ch-exercises`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> len(plot_core_bound(figures.core_bound_data(dims=(2, 3), n=5), ax=ax).lines)
    4
    >>> plt.close(fig)
    """
    ax = _new() if ax is None else ax
    for k, (d, largest) in enumerate(zip(data["dims"], data["largest"])):
        ax.plot(np.full(largest.size, d), largest, ".", color="#888888", alpha=0.4,
                label="random records" if k == 0 else None)
    ax.plot(data["dims"], data["extreme"], "*", color=_PALETTE[1], markersize=12,
            label=r"$(d-1, -1, \ldots, -1)$")
    ax.plot(data["grid"], data["bound"], "--", color="#222222", linewidth=1.5,
            label=r"bound $\sqrt{d-1}$")
    ax.set(xlabel=r"number of features $d$", ylabel=r"largest $|u_i|$",
           title=r"largest entry of the core ($\varepsilon = 0$)")
    return _legend(ax, ncols=2)


@_plot(figures.offset_error_data, offsets=[1.0, 10.0], errors={"core": [0.5, 1.0]})
def plot_offset_error(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the error of computed cores, in ulps, against the offset ``|mu|/sigma`` of the records.

    Notes
    -----
    One line per label of ``errors`` (mathtext allowed). The y axis is linear below 1 ulp and
    logarithmic above; the dashed line is :math:`|\mu|/\sigma` itself, the growth of an
    uncorrected mean's error, and the dotted line marks 4 ulp. See :ref:`ch-floating-point`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> ax = plot_offset_error(figures.offset_error_data([1.0, 1e6], {"core": [0.5, 1.0]}), ax=ax)
    >>> ax.lines[0].get_ydata().tolist()
    [0.5, 1.0]
    >>> plt.close(fig)
    """
    ax = _new(height=4.2) if ax is None else ax
    x = data["offsets"]
    markers = "osD^v<>"
    for k, (label, err) in enumerate(data["errors"].items()):
        ax.plot(x, err, marker=markers[k % len(markers)], markersize=5, label=label)
    ax.plot(x, data["guide"], "--", color=_GUIDE, linewidth=1.2, label=r"$|\mu|/\sigma$")
    ax.axhline(data["limit"], linestyle=":", color=_GUIDE, linewidth=1.5, label="4 ulp")
    ax.set(xscale="log", xlabel=r"offset $|\mu|/\sigma$",
           ylabel=r"worst error, ulps of largest $|u_i|$",
           title="float64 core against the correctly rounded core")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(0, None)
    ax.xaxis.set_major_locator(ticker.FixedLocator(data["xticks"]))
    ax.yaxis.set_major_locator(ticker.FixedLocator(data["yticks"]))
    ax.yaxis.set_minor_locator(ticker.FixedLocator([]))
    return _legend(ax, ncols=2)


@_plot(figures.eps_placement_data)
def plot_eps_placement(data: dict, *, ax: Axes | None = None) -> Axes:
    r"""Draw the RMS of each convention's output on ``alpha z`` against the spread of ``alpha z``.

    Notes
    -----
    The exact standardization has RMS 1 (dashed); eps inside the root shrinks the output once
    the variance nears eps, eps outside once the standard deviation does, and the unbiased
    divisor lowers the plateau to :math:`\sqrt{(d-1)/d}` (dotted). See :ref:`ch-frameworks`.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> data = figures.eps_placement_data(conventions=("pytorch", "annotated"))
    >>> len(plot_eps_placement(data, ax=ax).lines)
    4
    >>> plt.close(fig)
    """
    ax = _new(height=4.6) if ax is None else ax
    for c, rms in zip(data["conventions"], data["rms"]):
        root = r"inside $\sqrt{\cdot}$" if c.eps_inside else r"outside $\sqrt{\cdot}$"
        divisor = rf"$d-{c.ddof}$" if c.ddof else r"$d$"
        ax.plot(data["sigma"], rms,
                label=rf"{c.label}: $\varepsilon = {_eps_text(c.eps)}$ {root}, divisor {divisor}")
    one, lower = data["plateaus"]
    ax.axhline(one, linestyle="--", color=_GUIDE, linewidth=1)
    ax.axhline(lower, linestyle=":", color=_GUIDE, linewidth=1.2)
    ax.set(xscale="log", xlabel=r"standard deviation $\sigma$ of the record $\alpha z$",
           ylabel="RMS of the output", ylim=(0, 1.1),
           title=rf"$z = {_vector(data['z'])}$, scaled by $\alpha$")
    return _legend(ax)


@_plot(figures.benchmark_ratios_data, results={"results": {"r": {
    "name": "r", "result": {"per round": [1.0, 2.0], "median": 1.5},
    "target": {"comparison": "<=", "bound": 2.0}}}})
def plot_benchmark_ratios(data: dict, *, ax: Axes | None = None) -> Axes:
    """Draw each race's per-round ratios (dots), their median (bar) and its target (triangle).

    Notes
    -----
    One row per race of a ``benchmarks/results.json`` dict, named above its dots, on a log axis
    of ratios. See :ref:`ch-benchmarks`.

    Examples
    --------
    >>> race = {"name": "r", "result": {"per round": [0.8, 0.9], "median": 0.85},
    ...         "target": {"comparison": "<=", "bound": 1.0}}
    >>> fig, ax = plt.subplots()
    >>> data = figures.benchmark_ratios_data({"results": {"r": race}})
    >>> plot_benchmark_ratios(data, ax=ax).texts[0].get_text()
    'r: met'
    >>> plt.close(fig)
    """
    n = len(data["names"])
    ax = _new(height=1.3 + 0.75 * n) if ax is None else ax
    rows = np.arange(n)[::-1].astype(float)
    for row, rounds in zip(rows, data["rounds"]):
        ax.plot(rounds, np.full(rounds.size, row), "o", color=_PALETTE[0], alpha=0.55,
                markersize=6, label="one round" if row == rows[0] else None)
    ax.plot(data["median"], rows, "|", color="black", markersize=16, markeredgewidth=2.5,
            label="median", linestyle="None")
    ax.plot(data["target"], rows, "v", color=_PALETTE[1], markersize=9, label="target",
            linestyle="None")
    names = ax.get_yaxis_transform()  # x in axes coordinates, y in data
    for row, name, ok in zip(rows, data["names"], data["met"]):
        ax.text(0.01, row + 0.38, f"{name}: {'met' if ok else 'not met'}", transform=names,
                fontsize=_STYLE["legend.fontsize"], va="center")
    ratios = np.concatenate([data["target"], *data["rounds"]])
    lo, hi = ratios.min(), ratios.max()
    ax.set(xscale="log", xlim=(lo / 2, hi * 2), ylim=(-0.5, n - 0.2), xlabel="ratio",
           yticks=[])
    ax.grid(False, axis="y")
    ax.spines["left"].set_visible(False)
    return _legend(ax, ncols=3)


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Round ticks 1, 2, 3, 5, 7 times a power of ten between ``lo`` and ``hi`` (a log axis
    spanning less than a decade gets no labelled power of ten); at most six."""
    ticks = [m * 10.0**k for k in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))))
             for m in (1, 2, 3, 5, 7) if lo <= m * 10.0**k <= hi]
    while len(ticks) > _MAX_TICKS:
        ticks = ticks[::2]
    return ticks


@_plot(figures.placement_gradients_data, panels=2, depths=(1, 2), d=2, seeds=(0,), L=1)
def plot_placement_gradients(data: dict, *, axes: Sequence[Axes] | None = None
                             ) -> tuple[Axes, Axes]:
    """Draw the gradient norms ``||dl/dW2||_F`` at initialization, Pre-LN against Post-LN.

    Notes
    -----
    Top: the norm in every block of a stack of depth ``L``, one line per placement. Bottom: the
    norm in the last block against the depth (log-log), one line per placement, with a dotted
    :math:`L^{-1/2}` guide. See :ref:`ch-transformer`.

    Examples
    --------
    >>> fig, axes = plt.subplots(2)
    >>> data = figures.placement_gradients_data(depths=(2, 4), d=8, seeds=(0,), L=3)
    >>> top, bottom = plot_placement_gradients(data, axes=axes)
    >>> [len(line.get_xdata()) for line in top.lines]
    [3, 3]
    >>> plt.close(fig)
    """
    top, bottom = _new(2) if axes is None else axes
    for k, label in enumerate(data["labels"]):
        top.plot(data["block"], data["profile"][k], "o-", color=_PALETTE[k], label=label)
        bottom.plot(data["depths"], data["last"][k], "o-", color=_PALETTE[k], label=label)
    bottom.plot(data["depths"], data["guide"], ":", color=_GUIDE, linewidth=1.5,
                label=r"$\propto L^{-1/2}$")
    top.set(xlabel=r"block $l$ (input side first)",
            ylabel=r"$\Vert\partial\ell/\partial W_2\Vert_F$",
            title=rf"every block of a stack of depth $L = {data['L']}$", ylim=(0, None))
    bottom.set(xscale="log", yscale="log", xlabel=r"depth $L$",
               ylabel=r"$\Vert\partial\ell/\partial W_2\Vert_F$",
               title=r"the last block, against the depth $L$")
    top.xaxis.set_major_locator(ticker.MaxNLocator(nbins=_MAX_TICKS - 1, integer=True))
    bottom.xaxis.set_major_locator(ticker.FixedLocator(data["depths"]))
    bottom.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    bottom.xaxis.set_minor_locator(ticker.FixedLocator([]))
    lo, hi = bottom.get_ylim()
    ticks = _log_ticks(lo, hi)
    if len(ticks) >= 2:  # less than a decade: round values instead of powers of ten
        bottom.yaxis.set_major_locator(ticker.FixedLocator(ticks))
        bottom.yaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    handles, labels = bottom.get_legend_handles_labels()
    return _legend((top, bottom), ncols=3, handles=handles, labels=labels)


@_plot(figures.geometry_picture_data, panels=2)
def plot_geometry_picture(data: dict, *, axes: Sequence[Axes] | None = None
                          ) -> tuple[Axes, Axes]:
    r"""Draw the core for ``d = 3`` as the projection onto ``1^⊥`` followed by a radial map.

    Notes
    -----
    Top, in the orthonormal coordinates :math:`f_1^\top z`, :math:`f_2^\top z` of the plane:
    ``top.collections`` are the projections :math:`v = Pz` (grey), the cores
    :math:`u_\varepsilon(z)` (blue) and :math:`u_0(z)` (vermillion, on the dashed circle of
    radius :math:`\sqrt 3`), each on the ray through its ``v``. Bottom: the radial map
    :math:`\lVert v\rVert \mapsto \lVert u_\varepsilon(z)\rVert` for each stabilizer, with the
    limit :math:`\sqrt 3` dashed. See :ref:`ch-geometry`.

    Examples
    --------
    >>> fig, axes = plt.subplots(2)
    >>> top, bottom = plot_geometry_picture(figures.geometry_picture_data(), axes=axes)
    >>> len(top.collections), len(bottom.lines)
    (3, 3)
    >>> plt.close(fig)
    """
    eps = data["eps"]
    top, bottom = (_new(2, height=3.8 + _PANEL_HEIGHT + 2.4,
                        gridspec_kw={"height_ratios": (4, 3)}) if axes is None else axes)
    for end in data["ray_ends"]:
        top.plot([0.0, end[0]], [0.0, end[1]], color=_GUIDE, alpha=0.3, linewidth=0.8, zorder=0)
    angle = np.linspace(0.0, 2 * np.pi, 241)
    r = data["radius"]
    top.plot(r * np.cos(angle), r * np.sin(angle), "--", color=_GUIDE, linewidth=1)
    for key, color, size, label in (
            ("v", "#888888", 16, r"$v = Pz$"),
            ("u_eps", _PALETTE[0], 20, rf"$u_\varepsilon(z)$, $\varepsilon = {_eps_text(eps)}$"),
            ("u_0", _PALETTE[1], 20, r"$u_0(z)$, on the circle of radius $\sqrt{3}$")):
        top.scatter(data[key][:, 0], data[key][:, 1], color=color, s=size, label=label)
    lim = data["lim"]
    # equal scales on both axes, at least (-lim, lim) on each; the x range widens to fill
    # the panel's width
    top.update_datalim([(-lim, -lim), (lim, lim)])
    top.margins(0.0)
    top.set_aspect("equal", adjustable="datalim")
    top.set(xlabel=r"$f_1^\top z$", ylabel=r"$f_2^\top z$",
            title=r"the plane $\mathbf{1}^\perp$ of centered records, $d = 3$")
    others = iter(_PALETTE[2:])
    for e, profile in zip(data["eps_values"], data["profile"]):
        color = _PALETTE[0] if e == eps else next(others)
        bottom.plot(data["norm_v"], profile, color=color,
                    label=rf"radial map, $\varepsilon = {_eps_text(e)}$")
    bottom.axhline(r, linestyle="--", color=_GUIDE, linewidth=1,
                   label=r"$\sqrt{3}$, the limit ($\varepsilon = 0$)")
    bottom.set(xlabel=r"$\Vert v\Vert_2 = \sqrt{3q}$", ylabel=r"$\Vert u_\varepsilon(z)\Vert_2$",
               ylim=(0, 1.9),
               title=r"the radial map $\Vert v\Vert_2 \mapsto \Vert u_\varepsilon(z)\Vert_2$")
    (h1, l1), (h2, l2) = top.get_legend_handles_labels(), bottom.get_legend_handles_labels()
    return _legend((top, bottom), ncols=1, handles=h1 + h2, labels=l1 + l2)
