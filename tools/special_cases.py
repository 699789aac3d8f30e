"""Turn the Array API standard's elementwise special cases into data.

Usage: python tools/special_cases.py STUB [OUT]
  STUB: src/array_api_stubs/_2025_12/elementwise_functions.py of data-apis/array-api
        (git show HEAD:<that path> > /tmp/stub.py)
  OUT:  compat/core/special-cases.toml (default)
tests/test_special_cases.py checks the committed data against the standard's text where
ARRAY_API_REPO names a clone of data-apis/array-api.

Standard library only. Every ``- If`` clause of a docstring becomes one ``[[case]]``;
the vocabulary of ``when`` and ``result`` is documented in compat/core/special_cases.py.
A clause that the vocabulary cannot express gets ``when = {}`` and ``unparsed = "why"``.
"""

from __future__ import annotations

import ast
import re
import sys

STANDARD = "2025.12"
SOURCE = "https://github.com/data-apis/array-api src/array_api_stubs/_2025_12/elementwise_functions.py"

# Operand names of the clauses, as the vocabulary writes them.
OPERAND = {"x_i": "x", "x1_i": "x1", "x2_i": "x2", "a": "a", "b": "b", "c": "c", "d": "d"}
NAME = r"(x_i|x1_i|x2_i|a|b|c|d)"

# Predicate phrases (after "is"), longest first where one is a prefix of another.
PREDICATE = [
    ("either +0 or -0", "±0"),
    ("either -0 or +0", "±0"),
    ("either +infinity or -infinity", "±infinity"),
    ("+infinity or -infinity", "±infinity"),
    ("any value (including NaN)", "any"),
    ("any value", "any"),
    ("either a finite number or NaN", "finite | NaN"),
    ("a finite number or NaN", "finite | NaN"),
    ("a positive finite number", "> 0 & finite"),
    ("a negative finite number", "< 0 & finite"),
    ("a nonzero finite number", "nonzero & finite"),
    ("a nonzero number", "nonzero"),
    ("a finite number", "finite"),
    ("not NaN", "!NaN"),
    ("an odd integer value", "odd integer"),
    ("not an odd integer value", "!odd integer"),
    ("not an integer value", "!integer"),
    ("already integer-valued", "integer"),
    ("-x1_i", "= -x1"),
]
LITERAL = {"NaN", "+0", "-0", "+infinity", "-infinity", "0", "1", "+1", "-1"}
COMPARE = {"less than": "<", "greater than": ">", "not equal to": "!="}


def predicate(phrase: str) -> str | None:
    phrase = phrase.strip()
    if phrase in LITERAL:
        return {"+1": "1"}.get(phrase, phrase)
    for text, vocab in PREDICATE:
        if phrase == text:
            return vocab
    for text, op in COMPARE.items():
        m = re.fullmatch(rf"{text} (-?\d+)", phrase)
        if m:
            return f"{op} {m.group(1)}"
    return None


def normalize(text: str) -> str:
    text = text.replace("``", "").replace("**note**", "note")
    text = re.sub(r" \(i\.e\., (greater|less) than 0\)", "", text)
    text = text.replace("any value, including NaN", "any value (including NaN)")
    return re.sub(r"\s+", " ", text).strip()


def condition(text: str) -> dict[str, str] | str:
    """The ``when`` table of one condition, or why it cannot be expressed."""
    when: dict[str, str] = {}

    def put(key: str, value: str) -> None:
        when[key] = f"{when[key]} & {value}" if key in when else value

    m = re.fullmatch(rf"(?:either )?{NAME} or {NAME} is (.+)", text)
    m2 = re.fullmatch(rf"{NAME} is (.+) or {NAME} is (.+)", text)
    if m2 and m2.group(2) == m2.group(4):
        m = re.fullmatch(r"(\S+) (\S+) (.+)", f"{m2.group(1)} {m2.group(3)} {m2.group(2)}")
    if m:
        p = predicate(m.group(3))
        if p is None:
            return f"predicate {text!r}"
        return {f"{OPERAND[m.group(1)]}|{OPERAND[m.group(2)]}": p}
    m = re.fullmatch(r"a, b, c,? (or|and) d (?:is|are all) (.+)", text)
    if m:
        p = predicate(m.group(2))
        if p is None:
            return f"predicate {text!r}"
        if m.group(1) == "or":
            return {"a|b|c|d": p}
        return {k: p for k in "abcd"}
    m = re.fullmatch(
        r"x1_i and x2_i have (the same|different) mathematical signs?( and are both nonzero finite numbers)?",
        text,
    )
    if m:
        if m.group(2):
            when = {"x1": "nonzero & finite", "x2": "nonzero & finite"}
        when["x1,x2"] = "same sign" if m.group(1) == "the same" else "different sign"
        return when
    if text == "two integers are equally close to x_i":
        return {"x": "half integer"}
    for part in re.split(r",? and |, ", text):
        if m := re.fullmatch(r"the sign bit of " + NAME + r" is ([01])", part):
            put(OPERAND[m.group(1)], f"signbit {m.group(2)}")
        elif m := re.fullmatch(r"x1_i (equals|does not equal) x2_i", part):
            put("x1,x2", "==" if m.group(1) == "equals" else "!=")
        elif m := re.fullmatch(r"abs\(x1_i\) is (.+)", part):
            p = predicate(m.group(1))
            if p is None:
                return f"predicate {part!r}"
            put("x1", "abs " + (p if p[0] in "<>!" else "= " + p))
        elif m := re.fullmatch(NAME + r" (?:is )?(.+)", part):
            p = predicate(m.group(2))
            if p is None:
                return f"predicate {part!r}"
            put(OPERAND[m.group(1)], p)
        else:
            return f"condition part {part!r}"
    return when


# Result phrases: values, operands and constants (π written pi).
VALUE = {"NaN", "+0", "-0", "0", "+infinity", "-infinity", "True", "False", "1", "+1", "-1"}
OPERAND_RESULT = {
    "x_i": "x",
    "x1_i": "x1",
    "x2_i": "x2",
    "-x1_i": "-x1",
    "|x1_i|": "abs(x1)",
    "-|x1_i|": "-abs(x1)",
    "equivalent to abs(x1_i)": "abs(x1)",
    "equivalent to abs(x2_i)": "abs(x2)",
    "equal to abs(a)": "abs(a)",
    "equal to abs(b)": "abs(b)",
}
# One component of a complex result: its sign (or ±) and its magnitude.
PART = r"(NaN|[+-]?(?:0|1|infinity|3?π/?\d?))"


def component(text: str, unspecified: bool) -> str:
    text = text.replace("π", "pi")
    if text in ("NaN", "+NaN"):
        return "NaN"
    if unspecified:
        return "±" + text.lstrip("+-±")
    if text[0] not in "+-±":
        text = "+" + text
    return text


def complex_result(text: str) -> str | None:
    note = re.search(
        r"\((signs? of (?:the )?(real|imaginary)?(?: and imaginary)? components? (?:is|are) unspecified)\)",
        text,
    )
    body = re.sub(r" \(.*\)$", "", text)
    m = re.fullmatch(
        r"([±+-]?(?:NaN|0|1|infinity|3?π/?\d?)) ([+-]|±) ((?:NaN|0|infinity)|(?:3?π)) ?(j/\d|j)", body
    )
    if m is None:
        m2 = re.fullmatch(r"([+-](?:0|infinity)) \* cis\(b\)( - 1\.0)?", body)
        return body if m2 else None
    real, sign, imag, tail = m.groups()
    if tail.startswith("j/"):
        imag += "/" + tail[2:]
    both = note is not None and note.group(1).startswith("signs")
    re_unspec = note is not None and (both or note.group(2) == "real")
    im_unspec = note is not None and (both or note.group(2) == "imaginary")
    if sign == "±":
        im_unspec = True
    if real.startswith("±"):
        re_unspec = True
    re_part = component(real, re_unspec)
    im_part = component(("-" if sign == "-" else "+") + imag, im_unspec)
    if re_part.lstrip("±+-") in ("0", "infinity") and real[0] not in "+-±" and not re_unspec:
        re_part = "±" + re_part.lstrip("+")  # "infinity + 0j": the standard names no sign
    joiner = im_part[0] if im_part[0] in "+-±" else "+"
    return f"{re_part} {joiner} {im_part.lstrip('+-±')} j"


def result(text: str, complex_case: bool) -> str | None:
    text = re.sub(r", even if .*$", "", text)
    text = re.sub(r"\. \(note: .*\)$|\. note:.*$", "", text).rstrip(".")
    text = re.sub(r" \(note: .*\)$", "", text)
    if m := re.fullmatch(r"an implementation-dependent approximation to ([+-]?)(3?)π(?:/(\d))?", text):
        sign, k, d = m.groups()
        return f"~{sign or '+'}{k}pi" + (f"/{d}" if d else "")
    if m := re.fullmatch(r"(NaN) with a sign bit of ([01])", text):
        return f"NaN & signbit {m.group(2)}"
    if text.startswith("a signed infinity with the mathematical sign determined by the rule"):
        return "infinity, sign of x1*x2"
    if m := re.fullmatch(r"a (positive|negative) mathematical sign(, unless the result is NaN.*)?", text):
        return "sign " + ("+" if m.group(1) == "positive" else "-")
    if text == "the even integer closest to x_i":
        return "even integer nearest x"
    if text in VALUE:
        return {"+1": "1"}.get(text, text)
    if text in OPERAND_RESULT:
        return OPERAND_RESULT[text]
    if complex_case:
        return complex_result(text)
    return None


def clauses(source: str) -> list[tuple[str, str, str]]:
    """(function, heading, clause text) for every ``- If`` item of every docstring."""
    out = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        doc = ast.get_docstring(node, clean=False) or ""
        heading = "Notes"
        lines = doc.splitlines()
        for i, line in enumerate(lines):
            if m := re.fullmatch(r"\s*\*\*(.+)\*\*\s*", line):
                heading = m.group(1)
            elif re.match(r"    - If ", line):
                text = line.strip()[2:]
                for more in lines[i + 1 :]:
                    if not re.match(r"      \S", more):
                        break
                    text += " " + more.strip()
                out.append((node.name, heading, text))
    return out


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def entry(function: str, heading: str, text: str) -> str:
    plain = normalize(text)
    m = re.fullmatch(r"If (.+?), the (?:real component of the )?result (?:is |has )?(.+)", plain)
    names = set(re.findall(r"\b(x_i|x1_i|x2_i|a|b|c|d|min_i|max_i|min|max)\b", m.group(1) if m else plain))
    # x names first: "a" is also the article of "a finite number"
    if names & {"x1_i", "x2_i"}:
        operands = "real binary"
    elif names & {"x_i", "min_i", "max_i", "min", "max"}:
        operands = "real unary"
    elif names & {"c", "d"}:
        operands = "complex binary"
    else:
        operands = "complex unary"
    why = None
    when: dict[str, str] = {}
    res = None
    if m is None:
        why = "no 'If ..., the result ...' form"
    elif "real component of the result" in plain:
        why = "states one component of a complex result"
    elif names & {"min_i", "max_i", "min", "max"}:
        why = "a condition on clip's bounds (min, max), not on x"
    else:
        cond = condition(m.group(1))
        res = result(m.group(2), operands.startswith("complex"))
        if isinstance(cond, str):
            why = cond
        elif res is None:
            why = f"result {m.group(2)!r}"
        else:
            when = cond
    lines = [
        "[[case]]",
        f"function = {quote(function)}",
        f'standard = "{STANDARD}"',
        f"section = {quote(f'elementwise_functions.py, {function}: {heading}')}",
        f"clause = {quote(text)}",
        f"operands = {quote(operands)}",
        "when = {" + ", ".join(f"{quote(k)} = {quote(v)}" for k, v in when.items()) + "}",
    ]
    if why is None and res is not None:
        lines.append(f"result = {quote(res)}")
    else:
        lines.append(f"unparsed = {quote(why or 'unknown')}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    stub = argv[1]
    out = argv[2] if len(argv) > 2 else "compat/core/special-cases.toml"
    with open(stub, encoding="utf-8") as f:
        found = clauses(f.read())
    header = (
        f"# The Array API standard {STANDARD}'s elementwise special cases, one [[case]] per clause.\n"
        f"# Source: {SOURCE}\n"
        "# Generated by tools/special_cases.py; the vocabulary is in compat/core/special_cases.py.\n"
        f"# {len(found)} clauses.\n"
    )
    with open(out, "w", encoding="utf-8") as f:
        f.write(header + "\n" + "\n\n".join(entry(*c) for c in found) + "\n")


if __name__ == "__main__":
    main(sys.argv)
