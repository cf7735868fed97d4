"""Shared strategies and helpers for the lnbook tests."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# Records of moderate size and scale: finite, d >= 1; values away from overflow.
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
eps_values = st.floats(min_value=1e-6, max_value=10.0)


def record_arrays(min_d: int = 1, max_d: int = 8, max_lead: int = 2):
    """Arrays of shape (..., d) with up to ``max_lead`` leading axes."""
    shapes = hnp.array_shapes(min_dims=1, max_dims=1 + max_lead, min_side=1, max_side=5).flatmap(
        lambda s: st.integers(min_d, max_d).map(lambda d: s[:-1] + (d,))
    )
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=finite))


def torch_or_skip():
    """Import torch for the peer tests, or skip them saying why (in CI: fail, never skip)."""
    reason = "PyTorch is not installed here; tools/test installs torch==2.13.0"
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        try:
            import torch
        except ImportError:
            pytest.fail(f"{reason}, and CI must run the PyTorch peer tests")
        return torch
    return pytest.importorskip("torch", reason=reason)
