"""The whole book's PDF, checked like the website (issue 19): it builds without a LaTeX error
or an undefined reference, holds every page of the book and every figure at print
resolution, shows every glued number exactly as the website does, and loses no formula.

The PDF is built by ``tools/build-pdf`` (``tools/build-site`` runs it beside the HTML build);
these tests read it (see ``pdfbook``). A missing or stale PDF, or missing poppler tools, skip
the tests saying why; in CI and in ``tools/test site`` they fail instead.
"""

from __future__ import annotations

import re

import pdfbook
import pytest
from common import in_ci

pytestmark = pytest.mark.site

# the print standard, in pixels per inch of paper: _config.yml's pxunit prints each figure's
# PNG (two dots per CSS pixel) at 300
PRINT_PPI = 300


@pytest.fixture(scope="module", autouse=True)
def built_pdf():
    reason = None
    if missing := pdfbook.missing_tools():
        reason = (f"poppler's {', '.join(missing)} missing: apt-get install poppler-utils "
                  "(tools/build-pdf installs it as root)")
    elif stale := pdfbook.pdf_is_stale():
        reason = f"{stale}: tools/build-pdf builds it"
    if reason:
        if in_ci() or pdfbook.in_site_tier():
            pytest.fail(reason)
        pytest.skip(reason)


def test_latex_log_has_no_error_and_no_undefined_reference():
    """xelatex's last run ended without an error, an undefined reference or citation, a
    character no font has, or a label that would move on another run."""
    assert pdfbook.LOG.exists()
    assert pdfbook.log_problems() == []
    assert "Output written on lnbook.pdf" in pdfbook.LOG.read_text(errors="replace")


def test_log_check_finds_what_it_looks_for(tmp_path, monkeypatch):
    """The log check is not blind: a log with an error, an undefined reference and a missing
    glyph yields all three."""
    log = tmp_path / "lnbook.log"
    log.write_text("ok\n! Undefined control sequence.\nl.12 \\foo\n"
                   "LaTeX Warning: Reference `book/x:y' on page 3 undefined on input line 9.\n"
                   "Missing character: There is no ⊙ (U+2299) in font FreeMono\n")
    monkeypatch.setattr(pdfbook, "LOG", log)
    problems = pdfbook.log_problems()
    assert len(problems) == 3
    assert problems[0].startswith("! Undefined control sequence. l.12")


def test_every_page_of_the_book_is_in_the_pdf_numbered_as_on_the_site():
    """Every page of _toc.yml starts in the PDF, in the toc's order; the chapters of the
    numbered part are numbered 1, 2, ... as on the website, the others are not numbered; each
    starts with its title."""
    labels = pdfbook.aux_labels()
    starts = [pdfbook.first_page(doc) for doc, _ in pdfbook.toc()]
    assert starts == sorted(starts)
    n = 0
    for doc, numbered in pdfbook.toc()[1:]:  # the root page opens the book without a title
        number, _, anchor = labels[f"{doc}::doc"]
        if numbered:
            n += 1
            assert (number, anchor) == (str(n), f"chapter.{n}"), doc
        else:
            assert anchor.startswith("chapter*"), doc
        title = re.search(r"^# (.+)$", pdfbook.markdown(doc), re.M).group(1)
        title = re.sub(r"\$[^$]*\$", "", title).split()[0]
        # (the chapter heads print titles in capitals)
        assert title.lower() in pdfbook.pages()[pdfbook.first_page(doc) - 1].lower(), doc


def test_every_figure_is_in_its_chapter_at_print_resolution():
    """Every named figure of every page is a numbered figure of the PDF, on a page of its own
    chapter, numbered <chapter>.<n> in the numbered chapters; the PDF embeds one image per
    PNG figure (the benchmarks page's SVG becomes vector graphics), each at PRINT_PPI or more."""
    labels, dests, ranges = pdfbook.aux_labels(), pdfbook.destinations(), pdfbook.page_ranges()
    png = 0
    total = 0
    for doc, numbered in pdfbook.toc():
        chapter = labels[f"{doc}::doc"][0]
        for name in pdfbook.glued_figures(doc):
            total += 1
            number, _, anchor = labels[f"{doc}:{name}"]
            assert anchor.startswith("figure."), (doc, name, anchor)
            first, last = ranges[doc]
            assert first <= dests[anchor] <= last, (doc, name)
            if numbered:
                assert number.startswith(f"{chapter}."), (doc, name, number)
            png += pdfbook.notebook(doc) is not None
    assert total >= 17  # the book's figures when this test was written; more is fine
    found = pdfbook.images()
    assert len(found) == png
    low = [(img["page"], img["x-ppi"]) for img in found
           if min(int(img["x-ppi"]), int(img["y-ppi"])) < PRINT_PPI]
    assert low == []


def test_every_glued_number_appears_in_its_chapter_as_on_the_website():
    """Each {glue:text} value, formatted as the website formats it (myst-nb's
    format_plain_text on the value stored in the notebook), is in the text of its chapter in
    the PDF, as often as the chapter glues it."""
    missing = []
    n = 0
    for doc, _ in pdfbook.toc():
        text = pdfbook.text_of(doc)
        values = pdfbook.glued_values(doc)
        n += len(values)
        for name, value in values:
            needed = sum(v == value for _, v in values)
            found = len(re.findall(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", text))
            if found < needed:
                missing.append((doc, name, value, needed, found))
    assert missing == []
    assert n >= 100  # the book glued 127 values when this was written


def test_the_glued_numbers_checked_are_the_websites():
    """The values the test above looks for are those the built website shows: each chapter's
    pasted texts (myst-nb's ``span.pasted-text``), in order."""
    import html

    html_root = pdfbook.ROOT / "_build" / "html"
    if not (html_root / "index.html").exists():
        reason = "the website has not been built: tools/build-site"
        if in_ci() or pdfbook.in_site_tier():
            pytest.fail(reason)
        pytest.skip(reason)
    for doc, _ in pdfbook.toc():
        page = (html_root / f"{doc}.html").read_text()
        shown = [html.unescape(t) for t in
                 re.findall(r'<span class="pasted-text">([^<]*)</span>', page)]
        assert shown == [value for _, value in pdfbook.glued_values(doc)], doc


def test_no_formula_is_lost():
    """Each page's inline and display formulas, counted in its Markdown (parsed with
    myst-parser's markdown-it, and the API page's docstrings), are all in the .tex."""
    lost = []
    for doc, _ in pdfbook.toc():
        source = pdfbook.count_formulas(pdfbook.markdown(doc))
        written = pdfbook.count_tex_formulas(pdfbook.tex_by_doc()[doc])
        if source != written:
            lost.append((doc, source, written))
    assert lost == []


def test_formula_counter_counts_what_it_should():
    """The source counter on a hand-counted example: inline math in prose, in a theorem's
    title and body, in a figure caption; display math as $$, as amsmath, in {math}; none in
    code."""
    text = "\n".join([
        "One $a$ and $b$.", "", "$$x = 1$$", "",
        "```{prf:theorem} About $c$", ":label: t", "", "Body $d$.", "", "$$y$$", "```", "",
        "```{glue:figure} f", ":name: fig-f", "", "Caption $e$.", "```", "",
        "\\begin{align}", "z &= 1", "\\end{align}", "",
        "```{math}", "w", "```", "",
        "```python", "s = '$not math$'", "```",
    ])
    assert pdfbook.count_formulas(text) == (5, 4)


def test_readme_says_how_to_build_the_pdf():
    readme = (pdfbook.ROOT / "README.md").read_text()
    assert "tools/build-pdf" in readme
    assert "_build/pdf/lnbook.pdf" in readme


def test_the_website_carries_the_pdf_and_every_page_links_to_it():
    """tools/build-site put this very PDF at the website's root, and every page of the book
    links to it from its download menu (the link is checked in a browser in tests/site)."""
    html_root = pdfbook.ROOT / "_build" / "html"
    if not (html_root / "index.html").exists():
        reason = "the website has not been built: tools/build-site"
        if in_ci() or pdfbook.in_site_tier():
            pytest.fail(reason)
        pytest.skip(reason)
    assert pdfbook.SITE_PDF.read_bytes() == pdfbook.PDF.read_bytes(), (
        "the website's PDF is not the one built last: tools/build-site builds both")
    unlinked = []
    for doc, _ in pdfbook.toc():
        page = html_root / f"{doc}.html"
        hrefs = re.findall(r'href="([^"]*lnbook\.pdf)"', page.read_text())
        resolved = {(page.parent / h).resolve() for h in hrefs}
        if resolved != {pdfbook.SITE_PDF.resolve()}:
            unlinked.append((doc, hrefs))
    assert unlinked == []
