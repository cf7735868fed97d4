"""Every code cell of a chapter gets the label ``cell-<its nbformat id>`` (a survivor of edits
of other cells): the verification page (``tests/verification/build.py``) links each claim to
the cell that checks it with ``{ref}``; on the website it is the cell's anchor, in the PDF a
``\\label``. A link to a cell deleted since the last full test run goes to the cell's chapter
instead (``stale_cell_link``, from the results file), so an author's edit does not break the
build, and tests/verification fails, naming the cells, until a full run regenerates the page.
"""

from __future__ import annotations

import functools
import json
import pathlib

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

logger = logging.getLogger(__name__)
RESULTS = pathlib.Path(__file__).resolve().parent.parent / "tests" / "verification" / "results.json"


class CellLabels(SphinxTransform):
    default_priority = 500

    def apply(self, **kwargs) -> None:
        path = self.env.doc2path(self.env.docname)
        if not str(path).endswith(".ipynb"):
            return
        cells = json.loads(open(path, encoding="utf-8").read())["cells"]
        for container in list(self.document.findall(nodes.container)):
            if container.get("nb_element") != "cell_code" or "cell_index" not in container:
                continue
            cell_id = cells[container["cell_index"]].get("id")
            if not cell_id:
                continue
            label = f"cell-{cell_id}"
            target = nodes.target("", "", ids=[label], names=[label])
            container.parent.insert(container.parent.index(container), target)
            self.document.note_explicit_target(target)


@functools.cache
def _chapter_of_cell() -> dict[str, str]:
    if not RESULTS.exists():
        return {}
    out = {}
    for ch in json.loads(RESULTS.read_text())["chapters"]:
        cells = ([g["cell"] for g in ch["glued"]] + [f["cell"] for f in ch["figures"]]
                 + [a["cell"] for a in ch["asserts"]]
                 + [c for p in ch["prose"] for c in p["cells"]])
        out.update(dict.fromkeys(cells, ch["doc"]))
    return out


def stale_cell_link(app: Sphinx, env, node, contnode):
    """A ``{ref}`` to a ``cell-<id>`` that no longer exists: to the cell's chapter."""
    target = node.get("reftarget", "")
    if node.get("reftype") != "ref" or not target.startswith("cell-"):
        return None
    chapter = _chapter_of_cell().get(target.removeprefix("cell-"))
    if chapter is None or chapter not in env.all_docs:
        return None
    logger.info(f"{node.get('refdoc')}: {target} is gone since the last full test run; "
                f"linked to {chapter}")
    return make_refnode(app.builder, node["refdoc"], chapter, "", contnode)


def setup(app: Sphinx) -> dict:
    app.add_transform(CellLabels)
    app.connect("missing-reference", stale_cell_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
