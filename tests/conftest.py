"""Shared strategies and helpers for the lnbook tests."""

from __future__ import annotations

import os
import pathlib
import re

# Keras 3 imports TensorFlow unless told otherwise; the Keras peer tests run on the JAX backend
# (jax and keras are pinned in pyproject.toml's `test` extra). Set before any test imports keras.
os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# Every hypothesis test draws the same examples on every run, here as in CI: a failure is a
# defect anyone can replay, never a commit's bad luck. HYPOTHESIS_PROFILE=explore draws fresh
# random examples (for hunting defects by hand; what it finds becomes a test).
settings.register_profile("lnbook", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lnbook"))

# Records of moderate size and scale: finite, d >= 1; values away from overflow.
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
eps_values = st.floats(min_value=1e-6, max_value=10.0)


def record_arrays(min_d: int = 1, max_d: int = 8, max_lead: int = 2):
    """Arrays of shape (..., d) with up to ``max_lead`` leading axes."""
    shapes = hnp.array_shapes(min_dims=1, max_dims=1 + max_lead, min_side=1, max_side=5).flatmap(
        lambda s: st.integers(min_d, max_d).map(lambda d: s[:-1] + (d,))
    )
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=finite))


def in_ci() -> bool:
    """True in CI (CI set to anything but empty, 0, false or no): there nothing may skip for a
    missing dependency. The one place that reads the variable."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def torch():
    """PyTorch, for the peer tests, or a skip that says why (in CI: a failure, never a skip).

    A test that takes this fixture belongs to the slow tier (pytest_collection_modifyitems):
    importing torch alone takes about 2 s, which the fast tier cannot afford.
    """
    reason = ("PyTorch is not installed here; tools/setup-env installs the version pinned in "
              "pyproject.toml (extra `test`)")
    if in_ci():
        try:
            import torch
        except ImportError:
            pytest.fail(f"{reason}, and CI must run the PyTorch peer tests")
        return torch
    return pytest.importorskip("torch", reason=reason)


# --------------------------------------------------------------------------------------------
# Tiers (README, "Tests in tiers"): every test belongs to one of fast, slow, book, site,
# binder. Files of the other tiers are marked here, by file (and tests/site/ by folder), so
# `-m` selects a tier.

ROOT = pathlib.Path(__file__).resolve().parent.parent
HTML_INDEX = ROOT / "_build" / "html" / "index.html"
SITE_TESTS = ROOT / "tests" / "site"  # the tests of the built website: the site tier
TIER_OF_FILE = {
    "test_notebooks.py": "book",
    "test_portability.py": "book",
    "test_binder.py": "binder",
    # the framework peers that start JAX (Flax) and Keras once per backend, and the benchmark's
    # tiny run: a few seconds each, kept out of the fast tier's inner loop
    "test_peers.py": "slow",
    "test_benchmarks.py": "slow",
    # every figure drawn and read back (its data functions are tested in the fast tier)
    "test_plotting.py": "slow",
}
# what the built site is made from: newer than the build means the build is stale
SITE_SOURCES = ["_config.yml", "_toc.yml", "book", "_ext", "lnbook"]


def site_is_stale() -> str | None:
    """Why the built site cannot be tested as it stands, or None when it is current."""
    if not HTML_INDEX.exists():
        return f"{HTML_INDEX.parent} has not been built"
    built = HTML_INDEX.stat().st_mtime
    for name in SITE_SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()
                                               and "__pycache__" not in p.parts]
        newer = [p for p in files if p.stat().st_mtime > built]
        if newer:
            return f"{newer[0].relative_to(ROOT)} is newer than the built site"
    return None


def pytest_configure(config):
    """A full `tools/test` run (LNBOOK_RUN_ID set) keeps what each session established for the
    verification page (tests/verification/record.py, read by tests/verification/build.py)."""
    if os.environ.get("LNBOOK_RUN_ID"):
        from verification.record import Recorder

        config.pluginmanager.register(Recorder(config), "lnbook-verification-record")


def pytest_collection_modifyitems(config, items):
    """Mark each test with its tier; outside the site tier, skip the site tests of a missing
    or stale build, saying why (in CI, and under `tools/test site`, they run or fail)."""
    stale: list[str | None] = []  # computed once, at the first site test
    for item in items:
        tier = TIER_OF_FILE.get(item.path.name)
        if item.path.is_relative_to(SITE_TESTS):
            tier = "site"
        if item.path.suffix == ".ipynb":
            tier = "book"
        if tier is None and "torch" in getattr(item, "fixturenames", ()):
            tier = "slow"  # a PyTorch peer
        if tier is not None:
            item.add_marker(getattr(pytest.mark, tier))
        if tier == "site" and not in_ci() and not os.environ.get("LNBOOK_SITE_TIER"):
            if not stale:
                stale.append(site_is_stale())
            if stale[0]:
                item.add_marker(pytest.mark.skip(
                    reason=f"{stale[0]}: `tools/test site` builds it and runs these tests"))


# Nothing skips for a missing dependency where every test must run: in CI and in the full
# `tools/test` (LNBOOK_STRICT=1), a skip whose reason is not declared below fails instead,
# saying so. Its reason is printed either way (-rfEs in tools/test).
ACCEPTED_SKIPS = {
    r"^TensorFlow is not installed here": "TensorFlow is not pinned: BERT's TF1 layer has no "
    "wheel for Python 3.11, and the 'bert' convention rests on its cited source",
    r"^the Keras tensorflow backend needs tensorflow": "TensorFlow is not pinned (above)",
    r"^this machine's default code path": "the book tier's own run covers this variant",
    r"^this CPU has no AVX-512": "OpenBLAS cannot load its SkylakeX kernel on this CPU",
}


def strict() -> bool:
    return in_ci() or bool(os.environ.get("LNBOOK_STRICT"))


def _refused_skip(report) -> str | None:
    """The reason of a skip that must fail here, or None."""
    if not (report.skipped and strict() and isinstance(report.longrepr, tuple)):
        return None
    if hasattr(report, "wasxfail"):
        return None
    reason = str(report.longrepr[2]).removeprefix("Skipped: ")
    if any(re.search(pattern, reason) for pattern in ACCEPTED_SKIPS):
        return None
    return reason


REFUSED = ("skipped where every test must run (CI, or the full tools/test): {reason}. Install "
           "what it names (tools/setup-env installs every pinned package), or leave the tier "
           "out on purpose: tools/test --skip TIER")


def _refuse(report) -> None:
    """Turn a skip that the run may not accept into a failure that says what to install."""
    reason = _refused_skip(report)
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = REFUSED.format(reason=reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    _refuse((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    _refuse((yield).get_result())


# --------------------------------------------------------------------------------------------
# The book tier: every chapter executed once per configuration (tests/chapters.py)


@pytest.fixture(scope="session")
def chapter_runs(tmp_path_factory):
    """The executions of the chapters this session needs, one per configuration."""
    from chapters import Runs

    runs = Runs(tmp_path_factory.mktemp("chapters"))
    yield runs
    runs.close()


@pytest.fixture(scope="session")
def default_run(chapter_runs):
    """Every chapter executed in a fresh kernel, in the caller's environment without
    OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (as on a reader's machine)."""
    from chapters import default_environment

    chapter_runs.submit("default", lambda home: default_environment())
    return chapter_runs.get("default")


# --------------------------------------------------------------------------------------------
# The site tier's browser and server (tests/site/). The browser is pytest-playwright's
# `browser` fixture, launched here on Debian's Chromium: the tests never download a browser.

CHROMIUM = pathlib.Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, on /usr/bin/chromium; its absence is named (a
    skip that prints the reason; a failure in CI)."""
    if not CHROMIUM.exists():
        reason = (f"{CHROMIUM} is missing: install Debian's browser with "
                  "`apt-get install -y chromium` (the browser tests never download one)")
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM),
            "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url():
    """No base URL for pytest-playwright's contexts: the tests name the server's address
    (the plugin's own fixture, from pytest-base-url, warns of a deprecation in pytest 9)."""
    return None


@pytest.fixture(scope="session")
def server():
    """Serve _build/html on 127.0.0.1 at a free port; yields the base URL."""
    import functools
    import http.server
    import threading

    if not HTML_INDEX.exists():
        pytest.fail(f"{HTML_INDEX.parent} has not been built: run tools/build-site first")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            # a page closed while a fetch was in flight (e.g. search summaries): not a site
            # error
            pass

    httpd = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(HTML_INDEX.parent)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


# --------------------------------------------------------------------------------------------
# Nothing left running: a test session that ends with a process it started still alive fails,
# naming it (a server blocked in accept(), a kernel, a browser would outlive the run).


def running_descendants(pid: int) -> list[str]:
    """``"PID command"`` of every live (not zombie) descendant of ``pid``, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended while we looked
            continue
        state, ppid = text[text.rindex(")") + 2:].split()[:2]
        if state not in ("Z", "X"):
            children.setdefault(int(ppid), []).append(int(stat.parent.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        todo += children.get(child, [])
        try:
            command = pathlib.Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        words = command.replace(b"\0", b" ").decode(errors="replace")
        found.append(f"{child} {words[:200]}")
    return found


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """Fail the session when a process it started is still running at its end (after a
    grace of a few seconds for processes being shut down). Under pytest-xdist each worker
    checks its own; the controller's children are the workers."""
    import time

    config = session.config
    if not pathlib.Path("/proc/self/stat").exists():
        return  # not Linux: nothing to read
    if config.pluginmanager.hasplugin("dsession") and not hasattr(config, "workerinput"):
        return
    deadline = time.monotonic() + 10
    while (left := running_descendants(os.getpid())) and time.monotonic() < deadline:
        time.sleep(0.2)
    if left:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        message = ("processes started by this test session are still running at its end:\n  "
                   + "\n  ".join(left))
        if reporter is not None:
            reporter.write_line(message, red=True)
        else:
            print(message)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
