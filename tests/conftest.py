"""What every test run shares: each test's tier (its folder), the hypothesis profile, the
skip policy. A tier is a folder: tests/slow, tests/book, tests/site, tests/binder; every other
test (the rest of tests/ and lnbook's doctests) is fast. The fixtures a tier needs live in its
folder's conftest.py, helpers every tier uses in tests/common.py. `tools/test` runs the tiers.
"""

from __future__ import annotations

import collections
import os

# Keras 3 imports TensorFlow unless told otherwise: the Keras peers and chapters use JAX
os.environ.setdefault("KERAS_BACKEND", "jax")

import pytest
from common import ROOT, TIERS, refused, tier_of
from hypothesis import settings

# Every hypothesis test draws the same examples on every run, here as in CI: a failure is a
# defect anyone can replay. HYPOTHESIS_PROFILE=explore draws fresh examples (to hunt by hand).
settings.register_profile("lnbook", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lnbook"))


def pytest_collection_modifyitems(config, items):
    """Mark each test with its tier (`-m book` selects a tier). Order: the tiers as in TIERS
    (fast last), in each the files with the most tests first, as a guess of the longest."""
    rank = {tier: i for i, tier in enumerate(TIERS)}
    files = collections.Counter(item.path for item in items)

    def tier(item) -> str:
        return tier_of(item.path.relative_to(ROOT).parts)

    for item in items:
        item.add_marker(tier(item))
    items.sort(key=lambda item: (rank.get(tier(item), len(TIERS)), -files[item.path], item.path))


REFUSED = ("skipped where every test must run (CI, or the full tools/test): {reason}. Install "
           "what it names (tools/test installs what each tier needs; see tools/setup-env), or "
           "declare the skip with its reason in tests/common.py's ACCEPTED_SKIPS")


def _refuse(report) -> None:
    """Turn a skip that this run may not accept into a failure that says what to install."""
    if report.skipped and isinstance(report.longrepr, tuple) and not hasattr(report, "wasxfail"):
        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        if refused(reason):
            report.outcome = "failed"
            report.longrepr = REFUSED.format(reason=reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    _refuse((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    _refuse((yield).get_result())
