"""The install cell every chapter starts with, so that a chapter opened in Colab runs.

Colab opens a chapter in its own environment, which has neither ``lnbook`` nor ``myst_nb``.
The first code cell of every chapter is this one cell, rendered from the repository address in
``_config.yml`` (``repository.url`` and ``repository.branch``, the one place it lives). It
installs ``lnbook`` with its ``book`` extra (matplotlib, mpmath, myst-nb) only when ``lnbook``
or ``myst_nb`` cannot be imported, and does nothing, printing nothing, otherwise. The
environment variable ``LNBOOK_PIP_SOURCE`` (a pip URL such as ``file:///path/to/checkout``)
replaces the repository address, e.g. for a test without network.

Usage: python tools/colab_cell.py [--check] [book/chapter.ipynb ...]   (default: every chapter)
Without --check, puts the rendered cell first in each chapter (replacing an older rendering);
with --check, exits 1 if a chapter's first code cell is not the rendered cell.
tools/execute.py calls ``ensure`` on every chapter it executes.
"""

from __future__ import annotations

import pathlib
import sys

import nbformat
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
MARK = "# Install lnbook where it is missing (Colab); elsewhere this cell does nothing."
TEMPLATE = """{mark}
import importlib.util, os, subprocess, sys
if not all(importlib.util.find_spec(name) for name in ("lnbook", "myst_nb")):
    source = os.environ.get(
        "LNBOOK_PIP_SOURCE", "git+{url}@{branch}"
    )
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                    f"lnbook[book] @ {{source}}"], check=True)
    importlib.invalidate_caches()"""
TAGS = ["hide-cell"]  # on the website the cell is one click away; Colab shows it


def repository() -> tuple[str, str]:
    """(url, branch) of the repository, from _config.yml."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repo = config["repository"]
    return str(repo["url"]).rstrip("/"), str(repo.get("branch", "main"))


def render() -> str:
    """The install cell's source for the repository named in _config.yml."""
    url, branch = repository()
    return TEMPLATE.format(mark=MARK, url=url, branch=branch)


def first_code_cell(nb):
    return next((c for c in nb.cells if c.cell_type == "code"), None)


def ensure(nb) -> bool:
    """Make the notebook's first code cell the rendered install cell; True if it changed."""
    source = render()
    first = first_code_cell(nb)
    if first is not None and first.source.startswith(MARK):
        if first.source == source and first.metadata.get("tags") == TAGS:
            return False
        first.source = source
        first.metadata["tags"] = list(TAGS)
        return True
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": list(TAGS)})
    index = nb.cells.index(first) if first is not None else len(nb.cells)
    nb.cells.insert(index, cell)
    return True


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [pathlib.Path(p) for p in argv if p != "--check"] or sorted(BOOK.glob("*.ipynb"))
    stale = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        first = first_code_cell(nb)
        if check:
            if first is None or first.source != render():
                stale.append(path.name)
        elif ensure(nb):
            nbformat.write(nb, path)
            print(f"install cell written: {path} (re-execute it: tools/execute.py {path})")
    if stale:
        print(f"first code cell is not the install cell: {stale}; run tools/colab_cell.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
