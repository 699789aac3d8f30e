"""compat's own operations, not functions of the standard: a kernel every plug-in device has,
a copy between devices, an operation inside a backend's compiler, and the autodiff transforms
the gradient spec checks."""

from __future__ import annotations

from compat.core.operation import Op, X, Y, f32

TABLE: tuple[Op, ...] = (
    Op(
        "relu",
        "(x)",
        "placement",
        "max(x, 0): a kernel every plug-in has",
        numpy="np.maximum(x, 0)",
        elementwise=True,
        correctly_rounded=True,
        example=(f32(-1.0, -0.0, 0.0, 2.0),),
        zero_sign_free=True,  # max(-0.0, 0): the order of -0 and +0 is open (a device against its CPU: bit for bit)
    ),
    Op(
        "copy_to",
        "(x, device)",
        "placement",
        "a copy of x on device",
        numpy="x.copy()",
        moves_to=1,
        correctly_rounded=True,
        example=(X, "the reference device"),
    ),
    Op(
        "compiled_add",
        "(x1, x2)",
        "placement",
        "add inside the backend's compiler (jax.jit, tf.function)",
        numpy="np.add",
        elementwise=True,
        correctly_rounded=True,
        example=(X, Y),
    ),
    Op("grad", "(f, *xs)", "autodiff", "gradient of scalar f with respect to each input", transform=True),
    Op("jacobian", "(f, x)", "autodiff", "Jacobian of f at x", transform=True),
    Op(
        "per_example_grad",
        "(f, params, batch)",
        "autodiff",
        "gradient for each example of a batch (vmap of grad)",
        transform=True,
    ),
    Op("hvp", "(f, x, v)", "autodiff", "Hessian of f at x times v", transform=True),
)
