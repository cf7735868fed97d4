"""What the PDF cannot carry, found in the sources (fast: no build needed).

The website and the PDF render the same stored outputs and the same Markdown. An output only
a browser can show (an HTML table whose plain text is ``<IPython.core.display.HTML object>``)
or raw HTML in the prose prints as that placeholder, or as nothing, in the PDF: the source has
to carry both forms (for a table, a Markdown table, ``text/markdown``, which both builds turn
into a real table). So does a formula macro that only KaTeX knows.
"""

from __future__ import annotations

import pathlib
import re
import sys

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "site"))
import pdfbook  # noqa: E402


def html_only_outputs() -> set[tuple[str, str]]:
    found = set()
    for doc, _ in pdfbook.toc():
        nb = pdfbook.notebook(doc)
        for cell in (nb or {}).get("cells", []):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if "text/html" not in data:
                    continue
                plain = "".join(data.get("text/plain", ""))
                other = set(data) - {"text/html", "text/plain"}
                if not other and (not plain or re.fullmatch(r"<[\w.]+ object( at \w+)?>", plain)):
                    found.add((doc, cell.get("id", "")))
    return found


def test_no_output_is_html_only():
    """Every stored output has a form the PDF can print (not only text/html): a table is
    displayed as Markdown (IPython.display.Markdown), which the website and the PDF both
    render."""
    assert html_only_outputs() == set()


def test_no_raw_html_in_the_prose():
    """No page's Markdown carries raw HTML blocks or a ``{raw}`` directive, which the PDF
    would drop."""
    found = []
    for doc, _ in pdfbook.toc():
        text = re.sub(r"```.*?```", "", pdfbook.markdown(doc), flags=re.S)  # not code
        for m in re.finditer(r"^\s*<(div|table|details|iframe|span|p|img)\b|\{raw\}", text, re.M):
            found.append((doc, m.group(0).strip()))
    assert found == []


def test_formula_macros_are_known_to_latex_too():
    """A macro KaTeX is given (``katex_macros``) is also defined for LaTeX (the PDF's
    preamble), so no formula depends on the website's renderer."""
    config = yaml.safe_load((pdfbook.ROOT / "_config.yml").read_text())["sphinx"]["config"]
    macros = config.get("katex_macros") or {}
    preamble = config.get("latex_elements", {}).get("preamble", "")
    missing = [m for m in macros if not re.search(
        rf"\\(?:newcommand|renewcommand|def|DeclareMathOperator)\*?\{{?\\{m.lstrip(chr(92))}\b",
        preamble)]
    assert missing == []


def test_build_pdf_names_the_packages_it_cannot_install(tmp_path):
    """tools/build-pdf, not root and missing its toolchain, stops before building and names
    the Debian packages and the command that installs them (as root it would run apt-get)."""
    import os
    import subprocess

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dpkg-query").write_text("#!/bin/sh\necho 'unknown ok not-installed'\n")
    (fake / "id").write_text("#!/bin/sh\necho 1000\n")
    for tool in fake.iterdir():
        tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "LNBOOK_NO_SETUP": "1"}
    run = subprocess.run([str(pdfbook.ROOT / "tools" / "build-pdf")], env=env, text=True,
                         capture_output=True, timeout=60)
    assert run.returncode == 1
    assert ("missing Debian packages: texlive-xetex texlive-latex-extra "
            "texlive-fonts-recommended latexmk") in run.stderr
    assert "sudo apt-get install --no-install-recommends texlive-xetex" in run.stderr
    assert "jupyter-book" not in run.stdout + run.stderr
