"""The site's search as a reader uses it, in the browser (issue 19, item 5).

The search page asks Pagefind's index (built with the site, ``_ext/lnbook_search.py``) and
nothing else: a query fetches the index's word chunks and the snippets of the results shown,
never a chapter. These tests open ``search.html?q=...`` as the sidebar's search box does and
read what the page then shows: how long the answer took, which pages it lists in which order,
the snippets, and what a result's page highlights.
"""

from __future__ import annotations

import re
import urllib.parse

import nbformat
import pytest
from builtsite import ENTRIES, HTML, NUMBER, ROOT, TOC, scan
from playwright.sync_api import Page

# the results the page puts on screen first, as lnbook-search.js says
FIRST = int(re.search(r"var FIRST = (\d+);", (ROOT / "_ext" / "static" / "lnbook-search.js")
                      .read_text(encoding="utf-8")).group(1))
# what a reader's browser downloads from the index before the first results are on screen
ANSWER_BYTES = 300_000  # 225 kB for "Jacobian" (2026-12-02)
ANSWERED = "() => document.getElementById('search-results').dataset.answeredAt"
# the index's files fetched until the answer was on screen: address and bytes (encoded body)
FETCHED_JS = """() => {
  const answered = +document.getElementById('search-results').dataset.answeredAt;
  return performance.getEntriesByType('resource')
    .filter(e => e.name.includes('/pagefind/') && e.responseEnd <= answered)
    .map(e => ({url: e.name, bytes: e.encodedBodySize}));
}"""


@pytest.fixture(scope="module")
def searcher(server, browser):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(20_000)
    yield context
    context.close()


class Search:
    """One query on the search page: the requests it made and what it showed."""

    def __init__(self, context, server: str, query: str):
        self.server, self.query, self.requests, self.problems = server, query, [], []
        page: Page = context.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            server) else route.abort("blockedbyclient"))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("console", lambda m: m.type == "error"
                and self.problems.append(f"console error: {m.text}"))
        self.page = page
        page.goto(f"{server}search.html?q={urllib.parse.quote(query)}", wait_until="load")
        page.wait_for_function(ANSWERED)
        self.fetched = page.evaluate(FETCHED_JS)
        more = page.locator("#search-results button.lnb-more-results")
        # every result: the list grows to the first ten, then the rest behind "Show N more"
        page.wait_for_function("""() => {
            const n = +(document.querySelector('#search-results .search-summary')
                        .textContent.match(/Found (\\d+)/) || [0, 0])[1];
            const shown = document.querySelectorAll('#search-results ul.search > li').length;
            return shown >= Math.min(n, 10);
        }""")
        if more.count():
            more.click()
            page.wait_for_function(
                "() => !document.querySelector('#search-results button.lnb-more-results')")
        self.results = page.evaluate("""() => Array.from(
            document.querySelectorAll('#search-results ul.search > li')).map(li => ({
              title: li.querySelector(':scope > a').textContent,
              href: li.querySelector(':scope > a').href,
              snippet: li.querySelector(':scope > p.context').textContent}))""")
        self.summary = page.locator("#search-results .search-summary").inner_text()

    def pages(self) -> list[str]:
        """The result pages, site-relative (book/epsilon.html), in order."""
        return [urllib.parse.urlsplit(r["href"]).path.lstrip("/") for r in self.results]

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def search(searcher, server):
    opened = []

    def run(query: str) -> Search:
        opened.append(Search(searcher, server, query))
        return opened[-1]

    yield run
    for s in opened:
        s.close()


def test_answer_from_the_index_alone(search):
    """A query is answered from Pagefind's index alone, the index not yet loaded: until the
    first results are on screen the page fetches no chapter and no other page, at most one
    snippet per result shown first, and at most ANSWER_BYTES of the index in all (what makes
    the answer quick on a reader's connection; how long it takes on this machine depends on
    its load, so no time is asserted)."""
    found = search("Jacobian")
    assert not found.problems, "\n".join(found.problems)
    assert found.results, found.summary
    pages = [u for u in found.requests if u.split("?")[0].endswith(".html")]
    assert [urllib.parse.urlsplit(u).path for u in pages] == ["/search.html"], pages
    fragments = [f for f in found.fetched if "/pagefind/fragment/" in f["url"]]
    assert 0 < len(fragments) <= FIRST, found.fetched
    fetched = sum(f["bytes"] for f in found.fetched)
    assert 0 < fetched <= ANSWER_BYTES, (fetched, found.fetched)


def chapter_subjects() -> list[tuple[str, str]]:
    """Each numbered chapter and its subject: its title (the notebook's first heading) without
    a leading "The " and what follows a colon ("Epsilon: the constant under the root" ->
    "Epsilon")."""
    subjects = []
    for entry in NUMBER:
        cells = nbformat.read(ROOT / f"{entry}.ipynb", as_version=4).cells
        title = next(m.group(1) for c in cells if c.cell_type == "markdown"
                     for m in [re.search(r"^# (.+)$", c.source, re.M)] if m)
        subjects.append((entry, re.sub(r"^The ", "", title.split(":")[0].strip())))
    return subjects


@pytest.mark.parametrize(("entry", "subject"), chapter_subjects(),
                         ids=[e.rsplit("/", 1)[-1] for e in NUMBER])
def test_chapter_first_for_its_subject(search, entry, subject):
    """Searching a chapter's subject lists that chapter first ("Jacobian" -> "6. The
    Jacobian"), under its numbered title."""
    found = search(subject)
    assert found.pages(), found.summary
    assert found.pages()[0] == f"{entry}.html", (subject, found.pages()[:5])
    assert found.results[0]["title"].startswith(f"{NUMBER[entry]}. "), found.results[0]


TEX_COMMAND = (r"\\(?:varepsilon|epsilon|frac|tfrac|mathbf|mathrm|operatorname|lVert|rVert|sqrt"
               r"|sum|top|odot|cdot|left|right|mu|sigma|gamma|beta|delta|lambda|tau|alpha|rho"
               r"|le|ge|ne|approx|infty|partial|hat|bar|overline|text|begin|end)(?![A-Za-z])")


@pytest.mark.parametrize("query", ["epsilon", "ε", "variance", "Jacobian"])
def test_snippets_show_formulas_once(search, query):
    """A result's snippet shows each formula once, as text: no TeX source (a backslash
    command), no symbol doubled as KaTeX's three renderings were (``ε\\varepsilonε``)."""
    found = search(query)
    snippets = [r["snippet"] for r in found.results]
    assert snippets and all(s.strip() for s in snippets), found.results
    # a TeX command of the book's formulas (a code snippet's "\\n" is not one)
    tex = [s for s in snippets if re.search(TEX_COMMAND, s)]
    assert not tex, tex
    doubled = [s for s in snippets if re.search(r"([α-ωΑ-Ω∑√∥])\1", s)]
    assert not doubled, doubled


def pages_with_epsilon() -> set[str]:
    """The pages whose formulas (their MathML, in the built HTML) use ε."""
    pages = set()
    for entry in ENTRIES:
        text = (HTML / f"{entry}.html").read_text(encoding="utf-8")
        if scan(HTML / f"{entry}.html").math and re.search(r"<mi>ε</mi>", text):
            pages.add(f"{entry}.html")
    return pages


def test_epsilon_finds_the_pages_that_use_it(search):
    """ "ε" finds every page whose formulas use ε (read from the built pages' MathML)."""
    expected = pages_with_epsilon()
    assert len(expected) > 5, expected
    found = set(search("ε").pages())
    assert expected <= found, f"pages with ε not found: {sorted(expected - found)}"


def test_search_term_not_left_highlighted(search, searcher, server):
    """A result's page highlights the words searched for; a page opened afterwards in any
    other way highlights nothing (Sphinx kept the last query in localStorage and marked it on
    the next page the reader opened)."""
    found = search("variance")
    link = found.page.locator("#search-results ul.search > li > a").first
    with found.page.expect_navigation():
        link.click()
    found.page.wait_for_load_state("load")
    on_result = found.page.locator(".highlighted").count()
    later = {}
    for path in ("book/gain.html", "book/bias.html"):
        found.page.goto(f"{server}{path}", wait_until="load")
        later[path] = found.page.locator(".highlighted").count()
    # a page opened straight from the search page, not through a result
    other = search("variance")
    other.page.goto(f"{server}book/weighted.html", wait_until="load")
    later["book/weighted.html (from the search page)"] = other.page.locator(
        ".highlighted").count()
    assert on_result > 0, "the result's page highlights nothing"
    assert not any(later.values()), f"highlighted on later pages: {later}"


def test_toc_has_the_pages_searched():
    """The search covers the book: every page of the table of contents is in Pagefind's
    index (one fragment per page), and the search page, the general index and the root
    redirect are not."""
    entries = [TOC["root"]] + [c["file"] for part in TOC["parts"] for c in part["chapters"]]
    fragments = list((HTML / "pagefind" / "fragment").glob("*.pf_fragment"))
    assert len(fragments) == len(entries), (len(fragments), len(entries))
