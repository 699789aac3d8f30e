"""The data type functions: result_type, can_cast, finfo, iinfo and isdtype.

Each backend's answers are NumPy's, for every dtype, pair of dtypes and kind the function
takes (the table's ``takes``: finfo of the floating-point dtypes, iinfo of the integers), the
dtypes passed as the backend's own dtype objects; finfo's and iinfo's answers field by field
(bits, eps, max, min, smallest_normal, dtype), exactly. And a backend's ``result_type(A, B)``
is the dtype its own ``add(a, b)`` returns, for every pair: the same question asked two ways
(reference ``itself:add``), so a result_type that does not say what the backend computes is a
divergence even where both answers differ from NumPy's.

Where NumPy with ml_dtypes has no common dtype (bfloat16 with float16 or with integers wider
than 8 bits) there is no reference for result_type, as in the promotion family. Execution
modes have nothing to compile here (no array in, a dtype or a bool out): their rows skip.
"""

import pytest

from compat.core import dtypes, ops
from compat.core.dtypes import DType
from compat.core.strategies import dtype_pairs, one_example_on_modes_and_devices
from compat.specs._forms import every_form
from compat.specs.promotion import LEFT, RIGHT, has_reference, sample

pytestmark = one_example_on_modes_and_devices()

# the standard's kinds (isdtype), a union of kinds, and a dtype as a kind
KINDS = (
    "bool",
    "signed integer",
    "unsigned integer",
    "integral",
    "real floating",
    "complex floating",
    "numeric",
    ("signed integer", "real floating"),
    DType("float32"),
)


# the adapters declare these functions unsupported in a mode (Adapter.unsupported)
pytestmark = pytest.mark.compat_where(
    lambda row, backend: row.mode == "eager",
    "the data type functions compute no array: an execution mode has nothing to compile",
)


def taken_by(op: str) -> list[str]:
    """The dtypes (here) of the category the operation takes (finfo: floating-point ones)."""
    return [name for name in dtypes.CATEGORIES[ops.get(op).takes] if name in dtypes.available()]


def test_result_type_of_every_pair_of_dtypes(xp):
    """result_type(A, B) is the dtype NumPy promotes A and B to, for every A, B NumPy promotes."""
    for left, right in xp.sample(dtype_pairs()):
        if has_reference(left, right):
            xp.check("result_type", DType(left), DType(right))


def test_result_type_is_the_dtype_of_the_backends_own_add(xp):
    """result_type(A, B) is the dtype the backend's own add returns for arrays of A and B (or both
    refuse the pair), for every A, B: a backend's promotion rule is one rule."""
    for left, right in xp.sample(dtype_pairs()):
        xp.check_itself(
            "result_type",
            DType(left),
            DType(right),
            against=("add", sample(left, LEFT), sample(right, RIGHT)),
        )


def test_can_cast_every_pair_of_dtypes(xp):
    """can_cast(A, B) is NumPy's answer (a cast that the promotion rules allow), for every A, B."""
    for source, target in xp.sample(dtype_pairs()):
        xp.check("can_cast", DType(source), DType(target))


def test_finfo_of_every_floating_point_dtype(xp):
    """finfo(A)'s bits, eps, max, min, smallest_normal and dtype are NumPy's (a complex dtype's
    are its component's), exactly, for every floating-point A."""
    for name in xp.sample(taken_by("finfo")):
        xp.check("finfo", DType(name))


def test_iinfo_of_every_integer_dtype(xp):
    """iinfo(A)'s bits, max, min and dtype are NumPy's, for every integer A."""
    for name in xp.sample(taken_by("iinfo")):
        xp.check("iinfo", DType(name))


def test_isdtype_of_every_dtype_and_kind(xp):
    """isdtype(A, kind) is NumPy's answer for every A and every kind of the standard, a union of
    kinds and a dtype as the kind."""
    for name in xp.sample(dtypes.available()):
        for kind in KINDS:
            xp.check("isdtype", DType(name), kind)


test_every_form_of_every_parameter = every_form("dtypes")
