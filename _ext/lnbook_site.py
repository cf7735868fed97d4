"""Site fixes for the lnbook website (a local Sphinx extension, see _config.yml).

Sphinx 7.4 registers an inline script added with ``app.add_js_file(None, body=...)`` after the
builder started twice: once as filename ``None`` and once as ``''``. sphinx-thebe and
sphinx-togglebutton add their settings that way, so every page declared
``const THEBE_JS_URL`` twice, a SyntaxError in the reader's console (caught by
tests/test_site.py). This drops the duplicates from each page's script list.
"""

from __future__ import annotations


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


def setup(app):
    app.connect("html-page-context", dedupe_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
