"""Guards that nbval lacks: chapters stored executed, in order, cleanly, and prose tied to code.

nbval re-runs each chapter and compares outputs with the stored ones, but it passes a cell
that was never run (no stored output to compare) and never compares images. These tests
close the first hole; ``test_plotting.py`` closes the second by checking the plotted data.
"""

from __future__ import annotations

import pathlib
import re

import nbformat
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
# decimal numbers in prose, e.g. 99.5037 or 0.5 (integers are too common to audit)
DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?![\w.])")


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [toc["root"]] + [entry["file"] for entry in toc["chapters"]]


@pytest.fixture(params=CHAPTERS, ids=[p.stem for p in CHAPTERS])
def chapter(request):
    return nbformat.read(request.param, as_version=4)


def test_every_chapter_is_in_the_toc():
    """Every notebook under book/ is a chapter of the book, and every toc entry exists."""
    listed = set(toc_files())
    assert {f"book/{p.stem}" for p in CHAPTERS} <= listed
    for entry in listed:
        assert any((ROOT / f"{entry}{ext}").exists() for ext in (".ipynb", ".md")), entry


def test_cells_executed_in_order(chapter):
    """Every code cell was run, once, top to bottom in a fresh kernel: counts are 1..n."""
    counts = [c.execution_count for c in code_cells(chapter)]
    assert counts, "a chapter without code computes nothing"
    assert None not in counts, f"{counts.count(None)} code cells were never executed"
    assert counts == list(range(1, len(counts) + 1)), f"execution counts {counts}"


def test_no_stored_errors_or_warnings(chapter):
    """No stored output is an error or a stderr stream (warnings carry temporary paths)."""
    for cell in code_cells(chapter):
        for out in cell.outputs:
            assert out.output_type != "error", f"{out.ename}: {out.evalue}"
            assert out.get("name") != "stderr", out.text


def test_python_kernel(chapter):
    """Chapters run on the python3 kernel that nbval and Binder start."""
    assert chapter.metadata["kernelspec"]["name"] == "python3"


def test_prose_numbers_are_computed(chapter):
    """Each decimal number in the prose appears in a code cell or its stored output.

    Numbers in prose should be glued; where one is written out, the cell beside it must
    print or assert the same digits, so editing either side breaks this test or nbval.
    """
    evidence = []
    for cell in code_cells(chapter):
        evidence.append(cell.source)
        for out in cell.outputs:
            evidence.append(out.get("text", ""))
            evidence.append(str(out.get("data", {}).get("text/plain", "")))
    evidence = "\n".join(evidence)
    missing = []
    for cell in chapter.cells:
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"\{cite:[tp]\}`[^`]*`|\(arXiv:[^)]*\)|§[\d.]+", "", cell.source)
        for number in DECIMAL.findall(prose):
            # the same number in the evidence, trailing zeros allowed (0.375 in 0.375000),
            # but not a prefix of another number (99.5037 is not in 99.50372)
            digits = re.escape(number.lstrip("-"))
            if not re.search(rf"(?<![\d.]){digits}0*(?!\d)", evidence):
                missing.append(number)
    assert not missing, f"numbers in the prose that no cell computes: {missing}"


def test_glued_names_are_defined(chapter):
    """Every {glue} reference in the prose names a value a code cell glues."""
    glued = set()
    for cell in code_cells(chapter):
        glued |= set(re.findall(r"glue\(\s*[\"']([^\"']+)[\"']", cell.source))
    used = set()
    for cell in chapter.cells:
        if cell.cell_type == "markdown":
            used |= set(re.findall(r"\{glue:\w+\}`([^`:]+)", cell.source))
            used |= set(re.findall(r"```\{glue:figure\}\s+(\S+)", cell.source))
    assert used <= glued, f"glue names used but never glued: {sorted(used - glued)}"
