"""Soundness: no wrong density is ever proved, and proved results survive random numeric checks."""

from __future__ import annotations

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.claims import ApproxDP, ProbabilisticDP, PureDP
from dpaudit.errors import DeclarationMismatchWarning
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbours import Local
from dpaudit.proofs import Verdict, prove
from tests.proofs import density_builders as D

E = sympy.exp
HALF = sympy.Rational(1, 2)

# Each entry: (id, density builder, claim override or None).  All are wrong for some parameter values
# allowed by the declaration (most at the instance): none may come back "proved".
MUTANTS = [
    ("laplace-scale-epsilon", lambda: D.laplace(scale=lambda e, d: e, instance={sympy.Symbol("epsilon", positive=True): sympy.Rational(1, 10), sympy.Symbol("Delta", positive=True): 1}), None),
    ("laplace-half-scale", lambda: D.laplace(scale=lambda e, d: d / (2 * e)), None),
    ("laplace-90pct-scale", lambda: D.laplace(scale=lambda e, d: 9 * d / (10 * e)), None),
    ("laplace-claim-half", lambda: D.laplace(claim=lambda e, d: e / 2), None),
    ("laplace-double-sensitivity", lambda: D.laplace(sensitivity=lambda d: 2 * d), None),
    ("laplace-unit-scale-symbolic-sensitivity", lambda: D.laplace(scale=lambda e, d: 1 / e), None),
    ("laplace-sign-flip-exponent", lambda: D.laplace(scale=lambda e, d: -d / e, constant=lambda y, q, b: -1 / (2 * b)), None),
    ("laplace-dropped-half", lambda: D.laplace(constant=lambda y, q, b: 1 / b), None),
    ("laplace-q-dependent-constant", lambda: D.laplace(constant=lambda y, q, b: E(q / b) / (2 * b)), None),
    ("laplace-scale-squared-epsilon", lambda: D.laplace(scale=lambda e, d: d / e**2), None),
    ("gaussian-claimed-pure", lambda: D.gaussian(claim_delta=False), None),
    ("gaussian-wide-claimed-pure", lambda: D.gaussian(sigma=lambda e, dl, d: 10 * d / e, claim_delta=False), None),
    ("gaussian-quarter-sigma", lambda: D.gaussian(sigma=lambda e, dl, d: d * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / dl)) / (4 * e)), None),
    ("gaussian-half-sigma", lambda: D.gaussian(sigma=lambda e, dl, d: d * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / dl)) / (2 * e)), None),
    ("geometric-double-rate", lambda: D.geometric(rate=lambda e: 2 * e), None),
    ("geometric-sensitivity-two", lambda: D.geometric(sensitivity=2), None),
    ("geometric-claim-half", lambda: D.geometric(claim=lambda e: e / 2), None),
    ("rr-miscalibrated", lambda: D.randomized_response(truth=lambda e: E(2 * e) / (1 + E(2 * e))), None),
    ("rr-claim-half", lambda: D.randomized_response(claim=lambda e: e / 2), None),
    ("k-rr-wrong-denominator", lambda: D.randomized_response(k=4, truth=lambda e: E(e) / (E(e) + 1)), None),
    ("k-rr-claim-half", lambda: D.randomized_response(k=4, claim=lambda e: e / 2), None),
    ("k-rr-uncalibrated-k", lambda: D.randomized_response(k=3, truth=lambda e: E(2 * e) / (E(2 * e) + 2)), None),
    ("exponential-no-factor-2", lambda: D.exponential(3, factor=1), None),
    ("exponential-no-factor-2-k4", lambda: D.exponential(4, factor=1), None),
    ("exponential-claim-half", lambda: D.exponential(3, claim=lambda e: e / 2), None),
    ("exponential-factor-1.5", lambda: D.exponential(3, factor=sympy.Rational(3, 2)), None),
    ("rappor-flip-without-half", lambda: D.rappor(4, flip=lambda e: 2 / (1 + E(e))), None),
    ("rappor-claim-half", lambda: D.rappor(4, claim=lambda e: e / 2), None),
    ("vector-l1-noise-under-linf", lambda: D.laplace_vector(3, "linf"), None),
    ("vector-l1-noise-under-l2", lambda: D.laplace_vector(3, "l2"), None),
    ("vector-half-scale", lambda: D.laplace_vector(2, "l1", scale=lambda e, d: d / (2 * e)), None),
    ("staircase-claim-half", lambda: D.staircase(claim=lambda e: e / 2), None),
    ("staircase-double-rate", lambda: D.staircase(rate=lambda e: 2 * e), None),
    ("staircase-half-width-steps", lambda: D.staircase(width=sympy.Rational(1, 2)), None),
    ("meiser-claimed-pure", D.meiser, PureDP(1.0)),
    ("meiser-probabilistic-half-delta", D.meiser, ProbabilisticDP(1.0, 0.005)),
    ("meiser-approximate-half-delta", D.meiser, ApproxDP(1.0, 0.005)),
]


def _mechanism(builder, claim):
    if claim is None:
        return D.as_mechanism("mutant", builder)
    return Mechanism(name="mutant", claim=claim, neighbours=Local(), sampler=D._never, density=builder)


@pytest.mark.parametrize(
    "name, builder, claim",
    [pytest.param(*m, marks=pytest.mark.slow) if m[0].startswith("rappor") else m for m in MUTANTS],
    ids=[m[0] for m in MUTANTS],
)
def test_no_mutant_is_proved(name, builder, claim):
    mechanism = _mechanism(builder, claim)
    if name in WIDER_DENSITY_NEIGHBOURS:  # the density's neighbours are wider than the mechanism's: said, then used
        with pytest.warns(DeclarationMismatchWarning, match="the prover used the density's 2"):
            result = prove(mechanism, time_budget=LOADED_BUDGET)
    else:  # a claim override is a restatement, passed as such (as the mechanism's own it contradicts the density)
        result = prove(mechanism, claim=claim, time_budget=LOADED_BUDGET)
    assert result.verdict is not Verdict.PROVED, result.reason
    # Non-normalised "densities" are refused as unknown; every other mutant is refuted with a witness.
    if name in NOT_NORMALISED:
        assert result.verdict is Verdict.UNKNOWN and "not a probability distribution" in result.reason
    elif name in MAY_BE_UNKNOWN:
        assert result.verdict in (Verdict.UNKNOWN, Verdict.REFUTED)
    else:
        assert result.verdict is Verdict.REFUTED, result.reason
        witness = result.counterexample
        assert witness.log_ratio > witness.bound


# The refutations take 1-4 s alone; a loaded CI machine (two xdist workers beside other audits) has
# been seen to need over 10 s, the default budget.  The budget is wall time, not a verdict: a generous
# one keeps this test about soundness rather than speed (benchmarks/prover_speed.py measures speed).
LOADED_BUDGET = 120.0
NOT_NORMALISED = {"laplace-sign-flip-exponent", "laplace-dropped-half"}
# The density's sensitivity (2) exceeds the mechanism's QueryDistance(1): the prover uses the density's.
WIDER_DENSITY_NEIGHBOURS = {"laplace-double-sensitivity", "geometric-sensitivity-two"}
# Wrong only away from the instance (Delta > 1) or normalised at q = 0 only: the parameter grid may
# miss the violation, and then the honest answer is "unknown" (never "proved").
MAY_BE_UNKNOWN = {"laplace-unit-scale-symbolic-sensitivity", "laplace-q-dependent-constant"}


def test_mutation_suite_is_large():
    assert len(MUTANTS) >= 30


def _log_ratio(density, y, a, b, values):
    expr = density.expr.subs(values)
    pa = expr.subs(dict(zip(density.inputs, a))).subs(dict(zip(density.outputs, y)))
    pb = expr.subs(dict(zip(density.inputs, b))).subs(dict(zip(density.outputs, y)))
    with mpmath.workdps(40):
        return mpmath.log(mpmath.mpf(str(sympy.N(pa, 40)))) - mpmath.log(mpmath.mpf(str(sympy.N(pb, 40))))


PROVED = {
    "laplace": D.laplace,
    "geometric": D.geometric,
    "vector-l1": lambda: D.laplace_vector(2, "l1"),
    "staircase": D.staircase,
}


@pytest.mark.parametrize("name", sorted(PROVED))
def test_proved_builders_are_proved(name):
    assert prove(D.as_mechanism(name, PROVED[name])).verdict is Verdict.PROVED


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PROVED)),
    eps=st.floats(0.01, 5),
    sens=st.floats(0.1, 5),
    q=st.floats(-20, 20),
    w=st.floats(-1, 1),
    u=st.floats(-1, 1),
    y=st.floats(-50, 50),
)
def test_proved_results_hold_at_random_values(name, eps, sens, q, w, u, y):
    density = PROVED[name]()
    symbols = {p.name: p for p in density.parameters}
    values = {symbols["epsilon"]: sympy.nsimplify(eps)}
    if "Delta" in symbols:
        values[symbols["Delta"]] = sympy.nsimplify(sens)
    delta_q = float(density.sensitivity.subs(values))
    k = len(density.inputs)
    if k == 1:
        move = (w,)
    else:  # a point of the l1 unit ball
        move = (w / 2, u / 2)
    if density.discrete:
        a, ys = (round(q),), (round(y),)
        b = (a[0] + round(move[0]) * delta_q,)
    else:
        a = tuple(q for _ in range(k))
        b = tuple(q + delta_q * m for m in move)
        ys = tuple(y for _ in range(k))
    value = _log_ratio(density, ys, a, b, values)
    assert value <= float(density.epsilon.subs(values)) * (1 + 1e-12) + 1e-12
