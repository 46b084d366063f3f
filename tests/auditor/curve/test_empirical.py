"""The empirical privacy curve (dpaudit.auditor.curve, curve_stage) and the verdicts of curve claims (curve_claims)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import norm

import dpaudit
from dpaudit import GaussianDP, InvalidArgument, Mechanism, PrivacyCurve, QueryDistance, RenyiDP, ZeroConcentratedDP
from dpaudit.auditor import bounds
from dpaudit.auditor.curve.empirical import EmpiricalCurve, binary_renyi, measure_curve, threshold_family
from dpaudit.auditor.events.sets import Feature, Threshold
from dpaudit.auditor.result import Verdict
from dpaudit.conversions import gdp_delta, gdp_epsilon

# ---------------------------------------------------------------- unit: closed forms and bookkeeping


def test_binary_renyi_matches_its_definition_and_tends_to_kl():
    # d_alpha(p||q) = ln(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) / (a - 1), computed here without logs.
    for p, q, a in ((0.3, 0.1, 2.0), (0.9, 0.5, 5.5), (1e-3, 1e-5, 1.5)):
        direct = math.log(p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)
        assert binary_renyi(p, q, a) == pytest.approx(direct, rel=1e-12)
    kl = 0.3 * math.log(0.3 / 0.1) + 0.7 * math.log(0.7 / 0.9)
    assert binary_renyi(0.3, 0.1, 1.0 + 1e-7) == pytest.approx(kl, rel=1e-5)
    assert binary_renyi(0.4, 0.4, 3.0) == pytest.approx(0.0, abs=1e-15)


def test_binary_renyi_grows_with_p_and_falls_with_q_above_the_diagonal():
    # The monotonicity the rho bound rests on (q <= p): d(L || U) <= d(p || q) for q <= U <= L <= p.
    p, q = np.linspace(0.2, 0.9, 50), 0.1
    assert np.all(np.diff(binary_renyi(p, q, 3.0)) > 0)
    q = np.linspace(0.01, 0.5, 50)
    assert np.all(np.diff(binary_renyi(0.6, q, 3.0)) < 0)


def _curve(hits_a, hits_b, n=1000, confidence=0.95, verdict_confidence=0.999):
    events = [Threshold(Feature("value"), float(t), False) for t in range(len(hits_a))]
    return measure_curve(events, hits_a, hits_b, (n, n), (0, 1), confidence, verdict_confidence)


def test_each_bound_is_clopper_pearson_at_the_bonferroni_level():
    curve = _curve([600, 100], [300, 20])
    m = 4  # two events, two orientations each: 8 one-sided bounds
    level = 1 - 0.05 / (2 * m)
    first = curve.events[0]
    assert first.forward and first.hits == (600, 300)
    assert first.lower == pytest.approx(float(bounds.cp_lower(600, 1000, level)))
    assert first.upper == pytest.approx(float(bounds.cp_upper(300, 1000, level)))
    backward = curve.events[2]  # the same event, M(b) first
    assert not backward.forward and backward.hits == (300, 600)
    assert backward.lower == pytest.approx(float(bounds.cp_lower(300, 1000, level)))
    assert first.verdict_lower < first.lower  # the verdict's level is stricter


def test_the_curve_is_the_maximum_over_events_of_its_formula():
    curve = _curve([600, 100], [300, 20])
    lower, upper = curve.bounds()
    for epsilon in (0.0, 0.5, 1.0, 2.0):
        expected = max(0.0, max(lower - math.exp(epsilon) * upper))
        assert curve.delta_lower_bound(epsilon) == pytest.approx(expected)
    for delta in (0.0, 1e-2, 0.1):
        ratios = [math.log((lo - delta) / up) for lo, up in zip(lower, upper) if lo > delta]
        assert curve.epsilon_lower_bound(delta) == pytest.approx(max(0.0, *ratios))
    assert curve.mu_lower_bound == pytest.approx(max(norm.ppf(lower) - norm.ppf(upper)))
    assert curve.delta_lower == tuple(curve.delta_lower_bound(e) for e in curve.epsilons)


def test_the_curve_round_trips_through_json():
    curve = _curve([600, 100, 5], [300, 20, 0])
    again = EmpiricalCurve.from_dict(json.loads(json.dumps(curve.as_dict())))
    assert again == curve


def test_threshold_family_covers_both_tails_down_to_the_smallest_mass():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, (20_000, 1)), rng.normal(1, 1, (20_000, 1))
    events = threshold_family(a, b, Feature("value"), count=10, smallest_mass=1e-3)
    lows = [e.t for e in events if e.upper]
    highs = [e.t for e in events if not e.upper]
    assert len(lows) == len(highs) == 10
    pooled = np.sort(np.r_[a[:, 0], b[:, 0]])
    # The deepest cuts sit at the pooled 1e-3 and 1 - 1e-3 quantiles.
    assert np.mean(pooled <= min(lows)) == pytest.approx(1e-3, abs=2e-4)
    assert np.mean(pooled > max(highs)) == pytest.approx(1e-3, abs=2e-4)


# ---------------------------------------------------------------- audits: validity and power


def _unit_gaussian(q, n, rng):
    return np.rint((q + rng.normal(0.0, 1.0, size=n)) * 2**16) / 2**16


def _audit(claim, seed=1, samples=100_000, **options):
    mechanism = Mechanism(name="gaussian-sigma-1", claim=claim, neighbours=QueryDistance(1.0), sampler=_unit_gaussian)
    return dpaudit.audit(mechanism, pair=(0.0, 1.0), samples=samples, seed=seed, executor="in-process",
                         verdict_confidence=1 - 1e-6, **options)


TRUE_CLAIMS = [
    GaussianDP(1.0),
    ZeroConcentratedDP(0.5),
    RenyiDP((1.5, 2.0, 4.0, 16.0), (0.75, 1.0, 2.0, 8.0)),
    GaussianDP(1.0).curve(tuple(np.linspace(0.0, 5.0, 41))),
]


@pytest.mark.statistical
@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=str)
def test_a_gaussian_stated_at_its_true_curve_passes(claim):
    # sigma = 1, Delta = 1 is exactly 1-GDP, 0.5-zCDP, (alpha, alpha/2)-RDP and has the 1-GDP curve (the
    # tabulated curve holds each delta to the next epsilon: above the true curve).  The verdict is taken
    # on bounds that hold simultaneously with probability >= 1 - 1e-6, and a refutation needs one of them
    # to fail: this fails with probability <= 1e-6.
    result = _audit(claim)
    assert result.verdict is Verdict.PASS, result.reason
    assert result.claim == claim and result.decided_by == ""
    assert "no event of the curve's family" in result.reason


@pytest.mark.statistical
def test_the_curve_lies_below_the_exact_curve_and_mu_is_tight():
    result = _audit(GaussianDP(1.0), samples=200_000)
    curve = result.curve
    for delta in (1e-2, 1e-3, 1e-4):
        assert curve.epsilon_lower_bound(delta, verdict=True) <= gdp_epsilon(1.0, delta)
    for epsilon in (0.0, 1.0, 2.0):
        assert curve.delta_lower_bound(epsilon, verdict=True) <= gdp_delta(1.0, epsilon)
    # Power: at 2 x 10^5 per side the probit difference of a central threshold has sd about
    # sqrt(2) * 0.5 / (0.399 sqrt(N)) = 0.004 and the 196 Bonferroni bounds at 1 - 0.05/196 cost z = 3.5 per
    # side, so mu_LB is near 1 - 2 * 3.5 * 0.0028 = 0.98; 0.95 leaves a margin of 7 sd.
    assert 0.95 <= curve.mu_lower_bound <= 1.0
    assert curve.rho_lower_bound <= 0.5 and curve.verdict_rho_lower_bound <= curve.rho_lower_bound


@pytest.mark.statistical
@pytest.mark.parametrize("claim, test", [(GaussianDP(0.8), "curve point"), (ZeroConcentratedDP(0.2), "curve point"),
                                         (RenyiDP(4.0, 1.0), "curve point")], ids=str)
def test_an_over_claimed_curve_is_flagged_with_the_point_where_it_fails(claim, test):
    # The true curve is 1-GDP / 0.5-zCDP / D_4 = 2.  At 10^5 per side and verdict level 1 - 1e-6, mu_LB is
    # about 0.95 (1 - 2 x 5.7 x 0.0044, z = 5.7 for 5e-9 per bound) > 0.8, rho_LB about 0.31 > 0.2, so each
    # over-claim is refuted with a margin of several standard deviations on the fixed seed.
    result = _audit(claim)
    assert result.verdict is Verdict.VIOLATION, result.reason
    assert result.decided_by == "curve"
    assert result.curve_check.refuted and result.curve_check.estimate_refutes
    witness = result.curve_check.witness
    assert witness["test"] == test
    assert witness["delta_lower_bound"] > witness["claimed_delta"]
    assert witness["delta_lower_bound"] <= result.curve.delta_lower_bound(witness["epsilon"], verdict=True) + 1e-15
    assert claim.delta_at_epsilon(witness["epsilon"]) == pytest.approx(witness["claimed_delta"])


def test_curve_true_on_a_point_claim_adds_the_curve_and_keeps_the_verdict():
    plain = dpaudit.audit("laplace", samples=20_000, seed=3, executor="in-process")
    with_curve = dpaudit.audit("laplace", samples=20_000, seed=3, executor="in-process", curve=True)
    assert plain.curve is None and with_curve.curve is not None
    assert with_curve.verdict == plain.verdict and with_curve.epsilon_lower_bound == plain.epsilon_lower_bound
    # Laplace(1) is exactly 1-DP: the curve's delta at epsilon = 1 is 0 up to the bounds' slack.
    assert with_curve.curve.epsilon_lower_bound(0.0) <= 1.0
    again = dpaudit.AuditResult.from_dict(json.loads(json.dumps(with_curve.as_dict())))
    assert again == with_curve


def test_curve_must_be_a_bool():
    with pytest.raises(InvalidArgument, match=r"curve='yes' must be True or False"):
        dpaudit.audit("laplace", samples=1_000, curve="yes")


def test_a_privacy_curve_claim_is_accepted_as_written():
    claim = PrivacyCurve((0.0, 1.0, 3.0), (0.5, 0.3, 0.01))
    result = _audit(claim, samples=20_000)
    assert result.claim == claim and result.curve is not None


@pytest.mark.statistical
@pytest.mark.parametrize("name, flawed", [("gaussian-zcdp", False), ("gaussian-gdp", False), ("discrete-gaussian", False),
                                          ("gaussian-zcdp-linf-sensitivity", True),
                                          ("renyi-accountant-wrong-order", True)])
def test_catalogue_curve_entries_are_decided_on_their_curve(name, flawed):
    # Validity: the correct entries keep their claims, so with the verdict at 1 - 1e-6 they are flagged with
    # probability <= 1e-6.  Power (seed 1, 10^5 per side, at 1 - 1e-6): the l-infinity calibration (true
    # mu = 2 against the claimed 0.5-zCDP) gives rho_LB = 1.32 at 0.95; the accountant at the wrong order
    # has delta >= 0.053 on the sum of its coordinates where its claimed curve allows 0.034.
    mechanism = dpaudit.get(name)
    result = dpaudit.audit(mechanism, pair=mechanism.pairs[0] if mechanism.pairs else None, samples=100_000, seed=1,
                           executor="in-process", verdict_confidence=1 - 1e-6)
    assert result.claim == mechanism.claim
    assert (result.verdict is Verdict.VIOLATION) == flawed, result.reason
    if flawed:
        assert result.decided_by == "curve" and result.curve_check.witness["event"]


def test_the_curve_is_placed_on_the_search_outputs_and_a_resume_gives_the_same_curve(tmp_path):
    # The curve's thresholds come from the event search's outputs of the pair, so a curve audit draws
    # search + verification + N per side and no pilot of its own; after a checkpoint resume the search
    # is read back and its outputs drawn again from their spawn addresses: the same rows, the same curve.
    kwargs = dict(epsilon=4.4, delta=1e-5, pair=(0.0, 1.0), seed=1, samples=20_000, checks=None,
                  executor="in-process")
    point = dpaudit.audit(_unit_gaussian, **kwargs)
    whole = dpaudit.audit(_unit_gaussian, **kwargs, curve=True)
    assert whole.run.draws == point.run.draws + 2 * 20_000  # the curve's N per side, nothing else
    checkpoint = tmp_path / "curve.json"
    first = dpaudit.audit(_unit_gaussian, **kwargs, curve=True, checkpoint=checkpoint)
    resumed = dpaudit.audit(_unit_gaussian, **kwargs, curve=True, checkpoint=checkpoint)
    assert resumed.run.resumed_chunks > 0
    assert first.curve.as_dict() == resumed.curve.as_dict() == whole.curve.as_dict()
