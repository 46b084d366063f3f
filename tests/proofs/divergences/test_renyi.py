"""Rényi divergences in closed form, each checked against mpmath quadrature or summation at three
parameter points; zCDP / RDP / GDP claims proved, refuted with the order and pair, composed."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy

import dpaudit
from dpaudit.claims import ApproxDP, GaussianDP, RenyiDP, ZeroConcentratedDP
from dpaudit.mechanisms.catalogue.discrete_gaussian import discrete_gaussian_density
from dpaudit.mechanisms.catalogue.flawed.concentrated import normal_product_density
from dpaudit.mechanisms.catalogue.gaussian_curves import normal_density
from dpaudit.mechanisms.catalogue.laplace import laplace_density
from dpaudit.mechanisms.registry import get
from dpaudit.proofs import Composition, Verdict, prove
from dpaudit.proofs.divergences.renyi import renyi_divergence
from dpaudit.proofs.theorems.rules import TheoremNotApplicable, implies, sequential

ORDERS = (1.5, 2.0, 7.0)


def _closed_form(density, alpha):
    divergence = renyi_divergence(density)
    point = {p: sympy.nsimplify(v) for p, v in density.instance.items()}
    return float(divergence.expression.subs(divergence.alpha, sympy.nsimplify(alpha)).subs(point))


def _quadrature(pdf_a, pdf_b, alpha, split):
    """log(int p_a^alpha p_b^(1-alpha)) / (alpha - 1), mpmath at 30 digits."""
    with mpmath.workdps(30):
        moment = mpmath.quad(lambda y: pdf_a(y) ** alpha * pdf_b(y) ** (1 - alpha), [-mpmath.inf, *split, mpmath.inf])
        return float(mpmath.log(moment) / (alpha - 1))


@pytest.mark.parametrize("rho, sensitivity", [(0.5, 1.0), (0.08, 2.0), (3.0, 0.5)])
@pytest.mark.parametrize("alpha", ORDERS)
def test_gaussian_divergence_is_alpha_delta_squared_over_two_sigma_squared(rho, sensitivity, alpha):
    density = normal_density("zcdp", rho, sensitivity=sensitivity)
    sigma = sensitivity / math.sqrt(2 * rho)
    exact = _quadrature(lambda y: mpmath.npdf(y, 0, sigma), lambda y: mpmath.npdf(y, sensitivity, sigma), alpha, [0, sensitivity])
    assert _closed_form(density, alpha) == pytest.approx(exact, rel=1e-9)
    assert exact == pytest.approx(alpha * sensitivity**2 / (2 * sigma**2), rel=1e-9)


@pytest.mark.parametrize("epsilon, sensitivity", [(1.0, 1.0), (0.3, 2.0), (2.5, 0.5)])
@pytest.mark.parametrize("alpha", ORDERS)
def test_laplace_divergence_is_mironovs_proposition_6(epsilon, sensitivity, alpha):
    b = sensitivity / epsilon
    laplace = lambda y, m: mpmath.exp(-abs(y - m) / b) / (2 * b)  # noqa: E731
    exact = _quadrature(lambda y: laplace(y, 0), lambda y: laplace(y, sensitivity), alpha, [0, sensitivity])
    assert _closed_form(laplace_density(epsilon, sensitivity), alpha) == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("rho", [Fraction(1, 2), Fraction(1, 8), Fraction(2)])
@pytest.mark.parametrize("alpha", ORDERS)
def test_discrete_gaussian_divergence_is_bounded_and_tight_where_alpha_minus_one_is_an_integer(rho, alpha):
    sigma2 = mpmath.mpf(1) / (2 * mpmath.mpf(rho.numerator) / rho.denominator)
    with mpmath.workdps(30):
        mass = lambda y, m: mpmath.exp(-((y - m) ** 2) / (2 * sigma2))  # noqa: E731 (unnormalised; the normaliser cancels)
        moment = mpmath.nsum(lambda y: mass(y, 0) ** alpha * mass(y, 1) ** (1 - alpha), [-mpmath.inf, mpmath.inf])
        normaliser = mpmath.nsum(lambda y: mass(y, 0), [-mpmath.inf, mpmath.inf])
        exact = float(mpmath.log(moment / normaliser) / (alpha - 1))
    bound = _closed_form(discrete_gaussian_density(rho), alpha)
    assert bound == pytest.approx(alpha * float(rho), rel=1e-12)
    if float(alpha - 1).is_integer():  # Delta = 1: (alpha - 1) Delta integer -> equality (CKS 2020)
        assert exact == pytest.approx(bound, rel=1e-9)
    else:
        assert exact <= bound * (1 + 1e-12)


@pytest.mark.parametrize("keep", [0.75, 0.6, 0.95])
@pytest.mark.parametrize("alpha", ORDERS)
def test_randomized_response_divergence_is_the_two_term_sum(keep, alpha):
    density = get("rr").density()
    p = density.parameters[0]
    # rr keeps the bit with probability (1 + p)/2: p = 2 keep - 1
    density = type(density)(**{**density.__dict__, "instance": {p: 2 * keep - 1}})
    exact = math.log(keep**alpha * (1 - keep) ** (1 - alpha) + (1 - keep) ** alpha * keep ** (1 - alpha)) / (alpha - 1)
    assert _closed_form(density, alpha) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("sigma, k, norm, square", [(1.0, 4, "linf", 4.0), (2.0, 3, "l2", 1.0), (0.5, 2, "l1", 1.0)])
def test_products_of_normals_add_their_divergences(sigma, k, norm, square):
    density = normal_product_density(sigma, k, shared=False, sensitivity=1.0, norm=norm)
    # one coordinate by quadrature, times the number of coordinates that move (l2 distance^2 = square)
    one = _quadrature(lambda y: mpmath.npdf(y, 0, sigma), lambda y: mpmath.npdf(y, 1, sigma), 2.0, [0, 1])
    assert _closed_form(density, 2.0) == pytest.approx(square * one, rel=1e-9)


def test_unrecognised_shapes_have_no_closed_form():
    assert renyi_divergence(get("geometric").density()) is None


# -- deciding the claims -----------------------------------------------------------------------

def test_gaussian_zcdp_is_proved_for_all_parameters_with_its_conversion():
    result = prove("gaussian-zcdp")
    assert result.proved and result.scope == "all parameters"
    assert [s.name for s in result.certificate.steps][-1] == "conversion"
    assert "Cor. 13" in result.certificate.steps[-1].justification


def test_rho_mis_halved_either_way():
    # sigma = 1, Delta = 1: the truth is rho = Delta^2 / (2 sigma^2) = 0.5
    loose = prove("gaussian-zcdp", claim=ZeroConcentratedDP(1.0))  # rho = Delta^2 / sigma^2: true but loose
    assert loose.proved
    wrong = prove("gaussian-zcdp", claim=ZeroConcentratedDP(0.25))  # rho = Delta^2 / (4 sigma^2): false
    assert wrong.refuted
    witness = wrong.counterexample
    assert witness.extra["alpha"] == 2.0 and tuple(witness.inputs) == (0.0, 1.0)
    assert witness.log_ratio == pytest.approx(1.0, rel=1e-12) and witness.bound == pytest.approx(0.5)
    assert witness.extra["recomputed"] == "by direct summation/quadrature"


def test_discrete_gaussian_is_proved_and_a_smaller_rho_refuted_at_an_exact_order():
    assert prove("discrete-gaussian").proved
    wrong = prove("discrete-gaussian", claim=ZeroConcentratedDP(0.4))
    assert wrong.refuted and wrong.counterexample.extra["alpha"] == 2.0


def test_laplace_zcdp_via_pure_dp_and_refuted_by_its_kl_divergence():
    assert prove("laplace", claim=ZeroConcentratedDP(0.5)).proved  # 1-DP implies 0.5-zCDP (Bun & Steinke Prop. 1.4)
    refuted = prove("laplace", claim=ZeroConcentratedDP(0.3))
    # D_alpha -> KL = e^-1 + 1 - 1 = 0.368 as alpha -> 1, above 0.3 alpha near alpha = 1
    assert refuted.refuted and refuted.counterexample.extra["alpha"] < 1.25


def test_renyi_claims_are_checked_order_by_order():
    assert prove("laplace", claim=RenyiDP((2, 8), (0.62, 0.92))).proved  # D_8 = 0.9102
    refuted = prove("laplace", claim=RenyiDP((2, 8), (0.61, 0.92)))  # D_2 = log(2e/3 + e^-2/3) = 0.6191
    assert refuted.refuted and refuted.counterexample.extra["alpha"] == 2.0


def test_gaussian_gdp_is_proved_and_a_smaller_mu_refuted_at_epsilon_zero():
    assert prove("gaussian-gdp").proved
    refuted = prove("gaussian-gdp", claim=GaussianDP(0.5))
    assert refuted.refuted and refuted.counterexample.output_set == "y < 0.5"
    assert refuted.counterexample.log_ratio == pytest.approx(2 * 0.6914624612740131 - 1, rel=1e-12)  # 2 Phi(1/2) - 1


def test_privacy_curve_claims_are_proved_point_by_point():
    curve = GaussianDP(1.0).curve([0.5, 1.0, 2.0])
    assert prove("gaussian-gdp", claim=curve).proved
    below = dpaudit.PrivacyCurve((0.5, 1.0), (curve.delta[0], curve.delta[1] * 0.9))
    result = prove("gaussian-gdp", claim=below)
    assert result.refuted and result.details["curve_point"] == [1.0, curve.delta[1] * 0.9]


def test_flawed_zcdp_entries_are_refuted():
    for name in ("gaussian-zcdp-linf-sensitivity", "gaussian-zcdp-conversion-drops-rho", "renyi-accountant-wrong-order"):
        assert prove(name).refuted, name


def test_composition_of_zcdp_parts_converts_to_the_claimed_epsilon_delta():
    part = get("gaussian-zcdp")
    epsilon = ZeroConcentratedDP(1.0).epsilon_at_delta(1e-5)
    proved = prove(Composition("two", (part, part), "sequential", ApproxDP(epsilon * 1.001, 1e-5)))
    assert proved.proved and proved.certificate.steps[-1].name == "conversion"
    assert not prove(Composition("two", (part, part), "sequential", ApproxDP(epsilon * 0.999, 1e-5))).proved


def test_composition_rules_of_the_curve_claims():
    assert sequential([ZeroConcentratedDP(0.1), ZeroConcentratedDP(0.2)])[0] == ZeroConcentratedDP(0.1 + 0.2)
    assert sequential([GaussianDP(3.0), GaussianDP(4.0)])[0] == GaussianDP(5.0)
    mixed = sequential([ZeroConcentratedDP(0.5), RenyiDP((2, 4), (1.0, 3.0))])[0]
    assert mixed == RenyiDP((2, 4), (2.0, 5.0))
    with pytest.raises(TheoremNotApplicable, match="no Rényi order in common"):
        sequential([RenyiDP(2, 1), RenyiDP(3, 1)])
    with pytest.raises(TheoremNotApplicable, match="convert each first"):
        sequential([ZeroConcentratedDP(0.5), ApproxDP(1.0, 1e-5)])
    assert implies(GaussianDP(1.0), ZeroConcentratedDP(0.5))[0] and not implies(ZeroConcentratedDP(0.5), dpaudit.PureDP(5))[0]


def test_a_numeric_instance_is_proved_at_the_instance():
    result = prove("gaussian-zcdp", numeric=True)
    assert result.proved and result.scope == "instance"
    assert prove(get("gaussian-zcdp"), claim=ZeroConcentratedDP(0.5)).verdict is Verdict.PROVED
