"""The framework-free core: dtypes, the table of operations, outcomes, the oracle,
strategies, differentiable programs and their finite-difference reference."""
