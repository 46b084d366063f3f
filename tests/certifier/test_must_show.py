"""Issue 25, "What it must show": each item as a test, with the figure asserted.

Figures are exact, from :mod:`tests.certifier.oracle` (never from the certifier): the grid law of a float
comparison ``random() < p`` (m = ceil(p 2^53) of the 2^53 points, NOTES.md Part 3), the discrete Laplace and
Gaussian pmfs of CKS20, the law of CPython's ``random.choices``, the joint (output, draws) law of the
geometric by trials.  Samplers are plain functions in :mod:`tests.certifier.samplers`.  Each certification
must finish in under 30 s (the required bound); together they take a few seconds.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import pytest

import dpaudit

from . import oracle, samplers
from .checks import assert_claim_bracket_sound, assert_epsilon_sound, assert_intervals_contain
from .oracle import GRID, MP

SECONDS = 30.0  # the required bound per certification
RELATIVE = 1e-9  # epsilon_up within this of the exact epsilon (relative)


def _grid_rr_law(p: float, k: int, x: int) -> dict[int, Fraction]:
    """k-RR whose coin is ``random() < p``: P[x] = m / 2^53, each other value (1 - m / 2^53) / (k - 1)."""
    keep = oracle.grid_bernoulli(p)
    return {j: keep if j == x else (1 - keep) / (k - 1) for j in range(k)}


def _grid_rr_epsilon(p: float, k: int) -> object:
    """epsilon of that code: ln((k - 1) m / (2^53 - m)), m = ceil(p 2^53)."""
    m = oracle.grid_bernoulli(p) * GRID
    return MP.log(oracle._mpf((k - 1) * m / (GRID - m)))


def _close(measured: float, exact: object) -> bool:
    return abs(MP.mpf(measured) - exact) <= RELATIVE * abs(exact)


# ---- certified: randomized response, k-RR, RAPPOR on random.Random ---------------------------------------


@pytest.mark.parametrize("epsilon, k", [(1.0, 2), (1.0, 4), (0.5, 3), (2.0, 6)])
def test_randomized_response_on_random_random_is_certified_at_the_exact_epsilon_of_its_float_code(epsilon, k):
    sampler = (functools.partial(samplers.randomized_response, epsilon=epsilon) if k == 2 else
               functools.partial(samplers.k_randomized_response, epsilon=epsilon, k=k))
    p = samplers.keep_probability(epsilon, k)
    exact = _grid_rr_epsilon(p, k)
    # the formula is the law's (to the oracle's 60 digits)
    assert abs(exact - oracle.exact_epsilon(_grid_rr_law(p, k, 0), _grid_rr_law(p, k, 1))) < 1e-50
    assert abs(exact - epsilon) < 1e-14  # the float p moves epsilon, by less than 1e-14 (k = 4: NOTES Part 3)
    result = dpaudit.certify(sampler, pair=(0, 1), epsilon=epsilon)
    assert result.certified, result.reason
    assert all(law.complete for law in result.laws) and result.delta_up == 0
    assert MP.mpf(result.epsilon_low) <= exact <= MP.mpf(result.epsilon_up)
    assert _close(result.epsilon_up, exact) and _close(result.epsilon_low, exact)
    assert result.seconds < SECONDS
    assert_intervals_contain(result, lambda x: _grid_rr_law(p, k, x))


def test_rappor_permanent_step_is_certified_at_twice_the_epsilon_of_one_float_coin():
    # each of the k one-hot bits kept iff random() < f = e^(eps/2)/(1 + e^(eps/2)); neighbours differ in 2 bits
    epsilon, k = 1.0, 4
    f = math.exp(epsilon / 2) / (1 + math.exp(epsilon / 2))
    keep = oracle.grid_bernoulli(f)

    def law(x: int) -> dict[tuple[int, ...], Fraction]:
        out = {}
        for report in oracle.itertools.product((0, 1), repeat=k):
            p = Fraction(1)
            for j, bit in enumerate(report):
                p *= keep if bit == int(j == x) else 1 - keep
            out[report] = p
        return out

    exact = 2 * MP.log(oracle._mpf(keep / (1 - keep)))
    assert abs(exact - oracle.exact_epsilon(law(0), law(1))) < 1e-50
    result = dpaudit.certify(functools.partial(samplers.rappor_permanent, epsilon=epsilon, k=k), pair=(0, 1),
                             epsilon=epsilon)
    assert result.certified, result.reason
    assert _close(result.epsilon_up, exact) and MP.mpf(result.epsilon_up) >= exact
    assert len(result.laws[0].outcomes) == 2**k and result.seconds < SECONDS
    assert_intervals_contain(result, law)


# ---- certified: the CKS discrete Laplace at t = 1 and t = 3 ---------------------------------------------


@pytest.mark.parametrize("t", [1, 3])
def test_cks_discrete_laplace_is_certified_with_delta_up_at_most_1e_12(t):
    # q + Z, Z discrete Laplace with scale t on neighbouring counts 0, 1: every ratio is e^(1/t) exactly
    exact = Fraction(1, t)
    result = dpaudit.certify(functools.partial(samplers.laplace_count, t=t), pair=(0, 1), epsilon=float(exact),
                             delta=1e-12)
    assert result.certified, result.reason
    assert result.delta_up <= 1e-12
    assert MP.mpf(result.epsilon_up) >= oracle._mpf(exact) and _close(result.epsilon_up, oracle._mpf(exact))
    assert result.seconds < SECONDS

    def law(q: int) -> oracle.Truncated:
        noise = oracle.discrete_laplace_pmf(Fraction(t), 60 * t)
        return oracle.Truncated({q + z: p for z, p in noise.pmf.items()}, noise.tail)

    assert_intervals_contain(result, law)
    assert_epsilon_sound(result, law, finite_epsilon=True)


# ---- approximate: the CKS discrete Gaussian, sigma^2 = 4 -------------------------------------------------


def _gaussian(q: int) -> oracle.Truncated:
    return oracle.discrete_gaussian_pmf(Fraction(4), 80, q)  # tail below 1e-300


def _gaussian_delta() -> object:
    """The exact hockey-stick delta at epsilon = 1 of N_Z(q, 4) for q = 0 vs 1 (both directions: symmetric)."""
    a, b = _gaussian(0), _gaussian(1)
    delta = max(oracle.hockey_stick_delta(a.pmf, b.pmf, 1), oracle.hockey_stick_delta(b.pmf, a.pmf, 1))
    assert a.tail < MP.mpf(10) ** -300
    return delta


def test_the_exact_discrete_gaussian_delta_is_the_reference_figure():
    assert abs(_gaussian_delta() - MP.mpf("0.0072487768459")) < 1e-12


@pytest.mark.parametrize("factor, verdict", [(1.01, "certified"), (0.97, "refuted")])
def test_cks_discrete_gaussian_is_certified_at_1_01_times_the_exact_delta_never_at_0_97(factor, verdict):
    delta = float(_gaussian_delta()) * factor
    result = dpaudit.certify(functools.partial(samplers.gaussian_count, sigma2=4), pair=(0, 1), epsilon=1.0,
                             delta=delta, tolerance=1e-8)
    assert result.verdict.value == verdict, result.reason
    low, up = result.delta_at_claim
    assert MP.mpf(low) <= _gaussian_delta() <= MP.mpf(up) and up - low < 1e-6
    assert result.seconds < SECONDS
    assert_intervals_contain(result, _gaussian)
    assert_claim_bracket_sound(result, _gaussian)


# ---- refuted exactly --------------------------------------------------------------------------------------


def test_geometric_by_trials_is_refuted_when_its_draw_count_is_observed():
    result = dpaudit.certify(samplers.geometric_by_trials, pair=(0, 1), epsilon=math.log(2), observe="draws",
                             tolerance=1e-10)
    assert result.refuted, result.reason
    assert result.epsilon_up == math.inf
    witness = result.witness
    # the witness is a support mismatch: an (output, draws) pair the other input never produces
    assert oracle.geometric_by_trials_joint_pmf(witness.input_y, 200).get(witness.outcome, 0) == 0
    assert oracle.geometric_by_trials_joint_pmf(witness.input_x, 200)[witness.outcome] > 0
    assert witness.ratio_low > 10 and witness.path
    assert_intervals_contain(result, lambda q: oracle.geometric_by_trials_joint_pmf(q, 200))


def test_geometric_by_trials_output_alone_is_certified_at_ln_2():
    result = dpaudit.certify(samplers.geometric_by_trials, pair=(0, 1), epsilon=math.log(2), delta=1e-12)
    assert result.certified, result.reason
    assert _close(result.epsilon_up, MP.log(2)) and result.delta_up <= 1e-12


def _choices_law(weights_of, utilities: tuple[float, ...]) -> dict[int, Fraction]:
    return oracle.choices_pmf([weights_of(u) for u in utilities])


@pytest.mark.parametrize("sampler, half, refuted", [
    (samplers.exponential_choices_no_half, False, True),
    (samplers.exponential_choices, True, False),  # the control: with the 1/2 the same code is certified
])
def test_exponential_mechanism_through_random_choices_missing_the_half_is_refuted(sampler, half, refuted):
    a, b = (1.0, 0.0, 0.0), (0.0, 1.0, 1.0)  # utilities at linf distance 1
    weight = (lambda u: math.exp(1.0 * u / 2)) if half else (lambda u: math.exp(1.0 * u))
    exact = oracle.exact_epsilon(_choices_law(weight, a), _choices_law(weight, b))
    # the real-number figures: e^(eps/2)(1 + 2e^(eps/2))/(e^(eps/2) + 2) and e(1 + 2e)/(e + 2) as ratios
    w = MP.exp(MP.mpf(1) / 2) if half else MP.e
    assert abs(exact - MP.log(w * (1 + 2 * w) / (w + 2))) < 1e-14
    result = dpaudit.certify(sampler, pair=(a, b), epsilon=1.0)
    assert result.refuted is refuted and result.certified is not refuted, result.reason
    assert MP.mpf(result.epsilon_low) <= exact <= MP.mpf(result.epsilon_up)
    assert _close(result.epsilon_up, exact) and _close(result.epsilon_low, exact)
    if refuted:
        assert result.witness.ratio_low > 1.0
    assert_intervals_contain(result, lambda u: _choices_law(weight, u))


def test_randomized_response_with_p_from_the_wrong_epsilon_is_refuted():
    p = samplers.keep_probability(2.0, 2)  # the flaw: p computed for 2 eps
    exact = _grid_rr_epsilon(p, 2)
    result = dpaudit.certify(samplers.rr_wrong_epsilon, pair=(0, 1), epsilon=1.0)
    assert result.refuted, result.reason
    assert _close(result.epsilon_low, exact) and _close(result.epsilon_up, exact)
    assert result.witness is not None and result.witness.ratio_low > 1.0
    assert_intervals_contain(result, lambda x: _grid_rr_law(p, 2, x))
