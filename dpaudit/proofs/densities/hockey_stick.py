"""Approximate (epsilon, delta)-DP of a discrete mechanism: the exact hockey-stick divergence.

Preconditions
    A pmf p(y | x) on finitely many outputs and a finite input domain of pairwise neighbours.
Claim
    delta(epsilon) = max over ordered pairs (x, x') of sum_y max(0, p(y|x) - e^epsilon p(y|x'))
    is <= the claimed delta.  This is the smallest delta for which the mechanism is
    (epsilon, delta)-DP (Barthe & Olmedo 2013; Balle, Barthe & Gaboardi 2018, Thm. 1: the privacy
    profile of a pair is its hockey-stick divergence).
Proof
    For each output the sign of p(y|x) - e^epsilon p(y|x') is decided for all parameters
    (:mod:`dpaudit.proofs.inequalities.signs`, with e^{epsilon/k} = 1 + t); the positive terms are
    summed in closed form.  The closed forms follow (tests/proofs/densities/test_approximate.py): randomized
    response at epsilon_0 / 2 gives (e^{eps0} - e^{eps0/2}) / (1 + e^{eps0}); Meiser's K gives delta
    exactly.
"""

from __future__ import annotations

from typing import Any

from ..budget import checkpoint
from ..inequalities.signs import DIGITS, SignContext, canonical, evaluate
from ..result import Counterexample, Outcome, Step, Verdict
from .finite import input_pairs
from .outputs import finite_outputs, pmf_at

__all__ = ["hockey_stick_delta", "prove_finite_approx"]

METHOD = "hockey-stick divergence (exact)"


def pair_delta(density: Any, a: tuple, b: tuple, epsilon: Any, context: SignContext) -> Any:
    """sum_y max(0, p(y|a) - e^epsilon p(y|b)) in closed form, or None if a sign is undecided."""
    import sympy

    total = sympy.Integer(0)
    for y in finite_outputs(density):
        term = canonical(pmf_at(density, y, a) - sympy.exp(epsilon) * pmf_at(density, y, b))
        if term == 0:
            continue
        positive = context.positive(term)
        if positive is None:
            return None
        if positive:
            total += term
    return canonical(total)


def hockey_stick_delta(density: Any, epsilon: Any, context: SignContext) -> tuple[Any, Any]:
    """(delta(epsilon), the worst pair): the exact hockey-stick divergence, or (None, reason)."""
    import sympy

    values: dict[Any, tuple] = {}
    for a, b in input_pairs(density):
        checkpoint(f"hockey-stick divergence for inputs {a} vs {b}")
        value = pair_delta(density, a, b, epsilon, context)
        if value is None:
            return None, f"the sign of p(y|{a}) - e^epsilon p(y|{b}) depends on the parameters for some y"
        values.setdefault(value, (a, b))
    best = None
    for candidate in values:
        if all(context.nonnegative(candidate - other) for other in values if other is not candidate):
            best = candidate
            break
    if best is None:
        return sympy.Max(*values), next(iter(values.values()))
    return best, values[best]


def prove_finite_approx(density: Any, epsilon: Any, delta: Any, context: SignContext) -> Outcome:
    """Decide (epsilon, delta)-DP from the exact hockey-stick divergence."""
    import mpmath
    import sympy

    value, pair = hockey_stick_delta(density, epsilon, context)
    steps = [
        Step(
            "log ratio",
            sympy.Symbol("delta_eps"),
            "delta(epsilon) = max_(x,x') sum_y max(0, p(y|x) - e^epsilon p(y|x')) (Balle, Barthe & Gaboardi 2018, Thm. 1)",
        )
    ]
    if value is None:
        return _numeric(density, epsilon, delta, context, steps, pair)
    steps.append(Step("supremum", value, f"closed form; the worst pair is {pair}"))
    decision = context.nonnegative(delta - value)
    if decision is True:
        steps.append(Step("final inequality", sympy.Le(value, delta), "decided for all parameters"))
        return Outcome(Verdict.PROVED, f"delta({epsilon}) = {value} <= {delta}", METHOD, steps, details={"delta_at_epsilon": str(value)})
    point = context.negative_point(delta - value)
    if point is not None:
        computed = evaluate(value, point)
        witness = Counterexample(
            description=f"hockey-stick delta({float(evaluate(epsilon, point)):.6g}) = {float(computed):.6g} > claimed delta",
            inputs=tuple(pair),
            output=None,
            output_set="{y : p(y|a) > e^epsilon p(y|b)}",
            quantity="hockey-stick delta",
            log_ratio=float(computed),
            bound=float(evaluate(delta, point)),
            parameters={str(p): float(v) for p, v in point.items()},
            precision_digits=DIGITS,
        )
        del mpmath
        return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness)
    return Outcome(Verdict.UNKNOWN, f"cannot decide {value} <= {delta} for all parameters", METHOD, steps)


def _numeric(density, epsilon, delta, context, steps, reason) -> Outcome:
    return Outcome(Verdict.UNKNOWN, f"undecided step: {reason}", METHOD, steps)
