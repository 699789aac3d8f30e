"""The standard's linalg extension (those of its functions that the main namespace has too, matmul,
matrix_transpose, tensordot and vecdot, are in compat.core.table.linear_algebra), compared with
NumPy's ``np.linalg``.

Where the result is unique, each result element must be within 1 ULP plus ``eps * terms`` of
NumPy's, ``terms`` the ``(magnitude, count)`` each function below gives, ``count`` a multiple
of the size (LAPACK's test threshold, 30, times the order n of the matrix) and ``magnitude``
what a backward error of ``eps * ||A||`` can change the result by, from the input's singular
values (sigma_1 >= ... >= sigma_n): for the determinant ``sigma_1 * sum_i prod_{j != i}
sigma_j`` (Jacobi's formula: the nuclear norm of the adjugate; a singular value below
1e-6 sigma_1 counts as that, so that a matrix of rank n - 2 gets a bound too), for solve,
inv, pinv and a negative matrix_power the condition number sigma_1 / sigma_n times the norm of
the result's bound (||A^-1|| ||B||), for slogdet's logarithm the relative error of the
determinant, for singular values and Hermitian eigenvalues ``sigma_1`` (Weyl), for the
norms ``max(M, N) sigma_1`` (every norm is within that of its matrix's spectral norm), for the
Cholesky factor ``kappa(A) ||L||``. A pinv whose rtol cuts within a factor of 4 of a singular
value has no bound (the result depends on which side of the cut it falls).

Where it is not unique (qr, svd, eigh, eig, eigvals: ``unique=False``), the result is judged by
what it must satisfy (``satisfies``; compat.judge.factorizations states those bounds), and its
dtype and shape are NumPy's.
"""

from __future__ import annotations

import numpy as np

from compat.core.operation import SMOOTH_MARGIN, Op, f32

KAPPA = 10.0  # the gradient programs' matrices are this well-conditioned (their derivatives' rounding)
THRESHOLD = 30  # LAPACK's test threshold: a residual within 30 n eps ||A|| passes
SQUARE = f32(2, -1, 0.5, 3, shape=(2, 2))
HERMITIAN = f32(4, 1, 1, 3, shape=(2, 2))
FLOOR = 1e-6  # a singular value below FLOOR * sigma_1 counts as that in the determinant's bound


def singular_values(x: np.ndarray) -> np.ndarray:
    """sigma_1 >= ... >= sigma_K of each matrix, in float64."""
    if x.size == 0:
        return np.zeros(x.shape[:-2] + (min(x.shape[-2:]),))
    return np.linalg.svd(x, compute_uv=False)


def condition(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sigma_1, kappa = sigma_1 / sigma_n) of each square matrix (kappa inf where singular)."""
    s = singular_values(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return s[..., 0], np.where(s[..., 0] > 0, s[..., 0] / s[..., -1], 1.0)


def lower_hermitian(x: np.ndarray) -> np.ndarray:
    """The Hermitian matrix whose lower triangle is x's (LAPACK's UPLO='L': the diagonal's real part)."""
    lower = np.tril(x, -1)
    return (
        lower
        + np.conj(np.swapaxes(lower, -1, -2))
        + np.real(np.diagonal(x, 0, -2, -1))[..., None] * np.eye(x.shape[-1])
    )


def determinant(x, **_):
    """det: sigma_1 times the nuclear norm of the adjugate, sum_i prod_{j != i} sigma_j."""
    s = singular_values(x)
    n = x.shape[-1]
    floored = np.maximum(s, FLOOR * s[..., :1]) if n else s
    with np.errstate(divide="ignore", invalid="ignore"):
        adjugate = np.nan_to_num(np.prod(floored, -1, keepdims=True) / floored).sum(-1)
    return (s[..., 0] if n else 0.0) * adjugate, THRESHOLD * max(n, 1)


def log_determinant(x, **_):
    """slogdet: the determinant's relative error, sigma_1 sum_i 1 / sigma_i (both results: a sign
    may flip only where that is near 1)."""
    s = singular_values(x)
    n = x.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = s[..., 0] * np.sum(1 / s, -1) if n else np.zeros(x.shape[:-2])
    return relative, THRESHOLD * max(n, 1)


def inverted(x, **_):
    """inv: kappa ||A^-1|| = sigma_1 / sigma_n^2 per element."""
    top, kappa = condition(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (kappa * kappa / top)[..., None, None], THRESHOLD * x.shape[-1]


def solved(x1, x2, **_):
    """solve: kappa ||A^-1|| ||B|| per element of X = A^-1 B (B a vector where x2 is 1-D)."""
    top, kappa = condition(x1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = kappa * kappa / top
    if x2.ndim == 1:
        return (inverse * np.linalg.norm(x2))[..., None], THRESHOLD * x1.shape[-1]
    return inverse[..., None, None] * np.linalg.norm(x2, axis=(-2, -1), keepdims=True), THRESHOLD * x1.shape[
        -1
    ]


def pseudo_inverted(x, rtol=None, **_):
    """pinv: sigma_1 / sigma_r^2 (sigma_r the least singular value kept), no bound where rtol cuts
    within a factor of 4 of a singular value."""
    s = singular_values(x)
    if s.shape[-1] == 0:
        return np.zeros(x.shape[:-2] + (1, 1)), 1
    cut = (rtol if rtol is not None else 0.0) * s[..., :1]
    kept = np.where(s > cut, s, np.inf).min(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnitude = np.where(np.isfinite(kept), s[..., 0] / kept**2, 0.0)
        near = ((s > cut / 4) & (s < cut * 4)).any(-1) if rtol is not None else False
    return np.where(near, np.inf, magnitude)[..., None, None], THRESHOLD * max(x.shape[-2:])


def spectral(x, **_):
    """svdvals: sigma_1 for each singular value (Weyl)."""
    s = singular_values(x)
    return (s[..., :1] if s.shape[-1] else s), THRESHOLD * max(max(x.shape[-2:]), 1)


def hermitian_spectral(x, **_):
    """eigvalsh: the spectral norm of the Hermitian matrix of x's lower triangle, for each eigenvalue (Weyl)."""
    return spectral(lower_hermitian(x))


def normed_matrix(x, keepdims=False, ord="fro", **_):
    """matrix_norm: max(M, N) sigma_1 (every ord's norm is within that of the spectral norm)."""
    s = singular_values(x)
    magnitude = (s[..., 0] if s.shape[-1] else np.zeros(x.shape[:-2])) * max(x.shape[-2:])
    return (magnitude[..., None, None] if keepdims else magnitude), THRESHOLD


def normed_vector(x, axis=None, keepdims=False, ord=2, **_):
    """vector_norm: a sum of non-negative terms to a power: the norm itself, 2n + 4 terms."""
    with np.errstate(all="ignore"):
        norm = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    reduced = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
    return norm, 2 * reduced + 4


def traced(x, offset=0, **_):
    """trace: the sum of the diagonal's magnitudes, one term per diagonal element."""
    diagonal = np.diagonal(np.abs(x), offset, -2, -1)
    return diagonal.sum(-1), max(diagonal.shape[-1], 1)


def crossed(x1, x2, axis=-1, **_):
    """cross: two products per element: 2 max|x1| max|x2| along the axis."""
    magnitude = 2 * np.max(np.abs(x1), axis, keepdims=True) * np.max(np.abs(x2), axis, keepdims=True)
    return magnitude, 2


def powered(x, n, **_):
    """matrix_power: |A|^n (each product's magnitudes), n * size terms; a negative n,
    |n| kappa ||A^-1||^|n| (the inverse's bound, compounded)."""
    size, n = x.shape[-1], int(n)  # the oracle passes every argument as a float64 array
    if n >= 0:
        return np.linalg.matrix_power(np.abs(x), n), THRESHOLD * max(size, 1) * max(n, 1)
    top, kappa = condition(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        magnitude = -n * kappa * (kappa / top) ** -n
    return magnitude[..., None, None], THRESHOLD * max(size, 1) * -n


def factored(x, upper=False, **_):
    """cholesky: kappa(A) ||L|| = kappa sqrt(sigma_1) per element."""
    top, kappa = condition(lower_hermitian(x))
    return (kappa * np.sqrt(top))[..., None, None], THRESHOLD * x.shape[-1]


# where each function is smooth (its derivative exists), for the gradient programs: with a margin,
# on well-conditioned matrices (so float32's derivative is accurate), every matrix of a batch


def _matrices(x: np.ndarray, square: bool = False) -> bool:
    return x.ndim >= 2 and x.size > 0 and (not square or x.shape[-1] == x.shape[-2])


def invertible(x, *_) -> bool:
    """det, inv, slogdet, solve: full-rank square matrices, condition number at most KAPPA."""
    if not _matrices(x, square=True):
        return False
    top, kappa = condition(x)
    return bool(np.all(kappa <= KAPPA) and np.all(top / kappa > SMOOTH_MARGIN))


def positive_definite(x, *_) -> bool:
    """cholesky: symmetric positive-definite matrices, condition number at most KAPPA."""
    if not _matrices(x, square=True) or not np.array_equal(x, np.swapaxes(x, -1, -2)):
        return False
    w = np.linalg.eigvalsh(x)
    return bool(np.all(w[..., 0] > SMOOTH_MARGIN) and np.all(w[..., -1] <= KAPPA * w[..., 0]))


def separated(values: np.ndarray) -> bool:
    """Sorted values (along the last axis) whose neighbours differ by a tenth of the largest magnitude."""
    gaps = np.abs(np.diff(values, axis=-1))
    largest = np.max(np.abs(values), axis=-1, keepdims=True)
    return bool(np.all(gaps > np.maximum(SMOOTH_MARGIN, 0.1 * largest)))


def distinct_eigenvalues(x, *_) -> bool:
    """eigvalsh, eigh's eigenvalues: symmetric matrices with separated eigenvalues."""
    if not _matrices(x, square=True) or not np.array_equal(x, np.swapaxes(x, -1, -2)):
        return False
    return separated(np.linalg.eigvalsh(x))


def distinct_singular_values(x, *_) -> bool:
    """svdvals: separated singular values, the least away from zero."""
    if not _matrices(x):
        return False
    s = singular_values(x)
    return separated(s) and bool(np.all(s[..., -1] > np.maximum(SMOOTH_MARGIN, 0.1 * s[..., 0])))


def nonzero_matrices(x, *_) -> bool:
    """matrix_norm's Frobenius norm: matrices away from zero."""
    return _matrices(x) and bool(np.all(np.linalg.matrix_norm(x) > SMOOTH_MARGIN))


def nonzero(x, *_) -> bool:
    """norm, vector_norm (2-norm of every element): an array away from zero."""
    return x.size > 0 and bool(np.linalg.norm(x.reshape(-1)) > SMOOTH_MARGIN)


def _op(name, params, about, takes="floating-point", example=(SQUARE,), **facts) -> Op:
    return Op(
        name,
        params,
        "linalg",
        about,
        numpy=f"np.linalg.{name}",
        takes=takes,
        example=example,
        standard=f"linalg.{name}",
        **facts,
    )


TABLE: tuple[Op, ...] = (
    _op(
        "cholesky",
        "(x, upper=False)",
        "the Cholesky factor of a Hermitian positive-definite matrix",
        terms=factored,
        example=(HERMITIAN,),
        smooth=positive_definite,
        hermitian=True,
    ),
    _op(
        "cross",
        "(x1, x2, axis=-1)",
        "cross product of 3-element vectors, other dimensions broadcast",
        takes="numeric",
        terms=crossed,
        example=(f32(1, 2, 3), f32(-1, 0.5, 2)),
    ),
    _op("det", "(x)", "determinant", terms=determinant, smooth=invertible),
    _op(
        "diagonal",
        "(x, offset=0)",
        "a diagonal of each matrix",
        takes="any",
        correctly_rounded=True,
        values=("distinct",),
    ),
    _op(
        "eigh",
        "(x)",
        "eigenvalues (ascending) and eigenvectors of a Hermitian matrix, from its lower triangle",
        unique=False,
        satisfies=("reconstruction", "orthonormality", "order", "eigenvalues"),
        example=(HERMITIAN,),
        smooth=distinct_eigenvalues,
        hermitian=True,
        smooth_part=0,
    ),
    _op(
        "eigvalsh",
        "(x)",
        "eigenvalues of a Hermitian matrix, from its lower triangle",
        terms=hermitian_spectral,
        example=(HERMITIAN,),
        smooth=distinct_eigenvalues,
        hermitian=True,
    ),
    _op(
        "eig",
        "(x)",
        "eigenvalues and eigenvectors of a general matrix",
        unique=False,
        satisfies=("eigenvalues", "residual", "normalization"),
    ),
    _op("eigvals", "(x)", "eigenvalues of a general matrix", unique=False, satisfies=("eigenvalues",)),
    _op("inv", "(x)", "inverse", terms=inverted, smooth=invertible),
    _op(
        "matrix_norm",
        "(x, keepdims=False, ord='fro')",
        "matrix norm: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf",
        terms=normed_matrix,
        smooth=nonzero_matrices,
        values=("imaginary",),
    ),
    _op(
        "matrix_power",
        "(x, n)",
        "the n-th power of a square matrix",
        terms=powered,
        static=(1,),
        example=(SQUARE, 2),
    ),
    _op("matrix_rank", "(x, rtol=None)", "number of singular values above rtol * sigma_1"),
    _op(
        "outer",
        "(x1, x2)",
        "outer product of two vectors",
        takes="numeric",
        correctly_rounded=True,
        example=(f32(1, 2), f32(3, -1, 0.5)),
    ),
    _op("pinv", "(x, rtol=None)", "Moore-Penrose pseudo-inverse", terms=pseudo_inverted),
    _op(
        "qr",
        "(x, mode='reduced')",
        "QR factorization",
        unique=False,
        satisfies=("reconstruction", "orthonormality", "triangularity"),
    ),
    _op("slogdet", "(x)", "sign and log of |det|", terms=log_determinant, smooth=invertible, smooth_part=1),
    _op(
        "solve",
        "(x1, x2)",
        "solution of A X = B, batch dimensions broadcast",
        terms=solved,
        example=(SQUARE, SQUARE),
        smooth=invertible,
    ),
    _op(
        "svd",
        "(x, full_matrices=True)",
        "singular value decomposition",
        unique=False,
        satisfies=("reconstruction", "orthonormality", "order", "singular values"),
    ),
    _op("svdvals", "(x)", "singular values, descending", terms=spectral, smooth=distinct_singular_values),
    _op(
        "trace",
        "(x, offset=0, dtype=None)",
        "sum of a diagonal of each matrix",
        takes="numeric",
        terms=traced,
    ),
    _op(
        "vector_norm",
        "(x, axis=None, keepdims=False, ord=2)",
        "vector norm over axes: any ord",
        terms=normed_vector,
        example=(f32(3, -4, 0, 1),),
        smooth=nonzero,
        values=("imaginary",),
    ),
)
