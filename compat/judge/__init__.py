"""The judge: whether a backend's outcome agrees with a reference's, framework-free (it
imports core only): the oracle's comparison and bounds, the reference's accurate values,
flush-to-zero, the finite-difference tolerance of gradients."""
