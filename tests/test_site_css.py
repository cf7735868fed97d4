"""The purge of unused CSS rules after the site build (_ext/lnbook_site.py), on stylesheets and
pages written here by hand: no build, no browser (fast tier)."""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "_ext"))
import lnbook_site as site  # noqa: E402


def test_unused_class_goes_used_class_stays():
    css = ".a{color:red}.b{color:blue}p{margin:0}"
    assert site.purge_css(css, {".a"}) == ".a{color:red}p{margin:0}"


def test_one_used_selector_keeps_the_whole_rule():
    css = ".gone,.kept > span{x:1}.gone .kept{x:2}"
    # in the second selector .gone is needed too: the rule goes
    assert site.purge_css(css, {".kept"}) == ".gone,.kept > span{x:1}"


def test_ids_and_compound_selectors():
    css = "#nav.open{x:1}#nav{x:2}div.card.open{x:3}"
    assert site.purge_css(css, {"#nav"}) == "#nav{x:2}"
    assert site.purge_css(css, {"#nav", ".open"}) == "#nav.open{x:1}#nav{x:2}"


def test_media_nesting_purged_inside_and_dropped_when_empty():
    css = ("@media (min-width:960px){.a{x:1}.b{x:2}}"
           "@media print{.b{x:3}}"
           "@supports (display:grid){@media screen{.a{x:4}}}"
           "@supports (gap:1px){@media screen{.b{x:5}}}")
    assert site.purge_css(css, {".a"}) == (
        "@media (min-width:960px){.a{x:1}}"
        "@supports (display:grid){@media screen{.a{x:4}}}")


def test_braces_in_strings_and_comments():
    css = ('.a::before{content:"}{"}'
           "/* .b{x:1} } */"
           '.b[title="{"]::after{content:\'.a{\'}'
           ".c{x:/* } */2}")
    assert site.split_css(css) == [
        (".a::before", 'content:"}{"'),
        ("/* .b{x:1} } */", None),
        ('.b[title="{"]::after', "content:'.a{'"),
        (".c", "x:/* } */2"),
    ]
    assert site.purge_css(css, {".a"}) == '.a::before{content:"}{"}/* .b{x:1} } */'


def test_font_face_keyframes_root_and_statements_kept():
    css = ('@charset "UTF-8";'
           "@import url(other.css);"
           ':root{--c:#fff}html[data-theme=dark]{--c:#000}'
           '@font-face{font-family:"X";src:url(x.woff)}'
           "@keyframes spin{from{transform:rotate(0)}to{transform:rotate(1turn)}}"
           ".unused{x:1}")
    assert site.purge_css(css, set()) == (
        '@charset "UTF-8";'
        "@import url(other.css);"
        ':root{--c:#fff}html[data-theme=dark]{--c:#000}'
        '@font-face{font-family:"X";src:url(x.woff)}'
        "@keyframes spin{from{transform:rotate(0)}to{transform:rotate(1turn)}}")


def test_names_inside_brackets_and_functional_pseudo_classes_are_not_needed():
    assert site.selector_names('a[href$=".pdf"]:not(.x)') == set()
    assert site.selector_names(".p:is(.q,.r) > #s::before") == {".p", "#s"}
    assert site.selector_names("html[data-theme=dark] .bd-content .x") == {".bd-content", ".x"}
    # escaped characters belong to the name
    assert site.selector_names(r".sm\:flex .w-1\/2") == {".sm:flex", ".w-1/2"}
    assert site.selector_names(r".\31 0") == {".10"}


def test_split_selectors_respects_parentheses_brackets_strings():
    assert site.split_selectors('.a, .b:is(.c, .d), [t="x,y"] .e') == [
        ".a", ".b:is(.c, .d)", '[t="x,y"] .e']


def test_used_names_from_pages_and_their_scripts(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "book" / "a.html").write_text(
        '<html><body class="page  dark-ok" id=top>'
        '<div class=\'card\'></div><script src="../_static/site.js"></script>'
        '<script>el.classList.add("from-inline")</script></body></html>', encoding="utf-8")
    (tmp_path / "_static" / "site.js").write_text(
        'x.classList.toggle("show"); y.className = "collapsing fade";', encoding="utf-8")
    (tmp_path / "_static" / "unused.js").write_text('z.add("never-loaded")', encoding="utf-8")
    used = site.used_names(tmp_path)
    for name in [".page", ".dark-ok", "#top", ".card", ".from-inline", ".show", ".collapsing",
                 ".fade", ".bs-tooltip-auto"]:
        assert name in used, name
    # a script no page loads adds nothing
    assert ".never-loaded" not in used
    assert ".absent" not in used


def test_purge_stylesheets_in_place(tmp_path):
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (tmp_path / "index.html").write_text('<p class="kept">x</p>', encoding="utf-8")
    css = static / "styles" / "pydata-sphinx-theme.css"
    css.write_text(".kept{a:b}.gone{c:d}", encoding="utf-8")
    other = static / "other.css"  # not in the purged list: left alone
    other.write_text(".gone{c:d}", encoding="utf-8")
    sizes = site.purge_stylesheets(tmp_path)
    assert css.read_text(encoding="utf-8") == ".kept{a:b}"
    assert other.read_text(encoding="utf-8") == ".gone{c:d}"
    assert sizes == {"styles/pydata-sphinx-theme.css": (20, 10)}


@pytest.mark.parametrize("page, uses", [
    ('<div class="sd-card">', True),
    ('<div class="x sd-tab-set">', True),
    ('<div class="usd-rate">', False),
    ('<p>sd-card in prose</p>', False),
])
def test_sphinx_design_detected_by_class(page, uses):
    assert bool(site.USES_DESIGN.search(page)) is uses


def test_sphinx_design_files_dropped():
    head = ('<link rel="stylesheet" type="text/css" href="../_static/sphinx-design.min.css?v=9" />'
            '\n<link rel="stylesheet" href="../_static/proof.css" />'
            '\n<script src="../_static/design-tabs.js?v=f930bc37"></script>')
    kept = '\n<link rel="stylesheet" href="../_static/proof.css" />'
    assert site.DESIGN_FILES.sub("", head) == kept
