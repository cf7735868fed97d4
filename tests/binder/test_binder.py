"""The book as a Binder or Colab reader meets it: ONE fresh environment made from the repository
alone, every chapter executed in it and every output compared, as the book tier does.

Binder (repo2docker) installs the root ``requirements.txt`` into the Python of ``runtime.txt``
(the whole repository in place first, since the file installs lnbook with ``-e .``), runs
``postBuild`` (matplotlib's font cache), and the reader runs a chapter from ``book/``. This
tier does the same without Docker: a new virtual environment in a temporary directory, ``pip
install -r requirements.txt`` from the repository root, ``postBuild``, then every chapter
executed by that environment's Python (``tools/execute.py``) and compared cell by cell with
nbval's comparison (``tests/book/chapters.py``). Its kernels run on the portability tier's
oldest code path (``chapters.BINDER_VARIANT``): one execution, two guarantees. When a cell
differs, the failure names the pinned packages at other versions than in .venv and the command
that runs the same code path there, so the two causes stay apart. pip installs with
``--no-compile`` (bytecode is written at first import; no output depends on it) and
``PIP_RETRIES=0`` (an unreachable index fails over at once).

The Colab install cell (``tools/colab_cell.py``) is checked too: it does nothing in this
environment, installs lnbook here where it is missing (from a copy of this checkout, through
``LNBOOK_PIP_SOURCE``), and asks for every pin where a version differs.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import tomllib

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "book"), str(ROOT / "tools")]
import colab_cell  # noqa: E402
from chapters import (  # noqa: E402
    BINDER_VARIANT,
    CHAPTERS,
    VARIANTS,
    execute,
    probe,
    variant_environment,
)

VERSIONS = ("import importlib.metadata as m, json; "
            "print(json.dumps({d.metadata['Name'].lower(): d.version for d in m.distributions()}))")


def pip_error(stderr: str) -> str:
    """The line of pip's stderr that says why it failed."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return ([line for line in lines if line.startswith("ERROR")] or lines or ["(no output)"])[-1]


def test_runtime_txt_names_a_supported_python():
    """Binder's Python comes from runtime.txt; it satisfies pyproject's requires-python."""
    m = re.fullmatch(r"python-(\d+)\.(\d+)", (ROOT / "runtime.txt").read_text().strip())
    assert m, "runtime.txt should read python-X.Y"
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert (int(m[1]), int(m[2])) >= tuple(map(int, floor.removeprefix(">=").split("."))), floor


def test_every_chapter_starts_with_the_install_cell():
    """Every chapter's first code cell is exactly the cell tools/colab_cell.py renders, with no
    output (it did nothing where the outputs were stored)."""
    stale = [p.name for p in CHAPTERS
             if (c := colab_cell.first_code_cell(nbformat.read(p, as_version=4))) is None
             or c.source != colab_cell.render() or c.outputs]
    assert not stale, f"{stale}: run python tools/colab_cell.py, then tools/execute.py"


@pytest.fixture(scope="module")
def binder(tmp_path_factory):
    """The fresh environment: (python, env, venv, made), made once and removed afterwards (it
    is large); its size and making time are printed and kept as user properties."""
    home = tmp_path_factory.mktemp("binder")
    venv = home / "venv"
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                        "PYTHONDONTWRITEBYTECODE")
           and not k.startswith(("JUPYTER", "IPYTHON", "MPL", "OPENBLAS_", "NPY_"))}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PYTHONNOUSERSITE="1", PIP_RETRIES="0", MPLCONFIGDIR=str(home / "matplotlib"),
               JUPYTER_CONFIG_DIR=str(home / "jupyter"), JUPYTER_DATA_DIR=str(home / "jupyter"))
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # this Python's pip installs into the venv (and pip itself, which the Colab cell calls)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile",
         "-r", "requirements.txt", "pip"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    if install.returncode != 0:
        print(install.stderr)
        pytest.fail(f"pip install -r requirements.txt failed: {pip_error(install.stderr)}",
                    pytrace=False)
    subprocess.run([str(ROOT / "postBuild")], cwd=ROOT, env=env, check=True, timeout=600)
    seconds = time.monotonic() - start
    size = subprocess.run(["du", "-sm", str(venv)], capture_output=True, text=True).stdout
    made = [("environment MB", int(size.split()[0])), ("environment seconds", round(seconds))]
    print(f"the Binder environment: {made}")
    yield python, env, venv, made
    shutil.rmtree(venv)


def run_cell(binder, **variables) -> subprocess.CompletedProcess:
    """Run the install cell with the environment's Python."""
    python, env, _, _ = binder
    return subprocess.run([python, "-c", colab_cell.render()], cwd=ROOT / "book",
                          env={**env, **variables}, capture_output=True, text=True, timeout=1800)


def test_install_cell_does_nothing_where_everything_is_right(binder, request):
    """In the Binder environment the cell prints nothing and installs nothing: it would have
    failed, had it called pip with this source."""
    request.node.user_properties.extend(binder[3])
    run = run_cell(binder, LNBOOK_PIP_SOURCE="file:///nonexistent/lnbook-source")
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_chapters_reproduce_in_the_binder_environment(binder, pytestconfig):
    """Every chapter, executed in the fresh environment on the variant's code path, reproduces
    every stored output, cell by cell."""
    python, env, venv, _ = binder
    run = execute(venv.parent / "run", variant_environment(BINDER_VARIANT, env), python,
                  probe=True)
    for kernel in run.kernels(BINDER_VARIANT, probe(env, python)):
        assert pathlib.Path(kernel["prefix"]) == venv, f"a kernel ran in {kernel['prefix']}"
    differ = run.differences(pytestconfig)
    if differ:
        fresh = json.loads(subprocess.run([python, "-c", VERSIONS], env=env, capture_output=True,
                                          text=True, check=True).stdout)
        ours = {d.metadata["Name"].lower(): d.version for d in importlib.metadata.distributions()}
        other = [f"{n} {ours.get(n)} in .venv, {fresh.get(n)} here" for n in colab_cell.pins()
                 if ours.get(n) != fresh.get(n)]
        coretype, disabled, _ = VARIANTS[BINDER_VARIANT]
        pytest.fail(
            f"{len(differ)} cells differ in the Binder environment (OPENBLAS_CORETYPE="
            f"{coretype}, numpy without {' '.join(disabled)}). Pinned packages at other "
            f"versions than in .venv: {other or 'none'}. The same code path in .venv: "
            f"OPENBLAS_CORETYPE={coretype} NPY_DISABLE_CPU_FEATURES='{' '.join(disabled)}' "
            ".venv/bin/python tools/execute.py --output-dir /tmp/x book/NAME.ipynb\n\n"
            + "\n\n".join(differ)[-6000:], pytrace=False)


def test_install_cell_installs_the_pins_where_a_version_differs():
    """Where one pinned package has another version (Colab's keras), the cell asks pip for
    lnbook and every pin, PyTorch's from its CPU index (pip itself is not called here)."""
    patch = ("import importlib.metadata as m, json, subprocess\n_v = m.version\n"
             "m.version = lambda n: '3.0.0' if n == 'keras' else _v(n)\n"
             "subprocess.run = lambda args, **kw: print(json.dumps(args))\n")
    run = subprocess.run([sys.executable, "-c", patch + colab_cell.render()], capture_output=True,
                         text=True, env=dict(os.environ, LNBOOK_PIP_SOURCE="file:///src"))
    assert run.returncode == 0, run.stderr
    args = json.loads(run.stdout)
    assert args[args.index("--extra-index-url") + 1] == colab_cell.CPU_INDEX
    assert "lnbook[book,frameworks] @ file:///src" in args
    assert {f"{n}=={v}" for n, v in colab_cell.pins().items() if n != "lnbook"} <= set(args)


def test_install_cell_installs_lnbook_where_it_is_missing(binder, tmp_path):
    """Where lnbook is missing, the cell installs it (from a copy of this checkout: pip builds
    in place). Last in this file: it replaces the environment's lnbook."""
    python, env, venv, _ = binder
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "uninstall", "--quiet",
                    "-y", "lnbook"], env=env, check=True)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "lnbook", tmp_path / "lnbook",
                    ignore=shutil.ignore_patterns("__pycache__"))
    run = run_cell(binder, LNBOOK_PIP_SOURCE=tmp_path.as_uri())
    assert run.returncode == 0, f"the install cell failed: {pip_error(run.stderr)}"
    where = subprocess.run([python, "-c", "import lnbook; print(lnbook.__file__)"],
                           cwd=tmp_path.parent,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert pathlib.Path(where.strip()).is_relative_to(venv), where
