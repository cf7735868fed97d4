"""The ONE place where the notebook guards (test_notebooks.py) allow an exception, each with its
reason. Adding one is a review decision: prefer gluing the number, or making the code cell beside
the prose print or assert it.

* ``EXEMPT_PROSE``: ``(regex, reason)``; text the prose audit removes from every markdown cell
  before it looks for numbers, because the number in it is a name, not a quantity.
* ``EXEMPT_TOKENS``: ``{(chapter stem, markdown cell id): {token: reason}}``. Empty today.
* ``ALLOWED_NBVAL_MARKERS``: ``{(chapter stem, cell id, marker): reason}`` for ``# NBVAL_*``
  comments and ``nbval-*``/``raises-exception`` tags. None today: every cell is compared.
"""

from __future__ import annotations

# a library named with its version ("torch 2.13.0"); tests/test_testing_page.py checks that
# each is the pinned version
LIBRARY_VERSION = (
    r"\b(?:NumPy|numpy|PyTorch|torch|JAX|jax|jaxlib|Flax|flax|Keras|keras|Python|matplotlib"
    r"|OpenBLAS|mpmath|myst-nb|MyST-NB|Jupyter Book|jupyter-book|hypothesis|Hypothesis)"
    r"(?:'s)? (?:version )?v?\d+(?:\.\d+)+\b"
)

EXEMPT_PROSE: list[tuple[str, str]] = [
    (r"\bIEEE[ -]?754(?:-\d{4})?\b", "the name of the floating-point standard, not a quantity"),
    (r"\bx86[-_]64\b", "the name of an instruction-set architecture"),
    (r"\bAVX-?512\w*", "the name of an instruction-set extension"),
    (r"§\s?\d+(?:\.\d+)*|\b(?:eq|Eq|equation|Equation|Table|Section|Algorithm)\.?\s?\(?\d+\)?",
     "a section, equation, table or algorithm number of a cited work names a place in it, "
     "not a quantity"),
    (
        LIBRARY_VERSION,
        "a library version names the release a fact was checked against (cited in the "
        "bibliography), it is not a computed number",
    ),
]

EXEMPT_TOKENS: dict[tuple[str, str], dict[str, str]] = {}

ALLOWED_NBVAL_MARKERS: dict[tuple[str, str, str], str] = {}
