"""One-run samplers (``Mechanism.one_run``) draw their entries' laws: against the exact oracle, and
against the vectorised samplers they stand in for (``certify`` enumerates the one-run code, so the
certificate is about the entry only if the two agree in law).

Level (derived, not tuned).  Every statistical test here is one seeded chi-square test at
``ALPHA = 1e-6`` (``tests.gof``): Pearson's statistic, cells with expected count < 5 pooled into one
(with the unlisted tail of an infinite support).  The file runs fewer than ``MAX_TESTS = 100`` of them
(checked by ``test_the_file_stays_within_its_false_alarm_budget``), so by the union bound a correct
sampler fails somewhere in the file with probability at most 100 x 1e-6 = 1e-4 over the choice of seed.
Power: the mutants below (noise scale off by 30 %, the README's power twin) must be rejected at the
same ALPHA with the same number of draws.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy import stats

from dpaudit.mechanisms import registry
from dpaudit.mechanisms.catalogue import (
    discrete_gaussian,
    exponential,
    geometric,
    meiser,
    randomized_response,
    thresholded_histogram,
)
from dpaudit.mechanisms.catalogue.flawed import calibration
from dpaudit.mechanisms.one_run import discrete_laplace
from tests.certifier import oracle
from tests.gof import ALPHA, discrete_pvalue

pytestmark = pytest.mark.statistical

N = 20_000
SEED = 20260425
MAX_TESTS = 100


def _key(output: Any) -> Any:
    """An output as a hashable cell: an int, or a tuple of ints."""
    array = np.asarray(output)
    return tuple(array.reshape(-1).tolist()) if array.ndim else array.item()


def one_run_draws(function: Callable[[Any, random.Random], Any], data: Any, label: str, n: int = N) -> list[Any]:
    """n outputs of ``function(data, rng)`` from one ``random.Random`` seeded by the test's label."""
    rng = random.Random(f"{SEED}-{label}")
    return [_key(function(data, rng)) for _ in range(n)]


def vectorised_draws(mechanism: Any, data: Any, label: str, n: int = N) -> list[Any]:
    """n outputs of the entry's vectorised sampler, seeded by the test's label."""
    rows = mechanism.sample(data, n, np.random.default_rng([SEED, zlib.crc32(label.encode())]))
    return [_key(row) for row in rows]


def oracle_pvalue(draws: list[Any], law: Any) -> float:
    """Chi-square p-value of the draws against an oracle law (a dict, or :class:`oracle.Truncated`)."""
    pmf = law.pmf if isinstance(law, oracle.Truncated) else law
    return discrete_pvalue(np.asarray(draws, dtype=np.int64), {cell: float(p) for cell, p in pmf.items()})


def two_sample_pvalue(first: list[Any], second: list[Any]) -> float:
    """Chi-square test of homogeneity of two samples' laws (``scipy.stats.chi2_contingency``).

    Cells whose expected count (the pooled frequency times either sample's size) is below 5 are merged
    into one cell; the test has (cells - 1) degrees of freedom.
    """
    a, b = Counter(first), Counter(second)
    total = len(first) + len(second)
    keep, rest = [], [0, 0]
    for cell in set(a) | set(b):
        if (a[cell] + b[cell]) * min(len(first), len(second)) / total < 5:
            rest[0] += a[cell]
            rest[1] += b[cell]
        else:
            keep.append([a[cell], b[cell]])
    if rest != [0, 0]:
        keep.append(rest)
    if len(keep) < 2:
        return 1.0
    return float(stats.chi2_contingency(np.asarray(keep).T, correction=False).pvalue)


# ---- against the oracle ---------------------------------------------------------------------------------


def _merged(law: dict[int, Any]) -> dict[int, Any]:
    """Meiser's T: outputs 0 and 1 become 0, 2 and 3 become 1 and 2."""
    out: dict[int, Any] = {}
    for y, p in law.items():
        out[0 if y <= 1 else y - 1] = out.get(0 if y <= 1 else y - 1, 0) + p
    return out


ORACLE_CASES = [
    # (label, mechanism, data, the exact law from the definition)
    ("rr-two-coin", randomized_response.rr_two_coin(), 1, oracle.rr_pmf(Fraction(1, 2), 1)),
    ("rr-p0.3", randomized_response.rr(p=0.3), 0, oracle.rr_pmf(Fraction(3, 10), 0)),
    ("k-rr-x0", randomized_response.k_rr(epsilon=1.0, k=4), 0, oracle.k_rr_pmf(Fraction(1), 4, 0)),
    ("k-rr-x2", randomized_response.k_rr(epsilon=0.5, k=5), 2, oracle.k_rr_pmf(Fraction(1, 2), 5, 2)),
    ("rappor", randomized_response.rappor(epsilon=1.0, k=4), 1, oracle.rappor_pmf(Fraction(1), 4, 1)),
    ("geometric-t1", geometric.geometric(epsilon=1.0), (1, 0, 1), oracle.geometric_pmf(Fraction(1), 2, 60)),
    ("geometric-t3", geometric.geometric(epsilon=Fraction(1, 3)), (1, 1), oracle.geometric_pmf(Fraction(1, 3), 2, 150)),
    ("geometric-s3", geometric.geometric(epsilon=1.5), (), oracle.geometric_pmf(Fraction(3, 2), 0, 60)),
    ("discrete-gaussian-1", discrete_gaussian.discrete_gaussian(rho=0.5), (1,), oracle.discrete_gaussian_pmf(Fraction(1), 40, 1)),
    ("discrete-gaussian-4", discrete_gaussian.discrete_gaussian(rho=0.125), (), oracle.discrete_gaussian_pmf(Fraction(4), 60)),
    ("exponential", exponential.exponential_mechanism(epsilon=1.0, k=3), (0.0, 4.0, 4.0),
     oracle.exponential_mechanism_pmf((0, 4, 4), 1)),
    ("top-k", exponential.top_k(epsilon=1.0, k=2, candidates=5), (1.0, 0.0, 0.0, 2.0, 0.0),
     oracle.top_k_pmf([Fraction(u, 2) for u in (1, 0, 0, 2, 0)], 2)),
    ("meiser-k", meiser.meiser_k(epsilon=1.0, delta=0.05), 0, oracle.meiser_k_pmf(Fraction(1), Fraction(1, 20), 0)),
    ("meiser-k-merged", meiser.meiser_k_merged(epsilon=1.0, delta=0.05), 1,
     _merged(oracle.meiser_k_pmf(Fraction(1), Fraction(1, 20), 1))),
    ("thresholded-histogram", thresholded_histogram.thresholded_histogram(epsilon=1.0, tau=5, universe=3),
     (0, 0, 0, 0, 0, 1), oracle.thresholded_histogram_pmf(Fraction(1), 5, (5, 1, 0))),
    ("rr-miscalibrated", calibration.rr_miscalibrated(epsilon=0.5), 1,
     {1: oracle.MP.e / (1 + oracle.MP.e), 0: 1 / (1 + oracle.MP.e)}),
    ("exponential-no-factor-2", calibration.exponential_no_factor_2(epsilon=1.0, k=3), (0.0, 0.0, 2.0),
     oracle.exponential_mechanism_pmf((0, 0, 2), 1, factor=1)),
]


@pytest.mark.parametrize("label, mechanism, data, law", ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_one_run_sampler_has_the_exact_law_of_its_definition(label, mechanism, data, law):
    draws = one_run_draws(mechanism.one_run, data, label)
    assert oracle_pvalue(draws, law) > ALPHA


def test_geometric_by_trials_one_run_has_the_exact_joint_law_of_output_and_draw_count():
    # The side channel certify must see: (output, number of random() calls) against its exact law.
    class CountingRandom(random.Random):
        calls = 0

        def random(self) -> float:
            self.calls += 1
            return super().random()

    mechanism = registry.get("geometric-by-trials")
    rng = CountingRandom(f"{SEED}-by-trials")
    draws = []
    for _ in range(N):
        before = rng.calls
        output = mechanism.one_run((1, 0, 1), rng)
        draws.append((output, rng.calls - before))
    assert oracle_pvalue(draws, oracle.geometric_by_trials_joint_pmf(2, 80)) > ALPHA


def _scaled_laplace(data: Any, rng: random.Random) -> int:
    """A mutant of ``geometric`` (epsilon = 1): discrete Laplace noise of scale 13/10 instead of 1."""
    return sum(data) + discrete_laplace(13, 10, rng)


def test_the_oracle_test_rejects_a_discrete_laplace_with_the_wrong_scale():
    draws = one_run_draws(_scaled_laplace, (1, 0, 1), "mutant-oracle")
    assert oracle_pvalue(draws, oracle.geometric_pmf(Fraction(1), 2, 60)) < ALPHA


# ---- against the vectorised sampler ---------------------------------------------------------------------

ENTRIES = [name for name in registry.names() if registry.get(name).one_run is not None]


def test_the_discrete_entries_have_one_run_samplers():
    expected = {
        "rr-two-coin", "rr", "k-rr", "rappor", "geometric", "discrete-gaussian", "exponential", "top-k",
        "meiser-k", "meiser-k-merged", "net-mechanism", "thresholded-histogram",
        "rr-miscalibrated", "exponential-no-factor-2", "geometric-by-trials",
    }
    assert set(ENTRIES) == expected


@pytest.mark.parametrize("name", ENTRIES)
def test_one_run_sampler_agrees_in_law_with_the_vectorised_sampler(name):
    mechanism = registry.get(name)
    for index, data in enumerate(mechanism.pairs[0]):
        label = f"{name}-{index}"
        p = two_sample_pvalue(one_run_draws(mechanism.one_run, data, label), vectorised_draws(mechanism, data, label))
        assert p > ALPHA, (data, p)


def test_the_two_sample_test_rejects_a_discrete_laplace_with_the_wrong_scale():
    mechanism = registry.get("geometric")
    data = (1, 0, 1)
    p = two_sample_pvalue(one_run_draws(_scaled_laplace, data, "mutant-2s"), vectorised_draws(mechanism, data, "mutant-2s"))
    assert p < ALPHA


def test_the_file_stays_within_its_false_alarm_budget():
    # one test per oracle case, one per input of each entry's first pair, the joint law, two power twins
    tests = len(ORACLE_CASES) + sum(len(registry.get(name).pairs[0]) for name in ENTRIES) + 1
    assert tests <= MAX_TESTS


# ---- the float-code oracle against CPython's own comparisons ---------------------------------------------


@pytest.mark.parametrize("p", [0.5, 1 / 3, 0.1, 2 / 3 + 1e-16, 1e-300, 0.9999999999999999])
def test_grid_bernoulli_counts_the_grid_points_below_p(p):
    # ceil(p 2^53) = j0 is the number of j with j / 2^53 < p: checked with the float comparison itself
    # (j / 2^53 is exact in double for j < 2^53), at the boundary points j0 - 1 and j0.
    j0 = oracle.grid_bernoulli(p) * oracle.GRID
    assert j0.denominator == 1
    j0 = int(j0)
    assert j0 == 0 or (j0 - 1) / oracle.GRID < p
    assert j0 == oracle.GRID or not j0 / oracle.GRID < p


def test_grid_categorical_is_the_law_of_bisect_over_a_float_cdf():
    import bisect

    cdf = tuple((np.cumsum([0.2, 0.3, 0.5]) / 1.0).tolist())
    law = oracle.grid_categorical(cdf)
    assert sum(law.values()) == 1
    start = 0
    for i, mass in sorted(law.items()):
        count = int(mass * oracle.GRID)
        # the first and last grid points of cell i fall in cell i, the neighbours outside it
        assert bisect.bisect_right(cdf, start / oracle.GRID) == i
        assert bisect.bisect_right(cdf, (start + count - 1) / oracle.GRID) == i
        start += count
