"""The standard's creation functions. The values of arange and linspace are computed (start plus
i times a step), not copied: each is judged by the rounding of that computation; the others fill
in or copy values, to the bit; empty's values are whatever memory held."""

from __future__ import annotations

import numpy as np

from compat.core.operation import MATRIX, Op, X, f32
from compat.core.source import exported


def stepped(start, stop=None, step=None, **_):
    """arange's i-th value is start + i * step, rounded twice (NumPy's step is itself the
    rounded difference of its first two values, off by up to eps * (|start| + |step|),
    which i multiplies): at most 2 eps * (|start| + i * (|start| + |step|)) from the exact value."""
    start, stop, step = (np.nan if v is None else float(v) for v in (start, stop, step))  # None: NaN
    if np.isnan(stop):
        start, stop = 0.0, start
    step = 1.0 if np.isnan(step) else step
    i = np.arange(len(np.arange(start, stop, step)))
    return abs(start) + i * (abs(start) + abs(step)), 2


def spaced(start, stop, num, endpoint=True, **_):
    """linspace's values are start + i * (stop - start) / n, or stop - (n - i) * ..., as each
    backend chooses: a few roundings of numbers up to |start| + |stop|."""
    return np.full(int(num), abs(complex(start)) + abs(complex(stop))), 4


def _filled(name, params, about, example, **facts):
    return Op(name, params, "creation", about, correctly_rounded=True, example=example, **facts)


TABLE: tuple[Op, ...] = (
    Op(
        "asarray",
        "(obj)",
        "creation",
        "an array of a Python value (or a copy onto a device)",
        correctly_rounded=True,
        example=([1, 2.5],),
    ),
    # -- issue 31: the rest of the section --------------------------------------------------
    Op(
        "arange",
        "(start, stop=None, step=1, dtype=None)",
        "creation",
        "start, start + step, ... up to stop (excluded)",
        terms=stepped,
        static=(0, 1, 2),
        example=(0.5, 2.0, 0.25),
    ),
    Op(
        "empty",
        "(shape, dtype=None)",
        "creation",
        "an array whose values are whatever memory held",
        specified_values=False,
        example=((2, 3),),
    ),
    Op(
        "empty_like",
        "(x, dtype=None)",
        "creation",
        "an array like x whose values are whatever memory held",
        specified_values=False,
        example=(MATRIX,),
    ),
    _filled(
        "eye",
        "(n_rows, n_cols=None, k=0, dtype=None)",
        "ones on diagonal k",
        (3, 4),
        example_kwargs=(("k", 1),),
        static=(0, 1),
    ),
    _filled("from_dlpack", "(x)", "x through DLPack: the backend's array as NumPy's, and back", (MATRIX,)),
    Op(
        "to_device",
        "(x, device)",
        "placement",
        "x.to_device(device): the array object's move to a device (the standard's method), every bit kept",
        numpy="x.to_device('cpu')",
        moves_to=1,
        correctly_rounded=True,
        example=(MATRIX, "the reference device"),
    ),
    _filled(
        "from_dlpack_of",
        "(x, copy=None)",
        "another backend's array x imported through DLPack (x.__dlpack__(copy=...)), every bit kept",
        (exported("numpy", MATRIX),),
        signature="from_dlpack",
    ),
    Op(
        "from_dlpack_onto",
        "(x, device)",
        "creation",
        "another backend's array x imported through DLPack onto a device (from_dlpack(x, device=device)), "
        "every bit kept",
        numpy="np.from_dlpack(x, device='cpu')",
        moves_to=1,
        correctly_rounded=True,
        example=(exported("numpy", MATRIX), "the reference device"),
        signature="from_dlpack",
    ),
    _filled(
        "from_dlpack_written",
        "(x, copy)",
        "another backend's array x imported through DLPack with copy= True or False, its producer writing "
        "its array after the import (x.write()): copy=False shares its memory, copy=True copies it",
        (exported("numpy", MATRIX, "contiguous", "written"), False),
        signature="from_dlpack",
    ),
    _filled("full", "(shape, fill_value, dtype=None)", "fill_value everywhere", ((2, 3), 2.5)),
    _filled("full_like", "(x, fill_value, dtype=None)", "fill_value in x's shape and dtype", (MATRIX, 2.5)),
    Op(
        "linspace",
        "(start, stop, num, endpoint=True, dtype=None)",
        "creation",
        "num values evenly spaced from start to stop",
        terms=spaced,
        static=(2,),
        example=(0.0, 1.0, 5),
        example_kwargs=(("endpoint", False),),
    ),
    _filled(
        "meshgrid", "(*arrays, indexing='xy')", "coordinate grids", (X, f32(1, 2, 3)), values=("distinct",)
    ),
    _filled("ones", "(shape, dtype=None)", "ones", ((2, 3),)),
    _filled("ones_like", "(x, dtype=None)", "ones in x's shape and dtype", (MATRIX,)),
    _filled(
        "tril",
        "(x, k=0)",
        "the lower triangle (below diagonal k)",
        (MATRIX,),
        example_kwargs=(("k", 1),),
        values=("distinct",),
    ),
    _filled(
        "triu",
        "(x, k=0)",
        "the upper triangle (above diagonal k)",
        (MATRIX,),
        example_kwargs=(("k", 1),),
        values=("distinct",),
    ),
    _filled("zeros", "(shape, dtype=None)", "zeros", ((2, 3),)),
    _filled("zeros_like", "(x, dtype=None)", "zeros in x's shape and dtype", (MATRIX,)),
)
