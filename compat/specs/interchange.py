"""Interchange: arrays moved between backends through DLPack keep every bit.

Each row is a consumer: its ``from_dlpack`` (the table's ``from_dlpack_of``) imports an array
that a producer made and exported (``x.__dlpack__``, with ``copy=`` as the consumer asks it)
— every backend the session checks, the row's own included (``producers(xp)``), each eager on
its default device. The result must keep the dtype, the shape, the element order of a
producer's transposed or sliced view (what its strides mean), and every bit (signed zeros,
NaN payloads, subnormals, infinities, the extremes), compared with the values the producer
was given, bit for bit. Where a pair cannot cross (a dtype DLPack or one side has no code
for), the error is recorded like any other outcome. Execution modes declare the import
unsupported: a traced array has no buffer.

Within a backend, ``to_device`` moves an array to each of its devices and back, every bit kept;
and the inspection namespace states what the backend does: its default dtypes are what the
backend's own arrays get, the dtypes it lists for a kind are those of the kind it makes, its
devices those arrays land on, its capabilities what indexing by a mask, nonzero and a rank do.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes
from compat.core.source import LAYOUTS, exported
from compat.core.strategies import examples, one_example_on_modes_and_devices

pytestmark = one_example_on_modes_and_devices()

# the layouts and copy= requests of the table: each layout as the consumer asks by default, and a
# copy asked for and refused where no view is involved and where one is
FORMS = (
    ("contiguous", None),
    ("contiguous", True),
    ("contiguous", False),
    ("transposed", None),
    ("transposed", False),
    ("sliced", None),
)


def producers(xp, writable: bool = False) -> list[str]:
    """The backends whose arrays this row imports: its own, and compat's others in the session;
    ``writable``: those whose arrays their producer writes in place (``Interchange.writable``)."""
    own = [xp.backend.name] if not writable or xp.backend.interchange.writable else []
    others = xp.session.writable_producers if writable else xp.session.producers
    return list(dict.fromkeys([*own, *(others or ())]))


def edge_values(name: str) -> np.ndarray:
    """Values that carry every bit of the dtype: both zeros, NaNs with a sign and a payload,
    the smallest subnormal, infinities, the extremes (ints: the limits, 0 and -1)."""
    dtype = dtypes.to_numpy(name)
    if name == "bool":
        return np.array([True, False, False, True, True, False], dtype=dtype)
    if name in dtypes.INTEGER:
        info = np.iinfo(dtype)
        return np.array([info.min, info.max, 0, 1, info.max // 3, info.min // 7], dtype=dtype)
    if name in dtypes.COMPLEX:
        real = edge_values({"complex64": "float32", "complex128": "float64"}[name])
        return (real + 1j * real[::-1]).astype(dtype)
    finfo = ml_dtypes.finfo(dtype)  # NumPy's finfo does not know bfloat16
    unsigned = np.dtype(f"uint{8 * dtype.itemsize}")
    nan = np.array(np.nan, dtype=dtype).view(unsigned)
    payloads = np.array([nan | 1, nan | np.array(1 << (8 * dtype.itemsize - 1), unsigned)], unsigned)
    values = np.array(
        [-0.0, 0.0, np.inf, -np.inf, finfo.max, -finfo.max, finfo.smallest_subnormal, -finfo.tiny, 1.0, 0.0],
        dtype=dtype,
    )
    return np.concatenate([values, payloads.view(dtype)])


ON_THE_DEFAULT_DEVICE = pytest.mark.compat_where(
    lambda row, backend: row.device is None,
    "from_dlpack keeps the producer's device (the standard): the producers are on theirs",
)


def laid_out(values: np.ndarray, layout: str) -> np.ndarray:
    """The values in a shape the layout takes: a matrix to transpose, rows to slice."""
    return values.reshape(2, -1) if layout != "contiguous" else values


@ON_THE_DEFAULT_DEVICE
@pytest.mark.compat_requires("from_dlpack_of")  # an execution mode has no buffer to import
def test_every_producer_dtype_and_layout_keeps_every_bit(xp):
    """from_dlpack of each producer's array of every dtype, as made, transposed and sliced, with
    copy= None, True and False: the same dtype, shape, element order and bits as the values the
    producer made it of."""
    table = [
        (producer, name, layout, copy)
        for producer in producers(xp)
        for name in dtypes.ALL
        for layout, copy in FORMS
    ]
    for producer, name, layout, copy in xp.sample(table, least=len(dtypes.ALL)):
        x = exported(producer, laid_out(edge_values(name), layout), layout)
        xp.check_exact("from_dlpack_of", x, **({} if copy is None else {"copy": copy}))


def any_values(name: str, shape) -> st.SearchStrategy[np.ndarray]:
    """Every value of the dtype (NaNs, infinities, subnormals, both zeros), any shape."""
    if name == "bfloat16":
        return hnp.arrays(np.float32, shape, elements=st.floats(width=32)).map(
            lambda a: a.astype(dtypes.to_numpy("bfloat16"))
        )
    return hnp.arrays(dtypes.to_numpy(name), shape)


@ON_THE_DEFAULT_DEVICE
@pytest.mark.compat_requires("from_dlpack_of")  # an execution mode has no buffer to import
@examples(0.25)
@given(data=st.data())
def test_arrays_of_any_shape_cross_bit_for_bit(xp, data):
    """Any producer's array of any dtype and shape (0-d and size-0 included; a transpose or a
    slice of two dimensions), imported with a drawn copy=, is the same array, bit for bit."""
    producer = data.draw(st.sampled_from(producers(xp)), label="producer")
    name = data.draw(st.sampled_from(dtypes.ALL), label="dtype")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    shape = (
        data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3), label="shape")
        if layout == "contiguous"
        else data.draw(hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=4), label="shape")
    )
    copy = data.draw(st.sampled_from([None, True, False]), label="copy")
    x = exported(producer, data.draw(any_values(name, shape), label="x"), layout)
    xp.check_exact("from_dlpack_of", x, **({} if copy is None else {"copy": copy}))


@pytest.mark.compat_requires("from_dlpack_onto")  # an execution mode has no buffer to import
def test_from_dlpack_onto_each_device_keeps_every_bit(xp):
    """from_dlpack(x, device=d) of each producer's array of every dtype (made on the producer's
    default device) is the same array on d, every bit, for each device d the backend sees (on a
    device row, that device): the consumer moves what the producer hands over."""
    devices = [xp.device] if xp.device is not None else xp.backend.placement.devices()
    table = [
        (producer, name, device) for producer in producers(xp) for name in dtypes.ALL for device in devices
    ]
    for producer, name, device in xp.sample(table, least=len(dtypes.ALL)):
        xp.check_exact("from_dlpack_onto", exported(producer, edge_values(name)), device)


@ON_THE_DEFAULT_DEVICE
@pytest.mark.compat_requires("from_dlpack_written")  # an execution mode has no buffer to import
@pytest.mark.parametrize("copy", [False, True], ids=["copy=False", "copy=True"])
def test_copy_false_shares_memory_and_copy_true_copies(xp, copy):
    """from_dlpack(x, copy=False) never copies (the standard): the values a writable producer
    (its arrays written in place) writes into its array after the import show in the result, the
    array having held other bits before; from_dlpack(x, copy=True) always copies: the producer's
    writing other bits after the import leaves the result the values exported. Every writable
    producer, dtype and layout (a view writes its base's memory)."""
    if not producers(xp, writable=True):
        pytest.skip("no backend of the session writes its arrays in place (Interchange.writable)")
    write = "overwritten" if copy else "written"
    table = [
        (producer, name, layout)
        for producer in producers(xp, writable=True)
        for name in dtypes.ALL
        for layout in LAYOUTS
    ]
    for producer, name, layout in xp.sample(table, least=len(dtypes.ALL)):
        x = exported(producer, laid_out(edge_values(name), layout), layout, write)
        xp.check_exact("from_dlpack_written", x, copy=copy)


# each kind of default_dtypes() and a call that makes an array of that kind's default dtype
DEFAULTS = {
    "real floating": ("asarray", 1.0),
    "integral": ("asarray", 1),
    "complex floating": ("asarray", 1j),
    "indexing": ("argmax", np.array([1, 3, 2], dtype=np.int8)),
}


@pytest.mark.parametrize("kind", list(DEFAULTS))
def test_namespace_info_states_the_dtypes_the_backend_makes(xp, kind):
    """__array_namespace_info__().default_dtypes()[kind] is the dtype the backend's own arrays get:
    asarray of a Python float, int or complex, argmax's indices (reference itself:<call>)."""
    xp.check_itself("default_dtype", kind, against=DEFAULTS[kind])


# every kind the standard's inspection namespace names, and a tuple of kinds (their union)
KINDS = (*dtypes.KINDS, ("bool", "real floating"))


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_namespace_info_lists_the_dtypes_of_a_kind_the_backend_makes(xp, kind):
    """__array_namespace_info__().dtypes(kind=kind) lists each of the standard's dtypes of the kind
    that the backend makes (zeros and asarray with dtype=d give d), and no other (reference
    itself:made_dtypes; the kind's dtypes as the standard defines it)."""
    xp.check_itself("info_dtypes", kind, against=("made_dtypes", dtypes.of_kind(kind)))


def test_namespace_info_lists_the_device_arrays_land_on(xp):
    """devices() lists the device an array of each of the standard's dtypes lands on (on a device
    row, that device), and dtypes(device=) that device's dtype: NumPy's answer, both True."""
    for name in dtypes.STANDARD:
        xp.check("info_lists_device", np.zeros(2, dtype=dtypes.to_numpy(name)))


def test_namespace_info_capabilities_are_what_the_backend_does(xp):
    """capabilities() states what the backend does: "boolean indexing" whether x[mask] works,
    "data-dependent shapes" whether nonzero and unique_values work, "max dimensions" the most
    dimensions an array takes (reference itself:shown_capabilities)."""
    xp.check_itself("info_capabilities", against=("shown_capabilities",))


@pytest.mark.compat_requires("to_device")
@given(data=st.data())
@examples(0.25)
def test_to_device_and_back_keeps_every_bit(xp, data):
    """x.to_device(d) for each device d the backend sees (compat's plug-in devices included; on
    a device row, back to the default one) is the same array on d, every bit kept."""
    name = data.draw(st.sampled_from(dtypes.ALL), label="dtype")
    x = data.draw(
        any_values(name, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)), label="x"
    )
    for device in xp.backend.placement.devices():
        xp.check_exact("to_device", x, device)
