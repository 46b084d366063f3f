"""Probabilistic DP of the thresholded histogram: one key's factor of a product pmf, its bad-event
mass in closed form, and mutants that must not be proved."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

from dpaudit.claims import ProbabilisticDP
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.catalogue.thresholded_histogram import _density, thresholded_histogram_delta
from dpaudit.neighbours import AddRemove
from dpaudit.proofs import Verdict, prove
from dpaudit.proofs.densities.product_probabilistic import factor_structure
from dpaudit.proofs.inequalities.integer_segments import holds_on_segment, segments
from dpaudit.proofs.inequalities.signs import SignContext
from tests.proofs.density_builders import _never

DELTA_AT_INSTANCE = thresholded_histogram_delta(1.0, 5)  # e^-4 / (1 + e^-1) = 0.0133898...


def _mechanism(claim, builder=lambda: _density(3, Fraction(1), 5)):
    return Mechanism(name="mutant", claim=claim, neighbours=AddRemove(), sampler=_never, density=builder)


def _prove_restated(claim, builder=lambda: _density(3, Fraction(1), 5)):
    """Prove ``claim`` from the density: a claim that differs from the density's own is passed as a restatement
    (as the mechanism's own claim it would contradict the density and be refused)."""
    return prove(_mechanism(claim, builder), claim=claim)


def test_the_catalogue_claim_is_proved_with_the_tail_mass_equal_to_delta():
    result = prove("thresholded-histogram")
    assert result.verdict is Verdict.PROVED and result.scope == "instance"
    masses = {sympy.sympify(step.expression) for step in result.certificate.steps if step.name == "case split"}
    # the only bad outputs: key released under c = 1 and impossible under c = 0, mass a^(tau-1)/(1+a)
    assert sympy.Integer(0) in masses and len(masses) == 2
    tail = next(m for m in masses if m != 0)
    assert float(tail) == pytest.approx(DELTA_AT_INSTANCE, rel=1e-12)


def test_a_delta_just_above_the_tail_mass_is_proved():
    assert _prove_restated(ProbabilisticDP(1.0, DELTA_AT_INSTANCE * 1.001)).verdict is Verdict.PROVED


@pytest.mark.parametrize(
    "name, claim",
    [
        ("delta too small", ProbabilisticDP(1.0, DELTA_AT_INSTANCE / 2)),
        ("delta slightly too small", ProbabilisticDP(1.0, DELTA_AT_INSTANCE * 0.99)),
        ("epsilon too small", ProbabilisticDP(0.5, DELTA_AT_INSTANCE)),
    ],
)
def test_a_wrong_claim_is_refuted_with_a_verified_mass(name, claim):
    result = _prove_restated(claim)
    assert result.verdict is Verdict.REFUTED, result.reason
    witness = result.counterexample
    assert witness.quantity == "bad-event mass" and witness.log_ratio > witness.bound
    a, b = witness.inputs
    assert sum(abs(x - y) for x, y in zip(a, b)) == 1 and min(a + b) >= 0  # add/remove: one count moves by one


def _half_scale_noise():
    """The declared pmf with the noise rate doubled (a = e^-2eps) but delta left at e^-eps(tau-1)/(1+e^-eps)."""
    density = _density(2, Fraction(1), 5)
    eps = density.epsilon
    return sympy.sympify(density.expr).xreplace({sympy.exp(-eps): sympy.exp(-2 * eps)}), density


def test_a_density_whose_released_values_leak_more_is_not_proved():
    expr, density = _half_scale_noise()
    import dataclasses

    mutant = dataclasses.replace(density, expr=expr)
    result = prove(_mechanism(ProbabilisticDP(1.0, DELTA_AT_INSTANCE), builder=lambda: mutant))
    assert result.verdict is Verdict.REFUTED, result.reason  # released values now have loss 2 epsilon


def test_the_factor_structure_needs_one_key_per_factor():
    density = _density(3, Fraction(1), 5)
    assert len(factor_structure(density)) == 3
    import dataclasses

    coupled = dataclasses.replace(density, expr=density.expr * sympy.exp(-(density.inputs[0] - density.inputs[1]) ** 2))
    assert factor_structure(coupled) is None


C = sympy.Symbol("c", integer=True, nonnegative=True)
T = sympy.Symbol("tau", integer=True, positive=True)


def test_segments_cut_where_a_condition_changes():
    context = SignContext((T,), (T >= 2,))
    expr = sympy.Piecewise((1, sympy.Eq(C, 0)), (2, C <= T - 1), (3, True))
    assert segments([expr], C, sympy.Integer(0), sympy.oo, context) == [(0, 0), (1, T - 1), (T, sympy.oo)]


def test_a_sign_on_a_segment_uses_the_ends_of_an_affine_exponential():
    context = SignContext(())
    a = sympy.exp(-C)
    assert holds_on_segment(1 - a, C, (sympy.Integer(1), sympy.oo), context, strict=True)
    assert not holds_on_segment(1 - a, C, (sympy.Integer(0), sympy.oo), context, strict=True)  # zero at c = 0
    assert not holds_on_segment(a - sympy.Rational(1, 2), C, (sympy.Integer(0), sympy.oo), context)  # tends to -1/2
    assert holds_on_segment(a - math.exp(-3) + sympy.Rational(1, 10**6), C, (sympy.Integer(0), sympy.Integer(3)), context)
