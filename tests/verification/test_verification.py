"""The verification page (book/verification.md) is the committed results file, rendered.

``tests/verification/build.py`` writes ``tests/verification/results.json`` from the records of
a full ``tools/test`` run and the page's part from that file alone; these tests render the
part again and compare, check that the results cover every chapter with a real run behind it,
and check the record-to-results path on a made-up run (so that a mapping that finds nothing
fails here, not silently on the page).
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from verification import build, record


@pytest.fixture(scope="module")
def results():
    return json.loads(build.RESULTS.read_text())


def test_page_is_the_committed_results_rendered(results):
    """book/_generated/verification_results.md is exactly build.render(results.json)."""
    assert build.PAGE_PART.read_text() == build.render(results), (
        "the verification page differs from its results file: "
        "python tests/verification/build.py --render")


def test_page_is_in_the_toc_and_includes_the_part():
    assert "book/verification" in build.ROOT.joinpath("_toc.yml").read_text()
    page = build.ROOT.joinpath("book", "verification.md").read_text()
    assert "```{include} _generated/verification_results.md" in page


def test_results_cover_every_chapter_with_a_run_behind_each(results):
    """Every notebook chapter of the toc has a row; the run compared the outputs of each
    chapter's cells and passed every guard; every portability variant passed but those this
    CPU cannot load and those that load its own default code path (the plain run covers them),
    each skipped for that reason, and at least two ran. (Failures elsewhere in the run show on
    the page; refusing them here would refuse the next run's page too, since the failure of
    this very test would be part of it.)"""
    assert [c["doc"] for c in results["chapters"]] == [d for d, _ in build.toc_chapters()]
    for ch in results["chapters"]:
        ex = ch["execution"]
        assert ex["cells failed"] == 0, ch["doc"]
        assert 0 < ex["cells compared"] <= ch["code cells"], ch["doc"]
        assert ch["guards"] and all(g["outcome"] == "passed" for g in ch["guards"].values())
    variants = results["portability"]
    outcomes = [v["outcome"] for v in variants.values()]
    assert set(outcomes) <= {"passed", "skipped"} and outcomes.count("passed") >= 2, variants
    # the reasons of tests/test_portability.py's unavailable() and covered_by_default()
    assert all(v["reason"].startswith(("this CPU has no AVX-512: ",
                                       "this machine's default code path ("))
               for v in variants.values() if v["outcome"] == "skipped"), variants


def test_every_link_points_at_a_shown_cell_of_its_chapter(results):
    """Each cell the page links to exists in its chapter and is shown on the website (a
    removed cell has no anchor); glued values and figures are the chapter's own."""
    for ch in results["chapters"]:
        nb = nbformat.read(build.ROOT / f"{ch['doc']}.ipynb", as_version=4)
        shown = {c.id for c in nb.cells if c.cell_type == "code"
                 and not set(build.REMOVED) & set(c.metadata.get("tags", []))}
        linked = ({g["cell"] for g in ch["glued"]} | {f["cell"] for f in ch["figures"]}
                  | {a["cell"] for a in ch["asserts"]}
                  | {c for p in ch["prose"] for c in p["cells"]})
        assert linked <= shown, (
            f"{ch['doc']}: cells gone since the last full run, {sorted(linked - shown)} (the "
            "site links them to the chapter meanwhile): a full tools/test run rewrites the page")


def _record(tmp_path, run, tests, tier="book"):
    data = {"run": run, "tier": tier, "args": [], "start": 1.0, "seconds": 2.0,
            "exitstatus": 0, "machine": record.machine(), "packages": {"numpy": "x"},
            "tests": tests}
    (tmp_path / f"{tier}.json").write_text(json.dumps(data))


def test_a_made_up_run_becomes_results_and_a_page(tmp_path, monkeypatch):
    """Records of a run -> results: nbval's cells of a chapter are counted and timed, a failed
    cell is reported, a guard and a portability variant are found, another run's records are
    left out; the page names the failure."""
    monkeypatch.setattr(build, "RECORDS", tmp_path)
    stem = build.toc_chapters()[0][0].split("/")[-1]
    cell = f"tests/test_notebooks.py::test_cell_reproduces[{stem}-cell-{{}}]"
    tests = {cell.format(0): {"outcome": "passed", "seconds": 1.5},
             cell.format(1): {"outcome": "failed", "seconds": 0.5},
             f"tests/test_notebooks.py::test_executed_in_a_fresh_kernel[{stem}]":
                 {"outcome": "passed", "seconds": 0.1, "properties": {"kernel seconds": 4.2}},
             f"tests/test_notebooks.py::test_python_kernel[{stem}]":
                 {"outcome": "passed", "seconds": 0.1},
             "tests/test_portability.py::test_chapters_reproduce_under[haswell]":
                 {"outcome": "passed", "seconds": 9.0}}
    _record(tmp_path, "R1", tests)
    _record(tmp_path, "R0", {cell.format(2): {"outcome": "passed", "seconds": 1}},
            tier="slow")
    data = build.results(build.load_run("R1"))
    first = data["chapters"][0]
    assert first["execution"] == {"cells compared": 1, "cells failed": 1, "seconds": 4.2}
    assert list(first["guards"]) == ["test_python_kernel"]
    assert data["portability"]["haswell"]["kernel loaded"] == "Haswell"
    assert list(data["run"]["tiers"]) == ["book"]
    page = build.render(data)
    assert "**1 failed**" in page
    assert re.search(r"\| haswell \| Haswell \| Haswell \|", page)


def test_record_captures_outcomes(tmp_path, monkeypatch):
    """The plugin keeps the worst outcome of a test's phases and adds their durations."""

    class Report:
        def __init__(self, nodeid, outcome, duration):
            self.nodeid, self.duration = nodeid, duration
            self.failed, self.skipped = outcome == "failed", outcome == "skipped"
            self.longrepr = ("f.py", 1, "Skipped: why") if self.skipped else None

    class Config:
        class invocation_params:  # noqa: N801 (pytest's attribute name)
            args = ("tests",)

    rec = record.Recorder(Config())
    for outcome, seconds in (("passed", 0.25), ("failed", 0.5), ("passed", 0.25)):
        rec.pytest_runtest_logreport(Report("t::a", outcome, seconds))
    rec.pytest_runtest_logreport(Report("t::b", "skipped", 0.0))
    assert rec.tests == {"t::a": {"outcome": "failed", "seconds": 1.0},
                         "t::b": {"outcome": "skipped", "seconds": 0.0, "reason": "why"}}
    monkeypatch.setattr(record, "RECORDS", tmp_path)
    monkeypatch.setenv("LNBOOK_RUN_ID", "R9")
    rec.pytest_sessionfinish(None, 0)
    (written,) = tmp_path.glob("*.json")
    assert json.loads(written.read_text())["run"] == "R9"
