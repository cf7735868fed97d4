"""What a reader does on a page, in headless Chromium: the drawers, the sidebar's toggle, the
keyboard, wide blocks scrolled from the keyboard, what a reader takes away (the notebook and
the page's source as files, the page printed); and the page checks of test_looks.py shown to
fail on a page with the defect they look for."""

from __future__ import annotations

import json
import re
import subprocess

import nbformat
import pytest
from builtsite import NOTEBOOKS, ROOT, guard
from test_looks import AXE_RUN, DESKTOP, LOOK_JS, MARKUP, NARROW, PHONE, WIDTH_RULES

# what a careless host sends: the notebook as JSON to show, the Markdown source as text
SERVED_AS = {".ipynb": "application/json", ".md": "text/plain; charset=utf-8"}


@pytest.fixture(scope="module")
def tab(browser, server):
    """``tab(viewport, **options)``: a new tab of a new context, guarded; all closed after."""
    contexts = []

    def open_tab(viewport=DESKTOP, **options):
        contexts.append(browser.new_context(viewport=viewport, **options))
        contexts[-1].set_default_timeout(20_000)
        contexts[-1].add_init_script(path=LOOK_JS)
        problems = []
        page = guard(contexts[-1].new_page(), server, problems)
        page.problems = problems
        return page

    yield open_tab
    for context in contexts:
        context.close()


def visible(page, selector: str):
    shown = [h for h in page.query_selector_all(selector) if h.is_visible()]
    assert len(shown) == 1, f"{selector}: {len(shown)} visible"
    return shown[0]


@pytest.mark.parametrize("entry", ["book/epsilon", "book/api"])
def test_phone_table_of_contents_drawer(tab, server, entry):
    """On a phone the menu button opens the table of contents as a drawer, whose chapter
    links lead to their pages."""
    page = tab(PHONE)
    page.goto(f"{server}{entry}.html", wait_until="load")
    dialog = page.locator("#pst-primary-sidebar-modal")
    assert not dialog.evaluate("d => d.open")
    visible(page, "button.primary-toggle").click()
    page.wait_for_function("() => document.querySelector('#pst-primary-sidebar-modal').open")
    links = dialog.locator("nav.bd-docs-nav a.reference.internal")
    assert links.count() >= len(NOTEBOOKS), links.count()
    with page.expect_navigation():
        links.filter(has_text="Bias").first.click()
    assert page.url.endswith("/book/bias.html") and not page.problems, page.problems


def test_phone_in_page_contents_drawer(tab, server):
    """On a touch screen the in-page contents button opens the page's sections as a drawer;
    a tap on a section closes the drawer and scrolls to that section."""
    page = tab(PHONE, has_touch=True, is_mobile=True)
    page.goto(f"{server}book/epsilon.html", wait_until="load")
    visible(page, "button.secondary-toggle").tap()
    page.wait_for_function("() => document.querySelector('#pst-secondary-sidebar-modal').open")
    link = page.locator("#pst-secondary-sidebar-modal nav.page-toc a.nav-link").nth(1)
    href = link.get_attribute("href")
    link.tap()
    page.wait_for_function("h => location.hash === h", arg=href)
    page.wait_for_function("el => { const r = el.getBoundingClientRect(); return r.top >= -5 "
                           "&& r.top < innerHeight; }",
                           arg=page.locator(f"[id='{href[1:]}']").element_handle())
    assert not page.evaluate("() => document.querySelector('#pst-secondary-sidebar-modal').open")
    assert not page.problems, page.problems


def test_desktop_primary_sidebar_toggle(tab, server):
    """At a desk "Toggle primary sidebar" hides the table of contents and shows it again."""
    page = tab()
    page.goto(f"{server}book/epsilon.html", wait_until="load")
    button = visible(page, "button.primary-toggle")
    for state in ("hidden", "visible"):
        button.click()
        page.wait_for_function(f"() => getComputedStyle(document.querySelector("
                               f"'#pst-primary-sidebar')).visibility === '{state}'")
    assert not page.evaluate("() => document.querySelector('#pst-primary-sidebar-modal').open")
    assert not page.problems, page.problems


# every element that takes the focus, in order, recorded by the page as Tab moves it
RECORD_FOCUS = """() => { window.lnbStops = [];
  document.addEventListener('focusin', () => {
    const el = document.activeElement, s = getComputedStyle(el), r = el.getBoundingClientRect();
    window.lnbStops.push({label: (el.getAttribute('aria-label') || el.getAttribute('title')
                                  || el.innerText || '').trim().slice(0, 40),
      marked: (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1)
              || s.boxShadow !== 'none',
      math: !!el.closest('.math, .katex'), scrolls: el.scrollWidth > el.clientWidth + 1,
      shown: r.width > 0 && r.height > 0, name: el.tagName + '.' + el.className});
  });
  return document.querySelectorAll('a[href], button, input, summary, [tabindex]').length; }"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_keyboard_focus_is_visible(tab, server, viewport):
    """Tabbing through the exercises page reaches the header's controls (launch, repository,
    download, search), each stop showing a focus outline; formulas are not tab stops unless
    they scroll."""
    page = tab(viewport)
    page.goto(f"{server}book/exercises.html", wait_until="load")
    for _ in range(page.evaluate(RECORD_FOCUS) + 1):
        page.keyboard.press("Tab")
    stops = [s for s in page.evaluate("() => window.lnbStops") if s["shown"]]
    labels = " | ".join(s["label"] for s in stops)
    for word in ("launch", "repository", "download", "search"):
        assert re.search(word, labels, re.I), f"no {word} control reached by Tab: {labels}"
    assert not [s for s in stops if not s["marked"]], "focus not visible"
    assert not [s for s in stops if s["math"] and not s["scrolls"]], "formulas are tab stops"


def test_wide_blocks_scroll_from_the_keyboard(tab, server):
    """At 320 px a code block and a display formula wider than the column (one widened here,
    as the book's all fit) take the focus, scroll sideways with the arrow keys, and show
    their cue: the edge with more to see is darker than without the cue, on the right
    before scrolling and on the left after."""
    from io import BytesIO

    from PIL import Image

    page = tab({"width": NARROW, "height": PHONE["height"]})
    page.goto(f"{server}book/epsilon.html", wait_until="load")
    page.add_style_tag(content=".lnb-test-no-cue { background-image: none !important; }")
    page.evaluate("""() => { const f = Array.from(document.querySelectorAll(
            'article .katex-display .katex')).find(k => k.checkVisibility());
        f.style.display = 'inline-block'; f.style.minWidth = '900px';
        window.lnbook.refresh(); }""")
    def cue(box, side: str) -> float:
        """How much darker the cue makes the box's 6 px strip at that side."""
        def edge() -> float:
            image = Image.open(BytesIO(box.screenshot())).convert("L")
            w, h = image.size
            strip = image.crop((w - 6, 0, w, h) if side == "right" else (0, 0, 6, h))
            return sum(strip.get_flattened_data()) / (strip.width * strip.height)

        with_cue = edge()
        box.evaluate("b => b.classList.add('lnb-test-no-cue')")
        without = edge()
        box.evaluate("b => b.classList.remove('lnb-test-no-cue')")
        return without - with_cue

    for selector in ("article pre", "article .katex-display"):
        box = page.locator(f"{selector}.lnb-scroll:visible").first
        box.scroll_into_view_if_needed()
        assert cue(box, "right") > 3, selector
        box.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("b => b.scrollLeft > 0 && b.classList.contains('lnb-more-left')",
                               arg=box.element_handle())
        assert cue(box, "left") > 3, selector


def test_page_checks_can_fail(tab, server, axe):
    """On a page given the defects they look for, the checks of test_looks.py find them:
    axe's full scan an image without a text alternative and grey text on grey, its dark
    contrast scan dark text on the dark theme, its phone rules a scroll box no key reaches
    and targets too small to tap; the punctuation check marks that start a line once the
    site's fix is undone (at 320 px); the markup patterns what issue 8 saw."""
    page = tab({"width": NARROW, "height": PHONE["height"]})
    page.goto(f"{server}book/jacobian.html", wait_until="load")
    page.add_style_tag(content=".lnb-nobr { white-space: normal !important; }")
    assert page.evaluate("lnbLook.punctuation()")
    page.evaluate("""() => document.querySelector('article.bd-article').insertAdjacentHTML(
        'afterbegin', '<p style="color: #8a8a8a; background: #999">grey on grey</p>'
        + '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">'
        + '<div style="overflow: auto; width: 60px; height: 40px"><p style="width: 400px">'
        + 'wide text</p><p>more</p><p>more</p></div>'
        + '<p><button style="width: 8px; height: 8px"></button>'
        + '<button style="width: 8px; height: 8px"></button></p>')""")
    page.add_script_tag(content=axe)
    found = " ".join(page.evaluate(AXE_RUN, None) + page.evaluate(AXE_RUN, WIDTH_RULES))
    for rule in ("image-alt", "color-contrast", "scrollable-region-focusable", "target-size"):
        assert f" {rule} " in found, (rule, found)
    page.evaluate("""() => { document.documentElement.dataset.theme = 'dark';
        document.querySelector('article.bd-article > p').style.cssText = 'color: #222'; }""")
    assert page.evaluate(AXE_RUN, ["color-contrast"])
    for text in ["+ \\frac{1}{d}", "$$ y = \\gamma $$", "| a | b |\n|---|---|", "costs $5",
                 "see {ref}`ch-epsilon`", "\\varepsilon"]:
        assert any(p.search(text) for _, p in MARKUP), text
    assert not any(p.search("The core u is v/s; ε ≥ 0 and |x| ≤ 1.") for _, p in MARKUP)


# --------------------------------------------------------------------------------------------
# what a reader takes away: hosts serve a notebook as JSON text, which a browser shows instead
# of saving (jupyter-book #2237); a link counts as a download only if Chromium fires one


@pytest.fixture(scope="module")
def saving(browser, server):
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    context.set_default_timeout(20_000)

    def route(route):
        suffix = next((s for s in SERVED_AS if route.request.url.split("?")[0].endswith(s)), "")
        if not route.request.url.startswith(server):
            route.abort("blockedbyclient")
        elif not suffix:
            route.continue_()
        else:
            response = route.fetch()
            route.fulfill(response=response, headers={**response.headers,
                                                      "content-type": SERVED_AS[suffix]})

    context.route("**/*", route)
    yield context
    context.close()


def download(page, link) -> tuple[str, bytes]:
    with page.expect_download(timeout=5000) as info:
        link.click()
    return info.value.suggested_filename, info.value.path().read_bytes()


@pytest.mark.parametrize(("entry", "where", "name"), [
    ("book/epsilon", ".ipynb", "epsilon.ipynb"), ("book/notation", ".md", "notation.md"),
    ("book/epsilon", "title", "epsilon.ipynb"), (NOTEBOOKS[-1], "title", None)])
def test_downloads_are_files(saving, server, entry, where, name):
    """The header's download menu gives a chapter's notebook and a page's Markdown as files,
    named as the sources, with their content; under its title a chapter offers its notebook,
    a visible link that downloads it."""
    page = saving.new_page()
    try:
        page.goto(f"{server}{entry}.html", wait_until="load")
        if where == "title":
            link = page.locator("article .lnb-notebook a")
            assert link.count() == 1 and link.is_visible()
        else:
            page.locator(".dropdown-download-buttons button.dropdown-toggle").click()
            link = page.locator(".dropdown-download-buttons a", has_text=where)
        got, data = download(page, link)
    finally:
        page.close()
    source = ROOT / f"{entry}{'.md' if where == '.md' else '.ipynb'}"
    assert got == (name or source.name), got
    if source.suffix == ".md":
        assert data == source.read_bytes()
    else:
        served = nbformat.reads(data.decode("utf-8"), as_version=4)
        stored = nbformat.read(source, as_version=4)
        assert [c.source for c in served.cells] == [c.source for c in stored.cells]


def test_printed_chapter_keeps_every_code_line(saving, server, tmp_path, poppler):
    """The epsilon chapter printed to PDF by Chromium (A4, the print stylesheet) holds every
    line of every code block and output whole (none cut at the paper's edge), and the text of
    its solutions, folded on screen."""
    page = saving.new_page()
    try:
        page.goto(f"{server}book/epsilon.html", wait_until="load")
        lines = page.evaluate("""() => Array.from(document.querySelectorAll('article pre'))
            .filter(p => p.checkVisibility())
            .flatMap(p => p.textContent.split('\\n')).map(l => l.trim()).filter(l => l)""")
        page.emulate_media(media="print")
        solutions = page.evaluate("""() => Array.from(document.querySelectorAll(
            'article .solution > :not(.admonition-title)')).map(c => c.innerText).join(' ')""")
        page.emulate_media(media=None)
        page.pdf(path=str(tmp_path / "epsilon.pdf"), format="A4", print_background=True)
    finally:
        page.close()
    # -raw: the text in the order the PDF draws it
    text = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(tmp_path / "epsilon.pdf"),
                           "-"], check=True, capture_output=True, text=True).stdout
    flat = re.sub(r"\s+", "", text)
    lost = [line for line in lines if re.sub(r"\s+", "", line) not in flat]
    assert lines and not lost, f"{len(lost)} of {len(lines)} code lines cut:\n" + "\n".join(lost)
    joined = re.sub(r"-\s*\n\s*", "", text)  # a word hyphenated at a line's end, whole
    words = set(re.findall(r"[A-Za-z]{6,}", solutions))
    assert words and not {w for w in words if w not in joined}, json.dumps(sorted(words))
