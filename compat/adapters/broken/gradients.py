"""Gradient faults: torch with one autodiff rule broken."""

from __future__ import annotations

from compat.adapters.broken.base import Catch
from compat.adapters.torch import TorchAdapter  # imports torch only when used


def tanh_with_gradient_off(x):
    import torch

    return torch.tanh(x) + 0.01 * (torch.tanh(x) - torch.tanh(x).detach())


def grad_of_broadcast_inputs(f, *xs):
    import torch

    shape = torch.broadcast_shapes(*(x.shape for x in xs))
    xs = [x.detach().expand(shape).clone().requires_grad_() for x in xs]
    return torch.autograd.grad(f(*xs), xs)


def grad_in_float64(f, *xs):
    import torch

    xs = [x.detach().requires_grad_() for x in xs]
    return tuple(g.double() for g in torch.autograd.grad(f(*xs), xs))


def untransposed(name: str):
    """torch's ``name`` (det, slogdet, inv, solve) with a backward whose inverse is not transposed:
    A^-1 where the derivative has A^-T (a helper that solves with A where it should with A^T)."""
    import torch

    class Untransposed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, *rest):
            result = getattr(torch.linalg, name)(a, *rest)
            ctx.save_for_backward(a, *rest, *(result if name == "slogdet" else (result,)))
            return result

        @staticmethod
        def backward(ctx, *grads):
            a, *saved = ctx.saved_tensors
            inverse = torch.linalg.inv(a)  # the fault: inverse.mT is the derivative's
            if name == "det":
                return (grads[0] * saved[0])[..., None, None] * inverse
            if name == "slogdet":
                return grads[1][..., None, None] * inverse
            if name == "inv":
                return -inverse @ grads[0] @ inverse
            x = saved[-1]
            gb = inverse @ grads[0]
            return -gb @ x.mT, gb

    return Untransposed.apply


def det_untransposed(x):
    return untransposed("det")(x)


def slogdet_untransposed(x):
    return untransposed("slogdet")(x)


def inv_untransposed(x):
    return untransposed("inv")(x)


def solve_untransposed(x1, x2):
    return untransposed("solve")(x1, x2)


class TanhGradientOffByOnePercent(TorchAdapter):
    """tanh's values are exact, its gradient is 1.01 times too large."""

    name = "broken_tanh_gradient"
    family = "gradients"
    catch = Catch("test_gradient_of_random_programs", "grad", "value", narrow="float64")
    OPS = {**TorchAdapter.OPS, "tanh": tanh_with_gradient_off}


class GradientNotReducedOverBroadcast(TorchAdapter):
    """Differentiates with respect to the inputs broadcast together, so a broadcast
    input's gradient keeps the broadcast shape instead of being summed back."""

    name = "broken_unreduced_gradient"
    family = "gradients"
    catch = Catch("test_gradient_of_random_programs", "grad", "shape", narrow="float64")
    OPS = {**TorchAdapter.OPS, "grad": grad_of_broadcast_inputs}


class Float64GradientsForFloat32(TorchAdapter):
    """Gradients come back as float64 whatever the input dtype."""

    name = "broken_float64_gradient"
    family = "gradients"
    catch = Catch("test_gradient_of_random_programs", "grad", "dtype", narrow="float32")
    OPS = {**TorchAdapter.OPS, "grad": grad_in_float64}


class InverseNotTransposedInGradients(TorchAdapter):
    """det, slogdet, inv and solve differentiate with A^-1 where the derivative has A^-T (det(A) A^-T,
    A^-T, -A^-T G A^-T, A^-T G): one helper that solves with A instead of A^T, right on symmetric
    matrices only."""

    name = "broken_untransposed_gradient"
    family = "gradients"
    catch = Catch("test_gradient_of_linear_algebra", "grad", "value")
    OPS = {
        **TorchAdapter.OPS,
        "det": det_untransposed,
        "slogdet": slogdet_untransposed,
        "inv": inv_untransposed,
        "solve": solve_untransposed,
    }
