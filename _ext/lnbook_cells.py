"""Every code cell of a chapter gets the label ``cell-<its nbformat id>`` (a survivor of edits
of other cells), so a page can link to the cell that checks a claim with ``{ref}``: on the
website it is the cell's anchor, in the PDF a ``\\label``.
"""

from __future__ import annotations

import json

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform


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


def setup(app: Sphinx) -> dict:
    app.add_transform(CellLabels)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
