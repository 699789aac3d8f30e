"""The standard's fft extension: the discrete Fourier transforms, their frequencies and shifts.

A transform of n points sums n terms per output element, but through an n log n algorithm each
output is rounded about log2(n) times (a radix-2 pass per level), and a length with a large
prime factor goes through Bluestein's algorithm: three transforms of a power of two of at least
2n points. ``transformed`` states the bound the oracle allows: per output element
(4 ceil(log2(2n)) + 4) eps times the sum of the |x_k| of the whole input (other lanes of a
batch too: loose, never tight), scaled as the norm= mode
scales the result (a multiple of Higham's bound for Cooley-Tukey, log2(n) eps ||x||, loose
enough for every library's radix mix and twiddle tables, tight enough that a wrong factor, a
wrong sign, a wrong normalization or a wrong padding is far outside it). The shifts are exact,
the frequencies within the rounding of k * (1 / (n d)).
"""

from __future__ import annotations

import math

import numpy as np

from compat.core.operation import Op

SIGNAL = np.array([1.0, -2.0, 0.5, 3.0, 0.0, -1.0], dtype=np.float32)


def _sizes(x, n=None, s=None, axis=-1, axes=None, **_):
    """The transformed axes and their lengths (n= or s=, else the input's)."""
    if axes is None and s is None:
        axes = (axis,)
    elif axes is None:
        axes = tuple(range(-len(s), 0))
    lengths = s if s is not None else (n,) * len(axes) if n is not None else None
    lengths = lengths or tuple(x.shape[a] for a in axes)
    return tuple(axes), tuple(lengths)


def transformed(x, n=None, axis=-1, norm="backward", s=None, axes=None, *, inverse=False, half=False, **_):
    """Each output element's bound: sum |x_k| over the input (twice that for a half spectrum, whose
    interior coefficients stand for two), as the norm= mode scales it, with
    (4 ceil(log2(2N)) + 4) terms, N the product of the transform's lengths."""
    axes, lengths = _sizes(x, n, s, axis, axes)
    size = max(2, math.prod(lengths))
    total = float(np.sum(np.abs(np.asarray(x, dtype=np.complex128)))) * (2 if half else 1)
    unscaled = "forward" if inverse else "backward"  # the mode that leaves this direction unscaled
    scale = 1.0 if (norm or "backward") == unscaled else 1 / math.sqrt(size) if norm == "ortho" else 1 / size
    return total * scale, 4 * math.ceil(math.log2(2 * size)) + 4


def spaced(frequencies):
    """fftfreq and rfftfreq compute k * (1 / (n d)): two roundings (NumPy's way and every
    library's), so an ULP beside the correctly rounded value: one term of |k / (n d)|."""

    def terms(n, d=1.0, **_):
        return np.abs(frequencies(n, d)), 1

    return terms


def _transform(name, about, params, inverse=False, half=False, takes="numeric", example=(SIGNAL,)):
    def terms(x, *args, **kwargs):
        return transformed(x, *args, inverse=inverse, half=half, **kwargs)

    return Op(
        name,
        params,
        "fft",
        about,
        numpy=f"np.fft.{name}",
        terms=terms,
        takes=takes,
        example=example,
        standard=f"fft.{name}",
    )


ONE_AXIS = "(x, n=None, axis=-1, norm='backward')"
AXES = "(x, s=None, axes=None, norm='backward')"

TABLE: tuple[Op, ...] = (
    _transform("fft", "discrete Fourier transform along one axis", ONE_AXIS),
    _transform("ifft", "inverse discrete Fourier transform along one axis", ONE_AXIS, inverse=True),
    _transform("fftn", "n-dimensional discrete Fourier transform", AXES),
    _transform("ifftn", "n-dimensional inverse transform", AXES, inverse=True),
    _transform(
        "rfft",
        "transform of a real signal: the n//2 + 1 non-negative frequencies",
        ONE_AXIS,
        takes="real-valued floating-point",
    ),
    _transform(
        "irfft",
        "inverse of rfft: a real signal of n points",
        ONE_AXIS,
        inverse=True,
        half=True,
        example=(SIGNAL.astype(np.complex64)[:4],),
    ),
    _transform("rfftn", "n-dimensional transform of a real signal", AXES, takes="real-valued floating-point"),
    _transform(
        "irfftn",
        "inverse of rfftn",
        AXES,
        inverse=True,
        half=True,
        example=(SIGNAL.astype(np.complex64)[:4],),
    ),
    _transform(
        "hfft",
        "transform of a Hermitian-symmetric signal: a real spectrum",
        ONE_AXIS,
        half=True,
        example=(SIGNAL.astype(np.complex64)[:4],),
    ),
    _transform(
        "ihfft",
        "inverse of hfft: the n//2 + 1 values of a Hermitian signal",
        ONE_AXIS,
        inverse=True,
        takes="real-valued floating-point",
    ),
    Op(
        "fftfreq",
        "(n, d=1.0)",
        "fft",
        "sample frequencies of an n-point transform",
        numpy="np.fft.fftfreq",
        terms=spaced(np.fft.fftfreq),
        example=(6,),
        standard="fft.fftfreq",
        static=(0,),
    ),
    Op(
        "rfftfreq",
        "(n, d=1.0)",
        "fft",
        "the non-negative frequencies of rfft",
        numpy="np.fft.rfftfreq",
        terms=spaced(np.fft.rfftfreq),
        example=(6,),
        standard="fft.rfftfreq",
        static=(0,),
    ),
    Op(
        "fftshift",
        "(x, axes=None)",
        "fft",
        "the zero frequency moved to the centre",
        numpy="np.fft.fftshift",
        correctly_rounded=True,
        example=(SIGNAL,),
        standard="fft.fftshift",
        values=("distinct",),
    ),
    Op(
        "ifftshift",
        "(x, axes=None)",
        "fft",
        "inverse of fftshift",
        numpy="np.fft.ifftshift",
        correctly_rounded=True,
        example=(SIGNAL,),
        standard="fft.ifftshift",
        values=("distinct",),
    ),
)
