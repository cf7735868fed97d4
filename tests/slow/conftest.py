"""The slow tier's fixture: PyTorch, for the framework peers and the benchmark's tiny run."""

from __future__ import annotations

import os

import pytest

# Keras 3 imports TensorFlow unless told otherwise; its peers run on the JAX backend unless a
# test names another (set before any test imports keras)
os.environ.setdefault("KERAS_BACKEND", "jax")


@pytest.fixture(scope="session")
def torch():
    """PyTorch, or a skip that says why; in CI (CI set to anything but empty, 0, false or no)
    a failure, never a skip."""
    reason = ("PyTorch is not installed here; tools/setup-env installs the version pinned in "
              "pyproject.toml (extra `frameworks`)")
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        try:
            import torch
        except ImportError:
            pytest.fail(f"{reason}, and CI must run the PyTorch peer tests")
        return torch
    return pytest.importorskip("torch", reason=reason)
