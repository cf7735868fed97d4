"""The book as a Binder or Colab user meets it: environments made from the repository alone.

Binder (repo2docker) installs the root ``requirements.txt`` into a fresh Python (the version
named in ``runtime.txt``), starts Jupyter, and the reader runs a chapter from the ``book/``
folder. These tests do the same without Docker: a new virtual environment in a temporary
directory (deleted afterwards), ``pip install -r requirements.txt`` from the repository root,
then every chapter executed top to bottom in a ``python3`` kernel of that environment, with
``book/`` as the working directory. Nothing of the development environment (.venv) is visible
to it. When pip fails, the test says why in one line, taken from pip's own error.

Colab opens a chapter in its own environment, without lnbook: the first code cell of every
chapter is the install cell of ``tools/colab_cell.py``. The tests check that each chapter starts
with the cell rendered from ``_config.yml``, that the cell does nothing in the project's
environment, and that in a fresh environment it installs lnbook (from the local checkout,
through ``LNBOOK_PIP_SOURCE``, as the tests reach no repository host).

Slow (a few minutes with pip's cache): ``tools/test binder`` runs them; ``-m "not binder"``
leaves them out.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import Future, ThreadPoolExecutor

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("colab_cell", ROOT / "tools" / "colab_cell.py")
assert _spec is not None and _spec.loader is not None
colab_cell = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(colab_cell)

# Run by the fresh environment's python: execute one chapter as Jupyter would, in book/, with
# the project's one executor (tools/execute.py, which needs only nbformat and nbclient, both in
# requirements.txt through myst-nb), then ask the kernel where it lives so the test knows the
# chapter ran in that environment.
RUNNER = r"""
import json, pathlib, re, sys
import nbformat
from nbclient.exceptions import CellExecutionError

sys.path.insert(0, sys.argv[2])
from execute import run

path = pathlib.Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.prefix)"))
report = {"error": None, "prefix": None}
try:
    run(nb, path.parent, timeout=300)
except CellExecutionError as err:
    report["error"] = re.sub(r"\x1b\[[0-9;]*m", "", str(err))[-3000:]
else:
    report["prefix"] = "".join(o.get("text", "") for o in nb.cells[-1].outputs).strip()
print("REPORT " + json.dumps(report))
"""

# pip's error lines, most telling first: the line that names the real cause
PIP_CAUSES = [
    r"No matching distribution found for .*",
    r"Could not find a version that satisfies the requirement .*",
    r"ResolutionImpossible.*",
    r"Cannot install .* because these package versions have conflicting dependencies.*",
    r"Failed to build .*",
    r"Could not install packages due to an? .*",
    r"HTTP error \d+ .*",
    r"Could not fetch URL .*",
    r"Network is unreachable.*",
]


def pip_failure_reason(stderr: str) -> str:
    """The one line of pip's stderr that says why an install failed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", stderr)
    for cause in PIP_CAUSES:
        m = re.search(cause, text)
        if m:
            return m.group(0).strip()
    errors = [line.strip() for line in text.splitlines() if line.strip().startswith("ERROR")]
    if errors:
        return errors[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "pip exited with an error and printed nothing"


def test_pip_failure_reason_names_the_cause():
    """A registry failure is reported by the line that names it, not pip's whole log."""
    stderr = (
        "WARNING: Location 'file:///opt/x/' is ignored: it is neither a file nor a directory.\n"
        "ERROR: Could not find a version that satisfies the requirement numpy==0.0.1 "
        "(from versions: 2.4.5, 2.4.6)\n"
        "ERROR: No matching distribution found for numpy==0.0.1\n"
    )
    assert pip_failure_reason(stderr) == "No matching distribution found for numpy==0.0.1"
    assert pip_failure_reason("ERROR: something else\n") == "ERROR: something else"
    assert pip_failure_reason("") == "pip exited with an error and printed nothing"


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


def fresh_environment(home: pathlib.Path) -> tuple[pathlib.Path, dict[str, str]]:
    """A new venv under ``home`` and an environment that sees nothing of the caller's."""
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
           and not k.startswith(("JUPYTER", "IPYTHON", "MPL", "OPENBLAS_", "NPY_"))}
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
    return venv, env


@pytest.fixture(scope="module")
def binder_env():
    """A fresh virtual environment with requirements.txt installed; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="lnbook-binder-") as tmp:
        venv, env = fresh_environment(pathlib.Path(tmp))
        python = venv / "bin" / "python"
        install = subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
             "-r", "requirements.txt"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
        )
        if install.returncode != 0:
            print(install.stderr)  # the whole log, in the captured output of the failure
            pytest.fail(f"pip install -r requirements.txt failed: "
                        f"{pip_failure_reason(install.stderr)}", pytrace=False)
        yield python, env, venv


def run_chapter(binder_env, path: pathlib.Path) -> tuple[subprocess.CompletedProcess, dict]:
    python, env, _ = binder_env
    run = subprocess.run([str(python), "-c", RUNNER, path.name, str(ROOT / "tools")], cwd=BOOK,
                         env=env, capture_output=True, text=True, timeout=900)
    reports = [line for line in run.stdout.splitlines() if line.startswith("REPORT ")]
    report = json.loads(reports[-1].removeprefix("REPORT ")) if reports else {}
    return run, report


@pytest.fixture(scope="module")
def binder_runs(request, binder_env):
    """Every selected chapter run in the Binder environment, LNBOOK_EXECUTE_JOBS (2) at a time."""
    selected = [item.callspec.params["path"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")
                and "binder_runs" in getattr(item, "fixturenames", ())]
    pool = ThreadPoolExecutor(max_workers=max(1, int(os.environ.get("LNBOOK_EXECUTE_JOBS", "2"))))
    futures: dict[pathlib.Path, Future] = {}

    def submit(path: pathlib.Path) -> Future:
        if path not in futures:
            futures[path] = pool.submit(run_chapter, binder_env, path)
        return futures[path]

    for path in dict.fromkeys(selected):
        submit(path)
    yield lambda path: submit(path).result()
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.binder
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_runs_in_binder_environment(binder_env, binder_runs, path):
    """The chapter executes without error, from book/, in the requirements.txt environment."""
    _, _, venv = binder_env
    run, report = binder_runs(path)
    assert run.returncode == 0 and report, f"runner failed:\n{run.stdout}\n{run.stderr}"
    assert report["error"] is None, f"{path.name} failed in the Binder environment:\n" \
                                    f"{report['error']}"
    assert pathlib.Path(report["prefix"]).resolve() == venv.resolve(), (
        f"the kernel ran in {report['prefix']}, not in the fresh environment {venv}")


# --------------------------------------------------------------------------------------------
# Colab: the install cell


def test_install_cell_is_rendered_from_the_config():
    """The cell names the repository and branch of _config.yml, and nothing else does."""
    url, branch = colab_cell.repository()
    source = colab_cell.render()
    assert f"git+{url}@{branch}" in source
    assert "lnbook[book]" in source and "LNBOOK_PIP_SOURCE" in source


@pytest.mark.binder
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_starts_with_the_install_cell(path):
    """Every chapter's first code cell is exactly the install cell _config.yml renders.

    A changed repository address therefore fails here until tools/colab_cell.py (or
    tools/execute.py, which calls it) renders the cell again.
    """
    nb = nbformat.read(path, as_version=4)
    first = colab_cell.first_code_cell(nb)
    assert first is not None and first.source == colab_cell.render(), (
        f"{path.name}: the first code cell is not the Colab install cell; run "
        f"python tools/colab_cell.py {path.relative_to(ROOT)} and tools/execute.py")
    assert not first.get("outputs"), "in the environment that stored the outputs it is a no-op"


@pytest.mark.binder
def test_install_cell_does_nothing_where_lnbook_is_installed():
    """In the project's environment the cell runs, prints nothing and installs nothing.

    LNBOOK_PIP_SOURCE points at no package: had the cell called pip, it would have failed.
    """
    env = dict(os.environ, LNBOOK_PIP_SOURCE="file:///nonexistent/lnbook-source")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    run = subprocess.run([sys.executable, "-c", colab_cell.render()], cwd=BOOK, env=env,
                         capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


@pytest.mark.binder
def test_install_cell_installs_lnbook_where_it_is_missing():
    """In a fresh environment the cell installs lnbook and myst-nb (here from a copy of this
    checkout)."""
    with tempfile.TemporaryDirectory(prefix="lnbook-colab-") as tmp:
        venv, env = fresh_environment(pathlib.Path(tmp))
        python = str(venv / "bin" / "python")
        # pip builds a local directory in place (build/, *.egg-info): give it a copy of the
        # package's files so the checkout stays clean
        source = pathlib.Path(tmp) / "lnbook-source"
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, source / name)
        shutil.copytree(ROOT / "lnbook", source / "lnbook",
                        ignore=shutil.ignore_patterns("__pycache__"))
        env["LNBOOK_PIP_SOURCE"] = source.as_uri()
        probe = "import importlib.util as u; print(u.find_spec('lnbook') is None)"
        before = subprocess.run([python, "-c", probe], cwd=tmp, env=env, capture_output=True,
                                text=True)
        assert before.stdout.strip() == "True", "the fresh environment already has lnbook"
        run = subprocess.run([python, "-c", colab_cell.render()], cwd=tmp, env=env,
                             capture_output=True, text=True, timeout=1800)
        if run.returncode != 0:
            print(run.stderr)
            pytest.fail(f"the install cell failed: {pip_failure_reason(run.stderr)}",
                        pytrace=False)
        check = subprocess.run(
            [python, "-c", "import lnbook, myst_nb, matplotlib, mpmath; print(lnbook.__file__)"],
            cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
        assert check.returncode == 0, check.stderr
        assert pathlib.Path(check.stdout.strip()).is_relative_to(venv), check.stdout
