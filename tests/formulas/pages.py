"""The formulas of every page a reader sees, in reading order, with the markdown cell each sits in.

A page is every file of ``_toc.yml``. A notebook's cells are its markdown cells; a Markdown page
is cut into cells at its headings (a prose binding holds to the end of its section), with
``{include}`` files read in place; the API page's cells are the docstrings its autodoc
directives show (``.. math::`` blocks and ``:math:`` roles). The Markdown is read with
myst-parser's own parser and the book's extensions, so ``$...$``, ``$$...$$`` and the bodies
of directives (theorems, proofs, exercises, figure captions) are found as the site finds them.
A line ``% formulas: ...`` (a MyST comment: in the source only) binds symbols for the rest of
its cell, and an inline formula that ends in a relation and is followed by a glued value
(``$\\sqrt 2 \\approx$ {glue:text}`x:.4f```) is completed with the value as the reader sees it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import json
import pathlib
import re
from dataclasses import dataclass, field

import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

ROOT = pathlib.Path(__file__).resolve().parents[2]
GLUE_PREFIX = "application/papermill.record/"
RELATIONS = re.compile(r"=|<|>|\\(?:ne|neq|le|leq|ge|geq|approx)(?![a-zA-Z])")
COMMENT = re.compile(r"^\s*formulas:\s*(.*)$")
# a cell without any of these has no formula (it is not worth a Markdown parse)
_MAY_HOLD_MATH = re.compile(r"\$|\\begin\{|\{math\}|%\s*formulas:")


@dataclass(frozen=True)
class Formula:
    """One formula as written. ``text`` is what is checked (with a glued completion, if any);
    ``source`` what the page shows between the dollars."""

    page: str
    cell: int
    cell_id: str | None
    display: bool
    source: str
    text: str
    line: int | None = None

    @property
    def key(self) -> str:
        return normalize(self.source)

    @property
    def has_relation(self) -> bool:
        return bool(RELATIONS.search(self.text))

    @property
    def classified(self) -> bool:
        """Display formulas and inline formulas with a relation are checked or listed."""
        return self.display or self.has_relation


@dataclass(frozen=True)
class Comment:
    """A ``% formulas: ...`` line: bindings for the rest of the cell."""

    text: str
    cell: int
    line: int | None = None


@dataclass
class Cell:
    page: str
    index: int
    cell_id: str | None
    source: str
    items: list = field(default_factory=list)


def normalize(text: str) -> str:
    """A formula's text with whitespace collapsed: the key of the policy file."""
    return " ".join(text.split())


@functools.lru_cache(maxsize=1)
def _parser():
    config = MdParserConfig(enable_extensions={"amsmath", "dollarmath", "colon_fence",
                                               "deflist"})
    return create_md_parser(config, RendererHTML)


def toc_pages() -> list[str]:
    """Every page of the table of contents, as repository-relative paths, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))

    walk(toc.get("chapters"))
    for part in toc.get("parts", []) or []:
        walk(part.get("chapters"))
    out = []
    for f in files:
        for suffix in (".ipynb", ".md"):
            if (ROOT / (f + suffix)).exists():
                out.append(f + suffix)
                break
        else:
            raise FileNotFoundError(f"_toc.yml names {f}, which has no .md or .ipynb")
    return out


def _directive_body(content: str) -> str:
    lines = content.split("\n")
    i = 0
    if lines and lines[0].strip() == "---":
        try:
            i = lines[1:].index("---") + 2
        except ValueError:
            i = 0
    while i < len(lines) and re.match(r"\s*:[\w-]+:", lines[i]):
        i += 1
    return "\n".join(lines[i:])


def _walk(tokens, cell: Cell, glue: dict, base_line: int = 0):
    for t in tokens:
        line = base_line + t.map[0] + 1 if t.map else None
        if t.type == "myst_line_comment":
            m = COMMENT.match(t.content)
            if m:
                cell.items.append(Comment(m.group(1).strip(), cell.index, line))
        elif t.type in ("math_block", "math_block_label", "amsmath"):
            cell.items.append(_formula(cell, True, t.content, t.content, line))
        elif t.type in ("fence", "colon_fence"):
            m = re.match(r"\{([\w:-]+)\}", t.info.strip())
            if m and m.group(1) == "math":
                body = _directive_body(t.content)
                cell.items.append(_formula(cell, True, body, body, line))
            elif m and m.group(1) not in ("code-cell", "eval-rst", "include", "code",
                                          "code-block"):
                _walk(_parser().parse(_directive_body(t.content)), cell, glue,
                      (line or 1) - 1)
        elif t.type == "inline" and t.children:
            kids = t.children
            for k, c in enumerate(kids):
                if c.type == "math_inline":
                    text = c.content
                    completion = _glue_after(kids, k, glue)
                    if completion is not None and re.search(
                            r"(=|\\approx|\\le|\\ge|<|>)\s*$", text):
                        text = text + " " + completion
                    cell.items.append(_formula(cell, False, c.content, text, line))
                elif c.type == "math_block":  # $$ inside a paragraph
                    cell.items.append(_formula(cell, True, c.content, c.content, line))


def _glue_after(kids, k, glue):
    """The glued value right after an inline formula, as the reader sees it, in LaTeX."""
    j = k + 1
    while j < len(kids) and (kids[j].type in ("softbreak", "hardbreak") or
                             kids[j].type == "text" and not kids[j].content.strip()):
        j += 1
    if j >= len(kids) or kids[j].type != "myst_role" or not kids[j].meta.get(
            "name", "").startswith("glue"):
        return None
    name, _, spec = kids[j].content.partition(":")
    raw = glue.get(name.strip())
    if raw is None:
        return None
    try:
        shown = format(float(raw), spec) if spec else raw
    except ValueError:
        return None
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)e([-+]\d+)", shown.strip())
    if m:
        return f"{m.group(1)} \\times 10^{{{int(m.group(2))}}}"
    return shown.strip()


def _formula(cell: Cell, display: bool, source: str, text: str, line):
    return Formula(cell.page, cell.index, cell.cell_id, display, source, text, line)


def _text(source) -> str:
    return source if isinstance(source, str) else "".join(source)


def _glue_values(nb) -> dict:
    """The value of every glued name, as stored (its text/plain form)."""
    values = {}
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        for out in c.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            plain = out.get("data", {}).get(GLUE_PREFIX + "text/plain")
            if name and plain is not None:
                values[name] = _text(plain).strip().strip("'\"")
    return values


def _markdown_cells(page: str, text: str) -> list[Cell]:
    """A Markdown page cut at its headings, {include} files read in place."""
    base = (ROOT / page).parent

    def include(m):
        target = (base / m.group(1).strip()).resolve()
        return target.read_text()

    text = re.sub(r"^```\{include\}\s*(\S+)\s*\n```\s*$", include, text, flags=re.M)
    cells, current, fence = [], [], None
    for line in text.split("\n"):
        stripped = line.strip()
        if fence is None and re.match(r"^(```+|:::+)", stripped):
            fence = re.match(r"^(```+|:::+)", stripped).group(1)
        elif fence is not None and stripped == fence:
            fence = None
        if fence is None and re.match(r"^#{1,6} ", line) and current:
            cells.append("\n".join(current))
            current = []
        current.append(line)
    cells.append("\n".join(current))
    return [Cell(page, i, None, src) for i, src in enumerate(cells)]


# docstrings (reST): .. math:: blocks and :math:`...` roles
_MATH_ROLE = re.compile(r":math:`([^`]*)`")
_AUTODOC = re.compile(r"^\.\.\s+auto(function|class|module|method)::\s*(\S+)(.*?)(?=^\.\.\s|\Z)",
                      re.M | re.S)


def _docstring_formulas(cell: Cell, doc: str):
    lines = doc.split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        m = re.match(r"^(\s*)\.\. math::\s*(.*)$", line)
        if m:
            indent = len(m.group(1))
            body = [m.group(2)] if m.group(2).strip() else []
            k += 1
            while k < len(lines) and (not lines[k].strip() or
                                      len(lines[k]) - len(lines[k].lstrip()) > indent):
                if lines[k].strip():
                    body.append(lines[k].strip())
                elif body:
                    break
                k += 1
            text = "\n".join(body)
            cell.items.append(Formula(cell.page, cell.index, cell.cell_id, True, text, text))
            continue
        for r in _MATH_ROLE.finditer(line):
            cell.items.append(Formula(cell.page, cell.index, cell.cell_id, False, r.group(1),
                                      r.group(1)))
        k += 1


def _api_cells(page: str, text: str) -> list[Cell]:
    """The docstrings the API page shows, one cell per documented object, read from the
    source (``ast``), so that checking them imports nothing (not matplotlib). An
    ``automodule`` with ``:members:`` shows the module's docstring and every name of its
    ``__all__`` (a class with its public members), less ``:exclude-members:``."""
    cells = []
    for m in _AUTODOC.finditer(text):
        what, target, options = m.group(1), m.group(2), m.group(3)
        docs = [(target, _docstring(target, module=what == "module"))]
        members = re.search(r":members:[ \t]*(.*)", options)
        ex = re.search(r":exclude-members:[ \t]*(.*)", options)
        excluded = set(re.findall(r"[\w.]+", ex.group(1))) if ex else set()
        names = [n.strip() for n in members.group(1).split(",") if n.strip()] if members \
            else []
        if what == "module" and members and not names:
            for name in _all_of(target):
                if name in excluded:
                    continue
                docs.append((f"{target}.{name}", _docstring(f"{target}.{name}")))
                docs += [(f"{target}.{name}.{member}", doc)
                         for member, doc in _class_members(f"{target}.{name}", excluded)]
        elif what == "class":
            members_of = dict(_class_members(target, excluded))
            for name in names or list(members_of):
                docs.append((f"{target}.{name}", _docstring(f"{target}.{name}")))
        for name, doc in docs:
            cell = Cell(page, len(cells), name, doc)
            _docstring_formulas(cell, doc)
            cells.append(cell)
    return cells


def _all_of(module: str) -> list[str]:
    """A module's ``__all__``, as its source writes it."""
    for node in _module_ast(module).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    raise LookupError(f"{module} has no __all__")


def _class_members(target: str, excluded: set) -> list[tuple[str, str]]:
    """The public methods and properties of a class defined in the repository (a name that
    is not a class has none), with their docstrings."""
    try:
        node = _definition(target)
    except LookupError:
        return []
    if not isinstance(node, ast.ClassDef):
        return []
    return [(n.name, inspect.cleandoc(ast.get_docstring(n, clean=False) or ""))
            for n in node.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and
            not n.name.startswith("_") and n.name not in excluded]


@functools.cache
def _module_ast(module: str):
    """The syntax tree of a module of the repository (``lnbook.fp`` -> lnbook/fp.py)."""
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return ast.parse(path.read_text())
    raise ModuleNotFoundError(module)


def _docstring(target: str, module: bool = False) -> str:
    """The docstring autodoc shows for ``target`` (a module, a function, a class or a
    member), following ``from .x import name`` re-exports."""
    if module:
        return inspect.cleandoc(ast.get_docstring(_module_ast(target), clean=False) or "")
    node = _definition(target)
    if isinstance(node, str):  # data: the string literal after its assignment, if any
        return inspect.cleandoc(node)
    return inspect.cleandoc(ast.get_docstring(node, clean=False) or "")


def _definition(target: str):
    """The ast node that defines ``target`` (a def, a class, or a submodule)."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            tree = _module_ast(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        return _find(".".join(parts[:cut]), tree, parts[cut:])
    raise LookupError(f"cannot find {target}")


def _find(module: str, tree, names: list[str]):
    name, rest = names[0], names[1:]
    for k, node in enumerate(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name == name:
            return _find(module, node, rest) if rest else node
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if \
            isinstance(node, ast.AnnAssign) else []
        if not rest and any(isinstance(t, ast.Name) and t.id == name for t in targets):
            after = tree.body[k + 1] if k + 1 < len(tree.body) else None
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) and \
                    isinstance(after.value.value, str):
                return after.value.value
            return ""
        if isinstance(node, ast.ImportFrom) and node.level == 1 and any(
                (a.asname or a.name) == name for a in node.names):
            alias = next(a for a in node.names if (a.asname or a.name) == name)
            package = module if _is_package(module) else module.rpartition(".")[0]
            source = f"{package}.{node.module}" if node.module else package
            try:
                return _find(source, _module_ast(source), [alias.name] + rest)
            except LookupError:
                if node.module is None:  # from . import fp: a submodule
                    sub = f"{package}.{alias.name}"
                    tree = _module_ast(sub)
                    return _find(sub, tree, rest) if rest else tree
                raise
    raise LookupError(f"{name} is not defined in {module}")


def _is_package(module: str) -> bool:
    return ROOT.joinpath(*module.split("."), "__init__.py").exists()


def _inputs(page: str, path: pathlib.Path) -> list[pathlib.Path]:
    """The files a page's cells are made of: the page, what it includes, and for the API page
    the sources of the docstrings it shows."""
    out = [path]
    if path.suffix == ".md":
        text = path.read_text()
        out += [(path.parent / m).resolve() for m in
                re.findall(r"^```\{include\}\s*(\S+)", text, re.M)]
        if _AUTODOC.search(text):
            out += sorted((ROOT / "lnbook").rglob("*.py"))
    return out


def page_cells(page: str, path=None, only=None) -> list[Cell]:
    """The cells of a page, each with its formulas and comment lines in reading order
    (``path``: read this file instead, e.g. an edited copy; ``only``: read just these cells of
    a notebook, by index). Cached on disk (cache.py)."""
    from . import cache

    path = pathlib.Path(path) if path is not None else ROOT / page
    if only is not None and path.suffix == ".ipynb":
        return _read_cells(page, path, only)
    key = cache.key_of(*_inputs(page, path)) + page
    name = "page-" + hashlib.sha256(f"{page}:{path}".encode()).hexdigest()[:16]
    cells = cache.load(name, key)
    if cells is None:
        cells = _read_cells(page, path)
        cache.store(name, key, cells)
    return cells


def _read_cells(page: str, path: pathlib.Path, only=None) -> list[Cell]:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())  # nbformat 4 (its validation is the notebook tests')
        glue = _glue_values(nb)
        cells = []
        for i, c in enumerate(nb["cells"]):
            if c["cell_type"] != "markdown" or only is not None and i not in only:
                continue
            source = _text(c["source"])
            cell = Cell(page, i, c.get("id"), source)
            if _MAY_HOLD_MATH.search(source):
                _walk(_parser().parse(source), cell, glue)
            cells.append(cell)
        return cells
    text = path.read_text()
    cells = _markdown_cells(page, text)
    for cell in cells:
        if _MAY_HOLD_MATH.search(cell.source):
            _walk(_parser().parse(cell.source), cell, {})
    if re.search(r"^\.\.\s+auto(function|class|module)::", text, re.M):
        cells += [Cell(page, len(cells) + c.index, c.cell_id, c.source, c.items)
                  for c in _api_cells(page, text)]
    return cells
