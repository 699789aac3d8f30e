"""The standard's statistical functions: reductions, cumulative sums and products, and the
variance and standard deviation."""

from __future__ import annotations

import warnings

import numpy as np

from compat.core.operation import MATRIX, Op, averaged, count, everywhere, multiplied, no_ties, summed


def _reduction(name, about, **facts):
    return Op(
        name,
        "(x, axis=None, keepdims=False)",
        "reduction",
        about,
        example=(MATRIX,),
        example_kwargs=(("axis", 1), ("keepdims", True)),
        **facts,
    )


def _along(x, axis):
    """x and the axis a cumulative sum or product runs along (axis None: the flattened x)."""
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def _initial(magnitude, axis, include_initial):
    """The magnitudes with the exact initial element first (include_initial): its bound is 0."""
    if not include_initial:
        return magnitude
    shape = list(magnitude.shape)
    shape[axis] = 1
    return np.concatenate([np.zeros(shape), magnitude], axis=axis)


def running_sum(x, axis=None, include_initial=False, **_):
    """A cumulative sum: element k adds the first k terms (bound by all n of them)."""
    flat, along = _along(x, axis)
    magnitude = np.cumsum(np.abs(flat), axis=along)
    return _initial(magnitude, along, include_initial), flat.shape[along]


def running_product(x, axis=None, include_initial=False, **_):
    """A cumulative product: element k multiplies the first k terms, relative to |product|."""
    flat, along = _along(x, axis)
    magnitude = np.cumprod(np.abs(flat), axis=along)
    return _initial(magnitude, along, include_initial), flat.shape[along]


def squared(x, axis=None, keepdims=False, correction=0.0, **_):
    """var: a sum of n squared deviations from the mean over n - correction. Computed in any of
    the usual ways (two passes; Welford's updates; sum(x**2)/n - mean**2 in one pass) its
    rounding error is at most about n * eps * sum(x_i**2) / (n - correction): sum((x_i - m)**2)
    + n m**2 is sum(x_i**2), and the one-pass formula is that sum's cancellation (Chan, Golub
    and LeVeque, "Algorithms for computing the sample variance", 1983). Where the mean is
    large against the spread that is loose: so is what one pass loses there."""
    terms = count(x, axis)
    with np.errstate(all="ignore"):
        return np.sum(np.square(x), axis=axis, keepdims=keepdims) / (terms - correction), terms


def rooted(x, axis=None, keepdims=False, correction=0.0, **_):
    """std = sqrt(var): var's error over 2 * std (first order); where every value is equal
    (std 0) each deviation is the mean's own rounding, at most n * eps * |x|."""
    magnitude, terms = squared(x, axis, keepdims, correction)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no degrees of freedom left: NaN, judged as special
        deviation = np.sqrt(np.var(x, axis=axis, keepdims=keepdims, correction=correction))
        return np.where(deviation > 0, magnitude / (2 * deviation), np.sqrt(magnitude)), terms


def _spread(name, about, terms):
    return Op(
        name,
        "(x, axis=None, correction=0.0, keepdims=False)",
        "reduction",
        about,
        terms=terms,
        takes="real-valued floating-point",
        example=(MATRIX,),
        example_kwargs=(("axis", 1), ("correction", 1)),
    )


def _cumulative(name, about, terms, standard):
    return Op(
        name,
        "(x, axis=None, dtype=None, include_initial=False)",
        "reduction",
        about,
        terms=terms,
        takes="numeric",
        example=(MATRIX,),
        example_kwargs=(("axis", 1), ("include_initial", True)),
        standard=standard,
    )


TABLE: tuple[Op, ...] = (
    _reduction("sum", "sum of elements", terms=summed, smooth=everywhere, takes="numeric"),
    _reduction("prod", "product of elements", terms=multiplied, takes="numeric"),
    _reduction("mean", "arithmetic mean", terms=averaged, smooth=everywhere, takes="floating-point"),
    _reduction(
        "max",
        "largest element",
        correctly_rounded=True,
        smooth=no_ties,
        takes="real-valued",
        zero_sign_free=True,
    ),
    _reduction("min", "smallest element", correctly_rounded=True, takes="real-valued", zero_sign_free=True),
    # NumPy's cumsum (axis None: the flattened x) with the standard's include_initial
    _cumulative("cumsum", "running sum (include_initial: 0 first)", running_sum, "cumulative_sum"),
    _cumulative("cumprod", "running product (include_initial: 1 first)", running_product, "cumulative_prod"),
    _spread("var", "variance: squared deviations over n - correction", squared),
    _spread("std", "standard deviation: the square root of var", rooted),
)
