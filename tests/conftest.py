"""What every test shares: its tier (from its folder), the hypothesis profile, the skip policy.

A tier is a folder: tests/slow, tests/book, tests/site, tests/binder; every other test (the
rest of tests/ and lnbook's doctests) is fast. Fixtures a tier needs live in its folder's
conftest.py. ``tools/test`` says how the tiers run.
"""

from __future__ import annotations

import os
import pathlib
import re

# Keras 3 imports TensorFlow unless told otherwise: the Keras peers and chapters use JAX
os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the tiers with a folder of their own, longest first: pytest-xdist hands whole files to its
# workers in this order (tools/test), so that the longest start first and small files fill
# the end; the rest is fast
TIERS = ("binder", "book", "site", "slow")

# Every hypothesis test draws the same examples on every run, here as in CI: a failure is a
# defect anyone can replay. HYPOTHESIS_PROFILE=explore draws fresh examples (to hunt by hand).
settings.register_profile("lnbook", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lnbook"))

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


def pytest_collection_modifyitems(config, items):
    """Mark each test with its tier (`-m book` selects a tier); the longest tiers first."""
    rank = {tier: i for i, tier in enumerate(TIERS)}  # fast: last

    def tier(item) -> str:
        return tier_of(item.path.relative_to(ROOT).parts)

    for item in items:
        item.add_marker(tier(item))
    items.sort(key=lambda item: rank.get(tier(item), len(TIERS)))


def in_ci() -> bool:
    """True in CI (CI set to anything but empty, 0, false or no)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def strict() -> bool:
    """In CI and in the full `tools/test` (LNBOOK_STRICT=1) nothing may skip for want of a
    dependency: a skip whose reason is not declared below fails, saying so."""
    return in_ci() or bool(os.environ.get("LNBOOK_STRICT"))


ACCEPTED_SKIPS = {
    r"^TensorFlow is not installed here": "TensorFlow is not pinned: BERT's TF1 layer has no "
    "wheel for Python 3.11, and the 'bert' convention rests on its cited source",
    r"^the Keras tensorflow backend needs tensorflow": "TensorFlow is not pinned (above)",
    r"^this machine's default code path": "the book tier's own run covers this variant",
    r"^this CPU has no AVX-512": "OpenBLAS cannot load its SkylakeX kernel on this CPU",
}
REFUSED = ("skipped where every test must run (CI, or the full tools/test): {reason}. Install "
           "what it names (tools/test installs what each tier needs; see tools/setup-env), or "
           "declare the skip with its reason in tests/conftest.py's ACCEPTED_SKIPS")


def _refuse(report) -> None:
    """Turn a skip that this run may not accept into a failure that says what to install."""
    if not (report.skipped and strict() and isinstance(report.longrepr, tuple)
            and not hasattr(report, "wasxfail")):
        return
    reason = str(report.longrepr[2]).removeprefix("Skipped: ")
    if not any(re.search(pattern, reason) for pattern in ACCEPTED_SKIPS):
        report.outcome = "failed"
        report.longrepr = REFUSED.format(reason=reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    _refuse((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    _refuse((yield).get_result())
