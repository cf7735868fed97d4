"""The website as readers meet it, opened in a real browser (headless Chromium via playwright).

The built site (``_build/html``, made by ``tools/build-site``) is served on 127.0.0.1 and every
page of the table of contents is opened once in Debian's Chromium. Each visit records what a
reader's browser saw: console errors, failed or refused requests, images, typeset formulas,
links, figures, the launch and download buttons, and the exercise solutions' toggles; the tests
below check those records. Any request to another host is refused and counted as a failure, so
the pages must work with no network at all. Formulas are rendered to HTML by KaTeX when the
site is built (``sphinxcontrib.katex`` with ``katex_prerender``), so no page runs a math script;
KaTeX's stylesheet and fonts are served from the site itself.
A full-page screenshot of every chapter goes to ``_build/screenshots/<name>.png``.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import html.parser
import http.server
import os
import pathlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

import nbformat
import pytest
import yaml
from docutils.nodes import make_id
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = pathlib.Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 20_000

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
# toc entries ("book/epsilon") in reading order; only the chapters of a numbered part carry a
# number, counted in toc order from 1 (Sphinx numbers each numbered toctree on its own)
ENTRIES = [TOC["root"]] + [entry["file"] for part in TOC["parts"] for entry in part["chapters"]]
NUMBER = {entry["file"]: n for part in TOC["parts"] if part.get("numbered")
          for n, entry in enumerate(part["chapters"], start=1)}
NOTEBOOKS = [e for e in ENTRIES if (ROOT / f"{e}.ipynb").exists()]
PAGES = [f"{e}.html" for e in ENTRIES] + ["search.html"]
EXERCISES = "book/exercises"

# The repository is named once, in _config.yml; the expected launch targets follow from it.
REPO_URL = CONFIG["repository"]["url"].rstrip("/")
BRANCH = CONFIG["repository"].get("branch", "main")
OWNER_REPO = urllib.parse.urlsplit(REPO_URL).path.strip("/")

# sphinx-thebe writes this constant into every page; thebe is loaded only when a reader
# presses a "live code" button, which this book does not configure. It is a string in an
# inline script, never a request: the browser tests below would fail if it were fetched.
LAZY_URLS = {"https://unpkg.com/thebe@0.8.2/lib/index.js"}


def chapter_name(entry: str) -> str:
    return entry.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------------------------
# static parsing of the served HTML (no browser needed)


class _Scan(html.parser.HTMLParser):
    """Collect ids, math elements and every URL a page would load by itself."""

    LOADS = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
             ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"),
             ("object", "data"), ("img", "srcset"), ("source", "srcset")}
    FETCHED_RELS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "preconnect",
                    "dns-prefetch", "manifest", "apple-touch-icon", "shortcut"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.math = 0
        self.loads: list[str] = []  # URLs in attributes that make the browser fetch
        self.inline: list[str] = []  # text of inline scripts and styles
        self._in = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key) and (key == "id" or tag == "a"):
                self.ids.add(attrs[key])
        if tag in ("span", "div") and "math" in (attrs.get("class") or "").split():
            self.math += 1
        for t, a in self.LOADS:
            if tag == t and attrs.get(a):
                rels = set((attrs.get("rel") or "").lower().split())
                if tag == "link" and not rels & self.FETCHED_RELS:
                    continue  # e.g. canonical, next, prev: names a page, fetches nothing
                self.loads.append(attrs[a])
        if tag in ("script", "style") and not attrs.get("src"):
            self._in = tag
            self.inline.append("")
        if attrs.get("style"):
            self.inline.append(attrs["style"])

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in:
            self.inline[-1] += data


@functools.cache
def scan(path: pathlib.Path) -> _Scan:
    parser = _Scan()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def external(url: str) -> bool:
    """True when a URL would make the browser contact a host other than the site."""
    url = url.strip()
    return bool(re.match(r"^(https?:)?//", url, re.I))


# --------------------------------------------------------------------------------------------
# the notebook sources: which figures a chapter declares


def declared_figures(entry: str) -> list[str]:
    """Ids of the figures a chapter's markdown declares (``{glue:figure}`` / ``{figure}``)."""
    path = ROOT / f"{entry}.ipynb"
    if not path.exists():
        return []
    names = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "markdown":
            continue
        inside = False
        for line in cell.source.splitlines():
            if re.match(r"^\s*(`{3,}|:{3,})\{(glue:figure|figure)\}", line):
                inside = True
            elif inside and re.match(r"^\s*(`{3,}|:{3,})\s*$", line):
                inside = False
            elif inside and (m := re.match(r"^\s*:name:\s*(\S+)", line)):
                names.append(make_id(m.group(1)))
                inside = False
    return names


# --------------------------------------------------------------------------------------------
# the server and the browser


def require_build() -> None:
    if not (HTML / "index.html").exists():
        pytest.fail(f"{HTML} has not been built: run tools/build-site first")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a page closed while a fetch was in flight (e.g. search summaries): not a site error
        pass


@pytest.fixture(scope="session")
def server():
    """Serve _build/html on 127.0.0.1 at a free port; yields the base URL."""
    require_build()
    httpd = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(HTML)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


_BROWSER: dict = {"users": 0}


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the whole session (never a downloaded browser).

    tests/test_site_reader.py imports this fixture too; playwright's sync API runs once per
    process, so both modules share one browser, closed when the last of them is done."""
    if not CHROMIUM.exists():
        reason = (f"{CHROMIUM} is missing: install Debian's browser with "
                  "`apt-get install -y chromium` (the browser tests never download one)")
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(reason)
        pytest.skip(reason)
    if not _BROWSER["users"]:
        _BROWSER["playwright"] = sync_playwright().start()
        _BROWSER["chromium"] = _BROWSER["playwright"].chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    _BROWSER["users"] += 1
    try:
        yield _BROWSER["chromium"]
    finally:
        _BROWSER["users"] -= 1
        if not _BROWSER["users"]:
            _BROWSER["chromium"].close()
            _BROWSER["playwright"].stop()


@dataclasses.dataclass
class Visit:
    """What the browser saw on one page."""

    path: str
    url: str
    status: int = 0
    title: str = ""
    problems: list[str] = dataclasses.field(default_factory=list)
    requested: list[str] = dataclasses.field(default_factory=list)
    fonts: list[str] = dataclasses.field(default_factory=list)
    math: dict = dataclasses.field(default_factory=dict)
    images: list[dict] = dataclasses.field(default_factory=list)
    links: list[str] = dataclasses.field(default_factory=list)
    ids: set[str] = dataclasses.field(default_factory=set)
    figures: list[dict] = dataclasses.field(default_factory=list)
    launch: list[dict] = dataclasses.field(default_factory=list)
    download: list[dict] = dataclasses.field(default_factory=list)
    repository: list[str] = dataclasses.field(default_factory=list)
    toggles: list[dict] = dataclasses.field(default_factory=list)
    text: str = ""
    done: bool = False


COLLECT_JS = r"""
() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const math = Array.from(document.querySelectorAll('span.math, div.math'));
  // a formula's TeX left as text: delimiters or commands in a math element outside KaTeX's HTML
  const leftover = math.filter(el => Array.from(el.childNodes).some(
      n => n.nodeType === Node.TEXT_NODE && /\\[(\[a-zA-Z]|\$\$/.test(n.textContent)));
  // TeX a reader would see as source: delimiters or $-math in text outside code and formulas
  const rawTeX = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement.closest('pre, code, script, style, .math, .katex')
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (/\\[()\[\]]|\$\$|\\begin\{|\$[^$\n]*[\\^_][^$\n]*\$/.test(n.textContent))
      rawTeX.push(n.textContent.trim().slice(0, 80));
  }
  const figures = Array.from(article.querySelectorAll('figure')).map(f => {
    const img = f.querySelector('img');
    const num = f.querySelector('figcaption .caption-number');
    return {id: f.id, number: num ? num.textContent.trim() : null,
            img: img ? img.naturalWidth : null};
  });
  const hrefs = sel => Array.from(document.querySelectorAll(sel)).map(a => a.href);
  return {
    title: document.title,
    math: {
      elements: math.length,
      // KaTeX's rendering: one .katex (with its MathML and its HTML) per math element
      containers: document.querySelectorAll('.katex').length,
      typeset: math.filter(el => el.querySelectorAll('.katex').length === 1
          && el.querySelector('.katex > .katex-mathml math')
          && el.querySelector('.katex > .katex-html')).length,
      errors: document.querySelectorAll('.katex-error').length,
      leftover: leftover.map(el => el.textContent.slice(0, 80)),
      raw: rawTeX,
    },
    images: Array.from(document.images).map(i => ({src: i.currentSrc || i.src,
                                                   width: i.naturalWidth})),
    links: hrefs('a[href]'),
    ids: Array.from(document.querySelectorAll('[id], a[name]')).map(e => e.id || e.name),
    figures: figures,
    repository: hrefs('a.btn-source-repository-button'),
    text: article.innerText,
  };
}
"""

SETTLE_JS = """
async () => {
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  await document.fonts.ready;
  // the web fonts the page uses, and whether each loaded
  return Array.from(document.fonts).filter(f => f.status !== 'unloaded')
              .map(f => `${f.family} ${f.weight} ${f.style}: ${f.status}`);
}
"""


# how many of an admonition's body parts (all but its title) a reader can see, of how many
BODY_SHOWN_JS = """
el => {
  const body = Array.from(el.children).filter(c => !c.classList.contains('admonition-title'));
  const seen = body.filter(c => {
    const box = c.getBoundingClientRect();
    return c.checkVisibility({opacityProperty: true, visibilityProperty: true})
        && box.width > 0 && box.height > 0;
  });
  return {parts: body.length, visible: seen.length};
}
"""


class Site:
    """Opens pages of the served site once each and keeps what the browser saw."""

    def __init__(self, base: str, browser):
        self.base = base
        self.netloc = urllib.parse.urlsplit(base).netloc
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(TIMEOUT_MS)
        self.visits: dict[str, Visit] = {}
        self._status: dict[str, int] = {}

    def local(self, url: str) -> bool:
        parts = urllib.parse.urlsplit(url)
        return parts.scheme in ("http", "https") and parts.netloc == self.netloc

    def status(self, url: str) -> int:
        """HTTP status of a local URL, fetched once."""
        url = urllib.parse.urldefrag(url)[0]
        if url not in self._status:
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    self._status[url] = response.status
            except urllib.error.HTTPError as err:
                self._status[url] = err.code
        return self._status[url]

    def ids(self, url: str) -> set[str]:
        """Element ids of a local page: from the browser if visited, else from its HTML."""
        path = urllib.parse.unquote(urllib.parse.urlsplit(url).path).lstrip("/") or "index.html"
        if path in self.visits:
            return self.visits[path].ids
        return scan(HTML / path).ids

    def new_page(self, visit: Visit):
        """A tab that records into ``visit`` everything a reader's browser would complain about.

        Recording stops when ``visit.done`` is set, before the tab closes: closing a tab aborts
        its requests still in flight (search summaries, say), which is not the site's fault.
        """
        page = self.context.new_page()

        def problem(message: str) -> None:
            if not visit.done:
                visit.problems.append(message)

        def guard(route):
            if self.local(route.request.url) or route.request.url.startswith("data:"):
                route.continue_()
            else:
                problem(f"request to another host refused: {route.request.url}")
                route.abort("blockedbyclient")

        page.route("**/*", guard)
        page.on("console", lambda m: m.type == "error" and problem(f"console error: {m.text}"))
        page.on("pageerror", lambda e: problem(f"page error: {e}"))
        page.on("requestfailed", lambda r: problem(f"request failed: {r.url} ({r.failure})"))
        page.on("request", lambda r: visit.requested.append(r.url))
        page.on("response", lambda r: r.status >= 400 and problem(f"HTTP {r.status}: {r.url}"))
        return page

    def visit(self, path: str) -> Visit:
        if path not in self.visits:
            self.visits[path] = self._visit(path)
        return self.visits[path]

    def _visit(self, path: str) -> Visit:
        visit = Visit(path=path, url=self.base + path)
        page = self.new_page(visit)
        try:
            response = page.goto(visit.url, wait_until="load")
            visit.status = response.status if response else 0
            visit.fonts = page.evaluate(SETTLE_JS)
            data = page.evaluate(COLLECT_JS)
            visit.title = data["title"]
            visit.math = data["math"]
            visit.math["source"] = scan(HTML / path).math
            visit.images = data["images"]
            visit.links = data["links"]
            visit.ids = set(data["ids"])
            visit.figures = data["figures"]
            visit.repository = data["repository"]
            visit.text = data["text"]
            entry = path.removesuffix(".html")
            if entry in NOTEBOOKS:
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / f"{chapter_name(entry)}.png"), full_page=True)
                visit.launch = self.open_dropdown(page, ".dropdown-launch-buttons")
                visit.download = self.open_dropdown(page, ".dropdown-download-buttons")
            visit.toggles = self.toggles(page)
        finally:
            visit.done = True
            page.close()
        return visit

    @staticmethod
    def open_dropdown(page, selector: str) -> list[dict]:
        """Click a header dropdown as a reader would; list its links and whether they show."""
        menu = page.locator(selector)
        if menu.count() != 1:
            return []
        links = menu.locator(".dropdown-menu a")
        hidden = [links.nth(i).is_visible() for i in range(links.count())]
        menu.locator("button.dropdown-toggle").click()
        page.wait_for_function(
            "s => document.querySelector(s + ' .dropdown-menu').classList.contains('show')",
            arg=selector)
        found = []
        for i in range(links.count()):
            link = links.nth(i)
            found.append({"text": link.inner_text().strip(), "href": link.get_attribute("href"),
                          "url": link.evaluate("a => a.href"), "visible": link.is_visible(),
                          "visible_before_click": hidden[i]})
        page.keyboard.press("Escape")
        return found

    @staticmethod
    def toggles(page) -> list[dict]:
        """Each exercise solution: is its body hidden, and shown after its toggle is clicked?"""
        found = []
        solutions = page.locator("article .solution")
        for i in range(solutions.count()):
            solution = solutions.nth(i)
            button = solution.locator(":scope > .admonition-title button.toggle-button")
            record = {"id": solution.get_attribute("id"), "button": button.count(),
                      "before": solution.evaluate(BODY_SHOWN_JS)}
            if record["button"] == 1:
                button.click()  # a real click: playwright checks the button is visible first
                try:  # the body fades in (a 0.3 s CSS transition)
                    page.wait_for_function(f"el => {{ const s = ({BODY_SHOWN_JS})(el); "
                                           "return s.visible === s.parts; }",
                                           arg=solution.element_handle(), timeout=3000)
                except PlaywrightTimeout:
                    pass
                record["after"] = solution.evaluate(BODY_SHOWN_JS)
            found.append(record)
        return found


@pytest.fixture(scope="session")
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


MATH_SCRIPTS = re.compile(r"mathjax|katex[^/]*\.js|tex-(chtml|svg|mml)", re.I)


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
        page.wait_for_function(
            "() => /Search finished|did not match/.test("
            "(document.querySelector('#search-results .search-summary') || {}).textContent)")
        results = page.eval_on_selector_all("#search-results ul.search li > a",
                                            "links => links.map(a => a.href)")
    finally:
        visit.done = True
        page.close()
    assert not visit.problems, "\n".join(visit.problems)
    target = urllib.parse.urljoin(site.base, f"{entry}.html")
    assert target in [urllib.parse.urldefrag(u)[0] for u in results], (word, results)


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
