"""MWEM: selection and measurement marginals against their exact laws; the output is the MW update."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidDataset
from dpaudit.mechanisms.catalogue.mwem import mwem, mwem_transcript
from dpaudit.mechanisms.catalogue.net_mechanism import DEFAULT_QUERIES
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue

SEED = 20261122
N = 20_000
Q = np.asarray(DEFAULT_QUERIES, dtype=float)
COUNTS = (8, 0, 0)  # 8 records, all equal to 0

# Round-1 selection law with T rounds: A_0 = (8/3, 8/3, 8/3), scores s = |q(A_0) - q(B)| =
# (16/3, 8/3, 8/3, 8/3), P[i] proportional to exp(eps s_i / (4T)).  With T = 1, eps 1.3 vs 1 the
# selection law moves by a noncentrality of ~ 0.01 N = 200 at N = 20000 (3 df, critical value 30.7);
# the measurement noise Lap(2T/eps) has scale 1.54 vs 2, a KS distance of 0.048 against a critical
# value sqrt(ln(2/ALPHA)/(2N)) = 0.019 at ALPHA.  Power ~ 1 for both.


def selection_law(epsilon, rounds):
    scores = np.abs(Q @ np.full(3, 8 / 3) - Q @ np.asarray(COUNTS, float))
    w = np.exp(epsilon * scores / (4 * rounds))
    return dict(enumerate((w / w.sum()).tolist()))


def run(epsilon, rounds):
    return mwem_transcript(COUNTS, Q, rounds, epsilon, N, np.random.default_rng(SEED))


@pytest.mark.statistical
@pytest.mark.parametrize("rounds", [1, 3])
def test_first_round_selection_and_measurement_follow_their_laws(rounds):
    transcript = run(1.0, rounds)
    assert discrete_pvalue(transcript.selected[:, 0], selection_law(1.0, rounds)) > ALPHA
    noise = transcript.measured[:, 0] - (Q @ np.asarray(COUNTS, float))[transcript.selected[:, 0]]
    assert stats.kstest(noise, stats.laplace(scale=2 * rounds / 1.0).cdf).pvalue > ALPHA


@pytest.mark.statistical
def test_marginal_tests_reject_epsilon_off_by_30_percent():
    transcript = run(1.3, 1)
    noise = transcript.measured[:, 0] - (Q @ np.asarray(COUNTS, float))[transcript.selected[:, 0]]
    assert discrete_pvalue(transcript.selected[:, 0], selection_law(1.0, 1)) < ALPHA
    assert stats.kstest(noise, stats.laplace(scale=2.0).cdf).pvalue < ALPHA


def test_output_is_the_average_of_the_multiplicative_weights_iterates():
    # Recompute HLM12 Alg. 1, step 3, one run at a time from the transcript (a loop, not the vectorised code).
    transcript = mwem_transcript(COUNTS, Q, 3, 1.0, 200, np.random.default_rng(7))
    total = float(sum(COUNTS))
    for run_index in range(200):
        a = np.full(3, total / 3)
        iterates = []
        for i, m in zip(transcript.selected[run_index], transcript.measured[run_index]):
            a = a * np.exp(Q[i] * (m - Q[i] @ a) / (2 * total))
            a = total * a / a.sum()
            iterates.append(a)
        assert np.allclose(transcript.synthetic[run_index], np.mean(iterates, axis=0) / total, rtol=1e-12, atol=1e-15)


def test_sampler_outputs_distributions_and_claims_composition():
    mechanism = get("mwem")
    out = mechanism.sample((0, 0, 1, 2), 500, np.random.default_rng(0))
    assert out.shape == (500, 3) and np.allclose(out.sum(axis=1), 1.0) and np.all(out > 0)
    assert mwem(epsilon=0.5, rounds=4).claim.epsilon == 0.5


def test_malformed_queries_and_data_are_refused():
    with pytest.raises(InvalidDataset):
        mwem(queries=[[1, 2, 0]])
    with pytest.raises(InvalidDataset):
        get("mwem").sampler((0, 5), 2, np.random.default_rng(0))
