"""Dask arrays through ``array_api_compat.dask.array``, the standard's namespace that SciPy and
scikit-learn use for Dask: a backend computed chunk by chunk.

Eager is each array in one chunk. The execution mode ``chunked`` splits every array operand into
chunks of sizes drawn per axis (``drawn_chunks``: chunks of size 1, even chunks with an uneven
last one, cuts at random places), so that a result that crosses chunk boundaries is compared with
NumPy and with the same call in one chunk (reference ``mode:eager``): bit for bit, accumulations
within the oracle's bound. The sizes are drawn from a seed hashed from the operand's dtype, shape
and bytes: the same example gets the same chunks in every run and in its reproducer.

Results compute on Dask's synchronous scheduler (one thread, in order: deterministic and the
cheapest); where Dask's configuration names a distributed scheduler (``scheduler-address``,
``DASK_SCHEDULER_ADDRESS``), on a ``distributed.Client`` of it.
"""

from __future__ import annotations

import functools
import zlib

import numpy as np

from compat.adapters.base import Adapter
from compat.adapters.declared import unsupported
from compat.adapters.interchange import Interchange
from compat.adapters.namespace import NamespaceAdapter, NamespaceSpelling, standard_target
from compat.core import ops

NAMESPACE = "array_api_compat.dask.array"
# the standard's functions array_api_compat 1.16 leaves out of its Dask namespace (dask.array has no
# kernel for them), and what compat's table asks that Dask arrays cannot be
MISSING = {
    name: unsupported(f"{NAMESPACE} has no {spelled} (array_api_compat 1.16: dask.array lacks it)")
    for name, spelled in {
        "cross": "linalg.cross",
        "det": "linalg.det",
        "slogdet": "linalg.slogdet",
        "eig": "linalg.eig",
        "eigvals": "linalg.eigvals",
        "eigh": "linalg.eigh",
        "eigvalsh": "linalg.eigvalsh",
        "matrix_power": "linalg.matrix_power",
        "pinv": "linalg.pinv",
        "broadcast_shapes": "broadcast_shapes",
        "take_along_axis": "take_along_axis",
        "from_dlpack": "from_dlpack",
        "from_dlpack_of": "from_dlpack",
        "from_dlpack_onto": "from_dlpack",
    }.items()
}


def axis_chunks(length: int, rng: np.random.Generator) -> tuple[int, ...]:
    """Chunk sizes that add up to ``length``: all of size 1, or of one size with an uneven last
    chunk, or cut at one to three random places (sizes of 1 among them where cuts are adjacent)."""
    if length <= 1:
        return (length,)
    way = rng.integers(3)
    if way == 0:
        return (1,) * length
    if way == 1:
        size = int(rng.integers(1, length))
        return (size,) * (length // size) + ((length % size,) if length % size else ())
    cuts = rng.choice(np.arange(1, length), size=int(rng.integers(1, min(length - 1, 3) + 1)), replace=False)
    edges = [0, *sorted(int(c) for c in cuts), length]
    return tuple(np.diff(edges).tolist())


def drawn_chunks(array: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """The chunks of ``array`` in the chunked mode, per axis, from a seed of its dtype, shape and bytes."""
    seed = zlib.crc32(f"{array.dtype.str}{array.shape}".encode() + np.ascontiguousarray(array).tobytes())
    rng = np.random.default_rng(seed)
    return tuple(axis_chunks(n, rng) for n in array.shape)


@functools.cache
def client(address: str):
    """A distributed client of the scheduler at ``address`` (one per process)."""
    from distributed import Client

    return Client(address, set_as_default=False)


def in_drawn_chunks(operand):
    """A Dask array operand in the chunks ``drawn_chunks`` draws for its values; a number as it is."""
    import dask.array as da

    return operand.rechunk(drawn_chunks(np.asarray(operand))) if isinstance(operand, da.Array) else operand


class DaskSpelling(NamespaceSpelling):
    def array(self, variable, dtype, device=None):
        # in one chunk (an array of a test case is far below Dask's automatic chunk size)
        if device is None or device == self.adapter.reference_device:
            return f"xp.asarray({variable})"
        index = self.adapter.info.devices().index(self.adapter.placement.device_object(device))
        return f"xp.asarray({variable}, device=xp.__array_namespace_info__().devices()[{index}])"

    def mode_notes(self, case, mode: str) -> list[str]:
        """What the reproducer of a call in ``mode`` says of its operands: the chunks of each."""
        return [
            f"{mode}: {name} in chunks {drawn_chunks(array)} (compat.adapters.dask.drawn_chunks({name}))"
            for name, array in case.arrays().items()
        ]


class DaskInterchange(Interchange):
    exports = False  # a Dask array has no __dlpack__: other rows import no arrays of it


class DaskAdapter(NamespaceAdapter):
    name = "dask"
    requires = "dask"
    module = NAMESPACE
    imports = {"np": "numpy", "xp": NAMESPACE}
    Spelling = DaskSpelling
    Interchange = DaskInterchange
    OPS = {**{op.name: standard_target(op) for op in ops.TABLE if op.python is None}, **MISSING}
    MODES = {
        "eager": "each array in one chunk",
        "chunked": "each array operand rechunked to sizes drawn per axis (1, even with an uneven last, cut)",
    }
    DEFAULT_MODES = ("chunked",)

    def distribution(self) -> str:
        return "dask"

    def version(self) -> str:
        return Adapter.version(self)  # dask's, not array_api_compat's __version__

    def context(self, mode="eager"):
        import dask

        address = dask.config.get("scheduler-address", None)
        return dask.config.set(scheduler=client(address) if address else "synchronous")

    def compile(self, mode, function):
        if mode != "chunked":
            return super().compile(mode, function)
        return lambda *operands: function(*(in_drawn_chunks(operand) for operand in operands))
