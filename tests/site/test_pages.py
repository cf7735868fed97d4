"""The website as readers meet it, opened in a real browser (headless Debian Chromium).

The built site (``_build/html``, made by ``tools/build-site``) is served on 127.0.0.1 (the
``server`` fixture of ``tests/conftest.py``) and every page of the table of contents is opened
once in pytest-playwright's ``browser``. Each visit (``browsing.Site``) records what a reader's
browser saw: console errors, failed or refused requests, images, typeset formulas, links,
figures, the launch and download buttons, and the exercise solutions' toggles; the tests below
check those records. Any request to another host is refused and counted as a failure, so the
pages must work with no network at all. Formulas are rendered to HTML by KaTeX when the site
is built (``sphinxcontrib.katex`` with ``katex_prerender``), so no page runs a math script;
KaTeX's stylesheet and fonts are served from the site itself.
A full-page screenshot of every chapter goes to ``_build/screenshots/<name>.png``.
"""

from __future__ import annotations

import collections
import re
import urllib.parse
import urllib.request

import nbformat
import pytest
from browsing import Site, Visit
from builtsite import (
    BRANCH,
    ENTRIES,
    EXERCISES,
    MATH_SCRIPTS,
    NOTEBOOKS,
    NUMBER,
    OWNER_REPO,
    PAGES,
    REPO_URL,
    ROOT,
    SHOTS,
    chapter_name,
    declared_figures,
)


@pytest.fixture(scope="module")
def site(server, browser):
    site = Site(server, browser)
    yield site
    site.context.close()


# --------------------------------------------------------------------------------------------
# every page


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly(site, path):
    """The page loads (HTTP 200) with no console error, no script error, no failed request,
    no response >= 400, and no request to any host but the site itself."""
    visit = site.visit(path)
    assert visit.status == 200, f"{path}: HTTP {visit.status}"
    assert not visit.problems, f"{path}:\n" + "\n".join(visit.problems)


@pytest.mark.parametrize("path", PAGES)
def test_images_load(site, path):
    """Every image on the page has loaded (non-zero natural width)."""
    visit = site.visit(path)
    broken = [img["src"] for img in visit.images if not img["width"]]
    assert not broken, f"{path}: images that did not load: {broken}"


@pytest.mark.parametrize("path", PAGES)
def test_formulas_typeset(site, path):
    """Every inline and display formula of the HTML was rendered by KaTeX at build time (its
    HTML and its MathML, one rendering per math element), none is a KaTeX error, no TeX is left
    as text, the page runs no math script, and KaTeX's fonts it uses come from the site and
    loaded."""
    visit = site.visit(path)
    math = visit.math
    assert math["elements"] == math["source"], math
    assert math["typeset"] == math["source"], f"{path}: formulas left unrendered: {math}"
    assert math["containers"] == math["source"], f"{path}: stray KaTeX output: {math}"
    assert math["errors"] == 0, f"{path}: {math['errors']} KaTeX errors"
    assert not math["leftover"], f"{path}: raw TeX left on the page: {math['leftover']}"
    assert not math["raw"], f"{path}: TeX shown as text, outside any formula: {math['raw']}"
    scripts = [u for u in visit.requested if MATH_SCRIPTS.search(u)]
    assert not scripts, f"{path}: a math script was loaded: {scripts}"
    katex_fonts = [f for f in visit.fonts if f.startswith("KaTeX")]
    if math["source"]:
        assert katex_fonts, f"{path}: formulas but no KaTeX font: {visit.fonts}"
        served = [u for u in visit.requested if "/_static/katex/fonts/" in u]
        assert served, f"{path}: KaTeX fonts not loaded from _static/katex/fonts"
    assert all(f.endswith(": loaded") for f in visit.fonts), f"{path}: fonts {visit.fonts}"


@pytest.mark.parametrize("path", PAGES)
def test_internal_links_resolve(site, path):
    """Every link to the site itself reaches a page that exists (HTTP 200), and its #anchor
    names an element of that page."""
    visit = site.visit(path)
    bad = []
    for href in sorted(set(visit.links)):
        if not site.local(href):
            continue
        url, fragment = urllib.parse.urldefrag(href)
        status = site.status(url)
        if status != 200:
            bad.append(f"{href}: HTTP {status}")
        elif fragment and url.endswith(".html"):
            if urllib.parse.unquote(fragment) not in site.ids(url):
                bad.append(f"{href}: no element with id {fragment!r}")
    assert not bad, f"{path}:\n" + "\n".join(bad)


@pytest.mark.parametrize("entry", ENTRIES[1:])
def test_chapters_are_numbered(site, entry):
    """The chapters of the numbered part carry their number in toc order; the front and back
    matter (notation, API, testing, benchmarks, bibliography) carry none."""
    visit = site.visit(f"{entry}.html")
    if entry in NUMBER:
        assert re.match(rf"{NUMBER[entry]}\. \S", visit.title), visit.title
    else:
        assert not re.match(r"\d+\. ", visit.title), visit.title


# --------------------------------------------------------------------------------------------
# chapter pages


@pytest.mark.parametrize("entry", NOTEBOOKS)
def test_figures_numbered(site, entry):
    """Each figure the chapter declares is on the page, its image loaded, and the chapter's
    figures are captioned Fig. N.1, Fig. N.2, ... in order, N the chapter number."""
    visit = site.visit(f"{entry}.html")
    on_page = {f["id"]: f for f in visit.figures}
    missing = [name for name in declared_figures(entry) if name not in on_page]
    assert not missing, f"{entry}: declared figures missing from the page: {missing}"
    n = NUMBER[entry]
    numbers = [f["number"] for f in visit.figures]
    assert numbers == [f"Fig. {n}.{m}" for m in range(1, len(numbers) + 1)], numbers
    assert all(f["img"] for f in visit.figures), f"{entry}: figure image missing {visit.figures}"
    assert (SHOTS / f"{chapter_name(entry)}.png").stat().st_size > 0


@pytest.mark.parametrize("entry", NOTEBOOKS)
def test_launch_buttons(site, entry):
    """The header's launch menu opens on click and offers Binder and Colab for this chapter's
    notebook in the repository named in _config.yml; the repository button links there too."""
    visit = site.visit(f"{entry}.html")
    by_text = {link["text"]: link for link in visit.launch}
    assert {"Binder", "Colab"} <= set(by_text), f"launch menu: {visit.launch}"
    binder, colab = by_text["Binder"]["href"], by_text["Colab"]["href"]
    assert f"mybinder.org/v2/gh/{OWNER_REPO}/{BRANCH}" in binder, binder
    assert f"{entry}.ipynb" in binder, binder
    assert binder.startswith("https://"), binder
    assert colab == (f"https://colab.research.google.com/github/{OWNER_REPO}/blob/{BRANCH}/"
                     f"{entry}.ipynb"), colab
    for link in visit.launch:
        assert not link["visible_before_click"] and link["visible"], link
    assert visit.repository and all(r.rstrip("/") == REPO_URL for r in visit.repository)


@pytest.mark.parametrize("entry", NOTEBOOKS)
def test_download_notebook(site, entry):
    """The download menu offers the chapter's .ipynb, and the site serves that very notebook."""
    visit = site.visit(f"{entry}.html")
    ipynb = [link for link in visit.download if link["text"] == ".ipynb"]
    assert len(ipynb) == 1, f"download menu: {visit.download}"
    url = ipynb[0]["url"]
    assert site.local(url) and url.endswith(f"/_sources/{entry}.ipynb"), url
    assert ipynb[0]["visible"]
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        served = nbformat.reads(response.read().decode("utf-8"), as_version=4)
    stored = nbformat.read(ROOT / f"{entry}.ipynb", as_version=4)
    assert [c.source for c in served.cells] == [c.source for c in stored.cells]


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_page_links_to_the_book_pdf(site, entry):
    """Every page of the book links to the whole book's PDF (its download menu, added by
    _ext/lnbook_latex.py); in a chapter the link shows once the menu is opened; the site
    serves the PDF that tools/build-pdf built (tests/pdf checks its content)."""
    visit = site.visit(f"{entry}.html")
    pdf = site.base + "lnbook.pdf"
    assert pdf in visit.links, f"{entry}: no link to {pdf}"
    if entry in NOTEBOOKS:
        book = [link for link in visit.download if link["url"] == pdf]
        assert len(book) == 1 and book[0]["visible"], f"download menu: {visit.download}"
        assert not book[0]["visible_before_click"]
    if entry == ENTRIES[0]:  # the file itself, once
        with urllib.request.urlopen(pdf, timeout=10) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "application/pdf"
            assert response.read() == (ROOT / "_build" / "pdf" / "lnbook.pdf").read_bytes()


def test_exercise_solutions_toggle(site):
    """Exercise solutions are hidden until their toggle is clicked, and shown after."""
    visit = site.visit(f"{EXERCISES}.html")
    assert visit.toggles, f"{EXERCISES}: no exercise solutions (sphinx-exercise `solution`)"
    for solution in visit.toggles:
        assert solution["button"] == 1, f"solution without a toggle button: {solution}"
        assert solution["before"]["parts"] > 0, f"solution with no body: {solution}"
        assert solution["before"]["visible"] == 0, f"solution shown before its toggle: {solution}"
        after = solution["after"]
        assert after["visible"] == after["parts"], f"solution hidden after its toggle: {solution}"


WORD = re.compile(r"[A-Za-z]{7,}")


def search_word(site, entry: str) -> str:
    """A word from the chapter's body, as rare across the chapters as can be."""
    words = {e: collections.Counter(w.lower() for w in WORD.findall(site.visit(f"{e}.html").text))
             for e in NOTEBOOKS}
    spread = collections.Counter(w for counts in words.values() for w in counts)
    candidates = sorted(words[entry], key=lambda w: (spread[w], -words[entry][w], w))
    assert candidates, f"{entry}: no word of 7+ letters in its body"
    return candidates[0]


@pytest.mark.parametrize("entry", NOTEBOOKS)
def test_search_finds_chapter(site, entry):
    """Searching the site for a word of a chapter's body lists that chapter."""
    word = search_word(site, entry)
    visit = Visit(path="search.html", url=f"{site.base}search.html?q={word}")
    page = site.new_page(visit)
    try:
        page.goto(visit.url, wait_until="load")
        # the search page marks its answer on screen (lnbook-search.js)
        page.wait_for_function(
            "() => document.getElementById('search-results').dataset.answeredAt")
        results = page.eval_on_selector_all("#search-results ul.search li > a",
                                            "links => links.map(a => a.href)")
    finally:
        visit.done = True
        page.close()
    assert not visit.problems, "\n".join(visit.problems)
    target = urllib.parse.urljoin(site.base, f"{entry}.html")
    # a result links its page with ?highlight= (the words searched for) and maybe a #section
    pages = [urllib.parse.urlsplit(u)._replace(query="", fragment="").geturl() for u in results]
    assert target in pages, (word, results)
