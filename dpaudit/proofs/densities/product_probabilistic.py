"""Probabilistic (epsilon, delta)-DP of a product pmf whose neighbours differ in one factor.

Preconditions
    p(y | c) = prod_j f_j(y_j | c_j): factor j holds output j and input j only; the inputs are integers
    bounded below and the neighbours are ``||c - c'||_1 <= 1``, so c' = c +- e_j (adding or removing
    one record changes one count).  Each output coordinate ranges over a finite set and/or an integer
    range [t, oo).  The thresholded histogram is the example (Korolova, Kenthapadi, Mishra & Ntoulas
    2009; Wilson et al. 2020): a discrete Laplace count per key, released only at or above tau.
Claim
    For every ordered pair the bad set B = {y : p(y|c) > e^epsilon p(y|c')} has p(B | c) <= delta
    (Meiser 2018, IACR ePrint 2018/277, Def. 2).
Proof
    The factors i != j cancel in the ratio, so B = {y : y_j in B_j} with B_j the bad set of f_j for
    c_j against c_j +- 1, and p(B | c) = P_{f_j(.|c_j)}[B_j] since the other factors sum to 1.  For
    one factor and each direction s = +-1:

    * the integers c are cut into segments on which every branch of f(.|c) and f(.|c + s) is fixed
      (:mod:`dpaudit.proofs.inequalities.integer_segments`);
    * a finite output y is in B_j iff f(y|c) - e^epsilon f(y|c + s) > 0, decided on the whole segment;
    * on an output range [t, oo) where f(y|c + s) = 0 every y is bad, with the geometric tail
      sum_{y >= t} f(y|c) = f(t|c) / (1 - r), r = f(y+1|c) / f(y|c) free of y, 0 <= r < 1;
      where both are positive, sup_y ln f(y|c)/f(y|c + s) over the real line
      (:mod:`dpaudit.proofs.inequalities.supremum`) <= epsilon shows that no y of the range is bad;
    * delta - p(B_j | c) >= 0 is decided on the segment.

    Every decision is made for all parameters; when one depends on them (for the thresholded
    histogram: the sentinel under c = 0 against c' = 1 is bad exactly when delta > 1 - e^-epsilon, a
    condition of the catalogue's constructor), the procedure is repeated at the catalogue instance
    and the result's scope is "instance".  A violation is reported only after the bad mass is
    re-summed from the declared factor at :data:`~dpaudit.proofs.inequalities.signs.DIGITS` digits.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..budget import checkpoint
from ..inequalities.integer_segments import collapse, holds_on_segment, segments
from ..inequalities.signs import DIGITS, SignContext, evaluate, exceeds, tidy
from ..inequalities.supremum import NotDecidable, candidates_on_line
from ..result import Counterexample, Outcome, Step, Verdict
from .outputs import coordinate_domains
from .query_density import log_density

__all__ = ["factor_structure", "prove_product_probabilistic"]

METHOD = "probabilistic DP (one factor of a product pmf)"

# Released values re-summed per witness when a violation is re-verified (the tail beyond is ignored,
# which can only lower the verified mass).
_VERIFIED_TERMS = 400


def factor_structure(density: Any) -> list[Any] | None:
    """The factors f_j (output j and input j only) of a product pmf under ``||c - c'||_1 <= 1`` on
    integer inputs bounded below, or None when the density is not of that shape."""
    import sympy

    outputs, inputs = density.outputs, density.inputs
    if len(outputs) != len(inputs) or density.input_domain is not None or density.norm != "l1":
        return None
    if density.sensitivity is None or tidy(density.sensitivity - 1) != 0:
        return None
    if not all(c.is_integer and (c.is_nonnegative or c.is_positive) for c in inputs):
        return None
    factors = [sympy.Integer(1)] * len(outputs)
    for factor in sympy.Mul.make_args(density.expr):
        present = {i for i, (y, c) in enumerate(zip(outputs, inputs)) if factor.has(y) or factor.has(c)}
        if len(present) != 1:
            return None
        factors[present.pop()] *= factor
    return factors


def _output_parts(domain: Any) -> tuple[list[Any], list[Any]]:
    """(finite output values, starts of the ranges [t, oo)) of one coordinate's domain."""
    import sympy

    parts = domain.args if isinstance(domain, sympy.Union) else (domain,)
    points, ranges = [], []
    for part in parts:
        if isinstance(part, sympy.FiniteSet):
            points += list(part)
        elif isinstance(part, sympy.Range) and part.args[1:] == (sympy.oo, 1):
            ranges.append(part.args[0])
        else:
            raise NotDecidable(f"the output domain part {part} is neither finite nor [t, oo)")
    return points, ranges


def _geometric_tail(term: Any, y: Any, start: Any, context: SignContext) -> Any:
    """sum_{y >= start} term(y) for a geometric term (ratio free of y, in [0, 1))."""
    ratio = tidy(term.subs(y, y + 1) / term)
    if ratio.has(y) or context.nonnegative(ratio) is not True or context.positive(1 - ratio) is not True:
        raise NotDecidable(f"the released mass sum of {term} over y >= {start} is not a geometric tail")
    return tidy(term.subs(y, start) / (1 - ratio))


def _resolve_abs(expr: Any, y: Any, start: Any, c: Any, segment: tuple, context: SignContext) -> Any:
    """Abs(a y + b) replaced by +-(a y + b), decided for y >= start and c in the segment."""
    import sympy

    replacements = {}
    for atom in expr.atoms(sympy.Abs):
        argument = atom.args[0]
        if not argument.has(y):
            continue
        slope = sympy.expand(argument).coeff(y)
        if context.positive(-slope):  # Abs(x) = Abs(-x)
            argument, slope = -argument, -slope
        if not (context.positive(slope) and holds_on_segment(argument.subs(y, start), c, segment, context)):
            raise NotDecidable(f"the sign of {argument} for {y} >= {start} is not decided")
        replacements[atom] = argument
    return expr.xreplace(replacements)


def _pair_mass(f: Any, y: Any, c: Any, shift: int, segment: tuple, parts: tuple, eps: Any, context: SignContext) -> tuple[Any, list[str]]:
    """(p(B | c), the bad outputs in words) for c in ``segment`` against c + shift."""
    import sympy

    points, ranges = parts
    moved = f.xreplace({c: c + shift})
    mass, bad = sympy.Integer(0), []
    for value in points:
        pa = collapse(f.xreplace({y: value}), {c: segment}, context)
        pb = collapse(moved.xreplace({y: value}), {c: segment}, context)
        if tidy(pa) == 0:
            continue
        excess = pa - sympy.exp(eps) * pb
        if holds_on_segment(-excess, c, segment, context):
            continue
        if not holds_on_segment(excess, c, segment, context, strict=True):
            raise NotDecidable(f"whether y = {value} is bad for c in [{segment[0]}, {segment[1]}] vs c{shift:+d} depends on the parameters")
        mass, bad = mass + pa, bad + [f"y = {value}"]
    for start in ranges:
        for piece in segments([f, moved], y, start, sympy.oo, context):
            pa = tidy(collapse(f, {c: segment, y: piece}, context))
            pb = tidy(collapse(moved, {c: segment, y: piece}, context))
            if pa == 0:
                continue
            if pb == 0:
                term = _resolve_abs(pa, y, piece[0], c, segment, context)
                mass, bad = mass + _geometric_tail(term, y, piece[0], context), bad + [f"y >= {piece[0]} (impossible under c{shift:+d})"]
                continue
            ratio = tidy(sympy.expand(log_density(pa) - log_density(pb)))
            for candidate in candidates_on_line(ratio, y, context):
                if candidate.value is not sympy.S.NegativeInfinity and not holds_on_segment(eps - candidate.value, c, segment, context):
                    raise NotDecidable(f"the loss of the outputs y >= {piece[0]} may exceed epsilon ({candidate.value})")
    return tidy(mass), bad


def _one_factor(f: Any, y: Any, c: Any, lower: Any, domain: Any, eps: Any, dlt: Any, context: SignContext) -> list[tuple]:
    """[(shift, segment, mass, bad outputs, holds)] for every direction and segment of one factor."""
    import sympy

    parts = _output_parts(domain)
    found = []
    for shift in (1, -1):
        start = lower + max(0, -shift)
        for segment in segments([f, f.xreplace({c: c + shift})], c, start, sympy.oo, context):
            checkpoint(f"bad-event mass for c in [{segment[0]}, {segment[1]}] vs c{shift:+d}")
            mass, bad = _pair_mass(f, y, c, shift, segment, parts, eps, context)
            if segment[1] != sympy.oo and tidy(segment[1] - segment[0]) == 0:
                mass = tidy(mass.subs(c, segment[0]))
            found.append((shift, segment, mass, bad, holds_on_segment(dlt - mass, c, segment, context)))
    return found


def _analyse(density: Any, eps: Any, dlt: Any, context: SignContext) -> tuple[list[Step], list[tuple]]:
    import sympy

    factors = factor_structure(density)
    domains = coordinate_domains(density)
    steps, records, seen = [], [], []
    for j, (f, y, c, domain) in enumerate(zip(factors, density.outputs, density.inputs, domains)):
        renamed = f.xreplace({y: density.outputs[0], c: density.inputs[0]})
        if renamed in seen:  # the same factor as an earlier key: the same masses
            continue
        seen.append(renamed)
        lower = sympy.Integer(0) if c.is_nonnegative else sympy.Integer(1)
        for shift, segment, mass, bad, holds in _one_factor(f, y, c, lower, domain, eps, dlt, context):
            records.append((j, shift, segment, mass, bad, holds))
            steps.append(
                Step(
                    "case split",
                    mass,
                    f"key {j}: {c} in [{segment[0]}, {segment[1]}] against {c}{shift:+d}: bad outputs "
                    f"{bad or 'none'}; this is p(B | c) (the other keys' factors cancel in the ratio and sum to 1)",
                )
            )
    return steps, records


def _instance(density: Any, eps: Any, dlt: Any) -> tuple[Any, Any, Any]:
    import sympy

    values = {p: sympy.nsimplify(v, rational=True) if isinstance(v, float) else sympy.sympify(v) for p, v in dict(density.instance).items()}
    numeric = dataclasses.replace(density, instance=values).at_instance()
    return numeric, tidy(sympy.sympify(eps).subs(values)), tidy(sympy.sympify(dlt).subs(values))


def prove_product_probabilistic(density: Any, eps: Any, dlt: Any, context: SignContext) -> Outcome:
    """Decide probabilistic (epsilon, delta)-DP of a product pmf (see the module docstring)."""
    import sympy

    scope, note = None, ""
    try:
        steps, records = _analyse(density, eps, dlt, context)
    except NotDecidable as exc:
        if density.parameters and density.instance:
            density, eps, dlt = _instance(density, eps, dlt)
            note = f"; for all parameters the step '{exc}' is undecided, so the catalogue instance is checked"
            scope = "instance"
            try:
                steps, records = _analyse(density, eps, dlt, SignContext(()))
                exc = None
            except NotDecidable as inner:
                exc = inner
        if exc is not None:
            witness = _search(density, eps, dlt) if not density.parameters else None
            if witness is not None:
                return Outcome(Verdict.REFUTED, witness.description, METHOD, counterexample=witness, scope=scope)
            return Outcome(Verdict.UNKNOWN, f"undecided step: {exc}{note}", METHOD, scope=scope)
    for j, shift, segment, mass, bad, holds in records:
        if holds:
            continue
        witness = _witness(density, eps, dlt, j, shift, segment, context if scope is None else SignContext(()))
        if witness is not None:
            return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness, scope=scope)
        return Outcome(
            Verdict.UNKNOWN,
            f"cannot show p(B|c) = {mass} <= {dlt} for c in [{segment[0]}, {segment[1]}] vs c{shift:+d}{note}",
            METHOD,
            steps,
            scope=scope,
        )
    largest = sympy.Max(*{r[3] for r in records}) if records else sympy.Integer(0)
    steps.append(Step("final inequality", sympy.Le(largest, dlt, evaluate=False), "p(B | c) <= delta on every segment, both directions" + note))
    reason = f"the bad-event mass is <= {dlt} for every neighbour pair (one key moves by one)" + note
    return Outcome(Verdict.PROVED, reason, METHOD, steps, scope=scope)


def _search(density: Any, eps: Any, dlt: Any) -> Counterexample | None:
    """A verified violation at a numeric density: every key, direction and count below the thresholds + 3."""
    import sympy

    for j, f in enumerate(factor_structure(density)):
        starts = _output_parts(coordinate_domains(density)[j])[1]
        top = max([int(s) for s in starts if sympy.sympify(s).is_Integer] + [0]) + 3
        lower = 0 if density.inputs[j].is_nonnegative else 1
        for shift in (1, -1):
            segment = (sympy.Integer(lower + max(0, -shift)), sympy.Integer(top))
            witness = _witness(density, eps, dlt, j, shift, segment, SignContext(()), counts=top + 1)
            if witness is not None:
                return witness
    return None


def _bad_mass(f: Any, y: Any, c: Any, count: Any, shift: int, outputs: list, point: dict, eps_value: Any) -> Any:
    """sum of f(y | count) over the listed outputs whose loss against count + shift exceeds epsilon (mpmath)."""
    import mpmath
    import sympy

    pmf = sympy.lambdify((y, c), f.xreplace({k: sympy.sympify(v) for k, v in point.items()}), modules="mpmath")
    mass = mpmath.mpf(0)
    with mpmath.workdps(DIGITS):
        for value in outputs:
            pa, pb = mpmath.mpf(pmf(int(value), int(count))), mpmath.mpf(pmf(int(value), int(count + shift)))
            if pa > 0 and pb >= 0 and (pb == 0 or exceeds(mpmath.log(pa) - mpmath.log(pb), eps_value)):
                mass += pa
    return mass


def _witness(
    density: Any, eps: Any, dlt: Any, j: int, shift: int, segment: tuple, context: SignContext, counts: int = 3
) -> Counterexample | None:
    """A verified violation: inputs differing in key j, the bad mass re-summed from the declared factor."""
    import sympy

    f, y, c = factor_structure(density)[j], density.outputs[j], density.inputs[j]
    points, ranges = _output_parts(coordinate_domains(density)[j])
    for point in context.parameter_points()[:8] or [{}]:
        eps_value, dlt_value = evaluate(eps, point), evaluate(dlt, point)
        lo = sympy.sympify(segment[0]).xreplace(point)
        if eps_value is None or dlt_value is None or not lo.is_integer:
            continue
        for count in (lo + n for n in range(counts)):
            checkpoint("bad-event mass: counterexample search")
            if segment[1] != sympy.oo and not count <= sympy.sympify(segment[1]).xreplace(point):
                break
            outputs = list(points) + [sympy.sympify(s).xreplace(point) + n for s in ranges for n in range(_VERIFIED_TERMS)]
            mass = _bad_mass(f, y, c, count, shift, outputs, point, eps_value)
            if exceeds(mass, dlt_value):
                a = tuple(count if i == j else 0 for i in range(len(density.inputs)))
                b = tuple(count + shift if i == j else 0 for i in range(len(density.inputs)))
                return Counterexample(
                    description=f"the outputs of key {j} with loss > epsilon have mass {float(mass):.6g} > delta = {float(dlt_value):.6g}",
                    inputs=(a, b),
                    output=None,
                    output_set=f"y_{j} with p(y_{j} | {count}) > e^epsilon p(y_{j} | {count + shift})",
                    quantity="bad-event mass",
                    log_ratio=float(mass),
                    bound=float(dlt_value),
                    mass=float(mass),
                    parameters={str(p): float(v) for p, v in point.items()},
                    precision_digits=DIGITS,
                )
    return None
