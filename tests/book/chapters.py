"""Every chapter executed once per configuration, and nbval's comparison of a cell's outputs.

A configuration is an environment for the kernels: the book tier's default (the caller's
environment without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, as on a reader's machine) or a
portability variant (tests/test_portability.py). ``Runs`` executes all chapters of a
configuration once, with the one executor of the project (``tools/execute.py --output-dir``,
chapters side by side, ``LNBOOK_EXECUTE_JOBS`` at a time, default one per CPU), and every check
of that configuration reads the same executed copies: the per-cell comparison with the stored
outputs, the glue guard, the portability probes. Configurations run one after another, in the
order they are asked for, on a background thread while the tests already read the finished
ones.

The comparison is nbval's own (``nbval.plugin.IPyNbCell.compare_outputs``, with nbval's
defaults: metadata, execution counts and PNG/JPEG data are not compared; streams are
coalesced), applied to the executed copy instead of to nbval's own kernel run, and with nbval's
cell markers honoured (``tests/notebook_policy.py`` allows none today).
"""

from __future__ import annotations

import copy
import functools
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import SimpleNamespace

import nbformat
from nbval.plugin import (
    IPyNbCell,
    coalesce_streams,
    find_comment_markers,
    find_metadata_tags,
    nocolors,
)

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
EXECUTE = ROOT / "tools" / "execute.py"
# environment variables a reader's machine does not set; nothing may depend on them
MACHINE_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# what nbval leaves out of the comparison (IPyNbFile.skip_compare without --nbdime)
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name",
                "execution_count", "application/vnd.jupyter.widget-view+json", "image/png",
                "image/jpeg")


def default_environment() -> dict[str, str]:
    """The caller's environment without the variables a reader's machine does not set."""
    return {k: v for k, v in os.environ.items() if k not in MACHINE_VARIABLES}


def execute_jobs() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return max(1, int(os.environ.get("LNBOOK_EXECUTE_JOBS", cpus)))


class Run:
    """One configuration's executed chapters (or why the executor failed)."""

    def __init__(self, folder: pathlib.Path, process: subprocess.CompletedProcess):
        self.folder = folder
        self.process = process
        self._read: dict[str, object] = {}

    def notebook(self, path: pathlib.Path):
        """The executed copy of the chapter at ``path`` (read once; do not modify it); fails
        saying why it is missing."""
        if path.name not in self._read:
            self._read[path.name] = self._load(path)
        return self._read[path.name]

    def _load(self, path: pathlib.Path):
        target = self.folder / path.name
        if not target.exists():
            raise AssertionError(
                f"{path.name} was not executed (tools/execute.py exited "
                f"{self.process.returncode}):\n{self.process.stderr[-4000:]}")
        return nbformat.read(target, as_version=4)


class Runs:
    """Execute each configuration's chapters once; ``get(name)`` waits for its ``Run``."""

    def __init__(self, folder: pathlib.Path):
        self.folder = folder
        self.lanes = min(2, execute_jobs())
        self.pool = ThreadPoolExecutor(max_workers=self.lanes)
        self.futures: dict[str, Future] = {}
        self.lock = threading.Lock()

    def submit(self, name: str, environment: Callable[[pathlib.Path], dict[str, str]]) -> Future:
        """Start (once) the run of configuration ``name``; ``environment(home)`` makes its
        kernels' environment, ``home`` a fresh folder of its own."""
        with self.lock:
            if name not in self.futures:
                self.futures[name] = self.pool.submit(self._run, name, environment)
            return self.futures[name]

    def get(self, name: str) -> Run:
        return self.futures[name].result()

    def _run(self, name: str, environment) -> Run:
        home = pathlib.Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.folder))
        out = home / "executed"
        process = subprocess.run(
            [sys.executable, str(EXECUTE), "--output-dir", str(out),
             "--jobs", str(max(1, execute_jobs() // self.lanes)), *map(str, CHAPTERS)],
            cwd=ROOT, env=environment(home), capture_output=True, text=True, timeout=3600,
        )
        return Run(out, process)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


@functools.cache
def stored_code_cells(path: pathlib.Path) -> list:
    """The stored chapter's code cells, in order, as nbval numbers them (Cell 0, 1, ...); read
    once (do not modify them)."""
    return code_cells(nbformat.read(path, as_version=4))


def code_cells(nb) -> list:
    """The code cells, in order (as nbval numbers them: Cell 0, 1, ...)."""
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_options(cell) -> dict:
    """nbval's options for a cell from its markers (comments and tags)."""
    options = dict(find_metadata_tags(cell.metadata))
    options.update(find_comment_markers(cell.source))
    return options


def _comparer(config) -> SimpleNamespace:
    """The attributes nbval's compare_outputs reads from its cell item."""
    comparer = SimpleNamespace(config=config, ihook=config.hook, colors=nocolors,
                               parent=SimpleNamespace(skip_compare=SKIP_COMPARE,
                                                      sanitize_patterns={}))
    comparer.sanitize = lambda s: IPyNbCell.sanitize(comparer, s)
    comparer.format_output_compare = lambda key, left, right: IPyNbCell.format_output_compare(
        comparer, key, left, right)
    return comparer


def cell_difference(stored, executed, config) -> str | None:
    """Why an executed cell does not reproduce its stored outputs, as nbval would say it;
    None when it does. ``config`` is pytest's (nbval formats differences with its hook)."""
    options = cell_options(stored)
    if options.get("skip"):
        return None
    errors = [o for o in executed.outputs if o.output_type == "error"]
    if errors and not options.get("check_exception"):
        return ("Cell execution caused an exception:\n"
                + "\n".join(errors[0].get("traceback", [])))
    if stored.execution_count is None:
        return "Unrun reference cell has outputs" if stored.outputs else None
    if not options.get("check", True):  # NBVAL_IGNORE_OUTPUT
        return None
    comparer = _comparer(config)
    test = coalesce_streams(copy.deepcopy(executed.outputs))
    ref = coalesce_streams(copy.deepcopy(stored.outputs))
    if IPyNbCell.compare_outputs(comparer, test, ref, skip_compare=SKIP_COMPARE):
        return None
    return "Cell outputs differ\n" + "\n".join(comparer.comparison_traceback)
