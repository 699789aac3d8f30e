"""Every function of the standard called in every form its signature admits: the spec each family
holds for the functions of its sections of the standard (``every_form(*sections)``).

The standard's signatures (compat/core/signatures.toml, from its 2025.12 stubs) say which
parameters have a default, which take ``None``, which a Python scalar as well as an array, a
tuple, a negative axis, each value of a ``Literal``; which are keyword-only. A spec that calls a
function the way its author thought of it checks some of those forms. Here each function of the
standard that the table has is called in each of them (compat.core.calls: its minimal call, every
parameter with a default absent, then each parameter in each kind its type admits, the others as
the table's example gives them), every run, and judged against NumPy.

Where NumPy raises on a call the signature admits (``finfo`` of an array, ``fftfreq``'s
``dtype``), the standard is the reference: NumPy's own row records its departure, a row that
answers follows the standard (status ``standard``), a row that raises as NumPy does departs as
NumPy does (status ``departs``: reported, never failed).

The operators' forms (``x + 2``, ``2 ** x``, ``x[i] = v``) are the operators family's and
``from_dlpack``'s the interchange family's.
``python -m compat ops --view parameters`` shows, per function and parameter, the kinds every
spec checked on each row.
"""

from __future__ import annotations

import pytest

from compat.core import calls, ops

# the standard's sections (its stub files) whose functions each family calls in every form
FAMILY_OF_SECTION = {
    "creation_functions.py": "creation",
    "data_type_functions.py": "dtypes",
    "elementwise_functions.py": "promotion",
    "indexing_functions.py": "indexing",
    "linear_algebra_functions.py": "linalg",
    "manipulation_functions.py": "manipulation",
    "searching_functions.py": "sorting",
    "set_functions.py": "sets",
    "sorting_functions.py": "sorting",
    "statistical_functions.py": "statistics",
    "utility_functions.py": "statistics",
    "linalg.py": "linalg",
    "fft.py": "fft",
}


def section_of(name: str) -> str:
    found = calls.signature_of(ops.get(name))
    return found.section if found is not None else ""


def every_form(family: str):
    """The family's spec of every form: one param per section of the standard it holds, calling each
    function of the section in every form its signature admits (compat.core.calls.forms), every run;
    on a row that checks a share (a mode, a device), a share of the forms, from an offset the seed picks."""
    sections = sorted({s for s, f in FAMILY_OF_SECTION.items() if f == family})

    @pytest.mark.parametrize("section", [s.removesuffix(".py") for s in sections])
    def test_every_form_of_every_parameter(xp, section):
        """Each function of the section in each form its signature admits (every parameter absent where
        it has a default, None where allowed, each Python scalar kind, array, tuple, negative axis and
        literal its type admits), against NumPy; where NumPy raises on a call the signature admits, the
        standard says a result is due."""
        names = [name for name in calls.functions() if section_of(name) == f"{section}.py"]
        for form in xp.sample([form for name in names for form in calls.forms(name)], least=5):
            xp.check_signature(form.op, *form.args, **form.kwargs)

    return test_every_form_of_every_parameter
