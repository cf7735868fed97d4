"""What a reader's browser sees: one tab per page visit, recorded for the browser tests.

``Site`` (``test_pages.py``) opens each page once in a desktop window and records console
errors, requests, images, formulas, links, figures, menus and toggles; ``Reader``
(``test_reader.py``) opens each page once per window size (``VIEWPORTS``) and records page
weight, overflow, visible prose, formula timing and axe-core's findings. Both refuse every
request to another host and count it as a problem. The browser is pytest-playwright's
``browser`` fixture, launched on Debian's Chromium (``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
import urllib.error
import urllib.parse
import urllib.request

from builtsite import ENTRIES, HTML, NOTEBOOKS, ROOT, SHOTS, chapter_name, scan
from playwright.sync_api import TimeoutError as PlaywrightTimeout

TIMEOUT_MS = 20_000
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
# the narrowest phone a reader may hold (the phone window is also looked at this wide)
NARROW = 320
# the printed page: A4 less the print stylesheet's margins (12 mm each side), in CSS px
PRINT_WIDTH = round((210 - 2 * 12) / 25.4 * 96)
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


# --------------------------------------------------------------------------------------------
# one visit per page, at desktop width (test_pages.py)


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


# --------------------------------------------------------------------------------------------
# one look per page and window size (test_reader.py)


OVERFLOW_JS = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const scrolls = el => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && a.getBoundingClientRect().right <= vw + 1
          && a.getBoundingClientRect().left >= -1) return true;
    }
    return false;
  };
  const shown = el => el.checkVisibility({opacityProperty: true, visibilityProperty: true})
      && !el.closest('dialog:not([open]), .pst-sidebar-hidden, [aria-hidden="true"], '
                     + '.katex-mathml');  // KaTeX's MathML: for screen readers, clipped
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (el.className && typeof el.className === 'string'
         ? '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.') : '');
  const bad = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right <= vw + 1 && r.left >= -1) continue;
    if (!shown(el) || scrolls(el)) continue;
    // the theme's skip link waits off screen until it has the focus
    if (el.closest('.skip-link')) continue;
    // report the outermost element only
    const p = el.parentElement;
    const pr = p ? p.getBoundingClientRect() : null;
    if (p && p !== document.body && pr.width && (pr.right > vw + 1 || pr.left < -1)
        && shown(p) && !scrolls(p)) continue;
    bad.push(`${name(el)} [${Math.round(r.left)}, ${Math.round(r.right)}] `
             + (el.innerText || '').trim().slice(0, 60).replace(/\s+/g, ' '));
  }
  return {viewport: vw, page: document.documentElement.scrollWidth, bad: bad};
}
"""

# the article's text as a reader sees it, without code, formulas and cell outputs
PROSE_JS = r"""
() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const parts = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement.closest(
        'pre, code, kbd, samp, script, style, .math, .katex, .cell_output, .output, '
        + '.highlight, .headerlink, [aria-hidden="true"]')
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.checkVisibility() || n.parentElement.closest('details, .solution,'
        + ' .dropdown, .toggle-hidden')) parts.push(n.textContent);
  }
  return parts.join('');
}
"""

# when the formulas were on screen: the formulas are HTML in the page, so they are drawn as
# soon as KaTeX's stylesheet and the fonts they use have arrived (resource timing, ms after
# navigation start), compared with the end of the page's load event
# A promise the page may never keep (a font or image request that stalls on a loaded machine)
# is awaited at most this long, so a look ends with a finding instead of hanging the run.
WITHIN = "(p, ms) => Promise.race([p, new Promise(r => setTimeout(() => r('late'), ms))])"

FORMULAS_JS = r"""
async () => {
  await (""" + WITHIN + r""")(document.fonts.ready, 10000);
  const first = Array.from(document.querySelectorAll('article .katex'))
                     .find(k => k.getBoundingClientRect().width > 0);
  if (!first) return null;
  const r = first.getBoundingClientRect();
  const katexFonts = Array.from(document.fonts).filter(f => f.family.startsWith('KaTeX')
                                                          && f.status !== 'unloaded');
  const katex = performance.getEntriesByType('resource').filter(e => /katex/.test(e.name));
  const nav = performance.getEntriesByType('navigation')[0];
  return {ready: Math.max(...katex.map(e => e.responseEnd)), load: nav.loadEventEnd,
          width: r.width, height: r.height, fonts: katexFonts.map(f => f.status)};
}
"""

# axe's context: the whole page, or (skipCode) the page without its code blocks, which look the
# same at every width (thousands of highlighted spans, half of axe's time in color-contrast):
# they are scanned at the phone's width only. KaTeX's HTML is scanned as well: excluding it
# cost more time than scanning it, since axe tests every node against every excluded element
# (one per formula). Measured on 2026-12-06 over the 22 pages, a fresh tab per scan, two rounds
# in alternate order, the light scan and the dark one together: desktop 76.1 s with KaTeX's
# HTML excluded, 72.9 s scanned; phone 72.2 s and 68.8 s; the same findings on every page at
# both widths in both themes.
AXE_CONTEXT = "skipCode => skipCode ? {exclude: [['div.highlight']]} : document"

AXE_JS = """
async (skipCode) => {
  // preload: false -- axe's own CSSOM fetch resolves the theme's @import against the page's
  // address and asks for a /basic.css that does not exist; no rule we need uses it
  // label-content-name-mismatch is experimental in axe (off by default); issue 9 saw it
  const result = await axe.run((""" + AXE_CONTEXT + """)(skipCode), {resultTypes: ['violations'],
      preload: false, rules: {'label-content-name-mismatch': {enabled: true}}});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')), count: v.nodes.length}));
}
"""

# the dark theme's second pass: colour contrast only (the other rules do not depend on colour)
AXE_CONTRAST_JS = """
async (skipCode) => {
  const result = await axe.run((""" + AXE_CONTEXT + """)(skipCode), {resultTypes: ['violations'],
      preload: false, runOnly: {type: 'rule', values: ['color-contrast']}});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')), count: v.nodes.length}));
}
"""


# Every display formula, code block, output and table, and whether a reader can see all of it.
# A block's content is what it holds (its scroll width); the part a reader sees is what every
# box around it that clips (overflow other than visible) and the window leave in sight. A block
# whose content goes beyond that is "wide"; it is reachable when the innermost clipping box
# scrolls sideways, lies inside the window, is a tab stop with a name (arrow keys scroll it),
# and shows a cue that there is more (a background or mask on it, e.g. a scroll shadow, or a
# scrollbar that takes room).
BLOCKS_JS = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const article = document.querySelector('article.bd-article');
  if (!article) return [];
  const kindOf = el => el.classList.contains('katex-display') ? 'formula'
      : el.closest('.cell_output') ? 'output' : el.tagName === 'PRE' ? 'code' : 'table';
  const blocks = Array.from(article.querySelectorAll(
      '.katex-display, pre, table, .cell_output .output.text_html'))
    .filter(el => !(el.tagName === 'TABLE' && el.closest('.cell_output .text_html, pre')))
    .filter(el => el.checkVisibility() && el.getBoundingClientRect().width > 0);
  const count = {};
  return blocks.map(el => {
    const kind = kindOf(el);
    count[kind] = (count[kind] || 0) + 1;
    // the content's extent: its scroll width from its left edge; a formula's is that of
    // KaTeX's HTML rendering (inside the block, and a scroll box of its own in KaTeX's CSS)
    const inner = kind === 'formula' ? el.querySelector('.katex-html') || el : el;
    const r = inner.getBoundingClientRect();
    const left = r.left - inner.scrollLeft, right = left + inner.scrollWidth;
    let seenLeft = 0, seenRight = vw, clipper = null;
    for (let a = inner; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') {
        const b = a.getBoundingClientRect();
        const border = parseFloat(getComputedStyle(a).borderLeftWidth) || 0;
        seenLeft = Math.max(seenLeft, b.left + border);
        seenRight = Math.min(seenRight, b.left + border + a.clientWidth);
        if (!clipper) clipper = a;
      }
    }
    const content = right - left, seen = Math.max(0, seenRight - seenLeft);
    const wide = right > seenRight + 1 || left < seenLeft - 1;
    const out = {kind, index: count[kind] - 1, content: Math.round(content),
                 seen: Math.round(seen), wide,
                 hidden: wide ? Math.round(100 * (1 - Math.min(seen, content) / content)) : 0,
                 tex: kind === 'formula'
                   ? (el.querySelector('annotation') || {}).textContent || '' : '',
                 text: (el.innerText || '').trim().slice(0, 60).replace(/\s+/g, ' ')};
    if (wide) {
      const c = clipper, s = c ? getComputedStyle(c) : null;
      const b = c ? c.getBoundingClientRect() : null;
      out.scrolls = !!c && (s.overflowX === 'auto' || s.overflowX === 'scroll')
          && c.scrollWidth > c.clientWidth + 1;
      out.inWindow = !!b && b.left >= -1 && b.right <= vw + 1;
      out.focusable = !!c && c.tabIndex >= 0;
      out.name = c ? (c.getAttribute('aria-label') || (c.getAttribute('aria-labelledby')
          && document.getElementById(c.getAttribute('aria-labelledby'))?.textContent) || '') : '';
      out.cue = !!c && (s.backgroundImage !== 'none' || (s.maskImage || 'none') !== 'none'
          || c.offsetHeight - c.clientHeight - parseFloat(s.borderTopWidth)
             - parseFloat(s.borderBottomWidth) > 0);
      out.reachable = out.scrolls && out.inWindow && out.focusable && !!out.name.trim()
          && out.cue;
    }
    return out;
  });
}
"""

# Punctuation right after an inline formula, and whether it starts a line: its first character
# is on a line below the formula's last line.
PUNCTUATION_JS = r"""
() => {
  const article = document.querySelector('article.bd-article');
  if (!article) return {checked: 0, bad: []};
  const after = el => {  // the first text node after el, in document order
    let n = el;
    while (n && n !== article && !n.nextSibling) n = n.parentNode;
    if (!n || n === article) return null;
    n = n.nextSibling;
    const walker = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
    if (n.nodeType === Node.TEXT_NODE) return n;
    return walker.nextNode();
  };
  let checked = 0;
  const bad = [];
  for (const math of article.querySelectorAll('span.math')) {
    if (!math.checkVisibility() || math.closest('.katex-display')) continue;
    const text = after(math);
    if (!text || !/^[.,;:!?)\]}’”…]/.test(text.textContent)) continue;
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(text, 1);
    const mark = range.getBoundingClientRect();
    const lines = math.getClientRects();
    if (!lines.length || !mark.height) continue;
    checked++;
    const last = lines[lines.length - 1];
    if (mark.top + mark.height / 2 > last.bottom) {
      const tex = (math.querySelector('annotation') || {}).textContent || '';
      bad.push(`$${tex.slice(0, 50)}$ then ${JSON.stringify(text.textContent.slice(0, 12))}`);
    }
  }
  return {checked, bad};
}
"""

# In the dark theme, every block a reader sees that is still light: an element whose own
# background is light (relative luminance above 0.4; the dark page is below 0.01), and every
# image whose pixels, drawn through its CSS filter, are light on average.
LIGHT_BOXES_JS = r"""
async () => {
  const lin = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = (r, g, b) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className.trim()
         ? '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.') : '');
  // the colours the theme change starts: its transitions (the buttons' 0.15 s) run out first
  await (""" + WITHIN + r""")(Promise.all(document.getAnimations()
    .filter(a => a instanceof CSSTransition && a.playState === 'running')
    .map(a => a.finished.catch(() => null))), 5000);
  const found = [];
  let boxes = 0, images = 0;
  const vw = document.documentElement.clientWidth;
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width * r.height < 64 || !el.checkVisibility({opacityProperty: true,
                                                       visibilityProperty: true})) continue;
    // off the page until focused (the skip link), images (their pixels are measured below),
    // icons (a mask over their text colour)
    if (r.right <= 0 || r.left >= vw || r.bottom + scrollY <= 0) continue;
    const style = getComputedStyle(el);
    if (el.tagName === 'IMG' || (style.maskImage || 'none') !== 'none') continue;
    const m = style.backgroundColor.match(/[\d.]+/g);
    if (!m) continue;
    const alpha = m.length > 3 ? +m[3] : 1;
    if (alpha < 0.5) continue;
    boxes++;
    const l = lum(+m[0], +m[1], +m[2]);
    if (l > 0.4) found.push(`${name(el)}: background ${style.backgroundColor}`
                            + ` (luminance ${l.toFixed(2)})`);
  }
  for (const img of document.images) {
    if (!img.checkVisibility() || !img.naturalWidth) continue;
    await (""" + WITHIN + r""")(img.decode().catch(() => null), 5000);
    images++;
    const w = 64, h = Math.max(1, Math.round(64 * img.naturalHeight / img.naturalWidth));
    const canvas = new OffscreenCanvas(w, h);
    const ctx = canvas.getContext('2d');
    const filter = getComputedStyle(img).filter;
    ctx.filter = filter === 'none' ? 'none' : filter;
    ctx.fillStyle = getComputedStyle(img).backgroundColor;  // under a transparent PNG
    ctx.fillRect(0, 0, w, h);
    ctx.drawImage(img, 0, 0, w, h);
    const px = ctx.getImageData(0, 0, w, h).data;
    let sum = 0;
    for (let i = 0; i < px.length; i += 4) sum += lum(px[i], px[i + 1], px[i + 2]);
    const l = sum / (px.length / 4);
    if (l > 0.4) found.push(`img ${img.currentSrc.split('/').pop()}: mean luminance `
                            + `${l.toFixed(2)} through filter ${filter}`);
  }
  return {boxes, images, light: found};
}
"""

# what a printed page shows: every code block and output within the paper's width, and every
# exercise solution's body visible at once (the screen keeps solutions folded; a body still
# fading in, an animation or transition running on it, is not yet what the paper shows)
PRINT_JS = r"""
() => {
  const article = document.querySelector('article.bd-article');
  if (!article) return {code: 0, cut: [], solutions: 0, hidden: []};
  const cut = [];
  const pres = Array.from(article.querySelectorAll('pre')).filter(p => p.checkVisibility());
  const edge = article.getBoundingClientRect().right;
  pres.forEach((p, i) => {
    const r = p.getBoundingClientRect();
    if (p.scrollWidth > p.clientWidth + 1 || r.right > edge + 1)
      cut.push(`pre ${i} (${p.scrollWidth} px in ${p.clientWidth}): `
               + p.textContent.trim().slice(0, 50).replace(/\s+/g, ' '));
  });
  const hidden = [];
  const solutions = Array.from(article.querySelectorAll('.solution'));
  for (const s of solutions) {
    const body = Array.from(s.children).filter(c => !c.classList.contains('admonition-title'));
    const shown = body.filter(c => c.checkVisibility({opacityProperty: true,
                                                      visibilityProperty: true})
                                   && c.getBoundingClientRect().height > 0
                                   && c.getAnimations().length === 0);
    // what hid it, for the failure message (the print media's state of the first hidden child)
    const first = body.find(c => !shown.includes(c));
    if (first) {
      const st = getComputedStyle(first);
      hidden.push(`${s.id} (${body.length - shown.length} of ${body.length} children hidden; `
          + `first: ${first.tagName.toLowerCase()} opacity ${st.opacity}, visibility `
          + `${st.visibility}, display ${st.display}, height `
          + `${first.getBoundingClientRect().height.toFixed(0)} px, `
          + `${first.getAnimations().length} animations; solution classes: ${s.className})`);
    }
  }
  return {code: pres.length, cut, solutions: solutions.length, hidden};
}
"""


@dataclasses.dataclass
class Look:
    """What one page showed at one window size."""

    path: str
    viewport: str
    problems: list[str] = dataclasses.field(default_factory=list)
    files: dict[str, int] = dataclasses.field(default_factory=dict)
    overflow: dict = dataclasses.field(default_factory=dict)
    prose: str = ""
    formulas: dict | None = None
    axe: list[dict] = dataclasses.field(default_factory=list)
    # by window width (px): the blocks (BLOCKS_JS) and the punctuation (PUNCTUATION_JS)
    blocks: dict[int, list[dict]] = dataclasses.field(default_factory=dict)
    punctuation: dict[int, dict] = dataclasses.field(default_factory=dict)
    # in the dark theme: light boxes (LIGHT_BOXES_JS) and axe-core's colour-contrast findings
    dark: dict = dataclasses.field(default_factory=dict)
    dark_axe: list[dict] = dataclasses.field(default_factory=list)
    # printed (print media, the paper's width): PRINT_JS (desktop window only)
    printed: dict = dataclasses.field(default_factory=dict)

    @property
    def bytes(self) -> int:
        return sum(self.files.values())


class Reader:
    """One browser window of a fixed size; opens each page once and keeps what it showed."""

    def __init__(self, base: str, chromium, viewport: str):
        self.base = base
        self.netloc = urllib.parse.urlsplit(base).netloc
        self.viewport = viewport
        self.context = chromium.new_context(viewport=VIEWPORTS[viewport])
        self.context.set_default_timeout(TIMEOUT_MS)
        self.looks: dict[str, Look] = {}
        self.axe = AXE.read_text(encoding="utf-8") if AXE.exists() else None

    def local(self, url: str) -> bool:
        parts = urllib.parse.urlsplit(url)
        return parts.scheme in ("http", "https") and parts.netloc == self.netloc

    def page(self, look: Look):
        page = self.context.new_page()

        def guard(route):
            if self.local(route.request.url) or route.request.url.startswith("data:"):
                route.continue_()
            else:
                look.problems.append(f"request to another host refused: {route.request.url}")
                route.abort("blockedbyclient")

        def record(request):
            if not self.local(request.url):
                return
            path = urllib.parse.unquote(urllib.parse.urlsplit(request.url).path).lstrip("/")
            stored = HTML / (path or "index.html")
            if stored.is_file():
                look.files[path] = stored.stat().st_size

        page.route("**/*", guard)
        page.on("request", record)
        page.on("pageerror", lambda e: look.problems.append(f"page error: {e}"))
        page.on("response", lambda r: r.status >= 400
                and look.problems.append(f"HTTP {r.status}: {r.url}"))
        page.on("console", lambda m: m.type == "error"
                and look.problems.append(f"console error: {m.text}"))
        return page

    def look(self, path: str) -> Look:
        """Open the page once: light theme at this window's width (and, on the phone, at
        NARROW px too), then the dark theme, then (desktop) printed."""
        if path not in self.looks:
            look = Look(path=path, viewport=self.viewport)
            page = self.page(look)
            size = VIEWPORTS[self.viewport]
            entry = path.removesuffix(".html")
            shot = chapter_name(entry) if entry in ENTRIES[1:] else None
            phone = self.viewport == "phone"
            try:
                page.goto(self.base + path, wait_until="load")
                look.formulas = page.evaluate(FORMULAS_JS)
                page.evaluate(f"({WITHIN})(document.fonts.ready, 10000)")
                look.overflow = page.evaluate(OVERFLOW_JS)
                look.prose = page.evaluate(PROSE_JS)
                look.blocks[size["width"]] = page.evaluate(BLOCKS_JS)
                look.punctuation[size["width"]] = page.evaluate(PUNCTUATION_JS)
                if shot and phone:
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    # the first screen, as a phone shows it (a full page of a long chapter
                    # takes seconds; test_pages.py keeps full-page desktop screenshots)
                    page.screenshot(path=str(SHOTS / f"phone-{shot}.png"))
                if self.axe:
                    page.add_script_tag(content=self.axe)
                    look.axe = page.evaluate(AXE_JS, not phone)
                if phone:  # the narrowest phone: the same page, the window made narrower
                    self.resize(page, NARROW, size["height"])
                    look.blocks[NARROW] = page.evaluate(BLOCKS_JS)
                    look.punctuation[NARROW] = page.evaluate(PUNCTUATION_JS)
                    self.resize(page, size["width"], size["height"])
                # the dark theme, as the theme's switch sets it (pydata-sphinx-theme's
                # setTheme: the data-theme attribute and the dark dropdown menus)
                page.evaluate("""() => {
                    document.documentElement.dataset.theme = 'dark';
                    document.documentElement.dataset.mode = 'dark';
                    document.querySelectorAll('.dropdown-menu')
                            .forEach(m => m.classList.add('dropdown-menu-dark'));
                }""")
                look.dark = page.evaluate(LIGHT_BOXES_JS)
                if shot:
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SHOTS / f"dark-{self.viewport}-{shot}.png"))
                if self.axe:
                    look.dark_axe = page.evaluate(AXE_CONTRAST_JS, not phone)
                if not phone:  # printed: print media on a window as wide as the paper
                    page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
                    page.emulate_media(media="print")
                    self.resize(page, PRINT_WIDTH, size["height"])
                    look.printed = page.evaluate(PRINT_JS)
            finally:
                page.close()
            self.looks[path] = look
        return self.looks[path]

    @staticmethod
    def resize(page, width: int, height: int) -> None:
        """Give the page a new window size and let lnbook-site.js mark at once what no
        longer fits (it would on its resize event, a moment later)."""
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => window.lnbook && window.lnbook.refresh()")
