"""lnbook: layer normalization, computed the way the book explains it.

Every array function takes records ``(d,)`` or ``(..., d)`` with the normalized axis last,
takes ``eps`` as a keyword (default ``1e-5``) and returns float64; a gain ``gamma`` (then a
bias ``beta``) comes right after the data arguments. All of them rest on one private kernel
(``lnbook._kernel``) and validate their arguments at one boundary (``lnbook._checks``).
Figures live in :mod:`lnbook.plotting`, the only module that imports matplotlib.
"""

from .audit import record_audit
from .centering import centering_matrix, weighted_centering_matrix
from .derivatives import (
    central_difference_jacobian,
    input_grad,
    jacobian,
    jacobian_eigenvalues,
    param_grads,
)
from .geometry import core_radius, plane_basis, radial_profile
from .normalize import EPS, core, layer_norm, normalized_variance, stats
from .reference import exact_core, offset_errors, ulp_error
from .residual import (
    init_blocks,
    layer_gradient_norms,
    residual_backward,
    residual_forward,
    rms_jacobian,
)
from .sensitivity import amplification, lipschitz_bound, operator_norm, response, response_slope
from .streaming import (
    chan_stats,
    merge_stats,
    one_pass_stats,
    pairwise_depth,
    pairwise_sum,
    round_bfloat16,
    welford,
)
from .variants import (
    CONVENTIONS,
    Convention,
    batch_norm,
    convention_layer_norm,
    layer_norm_variant,
    rms_norm,
    wrong_axis_layer_norm,
)

__all__ = [
    "EPS",
    "stats",
    "core",
    "layer_norm",
    "normalized_variance",
    "exact_core",
    "ulp_error",
    "offset_errors",
    "jacobian",
    "jacobian_eigenvalues",
    "input_grad",
    "param_grads",
    "operator_norm",
    "lipschitz_bound",
    "amplification",
    "response",
    "response_slope",
    "centering_matrix",
    "weighted_centering_matrix",
    "rms_norm",
    "batch_norm",
    "layer_norm_variant",
    "convention_layer_norm",
    "Convention",
    "CONVENTIONS",
    "record_audit",
    "wrong_axis_layer_norm",
    "central_difference_jacobian",
    # streaming statistics and summation order
    "welford",
    "merge_stats",
    "chan_stats",
    "one_pass_stats",
    "pairwise_sum",
    "pairwise_depth",
    "round_bfloat16",
    # geometry and the residual stack
    "plane_basis",
    "core_radius",
    "radial_profile",
    "init_blocks",
    "residual_forward",
    "residual_backward",
    "layer_gradient_norms",
    "rms_jacobian",
]

__version__ = "0.1.0"
