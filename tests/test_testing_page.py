"""The page "How this book is tested" (book/testing.md) tells the truth about versions and files.

Its table names the versions that produced the stored outputs; these tests check that they are
the versions installed where the tests run, and that the Python version is the one recorded in
every chapter's metadata by the kernel that executed it. Every file or command the page names
must exist, so the page cannot describe tests that are gone.
"""

from __future__ import annotations

import importlib.metadata
import pathlib
import re

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "testing.md"
MARKER = "% versions table: checked by tests/test_testing_page.py"
REQUIRED = {"Python", "numpy", "matplotlib", "matplotlib-inline", "ipykernel"}


def versions_table() -> dict[str, str]:
    """The rows of the table that follows the marker comment: software -> version."""
    text = PAGE.read_text()
    assert MARKER in text, f"{PAGE.name} lost its versions table marker"
    rows = {}
    for line in text.split(MARKER, 1)[1].strip().splitlines():
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("Software", "---"):
            rows[cells[0]] = cells[1]
    return rows


def test_table_names_every_version_that_matters():
    """The table lists Python and the packages that compute or print the stored outputs."""
    assert REQUIRED <= set(versions_table()), sorted(REQUIRED - set(versions_table()))


@pytest.mark.parametrize("name", sorted(REQUIRED - {"Python"}))
def test_package_version_is_installed(name):
    """The version on the page is the version installed here."""
    assert versions_table()[name] == importlib.metadata.version(name), (
        f"{PAGE.name} says {name} {versions_table()[name]}, installed is "
        f"{importlib.metadata.version(name)}: re-run tools/execute.py and update the table")


@pytest.mark.parametrize("name", sorted(REQUIRED - {"Python"}))
def test_requirements_pin_the_page_versions(name):
    """requirements.txt pins each of these packages to exactly the version on the page."""
    pins = dict(re.findall(r"^([\w.-]+)==(\S+)", (ROOT / "requirements.txt").read_text(), re.M))
    assert pins.get(name) == versions_table()[name], (name, pins.get(name))


def test_python_version():
    """The page's Python (major.minor) is the one every chapter's stored outputs ran on.

    (The tests themselves may run on any Python that pyproject's requires-python admits.)
    """
    page = versions_table()["Python"]
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        stored = nbformat.read(path, as_version=4).metadata["language_info"]["version"]
        assert ".".join(stored.split(".")[:2]) == page, f"{path.name} was executed by {stored}"


def test_named_files_exist():
    """Every file, folder or glob under tests/, tools/ or .ci/ that the page names exists."""
    names = set(re.findall(r"(?<![\w/.])((?:tests|tools|\.ci)/[\w.*/-]*\w)", PAGE.read_text()))
    assert names, "the page names no test or tool"
    missing = [name for name in sorted(names) if not list(ROOT.glob(name))]
    assert not missing, f"{PAGE.name} names files that do not exist: {missing}"
