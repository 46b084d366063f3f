"""Bounds: Clopper-Pearson against statsmodels (oracle), exact coverage of both epsilon bounds, p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from dpaudit.auditor import bounds


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 10**7), frac=st.floats(0, 1), level=st.floats(0.5, 0.999999))
def test_clopper_pearson_matches_statsmodels(n, frac, level):
    k = int(round(frac * n))
    # statsmodels' alpha is two-sided: the one-sided bound at `level` is an end of the 2(1-level) interval.
    low, high = proportion_confint(k, n, alpha=2 * (1 - level), method="beta")
    assert bounds.cp_lower(k, n, level)[()] == pytest.approx(low, rel=1e-9, abs=1e-300)
    assert bounds.cp_upper(k, n, level)[()] == pytest.approx(high, rel=1e-9, abs=1e-300)


def test_clopper_pearson_edges():
    assert bounds.cp_lower(0, 100, 0.95)[()] == 0.0
    assert bounds.cp_upper(100, 100, 0.95)[()] == 1.0
    # k = n: the lower bound solves p^n = 1 - level; k = 0: the upper bound solves (1 - p)^n = 1 - level.
    assert bounds.cp_lower(100, 100, 0.95)[()] == pytest.approx(0.05 ** (1 / 100))
    assert bounds.cp_upper(0, 100, 0.95)[()] == pytest.approx(1 - 0.05 ** (1 / 100))


def test_union_bound_formula_and_delta():
    lo = bounds.cp_lower(500, 1000, 0.975)[()]
    hi = bounds.cp_upper(200, 1000, 0.975)[()]
    assert bounds.union_bound(500, 1000, 200, 1000, 0.95)[()] == pytest.approx(math.log(lo / hi))
    assert bounds.union_bound(500, 1000, 200, 1000, 0.95, 0.1)[()] == pytest.approx(math.log((lo - 0.1) / hi))
    assert bounds.union_bound(10, 1000, 200, 1000, 0.95, 0.5)[()] == -math.inf


def test_joint_bound_formula_and_no_hits():
    pi_low = bounds.cp_lower(700, 1000, 0.95)[()]
    assert bounds.joint_bound(700, 300, 0.95)[()] == pytest.approx(math.log(pi_low / (1 - pi_low)))
    assert bounds.joint_bound(0, 0, 0.95)[()] == -math.inf
    # No hits under b: finite, capped by the count (pi_L = 0.05^(1/k)).
    capped = bounds.joint_bound(1000, 0, 0.95)[()]
    assert math.isfinite(capped) and capped == pytest.approx(math.log(0.05 ** 0.001 / (1 - 0.05 ** 0.001)))


def test_joint_test_refuses_delta():
    with pytest.raises(ValueError):
        bounds.epsilon_lower_bound("joint", 10, 100, 5, 100, 0.95, delta=1e-3)


@pytest.mark.statistical
@pytest.mark.parametrize("method", ["joint", "union"])
@pytest.mark.parametrize("p_a,p_b", [(0.5, 0.5 * math.exp(-1)), (0.02, 0.02 * math.exp(-0.5)), (0.3, 0.3)])
def test_bound_coverage(method, p_a, p_b):
    """Coverage: P[bound > true ln(p_a/p_b)] <= alpha = 0.05, checked on 20 000 simulated audits.

    Counts are drawn as the auditor's verification stage makes them: Poisson(N) samples per side,
    then binomial hits.  The number of misses is at most Bin(20 000, 0.05) when the bound is valid;
    its 1 - 1e-6 quantile is the allowed count (each bound is conservative, so the truth is lower).
    Power twin: the same count must be exceeded when the claim is half the truth (at N = 20 000 the
    bound's gap, about 1.96 sqrt(1/k_a + 1/k_b) <= 0.16, is below half of every truth tested).
    """
    from scipy.stats import binom

    runs, n, confidence = 20_000, 20_000, 0.95
    rng = np.random.default_rng(20261122)
    sizes = rng.poisson(n, size=(2, runs))
    ka, kb = rng.binomial(sizes[0], p_a), rng.binomial(sizes[1], p_b)
    na, nb = (sizes[0], sizes[1]) if method == "union" else (n, n)
    values = bounds.epsilon_lower_bound(method, ka, na, kb, nb, confidence)
    truth = math.log(p_a / p_b)
    allowed = binom.isf(1e-6, runs, 1 - confidence)
    assert np.count_nonzero(values > truth) <= allowed
    if truth > 0:
        assert np.count_nonzero(values > 0.5 * truth) > allowed


def test_p_value_inverts_the_bound():
    for method in ("joint", "union"):
        bound = bounds.epsilon_lower_bound(method, 600, 1000, 250, 1000, 0.95)[()]
        assert bounds.p_value(method, 600, 1000, 250, 1000, bound - 1e-3) < 0.05
        assert bounds.p_value(method, 600, 1000, 250, 1000, bound + 1e-3) > 0.05


def test_holm_and_bonferroni():
    reject, adjusted = bounds.holm_adjusted([0.01, 0.04, 0.5], 0.95)
    assert reject == [True, False, False]
    assert adjusted[0] == pytest.approx(0.03)
    assert bounds.bonferroni_confidence(0.95, 4) == pytest.approx(0.9875)


def test_reach_grows_with_samples_and_approaches_the_claim():
    values = [bounds.reach("joint", n, 1.0, 0.0, 0.95) for n in (10**3, 10**4, 10**6)]
    assert values[0] < values[1] < values[2] < 1.0
    assert values[2] > 0.99


@pytest.mark.parametrize("level", [0.95, 0.999, 1 - 5e-6])
def test_the_approximate_bound_ranks_within_a_fraction_of_a_standard_error(level):
    """A&S 26.5.22 against the exact beta quantile, in standard errors sqrt(1/k_a + 1/k_b) of the log-ratio:
    within 0.1 once both counts reach 10^3, within 0.32 down to a handful of hits and mostly below the exact
    value there (so small counts do not crowd the head the search scores exactly), exact without hits on
    one side (the closed forms)."""
    rng = np.random.default_rng(7)
    for total in (10, 100, 1_000, 10_000, 1_000_000):
        ka = np.round(total * rng.uniform(0, 1, 4000))
        kb = total - ka
        exact = bounds.joint_bound(ka, kb, level)
        rough = bounds.approximate_bound("joint", ka, 1.0, kb, 1.0, level)
        assert np.array_equal(np.isfinite(exact), np.isfinite(rough))
        both = (ka > 0) & (kb > 0) & np.isfinite(exact)
        error = (rough[both] - exact[both]) / np.sqrt(1 / ka[both] + 1 / kb[both])
        assert error.min() >= -0.32 and error.max() <= 0.07
        large = (ka[both] >= 1_000) & (kb[both] >= 1_000)
        assert np.all(np.abs(error[large]) <= 0.1)
    hits = np.array([1.0, 2, 5, 30, 1_000])
    assert np.allclose(bounds.approximate_bound("joint", hits, 1.0, 0 * hits, 1.0, level),
                       bounds.joint_bound(hits, 0 * hits, level))
    n = 10_000.0
    ka, kb = np.round(n * rng.uniform(0, 0.3, 4000)), np.round(n * rng.uniform(0, 0.3, 4000))
    exact = bounds.union_bound(ka, n, kb, n, level, 1e-3)
    rough = bounds.approximate_bound("union", ka, n, kb, n, level, 1e-3)
    finite = np.isfinite(exact) & np.isfinite(rough) & (ka >= 1_000) & (kb >= 1_000)
    assert np.all(np.abs(rough[finite] - exact[finite]) <= 0.1 * np.sqrt(1 / ka[finite] + 1 / kb[finite]))
