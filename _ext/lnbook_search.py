"""The site's search index: Pagefind (PyPI's ``pagefind``, with its binary), built after the
HTML from each page's article, titled as the page is, every formula indexed once as the line of
text ``math_text`` makes of KaTeX's MathML (``‖v‖₂²/(q + ε)``): Sphinx's search showed each
formula three times (MathML, TeX, HTML: ``ε\\varepsilonε``) and fetched every matching chapter
(6.5 MB for "epsilon"), where Pagefind fetches small index chunks and the results' fragments.
The search page is Pagefind's stock interface (``pagefind-ui.js``, ``_static/lnbook-search.js``).
"""

from __future__ import annotations

import asyncio
import html
import json
import pathlib
import re
import shutil
import unicodedata
import xml.etree.ElementTree as ET

MATHML = "{http://www.w3.org/1998/Math/MathML}"
# characters with a Unicode superscript / subscript form
SUPERSCRIPT = dict(zip("0123456789+-−=()niT⊤", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵀᵀ", strict=True))
SUBSCRIPT = dict(zip("0123456789+-−=()aeijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ",
                     strict=True))
# operators written with a space on each side: relations, arrows, binary operators
SPACED = set("=<>≤≥≈≠≡∼≃≅∈∉⊂⊆⊃⊇→←↦⇒⇐⇔⟹⟸⟺+−±∓×⋅·⊙⊗∘∣") | {":=", "≪", "≫"}
# accents drawn over a letter, as combining characters
ACCENTS = {"^": "\u0302", "ˆ": "\u0302", "¯": "\u0304", "ˉ": "\u0304", "‾": "\u0305",
           "~": "\u0303", "˜": "\u0303", "→": "\u20d7", "˙": "\u0307", "¨": "\u0308"}


def _script(text: str, table: dict[str, str], mark: str) -> str:
    """``text`` as super/subscript characters when each has one, else ``^x`` / ``^(x+y)``."""
    text = text.replace(" ", "")
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    return mark + _group(text)


def _group(text: str) -> str:
    """``text`` in parentheses unless it is one symbol, a number or already bracketed."""
    text = text.strip()
    if text.startswith("√") and _group(text[1:]) == text[1:]:
        return text
    if re.fullmatch(r"[\w.]+|\S", text) or (text[:1] in "([{‖|" and _balanced(text)):
        return text
    return f"({text})"


def _balanced(text: str) -> bool:
    """True when the bracket that opens ``text`` is the one that closes it."""
    pairs = {"(": ")", "[": "]", "{": "}", "‖": "‖", "|": "|"}
    opening, depth = text[0], 0
    for i, c in enumerate(text):
        if c == opening and (opening not in "‖|" or i == 0):
            depth += 1
        elif c == pairs[opening]:
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


def _text(el: ET.Element) -> str:
    tag = el.tag.removeprefix(MATHML)
    kids = list(el)
    if tag in ("annotation", "annotation-xml", "mphantom"):
        return ""
    if tag in ("mi", "mn", "mtext", "ms"):
        return el.text or ""
    if tag == "mo":
        op = (el.text or "").strip()
        return f" {op} " if op in SPACED else (", " if op == "," else op)
    if tag == "mspace":
        return " "
    if tag == "semantics":
        return _text(kids[0]) if kids else ""
    if tag in ("msup", "msub", "msubsup") and kids:
        out = _text(kids[0])
        if tag != "msup" and len(kids) > 1:
            out += _script(_text(kids[1]).strip(), SUBSCRIPT, "_")
        if tag != "msub" and len(kids) > 1:
            out += _script(_text(kids[-1]).strip(), SUPERSCRIPT, "^")
        return out
    if tag == "mfrac" and len(kids) == 2:
        return f"{_group(_text(kids[0]))}/{_group(_text(kids[1]))}"
    if tag == "msqrt":
        return "√" + _group("".join(_text(k) for k in kids))
    if tag == "mroot" and len(kids) == 2:
        return _script(_text(kids[1]).strip(), SUPERSCRIPT, "^") + "√" + _group(_text(kids[0]))
    if tag in ("mover", "munder", "munderover") and kids:
        base = _text(kids[0])
        if tag == "mover" and len(kids) == 2:
            over = _text(kids[1]).strip()
            if over in ACCENTS and el.get("accent") == "true":
                return base + ACCENTS[over]
            if over in "⏞‾¯":  # an overbrace or a bar over a long term: its base alone
                return base
            return base + _script(over, SUPERSCRIPT, "^")
        under = _text(kids[1]).strip() if len(kids) > 1 else ""
        out = base + (_script(under, SUBSCRIPT, "_") if under and under not in "⏟_" else "")
        if tag == "munderover" and len(kids) == 3:
            out += _script(_text(kids[2]).strip(), SUPERSCRIPT, "^")
        return out
    if tag == "mtable":  # aligned equations and matrices: rows in order, "; " between them
        rows = [" ".join(_text(cell).strip() for cell in row) for row in kids]
        return "; ".join(r for r in rows if r)
    parts = [_text(k) for k in kids]
    for i, k in enumerate(kids):  # a fraction beside a factor: (1/d)∑ᵢ, not 1/d∑ᵢ
        if k.tag.removeprefix(MATHML) == "mfrac" and (_factor(kids, i - 1) or _factor(kids, i + 1)):
            parts[i] = f"({parts[i]})"
    return "".join(parts)


def _factor(kids: list[ET.Element], i: int) -> bool:
    """True when ``kids[i]`` exists and is not an operator (so it multiplies its neighbour)."""
    if not 0 <= i < len(kids):
        return False
    tag = kids[i].tag.removeprefix(MATHML)
    return tag not in ("mo", "mspace") and bool(_text(kids[i]).strip())


def math_text(mathml: str) -> str:
    """One line of text for a MathML formula (KaTeX's), as a reader would type it:
    ``u_ε = v/√(q + ε)``, ``(1/d)∑ᵢzᵢ``, ``∥v∥₂² ≤ s^(−1/2)`` (tests/test_site_search.py)."""
    mathml = re.sub(r"&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)(\w+);",
                    lambda m: html.unescape(m.group(0)), mathml)
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError:  # not well-formed: its characters, in order
        return re.sub(r"\s+", " ", re.sub(r"<annotation.*?</annotation>|<[^>]+>", "", mathml))
    # one form for a letter and its accent (ẑ, not z and a combining circumflex)
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", _text(root)).strip())


KATEX_OPEN = re.compile(r'<span class="katex">')
TAG = re.compile(r"<(/?)span\b[^>]*>")
MATH = re.compile(r"<math\b.*?</math>", re.S)


def formulas_as_text(page: str) -> str:
    """The page with each KaTeX formula (MathML, TeX and HTML) replaced by its line of text."""
    out, pos = [], 0
    for m in KATEX_OPEN.finditer(page):
        if m.start() < pos:  # inside a formula already replaced
            continue
        depth, end = 0, len(page)
        for tag in TAG.finditer(page, m.start()):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                end = tag.end()
                break
        formula = MATH.search(page, m.start(), end)
        out.append(page[pos:m.start()])
        text = math_text(formula.group(0)) if formula else ""
        out.append(f"<span>{html.escape(text)}</span>")
        pos = end
    out.append(page[pos:])
    return "".join(out)


TITLE = re.compile(r"<title>(.*?)(?: &#8212;.*)?</title>", re.S)
ARTICLE = re.compile(r'<article class="bd-article"')
# what a snippet should not show: heading anchors, the notebook line, toggles' labels
EXCLUDE = [".headerlink", ".lnb-notebook", "summary", ".toggle-details__summary",
           "button", "script", "style"]


# Pagefind's other interfaces, which the site does not use
UNUSED = ("pagefind-component-ui.*", "pagefind-modular-ui.*", "pagefind-highlight.js")


def index_source(page: str) -> str | None:
    """The page as given to Pagefind: its article only, titled as the page is (with the
    chapter's number), formulas as text. None for a page without an article."""
    title = TITLE.search(page)
    if not ARTICLE.search(page) or not title:
        return None
    meta = html.escape(html.unescape(title.group(1).strip()), quote=True)
    page = ARTICLE.sub(f'<article class="bd-article" data-pagefind-body '
                       f'data-pagefind-meta="title:{meta}"', page, count=1)
    return formulas_as_text(page)


async def _write_index(out: pathlib.Path, sources: dict[str, str]) -> None:
    from pagefind.index import IndexConfig, PagefindIndex

    config = IndexConfig(exclude_selectors=EXCLUDE, force_language="en",
                         output_path=str(out / "pagefind"))
    async with PagefindIndex(config=config) as index:
        for url, source in sorted(sources.items()):
            await index.add_html_file(content=source, url=url)


def _broken_files(folder: pathlib.Path) -> list[str]:
    """The index files that are empty, and the entry file if it is not JSON."""
    broken = [p.name for p in folder.rglob("*") if p.is_file() and p.stat().st_size == 0]
    entry = folder / "pagefind-entry.json"
    try:
        json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        broken.append(entry.name)
    return broken


def build_index(out: pathlib.Path, pages: dict[pathlib.Path, str], skip: set[str]) -> int:
    """Write the Pagefind index of ``pages`` (path -> HTML) into ``out/pagefind``; pages whose
    path relative to ``out`` is in ``skip`` are left out. Returns how many pages it holds."""
    sources = {}
    for path, page in pages.items():
        rel = path.relative_to(out).as_posix()
        if rel in skip or rel.startswith("_static/"):
            continue
        source = index_source(page)
        if source is not None:
            sources["/" + rel] = source
    # Pagefind's service can answer WriteFiles before its last file is on disk and is then
    # closed: seen once on a loaded machine, pagefind-entry.json of 0 bytes (the search page
    # then fails). So the files are checked, and the index is written again (at most twice
    # more) when one is empty or the entry file is not JSON; a third failure stops the build.
    for _attempt in range(3):
        shutil.rmtree(out / "pagefind", ignore_errors=True)
        asyncio.run(_write_index(out, sources))
        broken = _broken_files(out / "pagefind")
        if not broken:
            break
    else:
        raise RuntimeError(f"Pagefind wrote broken index files three times: {broken}")
    for unused in UNUSED:
        for path in (out / "pagefind").glob(unused):
            path.unlink()
    return len(sources)
