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
