"""The rules of the API page (book/api.md) on every public name: the page documents every
namespace, each __all__ is what its namespace defines, the chapters use only public names,
every parameter is a row of the page's table (with its kind and type), every docstring has
its sections. The table is read from the page itself, the one place it is written.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pathlib
import pkgutil
import re

import pytest

import lnbook

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = (ROOT / "book" / "api.md").read_text()
NAMESPACES = ["lnbook"] + [f"lnbook.{m.name}" for m in pkgutil.iter_modules(lnbook.__path__)
                           if not m.name.startswith("_")]
# name -> (kind, type) from the table under "### Parameter names"
TABLE = {name: (kind, type_.replace("\\|", "|")) for name, kind, type_ in re.findall(
    r"^\| `(\w+)` \| (data|option) \| `(.+?)` \|", PAGE.split("### Parameter names")[1], re.M)}
LAYER_PARAMETERS = ("gamma", "beta")  # data that may be positional although they have defaults
FOREIGN = {"lnbook.plotting.BookFigure"}  # a matplotlib Figure: matplotlib's constructor


def public_callables() -> list[tuple[str, object]]:
    """(qualified name, object) of every public function, class and public method."""
    found = []
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj, qualified = getattr(module, name), f"{module_name}.{name}"
            if qualified in FOREIGN or not callable(obj):
                continue
            found.append((qualified, obj))
            if inspect.isclass(obj):
                found += [(f"{qualified}.{a}", m) for a, m in vars(obj).items()
                          if inspect.isfunction(m) and not a.startswith("_")]
    return found


CALLABLES = public_callables()


def signature_violations(name: str, fn) -> list[str]:
    """Rules 1-3: every parameter a row of the table, with its type; options and defaulted
    data keyword-only; the positional data in the table's order; no *args or **kwargs."""
    problems, order = [], list(TABLE)
    positional = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        where = f"{name}({p.name})"
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            problems.append(f"{where}: {p.kind.description}")
        elif p.name not in TABLE:
            problems.append(f"{where}: not in the table of parameter names")
        else:
            kind, type_ = TABLE[p.name]
            if p.annotation not in (type_, f"{type_} | None" if p.default is None else type_):
                problems.append(f"{where}: type {p.annotation}, the table says {type_}")
            if p.kind is p.POSITIONAL_OR_KEYWORD:
                if kind != "data" or (p.default is not p.empty and p.name not in
                                      LAYER_PARAMETERS):
                    problems.append(f"{where}: must be keyword-only")
                positional.append(order.index(p.name))
    if positional != sorted(positional):
        problems.append(f"{name}: data out of the table's order")
    return problems


def test_the_table_is_read():
    """The table has its rows (a page that lost it would pass every signature check)."""
    assert len(TABLE) >= 50 and TABLE["z"] == ("data", "ArrayLike")
    assert TABLE["eps"] == ("option", "float") and list(TABLE).index("z") < list(TABLE).index("g")


@pytest.mark.parametrize("name, fn", CALLABLES, ids=[n for n, _ in CALLABLES])
def test_signature_follows_the_rules(name, fn):
    """Rules 1-3 of the API page."""
    assert signature_violations(name, fn) == []


def broken(z, eps: float = 1e-5, *args): ...
def unknown(gamma: ArrayLike, z: ArrayLike, x, *, seed: str = "0"): ...  # noqa: F821


def test_a_broken_signature_is_seen():
    """Each rule reports a signature that breaks it."""
    problems = " ".join(signature_violations("broken", broken) + signature_violations(
        "unknown", unknown))
    for part in ("eps): must be keyword-only", "variadic positional", "(x): not in the table",
                 "type str, the table says int", "out of the table's order"):
        assert part in problems, part


def defined_names(module) -> set[str]:
    """Public names a namespace defines at top level (in lnbook's __init__, re-exports from
    its private modules too)."""
    names = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif module is lnbook and isinstance(node, ast.ImportFrom) and node.level == 1 \
                and (node.module or "").startswith("_"):
            names |= {alias.asname or alias.name for alias in node.names}
    return {n for n in names if not n.startswith("_")}


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_the_page_shows_every_name_of_every_namespace(module_name):
    """One automodule per namespace with a bare :members: (autodoc shows the __all__), and
    each __all__ exactly what its namespace defines, every name documented where autodoc
    looks (a docstring, or a #: comment for data): so the page and the code cannot part."""
    from sphinx.pycode import ModuleAnalyzer

    module = importlib.import_module(module_name)
    section = re.search(rf"^\.\. automodule:: {re.escape(module_name)}\n((?:   :.*\n)*)", PAGE,
                        re.M)
    assert section and "   :members:\n" in section[1] and ":ignore-module-all:" not in section[1]
    assert len(module.__all__) == len(set(module.__all__))
    assert set(module.__all__) == defined_names(module)
    commented = {n for _, n in ModuleAnalyzer.for_string(inspect.getsource(module), module_name)
                 .find_attr_docs()}
    assert [n for n in module.__all__ if not (inspect.getdoc(getattr(module, n)) if callable(
        getattr(module, n)) else n in commented)] == []


def test_the_namespaces_and_the_package_face():
    """lnbook and its toolkits, nothing else public; lnbook's own namespace holds its
    __all__, its submodules and __version__ only."""
    assert set(NAMESPACES) == {"lnbook", "lnbook.figures", "lnbook.fp", "lnbook.frameworks",
                               "lnbook.geometry", "lnbook.plotting", "lnbook.transformer"}
    assert set(re.findall(r"^\.\. automodule:: (\S+)", PAGE, re.M)) == set(NAMESPACES)
    assert {n for n, o in vars(lnbook).items() if not n.startswith("_")
            and not inspect.ismodule(o)} == set(lnbook.__all__)


def test_the_chapters_call_only_public_names():
    """What the chapters' code cells take from lnbook is a public name (so the API page
    documents every function the book calls)."""
    public = set(NAMESPACES)
    for module_name in NAMESPACES:
        public |= {f"{module_name}.{n}" for n in importlib.import_module(module_name).__all__}
    used = set()
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                         if c["cell_type"] == "code")
        used |= set(re.findall(r"\blnbook(?:\.\w+)+", code))
        for module, names in re.findall(r"from (lnbook[\w.]*) import (\([^)]*\)|[^\n#]+)", code):
            used |= {f"{module}.{n}" for n in re.findall(r"\w+", names)}
    assert "lnbook.core" in used and "lnbook.fp.welford" in used
    # a name may be followed by an attribute of its value (CONVENTIONS["x"].eps)
    assert sorted(n for n in used if n not in public and not any(
        n.startswith(p + ".") and p not in NAMESPACES for p in public)) == []


# the published algorithm each function implements, as keys of book/references.bib
REFERENCES = {
    "lnbook.stats": {"chan1983algorithms"}, "lnbook.core": {"ba2016layer"},
    "lnbook.layer_norm": {"ba2016layer"}, "lnbook.rms_norm": {"zhang2019root"},
    "lnbook.batch_norm": {"ioffe2015batch"}, "lnbook.weighted_centering_matrix":
    {"bjorck1996least"}, "lnbook.fp.welford": {"welford1962note"},
    "lnbook.fp.merge_stats": {"chan1983algorithms"}, "lnbook.fp.chan_stats":
    {"chan1983algorithms"}, "lnbook.fp.pairwise_sum": {"higham2002accuracy"},
    "lnbook.frameworks.layer_norm_variant": {"pytorch_layernorm", "flax_normalization"},
    "lnbook.transformer.residual_forward": {"xiong2020layer", "vaswani2017attention"},
}
BIB = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(), re.M))


def docstring_violations(name: str, fn) -> list[str]:
    """Rule 10: Parameters (all), Returns, Raises, Examples, Notes naming the chapter, and the
    References of a published algorithm, cited from the bibliography."""
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(fn) or "")
    params = [p for p in inspect.signature(fn).parameters if p != "self"]
    documented = {n.strip() for entry in doc["Parameters"] for n in entry.name.split(",")}
    cited = {k.strip() for keys in re.findall(r":cite:[tp]:`([^`]+)`", "\n".join(
        doc["References"])) for k in keys.split(",")}
    problems = [f"{name}: undocumented {sorted(set(params) - documented)}"] if set(
        params) - documented else []
    problems += [f"{name}: no {s}" for s, ok in (
        ("Returns", doc["Returns"] or doc["Yields"] or inspect.isclass(fn)),
        ("Raises", doc["Raises"] or not params), ("Examples", doc["Examples"]),
        ("chapter in the Notes", re.search(r":ref:`(ch-[\w-]+|api|notation)`",
                                          "\n".join(doc["Notes"])))) if not ok]
    problems += [f"{name}: cites {sorted(cited - BIB)}, not in the bibliography"] if cited - BIB \
        else []
    problems += [f"{name}: must cite {sorted(REFERENCES[name] - cited)}"] if REFERENCES.get(
        name, set()) - cited else []
    if any(ord(c) < 32 and c != "\n" for c in fn.__doc__ or ""):  # "\f" of a lost backslash
        problems.append(f"{name}: a control character (a LaTeX command lost its backslash)")
    return problems


DOCUMENTED = [(n, fn) for n, fn in CALLABLES if n != "lnbook.plotting.style"]  # Yields


@pytest.mark.parametrize("name, fn", DOCUMENTED, ids=[n for n, _ in DOCUMENTED])
def test_docstring_has_every_section(name, fn):
    """Rule 10 of the API page."""
    assert docstring_violations(name, fn) == []


def test_a_broken_docstring_is_seen():
    """The docstring check sees a missing parameter, section, chapter and citation."""
    def f(z, *, eps=1e-5):
        """Do something \frac.

        Parameters
        ----------
        z : array_like
            Records.
        """

    problems = " ".join(docstring_violations("lnbook.core", f))
    for part in ("['eps']", "no Returns", "no Raises", "no Examples", "no chapter",
                 "must cite ['ba2016layer']", "control character"):
        assert part in problems, part
