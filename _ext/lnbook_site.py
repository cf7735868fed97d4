"""Site fixes for the lnbook website (a local Sphinx extension, see _config.yml).

Each fix is checked in a real browser by the tests of tests/site/ (test_pages.py, test_reader.py).

- Scripts: Sphinx 7.4 registers an inline script added with ``app.add_js_file(None, body=...)``
  after the builder started twice (filename ``None`` and ``''``); sphinx-thebe and
  sphinx-togglebutton add their settings that way, so every page declared ``const
  THEBE_JS_URL`` twice, a SyntaxError in the reader's console. The duplicates are dropped.
- Static files: ``_ext/static`` (the sidebar-toggle fix ``lnbook-site.js``, the stylesheet
  ``lnbook-site.css``, the icons ``lnbook-icons.css`` and KaTeX's stylesheet and fonts) is
  added to the site's ``_static``.
- Weight: pydata-sphinx-theme loads Font Awesome's 1.5 MB SVG script on every page for about
  eighteen icons, and Sphinx's search index on every page for a search box that only submits
  to ``search.html``. After the build, every page but ``search.html`` loses those three
  scripts and the Font Awesome script; ``lnbook-icons.css`` draws the icons instead.
- Font Awesome's solid font (156 kB) is still named by the theme's stylesheets for a few
  icons drawn in CSS (admonition titles, breadcrumbs, external links). After the build, that
  font is cut down (fontTools, which matplotlib already needs) to the characters the site's
  stylesheets use, and ``_static/lnbook-fa-subset.css`` points the font family at the subset;
  the theme stylesheet's catalogue of 2,000 icon characters, which no page uses, is removed.
- Unused CSS: the theme's stylesheets are mostly rules for components no page has (the
  pydata-sphinx-theme stylesheet, Bootstrap included, is 310 kB). After the build, the big
  stylesheets (``PURGED``) keep only the rules that can match: a rule stays when, for at least
  one of its selectors, every class and id it names is on some page (class and id attributes)
  or is a word of a script the pages load (scripts add classes at run time). ``@font-face``,
  ``@keyframes``, custom properties and rules naming no class or id are kept; ``@media`` and
  ``@supports`` are purged inside. sphinx-design's stylesheet and script are dropped from the
  pages when no page has an ``sd-`` element. Together they take about 307 kB off every page.
- KaTeX's server: sphinxcontrib-katex 0.9.11 connects to its node server as soon as the
  socket file exists, but node creates the file (bind) before it listens, so a loaded machine
  could refuse the connection and fail the build (seen once while tests ran beside it). The
  connection is retried until the startup timeout (``patient_katex_start``).
- Tables whose Markdown header row is empty lose the empty header; bibliography entries get
  the list-item role their list requires.
- A favicon (``_ext/static/favicon.svg``) so browsers do not request a missing
  ``/favicon.ico``.
- Downloads: every link to a page's source (``_sources/...``: the header's ".ipynb" and ".md"
  items) carries a ``download`` attribute, so the browser saves the file instead of showing
  JSON text (jupyter-book #2237, sphinx-book-theme #918); each chapter offers its notebook
  under its title (``notebook_link``).
- Solutions: the "Exercise N" link in a solution's title (sphinx-exercise) jumped to the
  exercise instead of opening the solution that the title toggles; the title keeps its text.
- Search: Sphinx's search scripts are dropped from every page, the search page included; its
  search is Pagefind's index (``lnbook_search.py``) driven by ``_static/lnbook-search.js``.
- Inline formulas keep the punctuation that follows them on their line (``KeepPunctuation``).
- Reader-facing behaviour in ``_static/lnbook-site.js`` (scroll regions of what does not fit,
  drawers, the sidebar's first scroll) and ``_static/lnbook-site.css`` (dark figures, scroll
  cues, print).
"""

from __future__ import annotations

import html
import pathlib
import re
import socket
import time
from subprocess import PIPE, Popen

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

STATIC = pathlib.Path(__file__).resolve().parent / "static"

# scripts that no page but search.html needs (matched on the src attribute's file name)
DROPPED_SCRIPTS = re.compile(
    r'\s*<script[^>]*\ssrc="[^"]*(?:scripts/fontawesome\.js|_static/searchtools\.js|'
    r'_static/language_data\.js|searchindex\.js)[^"]*"[^>]*>\s*</script>')
# sphinx-design's stylesheet and script, which a site with no sphinx-design element (no
# "sd-" class on any page) does not need
USES_DESIGN = re.compile(r'\sclass="(?:[^"]*\s)?sd-')
DESIGN_FILES = re.compile(
    r'\s*<(?:link[^>]*\shref="[^"]*_static/sphinx-design\.min\.css[^"]*"[^>]*>|'
    r'script[^>]*\ssrc="[^"]*_static/design-tabs\.js[^"]*"[^>]*>\s*</script>)')


def _key(script):
    if isinstance(script, str):
        return (script, 500, ())
    return (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))


def dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def add_static(app):
    paths = app.config.html_static_path
    if str(STATIC) not in paths:
        paths.append(str(STATIC))


SEARCH_FIELD = re.compile(r'(<button[^>]*\bsearch-button-field\b[^>]*?)\s+aria-label="[^"]*"')


def fix_roles(html: str) -> str:
    """sphinxcontrib-bibtex gives the entries of its role="list" the role doc-biblioentry,
    which ARIA 1.3 deprecates and which a list may not hold (axe: aria-required-children).
    The sidebar's search button shows "Search Ctrl+K" but is labelled "Search" (axe:
    label-content-name-mismatch): without the label, its name is what it shows."""
    html = html.replace('role="doc-biblioentry"', 'role="listitem"')
    # myst-nb labels the toggle of a folded cell "Toggle hidden content" while it shows "Show
    # code cell source" (axe: label-content-name-mismatch): its name is what it shows
    html = html.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    return SEARCH_FIELD.sub(r"\1", html)


EMPTY_HEAD = re.compile(r'<thead>\s*<tr[^>]*>(?:\s*<th[^>]*>(?:<p></p>)?</th>)+\s*</tr>\s*</thead>')


def drop_empty_table_heads(html: str) -> str:
    """A Markdown table must have a header row; one left empty (``| | |``, e.g. the
    benchmarks page's machine table) renders as a table without a header, not empty cells."""
    return EMPTY_HEAD.sub("", html)


def strip_scripts(html: str) -> str:
    """Drop Font Awesome's script and Sphinx's search scripts (Pagefind's replace them)."""
    return DROPPED_SCRIPTS.sub("", html)


SOURCE_LINK = re.compile(r'<a href="([^"]*_sources/[^"]+)"(\s+target="_blank")?')


def download_links(html: str) -> str:
    """Links to a page's source download it, named as the file (no new tab for a download)."""

    def attribute(m: re.Match) -> str:
        name = m.group(1).rsplit("/", 1)[-1]
        return f'<a href="{m.group(1)}" download="{name}"'

    return SOURCE_LINK.sub(attribute, html)


SOLUTION_TITLE = re.compile(
    r'(<p class="admonition-title">Solution to)<a class="reference internal" href="#[^"]*">'
    r"(.*?)</a>")


def plain_solution_titles(html: str) -> str:
    """The title of a solution toggles it (sphinx-togglebutton): its "Exercise N" is text, not
    a link that jumps away (the exercise is the block just above)."""
    return SOLUTION_TITLE.sub(r"\1\2", html)


# the search page's script, and Pagefind's script and word list fetched while the page loads
SEARCH_SCRIPT = ('<link rel="modulepreload" href="pagefind/pagefind.js" />\n'
                 '<link rel="preload" href="pagefind/wasm.en.pagefind" as="fetch" '
                 'crossorigin="anonymous" />\n'
                 '<script defer="defer" src="_static/lnbook-search.js"></script>\n</head>')


def notebook_link(app, pagename, templatename, context, doctree):
    """Under a chapter's title: its notebook, as a file to download."""
    source = context.get("sourcename") or ""
    body = context.get("body")
    if not source.endswith(".ipynb") or not body or "</h1>" not in body:
        return
    href = html.escape(context["pathto"](f"_sources/{source}", 1))
    name = html.escape(source.rsplit("/", 1)[-1])
    line = (f'<p class="lnb-notebook"><a href="{href}" download="{name}">'
            f'<i class="fa-solid fa-download" aria-hidden="true"></i> '
            f"Download this chapter as a notebook</a> ({name}) to run it yourself.</p>")
    context["body"] = body.replace("</h1>", "</h1>\n" + line, 1)


PUNCTUATION = re.compile(r"[.,;:!?)\]}’”…%]+")


class KeepPunctuation(SphinxPostTransform):
    """An inline formula and the punctuation right after it go into one ``span.lnb-nobr``
    (HTML only): the stylesheet forbids a line break between them, not inside the formula."""

    default_priority = 400
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for math in list(self.document.findall(nodes.math)):
            parent = math.parent
            index = parent.index(math)
            if index + 1 >= len(parent) or not isinstance(parent[index + 1], nodes.Text):
                continue
            after = str(parent[index + 1])
            m = PUNCTUATION.match(after)
            if not m:
                continue
            together = nodes.inline(classes=["lnb-nobr"])
            parent.replace(math, together)
            together += math
            together += nodes.Text(m.group(0))
            rest = after[m.end():]
            if rest:
                parent[index + 1] = nodes.Text(rest)
            else:
                parent.remove(parent[index + 1])


SUBSET_CSS = "lnbook-fa-subset.css"
SOLID_TTF = "_static/vendor/fontawesome/webfonts/fa-solid-900.ttf"
# the icon catalogue (".fa-bell:before{content:...}"), which no page uses: lnbook-icons.css
# draws the few <i class="fa-..."> icons itself
CATALOGUE = re.compile(r"(?:\.fa-[\w-]+(?::before)?,?)+\{content:[^}]*\}")
PRIVATE = re.compile(r"[\ue000-\uf8ff]|\\(f[0-9a-f]{3})\b", re.I)


def used_icon_characters(static: pathlib.Path) -> set[int]:
    """Private-use code points (Font Awesome glyphs) in the site's stylesheets."""
    found = set()
    for css in static.rglob("*.css"):
        text = CATALOGUE.sub("", css.read_text(encoding="utf-8", errors="replace"))
        for m in PRIVATE.finditer(text):
            found.add(int(m.group(1), 16) if m.group(1) else ord(m.group(0)))
    return found


def subset_icon_font(out: pathlib.Path) -> None:
    """Write the Font Awesome solid subset and the stylesheet that points the family at it."""
    from fontTools import subset

    source = out / SOLID_TTF
    css = out / "_static" / SUBSET_CSS
    if not source.exists():  # the theme changed: keep the full font, say nothing is overridden
        css.write_text("/* Font Awesome solid font not found: no subset */\n", encoding="utf-8")
        return
    chars = used_icon_characters(out / "_static")
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = []
    options.name_IDs = ["*"]  # keep the licence and copyright names
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(chars))
    subsetter.subset(font)
    target = out / "_static" / "lnbook-fa-solid-subset.woff"
    subset.save_font(font, str(target), options)
    css.write_text(
        "/* Generated by _ext/lnbook_site.py: Font Awesome Free solid, CC BY 4.0 / SIL OFL 1.1,\n"
        f"   cut to the {len(chars)} characters the site's stylesheets use. */\n"
        '@font-face{font-family:"Font Awesome 6 Free";font-style:normal;font-weight:900;'
        'font-display:block;src:url(lnbook-fa-solid-subset.woff) format("woff")}\n',
        encoding="utf-8")


def drop_icon_catalogue(out: pathlib.Path) -> None:
    """Remove Font Awesome's 2,000-icon ``content`` catalogue (86 kB) from the theme's CSS."""
    css = out / "_static" / "styles" / "pydata-sphinx-theme.css"
    if css.exists():
        text = css.read_text(encoding="utf-8")
        new = CATALOGUE.sub("", text)
        if new != text:
            css.write_text(new, encoding="utf-8")


ROOT_INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{title}</title>
<link rel="icon" href="_static/favicon.svg" />
<meta http-equiv="Refresh" content="0; url={target}" />
</head>
<body>
<main><p><a href="{target}">{title}</a></p></main>
</body>
</html>
"""


def write_root_index(app, out: pathlib.Path) -> None:
    """The site's root page: a redirect to the first page with a title, a favicon, a link."""
    import html

    title = html.escape(app.config.html_title or app.config.project)
    target = html.escape(app.builder.get_target_uri(app.config.root_doc))
    (out / "index.html").write_text(ROOT_INDEX.format(title=title, target=target),
                                    encoding="utf-8")


def rewrite_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = pathlib.Path(app.outdir)
    drop_icon_catalogue(out)
    write_root_index(app, out)
    pages = {path: path.read_text(encoding="utf-8") for path in out.rglob("*.html")}
    no_design = not any(USES_DESIGN.search(text) for text in pages.values())
    for path, text in pages.items():
        new = strip_scripts(text)
        new = drop_empty_table_heads(fix_roles(new))
        new = plain_solution_titles(download_links(new))
        if path.relative_to(out).as_posix() == "search.html":
            new = new.replace("</head>", SEARCH_SCRIPT, 1)
        if no_design:
            new = DESIGN_FILES.sub("", new)
        pages[path] = new
        if new != text:
            path.write_text(new, encoding="utf-8")
    import lnbook_search

    # the index of what readers read: not the search page itself, nor the general index
    lnbook_search.build_index(out, pages, skip={"search.html", "genindex.html", "index.html"})
    # after the pages: the purge reads the classes and scripts they keep
    purge_stylesheets(out)
    subset_icon_font(out)  # reads the catalogue-free, purged rules of every stylesheet


def patient_katex_start(cls, rundir: pathlib.Path, timeout: float):
    """``KaTeXServer.start_server_process`` that retries a refused connection.

    The same steps as sphinxcontrib-katex 0.9.11's: start node, wait for its socket file,
    connect; a refused connection (the file exists, node does not listen yet) is retried every
    millisecond until ``timeout`` seconds after the start.
    """
    socket_path = rundir / "katex.sock"
    process = Popen(cls.build_command(socket=socket_path), stdin=PIPE, stdout=PIPE, cwd=rundir)
    deadline = time.monotonic() + timeout
    while True:
        if socket_path.is_socket():
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                sock.connect(str(socket_path))
                sock.settimeout(None)
                return process, sock
            except (ConnectionRefusedError, TimeoutError):
                sock.close()
        if time.monotonic() > deadline:
            process.kill()
            raise cls.timeout_error(timeout)
        time.sleep(0.001)


def setup(app):
    from sphinxcontrib import katex

    katex.KaTeXServer.start_server_process = classmethod(patient_katex_start)
    app.connect("builder-inited", add_static)
    app.connect("html-page-context", dedupe_scripts)
    app.connect("html-page-context", notebook_link)
    app.add_post_transform(KeepPunctuation)
    app.connect("build-finished", rewrite_pages)
    app.add_css_file("lnbook-icons.css")
    app.add_css_file("lnbook-site.css")
    app.add_css_file(SUBSET_CSS)
    app.add_js_file("lnbook-site.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --------------------------------------------------------------------------------------------
# unused CSS rules

# classes that scripts build from pieces instead of writing them out: Bootstrap's tooltips and
# popovers add `bs-${NAME}-auto` (NAME "tooltip" or "popover")
BUILT_CLASSES = frozenset({"bs-tooltip-auto", "bs-popover-auto"})
# at-rules whose block holds rules to purge; every other block (@font-face, @keyframes, @page,
# @property, ...) is kept as it is
NESTING_AT_RULES = ("@media", "@supports", "@layer", "@container", "@document", "@-moz-document")
# the stylesheets purged (paths under _static); KaTeX's and the small ones are left as they are.
# Not pygments.css: pydata-sphinx-theme writes it again at build-finished, after this step.
PURGED = ("styles/pydata-sphinx-theme.css", "styles/sphinx-book-theme.css", "mystnb.*.css",
          "lnbook-icons.css", "proof.css", "togglebutton.css")


def _skip_string(css: str, i: int) -> int:
    """Index just past the string literal that starts at css[i] (a quote)."""
    quote, i = css[i], i + 1
    while i < len(css) and css[i] != quote:
        i += 2 if css[i] == "\\" else 1
    return i + 1


def _skip_comment(css: str, i: int) -> int:
    """Index just past the comment that starts at css[i] ("/*")."""
    end = css.find("*/", i + 2)
    return len(css) if end < 0 else end + 2


def _skip_literal(text: str, i: int) -> int | None:
    """Index just past the string or comment that starts at text[i]; None if none does."""
    if text[i] in "\"'":
        return _skip_string(text, i)
    if text.startswith("/*", i):
        return _skip_comment(text, i)
    return None


def split_css(css: str) -> list[tuple[str, str | None]]:
    """Split a stylesheet into its top-level items, in order: ``(prelude, block)``, where the
    block is the text between the item's outer braces, or ``None`` for a statement ending in
    ``;`` (``@charset``, ``@import``) or a comment. Strings, comments, escapes and nested
    braces are respected.

    >>> split_css('@charset "x";a{b:c}/* {} */@media print{.d{e:f}}')
    [('@charset "x";', None), ('a', 'b:c'), ('/* {} */', None), ('@media print', '.d{e:f}')]
    """
    items: list[tuple[str, str | None]] = []
    i, start, n = 0, 0, len(css)
    while i < n:
        ch = css[i]
        if ch in "\"'":
            i = _skip_string(css, i)
        elif css.startswith("/*", i):
            if not css[start:i].strip():  # a comment between items is an item of its own
                end = _skip_comment(css, i)
                items.append((css[i:end], None))
                i = start = end
            else:
                i = _skip_comment(css, i)
        elif ch == "\\":
            i += 2
        elif ch == ";":
            if css[start:i].strip():
                items.append((css[start:i + 1].strip(), None))
            i = start = i + 1
        elif ch == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                past = _skip_literal(css, j)
                if past is not None:
                    j = past
                    continue
                if css[j] == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(css[j], 0)
                j += 1
            items.append((css[start:i].strip(), css[i + 1:j - 1]))
            i = start = j
        else:
            i += 1
    if css[start:].strip():
        items.append((css[start:].strip(), None))
    return items


def split_selectors(prelude: str) -> list[str]:
    """The selectors of a selector list: split on the commas outside parentheses, brackets,
    strings and comments.

    >>> split_selectors('a:is(.b,.c), [d="e,f"] , g')
    ['a:is(.b,.c)', '[d="e,f"]', 'g']
    """
    parts, depth, start, i = [], 0, 0, 0
    while i < len(prelude):
        ch, past = prelude[i], _skip_literal(prelude, i)
        if past is not None:
            i = past
            continue
        if ch == "\\":
            i += 2
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(prelude[start:i].strip())
            start = i + 1
        i += 1
    parts.append(prelude[start:].strip())
    return [p for p in parts if p]


NAME = re.compile(r"([.#])((?:[\w-]|\\[0-9a-fA-F]{1,6}\s?|\\.)+)")
ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})\s?|\\(.)", re.S)


def selector_names(selector: str) -> set[str]:
    """The classes and ids a selector needs, ``.name``/``#name`` unescaped. What sits inside
    brackets (attribute selectors), strings, comments and the parentheses of a functional
    pseudo-class (``:not(.x)`` matches without .x; ``:is(.x, .y)`` needs only one of them) is
    not needed: it is left out, which keeps a rule rather than drops it.

    >>> sorted(selector_names('html[data-theme=dark] .bd-x > #y:not(.z)::before'))
    ['#y', '.bd-x']
    >>> sorted(selector_names(r'.md\\:flex, a[href$=".pdf"]'))
    ['.md:flex']
    """
    kept, depth, i = [], 0, 0
    while i < len(selector):
        ch, past = selector[i], _skip_literal(selector, i)
        if past is not None:
            i = past
            continue
        if ch == "\\" and depth == 0:
            kept.append(selector[i:i + 2])
            i += 2
            continue
        if ch in "([":
            depth += 1
            kept.append(" ")
        elif ch in ")]":
            depth -= 1
        elif depth == 0:
            kept.append(ch)
        i += 1
    text = "".join(kept)

    def unescape(m: re.Match) -> str:
        return chr(int(m.group(1), 16)) if m.group(1) else m.group(2)

    return {kind + ESCAPE.sub(unescape, name) for kind, name in NAME.findall(text)}


def purge_css(css: str, used: set[str]) -> str:
    """The stylesheet without the rules no page can match.

    A style rule stays when, for at least one of its selectors, every class and id it names
    is in ``used`` (``.name`` and ``#name`` strings). Rules naming no class or id, statements
    (``@charset``, ``@import``), comments and at-rules other than the nesting ones
    (``@font-face``, ``@keyframes``, ...) stay as they are; ``@media``, ``@supports``, ...
    are purged inside and dropped when nothing is left in them.

    >>> purge_css('.a{x:1}.b,.c{x:2}@media print{.a{x:3}}@font-face{f:g}', {'.c'})
    '.b,.c{x:2}@font-face{f:g}'
    """
    out = []
    for prelude, block in split_css(css):
        if block is None:
            out.append(prelude)
        elif prelude.startswith("@"):
            if prelude.lower().startswith(NESTING_AT_RULES):
                inner = purge_css(block, used)
                if inner.strip():
                    out.append(f"{prelude}{{{inner}}}")
            else:
                out.append(f"{prelude}{{{block}}}")
        elif any(selector_names(s) <= used for s in split_selectors(prelude)):
            out.append(f"{prelude}{{{block}}}")
    return "".join(out)


CLASS_ATTR = re.compile(r'\s(class|id)\s*=\s*(?:"([^"]*)"|\'([^\']*)\'|([^\s>]+))', re.I)
SCRIPT_SRC = re.compile(r'<script\b[^>]*\ssrc="([^"]+)"', re.I)
INLINE_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.I | re.S)
JS_TOKEN = re.compile(r"[\w-]+")


def used_names(out: pathlib.Path) -> set[str]:
    """Every class and id the site's pages can carry: those of every page's HTML (class and
    id attributes) and, as ``.token`` and ``#token``, every word of the scripts the pages load
    or hold inline (scripts add classes at run time: Bootstrap's ``show``, the themes')."""
    used, scripts, words = {"." + c for c in BUILT_CLASSES}, set(), set()
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for m in CLASS_ATTR.finditer(text):
            value = m.group(2) if m.group(2) is not None else (m.group(3) or m.group(4) or "")
            prefix = "." if m.group(1).lower() == "class" else "#"
            used.update(prefix + v for v in value.split())
        for src in SCRIPT_SRC.findall(text):
            if "://" not in src and not src.startswith("{{"):
                scripts.add((page.parent / src.split("?")[0]).resolve())
        for body in INLINE_SCRIPT.findall(text):
            words.update(JS_TOKEN.findall(body))
    for script in scripts:
        if script.is_file():
            words.update(JS_TOKEN.findall(script.read_text(encoding="utf-8", errors="replace")))
    used.update("." + w for w in words)
    used.update("#" + w for w in words)
    return used


def purge_stylesheets(out: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Purge the big stylesheets of ``out/_static`` in place; returns their sizes before and
    after, in bytes."""
    static, used, sizes = out / "_static", used_names(out), {}
    for pattern in PURGED:
        for css in static.glob(pattern):
            text = css.read_text(encoding="utf-8")
            new = purge_css(text, used)
            sizes[css.relative_to(static).as_posix()] = (len(text.encode()), len(new.encode()))
            if new != text:
                css.write_text(new, encoding="utf-8")
    return sizes
