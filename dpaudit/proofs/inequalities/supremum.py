"""The supremum of a one-dimensional log-ratio over the output line, by case splitting.

sympy's ``maximum`` raises on ``Abs`` and on symbolic parameters (``NotImplementedError`` in sympy 1.14:
"Unable to find critical points", "multivariate conditions are not handled").  This module
does what a person does on paper: collect the breakpoints of every ``Abs``, ``Piecewise``, ``Max`` and
``Min`` in z, order them, and on each open interval between them replace the non-smooth atoms by the
smooth branch that holds there.  The supremum of the function over the line is then the largest of

* its values at the breakpoints and the one-sided limits of each piece at them,
* the limits of the outer pieces at -oo and +oo, and
* its values at the stationary points of the pieces that are not linear in z

(a continuous function on an interval attains its supremum at an end or at a stationary point).
Every candidate carries where it comes from, so a counterexample can be built at that output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .signs import SignContext, tidy

__all__ = ["Candidate", "NotDecidable", "candidates_on_line", "nonnegative_on_unit_interval"]


class NotDecidable(Exception):
    """A step of the case split could not be decided symbolically; the message names the step."""


@dataclass(frozen=True)
class Candidate:
    """A candidate value of the supremum and where it is reached.

    ``kind`` is "point" (at ``location``), "limit" (``location`` is -oo or +oo), or "one-sided" (the
    limit of a piece at the breakpoint ``location``).
    """

    value: Any
    kind: str
    location: Any


def _breakpoints(expr: Any, z: Any) -> list[Any]:
    import sympy

    arguments = [a.args[0] for a in expr.atoms(sympy.Abs)]
    arguments += [a.args[0] for a in expr.atoms(sympy.sign, sympy.Heaviside)]
    for node in expr.atoms(sympy.Max, sympy.Min):
        args = node.args
        arguments += [args[i] - args[j] for i in range(len(args)) for j in range(i + 1, len(args))]
    for node in expr.atoms(sympy.Piecewise):
        for _, condition in node.args:
            for relation in condition.atoms(sympy.core.relational.Relational):
                arguments.append(relation.lhs - relation.rhs)
    if expr.atoms(sympy.floor, sympy.ceiling, sympy.frac):
        raise NotDecidable("the log-ratio contains floor/ceiling terms (infinitely many breakpoints)")
    points: list[Any] = []
    for argument in arguments:
        if not argument.has(z):
            continue
        try:
            roots = sympy.solve(argument, z)
        except NotImplementedError:
            roots = None
        if not isinstance(roots, list):
            raise NotDecidable(f"cannot locate the breakpoints of {argument} in {z}")
        for root in roots:
            if root.has(sympy.I):
                continue
            if all(tidy(root - p) != 0 for p in points):
                points.append(tidy(root))
    return points


def _order(points: list[Any], context: SignContext) -> list[Any]:
    import functools

    def compare(a: Any, b: Any) -> int:
        difference = b - a
        if context.positive(difference):
            return -1
        if context.positive(-difference):
            return 1
        raise NotDecidable(f"cannot order the breakpoints {a} and {b}")

    return sorted(points, key=functools.cmp_to_key(compare))


def _holds(relation: Any, point: Any, z: Any, context: SignContext) -> bool:
    """Truth of a condition at z = point (decided with the sign context)."""
    import sympy

    value = relation.subs(z, point)
    if value in (sympy.true, True):
        return True
    if value in (sympy.false, False):
        return False
    if isinstance(value, (sympy.And, sympy.Or, sympy.Not)):
        parts = [_holds(arg, point, z, context) for arg in relation.args]
        if isinstance(value, sympy.And):
            return all(parts)
        if isinstance(value, sympy.Or):
            return any(parts)
        return not parts[0]
    difference = value.lhs - value.rhs
    if isinstance(value, (sympy.StrictGreaterThan, sympy.GreaterThan)):
        decision = context.positive(difference) if isinstance(value, sympy.StrictGreaterThan) else context.nonnegative(difference)
    elif isinstance(value, (sympy.StrictLessThan, sympy.LessThan)):
        decision = context.positive(-difference) if isinstance(value, sympy.StrictLessThan) else context.nonnegative(-difference)
    elif isinstance(value, sympy.Eq):
        decision = tidy(difference) == 0
    elif isinstance(value, sympy.Ne):
        decision = tidy(difference) != 0
    else:
        decision = None
    if decision is None:
        raise NotDecidable(f"cannot decide the condition {relation} at {z} = {point}")
    return bool(decision)


def _smooth_piece(expr: Any, z: Any, point: Any, context: SignContext) -> Any:
    """``expr`` with Abs/sign/Max/Min/Piecewise replaced by the branch holding at z = point."""
    import sympy

    def sign_at(argument: Any) -> int:
        value = argument.subs(z, point)
        if context.positive(value):
            return 1
        if context.positive(-value):
            return -1
        if tidy(value) == 0:
            return 0
        raise NotDecidable(f"cannot decide the sign of {argument} at {z} = {point}")

    replacements = {}
    for atom in expr.atoms(sympy.Abs):
        if atom.has(z):
            replacements[atom] = sign_at(atom.args[0]) * atom.args[0]
    for atom in expr.atoms(sympy.sign):
        if atom.has(z):
            replacements[atom] = sympy.Integer(sign_at(atom.args[0]))
    for atom in expr.atoms(sympy.Max, sympy.Min):
        if atom.has(z):
            best = atom.args[0]
            for other in atom.args[1:]:
                step = sign_at(other - best)
                if (step > 0) if isinstance(atom, sympy.Max) else (step < 0):
                    best = other
            replacements[atom] = best
    piece = expr.xreplace(replacements)
    for atom in piece.atoms(sympy.Piecewise):
        if atom.has(z):
            chosen = next((branch for branch, cond in atom.args if _holds(cond, point, z, context)), None)
            if chosen is None:
                raise NotDecidable(f"no branch of {atom} holds at {z} = {point}")
            piece = piece.xreplace({atom: chosen})
    return piece


def candidates_on_line(expr: Any, z: Any, context: SignContext) -> list[Candidate]:
    """Every candidate for ``sup_z expr`` (z real); raises :class:`NotDecidable` on an undecided step."""
    import sympy

    from ..budget import checkpoint

    checkpoint()
    points = _order(_breakpoints(expr, z), context)
    candidates: list[Candidate] = []
    for point in points:
        value = expr.subs(z, point)
        if isinstance(value, sympy.Piecewise) or value.has(sympy.Piecewise):
            value = _smooth_piece(expr, z, point, context).subs(z, point)
        candidates.append(Candidate(tidy(value), "point", point))
    if points:
        middles = [points[0] - 1] + [(a + b) / 2 for a, b in zip(points, points[1:])] + [points[-1] + 1]
        ends = [(-sympy.oo, points[0])] + list(zip(points, points[1:])) + [(points[-1], sympy.oo)]
    else:
        middles, ends = [sympy.Integer(0)], [(-sympy.oo, sympy.oo)]
    for middle, (low, high) in zip(middles, ends):
        piece = tidy(_smooth_piece(expr, z, middle, context))
        for end, direction in ((low, "+"), (high, "-")):
            if end in (sympy.oo, -sympy.oo):
                candidates.append(Candidate(tidy(sympy.limit(piece, z, end)), "limit", end))
            else:
                one_sided = tidy(piece.subs(z, end))
                if one_sided.has(sympy.nan, sympy.zoo):
                    one_sided = sympy.limit(piece, z, end, dir=direction)
                candidates.append(Candidate(one_sided, "one-sided", end))
        if piece.is_polynomial(z) and sympy.degree(piece, z) <= 1:
            continue
        derivative = sympy.diff(piece, z)
        try:
            stationary = sympy.solve(derivative, z)
        except NotImplementedError:
            raise NotDecidable(f"cannot solve {derivative} = 0 for the stationary points of a piece") from None
        for root in stationary:
            if root.has(sympy.I):
                continue
            # An undecided position keeps the candidate: an extra candidate only makes the bound larger.
            outside = (low != -sympy.oo and context.nonnegative(low - root)) or (
                high != sympy.oo and context.nonnegative(root - high)
            )
            if not outside:
                candidates.append(Candidate(tidy(piece.subs(z, root)), "point", root))
    return candidates


def nonnegative_on_unit_interval(gap: Any, s: Any, context: SignContext) -> bool | None:
    """Is ``gap(s) >= 0`` for every s in (0, 1]?  True / False (fails for all parameters) / None."""
    import sympy

    if not gap.has(s):
        return context.nonnegative(gap)
    v = sympy.Symbol("_v", positive=True)
    at_one = context.nonnegative(gap.subs(s, 1))
    if at_one is False:
        return False
    inner = context.nonnegative(gap.subs(s, 1 / (1 + v)))
    if at_one and inner:
        return True
    try:
        bad = sympy.solveset(gap < 0, s, sympy.Interval.Lopen(0, 1))
    except (NotImplementedError, TypeError, ValueError):
        return None
    return True if bad is sympy.S.EmptySet else None
