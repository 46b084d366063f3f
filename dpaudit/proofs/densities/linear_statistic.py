"""Pure epsilon-DP of a pmf on finitely many outputs that sees its inputs through one linear statistic.

Preconditions
    p(r | u) on finitely many outputs r, inputs u = (u_1..u_k) with ``||u - u'||_norm <= Delta``, and
    p(r | u) = f_r(d) with d = c . u for one vector c of rational numbers (checked by substituting
    u_1 = (d - sum_{i>1} c_i u_i) / c_1); each f_r continuous, piecewise smooth with finitely many
    breakpoints.  Report noisy max with two answers is the example: with b = 2 Delta / epsilon its pmf
    is a function of d = u_0 - u_1 only (Dwork & Roth 2014, Claim 3.9, for k = 2).
Claim
    For all parameters, all u ~ u' and all r: ln f_r(d) - ln f_r(d') <= epsilon.
Proof
    The neighbour relation moves d by d' - d = Delta c . w with ``||w|| <= 1``, so |d - d'| <= m with
    m = Delta ||c||_* (Hoelder: the dual norm, l1 for linf moves -- m = 2 Delta for u_0 - u_1 -- linf
    for l1, l2 for l2), and every value in [-m, m] is reached.  If each f_r is positive and
    |(ln f_r)'(d)| <= epsilon / m on every piece, then by the mean value theorem on each piece
    between d' and d, ln f_r(d) - ln f_r(d') <= (epsilon / m) |d - d'| <= epsilon.  On the piece
    (b_i, b_{i+1}) write d = b_i + v (or d = b_1 - v left of every breakpoint), v > 0, and decide
    f_r > 0 and epsilon/m f_r -+ f_r' >= 0 for all v > 0 (:mod:`dpaudit.proofs.inequalities.exp_polynomials`;
    checking the whole half line is conservative for a bounded piece).  Continuity at each breakpoint is checked, since
    a jump would break the Lipschitz bound.  The bound is the exact supremum when |(ln f_r)'| tends
    to epsilon / m (report noisy max: as d -> -oo, so the supremum epsilon is approached, not reached).
"""

from __future__ import annotations

from typing import Any

from ..budget import checkpoint
from ..inequalities.exp_polynomials import nonnegative_on_half_line
from ..inequalities.signs import SignContext, tidy
from ..inequalities.supremum import NotDecidable, _breakpoints, _order, _smooth_piece
from ..result import Outcome, Step, Verdict
from .outputs import finite_outputs

__all__ = ["linear_statistic", "prove_linear_statistic", "statistic_pairs"]

METHOD = "finite outputs (Lipschitz bound in one linear statistic)"


def _linear_forms(expr: Any, inputs: tuple) -> list[tuple]:
    """Coefficient vectors (first non-zero entry 1) of the sums of degree 1 in the inputs that hold
    every input the expression depends on (a single statistic must)."""
    import sympy

    present = {u for u in inputs if expr.has(u)}
    forms: list[tuple] = []
    for node in expr.atoms(sympy.Add):
        if {u for u in inputs if node.has(u)} != present:
            continue
        coefficients = [sympy.Integer(0)] * len(inputs)
        for term in node.args:
            factor, variable = term.as_independent(*inputs)
            if variable == 1:
                continue
            if variable not in inputs:
                break
            coefficients[inputs.index(variable)] += factor
        else:
            lead = next(c for c in coefficients if c != 0)
            vector = tuple(c / lead for c in coefficients)
            if all(c.is_Rational for c in vector) and vector not in forms:
                forms.append(vector)
    return forms


def linear_statistic(expr: Any, inputs: tuple) -> tuple[tuple, Any, Any] | None:
    """``(c, d, f(d))`` when ``expr`` depends on the inputs through d = c . u only, else None."""
    import sympy

    d = sympy.Symbol("d", real=True)
    for vector in _linear_forms(expr, inputs):
        first = next(i for i, c in enumerate(vector) if c != 0)
        rest = sympy.Add(*[c * u for i, (c, u) in enumerate(zip(vector, inputs)) if i != first])
        reduced = expr.xreplace({inputs[first]: (d - rest) / vector[first]})
        if reduced.has(*inputs):
            reduced = sympy.expand(reduced)
        if not reduced.has(*inputs):
            return vector, d, reduced
    return None


def _dual_norm(vector: tuple, norm: str) -> Any:
    import sympy

    absolute = [abs(c) for c in vector]
    if norm == "linf":
        return sympy.Add(*absolute)
    if norm == "l1":
        return sympy.Max(*absolute)
    return sympy.sqrt(sympy.Add(*[c**2 for c in vector]))


def _extreme_move(vector: tuple, norm: str) -> tuple:
    """A unit-ball vertex w with c . w = ||c||_* (the largest move of the statistic)."""
    import sympy

    if norm == "linf":
        return tuple(sympy.sign(c) for c in vector)
    if norm == "l1":
        top = max(range(len(vector)), key=lambda i: abs(vector[i]))
        return tuple(sympy.sign(c) if i == top else 0 for i, c in enumerate(vector))
    length = sympy.sqrt(sympy.Add(*[c**2 for c in vector]))
    return tuple(c / length for c in vector)


# Positions of the statistic tried by the counterexample search, in units of its largest move m.
_SEARCH_OFFSETS = (0, 1, 2, 5, 10, 20, 50, 100)


def statistic_pairs(density: Any, sensitivity: Any) -> list[tuple[tuple, tuple]]:
    """Neighbouring inputs (a, b) with d(a) = t m and d(b) = d(a) +- m for the offsets t (numeric Delta)."""
    found = linear_statistic(density.expr, density.inputs)
    if found is None:
        return []
    vector = found[0]
    first = next(i for i, c in enumerate(vector) if c != 0)
    move = _extreme_move(vector, density.norm)
    reach = sensitivity * _dual_norm(vector, density.norm)
    pairs = []
    for offset in _SEARCH_OFFSETS:
        for side in ((1, -1) if offset else (1,)):
            a = tuple(side * offset * reach / vector[first] if i == first else 0 for i in range(len(vector)))
            for sign in (1, -1):
                pairs.append((a, tuple(x + sign * sensitivity * w for x, w in zip(a, move))))
    return pairs


def _pieces(f: Any, d: Any, context: SignContext) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Ordered breakpoints of f in d (0 when there is none) and, per piece, (smooth branch, d as b +- v)."""
    import sympy

    points = _order(_breakpoints(f, d), context) or [sympy.Integer(0)]
    v = sympy.Symbol("v", positive=True)
    middles = [points[0] - 1] + [(a + b) / 2 for a, b in zip(points, points[1:])] + [points[-1] + 1]
    places = [points[0] - v] + [p + v for p in points]
    return points, [(tidy(_smooth_piece(f, d, m, context)), place) for m, place in zip(middles, places)]


def prove_linear_statistic(density: Any, epsilon: Any, context: SignContext) -> Outcome:
    """Decide pure epsilon-DP by the Lipschitz bound in d = c . u (see the module docstring)."""
    import sympy

    checkpoint("linear statistic: d = c . u")
    found = linear_statistic(density.expr, density.inputs)
    if found is None:
        return Outcome(Verdict.UNKNOWN, "the pmf does not depend on the inputs through one linear statistic", METHOD)
    vector, d, reduced = found
    reach = tidy(density.sensitivity * _dual_norm(vector, density.norm))
    lipschitz = tidy(epsilon / reach)
    statistic = sympy.Add(*[c * u for c, u in zip(vector, density.inputs)])
    steps = [
        Step("linear statistic", sympy.Eq(d, statistic), "p(r | u) = f_r(d): substituting the statistic removes every input"),
        Step(
            "neighbour range",
            sympy.Le(sympy.Abs(d - sympy.Symbol("d'")), reach),
            f"d' - d = {density.sensitivity} c . w with ||w||_{density.norm[1:]} <= 1; sup |c . w| is the dual norm of c (Hoelder), "
            "reached at a vertex of the ball",
        ),
    ]
    v = sympy.Symbol("v", positive=True)
    try:
        for y in finite_outputs(density):
            checkpoint(f"linear statistic: output {y}")
            f = sympy.piecewise_fold(reduced.xreplace(dict(zip(density.outputs, y))))
            if f == 0:
                continue
            points, pieces = _pieces(f, d, context)
            for point, (left, _), (right, _) in zip(points, pieces, pieces[1:]):
                if tidy(left.subs(d, point) - right.subs(d, point)) != 0:
                    raise NotDecidable(f"f_{y} jumps at d = {point}: no Lipschitz bound")
            bounds = []
            for branch, place in pieces:
                derivative = sympy.diff(branch, d)
                at = {d: place}
                if nonnegative_on_half_line(branch.xreplace(at), v, context, strict=True) is not True:
                    raise NotDecidable(f"cannot show f_{y}(d) = {branch} > 0 for d = {place}, v > 0")
                for sign in (1, -1):
                    gap = (lipschitz * branch - sign * derivative).xreplace(at)
                    if nonnegative_on_half_line(gap, v, context) is not True:
                        raise NotDecidable(f"cannot show |d/dd ln f_{y}| <= {lipschitz} for d = {place}, v > 0")
                bounds.append(tidy(derivative / branch))
            steps.append(
                Step(
                    "case split",
                    sympy.Tuple(*bounds),
                    f"output {y[0] if len(y) == 1 else y}: d/dd ln f on the pieces split at {[str(p) for p in points]} "
                    f"(f continuous there); on each piece f > 0 and |.| <= {lipschitz} "
                    "(e^y >= its Taylor polynomial for y >= 0)",
                )
            )
    except NotDecidable as exc:
        return Outcome(Verdict.UNKNOWN, f"undecided step: {exc}", METHOD, steps)
    steps.append(
        Step(
            "supremum",
            sympy.Le(sympy.Symbol("L"), reach * lipschitz),
            f"mean value theorem on each piece: ln f_r(d) - ln f_r(d') <= {lipschitz} |d - d'| <= {lipschitz} * {reach}",
        )
    )
    bound = tidy(reach * lipschitz)  # = epsilon: the Lipschitz constant was chosen as epsilon / m
    if context.nonnegative(tidy(epsilon - bound)) is not True:
        return Outcome(Verdict.UNKNOWN, f"cannot show {bound} <= {epsilon}", METHOD, steps)
    steps.append(Step("final inequality", sympy.Le(sympy.Symbol("L"), bound), "for all outputs, neighbours and parameters"))
    return Outcome(Verdict.PROVED, f"ln p(r|u)/p(r|u') <= {epsilon} for all outputs and neighbours", METHOD, steps)
