"""Enumerating the outputs and inputs of a discrete density (finite domains only)."""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["coordinate_domains", "finite_outputs", "is_finite_output", "pmf_at"]

MAX_OUTPUTS = 1 << 14


def coordinate_domains(density: Any) -> list[Any]:
    """The set of values of each output coordinate (``output_domain`` per coordinate or one for all)."""
    domain = density.output_domain
    if isinstance(domain, (tuple, list)):
        return list(domain)
    return [domain] * len(density.outputs)


def is_finite_output(density: Any) -> bool:
    """True when every output coordinate ranges over a finite set."""
    import sympy

    return all(isinstance(d, sympy.FiniteSet) or (isinstance(d, (tuple, list, range))) for d in coordinate_domains(density))


def _values(domain: Any) -> list[Any]:
    import sympy

    if isinstance(domain, sympy.FiniteSet):
        return sorted(domain, key=sympy.default_sort_key)
    return [sympy.sympify(v) for v in domain]


def finite_outputs(density: Any) -> list[tuple]:
    """Every output vector (product of the coordinate domains), at most :data:`MAX_OUTPUTS`."""
    domains = [_values(d) for d in coordinate_domains(density)]
    total = 1
    for d in domains:
        total *= len(d)
    if total > MAX_OUTPUTS:
        raise ValueError(f"output space of size {total} is too large to enumerate (limit {MAX_OUTPUTS})")
    return list(itertools.product(*domains))


def pmf_at(density: Any, y: tuple, x: tuple) -> Any:
    """p(y | x) with outputs and inputs substituted (parameters left symbolic)."""
    import sympy

    values = dict(zip(density.outputs, y))
    values.update(zip(density.inputs, x))
    return sympy.sympify(density.expr).xreplace({k: sympy.sympify(v) for k, v in values.items()})
