"""Turn the Array API standard's function signatures into data.

Usage: python tools/signatures.py STUBS [OUT]
  STUBS: the folder src/array_api_stubs/_2025_12/ of data-apis/array-api (a checkout, or each
         file written out with ``git show HEAD:<path> > <folder>/<file>``)
  OUT:   compat/core/signatures.toml (default)
tests/test_signatures.py checks the committed data against the stubs where ARRAY_API_REPO names
a clone of data-apis/array-api.

Standard library only. Every function of a stub module's ``__all__`` (the extensions' as
``linalg.<name>`` and ``fft.<name>``) and every method of the array object becomes one
``[[function]]`` with its ``[[function.parameter]]``s, in order: the name, how it is passed
(positional-only, positional-or-keyword, keyword-only, var-positional), the annotation as
written, the default where it has one, the dtype category its description names ("Should have
a numeric data type": ``category = "numeric"``), ``negative = true`` where the description
gives a negative value a meaning ("If an axis is specified as a negative integer"), and
``negative_only = true`` where it admits negative values only ("an integer on the interval
``[-N, -1]``": cross's and vecdot's axis).
What each annotation admits (absent, None, a Python scalar of each kind, an array, a tuple, ...)
is compat.core.signatures's reading of these facts, not this tool's.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

STANDARD = "2025.12"
SOURCE = "https://github.com/data-apis/array-api src/array_api_stubs/_2025_12/"
# the stub modules of functions, in the standard's order; the extensions' names are prefixed
MODULES = (
    "creation_functions.py",
    "data_type_functions.py",
    "elementwise_functions.py",
    "indexing_functions.py",
    "linear_algebra_functions.py",
    "manipulation_functions.py",
    "searching_functions.py",
    "set_functions.py",
    "sorting_functions.py",
    "statistical_functions.py",
    "utility_functions.py",
    "linalg.py",
    "fft.py",
    "array_object.py",
)
EXTENSIONS = {"linalg.py": "linalg.", "fft.py": "fft."}
ARRAY = "array_object.py"
CATEGORY = re.compile(r"\b(?:\*\*)?(?:[Ss]hould|Must)(?:\*\*)? have (?:a|an) ([a-z -]+?) data type")
# a negative value has a meaning: counted from the end (an axis), below (a diagonal), backward (a shift)
NEGATIVE = re.compile(r"(?<![\w-])negative|counting backward|\w < 0", re.IGNORECASE)
NEGATIVE_ONLY = re.compile(r"interval ``\[-N, -1\]``")  # cross's and vecdot's axis: counted from the end only
ALIAS = re.compile(r"^Alias for :func:`~array_api\.(\w+)`")  # linalg.vecdot: the main namespace's vecdot


def described(docstring: str) -> dict[str, str]:
    """Parameter name -> its description in the docstring's Parameters section (up to the next
    section: a line underlined with dashes)."""
    lines = (docstring or "").splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Parameters")
    except StopIteration:
        return {}
    found: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines[start + 2 :], start=start + 2):
        stripped = line.strip()
        if i + 1 < len(lines) and stripped and set(lines[i + 1].strip()) == {"-"}:
            break
        head = re.fullmatch(r"(\*{0,2}\w+): .*", stripped)
        if head and len(line) - len(line.lstrip()) <= 4:
            current = head.group(1).lstrip("*")
            found[current] = []
        elif current is not None:
            found[current].append(stripped)
    return {name: " ".join(text) for name, text in found.items()}


def parameters(node: ast.FunctionDef, docstring: str) -> list[dict]:
    args = node.args
    texts = described(docstring)
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    found = []

    def entry(arg: ast.arg, kind: str, default) -> dict:
        text = texts.get(arg.arg, "")
        item = {"name": arg.arg, "kind": kind, "type": ast.unparse(arg.annotation) if arg.annotation else ""}
        if default is not None:
            item["default"] = ast.unparse(default)
        category = CATEGORY.search(text)
        if category:
            item["category"] = category.group(1)
        if NEGATIVE.search(text):
            item["negative"] = True
        if NEGATIVE_ONLY.search(text):
            item["negative_only"] = True
        return item

    for arg, default in zip(positional, defaults):
        if arg.arg == "self":
            continue
        kind = "positional-only" if arg in args.posonlyargs else "positional-or-keyword"
        found.append(entry(arg, kind, default))
    if args.vararg is not None:
        found.append(entry(args.vararg, "var-positional", None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        found.append(entry(arg, "keyword-only", default))
    return found


def functions(stubs: Path) -> list[dict]:
    """Each function's entry; an alias (``linalg.vecdot``: "Alias for vecdot") reads its parameters'
    descriptions from the function it names, which its own docstring does not repeat."""
    found = []
    docstrings: dict[str, str] = {}  # the main namespace's, by name
    for module in MODULES:
        tree = ast.parse((stubs / module).read_text())
        if module == ARRAY:
            cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_array")
            nodes = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name != "__init__"]
            names = None
        else:
            names = next(
                ast.literal_eval(n.value)
                for n in tree.body
                if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"
            )
            nodes = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
        for node in nodes:
            if any(getattr(d, "id", "") == "property" for d in node.decorator_list):
                continue  # an attribute (x.shape), not a call
            docstring = ast.get_docstring(node) or ""
            if module not in EXTENSIONS and module != ARRAY:
                docstrings[node.name] = docstring
            alias = ALIAS.match(docstring)
            if alias and alias.group(1) in docstrings:
                docstring = docstrings[alias.group(1)]
            found.append(
                {
                    "name": ("array." if module == ARRAY else EXTENSIONS.get(module, "")) + node.name,
                    "section": module,
                    "parameters": parameters(node, docstring),
                }
            )
    return found


def quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml(found: list[dict]) -> str:
    lines = [
        f"# The Array API standard {STANDARD}'s function signatures, one [[function]] per function of the",
        "# main namespace, of the linalg and fft extensions and per method of the array object, in order.",
        f"# Source: {SOURCE}<section>",
        "# Generated by tools/signatures.py; read by compat/core/signatures.py.",
        f"# {len(found)} functions.",
    ]
    for function in found:
        lines += [
            "",
            "[[function]]",
            f"name = {quoted(function['name'])}",
            f'standard = "{STANDARD}"',
            f"section = {quoted(function['section'])}",
        ]
        for parameter in function["parameters"]:
            lines.append("[[function.parameter]]")
            for key in ("name", "kind", "type", "default", "category"):
                if key in parameter:
                    lines.append(f"{key} = {quoted(parameter[key])}")
            if parameter.get("negative"):
                lines.append("negative = true")
            if parameter.get("negative_only"):
                lines.append("negative_only = true")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = (
        Path(argv[1]) if len(argv) > 1 else Path(__file__).parents[1] / "compat" / "core" / "signatures.toml"
    )
    out.write_text(toml(functions(Path(argv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
