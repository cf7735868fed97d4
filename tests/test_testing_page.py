"""The pages tell the truth about versions, files and numbers (book/testing.md most of all).

Its versions table is generated from the pins (tools/versions.py writes book/_versions.md,
which the page includes; the verification page names the versions a run used); runtime.txt's
Python executed every chapter; a library version any page
names is the pinned one; every file the page names exists; every number a Markdown page states
is a value of the files it describes.
"""

from __future__ import annotations

import pathlib
import re
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "testing.md"
# tools/versions.py; the prose audit of the chapters and its exemptions (tests/ or tests/book/)
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "tests"), str(ROOT / "tests" / "book")]
import versions  # noqa: E402


def test_generated_table_is_current():
    """book/_versions.md is what tools/versions.py makes from today's pins, and testing.md
    includes it and types no version table of its own."""
    assert versions.TABLE.read_text() == versions.render(), (
        "book/_versions.md is stale: run python tools/versions.py")
    text = PAGE.read_text()
    assert re.search(r"```\{include\}\s+_versions\.md", text), "testing.md lost its include"
    assert "| Software |" not in text, "testing.md holds a hand-written versions table"


def test_python_version():
    """runtime.txt's Python (major.minor) executed every chapter's stored outputs."""
    want = versions.python_version()
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        stored = nbformat.read(path, as_version=4).metadata["language_info"]["version"]
        assert ".".join(stored.split(".")[:2]) == want, f"{path.name} was executed by {stored}"


def test_named_files_exist():
    """Every file, folder or glob under tests/, tools/ or .ci/ that the page names exists."""
    names = set(re.findall(r"(?<![\w/.])((?:tests|tools|\.ci)/[\w.*/-]*\w)", PAGE.read_text()))
    assert names, "the page names no test or tool"
    missing = [name for name in sorted(names) if not list(ROOT.glob(name))]
    assert not missing, f"{PAGE.name} names files that do not exist: {missing}"


def test_worked_examples_hold():
    """The page's examples of the prose audit ("0.1342 matches 0.13416407") are what its
    matcher does."""
    import test_notebooks

    examples = re.findall(r"\(([^()]+?) matches ([^()]+?)\)", PAGE.read_text())
    assert examples, "the page lost its worked example"
    for prose, value in examples:
        tokens = test_notebooks.prose_tokens(prose)
        numbers = test_notebooks.evidence_numbers(value)
        assert tokens and all(t.matches(numbers, value) for t in tokens), (prose, value)


# the distribution a library's name in the prose means, where the two differ
DISTRIBUTIONS = {"pytorch": "torch", "jupyter book": "jupyter-book"}


def prose_versions() -> list[tuple[str, str, str, str]]:
    """(page, library, version, what follows) for every library version the pages' prose names
    (the pattern the prose audit exempts as a name, tests/book/notebook_policy.py)."""
    import notebook_policy

    pattern = re.compile(notebook_policy.LIBRARY_VERSION)
    found = []
    for path in sorted((ROOT / "book").iterdir()):
        if path.suffix == ".ipynb":
            cells = nbformat.read(path, as_version=4).cells
            text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
        elif path.suffix == ".md" and not path.name.startswith("_"):
            text = path.read_text()
        else:
            continue
        for m in pattern.finditer(text):
            library, version = re.match(r"(.+?)(?:'s)? (?:version )?v?(\d[\d.]*)$",
                                        m.group(0)).groups()
            found.append((path.name, library, version, text[m.end():m.end() + 120]))
    return found


def test_library_versions_in_the_prose_are_the_pinned_ones():
    """A library version named on any page is its exact pin (a prefix: "numpy 2.4" for 2.4.x),
    or a past release named with its citation in the same sentence ("arrived in Keras 3.11.0
    {cite:p}`...`"). Python's is runtime.txt's."""
    found, pins = prose_versions(), versions.pins()
    assert any(lib.lower() in ("pytorch", "torch") for _, lib, _, _ in found), "none found"
    wrong = []
    for page, library, version, after in found:
        if library.lower() == "python":
            pinned = versions.python_version()
        elif library.lower() == "openblas":
            continue  # named with the kernel it loads; tests/book/test_portability.py reads it
        else:
            name = DISTRIBUTIONS.get(library.lower(), library.lower())
            pinned = pins.get(name, "no exact pin")
        same = pinned == version or pinned.startswith(version + ".")
        cited = re.match(r"[^.;]*?\{cite:[pt]\}", after) is not None
        if not (same or cited):
            wrong.append(f"{page}: {library} {version} (pinned: {pinned})")
    assert not wrong, "versions in the prose that are not the pinned ones:\n" + "\n".join(wrong)


# The files each Markdown page describes: a number its prose states is one they hold (the
# notation page's unit roundoffs are formulas, checked against numpy's finfo by the formula
# checker; a number word is found as its value)
WITNESS_FILES = {
    "book/testing.md": ["tests/**/*.py", "tools/*", "pyproject.toml"],
    "book/api.md": ["lnbook/*.py", "tests/**/test_api.py", "tests/**/test_contract.py"],
    "book/benchmarks.md": ["benchmarks/*.py", "lnbook/_kernel.py",
                           "tests/**/test_benchmarks.py"],
    "book/notation.md": ["tests/formulas/symbols.py", "lnbook/*.py"],
    "book/intro.md": ["book/*.ipynb"],
}


def unwitnessed(page: str, patterns: list[str]) -> list[str]:
    import test_notebooks  # the chapters' prose audit (the book tier's)

    text = "\n".join(p.read_text(errors="replace") for pattern in patterns
                     for p in sorted(ROOT.glob(pattern)) if p.is_file())
    numbers = test_notebooks.evidence_numbers(text)
    # numbers inside formulas are the formula checker's (every Markdown page is strict there)
    prose = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", " ", (ROOT / page).read_text(), flags=re.S)
    return [token.text for token in test_notebooks.prose_tokens(prose)
            if not token.matches(numbers, text) and token.text not in text]


@pytest.mark.parametrize("markdown", sorted(WITNESS_FILES))
def test_markdown_page_numbers_are_in_the_files_it_describes(markdown):
    """Every number the prose of a Markdown page states (the chapters' audit's tokens) is a
    value of the files the page describes: the viewports and the page-weight budget of the
    browser tests, the API's size limits, the benchmark's settings."""
    assert unwitnessed(markdown, WITNESS_FILES[markdown]) == []


def test_markdown_page_audit_can_fail(tmp_path, monkeypatch):
    """A number no witness file holds is reported (as a value, or written as on the page:
    10**400 is no float)."""
    page = tmp_path / "page.md"
    page.write_text("The budget is 7.31 MB.\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "w.py").write_text("BUDGET = 7.3\n")
    assert unwitnessed("page.md", ["w.py"]) == ["7.31"]
    (tmp_path / "w.py").write_text("BUDGET = 7.31\n")
    assert unwitnessed("page.md", ["w.py"]) == []
