"""The formulas of every page a reader sees, in reading order, by cell, with the comments beside.

A page is a file of ``_toc.yml``. A notebook's cells are its markdown cells; a Markdown page is
cut into cells at its headings (``{include}`` files read in place); a page with autodoc
directives (the API page) has one cell per docstring of ``lnbook/`` (``.. math::`` blocks and
``:math:`` roles), read with ``ast``, so that nothing is imported. Markdown is read with
myst-parser's own parser, so ``$...$``, ``$$...$$`` and the bodies of directives are found as
the site finds them. Two kinds of comment, visible in the source only, act on the formulas
after them in the cell (in a docstring, an RST comment ``.. formula ...``)::

    % formulas: f = u_\\varepsilon, eps = 1/3        bindings for the rest of the cell
    % formula $q = 0$ not checked: <reason>         the next formula $q = 0$ is not checked
    % formula not checked: <reason>                 nor is the next formula, whatever it is

An inline formula that ends in a relation and is followed by a glued value
(``$\\sqrt 2 \\approx$ {glue:text}`x:.4f```) is completed with the value the reader sees.
"""

from __future__ import annotations

import ast
import functools
import json
import pathlib
import re
from dataclasses import dataclass, field

import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

ROOT = pathlib.Path(__file__).resolve().parents[2]
RELATION = re.compile(r"=|<|>|\\(?:ne|neq|le|leq|ge|geq|approx)(?![a-zA-Z])")
BINDINGS = re.compile(r"^\s*formulas:\s*(.*)$")
SKIP = re.compile(r"^\s*formula\s*(?:\$(?P<quote>[^$]+)\$)?\s*not checked:\s*(?P<reason>.*)$")


@dataclass(frozen=True)
class Formula:
    """``source`` is what the page shows; ``text`` what is checked (a glued value added)."""

    page: str
    cell: int
    display: bool
    source: str
    text: str
    line: int | None = None

    @property
    def key(self) -> str:
        return " ".join(self.source.split())

    @property
    def classified(self) -> bool:
        """Display formulas and inline formulas with a relation are checked or excused."""
        return self.display or bool(RELATION.search(self.text))


@dataclass(frozen=True)
class Comment:
    kind: str  # "bind" (% formulas: ...) or "skip" (% formula ... not checked: ...)
    text: str  # the bindings, or the reason
    quote: str | None = None  # the formula a "skip" names
    line: int | None = None


@dataclass
class Cell:
    page: str
    index: int
    name: str | None  # the documented object, for a docstring
    items: list = field(default_factory=list)


def comment(text: str, line=None) -> Comment | None:
    text = " ".join(text.split())
    m = BINDINGS.match(text)
    if m:
        return Comment("bind", m.group(1).strip(), line=line)
    m = SKIP.match(text)
    if m:
        return Comment("skip", m.group("reason"), m.group("quote"), line)
    return None


@functools.cache
def _md():
    config = MdParserConfig(enable_extensions={"amsmath", "dollarmath", "colon_fence",
                                               "deflist"})
    return create_md_parser(config, RendererHTML)


def toc_pages() -> list[str]:
    """Every page of the table of contents, as repository paths, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            files.append(entry["file"]) if "file" in entry else None
            walk(entry.get("sections"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [next(f + s for s in (".ipynb", ".md") if (ROOT / (f + s)).exists()) for f in files]


def _directive_body(content: str) -> str:
    lines = content.split("\n")
    i = lines[1:].index("---") + 2 if lines[0].strip() == "---" and "---" in lines[1:] else 0
    while i < len(lines) and re.match(r"\s*:[\w-]+:", lines[i]):
        i += 1
    return "\n".join(lines[i:])


def _walk(tokens, cell: Cell, glue: dict, base: int = 0):
    for t in tokens:
        line = base + t.map[0] + 1 if t.map else None
        if t.type == "myst_line_comment":  # consecutive % lines make one token
            for chunk in re.split(r"\n(?=\s*formulas?\b)", t.content):
                cell.items += [c] if (c := comment(chunk, line)) else []
        elif t.type in ("math_block", "math_block_label", "amsmath"):
            cell.items.append(Formula(cell.page, cell.index, True, t.content, t.content, line))
        elif t.type in ("fence", "colon_fence") and (m := re.match(r"\{([\w:-]+)\}", t.info)):
            body = _directive_body(t.content)
            if m.group(1) == "math":
                cell.items.append(Formula(cell.page, cell.index, True, body, body, line))
            elif m.group(1) not in ("code-cell", "eval-rst", "include", "code", "code-block"):
                _walk(_md().parse(body), cell, glue, (line or 1) - 1)
        elif t.type == "inline":
            kids = t.children or []
            for k, c in enumerate(kids):
                if c.type in ("math_inline", "math_block"):
                    text = c.content
                    if c.type == "math_inline" and re.search(r"(=|\\approx|\\le|\\ge|<|>)\s*$",
                                                             text):
                        text += " " + (_glue_after(kids, k, glue) or "")
                    cell.items.append(Formula(cell.page, cell.index, c.type == "math_block",
                                              c.content, text.strip(), line))


def _glue_after(kids, k, glue) -> str | None:
    """The glued value right after an inline formula, as the reader sees it, in LaTeX."""
    rest = [c for c in kids[k + 1:k + 4] if c.type not in ("softbreak", "hardbreak") and not (
        c.type == "text" and not c.content.strip())]
    if not rest or rest[0].type != "myst_role" or not rest[0].meta.get("name", "").startswith(
            "glue"):
        return None
    name, _, spec = rest[0].content.partition(":")
    if name.strip() not in glue:
        return None
    shown = format(float(glue[name.strip()]), spec).strip() if spec else glue[name.strip()]
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)e([-+]\d+)", shown)
    return f"{m.group(1)} \\times 10^{{{int(m.group(2))}}}" if m else shown


def _glue_values(nb) -> dict:
    """The value of every glued name, as stored (its text/plain form)."""
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            plain = o.get("data", {}).get("application/papermill.record/text/plain")
            if name and plain is not None:
                out[name] = "".join(plain).strip().strip("'\"")
    return out


_MATH_ROLE = re.compile(r":math:`([^`]*)`")


def _docstring_cell(page: str, index: int, name: str, doc: str) -> Cell:
    """A docstring's ``.. math::`` blocks, ``:math:`` roles and ``.. formula`` comments."""
    cell, lines, k = Cell(page, index, name), doc.split("\n"), 0
    while k < len(lines):
        m = re.match(r"^(\s*)\.\. (math::|formula)\s*(.*)$", lines[k])
        if not m:
            cell.items += [Formula(page, index, False, r, r) for r in _MATH_ROLE.findall(
                lines[k])]
            k += 1
            continue
        body, k = [m.group(3)] if m.group(3).strip() else [], k + 1
        while k < len(lines) and (not lines[k].strip() and m.group(2) == "math::" and not body
                                  or len(lines[k]) - len(lines[k].lstrip()) > len(m.group(1))):
            body.append(lines[k].strip())
            k += 1
        text = "\n".join(b for b in body if b)
        if m.group(2) == "math::":
            cell.items.append(Formula(page, index, True, text, text))
        elif (c := comment("formula " + text)) is not None:
            cell.items.append(c)
    return cell


def _docstring_cells(page: str) -> list[Cell]:
    cells = []
    for path in sorted((ROOT / "lnbook").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and (
                    doc := ast.get_docstring(node)):
                name = f"{path.relative_to(ROOT)}:{getattr(node, 'name', '')}"
                cells.append(_docstring_cell(page, len(cells), name, doc))
    return cells


def page_cells(page: str, path=None) -> list[Cell]:
    """The cells of a page (``path``: read that file instead, e.g. an edited copy), each with
    its formulas and comments in reading order."""
    path = pathlib.Path(path or ROOT / page)
    text = path.read_text()
    if path.suffix == ".ipynb":
        nb = json.loads(text)
        glue, cells = _glue_values(nb), []
        for i, c in enumerate(nb["cells"]):
            if c["cell_type"] == "markdown":
                cells.append(Cell(page, i, c.get("id")))
                _walk(_md().parse("".join(c["source"])), cells[-1], glue)
        return cells
    text = re.sub(r"^```\{include\}\s*(\S+)\s*\n```\s*$",
                  lambda m: (path.parent / m.group(1)).read_text(), text, flags=re.M)
    sections, fence = [[]], None
    for line in text.split("\n"):
        m = re.match(r"^(```+|:::+)", line.strip())
        fence = (m.group(1) if fence is None else None if line.strip() == fence else fence) \
            if m else fence
        if fence is None and re.match(r"^#{1,6} ", line) and sections[-1]:
            sections.append([])
        sections[-1].append(line)
    cells = []
    for i, lines in enumerate(sections):
        cells.append(Cell(page, i, None))
        _walk(_md().parse("\n".join(lines)), cells[-1], {})
    if re.search(r"^\.\.\s+auto(function|class|module)::", text, re.M):
        cells += [Cell(page, len(cells) + c.index, c.name, c.items)
                  for c in _docstring_cells(page)]
    return cells
