"""Pure epsilon-DP: proofs of correct densities and verified refutations of broken ones."""

from __future__ import annotations

import json

import pytest
import sympy

from dpaudit.claims import PureDP
from dpaudit.proofs import Verdict, prove
from tests.proofs import density_builders as D


def run(builder, claim=None):
    return prove(D.as_mechanism("test", builder, claim=claim))


def test_laplace_catalogue_entry_is_proved_for_all_parameters():
    result = prove("laplace")
    assert result.verdict is Verdict.PROVED
    assert result.scope == "all parameters"
    names = [s.name for s in result.certificate.steps]
    assert names[0] == "log ratio" and "case split" in names and names[-2:] == ["supremum", "final inequality"]
    document = json.loads(json.dumps(result.as_dict()))
    assert document["verdict"] == "proved"
    assert document["certificate"]["steps"][0]["mathml"].startswith("<m")


@pytest.mark.parametrize(
    "builder",
    [
        lambda: D.laplace_vector(3, "l1"),
        lambda: D.laplace_vector(2, "linf", claim=lambda e: 2 * e),
        lambda: D.laplace_vector(2, "l2", claim=lambda e: sympy.sqrt(2) * e),
        lambda: D.geometric(),
        lambda: D.randomized_response(),
        lambda: D.randomized_response(k=4),
        lambda: D.rappor(4, claim=lambda e: e),
        lambda: D.exponential(3),
        lambda: D.exponential(3, norm="l1", claim=lambda e: e / 2),
    ],
    ids=["vector-l1", "vector-linf", "vector-l2", "geometric", "rr", "k-rr", "rappor", "exponential", "exponential-l1"],
)
def test_correct_densities_are_proved(builder):
    result = run(builder)
    assert result.verdict is Verdict.PROVED, result.reason
    assert result.scope == "all parameters"


def test_gaussian_claimed_pure_is_refuted_with_half_line_and_mass():
    result = run(lambda: D.gaussian(claim_delta=False))
    assert result.verdict is Verdict.REFUTED
    witness = result.counterexample
    assert witness.log_ratio > witness.bound
    assert witness.output_set.startswith("y <")
    # At eps = 1/2, delta = 1e-5, Delta = 1: sigma = sqrt(2 ln 125000)/(1/2) = 9.69; the half-line is
    # y < Delta/2 - eps sigma^2 / Delta = 0.5 - 46.95 = -46.45 and its mass Phi(-46.95/9.69) ~ 6.3e-7.
    threshold = float(witness.output_set.split("<")[1])
    assert threshold == pytest.approx(0.5 - 0.5 * 2 * float(sympy.log(125000)) / 0.25, rel=1e-6)
    assert 1e-7 < witness.mass < 1e-5


def test_a_laplace_witness_sets_mass_is_integrated_across_the_peak():
    """laplace-scale-epsilon (scale epsilon = 0.1 instead of 1/epsilon): S = {y < 0.495} at the inputs 0, 1 and
    P[Laplace(0, 0.1) < 0.495] = 1 - e^(-4.95) / 2, exactly; a quadrature across the peak at y = 0 gave 0.99587."""
    import math

    witness = prove("laplace-scale-epsilon").counterexample
    assert witness.output_set == "y < 0.495" and witness.inputs == (0, 1)
    assert witness.mass == pytest.approx(1 - math.exp(-4.95) / 2, abs=1e-12)


def test_vector_laplace_under_linf_needs_k_epsilon():
    result = run(lambda: D.laplace_vector(3, "linf"))
    assert result.verdict is Verdict.REFUTED
    assert result.counterexample.log_ratio == pytest.approx(3.0)


def test_exponential_without_factor_two_is_refuted():
    result = run(lambda: D.exponential(3, factor=1))
    assert result.verdict is Verdict.REFUTED
    assert result.counterexample.log_ratio > 1.0


def test_restated_numeric_claim_is_checked_at_the_instance():
    result = prove("laplace", claim=PureDP(0.5))
    assert result.verdict is Verdict.REFUTED and result.scope == "instance"
    assert result.counterexample.log_ratio == pytest.approx(1.0)
    assert prove("laplace", numeric=True).verdict is Verdict.PROVED
