"""The book tier's chapter runs: each configuration's chapters executed once per session
(tests/book/chapters.py). Each configuration is read by one test file only, so under
pytest-xdist's ``--dist loadfile`` it is executed once, on the worker that runs that file."""

from __future__ import annotations

import pytest
from chapters import execute, reader_environment


@pytest.fixture(scope="session")
def chapter_runs(tmp_path_factory):
    """``chapter_runs(name, env, probe=False)``: the ``Run`` of configuration ``name``,
    executed at its first request."""
    runs = {}

    def run(name: str, env: dict[str, str], probe: bool = False):
        if name not in runs:
            runs[name] = execute(tmp_path_factory.mktemp(name), env, probe=probe)
        return runs[name]

    return run


@pytest.fixture(scope="session")
def default_run(chapter_runs):
    """Every chapter executed in a fresh kernel, in the caller's environment without
    OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (as on a reader's machine)."""
    return chapter_runs("default", reader_environment())
