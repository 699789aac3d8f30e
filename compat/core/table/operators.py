"""The array object's operators: x + y, x += y, -x, x @ y, bool(x), x.T, x[i] += v, ..."""

from __future__ import annotations

from compat.core.operation import Op

TABLE: tuple[Op, ...] = ()
