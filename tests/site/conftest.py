"""The site tier's fixtures: the built site (``tools/build-site``) served on 127.0.0.1, and
pytest-playwright's ``browser`` launched on Debian's Chromium (the tests never download one).

Every test here skips, saying why, when ``_build/html`` is missing (or, outside CI and the full
command, older than its sources); in CI (``CI=true``) and in the full command
(``LNBOOK_STRICT=1``) it fails instead. ``LNBOOK_SCREENSHOTS=1`` makes the page tests save
screenshots for a person to look at in ``_build/screenshots/`` (full chapter pages, the dark
theme at both widths, a phone's first screen); without it none is taken.
"""

from __future__ import annotations

import functools
import http.server
import os
import pathlib
import shutil
import threading

import pytest
from builtsite import HTML, ROOT

CHROMIUM = pathlib.Path("/usr/bin/chromium")
# every host name but the site's fails to resolve: no request leaves the machine, and the
# tabs need no interception of their requests (which would also turn the HTTP cache off)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
SOURCES = ["_config.yml", "_toc.yml", "book", "_ext", "lnbook"]


def strict() -> bool:
    """CI, or the full command: nothing may skip for something missing."""
    ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    return ci or bool(os.environ.get("LNBOOK_STRICT"))


def missing(reason: str) -> None:
    """Skip saying why, or (CI, full command) fail."""
    if strict():
        pytest.fail(reason)
    pytest.skip(reason)


def stale(built: pathlib.Path) -> str | None:
    """Why the file ``built`` cannot be tested as it stands, or None."""
    if not built.exists():
        return f"{built.relative_to(ROOT)} has not been built: run tools/build-site"
    files = [p for name in SOURCES for p in ([ROOT / name] if (ROOT / name).is_file()
             else (ROOT / name).rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    newer = [p for p in files if p.stat().st_mtime > built.stat().st_mtime]
    if newer and not strict():  # in CI and the full command the build just made is tested
        return f"{newer[0].relative_to(ROOT)} is newer than {built.relative_to(ROOT)}: " \
               "run tools/build-site"
    return None


@pytest.fixture(scope="session", autouse=True)
def built_site():
    if reason := stale(HTML / "index.html"):
        missing(reason)


@pytest.fixture(scope="session")
def poppler():
    """poppler's tools, which read PDFs back (tools/build-pdf installs them as root)."""
    if lost := [t for t in ("pdftotext", "pdfinfo", "pdfimages") if not shutil.which(t)]:
        missing(f"poppler's {', '.join(lost)} missing: apt-get install poppler-utils")


@pytest.fixture(scope="session")
def built_pdf(poppler):
    if reason := stale(ROOT / "_build" / "pdf" / "lnbook.pdf"):
        missing(reason)


@pytest.fixture(scope="session")
def axe() -> str:
    """axe-core's script (npm, package.json; tools/setup-env runs `npm ci`)."""
    path = ROOT / "node_modules" / "axe-core" / "axe.min.js"
    if not path.exists():
        missing(f"{path} is missing: run `npm ci` at the repository root")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, on /usr/bin/chromium (its fixture closes it)."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing: `apt-get install -y chromium` (the browser tests "
                "never download a browser)")
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url():
    """No base URL for pytest-playwright's contexts (pytest-base-url's warns in pytest 9)."""
    return None


@pytest.fixture(scope="session")
def server():
    """``_build/html`` served on 127.0.0.1 at a free port; yields its address, ends with it."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # a tab closed while a fetch was in flight: not the site's error

    httpd = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(HTML)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)
