"""What a reader takes away from a page, in the browser: the notebook and the page's source as
files, and the page printed (issue 19, items 3 and 5).

Hosts serve a notebook as JSON text (``application/json``), which a browser shows instead of
saving (jupyter-book #2237, sphinx-book-theme #918): the tests serve it so, and a link counts
as a download only if Chromium fires a download for it. The printed chapter is Chromium's own
PDF (``page.pdf()``), read back with poppler's ``pdftotext``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import nbformat
import pytest
from builtsite import NOTEBOOKS, ROOT
from common import in_ci

# what a careless host sends: the notebook as JSON to show, the Markdown source as text
SERVED_AS = {".ipynb": "application/json", ".md": "text/plain; charset=utf-8"}


@pytest.fixture(scope="module")
def context(server, browser):
    context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    context.set_default_timeout(20_000)

    def route(route):
        url = route.request.url
        if not url.startswith(server):
            route.abort("blockedbyclient")
            return
        suffix = next((s for s in SERVED_AS if url.split("?")[0].endswith(s)), None)
        if suffix is None:
            route.continue_()
            return
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers,
                                                  "content-type": SERVED_AS[suffix]})

    context.route("**/*", route)
    yield context
    context.close()


def download(page, link) -> tuple[str, bytes]:
    """Click the link as a reader would; the file Chromium saves, or a failure naming what
    the browser did instead."""
    try:
        with page.expect_download(timeout=5000) as info:
            link.click()
    except Exception as err:  # noqa: BLE001 - playwright's timeout, reported with the page
        pytest.fail(f"no download from {link.get_attribute('href')}: the browser shows "
                    f"{page.url} ({type(err).__name__})")
    d = info.value
    path = d.path()
    return d.suggested_filename, path.read_bytes()


def header_download(context, server, page_path: str, suffix: str) -> tuple[str, bytes]:
    """(file name, bytes) of what the page's header download menu gives for ``suffix``."""
    page = context.new_page()
    try:
        page.goto(f"{server}{page_path}", wait_until="load")
        page.locator(".dropdown-download-buttons button.dropdown-toggle").click()
        return download(page, page.locator(".dropdown-download-buttons a", has_text=suffix))
    finally:
        page.close()


def test_notebook_from_the_header_is_a_file(context, server):
    """The header's download menu gives the chapter's notebook as a file (served as JSON
    text), named as the chapter's notebook, with the stored notebook's cells."""
    name, data = header_download(context, server, "book/epsilon.html", ".ipynb")
    assert name == "epsilon.ipynb", name
    served = nbformat.reads(data.decode("utf-8"), as_version=4)
    stored = nbformat.read(ROOT / "book" / "epsilon.ipynb", as_version=4)
    assert [c.source for c in served.cells] == [c.source for c in stored.cells]


def test_page_source_from_the_header_is_a_file(context, server):
    """A Markdown page's download menu gives its source (.md) as a file too."""
    name, data = header_download(context, server, "book/notation.html", ".md")
    assert name == "notation.md", name
    assert data == (ROOT / "book" / "notation.md").read_bytes()


@pytest.mark.parametrize("entry", NOTEBOOKS[:1] + NOTEBOOKS[-1:])
def test_chapter_offers_its_notebook(context, server, entry):
    """Under its title, the chapter offers its notebook: a visible link that downloads it."""
    page = context.new_page()
    try:
        page.goto(f"{server}{entry}.html", wait_until="load")
        link = page.locator("article .lnb-notebook a")
        assert link.count() == 1 and link.is_visible()
        name, data = download(page, link)
    finally:
        page.close()
    stem = entry.rsplit("/", 1)[-1]
    assert name == f"{stem}.ipynb", name
    assert json.loads(data)["cells"], "an empty notebook"


def pdftotext() -> str:
    found = shutil.which("pdftotext")
    if found is None:
        reason = ("pdftotext is missing: install poppler's tools with "
                  "`apt-get install -y poppler-utils`")
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def test_printed_chapter_keeps_every_code_line(context, server, tmp_path):
    """The epsilon chapter printed to PDF by Chromium (A4, the print stylesheet) holds every
    line of every code block and output whole (whitespace aside): none is cut at the paper's
    edge. Its solutions are printed too."""
    tool = pdftotext()
    page = context.new_page()
    try:
        page.goto(f"{server}book/epsilon.html", wait_until="load")
        # the code the page shows (a folded cell shows its summary only, on paper too)
        lines = page.evaluate("""() => Array.from(document.querySelectorAll('article pre'))
            .filter(p => p.checkVisibility())
            .flatMap(p => p.textContent.split('\\n')).map(l => l.trim()).filter(l => l)""")
        # the solutions' text as the printed page shows it (folded on screen)
        page.emulate_media(media="print")
        solutions = page.evaluate("""() => Array.from(document.querySelectorAll(
            'article .solution')).map(s => Array.from(s.children).filter(
              c => !c.classList.contains('admonition-title')).map(c => c.innerText).join(' '))""")
        page.emulate_media(media=None)
        pdf = tmp_path / "epsilon.pdf"
        page.pdf(path=str(pdf), format="A4", print_background=True)
    finally:
        page.close()
    # -raw: the text in the order the PDF draws it (the layout mode turns runs of spaces in
    # printed tables into columns and reorders them)
    text = subprocess.run([tool, "-raw", "-enc", "UTF-8", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    flat = re.sub(r"\s+", "", text)
    lost = [line for line in lines if re.sub(r"\s+", "", line) not in flat]
    assert lines and not lost, f"{len(lost)} of {len(lines)} code lines cut in print:\n" + (
        "\n".join(lost[:15]))
    words = [w for s in solutions for w in re.findall(r"[A-Za-z]{6,}", s)]
    joined = re.sub(r"-\s*\n\s*", "", text)  # a word hyphenated at a line's end, whole
    missing = sorted({w for w in words if w not in joined})
    assert words and not missing, f"solution text missing from the PDF: {missing[:20]}"
