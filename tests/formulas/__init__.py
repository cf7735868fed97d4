"""The formula checker: every formula a reader sees, parsed as written and evaluated.

- ``pages``: the formulas of every page of ``_toc.yml`` (myst-parser's reading of the Markdown;
  notebook cells, Markdown sections, the API page's docstrings), with ``% formulas:`` lines.
- ``latex.lark`` and ``parse``: the grammar of the book's LaTeX and the LALR parser (lark).
- ``evaluate``: values, environments and the evaluator (linear algebra on numpy).
- ``symbols``: the symbol table, one entry per symbol of ``book/notation.md``.
- ``check``: bindings, definitions and claims; a page's audit against ``policy``.
- ``mutate``: the mutants of a checked formula.
- ``report``: the results file, the counts of the testing page, the per-page reports.
- ``cache``: the disk cache of the reading and parsing steps.

``tests/test_formulas.py`` is the test and the command line.
"""
