"""Search for a post-processing map that breaks probabilistic DP (Meiser 2018, IACR ePrint 2018/277).

Preconditions
    A discrete mechanism (finite outputs 0..n-1, finite input domain of pairwise neighbours) and a
    probabilistic (epsilon, delta) claim.
Claim
    Either some deterministic map T on the outputs makes T o M violate probabilistic
    (epsilon, delta)-DP -- reported with a symbolic proof that it does so for every parameter value
    satisfying the assumptions -- or none of the maps tried does.  No map can break approximate DP
    (post-processing theorem, Dwork & Roth 2014, Prop. 2.1); the search counts the maps that would,
    as a check (it must be 0).
Proof
    Enumerate every map T: {0..n-1} -> {0..n-1} when n^n <= 5000, else the 2^(n-1) bipartitions (a
    violating map can always be taken to merge the bad set: sending the preimage of T's bad set to one
    output keeps that output's loss above epsilon and its mass above delta).  Push both distributions
    forward with exact ``fractions.Fraction`` arithmetic at rational parameter points (e^epsilon and
    delta rational: about 1000x faster than sympy), and count the maps whose bad-event mass exceeds
    delta (probabilistic DP broken) or whose hockey-stick divergence exceeds delta (approximate DP
    broken).  The first breaking map found is then pushed forward symbolically and refuted for all
    parameters by :mod:`.probabilistic`.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..budget import checkpoint
from ..inequalities.signs import SignContext
from ..result import Outcome
from .outputs import finite_outputs
from .probabilistic import prove_finite_probabilistic

__all__ = ["PostProcessingSearch", "search_postprocessing"]

# Rational points (e^epsilon, delta) at which maps are enumerated exactly (a moderate and a tiny delta).
RATIONAL_POINTS = ((Fraction(2), Fraction(1, 100)), (Fraction(3), Fraction(1, 10**6)))


@dataclass(frozen=True)
class PostProcessingSearch:
    """Counts of the exhaustive search and the witness map (None when no map breaks the claim)."""

    maps_checked: int
    breaking_probabilistic: int
    breaking_approximate: int
    witness_map: tuple[int, ...] | None
    witness_outcome: Outcome | None
    points: tuple[tuple[str, str], ...]


def _maps(n: int) -> list[tuple[int, ...]]:
    if n**n <= 5000:
        return list(itertools.product(range(n), repeat=n))
    maps = []
    for mask in range(2 ** (n - 1)):
        maps.append(tuple(0 if (mask >> i) & 1 or i == n - 1 else 1 for i in range(n)))
    return maps


def _fraction_table(density: Any, exp_eps: Fraction, delta: Fraction, epsilon: Any, delta_expr: Any, extra: dict) -> dict | None:
    import sympy

    eps_symbols = list(epsilon.free_symbols)
    substitution = dict(extra)
    if len(eps_symbols) == 1 and sympy.simplify(epsilon - eps_symbols[0]) == 0:
        substitution[eps_symbols[0]] = sympy.log(sympy.Rational(exp_eps.numerator, exp_eps.denominator))
    if delta_expr.free_symbols:
        (d,) = delta_expr.free_symbols
        substitution[d] = sympy.Rational(delta.numerator, delta.denominator)
    table = {}
    for x in density.input_domain:
        row = []
        for y in finite_outputs(density):
            value = sympy.nsimplify(density.expr.subs(dict(zip(density.outputs, y))).subs(dict(zip(density.inputs, x))).subs(substitution))
            if not value.is_Rational:
                return None
            row.append(Fraction(int(value.p), int(value.q)))
        table[tuple(x)] = row
    return table


def _breaks(table: dict, mapping: tuple[int, ...], exp_eps: Fraction, delta: Fraction) -> tuple[bool, bool]:
    pushed = {}
    for x, row in table.items():
        out = [Fraction(0)] * len(mapping)
        for y, p in enumerate(row):
            out[mapping[y]] += p
        pushed[x] = out
    probabilistic = approximate = False
    for a, b in itertools.permutations(pushed, 2):
        pa, pb = pushed[a], pushed[b]
        bad = sum((p for p, q in zip(pa, pb) if p > exp_eps * q), Fraction(0))
        hockey = sum((p - exp_eps * q for p, q in zip(pa, pb) if p > exp_eps * q), Fraction(0))
        probabilistic |= bad > delta
        approximate |= hockey > delta
    return probabilistic, approximate


def _pushforward(density: Any, mapping: tuple[int, ...]) -> Any:
    import sympy

    y = density.outputs[0]
    ys = [v[0] for v in finite_outputs(density)]
    images = sorted(set(mapping))
    branches = []
    for image in images:
        preimage = [ys[i] for i, m in enumerate(mapping) if m == image]
        branches.append((sympy.Add(*[density.expr.subs(y, v) for v in preimage]), sympy.Eq(y, ys[image])))
    branches.append((sympy.Integer(0), True))
    return dataclasses.replace(density, expr=sympy.Piecewise(*branches), output_domain=sympy.FiniteSet(*[ys[i] for i in images]))


def search_postprocessing(density: Any, epsilon: Any, delta: Any, context: SignContext) -> PostProcessingSearch:
    """Enumerate post-processing maps exactly and prove the first breaking one symbolically."""
    if len(density.outputs) != 1:
        raise ValueError("post-processing search needs one output coordinate")
    n = len(finite_outputs(density))
    maps = _maps(n)
    extra = {p: v for p, v in context.parameter_points()[0].items() if p not in epsilon.free_symbols | delta.free_symbols} if context.instance else {}
    checked = broken_p = broken_a = 0
    witness: tuple[int, ...] | None = None
    used = []
    for exp_eps, dlt in RATIONAL_POINTS:
        table = _fraction_table(density, exp_eps, dlt, epsilon, delta, extra)
        if table is None:
            continue
        used.append((str(exp_eps), str(dlt)))
        checkpoint(f"post-processing search at e^epsilon={exp_eps}, delta={dlt}")
        for mapping in maps:
            checked += 1
            p_broken, a_broken = _breaks(table, mapping, exp_eps, dlt)
            broken_p += p_broken
            broken_a += a_broken
            # Prefer the map that merges the fewest outputs (the simplest witness).
            if p_broken and len(set(mapping)) < n and (witness is None or len(set(mapping)) > len(set(witness))):
                witness = mapping
    outcome = None
    if witness is not None:
        outcome = prove_finite_probabilistic(_pushforward(density, witness), epsilon, delta, context)
    return PostProcessingSearch(checked, broken_p, broken_a, witness, outcome, tuple(used))
