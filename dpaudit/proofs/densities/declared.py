"""A mechanism's declared density as the density and divergence procedures read it.

* :func:`load_density` -- ``mechanism.density()`` built and checked: a SymbolicDensity whose sympy
  expression depends on its outputs and holds neither nan nor zoo (InvalidArgument otherwise);
* :func:`rational_instance` and :func:`at_instance` -- the catalogue instance with exact rational values,
  and the density with them substituted (the ``numeric=True`` proof);
* :func:`checked_context` -- the :class:`~dpaudit.proofs.inequalities.signs.SignContext` of the
  parameters under the declared assumptions (plus delta < 1 for a declared delta), and the verdict
  ``unknown`` when the density does not sum or integrate to 1 at the instance (:mod:`.verify`);
* :func:`add_note` -- the density's ``note`` (how the implementation relates to the declared density:
  float arithmetic, grids) carried into the result's details; a note that says the algebra is proved
  but the float implementation is not is repeated in the reason of a "proved" verdict.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...errors import InvalidArgument
from ...mechanisms.base import Mechanism
from ..budget import checkpoint
from ..inequalities.signs import SignContext
from ..result import Outcome, Verdict

__all__ = ["SYMPY_FAILURES", "add_note", "at_instance", "checked_context", "load_density", "rational",
           "rational_instance"]

SYMPY_FAILURES = (NotImplementedError, RecursionError, TypeError, ValueError, AttributeError)
"""What sympy raises on a step it cannot complete; a proof that meets one ends ``unknown`` saying so."""

# Words in a density's note that mean: the declared (exact) density is proved, the implementation is not.
_IMPLEMENTATION_CAVEATS = ("floating point", "float arithmetic", "double precision", "side channel")


def load_density(mechanism: Mechanism) -> Any:
    """The mechanism's SymbolicDensity, checked; InvalidArgument naming the mechanism when it is unusable."""
    import sympy

    try:
        density = mechanism.density()
    except Exception as exc:  # a user's density builder may raise anything; report it as bad input
        raise InvalidArgument(
            f"density of mechanism={mechanism.name!r} could not be built: {type(exc).__name__}: {exc}") from exc
    if not hasattr(density, "expr") or not isinstance(density.expr, sympy.Expr):
        raise InvalidArgument(
            f"density of mechanism={mechanism.name!r} must be a SymbolicDensity with a sympy expression")
    if not any(density.expr.has(o) for o in density.outputs):
        raise InvalidArgument(
            f"density expression {density.expr!r} of {mechanism.name!r} must depend on its outputs {density.outputs!r}")
    if density.expr.has(sympy.nan, sympy.zoo):
        raise InvalidArgument(f"density expression {density.expr!r} of {mechanism.name!r} must not contain nan or zoo")
    return density


def rational(value: Any) -> Any:
    """A float as the rational number it spells (``nsimplify``); anything else through ``sympify``."""
    import sympy

    return sympy.nsimplify(value, rational=True) if isinstance(value, float) else sympy.sympify(value)


def rational_instance(density: Any) -> dict[Any, Any]:
    """The density's catalogue instance, each value :func:`rational`."""
    return {p: rational(v) for p, v in dict(density.instance).items()}


def at_instance(density: Any, instance: dict[Any, Any]) -> Any:
    """The density with the parameter values ``instance`` substituted, keeping ``instance`` to report it."""
    return dataclasses.replace(dataclasses.replace(density, instance=instance).at_instance(), instance=instance)


def _default_assumptions(density: Any) -> tuple:
    """Probabilities declared as positive symbols are also < 1 (delta of a claim, flip probabilities)."""
    import sympy

    extra = []
    relations = [a for a in map(sympy.sympify, density.assumptions) if isinstance(a, sympy.core.relational.Relational)]
    bounded = {a.lhs for a in relations}
    for parameter in density.parameters:
        if parameter.name == "delta" and parameter not in bounded:
            extra.append(sympy.StrictLessThan(parameter, 1))
    return tuple(density.assumptions) + tuple(extra)


def checked_context(density: Any, hints: tuple = ()) -> tuple[SignContext, Outcome | None]:
    """The sign context of the density's parameters, and ``unknown`` if the density is not a distribution.

    The normalisation is checked at the first parameter point (the instance), or once when the density
    has no parameters; ``hints`` are input pairs to try first in a counterexample search.
    """
    from .verify import normalisation_error

    checkpoint("normalisation check")
    context = SignContext(density.parameters, _default_assumptions(density), dict(density.instance), hints)
    point = context.parameter_points()[0] if context.instance else {}
    problem = normalisation_error(density, point) if point or not density.parameters else None
    if problem is None:
        return context, None
    return context, Outcome(Verdict.UNKNOWN, f"not a probability distribution: {problem}", "normalisation check")


def add_note(outcome: Outcome, density: Any) -> None:
    """Carry the density's ``note`` into ``outcome`` (see the module docstring)."""
    note = getattr(density, "note", "") or ""
    if not note:
        return
    outcome.details.setdefault("density_note", note)
    if outcome.verdict is Verdict.PROVED and any(word in note.lower() for word in _IMPLEMENTATION_CAVEATS):
        outcome.reason += f"; proved for the declared exact density only -- {note}"
