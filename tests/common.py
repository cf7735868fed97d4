"""What the tests share, imported as `from common import ...`: never import a conftest.py (each
tier folder has its own, and every conftest.py outside a package is the module `conftest`,
each replacing the last)."""

from __future__ import annotations

import os
import pathlib
import re

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the tiers with a folder of their own, longest first: pytest-xdist hands whole files to its
# workers in this order (tools/test), so that the longest start first and small files fill
# the end; the rest is fast
TIERS = ("binder", "book", "site", "slow")

# Records of moderate size and scale: finite, d >= 1; values away from overflow.
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
eps_values = st.floats(min_value=1e-6, max_value=10.0)


def record_arrays(min_d: int = 1, max_d: int = 8, max_lead: int = 2):
    """Arrays of shape (..., d) with up to ``max_lead`` leading axes."""
    shapes = hnp.array_shapes(min_dims=1, max_dims=1 + max_lead, min_side=1, max_side=5).flatmap(
        lambda s: st.integers(min_d, max_d).map(lambda d: s[:-1] + (d,))
    )
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=finite))


def tier_of(parts: tuple[str, ...] | list[str]) -> str:
    """The tier of a test file, from its path's parts relative to the repository."""
    return parts[1] if len(parts) > 2 and parts[0] == "tests" and parts[1] in TIERS else "fast"


def in_ci() -> bool:
    """True in CI (CI set to anything but empty, 0, false or no)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def refused(reason: str) -> bool:
    """In CI and in the full `tools/test` (LNBOOK_STRICT=1) nothing may skip for want of a
    dependency: a skip whose reason ACCEPTED_SKIPS does not declare fails (tests/conftest.py)."""
    strict = in_ci() or bool(os.environ.get("LNBOOK_STRICT"))
    return strict and not any(re.search(pattern, reason) for pattern in ACCEPTED_SKIPS)


# the skips a full run accepts, each with its reason
ACCEPTED_SKIPS = {
    r"^TensorFlow is not installed here": "TensorFlow is not pinned: BERT's TF1 layer has no "
    "wheel for Python 3.11, and the 'bert' convention rests on its cited source",
    r"^the Keras tensorflow backend needs tensorflow": "TensorFlow is not pinned (above)",
    r"^this machine's default code path": "the book tier's own run covers this variant",
    r"^this CPU has no AVX-512": "OpenBLAS cannot load its SkylakeX kernel on this CPU",
}
