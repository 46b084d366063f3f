"""Exact float support check: leaky Laplace samplers flagged with a certificate, controls never.

Thresholds (derived, alpha = 0.05 union bound):
* support-mismatch bound with p_b observed 0: ln(LCB(p_a) / UCB(0 of N)), UCB = 1 - 0.025^(1/N)
  ~ 3.689 / N.  With N = 3x10^4 per side (within the 10^5 budget) a share p_a >= 0.5 of impossible
  outputs gives LCB >= 0.494 and a bound >= 8.30 > 8; the measured shares are 0.60-0.82.
* the shares of outputs consistent only with their own input, textbook Laplace, against reference
  shares 0.604 / 0.626 / 0.669 at epsilon 0.01 / 0.1 / 1 (same exact replay, 2x10^5 samples):
  standard error of the difference <= sqrt(2 * 0.25 / 10^5 + 0.25 / 2x10^5) = 0.0027, tolerance 0.015 ~ 5.5 SE.
* reference caps ln(LCB(N/2 of N) / UCB(0 of N)), Clopper-Pearson union bound: p_a = 1/2, p_b = 0 at
  alpha = 0.05 -> 9.51 (N = 10^5), 11.82 (10^6).
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from dpaudit import AddRemove, Mechanism, PureDP
from dpaudit.auditor.events.leaks.events import OutsideSupport, leak_event_from_dict
from dpaudit.auditor.events.leaks.finding import (
    LeakVerdict,
    clopper_pearson_bounds,
    epsilon_lower_bound,
)
from dpaudit.auditor.events.leaks.float_support import (
    IdentifiedNoise,
    candidate_scales,
    float_support_check,
    identify_noise,
    support_match,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.float_noise import FloatNoise, numpy_laplace_noise
from tests.auditor.samplers import CONTROLS, LEAKY, textbook_laplace

N = 100_000

pytestmark = pytest.mark.statistical


@pytest.mark.parametrize("kind", sorted(LEAKY))
@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_leaky_laplace_is_a_support_mismatch(kind, epsilon):
    started = time.process_time()  # CPU time: not inflated by other processes on a shared machine
    finding = float_support_check(LEAKY[kind](epsilon), 0.0, 1.0, n=30_000, seed=20261122)
    seconds = time.process_time() - started
    assert finding.verdict is LeakVerdict.VIOLATION, finding.reason
    assert finding.support_mismatch and finding.proven_empty and finding.hits_b == 0
    assert "support mismatch" in finding.reason
    assert finding.epsilon_lower_bound >= 8.0
    assert finding.figures["self_consistency"] == 1.0
    assert seconds < 10.0
    # the witness is really produced by the replay under a and by nothing under b
    mech = LEAKY[kind](epsilon)
    y = np.array([finding.witness["output"]])
    assert support_match(mech.noise, y, 0.0).consistent[0]
    assert not support_match(mech.noise, y, 1.0).consistent[0]
    json.dumps(finding.as_dict())


@pytest.mark.parametrize("epsilon,expected", [(0.01, 0.604), (0.1, 0.626), (1.0, 0.669)])
def test_textbook_unique_share_matches_reference(epsilon, expected):
    finding = float_support_check(textbook_laplace(epsilon), 0.0, 1.0, n=N, seed=7)
    assert abs(finding.figures["unique_share_a"] - expected) < 0.015
    assert 0.58 < finding.figures["unique_share_b"] < 0.70


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", sorted(CONTROLS))
def test_controls_are_never_flagged(kind, seed):
    mech = CONTROLS[kind](1.0)
    if mech.noise is None:
        with pytest.raises(InvalidArgument, match="must expose noise"):
            float_support_check(mech, 0.0, 1.0, n=1000, seed=seed)
        return
    # snapping declares numpy-Laplace noise it does not add last: self-consistency must refuse
    finding = float_support_check(mech, 0.0, 1.0, n=20_000, seed=seed)
    assert finding.verdict is LeakVerdict.INCONCLUSIVE
    assert "self-consistency failed" in finding.reason


def test_replay_reproduces_every_index_exactly():
    rng = np.random.default_rng(3)
    noise = FloatNoise(lambda u: -2.5 * np.log(u), bits=53, signed=True)
    k = rng.integers(1, 2**53, size=5000, endpoint=True)
    sign = np.where(rng.random(5000) < 0.5, -1.0, 1.0)
    y = 0.75 + sign * noise.noise(k)
    match = support_match(noise, y, 0.75)
    assert match.consistent.all()
    assert np.array_equal(0.75 + match.sign * noise.noise(match.index), y)


def test_coarse_grid_replay_finds_every_index_and_no_other():
    # bits = 8: the whole grid can be enumerated, so "impossible" is checked against brute force
    noise = FloatNoise(lambda u: -3.0 * np.log(u), bits=8, signed=True)
    k = np.arange(1, 257)
    reachable = np.concatenate([0.3 + noise.noise(k), 0.3 - noise.noise(k)])
    candidates = np.concatenate([reachable, np.nextafter(reachable, np.inf), reachable + 0.001])
    truth = np.isin(candidates, reachable)
    assert np.array_equal(support_match(noise, candidates, 0.3).consistent, truth)


def test_reference_caps_for_support_disjoint_witnesses():
    # ln(LCB / UCB), Clopper-Pearson union bound, p0 = 1/2, p1 observed 0, alpha = 0.05: 9.51 (10^5), 11.82 (10^6)
    for n, cap in ((10**5, 9.51), (10**6, 11.82)):
        lcb, ucb = clopper_pearson_bounds(n // 2, n, 0, n, 0.95)
        assert epsilon_lower_bound(lcb, ucb) == pytest.approx(cap, abs=0.006)
    lcb, ucb = clopper_pearson_bounds(1000, 10**5, 0, 10**5, 0.95)  # p0 = 0.01 -> 5.54
    assert epsilon_lower_bound(lcb, ucb) == pytest.approx(5.54, abs=0.01)
    assert math.isclose(ucb, 1 - 0.025 ** (1 / 10**5), rel_tol=1e-9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"function": 3}, "function=3 must be callable"),
        ({"function": np.log, "bits": 54}, "bits=54 must be at most 53"),
        ({"function": np.log, "bits": 0}, "bits=0 must be a positive integer"),
        ({"function": np.log, "signed": "yes"}, "signed='yes' must be True or False"),
        ({"function": lambda u: u * 0.0}, "must be monotone"),
    ],
)
def test_float_noise_validates(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        FloatNoise(**kwargs)


def test_identify_noise_finds_numpy_and_textbook_laplace_and_refuses_the_rest():
    # Black boxes: the model, the exact scale (one division, as code writes it) and both centres.
    rng = np.random.default_rng(0)
    cases = [
        (lambda q, b, n: q + rng.laplace(0, b, n), 2.0, 3.0, 1.0, "numpy-laplace"),
        (lambda q, b, n: q + rng.laplace(0, b, n), np.mean([1, 0, 1]), np.mean([1, 0, 0]), 1 / 3, "numpy-laplace"),
        (lambda q, b, n: rng.laplace(q, b, n), 5.0, 6.0, 1 / 0.3, "numpy-laplace"),  # loc added inside numpy
        (lambda q, b, n: q + np.where(rng.random(n) < 0.5, -1.0, 1.0) * (-b * np.log(1.0 - rng.random(n))),
         0.0, 1.0, 2.0, "textbook-laplace"),
    ]
    for draw, q_a, q_b, b, model in cases:
        found = identify_noise(draw(q_a, b, 20_000), draw(q_b, b, 20_000))
        assert found == IdentifiedNoise(model, b, (q_a, q_b)), (model, b, found)
    for outputs in (2.0 + rng.normal(0, 1, 5_000),  # not a known sampler
                    np.rint((2.0 + rng.laplace(0, 1, 5_000)) * 2**16) / 2**16,  # snapped: no replay reaches it
                    2.0 + (rng.geometric(0.6, 5_000) - rng.geometric(0.6, 5_000)).astype(float)):
        assert identify_noise(outputs, outputs + 1.0) is None


def test_candidate_scales_rank_the_simplest_division_first():
    rng = np.random.default_rng(1)
    for b in (1.0, 1 / 3, 10.0, 2 / 0.7):
        scales = candidate_scales(3.0 + rng.laplace(0, b, 50_000), 3.0)
        assert b in scales[:3] and len(scales) <= 12, (b, scales[:4])
    assert candidate_scales(np.full(10, 3.0), 3.0) == ()  # no spread: no Laplace scale


def test_an_identified_noise_event_survives_a_checkpoint_round_trip():
    # A resumed audit rebuilds the event from its spec: the model travels in it (exact hex scale).
    noise = IdentifiedNoise("numpy-laplace", 1 / 3, (2 / 3, 1 / 3))
    event = OutsideSupport(1 / 3, noise.noise, witness=0.25, model=(noise.model, noise.scale))
    back = leak_event_from_dict(json.loads(json.dumps(event.as_dict())))
    assert back == event and back.model == ("numpy-laplace", 1 / 3)
    rows = (2 / 3 + np.random.default_rng(2).laplace(0, 1 / 3, 2_000)).reshape(-1, 1)
    assert np.array_equal(back.contains(rows), event.contains(rows)) and event.contains(rows).any()
    assert "identified noise (numpy-laplace, scale 0.3333333333333333)" in event.describe()


def test_dataset_mechanisms_without_query_have_no_query_value():
    # Their data are records, not the value the noise is added to: the standalone check says what to add.
    mechanism = Mechanism.from_callable(lambda data, n, rng: sum(data) + rng.laplace(0, 1.0, n), claim=PureDP(1.0),
                                        neighbours=AddRemove(), noise=numpy_laplace_noise(1.0))
    with pytest.raises(InvalidArgument, match="declares no query: its query values are unknown"):
        float_support_check(mechanism, [1], [1, 1], n=100)
