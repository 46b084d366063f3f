"""Early stopping: the schedule, validity of the running maximum over looks, power and where audits stop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpaudit import PureDP
from dpaudit.auditor import Verdict, audit, bounds
from dpaudit.auditor.sequential import schedule, sequential_p_value, upper_bound
from tests.auditor import fixtures


def test_schedule_doubles_and_spends_alpha_exactly():
    plan = schedule(10**6, 0.95)
    assert plan.sizes == (62_500, 125_000, 250_000, 500_000, 1_000_000, 2_000_000, 4_000_000) and plan.planned == 5
    assert math.isclose(sum(plan.alphas), 0.05)
    # Planned looks: 1 - EXTENSION_SHARE, spent by alpha t^3 at t = 1/16, 1/8, 1/4, 1/2, 1.
    spent = [0.0] + [t**3 for t in (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)]
    for j in range(5):
        assert plan.alphas[j] == pytest.approx(0.05 * 0.8 * (spent[j + 1] - spent[j]))
    assert plan.alphas[4] == pytest.approx(0.05 * 0.8 * 7 / 8)  # the last planned look keeps 7/8 of its share
    assert plan.alphas[6] == pytest.approx(0.05 * 0.2 * 2 / 3)  # extension looks: EXTENSION_SHARE, by size
    assert plan.increments() == [62_500, 62_500, 125_000, 250_000, 500_000, 1_000_000, 2_000_000]
    single = schedule(10**6, 0.95, early_stopping=False)
    assert single.sizes == (10**6,) and single.alphas == (pytest.approx(0.05),)
    assert schedule(1_500, 0.95).sizes[: schedule(1_500, 0.95).planned] == (1_500,)  # too small for a first look of >= 1000
    assert "alpha spending over 5 looks" in plan.describe()
    assert plan.verdict_alphas == plan.alphas  # one level unless a verdict level is given


def test_the_verdicts_alpha_is_spent_over_the_same_looks():
    plan = schedule(10**6, 0.95, verdict_confidence=0.999)
    assert math.isclose(sum(plan.verdict_alphas), 0.001)
    assert all(math.isclose(v / a, 0.001 / 0.05) for v, a in zip(plan.verdict_alphas, plan.alphas))
    # Futility spends 0.2 x the estimate's alpha in proportion to the look sizes.
    assert math.isclose(sum(plan.futility_alphas), 0.2 * 0.05)
    assert plan.futility_alphas[4] == pytest.approx(0.2 * 0.05 * 0.8 * 16 / 31)


def test_upper_bound_mirrors_the_lower_bound():
    for method in ("joint", "union"):
        low = bounds.epsilon_lower_bound(method, 600, 1000, 250, 1000, 0.95)[()]
        high = upper_bound(method, 600, 1000, 250, 1000, 0.95)
        assert low < math.log(600 / 250) < high
    assert upper_bound("joint", 5, 1000, 0, 1000, 0.95) == math.inf
    assert sequential_p_value([0.04, 0.01], (0.01, 0.04)) == pytest.approx(min(0.04 * 5, 0.01 * 0.05 / 0.04))


def _sequential_flags(p_a: float, p_b: float, runs: int, n: int, method: str, seed: int,
                      confidence: float = 0.95) -> np.ndarray:
    """Simulate the verification stage of ``runs`` audits on one event: the running maximum per run.

    Counts are drawn the way the auditor draws them: per batch, Poisson(increment) samples per side
    and binomial hits; each look bounds the cumulative counts at 1 - alpha_j.  Whatever rule stops
    an audit, it reports a violation only if this maximum over the looks made exceeds the claim.  Every
    look is made, the extension looks included: the worst case of any stopping or extension rule.
    """
    plan = schedule(n, confidence)
    rng = np.random.default_rng(seed)
    ka = kb = na = nb = np.zeros(runs, dtype=np.int64)
    best = np.full(runs, -np.inf)
    for j, increment in enumerate(plan.increments()):
        sizes = rng.poisson(increment, size=(2, runs))
        ka, kb = ka + rng.binomial(sizes[0], p_a), kb + rng.binomial(sizes[1], p_b)
        na, nb = na + sizes[0], nb + sizes[1]
        scale = (na, nb) if method == "union" else (plan.sizes[j], plan.sizes[j])
        best = np.maximum(best, bounds.epsilon_lower_bound(method, ka, scale[0], kb, scale[1], 1 - plan.alphas[j]))
    return best


@pytest.mark.statistical
@pytest.mark.parametrize("confidence", [0.95, 0.999])
@pytest.mark.parametrize("method", ["joint", "union"])
@pytest.mark.parametrize("p_a", [0.5, 0.02])
def test_running_maximum_over_looks_keeps_the_confidence(method, p_a, confidence):
    """P[max over looks of the bound > true epsilon] <= alpha, whatever the stopping rule.

    The event's true log-ratio is exactly the claim (epsilon = 1), the hardest case for validity.
    20 000 simulated audits at the estimate's and the verdict's default levels: a valid procedure
    flags at most Bin(20 000, alpha) of them; the test allows its 1 - 1e-6 quantile.  Power twin: at
    a true log-ratio of 1.5 (claim 1) the same count is exceeded (the last look's gap, at 4N = 80 000,
    is below 0.25 for both events at both levels: 0.22 for the union bound at p_a = 0.02 and 0.999).
    """
    runs, n, epsilon = 20_000, 20_000, 1.0
    allowed = binom.isf(1e-6, runs, 1 - confidence)
    at_claim = _sequential_flags(p_a, p_a * math.exp(-epsilon), runs, n, method, 20261122, confidence)
    assert np.count_nonzero(at_claim > epsilon) <= allowed
    beyond = _sequential_flags(p_a, p_a * math.exp(-1.5), runs, n, method, 20261123, confidence)
    assert np.count_nonzero(beyond > epsilon) > allowed


def test_blatant_violation_stops_at_the_first_look():
    result = audit(fixtures.laplace(1.0, scale_factor=0.5), pair=(0.0, 1.0), samples=100_000, seed=2)
    assert result.verdict is Verdict.VIOLATION
    assert result.stopping.stopped_at == 1 and result.stopping.reason == "violation"
    assert result.stopping.samples_used == 6_250 and result.stopping.fraction_used <= 0.1
    assert abs(result.sample_sizes[0] - 6_250) < 6 * math.sqrt(6_250)
    assert any("stopped at look 1 of 5 " in note for note in result.notes)


def test_mechanism_well_inside_its_claim_stops_for_futility_and_one_at_it_does_not():
    inside = audit(fixtures.laplace(1.0), pair=(0.0, 1.0), samples=100_000, seed=3, epsilon=2.0)
    assert inside.verdict is Verdict.PASS and inside.stopping.reason == "futility"
    assert inside.stopping.stopped_at < 5
    at_claim = audit(fixtures.laplace(1.0), pair=(0.0, 1.0), samples=100_000, seed=3)
    assert at_claim.stopping.reason == "budget" and at_claim.stopping.stopped_at == 5


def test_support_mismatch_keeps_sampling_to_raise_its_cap():
    result = audit(fixtures.one_sided(), samples=50_000, seed=3)
    assert result.verdict is Verdict.VIOLATION and result.support_mismatch
    assert result.stopping.decided_at == 1 and result.stopping.stopped_at == 5


def test_early_stopping_off_is_one_look():
    result = audit(fixtures.laplace(1.0, scale_factor=0.5), pair=(0.0, 1.0), samples=20_000, seed=2,
                   early_stopping=False)
    assert result.stopping.looks == [20_000] and result.stopping.stopped_at == 1
    assert not any("early stopping" in note for note in result.notes)
    assert result.claim == PureDP(1.0)
