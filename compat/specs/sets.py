"""Sets: ``unique_all``, ``unique_counts``, ``unique_inverse``, ``unique_values`` and ``isin``.

The standard's rule of equality for unique values is ``equal``'s: each NaN is distinct (a
count of one each), and -0.0 and 0.0 are one value (their counts added up; which zero stands
for them is open). The values come flattened and, in NumPy and every backend compat maps,
sorted (NaN last); ``indices`` are first occurrences, ``inverse_indices`` have x's shape and
rebuild x from the values, ``counts`` follow the values' order. Every example meets the
class it is drawn for: several NaNs, both zeros, or integers only.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from compat.core.strategies import arrays, input_classes, one_example_on_modes_and_devices
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

# Every example of these specs meets the class it is drawn for (the value, order or axis its
# rule turns on is planted, not hoped for): half the profile's examples suffice, 5 a class at least
EVERY_EXAMPLE_MEETS_ITS_CLASS = 0.5

UNIQUE = ("unique_all", "unique_counts", "unique_inverse", "unique_values")
FEW = (-2.0, -1.0, 0.5, 1.0, 3.0)  # few values: repeats in every example


# each example checks the four unique functions: a quarter of the examples costs what half did with two
@input_classes("values", ("NaNs", "both zeros", "integers"), EVERY_EXAMPLE_MEETS_ITS_CLASS / 2)
@given(data=st.data())
def test_unique_functions_count_each_nan_once_and_both_zeros_together(xp, values, data):
    """unique_*(x) of a 0-d to 3-d x: the sorted distinct values, each NaN its own, -0.0 and
    0.0 one value; with first indices, inverse indices in x's shape, and counts."""
    dtype = data.draw(
        st.sampled_from(("int32", "uint8") if values == "integers" else ("float32", "float64")),
        label="dtype",
    )
    shape = data.draw(
        st.sampled_from(((), (3,), (5,), (2, 3), (3, 2))), label="shape"
    )  # few: JAX compiles each
    pool = [abs(int(v)) for v in FEW] if values == "integers" else list(FEW)
    x = data.draw(arrays(dtype, shape, elements=st.sampled_from(pool), op="unique_all"), label="x").reshape(
        -1
    )
    planted = {"NaNs": [np.nan, np.nan, 1.0], "both zeros": [-0.0, 0.0, -0.0], "integers": [0, 0]}[values]
    if x.size < len(planted):  # room for the class's values: the array grows along its last axis
        x, shape = np.zeros(len(planted), dtype=x.dtype), (len(planted),)
    places = data.draw(st.permutations(range(x.size)), label="places")
    x[list(places[: len(planted)])] = planted
    x = x.reshape(shape)
    for op in UNIQUE:  # every one on every row, modes and devices too (they run an example a class)
        xp.check(op, x)


@settings(max_examples=max(5, settings.default.max_examples // 8))
@given(data=st.data())
def test_isin(xp, data):
    """isin(x1, x2, invert): whether each x1 is among the x2 (of any shape; a Python int for
    either), negated by invert."""
    dtype = data.draw(st.sampled_from(("int32", "uint8")), label="dtype")
    values = st.integers(0, 6)
    x1 = data.draw(arrays(dtype, st.sampled_from(((), (4,), (2, 3))), values), label="x1")
    x2 = data.draw(arrays(dtype, st.sampled_from(((), (0,), (3,), (2, 2))), values), label="x2")
    if data.draw(st.booleans(), label="a Python int"):
        x1, x2 = (x1, int(x2.reshape(-1)[0])) if x2.size else (int(x1.reshape(-1)[0]), x2)
    xp.check("isin", x1, x2, invert=data.draw(st.booleans(), label="invert"))


test_every_form_of_every_parameter = every_form("sets")
