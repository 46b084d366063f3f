"""A mechanism's declarations against its density's: the claim and the sensitivity are stated twice.

A :class:`~dpaudit.mechanisms.base.Mechanism` declares its claim (``PureDP(1.0)``) and sensitivity;
its :class:`~dpaudit.mechanisms.density.SymbolicDensity` states them again as expressions in the
parameters (``epsilon``, ``delta``, ``sensitivity``).  The prover proves the density's statement for all
parameter values when the two agree at the catalogue instance; when they disagree it could only check
the mechanism's numbers at the instance -- a true statement about something the user did not say.
So before any proof:

* **epsilon / delta.**  When the claim is the mechanism's own (``prove(mechanism)``) and the density's
  ``epsilon`` or ``delta`` at the instance is a different number, the two declarations contradict each
  other: :class:`~dpaudit.errors.InvalidArgument` naming both values.  A claim passed explicitly
  (``prove(m, claim=...)``, ``dpaudit prove --epsilon``) is a restatement: it is checked at the
  instance, and the result says why the scope is the instance (:func:`scope_reason`).
* **sensitivity.**  When the density's neighbour bound at the instance is *smaller* than the
  mechanism's declared sensitivity (or its ``QueryDistance`` bound), a proof would cover only some of
  the declared neighbours: InvalidArgument.  When it is *larger*, the reading is legitimate -- the
  density states the statistic's true sensitivity, as the gallery's sensitivity flaws do -- and the
  prover uses it (a proof then covers every declared neighbour, and more); a
  :class:`~dpaudit.errors.DeclarationMismatchWarning` says so, except for gallery entries, whose
  ``flaw`` is that very mismatch (the result's details record it either way).

Values that stay symbolic at the instance (an instance that does not fix every parameter) are not
compared: there is no number to disagree with.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..errors import DeclarationMismatchWarning, InvalidArgument

__all__ = ["check_declarations", "scope_reason"]


def _at_instance(expr: Any, instance: dict) -> float | None:
    """``expr`` at the instance as a float, or None when it stays symbolic (or is not a number)."""
    import sympy

    try:
        value = sympy.sympify(expr).subs(instance)
        if value.free_symbols:
            return None
        number = float(value)
    except (TypeError, ValueError, AttributeError, sympy.SympifyError):
        return None
    return number if math.isfinite(number) else None


def _same(a: float, b: float) -> bool:
    # The relative tolerance of the prover's own instance test (prove._matches): float claims and
    # rational densities agree to ~1e-15; 1e-9 leaves room for a calibration solved numerically.
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _shown(expr: Any, value: float) -> str:
    import sympy

    text = sympy.sstr(expr)
    return f"{value:g}" if text == f"{value:g}" else f"{text} = {value:g}"


def _instance_text(instance: dict) -> str:
    import sympy

    return ", ".join(f"{p}={sympy.sstr(v)}" for p, v in instance.items()) or "no parameters"


def check_declarations(mechanism: Any, density: Any, instance: dict, restated: bool) -> str | None:
    """Raise InvalidArgument on contradicting declarations; return a note (and warn) on a legitimate mismatch.

    ``instance`` maps the density's parameters to exact values; ``restated`` says the claim was passed
    explicitly (then epsilon and delta are the caller's to choose).
    """
    name, where = mechanism.name, _instance_text(instance)
    if not restated:
        claim = mechanism.claim
        declared = [("epsilon", density.epsilon, claim.epsilon)]
        if claim.states_delta or _at_instance(density.delta, instance) not in (None, 0.0):
            declared.append(("delta", density.delta, claim.delta))
        for label, expr, value in declared:
            stated = _at_instance(expr, instance)
            if stated is not None and not _same(stated, value):
                raise InvalidArgument(
                    f"mechanism {name!r} claims {claim!r} but its density states {label} = {_shown(expr, stated)} at "
                    f"the instance ({where}): two different claims; make them agree, or pass claim= to check a "
                    "restated claim at the instance"
                )
    if density.sensitivity is None:
        return None
    bound = _at_instance(density.sensitivity, instance)
    declared_bounds = [("sensitivity", mechanism.sensitivity)]
    if getattr(mechanism.neighbours, "name", None) == "query-distance":
        declared_bounds.append(("neighbours", mechanism.neighbours.sensitivity))
    for label, value in declared_bounds:
        if bound is None or value is None or _same(bound, value):
            continue
        stated = _shown(density.sensitivity, bound)
        if bound < value:
            raise InvalidArgument(
                f"mechanism {name!r} declares {label}={value!r} but its density's neighbours are within "
                f"{stated} at the instance ({where}): a proof would cover only part of the declared neighbours; "
                "make them agree"
            )
        note = (
            f"mechanism {name!r} declares {label}={value!r} but its density states sensitivity {stated} at the "
            f"instance ({where}); the prover used the density's {bound:g}: neighbours within {bound:g} include those "
            f"within {value:g}, so a proof covers the declared neighbours, and a counterexample may lie outside them"
        )
        if not getattr(mechanism, "flawed", False):
            warnings.warn(DeclarationMismatchWarning(note), stacklevel=3)
        return note
    return None


def scope_reason(claim: Any, density: Any, instance: dict, numeric: bool) -> str:
    """Why a proof holds at the instance only (the asked-for ``numeric``, or a restated claim)."""
    if numeric:
        return "numeric=True: the instance's values were checked, not every parameter value"
    stated = [(label, expr, value) for label, expr, value in
              (("epsilon", density.epsilon, claim.epsilon), ("delta", density.delta, claim.delta))]
    differing = []
    for label, expr, value in stated:
        at = _at_instance(expr, instance)
        if label == "delta" and not claim.states_delta:
            continue
        if at is None or not _same(at, value):
            differing.append(f"{label}={value:g} (the density states {_shown(expr, at) if at is not None else expr})")
    what = ", ".join(differing) or "its values"
    return (f"the claim {claim} restates {what}: it is checked at the instance ({_instance_text(instance)}), "
            "not for every parameter value")
