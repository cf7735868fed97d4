"""Re-execute chapters in a fresh kernel, top to bottom, and store their outputs.

Usage: python tools/execute.py [book/chapter.ipynb ...]   (default: every chapter)
Run it after changing lnbook or a chapter; the tests then check the stored outputs.
Each chapter first gets (or keeps) the Colab install cell of tools/colab_cell.py as its first
code cell, and runs without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, as on a reader's machine.
"""

from __future__ import annotations

import os
import pathlib
import sys
from concurrent.futures import ProcessPoolExecutor

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import colab_cell  # noqa: E402  (tools/ is not a package)

BOOK = pathlib.Path(__file__).resolve().parent.parent / "book"
# a reader's machine sets neither; stored outputs must not depend on them
MACHINE_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


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
    colab_cell.ensure(nb)  # the first code cell is the Colab install cell
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        record_timing=False,  # wall-clock stamps would change on every run
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute(env={k: v for k, v in os.environ.items() if k not in MACHINE_VARIABLES})
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    nbformat.write(nb, path)


def jobs() -> int:
    """Chapters executed at once: one per CPU this process may use (each has its own kernel)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


if __name__ == "__main__":
    paths = [pathlib.Path(p) for p in sys.argv[1:]] or sorted(BOOK.glob("*.ipynb"))
    # chapters are independent (a fresh kernel each), so they run side by side; outputs do not
    # depend on it (tests/test_notebooks.py re-executes each chapter alone and compares)
    with ProcessPoolExecutor(max_workers=min(jobs(), len(paths))) as pool:
        for path, _ in zip(paths, pool.map(execute, paths)):
            print(f"executed {path}", flush=True)
