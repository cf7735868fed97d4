"""The rules of the API (book/api.md, "Rules of the API"), checked on every public signature.

The rules and the table of parameter names are read from the page itself, so the page is the
one place they are written. Every checker below is a pure function that returns the list of
violations it finds; the tests run it on every public name (no violation allowed) and on
deliberately broken examples (a violation required), so each check is seen to fail.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from common import ROOT

import lnbook

API_PAGE = ROOT / "book" / "api.md"
# the one class whose constructor is another library's (api.md says so below the table)
FOREIGN_SIGNATURES = {"lnbook.plotting.BookFigure"}
LAYER_PARAMETERS = ("gamma", "beta")  # data that may be positional although they have defaults


@dataclass(frozen=True)
class Name:
    """One row of the table of parameter names."""

    name: str
    kind: str  # "data" or "option"
    type: str
    meaning: str
    order: int


def read_vocabulary(page: str) -> dict[str, Name]:
    """The table under "### Parameter names" of the API page: name -> row."""
    section = page.split("### Parameter names", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| (data|option) \| `(.+?)` \| (.+?) \|$", section, re.M)
    vocabulary: dict[str, Name] = {}
    for k, (name, kind, type_, meaning) in enumerate(rows):
        if name in vocabulary:
            raise AssertionError(f"{name} has two rows in the table of parameter names")
        vocabulary[name] = Name(name, kind, type_.replace("\\|", "|"), meaning, k)
    return vocabulary


VOCABULARY = read_vocabulary(API_PAGE.read_text())


def public_namespaces() -> list[str]:
    """lnbook and every submodule whose name has no leading underscore."""
    subs = [m.name for m in pkgutil.iter_modules(lnbook.__path__) if not m.name.startswith("_")]
    return ["lnbook"] + [f"lnbook.{name}" for name in sorted(subs)]


NAMESPACES = public_namespaces()


def public_callables() -> list[tuple[str, Callable]]:
    """(qualified name, object) of every public function, class and public method."""
    found = []
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            qualified = f"{module_name}.{name}"
            if inspect.isclass(obj):
                if qualified not in FOREIGN_SIGNATURES:
                    found.append((qualified, obj))
                    for attr, member in vars(obj).items():
                        if inspect.isfunction(member) and not attr.startswith("_"):
                            found.append((f"{qualified}.{attr}", member))
            elif callable(obj):
                found.append((qualified, obj))
    return found


CALLABLES = public_callables()


def annotation_text(annotation: object) -> str:
    """The annotation as written in the source (annotations are strings here)."""
    if isinstance(annotation, str):
        return annotation
    forward = getattr(annotation, "__forward_arg__", None)
    return forward if forward is not None else inspect.formatannotation(annotation)


def signature_violations(name: str, fn: Callable, vocabulary: dict[str, Name]) -> list[str]:
    """Every way the signature of ``fn`` breaks rules 1-3 of the API page."""
    problems = []
    parameters = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    positional = []
    for p in parameters:
        where = f"{name}({p.name})"
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            problems.append(f"{where}: takes *args or **kwargs")
            continue
        if p.kind is p.POSITIONAL_ONLY:
            problems.append(f"{where}: positional-only")
        row = vocabulary.get(p.name)
        if row is None:
            problems.append(f"{where}: the name is not in the table of parameter names")
            continue
        if p.annotation is p.empty:
            problems.append(f"{where}: no type annotation")
        else:
            written = annotation_text(p.annotation)
            allowed = {row.type} | ({f"{row.type} | None"} if p.default is None else set())
            if written not in allowed:
                problems.append(f"{where}: type {written}, the table says {row.type}")
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            if row.kind != "data":
                problems.append(f"{where}: an option, so it must be keyword-only")
            elif p.default is not p.empty and p.name not in LAYER_PARAMETERS:
                problems.append(f"{where}: a data argument with a default must be keyword-only")
            else:
                positional.append(row)
    orders = [row.order for row in positional]
    if orders != sorted(orders):
        problems.append(f"{name}: data out of the table's order: "
                        f"{[row.name for row in positional]}")
    return problems


def mirrored(p: inspect.Parameter) -> tuple:
    return p.name, p.kind, p.default, annotation_text(p.annotation)


def figure_violations(plot: Callable, data_fn: Callable) -> list[str]:
    """Every way ``plot`` breaks rule 4 against its data function ``data_fn``."""
    problems = []
    name = plot.__name__
    params = inspect.signature(plot).parameters
    own = [p for p in params.values() if p.name not in ("data", "ax", "axes")]
    theirs = list(inspect.signature(data_fn).parameters.values())
    if [mirrored(p) for p in own] != [mirrored(p) for p in theirs]:
        problems.append(f"{name} does not take exactly the parameters of {data_fn.__name__}: "
                        f"{[mirrored(p) for p in own]} != {[mirrored(p) for p in theirs]}")
    data = params.get("data")
    if data is None or data.kind is not data.KEYWORD_ONLY or data.default is not None:
        problems.append(f"{name}: no keyword-only data=None")
    panels = [params[k] for k in ("ax", "axes") if k in params]
    if len(panels) != 1:
        problems.append(f"{name}: must take exactly one of ax=None and axes=None")
    else:
        (panel,) = panels
        if panel.kind is not panel.KEYWORD_ONLY or panel.default is not None:
            problems.append(f"{name}: {panel.name} must be keyword-only with default None")
        returns = annotation_text(inspect.signature(plot).return_annotation)
        expected = "Axes" if panel.name == "ax" else "tuple["
        if not returns.startswith(expected) or (panel.name == "ax" and returns != "Axes"):
            problems.append(f"{name}: with {panel.name}= it must return {expected}..., "
                            f"not {returns}")
    if annotation_text(inspect.signature(data_fn).return_annotation) != "dict":
        problems.append(f"{data_fn.__name__} must return a dict")
    return problems


def defined_names(source: str, package: bool) -> set[str]:
    """Public names a module's source defines at top level: def, class, assignment; in the
    package's ``__init__`` also the names it re-exports from its private modules."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif package and isinstance(node, ast.ImportFrom) and node.level == 1 \
                and (node.module or "").startswith("_"):
            names |= {alias.asname or alias.name for alias in node.names}
    return {n for n in names if not n.startswith("_")}


def page_sections(page: str) -> dict[str, list[str]]:
    """``automodule`` target -> its option lines, for every automodule of the page."""
    sections = {}
    for m in re.finditer(r"^\.\. automodule:: (\S+)\n((?:   :.*\n)*)", page, re.M):
        sections[m.group(1)] = [line.strip() for line in m.group(2).splitlines()]
    return sections


def page_violations(page: str, namespaces: list[str]) -> list[str]:
    """The page must document each public namespace by one automodule of all its members (an
    exclusion may only drop a class member that is in no __all__)."""
    problems = []
    sections = page_sections(page)
    if set(sections) != set(namespaces):
        problems.append(f"automodule sections {sorted(sections)} != namespaces {namespaces}")
    public = {n for ns in namespaces if ns in sections
              for n in importlib.import_module(ns).__all__}
    for target, options in sections.items():
        if ":members:" not in options:
            problems.append(f"{target}: automodule without a bare :members: (all of __all__)")
        if ":ignore-module-all:" in options:
            problems.append(f"{target}: __all__ ignored")
        for option in options:
            if option.startswith(":exclude-members:"):
                dropped = {n.strip() for n in option.split(":", 2)[2].split(",")} & public
                if dropped:
                    problems.append(f"{target}: excludes public names {sorted(dropped)}")
    hand_kept = re.findall(r"^\.\. auto(?:function|class|data):: (\S+)", page, re.M)
    if hand_kept:
        problems.append(f"names listed by hand besides the automodules: {hand_kept}")
    return problems


# --- the rules on every public name --------------------------------------------------------


def test_the_table_is_read():
    """The table of parameter names has its rows, each a data or an option, and names the
    layer's symbols (a page that lost its table would otherwise pass every check below)."""
    assert len(VOCABULARY) >= 50
    for symbol in ("z", "g", "delta", "tau", "eps", "gamma", "beta", "a", "t", "L", "d", "seed"):
        assert symbol in VOCABULARY, symbol
    assert VOCABULARY["eps"].kind == "option" and VOCABULARY["z"].kind == "data"
    assert VOCABULARY["z"].order < VOCABULARY["g"].order < VOCABULARY["gamma"].order


def test_namespaces_are_the_book_s():
    """The public namespaces are lnbook and its five toolkits and plotting, nothing else."""
    assert NAMESPACES == ["lnbook", "lnbook.figures", "lnbook.fp", "lnbook.frameworks",
                          "lnbook.geometry", "lnbook.plotting", "lnbook.transformer"]
    assert len(lnbook.__all__) == 23
    assert not {"welford", "CONVENTIONS", "plane_basis", "init_blocks"} & set(lnbook.__all__)


@pytest.mark.parametrize("name, fn", CALLABLES, ids=[name for name, _ in CALLABLES])
def test_signature_follows_the_rules(name, fn):
    """Rules 1-3: data first in the table's order, then gamma and beta; options keyword-only;
    every name in the table, with its type."""
    assert signature_violations(name, fn, VOCABULARY) == []


def test_eps_is_keyword_only_everywhere():
    """eps is keyword-only in every public function that takes it (issue 17 found 12 where it
    was positional)."""
    takes = [(name, inspect.signature(fn).parameters["eps"]) for name, fn in CALLABLES
             if "eps" in inspect.signature(fn).parameters]
    assert len(takes) >= 30
    assert [name for name, p in takes if p.kind is not p.KEYWORD_ONLY] == []


def test_every_figure_has_its_data_and_plot_mirrors_it():
    """Rule 4: plot_X for every X_data and X_data for every plot_X; plot_X takes exactly X_data's
    parameters, then keyword-only data=None and ax=None (returns Axes) or axes=None (a tuple)."""
    from lnbook import figures, plotting

    plots = {n.removeprefix("plot_") for n in plotting.__all__ if n.startswith("plot_")}
    datas = {n.removesuffix("_data") for n in figures.__all__ if n.endswith("_data")}
    assert plots == datas and len(plots) == 16
    problems = [p for x in sorted(plots) for p in
                figure_violations(getattr(plotting, f"plot_{x}"), getattr(figures, f"{x}_data"))]
    assert problems == []


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_all_is_what_the_namespace_defines(module_name):
    """__all__ holds exactly the public names the namespace defines, each of them present."""
    module = importlib.import_module(module_name)
    source = inspect.getsource(module)
    assert len(module.__all__) == len(set(module.__all__))
    assert set(module.__all__) == defined_names(source, package=module_name == "lnbook")
    for name in module.__all__:
        assert hasattr(module, name), name


def test_the_package_shows_no_other_public_name():
    """Beside its __all__, lnbook's namespace holds only its submodules and __version__."""
    extra = {name for name, obj in vars(lnbook).items() if not name.startswith("_")
             and not inspect.ismodule(obj)} - set(lnbook.__all__)
    assert extra == set()


def test_the_api_page_documents_every_namespace():
    """book/api.md documents each public namespace by one automodule of all its __all__, and
    keeps no list of names by hand."""
    assert page_violations(API_PAGE.read_text(), NAMESPACES) == []


def chapter_uses() -> set[str]:
    """Every ``lnbook.name`` and ``lnbook.module.name`` the chapters' code cells write, every
    name they import from lnbook, and what they take from a namespace imported by name."""
    import nbformat

    used = set()
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        code = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells
                         if cell.cell_type == "code")
        used |= set(re.findall(r"\blnbook(?:\.\w+)+", code))
        for module, names in re.findall(r"from (lnbook(?:\.\w+)*) import (\([^)]*\)|[^\n#]+)",
                                        code):
            for name in re.findall(r"\w+", names):
                used.add(f"{module}.{name}")
                used |= {f"{module}.{name}.{attr}"
                         for attr in re.findall(rf"(?<![\w.]){name}\.(\w+)", code)}
    return used


def test_the_chapters_call_only_public_names():
    """What the chapters use of lnbook is on the API page: a public namespace or a name of its
    __all__ (so "every function the chapters call" is documented there)."""
    public = {f"lnbook.{n}" for n in lnbook.__all__} | set(NAMESPACES)
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        public |= {f"{module_name}.{n}" for n in getattr(module, "__all__", [])}
    used = chapter_uses()
    assert "lnbook.core" in used and "lnbook.plotting" in used
    outside = sorted(name for name in used if name not in public and not any(
        name.startswith(p + ".") and p not in NAMESPACES for p in public))
    assert outside == [], f"the chapters use names the API page does not show: {outside}"


def test_every_public_name_has_a_docstring():
    """Every public function, class and method has a docstring (numpydoc checks their sections
    in the site build)."""
    assert [name for name, fn in CALLABLES if not inspect.getdoc(fn)] == []


def undocumented_names(module_name: str, source: str, names: dict[str, object]) -> list[str]:
    """The names that autodoc's ``automodule`` with a bare ``:members:`` (and no
    ``:undoc-members:``) would leave out of the API page: a callable or class without a
    docstring, or data (a constant, a dict) without a ``#:`` doc comment in the source of the
    namespace that exports it."""
    from sphinx.pycode import ModuleAnalyzer

    commented = {name for _, name in ModuleAnalyzer.for_string(source, module_name)
                 .find_attr_docs()}
    missing = []
    for name, obj in names.items():
        if inspect.ismodule(obj):
            continue
        documented = bool(inspect.getdoc(obj)) if callable(obj) else name in commented
        if not documented:
            missing.append(f"{module_name}.{name}")
    return missing


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_every_name_of_all_is_on_the_api_page(module_name):
    """api.md lists every public name: each name of each __all__ is documented where autodoc
    looks (a docstring, or a ``#:`` comment for data), so its automodule shows it."""
    module = importlib.import_module(module_name)
    names = {name: getattr(module, name) for name in module.__all__}
    assert undocumented_names(module_name, inspect.getsource(module), names) == []


def test_an_undocumented_public_name_fails():
    """A constant without its ``#:`` comment and a function without a docstring are seen."""
    source = "#: documented\nA = 1\nB = 2\n"

    def f():
        pass

    def g():
        """Documented."""

    names = {"A": 1, "B": 2, "f": f, "g": g}
    assert undocumented_names("m", source, names) == ["m.B", "m.f"]


# --- each check can fail -------------------------------------------------------------------


def broken_eps_positional(z, eps: float = 1e-5): ...
def broken_unknown_name(x, *, eps: float = 1e-5): ...
def broken_type(z, *, eps: int = 1): ...
def broken_order(gamma: ArrayLike, z: ArrayLike): ...  # noqa: F821
def broken_varargs(z: ArrayLike, *args): ...  # noqa: F821
def broken_option_positional(z: ArrayLike, seed: int): ...  # noqa: F821
def broken_defaulted_data(z: ArrayLike = (1.0, 2.0)): ...  # noqa: F821
def fine(z: ArrayLike, g: ArrayLike, gamma: ArrayLike | None = None, *,  # noqa: F821
         eps: float = 1e-5): ...


@pytest.mark.parametrize("fn, message", [
    (broken_eps_positional, "an option, so it must be keyword-only"),
    (broken_unknown_name, "not in the table"),
    (broken_type, "type int, the table says float"),
    (broken_order, "out of the table's order"),
    (broken_varargs, "*args"),
    (broken_option_positional, "an option, so it must be keyword-only"),
    (broken_defaulted_data, "a data argument with a default must be keyword-only"),
])
def test_a_broken_signature_fails(fn, message):
    """Each rule of the signature check reports a signature that breaks it."""
    problems = signature_violations(fn.__name__, fn, VOCABULARY)
    assert any(message in p for p in problems), problems
    assert signature_violations("fine", fine, VOCABULARY) == []


def fig_data(*, eps: float = 0.1, d: int = 4) -> dict: ...
def plot_good(*, eps: float = 0.1, d: int = 4, data: dict | None = None,  # noqa: F821
              ax: Axes | None = None) -> Axes: ...  # noqa: F821
def plot_other_default(*, eps: float = 0.2, d: int = 4, data: dict | None = None,  # noqa: F821
                       ax: Axes | None = None) -> Axes: ...  # noqa: F821
def plot_no_data(*, eps: float = 0.1, d: int = 4, ax: Axes | None = None) -> Axes: ...  # noqa: F821
def plot_positional_ax(ax: Axes | None = None, *, eps: float = 0.1, d: int = 4,  # noqa: F821
                       data: dict | None = None) -> Axes: ...  # noqa: F821
def plot_axes_one(*, eps: float = 0.1, d: int = 4, data: dict | None = None,  # noqa: F821
                  axes: Sequence[Axes] | None = None) -> Axes: ...  # noqa: F821


@pytest.mark.parametrize("plot, message", [
    (plot_other_default, "does not take exactly the parameters"),
    (plot_no_data, "no keyword-only data=None"),
    (plot_positional_ax, "ax must be keyword-only"),
    (plot_axes_one, "must return tuple["),
])
def test_a_broken_plot_function_fails(plot, message):
    """Each rule of the figure check reports a plot function that breaks it."""
    problems = figure_violations(plot, fig_data)
    assert any(message in p for p in problems), problems
    assert figure_violations(plot_good, fig_data) == []


def test_a_broken_all_or_page_fails():
    """A name defined but missing from __all__, and a namespace the page misses, are seen."""
    source = "__all__ = ['a']\ndef a(): ...\ndef b(): ...\n_c = 1\nimport numpy as np\n"
    assert defined_names(source, package=False) == {"a", "b"}
    page = API_PAGE.read_text()
    without_fp = page.replace(".. automodule:: lnbook.fp\n", ".. automodule:: lnbook.fq\n")
    assert any("namespaces" in p for p in page_violations(without_fp, NAMESPACES))
    by_hand = page + "\n.. autofunction:: lnbook.core\n"
    assert any("by hand" in p for p in page_violations(by_hand, NAMESPACES))
    excluding = page.replace(":exclude-members: set", ":exclude-members: set, plot_response")
    assert any("excludes public names ['plot_response']" in p
               for p in page_violations(excluding, NAMESPACES))


# --- docstrings (book/api.md: numpydoc, validated in the site build) ------------------------

# the published algorithm each function implements, as keys of book/references.bib
REFERENCES = {
    "lnbook.stats": {"chan1983algorithms"},
    "lnbook.core": {"ba2016layer"},
    "lnbook.layer_norm": {"ba2016layer"},
    "lnbook.rms_norm": {"zhang2019root"},
    "lnbook.batch_norm": {"ioffe2015batch"},
    "lnbook.weighted_centering_matrix": {"bjorck1996least"},
    "lnbook.fp.welford": {"welford1962note"},
    "lnbook.fp.merge_stats": {"chan1983algorithms"},
    "lnbook.fp.chan_stats": {"chan1983algorithms"},
    "lnbook.fp.one_pass_stats": {"chan1983algorithms"},
    "lnbook.fp.pairwise_sum": {"higham2002accuracy"},
    "lnbook.fp.pairwise_depth": {"higham2002accuracy"},
    "lnbook.frameworks.layer_norm_variant": {"pytorch_layernorm", "flax_normalization"},
    "lnbook.frameworks.convention_layer_norm": {"rush2018annotated", "devlin2019bert"},
    "lnbook.transformer.residual_forward": {"xiong2020layer", "vaswani2017attention"},
    "lnbook.transformer.residual_backward": {"xiong2020layer"},
    "lnbook.transformer.layer_gradient_norms": {"xiong2020layer"},
    "lnbook.figures.placement_gradients_data": {"xiong2020layer"},
}
BIB_KEYS = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(), re.M))
SECTIONS_EXEMPT = {"lnbook.plotting.style"}  # a context manager: Yields, not Returns


def docstring_violations(name: str, fn: Callable) -> list[str]:
    """Every section book/api.md asks of a public function that its docstring lacks."""
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(fn) or "")
    problems = []
    params = [p for p in inspect.signature(fn).parameters if p != "self"]
    documented = {n.strip() for entry in doc["Parameters"] for n in entry.name.split(",")}
    if set(params) - documented:
        problems.append(f"{name}: parameters not documented: {sorted(set(params) - documented)}")
    if not (doc["Returns"] or doc["Yields"] or inspect.isclass(fn)):
        problems.append(f"{name}: no Returns section")
    if params and not doc["Raises"]:
        problems.append(f"{name}: no Raises section")
    if not doc["Examples"]:
        problems.append(f"{name}: no Examples section")
    notes = "\n".join(doc["Notes"])
    if not re.search(r":ref:`(ch-[\w-]+|api|notation)`", notes):
        problems.append(f"{name}: the Notes name no chapter (:ref:`ch-...`)")
    cited = set(re.findall(r":cite:[tp]:`([^`]+)`", "\n".join(doc["References"])))
    cited = {k.strip() for keys in cited for k in keys.split(",")}
    if cited - BIB_KEYS:
        problems.append(f"{name}: cites keys not in book/references.bib: {cited - BIB_KEYS}")
    if REFERENCES.get(name, set()) - cited:
        problems.append(f"{name}: References must cite {sorted(REFERENCES[name] - cited)}")
    return problems


DOCUMENTED = [(n, fn) for n, fn in CALLABLES if n not in SECTIONS_EXEMPT]


@pytest.mark.parametrize("name, fn", DOCUMENTED, ids=[n for n, _ in DOCUMENTED])
def test_docstring_has_every_section(name, fn):
    """Parameters (all of them), Returns, Raises, Examples, Notes naming the chapter, and a
    References section citing the bibliography where the function implements a published
    algorithm."""
    assert docstring_violations(name, fn) == []


def test_a_broken_docstring_fails():
    """The docstring check sees a missing parameter, section, chapter and citation."""
    def f(z, *, eps=1e-5):
        """Do something.

        Parameters
        ----------
        z : array_like
            Records.
        """

    problems = " ".join(docstring_violations("lnbook.core", f))
    for part in ("['eps']", "no Returns", "no Raises", "no Examples", "no chapter",
                 "must cite ['ba2016layer']"):
        assert part in problems, part


def test_no_docstring_lost_a_backslash():
    """A LaTeX command in a docstring that is not raw must double its backslash: a single
    one turns \\f, \\t, \\r, \\a, \\v into control characters (a formula silently broken)."""
    broken = [name for name, fn in CALLABLES
              if any(ord(c) < 32 and c != "\n" for c in (fn.__doc__ or ""))]
    assert broken == []
