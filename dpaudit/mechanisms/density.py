"""Symbolic output densities: what a mechanism declares so that :mod:`dpaudit.proofs` can check it.

A :class:`SymbolicDensity` states p(y | q; theta): the density (continuous outputs) or pmf (discrete
outputs) of the mechanism's output y given the query value q and the parameters theta, as a sympy
expression.  The parameters are symbols with assumptions (``positive=True`` for epsilon, Delta, ...);
``instance`` gives the values of the catalogue entry, so a prover can work for all parameter values
satisfying the assumptions (the default) or for the numeric instance.

This module is imported lazily: sympy is loaded only when a density is built, never by
``import dpaudit``.  Build densities inside a function (``Mechanism.density`` is a zero-argument
callable) and take every symbol from :func:`symbol` so that the same name always means the same
symbol (sympy treats ``Symbol('eps', positive=True)`` and ``Symbol('eps')`` as different objects).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Mapping

import sympy

__all__ = ["SymbolicDensity", "symbol"]

# The one symbol table.  Each name has one set of assumptions, fixed here.
_ASSUMPTIONS: dict[str, dict[str, bool]] = {
    "y": {"real": True},
    "q": {"real": True},
    "epsilon": {"positive": True},
    "delta": {"positive": True},
    "Delta": {"positive": True},
    "sigma": {"positive": True},
    "rho": {"positive": True},
    "mu": {"positive": True},
    "b": {"positive": True},
    "p": {"positive": True},
    "f": {"positive": True},
    "k": {"integer": True, "positive": True},
    "tau": {"integer": True, "positive": True},
    "c": {"integer": True, "nonnegative": True},
    "u": {"real": True},
}


@cache
def symbol(name: str, **assumptions: bool) -> sympy.Symbol:
    """The project-wide symbol ``name``.

    Known names (``y``, ``q``, ``epsilon``, ``delta``, ``Delta``, ``sigma``, ``b``, ``p``, ``f``, ``k``)
    carry fixed assumptions; indexed names such as ``y1`` or ``q_2`` take those of their stem; other
    names get the assumptions passed (default: real).
    """
    stem = name.rstrip("0123456789").rstrip("_")
    fixed = _ASSUMPTIONS.get(name) or _ASSUMPTIONS.get(stem)
    if fixed is not None:
        return sympy.Symbol(name, **fixed)
    return sympy.Symbol(name, **(assumptions or {"real": True}))


@dataclass(frozen=True)
class SymbolicDensity:
    """The declared output distribution p(y | q; theta) of a mechanism.

    Attributes
    ----------
    expr : sympy.Expr
        p(y | q; theta): a density in y for continuous outputs, a pmf for discrete ones.  For vector
        outputs it is the joint density of ``outputs``.
    outputs : tuple of sympy.Symbol
        The output coordinates y (one symbol for scalar outputs).
    inputs : tuple of sympy.Symbol
        The query value(s) q the density is conditioned on.
    epsilon, delta : sympy.Expr
        The claimed privacy parameters as expressions in the parameters (e.g. ``log(3)`` for
        two-coin randomized response, ``epsilon`` for Laplace).
    sensitivity : sympy.Expr or None
        The neighbour constraint ``||q - q'||_norm <= sensitivity`` on the inputs; ``None`` when
        the inputs range over the finite ``input_domain`` and every pair of it is neighbouring.
    norm : str
        ``"l1"``, ``"l2"`` or ``"linf"`` for vector inputs.
    discrete : bool
        True when ``expr`` is a pmf.
    output_domain : sympy.Set
        The support of y per coordinate: ``S.Reals``, ``S.Integers``, an ``Interval`` or a
        ``FiniteSet``.  For vector outputs with finite coordinates, the product is enumerated.
    input_domain : tuple or None
        For mechanisms on a finite input domain (randomized response, exponential mechanism on a
        finite universe) the input values; each is a tuple matching ``inputs``.
    instance : Mapping[sympy.Symbol, Any]
        The catalogue entry's parameter values (e.g. ``{epsilon: 1, Delta: 1}``).
    assumptions : tuple of sympy boolean expressions
        Extra constraints on the parameters beyond the symbols' own (e.g. ``epsilon < 1`` for the
        classic Gaussian calibration).
    note : str
        How the implementation relates to this density (grid, clamping, float caveats).
    """

    expr: Any
    outputs: tuple[Any, ...]
    inputs: tuple[Any, ...]
    epsilon: Any
    delta: Any = 0
    sensitivity: Any = None
    norm: str = "l1"
    discrete: bool = False
    output_domain: Any = None
    input_domain: tuple[tuple[Any, ...], ...] | None = None
    instance: Mapping[Any, Any] = field(default_factory=dict)
    assumptions: tuple[Any, ...] = ()
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "outputs", tuple(self.outputs))
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "epsilon", sympy.sympify(self.epsilon))
        object.__setattr__(self, "delta", sympy.sympify(self.delta))
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", sympy.sympify(self.sensitivity))
        if self.output_domain is None:
            object.__setattr__(self, "output_domain", sympy.S.Integers if self.discrete else sympy.S.Reals)
        if self.sensitivity is None and self.input_domain is None:
            raise ValueError("a SymbolicDensity needs a sensitivity or a finite input_domain to define neighbours")

    @property
    def parameters(self) -> tuple[Any, ...]:
        """Every free symbol that is neither an output nor an input, sorted by name."""
        free = set(self.expr.free_symbols) | set(self.epsilon.free_symbols) | set(self.delta.free_symbols)
        if self.sensitivity is not None:
            free |= set(self.sensitivity.free_symbols)
        free -= set(self.outputs) | set(self.inputs)
        return tuple(sorted(free, key=lambda s: s.name))

    def at_instance(self) -> "SymbolicDensity":
        """The same density with the catalogue instance's parameter values substituted."""
        values = dict(self.instance)

        def sub(e: Any) -> Any:
            return None if e is None else sympy.sympify(e).subs(values)

        return SymbolicDensity(
            expr=sub(self.expr),
            outputs=self.outputs,
            inputs=self.inputs,
            epsilon=sub(self.epsilon),
            delta=sub(self.delta),
            sensitivity=sub(self.sensitivity),
            norm=self.norm,
            discrete=self.discrete,
            output_domain=self.output_domain.subs(values) if hasattr(self.output_domain, "subs") else self.output_domain,
            input_domain=self.input_domain
            and tuple(tuple(sympy.sympify(v).subs(values) for v in x) for x in self.input_domain),
            instance={},
            assumptions=tuple(sympy.sympify(a).subs(values) for a in self.assumptions),
            note=self.note,
        )

    def numeric(self, y: Any, q: Any) -> float:
        """Evaluate the density at the instance values for one output y and input q (floats)."""
        ys = y if isinstance(y, (tuple, list)) else (y,)
        qs = q if isinstance(q, (tuple, list)) else (q,)
        values = {k: sympy.sympify(v) for k, v in self.instance.items()}
        values.update((s, sympy.sympify(v)) for s, v in zip(self.outputs, ys))
        values.update((s, sympy.sympify(v)) for s, v in zip(self.inputs, qs))
        # xreplace, not subs: subs re-simplifies at every node (seconds on Min/Max-heavy pmfs).
        return float(self.expr.xreplace(values).evalf())
