"""The book as a Binder user meets it: an environment built from requirements.txt alone.

Binder (repo2docker) installs the root ``requirements.txt`` into a fresh Python (the version
named in ``runtime.txt``), starts Jupyter, and the reader runs a chapter from the ``book/``
folder. These tests do the same without Docker: a new virtual environment, ``pip install -r
requirements.txt`` from the repository root (``-e .`` installs lnbook), then every chapter
executed top to bottom in a ``python3`` kernel of that environment, with ``book/`` as the
working directory. Nothing of the development environment (.venv) is visible to it.

Slow (a minute or two with pip's cache): deselect with ``pytest -m "not binder"``.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("*.ipynb"))

pytestmark = pytest.mark.binder

# Run by the fresh environment's python: execute one chapter as Jupyter would, in book/,
# then ask the kernel where it lives so the test knows the chapter ran in that environment.
RUNNER = r"""
import json, pathlib, re, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

path = pathlib.Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.prefix)"))
client = NotebookClient(nb, timeout=300, kernel_name="python3",
                        resources={"metadata": {"path": str(path.parent)}})
report = {"error": None, "prefix": None}
try:
    client.execute()
except CellExecutionError as err:
    report["error"] = re.sub(r"\x1b\[[0-9;]*m", "", str(err))[-3000:]
else:
    report["prefix"] = "".join(o.get("text", "") for o in nb.cells[-1].outputs).strip()
print("REPORT " + json.dumps(report))
"""


def requires_python() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]


def test_runtime_txt_names_a_supported_python():
    """Binder's Python comes from runtime.txt (repo2docker's default is older than lnbook's
    minimum); the version named there satisfies pyproject's requires-python."""
    runtime = ROOT / "runtime.txt"
    assert runtime.exists(), "runtime.txt (python-X.Y) tells Binder which Python to use"
    m = re.fullmatch(r"python-(\d+)\.(\d+)", runtime.read_text().strip())
    assert m, f"runtime.txt should read python-X.Y, not {runtime.read_text()!r}"
    version = (int(m.group(1)), int(m.group(2)))
    floor = re.fullmatch(r">=\s*(\d+)\.(\d+)", requires_python())
    assert floor, f"unexpected requires-python {requires_python()!r}"
    assert version >= (int(floor.group(1)), int(floor.group(2))), (version, requires_python())


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory):
    """A fresh virtual environment with requirements.txt installed; returns (python, env)."""
    home = tmp_path_factory.mktemp("binder")
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
           and not k.startswith(("JUPYTER", "IPYTHON", "MPL"))}
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PYTHONNOUSERSITE="1",
        # a reader's own Jupyter, IPython and matplotlib settings, fresh as on Binder
        JUPYTER_CONFIG_DIR=str(home / "jupyter-config"),
        JUPYTER_DATA_DIR=str(home / "jupyter-data"),
        JUPYTER_RUNTIME_DIR=str(home / "jupyter-runtime"),
        IPYTHONDIR=str(home / "ipython"),
        MPLCONFIGDIR=str(home / "matplotlib"),
    )
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
         "-r", "requirements.txt"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
    )
    assert install.returncode == 0, f"pip install -r requirements.txt failed:\n{install.stderr}"
    return python, env, venv


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_runs_in_binder_environment(binder_env, path):
    """The chapter executes without error, from book/, in the requirements.txt environment."""
    python, env, venv = binder_env
    run = subprocess.run([str(python), "-c", RUNNER, path.name], cwd=BOOK, env=env,
                         capture_output=True, text=True, timeout=900)
    reports = [line for line in run.stdout.splitlines() if line.startswith("REPORT ")]
    assert run.returncode == 0 and reports, f"runner failed:\n{run.stdout}\n{run.stderr}"
    report = json.loads(reports[-1].removeprefix("REPORT "))
    assert report["error"] is None, f"{path.name} failed in the Binder environment:\n" \
                                    f"{report['error']}"
    assert pathlib.Path(report["prefix"]).resolve() == venv.resolve(), (
        f"the kernel ran in {report['prefix']}, not in the fresh environment {venv}")
