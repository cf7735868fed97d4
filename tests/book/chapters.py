"""Every chapter executed once per configuration, and nbval's comparison of a cell's outputs.

A configuration is an environment for the kernels: the reader's (the caller's without
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE), a portability variant (``VARIANTS``) or the fresh Binder
environment (tests/binder/). ``execute`` runs every chapter of a configuration once with the
project's one executor (``tools/execute.py --output-dir``, in a fresh IPython profile); with
``probe=True`` every kernel first records what it really loaded (``PROBE``).

The comparison is nbval's own (``nbval.plugin.IPyNbCell.compare_outputs``, with nbval's
defaults: metadata, execution counts and PNG/JPEG data are not compared; streams are
coalesced), applied to the executed copy, with nbval's cell markers honoured
(``notebook_policy.py`` allows none today).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import pathlib
import subprocess
import sys
import tempfile
from types import SimpleNamespace

import nbformat
from nbval.plugin import (
    IPyNbCell,
    coalesce_streams,
    find_comment_markers,
    find_metadata_tags,
    nocolors,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
EXECUTE = ROOT / "tools" / "execute.py"
# environment variables this machine sets and a reader's does not; nothing may depend on them
MACHINE_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# what nbval leaves out of the comparison (IPyNbFile.skip_compare without --nbdime)
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name",
                "execution_count", "application/vnd.jupyter.widget-view+json", "image/png",
                "image/jpeg")

# An IPython startup file (and a probe of its own): what this Python loads. Inside a function,
# so that nothing it imports is a name the chapter could use without importing it; ctypes
# asks OpenBLAS itself (no threadpoolctl: the Binder environment has only requirements.txt).
PROBE = r"""
def _lnbook_probe():
    import ctypes, json, os, re, sys
    from numpy._core import _multiarray_umath as mu
    with open("/proc/self/maps") as maps:
        blas = ctypes.CDLL(re.search(r"/\S*openblas\S*\.so\S*", maps.read())[0])
    def call(stem):  # numpy's bundled scipy-openblas prefixes its symbols
        return next(getattr(blas, name) for name in (f"scipy_openblas_{stem}64_",
                                                     f"openblas_{stem}") if hasattr(blas, name))
    call("get_corename").restype = ctypes.c_char_p
    with open(os.environ["LNBOOK_PROBE"], "a") as out:
        out.write(json.dumps({
            "openblas": call("get_corename")().decode(), "threads": call("get_num_threads")(),
            "dispatch": sorted(mu.__cpu_dispatch__),
            "enabled": sorted(t for t in mu.__cpu_dispatch__ if mu.__cpu_features__.get(t)),
            "prefix": sys.prefix}) + "\n")
_lnbook_probe()
del _lnbook_probe
"""


# The portability variants (test_portability.py), each one real CPU generation in both libraries:
# name -> (OPENBLAS_CORETYPE, numpy dispatch targets switched off, the kernel table OpenBLAS
# then reports: this numpy's scipy-openblas runs "Zen" on its Haswell table and "Prescott" on
# its Katmai one). numpy 2.4's x86 targets are X86_V3, X86_V4, AVX512_ICL and AVX512_SPR.
NO_AVX512 = ("X86_V4", "AVX512_ICL", "AVX512_SPR")
ONLY_BASELINE = ("X86_V3", *NO_AVX512)
VARIANTS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "skylakex": ("SkylakeX", (), "SkylakeX"),
    "zen": ("Zen", NO_AVX512, "Haswell"),
    "haswell": ("Haswell", NO_AVX512, "Haswell"),
    "sandybridge": ("Sandybridge", ONLY_BASELINE, "Sandybridge"),
    "prescott": ("Prescott", ONLY_BASELINE, "Katmai"),
}
# the variant the Binder tier runs in its fresh environment: one execution, two guarantees
BINDER_VARIANT = "prescott"


def reader_environment() -> dict[str, str]:
    """The caller's environment without the variables a reader's machine does not set."""
    return {k: v for k, v in os.environ.items() if k not in MACHINE_VARIABLES}


def variant_environment(name: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (the reader's) without any OPENBLAS_* or NPY_* variable, plus the variant's."""
    coretype, disabled, _ = VARIANTS[name]
    env = {k: v for k, v in (env or reader_environment()).items()
           if not k.startswith(("OPENBLAS_", "NPY_"))}
    return {**env, "OPENBLAS_CORETYPE": coretype, "NPY_DISABLE_CPU_FEATURES": " ".join(disabled)}


def check_variant(name: str, found: dict, default: dict) -> None:
    """Fail unless a probe under variant ``name`` shows its kernel table and exactly the
    default's numpy targets minus those it switches off, each a target this numpy knows (it
    ignores a name it does not know without a word)."""
    coretype, disabled, table = VARIANTS[name]
    assert found["openblas"] == table, f"OPENBLAS_CORETYPE={coretype} loaded {found['openblas']}"
    assert set(disabled) <= set(found["dispatch"]), f"numpy's targets: {found['dispatch']}"
    want = [t for t in default["enabled"] if t not in disabled]
    assert found["enabled"] == want, f"numpy targets on: {found['enabled']}, not {want}"


def probe(env: dict[str, str], python: str = sys.executable) -> dict:
    """What a Python started with ``env`` loads (``PROBE``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "probe.jsonl"
        subprocess.run([python, "-c", PROBE], env=dict(env, LNBOOK_PROBE=str(out)), check=True,
                       timeout=120)
        return json.loads(out.read_text())


class Run:
    """One configuration's executed chapters (or why the executor failed)."""

    def __init__(self, home: pathlib.Path, process: subprocess.CompletedProcess):
        self.home = home
        self.process = process

    @functools.cache  # noqa: B019 (a Run lives as long as the session)
    def notebook(self, path: pathlib.Path):
        """The executed copy of the chapter at ``path`` (do not modify it)."""
        target = self.home / "executed" / path.name
        if not target.exists():
            raise AssertionError(
                f"{path.name} was not executed (tools/execute.py exited "
                f"{self.process.returncode}):\n{self.process.stderr[-4000:]}")
        return nbformat.read(target, as_version=4)

    def kernels(self, variant: str, default: dict) -> list[dict]:
        """What every chapter's kernel loaded (``execute(..., probe=True)``), each checked to be
        ``variant``'s code (``check_variant``)."""
        out = self.home / "probe.jsonl"
        found = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        assert len(found) >= len(CHAPTERS), (
            f"{len(found)} of the {len(CHAPTERS)} chapters' kernels reported what they loaded "
            f"(tools/execute.py exited {self.process.returncode}):\n{self.process.stderr[-4000:]}")
        for kernel in found:
            check_variant(variant, kernel, default)
        return found

    def differences(self, config) -> list[str]:
        """Every code cell of every chapter whose executed outputs differ from the stored ones,
        as nbval says it."""
        found = []
        for path in CHAPTERS:
            executed = code_cells(self.notebook(path))
            for index, stored in enumerate(stored_code_cells(path)):
                difference = (cell_difference(stored, executed[index], config)
                              if index < len(executed) else "not executed")
                if difference is not None:
                    found.append(f"{path.name}::Cell {index}: {difference}")
        return found


def execute(home: pathlib.Path, env: dict[str, str], python: str = sys.executable,
            probe: bool = False) -> Run:
    """Execute every chapter with ``python`` in kernels started with ``env`` (and a fresh
    IPython profile under ``home``); with ``probe``, every kernel first runs ``PROBE``."""
    env = dict(env, IPYTHONDIR=str(home / "ipython"))
    if probe:
        startup = home / "ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-lnbook-probe.py").write_text(PROBE)
        env["LNBOOK_PROBE"] = str(home / "probe.jsonl")
    process = subprocess.run(
        [python, str(EXECUTE), "--output-dir", str(home / "executed"), *map(str, CHAPTERS)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    return Run(home, process)


@functools.cache
def stored_code_cells(path: pathlib.Path) -> list:
    """The stored chapter's code cells, as nbval numbers them (read once; do not modify)."""
    return code_cells(nbformat.read(path, as_version=4))


def code_cells(nb) -> list:
    """The code cells, in order (as nbval numbers them: Cell 0, 1, ...)."""
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_options(cell) -> dict:
    """nbval's options for a cell from its markers (comments and tags)."""
    options = dict(find_metadata_tags(cell.metadata))
    options.update(find_comment_markers(cell.source))
    return options


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
    # the attributes nbval's compare_outputs reads from its cell item
    item = SimpleNamespace(config=config, ihook=config.hook, colors=nocolors,
                           parent=SimpleNamespace(skip_compare=SKIP_COMPARE,
                                                  sanitize_patterns={}))
    item.sanitize = lambda s: IPyNbCell.sanitize(item, s)
    item.format_output_compare = lambda key, left, right: IPyNbCell.format_output_compare(
        item, key, left, right)
    test = coalesce_streams(copy.deepcopy(executed.outputs))
    ref = coalesce_streams(copy.deepcopy(stored.outputs))
    if IPyNbCell.compare_outputs(item, test, ref, skip_compare=SKIP_COMPARE):
        return None
    return "Cell outputs differ\n" + "\n".join(item.comparison_traceback)
