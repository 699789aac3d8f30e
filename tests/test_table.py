"""The table of operations (compat/core/table/) against the standard's list of functions
(compat/core/standard.py): names, aliases and facts that other code relies on."""

from compat.core import dtypes, ops, standard


def test_operation_names_are_unique_and_aliases_name_functions_of_the_standard():
    assert len(ops.OPS) == len(ops.TABLE)
    for op in ops.TABLE:
        if op.standard:
            assert op.standard != op.name, op.name
            section, _, name = op.standard.rpartition(".")
            known = standard.EXTENSIONS[section] if section else standard.FUNCTIONS
            assert name in known, op.name


def test_no_function_of_the_standard_is_declared_twice():
    declared = [op.standard_name for op in ops.TABLE if op.standard_name in standard.FUNCTIONS]
    assert len(declared) == len(set(declared))


def test_the_standard_has_135_functions_in_its_main_namespace():
    assert len(standard.FUNCTIONS) == len(set(standard.FUNCTIONS)) == 135


def test_every_operation_takes_a_category_of_the_standard():
    assert all(op.takes in dtypes.CATEGORIES for op in ops.TABLE)


def test_every_binary_operator_names_the_function_it_computes():
    """x << y, 2 << x and x <<= y are bitwise_left_shift's forms, as x // y are floor_divide's: a
    registry entry that names a function covers its operator forms, and a form that named none
    was left out of it (the shifts were, until a survey showed torch's uint16 shifts as new)."""
    from compat.core.table import operators

    for symbol, name, function, _ in operators.BINARY + operators.COMPARISONS:
        assert function in ops.OPS, symbol
        assert {f"__{name}__", f"__r{name}__"} <= set(ops.operator_forms(function)), symbol
