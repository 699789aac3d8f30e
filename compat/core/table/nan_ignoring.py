"""The NaN-ignoring reductions the frameworks have beside the standard (NumPy's ``nansum``,
``nanmean``, ``nanmax``, ``nanargmin``, ...; ``jnp`` has them all, torch ``nansum`` and
``nanmean``, ``tf.experimental.numpy`` ``nansum``, ``nanprod`` and ``nanmean``): each reduces
as its plain reduction would with every NaN left out (a sum or cumulative sum counts it as 0, a
product as 1, a mean, variance or standard deviation divides by the number of other elements).
A lane that is all NaN is where they part: NumPy's nanmax and nanmin give NaN (with a warning),
its nanargmax and nanargmin raise ValueError, its nanmean, nanvar and nanstd give NaN."""

from __future__ import annotations

import warnings

import numpy as np

from compat.core.operation import MATRIX, Op, count

# The bounds count every element of a lane as a term (NaNs too): a bound may be loose, never tight.


def _present(x, fill):
    """x with every NaN replaced by ``fill``."""
    return np.where(np.isnan(x), fill, x)


def nan_summed(x, axis=None, keepdims=False, **_):
    return np.sum(np.abs(_present(x, 0)), axis=axis, keepdims=keepdims), count(x, axis)


def nan_multiplied(x, axis=None, keepdims=False, **_):
    return np.prod(np.abs(_present(x, 1)), axis=axis, keepdims=keepdims), count(x, axis)


def nan_averaged(x, axis=None, keepdims=False, **_):
    total, terms = nan_summed(x, axis, keepdims)
    present = np.sum(~np.isnan(x), axis=axis, keepdims=keepdims)
    return total / np.maximum(present, 1), terms


def nan_squared(x, axis=None, keepdims=False, ddof=0, **_):
    """nanvar: var's bound (compat.core.table.statistical.squared) over the elements present."""
    present = np.sum(~np.isnan(x), axis=axis, keepdims=keepdims)
    with np.errstate(all="ignore"):
        squares = np.sum(np.square(_present(x, 0)), axis=axis, keepdims=keepdims)
        return squares / np.maximum(present - ddof, 1), count(x, axis)


def nan_rooted(x, axis=None, keepdims=False, ddof=0, **_):
    """nanstd = sqrt(nanvar): nanvar's error over 2 * nanstd (first order)."""
    magnitude, terms = nan_squared(x, axis, keepdims, ddof)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an all-NaN lane: NaN, judged as special
        deviation = np.nanstd(x, axis=axis, keepdims=keepdims, ddof=ddof)
        return np.where(deviation > 0, magnitude / (2 * deviation), np.sqrt(magnitude)), terms


def nan_running(total):
    def running(x, axis=None, **_):
        flat, along = (x.reshape(-1), 0) if axis is None else (x, axis)
        magnitude = np.abs(_present(flat, 0 if total is np.cumsum else 1))
        return total(magnitude, axis=along), flat.shape[along]

    return running


def _nan(name, about, params="(x, axis=None, keepdims=False)", **facts):
    return Op(
        name,
        params,
        "nan reduction",
        about,
        takes="real-valued floating-point",
        example=(MATRIX,),
        example_kwargs=(("axis", 1),),
        **facts,
    )


TABLE: tuple[Op, ...] = (
    _nan("nansum", "sum of the elements that are not NaN (0 if none)", terms=nan_summed),
    _nan("nanprod", "product of the elements that are not NaN (1 if none)", terms=nan_multiplied),
    _nan("nanmean", "mean of the elements that are not NaN (NaN if none)", terms=nan_averaged),
    _nan(
        "nanmax", "largest element that is not NaN (NaN if none)", correctly_rounded=True, zero_sign_free=True
    ),
    _nan(
        "nanmin",
        "smallest element that is not NaN (NaN if none)",
        correctly_rounded=True,
        zero_sign_free=True,
    ),
    _nan(
        "nanargmax",
        "index of the first largest element that is not NaN (an all-NaN lane: ValueError)",
        correctly_rounded=True,
    ),
    _nan(
        "nanargmin",
        "index of the first smallest element that is not NaN (an all-NaN lane: ValueError)",
        correctly_rounded=True,
    ),
    _nan(
        "nanvar",
        "variance of the elements that are not NaN, over their number - ddof",
        "(x, axis=None, ddof=0, keepdims=False)",
        terms=nan_squared,
    ),
    _nan(
        "nanstd",
        "standard deviation of the elements that are not NaN",
        "(x, axis=None, ddof=0, keepdims=False)",
        terms=nan_rooted,
    ),
    _nan("nancumsum", "running sum, NaN counted as 0", "(x, axis=None)", terms=nan_running(np.cumsum)),
    _nan("nancumprod", "running product, NaN counted as 1", "(x, axis=None)", terms=nan_running(np.cumprod)),
)
