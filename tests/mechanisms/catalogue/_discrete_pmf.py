"""Declared pmfs of discrete catalogue entries as {output: probability} tables for ``discrete_pvalue``."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np


def declared_pmf(density: Any, q: Any, support: Iterable[Any]) -> dict[Any, float]:
    """p(y | q) at the catalogue instance for every y in ``support`` (scalars or tuples)."""
    import sympy

    at = density.at_instance()
    qs = q if isinstance(q, (tuple, list)) else (q,)
    expr = at.expr.subs(dict(zip(at.inputs, qs)))
    function = sympy.lambdify(at.outputs, expr, modules="numpy")
    support = list(support)
    columns = np.asarray([y if isinstance(y, tuple) else (y,) for y in support], dtype=float).T
    values = np.broadcast_to(np.asarray(function(*columns), dtype=float), (len(support),))
    return dict(zip(support, values.tolist()))


def product_support(*coordinates: Iterable[Any]) -> list[tuple[Any, ...]]:
    """Every tuple of the product of the coordinate supports."""
    return list(itertools.product(*[list(c) for c in coordinates]))
