"""Linear algebra faults: a factor or a batch that breaks what the result must satisfy, a tolerance
ignored; and a control, a correct result that differs from NumPy's where the standard leaves it
open (eigenvector signs, the order of equal eigenvalues), which must show nothing."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault, with_values
from compat.adapters.numpy import NumpyAdapter


class FactorsFault(NumpyAdapter):
    """A fault in the results of a call that returns several (a factorization's factors): ``wrong``
    gets the operation, its arguments and NumPy's results, and returns the faulty ones, or None
    where the rule is kept; the call's keyword arguments are ``self.kwargs`` meanwhile."""

    def call(self, op, args, kwargs=None, device=None):
        self.kwargs = kwargs or {}
        outcome = super().call(op, args, kwargs, device)
        parts = outcome.parts
        if outcome.raised or parts is None or any(p.values is None for p in parts):
            return outcome
        with np.errstate(all="ignore"):
            values = self.wrong(op, args, tuple(p.values for p in parts))
        if values is None:
            return outcome
        return replace(outcome, parts=[with_values(p, np.asarray(v)) for p, v in zip(parts, values)])

    def wrong(self, op: str, args: tuple, values: tuple) -> tuple | None:
        raise NotImplementedError


class EighReadsTheUpperTriangle(FactorsFault):
    """eigh decomposes the Hermitian matrix of the input's upper triangle (UPLO='U') where the
    standard's libraries read the lower: the other triangle of a matrix whose two differ."""

    name = "broken_eigh_upper_triangle"
    family = "linalg"
    catch = Catch("test_hermitian_matrices", "eigh", "value", narrow="upper")

    def wrong(self, op, args, values):
        if op != "eigh" or args[0].size == 0:
            return None
        return tuple(np.linalg.eigh(args[0], UPLO="U"))


class QrRowSignFlipped(FactorsFault):
    """qr negates R's first row without negating Q's first column (a sign normalization applied
    to one factor only): Q R no longer reconstructs the input."""

    name = "broken_qr_row_sign"
    family = "linalg"
    catch = Catch("test_rectangular_matrices", "qr", "value")

    def wrong(self, op, args, values):
        if op != "qr" or values[1].shape[-2] == 0:
            return None
        q, r = values
        r = r.copy()
        r[..., 0, :] = -r[..., 0, :]
        return q, r


class PinvIgnoresRtol(ResultFault):
    """pinv ignores rtol= and cuts at its default (max(M, N) eps sigma_1): a small singular
    value the caller asked to drop is inverted."""

    name = "broken_pinv_ignores_rtol"
    family = "linalg"
    catch = Catch("test_rectangular_matrices", "pinv", "value", narrow="rank")

    def wrong(self, op, args, values):
        if op != "pinv" or self.kwargs.get("rtol") is None:
            return None
        return np.linalg.pinv(args[0]).astype(values.dtype)


class DetBatchReversed(ResultFault):
    """det of a stack of matrices returns the determinants in reverse batch order (a kernel that
    walks the batch from its end and writes from the start)."""

    name = "broken_det_batch_reversed"
    family = "linalg"
    catch = Catch("test_square_matrices", "det", "value", narrow="batched")

    def wrong(self, op, args, values):
        if op != "det" or values.ndim == 0:
            return None
        return values.reshape(-1)[::-1].reshape(values.shape)


class FactorsTheOtherWay(FactorsFault):
    """Control, not a fault: eigenvectors and singular vectors negated (every other column; times
    1j where complex), the columns of equal eigenvalues swapped, Q's first column and R's first
    row both negated, eigvals in reverse order: each result still right, so the specs must show
    nothing."""

    name = "control_factors_the_other_way"
    family = "linalg"
    control = True

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "eigvals" or outcome.raised or outcome.values is None:
            return outcome
        return with_values(outcome, outcome.values[..., ::-1].copy())

    def wrong(self, op, args, values):
        if op == "eigh":
            w, v = values
            v = v * self.signs(v)
            w, v = w.copy(), v.copy()
            for i in range(w.shape[-1] - 1):  # equal eigenvalues (within rounding): their columns swapped
                scale = 10 * np.finfo(w.dtype).eps * np.max(np.abs(w), initial=1.0)
                tie = np.abs(w[..., i + 1] - w[..., i]) <= scale
                v[tie, :, i], v[tie, :, i + 1] = v[tie, :, i + 1], v[tie, :, i].copy()
            return w, v
        if op == "eig":
            w, v = values
            return w, v * self.signs(v)
        if op == "svd":
            u, s, vh = values
            k = s.shape[-1]
            signs = self.signs(u[..., :k])
            u, vh = u.copy(), vh.copy()
            u[..., :k] = u[..., :k] * signs
            vh[..., :k, :] = vh[..., :k, :] * np.conj(np.swapaxes(signs, -1, -2))
            return u, s, vh
        if op == "qr" and values[1].shape[-2] > 0 and values[0].shape[-1] > 0:
            q, r = values[0].copy(), values[1].copy()
            q[..., :, 0], r[..., 0, :] = -q[..., :, 0], -r[..., 0, :]
            return q, r
        return None

    @staticmethod
    def signs(columns: np.ndarray) -> np.ndarray:
        """-1 (1j where complex) for every other column, 1 for the rest: a row to multiply by."""
        flip = -1 if columns.dtype.kind != "c" else 1j
        return np.where(np.arange(columns.shape[-1]) % 2 == 1, flip, 1).astype(columns.dtype)[None, :]
