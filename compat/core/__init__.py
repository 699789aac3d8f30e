"""The framework-free core: dtypes, the table of operations, cases, outcomes,
strategies, differentiable programs and their finite-difference reference."""
