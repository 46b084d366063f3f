"""An upper bound for sup_z of a log-ratio with floor (or ceiling) terms, by pairing them.

Preconditions
    A one-dimensional log-ratio L(z) = sum_j c_j (floor(A_j(z)) - floor(B_j(z))) + h(z), where each
    c_j > 0 does not depend on z, A_j - B_j and h have finitely many breakpoints (Abs, Piecewise, ...)
    and no floor of their own; ``ceiling(x)`` is read as ``-floor(-x)``.  This is the shape of the
    staircase mechanism's log-ratio (Geng & Viswanath 2016, IEEE Trans. Inf. Theory 62(2), Sect. III):
    -epsilon floor(|z|/Delta + 1 - gamma) + epsilon floor(|z - Delta w|/Delta + 1 - gamma).
Claim
    sup_z L(z) <= sum_j c_j N_j + sup_z h(z), where N_j is the least integer in 0..MAX_STEPS with
    sup_z (A_j - B_j) <= N_j for every s = |w| in (0, 1] and every parameter value.
Proof
    floor(A) <= A and floor(B) > B - 1, so floor(A) - floor(B) < A - B + 1 <= N + 1; being an
    integer, floor(A) - floor(B) <= N.  sup_z (A_j - B_j) and sup_z h are the largest of their
    candidates (:func:`~dpaudit.proofs.inequalities.supremum.candidates_on_line`), so each candidate c of them
    gives the candidate bound c + sum_j c_j N_j, and the largest of these bounds sup_z L.  The bound
    is an upper bound, not the supremum: it proves, and a claim it cannot prove goes to the
    counterexample search.
"""

from __future__ import annotations

from typing import Any

from .signs import SignContext, is_zero
from .supremum import Candidate, NotDecidable, candidates_on_line, nonnegative_on_unit_interval

__all__ = ["MAX_STEPS", "floor_candidates"]

MAX_STEPS = 4


def _floor_terms(expression: Any, z: Any) -> tuple[list[tuple[Any, Any]], Any]:
    """[(c, A)] for the terms c floor(A) of ``expression`` that depend on z, and the rest h."""
    import sympy

    expression = sympy.expand(expression.replace(sympy.ceiling, lambda x: -sympy.floor(-x)))
    terms, rest = [], sympy.Integer(0)
    for term in sympy.Add.make_args(expression):
        floors = [f for f in term.atoms(sympy.floor) if f.has(z)]
        if not floors:
            rest += term
            continue
        if len(floors) > 1:
            raise NotDecidable(f"the term {term} multiplies several floor terms")
        coefficient = sympy.cancel(term / floors[0])
        if coefficient.has(z):
            raise NotDecidable(f"the coefficient {coefficient} of {floors[0]} depends on the output")
        terms.append((coefficient, floors[0].args[0]))
    return terms, rest


def _pairs(terms: list[tuple[Any, Any]], context: SignContext) -> list[tuple[Any, Any, Any]]:
    """Match each c floor(A) (c > 0) with a -c floor(B): [(c, A, B)]."""
    positive = [t for t in terms if context.positive(t[0])]
    negative = [t for t in terms if context.positive(-t[0])]
    if len(positive) + len(negative) != len(terms) or len(positive) != len(negative):
        raise NotDecidable("the floor terms of the log-ratio do not come in pairs +c floor(A), -c floor(B)")
    pairs = []
    for c, a in positive:
        match = next((t for t in negative if is_zero(c + t[0])), None)
        if match is None:
            raise NotDecidable(f"no floor term with coefficient {-c} to pair with {c} floor({a})")
        negative.remove(match)
        pairs.append((c, a, match[1]))
    return pairs


def _steps(difference: Any, z: Any, s: Any, context: SignContext) -> int:
    """The least N in 0..MAX_STEPS with sup_z difference <= N for all s in (0, 1]."""
    import sympy

    if difference.has(sympy.floor):
        raise NotDecidable(f"nested floor terms in {difference}")
    values = [c.value for c in candidates_on_line(difference, z, context)] if difference.has(z) else [difference]
    values = [v for v in values if v is not sympy.S.NegativeInfinity]
    if any(v.has(sympy.oo, sympy.zoo) for v in values):
        raise NotDecidable(f"sup_z ({difference}) is infinite")
    for n in range(MAX_STEPS + 1):
        if all(nonnegative_on_unit_interval(n - v, s, context) is True for v in values):
            return n
    raise NotDecidable(f"cannot bound sup_z ({difference}) by an integer <= {MAX_STEPS}")


def floor_candidates(line: Any, z: Any, s: Any, context: SignContext) -> list[Candidate]:
    """Candidate upper bounds of sup_z ``line`` (see the module docstring); NotDecidable otherwise."""
    import sympy

    terms, rest = _floor_terms(line, z)
    offset = sympy.Integer(0)
    for c, a, b in _pairs(terms, context):
        offset += c * _steps(a - b, z, s, context)
    if rest.has(z):
        return [Candidate(c.value + offset, "bound", c.location) for c in candidates_on_line(rest, z, context)]
    return [Candidate(rest + offset, "bound", None)]
