"""What a factorization must satisfy, where its result is not unique (``Op.satisfies``: qr, svd,
eigh, eig, eigvals): an eigenvector's sign or phase, the basis of a repeated eigenvalue's space,
the order of equal eigenvalues and the signs of Q's columns with R's rows are each library's
choice, so the factors are not compared with NumPy's but judged the way LAPACK's own tests
judge them: each property's error as a multiple of ``n eps`` (n the larger side of the matrix,
eps the result dtype's), within ``THRESHOLD`` (30, LAPACK's test threshold):

- reconstruction: ``||A - Q R||``, ``||A - U diag(S) Vh||``, ``||H - V diag(w) V^H||`` (H the
  Hermitian matrix of A's lower triangle, which eigh reads) over ``n eps ||A||`` (Frobenius);
- orthonormality: ``||Q^H Q - I||`` (U's columns, Vh's rows, eigh's V) over ``n eps``;
- triangularity: R's largest element below the diagonal over ``n eps ||A||``;
- order: eigh's eigenvalues ascending, svd's singular values descending and non-negative, the
  largest step the wrong way over ``n eps ||A||``;
- eigenvalues (eigh, eig, eigvals) and singular values (svd), which are unique: against NumPy's
  of the input in float64, over ``n eps ||A||`` (Weyl's bound; eig's each times its condition
  number, ``||y_i|| ||x_i|| / |y_i^H x_i|``, and eig's and eigvals' compared as a multiset: the
  pairing that fits best);
- eig's residual ``||A V - V diag(w)||`` over ``n eps ||A|| ||V||`` and its normalization (each
  eigenvector of unit length, LAPACK's and NumPy's), over ``n eps``.

A violated property is a ``value`` divergence whose signature names the property
(``reconstruction`` -> ``violated``), and whose detail gives the measured multiple against
the bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.core.table.linalg import THRESHOLD, lower_hermitian
from compat.judge.oracle import Mismatch

TINY = np.finfo(np.float64).tiny


def _wide(x) -> np.ndarray:
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _h(a: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(a, -1, -2))


def _fro(a: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(np.abs(a) ** 2, axis=(-2, -1))) if a.ndim >= 2 else np.abs(a)


def _orthonormal(q: np.ndarray) -> np.ndarray:
    """||Q^H Q - I|| of each matrix (Q's columns)."""
    return _fro(_h(q) @ q - np.eye(q.shape[-1]))


class Measure:
    """The properties of one result: each as its largest multiple of ``n eps`` over the batch."""

    def __init__(self, x: np.ndarray, eps: float):
        self.x, self.eps = x, eps
        self.n = max(*x.shape[-2:], 1)
        self.scale = self.n * eps
        self.found: list[tuple[str, float, str]] = []

    def add(self, name: str, error: np.ndarray, size: np.ndarray | float, what: str) -> None:
        with np.errstate(all="ignore"):
            ratio = np.asarray(error / (self.scale * np.maximum(size, TINY)), dtype=np.float64)
        worst = float(np.max(np.where(np.isnan(ratio), np.inf, ratio), initial=0.0))
        if not worst <= THRESHOLD:
            self.found.append((name, worst, what))


def qr(m: Measure, q: np.ndarray, r: np.ndarray, **_) -> None:
    size = _fro(m.x)
    m.add("reconstruction", _fro(m.x - q @ r), size, "||A - Q R|| / (n eps ||A||)")
    m.add("orthonormality", _orthonormal(q), 1.0, "||Q^H Q - I|| / (n eps)")
    below = np.max(np.abs(np.tril(r, -1)), axis=(-2, -1), initial=0.0)
    m.add("triangularity", below, size, "max |R below the diagonal| / (n eps ||A||)")


def svd(m: Measure, u: np.ndarray, s: np.ndarray, vh: np.ndarray, **_) -> None:
    size, k = _fro(m.x), s.shape[-1]
    rebuilt = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    m.add("reconstruction", _fro(m.x - rebuilt), size, "||A - U diag(S) Vh|| / (n eps ||A||)")
    m.add(
        "orthonormality",
        np.maximum(_orthonormal(u), _orthonormal(_h(vh))),
        1.0,
        "||U^H U - I||, ||Vh Vh^H - I|| / (n eps)",
    )
    wrong_way = np.max(np.maximum(np.diff(s, axis=-1), 0.0), axis=-1, initial=0.0)
    m.add(
        "order",
        np.maximum(wrong_way, np.max(-s, axis=-1, initial=0.0)),
        size,
        "S not descending or negative, / (n eps ||A||)",
    )
    expected = np.linalg.svd(m.x, compute_uv=False) if m.x.size else s
    m.add(
        "singular values",
        np.max(np.abs(s - expected), axis=-1, initial=0.0),
        size,
        "max |S - NumPy's float64 S| / (n eps ||A||)",
    )


def eigh(m: Measure, w: np.ndarray, v: np.ndarray, **_) -> None:
    w = np.real(w)  # eigenvalues a library returns as complex (a dtype divergence): their real parts
    h = lower_hermitian(m.x)
    size = _fro(h)
    rebuilt = (v * w[..., None, :]) @ _h(v)
    m.add(
        "reconstruction",
        _fro(h - rebuilt),
        size,
        "||H - V diag(w) V^H|| / (n eps ||H||), H from A's lower triangle",
    )
    m.add("orthonormality", _orthonormal(v), 1.0, "||V^H V - I|| / (n eps)")
    m.add(
        "order",
        np.max(np.maximum(-np.diff(w, axis=-1), 0.0), axis=-1, initial=0.0),
        size,
        "w not ascending, / (n eps ||H||)",
    )
    expected = np.linalg.eigvalsh(h) if h.size else w
    m.add(
        "eigenvalues",
        np.max(np.abs(w - expected), axis=-1, initial=0.0),
        size,
        "max |w - NumPy's float64 w| / (n eps ||H||)",
    )


def _eigenvalue_errors(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per matrix: the largest |w_i - lambda_i| / kappa_i over the best pairing of w with NumPy's
    float64 eigenvalues lambda (kappa_i their condition numbers; inf where defective)."""
    batch = x.shape[:-2]
    errors = np.zeros(batch)
    for index in np.ndindex(*batch):
        a, got = x[index], w[index]
        if a.size == 0:
            continue
        expected, vectors = np.linalg.eig(a)
        try:
            left = np.linalg.inv(vectors)
            kappa = np.linalg.norm(left, axis=1) * np.linalg.norm(vectors, axis=0)
        except np.linalg.LinAlgError:
            kappa = np.full(len(expected), np.inf)
        pairings = itertools.permutations(range(len(got))) if len(got) <= 6 else [np.argsort(got)]
        order = np.argsort(expected) if len(got) > 6 else np.arange(len(got))
        errors[index] = min(
            float(np.max(np.abs(got[list(p)] - expected[order]) / kappa[order])) for p in pairings
        )
    return errors


def eig(m: Measure, w: np.ndarray, v: np.ndarray, **_) -> None:
    size = _fro(m.x)
    m.add(
        "eigenvalues",
        _eigenvalue_errors(m.x, w),
        size,
        "max |w_i - lambda_i| / kappa_i / (n eps ||A||), best pairing",
    )
    residual = _fro(m.x @ v - v * w[..., None, :])
    m.add("residual", residual, size * _fro(v), "||A V - V diag(w)|| / (n eps ||A|| ||V||)")
    lengths = np.sqrt(np.sum(np.abs(v) ** 2, axis=-2))
    m.add(
        "normalization",
        np.max(np.abs(lengths - 1), axis=-1, initial=0.0),
        1.0,
        "max | ||v_i|| - 1 | / (n eps)",
    )


def eigvals(m: Measure, w: np.ndarray, **_) -> None:
    m.add(
        "eigenvalues",
        _eigenvalue_errors(m.x, w),
        _fro(m.x),
        "max |w_i - lambda_i| / kappa_i / (n eps ||A||), best pairing",
    )


RULES: dict[str, Callable[..., None]] = {"qr": qr, "svd": svd, "eigh": eigh, "eig": eig, "eigvals": eigvals}


def violations(case: Case, actual: Outcome) -> list[Mismatch]:
    """The properties ``actual`` (the backend's result of ``case``) violates, each a ``value``
    mismatch; none where it raised or has no float values to judge."""
    parts = actual.parts if actual.parts is not None else [actual]
    values = [p.values for p in parts]
    if actual.raised or any(v is None or v.dtype.kind not in "fc" for v in values):
        return []
    x = _wide(case.args[0])
    if x.ndim < 2:
        return []
    factors = [np.asarray(v) for v in values]
    measure = Measure(x, max(float(np.finfo(f.dtype).eps) for f in factors))
    rule = RULES[case.op]
    try:
        with np.errstate(all="ignore"):
            rule(measure, *[_wide(f) for f in factors], **case.kwargs)
    except (ValueError, np.linalg.LinAlgError) as error:  # factors whose shapes do not fit together
        return [Mismatch("value", "factors", "do not fit", f"the factors do not fit together: {error}")]
    return [
        Mismatch("value", name, "violated", f"{name}: {what} = {worst:.3g}, allowed {THRESHOLD}")
        for name, worst, what in measure.found
    ]
