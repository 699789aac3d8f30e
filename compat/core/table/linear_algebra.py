"""The standard's linear algebra functions (and of its linalg extension, the norm)."""

from __future__ import annotations

from compat.core.operation import MATRIX, Op, X, matrix_product, normed

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
    ),
    Op(
        "matmul",
        "(x1, x2)",
        "linalg",
        "matrix product, batch dimensions broadcast",
        terms=matrix_product,
        example=(MATRIX, MATRIX.T),
    ),
)
