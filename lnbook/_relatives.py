"""Relatives of the layer that the book compares it with: RMSNorm and BatchNorm's cores.
Each is the kernel's standardization with other options."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks, _kernel
from ._kernel import EPS

__all__ = ["rms_norm", "batch_norm"]


@_checks.public
def rms_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """The core of RMSNorm: divide by the root mean square, with no centering.

    Parameters
    ----------
    z : (d,) or (..., d) array_like
        Records along the last axis.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    ndarray
        :math:`z / \\sqrt{\\lVert z\\rVert^2/d + \\varepsilon}` for every record, of the
        shape of ``z``.

    Raises
    ------
    ValueError
        If ``eps == 0`` and a record is all zeros, or as for :func:`lnbook.core`.
    TypeError
        As for :func:`lnbook.core`.

    Notes
    -----
    .. formula not checked: names RMSNorm's output for the reader; no other formula of the docstring
       uses it

    .. math:: \\bar z = \\frac{z}{\\sqrt{\\tfrac1d \\lVert z \\rVert^2 + \\varepsilon}}

    A record of tiny or huge size is scaled by a power of two first, as in
    :func:`lnbook.core`. See :ref:`ch-exercises`.

    References
    ----------
    :cite:t:`zhang2019root`

    Examples
    --------
    >>> rms_norm([2, 4, 6, 8], eps=0).round(4)
    array([0.3651, 0.7303, 1.0954, 1.4606])
    >>> rms_norm([3e-170, 0], eps=0)  # its square underflows; the power of two does not
    array([1.41421356, 0.        ])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    # z / sqrt((1/d) |z|^2 + eps): the kernel without centering
    return _kernel.standardize(z, eps, center=False)


@_checks.public
def batch_norm(z: ArrayLike, *, eps: float = EPS) -> np.ndarray:
    """The training-mode core of BatchNorm: statistics down each feature, across the batch.

    Parameters
    ----------
    z : (B, d) array_like
        A batch of ``B`` records.
    eps : float, optional
        Stabilizer inside the root.

    Returns
    -------
    (B, d) ndarray
        Each column standardized by its own batch mean and variance.

    Raises
    ------
    ValueError
        If ``z`` is not 2-d, or ``eps == 0`` and a column is constant (always so when
        ``B = 1``), or the batch is empty.
    TypeError
        As for :func:`lnbook.core`.

    Notes
    -----
    .. formula not checked: statistics over the batch axis b (BatchNorm), not over a record

    .. math:: \\begin{aligned} y_{bj} &= \\frac{z_{bj} - \\mu_j}{\\sqrt{q_j + \\varepsilon}}, \\\\
              \\mu_j &= \\frac1B \\sum_b z_{bj}, \\\\
              q_j &= \\frac1B \\sum_b (z_{bj} - \\mu_j)^2 \\end{aligned}

    The statistics are the kernel's, on the transposed batch. Matches
    ``torch.nn.BatchNorm1d(d, affine=False)`` in training mode. See :ref:`ch-records`.

    References
    ----------
    :cite:t:`ioffe2015batch`

    Examples
    --------
    >>> batch_norm([[2, 4, 6, 8]])
    array([[0., 0., 0., 0.]])
    """
    eps = _checks.eps_value(eps)
    z = _checks.records(z)
    if z.ndim != 2 or z.shape[0] == 0:
        raise ValueError(f"z must be a batch of shape (B, d) with B >= 1 records (a batch's "
                         f"statistics need one); got shape {z.shape}")
    # the kernel on z^T: each feature column j is a "record" of B values
    columns = np.ascontiguousarray(z.T)
    return _kernel.standardize(columns, eps, unit="feature column").T.copy()
