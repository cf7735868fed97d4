"""The site search's formulas as text (_ext/lnbook_search.py): KaTeX's MathML made one line a
reader would type, and a page's formulas replaced by it for the index. No build, no browser
(fast tier); the search itself is tested in the browser by tests/site/test_search.py."""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "_ext"))
import lnbook_search as search  # noqa: E402


def m(body: str) -> str:
    """A KaTeX MathML formula around ``body``, with the TeX annotation KaTeX adds."""
    return ('<math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow>' + body
            + '</mrow><annotation encoding="application/x-tex">\\varepsilon</annotation>'
            "</semantics></math>")


@pytest.mark.parametrize(("body", "text"), [
    # the TeX annotation is never text: ε once, not ε\varepsilonε
    ("<mi>ε</mi>", "ε"),
    # relations and binary operators spaced, commas followed by a space
    ("<mi>v</mi><mo>=</mo><mi>z</mi><mo>−</mo><mi>μ</mi><mn>1</mn>", "v = z − μ1"),
    ("<mi>a</mi><mo separator=\"true\">,</mo><mi>b</mi>", "a, b"),
    # scripts: Unicode where every character has a form, else ^(...) / _...
    ("<msup><mi>z</mi><mi mathvariant=\"normal\">⊤</mi></msup>", "zᵀ"),
    ("<msub><mi>z</mi><mi>i</mi></msub>", "zᵢ"),
    ("<msub><mi>u</mi><mi>ε</mi></msub>", "u_ε"),
    ("<msup><mn>2</mn><mrow><mo>−</mo><mn>53</mn></mrow></msup>", "2⁻⁵³"),
    ("<msup><mi>s</mi><mrow><mn>3</mn><mi mathvariant=\"normal\">/</mi><mn>2</mn></mrow>"
     "</msup>", "s^(3/2)"),
    # fractions: parenthesized parts, and parentheses around a fraction beside a factor
    ("<mfrac><mi>v</mi><mi>s</mi></mfrac>", "v/s"),
    ("<mfrac><mrow><mi>q</mi></mrow><mrow><mi>q</mi><mo>+</mo><mi>ε</mi></mrow></mfrac>",
     "q/(q + ε)"),
    ("<mfrac><mn>1</mn><mi>d</mi></mfrac><mi>I</mi>", "(1/d)I"),
    ("<msub><mi>u</mi><mi>ε</mi></msub><mo>=</mo><mfrac><mi>v</mi><msqrt><mrow><mi>q</mi>"
     "<mo>+</mo><mi>ε</mi></mrow></msqrt></mfrac>", "u_ε = v/√(q + ε)"),
    ("<msubsup><mrow><mo>∥</mo><mi>v</mi><mo>∥</mo></mrow><mn>2</mn><mn>2</mn></msubsup>"
     "<mo>≤</mo><msup><mi>s</mi><mrow><mo>−</mo><mn>1</mn><mi mathvariant=\"normal\">/</mi>"
     "<mn>2</mn></mrow></msup>", "∥v∥₂² ≤ s^(−1/2)"),
    # roots, accents, limits
    ("<msqrt><mrow><mi>q</mi><mo>+</mo><mi>ε</mi></mrow></msqrt>", "√(q + ε)"),
    ("<msqrt><mi>d</mi></msqrt>", "√d"),
    ("<mover accent=\"true\"><mi>z</mi><mo>^</mo></mover>", "ẑ"),
    ("<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>d</mi>"
     "</munderover><msub><mi>z</mi><mi>i</mi></msub>", "∑ᵢ₌₁^dzᵢ"),
    # aligned rows: in order, "; " between them
    ("<mtable><mtr><mtd><mi>a</mi></mtd><mtd><mo>=</mo><mi>b</mi></mtd></mtr>"
     "<mtr><mtd></mtd><mtd><mo>=</mo><mi>c</mi></mtd></mtr></mtable>", "a = b; = c"),
])
def test_math_text(body, text):
    assert search.math_text(m(body)) == text


def test_math_text_of_malformed_mathml_keeps_its_characters():
    assert search.math_text("<math><mi>x</mi><mo>=</mo>") == "x="


def test_formulas_as_text_replaces_each_formula_once():
    """A page's KaTeX formulas (MathML, TeX annotation and HTML rendering) become one line
    each; the text around them stays."""
    formula = ('<span class="katex"><span class="katex-mathml">' + m("<mi>ε</mi>")
               + '</span><span class="katex-html" aria-hidden="true"><span class="base">'
               '<span class="mord mathnormal">ε</span></span></span></span>')
    page = f"<p>add <span class=\"math\">{formula}</span> to q, then {formula}.</p>"
    assert search.formulas_as_text(page) == (
        '<p>add <span class="math"><span>ε</span></span> to q, then <span>ε</span>.</p>')


def test_index_source_titles_the_page_and_keeps_its_article():
    page = ('<html><head><title>6. The Jacobian &#8212; Layer normalization</title></head>'
            '<body><nav>menu</nav><article class="bd-article"><h1>The Jacobian</h1>'
            "</article></body></html>")
    source = search.index_source(page)
    assert 'data-pagefind-body data-pagefind-meta="title:6. The Jacobian"' in source
    assert search.index_source("<html><body><p>no article</p></body></html>") is None


def test_a_broken_index_file_is_found(tmp_path):
    """The build writes the index again when Pagefind leaves a file empty (pagefind-entry.json
    of 0 bytes, seen once under load) or the entry file is not JSON."""
    folder = tmp_path / "pagefind"
    (folder / "index").mkdir(parents=True)
    (folder / "pagefind-entry.json").write_text('{"version": "1"}')
    (folder / "index" / "en_1.pf_index").write_bytes(b"x")
    assert search._broken_files(folder) == []
    (folder / "pagefind-entry.json").write_text("")
    assert search._broken_files(folder) == ["pagefind-entry.json", "pagefind-entry.json"]
    (folder / "pagefind-entry.json").write_text("{")
    (folder / "index" / "en_1.pf_index").write_bytes(b"")
    assert sorted(search._broken_files(folder)) == ["en_1.pf_index", "pagefind-entry.json"]
