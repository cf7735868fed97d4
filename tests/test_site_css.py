"""The build's purge of unused CSS (_ext/lnbook_site.py runs PurgeCSS) as the site relies on
it, on a small site written here: every case in a stylesheet of its own (the build purges every
``mystnb.*.css``), purged once (fast tier; node and `npm ci`, which tools/setup-env runs)."""

from __future__ import annotations

import pathlib
import re
import shutil
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "_ext"))
import lnbook_site as site  # noqa: E402

PAGE = """<html><head><link rel="stylesheet" href="_static/mystnb.a.css"></head>
<body class="page" id="top"><div class="kept card"><span>x</span></div><p>x</p>
<script src="_static/site.js"></script></body></html>"""
SCRIPT = 'x.classList.toggle("from-script"); y.className = "collapsing fade";'
CASES = {
    "unused": ".kept{color:red}.gone{color:blue}p{margin:0}",
    "kept": ('@charset "UTF-8";:root{--c:#fff}@font-face{font-family:"X";src:url(x.woff)}'
             "@keyframes spin{from{transform:rotate(0)}to{transform:rotate(1turn)}}"
             "[class^=kept]{x:1}.gone-unused{x:2}"),
    "scripts": (".from-script{x:1}.collapsing{x:2}.fade{x:3}.bs-tooltip-auto{x:4}"
                ".never-anywhere{x:5}"),
}


@pytest.fixture(scope="module")
def purged(tmp_path_factory):
    if shutil.which("node") is None or not site.PURGECSS.exists():
        pytest.skip(f"node or {site.PURGECSS} is missing: tools/setup-env installs them")
    out = tmp_path_factory.mktemp("site")
    static = out / "_static"
    static.mkdir()
    (out / "index.html").write_text(PAGE, encoding="utf-8")
    (static / "site.js").write_text(SCRIPT, encoding="utf-8")
    for name, css in CASES.items():
        (static / f"mystnb.{name}.css").write_text(css, encoding="utf-8")
    (static / "other.css").write_text(".gone{c:d}", encoding="utf-8")  # not purged
    sizes = site.purge_stylesheets(out)
    text = {name: (static / f"mystnb.{name}.css").read_text(encoding="utf-8")
            for name in CASES}
    return text, sizes, static


def squeeze(css: str) -> str:
    return re.sub(r"\s+", "", css)


def test_unused_class_goes_used_class_stays(purged):
    css = squeeze(purged[0]["unused"])
    assert ".kept{color:red}" in css and "p{margin:0}" in css and ".gone" not in css


def test_font_face_keyframes_custom_properties_and_statements_kept(purged):
    css = squeeze(purged[0]["kept"])
    for part in ['@charset"UTF-8";', ":root{--c:#fff}", '@font-face{font-family:"X"',
                 "@keyframesspin{", "[class^=kept]{x:1}"]:
        assert part in css, part
    assert ".gone-unused" not in css


def test_classes_added_by_scripts_and_built_classes_are_kept(purged):
    css = squeeze(purged[0]["scripts"])
    for name in [".from-script{", ".collapsing{", ".fade{", ".bs-tooltip-auto{"]:
        assert name in css, name
    assert ".never-anywhere" not in css


def test_purged_in_place_other_stylesheets_left_alone(purged):
    _, sizes, static = purged
    assert (static / "other.css").read_text(encoding="utf-8") == ".gone{c:d}"
    assert sizes["mystnb.unused.css"] == (len(CASES["unused"].encode()),
                                          (static / "mystnb.unused.css").stat().st_size)
    assert sizes["mystnb.unused.css"][1] < sizes["mystnb.unused.css"][0]


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
