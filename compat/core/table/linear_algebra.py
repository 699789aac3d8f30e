"""The standard's linear algebra functions (and of its linalg extension, the norm)."""

from __future__ import annotations

import numpy as np

from compat.core.operation import MATRIX, Op, X, matrix_product, normed
from compat.core.table.linalg import nonzero


def contracted(x1, x2, axes=2, **_):
    """tensordot: each result element sums the products over the contracted axes."""
    magnitude = np.tensordot(np.abs(x1), np.abs(x2), axes=axes)
    first = list(range(x1.ndim - axes, x1.ndim)) if isinstance(axes, int) else list(axes[0])
    return magnitude, int(np.prod([x1.shape[a] for a in first]))


def dotted(x1, x2, axis=-1, **_):
    """vecdot: each result element sums the products along ``axis``."""
    return np.vecdot(np.abs(x1), np.abs(x2), axis=axis), np.broadcast_shapes(x1.shape, x2.shape)[axis]


TABLE: tuple[Op, ...] = (
    Op(
        "norm",
        "(x)",
        "reduction",
        "Euclidean norm",
        numpy="np.linalg.norm",
        terms=normed,
        example=(X,),
        standard="linalg.vector_norm",
        smooth=nonzero,
    ),
    Op(
        "matmul",
        "(x1, x2)",
        "linalg",
        "matrix product, batch dimensions broadcast",
        terms=matrix_product,
        example=(MATRIX, MATRIX.T),
        takes="numeric",
    ),
    # -- issue 31: the rest of the section --------------------------------------------------
    Op(
        "matrix_transpose",
        "(x)",
        "shape",
        "the last two axes swapped",
        correctly_rounded=True,
        values=("distinct",),
        example=(MATRIX,),
    ),
    Op(
        "tensordot",
        "(x1, x2, axes=2)",
        "linalg",
        "products summed over the given axes of x1 and of x2",
        terms=contracted,
        example=(MATRIX, MATRIX.T),
        example_kwargs=(("axes", 1),),
        takes="numeric",
    ),
    Op(
        "vecdot",
        "(x1, x2, axis=-1)",
        "linalg",
        "dot products along an axis (x1 conjugated), other dimensions broadcast",
        terms=dotted,
        example=(MATRIX, MATRIX),
        takes="floating-point",
        values=("imaginary",),
    ),
)
