"""Faults in Array API namespaces (compat.adapters.broken.namespaces): each a module that implements
the standard with one rule broken, checked through compat's generic namespace adapter as any
``--backends array-api:<module>`` is; the classes here name each one's family and where it must show.
``python -m compat detect`` runs each beside the intact array_api_compat.numpy it is built on (whose
own divergences are not the fault's), with NumPy as the control; ``IntactNamespace`` is the same
construction with nothing broken, a control that must show nothing of its own."""

from __future__ import annotations

from compat.adapters.broken.base import Catch
from compat.adapters.broken.namespaces import BASE
from compat.adapters.namespace import NamespaceAdapter, standard_ops

PACKAGE = "compat.adapters.broken.namespaces"


class BrokenNamespace(NamespaceAdapter):
    """A namespace of compat.adapters.broken.namespaces: its arrays are NumPy's (array_api_compat.numpy's)."""

    requires, wraps, intact = "array_api_compat", "numpy", BASE
    OPS = standard_ops()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.imports = {"np": "numpy", "xp": cls.module}
        cls.__doc__ = cls.__doc__ or ""


def namespace(name: str) -> str:
    return f"{PACKAGE}.{name}"


class SumKeepsDimsByDefault(BrokenNamespace):
    """sum keeps the reduced axes unless told otherwise: keepdims defaults to True (the standard: False)."""

    name, family, module = "broken_ns_sum_keepdims_default", "statistics", namespace("sum_keepdims_default")
    catch = Catch("test_every_form_of_every_parameter", "sum", "shape", narrow="statistical")


class LinspaceLeavesOutStopByDefault(BrokenNamespace):
    """linspace leaves stop out unless told otherwise: endpoint defaults to False (the standard: True)."""

    name, family = "broken_ns_linspace_endpoint_default", "creation"
    module = namespace("linspace_endpoint_default")
    catch = Catch("test_every_form_of_every_parameter", "linspace", "value", narrow="creation")


class SearchsortedRightByDefault(BrokenNamespace):
    """searchsorted puts a value after the elements equal to it unless told otherwise: side defaults to
    'right' (the standard: 'left')."""

    name, family = "broken_ns_searchsorted_side_default", "sorting"
    module = namespace("searchsorted_side_default")
    catch = Catch("test_every_form_of_every_parameter", "searchsorted", "value", narrow="searching")


class MaximumRefusesPythonScalars(BrokenNamespace):
    """maximum and minimum refuse a Python int or float operand (TypeError); the standard admits
    Union[array, int, float] for x1 and x2."""

    name, family = "broken_ns_maximum_refuses_scalars", "promotion"
    module = namespace("maximum_refuses_python_scalars")
    catch = Catch("test_every_form_of_every_parameter", "maximum", "error", narrow="elementwise")


class ResultTypeRefusesPythonScalars(BrokenNamespace):
    """result_type refuses Python scalars among its arguments (TypeError); the standard admits bool,
    int, float and complex beside arrays and dtypes."""

    name, family = "broken_ns_result_type_refuses_scalars", "dtypes"
    module = namespace("result_type_refuses_python_scalars")
    catch = Catch("test_every_form_of_every_parameter", "result_type", "error", narrow="data_type")


class FullRefusesAnIntShape(BrokenNamespace):
    """full, zeros, ones and empty take a shape as a tuple only: an int shape, which the standard
    admits, raises TypeError."""

    name, family = "broken_ns_full_refuses_int_shape", "creation"
    module = namespace("full_refuses_an_int_shape")
    catch = Catch("test_every_form_of_every_parameter", "full", "error", narrow="creation")


class VecdotForgetsTheConjugate(BrokenNamespace):
    """vecdot sums x1 times x2 without conjugating x1: right wherever x1's imaginary parts are zero."""

    name, family = "broken_ns_vecdot_no_conjugate", "linalg"
    module = namespace("vecdot_forgets_the_conjugate")
    catch = Catch("test_vectors", "vecdot", "value")


class RemainderByDivision(BrokenNamespace):
    """remainder computes x1 - floor(x1 / x2) * x2 in the float dtype: right for moderate operands,
    wrong where x1 is far larger than x2."""

    name, family = "broken_ns_remainder_by_division", "numerics"
    module = namespace("remainder_by_division")
    catch = Catch("test_rounding_rules_by_sign_and_size", "remainder", "value", narrow="large")


class ArgsortDescendingReversesTies(BrokenNamespace):
    """argsort(x, descending=True) reads an ascending argsort backwards: equal elements' indices come
    in the reverse of their order in x, where stable=True keeps it."""

    name, family = "broken_ns_argsort_descending_ties", "sorting"
    module = namespace("argsort_descending_reverses_ties")
    catch = Catch("test_sort_and_argsort_order_nan_and_ties", "argsort", "value", narrow="descending")


class FromDlpackWithoutDevice(BrokenNamespace):
    """from_dlpack takes no device keyword: from_dlpack(x, device=d) raises TypeError (the standard
    has placed the array on d since 2023.12)."""

    name, family = "broken_ns_from_dlpack_without_device", "interchange"
    module = namespace("from_dlpack_without_device")
    catch = Catch("test_from_dlpack_onto_each_device_keeps_every_bit", "from_dlpack_onto", "error")


class IntactNamespace(BrokenNamespace):
    """array_api_compat.numpy rebuilt as the broken namespaces are, nothing broken: must show nothing."""

    name, family, module = "control_intact_namespace", "statistics", namespace("intact")
    control = True
