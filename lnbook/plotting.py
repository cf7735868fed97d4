"""The book's figures, one function each. The only module that imports matplotlib.

Compute first, draw second: each ``plot_*`` takes its arrays from the matching pure function
of ``lnbook.figures`` (numpy only), draws them on the axes it is given (or on new ones, in
the book's style) and returns the axes. The figure tests check the data functions against
independent computations, and check here only that what is drawn is that data.

The style lives in one place, ``STYLE``, applied by every ``plot_*`` through
``style()``: a figure ``WIDTH`` inches wide, with fonts that stay legible when the
figure shrinks to a phone's width, the Okabe–Ito colour-blind-safe palette, an opaque white
background (a light card on a dark page), labels in matplotlib mathtext with the book's
symbols, legends outside the data, at most a handful of labels per axis, and panels stacked
vertically. New figures are ``BookFigure``: in a notebook they display as a PNG at
twice their resolution, tagged with their display size, so they are sharp on any screen.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import inspect
import io
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ParamSpec, TypeVar, cast

import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter
from numpy.typing import ArrayLike

from . import _checks, figures

__all__ = [
    "STYLE",
    "PALETTE",
    "WIDTH",
    "DISPLAY_DPI",
    "MAX_TICKS",
    "BookFigure",
    "style",
    "plot_response",
    "plot_normalized_variance",
    "plot_jacobian_eigenvalues",
    "plot_operator_norm",
    "plot_amplification",
    "plot_shift_geometry",
    "plot_weighted_projection",
    "plot_record_audit",
    "plot_gain_effect",
    "plot_bias_shift",
    "plot_core_bound",
    "plot_offset_error",
    "plot_eps_placement",
    "plot_benchmark_ratios",
    "plot_placement_gradients",
    "plot_geometry_picture",
]

#: Okabe & Ito's colour-blind-safe palette (blue, vermillion, bluish green, reddish purple,
#: orange, sky blue, black); yellow is left out, too pale on white.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
_GUIDE = "#555555"  # reference lines: bounds, asymptotes, plateaus
#: Width of every figure, in inches: about 500 px on a desktop, shrunk on a phone.
WIDTH = 5.0
#: CSS pixels per inch of figure on the page (the PNG has twice as many dots per inch).
DISPLAY_DPI = 100
_PANEL_HEIGHT = 2.9
#: At most this many labelled ticks on an axis.
MAX_TICKS = 6

#: The lnbook figure style: every plot_* applies it, nothing else sets rcParams.
STYLE: dict[str, Any] = {
    "figure.figsize": (WIDTH, 3.6),
    "figure.dpi": 2 * DISPLAY_DPI,  # every PNG of a figure, inline or saved, at twice
    "figure.facecolor": "white",
    "figure.edgecolor": "white",
    "figure.constrained_layout.use": True,
    "savefig.dpi": 200,
    "savefig.format": "svg",
    "savefig.facecolor": "white",
    "savefig.bbox": "tight",
    "svg.hashsalt": "lnbook",
    "svg.fonttype": "path",
    "axes.facecolor": "white",
    "axes.edgecolor": "#333333",
    "axes.prop_cycle": cycler(color=PALETTE),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.titlesize": 13,
    "axes.titlelocation": "left",
    "axes.labelsize": 13,
    "font.size": 13,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 12,
    "legend.frameon": False,
    "mathtext.fontset": "cm",
    "lines.linewidth": 2.0,
    "lines.markersize": 6,
}


class BookFigure(Figure):
    """A figure that displays in a notebook as a PNG at twice its resolution, sized to fit.

    The style draws at ``2 * DISPLAY_DPI`` dots per inch, so the PNG that IPython's inline
    backend makes of the figure (or, without that backend, this class) has twice the pixels
    it is shown with. This class adds ``width`` metadata (the display width in CSS pixels,
    ``DISPLAY_DPI`` per inch), which myst-nb and Jupyter apply to the image: sharp on
    high-density screens, as wide as designed on a desktop, and scaled down with its
    height on a phone (only the width is given). If a notebook asks for SVG too
    (``%config InlineBackend.figure_formats``), IPython adds it beside.
    """

    def _repr_mimebundle_(self, include: object = None, exclude: object = None
                          ) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi, bbox_inches="tight",
                     facecolor=STYLE["figure.facecolor"])
        png = buf.getvalue()
        # PNG header: the width is big-endian at bytes 16-20
        w = int.from_bytes(png[16:20], "big")
        return ({"image/png": base64.b64encode(png).decode("ascii")},
                {"image/png": {"width": round(w * DISPLAY_DPI / self.dpi)}})


@contextlib.contextmanager
def style() -> Iterator[None]:
    """The book's figure style, as a context: ``with style(): ...``.

    Yields
    ------
    None
        Inside the block, matplotlib's ``rcParams`` are :data:`STYLE`; on leaving, the caller's.

    Notes
    -----
    Every ``plot_*`` draws in this style; nothing else sets ``rcParams``. See :ref:`ch-testing`
    for the figures' reading rules.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> with style():
    ...     plt.rcParams["axes.titlelocation"]
    'left'
    """
    with plt.rc_context(STYLE):
        yield


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _figure(data_fn: Callable[..., dict], **sample: Any
            ) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Make ``draw`` the plot function of ``data_fn``, a ``lnbook.figures`` function.

    ``draw`` has the parameters of ``data_fn`` (a test checks), then ``data`` and ``ax`` or
    ``axes``; it reads only ``data`` and its axes. Called without ``data``, the plot function
    computes ``data_fn(**parameters)``; called with ``data``, it draws that dict as it is,
    and passing parameters too is a TypeError. A caller's ``data`` must have the form of what
    ``data_fn(**sample)`` returns (the same entries, each of the same kind: see
    :func:`_check_form`). ``STYLE`` applies while it draws.
    """
    reference = functools.cache(lambda: data_fn(**sample))

    def decorate(draw: Callable[_P, _R]) -> Callable[_P, _R]:
        signature = inspect.signature(draw)
        name = draw.__name__
        # the body reads data only: its required parameters are passed as None
        required = {key: None for key, p in signature.parameters.items()
                    if p.default is inspect.Parameter.empty}

        @functools.wraps(draw)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            # with data, the data function's parameters are omitted, required ones too
            bind = signature.bind_partial if "data" in kwargs else signature.bind
            try:
                given = dict(bind(*args, **kwargs).arguments)
            except TypeError as exc:
                raise TypeError(f"{name}: {exc}") from None
            data = given.pop("data", None)
            caller_data = data is not None
            where = {key: given.pop(key) for key in ("ax", "axes") if key in given}
            if data is None:
                data = data_fn(**given)
            elif given:
                raise TypeError(
                    f"{name}: pass either data or the parameters of figures."
                    f"{data_fn.__name__}, not both; got data and {', '.join(given)}")
            elif not isinstance(data, dict):
                raise TypeError(f"{name}: data must be the dict that figures."
                                f"{data_fn.__name__} returns; got {type(data).__name__}")
            else:
                _check_form(data, reference(), "data", f"{name}: ", data_fn.__name__)
                _check_data(data, "data", name)
            for key, value in where.items():
                if value is not None:
                    _check_axes(value, key, name)
            with style():
                try:
                    return cast(Any, draw)(**required, data=data, **where)
                except (ValueError, TypeError, IndexError) as exc:
                    # matplotlib's or numpy's refusal of entries of the wrong shape: said as
                    # the caller's data (the refusal of axes passes as it is)
                    if not caller_data or _raised_by(exc, _panels):
                        raise
                    kind = TypeError if isinstance(exc, TypeError) else ValueError
                    raise kind(f"{name}: data does not hold the entries, of the shapes, that "
                               f"figures.{data_fn.__name__} returns ({exc})") from exc

        # the floating-point state of the drawing, as of every public function
        return _checks.public(wrapper)

    return decorate


def _form(value: object) -> str:
    """The kind of a data entry, as :func:`_check_form` compares it."""
    if isinstance(value, dict):
        return "a dict"
    if isinstance(value, (list, tuple)):
        return "a list or tuple"
    if isinstance(value, np.ndarray):
        kind = "booleans" if value.dtype.kind == "b" else "numbers"
        return f"a {value.ndim}-d array of {kind}"
    if isinstance(value, (bool, np.bool_)):
        return "a bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "None" if value is None else f"a {type(value).__name__}"


def _check_form(value: object, like: object, where: str, prefix: str, source: str,
                top: bool = True) -> None:
    """``value`` has the form of ``like``, what figures.``source`` returns: a TypeError for an
    entry of another kind, a ValueError for a missing or an unknown entry of the data dict.
    The entries of a nested dict (labels) and of a list are each compared with the first of
    ``like``'s."""
    form, want = _form(value), _form(like)
    if form != want:
        # an array of the wrong number of axes is a wrong shape; anything else a wrong kind
        same_kind_of_array = isinstance(value, np.ndarray) and isinstance(like, np.ndarray) \
            and (value.dtype.kind == "b") == (like.dtype.kind == "b")
        kind = ValueError if same_kind_of_array else TypeError
        raise kind(f"{prefix}{where} must be {want}, as figures.{source} returns it; got "
                   f"{form}: {_checks.show(value)}")
    if isinstance(like, dict) and isinstance(value, dict):
        if top:
            missing = [k for k in like if k not in value]
            unknown = [k for k in value if k not in like]
            if missing or unknown:
                raise ValueError(
                    f"{prefix}data must hold the entries that figures.{source} returns; "
                    + (f"it lacks {', '.join(map(repr, missing))}" if missing else "")
                    + ("; " if missing and unknown else "")
                    + (f"it has {', '.join(map(repr, unknown))}, which figures.{source} does "
                       "not return" if unknown else ""))
            for key in like:
                _check_form(value[key], like[key], f"{where}[{key!r}]", prefix, source, False)
        elif like:
            first = next(iter(like.values()))
            for key, item in value.items():
                if not isinstance(key, str):
                    raise TypeError(f"{prefix}the labels of {where} must be strings; got "
                                    f"{_checks.show(key)}")
                _check_form(item, first, f"{where}[{key!r}]", prefix, source, False)
    elif isinstance(like, (list, tuple)) and isinstance(value, (list, tuple)) and like:
        for k, item in enumerate(value):
            _check_form(item, like[0], f"{where}[{k}]", prefix, source, False)


def _check_data(value: object, where: str, name: str, depth: int = 0) -> None:
    """The entries of a caller's ``data`` dict: every array real numbers (or booleans) and
    every float finite, in nested dicts, lists and tuples too; the entry is named."""
    if depth > 8:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check_data(item, f"{where}[{key!r}]", name, depth + 1)
    elif isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            _check_data(item, f"{where}[{k}]", name, depth + 1)
    elif isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{name}: {where} must be an array of real numbers; got dtype "
                            f"{value.dtype}")
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise ValueError(f"{name}: {where} contains NaN or infinite entries")
    elif isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise ValueError(f"{name}: {where} is not finite; got {_checks.show(value)}")


def _raised_by(exc: BaseException, fn: Callable[..., Any]) -> bool:
    """Whether ``exc`` was raised by ``fn`` itself (its last frame is ``fn``'s)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code is fn.__code__


def _check_axes(value: object, key: str, name: str) -> None:
    """``ax`` must be one Axes; ``axes`` a sequence of Axes (their number is the figure's)."""
    if key == "ax":
        if not isinstance(value, Axes):
            raise TypeError(f"{name}: ax must be a matplotlib Axes; got {type(value).__name__}")
        values = [value]
    elif isinstance(value, Axes) or not isinstance(value, (Sequence, np.ndarray)) \
            or not all(isinstance(a, Axes) for a in value):
        raise TypeError(f"{name}: axes must be a sequence of matplotlib Axes; got {value!r}")
    else:
        values = list(value)
    # the figures are drawn on x-y axes (log scales, limits); a polar or 3-d Axes cannot
    # take them
    for a in values:
        if a.name != "rectilinear":
            raise TypeError(f"{name}: {key} must be rectilinear (x-y) matplotlib Axes; got "
                            f"{a.name!r} axes")


def _panels(axes: Sequence[Axes], n: int) -> list[Axes]:
    """The ``n`` axes a caller gave, refusing another number."""
    if len(axes) != n:
        raise ValueError(f"axes must hold {n} matplotlib Axes for this figure; got {len(axes)}")
    return list(axes)


def _new(rows: int = 1, height: float | None = None, **kwargs: Any) -> Any:
    """New axes in a ``BookFigure``; several panels are stacked vertically.

    One ``Axes`` when ``rows`` is 1 (``plt.subplots`` squeezes), else an array of them.
    """
    height = height or (STYLE["figure.figsize"][1] if rows == 1 else _PANEL_HEIGHT * rows + 0.6)
    _, axes = plt.subplots(rows, 1, figsize=(WIDTH, height), FigureClass=BookFigure, **kwargs)
    return axes


def _finish(*axes: Axes) -> None:
    """Tick labels in the style's sizes (ticks are made at draw time), few per axis."""
    for ax in axes:
        ax.tick_params(which="both", labelsize=STYLE["xtick.labelsize"], color="#333333")
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                axis.set_major_locator(LogLocator(base=10, numticks=MAX_TICKS))
                axis.set_minor_locator(LogLocator(base=10, subs="auto", numticks=99))
                axis.set_minor_formatter(NullFormatter())
            elif scale == "linear" and not isinstance(axis.get_major_locator(), FixedLocator):
                axis.set_major_locator(MaxNLocator(nbins=MAX_TICKS - 1))


def _legend(axes: Axes | Sequence[Axes] | np.ndarray, ncols: int = 1,
            handles: Sequence[Artist] | None = None, labels: Sequence[str] | None = None
            ) -> None:
    """One legend outside the data: below the panels of a figure made here, else at the right.

    On a figure the caller made, the legend goes beside the axes, outside them. Every plot_*
    calls this last.
    """
    first = axes if isinstance(axes, Axes) else axes[0]
    if handles is None or labels is None:
        handles, labels = first.get_legend_handles_labels()
    fig = first.figure
    if isinstance(fig, BookFigure):
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols)
        # Lay the figure out once, in the style, and keep that layout: with an equal-aspect
        # axes, constrained layout would otherwise move things at every later render, and
        # the PNG that a notebook stores would differ from the one measured for its width.
        fig.canvas.draw()
        fig.set_layout_engine("none")
    else:
        first.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     borderaxespad=0.0)


def _eps_text(eps: float) -> str:
    """``eps`` for a mathtext label: 10^{-5} for powers of ten, else 0.01 style."""
    k = np.log10(eps) if eps > 0 else np.nan
    if np.isfinite(k) and k == round(k) and abs(k) >= 3:
        return f"10^{{{int(k)}}}"
    return f"{eps:g}"


def _vector(v: ArrayLike) -> str:
    return "(" + ", ".join(f"{x:g}" for x in np.asarray(v, dtype=float)) + ")"


@_figure(figures.response_data)
def plot_response(*, eps_values: Sequence[float] = figures.EPS_VALUES, t: ArrayLike | None = None,
                  data: dict | None = None, axes: Sequence[Axes] | None = None
                  ) -> tuple[Axes, Axes]:
    r"""Draw the response ``h_eps(t)`` (top) and its slope ``h'_eps(t)`` (bottom) on ``(-t, 0, t)``.

    Parameters
    ----------
    eps_values, t : as in figures.response_data
        The parameters of the figure's data, passed to :func:`lnbook.figures.response_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.response_data` returned, drawn as it is; then no other
        parameter may be passed.
    axes : sequence of matplotlib Axes, optional
        Where to draw, two, top first; new ones, stacked in a :class:`BookFigure`, if omitted.

    Returns
    -------
    tuple of matplotlib Axes
        The Axes drawn on, top first.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``axes`` is not a
        sequence of matplotlib Axes; as for :func:`lnbook.figures.response_data`.
    ValueError
        If ``axes`` does not hold the figure's panels, ``data`` lacks an entry, or as for
        :func:`lnbook.figures.response_data`.

    Notes
    -----
    Top: the response, with dashed asymptotes at :math:`\pm\sqrt{3/2}`. Bottom: the slope on a
    log scale, each peak :math:`h'_\varepsilon(0) = \varepsilon^{-1/2}` marked with a dot. The
    data are :func:`lnbook.figures.response_data`; see :ref:`ch-epsilon`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(2)
    >>> top, bottom = plot_response(eps_values=(0.1, 1.0), axes=axes)
    >>> len(top.lines), len(bottom.lines)  # two curves and two asymptotes; two slopes, two peaks
    (4, 4)
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    top, bottom = _new(2, sharex=True) if axes is None else _panels(axes, 2)
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
    _finish(top, bottom)
    _legend((top, bottom), ncols=len(data["eps"]))
    return top, bottom


@_figure(figures.normalized_variance_data)
def plot_normalized_variance(*, eps_values: Sequence[float] = figures.EPS_VALUES, d: int = 3,
                             data: dict | None = None, ax: Axes | None = None) -> Axes:
    r"""Draw the mean square of the core, ``q / (q + eps)``, against the variance ``q``.

    Parameters
    ----------
    eps_values, d : as in figures.normalized_variance_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.normalized_variance_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.normalized_variance_data` returned, drawn as it is; then
        no other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.normalized_variance_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.normalized_variance_data`.

    Notes
    -----
    One curve per stabilizer, a dot at one half (where ``q = eps``), a dashed line at 1.
    The data are :func:`lnbook.figures.normalized_variance_data`; see :ref:`ch-epsilon`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(plot_normalized_variance(eps_values=(0.1, 1.0), ax=ax).lines)
    5
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    ax = _new() if ax is None else ax
    for k, eps in enumerate(data["eps"]):
        (line,) = ax.plot(data["q"], data["mean_square"][k],
                          label=rf"$\varepsilon = {_eps_text(eps)}$")
        ax.plot([eps], [data["half"][k]], "o", color=line.get_color())
    ax.axhline(1.0, linestyle="--", color=_GUIDE, linewidth=1)
    ax.set(xscale="log", xlabel=r"variance $q$", ylabel=r"$\dfrac{1}{d}\sum_i u_i^2$",
           ylim=(0, 1.05), title=r"$q/(q+\varepsilon)$, one half at $q = \varepsilon$")
    _finish(ax)
    _legend(ax, ncols=len(data["eps"]))
    return ax


@_figure(figures.jacobian_eigenvalues_data)
def plot_jacobian_eigenvalues(*, eps: float = 0.1, d: int = 4, data: dict | None = None,
                              ax: Axes | None = None) -> Axes:
    r"""Draw the eigenvalues of the core's Jacobian against ``q``.

    Parameters
    ----------
    eps, d : as in figures.jacobian_eigenvalues_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.jacobian_eigenvalues_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.jacobian_eigenvalues_data` returned, drawn as it is; then
        no other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.jacobian_eigenvalues_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.jacobian_eigenvalues_data`.

    Notes
    -----
    Lines: the closed forms (tangential, radial, 0); dots: the eigenvalues ``eigvalsh`` finds in
    the matrices; dashed: the bound :math:`\varepsilon^{-1/2}`. The data are
    :func:`lnbook.figures.jacobian_eigenvalues_data`; see :ref:`ch-jacobian`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(plot_jacobian_eigenvalues(eps=0.1, d=4, ax=ax).lines)
    5
    >>> plt.close(fig)
    """
    data = cast(dict, data)
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
    _finish(ax)
    _legend(ax)
    return ax


@_figure(figures.operator_norm_data)
def plot_operator_norm(*, eps: float = 0.1, dims: Sequence[int] = (2, 3),
                       data: dict | None = None, ax: Axes | None = None) -> Axes:
    """Draw the operator norm of the core's Jacobian against ``q``, under ``eps**-1/2``.

    Parameters
    ----------
    eps, dims : as in figures.operator_norm_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.operator_norm_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.operator_norm_data` returned, drawn as it is; then no
        other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.operator_norm_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.operator_norm_data`.

    Notes
    -----
    One curve per number of features, log-log, and the dashed bound. The data are
    :func:`lnbook.figures.operator_norm_data`; see :ref:`ch-sensitivity`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(plot_operator_norm(dims=(2, 3), ax=ax).lines)
    3
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    eps = data["eps"]
    ax = _new() if ax is None else ax
    for d, norm in zip(data["dims"], data["norm"]):
        ax.plot(data["q"], norm, label=rf"$d = {d}$")
    ax.axhline(data["bound"], linestyle="--", color=_GUIDE, linewidth=1,
               label=r"bound $\varepsilon^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel=r"variance $q$",
           ylabel=r"$\Vert Du_\varepsilon(z)\Vert_2$",
           title=rf"local amplification, $\varepsilon = {_eps_text(eps)}$")
    _finish(ax)
    _legend(ax, ncols=len(data["dims"]) + 1)
    return ax


@_figure(figures.amplification_data)
def plot_amplification(*, z: ArrayLike = (7.0, 7.0), delta: ArrayLike = (1e-3, -1e-3),
                       data: dict | None = None, ax: Axes | None = None) -> Axes:
    """Draw the finite ratio ``||u(z+δ) - u(z)|| / ||δ||`` against ``eps``, beside ``eps**-1/2``.

    Parameters
    ----------
    z, delta : as in figures.amplification_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.amplification_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.amplification_data` returned, drawn as it is; then no
        other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.amplification_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.amplification_data`.

    Notes
    -----
    The ratio of one record and its perturbation, log-log, under the dashed bound. The data are
    :func:`lnbook.figures.amplification_data`; see :ref:`ch-sensitivity`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(plot_amplification(ax=ax).lines)
    2
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    ax = _new() if ax is None else ax
    ax.plot(data["eps"], data["ratio"], label="finite ratio")
    ax.plot(data["eps"], data["bound"], "--", color=_GUIDE, linewidth=1.5,
            label=r"bound $\varepsilon^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel=r"$\varepsilon$",
           ylabel=r"$\Vert u_\varepsilon(z+\delta) - u_\varepsilon(z)\Vert_2 / \Vert\delta\Vert_2$",
           title=rf"$z = {_vector(data['z'])}$, $\delta = {_vector(data['delta'])}$")
    _finish(ax)
    _legend(ax, ncols=2)
    return ax


@_figure(figures.shift_geometry_data)
def plot_shift_geometry(*, z: ArrayLike = (2.0, 0.5), shifts: ArrayLike = (-1.5, 0.0, 1.0, 2.0),
                        data: dict | None = None, ax: Axes | None = None) -> Axes:
    r"""Draw the records ``z + c 1``, which all project along ``1`` to the same point ``P z``.

    Parameters
    ----------
    z, shifts : as in figures.shift_geometry_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.shift_geometry_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.shift_geometry_data` returned, drawn as it is; then no
        other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.shift_geometry_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.shift_geometry_data`.

    Notes
    -----
    The plane of records of two features: the line ``z_1 + z_2 = 0``, the span of
    :math:`\mathbf 1`, each shifted record joined to :math:`Pz`. The data are
    :func:`lnbook.figures.shift_geometry_data`; see :ref:`ch-shift`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = plot_shift_geometry(shifts=(0.0, 1.0), ax=ax)
    >>> [round(float(x), 2) for x in ax.lines[-1].get_xydata()[0]]  # P z
    [0.75, -0.75]
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    ax = _new(height=5.4) if ax is None else ax
    ends = np.array([-4.0, 6.0])
    ax.plot(ends, -ends, color=_GUIDE, linewidth=1.5,
            label=r"line $\perp \mathbf{1}$: $z_1 + z_2 = 0$")
    ax.plot(ends, ends, ":", color=_GUIDE, linewidth=1.5, label=r"span$\{\mathbf{1}\}$")
    Pz = data["Pz"]
    for k, p in enumerate(data["shifted"]):
        ax.plot([p[0], Pz[0]], [p[1], Pz[1]], "--", color=PALETTE[0], linewidth=1)
        ax.plot(*p, "o", color=PALETTE[0],
                label=r"$z + c\mathbf{1}$ for several $c$" if k == 0 else None)
    ax.plot(*Pz, "o", color=PALETTE[1], markersize=9, label=r"$Pz$, shared by all")
    ax.set(aspect="equal", xlim=(-3, 5), ylim=(-3, 5), xlabel=r"$z_1$", ylabel=r"$z_2$",
           title=rf"$z = {_vector(data['z'])}$")
    _finish(ax)
    _legend(ax, ncols=2)
    return ax


@_figure(figures.weighted_projection_data)
def plot_weighted_projection(*, a: ArrayLike = (0.25, 0.75), z: ArrayLike = (4.0, 2.0),
                             data: dict | None = None, ax: Axes | None = None) -> Axes:
    r"""Draw the oblique projection ``P_a z`` (along 1) and the orthogonal one onto ``ker a^T``.

    Parameters
    ----------
    a, z : as in figures.weighted_projection_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.weighted_projection_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.weighted_projection_data` returned, drawn as it is; then
        no other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.weighted_projection_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.weighted_projection_data`.

    Notes
    -----
    The line ``a^T w = 0``, the record, and its two projections onto the line. The data
    are :func:`lnbook.figures.weighted_projection_data`; see :ref:`ch-weighted`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = plot_weighted_projection(ax=ax)
    >>> ax.lines[4].get_xydata().tolist()  # P_a z
    [[1.5, -0.5]]
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    ax = _new(height=4.6) if ax is None else ax
    zz, oblique, orthogonal, w = data["z"], data["oblique"], data["orthogonal"], data["direction"]
    ends = np.array([-6.0, 6.0])
    ax.plot(ends * w[0], ends * w[1], color=_GUIDE, linewidth=1.5, label=r"line $a^\top w = 0$")
    ax.plot([zz[0], oblique[0]], [zz[1], oblique[1]], "--", color=PALETTE[0], linewidth=1.2)
    ax.plot([zz[0], orthogonal[0]], [zz[1], orthogonal[1]], "--", color=PALETTE[1], linewidth=1.2)
    ax.plot(*zz, "o", color="black", label=r"record $z$")
    ax.plot(*oblique, "o", color=PALETTE[0], markersize=8,
            label=r"$P_a z$ (along $\mathbf{1}$)")
    ax.plot(*orthogonal, "s", color=PALETTE[1], markersize=8, label="orthogonal projection")
    ax.set(aspect="equal", xlim=(-1, 5), ylim=(-2, 3), xlabel=r"$z_1$", ylabel=r"$z_2$",
           title=rf"$a = {_vector(data['a'])}$")
    _finish(ax)
    _legend(ax, ncols=2)
    return ax


@_figure(figures.record_audit_data)
def plot_record_audit(*, shape: tuple[int, int, int] = (2, 4, 6),
                      record: tuple[int, ...] = (1, 2), data: dict | None = None,
                      axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    """Draw which records move when one record changes: the layer (top) and a wrong axis (bottom).

    Parameters
    ----------
    shape, record : as in figures.record_audit_data
        The parameters of the figure's data, passed to :func:`lnbook.figures.record_audit_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.record_audit_data` returned, drawn as it is; then no
        other parameter may be passed.
    axes : sequence of matplotlib Axes, optional
        Where to draw, two, top first; new ones, stacked in a :class:`BookFigure`, if omitted.

    Returns
    -------
    tuple of matplotlib Axes
        The Axes drawn on, top first.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``axes`` is not a
        sequence of matplotlib Axes; as for :func:`lnbook.figures.record_audit_data`.
    ValueError
        If ``axes`` does not hold the figure's panels, ``data`` lacks an entry, or as for
        :func:`lnbook.figures.record_audit_data`.

    Notes
    -----
    Each panel is the (B, T) grid of records, moved ones coloured, the changed one crossed. The
    data are :func:`lnbook.figures.record_audit_data`; see :ref:`ch-records`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(2)
    >>> top, bottom = plot_record_audit(shape=(2, 3, 4), record=(1, 2), axes=axes)
    >>> int(top.images[0].get_array().sum()), int(bottom.images[0].get_array().sum())
    (1, 3)
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    B, T = data["layer_norm"].shape
    record = data["record"]
    top, bottom = (_new(2, height=1.0 + 2 * (0.7 * B + 1.3)) if axes is None
                   else _panels(axes, 2))
    cmap = ListedColormap(["#f2f2f2", PALETTE[1]])
    for ax, key, title in ((top, "layer_norm", "layer_norm (statistics over the last axis)"),
                           (bottom, "wrong_axis", "statistics over $T$ (the wrong axis)")):
        ax.imshow(data[key], cmap=cmap, vmin=0, vmax=1)
        ax.plot(record[1], record[0], "x", color="black", markersize=11, markeredgewidth=2.5)
        ax.set(title=title, xlabel="position", ylabel="batch item",
               xticks=range(T), yticks=range(B))
        ax.grid(False)
    _finish(top, bottom)
    handles = [Patch(color=PALETTE[1]),
               Patch(color="#f2f2f2", ec="#999999"),
               Line2D([], [], color="black", marker="x", linestyle="None",
                                           markersize=9, markeredgewidth=2.5)]
    _legend((top, bottom), ncols=3, handles=handles,
            labels=["moved", "unchanged", "changed record"])
    return top, bottom


def _grouped_bars(ax: Axes, series: Sequence[tuple[str, np.ndarray]], width: float = 0.8
                  ) -> np.ndarray:
    """Draw each ``(label, values)`` as one member of a bar group per coordinate."""
    i = np.arange(len(series[0][1]))
    w = width / len(series)
    for k, (label, values) in enumerate(series):
        ax.bar(i + (k - (len(series) - 1) / 2) * w, values, w, label=label, color=PALETTE[k])
    ax.axhline(0.0, color="#333333", linewidth=0.8)
    return i


@_figure(figures.gain_effect_data)
def plot_gain_effect(*, z: ArrayLike = (1.0, 1.0, -2.0), gamma: ArrayLike = (2.0, 0.0, -1.0),
                     eps: float = 2.0, data: dict | None = None, ax: Axes | None = None) -> Axes:
    """Draw the core ``u_eps(z)`` beside ``gamma ⊙ u_eps(z)``, coordinate by coordinate (bias 0).

    Parameters
    ----------
    z, gamma, eps : as in figures.gain_effect_data
        The parameters of the figure's data, passed to :func:`lnbook.figures.gain_effect_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.gain_effect_data` returned, drawn as it is; then no other
        parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.gain_effect_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.gain_effect_data`.

    Notes
    -----
    ``ax.containers[0]`` holds the core's bars, ``ax.containers[1]`` the scaled core's: a zero
    gain flattens its bar and a negative gain flips it. The data are
    :func:`lnbook.figures.gain_effect_data`; see :ref:`ch-gain`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = plot_gain_effect(z=(1, 1, -2), gamma=(2, 0, -1), eps=2, ax=ax)
    >>> [float(bar.get_height()) for bar in ax.containers[1]]
    [1.0, 0.0, 1.0]
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    ax = _new() if ax is None else ax
    i = _grouped_bars(ax, [(r"core $u$", data["u"]), (r"$\gamma \odot u$", data["y"])])
    ax.set(xticks=i, xticklabels=[rf"$i = {k + 1}$" + "\n" + rf"$\gamma_{k + 1} = {g:g}$"
                                  for k, g in enumerate(data["gamma"])],
           ylabel="value",
           title=rf"$z = {_vector(data['z'])}$, $\varepsilon = {_eps_text(data['eps'])}$")
    _finish(ax)
    ax.xaxis.set_major_locator(FixedLocator(i.tolist()))
    _legend(ax, ncols=2)
    return ax


@_figure(figures.bias_shift_data)
def plot_bias_shift(*, z: ArrayLike = ((3.0, 3.0, 3.0), (2.0, 3.0, 4.0)),
                    gamma: ArrayLike = (2.0, 0.5, -1.0), beta: ArrayLike = (1.0, -1.0, 2.0),
                    eps: float = 1e-5, data: dict | None = None,
                    axes: Sequence[Axes] | None = None) -> tuple[Axes, ...]:
    """Draw the core, ``gamma ⊙ u`` and the output ``gamma ⊙ u + beta`` of each record.

    Parameters
    ----------
    z, gamma, beta, eps : as in figures.bias_shift_data
        The parameters of the figure's data, passed to :func:`lnbook.figures.bias_shift_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.bias_shift_data` returned, drawn as it is; then no other
        parameter may be passed.
    axes : sequence of matplotlib Axes, optional
        Where to draw, one per record, top first; new ones, stacked in a :class:`BookFigure`, if
        omitted.

    Returns
    -------
    tuple of matplotlib Axes
        The Axes drawn on, top first.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``axes`` is not a
        sequence of matplotlib Axes; as for :func:`lnbook.figures.bias_shift_data`.
    ValueError
        If ``axes`` does not hold the figure's panels, ``data`` lacks an entry, or as for
        :func:`lnbook.figures.bias_shift_data`.

    Notes
    -----
    In each panel, ``ax.containers`` holds the bars of the core, the scaled core and the output,
    in that order; the dashed line is the output's mean. The data are
    :func:`lnbook.figures.bias_shift_data`; see :ref:`ch-bias`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> (ax,) = plot_bias_shift(z=[(3, 3, 3)], gamma=(2, 0.5, -1), beta=(1, -1, 2), axes=[ax])
    >>> [float(bar.get_height()) for bar in ax.containers[2]]
    [1.0, -1.0, 2.0]
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    n = len(data["z"])
    given = _new(n, sharey=True) if axes is None else _panels(axes, n)
    panels: list[Axes] = [given] if isinstance(given, Axes) else list(given)
    for k, ax in enumerate(panels):
        i = _grouped_bars(ax, [(r"core $u$", data["u"][k]),
                               (r"$\gamma \odot u$", data["scaled"][k]),
                               (r"output $y = \gamma \odot u + \beta$", data["y"][k])])
        ax.axhline(data["y_mean"][k], linestyle="--", color=_GUIDE, linewidth=1.2)
        ax.set(xticks=i, xticklabels=[rf"$i = {j + 1}$" for j in i], ylabel="value",
               title=rf"$z = {_vector(data['z'][k])}$; dashed: mean of $y$, "
                     rf"${data['y_mean'][k]:.3f}$")
        _finish(ax)
        ax.xaxis.set_major_locator(FixedLocator(i.tolist()))
    _legend(panels, ncols=2)
    return tuple(panels)


@_figure(figures.core_bound_data)
def plot_core_bound(*, dims: Sequence[int] = (2, 3, 4, 6, 8, 12, 16), n: int = 200,
                    seed: int = 3, data: dict | None = None, ax: Axes | None = None) -> Axes:
    r"""Draw the largest ``|u_i|`` of seeded random records against ``d``, under ``sqrt(d - 1)``.

    Parameters
    ----------
    dims, n, seed : as in figures.core_bound_data
        The parameters of the figure's data, passed to :func:`lnbook.figures.core_bound_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.core_bound_data` returned, drawn as it is; then no other
        parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.core_bound_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.core_bound_data`.

    Notes
    -----
    Grey dots: :math:`\max_i |u_i|` (``eps = 0``) of heavy-tailed (Cauchy) records per ``d``;
    stars: the records :math:`(d - 1, -1, \dots, -1)`, which attain the bound (dashed). The data
    are :func:`lnbook.figures.core_bound_data`; see :ref:`ch-exercises`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(plot_core_bound(dims=(2, 3), n=5, ax=ax).lines)
    4
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    ax = _new() if ax is None else ax
    for k, (d, largest) in enumerate(zip(data["dims"], data["largest"])):
        ax.plot(np.full(largest.size, d), largest, ".", color="#888888", alpha=0.4,
                label="random records" if k == 0 else None)
    ax.plot(data["dims"], data["extreme"], "*", color=PALETTE[1], markersize=12,
            label=r"$(d-1, -1, \ldots, -1)$")
    ax.plot(data["grid"], data["bound"], "--", color="#222222", linewidth=1.5,
            label=r"bound $\sqrt{d-1}$")
    ax.set(xlabel=r"number of features $d$", ylabel=r"largest $|u_i|$",
           title=r"largest entry of the core ($\varepsilon = 0$)")
    _finish(ax)
    _legend(ax, ncols=2)
    return ax


@_figure(figures.offset_error_data, offsets=[1.0, 10.0], errors={"core": [0.5, 1.0]})
def plot_offset_error(offsets: ArrayLike, errors: dict[str, ArrayLike], *, max_ticks: int = 6,
                      data: dict | None = None, ax: Axes | None = None) -> Axes:
    r"""Draw the error of computed cores, in ulps, against the offset ``|mu|/sigma`` of the records.

    Parameters
    ----------
    offsets, errors, max_ticks : as in figures.offset_error_data
        The parameters of the figure's data, passed to :func:`lnbook.figures.offset_error_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.offset_error_data` returned, drawn as it is; then no
        other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.offset_error_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.offset_error_data`.

    Notes
    -----
    ``errors`` maps a label (mathtext allowed) to one error per offset, as
    :func:`lnbook.fp.offset_errors` returns them. The y axis is linear below 1 ulp and
    logarithmic above; the dashed line is :math:`|\mu|/\sigma` itself, the growth of an
    uncorrected mean's error, and the dotted line marks 4 ulp. The data are
    :func:`lnbook.figures.offset_error_data`; see :ref:`ch-floating-point`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = plot_offset_error([1.0, 1e6], {"core": [0.5, 1.0]}, ax=ax)
    >>> ax.lines[0].get_ydata().tolist()
    [0.5, 1.0]
    >>> plt.close(fig)
    """
    data = cast(dict, data)
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
    _finish(ax)
    ax.xaxis.set_major_locator(FixedLocator(data["xticks"]))
    ax.yaxis.set_major_locator(FixedLocator(data["yticks"]))
    ax.yaxis.set_minor_locator(FixedLocator([]))
    _legend(ax, ncols=2)
    return ax


@_figure(figures.eps_placement_data)
def plot_eps_placement(*, z: ArrayLike = (1.0, 2.0, 3.0, 4.0),
                       conventions: Sequence[str] = ("keras", "pytorch", "flax", "bert",
                                                     "annotated"),
                       data: dict | None = None, ax: Axes | None = None) -> Axes:
    r"""Draw the RMS of each convention's output on ``alpha z`` against the spread of ``alpha z``.

    Parameters
    ----------
    z, conventions : as in figures.eps_placement_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.eps_placement_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.eps_placement_data` returned, drawn as it is; then no
        other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.eps_placement_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.eps_placement_data`.

    Notes
    -----
    The exact standardization has RMS 1 (dashed); eps inside the root shrinks the output once
    the variance nears eps, eps outside once the standard deviation does, and the unbiased
    divisor lowers the plateau to :math:`\sqrt{(d-1)/d}` (dotted). The data are
    :func:`lnbook.figures.eps_placement_data`; see :ref:`ch-frameworks`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(plot_eps_placement(conventions=("pytorch", "annotated"), ax=ax).lines)
    4
    >>> plt.close(fig)
    """
    data = cast(dict, data)
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
    _finish(ax)
    _legend(ax)
    return ax


@_figure(figures.benchmark_ratios_data, results={"results": {"r": {
    "name": "r", "result": {"per round": [1.0, 2.0], "median": 1.5},
    "target": {"comparison": "<=", "bound": 2.0}}}})
def plot_benchmark_ratios(results: dict, *, data: dict | None = None,
                          ax: Axes | None = None) -> Axes:
    """Draw each race's per-round ratios (dots), their median (bar) and its target (triangle).

    Parameters
    ----------
    results : as in figures.benchmark_ratios_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.benchmark_ratios_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.benchmark_ratios_data` returned, drawn as it is; then no
        other parameter may be passed.
    ax : matplotlib Axes, optional
        Where to draw; a new :class:`BookFigure` if omitted.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``ax`` is not a
        matplotlib Axes; as for :func:`lnbook.figures.benchmark_ratios_data`.
    ValueError
        If ``data`` lacks an entry, or as for :func:`lnbook.figures.benchmark_ratios_data`.

    Notes
    -----
    One row per race of a ``benchmarks/results.json`` dict, named above its dots, on a log axis
    of ratios. The data are :func:`lnbook.figures.benchmark_ratios_data`; see
    :ref:`ch-benchmarks`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> race = {"name": "r", "result": {"per round": [0.8, 0.9], "median": 0.85},
    ...         "target": {"comparison": "<=", "bound": 1.0}}
    >>> fig, ax = plt.subplots()
    >>> plot_benchmark_ratios({"results": {"r": race}}, ax=ax).texts[0].get_text()
    'r: met'
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    n = len(data["names"])
    ax = _new(height=1.3 + 0.75 * n) if ax is None else ax
    rows = np.arange(n)[::-1].astype(float)
    for row, rounds in zip(rows, data["rounds"]):
        ax.plot(rounds, np.full(rounds.size, row), "o", color=PALETTE[0], alpha=0.55,
                markersize=6, label="one round" if row == rows[0] else None)
    ax.plot(data["median"], rows, "|", color="black", markersize=16, markeredgewidth=2.5,
            label="median", linestyle="None")
    ax.plot(data["target"], rows, "v", color=PALETTE[1], markersize=9, label="target",
            linestyle="None")
    names = ax.get_yaxis_transform()  # x in axes coordinates, y in data
    for row, name, ok in zip(rows, data["names"], data["met"]):
        ax.text(0.01, row + 0.38, f"{name}: {'met' if ok else 'not met'}", transform=names,
                fontsize=STYLE["legend.fontsize"], va="center")
    lo = min(data["target"].min(), min(r.min() for r in data["rounds"]))
    hi = max(data["target"].max(), max(r.max() for r in data["rounds"]))
    ax.set(xscale="log", xlim=(lo / 2, hi * 2), ylim=(-0.5, n - 0.2), xlabel="ratio",
           yticks=[])
    ax.grid(False, axis="y")
    ax.spines["left"].set_visible(False)
    _finish(ax)
    _legend(ax, ncols=3)
    return ax


# --- geometry and transformer figures ---


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Round ticks 1, 2, 3, 5, 7 times a power of ten between ``lo`` and ``hi`` (a log axis
    spanning less than a decade gets no labelled power of ten); at most ``MAX_TICKS``."""
    ticks = [m * 10.0**k for k in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))))
             for m in (1, 2, 3, 5, 7) if lo <= m * 10.0**k <= hi]
    while len(ticks) > MAX_TICKS:
        ticks = ticks[::2]
    return ticks


@_figure(figures.placement_gradients_data)
def plot_placement_gradients(*, depths: Sequence[int] = (2, 4, 8, 16, 32), d: int = 32,
                             seeds: Sequence[int] = (0, 1, 2, 3), L: int = 16,
                             eps: float = 1e-5, data: dict | None = None,
                             axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    """Draw the gradient norms ``||dl/dW2||_F`` at initialization, Pre-LN against Post-LN.

    Parameters
    ----------
    depths, d, seeds, L, eps : as in figures.placement_gradients_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.placement_gradients_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.placement_gradients_data` returned, drawn as it is; then
        no other parameter may be passed.
    axes : sequence of matplotlib Axes, optional
        Where to draw, two, top first; new ones, stacked in a :class:`BookFigure`, if omitted.

    Returns
    -------
    tuple of matplotlib Axes
        The Axes drawn on, top first.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``axes`` is not a
        sequence of matplotlib Axes; as for :func:`lnbook.figures.placement_gradients_data`.
    ValueError
        If ``axes`` does not hold the figure's panels, ``data`` lacks an entry, or as for
        :func:`lnbook.figures.placement_gradients_data`.

    Notes
    -----
    Top: the norm in every block of a stack of depth ``L``, one line per placement. Bottom: the
    norm in the last block against the depth (log-log), one line per placement, with a dotted
    :math:`L^{-1/2}` guide. The data are :func:`lnbook.figures.placement_gradients_data`; see
    :ref:`ch-transformer`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(2)
    >>> top, bottom = plot_placement_gradients(depths=(2, 4), d=8, seeds=(0,), L=3, axes=axes)
    >>> [len(line.get_xdata()) for line in top.lines]
    [3, 3]
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    top, bottom = _new(2) if axes is None else _panels(axes, 2)
    for k, label in enumerate(data["labels"]):
        top.plot(data["block"], data["profile"][k], "o-", color=PALETTE[k], label=label)
        bottom.plot(data["depths"], data["last"][k], "o-", color=PALETTE[k], label=label)
    bottom.plot(data["depths"], data["guide"], ":", color=_GUIDE, linewidth=1.5,
                label=r"$\propto L^{-1/2}$")
    top.set(xlabel=r"block $l$ (input side first)",
            ylabel=r"$\Vert\partial\ell/\partial W_2\Vert_F$",
            title=rf"every block of a stack of depth $L = {data['L']}$", ylim=(0, None))
    bottom.set(xscale="log", yscale="log", xlabel=r"depth $L$",
               ylabel=r"$\Vert\partial\ell/\partial W_2\Vert_F$",
               title=r"the last block, against the depth $L$")
    _finish(top, bottom)
    top.xaxis.set_major_locator(MaxNLocator(nbins=MAX_TICKS - 1, integer=True))
    bottom.xaxis.set_major_locator(FixedLocator(data["depths"]))
    bottom.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    bottom.xaxis.set_minor_locator(FixedLocator([]))
    lo, hi = bottom.get_ylim()
    ticks = _log_ticks(lo, hi)
    if len(ticks) >= 2:  # less than a decade: round values instead of powers of ten
        bottom.yaxis.set_major_locator(FixedLocator(ticks))
        bottom.yaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    handles, labels = bottom.get_legend_handles_labels()
    _legend((top, bottom), ncols=3, handles=handles, labels=labels)
    return top, bottom


@_figure(figures.geometry_picture_data)
def plot_geometry_picture(*, z: ArrayLike | None = None, eps: float = 1.0,
                          eps_values: Sequence[float] = (0.1, 1.0), data: dict | None = None,
                          axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    r"""Draw the core for ``d = 3`` as the projection onto ``1^⊥`` followed by a radial map.

    Parameters
    ----------
    z, eps, eps_values : as in figures.geometry_picture_data
        The parameters of the figure's data, passed to
        :func:`lnbook.figures.geometry_picture_data`.
    data : dict, optional
        The dict :func:`lnbook.figures.geometry_picture_data` returned, drawn as it is; then no
        other parameter may be passed.
    axes : sequence of matplotlib Axes, optional
        Where to draw, two, top first; new ones, stacked in a :class:`BookFigure`, if omitted.

    Returns
    -------
    tuple of matplotlib Axes
        The Axes drawn on, top first.

    Raises
    ------
    TypeError
        If ``data`` is given with other parameters or is not a dict, or ``axes`` is not a
        sequence of matplotlib Axes; as for :func:`lnbook.figures.geometry_picture_data`.
    ValueError
        If ``axes`` does not hold the figure's panels, ``data`` lacks an entry, or as for
        :func:`lnbook.figures.geometry_picture_data`.

    Notes
    -----
    Top, in the orthonormal coordinates :math:`f_1^\top z`, :math:`f_2^\top z` of the plane:
    ``top.collections`` are the projections :math:`v = Pz` (grey), the cores
    :math:`u_\varepsilon(z)` (blue) and :math:`u_0(z)` (vermillion, on the dashed circle of
    radius :math:`\sqrt 3`), each on the ray through its ``v``. Bottom: the radial map
    :math:`\lVert v\rVert \mapsto \lVert u_\varepsilon(z)\rVert` for each stabilizer, with the
    limit :math:`\sqrt 3` dashed. The data are :func:`lnbook.figures.geometry_picture_data`; see
    :ref:`ch-geometry`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(2)
    >>> top, bottom = plot_geometry_picture(axes=axes)
    >>> len(top.collections), len(bottom.lines)
    (3, 3)
    >>> plt.close(fig)
    """
    data = cast(dict, data)
    eps = data["eps"]
    top, bottom = (_new(2, height=3.8 + _PANEL_HEIGHT + 2.4, gridspec_kw={"height_ratios": (4, 3)})
                   if axes is None else _panels(axes, 2))
    for end in data["ray_ends"]:
        top.plot([0.0, end[0]], [0.0, end[1]], color=_GUIDE, alpha=0.3, linewidth=0.8, zorder=0)
    angle = np.linspace(0.0, 2 * np.pi, 241)
    r = data["radius"]
    top.plot(r * np.cos(angle), r * np.sin(angle), "--", color=_GUIDE, linewidth=1)
    v, u_eps, u_0 = data["v"], data["u_eps"], data["u_0"]
    top.scatter(v[:, 0], v[:, 1], color="#888888", s=16, label=r"$v = Pz$")
    top.scatter(u_eps[:, 0], u_eps[:, 1], color=PALETTE[0], s=20,
                label=rf"$u_\varepsilon(z)$, $\varepsilon = {_eps_text(eps)}$")
    top.scatter(u_0[:, 0], u_0[:, 1], color=PALETTE[1], s=20,
                label=r"$u_0(z)$, on the circle of radius $\sqrt{3}$")
    lim = data["lim"]
    # equal scales on both axes, at least (-lim, lim) on each; the x range widens to fill
    # the panel's width
    top.update_datalim([(-lim, -lim), (lim, lim)])
    top.margins(0.0)
    top.set_aspect("equal", adjustable="datalim")
    top.set(xlabel=r"$f_1^\top z$",
            ylabel=r"$f_2^\top z$",
            title=r"the plane $\mathbf{1}^\perp$ of centered records, $d = 3$")
    others = iter(PALETTE[2:])
    for e, profile in zip(data["eps_values"], data["profile"]):
        color = PALETTE[0] if e == eps else next(others)
        bottom.plot(data["norm_v"], profile, color=color,
                    label=rf"radial map, $\varepsilon = {_eps_text(e)}$")
    bottom.axhline(r, linestyle="--", color=_GUIDE, linewidth=1,
                   label=r"$\sqrt{3}$, the limit ($\varepsilon = 0$)")
    bottom.set(xlabel=r"$\Vert v\Vert_2 = \sqrt{3q}$", ylabel=r"$\Vert u_\varepsilon(z)\Vert_2$",
               ylim=(0, 1.9),
               title=r"the radial map $\Vert v\Vert_2 \mapsto \Vert u_\varepsilon(z)\Vert_2$")
    _finish(top, bottom)
    handles: list[Artist] = []
    labels: list[str] = []
    for ax in (top, bottom):
        h, lab = ax.get_legend_handles_labels()
        handles += h
        labels += lab
    _legend((top, bottom), ncols=1, handles=handles, labels=labels)
    return top, bottom
