"""Approximate and probabilistic DP, Meiser's post-processing attack, and the theorem rules."""

from __future__ import annotations

import math

import pytest
import sympy

from dpaudit.claims import ApproxDP, ProbabilisticDP, PureDP
from dpaudit.proofs import Composition, TheoremNotApplicable, Verdict, prove
from dpaudit.proofs.densities.hockey_stick import hockey_stick_delta
from dpaudit.proofs.densities.postprocessing import search_postprocessing
from dpaudit.proofs.inequalities.signs import SignContext
from dpaudit.proofs.theorems import rules
from tests.proofs import density_builders as D


def test_classic_gaussian_is_proved_for_all_parameters_with_epsilon_below_one():
    result = prove(D.as_mechanism("g", D.gaussian))
    assert result.verdict is Verdict.PROVED and result.scope == "all parameters"
    assert result.details["delta_bw"] < 1e-5


def test_gaussian_with_quarter_sigma_is_refuted_by_balle_wang_delta():
    builder = lambda: D.gaussian(sigma=lambda e, dl, d: d * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / dl)) / (4 * e))  # noqa: E731
    result = prove(D.as_mechanism("g4", builder))
    assert result.verdict is Verdict.REFUTED
    assert result.counterexample.quantity == "hockey-stick delta"
    assert result.counterexample.log_ratio > 1e-5


def test_randomized_response_hockey_stick_closed_form():
    density = D.randomized_response()
    eps = density.epsilon
    context = SignContext(density.parameters, (), dict(density.instance))
    value, _ = hockey_stick_delta(density, eps / 2, context)
    # Only y = x contributes, p - e^(eps0/2) (1 - p) with p = e^eps0 / (1 + e^eps0):
    # delta(eps0/2) = (e^eps0 - e^(eps0/2)) / (1 + e^eps0).
    assert sympy.simplify(value - (sympy.exp(eps) - sympy.exp(eps / 2)) / (1 + sympy.exp(eps))) == 0


def test_meiser_is_probabilistic_dp_and_a_postprocessing_map_breaks_it():
    result = prove(D.meiser_mechanism())
    assert result.verdict is Verdict.PROVED
    details = result.details
    assert details["postprocessing_maps_checked"] == 2 * 256
    assert details["postprocessing_breaking_probabilistic"] > 0
    assert details["postprocessing_breaking_approximate"] == 0
    assert details["postprocessing_witness_for_all_parameters"] is True


def test_meiser_merging_outputs_0_and_1_breaks_probabilistic_dp_for_all_parameters():
    density = D.meiser()
    context = SignContext(density.parameters, density.assumptions, dict(density.instance))
    search = search_postprocessing(density, density.epsilon, density.delta, context)
    merged = [i for i in range(4) if search.witness_map.count(search.witness_map[i]) > 1]
    assert len(set(search.witness_map)) == 3 and len(merged) == 2  # one pair of outputs merged
    assert search.witness_outcome.verdict is Verdict.REFUTED
    assert prove(D.meiser_mechanism(), claim=ApproxDP(1.0, 0.01)).verdict is Verdict.PROVED
    assert prove(D.meiser_mechanism(), claim=PureDP(1.0)).verdict is Verdict.REFUTED


def test_theorem_rules():
    pure, step = rules.sequential([PureDP(0.5), PureDP(0.25)])
    assert pure == PureDP(0.75) and "composition" in step.name
    assert rules.parallel([ApproxDP(1, 1e-6), PureDP(2)])[0] == ApproxDP(2, 1e-6)
    eps, k, dp = 0.1, 10, 1e-6
    expected = math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * math.expm1(eps)
    assert rules.advanced(ApproxDP(eps, 1e-7), k, dp)[0].epsilon == pytest.approx(expected)
    grouped = rules.group(ApproxDP(1.0, 1e-6), 3)[0]
    assert grouped.epsilon == 3 and grouped.delta == pytest.approx(1e-6 * (math.e**3 - 1) / (math.e - 1))
    assert rules.post_processing(ApproxDP(1, 1e-6))[0] == ApproxDP(1, 1e-6)
    with pytest.raises(TheoremNotApplicable, match="not closed under post-processing"):
        rules.post_processing(ProbabilisticDP(1, 0.01))


def test_composition_of_proved_parts_gets_a_certificate():
    parts = (D.as_mechanism("a", D.laplace), D.as_mechanism("b", D.geometric))
    result = prove(Composition("both", parts, "sequential", PureDP(2.0)))
    assert result.verdict is Verdict.PROVED
    assert result.certificate.steps[-1].name == "sequential composition"
    weaker = prove(Composition("both", parts, "sequential", PureDP(1.5)))
    assert weaker.verdict is Verdict.UNKNOWN
