"""Execute chapters in a fresh kernel, top to bottom: the one notebook executor (nbclient).

Usage:
    python tools/execute.py [book/chapter.ipynb ...]       store: re-execute, write in place
    python tools/execute.py --output-dir DIR [chapters]    test: write executed copies to DIR

Store (the default, every chapter when none is named): run it after changing lnbook or a
chapter; the tests then check the stored outputs. Each chapter first gets (or keeps) the
Colab install cell of tools/colab_cell.py as its first code cell, and runs without
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, as on a reader's machine.

Test (``--output-dir``): the stored chapters are left as they are; the executed copies go to
DIR, a cell that raises keeps its error as an output and the next cells still run, and the
kernel gets this process's environment as it is (the caller chooses the configuration: the
book tier removes the two variables, the portability tier sets its variant's).

``run`` is what every caller imports: this command, the book and portability tiers
(tests/chapters.py) and the binder tier (tests/test_binder.py, inside its fresh environment,
which is why this module needs only nbformat and nbclient). Chapters run side by side,
``--jobs`` at a time (default: one per CPU), each in its own kernel.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import nbformat
from nbclient import NotebookClient

BOOK = pathlib.Path(__file__).resolve().parent.parent / "book"
# a reader's machine sets neither; stored outputs must not depend on them
MACHINE_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
TIMEOUT = 600  # seconds per cell


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


def run(nb, cwd: pathlib.Path | str, env: dict[str, str] | None = None,
        allow_errors: bool = False, timeout: int = TIMEOUT):
    """Execute ``nb`` in place in a fresh python3 kernel started in ``cwd`` with ``env`` (this
    process's environment when None); return it. Consecutive streams are merged; no timing
    stamps are recorded. Raises nbclient's CellExecutionError at the first failing cell unless
    ``allow_errors``."""
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=allow_errors,
        record_timing=False,  # wall-clock stamps would change on every run
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute(env=dict(os.environ) if env is None else env)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    return nb


def store(path: pathlib.Path) -> None:
    """Re-execute a chapter as a reader's machine would and write it back with its outputs."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import colab_cell  # tools/ is not a package; needs yaml, which only this mode uses

    nb = nbformat.read(path, as_version=4)
    colab_cell.ensure(nb)  # the first code cell is the Colab install cell
    run(nb, path.parent, env={k: v for k, v in os.environ.items() if k not in MACHINE_VARIABLES})
    nbformat.write(nb, path)


def copy(path: pathlib.Path, folder: pathlib.Path) -> None:
    """Execute a chapter, errors kept as outputs, into ``folder`` under its own name, with the
    kernel's wall-clock time in the copy's metadata (``lnbook.seconds``; the verification
    page shows it; stored chapters never carry it)."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    run(nb, path.parent, allow_errors=True)
    nb.metadata["lnbook"] = {"seconds": round(time.perf_counter() - start, 1)}
    nbformat.write(nb, folder / path.name)


def jobs() -> int:
    """Chapters executed at once: one per CPU this process may use (each has its own kernel)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", type=pathlib.Path)
    parser.add_argument("--output-dir", type=pathlib.Path,
                        help="write executed copies here instead of storing the outputs")
    parser.add_argument("--jobs", type=int, default=jobs(), help="chapters at once")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    paths = args.chapters or sorted(BOOK.glob("*.ipynb"))
    if args.output_dir is not None:
        args.output_dir.mkdir(parents=True, exist_ok=True)
    # chapters are independent (a fresh kernel each), so they run side by side; outputs do not
    # depend on it (the book tier executes each chapter again and compares)
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(paths))) as pool:
        if args.output_dir is None:
            done = pool.map(store, paths)
        else:
            done = pool.map(copy, paths, [args.output_dir] * len(paths))
        for path, _ in zip(paths, done):
            print(f"executed {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
