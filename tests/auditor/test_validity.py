"""Validity and power of whole audits, over many seeds (the 200-seed run is benchmarks/validity.py).

Each audit of a mechanism that meets its claim exactly flags a violation with probability at most
alpha = 1 - confidence = 0.05 (the verified bound is a lower confidence bound on the realised
epsilon, and each seed gives independent search and verification samples).  Over R seeds the number
of flags is then stochastically at most Bin(R, 0.05); the test allows its 1 - 1e-4 quantile, so a
valid auditor fails it with probability <= 1e-4 (and, seeded, deterministically passes or fails).
The power twin runs the same seeds on the same mechanism with its scale 1.5x too small (true epsilon
1.5x the claim) and must flag *more* than that allowance -- at N = 5 000 the bound's gap (about
2 sqrt(2e^eps / N) ~ 0.07 at eps = 1, see dpaudit/auditor/bounds.py) is far below the 0.5 excess, so nearly
every seed flags.
"""

from __future__ import annotations

import pytest
from scipy.stats import binom

from dpaudit.auditor import Verdict, audit
from tests.auditor import fixtures

pytestmark = pytest.mark.statistical

SEEDS = range(30)
SAMPLES = 5_000
ALLOWED = int(binom.isf(1e-4, len(SEEDS), 0.05))  # = 7 for 30 seeds

CASES = {
    "laplace": (fixtures.laplace, (0.0, 1.0)),
    "geometric": (fixtures.geometric, (0, 1)),
    "rr": (fixtures.randomized_response, (0, 1)),
}


def _flags(mechanism, pair) -> int:
    results = [audit(mechanism, pair=pair, samples=SAMPLES, seed=seed) for seed in SEEDS]
    return sum(r.verdict is Verdict.VIOLATION for r in results)


@pytest.mark.parametrize("name", sorted(CASES))
def test_correct_mechanism_flagged_at_most_alpha(name):
    factory, pair = CASES[name]
    assert _flags(factory(1.0), pair) <= ALLOWED


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_twin_is_flagged(name):
    factory, pair = CASES[name]
    # Claim 1/1.5 for the 1-DP mechanism: the same as a scale 1.5x too small at claim 1.
    from dataclasses import replace

    from dpaudit import PureDP

    broken = replace(factory(1.0), claim=PureDP(1.0 / 1.5))
    assert _flags(broken, pair) > ALLOWED
