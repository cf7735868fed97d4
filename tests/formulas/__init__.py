"""The formula checker: every formula a reader sees, parsed as written and evaluated.

- ``source``: the formulas of every page of ``_toc.yml`` (notebook cells, Markdown sections,
  lnbook's docstrings for the API page), read as myst-parser reads them, with the comments
  beside them: ``% formulas: ...`` binds, ``% formula $...$ not checked: <why>`` excuses.
- ``latex.lark``, ``latex``: the grammar of the book's LaTeX, lark's LALR parser, names.
- ``evaluate``: values, environments and the evaluator (the book's linear algebra on numpy).
- ``symbols``: the symbol table, one entry per symbol of ``book/notation.md``, on lnbook.
- ``check``: bindings, definitions and claims; a page's audit; the counts.
- ``sweep``: the mutation sweep, a report run on demand (its docstring says how).

``tests/test_formulas.py`` is the test (fast tier). sympy's LaTeX parser (``parse_latex``,
backend ``lark``) was measured on the book in place of ``latex.lark``: it parsed 273 of the 701
checked formulas whole; it multiplies commutatively (``v v^\\top`` and ``v^\\top v`` become
one product), evaluates ``a b - b a = 0`` to ``True`` while parsing, and took 0.1 to 2 s a
formula against about 0.2 ms here.
"""
