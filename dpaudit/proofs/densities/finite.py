"""Pure epsilon-DP of a discrete mechanism on a finite input domain, by exhaustive enumeration.

Preconditions
    A pmf p(y | x) on finitely many outputs (or a product of finite coordinates) and a finite input
    domain in which every two distinct inputs are neighbours (the local model: randomized response,
    k-RR, RAPPOR, Meiser's K).
Claim
    For all parameters satisfying the assumptions and all x != x' and y:
    p(y | x) <= e^epsilon p(y | x')   (Dwork & Roth 2014, Def. 2.4 with delta = 0; for finite
    outputs the pointwise bound is equivalent to the bound on every event).
Proof
    Enumerate the ordered pairs (x, x').  For a product pmf p(y | x) = c(x) prod_i f_i(y_i | x) the
    largest ratio factorises: max_y p(y|x)/p(y|x') = c(x)/c(x') prod_i max_{y_i} f_i(y_i|x)/f_i(y_i|x');
    otherwise every output is enumerated.  Each comparison e^epsilon p(y|x') - p(y|x) >= 0 is decided
    with e^{epsilon/k} = 1 + t, t > 0 (:mod:`dpaudit.proofs.inequalities.signs`).  A zero p(y | x')
    with p(y | x) > 0 makes the ratio infinite.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..budget import checkpoint
from ..inequalities.signs import DIGITS, SignContext, canonical, evaluate, exceeds, is_zero
from ..result import Counterexample, Outcome, Step, Verdict
from .outputs import coordinate_domains, finite_outputs
from .verify import density_value, log_ratio_at

__all__ = ["input_pairs", "product_factors", "prove_finite_pure"]

METHOD = "finite enumeration"


def input_pairs(density: Any) -> list[tuple[tuple, tuple]]:
    """Ordered pairs of distinct inputs of the finite input domain."""
    domain = [tuple(x) for x in density.input_domain]
    return [(a, b) for a, b in itertools.product(domain, repeat=2) if a != b]


def product_factors(density: Any) -> tuple[Any, list[Any]] | None:
    """``(constant, [f_1, ..., f_k])`` when the pmf is a product over output coordinates, else None."""
    import sympy

    if len(density.outputs) < 2:
        return None
    factors = [sympy.Integer(1)] * len(density.outputs)
    constant = sympy.Integer(1)
    for factor in sympy.Mul.make_args(density.expr):
        present = [i for i, y in enumerate(density.outputs) if factor.has(y)]
        if len(present) > 1:
            return None
        if present:
            factors[present[0]] *= factor
        else:
            constant *= factor
    return constant, factors


def _ratio_max(ratios: list[Any], context: SignContext) -> Any:

    unique: list[Any] = []
    for r in ratios:
        if all(not is_zero(r - u) for u in unique):
            unique.append(r)
    for candidate in unique:
        if all(context.nonnegative(candidate - other) for other in unique if other is not candidate):
            return candidate
    return None


def _sup_ratio(density: Any, a: tuple, b: tuple, context: SignContext) -> tuple[Any, Any]:
    """(sup_y p(y|a)/p(y|b), the maximising output) symbolically, or (None, reason)."""
    import sympy

    split = product_factors(density)
    if split is not None:
        constant, factors = split
        bound = canonical(constant.xreplace(dict(zip(density.inputs, a))) / constant.xreplace(dict(zip(density.inputs, b))))
        argmax = []
        for i, (factor, domain) in enumerate(zip(factors, coordinate_domains(density))):
            ratios, where = [], []
            for value in sorted(domain, key=sympy.default_sort_key):
                fa = canonical(factor.xreplace({density.outputs[i]: value, **dict(zip(density.inputs, a))}))
                fb = canonical(factor.xreplace({density.outputs[i]: value, **dict(zip(density.inputs, b))}))
                if fa == 0:
                    continue
                if fb == 0:
                    return sympy.oo, None
                ratios.append(canonical(fa / fb))
                where.append(value)
            best = _ratio_max(ratios, context)
            if best is None:
                return None, f"cannot decide the largest of the ratios {ratios} of coordinate {i + 1}"
            bound *= best
            argmax.append(where[ratios.index(best)] if best in ratios else where[0])
        return canonical(bound), tuple(argmax)
    ratios, where = [], []
    for y in finite_outputs(density):
        pa = canonical(_pmf(density, y, a))
        if pa == 0:
            continue
        pb = canonical(_pmf(density, y, b))
        if pb == 0:
            return sympy.oo, y
        ratios.append(canonical(pa / pb))
        where.append(y)
    best = _ratio_max(ratios, context)
    if best is None:
        return None, f"cannot decide the largest of the ratios {sorted(set(map(str, ratios)))}"
    return best, where[ratios.index(best)]


def _pmf(density: Any, y: tuple, x: tuple) -> Any:
    import sympy

    values = dict(zip(density.outputs, y))
    values.update(zip(density.inputs, x))
    return density.expr.xreplace({k: sympy.sympify(v) for k, v in values.items()})


def prove_finite_pure(density: Any, epsilon: Any, context: SignContext) -> Outcome:
    """Decide pure epsilon-DP over every pair of the finite input domain (see the module docstring)."""
    import sympy

    steps: list[Step] = []
    bounds: dict[Any, tuple] = {}
    for a, b in input_pairs(density):
        checkpoint(f"finite enumeration: sup ratio for inputs {a} vs {b}")
        ratio, where = _sup_ratio(density, a, b, context)
        if ratio is None:
            return _search(density, epsilon, context, steps, f"undecided step for inputs {a} vs {b}: {where}")
        if ratio is sympy.oo:
            return _search(density, epsilon, context, steps, f"p(y | {b}) = 0 < p(y | {a}) for some y")
        bounds.setdefault(ratio, (a, b, where))
    exp_eps = sympy.exp(epsilon)
    steps.append(
        Step(
            "case split",
            sympy.Tuple(*bounds),
            f"enumerated {len(input_pairs(density))} ordered input pairs; distinct values of max_y p(y|x)/p(y|x') listed",
        )
    )
    for ratio, (a, b, where) in bounds.items():
        decision = context.nonnegative(exp_eps - ratio)
        if decision is not True:
            return _search(density, epsilon, context, steps, f"cannot show {ratio} <= exp({epsilon}) (inputs {a}, {b})")
    worst = _ratio_max(list(bounds), context)
    supremum = worst if worst is not None else sympy.Max(*bounds)
    steps.append(Step("supremum", supremum, "the largest ratio over all pairs and outputs"))
    steps.append(
        Step(
            "final inequality",
            sympy.Le(supremum, exp_eps),
            "e^epsilon - ratio >= 0 for all parameters (decided with e^{epsilon/k} = 1 + t, t > 0)",
        )
    )
    return Outcome(Verdict.PROVED, f"max p(y|x)/p(y|x') <= exp({epsilon}) for every pair of inputs", METHOD, steps)


def _search(density: Any, epsilon: Any, context: SignContext, steps: list[Step], reason: str) -> Outcome:
    witness = finite_counterexample(density, epsilon, context)
    if witness is not None:
        return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness)
    return Outcome(Verdict.UNKNOWN, reason + "; no counterexample found at the parameter values tried", METHOD, steps)


def valid_pmf(density: Any, point: dict, x: tuple) -> bool:
    """Is p(. | x) a probability distribution at the parameter values (entries in [0, 1], sum 1)?"""
    import mpmath

    with mpmath.workdps(DIGITS):
        total = mpmath.mpf(0)
        for y in finite_outputs(density):
            value = density_value(density.expr, density.outputs, density.inputs, y, x, point)
            if value is None or value < -mpmath.mpf(10) ** (-30) or value > 1 + mpmath.mpf(10) ** (-30):
                return False
            total += value
        return bool(abs(total - 1) < mpmath.mpf(10) ** (-20))


def finite_counterexample(density: Any, epsilon: Any, context: SignContext, max_points: int = 20) -> Counterexample | None:
    """The output and inputs with the largest verified log-ratio above epsilon (mpmath), or None."""

    outputs = finite_outputs(density)
    for point in context.parameter_points()[:max_points]:
        checkpoint("finite enumeration: counterexample search")
        eps_value = evaluate(epsilon, point)
        if eps_value is None:
            continue
        best = None
        for a, b in input_pairs(density):
            for y in outputs:
                value = log_ratio_at(density.expr, density.outputs, density.inputs, y, a, b, point)
                if value is not None and exceeds(value, eps_value):
                    if best is None or exceeds(value, best[0]):
                        best = (value, a, b, y)
        if best is None:
            continue
        value, a, b, y = best
        if not (valid_pmf(density, point, a) and valid_pmf(density, point, b)):
            continue
        return Counterexample(
            description=(
                f"p(y | a) / p(y | b) = e^{float(value):.6g} > e^epsilon = e^{float(eps_value):.6g} at y = {_show(y)}"
            ),
            inputs=(_show(a), _show(b)),
            output=_show(y),
            log_ratio=float(value),
            bound=float(eps_value),
            parameters={str(p): float(v) for p, v in point.items()},
            precision_digits=DIGITS,
            extra={"epsilon_claimed": str(epsilon)},
        )
    return None


def _show(values: tuple) -> Any:
    plain = [int(v) if getattr(v, "is_integer", False) else float(v) for v in values]
    return plain[0] if len(plain) == 1 else tuple(plain)
