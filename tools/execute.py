"""Re-execute chapters in a fresh kernel, top to bottom, and store their outputs.

Usage: python tools/execute.py [book/chapter.ipynb ...]   (default: every chapter)
Run it after changing lnbook or a chapter; the tests then check the stored outputs.
"""

from __future__ import annotations

import pathlib
import sys

import nbformat
from nbclient import NotebookClient

BOOK = pathlib.Path(__file__).resolve().parent.parent / "book"


def merge_streams(outputs: list) -> list:
    """Join consecutive stream outputs of one name: how a kernel splits them depends on timing."""
    merged = []
    for out in outputs:
        last = merged[-1] if merged else None
        if out.output_type == "stream" and last is not None and last.output_type == "stream" \
                and last.name == out.name:
            last.text += out.text
        else:
            merged.append(out)
    return merged


def execute(path: pathlib.Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        record_timing=False,  # wall-clock stamps would change on every run
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    nbformat.write(nb, path)


if __name__ == "__main__":
    paths = [pathlib.Path(p) for p in sys.argv[1:]] or sorted(BOOK.glob("*.ipynb"))
    for path in paths:
        print(f"executing {path}", flush=True)
        execute(path)
