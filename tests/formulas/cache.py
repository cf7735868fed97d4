"""A disk cache for the two steps that do not depend on lnbook: reading the pages (the Markdown
parse) and parsing each formula (the lark parse).

Entries live in ``_build/formulas-cache/``, keyed by the SHA-256 of everything their result
depends on: the page's bytes and those of the files it includes (for the API page, lnbook's
sources), and the checker's own reading code (``pages.py``, ``parse.py``, ``latex.lark``) with
lark's version. A changed input misses and is read again, so the cache can make a run faster
but never change its result. Writes go through a temporary file and a rename, so that parallel
test processes never read half a file.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import pickle
import tempfile

import lark

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DIR = ROOT / "_build" / "formulas-cache"


@functools.cache
def code_key() -> str:
    h = hashlib.sha256(lark.__version__.encode())
    for name in ("pages.py", "parse.py", "latex.lark", "cache.py"):
        h.update((HERE / name).read_bytes())
    return h.hexdigest()


def key_of(*paths: pathlib.Path) -> str:
    h = hashlib.sha256(code_key().encode())
    for path in paths:
        h.update(str(path).encode())
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()


def load(name: str, key: str):
    """The cached value stored under ``name`` with this key, or None."""
    try:
        with open(DIR / name, "rb") as f:
            stored_key, value = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, AttributeError,
            ImportError):
        return None
    return value if stored_key == key else None


def store(name: str, key: str, value) -> None:
    try:
        DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=DIR, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            pickle.dump((key, value), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, DIR / name)
    except OSError:  # a read-only checkout: no cache, same results
        pass
