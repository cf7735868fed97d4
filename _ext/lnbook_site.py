"""Site fixes for the lnbook website (a local Sphinx extension, see _config.yml); each is
checked in the browser by tests/site/.

- Sphinx 7.4 registers an inline script added after the builder started twice, so every page
  declared sphinx-thebe's ``const THEBE_JS_URL`` twice (a SyntaxError): duplicates are dropped.
- ``_ext/static`` joins the site's ``_static``: ``lnbook-site.js`` (scroll regions, drawers,
  the sidebar's first scroll), ``lnbook-site.css``, the icons and KaTeX's stylesheet and fonts.
- Weight. pydata-sphinx-theme draws about eighteen icons a page with Font Awesome's SVG script
  (``fontawesome.js``, 1,489,308 bytes); ``draw_icons`` draws them as CSS masks from its path
  data (``lnbook-icons.css``, 9.7 kB), and the icons the theme's stylesheets draw with the solid
  font (156 kB) get a subset of it (2.2 kB). Measured on 2026-12-07, files as stored: the
  epsilon chapter requests 1,457,470 bytes with ours, about 3.2 MB the theme's way (the script,
  one more request, the whole font and its 86 kB catalogue); both work offline, but with the
  script axe finds a serious label-content-name-mismatch on the theme switch. Sphinx's search
  scripts and index go (the search is Pagefind's); PurgeCSS cuts the theme's big stylesheets to
  the selectors the site uses; sphinx-design's files go when unused.
- The search page is Pagefind's stock interface (``lnbook_search.py`` builds the index;
  ``_static/lnbook-search.js`` starts it).
- A refused connection to KaTeX's node server is retried (``patient_katex_start``).
- Reader fixes: empty Markdown table heads dropped; ARIA roles and names axe asks for; links
  to a page's source download the file (jupyter-book #2237); a chapter offers its notebook
  under its title; a solution's title toggles it instead of jumping to the exercise; an inline
  formula keeps the punctuation after it on its line; a root page with a title and favicon.
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
import urllib.parse
from subprocess import PIPE, Popen

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

ROOT = pathlib.Path(__file__).resolve().parent.parent
STATIC = ROOT / "_ext" / "static"

USES_DESIGN = re.compile(r'\sclass="(?:[^"]*\s)?sd-')
DESIGN_FILES = re.compile(
    r'\s*<(?:link[^>]*\shref="[^"]*_static/sphinx-design\.min\.css[^"]*"[^>]*>|'
    r'script[^>]*\ssrc="[^"]*_static/design-tabs\.js[^"]*"[^>]*>\s*</script>)')
FIXES = [
    # sphinxcontrib-bibtex's role doc-biblioentry may not be in a list (axe)
    (re.compile(r'role="doc-biblioentry"'), 'role="listitem"'),
    # a toggle's or the search button's name is what it shows (axe: label-content-name-mismatch)
    (re.compile(r'<summary aria-label="Toggle hidden content">'), "<summary>"),
    (re.compile(r'(<button[^>]*\bsearch-button-field\b[^>]*?)\s+aria-label="[^"]*"'), r"\1"),
    # a Markdown table must have a header row: one left empty is no header (axe)
    (re.compile(r'<thead>\s*<tr[^>]*>(?:\s*<th[^>]*>(?:<p></p>)?</th>)+\s*</tr>\s*</thead>'), ""),
    # a solution's title toggles it: its "Exercise N" is text, not a link that jumps away
    (re.compile(r'(<p class="admonition-title">Solution to)<a class="reference internal" '
                r'href="#[^"]*">(.*?)</a>'), r"\1\2"),
    # scripts that no page needs (Pagefind's search replaces Sphinx's)
    (re.compile(r'\s*<script[^>]*\ssrc="[^"]*(?:scripts/fontawesome\.js|_static/searchtools\.js|'
                r'_static/language_data\.js|searchindex\.js)[^"]*"[^>]*>\s*</script>'), ""),
]
SOURCE_LINK = re.compile(r'<a href="([^"]*_sources/[^"]+)"(\s+target="_blank")?')
SEARCH_FORM = re.compile(r'<form class="bd-search[^"]*"(?:(?!</form>).)*</form>\s*'
                         r'<div id="search-results"></div>', re.S)
SEARCH_HEAD = ('<link rel="stylesheet" href="pagefind/pagefind-ui.css" />\n'
               '<script defer="defer" src="pagefind/pagefind-ui.js"></script>\n'
               '<script defer="defer" src="_static/lnbook-search.js"></script>\n</head>')
ROOT_INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{title}</title>
<link rel="icon" href="_static/favicon.svg" />
<meta http-equiv="Refresh" content="0; url={target}" />
</head>
<body><main><p><a href="{target}">{title}</a></p></main></body>
</html>
"""


def dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts, seen = context.get("script_files") or [], set()
    keys = [(s, 500, ()) if isinstance(s, str) else (
        s.filename or "", s.priority, tuple(sorted(s.attributes.items()))) for s in scripts]
    scripts[:] = [s for s, key in zip(scripts, keys, strict=True)
                  if not (key in seen or seen.add(key))]


def movable_script(app, pagename, templatename, context, doctree):
    """The movable figures' script, on the pages that have one (plotting.Movable) only."""
    if 'class="lnbook-movable"' in (context.get("body") or ""):
        app.add_js_file("lnbook-movable.js", loading_method="defer")


def notebook_link(app, pagename, templatename, context, doctree):
    """Under a chapter's title: its notebook, as a file to download."""
    source, body = context.get("sourcename") or "", context.get("body")
    if source.endswith(".ipynb") and body and "</h1>" in body:
        href = html.escape(context["pathto"](f"_sources/{source}", 1))
        name = html.escape(source.rsplit("/", 1)[-1])
        context["body"] = body.replace("</h1>", (
            f'</h1>\n<p class="lnb-notebook"><a href="{href}" download="{name}"><i class="fa-solid'
            f' fa-download" aria-hidden="true"></i> Download this chapter as a notebook</a> '
            f"({name}) to run it yourself.</p>"), 1)


class KeepPunctuation(SphinxPostTransform):
    """An inline formula and the punctuation right after it go into one ``span.lnb-nobr``
    (HTML only): the stylesheet forbids a line break between them, not inside the formula."""

    default_priority = 400
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for math in list(self.document.findall(nodes.math)):
            parent = math.parent
            i = parent.index(math)
            after = str(parent[i + 1]) if i + 1 < len(parent) and isinstance(
                parent[i + 1], nodes.Text) else ""
            m = re.match(r"[.,;:!?)\]}’”…%]+", after)
            if m:
                together = nodes.inline(classes=["lnb-nobr"])
                parent.replace(math, together)
                together += [math, nodes.Text(m.group(0))]
                if after[m.end():]:
                    parent[i + 1] = nodes.Text(after[m.end():])
                else:
                    parent.remove(parent[i + 1])


ICON = ('.fa-{name}{{--lnb-icon:url("data:image/svg+xml,{svg}");width:{ratio:.4f}em}}')
ICONS_HEAD = (
    "/* Written by _ext/lnbook_site.py from pydata-sphinx-theme's fontawesome.js. Font Awesome "
    "Free icons, CC BY 4.0 (https://fontawesome.com/license/free). */\n"
    "i[class*='fa-'],span[class*='fa-']{display:inline-block;height:1em;width:1em;"
    "vertical-align:-0.125em;background-color:currentColor;font-family:inherit!important;"
    "-webkit-mask:var(--lnb-icon) center/contain no-repeat;"
    "mask:var(--lnb-icon) center/contain no-repeat}\n"
    "i[class*='fa-']::before,span[class*='fa-']::before{content:none!important}\n"
    ".fa-lg{font-size:1.25em;line-height:.05em;vertical-align:-0.2em}\n")


def draw_icons(static: pathlib.Path, pages: list[str]) -> None:
    """``lnbook-icons.css``: each Font Awesome icon the pages or scripts name (``fa-bars``),
    drawn as a CSS mask in the text colour from the path data of the theme's fontawesome.js
    (of two sets with the name, the solid one, defined last)."""
    js = (static / "scripts" / "fontawesome.js").read_text(encoding="utf-8")
    text = " ".join(pages + [p.read_text(errors="replace") for p in static.rglob("*.js")
                             if p.name != "fontawesome.js"])
    rules = []
    for name in sorted(set(re.findall(r"\bfa-([a-z0-9-]+)", text))):
        found = re.findall(rf'(?<![\w-])"?{re.escape(name)}"?:\[(\d+),(\d+),\[[^\]]*\],'
                           r'"[0-9a-f]*","([^"]+)"\]', js)
        if found:
            w, h, path = found[-1]
            svg = (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {w} {h}'>"
                   f"<path d='{path}'/></svg>")
            rules.append(ICON.format(name=name, svg=urllib.parse.quote(svg, safe="/:=' ,.-"),
                                     ratio=int(w) / int(h)))
    (static / "lnbook-icons.css").write_text(ICONS_HEAD + "\n".join(rules) + "\n", "utf-8")


# Font Awesome's icon catalogue (".fa-bell:before{content:...}"), which no page uses
CATALOGUE = re.compile(r"(?:\.fa-[\w-]+(?::before)?,?)+\{content:[^}]*\}")
PRIVATE = re.compile(r"[\ue000-\uf8ff]|\\(f[0-9a-f]{3})\b", re.I)


def subset_icon_font(static: pathlib.Path) -> None:
    """Drop the theme's icon catalogue (86 kB) and cut Font Awesome's solid font to the
    characters the site's stylesheets use (fontTools, which matplotlib already needs)."""
    from fontTools import subset

    theme = static / "styles" / "pydata-sphinx-theme.css"
    theme.write_text(CATALOGUE.sub("", theme.read_text(encoding="utf-8")), encoding="utf-8")
    chars = {int(m.group(1), 16) if m.group(1) else ord(m.group(0))
             for css in static.rglob("*.css")
             for m in PRIVATE.finditer(CATALOGUE.sub("", css.read_text(errors="replace")))}
    options = subset.Options(flavor="woff", layout_features=[], name_IDs=["*"])
    font = subset.load_font(str(static / "vendor/fontawesome/webfonts/fa-solid-900.ttf"), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(chars))
    subsetter.subset(font)
    subset.save_font(font, str(static / "lnbook-fa-solid-subset.woff"), options)
    (static / "lnbook-fa-subset.css").write_text(
        "/* Font Awesome Free solid (CC BY 4.0 / SIL OFL 1.1), cut by _ext/lnbook_site.py to the "
        f"{len(chars)} characters the site's stylesheets use */\n"
        '@font-face{font-family:"Font Awesome 6 Free";font-style:normal;font-weight:900;'
        'font-display:block;src:url(lnbook-fa-solid-subset.woff) format("woff")}\n',
        encoding="utf-8")


# PurgeCSS (npm, package.json) replaced a purger of our own (223 lines) after a measurement on
# the same build (2026-12-01): 147,996 bytes against 149,340 (393,441 unpurged). It keeps a
# selector when every name in it is a word of the site's pages or scripts (scripts add classes
# at run time), and @font-face, @keyframes and custom properties. Not pygments.css: the theme
# writes it again after this step.
PURGECSS = ROOT / "node_modules" / "purgecss" / "bin" / "purgecss.js"
PURGED = ("styles/pydata-sphinx-theme.css", "styles/sphinx-book-theme.css", "mystnb.*.css",
          "proof.css", "togglebutton.css")
# classes Bootstrap builds from pieces (`bs-${NAME}-auto`)
BUILT_CLASSES = ("bs-tooltip-auto", "bs-popover-auto")


def purge_stylesheets(out: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Purge ``out/_static``'s big stylesheets in place; their sizes before and after."""
    static = out / "_static"
    sheets = [css for pattern in PURGED for css in sorted(static.glob(pattern))]
    if not PURGECSS.exists():
        raise RuntimeError(f"{PURGECSS} is missing: run `npm ci` (tools/setup-env does)")
    before = {css: css.stat().st_size for css in sheets}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["node", str(PURGECSS), "--css", *map(str, sheets), "--content",
                        str(out / "**" / "*.html"), str(out / "**" / "*.js"),
                        "--safelist", *BUILT_CLASSES, "--output", tmp],
                       check=True, capture_output=True, text=True, timeout=300)
        for css in sheets:
            shutil.move(pathlib.Path(tmp) / css.name, css)
    return {css.relative_to(static).as_posix(): (size, css.stat().st_size)
            for css, size in before.items()}


def rewrite_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    import lnbook_search

    out = pathlib.Path(app.outdir)
    title = html.escape(app.config.html_title or app.config.project)
    target = html.escape(app.builder.get_target_uri(app.config.root_doc))
    (out / "index.html").write_text(ROOT_INDEX.format(title=title, target=target), "utf-8")
    pages = {path: path.read_text(encoding="utf-8") for path in out.rglob("*.html")}
    no_design = not any(USES_DESIGN.search(text) for text in pages.values())
    for path, text in pages.items():
        new = SOURCE_LINK.sub(lambda m: f'<a href="{m.group(1)}" download="'
                              f'{m.group(1).rsplit("/", 1)[-1]}"', text)
        for pattern, replacement in FIXES + [(DESIGN_FILES, "")] * no_design:
            new = pattern.sub(replacement, new)
        if path == out / "search.html":
            new, found = SEARCH_FORM.subn('<div id="lnb-search"></div>', new)
            if found != 1:
                raise RuntimeError("search.html: the theme's search form was not found")
            new = new.replace("</head>", SEARCH_HEAD, 1)
        if new != text:
            path.write_text(new, encoding="utf-8")
            pages[path] = new
    lnbook_search.build_index(out, pages, skip={"search.html", "genindex.html", "index.html"})
    draw_icons(out / "_static", list(pages.values()))
    purge_stylesheets(out)  # after the pages: it reads the classes they keep
    subset_icon_font(out / "_static")  # reads the purged rules of every stylesheet


def patient_katex_start(cls, rundir: pathlib.Path, timeout: float):
    """sphinxcontrib-katex 0.9.11's ``KaTeXServer.start_server_process``, with a refused
    connection (the socket file exists, node does not listen yet) retried every millisecond
    until ``timeout`` seconds after the start."""
    path = rundir / "katex.sock"
    process = Popen(cls.build_command(socket=path), stdin=PIPE, stdout=PIPE, cwd=rundir)
    deadline = time.monotonic() + timeout
    while time.monotonic() <= deadline:
        if path.is_socket():
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                sock.connect(str(path))
                sock.settimeout(None)
                return process, sock
            except (ConnectionRefusedError, TimeoutError):
                sock.close()
        time.sleep(0.001)
    process.kill()
    raise cls.timeout_error(timeout)


def setup(app):
    from sphinxcontrib import katex

    katex.KaTeXServer.start_server_process = classmethod(patient_katex_start)
    app.connect("builder-inited", lambda app: app.config.html_static_path.append(str(STATIC)))
    app.connect("html-page-context", dedupe_scripts)
    app.connect("html-page-context", notebook_link)
    app.add_post_transform(KeepPunctuation)
    app.connect("build-finished", rewrite_pages)
    for css in ("lnbook-icons.css", "lnbook-site.css", "lnbook-fa-subset.css"):
        app.add_css_file(css)
    app.add_js_file("lnbook-site.js", loading_method="defer")
    app.connect("html-page-context", movable_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
