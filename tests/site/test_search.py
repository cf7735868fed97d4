"""The site's search as a reader uses it: Pagefind's interface on ``search.html`` over the index
the build makes (``_ext/lnbook_search.py``). One tab asks every query in turn, typed into the
search box as a reader types it; the first arrives from the sidebar's box as ``?q=``."""

from __future__ import annotations

import collections
import re
import urllib.parse

import nbformat
import pytest
from builtsite import HTML, NOTEBOOKS, NUMBER, ROOT, TOC, guard

# what a reader's browser downloads from the index until the first results are on screen
ANSWER_BYTES = 300_000  # 225 kB for "Jacobian" (2026-12-02)
FIRST = 5  # results Pagefind's interface shows before "Load more results"
RESULTS = "#lnb-search .pagefind-ui__result"
TEX_COMMAND = (r"\\(?:varepsilon|epsilon|frac|tfrac|mathbf|mathrm|operatorname|lVert|rVert|sqrt"
               r"|sum|top|odot|cdot|left|right|mu|sigma|gamma|beta|delta|lambda|tau|alpha|rho"
               r"|le|ge|ne|approx|infty|partial|hat|bar|overline|text|begin|end)(?![A-Za-z])")


class Searcher:
    """The search page in one tab; ``ask`` a query and get its results, all of them."""

    def __init__(self, context, server: str, query: str):
        self.server, self.problems, self.requests = server, [], []
        self.page = guard(context.new_page(), server, self.problems)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(f"{server}search.html?q={urllib.parse.quote(query)}", wait_until="load")
        self.results = self.wait(query)

    def wait(self, query: str) -> list[dict]:
        """Wait for the answer to ``query`` (every result's title and excerpt in), then load
        the rest of them; the results as (page, title, excerpt)."""
        done = f"""() => {{
            const m = document.querySelector('#lnb-search .pagefind-ui__message');
            return m && m.textContent.includes({query!r})
                && !m.textContent.startsWith('Searching')
                && !document.querySelector('#lnb-search .pagefind-ui__loading'); }}"""
        self.page.wait_for_function(done)
        self.answered = self.page.evaluate("() => performance.now()")
        more = self.page.locator("#lnb-search .pagefind-ui__button")
        while more.count():
            more.click()
            self.page.wait_for_function(done)
        return self.page.eval_on_selector_all(RESULTS, """rs => rs.map(r => ({
            href: r.querySelector('.pagefind-ui__result-link').href,
            title: r.querySelector('.pagefind-ui__result-link').textContent.trim(),
            excerpt: r.querySelector('.pagefind-ui__result-excerpt').textContent}))""")

    def ask(self, query: str) -> list[dict]:
        self.page.fill("#lnb-search input", query)
        self.results = self.wait(query)
        return self.results

    def pages(self) -> list[str]:
        return [urllib.parse.urlsplit(r["href"]).path.lstrip("/") for r in self.results]


@pytest.fixture(scope="module")
def searcher(browser, server):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(20_000)
    found = Searcher(context, server, "Jacobian")
    yield found
    context.close()


def test_answer_from_the_index_alone(searcher):
    """The sidebar's query (``?q=``) is answered from Pagefind's index alone, the index not yet
    loaded: until the first results are on screen the page fetches no other page, at most one
    fragment per result shown, at most ANSWER_BYTES of the index and Pagefind's search code
    (its interface's script and stylesheet, 134 kB, aside)."""
    fetched = searcher.page.evaluate("""t => performance.getEntriesByType('resource')
        .filter(e => e.name.includes('/pagefind/') && e.responseEnd <= t
                     && !e.name.includes('/pagefind-ui.'))
        .map(e => [e.name, e.encodedBodySize])""", searcher.answered)
    pages = [u for u in searcher.requests if u.split("?")[0].endswith(".html")]
    fragments = [u for u, _ in fetched if "/pagefind/fragment/" in u]
    assert searcher.results and not searcher.problems, searcher.problems
    assert [urllib.parse.urlsplit(u).path for u in pages] == ["/search.html"], pages
    assert 0 < len(fragments) <= FIRST, fetched
    assert 0 < sum(size for _, size in fetched) <= ANSWER_BYTES, fetched


def chapter_subjects() -> dict[str, str]:
    """Each numbered chapter's subject: its title without a leading "The " and what follows
    a colon ("Epsilon: the constant under the root" -> "Epsilon")."""
    subjects = {}
    for entry in NUMBER:
        cells = nbformat.read(ROOT / f"{entry}.ipynb", as_version=4).cells
        title = next(m.group(1) for c in cells if c.cell_type == "markdown"
                     for m in [re.search(r"^# (.+)$", c.source, re.M)] if m)
        subjects[entry] = re.sub(r"^The ", "", title.split(":")[0].strip())
    return subjects


def rare_words() -> dict[str, str]:
    """For each chapter, a word of 7+ letters of its article as rare across chapters as can be."""
    words = {}
    for entry in NOTEBOOKS:
        text = (HTML / f"{entry}.html").read_text(encoding="utf-8")
        text = text[text.index('<article class="bd-article"'):text.index("</article>")]
        text = re.sub(r"<(script|style|annotation)\b.*?</\1>|<[^>]+>", " ", text, flags=re.S)
        words[entry] = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z]{7,}", text))
    spread = collections.Counter(w for counts in words.values() for w in counts)
    return {e: min(c, key=lambda w: (spread[w], -c[w], w)) for e, c in words.items()}


def test_each_chapter_is_found(searcher):
    """Searching a chapter's subject lists that chapter first ("Jacobian" -> "6. The
    Jacobian"), under its numbered title; a word of its body finds it too."""
    wrong = []
    for entry, subject in chapter_subjects().items():
        searcher.ask(subject)
        if not searcher.pages() or searcher.pages()[0] != f"{entry}.html" or not \
                searcher.results[0]["title"].startswith(f"{NUMBER[entry]}. "):
            wrong.append(f"{subject!r}: {[r['title'] for r in searcher.results[:3]]}")
    for entry, word in rare_words().items():
        searcher.ask(word)
        if f"{entry}.html" not in searcher.pages():
            wrong.append(f"{word!r} does not find {entry}: {searcher.pages()}")
    assert not wrong and not searcher.problems, wrong + searcher.problems


def test_snippets_show_formulas_once(searcher):
    """A result's snippet shows each formula once, as text: no TeX command, no symbol doubled
    as KaTeX's three renderings were (``ε\\varepsilonε``); "ε" finds every page whose
    formulas use it (read from the built pages' MathML)."""
    for query in ["epsilon", "ε", "variance"]:
        snippets = [r["excerpt"] for r in searcher.ask(query)]
        assert snippets and all(s.strip() for s in snippets), (query, searcher.results)
        assert not [s for s in snippets if re.search(TEX_COMMAND, s)], snippets
        assert not [s for s in snippets if re.search(r"([α-ωΑ-Ω∑√∥])\1", s)], snippets
    with_epsilon = {p.relative_to(HTML).as_posix() for p in (HTML / "book").glob("*.html")
                    if "<mi>ε</mi>" in p.read_text(encoding="utf-8")}
    searcher.ask("ε")
    assert len(with_epsilon) > 5 and with_epsilon <= set(searcher.pages()), searcher.pages()


def test_a_result_highlights_its_page_only(searcher):
    """A result's page highlights the words searched for; a page opened afterwards highlights
    nothing (Sphinx once kept the last query and marked it on every later page)."""
    searcher.ask("variance")
    page = searcher.page
    with page.expect_navigation():
        page.locator(f"{RESULTS} .pagefind-ui__result-link").first.click()
    marked = page.locator(".highlighted").count()
    later = {}
    for path in ("book/gain.html", "book/bias.html"):
        page.goto(f"{searcher.server}{path}", wait_until="load")
        later[path] = page.locator(".highlighted").count()
    page.goto(f"{searcher.server}search.html?q=Jacobian", wait_until="load")
    searcher.wait("Jacobian")
    assert marked > 0, "the result's page highlights nothing"
    assert not any(later.values()), later


def test_every_page_is_indexed():
    """Every page of the table of contents is in Pagefind's index (one fragment per page),
    and the search page, the general index and the root redirect are not."""
    entries = [TOC["root"]] + [c["file"] for part in TOC["parts"] for c in part["chapters"]]
    assert len(list((HTML / "pagefind" / "fragment").glob("*.pf_fragment"))) == len(entries)
