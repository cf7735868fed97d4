"""The built website checked as files, without a browser: what its pages load, how formulas
are served, the bibliography, the API page and small things.

Reads ``_build/html`` (``tools/build-site``); imports no playwright, so these checks run
wherever the site is built.
"""

from __future__ import annotations

import re

from builtsite import (
    HTML,
    LAZY_URLS,
    MATH_SCRIPTS,
    NOTEBOOKS,
    ROOT,
    external,
    page_text,
    require_build,
    scan,
)

# --------------------------------------------------------------------------------------------
# offline: no page needs the network


def test_no_page_loads_from_another_host():
    """No page of the site (nor its CSS) makes the browser fetch from another host: scripts,
    styles, fonts (KaTeX's too) and images all come from the site. Links (<a>) may point
    anywhere."""
    require_build()
    pages = sorted(HTML.rglob("*.html"))
    bad = []
    for path in pages:
        parsed = scan(path)
        bad += [f"{path.relative_to(HTML)}: loads {u}" for u in parsed.loads if external(u)]
        for text in parsed.inline:
            for url in re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text):
                if url not in LAZY_URLS and not url.startswith("http://www.w3.org/"):
                    bad.append(f"{path.relative_to(HTML)}: inline script/style names {url}")
    for css in sorted(HTML.rglob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8", errors="replace"),
                      flags=re.S)
        for url in re.findall(r"(?:url\(|@import)\s*['\"]?((?:https?:)?//[^'\")\s]+)", text):
            bad.append(f"{css.relative_to(HTML)}: loads {url}")
    assert not bad, "\n".join(bad)


def test_math_is_rendered_at_build_time():
    """No page of the site loads a math script (MathJax or KaTeX's JavaScript): formulas are
    HTML. Every page with a formula links KaTeX's stylesheet from _static/katex, which the
    build copied there with every font file that stylesheet names."""
    require_build()
    css = HTML / "_static" / "katex" / "katex.min.css"
    assert css.is_file()
    fonts = re.findall(r"url\((fonts/[^)]+)\)", css.read_text(encoding="utf-8"))
    assert fonts and all((css.parent / f).is_file() for f in fonts), fonts
    with_math = [p for p in HTML.rglob("*.html") if scan(p).math]
    assert with_math, "no page has a formula"
    for path in HTML.rglob("*.html"):
        scripts = [u for u in scan(path).loads if MATH_SCRIPTS.search(u)]
        assert not scripts, (path, scripts)
    for path in with_math:
        sheets = [u for u in scan(path).loads if "katex" in u and ".css" in u]
        assert any("_static/katex/katex.min.css" in u for u in sheets), (path, sheets)


# --------------------------------------------------------------------------------------------
# bibliography, API page and small things


def test_bibliography_one_style():
    """The bibliography's list is labelled as the text cites, author-year ("Ba et al., 2016"),
    every citation in a chapter names a label of the list, and every title reads as the .bib
    writes it (no lowercasing)."""
    from pybtex.database import parse_file

    html = (HTML / "book" / "bibliography.html").read_text(encoding="utf-8")
    labels = re.findall(r'<span class="label"><span class="fn-bracket">\[</span>(.*?)'
                        r'<span class="fn-bracket">\]</span></span>', html)
    bib = parse_file(str(ROOT / "book" / "references.bib"))
    assert len(labels) == len(bib.entries), labels
    assert all(re.fullmatch(r".+, (\d{4}|n\.d\.)[a-z]?", label) for label in labels), labels
    text = page_text("book/bibliography.html")
    for key, entry in bib.entries.items():
        title = re.sub(r"[{}]", "", entry.fields["title"]).replace("\\_", "_")
        assert title in text, f"{key}: title {title!r} not shown as written"
    cited = set()
    for entry in NOTEBOOKS:
        page = (HTML / f"{entry}.html").read_text(encoding="utf-8")
        for link in re.findall(r'<a [^>]*href="bibliography\.html#[^"]*"[^>]*>(.*?)</a>', page):
            cited.add(re.sub(r"<[^>]+>", "", link))
    assert cited, "no chapter cites the bibliography"
    years = {re.search(r"\d{4}", label).group(0) for label in labels}
    for citation in cited:
        assert re.search(r"\d{4}", citation) and re.search(r"\d{4}", citation).group(0) in years, (
            f"in-text citation {citation!r} is not author-year like the list {labels}")


def test_api_page():
    """The API page describes lnbook.frameworks.CONVENTIONS, prints no default as a function
    repr, and its chapter references are links (the strict build checks their targets)."""
    html = (HTML / "book" / "api.html").read_text(encoding="utf-8")
    assert "&lt;function" not in html and "<function" not in html
    conventions = html[html.index('id="lnbook.frameworks.CONVENTIONS"'):]
    description = re.sub(r"<[^>]+>", " ", conventions[:conventions.index("</dd>")])
    assert len(description.split()) > 15, description
    assert re.search(r'<a class="reference internal" href="frameworks\.html', html)


def test_small_things():
    """A favicon on every page (no /favicon.ico 404), a titled root page that leads to the
    first page, no generated index page that nothing links to, no table with an empty
    header row, and no second search box in an empty top bar."""
    root = (HTML / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<title>\s*\S.*</title>", root), root
    assert 'url=book/intro.html' in root
    for path in HTML.rglob("*.html"):
        if path.relative_to(HTML).parts[0] == "_static":
            continue  # the theme's template fragments, copied as they are
        text = path.read_text(encoding="utf-8")
        icons = re.findall(r'<link rel="icon" href="([^"]+)"', text)
        assert icons, f"{path}: no favicon"
        assert (path.parent / icons[0]).resolve().is_file(), (path, icons)
        assert not re.search(r"<thead>\s*<tr[^>]*>(\s*<th[^>]*>(<p></p>)?</th>)+\s*</tr>", text)
    for index in ("py-modindex.html", "prf-prf.html"):
        assert not (HTML / index).exists(), f"{index} is generated but nothing links to it"
    css = (HTML / "_static" / "lnbook-site.css").read_text(encoding="utf-8")
    assert re.search(r"header\.bd-header\s*\{\s*display:\s*none", css)


def test_source_links_download():
    """Every link to a page's source (_sources/) on every page carries a download attribute
    naming the file, and each chapter's page links its notebook once under its title."""
    require_build()
    bad = []
    for path in sorted(HTML.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for tag in re.findall(r'<a [^>]*href="[^"]*_sources/[^"]*"[^>]*>', text):
            href = re.search(r'href="([^"]*)"', tag).group(1)
            name = href.rsplit("/", 1)[-1]
            if f'download="{name}"' not in tag:
                bad.append(f"{path.relative_to(HTML)}: {tag}")
            elif not (path.parent / href).resolve().is_file():
                bad.append(f"{path.relative_to(HTML)}: {href} does not exist")
    for entry in NOTEBOOKS:
        text = (HTML / f"{entry}.html").read_text(encoding="utf-8")
        assert len(re.findall(r'<p class="lnb-notebook">', text)) == 1, entry
    assert not bad, "\n".join(bad[:20])
