"""The built website as files: its pages, table of contents and HTML, read without a browser.

Shared by the tests of ``tests/site/``: the browser tests (``test_pages.py``, ``test_reader.py``)
and the checks of the built HTML (``test_html.py``, which imports no playwright). The site is
``_build/html``, made by ``tools/build-site``; ``tests/conftest.py`` skips these tests, saying
why, when it is missing or older than its sources (in CI and under ``tools/test site`` they
run or fail).
"""

from __future__ import annotations

import functools
import html.parser
import pathlib
import re
import urllib.parse

import nbformat
import pytest
import yaml
from docutils.nodes import make_id

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
# toc entries ("book/epsilon") in reading order; only the chapters of a numbered part carry a
# number, counted in toc order from 1 (Sphinx numbers each numbered toctree on its own)
ENTRIES = [TOC["root"]] + [entry["file"] for part in TOC["parts"] for entry in part["chapters"]]
NUMBER = {entry["file"]: n for part in TOC["parts"] if part.get("numbered")
          for n, entry in enumerate(part["chapters"], start=1)}
NOTEBOOKS = [e for e in ENTRIES if (ROOT / f"{e}.ipynb").exists()]
PAGES = [f"{e}.html" for e in ENTRIES] + ["search.html"]
READER_PAGES = PAGES + ["genindex.html"]
EXERCISES = "book/exercises"

# The repository is named once, in _config.yml; the expected launch targets follow from it.
REPO_URL = CONFIG["repository"]["url"].rstrip("/")
BRANCH = CONFIG["repository"].get("branch", "main")
OWNER_REPO = urllib.parse.urlsplit(REPO_URL).path.strip("/")

# sphinx-thebe writes this constant into every page; thebe is loaded only when a reader
# presses a "live code" button, which this book does not configure. It is a string in an
# inline script, never a request: the browser tests would fail if it were fetched.
LAZY_URLS = {"https://unpkg.com/thebe@0.8.2/lib/index.js"}
MATH_SCRIPTS = re.compile(r"mathjax|katex[^/]*\.js|tex-(chtml|svg|mml)", re.I)


def chapter_name(entry: str) -> str:
    return entry.rsplit("/", 1)[-1]


def require_build() -> None:
    if not (HTML / "index.html").exists():
        pytest.fail(f"{HTML} has not been built: run tools/build-site first")


def page_text(path: str) -> str:
    """A built page's text, tags removed, whitespace collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (HTML / path).read_text(encoding="utf-8")))


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
