r"""The PDF of the whole book (``tools/build-pdf``; checked by tests/site/test_pdf.py): what
the LaTeX build needs beyond Jupyter Book's defaults, for the LaTeX builder only.

- The book's class ``_ext/latex/lnbook.cls`` (named in ``_config.yml``) replaces
  sphinx-jupyterbook-latex's ``jupyterBook.cls``, which needs ``bbm.sty`` (only in Debian's
  1 GiB texlive-fonts-extra) and loads TikZ and pgfplots. SVG figures go through CairoSVG.
- A figure inside a theorem, proof, exercise or solution stays where it stands: those boxes
  are drawn by sphinx-proof and sphinx-exercise, so Sphinx does not know a float there is
  "Not in outer par mode" (a LaTeX error).
- Chapters, figures, equations, theorems and exercises are numbered as on the website: the
  pages of unnumbered parts are unnumbered chapters (``ChapterNumbers``), numbers run by
  chapter (``numfig_secnum_depth`` 1, as for HTML) while the LaTeX writer, which counts from
  ``\part``, resets the counters at each chapter (2), and an exercise's ``{ref}`` label
  carries its number.
- A proof's box is titled "Proof" (sphinx-proof starts its text with "Proof. " instead).
- On the website, every page's download menu offers the PDF (``pdf_link``).
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.latex import LaTeXBuilder
from sphinx.transforms.post_transforms import SphinxPostTransform

PDF_NAME = "lnbook.pdf"  # where tools/build-site puts the PDF in the website
# the extensions whose LaTeX visitors open a box of their own
BOXES = ("sphinx_proof", "sphinx_exercise")


def _without_floats(visit, depart):
    """A node's LaTeX visitors that make every figure inside it stay in place (``[H]``), as
    Sphinx does inside its own admonitions."""

    def visit_box(self, node):
        self.no_latex_floats += 1
        visit(self, node)

    def depart_box(self, node):
        depart(self, node)
        self.no_latex_floats -= 1

    return visit_box, depart_box


def _with_std_label(visit):
    """An exercise's LaTeX visitor that also defines the label ``{ref}`` points to (Sphinx's
    ``docname:label``; sphinx-exercise defines only ``exercise:label``), with the exercise's
    number as the site shows it (``\\lnbooklabel`` in ``_ext/latex/lnbook.cls``)."""

    def visit_exercise(self, node):
        visit(self, node)
        entry = self.builder.env.sphinx_exercise_registry.get(node.get("label"))
        if entry is None or not node.get("ids"):
            return
        docname = entry["docname"]
        number = self.builder.env.toc_fignumbers.get(docname, {}).get("exercise", {}).get(
            node["ids"][0])
        if number:  # before the box's \begin, which its title follows
            target = self.idescape(f"{docname}:{node['ids'][0]}")
            numbered = ".".join(map(str, number))
            self.body.insert(len(self.body) - 1, rf"\lnbooklabel{{{numbered}}}{{{target}}}")

    return visit_exercise


def latex_only(app: Sphinx) -> None:
    """For the LaTeX builder: SVG figures through CairoSVG, the boxes' visitors, and numbering
    by chapter (sphinx-jupyterbook-latex asks for sections, 2, on a book with parts)."""
    if not isinstance(app.builder, LaTeXBuilder):
        return
    app.setup_extension("sphinxcontrib.cairosvgconverter")
    handlers = app.registry.translation_handlers.get("latex", {})
    for name, (visit, depart) in list(handlers.items()):
        if visit.__module__.split(".")[0] in BOXES:
            if name == "exercise_enumerable_node":
                visit = _with_std_label(visit)
            handlers[name] = _without_floats(visit, depart)
    app.config.numfig_secnum_depth = 1


class ChapterNumbers(SphinxPostTransform):
    """Each page of the assembled book starts with ``\\lnbooknumbered`` or
    ``\\lnbookunnumbered`` (``_ext/latex/lnbook.cls``), as the site numbers it or not."""

    builders = ("latex",)
    default_priority = 900

    def run(self, **kwargs) -> None:
        numbered = {doc for doc, numbers in self.env.toc_secnumbers.items() if numbers}
        for start in self.document.findall(addnodes.start_of_file):
            command = r"\lnbooknumbered" if start["docname"] in numbered else r"\lnbookunnumbered"
            start.insert(0, nodes.raw("", command + "\n", format="latex"))


class ProofTitles(SphinxPostTransform):
    """A proof's box without a title gets the one its text starts with ("Proof. ...")."""

    builders = ("latex",)
    default_priority = 900

    def run(self, **kwargs) -> None:
        for box in self.document.findall(nodes.admonition):
            if "proof" not in box["classes"] or any(isinstance(c, nodes.title) for c in box):
                continue
            para = next(iter(box.findall(nodes.paragraph)), None)
            first = next(iter(para.findall(nodes.Text)), None) if para is not None else None
            if first is None or ". " not in first.astext()[:20]:
                continue
            name, rest = first.astext().split(". ", 1)
            first.parent.replace(first, nodes.Text(rest))
            box.insert(0, nodes.title("", name))


def writer_counts_from_parts(app: Sphinx, env) -> None:
    """After numbering: the LaTeX writer, counting from ``\\part``, resets at each chapter (2)."""
    if isinstance(app.builder, LaTeXBuilder):
        app.config.numfig_secnum_depth = 2


def pdf_link(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Every page's download menu offers the whole book's PDF."""
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].append({
                "type": "link",
                "url": context["pathto"](PDF_NAME, 1),
                "text": "book .pdf",
                "tooltip": "Download the whole book as a PDF",
                "icon": "fas fa-file-pdf",
                "label": "download-book-pdf-button",
            })


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", latex_only, priority=900)
    app.connect("env-check-consistency", writer_counts_from_parts)
    app.add_post_transform(ChapterNumbers)
    app.add_post_transform(ProofTitles)
    # after sphinx-book-theme's add_header_buttons (priority 501)
    app.connect("html-page-context", pdf_link, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
