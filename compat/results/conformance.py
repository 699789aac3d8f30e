"""Whether a JSON value follows the record schema, decided by Python closures compiled once
from the schema's definition of one record type (``records.conforms``): several times faster
than jsonschema, which walks the schema anew for every record (most of the time of merging
records into a store). Only the keywords the definitions use are understood; another one is
an error when the check is compiled, never a keyword silently ignored. jsonschema stays the
judge of what a rejected record did wrong (``records.problem_with``), and tests/test_store.py
holds the two to the same verdicts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]
ANNOTATIONS = {"description", "title", "$schema", "$id", "$comment", "$defs"}
TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    # JSON Schema counts 2.0 as an integer
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


def same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b and type(a) in (int, float, str, type(None)) and type(b) in (int, float, str, type(None))


def compile_check(schema: dict | bool, root: dict) -> Check:
    """A predicate for ``schema`` (a part of ``root``, whose $defs its $refs name)."""
    if schema is True:
        return lambda value: True
    if schema is False:
        return lambda value: False
    checks: list[Check] = []
    for keyword, argument in schema.items():
        if keyword in ANNOTATIONS or keyword in ("properties", "additionalProperties"):
            continue
        if keyword not in KEYWORDS:
            raise ValueError(f"the record schema's check does not understand the keyword {keyword!r}")
        checks.append(KEYWORDS[keyword](argument, root))
    if "properties" in schema or "additionalProperties" in schema:
        checks.append(object_check(schema, root))
    return lambda value: all(check(value) for check in checks)


def object_check(schema: dict, root: dict) -> Check:
    properties = {name: compile_check(sub, root) for name, sub in schema.get("properties", {}).items()}
    others = compile_check(schema.get("additionalProperties", True), root)

    def check(value):
        if not isinstance(value, dict):
            return True
        return all(
            properties[key](item) if key in properties else others(item) for key, item in value.items()
        )

    return check


def type_check(argument, root) -> Check:
    names = [argument] if isinstance(argument, str) else argument
    tests = [TYPES[name] for name in names]
    return lambda value: any(test(value) for test in tests)


def ref_check(argument: str, root) -> Check:
    prefix = "#/$defs/"
    if not argument.startswith(prefix):
        raise ValueError(f"the record schema's check understands only local $defs references, not {argument}")
    name = argument[len(prefix) :]
    compiled: list[Check] = []  # compiled at the first use: definitions may refer to each other

    def check(value):
        if not compiled:
            compiled.append(compile_check(root["$defs"][name], root))
        return compiled[0](value)

    return check


def items_check(argument, root) -> Check:
    item = compile_check(argument, root)
    return lambda value: not isinstance(value, list) or all(item(v) for v in value)


def required_check(argument, root) -> Check:
    return lambda value: not isinstance(value, dict) or all(name in value for name in argument)


def minimum_check(argument, root) -> Check:
    return lambda value: not TYPES["number"](value) or value >= argument


def min_length_check(argument, root) -> Check:
    return lambda value: not isinstance(value, str) or len(value) >= argument


def enum_check(argument, root) -> Check:
    return lambda value: any(same(value, option) for option in argument)


def const_check(argument, root) -> Check:
    return lambda value: same(value, argument)


def all_of_check(argument, root) -> Check:
    parts = [compile_check(sub, root) for sub in argument]
    return lambda value: all(part(value) for part in parts)


KEYWORDS: dict[str, Callable[[Any, dict], Check]] = {  # keyword -> (its argument, the root) -> check
    "type": type_check,
    "$ref": ref_check,
    "items": items_check,
    "required": required_check,
    "minimum": minimum_check,
    "minLength": min_length_check,
    "enum": enum_check,
    "const": const_check,
    "allOf": all_of_check,
}
