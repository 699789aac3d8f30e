"""The fft extension of the standard, compared with NumPy's ``np.fft``.

- every transform along one axis (``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``, ``ihfft``)
  and over several (``fftn``, ``ifftn``, ``rfftn``, ``irfftn``), in each ``norm=`` mode
  ("backward", "ortho", "forward"), with the length omitted, shorter than the axis (cropped) and
  longer (zero-padded), along any axis; float32, float64, complex64 and complex128 inputs (the
  real transforms' real ones), judged by the n log n accumulation bound the table states
  (compat.core.table.fft) and by NumPy's result dtype (complex64 for float32: NumPy 2 keeps
  the precision);
- ``fftshift`` and ``ifftshift`` exactly, ``fftfreq`` and ``rfftfreq`` within the rounding of
  k * (1 / (n d)).
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from compat.core import ops
from compat.core.strategies import arrays, input_classes, one_example_on_modes_and_devices
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

ONE_AXIS = ops.names("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
SEVERAL_AXES = ops.names("fftn", "ifftn", "rfftn", "irfftn")
REAL_INPUT = ("rfft", "ihfft", "rfftn")  # the standard: a real-valued floating-point input
NORMS = ("backward", "ortho", "forward")
LENGTHS = ("omitted", "shorter (cropped)", "longer (padded)")
VALUES = st.integers(-16, 16).map(lambda k: k / 4)  # exact in every float dtype: the bound is the transform's


def signal(data, name: str, dims: int):
    """An input for transform ``name``: real for the real transforms, else real or complex."""
    floats = ("float32", "float64")
    dtype = data.draw(st.sampled_from(floats if name in REAL_INPUT else (*floats, "complex64", "complex128")))
    shape = data.draw(st.lists(st.integers(1, 6), min_size=dims, max_size=dims + 1).map(tuple), label="shape")
    x = data.draw(arrays(dtype, shape, elements=VALUES), label=f"{name} input")
    if dtype.startswith("complex"):
        x = x + 1j * data.draw(arrays(dtype, shape, elements=VALUES), label="imaginary part")
    return x.astype(dtype)


def length(data, side: int, kind: str):
    if kind == "omitted":
        return None
    if kind == "shorter (cropped)":
        return data.draw(st.integers(1, max(1, side - 1)), label="n")
    return data.draw(st.integers(side + 1, side + 4), label="n")


@input_classes("n", LENGTHS)
@given(data=st.data())
def test_transforms_along_one_axis(xp, n, data):
    """fft, ifft, rfft, irfft, hfft and ihfft along a drawn axis, with n omitted, shorter than
    the axis (the input is cropped) or longer (zero-padded), in each norm mode: NumPy's values
    within the n log n bound, and its dtype. Each example checks every one."""
    for name in ONE_AXIS:
        x = signal(data, name, 1)
        axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
        norm = data.draw(st.sampled_from(NORMS), label="norm")
        xp.check(name, x, n=length(data, x.shape[axis], n), axis=axis, norm=norm)


@input_classes("s", LENGTHS)
@given(data=st.data())
def test_transforms_over_several_axes(xp, s, data):
    """fftn, ifftn, rfftn and irfftn over drawn axes (or all of them), with s omitted, shorter
    or longer than each axis, in each norm mode. Each example checks every one."""
    for name in SEVERAL_AXES:
        x = signal(data, name, 2)
        axes = data.draw(st.none() | st.permutations(range(x.ndim)).map(lambda p: tuple(p[:2])), label="axes")
        over = axes if axes is not None else tuple(range(x.ndim))
        lengths = None if s == "omitted" else tuple(length(data, x.shape[a], s) for a in over)
        norm = data.draw(st.sampled_from(NORMS), label="norm")
        xp.check(name, x, s=lengths, axes=axes, norm=norm)


# (operation, arguments, keyword arguments): every length to 9, three spacings, each shift form
FREQUENCIES = [
    (name, (n,), {"d": d}) for name in ("fftfreq", "rfftfreq") for n in range(1, 10) for d in (1.0, 0.5, 0.1)
]
GRID = np.arange(12.0, dtype=np.float32).reshape(3, 4)
SHIFTS = [
    (name, (x,), {"axes": axes})
    for name in ("fftshift", "ifftshift")
    for x in (np.arange(5.0), np.arange(6.0), GRID)
    for axes in (None, -1, (0,) if x.ndim == 1 else (0, 1))
]


def test_frequencies_and_shifts(xp):
    """fftfreq(n, d) and rfftfreq(n, d) for every n to 9 and three spacings (within the rounding
    of k * (1 / (n d))), fftshift and ifftshift of odd and even lengths over every axis, one or
    a tuple (bit for bit): every row, a row's share of them on devices and modes."""
    for name, args, kwargs in xp.sample(FREQUENCIES + SHIFTS):
        xp.check(name, *args, **kwargs)


test_every_form_of_every_parameter = every_form("fft")
