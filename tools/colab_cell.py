"""The install cell every chapter starts with, so that a chapter opened in Colab reproduces its
stored outputs.

Colab opens a chapter in its own environment: no lnbook, no myst-nb, other versions of numpy,
matplotlib, PyTorch, JAX, Flax and Keras. The first code cell of every chapter is this one
cell, rendered from where each fact lives: the repository address in ``_config.yml``, lnbook's
version, the exact pins of ``requirements.txt`` (not the kernel's own packages, which Colab
runs) and of pyproject.toml's ``frameworks`` extra. Where a pinned package is missing or at
another version, it installs ``lnbook[book,frameworks]`` and the pins (PyTorch's CPU build);
where everything is right (the book tier, Binder) it does nothing and prints nothing. Its names
live inside a function, so a chapter cannot use a module it did not import itself.
``LNBOOK_PIP_SOURCE`` (a pip URL) replaces the repository address, for a test without network.

Usage: python tools/colab_cell.py [book/chapter.ipynb ...]   (default: every chapter)
puts the rendered cell first in each chapter, replacing an older rendering (tools/execute.py
does it too, for every chapter it stores); tests/binder/ checks every chapter starts with it.
"""

from __future__ import annotations

import pathlib
import re
import sys

import nbformat
import versions
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
MARK = "# Install lnbook"  # how the cell's first line begins (older renderings too)
KERNEL_PACKAGES = ("ipykernel", "matplotlib-inline")  # Colab's kernel runs its own
CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's CPU wheels (2.13.0+cpu)
TEMPLATE = """\
# Install lnbook and the versions that computed the outputs where they differ (Colab);
# elsewhere this cell does nothing.
def _install():
    import importlib, importlib.metadata, os, subprocess, sys
    source = "git+{url}@{branch}"
    pins = {{
{pins}
    }}

    def version(name):
        try:
            return importlib.metadata.version(name).split("+")[0]
        except importlib.metadata.PackageNotFoundError:
            return None

    wrong = [n for n, v in pins.items() if version(n) != v]
    if wrong or version("myst-nb") is None:
        source = os.environ.get("LNBOOK_PIP_SOURCE", source)
        pinned = [f"{{n}}=={{v}}" for n, v in pins.items() if n != "lnbook"]
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                        "--extra-index-url", "{index}",
                        f"lnbook[book,frameworks] @ {{source}}", *pinned], check=True)
        importlib.invalidate_caches()
        if set(wrong) & set(sys.modules):
            print("Installed; restart the session and run the notebook again:", *wrong)


_install()
del _install"""
TAGS = ["hide-cell"]  # on the website the cell is one click away; Colab shows it


def pins() -> dict[str, str]:
    """lnbook's version and every exact pin of the packages that compute the outputs."""
    version = re.search(r'__version__ = "([^"]+)"', (ROOT / "lnbook/__init__.py").read_text())
    lines = (ROOT / "requirements.txt").read_text().splitlines() + versions.extras()["frameworks"]
    return {"lnbook": version[1]} | {name: spec[2:] for name, spec in versions.specs(lines).items()
                                     if spec.startswith("==") and name not in KERNEL_PACKAGES}


def render() -> str:
    """The install cell's source, from _config.yml's repository and the pins."""
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    listed = "\n".join(f'        "{n}": "{v}",' for n, v in pins().items())
    return TEMPLATE.format(pins=listed, url=str(repo["url"]).rstrip("/"),
                           branch=str(repo.get("branch", "main")), index=CPU_INDEX)


def first_code_cell(nb):
    return next((c for c in nb.cells if c.cell_type == "code"), None)


def ensure(nb) -> bool:
    """Make the notebook's first code cell the rendered install cell; True if it changed."""
    source, first = render(), first_code_cell(nb)
    if first is not None and first.source.startswith(MARK):
        changed = first.source != source or first.metadata.get("tags") != TAGS
        first.source, first.metadata["tags"] = source, list(TAGS)
        return changed
    index = nb.cells.index(first) if first is not None else len(nb.cells)
    nb.cells.insert(index, nbformat.v4.new_code_cell(source, metadata={"tags": list(TAGS)}))
    return True


if __name__ == "__main__":
    for path in [pathlib.Path(p) for p in sys.argv[1:]] or sorted(BOOK.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if ensure(nb):
            nbformat.write(nb, path)
            print(f"install cell written: {path} (re-execute it: tools/execute.py {path})")
