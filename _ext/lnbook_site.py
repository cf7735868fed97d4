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
  pydata-sphinx-theme stylesheet, Bootstrap included, is 310 kB). After the build, PurgeCSS
  (npm) cuts the big stylesheets (``PURGED``) down to the selectors whose names occur in the
  site's pages or scripts (scripts add classes at run time); ``@font-face``, ``@keyframes`` and
  custom properties are kept. sphinx-design's stylesheet and script are dropped from the pages
  when no page has an ``sd-`` element. Together they take about 307 kB off every page.
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
import shutil
import socket
import subprocess
import tempfile
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
# unused CSS rules: PurgeCSS (npm, pinned in package.json)
#
# PurgeCSS replaced a purger of our own (a CSS tokenizer, 223 lines) after a measurement on the
# same build (2026-12-01): the six stylesheets below came to 147,996 bytes with PurgeCSS and
# 149,340 with ours (393,441 unpurged), so the median chapter page, 1,002,685 bytes, is 0.1 %
# lighter. PurgeCSS reads every page and every script of the site (scripts add classes at run
# time), and keeps a selector when every name in it is a word of that content; @font-face,
# @keyframes and custom properties are kept. It splits words at dots, so an attribute selector
# whose value holds one (a[href$=".pdf"]) would be dropped: the purged stylesheets have none.

ROOT = pathlib.Path(__file__).resolve().parent.parent
PURGECSS = ROOT / "node_modules" / "purgecss" / "bin" / "purgecss.js"
# classes that scripts build from pieces instead of writing them out: Bootstrap's tooltips and
# popovers add `bs-${NAME}-auto` (NAME "tooltip" or "popover")
BUILT_CLASSES = ("bs-tooltip-auto", "bs-popover-auto")
# the stylesheets purged (paths under _static); KaTeX's and the small ones are left as they are.
# Not pygments.css: pydata-sphinx-theme writes it again at build-finished, after this step.
PURGED = ("styles/pydata-sphinx-theme.css", "styles/sphinx-book-theme.css", "mystnb.*.css",
          "lnbook-icons.css", "proof.css", "togglebutton.css")


def purge_stylesheets(out: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Purge the big stylesheets of ``out/_static`` in place with PurgeCSS, their content the
    site's pages and scripts; returns their sizes before and after, in bytes."""
    static = out / "_static"
    sheets = [css for pattern in PURGED for css in sorted(static.glob(pattern))]
    if not sheets:
        return {}
    if not PURGECSS.exists():
        raise RuntimeError(f"{PURGECSS} is missing: run `npm ci` at the repository root "
                           "(tools/setup-env does)")
    names = [css.name for css in sheets]
    if len(set(names)) != len(names):  # PurgeCSS writes each output under its file name
        raise RuntimeError(f"two purged stylesheets share a name: {names}")
    before = {css: css.stat().st_size for css in sheets}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["node", str(PURGECSS), "--css", *map(str, sheets),
             "--content", str(out / "**" / "*.html"), str(out / "**" / "*.js"),
             "--safelist", *BUILT_CLASSES, "--output", tmp],
            check=True, capture_output=True, text=True, timeout=300)
        for css in sheets:
            shutil.move(pathlib.Path(tmp) / css.name, css)
    return {css.relative_to(static).as_posix(): (size, css.stat().st_size)
            for css, size in before.items()}
