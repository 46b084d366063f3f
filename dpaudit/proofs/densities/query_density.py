"""Pure epsilon-DP of a declared density under the query-distance relation.

Preconditions
    A :class:`~dpaudit.mechanisms.density.SymbolicDensity` p(y | q) with real or integer outputs
    y = (y_1..y_k), inputs q = (q_1..q_k), and neighbours ``||q - q'||_norm <= Delta``; for k > 1 the
    density is a product over coordinates (y_i depends on q_i only).
Claim
    For all parameters satisfying the assumptions, all q ~ q' and all y:
    L(y) = ln p(y | q) - ln p(y | q') <= epsilon  (Dwork & Roth 2014, Def. 2.4 with delta = 0, for
    densities; the pointwise bound implies the bound on every event by integration).
Proof
    Write q' = q + Delta w with ``||w|| <= 1`` and y = q + z.  Expand the logarithm
    (``expand_log(force=True)``), split each coordinate's line at the breakpoints of its Abs /
    Piecewise terms and take the largest of the candidate values (:mod:`dpaudit.proofs.inequalities.supremum`),
    separately for w_i = s and w_i = -s with s in (0, 1].  Scalar case: each candidate c(s) must satisfy
    c(s) <= epsilon on (0, 1]; checked at s = 1 and, with s = 1 / (1 + v), v > 0, for the open part.
    Product case: each coordinate's supremum must be alpha_i |w_i|; then sup_w sum_i alpha_i |w_i|
    over the unit ball is the dual norm of alpha (l1 -> max, linf -> sum, l2 -> Euclidean; Hoelder).
    Integer outputs: the supremum over the real line bounds the one over the integers.
"""

from __future__ import annotations

from typing import Any

from ..budget import checkpoint
from ..inequalities.floor_terms import floor_candidates
from ..inequalities.signs import DIGITS, SignContext, exceeds, tidy
from ..inequalities.supremum import Candidate, NotDecidable, candidates_on_line, nonnegative_on_unit_interval
from ..result import Counterexample, Outcome, Step, Verdict
from .verify import interval_mass, log_ratio_at

__all__ = ["log_density", "prove_query_density"]

METHOD = "density ratio (case split)"


def log_density(expr: Any) -> Any:
    """ln p with products, powers and exponentials expanded (Piecewise branch by branch)."""
    import sympy

    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(log_density(branch), condition) for branch, condition in expr.args])
    return sympy.expand_log(sympy.log(expr), force=True)


def _split_by_coordinate(expression: Any, shifts: tuple) -> tuple[list[Any], Any]:
    import sympy

    parts = [sympy.Integer(0)] * len(shifts)
    constant = sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(expression)):
        present = [i for i, z in enumerate(shifts) if term.has(z)]
        if len(present) > 1:
            raise NotDecidable("the log-ratio couples output coordinates (not a product density)")
        if present:
            parts[present[0]] += term
        else:
            constant += term
    return parts, constant


def _largest(values: list[Any], context: SignContext) -> Any:
    """The value that is >= every other one for all parameters (NotDecidable if none is)."""

    unique: list[Any] = []
    for value in values:
        if all(tidy(value - u) != 0 for u in unique):
            unique.append(value)
    for candidate in unique:
        if all(context.nonnegative(candidate - other) for other in unique if other is not candidate):
            return candidate
    raise NotDecidable(f"cannot decide which of {unique} is largest")


def prove_query_density(density: Any, epsilon: Any, context: SignContext) -> Outcome:
    """Decide pure epsilon-DP of ``density`` (see the module docstring)."""
    import sympy

    outputs, inputs = density.outputs, density.inputs
    if len(outputs) != len(inputs):
        reason = (
            f"{len(outputs)} output coordinates but {len(inputs)} inputs: only per-coordinate products "
            "are proved on continuous or integer outputs"
        )
        return _search_or_unknown(density, epsilon, context, [], reason)
    k = len(outputs)
    delta_q = density.sensitivity
    ws = tuple(sympy.Symbol(f"w{i + 1}" if k > 1 else "w", real=True) for i in range(k))
    zs = tuple(sympy.Symbol(f"z{i + 1}" if k > 1 else "z", real=True) for i in range(k))
    s = sympy.Symbol("s", positive=True)
    moved = {q: q + delta_q * w for q, w in zip(inputs, ws)}
    ld = log_density(density.expr)
    ratio = ld - ld.xreplace(moved)
    steps = [
        Step(
            "log ratio",
            sympy.Eq(sympy.Symbol("L"), ratio),
            f"L(y) = ln p(y | q) - ln p(y | q'), neighbours written q' = q + {delta_q} w with ||w||_{density.norm[1:]} <= 1",
        )
    ]
    shifted = sympy.expand(ratio.xreplace({y: q + z for y, q, z in zip(outputs, inputs, zs)}))
    shifted = tidy(shifted) if k == 1 else shifted
    steps.append(Step("translate", shifted, "substitute y = q + z"))
    try:
        parts, constant = _split_by_coordinate(shifted, zs)
        if k > 1 and tidy(constant) != 0:
            raise NotDecidable(f"the normalising constants do not cancel: {constant} remains")
        if k == 1:
            parts[0] = parts[0] + constant
        per_coordinate: list[list[tuple[int, Candidate]]] = []
        for i in range(k):
            found: list[tuple[int, Candidate]] = []
            for sign in (1, -1):
                checkpoint(f"density ratio: case split of coordinate {i + 1}, w = {'+' if sign > 0 else '-'}s")
                line = tidy(parts[i].subs(ws[i], sign * s))
                if line.has(*inputs):
                    raise NotDecidable(f"the log-ratio still depends on the query value after y = q + z: {line}")
                if line.has(sympy.floor, sympy.ceiling):
                    cands = floor_candidates(line, zs[i], s, context)
                else:
                    cands = candidates_on_line(line, zs[i], context)
                found += [(sign, c) for c in cands]
                steps.append(
                    Step(
                        "case split",
                        sympy.Tuple(*[c.value for c in cands]),
                        f"w{'_' + str(i + 1) if k > 1 else ''} = {'+' if sign > 0 else '-'}s, s in (0, 1]: "
                        f"candidates for sup_z L at breakpoints {[str(c.location) for c in cands if c.kind == 'point']}, "
                        "one-sided limits and limits at -oo, +oo",
                    )
                )
            per_coordinate.append(found)
    except NotDecidable as exc:
        return _search_or_unknown(density, epsilon, context, steps, f"undecided step: {exc}")
    infinite = [c for cs in per_coordinate for _, c in cs if c.value in (sympy.oo, sympy.zoo) or c.value.has(sympy.oo)]
    if infinite:
        return _search_or_unknown(density, epsilon, context, steps, "the log-ratio is unbounded in y (a limit is +oo)")
    if k == 1:
        return _finish_scalar(density, epsilon, context, steps, per_coordinate[0], s)
    return _finish_product(density, epsilon, context, steps, per_coordinate, s)


def _finish_scalar(density, epsilon, context, steps, found, s) -> Outcome:
    import sympy

    values = [c.value for _, c in found if c.value is not sympy.S.NegativeInfinity]
    for value in values:
        decision = nonnegative_on_unit_interval(epsilon - value, s, context)
        if decision is not True:
            return _search_or_unknown(density, epsilon, context, steps, f"cannot show {value} <= {epsilon} for s in (0, 1]")
    steps.append(Step("supremum", sympy.Max(*values) if len(values) > 1 else values[0], "sup_z L(z) is the largest candidate"))
    steps.append(
        Step(
            "final inequality",
            sympy.Le(sympy.Max(*values) if len(values) > 1 else values[0], epsilon),
            "every candidate is <= epsilon for all s in (0, 1] and all parameters (checked at s = 1 and "
            "with s = 1/(1+v), v > 0, after re-parametrising exp and bounded parameters)",
        )
    )
    return Outcome(Verdict.PROVED, f"sup_y L(y) <= {epsilon} for all neighbours", METHOD, steps)


def _finish_product(density, epsilon, context, steps, per_coordinate, s) -> Outcome:
    import sympy

    try:
        maxima = []
        for found in per_coordinate:
            slopes = []
            for _, c in found:
                if c.value is sympy.S.NegativeInfinity:
                    continue
                slope = tidy(c.value.subs(s, 1))
                if tidy(c.value - slope * s) != 0:
                    raise NotDecidable(f"coordinate supremum {c.value} is not proportional to |w_i|")
                slopes.append(slope)
            maxima.append(_largest(slopes, context))
        if density.norm == "l1":
            bound = _largest(maxima, context)
            rule = "l1 ball: sum_i alpha_i |w_i| <= max_i alpha_i (Hoelder, dual norm linf)"
        elif density.norm == "linf":
            bound = sympy.Add(*maxima)
            rule = "linf ball: sum_i alpha_i |w_i| <= sum_i alpha_i (Hoelder, dual norm l1)"
        else:
            bound = sympy.sqrt(sympy.Add(*[m**2 for m in maxima]))
            rule = "l2 ball: sum_i alpha_i |w_i| <= ||alpha||_2 (Cauchy-Schwarz)"
    except NotDecidable as exc:
        return _search_or_unknown(density, epsilon, context, steps, f"undecided step: {exc}")
    steps.append(Step("supremum", tidy(bound), f"per coordinate sup_z L_i = alpha_i |w_i| with alpha = {maxima}; {rule}"))
    decision = context.nonnegative(tidy(epsilon - bound))
    if decision is not True:
        return _search_or_unknown(density, epsilon, context, steps, f"cannot show {bound} <= {epsilon}")
    steps.append(Step("final inequality", sympy.Le(tidy(bound), epsilon), "decided for all parameters"))
    return Outcome(Verdict.PROVED, f"sup_y L(y) <= {epsilon} for all neighbours", METHOD, steps)


# -- counterexamples ---------------------------------------------------------------------------------


def _moves(k: int, norm: str) -> list[tuple]:
    import itertools

    import sympy

    moves: list[tuple] = []
    for fraction in (sympy.Integer(1), sympy.Rational(1, 2), sympy.Rational(1, 10)):
        for i in range(k):
            for sign in (1, -1):
                moves.append(tuple(sign * fraction if j == i else 0 for j in range(k)))
        if k > 1 and norm != "l1":
            scale = 1 if norm == "linf" else 1 / sympy.sqrt(k)
            for signs in itertools.islice(itertools.product((1, -1), repeat=k), 64):
                moves.append(tuple(fraction * scale * g for g in signs))
    return moves


def _trial_offsets(scale: Any) -> list[Any]:
    import sympy

    base = [sympy.Integer(0), sympy.Rational(1, 2), sympy.Integer(1), sympy.Integer(2)]
    base += [sympy.Integer(10) ** j for j in range(1, 5)]
    offsets = sorted({sign * b * scale for b in base for sign in (1, -1)}, key=lambda x: abs(float(x)))
    return offsets


def _search_or_unknown(density, epsilon, context: SignContext, steps, reason: str) -> Outcome:
    """Look for a verified counterexample; otherwise the verdict is unknown with ``reason``."""
    witness = find_counterexample(density, epsilon, context)
    if witness is not None:
        return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness)
    return Outcome(Verdict.UNKNOWN, reason + "; no counterexample found at the parameter values tried", METHOD, steps)


def _within(a: tuple, b: tuple, bound: Any, norm: str) -> bool:
    import sympy

    gaps = [abs(sympy.sympify(x) - y) for x, y in zip(a, b)]
    size = sympy.Add(*gaps) if norm == "l1" else (sympy.Max(*gaps) if norm == "linf" else sympy.sqrt(sum(g**2 for g in gaps)))
    return bool(size <= bound)


def _admissible(values: tuple, inputs: tuple) -> bool:
    """Do the input values respect their symbols' assumptions (integer, nonnegative, positive)?"""
    import sympy

    for value, symbol in zip(values, inputs):
        value = sympy.sympify(value)
        if (symbol.is_integer and not value.is_integer) or (symbol.is_nonnegative and value.is_negative):
            return False
        if symbol.is_positive and not value.is_positive:
            return False
    return True


def _candidate_pairs(density, delta_q, point_index: int, context: SignContext) -> list[tuple[tuple, tuple, tuple]]:
    """(a, b, moved coordinates): the valid hints (at the instance), then 0 vs Delta * move, both ways."""
    import sympy

    k = len(density.inputs)
    pairs = []
    if point_index == 0:
        for a, b in context.hints:
            if _within(a, b, delta_q, density.norm):
                moved = tuple(i for i in range(k) if a[i] != b[i])
                pairs += [(a, b, moved), (b, a, moved)]
    zero = tuple(sympy.Integer(0) for _ in range(k))
    for move in _moves(k, density.norm):
        b = tuple(delta_q * m for m in move)
        moved = tuple(i for i in range(k) if move[i] != 0)
        pairs += [(zero, b, moved), (b, zero, moved)]
    return [(a, b, m) for a, b, m in pairs if _admissible(a, density.inputs) and _admissible(b, density.inputs)]


def _fixed_values(density: Any, centre: Any) -> list[Any]:
    """Values tried for an output coordinate whose input does not move: its input and the isolated
    points of the output domain (a sentinel such as -1)."""
    import sympy

    domain = density.output_domain
    parts = domain.args if isinstance(domain, sympy.Union) else (domain,)
    extra = [v for part in parts if isinstance(part, sympy.FiniteSet) and len(part) <= 4 for v in part]
    return list(dict.fromkeys([centre, *extra]))


def find_counterexample(density, epsilon, context: SignContext, max_points: int = 12) -> Counterexample | None:
    """Search outputs, neighbour pairs and parameter values for ln p(y|a) - ln p(y|b) > epsilon (mpmath).

    Outputs are tried at offsets from the first input: per moved coordinate for product densities,
    on the one output line for a density of one output given several inputs.
    """
    import itertools

    import sympy

    product = len(density.outputs) == len(density.inputs)
    for index, point in enumerate(context.parameter_points()[:max_points]):
        eps_value = _number(epsilon.subs(point))
        delta_q = density.sensitivity.subs(point)
        if eps_value is None or not delta_q.is_number:
            continue
        offsets = _trial_offsets(delta_q)
        if density.discrete:
            offsets = sorted({sympy.floor(o) for o in offsets} | {sympy.ceiling(o) for o in offsets}, key=lambda x: abs(float(x)))
        for a, b, moved in _candidate_pairs(density, delta_q, index, context):
            checkpoint("density ratio: counterexample search")
            if product:
                grids = [[a[i] + o for o in offsets] if i in moved else _fixed_values(density, a[i]) for i in range(len(a))]
            else:
                grids = [[a[0] + o for o in offsets]]
            for y in itertools.islice(itertools.product(*grids), 4096):
                value = log_ratio_at(density.expr, density.outputs, density.inputs, y, a, b, point)
                if value is None or not exceeds(value, eps_value):
                    continue
                return _witness(density, epsilon, point, a, b, y, value, eps_value)
    return None


def _number(expr: Any) -> Any:
    import mpmath

    value = expr.evalf(DIGITS)
    if not value.is_number or not value.is_real:
        return None
    with mpmath.workdps(DIGITS):
        return mpmath.mpf(str(value))


def _witness(density, epsilon, point, a, b, y, value, eps_value) -> Counterexample:
    import sympy

    output_set, mass = None, None
    if len(density.outputs) == 1 and len(density.inputs) == 1 and not density.discrete:
        output_set, mass = _violation_set(density, epsilon, point, a, b)
    parameters = {str(p): float(v) for p, v in point.items()}
    numbers = lambda t: tuple(float(v) for v in t)  # noqa: E731
    return Counterexample(
        description=(
            f"ln p(y | a) - ln p(y | b) = {float(value):.6g} > epsilon = {float(eps_value):.6g} "
            f"at y = {numbers(y) if len(y) > 1 else float(y[0]):g}"
            if len(y) == 1
            else f"ln p(y | a) - ln p(y | b) = {float(value):.6g} > epsilon = {float(eps_value):.6g} at y = {numbers(y)}"
        ),
        inputs=(numbers(a) if len(a) > 1 else float(a[0]), numbers(b) if len(b) > 1 else float(b[0])),
        output=numbers(y) if len(y) > 1 else float(y[0]),
        log_ratio=float(value),
        bound=float(eps_value),
        output_set=output_set,
        mass=mass,
        parameters=parameters,
        precision_digits=DIGITS,
        extra={"epsilon_claimed": str(sympy.sympify(epsilon))},
    )


def _violation_set(density, epsilon, point, a, b) -> tuple[str | None, float | None]:
    """S = {y : L(y) > epsilon} at the witness values, and P[Y in S | a] (None if sympy cannot solve)."""
    import sympy

    y, q = density.outputs[0], density.inputs[0]
    ld = log_density(density.expr.subs(point))
    ratio = tidy(ld.subs(q, a[0]) - ld.subs(q, b[0]))
    try:
        region = sympy.solveset(ratio - epsilon.subs(point) > 0, y, sympy.S.Reals)
    except (NotImplementedError, TypeError, ValueError):
        return None, None
    intervals = [region] if isinstance(region, sympy.Interval) else list(getattr(region, "args", ()))
    if not intervals or not all(isinstance(i, sympy.Interval) for i in intervals):
        return None, None
    mass = 0.0
    for interval in intervals:
        low = None if interval.start == -sympy.oo else interval.start
        high = None if interval.end == sympy.oo else interval.end
        mass += float(interval_mass(density.expr.subs(point), y, density.inputs, a, {}, low, high))
    text = " or ".join(_interval_text(i) for i in intervals)
    return text, mass


def _interval_text(interval: Any) -> str:
    import sympy

    start, end = interval.start, interval.end
    if start == -sympy.oo:
        return f"y {'<' if interval.right_open else '<='} {float(end):.10g}"
    if end == sympy.oo:
        return f"y {'>' if interval.left_open else '>='} {float(start):.10g}"
    return f"{float(start):.10g} < y < {float(end):.10g}"
