"""The pair screening's held-out re-scoring: what it counts, its validity and its power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpaudit.auditor import DEFAULT_VERDICT_CONFIDENCE, Verdict, audit, bounds
from dpaudit.auditor.events.standard import search_events
from dpaudit.auditor.events import SearchContext
from dpaudit.auditor.screening import rescored_shortlist

STRICT_LEVEL = bounds.bonferroni_confidence(0.95, 10_000)


def _score(ka, na, kb, nb):
    return bounds.epsilon_lower_bound("union", ka, na, kb, nb, STRICT_LEVEL)


def _rescore(ka, na, kb, nb):
    n = 10**6
    expected_a, expected_b = np.asarray(ka, float) * (n / na), np.asarray(kb, float) * (n / nb)
    return bounds.epsilon_lower_bound("union", expected_a, n, expected_b, n, 0.975)


def _context() -> SearchContext:
    return SearchContext(mechanism=None, pair=(0, 1), score=_score)


def _discrete_rows(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pa = np.array([0.02, 0.18, 0.8])
    pb = np.array([0.02 * math.exp(-0.5), 0.18 * math.exp(-0.1), 0.0])
    pb[2] = 1.0 - pb[:2].sum()
    return rng.choice(3, size=(n, 1), p=pa).astype(float), rng.choice(3, size=(n, 1), p=pb).astype(float)


def test_rescored_shortlist_reports_held_out_counts_and_their_expected_bound():
    rows_a, rows_b = _discrete_rows(11, 40_000)
    found = rescored_shortlist(rows_a, rows_b, _context(), _rescore)
    assert found and [s.objective for s in found] == sorted((s.objective for s in found), reverse=True)
    keys = {(repr(s.event.as_dict()), s.forward) for s in found}
    assert len(keys) == len(found)
    for s in found:
        ka = int(np.count_nonzero(s.event.contains(rows_a[1::2])))
        kb = int(np.count_nonzero(s.event.contains(rows_b[1::2])))
        assert (s.hits_a, s.hits_b) == (ka, kb)
        large, small = (ka, kb) if s.forward else (kb, ka)
        assert s.objective == pytest.approx(float(_rescore(np.array([large]), 20_000, np.array([small]), 20_000)[0]))
    # The strict search on all rows joins the shortlist.
    strict_best = search_events(rows_a, rows_b, _score)[0]
    assert (repr(strict_best.event.as_dict()), strict_best.forward) in keys


def test_rescored_shortlist_needs_held_out_rows():
    rows = np.zeros((1, 1))
    assert rescored_shortlist(rows, rows, _context(), _rescore) == []


@pytest.mark.statistical
def test_screened_audits_of_correct_mechanisms_flag_at_most_alpha():
    # Without a pair the held-out re-scoring chooses among the candidate pairs.  The choice uses
    # search draws only, so each audit still flags with probability <= alpha' = 1 - verdict_confidence
    # = 0.001 and the flags of R seeds are stochastically at most Bin(R, 0.001); allowed: its
    # 1 - 1e-6 quantile (3 of 30).
    seeds = range(30)
    allowed = int(binom.isf(1e-6, len(seeds), 1 - DEFAULT_VERDICT_CONFIDENCE))
    for name in ("laplace", "report-noisy-max"):
        results = [audit(name, samples=5_000, seed=seed) for seed in seeds]
        assert all(r.pairs_screened > 1 for r in results)
        assert sum(r.verdict is Verdict.VIOLATION for r in results) <= allowed, name


@pytest.mark.statistical
@pytest.mark.parametrize("seed", [100, 102, 103])
def test_svt_lyu_4_is_found_without_its_pair_where_strict_screening_missed_it(seed):
    # Sparse vector Lyu Alg. 4 (claim 0.1, true 0.175, witness mass ~0.9 %).  Scoring the pairs by
    # the strict search bound missed it at these seeds (bounds 0.100, 0.089, 0.093 at 10^6); the
    # held-out expected verified bound flags all of 100..107 (benchmarks/README.md).  A regression
    # test at the seeds that were missed, not a power estimate.
    result = audit("svt-lyu-4", samples=10**6, seed=seed)
    assert result.verdict is Verdict.VIOLATION and result.pairs_screened > 2
