"""lnbook: layer normalization, computed the way the book explains it.

The flat namespace holds the layer, its derivatives and the correctly rounded reference;
each chapter's own tools are a submodule beside it, imported with the package:
:mod:`lnbook.fp` (floating point), :mod:`lnbook.frameworks` (the frameworks' conventions),
:mod:`lnbook.geometry` (the geometric picture), :mod:`lnbook.transformer` (residual stacks)
and :mod:`lnbook.figures` (the numbers of every figure). :mod:`lnbook.plotting` draws the
figures and is the only module that imports matplotlib; ``import lnbook`` does not import it.

The rules every public function follows (records on the last axis, the data first, ``eps``
and every option keyword-only, one exception policy) are written once, on the API page of
the book, and kept by ``tests/test_api.py``. Every function rests on one private kernel
(``lnbook._kernel``) and validates its arguments at one boundary (``lnbook._checks``).
"""

# the chapters' toolkits: public submodules, not part of __all__
from . import _kernel, figures, fp, frameworks, geometry, transformer  # noqa: F401
from ._audit import record_audit, wrong_axis_layer_norm
from ._centering import centering_matrix, weighted_centering_matrix
from ._derivatives import (
    central_difference_jacobian,
    input_grad,
    jacobian,
    jacobian_eigenvalues,
    param_grads,
)
from ._layer import batch_norm, core, layer_norm, normalized_variance, rms_norm, stats
from ._reference import exact_core, ulp_error
from ._sensitivity import amplification, lipschitz_bound, operator_norm, response, response_slope

#: The default stabilizer of every function, ``eps = 1e-5`` (PyTorch's default too).
EPS = _kernel.EPS

__all__ = ["EPS", "stats", "core", "layer_norm", "normalized_variance", "jacobian",
           "jacobian_eigenvalues", "input_grad", "param_grads", "central_difference_jacobian",
           "operator_norm", "lipschitz_bound", "amplification", "response", "response_slope",
           "centering_matrix", "weighted_centering_matrix", "rms_norm", "batch_norm",
           "record_audit", "wrong_axis_layer_norm", "exact_core", "ulp_error"]

__version__ = "0.1.0"
