"""DP-SGD's declared Gaussian steps: the prover decides dp-sgd and its twins, never proves a false claim,
and each declaration describes what the training loop does."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import norm

from dpaudit.claims import ApproxDP
from dpaudit.cli import main
from dpaudit.mechanisms.catalogue.dp_sgd import (
    DATASET,
    TrainingConfig,
    dp_sgd,
    dp_sgd_mechanism,
    gaussian_epsilon,
    subsampled_gaussian_epsilon,
)
from dpaudit.mechanisms.catalogue.flawed.dp_sgd import ANTI_ALIGNED, dp_sgd_fixed_batch
from dpaudit.mechanisms.registry import get
from dpaudit.proofs import Verdict, prove
from dpaudit.proofs.divergences.privacy_loss import exact_epsilon

DELTA = 1e-5
TWINS = ["dp-sgd-clip-after-sum", "dp-sgd-fixed-batch", "dp-sgd-last-step-no-multiplier", "dp-sgd-noise-batch-mean"]
CHAIN = ["sampler", "dominating pair", "composition", "conversion", "final inequality"]

# Each twin's law of the canary projections y_t / C, derived by hand from its docstring (not from the
# declaration): per-step noise sd in clip units, and each dataset's per-step mixture (probability, mean).
HAND_LAWS = {
    "dp-sgd-clip-after-sum": ((2.0,), ((1.0, 1.0),), ((1.0, -1.0),)),  # clipped sum +C without, -C with
    "dp-sgd-noise-batch-mean": ((1.0,), ((1.0, 0.0),), ((1.0, -1.0),)),  # sigma / B = 1
    "dp-sgd-last-step-no-multiplier": ((4.0, 4.0, 4.0, 1.0), ((1.0, 0.0),), ((1.0, -1.0),)),
    # two of four records (+C each), or with the canary (-C) drawn with probability 2/5: 0, else 2C
    "dp-sgd-fixed-batch": ((2.0,), ((1.0, 2.0),), ((0.4, 0.0), (0.6, 2.0))),
}


@pytest.mark.parametrize("kwargs", [{}, {"sigma": 2.0, "q": 1.0, "steps": 5}, {"sigma": 1.0, "q": 0.5, "steps": 1}])
def test_dp_sgd_is_proved_with_the_whole_chain(kwargs):
    result = prove(dp_sgd(**kwargs))
    assert result.verdict is Verdict.PROVED, result.reason
    names = [step.name for step in result.certificate.steps]
    expected = CHAIN if kwargs.get("q", 1.0) == 1.0 else [n for n in CHAIN if n != "composition"]  # T = 1: nothing to compose
    assert names == expected


def test_a_claim_above_the_fft_bracket_is_proved_for_subsampled_steps():
    # q < 1, T > 1: the pessimistic end of the bracket decides; the accountant's own claim sits inside
    # the bracket (dp_accounting is within 1e-4 of the exact value), so it stays unknown, never refuted.
    mechanism = dp_sgd(sigma=1.0, q=0.5, steps=3)
    high = exact_epsilon(1.0, 0.5, 3, DELTA, 1e-4).high
    assert prove(mechanism, claim=ApproxDP(high * (1 + 1e-5), DELTA)).verdict is Verdict.PROVED
    result = prove(mechanism)
    assert result.verdict is Verdict.UNKNOWN and "step 'final inequality'" in result.reason


@pytest.mark.parametrize("name", TWINS)
def test_each_twin_is_refuted_by_a_witness_rechecked_at_50_digits(name):
    result = prove(name)
    assert result.verdict is Verdict.REFUTED, result.reason
    witness = result.counterexample
    scales, law_d, law_canary = HAND_LAWS[name]
    weights = witness.extra["weights"]
    assert weights == pytest.approx([(min(scales) / s) ** 2 for s in scales])
    threshold, radius = witness.parameters["threshold"], witness.parameters["rounding_radius"]
    upper = witness.extra["tail"] == "upper"
    with mpmath.workdps(50):
        sd = mpmath.sqrt(sum(mpmath.mpf(w) ** 2 * mpmath.mpf(s) ** 2 for w, s in zip(weights, scales)))
        total = sum(weights)  # every step has the same law: Z's mean is (sum of weights) x the step's mean

        def tail(law, t):
            return sum(mpmath.mpf(p) * mpmath.ncdf(((total * m - t) if upper else (t - total * m)) / sd) for p, m in law)

        big, small = (law_canary, law_d) if len(witness.inputs[0]) > len(witness.inputs[1]) else (law_d, law_canary)
        # the released (rounded) statistic is within `radius` of the exact one: the worst case of each side
        shift = radius if upper else -radius
        reached = tail(big, threshold + shift) - mpmath.exp(witness.parameters["epsilon"]) * tail(small, threshold - shift)
        assert reached > DELTA
        assert float(reached) == pytest.approx(witness.log_ratio, rel=1e-9, abs=1e-12)
    assert witness.log_ratio > witness.bound == DELTA


def test_the_twins_true_epsilons_exceed_their_claims():
    # the entries' own true epsilons (closed forms) agree with the refutation's direction
    for name in TWINS:
        mechanism = get(name)
        assert mechanism.true_epsilon > mechanism.claim.epsilon


def _mechanism(config, claim_sigma, data=DATASET):
    return dp_sgd_mechanism("mutant", config, claim_sigma, DELTA, data=data)


EXACT = gaussian_epsilon(1.0, DELTA)


@pytest.mark.parametrize("label, mechanism, claim, provable", [
    # the exact epsilon up to a relative 1e-6: above is proved, below is not
    ("slightly above", dp_sgd(), ApproxDP(EXACT * (1 + 1e-6), DELTA), True),
    ("slightly below", dp_sgd(), ApproxDP(EXACT * (1 - 1e-6), DELTA), False),
    ("well below", dp_sgd(), ApproxDP(EXACT * 0.999, DELTA), False),
    # the loop clips the sum (sensitivity 2C) while the claim is per-example DP-SGD's
    ("wrong sensitivity", _mechanism(TrainingConfig((1.0,), clip_each_example=False, canary_norm=100.0), 1.0, ANTI_ALIGNED),
     None, False),
    # the claim counts T - 1 of the loop's T steps
    ("missing step", _mechanism(TrainingConfig((2.0,) * 4), 2.0), ApproxDP(gaussian_epsilon(math.sqrt(3) / 2, DELTA), DELTA), False),
    # the loop's noise multiplier is smaller than the claim's
    ("smaller noise", _mechanism(TrainingConfig((0.9,)), 1.0), None, False),
    # the claim assumes Poisson subsampling at q = 1/2, the loop takes every record
    ("no subsampling", _mechanism(TrainingConfig((1.0,)), 1.0), ApproxDP(subsampled_gaussian_epsilon(1.0, 0.5, DELTA), DELTA), False),
    # one subsampled step, the claim just below its exact epsilon
    ("subsampled below", dp_sgd(sigma=1.0, q=0.5), ApproxDP(subsampled_gaussian_epsilon(1.0, 0.5, DELTA) * (1 - 1e-6), DELTA), False),
    # T > 1 subsampled steps, a claim below the bracket's low end
    ("bracket below", dp_sgd(sigma=1.0, q=0.5, steps=3), ApproxDP(exact_epsilon(1.0, 0.5, 3, DELTA, 1e-4).low * 0.999, DELTA), False),
    # a pure-DP claim for Gaussian noise: never proved
    ("pure claim", dp_sgd(), ApproxDP(EXACT, 0.0), False),
])
def test_mutants_are_never_proved_when_false(label, mechanism, claim, provable):
    result = prove(mechanism, claim=claim)
    if provable:
        assert result.verdict is Verdict.PROVED, result.reason
    else:
        assert result.verdict is not Verdict.PROVED, label
    if result.verdict is Verdict.REFUTED:
        assert result.counterexample.log_ratio > result.counterexample.bound


def test_clear_mutants_are_refuted_with_a_witness():
    subsampled = subsampled_gaussian_epsilon(1.0, 0.5, DELTA)
    for mechanism, claim in (
        (dp_sgd(), ApproxDP(EXACT * 0.999, DELTA)),
        (_mechanism(TrainingConfig((0.9,)), 1.0), None),
        # one Poisson-subsampled step (a two-component mixture against a Gaussian), claim 1 % low
        (dp_sgd(sigma=1.0, q=0.5), ApproxDP(subsampled * 0.99, DELTA)),
        # the fixed-batch twin at another noise multiplier
        (dp_sgd_fixed_batch(sigma=1.0), None),
    ):
        result = prove(mechanism, claim=claim)
        assert result.verdict is Verdict.REFUTED, result.reason
        assert result.counterexample.log_ratio > result.counterexample.bound


def _matches_sampler(mechanism, structure, n=100_000, seed=11):
    """Does the loop's canary projection match the declared law, mean and sd, at every step?

    Bounds: 5 entries x 2 datasets x at most 4 steps x 2 statistics = 80 checks, each at
    alpha = 1e-6 / 80 = 1.25e-8, two-sided: z = norm.isf(6.25e-9) = 5.7.  The mean's standard error is
    sd / sqrt(n); the sample variance's is sqrt((mu_4 - sd^4) / n), mu_4 the mixture's fourth central
    moment (normal approximation of the sample variance at n = 10^5).
    """
    z = float(norm.isf(1e-6 / 80 / 2))
    rng = np.random.default_rng(seed)
    for data, law in zip(structure.pair, structure.projections):
        outputs = mechanism.sampler(data, n, rng) / structure.clip
        weights = np.array([p for p, _ in law])
        values = np.array([v for _, v in law])
        for step, scale in enumerate(structure.noise_scales):
            mean = float(weights @ values)
            variance = float(weights @ (values - mean) ** 2) + scale**2
            # fourth central moment of a normal mixture: E[(d + s Z)^4] = d^4 + 6 d^2 s^2 + 3 s^4, d = v - mean
            d = values - mean
            fourth = float(weights @ (d**4 + 6 * d**2 * scale**2 + 3 * scale**4))
            column = outputs[:, step]
            if abs(column.mean() - mean) > z * math.sqrt(variance / n):
                return False
            if abs(column.var(ddof=1) - variance) > z * math.sqrt((fourth - variance**2) / n):
                return False
    return True


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["dp-sgd"] + TWINS)
def test_the_declared_structure_matches_the_sampler(name):
    mechanism = get(name)
    assert _matches_sampler(mechanism, mechanism.structure)


@pytest.mark.statistical
def test_a_declaration_that_drops_the_noise_divisor_is_caught():
    # power: noise-batch-mean's loop has sd 1; a declaration without its divisor 4 says sd 4
    mechanism = get("dp-sgd-noise-batch-mean")
    wrong = dataclasses.replace(mechanism.structure, noise_divisor=1.0)
    assert not _matches_sampler(mechanism, wrong)


def test_the_declaration_follows_the_config_not_the_claim():
    assert get("dp-sgd").structure.sensitivity == 1.0
    assert get("dp-sgd-clip-after-sum").structure.sensitivity == 2.0
    fixed = get("dp-sgd-fixed-batch").structure
    assert fixed.sampling == "fixed" and fixed.q == pytest.approx(2 / 5) and fixed.sensitivity == 2.0
    assert get("dp-sgd-noise-batch-mean").structure.noise_scales == (1.0,)
    assert get("dp-sgd-last-step-no-multiplier").structure.noise_scales == (4.0, 4.0, 4.0, 1.0)
    # black-box: the release is the final parameters, no exact projection law, still provable
    black = dp_sgd(threat="black-box")
    assert black.structure.projections is None and prove(black).verdict is Verdict.PROVED


def test_cli_prove_prints_the_chain():
    result = CliRunner().invoke(main, ["prove", "dp-sgd"])
    assert result.exit_code == 0, result.output
    for name in CHAIN:
        assert f"[{name}]" in result.output
