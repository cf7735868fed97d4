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
"""

from __future__ import annotations

import pathlib
import re
import shutil
import socket
import subprocess
import tempfile
import time
from subprocess import PIPE, Popen

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
SEARCH_ONLY = ("searchtools.js", "language_data.js", "searchindex.js")


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


def strip_scripts(html: str, search_page: bool) -> str:
    """Drop Font Awesome's script everywhere and the search scripts except on the search page."""

    def keep(match: re.Match) -> str:
        tag = match.group(0)
        if search_page and any(name in tag for name in SEARCH_ONLY):
            return tag
        return ""

    return DROPPED_SCRIPTS.sub(keep, html)


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
        new = strip_scripts(text, search_page=path.relative_to(out).as_posix() == "search.html")
        new = drop_empty_table_heads(fix_roles(new))
        if no_design:
            new = DESIGN_FILES.sub("", new)
        if new != text:
            path.write_text(new, encoding="utf-8")
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
