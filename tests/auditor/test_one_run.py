"""One-run auditing (Steinke, Nasr & Jagielski 2023): the p-value, its validity and its power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from dpaudit.auditor.one_run import one_run_audit, one_run_epsilon, one_run_p_value
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.dp_sgd import TrainingConfig, claimed_epsilon, train


def test_pure_dp_p_value_is_the_binomial_tail():
    # delta = 0: P[Binomial(r, e^eps/(1+e^eps)) >= v], the one-sided binomial test's p-value.
    p = 1 / (1 + math.exp(-1.0))
    assert one_run_p_value(500, 100, 80, 1.0, 0.0) == pytest.approx(binomtest(80, 100, p, "greater").pvalue, rel=1e-9)


def test_p_value_grows_with_epsilon_and_delta():
    values = [one_run_p_value(1000, 200, 180, e, 1e-5) for e in (0.5, 1.0, 2.0, 3.0)]
    assert values == sorted(values)
    assert one_run_p_value(1000, 200, 180, 2.0, 1e-3) > one_run_p_value(1000, 200, 180, 2.0, 1e-6)


def test_epsilon_bound_is_the_p_value_root():
    bound = one_run_epsilon(1000, 200, 190, 1e-5, 0.95)
    assert one_run_p_value(1000, 200, 190, bound, 1e-5) < 0.05 <= one_run_p_value(1000, 200, 190, bound + 1e-6, 1e-5)
    assert one_run_epsilon(1000, 200, 100, 1e-5, 0.95) == 0.0  # chance accuracy: no evidence


def _randomized_response(epsilon: float, m: int):
    """Each canary's bit reported truthfully with probability e^eps/(1+e^eps): eps-DP per canary (add/remove)."""
    keep = 1 / (1 + math.exp(-epsilon))

    def train_once(dataset, rng):
        present = np.zeros(m, dtype=bool)
        present[[int(c) for c in dataset]] = True
        return np.where(rng.random(m) < keep, present, ~present)

    return train_once


@pytest.mark.statistical
def test_validity_randomized_response_is_never_over_bounded():
    # 20 fixed seeds at confidence 1 - 1e-6: each bound exceeds eps = 1 with probability <= 1e-6.
    canaries = list(range(400))
    for seed in range(20):
        result = one_run_audit(_randomized_response(1.0, 400), canaries, lambda out, c: float(out[c]), guesses=400,
                               delta=0.0, confidence=1 - 1e-6, seed=seed)
        assert result.epsilon_lower_bound <= 1.0
    # Power: the same audit of eps = 4 randomized response is far above 1 (seeded).
    strong = one_run_audit(_randomized_response(4.0, 400), canaries, lambda out, c: float(out[c]), guesses=400,
                           delta=0.0, confidence=0.95, seed=0)
    assert strong.epsilon_lower_bound > 2.5


@pytest.mark.statistical
def test_one_run_dp_sgd_is_valid_and_informative():
    # Black-box DP-SGD, 200 Dirac canaries (4 e_k, label 1), one step, q = 1, sigma = 1: each canary is
    # a Gaussian mechanism with mu = 1, so the training run is (4.38, 1e-5)-DP for every canary.
    m = 200
    canaries = [tuple(np.eye(m)[k] * 4.0) + (1.0,) for k in range(m)]
    config = TrainingConfig(noise_multipliers=(1.0,), threat="black-box", canary=canaries[0])
    claim, _ = claimed_epsilon((1.0,), 1.0, 1e-5)
    bounds = []
    for seed in range(3):
        result = one_run_audit(lambda d, rng: train(config, d, 1, rng)[0], canaries,
                               lambda w, c: float(w @ np.asarray(c[:-1])), guesses=40, seed=seed)
        assert result.runs == 1 and result.canaries == m
        bounds.append(result.epsilon_lower_bound)
    assert max(bounds) <= claim and min(bounds) > 0.3


def test_bad_guess_counts_are_refused():
    with pytest.raises(InvalidArgument, match="guesses"):
        one_run_audit(lambda d, rng: 0, [1, 2, 3], lambda o, c: 0.0, guesses=3)
    with pytest.raises(InvalidArgument, match="v="):
        one_run_p_value(10, 5, 6, 1.0, 0.0)
