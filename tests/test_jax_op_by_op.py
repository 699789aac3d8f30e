"""The JAX adapter runs jax.numpy op by op (jax.disable_jit) because it compiles
far less; that is only sound if op-by-op results equal the jitted ones users
get. Check that bit for bit on the composite functions the specs use."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

FUNCTIONS = {
    "remainder": jnp.remainder,
    "floor_divide": jnp.floor_divide,
    "power": jnp.power,
    "true_divide": jnp.true_divide,
    "maximum": jnp.maximum,
    "matmul": lambda a, b: a.reshape(32, 32) @ b.reshape(32, 32),
    "sum": lambda a, b: jnp.sum(a * b),
    "mean": lambda a, b: jnp.mean(a),
    "cumsum": lambda a, b: jnp.cumsum(a),
    "exp": lambda a, b: jnp.exp(a),
    "sin": lambda a, b: jnp.sin(a),
    "sqrt": lambda a, b: jnp.sqrt(a),
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int32"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_op_by_op_equals_jitted_bit_for_bit(name, dtype):
    rng = np.random.default_rng(0)
    x, y = ((rng.standard_normal(1024) * 8).astype(dtype) for _ in range(2))
    if dtype == "int32":
        y = np.where(y == 0, 1, y).astype(dtype)
    with jax.enable_x64(True):
        try:
            jitted = np.atleast_1d(np.asarray(FUNCTIONS[name](x, y)))
        except (TypeError, ValueError):
            pytest.skip(f"{name} does not take {dtype}")
        with jax.disable_jit():
            op_by_op = np.atleast_1d(np.asarray(FUNCTIONS[name](x, y)))
    assert jitted.dtype == op_by_op.dtype
    assert np.array_equal(jitted.view(np.uint8), op_by_op.view(np.uint8)), f"{name}[{dtype}] differs op by op"
