"""The Array API standard's signatures as data (signatures.toml), and what each parameter admits.

signatures.toml is generated from the standard's stubs by tools/signatures.py (2025.12): one
``[[function]]`` per function of the main namespace, of the ``linalg`` and ``fft`` extensions
(``linalg.solve``) and per method of the array object (``array.__add__``), each with its
``section`` (the stub's file) and its parameters in order: ``name``, ``kind`` (how it is passed:
positional-only, positional-or-keyword, keyword-only, var-positional), ``type`` (the annotation as
the standard writes it), ``default`` (where it has one), ``category`` (the dtype category its
description names) and ``negative`` (its description gives a negative value a meaning: an axis
counted from the end, a diagonal below the main one, a shift backward) and ``negative_only``
(only a negative int is admitted: cross's and vecdot's axis, "on the interval [-N, -1]").

What a parameter admits is read from those facts (``Parameter.kinds``), in one vocabulary that the
call generator (compat.core.calls), the records (``Checks.forms``) and ``python -m compat ops --view
parameters`` share:

  ``absent``     not passed (the parameter has a default)
  ``None``       ``Optional[...]``
  ``True``, ``False``  a flag (typed ``bool``)
  ``bool``, ``int``, ``float``, ``complex``  a Python scalar of that kind, where the type admits it
                 beside other things (``Union[array, int, float]``)
  ``negative``   a negative int, where the parameter's description gives it a meaning (an int
                 the standard admits only negative, as cross's axis, has this kind alone)
  ``array``      an array
  ``tuple``, ``list``  a sequence (of ints, of arrays)
  ``pair``       tensordot's pair of axis sequences
  ``dtype``, ``device``, ``str``  a dtype object, a device object, a string
  ``'xy'``, ``inf``, ...  each value of a ``Literal[...]``
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("signatures.toml")

SCALARS = ("bool", "int", "float", "complex")  # Python scalar kinds
# types that name a kind each (a type not listed admits nothing compat varies: SupportsBufferProtocol)
NAMED = {
    "array": "array",
    "object": "array",  # from_dlpack's x: an object with __dlpack__
    "dtype": "dtype",
    "device": "device",
    "Device": "device",
    "None": "None",
    "slice": "slice",
    "ellipsis": "ellipsis",
    "Tuple[Union[int, slice, ellipsis, array, None], ...]": "tuple",
    "str": "str",
    "NestedSequence": "list",
    "List[array]": "list",
    "Tuple[array, ...]": "tuple",
    "Tuple[int, ...]": "tuple",
    "Sequence[int]": "tuple",
    "Tuple[Optional[int], ...]": "tuple",
    "Tuple[Sequence[int], Sequence[int]]": "pair",
    "Tuple[Union[dtype, str], ...]": "tuple",
    "inf": "inf",
    "-inf": "-inf",
}


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # positional-only | positional-or-keyword | keyword-only | var-positional
    type: str
    default: str | None = None  # the default as the standard writes it
    category: str | None = None  # "numeric": the dtype category its description names
    negative: bool = False  # a negative value has a meaning (counted from the end, below, backward)
    negative_only: bool = False  # only a negative int is admitted ("an integer on the interval [-N, -1]")

    @property
    def has_default(self) -> bool:
        return self.default is not None

    @property
    def keyword_only(self) -> bool:
        return self.kind == "keyword-only"

    @property
    def positional(self) -> bool:
        return self.kind in ("positional-only", "positional-or-keyword")

    @property
    def kinds(self) -> tuple[str, ...]:
        """What the parameter admits, in the vocabulary of this module: ``absent`` where it has a
        default, then each kind its type admits, ``negative`` after ``int`` where it means something."""
        found = ["absent"] if self.has_default else []
        for kind in admitted(self.type):
            if kind == "int" and self.negative_only:
                found.append("negative")
                continue
            found.append(kind)
            if kind == "int" and self.negative:
                found.append("negative")
        if self.negative and "pair" in found:  # tensordot's axes: negative ones in the pair
            found.append("negative")
        return tuple(dict.fromkeys(found))

    @property
    def scalars(self) -> tuple[str, ...]:
        """The Python scalar kinds it admits beside arrays or other values (not a plain int count)."""
        kinds = admitted(self.type)
        return tuple(k for k in kinds if k in SCALARS) if len(kinds) > 1 or "array" in kinds else ()


@dataclass(frozen=True)
class Signature:
    name: str  # the standard's name: "sum", "linalg.solve", "array.__add__"
    section: str  # the stub's file: "statistical_functions.py"
    standard: str
    parameters: tuple[Parameter, ...]

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    @property
    def source(self) -> str:
        return f"{self.standard}, {self.section}, {self.name}"


def split_top(text: str) -> list[str]:
    """``a, B[c, d], e`` -> ['a', 'B[c, d]', 'e']: commas outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += char in "[("
        depth -= char in "])"
        current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def admitted(annotation: str) -> tuple[str, ...]:
    """The kinds an annotation admits (``Optional[Union[int, Tuple[int, ...]]]`` -> None, int, tuple)."""
    annotation = annotation.strip()
    if annotation in NAMED:
        return (NAMED[annotation],)
    if annotation == "bool":
        return ("True", "False")
    if annotation in SCALARS:
        return (annotation,)
    match = re.fullmatch(r"(Optional|Union|Literal)\[(.*)\]", annotation)
    if match is None:
        return ()
    outer, inner = match.groups()
    if outer == "Literal":
        return tuple(NAMED.get(v, v) for v in split_top(inner))
    found: list[str] = ["None"] if outer == "Optional" else []
    members = split_top(inner)
    for member in members:
        if member == "bool" and len(members) > 1:
            found.append("bool")  # beside other kinds: a Python bool, not a flag
        else:
            found += admitted(member)
    return tuple(dict.fromkeys(found))


@cache
def load() -> dict[str, Signature]:
    """The standard's name -> its signature."""
    data = tomllib.loads(DATA.read_text())
    return {
        f["name"]: Signature(
            f["name"],
            f["section"],
            f["standard"],
            tuple(Parameter(**p) for p in f.get("parameter", [])),
        )
        for f in data["function"]
    }


def of(name: str) -> Signature | None:
    """The signature of the standard's function (or array method) ``name``, or None."""
    return load().get(name)
