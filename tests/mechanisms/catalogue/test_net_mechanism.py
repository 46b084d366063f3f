"""Net mechanism: the exact sampler against the law enumerated independently here, with power."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpaudit.errors import InvalidDataset
from dpaudit.mechanisms.catalogue.net_mechanism import net_mechanism
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue

SEED = 20261122
N = 20_000
QUERIES = [lambda x: x == 0, lambda x: x == 1, lambda x: x == 2, lambda x: x <= 1]

# Power: epsilon 1.3 vs 1 on (0, 1, 2, 2, 1, 1) gives a chi-square noncentrality of 449 at N = 20000
# over the 10 net points (9 df, critical value 44.8 at ALPHA): power ~ 1 (a lower bound is asserted below).


def enumerated_law(data, epsilon, m=3):
    """P[h] proportional to exp(-eps N max_q |q(D)/N - q(h)/m| / 2) over every multiset h of m records."""
    records = list(data)
    net = sorted({tuple(sorted(h)) for h in itertools.combinations_with_replacement(range(3), m)})
    scores = []
    for h in net:
        error = max(abs(sum(map(q, records)) / len(records) - sum(map(q, h)) / m) for q in QUERIES)
        scores.append(-epsilon * len(records) * error / 2)
    weights = np.exp(np.asarray(scores) - max(scores))
    counts = [tuple(h.count(v) for v in range(3)) for h in net]
    return dict(zip(counts, (weights / weights.sum()).tolist()))


@pytest.mark.statistical
@pytest.mark.parametrize("data", [(0, 0, 0, 0), (0, 0, 0, 2), (0, 1, 2, 2, 1, 1)])
def test_net_mechanism_fits_the_enumerated_law(data):
    samples = get("net-mechanism").sample(data, N, np.random.default_rng(SEED))
    assert samples.shape == (N, 3) and np.all(samples.sum(axis=1) == 3)
    assert discrete_pvalue(samples, enumerated_law(data, 1.0)) > ALPHA


@pytest.mark.statistical
def test_net_mechanism_fit_rejects_epsilon_off_by_30_percent():
    data = (0, 1, 2, 2, 1, 1)
    p0, p1 = enumerated_law(data, 1.0), enumerated_law(data, 1.3)
    noncentrality = N * sum((p1[h] - p0[h]) ** 2 / p0[h] for h in p0)
    assert noncentrality > 150
    samples = net_mechanism(epsilon=1.3).sample(data, N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, p0) < ALPHA


def test_worst_log_ratio_over_replace_neighbours_is_at_most_epsilon():
    # Exhaustive over datasets of 3 records and every single replacement: the exponential-mechanism
    # bound (Dwork & Roth Thm. 3.10) holds for the enumerated law.
    worst = 0.0
    for data in itertools.combinations_with_replacement(range(3), 3):
        for i, r in itertools.product(range(3), range(3)):
            other = data[:i] + (r,) + data[i + 1 :]
            p, q = enumerated_law(data, 1.0), enumerated_law(other, 1.0)
            worst = max(worst, max(math.log(p[h] / q[h]) for h in p))
    assert 0.5 < worst <= 1.0 + 1e-12


@pytest.mark.parametrize("data", [(), (3,), (0.5, 1), "012"])
def test_malformed_data_is_refused(data):
    with pytest.raises(InvalidDataset):
        get("net-mechanism").sampler(data, 2, np.random.default_rng(0))


def test_malformed_queries_are_refused():
    with pytest.raises(InvalidDataset):
        net_mechanism(queries=((1, 2, 0),))
