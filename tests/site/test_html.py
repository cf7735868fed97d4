"""The built website read as files, without a browser: what its pages load, their links and
anchors, numbers of chapters and figures, how formulas are served, the bibliography, the API
page and small things."""

from __future__ import annotations

import re
import urllib.parse

import nbformat
import pytest
from builtsite import (
    ENTRIES,
    HTML,
    LAZY_URLS,
    MATH_SCRIPTS,
    NOTEBOOKS,
    NUMBER,
    PAGES,
    ROOT,
    declared_figures,
    external,
    scan,
)

BUILT = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
               if p.relative_to(HTML).parts[0] != "_static")  # not the theme's fragments


def test_no_page_loads_from_another_host():
    """No page (nor stylesheet) makes the browser fetch from another host: scripts, styles,
    fonts and images all come from the site. Links may point anywhere."""
    bad = []
    for path in BUILT:
        bad += [f"{path}: loads {u}" for u in scan(path).loads if external(u)]
        for text in scan(path).inline:
            bad += [f"{path}: inline code names {u}" for u in re.findall(
                r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text)
                if u not in LAZY_URLS and not u.startswith("http://www.w3.org/")]
    for css in HTML.rglob("*.css"):
        text = re.sub(r"/\*.*?\*/", "", css.read_text(errors="replace"), flags=re.S)
        bad += [f"{css.relative_to(HTML)}: loads {u}" for u in
                re.findall(r"(?:url\(|@import)\s*['\"]?((?:https?:)?//[^'\")\s]+)", text)]
    assert not bad, "\n".join(bad)


def test_math_is_rendered_at_build_time():
    """No page loads a math script (MathJax or KaTeX's JavaScript): formulas are HTML. Every
    page with a formula links KaTeX's stylesheet from _static/katex, which has every font it
    names."""
    css = HTML / "_static" / "katex" / "katex.min.css"
    fonts = re.findall(r"url\((fonts/[^)]+)\)", css.read_text(encoding="utf-8"))
    assert fonts and all((css.parent / f).is_file() for f in fonts), fonts
    assert any(scan(p).math for p in BUILT), "no page has a formula"
    for path in BUILT:
        assert not [u for u in scan(path).loads if MATH_SCRIPTS.search(u)], path
        if scan(path).math:
            assert any("_static/katex/katex.min.css" in u for u in scan(path).loads), path


@pytest.mark.parametrize("path", PAGES)
def test_links_resolve(path):
    """Every link to the site reaches a file that exists, and its #anchor names an element of
    that page (a cross-reference that resolves)."""
    bad = []
    for href in sorted(set(scan(path).links)):
        parts = urllib.parse.urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("mailto:"):
            continue
        target = urllib.parse.unquote(urllib.parse.urljoin(path, parts.path)) if parts.path \
            else path
        if not (HTML / target).is_file():
            bad.append(f"{href}: no file {target}")
        elif parts.fragment and target.endswith(".html") and \
                urllib.parse.unquote(parts.fragment) not in scan(target).ids:
            bad.append(f"{href}: no element with id {parts.fragment!r} in {target}")
    assert not bad, f"{path}:\n" + "\n".join(bad)


@pytest.mark.parametrize("entry", ENTRIES[1:])
def test_numbers(entry):
    """The chapters of the numbered part carry their number in toc order, the others none;
    each chapter's declared figures are on its page, captioned Fig. N.1, N.2, ... in order."""
    title = scan(f"{entry}.html").title
    if entry in NUMBER:
        assert re.match(rf"{NUMBER[entry]}\. \S", title), title
    else:
        assert not re.match(r"\d+\. ", title), title
    if entry in NOTEBOOKS:
        figures = scan(f"{entry}.html").figures
        assert set(declared_figures(entry)) <= {f for f, _ in figures}, figures
        assert [n for _, n in figures] == [f"Fig. {NUMBER[entry]}.{m}"
                                           for m in range(1, len(figures) + 1)], figures


def test_bibliography_one_style():
    """The bibliography's list is labelled as the text cites, author-year ("Ba et al., 2016"),
    every title reads as the .bib writes it, and every citation of a chapter is author-year
    with a year of the list."""
    from pybtex.database import parse_file

    page = (HTML / "book" / "bibliography.html").read_text(encoding="utf-8")
    labels = re.findall(r'<span class="label"><span class="fn-bracket">\[</span>(.*?)'
                        r'<span class="fn-bracket">\]</span></span>', page)
    bib = parse_file(str(ROOT / "book" / "references.bib"))
    assert len(labels) == len(bib.entries), labels
    assert all(re.fullmatch(r".+, (\d{4}|n\.d\.)[a-z]?", label) for label in labels), labels
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    for key, entry in bib.entries.items():
        title = re.sub(r"[{}]", "", entry.fields["title"]).replace("\\_", "_")
        assert title in text, f"{key}: title {title!r} not shown as written"
    cited = {re.sub(r"<[^>]+>", "", link) for e in NOTEBOOKS for link in re.findall(
        r'<a [^>]*href="bibliography\.html#[^"]*"[^>]*>(.*?)</a>',
        (HTML / f"{e}.html").read_text(encoding="utf-8"))}
    years = {re.search(r"\d{4}", label).group(0) for label in labels}
    assert cited and all(re.search(r"\d{4}", c) and re.search(r"\d{4}", c).group(0) in years
                         for c in cited), (cited, labels)


def test_api_page():
    """The API page describes lnbook.frameworks.CONVENTIONS, prints no default as a function
    repr, and links its chapter references."""
    page = (HTML / "book" / "api.html").read_text(encoding="utf-8")
    assert "&lt;function" not in page and "<function" not in page
    conventions = page[page.index('id="lnbook.frameworks.CONVENTIONS"'):]
    assert len(re.sub(r"<[^>]+>", " ", conventions[:conventions.index("</dd>")]).split()) > 15
    assert re.search(r'<a class="reference internal" href="frameworks\.html', page)


def test_small_things():
    """A favicon on every page, a titled root page that leads to the first page, no generated
    index nothing links to, no empty table head, no second search box in an empty top bar;
    every link to a page's source downloads it under its name, and each chapter offers its
    notebook once under its title."""
    root = (HTML / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<title>\s*\S.*</title>", root) and "url=book/intro.html" in root
    bad = []
    for path in BUILT:
        text = (HTML / path).read_text(encoding="utf-8")
        icons = re.findall(r'<link rel="icon" href="([^"]+)"', text)
        if not icons or not (HTML / path).parent.joinpath(icons[0]).resolve().is_file():
            bad.append(f"{path}: no favicon")
        if re.search(r"<thead>\s*<tr[^>]*>(\s*<th[^>]*>(<p></p>)?</th>)+\s*</tr>", text):
            bad.append(f"{path}: an empty table head")
        for tag in re.findall(r'<a [^>]*href="[^"]*_sources/[^"]*"[^>]*>', text):
            href = re.search(r'href="([^"]*)"', tag).group(1)
            if f'download="{href.rsplit("/", 1)[-1]}"' not in tag:
                bad.append(f"{path}: {tag}")
    for entry in NOTEBOOKS:
        text = (HTML / f"{entry}.html").read_text(encoding="utf-8")
        if len(re.findall(r'<p class="lnb-notebook">', text)) != 1:
            bad.append(f"{entry}: its notebook is not offered once under its title")
        served = nbformat.read(HTML / "_sources" / f"{entry}.ipynb", as_version=4).cells
        if [c.source for c in served] != [c.source for c in nbformat.read(
                ROOT / f"{entry}.ipynb", as_version=4).cells]:
            bad.append(f"{entry}: the site serves another notebook")
    assert not (HTML / "py-modindex.html").exists() and not (HTML / "prf-prf.html").exists()
    css = (HTML / "_static" / "lnbook-site.css").read_text(encoding="utf-8")
    assert re.search(r"header\.bd-header\s*\{\s*display:\s*none", css)
    assert not bad, "\n".join(bad)
