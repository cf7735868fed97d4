"""Execute chapters in a fresh kernel, top to bottom: the one notebook executor (nbclient).

Usage:
    python tools/execute.py [book/chapter.ipynb ...]       store: re-execute, write in place
    python tools/execute.py --output-dir DIR [chapters]    test: write executed copies to DIR

Store (every chapter when none is named), after changing lnbook or a chapter: each chapter gets
the Colab install cell (tools/colab_cell.py) first and runs without OPENBLAS_CORETYPE /
OPENBLAS_L2_SIZE, as on a reader's machine. Test: errors are kept as outputs, and the kernel gets
this process's environment (tests/book/chapters.py chooses it); needs only nbformat and nbclient,
so the Binder tier runs it with its fresh environment's Python. Chapters run side by side,
as many at once as CPUs, each in its own kernel.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

BOOK = pathlib.Path(__file__).resolve().parent.parent / "book"
# a reader's machine sets neither; stored outputs must not depend on them
MACHINE_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def run(nb, cwd: pathlib.Path, env: dict[str, str], allow_errors: bool = False):
    """Execute ``nb`` in place in a fresh kernel, without timing stamps (CellExecutionError at the
    first failing cell unless ``allow_errors``); join consecutive streams of one name, which a
    kernel splits as timing has it."""
    # the kernel's sockets are files of its own (ipc), not TCP ports: two kernels started at
    # once picked the same free port under load ("Kernel didn't respond in 60 seconds")
    with tempfile.TemporaryDirectory(prefix="lnbook-kernel-") as sockets:
        config = Config({"KernelManager": {"transport": "ipc", "ip": f"{sockets}/k"}})
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=allow_errors,
                       record_timing=False, resources={"metadata": {"path": str(cwd)}},
                       config=config).execute(env=env)
    for cell in nb.cells:
        if cell.cell_type == "code":
            merged: list = []
            for out in cell.outputs:
                if merged and out.output_type == merged[-1].output_type == "stream" \
                        and out.name == merged[-1].name:
                    merged[-1].text += out.text
                else:
                    merged.append(out)
            cell.outputs = merged


def store(path: pathlib.Path) -> None:
    """Re-execute a chapter as a reader's machine would and write it back with its outputs."""
    import colab_cell  # beside this script; needs yaml, which only this mode uses

    nb = nbformat.read(path, as_version=4)
    colab_cell.ensure(nb)
    run(nb, path.parent, {k: v for k, v in os.environ.items() if k not in MACHINE_VARIABLES})
    nbformat.write(nb, path)


def copy(path: pathlib.Path, folder: pathlib.Path) -> None:
    """Execute a chapter, errors kept as outputs, into ``folder``, with the kernel's wall-clock
    seconds in the copy's metadata (``lnbook.seconds``, for the verification page)."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    run(nb, path.parent, dict(os.environ), allow_errors=True)
    nb.metadata["lnbook"] = {"seconds": round(time.perf_counter() - start, 1)}
    nbformat.write(nb, folder / path.name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", type=pathlib.Path)
    parser.add_argument("--output-dir", type=pathlib.Path,
                        help="write executed copies here instead of storing the outputs")
    args = parser.parse_args()
    paths = args.chapters or sorted(BOOK.glob("*.ipynb"))
    if args.output_dir is not None:
        args.output_dir.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=min(len(os.sched_getaffinity(0)), len(paths))) as pool:
        done = pool.map(store, paths) if args.output_dir is None else \
            pool.map(copy, paths, [args.output_dir] * len(paths))
        for path, _ in zip(paths, done):
            print(f"executed {path}", flush=True)
