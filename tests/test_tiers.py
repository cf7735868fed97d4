"""The runner's rules: a test's tier is its folder and the longest tiers run first
(tests/conftest.py, tests/common.py); in CI and the full command an undeclared skip fails,
naming its reason; the verification page's part counts what the run's JUnit report holds
(tools/verification.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import common
import pytest

sys.path.insert(0, str(common.ROOT / "tools"))
import verification  # noqa: E402

FILES = {
    "tests/audit/test_unit.py": "import pytest\n\ndef test_unit(): pass\n"
    "def test_missing(): pytest.skip('torch is not installed here')\n"
    "def test_tf(): pytest.skip('TensorFlow is not installed here')\n",
    "tests/slow/test_peer.py": "def test_peer(): pass\n",
    "tests/book/test_chapters.py": "import pytest\n\n@pytest.mark.parametrize('chapter', "
    "['gain', 'records'])\ndef test_run(chapter): assert chapter == 'gain'\n",
    "tests/book/test_a.py": "def test_a(): pass\n",
}


def test_a_strict_run_by_tier(tmp_path):
    """`-m` selects by folder; the book tier runs first (tests/audit/, fast, would come first
    by name), in it the file with more tests; an undeclared skip fails, a declared one is a
    skip; and the page's part counts each tier's and each chapter's outcomes."""
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for name in ("tests/conftest.py", "tests/common.py", "pyproject.toml"):
        shutil.copy(common.ROOT / name, tmp_path / name)
    env = {**os.environ, "LNBOOK_STRICT": "1", "CI": ""}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-v", "tests", "-m",
                          "not slow", "--junitxml=run.xml"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    ran = re.findall(r"^tests/(\S+) (PASSED|FAILED|SKIPPED)", run.stdout, re.M)
    assert ran == [("book/test_chapters.py::test_run[gain]", "PASSED"),
                   ("book/test_chapters.py::test_run[records]", "FAILED"),
                   ("book/test_a.py::test_a", "PASSED"),
                   ("audit/test_unit.py::test_unit", "PASSED"),
                   ("audit/test_unit.py::test_missing", "FAILED"),
                   ("audit/test_unit.py::test_tf", "SKIPPED")], run.stdout
    assert "(CI, or the full tools/test): torch is not installed here" in run.stdout
    part = verification.render(tmp_path / "run.xml")
    assert "| fast | 1 | 1 | 1 |" in part and "| book | 2 | 1 | 0 |" in part, part
    assert "| {doc}`gain` | 1 of 1 |" in part and "| {doc}`records` | 0 of 1 |" in part, part
    assert "- fast: TensorFlow is not installed here (1×)" in part, part


@pytest.mark.parametrize(("env", "reason", "outcome"), [
    ({}, "torch is not installed here", "skipped"),  # a single tier, by hand: a skip
    ({"CI": "true"}, "torch is not installed here", "failed"),
    ({"CI": "true"}, "TensorFlow is not installed here", "skipped"),  # declared
])
def test_which_skips_fail(monkeypatch, env, reason, outcome):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("LNBOOK_STRICT", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert common.refused(reason) == (outcome == "failed")
