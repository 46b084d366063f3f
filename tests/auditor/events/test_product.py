"""Product-ratio events (summed per-coordinate log-ratios) and the k-th answer of sparse vector.

The thresholds below are derived from the mechanisms' exact distributions, not tuned on the seeds:

* **The gap to the sum** (``test_the_product_ratio_beats_the_sum_of_coordinates``).  Ten coordinates,
  each x + Lap(10), inputs x = 1 and x = 0, n = 10^5 verification samples per side, Clopper-Pearson
  union bound at 0.95 with the median counts k = round(n p) plugged in.  The sum S of ten Lap(10) is
  G1 - G2 with G1, G2 ~ Gamma(10, scale 10), so P[S > t] = int_0^inf Gamma.sf(t + g) Gamma.pdf(g) dg;
  maximised over thresholds t (step 2) the sum's best event is {S > 102} under the shift,
  p = 0.0213 / 0.0129, expected bound 0.399.  The Neyman-Pearson statistic counts the coordinates
  above 1/2, Bin(10, 0.5244) against Bin(10, 0.4756) (P[Lap(10) > -1/2] = 1 - e^-0.05 / 2); its best
  event {at least 9}, p = 0.0158 / 0.0071, has expected bound 0.676.  The test's line is the midpoint
  0.54, six standard errors of the bound (about sqrt(1/1583 + 1/712) = 0.045) from each side.
* **Validity** (``test_a_correct_product_mechanism_is_not_flagged``).  Two coordinates, each x + Lap(1):
  epsilon = 2 exactly, reached by {both coordinates above 1} with mass 1/4 under x = 1 (the product
  event and "min > 1" alike), so the bound comes close to 2 and must not pass it at the verdict's
  level; ten coordinates x + Lap(10), epsilon 1, where the product event is the one chosen.
* **The second answer** (``test_the_second_answer_of_a_cutoff_two_sparse_vector_is_read``).  Sparse
  vector (Lyu, Su & Li 2017, Alg. 1 noise: rho ~ Lap(2/eps), nu_i ~ Lap(4c/eps), eps = 0.5, c = 2) that
  releases the value of each answer, the first as q_i + Lap(100), the second as q_i + Lap(1).  Without
  the second value the output is (0.5 + 0.01)-DP (Alg. 1, Lyu et al. Thm. 2, and one Laplace release at
  scale 100 of a sensitivity-1 query); the second value adds up to 1.  An event above 0.51 on fresh
  samples must read the second answer's value.
"""

from __future__ import annotations

import json

import numpy as np

import dpaudit
from dpaudit import Mechanism, PureDP, QueryDistance
from dpaudit.auditor import Verdict, bounds
from dpaudit.auditor.events.product import (
    BIN_COUNTS,
    ProductRatio,
    ProductRatioThreshold,
    _fit,
    _summed,
    product_events,
)
from dpaudit.auditor.events.sets import Feature, Threshold, event_from_dict
from dpaudit.auditor.events.standard import _Sorted, cut_events, search_events

LEVEL = bounds.bonferroni_confidence(0.95, 10_000)


def strict(ka, na, kb, nb):
    return bounds.epsilon_lower_bound("joint", ka, na, kb, nb, LEVEL, 0.0)


def verified(event, rows_a, rows_b, forward: bool) -> float:
    """The union bound at 0.95 of ``event`` counted on fresh rows, in its search direction."""
    ka, kb = np.count_nonzero(event.contains(rows_a)), np.count_nonzero(event.contains(rows_b))
    if not forward:
        ka, kb = kb, ka
    return float(bounds.epsilon_lower_bound("union", ka, rows_a.shape[0], kb, rows_b.shape[0], 0.95, 0.0))


def laplace_copies(x: float, n: int, rng, width: int = 10, scale: float = 10.0) -> np.ndarray:
    return x + rng.laplace(0.0, scale, (n, width))


def test_the_product_ratio_beats_the_sum_of_coordinates():
    rng = np.random.default_rng(11)
    search_a, search_b = laplace_copies(1.0, 100_000, rng), laplace_copies(0.0, 100_000, rng)
    fresh_a, fresh_b = laplace_copies(1.0, 100_000, rng), laplace_copies(0.0, 100_000, rng)
    product = product_events(search_a, search_b, strict)[0]
    total = Feature("sum")
    (summed, *_) = sorted(cut_events("threshold", lambda t, u: Threshold(total, t, u),
                                     _Sorted.of(total.values(search_a), total.values(search_b)), strict),
                          key=lambda s: -s.objective)
    line = (0.399 + 0.676) / 2  # the module docstring: expected bounds of the best sum and count events
    assert verified(product.event, fresh_a, fresh_b, product.forward) > line
    assert verified(summed.event, fresh_a, fresh_b, summed.forward) < line
    assert isinstance(product.event, ProductRatioThreshold)
    assert event_from_dict(json.loads(json.dumps(product.event.as_dict()))) == product.event
    assert product.event.describe().startswith("summed log-ratio of 10 coordinates")


def test_discrete_coordinates_get_one_bin_per_value():
    # Independent bits, P[1] = 0.6 under a and 0.4 under b: the summed ratio counts the ones, so the best
    # events are "all four bits set" (forward) and "no bit set" (backward), log-ratio 4 ln 1.5 = 1.62 each.
    rng = np.random.default_rng(3)
    a = (rng.random((40_000, 4)) < 0.6).astype(float)
    b = (rng.random((40_000, 4)) < 0.4).astype(float)
    best = product_events(a, b, strict)[0]
    assert best.event.ratio.edges[0] == (0.0,)
    extreme, next_to_it = (np.ones((1, 4)), np.array([[1.0, 1.0, 1.0, 0.0]]))
    if not best.forward:
        extreme, next_to_it = 1.0 - extreme, 1.0 - next_to_it
    assert best.event.contains(extreme)[0] and not best.event.contains(next_to_it)[0]


def test_a_correct_product_mechanism_is_not_flagged():
    for width, scale, claim, family in ((2, 1.0, 2.0, None), (10, 10.0, 1.0, "product ratio")):
        def copies(x, n, rng, width=width, scale=scale):
            return float(np.asarray(x).reshape(-1)[0]) + rng.laplace(0.0, scale, (n, width))

        mechanism = Mechanism(name=f"test-laplace-copies-{width}", claim=PureDP(claim), neighbours=QueryDistance(1.0),
                              sampler=copies)
        for seed in (1, 2, 3):
            result = dpaudit.audit(mechanism, pair=(1.0, 0.0), samples=20_000, seed=seed, executor="in-process",
                                   progress=False, learned=False, checks=None)
            assert result.verdict is not Verdict.VIOLATION
            assert result.verdict_epsilon_lower_bound <= claim
            assert family is None or result.candidates[0].family == family


def svt_second_answer_leak(epsilon: float = 0.5, c: int = 2) -> Mechanism:
    """Sparse vector, cut-off c = 2, releasing q_i + Lap(100) at the first answer and q_i + Lap(1) at the
    second (0 below, -1 after the cut-off): the flaw is in the second answer only."""

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        rho = rng.laplace(0.0, 2 / epsilon, (n, 1))
        above = q + rng.laplace(0.0, 4 * c / epsilon, (n, q.size)) >= rho
        seen = np.cumsum(above, axis=1)
        value = np.where(seen == 1, q + rng.laplace(0.0, 100.0, (n, q.size)), q + rng.laplace(0.0, 1.0, (n, q.size)))
        out = np.where(above, value, 0.0)
        aborted = np.zeros_like(above)
        aborted[:, 1:] = seen[:, :-1] >= c
        return np.where(aborted, -1.0, out)

    return Mechanism(name="test-svt-second-answer", claim=PureDP(epsilon), neighbours=QueryDistance(1.0, "linf"),
                     sampler=sample)


def test_the_second_answer_of_a_cutoff_two_sparse_vector_is_read():
    mechanism, rng = svt_second_answer_leak(), np.random.default_rng(5)
    a_in, b_in = (1.0,) * 10, (0.0,) * 10
    search = mechanism.sample(a_in, 50_000, rng), mechanism.sample(b_in, 50_000, rng)
    fresh = mechanism.sample(a_in, 50_000, rng), mechanism.sample(b_in, 50_000, rng)
    conjunctions = [s for s in search_events(*search, strict) if "answer" in s.family]
    best = conjunctions[0]
    assert best.family == "answer 2" and best.event.atom_feature.rank == 2
    assert verified(best.event, *fresh, best.forward) > 0.51  # the module docstring: above what positions give
    assert "2nd" in best.event.describe()
    assert event_from_dict(json.loads(json.dumps(best.event.as_dict()))) == best.event
    first = Feature("first-nonzero", rank=2).values(np.array([[0.0, 3.0, 0.0, 2.5], [4.0, 0.0, 0.0, 0.0]]))
    assert first.tolist() == [3, 4]


def test_every_bin_count_fitted_and_evaluated_at_once_is_each_fitted_alone():
    # product_events fits all of BIN_COUNTS in one pass (nested quantile edges) and evaluates them through the
    # finest bins: the same histograms and the same sums, bit for bit, as each count fitted and evaluated alone.
    rng = np.random.default_rng(3)
    fit_a = np.c_[rng.laplace(0, 10, (4000, 3)), rng.integers(0, 3, 4000), np.round(rng.normal(0, 1, 4000), 1)]
    fit_b = np.c_[rng.laplace(1, 10, (4000, 3)), rng.integers(0, 4, 4000), np.round(rng.normal(0.1, 1, 4000), 1)]
    held = np.c_[rng.laplace(0, 10, (3000, 3)), rng.integers(-1, 5, 3000), rng.normal(0, 2, 3000)]
    held[::7, 0] = np.nan
    for pooled in (False, True):
        fitted, lookups = _fit(fit_a, fit_b, BIN_COUNTS, pooled)
        summed = _summed(lookups, held, BIN_COUNTS)
        for bins in BIN_COUNTS:
            alone = ProductRatio.fit(fit_a, fit_b, bins, pooled)
            assert fitted[bins] == alone
            assert np.array_equal(summed[bins], alone.values(held))
