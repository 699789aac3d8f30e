"""The linalg extension of the standard, compared with NumPy's ``np.linalg``.

- where the result is unique (det, slogdet, inv, solve, matrix_power, matrix_rank, pinv,
  svdvals, eigvalsh, cholesky, matrix_norm with each ``ord``, vector_norm, trace, diagonal,
  cross, outer, vecdot, tensordot): NumPy's values within the bound the table states
  (compat.core.table.linalg: a multiple of n eps scaled by the input's singular values, by the
  condition number for solve, inv, pinv and det), and NumPy's dtype and shape;
- where it is not (qr, svd, eigh, eig, eigvals): what every right answer satisfies
  (compat.judge.factorizations: reconstruction, orthonormality, triangularity, order, the
  unique eigenvalues and singular values), and NumPy's dtype and shape;
- inputs: random, ill-conditioned (singular values down to 1e-7), singular (a zero row),
  rank-deficient, batched (batch dimensions broadcast where two arrays meet), empty and 1x1
  matrices; Hermitian ones with distinct and repeated eigenvalues, and a matrix whose upper
  triangle is not its lower's adjoint (eigh and eigvalsh read the lower: NumPy's UPLO='L');
  float32, float64, complex64 and complex128, integers for the dtype rules.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from compat.core.strategies import arrays, examples, input_classes, one_example_on_modes_and_devices
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

FLOATS = ("float32", "float64", "complex64", "complex128")
MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)
VECTOR_ORDS = (2, 1, np.inf, -np.inf, 0, 3, -1, 0.5)
VALUES = st.integers(-16, 16).map(lambda k: k / 4)  # exact in every dtype: the bound is the operation's
# each example meets every operation of its spec, and each new shape compiles anew on JAX: three
# examples of each class (input_classes' least) in the default profile, the thorough one's grow it
SHARE = 0.3


def gaussian(rng, shape, dtype: str) -> np.ndarray:
    values = rng.standard_normal(shape)
    return values + 1j * rng.standard_normal(shape) if dtype.startswith("complex") else values


def unitary(rng, batch: tuple, n: int, dtype: str) -> np.ndarray:
    """A random orthogonal (unitary, for a complex dtype) matrix of each batch element."""
    return np.linalg.qr(gaussian(rng, (*batch, n, n), dtype))[0]


def with_singular_values(rng, batch: tuple, rows: int, cols: int, s, dtype: str) -> np.ndarray:
    """U diag(s) V^H with random U and V: a matrix whose singular values are ``s``."""
    k = min(rows, cols)
    u, v = unitary(rng, batch, rows, dtype)[..., :k], unitary(rng, batch, cols, dtype)[..., :k]
    return (u * np.asarray(s)[..., :k]) @ np.conj(np.swapaxes(v, -1, -2))


def generator(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


SQUARE = ("random", "ill-conditioned", "singular", "batched", "empty")


def square(data, kind: str, dtype: str) -> np.ndarray:
    """A square matrix (a stack, where batched) of the class ``kind``."""
    rng = generator(data)
    n = data.draw(st.integers(1 if kind == "random" else 2, 4), label="n")  # random: 1x1 too
    batch = data.draw(st.sampled_from([(2,), (3,), (2, 2)]), label="batch") if kind == "batched" else ()
    if kind == "empty":
        shape = data.draw(st.sampled_from([(0, 0), (2, 0, 0), (0, 3, 3)]), label="shape")
        return np.zeros(shape, dtype=dtype)
    if kind == "ill-conditioned":
        digits = data.draw(st.integers(3, 7), label="digits of condition")
        return with_singular_values(rng, batch, n, n, np.logspace(0, -digits, n), dtype).astype(dtype)
    x = gaussian(rng, (*batch, n, n), dtype)
    if kind == "singular":  # a zero row: exactly singular in every elimination order
        x[..., data.draw(st.integers(0, n - 1), label="zero row"), :] = 0
    return x.astype(dtype)


@input_classes("matrices", SQUARE, share=SHARE)
@given(data=st.data())
def test_square_matrices(xp, matrices, data):
    """det, slogdet, inv, matrix_power, trace and diagonal (NumPy's values within the table's
    bound), eig and eigvals (judged by what they must satisfy) of one matrix or a stack: random,
    ill-conditioned, singular (no slogdet, inv or negative power: the standard asks for an
    invertible matrix; det's bound is a singular matrix's too), batched, empty (random: 1x1 too)."""
    x = square(data, matrices, data.draw(st.sampled_from(FLOATS), label="dtype"))
    invertible = matrices != "singular"
    xp.check("det", x)
    if invertible:
        xp.check("slogdet", x)
        xp.check("inv", x)
    powers = [-2, -1, 0, 1, 2, 3] if invertible else [0, 1, 2, 3]
    xp.check("matrix_power", x, data.draw(st.sampled_from(powers), label="n"))
    offset = data.draw(st.integers(-1, 1), label="offset")
    xp.check("trace", x, offset=offset)
    xp.check("diagonal", x, offset=offset)
    xp.check("eigvals", x)
    xp.check("eig", x)


HERMITIAN = ("distinct eigenvalues", "repeated eigenvalues", "upper triangle differs", "batched", "empty")


def hermitian(data, kind: str, dtype: str, positive: bool = False) -> np.ndarray:
    """U diag(w) U^H: w drawn distinct, or with a repeated value; positive for cholesky."""
    rng = generator(data)
    n = data.draw(st.integers(2, 4), label="n")
    batch = (2,) if kind == "batched" else ()
    if kind == "empty":
        return np.zeros(data.draw(st.sampled_from([(0, 0), (2, 0, 0)]), label="shape"), dtype=dtype)
    w = rng.uniform(0.5, 4, (*batch, n)) if positive else rng.uniform(-4, 4, (*batch, n))
    if kind == "repeated eigenvalues":
        w[..., 1] = w[..., 0]
    u = unitary(rng, batch, n, dtype)
    h = (u * w[..., None, :]) @ np.conj(np.swapaxes(u, -1, -2))
    h = (h + np.conj(np.swapaxes(h, -1, -2))) / 2
    if kind == "upper triangle differs" and not positive:  # what is read is the lower (UPLO='L')
        h = np.tril(h) + np.triu(gaussian(rng, h.shape, dtype), 1)
    return h.astype(dtype)


@input_classes("matrices", HERMITIAN, share=SHARE)
@given(data=st.data())
def test_hermitian_matrices(xp, matrices, data):
    """eigh (by what it must satisfy, against the Hermitian matrix of the input's lower triangle)
    and eigvalsh (NumPy's values: Weyl's bound) of Hermitian matrices with distinct or repeated
    eigenvalues, of one whose upper triangle differs (both read the lower, NumPy's UPLO='L'),
    and cholesky, lower and upper, of a positive-definite one."""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    x = hermitian(data, matrices, dtype)
    xp.check("eigh", x)
    xp.check("eigvalsh", x)
    xp.check(
        "cholesky",
        hermitian(data, matrices, dtype, positive=True),
        upper=data.draw(st.booleans(), label="upper"),
    )


RECTANGULAR = ("tall or wide", "rank-deficient", "batched", "empty")
CUT = 1e-2  # the rtol that rank-deficient matrices are given: it cuts their small singular values


def rectangular(data, kind: str, dtype: str) -> tuple[np.ndarray, float | None]:
    """An M x N matrix of class ``kind`` and the rtol to give pinv and matrix_rank: none (the
    standard's default) for one of full rank, CUT for a rank-deficient one (singular values 1,
    ..., and 1e-3 or 0: far on either side of the cut)."""
    rng = generator(data)
    rows, cols = data.draw(st.integers(1, 4), label="rows"), data.draw(st.integers(1, 4), label="columns")
    batch = data.draw(st.sampled_from([(2,), (2, 3)]), label="batch") if kind == "batched" else ()
    if kind == "empty":
        return np.zeros(
            data.draw(st.sampled_from([(0, 3), (3, 0), (2, 0, 0)]), label="shape"), dtype=dtype
        ), None
    if kind == "rank-deficient":
        rows, cols = max(rows, 2), max(cols, 2)
        k = min(rows, cols)
        # 1e-3 twice as often as 0: pinv's and matrix_rank's rtol must matter in most examples
        small = data.draw(st.sampled_from([1e-3, 0.0, 1e-3]), label="least singular value")
        s = np.concatenate([rng.uniform(0.5, 2, k - 1), [small]])
        return with_singular_values(rng, batch, rows, cols, s, dtype).astype(dtype), CUT
    return gaussian(rng, (*batch, rows, cols), dtype).astype(dtype), None


@input_classes("matrices", RECTANGULAR, share=SHARE)
@given(data=st.data())
def test_rectangular_matrices(xp, matrices, data):
    """qr (each mode) and svd (full or not) by what they must satisfy, svdvals, matrix_norm
    (each ord), pinv and matrix_rank (the standard's default rtol, or one that cuts a
    rank-deficient matrix's least singular value) against NumPy's values, of tall, wide,
    rank-deficient, batched and empty matrices."""
    x, rtol = rectangular(data, matrices, data.draw(st.sampled_from(FLOATS), label="dtype"))
    xp.check("qr", x, mode=data.draw(st.sampled_from(["reduced", "complete"]), label="mode"))
    xp.check("svd", x, full_matrices=data.draw(st.booleans(), label="full_matrices"))
    xp.check("svdvals", x)
    ord_ = data.draw(st.sampled_from(MATRIX_ORDS), label="ord")
    xp.check("matrix_norm", x, keepdims=data.draw(st.booleans(), label="keepdims"), ord=ord_)
    xp.check("pinv", x, rtol=rtol)
    xp.check("matrix_rank", x, rtol=rtol)


SYSTEMS = ("one or several right-hand sides", "broadcast batches", "ill-conditioned")


@input_classes("systems", SYSTEMS, share=SHARE)
@given(data=st.data())
def test_solve(xp, systems, data):
    """solve(A, B): B a vector (shape (M,): the standard's one case of a vector), a matrix of K
    columns, or a stack whose batch dimensions broadcast against A's; A random or ill-conditioned:
    NumPy's values within the condition number's bound."""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    rng = generator(data)
    n, k = data.draw(st.integers(1, 4), label="n"), data.draw(st.integers(1, 3), label="K")
    batches = ((2, 1), (3,)) if systems == "broadcast batches" else ((), ())
    if systems == "ill-conditioned":
        digits = data.draw(st.integers(3, 7), label="digits of condition")
        a = with_singular_values(rng, (), n, n, np.logspace(0, -digits, n), dtype)
    else:
        a = gaussian(rng, (*batches[0], n, n), dtype)
    vector = systems.startswith("one") and data.draw(st.booleans(), label="b a vector")
    b = gaussian(rng, (n,) if vector else (*batches[1], n, k), dtype)
    xp.check("solve", a.astype(dtype), b.astype(dtype))


@examples(SHARE)
@given(data=st.data())
def test_vectors(xp, data):
    """cross (3-vectors along a drawn axis, other dimensions broadcast), outer, vector_norm (each
    ord, over all axes, one or two), vecdot and tensordot: numeric dtypes where the standard
    takes them, floats for the norm. Each example checks every one."""
    numeric = data.draw(st.sampled_from(("int32", "int64", *FLOATS)), label="dtype")
    axis = data.draw(st.sampled_from([-1, -2]), label="axis")
    shape = (3, 2) if axis == -2 else (2, 3)
    x1 = data.draw(
        arrays(numeric, shape, elements=VALUES if numeric[0] in "fc" else st.integers(-8, 8), op="vecdot"),
        label="x1",
    )
    x2 = data.draw(
        arrays(
            numeric,
            shape[1:] if axis == -1 else shape,
            elements=VALUES if numeric[0] in "fc" else st.integers(-8, 8),
            op="vecdot",
        ),
        label="x2",
    )
    xp.check("cross", x1, x2, axis=axis)
    xp.check("outer", x1.reshape(-1), x2.reshape(-1))
    if numeric in FLOATS:  # the standard's vecdot takes floating-point arrays
        xp.check("vecdot", x1, x2, axis=axis)
    xp.check("tensordot", x1, x1.T, axes=1)
    real = data.draw(st.sampled_from(FLOATS), label="norm dtype")
    v = data.draw(arrays(real, (2, 3), elements=VALUES), label="vector")
    axes = data.draw(st.sampled_from([None, -1, 0, (0, 1)]), label="norm axis")
    ord_ = data.draw(st.sampled_from(VECTOR_ORDS), label="ord")
    xp.check("vector_norm", v, axis=axes, keepdims=data.draw(st.booleans(), label="keepdims"), ord=ord_)


INTEGER_MATRIX = np.array([[2, 1], [1, 3]])
# (operation, arguments, keyword arguments): the functions that "should have a floating-point
# data type", given integers: NumPy's float64 result, or an error, against each backend's
INTEGER_CASES = [
    (name, (INTEGER_MATRIX.astype(dtype), *more), kwargs)
    for dtype in ("int64", "int32")
    for name, more, kwargs in (
        ("det", (), {}),
        ("slogdet", (), {}),
        ("inv", (), {}),
        ("solve", (INTEGER_MATRIX.astype(dtype),), {}),
        ("cholesky", (), {}),
        ("eigh", (), {}),
        ("eigvalsh", (), {}),
        ("eigvals", (), {}),
        ("qr", (), {}),
        ("svdvals", (), {}),
        ("pinv", (), {}),
        ("matrix_rank", (), {}),
        ("matrix_norm", (), {}),
        ("vector_norm", (), {}),
        ("matrix_power", (2,), {}),
        ("trace", (), {}),
        ("diagonal", (), {}),
    )
]


def test_integer_matrices(xp):
    """The dtype each function gives an integer matrix (NumPy: float64 for the factorizations
    and solvers, the integer for matrix_power, trace and diagonal; matrix_rank the default
    integer), against each backend's: every row, a row's share of them on devices and modes."""
    for name, args, kwargs in xp.sample(INTEGER_CASES):
        xp.check(name, *args, **kwargs)


test_every_form_of_every_parameter = every_form("linalg")
