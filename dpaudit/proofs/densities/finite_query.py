"""Pure epsilon-DP of a pmf on finitely many outputs whose inputs are query values (utilities).

Preconditions
    p(r | u) on outputs r in a finite set, inputs u = (u_1..u_k) with ``||u - u'||_norm <= Delta``,
    and the pmf in normalised form p(r | u) = N_r(u) / sum_j N_j(u) with N_j > 0 (the exponential
    mechanism of McSherry & Talwar 2007, and any Gibbs-type selection rule).
Claim
    For all parameters, all u ~ u' and all r: ln p(r | u) - ln p(r | u') <= epsilon.
Proof
    ln p(r|u)/p(r|u') = ln N_r(u)/N_r(u') + ln (sum_j N_j(u')) / (sum_j N_j(u)), and by the mediant
    inequality (sum_j a_j)/(sum_j b_j) <= max_j a_j / b_j for positive b_j, the second term is at most
    max_j ln N_j(u')/N_j(u) (this is the argument of McSherry & Talwar 2007, Thm. 6 / Dwork & Roth
    2014, Thm. 3.10).  With u' = u + Delta w each term must be free of u and linear in w, so
    sup over the unit ball of the sum of two linear terms sum_i c_i w_i is the dual norm of c
    (linf ball -> sum |c_i|, l1 ball -> max |c_i|, l2 ball -> ||c||_2).  Each bound <= epsilon is
    decided for all parameters.  A pmf not in this normal form that depends on the inputs through
    one linear statistic d = c . u (report noisy max with two answers) goes to
    :mod:`.linear_statistic`.  When neither proof applies a counterexample is searched on the
    vertices of the neighbour ball and reported only if verified.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..budget import checkpoint
from ..inequalities.signs import DIGITS, SignContext, evaluate
from ..inequalities.supremum import NotDecidable
from ..result import Counterexample, Outcome, Step, Verdict
from .linear_statistic import prove_linear_statistic, statistic_pairs
from .outputs import finite_outputs
from .verify import screen_pairs

__all__ = ["prove_finite_query"]

METHOD = "finite outputs (mediant inequality)"


def _normalised_parts(density: Any, outputs: list[tuple]) -> list[Any] | None:
    """The numerators N_r when p(r | u) = N_r / sum_j N_j, else None."""
    import sympy

    numerators, denominators = [], []
    if isinstance(density.expr, (sympy.Max, sympy.Min)):  # a clipped difference, not a normalised weight
        return None
    for y in outputs:
        value = density.expr.xreplace({o: sympy.sympify(v) for o, v in zip(density.outputs, y)})
        numerator, denominator = sympy.fraction(sympy.together(value))
        if denominator.is_number:  # no normaliser depending on the inputs: not of the form N_r / sum_j N_j
            return None
        numerators.append(numerator)
        denominators.append(denominator)
    total = sympy.Add(*numerators)
    if all(sympy.simplify(d - total) == 0 for d in denominators):
        return numerators
    return None


def _linear_sup(term: Any, ws: tuple, norm: str) -> Any:
    import sympy

    term = sympy.expand(term)
    coefficients = [term.coeff(w) for w in ws]
    if sympy.simplify(term - sum(c * w for c, w in zip(coefficients, ws))) != 0:
        raise NotDecidable(f"{term} is not linear in the neighbour move w")
    absolute = [sympy.Abs(c) for c in coefficients]
    if norm == "linf":
        return sympy.Add(*absolute)
    if norm == "l1":
        return sympy.Max(*absolute)
    return sympy.sqrt(sympy.Add(*[c**2 for c in coefficients]))


def prove_finite_query(density: Any, epsilon: Any, context: SignContext) -> Outcome:
    """Decide pure epsilon-DP by the mediant bound (see the module docstring)."""
    import sympy

    outputs = finite_outputs(density)
    ws = tuple(sympy.Symbol(f"w{i + 1}", real=True) for i in range(len(density.inputs)))
    moved = {u: u + density.sensitivity * w for u, w in zip(density.inputs, ws)}
    steps: list[Step] = []
    checkpoint("mediant bound: normal form N_r / sum_j N_j")
    numerators = _normalised_parts(density, outputs)
    if numerators is None:
        outcome = prove_linear_statistic(density, epsilon, context)
        if outcome.verdict is Verdict.PROVED:
            return outcome
        reason = f"the pmf is not of the form N_r(u) / sum_j N_j(u), and {outcome.reason}"
        return _search(density, epsilon, context, outcome.steps, reason, along_statistic=True)
    try:
        logs = []
        for numerator in numerators:
            change = sympy.simplify(sympy.expand_log(sympy.log(numerator.xreplace(moved) / numerator), force=True))
            if change.has(*density.inputs):
                raise NotDecidable(f"ln N(u + Delta w) / N(u) = {change} depends on u")
            logs.append(change)
        steps.append(
            Step(
                "log ratio",
                sympy.Tuple(*logs),
                "ln N_j(u + Delta w) - ln N_j(u) for each output j; ln p(r|u)/p(r|u') <= -(that of r) + max_j (that of j) "
                "by the mediant inequality",
            )
        )
        bounds = set()
        for r in range(len(outputs)):
            for j in range(len(outputs)):
                bounds.add(sympy.simplify(_linear_sup(logs[j] - logs[r], ws, density.norm)))
    except NotDecidable as exc:
        return _search(density, epsilon, context, steps, f"undecided step: {exc}")
    steps.append(Step("supremum", sympy.Tuple(*bounds), f"sup over the {density.norm} unit ball of each linear bound"))
    for bound in bounds:
        if context.nonnegative(epsilon - bound) is not True:
            return _search(density, epsilon, context, steps, f"the mediant bound {bound} is not <= {epsilon}")
    steps.append(Step("final inequality", sympy.Le(sympy.Max(*bounds), epsilon), "each bound decided for all parameters"))
    return Outcome(Verdict.PROVED, f"ln p(r|u)/p(r|u') <= {epsilon} for all outputs and neighbours", METHOD, steps)


def _bases(k: int, sensitivity: Any) -> list[tuple]:
    import sympy

    zero = tuple(sympy.Integer(0) for _ in range(k))
    bases = [zero]
    for c in (2, 1, 5):
        for i in (k - 1, 0):
            bases.append(tuple(c * sensitivity if j == i else 0 for j in range(k)))
            bases.append(tuple(-c * sensitivity if j == i else 0 for j in range(k)))
    return list(dict.fromkeys(bases))


def _moves(k: int, norm: str) -> list[tuple]:
    if norm == "l1":
        return [tuple(sign if j == i else 0 for j in range(k)) for i in range(k) for sign in (1, -1)]
    vertices = [v for v in itertools.islice(itertools.product((-1, 0, 1), repeat=k), 729) if any(v)]
    if norm == "l2":
        import sympy

        return [tuple(sympy.Integer(x) / sympy.sqrt(sum(abs(t) for t in v)) for x in v) for v in vertices]
    return vertices


def _search(density: Any, epsilon: Any, context: SignContext, steps: list[Step], reason: str, along_statistic: bool = False) -> Outcome:
    outputs = finite_outputs(density)
    k = len(density.inputs)
    for index, point in enumerate(context.parameter_points()[:8]):
        eps_value = evaluate(epsilon, point)
        sensitivity = density.sensitivity.subs(point)
        if eps_value is None:
            continue
        hints = [(a, b) for a, b in context.hints if _neighbouring(a, b, sensitivity, density.norm)] if index == 0 else []
        found = screen_pairs(density, point, hints + [(b, a) for a, b in hints], outputs, eps_value)
        if found is not None:
            return _refuted(steps, found, eps_value, point, epsilon)
        checkpoint("finite outputs: counterexample search")
        pairs = [
            (base, tuple(x + sensitivity * m for x, m in zip(base, move))) for base in _bases(k, sensitivity) for move in _moves(k, density.norm)
        ]
        if along_statistic:  # far along d = c . u, where a Lipschitz bound is approached
            pairs += statistic_pairs(density, sensitivity)
        found = screen_pairs(density, point, pairs, outputs, eps_value)
        if found is not None:
            return _refuted(steps, found, eps_value, point, epsilon)
    return Outcome(Verdict.UNKNOWN, reason + "; no counterexample found at the parameter values tried", METHOD, steps)


def _neighbouring(a: tuple, b: tuple, bound: Any, norm: str) -> bool:
    """||a - b||_norm <= bound, decided exactly (the hints are rationals)."""
    import sympy

    gaps = [abs(sympy.sympify(x) - y) for x, y in zip(a, b)]
    size = sympy.Add(*gaps) if norm == "l1" else (sympy.Max(*gaps) if norm == "linf" else sympy.sqrt(sum(g**2 for g in gaps)))
    return bool(size <= bound)


def _refuted(steps: list[Step], found: tuple, eps_value: Any, point: dict, epsilon: Any) -> Outcome:
    value, base, other, y = found
    witness = Counterexample(
        description=f"p(r | a) / p(r | b) = e^{float(value):.6g} > e^epsilon = e^{float(eps_value):.6g} at output r = {_plain(y)}",
        inputs=(_plain(base), _plain(other)),
        output=_plain(y),
        log_ratio=float(value),
        bound=float(eps_value),
        parameters={str(p): float(v) for p, v in point.items()},
        precision_digits=DIGITS,
        extra={"epsilon_claimed": str(epsilon)},
    )
    return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness)


def _plain(values: tuple) -> Any:
    plain = tuple(float(v) for v in values)
    return plain[0] if len(plain) == 1 else plain
