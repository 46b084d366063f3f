"""Cutting an integer variable's range where a pmf's branches change, and deciding signs on a segment.

A segment is ``(lo, hi)`` with integer-valued expressions (``hi`` may be ``oo``); it may be empty for
some parameter values (then every statement about it holds vacuously).

* :func:`segments` -- the range [start, end] of an integer variable cut at every value where one of
  the given relations (``Eq``, ``<=``, ``<``, ...; linear in the variable with coefficient +-1) changes
  truth value;
* :func:`collapse` -- an expression with each relation replaced by its truth value on the segments,
  so that every Piecewise reduces to one branch;
* :func:`holds_on_segment` -- ``expr >= 0`` (or ``> 0``) for every integer of a segment.  Lemma: an
  affine function of X = e^{kappa v} (or of v itself) is extreme at the ends of X's range, so it is
  enough to decide the values at the segment's ends (the limit X -> 0 at an infinite end when
  kappa < 0).  Every decision is made by :class:`~dpaudit.proofs.inequalities.signs.SignContext`, for all
  parameters.
"""

from __future__ import annotations

from typing import Any

from .signs import SignContext, tidy
from .supremum import NotDecidable

__all__ = ["collapse", "holds_on_segment", "segments"]


def _le(a: Any, b: Any, context: SignContext) -> bool:
    """a <= b decided for all parameters."""
    return context.nonnegative(tidy(b - a)) is True


def _normal_form(relation: Any, var: Any) -> tuple[str, Any]:
    """``(kind, g)`` with kind in eq/ne/ge/le meaning var == g, var != g, var >= g, var <= g (integers)."""
    import sympy

    difference = sympy.expand(relation.lhs - relation.rhs)
    a = difference.coeff(var)
    rest = tidy(difference - a * var)
    if a not in (1, -1) or rest.has(var):
        raise NotDecidable(f"the condition {relation} is not of the form {var} + g against 0")
    root = tidy(-rest / a)
    if not (root.is_integer or root.is_integer is None and all(s.is_integer for s in root.free_symbols)):
        raise NotDecidable(f"the condition {relation} has a non-integer threshold {root}")
    if isinstance(relation, sympy.Eq):
        return "eq", root
    if isinstance(relation, sympy.Ne):
        return "ne", root
    upward = isinstance(relation, (sympy.GreaterThan, sympy.StrictGreaterThan)) == (a == 1)
    strict = isinstance(relation, (sympy.StrictGreaterThan, sympy.StrictLessThan))
    if upward:
        return "ge", root + 1 if strict else root
    return "le", root - 1 if strict else root


def _relations(expr: Any, var: Any) -> list[Any]:
    import sympy

    return [r for r in expr.atoms(sympy.core.relational.Relational) if r.has(var)]


def segments(exprs: list[Any], var: Any, start: Any, end: Any, context: SignContext) -> list[tuple[Any, Any]]:
    """[start, end] cut where a relation of ``exprs`` in ``var`` changes truth value, in order."""
    import sympy

    cuts = [start]
    for expr in exprs:
        for relation in _relations(expr, var):
            kind, g = _normal_form(relation, var)
            for point in {"eq": (g, g + 1), "ne": (g, g + 1), "ge": (g,), "le": (g + 1,)}[kind]:
                point = tidy(point)
                if _le(point, start, context) or (end != sympy.oo and _le(end + 1, point, context)):
                    continue
                if not (_le(start, point, context) and (end == sympy.oo or _le(point, end + 1, context))):
                    raise NotDecidable(f"cannot place the cut {var} = {point} within [{start}, {end}]")
                if all(tidy(point - c) != 0 for c in cuts):
                    cuts.append(point)
    ordered = [cuts[0]]
    for point in cuts[1:]:
        index = next((i for i, c in enumerate(ordered) if _le(point, c, context)), None)
        if index is None:
            if not all(_le(c, point, context) for c in ordered):
                raise NotDecidable(f"cannot order the cuts {ordered} and {point}")
            ordered.append(point)
        else:
            if not all(_le(c, point, context) for c in ordered[:index]):
                raise NotDecidable(f"cannot order the cuts {ordered} and {point}")
            ordered.insert(index, point)
    ends = [tidy(c - 1) for c in ordered[1:]] + [end]
    return list(zip(ordered, ends))


def _truth(relation: Any, var: Any, segment: tuple[Any, Any], context: SignContext) -> Any:
    import sympy

    lo, hi = segment
    kind, g = _normal_form(relation, var)
    finite = hi != sympy.oo
    if kind in ("eq", "ne"):
        if finite and tidy(lo - g) == 0 and tidy(hi - g) == 0:
            value = True
        elif _le(g, lo - 1, context) or (finite and _le(hi + 1, g, context)):
            value = False
        else:
            raise NotDecidable(f"{relation} is not constant for {var} in [{lo}, {hi}]")
        return sympy.true if value == (kind == "eq") else sympy.false
    if kind == "ge":
        if _le(g, lo, context):
            return sympy.true
        if finite and _le(hi, g - 1, context):
            return sympy.false
    else:
        if finite and _le(hi, g, context):
            return sympy.true
        if _le(g + 1, lo, context):
            return sympy.false
    raise NotDecidable(f"{relation} is not constant for {var} in [{lo}, {hi}]")


def collapse(expr: Any, ranges: dict[Any, tuple[Any, Any]], context: SignContext) -> Any:
    """``expr`` with every relation in one of the variables of ``ranges`` replaced by its truth value."""
    truths = {}
    for var, segment in ranges.items():
        for relation in _relations(expr, var):
            if any(relation.has(other) for other in ranges if other is not var):
                raise NotDecidable(f"the condition {relation} couples {list(ranges)}")
            truths[relation] = _truth(relation, var, segment, context)
    return expr.xreplace(truths)


def _decide(expr: Any, strict: bool, context: SignContext) -> bool:
    return (context.positive(expr) if strict else context.nonnegative(expr)) is True


def holds_on_segment(expr: Any, var: Any, segment: tuple[Any, Any], context: SignContext, strict: bool = False) -> bool:
    """True if ``expr >= 0`` (``> 0``) for every integer var in the segment and all parameters."""
    import sympy

    lo, hi = segment
    expr = tidy(expr)
    if not expr.has(var):
        return _decide(expr, strict, context)
    if hi != sympy.oo and tidy(hi - lo) == 0:
        return _decide(tidy(expr.subs(var, lo)), strict, context)
    expanded = sympy.expand(expr)
    atoms = [a for a in expanded.atoms(sympy.exp) if a.has(var)]
    rates = {tidy(sympy.expand(a.args[0]) / var) for a in atoms}
    x = sympy.Symbol("_X", positive=True)
    if len(rates) > 1 or any(r.has(var) for r in rates):
        return False
    if rates:
        (kappa,) = rates
        affine = expanded.xreplace({a: x for a in atoms})
        at = {"lo": sympy.exp(kappa * lo), "hi": None if hi == sympy.oo else sympy.exp(kappa * hi)}
        increasing_at_infinity = context.positive(kappa)
        if hi == sympy.oo and not increasing_at_infinity and context.positive(-kappa) is not True:
            return False
    else:
        affine, at = expanded.xreplace({var: x}), {"lo": lo, "hi": None if hi == sympy.oo else hi}
        increasing_at_infinity = True
    try:
        poly = sympy.Poly(affine, x)
    except sympy.PolynomialError:
        return False
    if poly.degree() > 1 or affine.has(var):
        return False
    beta, alpha = poly.coeff_monomial(x), poly.coeff_monomial(1)
    if not _decide(tidy(alpha + beta * at["lo"]), strict, context):
        return False
    if at["hi"] is not None:
        return _decide(tidy(alpha + beta * at["hi"]), strict, context)
    if increasing_at_infinity:  # X grows without bound: the slope must not be negative
        return context.nonnegative(beta) is True
    return context.nonnegative(alpha) is True  # X -> 0: the limit alpha, not reached, >= 0 suffices
