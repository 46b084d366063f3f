"""Probabilistic (epsilon, delta)-DP of a discrete mechanism (Meiser 2018, IACR ePrint 2018/277, Def. 2).

Preconditions
    A pmf p(y | x) on finitely many outputs and a finite input domain of pairwise neighbours.
Claim
    For every ordered pair (x, x') the bad set B = {y : p(y|x) > e^epsilon p(y|x')} has
    p(B | x) <= delta (both directions are covered by the ordered pairs).
Proof
    Each output's membership in B is decided for all parameters (:mod:`dpaudit.proofs.inequalities.signs`);
    p(B | x) is summed in closed form and delta - p(B | x) >= 0 decided.  Unlike approximate DP this property is not
    closed under post-processing (Meiser 2018, Sect. 3); see :mod:`.postprocessing`.
"""

from __future__ import annotations

from typing import Any

from ..budget import checkpoint
from ..inequalities.signs import DIGITS, SignContext, canonical, evaluate
from ..result import Counterexample, Outcome, Step, Verdict
from .finite import input_pairs
from .outputs import finite_outputs, pmf_at

__all__ = ["bad_sets", "prove_finite_probabilistic"]

METHOD = "probabilistic DP (bad-event mass)"


def bad_sets(density: Any, epsilon: Any, context: SignContext) -> list[tuple] | str:
    """[(a, b, bad outputs, mass p(B|a))] for every ordered pair, or the reason a sign is undecided."""
    import sympy

    found = []
    outputs = finite_outputs(density)
    for a, b in input_pairs(density):
        checkpoint(f"bad-event mass for inputs {a} vs {b}")
        bad, mass = [], sympy.Integer(0)
        for y in outputs:
            pa = pmf_at(density, y, a)
            term = canonical(pa - sympy.exp(epsilon) * pmf_at(density, y, b))
            decision = context.positive(term) if term != 0 else False
            if decision is None:
                return f"whether p(y|{a}) > e^epsilon p(y|{b}) at y = {y} depends on the parameters"
            if decision:
                bad.append(y)
                mass += pa
        found.append((a, b, tuple(bad), canonical(mass)))
    return found


def prove_finite_probabilistic(density: Any, epsilon: Any, delta: Any, context: SignContext) -> Outcome:
    """Decide probabilistic (epsilon, delta)-DP (see the module docstring)."""
    import sympy

    found = bad_sets(density, epsilon, context)
    steps: list[Step] = []
    if isinstance(found, str):
        return Outcome(Verdict.UNKNOWN, f"undecided step: {found}", METHOD, steps)
    masses = {}
    for a, b, bad, mass in found:
        masses.setdefault(mass, (a, b, bad))
    steps.append(
        Step(
            "case split",
            sympy.Tuple(*masses),
            "p(B|x) for B = {y : p(y|x) > e^epsilon p(y|x')}, every ordered pair: "
            + "; ".join(f"{a}->{b}: B = {list(bad)}" for a, b, bad in masses.values()),
        )
    )
    for mass, (a, b, bad) in masses.items():
        decision = context.nonnegative(delta - mass)
        if decision is True:
            continue
        point = context.negative_point(delta - mass)
        if point is None:
            return Outcome(Verdict.UNKNOWN, f"cannot decide {mass} <= {delta} for all parameters", METHOD, steps)
        witness = Counterexample(
            description=f"the outputs {list(bad)} have loss > epsilon and mass {float(evaluate(mass, point)):.6g} > delta",
            inputs=(a, b),
            output=None,
            output_set=str([list(y) for y in bad]),
            quantity="bad-event mass",
            log_ratio=float(evaluate(mass, point)),
            bound=float(evaluate(delta, point)),
            parameters={str(p): float(v) for p, v in point.items()},
            precision_digits=DIGITS,
            extra={"for_all_parameters": decision is False},
        )
        return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness)
    steps.append(Step("final inequality", sympy.Le(sympy.Max(*masses), delta), "p(B|x) <= delta for all pairs, decided for all parameters"))
    return Outcome(Verdict.PROVED, f"the bad-event mass is <= {delta} for every ordered pair", METHOD, steps)
