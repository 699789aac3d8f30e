"""Placement: where values are created, computed and copied, on every device.

Runs on every backend and every device under test (``--device``; by default
compat's reference plug-ins: TensorFlow's APU, torch's apu, a second JAX CPU
device). Every spec of every family already checks that results stay on the
device under test (a ``device`` divergence when an op fell back elsewhere);
these specs add copies, which must be bit-exact for every dtype (-0.0, NaN
payloads, infinities and subnormals included), compiled calls, and a survey
of what each backend does with operands on two devices.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes, ops
from compat.core.strategies import dtype_names, shapes

ON_A_DEVICE = pytest.mark.compat_where(lambda row, backend: row.device is not None, "no device under test")


def any_values(name: str):
    """Every value of the dtype, edges included: copies must not touch a bit."""
    if name == "bfloat16":
        return hnp.arrays(np.float32, shapes(max_dims=2), elements=st.floats(width=32)).map(
            lambda a: a.astype(dtypes.to_numpy("bfloat16"))
        )
    return hnp.arrays(dtypes.to_numpy(name), shapes(min_dims=0, max_dims=2))


@given(data=st.data())
def test_host_to_device_to_host_copies_are_bit_exact(xp, data):
    """asarray onto the device and back to the host keeps every bit, in every dtype."""
    x = data.draw(dtype_names().flatmap(any_values), label="x")
    xp.check_exact("asarray", x)


@ON_A_DEVICE
@given(data=st.data())
def test_device_to_device_copies_are_bit_exact(xp, data):
    """A copy from the device under test to the reference device keeps every bit."""
    x = data.draw(dtype_names().flatmap(any_values), label="x")
    xp.check_exact("copy_to", x, xp.on_reference_device.device)


@given(data=st.data())
def test_computed_and_compiled_results_stay_on_the_device(xp, data):
    """add(x, y) eagerly and inside jax.jit / tf.function lives on the device it ran under."""
    dtype = data.draw(dtype_names(["int32", "int64", "float32", "float64", "bool"]), label="dtype")
    x = data.draw(any_values(dtype).filter(lambda a: a.size > 0), label="x")
    xp.check("add", x, x)
    xp.check("compiled_add", x, x)


SPECIAL = [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3.4e38]


@pytest.mark.parametrize("op", ops.names("add", "subtract", "multiply", "maximum", "minimum", "relu"))
@given(data=st.data())
def test_elementwise_kernels_on_special_values(xp, op, data):
    """Kernels on -0.0, infinities, NaN, subnormals and huge values: on a device under test,
    bit for bit what the reference device gives (the sign of a zero included)."""
    dtype = data.draw(st.sampled_from(["float32", "float64"]), label="dtype")
    shape = data.draw(shapes(min_dims=1, max_dims=2), label="shape")
    values = st.sampled_from(SPECIAL)
    x = data.draw(hnp.arrays(dtype, shape, elements=values), label="x")
    if op == "relu":
        xp.check(op, x)
    else:
        xp.check(op, x, data.draw(hnp.arrays(dtype, shape, elements=values), label="y"))


@ON_A_DEVICE
def test_operands_on_two_devices_survey(xp):
    """Survey: an op whose operands live on two devices raises, or copies, and the result lands somewhere."""
    x = np.arange(3, dtype=np.float32)
    cases = {
        "add(n-d on device, n-d on reference device)": (x, x),
        "add(n-d on device, 0-d on reference device)": (x, np.array(2.0, np.float32)),
    }
    for row, (a, b) in cases.items():
        xp.observe("operands on two devices", row, xp.survey.across_devices("add", a, b))
