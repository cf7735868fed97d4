"""Reading the built PDF (``tools/build-pdf``) and the sources it was made from (test_pdf.py;
tests/test_pdf_sources.py).

The PDF is read with poppler's command-line tools (``pdftotext``, ``pdfinfo -dests``,
``pdfimages -list``), its LaTeX side from the ``.tex``, ``.aux`` and ``.log`` beside it. A page
of the book (a chapter, or one of the unnumbered pages) is found in the PDF through the label
Sphinx puts at its start (``book/records::doc``): the ``.aux`` names its anchor, ``pdfinfo``
the physical page of the anchor, and the page runs until the next page of the book starts.

The sources are read independently of Sphinx's LaTeX writer: the Markdown of each notebook and
page parsed with myst-parser's own markdown-it configuration (the extensions ``_config.yml``
enables), the glued values from the outputs stored in the notebooks, formatted by myst-nb's
``format_plain_text``, the function the website's ``{glue:text}`` role renders with.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
import subprocess

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build" / "pdf"
PDF = BUILD / "lnbook.pdf"
LATEX = BUILD / "_build" / "latex"
TEX, AUX, LOG = (LATEX / f"lnbook.{ext}" for ext in ("tex", "aux", "log"))
SITE_PDF = ROOT / "_build" / "html" / "lnbook.pdf"  # where tools/build-site puts it


# --------------------------------------------------------------------------------------------
# The book's pages, from _toc.yml


@functools.cache
def toc() -> list[tuple[str, bool]]:
    """``(docname, numbered)`` of every page in reading order, the root first."""
    data = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [(data["root"], False)]
    for part in data["parts"]:
        pages += [(chapter["file"], bool(part.get("numbered"))) for chapter in part["chapters"]]
    return pages


def source_path(docname: str) -> pathlib.Path:
    for suffix in (".ipynb", ".md"):
        path = ROOT / f"{docname}{suffix}"
        if path.exists():
            return path
    raise FileNotFoundError(f"no source for {docname} (.ipynb or .md)")


def notebook(docname: str) -> dict | None:
    path = source_path(docname)
    return json.loads(path.read_text()) if path.suffix == ".ipynb" else None


def markdown(docname: str) -> str:
    """The page's Markdown: a notebook's markdown cells and the Markdown its code cells
    display (a table shown with IPython's Markdown, rendered as MyST), or the .md file, with
    every ``{include}`` directive replaced by the file it includes (the benchmarks page's
    part)."""
    path = source_path(docname)
    nb = notebook(docname)
    if nb is None:
        text = path.read_text()
    else:
        parts = []
        for c in nb["cells"]:
            if c["cell_type"] == "markdown":
                parts.append("".join(c["source"]))
            for out in c.get("outputs", []):
                shown = out.get("data", {}).get("text/markdown")
                if shown is not None:
                    parts.append("".join(shown))
        text = "\n\n".join(parts)

    def include(m: re.Match) -> str:
        return (path.parent / m.group(1).strip()).read_text()

    return re.sub(r"```\{include\}\s*(\S+)\s*\n```", include, text)


# --------------------------------------------------------------------------------------------
# Glued values, as the website shows them


def glued_values(docname: str) -> list[tuple[str, str]]:
    """``(name, text)`` of every ``{glue:text}`` (or ``{glue}``) role of the page, in order,
    the text being what myst-nb renders from the value stored in the notebook."""
    from myst_nb.core.variables import format_plain_text

    nb = notebook(docname)
    if nb is None:
        return []
    stored = {}
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                data = out["data"]
                stored[name] = "".join(data.get("application/papermill.record/text/plain", ""))
    values = []
    for role in re.finditer(r"\{glue(?::text)?\}`([^`]+)`", markdown(docname)):
        key, _, spec = role.group(1).partition(":")
        if key not in stored:
            raise KeyError(f"{docname}: {{glue:text}}`{role.group(1)}` has no stored value")
        values.append((role.group(1), format_plain_text(stored[key], spec or "s")))
    return values


def glued_figures(docname: str) -> list[str]:
    """The ``:name:`` of every figure the page shows (``{glue:figure}`` and ``{figure}``)."""
    names = []
    for block in re.finditer(r"```\{(?:glue:figure|figure)\}[^\n]*\n((?:\s*:[\w-]+:.*\n)*)",
                             markdown(docname)):
        name = re.search(r":name:\s*(\S+)", block.group(1))
        if name is None:
            raise ValueError(f"{docname}: a figure without :name: cannot be referred to: "
                             f"{block.group(0)!r}")
        names.append(name.group(1))
    return names


# --------------------------------------------------------------------------------------------
# Formulas in the sources


@functools.cache
def _parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = set(config["parse"]["myst_enable_extensions"])
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


# directives whose body is not Markdown: code, and reStructuredText (counted apart)
LITERAL = {"code-block", "code", "code-cell", "eval-rst", "raw", "include"}
OPTION = re.compile(r"\A(?:[ \t]*:[\w-]+:.*\n)*")


def count_formulas(text: str) -> tuple[int, int]:
    """``(inline, display)`` formulas of MyST Markdown, inside directives too (a theorem's
    title and body, a figure's caption) but ``{only} html``; ``{eval-rst}`` blocks are counted by
    :func:`count_rst_formulas`."""
    inline = display = 0
    stack = list(_parser().parse(text))
    while stack:
        token = stack.pop()
        if token.type == "math_inline":
            inline += 1
        elif token.type in ("math_block", "math_block_label", "amsmath"):
            display += 1
        elif token.type == "fence" and token.info.startswith("{") and "}" in token.info:
            name, _, argument = token.info[1:].partition("}")
            if name == "math":
                display += 1
            elif name == "eval-rst":
                i, d = count_rst_formulas(token.content)
                inline, display = inline + i, display + d
            elif name not in LITERAL and (name, argument.strip()) != ("only", "html"):
                for part in (argument, OPTION.sub("", token.content)):
                    i, d = count_formulas(part)
                    inline, display = inline + i, display + d
        stack.extend(token.children or [])
    return inline, display


def _documented(kind: str, dotted: str, options: str) -> list[str]:
    """The docstrings autodoc shows for one ``.. auto<kind>:: dotted`` with its options: an
    object's; a module's, and with ``:members:`` every name of its ``__all__`` (a class with
    its public members), less ``:exclude-members:``."""
    import importlib
    import inspect

    def obj(path: str):
        try:
            return importlib.import_module(path)
        except ImportError:
            module, _, name = path.rpartition(".")
            return getattr(importlib.import_module(module), name)

    def members(cls) -> list[str]:
        return [inspect.getdoc(v) or "" for k, v in vars(cls).items()
                if not k.startswith("_") and k not in excluded
                and (callable(v) or isinstance(v, property))]

    ex = re.search(r":exclude-members:[ \t]*(.*)", options)
    excluded = set(re.findall(r"[\w.]+", ex.group(1))) if ex else set()
    target = obj(dotted)
    docs = [inspect.getdoc(target) or ""]
    if kind == "class":
        docs += members(target)
    elif kind == "module" and re.search(r":members:[ \t]*$", options, re.M):
        for name in getattr(target, "__all__", []):
            if name in excluded:
                continue
            value = getattr(target, name)
            if callable(value) or inspect.ismodule(value):
                docs.append(inspect.getdoc(value) or "")
            if inspect.isclass(value):
                docs += members(value)
    elif kind not in ("function", "data", "module"):
        raise ValueError(f"count_rst_formulas reads autofunction/autoclass/autodata/automodule, "
                         f"not auto{kind} {dotted}: extend it")
    return docs


def count_rst_formulas(rst: str) -> tuple[int, int]:
    """``(inline, display)`` formulas of an ``{eval-rst}`` block: ``:math:`` roles and
    ``.. math::`` directives, in the block and in the docstrings it documents."""
    texts = [rst]
    for m in re.finditer(r"^\s*\.\. auto(\w+)::\s*(\S+)((?:\n[ \t]+:.*)*)", rst, re.M):
        texts += _documented(*m.groups())
    text = "\n".join(texts)
    return len(re.findall(r":math:`", text)), len(re.findall(r"^\s*\.\. math::", text, re.M))


# --------------------------------------------------------------------------------------------
# The LaTeX side and the PDF


@functools.cache
def tex_by_doc() -> dict[str, str]:
    """The .tex written for each page of the book (from its ``::doc`` label to the next)."""
    parts = re.split(r"\\label\{\\detokenize\{([^}]+)::doc\}\}", TEX.read_text())
    out: dict[str, str] = {}
    for i in range(1, len(parts), 2):
        out[parts[i]] = out.get(parts[i], "") + parts[i + 1]
    return out


def count_tex_formulas(tex: str) -> tuple[int, int]:
    """``(inline, display)`` formulas as Sphinx's LaTeX writer writes them: ``\\(...\\)``;
    ``equation``/``equation*`` (Sphinx's math blocks) and top-level amsmath environments."""
    display = len(re.findall(r"\\begin\{(?:equation|align|gather|multline|flalign|alignat)\*?\}",
                             tex))
    return tex.count(r"\("), display


@functools.cache
def aux_labels() -> dict[str, tuple[str, str, str]]:
    """``label -> (number, printed page, anchor)`` from the .aux."""
    labels = {}
    pattern = re.compile(r"\\newlabel\{(.+?)\}\{\{(.*?)\}\{(.*?)\}\{.*?\}\{(.*?)\}\{.*?\}\}$")
    for line in AUX.read_text().splitlines():
        m = pattern.match(line)
        if m:
            labels[m.group(1)] = (m.group(2), m.group(3), m.group(4))
    return labels


@functools.cache
def destinations() -> dict[str, int]:
    """Named destination -> physical page (1-based), from ``pdfinfo -dests``."""
    out = subprocess.run(["pdfinfo", "-dests", str(PDF)], check=True, capture_output=True,
                         text=True).stdout
    dests = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+\[.*\]\s+\"(.*)\"$", line)
        if m:
            dests[m.group(2)] = int(m.group(1))
    return dests


@functools.cache
def pages() -> list[str]:
    """The text of every physical page (pdftotext, reading order)."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(PDF), "-"], check=True,
                         capture_output=True, text=True).stdout
    return out.split("\f")


def first_page(docname: str) -> int:
    _, _, anchor = aux_labels()[f"{docname}::doc"]
    return destinations()[anchor]


@functools.cache
def page_ranges() -> dict[str, tuple[int, int]]:
    """docname -> (first, last) physical page of that page of the book."""
    starts = [(first_page(doc), doc) for doc, _ in toc()]
    end = len(pages())
    ranges = {}
    for i, (start, doc) in enumerate(starts):
        stop = starts[i + 1][0] if i + 1 < len(starts) else end
        ranges[doc] = (start, max(start, stop - 1))  # a chapter starts on a new page
    return ranges


def text_of(docname: str) -> str:
    """The page's text in the PDF, whitespace collapsed (a line break is a space)."""
    first, last = page_ranges()[docname]
    return " ".join(" ".join(pages()[first - 1:last]).split())


def images() -> list[dict]:
    """Every raster image of the PDF (``pdfimages -list``; soft masks left out)."""
    out = subprocess.run(["pdfimages", "-list", str(PDF)], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    head = out[0].split()
    rows = [dict(zip(head, line.split())) for line in out[2:] if line.strip()]
    return [r for r in rows if r["type"] == "image"]


def log_problems() -> list[str]:
    """The LaTeX log's errors and the warnings that mean something is missing from the PDF:
    undefined references and citations, characters no font has, labels still moving."""
    problems = []
    lines = LOG.read_text(errors="replace").splitlines()
    patterns = [r"^! ", r"undefined", r"Missing character", r"Label\(s\) may have changed",
                r"There were multiply-defined labels", r"Float\(s\) lost"]
    for i, line in enumerate(lines):
        if any(re.search(p, line) for p in patterns):
            problems.append(" ".join([line] + lines[i + 1:i + 2]).strip())
    return problems
