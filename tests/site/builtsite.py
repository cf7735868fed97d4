"""The built website as files (``_build/html``, made by ``tools/build-site``) and the book's
table of contents, shared by the site tier's tests; and ``guard``, which makes a browser tab
refuse every request to another host and record what a reader's browser would complain about."""

from __future__ import annotations

import functools
import html.parser
import os
import pathlib
import re
import urllib.parse

import nbformat
import yaml
from docutils.nodes import make_id

ROOT = pathlib.Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
# screenshots for a person to look at, taken only when LNBOOK_SCREENSHOTS=1 (see conftest.py)
SHOTS = ROOT / "_build" / "screenshots"
SCREENSHOTS = bool(os.environ.get("LNBOOK_SCREENSHOTS"))

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
# toc entries ("book/epsilon") in reading order; the chapters of a numbered part are numbered
ENTRIES = [TOC["root"]] + [entry["file"] for part in TOC["parts"] for entry in part["chapters"]]
NUMBER = {entry["file"]: n for part in TOC["parts"] if part.get("numbered")
          for n, entry in enumerate(part["chapters"], start=1)}
NOTEBOOKS = [e for e in ENTRIES if (ROOT / f"{e}.ipynb").exists()]
PAGES = [f"{e}.html" for e in ENTRIES] + ["search.html", "genindex.html"]
REPO_URL = CONFIG["repository"]["url"].rstrip("/")
BRANCH = CONFIG["repository"].get("branch", "main")
OWNER_REPO = urllib.parse.urlsplit(REPO_URL).path.strip("/")
# sphinx-thebe writes this address into every page as a string; it is fetched only when a
# reader presses a "live code" button, which this book does not configure
LAZY_URLS = {"https://unpkg.com/thebe@0.8.2/lib/index.js"}
MATH_SCRIPTS = re.compile(r"mathjax|katex[^/]*\.js|tex-(chtml|svg|mml)", re.I)


class _Scan(html.parser.HTMLParser):
    """A page's ids, math elements, links, captions' numbers and every URL it makes the
    browser fetch by itself (scripts, styles, images, fonts preloaded), and its inline code."""

    LOADS = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
             ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"),
             ("object", "data"), ("img", "srcset"), ("source", "srcset")}
    FETCHED = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "preconnect",
               "dns-prefetch", "manifest", "apple-touch-icon", "shortcut"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.math = 0
        self.links: list[str] = []
        self.loads: list[str] = []
        self.inline: list[str] = []  # inline scripts and styles
        self.figures: list[tuple[str, str]] = []  # (figure id, its caption's number)
        self.title = ""
        self._in: str | None = None
        self._figure = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        cls = (attrs.get("class") or "").split()
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag in ("span", "div") and "math" in cls:
            self.math += 1
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "figure":
            self.figures.append((attrs.get("id", ""), ""))
            self._figure = True
        for t, a in self.LOADS:
            if tag == t and attrs.get(a):
                rels = set((attrs.get("rel") or "").lower().split())
                if tag != "link" or rels & self.FETCHED:
                    self.loads.append(attrs[a])
        if tag in ("script", "style", "title") and not attrs.get("src"):
            self._in = tag
            self.inline.append("")
        elif "caption-number" in cls and self._figure:
            self._in = "number"
        if attrs.get("style"):
            self.inline.append(attrs["style"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title", "span"):
            self._in = None
        self._figure = self._figure and tag != "figure"

    def handle_data(self, data):
        if self._in in ("script", "style"):
            self.inline[-1] += data
        elif self._in == "title":
            self.title += data
        elif self._in == "number":
            self.figures[-1] = (self.figures[-1][0], data.strip())


@functools.cache
def scan(path: str) -> _Scan:
    """The scan of a built page, by its path under _build/html."""
    parser = _Scan()
    parser.feed((HTML / path).read_text(encoding="utf-8"))
    return parser


def external(url: str) -> bool:
    """True when a URL makes the browser contact a host other than the site."""
    return bool(re.match(r"^(https?:)?//", url.strip(), re.I))


def declared_figures(entry: str) -> list[str]:
    """Ids of the figures a chapter's Markdown declares (``{glue:figure}`` / ``{figure}``)."""
    names = []
    for cell in nbformat.read(ROOT / f"{entry}.ipynb", as_version=4).cells:
        if cell.cell_type == "markdown":
            for block in re.finditer(r"^\s*(?:`{3,}|:{3,})\{(?:glue:figure|figure)\}.*\n"
                                     r"((?:\s*:[\w-]+:.*\n?)*)", cell.source, re.M):
                names += [make_id(n) for n in re.findall(r":name:\s*(\S+)", block.group(1))]
    return names


def guard(page, base: str, problems: list[str], files: dict[str, int] | None = None):
    """Record into ``problems`` every request of ``page`` to another host (the browser cannot
    resolve one: conftest.py), console error, script error, failed request and HTTP error;
    into ``files`` (if given) the size as stored of each file of the site it requests."""

    def request(r):
        path = urllib.parse.unquote(urllib.parse.urlsplit(r.url).path).lstrip("/")
        if not r.url.startswith((base, "data:")):
            problems.append(f"request to another host: {r.url}")
        elif files is not None and (HTML / path).is_file():
            files[path] = (HTML / path).stat().st_size

    page.on("request", request)
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
    return page
